/* optimal_groups.c -- merged search polygons for the optimal path search:
 * neighbouring polygons whose union is convex in X/Z are searched as one
 * polygon, across tile borders too. The search then needs fewer
 * expansions (a cone crosses one polygon where it crossed several).
 *
 * Each polygon gets a ring in (x, -z): its vertices, plus the ends of the
 * tile-border link parts on its edges (moved onto the neighbour's vertex
 * they round), each piece of boundary naming the neighbour behind it.
 * Polygons are merged greedily along their one shared chain of pieces when
 * the merged ring still turns left everywhere and once around. */
#include "nm_optimal.h"

typedef struct grp_pt {
  double x, y;
  uint32_t nb;               /* dense neighbour behind the piece from here to the next point, ~0: none */
} grp_pt;

/* A ring: n points from pool[off], around `members` polygons. */
typedef struct grp_ring {
  uint32_t off, n, members;
} grp_ring;

typedef struct grp_work {
  nm_query *q;
  nm_opt *s;
  const nm_navmesh *m;
  grp_ring *r;               /* [npoly] */
  uint32_t *uf;              /* [npoly] union-find parent */
  grp_pt *pool;              /* every ring's points, [pcap], the first pused in use */
  uint32_t pused, pcap;
} grp_work;

/* Largest ring of a group (bigger search polygons cost more per
 * expansion), and most polygons in one (see NM_OPT_GROUP_MAX). */
#define NM_GRP_MAX_RING 32u
#define NM_GRP_MAX_MEMBERS 32u
#define NM_GRP_EDGE_PARTS (NM_MAX_VERTS_PER_POLY * 4) /* link parts on one edge, at most */

static uint32_t grp_find(uint32_t *uf, uint32_t a) {
  while (uf[a] != a) a = uf[a] = uf[uf[a]];
  return a;
}

/* Room for n more points in the pool (which may move); 0: out of memory. */
static int pool_room(grp_work *w, uint32_t n) {
  uint32_t ncap = w->pcap ? w->pcap : 1024;
  if (w->pcap - w->pused >= n) return 1;
  while (ncap - w->pused < n) {
    if (ncap > 0x7fffffffu) return 0;
    ncap *= 2;
  }
  return nm_opt_grow_array(w->q, (void **)&w->pool, &w->pcap, ncap, sizeof(grp_pt));
}

/* Appends a point to ring r, the last one in the pool. */
static int ring_push(grp_work *w, grp_ring *r, double x, double y, uint32_t nb) {
  grp_pt *p;
  if (!pool_room(w, 1)) return 0;
  p = &w->pool[w->pused++];
  p->x = x;
  p->y = y;
  p->nb = nb;
  r->n++;
  return 1;
}

/* Moves (x, y) onto the nearest vertex of polygon q when within tol. */
static void snap_to(const nm_navmesh *m, nm_polyref q, double tol, double *x, double *y) {
  const nm_tile *t;
  const nm_poly *p;
  double bd = tol * tol, bx = *x, by = *y;
  int i;
  nm_ref_unsafe(m, q, &t, &p);
  for (i = 0; i < p->vert_count; i++) {
    const float *v = &t->verts[p->verts[i] * 3];
    const double dx = v[0] - *x, dy = -(double)v[2] - *y;
    if (dx * dx + dy * dy <= bd) {
      bd = dx * dx + dy * dy;
      bx = v[0];
      by = -(double)v[2];
    }
  }
  *x = bx;
  *y = by;
}

/* 1 when polygon ref may join a group: ground, no off-mesh connection.
 * (Groups are made per mesh, whatever the filter: a group's polygons all
 * have the same flags, so a filter passes all of it or none.) */
static int mergeable(const grp_work *w, nm_polyref ref) {
  const nm_tile *t;
  const nm_poly *p;
  uint32_t i;
  nm_ref_unsafe(w->m, ref, &t, &p);
  if (nm_poly_type(p) != NM_POLYTYPE_GROUND) return 0;
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next)
    if (t->links[i].edge >= p->vert_count) return 0;
  return 1;
}

/* 1 when polygons a and b have the same flags. */
static int same_flags(const nm_navmesh *m, nm_polyref a, nm_polyref b) {
  const nm_tile *ta, *tb;
  const nm_poly *pa, *pb;
  nm_ref_unsafe(m, a, &ta, &pa);
  nm_ref_unsafe(m, b, &tb, &pb);
  return pa->flags == pb->flags;
}

/* The link parts on edge e of polygon ref (tile t, polygon p) into
 * polygons it may merge with, sorted by where they start: lo, hi in 1/255
 * of the edge, nb the neighbours. Returns their number. */
static int edge_parts(const grp_work *w, const nm_tile *t, const nm_poly *p, nm_polyref ref, int e, int *lo,
                      int *hi, nm_polyref *nb) {
  uint32_t i;
  int k = 0, a, b;
  for (i = p->first_link; i != NM_NULL_LINK && k < NM_GRP_EDGE_PARTS; i = t->links[i].next) {
    const nm_link *l = &t->links[i];
    if (l->edge != e || !mergeable(w, l->ref) || !same_flags(w->m, ref, l->ref)) continue;
    lo[k] = l->side == 0xff ? 0 : l->bmin;
    hi[k] = l->side == 0xff ? 255 : l->bmax;
    nb[k++] = l->ref;
  }
  for (a = 1; a < k; a++) /* insertion sort by lo */
    for (b = a; b > 0 && lo[b] < lo[b - 1]; b--) {
      int x = lo[b];
      nm_polyref y = nb[b];
      lo[b] = lo[b - 1], lo[b - 1] = x;
      x = hi[b], hi[b] = hi[b - 1], hi[b - 1] = x;
      nb[b] = nb[b - 1], nb[b - 1] = y;
    }
  return k;
}

/* Pushes the point at q/255 along va -> vb, moved onto the vertex of
 * polygon nb it rounds (link parts are kept in 1/255 of the edge). */
static int push_part_end(grp_work *w, grp_ring *r, const float *va, const float *vb, int q, nm_polyref nb) {
  const double dx = (double)vb[0] - va[0], dz = (double)vb[2] - va[2];
  double x = va[0] + dx * q / 255.0, y = -(double)va[2] - dz * q / 255.0;
  snap_to(w->m, nb, sqrt(dx * dx + dz * dz) / 255.0 + 1e-3, &x, &y);
  return ring_push(w, r, x, y, ~0u);
}

/* The ring of polygon ref: its vertices and the ends of its link parts,
 * each piece naming the neighbour behind it. Pieces behind which no
 * polygon it may merge with lies count as walls. */
static int ring_make(grp_work *w, nm_polyref ref, grp_ring *r) {
  const nm_tile *t;
  const nm_poly *p;
  int e;
  nm_ref_unsafe(w->m, ref, &t, &p);
  r->off = w->pused;
  r->n = 0;
  r->members = 1;
  for (e = 0; e < p->vert_count; e++) {
    const float *va = &t->verts[p->verts[e] * 3], *vb = &t->verts[p->verts[(e + 1) % p->vert_count] * 3];
    int lo[NM_GRP_EDGE_PARTS], hi[NM_GRP_EDGE_PARTS], k, a, cur = 0;
    nm_polyref nb[NM_GRP_EDGE_PARTS];
    k = edge_parts(w, t, p, ref, e, lo, hi, nb);
    if (!ring_push(w, r, va[0], -(double)va[2], ~0u)) return 0;
    for (a = 0; a < k; a++) {
      if (lo[a] > cur && !push_part_end(w, r, va, vb, lo[a], nb[a])) return 0; /* a wall before it */
      w->pool[w->pused - 1].nb = nm_opt_dense(w->s, w->m, nb[a]);
      if (hi[a] < 255 && !push_part_end(w, r, va, vb, hi[a], nb[a])) return 0;
      if (hi[a] > cur) cur = hi[a];
    }
  }
  return 1;
}

/* Group of the neighbour behind piece i of ring r (~0: none). */
static uint32_t piece_grp(grp_work *w, const grp_ring *r, uint32_t i) {
  const uint32_t nb = w->pool[r->off + i].nb;
  return nb == ~0u ? ~0u : grp_find(w->uf, nb);
}

/* The one chain of pieces of ring r behind which group g lies: its first
 * piece *c0 and the point after its last *c1. 0 when there is not exactly
 * one. */
static int ring_chain(grp_work *w, const grp_ring *r, uint32_t g, uint32_t *c0, uint32_t *c1) {
  uint32_t i, starts = 0;
  for (i = 0; i < r->n; i++)
    if (piece_grp(w, r, i) == g && piece_grp(w, r, (i + r->n - 1) % r->n) != g) {
      starts++;
      *c0 = i;
    }
  if (starts != 1) return 0;
  for (i = *c0; piece_grp(w, r, i) == g;) i = (i + 1) % r->n;
  *c1 = i;
  return 1;
}

/* 1 when ring o turns left (or runs straight) at its point i. */
static int turns_left(const grp_pt *o, uint32_t n, uint32_t i) {
  const grp_pt *a = &o[(i + n - 1) % n], *b = &o[i], *c = &o[(i + 1) % n];
  const double ux = b->x - a->x, uy = b->y - a->y, vx = c->x - b->x, vy = c->y - b->y;
  const double cr = ux * vy - uy * vx;
  return cr >= 0 || cr * cr < 1e-14 * (ux * ux + uy * uy) * (vx * vx + vy * vy);
}

/* Merges groups a and b when their union is convex (and not too big); 1
 * when done. The merged ring goes to the end of the pool. */
static int try_merge(grp_work *w, uint32_t a, uint32_t b) {
  grp_ring *ra = &w->r[a], *rb = &w->r[b];
  const grp_pt *pa, *pb;
  uint32_t a0, a1, b0, b1, j, k, n = 0;
  grp_pt *o;
  if (ra->n + rb->n > NM_GRP_MAX_RING + 4 || ra->members + rb->members > NM_GRP_MAX_MEMBERS ||
      !ring_chain(w, ra, b, &a0, &a1) || !ring_chain(w, rb, a, &b0, &b1) || !pool_room(w, ra->n + rb->n))
    return 0;
  pa = &w->pool[ra->off];
  pb = &w->pool[rb->off];
  if (fabs(pa[a0].x - pb[b1].x) > 1e-4 || fabs(pa[a0].y - pb[b1].y) > 1e-4 || fabs(pa[a1].x - pb[b0].x) > 1e-4 ||
      fabs(pa[a1].y - pb[b0].y) > 1e-4)
    return 0;
  o = &w->pool[w->pused];
  for (k = a1;; k = (k + 1) % ra->n) {
    o[n++] = pa[k];
    if (k == a0) break;
  }
  o[n - 1].nb = pb[b1].nb;
  j = n - 1; /* the two points where the rings meet: o[0] and o[j] */
  for (k = (b1 + 1) % rb->n; k != b0; k = (k + 1) % rb->n) o[n++] = pb[k];
  /* Both rings are convex and lie on either side of the chain, so the
   * union is convex when it turns left where they meet. */
  if (n > NM_GRP_MAX_RING || !turns_left(o, n, 0) || !turns_left(o, n, j)) return 0;
  ra->off = w->pused;
  ra->n = n;
  ra->members += rb->members;
  w->pused += n;
  rb->n = 0;
  w->uf[b] = a;
  return 1;
}

/* Merges greedily: each group tries its neighbours, again after every
 * merge. One pass finds all: a pair that failed can only succeed once one
 * of the two changed, and the one that changed tries its neighbours anew. */
static void merge_all(grp_work *w, uint32_t np) {
  uint32_t i;
  for (i = 0; i < np; i++) {
    uint32_t k;
    if (!w->r[i].n || w->uf[i] != i) continue;
    for (k = 0; k < w->r[i].n; k++) {
      const uint32_t g = piece_grp(w, &w->r[i], k);
      if (g != ~0u && g != i && w->r[g].n && try_merge(w, i, g)) k = (uint32_t)-1;
    }
  }
}

static void work_free(grp_work *w, uint32_t np) {
  nm_free(&w->q->alloc, w->pool, (size_t)w->pcap * sizeof(grp_pt));
  nm_free(&w->q->alloc, w->r, (size_t)np * sizeof(grp_ring));
  nm_free(&w->q->alloc, w->uf, (size_t)np * sizeof(uint32_t));
}

nm_status nm_opt_groups_make(nm_query *q, nm_opt *s, const nm_navmesh *m) {
  const uint32_t np = s->npoly;
  grp_work w;
  uint32_t i;
  int it;
  if (np == 0) return NM_OK;
  if (!nm_opt_grow_array(q, (void **)&s->grp, &s->ngrp, np, sizeof(uint32_t)) ||
      !nm_opt_grow_array(q, (void **)&s->gnext, &s->ngnext, np, sizeof(uint32_t)) ||
      !nm_opt_grow_array(q, (void **)&s->gfirst, &s->ngfirst, np, sizeof(uint32_t)) ||
      !nm_opt_grow_array(q, (void **)&s->gref, &s->ngref, np, sizeof(nm_polyref)))
    return NM_ERR_NOMEM;
  memset(&w, 0, sizeof w);
  w.q = q, w.s = s, w.m = m;
  w.r = (grp_ring *)nm_calloc(&q->alloc, (size_t)np * sizeof(grp_ring));
  w.uf = (uint32_t *)nm_malloc(&q->alloc, (size_t)np * sizeof(uint32_t));
  if (!w.r || !w.uf) {
    work_free(&w, np);
    return NM_ERR_NOMEM;
  }
  for (i = 0; i < np; i++) w.uf[i] = i;
  for (it = 0; it < m->top; it++) {
    const nm_tile *t = &m->tiles[it];
    int ip;
    if (!t->header) continue;
    for (ip = 0; ip < t->header->poly_count; ip++) {
      const nm_polyref ref = nm_tile_base(m, t) | (nm_polyref)ip;
      const uint32_t d = nm_opt_dense(s, m, ref);
      s->gref[d] = ref;
      if (mergeable(&w, ref) && !ring_make(&w, ref, &w.r[d])) {
        work_free(&w, np);
        return NM_ERR_NOMEM;
      }
    }
  }
  merge_all(&w, np);
  for (i = 0; i < np; i++) s->gfirst[i] = ~0u;
  for (i = np; i-- > 0;) {
    const uint32_t g = grp_find(w.uf, i);
    s->grp[i] = g;
    s->gnext[i] = s->gfirst[g];
    s->gfirst[g] = i;
  }
  work_free(&w, np);
  return NM_OK;
}

double nm_opt_poly_gap(const nm_navmesh *m, nm_polyref ref, const double *p) {
  const nm_tile *t;
  const nm_poly *pl;
  double a[2], b[2], best = DBL_MAX;
  int i, inside = 1;
  nm_ref_unsafe(m, ref, &t, &pl);
  nm_opt_pt(a, &t->verts[pl->verts[pl->vert_count - 1] * 3]);
  for (i = 0; i < pl->vert_count; i++, a[0] = b[0], a[1] = b[1]) {
    double dx, dy, dd, u, qx, qy;
    nm_opt_pt(b, &t->verts[pl->verts[i] * 3]);
    dx = b[0] - a[0], dy = b[1] - a[1], dd = dx * dx + dy * dy;
    if (nm_opt_orient(a, b, p) < 0) inside = 0;
    u = dd > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / dd : 0;
    u = u < 0 ? 0 : (u > 1 ? 1 : u);
    qx = a[0] + u * dx - p[0];
    qy = a[1] + u * dy - p[1];
    dd = qx * qx + qy * qy;
    if (dd < best) best = dd;
  }
  return inside ? 0 : sqrt(best);
}

double nm_opt_group_gap(const nm_opt_ctx *c, nm_polyref g, const double *p, nm_polyref *member) {
  double best = DBL_MAX;
  uint32_t d;
  *member = g;
  for (d = c->s->gfirst[c->s->grp[nm_opt_dense(c->s, c->m, g)]]; d != ~0u; d = c->s->gnext[d]) {
    const double x = nm_opt_poly_gap(c->m, c->s->gref[d], p);
    if (x < best) {
      best = x;
      *member = c->s->gref[d];
    }
  }
  return best;
}
