/* test_cache_obstacles.c -- the tile cache on a generated level (no
 * ../shared needed): obstacles of every kind cut the navmesh and removing
 * them gives the same tiles back, moves rebuild each touched layer once,
 * area-marking obstacles change areas and path costs, padding grows cuts,
 * the update budget, ids and slot reuse, bad input (NaN, negative sizes,
 * full table, unknown ids), an obstacle outside every tile, allocation
 * failure at every point of load and of update (nothing leaks, the mesh
 * stays as it was), and hostile TSET bytes (truncated, flipped). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "track_alloc.h"
#include "navmesh.h"
#include "cache_level.h"
#include "cache_util.h"

static uint8_t *g_tset;
static size_t g_tset_len;

static nm_cache *level(void) {
  nm_cache *c = NULL;
  nm_diag d;
  if (nm_cache_load(g_tset, g_tset_len, NULL, NULL, &d, &c) != NM_OK) printf("#   level: %s\n", d.msg);
  return c;
}

/* Runs updates until done; returns the layers rebuilt (-1 on failure). */
static int settle(nm_cache *c) {
  int done = 0, n = 0, k, guard = 0;
  while (!done && guard++ < 1000) {
    if (nm_cache_update(c, 1, &done, &k) < 0) return -1;
    n += k;
  }
  return n;
}

/* Every tile of a equals the tile at the same place in b (contents apart
 * from links) and both have as many tiles. */
static int same_tiles(const nm_navmesh *a, const nm_navmesh *b) {
  int i;
  if (a->ntiles != b->ntiles) return 0;
  for (i = 0; i < a->top; i++) {
    const nm_tile *t = &a->tiles[i], *u;
    if (!t->header) continue;
    u = nm_navmesh_tile_at(b, t->header->x, t->header->y, t->header->layer);
    if (!u || !same_tile(t, u)) return 0;
  }
  return 1;
}

static int total_polys(const nm_navmesh *m) {
  nm_navmesh_info info;
  nm_navmesh_get_info(m, &info);
  return info.polys;
}

#define cylinder cl_cylinder

TEST(level_loads) {
  nm_cache *c = level();
  nm_cache_info info;
  CHECK(c != NULL);
  if (!c) return;
  nm_cache_get_info(c, &info);
  CHECK(info.layers == 10); /* 3 x 3 floors and the platform */
  CHECK(nm_cache_navmesh(c)->ntiles == 10);
  CHECK(nm_navmesh_tile_ref_at(nm_cache_navmesh(c), 1, 1, 1) != 0);
  nm_cache_free(c);
}

/* Each kind cuts polygons; removing everything restores the same tiles. */
TEST(every_kind_cuts_and_removal_restores) {
  nm_cache *c = level();
  nm_navmesh *before = NULL;
  nm_obstacle ob[4];
  const float prism[] = {20, 0, 20, 24, 0, 19, 25, 0, 23, 21, 0, 25};
  uint32_t id[4];
  int i, n0;
  if (!c) { CHECK(0); return; }
  CHECK(nm_navmesh_copy(nm_cache_navmesh(c), NULL, &before) == NM_OK);
  n0 = total_polys(before);
  ob[0] = cylinder(6, 6, 1.5f);
  memset(&ob[1], 0, sizeof ob[1]);
  ob[1].kind = NM_OBSTACLE_BOX;
  ob[1].bmin[0] = 14; ob[1].bmin[1] = -1; ob[1].bmin[2] = 2;
  ob[1].bmax[0] = 16; ob[1].bmax[1] = 2; ob[1].bmax[2] = 9;
  memset(&ob[2], 0, sizeof ob[2]);
  ob[2].kind = NM_OBSTACLE_ORIENTED_BOX;
  ob[2].center[0] = 28; ob[2].center[1] = 0.5f; ob[2].center[2] = 8;
  ob[2].half_extents[0] = 2; ob[2].half_extents[1] = 1.5f; ob[2].half_extents[2] = 0.5f;
  ob[2].yaw = 0.7f;
  memset(&ob[3], 0, sizeof ob[3]);
  ob[3].kind = NM_OBSTACLE_PRISM;
  ob[3].verts = prism; ob[3].nverts = 4; ob[3].hmin = -1; ob[3].hmax = 3;
  for (i = 0; i < 4; i++) {
    nm_navmesh *prev = NULL;
    nm_navmesh_copy(nm_cache_navmesh(c), NULL, &prev);
    CHECK(nm_cache_add_obstacle(c, &ob[i], &id[i]) == NM_OK);
    CHECK(settle(c) >= 1);
    CHECK(!same_tiles(prev, nm_cache_navmesh(c))); /* something was cut */
    nm_navmesh_release(prev);
  }
  CHECK(total_polys(nm_cache_navmesh(c)) != n0);
  for (i = 0; i < 4; i++) CHECK(nm_cache_remove_obstacle(c, id[i]) == NM_OK);
  CHECK(settle(c) >= 4);
  CHECK(same_tiles(before, nm_cache_navmesh(c)));
  CHECK(same_tiles(nm_cache_navmesh(c), before));
  nm_navmesh_release(before);
  nm_cache_free(c);
}

/* A rebuilt tile changes salt: references into it go stale. */
TEST(rebuilt_tiles_change_salt) {
  nm_cache *c = level();
  nm_navmesh *m;
  nm_polyref old;
  nm_obstacle ob = cylinder(6, 6, 1);
  uint32_t id;
  if (!c) { CHECK(0); return; }
  m = nm_cache_navmesh(c);
  old = nm_navmesh_tile_ref_at(m, 0, 0, 0);
  CHECK(nm_navmesh_is_valid_ref(m, old));
  nm_cache_add_obstacle(c, &ob, &id);
  CHECK(settle(c) == 1);
  CHECK(!nm_navmesh_is_valid_ref(m, old));
  CHECK(nm_navmesh_tile_ref_at(m, 0, 0, 0) != old);
  nm_cache_free(c);
}

/* Moving rebuilds the old and the new place once each; ids stay. */
TEST(move_rebuilds_each_layer_once) {
  nm_cache *c = level();
  nm_obstacle ob = cylinder(6, 6, 1);
  uint32_t id;
  nm_navmesh *before = NULL;
  if (!c) { CHECK(0); return; }
  nm_navmesh_copy(nm_cache_navmesh(c), NULL, &before);
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_OK);
  CHECK(settle(c) == 1);
  ob = cylinder(6, 13.5f, 1); /* into tile (0,1) */
  CHECK(nm_cache_move_obstacle(c, id, &ob) == NM_OK);
  CHECK(settle(c) == 2);   /* (0,0) once, (0,1) once */
  ob = cylinder(18, 18, 1); /* onto the platform: its floor and the platform */
  ob.height = 6;
  CHECK(nm_cache_move_obstacle(c, id, &ob) == NM_OK);
  CHECK(nm_cache_move_obstacle(c, id, &ob) == NM_OK); /* merged with the first */
  {
    const int n = settle(c);
    if (n != 3) printf("#   move onto the platform rebuilt %d layers\n", n);
    CHECK(n == 3); /* (0,1), then the floor and the platform of (1,1) */
  }
  CHECK(nm_cache_remove_obstacle(c, id) == NM_OK);
  CHECK(settle(c) == 2);
  CHECK(same_tiles(before, nm_cache_navmesh(c)));
  nm_navmesh_release(before);
  nm_cache_free(c);
}

/* Polygons an area obstacle covers get its area and flags; paths avoid
 * them when the area is expensive. */
TEST(area_obstacle_marks_and_costs) {
  nm_cache_rules rules;
  nm_cache *c = NULL;
  nm_obstacle ob;
  nm_query *q = NULL;
  nm_filter f;
  nm_polyref s, e, path[256];
  const float ext[3] = {1, 2, 1}, a[3] = {1, 0.5f, 6}, b[3] = {11, 0.5f, 6};
  float sp[3], ep[3];
  uint8_t area;
  uint16_t flags;
  int n1 = 0, n2 = 0;
  uint32_t id;
  nm_cache_rules_init(&rules);
  rules.poly_flags[7] = 5;
  CHECK(nm_cache_load(g_tset, g_tset_len, &rules, NULL, NULL, &c) == NM_OK);
  if (!c) return;
  memset(&ob, 0, sizeof ob);
  ob.kind = NM_OBSTACLE_BOX;
  ob.bmin[0] = 5; ob.bmin[1] = -1; ob.bmin[2] = 0;
  ob.bmax[0] = 7; ob.bmax[1] = 3; ob.bmax[2] = 12;
  ob.area = 7;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_OK);
  {
    int done = 0, k = 0;
    nm_status st = nm_cache_update(c, 0, &done, &k);
    if (st < 0) printf("#   area update: %s\n", nm_status_name(st));
    CHECK(st == NM_OK && done && k >= 1);
  }
  nm_query_new(nm_cache_navmesh(c), 2048, NULL, &q);
  nm_filter_init(&f);
  {
    const float mid[3] = {6, 0.5f, 2};
    nm_polyref r = 0;
    CHECK(nm_query_find_nearest(q, mid, ext, &f, &r, sp, NULL) == NM_OK);
    CHECK(nm_navmesh_get_poly_area(nm_cache_navmesh(c), r, &area) == NM_OK && area == 7);
    CHECK(nm_navmesh_get_poly_flags(nm_cache_navmesh(c), r, &flags) == NM_OK && flags == 5);
  }
  nm_query_find_nearest(q, a, ext, &f, &s, sp, NULL);
  nm_query_find_nearest(q, b, ext, &f, &e, ep, NULL);
  CHECK(nm_query_find_path(q, s, e, sp, ep, &f, path, 256, &n1) == NM_OK); /* straight through */
  f.exclude_flags = 4;                                                   /* flags 5 excluded */
  CHECK(nm_query_find_path(q, s, e, sp, ep, &f, path, 256, &n2) >= 0);
  CHECK(n2 > 0);
  {
    int i, crosses = 0;
    for (i = 0; i < n2; i++) {
      nm_navmesh_get_poly_area(nm_cache_navmesh(c), path[i], &area);
      crosses += area == 7;
    }
    CHECK(crosses == 0);
  }
  nm_query_free(q);
  nm_cache_free(c);
}

/* Padding grows the cut: more of the floor disappears. */
TEST(padding_grows_cuts) {
  nm_cache_rules rules;
  nm_cache *c0 = NULL, *c1 = NULL;
  nm_obstacle ob = cylinder(6, 6, 1);
  uint32_t id;
  nm_cache_rules_init(&rules);
  rules.obstacle_padding = 0.6f;
  nm_cache_load(g_tset, g_tset_len, NULL, NULL, NULL, &c0);
  nm_cache_load(g_tset, g_tset_len, &rules, NULL, NULL, &c1);
  if (!c0 || !c1) { CHECK(0); nm_cache_free(c0); nm_cache_free(c1); return; }
  nm_cache_add_obstacle(c0, &ob, &id);
  nm_cache_add_obstacle(c1, &ob, &id);
  settle(c0);
  settle(c1);
  {
    const nm_tile *t0 = nm_navmesh_tile_at(nm_cache_navmesh(c0), 0, 0, 0);
    const nm_tile *t1 = nm_navmesh_tile_at(nm_cache_navmesh(c1), 0, 0, 0);
    float x0 = 1e9f, x1 = 1e9f;
    int i;
    /* the nearest vertex to the obstacle's centre lies farther with padding */
    for (i = 0; t0 && i < t0->header->vert_count; i++)
      x0 = fminf(x0, hypotf(t0->verts[i * 3] - 6, t0->verts[i * 3 + 2] - 6));
    for (i = 0; t1 && i < t1->header->vert_count; i++)
      x1 = fminf(x1, hypotf(t1->verts[i * 3] - 6, t1->verts[i * 3 + 2] - 6));
    CHECK(t0 && t1 && x1 > x0 + 0.4f);
  }
  nm_cache_free(c0);
  nm_cache_free(c1);
}

/* The budget: at most max_tiles layers per call, then up to date. */
TEST(update_budget) {
  nm_cache *c = level();
  nm_obstacle ob = cylinder(12, 12, 1); /* the corner of four tiles */
  uint32_t id;
  int done = 1, k = 0;
  if (!c) { CHECK(0); return; }
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_OK);
  CHECK(nm_cache_update(c, 1, &done, &k) == NM_OK && k == 1 && !done);
  CHECK(nm_cache_update(c, 2, &done, &k) == NM_OK && k == 2 && !done);
  CHECK(nm_cache_update(c, 0, &done, &k) == NM_OK && k == 1 && done);
  CHECK(nm_cache_update(c, 0, &done, &k) == NM_OK && k == 0 && done);
  CHECK(nm_cache_update(c, -1, &done, &k) == NM_ERR_PARAM);
  nm_cache_free(c);
}

/* Ids as Detour forms them; a removed slot comes back with a new salt. */
TEST(ids_and_slot_reuse) {
  nm_cache *c = level();
  nm_obstacle ob = cylinder(6, 6, 1);
  uint32_t a, b, d;
  if (!c) { CHECK(0); return; }
  nm_cache_add_obstacle(c, &ob, &a);
  nm_cache_add_obstacle(c, &ob, &b);
  CHECK(a == 65536 && b == 65537);
  settle(c);
  nm_cache_remove_obstacle(c, a);
  settle(c);
  nm_cache_add_obstacle(c, &ob, &d);
  CHECK(d == 131072); /* slot 0, salt 2 */
  CHECK(nm_cache_remove_obstacle(c, a) == NM_ERR_PARAM); /* stale id */
  nm_cache_free(c);
}

/* Bad input gets an error and changes nothing. */
TEST(bad_obstacles) {
  nm_cache *c = level();
  nm_obstacle ob = cylinder(6, 6, 1);
  uint32_t id = 0, ids[64];
  int i, done = 0, k = 0;
  if (!c) { CHECK(0); return; }
  ob.radius = NAN;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_PARAM && id == 0);
  ob.radius = -1;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_PARAM);
  ob = cylinder(6, 6, 1);
  ob.area = 64;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_PARAM);
  ob.area = 0;
  ob.kind = 9;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_PARAM);
  memset(&ob, 0, sizeof ob);
  ob.kind = NM_OBSTACLE_BOX;
  ob.bmin[0] = 2; ob.bmax[0] = 1;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_PARAM);
  ob.kind = NM_OBSTACLE_ORIENTED_BOX;
  ob.half_extents[0] = -0.5f;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_PARAM);
  ob.kind = NM_OBSTACLE_PRISM;
  ob.nverts = 2;
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_PARAM);
  CHECK(nm_cache_remove_obstacle(c, 12345) == NM_ERR_PARAM);
  CHECK(nm_cache_remove_obstacle(c, 0) == NM_ERR_PARAM);
  CHECK(nm_cache_move_obstacle(c, 65536, &ob) == NM_ERR_PARAM);
  ob = cylinder(500, 500, 1); /* outside every tile: accepted, no rebuild */
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_OK);
  CHECK(nm_cache_update(c, 0, &done, &k) == NM_OK && k == 0 && done);
  CHECK(nm_cache_remove_obstacle(c, id) == NM_OK);
  CHECK(nm_cache_update(c, 0, &done, &k) == NM_OK && k == 0 && done);
  for (i = 0; i < 64; i++) CHECK(nm_cache_add_obstacle(c, &ob, &ids[i]) == NM_OK);
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_ERR_FULL);
  CHECK(nm_cache_remove_obstacle(c, ids[3]) == NM_OK); /* never looked at: freed at once */
  CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_OK);
  nm_cache_free(c);
}

/* Layers one by one: a good one is added and built, a damaged body or a
 * taken place is refused and changes nothing. */
TEST(add_layer_is_all_or_nothing) {
  nm_cache *full = level(), *c = NULL;
  nm_cache_params p;
  nm_cache_info info;
  const nm_clayer *l;
  uint8_t *bad;
  uint32_t ref = 0;
  nm_diag d;
  if (!full) { CHECK(0); return; }
  nm_cache_get_params(full, &p);
  CHECK(nm_cache_new(&p, NULL, NULL, NULL, &c) == NM_OK);
  if (!c) { nm_cache_free(full); return; }
  l = &full->layers[0];
  CHECK(nm_cache_add_layer(c, l->data, l->size, 1, &d, &ref) == NM_OK && ref != 0);
  CHECK(nm_navmesh_tile_ref_at(nm_cache_navmesh(c), l->h.tx, l->h.ty, l->h.tlayer) != 0);
  CHECK(nm_cache_add_layer(c, l->data, l->size, 1, &d, &ref) == NM_ERR_FULL);
  bad = (uint8_t *)malloc(full->layers[1].size);
  memcpy(bad, full->layers[1].data, full->layers[1].size);
  bad[60] ^= 0xff; /* inside the FastLZ body */
  bad[NM_LAYER_HEADER] = 0x5f; /* a level tag FastLZ level 1 never writes */
  CHECK(nm_cache_add_layer(c, bad, full->layers[1].size, 1, &d, &ref) == NM_ERR_DATA && ref == 0);
  nm_cache_get_info(c, &info);
  CHECK(info.layers == 1 && nm_cache_navmesh(c)->ntiles == 1);
  CHECK(nm_cache_add_layer(c, full->layers[1].data, full->layers[1].size, 1, &d, &ref) == NM_OK);
  nm_cache_get_info(c, &info);
  CHECK(info.layers == 2 && nm_cache_navmesh(c)->ntiles == 2);
  free(bad);
  nm_cache_free(c);
  nm_cache_free(full);
}

/* ---- allocation failure ---- */

/* Runs op with an allocator failing its 1st, 2nd, ... allocation until a
 * run meets no failure: each failing run returns NM_ERR_NOMEM and no cache,
 * nothing stays allocated, every free names its block's size. Returns the
 * failures injected (0 when the last run did not succeed). */
static int fail_everywhere(const char *what, nm_status (*op)(const nm_alloc *a, nm_cache **c)) {
  long k;
  int fails = 0, ok = 0;
  for (k = 1; k < 100000; k++) {
    track t;
    nm_alloc a;
    nm_cache *c = NULL;
    nm_status st;
    memset(&t, 0, sizeof t);
    t.fail_at = k;
    a.fn = track_fn;
    a.ud = &t;
    st = op(&a, &c);
    if (t.failed) {
      fails++;
      CHECK(st == NM_ERR_NOMEM && c == NULL);
    } else {
      ok = st == NM_OK;
    }
    nm_cache_free(c);
    if (t.live != 0 || t.bad_sizes != 0) printf("#   %s fail_at %ld: %ld bytes live, %ld bad sizes\n", what, k, t.live, t.bad_sizes);
    CHECK(t.live == 0 && t.bad_sizes == 0);
    if (!t.failed) break;
  }
  printf("# %s: %d injected failures, then success %d\n", what, fails, ok);
  return ok ? fails : 0;
}

static nm_status load_op(const nm_alloc *a, nm_cache **c) {
  return nm_cache_load(g_tset, g_tset_len, NULL, a, NULL, c);
}

/* Loading fails cleanly at every allocation, then succeeds. */
TEST(load_alloc_failure_everywhere) { CHECK(fail_everywhere("load", load_op) > 10); }

/* An update fails cleanly at every allocation: the mesh stays as it was,
 * the work stays pending, and a later update finishes it. */
TEST(update_alloc_failure_everywhere) {
  long k;
  int fails = 0;
  for (k = 1; k < 10000; k++) {
    track t;
    nm_alloc a;
    nm_cache *c = NULL;
    nm_navmesh *before = NULL;
    nm_obstacle ob = cylinder(12, 12, 1.5f);
    uint32_t id;
    int done = 0, injected, rebuilt = 0;
    nm_status st;
    memset(&t, 0, sizeof t);
    a.fn = track_fn;
    a.ud = &t;
    if (nm_cache_load(g_tset, g_tset_len, NULL, &a, NULL, &c) != NM_OK) { CHECK(0); break; }
    nm_navmesh_copy(nm_cache_navmesh(c), NULL, &before);
    nm_cache_add_obstacle(c, &ob, &id);
    t.fail_at = t.allocs + k;
    st = nm_cache_update(c, 0, &done, &rebuilt);
    injected = (int)t.failed;
    if (injected) {
      fails++;
      CHECK(st == NM_ERR_NOMEM && !done);
      if (rebuilt == 0) CHECK(same_tiles(before, nm_cache_navmesh(c))); /* nothing changed */
      t.fail_at = 0;
      CHECK(settle(c) >= 1);
    } else {
      CHECK(st == NM_OK && done);
    }
    nm_navmesh_release(before);
    nm_cache_free(c);
    CHECK(t.live == 0 && t.bad_sizes == 0);
    if (!injected) break;
  }
  printf("# update: %d injected failures\n", fails);
  CHECK(fails > 3);
}

/* ---- hostile bytes ---- */

TEST(hostile_tset_bytes) {
  size_t i, bad = 0, good = 0;
  uint8_t *b = (uint8_t *)malloc(g_tset_len);
  unsigned x = 7;
  for (i = 0; i < g_tset_len; i += 1 + i / 64) { /* truncations */
    nm_cache *c = NULL;
    nm_status st = nm_cache_load(g_tset, i, NULL, NULL, NULL, &c);
    bad += st == NM_ERR_DATA;
    good += st == NM_OK;
    CHECK(st == NM_ERR_DATA || st == NM_OK);
    nm_cache_free(c);
  }
  for (i = 0; i < 1200; i++) { /* byte flips */
    nm_cache *c = NULL;
    nm_diag d;
    nm_status st;
    int k;
    memcpy(b, g_tset, g_tset_len);
    for (k = 0; k < 1 + (int)(i % 3); k++) {
      x = x * 1103515245u + 12345u;
      b[(x >> 8) % g_tset_len] ^= (uint8_t)(1u << ((x >> 4) & 7));
    }
    st = nm_cache_load(b, g_tset_len, NULL, NULL, &d, &c);
    CHECK(st == NM_ERR_DATA || st == NM_OK);
    if (st == NM_ERR_DATA) CHECK(d.msg[0] != 0);
    bad += st == NM_ERR_DATA;
    good += st == NM_OK;
    if (c) { /* whatever loaded still takes an obstacle */
      nm_obstacle ob = cylinder(12, 12, 1);
      uint32_t id;
      nm_cache_add_obstacle(c, &ob, &id);
      settle(c);
    }
    nm_cache_free(c);
  }
  printf("# hostile: %lu rejected with ERR_DATA, %lu loaded\n", (unsigned long)bad, (unsigned long)good);
  free(b);
}

/* ---- building a cache from triangles ---- */

/* A 30 x 30 floor with a 6 x 6 block 3 high on it: 2 + 10 triangles. */
static const float g_soup_v[] = {0, 0, 0, 30, 0, 0, 30, 0, 30, 0, 0, 30,
                                 10, 0, 10, 16, 0, 10, 16, 0, 16, 10, 0, 16,
                                 10, 3, 10, 16, 3, 10, 16, 3, 16, 10, 3, 16};
static const int g_soup_t[] = {0, 2, 1, 0, 3, 2,                                /* floor (up) */
                               8, 10, 9, 8, 11, 10,                             /* top */
                               4, 5, 9, 4, 9, 8, 5, 6, 10, 5, 10, 9,             /* sides */
                               6, 7, 11, 6, 11, 10, 7, 4, 8, 7, 8, 11};

static void soup_config(nm_build_config *cfg) {
  nm_build_config_init(cfg);
  cfg->cell_size = 0.5f;
  cfg->tile_size = 16;
}

/* A progress callback that cancels at the third tile. */
static int stop_at_3(void *ud, int done, int total) {
  (void)ud;
  (void)total;
  return done == 3;
}

/* The cache of the soup: layers on the floor and on the block top, a
 * navmesh with tiles; an obstacle on the block top cuts it. */
TEST(cache_build_from_triangles) {
  nm_build_config cfg;
  nm_cache *c = NULL;
  nm_cache_info info;
  nm_diag d;
  soup_config(&cfg);
  CHECK(nm_cache_build(g_soup_v, 12, g_soup_t, 12, &cfg, 16, NULL, NULL, &d, &c) == NM_OK);
  if (!c) { printf("#   %s\n", d.msg); return; }
  nm_cache_get_info(c, &info);
  printf("# soup cache: %d layers, %d navmesh tiles\n", info.layers, nm_cache_navmesh(c)->ntiles);
  CHECK(info.layers >= 4 + 1); /* 2 x 2 floor tiles, and the block top */
  CHECK(nm_cache_navmesh(c)->ntiles == info.layers);
  {
    nm_obstacle ob = cylinder(13, 13, 1);
    uint32_t id;
    nm_navmesh *before = NULL;
    ob.pos[1] = 2.5f;
    nm_navmesh_copy(nm_cache_navmesh(c), NULL, &before);
    CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_OK);
    CHECK(settle(c) >= 1);
    CHECK(!same_tiles(before, nm_cache_navmesh(c)));
    nm_navmesh_release(before);
  }
  nm_cache_free(c);
  cfg.progress = stop_at_3;
  CHECK(nm_cache_build(g_soup_v, 12, g_soup_t, 12, &cfg, 16, NULL, NULL, &d, &c) == NM_ERR_PARAM && c == NULL);
  CHECK(d.field && !strcmp(d.field, "progress"));
  cfg.progress = NULL;
  cfg.tile_size = 0;
  CHECK(nm_cache_build(g_soup_v, 12, g_soup_t, 12, &cfg, 16, NULL, NULL, &d, &c) == NM_ERR_PARAM && c == NULL);
}

static nm_status build_op(const nm_alloc *a, nm_cache **c) {
  nm_build_config cfg;
  soup_config(&cfg);
  return nm_cache_build(g_soup_v, 12, g_soup_t, 12, &cfg, 16, NULL, a, NULL, c);
}

/* Building fails cleanly at every allocation, then succeeds. */
TEST(cache_build_alloc_failure_everywhere) { CHECK(fail_everywhere("build", build_op) > 10); }

int main(void) {
  g_tset = cl_make_tset(3, 3, &g_tset_len);
  RUN(level_loads);
  RUN(every_kind_cuts_and_removal_restores);
  RUN(rebuilt_tiles_change_salt);
  RUN(move_rebuilds_each_layer_once);
  RUN(area_obstacle_marks_and_costs);
  RUN(padding_grows_cuts);
  RUN(update_budget);
  RUN(ids_and_slot_reuse);
  RUN(bad_obstacles);
  RUN(add_layer_is_all_or_nothing);
  RUN(load_alloc_failure_everywhere);
  RUN(update_alloc_failure_everywhere);
  RUN(hostile_tset_bytes);
  RUN(cache_build_from_triangles);
  RUN(cache_build_alloc_failure_everywhere);
  free(g_tset);
  return tap_done();
}
