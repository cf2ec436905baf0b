/* test_optimal.c -- unit tests of the optimal path search
 * (nm_query_find_path_optimal, nm_query_path_optimal) on small hand-made
 * meshes: exact lengths around corners, partial portals at tile borders
 * (T-junctions, walls starting inside an edge), tile corners, filters,
 * fallback, partial paths, argument errors, no allocation once warm, and
 * allocation failure at every step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "navmesh.h"

#define CAP 256

/* ---- building test meshes ---- */

/* Counting allocator that can fail from the n-th allocation on. */
typedef struct counter {
  long allocs, live, fail_at;
} counter;

static void *count_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counter *c = (counter *)ud;
  if (nsize == 0) {
    if (ptr) c->live--;
    free(ptr);
    return NULL;
  }
  if (c->fail_at >= 0 && c->allocs >= c->fail_at) return NULL;
  c->allocs++;
  if (!ptr) c->live++;
  (void)osize;
  return realloc(ptr, nsize);
}

/* A tile of square cells from a map ('.' floor), cell size 1, origin
 * (ox, oz), as tile (tx, ty) of size w x h cells. Cells with 'x' get flags
 * 2. Returns the blob (malloc'd). */
static void *grid_tile(const char *const *map, int w, int h, float ox, float oz, int tx, int ty,
                       int border, size_t *size) {
  float verts[3 * 64 * 64];
  uint16_t polys[6 * 64 * 64], flags[64 * 64];
  int nv = 0, np = 0, i, j, k;
  nm_poly_mesh_input in;
  void *blob = NULL;
  for (j = 0; j <= h; j++)
    for (i = 0; i <= w; i++) {
      verts[3 * nv] = ox + (float)i;
      verts[3 * nv + 1] = 0;
      verts[3 * nv + 2] = oz + (float)j;
      nv++;
    }
  for (j = 0; j < h; j++)
    for (i = 0; i < w; i++) {
      const char ch = map[j][i];
      if (ch != '.' && ch != 'x') continue;
      polys[6 * np] = (uint16_t)(j * (w + 1) + i);
      polys[6 * np + 1] = (uint16_t)((j + 1) * (w + 1) + i);
      polys[6 * np + 2] = (uint16_t)((j + 1) * (w + 1) + i + 1);
      polys[6 * np + 3] = (uint16_t)(j * (w + 1) + i + 1);
      for (k = 4; k < 6; k++) polys[6 * np + k] = 0xffff;
      flags[np] = ch == 'x' ? 2 : 1;
      np++;
    }
  memset(&in, 0, sizeof in);
  in.verts = verts;
  in.nverts = nv;
  in.polys = polys;
  in.npolys = np;
  in.nvp = 6;
  in.flags = flags;
  in.border_portals = border;
  in.tile_x = tx;
  in.tile_y = ty;
  in.bmin[0] = ox;
  in.bmin[1] = -1;
  in.bmin[2] = oz;
  in.bmax[0] = ox + (float)w;
  in.bmax[1] = 1;
  in.bmax[2] = oz + (float)h;
  in.walkable_height = 2;
  in.walkable_radius = 0.5f;
  in.walkable_climb = 0.9f;
  in.build_bvtree = 1;
  if (nm_tile_create(&in, NULL, NULL, &blob, size) < 0) return NULL;
  return blob;
}

/* A one-tile mesh from a map. */
static nm_navmesh *grid_mesh(const char *const *map, int w, int h, const nm_alloc *a) {
  size_t size;
  void *blob = grid_tile(map, w, h, 0, 0, 0, 0, 0, &size);
  nm_navmesh *m = NULL;
  if (blob && nm_navmesh_load(blob, size, a, NULL, &m) < 0) m = NULL;
  free(blob);
  return m;
}

/* A mesh of 4 x 4 tiles (room for 4) holding tile (0, 0) made from a
 * 4 x 4 map with border portals, so that more tiles can join it. */
static nm_navmesh *tiled_mesh(const char *const *map) {
  nm_navmesh_params prm;
  nm_navmesh *m = NULL;
  size_t size;
  void *blob;
  memset(&prm, 0, sizeof prm);
  prm.tile_width = prm.tile_height = 4;
  prm.max_tiles = 4;
  prm.max_polys = 64;
  if (nm_navmesh_new(&prm, NULL, NULL, &m) != NM_OK) return NULL;
  blob = grid_tile(map, 4, 4, 0, 0, 0, 0, 1, &size);
  if (!blob || nm_navmesh_add_tile(m, blob, size, NULL, NULL) != NM_OK) {
    nm_navmesh_release(m);
    m = NULL;
  }
  free(blob);
  return m;
}

/* X/Z length of a point list. */
static double length2d(const float *p, int n) {
  double len = 0;
  int i;
  for (i = 1; i < n; i++) len += hypot(p[3 * i] - p[3 * i - 3], p[3 * i + 2] - p[3 * i - 1]);
  return len;
}

/* Optimal length from s to e: by corridor + funnel and by the turns; both
 * must agree (else -1). *st gets the status of the corridor search. */
static double opt_len(nm_query *q, const float *s, const float *e, const nm_filter *f, nm_status *st) {
  const float ext[3] = {0.1f, 2, 0.1f};
  nm_polyref sr, er, path[CAP], refs[CAP];
  float pts[3 * CAP], ns[3], ne[3];
  int n = 0, np = 0;
  double a, b;
  if (nm_query_find_nearest(q, s, ext, f, &sr, ns, NULL) < 0) return -1;
  if (nm_query_find_nearest(q, e, ext, f, &er, ne, NULL) < 0) return -1;
  *st = nm_query_find_path_optimal(q, sr, er, ns, ne, f, path, CAP, &n);
  if (*st < 0) return -1;
  nm_query_straight_path(q, ns, ne, path, n, NULL, pts, NULL, NULL, CAP, &np);
  a = length2d(pts, np);
  if (nm_query_path_optimal(q, sr, er, ns, ne, f, pts, refs, CAP, &np) < 0) return -1;
  b = length2d(pts, np);
  return fabs(a - b) <= 1e-5 * (1 + a) ? a : -1;
}

static const char *const ROOM[] = { /* 8 x 6, a wall in the middle */
  "........",
  "........",
  "...##...",
  "...##...",
  "........",
  "........"};

/* ---- tests ---- */

TEST(exact_around_a_wall) {
  nm_navmesh *m = grid_mesh(ROOM, 8, 6, NULL);
  nm_query *q;
  nm_filter f;
  nm_status st;
  const float a[3] = {2.5f, 0, 2.5f}, b[3] = {5.5f, 0, 3.5f};
  CHECK(m != NULL);
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  /* from left of the wall to right of it: around corner (3,2) and (5,2)
   * or (3,4),(5,4); the first: |a (3,2)| + 2 + |(5,2) b| */
  CHECK_NEAR(opt_len(q, a, b, &f, &st), sqrt(0.5) + 2 + sqrt(0.25 + 2.25), 1e-4);
  CHECK(st == NM_OK);
  { /* arrays too short: the path is cut, keeping its start */
    const float ext[3] = {0.1f, 2, 0.1f};
    nm_polyref sr, er, refs[4], crefs[4];
    float ns[3], ne[3], pts[12], cut[12];
    int n = 0, k, cap;
    nm_query_find_nearest(q, a, ext, &f, &sr, ns, NULL);
    nm_query_find_nearest(q, b, ext, &f, &er, ne, NULL);
    CHECK(nm_query_path_optimal(q, sr, er, ns, ne, &f, pts, refs, 4, &n) == NM_OK && n == 4);
    for (cap = 1; cap < 4; cap++) {
      st = nm_query_path_optimal(q, sr, er, ns, ne, &f, cut, crefs, cap, &k);
      CHECK(st == (NM_OK | NM_TRUNCATED) && k == cap);
      CHECK(memcmp(cut, pts, (size_t)k * 3 * sizeof(float)) == 0 && memcmp(crefs, refs, (size_t)k * sizeof *refs) == 0);
    }
  }
  nm_query_free(q);
  nm_navmesh_release(m);
}

TEST(filter_flags_are_walls) {
  static const char *const map[] = {"....", "xxx.", "...."};
  nm_navmesh *m = grid_mesh(map, 4, 3, NULL);
  nm_query *q;
  nm_filter f;
  nm_status st;
  const float a[3] = {0.5f, 0, 0.5f}, b[3] = {0.5f, 0, 2.5f};
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  CHECK_NEAR(opt_len(q, a, b, &f, &st), 2, 1e-5); /* straight through the 'x' cells */
  f.exclude_flags = 2;                            /* now they are walls */
  CHECK_NEAR(opt_len(q, a, b, &f, &st), hypot(2.5, 0.5) * 2 + 1, 1e-4);
  CHECK(st == NM_OK);
  nm_query_free(q);
  nm_navmesh_release(m);
}

TEST(unreachable_goal_is_partial) {
  static const char *const map[] = {"..#..", "..#..", "..#.."};
  nm_navmesh *m = grid_mesh(map, 5, 3, NULL);
  nm_query *q;
  nm_filter f;
  nm_polyref sr, er, path[CAP];
  float s[3] = {0.5f, 0, 1.5f}, e[3] = {4.5f, 0, 1.5f}, ns[3], ne[3];
  const float ext[3] = {0.1f, 2, 0.1f};
  int n;
  nm_status st;
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  nm_query_find_nearest(q, s, ext, &f, &sr, ns, NULL);
  nm_query_find_nearest(q, e, ext, &f, &er, ne, NULL);
  st = nm_query_find_path_optimal(q, sr, er, ns, ne, &f, path, CAP, &n);
  CHECK(st >= 0 && (st & NM_PARTIAL));
  CHECK(n >= 1 && path[0] == sr && path[n - 1] != er);
  {
    float v[18];
    int nv;
    nm_navmesh_get_poly_verts(m, path[n - 1], v, &nv);
    CHECK(v[0] >= 1 && v[0] <= 2); /* the column next to the wall */
  }
  nm_query_free(q);
  nm_navmesh_release(m);
}

/* A goal the filter cuts off (the same island, so the search must find
 * out): the path ends at the reachable point nearest the goal, and is the
 * shortest way there -- here around a wall. */
TEST(goal_cut_off_by_the_filter) {
  static const char *const map[] = {"......", "..#...", "..#...", "xxxxxx", "......"};
  nm_navmesh *m = grid_mesh(map, 6, 5, NULL);
  nm_query *q;
  nm_filter f, all;
  nm_polyref sr, er, path[CAP], refs[CAP];
  float s[3] = {0.5f, 0, 2.5f}, e[3] = {4.5f, 0, 4.5f}, ns[3], ne[3], pts[3 * CAP];
  const float ext[3] = {0.1f, 2, 0.1f};
  int n = 0, np = 0;
  nm_status st;
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  nm_filter_init(&all);
  f.exclude_flags = 2;
  nm_query_find_nearest(q, s, ext, &f, &sr, ns, NULL);
  nm_query_find_nearest(q, e, ext, &all, &er, ne, NULL);
  st = nm_query_path_optimal(q, sr, er, ns, ne, &f, pts, refs, CAP, &np);
  CHECK(st >= 0 && (st & NM_PARTIAL) && !(st & NM_OUT_OF_NODES));
  CHECK(np >= 2);
  if (np >= 2) { /* to (4.5, 3): round the wall's corners (2, 1) and (3, 1) */
    CHECK_NEAR(pts[3 * (np - 1)], 4.5, 1e-4);
    CHECK_NEAR(pts[3 * (np - 1) + 2], 3.0, 1e-4);
    CHECK_NEAR(length2d(pts, np), hypot(1.5, 1.5) + 1 + hypot(1.5, 2), 1e-4);
  }
  st = nm_query_find_path_optimal(q, sr, er, ns, ne, &f, path, CAP, &n);
  CHECK(st >= 0 && (st & NM_PARTIAL));
  CHECK(n >= 1 && path[0] == sr && path[n - 1] == refs[np - 1]);
  nm_query_free(q);
  nm_navmesh_release(m);
}

/* Unreachable goals while tiles come and go: the walk's tables follow the
 * mesh, so a new tile's polygons count (here the nearest to the goal). */
TEST(unreachable_goal_after_a_new_tile) {
  static const char *const west[] = {".#..", ".#..", ".#..", ".#.."}, *const east[] = {"..#.", "..#.", "..#.", "..#."};
  nm_navmesh *m;
  nm_query *q;
  nm_filter f;
  nm_polyref sr, er, refs[CAP];
  const float ext[3] = {0.1f, 2, 0.1f}, s[3] = {3.5f, 0, 0.5f}, e1[3] = {0.5f, 0, 3.5f}, e2[3] = {7.5f, 0, 1.5f};
  float ns[3], ne[3], pts[3 * CAP];
  size_t size;
  void *blob;
  int n = 0;
  nm_status st;
  CHECK((m = tiled_mesh(west)) != NULL);
  if (!m) return;
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  nm_query_find_nearest(q, s, ext, &f, &sr, ns, NULL);
  nm_query_find_nearest(q, e1, ext, &f, &er, ne, NULL);
  st = nm_query_path_optimal(q, sr, er, ns, ne, &f, pts, refs, CAP, &n);
  CHECK(st >= 0 && (st & NM_PARTIAL) && n >= 2); /* to the wall's east side, beside the goal */
  CHECK(n >= 2 && fabs(pts[3 * (n - 1)] - 2.0) < 1e-4 && fabs(pts[3 * (n - 1) + 2] - 3.5) < 1e-4);
  blob = grid_tile(east, 4, 4, 4, 0, 1, 0, 1, &size); /* joins the start's side; its last column does not */
  CHECK(blob && nm_navmesh_add_tile(m, blob, size, NULL, NULL) == NM_OK);
  free(blob);
  nm_query_find_nearest(q, e2, ext, &f, &er, ne, NULL);
  CHECK(er != 0);
  st = nm_query_path_optimal(q, sr, er, ns, ne, &f, pts, refs, CAP, &n);
  CHECK(st >= 0 && (st & NM_PARTIAL) && n >= 2);
  CHECK(n >= 2 && fabs(pts[3 * (n - 1)] - 6.0) < 1e-4 && fabs(pts[3 * (n - 1) + 2] - 1.5) < 1e-4);
  nm_query_free(q);
  nm_navmesh_release(m);
}

TEST(fallback_and_arguments) {
  nm_navmesh *m = grid_mesh(ROOM, 8, 6, NULL);
  nm_query *q;
  nm_filter f;
  nm_polyref sr, er, path[CAP], refs[CAP];
  float a[3] = {2.5f, 0, 2.5f}, b[3] = {5.5f, 0, 3.5f}, ns[3], ne[3], pts[3 * CAP];
  const float ext[3] = {0.1f, 2, 0.1f};
  float bad[3] = {NAN, 0, 0};
  int n = -1;
  nm_status st;
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  nm_query_find_nearest(q, a, ext, &f, &sr, ns, NULL);
  nm_query_find_nearest(q, b, ext, &f, &er, ne, NULL);
  CHECK(nm_query_find_path_optimal(q, sr, er, ns, ne, &f, path, CAP, NULL) == NM_ERR_PARAM);
  CHECK(nm_query_find_path_optimal(q, sr, er, bad, ne, &f, path, CAP, &n) == NM_ERR_PARAM && n == 0);
  CHECK(nm_query_find_path_optimal(q, sr, 12345, ns, ne, &f, path, CAP, &n) == NM_ERR_PARAM);
  CHECK(nm_query_find_path_optimal(q, sr, er, ns, ne, NULL, path, CAP, &n) == NM_ERR_PARAM);
  CHECK(nm_query_find_path_optimal(q, sr, er, ns, ne, &f, path, 0, &n) == NM_ERR_PARAM);
  CHECK(nm_query_path_optimal(q, sr, er, ns, ne, &f, pts, NULL, CAP, &n) == NM_ERR_PARAM);
  st = nm_query_find_path_optimal(q, sr, er, ns, ne, &f, path, 2, &n); /* cut at its end */
  CHECK(st >= 0 && (st & NM_TRUNCATED) && n == 2 && path[0] == sr);
  st = nm_query_path_optimal(q, sr, er, ns, ne, &f, pts, refs, 2, &n);
  CHECK(st >= 0 && (st & NM_TRUNCATED) && n == 2);
  f.area_cost[5] = 3; /* not uniform: A* */
  st = nm_query_find_path_optimal(q, sr, er, ns, ne, &f, path, CAP, &n);
  CHECK(st >= 0 && (st & NM_FALLBACK) && path[0] == sr && path[n - 1] == er);
  st = nm_query_path_optimal(q, sr, er, ns, ne, &f, pts, refs, CAP, &n);
  CHECK(st >= 0 && (st & NM_FALLBACK) && n >= 2);
  nm_query_free(q);
  nm_navmesh_release(m);
}

/* Two tiles: A (x 0..4) one open 4 x 4 block; B (x 4..8) two strips with a
 * wall between z 1.8 and 2.2. A's border edge links to both strips, each
 * over part of the edge; a path from one strip to the other turns around
 * the wall's end inside A's edge. */
TEST(partial_portals_at_a_tile_border) {
  static const char *const a_map[] = {"....", "....", "....", "...."};
  nm_navmesh *m;
  nm_query *q;
  nm_filter f;
  nm_status st;
  size_t size;
  void *blob;
  float v[3 * 8] = {4, 0, 0, 4, 0, 1.8f, 8, 0, 1.8f, 8, 0, 0, 4, 0, 2.2f, 4, 0, 4, 8, 0, 4, 8, 0, 2.2f};
  uint16_t polys[12] = {0, 1, 2, 3, 0xffff, 0xffff, 4, 5, 6, 7, 0xffff, 0xffff};
  nm_poly_mesh_input in;
  const float s[3] = {7, 0, 0.5f}, e[3] = {7, 0, 3.5f};
  CHECK((m = tiled_mesh(a_map)) != NULL);
  if (!m) return;
  memset(&in, 0, sizeof in);
  in.verts = v;
  in.nverts = 8;
  in.polys = polys;
  in.npolys = 2;
  in.nvp = 6;
  in.border_portals = 1;
  in.tile_x = 1;
  in.bmin[0] = 4;
  in.bmin[1] = -1;
  in.bmax[0] = 8;
  in.bmax[1] = 1;
  in.bmax[2] = 4;
  in.walkable_height = 2;
  in.walkable_climb = 0.9f;
  in.build_bvtree = 1;
  CHECK(nm_tile_create(&in, NULL, NULL, &blob, &size) == NM_OK);
  CHECK(nm_navmesh_add_tile(m, blob, size, NULL, NULL) == NM_OK);
  free(blob);
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  /* exact: |(7,.5) (4,1.8)| + 0.4 + |(4,2.2) (7,3.5)|; the tile-border
   * portal ends are rounded to 1/255 of A's edge (4 long) */
  CHECK_NEAR(opt_len(q, s, e, &f, &st), 2 * sqrt(9 + 1.69) + 0.4, 0.02);
  CHECK(st == NM_OK);
  nm_query_free(q);
  nm_navmesh_release(m);
}

/* Four tiles of open floor meeting at (4, 4): a diagonal path over the tile
 * corner is straight (the corner vertex is no wall corner). */
TEST(open_tile_corner) {
  static const char *const map[] = {"....", "....", "....", "...."};
  nm_navmesh_params prm;
  nm_navmesh *m;
  nm_query *q;
  nm_filter f;
  nm_status st;
  int tx, ty;
  const float s[3] = {1.3f, 0, 0.7f}, e[3] = {7.1f, 0, 6.9f};
  memset(&prm, 0, sizeof prm);
  prm.tile_width = prm.tile_height = 4;
  prm.max_tiles = 4;
  prm.max_polys = 64;
  CHECK(nm_navmesh_new(&prm, NULL, NULL, &m) == NM_OK);
  for (ty = 0; ty < 2; ty++)
    for (tx = 0; tx < 2; tx++) {
      size_t size;
      void *blob = grid_tile(map, 4, 4, 4.0f * tx, 4.0f * ty, tx, ty, 1, &size);
      CHECK(blob && nm_navmesh_add_tile(m, blob, size, NULL, NULL) == NM_OK);
      free(blob);
    }
  nm_query_new(m, 64, NULL, &q);
  nm_filter_init(&f);
  CHECK_NEAR(opt_len(q, s, e, &f, &st), hypot(5.8, 6.2), 1e-4);
  CHECK(st == NM_OK);
  nm_query_free(q);
  nm_navmesh_release(m);
}

/* A long winding corridor: many search nodes. */
static const char *const SNAKE[] = {
  "..............................",
  "#############################.",
  "..............................",
  ".#############################",
  "..............................",
  "#############################.",
  "..............................",
  ".#############################",
  "..............................",
  "#############################.",
  ".............................."};

TEST(no_allocation_once_warm) {
  counter cnt = {0, 0, -1};
  nm_alloc a;
  nm_navmesh *m;
  nm_query *q;
  nm_filter f;
  nm_status st;
  const float s[3] = {0.5f, 0, 0.5f}, e[3] = {0.5f, 0, 10.5f};
  double len;
  long before;
  a.fn = count_alloc;
  a.ud = &cnt;
  m = grid_mesh(SNAKE, 30, 11, &a);
  nm_query_new(m, 256, &a, &q);
  nm_filter_init(&f);
  len = opt_len(q, s, e, &f, &st);
  CHECK(st == NM_OK && len > 140);
  before = cnt.allocs;
  CHECK_NEAR(opt_len(q, s, e, &f, &st), len, 1e-9);
  CHECK(cnt.allocs == before);
  nm_query_free(q);
  nm_navmesh_release(m);
  CHECK(cnt.live == 0);
}

/* A 48 x 48 field of pillars (every 4th cell in both directions). */
static const char *const *pillars(void) {
  static char rows[48][49];
  static const char *map[48];
  int i, j;
  for (j = 0; j < 48; j++) {
    for (i = 0; i < 48; i++) rows[j][i] = (i % 4 == 2 && j % 4 == 2) ? '#' : '.';
    rows[j][48] = 0;
    map[j] = rows[j];
  }
  return map;
}

/* Every allocation of a first search fails in turn: out of memory while
 * the scratch is made, short of nodes when growing it fails; never a
 * crash, a wrong status or a leak. */
TEST(allocation_failures) {
  counter cnt = {0, 0, -1};
  nm_alloc a;
  nm_navmesh *m;
  long k, needed = 0;
  const float s[3] = {0.3f, 0, 0.2f}, e[3] = {47.6f, 0, 47.3f};
  int ok = 0, nomem = 0, short_of_nodes = 0, bad = 0;
  a.fn = count_alloc;
  a.ud = &cnt;
  m = grid_mesh(pillars(), 48, 48, &a);
  CHECK(m != NULL);
  for (k = -1; k < 100 && (k < 0 || k < needed); k++) {
    nm_query *q = NULL;
    nm_filter f;
    nm_polyref sr, er, path[CAP];
    float ns[3], ne[3];
    const float ext[3] = {0.1f, 2, 0.1f};
    int n = 0;
    long before;
    nm_status st;
    cnt.fail_at = -1;
    if (nm_query_new(m, 64, &a, &q) < 0) { bad++; continue; }
    nm_filter_init(&f);
    nm_query_find_nearest(q, s, ext, &f, &sr, ns, NULL);
    nm_query_find_nearest(q, e, ext, &f, &er, ne, NULL);
    before = cnt.allocs;
    cnt.fail_at = k < 0 ? -1 : cnt.allocs + k;
    st = nm_query_find_path_optimal(q, sr, er, ns, ne, &f, path, CAP, &n);
    if (k < 0) needed = cnt.allocs - before; /* the allocations a first search makes */
    if (st == NM_ERR_NOMEM) nomem++;
    else if (st >= 0 && (st & NM_OUT_OF_NODES) && n >= 1 && path[0] == sr) short_of_nodes++;
    else if (st == NM_OK && path[n - 1] == er) ok++;
    else bad++;
    cnt.fail_at = -1;
    nm_query_free(q);
  }
  printf("# allocation failures: %ld allocations in a first search; %d ok, %d out of memory, %d out of nodes\n",
         needed, ok, nomem, short_of_nodes);
  CHECK(bad == 0);
  CHECK(needed > 5); /* the node array had to grow */
  CHECK(nomem > 0 && ok > 0 && short_of_nodes > 0);
  nm_navmesh_release(m);
  CHECK(cnt.live == 0);
}

int main(void) {
  RUN(exact_around_a_wall);
  RUN(filter_flags_are_walls);
  RUN(unreachable_goal_is_partial);
  RUN(goal_cut_off_by_the_filter);
  RUN(unreachable_goal_after_a_new_tile);
  RUN(fallback_and_arguments);
  RUN(partial_portals_at_a_tile_border);
  RUN(open_tile_corner);
  RUN(no_allocation_once_warm);
  RUN(allocation_failures);
  return tap_done();
}
