/* boundary.c -- the walls around an agent (Detour's dtLocalBoundary).
 *
 * The polygons around the agent within its collision range that do not
 * overlap each other (findLocalNeighbourhood: no floor above or below the
 * one it stands on) give their wall edges; the 8 nearest within range are
 * kept, nearest first, for the avoidance. The crowd refreshes them when the
 * agent has moved a quarter of the range or a polygon became invalid. */
#include "nm_crowd.h"

void nm_boundary_reset(nm_boundary *b) {
  nm_vset(b->center, FLT_MAX, FLT_MAX, FLT_MAX);
  b->npolys = 0;
  b->nsegs = 0;
}

/* Inserts segment s at squared distance d, keeping the nearest
 * NM_BOUNDARY_MAX_SEGS in order (a tie goes before the equal ones). */
static void add_segment(nm_boundary *b, float d, const float *s) {
  nm_boundary_seg *seg;
  int i;
  if (!b->nsegs) {
    seg = &b->segs[0];
  } else if (d >= b->segs[b->nsegs - 1].d) {
    if (b->nsegs >= NM_BOUNDARY_MAX_SEGS) return;
    seg = &b->segs[b->nsegs];
  } else {
    int n;
    for (i = 0; i < b->nsegs; ++i)
      if (d <= b->segs[i].d) break;
    n = nm_mini(b->nsegs - i, NM_BOUNDARY_MAX_SEGS - (i + 1));
    if (n > 0) memmove(&b->segs[i + 1], &b->segs[i], (size_t)n * sizeof(nm_boundary_seg));
    seg = &b->segs[i];
  }
  seg->d = d;
  memcpy(seg->s, s, sizeof seg->s);
  if (b->nsegs < NM_BOUNDARY_MAX_SEGS) b->nsegs++;
}

void nm_boundary_update(nm_boundary *b, nm_polyref ref, const float *pos, float range, nm_query *q,
                        const nm_filter *f) {
  float segs[NM_MAX_VERTS_PER_POLY * 3 * 6];
  const float range_sqr = nm_sqr(range);
  int j, k, nsegs;
  if (!ref) {
    nm_boundary_reset(b);
    return;
  }
  nm_vcopy(b->center, pos);
  nm_query_local_neighbourhood(q, ref, pos, range, f, b->polys, NULL, NM_BOUNDARY_MAX_POLYS,
                               &b->npolys);
  b->nsegs = 0;
  for (j = 0; j < b->npolys; ++j) {
    nm_query_wall_segments(q, b->polys[j], f, segs, NULL, NM_MAX_VERTS_PER_POLY * 3, &nsegs);
    for (k = 0; k < nsegs; ++k) {
      const float *s = &segs[k * 6];
      float tseg;
      const float d = nm_dist_pt_seg_sqr2d(pos, s, s + 3, &tseg);
      if (d > range_sqr) continue;
      add_segment(b, d, s);
    }
  }
}

int nm_boundary_is_valid(const nm_boundary *b, const nm_navmesh *m, const nm_filter *f) {
  int i;
  if (!b->npolys) return 0;
  for (i = 0; i < b->npolys; ++i)
    if (!nm_ref_passes(m, b->polys[i], f)) return 0;
  return 1;
}
