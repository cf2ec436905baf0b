/* nm_thread.h -- the little threading the core needs outside the tile loop
 * (versions, build jobs): a lock, one worker thread, atomic flags.
 *
 * POSIX threads where there are any; elsewhere (or built with
 * NM_NO_THREADS) the lock is a spin lock on an atomic flag and no thread is
 * ever started (a build job then runs inside its start call). Atomics are
 * the GCC/Clang __atomic builtins, as for the reference counts. */
#ifndef NM_THREAD_H
#define NM_THREAD_H

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

#endif
