/* nm_polyutil.h -- small helpers shared by the back half of the build
 * (contour.c, polymesh.c, detail.c): a growable int array that allocates
 * through an nm_alloc, and exact integer X/Z predicates on grid points.
 *
 * Grid points are int arrays whose [0] is x and [2] is z (cells); the y at
 * [1] is ignored by every predicate. area2(a, b, c) is negative when c lies
 * to the left of a->b in Recast's convention (x right, z down the page), so
 * "left" means area2 < 0. */
#ifndef NM_BUILDUTIL_H
#define NM_BUILDUTIL_H

#include "nm_poly.h"

/* ---- growable int array ---- */

typedef struct nm_ivec {
  int *v;
  int n, cap;
} nm_ivec;

/* Makes room for need ints in total (growing by half again); NM_ERR_NOMEM
 * leaves the array as it was. */
static inline nm_status nm_ivec_reserve(const nm_alloc *a, nm_ivec *iv, int need) {
  int ncap;
  int *p;
  if (need <= iv->cap) return NM_OK;
  if (need > (1 << 28)) return NM_ERR_NOMEM;
  ncap = iv->cap ? iv->cap + iv->cap / 2 : 64;
  if (ncap < need) ncap = need;
  p = (int *)nm_realloc(a, iv->v, (size_t)iv->cap * sizeof(int), (size_t)ncap * sizeof(int));
  if (!p) return NM_ERR_NOMEM;
  iv->v = p;
  iv->cap = ncap;
  return NM_OK;
}

/* Appends four ints (one contour point or one edge record). */
static inline nm_status nm_ivec_push4(const nm_alloc *a, nm_ivec *iv, int x, int y, int z, int w) {
  int *d;
  if (iv->n + 4 > iv->cap && nm_ivec_reserve(a, iv, iv->n + 4) != NM_OK) return NM_ERR_NOMEM;
  d = &iv->v[iv->n];
  d[0] = x; d[1] = y; d[2] = z; d[3] = w;
  iv->n += 4;
  return NM_OK;
}

static inline void nm_ivec_free(const nm_alloc *a, nm_ivec *iv) {
  nm_free(a, iv->v, (size_t)iv->cap * sizeof(int));
  iv->v = NULL;
  iv->n = iv->cap = 0;
}

/* ---- exact integer X/Z predicates ---- */

static inline int nm_i2_area2(const int *a, const int *b, const int *c) {
  return (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
}
static inline int nm_i2_left(const int *a, const int *b, const int *c) { return nm_i2_area2(a, b, c) < 0; }
static inline int nm_i2_left_on(const int *a, const int *b, const int *c) { return nm_i2_area2(a, b, c) <= 0; }
static inline int nm_i2_collinear(const int *a, const int *b, const int *c) { return nm_i2_area2(a, b, c) == 0; }
static inline int nm_i2_equal(const int *a, const int *b) { return a[0] == b[0] && a[2] == b[2]; }

/* Proper intersection: the segments ab and cd cross at a point interior to
 * both (no three points collinear). */
static inline int nm_i2_cross_proper(const int *a, const int *b, const int *c, const int *d) {
  if (nm_i2_collinear(a, b, c) || nm_i2_collinear(a, b, d) || nm_i2_collinear(c, d, a) ||
      nm_i2_collinear(c, d, b))
    return 0;
  return (nm_i2_left(a, b, c) != nm_i2_left(a, b, d)) && (nm_i2_left(c, d, a) != nm_i2_left(c, d, b));
}

/* c lies on the closed segment ab (collinear and between the end points). */
static inline int nm_i2_between(const int *a, const int *b, const int *c) {
  if (!nm_i2_collinear(a, b, c)) return 0;
  if (a[0] != b[0]) return (a[0] <= c[0] && c[0] <= b[0]) || (a[0] >= c[0] && c[0] >= b[0]);
  return (a[2] <= c[2] && c[2] <= b[2]) || (a[2] >= c[2] && c[2] >= b[2]);
}

/* Segments ab and cd touch or cross. */
static inline int nm_i2_intersect(const int *a, const int *b, const int *c, const int *d) {
  return nm_i2_cross_proper(a, b, c, d) || nm_i2_between(a, b, c) || nm_i2_between(a, b, d) ||
         nm_i2_between(c, d, a) || nm_i2_between(c, d, b);
}

/* Diagonal a->p of a polygon leaves vertex a (neighbours an = next,
 * ap = previous) into the polygon's interior cone. */
static inline int nm_i2_in_cone(const int *ap, const int *a, const int *an, const int *p) {
  if (nm_i2_left_on(ap, a, an)) /* convex corner */
    return nm_i2_left(a, p, ap) && nm_i2_left(p, a, an);
  return !(nm_i2_left_on(a, p, an) && nm_i2_left_on(p, a, ap)); /* reflex corner */
}

#endif
