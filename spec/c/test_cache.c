/* test_cache.c -- the tile cache (src/cache): FastLZ, TSET loading and
 * saving, the initial navmesh of each shared .tset against
 * ../shared/navmeshes/NAME_cache.bin tile by tile, and the obstacle scenarios
 * of ../shared/oracle/tilecache replayed step by step (rebuilt layers,
 * polygon counts, obstacle ids, query cases). Tests that need ../shared
 * say SKIP when it is absent. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "navmesh.h"
#include "tilecache/nm_cache.h"
#include "cache_util.h"

static const char *g_shared = "../shared";
static const char *const g_meshes[] = {"dungeon", "nav_test", "undulating", "city", NULL};

static uint8_t *read_shared(const char *dir, const char *name, const char *ext, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s/%s%s", g_shared, dir, name, ext);
  return read_file(path, len);
}

static int have_shared(const char *what) {
  size_t n;
  uint8_t *b = read_shared("tilecaches", "dungeon", ".tset", &n);
  if (!b) {
    printf("# SKIP %s: %s/tilecaches not found (reference data lives beside the project)\n", what, g_shared);
    return 0;
  }
  free(b);
  return 1;
}

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ---- FastLZ ---- */

/* Every stored layer body decodes to its grids and re-encodes to the same
 * bytes (the encoder makes FastLZ's choices). */
TEST(fastlz_reencodes_every_stored_layer) {
  int m, total = 0, same = 0;
  uint32_t *htab = (uint32_t *)malloc(nm_fastlz_htab_bytes());
  if (!have_shared("fastlz re-encoding")) { free(htab); return; }
  for (m = 0; g_meshes[m]; m++) {
    size_t len, off = 92;
    uint8_t *b = read_shared("tilecaches", g_meshes[m], ".tset", &len);
    uint32_t i, n;
    CHECK(b != NULL);
    if (!b) continue;
    n = rd32(b + 8);
    for (i = 0; i < n; i++) {
      const size_t size = rd32(b + off + 4);
      const uint8_t *body = b + off + 8 + 56;
      uint8_t grids[6912], *enc = (uint8_t *)malloc(nm_fastlz_bound(6912));
      size_t got = 0, elen;
      CHECK(nm_fastlz_decompress(body, size - 56, grids, sizeof grids, &got) == NM_OK);
      CHECK(got == 6912);
      elen = nm_fastlz_compress(grids, got, enc, htab);
      total++;
      same += elen == size - 56 && memcmp(enc, body, elen) == 0;
      free(enc);
      off += 8 + size;
    }
    free(b);
  }
  printf("# fastlz: %d of %d stored layers re-encode byte for byte\n", same, total);
  CHECK(total == 5425);
  CHECK(same == total);
  free(htab);
}

/* Round trips of generated data and the decoder's bounds checks. */
TEST(fastlz_roundtrip_and_hostile) {
  uint8_t in[5000], enc[6000], dec[5000];
  uint32_t *htab = (uint32_t *)malloc(nm_fastlz_htab_bytes());
  size_t n, got, i, k;
  unsigned x = 12345;
  for (i = 0; i < sizeof in; i++) { /* runs, repeats and noise */
    x = x * 1103515245u + 12345u;
    in[i] = i < 1000 ? (uint8_t)(i / 97) : i < 3000 ? (uint8_t)(i % 7) : (uint8_t)(x >> 24);
  }
  for (k = 0; k < 6; k++) {
    const size_t len = k == 0 ? 0 : k == 1 ? 3 : k == 2 ? 13 : k == 3 ? 300 : sizeof in - k;
    n = nm_fastlz_compress(in, len, enc, htab);
    CHECK(n <= nm_fastlz_bound(len));
    if (len == 0) { CHECK(n == 0); continue; }
    CHECK(nm_fastlz_decompress(enc, n, dec, sizeof dec, &got) == NM_OK);
    CHECK(got == len && memcmp(dec, in, len) == 0);
  }
  n = nm_fastlz_compress(in, sizeof in, enc, htab);
  for (i = 1; i < n; i++) { /* every truncation fails or decodes less */
    if (nm_fastlz_decompress(enc, i, dec, sizeof dec, &got) == NM_OK) CHECK(got < sizeof in);
  }
  CHECK(nm_fastlz_decompress(enc, n, dec, sizeof in - 1, &got) == NM_ERR_DATA); /* output too small */
  {
    const uint8_t back[] = {0, 'a', 0x20, 5};        /* reference before the start */
    const uint8_t lvl2[] = {0x20, 'a'};               /* level-2 tag */
    const uint8_t cut[] = {0, 'a', 0xe0};             /* length byte missing */
    CHECK(nm_fastlz_decompress(back, sizeof back, dec, sizeof dec, &got) == NM_ERR_DATA);
    CHECK(nm_fastlz_decompress(lvl2, sizeof lvl2, dec, sizeof dec, &got) == NM_ERR_DATA);
    CHECK(nm_fastlz_decompress(cut, sizeof cut, dec, sizeof dec, &got) == NM_ERR_DATA);
  }
  free(htab);
}

/* ---- the initial navmesh against Detour's ---- */

TEST(initial_navmesh_equals_detours) {
  int m;
  if (!have_shared("initial navmesh")) return;
  for (m = 0; g_meshes[m]; m++) {
    size_t len, rlen;
    uint8_t *b = read_shared("tilecaches", g_meshes[m], ".tset", &len);
    uint8_t *r = read_shared("navmeshes", g_meshes[m], "_cache.bin", &rlen);
    nm_cache *c = NULL;
    nm_navmesh *ref = NULL;
    nm_diag d;
    int ntiles = 0, bad;
    CHECK(b && r);
    if (!b || !r) { free(b); free(r); continue; }
    CHECK(nm_cache_load(b, len, NULL, NULL, &d, &c) == NM_OK);
    if (!c) printf("#   %s: %s\n", g_meshes[m], d.msg);
    CHECK(nm_navmesh_load(r, rlen, NULL, NULL, &ref) == NM_OK);
    if (c && ref) {
      bad = compare_meshes(g_meshes[m], nm_cache_navmesh(c), ref, &ntiles);
      printf("# %-10s %d tiles, %d differ from %s_cache.bin\n", g_meshes[m], ntiles, bad, g_meshes[m]);
      CHECK(bad == 0);
      CHECK(nm_cache_navmesh(c)->ntiles == ref->ntiles);
    }
    nm_cache_free(c);
    nm_navmesh_release(ref);
    free(b);
    free(r);
  }
}

/* save(load(file)) gives the file back byte for byte. */
TEST(tset_save_roundtrip) {
  int m;
  if (!have_shared("TSET round trip")) return;
  for (m = 0; g_meshes[m]; m++) {
    size_t len, slen = 0;
    uint8_t *b = read_shared("tilecaches", g_meshes[m], ".tset", &len);
    nm_cache *c = NULL;
    void *out = NULL;
    if (!b) continue;
    CHECK(nm_cache_load(b, len, NULL, NULL, NULL, &c) == NM_OK);
    if (c) {
      CHECK(nm_cache_save(c, &out, &slen) == NM_OK);
      CHECK(slen == len && out && memcmp(out, b, len) == 0);
      nm_cache_free_bytes(c, out, slen);
    }
    nm_cache_free(c);
    free(b);
  }
}

/* A cache built from each OBJ with RecastDemo's Temp Obstacles settings
 * (tile size 48) saves to the shared .tset byte for byte, and its navmesh
 * equals NAME_cache.bin tile by tile (the city takes some 5 s under ASan). */
TEST(build_from_obj_equals_tset) {
  int m;
  if (!have_shared("cache build from OBJ")) return;
  for (m = 0; g_meshes[m]; m++) {
    size_t olen, tlen, rlen, slen = 0;
    uint8_t *obj, *tset, *ref_bytes;
    float *v = NULL;
    int *t = NULL, nv = 0, nt = 0, ntiles = 0;
    nm_build_config cfg;
    nm_cache *c = NULL;
    nm_navmesh *ref = NULL;
    nm_diag d;
    void *saved = NULL;
    obj = read_shared("meshes", g_meshes[m], ".obj", &olen);
    tset = read_shared("tilecaches", g_meshes[m], ".tset", &tlen);
    ref_bytes = read_shared("navmeshes", g_meshes[m], "_cache.bin", &rlen);
    CHECK(obj && tset && ref_bytes);
    if (obj && nm_obj_parse((const char *)obj, olen, NULL, &d, &v, &nv, &t, &nt) == NM_OK) {
      nm_build_config_init(&cfg);
      cfg.tile_size = 48;
      CHECK(nm_cache_build(v, nv, t, nt, &cfg, 1024, NULL, NULL, &d, &c) == NM_OK);
      if (c) {
        int bad;
        CHECK(nm_cache_save(c, &saved, &slen) == NM_OK);
        CHECK(tset && slen == tlen && memcmp(saved, tset, tlen) == 0);
        nm_cache_free_bytes(c, saved, slen);
        CHECK(nm_navmesh_load(ref_bytes, rlen, NULL, NULL, &ref) == NM_OK);
        bad = ref ? compare_meshes(g_meshes[m], nm_cache_navmesh(c), ref, &ntiles) : -1;
        printf("# %-10s built from the OBJ: %lu TSET bytes (%s the file's), %d tiles, %d differ from %s_cache.bin\n",
               g_meshes[m], (unsigned long)slen, tset && slen == tlen ? "as" : "not", ntiles, bad, g_meshes[m]);
        CHECK(bad == 0);
      }
      nm_obj_free(NULL, v, nv, t, nt);
    }
    nm_navmesh_release(ref);
    nm_cache_free(c);
    free(obj);
    free(tset);
    free(ref_bytes);
  }
}

int main(int argc, char **argv) {
  if (argc > 1) g_shared = argv[1];
  RUN(fastlz_roundtrip_and_hostile);
  RUN(fastlz_reencodes_every_stored_layer);
  RUN(initial_navmesh_equals_detours);
  RUN(tset_save_roundtrip);
  RUN(build_from_obj_equals_tset);
  return tap_done();
}
