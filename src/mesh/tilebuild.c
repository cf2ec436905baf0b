/* tilebuild.c -- creating a Detour tile blob from a convex polygon mesh.
 *
 * This is the last step of a Recast build and the whole of a hand-made level:
 * polygons (with optional detail triangles and off-mesh connections) become
 * one version-7 tile with vertices, polygons, neighbour slots, detail mesh,
 * a bounding-volume tree over the polygons and off-mesh records.
 * Polygons are stored clockwise as seen from above (Recast's winding, which
 * the funnel relies on); shared edges become internal neighbours; edges on the
 * tile square can become portals to the next tile. */
#include <math.h>
#include <stdlib.h>
#include "nm_mesh.h"

/* Everything derived from the input before the blob is written. */
typedef struct tb_work {
  const nm_poly_mesh_input *in;
  nm_alloc a;
  uint16_t *polys;    /* [npolys * 6] vertex indices in stored order */
  uint16_t *neis;     /* [npolys * 6] Detour neighbour values */
  uint8_t *nv;        /* [npolys] vertex count */
  uint8_t *flip;      /* [npolys] 1 when the input order was reversed */
  float bmin[3], bmax[3];
  int nstored_off;    /* off-mesh connections stored in this tile */
  uint8_t *off_class; /* [noffmesh * 2] side class of start and end */
  int ndverts, ndtris, edge_count, portal_count, off_links;
} tb_work;

/* ---- checking the input ---- */

/* Vertex count of polygon record i (slots until the first 0xffff). */
static int record_nv(const nm_poly_mesh_input *in, int i) {
  const uint16_t *p = &in->polys[i * in->nvp];
  int n = 0;
  while (n < in->nvp && p[n] != 0xffff) n++;
  return n;
}

/* Signed X/Z area (shoelace) of polygon record i; < 0 is Recast's winding.
 * Taken relative to the first vertex: far from the origin (5000 wu, say)
 * absolute products would cancel away the area of small polygons. */
static float record_area(const nm_poly_mesh_input *in, int i, int n) {
  const uint16_t *p = &in->polys[i * in->nvp];
  const float *o = &in->verts[p[0] * 3];
  float a = 0;
  int j;
  for (j = 1; j + 1 < n; j++) {
    const float *u = &in->verts[p[j] * 3], *v = &in->verts[p[j + 1] * 3];
    a += (u[0] - o[0]) * (v[2] - o[2]) - (v[0] - o[0]) * (u[2] - o[2]);
  }
  return a * 0.5f;
}

/* Convex in X/Z (collinear corners allowed), given its winding sign. */
static int record_convex(const nm_poly_mesh_input *in, int i, int n, float sign) {
  const uint16_t *p = &in->polys[i * in->nvp];
  int j;
  for (j = 0; j < n; j++) {
    const float *a = &in->verts[p[j] * 3], *b = &in->verts[p[(j + 1) % n] * 3];
    const float *c = &in->verts[p[(j + 2) % n] * 3];
    const float cross = (b[0] - a[0]) * (c[2] - b[2]) - (b[2] - a[2]) * (c[0] - b[0]);
    const float scale = fabsf(b[0] - a[0]) + fabsf(b[2] - a[2]) + fabsf(c[0] - b[0]) + fabsf(c[2] - b[2]);
    if (cross * sign > 1e-5f * scale * scale) return 0;
  }
  return 1;
}

/* One polygon record: count, indices, distinct vertices, area, convexity. */
static nm_status check_record(const nm_poly_mesh_input *in, int i, nm_diag *diag) {
  const uint16_t *p = &in->polys[i * in->nvp];
  int n = record_nv(in, i), j, k;
  float area;
  if (n < 3) return nm_diag_set(diag, NM_ERR_PARAM, "polygons", "polygon %d has %d vertices (needs 3)", i + 1, n);
  for (j = n; j < in->nvp; j++)
    if (p[j] != 0xffff) return nm_diag_set(diag, NM_ERR_PARAM, "polygons", "polygon %d has a gap in its vertex list", i + 1);
  for (j = 0; j < n; j++) {
    if (p[j] >= in->nverts)
      return nm_diag_set(diag, NM_ERR_PARAM, "polygons", "polygon %d: vertex index out of range", i + 1);
    for (k = j + 1; k < n; k++)
      if (p[j] == p[k]) return nm_diag_set(diag, NM_ERR_PARAM, "polygons", "polygon %d repeats a vertex", i + 1);
  }
  area = record_area(in, i, n);
  if (!(fabsf(area) > 0)) return nm_diag_set(diag, NM_ERR_PARAM, "polygons", "polygon %d has no area in X/Z", i + 1);
  if (!record_convex(in, i, n, area < 0 ? 1.0f : -1.0f))
    return nm_diag_set(diag, NM_ERR_PARAM, "polygons", "polygon %d is not convex", i + 1);
  return NM_OK;
}

/* Whole-input checks that need no allocation. */
static nm_status check_input(const nm_poly_mesh_input *in, nm_diag *diag) {
  int i;
  nm_status st;
  if (!in || !in->verts || !in->polys) return nm_diag_set(diag, NM_ERR_PARAM, "vertices", "missing vertices or polygons");
  if (in->npolys <= 0) return nm_diag_set(diag, NM_ERR_EMPTY, "polygons", "no polygons");
  if (in->nverts < 3 || in->nverts > 65535) return nm_diag_set(diag, NM_ERR_PARAM, "vertices", "vertex count must be 3..65535");
  if (in->nvp < 3 || in->nvp > NM_MAX_VERTS_PER_POLY) return nm_diag_set(diag, NM_ERR_PARAM, "nvp", "vertices per polygon must be 3..6");
  if (in->npolys + in->noffmesh > 65535) return nm_diag_set(diag, NM_ERR_PARAM, "polygons", "more than 65535 polygons in one tile");
  for (i = 0; i < in->nverts * 3; i++)
    if (!nm_coord_ok(in->verts[i])) return nm_diag_set(diag, NM_ERR_PARAM, "vertices", "vertex %d is not finite or beyond 1e12", i / 3 + 1);
  for (i = 0; i < in->npolys; i++) {
    if ((st = check_record(in, i, diag)) < 0) return st;
    if (in->areas && in->areas[i] >= NM_MAX_AREAS) return nm_diag_set(diag, NM_ERR_PARAM, "areas", "area of polygon %d must be < 64", i + 1);
  }
  if (in->noffmesh < 0 || (in->noffmesh > 0 && !in->offmesh)) return nm_diag_set(diag, NM_ERR_PARAM, "offMeshConnections", "bad off-mesh list");
  for (i = 0; i < in->noffmesh; i++) {
    const nm_offmesh_link *o = &in->offmesh[i];
    if (!nm_coords_ok(o->start, 3) || !nm_coords_ok(o->end, 3) || !(o->radius > 0) || !nm_coord_ok(o->radius) || o->area >= NM_MAX_AREAS)
      return nm_diag_set(diag, NM_ERR_PARAM, "offMeshConnections", "off-mesh connection %d is malformed", i + 1);
  }
  if (!nm_coord_ok(in->walkable_climb) || in->walkable_climb < 0 || !nm_coord_ok(in->walkable_height) ||
      !nm_coord_ok(in->walkable_radius) || !isfinite(in->cell_size) || in->cell_size < 0)
    return nm_diag_set(diag, NM_ERR_PARAM, "walkableClimb", "agent sizes and cell size must be finite and >= 0");
  if (in->cell_size > 0 && !(1.0f / in->cell_size <= 1e30f))
    return nm_diag_set(diag, NM_ERR_PARAM, "cellSize", "cell size too small (its inverse overflows)");
  if (in->bmin[0] <= in->bmax[0] && in->bmin[1] <= in->bmax[1] && in->bmin[2] <= in->bmax[2] &&
      !(nm_coords_ok(in->bmin, 3) && nm_coords_ok(in->bmax, 3) && in->bmin[0] < in->bmax[0] &&
        in->bmin[2] < in->bmax[2]))
    return nm_diag_set(diag, NM_ERR_PARAM, "bmin", "tile bounds must be finite, within 1e12 and wider than 0 in x and z");
  return NM_OK;
}

/* Detail input: ranges inside the arrays, counts that fit a byte. */
static nm_status check_detail(const nm_poly_mesh_input *in, const tb_work *w, nm_diag *diag) {
  int i, k;
  if (!in->dmeshes) return NM_OK;
  if (!in->dverts || !in->dtris || in->ndverts < 0 || in->ndtris < 0)
    return nm_diag_set(diag, NM_ERR_PARAM, "detail", "detail mesh arrays missing");
  for (i = 0; i < in->ndverts * 3; i++)
    if (!nm_coord_ok(in->dverts[i])) return nm_diag_set(diag, NM_ERR_PARAM, "detail", "detail vertex not finite or beyond 1e12");
  for (i = 0; i < in->npolys; i++) {
    const uint32_t *d = &in->dmeshes[i * 4];
    const int nv = w->nv[i];
    if (d[1] < (uint32_t)nv || d[1] - nv > 255 || d[3] > 255 || d[0] > (uint32_t)in->ndverts ||
        d[1] > (uint32_t)in->ndverts - d[0] || d[2] > (uint32_t)in->ndtris || d[3] > (uint32_t)in->ndtris - d[2])
      return nm_diag_set(diag, NM_ERR_PARAM, "detail", "detail mesh of polygon %d out of range", i + 1);
    for (k = 0; k < (int)d[3] * 4; k++)
      if ((k & 3) != 3 && in->dtris[(d[2] * 4) + (uint32_t)k] >= d[1])
        return nm_diag_set(diag, NM_ERR_PARAM, "detail", "detail triangle of polygon %d out of range", i + 1);
  }
  return NM_OK;
}

/* ---- deriving the tile ---- */

/* Copies the polygons into stored (clockwise from above) order. */
static void store_polys(tb_work *w) {
  const nm_poly_mesh_input *in = w->in;
  int i, j;
  for (i = 0; i < in->npolys; i++) {
    const uint16_t *p = &in->polys[i * in->nvp];
    const int n = record_nv(in, i);
    w->nv[i] = (uint8_t)n;
    w->flip[i] = record_area(in, i, n) > 0;
    for (j = 0; j < n; j++) w->polys[i * 6 + j] = p[w->flip[i] ? n - 1 - j : j];
  }
}

/* One undirected edge occurrence, for pairing shared edges. */
typedef struct tb_edge {
  uint16_t lo, hi;
  uint16_t poly;
  uint8_t edge;
} tb_edge;

static int edge_cmp(const void *a, const void *b) {
  const tb_edge *x = (const tb_edge *)a, *y = (const tb_edge *)b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
  if (x->poly != y->poly) return x->poly < y->poly ? -1 : 1;
  return x->edge < y->edge ? -1 : (x->edge > y->edge);
}

/* Portal side (Detour's 0 +x, 2 +z, 4 -x, 6 -z) of an edge lying on the tile
 * square, or -1. */
static int border_side(const tb_work *w, const float *a, const float *b) {
  const float eps = 1e-4f * (1.0f + fabsf(w->bmax[0] - w->bmin[0]) + fabsf(w->bmax[2] - w->bmin[2]));
  if (fabsf(a[0] - w->bmin[0]) < eps && fabsf(b[0] - w->bmin[0]) < eps) return 4;
  if (fabsf(a[0] - w->bmax[0]) < eps && fabsf(b[0] - w->bmax[0]) < eps) return 0;
  if (fabsf(a[2] - w->bmin[2]) < eps && fabsf(b[2] - w->bmin[2]) < eps) return 6;
  if (fabsf(a[2] - w->bmax[2]) < eps && fabsf(b[2] - w->bmax[2]) < eps) return 2;
  return -1;
}

/* Neighbours from shared edges (pairs of polygons using the same two
 * vertices), then portals on the tile square. */
static nm_status derive_neis(tb_work *w) {
  const nm_poly_mesh_input *in = w->in;
  int i, j, n = 0;
  tb_edge *e = (tb_edge *)nm_malloc(&w->a, nm_mul_size((size_t)in->npolys * 6, sizeof *e));
  if (!e) return NM_ERR_NOMEM;
  for (i = 0; i < in->npolys; i++)
    for (j = 0; j < w->nv[i]; j++) {
      uint16_t a = w->polys[i * 6 + j], b = w->polys[i * 6 + (j + 1) % w->nv[i]];
      e[n].lo = a < b ? a : b;
      e[n].hi = a < b ? b : a;
      e[n].poly = (uint16_t)i;
      e[n++].edge = (uint8_t)j;
    }
  qsort(e, (size_t)n, sizeof *e, edge_cmp);
  for (i = 0; i + 1 < n; i++) {
    if (e[i].lo != e[i + 1].lo || e[i].hi != e[i + 1].hi) continue;
    if (w->neis[e[i].poly * 6 + e[i].edge] == 0 && w->neis[e[i + 1].poly * 6 + e[i + 1].edge] == 0) {
      w->neis[e[i].poly * 6 + e[i].edge] = (uint16_t)(e[i + 1].poly + 1);
      w->neis[e[i + 1].poly * 6 + e[i + 1].edge] = (uint16_t)(e[i].poly + 1);
    }
    i++;
  }
  nm_free(&w->a, e, (size_t)in->npolys * 6 * sizeof *e);
  if (!in->border_portals) return NM_OK;
  for (i = 0; i < in->npolys; i++)
    for (j = 0; j < w->nv[i]; j++) {
      const float *a = &in->verts[w->polys[i * 6 + j] * 3];
      const float *b = &in->verts[w->polys[i * 6 + (j + 1) % w->nv[i]] * 3];
      int side;
      if (w->neis[i * 6 + j] == 0 && (side = border_side(w, a, b)) >= 0)
        w->neis[i * 6 + j] = (uint16_t)(NM_EXT_LINK | (unsigned)side);
    }
  return NM_OK;
}

/* Neighbours given in Recast's form (the polygons are then in Recast order). */
static nm_status given_neis(tb_work *w, nm_diag *diag) {
  static const uint16_t side_of_dir[4] = {4, 2, 0, 6}; /* Recast dir -> Detour side */
  const nm_poly_mesh_input *in = w->in;
  int i, j;
  for (i = 0; i < in->npolys; i++) {
    if (w->flip[i]) return nm_diag_set(diag, NM_ERR_PARAM, "neis", "polygon %d wound the wrong way for given neighbours", i + 1);
    for (j = 0; j < w->nv[i]; j++) {
      uint16_t v = in->neis[i * in->nvp + j];
      if (v == 0xffff) w->neis[i * 6 + j] = 0;
      else if (v & 0x8000) {
        unsigned dir = v & 0xf;
        w->neis[i * 6 + j] = dir < 4 ? (uint16_t)(NM_EXT_LINK | side_of_dir[dir]) : 0;
      } else if (v < in->npolys) {
        w->neis[i * 6 + j] = (uint16_t)(v + 1);
      } else {
        return nm_diag_set(diag, NM_ERR_PARAM, "neis", "polygon %d: neighbour out of range", i + 1);
      }
    }
  }
  return NM_OK;
}

/* Tile bounds: given, or the box of all vertices. */
static void derive_bounds(tb_work *w) {
  const nm_poly_mesh_input *in = w->in;
  int i;
  if (in->bmin[0] <= in->bmax[0] && in->bmin[1] <= in->bmax[1] && in->bmin[2] <= in->bmax[2]) {
    nm_vcopy(w->bmin, in->bmin);
    nm_vcopy(w->bmax, in->bmax);
    return;
  }
  nm_vcopy(w->bmin, in->verts);
  nm_vcopy(w->bmax, in->verts);
  for (i = 1; i < in->nverts; i++) {
    nm_vmin(w->bmin, &in->verts[i * 3]);
    nm_vmax(w->bmax, &in->verts[i * 3]);
  }
  for (i = 0; in->dmeshes && i < in->ndverts; i++) {
    nm_vmin(w->bmin, &in->dverts[i * 3]);
    nm_vmax(w->bmax, &in->dverts[i * 3]);
  }
}

/* Side class of an off-mesh end point against the tile box (0..7 neighbour,
 * 0xff inside), as Detour classifies them. */
static uint8_t classify_point(const float *pt, const float *bmin, const float *bmax) {
  int code = 0;
  code |= pt[0] >= bmax[0] ? 1 : 0;
  code |= pt[2] >= bmax[2] ? 2 : 0;
  code |= pt[0] < bmin[0] ? 4 : 0;
  code |= pt[2] < bmin[2] ? 8 : 0;
  switch (code) {
    case 1: return 0;
    case 1 | 2: return 1;
    case 2: return 2;
    case 4 | 2: return 3;
    case 4: return 4;
    case 4 | 8: return 5;
    case 8: return 6;
    case 1 | 8: return 7;
    default: return 0xff;
  }
}

/* Which off-mesh connections start in this tile; counts their links. */
static void classify_offmesh(tb_work *w) {
  const nm_poly_mesh_input *in = w->in;
  float bmin[3], bmax[3], hmin = FLT_MAX, hmax = -FLT_MAX;
  int i;
  for (i = 0; i < in->nverts; i++) {
    hmin = nm_minf(hmin, in->verts[i * 3 + 1]);
    hmax = nm_maxf(hmax, in->verts[i * 3 + 1]);
  }
  for (i = 0; in->dmeshes && i < in->ndverts; i++) {
    hmin = nm_minf(hmin, in->dverts[i * 3 + 1]);
    hmax = nm_maxf(hmax, in->dverts[i * 3 + 1]);
  }
  nm_vcopy(bmin, w->bmin);
  nm_vcopy(bmax, w->bmax);
  bmin[1] = hmin - in->walkable_climb;
  bmax[1] = hmax + in->walkable_climb;
  for (i = 0; i < in->noffmesh; i++) {
    const nm_offmesh_link *o = &in->offmesh[i];
    uint8_t c0 = classify_point(o->start, bmin, bmax), c1 = classify_point(o->end, bmin, bmax);
    if (c0 == 0xff && (o->start[1] < bmin[1] || o->start[1] > bmax[1])) c0 = 0;
    w->off_class[i * 2] = c0;
    w->off_class[i * 2 + 1] = c1;
    w->off_links += (c0 == 0xff) + (c1 == 0xff);
    w->nstored_off += c0 == 0xff;
  }
}

/* Counts edges, portals and detail sizes for the blob layout. */
static void count_sizes(tb_work *w) {
  const nm_poly_mesh_input *in = w->in;
  int i, j;
  for (i = 0; i < in->npolys; i++) {
    for (j = 0; j < w->nv[i]; j++) {
      w->edge_count++;
      if (w->neis[i * 6 + j] & NM_EXT_LINK) w->portal_count++;
    }
    if (in->dmeshes) {
      w->ndverts += (int)in->dmeshes[i * 4 + 1] - w->nv[i];
      w->ndtris += (int)in->dmeshes[i * 4 + 3];
    } else {
      w->ndtris += w->nv[i] - 2;
    }
  }
}

/* ---- writing ---- */

/* 1 when point p lies on segment a-b in X/Z (within a small tolerance). */
static int on_segment(const float *p, const float *a, const float *b) {
  float t;
  const float scale = 1e-3f * (1.0f + nm_vdist2d(a, b));
  return nm_dist_pt_seg_sqr2d(p, a, b, &t) < scale * scale;
}

/* Boundary flag (1) of detail edge u-v: both ends on one polygon edge. */
static int detail_edge_flag(const float *u, const float *v, const float *pv, int nv) {
  int j;
  for (j = 0; j < nv; j++)
    if (on_segment(u, &pv[j * 3], &pv[((j + 1) % nv) * 3]) && on_segment(v, &pv[j * 3], &pv[((j + 1) % nv) * 3]))
      return 1;
  return 0;
}

/* Writes the detail sub-meshes, vertices and triangles of every polygon. */
static void write_detail(const tb_work *w, nm_tile *t) {
  const nm_poly_mesh_input *in = w->in;
  uint32_t vbase = 0, tbase = 0;
  int i, k;
  for (i = 0; i < in->npolys; i++) {
    nm_poly_detail *pd = &t->dmeshes[i];
    const int nv = w->nv[i];
    float pv[NM_MAX_VERTS_PER_POLY * 3];
    for (k = 0; k < nv; k++) nm_vcopy(&pv[k * 3], &in->verts[w->polys[i * 6 + k] * 3]);
    pd->vert_base = vbase;
    pd->tri_base = tbase;
    if (!in->dmeshes) { /* fan over the polygon: (0, j-1, j) */
      pd->vert_count = 0;
      pd->tri_count = (uint8_t)(nv - 2);
      for (k = 2; k < nv; k++, tbase++) {
        uint8_t *tri = &t->dtris[tbase * 4];
        tri[0] = 0; tri[1] = (uint8_t)(k - 1); tri[2] = (uint8_t)k;
        tri[3] = (uint8_t)((1 << 2) | (k == 2 ? 1 : 0) | (k == nv - 1 ? (1 << 4) : 0));
      }
    } else {
      const uint32_t *d = &in->dmeshes[i * 4];
      const int extra = (int)d[1] - nv;
      pd->vert_count = (uint8_t)extra;
      pd->tri_count = (uint8_t)d[3];
      memcpy(&t->dverts[vbase * 3], &in->dverts[(d[0] + (uint32_t)nv) * 3], sizeof(float) * 3 * (size_t)extra);
      for (k = 0; k < (int)d[3]; k++, tbase++) {
        const uint8_t *s = &in->dtris[(d[2] + (uint32_t)k) * 4];
        uint8_t *tri = &t->dtris[tbase * 4];
        int c;
        for (c = 0; c < 3; c++) /* local index; polygon corners follow the stored order */
          tri[c] = (uint8_t)(s[c] < nv && w->flip[i] ? nv - 1 - s[c] : s[c]);
        if (in->dtri_flags_valid) {
          tri[3] = s[3];
        } else {
          const float *v[3];
          for (c = 0; c < 3; c++)
            v[c] = tri[c] < nv ? &pv[tri[c] * 3] : &t->dverts[(vbase + tri[c] - (uint32_t)nv) * 3];
          tri[3] = (uint8_t)(detail_edge_flag(v[0], v[1], pv, nv) | (detail_edge_flag(v[1], v[2], pv, nv) << 2) |
                             (detail_edge_flag(v[2], v[0], pv, nv) << 4));
        }
      }
      vbase += (uint32_t)extra;
    }
  }
}

/* BV item: quantised bounds of one polygon. */
typedef struct tb_item {
  uint16_t bmin[3], bmax[3];
  int i;
} tb_item;

/* qsort comparators: items by their minimum along one axis. */
static int item_cmp_x(const void *a, const void *b) {
  const tb_item *x = (const tb_item *)a, *y = (const tb_item *)b;
  return (x->bmin[0] > y->bmin[0]) - (x->bmin[0] < y->bmin[0]);
}
static int item_cmp_y(const void *a, const void *b) {
  const tb_item *x = (const tb_item *)a, *y = (const tb_item *)b;
  return (x->bmin[1] > y->bmin[1]) - (x->bmin[1] < y->bmin[1]);
}
static int item_cmp_z(const void *a, const void *b) {
  const tb_item *x = (const tb_item *)a, *y = (const tb_item *)b;
  return (x->bmin[2] > y->bmin[2]) - (x->bmin[2] < y->bmin[2]);
}

/* Builds the subtree over items[0..n) at nodes[*pos...] (pre-order). */
static void bv_subdivide(tb_item *items, int n, nm_bvnode *nodes, int *pos) {
  nm_bvnode *node = &nodes[(*pos)++];
  const int start = *pos - 1;
  int k, axis;
  if (n == 1) {
    memcpy(node->bmin, items[0].bmin, sizeof node->bmin);
    memcpy(node->bmax, items[0].bmax, sizeof node->bmax);
    node->i = items[0].i;
    return;
  }
  memcpy(node->bmin, items[0].bmin, sizeof node->bmin);
  memcpy(node->bmax, items[0].bmax, sizeof node->bmax);
  for (k = 1; k < n; k++) {
    int c;
    for (c = 0; c < 3; c++) {
      if (items[k].bmin[c] < node->bmin[c]) node->bmin[c] = items[k].bmin[c];
      if (items[k].bmax[c] > node->bmax[c]) node->bmax[c] = items[k].bmax[c];
    }
  }
  {
    const int ex = node->bmax[0] - node->bmin[0], ey = node->bmax[1] - node->bmin[1];
    const int ez = node->bmax[2] - node->bmin[2];
    axis = 0;
    if (ey > ex) axis = 1;
    if (ez > ex && ez > ey) axis = 2;
  }
  qsort(items, (size_t)n, sizeof *items, axis == 0 ? item_cmp_x : axis == 1 ? item_cmp_y : item_cmp_z);
  bv_subdivide(items, n / 2, nodes, pos);
  bv_subdivide(items + n / 2, n - n / 2, nodes, pos);
  node->i = -(*pos - start);
}

/* Quantised bounds of every ground polygon and the tree over them. */
static nm_status write_bvtree(const tb_work *w, nm_tile *t, float qf) {
  const nm_poly_mesh_input *in = w->in;
  tb_item *items = (tb_item *)nm_malloc(&w->a, nm_mul_size((size_t)in->npolys, sizeof *items));
  int i, k, pos = 0;
  if (!items) return NM_ERR_NOMEM;
  for (i = 0; i < in->npolys; i++) {
    const nm_poly_detail *pd = &t->dmeshes[i];
    float mn[3], mx[3];
    int c;
    nm_vcopy(mn, &in->verts[w->polys[i * 6] * 3]);
    nm_vcopy(mx, mn);
    for (k = 1; k < w->nv[i]; k++) {
      nm_vmin(mn, &in->verts[w->polys[i * 6 + k] * 3]);
      nm_vmax(mx, &in->verts[w->polys[i * 6 + k] * 3]);
    }
    for (k = 0; k < pd->vert_count; k++) {
      nm_vmin(mn, &t->dverts[(pd->vert_base + (uint32_t)k) * 3]);
      nm_vmax(mx, &t->dverts[(pd->vert_base + (uint32_t)k) * 3]);
    }
    for (c = 0; c < 3; c++) {
      items[i].bmin[c] = nm_quant((mn[c] - w->bmin[c]) * qf);
      items[i].bmax[c] = nm_quant((mx[c] - w->bmin[c]) * qf);
    }
    items[i].i = i;
  }
  bv_subdivide(items, in->npolys, t->bvtree, &pos);
  nm_free(&w->a, items, (size_t)in->npolys * sizeof *items);
  return NM_OK;
}

/* Polygons, vertices and off-mesh records. */
static void write_polys(const tb_work *w, nm_tile *t) {
  const nm_poly_mesh_input *in = w->in;
  int i, j, n = 0;
  memcpy(t->verts, in->verts, sizeof(float) * 3 * (size_t)in->nverts);
  for (i = 0; i < in->npolys; i++) {
    nm_poly *p = &t->polys[i];
    p->first_link = NM_NULL_LINK;
    p->vert_count = w->nv[i];
    for (j = 0; j < w->nv[i]; j++) {
      p->verts[j] = w->polys[i * 6 + j];
      p->neis[j] = w->neis[i * 6 + j];
    }
    p->flags = in->flags ? in->flags[i] : 1;
    p->area_and_type = (uint8_t)((in->areas ? in->areas[i] : 0) & 0x3f);
  }
  for (i = 0; i < in->noffmesh; i++) {
    const nm_offmesh_link *o = &in->offmesh[i];
    nm_offmesh_con *c;
    nm_poly *p;
    const int vb = in->nverts + n * 2, pi = in->npolys + n;
    if (w->off_class[i * 2] != 0xff) continue;
    p = &t->polys[pi];
    nm_vcopy(&t->verts[vb * 3], o->start);
    nm_vcopy(&t->verts[(vb + 1) * 3], o->end);
    p->first_link = NM_NULL_LINK;
    p->verts[0] = (uint16_t)vb;
    p->verts[1] = (uint16_t)(vb + 1);
    p->vert_count = 2;
    p->flags = o->flags;
    p->area_and_type = (uint8_t)((o->area & 0x3f) | (NM_POLYTYPE_OFFMESH << 6));
    c = &t->offmesh[n++];
    nm_vcopy(c->pos, o->start);
    nm_vcopy(c->pos + 3, o->end);
    c->rad = o->radius;
    c->poly = (uint16_t)pi;
    c->flags = o->bidirectional ? NM_OFFMESH_BIDIR : 0;
    c->side = w->off_class[i * 2 + 1];
    c->user_id = o->user_id;
  }
}

/* Header counts; the blob size follows from them. */
static void fill_header(const tb_work *w, nm_tile_header *h, float qf) {
  const nm_poly_mesh_input *in = w->in;
  h->magic = NM_TILE_MAGIC;
  h->version = NM_TILE_VERSION;
  h->x = in->tile_x;
  h->y = in->tile_y;
  h->layer = in->tile_layer;
  h->user_id = in->user_id;
  h->poly_count = in->npolys + w->nstored_off;
  h->vert_count = in->nverts + w->nstored_off * 2;
  h->max_link_count = w->edge_count + w->portal_count * 2 + w->off_links * 2;
  h->detail_mesh_count = in->npolys;
  h->detail_vert_count = w->ndverts;
  h->detail_tri_count = w->ndtris;
  h->bv_node_count = in->build_bvtree ? in->npolys * 2 - 1 : 0;
  h->offmesh_con_count = w->nstored_off;
  h->offmesh_base = in->npolys;
  h->walkable_height = in->walkable_height;
  h->walkable_radius = in->walkable_radius;
  h->walkable_climb = in->walkable_climb;
  nm_vcopy(h->bmin, w->bmin);
  nm_vcopy(h->bmax, w->bmax);
  h->bv_quant_factor = qf;
}

/* Quantisation factor: 1/cell size, or fine enough for the tile's extent
 * (kept finite for denormal extents: tile validation wants a finite one). */
static float quant_factor(const tb_work *w) {
  float ext = 0, qf;
  int c;
  if (w->in->cell_size > 0) return 1.0f / w->in->cell_size;
  for (c = 0; c < 3; c++) ext = nm_maxf(ext, w->bmax[c] - w->bmin[c]);
  if (!(ext > 0)) return 1.0f;
  qf = 60000.0f / ext;
  return qf <= 1e30f ? qf : 1e30f;
}

/* Lays out, allocates and writes the blob. */
static nm_status write_blob(tb_work *w, void **data, size_t *size) {
  nm_tile_header h;
  nm_tile t;
  uint8_t *blob;
  const float qf = quant_factor(w);
  size_t sz = sizeof h;
  memset(&h, 0, sizeof h);
  fill_header(w, &h, qf);
  sz += nm_align4((size_t)h.vert_count * 12) + nm_align4((size_t)h.poly_count * sizeof(nm_poly)) +
        nm_align4((size_t)h.max_link_count * sizeof(nm_link)) +
        nm_align4((size_t)h.detail_mesh_count * sizeof(nm_poly_detail)) +
        nm_align4((size_t)h.detail_vert_count * 12) + nm_align4((size_t)h.detail_tri_count * 4) +
        nm_align4((size_t)h.bv_node_count * sizeof(nm_bvnode)) +
        nm_align4((size_t)h.offmesh_con_count * sizeof(nm_offmesh_con));
  if (!(blob = (uint8_t *)nm_calloc(&w->a, sz))) return NM_ERR_NOMEM;
  memcpy(blob, &h, sizeof h);
  memset(&t, 0, sizeof t);
  nm_tile_bind(&t, blob, sz);
  write_polys(w, &t);
  write_detail(w, &t);
  if (h.bv_node_count && write_bvtree(w, &t, qf) < 0) {
    nm_free(&w->a, blob, sz);
    return NM_ERR_NOMEM;
  }
  *data = blob;
  *size = sz;
  return NM_OK;
}

/* Frees the work arrays. */
static void work_free(tb_work *w) {
  const int n = w->in->npolys;
  nm_free(&w->a, w->polys, (size_t)n * 6 * sizeof(uint16_t));
  nm_free(&w->a, w->neis, (size_t)n * 6 * sizeof(uint16_t));
  nm_free(&w->a, w->nv, (size_t)n);
  nm_free(&w->a, w->flip, (size_t)n);
  nm_free(&w->a, w->off_class, (size_t)w->in->noffmesh * 2 + 1);
}

nm_status nm_tile_create(const nm_poly_mesh_input *in, const nm_alloc *alloc, nm_diag *diag,
                         void **data, size_t *size) {
  tb_work w;
  nm_status st;
  if (!data || !size) return NM_ERR_PARAM;
  *data = NULL;
  *size = 0;
  if ((st = check_input(in, diag)) < 0) return st;
  memset(&w, 0, sizeof w);
  w.in = in;
  w.a = nm_alloc_resolve(alloc);
  w.polys = (uint16_t *)nm_calloc(&w.a, (size_t)in->npolys * 6 * sizeof(uint16_t));
  w.neis = (uint16_t *)nm_calloc(&w.a, (size_t)in->npolys * 6 * sizeof(uint16_t));
  w.nv = (uint8_t *)nm_calloc(&w.a, (size_t)in->npolys);
  w.flip = (uint8_t *)nm_calloc(&w.a, (size_t)in->npolys);
  w.off_class = (uint8_t *)nm_calloc(&w.a, (size_t)in->noffmesh * 2 + 1);
  st = NM_ERR_NOMEM;
  if (!w.polys || !w.neis || !w.nv || !w.flip || !w.off_class) goto done;
  store_polys(&w);
  if ((st = check_detail(in, &w, diag)) < 0) goto done;
  derive_bounds(&w);
  st = in->neis ? given_neis(&w, diag) : derive_neis(&w);
  if (st < 0) goto done;
  classify_offmesh(&w);
  count_sizes(&w);
  st = write_blob(&w, data, size);
done:
  work_free(&w);
  return st;
}

void nm_tile_free(const nm_alloc *alloc, void *data, size_t size) {
  nm_alloc a = nm_alloc_resolve(alloc);
  nm_free(&a, data, size);
}
