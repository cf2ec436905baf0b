/* lcache.c -- the TileCache object (Detour's dtTileCache: temporary
 * obstacles): navmesh.buildCache, navmesh.loadCache / loadCacheString,
 * obstacles (add, remove, move, list), update with a budget, save, info,
 * and publishing its navmesh to other Lua states and threads (share).
 *
 * A cache owns its navmesh (src/tilecache). The NavMesh handle made with it
 * reads that navmesh and follows it: in place while the cache is private;
 * once shared, the navmesh is published as versions (each update that
 * changed tiles publishes the next one, copying only the changed tiles) and
 * the handle is moved to each new version. The handle holds its own
 * references, so it stays usable after the cache is closed or collected;
 * the cache keeps the handle (a registry reference) to move it. */
#include "lnm.h"
#include "registry.h"

#define LNM_CACHE "navmesh.TileCache"

typedef struct lnm_cache {
  nm_cache *c;               /* NULL once closed */
  nm_alloc alloc;            /* the state's, through its account */
  size_t charged;            /* bytes charged to the collector */
  int mesh_ref;              /* registry reference to its NavMesh handle */
  size_t name_len;           /* > 0: shared under name */
  char name[LNM_REG_MAX_NAME + 1];
} lnm_cache;

static const char *const kinds[] = {"cylinder", "box", "obox", "convex", NULL};

/* ---- the object ---- */

/* The open cache at idx; raises on a closed one. */
static lnm_cache *check_cache(lua_State *L, int idx) {
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

/* For caches built elsewhere (ljob.c): pushes an empty cache object whose
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

static int lnm_build_cache(lua_State *L) {
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
static int lnm_load_cache_string(lua_State *L) {
  size_t len;
  const char *bytes = luaL_checklstring(L, 1, &len);
  int opts = lnm_opt_table(L, 2, load_keys);
  return load_bytes(L, bytes, len, opts, "loadCacheString");
}

/* navmesh.loadCache(path [, opts]) -> cache, mesh | nil, msg, code: a
 * RecastDemo tile cache file (TSET, FastLZ layers). */
static int lnm_load_cache(lua_State *L) {
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

/* ---- obstacle shapes ---- */

/* A required {x, y, z} option of the shape table at t. */
static void shape_vec3(lua_State *L, int t, const char *key, const char *kind, float v[3]) {
  if (!lnm_subfield_vec3(L, t, NULL, key, v))
    lnm_opterror(L, key, "{x, y, z} required for a %s, got nil", kind);
}

/* A required number option >= lo of the shape table at t. */
static float shape_number(lua_State *L, int t, const char *key, const char *kind, lua_Number lo) {
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) lnm_opterror(L, key, "number required for a %s, got nil", kind);
  lua_pop(L, 1);
  return (float)lnm_field_number(L, t, key, 0, lo);
}

/* Raises for a key of the shape table at t that its kind does not use. */
static void check_shape_keys(lua_State *L, int t, int kind) {
  static const char *const keys[4][11] = {
    {"kind", "area", "padding", "id", "state", "center", "radius", "height", NULL},
    {"kind", "area", "padding", "id", "state", "bmin", "bmax", NULL},
    {"kind", "area", "padding", "id", "state", "center", "halfExtents", "yaw", NULL},
    {"kind", "area", "padding", "id", "state", "vertices", "hmin", "hmax", NULL}};
  lnm_check_keys(L, t, keys[kind]);
}

/* The outline of a convex shape into verts [3 * 64] (y ignored). */
static int shape_outline(lua_State *L, int t, float *verts) {
  int i, n, list;
  lua_getfield(L, t, "vertices");
  list = lua_gettop(L);
  if (!lua_istable(L, list)) lnm_opterror(L, "vertices", "{x,y,z, ...} required for a convex, got %s", lnm_got(L, list));
  n = (int)lua_rawlen(L, list);
  if (n % 3 || n < 9 || n > 3 * 64)
    lnm_opterror(L, "vertices", "3 to 64 points {x,y,z, ...} expected, got a list of %d numbers", n);
  for (i = 0; i < n; i++) {
    lua_Number x;
    lua_rawgeti(L, list, i + 1);
    x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38)
      lnm_opterror(L, "vertices", "item %d: finite number expected, got %s", i + 1, lnm_got(L, lua_gettop(L)));
    verts[i] = (float)x;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return n / 3;
}

/* The obstacle of the shape table at idx (verts: room for its outline).
 * Raises on every bad value (NaN, negative sizes, bmin > bmax, ...). */
static void read_shape(lua_State *L, int idx, nm_obstacle *ob, float *verts) {
  int k;
  luaL_checktype(L, idx, LUA_TTABLE);
  memset(ob, 0, sizeof *ob);
  lua_getfield(L, idx, "kind");
  for (k = 0; kinds[k] && !(lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), kinds[k]) == 0); k++) {}
  if (!kinds[k])
    lnm_opterror(L, "kind", "\"cylinder\", \"box\", \"obox\" or \"convex\" expected, got %s", lnm_got(L, lua_gettop(L)));
  lua_pop(L, 1);
  check_shape_keys(L, idx, k);
  ob->kind = k == 0 ? NM_OBSTACLE_CYLINDER : k == 1 ? NM_OBSTACLE_BOX : k == 2 ? NM_OBSTACLE_ORIENTED_BOX
                                                                               : NM_OBSTACLE_PRISM;
  ob->area = (int)lnm_field_int(L, idx, "area", 0, 0, 63);
  ob->padding = (float)lnm_field_number(L, idx, "padding", 0, 0);
  if (k == 0) {
    shape_vec3(L, idx, "center", kinds[k], ob->pos);
    ob->radius = shape_number(L, idx, "radius", kinds[k], 0);
    ob->height = shape_number(L, idx, "height", kinds[k], 0);
  } else if (k == 1) {
    int i;
    shape_vec3(L, idx, "bmin", kinds[k], ob->bmin);
    shape_vec3(L, idx, "bmax", kinds[k], ob->bmax);
    for (i = 0; i < 3; i++)
      if (ob->bmin[i] > ob->bmax[i])
        lnm_opterror(L, "bmin", "bmin <= bmax expected, got %s > %s on axis %d", lnm_number(L, ob->bmin[i]),
                     lnm_number(L, ob->bmax[i]), i + 1);
  } else if (k == 2) {
    shape_vec3(L, idx, "center", kinds[k], ob->center);
    if (!lnm_subfield_vec3(L, idx, NULL, "halfExtents", ob->half_extents))
      lnm_opterror(L, "halfExtents", "{x, y, z} required for an obox, got nil");
    if (ob->half_extents[0] < 0 || ob->half_extents[1] < 0 || ob->half_extents[2] < 0)
      lnm_opterror(L, "halfExtents", "half extents >= 0 expected, got {%s, %s, %s}", lnm_number(L, ob->half_extents[0]),
                   lnm_number(L, ob->half_extents[1]), lnm_number(L, ob->half_extents[2]));
    ob->yaw = (float)lnm_field_number(L, idx, "yaw", 0, -1e6);
  } else {
    ob->nverts = shape_outline(L, idx, verts);
    ob->verts = verts;
    ob->hmin = shape_number(L, idx, "hmin", kinds[k], -HUGE_VAL);
    ob->hmax = shape_number(L, idx, "hmax", kinds[k], ob->hmin);
  }
}

/* Pushes obstacle id as the table addObstacle takes (plus id, state). */
static void push_shape(lua_State *L, uint32_t id, const nm_obstacle *ob, int state) {
  static const char *const states[] = {"pending", "placed", "removing"};
  int i;
  lua_createtable(L, 0, 8);
  lnm_set_int(L, "id", (lua_Integer)id);
  lua_pushstring(L, kinds[ob->kind == NM_OBSTACLE_PRISM ? 3 : ob->kind]);
  lua_setfield(L, -2, "kind");
  if (ob->kind == NM_OBSTACLE_CYLINDER) {
    lnm_set_vec(L, "center", ob->pos);
    lua_pushnumber(L, ob->radius);
    lua_setfield(L, -2, "radius");
    lua_pushnumber(L, ob->height);
    lua_setfield(L, -2, "height");
  } else if (ob->kind == NM_OBSTACLE_BOX) {
    lnm_set_vec(L, "bmin", ob->bmin);
    lnm_set_vec(L, "bmax", ob->bmax);
  } else if (ob->kind == NM_OBSTACLE_ORIENTED_BOX) {
    lnm_set_vec(L, "center", ob->center);
    lnm_set_vec(L, "halfExtents", ob->half_extents);
    lua_pushnumber(L, ob->yaw);
    lua_setfield(L, -2, "yaw");
  } else {
    lua_createtable(L, 3 * ob->nverts, 0);
    for (i = 0; i < ob->nverts; i++) {
      lua_pushnumber(L, ob->verts[i * 3]);
      lua_rawseti(L, -2, i * 3 + 1);
      lua_pushnumber(L, ob->hmin);
      lua_rawseti(L, -2, i * 3 + 2);
      lua_pushnumber(L, ob->verts[i * 3 + 2]);
      lua_rawseti(L, -2, i * 3 + 3);
    }
    lua_setfield(L, -2, "vertices");
    lua_pushnumber(L, ob->hmin);
    lua_setfield(L, -2, "hmin");
    lua_pushnumber(L, ob->hmax);
    lua_setfield(L, -2, "hmax");
  }
  lnm_set_int(L, "area", ob->area);
  lua_pushnumber(L, ob->padding);
  lua_setfield(L, -2, "padding");
  lua_pushstring(L, states[state]);
  lua_setfield(L, -2, "state");
}

/* ---- obstacles ---- */

/* An obstacle id argument (an integer in 1..2^32-1). */
static uint32_t check_id(lua_State *L, int idx) {
  lua_Integer id = lnm_checkinteger(L, idx);
  if (id <= 0 || id > (lua_Integer)0xffffffffu)
    luaL_argerror(L, idx, lua_pushfstring(L, "obstacle id expected, got %s", lnm_got(L, idx)));
  return (uint32_t)id;
}

/* Pushes nil, "<what>: no obstacle <id> ...", "ERR_NOT_FOUND". */
static int push_unknown(lua_State *L, const char *what, uint32_t id) {
  lua_pushnil(L);
  lua_pushfstring(L, "%s: no obstacle %s (unknown id, or removed already)", what, lnm_number(L, (lua_Number)id));
  lua_remove(L, -2);
  lua_pushliteral(L, "ERR_NOT_FOUND");
  return 3;
}

/* cache:addObstacle{ kind = ..., ... } -> id | nil, msg, "ERR_FULL" */
static int cache_add_obstacle(lua_State *L) {
  lnm_cache *lc = check_cache(L, 1);
  float verts[3 * 64];
  nm_obstacle ob;
  uint32_t id = 0;
  nm_status st;
  read_shape(L, 2, &ob, verts);
  if ((st = nm_cache_add_obstacle(lc->c, &ob, &id)) == NM_ERR_FULL) {
    nm_cache_info info;
    nm_cache_get_info(lc->c, &info);
    lua_pushnil(L);
    lua_pushfstring(L, "addObstacle: all %d obstacle slots are in use (maxObstacles; removed obstacles free "
                    "their slot at the update that takes them out)", info.max_obstacles);
    lua_pushstring(L, nm_status_name(st));
    return 3;
  }
  if (st < 0) lnm_raise_status(L, "addObstacle", st, NULL);
  lua_pushinteger(L, (lua_Integer)id);
  return 1;
}

/* cache:removeObstacle(id) -> true | nil, msg, "ERR_NOT_FOUND" */
static int cache_remove_obstacle(lua_State *L) {
  lnm_cache *lc = check_cache(L, 1);
  uint32_t id = check_id(L, 2);
  if (nm_cache_remove_obstacle(lc->c, id) < 0) return push_unknown(L, "removeObstacle", id);
  lua_pushboolean(L, 1);
  return 1;
}

/* cache:moveObstacle(id, shape) -> true | nil, msg, "ERR_NOT_FOUND": a new
 * shape (any kind) for obstacle id; each layer of the old and the new place
 * is rebuilt once. */
static int cache_move_obstacle(lua_State *L) {
  lnm_cache *lc = check_cache(L, 1);
  uint32_t id = check_id(L, 2);
  float verts[3 * 64];
  nm_obstacle ob;
  nm_status st;
  read_shape(L, 3, &ob, verts);
  if ((st = nm_cache_move_obstacle(lc->c, id, &ob)) == NM_ERR_PARAM) return push_unknown(L, "moveObstacle", id);
  if (st < 0) lnm_raise_status(L, "moveObstacle", st, NULL);
  lua_pushboolean(L, 1);
  return 1;
}

/* cache:obstacles() -> { {id=, kind=, ...shape..., area=, padding=,
 * state="pending"|"placed"|"removing"}, ... } in slot order: the shapes
 * navmesh.debug draws. */
static int cache_obstacles(lua_State *L) {
  lnm_cache *lc = check_cache(L, 1);
  int i, n = nm_cache_obstacle_ids(lc->c, NULL, 0);
  uint32_t *ids = (uint32_t *)lnm_scratch(L, (size_t)(n > 0 ? n : 1) * sizeof(uint32_t));
  nm_cache_obstacle_ids(lc->c, ids, n);
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    nm_obstacle ob;
    int state = 0;
    nm_cache_get_obstacle(lc->c, ids[i], &ob, &state);
    push_shape(L, ids[i], &ob, state);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* cache:getObstacle(id) -> shape table | nil, msg, "ERR_NOT_FOUND" */
static int cache_get_obstacle(lua_State *L) {
  lnm_cache *lc = check_cache(L, 1);
  uint32_t id = check_id(L, 2);
  nm_obstacle ob;
  int state = 0;
  if (nm_cache_get_obstacle(lc->c, id, &ob, &state) < 0) return push_unknown(L, "getObstacle", id);
  push_shape(L, id, &ob, state);
  return 1;
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
  lnm_cache *lc = check_cache(L, 1);
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
  lnm_cache *lc = check_cache(L, 1);
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
  lnm_cache *lc = check_cache(L, 1);
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
  lnm_cache *lc = check_cache(L, 1);
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
  lnm_cache *lc = check_cache(L, 1);
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
  lnm_cache *lc = check_cache(L, 1);
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
  {"addObstacle", cache_add_obstacle},
  {"removeObstacle", cache_remove_obstacle},
  {"moveObstacle", cache_move_obstacle},
  {"getObstacle", cache_get_obstacle},
  {"obstacles", cache_obstacles},
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
  {"buildCache", lnm_build_cache},
  {"loadCache", lnm_load_cache},
  {"loadCacheString", lnm_load_cache_string},
  {NULL, NULL}
};

/* The TileCache class (close is also __gc and __close) and its makers. */
void lnm_open_cache(lua_State *L) {
  lnm_object_class(L, LNM_CACHE, cache_methods, cache_close, cache_tostring);
  luaL_setfuncs(L, cache_funcs, 0);
}
