/* lbuildjob.c -- builds off the Lua thread: navmesh.buildJob runs navmesh.build
 * on a worker thread (nm_build_job_*), navmesh.buildCacheJob
 * navmesh.buildCache; job:result() polls it without blocking, so an
 * OpenResty or Skynet handler never waits for a build.
 *
 * The state's allocator is only called on the Lua thread (the job copies
 * the inputs with it when it starts and moves the finished mesh into it
 * when the result is taken); the worker builds in system memory. */
#include "lnm.h"

#define LNM_JOB "navmesh.BuildJob"

typedef struct lnm_job {
  nm_build_job *job;         /* NULL once closed */
  nm_alloc alloc;            /* the state's, through its account */
  int nodes;                 /* maxNodes of the handle it makes */
  int is_cache;              /* navmesh.buildCacheJob */
  nm_cache **cache_slot;     /* where the cache goes in its TileCache object */
  int handle_ref;            /* the NavMesh handle (or TileCache) the result goes into */
  int result_ref;            /* table of what result() returns, once known */
} lnm_job;

static lnm_job *check_job(lua_State *L, int idx) {
  lnm_job *j = (lnm_job *)luaL_checkudata(L, idx, LNM_JOB);
  if (!j->job) luaL_error(L, "%s: attempt to use a closed " LNM_JOB, lnm_fname(L, "BuildJob"));
  return j;
}

/* Cancels the build if it runs, waits for the worker (at most one stage of
 * one tile) and frees it; the result already taken stays valid. */
static int job_close(lua_State *L) {
  lnm_job *j = (lnm_job *)luaL_checkudata(L, 1, LNM_JOB);
  nm_build_job_free(j->job);
  j->job = NULL;
  if (j->handle_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, j->handle_ref);
  if (j->result_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, j->result_ref);
  j->handle_ref = j->result_ref = LUA_NOREF;
  return 0;
}

/* Starts the job of navmesh.buildJob (cache = 0) or buildCacheJob: what
 * the build would refuse at once (bad config: raised; no triangles: nil,
 * msg, "ERR_EMPTY") is refused here. */
static int start_job(lua_State *L, int cache, const char *what) {
  nm_build_config cfg;
  nm_cache_rules rules;
  nm_diag diag;
  nm_status st;
  lnm_job *j;
  const float *v;
  const int *t;
  int nv, nt, progress, keep, max_obs = 0;
  lua_settop(L, 4);
  lua_newtable(L);
  keep = lua_gettop(L);
  lnm_read_geometry(L, 1, 2, keep, &v, &nv, &t, &nt);
  if (cache) lnm_read_cache_config(L, 3, keep, &cfg, &rules, &max_obs, &progress);
  else lnm_read_build_config(L, 3, keep, &cfg, &progress, NULL);
  if (progress) lnm_opterror(L, "progress", "not called for a job: poll job:progress() instead");
  j = (lnm_job *)lua_newuserdata(L, sizeof *j);
  memset(j, 0, sizeof *j);
  j->handle_ref = j->result_ref = LUA_NOREF;
  j->is_cache = cache;
  luaL_setmetatable(L, LNM_JOB);
  j->nodes = lnm_opt_max_nodes(L, lnm_opt_table(L, 4, lnm_handle_opts));
  lnm_acct_alloc(L, &j->alloc);
  memset(&diag, 0, sizeof diag);
  st = cache ? nm_cache_build_job_start(v, nv, t, nt, &cfg, max_obs, &rules, &j->alloc, lnm_system_alloc(), &diag,
                                        &j->job)
             : nm_build_job_start(v, nv, t, nt, &cfg, &j->alloc, &diag, &j->job);
  if (st == NM_ERR_EMPTY) return lnm_push_fail(L, what, st, &diag);
  if (st == NM_ERR_PARAM) luaL_argerror(L, 3, diag.msg);
  if (st < 0) lnm_raise_status(L, what, st, &diag);
  return 1;
}

/* navmesh.buildJob(vertices, triangles [, config [, opts]]) -> job:
 * navmesh.build of these inputs on a worker thread. */
static int navmesh_build_job(lua_State *L) { return start_job(L, 0, "buildJob"); }

/* navmesh.buildCacheJob(vertices, triangles [, config [, opts]]) -> job:
 * navmesh.buildCache on a worker thread; the cache lives in system memory
 * (a cache cannot be moved cheaply into the state's). */
static int navmesh_build_cache_job(lua_State *L) { return start_job(L, 1, "buildCacheJob"); }

/* Pushes the values of the result table at the top (and removes it): its
 * fields 1..n (n stored: the first value may be nil). */
static int push_result(lua_State *L) {
  int i, n, t = lua_gettop(L);
  lua_getfield(L, t, "n");
  n = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  for (i = 1; i <= n; i++) lua_rawgeti(L, t, i);
  lua_remove(L, t);
  return n;
}

/* Keeps the n values on top as the job's result (popped) and pushes them
 * again. */
static int keep_result(lua_State *L, lnm_job *j, int n) {
  int i;
  lua_createtable(L, n, 1);
  lua_insert(L, -n - 1);
  for (i = n; i >= 1; i--) lua_rawseti(L, -i - 1, i);
  lua_pushinteger(L, n);
  lua_setfield(L, -2, "n");
  j->result_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_rawgeti(L, LUA_REGISTRYINDEX, j->result_ref);
  return push_result(L);
}

/* The object the result will go into (a NavMesh handle, or an empty
 * TileCache, j->cache_slot), made once, so that taking the result never
 * fails half way. */
static void *job_target(lua_State *L, lnm_job *j) {
  void *p;
  if (j->handle_ref == LUA_NOREF) {
    if (j->is_cache) j->cache_slot = lnm_cache_push_empty(L, lnm_system_alloc());
    else lnm_new_handle(L);
    j->handle_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, j->handle_ref);
  p = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return p;
}

/* result() of a cache job: cache, mesh or nil, msg, code. */
static int cache_result(lua_State *L, lnm_job *j) {
  nm_diag diag;
  nm_status st;
  job_target(L, j);
  memset(&diag, 0, sizeof diag);
  st = nm_cache_build_job_poll(j->job, j->cache_slot, &diag);
  if (st == NM_UNFINISHED) {
    lua_pushnil(L);
    return 1;
  }
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, "result", st, NULL);
  if (st < 0) return keep_result(L, j, lnm_push_fail(L, "buildCacheJob", st, &diag));
  lua_rawgeti(L, LUA_REGISTRYINDEX, j->handle_ref);
  return keep_result(L, j, lnm_cache_finish(L, lua_gettop(L), j->nodes));
}

/* job:result() -> nil while the build runs; then what navmesh.build
 * returns: mesh, stats (a cache job: what navmesh.buildCache returns:
 * cache, mesh), or nil, msg, code (ERR_CANCELLED after cancel), the same
 * on every later call. */
static int job_result(lua_State *L) {
  lnm_job *j = check_job(L, 1);
  nm_navmesh *mesh = NULL;
  nm_build_stats stats;
  nm_diag diag;
  nm_status st;
  lnm_mesh *h;
  size_t before;
  if (j->result_ref != LUA_NOREF) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, j->result_ref);
    return push_result(L);
  }
  if (j->is_cache) return cache_result(L, j);
  h = (lnm_mesh *)job_target(L, j);
  memset(&diag, 0, sizeof diag);
  before = lnm_handle_bytes(h);
  st = nm_build_job_poll(j->job, &mesh, &diag, &stats);
  if (st == NM_UNFINISHED) {
    lua_pushnil(L);
    return 1;
  }
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, "result", st, NULL); /* the result is kept: poll again */
  if (st < 0) return keep_result(L, j, lnm_push_fail(L, "buildJob", st, &diag));
  lua_rawgeti(L, LUA_REGISTRYINDEX, j->handle_ref);
  h->mark = before; /* attach charges the mesh the poll moved into this state's memory */
  lnm_handle_attach(L, h, mesh, j->nodes);
  lnm_push_build_stats(L, &stats);
  return keep_result(L, j, 2);
}

/* job:progress() -> done, total (tiles of the grid; 0, 0 before the first) */
static int job_progress(lua_State *L) {
  lnm_job *j = check_job(L, 1);
  int done = 0, total = 0;
  nm_build_job_progress(j->job, &done, &total);
  lua_pushinteger(L, done);
  lua_pushinteger(L, total);
  return 2;
}

/* job:cancel(): asks the build to stop (never blocks); result() then
 * gives nil, msg, "ERR_CANCELLED" unless it had finished. */
static int job_cancel(lua_State *L) {
  nm_build_job_cancel(check_job(L, 1)->job);
  return 0;
}

static int job_tostring(lua_State *L) {
  lnm_job *j = (lnm_job *)luaL_checkudata(L, 1, LNM_JOB);
  lua_pushfstring(L, LNM_JOB " (%s): %p", !j->job ? "closed" : j->result_ref != LUA_NOREF ? "done" : "running",
                  (void *)j);
  return 1;
}

static const luaL_Reg job_methods[] = {
  {"result", job_result},
  {"progress", job_progress},
  {"cancel", job_cancel},
  {"close", job_close},
  {NULL, NULL}
};

static const luaL_Reg job_funcs[] = {
  {"buildJob", navmesh_build_job},
  {"buildCacheJob", navmesh_build_cache_job},
  {NULL, NULL}
};

/* The BuildJob class (close is also __gc and __close) and navmesh.buildJob. */
void lnm_open_buildjob(lua_State *L) {
  lnm_object_class(L, LNM_JOB, job_methods, job_close, job_tostring);
  luaL_setfuncs(L, job_funcs, 0);
}
