/* avoid.c -- sampled velocity-obstacle avoidance (Detour's
 * dtObstacleAvoidanceQuery, adaptive sampling).
 *
 * Candidate velocities are laid out in rings around a centre that starts
 * near the desired velocity; each candidate is scored by how far it strays
 * from the desired and the current velocity, by which side it passes
 * neighbours on, and by the time until it would hit a neighbour (a
 * reciprocal velocity obstacle: the neighbour is assumed to take half the
 * avoiding) or a wall. The best candidate becomes the centre of the next,
 * finer pattern (half the radius), adaptive_depth times. A candidate that
 * cannot beat the best so far is abandoned early. Float operations follow
 * Detour's order: the chosen velocities equal dtCrowd's bit for bit. What
 * stays the same for all candidates of one agent (the neighbour's offset
 * and reach, a wall's direction) is worked out once per agent, which gives
 * the same values as Detour's per-candidate computation. */
#include "nm_crowd.h"

void nm_avoid_reset(nm_avoid *av) {
  av->ncircles = 0;
  av->nsegs = 0;
}

void nm_avoid_add_circle(nm_avoid *av, const float *pos, float rad, const float *vel,
                         const float *dvel) {
  nm_obstacle_circle *c;
  if (av->ncircles >= NM_AVOID_MAX_CIRCLES) return;
  c = &av->circles[av->ncircles++];
  nm_vcopy(c->p, pos);
  c->rad = rad;
  nm_vcopy(c->vel, vel);
  nm_vcopy(c->dvel, dvel);
}

void nm_avoid_add_segment(nm_avoid *av, const float *p, const float *q) {
  nm_obstacle_seg *s;
  if (av->nsegs >= NM_AVOID_MAX_SEGS) return;
  s = &av->segs[av->nsegs++];
  nm_vcopy(s->p, p);
  nm_vcopy(s->q, q);
}

static inline float dot2d(const float *a, const float *b) { return a[0] * b[0] + a[2] * b[2]; }

/* Detour's normalisation (1 / length, then scale), NaN for a zero vector
 * as in Detour: such a neighbour then never decides a candidate. */
static void normalize3_raw(float *v) {
  const float d = 1.0f / sqrtf(nm_sqr(v[0]) + nm_sqr(v[1]) + nm_sqr(v[2]));
  v[0] *= d;
  v[1] *= d;
  v[2] *= d;
}

/* Per-agent set-up: direction to each neighbour and the side to pass it on
 * (decided by the desired velocities), and which walls touch the agent. */
static void prepare(nm_avoid *av, const float *pos, const float *dvel) {
  static const float orig[3] = {0, 0, 0};
  int i;
  for (i = 0; i < av->ncircles; ++i) {
    nm_obstacle_circle *c = &av->circles[i];
    float dv[3];
    nm_vsub(c->dp, c->p, pos);
    normalize3_raw(c->dp);
    nm_vsub(dv, c->dvel, dvel);
    if (nm_tri_area2d(orig, c->dp, dv) < 0.01f) {
      c->np[0] = -c->dp[2];
      c->np[2] = c->dp[0];
    } else {
      c->np[0] = c->dp[2];
      c->np[2] = -c->dp[0];
    }
    c->np[1] = 0;
  }
  for (i = 0; i < av->nsegs; ++i) {
    nm_obstacle_seg *s = &av->segs[i];
    float t;
    s->touch = nm_dist_pt_seg_sqr2d(pos, s->p, s->q, &t) < nm_sqr(0.01f);
  }
}

/* What one agent's sampling shares between candidates. */
typedef struct sampler {
  const nm_avoid *av;
  const float *pos, *vel, *dvel;
  float rad, inv_vmax, inv_horiz;
  const nm_avoidance_params *prm;
  /* per circle: offset to it, squared offset minus squared reach */
  float cs[NM_AVOID_MAX_CIRCLES][2], cc[NM_AVOID_MAX_CIRCLES];
  /* per wall: direction, offset of the agent from its start, perp of both */
  float sv[NM_AVOID_MAX_SEGS][2], sw[NM_AVOID_MAX_SEGS][2], svw[NM_AVOID_MAX_SEGS];
} sampler;

static void sampler_init(sampler *sm, const nm_avoid *av, const float *pos, float rad,
                         const float *vel, const float *dvel, const nm_avoidance_params *prm,
                         float vmax) {
  int i;
  sm->av = av;
  sm->pos = pos;
  sm->vel = vel;
  sm->dvel = dvel;
  sm->rad = rad;
  sm->prm = prm;
  sm->inv_horiz = 1.0f / prm->horiz_time;
  sm->inv_vmax = vmax > 0 ? 1.0f / vmax : FLT_MAX;
  for (i = 0; i < av->ncircles; ++i) {
    const nm_obstacle_circle *c = &av->circles[i];
    const float r = rad + c->rad;
    sm->cs[i][0] = c->p[0] - pos[0];
    sm->cs[i][1] = c->p[2] - pos[2];
    sm->cc[i] = (sm->cs[i][0] * sm->cs[i][0] + sm->cs[i][1] * sm->cs[i][1]) - r * r;
  }
  for (i = 0; i < av->nsegs; ++i) {
    const nm_obstacle_seg *s = &av->segs[i];
    sm->sv[i][0] = s->q[0] - s->p[0];
    sm->sv[i][1] = s->q[2] - s->p[2];
    sm->sw[i][0] = pos[0] - s->p[0];
    sm->sw[i][1] = pos[2] - s->p[2];
    sm->svw[i] = sm->sv[i][1] * sm->sw[i][0] - sm->sv[i][0] * sm->sw[i][1];
  }
}

/* Time of impact with circle i for relative velocity (vx, vz) (Detour's
 * sweepCircleCircle); 0 when it never comes within reach. */
static inline int sweep_circle(const sampler *sm, int i, float vx, float vz, float *tmin,
                               float *tmax) {
  const float a = vx * vx + vz * vz;
  float b, d, ia, rd;
  if (a < 0.0001f) return 0;
  b = vx * sm->cs[i][0] + vz * sm->cs[i][1];
  d = b * b - a * sm->cc[i];
  if (d < 0.0f) return 0;
  ia = 1.0f / a;
  rd = sqrtf(d);
  *tmin = (b - rd) * ia;
  *tmax = (b + rd) * ia;
  return 1;
}

/* Where the ray pos + t * (ux, uz) crosses wall i (Detour's isectRaySeg). */
static inline int ray_wall(const sampler *sm, int i, float ux, float uz, float *t) {
  const float *v = sm->sv[i], *w = sm->sw[i];
  float d = uz * v[0] - ux * v[1], s;
  if (fabsf(d) < 1e-6f) return 0;
  d = 1.0f / d;
  *t = sm->svw[i] * d;
  if (*t < 0 || *t > 1) return 0;
  s = (uz * w[0] - ux * w[1]) * d;
  return !(s < 0 || s > 1);
}

/* Earliest wall hit of candidate vcand, at most tmin (walls count double:
 * avoid less when facing them); -1 when it drops under thr. */
static float walls_toi(const sampler *sm, const float *vcand, float tmin, float thr) {
  int i;
  for (i = 0; i < sm->av->nsegs; ++i) {
    const nm_obstacle_seg *s = &sm->av->segs[i];
    float ht = 0;
    if (s->touch) { /* against the wall: only moving away from it is free */
      if (-sm->sv[i][1] * vcand[0] + sm->sv[i][0] * vcand[2] < 0.0f) continue;
    } else if (!ray_wall(sm, i, vcand[0], vcand[2], &ht)) {
      continue;
    }
    ht *= 2.0f;
    if (ht < tmin) {
      tmin = ht;
      if (tmin < thr) return -1;
    }
  }
  return tmin;
}

/* Penalty of candidate vcand, or min_penalty when it cannot beat it
 * (Detour's processSample). */
static float process_sample(const sampler *sm, const float *vcand, float min_penalty) {
  const nm_avoidance_params *p = sm->prm;
  const float vpen = p->weight_des_vel * (nm_vdist2d(vcand, sm->dvel) * sm->inv_vmax);
  const float vcpen = p->weight_cur_vel * (nm_vdist2d(vcand, sm->vel) * sm->inv_vmax);
  const float min_pen = min_penalty - vpen - vcpen;
  const float thr = (p->weight_toi / min_pen - 0.1f) * p->horiz_time;
  float tmin = p->horiz_time, side = 0;
  int i, nside = 0;
  if (thr - p->horiz_time > -FLT_EPSILON) return min_penalty;
  for (i = 0; i < sm->av->ncircles; ++i) {
    const nm_obstacle_circle *c = &sm->av->circles[i];
    float vab[3], htmin = 0, htmax = 0;
    vab[0] = (vcand[0] * 2 - sm->vel[0]) - c->vel[0];
    vab[2] = (vcand[2] * 2 - sm->vel[2]) - c->vel[2];
    side += nm_clampf(nm_minf(dot2d(c->dp, vab) * 0.5f + 0.5f, dot2d(c->np, vab) * 2), 0.0f, 1.0f);
    nside++;
    if (!sweep_circle(sm, i, vab[0], vab[2], &htmin, &htmax)) continue;
    if (htmin < 0.0f && htmax > 0.0f) htmin = -htmin * 0.5f; /* overlapping: avoid more */
    if (htmin >= 0.0f && htmin < tmin) {
      tmin = htmin;
      if (tmin < thr) return min_penalty;
    }
  }
  if ((tmin = walls_toi(sm, vcand, tmin, thr)) < 0) return min_penalty;
  if (nside) side /= (float)nside;
  return vpen + vcpen + p->weight_side * side +
         p->weight_toi * (1.0f / (0.1f + tmin * sm->inv_horiz));
}

/* The sampling pattern: the centre, then per ring (outermost first) one
 * point towards the desired direction (odd rings turned by half a step)
 * and points rotated step by step to either side. pat [2 * n]; returns n. */
static int make_pattern(float *pat, const float *dvel, int ndivs, int nrings) {
  const int nd = ndivs < 1 ? 1 : (ndivs > NM_AVOID_MAX_DIVS ? NM_AVOID_MAX_DIVS : ndivs);
  const int nr = nrings < 1 ? 1 : (nrings > NM_AVOID_MAX_RINGS ? NM_AVOID_MAX_RINGS : nrings);
  const float da = (1.0f / (float)nd) * 3.14159265f * 2;
  const float ca = cosf(da), sa = sinf(da), half = da * 0.5f;
  const float ch = cosf(half), sh = sinf(half);
  float ddir[6], d;
  int i, j, n = 0;
  nm_vcopy(ddir, dvel);
  d = sqrtf(ddir[0] * ddir[0] + ddir[2] * ddir[2]);
  if (d != 0) {
    d = 1.0f / d;
    ddir[0] *= d;
    ddir[2] *= d;
  }
  ddir[3] = ddir[0] * ch - ddir[2] * sh;
  ddir[5] = ddir[0] * sh + ddir[2] * ch;
  pat[n * 2] = pat[n * 2 + 1] = 0;
  n++;
  for (j = 0; j < nr; ++j) {
    const float r = (float)(nr - j) / (float)nr;
    const float *last1, *last2;
    pat[n * 2] = ddir[(j % 2) * 3] * r;
    pat[n * 2 + 1] = ddir[(j % 2) * 3 + 2] * r;
    last1 = last2 = &pat[n * 2];
    n++;
    for (i = 1; i < nd - 1; i += 2) {
      pat[n * 2] = last1[0] * ca + last1[1] * sa; /* clockwise */
      pat[n * 2 + 1] = -last1[0] * sa + last1[1] * ca;
      pat[n * 2 + 2] = last2[0] * ca - last2[1] * sa; /* counter-clockwise */
      pat[n * 2 + 3] = last2[0] * sa + last2[1] * ca;
      last1 = &pat[n * 2];
      last2 = last1 + 2;
      n += 2;
    }
    if ((nd & 1) == 0) { /* even: one more point, opposite the first */
      pat[n * 2] = last2[0] * ca - last2[1] * sa;
      pat[n * 2 + 1] = last2[0] * sa + last2[1] * ca;
      n++;
    }
  }
  return n;
}

int nm_avoid_sample_adaptive(nm_avoid *av, const float *pos, float rad, float vmax,
                             const float *vel, const float *dvel, float *nvel,
                             const nm_avoidance_params *prm) {
  float pat[(NM_AVOID_MAX_DIVS * NM_AVOID_MAX_RINGS + 1) * 2];
  float cr = vmax * (1.0f - prm->vel_bias), res[3];
  const float lim = nm_sqr(vmax + 0.001f);
  sampler sm;
  int npat, i, k, ns = 0;
  prepare(av, pos, dvel);
  sampler_init(&sm, av, pos, rad, vel, dvel, prm, vmax);
  nm_vset(nvel, 0, 0, 0);
  npat = make_pattern(pat, dvel, prm->adaptive_divs, prm->adaptive_rings);
  nm_vset(res, dvel[0] * prm->vel_bias, 0, dvel[2] * prm->vel_bias);
  for (k = 0; k < prm->adaptive_depth; ++k) {
    float min_penalty = FLT_MAX, bvel[3] = {0, 0, 0};
    for (i = 0; i < npat; ++i) {
      float vcand[3], penalty;
      vcand[0] = res[0] + pat[i * 2] * cr;
      vcand[1] = 0;
      vcand[2] = res[2] + pat[i * 2 + 1] * cr;
      if (nm_sqr(vcand[0]) + nm_sqr(vcand[2]) > lim) continue;
      penalty = process_sample(&sm, vcand, min_penalty);
      ns++;
      if (penalty < min_penalty) {
        min_penalty = penalty;
        nm_vcopy(bvel, vcand);
      }
    }
    nm_vcopy(res, bvel);
    cr *= 0.5f;
  }
  nm_vcopy(nvel, res);
  return ns;
}
