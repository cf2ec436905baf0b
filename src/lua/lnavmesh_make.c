/* lnavmesh_make.c -- making NavMeshes and writing them out: navmesh.load,
 * loadString, new, fromPolygons; NavMesh:save, saveString. */
#include "lnm.h"

/* ---- module functions: making meshes ---- */

/* navmesh.loadString(bytes [, opts]) */
static int navmesh_load_string(lua_State *L) {
  size_t len;
  const char *bytes = luaL_checklstring(L, 1, &len);
  int t = lnm_opt_table(L, 2, lnm_handle_opts), nodes = lnm_opt_max_nodes(L, t);
  lnm_mesh *h = lnm_new_handle(L);
  nm_navmesh *mesh;
  nm_diag diag;
  nm_status st;
  memset(&diag, 0, sizeof diag);
  if ((st = nm_navmesh_load(bytes, len, &h->alloc, &diag, &mesh)) < 0) {
    if (st == NM_ERR_NOMEM) lnm_raise_status(L, "loadString", st, NULL);
    return lnm_push_fail(L, "loadString", st, &diag);
  }
  lnm_handle_attach(L, h, mesh, nodes);
  return 1;
}

/* Pushes the outcome of a failed load: nil, "<path>: <text>[: detail]", code. */
static int push_load_fail(lua_State *L, const char *path, nm_status st, const nm_diag *diag) {
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, "load", st, NULL);
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
    void *ud;
    lua_Alloc fn = lua_getallocf(L, &ud); /* the buffer's allocator (lnm_read_file) */
    char *buf = lnm_read_file(L, "load", path, &len, &cap, &err);
    if (!buf) {
      lua_pushnil(L);
      lua_pushfstring(L, "cannot open %s: %s", path, err);
      lua_pushstring(L, nm_status_name(NM_ERR_IO));
      return 3;
    }
    st = nm_navmesh_load(buf, len, &h->alloc, &diag, &mesh);
    fn(ud, buf, cap, 0);
  }
  if (st < 0) return push_load_fail(L, path, st, &diag);
  lnm_handle_attach(L, h, mesh, nodes);
  return 1;
}

/* navmesh.load(path [, {maxNodes=, mmap=}]) */
static int navmesh_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int t = lnm_opt_table(L, 2, lnm_handle_opts), nodes = lnm_opt_max_nodes(L, t), mapped = 0;
  if (t) {
    lua_getfield(L, t, "mmap");
    mapped = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  return load_into(L, path, lnm_new_handle(L), nodes, mapped);
}

/* navmesh.new{origin=, tileWidth=, tileHeight=, maxTiles=, maxPolys=} [, opts] */
static int navmesh_new(lua_State *L) {
  static const char *const keys[] = {"origin", "tileWidth", "tileHeight", "maxTiles", "maxPolys", NULL};
  nm_navmesh_params p;
  nm_navmesh *mesh;
  nm_diag diag;
  nm_status st;
  int t, nodes;
  lnm_mesh *h;
  luaL_checktype(L, 1, LUA_TTABLE);
  lnm_check_keys(L, 1, keys);
  t = lnm_opt_table(L, 2, lnm_handle_opts);
  nodes = lnm_opt_max_nodes(L, t);
  memset(&p, 0, sizeof p);
  lnm_field_vec3(L, 1, "origin", p.orig);
  p.tile_width = (float)lnm_field_number(L, 1, "tileWidth", 0, 0);
  p.tile_height = (float)lnm_field_number(L, 1, "tileHeight", p.tile_width, 0);
  p.max_tiles = (int)lnm_field_int(L, 1, "maxTiles", 1024, 1, 1 << 22);
  p.max_polys = (int)lnm_field_int(L, 1, "maxPolys", 4096, 1, 1 << 22);
  h = lnm_new_handle(L);
  memset(&diag, 0, sizeof diag);
  if ((st = nm_navmesh_new(&p, &h->alloc, &diag, &mesh)) < 0) {
    if (st == NM_ERR_PARAM) luaL_argerror(L, 1, diag.msg);
    lnm_raise_status(L, "new", st, &diag);
  }
  lnm_handle_attach(L, h, mesh, nodes);
  return 1;
}

/* Flat number list field `key` of table t (length a multiple of `mult`);
 * NULL when absent. */
static float *field_floats(lua_State *L, int t, const char *key, int mult, int *count) {
  float *v;
  int i, n, list;
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) { lua_pop(L, 1); *count = 0; return NULL; }
  list = lua_gettop(L);
  if (!lua_istable(L, -1)) lnm_opterror(L, key, "flat list of numbers expected, got %s", lnm_got(L, list));
  n = (int)lua_rawlen(L, list);
  if (n % mult) lnm_opterror(L, key, "length a multiple of %d expected, got length %d", mult, n);
  v = (float *)lnm_scratch(L, (size_t)n * sizeof(float));
  for (i = 0; i < n; i++) {
    lua_Number x;
    lua_rawgeti(L, list, i + 1);
    x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38)
      lnm_opterror(L, key, "item %d: finite number expected, got %s", i + 1, lnm_got(L, lua_gettop(L)));
    v[i] = (float)x;
    lua_pop(L, 1);
  }
  lua_remove(L, list); /* keep the lnm_scratch block, drop the list */
  *count = n / mult;
  return v;
}

/* Raises for polygons[i+1][j+1] (on top of the stack): not a vertex number. */
static int polygon_index_error(lua_State *L, int i, int j, int nverts) {
  const char *got = lnm_got(L, lua_gettop(L));
  return lnm_opterror(L, lua_pushfstring(L, "polygons[%d][%d]", i + 1, j + 1), "vertex index in 1..%d expected, got %s",
                      nverts, got);
}

/* polygons = { {i1, i2, i3, ...}, ... } (1-based) into 6-slot records. */
static uint16_t *field_polygons(lua_State *L, int t, int nverts, int *npolys) {
  uint16_t *polys;
  int i, j, n, list;
  lua_getfield(L, t, "polygons");
  list = lua_gettop(L);
  if (!lua_istable(L, -1))
    lnm_opterror(L, "polygons", "list of vertex index lists expected, got %s", lnm_got(L, list));
  n = (int)lua_rawlen(L, list);
  polys = (uint16_t *)lnm_scratch(L, (size_t)n * NM_MAX_VERTS_PER_POLY * sizeof(uint16_t));
  for (i = 0; i < n; i++) {
    int k;
    lua_rawgeti(L, list, i + 1);
    if (!lua_istable(L, -1)) {
      const char *got = lnm_got(L, lua_gettop(L));
      lnm_opterror(L, lua_pushfstring(L, "polygons[%d]", i + 1), "list of vertex indices expected, got %s", got);
    }
    k = (int)lua_rawlen(L, -1);
    if (k < 3 || k > NM_MAX_VERTS_PER_POLY)
      lnm_opterror(L, lua_pushfstring(L, "polygons[%d]", i + 1), "3 to 6 vertex indices expected, got %d", k);
    for (j = 0; j < NM_MAX_VERTS_PER_POLY; j++) polys[i * NM_MAX_VERTS_PER_POLY + j] = 0xffff;
    for (j = 0; j < k; j++) {
      lua_Number x;
      lua_rawgeti(L, -1, j + 1);
      x = lua_tonumber(L, -1);
      if (lua_type(L, -1) != LUA_TNUMBER || x != floor(x) || x < 1 || x > nverts)
        polygon_index_error(L, i, j, nverts);
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
  if (!lua_istable(L, -1) || (int)lua_rawlen(L, -1) != n) {
    const char *got = lua_istable(L, -1) ? lua_pushfstring(L, "%d values", (int)lua_rawlen(L, -1))
                                         : lnm_got(L, lua_gettop(L));
    lnm_opterror(L, key, "one value per polygon (%d) expected, got %s", n, got);
  }
  for (i = 0; i < n; i++) {
    lua_Number x;
    lua_rawgeti(L, -1, i + 1);
    x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || x != floor(x) || x < 0 || x > (lua_Number)hi) {
      const char *got = lnm_got(L, lua_gettop(L));
      lnm_opterror(L, lua_pushfstring(L, "%s[%d]", key, i + 1), "integer in 0..%d expected, got %s", (int)hi, got);
    }
    out[i] = (int)x;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

/* navmesh.fromPolygons{vertices=, polygons=, areas=, flags=, ...} [, opts] */
static int navmesh_from_polygons(lua_State *L) {
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
  lnm_check_keys(L, 1, keys);
  t = lnm_opt_table(L, 2, lnm_handle_opts);
  nodes = lnm_opt_max_nodes(L, t);
  memset(&in, 0, sizeof in);
  in.verts = field_floats(L, 1, "vertices", 3, &in.nverts);
  if (!in.verts) lnm_opterror(L, "vertices", "flat {x,y,z, ...} list required, got nil");
  in.polys = field_polygons(L, 1, in.nverts, &in.npolys);
  in.nvp = NM_MAX_VERTS_PER_POLY;
  ints = (int *)lnm_scratch(L, (size_t)in.npolys * sizeof(int));
  if (field_ints(L, 1, "areas", in.npolys, NM_MAX_AREAS - 1, ints)) {
    uint8_t *areas = (uint8_t *)lnm_scratch(L, (size_t)in.npolys);
    for (i = 0; i < in.npolys; i++) areas[i] = (uint8_t)ints[i];
    in.areas = areas;
  }
  if (field_ints(L, 1, "flags", in.npolys, 0xffff, ints)) {
    uint16_t *flags = (uint16_t *)lnm_scratch(L, (size_t)in.npolys * sizeof(uint16_t));
    for (i = 0; i < in.npolys; i++) flags[i] = (uint16_t)ints[i];
    in.flags = flags;
  }
  in.offmesh = lnm_field_offmesh(L, 1, &in.noffmesh);
  in.cell_size = (float)lnm_field_number(L, 1, "cellSize", 0, 0);
  in.walkable_height = (float)lnm_field_number(L, 1, "walkableHeight", 2.0, 0);
  in.walkable_radius = (float)lnm_field_number(L, 1, "walkableRadius", 0.6, 0);
  in.walkable_climb = (float)lnm_field_number(L, 1, "walkableClimb", 0.9, 0);
  in.bmin[0] = 1;
  in.bmax[0] = 0; /* bounds from the vertices */
  in.build_bvtree = 1;
  h = lnm_new_handle(L);
  hidx = lua_gettop(L);
  memset(&diag, 0, sizeof diag);
  st = nm_tile_create(&in, &h->alloc, &diag, &blob, &blob_size);
  if (st >= 0) {
    st = nm_navmesh_load(blob, blob_size, &h->alloc, &diag, &mesh);
    nm_tile_free(&h->alloc, blob, blob_size);
  }
  if (st == NM_ERR_EMPTY) return lnm_push_fail(L, "fromPolygons", st, &diag);
  if (st < 0) {
    if (st == NM_ERR_PARAM) luaL_argerror(L, 1, diag.msg);
    lnm_raise_status(L, "fromPolygons", st, &diag);
  }
  lnm_handle_attach(L, h, mesh, nodes);
  lua_pushvalue(L, hidx);
  return 1;
}

/* Format name ("mset" default, "native") as NM_FORMAT_*. */
static int check_format(lua_State *L, int idx) {
  static const char *const names[] = {"mset", "native", NULL};
  return luaL_checkoption(L, idx, "mset", names) == 0 ? NM_FORMAT_MSET : NM_FORMAT_NATIVE;
}

/* mesh:saveString([format]) -> bytes */
static int mesh_save_string(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  void *bytes;
  size_t len;
  nm_status st = nm_navmesh_save(h->mesh, check_format(L, 2), &bytes, &len);
  if (st < 0) lnm_raise_status(L, "saveString", st, NULL);
  lnm_push_owned_bytes(L, h, bytes, len);
  return 1;
}

/* mesh:save(path [, format]) -> true | nil, msg, code */
static int mesh_save(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  const char *path = luaL_checkstring(L, 2);
  int fmt = check_format(L, 3), n;
  void *bytes;
  size_t len;
  nm_status st = nm_navmesh_save(h->mesh, fmt, &bytes, &len);
  if (st < 0) lnm_raise_status(L, "save", st, NULL);
  h->out = bytes; /* freed by close/__gc if a push raises */
  h->out_len = len;
  n = lnm_write_file(L, path, bytes, len);
  nm_free_bytes(h->mesh, bytes, len);
  h->out = NULL;
  return n;
}

/* ---- registration ---- */

static const luaL_Reg make_methods[] = {
  {"save", mesh_save},
  {"saveString", mesh_save_string},
  {NULL, NULL}
};

static const luaL_Reg make_funcs[] = {
  {"load", navmesh_load},
  {"loadString", navmesh_load_string},
  {"new", navmesh_new},
  {"fromPolygons", navmesh_from_polygons},
  {NULL, NULL}
};

void lnm_open_navmesh_make(lua_State *L) {
  lnm_add_methods(L, LNM_MESH, make_methods);
  luaL_setfuncs(L, make_funcs, 0);
}
