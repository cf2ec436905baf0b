/* nm_poly.h -- the polygon stages of a navmesh build and the data they pass.
 *
 * The back half of the Recast pipeline, after the regions of src/voxel/:
 *   nm_chf --contour.c---> nm_contour_set (simplified region outlines)
 *          --polymesh.c--> nm_polymesh (convex polygons, <= nvp verts)
 *          --detail.c----> nm_polymesh_detail (height triangles)
 * then mesh/tilebuild.c makes a Detour tile of them. Coordinates are cells,
 * as in nm_voxel.h. */
#ifndef NM_POLY_H
#define NM_POLY_H

#include "../voxel/nm_voxel.h"

#define NM_BORDER_VERTEX 0x10000  /* contour vertex flag: on the tile border */
#define NM_AREA_BORDER 0x20000    /* contour vertex flag: area changes here */
#define NM_CONTOUR_REG_MASK 0xffff
#define NM_MESH_NULL_IDX 0xffff

/* ---- contours ---- */

typedef struct nm_contour {
  int *verts;               /* simplified: (x, y, z, flags) * nverts */
  int nverts;
  int *rverts;              /* raw: (x, y, z, flags) * nrverts */
  int nrverts;
  uint16_t reg;
  uint8_t area;
} nm_contour;

typedef struct nm_contour_set {
  nm_alloc a;
  nm_contour *conts;
  int nconts;
  float bmin[3], bmax[3];   /* without the border */
  float cs, ch;
  int width, height;        /* without the border */
  int border_size;
  float max_error;
} nm_contour_set;

/* ---- polygon mesh ---- */

typedef struct nm_polymesh {
  nm_alloc a;
  uint16_t *verts;          /* (x, y, z) * nverts [Units: cells] */
  uint16_t *polys;          /* 2 * nvp per polygon: vertex indices, then neighbour slots
                             * (NM_MESH_NULL_IDX, 0x8000 | portal dir 0..3 / 0xf, or index) */
  uint16_t *regs;           /* [npolys] */
  uint16_t *flags;          /* [npolys] */
  uint8_t *areas;           /* [npolys] */
  int nverts, npolys, maxpolys, nvp;
  float bmin[3], bmax[3];
  float cs, ch;
  int border_size;
  float max_edge_error;
} nm_polymesh;

/* ---- detail mesh ---- */

typedef struct nm_polymesh_detail {
  nm_alloc a;
  uint32_t *meshes;         /* (vert_base, vert_count, tri_base, tri_count) per polygon;
                             * each polygon's vertices come first in its range */
  float *verts;             /* (x, y, z) * nverts [Units: wu] */
  uint8_t *tris;            /* (a, b, c, edge flags) * ntris, indices local to the polygon */
  int nmeshes, nverts, ntris;
} nm_polymesh_detail;

/* contour.c */
NM_INTERNAL nm_status nm_contours_build(const nm_chf *chf, float max_error, int max_edge_len,
                                        const nm_alloc *a, nm_contour_set *cset);
NM_INTERNAL void nm_contours_free(nm_contour_set *cset);
/* polymesh.c */
NM_INTERNAL nm_status nm_polymesh_build(const nm_contour_set *cset, int nvp, const nm_alloc *a,
                                        nm_polymesh *mesh);
NM_INTERNAL void nm_polymesh_free(nm_polymesh *mesh);
/* Greedy merging of the polygons of one contour or hole into convex ones:
 * each round joins the pair (j < k) with the longest shared edge (smallest
 * j, then k, on ties) and moves the last polygon into slot k. polys has
 * *npolys records of nvp slots plus one scratch record; regs / areas (may
 * be NULL) follow the polygons. how picks the method (AUTO: by size); all
 * give the same result. NM_ERR_NOMEM leaves the polygons half merged. */
#define NM_PM_MERGE_AUTO 0
#define NM_PM_MERGE_SCAN 1      /* every pair each round: O(n^3) */
#define NM_PM_MERGE_INCIDENCE 2 /* pairs sharing an edge, in a heap */
NM_INTERNAL nm_status nm_polymesh_merge(uint16_t *polys, int *npolys, uint16_t *regs, uint16_t *areas,
                                        const uint16_t *verts, int nvp, int how, const nm_alloc *a);
/* detail.c */
NM_INTERNAL nm_status nm_detail_build(const nm_polymesh *mesh, const nm_chf *chf, float sample_dist,
                                      float sample_max_error, const nm_alloc *a,
                                      nm_polymesh_detail *dmesh);
NM_INTERNAL void nm_detail_free(nm_polymesh_detail *dmesh);

#endif
