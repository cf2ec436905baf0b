/* toolbox_bench.c -- mean microseconds (CPU time) per call of the query
 * toolbox on the shared navmeshes, from C. Inputs are the oracle cases
 * (Detour's nearest start/end polygons and points), so raycast runs exactly
 * the rays of the oracle; bench/detour_toolbox.cpp times Detour on the same.
 *   toolbox_bench <shared-dir> [seconds per timing] [query]
 * Table on stdout, one JSON object per (mesh, query) on stderr (the
 * tools/bench.sh convention). Each timing is the best of three. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "navmesh.h"
#include "cases.h"
#include "toolbox_cases.h"

#define BUF 4096

typedef struct bench {
  nm_query *q;
  nm_filter f;
  tb_case c[TB_MAX_CASES];
  int n;
  nm_polyref buf[BUF];
  float costs[BUF], segs[6 * 192];
  volatile float sink;
} bench;

/* Runs query k on case c. */
static void run(bench *b, int k, const tb_case *c) {
  float t, v[3], w[3], d, sq[12];
  nm_polyref r;
  int n = 0, found;
  switch (k) {
  case 0: nm_query_raycast(b->q, c->sref, c->s, c->e, &b->f, &t, v, b->buf, BUF, &n); b->sink += t; break;
  case 1:
    tb_derived(c, w, sq);
    nm_query_move_along_surface(b->q, c->sref, c->s, w, &b->f, v, b->buf, 64, &n);
    break;
  case 2: nm_query_distance_to_wall(b->q, c->sref, c->s, 5, &b->f, &d, v, w, &found); b->sink += d; break;
  case 3: nm_query_random_point(b->q, &b->f, &r, v); break;
  case 4: nm_query_random_point_around(b->q, c->sref, c->s, 5, &b->f, &r, v); break;
  case 5: nm_query_polys_around_circle(b->q, c->sref, c->s, 5, &b->f, b->buf, NULL, b->costs, BUF, &n); break;
  case 6:
    tb_derived(c, w, sq);
    nm_query_polys_around_shape(b->q, c->sref, sq, 4, &b->f, b->buf, NULL, b->costs, BUF, &n);
    break;
  case 7: nm_query_local_neighbourhood(b->q, c->sref, c->s, 5, &b->f, b->buf, NULL, 64, &n); break;
  case 8:
    v[0] = 2; v[1] = 4; v[2] = 2;
    nm_query_polygons(b->q, c->s, v, &b->f, b->buf, BUF, &n);
    break;
  case 9: nm_query_wall_segments(b->q, c->sref, &b->f, b->segs, b->buf, 192, &n); break;
  case 10: nm_query_find_path(b->q, c->sref, c->eref, c->s, c->e, &b->f, b->buf, BUF, &n); break;
  default:
    nm_query_find_path_begin(b->q, c->sref, c->eref, c->s, c->e, &b->f);
    while (nm_query_find_path_step(b->q, 64, NULL) == NM_UNFINISHED) {}
    nm_query_find_path_end(b->q, b->buf, BUF, &n);
  }
  b->sink += (float)n;
}

/* Best of three timings of query k over all cases, us per call. */
static double measure(bench *b, int k, double secs) {
  double best = 1e30;
  int rep;
  for (rep = 0; rep < 3; rep++) {
    double t0 = tb_cpu_now(), t;
    long calls = 0;
    do {
      int i;
      for (i = 0; i < b->n; i++) run(b, k, &b->c[i]);
      calls += b->n;
      t = tb_cpu_now() - t0;
    } while (t < secs / 3);
    if (t / (double)calls * 1e6 < best) best = t / (double)calls * 1e6;
  }
  return best;
}

/* Times every query on one mesh; 0 when its files are missing. */
static int bench_mesh(bench *b, const char *shared, const char *name, double secs, const char *only) {
  char path[1024];
  size_t len;
  unsigned char *bytes;
  nm_navmesh *mesh = NULL;
  int k, large = strstr(name, "city") || strstr(name, "maze");
  snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
  if (!(b->n = tb_load_cases(path, b->c))) return 0;
  snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
  if (!(bytes = bench_read_file(path, &len))) return 0;
  k = nm_navmesh_load(bytes, len, NULL, NULL, &mesh);
  free(bytes);
  if (k < 0 || nm_query_new(mesh, large ? 65535 : 2048, NULL, &b->q) < 0) return 0;
  nm_navmesh_release(mesh);
  nm_filter_init(&b->f);
  nm_query_seed(b->q, 1);
  printf("%-17s", name);
  for (k = 0; tb_queries[k]; k++) {
    double us;
    if (only && strcmp(only, tb_queries[k]) != 0) continue;
    us = measure(b, k, secs);
    printf(" %8.3f", us);
    fprintf(stderr, "{\"impl\":\"navmesh-c\",\"bench\":\"toolbox\",\"mesh\":\"%s\",\"query\":\"%s\","
            "\"cases\":%d,\"us_per_call\":%.4f}\n", name, tb_queries[k], b->n, us);
  }
  printf("\n");
  fflush(stdout);
  nm_query_free(b->q);
  return 1;
}

int main(int argc, char **argv) {
  static bench b;
  const char *shared = argc > 1 ? argv[1] : "../shared";
  double secs = argc > 2 ? atof(argv[2]) : 1.0;
  int i;
  tb_header("toolbox (C) us");
  for (i = 0; bench_meshes[i]; i++) bench_mesh(&b, shared, bench_meshes[i], secs, argc > 3 ? argv[3] : NULL);
  return 0;
}
