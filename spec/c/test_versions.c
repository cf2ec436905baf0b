/* test_versions.c -- versions of a navmesh (copy-on-write tiles).
 *
 * Every version is checked against a model: an ordinary mutable mesh given
 * the same changes (remove tile, add tile at its old references, set
 * flags/area). A version must save to the same bytes as its model, links
 * and their order included, and keep those bytes while newer versions are
 * made; unchanged tiles must be shared (same blob) between versions and
 * changed ones not; memory must come back to zero whatever the order of
 * releases; allocation failure at every point of version_new, edit and of
 * each change in a draft must leave the draft as it was and leak nothing.
 * Uses the fixture mesh (3 x 3 tiles, off-mesh links across a border) and,
 * when ../shared is there, city_tiled.bin. */
#include <stdlib.h>
#include "tap.h"
#include "fixture.h"
#include "track_alloc.h"

static track g_track;
static const nm_alloc g_alloc = {track_fn, &g_track};

/* ---- helpers ---- */

typedef struct image { void *p; size_t n; } image;

static image save(const nm_navmesh *m) {
  image im = {NULL, 0};
  void *b;
  size_t n;
  if (nm_navmesh_save(m, NM_FORMAT_NATIVE, &b, &n) == NM_OK) {
    im.p = malloc(n);
    memcpy(im.p, b, n);
    im.n = n;
    nm_free_bytes(m, b, n);
  }
  return im;
}
static int same(image a, const nm_navmesh *m) {
  image b = save(m);
  int eq = a.p && b.p && a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
  free(b.p);
  return eq;
}

/* One change, applied the same way to a draft and to the model. */
typedef struct change { int kind, tx, ty; uint16_t value; } change;
enum { CH_REMOVE_ADD = 0, CH_FLAGS = 1, CH_AREA = 2, CH_REMOVE = 3, CH_ADD = 4 };

/* Applies c to m; *blob keeps removed tiles' bytes per cell for CH_ADD. */
static nm_status apply(nm_navmesh *m, const change *c, void *blobs[16], size_t sizes[16],
                       nm_polyref refs[16]) {
  const int cell = c->ty * 4 + c->tx;
  nm_polyref ref = nm_navmesh_tile_ref_at(m, c->tx, c->ty, 0);
  nm_status st = NM_OK;
  if (c->kind == CH_FLAGS || c->kind == CH_AREA) {
    if (!ref) return NM_OK;
    return c->kind == CH_FLAGS ? nm_navmesh_set_poly_flags(m, ref | 1, c->value)
                               : nm_navmesh_set_poly_area(m, ref | 1, (uint8_t)(c->value % 60));
  }
  if ((c->kind == CH_REMOVE || c->kind == CH_REMOVE_ADD) && ref) {
    void *b;
    size_t n;
    if ((st = nm_navmesh_remove_tile(m, c->tx, c->ty, 0, &b, &n)) < 0) return st;
    if (blobs[cell]) free(blobs[cell]);
    blobs[cell] = malloc(n);
    memcpy(blobs[cell], b, n);
    sizes[cell] = n;
    refs[cell] = ref;
    nm_free_bytes(m, b, n);
  }
  if ((c->kind == CH_ADD || c->kind == CH_REMOVE_ADD) && blobs[cell] &&
      !nm_navmesh_tile_ref_at(m, c->tx, c->ty, 0))
    st = nm_navmesh_add_tile_ref(m, blobs[cell], sizes[cell], c->kind == CH_ADD ? 0 : refs[cell], NULL, NULL);
  return st;
}

/* A deterministic sequence of changes over the 3 x 3 fixture. */
static change next_change(uint32_t *seed) {
  change c;
  *seed = *seed * 1664525u + 1013904223u;
  c.kind = (int)((*seed >> 8) % 5);
  c.tx = (int)((*seed >> 12) % 3);
  c.ty = (int)((*seed >> 16) % 3);
  c.value = (uint16_t)((*seed >> 20) & 0xff);
  return c;
}

/* ---- tests ---- */

TEST(first_version_equals_its_mesh) {
  nm_navmesh *m = NULL, *v = NULL, *latest;
  image im;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  im = save(m);
  memset(&g_track, 0, sizeof g_track);
  CHECK(nm_navmesh_version_new(m, &g_alloc, &v) == NM_OK);
  CHECK(v && nm_navmesh_is_frozen(v) && nm_navmesh_version_number(v) == 1);
  CHECK(nm_navmesh_version_number(m) == 0);
  CHECK(same(im, v));
  CHECK(nm_navmesh_remove_tile(v, 1, 1, 0, NULL, NULL) == NM_ERR_READONLY);
  CHECK(nm_navmesh_set_poly_flags(v, nm_navmesh_tile_ref_at(v, 0, 0, 0), 2) == NM_ERR_READONLY);
  CHECK(nm_navmesh_freeze(v) == NM_OK); /* nothing to do */
  latest = nm_navmesh_version_latest(v);
  CHECK(latest == v);
  nm_navmesh_release(latest);
  nm_navmesh_release(v);
  CHECK(g_track.live == 0 && g_track.bad_sizes == 0);
  CHECK(nm_navmesh_version_new(NULL, NULL, &v) == NM_ERR_PARAM && v == NULL);
  CHECK(nm_navmesh_version_edit(m, &v) == NM_ERR_PARAM && v == NULL); /* not a version */
  CHECK(nm_navmesh_version_commit(m) == NM_ERR_PARAM);
  latest = nm_navmesh_version_latest(m);
  CHECK(latest == m);
  nm_navmesh_release(latest);
  free(im.p);
  nm_navmesh_release(m);
}

/* Forty versions, each one change away from the last, against the model;
 * every version kept alive and checked again at the end. */
TEST(versions_follow_the_model) {
  enum { N = 40 };
  nm_navmesh *model = NULL, *first = NULL, *v[N + 1];
  image im[N + 1];
  void *mb[16] = {0}, *db[16] = {0};
  size_t ms[16], ds[16];
  nm_polyref mr[16], dr[16];
  uint32_t seed = 12345;
  int i, ok = 1, fresh = 1;
  CHECK(fz_fixture_mesh(&first) == NM_OK);
  CHECK(nm_navmesh_copy(first, NULL, &model) == NM_OK);
  memset(&g_track, 0, sizeof g_track);
  CHECK(nm_navmesh_version_new(first, &g_alloc, &v[0]) == NM_OK);
  im[0] = save(v[0]);
  for (i = 1; i <= N; i++) {
    change c = next_change(&seed);
    nm_navmesh *d = NULL;
    nm_status sm = apply(model, &c, mb, ms, mr), sd;
    ok &= nm_navmesh_version_edit(v[i - 1], &d) == NM_OK;
    sd = apply(d, &c, db, ds, dr);
    ok &= sm == sd && nm_navmesh_version_commit(d) == NM_OK;
    v[i] = d;
    im[i] = save(model);
    ok &= same(im[i], v[i]);
    ok &= nm_navmesh_version_number(v[i]) > nm_navmesh_version_number(v[i - 1]);
    fresh &= nm_navmesh_version_edit(v[i - 1], &d) == NM_ERR_STALE && d == NULL;
  }
  CHECK(ok);
  CHECK(fresh);
  for (i = 0; i <= N; i++) CHECK(same(im[i], v[i])); /* old versions untouched */
  for (i = 0; i <= N; i++) {
    nm_navmesh *l = nm_navmesh_version_latest(v[i]);
    CHECK(l == v[N]);
    nm_navmesh_release(l);
  }
  /* release in a scrambled order; all memory must come back */
  for (i = 0; i <= N; i++) nm_navmesh_release(v[(i * 17) % (N + 1)]);
  CHECK(g_track.live == 0 && g_track.bad_sizes == 0);
  for (i = 0; i <= N; i++) free(im[i].p);
  for (i = 0; i < 16; i++) {
    free(mb[i]);
    free(db[i]);
  }
  nm_navmesh_release(model);
  nm_navmesh_release(first);
}

/* Unchanged tiles share their blob with the previous version; the changed
 * tile and the neighbours whose links change get their own. */
TEST(unchanged_tiles_are_shared) {
  nm_navmesh *m = NULL, *v1 = NULL, *d = NULL;
  void *b = NULL;
  size_t n = 0;
  nm_polyref ref;
  int tx, ty, shared = 0, own = 0;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  CHECK(nm_navmesh_version_new(m, NULL, &v1) == NM_OK);
  CHECK(nm_navmesh_version_edit(v1, &d) == NM_OK);
  ref = nm_navmesh_tile_ref_at(d, 0, 0, 0);
  CHECK(nm_navmesh_remove_tile(d, 0, 0, 0, &b, &n) == NM_OK);
  CHECK(nm_navmesh_add_tile_ref(d, b, n, ref, NULL, NULL) == NM_OK);
  nm_free_bytes(d, b, n);
  CHECK(nm_navmesh_version_commit(d) == NM_OK);
  CHECK(nm_navmesh_tile_ref_at(d, 0, 0, 0) == ref); /* old references back */
  for (ty = 0; ty < 3; ty++)
    for (tx = 0; tx < 3; tx++) {
      const void *p1, *p2;
      size_t n1, n2;
      CHECK(nm_navmesh_get_tile(v1, tx, ty, 0, &p1, &n1) == NM_OK);
      CHECK(nm_navmesh_get_tile(d, tx, ty, 0, &p2, &n2) == NM_OK);
      if (p1 == p2) shared++;
      else own++;
      if (tx > 1 || ty > 1) CHECK(p1 == p2); /* not next to (0, 0) */
    }
  CHECK(own >= 2 && own <= 4 && shared == 9 - own);
  printf("# one tile replaced: %d blobs of the 9 shared with version 1\n", shared);
  nm_navmesh_release(v1);
  nm_navmesh_release(d);
  nm_navmesh_release(m);
}

TEST(one_draft_at_a_time) {
  nm_navmesh *m = NULL, *v1 = NULL, *d = NULL, *d2 = NULL;
  image im;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  memset(&g_track, 0, sizeof g_track);
  CHECK(nm_navmesh_version_new(m, &g_alloc, &v1) == NM_OK);
  im = save(v1);
  CHECK(nm_navmesh_version_edit(v1, &d) == NM_OK);
  CHECK(!nm_navmesh_is_frozen(d) && nm_navmesh_version_number(d) > 1);
  CHECK(nm_navmesh_version_edit(v1, &d2) == NM_ERR_STATE && d2 == NULL);
  CHECK(nm_navmesh_version_commit(v1) == NM_ERR_PARAM);
  CHECK(nm_navmesh_remove_tile(d, 1, 1, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_set_poly_flags(d, nm_navmesh_tile_ref_at(d, 2, 2, 0), 9) == NM_OK);
  nm_navmesh_release(d); /* dropped unpublished */
  CHECK(same(im, v1));
  CHECK(nm_navmesh_version_edit(v1, &d) == NM_OK); /* a draft again */
  nm_navmesh_release(v1); /* the draft keeps it alive */
  CHECK(same(im, d));
  nm_navmesh_release(d);
  CHECK(g_track.live == 0 && g_track.bad_sizes == 0);
  free(im.p);
  nm_navmesh_release(m);
}

/* Island labels of versions are made by the first reader; they equal the
 * model's. A query moved onto a new version answers as a new query. */
TEST(islands_and_queries_on_versions) {
  nm_navmesh *m = NULL, *v1 = NULL, *d = NULL;
  nm_query *q = NULL, *q2 = NULL;
  nm_filter f;
  float s[3] = {2, 0.2f, 2}, e[3] = {21, 1.5f, 22}, ext[3] = {2, 4, 2}, pa[3], pb[3];
  nm_polyref a = 0, b = 0, p1[64], p2[64];
  int n1 = 0, n2 = 0, i;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  CHECK(nm_navmesh_version_new(m, NULL, &v1) == NM_OK);
  CHECK(nm_navmesh_island_count(v1) == nm_navmesh_island_count(m));
  CHECK(nm_navmesh_version_edit(v1, &d) == NM_OK);
  CHECK(nm_navmesh_remove_tile(d, 1, 0, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_remove_tile(d, 1, 1, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_remove_tile(d, 1, 2, 0, NULL, NULL) == NM_OK); /* the middle column */
  CHECK(nm_navmesh_version_commit(d) == NM_OK);
  CHECK(nm_navmesh_remove_tile(m, 1, 0, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_remove_tile(m, 1, 1, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_remove_tile(m, 1, 2, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_island_count(d) == nm_navmesh_island_count(m) && nm_navmesh_island_count(d) >= 2);
  nm_filter_init(&f);
  CHECK(nm_query_new(v1, 256, NULL, &q) == NM_OK);
  CHECK(nm_query_find_nearest(q, s, ext, &f, &a, pa, NULL) == NM_OK);
  CHECK(nm_query_find_nearest(q, e, ext, &f, &b, pb, NULL) == NM_OK);
  CHECK(nm_query_find_path(q, a, b, pa, pb, &f, p1, 64, &n1) == NM_OK); /* across the column */
  CHECK(nm_navmesh_is_reachable(v1, a, b));
  CHECK(!nm_navmesh_is_reachable(d, a, b));
  CHECK(nm_navmesh_island(d, a) == nm_navmesh_island(m, a));
  CHECK(nm_query_set_mesh(q, d) == NM_OK && nm_query_mesh(q) == d);
  CHECK(nm_query_new(d, 256, NULL, &q2) == NM_OK);
  CHECK(nm_query_find_path(q, a, b, pa, pb, &f, p1, 64, &n1) == NM_PARTIAL);
  CHECK(nm_query_find_path(q2, a, b, pa, pb, &f, p2, 64, &n2) == NM_PARTIAL);
  CHECK(n1 == n2);
  for (i = 0; i < n1 && i < n2; i++) CHECK(p1[i] == p2[i]);
  CHECK(nm_query_set_mesh(q, NULL) == NM_ERR_PARAM);
  nm_query_free(q);
  nm_query_free(q2);
  nm_navmesh_release(v1);
  nm_navmesh_release(d);
  nm_navmesh_release(m);
}

/* Releasing the latest version makes the newest live one the latest
 * again: its blobs stay, those made after it are freed. */
TEST(releasing_the_tip_rewinds) {
  nm_navmesh *m = NULL, *v1 = NULL, *v2 = NULL, *v3 = NULL, *l, *d = NULL;
  image i1, i2;
  long live2;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  memset(&g_track, 0, sizeof g_track);
  CHECK(nm_navmesh_version_new(m, &g_alloc, &v1) == NM_OK);
  CHECK(nm_navmesh_version_edit(v1, &v2) == NM_OK);
  CHECK(nm_navmesh_remove_tile(v2, 0, 0, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_version_commit(v2) == NM_OK);
  live2 = g_track.live;
  CHECK(nm_navmesh_version_edit(v2, &v3) == NM_OK);
  CHECK(nm_navmesh_remove_tile(v3, 2, 2, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_set_poly_flags(v3, nm_navmesh_tile_ref_at(v3, 1, 0, 0), 7) == NM_OK);
  CHECK(nm_navmesh_version_commit(v3) == NM_OK);
  i1 = save(v1);
  i2 = save(v2);
  CHECK(g_track.live > live2);
  nm_navmesh_release(v3);
  CHECK(g_track.live == live2); /* what v3 made is gone, nothing else */
  l = nm_navmesh_version_latest(v1);
  CHECK(l == v2);
  nm_navmesh_release(l);
  CHECK(nm_navmesh_version_edit(v1, &d) == NM_ERR_STALE);
  CHECK(nm_navmesh_version_edit(v2, &d) == NM_OK);
  CHECK(nm_navmesh_remove_tile(d, 1, 1, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_version_commit(d) == NM_OK);
  nm_navmesh_release(v2); /* not the tip: nothing of d's may go */
  CHECK(same(i1, v1));
  CHECK(nm_navmesh_get_tile(d, 0, 0, 0, (const void **)&l, &i2.n) == NM_ERR_PARAM);
  nm_navmesh_release(d);
  nm_navmesh_release(v1);
  CHECK(g_track.live == 0 && g_track.bad_sizes == 0);
  free(i1.p);
  free(i2.p);
  nm_navmesh_release(m);
}

/* ---- allocation failure ---- */

/* Runs op with the 1st, 2nd, ... allocation failing until one run makes
 * no failing allocation. Each failing run: ERR_NOMEM, *before unchanged
 * (when given), nothing live past `base` bytes. */
typedef nm_status (*draft_op)(nm_navmesh *d);

static nm_status op_remove(nm_navmesh *d) {
  void *b;
  size_t n;
  nm_status st = nm_navmesh_remove_tile(d, 1, 1, 0, &b, &n);
  if (st >= 0) nm_free_bytes(d, b, n);
  return st;
}
static nm_status op_remove_add(nm_navmesh *d) {
  nm_polyref ref = nm_navmesh_tile_ref_at(d, 2, 1, 0);
  void *b;
  size_t n;
  nm_status st = nm_navmesh_remove_tile(d, 2, 1, 0, &b, &n);
  if (st < 0) return st;
  /* the removal stays if the add fails: compare against that state */
  st = nm_navmesh_add_tile_ref(d, b, n, ref, NULL, NULL);
  nm_free_bytes(d, b, n);
  return st;
}
static nm_status op_flags(nm_navmesh *d) {
  return nm_navmesh_set_poly_flags(d, nm_navmesh_tile_ref_at(d, 0, 2, 0) | 1, 0x40);
}

/* Fails each allocation of op on a fresh draft of v in turn. */
static void fail_each_on_draft(const char *name, nm_navmesh *v, draft_op op) {
  long k, nomem = 0, bad = 0;
  for (k = 1; k < 10000; k++) {
    nm_navmesh *d = NULL, *cur = nm_navmesh_version_latest(v);
    image before;
    nm_status st;
    g_track.fail_at = 0;
    st = nm_navmesh_version_edit(cur, &d);
    nm_navmesh_release(cur); /* the draft holds it */
    if (st != NM_OK) { printf("#   edit: %s\n", nm_status_name(st)); bad++; break; }
    before = save(d);
    g_track.allocs = 0;
    g_track.failed = 0;
    g_track.fail_at = k;
    st = op(d);
    g_track.fail_at = 0;
    if (!g_track.failed) {
      if (st < 0) bad++;
      free(before.p);
      nm_navmesh_release(d);
      break;
    }
    if (st == NM_ERR_NOMEM) nomem++;
    else bad++;
    if (op != op_remove_add) {
      if (!same(before, d)) bad++;
      if (nm_navmesh_version_commit(d) != NM_OK) bad++; /* a failed change can still be published */
    }
    free(before.p);
    nm_navmesh_release(d);
  }
  printf("# %-14s %ld allocations failed in turn, %ld problems\n", name, k - 1, bad);
  CHECK(bad == 0 && nomem == k - 1 && k > 1);
}

TEST(allocation_failure_in_drafts) {
  nm_navmesh *m = NULL, *v = NULL, *l;
  long k, bad = 0, n = 0;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  memset(&g_track, 0, sizeof g_track);
  for (k = 1;; k++) { /* version_new */
    nm_status st;
    g_track.allocs = 0;
    g_track.failed = 0;
    g_track.fail_at = k;
    st = nm_navmesh_version_new(m, &g_alloc, &v);
    g_track.fail_at = 0;
    if (!g_track.failed) break;
    n++;
    if (st != NM_ERR_NOMEM || v != NULL || g_track.live != 0) bad++;
  }
  printf("# version_new    %ld allocations failed in turn, %ld problems\n", n, bad);
  CHECK(bad == 0 && n >= 3 && v != NULL);
  for (k = 1;; k++) { /* edit */
    nm_navmesh *d = (nm_navmesh *)&bad;
    long live = g_track.live;
    nm_status st;
    g_track.allocs = 0;
    g_track.failed = 0;
    g_track.fail_at = k;
    st = nm_navmesh_version_edit(v, &d);
    g_track.fail_at = 0;
    if (!g_track.failed) {
      nm_navmesh_release(d);
      break;
    }
    CHECK(st == NM_ERR_NOMEM && d == NULL && g_track.live == live);
  }
  fail_each_on_draft("remove tile", v, op_remove);
  fail_each_on_draft("remove + add", v, op_remove_add);
  fail_each_on_draft("set flags", v, op_flags);
  l = nm_navmesh_version_latest(v);
  CHECK(l == v); /* the failed drafts were published, then released: v is the latest again */
  nm_navmesh_release(l);
  nm_navmesh_release(v);
  CHECK(g_track.live == 0 && g_track.bad_sizes == 0);
  nm_navmesh_release(m);
}

/* ---- a big mesh ---- */

TEST(city_one_tile) {
  const char *dir = getenv("NAVMESH_SHARED");
  char path[512];
  FILE *f;
  static uint8_t buf[4 << 20];
  size_t len;
  nm_navmesh *m = NULL, *v1 = NULL, *d = NULL, *model = NULL;
  nm_tile_info tiles[2048];
  int ntiles = 0, i, shared = 0;
  void *b;
  size_t n;
  snprintf(path, sizeof path, "%s/navmeshes/city_tiled.bin", dir ? dir : "../shared");
  if (!(f = fopen(path, "rb"))) {
    printf("# SKIP %s: not found (reference data lives beside the project)\n", path);
    return;
  }
  len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  CHECK(nm_navmesh_load(buf, len, NULL, NULL, &m) == NM_OK);
  CHECK(nm_navmesh_copy(m, NULL, &model) == NM_OK);
  CHECK(nm_navmesh_version_new(m, NULL, &v1) == NM_OK);
  CHECK(nm_navmesh_tiles(v1, tiles, 2048, &ntiles) == NM_OK && ntiles == 1598);
  CHECK(nm_navmesh_version_edit(v1, &d) == NM_OK);
  i = ntiles / 2;
  CHECK(nm_navmesh_remove_tile(d, tiles[i].x, tiles[i].y, tiles[i].layer, &b, &n) == NM_OK);
  CHECK(nm_navmesh_add_tile_ref(d, b, n, tiles[i].ref, NULL, NULL) == NM_OK);
  nm_free_bytes(d, b, n);
  CHECK(nm_navmesh_version_commit(d) == NM_OK);
  CHECK(nm_navmesh_remove_tile(model, tiles[i].x, tiles[i].y, tiles[i].layer, &b, &n) == NM_OK);
  CHECK(nm_navmesh_add_tile_ref(model, b, n, tiles[i].ref, NULL, NULL) == NM_OK);
  nm_free_bytes(model, b, n);
  {
    image im = save(model);
    CHECK(same(im, d));
    free(im.p);
  }
  for (i = 0; i < ntiles; i++) {
    const void *p1, *p2;
    size_t n1, n2;
    nm_navmesh_get_tile(v1, tiles[i].x, tiles[i].y, tiles[i].layer, &p1, &n1);
    nm_navmesh_get_tile(d, tiles[i].x, tiles[i].y, tiles[i].layer, &p2, &n2);
    shared += p1 == p2;
  }
  printf("# city: one tile replaced, %d of %d blobs shared with version 1\n", shared, ntiles);
  CHECK(shared >= ntiles - 9);
  nm_navmesh_release(v1);
  nm_navmesh_release(d);
  nm_navmesh_release(model);
  nm_navmesh_release(m);
}

int main(void) {
  RUN(first_version_equals_its_mesh);
  RUN(versions_follow_the_model);
  RUN(unchanged_tiles_are_shared);
  RUN(one_draft_at_a_time);
  RUN(islands_and_queries_on_versions);
  RUN(releasing_the_tip_rewinds);
  RUN(allocation_failure_in_drafts);
  RUN(city_one_tile);
  return tap_done();
}
