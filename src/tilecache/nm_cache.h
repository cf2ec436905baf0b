/* nm_cache.h -- the tile cache: compressed heightfield layers, obstacles,
 * and the per-layer rebuild of navmesh tiles (Detour's DetourTileCache).
 *
 * Stages of a layer rebuild (one per file):
 *   compressed layer --fastlz.c----------> grids (heights, areas, cons) + regs
 *                    --stamp.c-----------> obstacle cells get area 0 (or theirs)
 *                    --layer_region.c----> region ids on the 2-D layer grid
 *                    --layer_contour.c---> simplified region outlines (cells)
 *                    --layer_polymesh.c--> convex polygons (<= 6 verts) + adjacency
 *                    --rebuild.c---------> tile blob (nm_tile_create) -> navmesh
 * The container (TSET files) is tset.c; the object and its obstacle
 * requests are cache.c and obstacle.c. Layer grids are 8-bit: x and z in
 * cells from the layer's bmin, y in cell heights above its hmin. */
#ifndef NM_CACHE_H
#define NM_CACHE_H

#include "../core/nm_core.h"
#include "../core/nm_math.h"
#include "../mesh/nm_mesh.h"

#define NM_LAYER_MAGIC (('D' << 24) | ('T' << 16) | ('L' << 8) | 'R')
#define NM_LAYER_VERSION 1
#define NM_LAYER_HEADER 56
#define NM_LAYER_NULL_AREA 0
#define NM_LAYER_WALKABLE 63
#define NM_LAYER_NULL_IDX 0xffff
#define NM_LAYER_NVP 6           /* vertices per polygon of a layer mesh */
#define NM_LAYER_MAX_TLAYER 255

/* ---- FastLZ (fastlz.c) ---- */

/* Decodes a level-1 stream into out [cap]; ERR_DATA for anything that does
 * not decode within both buffers. *outlen gets the decoded size. */
NM_INTERNAL nm_status nm_fastlz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                                           size_t *outlen);
/* Encodes n bytes as FastLZ level 1 (the encoder RecastDemo uses); out
 * must hold nm_fastlz_bound(n) bytes, htab nm_fastlz_htab_bytes(). */
NM_INTERNAL size_t nm_fastlz_compress(const uint8_t *in, size_t n, uint8_t *out, uint32_t *htab);
NM_INTERNAL size_t nm_fastlz_bound(size_t n);
NM_INTERNAL size_t nm_fastlz_htab_bytes(void);

/* ---- one layer ---- */

/* The 56-byte header of a stored layer, as on disk (little-endian host). */
typedef struct nm_layer_header {
  int32_t magic, version, tx, ty, tlayer;
  float bmin[3], bmax[3];
  uint16_t hmin, hmax;
  uint8_t width, height, minx, maxx, miny, maxy;
  uint8_t pad[2];
} nm_layer_header;

/* A decompressed layer: the three stored grids and the region scratch grid
 * (w * h bytes each, cell (x, z) at x + z * w). */
typedef struct nm_lgrid {
  nm_layer_header h;
  int w, hgt;
  int x0, x1, z0, z1;        /* the cells of the layer (header minx..maxy):
                              * the stages look no further */
  uint8_t *heights, *areas, *cons, *regs;
  int nregs;
  uint8_t map[256];          /* region of a regs value (regs holds the
                              * monotone ids; 0xff stays 0xff) */
  uint16_t first[256];       /* first cell of each region in row order */
} nm_lgrid;

/* Region of cell i (0xff none). */
static inline uint8_t nm_lreg(const nm_lgrid *g, int i) { return g->map[g->regs[i]]; }

/* A contour of one region: nverts vertices of 4 bytes (x, y, z, flags:
 * portal direction in the low nibble, 0xf none; 0x80 "may be removed"). */
typedef struct nm_lcontour {
  int nverts;
  uint8_t *verts;
  uint8_t reg, area;
} nm_lcontour;

typedef struct nm_lcontour_set {
  int nconts;
  nm_lcontour *conts;
} nm_lcontour_set;

/* A layer polygon mesh: vertices in cells (x, y, z), polygons of 2 * 6
 * slots (vertex indices, then neighbours: polygon index, 0x8000 | portal
 * direction, or 0xffff), areas per polygon. */
typedef struct nm_lmesh {
  int nverts, npolys, max_verts, max_polys;
  uint16_t *verts;
  uint16_t *polys;
  uint8_t *areas;
} nm_lmesh;

/* Growable scratch memory reused by every rebuild of one cache. */
typedef struct nm_scratch {
  uint8_t *p;
  size_t size, used;
} nm_scratch;

/* Takes n bytes (8-aligned) from the scratch; NULL when it is too small
 * (the caller sizes it first with nm_scratch_reserve, allowing 8 bytes of
 * alignment per take). */
static inline void *nm_scratch_take(nm_scratch *s, size_t n) {
  void *r;
  n = (n + 7) & ~(size_t)7;
  if (n > s->size - s->used) return NULL;
  r = s->p + s->used;
  s->used += n;
  return r;
}
NM_INTERNAL nm_status nm_scratch_reserve(nm_scratch *s, const nm_alloc *a, size_t n);
NM_INTERNAL void nm_scratch_free(nm_scratch *s, const nm_alloc *a);

/* layer.c: header checks, decompression into a grid. */
NM_INTERNAL nm_status nm_layer_check_header(const nm_layer_header *h, int w, int hgt, nm_diag *diag);
NM_INTERNAL nm_status nm_layer_decompress(const uint8_t *data, size_t size, nm_lgrid *g, nm_diag *diag);
NM_INTERNAL void nm_layer_read_header(const uint8_t *data, nm_layer_header *h);

/* layer_region.c: region ids (0..nregs-1, 0xff none) on the grid. walk_climb in
 * cell heights. work: nm_lregion_scratch(w) bytes. */
NM_INTERNAL size_t nm_lregion_scratch(int w);
NM_INTERNAL nm_status nm_lregion_build(nm_lgrid *g, int walk_climb, void *work);

/* layer_contour.c: simplified outlines of every region; verts point into the
 * scratch (nm_lcontour_scratch bytes for a w x h grid). */
NM_INTERNAL size_t nm_lcontour_scratch(int w, int hgt);
NM_INTERNAL nm_status nm_lcontour_build(nm_lgrid *g, int walk_climb, float max_error, nm_scratch *s,
                                        nm_lcontour_set *cset);

/* layer_polymesh.c: triangulates, merges to convex polygons of <= 6 vertices,
 * removes marked vertices, links neighbours and portals. Arrays are taken
 * from s (sized here); ps holds the merge pair list (grown as needed). */
NM_INTERNAL nm_status nm_lmesh_build(const nm_lcontour_set *cset, nm_scratch *s, nm_scratch *ps,
                                     const nm_alloc *a, nm_lmesh *mesh);

/* ---- the cache object ---- */

/* A stored layer (slot). */
typedef struct nm_clayer {
  uint32_t salt;
  uint8_t *data;             /* header + compressed body; NULL: slot empty */
  size_t size;
  nm_layer_header h;
  float tbmin[3], tbmax[3];  /* tight bounds: the box of its cells */
  struct nm_clayer *next;    /* position-hash chain (used) / free stack */
} nm_clayer;

enum { NM_OB_EMPTY = 0, NM_OB_PROCESSING, NM_OB_PROCESSED, NM_OB_REMOVING };
enum { NM_REQ_NONE = 0, NM_REQ_ADD, NM_REQ_REMOVE, NM_REQ_MOVE };

/* An obstacle slot. */
typedef struct nm_cobstacle {
  nm_obstacle s;             /* its shape (s.verts points to pverts) */
  float *pverts;             /* prism outline, owned [3 * 64] */
  float rot_aux[2];          /* oriented box: Detour's half-angle products */
  float bmin[3], bmax[3];    /* bounds, padding included */
  uint32_t *touched;         /* layers it was stamped into (refs) */
  uint32_t *pending;         /* layers still to rebuild for its request */
  int ntouched, npending, cap; /* cap: entries of touched; pending has 2 * cap */
  uint16_t salt;
  uint8_t state, req;
  int next;                  /* free list (-1 ends) */
} nm_cobstacle;

struct nm_cache {
  nm_alloc alloc;
  nm_cache_params p;
  nm_cache_rules rules;
  nm_navmesh *mesh;
  int walk_climb;            /* walkable_climb in cell heights */
  uint32_t tile_bits, salt_bits, lut_mask;
  nm_clayer *layers;         /* [max_tiles] */
  nm_clayer **lut;           /* [lut_mask + 1] chains by grid cell, newest first */
  nm_clayer *free_layers;    /* removed slots, most recent first */
  int hwm, nlayers, top;
  int gx0, gy0, gx1, gy1;    /* grid cells holding layers (empty: x0 > x1) */
  nm_cobstacle *obs;         /* [max_obstacles] */
  int free_ob, ob_top, nobs; /* free list head, 1 + highest slot used, in use */
  uint16_t *reqs;            /* obstacle slots with a request, in order */
  int nreqs;
  uint32_t *upd;             /* layer refs waiting for a rebuild, in order */
  int nupd, cap_upd;
  nm_scratch sa, sb, sp;     /* grids, regions, contours / the mesh / merge pairs */
  size_t compressed;         /* bytes of stored layers */
  uint32_t last_ref;         /* layer rebuilt last by nm_cache_update (tests) */
  int versions;              /* mesh is published as versions (nm_cache_use_versions) */
};

/* cache.c */
/* Around every change of the navmesh: with versions, begin opens a draft of
 * the latest version as c->mesh (ERR_NOMEM: nothing opened) and end
 * publishes it if its tiles changed, else drops it. No-ops otherwise. */
NM_INTERNAL nm_status nm_cache_write_begin(nm_cache *c);
NM_INTERNAL void nm_cache_write_end(nm_cache *c);
NM_INTERNAL nm_clayer *nm_cache_layer_by_ref(const nm_cache *c, uint32_t ref);
NM_INTERNAL uint32_t nm_cache_layer_ref(const nm_cache *c, const nm_clayer *l);
/* The layers at grid cell (tx, ty), newest first (at most cap). */
NM_INTERNAL int nm_cache_layers_at(const nm_cache *c, int tx, int ty, nm_clayer **out, int cap);
/* Layers whose tight bounds overlap the box, Detour's order (cells z then
 * x, a cell's layers newest first); calls fn for each. */
NM_INTERNAL void nm_cache_query_layers(const nm_cache *c, const float *bmin, const float *bmax,
                                       void (*fn)(void *ud, nm_clayer *l), void *ud);
NM_INTERNAL nm_status nm_cache_take_layer(nm_cache *c, uint8_t *data, size_t size, nm_diag *diag,
                                          nm_clayer **out);

/* stamp.c: marks the cells an obstacle covers in a decompressed layer. */
NM_INTERNAL void nm_stamp_obstacle(nm_lgrid *g, const nm_cache *c, const nm_cobstacle *ob);
/* Bounds of an obstacle's shape (padding included), Detour's formulas. */
NM_INTERNAL void nm_obstacle_bounds(const nm_obstacle *s, float pad, float *bmin, float *bmax);

/* rebuild.c: rebuilds the navmesh tile of one layer (atomic for the mesh). */
NM_INTERNAL nm_status nm_cache_rebuild(nm_cache *c, nm_clayer *l, nm_diag *diag);
/* Scratch sizes for a cache's grid. */
NM_INTERNAL nm_status nm_cache_scratch_init(nm_cache *c);

#endif
