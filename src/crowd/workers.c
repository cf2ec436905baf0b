/* workers.c -- the per-agent phases of an update on several threads
 * (config.threads): worker threads started with the crowd, each with its
 * own query, avoidance scratch and grid marks, take blocks of active agents
 * from a shared counter while the calling thread does the same, and the
 * caller waits until the phase is done before the next one starts.
 *
 * An agent's step reads only what earlier phases wrote and writes only the
 * agent itself (see steer.c), and no step depends on the state a context
 * kept from earlier agents (queries start afresh), so which thread runs
 * which agent changes nothing: positions are the same bit for bit with any
 * number of threads. The crowd's allocator (a Lua state's, say) need not be
 * thread-safe: while workers run, every call goes through one lock. */
#include "nm_crowd.h"

#define BLOCK 8 /* agents taken at once */

/* What a worker thread is started with. */
typedef struct worker_arg {
  nm_crowd *c;
  int index;
} worker_arg;

#ifdef NM_HAVE_PTHREADS
/* The crowd's allocator behind the pool's lock. */
static void *locked_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  nm_crowd *c = (nm_crowd *)ud;
  void *r;
  nm_lock_take(&c->pool.alloc_lock);
  r = c->alloc.fn(c->alloc.ud, ptr, osize, nsize);
  nm_lock_give(&c->pool.alloc_lock);
  return r;
}

/* Takes blocks of active agents and runs the phase's step on them;
 * returns how many agents it ran. */
static int run_blocks(nm_crowd *c, nm_crowd_ctx *x) {
  nm_crowd_pool *p = &c->pool;
  int n = 0;
  for (;;) {
    const int b = __atomic_fetch_add(&p->next, BLOCK, __ATOMIC_RELAXED);
    const int e = nm_mini(b + BLOCK, p->count);
    int i;
    if (b >= p->count) return n;
    for (i = b; i < e; ++i) p->step(c, x, &c->agents[c->active[i]], p->dt);
    n += e - b;
  }
}

/* A worker: waits for a phase with blocks left, takes blocks, and says
 * when it is out of the phase. A worker that wakes after the caller took
 * every block stays out: the caller never waits for a thread the system
 * has not scheduled yet (the machine may be busy with other work). */
static void *worker_main(void *arg) {
  nm_crowd *c = ((worker_arg *)arg)->c;
  nm_crowd_pool *p = &c->pool;
  nm_crowd_ctx *x = &p->ctx[((worker_arg *)arg)->index];
  unsigned seen = 0;
  int ran;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    for (;;) {
      if (p->quit) {
        pthread_mutex_unlock(&p->lock);
        return NULL;
      }
      if (p->gen != seen) {
        seen = p->gen;
        if (__atomic_load_n(&p->next, __ATOMIC_RELAXED) < p->count) break;
      }
      pthread_cond_wait(&p->start, &p->lock);
    }
    p->in_flight++;
    pthread_mutex_unlock(&p->lock);
    ran = run_blocks(c, x);
    pthread_mutex_lock(&p->lock);
    p->worker_steps += (unsigned long)ran;
    if (--p->in_flight == 0) pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->lock);
  }
}
#endif

void nm_crowd_run(nm_crowd *c, nm_crowd_step step, float dt) {
  nm_crowd_pool *p = &c->pool;
  int i;
  if (p->nworkers == 0) {
    for (i = 0; i < c->nactive; ++i) step(c, &c->ctx0, &c->agents[c->active[i]], dt);
    return;
  }
#ifdef NM_HAVE_PTHREADS
  pthread_mutex_lock(&p->lock);
  p->step = step;
  p->dt = dt;
  p->count = c->nactive;
  __atomic_store_n(&p->next, 0, __ATOMIC_RELAXED);
  p->gen++;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->lock);
  (void)run_blocks(c, &p->ctx[0]);
  pthread_mutex_lock(&p->lock); /* every block is taken: wait for those being run */
  while (p->in_flight > 0) pthread_cond_wait(&p->done, &p->lock);
  p->count = 0; /* closed: a worker waking late finds nothing to do */
  pthread_mutex_unlock(&p->lock);
#endif
}

int nm_crowd_take_samples(nm_crowd *c) {
  const int nctx = c->pool.ctx ? c->cfg.threads : 0; /* (workers' and the caller's) */
  int i, n = c->ctx0.samples;
  c->ctx0.samples = 0;
  for (i = 0; i < nctx; ++i) {
    n += c->pool.ctx[i].samples;
    c->pool.ctx[i].samples = 0;
  }
  return n;
}

/* Bytes of the pool's context block for n workers (contexts, then the
 * workers' start arguments). */
static size_t ctx_bytes(int n) {
  return (size_t)(n + 1) * sizeof(nm_crowd_ctx) + (size_t)n * sizeof(worker_arg);
}

static void ctx_free(nm_crowd *c, nm_crowd_ctx *x) {
  nm_query_free(x->q);
  nm_free(&c->alloc, x->seen, (size_t)c->cfg.max_agents * sizeof(uint32_t));
  x->q = NULL;
  x->seen = NULL;
}

#ifdef NM_HAVE_PTHREADS
/* A worker's context: a query of its own and grid marks. */
static nm_status ctx_init(nm_crowd *c, nm_crowd_ctx *x) {
  memset(x, 0, sizeof *x);
  x->alloc.fn = locked_alloc;
  x->alloc.ud = c;
  x->seen = (uint32_t *)nm_calloc(&c->alloc, (size_t)c->cfg.max_agents * sizeof(uint32_t));
  if (!x->seen) return NM_ERR_NOMEM;
  return nm_query_new(c->mesh, NM_LOCAL_NODES, &c->alloc, &x->q);
}

/* The lock and the two conditions of the pool; 0 when one cannot be made. */
static int sync_init(nm_crowd_pool *p) {
  if (pthread_mutex_init(&p->lock, NULL) != 0) return 0;
  if (pthread_cond_init(&p->start, NULL) != 0) {
    pthread_mutex_destroy(&p->lock);
    return 0;
  }
  if (pthread_cond_init(&p->done, NULL) != 0) {
    pthread_cond_destroy(&p->start);
    pthread_mutex_destroy(&p->lock);
    return 0;
  }
  return p->ready = 1;
}

/* Makes the contexts (0: the caller's, with the locked allocator) and
 * starts n workers; a thread that cannot be started leaves fewer workers
 * (the same results). */
static nm_status start_threads(nm_crowd *c, int n) {
  nm_crowd_pool *p = &c->pool;
  worker_arg *args;
  int i;
  p->ctx = (nm_crowd_ctx *)nm_calloc(&c->alloc, ctx_bytes(n));
  p->threads = (pthread_t *)nm_calloc(&c->alloc, (size_t)n * sizeof(pthread_t));
  if (!p->ctx || !p->threads) return NM_ERR_NOMEM;
  args = (worker_arg *)(p->ctx + n + 1);
  p->ctx[0] = c->ctx0;
  p->ctx[0].alloc.fn = locked_alloc;
  p->ctx[0].alloc.ud = c;
  for (i = 1; i <= n; ++i) {
    nm_status st = ctx_init(c, &p->ctx[i]);
    if (st < 0) return st;
  }
  if (!sync_init(p)) return NM_ERR_NOMEM;
  for (i = 0; i < n; ++i) {
    args[i].c = c;
    args[i].index = i + 1;
    if (pthread_create(&p->threads[i], NULL, worker_main, &args[i]) != 0) break;
    p->nworkers++;
  }
  return NM_OK;
}

/* Stops and joins the workers. */
static void stop_threads(nm_crowd_pool *p) {
  int i;
  if (!p->ready) return;
  pthread_mutex_lock(&p->lock);
  p->quit = 1;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->lock);
  for (i = 0; i < p->nworkers; ++i) pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->start);
  pthread_mutex_destroy(&p->lock);
}
#endif

nm_status nm_crowd_pool_start(nm_crowd *c, int threads) {
  nm_crowd_pool *p = &c->pool;
  memset(p, 0, sizeof *p);
  if (!nm_lock_init(&p->alloc_lock)) return NM_ERR_NOMEM;
  p->started = 1;
  c->ctx0.q = c->q;
  c->ctx0.seen = NULL;
  c->ctx0.alloc = c->alloc;
#ifdef NM_HAVE_PTHREADS
  if (threads > 1) return start_threads(c, threads - 1);
#else
  (void)threads;
#endif
  return NM_OK;
}

void nm_crowd_pool_stop(nm_crowd *c) {
  nm_crowd_pool *p = &c->pool;
  const int n = c->cfg.threads > 1 ? c->cfg.threads - 1 : 0;
  int i;
  if (!p->started) return;
#ifdef NM_HAVE_PTHREADS
  stop_threads(p);
  if (p->threads) nm_free(&c->alloc, p->threads, (size_t)n * sizeof(pthread_t));
#endif
  if (p->ctx) {
    for (i = 1; i <= n; ++i) ctx_free(c, &p->ctx[i]);
    nm_free(&c->alloc, p->ctx, ctx_bytes(n));
  }
  nm_lock_destroy(&p->alloc_lock);
  memset(p, 0, sizeof *p);
}
