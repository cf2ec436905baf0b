/* lmesh.c -- the NavMesh object: making meshes (load, loadString, new,
 * fromPolygons), its lifetime, info and files, tiles, and the polygon
 * accessors. */
#include "lnm.h"

/* ---- module functions: making meshes ---- */

/* navmesh.loadString(bytes [, opts]) */
static int lnm_load_string(lua_State *L) {
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
static int lnm_load(lua_State *L) {
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
static int lnm_new(lua_State *L) {
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

/* offMeshConnections = { {start={x,y,z}, ["end"]={x,y,z}, radius=, bidirectional=, area=, flags=, userId=}, ... } */
nm_offmesh_link *lnm_field_offmesh(lua_State *L, int t, int *count) {
  static const char *const keys[] = {"start", "end", "radius", "bidirectional", "area", "flags", "userId", NULL};
  nm_offmesh_link *o;
  int i, n, list;
  lua_getfield(L, t, "offMeshConnections");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); *count = 0; return NULL; }
  list = lua_gettop(L);
  if (!lua_istable(L, -1))
    lnm_opterror(L, "offMeshConnections", "list of connection tables expected, got %s", lnm_got(L, list));
  n = (int)lua_rawlen(L, list);
  o = (nm_offmesh_link *)lnm_scratch(L, (size_t)n * sizeof *o);
  for (i = 0; i < n; i++) {
    const char *in = lua_pushfstring(L, "offMeshConnections[%d]", i + 1);
    int c;
    lua_rawgeti(L, list, i + 1);
    c = lua_gettop(L);
    if (!lua_istable(L, -1)) lnm_opterror(L, in, "connection table expected, got %s", lnm_got(L, c));
    lnm_check_subkeys(L, c, in, keys);
    if (!lnm_subfield_vec3(L, c, in, "start", o[i].start) || !lnm_subfield_vec3(L, c, in, "end", o[i].end))
      lnm_opterror(L, in, "start = {x, y, z} and [\"end\"] = {x, y, z} required");
    o[i].radius = (float)lnm_subfield_number(L, c, in, "radius", 0.5, 1e-6);
    lua_getfield(L, c, "bidirectional");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) {
      const char *got = lnm_got(L, lua_gettop(L));
      lnm_opterror(L, lua_pushfstring(L, "%s.bidirectional", in), "boolean expected, got %s", got);
    }
    o[i].bidirectional = lua_isnil(L, -1) ? 1 : lua_toboolean(L, -1);
    lua_pop(L, 1);
    o[i].area = (uint8_t)lnm_subfield_int(L, c, in, "area", 0, 0, NM_MAX_AREAS - 1);
    o[i].flags = (uint16_t)lnm_subfield_int(L, c, in, "flags", 1, 0, 0xffff);
    o[i].user_id = (uint32_t)lnm_subfield_int(L, c, in, "userId", 0, 0, 0x7fffffff);
    lua_pop(L, 2);
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

/* ---- mesh methods: lifetime, info, files ---- */

static int lnm_mesh_close(lua_State *L) {
  lnm_handle_close((lnm_mesh *)luaL_checkudata(L, 1, LNM_MESH));
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

/* mesh:info() -> {tiles=, polys=, ...} */
static int lnm_mesh_info(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_navmesh_info info;
  nm_navmesh_params p;
  nm_navmesh_get_info(h->mesh, &info);
  nm_navmesh_get_params(h->mesh, &p);
  lua_createtable(L, 0, 16);
  lnm_set_int(L, "tiles", info.tiles);
  lnm_set_int(L, "polys", info.polys);
  lnm_set_int(L, "offMeshConnections", info.offmesh_polys);
  lnm_set_int(L, "vertices", info.verts);
  lnm_set_int(L, "detailVertices", info.detail_verts);
  lnm_set_int(L, "detailTriangles", info.detail_tris);
  lnm_set_int(L, "maxTiles", info.max_tiles);
  lnm_set_int(L, "maxPolys", info.max_polys);
  lnm_set_int(L, "maxNodes", h->max_nodes);
  lnm_set_int(L, "islands", nm_navmesh_island_count(h->mesh));
  lnm_set_int(L, "dataBytes", (lua_Integer)info.data_bytes);
  lnm_set_int(L, "memoryBytes", (lua_Integer)info.memory_bytes);
  lnm_set_vec(L, "bmin", info.bmin);
  lnm_set_vec(L, "bmax", info.bmax);
  lnm_set_vec(L, "origin", p.orig);
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
  lnm_mesh *h = lnm_check_mesh(L, 1);
  void *bytes;
  size_t len;
  nm_status st = nm_navmesh_save(h->mesh, check_format(L, 2), &bytes, &len);
  if (st < 0) lnm_raise_status(L, "saveString", st, NULL);
  lnm_push_owned_bytes(L, h, bytes, len);
  return 1;
}

/* mesh:save(path [, format]) -> true | nil, msg, code */
static int lnm_mesh_save(lua_State *L) {
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

/* ---- tiles ---- */

/* Raises when the mesh is shared (read-only) or a tile cache's. */
static void check_writable(lua_State *L, lnm_mesh *h, const char *what) {
  if (h->cached)
    luaL_error(L, "NavMesh:%s: this navmesh is maintained by a TileCache (its tiles are rebuilt from the cache's "
               "layers): change it with obstacles (area = n marks an area)", what);
  if (nm_navmesh_is_frozen(h->mesh))
    luaL_error(L, "NavMesh:%s: navmesh is read-only (shared or mapped); publish a changed copy with "
               "share(name, { replace = true })", what);
}

/* mesh:addTile(bytes [, { ref = oldRef }]) -> tileRef | nil, msg, code;
 * ref: a reference the tile had before (Detour's lastRef), so its
 * polygons get their old references back. */
static int lnm_mesh_add_tile(lua_State *L) {
  static const char *const keys[] = {"ref", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  size_t len;
  const char *bytes = luaL_checklstring(L, 2, &len);
  int t = lnm_opt_table(L, 3, keys);
  nm_polyref ref = 0, last = 0;
  nm_diag diag;
  nm_status st;
  if (t) last = (nm_polyref)lnm_field_int(L, t, "ref", 0, 0, (lua_Integer)0xffffffffu);
  check_writable(L, h, "addTile");
  memset(&diag, 0, sizeof diag);
  if ((st = nm_navmesh_add_tile_ref(h->mesh, bytes, len, last, &diag, &ref)) < 0) {
    if (st == NM_ERR_NOMEM) lnm_raise_status(L, "addTile", st, NULL);
    return lnm_push_fail(L, "addTile", st, &diag);
  }
  lua_pushinteger(L, (lua_Integer)ref);
  return 1;
}

/* Tile coordinates tx, ty [, layer] at idx.. into c[3]. */
static void check_tile_cell(lua_State *L, int idx, int c[3]) {
  lua_Integer tx = lnm_checkinteger(L, idx), ty = lnm_checkinteger(L, idx + 1), layer = lnm_optinteger(L, idx + 2, 0);
  if (tx < -(1 << 28) || tx > (1 << 28) || ty < -(1 << 28) || ty > (1 << 28) || layer < 0 || layer > (1 << 28))
    luaL_argerror(L, idx, lua_pushfstring(L, "tile coordinates within +-2^28 and layer 0..2^28 expected, got (%s, %s, %s)",
                                          lnm_number(L, (lua_Number)tx), lnm_number(L, (lua_Number)ty),
                                          lnm_number(L, (lua_Number)layer)));
  c[0] = (int)tx;
  c[1] = (int)ty;
  c[2] = (int)layer;
}

/* Pushes nil, "<what>: no tile at (x, y, layer l)", "ERR_PARAM". */
static int push_no_tile(lua_State *L, const char *what, const int c[3]) {
  lua_pushnil(L);
  lua_pushfstring(L, "%s: no tile at (%d, %d, layer %d)", what, c[0], c[1], c[2]);
  lua_pushstring(L, nm_status_name(NM_ERR_PARAM));
  return 3;
}

/* mesh:removeTile(tx, ty [, layer]) -> bytes | nil, msg, code */
static int lnm_mesh_remove_tile(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int c[3];
  void *data;
  size_t size;
  nm_status st;
  check_writable(L, h, "removeTile");
  check_tile_cell(L, 2, c);
  st = nm_navmesh_remove_tile(h->mesh, c[0], c[1], c[2], &data, &size);
  if (st == NM_ERR_PARAM) return push_no_tile(L, "removeTile", c);
  if (st < 0) lnm_raise_status(L, "removeTile", st, NULL);
  lnm_push_owned_bytes(L, h, data, size);
  return 1;
}

/* mesh:getTile(tx, ty [, layer]) -> bytes (links included, as removeTile
 * gives them) | nil, msg, code; the tile stays. */
static int lnm_mesh_get_tile(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int c[3];
  const void *data;
  size_t size;
  check_tile_cell(L, 2, c);
  if (nm_navmesh_get_tile(h->mesh, c[0], c[1], c[2], &data, &size) < 0) return push_no_tile(L, "getTile", c);
  lua_pushlstring(L, (const char *)data, size);
  return 1;
}

/* mesh:tiles() -> { {x=, y=, layer=, ref=, polys=, bytes=}, ... } by slot
 * (bytes: the size of the tile's blob). */
static int lnm_mesh_tiles(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_navmesh_info info;
  nm_tile_info *ti;
  int i, n = 0;
  nm_navmesh_get_info(h->mesh, &info);
  ti = (nm_tile_info *)lnm_scratch(L, (size_t)(info.tiles > 0 ? info.tiles : 1) * sizeof *ti);
  nm_navmesh_tiles(h->mesh, ti, info.tiles, &n);
  lua_createtable(L, n, 0);
  for (i = 0; i < n && i < info.tiles; i++) {
    lua_createtable(L, 0, 6);
    lnm_set_int(L, "x", ti[i].x);
    lnm_set_int(L, "y", ti[i].y);
    lnm_set_int(L, "layer", ti[i].layer);
    lnm_set_int(L, "ref", (lua_Integer)ti[i].ref);
    lnm_set_int(L, "polys", ti[i].polys);
    lnm_set_int(L, "bytes", (lua_Integer)ti[i].data_size);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* mesh:tileAt(x, z) -> tx, ty, tileRef|nil (layer 0) */
static int lnm_mesh_tile_at(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float pos[3];
  int tx, ty;
  nm_polyref ref;
  pos[0] = lnm_check_coord(L, 2);
  pos[1] = 0;
  pos[2] = lnm_check_coord(L, 3);
  nm_navmesh_tile_loc(h->mesh, pos, &tx, &ty);
  lua_pushinteger(L, tx);
  lua_pushinteger(L, ty);
  ref = nm_navmesh_tile_ref_at(h->mesh, tx, ty, 0);
  if (ref) lua_pushinteger(L, (lua_Integer)ref);
  else lua_pushnil(L);
  return 3;
}

/* ---- polygon accessors ---- */

/* mesh:polyRefs() -> {ref, ...} (every polygon, tiles by slot) */
static void collect_ref(void *ud, nm_polyref ref) {
  lua_State *L = (lua_State *)ud;
  lua_pushinteger(L, (lua_Integer)ref);
  lua_rawseti(L, -2, (int)lua_rawlen(L, -2) + 1);
}
static int lnm_mesh_poly_refs(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  lua_newtable(L);
  nm_navmesh_foreach_poly(h->mesh, collect_ref, L);
  return 1;
}

/* mesh:getPolyVerts(ref) -> {x1,y1,z1, ...} */
static int lnm_mesh_poly_verts(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
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
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  float p[3], c[3];
  int over = 0;
  lnm_check_point(L, 3, p);
  nm_query_closest_point(h->q, ref, p, c, &over);
  lnm_push_point(L, c);
  lua_pushboolean(L, over);
  return 4;
}

/* mesh:closestPointOnPolyBoundary(ref, x,y,z) -> x, y, z */
static int lnm_mesh_closest_boundary(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  float p[3], c[3];
  lnm_check_point(L, 3, p);
  nm_query_closest_point_boundary(h->q, ref, p, c);
  lnm_push_point(L, c);
  return 3;
}

/* mesh:getPolyHeight(ref, x,y,z) -> h | nil, msg, code */
static int lnm_mesh_poly_height(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  float p[3], y;
  nm_status st;
  lnm_check_point(L, 3, p);
  if ((st = nm_query_poly_height(h->q, ref, p, &y)) < 0) return lnm_push_fail(L, "getPolyHeight", st, NULL);
  lua_pushnumber(L, y);
  return 1;
}

/* mesh:isReachable(refA, refB) -> boolean: on the same island (O(1));
 * false means no path can join them. */
static int lnm_mesh_is_reachable(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref a = lnm_check_valid_ref(L, h, 2), b = lnm_check_valid_ref(L, h, 3);
  lua_pushboolean(L, nm_navmesh_is_reachable(h->mesh, a, b));
  return 1;
}

/* mesh:getIsland(ref) -> island number (1..islands) */
static int lnm_mesh_get_island(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  lua_pushinteger(L, (lua_Integer)nm_navmesh_island(h->mesh, lnm_check_valid_ref(L, h, 2)));
  return 1;
}

/* mesh:getPortalPoints(from, to) -> lx,ly,lz, rx,ry,rz | nil, msg, code
 * (the shared edge the path crosses from polygon `from` into `to`). */
static int lnm_mesh_portal_points(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref from = lnm_check_valid_ref(L, h, 2), to = lnm_check_valid_ref(L, h, 3);
  float l[3], r[3];
  nm_status st = nm_query_portal_points(h->q, from, to, l, r);
  if (st < 0) return lnm_push_fail(L, "getPortalPoints", st, NULL);
  lnm_push_point(L, l);
  lnm_push_point(L, r);
  return 6;
}

/* mesh:isValidPolyRef(ref) -> boolean */
static int lnm_mesh_is_valid(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  lua_Number v = luaL_checknumber(L, 2);
  lua_pushboolean(L, v == floor(v) && v > 0 && v <= 4294967295.0 &&
                         nm_navmesh_is_valid_ref(h->mesh, (nm_polyref)v));
  return 1;
}

/* mesh:getPolyFlags(ref) / getPolyArea(ref) */
static int lnm_mesh_get_flags(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  uint16_t fl = 0;
  nm_navmesh_get_poly_flags(h->mesh, lnm_check_valid_ref(L, h, 2), &fl);
  lua_pushinteger(L, fl);
  return 1;
}
static int lnm_mesh_get_area(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  uint8_t a = 0;
  nm_navmesh_get_poly_area(h->mesh, lnm_check_valid_ref(L, h, 2), &a);
  lua_pushinteger(L, a);
  return 1;
}

/* mesh:setPolyFlags(ref, flags) / setPolyArea(ref, area); refused when shared. */
static int lnm_mesh_set_flags(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  lua_Integer v = lnm_checkinteger(L, 3);
  if (v < 0 || v > 0xffff) luaL_argerror(L, 3, lua_pushfstring(L, "flags in 0..65535 expected, got %s", lnm_got(L, 3)));
  check_writable(L, h, "setPolyFlags");
  nm_navmesh_set_poly_flags(h->mesh, ref, (uint16_t)v);
  return 0;
}
static int lnm_mesh_set_area(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  lua_Integer v = lnm_checkinteger(L, 3);
  if (v < 0 || v >= NM_MAX_AREAS) luaL_argerror(L, 3, lua_pushfstring(L, "area in 0..63 expected, got %s", lnm_got(L, 3)));
  check_writable(L, h, "setPolyArea");
  nm_navmesh_set_poly_area(h->mesh, ref, (uint8_t)v);
  return 0;
}

/* ---- registration ---- */

static const luaL_Reg mesh_methods[] = {
  {"close", lnm_mesh_close},
  {"info", lnm_mesh_info},
  {"save", lnm_mesh_save},
  {"saveString", lnm_mesh_save_string},
  {"addTile", lnm_mesh_add_tile},
  {"removeTile", lnm_mesh_remove_tile},
  {"getTile", lnm_mesh_get_tile},
  {"tiles", lnm_mesh_tiles},
  {"tileAt", lnm_mesh_tile_at},
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
  {NULL, NULL}
};

static const luaL_Reg mesh_funcs[] = {
  {"load", lnm_load},
  {"loadString", lnm_load_string},
  {"new", lnm_new},
  {"fromPolygons", lnm_from_polygons},
  {NULL, NULL}
};

/* The NavMesh class (close is also __gc and __close) and its makers. */
void lnm_open_mesh(lua_State *L) {
  lnm_object_class(L, LNM_MESH, mesh_methods, lnm_mesh_close, lnm_mesh_tostring);
  luaL_setfuncs(L, mesh_funcs, 0);
}
