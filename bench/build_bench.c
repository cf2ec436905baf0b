/* build_bench.c -- navmesh build timings on the shared OBJ meshes with
 * RecastDemo's default settings: solo and tiled (tileSize 32), tiled with 1
 * and 2 threads; median of 5 builds (BENCH_BUILDS overrides, BENCH_ROUNDS
 * too, for callgrind), stage times of the median build, peak build memory.
 * The large worlds (city: cell 0.4, maze: cell 0.3, both tileSize 64, tiled
 * only) follow with 3 builds each. JSON lines go to stderr.
 * BENCH_MESH=name, BENCH_MODE=solo|tiled and BENCH_THREADS=n pick one case.
 * Usage: build_bench SHARED_DIR [seconds (unused)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "navmesh.h"

typedef struct mesh_spec {
  const char *name;
  float cell_size;
  int tile_size, large;
} mesh_spec;

static const mesh_spec MESHES[] = {
  {"dungeon", 0.3f, 32, 0}, {"nav_test", 0.3f, 32, 0}, {"undulating", 0.3f, 32, 0},
  {"city", 0.4f, 64, 1}, {"maze", 0.3f, 64, 1},
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (char *)malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static int cmp_stats(const void *a, const void *b) {
  const double x = ((const nm_build_stats *)a)->ms_total, y = ((const nm_build_stats *)b)->ms_total;
  return (x > y) - (x < y);
}

/* Runs n builds; *med gets the stats of the median one (by total time),
 * *min_ms the fastest total. 0 when a build failed. */
static int run(const float *v, int nv, const int *t, int nt, const nm_build_config *c, int n,
               nm_build_stats *med, double *min_ms) {
  nm_build_stats *s = (nm_build_stats *)calloc((size_t)n, sizeof *s);
  int i;
  for (i = 0; i < n; i++) {
    nm_navmesh *m;
    nm_diag d;
    nm_status st = nm_navmesh_build(v, nv, t, nt, c, NULL, &d, &m, &s[i]);
    if (st < 0) {
      printf("build failed: %s (%s)\n", nm_strerror(st), d.msg);
      free(s);
      return 0;
    }
    nm_navmesh_release(m);
  }
  qsort(s, (size_t)n, sizeof *s, cmp_stats);
  *med = s[n / 2];
  *min_ms = s[0].ms_total;
  free(s);
  return 1;
}

static void report(const char *name, const char *mode, int threads, int n, const nm_build_stats *s, double min_ms) {
  printf("%-11s %-5s %d thr  median %8.2f ms  (min %8.2f, %d builds)  %5d polys %5d tiles  peak %7.1f KiB\n", name,
         mode, threads, s->ms_total, min_ms, n, s->polys, s->tiles, (double)s->peak_bytes / 1024.0);
  printf("    stages (summed over tiles): rasterize %.2f filter %.2f compact %.2f erode %.2f areas %.2f distance %.2f "
         "regions %.2f contours %.2f polymesh %.2f detail %.2f tiledata %.2f\n",
         s->ms_rasterize, s->ms_filter, s->ms_compact, s->ms_erode, s->ms_areas, s->ms_distance, s->ms_regions,
         s->ms_contours, s->ms_polymesh, s->ms_detail, s->ms_tiledata);
  fprintf(stderr,
          "{\"impl\":\"navmesh-build\",\"mesh\":\"%s\",\"mode\":\"%s\",\"threads\":%d,\"builds\":%d,\"median_ms\":%.3f,"
          "\"min_ms\":%.3f,\"polys\":%d,\"tiles\":%d,\"peak_bytes\":%lu,\"rasterize_ms\":%.3f,\"filter_ms\":%.3f,"
          "\"compact_ms\":%.3f,\"erode_ms\":%.3f,\"distance_ms\":%.3f,\"regions_ms\":%.3f,\"contours_ms\":%.3f,"
          "\"polymesh_ms\":%.3f,\"detail_ms\":%.3f,\"tiledata_ms\":%.3f}\n",
          name, mode, threads, n, s->ms_total, min_ms, s->polys, s->tiles, (unsigned long)s->peak_bytes,
          s->ms_rasterize, s->ms_filter, s->ms_compact, s->ms_erode, s->ms_distance, s->ms_regions, s->ms_contours,
          s->ms_polymesh, s->ms_detail, s->ms_tiledata);
}

/* Builds count from the environment: BENCH_ROUNDS, BENCH_BUILDS, or def. */
static int builds(int def) {
  const char *e = getenv("BENCH_ROUNDS");
  if (!e) e = getenv("BENCH_BUILDS");
  return e && atoi(e) > 0 ? atoi(e) : def;
}

/* Every configuration of one mesh. */
static void bench_mesh(const char *shared, const mesh_spec *ms) {
  char path[1024];
  size_t len;
  char *text;
  float *v;
  int nv, *t, nt, threads;
  double t0, min_ms;
  nm_build_config c;
  nm_build_stats s;
  const char *mode = getenv("BENCH_MODE");
  snprintf(path, sizeof path, "%s/meshes/%s.obj", shared, ms->name);
  if (!(text = read_file(path, &len))) return;
  t0 = now_ms();
  if (nm_obj_parse(text, len, NULL, NULL, &v, &nv, &t, &nt) < 0) { free(text); return; }
  printf("%-11s OBJ parse %.2f ms (%d vertices, %d triangles)\n", ms->name, now_ms() - t0, nv, nt);
  free(text);
  nm_build_config_init(&c);
  c.cell_size = ms->cell_size;
  if (!ms->large && (!mode || strcmp(mode, "solo") == 0) && run(v, nv, t, nt, &c, builds(5), &s, &min_ms)) report(ms->name, "solo", 1, builds(5), &s, min_ms);
  c.tile_size = ms->tile_size;
  for (threads = 1; threads <= 2 && (!mode || strcmp(mode, "tiled") == 0); threads++) {
    if (getenv("BENCH_THREADS") && atoi(getenv("BENCH_THREADS")) != threads) continue;
    const int n = builds(ms->large ? 3 : 5);
    c.threads = threads;
    if (run(v, nv, t, nt, &c, n, &s, &min_ms)) report(ms->name, "tiled", threads, n, &s, min_ms);
  }
  nm_obj_free(NULL, v, nv, t, nt);
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const char *only = getenv("BENCH_MESH");
  size_t i;
  printf("navmesh build (C), RecastDemo defaults; wall-clock ms on a shared machine (noisy)\n");
  for (i = 0; i < sizeof MESHES / sizeof *MESHES; i++)
    if (!only || strcmp(only, MESHES[i].name) == 0) bench_mesh(shared, &MESHES[i]);
  return 0;
}
