/* ltilecache_obstacles.c -- a TileCache's temporary obstacles: their
 * shapes (cylinder, box, oriented box, convex prism) read from and pushed
 * as tables, and addObstacle, removeObstacle, moveObstacle, obstacles,
 * getObstacle. */
#include "ltilecache.h"

static const char *const kinds[] = {"cylinder", "box", "obox", "convex", NULL};

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
  lnm_cache *lc = lnm_check_cache(L, 1);
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
  lnm_cache *lc = lnm_check_cache(L, 1);
  uint32_t id = check_id(L, 2);
  if (nm_cache_remove_obstacle(lc->c, id) < 0) return push_unknown(L, "removeObstacle", id);
  lua_pushboolean(L, 1);
  return 1;
}

/* cache:moveObstacle(id, shape) -> true | nil, msg, "ERR_NOT_FOUND": a new
 * shape (any kind) for obstacle id; each layer of the old and the new place
 * is rebuilt once. */
static int cache_move_obstacle(lua_State *L) {
  lnm_cache *lc = lnm_check_cache(L, 1);
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
  lnm_cache *lc = lnm_check_cache(L, 1);
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
  lnm_cache *lc = lnm_check_cache(L, 1);
  uint32_t id = check_id(L, 2);
  nm_obstacle ob;
  int state = 0;
  if (nm_cache_get_obstacle(lc->c, id, &ob, &state) < 0) return push_unknown(L, "getObstacle", id);
  push_shape(L, id, &ob, state);
  return 1;
}

/* ---- registration ---- */

static const luaL_Reg obstacle_methods[] = {
  {"addObstacle", cache_add_obstacle},
  {"removeObstacle", cache_remove_obstacle},
  {"moveObstacle", cache_move_obstacle},
  {"getObstacle", cache_get_obstacle},
  {"obstacles", cache_obstacles},
  {NULL, NULL}
};

void lnm_open_tilecache_obstacles(lua_State *L) {
  lnm_add_methods(L, LNM_CACHE, obstacle_methods);
}
