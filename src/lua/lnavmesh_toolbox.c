/* lnavmesh_toolbox.c -- Detour's other dtNavMeshQuery methods on a NavMesh: rays,
 * surface moves, area searches, random points, sliced findPath. */
#include "lnm.h"

/* ---- query toolbox (issue 6): rays, surface moves, area searches, random
 * points, sliced findPath, filter extras. Result lists reuse the handle's
 * lnm_scratch; only the returned tables are allocated per call. ---- */

#define LNM_WALL_SEGS 192 /* enough for any polygon (6 edges * 32 parts) */

/* Pushes an array of n numbers. */
static void push_numbers(lua_State *L, const float *v, int n) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* A finite number >= 0 (radius) argument. */
static float check_radius(lua_State *L, int idx) {
  float r = lnm_check_coord(L, idx);
  if (r < 0) luaL_argerror(L, idx, lua_pushfstring(L, "radius >= 0 expected, got %s", lnm_got(L, idx)));
  return r;
}

/* The (ref, x,y,z, radius) arguments at 2..6 of the circle queries. */
static nm_polyref check_circle(lua_State *L, lnm_mesh *h, float c[3], float *r) {
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  lnm_check_point(L, 3, c);
  *r = check_radius(L, 6);
  return ref;
}

/* Fails with nil, msg, code, except out of memory, which raises. */
static int toolbox_fail(lua_State *L, const char *what, nm_status st) {
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, what, st, NULL);
  return lnm_push_fail(L, what, st, NULL);
}

/* mesh:raycast(ref, sx,sy,sz, ex,ey,ez [, filter]) -> t, nx, ny, nz, polys
 * (t = math.huge when the end is reached) */
static int mesh_raycast(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  float sp[3], ep[3], t, nrm[3];
  const nm_filter *f;
  int n = 0;
  nm_status st;
  lnm_check_point(L, 3, sp);
  lnm_check_point(L, 6, ep);
  f = lnm_opt_filter(L, 9, h);
  lnm_ensure_path(L, h, 256);
  while ((st = nm_query_raycast(h->q, ref, sp, ep, f, &t, nrm, h->route.corridor, h->route.corridor_cap, &n)) == NM_TRUNCATED)
    lnm_ensure_path(L, h, 2 * h->route.corridor_cap); /* rare: a very long ray */
  if (st < 0) return toolbox_fail(L, "raycast", st);
  lua_pushnumber(L, t == FLT_MAX ? (lua_Number)HUGE_VAL : (lua_Number)t);
  lnm_push_point(L, nrm);
  lnm_push_refs(L, h->route.corridor, n);
  return 5;
}

/* mesh:moveAlongSurface(ref, sx,sy,sz, ex,ey,ez [, filter]) -> x, y, z, visited
 * (y is projected onto the detail surface of the last visited polygon) */
static int mesh_move_along_surface(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2), visited[64];
  float sp[3], ep[3], res[3], on[3];
  const nm_filter *f;
  int n = 0;
  nm_status st;
  lnm_check_point(L, 3, sp);
  lnm_check_point(L, 6, ep);
  f = lnm_opt_filter(L, 9, h);
  st = nm_query_move_along_surface(h->q, ref, sp, ep, f, res, visited, 64, &n);
  if (st < 0) return toolbox_fail(L, "moveAlongSurface", st);
  if (nm_query_closest_point(h->q, n ? visited[n - 1] : ref, res, on, NULL) == NM_OK) res[1] = on[1];
  lnm_push_point(L, res);
  lnm_push_refs(L, visited, n);
  return 4;
}

/* mesh:findDistanceToWall(ref, x,y,z, maxRadius [, filter])
 * -> dist, hx,hy,hz, nx,ny,nz (just maxRadius when no wall is that close) */
static int mesh_distance_to_wall(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float c[3], r, d, hit[3], nrm[3];
  nm_polyref ref = check_circle(L, h, c, &r);
  int found = 0;
  nm_status st = nm_query_distance_to_wall(h->q, ref, c, r, lnm_opt_filter(L, 7, h), &d, hit, nrm, &found);
  if (st < 0) return toolbox_fail(L, "findDistanceToWall", st);
  lua_pushnumber(L, d);
  if (!found) return 1;
  lnm_push_point(L, hit);
  lnm_push_point(L, nrm);
  return 7;
}

/* mesh:seed(n): restarts this handle's random generator. */
static int mesh_seed(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_query_seed(h->q, (uint64_t)lnm_checkinteger(L, 2));
  return 0;
}

/* Pushes ref, x, y, z of a random point. */
static int push_random(lua_State *L, const char *what, nm_status st, nm_polyref ref, const float *pt) {
  if (st < 0) return toolbox_fail(L, what, st);
  lua_pushinteger(L, (lua_Integer)ref);
  lnm_push_point(L, pt);
  return 4;
}

/* mesh:findRandomPoint([filter]) -> ref, x, y, z */
static int mesh_random_point(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = 0;
  float pt[3] = {0, 0, 0};
  nm_status st = nm_query_random_point(h->q, lnm_opt_filter(L, 2, h), &ref, pt);
  return push_random(L, "findRandomPoint", st, ref, pt);
}

/* mesh:findRandomPointAroundCircle(ref, x,y,z, radius [, filter]) -> ref, x, y, z */
static int mesh_random_point_around(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float c[3], r, pt[3] = {0, 0, 0};
  nm_polyref start = check_circle(L, h, c, &r), ref = 0;
  nm_status st = nm_query_random_point_around(h->q, start, c, r, lnm_opt_filter(L, 7, h), &ref, pt);
  return push_random(L, "findRandomPointAroundCircle", st, ref, pt);
}

/* Pushes refs, parents (and costs when with_costs) of n toolbox results. */
static int push_found(lua_State *L, lnm_mesh *h, int n, int with_costs) {
  lnm_push_refs(L, h->tb_refs, n);
  lnm_push_refs(L, h->tb_parents, n);
  if (!with_costs) return 2;
  push_numbers(L, h->tb_costs, n);
  return 3;
}

/* mesh:findPolysAroundCircle(ref, x,y,z, radius [, filter]) -> refs, parents, costs */
static int mesh_polys_around_circle(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float c[3], r;
  nm_polyref ref = check_circle(L, h, c, &r);
  int n = 0;
  nm_status st;
  lnm_ensure_tb(L, h, h->max_nodes);
  st = nm_query_polys_around_circle(h->q, ref, c, r, lnm_opt_filter(L, 7, h), h->tb_refs, h->tb_parents,
                                    h->tb_costs, h->tb_cap, &n);
  if (st < 0) return toolbox_fail(L, "findPolysAroundCircle", st);
  return push_found(L, h, n, 1);
}

/* mesh:findPolysAroundShape(ref, {x1,y1,z1, ...} [, filter]) -> refs, parents, costs */
static int mesh_polys_around_shape(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  float local[3 * 64], *verts = local;
  int i, nv, n = 0;
  nm_status st;
  luaL_checktype(L, 3, LUA_TTABLE);
  nv = (int)lua_rawlen(L, 3);
  if (nv < 9 || nv % 3)
    luaL_argerror(L, 3, lua_pushfstring(L, "flat list of at least 3 points {x1,y1,z1, ...} expected, got length %d", nv));
  if (nv > 3 * 64) verts = (float *)lnm_scratch(L, (size_t)nv * sizeof(float));
  for (i = 0; i < nv; i++) {
    lua_Number x;
    lua_rawgeti(L, 3, i + 1);
    x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x) || fabs(x) > 3.0e38)
      luaL_argerror(L, 3, lua_pushfstring(L, "item %d: finite number expected, got %s", i + 1, lnm_got(L, lua_gettop(L))));
    verts[i] = (float)x;
    lua_pop(L, 1);
  }
  lnm_ensure_tb(L, h, h->max_nodes);
  st = nm_query_polys_around_shape(h->q, ref, verts, nv / 3, lnm_opt_filter(L, 4, h), h->tb_refs,
                                   h->tb_parents, h->tb_costs, h->tb_cap, &n);
  if (st < 0) return toolbox_fail(L, "findPolysAroundShape", st);
  return push_found(L, h, n, 1);
}

/* mesh:findLocalNeighbourhood(ref, x,y,z, radius [, filter]) -> refs, parents */
static int mesh_local_neighbourhood(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float c[3], r;
  nm_polyref ref = check_circle(L, h, c, &r);
  int n = 0;
  nm_status st;
  lnm_ensure_tb(L, h, 64);
  st = nm_query_local_neighbourhood(h->q, ref, c, r, lnm_opt_filter(L, 7, h), h->tb_refs, h->tb_parents,
                                    h->tb_cap, &n);
  if (st < 0) return toolbox_fail(L, "findLocalNeighbourhood", st);
  return push_found(L, h, n, 0);
}

/* mesh:queryPolygons(cx,cy,cz, hx,hy,hz [, filter]) -> refs */
static int mesh_query_polygons(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float c[3], ext[3];
  const nm_filter *f;
  int n = 0;
  nm_status st;
  lnm_check_point(L, 2, c);
  lnm_check_point(L, 5, ext);
  if (ext[0] < 0 || ext[1] < 0 || ext[2] < 0) luaL_argerror(L, 5, "half extents must be >= 0 (each of hx, hy, hz)");
  f = lnm_opt_filter(L, 8, h);
  lnm_ensure_tb(L, h, 256);
  while ((st = nm_query_polygons(h->q, c, ext, f, h->tb_refs, h->tb_cap, &n)) == NM_TRUNCATED)
    lnm_ensure_tb(L, h, 2 * h->tb_cap);
  if (st < 0) return toolbox_fail(L, "queryPolygons", st);
  lnm_push_refs(L, h->tb_refs, n);
  return 1;
}

/* mesh:getPolyWallSegments(ref [, filter]) -> segments, segmentRefs
 * (walls have ref 0; portals carry the polygon across) */
static int mesh_wall_segments(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2), refs[LNM_WALL_SEGS];
  float segs[6 * LNM_WALL_SEGS];
  int n = 0;
  nm_status st = nm_query_wall_segments(h->q, ref, lnm_opt_filter(L, 3, h), segs, refs, LNM_WALL_SEGS, &n);
  if (st < 0) return toolbox_fail(L, "getPolyWallSegments", st);
  push_numbers(L, segs, 6 * n);
  lnm_push_refs(L, refs, n);
  return 2;
}

/* ---- sliced findPath ---- */

/* mesh:findPathBegin(sref, eref, sx,sy,sz, ex,ey,ez [, filter]) -> true */
static int mesh_find_path_begin(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref s = lnm_check_valid_ref(L, h, 2), e = lnm_check_valid_ref(L, h, 3);
  float sp[3], ep[3];
  nm_status st;
  lnm_check_point(L, 4, sp);
  lnm_check_point(L, 7, ep);
  if ((st = nm_query_find_path_begin(h->q, s, e, sp, ep, lnm_opt_filter(L, 10, h))) < 0)
    return toolbox_fail(L, "findPathBegin", st);
  lua_pushboolean(L, 1);
  return 1;
}

/* Pushes nil, "<what>: no sliced path search in progress (...)", "ERR_STATE". */
static int push_no_sliced(lua_State *L, const char *what) {
  lua_pushnil(L);
  lua_pushfstring(L, "%s: no sliced path search in progress (not begun, already ended, or ended "
                  "by another search or a mesh change on this handle)", what);
  lua_pushstring(L, nm_status_name(NM_ERR_STATE));
  return 3;
}

/* mesh:findPathStep(maxIterations) -> "in_progress" | "done", iterations */
static int mesh_find_path_step(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  lua_Integer it = lnm_checkinteger(L, 2);
  int done = 0;
  nm_status st;
  if (it < 1) luaL_argerror(L, 2, lua_pushfstring(L, "maxIterations >= 1 expected, got %s", lnm_got(L, 2)));
  st = nm_query_find_path_step(h->q, it > 0x7fffffff ? 0x7fffffff : (int)it, &done);
  if (st == NM_ERR_STATE) return push_no_sliced(L, "findPathStep");
  lua_pushstring(L, (st & NM_UNFINISHED) ? "in_progress" : "done");
  lua_pushinteger(L, done);
  return 2;
}

/* mesh:findPathEnd() -> polys, partial (partial also when ended early) */
static int mesh_find_path_end(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int n = 0;
  nm_status st;
  lnm_ensure_path(L, h, h->max_nodes);
  st = nm_query_find_path_end(h->q, h->route.corridor, h->route.corridor_cap, &n);
  if (st == NM_ERR_STATE) return push_no_sliced(L, "findPathEnd");
  if (st < 0) return toolbox_fail(L, "findPathEnd", st);
  lnm_push_refs(L, h->route.corridor, n);
  lua_pushboolean(L, (st & NM_PARTIAL) != 0);
  return 2;
}

static const luaL_Reg toolbox_mesh_methods[] = {
  {"raycast", mesh_raycast},
  {"moveAlongSurface", mesh_move_along_surface},
  {"findDistanceToWall", mesh_distance_to_wall},
  {"seed", mesh_seed},
  {"findRandomPoint", mesh_random_point},
  {"findRandomPointAroundCircle", mesh_random_point_around},
  {"findPolysAroundCircle", mesh_polys_around_circle},
  {"findPolysAroundShape", mesh_polys_around_shape},
  {"findLocalNeighbourhood", mesh_local_neighbourhood},
  {"queryPolygons", mesh_query_polygons},
  {"getPolyWallSegments", mesh_wall_segments},
  {"findPathBegin", mesh_find_path_begin},
  {"findPathStep", mesh_find_path_step},
  {"findPathEnd", mesh_find_path_end},
  {NULL, NULL}
};

void lnm_open_navmesh_toolbox(lua_State *L) {
  lnm_add_methods(L, LNM_MESH, toolbox_mesh_methods);
}
