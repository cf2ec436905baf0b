/* test_versions_tsan.c -- versions published while other threads query.
 *
 * One writer thread publishes versions of the fixture mesh (spec/c/
 * fixture.h) that alternate between two states: A, the mesh as made, and B,
 * the mesh without its middle column of tiles and with other flags on one
 * polygon (so paths change and the two halves become separate islands).
 * Version 1 is A, and each publish flips, so a version's number tells its
 * state. Reader threads each own a query, move it to the latest version
 * between rounds (nm_navmesh_version_latest + nm_query_set_mesh, as a Lua
 * handle:refresh() will), and answer fixed queries (nearest polygons,
 * paths, islands, the island labels of a new version being made by the
 * readers themselves); every answer must equal the answer of a plain mesh
 * in the same state, made beforehand. Built with -fsanitize=thread with the
 * core (make build/tsan/tests/test_versions_tsan), which fails the run on
 * any data race; memory must come back to zero at the end. No Lua. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../fixture.h"

#define NREADERS 4
#define NQ 24        /* queries per round */
#define NPUBLISH 120 /* versions the writer publishes after the first */
#define MAXPATH 64

typedef struct answer {
  nm_polyref a, b;           /* nearest polygons of start and end */
  int reachable;
  nm_status st;              /* of find_path */
  int n;
  nm_polyref path[MAXPATH];
} answer;

static float g_pts[NQ][6];
static answer g_expect[2][NQ]; /* [state B?][query] */
static nm_navmesh *g_first;    /* version 1, retained until the readers start */
static int g_fail, g_moves, g_queries, g_writer_done;
static uint32_t g_seen[NREADERS]; /* newest version number each reader has moved to */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Thread-safe counting allocator: versions are freed on reader threads. */
static long g_live;
static void *count_fn(void *ud, void *p, size_t os, size_t ns) {
  void *r;
  (void)ud;
  if (ns == 0) {
    if (p) __atomic_sub_fetch(&g_live, (long)os, __ATOMIC_RELAXED);
    free(p);
    return NULL;
  }
  r = realloc(p, ns);
  if (r) __atomic_add_fetch(&g_live, (long)ns - (long)(p ? os : 0), __ATOMIC_RELAXED);
  return r;
}
static const nm_alloc g_alloc = {count_fn, NULL};

/* Answers query i on the mesh of q. */
static void answer_one(nm_query *q, int i, answer *out) {
  nm_filter f;
  const float ext[3] = {2, 4, 2};
  float pa[3], pb[3];
  nm_filter_init(&f);
  f.exclude_flags = 0x10;
  memset(out, 0, sizeof *out);
  nm_query_find_nearest(q, &g_pts[i][0], ext, &f, &out->a, pa, NULL);
  nm_query_find_nearest(q, &g_pts[i][3], ext, &f, &out->b, pb, NULL);
  out->reachable = nm_navmesh_is_reachable(nm_query_mesh(q), out->a, out->b);
  out->st = out->a && out->b ? nm_query_find_path(q, out->a, out->b, pa, pb, &f, out->path, MAXPATH, &out->n)
                             : NM_ERR_NO_POLY;
}

static int same_answer(const answer *x, const answer *y) {
  return x->a == y->a && x->b == y->b && x->reachable == y->reachable && x->st == y->st && x->n == y->n &&
         memcmp(x->path, y->path, (size_t)x->n * sizeof(nm_polyref)) == 0;
}

/* Puts mesh m (a draft or a plain mesh) into state B (to_b) or back to A.
 * blobs/refs keep the middle column's tiles. */
static nm_status flip(nm_navmesh *m, int to_b, void *blobs[3], size_t sizes[3], nm_polyref refs[3]) {
  nm_status st = NM_OK;
  int y;
  for (y = 0; y < 3 && st >= 0; y++)
    st = to_b ? nm_navmesh_remove_tile(m, 1, y, 0, NULL, NULL)
              : nm_navmesh_add_tile_ref(m, blobs[y], sizes[y], refs[y], NULL, NULL);
  if (st >= 0) st = nm_navmesh_set_poly_flags(m, nm_navmesh_tile_ref_at(m, 0, 2, 0) | 1, to_b ? 0x10 : 1);
  return st;
}

/* Reader: the queries in turn, each on the latest version, checked,
 * until the writer is done and the last version has been queried. */
static void *reader(void *arg) {
  const int me = (int)(intptr_t)arg;
  nm_query *q = NULL;
  int i = 0, moved = 0, bad = 0, n = 0, done = 0;
  if (nm_query_new(g_first, 512, NULL, &q) < 0) {
    __atomic_add_fetch(&g_fail, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&g_seen[me], UINT32_MAX, __ATOMIC_RELEASE); /* the writer must not wait for it */
    return NULL;
  }
  while (!done) {
    nm_navmesh *latest;
    answer a;
    int state;
    done = __atomic_load_n(&g_writer_done, __ATOMIC_ACQUIRE); /* one more round after it */
    latest = nm_navmesh_version_latest(nm_query_mesh(q));
    if (latest != nm_query_mesh(q)) moved++;
    nm_query_set_mesh(q, latest);
    nm_navmesh_release(latest);
    __atomic_store_n(&g_seen[me], nm_navmesh_version_number(nm_query_mesh(q)), __ATOMIC_RELEASE);
    state = nm_navmesh_version_number(nm_query_mesh(q)) % 2 == 0;
    answer_one(q, i, &a);
    if (!same_answer(&a, &g_expect[state][i])) bad++;
    i = (i + 1) % NQ;
    n++;
  }
  nm_query_free(q);
  pthread_mutex_lock(&g_lock);
  g_fail += bad;
  g_moves += moved;
  g_queries += n;
  pthread_mutex_unlock(&g_lock);
  return NULL;
}

/* Waits until every reader has moved to version `number`, so that each
 * version is queried (and its islands made) by all readers at once. */
static void wait_readers(uint32_t number) {
  int i;
  for (i = 0; i < NREADERS; i++)
    while (__atomic_load_n(&g_seen[i], __ATOMIC_ACQUIRE) < number) sched_yield();
}

typedef struct writer_arg { nm_navmesh *tip; void *blobs[3]; size_t sizes[3]; nm_polyref refs[3]; int published; } writer_arg;

/* Writer: NPUBLISH versions, each the other state of the last, each
 * published once the readers are all on the one before. */
static void *writer(void *arg) {
  writer_arg *w = (writer_arg *)arg;
  int k;
  for (k = 0; k < NPUBLISH; k++) {
    wait_readers(nm_navmesh_version_number(w->tip));
    nm_navmesh *d = NULL;
    const int to_b = nm_navmesh_version_number(w->tip) % 2 == 1;
    if (nm_navmesh_version_edit(w->tip, &d) < 0 || flip(d, to_b, w->blobs, w->sizes, w->refs) < 0) {
      nm_navmesh_release(d);
      __atomic_add_fetch(&g_fail, 1, __ATOMIC_RELAXED);
      break;
    }
    nm_navmesh_version_commit(d);
    nm_navmesh_release(w->tip);
    w->tip = d;
    w->published++;
  }
  __atomic_store_n(&g_writer_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* The query points (a grid of pairs over the fixture) and the expected
 * answers of states A and B on plain meshes. */
static int prepare(nm_navmesh *base, writer_arg *w) {
  nm_navmesh *plain[2] = {NULL, NULL};
  int i, s;
  for (i = 0; i < NQ; i++) {
    float *p = g_pts[i];
    p[0] = 1.0f + (float)((i * 7) % 22);
    p[2] = 1.0f + (float)((i * 5) % 22);
    p[3] = 23.0f - (float)((i * 3) % 22);
    p[5] = 23.0f - (float)((i * 11) % 22);
    p[1] = fz_ground(p[0], p[2]);
    p[4] = fz_ground(p[3], p[5]);
  }
  for (i = 0; i < 3; i++) {
    const void *b;
    nm_navmesh_get_tile(base, 1, i, 0, &b, &w->sizes[i]);
    w->blobs[i] = malloc(w->sizes[i]);
    memcpy(w->blobs[i], b, w->sizes[i]);
    w->refs[i] = nm_navmesh_tile_ref_at(base, 1, i, 0);
  }
  for (s = 0; s < 2; s++) {
    nm_query *q = NULL;
    if (nm_navmesh_copy(base, NULL, &plain[s]) < 0) return 0;
    if (s == 1 && flip(plain[s], 1, w->blobs, w->sizes, w->refs) < 0) return 0;
    if (nm_query_new(plain[s], 512, NULL, &q) < 0) return 0;
    for (i = 0; i < NQ; i++) answer_one(q, i, &g_expect[s][i]);
    nm_query_free(q);
    nm_navmesh_release(plain[s]);
  }
  for (i = 0; i < NQ && memcmp(&g_expect[0][i], &g_expect[1][i], sizeof(answer)) == 0; i++) {}
  return i < NQ; /* the states must answer differently somewhere */
}

int main(void) {
  pthread_t th[NREADERS + 1];
  writer_arg w;
  nm_navmesh *base = NULL;
  int i;
  memset(&w, 0, sizeof w);
  if (fz_fixture_mesh(&base) < 0 || !prepare(base, &w)) {
    printf("not ok 1 - setup\n1..1\n");
    return 1;
  }
  if (nm_navmesh_version_new(base, &g_alloc, &w.tip) < 0) return 1;
  g_first = w.tip;
  nm_navmesh_retain(g_first);
  for (i = 0; i < NREADERS; i++) pthread_create(&th[i], NULL, reader, (void *)(intptr_t)i);
  pthread_create(&th[NREADERS], NULL, writer, &w);
  for (i = 0; i <= NREADERS; i++) pthread_join(th[i], NULL);
  nm_navmesh_release(g_first);
  nm_navmesh_release(w.tip);
  printf("# %d versions published, readers moved to a newer one %d times in %d queries\n", w.published,
         g_moves, g_queries);
  printf("%sok 1 - every answer equals the plain mesh's in the same state (%d wrong)\n", g_fail ? "not " : "", g_fail);
  printf("%sok 2 - all version memory freed (%ld bytes left)\n", g_live ? "not " : "", g_live);
  printf("1..2\n");
  for (i = 0; i < 3; i++) free(w.blobs[i]);
  nm_navmesh_release(base);
  return g_fail || g_live ? 1 : 0;
}
