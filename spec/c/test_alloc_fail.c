/* test_alloc_fail.c -- allocation-failure injection.
 *
 * A counting allocator (nm_alloc) fails the 1st, then the 2nd, ... then the
 * Nth allocation, one run each, until a run makes no more allocations than N.
 * For every operation: each run that met a failure returns NM_ERR_NOMEM,
 * the last run succeeds, and after cleanup no byte is live. Every free and
 * realloc is checked against the size the block was allocated with.
 * Queries must make no allocation at all (so they cannot fail this way).
 * Operations: tile creation, loading each format (MSET, NMSH, single tile,
 * and the shared RecastDemo files when ../shared is there), tile add/remove,
 * saving, query creation, and nm_obj_parse / nm_navmesh_build once the
 * library defines them (NM_TEST_HAVE_OBJ / NM_TEST_HAVE_BUILD, set by the
 * Makefile). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include "tap.h"
#include "fixture.h"

/* ---- the counting allocator ---- */

typedef struct counting {
  size_t live;        /* bytes allocated and not freed */
  long allocs;        /* allocations (and growing reallocs) so far */
  long fail_at;       /* fail this allocation (1-based); 0 = never */
  int failed;         /* a failure was injected */
  int bad_size;       /* frees/reallocs whose osize did not match */
} counting;

typedef struct block { size_t size; size_t pad; } block; /* 16-byte header */

/* Threaded builds allocate from worker threads: one lock around it all. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static void *count_locked(void *ud, void *ptr, size_t osize, size_t nsize);
static void *count_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  void *r;
  pthread_mutex_lock(&g_lock);
  r = count_locked(ud, ptr, osize, nsize);
  pthread_mutex_unlock(&g_lock);
  return r;
}

static void *count_locked(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting *c = (counting *)ud;
  block *b = ptr ? (block *)ptr - 1 : NULL;
  if (b && b->size != osize) c->bad_size++;
  if (nsize == 0) {
    if (b) { c->live -= b->size; free(b); }
    return NULL;
  }
  if (!b || nsize > osize) {
    c->allocs++;
    if (c->fail_at && c->allocs == c->fail_at) { c->failed = 1; return NULL; }
  }
  {
    block *nb = (block *)realloc(b, sizeof(block) + nsize);
    if (!nb) return NULL;
    c->live += nsize - (b ? nb->size : 0);
    nb->size = nsize;
    return nb + 1;
  }
}

static counting g_count;
static nm_alloc g_alloc = {count_fn, &g_count};

/* ---- inputs made once with the system allocator ---- */

static uint8_t *g_mset, *g_own, *g_tile;
static size_t g_mset_len, g_own_len, g_tile_len;

static void *dup_bytes(const void *p, size_t n) {
  void *c = malloc(n);
  memcpy(c, p, n);
  return c;
}

static void make_inputs(void) {
  nm_navmesh *m;
  void *b;
  size_t n;
  if (fz_fixture_mesh(&m) != NM_OK) abort();
  nm_navmesh_save(m, NM_FORMAT_MSET, &b, &n);
  g_mset = (uint8_t *)dup_bytes(b, g_mset_len = n);
  nm_free_bytes(m, b, n);
  nm_navmesh_save(m, NM_FORMAT_NATIVE, &b, &n);
  g_own = (uint8_t *)dup_bytes(b, g_own_len = n);
  nm_free_bytes(m, b, n);
  nm_navmesh_release(m);
  if (fz_fixture_tile(1, 1, &b, &n) != NM_OK) abort();
  g_tile = (uint8_t *)dup_bytes(b, g_tile_len = n);
  nm_tile_free(NULL, b, n);
}

/* ---- the driver ---- */

typedef nm_status (*alloc_op)(void *ctx);

/* Runs op with the 1st, 2nd, ... allocation failing; checks every run.
 * Returns the number of allocations of a full run (0 when a check failed). */
static long fail_each(const char *name, alloc_op op, void *ctx) {
  long n, nomem = 0, bad = 0;
  for (n = 1; n < 100000; n++) {
    nm_status st;
    memset(&g_count, 0, sizeof g_count);
    g_count.fail_at = n;
    st = op(ctx);
    if (g_count.live != 0 || g_count.bad_size) {
      printf("#   %s, allocation %ld failing: %lu bytes live after cleanup, %d size mismatches\n", name,
             n, (unsigned long)g_count.live, g_count.bad_size);
      bad++;
    }
    if (!g_count.failed) {
      if (st < 0) {
        printf("#   %s: full run failed with %s\n", name, nm_status_name(st));
        bad++;
      }
      break;
    }
    if (st != NM_ERR_NOMEM) {
      printf("#   %s, allocation %ld failing: got %s, want ERR_NOMEM\n", name, n, nm_status_name(st));
      bad++;
    } else {
      nomem++;
    }
  }
  printf("# %-22s %3ld allocations, each failed in turn: %ld runs ERR_NOMEM, %ld problems\n", name,
         n - 1, nomem, bad);
  CHECK(bad == 0);
  CHECK(nomem == n - 1);
  return bad ? 0 : n - 1;
}

/* ---- operations ---- */

static nm_status op_tile_create(void *ctx) {
  void *blob;
  size_t size;
  nm_status st = fz_fixture_tile_a(1, 1, &g_alloc, &blob, &size);
  (void)ctx;
  if (st >= 0) nm_tile_free(&g_alloc, blob, size);
  return st;
}

typedef struct bytes { const uint8_t *p; size_t n; } bytes;

static nm_status op_load(void *ctx) {
  const bytes *b = (const bytes *)ctx;
  nm_navmesh *m;
  nm_status st = nm_navmesh_load(b->p, b->n, &g_alloc, NULL, &m);
  if (st >= 0) nm_navmesh_release(m);
  return st;
}

/* Builds the fixture tile by tile, removes one keeping its bytes, adds it
 * back, saves in both formats. */
static nm_status op_edit_save(void *ctx) {
  nm_navmesh *m;
  void *data = NULL, *out;
  size_t size = 0, len;
  nm_status st;
  int fmt;
  (void)ctx;
  if ((st = fz_fixture_mesh_a(&g_alloc, &m)) < 0) return st;
  if ((st = nm_navmesh_remove_tile(m, 1, 1, 0, &data, &size)) >= 0) {
    st = nm_navmesh_add_tile(m, data, size, NULL, NULL);
    nm_free_bytes(m, data, size);
  }
  for (fmt = NM_FORMAT_MSET; st >= 0 && fmt <= NM_FORMAT_NATIVE; fmt++)
    if ((st = nm_navmesh_save(m, fmt, &out, &len)) >= 0) nm_free_bytes(m, out, len);
  nm_navmesh_release(m);
  return st;
}

static nm_status op_query_new(void *ctx) {
  nm_navmesh *m = (nm_navmesh *)ctx;
  nm_query *q;
  nm_status st = nm_query_new(m, 4096, &g_alloc, &q);
  if (st >= 0) nm_query_free(q);
  return st;
}

#ifdef NM_TEST_HAVE_OBJ
static nm_status op_obj(void *ctx) {
  static const char text[] =
      "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nvt 0 0\nvn 0 1 0\nf 1/1/1 2/1/1 3/1/1 4/1/1\nf -1 -2 -3\n";
  float *v;
  int *t, nv, nt;
  nm_status st = nm_obj_parse(text, sizeof text - 1, &g_alloc, NULL, &v, &nv, &t, &nt);
  (void)ctx;
  if (st >= 0) nm_obj_free(&g_alloc, v, nv, t, nt);
  return st;
}
#endif

#ifdef NM_TEST_HAVE_BUILD
/* A 20 x 20 floor with a block on it: ctx = {tile size (0: one tile), threads}. */
static nm_status op_build(void *ctx) {
  static const float v[] = {0, 0, 0, 20, 0, 0, 20, 0, 20, 0, 0, 20,
                            8, 0, 8, 12, 0, 8, 12, 0, 12, 8, 0, 12, 8, 3, 8, 12, 3, 8, 12, 3, 12, 8, 3, 12};
  static const int t[] = {0, 2, 1, 0, 3, 2, 8, 10, 9, 8, 11, 10, 4, 5, 9, 4, 9, 8,
                          5, 6, 10, 5, 10, 9, 6, 7, 11, 6, 11, 10, 7, 4, 8, 7, 8, 11};
  nm_build_config cfg;
  nm_navmesh *m;
  nm_status st;
  nm_build_config_init(&cfg);
  cfg.cell_size = 0.5f;
  cfg.tile_size = ((const int *)ctx)[0];
  cfg.threads = ((const int *)ctx)[1];
  st = nm_navmesh_build(v, 12, t, 12, &cfg, &g_alloc, NULL, &m, NULL);
  if (st >= 0) nm_navmesh_release(m);
  return st;
}
#endif

/* ---- tests ---- */

TEST(tile_create) { CHECK(fail_each("nm_tile_create", op_tile_create, NULL) > 0); }

TEST(load_each_format) {
  bytes b;
  b.p = g_mset; b.n = g_mset_len;
  CHECK(fail_each("load MSET", op_load, &b) > 0);
  b.p = g_own; b.n = g_own_len;
  CHECK(fail_each("load NMSH", op_load, &b) > 0);
  b.p = g_tile; b.n = g_tile_len;
  CHECK(fail_each("load single tile", op_load, &b) > 0);
}

/* The RecastDemo files in ../shared, when present. */
TEST(load_shared_files) {
  static const char *const names[] = {"dungeon_tiled", "nav_test_solo", "undulating_tiled"};
  const char *dir = getenv("NAVMESH_SHARED");
  int i;
  for (i = 0; i < 3; i++) {
    char path[512];
    FILE *f;
    bytes b;
    uint8_t *buf;
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", dir ? dir : "../shared", names[i]);
    if (!(f = fopen(path, "rb"))) {
      printf("# SKIP %s: not found (reference data lives beside the project)\n", path);
      continue;
    }
    buf = (uint8_t *)malloc(1 << 20);
    b.n = fread(buf, 1, 1 << 20, f);
    b.p = buf;
    fclose(f);
    CHECK(fail_each(names[i], op_load, &b) > 0);
    free(buf);
  }
}

TEST(edit_and_save) { CHECK(fail_each("add/remove tile, save", op_edit_save, NULL) > 0); }

/* Query creation fails cleanly; queries themselves allocate nothing. */
TEST(queries) {
  nm_navmesh *m;
  nm_query *q;
  nm_filter f;
  nm_polyref a = 0, b = 0, path[64], refs[32];
  float s[3] = {2, 0.2f, 2}, e[3] = {21, 1.5f, 22}, ext[3] = {2, 4, 2}, pa[3], pb[3], pts[32 * 3], h;
  uint8_t flags[32];
  nm_straight_opts o;
  int n = 0, np = 0, over;
  long before;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  CHECK(fail_each("nm_query_new", op_query_new, m) > 0);
  memset(&g_count, 0, sizeof g_count);
  CHECK(nm_query_new(m, 4096, &g_alloc, &q) == NM_OK);
  before = g_count.allocs;
  g_count.fail_at = before + 1; /* any allocation from here on fails */
  nm_filter_init(&f);
  CHECK(nm_query_find_nearest(q, s, ext, &f, &a, pa, &over) == NM_OK);
  CHECK(nm_query_find_nearest(q, e, ext, &f, &b, pb, &over) == NM_OK);
  CHECK(nm_query_find_path(q, a, b, pa, pb, &f, path, 64, &np) >= 0 && np > 1);
  o.crossings = NM_CROSSINGS_ALL;
  o.inset = 0.3f;
  CHECK(nm_query_straight_path(q, pa, pb, path, np, &o, pts, flags, refs, 32, &n) >= 0 && n >= 2);
  CHECK(nm_query_closest_point(q, a, e, pts, &over) == NM_OK);
  CHECK(nm_query_closest_point_boundary(q, a, e, pts) == NM_OK);
  CHECK(nm_query_poly_height(q, a, pa, &h) == NM_OK);
  printf("# queries (nearest, path of %d, straight of %d, closest, boundary, height): %ld allocations\n",
         np, n, g_count.allocs - before);
  CHECK(g_count.allocs == before && !g_count.failed);
  nm_query_free(q);
  CHECK(g_count.live == 0);
  nm_navmesh_release(m);
}

#ifdef NM_TEST_HAVE_OBJ
TEST(obj_parse) { CHECK(fail_each("nm_obj_parse", op_obj, NULL) > 0); }
#endif
#ifdef NM_TEST_HAVE_BUILD
TEST(build) {
  int solo[2] = {0, 1}, tiled[2] = {16, 1}, threads[2] = {16, 2};
  CHECK(fail_each("nm_navmesh_build solo", op_build, solo) > 0);
  CHECK(fail_each("nm_navmesh_build tiled", op_build, tiled) > 0);
  CHECK(fail_each("build tiled, 2 threads", op_build, threads) > 0);
}
#endif

int main(void) {
  make_inputs();
  RUN(tile_create);
  RUN(load_each_format);
  RUN(load_shared_files);
  RUN(edit_and_save);
  RUN(queries);
#ifdef NM_TEST_HAVE_OBJ
  RUN(obj_parse);
#else
  printf("# SKIP obj_parse: the library does not define nm_obj_parse yet\n");
#endif
#ifdef NM_TEST_HAVE_BUILD
  RUN(build);
#else
  printf("# SKIP build: the library does not define nm_navmesh_build yet\n");
#endif
  free(g_mset);
  free(g_own);
  free(g_tile);
  return tap_done();
}
