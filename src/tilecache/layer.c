/* layer.c -- one stored layer: its 56-byte header (checked field by field)
 * and its decompression into the working grids; the scratch memory the
 * rebuild stages share. Layout: shared/docs/tilecache-format.md, 2. */
#include "nm_cache.h"

nm_status nm_scratch_reserve(nm_scratch *s, const nm_alloc *a, size_t n) {
  uint8_t *p;
  if (n <= s->size) return NM_OK;
  n = nm_align4(n + n / 4);
  if (!(p = (uint8_t *)nm_malloc(a, n))) return NM_ERR_NOMEM;
  nm_free(a, s->p, s->size);
  s->p = p;
  s->size = n;
  s->used = 0;
  return NM_OK;
}

void nm_scratch_free(nm_scratch *s, const nm_alloc *a) {
  nm_free(a, s->p, s->size);
  s->p = NULL;
  s->size = s->used = 0;
}

void nm_layer_read_header(const uint8_t *d, nm_layer_header *h) {
  int i;
  h->magic = (int32_t)nm_rd32(d);
  h->version = (int32_t)nm_rd32(d + 4);
  h->tx = (int32_t)nm_rd32(d + 8);
  h->ty = (int32_t)nm_rd32(d + 12);
  h->tlayer = (int32_t)nm_rd32(d + 16);
  for (i = 0; i < 6; i++) {
    const uint32_t u = nm_rd32(d + 20 + 4 * i);
    memcpy(i < 3 ? &h->bmin[i] : &h->bmax[i - 3], &u, 4);
  }
  h->hmin = (uint16_t)(d[44] | (d[45] << 8));
  h->hmax = (uint16_t)(d[46] | (d[47] << 8));
  h->width = d[48];
  h->height = d[49];
  h->minx = d[50];
  h->maxx = d[51];
  h->miny = d[52];
  h->maxy = d[53];
  h->pad[0] = d[54];
  h->pad[1] = d[55];
}

nm_status nm_layer_check_header(const nm_layer_header *h, int w, int hgt, nm_diag *diag) {
  int i;
  if (h->magic != NM_LAYER_MAGIC) return nm_diag_set(diag, NM_ERR_DATA, "magic", "not a tile-cache layer (bad magic)");
  if (h->version != NM_LAYER_VERSION)
    return nm_diag_set(diag, NM_ERR_DATA, "version", "layer version %d, expected 1", (int)h->version);
  if (h->tx < -NM_MAX_TILE_COORD || h->tx > NM_MAX_TILE_COORD || h->ty < -NM_MAX_TILE_COORD ||
      h->ty > NM_MAX_TILE_COORD)
    return nm_diag_set(diag, NM_ERR_DATA, "tx", "layer tile coordinates out of range");
  if (h->tlayer < 0 || h->tlayer > NM_LAYER_MAX_TLAYER)
    return nm_diag_set(diag, NM_ERR_DATA, "tlayer", "layer index %d outside 0..255", (int)h->tlayer);
  for (i = 0; i < 3; i++)
    if (!nm_coord_ok(h->bmin[i]) || !nm_coord_ok(h->bmax[i]) || h->bmin[i] > h->bmax[i])
      return nm_diag_set(diag, NM_ERR_DATA, "bmin", "layer bounds not finite, out of range or inverted");
  if (h->hmin > h->hmax) return nm_diag_set(diag, NM_ERR_DATA, "hmin", "layer hmin %d above hmax %d", h->hmin, h->hmax);
  if (h->width != w || h->height != hgt)
    return nm_diag_set(diag, NM_ERR_DATA, "width", "layer grid %d x %d, the cache's is %d x %d", h->width,
                       h->height, w, hgt);
  if (h->minx > h->maxx || h->maxx >= w || h->miny > h->maxy || h->maxy >= hgt)
    return nm_diag_set(diag, NM_ERR_DATA, "minx", "layer cell rectangle outside its grid");
  return NM_OK;
}

/* Connection bits that would lead out of the grid are dropped, so the
 * stages never step outside it whatever the stored bits say. (Areas are
 * masked to 0..63 where they become polygon areas.) */
static void sanitize(nm_lgrid *g) {
  int x, z;
  for (x = 0; x < g->w; x++) {
    g->cons[x] &= (uint8_t)~8u;
    g->cons[x + (g->hgt - 1) * g->w] &= (uint8_t)~2u;
  }
  for (z = 0; z < g->hgt; z++) {
    g->cons[z * g->w] &= (uint8_t)~1u;
    g->cons[g->w - 1 + z * g->w] &= (uint8_t)~4u;
  }
}

nm_status nm_layer_decompress(const uint8_t *data, size_t size, nm_lgrid *g, nm_diag *diag) {
  const size_t cells = (size_t)g->w * (size_t)g->hgt;
  size_t n;
  if (size <= NM_LAYER_HEADER) return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "layer has no compressed body");
  nm_layer_read_header(data, &g->h);
  if (nm_fastlz_decompress(data + NM_LAYER_HEADER, size - NM_LAYER_HEADER, g->heights, cells * 3, &n) < 0)
    return nm_diag_set(diag, NM_ERR_DATA, "data", "layer body is not a valid FastLZ level-1 stream");
  if (n != cells * 3)
    return nm_diag_set(diag, NM_ERR_DATA, "data", "layer body decodes to %lu bytes, expected %lu",
                       (unsigned long)n, (unsigned long)(cells * 3));
  sanitize(g);
  g->x0 = g->h.minx;
  g->x1 = g->h.maxx;
  g->z0 = g->h.miny;
  g->z1 = g->h.maxy;
  return NM_OK;
}
