/* spanfilter.c -- the three walkable filters on the solid heightfield (Recast's):
 *   low-hanging obstacles: a non-walkable span whose top is within
 *     walkable_climb of the walkable span below it becomes walkable (curbs,
 *     stair steps modelled as boxes);
 *   ledges: a walkable span next to a drop deeper than walkable_climb, or
 *     whose reachable neighbour floors differ by more than walkable_climb
 *     (a steep slope), becomes unwalkable;
 *   low height: a walkable span with less than walkable_height of free space
 *     above it becomes unwalkable.
 * Heights are in cells; the open space above a span reaches the next span's
 * bottom, or FILTER_MAX_HEIGHT when there is none. */
#include <stdlib.h>
#include "nm_voxel.h"

#define FILTER_MAX_HEIGHT 0xffff

/* Bottom of the span above s: the ceiling of the open space on s. */
static int span_ceiling(const nm_span *s) {
  return s->next ? (int)s->next->smin : FILTER_MAX_HEIGHT;
}

/* ---- per column ---- */

/* Low-hanging obstacles in one column, from the bottom: an unwalkable span
 * directly above a walkable one becomes walkable when its top is within
 * walkable_climb of the walkable span's top. */
static void low_hanging_column(nm_span *s, int walkable_climb) {
  const nm_span *prev = NULL;
  int prev_walkable = 0;
  unsigned prev_area = NM_NULL_AREA;
  for (; s; s = s->next) {
    const int walkable = s->area != NM_NULL_AREA;
    /* judged on the original flag so that one step does not cascade */
    if (!walkable && prev_walkable && abs((int)s->smax - (int)prev->smax) <= walkable_climb)
      s->area = prev_area;
    prev_walkable = walkable;
    prev_area = s->area;
    prev = s;
  }
}

/* Notes neighbour floor nfloor of a span with floor `floor`, reachable
 * from it: 1 when it is a drop deeper than wc (a ledge); otherwise a floor
 * within wc widens [*lo, *hi]. */
static inline int ledge_floor(int nfloor, int floor, int wc, int *lo, int *hi) {
  const int diff = nfloor - floor;
  if (diff < -wc) return 1;
  if (diff <= wc) {
    *lo = nm_mini(*lo, nfloor);
    *hi = nm_maxi(*hi, nfloor);
  }
  return 0;
}

/* Whether the open space [floor, ceiling) is a ledge against the four
 * neighbour columns nb[]: a neighbour with open space deeper than
 * walkable_climb below it (a drop, or the void under the neighbour's first
 * span), or reachable neighbour floors spread over more than walkable_climb
 * (a steep slope). Only floors whose open space overlaps this one by
 * walkable_height count; under open sky (the common case on terrain) a
 * neighbour's top span always overlaps, since spans end below 8192. */
static inline int is_ledge(nm_span *const nb[4], int floor, int ceiling, int wh, int wc) {
  int lo = floor, hi = floor, dir;
  for (dir = 0; dir < 4; dir++) {
    const nm_span *ns = nb[dir];
    if (nm_mini(ceiling, ns ? (int)ns->smin : FILTER_MAX_HEIGHT) - floor >= wh) return 1;
    if (ns && !ns->next && ceiling == FILTER_MAX_HEIGHT) { /* one span, open sky */
      if (ledge_floor((int)ns->smax, floor, wc, &lo, &hi)) return 1;
      continue;
    }
    for (; ns; ns = ns->next) {
      const int nfloor = (int)ns->smax;
      if (nm_mini(ceiling, span_ceiling(ns)) - nm_maxi(floor, nfloor) < wh) continue;
      if (ledge_floor(nfloor, floor, wc, &lo, &hi)) return 1;
    }
  }
  return hi - lo > wc;
}

/* Ledge and low-height decisions for the walkable spans of column c, whose
 * neighbour columns are nb[] (NULL when c is on the grid edge: then every
 * span is a ledge). Both decisions read only solid span extents, never
 * areas, so marking in place does not change later decisions. */
static void filter_column(nm_span *s, nm_span *const nb[4], int which, int wh, int wc) {
  for (; s; s = s->next) {
    const int floor = (int)s->smax, ceiling = span_ceiling(s);
    if (s->area == NM_NULL_AREA) continue;
    if ((which & NM_FILTER_LOW_HEIGHT) && ceiling - floor < wh) s->area = NM_NULL_AREA;
    else if ((which & NM_FILTER_LEDGES) && (!nb || is_ledge(nb, floor, ceiling, wh, wc))) s->area = NM_NULL_AREA;
  }
}

/* ---- stage: the filters ---- */

/* The chosen filters in one pass over the columns, as if run one after the
 * other (low-hanging obstacles, ledges, low height): low-hanging obstacles
 * change areas within a column only, and the other two read span extents,
 * so a column can be finished before the next is looked at. */
void nm_hf_filter(nm_heightfield *hf, int which, int walkable_height, int walkable_climb) {
  const int w = hf->width, h = hf->height;
  int x, z;
  for (z = 0; z < h; z++)
    for (x = 0; x < w; x++) {
      const int c = x + z * w;
      nm_span *col = hf->spans[c], *nb[4];
      if (!col) continue;
      if (which & NM_FILTER_LOW_HANGING) low_hanging_column(col, walkable_climb);
      if (!(which & (NM_FILTER_LEDGES | NM_FILTER_LOW_HEIGHT))) continue;
      if (x == 0 || z == 0 || x == w - 1 || z == h - 1) {
        filter_column(col, NULL, which, walkable_height, walkable_climb);
        continue;
      }
      nb[0] = hf->spans[c - 1];
      nb[1] = hf->spans[c + w];
      nb[2] = hf->spans[c + 1];
      nb[3] = hf->spans[c - w];
      filter_column(col, nb, which, walkable_height, walkable_climb);
    }
}

void nm_hf_filter_low_hanging(nm_heightfield *hf, int walkable_climb) {
  nm_hf_filter(hf, NM_FILTER_LOW_HANGING, 0, walkable_climb);
}

void nm_hf_filter_ledges(nm_heightfield *hf, int walkable_height, int walkable_climb) {
  nm_hf_filter(hf, NM_FILTER_LEDGES, walkable_height, walkable_climb);
}

void nm_hf_filter_low_height(nm_heightfield *hf, int walkable_height) {
  nm_hf_filter(hf, NM_FILTER_LOW_HEIGHT, walkable_height, 0);
}
