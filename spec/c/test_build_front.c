/* test_build_front.c -- the front half of the build pipeline on tiny
 * hand-made scenes whose answers are known: rasterization, the three
 * filters, the compact heightfield, erosion, area marking, the distance
 * field and the three region partitions; allocation failure injection over
 * the whole front half; and, when ../shared is present, the stages on the
 * shared meshes (figures printed, no timing assertions). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tap.h"
#include "poly/nm_poly.h"

/* ---- scene building ---- */

#define MAXV 4096
typedef struct scene {
  float v[MAXV * 3];
  int t[MAXV * 3];
  int nv, nt;
} scene;

static int sc_vert(scene *s, float x, float y, float z) {
  s->v[s->nv * 3] = x;
  s->v[s->nv * 3 + 1] = y;
  s->v[s->nv * 3 + 2] = z;
  return s->nv++;
}
static void sc_tri(scene *s, int a, int b, int c) {
  s->t[s->nt * 3] = a;
  s->t[s->nt * 3 + 1] = b;
  s->t[s->nt * 3 + 2] = c;
  s->nt++;
}
/* Quad a b c d as two triangles (a b c, a c d). */
static void sc_quad4(scene *s, const float *a, const float *b, const float *c, const float *d) {
  const int i = sc_vert(s, a[0], a[1], a[2]), j = sc_vert(s, b[0], b[1], b[2]);
  const int k = sc_vert(s, c[0], c[1], c[2]), l = sc_vert(s, d[0], d[1], d[2]);
  sc_tri(s, i, j, k);
  sc_tri(s, i, k, l);
}
/* Horizontal rectangle at height y, facing up (walkable). */
static void sc_floor(scene *s, float x0, float z0, float x1, float z1, float y) {
  const float a[3] = {x0, y, z0}, b[3] = {x0, y, z1}, c[3] = {x1, y, z1}, d[3] = {x1, y, z0};
  sc_quad4(s, a, b, c, d);
}
/* Solid box: top (walkable) and four vertical sides. */
static void sc_box(scene *s, float x0, float z0, float x1, float z1, float y0, float y1) {
  const float p[8][3] = {{x0, y0, z0}, {x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1},
                         {x0, y1, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y1, z1}};
  sc_floor(s, x0, z0, x1, z1, y1);
  sc_quad4(s, p[0], p[1], p[5], p[4]);
  sc_quad4(s, p[1], p[2], p[6], p[5]);
  sc_quad4(s, p[2], p[3], p[7], p[6]);
  sc_quad4(s, p[3], p[0], p[4], p[7]);
}

/* ---- the front pipeline with RecastDemo-like settings ---- */

typedef struct cfg {
  float cs, ch, slope;
  int height, climb, radius, border, min_area, merge_area;
  int partition; /* 0 watershed, 1 monotone, 2 layers */
  int filters;   /* 1: all three filters */
} cfg;

static cfg cfg_default(void) {
  cfg c;
  c.cs = 0.3f;
  c.ch = 0.2f;
  c.slope = 45.0f;
  c.height = 10;
  c.climb = 4;
  c.radius = 2;
  c.border = 0;
  c.min_area = 64;
  c.merge_area = 400;
  c.partition = 0;
  c.filters = 1;
  return c;
}

static void scene_bounds(const scene *s, float *bmin, float *bmax) {
  int i;
  nm_vcopy(bmin, s->v);
  nm_vcopy(bmax, s->v);
  for (i = 1; i < s->nv; i++) {
    nm_vmin(bmin, &s->v[i * 3]);
    nm_vmax(bmax, &s->v[i * 3]);
  }
}

/* Heightfield of the scene over its bounds (grown by border cells). */
static nm_status make_hf(const scene *s, const cfg *c, const nm_alloc *a, nm_heightfield *hf) {
  float bmin[3], bmax[3];
  uint8_t *areas;
  int w, h;
  nm_status st;
  scene_bounds(s, bmin, bmax); /* border cells, if any, lie inside the scene */
  w = (int)((bmax[0] - bmin[0]) / c->cs + 0.5f);
  h = (int)((bmax[2] - bmin[2]) / c->cs + 0.5f);
  if ((st = nm_hf_init(hf, a, w, h, bmin, bmax, c->cs, c->ch)) != NM_OK) return st;
  areas = (uint8_t *)malloc((size_t)s->nt + 1);
  nm_mark_walkable_triangles(c->slope, s->v, s->t, s->nt, areas);
  st = nm_hf_rasterize(hf, s->v, s->t, areas, s->nt, c->climb);
  free(areas);
  if (st == NM_OK && c->filters) {
    nm_hf_filter_low_hanging(hf, c->climb);
    nm_hf_filter_ledges(hf, c->height, c->climb);
    nm_hf_filter_low_height(hf, c->height);
  }
  return st;
}

static nm_status run_regions(nm_chf *chf, const cfg *c) {
  if (c->partition == 1) return nm_chf_regions_monotone(chf, c->border, c->min_area, c->merge_area);
  if (c->partition == 2) return nm_chf_regions_layers(chf, c->border, c->min_area);
  return nm_chf_regions_watershed(chf, c->border, c->min_area, c->merge_area);
}

/* hf -> chf -> erode -> distance -> regions. On failure chf is freed. */
static nm_status make_chf(const scene *s, const cfg *c, const nm_alloc *a, nm_chf *chf) {
  nm_heightfield hf;
  nm_status st = make_hf(s, c, a, &hf);
  if (st == NM_OK) st = nm_chf_build(&hf, c->height, c->climb, a, chf);
  nm_hf_free(&hf);
  if (st != NM_OK) return st;
  st = nm_chf_erode(chf, c->radius);
  if (st == NM_OK) st = nm_chf_build_distance(chf);
  if (st == NM_OK) st = run_regions(chf, c);
  if (st != NM_OK) nm_chf_free(chf);
  return st;
}

/* ---- inspecting results ---- */

static int count_walkable(const nm_chf *chf) {
  int i, n = 0;
  for (i = 0; i < chf->span_count; i++) n += chf->areas[i] != NM_NULL_AREA;
  return n;
}

/* Number of distinct non-border region ids in use. */
static int count_regions(const nm_chf *chf) {
  static unsigned char seen[0x10000];
  int i, n = 0;
  memset(seen, 0, sizeof seen);
  for (i = 0; i < chf->span_count; i++) {
    const int r = chf->spans[i].reg;
    if (r == 0 || (r & NM_BORDER_REG) || seen[r]) continue;
    seen[r] = 1;
    n++;
  }
  return n;
}

/* Column of every span. */
static int *span_columns(const nm_chf *chf) {
  int *col = (int *)malloc(sizeof(int) * (size_t)(chf->span_count + 1));
  int c, i;
  for (c = 0; c < chf->width * chf->height; c++)
    for (i = (int)chf->cells[c].index; i < (int)(chf->cells[c].index + chf->cells[c].count); i++) col[i] = c;
  return col;
}

/* Floods the spans of region r from span i over the links, marking seen. */
static void flood_region(const nm_chf *chf, const int *col, unsigned char *seen, int *stack, int i) {
  const int r = chf->spans[i].reg;
  int sp = 0, dir;
  stack[sp++] = i;
  seen[i] = 1;
  while (sp > 0) {
    const int k = stack[--sp], x = col[k] % chf->width, z = col[k] / chf->width;
    for (dir = 0; dir < 4; dir++) {
      const int con = nm_get_con(&chf->spans[k], dir);
      int ni;
      if (con == NM_NOT_CONNECTED) continue;
      ni = (int)chf->cells[(x + nm_dir_dx(dir)) + (z + nm_dir_dy(dir)) * chf->width].index + con;
      if (chf->spans[ni].reg == r && !seen[ni]) {
        seen[ni] = 1;
        stack[sp++] = ni;
      }
    }
  }
}

/* Whether some column holds two spans of one region. */
static int regions_overlap(const nm_chf *chf) {
  int c, a, b;
  for (c = 0; c < chf->width * chf->height; c++) {
    const nm_ccell *cc = &chf->cells[c];
    for (a = (int)cc->index; a < (int)(cc->index + cc->count); a++)
      for (b = a + 1; b < (int)(cc->index + cc->count); b++)
        if (chf->spans[a].reg && chf->spans[a].reg == chf->spans[b].reg) return 1;
  }
  return 0;
}

/* Checks that every region's spans form one connected set over the links,
 * that region ids are 1..max_regions, and (when flat) that no region has two spans in one
 * column. Returns 1 when all hold. */
static int regions_sane(const nm_chf *chf, int flat) {
  const int n = chf->span_count;
  int *stack = (int *)malloc(sizeof(int) * (size_t)(n + 1)), *col = span_columns(chf);
  unsigned char *seen = (unsigned char *)calloc((size_t)n + 1, 1);
  static unsigned char reg_seen[0x10000];
  int i, ok = 1;
  memset(reg_seen, 0, sizeof reg_seen);
  for (i = 0; i < n && ok; i++) {
    const int r = chf->spans[i].reg;
    if (r == 0 || (r & NM_BORDER_REG) || seen[i]) continue;
    if (r > chf->max_regions || reg_seen[r]) { /* out of range, or in two pieces */
      printf("# region %d (max %d) bad at span %d\n", r, chf->max_regions, i);
      ok = 0;
    }
    reg_seen[r] = 1;
    flood_region(chf, col, seen, stack, i);
  }
  if (flat && regions_overlap(chf)) ok = 0;
  free(stack);
  free(col);
  free(seen);
  return ok;
}

/* ---- rasterization and filters ---- */

TEST(flat_plane_spans) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_heightfield hf;
  int col, ok = 1;
  sc_floor(&s, 0, 0, 10, 10, 0);
  c.filters = 0;
  CHECK(make_hf(&s, &c, NULL, &hf) == NM_OK);
  CHECK(hf.width == 33 && hf.height == 33);
  for (col = 0; col < hf.width * hf.height; col++) {
    const nm_span *sp = hf.spans[col];
    if (!sp || sp->next || sp->smin != 0 || sp->smax != 1 || sp->area != NM_WALKABLE_AREA) ok = 0;
  }
  CHECK(ok);
  nm_hf_free(&hf);
}

TEST(slope_walkability) {
  /* 30 degree and 50 degree ramps rising along +x */
  float v[12] = {0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1};
  int t[6] = {0, 1, 2, 2, 1, 3};
  uint8_t areas[2];
  const float rise30 = tanf(30.0f * 3.14159265f / 180.0f), rise50 = tanf(50.0f * 3.14159265f / 180.0f);
  v[7] = v[10] = rise30;
  nm_mark_walkable_triangles(45.0f, v, t, 2, areas);
  CHECK(areas[0] == NM_WALKABLE_AREA && areas[1] == NM_WALKABLE_AREA);
  v[7] = v[10] = rise50;
  nm_mark_walkable_triangles(45.0f, v, t, 2, areas);
  CHECK(areas[0] == NM_NULL_AREA && areas[1] == NM_NULL_AREA);
  /* facing down is never walkable; degenerate triangles are not either */
  v[7] = v[10] = 0;
  t[1] = 2; t[2] = 1;
  nm_mark_walkable_triangles(45.0f, v, t, 1, areas);
  CHECK(areas[0] == NM_NULL_AREA);
  t[0] = t[1] = t[2] = 0;
  nm_mark_walkable_triangles(45.0f, v, t, 1, areas);
  CHECK(areas[0] == NM_NULL_AREA);
}

TEST(steep_ramp_not_walkable) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  const float a[3] = {0, 0, 0}, b[3] = {0, 0, 5}, cc[3] = {5, 6, 5}, d[3] = {5, 6, 0};
  sc_quad4(&s, a, b, cc, d); /* 50 degrees */
  CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
  CHECK(count_walkable(&chf) == 0);
  CHECK(chf.max_regions == 0);
  nm_chf_free(&chf);
}

TEST(merge_keeps_walkable_top) {
  /* a floor and a wall face ending at the floor: the merged span keeps the
   * floor's walkable area; a wall face reaching far above does not */
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_heightfield hf;
  const float w0[3] = {1.05f, 0, 0}, w1[3] = {1.05f, 0, 2}, w2[3] = {1.05f, 2.0f, 2}, w3[3] = {1.05f, 2.0f, 0};
  const float l0[3] = {0.45f, -0.6f, 0}, l1[3] = {0.45f, -0.6f, 2}, l2[3] = {0.45f, 0, 2}, l3[3] = {0.45f, 0, 0};
  sc_floor(&s, 0, 0, 2, 2, 0);
  sc_quad4(&s, w0, w1, w2, w3);
  sc_quad4(&s, l0, l1, l2, l3);
  c.filters = 0;
  CHECK(make_hf(&s, &c, NULL, &hf) == NM_OK);
  {
    const nm_span *tall = hf.spans[3 + 3 * hf.width], *low = hf.spans[1 + 3 * hf.width];
    CHECK(tall && !tall->next && tall->area == NM_NULL_AREA);
    CHECK(low && !low->next && low->area == NM_WALKABLE_AREA && low->smin == 0);
  }
  nm_hf_free(&hf);
}

TEST(low_hanging_obstacle) {
  /* a thin unwalkable lip 2..3 cells above the floor becomes walkable */
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_heightfield hf;
  const float a[3] = {5.15f, 0.4f, 0}, b[3] = {5.15f, 0.4f, 10}, d[3] = {5.15f, 0.6f, 10}, e[3] = {5.15f, 0.6f, 0};
  const nm_span *sp;
  sc_floor(&s, 0, 0, 10, 10, 0);
  sc_quad4(&s, a, b, d, e);
  c.filters = 0;
  CHECK(make_hf(&s, &c, NULL, &hf) == NM_OK);
  sp = hf.spans[17 + 5 * hf.width];
  CHECK(sp && sp->next && sp->next->area == NM_NULL_AREA && sp->next->smax == 3);
  nm_hf_filter_low_hanging(&hf, 4);
  CHECK(sp->next->area == NM_WALKABLE_AREA);
  nm_hf_free(&hf);
  c.climb = 1; /* the lip is now too high to step onto */
  CHECK(make_hf(&s, &c, NULL, &hf) == NM_OK);
  nm_hf_filter_low_hanging(&hf, 1);
  CHECK(hf.spans[17 + 5 * hf.width]->next->area == NM_NULL_AREA);
  nm_hf_free(&hf);
}

TEST(ledges_at_grid_edge) {
  /* a floating plane: every edge span drops into the void */
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_heightfield hf;
  int col, n = 0;
  sc_floor(&s, 0, 0, 10, 10, 0);
  c.filters = 0;
  CHECK(make_hf(&s, &c, NULL, &hf) == NM_OK);
  nm_hf_filter_ledges(&hf, c.height, c.climb);
  for (col = 0; col < hf.width * hf.height; col++) n += hf.spans[col]->area != NM_NULL_AREA;
  CHECK(n == 31 * 31);
  nm_hf_free(&hf);
}

TEST(low_ceiling) {
  /* a slab 1.0 above the floor over x in [0,5]: 5 cells of headroom < 10 */
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int x, z, under = 0, open = 0;
  sc_floor(&s, 0, 0, 10, 10, 0);
  sc_box(&s, 0, 0, 5.05f, 10, 1.0f, 1.2f);
  c.radius = 0;
  CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
  for (z = 2; z < chf.height - 2; z++)
    for (x = 2; x < chf.width - 2; x++) {
      const nm_ccell *cc = &chf.cells[x + z * chf.width];
      int i;
      for (i = (int)cc->index; i < (int)(cc->index + cc->count); i++)
        if (chf.spans[i].y < 2 && chf.areas[i] != NM_NULL_AREA) {
          if (x < 16) under++;
          else open++;
        }
    }
  CHECK(under == 0);
  CHECK(open > 0);
  nm_chf_free(&chf);
}

TEST(headroom_boundary) {
  /* exactly walkable_height cells of headroom is enough (Recast >= 1.6;
   * the reference navmeshes were built that way), one less is not */
  cfg c = cfg_default();
  int k;
  c.filters = 0;
  for (k = 0; k < 2; k++) {
    scene s = {{0}, {0}, 0, 0};
    nm_heightfield hf;
    const nm_span *sp;
    sc_floor(&s, 0, 0, 10, 10, 0);
    sc_floor(&s, 0, 0, 10, 10, k == 0 ? 2.2f : 2.0f); /* bottom at cell 11 or 10 */
    CHECK(make_hf(&s, &c, NULL, &hf) == NM_OK);
    nm_hf_filter_low_height(&hf, c.height);
    sp = hf.spans[16 + 16 * hf.width];
    CHECK(sp && sp->next && (int)sp->next->smin - (int)sp->smax == (k == 0 ? 10 : 9));
    CHECK(sp && sp->area == (k == 0 ? NM_WALKABLE_AREA : NM_NULL_AREA));
    nm_hf_free(&hf);
  }
}

/* ---- compact heightfield ---- */

/* Plane of two halves, the right one `step` higher, joined by a riser. */
static void step_scene(scene *s, float step) {
  const float a[3] = {5.05f, 0, 0}, b[3] = {5.05f, 0, 10}, c[3] = {5.05f, step, 10}, d[3] = {5.05f, step, 0};
  sc_floor(s, 0, 0, 5.05f, 10, 0);
  sc_floor(s, 5.05f, 0, 10, 10, step);
  sc_quad4(s, a, b, c, d);
}

/* Links between a low span (y < 3) and a high one (y >= 3). */
static int cross_links(const nm_chf *chf) {
  int *col = span_columns(chf), i, dir, n = 0;
  for (i = 0; i < chf->span_count; i++) {
    const int x = col[i] % chf->width, z = col[i] / chf->width;
    for (dir = 0; dir < 4; dir++) {
      const int con = nm_get_con(&chf->spans[i], dir);
      int ni;
      if (con == NM_NOT_CONNECTED) continue;
      ni = (int)chf->cells[(x + nm_dir_dx(dir)) + (z + nm_dir_dy(dir)) * chf->width].index + con;
      n += (chf->spans[i].y < 3) != (chf->spans[ni].y < 3);
    }
  }
  free(col);
  return n;
}

TEST(step_within_climb) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  step_scene(&s, 0.6f); /* 3 cells <= climb 4 */
  CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
  CHECK(cross_links(&chf) >= 2 * 29); /* both ways along the step */
  CHECK(count_regions(&chf) == 1);
  CHECK(regions_sane(&chf, 1));
  nm_chf_free(&chf);
}

TEST(step_above_climb) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  step_scene(&s, 1.2f); /* 6 cells > climb 4 */
  CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
  CHECK(cross_links(&chf) == 0);
  CHECK(count_regions(&chf) == 2);
  CHECK(regions_sane(&chf, 1));
  nm_chf_free(&chf);
}

TEST(hole_in_plane) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int x, z, inside = 0;
  sc_floor(&s, 0, 0, 10, 3.9f, 0);
  sc_floor(&s, 0, 6.1f, 10, 10, 0);
  sc_floor(&s, 0, 3.9f, 3.9f, 6.1f, 0);
  sc_floor(&s, 6.1f, 3.9f, 10, 6.1f, 0);
  CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
  for (z = 14; z < 19; z++)
    for (x = 14; x < 19; x++) inside += chf.cells[x + z * chf.width].count;
  CHECK(inside == 0);
  CHECK(count_regions(&chf) >= 1);
  CHECK(regions_sane(&chf, 1));
  nm_chf_free(&chf);
}

TEST(two_floors) {
  /* floors at y 0 and 3.0 (15 cells apart > height 10) over the same area */
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int col, two = 0, p;
  sc_floor(&s, 0, 0, 10, 10, 0);
  sc_box(&s, 0, 0, 10, 10, 2.8f, 3.0f);
  c.radius = 0;
  for (p = 0; p < 3; p++) {
    c.partition = p;
    CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
    two = 0;
    for (col = 0; col < chf.width * chf.height; col++) two += chf.cells[col].count == 2;
    CHECK(two > 25 * 25);
    CHECK(count_regions(&chf) >= 2);
    CHECK(regions_sane(&chf, 1)); /* no region covers both floors of a column */
    nm_chf_free(&chf);
  }
}

/* ---- erosion and area marking ---- */

TEST(erosion_rings) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int r;
  sc_floor(&s, 0, 0, 10, 10, 0);
  c.filters = 0;
  for (r = 0; r <= 3; r++) {
    c.radius = r;
    CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
    /* radius r removes the spans closer than 2r in chamfer units: r rings */
    CHECK(count_walkable(&chf) == (33 - 2 * r) * (33 - 2 * r));
    nm_chf_free(&chf);
  }
}

/* A 10 x 10 grid with cs 1 (cell centres at .5), all walkable. */
static void grid_chf(nm_chf *chf) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_heightfield hf;
  sc_floor(&s, 0, 0, 10, 10, 0);
  c.cs = 1.0f;
  c.filters = 0;
  CHECK(make_hf(&s, &c, NULL, &hf) == NM_OK);
  CHECK(nm_chf_build(&hf, c.height, c.climb, NULL, chf) == NM_OK);
  nm_hf_free(&hf);
}

static int count_area(const nm_chf *chf, uint8_t area) {
  int i, n = 0;
  for (i = 0; i < chf->span_count; i++) n += chf->areas[i] == area;
  return n;
}

TEST(mark_box) {
  nm_chf chf;
  const float bmin[3] = {2.0f, -1.0f, 3.0f}, bmax[3] = {4.5f, 1.0f, 3.5f};
  const float high[3] = {2.0f, 5.0f, 3.0f}, high2[3] = {4.5f, 6.0f, 3.5f};
  grid_chf(&chf);
  nm_chf_mark_box(&chf, bmin, bmax, 7);
  CHECK(count_area(&chf, 7) == 3); /* x cells 2..4, z cell 3 */
  nm_chf_mark_box(&chf, high, high2, 9); /* above the floor: nothing */
  CHECK(count_area(&chf, 9) == 0);
  chf.areas[0] = NM_NULL_AREA; /* unwalkable spans stay so */
  {
    const float a[3] = {-5, -1, -5}, b[3] = {0.5f, 1, 0.5f};
    nm_chf_mark_box(&chf, a, b, 5);
    CHECK(count_area(&chf, 5) == 0 && chf.areas[0] == NM_NULL_AREA);
  }
  nm_chf_free(&chf);
}

TEST(mark_convex) {
  nm_chf chf;
  /* right triangle (0,0) (6,0) (0,6): cell centres with x + z < 6 inside */
  const float tri[9] = {0, 0, 0, 6, 0, 0, 0, 0, 6};
  int x, z, expect = 0;
  grid_chf(&chf);
  for (z = 0; z < 10; z++)
    for (x = 0; x < 10; x++) expect += (x + 0.5) + (z + 0.5) < 6.0;
  nm_chf_mark_convex(&chf, tri, 3, -1.0f, 1.0f, 4);
  CHECK(count_area(&chf, 4) == expect);
  CHECK(expect == 15);
  nm_chf_mark_convex(&chf, tri, 3, 2.0f, 3.0f, 6); /* y range misses the floor */
  CHECK(count_area(&chf, 6) == 0);
  nm_chf_free(&chf);
}

TEST(mark_cylinder) {
  nm_chf chf;
  const float pos[3] = {5.0f, -0.5f, 5.0f};
  int x, z, expect = 0;
  grid_chf(&chf);
  for (z = 0; z < 10; z++)
    for (x = 0; x < 10; x++) expect += (x + 0.5 - 5) * (x + 0.5 - 5) + (z + 0.5 - 5) * (z + 0.5 - 5) < 9.0;
  nm_chf_mark_cylinder(&chf, pos, 3.0f, 1.0f, 2);
  CHECK(count_area(&chf, 2) == expect);
  CHECK(expect == 32);
  nm_chf_free(&chf);
}

/* ---- distance field ---- */

TEST(distance_field) {
  nm_chf chf;
  int x, z, ok = 1;
  grid_chf(&chf);
  CHECK(nm_chf_build_distance(&chf) == NM_OK);
  /* raw chamfer distance of the centre of a 10 x 10 square: 4 steps of 2 */
  CHECK(chf.max_distance == 8);
  for (z = 0; z < 10; z++)
    for (x = 0; x < 10; x++) {
      const int i = (int)chf.cells[x + z * 10].index;
      const int edge = x == 0 || z == 0 || x == 9 || z == 9;
      if (edge && chf.dist[i] != 0) ok = 0;
      if (!edge && chf.dist[i] == 0) ok = 0;
    }
  CHECK(ok);
  CHECK(chf.dist[chf.cells[4 + 4 * 10].index] > chf.dist[chf.cells[1 + 4 * 10].index]);
  CHECK(nm_chf_build_distance(&chf) == NM_OK); /* rebuilding replaces the field */
  nm_chf_free(&chf);
}

/* ---- partitions ---- */

static void wall_scene(scene *s) {
  sc_floor(s, 0, 0, 10, 10, 0);
  sc_box(s, 4.8f, 0, 5.2f, 10, 0, 2.0f);
}
static void l_scene(scene *s) {
  sc_floor(s, 0, 0, 12, 4, 0);
  sc_floor(s, 0, 4, 4, 12, 0);
}

TEST(plane_one_region) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int p;
  sc_floor(&s, 0, 0, 10, 10, 0);
  for (p = 0; p < 3; p++) {
    c.partition = p;
    CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
    CHECK(count_regions(&chf) == 1 && chf.max_regions >= 1);
    CHECK(regions_sane(&chf, 1));
    nm_chf_free(&chf);
  }
}

TEST(wall_two_regions) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int p;
  wall_scene(&s);
  for (p = 0; p < 3; p++) {
    c.partition = p;
    CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
    printf("# wall scene, partition %d: %d regions\n", p, count_regions(&chf));
    CHECK(count_regions(&chf) == 2);
    CHECK(regions_sane(&chf, 1));
    nm_chf_free(&chf);
  }
}

TEST(l_shape_regions) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int p, n[3];
  l_scene(&s);
  for (p = 0; p < 3; p++) {
    c.partition = p;
    CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
    n[p] = count_regions(&chf);
    CHECK(regions_sane(&chf, 1));
    nm_chf_free(&chf);
  }
  printf("# L shape: watershed %d, monotone %d, layers %d regions\n", n[0], n[1], n[2]);
  CHECK(n[0] >= 1 && n[0] <= 2);
  CHECK(n[1] == 1); /* every row run continues the single run below it */
  CHECK(n[2] == 1); /* nothing overlaps: one layer */
}

TEST(small_regions_removed) {
  /* a 2 x 2 wu platform (36 cells, 4 after erosion) is below min_area */
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int p;
  sc_floor(&s, 0, 0, 10, 10, 0);
  sc_box(&s, 20, 20, 22, 22, 0, 0.2f);
  for (p = 0; p < 3; p++) {
    c.partition = p;
    CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
    CHECK(count_regions(&chf) == 1);
    nm_chf_free(&chf);
  }
}

TEST(border_regions) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf chf;
  int p, x, z, ok;
  wall_scene(&s);
  c.border = 5;
  for (p = 0; p < 3; p++) {
    c.partition = p;
    CHECK(make_chf(&s, &c, NULL, &chf) == NM_OK);
    CHECK(chf.border_size == 5);
    ok = 1;
    for (z = 0; z < chf.height; z++)
      for (x = 0; x < chf.width; x++) {
        const nm_ccell *cc = &chf.cells[x + z * chf.width];
        const int in_border = x < 5 || z < 5 || x >= chf.width - 5 || z >= chf.height - 5;
        int i;
        for (i = (int)cc->index; i < (int)(cc->index + cc->count); i++)
          if (chf.areas[i] != NM_NULL_AREA && in_border != !!(chf.spans[i].reg & NM_BORDER_REG)) ok = 0;
      }
    CHECK(ok);
    CHECK(count_regions(&chf) == 2);
    nm_chf_free(&chf);
  }
}

/* ---- allocation failure injection ---- */

typedef struct fail_alloc {
  long countdown; /* allocations left before failing; < 0 never */
  long live_bytes;
  int bad_size;   /* a free or realloc named the wrong old size */
} fail_alloc;

/* Allocator that fails on request and checks every old size it is given
 * against the size stored in a header before the block. */
static void *fail_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  fail_alloc *f = (fail_alloc *)ud;
  size_t *blk = ptr ? (size_t *)ptr - 2 : NULL;
  if (blk && blk[0] != osize) f->bad_size = 1;
  if (nsize == 0) {
    if (blk) f->live_bytes -= (long)osize;
    free(blk);
    return NULL;
  }
  if (f->countdown == 0) return NULL;
  if (f->countdown > 0) f->countdown--;
  blk = (size_t *)realloc(blk, nsize + 2 * sizeof(size_t));
  if (!blk) return NULL;
  f->live_bytes += (long)nsize - (long)(ptr ? osize : 0);
  blk[0] = nsize;
  return blk + 2;
}

/* Runs the front half with the k-th allocation failing, for every k. */
static void inject_all(const scene *s, const cfg *c) {
  long k;
  int ok_seen = 0, bad = 0;
  for (k = 0; k < 100000 && !ok_seen; k++) {
    fail_alloc f = {0, 0, 0};
    nm_alloc a;
    nm_chf chf;
    nm_status st;
    f.countdown = k;
    a.fn = fail_fn;
    a.ud = &f;
    st = make_chf(s, c, &a, &chf);
    if (st == NM_OK) {
      ok_seen = 1;
      nm_chf_free(&chf);
    } else if (st != NM_ERR_NOMEM) {
      bad = 1;
    }
    if (f.live_bytes != 0 || f.bad_size) bad = 1;
  }
  CHECK(ok_seen);
  CHECK(!bad);
  printf("# partition %d, border %d: %ld allocation points failed cleanly\n", c->partition, c->border, k - 1);
}

TEST(alloc_failures) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  int p;
  wall_scene(&s);
  sc_box(&s, 1, 1, 3, 3, 2.8f, 3.0f); /* a second floor for floors/overlaps */
  for (p = 0; p < 3; p++) {
    c.partition = p;
    c.border = p == 1 ? 0 : 5;
    inject_all(&s, &c);
  }
}

/* ---- determinism and bad input ---- */

TEST(deterministic) {
  scene s = {{0}, {0}, 0, 0};
  cfg c = cfg_default();
  nm_chf a, b;
  int i, same = 1;
  wall_scene(&s);
  l_scene(&s);
  CHECK(make_chf(&s, &c, NULL, &a) == NM_OK);
  CHECK(make_chf(&s, &c, NULL, &b) == NM_OK);
  CHECK(a.span_count == b.span_count && a.max_regions == b.max_regions);
  for (i = 0; i < a.span_count && same; i++)
    same = a.spans[i].reg == b.spans[i].reg && a.areas[i] == b.areas[i] && a.dist[i] == b.dist[i];
  CHECK(same);
  nm_chf_free(&a);
  nm_chf_free(&b);
}

TEST(bad_input) {
  const float bmin[3] = {0, 0, 0}, bmax[3] = {10, 1, 10};
  float v[7 * 3] = {0, 0, 0, 0, 0, 10, 10, 0, 10, 10, 0, 0, NAN, 0, 0, 1e30f, 0, 0, 0, 0, -1e30f};
  const int t[5 * 3] = {0, 1, 2, 0, 2, 3, 4, 0, 1, 5, 6, 2, 5, 1, 3};
  uint8_t areas[5];
  nm_heightfield hf;
  int col, ok = 1;
  float nanv[3] = {0, NAN, 0};
  CHECK(nm_hf_init(&hf, NULL, 0, 10, bmin, bmax, 0.3f, 0.2f) == NM_ERR_PARAM);
  CHECK(nm_hf_init(&hf, NULL, 10, 10, bmin, bmax, 0.0f, 0.2f) == NM_ERR_PARAM);
  CHECK(nm_hf_init(&hf, NULL, 10, 10, nanv, bmax, 0.3f, 0.2f) == NM_ERR_PARAM);
  /* NaN triangles are skipped, huge ones clipped to the grid */
  CHECK(nm_hf_init(&hf, NULL, 33, 33, bmin, bmax, 0.3f, 0.2f) == NM_OK);
  nm_mark_walkable_triangles(45.0f, v, t, 5, areas);
  CHECK(areas[2] == NM_NULL_AREA);
  CHECK(nm_hf_rasterize(&hf, v, t, areas, 5, 4) == NM_OK);
  for (col = 0; col < 33 * 33; col++)
    if (!hf.spans[col] || hf.spans[col]->smin != 0) ok = 0;
  CHECK(ok);
  nm_hf_free(&hf);
}

/* ---- the shared meshes ---- */

/* Minimal OBJ reader for the test: v lines and f lines (fans), 1-based or
 * negative indices, v/vt/vn forms. Returns 0 when the file is missing. */
static int read_obj(const char *path, float **pv, int *nv, int **pt, int *nt) {
  FILE *f = fopen(path, "r");
  char line[1024];
  int cv = 0, ct = 0;
  float *v = NULL;
  int *t = NULL;
  if (!f) return 0;
  *nv = *nt = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == 'v' && line[1] == ' ') {
      if (*nv == cv) v = (float *)realloc(v, sizeof(float) * 3 * (size_t)(cv = cv ? cv * 2 : 1024));
      sscanf(line + 2, "%f %f %f", &v[*nv * 3], &v[*nv * 3 + 1], &v[*nv * 3 + 2]);
      (*nv)++;
    } else if (line[0] == 'f' && line[1] == ' ') {
      int idx[32], n = 0, k;
      char *p = line + 2, *end;
      while (n < 32) {
        long x = strtol(p, &end, 10);
        if (end == p) break;
        idx[n++] = x < 0 ? *nv + (int)x : (int)x - 1;
        p = end;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
      }
      for (k = 2; k < n; k++) {
        if (*nt == ct) t = (int *)realloc(t, sizeof(int) * 3 * (size_t)(ct = ct ? ct * 2 : 1024));
        t[*nt * 3] = idx[0];
        t[*nt * 3 + 1] = idx[k - 1];
        t[*nt * 3 + 2] = idx[k];
        (*nt)++;
      }
    }
  }
  fclose(f);
  *pv = v;
  *pt = t;
  return 1;
}

static double now_ms(void) {
  return (double)clock() * 1000.0 / CLOCKS_PER_SEC; /* CPU time */
}

/* What recastnavigation's front half gives on a shared mesh with RecastDemo
 * solo settings (checked span by span against it while developing): open
 * spans, max distance, max_regions of watershed, monotone and layers
 * (Recast's count includes one unused id). */
typedef struct mesh_expect {
  const char *name;
  int spans, max_dist, regions[3];
} mesh_expect;

/* Re-partitions chf with monotone and layers and checks both against the
 * expected region counts. */
static void shared_other_partitions(const mesh_expect *ex, nm_chf *chf) {
  int p;
  for (p = 1; p < 3; p++) {
    const int mono = p == 1;
    double t0 = now_ms(), t1;
    CHECK((mono ? nm_chf_regions_monotone(chf, 0, 64, 400) : nm_chf_regions_layers(chf, 0, 64)) == NM_OK);
    t1 = now_ms();
    CHECK(regions_sane(chf, !mono)); /* layers never overlap themselves */
    CHECK(chf->max_regions == ex->regions[p]);
    printf("# %s: %s %d regions (%.2f ms)\n", ex->name, mono ? "monotone" : "layers", count_regions(chf), t1 - t0);
  }
}

/* The front half on one shared mesh with RecastDemo's solo settings. */
static void shared_mesh(const mesh_expect *ex) {
  const char *name = ex->name;
  char path[256];
  float *v = NULL, bmin[3], bmax[3];
  int *t = NULL, nv, nt, i, w, h, nspans = 0;
  uint8_t *areas;
  nm_heightfield hf;
  nm_chf chf;
  double t0, t1, t2, t3, t4;
  snprintf(path, sizeof path, "../shared/meshes/%s.obj", name);
  if (!read_obj(path, &v, &nv, &t, &nt)) {
    printf("# skip %s: ../shared absent\n", name);
    return;
  }
  nm_vcopy(bmin, v);
  nm_vcopy(bmax, v);
  for (i = 1; i < nv; i++) {
    nm_vmin(bmin, &v[i * 3]);
    nm_vmax(bmax, &v[i * 3]);
  }
  w = (int)((bmax[0] - bmin[0]) / 0.3f + 0.5f);
  h = (int)((bmax[2] - bmin[2]) / 0.3f + 0.5f);
  areas = (uint8_t *)malloc((size_t)nt);
  t0 = now_ms();
  CHECK(nm_hf_init(&hf, NULL, w, h, bmin, bmax, 0.3f, 0.2f) == NM_OK);
  nm_mark_walkable_triangles(45.0f, v, t, nt, areas);
  CHECK(nm_hf_rasterize(&hf, v, t, areas, nt, 4) == NM_OK);
  t1 = now_ms();
  nm_hf_filter_low_hanging(&hf, 4);
  nm_hf_filter_ledges(&hf, 10, 4);
  nm_hf_filter_low_height(&hf, 10);
  for (i = 0; i < w * h; i++) {
    const nm_span *s;
    for (s = hf.spans[i]; s; s = s->next) nspans++;
  }
  t2 = now_ms();
  CHECK(nm_chf_build(&hf, 10, 4, NULL, &chf) == NM_OK);
  nm_hf_free(&hf);
  CHECK(nm_chf_erode(&chf, 2) == NM_OK);
  CHECK(nm_chf_build_distance(&chf) == NM_OK);
  t3 = now_ms();
  CHECK(nm_chf_regions_watershed(&chf, 0, 64, 400) == NM_OK);
  t4 = now_ms();
  CHECK(chf.span_count == ex->spans);
  CHECK(chf.max_distance == ex->max_dist);
  CHECK(chf.max_regions == ex->regions[0]);
  CHECK(regions_sane(&chf, 0));
  printf("# %s: grid %dx%d, %d tris, %d solid spans, %d open spans (%d walkable), max dist %d,"
         " %d watershed regions\n",
         name, w, h, nt, nspans, chf.span_count, count_walkable(&chf), chf.max_distance,
         count_regions(&chf));
  printf("# %s ms (ASan build): rasterize %.2f, filters %.2f, compact+erode+distance %.2f,"
         " watershed %.2f\n", name, t1 - t0, t2 - t1, t3 - t2, t4 - t3);
  shared_other_partitions(ex, &chf);
  nm_chf_free(&chf);
  free(areas);
  free(v);
  free(t);
}

TEST(shared_meshes) {
  static const mesh_expect ex[3] = {{"dungeon", 23569, 52, {16, 17, 5}},
                                    {"nav_test", 56795, 60, {48, 50, 19}},
                                    {"undulating", 105795, 107, {42, 87, 2}}};
  int i;
  for (i = 0; i < 3; i++) shared_mesh(&ex[i]);
}

int main(void) {
  RUN(flat_plane_spans);
  RUN(slope_walkability);
  RUN(steep_ramp_not_walkable);
  RUN(merge_keeps_walkable_top);
  RUN(low_hanging_obstacle);
  RUN(ledges_at_grid_edge);
  RUN(low_ceiling);
  RUN(headroom_boundary);
  RUN(step_within_climb);
  RUN(step_above_climb);
  RUN(hole_in_plane);
  RUN(two_floors);
  RUN(erosion_rings);
  RUN(mark_box);
  RUN(mark_convex);
  RUN(mark_cylinder);
  RUN(distance_field);
  RUN(plane_one_region);
  RUN(wall_two_regions);
  RUN(l_shape_regions);
  RUN(small_regions_removed);
  RUN(border_regions);
  RUN(alloc_failures);
  RUN(deterministic);
  RUN(bad_input);
  RUN(shared_meshes);
  return tap_done();
}
