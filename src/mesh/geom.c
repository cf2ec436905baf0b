/* geom.c -- point-to-polygon geometry on the navmesh: height of the detail
 * surface under a point, closest point on a polygon, closest point on its
 * boundary. The detail mesh (small triangles carrying the true surface height)
 * decides heights; polygon vertices decide X/Z containment. */
#include "nm_mesh.h"

/* Vertex k of the detail triangle `tri` of polygon p: a polygon vertex when
 * k < vert_count, else one of the polygon's extra detail vertices. */
static inline const float *detail_vert(const nm_tile *t, const nm_poly *p, const nm_poly_detail *pd,
                                       uint8_t k) {
  if (k < p->vert_count) return &t->verts[p->verts[k] * 3];
  return &t->dverts[(pd->vert_base + (uint32_t)(k - p->vert_count)) * 3];
}

/* Closest point to pos (X/Z distance) on the detail triangle edges of p:
 * only outline edges when only_boundary, else every edge once. Falls back to
 * the polygon's own edges when it has no detail triangles. */
static void closest_on_detail_edges(const nm_tile *t, const nm_poly *p, const float *pos,
                                    float *closest, int only_boundary) {
  const nm_poly_detail *pd = &t->dmeshes[p - t->polys];
  const float *pmin = NULL, *pmax = NULL;
  float dmin = INFINITY, tmin = 0;
  int i, j, k;
  for (i = 0; i < pd->tri_count; i++) {
    const uint8_t *tri = &t->dtris[(pd->tri_base + (uint32_t)i) * 4];
    const float *v[3];
    if (only_boundary && (tri[3] & 0x15) == 0) continue; /* no outline edge */
    for (j = 0; j < 3; j++) v[j] = detail_vert(t, p, pd, tri[j]);
    for (k = 0, j = 2; k < 3; j = k++) {
      float tt, d;
      if (((tri[3] >> (j * 2)) & NM_DETAIL_EDGE_BOUNDARY) == 0 && (only_boundary || tri[j] < tri[k]))
        continue; /* inner edge: skipped, or seen from its other triangle */
      d = nm_dist_pt_seg_sqr2d(pos, v[j], v[k], &tt);
      if (d < dmin || !pmin) { dmin = d; tmin = tt; pmin = v[j]; pmax = v[k]; } /* d may be inf */
    }
  }
  if (!pmin) { /* no detail triangles: use the polygon outline */
    for (k = 0, j = p->vert_count - 1; k < p->vert_count; j = k++) {
      float tt;
      const float *a = &t->verts[p->verts[j] * 3], *b = &t->verts[p->verts[k] * 3];
      float d = nm_dist_pt_seg_sqr2d(pos, a, b, &tt);
      if (d < dmin || !pmin) { dmin = d; tmin = tt; pmin = a; pmax = b; }
    }
  }
  nm_vlerp(closest, pmin, pmax, tmin);
}

/* Height of the detail surface of p (not an off-mesh connection) at pos,
 * known to lie over p: the detail triangle under it, or the nearest point
 * of the detail edges when it lies on one (or triangles are degenerate). */
float nm_detail_height(const nm_tile *t, const nm_poly *p, const float *pos) {
  const nm_poly_detail *pd = &t->dmeshes[p - t->polys];
  float closest[3];
  int i;
  for (i = 0; i < pd->tri_count; i++) {
    const uint8_t *tri = &t->dtris[(pd->tri_base + (uint32_t)i) * 4];
    float h;
    if (nm_closest_height_on_tri(pos, detail_vert(t, p, pd, tri[0]), detail_vert(t, p, pd, tri[1]),
                                 detail_vert(t, p, pd, tri[2]), &h))
      return h;
  }
  closest_on_detail_edges(t, p, pos, closest, 0);
  return closest[1];
}

int nm_poly_height(const nm_tile *t, const nm_poly *p, const float *pos, float *height) {
  float verts[NM_MAX_VERTS_PER_POLY * 3];
  int i, nv = p->vert_count;
  if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) return 0;
  for (i = 0; i < nv; i++) nm_vcopy(&verts[i * 3], &t->verts[p->verts[i] * 3]);
  if (!nm_point_in_polygon(pos, verts, nv)) return 0;
  if (height) *height = nm_detail_height(t, p, pos);
  return 1;
}

void nm_closest_point_on_poly(const nm_navmesh *m, nm_polyref ref, const float *pos, float *closest,
                              int *over) {
  const nm_tile *t;
  const nm_poly *p;
  nm_ref_unsafe(m, ref, &t, &p);
  nm_vcopy(closest, pos);
  if (nm_poly_height(t, p, pos, &closest[1])) {
    if (over) *over = 1;
    return;
  }
  if (over) *over = 0;
  if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) {
    const float *v0 = &t->verts[p->verts[0] * 3], *v1 = &t->verts[p->verts[1] * 3];
    float tt;
    nm_dist_pt_seg_sqr2d(pos, v0, v1, &tt);
    nm_vlerp(closest, v0, v1, tt);
    return;
  }
  closest_on_detail_edges(t, p, pos, closest, 1);
}
