/* detailtris.c -- the detail triangles of a polygon (the surface the height
 * queries use) and a polygon's bounds against a box, for drawing and
 * export. */
#include "nm_debug.h"

int nm_detail_tri_count(const nm_tile *t, const nm_poly *p) {
  const nm_poly_detail *pd;
  if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) return 0;
  pd = &t->dmeshes[p - t->polys];
  return pd->tri_count ? pd->tri_count : p->vert_count - 2;
}

/* Vertex k of a detail triangle: the polygon's vertex k when k is below its
 * vertex count, else one of its extra detail vertices. */
static const float *detail_vert(const nm_tile *t, const nm_poly *p, const nm_poly_detail *pd, int k) {
  if (k < p->vert_count) return &t->verts[p->verts[k] * 3];
  return &t->dverts[(pd->vert_base + (uint32_t)(k - p->vert_count)) * 3];
}

void nm_detail_tri(const nm_tile *t, const nm_poly *p, int i, const float *v[3]) {
  const nm_poly_detail *pd = &t->dmeshes[p - t->polys];
  int j;
  if (!pd->tri_count) { /* the outline's fan */
    v[0] = &t->verts[p->verts[0] * 3];
    v[1] = &t->verts[p->verts[i + 1] * 3];
    v[2] = &t->verts[p->verts[i + 2] * 3];
    return;
  }
  for (j = 0; j < 3; j++) v[j] = detail_vert(t, p, pd, t->dtris[(pd->tri_base + (uint32_t)i) * 4 + j]);
}

int nm_poly_in_box(const nm_tile *t, const nm_poly *p, const float *bmin, const float *bmax) {
  float lo[3], hi[3];
  int j;
  if (!bmin) return 1;
  nm_vcopy(lo, &t->verts[p->verts[0] * 3]);
  nm_vcopy(hi, lo);
  for (j = 1; j < p->vert_count; j++) {
    nm_vmin(lo, &t->verts[p->verts[j] * 3]);
    nm_vmax(hi, &t->verts[p->verts[j] * 3]);
  }
  return nm_overlap_bounds(lo, hi, bmin, bmax);
}

nm_status nm_navmesh_get_poly_detail(const nm_navmesh *mesh, nm_polyref ref, float *tris, int cap,
                                     int *count) {
  const nm_tile *t;
  const nm_poly *p;
  int i, j, n;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!mesh || cap < 0 || (cap > 0 && !tris) || !nm_ref_get(mesh, ref, &t, &p)) return NM_ERR_PARAM;
  n = nm_detail_tri_count(t, p);
  for (i = 0; i < n && i < cap; i++) {
    const float *v[3];
    nm_detail_tri(t, p, i, v);
    for (j = 0; j < 3; j++) nm_vcopy(&tris[i * 9 + j * 3], v[j]);
  }
  *count = i;
  return n > cap ? NM_TRUNCATED : NM_OK;
}
