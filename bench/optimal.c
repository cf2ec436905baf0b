/* bench/optimal.c -- optimal paths against the default path
 * (nm_query_find_path + nm_query_straight_path), in microseconds per path,
 * on every navmesh file given (or found in a directory). The optimal path
 * is timed two ways: nm_query_path_optimal (what mesh:path { optimal = true }
 * runs: the turns come from the search) and nm_query_find_path_optimal +
 * nm_query_straight_path (corridor, then funnel).
 *
 *   build/bench/optimal [-s seconds] [-n pairs] file.bin|dir ...
 *
 * Pairs are random points on random polygons (splitmix64, fixed seed),
 * snapped with nm_query_find_nearest; only pairs the default search connects
 * are timed. The node pool is 2048 (65535 for meshes of more than 2000
 * polygons), as in the oracle. One line of text and one JSON line per mesh. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "navmesh.h"

#define MAX_PTS 4096

typedef struct pair {
  nm_polyref s, e;
  float sp[3], ep[3];
} pair;

typedef struct polys {
  nm_polyref *refs;
  int n, cap;
} polys;

static uint64_t rng_state = 1;

static uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double rng_unit(void) { return (double)(rng_next() >> 11) / 9007199254740992.0; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void collect(void *ud, nm_polyref ref) {
  polys *p = (polys *)ud;
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 1024;
    p->refs = (nm_polyref *)realloc(p->refs, (size_t)p->cap * sizeof *p->refs);
  }
  p->refs[p->n++] = ref;
}

/* A random point on a random ground polygon, snapped onto the mesh. */
static int random_point(nm_query *q, const polys *ps, const nm_filter *f, nm_polyref *ref, float *pt) {
  const float ext[3] = {2, 4, 2};
  float v[3 * 6], p[3];
  int nv, k;
  double r1, r2;
  nm_navmesh_get_poly_verts(nm_query_mesh(q), ps->refs[rng_next() % (uint64_t)ps->n], v, &nv);
  if (nv < 3) return 0;
  k = 1 + (int)(rng_next() % (uint64_t)(nv - 2));
  r1 = rng_unit();
  r2 = rng_unit();
  if (r1 + r2 > 1) { r1 = 1 - r1; r2 = 1 - r2; }
  for (nv = 0; nv < 3; nv++)
    p[nv] = (float)(v[nv] + r1 * (v[3 * k + nv] - v[nv]) + r2 * (v[3 * k + 3 + nv] - v[nv]));
  return nm_query_find_nearest(q, p, ext, f, ref, pt, NULL) == NM_OK;
}

enum { M_DEFAULT, M_CORRIDOR, M_PATH };

/* One path by method m (M_*); returns its X/Z length (< 0 on failure). */
static double one_path(nm_query *q, const pair *p, const nm_filter *f, int m, nm_polyref *path,
                       int cap, nm_status *status) {
  static float pts[3 * MAX_PTS];
  static nm_polyref refs[MAX_PTS];
  int n = 0, np = 0, i;
  double len = 0;
  nm_status st;
  if (m == M_PATH) {
    st = nm_query_path_optimal(q, p->s, p->e, p->sp, p->ep, f, pts, refs, MAX_PTS, &np);
    if (status) *status = st;
    if (st < 0) return -1;
  } else {
    st = m == M_CORRIDOR ? nm_query_find_path_optimal(q, p->s, p->e, p->sp, p->ep, f, path, cap, &n)
                         : nm_query_find_path(q, p->s, p->e, p->sp, p->ep, f, path, cap, &n);
    if (status) *status = st;
    if (st < 0 || n == 0) return -1;
    if (nm_query_straight_path(q, p->sp, p->ep, path, n, NULL, pts, NULL, NULL, MAX_PTS, &np) < 0) return -1;
  }
  for (i = 1; i < np; i++)
    len += hypot(pts[3 * i] - pts[3 * i - 3], pts[3 * i + 2] - pts[3 * i - 1]);
  return len;
}

/* Microseconds per path of one method over all pairs, repeated for `secs`. */
static double time_method(nm_query *q, const pair *pairs, int n, const nm_filter *f, int m,
                          nm_polyref *path, int cap, double secs) {
  double t0 = now(), t;
  long runs = 0;
  int i;
  do {
    for (i = 0; i < n; i++) one_path(q, &pairs[i], f, m, path, cap, NULL);
    runs += n;
    t = now() - t0;
  } while (t < secs);
  return t * 1e6 / (double)runs;
}

static unsigned char *read_all(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  unsigned char *buf = NULL;
  long n;
  if (!fp) return NULL;
  if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) > 0 && fseek(fp, 0, SEEK_SET) == 0) {
    buf = (unsigned char *)malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) { free(buf); buf = NULL; }
    *len = (size_t)n;
  }
  fclose(fp);
  return buf;
}

/* Makes up to `want` connected pairs; returns how many. Also measures how
 * much shorter the optimal paths are. */
static int make_pairs(nm_query *q, const nm_filter *f, pair *pairs, int want, nm_polyref *path, int cap,
                      int *shorter, double *gain_mean, double *gain_max, int *bad) {
  polys ps = {NULL, 0, 0};
  int n = 0, tries = 0;
  double sum = 0;
  nm_navmesh_foreach_poly(nm_query_mesh(q), collect, &ps);
  *shorter = *bad = 0;
  *gain_max = 0;
  while (n < want && tries++ < want * 20 && ps.n > 0) {
    pair *p = &pairs[n];
    nm_status st;
    double a, b;
    if (!random_point(q, &ps, f, &p->s, p->sp) || !random_point(q, &ps, f, &p->e, p->ep)) continue;
    a = one_path(q, p, f, M_DEFAULT, path, cap, &st);
    if (a < 0 || (st & (NM_PARTIAL | NM_OUT_OF_NODES))) continue;
    b = one_path(q, p, f, M_PATH, path, cap, &st);
    if (b < 0 || (st & (NM_PARTIAL | NM_OUT_OF_NODES)) || b > a * (1 + 1e-5) + 1e-5) {
      (*bad)++;
      fprintf(stderr, "worse: %u %u %.9g %.9g %.9g %.9g %.9g %.9g (default %.6f, optimal %.6f, status %d)\n",
              p->s, p->e, p->sp[0], p->sp[1], p->sp[2], p->ep[0], p->ep[1], p->ep[2], a, b, st);
    }
    if (b >= 0 && b < a * (1 - 1e-5)) {
      (*shorter)++;
      sum += (a - b) / a;
      if ((a - b) / a > *gain_max) *gain_max = (a - b) / a;
    }
    n++;
  }
  *gain_mean = *shorter ? sum / *shorter : 0;
  free(ps.refs);
  return n;
}

static void bench_file(const char *file, int want, double secs) {
  static pair pairs[100000];
  static nm_polyref path[1 << 16];
  const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  size_t len = 0;
  unsigned char *bytes = read_all(file, &len);
  nm_navmesh *mesh;
  nm_navmesh_info info;
  nm_query *q;
  nm_filter f;
  int n, shorter, bad;
  double gmean, gmax, ta, to, tc;
  if (!bytes || nm_navmesh_load(bytes, len, NULL, NULL, &mesh) < 0) {
    fprintf(stderr, "%s: cannot load\n", file);
    free(bytes);
    return;
  }
  free(bytes);
  nm_navmesh_get_info(mesh, &info);
  nm_query_new(mesh, info.polys > 2000 ? 65535 : 2048, NULL, &q);
  nm_filter_init(&f);
  rng_state = 1;
  if (want > 100000) want = 100000;
  n = make_pairs(q, &f, pairs, want, path, 1 << 16, &shorter, &gmean, &gmax, &bad);
  ta = time_method(q, pairs, n, &f, M_DEFAULT, path, 1 << 16, secs);
  to = time_method(q, pairs, n, &f, M_PATH, path, 1 << 16, secs);
  tc = time_method(q, pairs, n, &f, M_CORRIDOR, path, 1 << 16, secs);
  printf("%-22s %5d pairs  default %8.2f us  optimal %8.2f us (x%.2f; corridor+funnel %8.2f us, x%.2f)"
         "  shorter in %5.1f%% (mean %.2f%%, max %.1f%%)%s\n",
         name, n, ta, to, to / ta, tc, tc / ta, n ? 100.0 * shorter / n : 0, 100 * gmean, 100 * gmax,
         bad ? "  LONGER OR FAILED!" : "");
  printf("{\"bench\":\"optimal\",\"mesh\":\"%s\",\"pairs\":%d,\"default_us\":%.3f,\"optimal_us\":%.3f,"
         "\"optimal_corridor_us\":%.3f,\"shorter\":%d,\"gain_mean\":%.5f,\"gain_max\":%.5f,\"worse\":%d}\n",
         name, n, ta, to, tc, shorter, gmean, gmax, bad);
  fflush(stdout);
  nm_query_free(q);
  nm_navmesh_release(mesh);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Benchmarks every *.bin file of directory dir, in name order. */
static void bench_dir(const char *dir, int want, double secs) {
  char *names[256], buf[4096];
  int n = 0, i;
  DIR *d = opendir(dir);
  struct dirent *e;
  if (!d) return;
  while ((e = readdir(d)) != NULL && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 4 && strcmp(e->d_name + l - 4, ".bin") == 0) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], by_name);
  for (i = 0; i < n; i++) {
    snprintf(buf, sizeof buf, "%s/%s", dir, names[i]);
    bench_file(buf, want, secs);
    free(names[i]);
  }
}

int main(int argc, char **argv) {
  double secs = 0.5;
  int want = 1000, i;
  for (i = 1; i < argc; i++) {
    size_t l = strlen(argv[i]);
    DIR *d;
    if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) secs = atof(argv[++i]);
    else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) want = atoi(argv[++i]);
    else if (l > 4 && strcmp(argv[i] + l - 4, ".bin") == 0) bench_file(argv[i], want, secs);
    else if ((d = opendir(argv[i])) != NULL) { closedir(d); bench_dir(argv[i], want, secs); }
    else fprintf(stderr, "skipping %s (no such file or directory)\n", argv[i]);
  }
  return 0;
}
