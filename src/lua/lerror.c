/* lerror.c -- the binding's messages: raised errors that name the function
 * as the user calls it, Lua's argument checks with those messages, and the
 * nil, message, code outcome of a failed call. */
#define LNM_LUAL_AS_IS /* this file calls Lua's own luaL_argerror and checks */
#include <stdarg.h>
#include "lnm.h"

/* ---- messages ----
 * Every raised message names the function as the user calls it
 * ("navmesh.build", "NavMesh:path", "Filter:areaCost"), the argument or the
 * option key, and what was expected and what came instead. Lua's own
 * luaL_argerror guesses the name from the call site (a tail call or a
 * pcall(f, ...) gives "?" or "navmesh.core.build") and counts self in some
 * calls and not others; these helpers look the running function up in a
 * table of public names made when the module opens, and count a method's
 * arguments after self, as a method call reads. */

static const char names_key = 'n'; /* its address is the registry key */

/* Pushes the table function -> public name, made on first use. */
static void push_names(lua_State *L) {
  lua_pushlightuserdata(L, (void *)&names_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  if (lua_istable(L, -1)) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushlightuserdata(L, (void *)&names_key);
  lua_pushvalue(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

/* Names every function of the table on top "<prefix><key>" (unless named). */
void lnm_name_functions(lua_State *L, const char *prefix) {
  int t = lua_gettop(L), names;
  push_names(L);
  names = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
      lua_pushvalue(L, -1);
      lua_rawget(L, names);
      if (lua_isnil(L, -1)) {
        lua_pushvalue(L, -2);
        lua_pushfstring(L, "%s%s", prefix, lua_tostring(L, -4));
        lua_rawset(L, names);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

void lnm_name_module(lua_State *L) {
  lnm_name_functions(L, "navmesh.");
}

/* The public name of the running C function ("NavMesh:path"), or NULL;
 * *method: it is a method (argument 1 is self). Leaves values on the
 * stack: only for the way to an error. */
static const char *running_name(lua_State *L, int *method) {
  lua_Debug ar;
  const char *name;
  *method = 0;
  if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "f", &ar)) return NULL;
  push_names(L);
  lua_pushvalue(L, -2);
  lua_rawget(L, -2);
  name = lua_tostring(L, -1);
  if (name) *method = strchr(name, ':') != NULL;
  return name;
}

/* The running function's public name, or `what` when it has none. */
static const char *fname_or(lua_State *L, const char *what) {
  int method;
  const char *name = running_name(L, &method);
  return name ? name : what;
}

const char *lnm_fname(lua_State *L, const char *what) { return fname_or(L, what); }

int lnm_argerror(lua_State *L, int arg, const char *msg) {
  int method;
  const char *name = running_name(L, &method);
  if (!name || arg <= 0) return luaL_argerror(L, arg, msg);
  if (method && arg == 1) return luaL_error(L, "calling '%s' on bad self (%s)", name, msg);
  return luaL_error(L, "bad argument #%d to '%s' (%s)", method ? arg - 1 : arg, name, msg);
}

int lnm_opterror(lua_State *L, const char *key, const char *fmt, ...) {
  const char *msg, *name;
  va_list ap;
  va_start(ap, fmt);
  msg = lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  name = fname_or(L, "?");
  return luaL_error(L, "bad option '%s' to '%s' (%s)", key, name, msg);
}

/* The type of the value at idx for messages: a class's __name, else the
 * Lua type name. */
static const char *type_name(lua_State *L, int idx) {
  idx = lnm_absindex(L, idx);
  if (luaL_getmetafield(L, idx, "__name")) {
    if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  if (lua_type(L, idx) == LUA_TLIGHTUSERDATA) return "light userdata";
  return luaL_typename(L, idx);
}

const char *lnm_number(lua_State *L, lua_Number n) {
  if (n != n) return "nan";
  if (n == floor(n) && fabs(n) <= 2147483647.0) return lua_pushfstring(L, "%d", (int)n);
  return lua_pushfstring(L, "%f", n);
}

const char *lnm_got(lua_State *L, int idx) {
  idx = lnm_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TNUMBER) return lnm_number(L, lua_tonumber(L, idx));
  if (lua_type(L, idx) == LUA_TSTRING) {
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    if (n <= 40) return lua_pushfstring(L, "'%s'", s);
    lua_pushlstring(L, s, 36); /* a long string: its start */
    return lua_pushfstring(L, "'%s...' (%d bytes)", lua_tostring(L, -1), (int)(n > 0x7fffffff ? 0x7fffffff : n));
  }
  if (lua_type(L, idx) == LUA_TBOOLEAN) return lua_toboolean(L, idx) ? "true" : "false";
  return type_name(L, idx);
}

int lnm_typeerror(lua_State *L, int arg, const char *tname) {
  const char *hint = strcmp(tname, LNM_FILTER) == 0 ? "; make one with navmesh.filter{...}" : "";
  return lnm_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s%s", tname,
                                              lua_isnone(L, arg) ? "no value" : type_name(L, arg), hint));
}

/* ---- Lua's argument checks, with the messages above ---- */

lua_Number lnm_checknumber(lua_State *L, int arg) {
  if (lua_type(L, arg) != LUA_TNUMBER && !lua_isnumber(L, arg)) lnm_typeerror(L, arg, "number");
  return lua_tonumber(L, arg);
}

const char *lnm_checklstring(lua_State *L, int arg, size_t *len) {
  const char *s = lua_type(L, arg) == LUA_TSTRING || lua_isnumber(L, arg) ? lua_tolstring(L, arg, len) : NULL;
  if (!s) lnm_typeerror(L, arg, "string");
  return s;
}

void *lnm_checkudata(lua_State *L, int arg, const char *tname) {
  void *p = luaL_testudata(L, arg, tname);
  if (!p) lnm_typeerror(L, arg, tname);
  return p;
}

void lnm_checktype(lua_State *L, int arg, int t) {
  if (lua_type(L, arg) != t) lnm_typeerror(L, arg, lua_typename(L, t));
}

lua_Integer lnm_check_integer(lua_State *L, int arg) {
  lua_Number n = lnm_checknumber(L, arg);
  if (!(n == floor(n) && n >= -9007199254740992.0 && n <= 9007199254740992.0))
    lnm_argerror(L, arg, lua_pushfstring(L, "integer expected, got %s", lnm_got(L, arg)));
  return (lua_Integer)n;
}

lua_Integer lnm_opt_integer(lua_State *L, int arg, lua_Integer def) {
  return lua_isnoneornil(L, arg) ? def : lnm_check_integer(L, arg);
}

int lnm_checkoption(lua_State *L, int arg, const char *def, const char *const lst[]) {
  const char *name = def && lua_isnoneornil(L, arg) ? def : lnm_checklstring(L, arg, NULL);
  int i;
  luaL_Buffer b;
  for (i = 0; lst[i]; i++)
    if (strcmp(lst[i], name) == 0) return i;
  luaL_buffinit(L, &b);
  for (i = 0; lst[i]; i++) {
    luaL_addstring(&b, i == 0 ? "\"" : lst[i + 1] ? "\", \"" : "\" or \"");
    luaL_addstring(&b, lst[i]);
  }
  luaL_addstring(&b, "\" expected, got ");
  luaL_addstring(&b, lnm_got(L, arg));
  luaL_pushresult(&b);
  return lnm_argerror(L, arg, lua_tostring(L, -1));
}

/* Pushes the outcome triple nil, "<what>: <text>[: detail]", "<CODE>". */
int lnm_push_fail(lua_State *L, const char *what, nm_status st, const nm_diag *diag) {
  lua_pushnil(L);
  if (diag && diag->msg[0])
    lua_pushfstring(L, "%s: %s: %s", what, nm_strerror(st), diag->msg);
  else
    lua_pushfstring(L, "%s: %s", what, nm_strerror(st));
  lua_pushstring(L, nm_status_name(st));
  return 3;
}

/* Raises for statuses that are never outcomes (memory, parameters); the
 * message starts with the running function's public name (else `what`). */
void lnm_raise_status(lua_State *L, const char *what, nm_status st, const nm_diag *diag) {
  what = fname_or(L, what);
  if (st == NM_ERR_NOMEM) luaL_error(L, "%s: not enough memory", what);
  if (diag && diag->msg[0]) luaL_error(L, "%s: %s", what, diag->msg);
  luaL_error(L, "%s: %s", what, nm_strerror(st));
}
