/* lfilter.c -- the Filter object: navmesh.filter{...} and its methods
 * (which polygons a query may enter and what each step costs). */
#include "lnm.h"

static int filter_read_toolbox(lua_State *L, int t, nm_filter *f);

/* ---- filters ---- */

/* navmesh.filter{include=, exclude=, areaCost={[area]=cost}} */
static int navmesh_filter(lua_State *L) {
  static const char *const keys[] = {"include", "exclude", "areaCost", "areaChangeCost",
                                     "heuristicScale", NULL};
  nm_filter *f;
  int t = lnm_opt_table(L, 1, keys);
  f = (nm_filter *)lua_newuserdata(L, sizeof *f);
  nm_filter_init(f);
  luaL_setmetatable(L, LNM_FILTER);
  if (!t) return 1;
  f->include_flags = (uint16_t)lnm_field_int(L, t, "include", 0xffff, 0, 0xffff);
  f->exclude_flags = (uint16_t)lnm_field_int(L, t, "exclude", 0, 0, 0xffff);
  lua_getfield(L, t, "areaCost");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1))
      lnm_opterror(L, "areaCost", "table {[area] = cost} expected, got %s", lnm_got(L, lua_gettop(L)));
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_Number k = lua_tonumber(L, -2), v = lua_tonumber(L, -1);
      if (lua_type(L, -2) != LUA_TNUMBER || k != floor(k) || k < 0 || k >= NM_MAX_AREAS)
        lnm_opterror(L, "areaCost", "keys must be areas 0..63, got %s", lnm_got(L, lua_gettop(L) - 1));
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(v) || v < 0) {
        const char *got = lnm_got(L, lua_gettop(L));
        lnm_opterror(L, lua_pushfstring(L, "areaCost[%d]", (int)k), "costs must be finite numbers >= 0, got %s", got);
      }
      f->area_cost[(int)k] = (float)v;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  filter_read_toolbox(L, t, f);
  return 1;
}

/* filter:areaCost(area [, cost]) -> cost */
static int filter_area_cost(lua_State *L) {
  nm_filter *f = (nm_filter *)luaL_checkudata(L, 1, LNM_FILTER);
  lua_Integer area = lnm_checkinteger(L, 2);
  if (area < 0 || area >= NM_MAX_AREAS) luaL_argerror(L, 2, lua_pushfstring(L, "area in 0..63 expected, got %s", lnm_got(L, 2)));
  if (!lua_isnoneornil(L, 3)) {
    lua_Number c = luaL_checknumber(L, 3);
    if (!isfinite(c) || c < 0)
      luaL_argerror(L, 3, lua_pushfstring(L, "cost must be a finite number >= 0, got %s", lnm_got(L, 3)));
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
    if (n < 0 || n > 0xffff) luaL_argerror(L, 2, lua_pushfstring(L, "flags in 0..65535 expected, got %s", lnm_got(L, 2)));
    *v = (uint16_t)n;
  }
  lua_pushinteger(L, *v);
  return 1;
}
static int filter_include(lua_State *L) { return filter_flags(L, 0); }
static int filter_exclude(lua_State *L) { return filter_flags(L, 1); }

/* ---- filter extras: areaChangeCost, heuristicScale ---- */

/* An area key of areaChangeCost: 0..63 or "*" (any area), at stack index
 * idx: argument idx of a method when arg is set, else a key of the option. */
static int check_change_area(lua_State *L, int idx, int arg) {
  lua_Number a;
  if (lua_type(L, idx) == LUA_TSTRING && strcmp(lua_tostring(L, idx), "*") == 0) return NM_AREA_ANY;
  a = lua_tonumber(L, idx);
  if (lua_type(L, idx) != LUA_TNUMBER || a != floor(a) || a < 0 || a >= NM_MAX_AREAS) {
    if (arg) luaL_argerror(L, idx, lua_pushfstring(L, "area 0..63 or \"*\" expected, got %s", lnm_got(L, idx)));
    lnm_opterror(L, "areaChangeCost", "areas must be 0..63 or \"*\", got %s", lnm_got(L, idx));
  }
  return (int)a;
}

/* Sets one area-change cost, raising on bad values or a full filter. */
static void set_change(lua_State *L, nm_filter *f, int from, int to, lua_Number cost) {
  if (!isfinite(cost) || cost < 0)
    lnm_opterror(L, "areaChangeCost", "costs must be finite numbers >= 0, got %s", lnm_number(L, cost));
  if (nm_filter_set_area_change(f, from, to, (float)cost) < 0)
    lnm_opterror(L, "areaChangeCost", "at most %d area pairs", NM_MAX_AREA_CHANGES);
}

/* Reads areaChangeCost = {[from] = {[to] = cost}} and heuristicScale from
 * the filter options table t. */
static int filter_read_toolbox(lua_State *L, int t, nm_filter *f) {
  f->heuristic_scale = (float)lnm_field_number(L, t, "heuristicScale", f->heuristic_scale, 0);
  lua_getfield(L, t, "areaChangeCost");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); return 0; }
  if (!lua_istable(L, -1))
    lnm_opterror(L, "areaChangeCost", "table {[from] = {[to] = cost}} expected, got %s", lnm_got(L, lua_gettop(L)));
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    int from = check_change_area(L, lua_gettop(L) - 1, 0);
    if (!lua_istable(L, -1))
      lnm_opterror(L, "areaChangeCost", "{[from] = {[to] = cost}} expected, got %s at [from]", lnm_got(L, lua_gettop(L)));
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -1) != LUA_TNUMBER)
        lnm_opterror(L, "areaChangeCost", "costs must be numbers, got %s", lnm_got(L, lua_gettop(L)));
      set_change(L, f, from, check_change_area(L, lua_gettop(L) - 1, 0), lua_tonumber(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

/* filter:areaChangeCost(from, to [, cost]) -> cost (areas 0..63 or "*") */
static int filter_area_change(lua_State *L) {
  nm_filter *f = (nm_filter *)luaL_checkudata(L, 1, LNM_FILTER);
  int from = check_change_area(L, 2, 1), to = check_change_area(L, 3, 1);
  if (!lua_isnoneornil(L, 4)) set_change(L, f, from, to, luaL_checknumber(L, 4));
  lua_pushnumber(L, nm_filter_area_change(f, from, to));
  return 1;
}

/* filter:heuristicScale([scale]) -> scale (A* heuristic weight, 0.999 default) */
static int filter_heuristic_scale(lua_State *L) {
  nm_filter *f = (nm_filter *)luaL_checkudata(L, 1, LNM_FILTER);
  if (!lua_isnoneornil(L, 2)) {
    lua_Number v = luaL_checknumber(L, 2);
    if (!isfinite(v) || v < 0) luaL_argerror(L, 2, lua_pushfstring(L, "scale must be a finite number >= 0, got %s", lnm_got(L, 2)));
    f->heuristic_scale = (float)v;
  }
  lua_pushnumber(L, f->heuristic_scale);
  return 1;
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

/* ---- registration ---- */

static const luaL_Reg filter_methods[] = {
  {"areaCost", filter_area_cost},
  {"include", filter_include},
  {"exclude", filter_exclude},
  {"areaChangeCost", filter_area_change},
  {"heuristicScale", filter_heuristic_scale},
  {NULL, NULL}
};

/* The Filter class and navmesh.filter. */
void lnm_open_filter(lua_State *L) {
  lnm_new_class(L, LNM_FILTER);
  lnm_add_methods(L, LNM_FILTER, filter_methods);
  lua_pushcfunction(L, navmesh_filter);
  lua_setfield(L, -2, "filter");
}
