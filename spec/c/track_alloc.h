/* track_alloc.h -- a test allocator (lua_Alloc shape) that tracks live
 * bytes, checks that every free and realloc names the exact size of the
 * block, and can fail the n-th allocation (allocation failure injection).
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
#endif
