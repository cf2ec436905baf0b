/* test_route.c -- nm_query_path against the step-by-step chain it stands
 * for (nearest polygon of each end, corridor, closest point on the last
 * polygon, straight path; or the optimal search's points), bit for bit, for
 * every option mesh:path has (inset, crossings, optimal, reachableOnly, a
 * point cap), on the procedural fixture mesh (fixture.h) and, when
 * ../shared is there (or $NAVMESH_SHARED), on RecastDemo navmeshes. Also:
 * which end had no polygon, argument errors, and allocation failures
 * (ERR_NOMEM, nothing leaks, every size named right). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "tap.h"
#include "fixture.h"
#include "track_alloc.h"

#define NODES 2048
#define BIG (1 << 16)

/* Buffers of the reference chain. */
static nm_polyref g_corr[BIG], g_refs[BIG];
static float g_pts[3 * BIG];
static uint8_t g_flags[BIG];

/* What the chain and nm_query_path both give. */
typedef struct answer {
  nm_status st;         /* failure, or the PARTIAL | FALLBACK bits */
  int n;
  const float *pts;
} answer;

/* The chain, step by step with the public functions, as the Lua binding
 * ran it before nm_query_path. */
static answer chain(nm_query *q, const float *sp, const float *ep, const nm_path_opts *o) {
  answer a = {NM_ERR_NO_POLY, 0, g_pts};
  nm_polyref s, e;
  float ns[3], ne[3], end[3];
  nm_status st;
  int n = 0, cap;
  if (nm_query_find_nearest(q, sp, o->half_ext, o->filter, &s, ns, NULL) < 0) return a;
  if (nm_query_find_nearest(q, ep, o->half_ext, o->filter, &e, ne, NULL) < 0) return a;
  a.st = NM_ERR_NO_PATH;
  if (o->reachable_only && !nm_navmesh_is_reachable(nm_query_mesh(q), s, e)) return a;
  if (o->optimal && o->straight.inset == 0 && o->straight.crossings == NM_CROSSINGS_NONE) {
    cap = o->max_points < BIG ? o->max_points : BIG;
    st = nm_query_path_optimal(q, s, e, ns, ne, o->filter, g_pts, g_refs, cap, &a.n);
    if (st >= 0) a.st = st & (NM_PARTIAL | NM_FALLBACK);
    return a;
  }
  st = o->optimal ? nm_query_find_path_optimal(q, s, e, ns, ne, o->filter, g_corr, BIG, &n)
                  : nm_query_find_path(q, s, e, ns, ne, o->filter, g_corr, NODES, &n);
  if (st < 0 || n == 0) return a;
  memcpy(end, ne, sizeof end);
  if (g_corr[n - 1] != e) nm_query_closest_point(q, g_corr[n - 1], ne, end, NULL);
  cap = 2 * n + 2 < o->max_points ? 2 * n + 2 : o->max_points;
  if (nm_query_straight_path(q, ns, end, g_corr, n, &o->straight, g_pts, g_flags, g_refs, cap, &a.n) < 0) return a;
  if (o->optimal) nm_query_surface_heights(q, g_pts, g_refs, a.n, g_corr[n - 1]);
  a.st = st & (NM_PARTIAL | NM_FALLBACK);
  return a;
}

/* The option sets mesh:path offers, in turn. */
static int option_set(int k, const nm_filter *f, nm_path_opts *o) {
  nm_path_opts_init(o);
  o->filter = f;
  switch (k) {
  case 0: return 1;                                                   /* defaults */
  case 1: o->straight.inset = 0.4f; return 1;                         /* inset */
  case 2: o->straight.crossings = NM_CROSSINGS_ALL; return 1;         /* crossings */
  case 3: o->straight.crossings = NM_CROSSINGS_AREA; o->max_points = 3; return 1;
  case 4: o->optimal = 1; return 1;                                   /* optimal points */
  case 5: o->optimal = 1; o->straight.inset = 0.25f; return 1;        /* optimal corridor */
  case 6: o->optimal = 1; o->max_points = 2; return 1;
  case 7: o->reachable_only = 1; o->half_ext[1] = 1; return 1;
  default: return 0;
  }
}

/* The two ends of pair i: points in the box [lo, hi] (a fixed LCG: the
 * same every run), or with `on_mesh` random points of the mesh (the
 * query's generator, seeded) moved up to 0.5 wu off in X/Z. */
static void pick_ends(nm_query *q, const nm_filter *f, const float lo[3], const float hi[3], int on_mesh,
                      unsigned *rng, float sp[3], float ep[3]) {
  int d;
  for (d = 0; d < 6; d++) {
    float *v = d < 3 ? sp : ep, r;
    *rng = *rng * 1664525u + 1013904223u;
    r = (float)(*rng >> 8) / 16777216.0f;
    if (!on_mesh) v[d % 3] = lo[d % 3] + (hi[d % 3] - lo[d % 3]) * r;
    else if (d % 3 == 0) {
      nm_polyref ref;
      nm_query_random_point(q, f, &ref, v);
      v[0] += r - 0.5f;
    } else if (d % 3 == 2) v[2] += r - 0.5f;
  }
}

/* n query pairs (pick_ends): nm_query_path equals the chain for every
 * option set. Returns the number of pairs that found a path. */
static int compare_on(nm_navmesh *m, const float lo[3], const float hi[3], int on_mesh, int pairs, int *bad) {
  nm_query *q;
  nm_filter f;
  nm_path p;
  unsigned rng = 12345u;
  int i, k, found = 0;
  if (nm_query_new(m, NODES, NULL, &q) < 0) return -1;
  nm_query_seed(q, 7);
  nm_filter_init(&f);
  nm_path_init(&p, NULL);
  for (i = 0; i < pairs; i++) {
    float sp[3], ep[3];
    nm_path_opts o;
    pick_ends(q, &f, lo, hi, on_mesh, &rng, sp, ep);
    for (k = 0; option_set(k, &f, &o); k++) {
      answer a = chain(q, sp, ep, &o);
      nm_status st = nm_query_path(q, sp, ep, &o, &p);
      int same = st < 0 ? st == a.st : a.st >= 0 && (st & (NM_PARTIAL | NM_FALLBACK)) == a.st && p.npoints == a.n &&
                                           memcmp(p.points, a.pts, (size_t)a.n * 3 * sizeof(float)) == 0;
      if (!same) {
        if (*bad < 5)
          printf("# pair %d, options %d: nm_query_path %d (%d points), chain %d (%d points)\n", i, k, st,
                 p.npoints, a.st, a.n);
        ++*bad;
      }
      if (k == 0 && st >= 0) found++;
    }
  }
  nm_path_free(&p);
  nm_query_free(q);
  return found;
}

TEST(equals_the_chain_on_the_fixture) {
  nm_navmesh *m;
  const float lo[3] = {-1, -1, -1}, hi[3] = {FZ_TILE * FZ_GRID + 1, 2, FZ_TILE * FZ_GRID + 1};
  int bad = 0, found;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  if (!m) return;
  found = compare_on(m, lo, hi, 0, 300, &bad);
  printf("# fixture: 300 pairs x 8 option sets, %d pairs with a path, %d differences\n", found, bad);
  CHECK(found > 100);
  CHECK(bad == 0);
  nm_navmesh_release(m);
}

/* A navmesh file of ../shared, or NULL (SKIP printed). */
static nm_navmesh *load_shared(const char *name) {
  const char *dir = getenv("NAVMESH_SHARED");
  char path[512];
  FILE *f;
  long len;
  void *buf;
  nm_navmesh *m = NULL;
  snprintf(path, sizeof path, "%s/navmeshes/%s.bin", dir ? dir : "../shared", name);
  if (!(f = fopen(path, "rb"))) {
    printf("# SKIP %s: not found (reference data lives beside the project)\n", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)len);
  if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) nm_navmesh_load(buf, (size_t)len, NULL, NULL, &m);
  fclose(f);
  free(buf);
  return m;
}

TEST(equals_the_chain_on_shared_meshes) {
  static const char *const names[] = {"dungeon_tiled", "nav_test_solo"};
  int i;
  for (i = 0; i < 2; i++) {
    nm_navmesh *m = load_shared(names[i]);
    nm_navmesh_info info;
    int bad = 0, found;
    if (!m) continue;
    nm_navmesh_get_info(m, &info);
    found = compare_on(m, info.bmin, info.bmax, 1, 150, &bad);
    printf("# %s: 150 pairs x 8 option sets, %d pairs with a path, %d differences\n", names[i], found, bad);
    CHECK(found > 100);
    CHECK(bad == 0);
    nm_navmesh_release(m);
  }
}

TEST(failures_say_which_end) {
  nm_navmesh *m;
  nm_query *q;
  nm_path_opts o;
  nm_path p;
  const float on[3] = {4, 0.3f, 4}, off[3] = {500, 0, 500};
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  if (!m) return;
  CHECK(nm_query_new(m, NODES, NULL, &q) == NM_OK);
  nm_path_opts_init(&o);
  nm_path_init(&p, NULL);
  CHECK(nm_query_path(q, off, on, &o, &p) == NM_ERR_NO_POLY);
  CHECK(p.failed_end == 0 && p.npoints == 0);
  CHECK(nm_query_path(q, on, off, &o, &p) == NM_ERR_NO_POLY);
  CHECK(p.failed_end == 1 && p.npoints == 0 && p.start_ref != 0);
  CHECK(nm_query_path(q, on, on, &o, &p) == NM_OK);
  CHECK(p.npoints == 1 && p.ncorridor == 1 && p.start_ref == p.end_ref); /* one point: start is end */
  CHECK(nm_query_path(NULL, on, on, &o, &p) == NM_ERR_PARAM);
  CHECK(nm_query_path(q, on, on, NULL, &p) == NM_ERR_PARAM);
  CHECK(nm_query_path(q, on, on, &o, NULL) == NM_ERR_PARAM);
  o.max_points = 0;
  CHECK(nm_query_path(q, on, on, &o, &p) == NM_ERR_PARAM);
  CHECK(nm_path_reserve(NULL, 1, 1) == NM_ERR_PARAM);
  nm_path_free(&p);
  nm_query_free(q);
  nm_navmesh_release(m);
}

/* Every allocation the path's buffers make fails in turn: ERR_NOMEM, the
 * buffers stay consistent (a later call succeeds), nothing leaks. */
TEST(allocation_failures) {
  nm_navmesh *m;
  nm_query *q;
  nm_path_opts o;
  const float sp[3] = {1, 0.1f, 1}, ep[3] = {22, 1, 22};
  track t;
  nm_alloc a;
  int k, failures = 0, opt;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  if (!m) return;
  CHECK(nm_query_new(m, NODES, NULL, &q) == NM_OK);
  a.fn = track_fn;
  a.ud = &t;
  for (opt = 0; opt < 2; opt++)
    for (k = 1; k < 8; k++) {
      nm_path p;
      nm_status st;
      memset(&t, 0, sizeof t);
      t.fail_at = k;
      nm_path_opts_init(&o);
      o.optimal = opt;
      o.straight.inset = 0.1f;
      nm_path_init(&p, &a);
      st = nm_query_path(q, sp, ep, &o, &p);
      if (st == NM_ERR_NOMEM) failures++;
      else CHECK(st >= 0);
      t.fail_at = 0;
      CHECK(nm_query_path(q, sp, ep, &o, &p) >= 0 && p.npoints >= 2);
      nm_path_free(&p);
      CHECK(t.live == 0 && t.bad_sizes == 0);
    }
  printf("# %d failed allocations gave ERR_NOMEM\n", failures);
  CHECK(failures >= 2);
  nm_query_free(q);
  nm_navmesh_release(m);
}

int main(void) {
  RUN(equals_the_chain_on_the_fixture);
  RUN(equals_the_chain_on_shared_meshes);
  RUN(failures_say_which_end);
  RUN(allocation_failures);
  return tap_done();
}
