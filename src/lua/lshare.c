/* lshare.c -- one mesh for many Lua states and threads: mesh:share,
 * navmesh.open, navmesh.unshare, navmesh.sharedBytes (the process-wide
 * table itself is registry.c). */
#include "lnm.h"
#include "registry.h"

/* ---- sharing across Lua states and threads (registry.c) ----
 * mesh:share(name) publishes a frozen copy of the mesh in system memory (a
 * mesh in a Lua state's memory cannot outlive that state, and LuaJIT's
 * allocator is not thread-safe); the sharing handle moves onto the copy.
 * navmesh.open(name) gives a new handle on the same data with its own query
 * state, allocated from the opening state. */

/* A shared-mesh name argument: a string of 1 to LNM_REG_MAX_NAME bytes. */
static const char *check_name(lua_State *L, int idx, size_t *len) {
  const char *name = luaL_checklstring(L, idx, len);
  if (*len == 0 || *len > LNM_REG_MAX_NAME)
    luaL_argerror(L, idx, lua_pushfstring(L, "name must be 1 to 255 bytes, got %d", (int)*len));
  return name;
}

/* A frozen copy of mesh in system memory with the same polygon references.
 * Freezing makes the lazily derived data (islands) now, before other threads
 * can read it; if that fails the copy is dropped. */
static nm_status copy_to_system(const nm_navmesh *mesh, nm_navmesh **out) {
  nm_status st = nm_navmesh_copy(mesh, lnm_registry_alloc(), out);
  if (st >= 0 && (st = nm_navmesh_freeze(*out)) < 0) {
    nm_navmesh_release(*out);
    *out = NULL;
  }
  return st;
}

/* mesh:share(name [, {replace = true}]) -> true | nil, msg, "ERR_EXISTS" */
static int lnm_mesh_share(lua_State *L) {
  static const char *const keys[] = {"replace", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  size_t len;
  const char *name = check_name(L, 2, &len);
  int t = lnm_opt_table(L, 3, keys), replace = 0, rc;
  nm_navmesh *copy = NULL;
  nm_query *q = NULL;
  nm_status st;
  if (t) {
    lua_getfield(L, t, "replace");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
      lnm_opterror(L, "replace", "boolean expected, got %s", lnm_got(L, lua_gettop(L)));
    replace = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  if (!h->sysmem) {
    if ((st = copy_to_system(h->mesh, &copy)) < 0) lnm_raise_status(L, "share", st, NULL);
    if ((st = nm_query_new(copy, h->max_nodes, &h->alloc, &q)) < 0) {
      nm_navmesh_release(copy);
      lnm_raise_status(L, "share", st, NULL);
    }
  }
  rc = lnm_registry_put(name, len, copy ? copy : h->mesh, replace);
  if (rc != LNM_REG_OK) {
    nm_query_free(q);
    nm_navmesh_release(copy);
    if (rc == LNM_REG_NOMEM) luaL_error(L, "share: not enough memory");
    lua_pushnil(L);
    lua_pushfstring(L, "share: a navmesh is already shared as '%s'", name);
    lua_pushliteral(L, "ERR_EXISTS");
    return 3;
  }
  if (copy) { /* the handle moves onto the shared copy */
    nm_query_free(h->q);
    nm_navmesh_release(h->mesh);
    h->q = q;
    h->mesh = copy;
    h->sysmem = 1;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* navmesh.open(name [, opts]) -> handle | nil, msg, "ERR_NOT_FOUND" */
static int lnm_open(lua_State *L) {
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
  return 1;
}

/* navmesh.unshare(name) -> true if the name was shared, else false. Open
 * handles keep the data; it is freed when the last one closes. */
static int lnm_unshare(lua_State *L) {
  size_t len;
  const char *name = check_name(L, 1, &len);
  lua_pushboolean(L, lnm_registry_remove(name, len));
  return 1;
}

/* navmesh.sharedBytes() -> bytes held by shared meshes, process-wide */
static int lnm_shared_bytes(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lnm_registry_bytes());
  return 1;
}

/* navmesh.memory() -> bytes this Lua state's handles hold in its own
 * memory (meshes it loaded or built, query state, scratch): memory the
 * state's allocator gave out that collectgarbage("count") does not show. */
static int lnm_memory(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)lnm_acct_bytes(L));
  return 1;
}

/* ---- registration ---- */

static const luaL_Reg share_methods[] = {
  {"share", lnm_mesh_share},
  {NULL, NULL}
};

static const luaL_Reg share_funcs[] = {
  {"open", lnm_open},
  {"unshare", lnm_unshare},
  {"sharedBytes", lnm_shared_bytes},
  {"memory", lnm_memory},
  {NULL, NULL}
};

void lnm_open_share(lua_State *L) {
  lnm_add_methods(L, LNM_MESH, share_methods);
  luaL_setfuncs(L, share_funcs, 0);
}
