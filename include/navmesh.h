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
 *   // or all of the above in one call (what the Lua binding's mesh:path runs):
 *   nm_path_opts o; nm_path p;
 *   nm_path_opts_init(&o); nm_path_init(&p, NULL);
 *   if (nm_query_path(q, start, goal, &o, &p) >= 0) use(p.points, p.npoints);
 *   nm_path_free(&p);
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
 *   To change a mesh others are reading, publish versions of it
 *   (nm_navmesh_version_*: copy-on-write tiles, readers move to the latest
 *   with nm_navmesh_version_latest + nm_query_set_mesh); to build without
 *   blocking, use a build job (nm_build_job_*). See docs/tiles.md.
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
  X(UNFINISHED,     8, "not finished (iteration limit, or job running)") \
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
  X(ERR_STATE,    -10, "no sliced path search in progress")            \
  X(ERR_STALE,    -11, "not the latest version of the navmesh")        \
  X(ERR_CANCELLED,-12, "cancelled")

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

/* Adds a tile blob (copied) at the slot and salt of last_ref, a reference
 * the tile had before (Detour's addTile lastRef: the polygon bits are
 * ignored), so its polygons get their old references back; last_ref 0 is
 * nm_navmesh_add_tile. ERR_PARAM when last_ref has salt 0 or a slot past
 * max_tiles, ERR_FULL when that slot is in use or the cell is taken,
 * ERR_DATA bad blob, ERR_READONLY, ERR_NOMEM. */
NM_API nm_status nm_navmesh_add_tile_ref(nm_navmesh *mesh, const void *data, size_t size,
                                         nm_polyref last_ref, nm_diag *diag, nm_polyref *ref_out);

/* The blob of the tile at (tx, ty, layer), links included (what
 * nm_navmesh_remove_tile would hand back), without removing it. *data
 * points into the mesh: valid while the mesh lives and that tile is not
 * removed or changed (a version never changes). ERR_PARAM when no tile is
 * there. */
NM_API nm_status nm_navmesh_get_tile(const nm_navmesh *mesh, int tx, int ty, int layer,
                                     const void **data, size_t *size);

/* One entry of nm_navmesh_tiles. */
typedef struct nm_tile_info {
  int x, y, layer;     /* grid cell and layer */
  nm_polyref ref;      /* tile reference (polygon i is ref | i) */
  int polys;           /* polygons, off-mesh connections included */
  size_t data_size;    /* bytes of its blob */
} nm_tile_info;

/* Lists the tiles by slot (the order saved files use): out [cap] (may be
 * NULL with cap 0); *count gets the number of tiles, which is more than
 * cap with NM_TRUNCATED (the first cap are written). */
NM_API nm_status nm_navmesh_tiles(const nm_navmesh *mesh, nm_tile_info *out, int cap, int *count);

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
 * if tiles changed (ERR_NOMEM if that fails; the mesh is frozen anyway).
 * A published version is frozen already: NM_OK, nothing done. */
NM_API nm_status nm_navmesh_freeze(nm_navmesh *mesh);
NM_API int nm_navmesh_is_frozen(const nm_navmesh *mesh);

/* ---- versions: meshes that change while other threads query them ----
 *
 * A version is a frozen mesh that shares the blobs of its unchanged tiles
 * with the other versions made from the same mesh. To change a published
 * mesh: nm_navmesh_version_edit(latest) gives a draft (a mutable mesh; its
 * slot table is copied, its tiles are shared until it writes to them),
 * change it with nm_navmesh_add_tile(_ref), nm_navmesh_remove_tile and
 * nm_navmesh_set_poly_flags/area, then nm_navmesh_version_commit makes it
 * the latest version. Publishing costs the changed tiles and the
 * neighbours whose links change, plus one copy of the slot table (about 112
 * bytes per slot of max_tiles); unchanged tiles are never touched. Threads
 * that hold an older version keep querying it unchanged (each version is
 * consistent: a query never sees half a change) until they move to the
 * latest with nm_navmesh_version_latest (and nm_query_set_mesh). Replaced
 * blobs are freed once no version that uses them is alive.
 * Island labels of a new version are made by the first reader that needs
 * them (linear in the mesh, once per version), not when publishing.
 * Threads: one draft at a time per lineage; versions may be retained,
 * queried and released from any thread, so the allocator must be
 * thread-safe (NULL: the system allocator). */

/* Version 1 of a new lineage: a frozen copy of mesh (as nm_navmesh_copy)
 * in memory from alloc. *out owned by the caller (release). ERR_NOMEM
 * (nothing is left allocated), ERR_PARAM. */
NM_API nm_status nm_navmesh_version_new(const nm_navmesh *mesh, const nm_alloc *alloc,
                                        nm_navmesh **out);

/* A draft of version, which must be the latest of its lineage: a mutable
 * mesh equal to it. The draft retains version; release the draft to drop
 * it unpublished. ERR_STALE when a newer version exists (edit that one),
 * ERR_STATE when another draft is open, ERR_READONLY for the versions a
 * tile cache publishes (nm_cache_use_versions: the cache is their only
 * writer), ERR_PARAM when version is not a version, ERR_NOMEM. */
NM_API nm_status nm_navmesh_version_edit(nm_navmesh *version, nm_navmesh **draft);

/* Publishes a draft as the latest version of its lineage: it becomes
 * frozen; the caller keeps its reference. Never fails on a draft
 * (ERR_PARAM for anything else). */
NM_API nm_status nm_navmesh_version_commit(nm_navmesh *draft);

/* The latest live version of mesh's lineage, retained (the caller
 * releases it): mesh itself (retained) when it is the latest or not a
 * version. O(1) in the usual case (one lock, one atomic increment). */
NM_API nm_navmesh *nm_navmesh_version_latest(nm_navmesh *mesh);

/* Number of a version in its lineage (1, then higher for each published
 * one; a draft has the number it will get), 0 for other meshes. */
NM_API uint32_t nm_navmesh_version_number(const nm_navmesh *mesh);

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
  /* Flags of the polygons by area id (Detour's mesh-process hook): a
   * polygon of area a gets area_flags[a] [NM_MAX_AREAS entries; area 0 is
   * the plain walkable ground]. NULL: every polygon gets flags 1. Off-mesh
   * connections keep their own flags. */
  const uint16_t *area_flags;
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

/* ---- builds off the calling thread ----
 * A build job runs nm_navmesh_build on a worker thread; the calling
 * thread polls it without blocking. alloc (NULL: the system allocator) is
 * called on the calling thread only: in start (copies of the inputs, which
 * may then go away), in the poll that hands over the mesh, and in free. The
 * worker builds in system memory (cfg->threads tile workers included); the
 * poll moves the mesh into alloc's memory (nm_navmesh_copy: same tiles,
 * references and links, about 1 ms per 2 MB) unless alloc is NULL, when the
 * mesh is handed over as it is. So an allocator that is not thread-safe (a
 * Lua state's) is fine. cfg->progress is never called (the job counts
 * tiles itself: nm_build_job_progress). Without threads the build runs in
 * start. */
typedef struct nm_build_job nm_build_job;

/* Starts a build of these inputs (see nm_navmesh_build). What the build
 * would refuse before allocating (bad config or input: ERR_PARAM with diag,
 * ERR_EMPTY) is refused here. *out owned by the caller (nm_build_job_free).
 * ERR_NOMEM. */
NM_API nm_status nm_build_job_start(const float *verts, int nverts, const int *tris, int ntris,
                                    const nm_build_config *cfg, const nm_alloc *alloc, nm_diag *diag,
                                    nm_build_job **out);

/* Never blocks. NM_UNFINISHED while the build runs (*out NULL). Then what
 * nm_navmesh_build returns: NM_OK with *out the mesh (owned by the caller;
 * handed over once: later polls return ERR_STATE), or the build's failure
 * (ERR_EMPTY, ERR_PARAM, ERR_NOMEM...) with diag, or ERR_CANCELLED after
 * nm_build_job_cancel. ERR_NOMEM when moving the mesh into alloc's memory
 * failed: the result is kept, poll again. stats (may be NULL) gets the
 * build's figures once it is done. */
NM_API nm_status nm_build_job_poll(nm_build_job *job, nm_navmesh **out, nm_diag *diag,
                                   nm_build_stats *stats);

/* Tiles of the grid done so far and their total (0, 0 before the first
 * one; a solo build counts 1 of 1 at its end). */
NM_API void nm_build_job_progress(nm_build_job *job, int *done, int *total);

/* Asks the build to stop (it does between stages of a tile); never blocks.
 * The job still has to be freed; a poll then returns ERR_CANCELLED. */
NM_API void nm_build_job_cancel(nm_build_job *job);

/* Cancels the job if it runs, waits for the worker (at most one stage of
 * one tile), frees everything, the mesh too if it was not handed over. */
NM_API void nm_build_job_free(nm_build_job *job);

/* One tile of a tiled build (cfg->tile_size > 0): the blob nm_navmesh_build
 * adds to its mesh at grid cell (tx, ty) [Limit: 0 <= tx < tiles_x, 0 <= ty
 * < tiles_y of nm_build_tile_grid], byte for byte, made without building
 * the others (the build box and the chunky partition of all triangles are
 * made as the whole build makes them, so the same input is needed). For
 * rebuilding the tile under a changed part of the level: swap it in with
 * nm_navmesh_remove_tile + nm_navmesh_add_tile_ref. *data (free with
 * nm_tile_free(alloc, ...)) is NULL and the status ERR_EMPTY when nothing
 * walkable is left in the tile. ERR_PARAM (diag) as nm_navmesh_build, and
 * for tile_size 0 or a cell off the grid; ERR_NOMEM. stats may be NULL. */
NM_API nm_status nm_navmesh_build_tile(const float *verts, int nverts, const int *tris, int ntris,
                                       const nm_build_config *cfg, int tx, int ty, const nm_alloc *alloc,
                                       nm_diag *diag, void **data, size_t *size, nm_build_stats *stats);

/* The tile grid of a tiled build of these vertices (the build box is their
 * bounds, or cfg's box): the navmesh parameters nm_navmesh_build gives its
 * mesh (nm_navmesh_new with them makes an empty mesh the tiles of
 * nm_navmesh_build_tile fit) and the grid size in tiles. ERR_PARAM (diag)
 * for a bad configuration or tile_size 0, ERR_EMPTY for no vertices. */
NM_API nm_status nm_build_tile_grid(const float *verts, int nverts, const nm_build_config *cfg, nm_diag *diag,
                                    nm_navmesh_params *params, int *tiles_x, int *tiles_y);

/* Parses Wavefront OBJ text (v and f lines; faces fan-triangulated, negative
 * indices, v/vt/vn forms). *verts and *tris are allocated with alloc and owned
 * by the caller (nm_obj_free). ERR_DATA for malformed input. */
NM_API nm_status nm_obj_parse(const char *text, size_t len, const nm_alloc *alloc, nm_diag *diag,
                              float **verts, int *nverts, int **tris, int *ntris);

/* What the OBJ reader passed over, as RecastDemo does, so that a level tool
 * can warn: rows that are no OBJ statement (garbage), face rows that gave
 * fewer triangles than they name (fewer than 3 indices, an index out of
 * range, more than 32 indices), and the triangles those faces lost. */
typedef struct nm_obj_dropped {
  int lines;      /* rows whose first word is no OBJ keyword */
  int faces;      /* face rows that lost triangles or had fewer than 3 indices */
  int triangles;  /* triangles lost */
} nm_obj_dropped;

/* nm_obj_parse that also counts what it dropped into *dropped (zeroed
 * first; may be NULL). */
NM_API nm_status nm_obj_parse_counted(const char *text, size_t len, const nm_alloc *alloc, nm_diag *diag,
                                      float **verts, int *nverts, int **tris, int *ntris,
                                      nm_obj_dropped *dropped);
NM_API void nm_obj_free(const nm_alloc *alloc, float *verts, int nverts, int *tris, int ntris);

/* ---- the tile cache: temporary obstacles (Detour's DetourTileCache) ------ */

/* A tile cache keeps each tile's walkable heightfield layers compressed and
 * rebuilds the navmesh tile of a layer when an obstacle touching it is added,
 * moved or removed, so a door or a crate costs one or two tile rebuilds, not
 * a whole build. It owns the navmesh it maintains (nm_cache_navmesh). Not
 * thread-safe: the cache and its navmesh are used by one thread at a time;
 * to let other threads query, publish versions (nm_cache_use_versions). */
typedef struct nm_cache nm_cache;

/* Geometry of the layers and of the navmesh (what a TSET file stores). */
typedef struct nm_cache_params {
  float orig[3];                 /* world corner of layer grid cell (0,0) [(x,y,z)] */
  float cell_size;               /* X/Z cell size [Limit: > 0] [Units: wu] */
  float cell_height;             /* Y cell size [Limit: > 0] [Units: wu] */
  int width, height;             /* layer grid [Limit: 1..255] [Units: cells] */
  float walkable_height;         /* agent height [Limit: >= 0] [Units: wu] */
  float walkable_radius;         /* agent radius [Limit: >= 0] [Units: wu] */
  float walkable_climb;          /* step height [Limit: >= 0] [Units: wu] */
  float max_simplification_error;/* contour tolerance [Limit: >= 0] [Units: cells] */
  int max_tiles;                 /* layer slots [Limit: 1..4194304] */
  int max_obstacles;             /* obstacle slots [Limit: 1..65536] */
  nm_navmesh_params nav;         /* the navmesh the cache maintains */
} nm_cache_params;

/* RecastDemo's Temp Obstacles values: cells 0.3 / 0.2, 48 x 48 layers,
 * agent 2.0 / 0.6 / 0.9, error 1.3, 1024 obstacles; orig, max_tiles and nav
 * are left for the caller (zeros). */
NM_API void nm_cache_params_init(nm_cache_params *p);

/* How layer areas become polygon areas and flags, and obstacle padding.
 * Layer area 0 is "not walkable"; 63 is plain walkable ground; 1..62 come
 * from area volumes or area-marking obstacles. */
typedef struct nm_cache_rules {
  uint8_t poly_area[64];         /* polygon area of layer area a [Limit: < 64] */
  uint16_t poly_flags[64];       /* polygon flags of layer area a */
  float obstacle_padding;        /* grow every obstacle by this in X/Z (the
                                  * agent radius keeps bodies off it; 0 =
                                  * Detour's stamping) [Limit: >= 0] [Units: wu] */
} nm_cache_rules;

/* RecastDemo's mesh process: area 63 -> polygon area 0 flags 1, every
 * other area a -> area a flags 1; no padding. */
NM_API void nm_cache_rules_init(nm_cache_rules *r);

/* Makes an empty cache and its empty navmesh. rules NULL = defaults.
 * *out owned by the caller (nm_cache_free). ERR_PARAM (diag), ERR_NOMEM. */
NM_API nm_status nm_cache_new(const nm_cache_params *p, const nm_cache_rules *rules, const nm_alloc *alloc,
                              nm_diag *diag, nm_cache **out);
NM_API void nm_cache_free(nm_cache *c);

/* Loads a RecastDemo tile cache ("TSET", FastLZ layers) from bytes (copied)
 * as RecastDemo's Load does: every layer added in file order and its navmesh
 * tile built, so tile slots and polygon references equal Detour's.
 * ERR_DATA (diag names the record and field) for anything malformed. */
NM_API nm_status nm_cache_load(const void *bytes, size_t len, const nm_cache_rules *rules,
                               const nm_alloc *alloc, nm_diag *diag, nm_cache **out);

/* Builds a tile cache from triangles (verts [(x,y,z) * nverts], tris
 * [3 * ntris]) as RecastDemo's Temp Obstacles sample does: cfg as for
 * nm_navmesh_build with tile_size the layer size [Limit: 1..255] (the
 * sample uses 48); each tile's walkable surface is rasterized (border
 * walkable radius + 3 cells), eroded and cut into layers (at most 32 per
 * tile), the layers compressed with FastLZ, then every layer's navmesh tile
 * built. Cache and navmesh parameters as the sample derives them (4
 * layers per tile expected). The layers equal those of the sample's saved
 * file, and the navmesh its load's. cfg->progress is called after each
 * tile (cfg->threads is not used yet: one thread). ERR_PARAM (diag names
 * the field; "progress" when cancelled), ERR_EMPTY, ERR_NOMEM. */
NM_API nm_status nm_cache_build(const float *verts, int nverts, const int *tris, int ntris,
                                const nm_build_config *cfg, int max_obstacles, const nm_cache_rules *rules,
                                const nm_alloc *alloc, nm_diag *diag, nm_cache **out);

/* Writes the cache as a TSET file (layers in slot order, stored bytes as
 * they are). *bytes is allocated with the cache allocator; free with
 * nm_cache_free_bytes. Obstacles are not saved (as in RecastDemo). */
NM_API nm_status nm_cache_save(const nm_cache *c, void **bytes, size_t *len);
NM_API void nm_cache_free_bytes(const nm_cache *c, void *bytes, size_t len);

/* The navmesh the cache maintains (borrowed; retain it to keep it past
 * nm_cache_free). It changes on nm_cache_update; with versions
 * (nm_cache_use_versions) it is the latest version, a new one after each
 * update that changed tiles. */
NM_API nm_navmesh *nm_cache_navmesh(const nm_cache *c);
NM_API void nm_cache_get_params(const nm_cache *c, nm_cache_params *p);

/* Adds one compressed layer (a record of a TSET file: 56-byte header and a
 * FastLZ body; copied) in the next free slot and, with build = 1, builds its
 * navmesh tile now. ref (optional) gets the layer reference. On failure
 * nothing changes. ERR_DATA bad layer (with build = 1: also a body that
 * does not decode or mesh), ERR_FULL no slot or (tx, ty, tlayer) taken. */
NM_API nm_status nm_cache_add_layer(nm_cache *c, const void *data, size_t size, int build,
                                    nm_diag *diag, uint32_t *ref);

/* Summary numbers of a cache. */
typedef struct nm_cache_info {
  int layers, max_layers;       /* stored layers, slots */
  int obstacles, max_obstacles; /* obstacles in use (pending removal too), slots */
  int pending_layers;           /* layers waiting for a rebuild */
  int pending_requests;         /* obstacle requests not yet looked at */
  size_t compressed_bytes;      /* stored layer bytes (headers included) */
  size_t memory_bytes;          /* memory owned by the cache (navmesh excluded) */
} nm_cache_info;
NM_API void nm_cache_get_info(const nm_cache *c, nm_cache_info *info);

enum { NM_OBSTACLE_CYLINDER = 0, NM_OBSTACLE_BOX = 1, NM_OBSTACLE_ORIENTED_BOX = 2, NM_OBSTACLE_PRISM = 3 };

/* A temporary obstacle. Cells of the layers it covers get layer area 0 (cut
 * from the navmesh, as Detour does) or, with area 1..63, that area (the
 * polygons there get rules.poly_area/poly_flags of it: costs and filters see
 * them). Only the fields of its kind are read. */
typedef struct nm_obstacle {
  int kind;                      /* NM_OBSTACLE_* */
  float pos[3];                  /* cylinder: centre of its base [(x,y,z)] */
  float radius, height;          /* cylinder [Limit: >= 0] [Units: wu] */
  float bmin[3], bmax[3];        /* box: corners [(x,y,z)] [Limit: bmin <= bmax] */
  float center[3];               /* oriented box: centre [(x,y,z)] */
  float half_extents[3];         /* oriented box [Limit: >= 0] [Units: wu] */
  float yaw;                     /* oriented box: rotation about Y [Units: radians] */
  const float *verts;            /* prism: X/Z outline [(x,y,z) * nverts], y ignored (copied) */
  int nverts;                    /* prism [Limit: 3..64] */
  float hmin, hmax;              /* prism: vertical extent [Units: wu] */
  int area;                      /* 0 cut, 1..63 mark this layer area */
  float padding;                 /* grow this obstacle in X/Z (added to the
                                  * rules' obstacle_padding; 0 = Detour's
                                  * stamping) [Limit: >= 0] [Units: wu] */
} nm_obstacle;

/* Requests an obstacle; nothing changes until nm_cache_update. *id gets its
 * id, Detour's dtObstacleRef (salt << 16 | slot). An obstacle outside every
 * layer is accepted and touches nothing. ERR_PARAM (NaN, negative sizes, bad
 * kind or area), ERR_FULL (max_obstacles in use), ERR_NOMEM. */
NM_API nm_status nm_cache_add_obstacle(nm_cache *c, const nm_obstacle *ob, uint32_t *id);

/* Requests the removal of obstacle id. ERR_PARAM for an unknown id (or one
 * already being removed). */
NM_API nm_status nm_cache_remove_obstacle(nm_cache *c, uint32_t id);

/* Gives obstacle id a new shape (any kind; the id stays): the layers of its
 * old and new place are each rebuilt once. ERR_PARAM as add and remove. */
NM_API nm_status nm_cache_move_obstacle(nm_cache *c, uint32_t id, const nm_obstacle *ob);

/* Looks at the requests, then rebuilds at most max_tiles [Limit: >= 0; 0 =
 * all] of the pending layers, in request order. Each rebuild is atomic:
 * the old tile is replaced by the new one (new salt, so old references of
 * that tile become invalid) or, on failure, stays as it was; the failed
 * layer stays pending. *up_to_date (optional) gets 1 when nothing is left
 * to do. *rebuilt (optional) gets the layers rebuilt. ERR_NOMEM, ERR_DATA
 * (a layer cannot be meshed: more than 255 regions or a degenerate outline). */
NM_API nm_status nm_cache_update(nm_cache *c, int max_tiles, int *up_to_date, int *rebuilt);

/* Rebuilds the navmesh tiles of every layer at grid cell (tx, ty) now. */
NM_API nm_status nm_cache_build_tiles_at(nm_cache *c, int tx, int ty);

/* nm_cache_build on a worker thread (a build job: poll it with
 * nm_cache_build_job_poll; nm_build_job_progress, _cancel and _free work as
 * for nm_build_job_start). The inputs are copied with alloc on the calling
 * thread; the cache is built in cache_alloc's memory and stays there (it
 * must be thread-safe; NULL: the system allocator). tile_size must be
 * 1..255. ERR_PARAM (diag), ERR_EMPTY (no triangles), ERR_NOMEM. */
NM_API nm_status nm_cache_build_job_start(const float *verts, int nverts, const int *tris, int ntris,
                                          const nm_build_config *cfg, int max_obstacles,
                                          const nm_cache_rules *rules, const nm_alloc *alloc,
                                          const nm_alloc *cache_alloc, nm_diag *diag, nm_build_job **out);

/* Never blocks: NM_UNFINISHED while the build runs, then NM_OK with *out
 * the cache (owned by the caller; handed over once, later polls give
 * ERR_STATE), or what nm_cache_build returned (diag), or ERR_CANCELLED.
 * ERR_PARAM for a job that does not build a cache. */
NM_API nm_status nm_cache_build_job_poll(nm_build_job *job, nm_cache **out, nm_diag *diag);

/* States of an obstacle (nm_cache_get_obstacle). */
enum { NM_OBSTACLE_PENDING = 0, NM_OBSTACLE_PLACED = 1, NM_OBSTACLE_REMOVING = 2 };

/* The ids of the obstacles in use (those being removed too), in slot
 * order, into ids [cap] (may be NULL with cap 0); returns their number,
 * which may be more than cap (the first cap are written). */
NM_API int nm_cache_obstacle_ids(const nm_cache *c, uint32_t *ids, int cap);

/* The shape of obstacle id as last given (ob->verts of a prism points into
 * the cache: valid until the obstacle is moved or removed) and its state
 * (optional): NM_OBSTACLE_PENDING (added or moved, not yet in every layer
 * it touches), NM_OBSTACLE_PLACED, NM_OBSTACLE_REMOVING (removal requested,
 * not yet done). ERR_PARAM for an unknown id. */
NM_API nm_status nm_cache_get_obstacle(const nm_cache *c, uint32_t id, nm_obstacle *ob, int *state);

/* Publishes the cache's navmesh as versions (see nm_navmesh_version_*):
 * from now on nm_cache_navmesh returns the latest version (frozen, in memory
 * from alloc, which must be thread-safe; NULL: the system allocator), and
 * each nm_cache_update, nm_cache_build_tiles_at or nm_cache_add_layer that
 * changes tiles makes the changes in a draft of it and publishes the draft
 * as the next version, at a cost in the changed tiles and their neighbours
 * (unchanged tiles are shared, never copied). Readers on other threads
 * retain a version, query it, and move to the latest with
 * nm_navmesh_version_latest + nm_query_set_mesh; the cache keeps one
 * reference to the latest version only. The first call copies the navmesh
 * (O(mesh)); later calls do nothing. ERR_NOMEM (nothing changed). An
 * update that cannot open its draft (ERR_NOMEM) rebuilds nothing; one that
 * fails part way publishes the layers it rebuilt. */
NM_API nm_status nm_cache_use_versions(nm_cache *c, const nm_alloc *alloc);

/* ---- queries ---------------------------------------------------------------- */

typedef struct nm_query nm_query;

/* Makes query scratch space over a mesh (retained). max_nodes sizes the A*
 * node pool [Limit: 1 .. 1<<22]. */
NM_API nm_status nm_query_new(nm_navmesh *mesh, int max_nodes, const nm_alloc *alloc,
                              nm_query **out);
NM_API void nm_query_free(nm_query *q);
NM_API nm_navmesh *nm_query_mesh(const nm_query *q);
/* Moves the query onto another mesh (retained; the old one is released),
 * keeping its node pool: how a reader moves to the latest version
 * (nm_navmesh_version_latest). Ends a sliced search and forgets what was
 * made for the old mesh (random-point and optimal-search tables, remade on
 * first use). ERR_PARAM for NULLs. */
NM_API nm_status nm_query_set_mesh(nm_query *q, nm_navmesh *mesh);

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

/* ---- one whole path: nm_query_path ---- */

/* What nm_query_path is asked besides the two points (nm_path_opts_init
 * sets the defaults). */
typedef struct nm_path_opts {
  float half_ext[3];          /* box for the nearest polygon of each end (default 2, 4, 2) */
  const nm_filter *filter;    /* NULL: nm_filter_init's defaults */
  nm_straight_opts straight;  /* crossings and inset of the straight path (default none, 0) */
  int max_points;             /* at most this many points [Limit: >= 1] (default 1 << 24) */
  int optimal;                /* the shortest corridor (nm_query_find_path_optimal), points
                                 on the detail surface; else A* (nm_query_find_path) */
  int reachable_only;         /* ends on different islands: ERR_NO_PATH before any search */
} nm_path_opts;
NM_API void nm_path_opts_init(nm_path_opts *o);

/* A path and the buffers it lives in: nm_query_path grows them with `alloc`
 * and keeps them between calls (nm_path_free frees them). */
typedef struct nm_path {
  float *points;              /* (x,y,z) * npoints: start, the corners, end */
  int npoints;
  nm_polyref *corridor;       /* the polygons the path crosses, start first; ncorridor is 0
                                 when an optimal path came without a corridor */
  int ncorridor;
  nm_polyref start_ref, end_ref; /* the polygons nearest to the two ends */
  float start[3], end[3];     /* the ends on those polygons */
  int failed_end;             /* with NM_ERR_NO_POLY: 0 no polygon near start, 1 near end */
  /* buffers */
  nm_alloc alloc;
  int corridor_cap, points_cap;
  uint8_t *flags;             /* [points_cap] straight-path flags (scratch) */
  nm_polyref *refs;           /* [points_cap] polygon of each point (scratch) */
} nm_path;
NM_API void nm_path_init(nm_path *p, const nm_alloc *alloc);
NM_API void nm_path_free(nm_path *p);
/* Grows the buffers to hold at least `corridor` polygons and `points`
 * points (with flags and refs), for callers that fill them with the
 * step-by-step functions. ERR_NOMEM (buffers unchanged), ERR_PARAM. */
NM_API nm_status nm_path_reserve(nm_path *p, int corridor, int points);

/* The whole path query in one call: the polygon nearest to each end
 * (within half_ext), the corridor between them (A* with a node pool of the
 * query's max_nodes, or the optimal search), the closest point to the end on
 * the corridor's last polygon when the end was not reached, then the
 * straight path (or, optimal with no inset and no crossings, the optimal
 * search's own points). Returns NM_OK or the corridor's NM_PARTIAL /
 * NM_FALLBACK / NM_OUT_OF_NODES bits, | NM_TRUNCATED when a limit cut the
 * path (the corridor at the node pool's size, the points at max_points). Failures: ERR_NO_POLY (failed_end says which end), ERR_NO_PATH
 * (no corridor, or reachable_only and different islands), ERR_NOMEM,
 * ERR_PARAM (NULLs, max_points < 1). */
NM_API nm_status nm_query_path(nm_query *q, const float start[3], const float end[3],
                               const nm_path_opts *opts, nm_path *out);

/* ---- seeing the mesh: data for pictures, viewers and other tools ---- */

/* The node pool of the last search that used it (find_path, the sliced
 * search, polys_around_*, distance_to_wall, random_point_around; the
 * optimal searches keep their own memory and leave it alone), as Detour's
 * getNodePool shows it: node i [0 .. nm_query_node_count) is a polygon
 * reached at pos [(x,y,z)] with its cost from the start, its total
 * (cost + heuristic), the index of the node it was reached from (-1 for
 * the start) and whether it was expanded (closed). ERR_PARAM for i out of
 * range. */
typedef struct nm_node_info {
  nm_polyref ref;
  float pos[3];
  float cost, total;
  int parent;
  int closed;
} nm_node_info;
NM_API int nm_query_node_count(const nm_query *q);
NM_API nm_status nm_query_get_node(const nm_query *q, int i, nm_node_info *out);

/* The detail triangles of polygon ref (the surface the height queries use):
 * tris [9 * cap] gets (x,y,z) * 3 per triangle, *count their number. A
 * polygon stored without detail triangles gives the fan of its outline; an
 * off-mesh connection has none. NM_MAX_DETAIL_TRIS always suffices.
 * NM_TRUNCATED when cap was too small, ERR_PARAM for an invalid ref. */
#define NM_MAX_DETAIL_TRIS 255
NM_API nm_status nm_navmesh_get_poly_detail(const nm_navmesh *mesh, nm_polyref ref, float *tris,
                                            int cap, int *count);

/* Wavefront OBJ text of the mesh: per tile a group ("g tile_x_y_layer"),
 * its vertices, then one face per polygon (detail 0) or per detail triangle
 * (detail 1), with normals up (+Y) by the right-hand rule; off-mesh connections as
 * "l" lines. With use_box only the polygons whose bounds overlap
 * bmin..bmax [(x,y,z)] (infinite bounds allowed, NaN is ERR_PARAM).
 * opts NULL: every polygon's outline. *text (not NUL-terminated) is
 * allocated with the mesh allocator; free it with nm_free_bytes. */
typedef struct nm_obj_opts {
  int detail;
  int use_box;
  float bmin[3], bmax[3];
} nm_obj_opts;
NM_API nm_status nm_navmesh_to_obj(const nm_navmesh *mesh, const nm_obj_opts *opts, void **text,
                                   size_t *len);

/* A top-down picture's worth of the mesh in flat arrays: the tiles, the
 * polygons (ground polygons and off-mesh connections, their vertices at
 * verts[3 * first ...]), the walls (boundary parts without a neighbour the
 * default filter lets through, (ax,ay,az,bx,by,bz) each) and the off-mesh
 * connections. nm_debug_scene_make takes all of it, or with bmin/bmax
 * [(x,y,z)] (both or neither) the tiles and polygons whose bounds overlap
 * that box. Island labels are made first when tiles changed (as
 * nm_navmesh_island_count). Arrays come from the mesh allocator; free them
 * with nm_debug_scene_free. ERR_PARAM (NaN bounds), ERR_NOMEM (nothing is
 * left allocated). */
typedef struct nm_debug_tile {
  int x, y, layer;
  float bmin[3], bmax[3];
} nm_debug_tile;
typedef struct nm_debug_poly {
  nm_polyref ref;
  uint32_t island;     /* 0 when the labels could not be made */
  uint32_t first;      /* index of its first vertex in verts */
  int tile;            /* index into tiles */
  uint16_t flags;
  uint8_t area;
  uint8_t nverts;      /* 2 for an off-mesh connection: start, end */
  uint8_t offmesh;
} nm_debug_poly;
typedef struct nm_debug_link {
  nm_polyref ref;
  float start[3], end[3];
  float radius;        /* end point snapping radius [Units: wu] */
  int bidirectional;
} nm_debug_link;
typedef struct nm_debug_scene {
  nm_debug_tile *tiles;
  nm_debug_poly *polys;
  float *verts;
  float *walls;
  nm_debug_link *links;
  int ntiles, npolys, nverts, nwalls, nlinks;
} nm_debug_scene;
NM_API nm_status nm_debug_scene_make(nm_navmesh *mesh, const float *bmin, const float *bmax,
                                     nm_debug_scene *out);
NM_API void nm_debug_scene_free(const nm_navmesh *mesh, nm_debug_scene *s);

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
 * calls give the same positions bit for bit, whatever config.threads. Not
 * thread-safe (one thread at a time calls a crowd's functions); the mesh must
 * not change during nm_crowd_update. With threads > 1 the update runs its
 * per-agent phases on worker threads too, calling the allocator from them
 * one at a time (under a lock), so it need not be thread-safe. */

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
  int threads;             /* threads an update uses for its per-agent phases
                            * (the caller's and threads - 1 workers started
                            * with the crowd) [Limit: 1 .. 64] (1). The
                            * positions do not depend on it, bit for bit. */
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
/* Moves the crowd onto another version of its navmesh (retained; the old
 * one is released): the latest version of a lineage (nm_navmesh_version_*,
 * a tile cache publishing versions), so that agents see its changes.
 * Polygon refs must keep their meaning across the two (refs of unchanged
 * tiles equal, changed tiles with new salts), as versions of one mesh do.
 * Agents keep their corridors while their polygons are valid; path
 * searches in progress start again. ERR_PARAM for NULLs. */
NM_API nm_status nm_crowd_set_navmesh(nm_crowd *crowd, nm_navmesh *mesh);

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
/* Reads an agent's parameters; params->filter points at the agent's copy
 * of its filter (valid until its parameters change or it is removed).
 * ERR_PARAM for an unknown or removed id. */
NM_API nm_status nm_crowd_get_agent_params(const nm_crowd *crowd, int id,
                                           nm_crowd_agent_params *params);

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
