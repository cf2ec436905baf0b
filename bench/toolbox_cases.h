/* toolbox_cases.h -- inputs and timing loop of the query toolbox benchmarks
 * (toolbox_bench.c for this library, detour_toolbox.cpp for Detour): the
 * oracle cases' nearest start/end polygons and points, which are the same
 * refs in both (Detour's numbering), and a CPU-time loop (robust on a shared
 * machine). Include cases.h (file reading, the mesh list) first. */
#ifndef NM_TOOLBOX_CASES_H
#define NM_TOOLBOX_CASES_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TB_MAX_CASES 256

typedef struct tb_case {
  unsigned int sref, eref;
  float s[3], e[3];
} tb_case;

static inline double tb_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads "<key>":{..."ref":N,"pos":[x,y,z]} from one oracle line. */
static inline int tb_read_point(const char *line, const char *key, unsigned int *ref, float *p) {
  const char *k = strstr(line, key), *r, *v;
  if (!k || !(r = strstr(k, "\"ref\":")) || !(v = strstr(k, "\"pos\":["))) return 0;
  *ref = (unsigned int)strtoul(r + 6, NULL, 10);
  return *ref && sscanf(v + 7, "%f,%f,%f", &p[0], &p[1], &p[2]) == 3;
}

/* Cases of one oracle file with both nearest polygons found; returns count. */
static inline int tb_load_cases(const char *path, tb_case *c) {
  static char line[1 << 20];
  FILE *f = fopen(path, "rb");
  int n = 0;
  if (!f) return 0;
  while (n < TB_MAX_CASES && fgets(line, sizeof line, f))
    if (tb_read_point(line, "\"nearest_start\"", &c[n].sref, c[n].s) &&
        tb_read_point(line, "\"nearest_end\"", &c[n].eref, c[n].e))
      n++;
  fclose(f);
  return n;
}

/* Query names, in table order (both drivers time the same list). */
static const char *const tb_queries[] = {
  "raycast", "moveAlongSurface", "findDistanceToWall", "findRandomPoint",
  "findRandomPointAroundCircle", "findPolysAroundCircle", "findPolysAroundShape",
  "findLocalNeighbourhood", "queryPolygons", "getPolyWallSegments", "findPath",
  "findPathSliced64", NULL};

/* Inputs every query derives from a case: a point a tenth of the way to the
 * end (moveAlongSurface) and a 6 x 6 square around the start (shape), wound
 * as navmesh polygons are (Detour needs that winding; we take either). */
static inline void tb_derived(const tb_case *c, float *step_end, float *square) {
  static const float corner[4][2] = {{-3, 3}, {3, 3}, {3, -3}, {-3, -3}};
  int i;
  for (i = 0; i < 3; i++) step_end[i] = c->s[i] + (c->e[i] - c->s[i]) * 0.1f;
  for (i = 0; i < 4; i++) {
    square[i * 3] = c->s[0] + corner[i][0];
    square[i * 3 + 1] = c->s[1];
    square[i * 3 + 2] = c->s[2] + corner[i][1];
  }
}

/* Prints the table header (stdout). */
static inline void tb_header(const char *who) {
  int i;
  printf("%-17s", who);
  for (i = 0; tb_queries[i]; i++) printf(" %8.8s", tb_queries[i]);
  printf("\n");
}
#endif
