/* test_build_tile.c -- tiles of a tiled build made one at a time.
 *
 * nm_navmesh_build_tile must give, for every cell of the grid, the blob the
 * whole build adds there: a mesh made with nm_navmesh_new(the parameters
 * of nm_build_tile_grid) to which every tile's blob is added in grid order
 * saves to the same bytes as the whole build (links included, since they
 * follow from the blobs and their order). Checked on a procedural yard
 * (ramps, a wall, an area volume, an off-mesh connection across a tile
 * border) and, when ../shared is there, on dungeon.obj with RecastDemo's
 * Tile Mesh settings. Also: the area_flags map, errors (a tiled config
 * needed, cells off the grid, empty tiles), swapping a rebuilt tile into a
 * version, and every allocation failing in turn (nothing leaks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "tap.h"
#include "track_alloc.h"

typedef struct geom {
  float *v;
  int *t;
  int nv, nt, cap_v, cap_t;
} geom;

static int vert(geom *g, float x, float y, float z) {
  if (g->nv == g->cap_v) {
    g->cap_v = g->cap_v ? g->cap_v * 2 : 64;
    g->v = (float *)realloc(g->v, (size_t)g->cap_v * 3 * sizeof(float));
  }
  g->v[g->nv * 3] = x;
  g->v[g->nv * 3 + 1] = y;
  g->v[g->nv * 3 + 2] = z;
  return g->nv++;
}

static void quad(geom *g, int a, int b, int c, int d) {
  if (g->nt + 2 > g->cap_t) {
    g->cap_t = g->cap_t ? g->cap_t * 2 : 64;
    g->t = (int *)realloc(g->t, (size_t)g->cap_t * 3 * sizeof(int));
  }
  g->t[g->nt * 3] = a; g->t[g->nt * 3 + 1] = b; g->t[g->nt * 3 + 2] = c;
  g->t[g->nt * 3 + 3] = a; g->t[g->nt * 3 + 4] = c; g->t[g->nt * 3 + 5] = d;
  g->nt += 2;
}

/* An axis-aligned box (all six faces). */
static void box(geom *g, float x0, float y0, float z0, float x1, float y1, float z1) {
  int v[8], i;
  for (i = 0; i < 8; i++) v[i] = vert(g, i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? z1 : z0);
  quad(g, v[2], v[6], v[7], v[3]);
  quad(g, v[0], v[1], v[5], v[4]);
  quad(g, v[0], v[2], v[3], v[1]);
  quad(g, v[4], v[5], v[7], v[6]);
  quad(g, v[0], v[4], v[6], v[2]);
  quad(g, v[1], v[3], v[7], v[5]);
}

/* A 30 x 30 yard: a floor of 5 x 5 quads, a wall with a gap, a raised
 * platform with a ramp, a block. */
static void yard(geom *g) {
  int i, j;
  memset(g, 0, sizeof *g);
  for (j = 0; j < 5; j++)
    for (i = 0; i < 5; i++) {
      float x0 = (float)i * 6, z0 = (float)j * 6;
      int a = vert(g, x0, 0, z0), b = vert(g, x0, 0, z0 + 6), c = vert(g, x0 + 6, 0, z0 + 6),
          d = vert(g, x0 + 6, 0, z0);
      quad(g, a, b, c, d);
    }
  box(g, 14, 0, 0, 15, 3, 12);
  box(g, 14, 0, 15, 15, 3, 30);
  box(g, 20, 0, 20, 27, 1.5f, 27);
  {
    int a = vert(g, 20, 1.5f, 20), b = vert(g, 20, 1.5f, 27), c = vert(g, 16, 0, 27), d = vert(g, 16, 0, 20);
    quad(g, a, b, c, d);
  }
  box(g, 4, 0, 22, 7, 2.5f, 25);
}

static void geom_free(geom *g) {
  free(g->v);
  free(g->t);
}

static nm_area_volume g_vol;
static nm_offmesh_link g_link;
static const float g_outline[12] = {2, 0, 2, 11, 0, 2, 11, 0, 9, 2, 0, 9};
static uint16_t g_flags[NM_MAX_AREAS];

/* The yard's configuration: tiles of 24 cells, a mud volume (area 3), a
 * jump across a tile border, area flags (ground 1, mud 9). */
static void yard_config(nm_build_config *c) {
  int i;
  nm_build_config_init(c);
  c->tile_size = 24;
  memset(&g_vol, 0, sizeof g_vol);
  g_vol.kind = NM_VOLUME_CONVEX;
  g_vol.verts = g_outline;
  g_vol.nverts = 4;
  g_vol.hmin = -1;
  g_vol.hmax = 2;
  g_vol.area = 3;
  c->volumes = &g_vol;
  c->nvolumes = 1;
  memset(&g_link, 0, sizeof g_link);
  g_link.start[0] = 5; g_link.start[2] = 14;
  g_link.end[0] = 9; g_link.end[2] = 18;
  g_link.radius = 0.6f;
  g_link.bidirectional = 1;
  g_link.area = 5;
  g_link.flags = 4;
  c->offmesh = &g_link;
  c->noffmesh = 1;
  for (i = 0; i < NM_MAX_AREAS; i++) g_flags[i] = (uint16_t)(i == 3 ? 9 : 1);
  c->area_flags = g_flags;
}

/* Builds every tile alone and assembles them; compares with the whole
 * build. Returns the number of non-empty tiles (-1 on a failure). */
static int assemble_equals_build(const geom *g, const nm_build_config *cfg) {
  nm_navmesh_params p;
  nm_navmesh *whole = NULL, *parts = NULL;
  void *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  int tx, ty, nx = 0, ny = 0, n = 0, ok = 1;
  if (nm_navmesh_build(g->v, g->nv, g->t, g->nt, cfg, NULL, NULL, &whole, NULL) < 0) return -1;
  ok &= nm_build_tile_grid(g->v, g->nv, cfg, NULL, &p, &nx, &ny) == NM_OK;
  ok &= nm_navmesh_new(&p, NULL, NULL, &parts) == NM_OK;
  for (ty = 0; ok && ty < ny; ty++)
    for (tx = 0; ok && tx < nx; tx++) {
      void *blob = NULL;
      size_t size = 0;
      const void *w;
      size_t nw;
      nm_status st = nm_navmesh_build_tile(g->v, g->nv, g->t, g->nt, cfg, tx, ty, NULL, NULL, &blob, &size, NULL);
      if (st == NM_ERR_EMPTY) {
        ok &= blob == NULL && nm_navmesh_get_tile(whole, tx, ty, 0, &w, &nw) == NM_ERR_PARAM;
        continue;
      }
      ok &= st == NM_OK && nm_navmesh_add_tile(parts, blob, size, NULL, NULL) == NM_OK;
      /* the same header and size as the tile of the whole build */
      ok &= nm_navmesh_get_tile(whole, tx, ty, 0, &w, &nw) == NM_OK && nw == size && memcmp(w, blob, 100) == 0;
      nm_tile_free(NULL, blob, size);
      n++;
    }
  ok &= nm_navmesh_save(whole, NM_FORMAT_NATIVE, &a, &na) == NM_OK;
  ok &= nm_navmesh_save(parts, NM_FORMAT_NATIVE, &b, &nb) == NM_OK;
  ok &= na == nb && a && b && memcmp(a, b, na) == 0;
  nm_free_bytes(whole, a, na);
  nm_free_bytes(parts, b, nb);
  nm_navmesh_release(whole);
  nm_navmesh_release(parts);
  return ok ? n : -1;
}

TEST(yard_tiles_equal_the_whole_build) {
  geom g;
  nm_build_config cfg;
  int n;
  yard(&g);
  yard_config(&cfg);
  n = assemble_equals_build(&g, &cfg);
  printf("# yard: %d tiles built alone equal the whole build's\n", n);
  CHECK(n >= 9);
  cfg.partition = NM_PARTITION_MONOTONE;
  CHECK(assemble_equals_build(&g, &cfg) == n);
  cfg.partition = NM_PARTITION_LAYERS;
  CHECK(assemble_equals_build(&g, &cfg) == n);
  geom_free(&g);
}

/* Polygons get their flags from the area map: mud 9, ground 1; the
 * off-mesh connection keeps its own. */
TEST(area_flags) {
  geom g;
  nm_build_config cfg;
  nm_navmesh *m = NULL;
  nm_tile_info tiles[64];
  int nt = 0, i, j, mud = 0, ground = 0, bad = 0;
  yard(&g);
  yard_config(&cfg);
  CHECK(nm_navmesh_build(g.v, g.nv, g.t, g.nt, &cfg, NULL, NULL, &m, NULL) == NM_OK);
  CHECK(nm_navmesh_tiles(m, tiles, 64, &nt) == NM_OK);
  for (i = 0; i < nt; i++)
    for (j = 0; j < tiles[i].polys; j++) {
      uint16_t f = 0;
      uint8_t area = 0;
      nm_navmesh_get_poly_flags(m, tiles[i].ref | (nm_polyref)j, &f);
      nm_navmesh_get_poly_area(m, tiles[i].ref | (nm_polyref)j, &area);
      if (area == 3) mud += f == 9;
      else if (area == 0) ground += f == 1;
      else if (area == 5) bad += f != 4; /* the jump */
      else bad++;
      if ((area == 3 && f != 9) || (area == 0 && f != 1)) bad++;
    }
  printf("# area flags: %d mud polygons with flags 9, %d ground polygons with flags 1\n", mud, ground);
  CHECK(mud > 0 && ground > 0 && bad == 0);
  nm_navmesh_release(m);
  geom_free(&g);
}

TEST(errors) {
  geom g;
  nm_build_config cfg;
  nm_navmesh_params p;
  nm_diag d;
  void *blob = (void *)&g;
  size_t size = 1;
  int nx = 0, ny = 0;
  yard(&g);
  yard_config(&cfg);
  CHECK(nm_build_tile_grid(g.v, g.nv, &cfg, NULL, &p, &nx, &ny) == NM_OK && nx == 5 && ny == 5);
  CHECK(p.max_tiles == 32 && p.max_polys == 1 << 17);
  CHECK(nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, nx, 0, NULL, &d, &blob, &size, NULL) == NM_ERR_PARAM);
  CHECK(blob == NULL && size == 0 && strcmp(d.field, "tile") == 0);
  CHECK(nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, 0, -1, NULL, &d, &blob, &size, NULL) == NM_ERR_PARAM);
  CHECK(nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, 0, 0, NULL, &d, NULL, &size, NULL) == NM_ERR_PARAM);
  cfg.cell_size = NAN;
  CHECK(nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, 0, 0, NULL, &d, &blob, &size, NULL) == NM_ERR_PARAM);
  CHECK(strcmp(d.field, "cellSize") == 0);
  CHECK(nm_build_tile_grid(g.v, g.nv, &cfg, &d, &p, &nx, &ny) == NM_ERR_PARAM);
  yard_config(&cfg);
  cfg.tile_size = 0;
  CHECK(nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, 0, 0, NULL, &d, &blob, &size, NULL) == NM_ERR_PARAM);
  CHECK(strcmp(d.field, "tileSize") == 0);
  CHECK(nm_build_tile_grid(g.v, g.nv, &cfg, &d, &p, &nx, &ny) == NM_ERR_PARAM);
  yard_config(&cfg);
  cfg.bmin[0] = 0; cfg.bmin[1] = -1; cfg.bmin[2] = 0; /* a box wider than the yard: empty tiles */
  cfg.bmax[0] = 60; cfg.bmax[1] = 5; cfg.bmax[2] = 30;
  CHECK(nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, 7, 0, NULL, &d, &blob, &size, NULL) == NM_ERR_EMPTY);
  CHECK(blob == NULL && size == 0);
  geom_free(&g);
}

/* A rebuilt tile swapped into a version keeps its references. */
TEST(swap_a_rebuilt_tile_into_a_version) {
  geom g;
  nm_build_config cfg;
  nm_navmesh *m = NULL, *v1 = NULL, *d = NULL;
  void *blob = NULL;
  size_t size = 0;
  nm_polyref ref;
  uint16_t f = 0;
  yard(&g);
  yard_config(&cfg);
  CHECK(nm_navmesh_build(g.v, g.nv, g.t, g.nt, &cfg, NULL, NULL, &m, NULL) == NM_OK);
  CHECK(nm_navmesh_version_new(m, NULL, &v1) == NM_OK);
  g_flags[0] = 0x21; /* ground gets other flags in the rebuilt tile */
  CHECK(nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, 1, 1, NULL, NULL, &blob, &size, NULL) == NM_OK);
  CHECK(nm_navmesh_version_edit(v1, &d) == NM_OK);
  ref = nm_navmesh_tile_ref_at(d, 1, 1, 0);
  CHECK(ref != 0 && nm_navmesh_remove_tile(d, 1, 1, 0, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_add_tile_ref(d, blob, size, ref, NULL, NULL) == NM_OK);
  CHECK(nm_navmesh_version_commit(d) == NM_OK);
  CHECK(nm_navmesh_tile_ref_at(d, 1, 1, 0) == ref);
  CHECK(nm_navmesh_get_poly_flags(d, ref, &f) == NM_OK && (f == 0x21 || f == 9));
  CHECK(nm_navmesh_get_poly_flags(v1, ref, &f) == NM_OK && (f == 1 || f == 9));
  nm_tile_free(NULL, blob, size);
  nm_navmesh_release(d);
  nm_navmesh_release(v1);
  nm_navmesh_release(m);
  geom_free(&g);
}

TEST(allocation_failure) {
  geom g;
  nm_build_config cfg;
  track t;
  nm_alloc a;
  long k, nomem = 0, bad = 0;
  yard(&g);
  yard_config(&cfg);
  a.fn = track_fn;
  a.ud = &t;
  for (k = 1; k < 100000; k++) {
    void *blob = NULL;
    size_t size = 0;
    nm_status st;
    memset(&t, 0, sizeof t);
    t.fail_at = k;
    st = nm_navmesh_build_tile(g.v, g.nv, g.t, g.nt, &cfg, 2, 2, &a, NULL, &blob, &size, NULL);
    if (!t.failed) {
      if (st != NM_OK) bad++;
      nm_tile_free(&a, blob, size);
      if (t.live != 0) bad++;
      break;
    }
    if (st == NM_ERR_NOMEM && blob == NULL) nomem++;
    else bad++;
    if (t.live != 0 || t.bad_sizes) bad++;
  }
  printf("# nm_navmesh_build_tile: %ld allocations failed in turn, %ld problems\n", k - 1, bad);
  CHECK(bad == 0 && nomem == k - 1 && k > 10);
  geom_free(&g);
}

/* RecastDemo's Tile Mesh settings on dungeon.obj (tile size 32). */
TEST(dungeon_tiles) {
  const char *dir = getenv("NAVMESH_SHARED");
  char path[512];
  FILE *f;
  char *text;
  long len;
  geom g;
  nm_build_config cfg;
  int n;
  snprintf(path, sizeof path, "%s/meshes/dungeon.obj", dir ? dir : "../shared");
  if (!(f = fopen(path, "rb"))) {
    printf("# SKIP %s: not found (reference data lives beside the project)\n", path);
    return;
  }
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = (char *)malloc((size_t)len);
  CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
  fclose(f);
  memset(&g, 0, sizeof g);
  CHECK(nm_obj_parse(text, (size_t)len, NULL, NULL, &g.v, &g.nv, &g.t, &g.nt) == NM_OK);
  nm_build_config_init(&cfg);
  cfg.tile_size = 32;
  n = assemble_equals_build(&g, &cfg);
  printf("# dungeon.obj: %d tiles built alone equal the whole build's\n", n);
  CHECK(n > 20);
  nm_obj_free(NULL, g.v, g.nv, g.t, g.nt);
  free(text);
}

int main(void) {
  RUN(yard_tiles_equal_the_whole_build);
  RUN(area_flags);
  RUN(errors);
  RUN(swap_a_rebuilt_tile_into_a_version);
  RUN(allocation_failure);
  RUN(dungeon_tiles);
  return tap_done();
}
