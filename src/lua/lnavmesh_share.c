/* lnavmesh_share.c -- one mesh for many Lua states and threads: mesh:share,
 * navmesh.open, navmesh.unshare, navmesh.sharedBytes (the process-wide
 * table itself is registry.c). */
#include "lnm.h"
#include "registry.h"

/* ---- sharing across Lua states and threads (registry.c) ----
 * mesh:share(name) publishes a frozen copy of the mesh in system memory (a
 * mesh in a Lua state's memory cannot outlive that state, and LuaJIT's
 * allocator is not thread-safe): version 1 of a lineage of versions
 * (nm_navmesh_version_*); the sharing handle moves onto it.
 * navmesh.open(name) gives a new handle on the same data with its own query
 * state, allocated from the opening state. A changed mesh is published
 * cheaply as the next version: mesh:edit() gives a draft sharing every
 * tile, draft:share(name, {replace = true}) commits it (copies of the
 * changed tiles only); a tile cache does the same on each update
 * (ltilecache.c). handle:refresh() moves a handle to what its name holds now. */

/* A shared-mesh name argument: a string of 1 to LNM_REG_MAX_NAME bytes. */
static const char *check_name(lua_State *L, int idx, size_t *len) {
  const char *name = luaL_checklstring(L, idx, len);
  if (*len == 0 || *len > LNM_REG_MAX_NAME)
    luaL_argerror(L, idx, lua_pushfstring(L, "name must be 1 to 255 bytes, got %d", (int)*len));
  return name;
}

/* A copy of `name` for handle h's name field (raises when out of memory,
 * before anything is published). */
static char *name_dup(lua_State *L, lnm_mesh *h, const char *name, size_t len) {
  char *copy = (char *)h->alloc.fn(h->alloc.ud, NULL, 0, len);
  if (!copy) luaL_error(L, "share: not enough memory");
  memcpy(copy, name, len);
  return copy;
}

/* Gives handle h the name copy (from name_dup), or frees it (ok == 0). */
static void name_set(lnm_mesh *h, char *copy, size_t len, int ok) {
  if (!ok) {
    h->alloc.fn(h->alloc.ud, copy, len, 0);
    return;
  }
  if (h->name) h->alloc.fn(h->alloc.ud, h->name, h->name_len, 0);
  h->name = copy;
  h->name_len = len;
}

/* Pushes the refusal of a name held by another mesh. */
static int push_exists(lua_State *L, const char *name) {
  lua_pushnil(L);
  lua_pushfstring(L, "share: a navmesh is already shared as '%s'", name);
  lua_pushliteral(L, "ERR_EXISTS");
  return 3;
}

/* 1 when m is a draft of a shared navmesh (mesh:edit()). */
static int is_draft(const nm_navmesh *m) { return nm_navmesh_version_number(m) > 0 && !nm_navmesh_is_frozen(m); }

/* share() of a draft: it becomes the next version of its lineage (a cost
 * in the tiles it changed, not a copy) and takes the name. */
static int share_draft(lua_State *L, lnm_mesh *h, const char *name, size_t len, int replace) {
  nm_navmesh *base;
  char *copy;
  int rc;
  if (!replace && lnm_registry_taken(name, len, NULL)) return push_exists(L, name);
  copy = name_dup(L, h, name, len);
  base = nm_navmesh_version_latest(h->mesh); /* the version the draft was made from */
  nm_navmesh_version_commit(h->mesh);
  /* the usual case, the name holds that version: swap it in (no byte count
   * to make, which is linear in the tiles) */
  rc = lnm_registry_replace(name, len, base, h->mesh) ? LNM_REG_OK : lnm_registry_put(name, len, h->mesh, replace);
  nm_navmesh_release(base);
  name_set(h, copy, len, rc == LNM_REG_OK);
  if (rc == LNM_REG_NOMEM) luaL_error(L, "share: not enough memory");
  if (rc != LNM_REG_OK) return push_exists(L, name);
  lua_pushboolean(L, 1);
  return 1;
}

/* mesh:share(name [, {replace = true}]) -> true | nil, msg, "ERR_EXISTS" */
static int mesh_share(lua_State *L) {
  static const char *const keys[] = {"replace", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  size_t len;
  const char *name = check_name(L, 2, &len);
  int t = lnm_opt_table(L, 3, keys), replace = 0, rc;
  nm_navmesh *copy = NULL;
  nm_query *q = NULL;
  nm_status st;
  char *ncopy;
  if (t) {
    lua_getfield(L, t, "replace");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
      lnm_opterror(L, "replace", "boolean expected, got %s", lnm_got(L, lua_gettop(L)));
    replace = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  if (h->cached)
    luaL_error(L, "NavMesh:share: this navmesh is maintained by a TileCache: share it with cache:share(name)");
  if (is_draft(h->mesh)) return share_draft(L, h, name, len, replace);
  if (!h->sysmem) { /* version 1 of a lineage in system memory: a frozen copy */
    if ((st = nm_navmesh_version_new(h->mesh, lnm_registry_alloc(), &copy)) < 0) lnm_raise_status(L, "share", st, NULL);
    (void)nm_navmesh_island_count(copy); /* its island labels now, not by the first reader */
    if ((st = nm_query_new(copy, h->max_nodes, &h->alloc, &q)) < 0) {
      nm_navmesh_release(copy);
      lnm_raise_status(L, "share", st, NULL);
    }
  }
  ncopy = (char *)h->alloc.fn(h->alloc.ud, NULL, 0, len);
  rc = ncopy ? lnm_registry_put(name, len, copy ? copy : h->mesh, replace) : LNM_REG_NOMEM;
  if (rc != LNM_REG_OK) {
    nm_query_free(q);
    nm_navmesh_release(copy);
    if (ncopy) h->alloc.fn(h->alloc.ud, ncopy, len, 0);
    if (rc == LNM_REG_NOMEM) luaL_error(L, "share: not enough memory");
    return push_exists(L, name);
  }
  memcpy(ncopy, name, len);
  name_set(h, ncopy, len, 1);
  if (copy) { /* the handle moves onto the shared copy */
    const size_t held = lnm_handle_bytes(h);
    size_t now;
    nm_query_free(h->q);
    nm_navmesh_release(h->mesh);
    now = lnm_handle_bytes(h);
    h->q = q;
    h->mesh = copy;
    h->sysmem = 1;
    /* what it held in this state's memory and no longer does is no longer
     * charged: the collector's pace follows what dropping it frees */
    lnm_gc_uncharge(&h->alloc, &h->charged, held > now ? held - now : 0);
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* mesh:refresh() -> true when the handle moved to a newer mesh: what is
 * shared under the name it was opened or shared under now (the latest
 * version a cache or a draft published, or a replacement), else the
 * latest version of what it reads. Keeps its query scratch; cheap (one
 * lock, a reference count). A private mesh has nothing to move to. */
static int mesh_refresh(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_navmesh *m = NULL;
  size_t bytes;
  int moved;
  if (h->cached || !nm_navmesh_is_frozen(h->mesh)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (h->name) m = lnm_registry_open(h->name, h->name_len, &bytes);
  if (!m) m = nm_navmesh_version_latest(h->mesh);
  moved = m != h->mesh;
  lnm_handle_move(h, m);
  nm_navmesh_release(m);
  lua_pushboolean(L, moved);
  return 1;
}

/* mesh:edit([opts]) -> draft | nil, msg, code: a new handle on a draft of
 * the shared navmesh this handle reads (its latest version): a writable
 * mesh that shares every tile until it changes them (addTile, removeTile,
 * setPolyFlags, setPolyArea); draft:share(name, { replace = true })
 * publishes it as the next version at a cost in the changed tiles. One
 * draft at a time per shared navmesh; close it to drop it. */
static int mesh_edit(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1), *d;
  int t = lnm_opt_table(L, 2, lnm_handle_opts), nodes = t ? lnm_opt_max_nodes(L, t) : h->max_nodes;
  nm_navmesh *draft;
  nm_status st;
  if (h->cached)
    luaL_error(L, "NavMesh:edit: this navmesh is maintained by a TileCache: change it with obstacles");
  if (!nm_navmesh_version_number(h->mesh) || !nm_navmesh_is_frozen(h->mesh))
    luaL_error(L, "NavMesh:edit: not a shared navmesh (edit() drafts the next version of a shared one; "
               "this one can be changed directly)");
  d = lnm_new_handle(L);
  st = nm_navmesh_version_edit(h->mesh, &draft);
  if (st == NM_ERR_STALE) {
    lua_pushnil(L);
    lua_pushliteral(L, "edit: a newer version of this navmesh is shared: refresh() first");
    lua_pushstring(L, nm_status_name(st));
    return 3;
  }
  if (st == NM_ERR_READONLY)
    luaL_error(L, "NavMesh:edit: this navmesh is published by a TileCache: change it with obstacles");
  if (st == NM_ERR_STATE) {
    lua_pushnil(L);
    lua_pushliteral(L, "edit: a draft of this navmesh is open already (share or close it first)");
    lua_pushstring(L, nm_status_name(st));
    return 3;
  }
  if (st < 0) lnm_raise_status(L, "edit", st, NULL);
  d->sysmem = 1;
  lnm_handle_attach(L, d, draft, nodes);
  return 1;
}

/* navmesh.open(name [, opts]) -> handle | nil, msg, "ERR_NOT_FOUND" */
static int navmesh_open(lua_State *L) {
  size_t len;
  const char *name = check_name(L, 1, &len);
  int t = lnm_opt_table(L, 2, lnm_handle_opts), nodes = lnm_opt_max_nodes(L, t);
  lnm_mesh *h = lnm_new_handle(L);
  size_t bytes = 0;
  nm_navmesh *mesh = lnm_registry_open(name, len, &bytes);
  if (!mesh) {
    lua_pushnil(L);
    lua_pushfstring(L, "open: no navmesh is shared as '%s'", name);
    lua_pushliteral(L, "ERR_NOT_FOUND");
    return 3;
  }
  h->sysmem = 1;
  lnm_handle_attach(L, h, mesh, nodes);
  lnm_gc_charge(L, h, bytes); /* it may be the last handle on an old version */
  lnm_handle_set_name(L, h, name, len);
  return 1;
}

/* navmesh.unshare(name) -> true if the name was shared, else false. Open
 * handles keep the data; it is freed when the last one closes. */
static int navmesh_unshare(lua_State *L) {
  size_t len;
  const char *name = check_name(L, 1, &len);
  lua_pushboolean(L, lnm_registry_remove(name, len));
  return 1;
}

/* navmesh.sharedBytes() -> bytes held by shared meshes, process-wide */
static int navmesh_shared_bytes(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lnm_registry_bytes());
  return 1;
}

/* ---- registration ---- */

static const luaL_Reg share_methods[] = {
  {"share", mesh_share},
  {"refresh", mesh_refresh},
  {"edit", mesh_edit},
  {NULL, NULL}
};

static const luaL_Reg share_funcs[] = {
  {"open", navmesh_open},
  {"unshare", navmesh_unshare},
  {"sharedBytes", navmesh_shared_bytes},
  {NULL, NULL}
};

void lnm_open_navmesh_share(lua_State *L) {
  lnm_add_methods(L, LNM_MESH, share_methods);
  luaL_setfuncs(L, share_funcs, 0);
}
