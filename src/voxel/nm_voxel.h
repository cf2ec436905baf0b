/* nm_voxel.h -- the voxel stages of a navmesh build and the data they pass.
 *
 * The front half of the Recast pipeline (one stage per file, seed 003 walks
 * through each):
 *   triangles --rasterize.c---> nm_heightfield (solid spans per column)
 *             --spanfilter.c--> walkable spans only
 *             --compact.c-----> nm_chf (open spans with neighbour links)
 *             --area.c--------> eroded by the agent radius, volumes marked
 *             --distance.c----> distance to the nearest boundary per span
 *             --region*.c-----> region ids (watershed, monotone, layers)
 *             --hflayers.c----> 2-D heightfield layers (the tile cache's input)
 * src/poly/ takes it from there (contours, polygons, detail). Coordinates
 * inside the pipeline are integer cells: x and z in cell_size steps from
 * bmin, y in cell_height steps. Every stage allocates through the nm_alloc
 * stored in its output and returns an nm_status; none prints. */
#ifndef NM_VOXEL_H
#define NM_VOXEL_H

#include "../core/nm_core.h"
#include "../core/nm_math.h"

/* Area ids inside the pipeline: 0 = not walkable, 63 = walkable (becomes
 * Detour area 0), 1..62 = user areas kept as they are. */
#define NM_NULL_AREA 0
#define NM_WALKABLE_AREA 63
#define NM_SPAN_HEIGHT_BITS 13
#define NM_SPAN_MAX_HEIGHT ((1 << NM_SPAN_HEIGHT_BITS) - 1)
#define NM_NOT_CONNECTED 0x3f
#define NM_BORDER_REG 0x8000      /* region id flag: span in the tile border */

/* ---- heightfield: solid spans ---- */

typedef struct nm_span {
  uint32_t smin : NM_SPAN_HEIGHT_BITS;
  uint32_t smax : NM_SPAN_HEIGHT_BITS;
  uint32_t area : 6;
  struct nm_span *next;
} nm_span;

#define NM_SPANS_PER_POOL 2048
typedef struct nm_span_pool {
  struct nm_span_pool *next;
  nm_span items[NM_SPANS_PER_POOL];
} nm_span_pool;

typedef struct nm_heightfield {
  nm_alloc a;
  int width, height;        /* columns along x and z [Units: cells] */
  float bmin[3], bmax[3];
  float cs, ch;
  nm_span **spans;          /* [width * height] column lists, lowest span first */
  nm_span_pool *pools;      /* newest first; spans are taken from it in order */
  int pool_used;            /* spans taken from the newest pool */
  nm_span *freelist;        /* spans given back by merges */
} nm_heightfield;

/* ---- compact heightfield: open spans ---- */

typedef struct nm_cspan {
  uint16_t y;               /* floor of the open space [Units: cells] */
  uint16_t reg;             /* region id (0 none) */
  uint32_t con : 24;        /* 4 x 6 bits: neighbour span index within its column, or NM_NOT_CONNECTED */
  uint32_t h : 8;           /* height of the open space */
} nm_cspan;

typedef struct nm_ccell {
  uint32_t index : 24;      /* first span of the column */
  uint32_t count : 8;       /* spans in the column */
} nm_ccell;

typedef struct nm_chf {
  nm_alloc a;
  int width, height, span_count;
  int walkable_height, walkable_climb; /* [Units: cells] */
  int border_size;
  uint16_t max_distance, max_regions;
  float bmin[3], bmax[3];
  float cs, ch;
  nm_ccell *cells;          /* [width * height] */
  nm_cspan *spans;          /* [span_count] */
  uint16_t *dist;           /* [span_count] distance field (NULL until built) */
  uint8_t *areas;           /* [span_count] */
  int32_t *nei;             /* [4 * span_count] the links of con as span indices (-1: none),
                             * made by nm_chf_build for the front half's sweeps; NULL in
                             * fields built by hand (the back half reads con only) */
} nm_chf;

/* Directions: 0 = -x, 1 = +z, 2 = +x, 3 = -z. */
static inline int nm_dir_dx(int dir) { static const int o[4] = {-1, 0, 1, 0}; return o[dir & 3]; }
static inline int nm_dir_dy(int dir) { static const int o[4] = {0, 1, 0, -1}; return o[dir & 3]; }
static inline int nm_get_con(const nm_cspan *s, int dir) { return (int)((s->con >> (dir * 6)) & 0x3f); }
static inline void nm_set_con(nm_cspan *s, int dir, int i) {
  const uint32_t shift = (uint32_t)dir * 6;
  s->con = (s->con & ~(0x3fu << shift)) | (((uint32_t)i & 0x3f) << shift);
}

/* Span index across side dir of span i in column c (x + z * width), or -1
 * when that side is not connected: one load from chf->nei when the field has
 * the table (nm_chf_build makes it), else from the link bits in con. */
static inline int nm_chf_link(const nm_chf *chf, int c, int i, int dir) {
  int k;
  if (chf->nei) return (int)chf->nei[i * 4 + dir];
  k = nm_get_con(&chf->spans[i], dir);
  if (k == NM_NOT_CONNECTED) return -1;
  return (int)chf->cells[c + ((dir & 1) ? chf->width * (2 - dir) : dir - 1)].index + k;
}

/* ---- stages (each file documents its algorithm) ---- */

/* rasterize.c */
NM_INTERNAL nm_status nm_hf_init(nm_heightfield *hf, const nm_alloc *a, int width, int height,
                                 const float *bmin, const float *bmax, float cs, float ch);
NM_INTERNAL void nm_hf_free(nm_heightfield *hf);
NM_INTERNAL void nm_mark_walkable_triangles(float max_slope_deg, const float *verts, const int *tris,
                                            int ntris, uint8_t *areas);
/* How many triangles are walkable as wound (*up), and how many would be if
 * wound the other way (*down: they face down). */
NM_INTERNAL void nm_count_walkable_triangles(float max_slope_deg, const float *verts, const int *tris,
                                             int ntris, int *up, int *down);
NM_INTERNAL nm_status nm_hf_rasterize(nm_heightfield *hf, const float *verts, const int *tris,
                                      const uint8_t *areas, int ntris, int merge_climb);
/* spanfilter.c: nm_hf_filter runs the chosen filters (NM_FILTER_* bits) in one
 * pass, with the same result as running them one by one in bit order. */
#define NM_FILTER_LOW_HANGING 1
#define NM_FILTER_LEDGES 2
#define NM_FILTER_LOW_HEIGHT 4
NM_INTERNAL void nm_hf_filter(nm_heightfield *hf, int which, int walkable_height, int walkable_climb);
NM_INTERNAL void nm_hf_filter_low_hanging(nm_heightfield *hf, int walkable_climb);
NM_INTERNAL void nm_hf_filter_ledges(nm_heightfield *hf, int walkable_height, int walkable_climb);
NM_INTERNAL void nm_hf_filter_low_height(nm_heightfield *hf, int walkable_height);
/* compact.c */
NM_INTERNAL nm_status nm_chf_build(const nm_heightfield *hf, int walkable_height, int walkable_climb,
                                   const nm_alloc *a, nm_chf *chf);
NM_INTERNAL void nm_chf_free(nm_chf *chf);
/* area.c */
NM_INTERNAL nm_status nm_chf_erode(nm_chf *chf, int radius);
NM_INTERNAL void nm_chf_mark_convex(nm_chf *chf, const float *verts, int nverts, float hmin, float hmax,
                                    uint8_t area);
NM_INTERNAL void nm_chf_mark_box(nm_chf *chf, const float *bmin, const float *bmax, uint8_t area);
NM_INTERNAL void nm_chf_mark_cylinder(nm_chf *chf, const float *pos, float r, float h, uint8_t area);
/* distance.c */
NM_INTERNAL nm_status nm_chf_build_distance(nm_chf *chf);
/* region.c, region_monotone.c, region_layers.c */
NM_INTERNAL nm_status nm_chf_regions_watershed(nm_chf *chf, int border, int min_area, int merge_area);
NM_INTERNAL nm_status nm_chf_regions_monotone(nm_chf *chf, int border, int min_area, int merge_area);
NM_INTERNAL nm_status nm_chf_regions_layers(nm_chf *chf, int border, int min_area);
/* hflayers.c: the layers of one tile's compact heightfield (border cells
 * around it), Recast's rcBuildHeightfieldLayers. */
typedef struct nm_hf_layer {
  uint8_t *heights, *areas, *cons; /* [width * height] each (one allocation) */
  int width, height, minx, maxx, miny, maxy, hmin, hmax;
  float bmin[3], bmax[3];
} nm_hf_layer;
NM_INTERNAL nm_status nm_hf_layers_build(const nm_chf *chf, int border, int walkable_height,
                                         const nm_alloc *a, nm_hf_layer **out, int *nlayers);
NM_INTERNAL void nm_hf_layers_free(const nm_alloc *a, nm_hf_layer *layers, int n);


#endif
