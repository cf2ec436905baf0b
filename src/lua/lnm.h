/* lnm.h -- what the binding files share (src/lua/l*.c; not a public header).
 *
 * The binding is split by the Lua class each file serves; helpers by concern.
 *   lmodule.c            luaopen_navmesh_core; navmesh.memory
 * NavMesh (navmesh.NavMesh), one group of files:
 *   lnavmesh_handle.c    the handle's life cycle (made, attached, moved,
 *                        closed, __gc), its scratch, close, info, __tostring
 *   lnavmesh_make.c      navmesh.load, loadString, new, fromPolygons; save,
 *                        saveString
 *   lnavmesh_build.c     navmesh.build, buildObj, parseObj, buildTile, tileGrid
 *   lnavmesh_tiles.c     addTile, removeTile, getTile, tiles, tileAt
 *   lnavmesh_polys.c     polygon accessors (polyRefs, getPolyVerts, flags ...)
 *   lnavmesh_path.c      findNearestPoly, findPath, findStraightPath, path,
 *                        paths (path runs nm_query_path)
 *   lnavmesh_toolbox.c   raycast, surface moves, area searches, random
 *                        points, sliced findPath
 *   lnavmesh_share.c     share, refresh, edit; navmesh.open, unshare,
 *                        sharedBytes (registry.c holds the shared table)
 *   lnavmesh_debug.c     getPolyDetail, toOBJ, getNodePool, getDebugScene
 * Other classes, one file each:
 *   lfilter.c            navmesh.Filter: navmesh.filter and its methods
 *   ltilecache.c         navmesh.TileCache: buildCache, loadCache, update,
 *                        share, save, info (ltilecache.h: the object)
 *   ltilecache_obstacles.c  its obstacles: add, remove, move, list, shapes
 *   lcrowd.c             navmesh.Crowd: navmesh.crowd and agents
 *   lbuildjob.c          navmesh.BuildJob: buildJob, buildCacheJob
 * Helpers by concern (used by the files above, never the other way):
 *   lerror.c     messages, Lua's argument checks with them, nil/message/code
 *   loptions.c   option tables and arguments (keys, numbers, points)
 *   lmemory.c    memory accounting (per-state account, collector charges)
 *   lscratch.c   GC-owned scratch, kept blocks, guards around core bytes
 *   lfile.c      reading and writing files
 *   lpush.c      pushing points, reference lists, table fields
 *   lclass.c     making classes (metatables, named methods)
 *   lbuildcfg.c  build inputs: geometry, config, off-mesh links, progress
 *
 * Names: lnm_* and LNM_* are shared between files (declared here or in
 * ltilecache.h). Static Lua C functions are named after what the user
 * calls: navmesh_<name> for navmesh.<name> (navmesh_build_obj for
 * navmesh.buildObj), <class>_<method> for Class:method with class one of
 * mesh (NavMesh), filter, cache (TileCache), crowd, job (BuildJob)
 * (mesh_find_path for NavMesh:findPath). Other static helpers carry no
 * prefix. Each class file exports one lnm_open_<file>(L), called by lmodule.c.
 * Programmer errors raise; outcomes return nil, message, code. Each NavMesh
 * handle owns its query scratch; the mesh itself is reference counted. */
#ifndef NM_LUA_LNM_H
#define NM_LUA_LNM_H

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "navmesh.h"
#include "compat.h"

#define LNM_MESH "navmesh.NavMesh"
#define LNM_FILTER "navmesh.Filter"
#define LNM_DEFAULT_NODES 2048

/* A NavMesh handle. */
typedef struct lnm_mesh {
  nm_navmesh *mesh;    /* NULL once closed */
  nm_query *q;
  nm_alloc alloc;      /* the Lua state's allocator, through its account */
  nm_filter filter;    /* default filter */
  int max_nodes;
  nm_path route;       /* scratch: corridors (route.corridor), straight path points,
                          flags, refs; mesh:path's nm_query_path result */
  void *out;           /* core-allocated bytes being pushed (saveString, removeTile) */
  size_t out_len;
  int sysmem;          /* mesh is in system memory: shared or opened (registry.c) */
  /* query toolbox scratch: refs, parents, costs of area searches */
  nm_polyref *tb_refs, *tb_parents;
  float *tb_costs;
  int tb_cap;
  size_t charged;      /* bytes charged to the collector (lnm_gc_charge) */
  size_t mark;         /* bytes held through the state's account when made */
  int cached;          /* the navmesh of a TileCache (ltilecache.c): edits refused */
  char *name;          /* name it was opened or shared under (refresh), or NULL */
  size_t name_len;
} lnm_mesh;

/* ---- lerror.c: messages ----
 * Raised messages name the function as the user calls it ("navmesh.build",
 * "NavMesh:path"; the running function is looked up in a table of public
 * names filled by lnm_add_methods and lnm_name_module), the argument
 * (counted after self for methods) or option key, what was expected and
 * what came: "bad argument #1 to 'NavMesh:path' (number expected, got
 * string)", "bad option 'areas[2].radius' to 'navmesh.build' (finite number
 * >= 0 expected, got -1)". */
int lnm_argerror(lua_State *L, int arg, const char *msg);
int lnm_typeerror(lua_State *L, int arg, const char *tname);
int lnm_opterror(lua_State *L, const char *key, const char *fmt, ...);
const char *lnm_got(lua_State *L, int idx); /* "-1", "'text'", "table", "navmesh.Filter" */
const char *lnm_number(lua_State *L, lua_Number n); /* "3", "0.5", "nan" (pushed) */
void lnm_name_module(lua_State *L);         /* names the module table's functions "navmesh.<key>" */
const char *lnm_fname(lua_State *L, const char *what); /* the running function's public name, or what */
void lnm_name_functions(lua_State *L, const char *prefix); /* the table on top's functions "<prefix><key>" */
lua_Number lnm_checknumber(lua_State *L, int arg);
const char *lnm_checklstring(lua_State *L, int arg, size_t *len);
void *lnm_checkudata(lua_State *L, int arg, const char *tname);
void lnm_checktype(lua_State *L, int arg, int t);
int lnm_checkoption(lua_State *L, int arg, const char *def, const char *const lst[]);
lua_Integer lnm_check_integer(lua_State *L, int arg);
lua_Integer lnm_opt_integer(lua_State *L, int arg, lua_Integer def);

/* The binding files use Lua's usual checks under their usual names; these
 * make them raise the messages above (lerror.c, which defines them, sees
 * Lua's own). */
#ifndef LNM_LUAL_AS_IS
#  define luaL_argerror lnm_argerror
#  define luaL_checknumber lnm_checknumber
#  define luaL_checklstring lnm_checklstring
#  define luaL_checkudata lnm_checkudata
#  define luaL_checktype lnm_checktype
#  define luaL_checkoption lnm_checkoption
#  undef lnm_checkinteger
#  undef lnm_optinteger
#  define lnm_checkinteger lnm_check_integer
#  define lnm_optinteger lnm_opt_integer
#endif

/* ---- loptions.c: arguments and options ----
 * Option tables nested in an argument (config.areas[2]) pass their own key
 * path as `in` ("areas[2]") to the lnm_sub* forms; NULL is the top level. */
void lnm_check_keys(lua_State *L, int idx, const char *const *names);
void lnm_check_subkeys(lua_State *L, int idx, const char *in, const char *const *names);
lua_Number lnm_subfield_number(lua_State *L, int t, const char *in, const char *key, lua_Number def,
                               lua_Number lo);
lua_Integer lnm_subfield_int(lua_State *L, int t, const char *in, const char *key, lua_Integer def,
                             lua_Integer lo, lua_Integer hi);
int lnm_subfield_vec3(lua_State *L, int t, const char *in, const char *key, float v[3]);
int lnm_opt_table(lua_State *L, int idx, const char *const *names);
float lnm_check_coord(lua_State *L, int idx);
void lnm_check_point(lua_State *L, int idx, float v[3]);
lua_Number lnm_field_number(lua_State *L, int t, const char *key, lua_Number def, lua_Number lo);
lua_Integer lnm_field_int(lua_State *L, int t, const char *key, lua_Integer def, lua_Integer lo,
                          lua_Integer hi);
int lnm_field_vec3(lua_State *L, int t, const char *key, float v[3]);
int lnm_field_bool(lua_State *L, int t, const char *key, int def);

/* ---- lscratch.c: blocks the collector frees ---- */
void *lnm_scratch(lua_State *L, size_t n);
typedef struct lnm_guard {
  nm_alloc alloc;
  void *p;             /* the block (NULL: none) */
  size_t size;
} lnm_guard;
lnm_guard *lnm_guard_new(lua_State *L, const nm_alloc *alloc);
void lnm_guard_free(lnm_guard *g);
void lnm_guard_push(lua_State *L, lnm_guard *g, void *p, size_t size);
/* A block of n bytes kept in the table at `keep` (freed by the GC, also
 * when an error is raised). */
void *lnm_kept_block(lua_State *L, int keep, size_t n);

/* ---- lfile.c: files ---- */
int lnm_write_file(lua_State *L, const char *path, const void *bytes, size_t len);
char *lnm_read_file(lua_State *L, const char *what, const char *path, size_t *len, size_t *cap,
                    const char **err);

/* ---- lerror.c: outcomes ---- */
int lnm_push_fail(lua_State *L, const char *what, nm_status st, const nm_diag *diag);
void lnm_raise_status(lua_State *L, const char *what, nm_status st, const nm_diag *diag);

/* ---- lpush.c: results ---- */
void lnm_push_point(lua_State *L, const float *v);
void lnm_push_refs(lua_State *L, const nm_polyref *refs, int n);
void lnm_set_int(lua_State *L, const char *k, lua_Integer v);
void lnm_set_vec(lua_State *L, const char *k, const float *v);

/* ---- lmemory.c: memory the collector does not see ----
 * Each Lua state that loads the module gets one account: its handles
 * allocate through it (the state's allocator, counted), so navmesh.memory()
 * can say what the module holds in that state's memory outside the GC's
 * count. lnm_gc_charge tells the collector about bytes a handle took;
 * closing the handle takes them back. */
void lnm_acct_open(lua_State *L);
size_t lnm_acct_bytes(lua_State *L);
void lnm_gc_charge(lua_State *L, lnm_mesh *h, size_t bytes);
size_t lnm_handle_bytes(const lnm_mesh *h);
/* The same for other objects (a tile cache, a build job): a sets the
 * state's account allocator (and returns the bytes it holds now); charge
 * and refund keep the object's count in *charged. */
size_t lnm_acct_alloc(lua_State *L, nm_alloc *a);
void lnm_gc_charge_to(lua_State *L, const nm_alloc *a, size_t *charged, size_t bytes);
void lnm_gc_refund(const nm_alloc *a, size_t *charged);
void lnm_gc_uncharge(const nm_alloc *a, size_t *charged, size_t bytes);
size_t lnm_alloc_bytes(const nm_alloc *a);
/* malloc/realloc/free as an nm_alloc (thread-safe, not counted). */
const nm_alloc *lnm_system_alloc(void);

/* ---- lnavmesh_handle.c: NavMesh handles ---- */
extern const char *const lnm_handle_opts[];
lnm_mesh *lnm_new_handle(lua_State *L);
void lnm_handle_attach(lua_State *L, lnm_mesh *h, nm_navmesh *mesh, int max_nodes);
void lnm_handle_close(lnm_mesh *h);
void lnm_push_owned_bytes(lua_State *L, lnm_mesh *h, void *bytes, size_t len);
lnm_mesh *lnm_check_mesh(lua_State *L, int idx);
nm_polyref *lnm_ensure_path(lua_State *L, lnm_mesh *h, int n);
void lnm_ensure_pts(lua_State *L, lnm_mesh *h, int n);
size_t lnm_route_bytes(const lnm_mesh *h);                        /* held by h->route now */
void lnm_route_charge(lua_State *L, lnm_mesh *h, size_t before); /* h->route grew since it held before bytes */
void lnm_ensure_tb(lua_State *L, lnm_mesh *h, int n); /* toolbox results */
void lnm_check_writable(lua_State *L, lnm_mesh *h, const char *what);
nm_polyref lnm_check_valid_ref(lua_State *L, lnm_mesh *h, int idx);
int lnm_opt_max_nodes(lua_State *L, int t);
void lnm_handle_move(lnm_mesh *h, nm_navmesh *mesh);
void lnm_handle_set_name(lua_State *L, lnm_mesh *h, const char *name, size_t len);

/* ---- lfilter.c: filters as arguments and options ---- */
const nm_filter *lnm_opt_filter(lua_State *L, int idx, lnm_mesh *h);
const nm_filter *lnm_field_filter(lua_State *L, int t, const char *key);

/* ---- lclass.c: classes ---- */
void lnm_new_class(lua_State *L, const char *name);
void lnm_add_methods(lua_State *L, const char *name, const luaL_Reg *methods);
void lnm_object_class(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction close,
                      lua_CFunction tostring);

/* ---- lbuildcfg.c: reading build inputs ----
 * Blocks live in the table at `keep` (lnm_kept_block). */
nm_offmesh_link *lnm_field_offmesh(lua_State *L, int t, int *count);
/* Flat list at idx (argument idx, or the option `in` when not NULL) of
 * finite numbers (max_index < 0) or 1-based vertex numbers up to max_index
 * (as 0-based ints), a multiple of 3 long; *count gets the triples. */
void *lnm_arg_triples(lua_State *L, int idx, const char *in, int keep, int max_index, int *count);
/* The vertices (argument varg) and 1-based triangles (targ) of a build. */
void lnm_read_geometry(lua_State *L, int varg, int targ, int keep, const float **v, int *nv, const int **t, int *nt);
/* A build config table at idx (nil: defaults) into c: the keys of
 * navmesh.build plus `extra` (NULL-terminated, read by the caller);
 * *progress gets the stack index of the progress function (0: none). */
void lnm_read_build_config(lua_State *L, int idx, int keep, nm_build_config *c, int *progress,
                           const char *const *extra);
/* areaFlags = { [area] = flags } of the table at t into flags[64] (1 for
 * areas not named); 0 when absent. */
int lnm_field_area_flags(lua_State *L, int t, uint16_t *flags);
/* The progress hook for a Lua function (cfg->progress): an error raised
 * in it cancels the build and is raised again (lnm_progress_done). */
typedef struct lnm_progress {
  lua_State *L;
  int fn, failed;
} lnm_progress;
void lnm_progress_set(lua_State *L, nm_build_config *c, int fn, lnm_progress *pr);
void lnm_progress_done(lnm_progress *pr);
/* Pushes {tiles=, polys=, peakBytes=, ms={...}}. */
void lnm_push_build_stats(lua_State *L, const nm_build_stats *s);

/* ltilecache.c: a tile cache's config (navmesh.buildCache's), and cache
 * objects for caches built elsewhere (a job): push an empty one, put the
 * cache in the slot returned, then lnm_cache_finish pushes it and its
 * NavMesh handle. */
void lnm_read_cache_config(lua_State *L, int idx, int keep, nm_build_config *cfg, nm_cache_rules *rules,
                           int *max_obs, int *progress);
nm_cache **lnm_cache_push_empty(lua_State *L, const nm_alloc *alloc);
int lnm_cache_finish(lua_State *L, int idx, int nodes);

/* Each object file's part of luaopen: adds its functions to the module
 * table on top of the stack and its methods to its classes. */
void lnm_open_navmesh_handle(lua_State *L); /* first: makes the NavMesh class */
void lnm_open_navmesh_make(lua_State *L);
void lnm_open_navmesh_build(lua_State *L);
void lnm_open_navmesh_tiles(lua_State *L);
void lnm_open_navmesh_polys(lua_State *L);
void lnm_open_navmesh_path(lua_State *L);
void lnm_open_navmesh_toolbox(lua_State *L);
void lnm_open_navmesh_share(lua_State *L);
void lnm_open_navmesh_debug(lua_State *L);
void lnm_open_filter(lua_State *L);
void lnm_open_crowd(lua_State *L);
void lnm_open_tilecache(lua_State *L);
void lnm_open_tilecache_obstacles(lua_State *L);
void lnm_open_buildjob(lua_State *L);

#endif
