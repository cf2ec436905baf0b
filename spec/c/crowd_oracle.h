/* crowd_oracle.h -- reads the crowd scenarios of ../shared/oracle/crowd
 * (one JSON object per line: a header with the agents' starts and targets,
 * tick lines every 10 ticks, a final line; see that folder's README) with a
 * tiny field scanner. Shared by the C test (spec/c/test_crowd.c) and the
 * side-by-side bench against DetourCrowd (bench/crowd_bench.cpp). */
#ifndef NM_CROWD_ORACLE_H
#define NM_CROWD_ORACLE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CO_MAX_AGENTS 2048
#define CO_MAX_RECORDS 41

typedef struct co_point {
  float pos[3];
  unsigned ref;
} co_point;

typedef struct co_record {
  int tick;
  float npos[CO_MAX_AGENTS][3];
  float vel[CO_MAX_AGENTS][3];
  int state[CO_MAX_AGENTS], target_state[CO_MAX_AGENTS];
  unsigned first_poly[CO_MAX_AGENTS];
} co_record;

typedef struct co_scenario {
  char navmesh[64];
  int agents, max_agents, ticks, record_every, retarget_tick;
  float max_agent_radius, dt;
  co_point start[CO_MAX_AGENTS], target[CO_MAX_AGENTS], target2[CO_MAX_AGENTS];
  int target2_agent[CO_MAX_AGENTS], ntarget2;
  int nrecords;
  co_record *rec; /* [CO_MAX_RECORDS] */
  float final_target[CO_MAX_AGENTS][3];
  double final_dist2d[CO_MAX_AGENTS];
  int final_partial[CO_MAX_AGENTS];
} co_scenario;

/* Position just after "key" in s (before `end` if given), or NULL. */
static const char *co_after(const char *s, const char *key, const char *end) {
  const char *p = strstr(s, key);
  if (!p || (end && p >= end)) return NULL;
  return p + strlen(key);
}

/* Reads up to n numbers from p on, skipping brackets, commas and blanks;
 * returns how many were read and where it stopped. */
static int co_numbers(const char **pp, double *out, int n) {
  const char *p = *pp;
  int k = 0;
  while (k < n && *p) {
    char *e;
    double v;
    if (*p == '[' || *p == ']' || *p == ',' || *p == ' ') { p++; continue; }
    v = strtod(p, &e);
    if (e == p) break;
    out[k++] = v;
    p = e;
  }
  *pp = p;
  return k;
}

/* Reads float32 triples for n agents from "key":[[x,y,z],...]. */
static int co_triples(const char *line, const char *key, float (*v)[3], int n) {
  const char *p = co_after(line, key, NULL);
  int i, j;
  if (!p) return 0;
  for (i = 0; i < n; i++) {
    for (j = 0; j < 3; j++) {
      char *e;
      while (*p == '[' || *p == ']' || *p == ',') p++;
      v[i][j] = strtof(p, &e);
      if (e == p) return 0;
      p = e;
    }
  }
  return 1;
}

/* Reads n integers from "key":[a,b,...]. */
static int co_ints(const char *line, const char *key, unsigned *v, int n) {
  const char *p = co_after(line, key, NULL);
  double d[CO_MAX_AGENTS];
  int i;
  if (!p || n > CO_MAX_AGENTS || co_numbers(&p, d, n) != n) return 0;
  for (i = 0; i < n; i++) v[i] = (unsigned)d[i];
  return 1;
}

/* Reads the points of one header list ("starts", "targets", "targets2"):
 * pos and ref of each object; agent index too for targets2. */
static int co_points(const char *line, const char *key, const char *stop, co_point *pt, int *agent,
                     int n) {
  const char *p = co_after(line, key, NULL), *end = stop ? strstr(line, stop) : NULL;
  int i;
  if (!p) return 0;
  for (i = 0; i < n; i++) {
    double v[3];
    const char *q;
    int k;
    if (agent) { /* targets2 objects start with the agent index */
      if (!(q = co_after(p, "\"agent\":", end)) || co_numbers(&q, v, 1) != 1) return i;
      agent[i] = (int)v[0];
      p = q;
    }
    if (!(q = co_after(p, "\"pos\":", end)) || co_numbers(&q, v, 3) != 3) return i;
    for (k = 0; k < 3; k++) pt[i].pos[k] = (float)v[k];
    if (!(q = co_after(q, "\"ref\":", end)) || co_numbers(&q, v, 1) != 1) return i;
    pt[i].ref = (unsigned)v[0];
    p = q;
  }
  return n;
}

static int co_header(co_scenario *s, const char *line) {
  const char *p;
  double v[1];
  int n2;
#define CO_NUM(key, dst)                                                        \
  if (!(p = co_after(line, key, NULL)) || co_numbers(&p, v, 1) != 1) return 0; \
  dst = v[0];
  CO_NUM("\"agents\":", s->agents)
  CO_NUM("\"maxAgents\":", s->max_agents)
  CO_NUM("\"maxAgentRadius\":", s->max_agent_radius)
  CO_NUM("\"dt\":", s->dt)
  CO_NUM("\"ticks\":", s->ticks)
  CO_NUM("\"recordEvery\":", s->record_every)
  CO_NUM("\"retargetTick\":", s->retarget_tick)
#undef CO_NUM
  if (!(p = co_after(line, "\"navmesh\":\"", NULL))) return 0;
  snprintf(s->navmesh, sizeof s->navmesh, "%.*s", (int)strcspn(p, "\""), p);
  if (s->agents < 1 || s->agents > CO_MAX_AGENTS) return 0;
  n2 = (s->agents + 1) / 2;
  if (co_points(line, "\"starts\":", "\"targets\":", s->start, NULL, s->agents) != s->agents ||
      co_points(line, "\"targets\":", "\"targets2\":", s->target, NULL, s->agents) != s->agents ||
      co_points(line, "\"targets2\":", NULL, s->target2, s->target2_agent, n2) != n2)
    return 0;
  s->ntarget2 = n2;
  return 1;
}

static int co_tick(co_scenario *s, const char *line) {
  co_record *r;
  const char *p = co_after(line, "\"tick\":", NULL);
  double v[1];
  unsigned st[CO_MAX_AGENTS], ts[CO_MAX_AGENTS];
  int i;
  if (s->nrecords >= CO_MAX_RECORDS || !p || co_numbers(&p, v, 1) != 1) return 0;
  r = &s->rec[s->nrecords];
  r->tick = (int)v[0];
  if (!co_triples(line, "\"npos\":", r->npos, s->agents) ||
      !co_triples(line, "\"vel\":", r->vel, s->agents) ||
      !co_ints(line, "\"state\":", st, s->agents) ||
      !co_ints(line, "\"targetState\":", ts, s->agents) ||
      !co_ints(line, "\"firstPoly\":", r->first_poly, s->agents))
    return 0;
  for (i = 0; i < s->agents; i++) {
    r->state[i] = (int)st[i];
    r->target_state[i] = (int)ts[i];
  }
  s->nrecords++;
  return 1;
}

static int co_final(co_scenario *s, const char *line) {
  const char *p = co_after(line, "\"dist2d\":", NULL);
  int i;
  if (!co_triples(line, "\"target\":", s->final_target, s->agents) || !p ||
      co_numbers(&p, s->final_dist2d, s->agents) != s->agents)
    return 0;
  if (!(p = co_after(line, "\"partial\":[", NULL))) return 0;
  for (i = 0; i < s->agents; i++) {
    while (*p == ',' || *p == ' ') p++;
    s->final_partial[i] = *p == 't';
    p += strcspn(p, ",]");
  }
  return 1;
}

/* Loads a scenario file; 0 when it is missing or malformed. Free with
 * co_free. */
static int co_load(const char *path, co_scenario *s) {
  static char line[1 << 22];
  FILE *f = fopen(path, "rb");
  int ok = 1, nline = 0;
  memset(s, 0, sizeof *s);
  if (!f) return 0;
  s->rec = (co_record *)calloc(CO_MAX_RECORDS, sizeof *s->rec);
  while (ok && s->rec && fgets(line, sizeof line, f)) {
    if (nline++ == 0) ok = co_header(s, line);
    else if (strstr(line, "\"type\":\"tick\"")) ok = co_tick(s, line);
    else if (strstr(line, "\"type\":\"final\"")) ok = co_final(s, line);
  }
  fclose(f);
  return ok && s->rec && s->nrecords > 0;
}

static void co_free(co_scenario *s) {
  free(s->rec);
  s->rec = NULL;
}

#endif
