/* optimal_expand.c -- successors of a node of the optimal path search
 * (Polyanya, see optimal.c): projecting the cone root-left-right onto the
 * portals of the polygon the node leads into.
 *
 * The portals come from the polygon's records (optimal_mesh.c): a whole
 * edge for a neighbour in the same tile, the linked part of the edge at tile
 * borders, nothing where the neighbour is missing or excluded by the filter
 * (a wall); portals into cul-de-sacs and into dead-end parts of the mesh
 * that do not hold the goal are passed by. For each portal the part inside
 * the cone becomes an observable
 * successor (same root); if the right end of the interval is a corner of
 * the walkable area, the part of the portal clockwise of the ray
 * root->right becomes a successor rooted at that corner (likewise on the
 * left). Nodes carry the root keys of their interval ends (0 where an end
 * is no corner), looked up when they are made, so an expansion needs no
 * lookup to know its corners. Tolerances compare squared lengths, so a
 * successor costs no square root until its heuristic. */
#include "nm_optimal.h"

/* The polygon being expanded, seen from the root of node n. */
typedef struct opt_exp {
  nm_opt_ctx *c;
  const nm_opt_node *n;
  int wedge;              /* 1: only the wedge root-left-right; 0: all of the polygon */
  uint64_t rkey, lkey;    /* root keys of the interval ends (0: no corner) */
  double dr, dl;          /* distances from the root to them */
  double tr, tl;          /* eps * dr, eps * dl: tolerances of orientation tests */
  double rx, ry, lx, ly;  /* the rays root->right, root->left */
  uint32_t parent;        /* index + 1 of n */
  uint32_t pflag;         /* the portal record's number among its polygon's, << NM_OPT_PSHIFT */
  nm_opt_node *out;       /* successors so far: out[0 .. count) */
  uint8_t *same;
  int count;
} opt_exp;

/* ---- the view from the root ---- */

/* What the root of node n sees of its polygon. */
static void exp_init(nm_opt_ctx *c, const nm_opt_node *n, opt_exp *X) {
  X->c = c;
  X->n = n;
  X->wedge = 0;
  X->count = 0;
  X->rkey = n->rkey;
  X->lkey = n->lkey;
  if (!(n->flags & NM_OPT_POINT)) {
    const double dx = n->left[0] - n->right[0], dy = n->left[1] - n->right[1];
    const double o = nm_opt_orient(n->root, n->left, n->right);
    X->wedge = o < 0 && o * o > c->eps2 * (dx * dx + dy * dy);
  }
  if (!X->wedge) return; /* the root lies on the interval: it sees the whole polygon */
  X->rx = n->right[0] - n->root[0];
  X->ry = n->right[1] - n->root[1];
  X->lx = n->left[0] - n->root[0];
  X->ly = n->left[1] - n->root[1];
  X->dr = sqrt(X->rx * X->rx + X->ry * X->ry);
  X->dl = sqrt(X->lx * X->lx + X->ly * X->ly);
  X->tr = c->eps * X->dr;
  X->tl = c->eps * X->dl;
}

/* Side of pt relative to the cone: -1 clockwise of root->right, 1
 * counter-clockwise of root->left, 0 inside (or when all is seen). */
static int cone_side(const opt_exp *X, const double *pt) {
  if (!X->wedge) return 0;
  if (nm_opt_orient(X->n->root, X->n->right, pt) < -X->tr) return -1;
  if (nm_opt_orient(X->n->root, X->n->left, pt) > X->tl) return 1;
  return 0;
}

/* Length of the shortest way from the root into the polygon to pt, through
 * the interval: straight, or turning at an interval end (*via: the root or
 * that end). 0 when that end is no corner and `force` is not set (other
 * nodes then reach pt straight). */
static int reach(const opt_exp *X, const double *pt, int force, double *len, const double **via) {
  const nm_opt_node *n = X->n;
  const int side = cone_side(X, pt);
  if (side < 0) {
    if (!X->rkey && !force) return 0;
    *len = X->dr + nm_opt_dist(n->right, pt);
    *via = n->right;
  } else if (side > 0) {
    if (!X->lkey && !force) return 0;
    *len = X->dl + nm_opt_dist(n->left, pt);
    *via = n->left;
  } else {
    *len = nm_opt_dist(n->root, pt);
    *via = n->root;
  }
  return 1;
}

/* ---- successors ---- */

/* Keeps the part [*t0, *t1] of a portal where fa + (fb - fa) * t >= -tol
 * (fa, fb: a signed orientation at its ends). 0 when nothing is left. */
static inline int clip_vals(double fa, double fb, double tol, double *t0, double *t1) {
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

/* A root on the line of its interval (of squared length d2) but outside it
 * sees nothing through it: the path runs along the line to the nearer end
 * and turns there, if that end is a corner (0: the successor is dropped). */
static int collinear_fix(const nm_opt_ctx *c, nm_opt_node *x, uint8_t *same, double d2) {
  const double d = sqrt(d2);
  const double u = ((x->root[0] - x->right[0]) * (x->left[0] - x->right[0]) +
                    (x->root[1] - x->right[1]) * (x->left[1] - x->right[1])) / d;
  const double *end;
  uint64_t key;
  if (u >= -c->eps && u <= d + c->eps) return 1; /* on the interval: sees all */
  if (u < 0) { end = x->right; key = x->rkey; }
  else { end = x->left; key = x->lkey; }
  if (!key) return 0; /* no corner: inside the walkable area, other nodes see past it */
  x->rootkey = key;
  x->g += nm_opt_dist(x->root, end);
  x->root[0] = end[0];
  x->root[1] = end[1];
  *same = 0;
  return 1;
}

/* A portal as one expansion sees it: its direction u = b - a, squared
 * length, and cross(a - root, b - root) for the expanded node's root --
 * twice the signed area of root-a-b, from which the orientation of the
 * root against any part of the portal follows without new products. */
typedef struct opt_pgeo {
  double ux, uy, len2, oab;
} opt_pgeo;

/* The point at t on portal pr into pt: its end a (b = 0, t = 0) or b
 * (b = 1, t = 1) exactly, with that end's root key, else a point inside
 * it, which is no corner (key 0). */
static inline uint64_t interval_end(const nm_opt_ctx *c, nm_opt_portal *pr, const opt_pgeo *G, double t, int b,
                                    double *pt) {
  if (t == (double)b) {
    const double *e = b ? pr->b : pr->a;
    pt[0] = e[0];
    pt[1] = e[1];
    return nm_opt_end_key(c, pr, b);
  }
  pt[0] = pr->a[0] + G->ux * t;
  pt[1] = pr->a[1] + G->uy * t;
  return 0;
}

/* The part [*t0, *t1] of portal pr into node x's interval, snapped (in
 * place) to the portal's ends within eps; its squared length, or 0 when it
 * is shorter than eps. */
static double succ_interval(const nm_opt_ctx *c, nm_opt_portal *pr, const opt_pgeo *G, double *pt0,
                            double *pt1, nm_opt_node *x) {
  const double len2 = G->len2;
  double d2, t0 = *pt0, t1 = *pt1;
  if (t0 > 0 && t0 * t0 * len2 < c->eps2) *pt0 = t0 = 0;
  if (t1 < 1 && (1 - t1) * (1 - t1) * len2 < c->eps2) *pt1 = t1 = 1;
  d2 = (t1 - t0) * (t1 - t0) * len2;
  if (t1 <= t0 || d2 < c->eps2) return 0;
  x->rkey = interval_end(c, pr, G, t0, 0, x->right);
  x->lkey = interval_end(c, pr, G, t1, 1, x->left);
  return d2;
}

/* Makes the successor through the part [t0, t1] of portal pr: rooted at
 * the expanded node's root (kind 0), or at the right (1) or left (2) end
 * of its interval. */
static void add_succ(opt_exp *X, nm_opt_portal *pr, const opt_pgeo *G, double t0, double t1, int kind) {
  nm_opt_ctx *c = X->c;
  const nm_opt_node *n = X->n;
  nm_opt_node *x = &X->out[X->count];
  uint8_t *same = &X->same[X->count];
  const double d2 = succ_interval(c, pr, G, &t0, &t1, x);
  const double *r = kind == 0 ? n->root : (kind == 1 ? n->right : n->left);
  double o;
  if (d2 == 0) return;
  x->root[0] = r[0];
  x->root[1] = r[1];
  x->g = kind == 0 ? n->g : n->g + (kind == 1 ? X->dr : X->dl);
  x->rootkey = kind == 0 ? n->rootkey : (kind == 1 ? X->rkey : X->lkey);
  x->poly = pr->nei;
  x->from = n->poly;
  x->parent = X->parent;
  x->flags = X->pflag;
  *same = kind == 0;
  /* orient(root, left, right) = (t0 - t1) * cross(a - root, b - root) */
  if (kind == 0) {
    o = (t0 - t1) * G->oab;
  } else {
    const double ax = pr->a[0] - r[0], ay = pr->a[1] - r[1], bx = pr->b[0] - r[0], by = pr->b[1] - r[1];
    o = (t0 - t1) * (ax * by - ay * bx);
  }
  if (o * o <= c->eps2 * d2) { /* the root lies on the interval's line */
    if (!collinear_fix(c, x, same, d2)) return;
    if (x->root[0] != r[0] || x->root[1] != r[1]) /* the path turns at r, then at the new root */
      x->flags |= NM_OPT_MOVED | (kind == 1 ? NM_OPT_VIAR : 0) | (kind == 2 ? NM_OPT_VIAL : 0);
  } else if (o > 0) {
    return; /* seen from behind: rounding */
  }
  if (!*same && x->rootkey && !nm_opt_root_check(c, x->rootkey, x->g)) return;
  if (!nm_opt_dominance(c, pr, (uint32_t)(x - c->s->nodes), t0, t1)) return;
  X->count++;
}

/* Successors through portal pr: the part inside the cone, and the parts
 * behind interval ends that are corners (clipped by the orientations of
 * the portal's ends against the two rays). */
static void portal_succs(opt_exp *X, nm_opt_portal *pr) {
  const nm_opt_node *n = X->n;
  double ax, ay, bx, by, fra, frb, fla, flb, t0, t1;
  opt_pgeo G;
  if ((pr->flags & NM_PO_DEAD) && pr->nei != X->c->goal_grp) return; /* cul-de-sac */
  if (!nm_opt_goal_beyond(X->c, pr)) return; /* a dead-end part of the mesh */
  ax = pr->a[0] - n->root[0];
  ay = pr->a[1] - n->root[1];
  bx = pr->b[0] - n->root[0];
  by = pr->b[1] - n->root[1];
  G.ux = pr->b[0] - pr->a[0];
  G.uy = pr->b[1] - pr->a[1];
  G.len2 = G.ux * G.ux + G.uy * G.uy;
  G.oab = ax * by - ay * bx;
  if (!X->wedge) {
    add_succ(X, pr, &G, 0, 1, 0);
    return;
  }
  fra = X->rx * ay - X->ry * ax;
  frb = X->rx * by - X->ry * bx;
  fla = X->lx * ay - X->ly * ax;
  flb = X->lx * by - X->ly * bx;
  t0 = 0;
  t1 = 1;
  if (clip_vals(fra, frb, X->tr, &t0, &t1) && clip_vals(-fla, -flb, X->tl, &t0, &t1))
    add_succ(X, pr, &G, t0, t1, 0);
  t0 = 0;
  t1 = 1;
  if (X->rkey && clip_vals(-fra, -frb, X->tr, &t0, &t1)) add_succ(X, pr, &G, t0, t1, 1);
  t0 = 0;
  t1 = 1;
  if (X->lkey && clip_vals(fla, flb, X->tl, &t0, &t1)) add_succ(X, pr, &G, t0, t1, 2);
}

/* The goal node when the node leads into the goal's polygon. */
static int goal_succ(const opt_exp *X, nm_opt_node *o, uint8_t *same) {
  const nm_opt_node *n = X->n;
  const double *via = n->root;
  double len = 0;
  memset(o, 0, sizeof *o);
  reach(X, X->c->goal, 1, &len, &via);
  o->g = n->g + len;
  o->root[0] = via[0]; /* where the path turns last */
  o->root[1] = via[1];
  o->poly = o->from = n->poly;
  o->parent = X->parent;
  o->flags = NM_OPT_FINAL;
  *same = 0;
  return 1;
}

/* Off-mesh connection `oref` entered from polygon `from`: the link ends
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

/* Successors through the off-mesh connections of the polygon: a node at the
 * far end of each reachable connection, whose root sees all of its landing
 * polygon. A connection costs its straight 3-D length. */
static void offmesh_succs(opt_exp *X) {
  const nm_opt_node *n = X->n;
  const nm_tile *t;
  const nm_poly *p;
  uint32_t i;
  nm_ref_unsafe(X->c->m, n->poly, &t, &p);
  for (i = p->first_link; i != NM_NULL_LINK && X->count < NM_OPT_MAX_SUCC; i = t->links[i].next) {
    const nm_link *l = &t->links[i];
    const nm_tile *ot;
    const nm_poly *op;
    nm_polyref land;
    int ke, kx;
    double s2[2], len;
    const double *via;
    nm_opt_node *x = &X->out[X->count];
    if (l->edge < p->vert_count || ((n->flags & NM_OPT_OFFMESH) && l->ref == n->from)) continue;
    if (!(land = offmesh_ends(X->c, l->ref, n->poly, &ot, &op, &ke, &kx))) continue;
    nm_opt_pt(s2, &ot->verts[op->verts[ke] * 3]);
    if (!reach(X, s2, 0, &len, &via)) continue;
    memset(x, 0, sizeof *x);
    X->same[X->count] = 0;
    nm_opt_pt(x->root, &ot->verts[op->verts[kx] * 3]);
    x->g = n->g + len + nm_vdist(&ot->verts[op->verts[ke] * 3], &ot->verts[op->verts[kx] * 3]);
    memcpy(x->left, x->root, sizeof x->left);
    memcpy(x->right, x->root, sizeof x->right);
    x->rootkey = NM_OPT_OFFM | ((uint64_t)kx << 32) | l->ref;
    x->poly = nm_opt_group(X->c, land);
    x->from = l->ref;
    x->parent = X->parent;
    x->flags = NM_OPT_POINT | NM_OPT_OFFMESH;
    if (nm_opt_root_check(X->c, x->rootkey, x->g)) X->count++;
  }
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

int nm_opt_successors(nm_opt_ctx *c, const nm_opt_node *n, uint32_t parent, nm_opt_node *out,
                      uint8_t *same) {
  const nm_opt_pinfo *pi;
  nm_opt_portal *pr;
  nm_polyref back;
  opt_exp X;
  int i;
  exp_init(c, n, &X);
  X.parent = parent;
  if (n->poly == c->goal_grp) return goal_succ(&X, out, same);
  if (!X.wedge && !(n->flags & NM_OPT_POINT) && !nm_opt_seen(c, view_key(n), n->g)) return 0;
  X.out = out;
  X.same = same;
  back = (n->flags & NM_OPT_POINT) ? 0 : n->from; /* the way in (none from a root inside) */
  pr = nm_opt_portals(c, n->poly, &pi);
  for (i = 0; i < pi->count && X.count + 3 <= NM_OPT_MAX_SUCC; i++, pr++)
    if (pr->nei != back) {
      X.pflag = (uint32_t)i << NM_OPT_PSHIFT;
      portal_succs(&X, pr);
    }
  if (pi->offmesh) offmesh_succs(&X);
  return X.count;
}
