/* ltilecache.c -- the TileCache object (Detour's dtTileCache: temporary
 * obstacles): navmesh.buildCache, navmesh.loadCache / loadCacheString,
 * update with a budget, save, info,
 * and publishing its navmesh to other Lua states and threads (share).
 *
 * A cache owns its navmesh (src/tilecache). The NavMesh handle made with it
 * reads that navmesh and follows it: in place while the cache is private;
 * once shared, the navmesh is published as versions (each update that
 * changed tiles publishes the next one, copying only the changed tiles) and
 * the handle is moved to each new version. The handle holds its own
 * references, so it stays usable after the cache is closed or collected;
 * the cache keeps the handle (a registry reference) to move it. Obstacles
 * are ltilecache_obstacles.c. */
#include "ltilecache.h"

/* ---- the object ---- */

lnm_cache *lnm_check_cache(lua_State *L, int idx) {
  lnm_cache *lc = (lnm_cache *)luaL_checkudata(L, idx, LNM_CACHE);
  if (!lc->c) luaL_error(L, "%s: attempt to use a closed " LNM_CACHE, lnm_fname(L, "TileCache"));
  return lc;
}

/* Pushes a new, empty cache object (its allocator the state's account). */
static lnm_cache *new_cache(lua_State *L) {
  lnm_cache *lc = (lnm_cache *)lua_newuserdata(L, sizeof *lc);
  memset(lc, 0, sizeof *lc);
  lc->mesh_ref = LUA_NOREF;
  luaL_setmetatable(L, LNM_CACHE);
  lnm_acct_alloc(L, &lc->alloc);
  return lc;
}

/* For caches built elsewhere (lbuildjob.c): pushes an empty cache object whose
 * cache will live in alloc's memory; returns where to put the cache. */
nm_cache **lnm_cache_push_empty(lua_State *L, const nm_alloc *alloc) {
  lnm_cache *lc = new_cache(L);
  lc->alloc = *alloc;
  return &lc->c;
}

/* Its NavMesh handle (pushed; nil once dropped). */
static lnm_mesh *push_handle(lua_State *L, lnm_cache *lc) {
  if (lc->mesh_ref == LUA_NOREF) {
    lua_pushnil(L);
    return NULL;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, lc->mesh_ref);
  return (lnm_mesh *)luaL_testudata(L, -1, LNM_MESH);
}

static int cache_close(lua_State *L) {
  lnm_cache *lc = (lnm_cache *)luaL_checkudata(L, 1, LNM_CACHE);
  if (lc->mesh_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, lc->mesh_ref);
  lc->mesh_ref = LUA_NOREF;
  lnm_gc_refund(&lc->alloc, &lc->charged);
  nm_cache_free(lc->c);
  lc->c = NULL;
  return 0;
}

static int cache_tostring(lua_State *L) {
  lnm_cache *lc = (lnm_cache *)luaL_checkudata(L, 1, LNM_CACHE);
  nm_cache_info info;
  if (!lc->c) {
    lua_pushliteral(L, LNM_CACHE " (closed)");
    return 1;
  }
  nm_cache_get_info(lc->c, &info);
  lua_pushfstring(L, LNM_CACHE " (%d layers, %d obstacles): %p", info.layers, info.obstacles, (void *)lc);
  return 1;
}

/* Finishes making a cache: charges the collector for what it took since
 * `mark`, makes its NavMesh handle (maxNodes nodes) and pushes the cache (at
 * idx) and the handle. Returns 2. */
static int push_made(lua_State *L, int idx, lnm_cache *lc, size_t mark, int nodes) {
  nm_navmesh *mesh = nm_cache_navmesh(lc->c);
  size_t now = lnm_alloc_bytes(&lc->alloc);
  lnm_mesh *h;
  lnm_gc_charge_to(L, &lc->alloc, &lc->charged, now > mark ? now - mark : 0);
  lua_pushvalue(L, idx);
  h = lnm_new_handle(L);
  nm_navmesh_retain(mesh);
  lnm_handle_attach(L, h, mesh, nodes);
  h->cached = 1;
  h->sysmem = lc->alloc.fn != h->alloc.fn; /* a cache built by a job lives in system memory */
  lua_pushvalue(L, -1);
  lc->mesh_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 2;
}

/* Finishes a cache object at idx made by lnm_cache_push_empty whose cache
 * is in place: pushes it and its NavMesh handle (maxNodes nodes). */
int lnm_cache_finish(lua_State *L, int idx, int nodes) {
  lnm_cache *lc = (lnm_cache *)luaL_checkudata(L, idx, LNM_CACHE);
  return push_made(L, idx, lc, lnm_alloc_bytes(&lc->alloc), nodes);
}

/* ---- options ---- */

static const char *const cache_keys[] = {"maxObstacles", "obstaclePadding", NULL};

/* The rules of a cache from an options table at t (0: defaults):
 * obstaclePadding and areaFlags ({ [polygon area] = flags }). */
static void read_rules(lua_State *L, int t, nm_cache_rules *r) {
  uint16_t flags[NM_MAX_AREAS];
  int i;
  nm_cache_rules_init(r);
  if (!t) return;
  r->obstacle_padding = (float)lnm_field_number(L, t, "obstaclePadding", 0, 0);
  if (lnm_field_area_flags(L, t, flags))
    for (i = 0; i < 64; i++) r->poly_flags[i] = flags[r->poly_area[i]];
}

/* navmesh.buildCache(vertices, triangles [, config [, opts]]) -> cache,
 * mesh | nil, msg, code. config: navmesh.build's keys (tileSize default
 * 48) plus maxObstacles (1024) and obstaclePadding (0), read by
 * lnm_read_cache_config (also for navmesh.buildCacheJob). */
void lnm_read_cache_config(lua_State *L, int idx, int keep, nm_build_config *cfg, nm_cache_rules *rules,
                           int *max_obs, int *progress) {
  lnm_read_build_config(L, idx, keep, cfg, progress, cache_keys);
  if (lua_istable(L, idx)) lua_getfield(L, idx, "tileSize");
  else lua_pushnil(L);
  if (lua_isnil(L, -1)) cfg->tile_size = 48;
  lua_pop(L, 1);
  if (cfg->tile_size < 1 || cfg->tile_size > 255)
    lnm_opterror(L, "tileSize", "integer in 1..255 expected for a tile cache (layers are at most 255 cells a side), got %d",
                 cfg->tile_size);
  *max_obs = lua_istable(L, idx) ? (int)lnm_field_int(L, idx, "maxObstacles", 1024, 1, 65536) : 1024;
  read_rules(L, lua_istable(L, idx) ? idx : 0, rules);
}

static int navmesh_build_cache(lua_State *L) {
  nm_build_config cfg;
  nm_cache_rules rules;
  lnm_progress pr;
  nm_diag diag;
  nm_status st;
  lnm_cache *lc;
  const float *v;
  const int *t;
  int nv, nt, progress, keep, max_obs, idx, nodes;
  size_t mark;
  lua_settop(L, 4);
  lua_newtable(L);
  keep = lua_gettop(L);
  lnm_read_geometry(L, 1, 2, keep, &v, &nv, &t, &nt);
  lnm_read_cache_config(L, 3, keep, &cfg, &rules, &max_obs, &progress);
  nodes = lnm_opt_max_nodes(L, lnm_opt_table(L, 4, lnm_handle_opts));
  lc = new_cache(L);
  idx = lua_gettop(L);
  mark = lnm_alloc_bytes(&lc->alloc);
  lnm_progress_set(L, &cfg, progress, &pr);
  memset(&diag, 0, sizeof diag);
  st = nm_cache_build(v, nv, t, nt, &cfg, max_obs, &rules, &lc->alloc, &diag, &lc->c);
  lnm_progress_done(&pr);
  if (st == NM_ERR_EMPTY) return lnm_push_fail(L, "buildCache", st, &diag);
  if (st == NM_ERR_PARAM) luaL_argerror(L, 3, diag.msg);
  if (st < 0) lnm_raise_status(L, "buildCache", st, &diag);
  return push_made(L, idx, lc, mark, nodes);
}

static const char *const load_keys[] = {"maxNodes", "obstaclePadding", "areaFlags", NULL};

/* Loads TSET bytes into a new cache (pushed); pushes the outcome. */
static int load_bytes(lua_State *L, const char *bytes, size_t len, int opts, const char *what) {
  nm_cache_rules rules;
  nm_diag diag;
  nm_status st;
  lnm_cache *lc;
  size_t mark;
  int idx;
  read_rules(L, opts, &rules);
  lc = new_cache(L);
  idx = lua_gettop(L);
  mark = lnm_alloc_bytes(&lc->alloc);
  memset(&diag, 0, sizeof diag);
  if ((st = nm_cache_load(bytes, len, &rules, &lc->alloc, &diag, &lc->c)) < 0) {
    if (st == NM_ERR_NOMEM) lnm_raise_status(L, what, st, NULL);
    return lnm_push_fail(L, what, st, &diag);
  }
  return push_made(L, idx, lc, mark, lnm_opt_max_nodes(L, opts));
}

/* navmesh.loadCacheString(bytes [, opts]) -> cache, mesh | nil, msg, code */
static int navmesh_load_cache_string(lua_State *L) {
  size_t len;
  const char *bytes = luaL_checklstring(L, 1, &len);
  int opts = lnm_opt_table(L, 2, load_keys);
  return load_bytes(L, bytes, len, opts, "loadCacheString");
}

/* navmesh.loadCache(path [, opts]) -> cache, mesh | nil, msg, code: a
 * RecastDemo tile cache file (TSET, FastLZ layers). */
static int navmesh_load_cache(lua_State *L) {
  const char *path = luaL_checkstring(L, 1), *err = NULL, *what;
  int opts = lnm_opt_table(L, 2, load_keys), r;
  size_t len = 0, cap = 0;
  nm_alloc a;
  lnm_guard *g;
  char *buf;
  what = lua_pushfstring(L, "loadCache %s", path);
  a.fn = lua_getallocf(L, &a.ud); /* lnm_read_file's */
  g = lnm_guard_new(L, &a);
  if (!(buf = lnm_read_file(L, "loadCache", path, &len, &cap, &err))) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot open %s: %s", path, err);
    lua_pushstring(L, nm_status_name(NM_ERR_IO));
    return 3;
  }
  g->p = buf;
  g->size = cap;
  r = load_bytes(L, buf, len, opts, what);
  lnm_guard_free(g);
  return r;
}

/* ---- updates and publishing ---- */

/* After a change of the cache's navmesh from `before`: the NavMesh handle
 * moves to the new version, and the shared name gets it (if the name still
 * holds `before`; else the cache stops publishing under it). */
static void follow(lua_State *L, lnm_cache *lc, nm_navmesh *before) {
  nm_navmesh *now = nm_cache_navmesh(lc->c);
  lnm_mesh *h;
  if (now == before) return;
  h = push_handle(L, lc);
  if (h && h->mesh == before) lnm_handle_move(h, now);
  lua_pop(L, 1);
  if (lc->name_len && !lnm_registry_replace(lc->name, lc->name_len, before, now)) lc->name_len = 0;
}

/* cache:update([maxTiles]) -> upToDate, rebuilt | nil, msg, code: looks at
 * the obstacle requests, then rebuilds at most maxTiles (default: all) of
 * the layers waiting; upToDate when nothing is left to do. */
static int cache_update(lua_State *L) {
  lnm_cache *lc = lnm_check_cache(L, 1);
  lua_Integer max = lnm_optinteger(L, 2, 0);
  nm_navmesh *before = nm_cache_navmesh(lc->c);
  int done = 0, rebuilt = 0;
  nm_status st;
  nm_diag diag;
  if (max < 0 || max > 0x7fffffff)
    luaL_argerror(L, 2, lua_pushfstring(L, "tile count >= 0 expected (0: every pending tile), got %s", lnm_got(L, 2)));
  st = nm_cache_update(lc->c, (int)max, &done, &rebuilt);
  follow(L, lc, before);
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, "update", st, NULL);
  if (st < 0) {
    memset(&diag, 0, sizeof diag);
    if (st == NM_ERR_DATA) snprintf(diag.msg, sizeof diag.msg, "a layer could not be meshed and keeps its old tile");
    return lnm_push_fail(L, "update", st, &diag);
  }
  lua_pushboolean(L, done);
  lua_pushinteger(L, rebuilt);
  return 2;
}

/* cache:buildNavMeshTilesAt(tx, ty) -> true: rebuilds every layer of grid
 * cell (tx, ty) now (Detour's buildNavMeshTilesAt). */
static int cache_build_tiles_at(lua_State *L) {
  lnm_cache *lc = lnm_check_cache(L, 1);
  lua_Integer tx = lnm_checkinteger(L, 2), ty = lnm_checkinteger(L, 3);
  nm_navmesh *before = nm_cache_navmesh(lc->c);
  nm_status st;
  if (tx < -(1 << 28) || tx > (1 << 28) || ty < -(1 << 28) || ty > (1 << 28))
    luaL_argerror(L, 2, "tile coordinates within +-2^28 expected");
  st = nm_cache_build_tiles_at(lc->c, (int)tx, (int)ty);
  follow(L, lc, before);
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, "buildNavMeshTilesAt", st, NULL);
  if (st < 0) return lnm_push_fail(L, "buildNavMeshTilesAt", st, NULL);
  lua_pushboolean(L, 1);
  return 1;
}

/* cache:share(name) -> true | nil, msg, "ERR_EXISTS": publishes the
 * cache's navmesh under name (navmesh.open); from then on every update
 * that changes tiles publishes the next version under it, copying only the
 * changed tiles (handle:refresh() moves an opened handle to it). */
static int cache_share(lua_State *L) {
  lnm_cache *lc = lnm_check_cache(L, 1);
  size_t len;
  const char *name = luaL_checklstring(L, 2, &len);
  nm_navmesh *before = nm_cache_navmesh(lc->c);
  nm_status st;
  size_t held, now;
  int rc;
  lnm_mesh *h;
  if (len == 0 || len > LNM_REG_MAX_NAME)
    luaL_argerror(L, 2, lua_pushfstring(L, "name must be 1 to 255 bytes, got %d", (int)len));
  if (lc->name_len && !lnm_registry_taken(lc->name, lc->name_len, NULL)) lc->name_len = 0; /* unshared since */
  if (lc->name_len && (lc->name_len != len || memcmp(lc->name, name, len) != 0)) {
    lua_pushnil(L);
    lua_pushfstring(L, "share: this cache is shared as '%s' already (unshare that name first)", lc->name);
    lua_pushliteral(L, "ERR_EXISTS");
    return 3;
  }
  held = lnm_alloc_bytes(&lc->alloc);
  if ((st = nm_cache_use_versions(lc->c, lnm_registry_alloc())) < 0) lnm_raise_status(L, "share", st, NULL);
  follow(L, lc, before);
  now = lnm_alloc_bytes(&lc->alloc); /* the private navmesh went to system memory */
  lnm_gc_uncharge(&lc->alloc, &lc->charged, held > now ? held - now : 0);
  h = push_handle(L, lc);
  if (h) h->sysmem = 1;
  lua_pop(L, 1);
  rc = lnm_registry_put(name, len, nm_cache_navmesh(lc->c), 0);
  if (rc == LNM_REG_NOMEM) luaL_error(L, "share: not enough memory");
  if (rc != LNM_REG_OK) {
    lua_pushnil(L);
    lua_pushfstring(L, "share: a navmesh is already shared as '%s'", name);
    lua_pushliteral(L, "ERR_EXISTS");
    return 3;
  }
  memcpy(lc->name, name, len);
  lc->name[len] = '\0';
  lc->name_len = len;
  lua_pushboolean(L, 1);
  return 1;
}

/* ---- files and numbers ---- */

/* cache:saveString() -> bytes (a TSET file; obstacles are not saved) */
static int cache_save_string(lua_State *L) {
  lnm_cache *lc = lnm_check_cache(L, 1);
  lnm_guard *g = lnm_guard_new(L, &lc->alloc);
  void *bytes;
  size_t len;
  nm_status st = nm_cache_save(lc->c, &bytes, &len);
  if (st < 0) lnm_raise_status(L, "saveString", st, NULL);
  lnm_guard_push(L, g, bytes, len);
  return 1;
}

/* cache:save(path) -> true | nil, msg, "ERR_IO" */
static int cache_save(lua_State *L) {
  lnm_cache *lc = lnm_check_cache(L, 1);
  const char *path = luaL_checkstring(L, 2);
  lnm_guard *g = lnm_guard_new(L, &lc->alloc);
  void *bytes;
  size_t len;
  int n;
  nm_status st = nm_cache_save(lc->c, &bytes, &len);
  if (st < 0) lnm_raise_status(L, "save", st, NULL);
  g->p = bytes;
  g->size = len;
  n = lnm_write_file(L, path, bytes, len);
  lnm_guard_free(g);
  return n;
}

/* cache:info() -> {layers=, maxLayers=, obstacles=, maxObstacles=,
 * pendingLayers=, pendingRequests=, compressedBytes=, memoryBytes=,
 * tileSize=, cellSize=, cellHeight=, version=, shared=} */
static int cache_info(lua_State *L) {
  lnm_cache *lc = lnm_check_cache(L, 1);
  nm_cache_info info;
  nm_cache_params p;
  nm_cache_get_info(lc->c, &info);
  nm_cache_get_params(lc->c, &p);
  lua_createtable(L, 0, 14);
  lnm_set_int(L, "layers", info.layers);
  lnm_set_int(L, "maxLayers", info.max_layers);
  lnm_set_int(L, "obstacles", info.obstacles);
  lnm_set_int(L, "maxObstacles", info.max_obstacles);
  lnm_set_int(L, "pendingLayers", info.pending_layers);
  lnm_set_int(L, "pendingRequests", info.pending_requests);
  lnm_set_int(L, "compressedBytes", (lua_Integer)info.compressed_bytes);
  lnm_set_int(L, "memoryBytes", (lua_Integer)info.memory_bytes);
  lnm_set_int(L, "tileSize", p.width);
  lua_pushnumber(L, p.cell_size);
  lua_setfield(L, -2, "cellSize");
  lua_pushnumber(L, p.cell_height);
  lua_setfield(L, -2, "cellHeight");
  lnm_set_vec(L, "origin", p.orig);
  lnm_set_int(L, "version", nm_navmesh_version_number(nm_cache_navmesh(lc->c)));
  if (lc->name_len) {
    lua_pushlstring(L, lc->name, lc->name_len);
    lua_setfield(L, -2, "shared");
  }
  return 1;
}

/* ---- registration ---- */

static const luaL_Reg cache_methods[] = {
  {"update", cache_update},
  {"buildNavMeshTilesAt", cache_build_tiles_at},
  {"share", cache_share},
  {"save", cache_save},
  {"saveString", cache_save_string},
  {"info", cache_info},
  {"close", cache_close},
  {NULL, NULL}
};

static const luaL_Reg cache_funcs[] = {
  {"buildCache", navmesh_build_cache},
  {"loadCache", navmesh_load_cache},
  {"loadCacheString", navmesh_load_cache_string},
  {NULL, NULL}
};

/* The TileCache class (close is also __gc and __close) and its makers. */
void lnm_open_tilecache(lua_State *L) {
  lnm_object_class(L, LNM_CACHE, cache_methods, cache_close, cache_tostring);
  luaL_setfuncs(L, cache_funcs, 0);
}
