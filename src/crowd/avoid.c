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

/* ---- scoring candidates ----
 * Detour scores candidates one at a time and abandons one as soon as it
 * cannot beat the best so far: before looking at obstacles (when even an
 * obstacle-free candidate would lose) or when the time of impact found so
 * far drops under a threshold. Times of impact only decrease, so the second
 * test is the same as testing the earliest impact over all obstacles. So
 * what depends on the candidate alone (its velocity penalties, the side
 * term, its earliest impact) is worked out four candidates at a time where
 * SSE2 is there (the same IEEE operations in the same order), the
 * obstacle part only for groups holding a candidate that passes the first
 * test; Detour's tests and choice run in order. */

#define MAX_CANDIDATES 132 /* pattern size (32 * 4 + 1) rounded up to 4 */

typedef struct cands {
  float cx[MAX_CANDIDATES], cz[MAX_CANDIDATES];
  float vpen[MAX_CANDIDATES], vcpen[MAX_CANDIDATES], side[MAX_CANDIDATES], tmin[MAX_CANDIDATES];
  float pen[MAX_CANDIDATES];        /* whole penalty (when obstacles are scored) */
  uint8_t done[MAX_CANDIDATES / 4]; /* obstacles scored for group k / 4 */
  int n;
} cands;

/* Penalties for straying from the desired and the current velocity. */
static void pens_one(const sampler *sm, cands *cs, int k) {
  const nm_avoidance_params *p = sm->prm;
  const float vc[3] = {cs->cx[k], 0, cs->cz[k]};
  cs->vpen[k] = p->weight_des_vel * (nm_vdist2d(vc, sm->dvel) * sm->inv_vmax);
  cs->vcpen[k] = p->weight_cur_vel * (nm_vdist2d(vc, sm->vel) * sm->inv_vmax);
}

/* Averaged side term and earliest impact of candidate k (one at a time). */
static void obstacles_one(const sampler *sm, cands *cs, int k) {
  const nm_avoidance_params *p = sm->prm;
  const float vc[3] = {cs->cx[k], 0, cs->cz[k]};
  const float wx = vc[0] * 2 - sm->vel[0], wz = vc[2] * 2 - sm->vel[2];
  float tmin = p->horiz_time, side = 0;
  int i;
  for (i = 0; i < sm->av->ncircles; ++i) {
    const nm_obstacle_circle *c = &sm->av->circles[i];
    float vab[3], htmin = 0, htmax = 0;
    vab[0] = wx - c->vel[0];
    vab[1] = 0;
    vab[2] = wz - c->vel[2];
    side += nm_clampf(nm_minf(dot2d(c->dp, vab) * 0.5f + 0.5f, dot2d(c->np, vab) * 2), 0.0f, 1.0f);
    if (!sweep_circle(sm, i, vab[0], vab[2], &htmin, &htmax)) continue;
    if (htmin < 0.0f && htmax > 0.0f) htmin = -htmin * 0.5f; /* overlapping: avoid more */
    if (htmin >= 0.0f && htmin < tmin) tmin = htmin;
  }
  for (i = 0; i < sm->av->nsegs; ++i) {
    float ht = 0;
    if (sm->av->segs[i].touch) { /* against the wall: only moving away from it is free */
      if (-sm->sv[i][1] * vc[0] + sm->sv[i][0] * vc[2] < 0.0f) continue;
    } else if (!ray_wall(sm, i, vc[0], vc[2], &ht)) {
      continue;
    }
    ht *= 2.0f; /* walls count double: avoid less when facing them */
    if (ht < tmin) tmin = ht;
  }
  if (sm->av->ncircles) side /= (float)sm->av->ncircles;
  cs->side[k] = side;
  cs->tmin[k] = tmin;
  cs->pen[k] = cs->vpen[k] + cs->vcpen[k] + p->weight_side * side +
               p->weight_toi * (1.0f / (0.1f + tmin * sm->inv_horiz));
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* Per lane: m ? a : b. */
#define SEL(m, a, b) _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b))

/* Per lane: v < 0 ? 0 : (v > 1 ? 1 : v), NaN kept (Detour's dtClamp). */
static inline __m128 clamp01(__m128 v) {
  const __m128 one = _mm_set1_ps(1.0f);
  const __m128 lo = _mm_andnot_ps(_mm_cmplt_ps(v, _mm_setzero_ps()), v);
  return SEL(_mm_cmpgt_ps(lo, one), one, lo);
}

/* Per lane: sqrtf(dx*dx + dz*dz) of (b - a). */
static inline __m128 dist4(__m128 ax, __m128 az, float bx, float bz) {
  const __m128 dx = _mm_sub_ps(_mm_set1_ps(bx), ax), dz = _mm_sub_ps(_mm_set1_ps(bz), az);
  return _mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dz, dz)));
}

/* Per lane: a.x * bx + a.z * bz. */
static inline __m128 dot4(__m128 ax, __m128 az, float bx, float bz) {
  return _mm_add_ps(_mm_mul_ps(_mm_set1_ps(bx), ax), _mm_mul_ps(_mm_set1_ps(bz), az));
}

/* Circle i for four candidates (w = 2 vcand - vel): its side term is added
 * to *side, its time of impact folded into *tmin. MINPS gives a < b ? a : b
 * as Detour's dtMin does. */
static inline void circle4(const sampler *sm, int i, __m128 wx, __m128 wz, __m128 *side,
                           __m128 *tmin) {
  const nm_obstacle_circle *c = &sm->av->circles[i];
  const __m128 half = _mm_set1_ps(0.5f), zero = _mm_setzero_ps();
  const __m128 vx = _mm_sub_ps(wx, _mm_set1_ps(c->vel[0])), vz = _mm_sub_ps(wz, _mm_set1_ps(c->vel[2]));
  const __m128 s1 = _mm_add_ps(_mm_mul_ps(dot4(vx, vz, c->dp[0], c->dp[2]), half), half);
  const __m128 s2 = _mm_mul_ps(dot4(vx, vz, c->np[0], c->np[2]), _mm_set1_ps(2.0f));
  const __m128 a = _mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vz, vz));
  const __m128 b = _mm_add_ps(_mm_mul_ps(vx, _mm_set1_ps(sm->cs[i][0])),
                              _mm_mul_ps(vz, _mm_set1_ps(sm->cs[i][1])));
  const __m128 d = _mm_sub_ps(_mm_mul_ps(b, b), _mm_mul_ps(a, _mm_set1_ps(sm->cc[i])));
  const __m128 ia = _mm_div_ps(_mm_set1_ps(1.0f), a), rd = _mm_sqrt_ps(d);
  const __m128 htmax = _mm_mul_ps(_mm_add_ps(b, rd), ia);
  __m128 ht = _mm_mul_ps(_mm_sub_ps(b, rd), ia), take;
  *side = _mm_add_ps(*side, clamp01(_mm_min_ps(s1, s2)));
  ht = SEL(_mm_and_ps(_mm_cmplt_ps(ht, zero), _mm_cmpgt_ps(htmax, zero)),
           _mm_mul_ps(_mm_sub_ps(zero, ht), half), ht);
  take = _mm_andnot_ps(_mm_or_ps(_mm_cmplt_ps(a, _mm_set1_ps(0.0001f)), _mm_cmplt_ps(d, zero)),
                       _mm_and_ps(_mm_cmpge_ps(ht, zero), _mm_cmplt_ps(ht, *tmin)));
  *tmin = SEL(take, ht, *tmin);
}

/* Per lane: lo <= v <= hi (false for NaN). */
static inline __m128 within(__m128 v, __m128 lo, __m128 hi) {
  return _mm_and_ps(_mm_cmpge_ps(v, lo), _mm_cmple_ps(v, hi));
}

/* Wall i for four candidates u: its time of impact folded into *tmin. */
static inline void wall4(const sampler *sm, int i, __m128 ux, __m128 uz, __m128 *tmin) {
  const float *v = sm->sv[i], *w = sm->sw[i];
  const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
  __m128 ht, ok;
  if (sm->av->segs[i].touch) { /* moving away from a wall it touches is free */
    ok = _mm_cmpge_ps(dot4(ux, uz, -v[1], v[0]), zero);
    ht = zero;
  } else { /* isectRaySeg */
    const __m128 d = _mm_sub_ps(_mm_mul_ps(uz, _mm_set1_ps(v[0])), _mm_mul_ps(ux, _mm_set1_ps(v[1])));
    const __m128 absd = _mm_andnot_ps(_mm_set1_ps(-0.0f), d), id = _mm_div_ps(one, d);
    const __m128 t = _mm_mul_ps(_mm_set1_ps(sm->svw[i]), id);
    const __m128 uw = _mm_sub_ps(_mm_mul_ps(uz, _mm_set1_ps(w[0])), _mm_mul_ps(ux, _mm_set1_ps(w[1])));
    const __m128 s = _mm_mul_ps(uw, id);
    ok = _mm_and_ps(_mm_cmpge_ps(absd, _mm_set1_ps(1e-6f)),
                    _mm_and_ps(within(t, zero, one), within(s, zero, one)));
    ht = t;
  }
  ht = _mm_mul_ps(ht, _mm_set1_ps(2.0f));
  *tmin = SEL(_mm_and_ps(ok, _mm_cmplt_ps(ht, *tmin)), ht, *tmin);
}

/* pens_one for candidates k .. k+3 at once. */
static void pens_four(const sampler *sm, cands *cs, int k) {
  const nm_avoidance_params *p = sm->prm;
  const __m128 cx = _mm_loadu_ps(&cs->cx[k]), cz = _mm_loadu_ps(&cs->cz[k]);
  const __m128 iv = _mm_set1_ps(sm->inv_vmax);
  _mm_storeu_ps(&cs->vpen[k], _mm_mul_ps(_mm_set1_ps(p->weight_des_vel),
                                         _mm_mul_ps(dist4(cx, cz, sm->dvel[0], sm->dvel[2]), iv)));
  _mm_storeu_ps(&cs->vcpen[k], _mm_mul_ps(_mm_set1_ps(p->weight_cur_vel),
                                          _mm_mul_ps(dist4(cx, cz, sm->vel[0], sm->vel[2]), iv)));
}

/* obstacles_one for candidates k .. k+3 at once. */
static void obstacles_four(const sampler *sm, cands *cs, int k) {
  const __m128 cx = _mm_loadu_ps(&cs->cx[k]), cz = _mm_loadu_ps(&cs->cz[k]);
  const __m128 two = _mm_set1_ps(2.0f);
  const __m128 wx = _mm_sub_ps(_mm_mul_ps(cx, two), _mm_set1_ps(sm->vel[0]));
  const __m128 wz = _mm_sub_ps(_mm_mul_ps(cz, two), _mm_set1_ps(sm->vel[2]));
  __m128 side = _mm_setzero_ps(), tmin = _mm_set1_ps(sm->prm->horiz_time);
  int i;
  for (i = 0; i < sm->av->ncircles; ++i) circle4(sm, i, wx, wz, &side, &tmin);
  for (i = 0; i < sm->av->nsegs; ++i) wall4(sm, i, cx, cz, &tmin);
  if (sm->av->ncircles) side = _mm_div_ps(side, _mm_set1_ps((float)sm->av->ncircles));
  _mm_storeu_ps(&cs->side[k], side);
  _mm_storeu_ps(&cs->tmin[k], tmin);
  { /* vpen + vcpen + weight_side * side + weight_toi / (0.1 + tmin / horiz) */
    const __m128 tpen = _mm_mul_ps(_mm_set1_ps(sm->prm->weight_toi),
                                   _mm_div_ps(_mm_set1_ps(1.0f), _mm_add_ps(_mm_set1_ps(0.1f),
                                              _mm_mul_ps(tmin, _mm_set1_ps(sm->inv_horiz)))));
    const __m128 vp = _mm_add_ps(_mm_loadu_ps(&cs->vpen[k]), _mm_loadu_ps(&cs->vcpen[k]));
    const __m128 spen = _mm_mul_ps(_mm_set1_ps(sm->prm->weight_side), side);
    _mm_storeu_ps(&cs->pen[k], _mm_add_ps(_mm_add_ps(vp, spen), tpen));
  }
}
#endif

/* Velocity penalties of all candidates; no obstacles scored yet. */
static void pens_all(const sampler *sm, cands *cs) {
  int k = 0;
#if defined(__SSE2__)
  for (; k + 4 <= cs->n; k += 4) pens_four(sm, cs, k);
#endif
  for (; k < cs->n; k++) pens_one(sm, cs, k);
  memset(cs->done, 0, (size_t)(cs->n + 3) / 4);
}

/* Obstacles of the group of four holding candidate k, scored once. */
static void obstacles_group(const sampler *sm, cands *cs, int k) {
  const int g = k >> 2, k0 = g * 4;
  if (cs->done[g]) return;
  cs->done[g] = 1;
#if defined(__SSE2__)
  if (k0 + 4 <= cs->n) {
    obstacles_four(sm, cs, k0);
    return;
  }
#endif
  for (k = k0; k < k0 + 4 && k < cs->n; k++) obstacles_one(sm, cs, k);
}

/* Detour's threshold for candidate k: an obstacle met sooner than this
 * means it cannot beat min_penalty. */
static inline float threshold(const sampler *sm, const cands *cs, int k, float min_penalty) {
  const float min_pen = min_penalty - cs->vpen[k] - cs->vcpen[k];
  return (sm->prm->weight_toi / min_pen - 0.1f) * sm->prm->horiz_time;
}

/* Thresholds of candidates k .. k+3 for min_penalty (four at once with
 * SSE2, the same operations). */
static void thresholds(const sampler *sm, const cands *cs, int k, float min_penalty, float *thr) {
#if defined(__SSE2__)
  if (k + 4 <= cs->n) {
    const __m128 mp = _mm_sub_ps(_mm_sub_ps(_mm_set1_ps(min_penalty), _mm_loadu_ps(&cs->vpen[k])),
                                 _mm_loadu_ps(&cs->vcpen[k]));
    const __m128 t = _mm_mul_ps(_mm_sub_ps(_mm_div_ps(_mm_set1_ps(sm->prm->weight_toi), mp),
                                           _mm_set1_ps(0.1f)), _mm_set1_ps(sm->prm->horiz_time));
    _mm_storeu_ps(thr, t);
    return;
  }
#endif
  {
    int j;
    for (j = 0; j < 4 && k + j < cs->n; j++) thr[j] = threshold(sm, cs, k + j, min_penalty);
  }
}

/* Detour's choice among the scored candidates, in order: the first with
 * the lowest penalty, skipping those Detour abandons early. bvel gets it
 * (zero when none). Thresholds are worked out a group at a time and again
 * for the rest of a group after a new best. */
static void choose(const sampler *sm, cands *cs, float *bvel) {
  const float horiz = sm->prm->horiz_time;
  float min_penalty = FLT_MAX, thr[4];
  int k, j;
  nm_vset(bvel, 0, 0, 0);
  for (k = 0; k < cs->n; k += 4) {
    int fresh = 1; /* thr[] holds this group's thresholds for min_penalty */
    thresholds(sm, cs, k, min_penalty, thr);
    for (j = 0; j < 4 && k + j < cs->n; j++) {
      const int c = k + j;
      const float t = fresh ? thr[j] : threshold(sm, cs, c, min_penalty);
      if (t - horiz > -FLT_EPSILON) continue; /* cannot win even unobstructed */
      obstacles_group(sm, cs, c);
      if (cs->tmin[c] < t) continue; /* an obstacle comes too soon */
      if (cs->pen[c] < min_penalty) {
        min_penalty = cs->pen[c];
        nm_vset(bvel, cs->cx[c], 0, cs->cz[c]);
        fresh = 0;
      }
    }
  }
}

/* The sampling pattern: the centre, then per ring (outermost first) one
 * point towards the desired direction (odd rings turned by half a step)
 * and points rotated step by step to either side. pat [2 * n]; returns n. */
static int make_pattern(nm_avoid *av, float *pat, const float *dvel, int ndivs, int nrings) {
  const int nd = ndivs < 1 ? 1 : (ndivs > NM_AVOID_MAX_DIVS ? NM_AVOID_MAX_DIVS : ndivs);
  const int nr = nrings < 1 ? 1 : (nrings > NM_AVOID_MAX_RINGS ? NM_AVOID_MAX_RINGS : nrings);
  float ca, sa, ch, sh, ddir[6], d;
  int i, j, n = 0;
  if (av->trig_divs != nd) { /* the step angle's cosines and sines, kept per division count */
    const float da = (1.0f / (float)nd) * 3.14159265f * 2, half = da * 0.5f;
    av->trig[0] = cosf(da);
    av->trig[1] = sinf(da);
    av->trig[2] = cosf(half);
    av->trig[3] = sinf(half);
    av->trig_divs = nd;
  }
  ca = av->trig[0];
  sa = av->trig[1];
  ch = av->trig[2];
  sh = av->trig[3];
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
  cands cs;
  int npat, i, k, ns = 0;
  prepare(av, pos, dvel);
  sampler_init(&sm, av, pos, rad, vel, dvel, prm, vmax);
  nm_vset(nvel, 0, 0, 0);
  npat = make_pattern(av, pat, dvel, prm->adaptive_divs, prm->adaptive_rings);
  nm_vset(res, dvel[0] * prm->vel_bias, 0, dvel[2] * prm->vel_bias);
  for (k = 0; k < prm->adaptive_depth; ++k) {
    cs.n = 0;
    for (i = 0; i < npat; ++i) { /* candidates within the speed limit */
      const float vx = res[0] + pat[i * 2] * cr, vz = res[2] + pat[i * 2 + 1] * cr;
      if (nm_sqr(vx) + nm_sqr(vz) > lim) continue;
      cs.cx[cs.n] = vx;
      cs.cz[cs.n] = vz;
      cs.n++;
    }
    ns += cs.n;
    pens_all(&sm, &cs);
    choose(&sm, &cs, res);
    cr *= 0.5f;
  }
  nm_vcopy(nvel, res);
  return ns;
}
