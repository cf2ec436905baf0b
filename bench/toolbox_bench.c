/* toolbox_bench.c -- mean microseconds per call of the query toolbox on the
 * shared navmeshes, from C. Query inputs are the oracle cases (Detour's
 * nearest start/end polygons and points), so raycast runs exactly the rays
 * Detour's oracle timed (0.06-0.25 us per call there).
 *   toolbox_bench <shared-dir> [seconds per measurement] [filter]
 * Prints one JSON object per (mesh, query) line and a table on stderr. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "navmesh.h"

#define MAX_CASES 256

typedef struct bcase {
  nm_polyref sref, eref;
  float s[3], e[3];
} bcase;

typedef struct bench {
  nm_query *q;
  nm_filter f;
  bcase c[MAX_CASES];
  int n;
  nm_polyref buf[4096];
  float costs[4096], segs[6 * 192];
  volatile float sink;
} bench;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: robust on a shared machine */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads "<key>":{..."ref":N,"pos":[x,y,z]} from one oracle line. */
static int read_point(const char *line, const char *key, nm_polyref *ref, float *p) {
  const char *k = strstr(line, key), *r, *v;
  if (!k || !(r = strstr(k, "\"ref\":")) || !(v = strstr(k, "\"pos\":["))) return 0;
  *ref = (nm_polyref)strtoul(r + 6, NULL, 10);
  return *ref && sscanf(v + 7, "%f,%f,%f", &p[0], &p[1], &p[2]) == 3;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *b;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = (char *)malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
  if (b) b[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return b;
}

static int load_cases(bench *b, const char *path) {
  size_t len;
  char *text = read_all(path, &len), *line, *save = NULL;
  if (!text) return 0;
  for (line = strtok_r(text, "\n", &save); line && b->n < MAX_CASES; line = strtok_r(NULL, "\n", &save)) {
    bcase *c = &b->c[b->n];
    if (read_point(line, "\"nearest_start\"", &c->sref, c->s) &&
        read_point(line, "\"nearest_end\"", &c->eref, c->e))
      b->n++;
  }
  free(text);
  return b->n;
}

/* ---- one function per query: run case i ---- */

static void q_raycast(bench *b, const bcase *c) {
  float t, n[3];
  int cnt;
  nm_query_raycast(b->q, c->sref, c->s, c->e, &b->f, &t, n, b->buf, 4096, &cnt);
  b->sink += t;
}
static void q_move(bench *b, const bcase *c) {
  float r[3], e[3];
  int i, cnt;
  for (i = 0; i < 3; i++) e[i] = c->s[i] + (c->e[i] - c->s[i]) * 0.1f;
  nm_query_move_along_surface(b->q, c->sref, c->s, e, &b->f, r, b->buf, 64, &cnt);
  b->sink += r[0];
}
static void q_wall(bench *b, const bcase *c) {
  float d, h[3], n[3];
  int found;
  nm_query_distance_to_wall(b->q, c->sref, c->s, 5, &b->f, &d, h, n, &found);
  b->sink += d;
}
static void q_random(bench *b, const bcase *c) {
  nm_polyref r;
  float p[3];
  (void)c;
  nm_query_random_point(b->q, &b->f, &r, p);
  b->sink += p[0];
}
static void q_random_around(bench *b, const bcase *c) {
  nm_polyref r;
  float p[3];
  nm_query_random_point_around(b->q, c->sref, c->s, 5, &b->f, &r, p);
  b->sink += p[0];
}
static void q_circle(bench *b, const bcase *c) {
  int n;
  nm_query_polys_around_circle(b->q, c->sref, c->s, 5, &b->f, b->buf, NULL, b->costs, 4096, &n);
  b->sink += (float)n;
}
static void q_shape(bench *b, const bcase *c) {
  float v[12];
  int n;
  v[0] = c->s[0] - 3; v[1] = c->s[1]; v[2] = c->s[2] - 3;
  v[3] = c->s[0] + 3; v[4] = c->s[1]; v[5] = c->s[2] - 3;
  v[6] = c->s[0] + 3; v[7] = c->s[1]; v[8] = c->s[2] + 3;
  v[9] = c->s[0] - 3; v[10] = c->s[1]; v[11] = c->s[2] + 3;
  nm_query_polys_around_shape(b->q, c->sref, v, 4, &b->f, b->buf, NULL, b->costs, 4096, &n);
  b->sink += (float)n;
}
static void q_local(bench *b, const bcase *c) {
  int n;
  nm_query_local_neighbourhood(b->q, c->sref, c->s, 5, &b->f, b->buf, NULL, 64, &n);
  b->sink += (float)n;
}
static void q_polygons(bench *b, const bcase *c) {
  float ext[3] = {2, 4, 2};
  int n;
  nm_query_polygons(b->q, c->s, ext, &b->f, b->buf, 4096, &n);
  b->sink += (float)n;
}
static void q_segments(bench *b, const bcase *c) {
  int n;
  nm_query_wall_segments(b->q, c->sref, &b->f, b->segs, b->buf, 192, &n);
  b->sink += (float)n;
}
static void q_path(bench *b, const bcase *c) {
  int n;
  nm_query_find_path(b->q, c->sref, c->eref, c->s, c->e, &b->f, b->buf, 4096, &n);
  b->sink += (float)n;
}
static void q_sliced(bench *b, const bcase *c) {
  int n;
  nm_query_find_path_begin(b->q, c->sref, c->eref, c->s, c->e, &b->f);
  while (nm_query_find_path_step(b->q, 64, NULL) == NM_UNFINISHED) {}
  nm_query_find_path_end(b->q, b->buf, 4096, &n);
  b->sink += (float)n;
}

typedef struct qdef {
  const char *name;
  void (*fn)(bench *, const bcase *);
} qdef;

static const qdef queries[] = {
  {"raycast", q_raycast},
  {"moveAlongSurface", q_move},
  {"findDistanceToWall", q_wall},
  {"findRandomPoint", q_random},
  {"findRandomPointAroundCircle", q_random_around},
  {"findPolysAroundCircle", q_circle},
  {"findPolysAroundShape", q_shape},
  {"findLocalNeighbourhood", q_local},
  {"queryPolygons", q_polygons},
  {"getPolyWallSegments", q_segments},
  {"findPath", q_path},
  {"findPathSliced64", q_sliced},
};

/* Mean us per call: rounds over all cases until `secs` have passed; the
 * best of three such measurements (the machine is shared). */
static double measure(bench *b, const qdef *qd, double secs) {
  double best = 1e30;
  int rep;
  for (rep = 0; rep < 3; rep++) {
    double t0 = now(), t;
    long calls = 0;
    do {
      int i;
      for (i = 0; i < b->n; i++) qd->fn(b, &b->c[i]);
      calls += b->n;
      t = now() - t0;
    } while (t < secs / 3);
    if (t / (double)calls * 1e6 < best) best = t / (double)calls * 1e6;
  }
  return best;
}

int main(int argc, char **argv) {
  static const char *const meshes[] = {"dungeon_solo", "dungeon_tiled", "nav_test_solo", "nav_test_tiled",
                                       "undulating_solo", "undulating_tiled", "city_tiled", "maze_tiled"};
  const char *shared = argc > 1 ? argv[1] : "../shared";
  double secs = argc > 2 ? atof(argv[2]) : 0.3;
  const char *only = argc > 3 ? argv[3] : NULL;
  static bench b;
  size_t mi, qi;
  fprintf(stderr, "%-17s", "us/call (C)");
  for (qi = 0; qi < sizeof queries / sizeof *queries; qi++) fprintf(stderr, " %8.8s", queries[qi].name);
  fprintf(stderr, "\n");
  for (mi = 0; mi < sizeof meshes / sizeof *meshes; mi++) {
    char path[1024];
    size_t len;
    char *bytes;
    nm_navmesh *mesh = NULL;
    const int large = strstr(meshes[mi], "city") || strstr(meshes[mi], "maze");
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, meshes[mi]);
    if (!(bytes = read_all(path, &len)) || nm_navmesh_load(bytes, len, NULL, NULL, &mesh) < 0) {
      fprintf(stderr, "cannot load %s\n", path);
      free(bytes);
      return 1;
    }
    free(bytes);
    b.n = 0;
    snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, meshes[mi]);
    if (!load_cases(&b, path) || nm_query_new(mesh, large ? 65535 : 2048, NULL, &b.q) < 0) return 1;
    nm_filter_init(&b.f);
    nm_query_seed(b.q, 1);
    fprintf(stderr, "%-17s", meshes[mi]);
    for (qi = 0; qi < sizeof queries / sizeof *queries; qi++) {
      double us;
      if (only && strcmp(only, queries[qi].name) != 0) continue;
      us = measure(&b, &queries[qi], secs);
      fprintf(stderr, " %8.3f", us);
      printf("{\"lang\":\"c\",\"mesh\":\"%s\",\"query\":\"%s\",\"cases\":%d,\"us_per_call\":%.4f}\n",
             meshes[mi], queries[qi].name, b.n, us);
    }
    fprintf(stderr, "\n");
    nm_query_free(b.q);
    nm_navmesh_release(mesh);
  }
  return 0;
}
