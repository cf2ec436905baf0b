/* detail.c -- height detail for each polygon (Recast's detail mesh stage).
 *
 * Algorithm, per polygon: collect a height patch from the compact
 * heightfield under the polygon's bounds (spans of the polygon's region,
 * then a breadth-first flood from the region's border spans, or from the
 * span nearest the polygon's centre when the region gives nothing), so that
 * overlapping floors are not mixed up. Then sample heights along every edge
 * every sample_dist (edges are always sampled in the same lexical
 * direction so neighbouring polygons agree) and keep the samples that the
 * simplified edge misses by more than sample_max_error. The outline is
 * triangulated (shortest-perimeter strip), and interior grid samples are
 * added one at a time, worst error first, re-running an edge-based
 * Delaunay triangulation of the hull after each, until the error is within
 * bounds. Triangle edge flags mark the edges on the polygon outline.
 * Output vertices are in world units; each polygon's run starts with its
 * own vertices. */
#include "nm_polyutil.h"

#include <stdlib.h>

#define DT_MAX_VERTS 127
#define DT_MAX_TRIS 255
#define DT_MAX_EDGE_VERTS 32
#define DT_UNSET 0xffff
#define DT_UNDEF (-1)
#define DT_HULL (-2)
#define DT_MAP 128                 /* > DT_MAX_VERTS: side of the edge map */
#define DT_TRI_CAP (DT_MAX_VERTS * 20) /* triangle slots (faces of the worst edge table) */
#define DT_FLIPS (64 * DT_MAX_VERTS)   /* flip budget of one insertion */
#define DT_EPS 1e-5f                   /* least doubled area of a new triangle (Recast's) */

/* Scratch of one detail build: per-polygon bounds, the height patch and
 * its flood queue (sized for the largest polygon), the current polygon's
 * points, hull and triangles (Recast's limits: 127 vertices, 255
 * triangles), the triangulation helpers, and the growing output. */
typedef struct dt_work {
  const nm_alloc *a;
  const nm_chf *chf;
  const nm_polymesh *mesh;
  float sample_dist, max_error;
  int radius;                /* height search radius for unset cells [cells] */
  int *bounds;               /* per polygon: xmin, xmax, ymin, ymax [cells, no border] */
  uint16_t *hp;              /* height patch of the current polygon */
  int hp_cap, hx0, hy0, hw, hh;
  int *queue;                /* (x, y, span) triples for the flood */
  uint8_t *rborder;          /* [span_count] span touches another region */
  int queue_cap;
  float in[NM_MAX_VERTS_PER_POLY * 3]; /* polygon vertices, local units */
  int nin;
  float verts[DT_MAX_VERTS * 3];
  int nverts;
  int hull[DT_MAX_VERTS];
  int nhull;
  nm_ivec tris, edges, samples; /* 4 ints per triangle / edge / sample */
  int16_t *emap;             /* [DT_MAP * DT_MAP] edge lookup for the triangulation */
  float *spts;               /* per sample: jittered point (x, y, z) and cached error */
  int spts_cap;
  int *tadj;                 /* [DT_TRI_CAP * 3] neighbour triangle per edge, -1 hull */
  int *tmark, *touched;      /* [DT_TRI_CAP] change stamps and the changed triangles */
  int ntouched, stamp;
  int *stack;                /* [DT_FLIPS + 8] edges to check after an insertion */
  float *overts;             /* output, grown as needed */
  int noverts, ovcap;
  uint8_t *otris;
  int notris, otcap;
} dt_work;

/* ---- stage: height patch ---- */

/* Span across side dir of span i in column (x, y) (chf coordinates), or
 * -1 when that side is not connected. */
static inline int dt_neighbour(const nm_chf *chf, int x, int y, int i, int dir) {
  return nm_chf_link(chf, x + y * chf->width, i, dir);
}

/* Appends (x, y, span) to the flood queue (capacity: one per patch cell). */
static inline void dt_push(dt_work *w, int *n, int x, int y, int i) {
  w->queue[*n * 3] = x;
  w->queue[*n * 3 + 1] = y;
  w->queue[*n * 3 + 2] = i;
  (*n)++;
}

/* The span (poly coordinates, patch cell known) nearest in height to one
 * of the polygon's vertices, looking at each vertex's 3x3 cells. */
static int dt_nearest_span(const dt_work *w, const uint16_t *p, int npoly, int *sx, int *sy) {
  static const int off[9 * 2] = {0, 0, -1, -1, 0, -1, 1, -1, 1, 0, 1, 1, 0, 1, -1, 1, -1, 0};
  const nm_chf *chf = w->chf;
  const int bs = chf->border_size;
  int j, k, i, best = -1, dmin = DT_UNSET;
  for (j = 0; j < npoly && dmin > 0; j++)
    for (k = 0; k < 9 && dmin > 0; k++) {
      const uint16_t *v = &w->mesh->verts[p[j] * 3];
      const int ax = v[0] + off[k * 2], ay = v[1], az = v[2] + off[k * 2 + 1];
      const nm_ccell *c;
      if (ax < w->hx0 || ax >= w->hx0 + w->hw || az < w->hy0 || az >= w->hy0 + w->hh) continue;
      c = &chf->cells[(ax + bs) + (az + bs) * chf->width];
      for (i = (int)c->index; i < (int)(c->index + c->count) && dmin > 0; i++) {
        const int d = abs(ay - (int)chf->spans[i].y);
        if (d < dmin) { *sx = ax; *sy = az; best = i; dmin = d; }
      }
    }
  return best;
}

/* Seeds the flood with one span near the polygon's centre: a depth-first
 * walk from the span nearest a vertex towards the centre cell, preferring
 * the direct direction. The patch serves as the visited map meanwhile. */
static int dt_seed_center(dt_work *w, const uint16_t *p, int npoly) {
  const nm_chf *chf = w->chf;
  const int bs = chf->border_size;
  int dirs[4] = {0, 1, 2, 3}, j, n = 0, cx = 0, cy = 0, ci, pcx = 0, pcy = 0;
  ci = dt_nearest_span(w, p, npoly, &cx, &cy);
  if (ci < 0) return 0; /* no span under the polygon at all: heights stay unset */
  for (j = 0; j < npoly; j++) {
    pcx += w->mesh->verts[p[j] * 3];
    pcy += w->mesh->verts[p[j] * 3 + 2];
  }
  pcx /= npoly;
  pcy /= npoly;
  memset(w->hp, 0, sizeof(uint16_t) * (size_t)(w->hw * w->hh));
  dt_push(w, &n, cx, cy, ci);
  while (n > 0) {
    int direct, t, k;
    n--;
    cx = w->queue[n * 3]; cy = w->queue[n * 3 + 1]; ci = w->queue[n * 3 + 2];
    if (cx == pcx && cy == pcy) break;
    /* the step towards the centre (along x first) is pushed last so it is
     * tried first; the others stay on the stack in case it dead-ends */
    direct = cx == pcx ? (pcy > cy ? 1 : 3) : (pcx > cx ? 2 : 0);
    t = dirs[direct]; dirs[direct] = dirs[3]; dirs[3] = t;
    for (k = 0; k < 4; k++) {
      const int dir = dirs[k], nx = cx + nm_dir_dx(dir), ny = cy + nm_dir_dy(dir);
      const int hx = nx - w->hx0, hy = ny - w->hy0, ni = dt_neighbour(chf, cx + bs, cy + bs, ci, dir);
      if (ni < 0) continue;
      if (hx < 0 || hx >= w->hw || hy < 0 || hy >= w->hh || w->hp[hx + hy * w->hw] != 0) continue;
      w->hp[hx + hy * w->hw] = 1;
      dt_push(w, &n, nx, ny, ni);
    }
    t = dirs[direct]; dirs[direct] = dirs[3]; dirs[3] = t;
  }
  /* the last span reached seeds the flood; the patch becomes heights again */
  memset(w->hp, 0xff, sizeof(uint16_t) * (size_t)(w->hw * w->hh));
  w->hp[(cx - w->hx0) + (cy - w->hy0) * w->hw] = chf->spans[ci].y;
  n = 0;
  dt_push(w, &n, cx + bs, cy + bs, ci);
  return n;
}

/* Copies the heights of the polygon's region into the patch; region spans
 * with a neighbour outside the region seed the flood. */
static int dt_copy_region(dt_work *w, uint16_t region, int *empty) {
  const nm_chf *chf = w->chf;
  const int bs = chf->border_size;
  int hx, hy, i, n = 0;
  for (hy = 0; hy < w->hh; hy++) {
    const nm_ccell *row = &chf->cells[w->hx0 + bs + (w->hy0 + hy + bs) * chf->width];
    for (hx = 0; hx < w->hw; hx++) {
      const int end = (int)(row[hx].index + row[hx].count);
      for (i = (int)row[hx].index; i < end; i++) {
        if (chf->spans[i].reg != region) continue;
        w->hp[hx + hy * w->hw] = chf->spans[i].y;
        *empty = 0;
        if (w->rborder[i]) dt_push(w, &n, w->hx0 + hx + bs, w->hy0 + hy + bs, i);
        break;
      }
    }
  }
  return n;
}

/* Flags, once for the whole field, the spans with a connected neighbour in
 * another region (where the height flood of a polygon starts). */
static void dt_mark_region_borders(dt_work *w) {
  const nm_chf *chf = w->chf;
  const int ncells = chf->width * chf->height;
  int ci, i, dir;
  for (ci = 0; ci < ncells; ci++) {
    const int end = (int)(chf->cells[ci].index + chf->cells[ci].count);
    for (i = (int)chf->cells[ci].index; i < end; i++) {
      const uint16_t reg = chf->spans[i].reg;
      int border = 0;
      for (dir = 0; dir < 4 && !border; dir++) {
        const int ni = nm_chf_link(chf, ci, i, dir);
        border = ni >= 0 && chf->spans[ni].reg != reg;
      }
      w->rborder[i] = (uint8_t)border;
    }
  }
}

/* Fills the height patch of polygon pi: its region's heights, then a
 * breadth-first flood over connected spans for the cells still unset. */
static void dt_height_patch(dt_work *w, int pi) {
  const nm_chf *chf = w->chf;
  const int nvp = w->mesh->nvp, bs = chf->border_size;
  const uint16_t *p = &w->mesh->polys[pi * nvp * 2];
  const uint16_t region = w->mesh->regs[pi];
  int npoly = 0, n = 0, head = 0, empty = 1, dir;
  while (npoly < nvp && p[npoly] != NM_MESH_NULL_IDX) npoly++;
  w->hx0 = w->bounds[pi * 4];
  w->hw = w->bounds[pi * 4 + 1] - w->hx0;
  w->hy0 = w->bounds[pi * 4 + 2];
  w->hh = w->bounds[pi * 4 + 3] - w->hy0;
  if (w->hw <= 0 || w->hh <= 0) { w->hw = w->hh = 0; return; }
  memset(w->hp, 0xff, sizeof(uint16_t) * (size_t)(w->hw * w->hh));
  /* region 0: the polygon joins several regions (a removed border vertex),
   * whose spans may lie on other floors; start from its centre instead */
  if (region != 0) n = dt_copy_region(w, region, &empty);
  if (empty) n = dt_seed_center(w, p, npoly);
  /* breadth first, so unset cells take the height of the nearest floor
   * connected to the polygon's own spans (never a floor above or below) */
  while (head < n) {
    const int cx = w->queue[head * 3], cy = w->queue[head * 3 + 1], ci = w->queue[head * 3 + 2];
    head++;
    for (dir = 0; dir < 4; dir++) {
      const int ax = cx + nm_dir_dx(dir), ay = cy + nm_dir_dy(dir);
      const int hx = ax - w->hx0 - bs, hy = ay - w->hy0 - bs;
      int ai;
      if ((unsigned)hx >= (unsigned)w->hw || (unsigned)hy >= (unsigned)w->hh) continue;
      if (w->hp[hx + hy * w->hw] != DT_UNSET) continue;
      if ((ai = dt_neighbour(chf, cx, cy, ci, dir)) < 0) continue;
      w->hp[hx + hy * w->hw] = chf->spans[ai].y;
      dt_push(w, &n, ax, ay, ai);
    }
  }
}

/* Height (cells) of the patch at local point (fx, fz); an unset cell takes
 * the nearest-in-height set cell of the first ring (spiralling outwards up
 * to the search radius) that has any. */
static int dt_get_height(const dt_work *w, float fx, float fy, float fz) {
  const float ics = 1.0f / w->chf->cs, ch = w->chf->ch;
  int ix = (int)floorf(fx * ics + 0.01f), iz = (int)floorf(fz * ics + 0.01f);
  int h, x = 1, z = 0, dx = 1, dz = 0, i, ring_end = 8, ring_len = 16;
  const int size = w->radius * 2 + 1, maxiter = size * size - 1;
  float dmin = FLT_MAX;
  ix = ix - w->hx0 < 0 ? 0 : (ix - w->hx0 > w->hw - 1 ? w->hw - 1 : ix - w->hx0);
  iz = iz - w->hy0 < 0 ? 0 : (iz - w->hy0 > w->hh - 1 ? w->hh - 1 : iz - w->hy0);
  h = w->hp[ix + iz * w->hw];
  if (h != DT_UNSET) return h;
  /* Spiral (1,0), (1,1), (0,1), (-1,1) ... around the cell; a ring ends
   * after 8, 16, 24 ... steps, and the search stops at the end of the first
   * ring that found a height (closest to fy wins within the ring). */
  for (i = 0; i < maxiter; i++) {
    const int nx = ix + x, nz = iz + z;
    if (nx >= 0 && nz >= 0 && nx < w->hw && nz < w->hh && w->hp[nx + nz * w->hw] != DT_UNSET) {
      const int nh = w->hp[nx + nz * w->hw];
      const float d = fabsf((float)nh * ch - fy);
      if (d < dmin) { h = nh; dmin = d; }
    }
    if (i + 1 == ring_end) {
      if (h != DT_UNSET) break;
      ring_end += ring_len;
      ring_len += 8;
    }
    if (x == z || (x < 0 && x == -z) || (x > 0 && x == 1 - z)) {
      const int t = dx;
      dx = -dz;
      dz = t;
    }
    x += dx;
    z += dz;
  }
  return h;
}

/* ---- stage: geometry helpers (X/Z unless said otherwise) ---- */

/* X/Z dot product, and the X/Z cross of p1->p2 and p1->p3 (> 0: p3 left). */
static inline float dt_dot2(const float *a, const float *b) { return a[0] * b[0] + a[2] * b[2]; }
static inline float dt_cross2(const float *p1, const float *p2, const float *p3) {
  const float u1 = p2[0] - p1[0], v1 = p2[2] - p1[2], u2 = p3[0] - p1[0], v2 = p3[2] - p1[2];
  return u1 * v2 - v1 * u2;
}
/* Squared X/Z distance from pt to segment pq. */
static inline float dt_dist_seg2(const float *pt, const float *p, const float *q) {
  float t;
  return nm_dist_pt_seg_sqr2d(pt, p, q, &t);
}

/* Squared 3-D distance from pt to segment pq. */
static float dt_dist_seg3(const float *pt, const float *p, const float *q) {
  const float pqx = q[0] - p[0], pqy = q[1] - p[1], pqz = q[2] - p[2];
  float dx = pt[0] - p[0], dy = pt[1] - p[1], dz = pt[2] - p[2];
  const float d = pqx * pqx + pqy * pqy + pqz * pqz;
  float t = pqx * dx + pqy * dy + pqz * dz;
  if (d > 0) t /= d;
  t = nm_clampf(t, 0.0f, 1.0f);
  dx = p[0] + t * pqx - pt[0];
  dy = p[1] + t * pqy - pt[1];
  dz = p[2] + t * pqz - pt[2];
  return dx * dx + dy * dy + dz * dz;
}

/* Squared distance to the nearest edge, negative inside the polygon (the
 * caller compares it with -sample_dist / 2 as Recast does, squared against
 * unsquared, which keeps grid samples a little farther from the edges). */
static float dt_dist_poly(const float *verts, int n, const float *p) {
  float dmin = FLT_MAX;
  int i, j, inside = 0;
  for (i = 0, j = n - 1; i < n; j = i++) {
    const float *vi = &verts[i * 3], *vj = &verts[j * 3];
    if (((vi[2] > p[2]) != (vj[2] > p[2])) && (p[0] < (vj[0] - vi[0]) * (p[2] - vi[2]) / (vj[2] - vi[2]) + vi[0]))
      inside = !inside;
    dmin = nm_minf(dmin, dt_dist_seg2(p, vj, vi));
  }
  return inside ? -dmin : dmin;
}

/* Vertical distance from p to triangle abc when p is over it, else FLT_MAX. */
static float dt_dist_tri(const float *p, const float *a, const float *b, const float *c) {
  float v0[3], v1[3], v2[3], d00, d01, d02, d11, d12, inv, u, v;
  nm_vsub(v0, c, a);
  nm_vsub(v1, b, a);
  nm_vsub(v2, p, a);
  /* barycentric (u, v) along ac and ab; 1e-4 of slack keeps points on an
   * edge inside both triangles */
  d00 = dt_dot2(v0, v0); d01 = dt_dot2(v0, v1); d02 = dt_dot2(v0, v2);
  d11 = dt_dot2(v1, v1); d12 = dt_dot2(v1, v2);
  inv = 1.0f / (d00 * d11 - d01 * d01);
  u = (d11 * d02 - d01 * d12) * inv;
  v = (d00 * d12 - d01 * d02) * inv;
  if (u >= -1e-4f && v >= -1e-4f && (u + v) <= 1 + 1e-4f) return fabsf(a[1] + v0[1] * u + v1[1] * v - p[1]);
  return FLT_MAX;
}

/* Vertical distance from p to the current triangulation, -1 when p is
 * over none of its triangles. */
static float dt_dist_mesh(const dt_work *w, const float *p) {
  float dmin = FLT_MAX;
  int i;
  for (i = 0; i < w->tris.n; i += 4) {
    const int *t = &w->tris.v[i];
    const float d = dt_dist_tri(p, &w->verts[t[0] * 3], &w->verts[t[1] * 3], &w->verts[t[2] * 3]);
    if (d < dmin) dmin = d;
  }
  return dmin == FLT_MAX ? -1.0f : dmin;
}

/* The smallest of the polygon's widths: for each edge, the farthest vertex
 * from it. Slivers get no interior samples. */
static float dt_min_extent(const float *verts, int n) {
  float mind = FLT_MAX;
  int i, j;
  for (i = 0; i < n; i++) {
    const int ni = (i + 1) % n;
    float maxd = 0;
    for (j = 0; j < n; j++)
      if (j != i && j != ni) maxd = nm_maxf(maxd, dt_dist_seg2(&verts[j * 3], &verts[i * 3], &verts[ni * 3]));
    mind = nm_minf(mind, maxd);
  }
  return sqrtf(mind);
}

/* ---- stage: outline ---- */

/* Samples edge vj -> vi every sample_dist, keeps the samples that stick out
 * of the simplified edge by more than max_error, and appends them to verts
 * and hull in the edge's walking order. */
static void dt_tess_edge(dt_work *w, int j, int i) {
  const float *vj = &w->in[j * 3], *vi = &w->in[i * 3];
  float edge[(DT_MAX_EDGE_VERTS + 1) * 3], dx, dy, dz;
  int idx[DT_MAX_EDGE_VERTS + 1], nidx = 2, nn, k, m, swapped = 0;
  if (fabsf(vj[0] - vi[0]) < 1e-6f ? vj[2] > vi[2] : vj[0] > vi[0]) {
    const float *t = vj;
    vj = vi; vi = t;
    swapped = 1;
  }
  dx = vi[0] - vj[0]; dy = vi[1] - vj[1]; dz = vi[2] - vj[2];
  /* nn segments, limited by the per-edge and per-polygon vertex budgets */
  nn = 1 + (int)floorf(sqrtf(dx * dx + dz * dz) / w->sample_dist);
  if (nn >= DT_MAX_EDGE_VERTS) nn = DT_MAX_EDGE_VERTS - 1;
  if (w->nverts + nn >= DT_MAX_VERTS) nn = DT_MAX_VERTS - 1 - w->nverts;
  if (nn < 1) nn = 1;
  for (k = 0; k <= nn; k++) {
    const float u = (float)k / (float)nn;
    float *pos = &edge[k * 3];
    pos[0] = vj[0] + dx * u;
    pos[1] = vj[1] + dy * u;
    pos[2] = vj[2] + dz * u;
    pos[1] = (float)dt_get_height(w, pos[0], pos[1], pos[2]) * w->chf->ch;
  }
  /* keep the end points, then split at the worst sample (3-D distance to
   * the kept segment) until all are within max_error */
  idx[0] = 0;
  idx[1] = nn;
  for (k = 0; k < nidx - 1;) {
    const int a = idx[k], b = idx[k + 1];
    float maxd = 0;
    int maxi = -1;
    for (m = a + 1; m < b; m++) {
      const float d = dt_dist_seg3(&edge[m * 3], &edge[a * 3], &edge[b * 3]);
      if (d > maxd) { maxd = d; maxi = m; }
    }
    if (maxi != -1 && maxd > w->max_error * w->max_error) {
      for (m = nidx; m > k; m--) idx[m] = idx[m - 1];
      idx[k + 1] = maxi;
      nidx++;
    } else {
      k++;
    }
  }
  /* the hull runs j -> i: reverse the samples of a swapped edge */
  w->hull[w->nhull++] = j;
  for (k = 1; k < nidx - 1; k++) {
    nm_vcopy(&w->verts[w->nverts * 3], &edge[idx[swapped ? nidx - 1 - k : k] * 3]);
    w->hull[w->nhull++] = w->nverts++;
  }
}

/* Triangulates the hull as a strip: start at the original-vertex ear with
 * the smallest perimeter, then advance on the side whose new triangle has
 * the shorter new edges. Fills w->tris (flags 0). */
static void dt_triangulate_hull(dt_work *w) {
  const int nh = w->nhull, *hull = w->hull;
  const float *v = w->verts;
  int i, start = 0, left = 1, right = nh - 1;
  float dmin = FLT_MAX;
  w->tris.n = 0;
  for (i = 0; i < nh; i++) { /* only corners of the polygon make real ears */
    const int pi = i > 0 ? i - 1 : nh - 1, ni = i + 1 < nh ? i + 1 : 0;
    const float *pv = &v[hull[pi] * 3], *cv = &v[hull[i] * 3], *nv = &v[hull[ni] * 3];
    float d;
    if (hull[i] >= w->nin) continue;
    d = nm_vdist2d(pv, cv) + nm_vdist2d(cv, nv) + nm_vdist2d(nv, pv);
    if (d < dmin) { start = i; left = ni; right = pi; dmin = d; }
  }
  w->tris.v[w->tris.n++] = hull[start];
  w->tris.v[w->tris.n++] = hull[left];
  w->tris.v[w->tris.n++] = hull[right];
  w->tris.v[w->tris.n++] = 0;
  while ((left + 1) % nh != right) {
    const int nleft = (left + 1) % nh, nright = right > 0 ? right - 1 : nh - 1;
    const float *cl = &v[hull[left] * 3], *nl = &v[hull[nleft] * 3];
    const float *cr = &v[hull[right] * 3], *nr = &v[hull[nright] * 3];
    const float dleft = nm_vdist2d(cl, nl) + nm_vdist2d(nl, cr);
    const float dright = nm_vdist2d(cr, nr) + nm_vdist2d(cl, nr);
    int *t = &w->tris.v[w->tris.n];
    t[0] = hull[left];
    t[2] = hull[right];
    t[3] = 0;
    if (dleft < dright) { t[1] = hull[nleft]; left = nleft; }
    else { t[1] = hull[nright]; right = nright; }
    w->tris.n += 4;
  }
}

/* ---- stage: Delaunay triangulation of hull and samples ---- */

/* Edge records: (s, t, left face, right face); faces DT_UNDEF or DT_HULL.
 * emap[s * DT_MAP + t] holds the record index + 1 of edge s-t (both ways). */
static inline int dt_find_edge(const dt_work *w, int s, int t) { return w->emap[s * DT_MAP + t] - 1; }

/* Adds edge s-t unless it exists or the (preallocated) table is full. */
static void dt_add_edge(dt_work *w, int maxe, int s, int t, int l, int r) {
  nm_ivec *e = &w->edges;
  int *d;
  if (e->n / 4 >= maxe || dt_find_edge(w, s, t) != DT_UNDEF) return;
  d = &e->v[e->n];
  d[0] = s; d[1] = t; d[2] = l; d[3] = r;
  e->n += 4;
  w->emap[s * DT_MAP + t] = w->emap[t * DT_MAP + s] = (int16_t)(e->n / 4);
}

/* Sets face f on the side of edge e that lies left of s->t, if unset. */
static void dt_update_left(int *e, int s, int t, int f) {
  if (e[0] == s && e[1] == t && e[2] == DT_UNDEF) e[2] = f;
  else if (e[1] == s && e[0] == t && e[3] == DT_UNDEF) e[3] = f;
}

/* Centre and radius of the circle through p1, p2, p3 (X/Z; computed
 * relative to p1 for precision); radius 0 when they are collinear. */
static float dt_circle(const float *p1, const float *p2, const float *p3, float *c) {
  const float v1[3] = {0, 0, 0};
  float v2[3], v3[3], cp;
  nm_vsub(v2, p2, p1);
  nm_vsub(v3, p3, p1);
  cp = dt_cross2(v1, v2, v3);
  if (fabsf(cp) > 1e-6f) {
    const float v2sq = dt_dot2(v2, v2), v3sq = dt_dot2(v3, v3);
    c[0] = (v2sq * (v3[2] - v1[2]) + v3sq * (v1[2] - v2[2])) / (2 * cp);
    c[1] = 0;
    c[2] = (v2sq * (v1[0] - v3[0]) + v3sq * (v2[0] - v1[0])) / (2 * cp);
    {
      const float r = nm_vdist2d(c, v1);
      nm_vadd(c, c, p1);
      return r;
    }
  }
  nm_vcopy(c, p1);
  return 0;
}

/* Segment s1-t1 properly crosses an existing edge not sharing a vertex. */
static int dt_overlaps(const dt_work *w, int s1, int t1) {
  const float *v = w->verts;
  int i;
  for (i = 0; i < w->edges.n; i += 4) {
    const int s0 = w->edges.v[i], t0 = w->edges.v[i + 1];
    float a1, a2;
    if (s0 == s1 || s0 == t1 || t0 == s1 || t0 == t1) continue;
    a1 = dt_cross2(&v[s0 * 3], &v[t0 * 3], &v[t1 * 3]);
    a2 = dt_cross2(&v[s0 * 3], &v[t0 * 3], &v[s1 * 3]);
    if (a1 * a2 < 0.0f) {
      const float a3 = dt_cross2(&v[s1 * 3], &v[t1 * 3], &v[s0 * 3]);
      if (a3 * (a3 + a2 - a1) < 0.0f) return 1;
    }
  }
  return 0;
}

/* The point left of s->t whose circumcircle with s and t holds no other
 * point (npts when there is none). Near-cocircular candidates are taken
 * only when their new edges cross nothing. */
static int dt_best_point(const dt_work *w, int s, int t) {
  const float *v = w->verts;
  float c[3] = {0, 0, 0}, r = -1;
  int u, pt = w->nverts;
  for (u = 0; u < w->nverts; u++) {
    float d;
    if (u == s || u == t || !(dt_cross2(&v[s * 3], &v[t * 3], &v[u * 3]) > DT_EPS)) continue;
    if (r < 0) {
      pt = u;
      r = dt_circle(&v[s * 3], &v[t * 3], &v[u * 3], c);
      continue;
    }
    /* outside the circle (0.1% tolerance): keep; well inside: take u;
     * on the circle: take u only if its edges cross nothing (a cocircular
     * point must not produce overlapping triangles) */
    d = nm_vdist2d(c, &v[u * 3]);
    if (d > r * (1 + 0.001f)) continue;
    if (!(d < r * (1 - 0.001f)) && (dt_overlaps(w, s, u) || dt_overlaps(w, t, u))) continue;
    pt = u;
    r = dt_circle(&v[s * 3], &v[t * 3], &v[u * 3], c);
  }
  return pt;
}

/* Completes the face on the open side of edge ei: a new triangle with the
 * best point, or the hull when there is none. */
static void dt_complete_facet(dt_work *w, int ei, int *nfaces, int maxe) {
  int *e = &w->edges.v[ei * 4];
  int s, t, pt, k;
  if (e[2] == DT_UNDEF) { s = e[0]; t = e[1]; }
  else if (e[3] == DT_UNDEF) { s = e[1]; t = e[0]; }
  else return;
  pt = dt_best_point(w, s, t);
  if (pt >= w->nverts) { /* nothing on that side: the edge is on the hull */
    dt_update_left(e, s, t, DT_HULL);
    return;
  }
  /* new face (s, t, pt): its other two edges are added or told about it */
  dt_update_left(e, s, t, *nfaces);
  k = dt_find_edge(w, pt, s);
  if (k == DT_UNDEF) dt_add_edge(w, maxe, pt, s, *nfaces, DT_UNDEF);
  else dt_update_left(&w->edges.v[k * 4], pt, s, *nfaces);
  k = dt_find_edge(w, t, pt);
  if (k == DT_UNDEF) dt_add_edge(w, maxe, t, pt, *nfaces, DT_UNDEF);
  else dt_update_left(&w->edges.v[k * 4], t, pt, *nfaces);
  (*nfaces)++;
}

/* Turns the edge table into triangles and drops faces left incomplete. */
static void dt_faces_to_tris(dt_work *w, int nfaces) {
  int i, *tr = w->tris.v;
  /* Each edge knows the faces on its two sides; the first edge seen of a
   * face gives two corners in the face's winding, a later edge that starts
   * or ends at one of them gives the third. */
  for (i = 0; i < nfaces * 4; i++) tr[i] = -1;
  for (i = 0; i < w->edges.n; i += 4) {
    const int *e = &w->edges.v[i];
    if (e[3] >= 0) {
      int *t = &tr[e[3] * 4];
      if (t[0] == -1) { t[0] = e[0]; t[1] = e[1]; }
      else if (t[0] == e[1]) t[2] = e[0];
      else if (t[1] == e[0]) t[2] = e[1];
    }
    if (e[2] >= 0) {
      int *t = &tr[e[2] * 4];
      if (t[0] == -1) { t[0] = e[1]; t[1] = e[0]; }
      else if (t[0] == e[0]) t[2] = e[1];
      else if (t[1] == e[1]) t[2] = e[0];
    }
  }
  w->tris.n = nfaces * 4;
  /* a face left without a third corner (a failed facet) is dropped */
  for (i = 0; i < w->tris.n; i += 4) {
    int *t = &tr[i];
    if (t[0] != -1 && t[1] != -1 && t[2] != -1) {
      t[3] = 0;
      continue;
    }
    memcpy(t, &tr[w->tris.n - 4], sizeof(int) * 4);
    w->tris.n -= 4;
    i -= 4;
  }
}

/* Delaunay triangulation of all current vertices inside the hull, grown
 * face by face from the hull edges. */
static void dt_delaunay(dt_work *w) {
  const int maxe = w->nverts * 10;
  int i, j, cur, nfaces = 0;
  w->edges.n = 0;
  /* hull edges have the outside on their left; each open side of an edge
   * gets the triangle with the best point, which adds up to two new edges
   * to complete later */
  for (i = 0, j = w->nhull - 1; i < w->nhull; j = i++)
    dt_add_edge(w, maxe, w->hull[j], w->hull[i], DT_HULL, DT_UNDEF);
  for (cur = 0; cur < w->edges.n / 4; cur++) {
    if (w->edges.v[cur * 4 + 2] == DT_UNDEF) dt_complete_facet(w, cur, &nfaces, maxe);
    if (w->edges.v[cur * 4 + 3] == DT_UNDEF) dt_complete_facet(w, cur, &nfaces, maxe);
  }
  dt_faces_to_tris(w, nfaces);
  /* leave the edge map empty for the next triangulation */
  for (i = 0; i < w->edges.n; i += 4)
    w->emap[w->edges.v[i] * DT_MAP + w->edges.v[i + 1]] = w->emap[w->edges.v[i + 1] * DT_MAP + w->edges.v[i]] = 0;
}

/* Grows an output array to hold need elements of size esz. */
static nm_status dt_grow(const nm_alloc *a, void **p, int *cap, int need, size_t esz) {
  int ncap;
  void *np;
  if (need <= *cap) return NM_OK;
  ncap = nm_maxi(need, *cap + *cap / 2 + 256);
  np = nm_realloc(a, *p, esz * (size_t)*cap, esz * (size_t)ncap);
  if (!np) return NM_ERR_NOMEM;
  *p = np;
  *cap = ncap;
  return NM_OK;
}

/* ---- stage: interior samples ---- */

/* Recast's fixed jitter in [-1, 1] of sample i: breaks up the grid's
 * cocircular points (it moves samples by up to 0.1 cell). */
static float dt_jitter(int i, uint32_t k) { return ((float)(((uint32_t)i * k) & 0xffff) / 65535.0f * 2.0f) - 1.0f; }

/* Grid points every sample_dist inside the polygon (away from its edges),
 * with their patch height: (x, y, z, state) in grid / cell units, and the
 * jittered point each is measured at. State bit 1: added, bit 2: its
 * cached error is stale. */
static nm_status dt_grid_samples(dt_work *w, const float *bmin, const float *bmax) {
  const float sd = w->sample_dist;
  const int x0 = (int)floorf(bmin[0] / sd), x1 = (int)ceilf(bmax[0] / sd);
  const int z0 = (int)floorf(bmin[2] / sd), z1 = (int)ceilf(bmax[2] / sd);
  int x, z, i;
  w->samples.n = 0;
  for (z = z0; z < z1; z++)
    for (x = x0; x < x1; x++) {
      float pt[3];
      pt[0] = (float)x * sd;
      pt[1] = (bmax[1] + bmin[1]) * 0.5f;
      pt[2] = (float)z * sd;
      if (dt_dist_poly(w->in, w->nin, pt) > -sd / 2) continue;
      if (nm_ivec_push4(w->a, &w->samples, x, dt_get_height(w, pt[0], pt[1], pt[2]), z, 2) != NM_OK)
        return NM_ERR_NOMEM;
    }
  /* the measuring points are fixed per sample: compute them once */
  if (dt_grow(w->a, (void **)&w->spts, &w->spts_cap, w->samples.n, sizeof(float)) != NM_OK) return NM_ERR_NOMEM;
  for (i = 0; i < w->samples.n / 4; i++) {
    const int *sm = &w->samples.v[i * 4];
    float *p = &w->spts[i * 4];
    p[0] = (float)sm[0] * sd + dt_jitter(i, 0x8da6b343u) * w->chf->cs * 0.1f;
    p[1] = (float)sm[1] * w->chf->ch;
    p[2] = (float)sm[2] * sd + dt_jitter(i, 0xd8163841u) * w->chf->cs * 0.1f;
    p[3] = -1;
  }
  return NM_OK;
}

/* After an insertion: measures the samples lying over changed triangle t
 * against it. Every sample in the changed area lies over some changed
 * triangle, and its error becomes the least such distance; samples outside
 * it keep their triangles and errors. The sample state's bits from 2 up
 * hold the insertion stamp of its last re-measure. */
static void dt_remeasure(dt_work *w, const int *t, float m) {
  const float *a = &w->verts[t[0] * 3], *b = &w->verts[t[1] * 3], *c = &w->verts[t[2] * 3];
  const float x0 = nm_minf(a[0], nm_minf(b[0], c[0])) - m, x1 = nm_maxf(a[0], nm_maxf(b[0], c[0])) + m;
  const float z0 = nm_minf(a[2], nm_minf(b[2], c[2])) - m, z1 = nm_maxf(a[2], nm_maxf(b[2], c[2])) + m;
  int i;
  for (i = 0; i < w->samples.n / 4; i++) {
    int *st = &w->samples.v[i * 4 + 3];
    float *p = &w->spts[i * 4], d;
    if ((*st & 1) || p[0] < x0 || p[0] > x1 || p[2] < z0 || p[2] > z1) continue;
    d = dt_dist_tri(p, a, b, c);
    if (d == FLT_MAX) continue;
    if ((*st >> 2) != w->stamp) {
      *st = w->stamp << 2;
      p[3] = d;
    } else if (d < p[3]) {
      p[3] = d;
    }
  }
}

/* Every sample's error must be measured again (new triangulation). */
static void dt_stale_all(dt_work *w) {
  int i;
  for (i = 0; i < w->samples.n / 4; i++) w->samples.v[i * 4 + 3] |= 2;
}

/* ---- stage: incremental insertion (Lawson flips) ---- */

/* Neighbour slots: adj[t * 3 + k] is the triangle across edge k (vertex k
 * to k+1) of triangle t, or -1 on the hull. Built from the current
 * triangles; returns 0 when they do not form one complete triangulation of
 * the hull and its interior points (then insertion is not used). */
static int dt_build_adjacency(dt_work *w) {
  const int nt = w->tris.n / 4, ni = w->nverts - w->nhull;
  /* Euler: h hull and i interior points make 2i + h - 2 triangles; the
   * directed-edge map must see each directed edge once */
  int t, k, ok = nt == 2 * ni + w->nhull - 2;
  for (t = 0; t < nt && ok; t++)
    for (k = 0; k < 3; k++) {
      const int a = w->tris.v[t * 4 + k], b = w->tris.v[t * 4 + (k + 1) % 3];
      if (w->emap[a * DT_MAP + b]) ok = 0;
      w->emap[a * DT_MAP + b] = (int16_t)(t * 3 + k + 1);
    }
  for (t = 0; t < nt && ok; t++)
    for (k = 0; k < 3; k++) {
      const int a = w->tris.v[t * 4 + k], b = w->tris.v[t * 4 + (k + 1) % 3];
      w->tadj[t * 3 + k] = w->emap[b * DT_MAP + a] ? (w->emap[b * DT_MAP + a] - 1) / 3 : -1;
    }
  for (t = 0; t < nt; t++)
    for (k = 0; k < 3; k++) w->emap[w->tris.v[t * 4 + k] * DT_MAP + w->tris.v[t * 4 + (k + 1) % 3]] = 0;
  return ok;
}

/* X/Z orientation of vertices a, b, c (twice the signed area). */
static inline float dt_orient(const dt_work *w, int a, int b, int c) {
  return dt_cross2(&w->verts[a * 3], &w->verts[b * 3], &w->verts[c * 3]);
}

/* Sets triangle t to (a, b, p) with neighbours across ab, bp, pa, and notes
 * it as changed. */
static void dt_tri_set(dt_work *w, int t, int a, int b, int p, int nab, int nbp, int npa) {
  int *v = &w->tris.v[t * 4];
  v[0] = a; v[1] = b; v[2] = p; v[3] = 0;
  w->tadj[t * 3] = nab;
  w->tadj[t * 3 + 1] = nbp;
  w->tadj[t * 3 + 2] = npa;
  if (w->tmark[t] != w->stamp) {
    w->tmark[t] = w->stamp;
    w->touched[w->ntouched++] = t;
  }
}

/* In triangle t (if any) the neighbour pointer from -> to. */
static void dt_adj_swap(dt_work *w, int t, int from, int to) {
  int k;
  if (t < 0) return;
  for (k = 0; k < 3; k++)
    if (w->tadj[t * 3 + k] == from) w->tadj[t * 3 + k] = to;
}

/* Vertex slot of v in triangle t (0..2). */
static int dt_slot(const dt_work *w, int t, int v) {
  return w->tris.v[t * 4] == v ? 0 : (w->tris.v[t * 4 + 1] == v ? 1 : 2);
}

/* Restores the Delaunay condition around the new point: for each queued
 * triangle (a, b, p), flips edge ab when the vertex across it lies inside
 * the circumcircle of a, b, p by more than Recast's 0.1% tolerance. */
static void dt_legalize(dt_work *w, int n) {
  int *stack = w->stack, guard = DT_FLIPS;
  while (n > 0 && guard-- > 0) {
    const int t = stack[--n];
    const int a = w->tris.v[t * 4], b = w->tris.v[t * 4 + 1], p = w->tris.v[t * 4 + 2];
    const int nb = w->tadj[t * 3], nbp = w->tadj[t * 3 + 1], npa = w->tadj[t * 3 + 2];
    float c[3], r, o;
    int k, d, nad, ndb;
    if (nb < 0) continue; /* hull edges stay */
    k = dt_slot(w, nb, a); /* nb = (b, a, d) rotated: a at k, d at k+1, b at k+2 */
    d = w->tris.v[nb * 4 + (k + 1) % 3];
    nad = w->tadj[nb * 3 + k];
    ndb = w->tadj[nb * 3 + (k + 1) % 3];
    r = dt_circle(&w->verts[a * 3], &w->verts[b * 3], &w->verts[p * 3], c);
    if (!(nm_vdist2d(c, &w->verts[d * 3]) < r * (1 - 0.001f))) continue;
    /* flip only into two proper triangles (no slivers under Recast's EPS) */
    o = dt_orient(w, a, b, p) > 0 ? 1.0f : -1.0f;
    if (!(dt_orient(w, a, d, p) * o > DT_EPS) || !(dt_orient(w, d, b, p) * o > DT_EPS)) continue;
    /* ab becomes dp: (a, d, p) and (d, b, p), both with p last again */
    dt_tri_set(w, t, a, d, p, nad, nb, npa);
    dt_tri_set(w, nb, d, b, p, ndb, nbp, t);
    dt_adj_swap(w, nad, nb, t);
    dt_adj_swap(w, nbp, t, nb);
    stack[n++] = t;
    stack[n++] = nb;
  }
}

/* Finds the triangle holding point v (*edge: -1 inside, or the edge slot
 * it lies on or next to, so that no new triangle becomes a sliver); -1
 * when none does. */
static int dt_locate(const dt_work *w, int v, int *edge) {
  int t, k;
  for (t = 0; t < w->tris.n / 4; t++) { /* a linear scan: a polygon has < 255 triangles */
    const int *tv = &w->tris.v[t * 4];
    const float o = dt_orient(w, tv[0], tv[1], tv[2]);
    int on = -1, in = 1;
    for (k = 0; k < 3 && in; k++) {
      const int a = tv[k], b = tv[(k + 1) % 3];
      const float e = dt_orient(w, a, b, v) * (o > 0 ? 1.0f : -1.0f);
      if (e > DT_EPS) continue;
      if (e >= -DT_EPS && on < 0) on = k;
      else in = 0;
    }
    if (in) {
      *edge = on;
      return t;
    }
  }
  return -1;
}

/* Splits the triangle pair across edge ab of t (a, b, c) at v, which lies
 * on that edge: (b, c, v) and (c, a, v) here, (a, d, v) and (d, b, v) in
 * the neighbour nab. New triangles take slots t1, t2. */
static void dt_split_edge(dt_work *w, int t, int t1, int t2, int edge, int v) {
  const int *tv = &w->tris.v[t * 4];
  const int a = tv[edge], b = tv[(edge + 1) % 3], c = tv[(edge + 2) % 3];
  const int nab = w->tadj[t * 3 + edge], nbc = w->tadj[t * 3 + (edge + 1) % 3], nca = w->tadj[t * 3 + (edge + 2) % 3];
  const int k = dt_slot(w, nab, a), d = w->tris.v[nab * 4 + (k + 1) % 3];
  const int nad = w->tadj[nab * 3 + k], ndb = w->tadj[nab * 3 + (k + 1) % 3];
  dt_tri_set(w, t, b, c, v, nbc, t1, t2);
  dt_tri_set(w, t1, c, a, v, nca, nab, t);
  dt_tri_set(w, nab, a, d, v, nad, t2, t1);
  dt_tri_set(w, t2, d, b, v, ndb, t, nab);
  dt_adj_swap(w, nca, t, t1);
  dt_adj_swap(w, ndb, nab, t2);
  w->stack[0] = t; w->stack[1] = t1; w->stack[2] = nab; w->stack[3] = t2;
}

/* Splits triangle t (a, b, c) at interior point v into (a, b, v) here and
 * (b, c, v), (c, a, v) in slots t1, t2. */
static void dt_split_tri(dt_work *w, int t, int t1, int t2, int v) {
  const int *tv = &w->tris.v[t * 4];
  const int a = tv[0], b = tv[1], c = tv[2];
  const int nab = w->tadj[t * 3], nbc = w->tadj[t * 3 + 1], nca = w->tadj[t * 3 + 2];
  dt_tri_set(w, t, a, b, v, nab, t1, t2);
  dt_tri_set(w, t1, b, c, v, nbc, t2, t);
  dt_tri_set(w, t2, c, a, v, nca, t, t1);
  dt_adj_swap(w, nbc, t, t1);
  dt_adj_swap(w, nca, t, t2);
  w->stack[0] = t; w->stack[1] = t1; w->stack[2] = t2;
}

/* Inserts vertex v into the triangulation and flips back to Delaunay;
 * samples over changed triangles become stale. Returns 0 (changing
 * nothing) when v lies in no triangle, on a hull edge or on a vertex. */
static int dt_insert(dt_work *w, int v, float margin) {
  int edge, i;
  const int t = dt_locate(w, v, &edge), t1 = w->tris.n / 4, t2 = t1 + 1;
  if (t < 0 || (edge >= 0 && w->tadj[t * 3 + edge] < 0) || t2 >= DT_TRI_CAP) return 0;
  w->stamp++; /* a new set of changed triangles */
  w->ntouched = 0;
  w->tris.n += 8;
  if (edge >= 0) dt_split_edge(w, t, t1, t2, edge, v);
  else dt_split_tri(w, t, t1, t2, v);
  dt_legalize(w, edge >= 0 ? 4 : 3);
  for (i = 0; i < w->ntouched; i++) dt_remeasure(w, &w->tris.v[w->touched[i] * 4], margin);
  return 1;
}

/* The not yet added sample farthest (vertically) from the triangulation,
 * or -1; *bestd gets its error. */
static int dt_worst_sample(dt_work *w, float *bestd) {
  const int ns = w->samples.n / 4;
  int i, besti = -1;
  *bestd = 0;
  for (i = 0; i < ns; i++) {
    int *st = &w->samples.v[i * 4 + 3];
    float *p = &w->spts[i * 4];
    if (*st & 1) continue;
    if (*st & 2) { /* stale: measure against the whole triangulation */
      p[3] = dt_dist_mesh(w, p);
      *st &= ~2;
    }
    if (p[3] > *bestd) { *bestd = p[3]; besti = i; }
  }
  return besti;
}

/* Adds the sample farthest from the current triangulation while that error
 * exceeds sample_max_error. The first one triangulates hull and point
 * afresh (Recast's gift wrapping); later ones are inserted with flips,
 * which gives the same Delaunay triangulation without rebuilding it. */
static nm_status dt_add_samples(dt_work *w) {
  float bmin[3], bmax[3], margin;
  int i, iter, ns, incremental = 0;
  nm_vcopy(bmin, w->in);
  nm_vcopy(bmax, w->in);
  for (i = 1; i < w->nin; i++) {
    nm_vmin(bmin, &w->in[i * 3]);
    nm_vmax(bmax, &w->in[i * 3]);
  }
  /* slack around changed triangles, above the barycentric test's 1e-4 */
  margin = 1e-3f * nm_maxf(bmax[0] - bmin[0], bmax[2] - bmin[2]) + 1e-4f;
  if (dt_grid_samples(w, bmin, bmax) != NM_OK) return NM_ERR_NOMEM;
  ns = w->samples.n / 4;
  for (iter = 0; iter < ns && w->nverts < DT_MAX_VERTS; iter++) {
    float bestd;
    const int besti = dt_worst_sample(w, &bestd);
    if (bestd <= w->max_error || besti == -1) break;
    w->samples.v[besti * 4 + 3] |= 1;
    nm_vcopy(&w->verts[w->nverts * 3], &w->spts[besti * 4]);
    w->nverts++;
    if (incremental && dt_insert(w, w->nverts - 1, margin)) continue;
    dt_delaunay(w);
    dt_stale_all(w);
    incremental = dt_build_adjacency(w);
  }
  return NM_OK;
}

/* ---- stage: per polygon ---- */

/* Builds the detail triangles of the polygon in w->in (local units). */
static nm_status dt_build_poly(dt_work *w) {
  int i, j;
  float min_extent;
  memcpy(w->verts, w->in, sizeof(float) * 3 * (size_t)w->nin);
  w->nverts = w->nin;
  w->nhull = 0;
  w->tris.n = 0;
  min_extent = dt_min_extent(w->verts, w->nverts);
  /* the outline first (its samples are shared with the neighbours), then
   * interior samples unless the polygon is a sliver */
  if (w->sample_dist > 0)
    for (i = 0, j = w->nin - 1; i < w->nin; j = i++) dt_tess_edge(w, j, i);
  else
    for (i = 0; i < w->nin; i++) w->hull[w->nhull++] = i;
  dt_triangulate_hull(w);
  if (min_extent < w->sample_dist * 2 || w->sample_dist <= 0) return NM_OK;
  if (dt_add_samples(w) != NM_OK) return NM_ERR_NOMEM;
  if (w->tris.n > DT_MAX_TRIS * 4) w->tris.n = DT_MAX_TRIS * 4;
  return NM_OK;
}

/* Edge flag bits of a triangle: bit 2k set when edge k (k -> k+1) joins
 * two consecutive hull vertices, i.e. lies on the polygon outline. */
static int dt_tri_flags(const dt_work *w, const int *t) {
  int k, flags = 0;
  for (k = 0; k < 3; k++) {
    const int a = t[k], b = t[(k + 1) % 3];
    int i, j;
    if (a >= w->nhull || b >= w->nhull) continue;
    for (i = 0, j = w->nhull - 1; i < w->nhull; j = i++)
      if ((w->hull[j] == a && w->hull[i] == b) || (w->hull[j] == b && w->hull[i] == a)) {
        flags |= 1 << (k * 2);
        break;
      }
  }
  return flags;
}

/* Appends the polygon's detail vertices (world units) and triangles. */
static nm_status dt_store(dt_work *w, uint32_t *meshrec) {
  const float *orig = w->mesh->bmin;
  const int ntris = w->tris.n / 4;
  int j;
  if (dt_grow(w->a, (void **)&w->overts, &w->ovcap, w->noverts + w->nverts, sizeof(float) * 3) != NM_OK ||
      dt_grow(w->a, (void **)&w->otris, &w->otcap, w->notris + ntris, 4) != NM_OK)
    return NM_ERR_NOMEM;
  meshrec[0] = (uint32_t)w->noverts;
  meshrec[1] = (uint32_t)w->nverts;
  meshrec[2] = (uint32_t)w->notris;
  meshrec[3] = (uint32_t)ntris;
  for (j = 0; j < w->nverts; j++) {
    float *d = &w->overts[(w->noverts + j) * 3];
    d[0] = w->verts[j * 3] + orig[0];
    d[1] = w->verts[j * 3 + 1] + orig[1] + w->chf->ch; /* one cell up, as Recast */
    d[2] = w->verts[j * 3 + 2] + orig[2];
  }
  w->noverts += w->nverts;
  for (j = 0; j < ntris; j++) { /* indices are local to the polygon (< 127) */
    const int *t = &w->tris.v[j * 4];
    uint8_t *d = &w->otris[(w->notris + j) * 4];
    d[0] = (uint8_t)t[0];
    d[1] = (uint8_t)t[1];
    d[2] = (uint8_t)t[2];
    d[3] = (uint8_t)dt_tri_flags(w, t);
  }
  w->notris += ntris;
  return NM_OK;
}

/* ---- entry points ---- */

/* Per polygon cell bounds (one cell of margin, clamped to the field) and the
 * largest patch any polygon needs. */
static void dt_bounds(dt_work *w, int *maxcells) {
  const nm_polymesh *m = w->mesh;
  int i, j, maxhw = 0, maxhh = 0;
  for (i = 0; i < m->npolys; i++) {
    const uint16_t *p = &m->polys[i * m->nvp * 2];
    int *b = &w->bounds[i * 4];
    b[0] = w->chf->width; b[1] = 0; b[2] = w->chf->height; b[3] = 0;
    for (j = 0; j < m->nvp && p[j] != NM_MESH_NULL_IDX; j++) {
      const uint16_t *v = &m->verts[p[j] * 3];
      b[0] = nm_mini(b[0], v[0]); b[1] = nm_maxi(b[1], v[0]);
      b[2] = nm_mini(b[2], v[2]); b[3] = nm_maxi(b[3], v[2]);
    }
    b[0] = nm_maxi(0, b[0] - 1); b[1] = nm_mini(w->chf->width, b[1] + 1);
    b[2] = nm_maxi(0, b[2] - 1); b[3] = nm_mini(w->chf->height, b[3] + 1);
    if (b[0] >= b[1] || b[2] >= b[3]) continue;
    maxhw = nm_maxi(maxhw, b[1] - b[0]);
    maxhh = nm_maxi(maxhh, b[3] - b[2]);
  }
  *maxcells = maxhw * maxhh;
}

/* Checks that every polygon vertex lies inside the field without its
 * border and every index is valid (so that patch reads stay in bounds). */
static int dt_mesh_fits(const nm_polymesh *m, const nm_chf *chf) {
  const int bs = chf->border_size;
  const int wmax = bs > 0 ? chf->width - 2 * bs : chf->width, hmax = bs > 0 ? chf->height - 2 * bs : chf->height;
  int i;
  for (i = 0; i < m->nverts; i++)
    if (m->verts[i * 3] > wmax || m->verts[i * 3 + 2] > hmax) return 0;
  for (i = 0; i < m->npolys * m->nvp; i++) {
    const uint16_t v = m->polys[(i / m->nvp) * m->nvp * 2 + i % m->nvp];
    if (v != NM_MESH_NULL_IDX && v >= m->nverts) return 0;
  }
  return 1;
}

/* Allocates the scratch; sizes come from the largest polygon patch. */
static nm_status dt_work_init(dt_work *w) {
  int cells;
  w->bounds = (int *)nm_malloc(w->a, sizeof(int) * 4 * (size_t)w->mesh->npolys);
  if (!w->bounds) return NM_ERR_NOMEM;
  dt_bounds(w, &cells);
  w->hp_cap = cells;
  w->queue_cap = (cells + 1) * 3;
  w->rborder = (uint8_t *)nm_malloc(w->a, (size_t)w->chf->span_count + 1);
  w->hp = (uint16_t *)nm_malloc(w->a, sizeof(uint16_t) * (size_t)(cells + 1));
  w->queue = (int *)nm_malloc(w->a, sizeof(int) * (size_t)w->queue_cap);
  if (!w->hp || !w->queue || !w->rborder) return NM_ERR_NOMEM;
  dt_mark_region_borders(w);
  if (nm_ivec_reserve(w->a, &w->tris, DT_TRI_CAP * 4) != NM_OK ||
      nm_ivec_reserve(w->a, &w->edges, DT_MAX_VERTS * 10 * 4) != NM_OK)
    return NM_ERR_NOMEM;
  w->emap = (int16_t *)nm_calloc(w->a, sizeof(int16_t) * DT_MAP * DT_MAP);
  w->tadj = (int *)nm_calloc(w->a, sizeof(int) * (DT_TRI_CAP * 6 + DT_FLIPS + 8));
  if (!w->emap || !w->tadj) return NM_ERR_NOMEM;
  w->tmark = w->tadj + DT_TRI_CAP * 3;
  w->touched = w->tmark + DT_TRI_CAP;
  w->stack = w->touched + DT_TRI_CAP;
  return NM_OK;
}

/* Frees whatever the work still owns (exact sizes from its counters). */
static void dt_work_free(dt_work *w) {
  nm_free(w->a, w->bounds, sizeof(int) * 4 * (size_t)w->mesh->npolys);
  nm_free(w->a, w->hp, sizeof(uint16_t) * (size_t)(w->hp_cap + 1));
  nm_free(w->a, w->queue, sizeof(int) * (size_t)w->queue_cap);
  nm_free(w->a, w->rborder, (size_t)w->chf->span_count + 1);
  nm_ivec_free(w->a, &w->tris);
  nm_ivec_free(w->a, &w->edges);
  nm_ivec_free(w->a, &w->samples);
  nm_free(w->a, w->emap, sizeof(int16_t) * DT_MAP * DT_MAP);
  nm_free(w->a, w->tadj, sizeof(int) * (DT_TRI_CAP * 6 + DT_FLIPS + 8));
  nm_free(w->a, w->spts, sizeof(float) * (size_t)w->spts_cap);
  nm_free(w->a, w->overts, sizeof(float) * 3 * (size_t)w->ovcap);
  nm_free(w->a, w->otris, 4 * (size_t)w->otcap);
}

/* Builds and stores every polygon's detail mesh. */
static nm_status dt_build_all(dt_work *w, uint32_t *meshes) {
  const nm_polymesh *m = w->mesh;
  int i, j;
  for (i = 0; i < m->npolys; i++) {
    const uint16_t *p = &m->polys[i * m->nvp * 2];
    w->nin = 0;
    for (j = 0; j < m->nvp && p[j] != NM_MESH_NULL_IDX; j++) {
      const uint16_t *v = &m->verts[p[j] * 3];
      w->in[j * 3] = (float)v[0] * m->cs;
      w->in[j * 3 + 1] = (float)v[1] * m->ch;
      w->in[j * 3 + 2] = (float)v[2] * m->cs;
      w->nin++;
    }
    dt_height_patch(w, i);
    /* a polygon without a patch keeps just its corners (and no triangles) */
    if (w->nin < 3 || w->hw == 0) {
      w->nverts = w->nin;
      memcpy(w->verts, w->in, sizeof(float) * 3 * (size_t)w->nin);
      w->nhull = 0;
      w->tris.n = 0;
    } else if (dt_build_poly(w) != NM_OK) {
      return NM_ERR_NOMEM;
    }
    if (dt_store(w, &meshes[i * 4]) != NM_OK) return NM_ERR_NOMEM;
  }
  return NM_OK;
}

/* Trims the output arrays to their exact sizes and hands them over (the
 * detail mesh frees them with its counts). */
static nm_status dt_finish(dt_work *w, nm_polymesh_detail *d) {
  if (w->noverts < w->ovcap) {
    void *p = w->noverts ? nm_realloc(w->a, w->overts, sizeof(float) * 3 * (size_t)w->ovcap,
                                      sizeof(float) * 3 * (size_t)w->noverts) : NULL;
    if (w->noverts && !p) return NM_ERR_NOMEM;
    if (!w->noverts) nm_free(w->a, w->overts, sizeof(float) * 3 * (size_t)w->ovcap);
    w->overts = (float *)p;
    w->ovcap = w->noverts;
  }
  if (w->notris < w->otcap) {
    void *p = w->notris ? nm_realloc(w->a, w->otris, 4 * (size_t)w->otcap, 4 * (size_t)w->notris) : NULL;
    if (w->notris && !p) return NM_ERR_NOMEM;
    if (!w->notris) nm_free(w->a, w->otris, 4 * (size_t)w->otcap);
    w->otris = (uint8_t *)p;
    w->otcap = w->notris;
  }
  d->verts = w->overts;
  d->nverts = w->noverts;
  d->tris = w->otris;
  d->ntris = w->notris;
  w->overts = NULL;
  w->otris = NULL;
  w->ovcap = w->otcap = 0;
  return NM_OK;
}

/* See nm_build.h. sample_dist [Units: wu] (0: no samples), sample_max_error
 * [Units: wu]. The chf must be the one the mesh was built from
 * (NM_ERR_PARAM when the mesh does not fit it). */
nm_status nm_detail_build(const nm_polymesh *mesh, const nm_chf *chf, float sample_dist, float sample_max_error,
                          const nm_alloc *a, nm_polymesh_detail *dmesh) {
  dt_work w;
  uint32_t *meshes;
  nm_status st;
  if (!dmesh) return NM_ERR_PARAM;
  memset(dmesh, 0, sizeof *dmesh);
  dmesh->a = nm_alloc_resolve(a);
  if (!mesh || !chf || !(sample_dist >= 0.0f) || !(sample_max_error >= 0.0f) || !(chf->cs > 0.0f) ||
      mesh->nvp < 3 || mesh->nvp > NM_MAX_VERTS_PER_POLY)
    return NM_ERR_PARAM;
  if (mesh->nverts == 0 || mesh->npolys == 0) return NM_OK;
  if (!dt_mesh_fits(mesh, chf)) return NM_ERR_PARAM;
  memset(&w, 0, sizeof w);
  w.a = &dmesh->a;
  w.chf = chf;
  w.mesh = mesh;
  w.sample_dist = sample_dist;
  w.max_error = sample_max_error;
  w.radius = nm_maxi(1, (int)ceilf(mesh->max_edge_error));
  meshes = (uint32_t *)nm_malloc(w.a, sizeof(uint32_t) * 4 * (size_t)mesh->npolys);
  st = meshes ? dt_work_init(&w) : NM_ERR_NOMEM;
  if (st == NM_OK) st = dt_build_all(&w, meshes);
  if (st == NM_OK) st = dt_finish(&w, dmesh);
  dt_work_free(&w);
  if (st != NM_OK) {
    nm_free(w.a, meshes, sizeof(uint32_t) * 4 * (size_t)mesh->npolys);
    return st;
  }
  dmesh->meshes = meshes;
  dmesh->nmeshes = mesh->npolys;
  return NM_OK;
}

/* Frees the detail arrays; the struct may be reused. */
void nm_detail_free(nm_polymesh_detail *dmesh) {
  if (!dmesh) return;
  nm_free(&dmesh->a, dmesh->meshes, sizeof(uint32_t) * 4 * (size_t)dmesh->nmeshes);
  nm_free(&dmesh->a, dmesh->verts, sizeof(float) * 3 * (size_t)dmesh->nverts);
  nm_free(&dmesh->a, dmesh->tris, 4 * (size_t)dmesh->ntris);
  dmesh->meshes = NULL;
  dmesh->verts = NULL;
  dmesh->tris = NULL;
  dmesh->nmeshes = dmesh->nverts = dmesh->ntris = 0;
}
