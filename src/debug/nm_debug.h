/* nm_debug.h -- what the debug outputs share (src/debug/): a growable text
 * buffer through the mesh's allocator, and the detail triangles of a
 * polygon as vertex pointers (no copies).
 *
 * The debug outputs only read the mesh: they draw it for people (OBJ text,
 * the scene behind the SVG and the viewer), they never change it. */
#ifndef NM_DEBUG_H
#define NM_DEBUG_H

#include "../mesh/nm_mesh.h"

/* A text being written: bytes from the allocator, grown by doubling. A
 * failed growth sets `failed` and every later write is dropped, so writers
 * check once at the end. */
typedef struct nm_text {
  const nm_alloc *alloc;
  char *buf;
  size_t len, cap;
  int failed;
} nm_text;

NM_INTERNAL void nm_text_init(nm_text *t, const nm_alloc *alloc);
NM_INTERNAL void nm_text_free(nm_text *t);
NM_INTERNAL void nm_text_put(nm_text *t, const char *s, size_t n);
NM_INTERNAL void nm_text_str(nm_text *t, const char *s);
/* Appends a float as the shortest of %.9g (exact for single precision) with
 * a '.' whatever the C locale says. */
NM_INTERNAL void nm_text_float(nm_text *t, float v);
NM_INTERNAL void nm_text_uint(nm_text *t, unsigned long v);
NM_INTERNAL void nm_text_int(nm_text *t, long v);

/* The three corners of detail triangle i of ground polygon p (tile t):
 * polygon vertices or the polygon's own detail vertices. A polygon stored
 * without detail triangles is read as the fan of its outline (as Detour's
 * tile creation makes it): nm_detail_tri_count says how many there are. */
NM_INTERNAL int nm_detail_tri_count(const nm_tile *t, const nm_poly *p);
NM_INTERNAL void nm_detail_tri(const nm_tile *t, const nm_poly *p, int i, const float *v[3]);

/* Whether polygon p of t (ground or off-mesh) has vertex bounds overlapping
 * the box bmin..bmax; always when bmin is NULL. */
NM_INTERNAL int nm_poly_in_box(const nm_tile *t, const nm_poly *p, const float *bmin, const float *bmax);

#endif
