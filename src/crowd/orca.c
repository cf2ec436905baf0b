/* orca.c -- optimal reciprocal collision avoidance (van den Berg, Guy, Lin,
 * Manocha, "Reciprocal n-body collision avoidance", 2011), as an
 * alternative to the sampled avoidance of avoid.c.
 *
 * Each neighbour and each nearby wall segment gives a half-plane of
 * permitted velocities (an "ORCA line"): for a neighbour, the velocity
 * obstacle over the time horizon is the cone of relative velocities that
 * meet within horiz_time; the agent takes half of the smallest change that
 * leaves it (the neighbour is expected to take the other half). For a wall
 * the agent takes all of it, over horiz_time_obst. The new velocity is the
 * one nearest the desired velocity inside all half-planes and the disc of
 * the maximum speed (a 2-D linear program, incremental in random-free
 * order: deterministic); when the half-planes leave nothing, the velocity
 * that violates the agent lines least (a 3-D program over the distance)
 * is taken, walls staying hard. Works in the X/Z plane; (x, z) is written
 * (x, y) below. Walls are independent segments (both ends convex), turned
 * so the agent sees them from the front, the side Detour's sampling uses. */
#include "nm_crowd.h"

#define ORCA_EPS 0.00001f
#define ORCA_MAX_LINES (NM_AVOID_MAX_CIRCLES + NM_AVOID_MAX_SEGS)

typedef struct vec2 {
  float x, y;
} vec2;

typedef struct line2 {
  vec2 p, d; /* point, unit direction; permitted: left of d */
} line2;

static inline vec2 v2(float x, float y) {
  vec2 v;
  v.x = x;
  v.y = y;
  return v;
}
static inline vec2 v2sub(vec2 a, vec2 b) { return v2(a.x - b.x, a.y - b.y); }
static inline vec2 v2add(vec2 a, vec2 b) { return v2(a.x + b.x, a.y + b.y); }
static inline vec2 v2mul(vec2 a, float s) { return v2(a.x * s, a.y * s); }
static inline float v2dot(vec2 a, vec2 b) { return a.x * b.x + a.y * b.y; }
static inline float v2det(vec2 a, vec2 b) { return a.x * b.y - a.y * b.x; }
static inline float v2len_sqr(vec2 a) { return v2dot(a, a); }
static inline vec2 v2norm(vec2 a) {
  const float l = sqrtf(v2len_sqr(a));
  return l > 0 ? v2mul(a, 1.0f / l) : v2(0, 0);
}

/* Best point on line `no` within the speed disc and the earlier lines;
 * 0 when none is left. dir_opt: extreme point in direction opt. */
static int lp1(const line2 *lines, int no, float radius, vec2 opt, int dir_opt, vec2 *result) {
  const line2 *l = &lines[no];
  const float dot = v2dot(l->p, l->d);
  const float disc = dot * dot + radius * radius - v2len_sqr(l->p);
  float sq, tl, tr, t;
  int i;
  if (disc < 0.0f) return 0;
  sq = sqrtf(disc);
  tl = -dot - sq;
  tr = -dot + sq;
  for (i = 0; i < no; ++i) {
    const float den = v2det(l->d, lines[i].d);
    const float num = v2det(lines[i].d, v2sub(l->p, lines[i].p));
    if (fabsf(den) <= ORCA_EPS) { /* parallel lines */
      if (num < 0.0f) return 0;
      continue;
    }
    t = num / den;
    if (den >= 0.0f) tr = nm_minf(tr, t);
    else tl = nm_maxf(tl, t);
    if (tl > tr) return 0;
  }
  if (dir_opt) t = v2dot(opt, l->d) > 0.0f ? tr : tl;
  else t = nm_clampf(v2dot(l->d, v2sub(opt, l->p)), tl, tr);
  *result = v2add(l->p, v2mul(l->d, t));
  return 1;
}

/* Velocity nearest opt (or furthest along it, dir_opt) inside every line
 * and the disc; returns the first line it failed on (n when none). */
static int lp2(const line2 *lines, int n, float radius, vec2 opt, int dir_opt, vec2 *result) {
  int i;
  if (dir_opt) *result = v2mul(opt, radius);
  else if (v2len_sqr(opt) > radius * radius) *result = v2mul(v2norm(opt), radius);
  else *result = opt;
  for (i = 0; i < n; ++i)
    if (v2det(lines[i].d, v2sub(lines[i].p, *result)) > 0.0f) {
      const vec2 keep = *result;
      if (!lp1(lines, i, radius, opt, dir_opt, result)) {
        *result = keep;
        return i;
      }
    }
  return n;
}

/* The lines cannot all hold: minimise the largest violation of the agent
 * lines (from `begin` on), keeping the nobst wall lines. */
static void lp3(const line2 *lines, int n, int nobst, int begin, float radius, vec2 *result) {
  line2 proj[ORCA_MAX_LINES];
  float dist = 0.0f;
  int i, j;
  for (i = begin; i < n; ++i) {
    int np = nobst;
    vec2 keep;
    if (!(v2det(lines[i].d, v2sub(lines[i].p, *result)) > dist)) continue;
    memcpy(proj, lines, (size_t)nobst * sizeof(line2));
    for (j = nobst; j < i; ++j) {
      line2 l;
      const float det = v2det(lines[i].d, lines[j].d);
      if (fabsf(det) <= ORCA_EPS) {
        if (v2dot(lines[i].d, lines[j].d) > 0.0f) continue; /* same direction */
        l.p = v2mul(v2add(lines[i].p, lines[j].p), 0.5f);
      } else {
        const float along = v2det(lines[j].d, v2sub(lines[i].p, lines[j].p)) / det;
        l.p = v2add(lines[i].p, v2mul(lines[i].d, along));
      }
      l.d = v2norm(v2sub(lines[j].d, lines[i].d));
      proj[np++] = l;
    }
    keep = *result;
    if (lp2(proj, np, radius, v2(-lines[i].d.y, lines[i].d.x), 1, result) < np) *result = keep;
    dist = v2det(lines[i].d, v2sub(lines[i].p, *result));
  }
}

/* Whether the wall segment's velocity obstacle is already excluded by the
 * wall lines so far. */
static int wall_covered(const line2 *lines, int n, vec2 r1, vec2 r2, float inv_t, float rad) {
  int j;
  for (j = 0; j < n; ++j)
    if (v2det(v2sub(v2mul(r1, inv_t), lines[j].p), lines[j].d) - inv_t * rad >= -ORCA_EPS &&
        v2det(v2sub(v2mul(r2, inv_t), lines[j].p), lines[j].d) - inv_t * rad >= -ORCA_EPS)
      return 1;
  return 0;
}

/* Leg direction from the agent past vertex r (offset, squared length d2):
 * left (side 1) or right (side -1) tangent of the disc of radius rad. */
static vec2 leg_dir(vec2 r, float d2, float rad, int side) {
  const float leg = sqrtf(nm_maxf(d2 - rad * rad, 0.0f));
  if (side > 0) return v2mul(v2(r.x * leg - r.y * rad, r.x * rad + r.y * leg), 1.0f / d2);
  return v2mul(v2(r.x * leg + r.y * rad, -r.x * rad + r.y * leg), 1.0f / d2);
}

/* Line through the edge of a cut-off circle at c facing velocity vel. */
static line2 cutoff_line(vec2 vel, vec2 c, float rad_t) {
  const vec2 w = v2norm(v2sub(vel, c));
  line2 l;
  l.d = v2(w.y, -w.x);
  l.p = v2add(c, v2mul(w, rad_t));
  return l;
}

/* The wall line of the segment from the agent's offsets r1 -> r2 (the
 * agent on its right); 0 when it adds no constraint. */
static int wall_line(vec2 r1, vec2 r2, vec2 vel, float rad, float inv_t, line2 *out) {
  const float d1 = v2len_sqr(r1), d2 = v2len_sqr(r2), rsq = rad * rad;
  const vec2 ov = v2sub(r2, r1), udir = v2norm(ov);
  const float olen = v2len_sqr(ov);
  const float s = olen > 0 ? -v2dot(r1, ov) / olen : 0.0f;
  const float dline = v2len_sqr(v2sub(v2mul(r1, -1.0f), v2mul(ov, s)));
  vec2 lc, rc, cv, ldir, rdir;
  float t, tl, tr, dc, dl, dr;
  int same = 0;
  out->p = v2(0, 0);
  if (s < 0.0f && d1 <= rsq) { out->d = v2norm(v2(-r1.y, r1.x)); return 1; }  /* touching an end */
  if (s > 1.0f && d2 <= rsq) { out->d = v2norm(v2(-r2.y, r2.x)); return 1; }
  if (s >= 0.0f && s < 1.0f && dline <= rsq) { out->d = v2mul(udir, -1.0f); return 1; }
  if (s < 0.0f && dline <= rsq) { r2 = r1; same = 1; }       /* seen end-on: one vertex */
  else if (s > 1.0f && dline <= rsq) { r1 = r2; same = 1; }
  ldir = leg_dir(r1, v2len_sqr(r1), rad, 1);
  rdir = leg_dir(r2, v2len_sqr(r2), rad, -1);
  lc = v2mul(r1, inv_t);
  rc = v2mul(r2, inv_t);
  cv = v2sub(rc, lc);
  t = same ? 0.5f : v2dot(v2sub(vel, lc), cv) / nm_maxf(v2len_sqr(cv), 1e-12f);
  tl = v2dot(v2sub(vel, lc), ldir);
  tr = v2dot(v2sub(vel, rc), rdir);
  if ((t < 0.0f && tl < 0.0f) || (same && tl < 0.0f && tr < 0.0f)) { /* left cut-off circle */
    *out = cutoff_line(vel, lc, rad * inv_t);
    return 1;
  }
  if (t > 1.0f && tr < 0.0f) { /* right cut-off circle */
    *out = cutoff_line(vel, rc, rad * inv_t);
    return 1;
  }
  dc = (t < 0.0f || t > 1.0f || same) ? FLT_MAX : v2len_sqr(v2sub(vel, v2add(lc, v2mul(cv, t))));
  dl = tl < 0.0f ? FLT_MAX : v2len_sqr(v2sub(vel, v2add(lc, v2mul(ldir, tl))));
  dr = tr < 0.0f ? FLT_MAX : v2len_sqr(v2sub(vel, v2add(rc, v2mul(rdir, tr))));
  if (dc <= dl && dc <= dr) { out->d = v2mul(udir, -1.0f); out->p = lc; }
  else if (dl <= dr) { out->d = ldir; out->p = lc; }
  else { out->d = v2mul(rdir, -1.0f); out->p = rc; }
  out->p = v2add(out->p, v2mul(v2(-out->d.y, out->d.x), rad * inv_t));
  return 1;
}

/* The agent line of neighbour c: half the change that leaves its
 * truncated velocity obstacle (a collision already: within one step). */
static line2 agent_line(const nm_obstacle_circle *c, const float *pos, float rad, vec2 vel,
                        float inv_t, float inv_dt) {
  const vec2 rp = v2(c->p[0] - pos[0], c->p[2] - pos[2]);
  const vec2 rv = v2sub(vel, v2(c->vel[0], c->vel[2]));
  const float dsq = v2len_sqr(rp), cr = rad + c->rad, crsq = cr * cr;
  vec2 u;
  line2 l;
  if (dsq > crsq) {
    const vec2 w = v2sub(rv, v2mul(rp, inv_t));
    const float wsq = v2len_sqr(w), dot1 = v2dot(w, rp);
    if (dot1 < 0.0f && dot1 * dot1 > crsq * wsq) { /* nearest the cut-off circle */
      const float wl = sqrtf(wsq);
      const vec2 uw = wl > 0 ? v2mul(w, 1.0f / wl) : v2(0, 0);
      l.d = v2(uw.y, -uw.x);
      u = v2mul(uw, cr * inv_t - wl);
    } else { /* nearest a leg */
      l.d = v2det(rp, w) > 0.0f ? leg_dir(rp, dsq, cr, 1) : v2mul(leg_dir(rp, dsq, cr, -1), -1.0f);
      u = v2sub(v2mul(l.d, v2dot(rv, l.d)), rv);
    }
  } else { /* overlapping: leave within the time step */
    const vec2 w = v2sub(rv, v2mul(rp, inv_dt));
    const float wl = sqrtf(v2len_sqr(w));
    const vec2 uw = wl > 0 ? v2mul(w, 1.0f / wl) : v2norm(v2(-rp.x, -rp.y));
    l.d = v2(uw.y, -uw.x);
    u = v2mul(uw, cr * inv_dt - wl);
  }
  l.p = v2add(vel, v2mul(u, 0.5f));
  return l;
}

/* Wall lines of the segments (turned so the agent is on their right). */
static int wall_lines(const nm_avoid *av, const float *pos, float rad, vec2 vel, float inv_t,
                      line2 *lines) {
  int i, n = 0;
  for (i = 0; i < av->nsegs; ++i) {
    const nm_obstacle_seg *s = &av->segs[i];
    vec2 r1 = v2(s->p[0] - pos[0], s->p[2] - pos[2]), r2 = v2(s->q[0] - pos[0], s->q[2] - pos[2]);
    if (v2det(v2sub(r2, r1), v2mul(r1, -1.0f)) > 0.0f) { /* agent on the left: turn it */
      const vec2 tmp = r1;
      r1 = r2;
      r2 = tmp;
    }
    if (wall_covered(lines, n, r1, r2, inv_t, rad)) continue;
    if (wall_line(r1, r2, vel, rad, inv_t, &lines[n])) n++;
  }
  return n;
}

void nm_avoid_orca(const nm_avoid *av, const float *pos, float rad, float vmax, const float *vel,
                   const float *dvel, float *nvel, const nm_avoidance_params *prm, float dt) {
  line2 lines[ORCA_MAX_LINES];
  const vec2 v = v2(vel[0], vel[2]);
  const float inv_t = 1.0f / prm->horiz_time, inv_to = 1.0f / prm->horiz_time_obst;
  const float inv_dt = dt > 0 ? 1.0f / dt : 1.0f / 0.05f;
  vec2 res;
  int i, n, nobst, fail;
  n = nobst = wall_lines(av, pos, rad, v, inv_to, lines);
  for (i = 0; i < av->ncircles; ++i)
    lines[n++] = agent_line(&av->circles[i], pos, rad, v, inv_t, inv_dt);
  fail = lp2(lines, n, vmax, v2(dvel[0], dvel[2]), 0, &res);
  if (fail < n) lp3(lines, n, nobst, fail, vmax, &res);
  nm_vset(nvel, res.x, 0, res.y);
}
