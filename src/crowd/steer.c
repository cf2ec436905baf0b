/* steer.c -- the per-agent phases of an update, in Detour's order: walls
 * and neighbours, corners (and the visibility shortcut), off-mesh
 * connections, steering with separation, velocity planning (sampled or
 * ORCA), integration, collision resolution, the move along the navmesh,
 * and the animation over off-mesh connections.
 *
 * Each phase runs over all agents before the next starts and reads only
 * what earlier phases wrote (neighbours read each other's velocities from
 * the previous tick, positions as collision resolution leaves them); an
 * agent's step writes only that agent, so the result does not depend on how
 * a phase is split: nm_crowd_run runs the steps in slot order, or in blocks
 * on several threads (workers.c). Float operations follow Detour's order. */
#include "nm_crowd.h"

#define MAX_GRID_IDS 32           /* ids taken from the grid per query (Detour's) */
#define COLLISION_RESOLVE_FACTOR 0.7f
#define COLLISION_ITERATIONS 4

static int walking(const nm_agent *ag) { return ag->state == NM_AGENT_WALKING; }
static int follows_path(const nm_agent *ag) {
  return ag->target_state != NM_TARGET_NONE && ag->target_state != NM_TARGET_VELOCITY;
}

/* ---- walls and neighbours ---- */

/* Inserts neighbour slot idx at squared distance d into the nearest-first
 * list (Detour's addNeighbour: a tie goes before the equal ones). */
static int add_neighbour(nm_crowd_nei *neis, int n, int idx, float d) {
  int i, k;
  if (n && d >= neis[n - 1].dist) {
    if (n >= NM_CROWD_MAX_NEIGHBOURS) return n;
    i = n;
  } else {
    for (i = 0; i < n; ++i)
      if (d <= neis[i].dist) break;
    k = nm_mini(n - i, NM_CROWD_MAX_NEIGHBOURS - (i + 1));
    if (k > 0) memmove(&neis[i + 1], &neis[i], (size_t)k * sizeof *neis);
  }
  neis[i].idx = idx;
  neis[i].dist = d;
  return nm_mini(n + 1, NM_CROWD_MAX_NEIGHBOURS);
}

/* The nearest agents to ag within its collision range and at a height
 * where they could touch, among the first 32 the grid lists. */
static void find_neighbours(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag) {
  uint32_t ids[MAX_GRID_IDS];
  const float *pos = ag->npos, range = ag->params.collision_query_range;
  const float x0 = pos[0] - range, z0 = pos[2] - range, x1 = pos[0] + range, z1 = pos[2] + range;
  const int nids = x->seen ? nm_grid_query_marks(&c->grid, x->seen, &x->stamp, x0, z0, x1, z1, ids, MAX_GRID_IDS)
                           : nm_grid_query(&c->grid, x0, z0, x1, z1, ids, MAX_GRID_IDS);
  int i, n = 0;
  for (i = 0; i < nids; ++i) {
    const int slot = c->active[ids[i]];
    const nm_agent *nb = &c->agents[slot];
    float diff[3], d;
    if (nb == ag) continue;
    nm_vsub(diff, pos, nb->npos);
    if (fabsf(diff[1]) >= (ag->params.height + nb->params.height) / 2.0f) continue;
    diff[1] = 0;
    d = nm_vlen_sqr(diff);
    if (d > nm_sqr(range)) continue;
    n = add_neighbour(ag->neis, n, slot, d);
  }
  ag->nneis = n;
}

/* An agent's walls (refreshed when it moved a quarter of its range or
 * they went with a tile) and neighbours. */
static void neighbours_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  const float thr = ag->params.collision_query_range * 0.25f;
  (void)dt;
  if (!walking(ag)) return;
  if (nm_vdist2d_sqr(ag->npos, ag->boundary.center) > nm_sqr(thr) ||
      !nm_boundary_is_valid(&ag->boundary, c->mesh, &ag->filter))
    nm_boundary_update(&ag->boundary, ag->corridor.path[0], ag->npos, ag->params.collision_query_range,
                       x->q, &ag->filter);
  find_neighbours(c, x, ag);
}

void nm_crowd_neighbours(nm_crowd *c) {
  int i;
  nm_grid_clear(&c->grid);
  for (i = 0; i < c->nactive; ++i) {
    const nm_agent *ag = &c->agents[c->active[i]];
    const float *p = ag->npos, r = ag->params.radius;
    nm_grid_add(&c->grid, (uint32_t)i, p[0] - r, p[2] - r, p[0] + r, p[2] + r);
  }
  nm_grid_finish(&c->grid);
  nm_crowd_run(c, neighbours_step, 0);
}

/* ---- corners and off-mesh connections ---- */

/* The next corners of an agent's straight path, and the visibility shortcut. */
static void corners_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  (void)c;
  (void)dt;
  if (!walking(ag) || !follows_path(ag)) return;
  ag->ncorners = nm_corridor_find_corners(&ag->corridor, x->q, ag->corner_verts, ag->corner_flags,
                                          ag->corner_polys, NM_CROWD_MAX_CORNERS);
  if ((ag->params.update_flags & NM_CROWD_OPTIMIZE_VIS) && ag->ncorners > 0) {
    const float *target = &ag->corner_verts[nm_mini(1, ag->ncorners - 1) * 3];
    nm_corridor_optimize_vis(&ag->corridor, &x->alloc, target, ag->params.path_optimization_range, x->q,
                             &ag->filter);
  }
}

void nm_crowd_corners(nm_crowd *c) { nm_crowd_run(c, corners_step, 0); }

/* Whether the last corner is an off-mesh connection within radius. */
static int over_offmesh(const nm_agent *ag, float radius) {
  const int k = ag->ncorners - 1;
  if (!ag->ncorners || !(ag->corner_flags[k] & NM_STRAIGHT_OFFMESH)) return 0;
  return nm_vdist2d_sqr(ag->npos, &ag->corner_verts[k * 3]) < radius * radius;
}

void nm_crowd_offmesh_trigger(nm_crowd *c) {
  int i;
  for (i = 0; i < c->nactive; ++i) {
    nm_agent *ag = &c->agents[c->active[i]];
    nm_agent_anim *an = &ag->anim;
    nm_polyref refs[2];
    if (!walking(ag) || !follows_path(ag) || !over_offmesh(ag, ag->params.radius * 2.25f)) continue;
    if (!nm_corridor_move_over_offmesh(&ag->corridor, ag->corner_polys[ag->ncorners - 1], refs,
                                       an->start_pos, an->end_pos, c->mesh))
      continue; /* a bad connection: the validity check replans */
    nm_vcopy(an->init_pos, ag->npos);
    an->poly = refs[1];
    an->active = 1;
    an->t = 0.0f;
    an->tmax = (nm_vdist2d(an->start_pos, an->end_pos) / ag->params.max_speed) * 0.5f;
    ag->state = NM_AGENT_OFFMESH;
    ag->ncorners = 0;
    ag->nneis = 0;
  }
}

/* ---- steering ---- */

/* Towards the first corner, bent towards the second so the agent starts
 * turning before it reaches the first (Detour's calcSmoothSteerDirection). */
static void smooth_steer_dir(const nm_agent *ag, float *dir) {
  const float *p0, *p1;
  float dir0[3], dir1[3], len0, len1;
  if (!ag->ncorners) {
    nm_vset(dir, 0, 0, 0);
    return;
  }
  p0 = &ag->corner_verts[0];
  p1 = &ag->corner_verts[nm_mini(1, ag->ncorners - 1) * 3];
  nm_vsub(dir0, p0, ag->npos);
  nm_vsub(dir1, p1, ag->npos);
  dir0[1] = 0;
  dir1[1] = 0;
  len0 = sqrtf(nm_vlen_sqr(dir0));
  len1 = sqrtf(nm_vlen_sqr(dir1));
  if (len1 > 0.001f) {
    const float s = 1.0f / len1;
    nm_vset(dir1, dir1[0] * s, dir1[1] * s, dir1[2] * s);
  }
  dir[0] = dir0[0] - dir1[0] * len0 * 0.5f;
  dir[1] = 0;
  dir[2] = dir0[2] - dir1[2] * len0 * 0.5f;
  nm_vnormalize(dir);
}

static void straight_steer_dir(const nm_agent *ag, float *dir) {
  if (!ag->ncorners) {
    nm_vset(dir, 0, 0, 0);
    return;
  }
  nm_vsub(dir, &ag->corner_verts[0], ag->npos);
  dir[1] = 0;
  nm_vnormalize(dir);
}

/* Distance to the end of the path when it is among the corners, at most
 * range (slows the agent down when arriving). */
static float distance_to_goal(const nm_agent *ag, float range) {
  const int k = ag->ncorners - 1;
  if (!ag->ncorners || !(ag->corner_flags[k] & NM_STRAIGHT_END)) return range;
  return nm_minf(nm_vdist2d(ag->npos, &ag->corner_verts[k * 3]), range);
}

/* Pushes dvel away from the neighbours, weighted by closeness. */
static void separate(const nm_crowd *c, const nm_agent *ag, float *dvel) {
  const float sep_dist = ag->params.collision_query_range, inv_sep = 1.0f / sep_dist;
  const float weight = ag->params.separation_weight;
  float w = 0, disp[3] = {0, 0, 0};
  int j;
  for (j = 0; j < ag->nneis; ++j) {
    const nm_agent *nb = &c->agents[ag->neis[j].idx];
    float diff[3], d2, dist;
    nm_vsub(diff, ag->npos, nb->npos);
    diff[1] = 0;
    d2 = nm_vlen_sqr(diff);
    if (d2 < 0.00001f || d2 > nm_sqr(sep_dist)) continue;
    dist = sqrtf(d2);
    nm_vmad(disp, disp, diff, (weight * (1.0f - nm_sqr(dist * inv_sep))) / dist);
    w += 1.0f;
  }
  if (w > 0.0001f) {
    float speed2, desired2;
    nm_vmad(dvel, dvel, disp, 1.0f / w);
    speed2 = nm_vlen_sqr(dvel);
    desired2 = nm_sqr(ag->desired_speed);
    if (speed2 > desired2) { /* Detour scales by the squared ratio */
      const float s = desired2 / speed2;
      nm_vset(dvel, dvel[0] * s, dvel[1] * s, dvel[2] * s);
    }
  }
}

/* An agent's desired velocity: towards its corners (or the requested
 * velocity), slowing at the end, pushed from its neighbours. */
static void steer_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  float dvel[3] = {0, 0, 0};
  (void)x;
  (void)dt;
  if (!walking(ag) || ag->target_state == NM_TARGET_NONE) return;
  if (ag->target_state == NM_TARGET_VELOCITY) {
    nm_vcopy(dvel, ag->target_pos);
    ag->desired_speed = sqrtf(nm_vlen_sqr(ag->target_pos));
  } else {
    const float slow = ag->params.radius * 2, s = ag->params.max_speed;
    float scale;
    if (ag->params.update_flags & NM_CROWD_ANTICIPATE_TURNS) smooth_steer_dir(ag, dvel);
    else straight_steer_dir(ag, dvel);
    scale = distance_to_goal(ag, slow) / slow;
    ag->desired_speed = s;
    scale = ag->desired_speed * scale;
    nm_vset(dvel, dvel[0] * scale, dvel[1] * scale, dvel[2] * scale);
  }
  if (ag->params.update_flags & NM_CROWD_SEPARATION) separate(c, ag, dvel);
  nm_vcopy(ag->dvel, dvel);
}

void nm_crowd_steer(nm_crowd *c) { nm_crowd_run(c, steer_step, 0); }

/* ---- velocity planning ---- */

/* Neighbours and the walls the agent faces, for the avoidance. */
static void gather_obstacles(nm_crowd *c, nm_avoid *av, const nm_agent *ag) {
  int j;
  nm_avoid_reset(av);
  for (j = 0; j < ag->nneis; ++j) {
    const nm_agent *nb = &c->agents[ag->neis[j].idx];
    nm_avoid_add_circle(av, nb->npos, nb->params.radius, nb->vel, nb->dvel);
  }
  for (j = 0; j < ag->boundary.nsegs; ++j) {
    const float *s = ag->boundary.segs[j].s;
    if (nm_tri_area2d(ag->npos, s, s + 3) < 0.0f) continue;
    nm_avoid_add_segment(av, s, s + 3);
  }
}

/* An agent's new velocity: sampled avoidance or ORCA. */
static void plan_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  const nm_avoidance_params *prm = &c->avoid_params[ag->params.avoidance_type];
  if (!walking(ag)) return;
  if (!(ag->params.update_flags & NM_CROWD_OBSTACLE_AVOIDANCE)) {
    nm_vcopy(ag->nvel, ag->dvel);
    return;
  }
  gather_obstacles(c, &x->avoid, ag);
  if (ag->params.avoidance == NM_AVOID_ORCA)
    nm_avoid_orca(&x->avoid, ag->npos, ag->params.radius, ag->desired_speed, ag->vel, ag->dvel, ag->nvel,
                  prm, dt);
  else
    x->samples += nm_avoid_sample_adaptive(&x->avoid, ag->npos, ag->params.radius, ag->desired_speed, ag->vel,
                                           ag->dvel, ag->nvel, prm);
}

void nm_crowd_plan_velocities(nm_crowd *c, float dt) { nm_crowd_run(c, plan_step, dt); }

/* ---- integration, collisions, moves ---- */

/* An agent's velocity towards the planned one within its acceleration,
 * and its position after dt. */
static void integrate_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  const float max_delta = ag->params.max_acceleration * dt;
  float dv[3], ds;
  (void)c;
  (void)x;
  if (!walking(ag)) return;
  nm_vsub(dv, ag->nvel, ag->vel);
  ds = sqrtf(nm_vlen_sqr(dv));
  if (ds > max_delta) {
    const float s = max_delta / ds;
    nm_vset(dv, dv[0] * s, dv[1] * s, dv[2] * s);
  }
  nm_vadd(ag->vel, ag->vel, dv);
  if (sqrtf(nm_vlen_sqr(ag->vel)) > 0.0001f) nm_vmad(ag->npos, ag->npos, ag->vel, dt);
  else nm_vset(ag->vel, 0, 0, 0);
}

void nm_crowd_integrate(nm_crowd *c, float dt) { nm_crowd_run(c, integrate_step, dt); }

/* Displacement of ag out of the neighbours it overlaps, averaged; agents on
 * the same spot part sideways of their desired velocity. */
static void collision_disp(const nm_crowd *c, nm_agent *ag) {
  const int idx0 = (int)(ag - c->agents);
  float w = 0;
  int j;
  nm_vset(ag->disp, 0, 0, 0);
  for (j = 0; j < ag->nneis; ++j) {
    const int idx1 = ag->neis[j].idx;
    const nm_agent *nb = &c->agents[idx1];
    const float rsum = ag->params.radius + nb->params.radius;
    float diff[3], dist, pen;
    nm_vsub(diff, ag->npos, nb->npos);
    diff[1] = 0;
    dist = nm_vlen_sqr(diff);
    if (dist > nm_sqr(rsum)) continue;
    dist = sqrtf(dist);
    pen = rsum - dist;
    if (dist < 0.0001f) {
      if (idx0 > idx1) nm_vset(diff, -ag->dvel[2], 0, ag->dvel[0]);
      else nm_vset(diff, ag->dvel[2], 0, -ag->dvel[0]);
      pen = 0.01f;
    } else {
      pen = (1.0f / dist) * (pen * 0.5f) * COLLISION_RESOLVE_FACTOR;
    }
    nm_vmad(ag->disp, ag->disp, diff, pen);
    w += 1.0f;
  }
  if (w > 0.0001f) {
    const float iw = 1.0f / w;
    nm_vset(ag->disp, ag->disp[0] * iw, ag->disp[1] * iw, ag->disp[2] * iw);
  }
}

static void disp_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  (void)x;
  (void)dt;
  if (walking(ag)) collision_disp(c, ag);
}

static void apply_disp_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  (void)c;
  (void)x;
  (void)dt;
  if (walking(ag)) nm_vadd(ag->npos, ag->npos, ag->disp);
}

void nm_crowd_collide(nm_crowd *c) {
  int it;
  for (it = 0; it < COLLISION_ITERATIONS; ++it) { /* all displacements first, then all moves */
    nm_crowd_run(c, disp_step, 0);
    nm_crowd_run(c, apply_disp_step, 0);
  }
}

/* An agent's move along the navmesh to where integration and collisions
 * put it (sliding along walls). */
static void move_step(nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt) {
  (void)c;
  (void)dt;
  if (!walking(ag)) return;
  nm_corridor_move_position(&ag->corridor, &x->alloc, ag->npos, x->q, &ag->filter);
  nm_vcopy(ag->npos, ag->corridor.pos);
  if (!follows_path(ag)) { /* no path: the corridor is just the polygon under it */
    nm_corridor_reset(&ag->corridor, ag->corridor.path[0], ag->npos);
    ag->partial = 0;
  }
}

void nm_crowd_move(nm_crowd *c) { nm_crowd_run(c, move_step, 0); }

/* Detour's tween: where t lies between t0 and t1, clamped to 0..1. */
static float tween(float t, float t0, float t1) { return nm_clampf((t - t0) / (t1 - t0), 0.0f, 1.0f); }

void nm_crowd_animate(nm_crowd *c, float dt) {
  int i;
  for (i = 0; i < c->nactive; ++i) {
    nm_agent *ag = &c->agents[c->active[i]];
    nm_agent_anim *an = &ag->anim;
    float ta, tb;
    if (!an->active) continue;
    an->t += dt;
    if (an->t > an->tmax) { /* landed: walk on */
      an->active = 0;
      ag->state = NM_AGENT_WALKING;
      continue;
    }
    ta = an->tmax * 0.15f;
    tb = an->tmax;
    if (an->t < ta) nm_vlerp(ag->npos, an->init_pos, an->start_pos, tween(an->t, 0.0f, ta));
    else nm_vlerp(ag->npos, an->start_pos, an->end_pos, tween(an->t, ta, tb));
    nm_vset(ag->vel, 0, 0, 0);
    nm_vset(ag->dvel, 0, 0, 0);
  }
}
