/* test_build_driver.c -- nm_navmesh_build as a whole: configuration and
 * input checks, grids refused before allocating, solo and tiled builds,
 * thread-count independence, progress and cancelling, stats, and allocation
 * failure injection (every allocation fails in turn; nothing leaks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "tap.h"
#include "track_alloc.h"

/* ---- a small scene: a 12 x 12 floor with a box on it ---- */

typedef struct scene {
  float v[3 * 64];
  int t[3 * 64];
  int nv, nt;
} scene;

static int vert(scene *s, float x, float y, float z) {
  s->v[s->nv * 3] = x;
  s->v[s->nv * 3 + 1] = y;
  s->v[s->nv * 3 + 2] = z;
  return s->nv++;
}

static void quad(scene *s, int a, int b, int c, int d) {
  int *t = &s->t[s->nt * 3];
  t[0] = a; t[1] = b; t[2] = c;
  t[3] = a; t[4] = c; t[5] = d;
  s->nt += 2;
}

static void floor_rect(scene *s, float x0, float z0, float x1, float z1, float y) {
  int a = vert(s, x0, y, z0), b = vert(s, x0, y, z1), c = vert(s, x1, y, z1), d = vert(s, x1, y, z0);
  quad(s, a, b, c, d);
}

static void yard(scene *s) {
  int v[8], i;
  memset(s, 0, sizeof *s);
  floor_rect(s, 0, 0, 12, 12, 0);
  for (i = 0; i < 8; i++)
    v[i] = vert(s, i & 1 ? 7.0f : 4.0f, i & 2 ? 2.0f : 0.0f, i & 4 ? 8.0f : 3.0f);
  quad(s, v[2], v[6], v[7], v[3]);
  quad(s, v[0], v[1], v[5], v[4]);
  quad(s, v[0], v[2], v[3], v[1]);
  quad(s, v[4], v[5], v[7], v[6]);
  quad(s, v[0], v[4], v[6], v[2]);
  quad(s, v[1], v[3], v[7], v[5]);
}

static nm_status run(const scene *s, const nm_build_config *c, track *t, nm_navmesh **m, nm_diag *d,
                     nm_build_stats *stats) {
  nm_alloc a;
  a.fn = track_fn;
  a.ud = t;
  return nm_navmesh_build(s->v, s->nv, s->t, s->nt, c, &a, d, m, stats);
}

/* Saved bytes of a mesh (malloc'd copy). */
static void *saved(nm_navmesh *m, size_t *len) {
  void *b, *copy;
  if (nm_navmesh_save(m, NM_FORMAT_MSET, &b, len) < 0) return NULL;
  copy = malloc(*len);
  memcpy(copy, b, *len);
  nm_free_bytes(m, b, *len);
  return copy;
}

/* ---- tests ---- */

TEST(defaults_are_recastdemos) {
  nm_build_config c;
  nm_build_config_init(&c);
  CHECK(c.cell_size == 0.3f && c.cell_height == 0.2f && c.agent_height == 2.0f && c.agent_radius == 0.6f);
  CHECK(c.agent_max_climb == 0.9f && c.agent_max_slope == 45.0f && c.region_min_size == 8);
  CHECK(c.region_merge_size == 20 && c.edge_max_len == 12.0f && c.edge_max_error == 1.3f);
  CHECK(c.verts_per_poly == 6 && c.detail_sample_dist == 6.0f && c.detail_sample_max_error == 1.0f);
  CHECK(c.partition == NM_PARTITION_WATERSHED && c.tile_size == 0 && c.threads == 1);
  CHECK(c.filter_low_hanging && c.filter_ledges && c.filter_low_height);
}

/* A config change that must be refused with ERR_PARAM naming `field`,
 * without a single allocation. */
static void expect_param(const scene *s, const nm_build_config *c, const char *field) {
  track t = {0, 0, 0, 0, 0};
  nm_navmesh *m = (nm_navmesh *)&t;
  nm_diag d;
  memset(&d, 0, sizeof d);
  CHECK(run(s, c, &t, &m, &d, NULL) == NM_ERR_PARAM);
  CHECK(m == NULL && t.allocs == 0);
  CHECK(d.field && strcmp(d.field, field) == 0);
  CHECK(d.msg[0] != 0);
  if (!d.field || strcmp(d.field, field) != 0) printf("#   expected field %s, got %s (%s)\n", field, d.field ? d.field : "-", d.msg);
}

TEST(bad_configs_are_refused_before_allocating) {
  scene s;
  nm_build_config c;
  yard(&s);
  nm_build_config_init(&c); c.cell_size = 0; expect_param(&s, &c, "cellSize");
  nm_build_config_init(&c); c.cell_height = NAN; expect_param(&s, &c, "cellHeight");
  nm_build_config_init(&c); c.verts_per_poly = 2; expect_param(&s, &c, "vertsPerPoly");
  nm_build_config_init(&c); c.verts_per_poly = 7; expect_param(&s, &c, "vertsPerPoly");
  nm_build_config_init(&c); c.agent_max_slope = 95; expect_param(&s, &c, "agentMaxSlope");
  nm_build_config_init(&c); c.partition = 7; expect_param(&s, &c, "partition");
  nm_build_config_init(&c); c.threads = 0; expect_param(&s, &c, "threads");
  nm_build_config_init(&c); c.agent_radius = 100; expect_param(&s, &c, "agentRadius");
  nm_build_config_init(&c); c.cell_size = 1e-5f; c.agent_radius = 0; expect_param(&s, &c, "cellSize");
  nm_build_config_init(&c); c.memory_limit = 4096; expect_param(&s, &c, "cellSize");
  /* 40000 x 40000 cells in one tile: more than 32767 per side */
  nm_build_config_init(&c); c.cell_size = 0.0003f; c.agent_radius = 0; c.memory_limit = (size_t)1 << 40;
  expect_param(&s, &c, "cellSize");
  nm_build_config_init(&c); c.tile_size = 1; c.cell_size = 0.01f; c.memory_limit = (size_t)1 << 40;
  expect_param(&s, &c, "tileSize");   /* 1200 x 1200 tiles */
}

TEST(bad_input_is_refused) {
  scene s;
  nm_build_config c;
  track t = {0, 0, 0, 0, 0};
  nm_navmesh *m;
  nm_diag d;
  yard(&s);
  nm_build_config_init(&c);
  s.v[4] = INFINITY;
  CHECK(run(&s, &c, &t, &m, &d, NULL) == NM_ERR_PARAM && strcmp(d.field, "vertices") == 0);
  s.v[4] = NAN;
  CHECK(run(&s, &c, &t, &m, &d, NULL) == NM_ERR_PARAM && strcmp(d.field, "vertices") == 0);
  yard(&s);
  s.t[5] = s.nv;
  CHECK(run(&s, &c, &t, &m, &d, NULL) == NM_ERR_PARAM && strcmp(d.field, "triangles") == 0);
  s.t[5] = -1;
  CHECK(run(&s, &c, &t, &m, &d, NULL) == NM_ERR_PARAM && strcmp(d.field, "triangles") == 0);
  s.nt = 0;
  CHECK(run(&s, &c, &t, &m, &d, NULL) == NM_ERR_EMPTY);
  CHECK(nm_navmesh_build(NULL, 0, NULL, 0, &c, NULL, &d, &m, NULL) == NM_ERR_EMPTY);
  CHECK(nm_navmesh_build(s.v, s.nv, s.t, 1, NULL, NULL, &d, &m, NULL) == NM_ERR_PARAM);
  CHECK(t.live == 0);
}

TEST(solo_build) {
  scene s;
  nm_build_config c;
  track t = {0, 0, 0, 0, 0};
  nm_navmesh *m;
  nm_navmesh_info info;
  nm_build_stats st;
  yard(&s);
  nm_build_config_init(&c);
  CHECK(run(&s, &c, &t, &m, NULL, &st) == NM_OK);
  nm_navmesh_get_info(m, &info);
  CHECK(info.tiles == 1 && info.polys > 1 && st.tiles == 1 && st.polys == info.polys);
  CHECK(st.peak_bytes > 0 && st.ms_total >= 0 && st.ms_rasterize >= 0);
  CHECK(t.bad_sizes == 0);
  nm_navmesh_release(m);
  CHECK(t.live == 0);
}

TEST(tiled_build_is_thread_count_independent) {
  scene s;
  nm_build_config c;
  nm_navmesh *m;
  nm_navmesh_info info;
  void *ref;
  size_t ref_len;
  int threads;
  yard(&s);
  nm_build_config_init(&c);
  c.tile_size = 8;   /* 2.4 wu: 5 x 5 tiles */
  {
    track t = {0, 0, 0, 0, 0};
    CHECK(run(&s, &c, &t, &m, NULL, NULL) == NM_OK);
    nm_navmesh_get_info(m, &info);
    CHECK(info.tiles == 25 && info.max_tiles == 32);
    ref = saved(m, &ref_len);
    nm_navmesh_release(m);
    CHECK(t.live == 0 && t.bad_sizes == 0);
  }
  for (threads = 2; threads <= 8; threads *= 2) {
    track t = {0, 0, 0, 0, 0};
    void *b;
    size_t len;
    c.threads = threads;
    CHECK(run(&s, &c, &t, &m, NULL, NULL) == NM_OK);
    b = saved(m, &len);
    CHECK(len == ref_len && memcmp(b, ref, len) == 0);
    free(b);
    nm_navmesh_release(m);
    CHECK(t.live == 0 && t.bad_sizes == 0);
  }
  free(ref);
}

typedef struct progress_log {
  int calls, last_done, last_total, stop_at, in_order;
} progress_log;

static int on_progress(void *ud, int done, int total) {
  progress_log *p = (progress_log *)ud;
  p->calls++;
  if (done != p->last_done + 1) p->in_order = 0;
  p->last_done = done;
  p->last_total = total;
  return p->stop_at && done == p->stop_at;
}

TEST(progress_and_cancel) {
  scene s;
  nm_build_config c;
  nm_navmesh *m;
  nm_diag d;
  int threads;
  yard(&s);
  for (threads = 1; threads <= 2; threads++) {
    progress_log p = {0, 0, 0, 0, 1};
    track t = {0, 0, 0, 0, 0};
    nm_build_config_init(&c);
    c.tile_size = 8;
    c.threads = threads;
    c.progress = on_progress;
    c.progress_ud = &p;
    CHECK(run(&s, &c, &t, &m, NULL, NULL) == NM_OK);
    CHECK(p.calls == 25 && p.last_done == 25 && p.last_total == 25 && p.in_order);
    nm_navmesh_release(m);
    memset(&p, 0, sizeof p);
    p.in_order = 1;
    p.stop_at = 7;
    CHECK(run(&s, &c, &t, &m, &d, NULL) == NM_ERR_PARAM);
    CHECK(m == NULL && p.calls == 7 && strcmp(d.field, "progress") == 0);
    CHECK(t.live == 0);
  }
}

/* Fails every allocation of a build in turn: ERR_NOMEM, nothing leaks. */
static void inject_failures(nm_build_config *c, int step) {
  scene s;
  track t = {0, 0, 0, 0, 0};
  nm_navmesh *m;
  long total, k, bad = 0;
  yard(&s);
  CHECK(run(&s, c, &t, &m, NULL, NULL) == NM_OK);
  nm_navmesh_release(m);
  total = t.allocs;
  CHECK(total > 10);
  for (k = 1; k <= total; k += step) {
    track f = {0, 0, 0, 0, 0};
    nm_status st;
    f.fail_at = k;
    st = run(&s, c, &f, &m, NULL, NULL);
    if (st == NM_OK) nm_navmesh_release(m);
    if ((f.failed && st != NM_ERR_NOMEM) || f.live != 0 || f.bad_sizes) {
      if (bad++ < 5) printf("#   allocation %ld of %ld: status %d, %ld bytes left\n", k, total, st, f.live);
    }
  }
  CHECK(bad == 0);
}

TEST(allocation_failures_solo) {
  nm_build_config c;
  nm_build_config_init(&c);
  inject_failures(&c, 1);
}

TEST(allocation_failures_tiled) {
  nm_build_config c;
  nm_build_config_init(&c);
  c.tile_size = 16;
  inject_failures(&c, 1);
}

TEST(allocation_failures_threads) {
  nm_build_config c;
  nm_build_config_init(&c);
  c.tile_size = 8;
  c.threads = 3;
  inject_failures(&c, 7);
}

int main(void) {
  RUN(defaults_are_recastdemos);
  RUN(bad_configs_are_refused_before_allocating);
  RUN(bad_input_is_refused);
  RUN(solo_build);
  RUN(tiled_build_is_thread_count_independent);
  RUN(progress_and_cancel);
  RUN(allocation_failures_solo);
  RUN(allocation_failures_tiled);
  RUN(allocation_failures_threads);
  return tap_done();
}
