/* rasterize.c -- triangles to a solid span heightfield.
 *
 * Conservative voxelisation as in Recast: each triangle is cut into the
 * strips of the grid rows (z), each strip into the cells of its row (x) by
 * Sutherland-Hodgman style splits against one axis-aligned line at a time;
 * the y extent of every non-empty piece becomes a solid span [smin, smax]
 * (in cell_height steps) of that column. A new span is merged with every
 * span of the column it overlaps or touches; when the tops of the two lie
 * within merge_climb cells the larger area id wins, so a walkable floor is
 * not hidden by the wall polygon that shares its top.
 *
 * Spans come from pools of NM_SPANS_PER_POOL (one allocation per pool, a
 * free list for merged spans), never one allocation per span. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "nm_voxel.h"

/* Vertex capacity of the clip buffers: a triangle cut by two lines per axis
 * has at most 7 vertices; the rest is slack for rounding. */
#define CLIP_CAP 12

/* ---- stage: heightfield ---- */

/* Sets up an empty width x height column grid over [bmin, bmax]; only the
 * column heads are allocated here, spans come later from pools. Refuses
 * empty grids, non-positive or non-finite cell sizes and bounds. */
nm_status nm_hf_init(nm_heightfield *hf, const nm_alloc *a, int width, int height,
                     const float *bmin, const float *bmax, float cs, float ch) {
  size_t bytes;
  memset(hf, 0, sizeof *hf);
  hf->a = nm_alloc_resolve(a);
  if (width <= 0 || height <= 0 || !(cs > 0) || !(ch > 0) || !isfinite(cs) || !isfinite(ch) ||
      !nm_isfinite3(bmin) || !nm_isfinite3(bmax))
    return NM_ERR_PARAM;
  bytes = nm_mul_size(nm_mul_size((size_t)width, (size_t)height), sizeof(nm_span *));
  hf->spans = (nm_span **)nm_calloc(&hf->a, bytes);
  if (!hf->spans) return NM_ERR_NOMEM;
  hf->width = width;
  hf->height = height;
  nm_vcopy(hf->bmin, bmin);
  nm_vcopy(hf->bmax, bmax);
  hf->cs = cs;
  hf->ch = ch;
  return NM_OK;
}

/* Frees the pools and the column array; hf may be half built (after a
 * failed init or rasterization) and may be freed twice. */
void nm_hf_free(nm_heightfield *hf) {
  nm_span_pool *p = hf->pools;
  while (p) {
    nm_span_pool *next = p->next;
    nm_free(&hf->a, p, sizeof *p);
    p = next;
  }
  if (hf->spans)
    nm_free(&hf->a, hf->spans, (size_t)hf->width * (size_t)hf->height * sizeof(nm_span *));
  hf->spans = NULL;
  hf->pools = NULL;
  hf->pool_used = 0;
  hf->freelist = NULL;
}

/* Takes a span from the free list, else the next unused one of the newest
 * pool, adding a pool when that one is full. */
static nm_span *hf_span_alloc(nm_heightfield *hf) {
  nm_span *s = hf->freelist;
  if (s) {
    hf->freelist = s->next;
    return s;
  }
  if (!hf->pools || hf->pool_used == NM_SPANS_PER_POOL) {
    nm_span_pool *p = (nm_span_pool *)nm_malloc(&hf->a, sizeof *p);
    if (!p) return NULL;
    p->next = hf->pools;
    hf->pools = p;
    hf->pool_used = 0;
  }
  return &hf->pools->items[hf->pool_used++];
}

/* Returns a swallowed span to the free list; pools are only freed with the
 * heightfield, so a merge-heavy column never allocates again. */
static void hf_span_release(nm_heightfield *hf, nm_span *s) {
  s->next = hf->freelist;
  hf->freelist = s;
}

/* Adds solid span [smin, smax] to column (x, z), swallowing every span it
 * overlaps or touches. The merged span keeps the larger area id when its top
 * and the swallowed span's top are within merge_climb cells. */
static nm_status hf_add_span(nm_heightfield *hf, int x, int z, unsigned smin, unsigned smax,
                             unsigned area, int merge_climb) {
  nm_span **link = &hf->spans[x + z * hf->width];
  nm_span *cur = *link, *ns;
  while (cur && cur->smax < smin) { /* skip spans wholly below */
    link = &cur->next;
    cur = cur->next;
  }
  /* Spans are sorted and disjoint; everything from here that starts at or
   * below the new top is merged into the new span. */
  while (cur && cur->smin <= smax) { /* swallow overlapping spans */
    nm_span *next = cur->next;
    if (cur->smin < smin) smin = cur->smin;
    if (cur->smax > smax) smax = cur->smax;
    if (abs((int)smax - (int)cur->smax) <= merge_climb && cur->area > area) area = cur->area;
    hf_span_release(hf, cur);
    cur = next;
  }
  ns = hf_span_alloc(hf);
  if (!ns) {
    *link = cur; /* the swallowed spans are gone; keep the column consistent */
    return NM_ERR_NOMEM;
  }
  ns->smin = smin;
  ns->smax = smax;
  ns->area = area;
  ns->next = cur;
  *link = ns;
  return NM_OK;
}

/* ---- stage: walkable triangles ---- */

/* Walkable when the unit normal's y exceeds cos(max slope); the normal is
 * e0 x e1 with e0 = v1 - v0 and e1 = v2 - v0, so walkable triangles wind
 * clockwise seen from above (Recast's convention). Every triangle gets an
 * answer: NM_NULL_AREA for steep, downward, degenerate and NaN ones. */
/* The Y component of triangle t's unit normal (v1 - v0) x (v2 - v0): the
 * cosine of its slope, negative when it faces down; NaN for zero-area or
 * non-finite triangles, which are never walkable either way. */
static float tri_up(const float *verts, const int *t) {
  const float *v0 = &verts[t[0] * 3], *v1 = &verts[t[1] * 3], *v2 = &verts[t[2] * 3];
  float e0[3], e1[3], n[3], len;
  nm_vsub(e0, v1, v0);
  nm_vsub(e1, v2, v0);
  n[0] = e0[1] * e1[2] - e0[2] * e1[1];
  n[1] = e0[2] * e1[0] - e0[0] * e1[2];
  n[2] = e0[0] * e1[1] - e0[1] * e1[0];
  len = sqrtf(nm_vlen_sqr(n));
  return (len > 0 && isfinite(len)) ? n[1] * (1.0f / len) : NAN;
}

void nm_mark_walkable_triangles(float max_slope_deg, const float *verts, const int *tris,
                                int ntris, uint8_t *areas) {
  const float thr = cosf(max_slope_deg / 180.0f * 3.14159265f);
  int i;
  for (i = 0; i < ntris; i++) areas[i] = tri_up(verts, &tris[i * 3]) > thr ? NM_WALKABLE_AREA : NM_NULL_AREA;
}

void nm_count_walkable_triangles(float max_slope_deg, const float *verts, const int *tris, int ntris,
                                 int *up, int *down) {
  const float thr = cosf(max_slope_deg / 180.0f * 3.14159265f);
  int i;
  *up = *down = 0;
  for (i = 0; i < ntris; i++) {
    const float c = tri_up(verts, &tris[i * 3]);
    if (c > thr) (*up)++;
    else if (-c > thr) (*down)++;
  }
}

/* ---- stage: rasterization ---- */

/* Splits convex polygon in[n] by the line coordinate[axis] == off into the
 * part below (lo) and the part above (hi); vertices on the line go to both. */
static void split_poly(const float *in, int n, float *lo, int *nlo, float *hi, int *nhi,
                       float off, int axis) {
  float d[CLIP_CAP];
  int i, j, a = 0, b = 0, below = 0;
  for (i = 0; i < n; i++) {
    d[i] = off - in[i * 3 + axis];
    below += d[i] > 0;
  }
  if (below == n) { /* wholly below the line: the common last piece of a row */
    memcpy(lo, in, sizeof(float) * 3 * (size_t)n);
    *nlo = n;
    *nhi = 0;
    return;
  }
  for (i = 0, j = n - 1; i < n; j = i, i++) {
    if ((d[i] >= 0) != (d[j] >= 0)) { /* edge j -> i crosses the line */
      const float s = d[j] / (d[j] - d[i]);
      float p[3];
      p[0] = in[j * 3 + 0] + (in[i * 3 + 0] - in[j * 3 + 0]) * s;
      p[1] = in[j * 3 + 1] + (in[i * 3 + 1] - in[j * 3 + 1]) * s;
      p[2] = in[j * 3 + 2] + (in[i * 3 + 2] - in[j * 3 + 2]) * s;
      if (a < CLIP_CAP) nm_vcopy(&lo[3 * a++], p);
      if (b < CLIP_CAP) nm_vcopy(&hi[3 * b++], p);
      if (d[i] > 0) {
        if (a < CLIP_CAP) nm_vcopy(&lo[3 * a++], &in[i * 3]);
      } else if (d[i] < 0) {
        if (b < CLIP_CAP) nm_vcopy(&hi[3 * b++], &in[i * 3]);
      }
    } else {
      if (d[i] >= 0) {
        if (a < CLIP_CAP) nm_vcopy(&lo[3 * a++], &in[i * 3]);
        if (d[i] != 0) continue;
      }
      if (b < CLIP_CAP) nm_vcopy(&hi[3 * b++], &in[i * 3]);
    }
  }
  *nlo = a;
  *nhi = b;
}

/* Where edge pj -> pi of an (x, y) polygon (distances dj, di from the
 * line: off - x) crosses the line; split_x and the row walk share it. */
static inline void rw_cross(const float *pj, const float *pi, float dj, float di, float *out) {
  const float t = dj / (dj - di);
  out[0] = pj[0] + (pi[0] - pj[0]) * t;
  out[1] = pj[1] + (pi[1] - pj[1]) * t;
}

/* Widens the y range [*lo, *hi] to take in y. */
static inline void y_widen(float y, float *lo, float *hi) {
  *lo = nm_minf(*lo, y);
  *hi = nm_maxf(*hi, y);
}

/* split_poly along x for the cells of a row, on (x, y) pairs: a row strip
 * needs no z any more, and x and y are computed as split_poly computes them,
 * so the spans are the same. Keeps only the part right of the line (the
 * rest of the row) in hi, and returns the vertex count and y range of the
 * part left of it (the cell piece), which is all its span needs. */
static int split_x(const float *in, int n, float *hi, int *nhi, float off, float *ylo,
                   float *yhi) {
  float d[CLIP_CAP], lo_y = FLT_MAX, hi_y = -FLT_MAX;
  int i, j, a = 0, b = 0, below = 0;
  for (i = 0; i < n; i++) {
    d[i] = off - in[i * 2];
    below += d[i] > 0;
  }
  if (below == n) { /* the last cell of the row */
    for (i = 0; i < n; i++) y_widen(in[i * 2 + 1], &lo_y, &hi_y);
    *ylo = lo_y;
    *yhi = hi_y;
    *nhi = 0;
    return n;
  }
  for (i = 0, j = n - 1; i < n; j = i, i++) {
    const float yi = in[i * 2 + 1];
    if ((d[i] >= 0) != (d[j] >= 0)) { /* edge j -> i crosses the line */
      float p[2];
      rw_cross(&in[j * 2], &in[i * 2], d[j], d[i], p);
      a++;
      y_widen(p[1], &lo_y, &hi_y);
      if (b < CLIP_CAP) {
        hi[b * 2] = p[0];
        hi[b * 2 + 1] = p[1];
        b++;
      }
      if (d[i] > 0) {
        a++;
        y_widen(yi, &lo_y, &hi_y);
        continue;
      }
      if (!(d[i] < 0)) continue;
    } else if (d[i] >= 0) {
      a++;
      y_widen(yi, &lo_y, &hi_y);
      if (d[i] != 0) continue;
    }
    if (b < CLIP_CAP) {
      hi[b * 2] = in[i * 2];
      hi[b * 2 + 1] = yi;
      b++;
    }
  }
  *ylo = lo_y;
  *yhi = hi_y;
  *nhi = b;
  return a;
}

/* (int)v clamped to [lo, hi], safe for values far outside int range. */
static int cell_clamp(float v, int lo, int hi) {
  if (!(v >= (float)lo)) return lo;
  if (v >= (float)hi) return hi;
  return (int)v;
}

/* Per-call constants of a rasterization. */
typedef struct rast_ctx {
  nm_heightfield *hf;
  float ics, ich, by;
  int merge_climb;
} rast_ctx;

/* Adds the span of a cell piece with y range [lo, hi] at column (x, z):
 * floor(lo) and ceil(hi) in cell heights, clamped to the span range. The
 * clipped values are >= 0, where floor is the truncation and ceil one more
 * when the truncation lost something; NaN falls to the lower bound, as
 * with floorf/ceilf and a clamp. */
static nm_status rast_cell(const rast_ctx *rc, float lo, float hi, int x, int z, unsigned area) {
  float vl, vh;
  int smin, smax;
  lo -= rc->hf->bmin[1];
  hi -= rc->hf->bmin[1];
  if (hi < 0.0f || lo > rc->by) return NM_OK;
  vl = (lo < 0.0f ? 0.0f : lo) * rc->ich;
  vh = (hi > rc->by ? rc->by : hi) * rc->ich;
  smin = !(vl >= 0.0f) ? 0 : vl >= (float)(NM_SPAN_MAX_HEIGHT - 1) ? NM_SPAN_MAX_HEIGHT - 1 : (int)vl;
  if (!(vh >= 0.0f)) {
    smax = smin + 1;
  } else if (vh > (float)(NM_SPAN_MAX_HEIGHT - 1)) {
    smax = NM_SPAN_MAX_HEIGHT;
  } else {
    smax = (int)vh;
    smax += (float)smax < vh;
    if (smax < smin + 1) smax = smin + 1;
  }
  return hf_add_span(rc->hf, x, z, (unsigned)smin, (unsigned)smax, area, rc->merge_climb);
}

/* ---- stage: cutting a row into cells ---- */

/* A row strip being cut into cells from -x to +x. split_x keeps the rest
 * of the strip as a polygon and copies it at every cell; but after a cut
 * that polygon is, in cyclic order, the two points of the cut (X1 where
 * the edge coming back from the right meets the line, then X2 where the
 * edge going right leaves it) followed by vertices of the strip untouched
 * so far. So the walk keeps just that: the front (X1, X2) and a range
 * v[va..vb) of the strip's vertices (stored twice, so a range may wrap).
 * Each cut computes exactly the crossings split_x would, from the same
 * edges, so pieces and spans are the same; it only looks at the front and
 * the ends of the range. That holds while no vertex lies on a cut line and
 * the untouched vertices rise then fall in x (then only the ends of the
 * range can reach the next line); otherwise the walk hands the polygon to
 * split_x. */
typedef struct row_walk {
  float v[4 * CLIP_CAP];  /* the strip's vertices (x, y), twice over */
  int n;                  /* vertices of the strip */
  float f[4];             /* front: X1, X2 (x, y) */
  int nf;                 /* 0 before the first cut, then 2 */
  int va, vb;             /* untouched vertices v[va..vb) after the front */
  int done;               /* the last piece has been cut: nothing is left */
} row_walk;

/* x rises (or stays), then falls (or stays) along v[p..q). */
static int rw_unimodal(const float *v, int p, int q) {
  int k = p + 1;
  while (k < q && v[k * 2] >= v[(k - 1) * 2]) k++;
  while (k < q && v[k * 2] <= v[(k - 1) * 2]) k++;
  return k == q;
}

/* The first cut, with the whole strip untouched: the vertices left of the
 * line must form one run, those right of it the other, none on the line,
 * and the right run must be unimodal in x. Returns the piece's vertex
 * count (its y range in *ylo, *yhi), or -1 when the strip is not of that
 * shape (nothing is changed then). */
static int rw_start(row_walk *w, float off, float *ylo, float *yhi) {
  const int n = w->n;
  float d[CLIP_CAP], lo = FLT_MAX, hi = -FLT_MAX;
  int k, nl = 0, p = -1;
  for (k = 0; k < n; k++) {
    d[k] = off - w->v[k * 2];
    if (d[k] == 0) return -1;
    if (d[k] < 0) continue;
    nl++;
    y_widen(w->v[k * 2 + 1], &lo, &hi);
  }
  *ylo = lo;
  *yhi = hi;
  if (nl == 0) return 0; /* all right of the line: nothing cut off yet */
  if (nl == n) {         /* all left: the strip is the last piece */
    w->done = 1;
    return n;
  }
  for (k = 0; k < n; k++) /* the right run starts after a left vertex, once */
    if (d[k] < 0 && d[k > 0 ? k - 1 : n - 1] > 0) {
      if (p >= 0) return -1;
      p = k;
    }
  if (!rw_unimodal(w->v, p, p + n - nl)) return -1;
  w->va = p;
  w->vb = p + n - nl;
  rw_cross(&w->v[(w->vb - 1) * 2], &w->v[w->vb * 2], d[(w->vb - 1) % n], d[w->vb % n], &w->f[0]);
  rw_cross(&w->v[(p > 0 ? p - 1 : n - 1) * 2], &w->v[p * 2], d[p > 0 ? p - 1 : n - 1], d[p], &w->f[2]);
  w->nf = 2;
  *ylo = nm_minf(lo, nm_minf(w->f[1], w->f[3]));
  *yhi = nm_maxf(hi, nm_maxf(w->f[1], w->f[3]));
  return nl + 2;
}

/* A later cut: the front lies left of the line; untouched vertices that
 * reach it now are taken from the ends of the range. Same result and -1
 * rule as rw_start. */
static int rw_cut(row_walk *w, float off, float *ylo, float *yhi) {
  const float d0 = off - w->f[0], d1 = off - w->f[2];
  float lo = nm_minf(w->f[1], w->f[3]), hi = nm_maxf(w->f[1], w->f[3]);
  float dp = 0, dq = 0, dlast = d1, dfirst = d0, x1[2];
  int p = w->va, q = w->vb, count;
  if (!(d0 > 0) || !(d1 > 0)) return -1;
  while (p < q && (dp = off - w->v[p * 2]) >= 0) { /* the range's head reaches the line */
    if (dp == 0) return -1;
    y_widen(w->v[p * 2 + 1], &lo, &hi);
    dlast = dp;
    p++;
  }
  if (p == q) { /* everything is left: the last piece */
    *ylo = lo;
    *yhi = hi;
    w->done = 1;
    return 2 + w->vb - w->va;
  }
  while ((dq = off - w->v[(q - 1) * 2]) >= 0) { /* its tail; stops at v[p] at the latest */
    if (dq == 0) return -1;
    y_widen(w->v[(q - 1) * 2 + 1], &lo, &hi);
    dfirst = dq;
    q--;
  }
  count = 4 + (p - w->va) + (w->vb - q);
  rw_cross(&w->v[(q - 1) * 2], q < w->vb ? &w->v[q * 2] : &w->f[0], dq, dfirst, x1);
  rw_cross(p > w->va ? &w->v[(p - 1) * 2] : &w->f[2], &w->v[p * 2], dlast, dp, &w->f[2]);
  w->f[0] = x1[0];
  w->f[1] = x1[1];
  w->va = p;
  w->vb = q;
  *ylo = nm_minf(lo, nm_minf(w->f[1], w->f[3]));
  *yhi = nm_maxf(hi, nm_maxf(w->f[1], w->f[3]));
  return count;
}

/* The walk's polygon as split_x keeps it (front, then the range); returns
 * its vertex count. */
static int rw_flatten(const row_walk *w, float *out) {
  int k, n = 0;
  if (w->done) return 0;
  for (k = 0; k < w->nf * 2; k++) out[n++] = w->f[k];
  for (k = (w->nf ? w->va : 0) * 2; k < (w->nf ? w->vb : w->n) * 2; k++) out[n++] = w->v[k];
  return n / 2;
}

/* Cuts one row strip row[n] (x, y, z) into cells and adds their spans:
 * by the walk while it can, then by split_x. */
static nm_status rast_row(const rast_ctx *rc, const float *row, int n, int z, unsigned area) {
  const nm_heightfield *hf = rc->hf;
  float buf[2][CLIP_CAP * 2];
  float *rest = buf[0], *other = buf[1];
  float minx = row[0], maxx = row[0];
  row_walk w;
  int i, x, x0, x1, nc, walking = 1;
  for (i = 0; i < n; i++) {
    minx = nm_minf(minx, row[i * 3]);
    maxx = nm_maxf(maxx, row[i * 3]);
    w.v[i * 2] = w.v[(i + n) * 2] = row[i * 3];
    w.v[i * 2 + 1] = w.v[(i + n) * 2 + 1] = row[i * 3 + 1];
  }
  w.n = n;
  w.nf = w.done = 0;
  x0 = cell_clamp((minx - hf->bmin[0]) * rc->ics, -1, hf->width);
  x1 = cell_clamp((maxx - hf->bmin[0]) * rc->ics, -1, hf->width);
  if (x1 < 0 || x0 >= hf->width) return NM_OK;
  if (x1 > hf->width - 1) x1 = hf->width - 1;
  for (x = x0; x <= x1; x++) {
    const float off = (hf->bmin[0] + (float)x * hf->cs) + hf->cs;
    float *t, ylo, yhi;
    nc = !walking ? -1 : w.done ? 0 : w.nf ? rw_cut(&w, off, &ylo, &yhi) : rw_start(&w, off, &ylo, &yhi);
    if (nc < 0) {
      if (walking) n = rw_flatten(&w, rest);
      walking = 0;
      nc = split_x(rest, n, other, &n, off, &ylo, &yhi);
      t = rest;
      rest = other;
      other = t;
    }
    if (nc < 3 || x < 0) continue;
    if (rast_cell(rc, ylo, yhi, x, z, area) != NM_OK) return NM_ERR_NOMEM;
  }
  return NM_OK;
}

/* Rasterizes one triangle: rows first, then the cells of each row. */
static nm_status rast_tri(const rast_ctx *rc, const float *v0, const float *v1, const float *v2,
                          unsigned area) {
  const nm_heightfield *hf = rc->hf;
  float tmin[3], tmax[3], buf[3][CLIP_CAP * 3];
  float *rest = buf[0], *row = buf[1], *other = buf[2];
  int z, z0, z1, n = 3, nr;
  nm_vcopy(tmin, v0); nm_vmin(tmin, v1); nm_vmin(tmin, v2);
  nm_vcopy(tmax, v0); nm_vmax(tmax, v1); nm_vmax(tmax, v2);
  if (!nm_overlap_bounds(tmin, tmax, hf->bmin, hf->bmax)) return NM_OK;
  z0 = cell_clamp((tmin[2] - hf->bmin[2]) * rc->ics, -1, hf->height - 1);
  z1 = cell_clamp((tmax[2] - hf->bmin[2]) * rc->ics, 0, hf->height - 1);
  nm_vcopy(&rest[0], v0);
  nm_vcopy(&rest[3], v1);
  nm_vcopy(&rest[6], v2);
  /* z0 may be -1: the first cut then trims what lies before the grid.
   * Cells are cut in order, each cut from the previous remainder, which is
   * what makes the spans bit-identical to Recast's. */
  for (z = z0; z <= z1; z++) {
    float *t;
    split_poly(rest, n, row, &nr, other, &n, (hf->bmin[2] + (float)z * hf->cs) + hf->cs, 2);
    t = rest;
    rest = other;
    other = t;
    if (nr < 3 || z < 0) continue;
    if (rast_row(rc, row, nr, z, area) != NM_OK) return NM_ERR_NOMEM;
  }
  return NM_OK;
}

/* Rasterizes every triangle with its area id; triangles with a NaN or
 * infinite vertex are skipped, huge ones are clipped to the grid. On
 * NM_ERR_NOMEM the spans added so far stay (nm_hf_free releases them). */
nm_status nm_hf_rasterize(nm_heightfield *hf, const float *verts, const int *tris,
                          const uint8_t *areas, int ntris, int merge_climb) {
  rast_ctx rc;
  int i;
  rc.hf = hf;
  rc.ics = 1.0f / hf->cs;
  rc.ich = 1.0f / hf->ch;
  rc.by = hf->bmax[1] - hf->bmin[1];
  rc.merge_climb = merge_climb;
  for (i = 0; i < ntris; i++) {
    const float *v0 = &verts[tris[i * 3] * 3], *v1 = &verts[tris[i * 3 + 1] * 3];
    const float *v2 = &verts[tris[i * 3 + 2] * 3];
    if (!nm_isfinite3(v0) || !nm_isfinite3(v1) || !nm_isfinite3(v2)) continue;
    if (rast_tri(&rc, v0, v1, v2, areas[i] & 0x3f) != NM_OK) return NM_ERR_NOMEM;
  }
  return NM_OK;
}
