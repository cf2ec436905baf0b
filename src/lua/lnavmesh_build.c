/* lnavmesh_build.c -- NavMeshes built from triangles: navmesh.build,
 * buildObj, parseObj, buildTile, tileGrid (the config is read by
 * lbuildcfg.c). */
#include "lnm.h"

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

/* navmesh.build(vertices, triangles [, config [, opts]]) -> mesh, stats */
static int navmesh_build(lua_State *L) {
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
static int navmesh_build_tile(lua_State *L) {
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
static int navmesh_tile_grid(lua_State *L) {
  nm_build_config c;
  nm_navmesh_params p;
  nm_diag diag;
  nm_status st;
  int nv, progress, keep, gx, gy;
  const float *v;
  lua_settop(L, 2);
  lua_newtable(L);
  keep = lua_gettop(L);
  v = (const float *)lnm_arg_triples(L, 1, NULL, keep, -1, &nv);
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

static int obj_gc(lua_State *L) {
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
    lua_pushcfunction(L, obj_gc);
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
static int navmesh_parse_obj(lua_State *L) {
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
static int navmesh_build_obj(lua_State *L) {
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
  {"build", navmesh_build},
  {"buildObj", navmesh_build_obj},
  {"parseObj", navmesh_parse_obj},
  {"buildTile", navmesh_build_tile},
  {"tileGrid", navmesh_tile_grid},
  {NULL, NULL}
};

void lnm_open_navmesh_build(lua_State *L) {
  luaL_setfuncs(L, build_funcs, 0);
}
