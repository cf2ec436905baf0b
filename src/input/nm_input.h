/* nm_input.h -- input geometry before the build: the Wavefront OBJ reader
 * (objread.c, declared in navmesh.h) and the chunky triangle partition that
 * picks the triangles of one tile (chunky.c). */
#ifndef NM_INPUT_H
#define NM_INPUT_H

#include "../core/nm_core.h"

#define NM_CHUNK_TRIS 256       /* triangles per chunk, as RecastDemo */

/* ---- chunky triangle partition (chunky.c) ---- */

/* A node of the 2-D (X/Z) bounding-volume tree over triangles: a leaf holds
 * triangles [i, i+n) of nm_chunky.tris; an inner node has i = -(escape). */
typedef struct nm_chunk_node {
  float bmin[2], bmax[2];
  int i, n;
} nm_chunk_node;

typedef struct nm_chunky {
  nm_alloc a;
  nm_chunk_node *nodes;
  int nnodes, cap_nodes;
  int *tris;              /* [3 * ntris] triangles in leaf order */
  int ntris;
  int max_leaf_tris;      /* most triangles in one leaf */
} nm_chunky;

NM_INTERNAL nm_status nm_chunky_build(const float *verts, const int *tris, int ntris, int per_chunk,
                                      const nm_alloc *a, nm_chunky *cm);
NM_INTERNAL void nm_chunky_free(nm_chunky *cm);
/* Leaves whose box overlaps [bmin, bmax] (x, z), in tree order: ids[0..cap)
 * are filled; returns the total count. */
NM_INTERNAL int nm_chunky_overlapping(const nm_chunky *cm, const float bmin[2], const float bmax[2],
                                      int *ids, int cap);

#endif
