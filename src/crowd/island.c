/* island.c -- targets no path can reach (beyond Detour).
 *
 * A target on another island of the mesh (polygons joined by no chain of
 * links, whatever the filter: see nm_navmesh_island) can never be reached.
 * Detour still searches towards it, over the whole island the agent is on
 * or until its node pool runs out (tens of updates in a city, holding a
 * slot of the path queue), and then walks to the node nearest the target.
 * With config island_targets the crowd instead plans straight to the
 * nearest point of the agent's own island (3-D distance, as
 * findNearestPoly measures), found with boxes around the target that double
 * until one holds a polygon of that island. */
#include "nm_crowd.h"

#define MAX_CANDIDATES 1024
#define MAX_DOUBLINGS 14 /* boxes up to 2 * 2^13 = 16 km */

/* Nearest point to pos among the polygons in the box pos +- ext that lie on
 * island isl and pass f; *best its squared distance (unchanged if none). */
static void nearest_in_box(nm_crowd *c, const nm_filter *f, uint32_t isl, const float *pos,
                           const float *ext, nm_polyref *ref, float *out, float *best) {
  nm_polyref refs[MAX_CANDIDATES];
  int i, n = 0;
  nm_query_polygons(c->q, pos, ext, f, refs, MAX_CANDIDATES, &n);
  for (i = 0; i < n; i++) {
    float cl[3], d;
    if (nm_island_label(c->mesh, refs[i]) != isl) continue;
    if (nm_query_closest_point(c->q, refs[i], pos, cl, NULL) < 0) continue;
    d = nm_vdist_sqr(cl, pos);
    if (d < *best) {
      *best = d;
      *ref = refs[i];
      nm_vcopy(out, cl);
    }
  }
}

int nm_crowd_island_goal(nm_crowd *c, const nm_agent *ag, nm_polyref *ref, float *pos) {
  const uint32_t own = nm_navmesh_island(c->mesh, ag->corridor.path[0]);
  const uint32_t goal = nm_island_label(c->mesh, ag->target_ref);
  float ext[3] = {2, 4, 2}, best = FLT_MAX;
  int k;
  if (!own || !goal || own == goal) return 0;
  for (k = 0; k < MAX_DOUBLINGS && best == FLT_MAX; k++) {
    nearest_in_box(c, &ag->filter, own, ag->target_pos, ext, ref, pos, &best);
    nm_vset(ext, ext[0] * 2, ext[1] * 2, ext[2] * 2);
  }
  if (best == FLT_MAX) return 0;
  ext[0] = ext[1] = ext[2] = sqrtf(best); /* anything nearer lies in this box */
  nearest_in_box(c, &ag->filter, own, ag->target_pos, ext, ref, pos, &best);
  return 1;
}
