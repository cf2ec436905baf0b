/* random.c -- random points on the navmesh: findRandomPoint and
 * findRandomPointAroundCircle, driven by a seedable per-query generator.
 *
 * Generator: splitmix64 (64-bit integer state, so a seed gives the same
 * points on every host); floats take its top 24 bits, doubles its top 53.
 * Polygon choice is weighted by X/Z area. Detour picks a tile uniformly and
 * then a polygon by reservoir sampling inside it, which favours polygons in
 * sparse tiles; here findRandomPoint keeps a table of running area sums over
 * every passing ground polygon of the mesh (built once, rebuilt when the mesh
 * or the filter flags change) and finds a polygon by binary search, so points
 * are uniform by area over the whole mesh at O(log n) per point.
 * Inside a polygon a fan triangle is chosen by area and a point is drawn
 * uniformly in it (square-root warp); its height comes from the detail mesh.
 * findRandomPointAroundCircle collects the polygons a circle search reaches
 * (Detour's) and redraws until the point lies inside the circle. */
#include "nm_query.h"

#define AROUND_DRAWS 32

/* splitmix64 step. */
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* Uniform in [0, 1) with 24 bits (exact in float). */
static float rng_float(uint64_t *s) { return (float)(rng_next(s) >> 40) * (1.0f / 16777216.0f); }
/* Uniform in [0, 1) with 53 bits. */
static double rng_double(uint64_t *s) {
  return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

void nm_query_seed(nm_query *q, uint64_t seed) { q->rng = seed; }

/* X/Z area (doubled, as Detour's fan sum) of a polygon; 0 if degenerate. */
static float poly_area2d(const nm_tile *t, const nm_poly *p) {
  const float *v0 = &t->verts[p->verts[0] * 3];
  float a = 0;
  int j;
  for (j = 2; j < p->vert_count; j++)
    a += nm_tri_area2d(v0, &t->verts[p->verts[j - 1] * 3], &t->verts[p->verts[j] * 3]);
  return a > 0 ? a : 0;
}

/* A point drawn uniformly in convex polygon v [(x,y,z) * nv] from two
 * uniform numbers: s picks the fan triangle by area and a position along
 * its far edge, sqrt(t) the distance from the fan's apex. */
static void point_in_poly(const float *v, int nv, float s, float t, float *out) {
  float areas[NM_MAX_VERTS_PER_POLY], sum = 0, acc = 0, thr, u = s, w, a, b, c;
  int i, tri = nv - 1;
  for (i = 2; i < nv; i++) {
    areas[i] = nm_maxf(0, nm_tri_area2d(v, &v[(i - 1) * 3], &v[i * 3]));
    sum += areas[i];
  }
  thr = s * sum;
  for (i = 2; i < nv; i++) {
    if (thr < acc + areas[i]) {
      tri = i;
      u = (thr - acc) / areas[i];
      break;
    }
    acc += areas[i];
  }
  u = nm_clampf(u, 0, 1);
  w = sqrtf(t);
  a = 1 - w;
  b = (1 - u) * w;
  c = u * w;
  for (i = 0; i < 3; i++) out[i] = a * v[i] + b * v[(tri - 1) * 3 + i] + c * v[tri * 3 + i];
}

/* Draws a point on polygon ref, on the polygon's plane (no detail height). */
static void draw_in_poly(nm_query *q, nm_polyref ref, float *pt) {
  const nm_tile *t;
  const nm_poly *p;
  float verts[NM_MAX_VERTS_PER_POLY * 3], s, u;
  int nv;
  nm_ref_unsafe(q->mesh, ref, &t, &p);
  nv = nm_poly_verts(t, p, verts);
  s = rng_float(&q->rng);
  u = rng_float(&q->rng);
  point_in_poly(verts, nv, s, u, pt);
}

/* Puts a drawn point on the detail surface. */
static void to_surface(nm_query *q, nm_polyref ref, float *pt) {
  nm_closest_point_on_poly(q->mesh, ref, pt, pt, NULL);
}

/* ---- the whole-mesh area table ---- */

void nm_rand_table_free(nm_query *q) {
  nm_rand_table *rt = &q->rtab;
  nm_free(&q->alloc, rt->refs, (size_t)rt->cap * sizeof(nm_polyref));
  nm_free(&q->alloc, rt->cum, (size_t)rt->cap * sizeof(double));
  memset(rt, 0, sizeof *rt);
}

/* Number of ground polygons passing f. */
static int count_passing(const nm_navmesh *m, const nm_filter *f) {
  int i, j, n = 0;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    for (j = 0; j < t->header->poly_count; j++)
      n += nm_poly_type(&t->polys[j]) == NM_POLYTYPE_GROUND && nm_filter_pass(f, &t->polys[j]);
  }
  return n;
}

/* Makes room for n entries (contents are rebuilt anyway). */
static nm_status table_reserve(nm_query *q, int n) {
  nm_rand_table *rt = &q->rtab;
  if (n <= rt->cap) return NM_OK;
  nm_rand_table_free(q);
  rt->refs = (nm_polyref *)nm_malloc(&q->alloc, nm_mul_size((size_t)n, sizeof(nm_polyref)));
  rt->cum = (double *)nm_malloc(&q->alloc, nm_mul_size((size_t)n, sizeof(double)));
  rt->cap = n;
  if (!rt->refs || !rt->cum) {
    nm_rand_table_free(q);
    return NM_ERR_NOMEM;
  }
  return NM_OK;
}

/* Brings the area table up to date for the mesh and filter f. */
static nm_status table_update(nm_query *q, const nm_filter *f) {
  const nm_navmesh *m = q->mesh;
  nm_rand_table *rt = &q->rtab;
  double sum = 0;
  int i, j, k = 0;
  nm_status st;
  if (rt->valid && rt->generation == m->generation && rt->include_flags == f->include_flags &&
      rt->exclude_flags == f->exclude_flags)
    return NM_OK;
  rt->valid = 0;
  if ((st = table_reserve(q, count_passing(m, f))) < 0) return st;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    for (j = 0; j < t->header->poly_count; j++) {
      const nm_poly *p = &t->polys[j];
      if (nm_poly_type(p) != NM_POLYTYPE_GROUND || !nm_filter_pass(f, p)) continue;
      sum += poly_area2d(t, p);
      rt->refs[k] = nm_tile_base(m, t) | (nm_polyref)j;
      rt->cum[k++] = sum;
    }
  }
  rt->count = k;
  rt->valid = 1;
  rt->generation = m->generation;
  rt->include_flags = f->include_flags;
  rt->exclude_flags = f->exclude_flags;
  return NM_OK;
}

/* Index of the first running sum above r (binary search). */
static int table_find(const nm_rand_table *rt, double r) {
  int lo = 0, hi = rt->count - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (rt->cum[mid] > r) hi = mid;
    else lo = mid + 1;
  }
  while (lo > 0 && rt->cum[lo] == rt->cum[lo - 1]) lo--; /* r rounded up to the total */
  return lo;
}

nm_status nm_query_random_point(nm_query *q, const nm_filter *filter, nm_polyref *ref,
                                float pt[3]) {
  nm_rand_table *rt = &q->rtab;
  nm_status st;
  int k;
  if (!ref || !pt) return NM_ERR_PARAM;
  *ref = 0;
  if (!filter) return NM_ERR_PARAM;
  if ((st = table_update(q, filter)) < 0) return st;
  if (rt->count == 0 || !(rt->cum[rt->count - 1] > 0)) return NM_ERR_NO_POLY;
  k = table_find(rt, rng_double(&q->rng) * rt->cum[rt->count - 1]);
  *ref = rt->refs[k];
  draw_in_poly(q, *ref, pt);
  to_surface(q, *ref, pt);
  return NM_OK;
}

/* ---- around a circle ---- */

/* Stores running area sums of the polygons in the pool in node->cost (pool
 * order); returns the total. */
static float pool_area_sums(nm_query *q) {
  float sum = 0;
  uint32_t i;
  for (i = 0; i < q->pool.count; i++) {
    nm_node *n = &q->pool.nodes[i];
    const nm_tile *t;
    const nm_poly *p;
    nm_ref_unsafe(q->mesh, n->id, &t, &p);
    if (nm_poly_type(p) == NM_POLYTYPE_GROUND) sum += poly_area2d(t, p);
    n->cost = sum;
  }
  return sum;
}

/* Pool node holding the first running sum above r. */
static const nm_node *pool_find(const nm_nodepool *pool, float r) {
  uint32_t lo = 0, hi = pool->count - 1;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (pool->nodes[mid].cost > r) hi = mid;
    else lo = mid + 1;
  }
  while (lo > 0 && pool->nodes[lo].cost == pool->nodes[lo - 1].cost) lo--;
  return &pool->nodes[lo];
}

nm_status nm_query_random_point_around(nm_query *q, nm_polyref start_ref, const float center[3],
                                       float radius, const nm_filter *filter, nm_polyref *ref,
                                       float pt[3]) {
  const nm_tile *t;
  const nm_poly *p;
  nm_status st;
  float total;
  int i;
  if (!ref || !pt) return NM_ERR_PARAM;
  *ref = 0;
  if (!center || !filter || !nm_isfinite3(center) || !(radius >= 0) || !isfinite(radius) ||
      !nm_ref_get(q->mesh, start_ref, &t, &p) || !nm_filter_pass(filter, p))
    return NM_ERR_PARAM;
  st = nm_around_circle_nodes(q, start_ref, center, radius, filter);
  if (!((total = pool_area_sums(q)) > 0)) return NM_ERR_NO_POLY;
  for (i = 0; i < AROUND_DRAWS; i++) {
    *ref = pool_find(&q->pool, (float)rng_double(&q->rng) * total)->id;
    draw_in_poly(q, *ref, pt);
    if (nm_vdist2d_sqr(pt, center) <= radius * radius) break;
  }
  to_surface(q, *ref, pt);
  return st;
}
