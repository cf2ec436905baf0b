/* track_alloc.h -- a test allocator (lua_Alloc shape) that tracks live
 * bytes, checks that every free and realloc names the exact size of the
 * block, and can fail the n-th allocation (allocation failure injection);
 * and one over it that refuses only large blocks (size_cap).
 * Not thread-safe on purpose: callers that promise serialised calls are
 * checked by it (ASan sees any race's damage). */
#ifndef NM_TRACK_ALLOC_H
#define NM_TRACK_ALLOC_H
#include <stdlib.h>

typedef struct track {
  long live;       /* bytes allocated and not freed */
  long allocs;     /* allocation calls so far (realloc included) */
  long fail_at;    /* fail allocation number fail_at (0: never) */
  long bad_sizes;  /* frees/reallocs whose size disagreed with the block */
  long failed;     /* allocations failed on purpose */
} track;

static void *track_fn(void *ud, void *p, size_t os, size_t ns) {
  track *t = (track *)ud;
  size_t *blk;
  if (ns == 0) {
    if (p) {
      blk = (size_t *)p - 2;
      if (blk[0] != os) t->bad_sizes++;
      t->live -= (long)blk[0];
      free(blk);
    }
    return NULL;
  }
  if (++t->allocs == t->fail_at) {
    t->failed++;
    return NULL;
  }
  if (p && ((size_t *)p - 2)[0] != os) t->bad_sizes++;
  blk = (size_t *)realloc(p ? (size_t *)p - 2 : NULL, ns + 2 * sizeof(size_t));
  if (!blk) return NULL;
  t->live += (long)ns - (long)(p ? os : 0);
  blk[0] = ns;
  return blk + 2;
}

/* An allocator that refuses only blocks of more than `limit` bytes (a new
 * block or a growth past it; shrinking always works) and passes the rest to
 * track_fn. Hosts fail this way: skynet.memlimit refuses the one allocation
 * that would pass the service's limit while small ones still succeed, so a
 * large buffer fails where everything around it works. */
typedef struct size_cap {
  track t;        /* the blocks that were given */
  size_t limit;   /* largest block given */
  long refused;   /* blocks refused so far */
} size_cap;

static inline void *size_cap_fn(void *ud, void *p, size_t os, size_t ns) {
  size_cap *c = (size_cap *)ud;
  if (ns > c->limit && ns > (p ? os : 0)) {
    c->refused++;
    return NULL;
  }
  return track_fn(&c->t, p, os, ns);
}
#endif
