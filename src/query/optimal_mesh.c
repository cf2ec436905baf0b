/* optimal_mesh.c -- what the optimal path search (optimal.c) remembers about
 * polygons: their portals as the search sees them, and which portal ends
 * are corners a path may turn at.
 *
 * A polygon's portal records (nm_opt_portal) list its links to neighbours
 * that pass the filter, with the ends in the search's coordinates, the part
 * of the edge a tile-border link covers, and whether the neighbour is a
 * cul-de-sac when entered from here. They are made the first time the
 * polygon is expanded and kept -- in a pool that grows up to a limit and is
 * then emptied -- across searches until the mesh generation or the filter's
 * flags change, so a warm query reads no tile data while it expands.
 *
 * A portal end is a corner unless the polygons around it close a full turn
 * (found by walking from polygon to polygon around it, across tile borders
 * too); the walk also names the walkable piece around the point by its
 * smallest polygon ref, so that one root reached through different polygons
 * is recognised. This is worked out when an end first bounds a node. */
#include "nm_optimal.h"

#define NM_OPT_FAN_STEPS 32
#define NM_PI 3.14159265358979323846
#define NM_OPT_FIRST_PORTALS 1024u
#define NM_OPT_MIN_PORTAL_LIMIT 16384u

/* ---- tables ---- */
/* Number of polygons of the tile slots below `top`, and their dense bases. */
static uint32_t dense_count(const nm_navmesh *m, uint32_t *base) {
  uint32_t n = 0;
  int i;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (base) base[i] = n;
    if (t->header) n += (uint32_t)t->header->poly_count;
  }
  return n;
}

int nm_opt_grow_array(nm_query *q, void **p, uint32_t *cap, uint32_t n, size_t size) {
  void *np;
  if (n <= *cap) return 1;
  np = nm_realloc(&q->alloc, *p, (size_t)*cap * size, nm_mul_size(n, size));
  if (!np) return 0;
  *p = np;
  *cap = n;
  return 1;
}

/* Forgets every portal record: a new generation of them. */
static void new_generation(nm_opt *s) {
  if (++s->cgen == 0) {
    memset(s->pinfo, 0, (size_t)s->npinfo * sizeof(nm_opt_pinfo));
    s->cgen = 1;
  }
  s->pused = 0;
}

nm_status nm_opt_mesh_sync(nm_query *q, nm_opt *s, const nm_navmesh *m, const nm_filter *f) {
  uint32_t n, cap;
  if (s->mesh_set && s->mesh_gen == m->generation && s->inc == f->include_flags && s->exc == f->exclude_flags)
    return NM_OK;
  if (!s->portals) {
    s->plimit = q->pool.max * 4 > NM_OPT_MIN_PORTAL_LIMIT ? q->pool.max * 4 : NM_OPT_MIN_PORTAL_LIMIT;
    if (!nm_opt_grow_array(q, (void **)&s->portals, &s->pcap, NM_OPT_FIRST_PORTALS, sizeof(nm_opt_portal)))
      return NM_ERR_NOMEM;
  }
  s->mesh_set = 0;
  if (s->mesh_gen != m->generation || !s->tbase) {
    n = dense_count(m, NULL);
    if (!nm_opt_grow_array(q, (void **)&s->tbase, &s->ntbase, (uint32_t)(m->top > 0 ? m->top : 1), sizeof(uint32_t)))
      return NM_ERR_NOMEM;
    cap = s->npinfo;
    if (!nm_opt_grow_array(q, (void **)&s->pinfo, &s->npinfo, n > 0 ? n : 1, sizeof(nm_opt_pinfo)))
      return NM_ERR_NOMEM;
    if (s->npinfo > cap) memset(s->pinfo + cap, 0, (size_t)(s->npinfo - cap) * sizeof(nm_opt_pinfo));
    dense_count(m, s->tbase);
    s->npoly = n;
    if (nm_opt_cuts_make(q, s) < 0 || nm_opt_groups_make(q, s, m) < 0) return NM_ERR_NOMEM;
  }
  new_generation(s);
  s->mesh_gen = m->generation;
  s->inc = f->include_flags;
  s->exc = f->exclude_flags;
  s->mesh_set = 1;
  return NM_OK;
}

/* ---- portal records ---- */

/* Room for n more records: the pool grows (doubling, up to its limit) or,
 * when it cannot, is emptied -- records are only read during the
 * expansion of their polygon, so forgetting the others is safe. 0 when
 * even an empty pool is too small. */
static int portal_room(nm_opt_ctx *c, uint32_t n) {
  nm_opt *s = c->s;
  if (s->pused + n <= s->pcap) return 1;
  if (s->pcap < s->plimit) {
    uint32_t ncap = s->pcap * 2;
    while (ncap < s->pused + n) ncap *= 2;
    if (ncap > s->plimit) ncap = s->plimit;
    if (s->pused + n <= ncap && nm_opt_grow_array(c->q, (void **)&s->portals, &s->pcap, ncap, sizeof(nm_opt_portal)))
      return 1;
  }
  new_generation(s);
  return n <= s->pcap;
}

void nm_opt_link_ends(const nm_tile *t, const nm_poly *p, const nm_link *l, double *a, double *b) {
  const int e = l->edge, e1 = e + 1 == p->vert_count ? 0 : e + 1;
  const float *v0 = &t->verts[p->verts[e] * 3], *v1 = &t->verts[p->verts[e1] * 3];
  const int part = l->side != 0xff && (l->bmin != 0 || l->bmax != 255);
  float pt[3];
  nm_opt_pt(a, v0);
  nm_opt_pt(b, v1);
  if (part && l->bmin != 0) { /* as nm_portal_points: the funnel's points */
    nm_vlerp(pt, v0, v1, l->bmin * (1.0f / 255.0f));
    nm_opt_pt(a, pt);
  }
  if (part && l->bmax != 255) {
    nm_vlerp(pt, v0, v1, l->bmax * (1.0f / 255.0f));
    nm_opt_pt(b, pt);
  }
}

/* The record of link l of polygon p (tile t), into neighbour `nei`. */
static void portal_fill(const nm_tile *t, const nm_poly *p, nm_polyref own, const nm_link *l, nm_opt_portal *pr) {
  const int part = l->side != 0xff && (l->bmin != 0 || l->bmax != 255);
  memset(pr, 0, sizeof *pr);
  pr->nei = l->ref;
  pr->own = own;
  pr->edge = l->edge;
  pr->bmin = part ? l->bmin : 0;
  pr->bmax = part ? l->bmax : 255;
  nm_opt_link_ends(t, p, l, pr->a, pr->b);
}

/* 1 when polygon nei passes the filter; *dead gets whether its only link
 * leads back to polygon `from`. */
static int neighbour_facts(const nm_opt_ctx *c, nm_polyref nei, nm_polyref from, int *dead) {
  const nm_tile *t;
  const nm_poly *p;
  nm_ref_unsafe(c->m, nei, &t, &p);
  *dead = p->first_link != NM_NULL_LINK && t->links[p->first_link].next == NM_NULL_LINK &&
          t->links[p->first_link].ref == from;
  return nm_filter_pass(c->f, p);
}

/* First polygon (dense) of the search polygon ref, and the next after d
 * (~0u: none). */
static uint32_t member_first(const nm_opt_ctx *c, nm_polyref ref) {
  return c->s->gfirst[c->s->grp[nm_opt_dense(c->s, c->m, ref)]];
}
static uint32_t member_next(const nm_opt_ctx *c, uint32_t d) { return c->s->gnext[d]; }

/* Number of edge links of the polygons of search polygon ref (*offmesh: one
 * of them has an off-mesh connection). */
static uint32_t member_links(const nm_opt_ctx *c, nm_polyref ref, int *offmesh) {
  uint32_t d, i, n = 0;
  for (d = member_first(c, ref); d != ~0u; d = member_next(c, d)) {
    const nm_tile *t;
    const nm_poly *p;
    nm_ref_unsafe(c->m, c->s->gref[d], &t, &p);
    for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next) {
      if (t->links[i].edge < p->vert_count) n++;
      else *offmesh = 1;
    }
  }
  return n;
}

void nm_opt_portals_make(nm_opt_ctx *c, nm_opt_pinfo *pi, nm_polyref ref) {
  uint32_t d, i, n;
  int offmesh = 0;
  n = member_links(c, ref, &offmesh);
  pi->count = 0;
  pi->offmesh = (uint16_t)offmesh;
  pi->first = 0;
  if (n > 0xffff || !portal_room(c, n)) n = 0; /* (the emptied pool holds any polygon's links) */
  pi->gen = c->s->cgen; /* after portal_room: it may start a new generation */
  if (!n) return;
  pi->first = c->s->pused;
  for (d = member_first(c, ref); d != ~0u; d = member_next(c, d)) {
    const nm_polyref own = c->s->gref[d];
    const nm_tile *t;
    const nm_poly *p;
    nm_ref_unsafe(c->m, own, &t, &p);
    for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next) {
      const nm_link *l = &t->links[i];
      nm_opt_portal *pr = &c->s->portals[c->s->pused];
      int dead;
      if (l->edge >= p->vert_count) continue; /* an off-mesh connection, not an edge */
      if (!neighbour_facts(c, l->ref, own, &dead)) continue; /* excluded: a wall */
      if (nm_opt_group(c, l->ref) == ref) continue; /* inside the search polygon */
      portal_fill(t, p, own, l, pr);
      pr->nei = nm_opt_group(c, l->ref);
      pr->mnei = l->ref;
      if (dead) pr->flags |= NM_PO_DEAD;
      nm_opt_portal_cut(c->s, own, c->m, i, pr);
      c->s->pused++;
      pi->count++;
    }
  }
}

/* ---- corners: walks around a point ---- */

/* Where point v lies on the boundary of polygon p (X/Z, within tol): the
 * edge *e holding the boundary piece that starts at v (dir 0) or ends at v
 * (dir 1), going counter-clockwise, and v's parameter *tv on it. Returns 1
 * when v is vertex *k of p, 2 when it lies inside edge *e, 0 when it is not
 * on the boundary. */
static int fan_locate(const nm_tile *t, const nm_poly *p, const float *v, int dir, float tol, int *e,
                      float *tv, int *k) {
  const int nv = p->vert_count;
  int i;
  for (i = 0; i < nv; i++)
    if (nm_vdist2d_sqr(&t->verts[p->verts[i] * 3], v) <= tol * tol) {
      *k = i;
      *e = dir == 0 ? i : (i + nv - 1) % nv;
      *tv = dir == 0 ? 0.0f : 1.0f;
      return 1;
    }
  for (i = 0; i < nv; i++) {
    const float *a = &t->verts[p->verts[i] * 3], *b = &t->verts[p->verts[(i + 1) % nv] * 3];
    if (nm_dist_pt_seg_sqr2d(v, a, b, tv) <= tol * tol && *tv > 0 && *tv < 1) {
      *e = i;
      return 2;
    }
  }
  return 0;
}

/* Interior angle of polygon p at its vertex k (at a point inside an edge
 * when k < 0: pi), in the search's (x, -z) plane [Units: rad]. */
static double fan_angle(const nm_tile *t, const nm_poly *p, int k) {
  const int nv = p->vert_count;
  double o[2], a[2], b[2];
  if (k < 0) return NM_PI;
  nm_opt_pt(o, &t->verts[p->verts[k] * 3]);
  nm_opt_pt(a, &t->verts[p->verts[(k + 1) % nv] * 3]);
  nm_opt_pt(b, &t->verts[p->verts[(k + nv - 1) % nv] * 3]);
  a[0] -= o[0], a[1] -= o[1], b[0] -= o[0], b[1] -= o[1];
  return atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]);
}

/* The neighbour across the boundary piece next to v on edge e of polygon p
 * (after v for dir 0, before it for dir 1), or 0 for a wall. Tile-border
 * links cover parts of an edge, rounded to 1/255: a part starting (ending)
 * within qt of v is the one after (before) it, and one ending (starting)
 * there is not, though rounding may carry it a little past v. */
static nm_polyref fan_cross(const nm_opt_ctx *c, const nm_tile *t, const nm_poly *p, int e, float tv,
                            int dir, float qt) {
  nm_polyref over = 0;
  uint32_t i;
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next) {
    const nm_link *l = &t->links[i];
    const int part = l->side != 0xff && (l->bmin != 0 || l->bmax != 255);
    const float lo = part ? l->bmin * (1.0f / 255.0f) : 0.0f, hi = part ? l->bmax * (1.0f / 255.0f) : 1.0f;
    if (l->edge != e) continue;
    if (fabsf((dir == 0 ? lo : hi) - tv) <= qt) { over = l->ref; break; }
    if (lo + qt < tv && tv < hi - qt) over = l->ref; /* (a part ending at v covers nothing after it) */
  }
  if (over) {
    const nm_tile *nt;
    const nm_poly *np;
    nm_ref_unsafe(c->m, over, &nt, &np);
    if (!nm_filter_pass(c->f, np)) return 0;
  }
  return over;
}

/* A walk around a point (fan_closes): the walkable angle met, and the far
 * end of the wall piece it stopped at. */
typedef struct fan_walk {
  double angle;              /* [Units: rad] */
  float wall[3];
} fan_walk;

/* Walks around point v [(x,y,z)] from polygon start through linked polygons
 * that pass the filter, always crossing the boundary piece that starts at v
 * (dir 0) or ends at v (dir 1) -- polygons are all wound the same way, so
 * this keeps turning one way. Returns 1 when the walk comes back to start
 * (v lies inside the walkable area), 0 when it meets a wall (w: the
 * polygons' angles at v but start's, and the wall piece), -1 when it loses
 * its way. *minref gets the smallest polygon ref met. */
static int fan_closes(const nm_opt_ctx *c, nm_polyref start, const float *v, int dir, float tol,
                      nm_polyref *minref, fan_walk *w) {
  nm_polyref cur = start;
  int step;
  for (step = 0; step < NM_OPT_FAN_STEPS; step++) {
    const nm_tile *t;
    const nm_poly *p;
    float tv;
    int e, k = -1, at;
    nm_ref_unsafe(c->m, cur, &t, &p);
    if (nm_poly_type(p) != NM_POLYTYPE_GROUND || !(at = fan_locate(t, p, v, dir, tol, &e, &tv, &k))) return -1;
    if (step > 0) w->angle += fan_angle(t, p, at == 1 ? k : -1);
    cur = fan_cross(c, t, p, e, tv, dir, tol / nm_maxf(nm_vdist2d(&t->verts[p->verts[e] * 3],
                                     &t->verts[p->verts[(e + 1) % p->vert_count] * 3]), 1e-6f) + 0.5f / 255.0f);
    if (!cur) {
      nm_vcopy(w->wall, &t->verts[p->verts[dir == 0 ? (e + 1) % p->vert_count : e] * 3]);
      return 0;
    }
    if (cur == start) return 1;
    if (cur < *minref) *minref = cur;
  }
  return -1;
}

/* 1 when the walls at v, from v to a and from v to b, run on in one exactly
 * straight line (float products are exact in double). */
static int straight_wall(const float *v, const float *a, const float *b) {
  const double ax = (double)a[0] - v[0], az = (double)a[2] - v[2];
  const double bx = (double)b[0] - v[0], bz = (double)b[2] - v[2];
  return ax * bz - az * bx == 0 && ax * bx + az * bz < 0;
}

/* The 3-D point a VERT or PEND descriptor names, into v. */
static void desc_point(const nm_navmesh *m, uint64_t desc, float *v) {
  const nm_tile *t;
  const nm_poly *p;
  nm_ref_unsafe(m, (nm_polyref)desc, &t, &p);
  if ((desc & NM_OPT_KIND) == NM_OPT_VERT) {
    nm_vcopy(v, &t->verts[p->verts[(desc >> 32) & 0xff] * 3]);
  } else {
    const int e = (int)(desc >> 40) & 0xff;
    nm_vlerp(v, &t->verts[p->verts[e] * 3], &t->verts[p->verts[(e + 1) % p->vert_count] * 3],
             (float)((desc >> 32) & 0xff) * (1.0f / 255.0f));
  }
}

/* Walks around the point of a VERT or PEND descriptor: 1 when it is a
 * corner a shortest path may turn at, with *sector naming the walkable
 * piece around it. Paths turn only where the walkable area is reflex, so a
 * point where walls meet at an angle clearly below pi (an inner corner) or
 * run on exactly straight (a wall split at a tile border) is none; when in
 * doubt (a lost walk, an angle within 1e-9 of pi) it is one. */
static int corner_walk(const nm_opt_ctx *c, uint64_t desc, nm_polyref *sector) {
  const nm_polyref ref = (nm_polyref)desc;
  const nm_tile *t;
  const nm_poly *p;
  float v[3], tol = (float)c->eps * 4;
  fan_walk w0, w1;
  int slot = -1, r0, r1;
  desc_point(c->m, desc, v);
  nm_ref_unsafe(c->m, ref, &t, &p);
  if ((desc & NM_OPT_KIND) == NM_OPT_PEND) {
    const int e = (int)(desc >> 40) & 0xff;
    /* the neighbours' vertex is up to half a step away */
    tol += nm_vdist2d(&t->verts[p->verts[e] * 3], &t->verts[p->verts[(e + 1) % p->vert_count] * 3]) / 255.0f;
  } else {
    slot = (int)(desc >> 32) & 0xff;
  }
  *sector = ref;
  w0.angle = w1.angle = 0;
  if ((r0 = fan_closes(c, ref, v, 0, tol, sector, &w0)) == 1) return 0;
  r1 = fan_closes(c, ref, v, 1, tol, sector, &w1);
  if (r0 < 0 || r1 < 0) return 1;
  w0.angle += w1.angle + fan_angle(t, p, slot);
  if (w0.angle < NM_PI - 1e-9) return 0;
  return !(fabs(w0.angle - NM_PI) < 1e-6 && straight_wall(v, w0.wall, w1.wall));
}

/* Root identity: the point and the walkable piece around it. */
static uint64_t point_key(const float *v, nm_polyref sector) {
  uint32_t bits[2];
  uint64_t h;
  memcpy(&bits[0], &v[0], sizeof(float));
  memcpy(&bits[1], &v[2], sizeof(float));
  h = ((uint64_t)bits[0] << 32 | bits[1]) * 0x9e3779b97f4a7c15ull;
  h ^= (uint64_t)sector * 0xc2b2ae3d27d4eb4full;
  h ^= h >> 31;
  return NM_OPT_VERT | (h & ((1ull << 62) - 1));
}

uint64_t nm_opt_end_key_make(const nm_opt_ctx *c, nm_opt_portal *pr, int b) {
  const nm_polyref ref = pr->own;
  const nm_tile *t;
  const nm_poly *p;
  const uint8_t q = b ? pr->bmax : pr->bmin;
  uint64_t desc, key = 0;
  nm_polyref sector;
  float v[3];
  nm_ref_unsafe(c->m, ref, &t, &p);
  if (q == 0 || q == 255) {
    const int slot = q == 0 ? pr->edge : (pr->edge + 1 == p->vert_count ? 0 : pr->edge + 1);
    desc = NM_OPT_VERT | ((uint64_t)slot << 32) | ref;
  } else {
    desc = NM_OPT_PEND | ((uint64_t)pr->edge << 40) | ((uint64_t)q << 32) | ref;
  }
  if (corner_walk(c, desc, &sector)) {
    desc_point(c->m, desc, v);
    key = point_key(v, sector);
  }
  if (b) pr->kb = key;
  else pr->ka = key;
  pr->flags |= b ? NM_PO_KB : NM_PO_KA;
  return key;
}
