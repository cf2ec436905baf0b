/* optimal_bench.c -- optimal (truly shortest) paths against the default
 * path, in microseconds per path, on the shared navmeshes with the oracle's
 * query points (bench/cases.h). Default: nm_query_find_path +
 * nm_query_straight_path. Optimal: nm_query_path_optimal (what mesh:path
 * { optimal = true } runs: the turns come straight from the search), and,
 * for reference, nm_query_find_path_optimal + nm_query_straight_path
 * (corridor, then funnel). Only cases the default search connects are
 * timed; the lengths are compared on them too. Node pools as in the oracle
 * (2048, 65535 for the large worlds). The three methods run in alternating
 * passes over all pairs; the ratios are medians of each round's optimal /
 * default (below 1: the optimal path is the faster one), which a machine
 * whose speed drifts during the run (a shared VM) moves far less than
 * separate timing blocks did. A second table times the cases whose goal
 * the start cannot reach (partial paths; the default search's partial
 * cases), where the optimal search must first find the point nearest the
 * goal. One row per mesh on stdout, JSON lines on stderr. Usage:
 * optimal_bench SHARED_DIR [seconds] */
#include <math.h>
#include "navmesh.h"
#include "cases.h"
#include "pair.h"

#define MAXP 4096

enum { M_DEFAULT, M_PATH, M_CORRIDOR };

typedef struct pair {
  nm_polyref s, e;
  float sp[3], ep[3];
} pair;

static const float EXT[3] = {2, 4, 2};

/* One path by method m; returns its X/Z length (< 0 on failure). */
static double one_path(nm_query *q, const pair *p, const nm_filter *f, int m, nm_status *status) {
  static nm_polyref path[MAXP], refs[MAXP];
  static float pts[3 * MAXP];
  int n = 0, np = 0, i;
  double len = 0;
  nm_status st;
  if (m == M_PATH) {
    st = nm_query_path_optimal(q, p->s, p->e, p->sp, p->ep, f, pts, refs, MAXP, &np);
  } else {
    st = m == M_CORRIDOR ? nm_query_find_path_optimal(q, p->s, p->e, p->sp, p->ep, f, path, MAXP, &n)
                         : nm_query_find_path(q, p->s, p->e, p->sp, p->ep, f, path, MAXP, &n);
    if (st >= 0 && n > 0) st |= nm_query_straight_path(q, p->sp, p->ep, path, n, NULL, pts, NULL, NULL, MAXP, &np);
  }
  if (status) *status = st;
  if (st < 0 || np == 0) return -1;
  for (i = 1; i < np; i++) len += hypot(pts[3 * i] - pts[3 * i - 3], pts[3 * i + 2] - pts[3 * i - 1]);
  return len;
}

/* Seconds for one pass of method m over all pairs. */
static double pass(nm_query *q, const pair *pairs, int n, const nm_filter *f, int m) {
  const double t0 = bench_now();
  int i;
  for (i = 0; i < n; i++) one_path(q, &pairs[i], f, m, NULL);
  return bench_now() - t0;
}

/* Timings of the three methods, measured in alternating passes (default,
 * optimal, corridor + funnel, again and again) so that a machine that
 * slows down or speeds up mid-run weighs on all three alike: us[] gets the
 * mean microseconds per path, ratio[] the median over the rounds of each
 * round's optimal / default and corridor / default. */
typedef struct timing {
  double us[3], ratio[2];
} timing;

#define MAX_ROUNDS 4096

static void time_methods(nm_query *q, const pair *pairs, int n, const nm_filter *f, double secs, timing *tm) {
  static double r_opt[MAX_ROUNDS], r_cor[MAX_ROUNDS];
  double sum[3] = {0, 0, 0};
  const double t0 = bench_now();
  int round = 0, k = 0, m;
  do {
    double t[3];
    for (m = 0; m < 3; m++) sum[m] += t[m] = pass(q, pairs, n, f, m);
    if (k < MAX_ROUNDS && t[M_DEFAULT] > 0) {
      r_opt[k] = t[M_PATH] / t[M_DEFAULT];
      r_cor[k++] = t[M_CORRIDOR] / t[M_DEFAULT];
    }
  } while (bench_continue(t0, secs, &round));
  for (m = 0; m < 3; m++) tm->us[m] = sum[m] * 1e6 / ((double)round * (n ? n : 1));
  tm->ratio[0] = k ? bench_median(r_opt, k) : 0;
  tm->ratio[1] = k ? bench_median(r_cor, k) : 0;
}

/* Length comparison over the pairs: how many optimal paths are shorter, by
 * how much (relative: the mean over all the complete paths compared, the
 * mean over the shortened ones, the max), and how many are longer (must be
 * 0). */
typedef struct gains {
  int shorter, longer;
  double mean, mean_shortened, max;
} gains;

static void compare(nm_query *q, const pair *pairs, int n, const nm_filter *f, gains *g) {
  double sum = 0;
  int i;
  memset(g, 0, sizeof *g);
  for (i = 0; i < n; i++) {
    nm_status st;
    const double a = one_path(q, &pairs[i], f, M_DEFAULT, NULL);
    const double b = one_path(q, &pairs[i], f, M_PATH, &st);
    if (b < 0 || (st & (NM_PARTIAL | NM_OUT_OF_NODES)) || b > a * (1 + 1e-5) + 1e-5) g->longer++;
    else if (b < a * (1 - 1e-5)) {
      g->shorter++;
      sum += (a - b) / a;
      if ((a - b) / a > g->max) g->max = (a - b) / a;
    }
  }
  g->mean = n ? sum / n : 0;
  g->mean_shortened = g->shorter ? sum / g->shorter : 0;
}

/* The oracle cases of one mesh that the default search connects (or, with
 * `partial`, those where it ends partial: goals the start cannot reach). */
static int make_pairs(nm_query *q, const nm_filter *f, const bench_case *c, int nc, pair *pairs, int partial) {
  int i, n = 0;
  for (i = 0; i < nc; i++) {
    pair *p = &pairs[n];
    nm_status st;
    nm_query_find_nearest(q, c[i].start, EXT, f, &p->s, p->sp, NULL);
    nm_query_find_nearest(q, c[i].end, EXT, f, &p->e, p->ep, NULL);
    if (!p->s || !p->e) continue;
    if (one_path(q, p, f, M_DEFAULT, &st) >= 0 && !(st & NM_OUT_OF_NODES) && !(st & NM_PARTIAL) == !partial) n++;
  }
  return n;
}

/* One row: the mesh's connected pairs, or (`partial`) its unreachable
 * goals, where only the times are compared. */
static void bench_one(const char *shared, const char *name, double secs, int partial) {
  char path[1024];
  unsigned char *bytes;
  size_t len = 0;
  bench_case *cases = NULL;
  pair *pairs;
  nm_navmesh *mesh;
  nm_navmesh_info info;
  nm_query *q;
  nm_filter f;
  gains g;
  timing tm;
  int nc, n;
  snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
  if (!(nc = bench_read_cases(path, &cases))) return;
  snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
  bytes = bench_read_file(path, &len);
  if (!bytes || nm_navmesh_load(bytes, len, NULL, NULL, &mesh) < 0) {
    free(bytes);
    free(cases);
    return;
  }
  free(bytes);
  nm_navmesh_get_info(mesh, &info);
  nm_query_new(mesh, info.polys > 2000 ? 65535 : 2048, NULL, &q);
  nm_filter_init(&f);
  pairs = (pair *)malloc((size_t)nc * sizeof *pairs);
  n = make_pairs(q, &f, cases, nc, pairs, partial);
  if (partial && n > 0) {
    time_methods(q, pairs, n, &f, secs, &tm);
    printf("%-17s %5d %10.2f %10.2f %6.2f %12.2f %6.2f %6.2f\n", name, n, tm.us[M_DEFAULT], tm.us[M_PATH],
           tm.ratio[0], tm.us[M_CORRIDOR], tm.ratio[1], pair_load());
    fprintf(stderr,
            "{\"impl\":\"navmesh-c\",\"bench\":\"optimal_partial\",\"mesh\":\"%s\",\"cases\":%d,"
            "\"default_us\":%.3f,\"optimal_us\":%.3f,\"ratio\":%.3f,\"optimal_corridor_us\":%.3f,"
            "\"corridor_ratio\":%.3f}\n",
            name, n, tm.us[M_DEFAULT], tm.us[M_PATH], tm.ratio[0], tm.us[M_CORRIDOR], tm.ratio[1]);
  } else if (!partial) {
    compare(q, pairs, n, &f, &g);
    time_methods(q, pairs, n, &f, secs, &tm);
    printf("%-17s %5d %10.2f %10.2f %6.2f %12.2f %6.2f %6.1f%% %7.3f%% %7.2f%% %6.2f%% %6d %6.2f\n", name, n,
           tm.us[M_DEFAULT], tm.us[M_PATH], tm.ratio[0], tm.us[M_CORRIDOR], tm.ratio[1],
           n ? 100.0 * g.shorter / n : 0, 100 * g.mean, 100 * g.mean_shortened, 100 * g.max, g.longer, pair_load());
    fprintf(stderr,
            "{\"impl\":\"navmesh-c\",\"bench\":\"optimal\",\"mesh\":\"%s\",\"cases\":%d,\"default_us\":%.3f,"
            "\"optimal_us\":%.3f,\"ratio\":%.3f,\"optimal_corridor_us\":%.3f,\"corridor_ratio\":%.3f,"
            "\"shorter\":%d,\"gain_mean\":%.6f,\"gain_mean_shortened\":%.5f,\"gain_max\":%.5f,\"longer\":%d}\n",
            name, n, tm.us[M_DEFAULT], tm.us[M_PATH], tm.ratio[0], tm.us[M_CORRIDOR], tm.ratio[1], g.shorter, g.mean,
            g.mean_shortened, g.max, g.longer);
  }
  free(pairs);
  free(cases);
  nm_query_free(q);
  nm_navmesh_release(mesh);
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  double secs = argc > 2 ? atof(argv[2]) : 1.0;
  int i;
  printf("optimal paths against the default path (A* + funnel), CPU time, median of per-round ratios; lengths\n"
         "shortened by: mean over all complete paths, mean over the shortened ones, max\n");
  printf("optimal paths     %5s %10s %10s %6s %12s %6s %7s %8s %8s %7s %6s %6s\n", "cases", "default us", "optimal us",
         "ratio", "corr+funnel", "ratio", "shorter", "mean", "mean sh.", "max", "longer", "load");
  for (i = 0; bench_meshes[i]; i++)
    if (!bench_skip(bench_meshes[i])) bench_one(shared, bench_meshes[i], secs, 0);
  printf("unreachable goals %5s %10s %10s %6s %12s %6s %6s\n", "cases", "default us", "optimal us", "ratio",
         "corr+funnel", "ratio", "load");
  for (i = 0; bench_meshes[i]; i++)
    if (!bench_skip(bench_meshes[i])) bench_one(shared, bench_meshes[i], secs, 1);
  return 0;
}
