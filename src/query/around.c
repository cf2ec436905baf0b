/* around.c -- Dijkstra searches outward from a point: findPolysAroundCircle,
 * findPolysAroundShape and findDistanceToWall (Detour's algorithms).
 *
 * The search starts at a polygon and spreads through portals that touch the
 * search area (a circle, or a convex shape clipped against each portal with
 * the raycast's Cyrus-Beck test). Nodes sit at portal midpoints; a node's
 * total is the filter cost of the walk from the start point. Polygons come
 * out cheapest first, each with the polygon it was reached from.
 * findDistanceToWall runs the same kind of search with a circle that shrinks
 * to the nearest wall found so far; walls are edges (or, on tile borders,
 * parts of edges) with no passable neighbour. */
#include "nm_query.h"

/* The area a search spreads over: a circle, or a convex shape when shape is
 * set. */
typedef struct area {
  const float *center;
  float rad_sqr;
  const float *shape;
  int nshape;
  float winding;
} area;

/* Output lists of an area search (refs NULL: nothing is recorded). */
typedef struct outlist {
  nm_polyref *refs, *parents;
  float *costs;
  int cap, n;
} outlist;

/* Whether the portal va-vb touches the search area. */
static int portal_touches(const area *a, const float *va, const float *vb) {
  float tseg, tmin, tmax;
  int smin, smax;
  if (!a->shape) return nm_dist_pt_seg_sqr2d(a->center, va, vb, &tseg) <= a->rad_sqr;
  if (!nm_intersect_seg_poly2d(va, vb, a->shape, a->nshape, a->winding, &tmin, &tmax, &smin, &smax))
    return 0;
  return !(tmin > 1.0f || tmax < 0.0f);
}

/* Opens node nn from best at `total` unless it already has a cheaper one. */
static void relax(nm_query *q, nm_node *best, nm_node *nn, nm_polyref ref, float total) {
  if ((nn->flags & NM_NODE_OPEN) && total >= nn->total) return;
  nn->id = ref;
  nn->flags &= ~NM_NODE_CLOSED;
  nn->pidx = nm_node_idx(&q->pool, best);
  nn->total = total;
  if (nn->flags & NM_NODE_OPEN) {
    nm_heap_modify(&q->open, nn);
  } else {
    nn->flags |= NM_NODE_OPEN;
    nm_heap_push(&q->open, nn);
  }
}

/* Pops the cheapest open node and closes it; *parent_ref gets its parent. */
static nm_node *pop_closed(nm_query *q, nm_polyref *parent_ref) {
  nm_node *best = nm_heap_pop(&q->open), *parent;
  best->flags = (best->flags & ~NM_NODE_OPEN) | NM_NODE_CLOSED;
  parent = nm_node_at(&q->pool, best->pidx);
  *parent_ref = parent ? parent->id : 0;
  return best;
}

/* Starts a pool search at ref placed at pos. */
static void search_start(nm_query *q, nm_polyref ref, const float *pos) {
  nm_node *sn;
  nm_query_take_pool(q);
  sn = nm_nodepool_get(&q->pool, ref, 0);
  nm_vcopy(sn->pos, pos);
  sn->flags = NM_NODE_OPEN;
  nm_heap_push(&q->open, sn);
}

/* Relaxes the neighbours of best whose portals touch the area. */
static nm_status area_expand(nm_query *q, nm_node *best, nm_polyref parent_ref, const area *a,
                             const nm_filter *f) {
  const nm_navmesh *m = q->mesh;
  const nm_tile *bt, *nt;
  const nm_poly *bp, *np;
  nm_status st = NM_OK;
  uint32_t i;
  nm_ref_unsafe(m, best->id, &bt, &bp);
  for (i = bp->first_link; i != NM_NULL_LINK; i = bt->links[i].next) {
    const nm_polyref nref = bt->links[i].ref;
    float va[3], vb[3];
    nm_node *nn;
    if (!nref || nref == parent_ref) continue;
    nm_ref_unsafe(m, nref, &nt, &np);
    if (!nm_filter_pass(f, np)) continue;
    if (!nm_portal_points(m, best->id, bt, bp, nref, nt, np, va, vb)) continue;
    if (!portal_touches(a, va, vb)) continue;
    if (!(nn = nm_nodepool_get(&q->pool, nref, 0))) { st |= NM_OUT_OF_NODES; continue; }
    if (nn->flags & NM_NODE_CLOSED) continue;
    if (nn->flags == 0) nm_vlerp(nn->pos, va, vb, 0.5f);
    relax(q, best, nn, nref, best->total + nm_filter_cost(f, best->pos, nn->pos, bp, np));
  }
  return st;
}

/* Runs an area search to the end, recording polygons in out (when given). */
static nm_status area_search(nm_query *q, nm_polyref start_ref, const float *start_pos,
                             const area *a, const nm_filter *f, outlist *out) {
  nm_status st = NM_OK;
  search_start(q, start_ref, start_pos);
  while (q->open.size) {
    nm_polyref parent_ref;
    nm_node *best = pop_closed(q, &parent_ref);
    if (out && out->n < out->cap) {
      out->refs[out->n] = best->id;
      if (out->parents) out->parents[out->n] = parent_ref;
      if (out->costs) out->costs[out->n] = best->total;
      out->n++;
    } else if (out) {
      st |= NM_TRUNCATED;
    }
    st |= area_expand(q, best, parent_ref, a, f);
  }
  return st;
}

/* Checks what every area search needs. */
static int area_args(nm_query *q, nm_polyref ref, const nm_filter *f, nm_polyref *refs, int cap,
                     int *count) {
  const nm_tile *t;
  const nm_poly *p;
  if (count) *count = 0;
  return count && f && refs && cap > 0 && nm_ref_get(q->mesh, ref, &t, &p);
}

nm_status nm_query_polys_around_circle(nm_query *q, nm_polyref start_ref, const float center[3],
                                       float radius, const nm_filter *filter, nm_polyref *refs,
                                       nm_polyref *parents, float *costs, int cap, int *count) {
  area a;
  outlist out;
  nm_status st;
  if (!area_args(q, start_ref, filter, refs, cap, count) || !center || !nm_isfinite3(center) ||
      !(radius >= 0) || !isfinite(radius))
    return NM_ERR_PARAM;
  a.center = center;
  a.rad_sqr = nm_sqr(radius);
  a.shape = NULL;
  out.refs = refs;
  out.parents = parents;
  out.costs = costs;
  out.cap = cap;
  out.n = 0;
  st = area_search(q, start_ref, center, &a, filter, &out);
  *count = out.n;
  return st;
}

/* Centroid of a shape and its winding relative to navmesh polygons (-1 when
 * opposite); 0 when a coordinate is not finite. */
static int shape_setup(const float *v, int n, float *c, float *winding) {
  float sum = 0;
  int i;
  nm_vset(c, 0, 0, 0);
  for (i = 0; i < n; i++) {
    if (!nm_isfinite3(&v[i * 3])) return 0;
    nm_vadd(c, c, &v[i * 3]);
  }
  for (i = 0; i < 3; i++) c[i] *= 1.0f / (float)n;
  for (i = 2; i < n; i++) sum += nm_tri_area2d(v, &v[(i - 1) * 3], &v[i * 3]);
  *winding = sum < 0 ? -1.0f : 1.0f;
  return nm_isfinite3(c);
}

nm_status nm_query_polys_around_shape(nm_query *q, nm_polyref start_ref, const float *verts,
                                      int nverts, const nm_filter *filter, nm_polyref *refs,
                                      nm_polyref *parents, float *costs, int cap, int *count) {
  area a;
  outlist out;
  float c[3];
  nm_status st;
  if (!area_args(q, start_ref, filter, refs, cap, count) || !verts || nverts < 3 ||
      !shape_setup(verts, nverts, c, &a.winding))
    return NM_ERR_PARAM;
  a.center = c;
  a.rad_sqr = 0;
  a.shape = verts;
  a.nshape = nverts;
  out.refs = refs;
  out.parents = parents;
  out.costs = costs;
  out.cap = cap;
  out.n = 0;
  st = area_search(q, start_ref, c, &a, filter, &out);
  *count = out.n;
  return st;
}

/* Runs the area search for findRandomPointAroundCircle (random.c): every
 * polygon reached ends up in the node pool. */
nm_status nm_around_circle_nodes(nm_query *q, nm_polyref start_ref, const float *center,
                                 float radius, const nm_filter *f) {
  area a;
  a.center = center;
  a.rad_sqr = nm_sqr(radius);
  a.shape = NULL;
  return area_search(q, start_ref, center, &a, f, NULL);
}

/* ---- findDistanceToWall ---- */

/* Nearest wall state: the shrinking radius and the point found. */
typedef struct wall {
  const float *center;
  float rad_sqr, hit[3];
  int found;
} wall;

/* Measures wall segment a-b against w (the last of equally near walls wins,
 * as in Detour). */
static void wall_hit(wall *w, const float *a, const float *b) {
  float tseg;
  const float d = nm_dist_pt_seg_sqr2d(w->center, a, b, &tseg);
  if (d > w->rad_sqr) return;
  w->rad_sqr = d;
  w->found = 1;
  w->hit[0] = a[0] + (b[0] - a[0]) * tseg;
  w->hit[1] = a[1] + (b[1] - a[1]) * tseg;
  w->hit[2] = a[2] + (b[2] - a[2]) * tseg;
}

/* Whether edge j (a tile-border edge) has a link to a passable polygon. */
static int border_has_portal(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, int j,
                             const nm_filter *f) {
  uint32_t k;
  for (k = p->first_link; k != NM_NULL_LINK; k = t->links[k].next) {
    const nm_link *l = &t->links[k];
    const nm_tile *nt;
    const nm_poly *np;
    if (l->edge != j || !l->ref) continue;
    nm_ref_unsafe(m, l->ref, &nt, &np);
    if (nm_filter_pass(f, np)) return 1;
  }
  return 0;
}

/* Measures the walls of polygon (t, p) against w, edges in Detour's order.
 * A tile-border edge only partly covered by links has its uncovered parts
 * measured (Detour would count the whole edge as open or as wall). */
static void wall_edges(const nm_navmesh *m, const nm_tile *t, const nm_poly *p,
                       const nm_filter *f, wall *w) {
  float segs[6 * NM_EDGE_SEGS_MAX];
  const int nv = p->vert_count;
  int i, j, k, n;
  for (i = 0, j = nv - 1; i < nv; j = i++) {
    const float *vj = &t->verts[p->verts[j] * 3], *vi = &t->verts[p->verts[i] * 3];
    if (!(p->neis[j] & NM_EXT_LINK)) { /* inside the tile: a neighbour or a wall */
      if (!p->neis[j] || !nm_filter_pass(f, &t->polys[p->neis[j] - 1])) wall_hit(w, vj, vi);
    } else if (!border_has_portal(m, t, p, j, f)) {
      wall_hit(w, vj, vi);
    } else {
      n = nm_edge_wall_parts(m, t, p, j, f, segs, NULL);
      for (k = 0; k < n; k++) wall_hit(w, &segs[k * 6], &segs[k * 6 + 3]);
    }
  }
}

/* Relaxes the neighbours of best whose edges are within the wall radius. */
static nm_status wall_expand(nm_query *q, nm_node *best, nm_polyref parent_ref, const wall *w,
                             const nm_filter *f) {
  const nm_navmesh *m = q->mesh;
  const nm_tile *bt, *nt;
  const nm_poly *bp, *np;
  nm_status st = NM_OK;
  uint32_t i;
  nm_ref_unsafe(m, best->id, &bt, &bp);
  for (i = bp->first_link; i != NM_NULL_LINK; i = bt->links[i].next) {
    const nm_link *l = &bt->links[i];
    const float *va, *vb;
    nm_node *nn;
    float tseg;
    if (!l->ref || l->ref == parent_ref) continue;
    nm_ref_unsafe(m, l->ref, &nt, &np);
    if (nm_poly_type(np) == NM_POLYTYPE_OFFMESH) continue; /* (its link has edge 0xff: no edge) */
    va = &bt->verts[bp->verts[l->edge] * 3];
    vb = &bt->verts[bp->verts[(l->edge + 1) % bp->vert_count] * 3];
    if (nm_dist_pt_seg_sqr2d(w->center, va, vb, &tseg) > w->rad_sqr) continue;
    if (!nm_filter_pass(f, np)) continue;
    if (!(nn = nm_nodepool_get(&q->pool, l->ref, 0))) { st |= NM_OUT_OF_NODES; continue; }
    if (nn->flags & NM_NODE_CLOSED) continue;
    if (nn->flags == 0) nm_edge_mid(m, best->id, bt, bp, l->ref, nt, np, nn->pos);
    relax(q, best, nn, l->ref, best->total + nm_vdist(best->pos, nn->pos));
  }
  return st;
}

/* The X/Z distance and the unit normal (hit to center, as the float path
 * makes them) in double precision, for a center so far away (near FLT_MAX)
 * that the float squares overflow. */
static void wall_far(const float *center, const float *hit, float *dist, float *normal) {
  const double dx = (double)center[0] - hit[0], dy = (double)center[1] - hit[1];
  const double dz = (double)center[2] - hit[2], d = sqrt(dx * dx + dz * dz);
  const double len = sqrt(dx * dx + dy * dy + dz * dz);
  *dist = d < FLT_MAX ? (float)d : FLT_MAX;
  normal[0] = len > 0 ? (float)(dx / len) : 0.0f;
  normal[1] = len > 0 ? (float)(dy / len) : 0.0f;
  normal[2] = len > 0 ? (float)(dz / len) : 0.0f;
}

nm_status nm_query_distance_to_wall(nm_query *q, nm_polyref ref, const float center[3],
                                    float max_radius, const nm_filter *filter, float *dist,
                                    float hit[3], float normal[3], int *found) {
  const nm_tile *t;
  const nm_poly *p;
  nm_status st = NM_OK;
  wall w;
  if (!dist || !hit || !normal || !found || !center || !filter || !nm_isfinite3(center) ||
      !(max_radius >= 0) || !isfinite(max_radius) || !nm_ref_get(q->mesh, ref, &t, &p))
    return NM_ERR_PARAM;
  w.center = center;
  w.rad_sqr = nm_sqr(max_radius);
  w.found = 0;
  nm_vcopy(w.hit, center);
  search_start(q, ref, center);
  while (q->open.size) {
    nm_polyref parent_ref;
    nm_node *best = pop_closed(q, &parent_ref);
    nm_ref_unsafe(q->mesh, best->id, &t, &p);
    wall_edges(q->mesh, t, p, filter, &w);
    st |= wall_expand(q, best, parent_ref, &w, filter);
  }
  nm_vcopy(hit, w.hit);
  nm_vsub(normal, center, w.hit);
  nm_vnormalize(normal);
  *dist = w.found ? sqrtf(w.rad_sqr) : max_radius;
  if (w.found && !isfinite(*dist)) wall_far(center, w.hit, dist, normal);
  *found = w.found;
  return st;
}
