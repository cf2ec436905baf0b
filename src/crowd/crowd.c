/* crowd.c -- crowds and their agents: making them, move requests, reading
 * them back (Detour's dtCrowd outside update()).
 *
 * Agents live in slots allocated with the crowd (Detour's order: a new
 * agent takes the lowest free slot, and slot order is the update order).
 * An agent's id is its slot with a salt in the bits above 16 that changes
 * each time the slot is reused, so an id of a removed agent stays invalid
 * (as polygon refs do when a tile goes). The corridor buffer of a slot is
 * allocated when the slot is first used and kept for reuse. */
#include "nm_crowd.h"

#define ID_SLOT_BITS 16

void nm_crowd_config_init(nm_crowd_config *cfg, int max_agents, float max_agent_radius) {
  memset(cfg, 0, sizeof *cfg);
  cfg->max_agents = max_agents;
  cfg->max_agent_radius = max_agent_radius;
  cfg->max_path = 0;
  cfg->search_nodes = 0;
  cfg->max_iterations = 400;
  cfg->queue_size = 8;
  cfg->island_targets = 1;
  cfg->threads = 1;
}

void nm_crowd_config_detour(nm_crowd_config *cfg, int max_agents, float max_agent_radius) {
  nm_crowd_config_init(cfg, max_agents, max_agent_radius);
  cfg->max_path = 256;
  cfg->search_nodes = 4096;
  cfg->max_iterations = 100;
  cfg->island_targets = 0;
}

void nm_avoidance_params_preset(nm_avoidance_params *p, int quality) {
  static const int divs[4] = {5, 5, 7, 7}, rings[4] = {2, 2, 2, 3}, depth[4] = {1, 2, 3, 3};
  const int k = quality < 0 ? 0 : (quality > 3 ? 3 : quality);
  p->vel_bias = 0.5f;
  p->weight_des_vel = 2.0f;
  p->weight_cur_vel = 0.75f;
  p->weight_side = 0.75f;
  p->weight_toi = 2.5f;
  p->horiz_time = 2.5f;
  p->grid_size = 33;
  p->adaptive_divs = divs[k];
  p->adaptive_rings = rings[k];
  p->adaptive_depth = depth[k];
  p->horiz_time_obst = 1.0f;
}

/* Detour's defaults for all eight sets (dtCrowd::init). */
static void avoidance_defaults(nm_avoidance_params *p) {
  nm_avoidance_params_preset(p, 3);
  p->vel_bias = 0.4f;
  p->adaptive_divs = 7;
  p->adaptive_rings = 2;
  p->adaptive_depth = 5;
}

void nm_crowd_agent_params_init(nm_crowd_agent_params *p, float radius) {
  memset(p, 0, sizeof *p);
  p->radius = radius;
  p->height = 2.0f;
  p->max_acceleration = 8.0f;
  p->max_speed = 3.5f;
  p->collision_query_range = radius * 12.0f;
  p->path_optimization_range = radius * 30.0f;
  p->separation_weight = 2.0f;
  p->update_flags = NM_CROWD_ALL_FLAGS;
  p->avoidance_type = 3;
  p->avoidance = NM_AVOID_SAMPLED;
}

/* ---- creation ---- */

static nm_status config_check(const nm_crowd_config *c, nm_diag *d) {
  if (!c) return nm_diag_set(d, NM_ERR_PARAM, "config", "missing configuration");
  if (c->max_agents < 1 || c->max_agents > 65535)
    return nm_diag_set(d, NM_ERR_PARAM, "maxAgents", "maxAgents must be in 1..65535");
  if (!(c->max_agent_radius > 0) || !(c->max_agent_radius < 1e6f))
    return nm_diag_set(d, NM_ERR_PARAM, "maxAgentRadius", "maxAgentRadius must be > 0");
  if (c->max_path != 0 && (c->max_path < 32 || c->max_path > (1 << 24)))
    return nm_diag_set(d, NM_ERR_PARAM, "maxPath", "maxPath must be 0 or in 32..16777216");
  if (c->search_nodes != 0 && (c->search_nodes < 64 || c->search_nodes > (1 << 22)))
    return nm_diag_set(d, NM_ERR_PARAM, "searchNodes", "searchNodes must be 0 or in 64..4194304");
  if (c->max_iterations < 1)
    return nm_diag_set(d, NM_ERR_PARAM, "maxIterations", "maxIterations must be >= 1");
  if (c->queue_size < 1 || c->queue_size > 64)
    return nm_diag_set(d, NM_ERR_PARAM, "queueSize", "queueSize must be in 1..64");
  if (c->threads < 1 || c->threads > 64)
    return nm_diag_set(d, NM_ERR_PARAM, "threads", "threads must be in 1..64");
  return NM_OK;
}

/* Node pool of the queued searches: as configured, or twice the polygons
 * of the mesh (a search may then cover all of it), at least 4096. */
static int search_nodes(const nm_crowd_config *cfg, const nm_navmesh *mesh) {
  nm_navmesh_info info;
  long n;
  if (cfg->search_nodes) return cfg->search_nodes;
  nm_navmesh_get_info(mesh, &info);
  n = 2L * info.polys;
  return (int)(n < 4096 ? 4096 : (n > (1L << 22) ? (1L << 22) : n));
}

static nm_status crowd_alloc(nm_crowd *c) {
  const nm_alloc *a = &c->alloc;
  const int n = c->cfg.max_agents, lim = c->cfg.max_path;
  nm_status st;
  int i;
  c->merge_cap = lim > 0 && lim <= 256 ? lim : NM_CORRIDOR_START_CAP;
  c->agents = (nm_agent *)nm_calloc(a, (size_t)n * sizeof(nm_agent));
  c->active = (int *)nm_malloc(a, (size_t)n * sizeof(int));
  c->merge = (nm_polyref *)nm_malloc(a, (size_t)c->merge_cap * sizeof(nm_polyref));
  if (!c->agents || !c->active || !c->merge) return NM_ERR_NOMEM;
  for (i = 0; i < n; i++) c->agents[i].salt = 1;
  if ((st = nm_query_new(c->mesh, NM_LOCAL_NODES, a, &c->q)) < 0) return st;
  if ((st = nm_grid_init(&c->grid, a, n, c->cfg.max_agent_radius * 3)) < 0) return st;
  st = nm_pathq_init(&c->pq, a, c->mesh, c->cfg.queue_size, search_nodes(&c->cfg, c->mesh), lim);
  return st < 0 ? st : nm_crowd_pool_start(c, c->cfg.threads);
}

nm_status nm_crowd_new(nm_navmesh *mesh, const nm_crowd_config *cfg, const nm_alloc *alloc,
                       nm_diag *diag, nm_crowd **out) {
  nm_alloc a = nm_alloc_resolve(alloc);
  nm_crowd *c;
  nm_status st;
  int i;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!mesh) return nm_diag_set(diag, NM_ERR_PARAM, "mesh", "missing navmesh");
  if ((st = config_check(cfg, diag)) < 0) return st;
  if (!(c = (nm_crowd *)nm_calloc(&a, sizeof *c))) return NM_ERR_NOMEM;
  c->alloc = a;
  c->cfg = *cfg;
  c->mesh = mesh;
  nm_navmesh_retain(mesh);
  nm_vset(c->ext, cfg->max_agent_radius * 2.0f, cfg->max_agent_radius * 1.5f,
          cfg->max_agent_radius * 2.0f);
  for (i = 0; i < NM_CROWD_MAX_AVOIDANCE_PARAMS; i++) avoidance_defaults(&c->avoid_params[i]);
  if ((st = crowd_alloc(c)) < 0) {
    nm_crowd_free(c);
    return st;
  }
  *out = c;
  return NM_OK;
}

void nm_crowd_free(nm_crowd *c) {
  nm_alloc a;
  int i;
  if (!c) return;
  a = c->alloc;
  nm_crowd_pool_stop(c);
  if (c->agents)
    for (i = 0; i < c->cfg.max_agents; i++) nm_corridor_free(&c->agents[i].corridor, &a);
  nm_free(&a, c->agents, (size_t)c->cfg.max_agents * sizeof(nm_agent));
  nm_free(&a, c->active, (size_t)c->cfg.max_agents * sizeof(int));
  nm_free(&a, c->merge, (size_t)c->merge_cap * sizeof(nm_polyref));
  nm_pathq_free(&c->pq, &a);
  nm_grid_free(&c->grid, &a);
  nm_query_free(c->q);
  nm_navmesh_release(c->mesh);
  nm_free(&a, c, sizeof *c);
}

nm_status nm_crowd_set_navmesh(nm_crowd *c, nm_navmesh *mesh) {
  int i;
  if (!c || !mesh) return NM_ERR_PARAM;
  if (mesh == c->mesh) return NM_OK;
  nm_navmesh_retain(mesh);
  nm_navmesh_release(c->mesh);
  c->mesh = mesh;
  nm_query_set_mesh(c->q, mesh);
  for (i = 1; c->pool.ctx && i < c->cfg.threads; i++) nm_query_set_mesh(c->pool.ctx[i].q, mesh);
  nm_pathq_set_mesh(&c->pq, mesh);
  for (i = 0; i < c->cfg.max_agents; i++) /* island goals are looked at again */
    c->agents[i].plan_generation = mesh->generation - 1;
  return NM_OK;
}

int nm_crowd_merge_reserve(nm_crowd *c, int n) {
  return nm_refs_reserve(&c->alloc, &c->merge, &c->merge_cap, n, c->cfg.max_path);
}

/* ---- agents ---- */

nm_agent *nm_crowd_agent(const nm_crowd *c, int id) {
  const int slot = id & ((1 << ID_SLOT_BITS) - 1);
  nm_agent *ag;
  if (!c || id < 0 || slot >= c->cfg.max_agents) return NULL;
  ag = &c->agents[slot];
  if (!ag->active || (id >> ID_SLOT_BITS) != ag->salt) return NULL;
  return ag;
}

int nm_crowd_agent_id(const nm_crowd *c, const nm_agent *ag) {
  return (int)(ag - c->agents) | ((int)ag->salt << ID_SLOT_BITS);
}

static int finite_pos(float v) { return isfinite(v) && v >= 0; }

static nm_status params_check(const nm_crowd_agent_params *p) {
  if (!p || !finite_pos(p->radius) || !(p->height > 0) || !isfinite(p->height) ||
      !finite_pos(p->max_acceleration) || !finite_pos(p->max_speed) ||
      !(p->collision_query_range > 0) || !isfinite(p->collision_query_range) ||
      !(p->path_optimization_range > 0) || !isfinite(p->path_optimization_range) ||
      !finite_pos(p->separation_weight) || p->avoidance_type < 0 ||
      p->avoidance_type >= NM_CROWD_MAX_AVOIDANCE_PARAMS ||
      (p->avoidance != NM_AVOID_SAMPLED && p->avoidance != NM_AVOID_ORCA))
    return NM_ERR_PARAM;
  return NM_OK;
}

/* Copies params (and the filter they name) into the agent. */
static void set_params(nm_agent *ag, const nm_crowd_agent_params *p) {
  ag->params = *p;
  if (p->filter) ag->filter = *p->filter;
  else nm_filter_init(&ag->filter);
  ag->params.filter = &ag->filter;
}

nm_status nm_crowd_update_agent_params(nm_crowd *c, int id, const nm_crowd_agent_params *params) {
  nm_agent *ag = nm_crowd_agent(c, id);
  if (!ag || params_check(params) < 0) return NM_ERR_PARAM;
  set_params(ag, params);
  return NM_OK;
}

nm_status nm_crowd_get_agent_params(const nm_crowd *c, int id, nm_crowd_agent_params *params) {
  const nm_agent *ag = nm_crowd_agent(c, id);
  if (!ag || !params) return NM_ERR_PARAM;
  *params = ag->params;
  return NM_OK;
}

/* Puts a fresh agent in slot ag at nearest (on polygon ref). */
static void agent_start(nm_agent *ag, nm_polyref ref, const float *nearest) {
  nm_corridor_reset(&ag->corridor, ref, nearest);
  nm_boundary_reset(&ag->boundary);
  ag->partial = 0;
  ag->topo_time = 0;
  ag->target_replan_time = 0;
  ag->nneis = 0;
  ag->ncorners = 0;
  nm_vset(ag->dvel, 0, 0, 0);
  nm_vset(ag->nvel, 0, 0, 0);
  nm_vset(ag->vel, 0, 0, 0);
  nm_vset(ag->disp, 0, 0, 0);
  nm_vcopy(ag->npos, nearest);
  ag->desired_speed = 0;
  ag->state = NM_AGENT_WALKING;
  ag->target_state = NM_TARGET_NONE;
  ag->target_ref = 0;
  ag->target_pathq = 0;
  ag->target_replan = 0;
  nm_vset(ag->target_pos, 0, 0, 0);
  memset(&ag->anim, 0, sizeof ag->anim);
  ag->active = 1;
}

nm_status nm_crowd_add_agent(nm_crowd *c, const float pos[3], const nm_crowd_agent_params *params,
                             int *id) {
  nm_agent *ag = NULL;
  nm_polyref ref = 0;
  float nearest[3];
  nm_status st;
  int i;
  if (!id) return NM_ERR_PARAM;
  *id = -1;
  if (!c || !pos || !nm_isfinite3(pos) || params_check(params) < 0) return NM_ERR_PARAM;
  for (i = 0; i < c->cfg.max_agents && !ag; i++)
    if (!c->agents[i].active) ag = &c->agents[i];
  if (!ag) return NM_ERR_FULL;
  if (!ag->corridor.path && (st = nm_corridor_init(&ag->corridor, &c->alloc, c->cfg.max_path)) < 0)
    return st;
  set_params(ag, params);
  nm_vcopy(nearest, pos);
  if (nm_query_find_nearest(c->q, pos, c->ext, &ag->filter, &ref, nearest, NULL) < 0 || !ref)
    return NM_ERR_NO_POLY;
  agent_start(ag, ref, nearest);
  *id = nm_crowd_agent_id(c, ag);
  return NM_OK;
}

nm_status nm_crowd_remove_agent(nm_crowd *c, int id) {
  nm_agent *ag = nm_crowd_agent(c, id);
  if (!ag) return NM_ERR_PARAM;
  ag->active = 0;
  ag->salt = (uint16_t)(ag->salt % 0x7fff + 1); /* 1 .. 32767: ids stay positive */
  return NM_OK;
}

/* ---- move requests ---- */

/* Sets a move request (Detour's requestMoveTarget / ...Replan). */
static void set_target(nm_agent *ag, nm_polyref ref, const float *pos, int replan) {
  ag->target_ref = ag->plan_ref = ref;
  nm_vcopy(ag->target_pos, pos);
  nm_vcopy(ag->plan_pos, pos);
  ag->target_pathq = 0;
  ag->target_replan = (uint8_t)replan;
  ag->target_state = ref ? NM_TARGET_REQUESTING : NM_TARGET_FAILED;
}

void nm_crowd_replan(nm_agent *ag, nm_polyref ref, const float *pos) { set_target(ag, ref, pos, 1); }

nm_status nm_crowd_request_move_target_ref(nm_crowd *c, int id, nm_polyref ref,
                                           const float pos[3]) {
  nm_agent *ag = nm_crowd_agent(c, id);
  const nm_tile *t;
  const nm_poly *p;
  if (!ag || !pos || !nm_isfinite3(pos) || !nm_ref_get(c->mesh, ref, &t, &p)) return NM_ERR_PARAM;
  set_target(ag, ref, pos, 0);
  return NM_OK;
}

nm_status nm_crowd_request_move_target(nm_crowd *c, int id, const float pos[3]) {
  nm_agent *ag = nm_crowd_agent(c, id);
  nm_polyref ref = 0;
  float nearest[3];
  if (!ag || !pos || !nm_isfinite3(pos)) return NM_ERR_PARAM;
  if (nm_query_find_nearest(c->q, pos, c->ext, &ag->filter, &ref, nearest, NULL) < 0 || !ref)
    return NM_ERR_NO_POLY;
  set_target(ag, ref, nearest, 0);
  return NM_OK;
}

nm_status nm_crowd_request_move_velocity(nm_crowd *c, int id, const float vel[3]) {
  nm_agent *ag = nm_crowd_agent(c, id);
  if (!ag || !vel || !nm_isfinite3(vel)) return NM_ERR_PARAM;
  ag->target_ref = 0;
  nm_vcopy(ag->target_pos, vel);
  ag->target_pathq = 0;
  ag->target_replan = 0;
  ag->target_state = NM_TARGET_VELOCITY;
  return NM_OK;
}

nm_status nm_crowd_reset_move_target(nm_crowd *c, int id) {
  nm_agent *ag = nm_crowd_agent(c, id);
  if (!ag) return NM_ERR_PARAM;
  ag->target_ref = 0;
  nm_vset(ag->target_pos, 0, 0, 0);
  nm_vset(ag->dvel, 0, 0, 0);
  ag->target_pathq = 0;
  ag->target_replan = 0;
  ag->target_state = NM_TARGET_NONE;
  return NM_OK;
}

/* ---- avoidance parameters ---- */

nm_status nm_crowd_set_avoidance_params(nm_crowd *c, int idx, const nm_avoidance_params *p) {
  if (!c || !p || idx < 0 || idx >= NM_CROWD_MAX_AVOIDANCE_PARAMS) return NM_ERR_PARAM;
  if (!(p->vel_bias >= 0 && p->vel_bias <= 1) || !(p->horiz_time > 0) || !isfinite(p->horiz_time) ||
      !(p->horiz_time_obst > 0) || !isfinite(p->horiz_time_obst) || !isfinite(p->weight_des_vel) ||
      !isfinite(p->weight_cur_vel) || !isfinite(p->weight_side) || !isfinite(p->weight_toi) ||
      p->adaptive_divs < 1 || p->adaptive_divs > NM_AVOID_MAX_DIVS || p->adaptive_rings < 1 ||
      p->adaptive_rings > NM_AVOID_MAX_RINGS || p->adaptive_depth < 1 || p->adaptive_depth > 16)
    return NM_ERR_PARAM;
  c->avoid_params[idx] = *p;
  return NM_OK;
}

nm_status nm_crowd_get_avoidance_params(const nm_crowd *c, int idx, nm_avoidance_params *p) {
  if (!c || !p || idx < 0 || idx >= NM_CROWD_MAX_AVOIDANCE_PARAMS) return NM_ERR_PARAM;
  *p = c->avoid_params[idx];
  return NM_OK;
}

/* ---- reading agents ---- */

nm_status nm_crowd_get_agent(const nm_crowd *c, int id, nm_crowd_agent_info *info) {
  const nm_agent *ag = nm_crowd_agent(c, id);
  int i;
  if (!ag || !info) return NM_ERR_PARAM;
  memset(info, 0, sizeof *info);
  nm_vcopy(info->pos, ag->npos);
  nm_vcopy(info->vel, ag->vel);
  nm_vcopy(info->dvel, ag->dvel);
  nm_vcopy(info->nvel, ag->nvel);
  info->desired_speed = ag->desired_speed;
  info->state = ag->state;
  info->target_state = ag->target_state;
  info->partial = ag->partial;
  info->target_ref = ag->target_ref;
  nm_vcopy(info->target_pos, ag->target_pos);
  info->first_poly = ag->corridor.npath ? ag->corridor.path[0] : 0;
  info->path_count = ag->corridor.npath;
  info->ncorners = ag->ncorners;
  memcpy(info->corners, ag->corner_verts, sizeof info->corners);
  memcpy(info->corner_flags, ag->corner_flags, sizeof info->corner_flags);
  memcpy(info->corner_refs, ag->corner_polys, sizeof info->corner_refs);
  info->nneighbours = ag->nneis;
  for (i = 0; i < ag->nneis; i++)
    info->neighbours[i] = nm_crowd_agent_id(c, &c->agents[ag->neis[i].idx]);
  info->user_data = ag->params.user_data;
  return NM_OK;
}

nm_status nm_crowd_get_corridor(const nm_crowd *c, int id, nm_polyref *refs, int cap, int *count) {
  const nm_agent *ag = nm_crowd_agent(c, id);
  int n;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!ag || cap < 0 || (cap > 0 && !refs)) return NM_ERR_PARAM;
  n = nm_mini(cap, ag->corridor.npath);
  memcpy(refs, ag->corridor.path, (size_t)n * sizeof(nm_polyref));
  *count = n;
  return n < ag->corridor.npath ? NM_TRUNCATED : NM_OK;
}

nm_status nm_crowd_positions(const nm_crowd *c, float *pos, float *vel, int *ids, uint8_t *states,
                             int cap, int *count) {
  int i, n = 0;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!c || cap < 0 || (cap > 0 && !pos)) return NM_ERR_PARAM;
  for (i = 0; i < c->cfg.max_agents; i++) {
    const nm_agent *ag = &c->agents[i];
    if (!ag->active) continue;
    if (n >= cap) {
      *count = n;
      return NM_TRUNCATED;
    }
    nm_vcopy(&pos[n * 3], ag->npos);
    if (vel) nm_vcopy(&vel[n * 3], ag->vel);
    if (ids) ids[n] = nm_crowd_agent_id(c, ag);
    if (states) states[n] = ag->state;
    n++;
  }
  *count = n;
  return NM_OK;
}

int nm_crowd_agent_count(const nm_crowd *c) {
  int i, n = 0;
  for (i = 0; i < c->cfg.max_agents; i++) n += c->agents[i].active;
  return n;
}

int nm_crowd_max_agents(const nm_crowd *c) { return c->cfg.max_agents; }

void nm_crowd_get_stats(const nm_crowd *c, nm_crowd_stats *s) { *s = c->stats; }
