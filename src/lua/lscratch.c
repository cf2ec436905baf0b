/* lscratch.c -- scratch blocks the collector frees: GC-owned scratch,
 * blocks kept in a table while a call reads its inputs, and guards around
 * core-allocated bytes being turned into Lua strings (a raise leaks nothing). */
#include "lnm.h"

/* ==== building from triangles: navmesh.build, navmesh.buildObj,
 * navmesh.parseObj (the build driver's block; the core is src/bake/ and src/input/) ==== */

/* A block of n bytes owned by the table at `keep` (so it lives as long as
 * that table and is freed by the GC, also when an error is raised). */
void *lnm_kept_block(lua_State *L, int keep, size_t n) {
  void *p = lua_newuserdata(L, n ? n : 1);
  memset(p, 0, n ? n : 1);
  lua_rawseti(L, keep, (int)lua_rawlen(L, keep) + 1);
  return p;
}

/* A zeroed lnm_scratch block of n bytes owned by the Lua GC (a userdata pushed
 * on the stack), so a raised error in the middle of parsing leaks nothing. */
void *lnm_scratch(lua_State *L, size_t n) {
  void *p = lua_newuserdata(L, n ? n : 1);
  memset(p, 0, n ? n : 1);
  return p;
}

/* ---- guards: core-allocated blocks being turned into Lua values ---- */

#define LNM_GUARD "navmesh.guard"

static int guard_gc(lua_State *L) {
  lnm_guard *g = (lnm_guard *)lua_touserdata(L, 1);
  if (g && g->p) g->alloc.fn(g->alloc.ud, g->p, g->size, 0);
  if (g) g->p = NULL;
  return 0;
}

/* Pushes a guard whose __gc frees (with alloc) the block stored in it; a
 * push that raises (out of memory) then leaks nothing. lnm_guard_free frees
 * the block at once. */
lnm_guard *lnm_guard_new(lua_State *L, const nm_alloc *alloc) {
  lnm_guard *g = (lnm_guard *)lua_newuserdata(L, sizeof *g);
  g->alloc = *alloc;
  g->p = NULL;
  g->size = 0;
  if (luaL_newmetatable(L, LNM_GUARD)) {
    lua_pushcfunction(L, guard_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return g;
}

void lnm_guard_free(lnm_guard *g) {
  if (g->p) g->alloc.fn(g->alloc.ud, g->p, g->size, 0);
  g->p = NULL;
}

/* Pushes the block p [size] (allocated with g's allocator) as a Lua
 * string and frees it, also when the push raises. */
void lnm_guard_push(lua_State *L, lnm_guard *g, void *p, size_t size) {
  g->p = p;
  g->size = size;
  lua_pushlstring(L, (const char *)p, size);
  lnm_guard_free(g);
}
