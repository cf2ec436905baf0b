/* nm_core.h -- internal helpers shared by every part of the core:
 * allocation through the object's hook, diagnostics, small integer math.
 * Not installed; never included by users. */
#ifndef NM_CORE_H
#define NM_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "navmesh.h"

#if defined(__GNUC__)
#  define NM_INTERNAL __attribute__((visibility("hidden")))
#  define NM_LIKELY(x) __builtin_expect(!!(x), 1)
#  define NM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define NM_INTERNAL
#  define NM_LIKELY(x) (x)
#  define NM_UNLIKELY(x) (x)
#endif

/* ---- allocation ---- */

/* Resolves a possibly NULL hook to a usable one (the system allocator). */
NM_INTERNAL nm_alloc nm_alloc_resolve(const nm_alloc *a);

/* Allocates n bytes (NULL on failure or n == 0). */
static inline void *nm_malloc(const nm_alloc *a, size_t n) {
  return n ? a->fn(a->ud, NULL, 0, n) : NULL;
}
/* Allocates n zeroed bytes (the system allocator gets them from calloc,
 * which hands out fresh zero pages for big blocks without writing them). */
NM_INTERNAL void *nm_calloc(const nm_alloc *a, size_t n);
/* Frees p, which was allocated with n bytes. NULL is fine. */
static inline void nm_free(const nm_alloc *a, void *p, size_t n) {
  if (p) a->fn(a->ud, p, n, 0);
}
/* Grows or shrinks p from on to nn bytes; NULL on failure (p unchanged). */
static inline void *nm_realloc(const nm_alloc *a, void *p, size_t on, size_t nn) {
  return a->fn(a->ud, p, on, nn);
}

/* n * size, or SIZE_MAX when it overflows (so the allocation then fails). */
static inline size_t nm_mul_size(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return SIZE_MAX;
  return n * size;
}

/* ---- diagnostics ---- */

/* Fills diag (when given) and returns st; for one-line error returns. */
NM_INTERNAL nm_status nm_diag_set(nm_diag *diag, nm_status st, const char *field,
                                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- integer helpers ---- */

static inline uint32_t nm_next_pow2(uint32_t v) {
  v--;
  v |= v >> 1; v |= v >> 2; v |= v >> 4; v |= v >> 8; v |= v >> 16;
  return v + 1;
}
static inline uint32_t nm_ilog2(uint32_t v) {
  uint32_t r = 0;
  while (v > 1) { v >>= 1; r++; }
  return r;
}
static inline int nm_mini(int a, int b) { return a < b ? a : b; }
static inline int nm_maxi(int a, int b) { return a > b ? a : b; }
static inline size_t nm_align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* ---- little-endian bytes (file formats) ---- */

static inline uint32_t nm_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline float nm_rdf(const uint8_t *p) {
  const uint32_t u = nm_rd32(p);
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline void nm_wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void nm_wrf(uint8_t *p, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  nm_wr32(p, u);
}

#endif
