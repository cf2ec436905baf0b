/* lnavmesh_tiles.c -- a NavMesh's tiles: addTile, removeTile, getTile,
 * tiles, tileAt. */
#include "lnm.h"

/* mesh:addTile(bytes [, { ref = oldRef }]) -> tileRef | nil, msg, code;
 * ref: a reference the tile had before (Detour's lastRef), so its
 * polygons get their old references back. */
static int mesh_add_tile(lua_State *L) {
  static const char *const keys[] = {"ref", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  size_t len;
  const char *bytes = luaL_checklstring(L, 2, &len);
  int t = lnm_opt_table(L, 3, keys);
  nm_polyref ref = 0, last = 0;
  nm_diag diag;
  nm_status st;
  if (t) last = (nm_polyref)lnm_field_int(L, t, "ref", 0, 0, (lua_Integer)0xffffffffu);
  lnm_check_writable(L, h, "addTile");
  memset(&diag, 0, sizeof diag);
  if ((st = nm_navmesh_add_tile_ref(h->mesh, bytes, len, last, &diag, &ref)) < 0) {
    if (st == NM_ERR_NOMEM) lnm_raise_status(L, "addTile", st, NULL);
    return lnm_push_fail(L, "addTile", st, &diag);
  }
  lua_pushinteger(L, (lua_Integer)ref);
  return 1;
}

/* Tile coordinates tx, ty [, layer] at idx.. into c[3]. */
static void check_tile_cell(lua_State *L, int idx, int c[3]) {
  lua_Integer tx = lnm_checkinteger(L, idx), ty = lnm_checkinteger(L, idx + 1), layer = lnm_optinteger(L, idx + 2, 0);
  if (tx < -(1 << 28) || tx > (1 << 28) || ty < -(1 << 28) || ty > (1 << 28) || layer < 0 || layer > (1 << 28))
    luaL_argerror(L, idx, lua_pushfstring(L, "tile coordinates within +-2^28 and layer 0..2^28 expected, got (%s, %s, %s)",
                                          lnm_number(L, (lua_Number)tx), lnm_number(L, (lua_Number)ty),
                                          lnm_number(L, (lua_Number)layer)));
  c[0] = (int)tx;
  c[1] = (int)ty;
  c[2] = (int)layer;
}

/* Pushes nil, "<what>: no tile at (x, y, layer l)", "ERR_PARAM". */
static int push_no_tile(lua_State *L, const char *what, const int c[3]) {
  lua_pushnil(L);
  lua_pushfstring(L, "%s: no tile at (%d, %d, layer %d)", what, c[0], c[1], c[2]);
  lua_pushstring(L, nm_status_name(NM_ERR_PARAM));
  return 3;
}

/* mesh:removeTile(tx, ty [, layer]) -> bytes | nil, msg, code */
static int mesh_remove_tile(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int c[3];
  void *data;
  size_t size;
  nm_status st;
  lnm_check_writable(L, h, "removeTile");
  check_tile_cell(L, 2, c);
  st = nm_navmesh_remove_tile(h->mesh, c[0], c[1], c[2], &data, &size);
  if (st == NM_ERR_PARAM) return push_no_tile(L, "removeTile", c);
  if (st < 0) lnm_raise_status(L, "removeTile", st, NULL);
  lnm_push_owned_bytes(L, h, data, size);
  return 1;
}

/* mesh:getTile(tx, ty [, layer]) -> bytes (links included, as removeTile
 * gives them) | nil, msg, code; the tile stays. */
static int mesh_get_tile(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  int c[3];
  const void *data;
  size_t size;
  check_tile_cell(L, 2, c);
  if (nm_navmesh_get_tile(h->mesh, c[0], c[1], c[2], &data, &size) < 0) return push_no_tile(L, "getTile", c);
  lua_pushlstring(L, (const char *)data, size);
  return 1;
}

/* mesh:tiles() -> { {x=, y=, layer=, ref=, polys=, bytes=}, ... } by slot
 * (bytes: the size of the tile's blob). */
static int mesh_tiles(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_navmesh_info info;
  nm_tile_info *ti;
  int i, n = 0;
  nm_navmesh_get_info(h->mesh, &info);
  ti = (nm_tile_info *)lnm_scratch(L, (size_t)(info.tiles > 0 ? info.tiles : 1) * sizeof *ti);
  nm_navmesh_tiles(h->mesh, ti, info.tiles, &n);
  lua_createtable(L, n, 0);
  for (i = 0; i < n && i < info.tiles; i++) {
    lua_createtable(L, 0, 6);
    lnm_set_int(L, "x", ti[i].x);
    lnm_set_int(L, "y", ti[i].y);
    lnm_set_int(L, "layer", ti[i].layer);
    lnm_set_int(L, "ref", (lua_Integer)ti[i].ref);
    lnm_set_int(L, "polys", ti[i].polys);
    lnm_set_int(L, "bytes", (lua_Integer)ti[i].data_size);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* mesh:tileAt(x, z) -> tx, ty, tileRef|nil (layer 0) */
static int mesh_tile_at(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float pos[3];
  int tx, ty;
  nm_polyref ref;
  pos[0] = lnm_check_coord(L, 2);
  pos[1] = 0;
  pos[2] = lnm_check_coord(L, 3);
  nm_navmesh_tile_loc(h->mesh, pos, &tx, &ty);
  lua_pushinteger(L, tx);
  lua_pushinteger(L, ty);
  ref = nm_navmesh_tile_ref_at(h->mesh, tx, ty, 0);
  if (ref) lua_pushinteger(L, (lua_Integer)ref);
  else lua_pushnil(L);
  return 3;
}

/* ---- registration ---- */

static const luaL_Reg tiles_methods[] = {
  {"addTile", mesh_add_tile},
  {"removeTile", mesh_remove_tile},
  {"getTile", mesh_get_tile},
  {"tiles", mesh_tiles},
  {"tileAt", mesh_tile_at},
  {NULL, NULL}
};

void lnm_open_navmesh_tiles(lua_State *L) {
  lnm_add_methods(L, LNM_MESH, tiles_methods);
}
