/* lnavmesh.c -- the Lua binding: `require "navmesh.core"`.
 *
 * A thin layer: check arguments, call the core, turn results into Lua values.
 * Programmer errors (wrong types, NaN coordinates, unknown option keys,
 * out-of-range values, a closed handle) raise; outcomes (bad file, no polygon
 * near a point, no path) return nil, message, code. Points go in as three
 * numbers and come out as flat {x1,y1,z1, x2,y2,z2, ...} arrays.
 * Each NavMesh handle owns its query scratch (node pool, open list, path
 * buffers); the mesh data itself is reference counted by the core. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "navmesh.h"
#include "compat.h"
#include "registry.h"

#define LNM_MESH "navmesh.NavMesh"
#define LNM_FILTER "navmesh.Filter"
#define LNM_DEFAULT_NODES 2048

/* A NavMesh handle. */
typedef struct lnm_mesh {
  nm_navmesh *mesh;    /* NULL once closed */
  nm_query *q;
  nm_alloc alloc;      /* the Lua state's allocator */
  nm_filter filter;    /* default filter */
  int max_nodes;
  nm_polyref *path;    /* scratch: corridors */
  int path_cap;
  float *pts;          /* scratch: straight path points, flags, refs */
  uint8_t *flags;
  nm_polyref *refs;
  int pts_cap;
  void *out;           /* core-allocated bytes being pushed (saveString, removeTile) */
  size_t out_len;
  int sysmem;          /* mesh is in system memory: shared or opened (registry.c) */
  /* query toolbox scratch: refs, parents, costs of area searches */
  nm_polyref *tb_refs, *tb_parents;
  float *tb_costs;
  int tb_cap;
} lnm_mesh;

static void toolbox_free(lnm_mesh *h); /* query toolbox block */
static int filter_read_toolbox(lua_State *L, int t, nm_filter *f);

/* ---- small helpers ---- */

/* Raises unless every key of the options table at idx is in names. */
static void check_keys(lua_State *L, int idx, const char *const *names) {
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
static int opt_table(lua_State *L, int idx, const char *const *names) {
  if (lua_isnoneornil(L, idx)) return 0;
  luaL_checktype(L, idx, LUA_TTABLE);
  check_keys(L, idx, names);
  return lnm_absindex(L, idx);
}

/* A finite number argument. */
static float check_coord(lua_State *L, int idx) {
  lua_Number n = luaL_checknumber(L, idx);
  if (!isfinite(n) || fabs(n) > 3.0e38) luaL_argerror(L, idx, "coordinate must be a finite number");
  return (float)n;
}

/* Three finite numbers at idx, idx+1, idx+2. */
static void check_point(lua_State *L, int idx, float v[3]) {
  v[0] = check_coord(L, idx);
  v[1] = check_coord(L, idx + 1);
  v[2] = check_coord(L, idx + 2);
}

/* Field `key` of table t as a number (def when absent); raises if not finite
 * or below lo. */
static lua_Number field_number(lua_State *L, int t, const char *key, lua_Number def, lua_Number lo) {
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
static lua_Integer field_int(lua_State *L, int t, const char *key, lua_Integer def, lua_Integer lo,
                             lua_Integer hi) {
  lua_Number v = field_number(L, t, key, (lua_Number)def, (lua_Number)lo);
  if (v != floor(v) || v > (lua_Number)hi)
    luaL_error(L, "bad option '%s' (integer in %d..%d expected)", key, (int)lo, (int)hi);
  return (lua_Integer)v;
}

/* Reads a 3-number table field ({x,y,z}) into v; 0 when absent. */
static int field_vec3(lua_State *L, int t, const char *key, float v[3]) {
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
static int push_fail(lua_State *L, const char *what, nm_status st, const nm_diag *diag) {
  lua_pushnil(L);
  if (diag && diag->msg[0])
    lua_pushfstring(L, "%s: %s: %s", what, nm_strerror(st), diag->msg);
  else
    lua_pushfstring(L, "%s: %s", what, nm_strerror(st));
  lua_pushstring(L, nm_status_name(st));
  return 3;
}

/* Raises for statuses that are never outcomes (memory, parameters). */
static void raise_status(lua_State *L, const char *what, nm_status st, const nm_diag *diag) {
  if (st == NM_ERR_NOMEM) luaL_error(L, "%s: not enough memory", what);
  if (diag && diag->msg[0]) luaL_error(L, "%s: %s", what, diag->msg);
  luaL_error(L, "%s: %s", what, nm_strerror(st));
}

static void push_point(lua_State *L, const float *v) {
  lua_pushnumber(L, v[0]);
  lua_pushnumber(L, v[1]);
  lua_pushnumber(L, v[2]);
}

/* ---- handles ---- */

/* Pushes a fresh, empty handle (closed until a mesh is attached). */
static lnm_mesh *new_handle(lua_State *L) {
  lnm_mesh *h = (lnm_mesh *)lua_newuserdata(L, sizeof *h);
  memset(h, 0, sizeof *h);
  h->alloc.fn = lua_getallocf(L, &h->alloc.ud);
  nm_filter_init(&h->filter);
  luaL_setmetatable(L, LNM_MESH);
  return h;
}

/* Attaches a mesh (taking over one reference) and makes the handle's query. */
static void handle_attach(lua_State *L, lnm_mesh *h, nm_navmesh *mesh, int max_nodes) {
  nm_status st;
  h->mesh = mesh;
  h->max_nodes = max_nodes;
  if ((st = nm_query_new(mesh, max_nodes, &h->alloc, &h->q)) < 0) raise_status(L, "navmesh", st, NULL);
}

/* Frees bytes parked by push_owned_bytes (the push raised). */
static void drop_out(lnm_mesh *h) {
  if (h->out) nm_free_bytes(h->mesh, h->out, h->out_len);
  h->out = NULL;
}

/* Pushes a byte block the core allocated with the mesh allocator as a Lua
 * string, then frees it. The block is parked in the handle meanwhile: if
 * lua_pushlstring raises (out of memory), close/__gc frees it. */
static void push_owned_bytes(lua_State *L, lnm_mesh *h, void *bytes, size_t len) {
  drop_out(h);
  h->out = bytes;
  h->out_len = len;
  lua_pushlstring(L, (const char *)bytes, len);
  drop_out(h);
}

/* Frees everything a handle owns; idempotent. */
static void handle_close(lnm_mesh *h) {
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
  toolbox_free(h);
}

/* The open handle at idx; raises on a closed one. */
static lnm_mesh *check_mesh(lua_State *L, int idx) {
  lnm_mesh *h = (lnm_mesh *)luaL_checkudata(L, idx, LNM_MESH);
  if (!h->mesh) luaL_error(L, "attempt to use a closed " LNM_MESH);
  return h;
}

/* Makes room for n corridor polygons in the handle's scratch. */
static nm_polyref *ensure_path(lua_State *L, lnm_mesh *h, int n) {
  if (n > h->path_cap) {
    int cap = n < 256 ? 256 : n;
    void *p = h->alloc.fn(h->alloc.ud, h->path, (size_t)h->path_cap * sizeof(nm_polyref),
                          (size_t)cap * sizeof(nm_polyref));
    if (!p) luaL_error(L, "not enough memory");
    h->path = (nm_polyref *)p;
    h->path_cap = cap;
  }
  return h->path;
}

/* Makes room for n straight-path points in the handle's scratch. */
static void ensure_pts(lua_State *L, lnm_mesh *h, int n) {
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
  h->pts_cap = cap;
}

/* The filter at idx or the handle's default. */
static const nm_filter *opt_filter(lua_State *L, int idx, lnm_mesh *h) {
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
static nm_polyref check_valid_ref(lua_State *L, lnm_mesh *h, int idx) {
  nm_polyref r = check_ref(L, idx);
  if (!nm_navmesh_is_valid_ref(h->mesh, r)) luaL_argerror(L, idx, "invalid polygon reference");
  return r;
}

/* maxNodes from an options table (default 2048). */
static int opt_max_nodes(lua_State *L, int t) {
  if (!t) return LNM_DEFAULT_NODES;
  return (int)field_int(L, t, "maxNodes", LNM_DEFAULT_NODES, 1, 1 << 22);
}

static const char *const handle_opts[] = {"maxNodes", "mmap", NULL};

/* ---- module functions: making meshes ---- */

/* Reads a whole file into a block from the Lua allocator: returns it with
 * its length (*len) and allocated size (*cap), or NULL and *err. */
static char *read_file(lua_State *L, const char *path, size_t *len, size_t *cap, const char **err) {
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
      if (!nb) { fn(ud, buf, *cap, 0); fclose(f); *err = "not enough memory"; return NULL; }
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

/* navmesh.loadString(bytes [, opts]) */
static int lnm_load_string(lua_State *L) {
  size_t len;
  const char *bytes = luaL_checklstring(L, 1, &len);
  int t = opt_table(L, 2, handle_opts), nodes = opt_max_nodes(L, t);
  lnm_mesh *h = new_handle(L);
  nm_navmesh *mesh;
  nm_diag diag;
  nm_status st;
  memset(&diag, 0, sizeof diag);
  if ((st = nm_navmesh_load(bytes, len, &h->alloc, &diag, &mesh)) < 0) {
    if (st == NM_ERR_NOMEM) raise_status(L, "loadString", st, NULL);
    return push_fail(L, "loadString", st, &diag);
  }
  handle_attach(L, h, mesh, nodes);
  return 1;
}

/* Pushes the outcome of a failed load: nil, "<path>: <text>[: detail]", code. */
static int push_load_fail(lua_State *L, const char *path, nm_status st, const nm_diag *diag) {
  if (st == NM_ERR_NOMEM) raise_status(L, "load", st, NULL);
  lua_pushnil(L);
  lua_pushfstring(L, "%s: %s%s%s", path, nm_strerror(st), diag->msg[0] ? ": " : "", diag->msg);
  lua_pushstring(L, nm_status_name(st));
  return 3;
}

/* Loads a file into handle h: read and parsed, or (mapped) our own format
 * used in place through a read-only mapping. */
static int load_into(lua_State *L, const char *path, lnm_mesh *h, int nodes, int mapped) {
  nm_navmesh *mesh;
  nm_diag diag;
  nm_status st;
  memset(&diag, 0, sizeof diag);
  if (mapped) {
    st = nm_navmesh_map(path, &h->alloc, &diag, &mesh);
  } else {
    const char *err = NULL;
    size_t len = 0, cap = 0;
    char *buf = read_file(L, path, &len, &cap, &err);
    if (!buf) {
      lua_pushnil(L);
      lua_pushfstring(L, "cannot open %s: %s", path, err);
      lua_pushstring(L, nm_status_name(NM_ERR_IO));
      return 3;
    }
    st = nm_navmesh_load(buf, len, &h->alloc, &diag, &mesh);
    h->alloc.fn(h->alloc.ud, buf, cap, 0);
  }
  if (st < 0) return push_load_fail(L, path, st, &diag);
  handle_attach(L, h, mesh, nodes);
  return 1;
}

/* navmesh.load(path [, {maxNodes=, mmap=}]) */
static int lnm_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int t = opt_table(L, 2, handle_opts), nodes = opt_max_nodes(L, t), mapped = 0;
  if (t) {
    lua_getfield(L, t, "mmap");
    mapped = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  return load_into(L, path, new_handle(L), nodes, mapped);
}

/* navmesh.new{origin=, tileWidth=, tileHeight=, maxTiles=, maxPolys=} [, opts] */
static int lnm_new(lua_State *L) {
  static const char *const keys[] = {"origin", "tileWidth", "tileHeight", "maxTiles", "maxPolys", NULL};
  nm_navmesh_params p;
  nm_navmesh *mesh;
  nm_diag diag;
  nm_status st;
  int t, nodes;
  lnm_mesh *h;
  luaL_checktype(L, 1, LUA_TTABLE);
  check_keys(L, 1, keys);
  t = opt_table(L, 2, handle_opts);
  nodes = opt_max_nodes(L, t);
  memset(&p, 0, sizeof p);
  field_vec3(L, 1, "origin", p.orig);
  p.tile_width = (float)field_number(L, 1, "tileWidth", 0, 0);
  p.tile_height = (float)field_number(L, 1, "tileHeight", p.tile_width, 0);
  p.max_tiles = (int)field_int(L, 1, "maxTiles", 1024, 1, 1 << 22);
  p.max_polys = (int)field_int(L, 1, "maxPolys", 4096, 1, 1 << 22);
  h = new_handle(L);
  memset(&diag, 0, sizeof diag);
  if ((st = nm_navmesh_new(&p, &h->alloc, &diag, &mesh)) < 0) {
    if (st == NM_ERR_PARAM) luaL_argerror(L, 1, diag.msg);
    raise_status(L, "new", st, &diag);
  }
  handle_attach(L, h, mesh, nodes);
  return 1;
}

/* A zeroed scratch block of n bytes owned by the Lua GC (a userdata pushed
 * on the stack), so a raised error in the middle of parsing leaks nothing. */
static void *scratch(lua_State *L, size_t n) {
  void *p = lua_newuserdata(L, n ? n : 1);
  memset(p, 0, n ? n : 1);
  return p;
}

/* Flat number list field `key` of table t (length a multiple of `mult`);
 * NULL when absent. */
static float *field_floats(lua_State *L, int t, const char *key, int mult, int *count) {
  float *v;
  int i, n, list;
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) { lua_pop(L, 1); *count = 0; return NULL; }
  if (!lua_istable(L, -1)) luaL_error(L, "bad field '%s' (table expected)", key);
  list = lua_gettop(L);
  n = (int)lua_rawlen(L, list);
  if (n % mult) luaL_error(L, "bad field '%s' (length must be a multiple of %d)", key, mult);
  v = (float *)scratch(L, (size_t)n * sizeof(float));
  for (i = 0; i < n; i++) {
    lua_Number x;
    lua_rawgeti(L, list, i + 1);
    x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38)
      luaL_error(L, "bad field '%s' (item %d is not a finite number)", key, i + 1);
    v[i] = (float)x;
    lua_pop(L, 1);
  }
  lua_remove(L, list); /* keep the scratch block, drop the list */
  *count = n / mult;
  return v;
}

/* polygons = { {i1, i2, i3, ...}, ... } (1-based) into 6-slot records. */
static uint16_t *field_polygons(lua_State *L, int t, int nverts, int *npolys) {
  uint16_t *polys;
  int i, j, n, list;
  lua_getfield(L, t, "polygons");
  if (!lua_istable(L, -1)) luaL_error(L, "bad field 'polygons' (table of index lists expected)");
  list = lua_gettop(L);
  n = (int)lua_rawlen(L, list);
  polys = (uint16_t *)scratch(L, (size_t)n * NM_MAX_VERTS_PER_POLY * sizeof(uint16_t));
  for (i = 0; i < n; i++) {
    int k;
    lua_rawgeti(L, list, i + 1);
    if (!lua_istable(L, -1)) luaL_error(L, "bad polygon %d (table expected)", i + 1);
    k = (int)lua_rawlen(L, -1);
    if (k < 3 || k > NM_MAX_VERTS_PER_POLY) luaL_error(L, "bad polygon %d (3 to 6 vertex indices expected)", i + 1);
    for (j = 0; j < NM_MAX_VERTS_PER_POLY; j++) polys[i * NM_MAX_VERTS_PER_POLY + j] = 0xffff;
    for (j = 0; j < k; j++) {
      lua_Number x;
      lua_rawgeti(L, -1, j + 1);
      x = lua_tonumber(L, -1);
      if (lua_type(L, -1) != LUA_TNUMBER || x != floor(x) || x < 1 || x > nverts)
        luaL_error(L, "bad polygon %d (vertex index %d out of range)", i + 1, j + 1);
      polys[i * NM_MAX_VERTS_PER_POLY + j] = (uint16_t)(x - 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_remove(L, list);
  *npolys = n;
  return polys;
}

/* Optional per-polygon integer list field (areas, flags) in [0, hi]. */
static int field_ints(lua_State *L, int t, const char *key, int n, lua_Integer hi, int *out) {
  int i;
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) { lua_pop(L, 1); return 0; }
  if (!lua_istable(L, -1) || (int)lua_rawlen(L, -1) != n) luaL_error(L, "bad field '%s' (one value per polygon expected)", key);
  for (i = 0; i < n; i++) {
    lua_Number x;
    lua_rawgeti(L, -1, i + 1);
    x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || x != floor(x) || x < 0 || x > (lua_Number)hi)
      luaL_error(L, "bad field '%s' (item %d must be an integer in 0..%d)", key, i + 1, (int)hi);
    out[i] = (int)x;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

/* offMeshConnections = { {start={x,y,z}, ["end"]={x,y,z}, radius=, bidirectional=, area=, flags=, userId=}, ... } */
static nm_offmesh_link *field_offmesh(lua_State *L, int t, int *count) {
  static const char *const keys[] = {"start", "end", "radius", "bidirectional", "area", "flags", "userId", NULL};
  nm_offmesh_link *o;
  int i, n, list;
  lua_getfield(L, t, "offMeshConnections");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); *count = 0; return NULL; }
  if (!lua_istable(L, -1)) luaL_error(L, "bad field 'offMeshConnections' (table expected)");
  list = lua_gettop(L);
  n = (int)lua_rawlen(L, list);
  o = (nm_offmesh_link *)scratch(L, (size_t)n * sizeof *o);
  for (i = 0; i < n; i++) {
    int c;
    lua_rawgeti(L, list, i + 1);
    if (!lua_istable(L, -1)) luaL_error(L, "bad off-mesh connection %d (table expected)", i + 1);
    c = lua_gettop(L);
    check_keys(L, c, keys);
    if (!field_vec3(L, c, "start", o[i].start) || !field_vec3(L, c, "end", o[i].end))
      luaL_error(L, "bad off-mesh connection %d (start and end required)", i + 1);
    o[i].radius = (float)field_number(L, c, "radius", 0.5, 1e-6);
    lua_getfield(L, c, "bidirectional");
    o[i].bidirectional = lua_isnil(L, -1) ? 1 : lua_toboolean(L, -1);
    lua_pop(L, 1);
    o[i].area = (uint8_t)field_int(L, c, "area", 0, 0, NM_MAX_AREAS - 1);
    o[i].flags = (uint16_t)field_int(L, c, "flags", 1, 0, 0xffff);
    o[i].user_id = (uint32_t)field_int(L, c, "userId", 0, 0, 0x7fffffff);
    lua_pop(L, 1);
  }
  lua_remove(L, list);
  *count = n;
  return o;
}

/* navmesh.fromPolygons{vertices=, polygons=, areas=, flags=, ...} [, opts] */
static int lnm_from_polygons(lua_State *L) {
  static const char *const keys[] = {"vertices", "polygons", "areas", "flags", "offMeshConnections",
                                     "cellSize", "walkableHeight", "walkableRadius", "walkableClimb", NULL};
  nm_poly_mesh_input in;
  lnm_mesh *h;
  nm_diag diag;
  nm_status st;
  nm_navmesh *mesh = NULL;
  void *blob = NULL;
  size_t blob_size = 0;
  int t, nodes, *ints, i, hidx;
  luaL_checktype(L, 1, LUA_TTABLE);
  check_keys(L, 1, keys);
  t = opt_table(L, 2, handle_opts);
  nodes = opt_max_nodes(L, t);
  memset(&in, 0, sizeof in);
  in.verts = field_floats(L, 1, "vertices", 3, &in.nverts);
  if (!in.verts) luaL_argerror(L, 1, "field 'vertices' (flat {x,y,z,...} list) required");
  in.polys = field_polygons(L, 1, in.nverts, &in.npolys);
  in.nvp = NM_MAX_VERTS_PER_POLY;
  ints = (int *)scratch(L, (size_t)in.npolys * sizeof(int));
  if (field_ints(L, 1, "areas", in.npolys, NM_MAX_AREAS - 1, ints)) {
    uint8_t *areas = (uint8_t *)scratch(L, (size_t)in.npolys);
    for (i = 0; i < in.npolys; i++) areas[i] = (uint8_t)ints[i];
    in.areas = areas;
  }
  if (field_ints(L, 1, "flags", in.npolys, 0xffff, ints)) {
    uint16_t *flags = (uint16_t *)scratch(L, (size_t)in.npolys * sizeof(uint16_t));
    for (i = 0; i < in.npolys; i++) flags[i] = (uint16_t)ints[i];
    in.flags = flags;
  }
  in.offmesh = field_offmesh(L, 1, &in.noffmesh);
  in.cell_size = (float)field_number(L, 1, "cellSize", 0, 0);
  in.walkable_height = (float)field_number(L, 1, "walkableHeight", 2.0, 0);
  in.walkable_radius = (float)field_number(L, 1, "walkableRadius", 0.6, 0);
  in.walkable_climb = (float)field_number(L, 1, "walkableClimb", 0.9, 0);
  in.bmin[0] = 1;
  in.bmax[0] = 0; /* bounds from the vertices */
  in.build_bvtree = 1;
  h = new_handle(L);
  hidx = lua_gettop(L);
  memset(&diag, 0, sizeof diag);
  st = nm_tile_create(&in, &h->alloc, &diag, &blob, &blob_size);
  if (st >= 0) {
    st = nm_navmesh_load(blob, blob_size, &h->alloc, &diag, &mesh);
    nm_tile_free(&h->alloc, blob, blob_size);
  }
  if (st == NM_ERR_EMPTY) return push_fail(L, "fromPolygons", st, &diag);
  if (st < 0) {
    if (st == NM_ERR_PARAM) luaL_argerror(L, 1, diag.msg);
    raise_status(L, "fromPolygons", st, &diag);
  }
  handle_attach(L, h, mesh, nodes);
  lua_pushvalue(L, hidx);
  return 1;
}

/* ---- filters ---- */

/* navmesh.filter{include=, exclude=, areaCost={[area]=cost}} */
static int lnm_filter_new(lua_State *L) {
  static const char *const keys[] = {"include", "exclude", "areaCost", "areaChangeCost",
                                     "heuristicScale", NULL};
  nm_filter *f;
  int t = opt_table(L, 1, keys);
  f = (nm_filter *)lua_newuserdata(L, sizeof *f);
  nm_filter_init(f);
  luaL_setmetatable(L, LNM_FILTER);
  if (!t) return 1;
  f->include_flags = (uint16_t)field_int(L, t, "include", 0xffff, 0, 0xffff);
  f->exclude_flags = (uint16_t)field_int(L, t, "exclude", 0, 0, 0xffff);
  lua_getfield(L, t, "areaCost");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1)) luaL_error(L, "bad option 'areaCost' (table expected)");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_Number k = lua_tonumber(L, -2), v = lua_tonumber(L, -1);
      if (lua_type(L, -2) != LUA_TNUMBER || k != floor(k) || k < 0 || k >= NM_MAX_AREAS)
        luaL_error(L, "bad option 'areaCost' (keys must be areas 0..63)");
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(v) || v < 0)
        luaL_error(L, "bad option 'areaCost' (costs must be finite numbers >= 0)");
      f->area_cost[(int)k] = (float)v;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  filter_read_toolbox(L, t, f);
  return 1;
}

/* filter:areaCost(area [, cost]) -> cost */
static int lnm_filter_area_cost(lua_State *L) {
  nm_filter *f = (nm_filter *)luaL_checkudata(L, 1, LNM_FILTER);
  lua_Integer area = lnm_checkinteger(L, 2);
  if (area < 0 || area >= NM_MAX_AREAS) luaL_argerror(L, 2, "area must be 0..63");
  if (!lua_isnoneornil(L, 3)) {
    lua_Number c = luaL_checknumber(L, 3);
    if (!isfinite(c) || c < 0) luaL_argerror(L, 3, "cost must be a finite number >= 0");
    f->area_cost[area] = (float)c;
  }
  lua_pushnumber(L, f->area_cost[area]);
  return 1;
}

/* filter:include([flags]) / filter:exclude([flags]) -> flags */
static int filter_flags(lua_State *L, int which) {
  nm_filter *f = (nm_filter *)luaL_checkudata(L, 1, LNM_FILTER);
  uint16_t *v = which ? &f->exclude_flags : &f->include_flags;
  if (!lua_isnoneornil(L, 2)) {
    lua_Integer n = lnm_checkinteger(L, 2);
    if (n < 0 || n > 0xffff) luaL_argerror(L, 2, "flags must be 0..65535");
    *v = (uint16_t)n;
  }
  lua_pushinteger(L, *v);
  return 1;
}
static int lnm_filter_include(lua_State *L) { return filter_flags(L, 0); }
static int lnm_filter_exclude(lua_State *L) { return filter_flags(L, 1); }

/* ---- mesh methods: lifetime, info, files ---- */

static int lnm_mesh_close(lua_State *L) {
  handle_close((lnm_mesh *)luaL_checkudata(L, 1, LNM_MESH));
  return 0;
}

static int lnm_mesh_tostring(lua_State *L) {
  lnm_mesh *h = (lnm_mesh *)luaL_checkudata(L, 1, LNM_MESH);
  if (!h->mesh) {
    lua_pushliteral(L, LNM_MESH " (closed)");
  } else {
    nm_navmesh_info info;
    nm_navmesh_get_info(h->mesh, &info);
    lua_pushfstring(L, LNM_MESH " (%d tiles, %d polygons): %p", info.tiles, info.polys, (void *)h);
  }
  return 1;
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}
static void set_vec(lua_State *L, const char *k, const float *v) {
  int i;
  lua_createtable(L, 3, 0);
  for (i = 0; i < 3; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, k);
}

/* mesh:info() -> {tiles=, polys=, ...} */
static int lnm_mesh_info(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_navmesh_info info;
  nm_navmesh_params p;
  nm_navmesh_get_info(h->mesh, &info);
  nm_navmesh_get_params(h->mesh, &p);
  lua_createtable(L, 0, 16);
  set_int(L, "tiles", info.tiles);
  set_int(L, "polys", info.polys);
  set_int(L, "offMeshConnections", info.offmesh_polys);
  set_int(L, "vertices", info.verts);
  set_int(L, "detailVertices", info.detail_verts);
  set_int(L, "detailTriangles", info.detail_tris);
  set_int(L, "maxTiles", info.max_tiles);
  set_int(L, "maxPolys", info.max_polys);
  set_int(L, "maxNodes", h->max_nodes);
  set_int(L, "islands", nm_navmesh_island_count(h->mesh));
  set_int(L, "dataBytes", (lua_Integer)info.data_bytes);
  set_int(L, "memoryBytes", (lua_Integer)info.memory_bytes);
  set_vec(L, "bmin", info.bmin);
  set_vec(L, "bmax", info.bmax);
  set_vec(L, "origin", p.orig);
  lua_pushnumber(L, p.tile_width);
  lua_setfield(L, -2, "tileWidth");
  lua_pushnumber(L, p.tile_height);
  lua_setfield(L, -2, "tileHeight");
  lua_pushboolean(L, nm_navmesh_is_frozen(h->mesh));
  lua_setfield(L, -2, "readOnly");
  return 1;
}

/* Format name ("mset" default, "native") as NM_FORMAT_*. */
static int check_format(lua_State *L, int idx) {
  static const char *const names[] = {"mset", "native", NULL};
  return luaL_checkoption(L, idx, "mset", names) == 0 ? NM_FORMAT_MSET : NM_FORMAT_NATIVE;
}

/* mesh:saveString([format]) -> bytes */
static int lnm_mesh_save_string(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  void *bytes;
  size_t len;
  nm_status st = nm_navmesh_save(h->mesh, check_format(L, 2), &bytes, &len);
  if (st < 0) raise_status(L, "saveString", st, NULL);
  push_owned_bytes(L, h, bytes, len);
  return 1;
}

/* mesh:save(path [, format]) -> true | nil, msg, code */
static int lnm_mesh_save(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  const char *path = luaL_checkstring(L, 2);
  int fmt = check_format(L, 3), ok;
  void *bytes;
  size_t len;
  FILE *f;
  nm_status st = nm_navmesh_save(h->mesh, fmt, &bytes, &len);
  if (st < 0) raise_status(L, "save", st, NULL);
  f = fopen(path, "wb");
  ok = f && fwrite(bytes, 1, len, f) == len;
  if (f && fclose(f) != 0) ok = 0;
  nm_free_bytes(h->mesh, bytes, len);
  if (!ok) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot write %s: %s", path, strerror(errno));
    lua_pushstring(L, nm_status_name(NM_ERR_IO));
    return 3;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* ---- tiles ---- */

/* Raises when the mesh is shared (read-only). */
static void check_writable(lua_State *L, lnm_mesh *h, const char *what) {
  if (nm_navmesh_is_frozen(h->mesh)) luaL_error(L, "%s: navmesh is read-only (shared or mapped)", what);
}

/* mesh:addTile(bytes) -> tileRef | nil, msg, code */
static int lnm_mesh_add_tile(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  size_t len;
  const char *bytes = luaL_checklstring(L, 2, &len);
  nm_polyref ref = 0;
  nm_diag diag;
  nm_status st;
  check_writable(L, h, "addTile");
  memset(&diag, 0, sizeof diag);
  if ((st = nm_navmesh_add_tile(h->mesh, bytes, len, &diag, &ref)) < 0) {
    if (st == NM_ERR_NOMEM) raise_status(L, "addTile", st, NULL);
    return push_fail(L, "addTile", st, &diag);
  }
  lua_pushinteger(L, (lua_Integer)ref);
  return 1;
}

/* mesh:removeTile(tx, ty [, layer]) -> bytes | nil, msg, code */
static int lnm_mesh_remove_tile(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  lua_Integer tx = lnm_checkinteger(L, 2), ty = lnm_checkinteger(L, 3), layer = lnm_optinteger(L, 4, 0);
  void *data;
  size_t size;
  nm_status st;
  check_writable(L, h, "removeTile");
  if (tx < -(1 << 28) || tx > (1 << 28) || ty < -(1 << 28) || ty > (1 << 28) || layer < 0 || layer > (1 << 28))
    luaL_argerror(L, 2, "tile coordinates out of range");
  st = nm_navmesh_remove_tile(h->mesh, (int)tx, (int)ty, (int)layer, &data, &size);
  if (st == NM_ERR_PARAM) {
    lua_pushnil(L);
    lua_pushfstring(L, "removeTile: no tile at (%d, %d, layer %d)", (int)tx, (int)ty, (int)layer);
    lua_pushstring(L, nm_status_name(st));
    return 3;
  }
  if (st < 0) raise_status(L, "removeTile", st, NULL);
  push_owned_bytes(L, h, data, size);
  return 1;
}

/* mesh:tileAt(x, z) -> tx, ty, tileRef|nil (layer 0) */
static int lnm_mesh_tile_at(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float pos[3];
  int tx, ty;
  nm_polyref ref;
  pos[0] = check_coord(L, 2);
  pos[1] = 0;
  pos[2] = check_coord(L, 3);
  nm_navmesh_tile_loc(h->mesh, pos, &tx, &ty);
  lua_pushinteger(L, tx);
  lua_pushinteger(L, ty);
  ref = nm_navmesh_tile_ref_at(h->mesh, tx, ty, 0);
  if (ref) lua_pushinteger(L, (lua_Integer)ref);
  else lua_pushnil(L);
  return 3;
}

/* ---- queries ---- */

/* mesh:findNearestPoly(x,y,z [, hx,hy,hz [, filter]]) -> ref, x, y, z, over */
static int lnm_mesh_find_nearest(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float c[3], ext[3] = {2, 4, 2}, pt[3];
  const nm_filter *f;
  nm_polyref ref;
  int over = 0;
  nm_status st;
  check_point(L, 2, c);
  if (!lua_isnoneornil(L, 5)) {
    check_point(L, 5, ext);
    if (ext[0] < 0 || ext[1] < 0 || ext[2] < 0) luaL_argerror(L, 5, "half extents must be >= 0");
  }
  f = opt_filter(L, 8, h);
  if ((st = nm_query_find_nearest(h->q, c, ext, f, &ref, pt, &over)) < 0)
    return push_fail(L, "findNearestPoly", st, NULL);
  lua_pushinteger(L, (lua_Integer)ref);
  push_point(L, pt);
  lua_pushboolean(L, over);
  return 5;
}

/* Pushes an array of n refs. */
static void push_refs(lua_State *L, const nm_polyref *refs, int n) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)refs[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* ---- results into caller-supplied tables (no garbage per call) ----
 * A query given an output table writes its result list there (items 1..n,
 * and clears what followed from an earlier, longer result) and returns that
 * same table; without one it makes a new table. */

/* Table field `key` of options t, pushed and its index returned; 0 (nothing
 * pushed) when absent. Raises when it is not a table. */
static int out_field(lua_State *L, int t, const char *key) {
  if (!t) return 0;
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  if (!lua_istable(L, -1)) luaL_error(L, "bad option '%s' (table expected, got %s)", key, luaL_typename(L, -1));
  return lua_gettop(L);
}

/* Pushes the table to fill: a copy of out (when given) or a new table. */
static void out_begin(lua_State *L, int out, int n) {
  if (out) lua_pushvalue(L, out);
  else lua_createtable(L, n, 0);
}

/* Clears items n+1 ... of the table on top (the tail of an older result). */
static void out_end(lua_State *L, int n) {
  for (;;) {
    lua_rawgeti(L, -1, ++n);
    if (lua_isnil(L, -1)) break;
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_rawseti(L, -2, n);
  }
  lua_pop(L, 1);
}

/* A list of n floats into out (0: a new table), left on the stack. */
static void push_floats_into(lua_State *L, int out, const float *v, int n) {
  int i;
  out_begin(L, out, n);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  if (out) out_end(L, n);
}

/* A list of n references into out (0: a new table), left on the stack. */
static void push_refs_into(lua_State *L, int out, const nm_polyref *refs, int n) {
  int i;
  if (!out) {
    push_refs(L, refs, n);
    return;
  }
  out_begin(L, out, n);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)refs[i]);
    lua_rawseti(L, -2, i + 1);
  }
  out_end(L, n);
}

/* Boolean option `key` of table t (0 = no table): false when absent. */
static int opt_bool(lua_State *L, int t, const char *key) {
  int v = 0;
  if (!t) return 0;
  lua_getfield(L, t, key);
  if (!lua_isnil(L, -1)) {
    if (!lua_isboolean(L, -1)) luaL_error(L, "bad option '%s' (boolean expected, got %s)", key, luaL_typename(L, -1));
    v = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  return v;
}

/* The outcome of reachableOnly: start and goal on different islands. */
static int push_unreachable(lua_State *L, const char *what) {
  nm_diag d;
  d.field = NULL;
  strcpy(d.msg, "start and goal are on different islands");
  return push_fail(L, what, NM_ERR_NO_PATH, &d);
}

/* ---- optimal paths (issue 8): the `optimal` option of findPath and path ---- */

/* A* corridor, or the optimal one (then the buffer grows until the whole
 * corridor fits), into h->path; *n gets its length. */
static nm_status run_find_path(lua_State *L, lnm_mesh *h, int optimal, int max_iter, nm_polyref s,
                               nm_polyref e, const float *sp, const float *ep, const nm_filter *f, int *n) {
  int cap = h->max_nodes;
  nm_status st;
  ensure_path(L, h, cap);
  if (!optimal) return nm_query_find_path_limited(h->q, s, e, sp, ep, f, max_iter, h->path, cap, n);
  for (;;) {
    st = nm_query_find_path_optimal(h->q, s, e, sp, ep, f, h->path, cap, n);
    if (st == NM_ERR_NOMEM) raise_status(L, "findPath", st, NULL);
    if (st < 0 || !(st & NM_TRUNCATED) || cap >= (1 << 24)) return st;
    ensure_path(L, h, cap *= 4);
  }
}

/* The optimal path's points (no inset or crossings asked) into a new
 * table; the point buffer grows until the whole path fits (or max_pts).
 * The search writes into all of the buffer it has, which keeps the size
 * the longest path so far needed, so a path runs its search again only
 * when it is longer than every earlier one. Returns the status. */
static nm_status push_optimal_path(lua_State *L, lnm_mesh *h, nm_polyref s, nm_polyref e,
                                   const float *sp, const float *ep, const nm_filter *f, int max_pts,
                                   int out) {
  int cap = h->pts_cap > 64 ? h->pts_cap : 64, n = 0;
  nm_status st;
  if (cap > max_pts) cap = max_pts;
  for (;;) {
    ensure_pts(L, h, cap);
    st = nm_query_path_optimal(h->q, s, e, sp, ep, f, h->pts, h->refs, cap, &n);
    if (st == NM_ERR_NOMEM) raise_status(L, "path", st, NULL);
    if (st < 0 || !(st & NM_TRUNCATED) || cap >= max_pts) break;
    cap = cap > max_pts / 4 ? max_pts : cap * 4;
  }
  if (st < 0) return st;
  push_floats_into(L, out, h->pts, 3 * n);
  return st;
}

/* ---- end of the optimal-path block ---- */

/* mesh:findPath(sref, eref, sx,sy,sz, ex,ey,ez [, filter [, opts]])
 *   -> polys, partial, outOfNodes, unfinished, fallback
 * opts: { maxIterations = n } (unfinished: the cap stopped the search),
 *       { optimal = true } (fallback: the filter made it use A*) */
static int lnm_mesh_find_path(lua_State *L) {
  static const char *const keys[] = {"optimal", "maxIterations", "reachableOnly", "out", NULL};
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref s = check_valid_ref(L, h, 2), e = check_valid_ref(L, h, 3);
  float sp[3], ep[3];
  const nm_filter *f;
  int n = 0, optimal, max_iter, t, out;
  nm_status st;
  check_point(L, 4, sp);
  check_point(L, 7, ep);
  f = opt_filter(L, 10, h);
  t = opt_table(L, 11, keys);
  optimal = opt_bool(L, t, "optimal");
  max_iter = t ? (int)field_int(L, t, "maxIterations", 0x7fffffff, 1, 0x7fffffff) : 0x7fffffff;
  if (optimal && max_iter != 0x7fffffff) luaL_argerror(L, 11, "maxIterations does not apply to optimal paths");
  if (opt_bool(L, t, "reachableOnly") && !nm_navmesh_is_reachable(h->mesh, s, e))
    return push_unreachable(L, "findPath");
  out = out_field(L, t, "out");
  if ((st = run_find_path(L, h, optimal, max_iter, s, e, sp, ep, f, &n)) < 0)
    return push_fail(L, "findPath", st, NULL);
  push_refs_into(L, out, h->path, n);
  lua_pushboolean(L, (st & NM_PARTIAL) != 0);
  lua_pushboolean(L, (st & NM_OUT_OF_NODES) != 0);
  lua_pushboolean(L, (st & NM_UNFINISHED) != 0);
  lua_pushboolean(L, optimal && (st & NM_FALLBACK) != 0);
  return 5;
}


/* Reads straight-path options from table t (0 = none); *max_pts too. */
static void read_straight_opts(lua_State *L, int t, nm_straight_opts *o, int *max_pts) {
  static const char *const crossings[] = {"none", "area", "all", NULL};
  o->crossings = NM_CROSSINGS_NONE;
  o->inset = 0;
  if (!t) return;
  lua_getfield(L, t, "crossings");
  if (!lua_isnil(L, -1)) {
    const char *c = lua_tostring(L, -1);
    int i;
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "bad option 'crossings' (\"area\" or \"all\" expected)");
    for (i = 0; crossings[i] && strcmp(crossings[i], c) != 0; i++) {}
    if (!crossings[i]) luaL_error(L, "bad option 'crossings' (\"area\" or \"all\" expected)");
    o->crossings = i;
  }
  lua_pop(L, 1);
  o->inset = (float)field_number(L, t, "inset", 0, 0);
  *max_pts = (int)field_int(L, t, "maxPoints", *max_pts, 1, 1 << 24);
}

/* Output tables of a straight path: points, flags, refs (0 = new table). */
typedef struct straight_out {
  int points, flags, refs;
} straight_out;

/* Runs the straight path over h->path[0..npath) and pushes points, and
 * (when `all`) flags and refs, into o's tables or new ones; `heights` puts
 * the points on the detail surface (optimal paths). Returns the number of
 * pushed values, -1 when the corridor was refused. */
static int push_straight(lua_State *L, lnm_mesh *h, const float *sp, const float *ep, int npath,
                         const nm_straight_opts *o, int max_pts, int all, int heights,
                         const straight_out *out) {
  int cap = 2 * npath + 2, n = 0, i;
  nm_status st;
  if (max_pts < cap) cap = max_pts;
  ensure_pts(L, h, cap);
  st = nm_query_straight_path(h->q, sp, ep, h->path, npath, o, h->pts, h->flags, h->refs, cap, &n);
  if (st < 0) return -1;
  if (heights) nm_query_surface_heights(h->q, h->pts, h->refs, n, h->path[npath - 1]);
  push_floats_into(L, out->points, h->pts, 3 * n);
  if (!all) return 1;
  out_begin(L, out->flags, n);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, h->flags[i]);
    lua_rawseti(L, -2, i + 1);
  }
  if (out->flags) out_end(L, n);
  push_refs_into(L, out->refs, h->refs, n);
  return 3;
}

/* The corridor argument at idx (a list of references) into h->path. */
static int read_corridor(lua_State *L, lnm_mesh *h, int idx) {
  int npath = (int)lua_rawlen(L, idx), i;
  nm_polyref *path;
  if (npath == 0) luaL_argerror(L, idx, "empty polygon list");
  path = ensure_path(L, h, npath);
  for (i = 0; i < npath; i++) {
    lua_Number v;
    lua_rawgeti(L, idx, i + 1);
    v = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || v != floor(v) || v <= 0 || v > 4294967295.0)
      luaL_argerror(L, idx, "polygon list must hold polygon references");
    path[i] = (nm_polyref)v;
    lua_pop(L, 1);
  }
  if (!nm_navmesh_is_valid_ref(h->mesh, path[0])) luaL_argerror(L, idx, "invalid polygon reference");
  return npath;
}

/* mesh:findStraightPath(sx,sy,sz, ex,ey,ez, polys [, opts]) -> points, flags, refs
 * opts: crossings, inset, maxPoints, and points/flags/refs tables to fill. */
static int lnm_mesh_find_straight(lua_State *L) {
  static const char *const keys[] = {"crossings", "inset", "maxPoints", "points", "flags", "refs", NULL};
  lnm_mesh *h = check_mesh(L, 1);
  float sp[3], ep[3];
  nm_straight_opts o;
  straight_out out;
  int npath, t, max_pts = 1 << 24, r;
  check_point(L, 2, sp);
  check_point(L, 5, ep);
  luaL_checktype(L, 8, LUA_TTABLE);
  t = opt_table(L, 9, keys);
  read_straight_opts(L, t, &o, &max_pts);
  npath = read_corridor(L, h, 8);
  out.points = out_field(L, t, "points");
  out.flags = out_field(L, t, "flags");
  out.refs = out_field(L, t, "refs");
  r = push_straight(L, h, sp, ep, npath, &o, max_pts, 1, 0, &out);
  if (r < 0) return push_fail(L, "findStraightPath", NM_ERR_PARAM, NULL);
  return r;
}

/* Everything mesh:path and mesh:paths are asked to do. */
typedef struct path_opts {
  nm_straight_opts o;
  int max_pts, optimal, reachable_only;
  const nm_filter *f;
  float ext[3];
} path_opts;

static const char *const path_keys[] = {"crossings", "inset", "maxPoints", "filter", "halfExtents",
                                        "optimal", "reachableOnly", "out", "partials", NULL};

/* Reads the options table t (0 = none) of path/paths. */
static void read_path_opts(lua_State *L, lnm_mesh *h, int t, path_opts *po) {
  po->max_pts = 1 << 24;
  po->f = &h->filter;
  po->ext[0] = 2;
  po->ext[1] = 4;
  po->ext[2] = 2;
  read_straight_opts(L, t, &po->o, &po->max_pts);
  po->optimal = opt_bool(L, t, "optimal");
  po->reachable_only = opt_bool(L, t, "reachableOnly");
  if (!t) return;
  lua_getfield(L, t, "filter");
  if (!lua_isnil(L, -1)) po->f = (const nm_filter *)luaL_checkudata(L, -1, LNM_FILTER);
  lua_pop(L, 1);
  if (field_vec3(L, t, "halfExtents", po->ext) && (po->ext[0] < 0 || po->ext[1] < 0 || po->ext[2] < 0))
    luaL_error(L, "bad option 'halfExtents' (must be >= 0)");
}

/* One whole path query: nearest polygons, corridor (A* or optimal), then
 * the straight path into table `out` (0: a new one), left on the stack.
 * Returns NM_OK / NM_PARTIAL / NM_FALLBACK bits, or a failure (nothing
 * pushed): ERR_NO_POLY (*what says which end), ERR_NO_PATH. */
static nm_status path_one(lua_State *L, lnm_mesh *h, const path_opts *po, const float *sp, const float *ep,
                          int out, const char **what) {
  float ns[3], ne[3], end[3];
  nm_polyref sref, eref;
  straight_out so;
  nm_status st;
  int n = 0;
  *what = "path: start";
  if (nm_query_find_nearest(h->q, sp, po->ext, po->f, &sref, ns, NULL) < 0) return NM_ERR_NO_POLY;
  *what = "path: end";
  if (nm_query_find_nearest(h->q, ep, po->ext, po->f, &eref, ne, NULL) < 0) return NM_ERR_NO_POLY;
  *what = "path";
  if (po->reachable_only && !nm_navmesh_is_reachable(h->mesh, sref, eref)) return NM_ERR_NO_PATH;
  if (po->optimal && po->o.inset == 0 && po->o.crossings == NM_CROSSINGS_NONE) {
    st = push_optimal_path(L, h, sref, eref, ns, ne, po->f, po->max_pts, out);
    return st < 0 ? NM_ERR_NO_PATH : st & (NM_PARTIAL | NM_FALLBACK);
  }
  st = run_find_path(L, h, po->optimal, 0x7fffffff, sref, eref, ns, ne, po->f, &n);
  if (st < 0 || n == 0) return NM_ERR_NO_PATH;
  memcpy(end, ne, sizeof end);
  if (h->path[n - 1] != eref) nm_query_closest_point(h->q, h->path[n - 1], ne, end, NULL);
  so.points = out;
  so.flags = so.refs = 0;
  if (push_straight(L, h, ns, end, n, &po->o, po->max_pts, 0, po->optimal, &so) < 0) return NM_ERR_NO_PATH;
  return st & (NM_PARTIAL | NM_FALLBACK);
}

/* mesh:path(sx,sy,sz, ex,ey,ez [, opts]) -> points, partial [, fallback]
 * (nearest polygons, A* -- or the optimal search with opts.optimal, then
 * heights from the detail mesh -- and straight path in one call). */
static int lnm_mesh_path(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float sp[3], ep[3];
  path_opts po;
  const char *what;
  nm_status st;
  int t;
  check_point(L, 2, sp);
  check_point(L, 5, ep);
  t = opt_table(L, 8, path_keys);
  read_path_opts(L, h, t, &po);
  st = path_one(L, h, &po, sp, ep, out_field(L, t, "out"), &what);
  if (st < 0) return st == NM_ERR_NO_PATH && po.reachable_only ? push_unreachable(L, what) : push_fail(L, what, st, NULL);
  lua_pushboolean(L, (st & NM_PARTIAL) != 0);
  if (!po.optimal) return 2;
  lua_pushboolean(L, (st & NM_FALLBACK) != 0);
  return 3;
}

/* mesh:paths(queries [, opts]) -> results, partials
 * Many path() queries in one call: queries is a flat list of six numbers
 * per query (sx,sy,sz, ex,ey,ez). results[i] is the point list of query i,
 * or false when it has no path (no polygon near an end, or reachableOnly
 * and different islands); partials[i] says whether it stops short. With
 * opts.out / opts.partials the results go into those tables, and the point
 * lists already in opts.out are reused. Other options as for path(). */
static int lnm_mesh_paths(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  path_opts po;
  int t, nq, i, out, partials, res;
  luaL_checktype(L, 2, LUA_TTABLE);
  t = opt_table(L, 3, path_keys);
  read_path_opts(L, h, t, &po);
  nq = (int)lua_rawlen(L, 2);
  if (nq % 6) luaL_argerror(L, 2, "six numbers per query expected (sx,sy,sz, ex,ey,ez)");
  nq /= 6;
  out = out_field(L, t, "out");
  partials = out_field(L, t, "partials");
  out_begin(L, out, nq);
  res = lua_gettop(L);
  out_begin(L, partials, nq);
  for (i = 0; i < nq; i++) {
    float p[6];
    const char *what;
    nm_status st;
    int k, inner = 0;
    for (k = 0; k < 6; k++) {
      lua_rawgeti(L, 2, 6 * i + k + 1);
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1)))
        luaL_argerror(L, 2, "coordinates must be finite numbers");
      p[k] = (float)lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    lua_rawgeti(L, res, i + 1); /* a point list to reuse? */
    if (lua_istable(L, -1)) inner = lua_gettop(L);
    else lua_pop(L, 1);
    st = path_one(L, h, &po, p, p + 3, inner, &what);
    if (st < 0) lua_pushboolean(L, 0);
    lua_rawseti(L, res, i + 1);
    if (inner) lua_pop(L, 1);
    lua_pushboolean(L, st >= 0 && (st & NM_PARTIAL) != 0);
    lua_rawseti(L, res + 1, i + 1);
  }
  if (partials) out_end(L, nq);
  lua_pushvalue(L, res);
  if (out) out_end(L, nq);
  lua_insert(L, -2);
  return 2;
}

/* ---- polygon accessors ---- */

/* mesh:polyRefs() -> {ref, ...} (every polygon, tiles by slot) */
static void collect_ref(void *ud, nm_polyref ref) {
  lua_State *L = (lua_State *)ud;
  lua_pushinteger(L, (lua_Integer)ref);
  lua_rawseti(L, -2, (int)lua_rawlen(L, -2) + 1);
}
static int lnm_mesh_poly_refs(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  lua_newtable(L);
  nm_navmesh_foreach_poly(h->mesh, collect_ref, L);
  return 1;
}

/* mesh:getPolyVerts(ref) -> {x1,y1,z1, ...} */
static int lnm_mesh_poly_verts(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  float v[NM_MAX_VERTS_PER_POLY * 3];
  int n, i;
  nm_navmesh_get_poly_verts(h->mesh, ref, v, &n);
  lua_createtable(L, 3 * n, 0);
  for (i = 0; i < 3 * n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* mesh:closestPointOnPoly(ref, x,y,z) -> x, y, z, over */
static int lnm_mesh_closest_point(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  float p[3], c[3];
  int over = 0;
  check_point(L, 3, p);
  nm_query_closest_point(h->q, ref, p, c, &over);
  push_point(L, c);
  lua_pushboolean(L, over);
  return 4;
}

/* mesh:closestPointOnPolyBoundary(ref, x,y,z) -> x, y, z */
static int lnm_mesh_closest_boundary(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  float p[3], c[3];
  check_point(L, 3, p);
  nm_query_closest_point_boundary(h->q, ref, p, c);
  push_point(L, c);
  return 3;
}

/* mesh:getPolyHeight(ref, x,y,z) -> h | nil, msg, code */
static int lnm_mesh_poly_height(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  float p[3], y;
  nm_status st;
  check_point(L, 3, p);
  if ((st = nm_query_poly_height(h->q, ref, p, &y)) < 0) return push_fail(L, "getPolyHeight", st, NULL);
  lua_pushnumber(L, y);
  return 1;
}

/* mesh:isReachable(refA, refB) -> boolean: on the same island (O(1));
 * false means no path can join them. */
static int lnm_mesh_is_reachable(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref a = check_valid_ref(L, h, 2), b = check_valid_ref(L, h, 3);
  lua_pushboolean(L, nm_navmesh_is_reachable(h->mesh, a, b));
  return 1;
}

/* mesh:getIsland(ref) -> island number (1..islands) */
static int lnm_mesh_get_island(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  lua_pushinteger(L, (lua_Integer)nm_navmesh_island(h->mesh, check_valid_ref(L, h, 2)));
  return 1;
}

/* mesh:getPortalPoints(from, to) -> lx,ly,lz, rx,ry,rz | nil, msg, code
 * (the shared edge the path crosses from polygon `from` into `to`). */
static int lnm_mesh_portal_points(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref from = check_valid_ref(L, h, 2), to = check_valid_ref(L, h, 3);
  float l[3], r[3];
  nm_status st = nm_query_portal_points(h->q, from, to, l, r);
  if (st < 0) return push_fail(L, "getPortalPoints", st, NULL);
  push_point(L, l);
  push_point(L, r);
  return 6;
}

/* mesh:isValidPolyRef(ref) -> boolean */
static int lnm_mesh_is_valid(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  lua_Number v = luaL_checknumber(L, 2);
  lua_pushboolean(L, v == floor(v) && v > 0 && v <= 4294967295.0 &&
                         nm_navmesh_is_valid_ref(h->mesh, (nm_polyref)v));
  return 1;
}

/* mesh:getPolyFlags(ref) / getPolyArea(ref) */
static int lnm_mesh_get_flags(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  uint16_t fl = 0;
  nm_navmesh_get_poly_flags(h->mesh, check_valid_ref(L, h, 2), &fl);
  lua_pushinteger(L, fl);
  return 1;
}
static int lnm_mesh_get_area(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  uint8_t a = 0;
  nm_navmesh_get_poly_area(h->mesh, check_valid_ref(L, h, 2), &a);
  lua_pushinteger(L, a);
  return 1;
}

/* mesh:setPolyFlags(ref, flags) / setPolyArea(ref, area); refused when shared. */
static int lnm_mesh_set_flags(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  lua_Integer v = lnm_checkinteger(L, 3);
  if (v < 0 || v > 0xffff) luaL_argerror(L, 3, "flags must be 0..65535");
  check_writable(L, h, "setPolyFlags");
  nm_navmesh_set_poly_flags(h->mesh, ref, (uint16_t)v);
  return 0;
}
static int lnm_mesh_set_area(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  lua_Integer v = lnm_checkinteger(L, 3);
  if (v < 0 || v >= NM_MAX_AREAS) luaL_argerror(L, 3, "area must be 0..63");
  check_writable(L, h, "setPolyArea");
  nm_navmesh_set_poly_area(h->mesh, ref, (uint8_t)v);
  return 0;
}

/* ---- sharing across Lua states and threads (registry.c) ----
 * mesh:share(name) publishes a frozen copy of the mesh in system memory (a
 * mesh in a Lua state's memory cannot outlive that state, and LuaJIT's
 * allocator is not thread-safe); the sharing handle moves onto the copy.
 * navmesh.open(name) gives a new handle on the same data with its own query
 * state, allocated from the opening state. */

/* A shared-mesh name argument: a string of 1 to LNM_REG_MAX_NAME bytes. */
static const char *check_name(lua_State *L, int idx, size_t *len) {
  const char *name = luaL_checklstring(L, idx, len);
  if (*len == 0 || *len > LNM_REG_MAX_NAME) luaL_argerror(L, idx, "name must be 1 to 255 bytes");
  return name;
}

/* A frozen copy of mesh in system memory with the same polygon references.
 * Freezing makes the lazily derived data (islands) now, before other threads
 * can read it; if that fails the copy is dropped. */
static nm_status copy_to_system(const nm_navmesh *mesh, nm_navmesh **out) {
  nm_status st = nm_navmesh_copy(mesh, lnm_registry_alloc(), out);
  if (st >= 0 && (st = nm_navmesh_freeze(*out)) < 0) {
    nm_navmesh_release(*out);
    *out = NULL;
  }
  return st;
}

/* mesh:share(name [, {replace = true}]) -> true | nil, msg, "ERR_EXISTS" */
static int lnm_mesh_share(lua_State *L) {
  static const char *const keys[] = {"replace", NULL};
  lnm_mesh *h = check_mesh(L, 1);
  size_t len;
  const char *name = check_name(L, 2, &len);
  int t = opt_table(L, 3, keys), replace = 0, rc;
  nm_navmesh *copy = NULL;
  nm_query *q = NULL;
  nm_status st;
  if (t) {
    lua_getfield(L, t, "replace");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) luaL_error(L, "bad option 'replace' (boolean expected)");
    replace = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  if (!h->sysmem) {
    if ((st = copy_to_system(h->mesh, &copy)) < 0) raise_status(L, "share", st, NULL);
    if ((st = nm_query_new(copy, h->max_nodes, &h->alloc, &q)) < 0) {
      nm_navmesh_release(copy);
      raise_status(L, "share", st, NULL);
    }
  }
  rc = lnm_registry_put(name, len, copy ? copy : h->mesh, replace);
  if (rc != LNM_REG_OK) {
    nm_query_free(q);
    nm_navmesh_release(copy);
    if (rc == LNM_REG_NOMEM) luaL_error(L, "share: not enough memory");
    lua_pushnil(L);
    lua_pushfstring(L, "share: a navmesh is already shared as '%s'", name);
    lua_pushliteral(L, "ERR_EXISTS");
    return 3;
  }
  if (copy) { /* the handle moves onto the shared copy */
    nm_query_free(h->q);
    nm_navmesh_release(h->mesh);
    h->q = q;
    h->mesh = copy;
    h->sysmem = 1;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* navmesh.open(name [, opts]) -> handle | nil, msg, "ERR_NOT_FOUND" */
static int lnm_open(lua_State *L) {
  size_t len;
  const char *name = check_name(L, 1, &len);
  int t = opt_table(L, 2, handle_opts), nodes = opt_max_nodes(L, t);
  lnm_mesh *h = new_handle(L);
  nm_navmesh *mesh = lnm_registry_open(name, len);
  if (!mesh) {
    lua_pushnil(L);
    lua_pushfstring(L, "open: no navmesh is shared as '%s'", name);
    lua_pushliteral(L, "ERR_NOT_FOUND");
    return 3;
  }
  h->sysmem = 1;
  handle_attach(L, h, mesh, nodes);
  return 1;
}

/* navmesh.unshare(name) -> true if the name was shared, else false. Open
 * handles keep the data; it is freed when the last one closes. */
static int lnm_unshare(lua_State *L) {
  size_t len;
  const char *name = check_name(L, 1, &len);
  lua_pushboolean(L, lnm_registry_remove(name, len));
  return 1;
}

/* navmesh.sharedBytes() -> bytes held by shared meshes, process-wide */
static int lnm_shared_bytes(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lnm_registry_bytes());
  return 1;
}

/* ---- query toolbox (issue 6): rays, surface moves, area searches, random
 * points, sliced findPath, filter extras. Result lists reuse the handle's
 * scratch; only the returned tables are allocated per call. ---- */

#define LNM_WALL_SEGS 192 /* enough for any polygon (6 edges * 32 parts) */

/* Frees the toolbox scratch of a handle. */
static void toolbox_free(lnm_mesh *h) {
  size_t n = (size_t)h->tb_cap;
  if (h->tb_refs) h->alloc.fn(h->alloc.ud, h->tb_refs, n * sizeof(nm_polyref), 0);
  if (h->tb_parents) h->alloc.fn(h->alloc.ud, h->tb_parents, n * sizeof(nm_polyref), 0);
  if (h->tb_costs) h->alloc.fn(h->alloc.ud, h->tb_costs, n * sizeof(float), 0);
  h->tb_refs = h->tb_parents = NULL;
  h->tb_costs = NULL;
  h->tb_cap = 0;
}

/* Makes room for n results (refs, parents, costs) in the toolbox scratch. */
static void ensure_tb(lua_State *L, lnm_mesh *h, int n) {
  size_t c;
  if (n <= h->tb_cap) return;
  toolbox_free(h);
  c = (size_t)(n < 256 ? 256 : n);
  h->tb_refs = (nm_polyref *)h->alloc.fn(h->alloc.ud, NULL, 0, c * sizeof(nm_polyref));
  h->tb_parents = (nm_polyref *)h->alloc.fn(h->alloc.ud, NULL, 0, c * sizeof(nm_polyref));
  h->tb_costs = (float *)h->alloc.fn(h->alloc.ud, NULL, 0, c * sizeof(float));
  h->tb_cap = (int)c;
  if (!h->tb_refs || !h->tb_parents || !h->tb_costs) {
    toolbox_free(h);
    luaL_error(L, "not enough memory");
  }
}

/* Pushes an array of n numbers. */
static void push_numbers(lua_State *L, const float *v, int n) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* A finite number >= 0 (radius) argument. */
static float check_radius(lua_State *L, int idx) {
  float r = check_coord(L, idx);
  if (r < 0) luaL_argerror(L, idx, "radius must be >= 0");
  return r;
}

/* The (ref, x,y,z, radius) arguments at 2..6 of the circle queries. */
static nm_polyref check_circle(lua_State *L, lnm_mesh *h, float c[3], float *r) {
  nm_polyref ref = check_valid_ref(L, h, 2);
  check_point(L, 3, c);
  *r = check_radius(L, 6);
  return ref;
}

/* Fails with nil, msg, code, except out of memory, which raises. */
static int toolbox_fail(lua_State *L, const char *what, nm_status st) {
  if (st == NM_ERR_NOMEM) raise_status(L, what, st, NULL);
  return push_fail(L, what, st, NULL);
}

/* mesh:raycast(ref, sx,sy,sz, ex,ey,ez [, filter]) -> t, nx, ny, nz, polys
 * (t = math.huge when the end is reached) */
static int lnm_mesh_raycast(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  float sp[3], ep[3], t, nrm[3];
  const nm_filter *f;
  int n = 0;
  nm_status st;
  check_point(L, 3, sp);
  check_point(L, 6, ep);
  f = opt_filter(L, 9, h);
  ensure_path(L, h, 256);
  while ((st = nm_query_raycast(h->q, ref, sp, ep, f, &t, nrm, h->path, h->path_cap, &n)) == NM_TRUNCATED)
    ensure_path(L, h, 2 * h->path_cap); /* rare: a very long ray */
  if (st < 0) return toolbox_fail(L, "raycast", st);
  lua_pushnumber(L, t == FLT_MAX ? (lua_Number)HUGE_VAL : (lua_Number)t);
  push_point(L, nrm);
  push_refs(L, h->path, n);
  return 5;
}

/* mesh:moveAlongSurface(ref, sx,sy,sz, ex,ey,ez [, filter]) -> x, y, z, visited
 * (y is projected onto the detail surface of the last visited polygon) */
static int lnm_mesh_move_along_surface(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2), visited[64];
  float sp[3], ep[3], res[3], on[3];
  const nm_filter *f;
  int n = 0;
  nm_status st;
  check_point(L, 3, sp);
  check_point(L, 6, ep);
  f = opt_filter(L, 9, h);
  st = nm_query_move_along_surface(h->q, ref, sp, ep, f, res, visited, 64, &n);
  if (st < 0) return toolbox_fail(L, "moveAlongSurface", st);
  if (nm_query_closest_point(h->q, n ? visited[n - 1] : ref, res, on, NULL) == NM_OK) res[1] = on[1];
  push_point(L, res);
  push_refs(L, visited, n);
  return 4;
}

/* mesh:findDistanceToWall(ref, x,y,z, maxRadius [, filter])
 * -> dist, hx,hy,hz, nx,ny,nz (just maxRadius when no wall is that close) */
static int lnm_mesh_distance_to_wall(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float c[3], r, d, hit[3], nrm[3];
  nm_polyref ref = check_circle(L, h, c, &r);
  int found = 0;
  nm_status st = nm_query_distance_to_wall(h->q, ref, c, r, opt_filter(L, 7, h), &d, hit, nrm, &found);
  if (st < 0) return toolbox_fail(L, "findDistanceToWall", st);
  lua_pushnumber(L, d);
  if (!found) return 1;
  push_point(L, hit);
  push_point(L, nrm);
  return 7;
}

/* mesh:seed(n): restarts this handle's random generator. */
static int lnm_mesh_seed(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_query_seed(h->q, (uint64_t)lnm_checkinteger(L, 2));
  return 0;
}

/* Pushes ref, x, y, z of a random point. */
static int push_random(lua_State *L, const char *what, nm_status st, nm_polyref ref, const float *pt) {
  if (st < 0) return toolbox_fail(L, what, st);
  lua_pushinteger(L, (lua_Integer)ref);
  push_point(L, pt);
  return 4;
}

/* mesh:findRandomPoint([filter]) -> ref, x, y, z */
static int lnm_mesh_random_point(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = 0;
  float pt[3] = {0, 0, 0};
  nm_status st = nm_query_random_point(h->q, opt_filter(L, 2, h), &ref, pt);
  return push_random(L, "findRandomPoint", st, ref, pt);
}

/* mesh:findRandomPointAroundCircle(ref, x,y,z, radius [, filter]) -> ref, x, y, z */
static int lnm_mesh_random_point_around(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float c[3], r, pt[3] = {0, 0, 0};
  nm_polyref start = check_circle(L, h, c, &r), ref = 0;
  nm_status st = nm_query_random_point_around(h->q, start, c, r, opt_filter(L, 7, h), &ref, pt);
  return push_random(L, "findRandomPointAroundCircle", st, ref, pt);
}

/* Pushes refs, parents (and costs when with_costs) of n toolbox results. */
static int push_found(lua_State *L, lnm_mesh *h, int n, int with_costs) {
  push_refs(L, h->tb_refs, n);
  push_refs(L, h->tb_parents, n);
  if (!with_costs) return 2;
  push_numbers(L, h->tb_costs, n);
  return 3;
}

/* mesh:findPolysAroundCircle(ref, x,y,z, radius [, filter]) -> refs, parents, costs */
static int lnm_mesh_polys_around_circle(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float c[3], r;
  nm_polyref ref = check_circle(L, h, c, &r);
  int n = 0;
  nm_status st;
  ensure_tb(L, h, h->max_nodes);
  st = nm_query_polys_around_circle(h->q, ref, c, r, opt_filter(L, 7, h), h->tb_refs, h->tb_parents,
                                    h->tb_costs, h->tb_cap, &n);
  if (st < 0) return toolbox_fail(L, "findPolysAroundCircle", st);
  return push_found(L, h, n, 1);
}

/* mesh:findPolysAroundShape(ref, {x1,y1,z1, ...} [, filter]) -> refs, parents, costs */
static int lnm_mesh_polys_around_shape(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2);
  float local[3 * 64], *verts = local;
  int i, nv, n = 0;
  nm_status st;
  luaL_checktype(L, 3, LUA_TTABLE);
  nv = (int)lua_rawlen(L, 3);
  if (nv < 9 || nv % 3) luaL_argerror(L, 3, "shape must be a flat list of at least 3 points {x1,y1,z1, ...}");
  if (nv > 3 * 64) verts = (float *)scratch(L, (size_t)nv * sizeof(float));
  for (i = 0; i < nv; i++) {
    lua_Number x;
    lua_rawgeti(L, 3, i + 1);
    x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38)
      luaL_argerror(L, 3, "shape coordinates must be finite numbers");
    verts[i] = (float)x;
    lua_pop(L, 1);
  }
  ensure_tb(L, h, h->max_nodes);
  st = nm_query_polys_around_shape(h->q, ref, verts, nv / 3, opt_filter(L, 4, h), h->tb_refs,
                                   h->tb_parents, h->tb_costs, h->tb_cap, &n);
  if (st < 0) return toolbox_fail(L, "findPolysAroundShape", st);
  return push_found(L, h, n, 1);
}

/* mesh:findLocalNeighbourhood(ref, x,y,z, radius [, filter]) -> refs, parents */
static int lnm_mesh_local_neighbourhood(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float c[3], r;
  nm_polyref ref = check_circle(L, h, c, &r);
  int n = 0;
  nm_status st;
  ensure_tb(L, h, 64);
  st = nm_query_local_neighbourhood(h->q, ref, c, r, opt_filter(L, 7, h), h->tb_refs, h->tb_parents,
                                    h->tb_cap, &n);
  if (st < 0) return toolbox_fail(L, "findLocalNeighbourhood", st);
  return push_found(L, h, n, 0);
}

/* mesh:queryPolygons(cx,cy,cz, hx,hy,hz [, filter]) -> refs */
static int lnm_mesh_query_polygons(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  float c[3], ext[3];
  const nm_filter *f;
  int n = 0;
  nm_status st;
  check_point(L, 2, c);
  check_point(L, 5, ext);
  if (ext[0] < 0 || ext[1] < 0 || ext[2] < 0) luaL_argerror(L, 5, "half extents must be >= 0");
  f = opt_filter(L, 8, h);
  ensure_tb(L, h, 256);
  while ((st = nm_query_polygons(h->q, c, ext, f, h->tb_refs, h->tb_cap, &n)) == NM_TRUNCATED)
    ensure_tb(L, h, 2 * h->tb_cap);
  if (st < 0) return toolbox_fail(L, "queryPolygons", st);
  push_refs(L, h->tb_refs, n);
  return 1;
}

/* mesh:getPolyWallSegments(ref [, filter]) -> segments, segmentRefs
 * (walls have ref 0; portals carry the polygon across) */
static int lnm_mesh_wall_segments(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref ref = check_valid_ref(L, h, 2), refs[LNM_WALL_SEGS];
  float segs[6 * LNM_WALL_SEGS];
  int n = 0;
  nm_status st = nm_query_wall_segments(h->q, ref, opt_filter(L, 3, h), segs, refs, LNM_WALL_SEGS, &n);
  if (st < 0) return toolbox_fail(L, "getPolyWallSegments", st);
  push_numbers(L, segs, 6 * n);
  push_refs(L, refs, n);
  return 2;
}

/* ---- sliced findPath ---- */

/* mesh:findPathBegin(sref, eref, sx,sy,sz, ex,ey,ez [, filter]) -> true */
static int lnm_mesh_find_path_begin(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  nm_polyref s = check_valid_ref(L, h, 2), e = check_valid_ref(L, h, 3);
  float sp[3], ep[3];
  nm_status st;
  check_point(L, 4, sp);
  check_point(L, 7, ep);
  if ((st = nm_query_find_path_begin(h->q, s, e, sp, ep, opt_filter(L, 10, h))) < 0)
    return toolbox_fail(L, "findPathBegin", st);
  lua_pushboolean(L, 1);
  return 1;
}

/* Pushes nil, "<what>: no sliced path search in progress (...)", "ERR_STATE". */
static int push_no_sliced(lua_State *L, const char *what) {
  lua_pushnil(L);
  lua_pushfstring(L, "%s: no sliced path search in progress (not begun, already ended, or ended "
                  "by another search or a mesh change on this handle)", what);
  lua_pushstring(L, nm_status_name(NM_ERR_STATE));
  return 3;
}

/* mesh:findPathStep(maxIterations) -> "in_progress" | "done", iterations */
static int lnm_mesh_find_path_step(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  lua_Integer it = lnm_checkinteger(L, 2);
  int done = 0;
  nm_status st;
  if (it < 1) luaL_argerror(L, 2, "maxIterations must be >= 1");
  st = nm_query_find_path_step(h->q, it > 0x7fffffff ? 0x7fffffff : (int)it, &done);
  if (st == NM_ERR_STATE) return push_no_sliced(L, "findPathStep");
  lua_pushstring(L, (st & NM_UNFINISHED) ? "in_progress" : "done");
  lua_pushinteger(L, done);
  return 2;
}

/* mesh:findPathEnd() -> polys, partial (partial also when ended early) */
static int lnm_mesh_find_path_end(lua_State *L) {
  lnm_mesh *h = check_mesh(L, 1);
  int n = 0;
  nm_status st;
  ensure_path(L, h, h->max_nodes);
  st = nm_query_find_path_end(h->q, h->path, h->path_cap, &n);
  if (st == NM_ERR_STATE) return push_no_sliced(L, "findPathEnd");
  if (st < 0) return toolbox_fail(L, "findPathEnd", st);
  push_refs(L, h->path, n);
  lua_pushboolean(L, (st & NM_PARTIAL) != 0);
  return 2;
}

/* ---- filter extras: areaChangeCost, heuristicScale ---- */

/* An area key of areaChangeCost: 0..63 or "*" (any area). */
static int check_change_area(lua_State *L, int idx) {
  lua_Number a;
  if (lua_type(L, idx) == LUA_TSTRING && strcmp(lua_tostring(L, idx), "*") == 0) return NM_AREA_ANY;
  a = lua_tonumber(L, idx);
  if (lua_type(L, idx) != LUA_TNUMBER || a != floor(a) || a < 0 || a >= NM_MAX_AREAS)
    luaL_error(L, "bad option 'areaChangeCost' (areas must be 0..63 or \"*\")");
  return (int)a;
}

/* Sets one area-change cost, raising on bad values or a full filter. */
static void set_change(lua_State *L, nm_filter *f, int from, int to, lua_Number cost) {
  if (!isfinite(cost) || cost < 0) luaL_error(L, "bad option 'areaChangeCost' (costs must be finite numbers >= 0)");
  if (nm_filter_set_area_change(f, from, to, (float)cost) < 0)
    luaL_error(L, "bad option 'areaChangeCost' (at most %d area pairs)", NM_MAX_AREA_CHANGES);
}

/* Reads areaChangeCost = {[from] = {[to] = cost}} and heuristicScale from
 * the filter options table t. */
static int filter_read_toolbox(lua_State *L, int t, nm_filter *f) {
  f->heuristic_scale = (float)field_number(L, t, "heuristicScale", f->heuristic_scale, 0);
  lua_getfield(L, t, "areaChangeCost");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); return 0; }
  if (!lua_istable(L, -1)) luaL_error(L, "bad option 'areaChangeCost' (table expected)");
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    int from = check_change_area(L, -2);
    if (!lua_istable(L, -1)) luaL_error(L, "bad option 'areaChangeCost' ({[from] = {[to] = cost}} expected)");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "bad option 'areaChangeCost' (costs must be numbers)");
      set_change(L, f, from, check_change_area(L, -2), lua_tonumber(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

/* filter:areaChangeCost(from, to [, cost]) -> cost (areas 0..63 or "*") */
static int lnm_filter_area_change(lua_State *L) {
  nm_filter *f = (nm_filter *)luaL_checkudata(L, 1, LNM_FILTER);
  int from = check_change_area(L, 2), to = check_change_area(L, 3);
  if (!lua_isnoneornil(L, 4)) set_change(L, f, from, to, luaL_checknumber(L, 4));
  lua_pushnumber(L, nm_filter_area_change(f, from, to));
  return 1;
}

/* filter:heuristicScale([scale]) -> scale (A* heuristic weight, 0.999 default) */
static int lnm_filter_heuristic_scale(lua_State *L) {
  nm_filter *f = (nm_filter *)luaL_checkudata(L, 1, LNM_FILTER);
  if (!lua_isnoneornil(L, 2)) {
    lua_Number v = luaL_checknumber(L, 2);
    if (!isfinite(v) || v < 0) luaL_argerror(L, 2, "scale must be a finite number >= 0");
    f->heuristic_scale = (float)v;
  }
  lua_pushnumber(L, f->heuristic_scale);
  return 1;
}

static const luaL_Reg toolbox_mesh_methods[] = {
  {"raycast", lnm_mesh_raycast},
  {"moveAlongSurface", lnm_mesh_move_along_surface},
  {"findDistanceToWall", lnm_mesh_distance_to_wall},
  {"seed", lnm_mesh_seed},
  {"findRandomPoint", lnm_mesh_random_point},
  {"findRandomPointAroundCircle", lnm_mesh_random_point_around},
  {"findPolysAroundCircle", lnm_mesh_polys_around_circle},
  {"findPolysAroundShape", lnm_mesh_polys_around_shape},
  {"findLocalNeighbourhood", lnm_mesh_local_neighbourhood},
  {"queryPolygons", lnm_mesh_query_polygons},
  {"getPolyWallSegments", lnm_mesh_wall_segments},
  {"findPathBegin", lnm_mesh_find_path_begin},
  {"findPathStep", lnm_mesh_find_path_step},
  {"findPathEnd", lnm_mesh_find_path_end},
  {NULL, NULL}
};

static const luaL_Reg toolbox_filter_methods[] = {
  {"areaChangeCost", lnm_filter_area_change},
  {"heuristicScale", lnm_filter_heuristic_scale},
  {NULL, NULL}
};

/* Adds the toolbox methods to the NavMesh and Filter classes. */
static void toolbox_register(lua_State *L) {
  luaL_getmetatable(L, LNM_MESH);
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, toolbox_mesh_methods, 0);
  lua_pop(L, 2);
  luaL_getmetatable(L, LNM_FILTER);
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, toolbox_filter_methods, 0);
  lua_pop(L, 2);
}

/* ==== building from triangles: navmesh.build, navmesh.buildObj,
 * navmesh.parseObj (the build driver's block; the core is src/build/) ==== */

/* A block of n bytes owned by the table at `keep` (so it lives as long as
 * that table and is freed by the GC, also when an error is raised). */
static void *kept_block(lua_State *L, int keep, size_t n) {
  void *p = lua_newuserdata(L, n ? n : 1);
  memset(p, 0, n ? n : 1);
  lua_rawseti(L, keep, (int)lua_rawlen(L, keep) + 1);
  return p;
}

/* Flat list at argument idx whose length is a multiple of 3: finite
 * numbers as floats (max_index < 0), or 1-based vertex numbers up to
 * max_index as 0-based ints. *count gets the number of triples. */
static void *arg_triples(lua_State *L, int idx, int keep, int max_index, int *count) {
  size_t i, n;
  float *f;
  int *k;
  luaL_checktype(L, idx, LUA_TTABLE);
  n = lua_rawlen(L, idx);
  if (n % 3 || n / 3 > 0x7fffffff / 3) luaL_argerror(L, idx, "flat list of triples expected (length a multiple of 3)");
  f = (float *)kept_block(L, keep, n * 4);
  k = (int *)(void *)f;
  for (i = 0; i < n; i++) {
    lua_Number x;
    lua_rawgeti(L, idx, (int)i + 1);
    x = lua_tonumber(L, -1);
    if (max_index < 0) {
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38)
        luaL_argerror(L, idx, lua_pushfstring(L, "item %d is not a finite number", (int)i + 1));
      f[i] = (float)x;
    } else {
      if (lua_type(L, -1) != LUA_TNUMBER || x != floor(x) || x < 1 || x > max_index)
        luaL_argerror(L, idx, lua_pushfstring(L, "index %d is not a vertex number in 1..%d", (int)i + 1, max_index));
      k[i] = (int)x - 1;
    }
    lua_pop(L, 1);
  }
  *count = (int)(n / 3);
  return f;
}

/* A {x, y, z} field of the volume table at v, or raises. */
static void volume_vec3(lua_State *L, int v, int i, const char *key, float out[3]) {
  if (!field_vec3(L, v, key, out)) luaL_error(L, "bad area volume %d ('%s' {x, y, z} required)", i, key);
}

/* One area volume table {kind=, area=, ...shape...}. */
static void read_volume(lua_State *L, int v, int i, int keep, nm_area_volume *out) {
  static const char *const keys[] = {"kind", "area", "vertices", "hmin", "hmax", "bmin", "bmax",
                                     "center", "radius", "height", NULL};
  static const char *const kinds[] = {"convex", "box", "cylinder", NULL};
  int k;
  check_keys(L, v, keys);
  lua_getfield(L, v, "kind");
  for (k = 0; kinds[k] && !(lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), kinds[k]) == 0); k++) {}
  if (!kinds[k]) luaL_error(L, "bad area volume %d (kind must be \"convex\", \"box\" or \"cylinder\")", i);
  lua_pop(L, 1);
  out->kind = k;
  out->area = (int)field_int(L, v, "area", 0, -1, 62);
  if (k == NM_VOLUME_CONVEX) {
    lua_getfield(L, v, "vertices");
    if (!lua_istable(L, -1)) luaL_error(L, "bad area volume %d ('vertices' {x,y,z, ...} required)", i);
    out->verts = (const float *)arg_triples(L, lua_gettop(L), keep, -1, &out->nverts);
    lua_pop(L, 1);
    if (out->nverts < 3) luaL_error(L, "bad area volume %d (at least 3 vertices)", i);
    out->hmin = (float)field_number(L, v, "hmin", -HUGE_VAL, -HUGE_VAL);
    out->hmax = (float)field_number(L, v, "hmax", HUGE_VAL, -HUGE_VAL);
    if (!isfinite(out->hmin) || !isfinite(out->hmax) || out->hmin > out->hmax)
      luaL_error(L, "bad area volume %d (finite hmin <= hmax required)", i);
  } else if (k == NM_VOLUME_BOX) {
    volume_vec3(L, v, i, "bmin", out->bmin);
    volume_vec3(L, v, i, "bmax", out->bmax);
  } else {
    volume_vec3(L, v, i, "center", out->center);
    out->radius = (float)field_number(L, v, "radius", 0, 0);
    out->height = (float)field_number(L, v, "height", 0, 0);
  }
}

/* config.areas = { volume, ... } */
static void read_volumes(lua_State *L, int t, int keep, nm_build_config *c) {
  int i, n, list;
  nm_area_volume *vols;
  lua_getfield(L, t, "areas");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); return; }
  if (!lua_istable(L, -1)) luaL_error(L, "bad option 'areas' (list of volumes expected)");
  list = lua_gettop(L);
  n = (int)lua_rawlen(L, list);
  vols = (nm_area_volume *)kept_block(L, keep, (size_t)n * sizeof *vols);
  for (i = 0; i < n; i++) {
    lua_rawgeti(L, list, i + 1);
    if (!lua_istable(L, -1)) luaL_error(L, "bad area volume %d (table expected)", i + 1);
    read_volume(L, lua_gettop(L), i + 1, keep, &vols[i]);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  c->volumes = vols;
  c->nvolumes = n;
}

/* Boolean option (def when absent). */
static int field_bool(lua_State *L, int t, const char *key, int def) {
  int v = def;
  lua_getfield(L, t, key);
  if (!lua_isnil(L, -1)) {
    if (!lua_isboolean(L, -1)) luaL_error(L, "bad option '%s' (boolean expected)", key);
    v = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  return v;
}

/* partition = "watershed" | "monotone" | "layers" */
static int field_partition(lua_State *L, int t) {
  static const char *const names[] = {"watershed", "monotone", "layers", NULL};
  int k = NM_PARTITION_WATERSHED;
  lua_getfield(L, t, "partition");
  if (!lua_isnil(L, -1)) {
    for (k = 0; names[k] && !(lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), names[k]) == 0); k++) {}
    if (!names[k]) luaL_error(L, "bad option 'partition' (\"watershed\", \"monotone\" or \"layers\" expected)");
  }
  lua_pop(L, 1);
  return k;
}

/* bounds = {minx, miny, minz, maxx, maxy, maxz} */
static void field_bounds(lua_State *L, int t, nm_build_config *c) {
  int i;
  lua_getfield(L, t, "bounds");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1) || lua_rawlen(L, -1) != 6) luaL_error(L, "bad option 'bounds' ({minx, miny, minz, maxx, maxy, maxz} expected)");
    for (i = 0; i < 6; i++) {
      lua_Number x;
      lua_rawgeti(L, -1, i + 1);
      x = lua_tonumber(L, -1);
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38) luaL_error(L, "bad option 'bounds' (finite numbers expected)");
      (i < 3 ? c->bmin : c->bmax)[i % 3] = (float)x;
      lua_pop(L, 1);
    }
    for (i = 0; i < 3; i++)
      if (c->bmin[i] > c->bmax[i]) luaL_error(L, "bad option 'bounds' (min must not exceed max)");
  }
  lua_pop(L, 1);
}

static const char *const build_keys[] = {
  "cellSize", "cellHeight", "agentHeight", "agentRadius", "agentMaxClimb", "agentMaxSlope",
  "regionMinSize", "regionMergeSize", "edgeMaxLen", "edgeMaxError", "vertsPerPoly",
  "detailSampleDist", "detailSampleMaxError", "partition", "tileSize", "threads", "areas",
  "offMeshConnections", "progress", "bounds", "filterLowHangingObstacles", "filterLedgeSpans",
  "filterWalkableLowHeightSpans", "memoryLimit", NULL};

/* The float settings, RecastDemo defaults when absent. */
static void read_build_numbers(lua_State *L, int t, nm_build_config *c) {
  c->cell_size = (float)field_number(L, t, "cellSize", c->cell_size, 0);
  c->cell_height = (float)field_number(L, t, "cellHeight", c->cell_height, 0);
  c->agent_height = (float)field_number(L, t, "agentHeight", c->agent_height, 0);
  c->agent_radius = (float)field_number(L, t, "agentRadius", c->agent_radius, 0);
  c->agent_max_climb = (float)field_number(L, t, "agentMaxClimb", c->agent_max_climb, 0);
  c->agent_max_slope = (float)field_number(L, t, "agentMaxSlope", c->agent_max_slope, 0);
  c->region_min_size = (float)field_number(L, t, "regionMinSize", c->region_min_size, 0);
  c->region_merge_size = (float)field_number(L, t, "regionMergeSize", c->region_merge_size, 0);
  c->edge_max_len = (float)field_number(L, t, "edgeMaxLen", c->edge_max_len, 0);
  c->edge_max_error = (float)field_number(L, t, "edgeMaxError", c->edge_max_error, 0);
  c->detail_sample_dist = (float)field_number(L, t, "detailSampleDist", c->detail_sample_dist, 0);
  c->detail_sample_max_error = (float)field_number(L, t, "detailSampleMaxError", c->detail_sample_max_error, 0);
}

/* Config table at idx (nil = defaults) into c; *progress gets the stack
 * index of the progress function (0 when none). Raises on unknown keys and
 * wrong types; ranges are checked by the core (raised as well). */
static void read_build_config(lua_State *L, int idx, int keep, nm_build_config *c, int *progress) {
  nm_build_config_init(c);
  *progress = 0;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  check_keys(L, idx, build_keys);
  read_build_numbers(L, idx, c);
  c->verts_per_poly = (int)field_int(L, idx, "vertsPerPoly", 6, 0, 1000);
  c->tile_size = (int)field_int(L, idx, "tileSize", 0, 0, 1 << 20);
  c->threads = (int)field_int(L, idx, "threads", 1, 1, 64);
  c->memory_limit = (size_t)field_number(L, idx, "memoryLimit", 0, 0);
  c->partition = field_partition(L, idx);
  c->filter_low_hanging = field_bool(L, idx, "filterLowHangingObstacles", 1);
  c->filter_ledges = field_bool(L, idx, "filterLedgeSpans", 1);
  c->filter_low_height = field_bool(L, idx, "filterWalkableLowHeightSpans", 1);
  field_bounds(L, idx, c);
  read_volumes(L, idx, keep, c);
  c->offmesh = field_offmesh(L, idx, &c->noffmesh);
  if (c->offmesh) lua_rawseti(L, keep, (int)lua_rawlen(L, keep) + 1); /* its scratch block, pushed */
  lua_getfield(L, idx, "progress");
  if (!lua_isnil(L, -1)) {
    if (!lua_isfunction(L, -1)) luaL_error(L, "bad option 'progress' (function expected)");
    *progress = lua_gettop(L);
  } else {
    lua_pop(L, 1);
  }
}

/* The progress hook: calls the Lua function in protected mode; an error
 * cancels the build and is raised again once the build has cleaned up. */
typedef struct lnm_progress {
  lua_State *L;
  int fn, failed;
} lnm_progress;

static int progress_call(void *ud, int done, int total) {
  lnm_progress *p = (lnm_progress *)ud;
  lua_State *L = p->L;
  lua_pushvalue(L, p->fn);
  lua_pushinteger(L, done);
  lua_pushinteger(L, total);
  if (lua_pcall(L, 2, 0, 0) != 0) {
    p->failed = 1;   /* the error value stays on the stack */
    return 1;
  }
  return 0;
}

/* Pushes the stats table {tiles=, polys=, peakBytes=, ms={...}}. */
static void push_build_stats(lua_State *L, const nm_build_stats *s) {
  static const char *const names[] = {"rasterize", "filter", "compact", "erode", "areas", "distance", "regions",
                                      "contours", "polymesh", "detail", "tiledata", "total"};
  const double ms[] = {s->ms_rasterize, s->ms_filter, s->ms_compact, s->ms_erode, s->ms_areas, s->ms_distance,
                       s->ms_regions, s->ms_contours, s->ms_polymesh, s->ms_detail, s->ms_tiledata, s->ms_total};
  int i;
  lua_createtable(L, 0, 4);
  set_int(L, "tiles", s->tiles);
  set_int(L, "polys", s->polys);
  lua_pushnumber(L, (lua_Number)s->peak_bytes);
  lua_setfield(L, -2, "peakBytes");
  lua_createtable(L, 0, 12);
  for (i = 0; i < 12; i++) {
    lua_pushnumber(L, ms[i]);
    lua_setfield(L, -2, names[i]);
  }
  lua_setfield(L, -2, "ms");
}

/* Runs the build; pushes mesh, stats or nil, msg, code; raises for bad
 * settings (argument cfg_arg) and for errors raised by the progress hook. */
static int build_and_push(lua_State *L, const float *v, int nv, const int *t, int nt, nm_build_config *c,
                          int progress, int cfg_arg, int opts_arg, const char *what) {
  int nodes = opt_max_nodes(L, opt_table(L, opts_arg, handle_opts)), hidx;
  lnm_mesh *h = new_handle(L);
  lnm_progress pr;
  nm_navmesh *mesh = NULL;
  nm_build_stats stats;
  nm_diag diag;
  nm_status st;
  hidx = lua_gettop(L);
  pr.L = L;
  pr.fn = progress;
  pr.failed = 0;
  if (progress) {
    c->progress = progress_call;
    c->progress_ud = &pr;
  }
  memset(&diag, 0, sizeof diag);
  st = nm_navmesh_build(v, nv, t, nt, c, &h->alloc, &diag, &mesh, &stats);
  if (pr.failed) lua_error(L);
  if (st == NM_ERR_EMPTY) return push_fail(L, what, st, &diag);
  if (st == NM_ERR_PARAM) luaL_argerror(L, cfg_arg, diag.msg);
  if (st < 0) raise_status(L, what, st, &diag);
  handle_attach(L, h, mesh, nodes);
  lua_pushvalue(L, hidx);
  push_build_stats(L, &stats);
  return 2;
}

/* navmesh.build(vertices, triangles [, config [, opts]]) -> mesh, stats */
static int lnm_build(lua_State *L) {
  nm_build_config c;
  int nv, nt, progress, keep;
  const float *v;
  const int *t;
  lua_settop(L, 4);
  lua_newtable(L);
  keep = lua_gettop(L);
  v = (const float *)arg_triples(L, 1, keep, -1, &nv);
  t = (const int *)arg_triples(L, 2, keep, nv, &nt);
  read_build_config(L, 3, keep, &c, &progress);
  return build_and_push(L, v, nv, t, nt, &c, progress, 3, 4, "build");
}

/* Geometry parsed from OBJ text, owned by a userdata whose __gc frees it:
 * whatever raises later (a bad config, out of memory) leaks nothing. */
#define LNM_OBJ "navmesh.ObjGeometry"
typedef struct lnm_obj {
  nm_alloc a;
  float *v;
  int *t;
  int nv, nt;
} lnm_obj;

static int lnm_obj_gc(lua_State *L) {
  lnm_obj *o = (lnm_obj *)luaL_checkudata(L, 1, LNM_OBJ);
  nm_obj_free(&o->a, o->v, o->nv, o->t, o->nt);
  o->v = NULL;
  o->t = NULL;
  o->nv = o->nt = 0;
  return 0;
}

/* Pushes an empty geometry userdata. */
static lnm_obj *new_obj(lua_State *L) {
  lnm_obj *o = (lnm_obj *)lua_newuserdata(L, sizeof *o);
  memset(o, 0, sizeof *o);
  o->a.fn = lua_getallocf(L, &o->a.ud);
  if (luaL_newmetatable(L, LNM_OBJ)) {
    lua_pushcfunction(L, lnm_obj_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return o;
}

/* navmesh.parseObj(text) -> vertices, triangles (flat lists, 1-based) */
static int lnm_parse_obj(lua_State *L) {
  size_t len, i;
  const char *text = luaL_checklstring(L, 1, &len);
  lnm_obj *o = new_obj(L);
  nm_diag diag;
  nm_status st;
  memset(&diag, 0, sizeof diag);
  st = nm_obj_parse(text, len, &o->a, &diag, &o->v, &o->nv, &o->t, &o->nt);
  if (st == NM_ERR_NOMEM) raise_status(L, "parseObj", st, NULL);
  if (st < 0) return push_fail(L, "parseObj", st, &diag);
  lua_createtable(L, o->nv * 3, 0);
  for (i = 0; i < (size_t)o->nv * 3; i++) {
    lua_pushnumber(L, o->v[i]);
    lua_rawseti(L, -2, (int)i + 1);
  }
  lua_createtable(L, o->nt * 3, 0);
  for (i = 0; i < (size_t)o->nt * 3; i++) {
    lua_pushinteger(L, o->t[i] + 1);
    lua_rawseti(L, -2, (int)i + 1);
  }
  return 2;
}

/* navmesh.buildObj(path [, config [, opts]]) -> mesh, stats */
static int lnm_build_obj(lua_State *L) {
  const char *path = luaL_checkstring(L, 1), *err = NULL, *what;
  nm_build_config c;
  int progress, keep;
  size_t len = 0, cap = 0;
  char *buf;
  lnm_obj *o;
  nm_diag diag;
  nm_status st;
  void *ud;
  lua_Alloc fn = lua_getallocf(L, &ud);
  lua_settop(L, 3);
  lua_newtable(L);
  keep = lua_gettop(L);
  read_build_config(L, 2, keep, &c, &progress);
  opt_table(L, 3, handle_opts);
  what = lua_pushfstring(L, "buildObj %s", path);
  o = new_obj(L);
  if (!(buf = read_file(L, path, &len, &cap, &err))) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot open %s: %s", path, err);
    lua_pushstring(L, nm_status_name(NM_ERR_IO));
    return 3;
  }
  memset(&diag, 0, sizeof diag);
  st = nm_obj_parse(buf, len, &o->a, &diag, &o->v, &o->nv, &o->t, &o->nt);
  fn(ud, buf, cap, 0);
  if (st == NM_ERR_NOMEM) raise_status(L, what, st, NULL);
  if (st < 0) return push_fail(L, what, st, &diag);
  return build_and_push(L, o->v, o->nv, o->t, o->nt, &c, progress, 2, 3, "buildObj");
}

/* ---- registration ---- */

static const luaL_Reg mesh_methods[] = {
  {"close", lnm_mesh_close},
  {"info", lnm_mesh_info},
  {"save", lnm_mesh_save},
  {"saveString", lnm_mesh_save_string},
  {"addTile", lnm_mesh_add_tile},
  {"removeTile", lnm_mesh_remove_tile},
  {"tileAt", lnm_mesh_tile_at},
  {"findNearestPoly", lnm_mesh_find_nearest},
  {"findPath", lnm_mesh_find_path},
  {"findStraightPath", lnm_mesh_find_straight},
  {"path", lnm_mesh_path},
  {"paths", lnm_mesh_paths},
  {"polyRefs", lnm_mesh_poly_refs},
  {"getPolyVerts", lnm_mesh_poly_verts},
  {"closestPointOnPoly", lnm_mesh_closest_point},
  {"closestPointOnPolyBoundary", lnm_mesh_closest_boundary},
  {"getPolyHeight", lnm_mesh_poly_height},
  {"isValidPolyRef", lnm_mesh_is_valid},
  {"getPortalPoints", lnm_mesh_portal_points},
  {"isReachable", lnm_mesh_is_reachable},
  {"getIsland", lnm_mesh_get_island},
  {"getPolyFlags", lnm_mesh_get_flags},
  {"getPolyArea", lnm_mesh_get_area},
  {"setPolyFlags", lnm_mesh_set_flags},
  {"setPolyArea", lnm_mesh_set_area},
  {"share", lnm_mesh_share},
  {NULL, NULL}
};

static const luaL_Reg filter_methods[] = {
  {"areaCost", lnm_filter_area_cost},
  {"include", lnm_filter_include},
  {"exclude", lnm_filter_exclude},
  {NULL, NULL}
};

static const luaL_Reg module_funcs[] = {
  {"load", lnm_load},
  {"loadString", lnm_load_string},
  {"new", lnm_new},
  {"fromPolygons", lnm_from_polygons},
  {"filter", lnm_filter_new},
  {"open", lnm_open},
  {"unshare", lnm_unshare},
  {"sharedBytes", lnm_shared_bytes},
  {"build", lnm_build},
  {"buildObj", lnm_build_obj},
  {"parseObj", lnm_parse_obj},
  {NULL, NULL}
};

/* Creates a metatable with methods in __index and the given metamethods. */
static void new_class(lua_State *L, const char *name, const luaL_Reg *methods, int with_close) {
  luaL_newmetatable(L, name);
  lua_pushstring(L, name);
  lua_setfield(L, -2, "__name");
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  if (with_close) {
    lua_pushcfunction(L, lnm_mesh_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, lnm_mesh_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, lnm_mesh_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
}

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int luaopen_navmesh_core(lua_State *L);

int luaopen_navmesh_core(lua_State *L) {
#ifdef luaL_checkversion
  luaL_checkversion(L);
#endif
  new_class(L, LNM_MESH, mesh_methods, 1);
  new_class(L, LNM_FILTER, filter_methods, 0);
  toolbox_register(L);
  luaL_newlib(L, module_funcs);
  lua_pushliteral(L, NM_VERSION_STRING);
  lua_setfield(L, -2, "_VERSION");
  return 1;
}
