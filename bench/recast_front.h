// recast_front.h -- the front half of RecastDemo's per-tile pipeline with
// Recast itself (Debian's librecast-dev): heightfield, walkable triangles,
// rasterization, the three filters, compact heightfield, erosion. Shared by
// bench/recast_build_bench.cpp and bench/detour_cache_bench.cpp.
#ifndef NM_RECAST_FRONT_H
#define NM_RECAST_FRONT_H
#include <vector>
#include "Recast.h"

// The eroded compact heightfield of triangles tris [3 * n] (caller frees).
static inline rcCompactHeightfield *rc_front(rcContext *ctx, const rcConfig &c, const float *v, int nv,
                                             const int *tris, int n) {
  std::vector<unsigned char> areas(n, 0);
  rcHeightfield *hf = rcAllocHeightfield();
  rcCreateHeightfield(ctx, *hf, c.width, c.height, c.bmin, c.bmax, c.cs, c.ch);
  rcMarkWalkableTriangles(ctx, c.walkableSlopeAngle, v, nv, tris, n, areas.data());
  rcRasterizeTriangles(ctx, v, nv, tris, areas.data(), n, *hf, c.walkableClimb);
  rcFilterLowHangingWalkableObstacles(ctx, c.walkableClimb, *hf);
  rcFilterLedgeSpans(ctx, c.walkableHeight, c.walkableClimb, *hf);
  rcFilterWalkableLowHeightSpans(ctx, c.walkableHeight, *hf);
  rcCompactHeightfield *chf = rcAllocCompactHeightfield();
  rcBuildCompactHeightfield(ctx, c.walkableHeight, c.walkableClimb, *hf, *chf);
  rcFreeHeightField(hf);
  rcErodeWalkableArea(ctx, c.walkableRadius, *chf);
  return chf;
}
#endif
