/* nm_mesh.h -- the runtime navmesh: tile data layout, tiles, references.
 *
 * Tile data is kept in Detour's version-7 blob layout (documented byte by byte
 * in shared/docs/detour-tile-format.md): a tile is one aligned allocation and
 * the structures below point into it. Polygon references are formed exactly as
 * Detour forms them: salt | tile slot | polygon index, with the bit widths
 * derived from max_tiles and max_polys. */
#ifndef NM_MESH_H
#define NM_MESH_H

#include "../core/nm_core.h"
#include "../core/nm_math.h"

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_ATOMICS__)
#  include <stdatomic.h>
#  define NM_HAVE_STDATOMIC 1
#endif

#define NM_TILE_MAGIC (('D' << 24) | ('N' << 16) | ('A' << 8) | 'V')
#define NM_TILE_VERSION 7
#define NM_EXT_LINK 0x8000u
#define NM_NULL_LINK 0xffffffffu
#define NM_OFFMESH_BIDIR 1
#define NM_POLYTYPE_GROUND 0
#define NM_POLYTYPE_OFFMESH 1
#define NM_DETAIL_EDGE_BOUNDARY 1
#define NM_MAX_TILE_COORD (1 << 28) /* |x|, |y|, layer bound: keeps x+-1 in range */
/* Bound on stored world coordinates (vertices, bounds, off-mesh points) and
 * sizes: differences and squared distances of such values stay finite in
 * single precision, so geometry on valid data never makes inf or NaN.
 * Float spacing at 1e12 is 65536 wu: no usable navmesh comes near it. */
#define NM_MAX_COORD 1.0e12f

/* ---- the blob layout (little-endian, naturally aligned) ---- */

typedef struct nm_tile_header {
  int32_t magic, version, x, y, layer;
  uint32_t user_id;
  int32_t poly_count, vert_count, max_link_count;
  int32_t detail_mesh_count, detail_vert_count, detail_tri_count;
  int32_t bv_node_count, offmesh_con_count, offmesh_base;
  float walkable_height, walkable_radius, walkable_climb;
  float bmin[3], bmax[3];
  float bv_quant_factor;
} nm_tile_header;

typedef struct nm_poly {
  uint32_t first_link;              /* head of this polygon's link list */
  uint16_t verts[NM_MAX_VERTS_PER_POLY];
  uint16_t neis[NM_MAX_VERTS_PER_POLY]; /* 0 wall, i+1 internal, 0x8000|side portal */
  uint16_t flags;
  uint8_t vert_count;
  uint8_t area_and_type;            /* area in the low 6 bits, type in the top 2 */
} nm_poly;

typedef struct nm_link {
  nm_polyref ref;   /* neighbour polygon */
  uint32_t next;    /* next link of the same polygon, NM_NULL_LINK ends */
  uint8_t edge;     /* edge of this polygon the link crosses */
  uint8_t side;     /* 0..7 other tile's side, 0xff inside the tile */
  uint8_t bmin, bmax; /* usable part of the edge (border links), 0..255 */
} nm_link;

typedef struct nm_poly_detail {
  uint32_t vert_base, tri_base;
  uint8_t vert_count, tri_count;
  uint8_t pad[2];
} nm_poly_detail;

typedef struct nm_bvnode {
  uint16_t bmin[3], bmax[3];
  int32_t i;        /* >= 0 leaf (polygon index), < 0 escape offset */
} nm_bvnode;

typedef struct nm_offmesh_con {
  float pos[6];
  float rad;
  uint16_t poly;
  uint8_t flags;
  uint8_t side;
  uint32_t user_id;
} nm_offmesh_con;

/* A stored coordinate or size: finite and within +-NM_MAX_COORD (NaN fails). */
static inline int nm_coord_ok(float v) { return fabsf(v) <= NM_MAX_COORD; }
static inline int nm_coords_ok(const float *v, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (!nm_coord_ok(v[i])) return 0;
  return 1;
}

static inline int nm_poly_area(const nm_poly *p) { return p->area_and_type & 0x3f; }
static inline int nm_poly_type(const nm_poly *p) { return p->area_and_type >> 6; }

/* ---- tiles and the mesh ---- */

enum { NM_TILE_OWNS_DATA = 1 };

typedef struct nm_tile {
  uint32_t salt;
  uint32_t links_free;       /* head of the free link chain */
  nm_tile_header *header;    /* NULL: slot empty */
  float *verts;
  nm_poly *polys;
  nm_link *links;
  nm_poly_detail *dmeshes;
  float *dverts;
  uint8_t *dtris;
  nm_bvnode *bvtree;         /* NULL when the tile has no tree */
  nm_offmesh_con *offmesh;
  uint8_t *data;
  size_t data_size;
  uint32_t flags;
  uint32_t touched;          /* slot has been used (free-slot bookkeeping) */
  uint32_t birth;            /* versions: number of the draft that made the blob */
  uint32_t next;             /* 1 + slot of the next tile in the position-hash
                              * chain (used) or the free stack (removed); 0 ends.
                              * Slot numbers, not pointers, so a copied slot
                              * table needs no fixing (versions) */
} nm_tile;

typedef struct nm_refcount {
#if defined(NM_HAVE_STDATOMIC)
  _Atomic long n;
#else
  long n;
#endif
} nm_refcount;

struct nm_navmesh {
  nm_alloc alloc;
  nm_refcount refs;
  float orig[3];
  float tile_width, tile_height;
  int max_tiles, max_polys;
  uint32_t tile_bits, poly_bits, salt_bits;
  uint32_t tile_mask, poly_mask, salt_mask;
  uint32_t lut_mask;
  uint32_t *pos_lookup;      /* [lut_mask + 1] 1 + first slot of each chain of
                              * tiles by grid cell, 0 empty */
  nm_tile *tiles;            /* [max_tiles] slots */
  uint32_t free_stack;       /* 1 + most recently removed slot, 0 none */
  int hwm;                   /* slots below hwm have been handed out once */
  int top;                   /* 1 + highest slot ever used (iteration bound) */
  int ntiles;
  int gx0, gy0, gx1, gy1;    /* grid cells ever holding a tile (bounds loops) */
  int frozen;
  uint32_t generation;       /* bumped on every tile change */
  void *mapping;             /* file mapping the tiles point into (read-only mesh) */
  size_t mapping_len;
  struct nm_islands *islands; /* island labels (islands.c); read and set with
                              * atomics on versions, whose readers make them */
  int islands_dirty;         /* tiles changed since the labels were made */
  /* ---- versions (version.c); zero for every other mesh ---- */
  struct nm_lineage *lineage;/* bookkeeping shared by all versions of a mesh */
  uint32_t version;          /* number in the lineage (a draft: its future one) */
  int committed;             /* 1: a published version (frozen, listed as live) */
  nm_navmesh *base;          /* draft: the version it was made from (retained) */
  struct nm_retired *replaced; /* draft: shared blobs it stopped using */
  nm_navmesh *vprev, *vnext; /* the lineage's live versions, oldest first */
};

/* ---- references ---- */

static inline nm_polyref nm_ref_encode(const nm_navmesh *m, uint32_t salt, uint32_t it, uint32_t ip) {
  return (salt << (m->poly_bits + m->tile_bits)) | (it << m->poly_bits) | ip;
}
static inline uint32_t nm_ref_salt(const nm_navmesh *m, nm_polyref r) {
  return (r >> (m->poly_bits + m->tile_bits)) & m->salt_mask;
}
static inline uint32_t nm_ref_tile(const nm_navmesh *m, nm_polyref r) {
  return (r >> m->poly_bits) & m->tile_mask;
}
static inline uint32_t nm_ref_poly(const nm_navmesh *m, nm_polyref r) { return r & m->poly_mask; }
static inline nm_polyref nm_tile_base(const nm_navmesh *m, const nm_tile *t) {
  return nm_ref_encode(m, t->salt, (uint32_t)(t - m->tiles), 0);
}

/* Tile and polygon of a ref that is known to be valid (refs from links). */
static inline void nm_ref_unsafe(const nm_navmesh *m, nm_polyref r, const nm_tile **t,
                                 const nm_poly **p) {
  const nm_tile *tile = &m->tiles[nm_ref_tile(m, r)];
  *t = tile;
  *p = &tile->polys[nm_ref_poly(m, r)];
}

/* Tile and polygon of any ref; 0 when the ref is not valid. */
static inline int nm_ref_get(const nm_navmesh *m, nm_polyref r, const nm_tile **t,
                             const nm_poly **p) {
  uint32_t it, ip;
  const nm_tile *tile;
  if (!r) return 0;
  it = nm_ref_tile(m, r);
  ip = nm_ref_poly(m, r);
  if (it >= (uint32_t)m->max_tiles) return 0;
  tile = &m->tiles[it];
  if (!tile->header || tile->salt != nm_ref_salt(m, r) || ip >= (uint32_t)tile->header->poly_count)
    return 0;
  *t = tile;
  *p = &tile->polys[ip];
  return 1;
}

/* ---- cross-file functions ---- */

/* tile.c: checks every count, offset and index of a blob; fills the tile's
 * section pointers (data must be 4-byte aligned and stay alive). */
NM_INTERNAL nm_status nm_tile_validate(uint8_t *data, size_t size, nm_diag *diag);
NM_INTERNAL void nm_tile_bind(nm_tile *tile, uint8_t *data, size_t size);

/* navmesh.c */
NM_INTERNAL int nm_navmesh_tiles_at(const nm_navmesh *m, int x, int y, const nm_tile **out, int cap);
NM_INTERNAL const nm_tile *nm_navmesh_tile_at(const nm_navmesh *m, int x, int y, int layer);
/* Calls fn for every tile in grid cells x0..x1, y0..y1: cell by cell in
 * Detour's order (Z outer, X inner) when the range is small, by slot when
 * it spans far more cells than there are tiles (a huge box over a sparse
 * grid would otherwise walk up to 2^58 empty cells; only the order among
 * equal candidates can differ, and Detour itself would not finish). */
NM_INTERNAL void nm_navmesh_visit_tiles(const nm_navmesh *m, int x0, int y0, int x1, int y1,
                                        void (*fn)(void *ud, const nm_tile *t), void *ud);
NM_INTERNAL nm_status nm_navmesh_add_tile_at(nm_navmesh *m, const void *data, size_t size,
                                             nm_polyref want_ref, nm_diag *diag,
                                             nm_polyref *ref_out);
NM_INTERNAL nm_status nm_navmesh_params_check(const nm_navmesh_params *p, nm_diag *diag);
/* Puts a blob (validated here) into a slot without making links; the tile
 * points into data (owned by the mesh when flags has NM_TILE_OWNS_DATA). */
NM_INTERNAL nm_status nm_navmesh_place_tile(nm_navmesh *m, uint8_t *data, size_t size, nm_polyref want_ref,
                                            uint32_t flags, nm_diag *diag, nm_tile **out);
/* For the tile cache: adds a blob (allocated with the mesh allocator) that
 * the mesh takes over; on failure the caller still owns it. */
NM_INTERNAL nm_status nm_navmesh_add_tile_owned(nm_navmesh *m, uint8_t *data, size_t size, nm_diag *diag,
                                                nm_polyref *ref_out);
/* For the tile cache: replaces the tile at (tx, ty, layer) by data (a blob
 * for that place allocated with the mesh allocator, size bytes, taken over
 * by the mesh; NULL: just removes the tile), all or nothing: on failure
 * nothing changed and the caller still owns data. In a draft of a version
 * the neighbours whose links change are made private first and the blob is
 * moved into a block with room for its retirement record. */
NM_INTERNAL nm_status nm_navmesh_swap_tile_owned(nm_navmesh *m, int tx, int ty, int layer, uint8_t *data,
                                                 size_t size, nm_diag *diag);
/* islands.c: connected components over the links (labels 1..n). The
 * labels are one block: the index of each slot's polygon 0, then a label
 * per polygon, so making them writes nothing in the tiles (readers of a
 * version make them for everyone, see nm_navmesh_island). */
typedef struct nm_islands {
  size_t bytes;              /* size of the block */
  int count;                 /* islands */
  int nslots;                /* entries of base (the mesh's top) */
  uint32_t *base;            /* [nslots] label index of each slot's polygon 0 */
  uint32_t *label;           /* [polygons] */
} nm_islands;
NM_INTERNAL nm_status nm_islands_update(nm_navmesh *m);
NM_INTERNAL void nm_islands_free(nm_navmesh *m);
/* Island label of polygon ref as the labels stand (never remade here, so a
 * reader of a shared mesh writes nothing); 0 when they are out of date or
 * ref is invalid. */
NM_INTERNAL uint32_t nm_island_label(const nm_navmesh *m, nm_polyref ref);

/* format.c: our own format from bytes; in_place: tiles point into b. */
NM_INTERNAL nm_status nm_format_load_own(const uint8_t *b, size_t len, int in_place, const nm_alloc *alloc,
                                         nm_diag *diag, nm_navmesh **out);
/* The checksum of our own format (bytes 52..59 of the header hold the
 * checksum of everything after the 64-byte header). Fuzz targets use it to
 * repair mutated files so that they reach the validation behind it. */
NM_INTERNAL uint64_t nm_format_checksum(const uint8_t *p, size_t n);
/* mapfile.c: read-only file mappings. */
NM_INTERNAL void nm_unmap(void *base, size_t len);

/* navmesh.c: frees a mesh: its arrays, labels and mapping, and the blobs
 * it owns (NM_FREE_OWN_BLOBS) or none. */
enum { NM_FREE_NO_BLOBS = 0, NM_FREE_OWN_BLOBS = 1 };
NM_INTERNAL void nm_mesh_destroy(nm_navmesh *m, int blobs);

/* ---- versions (version.c) ----
 * A version is a frozen mesh whose tile blobs may be shared with other
 * versions of the same lineage. A draft (nm_navmesh_version_edit) copies the
 * slot table of the latest version and shares its blobs; a blob is copied
 * before the draft writes to it (copy-on-write), the draft then owns the copy
 * (t->birth == its number) and the shared one is "replaced": at commit it is
 * retired, and freed once no live version numbered in [birth, death) is
 * left. Every blob of a lineage is allocated with room after it for the
 * record that retires it, so retiring never allocates. */
typedef struct nm_retired {
  struct nm_retired *next;
  uint8_t *data;             /* the blob (this record lies inside its block) */
  size_t bytes;              /* the block's size */
  uint32_t birth, death;     /* versions [birth, death) use it */
} nm_retired;

/* Tiles made private by one change, with what they held before. */
#define NM_COW_MAX (9 * 32)
typedef struct nm_cow {
  int n;
  struct { nm_tile *t; uint8_t *data; size_t size; uint32_t birth; } e[NM_COW_MAX];
} nm_cow;

/* Bytes allocated for a blob of `size` bytes in mesh m. */
static inline size_t nm_blob_bytes(const nm_navmesh *m, size_t size) {
  return m->lineage ? ((size + 7) & ~(size_t)7) + sizeof(nm_retired) : size;
}
/* 1 when freeing mesh m frees tile t's blob. */
static inline int nm_tile_owned(const nm_navmesh *m, const nm_tile *t) {
  if (m->lineage) return !m->committed && t->birth == m->version;
  return (t->flags & NM_TILE_OWNS_DATA) != 0;
}
/* Makes tile t private to draft m (a copy of its blob), remembering the old
 * blob in c; no-op for other meshes and private tiles. ERR_NOMEM. */
NM_INTERNAL nm_status nm_cow_tile(nm_navmesh *m, nm_tile *t, nm_cow *c);
/* Puts the old blobs back and frees the copies. */
NM_INTERNAL void nm_cow_undo(nm_navmesh *m, nm_cow *c);
/* Keeps the copies: the old blobs become "replaced" by the draft. */
NM_INTERNAL void nm_cow_keep(nm_navmesh *m, nm_cow *c);
/* Notes a shared blob the draft no longer uses (retired at commit). */
NM_INTERNAL void nm_version_replaced(nm_navmesh *m, uint8_t *data, size_t size, uint32_t birth);
/* The release of a version or draft whose count reached zero. */
NM_INTERNAL void nm_version_gone(nm_navmesh *m);
/* A lineage with one writer: once set (right after nm_navmesh_version_new,
 * before any reader sees it), nm_navmesh_version_edit refuses drafts
 * (ERR_READONLY) and only nm_version_edit_as with the same owner makes
 * them. A tile cache publishing versions owns its lineage. */
NM_INTERNAL void nm_version_set_owner(nm_navmesh *v, const void *owner);
NM_INTERNAL nm_status nm_version_edit_as(nm_navmesh *v, const void *owner, nm_navmesh **out);

/* links.c: link building when tiles come and go (Detour's order). */
NM_INTERNAL void nm_links_init(nm_tile *t);
NM_INTERNAL void nm_links_connect_internal(nm_navmesh *m, nm_tile *t);
NM_INTERNAL void nm_links_base_offmesh(nm_navmesh *m, nm_tile *t);
NM_INTERNAL void nm_links_connect_external(nm_navmesh *m, nm_tile *t, nm_tile *target, int side);
NM_INTERNAL void nm_links_connect_offmesh(nm_navmesh *m, nm_tile *t, nm_tile *target, int side);
NM_INTERNAL void nm_links_unconnect(nm_navmesh *m, nm_tile *t, const nm_tile *target);
/* Which tiles adding or removing a tile writes to (see links.c). */
NM_INTERNAL int nm_side_towards(int dx, int dy);
NM_INTERNAL uint32_t nm_links_side_mask(const nm_tile *t);
NM_INTERNAL int nm_links_may_touch(uint32_t omask, uint32_t tmask, int side);
NM_INTERNAL int nm_links_to_slot(const nm_navmesh *m, const nm_tile *o, uint32_t slot);
/* Checks the stored links of every tile (each list ends, targets exist,
 * edges fit) instead of rebuilding them; rebuilds the free chains when the
 * data is writable. scratch: one byte per link slot of the largest tile. */
NM_INTERNAL nm_status nm_links_check_all(nm_navmesh *m, int writable, nm_diag *diag);

/* Poly-height and closest-point primitives used by links and queries
 * (geom.c). */
NM_INTERNAL int nm_poly_height(const nm_tile *t, const nm_poly *p, const float *pos, float *height);
/* Height of the detail surface of ground polygon p at pos, which lies over
 * p (nm_poly_height without the test). */
NM_INTERNAL float nm_detail_height(const nm_tile *t, const nm_poly *p, const float *pos);
NM_INTERNAL void nm_closest_point_on_poly(const nm_navmesh *m, nm_polyref ref, const float *pos,
                                          float *closest, int *over);
NM_INTERNAL nm_polyref nm_find_nearest_in_tile(const nm_navmesh *m, const nm_tile *t,
                                               const float *center, const float *half_ext,
                                               float *nearest);

/* Atomic reference counting. */
static inline void nm_refcount_init(nm_refcount *r, long n) { r->n = n; }
/* Increments unless the count is zero (an object being freed); 1 if done. */
static inline int nm_refcount_try_inc(nm_refcount *r) {
#if defined(NM_HAVE_STDATOMIC)
  long n = atomic_load_explicit(&r->n, memory_order_relaxed);
  while (n > 0)
    if (atomic_compare_exchange_weak_explicit(&r->n, &n, n + 1, memory_order_acquire, memory_order_relaxed)) return 1;
#else
  long n = __atomic_load_n(&r->n, __ATOMIC_RELAXED);
  while (n > 0)
    if (__atomic_compare_exchange_n(&r->n, &n, n + 1, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 1;
#endif
  return 0;
}
static inline void nm_refcount_inc(nm_refcount *r) {
#if defined(NM_HAVE_STDATOMIC)
  atomic_fetch_add_explicit(&r->n, 1, memory_order_relaxed);
#else
  __atomic_fetch_add(&r->n, 1, __ATOMIC_RELAXED);
#endif
}
/* Returns the count after the decrement. */
static inline long nm_refcount_dec(nm_refcount *r) {
#if defined(NM_HAVE_STDATOMIC)
  return atomic_fetch_sub_explicit(&r->n, 1, memory_order_acq_rel) - 1;
#else
  return __atomic_sub_fetch(&r->n, 1, __ATOMIC_ACQ_REL);
#endif
}


/* ---- polygons of a tile overlapping a box ----
 * Walks the tile's BV tree exactly as Detour does (quantised box, low bit
 * cleared on the minimum and set on the maximum, the walk running over all
 * bv_node_count slots), so candidate sets and their order equal Detour's.
 * Tiles without a tree test every ground polygon's vertex bounds. */
typedef struct nm_box_iter {
  const nm_tile *t;
  int k, end;
  uint16_t bmin[3], bmax[3];
  const float *qmin, *qmax;
} nm_box_iter;

/* Float to quantised u16 with Detour's truncation, safe for any input. */
static inline uint16_t nm_quant(float v) {
  if (!(v > 0.0f)) return 0;
  if (v >= 65535.0f) return 65535;
  return (uint16_t)v;
}

static inline void nm_box_begin(nm_box_iter *it, const nm_tile *t, const float *qmin, const float *qmax) {
  const nm_tile_header *h = t->header;
  it->t = t;
  it->k = 0;
  it->qmin = qmin;
  it->qmax = qmax;
  if (t->bvtree) {
    const float *tb = h->bmin, *tx = h->bmax, q = h->bv_quant_factor;
    int i;
    it->end = h->bv_node_count;
    for (i = 0; i < 3; i++) {
      float mn = nm_clampf(qmin[i], tb[i], tx[i]) - tb[i];
      float mx = nm_clampf(qmax[i], tb[i], tx[i]) - tb[i];
      it->bmin[i] = (uint16_t)(nm_quant(q * mn) & 0xfffe);
      it->bmax[i] = (uint16_t)(nm_quant(q * mx + 1) | 1);
    }
  } else {
    it->end = h->poly_count;
  }
}

/* Next overlapping polygon index, or -1 at the end. */
static inline int nm_box_next(nm_box_iter *it) {
  const nm_tile *t = it->t;
  if (t->bvtree) {
    while (it->k < it->end) {
      const nm_bvnode *n = &t->bvtree[it->k];
      const int overlap = !(it->bmin[0] > n->bmax[0] || it->bmax[0] < n->bmin[0] ||
                            it->bmin[1] > n->bmax[1] || it->bmax[1] < n->bmin[1] ||
                            it->bmin[2] > n->bmax[2] || it->bmax[2] < n->bmin[2]);
      const int leaf = n->i >= 0;
      it->k += (overlap || leaf) ? 1 : -n->i;
      if (leaf && overlap) return n->i;
    }
    return -1;
  }
  while (it->k < it->end) {
    const int i = it->k++;
    const nm_poly *p = &t->polys[i];
    float bmin[3], bmax[3];
    int j;
    if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) continue;
    nm_vcopy(bmin, &t->verts[p->verts[0] * 3]);
    nm_vcopy(bmax, bmin);
    for (j = 1; j < p->vert_count; j++) {
      nm_vmin(bmin, &t->verts[p->verts[j] * 3]);
      nm_vmax(bmax, &t->verts[p->verts[j] * 3]);
    }
    if (nm_overlap_bounds(it->qmin, it->qmax, bmin, bmax)) return i;
  }
  return -1;
}

#endif
