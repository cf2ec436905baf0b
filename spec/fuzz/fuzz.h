/* fuzz.h -- shared pieces of the fuzz targets (spec/fuzz/fuzz_*.c).
 *
 * Each target defines LLVMFuzzerTestOneInput. It is linked two ways:
 * with libFuzzer (clang -fsanitize=fuzzer, `make fuzz`) and with
 * spec/fuzz/replay.c (any compiler, ASan+UBSan), which runs saved inputs
 * through the same entry point for `make test`.
 *
 * Here: a byte reader that never fails (missing bytes read as 0), decoders
 * for coordinates (mostly on a small lattice, sometimes NaN/inf/huge), the
 * invariant check FZ_CHECK (prints and aborts: the fuzzer keeps the input),
 * and "exercise a loaded mesh". The fixture mesh (3 x 3 tiles made with
 * nm_tile_create) lives in spec/c/fixture.h, shared with the C tests. */
#ifndef NM_FUZZ_H
#define NM_FUZZ_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "../c/fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- invariants ---- */

#define FZ_CHECK(cond)                                                            \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n", __FILE__, __LINE__, \
              #cond);                                                             \
      abort();                                                                    \
    }                                                                             \
  } while (0)

/* Every status the API may return is one of the listed ones. */
static inline int fz_status_known(nm_status st) {
  int bits = 0;
#define FZ_BIT(name, value, text) bits |= (value) > 0 ? (value) : 0;
  NM_STATUS_LIST(FZ_BIT)
#undef FZ_BIT
  if (st >= 0) return (st & ~bits) == 0;
  return strcmp(nm_status_name(st), "UNKNOWN") != 0;
}

/* FUZZ_VERBOSE=1 in the environment: say what each input did (replay). */
static inline void fz_say(const char *what, nm_status st, const nm_diag *d) {
  if (getenv("FUZZ_VERBOSE"))
    fprintf(stderr, "%s: %s%s%s\n", what, nm_status_name(st), d && d->msg[0] ? ": " : "", d ? d->msg : "");
}

static inline int fz_finite3(const float *v) {
  return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* ---- reading the input ---- */

typedef struct fz_reader {
  const uint8_t *p;
  size_t n, i;
} fz_reader;

static inline void fz_init(fz_reader *r, const uint8_t *p, size_t n) {
  r->p = p;
  r->n = n;
  r->i = 0;
}
static inline int fz_left(const fz_reader *r) { return r->i < r->n; }
static inline uint8_t fz_u8(fz_reader *r) { return r->i < r->n ? r->p[r->i++] : 0; }
static inline uint16_t fz_u16(fz_reader *r) {
  uint16_t lo = fz_u8(r);
  return (uint16_t)(lo | (fz_u8(r) << 8));
}
static inline uint32_t fz_u32(fz_reader *r) {
  uint32_t lo = fz_u16(r);
  return lo | ((uint32_t)fz_u16(r) << 16);
}
static inline float fz_rawf(fz_reader *r) {
  uint32_t u = fz_u32(r);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* A coordinate from one byte: a 0.25 lattice over [-31, 31) for most values,
 * the rest hostile: NaN, +-inf, +-1e30, +-3e38, a denormal, or 4 raw bytes. */
static inline float fz_coord(fz_reader *r) {
  const uint8_t b = fz_u8(r);
  if (b < 0xf7) return (float)((int)b - 124) * 0.25f;
  switch (b) {
    case 0xf7: return NAN;
    case 0xf8: return INFINITY;
    case 0xf9: return -INFINITY;
    case 0xfa: return 1e30f;
    case 0xfb: return -1e30f;
    case 0xfc: return 3e38f;
    case 0xfd: return -3e38f;
    case 0xfe: return 1e-40f;
    default: return fz_rawf(r);
  }
}
static inline void fz_point(fz_reader *r, float *v) {
  v[0] = fz_coord(r);
  v[1] = fz_coord(r);
  v[2] = fz_coord(r);
}

/* ---- exercising a mesh that loaded ---- */

typedef struct fz_refcb {
  nm_polyref refs[64];
  int n, total;
} fz_refcb;

static inline void fz_collect(void *ud, nm_polyref ref) {
  fz_refcb *c = (fz_refcb *)ud;
  if (c->n < 64) c->refs[c->n++] = ref;
  c->total++;
}

/* Checks the outputs of one straight path call. */
static inline void fz_check_straight(const nm_navmesh *m, nm_status st, const float *pts,
                                     const uint8_t *flags, const nm_polyref *refs, int n, int cap) {
  int i;
  FZ_CHECK(fz_status_known(st));
  if (st < 0) {
    FZ_CHECK(n == 0);
    return;
  }
  FZ_CHECK(n >= 1 && n <= cap);
  for (i = 0; i < n; i++) {
    FZ_CHECK(fz_finite3(&pts[i * 3]));
    if (flags) FZ_CHECK((flags[i] & ~7) == 0);
    if (refs) FZ_CHECK(refs[i] == 0 || nm_navmesh_is_valid_ref(m, refs[i]));
  }
}

/* A path between two polygons of the mesh and its straight path. */
static inline void fz_path_between(nm_query *q, nm_polyref a, nm_polyref b) {
  const nm_navmesh *m = nm_query_mesh(q);
  nm_polyref path[64], refs[32];
  float pa[6 * 3], pb[6 * 3], pts[32 * 3];
  uint8_t flags[32];
  int na, nb, n = 0, k, i;
  nm_filter f;
  nm_status st;
  nm_filter_init(&f);
  FZ_CHECK(nm_navmesh_get_poly_verts(m, a, pa, &na) == NM_OK);
  FZ_CHECK(nm_navmesh_get_poly_verts(m, b, pb, &nb) == NM_OK);
  FZ_CHECK(na >= 2 && na <= 6 && nb >= 2 && nb <= 6);
  st = nm_query_find_path(q, a, b, pa, pb, &f, path, 64, &n);
  FZ_CHECK(fz_status_known(st));
  if (st < 0) return;
  FZ_CHECK(n >= 1 && n <= 64 && path[0] == a);
  for (i = 0; i < n; i++) FZ_CHECK(nm_navmesh_is_valid_ref(m, path[i]));
  for (k = 0; k < 2; k++) {
    nm_straight_opts o;
    o.crossings = k ? NM_CROSSINGS_ALL : NM_CROSSINGS_NONE;
    o.inset = k ? 0.3f : 0.0f;
    st = nm_query_straight_path(q, pa, pb, path, n, &o, pts, flags, refs, 32, &i);
    fz_check_straight(m, st, pts, flags, refs, i, 32);
  }
}

/* Runs a few queries on a mesh that loaded, then saves it in both formats
 * and checks that the saved bytes load again to the same counts. */
static inline void fz_exercise(nm_navmesh *m) {
  nm_navmesh_info info, info2;
  nm_query *q;
  fz_refcb c;
  int fmt, i;
  nm_navmesh_get_info(m, &info);
  FZ_CHECK(info.tiles >= 0 && info.polys >= 0);
  memset(&c, 0, sizeof c);
  nm_navmesh_foreach_poly(m, fz_collect, &c);
  FZ_CHECK(c.total == info.polys + info.offmesh_polys);
  if (nm_query_new(m, 256, NULL, &q) < 0) return;
  for (i = 0; i < c.n; i++) {
    const nm_polyref r = c.refs[i];
    float v[6 * 3], ctr[3] = {0, 0, 0}, out[3], h, ext[3] = {2, 4, 2};
    nm_filter f;
    nm_polyref got;
    int nv, j, over;
    nm_status st;
    FZ_CHECK(nm_navmesh_is_valid_ref(m, r));
    FZ_CHECK(nm_navmesh_get_poly_verts(m, r, v, &nv) == NM_OK);
    for (j = 0; j < nv; j++) {
      ctr[0] += v[j * 3] / nv; ctr[1] += v[j * 3 + 1] / nv; ctr[2] += v[j * 3 + 2] / nv;
    }
    if (!fz_finite3(ctr)) continue; /* huge stored vertices: the mean overflows */
    st = nm_query_closest_point(q, r, ctr, out, &over);
    if (st != NM_OK || !fz_finite3(out)) {
      fprintf(stderr, "closest point on %#x (%d verts, centre %g %g %g): %s (%g %g %g)\n", (unsigned)r,
              nv, ctr[0], ctr[1], ctr[2], nm_status_name(st), out[0], out[1], out[2]);
      for (j = 0; j < nv; j++) fprintf(stderr, "  vertex %g %g %g\n", v[j * 3], v[j * 3 + 1], v[j * 3 + 2]);
    }
    FZ_CHECK(st == NM_OK && fz_finite3(out));
    FZ_CHECK(nm_query_closest_point_boundary(q, r, ctr, out) == NM_OK && fz_finite3(out));
    st = nm_query_poly_height(q, r, ctr, &h);
    FZ_CHECK(st == NM_OK || st == NM_ERR_NO_POLY);
    if (st == NM_OK) FZ_CHECK(isfinite(h));
    nm_filter_init(&f);
    st = nm_query_find_nearest(q, ctr, ext, &f, &got, out, &over);
    FZ_CHECK(st == NM_OK || st == NM_ERR_NO_POLY);
    if (st == NM_OK) FZ_CHECK(nm_navmesh_is_valid_ref(m, got) && fz_finite3(out));
    if (i > 0 && i < 8) fz_path_between(q, c.refs[0], r);
  }
  nm_query_free(q);
  for (fmt = NM_FORMAT_MSET; fmt <= NM_FORMAT_NATIVE; fmt++) {
    void *bytes;
    size_t len;
    nm_navmesh *m2;
    nm_diag d;
    if (nm_navmesh_save(m, fmt, &bytes, &len) < 0) continue;
    FZ_CHECK(nm_navmesh_load(bytes, len, NULL, &d, &m2) == NM_OK);
    nm_navmesh_get_info(m2, &info2);
    FZ_CHECK(info2.tiles == info.tiles && info2.polys == info.polys);
    nm_navmesh_release(m2);
    nm_free_bytes(m, bytes, len);
  }
}

/* The system allocator, remembering whether an allocation failed: an
 * NM_ERR_NOMEM must come from a real failure, not from bad data. */
static int fz_alloc_failed;
static inline void *fz_alloc_fn(void *ud, void *p, size_t osize, size_t nsize) {
  void *r;
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(p);
    return NULL;
  }
  if (!(r = realloc(p, nsize))) fz_alloc_failed = 1;
  return r;
}
static const nm_alloc fz_alloc = {fz_alloc_fn, NULL};

/* Loads bytes; a mesh that loads must answer queries and save/load again. */
static inline void fz_load_and_exercise(const uint8_t *data, size_t size) {
  nm_navmesh *m = NULL;
  nm_diag d;
  nm_status st;
  memset(&d, 0, sizeof d);
  fz_alloc_failed = 0;
  st = nm_navmesh_load(data, size, &fz_alloc, &d, &m);
  fz_say("nm_navmesh_load", st, &d);
  FZ_CHECK(st == NM_OK || st == NM_ERR_DATA || (st == NM_ERR_NOMEM && fz_alloc_failed));
  if (st < 0) {
    FZ_CHECK(m == NULL);
    if (st == NM_ERR_DATA) FZ_CHECK(d.msg[0] != 0);
    return;
  }
  FZ_CHECK(d.msg[0] == 0 && d.field == NULL); /* no stale message after success */
  fz_exercise(m);
  nm_navmesh_release(m);
}

/* Copies input into a writable buffer (the harness may patch headers). */
static inline uint8_t *fz_copy(const uint8_t *data, size_t size) {
  uint8_t *c = (uint8_t *)malloc(size ? size : 1);
  if (size) memcpy(c, data, size);
  return c;
}

#endif
