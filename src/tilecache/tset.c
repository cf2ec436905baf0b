/* tset.c -- RecastDemo's tile-cache file ("TSET"): loading and saving.
 *
 * Layout (shared/docs/tilecache-format.md, 1): a 92-byte header (magic,
 * version, record count, the navmesh parameters, the cache parameters),
 * then (tileRef, dataSize, layer) records. A load does what RecastDemo's
 * Load button does: every layer goes into the next free slot and its
 * navmesh tile is built at once, in file order, so navmesh tile slots and
 * polygon references equal the ones of Detour's own load. Every header
 * field and every layer is checked; damage gives ERR_DATA naming the
 * record and the field, never a crash. */
#include "nm_cache.h"

#define NM_TSET_MAGIC (('T' << 24) | ('S' << 16) | ('E' << 8) | 'T')
#define NM_TSET_VERSION 1
#define NM_TSET_HEADER 92

/* Both parameter blocks of the header. */
static void header_read(const uint8_t *b, nm_cache_params *p) {
  int i;
  nm_cache_params_init(p);
  for (i = 0; i < 3; i++) p->nav.orig[i] = nm_rdf(b + 12 + 4 * i);
  p->nav.tile_width = nm_rdf(b + 24);
  p->nav.tile_height = nm_rdf(b + 28);
  p->nav.max_tiles = (int)nm_rd32(b + 32);
  p->nav.max_polys = (int)nm_rd32(b + 36);
  for (i = 0; i < 3; i++) p->orig[i] = nm_rdf(b + 40 + 4 * i);
  p->cell_size = nm_rdf(b + 52);
  p->cell_height = nm_rdf(b + 56);
  p->width = (int)nm_rd32(b + 60);
  p->height = (int)nm_rd32(b + 64);
  p->walkable_height = nm_rdf(b + 68);
  p->walkable_radius = nm_rdf(b + 72);
  p->walkable_climb = nm_rdf(b + 76);
  p->max_simplification_error = nm_rdf(b + 80);
  p->max_tiles = (int)nm_rd32(b + 84);
  p->max_obstacles = (int)nm_rd32(b + 88);
}

static void header_write(uint8_t *b, const nm_cache_params *p, uint32_t n) {
  int i;
  nm_wr32(b, NM_TSET_MAGIC);
  nm_wr32(b + 4, NM_TSET_VERSION);
  nm_wr32(b + 8, n);
  for (i = 0; i < 3; i++) nm_wrf(b + 12 + 4 * i, p->nav.orig[i]);
  nm_wrf(b + 24, p->nav.tile_width);
  nm_wrf(b + 28, p->nav.tile_height);
  nm_wr32(b + 32, (uint32_t)p->nav.max_tiles);
  nm_wr32(b + 36, (uint32_t)p->nav.max_polys);
  for (i = 0; i < 3; i++) nm_wrf(b + 40 + 4 * i, p->orig[i]);
  nm_wrf(b + 52, p->cell_size);
  nm_wrf(b + 56, p->cell_height);
  nm_wr32(b + 60, (uint32_t)p->width);
  nm_wr32(b + 64, (uint32_t)p->height);
  nm_wrf(b + 68, p->walkable_height);
  nm_wrf(b + 72, p->walkable_radius);
  nm_wrf(b + 76, p->walkable_climb);
  nm_wrf(b + 80, p->max_simplification_error);
  nm_wr32(b + 84, (uint32_t)p->max_tiles);
  nm_wr32(b + 88, (uint32_t)p->max_obstacles);
}

/* Prefixes a record's diag message with its index; data errors stay
 * ERR_DATA (a record taking a used place or slot is damage too). */
static nm_status record_error(nm_diag *diag, nm_status st, uint32_t i) {
  if (st == NM_ERR_NOMEM) return st;
  if (diag) {
    char inner[96];
    memcpy(inner, diag->msg, sizeof inner);
    inner[sizeof inner - 1] = 0;
    nm_diag_set(diag, NM_ERR_DATA, diag->field, "layer record %u: %.80s", (unsigned)i, inner);
  }
  return NM_ERR_DATA;
}

/* Adds one record's layer (copied) and builds its navmesh tile. */
static nm_status load_record(nm_cache *c, const uint8_t *d, size_t size, uint32_t i, nm_diag *diag) {
  uint8_t *copy;
  nm_clayer *l;
  nm_status st;
  if (size <= NM_LAYER_HEADER)
    return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "layer record %u shorter than a layer header", (unsigned)i);
  if (!(copy = (uint8_t *)nm_malloc(&c->alloc, size))) return NM_ERR_NOMEM;
  memcpy(copy, d, size);
  if ((st = nm_cache_take_layer(c, copy, size, diag, &l)) < 0) {
    nm_free(&c->alloc, copy, size);
    return record_error(diag, st, i);
  }
  if ((st = nm_cache_rebuild(c, l, diag)) < 0) return record_error(diag, st, i);
  return NM_OK;
}

nm_status nm_cache_load(const void *bytes, size_t len, const nm_cache_rules *rules, const nm_alloc *alloc,
                        nm_diag *diag, nm_cache **out) {
  const uint8_t *b = (const uint8_t *)bytes;
  nm_cache_params p;
  nm_cache *c = NULL;
  size_t off = NM_TSET_HEADER;
  uint32_t n, i;
  nm_status st;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!b || len < NM_TSET_HEADER) return nm_diag_set(diag, NM_ERR_DATA, "header", "TSET file shorter than its header");
  if (nm_rd32(b) != NM_TSET_MAGIC) return nm_diag_set(diag, NM_ERR_DATA, "magic", "not a TSET tile-cache file");
  if (nm_rd32(b + 4) != NM_TSET_VERSION)
    return nm_diag_set(diag, NM_ERR_DATA, "version", "TSET version %u, expected 1", (unsigned)nm_rd32(b + 4));
  n = nm_rd32(b + 8);
  if (n > (len - NM_TSET_HEADER) / 8)
    return nm_diag_set(diag, NM_ERR_DATA, "numTiles", "TSET record count %u does not fit the file", (unsigned)n);
  header_read(b, &p);
  if ((st = nm_cache_new(&p, rules, alloc, diag, &c)) < 0) return st == NM_ERR_PARAM ? NM_ERR_DATA : st;
  for (i = 0; i < n; i++) {
    uint32_t ref, size;
    if (len - off < 8) break;
    ref = nm_rd32(b + off);
    size = nm_rd32(b + off + 4);
    off += 8;
    if (ref == 0 || size == 0) break; /* RecastDemo stops at an empty record */
    if (size > len - off) break;
    if ((st = load_record(c, b + off, size, i, diag)) < 0) goto fail;
    off += size;
  }
  if (i < n || off != len) {
    st = nm_diag_set(diag, NM_ERR_DATA, "numTiles", "TSET truncated or padded at layer record %u", (unsigned)i);
    goto fail;
  }
  *out = c;
  return NM_OK;
fail:
  nm_cache_free(c);
  return st;
}

nm_status nm_cache_save(const nm_cache *c, void **bytes, size_t *len) {
  size_t n = NM_TSET_HEADER, off = NM_TSET_HEADER;
  uint8_t *buf;
  uint32_t count = 0;
  int i;
  if (!bytes || !len) return NM_ERR_PARAM;
  *bytes = NULL;
  *len = 0;
  if (!c) return NM_ERR_PARAM;
  for (i = 0; i < c->top; i++)
    if (c->layers[i].data) n += 8 + c->layers[i].size;
  if (!(buf = (uint8_t *)nm_malloc(&c->alloc, n))) return NM_ERR_NOMEM;
  for (i = 0; i < c->top; i++) {
    const nm_clayer *l = &c->layers[i];
    if (!l->data) continue;
    nm_wr32(buf + off, nm_cache_layer_ref(c, l));
    nm_wr32(buf + off + 4, (uint32_t)l->size);
    memcpy(buf + off + 8, l->data, l->size);
    off += 8 + l->size;
    count++;
  }
  header_write(buf, &c->p, count);
  *bytes = buf;
  *len = n;
  return NM_OK;
}

void nm_cache_free_bytes(const nm_cache *c, void *bytes, size_t len) { nm_free(&c->alloc, bytes, len); }
