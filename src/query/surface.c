/* surface.c -- small breadth-first walks over neighbouring polygons:
 * moveAlongSurface and findLocalNeighbourhood (Detour's algorithms).
 *
 * Both use the query's tiny node pool (64 nodes) and a first-in first-out
 * queue of at most 48 polygons, the limits Detour uses; the walks are meant
 * for short distances (one agent step, the polygons around an agent).
 * moveAlongSurface visits polygons whose shared edge lies within the circle
 * through start and end; it stops in the polygon containing the target, or
 * else ends at the point of a wall edge closest to the target (so the agent
 * slides along walls and never leaves the mesh).
 * findLocalNeighbourhood collects polygons whose portals touch a circle,
 * skipping any that overlap one already collected (layers above or below),
 * with a separating-axis test in X/Z. */
#include "nm_query.h"

#define QUEUE_MAX 48

/* FIFO of nodes with Detour's capacity rule (at most QUEUE_MAX queued). */
typedef struct queue {
  nm_node *items[QUEUE_MAX];
  int head, size;
} queue;

static void queue_push(queue *qu, nm_node *n) {
  if (qu->size < QUEUE_MAX) qu->items[(qu->head + qu->size++) % QUEUE_MAX] = n;
}
static nm_node *queue_pop(queue *qu) {
  nm_node *n = qu->items[qu->head];
  qu->head = (qu->head + 1) % QUEUE_MAX;
  qu->size--;
  return n;
}

/* Checks a start ref and two points. */
static int walk_args(nm_query *q, nm_polyref ref, const float *a, const float *b,
                     const nm_filter *f) {
  const nm_tile *t;
  const nm_poly *p;
  return a && b && f && nm_isfinite3(a) && nm_isfinite3(b) && nm_ref_get(q->mesh, ref, &t, &p);
}

/* Passable neighbours across edge j of polygon p (up to 8 for tile-border
 * edges, in link order); returns how many. */
static int edge_neighbours(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, int j,
                           const nm_filter *f, nm_polyref *neis) {
  const nm_tile *nt;
  const nm_poly *np;
  int n = 0;
  if (p->neis[j] & NM_EXT_LINK) {
    uint32_t k;
    for (k = p->first_link; k != NM_NULL_LINK; k = t->links[k].next) {
      const nm_link *l = &t->links[k];
      if (l->edge != j || !l->ref) continue;
      nm_ref_unsafe(m, l->ref, &nt, &np);
      if (nm_filter_pass(f, np) && n < 8) neis[n++] = l->ref;
    }
  } else if (p->neis[j]) {
    const uint32_t idx = (uint32_t)(p->neis[j] - 1);
    if (nm_filter_pass(f, &t->polys[idx])) neis[n++] = nm_tile_base(m, t) | idx;
  }
  return n;
}

/* Walk state of moveAlongSurface. */
typedef struct walk {
  const float *end, *search;
  float rad_sqr, best_dist, best_pos[3];
  nm_node *best;
  queue qu;
} walk;

/* Handles edge j -> i of the current polygon: a wall edge may hold the
 * closest point to the target; a passable one queues its neighbours when
 * the edge is inside the search circle. */
static void walk_edge(nm_query *q, walk *w, nm_node *cur, const nm_tile *t, const nm_poly *p,
                      const float *verts, int j, int i, const nm_filter *f) {
  const float *vj = &verts[j * 3], *vi = &verts[i * 3];
  nm_polyref neis[8];
  float tseg, d;
  int k, nn = edge_neighbours(q->mesh, t, p, j, f, neis);
  if (!nn) {
    d = nm_dist_pt_seg_sqr2d(w->end, vj, vi, &tseg);
    if (d < w->best_dist) {
      nm_vlerp(w->best_pos, vj, vi, tseg);
      w->best_dist = d;
      w->best = cur;
    }
    return;
  }
  for (k = 0; k < nn; k++) {
    nm_node *n = nm_nodepool_get(&q->tiny, neis[k], 0);
    if (!n || (n->flags & NM_NODE_CLOSED)) continue;
    if (nm_dist_pt_seg_sqr2d(w->search, vj, vi, &tseg) > w->rad_sqr) continue;
    if (w->qu.size < QUEUE_MAX) {
      n->pidx = nm_node_idx(&q->tiny, cur);
      n->flags |= NM_NODE_CLOSED;
      queue_push(&w->qu, n);
    }
  }
}

nm_status nm_query_move_along_surface(nm_query *q, nm_polyref start_ref, const float start[3],
                                      const float end[3], const nm_filter *filter,
                                      float result[3], nm_polyref *visited, int cap, int *count) {
  float verts[NM_MAX_VERTS_PER_POLY * 3], search[3];
  nm_node *sn;
  walk w;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!result || !visited || cap <= 0 || !walk_args(q, start_ref, start, end, filter))
    return NM_ERR_PARAM;
  nm_nodepool_clear(&q->tiny);
  sn = nm_nodepool_get(&q->tiny, start_ref, 0);
  sn->flags = NM_NODE_CLOSED;
  w.qu.head = w.qu.size = 0;
  queue_push(&w.qu, sn);
  w.end = end;
  nm_vlerp(search, start, end, 0.5f);
  w.search = search;
  w.rad_sqr = nm_sqr(nm_vdist(start, end) / 2.0f + 0.001f);
  w.best_dist = FLT_MAX;
  w.best = NULL;
  nm_vcopy(w.best_pos, start);
  while (w.qu.size) {
    nm_node *cur = queue_pop(&w.qu);
    const nm_tile *t;
    const nm_poly *p;
    int i, j, nv;
    nm_ref_unsafe(q->mesh, cur->id, &t, &p);
    nv = nm_poly_verts(t, p, verts);
    if (nm_point_in_polygon(end, verts, nv)) { /* the target is on this polygon */
      w.best = cur;
      nm_vcopy(w.best_pos, end);
      break;
    }
    for (i = 0, j = nv - 1; i < nv; j = i++) walk_edge(q, &w, cur, t, p, verts, j, i, filter);
  }
  nm_vcopy(result, w.best_pos);
  return w.best ? nm_path_to_node(&q->tiny, w.best, visited, cap, count) : NM_OK;
}

/* ---- findLocalNeighbourhood ---- */

/* Range of polygon verts [(x,y,z) * n] projected on X/Z axis (ax, az);
 * branch-free min/max (the comparisons are unpredictable). */
static void project_poly(float ax, float az, const float *v, int n, float *mn, float *mx) {
  float lo = ax * v[0] + az * v[2], hi = lo;
  int i;
  for (i = 1; i < n; i++) {
    const float d = ax * v[i * 3] + az * v[i * 3 + 2];
    lo = nm_minf(lo, d);
    hi = nm_maxf(hi, d);
  }
  *mn = lo;
  *mx = hi;
}

/* Whether some edge normal of a separates a from b (touching counts). */
static int separated_by_edges_of(const float *a, int na, const float *b, int nb) {
  const float eps = 1e-4f;
  int i, j;
  for (i = 0, j = na - 1; i < na; j = i++) {
    const float *va = &a[j * 3], *vb = &a[i * 3];
    const float nx = vb[2] - va[2], nz = -(vb[0] - va[0]);
    float amin, amax, bmin, bmax;
    project_poly(nx, nz, a, na, &amin, &amax);
    project_poly(nx, nz, b, nb, &bmin, &bmax);
    if ((amin + eps) > bmax || (amax - eps) < bmin) return 1;
  }
  return 0;
}

/* Convex polygons a and b overlap in X/Z (separating axis test). */
static int polys_overlap2d(const float *a, int na, const float *b, int nb) {
  return !separated_by_edges_of(a, na, b, nb) && !separated_by_edges_of(b, nb, a, na);
}

/* Result list of findLocalNeighbourhood, with the X/Z bounds of the first
 * NM_TINY_NODES results (minx, minz, maxx, maxz) for a quick rejection. */
typedef struct nlist {
  nm_polyref *refs, *parents;
  int cap, n;
  nm_status st;
  float box[NM_TINY_NODES][4];
} nlist;

/* X/Z bounds of polygon verts v [(x,y,z) * n] (an inverted box when n is
 * 0, which no loaded polygon has: every one has 3 to 6 vertices). */
static void bounds2d(const float *v, int n, float *b) {
  int i;
  b[0] = b[1] = FLT_MAX;
  b[2] = b[3] = -FLT_MAX;
  for (i = 0; i < n; i++) {
    b[0] = nm_minf(b[0], v[i * 3]);
    b[2] = nm_maxf(b[2], v[i * 3]);
    b[1] = nm_minf(b[1], v[i * 3 + 2]);
    b[3] = nm_maxf(b[3], v[i * 3 + 2]);
  }
}

/* Bounds clearly apart (by more than the overlap test's tolerance): the
 * separating-axis test would find them apart too, so it can be skipped. */
static int boxes_apart(const float *a, const float *b) {
  const float gap = 1e-3f;
  return a[2] + gap < b[0] || b[2] + gap < a[0] || a[3] + gap < b[1] || b[3] + gap < a[1];
}

/* Whether polygon (nt, np) overlaps a collected polygon not linked to cur.
 * box gets the polygon's bounds. */
static int overlaps_collected(const nm_navmesh *m, const nm_tile *ct, const nm_poly *cp,
                              const nm_tile *nt, const nm_poly *np, const nlist *l, float *box) {
  float pa[NM_MAX_VERTS_PER_POLY * 3], pb[NM_MAX_VERTS_PER_POLY * 3];
  const int na = nm_poly_verts(nt, np, pa);
  int j;
  bounds2d(pa, na, box);
  for (j = 0; j < l->n; j++) {
    const nm_tile *pt;
    const nm_poly *pp;
    uint32_t k;
    int linked = 0;
    if (j < NM_TINY_NODES && boxes_apart(box, l->box[j])) continue;
    for (k = cp->first_link; k != NM_NULL_LINK && !linked; k = ct->links[k].next)
      linked = ct->links[k].ref == l->refs[j];
    if (linked) continue;
    nm_ref_unsafe(m, l->refs[j], &pt, &pp);
    if (polys_overlap2d(pa, na, pb, nm_poly_verts(pt, pp, pb))) return 1;
  }
  return 0;
}

static void nlist_add(nlist *l, nm_polyref ref, nm_polyref parent, const float *box) {
  if (l->n >= l->cap) {
    l->st |= NM_TRUNCATED;
    return;
  }
  if (l->n < NM_TINY_NODES) memcpy(l->box[l->n], box, sizeof l->box[0]);
  l->refs[l->n] = ref;
  if (l->parents) l->parents[l->n] = parent;
  l->n++;
}

/* Visits the neighbours of cur for findLocalNeighbourhood. */
static void local_expand(nm_query *q, nm_node *cur, const float *c, float rad_sqr,
                         const nm_filter *f, nlist *out, queue *qu) {
  const nm_navmesh *m = q->mesh;
  const nm_tile *ct, *nt;
  const nm_poly *cp, *np;
  uint32_t i;
  nm_ref_unsafe(m, cur->id, &ct, &cp);
  for (i = cp->first_link; i != NM_NULL_LINK; i = ct->links[i].next) {
    const nm_polyref nref = ct->links[i].ref;
    nm_node *nn;
    float va[3], vb[3], tseg, box[4];
    if (!nref) continue;
    if (!(nn = nm_nodepool_get(&q->tiny, nref, 0)) || (nn->flags & NM_NODE_CLOSED)) continue;
    nm_ref_unsafe(m, nref, &nt, &np);
    if (nm_poly_type(np) == NM_POLYTYPE_OFFMESH || !nm_filter_pass(f, np)) continue;
    if (!nm_portal_points(m, cur->id, ct, cp, nref, nt, np, va, vb)) continue;
    if (nm_dist_pt_seg_sqr2d(c, va, vb, &tseg) > rad_sqr) continue;
    nn->flags |= NM_NODE_CLOSED; /* before the overlap test: never retried */
    nn->pidx = nm_node_idx(&q->tiny, cur);
    if (overlaps_collected(m, ct, cp, nt, np, out, box)) continue;
    nlist_add(out, nref, cur->id, box);
    queue_push(qu, nn);
  }
}

nm_status nm_query_local_neighbourhood(nm_query *q, nm_polyref start_ref, const float center[3],
                                       float radius, const nm_filter *filter, nm_polyref *refs,
                                       nm_polyref *parents, int cap, int *count) {
  nlist out;
  queue qu;
  nm_node *sn;
  float rad_sqr, verts[NM_MAX_VERTS_PER_POLY * 3], box[4];
  const nm_tile *t;
  const nm_poly *p;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!refs || cap <= 0 || !walk_args(q, start_ref, center, center, filter) || !(radius >= 0) ||
      !isfinite(radius))
    return NM_ERR_PARAM;
  nm_nodepool_clear(&q->tiny);
  sn = nm_nodepool_get(&q->tiny, start_ref, 0);
  sn->flags = NM_NODE_CLOSED;
  qu.head = qu.size = 0;
  queue_push(&qu, sn);
  out.refs = refs;
  out.parents = parents;
  out.cap = cap;
  out.n = 0;
  out.st = NM_OK;
  nm_ref_unsafe(q->mesh, start_ref, &t, &p);
  bounds2d(verts, nm_poly_verts(t, p, verts), box);
  nlist_add(&out, start_ref, 0, box);
  rad_sqr = nm_sqr(radius);
  while (qu.size) local_expand(q, queue_pop(&qu), center, rad_sqr, filter, &out, &qu);
  *count = out.n;
  return out.st;
}
