/* lnavmesh_polys.c -- a NavMesh's polygons: references, vertices, closest
 * points, heights, islands, portals, flags and areas. */
#include "lnm.h"

/* ---- polygon accessors ---- */

/* mesh:polyRefs() -> {ref, ...} (every polygon, tiles by slot) */
static void collect_ref(void *ud, nm_polyref ref) {
  lua_State *L = (lua_State *)ud;
  lua_pushinteger(L, (lua_Integer)ref);
  lua_rawseti(L, -2, (int)lua_rawlen(L, -2) + 1);
}
static int mesh_poly_refs(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  lua_newtable(L);
  nm_navmesh_foreach_poly(h->mesh, collect_ref, L);
  return 1;
}

/* mesh:getPolyVerts(ref) -> {x1,y1,z1, ...} */
static int mesh_poly_verts(lua_State *L) {
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
static int mesh_closest_point(lua_State *L) {
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
static int mesh_closest_boundary(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  float p[3], c[3];
  lnm_check_point(L, 3, p);
  nm_query_closest_point_boundary(h->q, ref, p, c);
  lnm_push_point(L, c);
  return 3;
}

/* mesh:getPolyHeight(ref, x,y,z) -> h | nil, msg, code */
static int mesh_poly_height(lua_State *L) {
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
static int mesh_is_reachable(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref a = lnm_check_valid_ref(L, h, 2), b = lnm_check_valid_ref(L, h, 3);
  lua_pushboolean(L, nm_navmesh_is_reachable(h->mesh, a, b));
  return 1;
}

/* mesh:getIsland(ref) -> island number (1..islands) */
static int mesh_get_island(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  lua_pushinteger(L, (lua_Integer)nm_navmesh_island(h->mesh, lnm_check_valid_ref(L, h, 2)));
  return 1;
}

/* mesh:getPortalPoints(from, to) -> lx,ly,lz, rx,ry,rz | nil, msg, code
 * (the shared edge the path crosses from polygon `from` into `to`). */
static int mesh_portal_points(lua_State *L) {
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
static int mesh_is_valid(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  lua_Number v = luaL_checknumber(L, 2);
  lua_pushboolean(L, v == floor(v) && v > 0 && v <= 4294967295.0 &&
                         nm_navmesh_is_valid_ref(h->mesh, (nm_polyref)v));
  return 1;
}

/* mesh:getPolyFlags(ref) / getPolyArea(ref) */
static int mesh_get_flags(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  uint16_t fl = 0;
  nm_navmesh_get_poly_flags(h->mesh, lnm_check_valid_ref(L, h, 2), &fl);
  lua_pushinteger(L, fl);
  return 1;
}
static int mesh_get_area(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  uint8_t a = 0;
  nm_navmesh_get_poly_area(h->mesh, lnm_check_valid_ref(L, h, 2), &a);
  lua_pushinteger(L, a);
  return 1;
}

/* mesh:setPolyFlags(ref, flags) / setPolyArea(ref, area); refused when shared. */
static int mesh_set_flags(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  lua_Integer v = lnm_checkinteger(L, 3);
  if (v < 0 || v > 0xffff) luaL_argerror(L, 3, lua_pushfstring(L, "flags in 0..65535 expected, got %s", lnm_got(L, 3)));
  lnm_check_writable(L, h, "setPolyFlags");
  nm_navmesh_set_poly_flags(h->mesh, ref, (uint16_t)v);
  return 0;
}
static int mesh_set_area(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  lua_Integer v = lnm_checkinteger(L, 3);
  if (v < 0 || v >= NM_MAX_AREAS) luaL_argerror(L, 3, lua_pushfstring(L, "area in 0..63 expected, got %s", lnm_got(L, 3)));
  lnm_check_writable(L, h, "setPolyArea");
  nm_navmesh_set_poly_area(h->mesh, ref, (uint8_t)v);
  return 0;
}

/* ---- registration ---- */

static const luaL_Reg polys_methods[] = {
  {"polyRefs", mesh_poly_refs},
  {"getPolyVerts", mesh_poly_verts},
  {"closestPointOnPoly", mesh_closest_point},
  {"closestPointOnPolyBoundary", mesh_closest_boundary},
  {"getPolyHeight", mesh_poly_height},
  {"isValidPolyRef", mesh_is_valid},
  {"getPortalPoints", mesh_portal_points},
  {"isReachable", mesh_is_reachable},
  {"getIsland", mesh_get_island},
  {"getPolyFlags", mesh_get_flags},
  {"getPolyArea", mesh_get_area},
  {"setPolyFlags", mesh_set_flags},
  {"setPolyArea", mesh_set_area},
  {NULL, NULL}
};

void lnm_open_navmesh_polys(lua_State *L) {
  lnm_add_methods(L, LNM_MESH, polys_methods);
}
