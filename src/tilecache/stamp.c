/* stamp.c -- marking obstacles into a decompressed layer.
 *
 * Cylinders, boxes and oriented boxes mark cells exactly as Detour's
 * dtMarkCylinderArea / dtMarkBoxArea do (single precision, reciprocals of
 * the cell sizes as multipliers, cell ranges from floored cell coordinates
 * clamped to the grid, a cell's height tested against the obstacle's
 * vertical range), so stamped layers equal Detour's bit for bit. A cutting
 * obstacle sets the area to 0; an area-marking one sets its area on cells
 * that are walkable (a cut always wins). Prisms (a convex X/Z outline with
 * a vertical range) mark the cells whose centre lies inside the outline.
 * Padding (the rules' for every obstacle plus the obstacle's own) grows
 * the X/Z extent of every kind (radius, half extents, box sides, distance
 * from the outline). */
#include "nm_cache.h"

/* The part of the grid an obstacle covers, in cells, and the mark. */
typedef struct stamp_box {
  int x0, x1, z0, z1, y0, y1;
  uint8_t area;
} stamp_box;

/* Cell index range of floored cell coordinates lo..hi clamped to 0..n-1;
 * 0 when it lies wholly outside. Floats are compared before converting, so
 * far-away obstacles never overflow an int. */
static int cell_range(float lo, float hi, int n, int *a, int *b) {
  if (hi < 0 || lo >= (float)n) return 0;
  *a = lo < 0 ? 0 : (int)lo;
  *b = hi >= (float)n ? n - 1 : (int)hi;
  return 1;
}

/* Vertical range in cell heights, clamped into -1..256 (heights are bytes). */
static int height_cell(float v) {
  if (v < -1.0f) return -1;
  if (v > 256.0f) return 256;
  return (int)v;
}

/* Sets the mark on cell i if its height lies in the box's range. */
static void mark_cell(nm_lgrid *g, int i, const stamp_box *b) {
  const int y = g->heights[i];
  if (y < b->y0 || y > b->y1) return;
  if (b->area != NM_LAYER_NULL_AREA && g->areas[i] == NM_LAYER_NULL_AREA) return;
  g->areas[i] = b->area;
}

/* Cylinder: cells whose centre is within radius / cs + 0.5 cells. */
static void stamp_cylinder(nm_lgrid *g, const float *o, float cs, float ch, const nm_obstacle *s, float pad,
                           stamp_box *b) {
  const float r = s->radius + pad, ics = 1.0f / cs, ich = 1.0f / ch;
  const float r2 = nm_sqr(r / cs + 0.5f);
  const float px = (s->pos[0] - o[0]) * ics, pz = (s->pos[2] - o[2]) * ics;
  int x, z;
  if (!cell_range(floorf((s->pos[0] - r - o[0]) * ics), floorf((s->pos[0] + r - o[0]) * ics), g->w, &b->x0, &b->x1) ||
      !cell_range(floorf((s->pos[2] - r - o[2]) * ics), floorf((s->pos[2] + r - o[2]) * ics), g->hgt, &b->z0, &b->z1))
    return;
  b->y0 = height_cell(floorf((s->pos[1] - o[1]) * ich));
  b->y1 = height_cell(floorf((s->pos[1] + s->height - o[1]) * ich));
  for (z = b->z0; z <= b->z1; z++)
    for (x = b->x0; x <= b->x1; x++) {
      const float dx = ((float)x + 0.5f) - px, dz = ((float)z + 0.5f) - pz;
      if (dx * dx + dz * dz > r2) continue;
      mark_cell(g, x + z * g->w, b);
    }
}

/* Axis-aligned box: every cell of the covered rectangle. */
static void stamp_box_aa(nm_lgrid *g, const float *o, float cs, float ch, const nm_obstacle *s, float pad,
                         stamp_box *b) {
  const float ics = 1.0f / cs, ich = 1.0f / ch;
  int x, z;
  if (!cell_range(floorf((s->bmin[0] - pad - o[0]) * ics), floorf((s->bmax[0] + pad - o[0]) * ics), g->w, &b->x0, &b->x1) ||
      !cell_range(floorf((s->bmin[2] - pad - o[2]) * ics), floorf((s->bmax[2] + pad - o[2]) * ics), g->hgt, &b->z0, &b->z1))
    return;
  b->y0 = height_cell(floorf((s->bmin[1] - o[1]) * ich));
  b->y1 = height_cell(floorf((s->bmax[1] - o[1]) * ich));
  for (z = b->z0; z <= b->z1; z++)
    for (x = b->x0; x <= b->x1; x++) mark_cell(g, x + z * g->w, b);
}

/* Box rotated about Y: cell corners tested in the box's frame (Detour's
 * half-angle products rot[0], rot[1]). */
static void stamp_box_yaw(nm_lgrid *g, const float *o, float cs, float ch, const nm_obstacle *s, const float *rot,
                          float pad, stamp_box *b) {
  const float ics = 1.0f / cs, ich = 1.0f / ch;
  const float hx = s->half_extents[0] + pad, hz = s->half_extents[2] + pad;
  const float cx = (s->center[0] - o[0]) * ics, cz = (s->center[2] - o[2]) * ics;
  const float maxr = 1.41f * nm_maxf(hx, hz);
  const float xhalf = hx * ics + 0.5f, zhalf = hz * ics + 0.5f;
  int x, z;
  if (!cell_range(floorf(cx - maxr * ics), floorf(cx + maxr * ics), g->w, &b->x0, &b->x1) ||
      !cell_range(floorf(cz - maxr * ics), floorf(cz + maxr * ics), g->hgt, &b->z0, &b->z1))
    return;
  b->y0 = height_cell(floorf((s->center[1] - s->half_extents[1] - o[1]) * ich));
  b->y1 = height_cell(floorf((s->center[1] + s->half_extents[1] - o[1]) * ich));
  for (z = b->z0; z <= b->z1; z++)
    for (x = b->x0; x <= b->x1; x++) {
      const float x2 = 2.0f * ((float)x - cx), z2 = 2.0f * ((float)z - cz);
      const float xrot = rot[1] * x2 + rot[0] * z2, zrot = rot[1] * z2 - rot[0] * x2;
      if (xrot > xhalf || xrot < -xhalf || zrot > zhalf || zrot < -zhalf) continue;
      mark_cell(g, x + z * g->w, b);
    }
}

/* 1 when (x, z) lies inside the X/Z outline (crossing count) or within pad
 * of it. */
static int in_outline(const float *v, int n, float x, float z, float pad) {
  int i, j, in = 0;
  for (i = 0, j = n - 1; i < n; j = i++) {
    const float *a = &v[i * 3], *b = &v[j * 3];
    if (((a[2] > z) != (b[2] > z)) && (x < (b[0] - a[0]) * (z - a[2]) / (b[2] - a[2]) + a[0])) in = !in;
  }
  if (in || pad <= 0) return in;
  for (i = 0, j = n - 1; i < n; j = i++) {
    float t, p[3];
    p[0] = x; p[1] = 0; p[2] = z;
    if (nm_dist_pt_seg_sqr2d(p, &v[j * 3], &v[i * 3], &t) <= pad * pad) return 1;
  }
  return 0;
}

/* Prism: cells whose centre lies inside the (padded) outline. */
static void stamp_prism(nm_lgrid *g, const float *o, float cs, float ch, const nm_obstacle *s, float pad,
                        const float *bmin, const float *bmax, stamp_box *b) {
  const float ics = 1.0f / cs, ich = 1.0f / ch;
  int x, z;
  if (!cell_range(floorf((bmin[0] - o[0]) * ics), floorf((bmax[0] - o[0]) * ics), g->w, &b->x0, &b->x1) ||
      !cell_range(floorf((bmin[2] - o[2]) * ics), floorf((bmax[2] - o[2]) * ics), g->hgt, &b->z0, &b->z1))
    return;
  b->y0 = height_cell(floorf((s->hmin - o[1]) * ich));
  b->y1 = height_cell(floorf((s->hmax - o[1]) * ich));
  for (z = b->z0; z <= b->z1; z++)
    for (x = b->x0; x <= b->x1; x++) {
      const float wx = o[0] + ((float)x + 0.5f) * cs, wz = o[2] + ((float)z + 0.5f) * cs;
      if (in_outline(s->verts, s->nverts, wx, wz, pad)) mark_cell(g, x + z * g->w, b);
    }
}

void nm_stamp_obstacle(nm_lgrid *g, const nm_cache *c, const nm_cobstacle *ob) {
  const float *o = g->h.bmin, cs = c->p.cell_size, ch = c->p.cell_height;
  const float pad = c->rules.obstacle_padding + ob->s.padding;
  stamp_box b;
  b.area = (uint8_t)ob->s.area;
  switch (ob->s.kind) {
    case NM_OBSTACLE_CYLINDER: stamp_cylinder(g, o, cs, ch, &ob->s, pad, &b); break;
    case NM_OBSTACLE_BOX: stamp_box_aa(g, o, cs, ch, &ob->s, pad, &b); break;
    case NM_OBSTACLE_ORIENTED_BOX: stamp_box_yaw(g, o, cs, ch, &ob->s, ob->rot_aux, pad, &b); break;
    default: stamp_prism(g, o, cs, ch, &ob->s, pad, ob->bmin, ob->bmax, &b); break;
  }
}

void nm_obstacle_bounds(const nm_obstacle *s, float pad, float *bmin, float *bmax) {
  int i;
  if (s->kind == NM_OBSTACLE_CYLINDER) {
    const float r = s->radius + pad;
    nm_vset(bmin, s->pos[0] - r, s->pos[1], s->pos[2] - r);
    nm_vset(bmax, s->pos[0] + r, s->pos[1] + s->height, s->pos[2] + r);
  } else if (s->kind == NM_OBSTACLE_BOX) {
    nm_vset(bmin, s->bmin[0] - pad, s->bmin[1], s->bmin[2] - pad);
    nm_vset(bmax, s->bmax[0] + pad, s->bmax[1], s->bmax[2] + pad);
  } else if (s->kind == NM_OBSTACLE_ORIENTED_BOX) {
    const float maxr = 1.41f * nm_maxf(s->half_extents[0] + pad, s->half_extents[2] + pad);
    nm_vset(bmin, s->center[0] - maxr, s->center[1] - s->half_extents[1], s->center[2] - maxr);
    nm_vset(bmax, s->center[0] + maxr, s->center[1] + s->half_extents[1], s->center[2] + maxr);
  } else {
    nm_vset(bmin, s->verts[0], s->hmin, s->verts[2]);
    nm_vset(bmax, s->verts[0], s->hmax, s->verts[2]);
    for (i = 1; i < s->nverts; i++) {
      bmin[0] = nm_minf(bmin[0], s->verts[i * 3]);
      bmax[0] = nm_maxf(bmax[0], s->verts[i * 3]);
      bmin[2] = nm_minf(bmin[2], s->verts[i * 3 + 2]);
      bmax[2] = nm_maxf(bmax[2], s->verts[i * 3 + 2]);
    }
    bmin[0] -= pad; bmin[2] -= pad;
    bmax[0] += pad; bmax[2] += pad;
  }
}
