/* lnavmesh_debug.c -- seeing the mesh: detail triangles, OBJ text, the node pool of
 * the last search, and the flat scene tables navmesh.debug (lua/navmesh/
 * debug.lua) draws and exports. Everything here only reads the mesh. */
#include "lnm.h"

#define LNM_SCENE "navmesh.DebugScene"

/* Pushes n numbers of v as a new array; with `scale` (10^decimals) > 0
 * each is rounded to that many decimals, as the nearest double to k/scale:
 * the number a JSON decoder reads back from its shortest text. */
static void push_floats(lua_State *L, const float *v, int n, lua_Number scale) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_Number x = v[i];
    if (scale > 0) x = floor(x * scale + 0.5) / scale;
    lua_pushnumber(L, x);
    lua_rawseti(L, -2, i + 1);
  }
}

/* mesh:getPolyDetail(ref) -> {ax,ay,az, bx,by,bz, cx,cy,cz, ...} (three
 * points per detail triangle; {} for an off-mesh connection) */
static int mesh_poly_detail(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref ref = lnm_check_valid_ref(L, h, 2);
  float *tris = (float *)lnm_scratch(L, NM_MAX_DETAIL_TRIS * 9 * sizeof(float));
  int n = 0;
  nm_navmesh_get_poly_detail(h->mesh, ref, tris, NM_MAX_DETAIL_TRIS, &n);
  push_floats(L, tris, 9 * n, 0);
  return 1;
}

/* Optional {bmin={x,y,z}, bmax={x,y,z}} (both or neither) at table t;
 * 1 when a box was given. */
static int opt_box(lua_State *L, int t, float bmin[3], float bmax[3]) {
  int a, b;
  if (!t) return 0;
  a = lnm_field_vec3(L, t, "bmin", bmin);
  b = lnm_field_vec3(L, t, "bmax", bmax);
  if (a != b) luaL_error(L, "bad options (bmin and bmax go together)");
  return a;
}

/* mesh:toOBJ([{detail=false, bmin=, bmax=}]) -> OBJ text */
static int mesh_to_obj(lua_State *L) {
  static const char *const keys[] = {"detail", "bmin", "bmax", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int t = lnm_opt_table(L, 2, keys);
  nm_obj_opts o;
  void *text;
  size_t len;
  nm_status st;
  memset(&o, 0, sizeof o);
  if (t) {
    lua_getfield(L, t, "detail");
    o.detail = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  o.use_box = opt_box(L, t, o.bmin, o.bmax);
  if ((st = nm_navmesh_to_obj(h->mesh, &o, &text, &len)) < 0) lnm_raise_status(L, "toOBJ", st, NULL);
  lnm_push_owned_bytes(L, h, text, len);
  return 1;
}

/* mesh:getNodePool() -> {refs=, points=, parents=, costs=, totals=, closed=}
 * (the nodes of the last A* search; parents are 1-based node numbers, 0
 * for the start) */
static int mesh_node_pool(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int i, n = nm_query_node_count(h->q);
  lua_createtable(L, 0, 6);
  lua_createtable(L, n, 0); /* refs */
  lua_createtable(L, 3 * n, 0); /* points */
  lua_createtable(L, n, 0); /* parents */
  lua_createtable(L, n, 0); /* costs */
  lua_createtable(L, n, 0); /* totals */
  lua_createtable(L, n, 0); /* closed */
  for (i = 0; i < n; i++) {
    nm_node_info ni;
    int k;
    nm_query_get_node(h->q, i, &ni);
    lua_pushinteger(L, (lua_Integer)ni.ref);
    lua_rawseti(L, -7, i + 1);
    for (k = 0; k < 3; k++) {
      lua_pushnumber(L, ni.pos[k]);
      lua_rawseti(L, -6, 3 * i + k + 1);
    }
    lua_pushinteger(L, ni.parent + 1);
    lua_rawseti(L, -5, i + 1);
    lua_pushnumber(L, ni.cost);
    lua_rawseti(L, -4, i + 1);
    lua_pushnumber(L, ni.total);
    lua_rawseti(L, -3, i + 1);
    lua_pushboolean(L, ni.closed);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -7, "closed");
  lua_setfield(L, -6, "totals");
  lua_setfield(L, -5, "costs");
  lua_setfield(L, -4, "parents");
  lua_setfield(L, -3, "points");
  lua_setfield(L, -2, "refs");
  return 1;
}

/* ---- the scene ---- */

/* A scene being pushed, owned by a userdata so an error while pushing (out
 * of memory) frees it through __gc. */
typedef struct scene_box {
  nm_navmesh *mesh; /* retained; NULL once freed */
  nm_debug_scene s;
} scene_box;

static int scene_box_gc(lua_State *L) {
  scene_box *b = (scene_box *)luaL_checkudata(L, 1, LNM_SCENE);
  if (b->mesh) {
    nm_debug_scene_free(b->mesh, &b->s);
    nm_navmesh_release(b->mesh);
    b->mesh = NULL;
  }
  return 0;
}

/* Sets field k of the table on top to an integer array from a column
 * (items of `size` bytes, the value read by get). */
static void set_column(lua_State *L, const char *k, const void *items, size_t size, int n,
                       lua_Integer (*get)(const void *item)) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, get((const char *)items + (size_t)i * size));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, k);
}

static lua_Integer poly_ref(const void *p) { return (lua_Integer)((const nm_debug_poly *)p)->ref; }
static lua_Integer poly_tile(const void *p) { return ((const nm_debug_poly *)p)->tile + 1; }
static lua_Integer poly_area(const void *p) { return ((const nm_debug_poly *)p)->area; }
static lua_Integer poly_flags(const void *p) { return ((const nm_debug_poly *)p)->flags; }
static lua_Integer poly_island(const void *p) { return (lua_Integer)((const nm_debug_poly *)p)->island; }
static lua_Integer poly_nverts(const void *p) { return ((const nm_debug_poly *)p)->nverts; }
static lua_Integer tile_x(const void *p) { return ((const nm_debug_tile *)p)->x; }
static lua_Integer tile_y(const void *p) { return ((const nm_debug_tile *)p)->y; }
static lua_Integer tile_layer(const void *p) { return ((const nm_debug_tile *)p)->layer; }
static lua_Integer link_ref(const void *p) { return (lua_Integer)((const nm_debug_link *)p)->ref; }
static lua_Integer link_bidir(const void *p) { return ((const nm_debug_link *)p)->bidirectional; }

/* The two 3-float fields at off1 and off2 (start/end, bmin/bmax) of n items
 * of `size` bytes as one flat array, in scratch memory on the stack. */
static float *gather_points(lua_State *L, const void *items, size_t size, int n, size_t off1, size_t off2) {
  float *v = (float *)lnm_scratch(L, (size_t)n * 6 * sizeof(float) + 1);
  int i, k = 0;
  for (i = 0; i < n; i++) {
    const char *it = (const char *)items + (size_t)i * size;
    memcpy(&v[k], it + off1, 3 * sizeof(float));
    memcpy(&v[k + 3], it + off2, 3 * sizeof(float));
    k += 6;
  }
  return v;
}

/* tiles = {x=, y=, layer=, bounds={bmin, bmax per tile}} */
static void push_tiles(lua_State *L, const nm_debug_scene *s, lua_Number step) {
  float *b = gather_points(L, s->tiles, sizeof *s->tiles, s->ntiles, offsetof(nm_debug_tile, bmin),
                           offsetof(nm_debug_tile, bmax));
  lua_createtable(L, 0, 4);
  set_column(L, "x", s->tiles, sizeof *s->tiles, s->ntiles, tile_x);
  set_column(L, "y", s->tiles, sizeof *s->tiles, s->ntiles, tile_y);
  set_column(L, "layer", s->tiles, sizeof *s->tiles, s->ntiles, tile_layer);
  push_floats(L, b, 6 * s->ntiles, step);
  lua_setfield(L, -2, "bounds");
  lua_remove(L, -2); /* the scratch */
}

/* links = {refs=, points={start, end per link}, radius=, bidirectional=} */
static void push_links(lua_State *L, const nm_debug_scene *s, lua_Number step) {
  float *pts = gather_points(L, s->links, sizeof *s->links, s->nlinks, offsetof(nm_debug_link, start),
                             offsetof(nm_debug_link, end));
  int i;
  lua_createtable(L, 0, 4);
  set_column(L, "refs", s->links, sizeof *s->links, s->nlinks, link_ref);
  set_column(L, "bidirectional", s->links, sizeof *s->links, s->nlinks, link_bidir);
  push_floats(L, pts, 6 * s->nlinks, step);
  lua_setfield(L, -2, "points");
  lua_createtable(L, s->nlinks, 0);
  for (i = 0; i < s->nlinks; i++) {
    lua_pushnumber(L, s->links[i].radius);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "radius");
  lua_remove(L, -2);
}

/* polys = {refs=, tiles=, areas=, flags=, islands=, nverts=} (columns) */
static void push_polys(lua_State *L, const nm_debug_scene *s) {
  const size_t sz = sizeof *s->polys;
  lua_createtable(L, 0, 6);
  set_column(L, "refs", s->polys, sz, s->npolys, poly_ref);
  set_column(L, "tiles", s->polys, sz, s->npolys, poly_tile);
  set_column(L, "areas", s->polys, sz, s->npolys, poly_area);
  set_column(L, "flags", s->polys, sz, s->npolys, poly_flags);
  set_column(L, "islands", s->polys, sz, s->npolys, poly_island);
  set_column(L, "nverts", s->polys, sz, s->npolys, poly_nverts);
}

/* mesh:getDebugScene([{bmin=, bmax=, decimals=}]) -> {tiles=, polys=,
 * verts=, walls=, links=} as flat columns (see navmesh.h, nm_debug_scene);
 * coordinates rounded to `decimals` (0..9) when given. */
static int mesh_debug_scene(lua_State *L) {
  static const char *const keys[] = {"bmin", "bmax", "decimals", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int t = lnm_opt_table(L, 2, keys), box;
  float bmin[3], bmax[3];
  int decimals = t ? (int)lnm_field_int(L, t, "decimals", -1, -1, 9) : -1;
  lua_Number step = decimals >= 0 ? pow(10.0, decimals) : 0;
  scene_box *b;
  nm_status st;
  box = opt_box(L, t, bmin, bmax);
  b = (scene_box *)lua_newuserdata(L, sizeof *b);
  memset(b, 0, sizeof *b);
  luaL_setmetatable(L, LNM_SCENE);
  if ((st = nm_debug_scene_make(h->mesh, box ? bmin : NULL, box ? bmax : NULL, &b->s)) < 0)
    lnm_raise_status(L, "getDebugScene", st, NULL);
  b->mesh = h->mesh;
  nm_navmesh_retain(b->mesh);
  lua_createtable(L, 0, 5);
  push_tiles(L, &b->s, step);
  lua_setfield(L, -2, "tiles");
  push_polys(L, &b->s);
  lua_setfield(L, -2, "polys");
  push_floats(L, b->s.verts, 3 * b->s.nverts, step);
  lua_setfield(L, -2, "verts");
  push_floats(L, b->s.walls, 6 * b->s.nwalls, step);
  lua_setfield(L, -2, "walls");
  push_links(L, &b->s, step);
  lua_setfield(L, -2, "links");
  lua_pushcfunction(L, scene_box_gc);
  lua_pushvalue(L, -3);
  lua_call(L, 1, 0); /* free the scene now rather than at the next GC */
  return 1;
}

static const luaL_Reg debug_methods[] = {
  {"getPolyDetail", mesh_poly_detail},
  {"toOBJ", mesh_to_obj},
  {"getNodePool", mesh_node_pool},
  {"getDebugScene", mesh_debug_scene},
  {NULL, NULL}
};

/* The NavMesh's debug methods and the scene box class. */
void lnm_open_navmesh_debug(lua_State *L) {
  lnm_new_class(L, LNM_SCENE);
  luaL_getmetatable(L, LNM_SCENE);
  lua_pushcfunction(L, scene_box_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lnm_add_methods(L, LNM_MESH, debug_methods);
}
