/* test_build_job.c -- nm_navmesh_build on a worker thread.
 *
 * A job's mesh must equal nm_navmesh_build's (saved bytes), whether handed
 * over as built (system allocator) or moved into the caller's allocator;
 * progress must reach the tile count; the caller's allocator must only be
 * called on the calling thread (the tracking allocator here is not
 * thread-safe and checks the thread); cancel and free must be safe at any
 * point (ASan checks that nothing leaks or is used after free); every
 * allocation of start and of the poll that hands the mesh over fails in
 * turn, cleanly (a failed hand-over keeps the result). A tile cache built
 * by a job equals nm_cache_build's. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "tap.h"
#include "track_alloc.h"

static pthread_t g_main;
static long g_other_thread; /* calls to the caller's allocator from another thread */

static void *checked_fn(void *ud, void *p, size_t os, size_t ns) {
  if (!pthread_equal(pthread_self(), g_main)) g_other_thread++;
  return track_fn(ud, p, os, ns);
}

/* A 40 x 40 floor with raised squares: a tiled build of 5 x 5 tiles. */
typedef struct geom { float v[3 * 400]; int t[3 * 600]; int nv, nt; } geom;

static void quad(geom *g, float x0, float z0, float x1, float z1, float y) {
  int a = g->nv;
  float *v = &g->v[a * 3];
  v[0] = x0; v[1] = y; v[2] = z0;
  v[3] = x0; v[4] = y; v[5] = z1;
  v[6] = x1; v[7] = y; v[8] = z1;
  v[9] = x1; v[10] = y; v[11] = z0;
  g->nv += 4;
  g->t[g->nt * 3] = a; g->t[g->nt * 3 + 1] = a + 1; g->t[g->nt * 3 + 2] = a + 2;
  g->t[g->nt * 3 + 3] = a; g->t[g->nt * 3 + 4] = a + 2; g->t[g->nt * 3 + 5] = a + 3;
  g->nt += 2;
}

static void level(geom *g) {
  int i, j;
  memset(g, 0, sizeof *g);
  quad(g, 0, 0, 40, 40, 0);
  for (j = 0; j < 4; j++)
    for (i = 0; i < 4; i++) quad(g, 5 + i * 9.0f, 5 + j * 9.0f, 8 + i * 9.0f, 8 + j * 9.0f, 1.5f);
}

static void config(nm_build_config *c, int threads) {
  nm_build_config_init(c);
  c->tile_size = 32;
  c->threads = threads;
}

/* An area volume (area 7) over the middle of the level. */
static const float g_outline[12] = {10, 0, 10, 30, 0, 10, 30, 0, 30, 10, 0, 30};
static void middle_volume(nm_build_config *c, nm_area_volume *vol, float *outline) {
  memcpy(outline, g_outline, sizeof g_outline);
  memset(vol, 0, sizeof *vol);
  vol->kind = NM_VOLUME_CONVEX;
  vol->verts = outline;
  vol->nverts = 4;
  vol->hmin = -1;
  vol->hmax = 3;
  vol->area = 7;
  c->volumes = vol;
  c->nvolumes = 1;
}

/* Polls until the job is done. */
static nm_status wait_job(nm_build_job *j, nm_navmesh **m, nm_diag *d, nm_build_stats *s) {
  nm_status st;
  while ((st = nm_build_job_poll(j, m, d, s)) == NM_UNFINISHED) sched_yield();
  return st;
}

static int same_bytes(const nm_navmesh *a, const nm_navmesh *b) {
  void *pa = NULL, *pb = NULL;
  size_t na = 0, nb = 0;
  int eq = nm_navmesh_save(a, NM_FORMAT_NATIVE, &pa, &na) == NM_OK &&
           nm_navmesh_save(b, NM_FORMAT_NATIVE, &pb, &nb) == NM_OK && na == nb && memcmp(pa, pb, na) == 0;
  nm_free_bytes(a, pa, na);
  nm_free_bytes(b, pb, nb);
  return eq;
}

TEST(job_equals_build) {
  geom g;
  nm_build_config c;
  nm_navmesh *ref = NULL, *m = NULL, *again = NULL;
  nm_navmesh_params p;
  nm_build_job *j = NULL;
  nm_build_stats s;
  track t;
  nm_alloc a;
  int threads, done = 0, total = 0, nx = 0, ny = 0;
  level(&g);
  config(&c, 1);
  CHECK(nm_navmesh_build(g.v, g.nv, g.t, g.nt, &c, NULL, NULL, &ref, NULL) == NM_OK);
  CHECK(nm_build_tile_grid(g.v, g.nv, &c, NULL, &p, &nx, &ny) == NM_OK);
  for (threads = 1; threads <= 2; threads++) {
    config(&c, threads);
    /* system memory: the worker's mesh itself */
    CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, NULL, NULL, &j) == NM_OK);
    CHECK(wait_job(j, &m, NULL, &s) == NM_OK && m && same_bytes(ref, m));
    CHECK(s.tiles > 4 && s.polys > 0);
    nm_build_job_progress(j, &done, &total);
    CHECK(total == nx * ny && done == total);
    CHECK(nm_build_job_poll(j, &again, NULL, NULL) == NM_ERR_STATE && again == NULL);
    nm_build_job_free(j);
    nm_navmesh_release(m);
    /* the caller's allocator: moved into it by the poll, on this thread */
    memset(&t, 0, sizeof t);
    a.fn = checked_fn;
    a.ud = &t;
    g_other_thread = 0;
    CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, &a, NULL, &j) == NM_OK);
    CHECK(wait_job(j, &m, NULL, NULL) == NM_OK && m && same_bytes(ref, m));
    nm_build_job_free(j);
    CHECK(t.live > 0); /* the mesh lives in the caller's memory */
    nm_navmesh_release(m);
    CHECK(t.live == 0 && t.bad_sizes == 0 && g_other_thread == 0);
  }
  nm_navmesh_release(ref);
}

/* Inputs are copied: the caller may change them while the job runs. */
TEST(inputs_are_copied) {
  geom g;
  nm_build_config c;
  nm_navmesh *ref = NULL, *m = NULL;
  nm_build_job *j = NULL;
  nm_area_volume vol;
  float outline[12];
  uint16_t flags[NM_MAX_AREAS];
  int i;
  level(&g);
  config(&c, 1);
  middle_volume(&c, &vol, outline);
  for (i = 0; i < NM_MAX_AREAS; i++) flags[i] = (uint16_t)(i + 1);
  c.area_flags = flags;
  CHECK(nm_navmesh_build(g.v, g.nv, g.t, g.nt, &c, NULL, NULL, &ref, NULL) == NM_OK);
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, NULL, NULL, &j) == NM_OK);
  memset(g.v, 0, sizeof g.v); /* the job has its own copies */
  memset(outline, 0, sizeof outline);
  memset(flags, 0, sizeof flags);
  vol.area = 2;
  CHECK(wait_job(j, &m, NULL, NULL) == NM_OK && same_bytes(ref, m));
  nm_build_job_free(j);
  nm_navmesh_release(m);
  nm_navmesh_release(ref);
}

TEST(cancel_and_free_at_any_point) {
  geom g;
  nm_build_config c;
  nm_navmesh *m = NULL;
  nm_build_job *j = NULL;
  nm_diag d;
  track t;
  nm_alloc a;
  int done = 0, total = 0, last = 0, bad = 0;
  level(&g);
  config(&c, 1);
  c.cell_size = 0.1f; /* a longer build */
  memset(&t, 0, sizeof t);
  a.fn = checked_fn;
  a.ud = &t;
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, &a, NULL, &j) == NM_OK);
  nm_build_job_cancel(j);
  CHECK(wait_job(j, &m, &d, NULL) == NM_ERR_CANCELLED && m == NULL);
  CHECK(strstr(d.msg, "cancelled") != NULL);
  CHECK(nm_build_job_poll(j, &m, NULL, NULL) == NM_ERR_CANCELLED); /* and stays so */
  nm_build_job_free(j);
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, &a, NULL, &j) == NM_OK);
  nm_build_job_free(j); /* while it runs */
  config(&c, 2);
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, &a, NULL, &j) == NM_OK);
  nm_build_job_free(j); /* while tile workers run */
  config(&c, 1);
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, &a, NULL, &j) == NM_OK);
  while (nm_build_job_poll(j, &m, NULL, NULL) == NM_UNFINISHED) sched_yield();
  nm_navmesh_release(m);
  nm_build_job_free(j); /* after the hand-over */
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, &a, NULL, &j) == NM_OK);
  do { /* progress never goes back and never passes the total */
    nm_build_job_progress(j, &done, &total);
    if (done < last || done > total) bad++;
    last = done;
  } while (nm_build_job_poll(j, &m, NULL, NULL) == NM_UNFINISHED);
  nm_build_job_progress(j, &done, &total);
  if (done < last) bad++;
  last = done;
  nm_navmesh_release(m);
  nm_build_job_free(j);
  CHECK(bad == 0 && last == total && total > 0);
  CHECK(t.live == 0 && t.bad_sizes == 0 && g_other_thread == 0);
  nm_build_job_free(NULL);
  nm_build_job_cancel(NULL);
}

/* Saved TSET bytes of two caches are equal. */
static int same_cache(const nm_cache *a, const nm_cache *b) {
  void *pa = NULL, *pb = NULL;
  size_t na = 0, nb = 0;
  int eq = nm_cache_save(a, &pa, &na) == NM_OK && nm_cache_save(b, &pb, &nb) == NM_OK && na == nb &&
           memcmp(pa, pb, na) == 0;
  nm_cache_free_bytes(a, pa, na);
  nm_cache_free_bytes(b, pb, nb);
  return eq;
}

/* A tile cache built by a job equals nm_cache_build's (layers, navmesh);
 * the caller's allocator is only used on this thread and only for the
 * copies; cancel and free at any point; a cache job is polled as one. */
TEST(cache_job) {
  geom g;
  nm_build_config c;
  nm_cache *ref = NULL, *got = NULL;
  nm_navmesh *m = NULL;
  nm_build_job *j = NULL;
  nm_diag d;
  nm_status st;
  track t;
  nm_alloc a;
  int done = 0, total = 0;
  level(&g);
  config(&c, 1);
  c.tile_size = 24;
  CHECK(nm_cache_build(g.v, g.nv, g.t, g.nt, &c, 64, NULL, NULL, NULL, &ref) == NM_OK);
  memset(&t, 0, sizeof t);
  a.fn = checked_fn;
  a.ud = &t;
  g_other_thread = 0;
  CHECK(nm_cache_build_job_start(g.v, g.nv, g.t, g.nt, &c, 64, NULL, &a, NULL, NULL, &j) == NM_OK);
  CHECK(nm_build_job_poll(j, &m, NULL, NULL) == NM_ERR_PARAM); /* not a navmesh job */
  while ((st = nm_cache_build_job_poll(j, &got, NULL)) == NM_UNFINISHED) sched_yield();
  CHECK(st == NM_OK && got && same_cache(ref, got) && same_bytes(nm_cache_navmesh(ref), nm_cache_navmesh(got)));
  nm_build_job_progress(j, &done, &total);
  CHECK(total > 1 && done == total);
  {
    nm_cache *again = NULL;
    CHECK(nm_cache_build_job_poll(j, &again, NULL) == NM_ERR_STATE && again == NULL); /* handed over once */
  }
  nm_build_job_free(j);
  nm_cache_free(got);
  CHECK(t.live == 0 && t.bad_sizes == 0 && g_other_thread == 0);
  /* cancelled; freed while running */
  c.cell_size = 0.1f;
  CHECK(nm_cache_build_job_start(g.v, g.nv, g.t, g.nt, &c, 64, NULL, &a, NULL, NULL, &j) == NM_OK);
  nm_build_job_cancel(j);
  while ((st = nm_cache_build_job_poll(j, &got, &d)) == NM_UNFINISHED) sched_yield();
  CHECK(st == NM_ERR_CANCELLED && got == NULL && strstr(d.msg, "cancelled") != NULL);
  nm_build_job_free(j);
  CHECK(nm_cache_build_job_start(g.v, g.nv, g.t, g.nt, &c, 64, NULL, &a, NULL, NULL, &j) == NM_OK);
  nm_build_job_free(j);
  /* refused at once */
  c.tile_size = 0;
  CHECK(nm_cache_build_job_start(g.v, g.nv, g.t, g.nt, &c, 64, NULL, &a, NULL, &d, &j) == NM_ERR_PARAM && j == NULL);
  c.tile_size = 24;
  CHECK(nm_cache_build_job_start(g.v, g.nv, g.t, g.nt, &c, 0, NULL, &a, NULL, &d, &j) == NM_ERR_PARAM && j == NULL);
  CHECK(nm_cache_build_job_start(g.v, g.nv, g.t, 0, &c, 64, NULL, &a, NULL, &d, &j) == NM_ERR_EMPTY && j == NULL);
  CHECK(t.live == 0 && t.bad_sizes == 0 && g_other_thread == 0);
  nm_cache_free(ref);
}

TEST(errors) {
  geom g;
  nm_build_config c;
  nm_build_job *j = (nm_build_job *)&g;
  nm_navmesh *m;
  nm_diag d;
  level(&g);
  config(&c, 1);
  c.agent_radius = -1;
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, NULL, &d, &j) == NM_ERR_PARAM && j == NULL);
  CHECK(strcmp(d.field, "agentRadius") == 0);
  config(&c, 1);
  CHECK(nm_build_job_start(g.v, g.nv, g.t, 0, &c, NULL, &d, &j) == NM_ERR_EMPTY && j == NULL);
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, NULL, &d, NULL) == NM_ERR_PARAM);
  CHECK(nm_build_job_poll(NULL, &m, NULL, NULL) == NM_ERR_PARAM);
  /* nothing walkable (a 63 degree slope): the worker's ERR_EMPTY comes
   * through the poll */
  g.nv = 4;
  g.nt = 2;
  g.v[7] = g.v[10] = 80;
  CHECK(nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, NULL, &d, &j) == NM_OK);
  m = NULL;
  CHECK(wait_job(j, &m, &d, NULL) == NM_ERR_EMPTY && m == NULL);
  nm_navmesh_release(m);
  nm_build_job_free(j);
}

/* Every allocation of start, then of the hand-over, fails in turn. */
TEST(allocation_failure) {
  geom g;
  nm_build_config c;
  nm_area_volume vol;
  float outline[12];
  uint16_t flags[NM_MAX_AREAS] = {0};
  nm_offmesh_link link;
  track t;
  nm_alloc a;
  long k, bad = 0, nstart = 0, npoll = 0;
  level(&g);
  config(&c, 1);
  middle_volume(&c, &vol, outline);
  c.area_flags = flags;
  memset(&link, 0, sizeof link);
  link.start[0] = 2; link.start[2] = 2; link.end[0] = 2; link.end[2] = 12; link.radius = 0.5f;
  c.offmesh = &link;
  c.noffmesh = 1;
  a.fn = checked_fn;
  a.ud = &t;
  for (k = 1;; k++) {
    nm_build_job *j = NULL;
    nm_navmesh *m = NULL;
    nm_status st;
    long polls = 0;
    memset(&t, 0, sizeof t);
    t.fail_at = k;
    st = nm_build_job_start(g.v, g.nv, g.t, g.nt, &c, &a, NULL, &j);
    if (st == NM_ERR_NOMEM) {
      nstart++;
      if (j || t.live) bad++;
      continue;
    }
    if (st != NM_OK) { bad++; break; }
    while ((st = wait_job(j, &m, NULL, NULL)) == NM_ERR_NOMEM) {
      polls++;
      t.fail_at = 0; /* the next poll hands it over */
    }
    npoll += polls;
    if (st != NM_OK || !m) bad++;
    nm_navmesh_release(m);
    nm_build_job_free(j);
    if (t.live || t.bad_sizes) bad++;
    if (!t.failed) break;
  }
  printf("# job: %ld allocations of start and %ld of the hand-over failed in turn, %ld problems\n", nstart, npoll, bad);
  CHECK(bad == 0 && nstart >= 5 && npoll >= 3 && g_other_thread == 0);
}

int main(void) {
  g_main = pthread_self();
  RUN(job_equals_build);
  RUN(inputs_are_copied);
  RUN(cancel_and_free_at_any_point);
  RUN(cache_job);
  RUN(errors);
  RUN(allocation_failure);
  return tap_done();
}
