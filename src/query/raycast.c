/* raycast.c -- raycast along the navmesh surface (Detour's raycast).
 *
 * The ray is the X/Z segment start->end. Starting in start_ref, each polygon
 * is clipped against the segment (Cyrus-Beck: per edge, the parameter where
 * the segment enters or leaves the edge's half plane). The furthest exit so
 * far is the ray's progress t. If the segment ends inside the polygon the end
 * is reached (t = FLT_MAX); otherwise the ray crosses the exit edge into the
 * neighbour linked there (for tile-border links only when the crossing point
 * lies on the linked part of the edge) or, when there is none, it hits that
 * edge as a wall. A polygon the segment does not intersect at all (possible
 * only through float precision, mostly a start point on the boundary) stops
 * the ray with the largest t so far and no normal, as Detour does.
 * Float operations follow Detour's order: results agree with it bit for bit. */
#include "nm_query.h"

int nm_intersect_seg_poly2d(const float *p0, const float *p1, const float *verts, int nverts,
                            float winding, float *tmin, float *tmax, int *seg_min, int *seg_max) {
  const float eps = 0.000001f;
  float dir[3];
  int i, j;
  *tmin = 0;
  *tmax = 1;
  *seg_min = -1;
  *seg_max = -1;
  nm_vsub(dir, p1, p0);
  for (i = 0, j = nverts - 1; i < nverts; j = i++) {
    float edge[3], diff[3], n, d, t;
    nm_vsub(edge, &verts[i * 3], &verts[j * 3]);
    nm_vsub(diff, p0, &verts[j * 3]);
    n = nm_vperp2d(edge, diff) * winding;
    d = nm_vperp2d(dir, edge) * winding;
    if (fabsf(d) < eps) { /* parallel to this edge: outside it means no hit */
      if (n < 0) return 0;
      continue;
    }
    t = n / d;
    if (d < 0) { /* entering across this edge */
      if (t > *tmin) {
        *tmin = t;
        *seg_min = j;
        if (*tmin > *tmax) return 0;
      }
    } else if (t < *tmax) { /* leaving across this edge */
      *tmax = t;
      *seg_max = j;
      if (*tmax < *tmin) return 0;
    }
  }
  return 1;
}

/* Whether a tile-border link covers the point where the ray leaves through
 * its edge (the link may span only part of the edge). */
static int border_link_hit(const nm_tile *t, const nm_poly *p, const nm_link *l, const float *s,
                           const float *e, float tmax) {
  const float *left = &t->verts[p->verts[l->edge] * 3];
  const float *right = &t->verts[p->verts[(l->edge + 1) % p->vert_count] * 3];
  const float k = 1.0f / 255.0f;
  int axis;
  float lo, hi, v;
  if (l->bmin == 0 && l->bmax == 255) return 1;
  if (l->side == 0 || l->side == 4) axis = 2;
  else if (l->side == 2 || l->side == 6) axis = 0;
  else return 0;
  lo = left[axis] + (right[axis] - left[axis]) * (l->bmin * k);
  hi = left[axis] + (right[axis] - left[axis]) * (l->bmax * k);
  if (lo > hi) {
    const float tmp = lo;
    lo = hi;
    hi = tmp;
  }
  v = s[axis] + (e[axis] - s[axis]) * tmax;
  return v >= lo && v <= hi;
}

/* The passable ground neighbour across edge `edge` of polygon p at the
 * ray's exit point, 0 when the edge is a wall there. */
static nm_polyref next_poly(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, int edge,
                            const nm_filter *f, const float *s, const float *e, float tmax) {
  uint32_t i;
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next) {
    const nm_link *l = &t->links[i];
    const nm_tile *nt;
    const nm_poly *np;
    if ((int)l->edge != edge) continue;
    nm_ref_unsafe(m, l->ref, &nt, &np);
    if (nm_poly_type(np) == NM_POLYTYPE_OFFMESH || !nm_filter_pass(f, np)) continue;
    if (l->side == 0xff || border_link_hit(t, p, l, s, e, tmax)) return l->ref;
  }
  return 0;
}

/* Unit X/Z normal of edge a -> a+1 of the polygon (Detour's orientation). */
static void edge_normal(const float *verts, int nv, int a, float *normal) {
  const int b = a + 1 < nv ? a + 1 : 0;
  const float dx = verts[b * 3] - verts[a * 3], dz = verts[b * 3 + 2] - verts[a * 3 + 2];
  nm_vset(normal, dz, 0, -dx);
  nm_vnormalize(normal);
}

nm_status nm_query_raycast(nm_query *q, nm_polyref start_ref, const float start[3],
                           const float end[3], const nm_filter *filter, float *t, float normal[3],
                           nm_polyref *path, int cap, int *count) {
  const nm_navmesh *m = q->mesh;
  const nm_tile *tile;
  const nm_poly *poly;
  nm_polyref cur = start_ref;
  nm_status st = NM_OK;
  float verts[NM_MAX_VERTS_PER_POLY * 3], n3[3] = {0, 0, 0}, hit_t = 0;
  int n = 0;
  if (!t || !count) return NM_ERR_PARAM;
  *t = 0;
  *count = 0;
  if (normal) nm_vset(normal, 0, 0, 0);
  if (!start || !end || !filter || !nm_isfinite3(start) || !nm_isfinite3(end) || cap < 0 ||
      (cap > 0 && !path) || !nm_ref_get(m, start_ref, &tile, &poly))
    return NM_ERR_PARAM;
  while (cur) {
    float tmin, tmax;
    int smin, smax, nv;
    nm_ref_unsafe(m, cur, &tile, &poly);
    nv = nm_poly_verts(tile, poly, verts);
    if (!nm_intersect_seg_poly2d(start, end, verts, nv, 1.0f, &tmin, &tmax, &smin, &smax))
      break; /* cannot enter: keep the largest t, no normal */
    if (tmax > hit_t) hit_t = tmax;
    if (n < cap) path[n++] = cur;
    else st |= NM_TRUNCATED;
    if (smax == -1) { /* the segment ends inside this polygon */
      hit_t = FLT_MAX;
      break;
    }
    cur = next_poly(m, tile, poly, smax, filter, start, end, tmax);
    if (!cur) edge_normal(verts, nv, smax, n3);
  }
  *t = hit_t;
  *count = n;
  if (normal) nm_vcopy(normal, n3);
  return st;
}
