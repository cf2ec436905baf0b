/* test_cache_threads.c -- a tile cache publishing versions of its navmesh
 * while Lua states on other threads query it.
 *
 * The main state builds a tile cache of the procedural level
 * (examples/level.lua), shares it by name and records the answers with a
 * door open and closed (the path S -> E, and whether the passage the door
 * closes has a polygon). Four threads each make their own lua_State,
 * require "navmesh", open the name and, before every query, call refresh()
 * (moving to the latest version) while the main thread keeps closing and
 * opening the door (addObstacle / removeObstacle + update, each update that
 * rebuilt tiles publishing the next version). Every answer must be the open
 * or the closed one, and both halves of it must come from the same state of
 * the door (a query never sees half a change); the readers must see both
 * states and move many times; every byte shared must be freed once the
 * name is dropped and the last handle closed. Built with the module and the
 * core under ThreadSanitizer, which fails the run on any data race.
 * Usage: test_cache_threads <package.path> <package.cpath> */
#define _POSIX_C_SOURCE 200809L

#define NTHREADS 4
#define NQUERIES 400 /* per thread */
#define NAME "cache-threads-level"

#include "lua_threads.h"

/* The level, its S and E marks, the door, and one answer as a string. */
#define LEVEL_FN                                                                   \
  "local navmesh, level = require 'navmesh', require 'level'\n"                    \
  "local V, T, marks = level.triangles(nil, 2)\n"                                  \
  "local S, E = marks.S, marks.E\n"                                                \
  "local DOOR = { kind = 'box', bmin = { 29.6, -0.5, 9.5 }, bmax = { 30.4, 2.5, 12.5 } }\n" \
  "local function answer(h)\n"                                                     \
  "  local pts = assert(h:path(S[1], S[2], S[3], E[1], E[2], E[3]))\n"             \
  "  local out = {}\n"                                                             \
  "  for i = 1, #pts do out[i] = ('%.3f'):format(pts[i]) end\n"                    \
  "  local ref, x, _, z = h:findNearestPoly(30, 0, 11, 0.3, 1, 0.3)\n"             \
  "  local door = ref and (x - 30) ^ 2 + (z - 11) ^ 2 <= 0.01 and 'open' or 'shut'\n" \
  "  return table.concat(out, ' ') .. ' door ' .. door\n"                          \
  "end\n"

/* Builds and shares the cache (a global of the main state); returns the
 * open and the closed answers, one per line. */
static const char *const main_code =
    "local name = ...\n" LEVEL_FN
    "cache, mesh = assert(navmesh.buildCache(V, T))\n"
    "assert(cache:share(name))\n"
    "local open = answer(mesh)\n"
    "door = assert(cache:addObstacle(DOOR))\n"
    "cache:update()\n"
    "local shut = answer(mesh)\n"
    "assert(open ~= shut and open:find('door open$') and shut:find('door shut$'))\n"
    "return open .. '\\n' .. shut\n";

/* One thread: open the name, refresh and answer n times; returns
 * "<open answers> <shut answers> <moves>" or raises on any other answer. */
static const char *const worker_code =
    "local name, n = ...\n" LEVEL_FN
    "local want = assert(WANT)\n"
    "local open, shut = want:match('^(.-)\\n(.*)$')\n"
    "local h = assert(navmesh.open(name, { maxNodes = 2048 }))\n"
    "local seen = { [open] = 0, [shut] = 0 }\n"
    "local moves = 0\n"
    "for i = 1, n do\n"
    "  if h:refresh() then moves = moves + 1 end\n"
    "  local a = answer(h)\n"
    "  if not seen[a] then error(('query %d: neither the open nor the closed answer: %s'):format(i, a)) end\n"
    "  seen[a] = seen[a] + 1\n"
    "end\n"
    "h:close()\n"
    "return ('%d %d %d'):format(seen[open], seen[shut], moves)\n";

/* Opens or closes the door: one update, one new version. */
static const char *const toggle_code =
    "local name, k = ...\n"
    "local DOOR = { kind = 'box', bmin = { 29.6, -0.5, 9.5 }, bmax = { 30.4, 2.5, 12.5 } }\n"
    "if door then assert(cache:removeObstacle(door)); door = nil\n"
    "else door = assert(cache:addObstacle(DOOR)) end\n"
    "local done, rebuilt = cache:update()\n"
    "assert(done and rebuilt == 1)\n"
    "return cache:info().version\n";

/* Drops everything the main state holds; returns the bytes still shared. */
static const char *const finish_code =
    "local name = ...\n"
    "local navmesh = require 'navmesh'\n"
    "cache:close(); mesh:close(); cache, mesh = nil, nil\n"
    "assert(navmesh.unshare(name))\n"
    "collectgarbage(); collectgarbage()\n"
    "return navmesh.sharedBytes()\n";

int main(int argc, char **argv) {
  static worker w[NTHREADS];
  char err[256] = "";
  char *want = NULL;
  lua_State *L;
  int i, published, both = 0, moves = 0;
  if (!(L = host_start(argc, argv, NAME)) && argc != 3) return 2;
  if (L && run(L, main_code, 0, 0, err, sizeof err)) want = pop_string(L);
  report(want != NULL, "main state builds and shares a tile cache, answers with the door open and shut%.0d", 0, err);
  if (!want) return tap_done();
  worker_chunk = worker_code;
  worker_want = want;
  worker_a = NQUERIES;
  start_workers(w, NTHREADS);
  published = run_until_done(L, toggle_code, NTHREADS, 2, err, sizeof err);
  for (i = 0; i < NTHREADS; i++) {
    int open = 0, shut = 0, moved = 0;
    if (w[i].id) pthread_join(w[i].thread, NULL);
    if (w[i].answers && sscanf(w[i].answers, "%d %d %d", &open, &shut, &moved) == 3) {
      both += open > 0 && shut > 0;
      moves += moved;
    }
    report(w[i].answers && open + shut == NQUERIES && moved > 0,
           "thread %d: own lua_State, refresh before every query, every answer the open or the shut one",
           i + 1, w[i].answers ? w[i].answers : w[i].err);
    if (w[i].answers) printf("#   thread %d: %d open, %d shut, moved %d times\n", i + 1, open, shut, moved);
    free(w[i].answers);
  }
  report(published > 0, "main thread published %d versions (door toggled) while the threads ran", published, err);
  report(both > 0, "%d threads saw the door both open and shut", both, NULL);
  if (run(L, finish_code, 0, 0, err, sizeof err)) {
    lua_Integer left = lua_tointeger(L, -1);
    report(left == 0, "all shared data freed after unshare and the last close (%d bytes left)", (int)left, NULL);
  } else {
    report(0, "finish%.0d", 0, err);
  }
  printf("# %d threads x %d queries, %d versions published, %d refresh moves\n", NTHREADS, NQUERIES, published, moves);
  lua_close(L);
  free(want);
  return tap_done();
}
