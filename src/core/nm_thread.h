/* nm_thread.h -- the little threading the core needs outside the tile loop
 * (versions, build jobs): a lock, one worker thread, atomic flags.
 *
 * POSIX threads where there are any; elsewhere (or built with
 * NM_NO_THREADS) the lock is a spin lock on an atomic flag and no thread is
 * ever started (a build job then runs inside its start call). Atomics are
 * the GCC/Clang __atomic builtins, as for the reference counts. */
#ifndef NM_THREAD_H
#define NM_THREAD_H

#include "nm_core.h"

#if !defined(_WIN32) && !defined(NM_NO_THREADS)
#  define NM_HAVE_PTHREADS 1
#  include <pthread.h>
#endif

#ifdef NM_HAVE_PTHREADS
typedef pthread_mutex_t nm_lock;
static inline int nm_lock_init(nm_lock *l) { return pthread_mutex_init(l, NULL) == 0; }
static inline void nm_lock_destroy(nm_lock *l) { pthread_mutex_destroy(l); }
static inline void nm_lock_take(nm_lock *l) { pthread_mutex_lock(l); }
static inline void nm_lock_give(nm_lock *l) { pthread_mutex_unlock(l); }
#else
typedef struct nm_lock { char flag; } nm_lock;
static inline int nm_lock_init(nm_lock *l) { l->flag = 0; return 1; }
static inline void nm_lock_destroy(nm_lock *l) { (void)l; }
static inline void nm_lock_take(nm_lock *l) {
  while (__atomic_test_and_set(&l->flag, __ATOMIC_ACQUIRE)) {}
}
static inline void nm_lock_give(nm_lock *l) { __atomic_clear(&l->flag, __ATOMIC_RELEASE); }
#endif

/* An int read and written by several threads. */
static inline int nm_atomic_get(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void nm_atomic_set(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* ---- a job on a worker thread (job.c) ----
 * Embed nm_job in a job object, set run, call nm_job_start. run executes on
 * the worker (or inside nm_job_start where threads are missing or cannot
 * be started) and must read `cancel` (nm_atomic_get) where it can stop.
 * nm_job_done polls without blocking; nm_job_stop asks run to stop and
 * waits for it, so the object may then be freed. */
typedef struct nm_job {
  void (*run)(struct nm_job *job);
  int cancel;             /* set by nm_job_stop or the owner (atomic) */
  int done;               /* set when run returned (atomic) */
  int started, joined;    /* a thread was started / has been joined */
#ifdef NM_HAVE_PTHREADS
  pthread_t thread;
#endif
} nm_job;

NM_INTERNAL void nm_job_start(nm_job *job);
NM_INTERNAL int nm_job_done(nm_job *job);
NM_INTERNAL void nm_job_stop(nm_job *job);

#endif
