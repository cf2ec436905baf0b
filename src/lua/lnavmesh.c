/* lnavmesh.c -- the Lua binding's entry point: `require "navmesh.core"`.
 *
 * A thin layer: check arguments, call the core, turn results into Lua
 * values. Programmer errors (wrong types, NaN coordinates, unknown option
 * keys, out-of-range values, a closed handle) raise; outcomes (bad file, no
 * polygon near a point, no path) return nil, message, code. Points go in as
 * three numbers and come out as flat {x1,y1,z1, x2,y2,z2, ...} arrays.
 * The binding is split by the object each file serves: see lnm.h. */
#include "lnm.h"

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
  lnm_open_mesh(L);
  lnm_open_filter(L);
  lnm_open_query(L);
  lnm_open_toolbox(L);
  lnm_open_share(L);
  lnm_open_build(L);
  lnm_open_debug(L);
  lnm_open_crowd(L);
  lnm_open_cache(L);
  lnm_open_job(L);
  lua_pushliteral(L, NM_VERSION_STRING);
  lua_setfield(L, -2, "_VERSION");
  lnm_name_module(L);
  return 1;
}
