/* lbuildcfg.c -- reading build inputs: the geometry (vertices, triangles),
 * the build config of navmesh.build and its relatives (areas, volumes,
 * bounds, area flags, off-mesh connections), the progress hook, and the
 * build statistics pushed back. */
#include "lnm.h"

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
void *lnm_arg_triples(lua_State *L, int idx, const char *in, int keep, int max_index, int *count) {
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
    out->verts = (const float *)lnm_arg_triples(L, list, path, keep, -1, &out->nverts);
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

void lnm_read_geometry(lua_State *L, int varg, int targ, int keep, const float **v, int *nv, const int **t,
                       int *nt) {
  *v = (const float *)lnm_arg_triples(L, varg, NULL, keep, -1, nv);
  *t = (const int *)lnm_arg_triples(L, targ, NULL, keep, *nv, nt);
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
