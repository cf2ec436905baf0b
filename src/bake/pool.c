/* pool.c -- the tile loop of a tiled build, on one thread or several.
 *
 * Tiles are numbered in grid order (Z outer, X inner). Worker threads take
 * the next unbuilt tile from a shared counter and store its result in that
 * tile's slot; the calling thread takes tiles too, and whenever the next tile
 * in grid order is done it adds it to the navmesh, frees the blob and calls
 * the progress callback. So tile slots, polygon references and the saved
 * bytes do not depend on the thread count or timing, and the callback (a Lua
 * function, say) only ever runs on the calling thread.
 *
 * The caller's allocator need not be thread-safe: while workers run, every
 * call into it goes through one mutex (the counting allocator takes it; the
 * calling thread holds it while adding a tile and while the progress callback
 * runs). The system allocator is thread-safe, so without a caller's allocator
 * nothing is serialised and the byte counters are updated atomically. The
 * same hook counts live and peak bytes for nm_build_stats. */
#if !defined(_WIN32) && !defined(NM_NO_THREADS)
#  define NM_USE_PTHREADS 1
#  include <pthread.h>
#endif
#if defined(__GNUC__) || defined(__clang__)
#  define NM_ATOMIC_COUNT 1   /* __atomic builtins for the byte counters */
#endif
#include "nm_bake.h"

/* ---- the counting allocator ---- */

static void lock_alloc(void *lock) {
#ifdef NM_USE_PTHREADS
  if (lock) pthread_mutex_lock((pthread_mutex_t *)lock);
#else
  (void)lock;
#endif
}

static void unlock_alloc(void *lock) {
#ifdef NM_USE_PTHREADS
  if (lock) pthread_mutex_unlock((pthread_mutex_t *)lock);
#else
  (void)lock;
#endif
}

/* Adds nsize and takes osize from the live bytes and raises the high-water
 * mark; with c->shared, atomically (workers count at the same time). */
static void count_bytes(nm_counting_alloc *c, size_t nsize, size_t osize) {
#ifdef NM_ATOMIC_COUNT
  if (c->shared) {
    size_t cur = __atomic_add_fetch(&c->cur, nsize - osize, __ATOMIC_RELAXED); /* mod 2^N */
    size_t peak = __atomic_load_n(&c->peak, __ATOMIC_RELAXED);
    while (cur > peak && !__atomic_compare_exchange_n(&c->peak, &peak, cur, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return;
  }
#endif
  c->cur = c->cur + nsize - osize;
  if (c->cur > c->peak) c->peak = c->cur;
}

void *nm_counting_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  nm_counting_alloc *c = (nm_counting_alloc *)ud;
  void *r;
  lock_alloc(c->lock);
  r = c->base.fn(c->base.ud, ptr, osize, nsize);
  if (nsize == 0) {
    if (ptr) count_bytes(c, 0, osize);
  } else if (r) {
    count_bytes(c, nsize, ptr ? osize : 0);
  }
  unlock_alloc(c->lock);
  return r;
}

void nm_stats_add(nm_build_stats *to, const nm_build_stats *from) {
  to->ms_rasterize += from->ms_rasterize;
  to->ms_filter += from->ms_filter;
  to->ms_compact += from->ms_compact;
  to->ms_erode += from->ms_erode;
  to->ms_areas += from->ms_areas;
  to->ms_distance += from->ms_distance;
  to->ms_regions += from->ms_regions;
  to->ms_contours += from->ms_contours;
  to->ms_polymesh += from->ms_polymesh;
  to->ms_detail += from->ms_detail;
  to->ms_tiledata += from->ms_tiledata;
}

/* ---- the job table ---- */

typedef struct pool {
  nm_build_ctx *ctx;
  nm_tile_result *res;    /* [total] */
  uint8_t *done;          /* [total] 1 when res[i] is final */
  int total, next, cancel, nthreads;
#ifdef NM_USE_PTHREADS
  pthread_mutex_t jobs;   /* guards next, cancel, done */
  pthread_cond_t cv;      /* signalled when a tile is done */
  pthread_mutex_t alloc;  /* serialises the caller's allocator */
#endif
} pool;

static void jobs_lock(pool *p) {
#ifdef NM_USE_PTHREADS
  if (p->nthreads > 1) pthread_mutex_lock(&p->jobs);
#else
  (void)p;
#endif
}

static void jobs_unlock(pool *p) {
#ifdef NM_USE_PTHREADS
  if (p->nthreads > 1) pthread_mutex_unlock(&p->jobs);
#else
  (void)p;
#endif
}

/* Index of the next tile nobody has taken, or -1. */
static int take_job(pool *p) {
  int i = -1;
  jobs_lock(p);
  if (!p->cancel && p->next < p->total) i = p->next++;
  jobs_unlock(p);
  return i;
}

/* Builds tile i and publishes its result. */
static void run_job(pool *p, int i) {
  const int tw = p->ctx->rc.tiles_x;
  nm_build_tile(p->ctx, i % tw, i / tw, &p->res[i]);
  jobs_lock(p);
  p->done[i] = 1;
#ifdef NM_USE_PTHREADS
  if (p->nthreads > 1) pthread_cond_broadcast(&p->cv);
#endif
  jobs_unlock(p);
}

/* Returns once tile i is done, building other tiles meanwhile. */
static void wait_for(pool *p, int i) {
  for (;;) {
    int d, j;
    jobs_lock(p);
    d = p->done[i];
    jobs_unlock(p);
    if (d) return;
    if ((j = take_job(p)) >= 0) {
      run_job(p, j);
      continue;
    }
#ifdef NM_USE_PTHREADS
    pthread_mutex_lock(&p->jobs);
    while (!p->done[i]) pthread_cond_wait(&p->cv, &p->jobs);
    pthread_mutex_unlock(&p->jobs);
#endif
    return;
  }
}

#ifdef NM_USE_PTHREADS
static void *worker_main(void *arg) {
  pool *p = (pool *)arg;
  int i;
  while ((i = take_job(p)) >= 0) run_job(p, i);
  return NULL;
}
#endif

/* ---- adding finished tiles ---- */

/* Adds tile i's blob (if any) to mesh, frees it, reports progress. */
static nm_status finish_tile(pool *p, int i, nm_navmesh *mesh, nm_diag *diag, nm_build_stats *stats) {
  nm_tile_result *r = &p->res[i];
  const nm_build_config *cfg = p->ctx->cfg;
  void *lock = p->ctx->counter.lock;
  nm_status st = NM_OK;
  if (r->st < 0) {
    if (diag) *diag = r->diag;
    return r->st;
  }
  nm_stats_add(stats, &r->stats);
  if (r->blob) {
    nm_diag d;
    memset(&d, 0, sizeof d);
    lock_alloc(lock);
    st = nm_navmesh_add_tile(mesh, r->blob, r->size, &d, NULL);
    unlock_alloc(lock);
    nm_free(&p->ctx->a, r->blob, r->size);
    r->blob = NULL;
    if (st == NM_ERR_DATA && d.field && strcmp(d.field, "polyCount") == 0)
      return nm_diag_set(diag, NM_ERR_PARAM, "tileSize", "tile (%d, %d): %s; use smaller tiles",
                         i % p->ctx->rc.tiles_x, i / p->ctx->rc.tiles_x, d.msg);
    if (st < 0) {
      if (diag) *diag = d;
      return st;
    }
    stats->tiles++;
    stats->polys += r->npolys;
  }
  if (cfg->progress) {
    int stop;
    lock_alloc(lock);
    stop = cfg->progress(cfg->progress_ud, i + 1, p->total);
    unlock_alloc(lock);
    if (stop) return nm_diag_set(diag, NM_ERR_PARAM, "progress", "build cancelled by the progress callback");
  }
  return NM_OK;
}

/* ---- the loop ---- */

#ifdef NM_USE_PTHREADS
/* Makes the counting allocator safe for several threads: atomic counters
 * over the system allocator, else the mutex around every call. */
static void share_counter(nm_counting_alloc *c, pthread_mutex_t *mutex) {
#ifdef NM_ATOMIC_COUNT
  if (c->system) {
    c->shared = 1;
    return;
  }
#endif
  c->lock = mutex;
}
#endif

/* Starts up to nthreads-1 workers; returns how many started. */
static int start_workers(pool *p, void *threads_mem) {
#ifdef NM_USE_PTHREADS
  pthread_t *th = (pthread_t *)threads_mem;
  int n = 0;
  while (n < p->nthreads - 1 && pthread_create(&th[n], NULL, worker_main, p) == 0) n++;
  return n;
#else
  (void)p;
  (void)threads_mem;
  return 0;
#endif
}

/* Stops taking jobs, waits for the workers, frees unclaimed blobs. */
static void stop_workers(pool *p, void *threads_mem, int nstarted) {
  int i;
  jobs_lock(p);
  p->cancel = 1;
  jobs_unlock(p);
#ifdef NM_USE_PTHREADS
  for (i = 0; i < nstarted; i++) pthread_join(((pthread_t *)threads_mem)[i], NULL);
#else
  (void)threads_mem;
  (void)nstarted;
#endif
  for (i = 0; i < p->total; i++)
    if (p->res[i].blob) nm_free(&p->ctx->a, p->res[i].blob, p->res[i].size);
}

/* The tile loop proper, with the pool's memory in place. */
static nm_status run_pool(pool *p, void *threads_mem, nm_navmesh *mesh, nm_diag *diag, nm_build_stats *stats) {
  nm_status st = NM_OK;
  int i, nstarted = start_workers(p, threads_mem);
  for (i = 0; i < p->total && st >= 0; i++) {
    wait_for(p, i);
    st = finish_tile(p, i, mesh, diag, stats);
  }
  stop_workers(p, threads_mem, nstarted);
  return st;
}

nm_status nm_build_tiles(nm_build_ctx *ctx, nm_navmesh *mesh, nm_diag *diag, nm_build_stats *stats) {
  pool p;
  nm_status st;
  void *threads_mem = NULL;
  size_t threads_size = 0;
  memset(&p, 0, sizeof p);
  p.ctx = ctx;
  p.total = ctx->rc.tiles_x * ctx->rc.tiles_y;
  p.nthreads = nm_maxi(1, nm_mini(ctx->cfg->threads, p.total));
#ifndef NM_USE_PTHREADS
  p.nthreads = 1;
#else
  threads_size = sizeof(pthread_t) * (size_t)p.nthreads;
#endif
  p.res = (nm_tile_result *)nm_calloc(&ctx->a, (size_t)p.total * sizeof *p.res);
  p.done = (uint8_t *)nm_calloc(&ctx->a, (size_t)p.total);
  if (p.nthreads > 1) threads_mem = nm_malloc(&ctx->a, threads_size);
  st = NM_ERR_NOMEM;
  if (p.res && p.done && (p.nthreads == 1 || threads_mem)) {
#ifdef NM_USE_PTHREADS
    if (p.nthreads > 1) {
      pthread_mutex_init(&p.jobs, NULL);
      pthread_mutex_init(&p.alloc, NULL);
      pthread_cond_init(&p.cv, NULL);
      share_counter(&ctx->counter, &p.alloc);
    }
#endif
    st = run_pool(&p, threads_mem, mesh, diag, stats);
#ifdef NM_USE_PTHREADS
    if (p.nthreads > 1) {
      ctx->counter.lock = NULL;
      ctx->counter.shared = 0;
      pthread_cond_destroy(&p.cv);
      pthread_mutex_destroy(&p.alloc);
      pthread_mutex_destroy(&p.jobs);
    }
#endif
  }
  nm_free(&ctx->a, threads_mem, threads_size);
  nm_free(&ctx->a, p.done, (size_t)p.total);
  nm_free(&ctx->a, p.res, (size_t)p.total * sizeof *p.res);
  return st;
}
