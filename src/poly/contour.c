/* contour.c -- region outlines (Recast's contour stage).
 *
 * Algorithm: for every region of the compact heightfield the outline is
 * walked clockwise along the cell edges that separate the region from
 * another region, another area or the void. Each boundary edge gives one raw
 * point at a cell corner; its y is the highest floor around that corner and
 * its flags carry the region across the edge (low 16 bits), NM_AREA_BORDER
 * and NM_BORDER_VERTEX (a corner on the tile border that the poly mesh
 * removes again). The raw outline is simplified the Douglas-Peucker way:
 * keep the points where the neighbour changes, then insert the farthest raw
 * point until every raw point lies within max_error cells; wall edges longer
 * than max_edge_len are split in the middle. Holes (outlines wound the other
 * way) are joined into their region's outer outline by the shortest bridge
 * that crosses nothing, so each region ends as one simple outline.
 * Coordinates in the output exclude the tile border (border_size). */
#include "nm_polyutil.h"

#include <stdlib.h>

/* Scratch of one contour build. The raw and simplified outlines are reused
 * for every region; finished contours collect in conts (trimmed at the end). */
typedef struct ct_work {
  const nm_chf *chf;
  const nm_alloc *a;
  uint8_t *flags;        /* [span_count] boundary edges still to walk (bit per dir) */
  nm_ivec raw, simp;     /* the contour being built: (x, y, z, flags) per point */
  nm_contour *conts;     /* finished contours */
  int nconts, cap;
  float max_error;
  int max_edge_len;
} ct_work;

/* Index of the span across side dir of span i in column (x, y), or -1. */
static inline int ct_neighbour(const nm_chf *chf, int x, int y, int i, int dir) {
  return nm_chf_link(chf, x + y * chf->width, i, dir);
}

/* ---- stage: raw outline ---- */

/* Marks, per span of a real region, the sides that face something other
 * than the same region. Isolated spans (all four sides open) get nothing:
 * a one-cell outline cannot become a polygon. */
static void ct_mark_boundaries(const nm_chf *chf, uint8_t *flags) {
  const int ncells = chf->width * chf->height;
  int ci, i, dir;
  /* one pass over the cells in memory order */
  for (ci = 0; ci < ncells; ci++) {
    const int end = (int)(chf->cells[ci].index + chf->cells[ci].count);
    for (i = (int)chf->cells[ci].index; i < end; i++) {
      const nm_cspan *s = &chf->spans[i];
      int same = 0;
      flags[i] = 0;
      /* no region, or the tile border: never outlined */
      if (!s->reg || (s->reg & NM_BORDER_REG)) continue;
      for (dir = 0; dir < 4; dir++) {
        const int ni = nm_chf_link(chf, ci, i, dir);
        if (ni >= 0 && chf->spans[ni].reg == s->reg) same |= 1 << dir;
      }
      /* bits set = sides to walk; a span open on all four sides is left out */
      if (same != 0) flags[i] = (uint8_t)(same ^ 0xf);
    }
  }
}

/* Height of the corner after side dir of span i (the corner shared with
 * side dir+1): the highest floor of the up to four spans around it. Also
 * tells whether the corner is a tile-border vertex: two cells of the same
 * border region next to two interior cells of one area. */
static int ct_corner_height(const nm_chf *chf, int x, int y, int i, int dir, int *border_vertex) {
  const nm_cspan *s = &chf->spans[i];
  const int dirp = (dir + 1) & 3;
  unsigned regs[4] = {0, 0, 0, 0}; /* around the corner: this span, across dir, diagonal, across dir+1 */
  int h = s->y, j, ai, bi;
  /* Each entry packs region | area << 16; 0 stands for no span. The
   * diagonal span is reached through either side (both routes meet the same
   * span on a consistent field; the second one found wins, as in Recast). */
  regs[0] = s->reg | ((unsigned)chf->areas[i] << 16);
  if ((ai = ct_neighbour(chf, x, y, i, dir)) >= 0) {
    const nm_cspan *as = &chf->spans[ai];
    h = nm_maxi(h, as->y);
    regs[1] = as->reg | ((unsigned)chf->areas[ai] << 16);
    if ((bi = ct_neighbour(chf, x + nm_dir_dx(dir), y + nm_dir_dy(dir), ai, dirp)) >= 0) {
      h = nm_maxi(h, chf->spans[bi].y);
      regs[2] = chf->spans[bi].reg | ((unsigned)chf->areas[bi] << 16);
    }
  }
  if ((ai = ct_neighbour(chf, x, y, i, dirp)) >= 0) {
    const nm_cspan *as = &chf->spans[ai];
    h = nm_maxi(h, as->y);
    regs[3] = as->reg | ((unsigned)chf->areas[ai] << 16);
    if ((bi = ct_neighbour(chf, x + nm_dir_dx(dirp), y + nm_dir_dy(dirp), ai, dir)) >= 0) {
      h = nm_maxi(h, chf->spans[bi].y);
      regs[2] = chf->spans[bi].reg | ((unsigned)chf->areas[bi] << 16);
    }
  }
  /* Rotating through the four: two cells of one border region followed by
   * two interior cells of one area mean the corner only exists because the
   * tile border cuts the region there. */
  for (j = 0; j < 4; j++) {
    const unsigned ra = regs[j], rb = regs[(j + 1) & 3], rc = regs[(j + 2) & 3], rd = regs[(j + 3) & 3];
    const int two_same_ext = (ra & rb & NM_BORDER_REG) != 0 && ra == rb;
    const int two_int = ((rc | rd) & NM_BORDER_REG) == 0;
    const int same_area = (rc >> 16) == (rd >> 16);
    if (two_same_ext && two_int && same_area && ra && rb && rc && rd) {
      *border_vertex = 1;
      break;
    }
  }
  return h;
}

/* Appends the raw point for boundary side dir of span i in column (x, y). */
static nm_status ct_emit_point(ct_work *w, int x, int y, int i, int dir, int area) {
  const nm_chf *chf = w->chf;
  int border_vertex = 0, r = 0, ai;
  int px = x, pz = y;
  const int py = ct_corner_height(chf, x, y, i, dir, &border_vertex);
  /* The corner at the end of the side, walking clockwise: side 0 (-x) ends
   * at (x, z+1), side 1 (+z) at (x+1, z+1), side 2 (+x) at (x+1, z), side 3
   * (-z) at (x, z). */
  if (dir == 0) pz++;
  else if (dir == 1) { px++; pz++; }
  else if (dir == 2) px++;
  /* the flags name what lies across the side: its region (0 for a wall) */
  if ((ai = ct_neighbour(chf, x, y, i, dir)) >= 0) {
    r = chf->spans[ai].reg;
    if (chf->areas[ai] != area) r |= NM_AREA_BORDER;
  }
  if (border_vertex) r |= NM_BORDER_VERTEX;
  return nm_ivec_push4(w->a, &w->raw, px, py, pz, r);
}

/* Walks the outline that starts at span i of column (x, y) with the region
 * on the right hand: at a boundary side emit a point and turn clockwise,
 * at an open side step across and turn counter-clockwise. Walked sides are
 * cleared from flags so each outline is traced once. */
static nm_status ct_walk(ct_work *w, int x, int y, int i) {
  const nm_chf *chf = w->chf;
  const int area = chf->areas[i], start_i = i;
  const long limit = 4L * chf->span_count + 16; /* each (span, side) state comes once */
  int dir = 0, start_dir;
  long iter;
  while (!(w->flags[i] & (1 << dir))) dir++; /* start on a side still to walk */
  start_dir = dir;
  for (iter = 0; iter < limit; iter++) {
    if (w->flags[i] & (1 << dir)) {
      if (ct_emit_point(w, x, y, i, dir, area) != NM_OK) return NM_ERR_NOMEM;
      w->flags[i] = (uint8_t)(w->flags[i] & ~(1 << dir));
      dir = (dir + 1) & 3;
    } else {
      const int ni = ct_neighbour(chf, x, y, i, dir);
      if (ni < 0) return NM_OK; /* cannot happen on a sane field */
      i = ni;
      x += nm_dir_dx(dir);
      y += nm_dir_dy(dir);
      dir = (dir + 3) & 3;
    }
    if (i == start_i && dir == start_dir) break;
  }
  return NM_OK;
}

/* ---- stage: simplification ---- */

/* Inserts raw point ri of the raw outline at position pos of the simplified
 * outline. Until ct_finish_flags the 4th int of a simplified point is the
 * index of its raw point, which the refinement walks from. */
static nm_status ct_insert(ct_work *w, int pos, int ri) {
  const int *r = &w->raw.v[ri * 4];
  int *d;
  if (nm_ivec_reserve(w->a, &w->simp, w->simp.n + 4) != NM_OK) return NM_ERR_NOMEM;
  d = &w->simp.v[pos * 4];
  memmove(d + 4, d, sizeof(int) * (size_t)(w->simp.n - pos * 4));
  d[0] = r[0]; d[1] = r[1]; d[2] = r[2]; d[3] = ri;
  w->simp.n += 4;
  return NM_OK;
}

/* Starting points of the simplification: every raw point after which the
 * neighbour region or the area border flag changes; for an outline without
 * neighbours (an island) the lower-left and upper-right points. */
static nm_status ct_seed(ct_work *w) {
  const int *p = w->raw.v;
  const int pn = w->raw.n / 4;
  int i, has_conn = 0, ll = 0, ur = 0;
  for (i = 0; i < pn && !has_conn; i++) has_conn = (p[i * 4 + 3] & NM_CONTOUR_REG_MASK) != 0;
  /* region-to-region stretches are fixed by their end points: keep every
   * change of neighbour so both sides of a shared edge agree */
  if (has_conn)
    for (i = 0; i < pn; i++) {
      const int a = p[i * 4 + 3], b = p[((i + 1) % pn) * 4 + 3];
      if ((a & NM_CONTOUR_REG_MASK) != (b & NM_CONTOUR_REG_MASK) || (a & NM_AREA_BORDER) != (b & NM_AREA_BORDER))
        if (ct_insert(w, w->simp.n / 4, i) != NM_OK) return NM_ERR_NOMEM;
    }
  if (w->simp.n > 0) return NM_OK;
  /* an island: two far apart points give the refinement something to split */
  for (i = 1; i < pn; i++) {
    const int *v = &p[i * 4];
    if (v[0] < p[ll * 4] || (v[0] == p[ll * 4] && v[2] < p[ll * 4 + 2])) ll = i;
    if (v[0] > p[ur * 4] || (v[0] == p[ur * 4] && v[2] > p[ur * 4 + 2])) ur = i;
  }
  if (ct_insert(w, 0, ll) != NM_OK || ct_insert(w, 1, ur) != NM_OK) return NM_ERR_NOMEM;
  return NM_OK;
}

/* The raw point between simplified points i and i+1 that lies farthest from
 * their segment, or -1. Only wall and area-border stretches are refined
 * (edges shared with another region are already exact); the stretch is
 * always scanned in the same lexical direction so the two regions on either
 * side of an edge pick the same points. */
static int ct_farthest(const ct_work *w, int i, float *maxd) {
  const int *p = w->raw.v, *s = w->simp.v;
  const int pn = w->raw.n / 4, n = w->simp.n / 4;
  const int *sa = &s[i * 4], *sb = &s[((i + 1) % n) * 4];
  int ax = sa[0], az = sa[2], bx = sb[0], bz = sb[2];
  int ci, cinc, endi, maxi = -1;
  /* walk a -> b forwards when a is lexically smaller, else b -> a backwards */
  if (bx > ax || (bx == ax && bz > az)) {
    cinc = 1; ci = (sa[3] + 1) % pn; endi = sb[3];
  } else {
    int t;
    cinc = pn - 1; ci = (sb[3] + cinc) % pn; endi = sa[3];
    t = ax; ax = bx; bx = t;
    t = az; az = bz; bz = t;
  }
  *maxd = 0;
  /* the first point of the stretch tells what the stretch faces */
  if ((p[ci * 4 + 3] & NM_CONTOUR_REG_MASK) != 0 && !(p[ci * 4 + 3] & NM_AREA_BORDER)) return -1;
  for (; ci != endi; ci = (ci + cinc) % pn) {
    const float d = nm_dist_pt_seg_cells(p[ci * 4], p[ci * 4 + 2], ax, az, bx, bz);
    if (d > *maxd) { *maxd = d; maxi = ci; }
  }
  return maxi;
}

/* Inserts raw points until every raw point is within max_error cells of
 * the simplified outline. */
static nm_status ct_refine(ct_work *w) {
  const float err2 = w->max_error * w->max_error;
  int i = 0;
  while (i < w->simp.n / 4) {
    float maxd;
    const int maxi = ct_farthest(w, i, &maxd);
    if (maxi != -1 && maxd > err2) {
      if (ct_insert(w, i + 1, maxi) != NM_OK) return NM_ERR_NOMEM;
    } else {
      i++;
    }
  }
  return NM_OK;
}

/* Splits wall edges longer than max_edge_len at the middle raw point
 * (rounded consistently with the lexical order of the end points), again
 * until no wall edge is too long. Only walls are split (Recast's default
 * RC_CONTOUR_TESS_WALL_EDGES): an edge shared with another region must keep
 * the same vertices in both outlines, and there is nothing to stitch to. */
static nm_status ct_split_long(ct_work *w) {
  const int pn = w->raw.n / 4, lim = w->max_edge_len;
  int i = 0;
  while (i < w->simp.n / 4) {
    const int n = w->simp.n / 4;
    const int *sa = &w->simp.v[i * 4], *sb = &w->simp.v[((i + 1) % n) * 4];
    const int ai = sa[3], bi = sb[3], dx = sb[0] - sa[0], dz = sb[2] - sa[2];
    int maxi = -1;
    if ((w->raw.v[((ai + 1) % pn) * 4 + 3] & NM_CONTOUR_REG_MASK) == 0 && dx * dx + dz * dz > lim * lim) {
      const int m = bi < ai ? bi + pn - ai : bi - ai; /* raw points from a to b */
      if (m > 1) maxi = (dx > 0 || (dx == 0 && dz > 0)) ? (ai + m / 2) % pn : (ai + (m + 1) / 2) % pn;
    }
    if (maxi != -1) {
      if (ct_insert(w, i + 1, maxi) != NM_OK) return NM_ERR_NOMEM;
    } else {
      i++;
    }
  }
  return NM_OK;
}

/* Replaces the raw index kept in each simplified point by its flags: the
 * neighbour region and area flag of the edge that starts there (taken from
 * the next raw point) and the border-vertex flag of the point itself. */
static void ct_finish_flags(ct_work *w) {
  const int pn = w->raw.n / 4;
  int i;
  for (i = 0; i < w->simp.n / 4; i++) {
    const int bi = w->simp.v[i * 4 + 3], ai = (bi + 1) % pn;
    w->simp.v[i * 4 + 3] = (w->raw.v[ai * 4 + 3] & (NM_CONTOUR_REG_MASK | NM_AREA_BORDER)) |
                           (w->raw.v[bi * 4 + 3] & NM_BORDER_VERTEX);
  }
}

/* Drops points that coincide (in X/Z) with the next one. As in Recast the
 * scan moves on after a removal, so a run of three keeps one duplicate
 * (the poly mesh copes with it). */
static void ct_remove_degenerate(nm_ivec *s) {
  int i, npts = s->n / 4;
  for (i = 0; i < npts; i++) {
    const int ni = i + 1 < npts ? i + 1 : 0;
    if (nm_i2_equal(&s->v[i * 4], &s->v[ni * 4])) {
      memmove(&s->v[i * 4], &s->v[(i + 1) * 4], sizeof(int) * 4 * (size_t)(npts - i - 1));
      s->n -= 4;
      npts--;
    }
  }
}

/* Simplifies w->raw into w->simp (see the file comment for the steps). */
static nm_status ct_simplify(ct_work *w) {
  w->simp.n = 0;
  if (w->raw.n == 0) return NM_OK;
  if (ct_seed(w) != NM_OK || ct_refine(w) != NM_OK) return NM_ERR_NOMEM;
  if (w->max_edge_len > 0 && ct_split_long(w) != NM_OK) return NM_ERR_NOMEM;
  ct_finish_flags(w);
  ct_remove_degenerate(&w->simp);
  return NM_OK;
}

/* ---- stage: storing contours ---- */

/* Copies n points of src to a new array, moving them out of the border. */
static int *ct_copy_points(const nm_alloc *a, const int *src, int n, int border) {
  int *d = (int *)nm_malloc(a, sizeof(int) * 4 * (size_t)n);
  int i;
  if (!d) return NULL;
  memcpy(d, src, sizeof(int) * 4 * (size_t)n);
  for (i = 0; i < n; i++) { /* tile border off: (0, 0) is the tile's corner */
    d[i * 4] -= border;
    d[i * 4 + 2] -= border;
  }
  return d;
}

/* Frees one contour's point arrays (exact sizes from the counts). */
static void ct_contour_free(const nm_alloc *a, nm_contour *c) {
  nm_free(a, c->verts, sizeof(int) * 4 * (size_t)c->nverts);
  nm_free(a, c->rverts, sizeof(int) * 4 * (size_t)c->nrverts);
  c->verts = c->rverts = NULL;
  c->nverts = c->nrverts = 0;
}

/* Keeps the simplified and raw outline just traced as a new contour. */
static nm_status ct_store(ct_work *w, uint16_t reg, uint8_t area) {
  const int bs = w->chf->border_size;
  nm_contour *c;
  if (w->nconts == w->cap) {
    const int ncap = w->cap ? w->cap * 2 : 16;
    nm_contour *p = (nm_contour *)nm_realloc(w->a, w->conts, sizeof(nm_contour) * (size_t)w->cap,
                                             sizeof(nm_contour) * (size_t)ncap);
    if (!p) return NM_ERR_NOMEM;
    w->conts = p;
    w->cap = ncap;
  }
  c = &w->conts[w->nconts];
  memset(c, 0, sizeof *c);
  c->verts = ct_copy_points(w->a, w->simp.v, w->simp.n / 4, bs);
  c->rverts = c->verts ? ct_copy_points(w->a, w->raw.v, w->raw.n / 4, bs) : NULL;
  if (!c->verts || !c->rverts) {
    nm_free(w->a, c->verts, sizeof(int) * (size_t)w->simp.n);
    return NM_ERR_NOMEM;
  }
  c->nverts = w->simp.n / 4;
  c->nrverts = w->raw.n / 4;
  c->reg = reg;
  c->area = area;
  w->nconts++;
  return NM_OK;
}

/* Traces, simplifies and stores every outline of every region. */
static nm_status ct_trace_all(ct_work *w) {
  const nm_chf *chf = w->chf;
  int x, y, i;
  ct_mark_boundaries(chf, w->flags);
  for (y = 0; y < chf->height; y++)
    for (x = 0; x < chf->width; x++) {
      const nm_ccell *c = &chf->cells[x + y * chf->width];
      const int end = (int)(c->index + c->count);
      for (i = (int)c->index; i < end; i++) {
        /* a span with unwalked sides starts a new outline: an outer one, or
         * later a hole of a region already traced */
        if (w->flags[i] == 0) continue;
        w->raw.n = 0;
        if (ct_walk(w, x, y, i) != NM_OK || ct_simplify(w) != NM_OK) return NM_ERR_NOMEM;
        /* fewer than three points left: nothing to make polygons of */
        if (w->simp.n / 4 >= 3 && ct_store(w, chf->spans[i].reg, chf->areas[i]) != NM_OK) return NM_ERR_NOMEM;
      }
    }
  return NM_OK;
}

/* ---- stage: holes ---- */

/* Twice the signed X/Z area, rounded like Recast: > 0 for an outer outline
 * (clockwise in x-right/z-down), < 0 for a hole. */
static int ct_signed_area(const int *v, int n) {
  int area = 0, i, j;
  for (i = 0, j = n - 1; i < n; j = i++) area += v[i * 4] * v[j * 4 + 2] - v[j * 4] * v[i * 4 + 2];
  return (area + 1) / 2;
}

/* A hole waiting to be merged, with its leftmost vertex (the sort key). */
typedef struct ct_hole {
  int cont, minx, minz, leftmost;
} ct_hole;

/* A candidate bridge: outline vertex and squared length. */
typedef struct ct_diag {
  int vert, dist;
} ct_diag;

/* Orders holes left to right (ties: lower z, then contour index, so the
 * order never depends on qsort). */
static int ct_cmp_hole(const void *pa, const void *pb) {
  const ct_hole *a = (const ct_hole *)pa, *b = (const ct_hole *)pb;
  if (a->minx != b->minx) return a->minx < b->minx ? -1 : 1;
  if (a->minz != b->minz) return a->minz < b->minz ? -1 : 1;
  return (a->cont > b->cont) - (a->cont < b->cont);
}

/* Shortest bridge first; ties keep outline order (a stable sort's). */
static int ct_cmp_diag(const void *pa, const void *pb) {
  const ct_diag *a = (const ct_diag *)pa, *b = (const ct_diag *)pb;
  if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
  return (a->vert > b->vert) - (a->vert < b->vert);
}

/* The segment d0-d1 crosses an edge of the outline verts[n] other than the
 * edges at vertex skip and edges sharing an end point with it. */
static int ct_seg_hits(const int *d0, const int *d1, int skip, const int *verts, int n) {
  int k;
  for (k = 0; k < n; k++) {
    const int k1 = k + 1 < n ? k + 1 : 0;
    const int *p0 = &verts[k * 4], *p1 = &verts[k1 * 4];
    if (skip == k || skip == k1) continue;
    if (nm_i2_equal(d0, p0) || nm_i2_equal(d1, p0) || nm_i2_equal(d0, p1) || nm_i2_equal(d1, p1)) continue;
    if (nm_i2_intersect(d0, d1, p0, p1)) return 1;
  }
  return 0;
}

/* Splices hole hb into outline ca along the bridge ia <-> ib: the outline
 * from ia around to ia again, then the hole from ib around to ib again. */
static nm_status ct_splice(const nm_alloc *a, nm_contour *ca, nm_contour *cb, int ia, int ib) {
  const int n = ca->nverts + cb->nverts + 2;
  int *v = (int *)nm_malloc(a, sizeof(int) * 4 * (size_t)n);
  int i, k = 0;
  if (!v) return NM_ERR_NOMEM;
  /* both start points appear twice: the bridge is walked there and back */
  for (i = 0; i <= ca->nverts; i++, k++) memcpy(&v[k * 4], &ca->verts[((ia + i) % ca->nverts) * 4], sizeof(int) * 4);
  for (i = 0; i <= cb->nverts; i++, k++) memcpy(&v[k * 4], &cb->verts[((ib + i) % cb->nverts) * 4], sizeof(int) * 4);
  nm_free(a, ca->verts, sizeof(int) * 4 * (size_t)ca->nverts);
  nm_free(a, cb->verts, sizeof(int) * 4 * (size_t)cb->nverts);
  ca->verts = v;
  ca->nverts = n;
  cb->verts = NULL;
  cb->nverts = 0;
  return NM_OK;
}

/* Finds the bridge for hole h (of holes[h..nholes-1] still unmerged): from
 * the hole's leftmost vertex (then the next ones) to the closest outline
 * vertex whose cone contains it and whose segment crosses neither the
 * outline nor a remaining hole. Returns the outline vertex or -1. */
static int ct_find_bridge(const ct_work *w, const nm_contour *outline, const ct_hole *holes, int h, int nholes,
                          ct_diag *diags, int *hole_vert) {
  const nm_contour *hole = &w->conts[holes[h].cont];
  const int no = outline->nverts;
  int best = holes[h].leftmost, iter, j, k;
  for (iter = 0; iter < hole->nverts; iter++) {
    const int *corner = &hole->verts[best * 4];
    int nd = 0;
    /* candidates: outline vertices that see the corner inside their cone */
    for (j = 0; j < no; j++) {
      const int *v = &outline->verts[j * 4];
      if (nm_i2_in_cone(&outline->verts[((j + no - 1) % no) * 4], v, &outline->verts[((j + 1) % no) * 4], corner)) {
        const int dx = v[0] - corner[0], dz = v[2] - corner[2];
        diags[nd].vert = j;
        diags[nd++].dist = dx * dx + dz * dz;
      }
    }
    qsort(diags, (size_t)nd, sizeof(ct_diag), ct_cmp_diag);
    /* the shortest one that crosses neither the outline nor a hole still
     * to merge (merged holes are part of the outline by now) */
    for (j = 0; j < nd; j++) {
      const int *pt = &outline->verts[diags[j].vert * 4];
      int hit = ct_seg_hits(pt, corner, diags[j].vert, outline->verts, no);
      for (k = h; k < nholes && !hit; k++)
        hit = ct_seg_hits(pt, corner, -1, w->conts[holes[k].cont].verts, w->conts[holes[k].cont].nverts);
      if (!hit) {
        *hole_vert = best;
        return diags[j].vert;
      }
    }
    best = (best + 1) % hole->nverts; /* every bridge crossed: try the next corner */
  }
  return -1;
}

/* Merges the holes of one region, left to right, into its outline. A hole
 * without a possible bridge is left as it is (Recast does the same). */
static nm_status ct_merge_region(ct_work *w, int outline, ct_hole *holes, int nholes) {
  nm_contour *out = &w->conts[outline];
  int i, j, maxv = out->nverts;
  ct_diag *diags;
  for (i = 0; i < nholes; i++) {
    const nm_contour *h = &w->conts[holes[i].cont];
    holes[i].leftmost = 0;
    holes[i].minx = h->verts[0];
    holes[i].minz = h->verts[2];
    for (j = 1; j < h->nverts; j++)
      if (h->verts[j * 4] < holes[i].minx || (h->verts[j * 4] == holes[i].minx && h->verts[j * 4 + 2] < holes[i].minz)) {
        holes[i].minx = h->verts[j * 4];
        holes[i].minz = h->verts[j * 4 + 2];
        holes[i].leftmost = j;
      }
    maxv += h->nverts + 2;
  }
  /* left to right, each bridged from its leftmost vertex: the holes on its
   * left are part of the outline by then, so a short bridge can end on them */
  qsort(holes, (size_t)nholes, sizeof(ct_hole), ct_cmp_hole);
  diags = (ct_diag *)nm_malloc(w->a, sizeof(ct_diag) * (size_t)maxv); /* outline size after all merges */
  if (!diags) return NM_ERR_NOMEM;
  for (i = 0; i < nholes; i++) {
    int hv = 0;
    const int ov = ct_find_bridge(w, out, holes, i, nholes, diags, &hv);
    if (ov >= 0 && ct_splice(w->a, out, &w->conts[holes[i].cont], ov, hv) != NM_OK) {
      nm_free(w->a, diags, sizeof(ct_diag) * (size_t)maxv);
      return NM_ERR_NOMEM;
    }
  }
  nm_free(w->a, diags, sizeof(ct_diag) * (size_t)maxv);
  return NM_OK;
}

/* Groups holes by region and merges each group into its outline (the last
 * outer outline of the region if there are several; a hole without one
 * stays as it is). */
static nm_status ct_merge_holes(ct_work *w) {
  int i, j, nreg = 0, nholes = 0;
  int *outline = NULL;
  ct_hole *holes;
  nm_status st = NM_OK;
  for (i = 0; i < w->nconts; i++) {
    nreg = nm_maxi(nreg, w->conts[i].reg + 1);
    if (ct_signed_area(w->conts[i].verts, w->conts[i].nverts) < 0) nholes++;
  }
  if (nholes == 0) return NM_OK;
  holes = (ct_hole *)nm_malloc(w->a, sizeof(ct_hole) * (size_t)nholes);
  outline = holes ? (int *)nm_malloc(w->a, sizeof(int) * (size_t)nreg) : NULL;
  if (!outline) {
    nm_free(w->a, holes, sizeof(ct_hole) * (size_t)nholes);
    return NM_ERR_NOMEM;
  }
  for (i = 0; i < nreg; i++) outline[i] = -1;
  for (i = 0, j = 0; i < w->nconts; i++) {
    if (ct_signed_area(w->conts[i].verts, w->conts[i].nverts) >= 0) {
      outline[w->conts[i].reg] = i;
    } else {
      holes[j].cont = i;
      holes[j].minx = w->conts[i].reg; /* sort key until ct_merge_region */
      holes[j].minz = holes[j].leftmost = 0;
      j++;
    }
  }
  qsort(holes, (size_t)nholes, sizeof(ct_hole), ct_cmp_hole); /* groups by region */
  for (i = 0; i < nholes && st == NM_OK; i = j) {
    const int reg = w->conts[holes[i].cont].reg;
    for (j = i + 1; j < nholes && w->conts[holes[j].cont].reg == reg; j++) {}
    if (outline[reg] >= 0) st = ct_merge_region(w, outline[reg], &holes[i], j - i);
  }
  nm_free(w->a, outline, sizeof(int) * (size_t)nreg);
  nm_free(w->a, holes, sizeof(ct_hole) * (size_t)nholes);
  return st;
}

/* ---- entry points ---- */

/* Drops the contours emptied by hole merging and trims the array to its
 * exact size (the set frees it with nconts). */
static nm_status ct_finish(ct_work *w, nm_contour_set *cset) {
  int i, n = 0;
  for (i = 0; i < w->nconts; i++) {
    if (w->conts[i].nverts == 0) ct_contour_free(w->a, &w->conts[i]);
    else w->conts[n++] = w->conts[i];
  }
  w->nconts = n;
  if (n == 0) {
    nm_free(w->a, w->conts, sizeof(nm_contour) * (size_t)w->cap);
    w->conts = NULL;
    w->cap = 0;
  } else if (n < w->cap) {
    nm_contour *p = (nm_contour *)nm_realloc(w->a, w->conts, sizeof(nm_contour) * (size_t)w->cap,
                                             sizeof(nm_contour) * (size_t)n);
    if (!p) return NM_ERR_NOMEM;
    w->conts = p;
    w->cap = n;
  }
  cset->conts = w->conts;
  cset->nconts = n;
  return NM_OK;
}

/* Bounds, cell sizes and grid size of the set, the tile border removed. */
static void ct_set_bounds(const nm_chf *chf, float max_error, nm_contour_set *cset) {
  const int bs = chf->border_size;
  const float pad = (float)bs * chf->cs;
  nm_vcopy(cset->bmin, chf->bmin);
  nm_vcopy(cset->bmax, chf->bmax);
  if (bs > 0) {
    cset->bmin[0] += pad;
    cset->bmin[2] += pad;
    cset->bmax[0] -= pad;
    cset->bmax[2] -= pad;
  }
  cset->cs = chf->cs;
  cset->ch = chf->ch;
  cset->width = chf->width - bs * 2;
  cset->height = chf->height - bs * 2;
  cset->border_size = bs;
  cset->max_error = max_error;
}

/* See nm_build.h. max_error in cells ([Limit: >= 0]), max_edge_len in cells
 * (0: no splitting). NM_ERR_PARAM for bad arguments, NM_ERR_NOMEM with
 * nothing allocated. An empty field gives an empty set. */
nm_status nm_contours_build(const nm_chf *chf, float max_error, int max_edge_len, const nm_alloc *a,
                            nm_contour_set *cset) {
  ct_work w;
  nm_status st;
  int i;
  if (!chf || !cset) return NM_ERR_PARAM;
  memset(cset, 0, sizeof *cset);
  cset->a = nm_alloc_resolve(a);
  if (!(max_error >= 0.0f) || max_edge_len < 0 || chf->width < 0 || chf->height < 0 || chf->span_count < 0)
    return NM_ERR_PARAM;
  ct_set_bounds(chf, max_error, cset);
  memset(&w, 0, sizeof w);
  w.chf = chf;
  w.a = &cset->a;
  w.max_error = max_error;
  w.max_edge_len = max_edge_len;
  w.flags = (uint8_t *)nm_malloc(w.a, (size_t)chf->span_count);
  st = (chf->span_count > 0 && !w.flags) ? NM_ERR_NOMEM : NM_OK;
  if (st == NM_OK && chf->span_count > 0) st = ct_trace_all(&w);
  if (st == NM_OK) st = ct_merge_holes(&w);
  if (st == NM_OK) st = ct_finish(&w, cset);
  nm_free(w.a, w.flags, (size_t)chf->span_count);
  nm_ivec_free(w.a, &w.raw);
  nm_ivec_free(w.a, &w.simp);
  if (st != NM_OK) {
    for (i = 0; i < w.nconts; i++) ct_contour_free(w.a, &w.conts[i]);
    nm_free(w.a, w.conts, sizeof(nm_contour) * (size_t)w.cap);
    cset->conts = NULL;
    cset->nconts = 0;
  }
  return st;
}

/* Frees the contours; the struct may be reused. */
void nm_contours_free(nm_contour_set *cset) {
  int i;
  if (!cset) return;
  for (i = 0; i < cset->nconts; i++) ct_contour_free(&cset->a, &cset->conts[i]);
  nm_free(&cset->a, cset->conts, sizeof(nm_contour) * (size_t)cset->nconts);
  cset->conts = NULL;
  cset->nconts = 0;
}
