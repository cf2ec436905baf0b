/* test_copy.c -- nm_navmesh_copy: the copy the Lua binding shares between
 * states. Two linked tiles, one removed and added again (so its salt is not
 * the first one), a polygon with changed flags and area; the copy must have
 * the same references and attributes, equal load(save(mesh)) byte for byte,
 * live entirely in its own allocator, and fail cleanly on every allocation
 * failure. */
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "navmesh.h"

/* ---- a counting allocator that can fail the n-th allocation ---- */
static size_t live;
static long allocs, fail_at = -1;

static void *counting(void *ud, void *p, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    if (p) live -= osize;
    free(p);
    return NULL;
  }
  if (fail_at >= 0 && allocs++ == fail_at) return NULL;
  p = realloc(p, nsize);
  if (p) live += nsize - osize;
  return p;
}
static const nm_alloc counted = {counting, NULL};

/* A 2 x 2 grid of quads filling tile (tx, 0) of a grid of 4-unit tiles. */
static nm_status tile_blob(int tx, void **data, size_t *size) {
  float v[9 * 3];
  uint16_t polys[4 * 6];
  nm_poly_mesh_input in;
  int i, j, k = 0;
  for (j = 0; j < 3; j++)
    for (i = 0; i < 3; i++, k++) {
      v[k * 3] = (float)(tx * 4 + i * 2);
      v[k * 3 + 1] = 0;
      v[k * 3 + 2] = (float)(j * 2);
    }
  for (j = 0, k = 0; j < 2; j++)
    for (i = 0; i < 2; i++, k++) {
      uint16_t *p = &polys[k * 6], a = (uint16_t)(j * 3 + i);
      p[0] = a; p[1] = (uint16_t)(a + 3); p[2] = (uint16_t)(a + 4); p[3] = (uint16_t)(a + 1);
      p[4] = p[5] = 0xffff;
    }
  memset(&in, 0, sizeof in);
  in.verts = v;
  in.nverts = 9;
  in.polys = polys;
  in.npolys = 4;
  in.nvp = 6;
  in.border_portals = 1;
  in.tile_x = tx;
  in.bmin[0] = (float)(tx * 4); in.bmin[1] = -1; in.bmin[2] = 0;
  in.bmax[0] = (float)(tx * 4 + 4); in.bmax[1] = 1; in.bmax[2] = 4;
  in.walkable_height = 2;
  in.walkable_radius = 0.5f;
  in.walkable_climb = 0.5f;
  in.build_bvtree = 1;
  return nm_tile_create(&in, NULL, NULL, data, size);
}

static nm_polyref first_base; /* tile 0's reference before it was re-added */

/* Two tiles; tile 0 removed and added again; one polygon retagged. */
static nm_navmesh *source(nm_polyref *tagged) {
  nm_navmesh_params p = {{0, 0, 0}, 4, 4, 4, 8};
  nm_navmesh *m = NULL;
  void *b0 = NULL, *b1 = NULL;
  size_t s0 = 0, s1 = 0;
  nm_polyref base = 0;
  int ok = nm_navmesh_new(&p, NULL, NULL, &m) == NM_OK && tile_blob(0, &b0, &s0) == NM_OK &&
           tile_blob(1, &b1, &s1) == NM_OK && nm_navmesh_add_tile(m, b0, s0, NULL, &first_base) == NM_OK &&
           nm_navmesh_add_tile(m, b1, s1, NULL, NULL) == NM_OK &&
           nm_navmesh_remove_tile(m, 0, 0, 0, NULL, NULL) == NM_OK &&
           nm_navmesh_add_tile(m, b0, s0, NULL, &base) == NM_OK;
  nm_tile_free(NULL, b0, s0);
  nm_tile_free(NULL, b1, s1);
  if (!ok) {
    nm_navmesh_release(m);
    return NULL;
  }
  *tagged = base + 1;
  nm_navmesh_set_poly_flags(m, *tagged, 0x20);
  nm_navmesh_set_poly_area(m, *tagged, 7);
  return m;
}

/* Collects refs (foreach callback). */
typedef struct refs { nm_polyref r[32]; int n; } refs;
static void collect(void *ud, nm_polyref ref) {
  refs *rs = (refs *)ud;
  if (rs->n < 32) rs->r[rs->n++] = ref;
}

TEST(copy_keeps_references_and_attributes) {
  nm_polyref tagged = 0;
  nm_navmesh *m = source(&tagged), *c = NULL;
  refs a, b;
  int i;
  uint16_t fl = 0;
  uint8_t area = 0;
  CHECK(m != NULL);
  if (!m) return;
  CHECK(tagged - 1 != first_base); /* re-added: a new salt */
  CHECK(nm_navmesh_copy(m, &counted, &c) == NM_OK);
  CHECK(c != NULL && live > 0);
  if (!c) { nm_navmesh_release(m); return; }
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  nm_navmesh_foreach_poly(m, collect, &a);
  nm_navmesh_foreach_poly(c, collect, &b);
  CHECK(a.n == 8 && b.n == 8);
  for (i = 0; i < a.n && i < b.n; i++) CHECK(a.r[i] == b.r[i]);
  CHECK(nm_navmesh_get_poly_flags(c, tagged, &fl) == NM_OK && fl == 0x20);
  CHECK(nm_navmesh_get_poly_area(c, tagged, &area) == NM_OK && area == 7);
  CHECK(!nm_navmesh_is_frozen(c));
  nm_navmesh_release(m); /* the copy owns all it uses */
  CHECK(nm_navmesh_is_valid_ref(c, tagged));
  nm_navmesh_release(c);
  CHECK(live == 0);
}

TEST(copy_equals_load_of_save) {
  nm_polyref tagged = 0;
  nm_navmesh *m = source(&tagged), *c = NULL, *l = NULL;
  void *img = NULL, *ci = NULL, *li = NULL;
  size_t n = 0, cn = 0, ln = 0;
  CHECK(m != NULL);
  if (!m) return;
  CHECK(nm_navmesh_save(m, NM_FORMAT_NATIVE, &img, &n) == NM_OK);
  CHECK(nm_navmesh_load(img, n, NULL, NULL, &l) == NM_OK);
  CHECK(nm_navmesh_copy(m, NULL, &c) == NM_OK);
  if (l && c) {
    CHECK(nm_navmesh_save(l, NM_FORMAT_NATIVE, &li, &ln) == NM_OK);
    CHECK(nm_navmesh_save(c, NM_FORMAT_NATIVE, &ci, &cn) == NM_OK);
    CHECK(ln == cn && li && ci && memcmp(li, ci, ln) == 0);
    nm_free_bytes(l, li, ln);
    nm_free_bytes(c, ci, cn);
  }
  nm_free_bytes(m, img, n);
  nm_navmesh_release(l);
  nm_navmesh_release(c);
  nm_navmesh_release(m);
}

TEST(copy_fails_cleanly_on_every_allocation) {
  nm_polyref tagged = 0;
  nm_navmesh *m = source(&tagged), *c;
  long k, failures = 0, leaks = 0;
  CHECK(m != NULL);
  if (!m) return;
  for (k = 0;; k++) {
    nm_status st;
    c = (nm_navmesh *)&failures; /* must come back NULL */
    allocs = 0;
    fail_at = k;
    st = nm_navmesh_copy(m, &counted, &c);
    fail_at = -1;
    if (st == NM_OK) break;
    failures++;
    if (st != NM_ERR_NOMEM || c != NULL || live != 0) leaks++;
  }
  printf("# copy: %ld allocation failures injected, each one clean\n", failures);
  CHECK(failures >= 4 && leaks == 0);
  nm_navmesh_release(c);
  CHECK(live == 0);
  nm_navmesh_release(m);
}

TEST(copy_bad_arguments) {
  nm_navmesh *c = (nm_navmesh *)&live;
  CHECK(nm_navmesh_copy(NULL, NULL, &c) == NM_ERR_PARAM && c == NULL);
  CHECK(nm_navmesh_copy(NULL, NULL, NULL) == NM_ERR_PARAM);
}

int main(void) {
  RUN(copy_keeps_references_and_attributes);
  RUN(copy_equals_load_of_save);
  RUN(copy_fails_cleanly_on_every_allocation);
  RUN(copy_bad_arguments);
  return tap_done();
}
