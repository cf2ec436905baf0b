/* lua_oom.c -- out of memory through the Lua binding (built as
 * build/asan/tests/test_lua_oom; embeds liblua5.4 and the binding, src/lua/lmodule.c).
 *
 * Each scenario is a Lua chunk run in a fresh state whose allocator fails
 * every allocation from the Nth on, for N = 1, 2, ... until the chunk runs
 * through without meeting a failure. The handles use the state's allocator,
 * so core memory is counted too. Every run must either finish (the chunk
 * returns "ok") or raise "not enough memory" -- never return nil, msg for
 * an out-of-memory condition -- and after lua_close no byte may be live
 * (the half-made handle or buffer of a failed call is not leaked).
 *
 * The big_blocks scenarios fail the other way hosts do (skynet.memlimit):
 * only blocks above a size are refused (size_cap in track_alloc.h), for
 * sizes from 64 bytes up, so one large buffer fails while every small
 * allocation around it works; the same rules hold. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "tap.h"
#include "fixture.h"
#include "track_alloc.h"

int luaopen_navmesh_core(lua_State *L);

/* ---- an allocator that fails from the Nth allocation on ---- */

typedef struct lim {
  size_t live;
  long allocs, fail_from; /* fail_from 0: never */
  int failed, bad_size;
} lim;

typedef struct block { size_t size; size_t pad; } block;

static void *lim_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lim *c = (lim *)ud;
  block *b = ptr ? (block *)ptr - 1 : NULL;
  if (b && b->size != osize) c->bad_size++;
  if (nsize == 0) {
    if (b) { c->live -= b->size; free(b); }
    return NULL;
  }
  if (!b || nsize > osize) {
    c->allocs++;
    if (c->fail_from && c->allocs >= c->fail_from) { c->failed = 1; return NULL; }
  }
  {
    block *nb = (block *)realloc(b, sizeof(block) + nsize);
    if (!nb) return NULL;
    c->live += nsize - (b ? nb->size : 0);
    nb->size = nsize;
    return nb + 1;
  }
}

/* ---- fixture data handed to the chunks as globals ---- */

static char *g_mset, *g_own;
static size_t g_mset_len, g_own_len;
static char g_path[64] = "/tmp/navmesh-oom-XXXXXX", g_out[80], g_obj[80];

/* A floor with a block on it, as OBJ text (build scenarios). */
static const char obj_text[] =
    "v 0 0 0\nv 20 0 0\nv 20 0 20\nv 0 0 20\nv 8 0 8\nv 12 0 8\nv 12 0 12\nv 8 0 12\n"
    "v 8 3 8\nv 12 3 8\nv 12 3 12\nv 8 3 12\nf 1 4 3 2\nf 9 12 11 10\nf 5 6 10 9\nf 6 7 11 10\n"
    "f 7 8 12 11\nf 8 5 9 12\n";

static void make_data(void) {
  nm_navmesh *m;
  void *b;
  size_t n;
  FILE *f;
  int fd;
  if (fz_fixture_mesh(&m) != NM_OK) abort();
  nm_navmesh_save(m, NM_FORMAT_MSET, &b, &n);
  g_mset = (char *)malloc(n);
  memcpy(g_mset, b, g_mset_len = n);
  nm_free_bytes(m, b, n);
  nm_navmesh_save(m, NM_FORMAT_NATIVE, &b, &n);
  g_own = (char *)malloc(n);
  memcpy(g_own, b, g_own_len = n);
  nm_free_bytes(m, b, n);
  nm_navmesh_release(m);
  if ((fd = mkstemp(g_path)) < 0 || !(f = fdopen(fd, "wb"))) abort();
  fwrite(g_mset, 1, g_mset_len, f);
  fclose(f);
  snprintf(g_out, sizeof g_out, "%s.out", g_path);
  snprintf(g_obj, sizeof g_obj, "%s.obj", g_path);
  if (!(f = fopen(g_obj, "wb"))) abort();
  fputs(obj_text, f);
  fclose(f);
}

static const char setup_chunk[] =
    "navmesh = require 'navmesh.core'\n"
    "mesh = assert(navmesh.loadString(mset))\n";

/* A fresh state on allocator fn(ud) with the module preloaded and the
 * setup run (the allocator must not fail yet). */
static lua_State *new_state(lua_Alloc fn, void *ud) {
  lua_State *L = lua_newstate(fn, ud);
  if (!L) abort();
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_navmesh_core);
  lua_setfield(L, -2, "navmesh.core");
  lua_pop(L, 1);
  lua_pushlstring(L, g_mset, g_mset_len);
  lua_setglobal(L, "mset");
  lua_pushlstring(L, g_own, g_own_len);
  lua_setglobal(L, "own");
  lua_pushstring(L, g_path);
  lua_setglobal(L, "path");
  lua_pushstring(L, g_out);
  lua_setglobal(L, "outpath");
  lua_pushstring(L, g_obj);
  lua_setglobal(L, "objpath");
  lua_pushstring(L, obj_text);
  lua_setglobal(L, "objtext");
  if (luaL_dostring(L, setup_chunk) != LUA_OK) {
    printf("#   setup failed: %s\n", lua_tostring(L, -1));
    abort();
  }
  return L;
}

/* Runs one scenario with the Nth, N+1th ... allocations failing, N = 1.. */
static void scenario(const char *name, const char *chunk) {
  long n, raised = 0, bad = 0;
  for (n = 1; n < 20000; n++) {
    lim c;
    lua_State *L;
    int st;
    const char *res;
    memset(&c, 0, sizeof c);
    L = new_state(lim_alloc, &c);
    if (luaL_loadstring(L, chunk) != LUA_OK) {
      printf("#   %s: %s\n", name, lua_tostring(L, -1));
      bad++;
      lua_close(L);
      break;
    }
    c.allocs = 0;
    c.fail_from = n;
    st = lua_pcall(L, 0, 1, 0);
    c.fail_from = 0;
    res = lua_tostring(L, -1);
    if (st == LUA_OK) {
      if (!res || strcmp(res, "ok") != 0) {
        printf("#   %s, allocations from %ld failing: returned %s\n", name, n, res ? res : "(not a string)");
        bad++;
      }
    } else if (!res || !strstr(res, "not enough memory")) {
      printf("#   %s, allocations from %ld failing: raised %s\n", name, n, res ? res : "(not a string)");
      bad++;
    } else {
      raised++;
    }
    lua_close(L);
    if (c.live != 0 || c.bad_size) {
      printf("#   %s, allocations from %ld failing: %lu bytes live after lua_close, %d size mismatches\n",
             name, n, (unsigned long)c.live, c.bad_size);
      bad++;
    }
    if (!c.failed) break; /* (an "ok" after a failure: Lua tolerated it, e.g. a table resize) */
  }
  printf("# %-22s %4ld allocations: %ld runs raised 'not enough memory', %ld problems\n", name, n - 1,
         raised, bad);
  CHECK(bad == 0);
  CHECK(n > 1);
}

/* Runs chunk (in a fresh state each time) with every block above `limit`
 * bytes refused, limit = 64, 128, ... until a run meets no refusal: each run
 * returns "ok" or raises "not enough memory", and leaves no byte live. */
static void big_scenario(const char *name, const char *chunk) {
  size_t limit;
  long raised = 0, bad = 0, runs = 0;
  for (limit = 64; limit < ((size_t)1 << 30); limit *= 2) {
    size_cap c;
    lua_State *L;
    const char *res;
    int st;
    memset(&c, 0, sizeof c);
    c.limit = (size_t)-1;
    L = new_state(size_cap_fn, &c);
    if (luaL_loadstring(L, chunk) != LUA_OK) abort();
    c.limit = limit;
    st = lua_pcall(L, 0, 1, 0);
    c.limit = (size_t)-1;
    res = lua_tostring(L, -1);
    runs++;
    if (st == LUA_OK ? (!res || strcmp(res, "ok") != 0) : (!res || !strstr(res, "not enough memory"))) {
      printf("#   %s, blocks above %lu bytes refused: %s %s\n", name, (unsigned long)limit,
             st == LUA_OK ? "returned" : "raised", res ? res : "(not a string)");
      bad++;
    } else if (st != LUA_OK) {
      raised++;
    }
    lua_close(L);
    if (c.t.live != 0 || c.t.bad_sizes) {
      printf("#   %s, blocks above %lu bytes refused: %ld bytes live after lua_close, %ld size mismatches\n",
             name, (unsigned long)limit, c.t.live, c.t.bad_sizes);
      bad++;
    }
    if (!c.refused) break;
  }
  printf("# %-22s %2ld limits: %ld runs raised 'not enough memory', %ld problems\n", name, runs, raised, bad);
  CHECK(bad == 0);
  CHECK(raised > 0);
}

TEST(big_blocks) {
  big_scenario("load file, big", "local m, e = navmesh.load(path) if not m then return 'nil: ' .. e end "
                                 "return 'ok'");
  big_scenario("loadString, big", "local m, e = navmesh.loadString(mset) if not m then return 'nil: ' .. e end "
                                  "return 'ok'");
  big_scenario("buildObj, big", "local m, e = navmesh.buildObj(objpath, {cellSize = 0.5}) "
                                "return m and 'ok' or ('nil: ' .. tostring(e))");
  big_scenario("share and open, big",
               "local ok, m = pcall(function() assert(mesh:share('big', {replace = true}))\n"
               "  return navmesh.open('big', {maxNodes = 8000}) end)\n"
               "navmesh.unshare('big') if not ok then error(m, 0) end return m and 'ok' or 'nil'");
}

TEST(load) {
  scenario("loadString MSET", "local m, e = navmesh.loadString(mset) if not m then return 'nil: ' .. e end "
                              "m:close() return 'ok'");
  scenario("loadString NMSH", "local m, e = navmesh.loadString(own, {maxNodes = 100}) if not m then return "
                              "'nil: ' .. e end return 'ok'");
  scenario("load file", "local m, e = navmesh.load(path) if not m then return 'nil: ' .. e end return 'ok'");
  scenario("loadString bad bytes", "local m, e, c = navmesh.loadString(mset:sub(1, 100)) "
                                   "return (m == nil and c == 'ERR_DATA') and 'ok' or 'loaded?'");
}

TEST(make) {
  scenario("fromPolygons",
           "local m = navmesh.fromPolygons{vertices = {0,0,0, 4,0,0, 4,0,4, 0,0,4, 8,0,0, 8,0,4},\n"
           "  polygons = {{1,2,3,4}, {2,5,6,3}}, areas = {0, 1}, flags = {1, 2},\n"
           "  offMeshConnections = {{start = {1,0,1}, ['end'] = {7,0,3}, radius = 0.5}}}\n"
           "return m and 'ok' or 'nil'");
  scenario("new, removeTile, addTile",
           "local m = navmesh.new{origin = {0,0,0}, tileWidth = 8, maxTiles = 16, maxPolys = 64}\n"
           "local blob = mesh:removeTile(1, 1) if not blob then return 'nil remove' end\n"
           "return m:addTile(blob) and 'ok' or 'nil add'");
  scenario("filter", "local f = navmesh.filter{include = 3, exclude = 4, areaCost = {[2] = 5}} "
                     "f:areaCost(3, 2) return 'ok'");
}

TEST(queries) {
  scenario("queries",
           "local f = navmesh.filter{areaCost = {[2] = 5}}\n"
           "local a, ax, ay, az = mesh:findNearestPoly(2, 0.2, 2, 2, 4, 2, f)\n"
           "local b, bx, by, bz = mesh:findNearestPoly(21, 1.5, 22)\n"
           "local polys = mesh:findPath(a, b, ax, ay, az, bx, by, bz, f)\n"
           "local pts, flags, refs = mesh:findStraightPath(ax, ay, az, bx, by, bz, polys,\n"
           "  {crossings = 'all', inset = 0.3})\n"
           "local p2 = mesh:path(2, 0.2, 2, 21, 1.5, 22, {maxPoints = 8})\n"
           "local all = mesh:polyRefs()\n"
           "local v = mesh:getPolyVerts(a)\n"
           "local x = mesh:closestPointOnPoly(a, 21, 0, 22)\n"
           "local h = mesh:getPolyHeight(a, ax, ay, az)\n"
           "local info, s = mesh:info(), tostring(mesh)\n"
           "return (#polys > 1 and #pts >= 6 and #flags == #refs and #p2 >= 6 and #all > 9\n"
           "  and #v >= 9 and x and h and info.tiles == 9 and s) and 'ok' or 'bad result'");
}

TEST(save) {
  scenario("saveString", "local s, t = mesh:saveString('mset'), mesh:saveString('native') "
                         "return (#s == #mset and #t > 0) and 'ok' or 'bad bytes'");
  scenario("save file", "return mesh:save(outpath) and 'ok' or 'nil'");
}

TEST(build) {
  scenario("parseObj", "local v, t = navmesh.parseObj(objtext) "
                       "return (v and #v == 36 and #t == 36) and 'ok' or 'nil'");
  scenario("build", "local v, t = navmesh.parseObj(objtext)\n"
                    "local m = navmesh.build(v, t, {cellSize = 0.5, tileSize = 16})\n"
                    "return m and 'ok' or 'nil'");
  scenario("buildObj", "local m, e = navmesh.buildObj(objpath, {cellSize = 0.5}) "
                       "return m and 'ok' or ('nil: ' .. tostring(e))");
}

TEST(debug) {
  scenario("debug data", "local ref = mesh:polyRefs()[1]\n"
                         "local d, o, od = mesh:getPolyDetail(ref), mesh:toOBJ(), mesh:toOBJ{detail = true}\n"
                         "local s = mesh:getDebugScene{decimals = 3}\n"
                         "local s2 = mesh:getDebugScene{bmin = {0, -9, 0}, bmax = {8, 9, 8}}\n"
                         "mesh:findPath(ref, ref, 1, 0, 1, 1, 0, 1) local n = mesh:getNodePool()\n"
                         "return (#d >= 9 and #o > 0 and #od > #o and #s.polys.refs > #s2.polys.refs and #n.refs >= 1)\n"
                         "  and 'ok' or 'bad result'");
}

/* A crowd on the fixture: made, agents added (a filter, ORCA for some),
 * targets, updates (corridors grow, paths are queued), read back, an agent
 * removed, the update on two threads: every allocation of add and update
 * failing in turn. */
static const char crowd_chunk[] =
    "local c = navmesh.crowd(mesh, {maxAgents = 8, maxAgentRadius = 0.5, threads = 2})\n"
    "local f = navmesh.filter{exclude = 4}\n"
    "local ids = {}\n"
    "for i = 1, 4 do\n"
    "  ids[i] = assert(c:addAgent(1 + i, 0.2, 2, {radius = 0.4, filter = f, avoidance = i % 2 == 0 and 'orca' or nil}))\n"
    "end\n"
    "for i = 1, 4 do assert(c:requestMoveTarget(ids[i], 21, 1.5, 22)) end\n"
    "for k = 1, 30 do c:update(0.05) end\n"
    "local pos, n = c:positions({}, {})\n"
    "local a = c:getAgent(ids[1])\n"
    "c:removeAgent(ids[2])\n"
    "c:setObstacleAvoidanceParams(1, 'high')\n"
    "return (n == 4 and #pos == 12 and #a.corridor > 1) and 'ok' or ('bad result ' .. n .. ' ' .. #a.corridor)";

TEST(crowd) {
  scenario("crowd", crowd_chunk);
  big_scenario("crowd, big", "local c = navmesh.crowd(mesh, {maxAgents = 2000})\n"
                             "local id = assert(c:addAgent(2, 0.2, 2))\n"
                             "assert(c:requestMoveTarget(id, 21, 1.5, 22))\n"
                             "for k = 1, 10 do c:update(0.05) end return 'ok'");
}

/* Tile caches, tiles, jobs: the floor of objtext in 8 x 8 m layers. */
#define CACHE_SETUP                                                               \
  "local v, t = navmesh.parseObj(objtext)\n"                                      \
  "local cfg = {cellSize = 0.5, tileSize = 16}\n"
TEST(cache) {
  scenario("buildCache", CACHE_SETUP "local c, m = navmesh.buildCache(v, t, cfg) return c and m and 'ok' or 'nil'");
  scenario("cache obstacles, update",
           CACHE_SETUP "local c, m = assert(navmesh.buildCache(v, t, cfg))\n"
           "local a = assert(c:addObstacle{kind = 'cylinder', center = {4, 0, 4}, radius = 1, height = 2})\n"
           "local b = assert(c:addObstacle{kind = 'convex', vertices = {14,0,14, 16,0,14, 15,0,17}, hmin = -1, hmax = 2})\n"
           "c:update(1) c:update()\n"
           "assert(c:moveObstacle(a, {kind = 'obox', center = {4, 0, 16}, halfExtents = {1, 1, 1}, yaw = 1}))\n"
           "c:update() local list = c:obstacles()\n"
           "assert(c:removeObstacle(b)) c:update()\n"
           "return (#list == 2 and m:info().tiles > 0 and c:info().obstacles == 1) and 'ok' or 'bad result'");
  scenario("cache save, load",
           CACHE_SETUP "local c = assert(navmesh.buildCache(v, t, cfg))\n"
           "local s = c:saveString() local c2, m2 = navmesh.loadCacheString(s)\n"
           "local c3 = navmesh.loadCacheString(s:sub(1, 100))\n"
           "return (c2 and m2 and not c3 and c:save(outpath)) and 'ok' or 'nil'");
  scenario("cache share, refresh",
           CACHE_SETUP "local c, m = assert(navmesh.buildCache(v, t, cfg))\n"
           "local ok, r = pcall(function()\n"
           "  assert(c:share('oomc'))\n"
           "  local h = assert(navmesh.open('oomc'))\n"
           "  c:addObstacle{kind = 'box', bmin = {3, -1, 3}, bmax = {5, 2, 5}} c:update()\n"
           "  return h:refresh() and 'ok' or 'no move' end)\n"
           "navmesh.unshare('oomc') if not ok then error(r, 0) end return r");
  scenario("edit, draft share",
           "local ok, r = pcall(function()\n"
           "  assert(mesh:share('oomd', {replace = true}))\n"
           "  local d = assert(mesh:edit())\n"
           "  local b = assert(d:removeTile(1, 1))\n"
           "  assert(d:addTile(b, {ref = mesh:tiles()[1].ref}) or true)\n"
           "  assert(d:share('oomd', {replace = true}))\n"
           "  return mesh:refresh() and 'ok' or 'no move' end)\n"
           "navmesh.unshare('oomd') if not ok then error(r, 0) end return r");
  scenario("buildTile, tiles",
           CACHE_SETUP "local p, tx, ty = navmesh.tileGrid(v, cfg)\n"
           "local b = navmesh.buildTile(v, t, cfg, 0, 0) local l = mesh:tiles() local g = mesh:getTile(1, 1)\n"
           "return (b and tx > 0 and #l == 9 and g) and 'ok' or 'nil'");
  scenario("buildJob",
           CACHE_SETUP "local job = navmesh.buildJob(v, t, cfg)\n"
           "local m repeat m = job:result() until m\n"
           "job:close() return m:info().tiles > 0 and 'ok' or 'bad result'");
  scenario("buildCacheJob",
           CACHE_SETUP "local job = navmesh.buildCacheJob(v, t, cfg)\n"
           "local c, m repeat c, m = job:result() until c or m\n"
           "job:close() return (c and m:info().tiles > 0) and 'ok' or 'bad result'");
}

int main(void) {
  make_data();
  RUN(load);
  RUN(make);
  RUN(queries);
  RUN(save);
  RUN(build);
  RUN(debug);
  RUN(cache);
  RUN(big_blocks);
  RUN(crowd);
  unlink(g_path);
  unlink(g_obj);
  unlink(g_out);
  free(g_mset);
  free(g_own);
  return tap_done();
}
