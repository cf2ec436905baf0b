/* format.c -- navmesh files: RecastDemo's MSET container, single Detour tile
 * blobs, and this library's own format.
 *
 * MSET (shared/docs/detour-tile-format.md, section 1): a 40-byte header with
 * the navmesh parameters, then (tileRef, dataSize, blob) records. Tiles are
 * placed at the slot and salt of their stored reference, so references equal
 * those of the mesh that was saved.
 * Own format ("NMSH"): a 64-byte header (magic, endianness tag, version,
 * parameters, tile count, flags, a 64-bit checksum of everything after the
 * header), a tile directory (ref, size, offset) and 16-byte aligned Detour
 * blobs whose link sections hold the live links (flag NM_OWN_LINKS), so a
 * load checks them instead of rebuilding them, and a file mapping can be
 * used in place, read-only, shared by every process that maps it.
 * All multi-byte values are little-endian; this build reads them on
 * little-endian hosts only and says so elsewhere. */
#include <math.h>
#include "nm_mesh.h"

#define NM_MSET_MAGIC (('M' << 24) | ('S' << 16) | ('E' << 8) | 'T')
#define NM_MSET_VERSION 1
#define NM_OWN_MAGIC "NMSH"
#define NM_OWN_ENDIAN 0x01020304u
#define NM_OWN_VERSION 1
#define NM_OWN_HEADER 64
#define NM_OWN_DIRENT 16
#define NM_OWN_LINKS 1u /* header flag: link sections are live */

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static float rdf(const uint8_t *p) {
  uint32_t u = rd32(p);
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static void wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static void wrf(uint8_t *p, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  wr32(p, u);
}

/* 1 on little-endian hosts, where blobs can be used as they are. */
static int host_is_le(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* 64-bit checksum of a byte range: a Fletcher-style pair of running sums
 * (a += word, b += a) over 64-bit words in four independent lanes, so it
 * runs at memory speed; b makes it sensitive to the order of the words.
 * A final multiply-xor mix spreads every lane over the result. It catches
 * damage (flipped bits, truncation, swapped blocks), not malice: the
 * validation behind it does that. */
static uint64_t rd64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8); /* little-endian hosts only, see host_is_le */
  return v;
}
static uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0x165667B19E3779F9ull;
  return h ^ (h >> 32);
}
uint64_t nm_format_checksum(const uint8_t *p, size_t n) {
  uint64_t a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0}, h = (uint64_t)n;
  size_t i = 0;
  int k;
  for (; i + 32 <= n; i += 32) {
    a[0] += rd64(p + i);
    a[1] += rd64(p + i + 8);
    a[2] += rd64(p + i + 16);
    a[3] += rd64(p + i + 24);
    b[0] += a[0];
    b[1] += a[1];
    b[2] += a[2];
    b[3] += a[3];
  }
  for (; i < n; i++) {
    a[0] += p[i];
    b[0] += a[0];
  }
  for (k = 0; k < 4; k++) h = mix64(h ^ mix64(a[k] + 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1)) ^ (b[k] * 0x9E3779B185EBCA87ull));
  return h;
}

/* The 28 parameter bytes shared by MSET and our header. */
static void params_read(const uint8_t *p, nm_navmesh_params *prm) {
  prm->orig[0] = rdf(p); prm->orig[1] = rdf(p + 4); prm->orig[2] = rdf(p + 8);
  prm->tile_width = rdf(p + 12);
  prm->tile_height = rdf(p + 16);
  prm->max_tiles = (int)rd32(p + 20);
  prm->max_polys = (int)rd32(p + 24);
}
static void params_write(uint8_t *p, const nm_navmesh *m) {
  wrf(p, m->orig[0]); wrf(p + 4, m->orig[1]); wrf(p + 8, m->orig[2]);
  wrf(p + 12, m->tile_width);
  wrf(p + 16, m->tile_height);
  wr32(p + 20, (uint32_t)m->max_tiles);
  wr32(p + 24, (uint32_t)m->max_polys);
}

/* Makes a mesh from stored parameters, reporting bad ones as ERR_DATA. */
static nm_status mesh_from_params(const nm_navmesh_params *prm, const nm_alloc *alloc, nm_diag *diag,
                                  nm_navmesh **out) {
  nm_status st = nm_navmesh_new(prm, alloc, diag, out);
  return st == NM_ERR_PARAM ? NM_ERR_DATA : st;
}

/* Adds one stored tile; failures become ERR_DATA naming the record. */
static nm_status add_stored_tile(nm_navmesh *m, const uint8_t *blob, size_t size, nm_polyref ref,
                                 int index, nm_diag *diag) {
  nm_status st = nm_navmesh_add_tile_at(m, blob, size, ref, diag, NULL);
  if (st >= 0 || st == NM_ERR_NOMEM) return st;
  if (diag) {
    char inner[96];
    memcpy(inner, diag->msg, sizeof inner);
    inner[sizeof inner - 1] = 0;
    nm_diag_set(diag, NM_ERR_DATA, diag->field, "tile record %d: %.80s", index, inner);
  }
  return NM_ERR_DATA;
}

/* Places one stored tile whose links are live: a copy owned by the mesh, or
 * (in_place) the bytes themselves. */
static nm_status place_stored_tile(nm_navmesh *m, const uint8_t *blob, size_t size, nm_polyref ref,
                                   int index, int in_place, nm_diag *diag) {
  uint8_t *data = (uint8_t *)(uintptr_t)blob;
  nm_tile *t;
  nm_status st;
  if (size < sizeof(nm_tile_header)) /* (also: nm_malloc(0) is NULL, not "out of memory") */
    return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "tile record %d shorter than a tile header", index);
  if (!in_place) {
    if (!(data = (uint8_t *)nm_malloc(&m->alloc, size))) return NM_ERR_NOMEM;
    memcpy(data, blob, size);
  }
  st = nm_navmesh_place_tile(m, data, size, ref, in_place ? 0 : NM_TILE_OWNS_DATA, diag, &t);
  if (st >= 0) return st;
  if (!in_place) nm_free(&m->alloc, data, size);
  if (st == NM_ERR_NOMEM) return st;
  if (diag) {
    char inner[96];
    memcpy(inner, diag->msg, sizeof inner);
    inner[sizeof inner - 1] = 0;
    nm_diag_set(diag, NM_ERR_DATA, diag->field, "tile record %d: %.80s", index, inner);
  }
  return NM_ERR_DATA;
}

/* RecastDemo's all-tiles file. */
static nm_status load_mset(const uint8_t *b, size_t len, const nm_alloc *alloc, nm_diag *diag,
                           nm_navmesh **out) {
  nm_navmesh_params prm;
  nm_navmesh *m = NULL;
  size_t off = 40;
  uint32_t ntiles, i;
  nm_status st;
  if (len < 40) return nm_diag_set(diag, NM_ERR_DATA, "header", "MSET file shorter than its header");
  if (rd32(b + 4) != NM_MSET_VERSION)
    return nm_diag_set(diag, NM_ERR_DATA, "version", "MSET version %u, expected 1", (unsigned)rd32(b + 4));
  ntiles = rd32(b + 8);
  params_read(b + 12, &prm);
  if (ntiles > (uint32_t)(1 << 22) || ntiles > (len - 40) / 8)
    return nm_diag_set(diag, NM_ERR_DATA, "numTiles", "MSET tile count %u does not fit the file", (unsigned)ntiles);
  if ((st = mesh_from_params(&prm, alloc, diag, &m)) < 0) return st;
  for (i = 0; i < ntiles; i++) {
    uint32_t ref, size;
    if (len - off < 8) goto truncated;
    ref = rd32(b + off);
    size = rd32(b + off + 4);
    off += 8;
    if (ref == 0 || size == 0) break; /* RecastDemo stops at an empty record */
    if (size > len - off) goto truncated;
    if ((st = add_stored_tile(m, b + off, size, ref, (int)i, diag)) < 0) goto fail;
    off += size;
  }
  if (off != len) {
    st = nm_diag_set(diag, NM_ERR_DATA, "numTiles", "%lu bytes after the last tile record", (unsigned long)(len - off));
    goto fail;
  }
  *out = m;
  return NM_OK;
truncated:
  st = nm_diag_set(diag, NM_ERR_DATA, "tileRef", "MSET truncated in tile record %u", (unsigned)i);
fail:
  nm_navmesh_release(m);
  return st;
}

/* A single Detour tile blob: a one-tile mesh whose grid is anchored so the
 * tile's own (x, y) cell covers its bounds (for (0,0) this is Detour's solo
 * navmesh: origin = tile bmin, tile size = tile extent). */
static nm_status load_tile(const uint8_t *b, size_t len, const nm_alloc *alloc, nm_diag *diag,
                           nm_navmesh **out) {
  nm_navmesh_params prm;
  nm_tile_header h;
  nm_navmesh *m = NULL;
  nm_status st;
  if (len < sizeof h) return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "tile blob shorter than its header");
  memcpy(&h, b, sizeof h);
  prm.tile_width = h.bmax[0] - h.bmin[0];
  prm.tile_height = h.bmax[2] - h.bmin[2];
  prm.orig[0] = h.bmin[0] - (float)h.x * prm.tile_width;
  prm.orig[1] = h.bmin[1];
  prm.orig[2] = h.bmin[2] - (float)h.y * prm.tile_height;
  prm.max_tiles = 1;
  prm.max_polys = h.poly_count > 0 ? h.poly_count : 1;
  if ((st = mesh_from_params(&prm, alloc, diag, &m)) < 0) return st;
  if ((st = nm_navmesh_add_tile(m, b, len, diag, NULL)) < 0) {
    nm_navmesh_release(m);
    return st == NM_ERR_NOMEM ? st : NM_ERR_DATA;
  }
  *out = m;
  return NM_OK;
}

/* Our own format. With `in_place` the tiles point into b itself (which
 * must stay alive, 4-byte aligned, and is never written: the mesh is made
 * read-only); otherwise every blob is copied. Live links are checked, not
 * rebuilt; files without them get links built as for MSET. */
nm_status nm_format_load_own(const uint8_t *b, size_t len, int in_place, const nm_alloc *alloc,
                             nm_diag *diag, nm_navmesh **out) {
  nm_navmesh_params prm;
  nm_navmesh *m = NULL;
  uint32_t ntiles, flags, i;
  nm_status st;
  *out = NULL;
  if (len < NM_OWN_HEADER) return nm_diag_set(diag, NM_ERR_DATA, "header", "file shorter than its header");
  if (!host_is_le()) return nm_diag_set(diag, NM_ERR_DATA, NULL, "big-endian hosts are not supported");
  if (memcmp(b, NM_OWN_MAGIC, 4) != 0) return nm_diag_set(diag, NM_ERR_DATA, "magic", "not an NMSH file");
  if (rd32(b + 4) != NM_OWN_ENDIAN)
    return nm_diag_set(diag, NM_ERR_DATA, "endian", "file written with another byte order");
  if (rd32(b + 8) != NM_OWN_VERSION)
    return nm_diag_set(diag, NM_ERR_DATA, "version", "format version %u, this library reads 1", (unsigned)rd32(b + 8));
  if (rd32(b + 12) != NM_OWN_HEADER) return nm_diag_set(diag, NM_ERR_DATA, "header", "bad header size");
  ntiles = rd32(b + 44);
  flags = rd32(b + 48);
  if (ntiles > (len - NM_OWN_HEADER) / NM_OWN_DIRENT)
    return nm_diag_set(diag, NM_ERR_DATA, "tileCount", "tile directory does not fit the file");
  if (nm_format_checksum(b + NM_OWN_HEADER, len - NM_OWN_HEADER) != rd64(b + 52))
    return nm_diag_set(diag, NM_ERR_DATA, "checksum", "checksum mismatch (file damaged)");
  if (in_place && !(flags & NM_OWN_LINKS))
    return nm_diag_set(diag, NM_ERR_DATA, "flags", "file has no stored links; load it instead of mapping it");
  params_read(b + 16, &prm);
  if ((st = mesh_from_params(&prm, alloc, diag, &m)) < 0) return st;
  for (i = 0; i < ntiles; i++) {
    const uint8_t *e = b + NM_OWN_HEADER + (size_t)i * NM_OWN_DIRENT;
    uint32_t ref = rd32(e), size = rd32(e + 4);
    uint64_t off = (uint64_t)rd32(e + 8) | ((uint64_t)rd32(e + 12) << 32);
    if (off > len || size > len - off || ref == 0 || (off & 3)) {
      st = nm_diag_set(diag, NM_ERR_DATA, "tileDirectory", "tile %u lies outside the file or is misaligned", (unsigned)i);
      goto fail;
    }
    if (!(flags & NM_OWN_LINKS)) st = add_stored_tile(m, b + off, size, ref, (int)i, diag);
    else st = place_stored_tile(m, b + off, size, ref, (int)i, in_place, diag);
    if (st < 0) goto fail;
  }
  if ((flags & NM_OWN_LINKS) && (st = nm_links_check_all(m, !in_place, diag)) < 0) goto fail;
  if ((st = nm_islands_update(m)) < 0) goto fail;
  if (in_place) m->frozen = 1;
  *out = m;
  return NM_OK;
fail:
  nm_navmesh_release(m);
  return st;
}

nm_status nm_navmesh_load(const void *bytes, size_t len, const nm_alloc *alloc, nm_diag *diag,
                          nm_navmesh **out) {
  const uint8_t *b = (const uint8_t *)bytes;
  uint32_t magic;
  nm_status st;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!b || len < 4) return nm_diag_set(diag, NM_ERR_DATA, "magic", "no navmesh data (empty input)");
  if (!host_is_le()) return nm_diag_set(diag, NM_ERR_DATA, NULL, "big-endian hosts are not supported");
  if (memcmp(b, NM_OWN_MAGIC, 4) == 0) return nm_format_load_own(b, len, 0, alloc, diag, out);
  magic = rd32(b);
  if (magic == NM_MSET_MAGIC) st = load_mset(b, len, alloc, diag, out);
  else if (magic == NM_TILE_MAGIC) st = load_tile(b, len, alloc, diag, out);
  else return nm_diag_set(diag, NM_ERR_DATA, "magic", "unknown file type (not MSET, Detour tile or NMSH)");
  if (st >= 0 && (st = nm_islands_update(*out)) < 0) {
    nm_navmesh_release(*out);
    *out = NULL;
  }
  return st;
}

/* Exact bytes of the saved image: header, then per tile a record header
 * (MSET) or a directory entry and a 16-byte aligned blob (own format). */
static size_t save_size(const nm_navmesh *m, int format) {
  size_t n = 0, blobs = 0;
  int i, count = 0;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    count++;
    blobs += format == NM_FORMAT_MSET ? 8 + t->data_size : (t->data_size + 15) & ~(size_t)15;
  }
  if (format == NM_FORMAT_MSET) n = 40;
  else n = (NM_OWN_HEADER + (size_t)count * NM_OWN_DIRENT + 15) & ~(size_t)15;
  return n + blobs;
}

/* Writes the MSET image into buf; returns its length. */
static size_t write_mset(const nm_navmesh *m, uint8_t *buf) {
  size_t off = 40;
  int i, n = 0;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    wr32(buf + off, nm_tile_base(m, t));
    wr32(buf + off + 4, (uint32_t)t->data_size);
    memcpy(buf + off + 8, t->data, t->data_size);
    off += 8 + t->data_size;
    n++;
  }
  wr32(buf, NM_MSET_MAGIC);
  wr32(buf + 4, NM_MSET_VERSION);
  wr32(buf + 8, (uint32_t)n);
  params_write(buf + 12, m);
  return off;
}

/* Writes our own format into buf (zeroed); returns its length. */
static size_t write_own(const nm_navmesh *m, uint8_t *buf) {
  size_t dir = NM_OWN_HEADER, off;
  int i, n = 0;
  for (i = 0; i < m->top; i++) n += m->tiles[i].header != NULL;
  off = (dir + (size_t)n * NM_OWN_DIRENT + 15) & ~(size_t)15;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    wr32(buf + dir, nm_tile_base(m, t));
    wr32(buf + dir + 4, (uint32_t)t->data_size);
    wr32(buf + dir + 8, (uint32_t)off);
    wr32(buf + dir + 12, (uint32_t)((uint64_t)off >> 32));
    memcpy(buf + off, t->data, t->data_size);
    dir += NM_OWN_DIRENT;
    off = (off + t->data_size + 15) & ~(size_t)15;
  }
  memcpy(buf, NM_OWN_MAGIC, 4);
  wr32(buf + 4, NM_OWN_ENDIAN);
  wr32(buf + 8, NM_OWN_VERSION);
  wr32(buf + 12, NM_OWN_HEADER);
  params_write(buf + 16, m);
  wr32(buf + 44, (uint32_t)n);
  wr32(buf + 48, NM_OWN_LINKS);
  {
    const uint64_t sum = nm_format_checksum(buf + NM_OWN_HEADER, off - NM_OWN_HEADER);
    memcpy(buf + 52, &sum, 8); /* little-endian host */
  }
  return off;
}

nm_status nm_navmesh_save(const nm_navmesh *m, int format, void **bytes, size_t *len) {
  size_t cap, n;
  uint8_t *buf;
  if (!bytes || !len) return NM_ERR_PARAM;
  *bytes = NULL;
  *len = 0;
  if (format != NM_FORMAT_MSET && format != NM_FORMAT_NATIVE) return NM_ERR_PARAM;
  if (!host_is_le()) return NM_ERR_PARAM;
  cap = save_size(m, format);
  if (!(buf = (uint8_t *)nm_calloc(&m->alloc, cap))) return NM_ERR_NOMEM;
  n = format == NM_FORMAT_MSET ? write_mset(m, buf) : write_own(m, buf);
  (void)n; /* equals cap: save_size and the writers walk the same tiles */
  *bytes = buf;
  *len = cap;
  return NM_OK;
}
