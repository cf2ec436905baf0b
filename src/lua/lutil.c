/* lutil.c -- what every binding file uses: argument and option checks, the
 * nil, message, code outcome, and the NavMesh handle (its query scratch and
 * lifetime). See lnm.h for the map of the binding. */
#include "lnm.h"

/* ---- small helpers ---- */

/* Raises unless every key of the options table at idx is in names. */
void lnm_check_keys(lua_State *L, int idx, const char *const *names) {
  idx = lnm_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *const *n = names;
    if (lua_type(L, -2) != LUA_TSTRING) luaL_argerror(L, idx, "option keys must be strings");
    for (; *n; n++)
      if (strcmp(*n, lua_tostring(L, -2)) == 0) break;
    if (!*n) luaL_argerror(L, idx, lua_pushfstring(L, "unknown option '%s'", lua_tostring(L, -2)));
    lua_pop(L, 1);
  }
}

/* Index of an optional options table (nil/none allowed), 0 when absent. */
int lnm_opt_table(lua_State *L, int idx, const char *const *names) {
  if (lua_isnoneornil(L, idx)) return 0;
  luaL_checktype(L, idx, LUA_TTABLE);
  lnm_check_keys(L, idx, names);
  return lnm_absindex(L, idx);
}

/* A finite number argument. */
float lnm_check_coord(lua_State *L, int idx) {
  lua_Number n = luaL_checknumber(L, idx);
  if (!isfinite(n) || fabs(n) > 3.0e38) luaL_argerror(L, idx, "coordinate must be a finite number");
  return (float)n;
}

/* Three finite numbers at idx, idx+1, idx+2. */
void lnm_check_point(lua_State *L, int idx, float v[3]) {
  v[0] = lnm_check_coord(L, idx);
  v[1] = lnm_check_coord(L, idx + 1);
  v[2] = lnm_check_coord(L, idx + 2);
}

/* Field `key` of table t as a number (def when absent); raises if not finite
 * or below lo. */
lua_Number lnm_field_number(lua_State *L, int t, const char *key, lua_Number def, lua_Number lo) {
  lua_Number v = def;
  lua_getfield(L, t, key);
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TNUMBER)
      luaL_error(L, "bad option '%s' (number expected, got %s)", key, luaL_typename(L, -1));
    v = lua_tonumber(L, -1);
    if (!isfinite(v) || v < lo) luaL_error(L, "bad option '%s' (out of range)", key);
  }
  lua_pop(L, 1);
  return v;
}

/* Field `key` of table t as an integer in [lo, hi] (def when absent). */
lua_Integer lnm_field_int(lua_State *L, int t, const char *key, lua_Integer def, lua_Integer lo,
                             lua_Integer hi) {
  lua_Number v = lnm_field_number(L, t, key, (lua_Number)def, (lua_Number)lo);
  if (v != floor(v) || v > (lua_Number)hi)
    luaL_error(L, "bad option '%s' (integer in %d..%d expected)", key, (int)lo, (int)hi);
  return (lua_Integer)v;
}

/* Reads a 3-number table field ({x,y,z}) into v; 0 when absent. */
int lnm_field_vec3(lua_State *L, int t, const char *key, float v[3]) {
  int i;
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  if (!lua_istable(L, -1)) luaL_error(L, "bad option '%s' (table {x, y, z} expected)", key);
  for (i = 0; i < 3; i++) {
    lua_Number n;
    lua_rawgeti(L, -1, i + 1);
    n = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(n)) luaL_error(L, "bad option '%s' (3 finite numbers expected)", key);
    v[i] = (float)n;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
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

/* Raises for statuses that are never outcomes (memory, parameters). */
void lnm_raise_status(lua_State *L, const char *what, nm_status st, const nm_diag *diag) {
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
size_t lnm_handle_bytes(const lnm_mesh *h) {
  return h->alloc.fn == acct_alloc ? ((const lnm_acct *)h->alloc.ud)->bytes : 0;
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
  lnm_acct *a = state_acct(L);
  if (!a || h->alloc.ud != a) return;
  h->charged += bytes;
  a->charged += bytes;
  if (a->charged <= (a->base > LNM_GC_FLOOR ? a->base : LNM_GC_FLOOR)) return;
#if LUA_VERSION_NUM >= 502
  if (!lua_gc(L, LUA_GCISRUNNING, 0)) return;
#endif
  lua_gc(L, LUA_GCCOLLECT, 0);
  a->charged = 0;
  a->base = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + a->bytes;
}

/* Gives back what handle h was charged (it is being closed). */
static void gc_refund(lnm_mesh *h) {
  lnm_acct *a = (lnm_acct *)h->alloc.ud;
  if (h->alloc.fn != acct_alloc) return;
  a->charged -= h->charged < a->charged ? h->charged : a->charged;
  h->charged = 0;
}

/* ---- handles ---- */

/* Pushes a fresh, empty handle (closed until a mesh is attached); it
 * allocates through the state's account. */
lnm_mesh *lnm_new_handle(lua_State *L) {
  lnm_acct *a = state_acct(L);
  lnm_mesh *h = (lnm_mesh *)lua_newuserdata(L, sizeof *h);
  memset(h, 0, sizeof *h);
  if (a) {
    h->alloc.fn = acct_alloc;
    h->alloc.ud = a;
    h->mark = a->bytes;
  } else {
    h->alloc.fn = lua_getallocf(L, &h->alloc.ud);
  }
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
}

/* The open handle at idx; raises on a closed one. */
lnm_mesh *lnm_check_mesh(lua_State *L, int idx) {
  lnm_mesh *h = (lnm_mesh *)luaL_checkudata(L, idx, LNM_MESH);
  if (!h->mesh) luaL_error(L, "attempt to use a closed " LNM_MESH);
  return h;
}

/* Makes room for n corridor polygons in the handle's lnm_scratch. */
nm_polyref *lnm_ensure_path(lua_State *L, lnm_mesh *h, int n) {
  if (n > h->path_cap) {
    int cap = n < 256 ? 256 : n;
    void *p = h->alloc.fn(h->alloc.ud, h->path, (size_t)h->path_cap * sizeof(nm_polyref),
                          (size_t)cap * sizeof(nm_polyref));
    if (!p) luaL_error(L, "not enough memory");
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
    luaL_error(L, "not enough memory");
  }
  h->refs = (nm_polyref *)r;
  n = h->pts_cap;
  h->pts_cap = cap;
  lnm_gc_charge(L, h, (size_t)(cap - n) * (3 * sizeof(float) + 1 + sizeof(nm_polyref)));
}

/* The filter at idx or the handle's default. */
const nm_filter *lnm_opt_filter(lua_State *L, int idx, lnm_mesh *h) {
  if (lua_isnoneornil(L, idx)) return &h->filter;
  return (const nm_filter *)luaL_checkudata(L, idx, LNM_FILTER);
}

/* A polygon reference argument (an integer in 1 .. 2^32-1). */
static nm_polyref check_ref(lua_State *L, int idx) {
  lua_Integer r = lnm_checkinteger(L, idx);
  if (r <= 0 || r > (lua_Integer)0xffffffffu) luaL_argerror(L, idx, "invalid polygon reference");
  return (nm_polyref)r;
}

/* A reference that must be valid in the handle's mesh. */
nm_polyref lnm_check_valid_ref(lua_State *L, lnm_mesh *h, int idx) {
  nm_polyref r = check_ref(L, idx);
  if (!nm_navmesh_is_valid_ref(h->mesh, r)) luaL_argerror(L, idx, "invalid polygon reference");
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

/* Adds methods to the __index table of class `name`. */
void lnm_add_methods(lua_State *L, const char *name, const luaL_Reg *methods) {
  luaL_getmetatable(L, name);
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, methods, 0);
  lua_pop(L, 2);
}
