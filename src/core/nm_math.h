/* nm_math.h -- 3-D vector and 2-D (X/Z plane) geometry in single precision.
 *
 * The formulas follow the usual Detour conventions so that results agree with
 * Detour to the last bit where the oracle data compares them: Y is up, "2D"
 * means the X/Z plane, and the signed area tri_area2d(a,b,c) is positive when
 * c lies to the right of a->b as seen from above (Detour's sign). Operation
 * order matters for bit-exact agreement; keep it when editing. */
#ifndef NM_MATH_H
#define NM_MATH_H

#include <math.h>
#include <float.h>

static inline void nm_vcopy(float *d, const float *a) { d[0] = a[0]; d[1] = a[1]; d[2] = a[2]; }
static inline void nm_vset(float *d, float x, float y, float z) { d[0] = x; d[1] = y; d[2] = z; }
static inline void nm_vsub(float *d, const float *a, const float *b) {
  d[0] = a[0] - b[0]; d[1] = a[1] - b[1]; d[2] = a[2] - b[2];
}
static inline void nm_vadd(float *d, const float *a, const float *b) {
  d[0] = a[0] + b[0]; d[1] = a[1] + b[1]; d[2] = a[2] + b[2];
}
/* d = a + b * s */
static inline void nm_vmad(float *d, const float *a, const float *b, float s) {
  d[0] = a[0] + b[0] * s; d[1] = a[1] + b[1] * s; d[2] = a[2] + b[2] * s;
}
/* d = a + (b - a) * t */
static inline void nm_vlerp(float *d, const float *a, const float *b, float t) {
  d[0] = a[0] + (b[0] - a[0]) * t;
  d[1] = a[1] + (b[1] - a[1]) * t;
  d[2] = a[2] + (b[2] - a[2]) * t;
}
static inline void nm_vmin(float *mn, const float *v) {
  if (v[0] < mn[0]) mn[0] = v[0];
  if (v[1] < mn[1]) mn[1] = v[1];
  if (v[2] < mn[2]) mn[2] = v[2];
}
static inline void nm_vmax(float *mx, const float *v) {
  if (v[0] > mx[0]) mx[0] = v[0];
  if (v[1] > mx[1]) mx[1] = v[1];
  if (v[2] > mx[2]) mx[2] = v[2];
}
static inline float nm_sqr(float a) { return a * a; }
static inline float nm_minf(float a, float b) { return a < b ? a : b; }
static inline float nm_maxf(float a, float b) { return a > b ? a : b; }
static inline float nm_clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
static inline float nm_vlen_sqr(const float *v) { return v[0] * v[0] + v[1] * v[1] + v[2] * v[2]; }
static inline float nm_vdist(const float *a, const float *b) {
  const float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
  return sqrtf(dx * dx + dy * dy + dz * dz);
}
static inline float nm_vdist_sqr(const float *a, const float *b) {
  const float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
  return dx * dx + dy * dy + dz * dz;
}
static inline float nm_vdist2d(const float *a, const float *b) {
  const float dx = b[0] - a[0], dz = b[2] - a[2];
  return sqrtf(dx * dx + dz * dz);
}
static inline float nm_vdist2d_sqr(const float *a, const float *b) {
  const float dx = b[0] - a[0], dz = b[2] - a[2];
  return dx * dx + dz * dz;
}
/* Points closer than 1/16384 wu are the same point. */
static inline int nm_vequal(const float *a, const float *b) {
  static const float thr = (1.0f / 16384.0f) * (1.0f / 16384.0f);
  return nm_vdist_sqr(a, b) < thr;
}
static inline int nm_isfinite3(const float *v) {
  return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}
/* Signed X/Z area of triangle abc (twice the area, Detour's sign). */
static inline float nm_tri_area2d(const float *a, const float *b, const float *c) {
  const float abx = b[0] - a[0], abz = b[2] - a[2];
  const float acx = c[0] - a[0], acz = c[2] - a[2];
  return acx * abz - abx * acz;
}
/* X/Z "perp dot" of u and v. */
static inline float nm_vperp2d(const float *u, const float *v) { return u[2] * v[0] - u[0] * v[2]; }

/* Squared X/Z distance from pt to segment pq; *t gets the parameter of the
 * closest point on the segment, in [0, 1] (never NaN; the distance may be
 * inf for a point near FLT_MAX). */
static inline float nm_dist_pt_seg_sqr2d(const float *pt, const float *p, const float *q, float *t) {
  const float pqx = q[0] - p[0], pqz = q[2] - p[2];
  float dx = pt[0] - p[0], dz = pt[2] - p[2];
  const float d = pqx * pqx + pqz * pqz;
  float tt = pqx * dx + pqz * dz;
  if (d > 0) tt /= d;
  if (!(tt >= 0)) tt = 0; /* also NaN, from inf - inf when pt is huge */
  else if (tt > 1) tt = 1;
  dx = p[0] + tt * pqx - pt[0];
  dz = p[2] + tt * pqz - pt[2];
  *t = tt;
  return dx * dx + dz * dz;
}

/* Even-odd test of pt against a polygon in X/Z. */
static inline int nm_point_in_polygon(const float *pt, const float *verts, int nverts) {
  int i, j, c = 0;
  for (i = 0, j = nverts - 1; i < nverts; j = i++) {
    const float *vi = &verts[i * 3], *vj = &verts[j * 3];
    if (((vi[2] > pt[2]) != (vj[2] > pt[2])) &&
        (pt[0] < (vj[0] - vi[0]) * (pt[2] - vi[2]) / (vj[2] - vi[2]) + vi[0]))
      c = !c;
  }
  return c;
}

/* Like nm_point_in_polygon, and also the squared distance to every edge
 * (ed[j], edge j -> j+1) and its segment parameter (et[j]). */
static inline int nm_dist_pt_poly_edges_sqr(const float *pt, const float *verts, int nverts,
                                            float *ed, float *et) {
  int i, j, c = 0;
  for (i = 0, j = nverts - 1; i < nverts; j = i++) {
    const float *vi = &verts[i * 3], *vj = &verts[j * 3];
    if (((vi[2] > pt[2]) != (vj[2] > pt[2])) &&
        (pt[0] < (vj[0] - vi[0]) * (pt[2] - vi[2]) / (vj[2] - vi[2]) + vi[0]))
      c = !c;
    ed[j] = nm_dist_pt_seg_sqr2d(pt, vj, vi, &et[j]);
  }
  return c;
}

/* Height of triangle abc at p's X/Z when p lies over it (barycentric test). */
static inline int nm_closest_height_on_tri(const float *p, const float *a, const float *b,
                                           const float *c, float *h) {
  const float eps = 1e-6f;
  float v0[3], v1[3], v2[3], denom, u, v;
  nm_vsub(v0, c, a);
  nm_vsub(v1, b, a);
  nm_vsub(v2, p, a);
  denom = v0[0] * v1[2] - v0[2] * v1[0];
  if (fabsf(denom) < eps) return 0;
  u = v1[2] * v2[0] - v1[0] * v2[2];
  v = v0[0] * v2[2] - v0[2] * v2[0];
  if (denom < 0) { denom = -denom; u = -u; v = -v; }
  if (u >= 0.0f && v >= 0.0f && (u + v) <= denom) {
    *h = a[1] + (v0[1] * u + v1[1] * v) / denom;
    return 1;
  }
  return 0;
}

/* Intersection of segments ap-aq and bp-bq in X/Z as parameters s (on a) and
 * t (on b) of the infinite lines; 0 when parallel. */
static inline int nm_intersect_seg_seg2d(const float *ap, const float *aq, const float *bp,
                                         const float *bq, float *s, float *t) {
  float u[3], v[3], w[3], d;
  nm_vsub(u, aq, ap);
  nm_vsub(v, bq, bp);
  nm_vsub(w, ap, bp);
  d = nm_vperp2d(u, v);
  if (fabsf(d) < 1e-6f) return 0;
  *s = nm_vperp2d(v, w) / d;
  *t = nm_vperp2d(u, w) / d;
  return 1;
}

static inline int nm_overlap_bounds(const float *amin, const float *amax, const float *bmin,
                                    const float *bmax) {
  return !(amin[0] > bmax[0] || amax[0] < bmin[0] || amin[1] > bmax[1] || amax[1] < bmin[1] ||
           amin[2] > bmax[2] || amax[2] < bmin[2]);
}

/* Squared distance from cell point (x, z) to the segment (px, pz)-(qx, qz),
 * in single precision as Recast's contour simplification measures it. */
static inline float nm_dist_pt_seg_cells(int x, int z, int px, int pz, int qx, int qz) {
  const float pqx = (float)(qx - px), pqz = (float)(qz - pz);
  float dx = (float)(x - px), dz = (float)(z - pz);
  const float d = pqx * pqx + pqz * pqz;
  float t = pqx * dx + pqz * dz;
  if (d > 0) t /= d;
  t = nm_clampf(t, 0.0f, 1.0f);
  dx = (float)px + t * pqx - (float)x;
  dz = (float)pz + t * pqz - (float)z;
  return dx * dx + dz * dz;
}

#endif
