/* test_toolbox.c -- C unit tests of the query toolbox on a hand-built level:
 * a 4 x 4 grid of 2 wu quads with cell (2,1) left out as a pillar. Covers
 * statuses the Lua binding hides (ERR_STATE, UNFINISHED, TRUNCATED), argument
 * checks, filters, determinism, and allocation failures. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "tap.h"

#define N 4
#define S 2.0f

static nm_navmesh *g_mesh;

/* Builds the grid level (vertices on a 5 x 5 lattice). */
static nm_navmesh *make_level(void) {
  float verts[(N + 1) * (N + 1) * 3];
  uint16_t polys[N * N * 6];
  int i, j, np = 0;
  nm_poly_mesh_input in;
  void *blob = NULL;
  size_t size = 0;
  nm_navmesh *mesh = NULL;
  for (j = 0; j <= N; j++)
    for (i = 0; i <= N; i++) {
      float *v = &verts[(j * (N + 1) + i) * 3];
      v[0] = i * S;
      v[1] = 0;
      v[2] = j * S;
    }
  for (j = 0; j < N; j++)
    for (i = 0; i < N; i++) {
      uint16_t *p = &polys[np * 6];
      if (i == 2 && j == 1) continue;
      p[0] = (uint16_t)(j * (N + 1) + i);
      p[1] = (uint16_t)((j + 1) * (N + 1) + i);
      p[2] = (uint16_t)((j + 1) * (N + 1) + i + 1);
      p[3] = (uint16_t)(j * (N + 1) + i + 1);
      p[4] = p[5] = 0xffff;
      np++;
    }
  memset(&in, 0, sizeof in);
  in.verts = verts;
  in.nverts = (N + 1) * (N + 1);
  in.polys = polys;
  in.npolys = np;
  in.nvp = 6;
  in.bmin[0] = 1;
  in.bmax[0] = 0;
  in.walkable_height = 2;
  in.walkable_radius = 0.6f;
  in.walkable_climb = 0.9f;
  in.build_bvtree = 1;
  if (nm_tile_create(&in, NULL, NULL, &blob, &size) < 0) return NULL;
  nm_navmesh_load(blob, size, NULL, NULL, &mesh);
  nm_tile_free(NULL, blob, size);
  return mesh;
}

/* Polygon under (x, z). */
static nm_polyref ref_at(nm_query *q, float x, float z) {
  float c[3], ext[3] = {0.01f, 1, 0.01f}, pt[3];
  nm_polyref r = 0;
  nm_filter f;
  nm_filter_init(&f);
  c[0] = x;
  c[1] = 0;
  c[2] = z;
  nm_query_find_nearest(q, c, ext, &f, &r, pt, NULL);
  return r;
}

static nm_query *new_query(void) {
  nm_query *q = NULL;
  nm_query_new(g_mesh, 256, NULL, &q);
  return q;
}

TEST(level_builds) {
  CHECK(g_mesh != NULL);
}

TEST(raycast_hits_and_reaches) {
  nm_query *q = new_query();
  nm_filter f;
  nm_polyref path[16], s = ref_at(q, 1, 3);
  float a[3] = {1, 0, 3}, b[3] = {7, 0, 3}, c[3] = {1, 0, 7}, t, n[3];
  int cnt;
  nm_filter_init(&f);
  /* towards the pillar cell x 4..6, z 2..4: hits x = 4 at t = 0.5 */
  CHECK(nm_query_raycast(q, s, a, b, &f, &t, n, path, 16, &cnt) == NM_OK);
  CHECK_NEAR(t, 0.5, 1e-6);
  CHECK_NEAR(fabs(n[0]), 1, 1e-6);
  CHECK(cnt == 2);
  /* open: t = FLT_MAX, zero normal */
  CHECK(nm_query_raycast(q, s, a, c, &f, &t, n, path, 16, &cnt) == NM_OK);
  CHECK(t == FLT_MAX && n[0] == 0 && n[1] == 0 && n[2] == 0 && cnt == 3);
  /* too small a buffer: the cast still completes */
  CHECK(nm_query_raycast(q, s, a, c, &f, &t, n, path, 1, &cnt) == NM_TRUNCATED);
  CHECK(t == FLT_MAX && cnt == 1);
  CHECK(nm_query_raycast(q, s, a, c, &f, &t, NULL, NULL, 0, &cnt) == NM_TRUNCATED);
  a[1] = NAN;
  CHECK(nm_query_raycast(q, s, a, c, &f, &t, n, path, 16, &cnt) == NM_ERR_PARAM);
  CHECK(nm_query_raycast(q, 12345, c, c, &f, &t, n, path, 16, &cnt) == NM_ERR_PARAM);
  nm_query_free(q);
}

TEST(sliced_search_and_its_end) {
  nm_query *q = new_query();
  nm_filter f;
  nm_polyref path[32], full[32], s = ref_at(q, 1, 1), e = ref_at(q, 7, 7);
  float a[3] = {1, 0, 1}, b[3] = {7, 0, 7};
  float center[3] = {1, 0, 1};
  int n, nfull, done, iters = 0;
  nm_status st;
  nm_filter_init(&f);
  CHECK(nm_query_find_path(q, s, e, a, b, &f, full, 32, &nfull) == NM_OK);
  CHECK(nm_query_find_path_step(q, 1, &done) == NM_ERR_STATE);
  CHECK(nm_query_find_path_end(q, path, 32, &n) == NM_ERR_STATE);
  CHECK(nm_query_find_path_begin(q, s, e, a, b, &f) == NM_OK);
  CHECK(nm_query_find_path_step(q, 0, &done) == NM_ERR_PARAM);
  while ((st = nm_query_find_path_step(q, 1, &done)) == NM_UNFINISHED) iters += done;
  CHECK(st == NM_OK && iters > 2);
  CHECK(nm_query_find_path_end(q, path, 32, &n) == NM_OK);
  CHECK(n == nfull && memcmp(path, full, (size_t)n * sizeof *path) == 0);
  CHECK(nm_query_find_path_end(q, path, 32, &n) == NM_ERR_STATE);
  /* another search taking the pool ends it */
  CHECK(nm_query_find_path_begin(q, s, e, a, b, &f) == NM_OK);
  CHECK(nm_query_polys_around_circle(q, s, center, 1, &f, path, NULL, NULL, 32, &n) == NM_OK);
  CHECK(nm_query_find_path_step(q, 10, &done) == NM_ERR_STATE && done == 0);
  /* ...and so does a mesh change */
  CHECK(nm_query_find_path_begin(q, s, e, a, b, &f) == NM_OK);
  CHECK(nm_navmesh_set_poly_flags(g_mesh, e, 1) == NM_OK);
  CHECK(nm_query_find_path_end(q, path, 32, &n) == NM_ERR_STATE);
  /* an iteration cap gives a partial corridor and says so */
  st = nm_query_find_path_limited(q, s, e, a, b, &f, 2, path, 32, &n);
  CHECK(st == (NM_PARTIAL | NM_UNFINISHED) && n >= 1 && path[0] == s);
  CHECK(strcmp(nm_status_name(NM_UNFINISHED), "UNFINISHED") == 0);
  CHECK(strcmp(nm_status_name(NM_ERR_STATE), "ERR_STATE") == 0);
  CHECK(strcmp(nm_status_name(st), "PARTIAL") == 0);
  CHECK(nm_query_find_path_limited(q, s, e, a, b, &f, 0, path, 32, &n) == NM_ERR_PARAM);
  nm_query_free(q);
}

TEST(area_change_lookup) {
  nm_filter f;
  int i;
  nm_filter_init(&f);
  CHECK(f.heuristic_scale == 0.999f && f.area_change_count == 0);
  CHECK(nm_filter_area_change(&f, 0, 1) == 0);
  CHECK(nm_filter_set_area_change(&f, NM_AREA_ANY, NM_AREA_ANY, 1) == NM_OK);
  CHECK(nm_filter_set_area_change(&f, NM_AREA_ANY, 2, 2) == NM_OK);
  CHECK(nm_filter_set_area_change(&f, 3, NM_AREA_ANY, 3) == NM_OK);
  CHECK(nm_filter_set_area_change(&f, 3, 2, 4) == NM_OK);
  CHECK(nm_filter_area_change(&f, 3, 2) == 4);
  CHECK(nm_filter_area_change(&f, 3, 7) == 3);
  CHECK(nm_filter_area_change(&f, 1, 2) == 2);
  CHECK(nm_filter_area_change(&f, 1, 7) == 1);
  CHECK(nm_filter_area_change(&f, 7, 7) == 0);
  CHECK(nm_filter_set_area_change(&f, 3, 2, 5) == NM_OK && f.area_change_count == 4);
  CHECK(nm_filter_area_change(&f, 3, 2) == 5);
  CHECK(nm_filter_set_area_change(&f, 64, 2, 1) == NM_ERR_PARAM);
  CHECK(nm_filter_set_area_change(&f, 1, 2, -1) == NM_ERR_PARAM);
  CHECK(nm_filter_set_area_change(&f, 1, 2, INFINITY) == NM_ERR_PARAM);
  CHECK(nm_filter_set_area_change(NULL, 1, 2, 1) == NM_ERR_PARAM);
  for (i = 0; i < NM_MAX_AREA_CHANGES; i++) nm_filter_set_area_change(&f, i, 63, 1);
  CHECK(f.area_change_count == NM_MAX_AREA_CHANGES);
  CHECK(nm_filter_set_area_change(&f, 40, 41, 1) == NM_ERR_PARAM);
}

TEST(random_points_repeat_by_seed) {
  nm_query *q1 = new_query(), *q2 = new_query();
  nm_filter f;
  nm_polyref r1, r2;
  float p1[3], p2[3];
  int i, same = 1;
  nm_filter_init(&f);
  nm_query_seed(q1, 99);
  nm_query_seed(q2, 99);
  for (i = 0; i < 50; i++) {
    CHECK(nm_query_random_point(q1, &f, &r1, p1) == NM_OK);
    CHECK(nm_query_random_point(q2, &f, &r2, p2) == NM_OK);
    same &= r1 == r2 && memcmp(p1, p2, sizeof p1) == 0;
    CHECK(p1[0] >= 0 && p1[0] <= N * S && p1[2] >= 0 && p1[2] <= N * S);
    CHECK(!(p1[0] > 4 && p1[0] < 6 && p1[2] > 2 && p1[2] < 4)); /* not in the pillar */
  }
  CHECK(same);
  f.include_flags = 0;
  CHECK(nm_query_random_point(q1, &f, &r1, p1) == NM_ERR_NO_POLY && r1 == 0);
  CHECK(nm_query_random_point(q1, NULL, &r1, p1) == NM_ERR_PARAM);
  nm_query_free(q1);
  nm_query_free(q2);
}

TEST(distance_to_wall_and_segments) {
  nm_query *q = new_query();
  nm_filter f;
  nm_polyref s = ref_at(q, 3, 3), refs[8];
  float c[3] = {3, 0, 3.5f}, d, hit[3], n[3], segs[6 * 8];
  int found, cnt;
  nm_filter_init(&f);
  CHECK(nm_query_distance_to_wall(q, s, c, 10, &f, &d, hit, n, &found) == NM_OK);
  /* the pillar's face x = 4 (the cell's other edges are portals) */
  CHECK(found && fabsf(d - 1) < 1e-6f && fabsf(hit[0] - 4) < 1e-6f && fabsf(hit[2] - 3.5f) < 1e-6f);
  CHECK(fabsf(n[0] + 1) < 1e-6f && n[1] == 0 && n[2] == 0);
  CHECK(nm_query_distance_to_wall(q, s, c, 0.25f, &f, &d, hit, n, &found) == NM_OK);
  CHECK(!found && d == 0.25f);
  CHECK(nm_query_distance_to_wall(q, s, c, -1, &f, &d, hit, n, &found) == NM_ERR_PARAM);
  /* cell (1,1): east edge is the pillar, west/south/north are portals */
  CHECK(nm_query_wall_segments(q, s, &f, segs, refs, 8, &cnt) == NM_OK && cnt == 4);
  CHECK(nm_query_wall_segments(q, s, &f, segs, NULL, 8, &cnt) == NM_OK && cnt == 1);
  CHECK(fabsf(segs[0] - 4) < 1e-6f && fabsf(segs[3] - 4) < 1e-6f);
  CHECK(nm_query_wall_segments(q, s, &f, segs, refs, 2, &cnt) == NM_TRUNCATED && cnt == 2);
  nm_query_free(q);
}

TEST(lists_truncate) {
  nm_query *q = new_query();
  nm_filter f;
  nm_polyref refs[64], parents[64], s = ref_at(q, 1, 1);
  float c[3] = {4, 0, 4}, ext[3] = {10, 1, 10}, costs[64], shape[9] = {0, 0, 0, 8.5f, 0, 0, 0, 0, 8.5f};
  int cnt;
  nm_filter_init(&f);
  CHECK(nm_query_polygons(q, c, ext, &f, refs, 64, &cnt) == NM_OK && cnt == 15);
  CHECK(nm_query_polygons(q, c, ext, &f, refs, 4, &cnt) == NM_TRUNCATED && cnt == 4);
  CHECK(nm_query_polys_around_circle(q, s, c, 100, &f, refs, parents, costs, 64, &cnt) == NM_OK && cnt == 15);
  CHECK(nm_query_polys_around_circle(q, s, c, 100, &f, refs, parents, costs, 3, &cnt) == NM_TRUNCATED);
  CHECK(nm_query_local_neighbourhood(q, s, c, 100, &f, refs, parents, 64, &cnt) == NM_OK && cnt == 15);
  CHECK(nm_query_local_neighbourhood(q, s, c, 100, &f, refs, NULL, 5, &cnt) == NM_TRUNCATED && cnt == 5);
  /* the triangle x + z <= 8.5 overlaps the 13 cells with i + j <= 4, one a pillar */
  CHECK(nm_query_polys_around_shape(q, s, shape, 3, &f, refs, NULL, NULL, 64, &cnt) == NM_OK);
  CHECK(cnt == 12);
  CHECK(nm_query_polys_around_shape(q, s, shape, 2, &f, refs, NULL, NULL, 64, &cnt) == NM_ERR_PARAM);
  shape[4] = NAN;
  CHECK(nm_query_polys_around_shape(q, s, shape, 3, &f, refs, NULL, NULL, 64, &cnt) == NM_ERR_PARAM);
  nm_query_free(q);
}

TEST(move_along_surface_stays_on_mesh) {
  nm_query *q = new_query();
  nm_filter f;
  nm_polyref vis[64], s = ref_at(q, 3, 3);
  float a[3] = {3, 0, 3}, b[3] = {5, 0, 3}, r[3];
  int cnt;
  nm_filter_init(&f);
  CHECK(nm_query_move_along_surface(q, s, a, b, &f, r, vis, 64, &cnt) == NM_OK);
  CHECK(fabsf(r[0] - 4) < 1e-6f && fabsf(r[2] - 3) < 1e-6f && cnt == 1 && vis[0] == s);
  b[0] = 3;
  b[2] = 7.5f;
  CHECK(nm_query_move_along_surface(q, s, a, b, &f, r, vis, 64, &cnt) == NM_OK);
  CHECK(r[0] == 3 && r[2] == 7.5f && cnt == 3);
  CHECK(nm_query_move_along_surface(q, s, a, b, &f, r, vis, 2, &cnt) == NM_TRUNCATED && cnt == 2);
  CHECK(nm_query_move_along_surface(q, s, a, b, &f, r, vis, 0, &cnt) == NM_ERR_PARAM);
  nm_query_free(q);
}

TEST(frozen_mesh_refuses_setters) {
  nm_navmesh *m = make_level();
  nm_query *q = NULL;
  nm_polyref r;
  CHECK(m && nm_query_new(m, 64, NULL, &q) == NM_OK);
  r = ref_at(q, 1, 1);
  nm_navmesh_freeze(m);
  CHECK(nm_navmesh_set_poly_flags(m, r, 2) == NM_ERR_READONLY);
  CHECK(nm_navmesh_set_poly_area(m, r, 2) == NM_ERR_READONLY);
  nm_query_free(q);
  nm_navmesh_release(m);
}

/* ---- allocation failures ---- */

static int fail_after; /* allocations left before failing (-1: never) */

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (fail_after == 0) return NULL;
  if (fail_after > 0) fail_after--;
  return realloc(ptr, nsize);
}

TEST(allocation_failures) {
  nm_alloc a = {failing_alloc, NULL};
  nm_filter f;
  nm_polyref r;
  float p[3];
  int k, ok = 0, nomem = 0;
  nm_filter_init(&f);
  for (k = 0; k < 12; k++) { /* every allocation of query creation fails in turn */
    nm_query *q = NULL;
    nm_status st;
    fail_after = k;
    st = nm_query_new(g_mesh, 64, &a, &q);
    if (st == NM_OK) {
      /* then the random-point table's allocation fails, and later succeeds */
      fail_after = 0;
      nomem += nm_query_random_point(q, &f, &r, p) == NM_ERR_NOMEM;
      fail_after = -1;
      ok += nm_query_random_point(q, &f, &r, p) == NM_OK;
      nm_query_free(q);
    } else {
      CHECK(st == NM_ERR_NOMEM && q == NULL);
    }
  }
  fail_after = -1;
  CHECK(ok > 0 && nomem == ok);
}

int main(void) {
  g_mesh = make_level();
  RUN(level_builds);
  if (!g_mesh) return tap_done();
  RUN(raycast_hits_and_reaches);
  RUN(sliced_search_and_its_end);
  RUN(area_change_lookup);
  RUN(random_points_repeat_by_seed);
  RUN(distance_to_wall_and_segments);
  RUN(lists_truncate);
  RUN(move_along_surface_stays_on_mesh);
  RUN(frozen_mesh_refuses_setters);
  RUN(allocation_failures);
  nm_navmesh_release(g_mesh);
  return tap_done();
}
