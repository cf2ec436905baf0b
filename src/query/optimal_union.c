/* optimal_union.c -- interval dominance by several nodes together (optimal
 * search, see optimal.c). A new node a through a portal can go when the
 * nodes already made through that portal reach every point p of a's
 * interval no worse than a: for each p some node b whose interval holds p
 * has g_b + |r_b p| <= g_a + |r_a p|. One node doing it alone is the
 * single-node test of optimal.c, tried first; this test runs when that
 * fails, at least two earlier nodes overlap a's interval without holding
 * it, and between them the overlapping nodes reach both of its ends. It
 * looks at the newest NM_OPT_UNION_MAX overlapping nodes at most.
 *
 * Where one b is no worse: with both roots on the same side of the portal's
 * line, |r_b p| - |r_a p| along the line has a single extremum, where the
 * line through both roots meets it, and is monotone either side of it. So
 * on each monotone piece of the part of a's interval that b's holds, the
 * points where b is no worse form a prefix or a suffix of the piece; its
 * end (where a hyperbola with foci r_a, r_b crosses the line) is bracketed
 * by Illinois false-position steps mixed with bisection. A part is claimed
 * only between two points that tested no worse, so rounding can only lose
 * coverage, and a gap keeps a. Slack as in the single-node test: 1e-10
 * relative on lengths, 1e-9 of a's interval on positions. */
#include "nm_optimal.h"

#define NM_OPT_UNION_TOL 1e-10  /* relative slack on path lengths */
#define NM_OPT_UNION_GAP 1e-9   /* gaps allowed between parts, in a's interval = [0, 1] */
#define NM_OPT_UNION_ROOT 1e-10 /* how near to the true end a part's end is found */
#define NM_OPT_UNION_STEPS 64   /* bracketing steps at most (then the part found so far) */

/* Node a (its interval p(t) = a->right + t * u, t in [0, 1]) and one
 * earlier node b through the same portal. */
typedef struct opt_upair {
  const nm_opt_node *a, *b;
  double ux, uy;
} opt_upair;

/* How much longer the way via b's root to p(t) is than via a's (with the
 * slack): <= 0 where b is no worse. The ends of a's interval are taken
 * exactly, as in the single-node test. */
static double excess(const opt_upair *P, double t) {
  const nm_opt_node *a = P->a, *b = P->b;
  double p[2];
  if (t == 0 || t == 1) {
    const double *e = t == 0 ? a->right : a->left;
    p[0] = e[0];
    p[1] = e[1];
  } else {
    p[0] = a->right[0] + P->ux * t;
    p[1] = a->right[1] + P->uy * t;
  }
  return b->g + nm_opt_dist(b->root, p) - (a->g + nm_opt_dist(a->root, p)) * (1 + NM_OPT_UNION_TOL);
}

/* On a piece where the excess is monotone, between tg (excess eg <= 0) and
 * tb (eb > 0): the point nearest to tb known to have excess <= 0, within
 * NM_OPT_UNION_ROOT of the crossing. Illinois steps (the end kept twice in
 * a row has its value halved), every third step a bisection so that the
 * bracket shrinks however flat the excess is. */
static double crossing(const opt_upair *P, double tg, double eg, double tb, double eb) {
  int i, last = 0; /* which end moved last: -1 good, 1 bad */
  for (i = 0; i < NM_OPT_UNION_STEPS && fabs(tb - tg) > NM_OPT_UNION_ROOT; i++) {
    const double t = i % 3 == 2 ? 0.5 * (tg + tb) : tg + (tb - tg) * (eg / (eg - eb));
    double e;
    if (t == tg || t == tb) break; /* no double between them */
    e = excess(P, t);
    if (e <= 0) {
      tg = t;
      eg = e;
      if (last < 0) eb *= 0.5;
      last = -1;
    } else {
      tb = t;
      eb = e;
      if (last > 0) eg *= 0.5;
      last = 1;
    }
  }
  return tg;
}

/* Appends to lo[], hi[] (from index k) the part of the monotone piece
 * [u, v] (excess eu, ev at its ends) where b is no worse; the new count. */
static int piece_part(const opt_upair *P, double u, double eu, double v, double ev, double *lo, double *hi, int k) {
  if (eu <= 0 && ev <= 0) {
    lo[k] = u;
    hi[k] = v;
  } else if (eu <= 0) {
    lo[k] = u;
    hi[k] = crossing(P, u, eu, v, ev);
  } else if (ev <= 0) {
    lo[k] = crossing(P, v, ev, u, eu);
    hi[k] = v;
  } else {
    return k;
  }
  return k + 1;
}

/* One candidate b: the part [t0, t1] of a's interval that b's holds, and
 * the excess at its ends once worked out (have: bit 1 e0, bit 2 e1). */
typedef struct opt_ucand {
  const nm_opt_node *b;
  double t0, t1, e0, e1;
  int have;
} opt_ucand;

/* Fills *u for node b; 0 when b cannot help: another polygon, its root
 * not strictly on a's side of the portal's line (the single-extremum
 * argument needs that), or no overlap with a's interval. */
static int cand_init(const opt_upair *P, double inv_uu, const nm_opt_node *b, opt_ucand *u) {
  const nm_opt_node *a = P->a;
  const double t0 = ((b->right[0] - a->right[0]) * P->ux + (b->right[1] - a->right[1]) * P->uy) * inv_uu;
  const double t1 = ((b->left[0] - a->right[0]) * P->ux + (b->left[1] - a->right[1]) * P->uy) * inv_uu;
  if (b->poly != a->poly || !(nm_opt_orient(a->right, a->left, b->root) > 0)) return 0;
  u->b = b;
  u->t0 = t0 < 0 ? 0 : t0;
  u->t1 = t1 > 1 ? 1 : t1;
  u->have = 0;
  return u->t1 - u->t0 > NM_OPT_UNION_GAP;
}

/* 1 when some candidate holds the end `end` (0: t = 0, 1: t = 1) of a's
 * interval, within the gap, and is no worse there. Most failing tests
 * stop here, after a few distance evaluations. */
static int end_covered(opt_upair *P, opt_ucand *u, int n, int end) {
  int i;
  for (i = 0; i < n; i++) {
    P->b = u[i].b;
    if (!end && u[i].t0 <= NM_OPT_UNION_GAP) {
      u[i].e0 = excess(P, u[i].t0);
      u[i].have |= 1;
      if (u[i].e0 <= 0) return 1;
    } else if (end && u[i].t1 >= 1 - NM_OPT_UNION_GAP) {
      u[i].e1 = excess(P, u[i].t1);
      u[i].have |= 2;
      if (u[i].e1 <= 0) return 1;
    }
  }
  return 0;
}

/* Appends the parts of a's interval where candidate u is no worse (at
 * most two: a piece either side of the extremum); the new count. */
static int good_parts(opt_upair *P, opt_ucand *u, double *lo, double *hi, int k) {
  const nm_opt_node *a = P->a, *b = u->b;
  double o1, o2, t[3], e[3];
  int np = 1, i;
  P->b = b;
  if (!(u->have & 1)) u->e0 = excess(P, u->t0);
  if (!(u->have & 2)) u->e1 = excess(P, u->t1);
  t[0] = u->t0;
  e[0] = u->e0;
  o1 = nm_opt_orient(b->root, a->root, a->right);
  o2 = nm_opt_orient(b->root, a->root, a->left);
  if ((o1 < 0) != (o2 < 0) && o1 != o2) { /* the extremum may lie inside: two pieces */
    t[1] = o1 / (o1 - o2);
    if (t[1] > u->t0 && t[1] < u->t1) e[np++] = excess(P, t[1]);
  }
  t[np] = u->t1;
  e[np] = u->e1;
  for (i = 0; i < np; i++) k = piece_part(P, t[i], e[i], t[i + 1], e[i + 1], lo, hi, k);
  return k;
}

/* 1 when the parts [lo[i], hi[i]], i < n, cover [0, 1] but for gaps of
 * at most NM_OPT_UNION_GAP. */
static int covered(const double *lo, const double *hi, int n) {
  double cur = 0;
  while (cur < 1 - NM_OPT_UNION_GAP) {
    double best = cur;
    int i;
    for (i = 0; i < n; i++)
      if (lo[i] <= cur + NM_OPT_UNION_GAP && hi[i] > best) best = hi[i];
    if (best <= cur) return 0;
    cur = best;
  }
  return 1;
}

/* The first NM_OPT_UNION_MAX nodes in pr's chain whose spans overlap node
 * xi's (span x) into cand[]; their number. */
static int candidates(const nm_opt *s, const nm_opt_portal *pr, const nm_opt_span *x, uint32_t *cand) {
  uint32_t j;
  int n = 0;
  for (j = pr->head; j && n < NM_OPT_UNION_MAX; j = s->spans[j - 1].chain) {
    const nm_opt_span *b = &s->spans[j - 1];
    if (b->t0 < x->t1 - NM_OPT_SPAN_GAP && b->t1 > x->t0 + NM_OPT_SPAN_GAP) cand[n++] = j - 1;
  }
  return n;
}

int nm_opt_union_dominated(const nm_opt_ctx *c, const nm_opt_portal *pr, uint32_t xi) {
  const nm_opt_node *a = &c->s->nodes[xi];
  double lo[2 * NM_OPT_UNION_MAX], hi[2 * NM_OPT_UNION_MAX], uu;
  uint32_t cand[NM_OPT_UNION_MAX];
  opt_ucand u[NM_OPT_UNION_MAX];
  opt_upair P;
  int i, m = 0, k = 0, n;
  if ((n = candidates(c->s, pr, &c->s->spans[xi], cand)) < 2) return 0;
  P.a = a;
  P.ux = a->left[0] - a->right[0];
  P.uy = a->left[1] - a->right[1];
  uu = P.ux * P.ux + P.uy * P.uy;
  if (!(uu > 0) || !(nm_opt_orient(a->right, a->left, a->root) > 0)) return 0;
  uu = 1 / uu;
  for (i = 0; i < n; i++) m += cand_init(&P, uu, &c->s->nodes[cand[i]], &u[m]);
  if (m < 2 || !end_covered(&P, u, m, 0) || !end_covered(&P, u, m, 1)) return 0;
  for (i = 0; i < m; i++) k = good_parts(&P, &u[i], lo, hi, k);
  return covered(lo, hi, k);
}
