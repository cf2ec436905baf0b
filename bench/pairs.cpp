// pairs.cpp -- our queries against Detour's, timed side by side in one
// process (pair.h: alternating rounds, CPU time, median of the per-round
// ratios with quartiles and the load average beside it), on the shared
// navmeshes with the oracle's query points as inputs: findNearestPoly,
// findPath, findStraightPath, the three in a row, loading the MSET file's
// bytes, and the query toolbox (side_ours.h, side_detour.h; its findPath,
// the same job on the toolbox cases, is left out). Detour is Debian's librecast-dev; built
// with -DNO_DETOUR (no librecast-dev) it times our side alone.
//   pairs SHARED_DIR [seconds per pair]
// BENCH_MESH=name and BENCH_JOB=name pick one mesh / job; the toolbox jobs
// get a third of the time each. Table on stdout, JSON lines on stderr.
#include <new>
extern "C" {
#include "cases.h"
#include "toolbox_cases.h"
#include "pair.h"
#include "side_ours.h"
}
#ifndef NO_DETOUR
#include "side_detour.h"
static const char *const vs = "Detour";
#else
static const char *const vs = "(none)";
#endif

// The name of job k (side_jobs, then the toolbox queries).
static const char *job_name(int k) { return k < SIDE_TOOLBOX ? side_jobs[k] : tb_queries[k - SIDE_TOOLBOX]; }

#ifdef NO_DETOUR
static double no_pass(void *, int, int) { return 0; }
#endif

// Times every job on one mesh; false when its files are missing.
static bool bench_mesh(const char *shared, const char *name, double secs) {
  static ours_side o;
  if (!ours_open(&o, shared, name)) return false;
#ifndef NO_DETOUR
  static DetourSide d;
  if (!detour_open(&d, shared, name)) { ours_close(&o); return false; }
#endif
  const char *only = getenv("BENCH_JOB");
  for (int k = 0; k < SIDE_TOOLBOX || tb_queries[k - SIDE_TOOLBOX]; k++) {
    if (only && *only && strcmp(only, job_name(k)) != 0 && !(strcmp(only, "toolbox") == 0 && k >= SIDE_TOOLBOX))
      continue;
    if (k >= SIDE_TOOLBOX && strcmp(job_name(k), side_jobs[SIDE_PATH]) == 0) continue; // done above
    pair_result r;
    const double t = k >= SIDE_TOOLBOX ? secs / 3 : secs;
#ifndef NO_DETOUR
    pair_run(ours_pass, &o, k, ours_calls(&o, k), detour_pass, &d, k, detour_calls(&d, k), t, &r);
#else
    pair_run(ours_pass, &o, k, ours_calls(&o, k), no_pass, 0, k, 1, t, &r);
#endif
#ifndef NO_DETOUR
    printf("%-17s %-28s %10.3f %10.3f %7.3f [%5.3f-%5.3f] %4d %6.2f\n", name, job_name(k), r.a_us, r.b_us, r.ratio,
           r.q1, r.q3, r.rounds, r.load);
#else
    printf("%-17s %-28s %10.3f %4d %6.2f\n", name, job_name(k), r.a_us, r.rounds, r.load);
#endif
    fflush(stdout);
    fprintf(stderr,
            "{\"bench\":\"pairs\",\"impl\":\"navmesh-c\",\"vs\":\"%s\",\"mesh\":\"%s\",\"job\":\"%s\",\"ours_us\":%.4f,"
            "\"vs_us\":%.4f,\"ratio\":%.4f,\"q1\":%.4f,\"q3\":%.4f,\"rounds\":%d,\"reps\":%d,\"load\":%.2f}\n",
            vs, name, job_name(k), r.a_us, r.b_us, r.ratio, r.q1, r.q3, r.rounds, r.reps, r.load);
  }
  ours_close(&o);
#ifndef NO_DETOUR
  detour_close(&d);
#endif
  return true;
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const double secs = argc > 2 ? atof(argv[2]) : 1.0;
  printf("queries in C: ours against %s in one process, %s time, us per call (medians over the rounds);\n"
         "ratio = median of the per-round ours/%s [quartiles]; below 1 ours is faster\n",
         vs, getenv("BENCH_CLOCK") && strcmp(getenv("BENCH_CLOCK"), "wall") == 0 ? "wall-clock" : "CPU", vs);
#ifndef NO_DETOUR
  printf("%-17s %-28s %10s %10s %7s %13s %4s %6s\n", "mesh", "job", "ours us", vs, "ratio", "[q1-q3]", "rnds", "load");
#else
  printf("%-17s %-28s %10s %4s %6s\n", "mesh", "job", "ours us", "rnds", "load");
#endif
  for (int i = 0; bench_meshes[i]; i++)
    if (!bench_skip(bench_meshes[i])) bench_mesh(shared, bench_meshes[i], secs);
  return 0;
}
