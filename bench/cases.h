/* cases.h -- query cases for the benchmarks: the start and end points of the
 * shared oracle files (../shared/oracle/NAME.jsonl), read with a tiny
 * field scanner (the files have one JSON object per line). Shared by the C
 * bench and the Detour reference bench. */
#ifndef NM_BENCH_CASES_H
#define NM_BENCH_CASES_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_case { float start[3], end[3]; } bench_case;

/* Parses "key":[x,y,z] from a line into v; 0 when absent. */
static int bench_vec(const char *line, const char *key, float *v) {
  const char *p = strstr(line, key);
  int i;
  if (!p) return 0;
  p = strchr(p, '[');
  if (!p) return 0;
  p++;
  for (i = 0; i < 3; i++) {
    char *end;
    v[i] = strtof(p, &end);
    if (end == p) return 0;
    p = end + 1;
  }
  return 1;
}

/* Reads the cases of one oracle file; returns the count (0 on failure). */
static int bench_read_cases(const char *path, bench_case **out) {
  FILE *f = fopen(path, "rb");
  static char line[1 << 20];
  int n = 0, cap = 0;
  bench_case *c = NULL;
  if (!f) return 0;
  while (fgets(line, sizeof line, f)) {
    if (n == cap) {
      cap = cap ? cap * 2 : 256;
      c = (bench_case *)realloc(c, (size_t)cap * sizeof *c);
      if (!c) { fclose(f); return 0; }
    }
    if (bench_vec(line, "\"start\":", c[n].start) && bench_vec(line, "\"end\":", c[n].end)) n++;
  }
  fclose(f);
  *out = c;
  return n;
}

/* Reads a whole file. */
static unsigned char *bench_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (unsigned char *)malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* Seconds of this process's CPU time (on a busy machine, time spent
 * preempted is left out), or on the wall clock with BENCH_CLOCK=wall. */
static double bench_now(void) {
  static int clock_id = -1;
  struct timespec ts;
  if (clock_id < 0) {
    const char *c = getenv("BENCH_CLOCK");
    clock_id = c && strcmp(c, "wall") == 0 ? (int)CLOCK_MONOTONIC : (int)CLOCK_PROCESS_CPUTIME_ID;
  }
  clock_gettime((clockid_t)clock_id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Loop control: run for `secs`, or exactly BENCH_ROUNDS rounds when that is
 * set (fixed work, for instruction counting under callgrind). */
static int bench_continue(double t0, double secs, int *round) {
  const char *e = getenv("BENCH_ROUNDS");
  (*round)++;
  if (e && atoi(e) > 0) return *round < atoi(e);
  return bench_now() - t0 < secs;
}

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of n values (sorts them). */
static double bench_median(double *v, int n) {
  if (n == 0) return 0;
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* BENCH_MESH=name limits a run to one mesh. */
static int bench_skip(const char *name) {
  const char *only = getenv("BENCH_MESH");
  return only && *only && strcmp(only, name) != 0;
}

static const char *const bench_meshes[] = {"dungeon_solo", "dungeon_tiled", "nav_test_solo",
                                           "nav_test_tiled", "undulating_solo", "undulating_tiled",
                                           "city_tiled", "maze_tiled", NULL};
#endif
