/* pair.h -- two implementations of one job timed side by side in one
 * process (the yardstick every `make bench` ratio uses).
 *
 * A pair runs in rounds; each round times one pass of A and one of B, in
 * alternating order (A then B, then B then A, ...), on the same inputs, in
 * CPU time of the process (BENCH_CLOCK=wall: wall-clock time). The figure is
 * the median over the rounds of each round's A/B, with its quartiles: a
 * machine whose speed changes during the run (a shared VM, other jobs,
 * frequency steps) weighs on both sides of a round alike, where separate
 * timing blocks or separate programs measured the machine as much as the
 * code. The per-call times are the medians of the rounds' pass times. The
 * 1-minute load average read when the pair ends goes beside it.
 * Include cases.h first (bench_now, bench_median). */
#ifndef NM_BENCH_PAIR_H
#define NM_BENCH_PAIR_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One pass of a side: runs job `kind` `reps` times over all its inputs and
 * returns the seconds it took (pair_clock). */
typedef double (*pair_pass)(void *side, int kind, int reps);

typedef struct pair_result {
  double a_us, b_us;    /* median microseconds per call */
  double ratio, q1, q3; /* median and quartiles of the per-round A/B */
  double load;          /* 1-minute load average at the end */
  int rounds, reps;
} pair_result;

#define PAIR_MAX_ROUNDS 512

/* The clock of both sides: bench_now (CPU time; BENCH_CLOCK=wall). */
#define pair_clock bench_now

/* The 1-minute load average (-1 when unknown). */
static double pair_load(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  double l = -1;
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

/* Passes per round: enough for a pass to last about `target` seconds (one
 * pass of the slower side measured first; it also warms the caches). */
static int pair_reps(pair_pass a, void *as, int ak, pair_pass b, void *bs, int bk, double target) {
  double t = a(as, ak, 1), u = b(bs, bk, 1);
  if (u > t) t = u;
  if (t <= 0) return 1000;
  return t >= target ? 1 : (int)(target / t + 0.5);
}

/* Times side A (job ak) against side B (job bk) for about `secs` seconds in
 * all (at least 5 rounds; exactly BENCH_ROUNDS rounds of one pass when that
 * is set, for callgrind). a_calls / b_calls: calls per pass of each side. */
static void pair_run(pair_pass a, void *as, int ak, int a_calls, pair_pass b, void *bs, int bk, int b_calls,
                     double secs, pair_result *r) {
  static double ta[PAIR_MAX_ROUNDS], tb[PAIR_MAX_ROUNDS], ratio[PAIR_MAX_ROUNDS];
  const char *fixed = getenv("BENCH_ROUNDS");
  const int nfixed = fixed ? atoi(fixed) : 0;
  const double t0 = pair_clock();
  int n = 0, i;
  r->reps = nfixed > 0 ? 1 : pair_reps(a, as, ak, b, bs, bk, secs / 16);
  do {
    if (n % 2 == 0) {
      ta[n] = a(as, ak, r->reps);
      tb[n] = b(bs, bk, r->reps);
    } else {
      tb[n] = b(bs, bk, r->reps);
      ta[n] = a(as, ak, r->reps);
    }
    ratio[n] = tb[n] > 0 ? ta[n] / tb[n] : 0;
    n++;
  } while (n < PAIR_MAX_ROUNDS && (nfixed > 0 ? n < nfixed : n < 5 || pair_clock() - t0 < secs));
  r->rounds = n;
  r->ratio = bench_median(ratio, n); /* sorts ratio[] */
  r->q1 = ratio[(n - 1) / 4];
  r->q3 = ratio[(3 * (n - 1) + 3) / 4];
  for (i = 0; i < n; i++) {
    ta[i] *= 1e6 / ((double)r->reps * (a_calls > 0 ? a_calls : 1));
    tb[i] *= 1e6 / ((double)r->reps * (b_calls > 0 ? b_calls : 1));
  }
  r->a_us = bench_median(ta, n);
  r->b_us = bench_median(tb, n);
  r->load = pair_load();
}
#endif
