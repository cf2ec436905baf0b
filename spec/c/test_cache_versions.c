/* test_cache_versions.c -- a tile cache publishing its navmesh as versions
 * (nm_cache_use_versions), on the generated level (no ../shared needed):
 * after every update of a scripted run of obstacle additions, moves and
 * removals, the latest version equals the navmesh of the same cache run
 * without versions (slots, salts, tile contents and links: saved bytes);
 * each update that rebuilt tiles publishes exactly one version, one that
 * had nothing to do none; a new version shares every blob but those of the
 * rebuilt layers and the neighbours whose links changed; old versions keep
 * their bytes while newer ones are made; obstacles read back (ids, shapes,
 * states); per-obstacle padding; allocation failure at every point of
 * use_versions and of a versioned update (ERR_NOMEM, the latest version
 * unchanged when nothing was rebuilt, nothing leaked). */
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

static nm_cache *level(const nm_alloc *a) {
  nm_cache *c = NULL;
  nm_diag d;
  if (nm_cache_load(g_tset, g_tset_len, NULL, a, &d, &c) != NM_OK) printf("#   level: %s\n", d.msg);
  return c;
}

/* A tracking allocator t as a, then the level in its memory. */
static nm_cache *tracked_level(track *t, nm_alloc *a) {
  memset(t, 0, sizeof *t);
  a->fn = track_fn;
  a->ud = t;
  return level(a);
}

#define cylinder cl_cylinder

/* Native bytes of a mesh (links included); free with free(). */
static uint8_t *saved(const nm_navmesh *m, size_t *len) {
  void *b;
  uint8_t *out;
  if (nm_navmesh_save(m, NM_FORMAT_NATIVE, &b, len) != NM_OK) return NULL;
  out = (uint8_t *)malloc(*len);
  memcpy(out, b, *len);
  nm_free_bytes(m, b, *len);
  return out;
}

static int same_bytes(const nm_navmesh *a, const nm_navmesh *b) {
  size_t la, lb;
  uint8_t *x = saved(a, &la), *y = saved(b, &lb);
  const int same = x && y && la == lb && memcmp(x, y, la) == 0;
  free(x);
  free(y);
  return same;
}

/* Tiles of b whose blob is not a's blob at the same slot. */
static int unshared_tiles(const nm_navmesh *a, const nm_navmesh *b) {
  int i, n = 0;
  for (i = 0; i < b->top; i++)
    if (b->tiles[i].header && (i >= a->top || a->tiles[i].data != b->tiles[i].data)) n++;
  return n;
}

/* A pseudo-random obstacle on the 96 x 96 m level. */
static nm_obstacle random_shape(unsigned *x) {
  nm_obstacle o;
  float cx, cz;
  *x = *x * 1103515245u + 12345u;
  cx = 1.0f + (float)((*x >> 8) % 940) / 10.0f;
  *x = *x * 1103515245u + 12345u;
  cz = 1.0f + (float)((*x >> 8) % 940) / 10.0f;
  o = cylinder(cx, cz, 0.5f + (float)((*x >> 4) % 4) * 0.4f);
  if ((*x >> 12) % 3 == 1) {
    o.kind = NM_OBSTACLE_BOX;
    nm_vset(o.bmin, cx - 1, 0, cz - 0.5f);
    nm_vset(o.bmax, cx + 1, 3, cz + 0.5f);
  } else if ((*x >> 12) % 3 == 2) {
    o.kind = NM_OBSTACLE_ORIENTED_BOX;
    nm_vset(o.center, cx, 1, cz);
    nm_vset(o.half_extents, 1.5f, 2, 0.4f);
    o.yaw = 0.7f;
  }
  o.area = (*x >> 16) % 5 == 0 ? 7 : 0;
  return o;
}

/* One scripted request on both caches (same ids expected). */
static void script_step(nm_cache *a, nm_cache *b, uint32_t *live, int *nlive, unsigned *x) {
  int k;
  uint32_t ia = 0, ib = 0;
  *x = *x * 1103515245u + 12345u;
  k = (int)((*x >> 8) % 3);
  if (k == 0 || *nlive == 0) {
    nm_obstacle o = random_shape(x);
    CHECK(nm_cache_add_obstacle(a, &o, &ia) == nm_cache_add_obstacle(b, &o, &ib));
    CHECK(ia == ib);
    if (ia && *nlive < 64) live[(*nlive)++] = ia;
  } else {
    const int i = (int)((*x >> 16) % (unsigned)*nlive);
    if (k == 1) {
      CHECK(nm_cache_remove_obstacle(a, live[i]) == NM_OK && nm_cache_remove_obstacle(b, live[i]) == NM_OK);
      live[i] = live[--(*nlive)];
    } else {
      nm_obstacle o = random_shape(x);
      CHECK(nm_cache_move_obstacle(a, live[i], &o) == NM_OK && nm_cache_move_obstacle(b, live[i], &o) == NM_OK);
    }
  }
}

/* The versioned cache's latest version equals the plain cache's navmesh
 * after every update; versions are published only when tiles changed, and
 * share the blobs of everything else. */
TEST(versions_follow_the_plain_cache) {
  nm_cache *plain = level(NULL), *vc = level(NULL);
  uint32_t live[64], number;
  int nlive = 0, step, differ = 0, published = 0, idle = 0, maxcopied = 0;
  unsigned x = 12345;
  nm_navmesh *prev;
  if (!plain || !vc) { CHECK(0); return; }
  CHECK(nm_cache_use_versions(vc, NULL) == NM_OK);
  CHECK(nm_cache_use_versions(vc, NULL) == NM_OK); /* again: nothing to do */
  CHECK(nm_navmesh_version_number(nm_cache_navmesh(vc)) == 1 && nm_navmesh_is_frozen(nm_cache_navmesh(vc)));
  CHECK(same_bytes(nm_cache_navmesh(plain), nm_cache_navmesh(vc)));
  for (step = 0; step < 120; step++) {
    int da = 0, db = 0, ra = 0, rb = 0, copied;
    const int budget = step % 3; /* 0: all pending layers */
    prev = nm_cache_navmesh(vc);
    nm_navmesh_retain(prev);
    number = nm_navmesh_version_number(prev);
    if (step % 4 != 3) script_step(plain, vc, live, &nlive, &x);
    CHECK(nm_cache_update(plain, budget, &da, &ra) == NM_OK);
    CHECK(nm_cache_update(vc, budget, &db, &rb) == NM_OK);
    CHECK(da == db && ra == rb);
    if (!same_bytes(nm_cache_navmesh(plain), nm_cache_navmesh(vc)) && differ++ < 3)
      printf("#   step %d: the latest version differs from the plain navmesh\n", step);
    if (rb > 0) {
      published++;
      CHECK(nm_navmesh_version_number(nm_cache_navmesh(vc)) == number + 1);
      copied = unshared_tiles(prev, nm_cache_navmesh(vc));
      if (copied > maxcopied) maxcopied = copied;
      CHECK(copied <= 9 * rb + 2); /* the rebuilt tiles and their neighbours */
    } else {
      idle++;
      CHECK(nm_cache_navmesh(vc) == prev); /* no new version */
    }
    nm_navmesh_release(prev);
  }
  printf("# 120 steps: %d versions published, %d updates idle, at most %d of %d blobs copied, %d differing\n",
         published, idle, maxcopied, nm_cache_navmesh(vc)->ntiles, differ);
  CHECK(differ == 0 && published > 40 && idle > 10);
  nm_cache_free(plain);
  nm_cache_free(vc);
}

/* A retained old version keeps its bytes while the cache publishes more;
 * it outlives the cache. */
TEST(old_versions_keep_their_bytes) {
  nm_cache *c = level(NULL);
  nm_navmesh *v1, *v2;
  uint8_t *b1, *b1again;
  size_t l1, l1again;
  nm_obstacle o = cylinder(12, 12, 1.5f);
  uint32_t id;
  int done;
  if (!c) { CHECK(0); return; }
  CHECK(nm_cache_use_versions(c, NULL) == NM_OK);
  v1 = nm_cache_navmesh(c);
  nm_navmesh_retain(v1);
  b1 = saved(v1, &l1);
  CHECK(nm_cache_add_obstacle(c, &o, &id) == NM_OK);
  CHECK(nm_cache_update(c, 0, &done, NULL) == NM_OK && done);
  v2 = nm_cache_navmesh(c);
  CHECK(v2 != v1 && nm_navmesh_version_number(v2) == 2);
  {
    nm_navmesh *d = NULL; /* the cache is its versions' only writer */
    CHECK(nm_navmesh_version_edit(v2, &d) == NM_ERR_READONLY && d == NULL);
  }
  CHECK(!same_bytes(v1, v2));
  CHECK(nm_cache_remove_obstacle(c, id) == NM_OK);
  CHECK(nm_cache_update(c, 0, &done, NULL) == NM_OK && done);
  CHECK(nm_cache_build_tiles_at(c, 1, 1) == NM_OK); /* also publishes */
  CHECK(nm_navmesh_version_number(nm_cache_navmesh(c)) == 4);
  b1again = saved(v1, &l1again);
  CHECK(b1 && b1again && l1 == l1again && memcmp(b1, b1again, l1) == 0);
  {
    nm_navmesh *latest = nm_navmesh_version_latest(v1);
    CHECK(latest == nm_cache_navmesh(c));
    nm_navmesh_release(latest);
  }
  nm_cache_free(c);
  CHECK(nm_navmesh_is_valid_ref(v1, nm_navmesh_tile_ref_at(v1, 0, 0, 0)));
  nm_navmesh_release(v1);
  free(b1);
  free(b1again);
}

/* Obstacles read back: ids in slot order, shapes as given, states. */
TEST(obstacles_read_back) {
  nm_cache *c = level(NULL);
  nm_obstacle a = cylinder(6, 6, 1), b = cylinder(20, 20, 1), got;
  float outline[9] = {2, 0, 2, 4, 0, 2, 3, 0, 4};
  uint32_t ia, ib, ip, ids[4];
  int state = -1, done;
  nm_obstacle p;
  if (!c) { CHECK(0); return; }
  memset(&p, 0, sizeof p);
  p.kind = NM_OBSTACLE_PRISM;
  p.verts = outline;
  p.nverts = 3;
  p.hmin = 0;
  p.hmax = 2;
  b.area = 9;
  b.padding = 0.3f;
  CHECK(nm_cache_obstacle_ids(c, NULL, 0) == 0);
  CHECK(nm_cache_add_obstacle(c, &a, &ia) == NM_OK && nm_cache_add_obstacle(c, &b, &ib) == NM_OK);
  CHECK(nm_cache_add_obstacle(c, &p, &ip) == NM_OK);
  outline[0] = 99; /* copied */
  CHECK(nm_cache_obstacle_ids(c, ids, 2) == 3 && ids[0] == ia && ids[1] == ib);
  CHECK(nm_cache_get_obstacle(c, ib, &got, &state) == NM_OK && state == NM_OBSTACLE_PENDING);
  CHECK(got.kind == NM_OBSTACLE_CYLINDER && got.pos[0] == 20 && got.radius == 1 && got.area == 9 &&
        got.padding == 0.3f);
  CHECK(nm_cache_get_obstacle(c, ip, &got, NULL) == NM_OK && got.nverts == 3 && got.verts[0] == 2 &&
        got.verts[8] == 4 && got.hmax == 2);
  CHECK(nm_cache_update(c, 0, &done, NULL) == NM_OK && done);
  CHECK(nm_cache_get_obstacle(c, ia, NULL, &state) == NM_OK && state == NM_OBSTACLE_PLACED);
  CHECK(nm_cache_remove_obstacle(c, ia) == NM_OK);
  CHECK(nm_cache_get_obstacle(c, ia, NULL, &state) == NM_OK && state == NM_OBSTACLE_REMOVING);
  CHECK(nm_cache_move_obstacle(c, ib, &a) == NM_OK);
  CHECK(nm_cache_get_obstacle(c, ib, &got, &state) == NM_OK && state == NM_OBSTACLE_PENDING && got.pos[0] == 6);
  CHECK(nm_cache_update(c, 0, &done, NULL) == NM_OK && done);
  CHECK(nm_cache_get_obstacle(c, ia, NULL, &state) == NM_ERR_PARAM);
  CHECK(nm_cache_obstacle_ids(c, ids, 4) == 2 && ids[0] == ib && ids[1] == ip);
  CHECK(nm_cache_get_obstacle(NULL, ib, NULL, NULL) == NM_ERR_PARAM);
  nm_cache_free(c);
}

/* A per-obstacle padding cuts what the rules' padding cuts; bad paddings
 * are refused. */
TEST(per_obstacle_padding) {
  nm_cache_rules r;
  nm_cache *c1 = level(NULL), *c2 = NULL;
  nm_obstacle o = cylinder(13, 13, 1);
  uint32_t id;
  int done;
  nm_cache_rules_init(&r);
  r.obstacle_padding = 0.6f;
  CHECK(nm_cache_load(g_tset, g_tset_len, &r, NULL, NULL, &c2) == NM_OK);
  if (!c1 || !c2) { CHECK(0); return; }
  CHECK(nm_cache_add_obstacle(c2, &o, &id) == NM_OK);
  o.padding = 0.6f;
  CHECK(nm_cache_add_obstacle(c1, &o, &id) == NM_OK);
  CHECK(nm_cache_update(c1, 0, &done, NULL) == NM_OK && nm_cache_update(c2, 0, &done, NULL) == NM_OK);
  CHECK(same_bytes(nm_cache_navmesh(c1), nm_cache_navmesh(c2)));
  o.padding = -1;
  CHECK(nm_cache_add_obstacle(c1, &o, &id) == NM_ERR_PARAM);
  o.padding = NAN;
  CHECK(nm_cache_add_obstacle(c1, &o, &id) == NM_ERR_PARAM);
  nm_cache_free(c1);
  nm_cache_free(c2);
}

/* Every allocation of use_versions fails in turn: ERR_NOMEM, the cache
 * keeps its plain navmesh, nothing leaks. */
TEST(use_versions_alloc_failure_everywhere) {
  long k;
  int fails = 0;
  for (k = 1; k < 10000; k++) {
    track t;
    nm_alloc a;
    nm_cache *c;
    nm_navmesh *before;
    nm_status st;
    if (!(c = tracked_level(&t, &a))) { CHECK(0); break; }
    before = nm_cache_navmesh(c);
    t.fail_at = t.allocs + k;
    st = nm_cache_use_versions(c, &a);
    if (t.failed) {
      fails++;
      CHECK(st == NM_ERR_NOMEM && nm_cache_navmesh(c) == before && !nm_navmesh_is_frozen(before));
    } else {
      CHECK(st == NM_OK && nm_navmesh_version_number(nm_cache_navmesh(c)) == 1);
    }
    nm_cache_free(c);
    CHECK(t.live == 0 && t.bad_sizes == 0);
    if (!t.failed) break;
  }
  printf("# use_versions: %d injected failures\n", fails);
  CHECK(fails > 3);
}

/* Every allocation of a versioned update fails in turn: ERR_NOMEM, the
 * latest version unchanged when nothing was rebuilt, the next update
 * finishes, nothing leaks. */
TEST(versioned_update_alloc_failure_everywhere) {
  long k;
  int fails = 0;
  for (k = 1; k < 10000; k++) {
    track t;
    nm_alloc a;
    nm_cache *c;
    nm_navmesh *before;
    nm_obstacle ob = cylinder(12, 12, 1.5f);
    uint32_t id;
    int done = 0, rebuilt = 0;
    nm_status st;
    if (!(c = tracked_level(&t, &a)) || nm_cache_use_versions(c, &a) != NM_OK) { CHECK(0); nm_cache_free(c); break; }
    before = nm_cache_navmesh(c);
    nm_navmesh_retain(before);
    nm_cache_add_obstacle(c, &ob, &id);
    t.fail_at = t.allocs + k;
    st = nm_cache_update(c, 0, &done, &rebuilt);
    if (t.failed) {
      fails++;
      CHECK(st == NM_ERR_NOMEM && !done);
      if (rebuilt == 0) CHECK(nm_cache_navmesh(c) == before);
      t.fail_at = 0;
      CHECK(nm_cache_update(c, 0, &done, NULL) == NM_OK && done);
    } else {
      CHECK(st == NM_OK && done);
    }
    CHECK(nm_cache_navmesh(c) != before && !same_bytes(before, nm_cache_navmesh(c)));
    nm_navmesh_release(before);
    nm_cache_free(c);
    CHECK(t.live == 0 && t.bad_sizes == 0);
    if (!t.failed) break;
  }
  printf("# versioned update: %d injected failures\n", fails);
  CHECK(fails > 3);
}

int main(void) {
  g_tset = cl_make_tset(8, 8, &g_tset_len); /* 96 x 96 m, 65 tiles */
  RUN(versions_follow_the_plain_cache);
  RUN(old_versions_keep_their_bytes);
  RUN(obstacles_read_back);
  RUN(per_obstacle_padding);
  RUN(use_versions_alloc_failure_everywhere);
  RUN(versioned_update_alloc_failure_everywhere);
  free(g_tset);
  return tap_done();
}
