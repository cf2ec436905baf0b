/* nearest.c -- findNearestPoly: the polygon closest to a point within a box.
 *
 * Tiles overlapping the box are visited in grid order (Z outer, X inner),
 * polygons inside a tile in BV-tree order; the first polygon with the
 * smallest distance wins. A point standing over a polygon measures only its
 * height above it, minus the climb height (so the floor under an agent beats
 * a wall closer in straight-line distance), as Detour does. */
#include "nm_query.h"

/* Clamps the grid range [*a, *b] to the cells that ever held tiles. */
static int clamp_range(int *a, int *b, int lo, int hi) {
  if (*a < lo) *a = lo;
  if (*b > hi) *b = hi;
  return *a <= *b;
}

/* Nearest candidate within one tile; updates *best and the outputs. */
static void nearest_in_tile(const nm_navmesh *m, const nm_tile *t, const float *center,
                            const float *qmin, const float *qmax, const nm_filter *f,
                            float *best, nm_polyref *ref, float *nearest, int *over) {
  const nm_polyref base = nm_tile_base(m, t);
  const float climb = t->header->walkable_climb;
  nm_box_iter it;
  int ip;
  nm_box_begin(&it, t, qmin, qmax);
  while ((ip = nm_box_next(&it)) >= 0) {
    const nm_poly *p = &t->polys[ip];
    float pt[3], diff[3], d;
    int on = 0;
    if (!nm_filter_pass(f, p)) continue;
    nm_closest_point_on_poly(m, base | (nm_polyref)ip, center, pt, &on);
    nm_vsub(diff, center, pt);
    if (on) {
      d = fabsf(diff[1]) - climb;
      d = d > 0 ? d * d : 0;
    } else {
      d = nm_vlen_sqr(diff);
    }
    if (d < *best) {
      *best = d;
      *ref = base | (nm_polyref)ip;
      nm_vcopy(nearest, pt);
      *over = on;
    }
  }
}

/* Tiles of cells x0..x1, y0..y1 by slot, for ranges spanning far more cells
 * than there are tiles (a huge box over a sparse grid would otherwise walk
 * up to 2^58 empty cells). Order differs from the cell walk only in which of
 * two equally near polygons wins; Detour itself would not finish here. */
static void nearest_by_slot(const nm_navmesh *m, int x0, int y0, int x1, int y1, const float *center,
                            const float *qmin, const float *qmax, const nm_filter *f, float *best,
                            nm_polyref *ref, float *nearest, int *over) {
  int i;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header || t->header->x < x0 || t->header->x > x1 || t->header->y < y0 || t->header->y > y1)
      continue;
    nearest_in_tile(m, t, center, qmin, qmax, f, best, ref, nearest, over);
  }
}

nm_status nm_query_find_nearest(nm_query *q, const float center[3], const float half_ext[3],
                                const nm_filter *filter, nm_polyref *ref, float nearest[3],
                                int *over) {
  const nm_navmesh *m = q->mesh;
  const nm_tile *tiles[32];
  float qmin[3], qmax[3], best = FLT_MAX, pt[3] = {0, 0, 0};
  int x0, y0, x1, y1, x, y, i, n, on = 0;
  nm_polyref found = 0;
  if (!ref) return NM_ERR_PARAM;
  *ref = 0;
  if (!center || !half_ext || !filter || !nm_isfinite3(center) || !nm_isfinite3(half_ext) ||
      half_ext[0] < 0 || half_ext[1] < 0 || half_ext[2] < 0)
    return NM_ERR_PARAM;
  nm_vsub(qmin, center, half_ext);
  nm_vadd(qmax, center, half_ext);
  nm_navmesh_tile_loc(m, qmin, &x0, &y0);
  nm_navmesh_tile_loc(m, qmax, &x1, &y1);
  if (!clamp_range(&x0, &x1, m->gx0, m->gx1) || !clamp_range(&y0, &y1, m->gy0, m->gy1)) {
    /* no tile in range */
  } else if ((int64_t)(x1 - x0 + 1) * (y1 - y0 + 1) > (int64_t)m->ntiles * 4 + 64) {
    nearest_by_slot(m, x0, y0, x1, y1, center, qmin, qmax, filter, &best, &found, pt, &on);
  } else { /* cells in Detour's order (Z outer, X inner): ties resolve as in Detour */
    for (y = y0; y <= y1; y++)
      for (x = x0; x <= x1; x++) {
        n = nm_navmesh_tiles_at(m, x, y, tiles, 32);
        for (i = 0; i < n; i++) nearest_in_tile(m, tiles[i], center, qmin, qmax, filter, &best, &found, pt, &on);
      }
  }
  *ref = found;
  if (!found) return NM_ERR_NO_POLY;
  if (nearest) nm_vcopy(nearest, pt);
  if (over) *over = on;
  return NM_OK;
}
