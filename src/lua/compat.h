/* compat.h -- the few Lua 5.2+ API pieces that Lua 5.1 and LuaJIT lack.
 * Written against the 5.3/5.4 API; this shim fills the gaps (the approach
 * of lua-cjson and LPeg). LuaJIT 2.1 already has luaL_setfuncs,
 * luaL_testudata, luaL_setmetatable and luaL_newlib; plain 5.1 does not.
 * Lua 5.5.0 needs nothing here: the binding uses no call whose arguments
 * changed in 5.5 (lua_gc's LUA_GCSTEP now takes bytes, not kilobytes). */
#ifndef NM_LUA_COMPAT_H
#define NM_LUA_COMPAT_H

#include <math.h>
#include "lua.h"
#include "lauxlib.h"

#if LUA_VERSION_NUM == 501
#  define lua_rawlen(L, i) lua_objlen(L, (i))
#  define lnm_absindex(L, i) ((i) > 0 || (i) <= LUA_REGISTRYINDEX ? (i) : lua_gettop(L) + (i) + 1)
#  if !defined(luaL_newlib) /* PUC Lua 5.1 */
static inline void luaL_setfuncs(lua_State *L, const luaL_Reg *l, int nup) {
  luaL_checkstack(L, nup + 1, "too many upvalues");
  for (; l->name; l++) {
    int i;
    for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
    lua_pushcclosure(L, l->func, nup);
    lua_setfield(L, -(nup + 2), l->name);
  }
  lua_pop(L, nup);
}
static inline void *luaL_testudata(lua_State *L, int i, const char *tname) {
  void *p = lua_touserdata(L, i);
  if (p && lua_getmetatable(L, i)) {
    luaL_getmetatable(L, tname);
    if (!lua_rawequal(L, -1, -2)) p = NULL;
    lua_pop(L, 2);
    return p;
  }
  return NULL;
}
static inline void luaL_setmetatable(lua_State *L, const char *tname) {
  luaL_getmetatable(L, tname);
  lua_setmetatable(L, -2);
}
#    define luaL_newlib(L, l) (lua_newtable(L), luaL_setfuncs(L, l, 0))
#  endif
#else
#  define lnm_absindex(L, i) lua_absindex(L, (i))
#endif

/* Integer check that works the same on every version: a number with no
 * fractional part that fits in lua_Integer's range. */
#if LUA_VERSION_NUM >= 503
#  define lnm_checkinteger luaL_checkinteger
#  define lnm_optinteger luaL_optinteger
#else
static inline lua_Integer lnm_checkinteger(lua_State *L, int i) {
  lua_Number n = luaL_checknumber(L, i);
  if (!(n == floor(n) && n >= -9007199254740992.0 && n <= 9007199254740992.0))
    luaL_argerror(L, i, "number has no integer representation");
  return (lua_Integer)n;
}
static inline lua_Integer lnm_optinteger(lua_State *L, int i, lua_Integer def) {
  return lua_isnoneornil(L, i) ? def : lnm_checkinteger(L, i);
}
#endif

#endif
