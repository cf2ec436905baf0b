/* lclass.c -- making the binding's classes: metatables, methods named for
 * messages ("NavMesh:path"), and objects that own resources (close as __gc
 * and __close). */
#include "lnm.h"

/* ---- classes ---- */

/* Creates the metatable `name` with __name and an empty __index table. */
void lnm_new_class(lua_State *L, const char *name) {
  luaL_newmetatable(L, name);
  lua_pushstring(L, name);
  lua_setfield(L, -2, "__name");
  lua_newtable(L);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

/* A class of objects that own resources: methods, close as __gc and
 * __close (so it must be idempotent), and __tostring. */
void lnm_object_class(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction close,
                      lua_CFunction tostring) {
  lnm_new_class(L, name);
  lnm_add_methods(L, name, methods);
  luaL_getmetatable(L, name);
  lua_pushcfunction(L, close);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, close);
  lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
}

/* Adds methods to the __index table of class `name` ("navmesh.NavMesh"),
 * named for messages "NavMesh:<method>". */
void lnm_add_methods(lua_State *L, const char *name, const luaL_Reg *methods) {
  const char *dot = strrchr(name, '.');
  luaL_getmetatable(L, name);
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, methods, 0);
  lua_pushfstring(L, "%s:", dot ? dot + 1 : name);
  lua_insert(L, -2);
  lnm_name_functions(L, lua_tostring(L, -2));
  lua_pop(L, 3);
}
