/* threads.c -- path queries per second from 1 and 2 threads on one shared
 * mesh (make bench-threads).
 *
 * Two setups over the level of examples/gridlevel.lua (40 x 40 cells):
 *   lua:  each thread has its own lua_State (Lua 5.4) that requires the
 *         navmesh module and opens the shared mesh by name -- the Skynet
 *         shape -- and runs mesh:path() (nearest, A*, straight path) in
 *         batches of 100;
 *   core: each thread has its own nm_query on one nm_navmesh and calls the
 *         same three core functions directly.
 * Each thread runs until the time is up; the figure is total queries over
 * the wall time. Every setting is run `reps` times, interleaved; best and
 * worst are printed with the load average, since the machine is shared.
 * Queries per CPU second (CLOCK_THREAD_CPUTIME_ID) are printed too: other
 * processes taking cores do not change them, so 2 threads reaching the
 * 1-thread figure per CPU second means the threads do not slow each other
 * down (no locks or shared writes on the query path). One JSON line goes to
 * stderr (tools/bench.sh collects those in build/bench.json).
 * Usage: threads <package.path> <package.cpath> [seconds per run] [reps] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "navmesh.h"

#define NAME "bench-level"
#define NQ 1000
#define MAXT 2

static const char *lua_path, *lua_cpath;
static double seconds = 1.0;
static float queries[NQ][6];
static nm_navmesh *core_mesh;

typedef struct job {
  pthread_t thread;
  int core;            /* 1: core setup, 0: lua */
  int offset;          /* first query index */
  long done;           /* queries answered */
  double cpu;          /* CPU seconds this thread used while querying */
  char err[200];
  pthread_barrier_t *start;
} job;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static lua_State *new_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushstring(L, lua_path);
  lua_setfield(L, -2, "path");
  lua_pushstring(L, lua_cpath);
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  return L;
}

/* Compiles a chunk returning the batch function: batch(first, n). */
static const char *const batch_code =
    "local name = ...\n"
    "local navmesh, g = require 'navmesh', require 'gridlevel'\n"
    "local mesh = assert(navmesh.open(name))\n"
    "local qs = g.queries(1000)\n"
    "return function(first, n)\n"
    "  for i = first, first + n - 1 do\n"
    "    local q = qs[i % #qs + 1]\n"
    "    mesh:path(q[1], q[2], q[3], q[4], q[5], q[6])\n"
    "  end\n"
    "end\n";

/* The lua setup: batches of 100 mesh:path calls until the time is up. */
static void run_lua(job *j) {
  lua_State *L = new_state();
  double end;
  long i = j->offset;
  if (luaL_loadstring(L, batch_code) || (lua_pushstring(L, NAME), lua_pcall(L, 1, 1, 0))) {
    snprintf(j->err, sizeof j->err, "%s", lua_tostring(L, -1));
    pthread_barrier_wait(j->start);
    lua_close(L);
    return;
  }
  pthread_barrier_wait(j->start);
  end = now() + seconds;
  j->cpu = -thread_cpu();
  while (now() < end) {
    lua_pushvalue(L, -1);
    lua_pushinteger(L, i);
    lua_pushinteger(L, 100);
    if (lua_pcall(L, 2, 0, 0)) {
      snprintf(j->err, sizeof j->err, "%s", lua_tostring(L, -1));
      break;
    }
    i += 100;
    j->done += 100;
  }
  j->cpu += thread_cpu();
  lua_close(L);
}

/* One path query through the core, as mesh:path does it. */
static void core_query(nm_query *q, const float *qv, nm_polyref *path, float *pts) {
  static const float ext[3] = {2, 4, 2};
  nm_filter f;
  nm_polyref s, e;
  float sp[3], ep[3];
  int n = 0, np = 0;
  nm_filter_init(&f);
  if (nm_query_find_nearest(q, qv, ext, &f, &s, sp, NULL) < 0) return;
  if (nm_query_find_nearest(q, qv + 3, ext, &f, &e, ep, NULL) < 0) return;
  if (nm_query_find_path(q, s, e, sp, ep, &f, path, 2048, &n) < 0 || n == 0) return;
  nm_query_straight_path(q, sp, ep, path, n, NULL, pts, NULL, NULL, 256, &np);
}

/* The core setup: own nm_query, batches of 100 until the time is up. */
static void run_core(job *j) {
  static __thread nm_polyref path[2048];
  static __thread float pts[3 * 256];
  nm_query *q = NULL;
  double end;
  long i = j->offset, k;
  if (nm_query_new(core_mesh, 2048, NULL, &q) < 0) snprintf(j->err, sizeof j->err, "nm_query_new failed");
  pthread_barrier_wait(j->start);
  if (!q) return;
  end = now() + seconds;
  j->cpu = -thread_cpu();
  while (now() < end) {
    for (k = 0; k < 100; k++, i++) core_query(q, queries[i % NQ], path, pts);
    j->done += 100;
  }
  j->cpu += thread_cpu();
  nm_query_free(q);
}

static void *job_main(void *arg) {
  job *j = (job *)arg;
  if (j->core) run_core(j);
  else run_lua(j);
  return NULL;
}

/* Queries per wall second of nthreads threads in one setup (-1 on error);
 * *per_cpu gets queries per CPU second, which other load does not skew. */
static double measure(int core, int nthreads, double *per_cpu) {
  job jobs[MAXT];
  pthread_barrier_t start;
  double t0, t1;
  long total = 0;
  double cpu = 0;
  int i, bad = 0;
  memset(jobs, 0, sizeof jobs);
  pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
  for (i = 0; i < nthreads; i++) {
    jobs[i].core = core;
    jobs[i].offset = i * (NQ / MAXT);
    jobs[i].start = &start;
    pthread_create(&jobs[i].thread, NULL, job_main, &jobs[i]);
  }
  pthread_barrier_wait(&start);
  t0 = now();
  for (i = 0; i < nthreads; i++) pthread_join(jobs[i].thread, NULL);
  t1 = now();
  pthread_barrier_destroy(&start);
  for (i = 0; i < nthreads; i++) {
    if (jobs[i].err[0]) { fprintf(stderr, "threads: %s\n", jobs[i].err); bad = 1; }
    total += jobs[i].done;
    cpu += jobs[i].cpu;
  }
  *per_cpu = cpu > 0 ? (double)total / cpu : 0;
  return bad ? -1 : (double)total / (t1 - t0);
}

/* Builds and shares the level in the main state, copies the queries out
 * and loads the same mesh for the core setup. 0 on success. */
static int setup(lua_State *L) {
  static const char *const code =
      "local name = ...\n"
      "local navmesh, g = require 'navmesh', require 'gridlevel'\n"
      "local m = assert(g.build(navmesh))\n"
      "assert(m:share(name))\n"
      "return m:saveString('native'), g.queries(1000), m:info().polys\n";
  size_t len;
  const char *bytes;
  int i, k;
  if (luaL_loadstring(L, code) || (lua_pushstring(L, NAME), lua_pcall(L, 1, 3, 0))) {
    fprintf(stderr, "threads: %s\n", lua_tostring(L, -1));
    return 1;
  }
  for (i = 0; i < NQ; i++) {
    lua_rawgeti(L, -2, i + 1);
    for (k = 0; k < 6; k++) {
      lua_rawgeti(L, -1, k + 1);
      queries[i][k] = (float)lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  bytes = lua_tolstring(L, -3, &len);
  printf("# level: examples/gridlevel.lua 40x40, %d polygons; %d fixed path queries cycled\n",
         (int)lua_tointeger(L, -1), NQ);
  if (nm_navmesh_load(bytes, len, NULL, NULL, &core_mesh) < 0) {
    fprintf(stderr, "threads: the saved level does not load in the core\n");
    return 1;
  }
  return 0;
}

static double loadavg(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

int main(int argc, char **argv) {
  static const char *const setups[] = {"lua", "core"};
  double best[2][MAXT + 1], worst[2][MAXT + 1], cpu[2][MAXT + 1], load0, load1;
  int reps = 3, s, t, r;
  lua_State *L;
  if (argc < 3) {
    fprintf(stderr, "usage: %s <package.path> <package.cpath> [seconds] [reps]\n", argv[0]);
    return 2;
  }
  lua_path = argv[1];
  lua_cpath = argv[2];
  if (argc > 3) seconds = atof(argv[3]);
  if (argc > 4) reps = atoi(argv[4]);
  if (seconds <= 0 || reps < 1) return 2;
  L = new_state();
  if (setup(L)) return 1;
  load0 = loadavg();
  for (r = 0; r < reps; r++)       /* interleaved, so drifting load hits all settings */
    for (s = 0; s < 2; s++)
      for (t = 1; t <= MAXT; t++) {
        double per_cpu, qps = measure(s, t, &per_cpu);
        if (qps < 0) return 1;
        if (r == 0 || qps > best[s][t]) best[s][t] = qps;
        if (r == 0 || per_cpu > cpu[s][t]) cpu[s][t] = per_cpu;
        if (r == 0 || qps < worst[s][t]) worst[s][t] = qps;
      }
  load1 = loadavg();
  for (s = 0; s < 2; s++)
    for (t = 1; t <= MAXT; t++)
      printf("%-4s %d thread%s: %7.0f queries/s best of %d (worst %7.0f); %7.0f per CPU second\n",
             setups[s], t, t > 1 ? "s" : " ", best[s][t], reps, worst[s][t], cpu[s][t]);
  for (s = 0; s < 2; s++)
    printf("%-4s 2 threads / 1 thread: %.2fx wall (best), %.2fx (worst); per CPU second %.2f\n",
           setups[s], best[s][2] / best[s][1], worst[s][2] / worst[s][1], cpu[s][2] / cpu[s][1]);
  printf("# load average %.2f before, %.2f after; %.1f s per run\n", load0, load1, seconds);
  fprintf(stderr, "{\"bench\":\"threads\",\"seconds\":%.1f,\"reps\":%d,\"load\":[%.2f,%.2f]", seconds, reps, load0, load1);
  for (s = 0; s < 2; s++)
    fprintf(stderr, ",\"%s\":{\"qps1\":%.0f,\"qps2\":%.0f,\"speedup\":%.3f,\"cpu_qps1\":%.0f,\"cpu_qps2\":%.0f}",
           setups[s], best[s][1], best[s][2], best[s][2] / best[s][1], cpu[s][1], cpu[s][2]);
  fprintf(stderr, "}\n");
  nm_navmesh_release(core_mesh);
  lua_close(L);
  return 0;
}
