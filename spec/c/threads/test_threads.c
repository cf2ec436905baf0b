/* test_threads.c -- one shared navmesh, eight Lua states on eight threads.
 *
 * The shape of a Skynet server: one process, many Lua states ("services"),
 * each run by whichever OS thread the scheduler picks, all reading one map.
 * The main state builds a level (examples/gridlevel.lua), shares it and
 * records its answers to fixed queries. Eight threads each make their own
 * lua_State (Lua 5.4), require "navmesh", open the mesh by name and answer
 * the same queries (path, nearest polygons and whether they are on one
 * island) in rounds (open, query, close), while the main thread
 * keeps publishing fresh copies of the level under the same name. Every
 * answer must equal the main state's, and the shared data must be gone once
 * the name is dropped and the last handle closed. Built with the module and
 * the core under ThreadSanitizer, which fails the run on any data race.
 * Usage: test_threads <package.path> <package.cpath> */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#define NTHREADS 8
#define NQUERIES 1000 /* per thread */
#define NROUNDS 10    /* open/close cycles per thread */
#define NAME "threads-level"

#include "lua_threads.h"

/* Builds the level, shares it and returns the answers to the queries. */
#define ANSWER_FN                                                                 \
  "local function answer(h, q)\n"                                                \
  "  local a = h:findNearestPoly(q[1], q[2], q[3])\n"                            \
  "  local b = h:findNearestPoly(q[4], q[5], q[6])\n"                            \
  "  local reach = a and b and tostring(h:isReachable(a, b)) or '-'\n"           \
  "  return g.answer(h, q) .. ' reachable ' .. reach\n"                          \
  "end\n"

static const char *const main_code =
    "local name, n = ...\n"
    "local navmesh, g = require 'navmesh', require 'gridlevel'\n" ANSWER_FN
    "sharer = assert(g.build(navmesh))\n"
    "assert(sharer:share(name))\n"
    "local out = {}\n"
    "for i, q in ipairs(g.queries(n)) do out[i] = answer(sharer, q) end\n"
    "return table.concat(out, '\\n')\n";

/* One thread's work: rounds of open, answer a share of the queries, close. */
static const char *const worker_code =
    "local name, n, rounds = ...\n"
    "local navmesh, g = require 'navmesh', require 'gridlevel'\n" ANSWER_FN
    "local qs, out, i = g.queries(n), {}, 0\n"
    "for _ = 1, rounds do\n"
    "  local h = assert(navmesh.open(name, { maxNodes = 2048 }))\n"
    "  assert(h:info().readOnly)\n"
    "  for _ = 1, n // rounds do i = i + 1; out[i] = answer(h, qs[i]) end\n"
    "  h:close()\n"
    "end\n"
    "return table.concat(out, '\\n')\n";

/* A new version of the level under the same name. */
static const char *const republish_code =
    "local name = ...\n"
    "local navmesh, g = require 'navmesh', require 'gridlevel'\n"
    "local m = assert(g.build(navmesh))\n"
    "assert(m:share(name, { replace = true }))\n"
    "m:close()\n";

/* Drops everything the main state holds; returns the bytes still shared. */
static const char *const finish_code =
    "local name = ...\n"
    "local navmesh = require 'navmesh'\n"
    "sharer:close(); sharer = nil\n"
    "assert(navmesh.unshare(name))\n"
    "collectgarbage(); collectgarbage()\n"
    "return navmesh.sharedBytes()\n";

/* The first line where got and want differ, for the failure report. */
static const char *first_difference(const char *got, const char *want, char *buf, size_t len) {
  int line = 1;
  const char *g = got, *w = want;
  for (; *g && *g == *w; g++, w++)
    if (*g == '\n') line++;
  snprintf(buf, len, "answer %d differs: got \"%.60s\" want \"%.60s\"", line, g, w);
  return buf;
}

int main(int argc, char **argv) {
  static worker w[NTHREADS];
  char err[256] = "";
  char *want = NULL;
  lua_State *L;
  int i, republished;
  if (!(L = host_start(argc, argv, NAME)) && argc != 3) return 2;
  if (L && run(L, main_code, NQUERIES, 0, err, sizeof err)) want = pop_string(L);
  report(want != NULL, "main state builds and shares the level, answers %d queries", NQUERIES, err);
  if (!want) return tap_done();
  worker_chunk = worker_code;
  worker_a = NQUERIES;
  worker_b = NROUNDS;
  start_workers(w, NTHREADS);
  republished = run_until_done(L, republish_code, NTHREADS, 20, err, sizeof err);
  for (i = 0; i < NTHREADS; i++) {
    if (w[i].id) pthread_join(w[i].thread, NULL);
    report(w[i].answers && strcmp(w[i].answers, want) == 0,
           "thread %d: own lua_State, open by name, answers equal the main state's", i + 1,
           w[i].answers ? first_difference(w[i].answers, want, err, sizeof err) : w[i].err);
    free(w[i].answers);
  }
  report(republished > 0, "main thread published %d new versions while the threads ran", republished, err);
  if (run(L, finish_code, 0, 0, err, sizeof err)) {
    lua_Integer left = lua_tointeger(L, -1);
    report(left == 0, "all shared data freed after unshare and the last close (%d bytes left)", (int)left, NULL);
  } else {
    report(0, "finish%.0d", 0, err);
  }
  printf("# %d threads x %d queries in %d open/close rounds each, %d republishes\n", NTHREADS, NQUERIES,
         NROUNDS, republished);
  lua_close(L);
  free(want);
  return tap_done();
}
