/* lpush.c -- results into Lua values: points, reference lists and table
 * fields. */
#include "lnm.h"

void lnm_push_point(lua_State *L, const float *v) {
  lua_pushnumber(L, v[0]);
  lua_pushnumber(L, v[1]);
  lua_pushnumber(L, v[2]);
}

void lnm_set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}
void lnm_set_vec(lua_State *L, const char *k, const float *v) {
  int i;
  lua_createtable(L, 3, 0);
  for (i = 0; i < 3; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, k);
}

/* Pushes an array of n refs. */
void lnm_push_refs(lua_State *L, const nm_polyref *refs, int n) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)refs[i]);
    lua_rawseti(L, -2, i + 1);
  }
}
