/* update.c -- one simulation step of a crowd (Detour's dtCrowd::update).
 *
 * The phases run in Detour's order, each over all agents in slot order:
 * path validity, move requests and the path queue, topology optimisation,
 * the proximity grid, walls and neighbours, corners, off-mesh triggers,
 * steering, velocity planning, integration, four rounds of collision
 * resolution, the move along the navmesh, and off-mesh animations. The
 * step allocates only when a path outgrows its buffer (no path limit). */
#include "nm_crowd.h"

/* Slots of the active agents, ascending (Detour's getActiveAgents). */
static void list_active(nm_crowd *c) {
  int i;
  c->nactive = 0;
  for (i = 0; i < c->cfg.max_agents; ++i)
    if (c->agents[i].active) c->active[c->nactive++] = i;
}

nm_status nm_crowd_update(nm_crowd *c, float dt) {
  if (!c || !isfinite(dt) || dt < 0) return NM_ERR_PARAM;
  c->nomem = 0;
  memset(&c->stats, 0, sizeof c->stats);
  list_active(c);
  nm_crowd_check_paths(c, dt);
  nm_crowd_move_requests(c);
  nm_crowd_optimize_topology(c, dt);
  nm_crowd_neighbours(c);
  nm_crowd_corners(c);
  nm_crowd_offmesh_trigger(c);
  nm_crowd_steer(c);
  nm_crowd_plan_velocities(c, dt);
  nm_crowd_integrate(c, dt);
  nm_crowd_collide(c);
  nm_crowd_move(c);
  nm_crowd_animate(c, dt);
  c->stats.velocity_samples = nm_crowd_take_samples(c);
  c->stats.agents = c->nactive;
  c->stats.queued_requests = nm_pathq_pending(&c->pq);
  return c->nomem ? NM_ERR_NOMEM : NM_OK;
}
