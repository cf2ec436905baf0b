/* navmesh.c -- the tile grid: slots, salts, the position hash, adding and
 * removing tiles, reference counting.
 *
 * Slots are handed out as Detour hands them out (lowest never-used slot
 * first, a removed slot is reused before any other) so polygon references of
 * a mesh built or loaded here equal Detour's. The free list is kept as a
 * stack of removed slots plus a high-water mark, which needs no per-slot
 * initialisation: a mesh with a million slots costs nothing until used. */
#include <math.h>
#include "nm_mesh.h"

/* Hash of a tile grid cell (large odd multipliers mix x and y). */
static uint32_t tile_hash(int x, int y, uint32_t mask) {
  const uint32_t h1 = 0x8da6b343u, h2 = 0xd8163841u;
  return (h1 * (uint32_t)x + h2 * (uint32_t)y) & mask;
}

nm_status nm_navmesh_params_check(const nm_navmesh_params *p, nm_diag *diag) {
  uint32_t tb, pb;
  if (!p) return nm_diag_set(diag, NM_ERR_PARAM, "params", "missing parameters");
  if (!nm_isfinite3(p->orig))
    return nm_diag_set(diag, NM_ERR_PARAM, "origin", "origin must be finite");
  if (!(isfinite(p->tile_width) && p->tile_width > 0))
    return nm_diag_set(diag, NM_ERR_PARAM, "tileWidth", "tileWidth must be > 0 (got %g)", (double)p->tile_width);
  if (!(isfinite(p->tile_height) && p->tile_height > 0))
    return nm_diag_set(diag, NM_ERR_PARAM, "tileHeight", "tileHeight must be > 0 (got %g)", (double)p->tile_height);
  if (p->max_tiles < 1 || p->max_tiles > (1 << 22))
    return nm_diag_set(diag, NM_ERR_PARAM, "maxTiles", "maxTiles must be in 1..4194304 (got %d)", p->max_tiles);
  if (p->max_polys < 1 || p->max_polys > (1 << 22))
    return nm_diag_set(diag, NM_ERR_PARAM, "maxPolys", "maxPolys must be in 1..4194304 (got %d)", p->max_polys);
  tb = nm_ilog2(nm_next_pow2((uint32_t)p->max_tiles));
  pb = nm_ilog2(nm_next_pow2((uint32_t)p->max_polys));
  if (tb + pb > 22)
    return nm_diag_set(diag, NM_ERR_PARAM, "maxPolys",
                       "maxTiles * maxPolys too large for 32-bit references (tile+poly bits %u > 22)",
                       (unsigned)(tb + pb));
  return NM_OK;
}

nm_status nm_navmesh_new(const nm_navmesh_params *p, const nm_alloc *alloc, nm_diag *diag,
                         nm_navmesh **out) {
  nm_alloc a = nm_alloc_resolve(alloc);
  nm_navmesh *m;
  nm_status st;
  *out = NULL;
  if ((st = nm_navmesh_params_check(p, diag)) < 0) return st;
  m = (nm_navmesh *)nm_calloc(&a, sizeof *m);
  if (!m) return NM_ERR_NOMEM;
  m->alloc = a;
  nm_refcount_init(&m->refs, 1);
  m->gx0 = m->gy0 = 1; /* empty grid box: x0 > x1 */
  m->gx1 = m->gy1 = 0;
  nm_vcopy(m->orig, p->orig);
  m->tile_width = p->tile_width;
  m->tile_height = p->tile_height;
  m->max_tiles = p->max_tiles;
  m->max_polys = p->max_polys;
  m->tile_bits = nm_ilog2(nm_next_pow2((uint32_t)p->max_tiles));
  m->poly_bits = nm_ilog2(nm_next_pow2((uint32_t)p->max_polys));
  m->salt_bits = 32 - m->tile_bits - m->poly_bits;
  if (m->salt_bits > 31) m->salt_bits = 31;
  m->tile_mask = (1u << m->tile_bits) - 1;
  m->poly_mask = (1u << m->poly_bits) - 1;
  m->salt_mask = (1u << m->salt_bits) - 1;
  m->lut_mask = nm_next_pow2((uint32_t)(p->max_tiles / 4 > 0 ? p->max_tiles / 4 : 1)) - 1;
  m->pos_lookup = (uint32_t *)nm_calloc(&a, (m->lut_mask + 1) * sizeof(uint32_t));
  m->tiles = (nm_tile *)nm_calloc(&a, nm_mul_size((size_t)p->max_tiles, sizeof(nm_tile)));
  if (!m->pos_lookup || !m->tiles) {
    nm_navmesh_release(m);
    return NM_ERR_NOMEM;
  }
  *out = m;
  return NM_OK;
}

void nm_navmesh_retain(nm_navmesh *m) {
  if (m) nm_refcount_inc(&m->refs);
}

/* Frees one tile's blob if the mesh owns it (versions: see nm_tile_owned). */
static void tile_free_data(nm_navmesh *m, nm_tile *t) {
  if (nm_tile_owned(m, t)) nm_free(&m->alloc, t->data, nm_blob_bytes(m, t->data_size));
  t->data = NULL;
  t->data_size = 0;
  t->header = NULL;
}

void nm_mesh_destroy(nm_navmesh *m, int blobs) {
  nm_alloc a = m->alloc;
  int i;
  nm_islands_free(m);
  if (m->mapping) nm_unmap(m->mapping, m->mapping_len);
  if (m->tiles) {
    for (i = 0; i < m->top && blobs; i++)
      if (m->tiles[i].header) tile_free_data(m, &m->tiles[i]);
    nm_free(&a, m->tiles, (size_t)m->max_tiles * sizeof(nm_tile));
  }
  nm_free(&a, m->pos_lookup, (m->lut_mask + 1) * sizeof(uint32_t));
  nm_free(&a, m, sizeof *m);
}

void nm_navmesh_release(nm_navmesh *m) {
  if (!m || nm_refcount_dec(&m->refs) > 0) return;
  if (m->lineage) nm_version_gone(m);
  else nm_mesh_destroy(m, NM_FREE_OWN_BLOBS);
}

/* Freezing makes the mesh read-only; derived data that is otherwise made
 * lazily (island labels) is made now, so readers on other threads never
 * write. Returns ERR_NOMEM when that fails (the mesh is frozen anyway). */
nm_status nm_navmesh_freeze(nm_navmesh *m) {
  nm_status st;
  if (m->committed) return NM_OK; /* a version: frozen, its readers make the labels */
  st = m->islands_dirty || !m->islands ? nm_islands_update(m) : NM_OK;
  m->frozen = 1;
  return st;
}
int nm_navmesh_is_frozen(const nm_navmesh *m) { return m->frozen; }

int nm_navmesh_tiles_at(const nm_navmesh *m, int x, int y, const nm_tile **out, int cap) {
  uint32_t i = m->pos_lookup[tile_hash(x, y, m->lut_mask)];
  int n = 0;
  for (; i; i = m->tiles[i - 1].next) {
    const nm_tile *t = &m->tiles[i - 1];
    if (t->header->x == x && t->header->y == y && n < cap) out[n++] = t;
  }
  return n;
}

const nm_tile *nm_navmesh_tile_at(const nm_navmesh *m, int x, int y, int layer) {
  uint32_t i = m->pos_lookup[tile_hash(x, y, m->lut_mask)];
  for (; i; i = m->tiles[i - 1].next) {
    const nm_tile *t = &m->tiles[i - 1];
    if (t->header->x == x && t->header->y == y && t->header->layer == layer) return t;
  }
  return NULL;
}

void nm_navmesh_visit_tiles(const nm_navmesh *m, int x0, int y0, int x1, int y1,
                            void (*fn)(void *ud, const nm_tile *t), void *ud) {
  const nm_tile *tiles[32];
  int x, y, i, n;
  x0 = nm_maxi(x0, m->gx0);
  y0 = nm_maxi(y0, m->gy0);
  x1 = nm_mini(x1, m->gx1);
  y1 = nm_mini(y1, m->gy1);
  if (x0 > x1 || y0 > y1) return;
  if ((int64_t)(x1 - x0 + 1) * (y1 - y0 + 1) > (int64_t)m->ntiles * 4 + 64) {
    for (i = 0; i < m->top; i++) { /* sparse: by slot */
      const nm_tile *t = &m->tiles[i];
      if (t->header && t->header->x >= x0 && t->header->x <= x1 && t->header->y >= y0 && t->header->y <= y1)
        fn(ud, t);
    }
    return;
  }
  for (y = y0; y <= y1; y++)
    for (x = x0; x <= x1; x++) {
      n = nm_navmesh_tiles_at(m, x, y, tiles, 32);
      for (i = 0; i < n; i++) fn(ud, tiles[i]);
    }
}

void nm_navmesh_tile_loc(const nm_navmesh *m, const float pos[3], int *tx, int *ty) {
  float fx = floorf((pos[0] - m->orig[0]) / m->tile_width);
  float fy = floorf((pos[2] - m->orig[2]) / m->tile_height);
  /* clamp so that far-away or non-finite positions give harmless cells */
  *tx = isfinite(fx) ? (int)nm_clampf(fx, -NM_MAX_TILE_COORD - 1.0f, NM_MAX_TILE_COORD + 1.0f) : 0;
  *ty = isfinite(fy) ? (int)nm_clampf(fy, -NM_MAX_TILE_COORD - 1.0f, NM_MAX_TILE_COORD + 1.0f) : 0;
}

nm_polyref nm_navmesh_tile_ref_at(const nm_navmesh *m, int tx, int ty, int layer) {
  const nm_tile *t = nm_navmesh_tile_at(m, tx, ty, layer);
  return t ? nm_tile_base(m, t) : 0;
}

/* Takes slot `want` (>= 0) or the next free slot (-1); NULL when none. */
static nm_tile *slot_take(nm_navmesh *m, int want) {
  nm_tile *t;
  uint32_t *pp;
  if (want < 0) {
    if (m->free_stack) {
      t = &m->tiles[m->free_stack - 1];
      m->free_stack = t->next;
      t->next = 0;
      return t;
    }
    while (m->hwm < m->max_tiles && m->tiles[m->hwm].touched) m->hwm++;
    if (m->hwm >= m->max_tiles) return NULL;
    t = &m->tiles[m->hwm++];
    t->salt = 1;
    t->touched = 1;
    return t;
  }
  if (want >= m->max_tiles) return NULL;
  t = &m->tiles[want];
  if (t->header) return NULL;
  if (t->touched) { /* a removed slot: unlink it from the free stack */
    for (pp = &m->free_stack; *pp && *pp != (uint32_t)want + 1; pp = &m->tiles[*pp - 1].next) {}
    if (*pp) *pp = t->next;
  }
  t->touched = 1;
  t->next = 0;
  return t;
}

/* Builds a tile's links: its own, then against tiles already present in the
 * same cell (other layers) and the eight neighbouring cells (Detour's order). */
static void tile_connect(nm_navmesh *m, nm_tile *t) {
  static const int dx[8] = {1, 1, 0, -1, -1, -1, 0, 1}, dy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
  const nm_tile *neis[32];
  int i, j, n;
  nm_links_init(t);
  nm_links_connect_internal(m, t);
  nm_links_base_offmesh(m, t);
  nm_links_connect_offmesh(m, t, t, -1);
  n = nm_navmesh_tiles_at(m, t->header->x, t->header->y, neis, 32);
  for (j = 0; j < n; j++) {
    nm_tile *o = (nm_tile *)neis[j];
    if (o == t) continue;
    nm_links_connect_external(m, t, o, -1);
    nm_links_connect_external(m, o, t, -1);
    nm_links_connect_offmesh(m, t, o, -1);
    nm_links_connect_offmesh(m, o, t, -1);
  }
  for (i = 0; i < 8; i++) {
    n = nm_navmesh_tiles_at(m, t->header->x + dx[i], t->header->y + dy[i], neis, 32);
    for (j = 0; j < n; j++) {
      nm_tile *o = (nm_tile *)neis[j];
      nm_links_connect_external(m, t, o, i);
      nm_links_connect_external(m, o, t, (i + 4) & 7);
      nm_links_connect_offmesh(m, t, o, i);
      nm_links_connect_offmesh(m, o, t, (i + 4) & 7);
    }
  }
}

/* Widens the grid box of cells that have held tiles (it never shrinks). */
static void grid_bounds_add(nm_navmesh *m, int x, int y) {
  if (m->gx0 > m->gx1) {
    m->gx0 = m->gx1 = x;
    m->gy0 = m->gy1 = y;
  }
  if (x < m->gx0) m->gx0 = x;
  if (x > m->gx1) m->gx1 = x;
  if (y < m->gy0) m->gy0 = y;
  if (y > m->gy1) m->gy1 = y;
}

/* Copies a blob into an aligned allocation of `bytes` (>= size) bytes. */
static uint8_t *blob_copy(nm_navmesh *m, const void *data, size_t size, size_t bytes) {
  uint8_t *copy = (uint8_t *)nm_malloc(&m->alloc, bytes);
  if (copy) memcpy(copy, data, size);
  return copy;
}

/* 1 when slot `want` (-1: any) can be taken; advances the high-water mark
 * past used slots, which changes nothing slot_take would do. */
static int slot_free(nm_navmesh *m, int want) {
  if (want >= 0) return want < m->max_tiles && !m->tiles[want].header;
  if (m->free_stack) return 1;
  while (m->hwm < m->max_tiles && m->tiles[m->hwm].touched) m->hwm++;
  return m->hwm < m->max_tiles;
}

/* Everything that can refuse a blob, before anything changes: the blob
 * itself, its polygon count, its grid cell, the slot (*want, -1 any). */
static nm_status place_check(nm_navmesh *m, uint8_t *data, size_t size, nm_polyref want_ref, nm_diag *diag,
                             int *want) {
  const nm_tile_header *h = (const nm_tile_header *)data;
  nm_status st;
  *want = -1;
  if ((st = nm_tile_validate(data, size, diag)) < 0) return st;
  if (h->poly_count > (int32_t)m->poly_mask + 1)
    return nm_diag_set(diag, NM_ERR_DATA, "polyCount", "tile has %d polygons, mesh allows %d",
                       (int)h->poly_count, m->max_polys);
  if (nm_navmesh_tile_at(m, h->x, h->y, h->layer))
    return nm_diag_set(diag, NM_ERR_FULL, "tile", "a tile is already at (%d, %d, layer %d)",
                       (int)h->x, (int)h->y, (int)h->layer);
  if (want_ref) {
    *want = (int)nm_ref_tile(m, want_ref);
    if (nm_ref_salt(m, want_ref) == 0 || *want >= m->max_tiles || nm_ref_poly(m, want_ref) != 0)
      return nm_diag_set(diag, NM_ERR_DATA, "tileRef", "tile reference 0x%08x invalid", (unsigned)want_ref);
  }
  if (!slot_free(m, *want))
    return nm_diag_set(diag, NM_ERR_FULL, "tileRef", want_ref ? "tile slot %d is in use" : "no free tile slot", *want);
  return NM_OK;
}

/* Puts a checked blob into a slot (place_check said it can). */
static nm_tile *place_now(nm_navmesh *m, uint8_t *data, size_t size, nm_polyref want_ref, int want,
                          uint32_t flags) {
  const nm_tile_header *h = (const nm_tile_header *)data;
  nm_tile *t = slot_take(m, want);
  uint32_t h_idx;
  if (want_ref) t->salt = nm_ref_salt(m, want_ref);
  if ((int)(t - m->tiles) >= m->top) m->top = (int)(t - m->tiles) + 1;
  h_idx = tile_hash(h->x, h->y, m->lut_mask);
  t->next = m->pos_lookup[h_idx];
  m->pos_lookup[h_idx] = (uint32_t)(t - m->tiles) + 1;
  nm_tile_bind(t, data, size);
  t->flags = flags;
  t->birth = m->version;
  grid_bounds_add(m, h->x, h->y);
  m->ntiles++;
  m->generation++;
  m->islands_dirty = 1;
  return t;
}

nm_status nm_navmesh_place_tile(nm_navmesh *m, uint8_t *data, size_t size, nm_polyref want_ref,
                                uint32_t flags, nm_diag *diag, nm_tile **out) {
  int want;
  nm_status st = place_check(m, data, size, want_ref, diag, &want);
  if (st < 0) return st;
  *out = place_now(m, data, size, want_ref, want, flags);
  return NM_OK;
}

/* Draft of a version: makes private every tile around cell (x, y) that
 * linking t there would write to (copy-on-write); undone on failure. */
static nm_status cow_for_add(nm_navmesh *m, const nm_tile *t, nm_cow *c) {
  const uint32_t tmask = nm_links_side_mask(t);
  const nm_tile *neis[32];
  nm_status st = NM_OK;
  int i, j, k, n;
  for (i = -1; i <= 1 && st >= 0; i++)
    for (j = -1; j <= 1 && st >= 0; j++) {
      /* direction from the neighbour towards t; -1 for the same cell */
      const int side = (i == 0 && j == 0) ? -1 : nm_side_towards(-i, -j);
      n = nm_navmesh_tiles_at(m, t->header->x + i, t->header->y + j, neis, 32);
      for (k = 0; k < n && st >= 0; k++)
        if (nm_links_may_touch(nm_links_side_mask(neis[k]), tmask, side))
          st = nm_cow_tile(m, (nm_tile *)neis[k], c);
    }
  if (st < 0) nm_cow_undo(m, c);
  return st;
}

nm_status nm_navmesh_add_tile_at(nm_navmesh *m, const void *data, size_t size, nm_polyref want_ref,
                                 nm_diag *diag, nm_polyref *ref_out) {
  uint8_t *copy;
  nm_tile *t, probe;
  nm_status st;
  nm_cow cow;
  int want;
  if (m->frozen) return nm_diag_set(diag, NM_ERR_READONLY, NULL, "navmesh is shared (read-only)");
  if (!data || size < sizeof(nm_tile_header))
    return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "tile blob shorter than its header");
  if (!(copy = blob_copy(m, data, size, nm_blob_bytes(m, size)))) return NM_ERR_NOMEM;
  cow.n = 0;
  st = place_check(m, copy, size, want_ref, diag, &want);
  if (st >= 0 && m->lineage) {
    nm_tile_bind(&probe, copy, size);
    st = cow_for_add(m, &probe, &cow);
  }
  if (st < 0) {
    nm_free(&m->alloc, copy, nm_blob_bytes(m, size));
    return st;
  }
  t = place_now(m, copy, size, want_ref, want, NM_TILE_OWNS_DATA);
  nm_cow_keep(m, &cow);
  tile_connect(m, t);
  if (ref_out) *ref_out = nm_tile_base(m, t);
  if (diag) { diag->field = NULL; diag->msg[0] = 0; }
  return NM_OK;
}

/* For the tile cache (src/tilecache): adds a blob allocated with the mesh
 * allocator without copying it; the mesh owns it from then on. Needs no
 * allocation, so a rebuilt tile can replace the old one atomically. */
nm_status nm_navmesh_add_tile_owned(nm_navmesh *m, uint8_t *data, size_t size, nm_diag *diag,
                                    nm_polyref *ref_out) {
  nm_tile *t;
  nm_status st;
  if (m->frozen) return nm_diag_set(diag, NM_ERR_READONLY, NULL, "navmesh is shared (read-only)");
  if ((st = nm_navmesh_place_tile(m, data, size, 0, NM_TILE_OWNS_DATA, diag, &t)) < 0) return st;
  tile_connect(m, t);
  if (ref_out) *ref_out = nm_tile_base(m, t);
  return NM_OK;
}

nm_status nm_navmesh_add_tile(nm_navmesh *m, const void *data, size_t size, nm_diag *diag,
                              nm_polyref *ref_out) {
  return nm_navmesh_add_tile_at(m, data, size, 0, diag, ref_out);
}

/* Unlinks tile t from its position-hash chain. */
static void lookup_remove(nm_navmesh *m, nm_tile *t) {
  const uint32_t self = (uint32_t)(t - m->tiles) + 1;
  uint32_t *pp = &m->pos_lookup[tile_hash(t->header->x, t->header->y, m->lut_mask)];
  for (; *pp; pp = &m->tiles[*pp - 1].next)
    if (*pp == self) { *pp = t->next; return; }
}

/* Removes every link between t and the tiles around it; with c (a draft of
 * a version), first makes private every tile that has such links (all or
 * none: ERR_NOMEM leaves the mesh as it was). */
static nm_status tile_disconnect(nm_navmesh *m, nm_tile *t, nm_cow *c) {
  const uint32_t slot = (uint32_t)(t - m->tiles);
  const nm_tile *neis[32];
  int i, j, k, n, pass, x = t->header->x, y = t->header->y;
  for (pass = c ? 0 : 1; pass < 2; pass++)
    for (i = -1; i <= 1; i++)
      for (j = -1; j <= 1; j++) {
        n = nm_navmesh_tiles_at(m, x + i, y + j, neis, 32);
        for (k = 0; k < n; k++) {
          nm_tile *o = (nm_tile *)neis[k];
          if (o == t) continue;
          if (pass == 1) nm_links_unconnect(m, o, t);
          else if (nm_links_to_slot(m, o, slot) && nm_cow_tile(m, o, c) < 0) {
            nm_cow_undo(m, c);
            return NM_ERR_NOMEM;
          }
        }
      }
  return NM_OK;
}

nm_status nm_navmesh_remove_tile(nm_navmesh *m, int tx, int ty, int layer, void **data,
                                 size_t *size) {
  nm_tile *t = (nm_tile *)nm_navmesh_tile_at(m, tx, ty, layer);
  nm_cow cow;
  if (data) *data = NULL;
  if (size) *size = 0;
  if (m->frozen) return NM_ERR_READONLY;
  if (!t) return NM_ERR_PARAM;
  if (data && size) {
    if (!(*data = blob_copy(m, t->data, t->data_size, t->data_size))) return NM_ERR_NOMEM;
    *size = t->data_size;
  }
  cow.n = 0;
  if (tile_disconnect(m, t, m->lineage ? &cow : NULL) < 0) {
    if (data && size) nm_free_bytes(m, *data, *size);
    if (data) *data = NULL;
    if (size) *size = 0;
    return NM_ERR_NOMEM;
  }
  nm_cow_keep(m, &cow);
  lookup_remove(m, t);
  if (m->lineage && !nm_tile_owned(m, t)) nm_version_replaced(m, t->data, t->data_size, t->birth);
  tile_free_data(m, t);
  t->links = NULL;
  t->polys = NULL;
  t->salt = (t->salt + 1) & m->salt_mask;
  if (t->salt == 0) t->salt++;
  t->next = m->free_stack;
  m->free_stack = (uint32_t)(t - m->tiles) + 1;
  m->ntiles--;
  m->generation++;
  m->islands_dirty = 1;
  return NM_OK;
}

/* Draft of a version: makes private, all or none, every tile that
 * replacing tile `old` (NULL: none) by the blob bound to `probe` (NULL:
 * none) at the same cell would write links into: the tiles holding links
 * into old's slot and the tiles the new blob may link with (as
 * tile_disconnect and cow_for_add pick them). old itself goes unchanged. */
static nm_status cow_for_swap(nm_navmesh *m, const nm_tile *old, const nm_tile *probe, nm_cow *c) {
  const uint32_t slot = old ? (uint32_t)(old - m->tiles) : 0, tmask = probe ? nm_links_side_mask(probe) : 0;
  const nm_tile_header *h = old ? old->header : probe->header;
  const nm_tile *neis[32];
  int i, j, k, n;
  for (i = -1; i <= 1; i++)
    for (j = -1; j <= 1; j++) {
      const int side = (i == 0 && j == 0) ? -1 : nm_side_towards(-i, -j);
      n = nm_navmesh_tiles_at(m, h->x + i, h->y + j, neis, 32);
      for (k = 0; k < n; k++) {
        nm_tile *o = (nm_tile *)neis[k];
        const int need = o != old && ((old && nm_links_to_slot(m, o, slot)) ||
                                      (probe && nm_links_may_touch(nm_links_side_mask(o), tmask, side)));
        if (need && nm_cow_tile(m, o, c) < 0) {
          nm_cow_undo(m, c);
          return NM_ERR_NOMEM;
        }
      }
    }
  return NM_OK;
}

/* Everything that can refuse replacing the tile at (tx, ty, layer) by the
 * blob `data` (whose header must name that place), before anything
 * changes; `old` is the tile there now (NULL: none). */
static nm_status swap_check(nm_navmesh *m, int tx, int ty, int layer, const nm_tile *old, uint8_t *data,
                            size_t size, nm_diag *diag) {
  const nm_tile_header *h = (const nm_tile_header *)data;
  nm_status st;
  if ((st = nm_tile_validate(data, size, diag)) < 0) return st;
  if (h->x != tx || h->y != ty || h->layer != layer)
    return nm_diag_set(diag, NM_ERR_DATA, "tile", "tile is for (%d, %d, layer %d), not (%d, %d, layer %d)", (int)h->x,
                       (int)h->y, (int)h->layer, tx, ty, layer);
  if (h->poly_count > (int32_t)m->poly_mask + 1)
    return nm_diag_set(diag, NM_ERR_DATA, "polyCount", "tile has %d polygons, mesh allows %d", (int)h->poly_count,
                       m->max_polys);
  if (!old && !slot_free(m, -1)) return nm_diag_set(diag, NM_ERR_FULL, "tileRef", "no free tile slot");
  return NM_OK;
}

nm_status nm_navmesh_swap_tile_owned(nm_navmesh *m, int tx, int ty, int layer, uint8_t *data, size_t size,
                                     nm_diag *diag) {
  nm_tile *old = (nm_tile *)nm_navmesh_tile_at(m, tx, ty, layer), probe, *t;
  uint8_t *copy = NULL;
  nm_status st;
  nm_cow cow;
  if (m->frozen) return nm_diag_set(diag, NM_ERR_READONLY, NULL, "navmesh is shared (read-only)");
  if (data && (st = swap_check(m, tx, ty, layer, old, data, size, diag)) < 0) return st;
  if (data && m->lineage && !(copy = blob_copy(m, data, size, nm_blob_bytes(m, size)))) return NM_ERR_NOMEM;
  cow.n = 0;
  if (m->lineage && (old || copy)) {
    if (copy) nm_tile_bind(&probe, copy, size);
    if ((st = cow_for_swap(m, old, copy ? &probe : NULL, &cow)) < 0) {
      nm_free(&m->alloc, copy, nm_blob_bytes(m, size));
      return st;
    }
  }
  nm_cow_keep(m, &cow);
  if (old) nm_navmesh_remove_tile(m, tx, ty, layer, NULL, NULL); /* allocates nothing now */
  if (!data) return NM_OK;
  if (copy) {
    nm_free(&m->alloc, data, size);
    data = copy;
  }
  if ((st = nm_navmesh_place_tile(m, data, size, 0, NM_TILE_OWNS_DATA, diag, &t)) < 0) return st; /* checked */
  tile_connect(m, t);
  return NM_OK;
}

void nm_free_bytes(const nm_navmesh *m, void *bytes, size_t len) { nm_free(&m->alloc, bytes, len); }

void nm_navmesh_get_params(const nm_navmesh *m, nm_navmesh_params *p) {
  nm_vcopy(p->orig, m->orig);
  p->tile_width = m->tile_width;
  p->tile_height = m->tile_height;
  p->max_tiles = m->max_tiles;
  p->max_polys = m->max_polys;
}

/* Adds one tile's numbers to info. */
static void info_add_tile(const nm_tile *t, nm_navmesh_info *info) {
  const nm_tile_header *h = t->header;
  if (info->tiles == 0) {
    nm_vcopy(info->bmin, h->bmin);
    nm_vcopy(info->bmax, h->bmax);
  } else {
    nm_vmin(info->bmin, h->bmin);
    nm_vmax(info->bmax, h->bmax);
  }
  info->tiles++;
  info->polys += h->offmesh_base;
  info->offmesh_polys += h->poly_count - h->offmesh_base;
  info->verts += h->vert_count;
  info->detail_verts += h->detail_vert_count;
  info->detail_tris += h->detail_tri_count;
  info->data_bytes += t->data_size;
}

void nm_navmesh_get_info(const nm_navmesh *m, nm_navmesh_info *info) {
  int i;
  memset(info, 0, sizeof *info);
  info->max_tiles = m->max_tiles;
  info->max_polys = m->max_polys;
  for (i = 0; i < m->top; i++)
    if (m->tiles[i].header) info_add_tile(&m->tiles[i], info);
  info->memory_bytes = sizeof *m + (size_t)m->max_tiles * sizeof(nm_tile) +
                       (m->lut_mask + 1) * sizeof(nm_tile *) + info->data_bytes;
}

int nm_navmesh_is_valid_ref(const nm_navmesh *m, nm_polyref ref) {
  const nm_tile *t;
  const nm_poly *p;
  return nm_ref_get(m, ref, &t, &p);
}

nm_status nm_navmesh_get_poly_flags(const nm_navmesh *m, nm_polyref ref, uint16_t *flags) {
  const nm_tile *t;
  const nm_poly *p;
  if (!nm_ref_get(m, ref, &t, &p)) return NM_ERR_PARAM;
  *flags = p->flags;
  return NM_OK;
}

/* The polygon of ref, writable: in a draft of a version its tile is made
 * private first (ERR_NOMEM when that fails). ERR_READONLY, ERR_PARAM. */
static nm_status poly_for_write(nm_navmesh *m, nm_polyref ref, nm_poly **out) {
  const nm_tile *t;
  const nm_poly *p;
  nm_cow cow;
  if (m->frozen) return NM_ERR_READONLY;
  if (!nm_ref_get(m, ref, &t, &p)) return NM_ERR_PARAM;
  cow.n = 0;
  if (nm_cow_tile(m, (nm_tile *)t, &cow) < 0) return NM_ERR_NOMEM;
  nm_cow_keep(m, &cow);
  *out = &t->polys[nm_ref_poly(m, ref)];
  return NM_OK;
}

nm_status nm_navmesh_set_poly_flags(nm_navmesh *m, nm_polyref ref, uint16_t flags) {
  nm_poly *p;
  nm_status st = poly_for_write(m, ref, &p);
  if (st < 0) return st;
  p->flags = flags;
  m->generation++; /* derived data (optimal-search corner cache) depends on flags */
  return NM_OK;
}

nm_status nm_navmesh_get_poly_area(const nm_navmesh *m, nm_polyref ref, uint8_t *area) {
  const nm_tile *t;
  const nm_poly *p;
  if (!nm_ref_get(m, ref, &t, &p)) return NM_ERR_PARAM;
  *area = (uint8_t)nm_poly_area(p);
  return NM_OK;
}

nm_status nm_navmesh_set_poly_area(nm_navmesh *m, nm_polyref ref, uint8_t area) {
  nm_poly *p;
  nm_status st;
  if (m->frozen) return NM_ERR_READONLY;
  if (area >= NM_MAX_AREAS) return NM_ERR_PARAM;
  if ((st = poly_for_write(m, ref, &p)) < 0) return st;
  p->area_and_type = (uint8_t)((p->area_and_type & 0xc0) | area);
  m->generation++;
  return NM_OK;
}

nm_status nm_navmesh_get_poly_verts(const nm_navmesh *m, nm_polyref ref, float *verts, int *nverts) {
  const nm_tile *t;
  const nm_poly *p;
  int i;
  if (!nm_ref_get(m, ref, &t, &p)) return NM_ERR_PARAM;
  for (i = 0; i < p->vert_count; i++) nm_vcopy(&verts[i * 3], &t->verts[p->verts[i] * 3]);
  *nverts = p->vert_count;
  return NM_OK;
}

void nm_navmesh_foreach_poly(const nm_navmesh *m, void (*fn)(void *ud, nm_polyref ref), void *ud) {
  int i, j;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    for (j = 0; j < t->header->poly_count; j++) fn(ud, nm_tile_base(m, t) | (nm_polyref)j);
  }
}
