/* test_build_back.c -- the back half of the build pipeline on small hand-made
 * compact heightfields: contours (contour.c), convex polygons (polymesh.c)
 * and the detail mesh (detail.c).
 *
 * Fields are drawn as ASCII grids, one string per row z (row 0 first):
 *   '#' no span, '.' a span without region, '1'..'9' / 'a'..'z' a region
 *   (1..35), 'A'..'Z' a tile-border region (NM_BORDER_REG | 1..26).
 *   Spans of regions 'a'..'z' get area 5, all others NM_WALKABLE_AREA.
 * One span per column; its floor height comes from a function of (x, z);
 * neighbours connect when their floors differ by at most the climb. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "poly/nm_poly.h"

typedef int (*height_fn)(int x, int z);

static int flat(int x, int z) { (void)x; (void)z; return 10; }

static int region_of(char c) {
  if (c >= '1' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return 10 + (c - 'a');
  if (c >= 'A' && c <= 'Z') return NM_BORDER_REG | (1 + (c - 'A'));
  return 0;
}

/* Builds chf from rows[nrows] (all the same length). Free with free_chf. */
static void make_chf(nm_chf *chf, const char *const *rows, int nrows, int border, height_fn hf) {
  const int w = (int)strlen(rows[0]), h = nrows;
  int x, z, n = 0, dir;
  memset(chf, 0, sizeof *chf);
  chf->a = nm_alloc_resolve(NULL);
  chf->width = w;
  chf->height = h;
  chf->walkable_height = 10;
  chf->walkable_climb = 4;
  chf->border_size = border;
  chf->cs = 0.3f;
  chf->ch = 0.2f;
  chf->bmin[0] = -1.5f; chf->bmin[1] = 2.0f; chf->bmin[2] = 4.5f;
  chf->bmax[0] = chf->bmin[0] + (float)w * chf->cs;
  chf->bmax[1] = chf->bmin[1] + 20.0f;
  chf->bmax[2] = chf->bmin[2] + (float)h * chf->cs;
  chf->cells = (nm_ccell *)calloc((size_t)(w * h), sizeof(nm_ccell));
  chf->spans = (nm_cspan *)calloc((size_t)(w * h) + 1, sizeof(nm_cspan));
  chf->areas = (uint8_t *)calloc((size_t)(w * h) + 1, 1);
  for (z = 0; z < h; z++)
    for (x = 0; x < w; x++) {
      const char c = rows[z][x];
      nm_ccell *cell = &chf->cells[x + z * w];
      cell->index = (uint32_t)n;
      if (c == '#') continue;
      cell->count = 1;
      chf->spans[n].y = (uint16_t)hf(x, z);
      chf->spans[n].h = 20;
      chf->spans[n].reg = (uint16_t)region_of(c);
      chf->areas[n] = (uint8_t)(c >= 'a' && c <= 'z' ? 5 : NM_WALKABLE_AREA);
      n++;
    }
  chf->span_count = n;
  for (z = 0; z < h; z++)
    for (x = 0; x < w; x++) {
      const nm_ccell *cell = &chf->cells[x + z * w];
      if (!cell->count) continue;
      for (dir = 0; dir < 4; dir++) {
        const int nx = x + nm_dir_dx(dir), nz = z + nm_dir_dy(dir);
        nm_cspan *s = &chf->spans[cell->index];
        nm_set_con(s, dir, NM_NOT_CONNECTED);
        if (nx < 0 || nz < 0 || nx >= w || nz >= h || !chf->cells[nx + nz * w].count) continue;
        if (abs((int)chf->spans[chf->cells[nx + nz * w].index].y - (int)s->y) <= chf->walkable_climb)
          nm_set_con(s, dir, 0);
      }
    }
}

static void free_chf(nm_chf *chf) {
  free(chf->cells);
  free(chf->spans);
  free(chf->areas);
}

/* ---- a checking allocator: sizes must match, failures on demand ---- */

typedef struct track {
  long live;        /* bytes outstanding */
  long count;       /* allocations made */
  long fail_at;     /* fail the allocation with this number (-1: never) */
  int bad_size;     /* a free/realloc gave the wrong old size */
} track;

static void *track_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  track *t = (track *)ud;
  size_t *hdr = ptr ? (size_t *)ptr - 2 : NULL;
  if (hdr && hdr[0] != osize) t->bad_size = 1;
  if (nsize == 0) {
    if (hdr) { t->live -= (long)hdr[0]; free(hdr); }
    return NULL;
  }
  if (t->count++ == t->fail_at) return NULL;
  hdr = (size_t *)realloc(hdr, nsize + 2 * sizeof(size_t));
  if (!hdr) return NULL;
  if (ptr) t->live -= (long)hdr[0];
  hdr[0] = nsize;
  t->live += (long)nsize;
  return hdr + 2;
}

/* ---- geometry helpers on the results ---- */

static int poly_count(const nm_polymesh *m, int i) {
  const uint16_t *p = &m->polys[i * m->nvp * 2];
  int n = 0;
  while (n < m->nvp && p[n] != NM_MESH_NULL_IDX) n++;
  return n;
}

/* Signed doubled X/Z area of polygon i, in cells^2. */
static long poly_area2(const nm_polymesh *m, int i) {
  const uint16_t *p = &m->polys[i * m->nvp * 2];
  const int n = poly_count(m, i);
  long a = 0;
  int j;
  for (j = 0; j < n; j++) {
    const uint16_t *u = &m->verts[p[j] * 3], *v = &m->verts[p[(j + 1) % n] * 3];
    a += (long)u[0] * v[2] - (long)v[0] * u[2];
  }
  return a;
}

static double mesh_area(const nm_polymesh *m) {
  double s = 0;
  int i;
  for (i = 0; i < m->npolys; i++) s += fabs((double)poly_area2(m, i)) / 2;
  return s;
}

/* Every corner of every polygon turns the same way (convex, no spikes). */
static int all_convex(const nm_polymesh *m) {
  int i, j;
  for (i = 0; i < m->npolys; i++) {
    const uint16_t *p = &m->polys[i * m->nvp * 2];
    const int n = poly_count(m, i);
    const long sign = poly_area2(m, i) > 0 ? 1 : -1;
    if (n < 3) return 0;
    for (j = 0; j < n; j++) {
      const uint16_t *a = &m->verts[p[j] * 3], *b = &m->verts[p[(j + 1) % n] * 3], *c = &m->verts[p[(j + 2) % n] * 3];
      const long cr = ((long)b[0] - a[0]) * ((long)c[2] - a[2]) - ((long)c[0] - a[0]) * ((long)b[2] - a[2]);
      if (cr * sign < 0) return 0;
    }
  }
  return 1;
}

/* Runs contours and polygons with the given settings. */
static nm_status build_mesh(const nm_chf *chf, float err, int maxlen, nm_contour_set *cs, nm_polymesh *pm) {
  nm_status st = nm_contours_build(chf, err, maxlen, NULL, cs);
  if (st != NM_OK) return st;
  return nm_polymesh_build(cs, 6, NULL, pm);
}

static int cells_in(const char *const *rows, int nrows, char c) {
  int n = 0, z;
  const char *q;
  for (z = 0; z < nrows; z++)
    for (q = rows[z]; *q; q++) n += *q == c;
  return n;
}

/* ---- contours and polygons ---- */

static const char *const SQUARE[] = {
    "############",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "#1111111111#",
    "############",
};

TEST(square_gives_one_quad) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  make_chf(&chf, SQUARE, 12, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 1);
  CHECK(cs.nconts == 1 && cs.conts[0].nverts == 4 && cs.conts[0].reg == 1);
  CHECK(cs.nconts == 1 && cs.conts[0].nrverts == 40);
  CHECK(pm.npolys == 1 && pm.nverts == 4);
  CHECK(pm.npolys == 1 && poly_count(&pm, 0) == 4);
  CHECK_NEAR(mesh_area(&pm), 100.0, 1e-9);
  CHECK(pm.npolys == 1 && pm.regs[0] == 1 && pm.areas[0] == NM_WALKABLE_AREA);
  CHECK(pm.verts[1] == 10); /* floor height of the spans */
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

static const char *const ELL[] = {
    "###########",
    "#111#######",
    "#111#######",
    "#111#######",
    "#111#######",
    "#111#######",
    "#111111111#",
    "#111111111#",
    "#111111111#",
    "###########",
};

TEST(l_shape_convex_partition) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  make_chf(&chf, ELL, 10, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 1 && cs.conts[0].nverts == 6);
  CHECK(pm.npolys == 2);
  CHECK(all_convex(&pm));
  CHECK_NEAR(mesh_area(&pm), (double)cells_in(ELL, 10, '1'), 1e-9);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

static const char *const RING[] = {
    "##############",
    "#111111111111#",
    "#111111111111#",
    "#111111111111#",
    "#111######111#",
    "#111######111#",
    "#111######111#",
    "#111######111#",
    "#111111111111#",
    "#111111111111#",
    "#111111111111#",
    "##############",
};

TEST(hole_merged_into_outline) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  int i, j;
  make_chf(&chf, RING, 12, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 1);                        /* the hole joined the outline */
  CHECK(cs.nconts == 1 && cs.conts[0].nverts == 10); /* 4 + 4 + the bridge twice */
  CHECK(pm.npolys >= 4);
  CHECK(all_convex(&pm));
  CHECK_NEAR(mesh_area(&pm), (double)cells_in(RING, 12, '1'), 1e-9);
  /* no polygon covers the hole: its centre is outside every polygon */
  for (i = 0; i < pm.npolys; i++) {
    const uint16_t *p = &pm.polys[i * pm.nvp * 2];
    const int n = poly_count(&pm, i);
    int inside = 1;
    for (j = 0; j < n; j++) {
      const uint16_t *a = &pm.verts[p[j] * 3], *b = &pm.verts[p[(j + 1) % n] * 3];
      const double cr = ((double)b[0] - a[0]) * (6.0 - a[2]) - (7.0 - a[0]) * ((double)b[2] - a[2]);
      if ((poly_area2(&pm, i) > 0 ? cr : -cr) < 0) inside = 0;
    }
    CHECK(!inside);
  }
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

static const char *const TWO[] = {
    "##############",
    "#111111222222#",
    "#111111222222#",
    "#111111222222#",
    "#111111222222#",
    "#111111222222#",
    "#111111222222#",
    "##############",
};

TEST(two_regions_are_neighbours) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  int i, j, links = 0, shared = 0;
  make_chf(&chf, TWO, 8, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 2);
  CHECK(pm.npolys == 2);
  CHECK(pm.nverts == 6); /* the two vertices of the shared edge are welded */
  for (i = 0; i < pm.npolys; i++) {
    const uint16_t *p = &pm.polys[i * pm.nvp * 2];
    for (j = 0; j < poly_count(&pm, i); j++)
      if (p[pm.nvp + j] != NM_MESH_NULL_IDX) {
        const uint16_t *a = &pm.verts[p[j] * 3], *b = &pm.verts[p[(j + 1) % poly_count(&pm, i)] * 3];
        links++;
        CHECK(p[pm.nvp + j] == 1 - i);
        shared += a[0] == 7 && b[0] == 7;
      }
  }
  CHECK(links == 2 && shared == 2);
  CHECK(pm.npolys == 2 && pm.regs[0] != pm.regs[1]);
  CHECK_NEAR(mesh_area(&pm), 72.0, 1e-9);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

static const char *const AREAS[] = {
    "##############",
    "#111111aaaaaa#",
    "#111111aaaaaa#",
    "#111111aaaaaa#",
    "#111111aaaaaa#",
    "#111111aaaaaa#",
    "#111111aaaaaa#",
    "##############",
};

TEST(area_ids_kept) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  int i, j, area_border = 0, walk = 0, water = 0;
  make_chf(&chf, AREAS, 8, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 2);
  for (i = 0; i < cs.nconts; i++) {
    CHECK(cs.conts[i].area == (cs.conts[i].reg == 1 ? NM_WALKABLE_AREA : 5));
    for (j = 0; j < cs.conts[i].nverts; j++) {
      const int *v = &cs.conts[i].verts[j * 4];
      if (v[3] & NM_AREA_BORDER) {
        area_border++;
        CHECK(v[0] == 7 || (v[3] & NM_CONTOUR_REG_MASK) == 0);
      }
    }
  }
  CHECK(area_border == 2); /* the edge along x = 7, once in each outline */
  for (i = 0; i < pm.npolys; i++) {
    walk += pm.areas[i] == NM_WALKABLE_AREA;
    water += pm.areas[i] == 5;
  }
  CHECK(walk == 1 && water == 1);
  CHECK(pm.nverts == 6); /* the shared edge is still welded */
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

/* A 16 x 16 tile with a 3-cell border: regions 1 and 2 run into the
 * border region A on the -x side and 2 into B on the +z side; the +x and
 * -z sides end at walls inside the tile (one cell in). The corner where 1, 2 and A meet
 * is a tile-border vertex that the poly mesh removes again. */
static const char *const TILE[] = {
    "######################",
    "######################",
    "######################",
    "AAA###################",
    "AAA1111111111111######",
    "AAA1111111111111######",
    "AAA1111111111111######",
    "AAA1111111111111######",
    "AAA1111111111111######",
    "AAA1111111111111######",
    "AAA1111111111111######",
    "AAA2222222222222######",
    "AAA2222222222222######",
    "AAA2222222222222######",
    "AAA2222222222222######",
    "AAA2222222222222######",
    "AAA2222222222222######",
    "AAA2222222222222######",
    "AAA2222222222222######",
    "ABBBBBBBBBBBBBBBB#####",
    "ABBBBBBBBBBBBBBBB#####",
    "ABBBBBBBBBBBBBBBB#####",
};

TEST(tile_border_portals) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  int i, j, bad = 0, portals[4] = {0, 0, 0, 0}, border_verts = 0;
  make_chf(&chf, TILE, 22, 3, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(cs.width == 16 && cs.height == 16);
  CHECK_NEAR(cs.bmin[0], chf.bmin[0] + 0.9f, 1e-5);
  CHECK_NEAR(cs.bmax[2], chf.bmax[2] - 0.9f, 1e-5);
  CHECK(cs.nconts == 2); /* border regions give no contour */
  for (i = 0; i < cs.nconts; i++)
    for (j = 0; j < cs.conts[i].nverts; j++) {
      const int *v = &cs.conts[i].verts[j * 4];
      if (v[3] & NM_BORDER_VERTEX) {
        border_verts++;
        CHECK(v[0] == 0 && v[2] == 8);
      }
    }
  CHECK(border_verts == 2); /* once in each region's outline */
  CHECK(pm.border_size == 3);
  for (i = 0; i < pm.nverts; i++) CHECK(!(pm.verts[i * 3] == 0 && pm.verts[i * 3 + 2] == 8));
  for (i = 0; i < pm.npolys; i++) {
    const uint16_t *p = &pm.polys[i * pm.nvp * 2];
    const int n = poly_count(&pm, i);
    for (j = 0; j < n; j++) {
      const uint16_t *a = &pm.verts[p[j] * 3], *b = &pm.verts[p[(j + 1) % n] * 3];
      const uint16_t nei = p[pm.nvp + j];
      const int want = (a[0] == 0 && b[0] == 0) ? 0 : (a[2] == 16 && b[2] == 16) ? 1 : -1;
      if (nei != NM_MESH_NULL_IDX && (nei & 0x8000)) portals[nei & 3]++;
      if (want >= 0 ? nei != (0x8000 | want) : (nei & 0x8000) != 0 && nei != NM_MESH_NULL_IDX) bad++;
    }
  }
  CHECK(bad == 0);
  CHECK(portals[0] >= 1 && portals[1] >= 1 && portals[2] == 0 && portals[3] == 0);
  CHECK(all_convex(&pm));
  CHECK_NEAR(mesh_area(&pm), 13.0 * 15.0, 1e-9);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

TEST(long_wall_edges_split) {
  static char buf[8][104];
  const char *rows[8];
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  int x, z, j, maxlen2 = 0;
  for (z = 0; z < 8; z++) {
    for (x = 0; x < 102; x++) buf[z][x] = (z == 0 || z == 7 || x == 0 || x == 101) ? '#' : '1';
    buf[z][102] = 0;
    rows[z] = buf[z];
  }
  make_chf(&chf, rows, 8, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 12, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 1);
  for (j = 0; cs.nconts == 1 && j < cs.conts[0].nverts; j++) {
    const int *a = &cs.conts[0].verts[j * 4], *b = &cs.conts[0].verts[((j + 1) % cs.conts[0].nverts) * 4];
    const int dx = b[0] - a[0], dz = b[2] - a[2];
    if (dx * dx + dz * dz > maxlen2) maxlen2 = dx * dx + dz * dz;
  }
  CHECK(maxlen2 <= 12 * 12);
  CHECK(cs.nconts == 1 && cs.conts[0].nverts >= 2 * (100 / 12) + 2);
  CHECK(all_convex(&pm));
  CHECK_NEAR(mesh_area(&pm), 600.0, 1e-9);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  /* without a limit the strip stays one quad */
  CHECK(build_mesh(&chf, 1.3f, 0, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 1 && cs.conts[0].nverts == 4);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

TEST(empty_field) {
  static const char *const rows[] = {"####", "####", "####"};
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  nm_polymesh_detail dm;
  make_chf(&chf, rows, 3, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(cs.nconts == 0 && pm.npolys == 0 && pm.nverts == 0);
  CHECK(nm_detail_build(&pm, &chf, 1.8f, 0.2f, NULL, &dm) == NM_OK);
  CHECK(dm.nmeshes == 0 && dm.nverts == 0 && dm.ntris == 0);
  nm_detail_free(&dm);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  CHECK(nm_polymesh_build(&cs, 2, NULL, &pm) == NM_ERR_PARAM);
  CHECK(nm_polymesh_build(&cs, 7, NULL, &pm) == NM_ERR_PARAM);
  CHECK(nm_contours_build(&chf, -1.0f, 40, NULL, &cs) == NM_ERR_PARAM);
  free_chf(&chf);
}

/* A self-crossing, a collinear and a collapsed outline: the poly mesh must
 * survive them (keeping what it can triangulate) without crashing. */
TEST(degenerate_contours) {
  static int bowtie[] = {0, 0, 0, 0, 10, 0, 10, 0, 10, 0, 0, 0, 0, 0, 10, 0};
  static int line[] = {0, 0, 0, 0, 5, 0, 0, 0, 10, 0, 0, 0};
  static int dot[] = {3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0};
  static int spike[] = {0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 4, 0, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0, 0, 0};
  nm_contour c[4];
  nm_contour_set cs;
  nm_polymesh pm;
  memset(&cs, 0, sizeof cs);
  memset(c, 0, sizeof c);
  c[0].verts = bowtie; c[0].nverts = 4; c[0].reg = 1; c[0].area = NM_WALKABLE_AREA;
  c[1].verts = line; c[1].nverts = 3; c[1].reg = 2; c[1].area = NM_WALKABLE_AREA;
  c[2].verts = dot; c[2].nverts = 3; c[2].reg = 3; c[2].area = NM_WALKABLE_AREA;
  c[3].verts = spike; c[3].nverts = 6; c[3].reg = 4; c[3].area = NM_WALKABLE_AREA;
  cs.conts = c;
  cs.nconts = 4;
  cs.cs = 0.3f;
  cs.ch = 0.2f;
  cs.width = cs.height = 20;
  CHECK(nm_polymesh_build(&cs, 6, NULL, &pm) == NM_OK);
  CHECK(pm.npolys >= 1 && pm.npolys <= pm.maxpolys);
  CHECK(pm.nverts <= 16);
  nm_polymesh_free(&pm);
  CHECK(nm_polymesh_build(&cs, 3, NULL, &pm) == NM_OK);
  nm_polymesh_free(&pm);
}

/* ---- detail mesh ---- */

static int bowl(int x, int z) { return 10 + ((x - 13) * (x - 13) + (z - 13) * (z - 13)) / 8; }

/* Region 1 inside a ring of spans without region (so the height patch
 * around the polygons holds real heights too). */
static const char *const BIG[] = {
    "##########################",
    "#........................#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#.1111111111111111111111.#",
    "#........................#",
    "##########################",
};

/* Height range (cells) of the spans within 0.15 cells of world point v
 * (interior samples are jittered by up to 0.1 cells off their grid point). */
static void true_range(const nm_chf *chf, height_fn hf, const float *v, int *lo, int *hi) {
  const float fx = (v[0] - chf->bmin[0]) / chf->cs, fz = (v[2] - chf->bmin[2]) / chf->cs;
  int x, z;
  *lo = 1 << 20;
  *hi = -1;
  for (z = (int)floorf(fz - 0.15f); z <= (int)floorf(fz + 0.15f); z++)
    for (x = (int)floorf(fx - 0.15f); x <= (int)floorf(fx + 0.15f); x++) {
      if (x < 0 || z < 0 || x >= chf->width || z >= chf->height || !chf->cells[x + z * chf->width].count) continue;
      if (hf(x, z) < *lo) *lo = hf(x, z);
      if (hf(x, z) > *hi) *hi = hf(x, z);
    }
}

TEST(detail_follows_slope) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  nm_polymesh_detail dm;
  const float err = 0.2f;
  int i, far = 0, extra = 0;
  make_chf(&chf, BIG, 26, 0, bowl);
  CHECK(build_mesh(&chf, 1.3f, 12, &cs, &pm) == NM_OK);
  CHECK(nm_detail_build(&pm, &chf, 1.8f, err, NULL, &dm) == NM_OK);
  CHECK(dm.nmeshes == pm.npolys);
  for (i = 0; i < dm.nverts; i++) {
    const float *v = &dm.verts[i * 3];
    int lo, hi;
    true_range(&chf, bowl, v, &lo, &hi);
    if (hi < 0) { far++; continue; }
    /* detail heights sit one cell height above the span floors (as Recast's) */
    if (v[1] < chf.bmin[1] + (float)(lo + 1) * chf.ch - err - 1e-3f ||
        v[1] > chf.bmin[1] + (float)(hi + 1) * chf.ch + err + 1e-3f)
      far++;
  }
  for (i = 0; i < pm.npolys; i++) extra += (int)dm.meshes[i * 4 + 1] - poly_count(&pm, i);
  CHECK(far == 0);
  CHECK(extra > 0); /* the bowl needed samples beyond the polygon corners */
  printf("# bowl: %d polys, %d detail verts (%d extra), %d detail tris\n", pm.npolys, dm.nverts, extra, dm.ntris);
  nm_detail_free(&dm);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

/* Doubled signed X/Z area of a world-space triangle. */
static double tri_area2(const float *a, const float *b, const float *c) {
  return ((double)b[0] - a[0]) * ((double)c[2] - a[2]) - ((double)c[0] - a[0]) * ((double)b[2] - a[2]);
}

/* Point p lies on the segment ab (X/Z, within tol world units). */
static int on_seg(const float *p, const float *a, const float *b, double tol) {
  const double dx = (double)b[0] - a[0], dz = (double)b[2] - a[2], len = sqrt(dx * dx + dz * dz);
  const double t = ((p[0] - a[0]) * dx + (p[2] - a[2]) * dz) / (len * len);
  const double d = fabs(((double)p[0] - a[0]) * dz - ((double)p[2] - a[2]) * dx) / len;
  return d < tol && t > -1e-6 && t < 1 + 1e-6;
}

/* Checks that the detail triangles of every polygon tile it exactly and that
 * the edge flags mark exactly the edges on its outline. */
static void check_detail_cover(const nm_polymesh *pm, const nm_polymesh_detail *dm, int *area_bad, int *flag_bad) {
  int i, j, k, e;
  *area_bad = *flag_bad = 0;
  for (i = 0; i < pm->npolys; i++) {
    const uint32_t *m = &dm->meshes[i * 4];
    const uint16_t *p = &pm->polys[i * pm->nvp * 2];
    const int n = poly_count(pm, i);
    float pv[6 * 3];
    const double psign = poly_area2(pm, i) > 0 ? 1 : -1;
    double sum = 0, parea = fabs((double)poly_area2(pm, i)) / 2 * pm->cs * pm->cs;
    for (j = 0; j < n; j++) {
      pv[j * 3] = pm->bmin[0] + pm->verts[p[j] * 3] * pm->cs;
      pv[j * 3 + 1] = 0;
      pv[j * 3 + 2] = pm->bmin[2] + pm->verts[p[j] * 3 + 2] * pm->cs;
      /* the run starts with the polygon's own vertices */
      if (fabsf(dm->verts[(m[0] + (uint32_t)j) * 3] - pv[j * 3]) > 1e-4f) (*area_bad)++;
    }
    for (k = 0; k < (int)m[3]; k++) {
      const uint8_t *t = &dm->tris[(m[2] + (uint32_t)k) * 4];
      const float *v[3];
      for (j = 0; j < 3; j++) v[j] = &dm->verts[(m[0] + t[j]) * 3];
      sum += fabs(tri_area2(v[0], v[1], v[2])) / 2;
      if (tri_area2(v[0], v[1], v[2]) * psign <= 0) (*area_bad)++; /* wound like the polygon */
      for (e = 0; e < 3; e++) {
        int on = 0;
        for (j = 0; j < n && !on; j++)
          on = on_seg(v[e], &pv[j * 3], &pv[((j + 1) % n) * 3], 1e-3) &&
               on_seg(v[(e + 1) % 3], &pv[j * 3], &pv[((j + 1) % n) * 3], 1e-3);
        if (on != ((t[3] >> (e * 2)) & 1)) (*flag_bad)++;
      }
    }
    if (fabs(sum - parea) > 1e-4 * parea + 1e-6) (*area_bad)++;
  }
}

TEST(detail_covers_polygons) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  nm_polymesh_detail dm;
  int area_bad, flag_bad, i;
  make_chf(&chf, RING, 12, 0, flat);
  CHECK(build_mesh(&chf, 1.3f, 40, &cs, &pm) == NM_OK);
  CHECK(nm_detail_build(&pm, &chf, 1.8f, 0.2f, NULL, &dm) == NM_OK);
  check_detail_cover(&pm, &dm, &area_bad, &flag_bad);
  CHECK(area_bad == 0 && flag_bad == 0);
  nm_detail_free(&dm);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);

  make_chf(&chf, BIG, 26, 0, bowl);
  CHECK(build_mesh(&chf, 1.3f, 12, &cs, &pm) == NM_OK);
  CHECK(nm_detail_build(&pm, &chf, 1.8f, 0.2f, NULL, &dm) == NM_OK);
  check_detail_cover(&pm, &dm, &area_bad, &flag_bad);
  CHECK(area_bad == 0 && flag_bad == 0);
  nm_detail_free(&dm);
  /* sample_dist 0: just the polygons' own triangulation */
  CHECK(nm_detail_build(&pm, &chf, 0.0f, 0.2f, NULL, &dm) == NM_OK);
  check_detail_cover(&pm, &dm, &area_bad, &flag_bad);
  CHECK(area_bad == 0 && flag_bad == 0);
  for (i = 0; i < pm.npolys; i++) {
    CHECK((int)dm.meshes[i * 4 + 1] == poly_count(&pm, i));
    CHECK((int)dm.meshes[i * 4 + 3] == poly_count(&pm, i) - 2);
  }
  nm_detail_free(&dm);
  CHECK(nm_detail_build(&pm, &chf, -1.0f, 0.2f, NULL, &dm) == NM_ERR_PARAM);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

static int wavy(int x, int z) { return 12 + (int)lround(4.0 * sin(x / 2.5) * cos(z / 3.5)); }

/* Polygons that received interior samples are triangulated Delaunay: no
 * vertex of the polygon lies inside a triangle's circumcircle (beyond a 1%
 * tolerance; the builder uses Recast's 0.1%). */
static int count_non_delaunay(const nm_polymesh *pm, const nm_polymesh_detail *dm, int *checked) {
  int i, k, j, bad = 0;
  *checked = 0;
  for (i = 0; i < pm->npolys; i++) {
    const uint32_t *m = &dm->meshes[i * 4];
    const int n = poly_count(pm, i);
    int interior = 0;
    for (j = n; j < (int)m[1]; j++) {
      const float *v = &dm->verts[(m[0] + (uint32_t)j) * 3];
      const uint16_t *p = &pm->polys[i * pm->nvp * 2];
      int e, on = 0;
      for (e = 0; e < n && !on; e++) {
        float a[3], b[3];
        a[0] = pm->bmin[0] + pm->verts[p[e] * 3] * pm->cs;
        a[2] = pm->bmin[2] + pm->verts[p[e] * 3 + 2] * pm->cs;
        b[0] = pm->bmin[0] + pm->verts[p[(e + 1) % n] * 3] * pm->cs;
        b[2] = pm->bmin[2] + pm->verts[p[(e + 1) % n] * 3 + 2] * pm->cs;
        a[1] = b[1] = 0;
        on = on_seg(v, a, b, 1e-3);
      }
      interior += !on;
    }
    if (!interior) continue;
    (*checked)++;
    for (k = 0; k < (int)m[3]; k++) {
      const uint8_t *t = &dm->tris[(m[2] + (uint32_t)k) * 4];
      const float *a = &dm->verts[(m[0] + t[0]) * 3], *b = &dm->verts[(m[0] + t[1]) * 3], *c = &dm->verts[(m[0] + t[2]) * 3];
      const double bx = b[0] - a[0], bz = b[2] - a[2], cx = c[0] - a[0], cz = c[2] - a[2];
      const double d = 2 * (bx * cz - bz * cx);
      const double ux = (cz * (bx * bx + bz * bz) - bz * (cx * cx + cz * cz)) / d;
      const double uz = (bx * (cx * cx + cz * cz) - cx * (bx * bx + bz * bz)) / d;
      const double r = sqrt(ux * ux + uz * uz);
      for (j = 0; j < (int)m[1]; j++) {
        const float *v = &dm->verts[(m[0] + (uint32_t)j) * 3];
        const double dx = v[0] - a[0] - ux, dz = v[2] - a[2] - uz;
        if (j == t[0] || j == t[1] || j == t[2]) continue;
        if (sqrt(dx * dx + dz * dz) < r * 0.99) bad++;
      }
    }
  }
  return bad;
}

TEST(detail_is_delaunay) {
  nm_chf chf;
  nm_contour_set cs;
  nm_polymesh pm;
  nm_polymesh_detail dm;
  int area_bad, flag_bad, checked, i, extra = 0;
  make_chf(&chf, BIG, 26, 0, wavy);
  CHECK(build_mesh(&chf, 1.3f, 12, &cs, &pm) == NM_OK);
  CHECK(nm_detail_build(&pm, &chf, 0.9f, 0.05f, NULL, &dm) == NM_OK);
  check_detail_cover(&pm, &dm, &area_bad, &flag_bad);
  CHECK(area_bad == 0 && flag_bad == 0);
  CHECK(count_non_delaunay(&pm, &dm, &checked) == 0);
  for (i = 0; i < pm.npolys; i++) extra += (int)dm.meshes[i * 4 + 1] - poly_count(&pm, i);
  CHECK(checked >= 1 && extra >= 20);
  printf("# wavy: %d polys (%d with interior samples), %d detail verts (%d extra), %d detail tris\n", pm.npolys,
         checked, dm.nverts, extra, dm.ntris);
  nm_detail_free(&dm);
  nm_polymesh_free(&pm);
  nm_contours_free(&cs);
  free_chf(&chf);
}

/* ---- allocation failures and determinism ---- */

/* A tiled field with a hole, two regions and a bowl-shaped floor. */
static const char *const MIX[] = {
    "AAAAAAAAAAAAAAAAAAAAAA",
    "AAAAAAAAAAAAAAAAAAAAAA",
    "AAAAAAAAAAAAAAAAAAAAAA",
    "AAA1111111111111111CCC",
    "AAA1111111111111111CCC",
    "AAA1111111111111111CCC",
    "AAA111######1111111CCC",
    "AAA111######1111111CCC",
    "AAA111######1111111CCC",
    "AAA1111111111111111CCC",
    "AAA1111111111111111CCC",
    "AAA2222222222222222CCC",
    "AAA2222222222222222CCC",
    "AAA2222222222222222CCC",
    "AAA2222222222222222CCC",
    "AAA2222222222222222CCC",
    "AAA2222222222222222CCC",
    "AAA2222222222222222CCC",
    "AAA2222222222222222CCC",
    "BBBBBBBBBBBBBBBBBBBBBB",
    "BBBBBBBBBBBBBBBBBBBBBB",
    "BBBBBBBBBBBBBBBBBBBBBB",
};

/* Runs the three stages with allocator a; frees everything. Returns the
 * first failing status (or NM_OK) and the results' sizes in sig. */
static nm_status run_back(const nm_chf *chf, const nm_alloc *a, long *sig) {
  nm_contour_set cs;
  nm_polymesh pm;
  nm_polymesh_detail dm;
  nm_status st = nm_contours_build(chf, 1.3f, 12, a, &cs);
  if (st != NM_OK) return st;
  st = nm_polymesh_build(&cs, 6, a, &pm);
  if (st == NM_OK) {
    st = nm_detail_build(&pm, chf, 1.8f, 0.2f, a, &dm);
    if (st == NM_OK) {
      if (sig) *sig = (long)pm.npolys * 1000000L + (long)dm.nverts * 1000L + dm.ntris;
      nm_detail_free(&dm);
    }
    nm_polymesh_free(&pm);
  }
  nm_contours_free(&cs);
  return st;
}

TEST(allocation_failures) {
  nm_chf chf;
  nm_alloc a;
  track t;
  long k, total, sig = 0, sig2 = 0, leaks = 0, wrong = 0, bad_status = 0, nomem = 0;
  make_chf(&chf, MIX, 22, 3, bowl);
  memset(&t, 0, sizeof t);
  t.fail_at = -1;
  a.fn = track_fn;
  a.ud = &t;
  CHECK(run_back(&chf, &a, &sig) == NM_OK);
  CHECK(t.live == 0 && !t.bad_size);
  total = t.count;
  CHECK(total > 10);
  for (k = 0; k < total; k++) {
    nm_status st;
    memset(&t, 0, sizeof t);
    t.fail_at = k;
    st = run_back(&chf, &a, &sig2);
    if (st == NM_ERR_NOMEM) nomem++;
    else if (st != NM_OK || sig2 != sig) bad_status++;
    if (t.live != 0) leaks++;
    if (t.bad_size) wrong++;
  }
  printf("# %ld allocations, each failed in turn: %ld NOMEM, %ld leaks, %ld wrong sizes\n", total, nomem, leaks, wrong);
  CHECK(leaks == 0 && wrong == 0 && bad_status == 0);
  CHECK(nomem > 0);
  free_chf(&chf);
}

TEST(deterministic) {
  nm_chf chf;
  nm_contour_set c1, c2;
  nm_polymesh p1, p2;
  nm_polymesh_detail d1, d2;
  make_chf(&chf, MIX, 22, 3, bowl);
  CHECK(build_mesh(&chf, 1.3f, 12, &c1, &p1) == NM_OK);
  CHECK(build_mesh(&chf, 1.3f, 12, &c2, &p2) == NM_OK);
  CHECK(nm_detail_build(&p1, &chf, 1.8f, 0.2f, NULL, &d1) == NM_OK);
  CHECK(nm_detail_build(&p2, &chf, 1.8f, 0.2f, NULL, &d2) == NM_OK);
  CHECK(p1.npolys == p2.npolys && p1.nverts == p2.nverts && p1.npolys > 2);
  CHECK(memcmp(p1.verts, p2.verts, sizeof(uint16_t) * 3 * (size_t)p1.nverts) == 0);
  CHECK(memcmp(p1.polys, p2.polys, sizeof(uint16_t) * 2 * 6 * (size_t)p1.npolys) == 0);
  CHECK(d1.nverts == d2.nverts && d1.ntris == d2.ntris);
  CHECK(memcmp(d1.verts, d2.verts, sizeof(float) * 3 * (size_t)d1.nverts) == 0);
  CHECK(memcmp(d1.tris, d2.tris, 4 * (size_t)d1.ntris) == 0);
  CHECK(all_convex(&p1));
  nm_detail_free(&d1);
  nm_detail_free(&d2);
  nm_polymesh_free(&p1);
  nm_polymesh_free(&p2);
  nm_contours_free(&c1);
  nm_contours_free(&c2);
  free_chf(&chf);
}

int main(void) {
  RUN(square_gives_one_quad);
  RUN(l_shape_convex_partition);
  RUN(hole_merged_into_outline);
  RUN(two_regions_are_neighbours);
  RUN(area_ids_kept);
  RUN(tile_border_portals);
  RUN(long_wall_edges_split);
  RUN(empty_field);
  RUN(degenerate_contours);
  RUN(detail_follows_slope);
  RUN(detail_covers_polygons);
  RUN(detail_is_delaunay);
  RUN(allocation_failures);
  RUN(deterministic);
  return tap_done();
}
