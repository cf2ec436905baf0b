/* lmodule.c -- the Lua binding's entry point: `require "navmesh.core"`,
 * and the module-level functions that belong to no class (navmesh.memory).
 *
 * A thin layer: check arguments, call the core, turn results into Lua
 * values. Programmer errors (wrong types, NaN coordinates, unknown option
 * keys, out-of-range values, a closed handle) raise; outcomes (bad file, no
 * polygon near a point, no path) return nil, message, code. Points go in as
 * three numbers and come out as flat {x1,y1,z1, x2,y2,z2, ...} arrays.
 * The binding is split by the class each file serves: see lnm.h. */
#include "lnm.h"

/* navmesh.memory() -> bytes this Lua state's handles hold in its own
 * memory (meshes it loaded or built, query state, scratch): memory the
 * state's allocator gave out that collectgarbage("count") does not show. */
static int navmesh_memory(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lnm_acct_bytes(L));
  return 1;
}

static const luaL_Reg module_funcs[] = {
  {"memory", navmesh_memory},
  {NULL, NULL}
};

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int luaopen_navmesh_core(lua_State *L);

int luaopen_navmesh_core(lua_State *L) {
#ifdef luaL_checkversion
  luaL_checkversion(L);
#endif
  lnm_acct_open(L);
  lua_newtable(L);
  lnm_open_navmesh_handle(L); /* the NavMesh class first: the others add methods */
  lnm_open_navmesh_make(L);
  lnm_open_navmesh_tiles(L);
  lnm_open_navmesh_polys(L);
  lnm_open_filter(L);
  lnm_open_navmesh_path(L);
  lnm_open_navmesh_toolbox(L);
  lnm_open_navmesh_share(L);
  lnm_open_navmesh_build(L);
  lnm_open_navmesh_debug(L);
  lnm_open_crowd(L);
  lnm_open_tilecache(L);
  lnm_open_tilecache_obstacles(L);
  lnm_open_buildjob(L);
  luaL_setfuncs(L, module_funcs, 0);
  lua_pushliteral(L, NM_VERSION_STRING);
  lua_setfield(L, -2, "_VERSION");
  lnm_name_module(L);
  return 1;
}
