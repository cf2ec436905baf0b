/* lbuild.c -- building from triangles: navmesh.build, navmesh.buildObj,
 * navmesh.parseObj (config tables in, a NavMesh and stats out; the
 * pipeline itself is src/voxel/, src/poly/ and src/bake/). */
#include "lnm.h"

/* ==== building from triangles: navmesh.build, navmesh.buildObj,
 * navmesh.parseObj (the build driver's block; the core is src/bake/ and src/input/) ==== */

/* A block of n bytes owned by the table at `keep` (so it lives as long as
 * that table and is freed by the GC, also when an error is raised). */
void *lnm_kept_block(lua_State *L, int keep, size_t n) {
  void *p = lua_newuserdata(L, n ? n : 1);
  memset(p, 0, n ? n : 1);
  lua_rawseti(L, keep, (int)lua_rawlen(L, keep) + 1);
  return p;
}

/* Raises for the list at idx: argument idx when `in` is NULL, else the
 * option with key path `in`. */
static int list_error(lua_State *L, int idx, const char *in, const char *msg) {
  if (in) return lnm_opterror(L, in, "%s", msg);
  return luaL_argerror(L, idx, msg);
}

/* Flat list at idx (argument idx, or the option `in` when not NULL) whose
 * length is a multiple of 3: finite numbers as floats (max_index < 0), or
 * 1-based vertex numbers up to max_index as 0-based ints. *count gets the
 * number of triples. */
static void *arg_triples(lua_State *L, int idx, const char *in, int keep, int max_index, int *count) {
  size_t i, n;
  float *f;
  int *k;
  if (!in) luaL_checktype(L, idx, LUA_TTABLE);
  n = lua_rawlen(L, idx);
  if (n % 3 || n / 3 > 0x7fffffff / 3)
    list_error(L, idx, in, lua_pushfstring(L, "flat list of triples expected (length a multiple of 3), got length %d",
                                           (int)n));
  f = (float *)lnm_kept_block(L, keep, n * 4);
  k = (int *)(void *)f;
  for (i = 0; i < n; i++) {
    lua_Number x;
    lua_rawgeti(L, idx, (int)i + 1);
    x = lua_tonumber(L, -1);
    if (max_index < 0) {
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38)
        list_error(L, idx, in, lua_pushfstring(L, "item %d: finite number expected, got %s", (int)i + 1,
                                               lnm_got(L, lua_gettop(L))));
      f[i] = (float)x;
    } else {
      if (lua_type(L, -1) != LUA_TNUMBER || x != floor(x) || x < 1 || x > max_index)
        list_error(L, idx, in, lua_pushfstring(L, "item %d: vertex number in 1..%d expected, got %s", (int)i + 1,
                                               max_index, lnm_got(L, lua_gettop(L))));
      k[i] = (int)x - 1;
    }
    lua_pop(L, 1);
  }
  *count = (int)(n / 3);
  return f;
}

/* A {x, y, z} field of the volume table at v (itself `in`), or raises. */
static void volume_vec3(lua_State *L, int v, const char *in, const char *key, float out[3]) {
  if (!lnm_subfield_vec3(L, v, in, key, out))
    lnm_opterror(L, lua_pushfstring(L, "%s.%s", in, key), "{x, y, z} required for this kind, got nil");
}

/* One area volume table {kind=, area=, ...shape...}; `in` is its key path. */
static void read_volume(lua_State *L, int v, const char *in, int keep, nm_area_volume *out) {
  static const char *const keys[] = {"kind", "area", "vertices", "hmin", "hmax", "bmin", "bmax",
                                     "center", "radius", "height", NULL};
  static const char *const kinds[] = {"convex", "box", "cylinder", NULL};
  int k;
  lnm_check_subkeys(L, v, in, keys);
  lua_getfield(L, v, "kind");
  for (k = 0; kinds[k] && !(lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), kinds[k]) == 0); k++) {}
  if (!kinds[k]) {
    const char *got = lnm_got(L, lua_gettop(L));
    lnm_opterror(L, lua_pushfstring(L, "%s.kind", in), "\"convex\", \"box\" or \"cylinder\" expected, got %s", got);
  }
  lua_pop(L, 1);
  out->kind = k;
  out->area = (int)lnm_subfield_int(L, v, in, "area", 0, -1, 62);
  if (k == NM_VOLUME_CONVEX) {
    int list;
    const char *path;
    lua_getfield(L, v, "vertices");
    list = lua_gettop(L);
    path = lua_pushfstring(L, "%s.vertices", in);
    if (!lua_istable(L, list))
      lnm_opterror(L, path, "{x,y,z, ...} required for a convex volume, got %s", lnm_got(L, list));
    out->verts = (const float *)arg_triples(L, list, path, keep, -1, &out->nverts);
    if (out->nverts < 3) lnm_opterror(L, path, "at least 3 points expected, got %d", out->nverts);
    lua_pop(L, 2);
    out->hmin = (float)lnm_subfield_number(L, v, in, "hmin", -HUGE_VAL, -HUGE_VAL);
    out->hmax = (float)lnm_subfield_number(L, v, in, "hmax", HUGE_VAL, -HUGE_VAL);
    if (!isfinite(out->hmin) || !isfinite(out->hmax) || out->hmin > out->hmax) {
      const char *lo = lnm_number(L, out->hmin), *hi = lnm_number(L, out->hmax);
      lnm_opterror(L, in, "finite hmin <= finite hmax required, got hmin %s, hmax %s", lo, hi);
    }
  } else if (k == NM_VOLUME_BOX) {
    volume_vec3(L, v, in, "bmin", out->bmin);
    volume_vec3(L, v, in, "bmax", out->bmax);
  } else {
    volume_vec3(L, v, in, "center", out->center);
    out->radius = (float)lnm_subfield_number(L, v, in, "radius", 0, 0);
    out->height = (float)lnm_subfield_number(L, v, in, "height", 0, 0);
  }
}

/* config.areas = { volume, ... } */
static void read_volumes(lua_State *L, int t, int keep, nm_build_config *c) {
  int i, n, list;
  nm_area_volume *vols;
  lua_getfield(L, t, "areas");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); return; }
  if (!lua_istable(L, -1)) lnm_opterror(L, "areas", "list of volumes expected, got %s", lnm_got(L, lua_gettop(L)));
  list = lua_gettop(L);
  n = (int)lua_rawlen(L, list);
  vols = (nm_area_volume *)lnm_kept_block(L, keep, (size_t)n * sizeof *vols);
  for (i = 0; i < n; i++) {
    const char *in = lua_pushfstring(L, "areas[%d]", i + 1);
    lua_rawgeti(L, list, i + 1);
    if (!lua_istable(L, -1)) lnm_opterror(L, in, "volume table expected, got %s", lnm_got(L, lua_gettop(L)));
    read_volume(L, lua_gettop(L), in, keep, &vols[i]);
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  c->volumes = vols;
  c->nvolumes = n;
}

/* partition = "watershed" | "monotone" | "layers" */
static int field_partition(lua_State *L, int t) {
  static const char *const names[] = {"watershed", "monotone", "layers", NULL};
  int k = NM_PARTITION_WATERSHED;
  lua_getfield(L, t, "partition");
  if (!lua_isnil(L, -1)) {
    for (k = 0; names[k] && !(lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), names[k]) == 0); k++) {}
    if (!names[k])
      lnm_opterror(L, "partition", "\"watershed\", \"monotone\" or \"layers\" expected, got %s",
                   lnm_got(L, lua_gettop(L)));
  }
  lua_pop(L, 1);
  return k;
}

/* bounds = {minx, miny, minz, maxx, maxy, maxz} */
static void field_bounds(lua_State *L, int t, nm_build_config *c) {
  int i;
  lua_getfield(L, t, "bounds");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1) || lua_rawlen(L, -1) != 6)
      lnm_opterror(L, "bounds", "{minx, miny, minz, maxx, maxy, maxz} expected, got %s", lua_istable(L, -1)
                   ? lua_pushfstring(L, "%d numbers", (int)lua_rawlen(L, -1)) : lnm_got(L, lua_gettop(L)));
    for (i = 0; i < 6; i++) {
      lua_Number x;
      lua_rawgeti(L, -1, i + 1);
      x = lua_tonumber(L, -1);
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38) {
        const char *got = lnm_got(L, lua_gettop(L));
        lnm_opterror(L, lua_pushfstring(L, "bounds[%d]", i + 1), "finite number expected, got %s", got);
      }
      (i < 3 ? c->bmin : c->bmax)[i % 3] = (float)x;
      lua_pop(L, 1);
    }
    for (i = 0; i < 3; i++)
      if (c->bmin[i] > c->bmax[i]) {
        const char *lo = lnm_number(L, c->bmin[i]), *hi = lnm_number(L, c->bmax[i]);
        lnm_opterror(L, "bounds", "min <= max expected, got %s > %s on axis %d", lo, hi, i + 1);
      }
  }
  lua_pop(L, 1);
}

static const char *const build_keys[] = {
  "cellSize", "cellHeight", "agentHeight", "agentRadius", "agentMaxClimb", "agentMaxSlope",
  "regionMinSize", "regionMergeSize", "edgeMaxLen", "edgeMaxError", "vertsPerPoly",
  "detailSampleDist", "detailSampleMaxError", "partition", "tileSize", "threads", "areas",
  "offMeshConnections", "progress", "bounds", "filterLowHangingObstacles", "filterLedgeSpans",
  "filterWalkableLowHeightSpans", "memoryLimit", "areaFlags", NULL};
#define LNM_BUILD_KEYS 25 /* entries of build_keys */

/* areaFlags = { [area] = flags }: integer keys 0..63, flags 0..65535. */
int lnm_field_area_flags(lua_State *L, int t, uint16_t *flags) {
  int i, list;
  lua_getfield(L, t, "areaFlags");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  list = lua_gettop(L);
  if (!lua_istable(L, list)) lnm_opterror(L, "areaFlags", "table { [area] = flags } expected, got %s", lnm_got(L, list));
  for (i = 0; i < NM_MAX_AREAS; i++) flags[i] = 1;
  lua_pushnil(L);
  while (lua_next(L, list)) {
    lua_Number k = lua_tonumber(L, -2), v = lua_tonumber(L, -1);
    if (lua_type(L, -2) != LUA_TNUMBER || k != floor(k) || k < 0 || k >= NM_MAX_AREAS) {
      const char *got = lnm_got(L, lua_gettop(L) - 1);
      lnm_opterror(L, "areaFlags", "area keys in 0..63 expected, got %s", got);
    }
    if (lua_type(L, -1) != LUA_TNUMBER || v != floor(v) || v < 0 || v > 0xffff) {
      const char *got = lnm_got(L, lua_gettop(L));
      lnm_opterror(L, lua_pushfstring(L, "areaFlags[%d]", (int)k), "flags in 0..65535 expected, got %s", got);
    }
    flags[(int)k] = (uint16_t)v;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

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

/* Raises on a key of the table at idx that is neither a build key nor in
 * extra (NULL-terminated, at most 8 keys). */
static void check_build_keys(lua_State *L, int idx, const char *const *extra) {
  const char *keys[LNM_BUILD_KEYS + 9];
  int i, n = 0;
  for (i = 0; build_keys[i]; i++) keys[n++] = build_keys[i];
  for (i = 0; extra && extra[i] && i < 8; i++) keys[n++] = extra[i];
  keys[n] = NULL;
  lnm_check_keys(L, idx, keys);
}

/* Config table at idx (nil = defaults) into c; *progress gets the stack
 * index of the progress function (0 when none). Raises on unknown keys and
 * wrong types; ranges are checked by the core (raised as well). */
void lnm_read_build_config(lua_State *L, int idx, int keep, nm_build_config *c, int *progress,
                           const char *const *extra) {
  uint16_t flags[NM_MAX_AREAS];
  nm_build_config_init(c);
  *progress = 0;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  check_build_keys(L, idx, extra);
  if (lnm_field_area_flags(L, idx, flags)) {
    uint16_t *kept = (uint16_t *)lnm_kept_block(L, keep, sizeof flags);
    memcpy(kept, flags, sizeof flags);
    c->area_flags = kept;
  }
  read_build_numbers(L, idx, c);
  c->verts_per_poly = (int)lnm_field_int(L, idx, "vertsPerPoly", 6, 0, 1000);
  c->tile_size = (int)lnm_field_int(L, idx, "tileSize", 0, 0, 1 << 20);
  c->threads = (int)lnm_field_int(L, idx, "threads", 1, 1, 64);
  c->memory_limit = (size_t)lnm_field_number(L, idx, "memoryLimit", 0, 0);
  c->partition = field_partition(L, idx);
  c->filter_low_hanging = lnm_field_bool(L, idx, "filterLowHangingObstacles", 1);
  c->filter_ledges = lnm_field_bool(L, idx, "filterLedgeSpans", 1);
  c->filter_low_height = lnm_field_bool(L, idx, "filterWalkableLowHeightSpans", 1);
  field_bounds(L, idx, c);
  read_volumes(L, idx, keep, c);
  c->offmesh = lnm_field_offmesh(L, idx, &c->noffmesh);
  if (c->offmesh) lua_rawseti(L, keep, (int)lua_rawlen(L, keep) + 1); /* its lnm_scratch block, pushed */
  lua_getfield(L, idx, "progress");
  if (!lua_isnil(L, -1)) {
    if (!lua_isfunction(L, -1)) lnm_opterror(L, "progress", "function expected, got %s", lnm_got(L, lua_gettop(L)));
    *progress = lua_gettop(L);
  } else {
    lua_pop(L, 1);
  }
}

/* The progress hook: calls the Lua function in protected mode; an error
 * cancels the build and is raised again once the build has cleaned up. */
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

void lnm_progress_set(lua_State *L, nm_build_config *c, int fn, lnm_progress *pr) {
  pr->L = L;
  pr->fn = fn;
  pr->failed = 0;
  if (fn) {
    c->progress = progress_call;
    c->progress_ud = pr;
  }
}

/* Raises the error of a progress function that failed (it is on top). */
void lnm_progress_done(lnm_progress *pr) {
  if (pr->failed) lua_error(pr->L);
}

/* Pushes the stats table {tiles=, polys=, peakBytes=, ms={...}}. */
void lnm_push_build_stats(lua_State *L, const nm_build_stats *s) {
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
  lnm_progress_set(L, c, progress, &pr);
  memset(&diag, 0, sizeof diag);
  st = nm_navmesh_build(v, nv, t, nt, c, &h->alloc, &diag, &mesh, &stats);
  lnm_progress_done(&pr);
  if (st == NM_ERR_EMPTY) return lnm_push_fail(L, what, st, &diag);
  if (st == NM_ERR_PARAM) luaL_argerror(L, cfg_arg, diag.msg);
  if (st < 0) lnm_raise_status(L, what, st, &diag);
  lnm_handle_attach(L, h, mesh, nodes);
  lua_pushvalue(L, hidx);
  lnm_push_build_stats(L, &stats);
  return 2;
}

void lnm_read_geometry(lua_State *L, int varg, int targ, int keep, const float **v, int *nv, const int **t,
                       int *nt) {
  *v = (const float *)arg_triples(L, varg, NULL, keep, -1, nv);
  *t = (const int *)arg_triples(L, targ, NULL, keep, *nv, nt);
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
  lnm_read_geometry(L, 1, 2, keep, &v, &nv, &t, &nt);
  lnm_read_build_config(L, 3, keep, &c, &progress, NULL);
  return build_and_push(L, v, nv, t, nt, &c, progress, 3, 4, "build");
}

/* A tile coordinate argument in 0..n-1. */
static int check_tile_coord(lua_State *L, int idx, int n, const char *axis) {
  lua_Integer v = lnm_checkinteger(L, idx);
  if (v < 0 || v >= n)
    luaL_argerror(L, idx, lua_pushfstring(L, "tile %s in 0..%d expected (the grid is %d tiles), got %s", axis, n - 1,
                                          n, lnm_got(L, idx)));
  return (int)v;
}

/* navmesh.buildTile(vertices, triangles, config, tx, ty) -> bytes | nil,
 * msg, "ERR_EMPTY": tile (tx, ty) of the tiled build of these inputs, the
 * blob build would add there (links aside). */
static int lnm_build_tile(lua_State *L) {
  nm_build_config c;
  nm_navmesh_params p;
  nm_diag diag;
  nm_alloc a;
  nm_status st;
  int nv, nt, progress, keep, gx, gy, tx, ty;
  const float *v;
  const int *t;
  lnm_guard *g;
  void *blob = NULL;
  size_t size = 0;
  lua_settop(L, 5);
  lua_newtable(L);
  keep = lua_gettop(L);
  lnm_read_geometry(L, 1, 2, keep, &v, &nv, &t, &nt);
  luaL_checktype(L, 3, LUA_TTABLE);
  lnm_read_build_config(L, 3, keep, &c, &progress, NULL);
  memset(&diag, 0, sizeof diag);
  if ((st = nm_build_tile_grid(v, nv, &c, &diag, &p, &gx, &gy)) < 0) {
    if (st == NM_ERR_EMPTY) return lnm_push_fail(L, "buildTile", st, &diag);
    luaL_argerror(L, 3, diag.msg[0] ? diag.msg : nm_strerror(st));
  }
  tx = check_tile_coord(L, 4, gx, "x");
  ty = check_tile_coord(L, 5, gy, "y");
  lnm_acct_alloc(L, &a);
  g = lnm_guard_new(L, &a);
  st = nm_navmesh_build_tile(v, nv, t, nt, &c, tx, ty, &a, &diag, &blob, &size, NULL);
  if (st == NM_ERR_EMPTY) return lnm_push_fail(L, "buildTile", st, &diag);
  if (st == NM_ERR_PARAM) luaL_argerror(L, 3, diag.msg);
  if (st < 0) lnm_raise_status(L, "buildTile", st, &diag);
  lnm_guard_push(L, g, blob, size);
  return 1;
}

/* navmesh.tileGrid(vertices, config) -> params, tilesX, tilesY: the grid of
 * the tiled build (params as navmesh.new takes them). */
static int lnm_tile_grid(lua_State *L) {
  nm_build_config c;
  nm_navmesh_params p;
  nm_diag diag;
  nm_status st;
  int nv, progress, keep, gx, gy;
  const float *v;
  lua_settop(L, 2);
  lua_newtable(L);
  keep = lua_gettop(L);
  v = (const float *)arg_triples(L, 1, NULL, keep, -1, &nv);
  luaL_checktype(L, 2, LUA_TTABLE);
  lnm_read_build_config(L, 2, keep, &c, &progress, NULL);
  memset(&diag, 0, sizeof diag);
  if ((st = nm_build_tile_grid(v, nv, &c, &diag, &p, &gx, &gy)) < 0) {
    if (st == NM_ERR_EMPTY) return lnm_push_fail(L, "tileGrid", st, &diag);
    luaL_argerror(L, 2, diag.msg[0] ? diag.msg : nm_strerror(st));
  }
  lua_createtable(L, 0, 5);
  lnm_set_vec(L, "origin", p.orig);
  lua_pushnumber(L, p.tile_width);
  lua_setfield(L, -2, "tileWidth");
  lua_pushnumber(L, p.tile_height);
  lua_setfield(L, -2, "tileHeight");
  lnm_set_int(L, "maxTiles", p.max_tiles);
  lnm_set_int(L, "maxPolys", p.max_polys);
  lua_pushinteger(L, gx);
  lua_pushinteger(L, gy);
  return 3;
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

/* Pushes {lines=, faces=, triangles=}: what the OBJ reader dropped. */
static void push_dropped(lua_State *L, const nm_obj_dropped *d) {
  lua_createtable(L, 0, 3);
  lnm_set_int(L, "lines", d->lines);
  lnm_set_int(L, "faces", d->faces);
  lnm_set_int(L, "triangles", d->triangles);
}

/* What a failed OBJ parse gives: raises when out of memory, else pushes
 * nil, "<what>: bad OBJ data: line N: <why>", "ERR_DATA" (returns 3). */
static int obj_failure(lua_State *L, nm_status st, const nm_diag *diag, const char *what) {
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, what, st, NULL);
  lua_pushnil(L);
  lua_pushfstring(L, "%s: bad OBJ data: %s", what, diag->msg[0] ? diag->msg : nm_strerror(st));
  lua_pushstring(L, nm_status_name(st));
  return 3;
}

/* navmesh.parseObj(text) -> vertices, triangles (flat lists, 1-based),
 * dropped ({lines=, faces=, triangles=} the reader passed over) */
static int lnm_parse_obj(lua_State *L) {
  size_t len, i;
  const char *text = luaL_checklstring(L, 1, &len);
  lnm_obj *o = new_obj(L);
  nm_obj_dropped dropped;
  nm_diag diag;
  nm_status st;
  memset(&diag, 0, sizeof diag);
  st = nm_obj_parse_counted(text, len, &o->a, &diag, &o->v, &o->nv, &o->t, &o->nt, &dropped);
  if (st < 0) return obj_failure(L, st, &diag, "parseObj");
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
  push_dropped(L, &dropped);
  return 3;
}

/* navmesh.buildObj(path [, config [, opts]]) -> mesh, stats (stats.dropped:
 * what the OBJ reader passed over) */
static int lnm_build_obj(lua_State *L) {
  const char *path = luaL_checkstring(L, 1), *err = NULL, *what;
  nm_build_config c;
  nm_obj_dropped dropped;
  nm_diag diag;
  nm_status st;
  int progress, keep, r;
  size_t len = 0, cap = 0;
  char *buf;
  lnm_obj *o;
  void *ud;
  lua_Alloc fn = lua_getallocf(L, &ud);
  lua_settop(L, 3);
  lua_newtable(L);
  keep = lua_gettop(L);
  lnm_read_build_config(L, 2, keep, &c, &progress, NULL);
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
  st = nm_obj_parse_counted(buf, len, &o->a, &diag, &o->v, &o->nv, &o->t, &o->nt, &dropped);
  fn(ud, buf, cap, 0);
  if (st < 0) return obj_failure(L, st, &diag, what);
  r = build_and_push(L, o->v, o->nv, o->t, o->nt, &c, progress, 2, 3, "buildObj");
  if (r == 2) {
    push_dropped(L, &dropped);
    lua_setfield(L, -2, "dropped");
  }
  return r;
}

/* ---- registration ---- */

static const luaL_Reg build_funcs[] = {
  {"build", lnm_build},
  {"buildObj", lnm_build_obj},
  {"parseObj", lnm_parse_obj},
  {"buildTile", lnm_build_tile},
  {"tileGrid", lnm_tile_grid},
  {NULL, NULL}
};

void lnm_open_build(lua_State *L) {
  luaL_setfuncs(L, build_funcs, 0);
}
