/* lbuild.c -- building from triangles: navmesh.build, navmesh.buildObj,
 * navmesh.parseObj (config tables in, a NavMesh and stats out; the
 * pipeline itself is src/build/). */
#include "lnm.h"

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
  if (!lnm_field_vec3(L, v, key, out)) luaL_error(L, "bad area volume %d ('%s' {x, y, z} required)", i, key);
}

/* One area volume table {kind=, area=, ...shape...}. */
static void read_volume(lua_State *L, int v, int i, int keep, nm_area_volume *out) {
  static const char *const keys[] = {"kind", "area", "vertices", "hmin", "hmax", "bmin", "bmax",
                                     "center", "radius", "height", NULL};
  static const char *const kinds[] = {"convex", "box", "cylinder", NULL};
  int k;
  lnm_check_keys(L, v, keys);
  lua_getfield(L, v, "kind");
  for (k = 0; kinds[k] && !(lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), kinds[k]) == 0); k++) {}
  if (!kinds[k]) luaL_error(L, "bad area volume %d (kind must be \"convex\", \"box\" or \"cylinder\")", i);
  lua_pop(L, 1);
  out->kind = k;
  out->area = (int)lnm_field_int(L, v, "area", 0, -1, 62);
  if (k == NM_VOLUME_CONVEX) {
    lua_getfield(L, v, "vertices");
    if (!lua_istable(L, -1)) luaL_error(L, "bad area volume %d ('vertices' {x,y,z, ...} required)", i);
    out->verts = (const float *)arg_triples(L, lua_gettop(L), keep, -1, &out->nverts);
    lua_pop(L, 1);
    if (out->nverts < 3) luaL_error(L, "bad area volume %d (at least 3 vertices)", i);
    out->hmin = (float)lnm_field_number(L, v, "hmin", -HUGE_VAL, -HUGE_VAL);
    out->hmax = (float)lnm_field_number(L, v, "hmax", HUGE_VAL, -HUGE_VAL);
    if (!isfinite(out->hmin) || !isfinite(out->hmax) || out->hmin > out->hmax)
      luaL_error(L, "bad area volume %d (finite hmin <= hmax required)", i);
  } else if (k == NM_VOLUME_BOX) {
    volume_vec3(L, v, i, "bmin", out->bmin);
    volume_vec3(L, v, i, "bmax", out->bmax);
  } else {
    volume_vec3(L, v, i, "center", out->center);
    out->radius = (float)lnm_field_number(L, v, "radius", 0, 0);
    out->height = (float)lnm_field_number(L, v, "height", 0, 0);
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
  c->cell_size = (float)lnm_field_number(L, t, "cellSize", c->cell_size, 0);
  c->cell_height = (float)lnm_field_number(L, t, "cellHeight", c->cell_height, 0);
  c->agent_height = (float)lnm_field_number(L, t, "agentHeight", c->agent_height, 0);
  c->agent_radius = (float)lnm_field_number(L, t, "agentRadius", c->agent_radius, 0);
  c->agent_max_climb = (float)lnm_field_number(L, t, "agentMaxClimb", c->agent_max_climb, 0);
  c->agent_max_slope = (float)lnm_field_number(L, t, "agentMaxSlope", c->agent_max_slope, 0);
  c->region_min_size = (float)lnm_field_number(L, t, "regionMinSize", c->region_min_size, 0);
  c->region_merge_size = (float)lnm_field_number(L, t, "regionMergeSize", c->region_merge_size, 0);
  c->edge_max_len = (float)lnm_field_number(L, t, "edgeMaxLen", c->edge_max_len, 0);
  c->edge_max_error = (float)lnm_field_number(L, t, "edgeMaxError", c->edge_max_error, 0);
  c->detail_sample_dist = (float)lnm_field_number(L, t, "detailSampleDist", c->detail_sample_dist, 0);
  c->detail_sample_max_error = (float)lnm_field_number(L, t, "detailSampleMaxError", c->detail_sample_max_error, 0);
}

/* Config table at idx (nil = defaults) into c; *progress gets the stack
 * index of the progress function (0 when none). Raises on unknown keys and
 * wrong types; ranges are checked by the core (raised as well). */
static void read_build_config(lua_State *L, int idx, int keep, nm_build_config *c, int *progress) {
  nm_build_config_init(c);
  *progress = 0;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lnm_check_keys(L, idx, build_keys);
  read_build_numbers(L, idx, c);
  c->verts_per_poly = (int)lnm_field_int(L, idx, "vertsPerPoly", 6, 0, 1000);
  c->tile_size = (int)lnm_field_int(L, idx, "tileSize", 0, 0, 1 << 20);
  c->threads = (int)lnm_field_int(L, idx, "threads", 1, 1, 64);
  c->memory_limit = (size_t)lnm_field_number(L, idx, "memoryLimit", 0, 0);
  c->partition = field_partition(L, idx);
  c->filter_low_hanging = field_bool(L, idx, "filterLowHangingObstacles", 1);
  c->filter_ledges = field_bool(L, idx, "filterLedgeSpans", 1);
  c->filter_low_height = field_bool(L, idx, "filterWalkableLowHeightSpans", 1);
  field_bounds(L, idx, c);
  read_volumes(L, idx, keep, c);
  c->offmesh = lnm_field_offmesh(L, idx, &c->noffmesh);
  if (c->offmesh) lua_rawseti(L, keep, (int)lua_rawlen(L, keep) + 1); /* its lnm_scratch block, pushed */
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
  lnm_set_int(L, "tiles", s->tiles);
  lnm_set_int(L, "polys", s->polys);
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
  int nodes = lnm_opt_max_nodes(L, lnm_opt_table(L, opts_arg, lnm_handle_opts)), hidx;
  lnm_mesh *h = lnm_new_handle(L);
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
  if (st == NM_ERR_EMPTY) return lnm_push_fail(L, what, st, &diag);
  if (st == NM_ERR_PARAM) luaL_argerror(L, cfg_arg, diag.msg);
  if (st < 0) lnm_raise_status(L, what, st, &diag);
  lnm_handle_attach(L, h, mesh, nodes);
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
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, "parseObj", st, NULL);
  if (st < 0) return lnm_push_fail(L, "parseObj", st, &diag);
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
  lnm_opt_table(L, 3, lnm_handle_opts);
  what = lua_pushfstring(L, "buildObj %s", path);
  o = new_obj(L);
  if (!(buf = lnm_read_file(L, what, path, &len, &cap, &err))) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot open %s: %s", path, err);
    lua_pushstring(L, nm_status_name(NM_ERR_IO));
    return 3;
  }
  memset(&diag, 0, sizeof diag);
  st = nm_obj_parse(buf, len, &o->a, &diag, &o->v, &o->nv, &o->t, &o->nt);
  fn(ud, buf, cap, 0);
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, what, st, NULL);
  if (st < 0) return lnm_push_fail(L, what, st, &diag);
  return build_and_push(L, o->v, o->nv, o->t, o->nt, &c, progress, 2, 3, "buildObj");
}

/* ---- registration ---- */

static const luaL_Reg build_funcs[] = {
  {"build", lnm_build},
  {"buildObj", lnm_build_obj},
  {"parseObj", lnm_parse_obj},
  {NULL, NULL}
};

void lnm_open_build(lua_State *L) {
  luaL_setfuncs(L, build_funcs, 0);
}
