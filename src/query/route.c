/* route.c -- nm_query_path: one whole path query (nearest polygons,
 * corridor, end point, straight path) in the core, so that C users and
 * every binding get the same chain mesh:path runs, with the buffers it
 * needs grown and kept in an nm_path between calls. */
#include "nm_query.h"

#define NM_ROUTE_MAX_POINTS (1 << 24)

void nm_path_opts_init(nm_path_opts *o) {
  memset(o, 0, sizeof *o);
  o->half_ext[0] = 2;
  o->half_ext[1] = 4;
  o->half_ext[2] = 2;
  o->straight.crossings = NM_CROSSINGS_NONE;
  o->max_points = NM_ROUTE_MAX_POINTS;
}

void nm_path_init(nm_path *p, const nm_alloc *alloc) {
  memset(p, 0, sizeof *p);
  p->alloc = nm_alloc_resolve(alloc);
}

void nm_path_free(nm_path *p) {
  size_t c = (size_t)p->corridor_cap, n = (size_t)p->points_cap;
  nm_free(&p->alloc, p->corridor, c * sizeof(nm_polyref));
  nm_free(&p->alloc, p->points, n * 3 * sizeof(float));
  nm_free(&p->alloc, p->flags, n);
  nm_free(&p->alloc, p->refs, n * sizeof(nm_polyref));
  p->corridor = p->refs = NULL;
  p->points = NULL;
  p->flags = NULL;
  p->corridor_cap = p->points_cap = p->npoints = p->ncorridor = 0;
}

/* Room for n corridor polygons (at least 256, so short paths never grow
 * the buffer twice). */
static nm_status grow_corridor(nm_path *p, int n) {
  int cap = n < 256 ? 256 : n;
  void *c;
  if (n <= p->corridor_cap) return NM_OK;
  c = nm_realloc(&p->alloc, p->corridor, (size_t)p->corridor_cap * sizeof(nm_polyref),
                 (size_t)cap * sizeof(nm_polyref));
  if (!c) return NM_ERR_NOMEM;
  p->corridor = (nm_polyref *)c;
  p->corridor_cap = cap;
  return NM_OK;
}

/* Room for n points with their flags and polygons (at least 256); on
 * failure the three buffers keep one size (what grew is shrunk back). */
static nm_status grow_points(nm_path *p, int n) {
  const nm_alloc *a = &p->alloc;
  size_t old = (size_t)p->points_cap, cap = (size_t)(n < 256 ? 256 : n);
  void *pt, *f = NULL, *r = NULL;
  if (n <= p->points_cap) return NM_OK;
  pt = nm_realloc(a, p->points, old * 3 * sizeof(float), cap * 3 * sizeof(float));
  if (pt) p->points = (float *)pt;
  if (pt) f = nm_realloc(a, p->flags, old, cap);
  if (f) p->flags = (uint8_t *)f;
  if (f) r = nm_realloc(a, p->refs, old * sizeof(nm_polyref), cap * sizeof(nm_polyref));
  if (!r) {
    if (f) p->flags = (uint8_t *)nm_realloc(a, p->flags, cap, old);
    if (pt) p->points = (float *)nm_realloc(a, p->points, cap * 3 * sizeof(float), old * 3 * sizeof(float));
    return NM_ERR_NOMEM;
  }
  p->refs = (nm_polyref *)r;
  p->points_cap = (int)cap;
  return NM_OK;
}

nm_status nm_path_reserve(nm_path *p, int corridor, int points) {
  if (!p) return NM_ERR_PARAM;
  if (grow_corridor(p, corridor) < 0 || grow_points(p, points) < 0) return NM_ERR_NOMEM;
  return NM_OK;
}

/* The corridor from the two ends into p->corridor: A* with the query's
 * node pool as cap, or the optimal search, whose buffer grows (x4) until
 * the whole corridor fits. */
static nm_status find_corridor(nm_query *q, const nm_path_opts *o, const nm_filter *f, nm_path *p) {
  int cap = (int)q->pool.max;
  nm_status st;
  if (grow_corridor(p, cap) < 0) return NM_ERR_NOMEM;
  if (!o->optimal)
    return nm_query_find_path(q, p->start_ref, p->end_ref, p->start, p->end, f, p->corridor, cap, &p->ncorridor);
  for (;;) {
    st = nm_query_find_path_optimal(q, p->start_ref, p->end_ref, p->start, p->end, f, p->corridor, cap,
                                    &p->ncorridor);
    if (st < 0 || !(st & NM_TRUNCATED) || cap >= (1 << 24)) return st;
    if (grow_corridor(p, cap *= 4) < 0) return NM_ERR_NOMEM;
  }
}

/* The optimal search's own points (no inset, no crossings): the point
 * buffer grows (x4, from what it holds) until the whole path fits or
 * max_points is reached; the search is run again only for a path longer
 * than the buffer. */
static nm_status optimal_points(nm_query *q, const nm_path_opts *o, const nm_filter *f, nm_path *p) {
  int cap = p->points_cap > 64 ? p->points_cap : 64, max = o->max_points;
  nm_status st;
  if (cap > max) cap = max;
  for (;;) {
    if (grow_points(p, cap) < 0) return NM_ERR_NOMEM;
    st = nm_query_path_optimal(q, p->start_ref, p->end_ref, p->start, p->end, f, p->points, p->refs, cap,
                               &p->npoints);
    if (st < 0 || !(st & NM_TRUNCATED) || cap >= max) break;
    cap = cap > max / 4 ? max : cap * 4;
  }
  if (st == NM_ERR_NOMEM) return st;
  if (st < 0) p->npoints = 0;
  return st < 0 ? NM_ERR_NO_PATH : st;
}

/* The straight path over the corridor to the end (the closest point on
 * the last polygon when the corridor stops short of end_ref), on the
 * detail surface for optimal corridors. */
static nm_status straight_points(nm_query *q, const nm_path_opts *o, nm_path *p) {
  int n = p->ncorridor, cap = 2 * n + 2;
  float end[3];
  nm_status st;
  memcpy(end, p->end, sizeof end);
  if (p->corridor[n - 1] != p->end_ref) nm_query_closest_point(q, p->corridor[n - 1], p->end, end, NULL);
  if (o->max_points < cap) cap = o->max_points;
  if (grow_points(p, cap) < 0) return NM_ERR_NOMEM;
  st = nm_query_straight_path(q, p->start, end, p->corridor, n, &o->straight, p->points, p->flags, p->refs,
                              cap, &p->npoints);
  if (st < 0) {
    p->npoints = 0;
    return NM_ERR_NO_PATH;
  }
  if (o->optimal) nm_query_surface_heights(q, p->points, p->refs, p->npoints, p->corridor[n - 1]);
  return st;
}

nm_status nm_query_path(nm_query *q, const float start[3], const float end[3], const nm_path_opts *opts,
                        nm_path *out) {
  nm_filter deflt;
  const nm_filter *f;
  nm_status st, sst;
  if (!q || !start || !end || !opts || !out || opts->max_points < 1) return NM_ERR_PARAM;
  out->npoints = out->ncorridor = 0;
  out->start_ref = out->end_ref = 0;
  if (!(f = opts->filter)) {
    nm_filter_init(&deflt);
    f = &deflt;
  }
  out->failed_end = 0;
  if (nm_query_find_nearest(q, start, opts->half_ext, f, &out->start_ref, out->start, NULL) < 0)
    return NM_ERR_NO_POLY;
  out->failed_end = 1;
  if (nm_query_find_nearest(q, end, opts->half_ext, f, &out->end_ref, out->end, NULL) < 0) return NM_ERR_NO_POLY;
  out->failed_end = 0;
  if (opts->reachable_only && !nm_navmesh_is_reachable(q->mesh, out->start_ref, out->end_ref)) return NM_ERR_NO_PATH;
  if (opts->optimal && opts->straight.inset == 0 && opts->straight.crossings == NM_CROSSINGS_NONE)
    return optimal_points(q, opts, f, out);
  st = find_corridor(q, opts, f, out);
  if (st == NM_ERR_NOMEM) return st;
  if (st < 0 || out->ncorridor == 0) {
    out->ncorridor = 0;
    return NM_ERR_NO_PATH;
  }
  if ((sst = straight_points(q, opts, out)) < 0) return sst;
  return st | (sst & NM_TRUNCATED);
}
