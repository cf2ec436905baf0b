/* version_bench.c -- publishing a navmesh that changed in one tile.
 *
 * Today a shared mesh is republished by copying it whole into system
 * memory and freezing the copy (what mesh:share does: nm_navmesh_copy +
 * nm_navmesh_freeze). Versions (nm_navmesh_version_*) publish a draft of
 * the latest version in which one tile was removed and added back at its
 * old references (the cost of a rebuilt tile of the same size): edit +
 * remove + add + commit. Both are timed in interleaved rounds (the order
 * alternating), a different tile each round, on each tiled mesh of
 * ../shared; the figure is the median of the per-round ratios. "drop" is
 * the release of the previous copy / version once the new one is out (what
 * a registry does after a replace), timed apart. Bytes: what one publish
 * allocates. Usage: version_bench SHARED_DIR [SECONDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "cases.h"

#define MAX_ROUNDS 4000

static size_t g_live; /* bytes held through `counted` */
static void *count_fn(void *ud, void *p, size_t os, size_t ns) {
  (void)ud;
  if (ns == 0) {
    if (p) g_live -= os;
    free(p);
    return NULL;
  }
  p = realloc(p, ns);
  if (p) g_live += ns - os;
  return p;
}
static const nm_alloc counted = {count_fn, NULL};

/* Today's republish: a whole copy, frozen. Returns seconds; *out the copy. */
static double publish_copy(const nm_navmesh *m, nm_navmesh **out) {
  double t0 = bench_now();
  nm_navmesh_copy(m, &counted, out);
  nm_navmesh_freeze(*out);
  return bench_now() - t0;
}

/* A new version in which tile `ti` was replaced. Returns seconds (-1 on
 * failure); *tip moves to the new version, *old gets the previous one. */
static double publish_version(nm_navmesh **tip, nm_navmesh **old, const nm_tile_info *ti) {
  nm_navmesh *d = NULL;
  void *b = NULL;
  size_t n = 0;
  double t0 = bench_now();
  if (nm_navmesh_version_edit(*tip, &d) < 0) return -1;
  if (nm_navmesh_remove_tile(d, ti->x, ti->y, ti->layer, &b, &n) < 0 ||
      nm_navmesh_add_tile_ref(d, b, n, ti->ref, NULL, NULL) < 0) {
    nm_free_bytes(d, b, n);
    nm_navmesh_release(d);
    return -1;
  }
  nm_free_bytes(d, b, n);
  nm_navmesh_version_commit(d);
  t0 = bench_now() - t0;
  *old = *tip;
  *tip = d;
  return t0;
}

/* Seconds to release a mesh. */
static double drop(nm_navmesh *m) {
  double t0 = bench_now();
  nm_navmesh_release(m);
  return bench_now() - t0;
}

typedef struct figures { double copy, copy_drop, ver, ver_drop, ratio, ratio_total; } figures;
static double r_copy[MAX_ROUNDS], r_cdrop[MAX_ROUNDS], r_ver[MAX_ROUNDS], r_vdrop[MAX_ROUNDS],
    r_ratio[MAX_ROUNDS], r_total[MAX_ROUNDS];

/* One round: both publishes (order alternating), both drops. */
static int round_once(int k, const nm_navmesh *m, nm_navmesh **tip, const nm_tile_info *ti) {
  nm_navmesh *copy = NULL, *old = NULL;
  double tc, tv;
  if (k % 2) {
    tc = publish_copy(m, &copy);
    tv = publish_version(tip, &old, ti);
  } else {
    tv = publish_version(tip, &old, ti);
    tc = publish_copy(m, &copy);
  }
  if (tv < 0 || !copy) return 0;
  r_copy[k] = tc;
  r_ver[k] = tv;
  r_cdrop[k] = drop(copy);
  r_vdrop[k] = drop(old);
  r_ratio[k] = tv / tc;
  r_total[k] = (tv + r_vdrop[k]) / (tc + r_cdrop[k]);
  return 1;
}

/* Interleaved rounds on one mesh. */
static int run_mesh(const nm_navmesh *m, double secs, figures *f, size_t *ver_bytes, size_t *copy_bytes) {
  nm_tile_info *tiles;
  nm_navmesh *tip = NULL, *c = NULL, *old = NULL;
  int ntiles = 0, k = 0, n = 0;
  double t0;
  size_t before;
  nm_navmesh_tiles(m, NULL, 0, &ntiles);
  if (ntiles == 0 || !(tiles = (nm_tile_info *)malloc((size_t)ntiles * sizeof *tiles))) return 0;
  nm_navmesh_tiles(m, tiles, ntiles, &ntiles);
  if (nm_navmesh_version_new(m, &counted, &tip) < 0) { free(tiles); return 0; }
  before = g_live;
  publish_copy(m, &c);
  *copy_bytes = g_live - before;
  nm_navmesh_release(c);
  before = g_live;
  publish_version(&tip, &old, &tiles[0]);
  *ver_bytes = g_live - before;
  nm_navmesh_release(old);
  t0 = bench_now();
  while (k < MAX_ROUNDS && (k < 51 || bench_now() - t0 < secs)) {
    if (round_once(n, m, &tip, &tiles[((size_t)k * 997u) % (size_t)ntiles])) n++;
    k++;
  }
  nm_navmesh_release(tip);
  free(tiles);
  f->copy = bench_median(r_copy, n) * 1e3;
  f->copy_drop = bench_median(r_cdrop, n) * 1e3;
  f->ver = bench_median(r_ver, n) * 1e3;
  f->ver_drop = bench_median(r_vdrop, n) * 1e3;
  f->ratio = bench_median(r_ratio, n);
  f->ratio_total = bench_median(r_total, n);
  return n;
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const double secs = argc > 2 ? atof(argv[2]) : 1.0;
  int i;
  printf("publish one changed tile (median ms; ratio = median of per-round version/copy)\n");
  printf("%-17s %6s %9s %9s %9s %9s %8s %8s %10s %10s\n", "mesh", "rounds", "copy", "version", "copy drop",
         "ver drop", "ratio", "+drop", "copy B", "version B");
  for (i = 0; bench_meshes[i]; i++) {
    char path[1024];
    size_t len, vb = 0, cb = 0;
    unsigned char *bytes;
    nm_navmesh *m = NULL;
    figures f;
    int n;
    if (!strstr(bench_meshes[i], "tiled") || bench_skip(bench_meshes[i])) continue;
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, bench_meshes[i]);
    if (!(bytes = bench_read_file(path, &len))) continue;
    if (nm_navmesh_load(bytes, len, NULL, NULL, &m) < 0) { free(bytes); continue; }
    if ((n = run_mesh(m, secs, &f, &vb, &cb)) > 0) {
      printf("%-17s %6d %9.4f %9.4f %9.4f %9.4f %7.2f%% %7.2f%% %10lu %10lu\n", bench_meshes[i], n, f.copy, f.ver,
             f.copy_drop, f.ver_drop, f.ratio * 100, f.ratio_total * 100, (unsigned long)cb, (unsigned long)vb);
      fprintf(stderr, "{\"impl\":\"navmesh-version-publish\",\"mesh\":\"%s\",\"rounds\":%d,\"copy_ms\":%.5f,"
              "\"version_ms\":%.5f,\"copy_drop_ms\":%.5f,\"version_drop_ms\":%.5f,\"ratio\":%.5f,"
              "\"ratio_with_drop\":%.5f,\"copy_bytes\":%lu,\"version_bytes\":%lu}\n", bench_meshes[i], n, f.copy,
              f.ver, f.copy_drop, f.ver_drop, f.ratio, f.ratio_total, (unsigned long)cb, (unsigned long)vb);
    }
    nm_navmesh_release(m);
    free(bytes);
  }
  return 0;
}
