/*
 * navmesh.h -- navigation meshes: build them, load them, query them.
 *
 * WHAT IT DOES
 *   A C99 library in the tradition of Recast & Detour. It builds a navigation
 *   mesh (convex polygons over the walkable surface) from triangle geometry,
 *   loads and saves navmesh tiles (RecastDemo "MSET" files, single Detour tile
 *   blobs, and its own format), and answers path queries: nearest polygon,
 *   A* over polygons, string-pulled straight paths with optional edge inset.
 *
 * EXAMPLE
 *   nm_navmesh *mesh; nm_query *q; nm_filter f;
 *   if (nm_navmesh_load(bytes, len, NULL, NULL, &mesh) < 0) return;
 *   nm_query_new(mesh, 2048, NULL, &q);       // the query retains the mesh
 *   nm_navmesh_release(mesh);                  // ...so we may drop ours
 *   nm_filter_init(&f);
 *   float ext[3] = {2, 4, 2}, s[3], e[3];
 *   nm_polyref sref, eref, path[256]; int npath;
 *   nm_query_find_nearest(q, start, ext, &f, &sref, s, NULL);
 *   nm_query_find_nearest(q, goal, ext, &f, &eref, e, NULL);
 *   nm_status st = nm_query_find_path(q, sref, eref, s, e, &f, path, 256, &npath);
 *   float pts[3*64]; int n;
 *   nm_query_straight_path(q, s, e, path, npath, NULL, pts, NULL, NULL, 64, &n);
 *   nm_query_free(q);
 *
 * COORDINATES
 *   Y is up, the ground is the X/Z plane, lengths are world units (wu).
 *   Points are float[3] as (x, y, z).
 *
 * OWNERSHIP AND THREADS
 *   Everything returned through `**out` belongs to the caller and is freed
 *   with the matching _free/_release. Inputs are borrowed (copied if kept).
 *   Output arrays are caller-sized (cap) and come back with NM_TRUNCATED when
 *   too small. Each object stores the allocator it was made with.
 *   A nm_navmesh is reference counted (atomically) and may be read by many
 *   threads at once; it must not be changed (add/remove tiles, set flags)
 *   while other threads read it. A nm_query is single-threaded scratch space
 *   (node pool, open list): use one per thread, service or request handler.
 *
 * STATUS
 *   Every fallible function returns nm_status: 0 is NM_OK, negative values
 *   are failures, positive values are success with detail bits (NM_PARTIAL,
 *   NM_TRUNCATED, NM_OUT_OF_NODES, NM_FALLBACK), so `if (st < 0)` tests for failure.
 *   The core never prints, never aborts and has no global mutable state.
 */
#ifndef NAVMESH_H
#define NAVMESH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define NM_API __declspec(dllexport)
#elif defined(__GNUC__)
#  define NM_API __attribute__((visibility("default")))
#else
#  define NM_API
#endif

#define NM_VERSION_STRING "0.1.0"

/* ---- status ------------------------------------------------------------ */

#define NM_STATUS_LIST(X)                                              \
  X(OK,             0, "ok")                                           \
  X(PARTIAL,        1, "partial result")                               \
  X(TRUNCATED,      2, "output buffer too small")                      \
  X(OUT_OF_NODES,   4, "search ran out of nodes")                      \
  X(UNFINISHED,     8, "search stopped at its iteration limit")        \
  X(FALLBACK,      16, "optimal search impossible, used A* instead")   \
  X(ERR_NOMEM,     -1, "out of memory")                                \
  X(ERR_PARAM,     -2, "invalid parameter")                            \
  X(ERR_DATA,      -3, "corrupt or incompatible navmesh data")         \
  X(ERR_EMPTY,     -4, "input produced no walkable polygons")          \
  X(ERR_NO_POLY,   -5, "no polygon near position")                     \
  X(ERR_NO_PATH,   -6, "no path between positions")                    \
  X(ERR_IO,        -7, "file could not be read or written")            \
  X(ERR_FULL,      -8, "no free tile slot or location already taken")  \
  X(ERR_READONLY,  -9, "navmesh is read-only")                        \
  X(ERR_STATE,    -10, "no sliced path search in progress")

typedef int nm_status;

enum {
#define NM_STATUS_ENUM(name, value, text) NM_##name = value,
  NM_STATUS_LIST(NM_STATUS_ENUM)
#undef NM_STATUS_ENUM
  NM_STATUS_END_ = 0
};

/* Name of a status ("ERR_NO_POLY"); "UNKNOWN" for values not in the list.
 * Success values with several detail bits return the name of the lowest. */
NM_API const char *nm_status_name(nm_status st);
/* Human text of a status ("no polygon near position"). */
NM_API const char *nm_strerror(nm_status st);

/* Where a ERR_PARAM / ERR_DATA came from: the offending field and a message.
 * Optional everywhere (pass NULL). */
typedef struct nm_diag {
  const char *field;  /* static string naming the field, or NULL */
  char msg[96];       /* human message, "" when none */
} nm_diag;

/* ---- memory -------------------------------------------------------------- */

/* Allocator hook with lua_Alloc's contract: nsize == 0 frees (returns NULL),
 * otherwise (re)allocates from osize to nsize bytes. NULL hook = malloc. */
typedef struct nm_alloc {
  void *(*fn)(void *ud, void *ptr, size_t osize, size_t nsize);
  void *ud;
} nm_alloc;

/* ---- common types ---------------------------------------------------------- */

typedef uint32_t nm_polyref;  /* 0 means "no polygon" */

#define NM_MAX_VERTS_PER_POLY 6
#define NM_MAX_AREAS 64

/* Straight path point flags (the same values as Detour's). */
enum {
  NM_STRAIGHT_START = 1,
  NM_STRAIGHT_END = 2,
  NM_STRAIGHT_OFFMESH = 4
};

#define NM_MAX_AREA_CHANGES 32
#define NM_AREA_ANY 255  /* wildcard area in nm_filter_set_area_change */

/* A fixed cost for stepping from a polygon of area `from` into one of area
 * `to` (Unreal's area-change cost); either may be NM_AREA_ANY. */
typedef struct nm_area_change {
  uint8_t from, to;  /* [Limit: < 64 or NM_AREA_ANY] */
  float cost;        /* [Limit: >= 0, finite] */
} nm_area_change;

/* Query filter: which polygons may be entered and what walking costs.
 * A polygon passes when (flags & include) != 0 && (flags & exclude) == 0.
 * Cost of a step = distance * area_cost[area of the polygon walked on]
 * (+ the area-change cost when the step enters a polygon of another area).
 * Set area changes with nm_filter_set_area_change, not by hand. */
typedef struct nm_filter {
  float area_cost[NM_MAX_AREAS]; /* [Limit: >= 0, finite] */
  uint16_t include_flags;
  uint16_t exclude_flags;
  float heuristic_scale;         /* A* heuristic = distance * this [Limit: >= 0] (0.999) */
  int area_change_count;         /* entries used in area_change */
  nm_area_change area_change[NM_MAX_AREA_CHANGES];
} nm_filter;

/* Default filter: include 0xffff, exclude 0, every area cost 1, heuristic
 * scale 0.999 (Detour's), no area-change costs. */
NM_API void nm_filter_init(nm_filter *f);

/* Sets the cost of stepping from area `from` into a different area `to`
 * [Limit: 0..63 or NM_AREA_ANY] [Units: cost, added once per change].
 * Lookup prefers (from,to), then (from,ANY), then (ANY,to), then (ANY,ANY).
 * ERR_PARAM for bad areas/cost or when NM_MAX_AREA_CHANGES pairs are used. */
NM_API nm_status nm_filter_set_area_change(nm_filter *f, int from, int to, float cost);
/* Cost added for a step from area `from` into area `to` (0 when equal). */
NM_API float nm_filter_area_change(const nm_filter *f, int from, int to);

/* ---- the navmesh ----------------------------------------------------------- */

typedef struct nm_navmesh nm_navmesh;

/* Tile grid and reference layout of a navmesh (Detour's dtNavMeshParams). */
typedef struct nm_navmesh_params {
  float orig[3];       /* world position of the corner of tile (0,0) [(x,y,z)] */
  float tile_width;    /* tile size along X [Limit: > 0] [Units: wu] */
  float tile_height;   /* tile size along Z [Limit: > 0] [Units: wu] */
  int max_tiles;       /* tile slots [Limit: >= 1] */
  int max_polys;       /* polygons per tile [Limit: >= 1]; tile+poly bits <= 22 */
} nm_navmesh_params;

/* Makes an empty tiled navmesh. *out owned by the caller (release).
 * ERR_PARAM when the parameters are out of range, ERR_NOMEM. */
NM_API nm_status nm_navmesh_new(const nm_navmesh_params *params, const nm_alloc *alloc,
                                nm_diag *diag, nm_navmesh **out);

/* Loads a navmesh from bytes: RecastDemo MSET, a single Detour tile blob
 * (version 7) or this library's own format, told apart by their magic.
 * The bytes are borrowed (copied). ERR_DATA for anything malformed. */
NM_API nm_status nm_navmesh_load(const void *bytes, size_t len, const nm_alloc *alloc,
                                 nm_diag *diag, nm_navmesh **out);

/* Uses a file in our own format in place through a read-only memory
 * mapping: no copy, and every process mapping the file shares its pages.
 * The mesh is read-only (frozen). Falls back to reading the file where
 * there is no mmap. ERR_IO, ERR_DATA (also for MSET files: map needs the
 * stored links of our format). */
NM_API nm_status nm_navmesh_map(const char *path, const nm_alloc *alloc, nm_diag *diag,
                                nm_navmesh **out);

/* Adds one Detour tile blob (copied). ref_out (optional) gets the tile ref.
 * ERR_DATA bad blob, ERR_FULL location taken or no slot, ERR_READONLY. */
NM_API nm_status nm_navmesh_add_tile(nm_navmesh *mesh, const void *data, size_t size,
                                     nm_diag *diag, nm_polyref *ref_out);

/* Removes the tile at grid cell (tx, ty, layer). If data/size are given,
 * *data receives a copy of the tile blob (allocated with the mesh allocator,
 * free with nm_free_bytes). ERR_PARAM when no tile is there. */
NM_API nm_status nm_navmesh_remove_tile(nm_navmesh *mesh, int tx, int ty, int layer,
                                        void **data, size_t *size);

/* Tile grid coordinates of a world position. */
NM_API void nm_navmesh_tile_loc(const nm_navmesh *mesh, const float pos[3], int *tx, int *ty);

/* Ref of the tile at (tx, ty, layer), 0 if none. */
NM_API nm_polyref nm_navmesh_tile_ref_at(const nm_navmesh *mesh, int tx, int ty, int layer);

/* Serialises the navmesh. format: NM_FORMAT_MSET (RecastDemo can load it) or
 * NM_FORMAT_NATIVE (ours: magic, version, endianness tag, checksum).
 * *bytes is allocated with the mesh allocator; free with nm_free_bytes. */
enum { NM_FORMAT_MSET = 1, NM_FORMAT_NATIVE = 2 };
NM_API nm_status nm_navmesh_save(const nm_navmesh *mesh, int format, void **bytes, size_t *len);
NM_API void nm_free_bytes(const nm_navmesh *mesh, void *bytes, size_t len);

/* Copies a navmesh into memory from alloc (NULL = malloc): same parameters,
 * tiles, polygon references, flags, areas and links (so the same query
 * answers), equal to loading a saved image in our own format. Works on
 * mapped and frozen meshes; the copy is not frozen. *out owned by the caller
 * (release). ERR_NOMEM (nothing is left allocated), ERR_PARAM for NULLs. */
NM_API nm_status nm_navmesh_copy(const nm_navmesh *mesh, const nm_alloc *alloc, nm_navmesh **out);

NM_API void nm_navmesh_retain(nm_navmesh *mesh);
NM_API void nm_navmesh_release(nm_navmesh *mesh);

/* Marks a mesh read-only (for sharing): add/remove tile and set_poly_*
 * then return ERR_READONLY. Irreversible. Also computes the island labels
 * if tiles changed (ERR_NOMEM if that fails; the mesh is frozen anyway). */
NM_API nm_status nm_navmesh_freeze(nm_navmesh *mesh);
NM_API int nm_navmesh_is_frozen(const nm_navmesh *mesh);

/* Summary numbers of a mesh. */
typedef struct nm_navmesh_info {
  int tiles, polys, offmesh_polys, verts, detail_verts, detail_tris, max_tiles, max_polys;
  float bmin[3], bmax[3];  /* bounds of all tiles (zeros when empty) */
  size_t data_bytes;       /* bytes of tile data */
  size_t memory_bytes;     /* all memory owned by the mesh */
} nm_navmesh_info;
NM_API void nm_navmesh_get_info(const nm_navmesh *mesh, nm_navmesh_info *info);
NM_API void nm_navmesh_get_params(const nm_navmesh *mesh, nm_navmesh_params *params);

/* Polygon attributes. get: ERR_PARAM for an invalid ref. */
NM_API int nm_navmesh_is_valid_ref(const nm_navmesh *mesh, nm_polyref ref);
NM_API nm_status nm_navmesh_get_poly_flags(const nm_navmesh *mesh, nm_polyref ref, uint16_t *flags);
NM_API nm_status nm_navmesh_set_poly_flags(nm_navmesh *mesh, nm_polyref ref, uint16_t flags);
NM_API nm_status nm_navmesh_get_poly_area(const nm_navmesh *mesh, nm_polyref ref, uint8_t *area);
NM_API nm_status nm_navmesh_set_poly_area(nm_navmesh *mesh, nm_polyref ref, uint8_t area);

/* Copies a polygon's vertices (x,y,z each) into verts [cap >= 3*6]; *nverts
 * gets the count. Off-mesh connections have 2. */
NM_API nm_status nm_navmesh_get_poly_verts(const nm_navmesh *mesh, nm_polyref ref,
                                           float *verts, int *nverts);

/* Islands: polygons joined by links, whatever the filter and the direction
 * of one-way off-mesh connections. nm_navmesh_island gives a polygon's
 * island (1..count; 0 for an invalid ref); two polygons on different islands
 * can never be joined by a path, so `!is_reachable` is always right (a
 * filter or a one-way connection can still block a path between polygons on
 * one island). Labels are made at load/build/freeze and after tile changes
 * on first use (a mesh being changed is used by one thread only). */
NM_API uint32_t nm_navmesh_island(nm_navmesh *mesh, nm_polyref ref);
NM_API int nm_navmesh_is_reachable(nm_navmesh *mesh, nm_polyref a, nm_polyref b);
NM_API int nm_navmesh_island_count(nm_navmesh *mesh);

/* Calls fn(ud, ref) for every polygon (tiles by slot, polys by index). */
NM_API void nm_navmesh_foreach_poly(const nm_navmesh *mesh,
                                    void (*fn)(void *ud, nm_polyref ref), void *ud);

/* ---- tiles from polygons ------------------------------------------------- */

/* An off-mesh connection: a link between two points the walkable surface does
 * not join (jump, ladder, teleport). */
typedef struct nm_offmesh_link {
  float start[3], end[3];  /* end points [(x,y,z)] */
  float radius;            /* end point snapping radius [Limit: > 0] [Units: wu] */
  int bidirectional;       /* 1: usable both ways */
  uint8_t area;            /* [Limit: < 64] */
  uint16_t flags;
  uint32_t user_id;
} nm_offmesh_link;

/* A convex polygon mesh and what else a tile needs: the input of tile creation
 * (what Recast hands to Detour at the end of a build).
 * Polygons: npolys records of nvp vertex indices; unused slots hold 0xffff.
 * Winding does not matter (tiles store it as Detour expects). */
typedef struct nm_poly_mesh_input {
  const float *verts;          /* [(x,y,z) * nverts] [Units: wu] */
  int nverts;                  /* [Limit: 1 .. 65535] */
  const uint16_t *polys;       /* [npolys * nvp] vertex indices */
  int npolys;                  /* [Limit: >= 1] */
  int nvp;                     /* slots per polygon record [Limit: 3 .. 6] */
  const uint8_t *areas;        /* [npolys], optional (0) [Limit: < 64] */
  const uint16_t *flags;       /* [npolys], optional (1) */
  /* Optional neighbour slots as Recast's poly mesh has them (npolys * nvp):
   * 0xffff wall, 0x8000|dir portal to the next tile (dir 0 -x, 1 +z, 2 +x,
   * 3 -z, 0xf border), else index of the neighbour polygon. When NULL, edges
   * shared by two polygons become neighbours and edges lying on the tile
   * square (tiled meshes) become portals. */
  const uint16_t *neis;
  /* Optional detail mesh (Recast's rcPolyMeshDetail): per polygon
   * (vert_base, vert_count, tri_base, tri_count) into dverts/dtris; each
   * polygon's detail vertices start with copies of its own vertices. */
  const uint32_t *dmeshes;     /* [npolys * 4] */
  const float *dverts;         /* [(x,y,z) * ndverts] */
  int ndverts;
  const uint8_t *dtris;        /* [(a,b,c,edge flags) * ndtris] local indices */
  int ndtris;
  int dtri_flags_valid;        /* 0: edge flags are computed here */
  const nm_offmesh_link *offmesh;
  int noffmesh;
  /* Tile placement */
  int border_portals;          /* 1: unshared edges on the tile square become
                                * portals to the neighbouring tiles (tiled meshes) */
  int tile_x, tile_y, tile_layer;
  uint32_t user_id;
  float bmin[3], bmax[3];      /* tile bounds; computed from verts if bmin > bmax */
  float walkable_height, walkable_radius, walkable_climb; /* [Units: wu] */
  float cell_size;             /* BV quantisation step; 0 = derived from bounds */
  int build_bvtree;            /* 1 to build a BV tree (recommended) */
} nm_poly_mesh_input;

/* Creates a Detour-format (version 7) tile blob from a polygon mesh.
 * *data is allocated with alloc (NULL = malloc) and owned by the caller.
 * ERR_PARAM with diag for bad input, ERR_EMPTY when npolys is 0. */
NM_API nm_status nm_tile_create(const nm_poly_mesh_input *in, const nm_alloc *alloc,
                                nm_diag *diag, void **data, size_t *size);
NM_API void nm_tile_free(const nm_alloc *alloc, void *data, size_t size);

/* ---- building from triangles (the Recast pipeline) ------------------------ */

enum { NM_PARTITION_WATERSHED = 0, NM_PARTITION_MONOTONE = 1, NM_PARTITION_LAYERS = 2 };
enum { NM_VOLUME_CONVEX = 0, NM_VOLUME_BOX = 1, NM_VOLUME_CYLINDER = 2 };

/* A volume whose walkable surface gets another area id (water, road...) or,
 * with area -1, becomes not walkable. */
typedef struct nm_area_volume {
  int kind;              /* NM_VOLUME_* */
  const float *verts;    /* convex: X/Z outline [(x,y,z) * nverts], y ignored */
  int nverts;            /* convex: [Limit: >= 3] */
  float hmin, hmax;      /* convex: vertical extent [Units: wu] */
  float bmin[3], bmax[3];/* box corners [(x,y,z)] */
  float center[3];       /* cylinder: centre of its base [(x,y,z)] */
  float radius, height;  /* cylinder [Units: wu] */
  int area;              /* area id to mark [Limit: 0..62], or -1: not walkable */
} nm_area_volume;

/* Build settings; nm_build_config_init fills RecastDemo's defaults.
 * Sizes are world units unless marked [Units: cells]. */
typedef struct nm_build_config {
  float cell_size;              /* 0.3  X/Z voxel size [Limit: > 0] */
  float cell_height;            /* 0.2  Y voxel size [Limit: > 0] */
  float agent_height;           /* 2.0 */
  float agent_radius;           /* 0.6 */
  float agent_max_climb;        /* 0.9 */
  float agent_max_slope;        /* 45  [Units: degrees] [Limit: 0..90] */
  float region_min_size;        /* 8   [Units: cells per side] */
  float region_merge_size;      /* 20  [Units: cells per side] */
  float edge_max_len;           /* 12 */
  float edge_max_error;         /* 1.3 [Units: cells... as RecastDemo: world units of deviation] */
  int verts_per_poly;           /* 6   [Limit: 3..6] */
  float detail_sample_dist;     /* 6   [Units: cells] (0 = no detail sampling) */
  float detail_sample_max_error;/* 1   [Units: cell heights] */
  int partition;                /* NM_PARTITION_WATERSHED */
  int tile_size;                /* 0 = one tile; else tile side [Units: cells] */
  int threads;                  /* worker threads for tiled builds (1) */
  int filter_low_hanging;       /* 1: step over low obstacles */
  int filter_ledges;            /* 1: drop spans next to ledges */
  int filter_low_height;        /* 1: drop spans with too little head room */
  float bmin[3], bmax[3];       /* build box; bmin > bmax: the bounds of the input */
  const nm_area_volume *volumes;
  int nvolumes;
  const nm_offmesh_link *offmesh;
  int noffmesh;
  size_t memory_limit;          /* refuse builds whose grids need more bytes (0 = 4 GiB) */
  /* Called on the calling thread after each tile of the grid in grid order
   * (done = 1 .. total; a solo build calls it once with 1, 1). Return 0 to go
   * on; anything else cancels the build (ERR_PARAM, diag field "progress").
   * With threads > 1 it runs while holding the build's allocator lock. */
  int (*progress)(void *ud, int done, int total);
  void *progress_ud;
} nm_build_config;

NM_API void nm_build_config_init(nm_build_config *cfg);

/* Time spent per stage (summed over tiles and threads) and peak memory. */
typedef struct nm_build_stats {
  double ms_rasterize, ms_filter, ms_compact, ms_erode, ms_areas, ms_distance, ms_regions,
      ms_contours, ms_polymesh, ms_detail, ms_tiledata, ms_total;
  size_t peak_bytes;   /* high-water mark of build memory */
  int tiles;           /* tiles built (non-empty) */
  int polys;
} nm_build_stats;

/* Builds a navmesh from triangles: verts [(x,y,z) * nverts], tris [3 * ntris]
 * (0-based indices), as RecastDemo's Solo Mesh (tile_size 0) or Tile Mesh
 * sample builds it. Zero-area triangles are ignored. *out is owned by the
 * caller (release); its allocator is alloc. Deterministic: the same input
 * and config give the same tiles and references for any thread count.
 * ERR_PARAM (diag names the field) for bad config or input, including voxel
 * grids over memory_limit (refused before allocating them); ERR_EMPTY when
 * there are no triangles or nothing walkable remains; ERR_NOMEM.
 * Threads: with cfg->threads > 1 tiles are built by worker threads; the
 * build never calls alloc from two threads at once. stats may be NULL. */
NM_API nm_status nm_navmesh_build(const float *verts, int nverts, const int *tris, int ntris,
                                  const nm_build_config *cfg, const nm_alloc *alloc, nm_diag *diag,
                                  nm_navmesh **out, nm_build_stats *stats);

/* Parses Wavefront OBJ text (v and f lines; faces fan-triangulated, negative
 * indices, v/vt/vn forms). *verts and *tris are allocated with alloc and owned
 * by the caller (nm_obj_free). ERR_DATA for malformed input. */
NM_API nm_status nm_obj_parse(const char *text, size_t len, const nm_alloc *alloc, nm_diag *diag,
                              float **verts, int *nverts, int **tris, int *ntris);
NM_API void nm_obj_free(const nm_alloc *alloc, float *verts, int nverts, int *tris, int ntris);

/* ---- queries ---------------------------------------------------------------- */

typedef struct nm_query nm_query;

/* Makes query scratch space over a mesh (retained). max_nodes sizes the A*
 * node pool [Limit: 1 .. 1<<22]. */
NM_API nm_status nm_query_new(nm_navmesh *mesh, int max_nodes, const nm_alloc *alloc,
                              nm_query **out);
NM_API void nm_query_free(nm_query *q);
NM_API nm_navmesh *nm_query_mesh(const nm_query *q);

/* Nearest polygon to `center` within the box center +- half_ext. Prefers a
 * polygon right under/over the point within the climb height (as Detour).
 * ref 0 and ERR_NO_POLY when nothing is in the box. nearest gets the closest
 * point on the polygon (height from the detail mesh); over gets whether the
 * point lies over the polygon in X/Z. nearest/over may be NULL. */
NM_API nm_status nm_query_find_nearest(nm_query *q, const float center[3], const float half_ext[3],
                                       const nm_filter *filter, nm_polyref *ref,
                                       float nearest[3], int *over);

/* A* over polygons from start_ref to end_ref (positions on those polygons).
 * path [cap] gets the polygons, start first. NM_PARTIAL when the end could
 * not be reached (the path leads to the reachable polygon closest to it),
 * NM_OUT_OF_NODES when the node pool ran out, NM_TRUNCATED when cap was too
 * small (the path is then cut at its end). */
NM_API nm_status nm_query_find_path(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                    const float start[3], const float end[3],
                                    const nm_filter *filter, nm_polyref *path, int cap,
                                    int *count);

/* ---- optimal (truly shortest) paths ---- */

/* Like nm_query_find_path, but the corridor contains the shortest path in
 * X/Z from start to end (an any-angle search over the polygons, Polyanya),
 * so nm_query_straight_path over it gives that shortest path. Filter flags
 * make polygons obstacles; an off-mesh connection costs its 3-D length.
 * Area costs must all be equal: otherwise (and when start_ref or end_ref is
 * an off-mesh connection) this runs nm_query_find_path and adds NM_FALLBACK.
 * start/end [(x,y,z)] are moved into their polygons in X/Z. path [cap].
 * NM_PARTIAL: end unreachable, the corridor leads to the polygon nearest to
 * it in X/Z among those start reaches, and holds the shortest path to that
 * polygon's point nearest to end (found by a walk over the polygon graph,
 * then a search to that point); NM_OUT_OF_NODES: the search hit its node
 * limit (8 per max_nodes of the query, at least 4096), the path may be
 * longer than the shortest;
 * NM_TRUNCATED: cap too small (the corridor is cut at its end).
 * Search memory is taken from the query's allocator on first use and grown
 * when needed, then reused; the first search on a mesh (generation) also
 * makes tables of its polygon graph in the query, in time linear in the
 * mesh. ERR_PARAM, ERR_NOMEM. */
NM_API nm_status nm_query_find_path_optimal(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                            const float start[3], const float end[3],
                                            const nm_filter *filter, nm_polyref *path, int cap,
                                            int *count);

/* The shortest path itself: start, the corners it turns at, end [(x,y,z) *
 * count] in pts [3*cap], with heights from the detail mesh, and in refs
 * [cap] a polygon each point lies on. Same search and statuses as
 * nm_query_find_path_optimal; cheaper than it + nm_query_straight_path, as
 * the turns come straight from the search (the funnel still runs for
 * off-mesh connections and NM_FALLBACK). A partial path is the shortest
 * path to the point of the last polygon nearest to end. NM_TRUNCATED: the
 * first cap points of the whole path (made aside in the query's memory). */
NM_API nm_status nm_query_path_optimal(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                       const float start[3], const float end[3],
                                       const nm_filter *filter, float *pts, nm_polyref *refs,
                                       int cap, int *count);

/* Sets the height of each point pts[i] [(x,y,z) * n] to the detail surface
 * of polygon refs[i] (or of `last` where refs[i] is 0) at its X/Z, the
 * nearest surface point when the point lies on the polygon's boundary.
 * Points with an invalid polygon keep their height. */
NM_API nm_status nm_query_surface_heights(nm_query *q, float *pts, const nm_polyref *refs, int n,
                                          nm_polyref last);

/* Options of the straight path. */
enum { NM_CROSSINGS_NONE = 0, NM_CROSSINGS_AREA = 1, NM_CROSSINGS_ALL = 2 };
typedef struct nm_straight_opts {
  int crossings;   /* add a point where the path crosses polygon edges */
  float inset;     /* keep corners this far from the wall vertex [Units: wu] [Limit: >= 0] */
} nm_straight_opts;

/* String-pulls the corridor `path` from start to end (funnel algorithm).
 * pts [3*cap], flags [cap] (NM_STRAIGHT_*), refs [cap] (polygon entered at
 * each point, 0 at the end); flags/refs may be NULL. opts NULL = defaults.
 * NM_PARTIAL when a corridor polygon was invalid (path cut there),
 * NM_TRUNCATED when cap points were not enough. */
NM_API nm_status nm_query_straight_path(nm_query *q, const float start[3], const float end[3],
                                        const nm_polyref *path, int npath,
                                        const nm_straight_opts *opts, float *pts,
                                        uint8_t *flags, nm_polyref *refs, int cap, int *count);

/* Closest point on polygon `ref` to pos; over (optional) gets whether pos is
 * over the polygon in X/Z. Height comes from the detail mesh. */
NM_API nm_status nm_query_closest_point(nm_query *q, nm_polyref ref, const float pos[3],
                                        float closest[3], int *over);

/* Closest point on the boundary of polygon ref (pos itself when inside in X/Z). */
NM_API nm_status nm_query_closest_point_boundary(nm_query *q, nm_polyref ref,
                                                 const float pos[3], float closest[3]);

/* The portal (shared edge, or its linked part at tile borders) from polygon
 * `from` into its neighbour `to`: left and right as seen walking from -> to.
 * ERR_PARAM when the polygons are not neighbours. */
NM_API nm_status nm_query_portal_points(nm_query *q, nm_polyref from, nm_polyref to, float left[3],
                                        float right[3]);

/* Height of the detail surface of polygon ref at (pos x, pos z).
 * ERR_NO_POLY when the point is not over the polygon. */
NM_API nm_status nm_query_poly_height(nm_query *q, nm_polyref ref, const float pos[3],
                                      float *height);

/* ---- the query toolbox: rays, surface moves, area searches, random points,
 * sliced paths (Detour's dtNavMeshQuery methods of the same names) ---- */

/* Casts a ray along the surface from start (on start_ref) towards end, in
 * X/Z, polygon by polygon (Detour's raycast). *t: FLT_MAX when end is reached,
 * else the hit parameter along start->end [0..1]; normal: the X/Z normal of
 * the wall hit, (0,0,0) when the end was reached or the ray could not enter
 * a polygon (then *t is how far it got; 0 when start lies on the boundary and
 * the ray leaves the start polygon at once). path [cap] (may be NULL with cap
 * 0) gets the visited polygons; NM_TRUNCATED when cap was too small.
 * ERR_PARAM for an invalid ref or non-finite points. */
NM_API nm_status nm_query_raycast(nm_query *q, nm_polyref start_ref, const float start[3],
                                  const float end[3], const nm_filter *filter, float *t,
                                  float normal[3], nm_polyref *path, int cap, int *count);

/* Moves from start (on start_ref) towards end, staying on the mesh and
 * sliding along walls (breadth-first over neighbours within the circle
 * through start and end; at most 48 queued and 64 visited polygons, as
 * Detour). result gets end when reachable, else the closest reachable point;
 * its y is not projected on the surface (use nm_query_poly_height on the
 * last visited polygon). visited [cap] gets the polygons from start to the
 * one holding result. NM_TRUNCATED when cap was too small. */
NM_API nm_status nm_query_move_along_surface(nm_query *q, nm_polyref start_ref,
                                             const float start[3], const float end[3],
                                             const nm_filter *filter, float result[3],
                                             nm_polyref *visited, int cap, int *count);

/* Distance from center (on ref) to the nearest wall edge (an edge with no
 * passable neighbour) reachable within max_radius [Limit: >= 0] [Units: wu]
 * (X/Z distance, Dijkstra search over the polygons the circle touches).
 * *dist = max_radius and *found = 0 when no wall is that close; hit gets the
 * wall point, normal the unit vector from hit to center (zero if they meet).
 * Uses the node pool (ends a sliced search). */
NM_API nm_status nm_query_distance_to_wall(nm_query *q, nm_polyref ref, const float center[3],
                                           float max_radius, const nm_filter *filter,
                                           float *dist, float hit[3], float normal[3],
                                           int *found);

/* Seeds the query's random generator (splitmix64): the same seed gives the
 * same points on every host. */
NM_API void nm_query_seed(nm_query *q, uint64_t seed);

/* A random point on the mesh, uniform by X/Z area over all ground polygons
 * that pass the filter (a per-query table of area sums, built on first use
 * and rebuilt when the mesh or the filter flags change). ERR_NO_POLY when no
 * polygon passes, ERR_NOMEM when the table cannot be made. */
NM_API nm_status nm_query_random_point(nm_query *q, const nm_filter *filter, nm_polyref *ref,
                                       float pt[3]);

/* A random point on the polygons reachable from start_ref whose portals lie
 * within radius [Limit: >= 0] [Units: wu] of center: area-weighted as Detour,
 * redrawn until it lies within radius in X/Z, so points are uniform over the
 * reachable part of the disc (after 32 misses, which needs a disc almost
 * entirely off the mesh, the last draw is kept: on a polygon the circle
 * touches, as Detour's). ERR_PARAM when start_ref does not pass the filter,
 * ERR_NO_POLY when the polygons reached have no area. Uses the node pool
 * (ends a sliced search). */
NM_API nm_status nm_query_random_point_around(nm_query *q, nm_polyref start_ref,
                                              const float center[3], float radius,
                                              const nm_filter *filter, nm_polyref *ref,
                                              float pt[3]);

/* Polygons reachable from start_ref whose entry portals touch the circle
 * (center, radius [Units: wu]), cheapest first (Dijkstra, Detour's order).
 * refs/parents/costs [cap] (parents and costs may be NULL): parent 0 for the
 * start, cost = path cost from center to the polygon's entry point.
 * NM_TRUNCATED when cap was too small, NM_OUT_OF_NODES when the pool ran out.
 * Uses the node pool (ends a sliced search). */
NM_API nm_status nm_query_polys_around_circle(nm_query *q, nm_polyref start_ref,
                                              const float center[3], float radius,
                                              const nm_filter *filter, nm_polyref *refs,
                                              nm_polyref *parents, float *costs, int cap,
                                              int *count);

/* As nm_query_polys_around_circle for a convex polygon shape
 * [(x,y,z) * nverts] [Limit: nverts >= 3], either winding; the search starts
 * at the shape's centroid. */
NM_API nm_status nm_query_polys_around_shape(nm_query *q, nm_polyref start_ref,
                                             const float *verts, int nverts,
                                             const nm_filter *filter, nm_polyref *refs,
                                             nm_polyref *parents, float *costs, int cap,
                                             int *count);

/* Non-overlapping polygons around start_ref whose portals touch the circle
 * (breadth-first, at most 64 polygons; Detour's findLocalNeighbourhood).
 * parents [cap] may be NULL. NM_TRUNCATED when cap was too small. */
NM_API nm_status nm_query_local_neighbourhood(nm_query *q, nm_polyref start_ref,
                                              const float center[3], float radius,
                                              const nm_filter *filter, nm_polyref *refs,
                                              nm_polyref *parents, int cap, int *count);

/* Polygons whose bounds overlap the box center +- half_ext [(x,y,z)], in
 * Detour's order (tiles Z then X, BV-tree order inside). NM_TRUNCATED when
 * cap was too small (the first cap are kept). */
NM_API nm_status nm_query_polygons(nm_query *q, const float center[3], const float half_ext[3],
                                   const nm_filter *filter, nm_polyref *refs, int cap,
                                   int *count);

/* Boundary segments of polygon ref: segs [6 * cap] gets (ax,ay,az,bx,by,bz)
 * per segment, refs [cap] the polygon across it (0 for a wall; portals to
 * polygons the filter rejects count as walls). With refs NULL only walls are
 * returned. Tile-border edges split into portal and wall parts as Detour.
 * cap 192 always suffices. NM_TRUNCATED when cap was too small. */
NM_API nm_status nm_query_wall_segments(nm_query *q, nm_polyref ref, const nm_filter *filter,
                                        float *segs, nm_polyref *refs, int cap, int *count);

/* Sliced findPath: begin, then step until it stops returning NM_UNFINISHED,
 * then end. The same corridor as nm_query_find_path. The filter is copied.
 * begin: ERR_PARAM as findPath. step: runs at most max_iter [Limit: >= 1]
 * node expansions (*done gets how many, may be NULL); NM_UNFINISHED while
 * more remain, NM_OK (| NM_OUT_OF_NODES) when finished. end: the corridor to
 * the goal, or to the node closest to it (NM_PARTIAL; | NM_UNFINISHED when
 * ended early), and forgets the search. Any search that uses the node pool
 * (find_path, polys_around_*, distance_to_wall, random_point_around) or any
 * change to the mesh in between ends the sliced search: step and end then
 * return ERR_STATE, as they do when no search was begun. */
NM_API nm_status nm_query_find_path_begin(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                          const float start[3], const float end[3],
                                          const nm_filter *filter);
NM_API nm_status nm_query_find_path_step(nm_query *q, int max_iter, int *done);
NM_API nm_status nm_query_find_path_end(nm_query *q, nm_polyref *path, int cap, int *count);

/* Ends a sliced search with Detour's finalizeSlicedFindPathPartial: the
 * corridor leads to the last polygon of existing [nexisting] that the search
 * reached (so a replanned path can be joined to the old one), or, when it
 * reached none of them, to the node closest to the goal (NM_PARTIAL).
 * Statuses as nm_query_find_path_end. */
NM_API nm_status nm_query_find_path_end_partial(nm_query *q, const nm_polyref *existing,
                                                int nexisting, nm_polyref *path, int cap,
                                                int *count);

/* findPath with at most max_iter [Limit: >= 1] node expansions: when the
 * limit stops the search, the corridor leads to the node closest to the goal
 * so far and the status has NM_PARTIAL | NM_UNFINISHED. */
NM_API nm_status nm_query_find_path_limited(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                            const float start[3], const float end[3],
                                            const nm_filter *filter, int max_iter,
                                            nm_polyref *path, int cap, int *count);

/* ---- crowds: agents that follow paths and avoid each other ----------------
 *
 * DetourCrowd in C (docs/crowd.md): add agents with a radius, speed and
 * acceleration, give them targets, call nm_crowd_update every frame; the
 * crowd plans their paths (sliced over frames), keeps a corridor of polygons
 * per agent, steers along it, avoids other agents and walls, and moves them
 * on the navmesh, never off it. With the same inputs and Detour's limits
 * (nm_crowd_config_detour) it gives dtCrowd's motion bit for bit. Beyond
 * Detour: paths of any length (planned in slices from a per-crowd budget of
 * search iterations), a query filter per agent, ORCA as an alternative to
 * the sampled avoidance, thousands of agents, salted agent ids, and agents
 * put back on the mesh when the tile under them goes and comes back.
 * A crowd retains its mesh and owns its query state. Deterministic: the same
 * calls give the same positions bit for bit. Not thread-safe (one thread per
 * crowd); the mesh must not change during nm_crowd_update. */

typedef struct nm_crowd nm_crowd;

/* Agent update flags (Detour's values). */
enum {
  NM_CROWD_ANTICIPATE_TURNS = 1,
  NM_CROWD_OBSTACLE_AVOIDANCE = 2,
  NM_CROWD_SEPARATION = 4,
  NM_CROWD_OPTIMIZE_VIS = 8,
  NM_CROWD_OPTIMIZE_TOPO = 16,
  NM_CROWD_ALL_FLAGS = 31
};

/* Agent states and move-request states (Detour's values). */
enum { NM_AGENT_INVALID = 0, NM_AGENT_WALKING = 1, NM_AGENT_OFFMESH = 2 };
enum {
  NM_TARGET_NONE = 0,
  NM_TARGET_FAILED = 1,
  NM_TARGET_VALID = 2,
  NM_TARGET_REQUESTING = 3,
  NM_TARGET_WAITING_FOR_QUEUE = 4,
  NM_TARGET_WAITING_FOR_PATH = 5,
  NM_TARGET_VELOCITY = 6
};

/* Avoidance methods of an agent. */
enum { NM_AVOID_SAMPLED = 0, NM_AVOID_ORCA = 1 };

#define NM_CROWD_MAX_AVOIDANCE_PARAMS 8
#define NM_CROWD_MAX_NEIGHBOURS 6
#define NM_CROWD_MAX_CORNERS 4

/* Crowd settings. nm_crowd_config_init: Detour's values but no path limits,
 * 400 search iterations per update and island_targets;
 * nm_crowd_config_detour: exactly dtCrowd's limits (what dtCrowd::init
 * sets), for dtCrowd's motion bit for bit. */
typedef struct nm_crowd_config {
  int max_agents;          /* agent slots [Limit: 1 .. 65535] */
  float max_agent_radius;  /* proximity grid cell = 3 x this; placement box
                            * (2, 1.5, 2) x this [Limit: > 0] [Units: wu] */
  int max_path;            /* corridor polygons per agent [Limit: 0 = no
                            * limit (grows as needed), else >= 32] (Detour 256) */
  int search_nodes;        /* node pool of the queued path searches
                            * [Limit: 0 = twice the mesh's polygons, at least
                            * 4096; else 64 .. 1<<22] (Detour 4096) */
  int max_iterations;      /* search iterations per update for all queued
                            * path requests [Limit: >= 1] (400; Detour 100) */
  int queue_size;          /* path requests searched at once [Limit: 1 .. 64] (8) */
  int island_targets;      /* 1: a target on another island of the mesh (no
                            * path can reach it) is replaced by the nearest
                            * point of the agent's island, instead of a search
                            * over the whole island (Detour: 0) */
} nm_crowd_config;

NM_API void nm_crowd_config_init(nm_crowd_config *cfg, int max_agents, float max_agent_radius);
NM_API void nm_crowd_config_detour(nm_crowd_config *cfg, int max_agents, float max_agent_radius);

/* Obstacle-avoidance parameter set (Detour's dtObstacleAvoidanceParams;
 * crowds start with 8 sets of Detour's defaults). Sampled: adaptive
 * sampling (adaptive_divs directions x adaptive_rings rings, refined
 * adaptive_depth times), penalties weighted as named. ORCA: horiz_time is
 * the time horizon against agents, horiz_time_obst against walls. */
typedef struct nm_avoidance_params {
  float vel_bias;          /* 0.4 [Limit: 0 .. 1] */
  float weight_des_vel;    /* 2 */
  float weight_cur_vel;    /* 0.75 */
  float weight_side;       /* 0.75 */
  float weight_toi;        /* 2.5 */
  float horiz_time;        /* 2.5 [Limit: > 0] [Units: s] */
  int grid_size;           /* 33 (kept for Detour's struct; the crowd samples adaptively) */
  int adaptive_divs;       /* 7 [Limit: 1 .. 32] */
  int adaptive_rings;      /* 2 [Limit: 1 .. 4] */
  int adaptive_depth;      /* 5 [Limit: 1 .. 16] */
  float horiz_time_obst;   /* 1 (ORCA only) [Limit: > 0] [Units: s] */
} nm_avoidance_params;

/* The sets RecastDemo's crowd tool uses: quality 0 (low) .. 3 (high):
 * Detour's defaults with vel_bias 0.5 and (divs, rings, depth) = (5,2,1),
 * (5,2,2), (7,2,3), (7,3,3). */
NM_API void nm_avoidance_params_preset(nm_avoidance_params *p, int quality);

/* Agent settings (Detour's dtCrowdAgentParams plus a filter and an
 * avoidance method). nm_crowd_agent_params_init: RecastDemo's crowd tool
 * values for the radius: height 2, max_acceleration 8, max_speed 3.5,
 * collision_query_range 12 r, path_optimization_range 30 r,
 * separation_weight 2, all update flags, avoidance set 3, sampled. */
typedef struct nm_crowd_agent_params {
  float radius;                  /* [Limit: >= 0] [Units: wu] */
  float height;                  /* [Limit: > 0] [Units: wu] */
  float max_acceleration;        /* [Limit: >= 0] [Units: wu/s^2] */
  float max_speed;               /* [Limit: >= 0] [Units: wu/s] */
  float collision_query_range;   /* neighbours and walls within [Limit: > 0] [Units: wu] */
  float path_optimization_range; /* visibility shortcut reach [Limit: > 0] [Units: wu] */
  float separation_weight;       /* [Limit: >= 0] */
  unsigned update_flags;         /* NM_CROWD_* */
  int avoidance_type;            /* parameter set [Limit: 0 .. 7] */
  int avoidance;                 /* NM_AVOID_SAMPLED or NM_AVOID_ORCA */
  const nm_filter *filter;       /* copied; NULL: include 0xffff, exclude 0, costs 1 */
  void *user_data;
} nm_crowd_agent_params;

NM_API void nm_crowd_agent_params_init(nm_crowd_agent_params *p, float radius);

/* Makes a crowd over mesh (retained). *out owned by the caller (free).
 * ERR_PARAM (diag names the field) for bad config, ERR_NOMEM. */
NM_API nm_status nm_crowd_new(nm_navmesh *mesh, const nm_crowd_config *cfg, const nm_alloc *alloc,
                              nm_diag *diag, nm_crowd **out);
NM_API void nm_crowd_free(nm_crowd *crowd);

/* Adds an agent at the navmesh point nearest to pos within the placement
 * box; *id gets its id (a slot number with a salt: ids of removed agents
 * stay invalid). ERR_PARAM for non-finite pos or bad params, ERR_FULL when
 * all slots are taken, ERR_NO_POLY when no polygon is near pos (nothing is
 * added), ERR_NOMEM. */
NM_API nm_status nm_crowd_add_agent(nm_crowd *crowd, const float pos[3],
                                    const nm_crowd_agent_params *params, int *id);
/* Removes an agent. ERR_PARAM for an unknown or removed id. */
NM_API nm_status nm_crowd_remove_agent(nm_crowd *crowd, int id);
/* Replaces an agent's parameters (the filter is copied). ERR_PARAM. */
NM_API nm_status nm_crowd_update_agent_params(nm_crowd *crowd, int id,
                                              const nm_crowd_agent_params *params);

/* Asks the agent to move to pos: snapped to the nearest polygon within the
 * placement box with the agent's filter. ERR_PARAM (bad id, non-finite
 * pos), ERR_NO_POLY (nothing near pos; the request is unchanged). */
NM_API nm_status nm_crowd_request_move_target(nm_crowd *crowd, int id, const float pos[3]);
/* Detour's form: the target's polygon and a point on it. ERR_PARAM for a
 * bad id, an invalid ref or a non-finite pos. */
NM_API nm_status nm_crowd_request_move_target_ref(nm_crowd *crowd, int id, nm_polyref ref,
                                                  const float pos[3]);
/* Makes the agent move with velocity vel [(x,y,z)] [Units: wu/s]. ERR_PARAM. */
NM_API nm_status nm_crowd_request_move_velocity(nm_crowd *crowd, int id, const float vel[3]);
/* Forgets the agent's move request (it stops). ERR_PARAM for a bad id. */
NM_API nm_status nm_crowd_reset_move_target(nm_crowd *crowd, int id);

/* Advances the simulation by dt [Limit: >= 0, finite] [Units: s] (Detour's
 * dtCrowd::update, in its order). ERR_PARAM for a bad dt (nothing moves).
 * ERR_NOMEM when memory ran out during the step: the step is still done; a
 * path that could not be stored whole is cut where memory ran out (as
 * Detour cuts at its limits) and planned again later. */
NM_API nm_status nm_crowd_update(nm_crowd *crowd, float dt);

/* Replaces / reads avoidance parameter set idx [Limit: 0 .. 7]. ERR_PARAM. */
NM_API nm_status nm_crowd_set_avoidance_params(nm_crowd *crowd, int idx,
                                               const nm_avoidance_params *params);
NM_API nm_status nm_crowd_get_avoidance_params(const nm_crowd *crowd, int idx,
                                               nm_avoidance_params *params);

/* What an agent is doing. */
typedef struct nm_crowd_agent_info {
  float pos[3];             /* position on the navmesh [(x,y,z)] */
  float vel[3];             /* velocity (integrated) [Units: wu/s] */
  float dvel[3];            /* desired velocity (steering) */
  float nvel[3];            /* velocity chosen by avoidance */
  float desired_speed;
  int state;                /* NM_AGENT_* */
  int target_state;         /* NM_TARGET_* */
  int partial;              /* the last path found ends short of the target */
  nm_polyref target_ref;    /* target polygon (0 for none or a velocity) */
  float target_pos[3];      /* target point, or the requested velocity */
  nm_polyref first_poly;    /* polygon the agent stands on (0 if invalid) */
  int path_count;           /* polygons in its corridor */
  int ncorners;             /* next corners of the straight path [<= 4] */
  float corners[3 * NM_CROWD_MAX_CORNERS];
  uint8_t corner_flags[NM_CROWD_MAX_CORNERS];
  nm_polyref corner_refs[NM_CROWD_MAX_CORNERS];
  int nneighbours;          /* neighbours considered, nearest first [<= 6] */
  int neighbours[NM_CROWD_MAX_NEIGHBOURS]; /* their ids */
  void *user_data;
} nm_crowd_agent_info;

/* Fills info for agent id. ERR_PARAM for an unknown or removed id. */
NM_API nm_status nm_crowd_get_agent(const nm_crowd *crowd, int id, nm_crowd_agent_info *info);

/* Copies the agent's corridor (polygons from where it stands to its target)
 * into refs [cap]. NM_TRUNCATED when cap was too small. ERR_PARAM. */
NM_API nm_status nm_crowd_get_corridor(const nm_crowd *crowd, int id, nm_polyref *refs, int cap,
                                       int *count);

/* Every active agent in slot order, in one call: pos [3*cap] positions,
 * vel [3*cap] velocities (may be NULL), ids [cap] (may be NULL), states
 * [cap] (NM_AGENT_*, may be NULL). *count = agents written; NM_TRUNCATED
 * when cap was too small. Nothing is allocated. */
NM_API nm_status nm_crowd_positions(const nm_crowd *crowd, float *pos, float *vel, int *ids,
                                    uint8_t *states, int cap, int *count);

/* Active agents now, and the capacity. */
NM_API int nm_crowd_agent_count(const nm_crowd *crowd);
NM_API int nm_crowd_max_agents(const nm_crowd *crowd);

/* Work done by the last update (for benchmarks and tuning). */
typedef struct nm_crowd_stats {
  int agents;              /* active agents */
  int velocity_samples;    /* sampled-avoidance candidates scored */
  int path_iterations;     /* queued-search iterations used */
  int queued_requests;     /* requests in the path queue after the update */
} nm_crowd_stats;
NM_API void nm_crowd_get_stats(const nm_crowd *crowd, nm_crowd_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* NAVMESH_H */
