/* path.c -- findPath: A* over polygons.
 *
 * Search nodes are polygons (one per tile side of entry, see nm_query.h),
 * placed at the midpoint of the portal they were entered through; the cost of
 * a step is the distance between those points times the area cost of the
 * polygon walked on, and the last step adds the distance to the goal. The
 * heuristic is the straight distance to the goal scaled by the filter's
 * heuristic_scale (0.999 as Detour). Entering a polygon of another area adds
 * the filter's area-change cost (Unreal's addition). When the goal cannot be
 * reached the path leads to the node with the smallest heuristic, i.e. the
 * polygon closest to the goal (a "partial" path).
 * The search is sliced (begin / step / end, as Detour's sliced findPath);
 * findPath runs it to the end in one go, so both give the same corridor.
 * The loop mirrors Detour's findPath so the corridors agree with it. */
#include <limits.h>
#include "nm_query.h"

/* Portal of a link between two ground polygons: the edge of fp it sits on,
 * or the linked part of it on a tile border. */
static inline void link_portal(const nm_tile *ft, const nm_poly *fp, const nm_link *l, float *left,
                               float *right) {
  const float *a = &ft->verts[fp->verts[l->edge] * 3];
  const float *b = &ft->verts[fp->verts[(l->edge + 1) % fp->vert_count] * 3];
  if (l->side != 0xff && (l->bmin != 0 || l->bmax != 255)) { /* part of a border edge */
    const float s = 1.0f / 255.0f;
    nm_vlerp(left, a, b, l->bmin * s);
    nm_vlerp(right, a, b, l->bmax * s);
  } else {
    nm_vcopy(left, a);
    nm_vcopy(right, b);
  }
}

int nm_portal_points(const nm_navmesh *m, nm_polyref from, const nm_tile *ft, const nm_poly *fp,
                     nm_polyref to, const nm_tile *tt, const nm_poly *tp, float *left, float *right) {
  const nm_link *link = NULL;
  uint32_t i;
  (void)m;
  for (i = fp->first_link; i != NM_NULL_LINK; i = ft->links[i].next)
    if (ft->links[i].ref == to) { link = &ft->links[i]; break; }
  if (!link) return 0;
  if (nm_poly_type(fp) == NM_POLYTYPE_OFFMESH) { /* the connection's own end point */
    const float *v = &ft->verts[fp->verts[link->edge] * 3];
    nm_vcopy(left, v);
    nm_vcopy(right, v);
    return 1;
  }
  if (nm_poly_type(tp) == NM_POLYTYPE_OFFMESH) { /* entering a connection */
    for (i = tp->first_link; i != NM_NULL_LINK; i = tt->links[i].next)
      if (tt->links[i].ref == from) {
        const float *v = &tt->verts[tp->verts[tt->links[i].edge] * 3];
        nm_vcopy(left, v);
        nm_vcopy(right, v);
        return 1;
      }
    return 0;
  }
  link_portal(ft, fp, link, left, right);
  return 1;
}

void nm_edge_mid(const nm_navmesh *m, nm_polyref from, const nm_tile *ft, const nm_poly *fp,
                 nm_polyref to, const nm_tile *tt, const nm_poly *tp, float *mid) {
  float l[3], r[3];
  if (!nm_portal_points(m, from, ft, fp, to, tt, tp, l, r)) return;
  mid[0] = (l[0] + r[0]) * 0.5f;
  mid[1] = (l[1] + r[1]) * 0.5f;
  mid[2] = (l[2] + r[2]) * 0.5f;
}

nm_status nm_path_to_node(const nm_nodepool *pool, const nm_node *end, nm_polyref *path, int cap,
                              int *count) {
  const nm_node *n = end;
  int len = 0, w;
  do { len++; n = nm_node_at(pool, n->pidx); } while (n);
  n = end;
  for (w = len; w > cap; w--) n = nm_node_at(pool, n->pidx);
  for (w = (len < cap ? len : cap) - 1; w >= 0; w--) {
    path[w] = n->id;
    n = nm_node_at(pool, n->pidx);
  }
  *count = len < cap ? len : cap;
  return len > cap ? NM_TRUNCATED : NM_OK;
}

/* Midpoint of the portal that link l of polygon fp (tile ft) leads through:
 * nm_edge_mid's arithmetic without looking the link up again (the search
 * already holds it); off-mesh connections take the long way. */
static inline void link_mid(const nm_navmesh *m, nm_polyref from, const nm_tile *ft,
                            const nm_poly *fp, const nm_link *l, const nm_tile *nt,
                            const nm_poly *np, float *mid) {
  float left[3], right[3];
  if (nm_poly_type(fp) == NM_POLYTYPE_OFFMESH || nm_poly_type(np) == NM_POLYTYPE_OFFMESH) {
    nm_edge_mid(m, from, ft, fp, l->ref, nt, np, mid);
    return;
  }
  link_portal(ft, fp, l, left, right);
  mid[0] = (left[0] + right[0]) * 0.5f;
  mid[1] = (left[1] + right[1]) * 0.5f;
  mid[2] = (left[2] + right[2]) * 0.5f;
}

/* Relaxes every neighbour of `best`; returns NM_OUT_OF_NODES bits. */
static nm_status expand(nm_query *q, nm_sliced *s, nm_node *best) {
  const nm_navmesh *m = q->mesh;
  const nm_filter *f = &s->filter;
  const nm_tile *bt, *nt;
  const nm_poly *bp, *np;
  const nm_node *parent = nm_node_at(&q->pool, best->pidx);
  const nm_polyref best_ref = best->id, parent_ref = parent ? parent->id : 0;
  nm_status st = NM_OK;
  uint32_t i;
  nm_ref_unsafe(m, best_ref, &bt, &bp);
  for (i = bp->first_link; i != NM_NULL_LINK; i = bt->links[i].next) {
    const nm_link *l = &bt->links[i];
    const nm_polyref nref = l->ref;
    nm_node *nn;
    float cost, heur, total;
    if (!nref || nref == parent_ref) continue;
    nm_ref_unsafe(m, nref, &nt, &np);
    if (!nm_filter_pass(f, np)) continue;
    nn = nm_nodepool_get(&q->pool, nref,
                         l->side != 0xff && !s->detour_sliced ? (uint32_t)(l->side >> 1) : 0);
    if (!nn) { st |= NM_OUT_OF_NODES; continue; }
    if (s->detour_sliced && nn->pidx != 0 && nn->pidx == best->pidx) continue; /* a sibling */
    if (nn->flags == 0) link_mid(m, best_ref, bt, bp, l, nt, np, nn->pos);
    cost = best->cost + nm_filter_cost(f, best->pos, nn->pos, bp, np);
    if (nref == s->end_ref) {
      cost += nm_vdist(nn->pos, s->end) * f->area_cost[nm_poly_area(np)];
      heur = 0;
    } else {
      heur = nm_vdist(nn->pos, s->end) * f->heuristic_scale;
    }
    total = cost + heur;
    /* only a strictly better total moves a seen node: written so that a NaN
     * total (0 area cost times an infinite distance) never does, else a
     * closed node could get its own descendant as parent (a cycle) */
    if ((nn->flags & (NM_NODE_OPEN | NM_NODE_CLOSED)) && !(total < nn->total)) continue;
    nn->pidx = nm_node_idx(&q->pool, best);
    nn->flags &= ~NM_NODE_CLOSED;
    nn->cost = cost;
    nn->total = total;
    if (nn->flags & NM_NODE_OPEN) {
      nm_heap_modify(&q->open, nn);
    } else {
      nn->flags |= NM_NODE_OPEN;
      nm_heap_push(&q->open, nn);
    }
    if (heur < s->last_best_cost) {
      s->last_best_cost = heur;
      s->last_best = nn;
    }
  }
  return st;
}

/* Checks the common arguments of path searches. */
static nm_status path_args(nm_query *q, nm_polyref s, nm_polyref e, const float *sp, const float *ep,
                           const nm_filter *f) {
  const nm_tile *t;
  const nm_poly *p;
  if (!sp || !ep || !f || !nm_isfinite3(sp) || !nm_isfinite3(ep)) return NM_ERR_PARAM;
  if (!nm_ref_get(q->mesh, s, &t, &p) || !nm_ref_get(q->mesh, e, &t, &p)) return NM_ERR_PARAM;
  return NM_OK;
}

nm_status nm_query_find_path_begin(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                   const float start[3], const float end[3],
                                   const nm_filter *filter) {
  return nm_sliced_begin(q, start_ref, end_ref, start, end, filter, 0);
}

nm_status nm_sliced_begin(nm_query *q, nm_polyref start_ref, nm_polyref end_ref, const float *start,
                          const float *end, const nm_filter *filter, int detour_sliced) {
  nm_sliced *s = &q->sliced;
  nm_node *sn;
  nm_status st;
  s->state = NM_SLICED_NONE;
  s->detour_sliced = detour_sliced;
  if ((st = path_args(q, start_ref, end_ref, start, end, filter)) < 0) return st;
  nm_query_take_pool(q);
  s->stamp = q->pool_stamp;
  s->generation = q->mesh->generation;
  s->status = NM_OK;
  s->start_ref = start_ref;
  s->end_ref = end_ref;
  nm_vcopy(s->start, start);
  nm_vcopy(s->end, end);
  if (&s->filter != filter) s->filter = *filter;
  sn = nm_nodepool_get(&q->pool, start_ref, 0);
  nm_vcopy(sn->pos, start);
  sn->total = nm_vdist(start, end) * s->filter.heuristic_scale;
  sn->flags = NM_NODE_OPEN;
  nm_heap_push(&q->open, sn);
  s->last_best = sn;
  s->last_best_cost = sn->total;
  s->state = start_ref == end_ref ? NM_SLICED_DONE : NM_SLICED_RUNNING;
  return NM_OK;
}

/* The sliced search, when it still owns the pool and the mesh is unchanged. */
static nm_sliced *sliced_live(nm_query *q) {
  nm_sliced *s = &q->sliced;
  if (s->state == NM_SLICED_NONE) return NULL;
  if (s->stamp != q->pool_stamp || s->generation != q->mesh->generation) {
    s->state = NM_SLICED_NONE;
    return NULL;
  }
  return s;
}

nm_status nm_query_find_path_step(nm_query *q, int max_iter, int *done) {
  nm_sliced *s = sliced_live(q);
  int it = 0;
  if (done) *done = 0;
  if (!s) return NM_ERR_STATE;
  if (max_iter < 1) return NM_ERR_PARAM;
  while (s->state == NM_SLICED_RUNNING && it < max_iter) {
    nm_node *best;
    if (!q->open.size) {
      s->state = NM_SLICED_DONE;
      break;
    }
    it++;
    best = nm_heap_pop(&q->open);
    best->flags = (best->flags & ~NM_NODE_OPEN) | NM_NODE_CLOSED;
    if (best->id == s->end_ref) {
      s->last_best = best;
      s->state = NM_SLICED_DONE;
      break;
    }
    s->status |= expand(q, s, best);
  }
  if (s->state == NM_SLICED_RUNNING && !q->open.size) s->state = NM_SLICED_DONE;
  if (done) *done = it;
  return s->state == NM_SLICED_DONE ? s->status : (s->status | NM_UNFINISHED);
}

nm_status nm_query_find_path_end(nm_query *q, nm_polyref *path, int cap, int *count) {
  nm_sliced *s = sliced_live(q);
  nm_status st;
  if (count) *count = 0;
  if (!s) return NM_ERR_STATE;
  if (!path || cap <= 0 || !count) return NM_ERR_PARAM;
  st = s->status | (s->state == NM_SLICED_RUNNING ? NM_UNFINISHED : NM_OK);
  s->state = NM_SLICED_NONE;
  if (s->start_ref == s->end_ref) {
    path[0] = s->start_ref;
    *count = 1;
    return NM_OK;
  }
  st |= nm_path_to_node(&q->pool, s->last_best, path, cap, count);
  if (s->last_best->id != s->end_ref) st |= NM_PARTIAL;
  return st;
}

/* The node of polygon id most recently made, whatever its tile side (the
 * one Detour's findNodes lists first), or NULL. */
static nm_node *newest_node(const nm_nodepool *p, nm_polyref id) {
  uint32_t i = p->first[nm_hash_ref(id, p->hash_shift)];
  while (i != NM_NULL_IDX) {
    if (p->nodes[i].id == id) return &p->nodes[i];
    i = p->next[i];
  }
  return NULL;
}

nm_status nm_query_find_path_end_partial(nm_query *q, const nm_polyref *existing, int nexisting,
                                         nm_polyref *path, int cap, int *count) {
  nm_sliced *s = sliced_live(q);
  nm_node *node = NULL;
  nm_status st;
  int i;
  if (count) *count = 0;
  if (!s) return NM_ERR_STATE;
  if (!path || cap <= 0 || !count || !existing || nexisting <= 0) return NM_ERR_PARAM;
  if (s->start_ref == s->end_ref) return nm_query_find_path_end(q, path, cap, count);
  for (i = nexisting - 1; i >= 0 && !node; i--) node = newest_node(&q->pool, existing[i]);
  st = s->status | (s->state == NM_SLICED_RUNNING ? NM_UNFINISHED : NM_OK);
  s->state = NM_SLICED_NONE;
  if (!node) {
    node = s->last_best;
    st |= NM_PARTIAL;
  }
  return st | nm_path_to_node(&q->pool, node, path, cap, count);
}

int nm_sliced_path_length(nm_query *q) {
  const nm_sliced *s = sliced_live(q);
  const nm_node *n;
  int len = 0;
  if (!s) return 0;
  if (s->start_ref == s->end_ref) return 1;
  for (n = s->last_best; n; n = nm_node_at(&q->pool, n->pidx)) len++;
  return len;
}

nm_status nm_query_find_path_limited(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                     const float start[3], const float end[3],
                                     const nm_filter *filter, int max_iter, nm_polyref *path,
                                     int cap, int *count) {
  nm_status st;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!path || cap <= 0 || max_iter < 1) return NM_ERR_PARAM;
  if ((st = nm_query_find_path_begin(q, start_ref, end_ref, start, end, filter)) < 0) return st;
  nm_query_find_path_step(q, max_iter, NULL);
  return nm_query_find_path_end(q, path, cap, count);
}

nm_status nm_query_find_path(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                             const float start[3], const float end[3], const nm_filter *filter,
                             nm_polyref *path, int cap, int *count) {
  return nm_query_find_path_limited(q, start_ref, end_ref, start, end, filter, INT_MAX, path, cap,
                                    count);
}
