/* requests.c -- the path phases at the start of an update (Detour's
 * checkPathValidity, updateMoveRequest, updateTopologyOptimization).
 *
 * 1. Every walking agent checks the polygon it stands on (gone with its
 *    tile or now filtered out: it is put on the nearest polygon, or marked
 *    invalid when there is none), its target, and the first polygons of its
 *    corridor; a broken corridor, or one ending short of the target for a
 *    second, asks for a new path. Beyond Detour, an invalid agent looks for
 *    the mesh again each update and walks on when it is back.
 * 2. A new request first runs a quick search of 20 iterations; if that
 *    reaches the target the agent is done, otherwise it heads the quick
 *    path's way and joins the path queue (the longest waiting first, at
 *    most queue_size at a time), which searches from the corridor's end;
 *    the result is joined to the corridor, with back-and-forth steps
 *    removed.
 * 3. One agent per update (the one waiting longest, after half a second)
 *    re-searches the start of its corridor for a shorter way. */
#include "nm_crowd.h"

#define CHECK_LOOKAHEAD 10
#define TARGET_REPLAN_DELAY 1.0f
#define OPT_TIME_THR 0.5f
#define OPT_MAX_AGENTS 1

static int has_path_target(const nm_agent *ag) {
  return ag->target_state != NM_TARGET_NONE && ag->target_state != NM_TARGET_VELOCITY;
}

/* Inserts ag into q [n, at most max], ordered by key, largest first (a tie
 * goes before the equal ones; Detour's addToPathQueue / addToOptQueue). */
static int queue_insert(nm_agent **q, float *keys, int n, int max, nm_agent *ag, float key) {
  int i, k;
  if (n && key <= keys[n - 1]) {
    if (n >= max) return n;
    i = n;
  } else {
    for (i = 0; i < n; ++i)
      if (key >= keys[i]) break;
    k = nm_mini(n - i, max - (i + 1));
    if (k > 0) {
      memmove(&q[i + 1], &q[i], (size_t)k * sizeof *q);
      memmove(&keys[i + 1], &keys[i], (size_t)k * sizeof *keys);
    }
  }
  q[i] = ag;
  keys[i] = key;
  return nm_mini(n + 1, max);
}

/* ---- 1. path validity ---- */

/* The polygon under the agent is gone: put it on the nearest one (1), or
 * mark it invalid (0). */
static int recover_position(nm_crowd *c, nm_agent *ag, nm_polyref *ref, float *pos) {
  float nearest[3];
  nm_vcopy(nearest, pos);
  *ref = 0;
  nm_query_find_nearest(c->q, ag->npos, c->ext, &ag->filter, ref, nearest, NULL);
  nm_vcopy(pos, nearest);
  if (!*ref) {
    nm_corridor_reset(&ag->corridor, 0, pos);
    ag->partial = 0;
    nm_boundary_reset(&ag->boundary);
    ag->state = NM_AGENT_INVALID;
    return 0;
  }
  nm_corridor_fix_start(&ag->corridor, *ref, pos);
  nm_boundary_reset(&ag->boundary);
  nm_vcopy(ag->npos, pos);
  return 1;
}

/* An invalid agent whose polygon came back (or another near it) walks on. */
static void retry_invalid(nm_crowd *c, nm_agent *ag) {
  nm_polyref ref = 0;
  float nearest[3];
  if (ag->anim.active) return;
  if (nm_query_find_nearest(c->q, ag->npos, c->ext, &ag->filter, &ref, nearest, NULL) < 0 || !ref)
    return;
  nm_corridor_reset(&ag->corridor, ref, nearest);
  nm_vcopy(ag->npos, nearest);
  nm_vset(ag->vel, 0, 0, 0);
  ag->state = NM_AGENT_WALKING;
  if (has_path_target(ag) && ag->target_state != NM_TARGET_FAILED)
    nm_crowd_replan(ag, ag->target_ref, ag->target_pos);
}

/* Checks the target polygon (moved to the nearest when gone); 1 when the
 * path must be replanned. */
static int check_target(nm_crowd *c, nm_agent *ag, nm_polyref agent_ref, const float *agent_pos) {
  int replan = 0;
  if (ag->target_state == NM_TARGET_FAILED) return 0;
  if (!nm_ref_passes(c->mesh, ag->target_ref, &ag->filter)) {
    float nearest[3];
    nm_vcopy(nearest, ag->target_pos);
    ag->target_ref = 0;
    nm_query_find_nearest(c->q, ag->target_pos, c->ext, &ag->filter, &ag->target_ref, nearest, NULL);
    nm_vcopy(ag->target_pos, nearest);
    replan = 1;
  }
  if (!ag->target_ref) { /* the target is gone: give up the request */
    nm_corridor_reset(&ag->corridor, agent_ref, agent_pos);
    ag->partial = 0;
    ag->target_state = NM_TARGET_NONE;
  }
  return replan;
}

static void check_agent(nm_crowd *c, nm_agent *ag, float dt) {
  nm_polyref agent_ref = ag->corridor.path[0];
  float agent_pos[3];
  int replan = 0;
  ag->target_replan_time += dt;
  nm_vcopy(agent_pos, ag->npos);
  if (!nm_ref_passes(c->mesh, agent_ref, &ag->filter)) {
    if (!recover_position(c, ag, &agent_ref, agent_pos)) return;
    replan = 1;
  }
  if (!has_path_target(ag)) return;
  replan |= check_target(c, ag, agent_ref, agent_pos);
  if (!nm_corridor_is_valid(&ag->corridor, CHECK_LOOKAHEAD, c->mesh, &ag->filter)) replan = 1;
  if (ag->target_state == NM_TARGET_VALID && ag->target_replan_time > TARGET_REPLAN_DELAY &&
      ag->corridor.npath < CHECK_LOOKAHEAD &&
      ag->corridor.path[ag->corridor.npath - 1] != ag->plan_ref)
    replan = 1; /* the corridor ends short of the target: try again */
  if (ag->target_state == NM_TARGET_VALID && ag->plan_ref != ag->target_ref &&
      ag->plan_generation != c->mesh->generation)
    replan = 1; /* tiles changed: the target may be reachable now */
  if (replan && ag->target_state != NM_TARGET_NONE)
    nm_crowd_replan(ag, ag->target_ref, ag->target_pos);
}

void nm_crowd_check_paths(nm_crowd *c, float dt) {
  int i;
  for (i = 0; i < c->nactive; ++i) {
    nm_agent *ag = &c->agents[c->active[i]];
    if (ag->state == NM_AGENT_WALKING) check_agent(c, ag, dt);
    else if (ag->state == NM_AGENT_INVALID) retry_invalid(c, ag);
  }
}

/* ---- 2. move requests ---- */

/* Where the corridor will lead: the target, or with island_targets and a
 * target no path reaches, the nearest point of the agent's island. */
static void choose_plan(nm_crowd *c, nm_agent *ag) {
  ag->plan_ref = ag->target_ref;
  nm_vcopy(ag->plan_pos, ag->target_pos);
  ag->plan_generation = c->mesh->generation;
  if (c->cfg.island_targets) nm_crowd_island_goal(c, ag, &ag->plan_ref, ag->plan_pos);
}

/* The quick search of a new request: the corridor heads the found way;
 * VALID when it reaches the target, else WAITING_FOR_QUEUE. */
static void quick_search(nm_crowd *c, nm_agent *ag) {
  nm_polyref req[NM_QUICK_SEARCH_POLYS];
  const nm_polyref *path = ag->corridor.path;
  float req_pos[3];
  int n = 0;
  nm_status st = NM_ERR_STATE;
  choose_plan(c, ag);
  if (nm_sliced_begin(c->q, path[0], ag->plan_ref, ag->npos, ag->plan_pos, &ag->filter, 1) >= 0) {
    nm_query_find_path_step(c->q, NM_QUICK_SEARCH_ITERS, NULL);
    if (ag->target_replan) /* keep to the old path where the search met it */
      st = nm_query_find_path_end_partial(c->q, path, ag->corridor.npath, req,
                                          NM_QUICK_SEARCH_POLYS, &n);
    else
      st = nm_query_find_path_end(c->q, req, NM_QUICK_SEARCH_POLYS, &n);
  }
  if (st < 0 || n <= 0) n = 0;
  else if (req[n - 1] != ag->plan_ref) { /* partial: aim inside the last polygon */
    if (nm_query_closest_point(c->q, req[n - 1], ag->plan_pos, req_pos, NULL) < 0) n = 0;
  } else {
    nm_vcopy(req_pos, ag->plan_pos);
  }
  if (!n) { /* nothing found: stay where it is */
    nm_vcopy(req_pos, ag->npos);
    req[0] = path[0];
    n = 1;
  }
  nm_corridor_set(&ag->corridor, &c->alloc, req_pos, req, n);
  nm_boundary_reset(&ag->boundary);
  ag->partial = ag->plan_ref != ag->target_ref;
  if (req[n - 1] == ag->plan_ref) {
    ag->target_state = NM_TARGET_VALID;
    ag->target_replan_time = 0;
  } else {
    ag->target_state = NM_TARGET_WAITING_FOR_QUEUE;
  }
}

/* Removes back-and-forth steps (a b a -> a) from path [n]. */
static int remove_trackbacks(nm_polyref *res, int n) {
  int j;
  for (j = 0; j < n; ++j)
    if (j - 1 >= 0 && j + 1 < n && res[j - 1] == res[j + 1]) {
      memmove(res + (j - 1), res + (j + 1), (size_t)(n - (j + 1)) * sizeof(nm_polyref));
      n -= 2;
      j -= 2;
    }
  return n;
}

/* Joins a queued search's result (from the corridor's end) to the
 * corridor in c->merge; returns its length, 0 when they do not meet, -1
 * when memory ran out. */
static int join_result(nm_crowd *c, const nm_agent *ag, const nm_polyref *res, int nres) {
  const nm_polyref *path = ag->corridor.path;
  const int npath = ag->corridor.npath;
  int room;
  if (nres <= 0 || path[npath - 1] != res[0]) return 0;
  if (!nm_crowd_merge_reserve(c, (npath - 1) + nres)) return -1;
  room = c->merge_cap;
  if ((npath - 1) + nres > room) nres = room - (npath - 1);
  memcpy(c->merge + (npath - 1), res, (size_t)nres * sizeof(nm_polyref));
  if (npath > 1) {
    memcpy(c->merge, path, (size_t)(npath - 1) * sizeof(nm_polyref));
    return remove_trackbacks(c->merge, nres + npath - 1);
  }
  return nres;
}

/* A queued search ended for ag: take its path, or fail. */
static void collect_result(nm_crowd *c, nm_agent *ag) {
  nm_polyref *res = NULL;
  float target[3];
  int nres = 0, partial = 0, n;
  nm_vcopy(target, ag->plan_pos);
  nm_pathq_result(&c->pq, ag->target_pathq, &res, &nres, &partial);
  ag->partial = (uint8_t)(partial || ag->plan_ref != ag->target_ref);
  n = join_result(c, ag, res, nres);
  if (n < 0) { /* out of memory: ask again later, keeping the corridor */
    c->nomem = 1;
    ag->target_state = NM_TARGET_REQUESTING;
    ag->target_pathq = 0;
    return;
  }
  if (n > 0 && c->merge[n - 1] != ag->plan_ref) { /* partial: aim inside the last polygon */
    float nearest[3];
    if (nm_query_closest_point(c->q, c->merge[n - 1], target, nearest, NULL) >= 0)
      nm_vcopy(target, nearest);
    else
      n = 0;
  }
  if (n > 0) {
    if (!nm_corridor_set(&ag->corridor, &c->alloc, target, c->merge, n)) c->nomem = 1;
    nm_boundary_reset(&ag->boundary);
    ag->target_state = NM_TARGET_VALID;
  } else {
    ag->target_state = NM_TARGET_FAILED;
  }
  ag->target_replan_time = 0;
}

/* Polls the queued search of ag. */
static void poll_request(nm_crowd *c, nm_agent *ag) {
  const int st = nm_pathq_status(&c->pq, ag->target_pathq);
  if (st == NM_PQ_FAILED) { /* retry while the target is valid */
    ag->target_pathq = 0;
    ag->target_state = ag->target_ref ? NM_TARGET_REQUESTING : NM_TARGET_FAILED;
    ag->target_replan_time = 0;
  } else if (st == NM_PQ_DONE) {
    collect_result(c, ag);
  }
}

void nm_crowd_move_requests(nm_crowd *c) {
  nm_agent *queue[64];
  float keys[64];
  int i, nqueue = 0;
  for (i = 0; i < c->cfg.max_agents; ++i) {
    nm_agent *ag = &c->agents[i];
    if (!ag->active || ag->state == NM_AGENT_INVALID || !has_path_target(ag)) continue;
    if (ag->target_state == NM_TARGET_REQUESTING) quick_search(c, ag);
    if (ag->target_state == NM_TARGET_WAITING_FOR_QUEUE)
      nqueue = queue_insert(queue, keys, nqueue, c->cfg.queue_size, ag, ag->target_replan_time);
  }
  for (i = 0; i < nqueue; ++i) {
    nm_agent *ag = queue[i];
    const nm_corridor *cr = &ag->corridor;
    ag->target_pathq = nm_pathq_request(&c->pq, cr->path[cr->npath - 1], ag->plan_ref, cr->target,
                                         ag->plan_pos, &ag->filter);
    if (ag->target_pathq) ag->target_state = NM_TARGET_WAITING_FOR_PATH;
  }
  c->pq.nomem = 0;
  c->stats.path_iterations = nm_pathq_update(&c->pq, &c->alloc, c->cfg.max_iterations);
  if (c->pq.nomem) c->nomem = 1;
  for (i = 0; i < c->cfg.max_agents; ++i) {
    nm_agent *ag = &c->agents[i];
    if (ag->active && ag->target_state == NM_TARGET_WAITING_FOR_PATH) poll_request(c, ag);
  }
}

/* ---- 3. topology optimisation ---- */

void nm_crowd_optimize_topology(nm_crowd *c, float dt) {
  nm_agent *queue[OPT_MAX_AGENTS];
  float keys[OPT_MAX_AGENTS];
  int i, nqueue = 0;
  for (i = 0; i < c->nactive; ++i) {
    nm_agent *ag = &c->agents[c->active[i]];
    if (ag->state != NM_AGENT_WALKING || !has_path_target(ag) ||
        !(ag->params.update_flags & NM_CROWD_OPTIMIZE_TOPO))
      continue;
    ag->topo_time += dt;
    if (ag->topo_time >= OPT_TIME_THR)
      nqueue = queue_insert(queue, keys, nqueue, OPT_MAX_AGENTS, ag, ag->topo_time);
  }
  for (i = 0; i < nqueue; ++i) {
    nm_corridor_optimize_topo(&queue[i]->corridor, &c->alloc, c->q, &queue[i]->filter);
    queue[i]->topo_time = 0;
  }
}
