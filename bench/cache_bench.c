/* cache_bench.c -- the tile cache on each shared .tset, ours alone: whole
 * load (decompress and build every layer's tile), rebuild of the tiles of
 * one grid cell, one cylinder obstacle added and removed (each updated until
 * done), stored bytes, and the whole cache built from the OBJ
 * (nm_cache_build, tile size 48). Medians of 5 rounds (3 builds).
 * bench/detour_cache_bench.cpp times Detour's dtTileCache beside it.
 * Usage: cache_bench SHARED_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache_bench.h"

#define ROUNDS 5
#define BUILDS 3

/* Median ms of BUILDS cache builds from the mesh's OBJ (-1 without it). */
static double build_ms(const char *shared, const char *name) {
  size_t len;
  uint8_t *text = cb_read(shared, "meshes", name, ".obj", &len);
  float *v = NULL;
  int *t = NULL, nv = 0, nt = 0, i;
  double ms[BUILDS];
  nm_build_config cfg;
  if (!text || nm_obj_parse((const char *)text, len, NULL, NULL, &v, &nv, &t, &nt) < 0) {
    free(text);
    return -1;
  }
  nm_build_config_init(&cfg);
  cfg.tile_size = 48;
  for (i = 0; i < BUILDS; i++) {
    nm_cache *c = NULL;
    const double t0 = bench_now();
    nm_cache_build(v, nv, t, nt, &cfg, 1024, NULL, NULL, NULL, &c);
    ms[i] = (bench_now() - t0) * 1e3;
    nm_cache_free(c);
  }
  nm_obj_free(NULL, v, nv, t, nt);
  free(text);
  return bench_median(ms, BUILDS);
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  int m;
  printf("tile cache (ours): median of %d rounds\n", ROUNDS);
  printf("%-11s %6s %10s %10s %11s %11s %10s %10s\n", "cache", "layers", "load ms", "cell us", "add+upd us",
         "rem+upd us", "bytes", "build ms");
  for (m = 0; cb_meshes[m]; m++) {
    size_t len;
    uint8_t *b = cb_read(shared, "tilecaches", cb_meshes[m], ".tset", &len);
    double load[ROUNDS], cell[ROUNDS], add[ROUNDS], rem[ROUNDS];
    nm_cache *c = NULL;
    nm_cache_info info;
    static cb_set s;
    int r;
    if (!b) {
      printf("(%s: %s/tilecaches not found)\n", cb_meshes[m], shared);
      continue;
    }
    if (bench_skip(cb_meshes[m]) || nm_cache_load(b, len, NULL, NULL, NULL, &c) < 0) {
      free(b);
      continue;
    }
    cb_sample(nm_cache_navmesh(c), &s);
    for (r = 0; r < ROUNDS; r++) {
      load[r] = cb_ours_load(b, len);
      cell[r] = cb_ours_rebuild(c, &s);
      cb_ours_obstacle(c, &s, &add[r], &rem[r]);
    }
    nm_cache_get_info(c, &info);
    {
      const double bms = build_ms(shared, cb_meshes[m]);
      printf("%-11s %6d %10.2f %10.1f %11.1f %11.1f %10lu %10.1f\n", cb_meshes[m], info.layers,
             bench_median(load, ROUNDS), bench_median(cell, ROUNDS), bench_median(add, ROUNDS),
             bench_median(rem, ROUNDS), (unsigned long)info.compressed_bytes, bms);
      fprintf(stderr,
              "{\"impl\":\"navmesh-cache\",\"mesh\":\"%s\",\"layers\":%d,\"load_ms\":%.3f,\"cell_us\":%.2f,"
              "\"add_us\":%.2f,\"remove_us\":%.2f,\"bytes\":%lu,\"build_ms\":%.2f}\n",
              cb_meshes[m], info.layers, bench_median(load, ROUNDS), bench_median(cell, ROUNDS),
              bench_median(add, ROUNDS), bench_median(rem, ROUNDS), (unsigned long)info.compressed_bytes, bms);
    }
    nm_cache_free(c);
    free(b);
  }
  return 0;
}
