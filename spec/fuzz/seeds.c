/* seeds.c -- writes the fuzz seed corpora, made with the library itself:
 *   seeds DIR     -> DIR/<target>/seed-NN for every target
 * mset/native: the fixture mesh, single tiles and an empty mesh saved in
 * both formats; tile: the fixture's tile blobs; tilecreate and build_soup:
 * small polygon and triangle soups in those targets' input encodings;
 * query: operation sequences over the fixture; obj: small OBJ texts;
 * tset: generated tile caches (spec/c/cache_level.h); obstacles: obstacle
 * request sequences on such a cache. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <sys/stat.h>
#include "fuzz.h"
#include "../c/cache_level.h"

static char g_dir[512];

/* Writes one seed file DIR/target/seed-NN. */
static void put(const char *target, int n, const void *p, size_t len) {
  char path[640];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", g_dir, target);
  if (mkdir(path, 0777) != 0 && errno != EEXIST) { perror(path); exit(1); }
  snprintf(path, sizeof path, "%s/%s/seed-%02d", g_dir, target, n);
  if (!(f = fopen(path, "wb")) || fwrite(p, 1, len, f) != len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* ---- an encoder for the targets' byte formats ---- */

typedef struct enc { uint8_t b[8192]; size_t n; } enc;

static void e_u8(enc *e, int v) { if (e->n < sizeof e->b) e->b[e->n++] = (uint8_t)v; }
static void e_u16(enc *e, int v) { e_u8(e, v & 0xff); e_u8(e, (v >> 8) & 0xff); }
/* A coordinate as fz_coord reads it: one lattice byte when exact, else raw. */
static void e_coord(enc *e, float v) {
  const float k = v * 4.0f + 124.0f;
  if (k >= 0 && k < 0xf7 && k == (float)(int)k) {
    e_u8(e, (int)k);
  } else {
    uint32_t u;
    memcpy(&u, &v, 4);
    e_u8(e, 0xff);
    e_u16(e, (int)(u & 0xffff));
    e_u16(e, (int)(u >> 16));
  }
}

/* ---- mesh files ---- */

static void save_both(nm_navmesh *m, int n) {
  void *b;
  size_t len;
  if (nm_navmesh_save(m, NM_FORMAT_MSET, &b, &len) == NM_OK) { put("mset", n, b, len); nm_free_bytes(m, b, len); }
  if (nm_navmesh_save(m, NM_FORMAT_NATIVE, &b, &len) == NM_OK) { put("native", n, b, len); nm_free_bytes(m, b, len); }
}

static void mesh_seeds(void) {
  nm_navmesh *m;
  nm_navmesh_params prm;
  int i;
  if (fz_fixture_mesh(&m) != NM_OK) exit(1);
  save_both(m, 0);
  nm_navmesh_release(m);
  for (i = 0; i < FZ_GRID * FZ_GRID; i++) {
    void *blob;
    size_t size;
    if (fz_fixture_tile(i % FZ_GRID, i / FZ_GRID, &blob, &size) != NM_OK) exit(1);
    put("tile", i, blob, size);
    if (i < 3 && nm_navmesh_load(blob, size, NULL, NULL, &m) == NM_OK) {
      save_both(m, 1 + i);
      nm_navmesh_release(m);
    }
    nm_tile_free(NULL, blob, size);
  }
  memset(&prm, 0, sizeof prm);
  prm.tile_width = prm.tile_height = 4;
  prm.max_tiles = 4;
  prm.max_polys = 8;
  if (nm_navmesh_new(&prm, NULL, NULL, &m) == NM_OK) {
    save_both(m, 4);
    nm_navmesh_release(m);
  }
}

/* ---- tilecreate inputs ---- */

/* Header of a tilecreate input (see fuzz_tilecreate.c). */
static void tc_head(enc *e, int opt, int nvp, int nverts, int npolys, int noff) {
  e_u8(e, opt); e_u8(e, nvp); e_u8(e, nverts); e_u8(e, npolys); e_u8(e, noff);
  e_u8(e, 0); e_u8(e, 0); e_u8(e, 0);
  e_coord(e, 2.0f); e_coord(e, 0.5f); e_coord(e, 0.75f); e_coord(e, 0.25f);
}

/* An n x n lattice of quads (cell 2 wu), optionally with areas and flags. */
static void tc_grid(int seed, int n, int opt) {
  enc e;
  int i, j;
  e.n = 0;
  tc_head(&e, opt, 4, (n + 1) * (n + 1), n * n, 0);
  for (j = 0; j <= n; j++)
    for (i = 0; i <= n; i++) { e_coord(&e, i * 2.0f); e_coord(&e, (i + j) * 0.25f); e_coord(&e, j * 2.0f); }
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      const int a = j * (n + 1) + i;
      e_u8(&e, a); e_u8(&e, a + 1); e_u8(&e, a + n + 2); e_u8(&e, a + n + 1);
    }
  if (opt & 4) for (i = 0; i < n * n; i++) e_u8(&e, i % 3);
  if (opt & 8) for (i = 0; i < n * n; i++) e_u16(&e, 1 + (i & 1));
  if (opt & 128) { e_coord(&e, 0); e_coord(&e, -1); e_coord(&e, 0); e_coord(&e, n * 2.0f); e_coord(&e, 4); e_coord(&e, n * 2.0f); }
  put("tilecreate", seed, e.b, e.n);
}

/* A hexagon and two triangles, nvp 6, with a detail mesh and links. */
static void tc_mixed(int seed) {
  static const float v[8][3] = {{0, 0, 0}, {4, 0, 0}, {6, 0, 3}, {4, 0, 6}, {0, 0, 6}, {-2, 0, 3},
                                {6, 0.5f, 8}, {8, 0.5f, 4}};
  enc e;
  int i;
  e.n = 0;
  tc_head(&e, 1 | 2 | 32 | 4, 6, 8, 3, 2);
  for (i = 0; i < 8; i++) { e_coord(&e, v[i][0]); e_coord(&e, v[i][1]); e_coord(&e, v[i][2]); }
  for (i = 0; i < 6; i++) e_u8(&e, i);
  e_u8(&e, 2); e_u8(&e, 7); e_u8(&e, 3); e_u8(&e, 0xff); e_u8(&e, 0xff); e_u8(&e, 0xff);
  e_u8(&e, 3); e_u8(&e, 7); e_u8(&e, 6); e_u8(&e, 0xff); e_u8(&e, 0xff); e_u8(&e, 0xff);
  e_u8(&e, 0); e_u8(&e, 1); e_u8(&e, 2); /* areas */
  /* detail: hexagon = its 6 corners + a raised centre (7 verts, 6 tris);
   * triangles = their corners only (3 verts, 1 tri each) */
  e_u8(&e, 13);
  for (i = 0; i < 6; i++) { e_coord(&e, v[i][0]); e_coord(&e, v[i][1]); e_coord(&e, v[i][2]); }
  e_coord(&e, 2); e_coord(&e, 0.25f); e_coord(&e, 3);
  e_coord(&e, v[2][0]); e_coord(&e, v[2][1]); e_coord(&e, v[2][2]);
  e_coord(&e, v[7][0]); e_coord(&e, v[7][1]); e_coord(&e, v[7][2]);
  e_coord(&e, v[3][0]); e_coord(&e, v[3][1]); e_coord(&e, v[3][2]);
  e_coord(&e, v[3][0]); e_coord(&e, v[3][1]); e_coord(&e, v[3][2]);
  e_coord(&e, v[7][0]); e_coord(&e, v[7][1]); e_coord(&e, v[7][2]);
  e_coord(&e, v[6][0]); e_coord(&e, v[6][1]); e_coord(&e, v[6][2]);
  e_u8(&e, 8);
  for (i = 0; i < 6; i++) { e_u8(&e, i); e_u8(&e, (i + 1) % 6); e_u8(&e, 6); e_u8(&e, 0); }
  for (i = 0; i < 2; i++) { e_u8(&e, 0); e_u8(&e, 1); e_u8(&e, 2); e_u8(&e, 0); }
  e_u8(&e, 0); e_u8(&e, 7); e_u8(&e, 0); e_u8(&e, 6);
  e_u8(&e, 7); e_u8(&e, 3); e_u8(&e, 6); e_u8(&e, 1);
  e_u8(&e, 10); e_u8(&e, 3); e_u8(&e, 7); e_u8(&e, 1);
  for (i = 0; i < 2; i++) { /* off-mesh: inside, and to a point off the tile */
    e_coord(&e, 1); e_coord(&e, 0); e_coord(&e, 1);
    e_coord(&e, i ? 20.0f : 5.0f); e_coord(&e, 0.5f); e_coord(&e, i ? 3.0f : 7.0f);
    e_coord(&e, 0.5f); e_u8(&e, 1); e_u8(&e, 5); e_u16(&e, 2);
  }
  put("tilecreate", seed, e.b, e.n);
}

/* ---- query sequences ---- */

static void q_nearest(enc *e, float x, float z) {
  e_u8(e, 0); e_coord(e, x); e_coord(e, fz_ground(x, z)); e_coord(e, z); e_u8(e, 3 + 16 * 3);
}

static void query_seeds(void) {
  enc e;
  int s, i;
  for (s = 0; s < 6; s++) {
    e.n = 0;
    e_u8(&e, s % 4); /* node pool size */
    q_nearest(&e, 1.5f + s, 1.5f);
    q_nearest(&e, 22.5f - s, 21.0f);
    e_u8(&e, 2); e_u8(&e, 0); e_u8(&e, 1); e_u8(&e, 255); /* path seen[0] -> seen[1], cap 256 */
    e_coord(&e, 1.5f + s); e_coord(&e, 0); e_coord(&e, 1.5f);
    e_coord(&e, 22.5f - s); e_coord(&e, 1); e_coord(&e, 21.0f);
    e_u8(&e, 4); e_u8(&e, (uint8_t)(s | 4)); e_u8(&e, 63); /* straight, crossings s%4, inset */
    e_coord(&e, 1.5f + s); e_coord(&e, 0); e_coord(&e, 1.5f);
    e_coord(&e, 22.5f - s); e_coord(&e, 1); e_coord(&e, 21.0f);
    e_coord(&e, 0.25f * s);
    for (i = 5; i < 8; i++) { e_u8(&e, i); e_u8(&e, 100); e_u8(&e, s * 5); e_coord(&e, 3); e_coord(&e, 0); e_coord(&e, 3); }
    if (s & 1) { e_u8(&e, 11); e_u8(&e, 1); e_u8(&e, 1); e_u8(&e, 1); } /* remove tile (1,1) */
    if (s & 2) { e_u8(&e, 10); e_u8(&e, 4); } /* add tile 4 back */
    e_u8(&e, 8); e_u8(&e, 2 | 64); e_u16(&e, 0xffff); e_u16(&e, 2); e_u8(&e, 0); /* filter */
    e_u8(&e, 2); e_u8(&e, 0); e_u8(&e, 1); e_u8(&e, 64);
    e_coord(&e, 1.5f); e_coord(&e, 0); e_coord(&e, 1.5f);
    e_coord(&e, 20.0f); e_coord(&e, 1); e_coord(&e, 20.0f);
    e_u8(&e, 4); e_u8(&e, 1); e_u8(&e, 16);
    e_coord(&e, 1.5f); e_coord(&e, 0); e_coord(&e, 1.5f);
    e_coord(&e, 20.0f); e_coord(&e, 1); e_coord(&e, 20.0f);
    put("query", s, e.b, e.n);
  }
}

/* ---- OBJ texts and triangle soups ---- */

static void obj_seeds(void) {
  static const char *const objs[] = {
    "# a quad\nv 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nf 1 2 3 4\n",
    "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nvt 0 0\nvn 0 1 0\nf 1/1/1 2/1/1 3/1/1\nf -4//1 -2//1 -1//1\n",
    "o box\nv 0 0 0\nv 20 0 0\nv 20 0 20\nv 0 0 20\nv 8 0 8\nv 12 0 8\nv 12 0 12\nv 8 0 12\n"
    "v 8 3 8\nv 12 3 8\nv 12 3 12\nv 8 3 12\nf 1 2 3 4\nf 9 10 11 12\nf 5 6 10 9\nf 6 7 11 10\n"
    "f 7 8 12 11\nf 8 5 9 12\ng x\ns off\nusemtl m\n",
    "v 1e3 -2.5e-1 +3\r\nv 4 5 6\r\nv 7 8 9 1.0\r\nf 1 2 3\r\n",
  };
  int i;
  for (i = 0; i < (int)(sizeof objs / sizeof *objs); i++) put("obj", i, objs[i], strlen(objs[i]));
}

/* A ground plane of n x n quads (as triangles), maybe with a block on it. */
static void soup_seed(int seed, int opt, int n, int block) {
  enc e;
  int i, j, nv = (n + 1) * (n + 1), nt = n * n * 2;
  e.n = 0;
  e_u8(&e, opt);
  e_coord(&e, 0.25f); e_coord(&e, 0.25f); e_coord(&e, 2.0f); e_coord(&e, 0.5f); e_coord(&e, 0.75f);
  e_coord(&e, 45); e_coord(&e, 8); e_coord(&e, 20); e_coord(&e, 12); e_coord(&e, 1.25f);
  e_coord(&e, 6); e_coord(&e, 1);
  e_u8(&e, 6);
  if (opt & 32) e_u8(&e, 8);
  if (opt & 64) {
    e_u8(&e, 1); e_coord(&e, 2); e_coord(&e, -1); e_coord(&e, 2); e_coord(&e, 6); e_coord(&e, 3); e_coord(&e, 6);
    e_coord(&e, 4); e_coord(&e, 0); e_coord(&e, 4); e_coord(&e, 2); e_coord(&e, 2); e_coord(&e, -1); e_coord(&e, 3);
    e_u8(&e, 3);
  }
  e_u8(&e, nv + (block ? 8 : 0));
  for (j = 0; j <= n; j++)
    for (i = 0; i <= n; i++) { e_coord(&e, i * 4.0f - 8); e_coord(&e, 0); e_coord(&e, j * 4.0f - 8); }
  if (block)
    for (i = 0; i < 8; i++) { e_coord(&e, (i & 1) ? 2 : 0); e_coord(&e, (i & 4) ? 3 : 0); e_coord(&e, (i & 2) ? 2 : 0); }
  e_u8(&e, nt + (block ? 10 : 0));
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      const int a = j * (n + 1) + i;
      e_u8(&e, a); e_u8(&e, a + n + 1); e_u8(&e, a + 1);
      e_u8(&e, a + 1); e_u8(&e, a + n + 1); e_u8(&e, a + n + 2);
    }
  if (block) { /* top and four sides of a 2 x 3 x 2 block */
    static const int q[5][4] = {{4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (i = 0; i < 5; i++) {
      e_u8(&e, nv + q[i][0]); e_u8(&e, nv + q[i][1]); e_u8(&e, nv + q[i][2]);
      e_u8(&e, nv + q[i][0]); e_u8(&e, nv + q[i][2]); e_u8(&e, nv + q[i][3]);
    }
  }
  put("build_soup", seed, e.b, e.n);
}

/* ---- tile caches and obstacle sequences ---- */

static void tset_seeds(void) {
  size_t len;
  int i;
  for (i = 0; i < 3; i++) {
    uint8_t *b = cl_make_tset(1 + i, 1 + (i + 1) / 2, &len);
    put("tset", i, b, len);
    free(b);
  }
}

/* One add of each kind, a move, updates with budgets, a removal. */
static void obstacle_seeds(void) {
  enc e;
  int kind;
  for (kind = 0; kind < 4; kind++) {
    e.n = 0;
    e_u8(&e, 0); /* add */
    e_u8(&e, kind | (kind == 2 ? 8 : 0));
    if (kind == 2) e_u8(&e, 7); /* area 7 */
    e_coord(&e, 6); e_coord(&e, 0); e_coord(&e, 6);          /* pos */
    e_coord(&e, 1.5f); e_coord(&e, 3);                        /* radius, height */
    e_coord(&e, 4); e_coord(&e, -1); e_coord(&e, 4);          /* bmin */
    e_coord(&e, 8); e_coord(&e, 2); e_coord(&e, 7);           /* bmax */
    e_coord(&e, 13); e_coord(&e, 0.5f); e_coord(&e, 13);      /* center */
    e_coord(&e, 2); e_coord(&e, 1.5f); e_coord(&e, 0.5f);     /* half extents */
    e_coord(&e, 0.75f); e_coord(&e, -1); e_coord(&e, 3);      /* yaw, hmin, hmax */
    e_u8(&e, 4);                                              /* prism outline */
    e_coord(&e, 10); e_coord(&e, 0); e_coord(&e, 10);
    e_coord(&e, 14); e_coord(&e, 0); e_coord(&e, 9);
    e_coord(&e, 15); e_coord(&e, 0); e_coord(&e, 13);
    e_coord(&e, 11); e_coord(&e, 0); e_coord(&e, 15);
    e_u8(&e, 2); e_u8(&e, 1);                                 /* update, budget 1 */
    e_u8(&e, 4); e_u8(&e, 0);                                 /* update, all */
    e_u8(&e, 1); e_u8(&e, 0);                                 /* remove live[0] */
    e_u8(&e, 2); e_u8(&e, 0);
    put("obstacles", kind, e.b, e.n);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: seeds DIR\n"); return 2; }
  snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
  if (mkdir(g_dir, 0777) != 0 && errno != EEXIST) { perror(g_dir); return 1; }
  mesh_seeds();
  tc_grid(0, 1, 0);
  tc_grid(1, 3, 1 | 2 | 4 | 8);
  tc_grid(2, 4, 1 | 2 | 128);
  tc_grid(3, 2, 2 | 8);
  tc_mixed(4);
  query_seeds();
  obj_seeds();
  soup_seed(0, 0, 4, 0);
  soup_seed(1, 4 | 8 | 16, 4, 1);
  soup_seed(2, 1 | 32, 4, 1);
  soup_seed(3, 2 | 64 | 4 | 8 | 16, 3, 0);
  tset_seeds();
  obstacle_seeds();
  return 0;
}
