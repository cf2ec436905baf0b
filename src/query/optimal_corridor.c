/* optimal_corridor.c -- the corridor of an optimal search's path: the mesh
 * polygons it crosses, start first.
 *
 * The search's nodes name search polygons: merged groups of mesh polygons
 * (optimal_groups.c). Within a group the path
 * runs straight from where it enters to where it leaves, so the mesh
 * polygons it crosses there are found by a breadth-first walk, from the
 * polygon it enters to the one it leaves, going from polygon to polygon
 * where the straight piece crosses. Where the path enters and leaves follows from
 * its turns: walking back from the goal, the path through a node's interval
 * runs from the node's root to the next point where it turns. */
#include "nm_optimal.h"

#define NM_OPT_GROUP_MAX 64 /* polygons of a group a walk handles (groups hold at most 32) */

/* Where the path from r towards p crosses the interval of node n (a point
 * of it): the root itself for a node without an interval. */
static void cross_point(const nm_opt_ctx *c, const nm_opt_node *n, const double *r, const double *p,
                        double *out) {
  const double *a = n->right, *b = n->left;
  const double ux = b[0] - a[0], uy = b[1] - a[1], uu = ux * ux + uy * uy;
  const double d = nm_opt_orient(a, b, r), e = nm_opt_orient(a, b, p);
  double x[2], t;
  if ((n->flags & NM_OPT_POINT) || uu <= c->eps2) {
    out[0] = n->root[0];
    out[1] = n->root[1];
    return;
  }
  if (d * d <= c->eps2 * uu || (d > 0) == (e > 0) || d == e) { /* r on the line: the path leaves from r */
    x[0] = r[0];
    x[1] = r[1];
  } else {
    const double s = d / (d - e);
    x[0] = r[0] + (p[0] - r[0]) * s;
    x[1] = r[1] + (p[1] - r[1]) * s;
  }
  t = ((x[0] - a[0]) * ux + (x[1] - a[1]) * uy) / uu;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  out[0] = a[0] + ux * t;
  out[1] = a[1] + uy * t;
}

/* The path's chain of nodes, start first, into hops (room for every
 * node); with each node the point where the path crosses its interval.
 * Returns their number; the goal node itself is left out (it lies in its
 * parent's polygon). */
static uint32_t chain_hops(nm_opt_ctx *c, uint32_t idx, nm_opt_hop *hops) {
  nm_opt *s = c->s;
  const nm_opt_node *x;
  double tgt[2];
  uint32_t len = 0, i, k;
  if (s->nodes[idx].flags & NM_OPT_FINAL) { /* to the goal, turning last at the goal node's root */
    const nm_opt_node *par = &s->nodes[s->nodes[idx].parent - 1], *f = &s->nodes[idx];
    const double *turn = (f->root[0] != par->root[0] || f->root[1] != par->root[1]) ? f->root : c->goal;
    tgt[0] = turn[0], tgt[1] = turn[1];
    idx = s->nodes[idx].parent - 1;
  } else { /* partial: towards the point of the interval nearest the goal */
    cross_point(c, &s->nodes[idx], c->goal, c->goal, tgt);
  }
  for (i = idx;; i = s->nodes[i].parent - 1) {
    len++;
    if (!s->nodes[i].parent) break;
  }
  for (i = idx, k = len; k-- > 0; i = x->parent - 1) {
    x = &s->nodes[i];
    hops[k].idx = i;
    cross_point(c, x, x->root, tgt, hops[k].at);
    if (x->parent) {
      const nm_opt_node *par = &s->nodes[x->parent - 1];
      const double *turn = (x->flags & NM_OPT_VIAR) ? par->right : (x->flags & NM_OPT_VIAL) ? par->left : x->root;
      if (turn[0] != par->root[0] || turn[1] != par->root[1]) tgt[0] = turn[0], tgt[1] = turn[1];
    }
  }
  return len;
}

/* The corridor being written: polygons [cap], len so far (those past cap
 * are counted, not written). */
typedef struct cor_out {
  nm_polyref *p;
  uint32_t cap, len;
} cor_out;

/* Writes polygon ref at place i of the corridor, if there is room. */
static void cor_put(cor_out *o, uint32_t i, nm_polyref ref) {
  if (i < o->cap) o->p[i] = ref;
}

/* 1 when segments p-q and a-b meet, within tol (X/Z). */
static int seg_meet(const double *p, const double *q, const double *a, const double *b, double tol) {
  const double lpq = nm_opt_dist(p, q), lab = nm_opt_dist(a, b);
  const double d1 = nm_opt_orient(p, q, a), d2 = nm_opt_orient(p, q, b);
  const double d3 = nm_opt_orient(a, b, p), d4 = nm_opt_orient(a, b, q);
  double lo = d1 < d2 ? d1 : d2, hi = d1 < d2 ? d2 : d1;
  if (lpq <= tol) { /* a point: near the segment a-b? */
    const double t = lab > 0 ? ((p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])) / (lab * lab) : 0;
    return t >= -tol / (lab + tol) && t <= 1 + tol / (lab + tol) && fabs(d3) <= tol * lab;
  }
  if (lo > tol * lpq || hi < -tol * lpq) return 0;
  lo = d3 < d4 ? d3 : d4;
  hi = d3 < d4 ? d4 : d3;
  return lo <= tol * lab && hi >= -tol * lab;
}

/* Appends the polygons of search polygon g from mesh polygon `in` to `out`,
 * crossing from one to the next where the segment p-q does (any way when p
 * is NULL, or when no such way is found). */
static void group_walk(nm_opt_ctx *c, nm_polyref g, nm_polyref in, nm_polyref out, const double *p,
                       const double *q, cor_out *o) {
  nm_polyref node[NM_OPT_GROUP_MAX];
  int from[NM_OPT_GROUP_MAX], n = 1, head = 0, pass, found = -1, i;
  uint32_t d;
  if (in == out) {
    cor_put(o, o->len++, in);
    return;
  }
  for (pass = p ? 0 : 1; pass < 2 && found < 0; pass++) {
    node[0] = in;
    from[0] = -1;
    n = 1;
    for (head = 0; head < n && found < 0; head++) {
      const nm_tile *t;
      const nm_poly *pl;
      uint32_t l;
      nm_ref_unsafe(c->m, node[head], &t, &pl);
      for (l = pl->first_link; l != NM_NULL_LINK && found < 0; l = t->links[l].next) {
        const nm_polyref r = t->links[l].ref;
        double pa[2], pb[2];
        if (t->links[l].edge >= pl->vert_count || nm_opt_group(c, r) != g) continue;
        for (i = 0; i < n && node[i] != r; i++) {}
        if (i < n || n == NM_OPT_GROUP_MAX) continue;
        if (pass == 0) {
          nm_opt_link_ends(t, pl, &t->links[l], pa, pb);
          if (!seg_meet(p, q, pa, pb, 8 * c->eps)) continue;
        }
        node[n] = r;
        from[n] = head;
        if (r == out) found = n;
        n++;
      }
    }
  }
  if (found < 0) { /* (cannot happen: groups are connected) */
    cor_put(o, o->len++, in);
    cor_put(o, o->len++, out);
    return;
  }
  d = o->len;
  for (i = found; i >= 0; i = from[i]) d++;
  o->len = d;
  for (i = found; i >= 0; i = from[i]) cor_put(o, --d, node[i]);
}

/* The mesh polygon of search polygon g linked to off-mesh connection o. */
static nm_polyref offmesh_side(const nm_opt_ctx *c, nm_polyref o, nm_polyref g) {
  const nm_tile *t;
  const nm_poly *p;
  uint32_t l;
  nm_ref_unsafe(c->m, o, &t, &p);
  for (l = p->first_link; l != NM_NULL_LINK; l = t->links[l].next)
    if (nm_opt_group(c, t->links[l].ref) == g) return t->links[l].ref;
  return g;
}

uint32_t nm_opt_corridor(nm_opt_ctx *c, uint32_t idx, nm_polyref start_ref, nm_polyref *path, uint32_t cap) {
  nm_opt *s = c->s;
  nm_opt_hop *hops = (nm_opt_hop *)(void *)s->heap; /* the open list is done with: room for every node */
  const int final = (s->nodes[idx].flags & NM_OPT_FINAL) != 0;
  const uint32_t n = chain_hops(c, idx, hops);
  uint32_t k;
  cor_out o;
  o.p = path;
  o.cap = cap;
  o.len = 0;
  for (k = 0; k < n; k++) {
    const nm_opt_node *x = &s->nodes[hops[k].idx];
    const nm_opt_node *y = k + 1 < n ? &s->nodes[hops[k + 1].idx] : NULL;
    nm_polyref in, out;
    const double *q = NULL;
    if (k == 0) in = start_ref;
    else if (x->flags & NM_OPT_OFFMESH) in = offmesh_side(c, x->from, x->poly);
    else in = nm_opt_portal_mesh(c, x, 1);
    if (!y && final) out = c->goal_ref, q = c->goal;
    else if (!y) nm_opt_group_gap(c, x->poly, c->goal, &out); /* partial: the polygon nearest the goal */
    else if (y->flags & NM_OPT_OFFMESH) out = offmesh_side(c, y->from, x->poly);
    else out = nm_opt_portal_mesh(c, y, 0), q = hops[k + 1].at;
    group_walk(c, x->poly, in, out, q ? hops[k].at : NULL, q, &o);
    if (y && (y->flags & NM_OPT_OFFMESH)) cor_put(&o, o.len++, y->from);
  }
  return o.len;
}
