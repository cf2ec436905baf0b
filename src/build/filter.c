/* filter.c -- the three walkable filters on the solid heightfield (Recast's):
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
#include "nm_build.h"

#define FILTER_MAX_HEIGHT 0xffff

/* Bottom of the span above s: the ceiling of the open space on s. */
static int span_ceiling(const nm_span *s) {
  return s->next ? (int)s->next->smin : FILTER_MAX_HEIGHT;
}

/* ---- stage: low-hanging obstacles ---- */

/* Per column from the bottom: an unwalkable span directly above a walkable
 * one becomes walkable when its top is within walkable_climb of the
 * walkable span's top. */
void nm_hf_filter_low_hanging(nm_heightfield *hf, int walkable_climb) {
  const int n = hf->width * hf->height;
  int c;
  for (c = 0; c < n; c++) {
    const nm_span *prev = NULL;
    int prev_walkable = 0;
    unsigned prev_area = NM_NULL_AREA;
    nm_span *s;
    for (s = hf->spans[c]; s; s = s->next) {
      const int walkable = s->area != NM_NULL_AREA;
      /* judged on the original flag so that one step does not cascade */
      if (!walkable && prev_walkable && abs((int)s->smax - (int)prev->smax) <= walkable_climb)
        s->area = prev_area;
      prev_walkable = walkable;
      prev_area = s->area;
      prev = s;
    }
  }
}

/* ---- stage: ledges ---- */

/* Looks at the neighbour column ns for a span floor reachable from the open
 * space [floor, ceiling): updates the lowest floor difference (a drop) and
 * the range of floors within walkable_climb. Returns 1 when a drop already
 * makes the span a ledge. */
static int ledge_scan_column(const nm_span *ns, int floor, int ceiling, int walkable_height,
                             int walkable_climb, int *lowest_diff, int *lo, int *hi) {
  int ncei = ns ? (int)ns->smin : FILTER_MAX_HEIGHT;
  /* open space below the neighbour's first span: a drop into the void */
  if (nm_mini(ceiling, ncei) - floor >= walkable_height) {
    *lowest_diff = -walkable_climb - 1;
    return 1;
  }
  for (; ns; ns = ns->next) {
    const int nfloor = (int)ns->smax, diff = nfloor - floor;
    ncei = span_ceiling(ns);
    if (nm_mini(ceiling, ncei) - nm_maxi(floor, nfloor) < walkable_height) continue;
    if (diff < *lowest_diff) *lowest_diff = diff;
    if (abs(diff) <= walkable_climb) {
      if (nfloor < *lo) *lo = nfloor;
      if (nfloor > *hi) *hi = nfloor;
    } else if (diff < -walkable_climb) {
      return 1;
    }
  }
  return 0;
}

/* Decides whether walkable span s at column (x, z) is a ledge. */
static int ledge_is_ledge(const nm_heightfield *hf, const nm_span *s, int x, int z,
                          int walkable_height, int walkable_climb) {
  const int floor = (int)s->smax, ceiling = span_ceiling(s);
  int lowest_diff = FILTER_MAX_HEIGHT, lo = floor, hi = floor, dir;
  for (dir = 0; dir < 4; dir++) {
    const int nx = x + nm_dir_dx(dir), nz = z + nm_dir_dy(dir);
    if (nx < 0 || nz < 0 || nx >= hf->width || nz >= hf->height) return 1; /* grid edge */
    if (ledge_scan_column(hf->spans[nx + nz * hf->width], floor, ceiling, walkable_height,
                          walkable_climb, &lowest_diff, &lo, &hi))
      break;
  }
  if (lowest_diff < -walkable_climb) return 1;
  return hi - lo > walkable_climb; /* too steep between reachable neighbours */
}

/* Marks ledge spans unwalkable. Decisions read only solid span extents,
 * never areas, so marking in place does not change later decisions. */
void nm_hf_filter_ledges(nm_heightfield *hf, int walkable_height, int walkable_climb) {
  int x, z;
  for (z = 0; z < hf->height; z++)
    for (x = 0; x < hf->width; x++) {
      nm_span *s;
      for (s = hf->spans[x + z * hf->width]; s; s = s->next) {
        if (s->area == NM_NULL_AREA) continue;
        if (ledge_is_ledge(hf, s, x, z, walkable_height, walkable_climb)) s->area = NM_NULL_AREA;
      }
    }
}

/* ---- stage: low height ---- */

/* A walkable span needs at least walkable_height cells of free space up to
 * the next span (the top span of a column has unlimited room). */
void nm_hf_filter_low_height(nm_heightfield *hf, int walkable_height) {
  const int n = hf->width * hf->height;
  int c;
  for (c = 0; c < n; c++) {
    nm_span *s;
    for (s = hf->spans[c]; s; s = s->next)
      if (span_ceiling(s) - (int)s->smax < walkable_height) s->area = NM_NULL_AREA;
  }
}
