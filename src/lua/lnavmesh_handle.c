/* lnavmesh_handle.c -- the NavMesh handle's life cycle: made, attached to a
 * mesh, its query scratch (corridors, points, toolbox results), moved onto
 * a newer version, closed (also as __gc and __close); NavMesh:close, info,
 * __tostring, and the checks every NavMesh method starts with. */
#include "lnm.h"

static void gc_refund(lnm_mesh *h) { lnm_gc_refund(&h->alloc, &h->charged); }

/* Frees the toolbox lnm_scratch of a handle. */
static void toolbox_free(lnm_mesh *h) {
  size_t n = (size_t)h->tb_cap;
  if (h->tb_refs) h->alloc.fn(h->alloc.ud, h->tb_refs, n * sizeof(nm_polyref), 0);
  if (h->tb_parents) h->alloc.fn(h->alloc.ud, h->tb_parents, n * sizeof(nm_polyref), 0);
  if (h->tb_costs) h->alloc.fn(h->alloc.ud, h->tb_costs, n * sizeof(float), 0);
  h->tb_refs = h->tb_parents = NULL;
  h->tb_costs = NULL;
  h->tb_cap = 0;
}

/* Makes room for n results (refs, parents, costs) in the toolbox lnm_scratch. */
void lnm_ensure_tb(lua_State *L, lnm_mesh *h, int n) {
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
    lnm_raise_status(L, "navmesh", NM_ERR_NOMEM, NULL);
  }
  lnm_gc_charge(L, h, c * (2 * sizeof(nm_polyref) + sizeof(float)));
}

/* ---- handles ---- */

/* Pushes a fresh, empty handle (closed until a mesh is attached); it
 * allocates through the state's account. */
lnm_mesh *lnm_new_handle(lua_State *L) {
  lnm_mesh *h = (lnm_mesh *)lua_newuserdata(L, sizeof *h);
  memset(h, 0, sizeof *h);
  h->mark = lnm_acct_alloc(L, &h->alloc);
  nm_path_init(&h->route, &h->alloc);
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
  nm_path_free(&h->route);
  toolbox_free(h);
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
    luaL_error(L, "%s: not enough memory", lnm_fname(L, "navmesh"));
  memcpy(copy, name, len);
  if (h->name) h->alloc.fn(h->alloc.ud, h->name, h->name_len, 0);
  h->name = copy;
  h->name_len = len;
}

/* The open handle at idx; raises on a closed one. */
lnm_mesh *lnm_check_mesh(lua_State *L, int idx) {
  lnm_mesh *h = (lnm_mesh *)lnm_checkudata(L, idx, LNM_MESH);
  if (!h->mesh) luaL_error(L, "%s: attempt to use a closed " LNM_MESH, lnm_fname(L, "navmesh"));
  return h;
}

/* Bytes the handle's path buffers (h->route) hold. */
static size_t route_bytes(const nm_path *p) {
  return (size_t)p->corridor_cap * sizeof(nm_polyref) +
         (size_t)p->points_cap * (3 * sizeof(float) + 1 + sizeof(nm_polyref));
}

/* The same for handle h (nm_query_path callers take it before the call). */
size_t lnm_route_bytes(const lnm_mesh *h) { return route_bytes(&h->route); }

/* Charges the collector for what the path buffers grew by since they held
 * `before` bytes (nm_query_path and lnm_ensure_* grow them). */
void lnm_route_charge(lua_State *L, lnm_mesh *h, size_t before) {
  size_t now = route_bytes(&h->route);
  if (now > before) lnm_gc_charge(L, h, now - before);
}

/* Makes room for `corridor` polygons and `points` straight-path points in
 * the handle's path buffers; raises when out of memory. */
static void ensure_route(lua_State *L, lnm_mesh *h, int corridor, int points) {
  size_t before = route_bytes(&h->route);
  if (nm_path_reserve(&h->route, corridor, points) < 0) luaL_error(L, "%s: not enough memory", lnm_fname(L, "navmesh"));
  lnm_route_charge(L, h, before);
}

/* Makes room for n corridor polygons in the handle's scratch. */
nm_polyref *lnm_ensure_path(lua_State *L, lnm_mesh *h, int n) {
  ensure_route(L, h, n, 0);
  return h->route.corridor;
}

/* Makes room for n straight-path points in the handle's scratch. */
void lnm_ensure_pts(lua_State *L, lnm_mesh *h, int n) { ensure_route(L, h, 0, n); }

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

/* ---- tiles ---- */

/* Raises when the mesh is shared (read-only) or a tile cache's. */
void lnm_check_writable(lua_State *L, lnm_mesh *h, const char *what) {
  if (h->cached)
    luaL_error(L, "NavMesh:%s: this navmesh is maintained by a TileCache (its tiles are rebuilt from the cache's "
               "layers): change it with obstacles (area = n marks an area)", what);
  if (nm_navmesh_is_frozen(h->mesh))
    luaL_error(L, "NavMesh:%s: navmesh is read-only (shared or mapped); publish a changed copy with "
               "share(name, { replace = true })", what);
}

/* ---- mesh methods: lifetime, info, files ---- */

static int mesh_close(lua_State *L) {
  lnm_handle_close((lnm_mesh *)luaL_checkudata(L, 1, LNM_MESH));
  return 0;
}

static int mesh_tostring(lua_State *L) {
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
static int mesh_info(lua_State *L) {
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

/* ---- registration ---- */

static const luaL_Reg handle_methods[] = {
  {"close", mesh_close},
  {"info", mesh_info},
  {NULL, NULL}
};

/* The NavMesh class (close is also __gc and __close); the other
 * lnavmesh_*.c files add their methods to it. */
void lnm_open_navmesh_handle(lua_State *L) {
  lnm_object_class(L, LNM_MESH, handle_methods, mesh_close, mesh_tostring);
}
