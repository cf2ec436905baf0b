/* optimal_expand.c -- successors of a node of the optimal path search
 * (Polyanya, see optimal.c): projecting the cone root-left-right onto the
 * portals of the polygon the node leads into.
 *
 * A polygon's portals are read from its links: a whole edge for a neighbour
 * in the same tile, the linked part of the edge at tile borders (the same
 * points nm_portal_points gives the funnel), nothing where the neighbour is
 * missing or excluded by the filter (a wall). For each portal the part inside
 * the cone becomes an observable successor (same root); if the right end of
 * the interval is a corner of the walkable area, the part of the portal
 * clockwise of the ray root->right becomes a successor rooted at that corner
 * (likewise on the left). A vertex is a corner unless the polygons around it
 * close a full turn inside one tile; ends of partial portals always count as
 * corners (cheap and safe: a path never needs to turn where it is not
 * forced, it only costs nodes). */
#include "nm_optimal.h"

#define NM_OPT_FAN_STEPS 32

/* The polygon being expanded: its vertices as (x, -z) and, for a wedge, the
 * orientation of each against the rays root->right and root->left (portal
 * ends inside an edge interpolate these: orient() is linear in its point). */
typedef struct opt_poly {
  const nm_tile *t;
  const nm_poly *p;
  nm_polyref ref;
  double v[NM_MAX_VERTS_PER_POLY][2];
  double fr[NM_MAX_VERTS_PER_POLY], fl[NM_MAX_VERTS_PER_POLY];
} opt_poly;

/* A portal of the polygon being expanded, a -> b counter-clockwise along it. */
typedef struct opt_seg {
  double a[2], b[2];
  double fra, frb, fla, flb; /* orientations of a and b (see opt_poly) */
  double len;                /* |a b|, < 0 until needed */
  uint64_t ka, kb;           /* descriptors of a and b */
  nm_polyref nei;            /* the polygon behind it */
  int usable;                /* nei passes the filter: -1 until needed */
} opt_seg;

/* What the root of the node being expanded sees. */
typedef struct opt_cone {
  int wedge;           /* 1: only the wedge root-left-right; 0: all of the polygon */
  int rcorner, lcorner;/* the interval ends are corners a path may turn at */
  uint64_t rkey, lkey; /* their root keys */
  double dr, dl;       /* distances from the root to them */
  double tr, tl;       /* eps * dr, eps * dl: tolerances of orientation tests */
  double eps;          /* the search's distance tolerance */
} opt_cone;

/* ---- corners ---- */

/* Where point v lies on the boundary of polygon p (X/Z, within tol): the
 * edge *e holding the boundary piece that starts at v (dir 0) or ends at v
 * (dir 1), going counter-clockwise, and v's parameter *tv on it. 0 when v
 * is not on the boundary. */
static int fan_locate(const nm_tile *t, const nm_poly *p, const float *v, int dir, float tol, int *e,
                      float *tv) {
  const int nv = p->vert_count;
  int k;
  for (k = 0; k < nv; k++)
    if (nm_vdist2d_sqr(&t->verts[p->verts[k] * 3], v) <= tol * tol) {
      *e = dir == 0 ? k : (k + nv - 1) % nv;
      *tv = dir == 0 ? 0.0f : 1.0f;
      return 1;
    }
  for (k = 0; k < nv; k++) {
    const float *a = &t->verts[p->verts[k] * 3], *b = &t->verts[p->verts[(k + 1) % nv] * 3];
    if (nm_dist_pt_seg_sqr2d(v, a, b, tv) <= tol * tol && *tv > 0 && *tv < 1) {
      *e = k;
      return 1;
    }
  }
  return 0;
}

/* The neighbour across the boundary piece next to v on edge e of polygon p
 * (after v for dir 0, before it for dir 1), or 0 for a wall. Tile-border
 * links cover parts of an edge, rounded to 1/255: a part starting (ending)
 * within qt of v is the one after (before) it. */
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
    if (lo < tv && tv < hi) over = l->ref;
  }
  if (over) {
    const nm_tile *nt;
    const nm_poly *np;
    nm_ref_unsafe(c->m, over, &nt, &np);
    if (!nm_filter_pass(c->f, np)) return 0;
  }
  return over;
}

/* Walks around point v [(x,y,z)] from polygon start through linked polygons
 * that pass the filter, always crossing the boundary piece that starts at v
 * (dir 0) or ends at v (dir 1) -- polygons are all wound the same way, so
 * this keeps turning one way. 1 when the walk comes back to start (v lies
 * inside the walkable area), else 0 (a wall touches v). *minref gets the
 * smallest polygon ref met. */
static int fan_closes(const nm_opt_ctx *c, nm_polyref start, const float *v, int dir, float tol,
                      nm_polyref *minref) {
  nm_polyref cur = start;
  int step;
  for (step = 0; step < NM_OPT_FAN_STEPS; step++) {
    const nm_tile *t;
    const nm_poly *p;
    float tv;
    int e;
    nm_ref_unsafe(c->m, cur, &t, &p);
    if (nm_poly_type(p) != NM_POLYTYPE_GROUND || !fan_locate(t, p, v, dir, tol, &e, &tv)) return 0;
    cur = fan_cross(c, t, p, e, tv, dir, tol / nm_maxf(nm_vdist2d(&t->verts[p->verts[e] * 3],
                                     &t->verts[p->verts[(e + 1) % p->vert_count] * 3]), 1e-6f) + 0.5f / 255.0f);
    if (!cur) return 0;
    if (cur == start) return 1;
    if (cur < *minref) *minref = cur;
  }
  return 0;
}

/* nm_opt_root_key without the cache. */
static uint64_t root_key(const nm_opt_ctx *c, uint64_t desc, int *corner) {
  const uint64_t kind = desc & (3ull << 62);
  const nm_polyref ref = (nm_polyref)desc;
  const nm_tile *t;
  const nm_poly *p;
  float v[3], tol = (float)c->eps * 4;
  nm_polyref sector = ref;
  uint64_t h;
  uint32_t bits[2];
  *corner = desc != 0;
  if (kind != NM_OPT_VERT && kind != NM_OPT_PEND) return desc;
  nm_ref_unsafe(c->m, ref, &t, &p);
  if (kind == NM_OPT_VERT) {
    nm_vcopy(v, &t->verts[(uint16_t)(desc >> 32) * 3]);
  } else {
    const int e = (int)(desc >> 40) & 0xff;
    const float *v0 = &t->verts[p->verts[e] * 3], *v1 = &t->verts[p->verts[(e + 1) % p->vert_count] * 3];
    nm_vlerp(v, v0, v1, (float)((desc >> 32) & 0xff) * (1.0f / 255.0f));
    tol += nm_vdist2d(v0, v1) / 255.0f; /* the neighbours' vertex is up to half a step away */
  }
  if (fan_closes(c, ref, v, 0, tol, &sector)) {
    *corner = 0;
    return 0;
  }
  fan_closes(c, ref, v, 1, tol, &sector);
  /* root identity: the point and the walkable piece around it (named by
   * its smallest polygon ref) */
  memcpy(&bits[0], &v[0], sizeof(float));
  memcpy(&bits[1], &v[2], sizeof(float));
  h = ((uint64_t)bits[0] << 32 | bits[1]) * 0x9e3779b97f4a7c15ull;
  h ^= (uint64_t)sector * 0xc2b2ae3d27d4eb4full;
  h ^= h >> 31;
  return NM_OPT_VERT | (h & ((1ull << 62) - 1));
}

uint64_t nm_opt_root_key(const nm_opt_ctx *c, uint64_t desc, int *corner) {
  nm_opt *s = c->s;
  nm_opt_corner *e;
  uint64_t h = desc * 0x9e3779b97f4a7c15ull;
  if (!desc) {
    *corner = 0;
    return 0;
  }
  e = &s->corners[(uint32_t)(h >> 40) & s->cmask];
  if (e->gen != s->cgen || e->desc != desc) {
    e->key = root_key(c, desc, &e->corner);
    e->desc = desc;
    e->gen = s->cgen;
  }
  *corner = e->corner;
  return e->key;
}

/* ---- portals of a polygon ---- */

static uint64_t vert_desc(nm_polyref ref, uint16_t vi) {
  return NM_OPT_VERT | ((uint64_t)vi << 32) | ref;
}

/* The portal of link l (edge e of polygon P) into seg. */
static void link_segment(const opt_poly *P, const nm_link *l, opt_seg *s) {
  const nm_poly *p = P->p;
  const int e = l->edge, e1 = (e + 1) % p->vert_count;
  s->nei = l->ref;
  s->usable = -1;
  s->len = -1;
  s->ka = vert_desc(P->ref, p->verts[e]);
  s->kb = vert_desc(P->ref, p->verts[e1]);
  memcpy(s->a, P->v[e], sizeof s->a);
  memcpy(s->b, P->v[e1], sizeof s->b);
  s->fra = P->fr[e];
  s->frb = P->fr[e1];
  s->fla = P->fl[e];
  s->flb = P->fl[e1];
  if (l->side != 0xff && (l->bmin != 0 || l->bmax != 255)) { /* part of a border edge */
    const float *v0 = &P->t->verts[p->verts[e] * 3], *v1 = &P->t->verts[p->verts[e1] * 3];
    const float k = 1.0f / 255.0f;
    const double ta = l->bmin * k, tb = l->bmax * k;
    float pt[3];
    if (l->bmin != 0) {
      nm_vlerp(pt, v0, v1, l->bmin * k); /* as nm_portal_points: the funnel's points */
      nm_opt_pt(s->a, pt);
      s->ka = NM_OPT_PEND | ((uint64_t)e << 40) | ((uint64_t)l->bmin << 32) | P->ref;
    }
    if (l->bmax != 255) {
      nm_vlerp(pt, v0, v1, l->bmax * k);
      nm_opt_pt(s->b, pt);
      s->kb = NM_OPT_PEND | ((uint64_t)e << 40) | ((uint64_t)l->bmax << 32) | P->ref;
    }
    s->fra = P->fr[e] + (P->fr[e1] - P->fr[e]) * ta;
    s->frb = P->fr[e] + (P->fr[e1] - P->fr[e]) * tb;
    s->fla = P->fl[e] + (P->fl[e1] - P->fl[e]) * ta;
    s->flb = P->fl[e] + (P->fl[e1] - P->fl[e]) * tb;
  }
}

/* The polygon of node n as seen from its root. */
static void poly_view(const nm_opt_ctx *c, const nm_opt_node *n, int wedge, opt_poly *P) {
  int i;
  nm_ref_unsafe(c->m, n->poly, &P->t, &P->p);
  P->ref = n->poly;
  for (i = 0; i < P->p->vert_count; i++) {
    nm_opt_pt(P->v[i], &P->t->verts[P->p->verts[i] * 3]);
    if (wedge) {
      P->fr[i] = nm_opt_orient(n->root, n->right, P->v[i]);
      P->fl[i] = nm_opt_orient(n->root, n->left, P->v[i]);
    } else {
      P->fr[i] = P->fl[i] = 0;
    }
  }
}

/* 1 when polygon ref has no link but back to `from` (and holds no goal):
 * nothing to find there (cul-de-sac pruning). Links to polygons the filter
 * excludes count as ways on: cheaper, and only a little less pruning. */
static int dead_end(const nm_opt_ctx *c, nm_polyref ref, nm_polyref from) {
  const nm_tile *t;
  const nm_poly *p;
  uint32_t i;
  if (ref == c->goal_ref) return 0;
  nm_ref_unsafe(c->m, ref, &t, &p);
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next)
    if (t->links[i].ref != from) return 0;
  return 1;
}

/* ---- cones ---- */

static void cone_init(const nm_opt_ctx *c, const nm_opt_node *n, opt_cone *k) {
  memset(k, 0, sizeof *k);
  k->eps = c->eps;
  if (n->flags & NM_OPT_POINT) return;
  k->wedge = nm_opt_orient(n->root, n->left, n->right) < -c->eps * nm_opt_dist(n->left, n->right);
  if (!k->wedge) return; /* the root lies on the interval: it sees the whole polygon */
  k->dr = nm_opt_dist(n->root, n->right);
  k->dl = nm_opt_dist(n->root, n->left);
  k->tr = c->eps * k->dr;
  k->tl = c->eps * k->dl;
  if (n->rkey) k->rkey = nm_opt_root_key(c, n->rkey, &k->rcorner);
  if (n->lkey) k->lkey = nm_opt_root_key(c, n->lkey, &k->lcorner);
}

/* Side of pt relative to the cone: -1 clockwise of root->right, 1
 * counter-clockwise of root->left, 0 inside (or when all is seen). */
static int cone_side(const nm_opt_node *n, const opt_cone *k, const double *pt) {
  if (!k->wedge) return 0;
  if (nm_opt_orient(n->root, n->right, pt) < -k->tr) return -1;
  if (nm_opt_orient(n->root, n->left, pt) > k->tl) return 1;
  return 0;
}

/* Length of the shortest way from the root into the polygon to pt, through
 * the interval: straight, or turning at an interval end (*via: the root or
 * that end). 0 when that end is no corner and `force` is not set (other
 * nodes then reach pt straight). */
static int reach(const nm_opt_node *n, const opt_cone *k, const double *pt, int force, double *len,
                 const double **via) {
  const int side = cone_side(n, k, pt);
  if (side < 0) {
    if (!k->rcorner && !force) return 0;
    *len = k->dr + nm_opt_dist(n->right, pt);
    *via = n->right;
  } else if (side > 0) {
    if (!k->lcorner && !force) return 0;
    *len = k->dl + nm_opt_dist(n->left, pt);
    *via = n->left;
  } else {
    *len = nm_opt_dist(n->root, pt);
    *via = n->root;
  }
  return 1;
}

double nm_opt_heuristic(const nm_opt_node *n, const double *goal, double eps) {
  const double *r = n->root, *a = n->right, *b = n->left;
  const double d = nm_opt_dist(a, b);
  double sr, sg, g2[2];
  if (n->flags & NM_OPT_POINT) return nm_opt_dist(r, goal);
  if (d < eps) return nm_opt_dist(r, a) + nm_opt_dist(a, goal);
  sr = nm_opt_orient(a, b, r);
  if (fabs(sr) <= eps * d) return nm_opt_dist(r, goal); /* root on the interval */
  sg = nm_opt_orient(a, b, goal);
  g2[0] = goal[0];
  g2[1] = goal[1];
  if ((sr > 0) == (sg > 0) && fabs(sg) > 0) { /* same side as the root: mirror it */
    const double dx = b[0] - a[0], dy = b[1] - a[1];
    const double t = ((goal[0] - a[0]) * dx + (goal[1] - a[1]) * dy) / (d * d);
    g2[0] = 2 * (a[0] + t * dx) - goal[0];
    g2[1] = 2 * (a[1] + t * dy) - goal[1];
  }
  if (nm_opt_orient(r, a, g2) < 0) return nm_opt_dist(r, a) + nm_opt_dist(a, g2);
  if (nm_opt_orient(r, b, g2) > 0) return nm_opt_dist(r, b) + nm_opt_dist(b, g2);
  return nm_opt_dist(r, g2);
}

/* ---- successors ---- */

/* Keeps the part [*t0, *t1] of a portal where fa + (fb - fa) * t >= -tol
 * (fa, fb: a signed orientation at its ends). 0 when nothing is left. */
static int clip_vals(double fa, double fb, double tol, double *t0, double *t1) {
  double t;
  if (fa >= -tol && fb >= -tol) return *t0 <= *t1;
  if (fa < -tol && fb < -tol) return 0;
  t = fa / (fa - fb);
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  if (fa < -tol) {
    if (t > *t0) *t0 = t;
  } else if (t < *t1) {
    *t1 = t;
  }
  return *t0 <= *t1;
}

static void lerp2(double *d, const double *a, const double *b, double t) {
  if (t == 0) { d[0] = a[0]; d[1] = a[1]; return; }
  if (t == 1) { d[0] = b[0]; d[1] = b[1]; return; }
  d[0] = a[0] + (b[0] - a[0]) * t;
  d[1] = a[1] + (b[1] - a[1]) * t;
}

/* A root on the line of its interval (of length d) but outside it sees
 * nothing through it: the path runs along the line to the nearer end and
 * turns there, if that end is a corner (0: the successor is dropped). */
static int collinear_fix(const nm_opt_ctx *c, nm_opt_node *x, uint8_t *same, double d) {
  const double *end;
  double u;
  uint64_t desc;
  int corner;
  if (fabs(nm_opt_orient(x->right, x->left, x->root)) > c->eps * d) return 1;
  u = ((x->root[0] - x->right[0]) * (x->left[0] - x->right[0]) +
       (x->root[1] - x->right[1]) * (x->left[1] - x->right[1])) / d;
  if (u >= -c->eps && u <= d + c->eps) return 1; /* on the interval: sees all */
  if (u < 0) { end = x->right; desc = x->rkey; }
  else { end = x->left; desc = x->lkey; }
  x->rootkey = nm_opt_root_key(c, desc, &corner);
  if (!corner) return 0; /* inside the walkable area: other nodes see past it */
  x->g += nm_opt_dist(x->root, end);
  x->root[0] = end[0];
  x->root[1] = end[1];
  *same = 0;
  return 1;
}

/* Makes the successor through the part [t0, t1] of portal s, rooted at root
 * (g: path length to it). Returns 1 when it is kept. */
static int add_succ(nm_opt_ctx *c, const nm_opt_node *n, opt_seg *s, double t0, double t1,
                    const double *root, uint64_t rootkey, double g, int same_root, nm_opt_node *x,
                    uint8_t *same) {
  double len;
  if (t1 <= t0) return 0;
  if (s->usable < 0) {
    const nm_tile *nt;
    const nm_poly *np;
    nm_ref_unsafe(c->m, s->nei, &nt, &np);
    s->usable = nm_filter_pass(c->f, np);
  }
  if (!s->usable) return 0;
  if (s->len < 0) s->len = nm_opt_dist(s->a, s->b);
  len = s->len;
  if (t0 * len < c->eps) t0 = 0;
  if ((1 - t1) * len < c->eps) t1 = 1;
  if ((t1 - t0) * len < c->eps) return 0;
  lerp2(x->right, s->a, s->b, t0);
  lerp2(x->left, s->a, s->b, t1);
  x->rkey = t0 == 0 ? s->ka : 0;
  x->lkey = t1 == 1 ? s->kb : 0;
  x->root[0] = root[0];
  x->root[1] = root[1];
  x->g = g;
  x->rootkey = rootkey;
  x->poly = s->nei;
  x->from = n->poly;
  x->flags = 0;
  *same = (uint8_t)same_root;
  if (nm_opt_orient(root, x->left, x->right) > c->eps * (t1 - t0) * len) return 0; /* seen from behind: rounding */
  if (!collinear_fix(c, x, same, (t1 - t0) * len)) return 0;
  if (dead_end(c, x->poly, x->from)) return 0;
  if (!*same && x->rootkey && !nm_opt_root_check(c, x->rootkey, x->g)) return 0;
  return 1;
}

/* Successors through portal s: observable, and behind corner ends. */
static int seg_succs(nm_opt_ctx *c, const nm_opt_node *n, const opt_cone *k, opt_seg *s,
                     nm_opt_node *out, uint8_t *same) {
  int m = 0;
  double t0 = 0, t1 = 1;
  if (!k->wedge) return add_succ(c, n, s, 0, 1, n->root, n->rootkey, n->g, 1, out, same);
  if (clip_vals(s->fra, s->frb, k->tr, &t0, &t1) && clip_vals(-s->fla, -s->flb, k->tl, &t0, &t1))
    m += add_succ(c, n, s, t0, t1, n->root, n->rootkey, n->g, 1, out + m, same + m);
  t0 = 0;
  t1 = 1;
  if (k->rcorner && clip_vals(-s->fra, -s->frb, k->tr, &t0, &t1))
    m += add_succ(c, n, s, t0, t1, n->right, k->rkey, n->g + k->dr, 0, out + m, same + m);
  t0 = 0;
  t1 = 1;
  if (k->lcorner && clip_vals(s->fla, s->flb, k->tl, &t0, &t1))
    m += add_succ(c, n, s, t0, t1, n->left, k->lkey, n->g + k->dl, 0, out + m, same + m);
  return m;
}

/* The goal node when the node leads into the goal's polygon. */
static int goal_succ(const nm_opt_ctx *c, const nm_opt_node *n, const opt_cone *k, nm_opt_node *o,
                     uint8_t *same) {
  const double *via = n->root;
  double len = 0;
  memset(o, 0, sizeof *o);
  reach(n, k, c->goal, 1, &len, &via);
  o->g = n->g + len;
  o->root[0] = via[0]; /* where the path turns last */
  o->root[1] = via[1];
  o->poly = o->from = n->poly;
  o->flags = NM_OPT_FINAL;
  *same = 0;
  return 1;
}

/* Off-mesh connection `oref` entered from polygon n->poly: the link ends
 * (entry vertex *ke, exit vertex *kx) and the polygon it lands on. */
static nm_polyref offmesh_ends(const nm_opt_ctx *c, nm_polyref oref, nm_polyref from,
                               const nm_tile **ot, const nm_poly **op, int *ke, int *kx) {
  const nm_tile *lt;
  const nm_poly *lp;
  uint32_t i;
  nm_polyref land = 0;
  nm_ref_unsafe(c->m, oref, ot, op);
  if (nm_poly_type(*op) != NM_POLYTYPE_OFFMESH || !nm_filter_pass(c->f, *op)) return 0;
  *ke = -1;
  for (i = (*op)->first_link; i != NM_NULL_LINK; i = (*ot)->links[i].next)
    if ((*ot)->links[i].ref == from && (*ot)->links[i].edge < 2) *ke = (*ot)->links[i].edge;
  if (*ke < 0) return 0;
  *kx = 1 - *ke;
  for (i = (*op)->first_link; i != NM_NULL_LINK; i = (*ot)->links[i].next)
    if ((*ot)->links[i].edge == *kx) land = (*ot)->links[i].ref;
  if (!land) return 0;
  nm_ref_unsafe(c->m, land, &lt, &lp);
  return nm_filter_pass(c->f, lp) ? land : 0;
}

/* Successors through the off-mesh connections of n->poly: a node at the far
 * end of each reachable connection, whose root sees all of its landing
 * polygon. A connection costs its straight 3-D length. */
static int offmesh_succs(nm_opt_ctx *c, const nm_opt_node *n, const opt_cone *k, const nm_tile *t,
                         const nm_poly *p, nm_opt_node *out, uint8_t *same, int cap) {
  uint32_t i;
  int m = 0;
  for (i = p->first_link; i != NM_NULL_LINK && m < cap; i = t->links[i].next) {
    const nm_link *l = &t->links[i];
    const nm_tile *ot;
    const nm_poly *op;
    nm_polyref land;
    int ke, kx;
    double s2[2], len;
    const double *via;
    nm_opt_node *x = &out[m];
    if (l->edge < p->vert_count || ((n->flags & NM_OPT_OFFMESH) && l->ref == n->from)) continue;
    if (!(land = offmesh_ends(c, l->ref, n->poly, &ot, &op, &ke, &kx))) continue;
    nm_opt_pt(s2, &ot->verts[op->verts[ke] * 3]);
    if (!reach(n, k, s2, 0, &len, &via)) continue;
    memset(x, 0, sizeof *x);
    same[m] = 0;
    nm_opt_pt(x->root, &ot->verts[op->verts[kx] * 3]);
    x->g = n->g + len + nm_vdist(&ot->verts[op->verts[ke] * 3], &ot->verts[op->verts[kx] * 3]);
    memcpy(x->left, x->root, sizeof x->left);
    memcpy(x->right, x->root, sizeof x->right);
    x->rootkey = NM_OPT_OFFM | ((uint64_t)kx << 32) | l->ref;
    x->poly = land;
    x->from = l->ref;
    x->flags = NM_OPT_POINT | NM_OPT_OFFMESH;
    if (nm_opt_root_check(c, x->rootkey, x->g)) m++;
  }
  return m;
}

/* Name of "the root of n sees all of n->poly, entered from n->from": such
 * expansions repeat around a vertex the root sits on; the second is dropped.
 * (Top bits 00, apart from the root keys.) */
static uint64_t view_key(const nm_opt_node *n) {
  uint64_t h = 0x84222325cbf29ce4ull, v[3];
  int i;
  memcpy(&v[0], &n->root[0], sizeof v[0]);
  memcpy(&v[1], &n->root[1], sizeof v[1]);
  v[2] = ((uint64_t)n->poly << 32) | n->from;
  for (i = 0; i < 3; i++) {
    h ^= v[i];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return (h & ~(3ull << 62)) | 1;
}

int nm_opt_successors(nm_opt_ctx *c, const nm_opt_node *n, nm_opt_node *out, uint8_t *same) {
  const nm_tile *t;
  const nm_poly *p;
  opt_poly P;
  opt_cone k;
  uint32_t i;
  int count = 0, offmesh = 0;
  cone_init(c, n, &k);
  if (n->poly == c->goal_ref) return goal_succ(c, n, &k, out, same);
  if (!k.wedge && !(n->flags & NM_OPT_POINT) && !nm_opt_seen(c, view_key(n), n->g)) return 0;
  poly_view(c, n, k.wedge, &P);
  t = P.t;
  p = P.p;
  for (i = p->first_link; i != NM_NULL_LINK && count + 3 <= NM_OPT_MAX_SUCC; i = t->links[i].next) {
    const nm_link *l = &t->links[i];
    opt_seg s;
    if (l->edge >= p->vert_count) { /* an off-mesh connection, not an edge */
      offmesh = 1;
      continue;
    }
    if (l->ref == n->from && !(n->flags & NM_OPT_POINT)) continue; /* the way in */
    link_segment(&P, l, &s);
    count += seg_succs(c, n, &k, &s, out + count, same + count);
  }
  if (offmesh) count += offmesh_succs(c, n, &k, t, p, out + count, same + count, NM_OPT_MAX_SUCC - count);
  return count;
}
