/* nearest.c -- findNearestPoly: the polygon closest to a point within a box.
 *
 * Tiles overlapping the box are visited in grid order (Z outer, X inner),
 * polygons inside a tile in BV-tree order; the first polygon with the
 * smallest distance wins. A point standing over a polygon measures only its
 * height above it, minus the climb height (so the floor under an agent beats
 * a wall closer in straight-line distance), as Detour does. Two shortcuts
 * keep Detour's answer: a distance of 0 cannot be beaten (the first one
 * wins), so the search stops there; and a polygon whose BV box lies farther
 * from the point in X/Z than the best distance is not measured. */
#include "nm_query.h"

/* What the tiles of one search share: the query and the best so far. */
typedef struct nearest_ctx {
  const nm_navmesh *m;
  const float *center, *qmin, *qmax;
  const nm_filter *f;
  float best, pt[3];
  nm_polyref ref;
  int over;
} nearest_ctx;

/* What the X/Z bound of one tile's BV boxes needs, worked out once per
 * tile: the tile origin, the size of one quantum, and a margin of one
 * quantum (Recast truncates the upper bounds of detail-mesh boxes, so a
 * polygon may reach up to one quantum past them) plus a relative 1e-5
 * against rounding. */
typedef struct box_scale {
  float ox, oz, inv, pad;
} box_scale;

static void box_scale_of(const nm_tile_header *h, box_scale *b) {
  const float mag = nm_maxf(nm_maxf(fabsf(h->bmin[0]), fabsf(h->bmax[0])),
                            nm_maxf(fabsf(h->bmin[2]), fabsf(h->bmax[2])));
  b->ox = h->bmin[0];
  b->oz = h->bmin[2];
  b->inv = 1.0f / h->bv_quant_factor;
  b->pad = b->inv + 1e-5f * (2.0f * (mag + b->inv) + 1.0f);
}

/* Distance from v to [lo - pad, hi + pad] (0 inside). */
static inline float outside(float v, float lo, float hi, float pad) {
  return v < lo - pad ? lo - pad - v : v > hi + pad ? v - hi - pad : 0.0f;
}

/* A lower bound of the squared distance from c to a polygon inside BV node
 * n: its X/Z distance to the node's widened box (a point outside the box is
 * not over the polygon, so the polygon's distance is 3-D). */
static inline float box_bound_xz(const box_scale *b, const nm_bvnode *n, const float *c) {
  const float ex = outside(c[0], b->ox + n->bmin[0] * b->inv, b->ox + n->bmax[0] * b->inv, b->pad);
  const float ez = outside(c[2], b->oz + n->bmin[2] * b->inv, b->oz + n->bmax[2] * b->inv, b->pad);
  return (ex * ex + ez * ez) * 0.999f;
}

/* Nearest candidate within one tile; updates the context. */
static void nearest_in_tile(void *ud, const nm_tile *t) {
  nearest_ctx *c = (nearest_ctx *)ud;
  const nm_polyref base = nm_tile_base(c->m, t);
  const float climb = t->header->walkable_climb;
  nm_box_iter it;
  box_scale bs = {0, 0, 0, 0};
  int ip;
  if (c->best == 0) return; /* nothing beats 0 */
  if (t->bvtree) box_scale_of(t->header, &bs);
  nm_box_begin(&it, t, c->qmin, c->qmax);
  while ((ip = nm_box_next(&it)) >= 0) {
    const nm_poly *p = &t->polys[ip];
    float pt[3], diff[3], d;
    int on = 0;
    if (!nm_filter_pass(c->f, p)) continue;
    if (t->bvtree && box_bound_xz(&bs, &t->bvtree[it.k - 1], c->center) >= c->best) continue;
    nm_closest_point_on_poly(c->m, base | (nm_polyref)ip, c->center, pt, &on);
    nm_vsub(diff, c->center, pt);
    if (on) {
      d = fabsf(diff[1]) - climb;
      d = d > 0 ? d * d : 0;
    } else {
      d = nm_vlen_sqr(diff);
    }
    if (d < c->best) {
      c->best = d;
      c->ref = base | (nm_polyref)ip;
      nm_vcopy(c->pt, pt);
      c->over = on;
      if (d == 0) return;
    }
  }
}

nm_status nm_query_find_nearest(nm_query *q, const float center[3], const float half_ext[3],
                                const nm_filter *filter, nm_polyref *ref, float nearest[3],
                                int *over) {
  nearest_ctx c;
  float qmin[3], qmax[3];
  int x0, y0, x1, y1;
  if (!ref) return NM_ERR_PARAM;
  *ref = 0;
  if (!center || !half_ext || !filter || !nm_isfinite3(center) || !nm_isfinite3(half_ext) ||
      half_ext[0] < 0 || half_ext[1] < 0 || half_ext[2] < 0)
    return NM_ERR_PARAM;
  nm_vsub(qmin, center, half_ext);
  nm_vadd(qmax, center, half_ext);
  nm_navmesh_tile_loc(q->mesh, qmin, &x0, &y0);
  nm_navmesh_tile_loc(q->mesh, qmax, &x1, &y1);
  memset(&c, 0, sizeof c);
  c.m = q->mesh;
  c.center = center;
  c.qmin = qmin;
  c.qmax = qmax;
  c.f = filter;
  c.best = FLT_MAX;
  nm_navmesh_visit_tiles(q->mesh, x0, y0, x1, y1, nearest_in_tile, &c);
  *ref = c.ref;
  if (!c.ref) return NM_ERR_NO_POLY;
  if (nearest) nm_vcopy(nearest, c.pt);
  if (over) *over = c.over;
  return NM_OK;
}
