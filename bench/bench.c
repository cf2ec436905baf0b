/* bench.c -- query timings of this library in C on the shared navmeshes,
 * with the oracle's query points as inputs (each timing repeated for at
 * least BENCH_SECONDS, default 1 s). Prints one row per mesh and writes JSON
 * lines to stdout after "#json". Usage: bench SHARED_DIR [seconds] */
#include <math.h>
#include "navmesh.h"
#include "cases.h"

#define MAXP 4096

typedef struct result {
  double load_ms, nearest_us, path_us, path_med_us, straight_us, seq_us;
  size_t data_bytes, memory_bytes;
  int cases, polys;
} result;

/* Per-case inputs found once: nearest refs and points, corridors. */
typedef struct prepared {
  nm_polyref sref, eref, path[MAXP];
  float s[3], e[3], end[3];
  int npath;
} prepared;

static const float EXT[3] = {2, 4, 2};

/* Nearest polygons and corridors of every case (and the straight-path end,
 * clamped onto the last polygon of a partial corridor as the oracle does). */
static void prepare(nm_query *q, const nm_filter *f, const bench_case *c, int n, prepared *p) {
  int i;
  for (i = 0; i < n; i++) {
    p[i].npath = 0;
    nm_query_find_nearest(q, c[i].start, EXT, f, &p[i].sref, p[i].s, NULL);
    nm_query_find_nearest(q, c[i].end, EXT, f, &p[i].eref, p[i].e, NULL);
    if (!p[i].sref || !p[i].eref) continue;
    nm_query_find_path(q, p[i].sref, p[i].eref, p[i].s, p[i].e, f, p[i].path, MAXP, &p[i].npath);
    memcpy(p[i].end, p[i].e, sizeof p[i].end);
    if (p[i].npath && p[i].path[p[i].npath - 1] != p[i].eref)
      nm_query_closest_point(q, p[i].path[p[i].npath - 1], p[i].e, p[i].end, NULL);
  }
}

static double time_nearest(nm_query *q, const nm_filter *f, const bench_case *c, int n, double secs) {
  double t0 = bench_now(), t;
  int rnd = 0;
  long calls = 0;
  nm_polyref r;
  float pt[3];
  do {
    int i;
    for (i = 0; i < n; i++) {
      nm_query_find_nearest(q, c[i].start, EXT, f, &r, pt, NULL);
      nm_query_find_nearest(q, c[i].end, EXT, f, &r, pt, NULL);
    }
    calls += 2 * n;
  } while (bench_continue(t0, secs, &rnd));
  t = bench_now() - t0;
  return t / (double)calls * 1e6;
}

/* findPath: mean over all calls and median of the per-case means. */
static void time_path(nm_query *q, const nm_filter *f, const prepared *p, int n, double secs,
                      double *mean, double *med) {
  double *acc = (double *)calloc((size_t)n, sizeof(double)), t0 = bench_now(), total = 0;
  int rnd = 0;
  nm_polyref path[MAXP];
  int rounds = 0, i, np, m = 0;
  do {
    for (i = 0; i < n; i++) {
      double a;
      if (!p[i].sref || !p[i].eref) continue;
      a = bench_now();
      nm_query_find_path(q, p[i].sref, p[i].eref, p[i].s, p[i].e, f, path, MAXP, &np);
      acc[i] += bench_now() - a;
    }
    rounds++;
  } while (bench_continue(t0, secs, &rnd));
  for (i = 0; i < n; i++)
    if (p[i].sref && p[i].eref) { total += acc[i]; acc[m++] = acc[i] / rounds * 1e6; }
  *mean = total / ((double)rounds * m) * 1e6;
  *med = bench_median(acc, m);
  free(acc);
}

static double time_straight(nm_query *q, const prepared *p, int n, double secs) {
  static float pts[3 * (2 * MAXP + 2)];
  double t0 = bench_now(), t;
  int rnd = 0;
  long calls = 0;
  int i, np;
  do {
    for (i = 0; i < n; i++) {
      if (!p[i].npath) continue;
      nm_query_straight_path(q, p[i].s, p[i].end, p[i].path, p[i].npath, NULL, pts, NULL, NULL,
                             2 * MAXP + 2, &np);
      calls++;
    }
  } while (bench_continue(t0, secs, &rnd));
  t = bench_now() - t0;
  return t / (double)calls * 1e6;
}

/* The whole job per case: both nearest polygons, the corridor, the path. */
static double time_sequence(nm_query *q, const nm_filter *f, const bench_case *c, int n, double secs) {
  static float pts[3 * (2 * MAXP + 2)];
  nm_polyref path[MAXP], sref, eref;
  float s[3], e[3];
  double t0 = bench_now(), t;
  int rnd = 0;
  long calls = 0;
  int i, np, ns;
  do {
    for (i = 0; i < n; i++) {
      if (nm_query_find_nearest(q, c[i].start, EXT, f, &sref, s, NULL) < 0) continue;
      if (nm_query_find_nearest(q, c[i].end, EXT, f, &eref, e, NULL) < 0) continue;
      if (nm_query_find_path(q, sref, eref, s, e, f, path, MAXP, &np) < 0 || !np) continue;
      if (path[np - 1] != eref) nm_query_closest_point(q, path[np - 1], e, e, NULL);
      nm_query_straight_path(q, s, e, path, np, NULL, pts, NULL, NULL, 2 * MAXP + 2, &ns);
      calls++;
    }
  } while (bench_continue(t0, secs, &rnd));
  t = bench_now() - t0;
  return t / (double)calls * 1e6;
}

static int bench_mesh(const char *shared, const char *name, double secs, result *r) {
  char path[1024];
  unsigned char *bytes;
  size_t len;
  bench_case *c = NULL;
  prepared *p;
  nm_navmesh *m = NULL;
  nm_query *q = NULL;
  nm_filter f;
  nm_navmesh_info info;
  double t0;
  int large = strstr(name, "city") || strstr(name, "maze"), k;
  snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
  if (!(bytes = bench_read_file(path, &len))) return 0;
  snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
  if (!(r->cases = bench_read_cases(path, &c))) { free(bytes); return 0; }
  t0 = bench_now();
  for (k = 0; k < 20; k++) {
    nm_navmesh_release(m);
    m = NULL;
    nm_navmesh_load(bytes, len, NULL, NULL, &m);
  }
  r->load_ms = (bench_now() - t0) / 20 * 1e3;
  nm_query_new(m, large ? 65535 : 2048, NULL, &q);
  nm_filter_init(&f);
  nm_navmesh_get_info(m, &info);
  r->data_bytes = info.data_bytes;
  r->memory_bytes = info.memory_bytes;
  r->polys = info.polys;
  p = (prepared *)calloc((size_t)r->cases, sizeof *p);
  prepare(q, &f, c, r->cases, p);
  r->nearest_us = time_nearest(q, &f, c, r->cases, secs);
  time_path(q, &f, p, r->cases, secs, &r->path_us, &r->path_med_us);
  r->straight_us = time_straight(q, p, r->cases, secs);
  r->seq_us = time_sequence(q, &f, c, r->cases, secs);
  free(p);
  free(c);
  free(bytes);
  nm_query_free(q);
  nm_navmesh_release(m);
  return 1;
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  double secs = argc > 2 ? atof(argv[2]) : 1.0;
  int i;
  printf("navmesh (C)       %7s %8s %10s %12s %10s %10s %10s %10s\n", "cases", "load ms", "nearest us",
         "path us mean", "path med", "straight", "sequence", "data B");
  for (i = 0; bench_meshes[i]; i++) {
    result r;
    memset(&r, 0, sizeof r);
    if (bench_skip(bench_meshes[i]) || !bench_mesh(shared, bench_meshes[i], secs, &r)) continue;
    printf("%-17s %7d %8.3f %10.3f %12.2f %10.2f %10.3f %10.2f %10lu\n", bench_meshes[i], r.cases, r.load_ms,
           r.nearest_us, r.path_us, r.path_med_us, r.straight_us, r.seq_us, (unsigned long)r.data_bytes);
    fprintf(stderr,
            "{\"impl\":\"navmesh-c\",\"mesh\":\"%s\",\"load_ms\":%.4f,\"nearest_us\":%.4f,\"path_us\":%.3f,"
            "\"path_median_us\":%.3f,\"straight_us\":%.4f,\"sequence_us\":%.3f,\"data_bytes\":%lu,\"memory_bytes\":%lu}\n",
            bench_meshes[i], r.load_ms, r.nearest_us, r.path_us, r.path_med_us, r.straight_us, r.seq_us,
            (unsigned long)r.data_bytes, (unsigned long)r.memory_bytes);
  }
  return 0;
}
