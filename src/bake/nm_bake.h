/* nm_bake.h -- the build drivers' internals (src/bake/): the Recast
 * configuration derived from nm_build_config, the counting allocator, the
 * per-tile pipeline run by the tile loop (build.c, tiles.c, pool.c) and the
 * tile cache made from triangles (cachebuild.c). */
#ifndef NM_BAKE_H
#define NM_BAKE_H

#include "../input/nm_input.h"
#include "../poly/nm_poly.h"

#define NM_MAX_TILE_BITS 14     /* RecastDemo's cap on tile bits */

/* The configuration in cells, derived from nm_build_config exactly as
 * RecastDemo's samples derive rcConfig (single precision). */
typedef struct nm_rc_config {
  float cs, ch, walkable_slope;
  int walkable_height, walkable_climb, walkable_radius;  /* [Units: cells] */
  int max_edge_len;               /* [Units: cells] */
  float max_error;                /* [Units: wu] */
  int min_region_area, merge_region_area;  /* [Units: cells^2] */
  int nvp;
  float detail_sample_dist, detail_sample_max_error;   /* [Units: wu] */
  int partition;
  int tile_size, border_size;     /* 0, 0 for a solo build */
  int width, height;              /* voxel grid of one tile (border included) */
  float bmin[3], bmax[3];         /* build box */
  int grid_w, grid_h;             /* voxel grid of the whole box */
  int tiles_x, tiles_y;           /* tile grid (1 x 1 solo) */
  float tile_world;               /* tile side in wu (tile_size * cs) */
} nm_rc_config;

/* ---- the build context shared by every tile job (read-only while tiles
 * are built, except the allocator's counters) ---- */

typedef struct nm_counting_alloc {
  nm_alloc base;          /* the caller's allocator */
  size_t cur, peak;       /* bytes live / high-water mark */
  void *lock;             /* pthread mutex when several threads build with
                           * the caller's allocator */
  int system;             /* base is the system allocator (thread-safe) */
  int shared;             /* several threads count without a lock (atomics) */
} nm_counting_alloc;

typedef struct nm_build_ctx {
  const nm_build_config *cfg;
  nm_rc_config rc;
  const float *verts;
  int nverts;
  const int *tris;        /* triangles with area (degenerate ones dropped) */
  int ntris;
  nm_chunky chunky;       /* tiled builds only */
  uint8_t *tri_areas;     /* walkable flag per triangle, in chunky order when
                           * tiled, in tris order when solo */
  nm_alloc a;             /* the counting allocator below, as a hook */
  nm_counting_alloc counter;
  uint8_t *vol_areas;     /* [nvolumes] Recast area of each volume */
  int owned_tris;         /* tris is a copy of this many triangles (freed) */
  const int *cancel;      /* build jobs: non-zero (read atomically) stops the
                           * build between stages with ERR_CANCELLED */
} nm_build_ctx;

/* What building one tile produced. */
typedef struct nm_tile_result {
  nm_status st;
  nm_diag diag;
  void *blob;             /* tile blob (ctx allocator), NULL when empty */
  size_t size;
  int npolys;
  nm_build_stats stats;   /* stage times of this tile */
} nm_tile_result;

/* build.c: the steps of a build, shared with single-tile builds
 * (onetile.c). setup checks everything that needs no memory and derives
 * the Recast configuration and the grids; prepare drops zero-area
 * triangles and maps the volumes' areas; tiled_tris makes the chunky
 * partition and the walkable flags of a tiled build; cleanup frees what
 * they made (and names ERR_NOMEM in diag). */
NM_INTERNAL nm_status nm_build_setup(nm_build_ctx *ctx, const float *verts, int nverts, const int *tris,
                                     int ntris, const nm_build_config *cfg, const nm_alloc *alloc,
                                     nm_diag *diag);
NM_INTERNAL nm_status nm_build_prepare(nm_build_ctx *ctx, const int *tris, int ntris, nm_diag *diag);
NM_INTERNAL nm_status nm_build_tiled_tris(nm_build_ctx *ctx);
NM_INTERNAL void nm_build_cleanup(nm_build_ctx *ctx, nm_status st, nm_diag *diag);
/* nm_navmesh_build that also stops (ERR_CANCELLED) once *cancel, read
 * atomically between stages of every tile, is non-zero (build jobs). */
NM_INTERNAL nm_status nm_build_run(const float *verts, int nverts, const int *tris, int ntris,
                                   const nm_build_config *cfg, const nm_alloc *alloc, const int *cancel,
                                   nm_diag *diag, nm_navmesh **out, nm_build_stats *stats);
/* Navmesh parameters of a tiled build (RecastDemo's tile and polygon bits). */
NM_INTERNAL void nm_build_grid_params(const nm_rc_config *rc, nm_navmesh_params *p);
/* For the tile cache (src/tilecache): the context of a tiled build as
 * nm_navmesh_build makes it (checks, configuration, triangles with area,
 * chunky partition, walkable flags) in ctx, which must stay in place;
 * nm_build_ctx_free releases it. ERR_PARAM, ERR_EMPTY, ERR_NOMEM. */
NM_INTERNAL nm_status nm_build_ctx_init(nm_build_ctx *ctx, const float *verts, int nverts, const int *tris,
                                        int ntris, const nm_build_config *cfg, const nm_alloc *alloc,
                                        nm_diag *diag);
NM_INTERNAL void nm_build_ctx_free(nm_build_ctx *ctx);
/* tiles.c, for the tile cache: tile (tx, ty) up to its eroded compact
 * heightfield with volumes marked (*chf: the caller's, nm_chf_free). */
NM_INTERNAL nm_status nm_build_tile_chf(const nm_build_ctx *ctx, int tx, int ty, nm_chf *chf);

/* tiles.c: runs the whole pipeline for tile (tx, ty) (solo: 0, 0). */
NM_INTERNAL void nm_build_tile(const nm_build_ctx *ctx, int tx, int ty, nm_tile_result *res);
/* Milliseconds from a monotonic clock (0 where none exists). */
NM_INTERNAL double nm_clock_ms(void);

/* pool.c: builds every tile of the grid on `threads` threads and adds the
 * non-empty ones to mesh in grid order, reporting progress. */
NM_INTERNAL nm_status nm_build_tiles(nm_build_ctx *ctx, nm_navmesh *mesh, nm_diag *diag,
                                     nm_build_stats *stats);

/* Adds a tile result's counters to a stats record. */
NM_INTERNAL void nm_stats_add(nm_build_stats *to, const nm_build_stats *from);

/* pool.c: the counting allocator hook (ud = nm_counting_alloc); it also
 * serialises calls to the caller's allocator when c->lock is set, and
 * counts with atomics when c->shared is set. */
NM_INTERNAL void *nm_counting_fn(void *ud, void *ptr, size_t osize, size_t nsize);

#endif
