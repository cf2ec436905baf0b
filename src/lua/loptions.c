/* loptions.c -- reading option tables and arguments: unknown keys (with a
 * "did you mean"), numbers, integers, points and booleans in range, each
 * failure raising a message that names the key. */
#include <ctype.h>
#include "lnm.h"

/* ---- option tables ---- */

/* Edit distance of two short keys, case ignored (a typo finder). */
static int key_distance(const char *a, const char *b) {
  int row[33], i, j, la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 32 || lb > 32) return 99;
  for (j = 0; j <= lb; j++) row[j] = j;
  for (i = 1; i <= la; i++) {
    int diag = row[0], ca = tolower((unsigned char)a[i - 1]);
    row[0] = i;
    for (j = 1; j <= lb; j++) {
      const int up = row[j], cost = ca != tolower((unsigned char)b[j - 1]);
      int v = diag + cost;
      if (up + 1 < v) v = up + 1;
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      diag = up;
      row[j] = v;
    }
  }
  return row[lb];
}

/* Raises for the unknown key `key` of option table `in` (NULL: top level):
 * suggests the nearest known key, or lists them all. */
static int unknown_key(lua_State *L, const char *in, const char *key, const char *const *names) {
  const char *const *n, *best = NULL, *hint;
  int bestd = 3;
  luaL_Buffer b;
  for (n = names; *n; n++) {
    const int d = key_distance(key, *n);
    if (d < bestd) { bestd = d; best = *n; }
  }
  luaL_buffinit(L, &b);
  if (best) {
    luaL_addstring(&b, "did you mean '");
    luaL_addstring(&b, best);
    luaL_addstring(&b, "'?");
  } else {
    luaL_addstring(&b, "known keys:");
    for (n = names; *n; n++) {
      luaL_addstring(&b, n == names ? " " : ", ");
      luaL_addstring(&b, *n);
    }
  }
  luaL_pushresult(&b);
  hint = lua_tostring(L, -1);
  return luaL_error(L, "unknown option '%s%s%s' to '%s' (%s)", in ? in : "", in ? "." : "", key,
                    lnm_fname(L, "?"), hint);
}

/* The key path of option `key` in table `in` (NULL: top level), pushed. */
static const char *key_path(lua_State *L, const char *in, const char *key) {
  return in ? lua_pushfstring(L, "%s.%s", in, key) : key;
}

void lnm_check_subkeys(lua_State *L, int idx, const char *in, const char *const *names) {
  idx = lnm_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *const *n = names;
    if (lua_type(L, -2) != LUA_TSTRING) {
      const char *k = lnm_got(L, lua_gettop(L) - 1);
      lnm_opterror(L, lua_pushfstring(L, "%s[%s]", in ? in : "", k), "option names are strings, got key %s", k);
    }
    for (; *n; n++)
      if (strcmp(*n, lua_tostring(L, -2)) == 0) break;
    if (!*n) unknown_key(L, in, lua_tostring(L, -2), names);
    lua_pop(L, 1);
  }
}

/* Raises unless every key of the options table at idx is in names. */
void lnm_check_keys(lua_State *L, int idx, const char *const *names) {
  lnm_check_subkeys(L, idx, NULL, names);
}

/* Index of an optional options table (nil/none allowed), 0 when absent. */
int lnm_opt_table(lua_State *L, int idx, const char *const *names) {
  if (lua_isnoneornil(L, idx)) return 0;
  lnm_checktype(L, idx, LUA_TTABLE);
  lnm_check_keys(L, idx, names);
  return lnm_absindex(L, idx);
}

/* A finite number argument. */
float lnm_check_coord(lua_State *L, int idx) {
  lua_Number n = lnm_checknumber(L, idx);
  if (!isfinite(n) || fabs(n) > 3.0e38)
    lnm_argerror(L, idx, lua_pushfstring(L, "coordinate must be a finite number, got %s", lnm_got(L, idx)));
  return (float)n;
}

/* Three finite numbers at idx, idx+1, idx+2. */
void lnm_check_point(lua_State *L, int idx, float v[3]) {
  v[0] = lnm_check_coord(L, idx);
  v[1] = lnm_check_coord(L, idx + 1);
  v[2] = lnm_check_coord(L, idx + 2);
}

/* Raises "bad option '<in>.<key>' ... (<what> expected, got <value at v>)". */
static int field_error(lua_State *L, const char *in, const char *key, const char *what, int v) {
  const char *path = key_path(L, in, key);
  return lnm_opterror(L, path, "%s expected, got %s", what, lnm_got(L, v));
}

/* Field `key` of option table t (itself `in`, NULL at top level) as a
 * number (def when absent); raises if not finite or below lo. */
lua_Number lnm_subfield_number(lua_State *L, int t, const char *in, const char *key, lua_Number def,
                               lua_Number lo) {
  lua_Number v = def;
  lua_getfield(L, t, key);
  if (!lua_isnil(L, -1)) {
    const int at = lua_gettop(L);
    v = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(v) || v < lo)
      field_error(L, in, key, lo == -HUGE_VAL ? "finite number"
                              : lua_pushfstring(L, "finite number >= %s", lnm_number(L, lo)), at);
  }
  lua_pop(L, 1);
  return v;
}

lua_Number lnm_field_number(lua_State *L, int t, const char *key, lua_Number def, lua_Number lo) {
  return lnm_subfield_number(L, t, NULL, key, def, lo);
}

/* Field `key` of option table t (itself `in`) as an integer in [lo, hi]
 * (def when absent). */
lua_Integer lnm_subfield_int(lua_State *L, int t, const char *in, const char *key, lua_Integer def,
                             lua_Integer lo, lua_Integer hi) {
  lua_Number v = (lua_Number)def;
  lua_getfield(L, t, key);
  if (!lua_isnil(L, -1)) {
    const int at = lua_gettop(L);
    v = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || v != floor(v) || v < (lua_Number)lo || v > (lua_Number)hi) {
      const char *l = lnm_number(L, (lua_Number)lo), *h = lnm_number(L, (lua_Number)hi);
      field_error(L, in, key, lua_pushfstring(L, "integer in %s..%s", l, h), at);
    }
  }
  lua_pop(L, 1);
  return (lua_Integer)v;
}

lua_Integer lnm_field_int(lua_State *L, int t, const char *key, lua_Integer def, lua_Integer lo,
                             lua_Integer hi) {
  return lnm_subfield_int(L, t, NULL, key, def, lo, hi);
}

/* Reads a 3-number field ({x,y,z}) of option table t (itself `in`) into v;
 * 0 when absent. */
int lnm_subfield_vec3(lua_State *L, int t, const char *in, const char *key, float v[3]) {
  int i, at;
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  at = lua_gettop(L);
  if (!lua_istable(L, -1)) field_error(L, in, key, "table {x, y, z}", at);
  for (i = 0; i < 3; i++) {
    lua_Number n;
    lua_rawgeti(L, at, i + 1);
    n = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(n) || fabs(n) > 3.0e38) {
      const int item = lua_gettop(L);
      field_error(L, in, lua_pushfstring(L, "%s[%d]", key, i + 1), "finite number", item);
    }
    v[i] = (float)n;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

int lnm_field_vec3(lua_State *L, int t, const char *key, float v[3]) {
  return lnm_subfield_vec3(L, t, NULL, key, v);
}

/* Field `key` of option table t (0: no table) as a boolean; def when
 * absent; raises, naming the key, when it is not a boolean. */
int lnm_field_bool(lua_State *L, int t, const char *key, int def) {
  int v = def;
  if (!t) return def;
  lua_getfield(L, t, key);
  if (!lua_isnil(L, -1)) {
    if (!lua_isboolean(L, -1)) lnm_opterror(L, key, "boolean expected, got %s", lnm_got(L, lua_gettop(L)));
    v = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  return v;
}
