/* area.c -- area ids on the compact heightfield.
 *
 * Erosion: a two-pass chamfer distance transform (orthogonal step 2,
 * diagonal step 3, as in Recast) from the walkable boundary; spans closer
 * than 2 * radius to it lose their walkable area, so the agent's centre keeps
 * its radius away from walls and ledges.
 * Marking: convex volumes (X/Z polygon with a y range), boxes and vertical
 * cylinders give their area id to every walkable span whose floor lies in
 * the volume; for polygons and cylinders the span's cell centre decides. */
#include "nm_region.h"

/* ---- stage: erosion ---- */

/* Distance 0 for unwalkable spans and walkable spans with fewer than four
 * walkable neighbours; 255 (unknown) for the rest. */
static void erode_seed(const nm_chf *chf, uint8_t *dist) {
  const int n = chf->span_count;
  const int32_t *nei = chf->nei;
  const uint8_t *areas = chf->areas;
  int i, dir;
  for (i = 0; i < n; i++) {
    int k = 0;
    if (areas[i] != NM_NULL_AREA)
      for (dir = 0; dir < 4; dir++) {
        const int ni = nei[i * 4 + dir];
        k += ni >= 0 && areas[ni] != NM_NULL_AREA;
      }
    dist[i] = k == 4 ? 0xff : 0;
  }
}

/* Relaxes dist[i] from the neighbour in dir (+2) and that neighbour's
 * neighbour in dir2 (+3, the diagonal). */
static inline void erode_relax(const int32_t *nei, uint8_t *dist, int i, int dir, int dir2) {
  const int ni = nei[i * 4 + dir];
  int d, di;
  if (ni < 0) return;
  d = nm_mini(dist[ni] + 2, 255);
  if (d < dist[i]) dist[i] = (uint8_t)d;
  di = nei[ni * 4 + dir2];
  if (di < 0) return;
  d = nm_mini(dist[di] + 3, 255);
  if (d < dist[i]) dist[i] = (uint8_t)d;
}

/* The two sweeps of the chamfer transform over an 8-bit field: forward
 * from the -x/-z side, then backward. Spans are stored column by column in
 * z, x order, so span order is column order; the order of the spans of one
 * column does not matter, as none of them reads another. */
static void erode_sweeps(const nm_chf *chf, uint8_t *dist) {
  const int n = chf->span_count;
  const int32_t *nei = chf->nei;
  int i;
  for (i = 0; i < n; i++) {
    erode_relax(nei, dist, i, 0, 3); /* (-1,0), (-1,-1) */
    erode_relax(nei, dist, i, 3, 2); /* (0,-1), (1,-1) */
  }
  for (i = n - 1; i >= 0; i--) {
    erode_relax(nei, dist, i, 2, 1); /* (1,0), (1,1) */
    erode_relax(nei, dist, i, 1, 0); /* (0,1), (-1,1) */
  }
}

/* Erodes walkable spans closer than radius cells (2 * radius chamfer
 * units) to a boundary. The 8-bit field saturates at 255, like Recast's, so
 * radii up to 127 cells are exact. */
nm_status nm_chf_erode(nm_chf *chf, int radius) {
  const size_t n = (size_t)chf->span_count;
  const int thr = radius * 2;
  uint8_t *dist;
  size_t i;
  if (n == 0 || radius <= 0) return NM_OK;
  dist = (uint8_t *)nm_malloc(&chf->a, n);
  if (!dist) return NM_ERR_NOMEM;
  erode_seed(chf, dist);
  erode_sweeps(chf, dist);
  for (i = 0; i < n; i++)
    if ((int)dist[i] < thr) chf->areas[i] = NM_NULL_AREA;
  nm_free(&chf->a, dist, n);
  return NM_OK;
}

/* ---- stage: area marking ---- */

/* Cell range of a world box, clipped to the grid; 0 when it misses it. */
typedef struct mark_box {
  int x0, x1, y0, y1, z0, z1;
} mark_box;

/* Truncates like a C cast, but safely for any float. */
static int mark_trunc(float f) {
  return (int)nm_clampf(f, -1e9f, 1e9f);
}

/* Converts a world box to cells (truncating like Recast) and clips x/z to
 * the grid; returns 0 when the box misses the grid or is NaN. */
static int mark_range(const nm_chf *chf, const float *bmin, const float *bmax, mark_box *r) {
  int i;
  for (i = 0; i < 3; i++)
    if (!(bmin[i] <= bmax[i])) return 0;
  r->x0 = mark_trunc((bmin[0] - chf->bmin[0]) / chf->cs);
  r->x1 = mark_trunc((bmax[0] - chf->bmin[0]) / chf->cs);
  r->y0 = mark_trunc((bmin[1] - chf->bmin[1]) / chf->ch);
  r->y1 = mark_trunc((bmax[1] - chf->bmin[1]) / chf->ch);
  r->z0 = mark_trunc((bmin[2] - chf->bmin[2]) / chf->cs);
  r->z1 = mark_trunc((bmax[2] - chf->bmin[2]) / chf->cs);
  if (r->x1 < 0 || r->x0 >= chf->width || r->z1 < 0 || r->z0 >= chf->height) return 0;
  r->x0 = nm_maxi(r->x0, 0);
  r->z0 = nm_maxi(r->z0, 0);
  r->x1 = nm_mini(r->x1, chf->width - 1);
  r->z1 = nm_mini(r->z1, chf->height - 1);
  return 1;
}

/* Which shape a mark call tests the cell centres against. */
typedef struct mark_shape {
  int kind; /* 0 box, 1 convex polygon, 2 cylinder */
  const float *verts;
  int nverts;
  float cx, cz, r2;
} mark_shape;

/* Whether the centre of cell (x, z) is inside the shape (always for a
 * box, whose range test already decided). */
static int mark_inside(const nm_chf *chf, const mark_shape *sh, int x, int z) {
  float p[3];
  if (sh->kind == 0) return 1;
  p[0] = chf->bmin[0] + ((float)x + 0.5f) * chf->cs;
  p[1] = 0;
  p[2] = chf->bmin[2] + ((float)z + 0.5f) * chf->cs;
  if (sh->kind == 1) return nm_point_in_polygon(p, sh->verts, sh->nverts);
  return nm_sqr(p[0] - sh->cx) + nm_sqr(p[2] - sh->cz) < sh->r2;
}

/* Gives area to the walkable spans of the range whose floor is in [y0, y1]
 * and whose cell passes the shape test. */
static void mark_spans(nm_chf *chf, const mark_box *r, const mark_shape *sh, uint8_t area) {
  int x, z;
  for (z = r->z0; z <= r->z1; z++)
    for (x = r->x0; x <= r->x1; x++) {
      const nm_ccell *c = &chf->cells[x + z * chf->width];
      int i, end = (int)c->index + (int)c->count, inside = -1;
      for (i = (int)c->index; i < end; i++) {
        const int y = chf->spans[i].y;
        if (chf->areas[i] == NM_NULL_AREA || y < r->y0 || y > r->y1) continue;
        if (inside < 0) inside = mark_inside(chf, sh, x, z);
        if (inside) chf->areas[i] = area;
      }
    }
}

/* Box volume: every walkable span whose floor lies in the box. */
void nm_chf_mark_box(nm_chf *chf, const float *bmin, const float *bmax, uint8_t area) {
  mark_box r;
  mark_shape sh;
  memset(&sh, 0, sizeof sh);
  if (mark_range(chf, bmin, bmax, &r)) mark_spans(chf, &r, &sh, area);
}

/* Convex volume: polygon verts (x, y, z; y ignored) swept from hmin to
 * hmax; the cell centre decides, with the even-odd test. */
void nm_chf_mark_convex(nm_chf *chf, const float *verts, int nverts, float hmin, float hmax,
                        uint8_t area) {
  float bmin[3], bmax[3];
  mark_box r;
  mark_shape sh;
  int i;
  if (nverts < 3) return;
  nm_vcopy(bmin, verts);
  nm_vcopy(bmax, verts);
  for (i = 1; i < nverts; i++) {
    nm_vmin(bmin, &verts[i * 3]);
    nm_vmax(bmax, &verts[i * 3]);
  }
  bmin[1] = hmin;
  bmax[1] = hmax;
  memset(&sh, 0, sizeof sh);
  sh.kind = 1;
  sh.verts = verts;
  sh.nverts = nverts;
  if (mark_range(chf, bmin, bmax, &r)) mark_spans(chf, &r, &sh, area);
}

/* Vertical cylinder with its base centre at pos: cell centres strictly
 * inside the circle, span floors within [pos.y, pos.y + h]. */
void nm_chf_mark_cylinder(nm_chf *chf, const float *pos, float r, float h, uint8_t area) {
  float bmin[3], bmax[3];
  mark_box box;
  mark_shape sh;
  nm_vset(bmin, pos[0] - r, pos[1], pos[2] - r);
  nm_vset(bmax, pos[0] + r, pos[1] + h, pos[2] + r);
  memset(&sh, 0, sizeof sh);
  sh.kind = 2;
  sh.cx = pos[0];
  sh.cz = pos[2];
  sh.r2 = r * r;
  if (mark_range(chf, bmin, bmax, &box)) mark_spans(chf, &box, &sh, area);
}
