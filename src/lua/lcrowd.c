/* lcrowd.c -- the Crowd object: navmesh.crowd(mesh, config) and its
 * methods in DetourCrowd's names (addAgent, requestMoveTarget, update,
 * getAgent ...), over the C crowd (src/crowd, docs/crowd.md).
 *
 * A crowd holds a reference to its mesh (the core's count: closing or
 * dropping the NavMesh handle does not free the mesh under it) and its own
 * query state, so it works on shared meshes (navmesh.open) as on meshes of
 * its own state; it keeps its handle too and follows it to newer versions
 * of the mesh. Its memory comes from the state's account (lnm_acct_alloc)
 * and is charged to the collector. positions() and velocities() fill one
 * reused table from scratch arrays allocated with the crowd: no garbage per
 * tick. Agent ids are the core's (a slot with a salt): integers that stay
 * invalid once their agent is removed. */
#include "lnm.h"

#define LNM_CROWD "navmesh.Crowd"

typedef struct lnm_crowd {
  nm_crowd *crowd;          /* NULL once closed */
  nm_navmesh *mesh;         /* the crowd's mesh (the crowd holds a reference) */
  lnm_mesh *handle;         /* the NavMesh handle it was made on (kept alive by */
  int handle_ref;           /* this registry reference): the crowd follows it */
  nm_alloc alloc;           /* the state's account */
  int cap;                  /* maxAgents */
  float *pos, *vel;         /* [3 * cap] positions and velocities, scratch */
  int *ids;                 /* [cap] */
  nm_polyref *corridor;     /* getAgent's corridor scratch [corridor_cap] */
  int corridor_cap;
  float radius;             /* maxAgentRadius: an agent's default radius */
  size_t charged;           /* bytes charged to the collector */
} lnm_crowd;

static const char *const state_names[] = {"invalid", "walking", "offmesh", NULL};
static const char *const target_names[] = {"none", "failed", "valid", "requesting", "waitingForQueue",
                                           "waitingForPath", "velocity", NULL};

/* ---- lifetime ---- */

static void free_block(lnm_crowd *h, void *p, size_t n) {
  if (p) h->alloc.fn(h->alloc.ud, p, n, 0);
}

/* Frees everything the crowd owns; idempotent. */
static void free_crowd(lua_State *L, lnm_crowd *h) {
  if (h->handle_ref > 0) luaL_unref(L, LUA_REGISTRYINDEX, h->handle_ref);
  h->handle_ref = 0;
  h->handle = NULL;
  lnm_gc_refund(&h->alloc, &h->charged);
  nm_crowd_free(h->crowd);
  h->crowd = NULL;
  h->mesh = NULL;
  free_block(h, h->pos, (size_t)h->cap * 3 * sizeof(float));
  free_block(h, h->vel, (size_t)h->cap * 3 * sizeof(float));
  free_block(h, h->ids, (size_t)h->cap * sizeof(int));
  free_block(h, h->corridor, (size_t)h->corridor_cap * sizeof(nm_polyref));
  h->pos = h->vel = NULL;
  h->ids = NULL;
  h->corridor = NULL;
  h->corridor_cap = 0;
}

static int crowd_close(lua_State *L) {
  free_crowd(L, (lnm_crowd *)luaL_checkudata(L, 1, LNM_CROWD));
  return 0;
}

/* The open crowd at idx; raises on a closed one. The crowd follows its
 * NavMesh handle: when the handle moved to another version of the mesh (a
 * tile cache publishing versions, mesh:refresh(), mesh:share() moving it
 * onto the shared copy), the crowd moves too, so agents see the changes. */
static lnm_crowd *check_crowd(lua_State *L, int idx) {
  lnm_crowd *h = (lnm_crowd *)luaL_checkudata(L, idx, LNM_CROWD);
  if (!h->crowd) luaL_error(L, "attempt to use a closed " LNM_CROWD);
  if (h->handle && h->handle->mesh && h->handle->mesh != h->mesh) {
    nm_crowd_set_navmesh(h->crowd, h->handle->mesh);
    h->mesh = h->handle->mesh;
  }
  return h;
}

/* Charges the collector for what the state's account gained since `before`
 * (the crowd was the only one allocating meanwhile). */
static void charge_since(lua_State *L, lnm_crowd *h, size_t before) {
  size_t now = lnm_acct_bytes(L);
  if (now > before) lnm_gc_charge_to(L, &h->alloc, &h->charged, now - before);
}

static int crowd_tostring(lua_State *L) {
  lnm_crowd *h = (lnm_crowd *)luaL_checkudata(L, 1, LNM_CROWD);
  if (!h->crowd) lua_pushliteral(L, LNM_CROWD " (closed)");
  else
    lua_pushfstring(L, LNM_CROWD " (%d of %d agents): %p", nm_crowd_agent_count(h->crowd), h->cap,
                    (void *)h);
  return 1;
}

/* ---- options ---- */

/* Field `key` of option table t as a number > 0 (def when absent). */
static float field_positive(lua_State *L, int t, const char *key, float def) {
  lua_Number v = lnm_field_number(L, t, key, def, 0);
  if (!(v > 0) || v > 3.0e38) lnm_opterror(L, key, "finite number > 0 expected, got %s", lnm_number(L, v));
  return (float)v;
}

/* navmesh.crowd's configuration table at t (0: none) into cfg. */
static void read_config(lua_State *L, int t, nm_crowd_config *cfg) {
  static const char *const limits[] = {"none", "detour", NULL};
  int max_agents = 128, detour = 0;
  float radius = 0.6f;
  if (t) {
    max_agents = (int)lnm_field_int(L, t, "maxAgents", 128, 1, 65535);
    radius = field_positive(L, t, "maxAgentRadius", 0.6f);
    lua_getfield(L, t, "limits");
    detour = lua_isnil(L, -1) ? 0 : lnm_checkoption(L, lua_gettop(L), NULL, limits);
    lua_pop(L, 1);
  }
  if (detour) nm_crowd_config_detour(cfg, max_agents, radius);
  else nm_crowd_config_init(cfg, max_agents, radius);
  if (!t) return;
  cfg->max_path = (int)lnm_field_int(L, t, "maxPath", cfg->max_path, 0, 1 << 24);
  if (cfg->max_path != 0 && cfg->max_path < 32)
    lnm_opterror(L, "maxPath", "0 (no limit) or 32..16777216 expected, got %d", cfg->max_path);
  cfg->search_nodes = (int)lnm_field_int(L, t, "searchNodes", cfg->search_nodes, 0, 1 << 22);
  if (cfg->search_nodes != 0 && cfg->search_nodes < 64)
    lnm_opterror(L, "searchNodes", "0 (twice the polygons) or 64..4194304 expected, got %d", cfg->search_nodes);
  cfg->max_iterations = (int)lnm_field_int(L, t, "maxIterations", cfg->max_iterations, 1, INT_MAX);
  cfg->queue_size = (int)lnm_field_int(L, t, "queueSize", cfg->queue_size, 1, 64);
  cfg->island_targets = lnm_field_bool(L, t, "islandTargets", cfg->island_targets);
  cfg->threads = (int)lnm_field_int(L, t, "threads", 1, 1, 64);
}

static const char *const agent_keys[] = {
  "radius", "height", "maxAcceleration", "maxSpeed", "collisionQueryRange", "pathOptimizationRange",
  "separationWeight", "obstacleAvoidanceType", "updateFlags", "anticipateTurns", "obstacleAvoidance",
  "separation", "optimizeVis", "optimizeTopo", "filter", "avoidance", NULL};

/* The update flags: updateFlags (Detour's bits) then the booleans. */
static unsigned read_flags(lua_State *L, int t, unsigned flags) {
  static const struct { const char *key; unsigned bit; } names[] = {
    {"anticipateTurns", NM_CROWD_ANTICIPATE_TURNS}, {"obstacleAvoidance", NM_CROWD_OBSTACLE_AVOIDANCE},
    {"separation", NM_CROWD_SEPARATION}, {"optimizeVis", NM_CROWD_OPTIMIZE_VIS},
    {"optimizeTopo", NM_CROWD_OPTIMIZE_TOPO}};
  size_t i;
  flags = (unsigned)lnm_field_int(L, t, "updateFlags", (lua_Integer)flags, 0, NM_CROWD_ALL_FLAGS);
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    const int on = lnm_field_bool(L, t, names[i].key, (flags & names[i].bit) != 0);
    flags = on ? flags | names[i].bit : flags & ~names[i].bit;
  }
  return flags;
}

/* Agent parameters from option table t over p (p holds the values of keys
 * that are absent: defaults for a new agent, the current ones for an
 * update). A radius given to a new agent sets the defaults that follow it
 * (ranges 12 and 30 radii). */
static void read_agent_params(lua_State *L, int t, nm_crowd_agent_params *p, int fresh) {
  static const char *const methods[] = {"sampled", "orca", NULL};
  if (!t) return;
  if (fresh) {
    lua_Number r = lnm_field_number(L, t, "radius", p->radius, 0);
    if (r > 3.0e38) lnm_opterror(L, "radius", "finite number >= 0 expected, got %s", lnm_number(L, r));
    nm_crowd_agent_params_init(p, (float)r);
  }
  p->radius = (float)lnm_field_number(L, t, "radius", p->radius, 0);
  p->height = field_positive(L, t, "height", p->height);
  p->max_acceleration = (float)lnm_field_number(L, t, "maxAcceleration", p->max_acceleration, 0);
  p->max_speed = (float)lnm_field_number(L, t, "maxSpeed", p->max_speed, 0);
  p->collision_query_range = field_positive(L, t, "collisionQueryRange", p->collision_query_range);
  p->path_optimization_range = field_positive(L, t, "pathOptimizationRange", p->path_optimization_range);
  p->separation_weight = (float)lnm_field_number(L, t, "separationWeight", p->separation_weight, 0);
  p->avoidance_type = (int)lnm_field_int(L, t, "obstacleAvoidanceType", p->avoidance_type, 0,
                                         NM_CROWD_MAX_AVOIDANCE_PARAMS - 1);
  p->update_flags = read_flags(L, t, p->update_flags);
  lua_getfield(L, t, "filter");
  if (!lua_isnil(L, -1)) p->filter = lnm_field_filter(L, t, "filter");
  lua_pop(L, 1);
  lua_getfield(L, t, "avoidance");
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING || (strcmp(lua_tostring(L, -1), "sampled") && strcmp(lua_tostring(L, -1), "orca")))
      lnm_opterror(L, "avoidance", "\"sampled\" or \"orca\" expected, got %s", lnm_got(L, lua_gettop(L)));
    p->avoidance = strcmp(lua_tostring(L, -1), methods[1]) == 0 ? NM_AVOID_ORCA : NM_AVOID_SAMPLED;
  }
  lua_pop(L, 1);
}

/* ---- making a crowd ---- */

/* Allocates n bytes from the crowd's allocator; raises when out of memory
 * (the crowd, already on the stack, frees what was made at collection). */
static void *crowd_block(lua_State *L, lnm_crowd *h, size_t n) {
  void *p = h->alloc.fn(h->alloc.ud, NULL, 0, n);
  if (!p) luaL_error(L, "navmesh.crowd: not enough memory");
  return p;
}

/* navmesh.crowd(mesh [, {maxAgents=, maxAgentRadius=, limits=, maxPath=,
 * searchNodes=, maxIterations=, queueSize=, islandTargets=, threads=}]) -> Crowd */
static int navmesh_crowd(lua_State *L) {
  static const char *const keys[] = {"maxAgents", "maxAgentRadius", "limits", "maxPath", "searchNodes",
                                     "maxIterations", "queueSize", "islandTargets", "threads", NULL};
  lnm_mesh *m = lnm_check_mesh(L, 1);
  int t = lnm_opt_table(L, 2, keys);
  size_t before = lnm_acct_bytes(L);
  nm_crowd_config cfg;
  nm_diag diag;
  nm_status st;
  lnm_crowd *h;
  read_config(L, t, &cfg);
  h = (lnm_crowd *)lua_newuserdata(L, sizeof *h);
  memset(h, 0, sizeof *h);
  lnm_acct_alloc(L, &h->alloc);
  luaL_setmetatable(L, LNM_CROWD);
  memset(&diag, 0, sizeof diag);
  if ((st = nm_crowd_new(m->mesh, &cfg, &h->alloc, &diag, &h->crowd)) < 0)
    lnm_raise_status(L, "navmesh.crowd", st, &diag);
  h->mesh = m->mesh;
  lua_pushvalue(L, 1);
  h->handle_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  h->handle = m;
  h->cap = cfg.max_agents;
  h->radius = cfg.max_agent_radius;
  h->pos = (float *)crowd_block(L, h, (size_t)h->cap * 3 * sizeof(float));
  h->vel = (float *)crowd_block(L, h, (size_t)h->cap * 3 * sizeof(float));
  h->ids = (int *)crowd_block(L, h, (size_t)h->cap * sizeof(int));
  charge_since(L, h, before);
  return 1;
}

/* ---- agents ---- */

/* Agent id argument idx, which must name an agent of the crowd. */
static int check_agent(lua_State *L, lnm_crowd *h, int idx) {
  lua_Integer id = lnm_checkinteger(L, idx);
  nm_crowd_agent_params p;
  if (id < 0 || id > INT_MAX || nm_crowd_get_agent_params(h->crowd, (int)id, &p) < 0)
    luaL_argerror(L, idx, lua_pushfstring(L, "unknown or removed agent id %s", lnm_got(L, idx)));
  return (int)id;
}

/* crowd:addAgent(x, y, z [, params]) -> id | nil, msg, "ERR_FULL" | "ERR_NO_POLY" */
static int crowd_add_agent(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  float pos[3];
  int t, id;
  size_t before = lnm_acct_bytes(L);
  nm_crowd_agent_params p;
  nm_status st;
  lnm_check_point(L, 2, pos);
  t = lnm_opt_table(L, 5, agent_keys);
  nm_crowd_agent_params_init(&p, h->radius);
  read_agent_params(L, t, &p, 1);
  st = nm_crowd_add_agent(h->crowd, pos, &p, &id);
  charge_since(L, h, before);
  if (st == NM_ERR_FULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "addAgent: the crowd is full (maxAgents %d)", h->cap);
    lua_pushliteral(L, "ERR_FULL");
    return 3;
  }
  if (st == NM_ERR_NO_POLY) return lnm_push_fail(L, "addAgent", st, NULL);
  if (st < 0) lnm_raise_status(L, "addAgent", st, NULL);
  lua_pushinteger(L, id);
  return 1;
}

/* crowd:removeAgent(id) */
static int crowd_remove_agent(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  nm_crowd_remove_agent(h->crowd, check_agent(L, h, 2));
  return 0;
}

/* crowd:updateAgentParameters(id, params): keys not given keep their values. */
static int crowd_update_params(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  int id = check_agent(L, h, 2), t;
  nm_crowd_agent_params p;
  nm_filter f;
  luaL_checktype(L, 3, LUA_TTABLE);
  t = lnm_opt_table(L, 3, agent_keys);
  nm_crowd_get_agent_params(h->crowd, id, &p);
  f = *p.filter; /* the agent's copy: kept unless a filter is given */
  p.filter = &f;
  read_agent_params(L, t, &p, 0);
  if (nm_crowd_update_agent_params(h->crowd, id, &p) < 0) lnm_raise_status(L, "updateAgentParameters", NM_ERR_PARAM, NULL);
  return 0;
}

/* Sets field k of the table on top to v. */
static void set_number(lua_State *L, const char *k, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}
static void set_bool(lua_State *L, const char *k, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

/* crowd:getAgentParameters(id) -> params table (the filter as a copy) */
static int crowd_get_params(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  nm_crowd_agent_params p;
  nm_filter *f;
  nm_crowd_get_agent_params(h->crowd, check_agent(L, h, 2), &p);
  lua_createtable(L, 0, 16);
  set_number(L, "radius", p.radius);
  set_number(L, "height", p.height);
  set_number(L, "maxAcceleration", p.max_acceleration);
  set_number(L, "maxSpeed", p.max_speed);
  set_number(L, "collisionQueryRange", p.collision_query_range);
  set_number(L, "pathOptimizationRange", p.path_optimization_range);
  set_number(L, "separationWeight", p.separation_weight);
  lnm_set_int(L, "obstacleAvoidanceType", p.avoidance_type);
  lnm_set_int(L, "updateFlags", (lua_Integer)p.update_flags);
  set_bool(L, "anticipateTurns", (p.update_flags & NM_CROWD_ANTICIPATE_TURNS) != 0);
  set_bool(L, "obstacleAvoidance", (p.update_flags & NM_CROWD_OBSTACLE_AVOIDANCE) != 0);
  set_bool(L, "separation", (p.update_flags & NM_CROWD_SEPARATION) != 0);
  set_bool(L, "optimizeVis", (p.update_flags & NM_CROWD_OPTIMIZE_VIS) != 0);
  set_bool(L, "optimizeTopo", (p.update_flags & NM_CROWD_OPTIMIZE_TOPO) != 0);
  lua_pushstring(L, p.avoidance == NM_AVOID_ORCA ? "orca" : "sampled");
  lua_setfield(L, -2, "avoidance");
  f = (nm_filter *)lua_newuserdata(L, sizeof *f);
  *f = *p.filter;
  luaL_setmetatable(L, LNM_FILTER);
  lua_setfield(L, -2, "filter");
  return 1;
}

/* ---- move requests ---- */

/* crowd:requestMoveTarget(id, x, y, z [, ref]) -> true | nil, msg, "ERR_NO_POLY".
 * Without ref the target is snapped to the nearest polygon (the agent's
 * filter, the crowd's placement box); with ref (Detour's form) it is used
 * as given. */
static int crowd_request_target(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  int id = check_agent(L, h, 2);
  float pos[3];
  nm_status st;
  lnm_check_point(L, 3, pos);
  if (lua_isnoneornil(L, 6)) {
    st = nm_crowd_request_move_target(h->crowd, id, pos);
    if (st == NM_ERR_NO_POLY) return lnm_push_fail(L, "requestMoveTarget", st, NULL);
  } else {
    lua_Integer ref = lnm_checkinteger(L, 6);
    if (ref <= 0 || ref > (lua_Integer)0xffffffffu || !nm_navmesh_is_valid_ref(h->mesh, (nm_polyref)ref))
      luaL_argerror(L, 6, lua_pushfstring(L, "invalid polygon reference %s (not in the crowd's mesh)", lnm_got(L, 6)));
    st = nm_crowd_request_move_target_ref(h->crowd, id, (nm_polyref)ref, pos);
  }
  if (st < 0) lnm_raise_status(L, "requestMoveTarget", st, NULL);
  lua_pushboolean(L, 1);
  return 1;
}

/* crowd:requestMoveVelocity(id, vx, vy, vz) -> true */
static int crowd_request_velocity(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  int id = check_agent(L, h, 2);
  float vel[3];
  lnm_check_point(L, 3, vel);
  nm_crowd_request_move_velocity(h->crowd, id, vel);
  lua_pushboolean(L, 1);
  return 1;
}

/* crowd:resetMoveTarget(id) -> true */
static int crowd_reset_target(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  nm_crowd_reset_move_target(h->crowd, check_agent(L, h, 2));
  lua_pushboolean(L, 1);
  return 1;
}

/* crowd:update(dt): one step of dt seconds. Out of memory raises (the step
 * was still done: a path that could not be stored whole is planned again). */
static int crowd_update(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  lua_Number dt = luaL_checknumber(L, 2);
  size_t before = lnm_acct_bytes(L);
  nm_status st;
  if (!isfinite(dt) || dt < 0 || dt > 3.0e38)
    luaL_argerror(L, 2, lua_pushfstring(L, "dt must be a finite number >= 0, got %s", lnm_got(L, 2)));
  st = nm_crowd_update(h->crowd, (float)dt);
  charge_since(L, h, before);
  if (st < 0) lnm_raise_status(L, "update", st, NULL);
  return 0;
}

/* ---- reading agents ---- */

/* Sets field k of the table on top to {x, y, z}. */
static void set_vec(lua_State *L, const char *k, const float *v) { lnm_set_vec(L, k, v); }

/* Sets field k of the table on top to a flat list of n numbers. */
static void set_numbers(lua_State *L, const char *k, const float *v, int n) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, k);
}

/* Sets field "corridor" of the table on top to the agent's polygons. */
static void set_corridor(lua_State *L, lnm_crowd *h, int id, int n) {
  int got = 0;
  if (n > h->corridor_cap) {
    int cap = n < 256 ? 256 : n;
    void *p = h->alloc.fn(h->alloc.ud, h->corridor, (size_t)h->corridor_cap * sizeof(nm_polyref),
                          (size_t)cap * sizeof(nm_polyref));
    if (!p) luaL_error(L, "Crowd:getAgent: not enough memory");
    lnm_gc_charge_to(L, &h->alloc, &h->charged, (size_t)(cap - h->corridor_cap) * sizeof(nm_polyref));
    h->corridor = (nm_polyref *)p;
    h->corridor_cap = cap;
  }
  nm_crowd_get_corridor(h->crowd, id, h->corridor, h->corridor_cap, &got);
  lnm_push_refs(L, h->corridor, got);
  lua_setfield(L, -2, "corridor");
}

/* Sets the position, velocity and radius fields (the shape navmesh.debug
 * draws agents from). */
static void set_motion(lua_State *L, const nm_crowd_agent_info *a, float radius) {
  static const char *const k[6] = {"x", "y", "z", "vx", "vy", "vz"};
  int i;
  for (i = 0; i < 3; i++) set_number(L, k[i], a->pos[i]);
  for (i = 0; i < 3; i++) set_number(L, k[3 + i], a->vel[i]);
  set_number(L, "radius", radius);
}

/* crowd:getAgent(id) -> {id, x, y, z, vx, vy, vz, radius, state, targetState,
 * target, targetRef, partial, poly, corridor, corners, cornerRefs,
 * neighbours, desiredVelocity, plannedVelocity, desiredSpeed} */
static int crowd_get_agent(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  int id = check_agent(L, h, 2), i;
  nm_crowd_agent_info a;
  nm_crowd_agent_params p;
  nm_crowd_get_agent(h->crowd, id, &a);
  nm_crowd_get_agent_params(h->crowd, id, &p);
  lua_createtable(L, 0, 24);
  lnm_set_int(L, "id", id);
  set_motion(L, &a, p.radius);
  lua_pushstring(L, state_names[a.state <= NM_AGENT_OFFMESH ? a.state : 0]);
  lua_setfield(L, -2, "state");
  lua_pushstring(L, target_names[a.target_state <= NM_TARGET_VELOCITY ? a.target_state : 0]);
  lua_setfield(L, -2, "targetState");
  if (a.target_state == NM_TARGET_VELOCITY) set_vec(L, "targetVelocity", a.target_pos);
  else if (a.target_ref) {
    set_vec(L, "target", a.target_pos);
    lnm_set_int(L, "targetRef", (lua_Integer)a.target_ref);
  }
  set_bool(L, "partial", a.partial);
  if (a.first_poly) lnm_set_int(L, "poly", (lua_Integer)a.first_poly);
  set_corridor(L, h, id, a.path_count);
  set_numbers(L, "corners", a.corners, 3 * a.ncorners);
  lnm_push_refs(L, a.corner_refs, a.ncorners);
  lua_setfield(L, -2, "cornerRefs");
  lua_createtable(L, a.nneighbours, 0);
  for (i = 0; i < a.nneighbours; i++) {
    lua_pushinteger(L, a.neighbours[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "neighbours");
  set_vec(L, "desiredVelocity", a.dvel);
  set_vec(L, "plannedVelocity", a.nvel);
  set_number(L, "desiredSpeed", a.desired_speed);
  return 1;
}

/* Writes n numbers v into table t at 1..n and clears the entries after
 * them (up to the first nil): the table is reused, nothing is allocated
 * once it has grown to size. */
static void fill_numbers(lua_State *L, int t, const float *v, int n) {
  int i;
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, t, i + 1);
  }
  for (i = n + 1;; i++) {
    int more;
    lua_rawgeti(L, t, i);
    more = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!more) break;
    lua_pushnil(L);
    lua_rawseti(L, t, i);
  }
}

/* The optional output table argument idx (a new one when absent), pushed. */
static int out_table(lua_State *L, int idx, int narr) {
  if (lua_isnoneornil(L, idx)) {
    lua_createtable(L, narr, 0);
    return lua_gettop(L);
  }
  luaL_checktype(L, idx, LUA_TTABLE);
  return lnm_absindex(L, idx);
}

/* positions / velocities: every active agent in slot (id) order into one
 * flat table {x1,y1,z1, x2,...} (argument 2, or a new one); the table at
 * argument 3, when given, gets their ids. -> table, count */
static int push_vectors(lua_State *L, int velocities) {
  lnm_crowd *h = check_crowd(L, 1);
  int n = 0, t, i;
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  nm_crowd_positions(h->crowd, h->pos, h->vel, h->ids, NULL, h->cap, &n);
  t = out_table(L, 2, 3 * n);
  fill_numbers(L, t, velocities ? h->vel : h->pos, 3 * n);
  if (!lua_isnoneornil(L, 3)) {
    for (i = 0; i < n; i++) {
      lua_pushinteger(L, h->ids[i]);
      lua_rawseti(L, 3, i + 1);
    }
    for (i = n + 1;; i++) { /* clear what a larger crowd left */
      lua_rawgeti(L, 3, i);
      if (lua_isnil(L, -1)) break;
      lua_pop(L, 1);
      lua_pushnil(L);
      lua_rawseti(L, 3, i);
    }
    lua_pop(L, 1);
  }
  lua_pushvalue(L, t);
  lua_pushinteger(L, n);
  return 2;
}

/* crowd:positions([out [, ids]]) -> out, count */
static int crowd_positions(lua_State *L) { return push_vectors(L, 0); }
/* crowd:velocities([out [, ids]]) -> out, count */
static int crowd_velocities(lua_State *L) { return push_vectors(L, 1); }

/* crowd:getActiveAgents([out]) -> {id, ...} in update order */
static int crowd_active_agents(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  int n = 0, t, i;
  nm_crowd_positions(h->crowd, h->pos, NULL, h->ids, NULL, h->cap, &n);
  t = out_table(L, 2, n);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, h->ids[i]);
    lua_rawseti(L, t, i + 1);
  }
  lua_pushnil(L);
  lua_rawseti(L, t, n + 1);
  lua_pushvalue(L, t);
  return 1;
}

/* crowd:getAgentCount() -> maxAgents (Detour's meaning: the capacity) */
static int crowd_agent_count(lua_State *L) {
  lua_pushinteger(L, check_crowd(L, 1)->cap);
  return 1;
}

/* crowd:getStats() -> {agents=, maxAgents=, velocitySamples=, pathIterations=,
 * queuedRequests=} of the last update */
static int crowd_stats(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  nm_crowd_stats s;
  nm_crowd_get_stats(h->crowd, &s);
  lua_createtable(L, 0, 5);
  lnm_set_int(L, "agents", nm_crowd_agent_count(h->crowd));
  lnm_set_int(L, "maxAgents", h->cap);
  lnm_set_int(L, "velocitySamples", s.velocity_samples);
  lnm_set_int(L, "pathIterations", s.path_iterations);
  lnm_set_int(L, "queuedRequests", s.queued_requests);
  return 1;
}

/* ---- obstacle avoidance parameters ---- */

static const char *const avoid_keys[] = {"velBias", "weightDesVel", "weightCurVel", "weightSide", "weightToi",
                                         "horizTime", "gridSize", "adaptiveDivs", "adaptiveRings",
                                         "adaptiveDepth", "horizTimeObst", NULL};

/* Avoidance set index argument (Detour's 0..7). */
static int check_avoid_index(lua_State *L, int idx) {
  lua_Integer i = lnm_checkinteger(L, idx);
  if (i < 0 || i >= NM_CROWD_MAX_AVOIDANCE_PARAMS)
    luaL_argerror(L, idx, lua_pushfstring(L, "parameter set 0..7 expected, got %s", lnm_got(L, idx)));
  return (int)i;
}

/* Reads the table at t over p (absent keys keep their values). */
static void read_avoid(lua_State *L, int t, nm_avoidance_params *p) {
  p->vel_bias = (float)lnm_field_number(L, t, "velBias", p->vel_bias, 0);
  if (p->vel_bias > 1) lnm_opterror(L, "velBias", "number in 0..1 expected, got %s", lnm_number(L, p->vel_bias));
  p->weight_des_vel = (float)lnm_field_number(L, t, "weightDesVel", p->weight_des_vel, 0);
  p->weight_cur_vel = (float)lnm_field_number(L, t, "weightCurVel", p->weight_cur_vel, 0);
  p->weight_side = (float)lnm_field_number(L, t, "weightSide", p->weight_side, 0);
  p->weight_toi = (float)lnm_field_number(L, t, "weightToi", p->weight_toi, 0);
  p->horiz_time = field_positive(L, t, "horizTime", p->horiz_time);
  p->grid_size = (int)lnm_field_int(L, t, "gridSize", p->grid_size, 1, 255);
  p->adaptive_divs = (int)lnm_field_int(L, t, "adaptiveDivs", p->adaptive_divs, 1, 32);
  p->adaptive_rings = (int)lnm_field_int(L, t, "adaptiveRings", p->adaptive_rings, 1, 4);
  p->adaptive_depth = (int)lnm_field_int(L, t, "adaptiveDepth", p->adaptive_depth, 1, 16);
  p->horiz_time_obst = field_positive(L, t, "horizTimeObst", p->horiz_time_obst);
}

/* crowd:setObstacleAvoidanceParams(i, params | "low" | "medium" | "good" | "high"):
 * a table sets the keys it has (Detour's names), a name RecastDemo's preset. */
static int crowd_set_avoid(lua_State *L) {
  static const char *const presets[] = {"low", "medium", "good", "high", NULL};
  lnm_crowd *h = check_crowd(L, 1);
  int i = check_avoid_index(L, 2);
  nm_avoidance_params p;
  nm_crowd_get_avoidance_params(h->crowd, i, &p);
  if (lua_type(L, 3) == LUA_TSTRING) {
    nm_avoidance_params_preset(&p, lnm_checkoption(L, 3, NULL, presets));
  } else {
    luaL_checktype(L, 3, LUA_TTABLE);
    lnm_check_keys(L, 3, avoid_keys);
    read_avoid(L, 3, &p);
  }
  if (nm_crowd_set_avoidance_params(h->crowd, i, &p) < 0)
    lnm_raise_status(L, "setObstacleAvoidanceParams", NM_ERR_PARAM, NULL);
  return 0;
}

/* crowd:getObstacleAvoidanceParams(i) -> table */
static int crowd_get_avoid(lua_State *L) {
  lnm_crowd *h = check_crowd(L, 1);
  nm_avoidance_params p;
  nm_crowd_get_avoidance_params(h->crowd, check_avoid_index(L, 2), &p);
  lua_createtable(L, 0, 11);
  set_number(L, "velBias", p.vel_bias);
  set_number(L, "weightDesVel", p.weight_des_vel);
  set_number(L, "weightCurVel", p.weight_cur_vel);
  set_number(L, "weightSide", p.weight_side);
  set_number(L, "weightToi", p.weight_toi);
  set_number(L, "horizTime", p.horiz_time);
  lnm_set_int(L, "gridSize", p.grid_size);
  lnm_set_int(L, "adaptiveDivs", p.adaptive_divs);
  lnm_set_int(L, "adaptiveRings", p.adaptive_rings);
  lnm_set_int(L, "adaptiveDepth", p.adaptive_depth);
  set_number(L, "horizTimeObst", p.horiz_time_obst);
  return 1;
}

/* ---- registration ---- */

static const luaL_Reg crowd_methods[] = {
  {"close", crowd_close},
  {"addAgent", crowd_add_agent},
  {"removeAgent", crowd_remove_agent},
  {"updateAgentParameters", crowd_update_params},
  {"getAgentParameters", crowd_get_params},
  {"requestMoveTarget", crowd_request_target},
  {"requestMoveVelocity", crowd_request_velocity},
  {"resetMoveTarget", crowd_reset_target},
  {"update", crowd_update},
  {"getAgent", crowd_get_agent},
  {"positions", crowd_positions},
  {"velocities", crowd_velocities},
  {"getActiveAgents", crowd_active_agents},
  {"getAgentCount", crowd_agent_count},
  {"getStats", crowd_stats},
  {"setObstacleAvoidanceParams", crowd_set_avoid},
  {"getObstacleAvoidanceParams", crowd_get_avoid},
  {NULL, NULL}
};

/* The Crowd class (close is also __gc and __close) and navmesh.crowd. */
void lnm_open_crowd(lua_State *L) {
  lnm_object_class(L, LNM_CROWD, crowd_methods, crowd_close, crowd_tostring);
  lua_pushcfunction(L, navmesh_crowd);
  lua_setfield(L, -2, "crowd");
}
