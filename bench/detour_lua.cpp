// detour_lua.cpp -- Detour's side of the Lua benchmarks as a Lua module
// (`require "detourbench"`, built by tools/bench.sh against each Lua's
// headers, linked with Debian's libDetour), so that bench/bench.lua and
// bench/toolbox_bench.lua time our binding and Detour's C in one process,
// in alternating rounds (bench/pair.lua), on the same inputs:
//   D.open(shared, name) -> side | nil, message
//   side:pass(job, reps) -> seconds of `reps` passes of job (side_ours.h's
//                           job names, or a toolbox query name)
//   side:calls(job)      -> calls one pass makes
//   side:cases()         -> { sx,sy,sz, ex,ey,ez, ... } the points the C
//                           benches read from the oracle file
//   side:tbcases()       -> { sref,sx,sy,sz, eref,ex,ey,ez, ... } toolbox cases
//   D.clock()            -> the clock both sides are timed with (pair.h)
//   D.load()             -> the 1-minute load average
#include <new>
extern "C" {
#include "lua.h"
#include "lauxlib.h"
#include "compat.h"
#include "cases.h"
#include "toolbox_cases.h"
#include "pair.h"
#include "side_ours.h"
}
#include "side_detour.h"

#define SIDE_META "detourbench.side"

static DetourSide *check_side(lua_State *L) {
  DetourSide *d = (DetourSide *)luaL_checkudata(L, 1, SIDE_META);
  if (!d->q) luaL_error(L, "closed side");
  return d;
}

// Job number of the name at idx (side_jobs, then tb_queries).
static int check_job(lua_State *L, int idx) {
  const char *name = luaL_checkstring(L, idx);
  for (int k = 0; side_jobs[k]; k++)
    if (strcmp(side_jobs[k], name) == 0) return k;
  for (int k = 0; tb_queries[k]; k++)
    if (strcmp(tb_queries[k], name) == 0) return SIDE_TOOLBOX + k;
  return luaL_argerror(L, idx, "unknown job");
}

static int side_open(lua_State *L) {
  const char *shared = luaL_checkstring(L, 1), *name = luaL_checkstring(L, 2);
  DetourSide *d = (DetourSide *)lua_newuserdata(L, sizeof(DetourSide));
  memset((void *)d, 0, sizeof *d);
  luaL_getmetatable(L, SIDE_META);
  lua_setmetatable(L, -2);
  if (!detour_open(d, shared, name)) {
    detour_close(d);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot open %s/navmeshes/%s.bin or its oracle file", shared, name);
    return 2;
  }
  return 1;
}

static int side_close(lua_State *L) {
  DetourSide *d = (DetourSide *)luaL_checkudata(L, 1, SIDE_META);
  if (d->q) detour_close(d);
  return 0;
}

static int side_pass(lua_State *L) {
  DetourSide *d = check_side(L);
  int k = check_job(L, 2), reps = (int)luaL_optnumber(L, 3, 1);
  lua_pushnumber(L, detour_pass(d, k, reps < 1 ? 1 : reps));
  return 1;
}

static int side_calls(lua_State *L) {
  DetourSide *d = check_side(L);
  lua_pushinteger(L, detour_calls(d, check_job(L, 2)));
  return 1;
}

// Pushes n floats of v into the table on top from index *at on.
static void put_floats(lua_State *L, const float *v, int n, int *at) {
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, ++*at);
  }
}

static int side_cases(lua_State *L) {
  DetourSide *d = check_side(L);
  int at = 0;
  lua_createtable(L, 6 * d->n, 0);
  for (int i = 0; i < d->n; i++) {
    put_floats(L, d->c[i].start, 3, &at);
    put_floats(L, d->c[i].end, 3, &at);
  }
  return 1;
}

static int side_tbcases(lua_State *L) {
  DetourSide *d = check_side(L);
  int at = 0;
  lua_createtable(L, 8 * d->ntc, 0);
  for (int i = 0; i < d->ntc; i++) {
    lua_pushnumber(L, d->tc[i].sref);
    lua_rawseti(L, -2, ++at);
    put_floats(L, d->tc[i].s, 3, &at);
    lua_pushnumber(L, d->tc[i].eref);
    lua_rawseti(L, -2, ++at);
    put_floats(L, d->tc[i].e, 3, &at);
  }
  return 1;
}

static int mod_clock(lua_State *L) {
  lua_pushnumber(L, pair_clock());
  return 1;
}

static int mod_load(lua_State *L) {
  lua_pushnumber(L, pair_load());
  return 1;
}

extern "C" __attribute__((visibility("default"))) int luaopen_detourbench(lua_State *L) {
  static const luaL_Reg methods[] = {{"pass", side_pass}, {"calls", side_calls}, {"cases", side_cases},
                                     {"tbcases", side_tbcases}, {"close", side_close}, {NULL, NULL}};
  static const luaL_Reg funcs[] = {{"open", side_open}, {"clock", mod_clock}, {"load", mod_load}, {NULL, NULL}};
  luaL_newmetatable(L, SIDE_META);
  lua_pushcfunction(L, side_close);
  lua_setfield(L, -2, "__gc");
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_newtable(L);
  luaL_setfuncs(L, funcs, 0);
  return 1;
}
