/* lutil.c -- what every binding file uses: argument and option checks and
 * their messages, the nil, message, code outcome, and the NavMesh handle
 * (its query scratch and lifetime). See lnm.h for the map of the binding. */
#define LNM_LUAL_AS_IS /* this file calls Lua's own luaL_argerror and checks */
#include <ctype.h>
#include <stdlib.h>
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
static void name_functions(lua_State *L, const char *prefix) {
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
  name_functions(L, "navmesh.");
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
                    fname_or(L, "?"), hint);
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

void lnm_push_point(lua_State *L, const float *v) {
  lua_pushnumber(L, v[0]);
  lua_pushnumber(L, v[1]);
  lua_pushnumber(L, v[2]);
}

/* ---- memory the collector does not see ----
 * The core and the handles' scratch allocate through the Lua state's
 * allocator function directly, which the collector does not count: a state
 * could drop handles holding megabytes while collectgarbage("count") shows
 * kilobytes, and no cycle would come to free them. So each state gets one
 * account (a userdata anchored in the registry, freed after every handle's
 * __gc has run at lua_close) that counts what passes through it, and every
 * byte a handle takes is charged (lnm_gc_charge). */

typedef struct lnm_acct {
  lua_Alloc fn;   /* the state's allocator */
  void *ud;
  size_t bytes;   /* held through this account now */
  size_t charged; /* bytes handles took since the last collection we ran */
  size_t base;    /* the state's heap + bytes after that collection */
} lnm_acct;

/* A collection is never run for less than this much charged. */
#define LNM_GC_FLOOR ((size_t)1 << 20)

static const char acct_key = 0; /* registry key (its address) */

/* The state's allocator, counting. The state runs on one thread at a time
 * and only its own handles use the account, so no atomics are needed. */
static void *acct_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lnm_acct *a = (lnm_acct *)ud;
  void *p = a->fn(a->ud, ptr, osize, nsize);
  if (nsize == 0 || p) a->bytes = a->bytes - (ptr ? osize : 0) + nsize;
  return p;
}

/* The state's account, or NULL before lnm_acct_open. */
static lnm_acct *state_acct(lua_State *L) {
  lnm_acct *a;
  lua_pushlightuserdata(L, (void *)&acct_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  a = (lnm_acct *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return a;
}

/* Makes the state's account (luaopen); a second require keeps the first. */
void lnm_acct_open(lua_State *L) {
  lnm_acct *a;
  if (state_acct(L)) return;
  lua_pushlightuserdata(L, (void *)&acct_key);
  a = (lnm_acct *)lua_newuserdata(L, sizeof *a);
  memset(a, 0, sizeof *a);
  a->fn = lua_getallocf(L, &a->ud);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

/* Bytes this state's handles hold in its memory (meshes, queries, scratch). */
size_t lnm_acct_bytes(lua_State *L) {
  lnm_acct *a = state_acct(L);
  return a ? a->bytes : 0;
}

/* Bytes held through handle h's account now (all of its state's handles). */
size_t lnm_handle_bytes(const lnm_mesh *h) { return lnm_alloc_bytes(&h->alloc); }

/* Lowers the account's base to what the state holds now, less what was
 * charged since the module's last collection, when that is smaller: Lua's
 * own collections may have freed much since (a spec file's data, a level
 * loaded and dropped), and a base left at the old heap size would let
 * dropped handles pile up to that size before the module collects. */
static void lower_base(lua_State *L, lnm_acct *a) {
  size_t held = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + a->bytes;
  size_t live = held > a->charged ? held - a->charged : 0;
  if (live < a->base) a->base = live;
}

/* Counts `bytes` handle h just took (a mesh it holds, shared or not, its
 * query, scratch) and runs a full collection once the bytes taken and not
 * given back by close since the last one pass what the state held after it
 * (its Lua heap and the module's bytes; at least LNM_GC_FLOOR): Lua's own
 * rule (collect when memory has doubled) with the module's bytes counted.
 * Handles dropped without close are then freed at the pace memory is
 * taken, whatever the collector's mode (Lua's step API cannot do it in
 * generational mode, the default of 5.4's and 5.5's lua.c and of Skynet:
 * stepping only makes minor collections, which age the dropped handles
 * instead of freeing them), and code that closes its handles never pays
 * for a collection. Nothing runs while the collector is stopped (5.2 and
 * later; 5.1 and LuaJIT cannot tell). */
void lnm_gc_charge(lua_State *L, lnm_mesh *h, size_t bytes) {
  lnm_gc_charge_to(L, &h->alloc, &h->charged, bytes);
}

void lnm_gc_charge_to(lua_State *L, const nm_alloc *alloc, size_t *charged, size_t bytes) {
  lnm_acct *a = state_acct(L);
  if (!a || alloc->ud != a) return;
  *charged += bytes;
  a->charged += bytes;
  lower_base(L, a);
  if (a->charged <= (a->base > LNM_GC_FLOOR ? a->base : LNM_GC_FLOOR)) return;
#if LUA_VERSION_NUM >= 502
  if (!lua_gc(L, LUA_GCISRUNNING, 0)) return;
#endif
  lua_gc(L, LUA_GCCOLLECT, 0);
  a->charged = 0;
  a->base = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + a->bytes;
}

/* Gives back what an object was charged (it is being closed). */
void lnm_gc_refund(const nm_alloc *alloc, size_t *charged) { lnm_gc_uncharge(alloc, charged, *charged); }

/* Gives back part of what an object was charged: bytes it no longer holds
 * in the state's memory (a mesh moved into system memory by share). */
void lnm_gc_uncharge(const nm_alloc *alloc, size_t *charged, size_t bytes) {
  lnm_acct *a = (lnm_acct *)alloc->ud;
  if (alloc->fn != acct_alloc) return;
  if (bytes > *charged) bytes = *charged;
  *charged -= bytes;
  a->charged -= bytes < a->charged ? bytes : a->charged;
}

static void gc_refund(lnm_mesh *h) { lnm_gc_refund(&h->alloc, &h->charged); }

size_t lnm_acct_alloc(lua_State *L, nm_alloc *alloc) {
  lnm_acct *a = state_acct(L);
  if (a) {
    alloc->fn = acct_alloc;
    alloc->ud = a;
    return a->bytes;
  }
  alloc->fn = lua_getallocf(L, &alloc->ud);
  return 0;
}

size_t lnm_alloc_bytes(const nm_alloc *a) {
  return a->fn == acct_alloc ? ((const lnm_acct *)a->ud)->bytes : 0;
}

/* ---- handles ---- */

/* Pushes a fresh, empty handle (closed until a mesh is attached); it
 * allocates through the state's account. */
lnm_mesh *lnm_new_handle(lua_State *L) {
  lnm_mesh *h = (lnm_mesh *)lua_newuserdata(L, sizeof *h);
  memset(h, 0, sizeof *h);
  h->mark = lnm_acct_alloc(L, &h->alloc);
  nm_filter_init(&h->filter);
  luaL_setmetatable(L, LNM_MESH);
  return h;
}

/* Attaches a mesh (taking over one reference), makes the handle's query and
 * charges the collector for what the handle took from the state's memory
 * since it was made (a mesh it loaded or built, the query). A shared mesh
 * is charged by navmesh.open: its bytes are in system memory. */
void lnm_handle_attach(lua_State *L, lnm_mesh *h, nm_navmesh *mesh, int max_nodes) {
  nm_status st;
  size_t now;
  h->mesh = mesh;
  h->max_nodes = max_nodes;
  if ((st = nm_query_new(mesh, max_nodes, &h->alloc, &h->q)) < 0) lnm_raise_status(L, "navmesh", st, NULL);
  now = lnm_handle_bytes(h);
  lnm_gc_charge(L, h, now > h->mark ? now - h->mark : 0);
}

/* Frees bytes parked by lnm_push_owned_bytes (the push raised). */
static void drop_out(lnm_mesh *h) {
  if (h->out) nm_free_bytes(h->mesh, h->out, h->out_len);
  h->out = NULL;
}

/* Pushes a byte block the core allocated with the mesh allocator as a Lua
 * string, then frees it. The block is parked in the handle meanwhile: if
 * lua_pushlstring raises (out of memory), close/__gc frees it. */
void lnm_push_owned_bytes(lua_State *L, lnm_mesh *h, void *bytes, size_t len) {
  drop_out(h);
  h->out = bytes;
  h->out_len = len;
  lua_pushlstring(L, (const char *)bytes, len);
  drop_out(h);
}

/* Frees everything a handle owns; idempotent. */
void lnm_handle_close(lnm_mesh *h) {
  gc_refund(h);
  if (h->mesh) drop_out(h);
  nm_query_free(h->q);
  h->q = NULL;
  nm_navmesh_release(h->mesh);
  h->mesh = NULL;
  if (h->path) h->alloc.fn(h->alloc.ud, h->path, (size_t)h->path_cap * sizeof(nm_polyref), 0);
  if (h->pts) h->alloc.fn(h->alloc.ud, h->pts, (size_t)h->pts_cap * 3 * sizeof(float), 0);
  if (h->flags) h->alloc.fn(h->alloc.ud, h->flags, (size_t)h->pts_cap, 0);
  if (h->refs) h->alloc.fn(h->alloc.ud, h->refs, (size_t)h->pts_cap * sizeof(nm_polyref), 0);
  h->path = NULL;
  h->pts = NULL;
  h->flags = NULL;
  h->refs = NULL;
  h->path_cap = h->pts_cap = 0;
  lnm_toolbox_free(h);
  if (h->name) h->alloc.fn(h->alloc.ud, h->name, h->name_len, 0);
  h->name = NULL;
  h->name_len = 0;
}

/* Moves an open handle onto another mesh (a newer version of what it
 * reads): the query keeps its node pool; the old mesh is released. */
void lnm_handle_move(lnm_mesh *h, nm_navmesh *mesh) {
  if (!h->mesh || h->mesh == mesh) return;
  nm_query_set_mesh(h->q, mesh);
  nm_navmesh_retain(mesh);
  nm_navmesh_release(h->mesh);
  h->mesh = mesh;
}

/* Remembers the name a handle was opened or shared under (refresh). */
void lnm_handle_set_name(lua_State *L, lnm_mesh *h, const char *name, size_t len) {
  char *copy;
  if (h->name && h->name_len == len && memcmp(h->name, name, len) == 0) return;
  if (!(copy = (char *)h->alloc.fn(h->alloc.ud, NULL, 0, len)))
    luaL_error(L, "%s: not enough memory", fname_or(L, "navmesh"));
  memcpy(copy, name, len);
  if (h->name) h->alloc.fn(h->alloc.ud, h->name, h->name_len, 0);
  h->name = copy;
  h->name_len = len;
}

/* The open handle at idx; raises on a closed one. */
lnm_mesh *lnm_check_mesh(lua_State *L, int idx) {
  lnm_mesh *h = (lnm_mesh *)lnm_checkudata(L, idx, LNM_MESH);
  if (!h->mesh) luaL_error(L, "%s: attempt to use a closed " LNM_MESH, fname_or(L, "navmesh"));
  return h;
}

/* Makes room for n corridor polygons in the handle's lnm_scratch. */
nm_polyref *lnm_ensure_path(lua_State *L, lnm_mesh *h, int n) {
  if (n > h->path_cap) {
    int cap = n < 256 ? 256 : n;
    void *p = h->alloc.fn(h->alloc.ud, h->path, (size_t)h->path_cap * sizeof(nm_polyref),
                          (size_t)cap * sizeof(nm_polyref));
    if (!p) luaL_error(L, "%s: not enough memory", fname_or(L, "navmesh"));
    h->path = (nm_polyref *)p;
    n = h->path_cap;
    h->path_cap = cap;
    lnm_gc_charge(L, h, (size_t)(cap - n) * sizeof(nm_polyref));
  }
  return h->path;
}

/* Makes room for n straight-path points in the handle's lnm_scratch. */
void lnm_ensure_pts(lua_State *L, lnm_mesh *h, int n) {
  void *p, *f, *r;
  int cap;
  if (n <= h->pts_cap) return;
  cap = n < 256 ? 256 : n;
  p = h->alloc.fn(h->alloc.ud, h->pts, (size_t)h->pts_cap * 3 * sizeof(float), (size_t)cap * 3 * sizeof(float));
  if (p) h->pts = (float *)p;
  f = p ? h->alloc.fn(h->alloc.ud, h->flags, (size_t)h->pts_cap, (size_t)cap) : NULL;
  if (f) h->flags = (uint8_t *)f;
  r = f ? h->alloc.fn(h->alloc.ud, h->refs, (size_t)h->pts_cap * sizeof(nm_polyref), (size_t)cap * sizeof(nm_polyref)) : NULL;
  if (!r) { /* keep the sizes consistent: shrink what did grow back */
    if (f) h->flags = (uint8_t *)h->alloc.fn(h->alloc.ud, h->flags, (size_t)cap, (size_t)h->pts_cap);
    if (p) h->pts = (float *)h->alloc.fn(h->alloc.ud, h->pts, (size_t)cap * 3 * sizeof(float), (size_t)h->pts_cap * 3 * sizeof(float));
    luaL_error(L, "%s: not enough memory", fname_or(L, "navmesh"));
  }
  h->refs = (nm_polyref *)r;
  n = h->pts_cap;
  h->pts_cap = cap;
  lnm_gc_charge(L, h, (size_t)(cap - n) * (3 * sizeof(float) + 1 + sizeof(nm_polyref)));
}

/* The filter at idx or the handle's default. */
const nm_filter *lnm_opt_filter(lua_State *L, int idx, lnm_mesh *h) {
  if (lua_isnoneornil(L, idx)) return &h->filter;
  return (const nm_filter *)lnm_checkudata(L, idx, LNM_FILTER);
}

/* Option `key` of table t as a filter (NULL when absent). */
const nm_filter *lnm_field_filter(lua_State *L, int t, const char *key) {
  const nm_filter *f = NULL;
  lua_getfield(L, t, key);
  if (!lua_isnil(L, -1) && !(f = (const nm_filter *)luaL_testudata(L, -1, LNM_FILTER)))
    lnm_opterror(L, key, LNM_FILTER " expected, got %s; make one with navmesh.filter{...}", lnm_got(L, lua_gettop(L)));
  lua_pop(L, 1);
  return f;
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

/* A polygon reference argument (an integer in 1 .. 2^32-1). */
static nm_polyref check_ref(lua_State *L, int idx) {
  lua_Integer r = lnm_check_integer(L, idx);
  if (r <= 0 || r > (lua_Integer)0xffffffffu)
    lnm_argerror(L, idx, lua_pushfstring(L, "invalid polygon reference %s", lnm_got(L, idx)));
  return (nm_polyref)r;
}

/* A reference that must be valid in the handle's mesh. */
nm_polyref lnm_check_valid_ref(lua_State *L, lnm_mesh *h, int idx) {
  nm_polyref r = check_ref(L, idx);
  if (!nm_navmesh_is_valid_ref(h->mesh, r))
    lnm_argerror(L, idx, lua_pushfstring(L, "invalid polygon reference %s (not in this mesh)", lnm_got(L, idx)));
  return r;
}

/* maxNodes from an options table (default 2048). */
int lnm_opt_max_nodes(lua_State *L, int t) {
  if (!t) return LNM_DEFAULT_NODES;
  return (int)lnm_field_int(L, t, "maxNodes", LNM_DEFAULT_NODES, 1, 1 << 22);
}

const char *const lnm_handle_opts[] = {"maxNodes", "mmap", NULL};

/* Reads a whole file into a block from the Lua allocator: returns it with
 * its length (*len) and allocated size (*cap), or NULL and *err when the
 * file cannot be read. Out of memory raises "<what>: not enough memory", as
 * everywhere else (a host such as skynet.memlimit may refuse only this one
 * large block: that is not a missing file). */
char *lnm_read_file(lua_State *L, const char *what, const char *path, size_t *len, size_t *cap,
                    const char **err) {
  void *ud;
  lua_Alloc fn = lua_getallocf(L, &ud);
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t n = 0;
  *cap = 0;
  if (!f) { *err = strerror(errno); return NULL; }
  for (;;) {
    size_t got;
    if (n == *cap) {
      size_t ncap = *cap ? *cap * 2 : 65536;
      char *nb = (char *)fn(ud, buf, *cap, ncap);
      if (!nb) {
        fn(ud, buf, *cap, 0);
        fclose(f);
        luaL_error(L, "%s: not enough memory", what);
      }
      buf = nb;
      *cap = ncap;
    }
    got = fread(buf + n, 1, *cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) { fn(ud, buf, *cap, 0); fclose(f); *err = "read error"; return NULL; }
  fclose(f);
  *len = n;
  return buf;
}

/* ---- the system allocator (caches built by jobs live in it) ---- */

static void *system_fn(void *ud, void *p, size_t os, size_t ns) {
  (void)ud;
  (void)os;
  if (ns == 0) {
    free(p);
    return NULL;
  }
  return realloc(p, ns);
}

const nm_alloc *lnm_system_alloc(void) {
  static const nm_alloc a = {system_fn, NULL};
  return &a;
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

/* Writes bytes to a file: pushes true, or nil, "cannot write <path>: ...",
 * "ERR_IO". Returns the number of values pushed. */
int lnm_write_file(lua_State *L, const char *path, const void *bytes, size_t len) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(bytes, 1, len, f) == len;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot write %s: %s", path, strerror(errno));
    lua_pushstring(L, nm_status_name(NM_ERR_IO));
    return 3;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* A zeroed lnm_scratch block of n bytes owned by the Lua GC (a userdata pushed
 * on the stack), so a raised error in the middle of parsing leaks nothing. */
void *lnm_scratch(lua_State *L, size_t n) {
  void *p = lua_newuserdata(L, n ? n : 1);
  memset(p, 0, n ? n : 1);
  return p;
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
  name_functions(L, lua_tostring(L, -2));
  lua_pop(L, 3);
}
