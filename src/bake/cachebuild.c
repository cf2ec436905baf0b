/* cachebuild.c -- a tile cache from triangles, as RecastDemo's Temp Obstacles
 * sample builds one: every tile of the grid goes through the front half of
 * the Recast pipeline (rasterize the chunks near it, filters, compact
 * heightfield, erosion, area volumes: src/build), its walkable surface is
 * cut into layers (hflayers.c), at most 32 per tile, and each layer is
 * compressed with FastLZ into the cache, tiles row by row and layers in
 * order (the progress callback of the configuration is called after each
 * tile). Then every layer's navmesh tile is built in slot order, which is
 * what loading the saved file does, so references equal a load's. */
#include "../tilecache/nm_cache.h"
#include "nm_bake.h"

#define CB_MAX_LAYERS 32     /* the sample's MAX_LAYERS per tile */
#define CB_LAYERS_PER_TILE 4 /* the sample's EXPECTED_LAYERS_PER_TILE */

/* Compressed layers made so far (blobs from the cache allocator). */
typedef struct cb_list {
  uint8_t **data;
  size_t *size;
  int n, cap;
} cb_list;

static void list_free(const nm_alloc *a, cb_list *l) {
  int i;
  for (i = 0; i < l->n; i++) nm_free(a, l->data[i], l->size[i]);
  nm_free(a, l->data, sizeof(uint8_t *) * (size_t)l->cap);
  nm_free(a, l->size, sizeof(size_t) * (size_t)l->cap);
}

/* Room for one more layer. */
static nm_status list_room(const nm_alloc *a, cb_list *l) {
  uint8_t **d;
  size_t *s;
  const int cap = l->cap ? l->cap * 2 : 64;
  if (l->n < l->cap) return NM_OK;
  d = (uint8_t **)nm_malloc(a, sizeof(uint8_t *) * (size_t)cap);
  s = (size_t *)nm_malloc(a, sizeof(size_t) * (size_t)cap);
  if (!d || !s) {
    nm_free(a, d, sizeof(uint8_t *) * (size_t)cap);
    nm_free(a, s, sizeof(size_t) * (size_t)cap);
    return NM_ERR_NOMEM;
  }
  if (l->n) {
    memcpy(d, l->data, sizeof(uint8_t *) * (size_t)l->n);
    memcpy(s, l->size, sizeof(size_t) * (size_t)l->n);
  }
  nm_free(a, l->data, sizeof(uint8_t *) * (size_t)l->cap);
  nm_free(a, l->size, sizeof(size_t) * (size_t)l->cap);
  l->data = d;
  l->size = s;
  l->cap = cap;
  return NM_OK;
}

/* The stored form of one layer: 56-byte header and FastLZ body (the exact
 * size is allocated; work holds the grids and the encoder's table). */
static nm_status compress_layer(const nm_hf_layer *hl, int tx, int ty, int tlayer, const nm_alloc *a,
                                uint8_t *work, uint8_t **out, size_t *size) {
  const size_t cells = (size_t)hl->width * (size_t)hl->height;
  uint8_t *enc = work + cells * 3;
  uint32_t *htab = (uint32_t *)(void *)(enc + nm_align4(nm_fastlz_bound(cells * 3)));
  nm_layer_header h;
  size_t n;
  memset(&h, 0, sizeof h);
  h.magic = NM_LAYER_MAGIC;
  h.version = NM_LAYER_VERSION;
  h.tx = tx;
  h.ty = ty;
  h.tlayer = tlayer;
  nm_vcopy(h.bmin, hl->bmin);
  nm_vcopy(h.bmax, hl->bmax);
  h.hmin = (uint16_t)hl->hmin;
  h.hmax = (uint16_t)hl->hmax;
  h.width = (uint8_t)hl->width;
  h.height = (uint8_t)hl->height;
  h.minx = (uint8_t)hl->minx;
  h.maxx = (uint8_t)hl->maxx;
  h.miny = (uint8_t)hl->miny;
  h.maxy = (uint8_t)hl->maxy;
  memcpy(work, hl->heights, cells * 3); /* heights, areas, cons follow each other */
  n = nm_fastlz_compress(work, cells * 3, enc, htab);
  if (!(*out = (uint8_t *)nm_malloc(a, NM_LAYER_HEADER + n))) return NM_ERR_NOMEM;
  memcpy(*out, &h, NM_LAYER_HEADER);
  memcpy(*out + NM_LAYER_HEADER, enc, n);
  *size = NM_LAYER_HEADER + n;
  return NM_OK;
}

/* Layers of tile (tx, ty) appended to the list. */
static nm_status tile_layers(const nm_build_ctx *ctx, int tx, int ty, const nm_alloc *a, uint8_t *work,
                             cb_list *list) {
  nm_chf chf;
  nm_hf_layer *layers = NULL;
  int n = 0, i;
  nm_status st;
  memset(&chf, 0, sizeof chf);
  st = nm_build_tile_chf(ctx, tx, ty, &chf);
  if (st == NM_ERR_EMPTY) return NM_OK;
  if (st >= 0) st = nm_hf_layers_build(&chf, ctx->rc.border_size, ctx->rc.walkable_height, &ctx->a, &layers, &n);
  nm_chf_free(&chf);
  for (i = 0; st >= 0 && i < n && i < CB_MAX_LAYERS; i++) {
    if ((st = list_room(a, list)) < 0) break;
    st = compress_layer(&layers[i], tx, ty, i, a, work, &list->data[list->n], &list->size[list->n]);
    if (st >= 0) list->n++;
  }
  nm_hf_layers_free(&ctx->a, layers, n);
  return st;
}

/* The cache and navmesh parameters the sample derives for the grid. */
static void derive_params(const nm_build_ctx *ctx, int nlayers, int max_obstacles, nm_cache_params *p) {
  const nm_rc_config *rc = &ctx->rc;
  const nm_build_config *cfg = ctx->cfg;
  const int cells = rc->tiles_x * rc->tiles_y;
  const int tb = nm_mini((int)nm_ilog2(nm_next_pow2((uint32_t)(cells * CB_LAYERS_PER_TILE))), NM_MAX_TILE_BITS);
  nm_cache_params_init(p);
  nm_vcopy(p->orig, rc->bmin);
  p->cell_size = rc->cs;
  p->cell_height = rc->ch;
  p->width = p->height = rc->tile_size;
  p->walkable_height = cfg->agent_height;
  p->walkable_radius = cfg->agent_radius;
  p->walkable_climb = cfg->agent_max_climb;
  p->max_simplification_error = cfg->edge_max_error;
  p->max_tiles = nm_maxi(cells * CB_LAYERS_PER_TILE, nlayers);
  p->max_obstacles = max_obstacles;
  nm_vcopy(p->nav.orig, rc->bmin);
  p->nav.tile_width = p->nav.tile_height = rc->tile_world;
  p->nav.max_tiles = 1 << tb;
  p->nav.max_polys = 1 << (22 - tb);
}

/* Takes the layers into a new cache and builds their tiles in slot order. */
static nm_status make_cache(const nm_build_ctx *ctx, cb_list *list, int max_obstacles, const nm_cache_rules *rules,
                            const nm_alloc *alloc, nm_diag *diag, nm_cache **out) {
  nm_cache_params p;
  nm_cache *c = NULL;
  nm_status st;
  int i;
  derive_params(ctx, list->n, max_obstacles, &p);
  if ((st = nm_cache_new(&p, rules, alloc, diag, &c)) < 0) return st;
  for (i = 0; i < list->n; i++) {
    nm_clayer *l;
    if ((st = nm_cache_take_layer(c, list->data[i], list->size[i], diag, &l)) < 0) break;
    list->data[i] = NULL; /* the cache owns it now */
  }
  for (i = 0; st >= 0 && i < c->top; i++)
    if (c->layers[i].data) st = nm_cache_rebuild(c, &c->layers[i], diag);
  if (st < 0) {
    nm_cache_free(c);
    return st;
  }
  *out = c;
  return NM_OK;
}

nm_status nm_cache_build(const float *verts, int nverts, const int *tris, int ntris, const nm_build_config *cfg,
                         int max_obstacles, const nm_cache_rules *rules, const nm_alloc *alloc, nm_diag *diag,
                         nm_cache **out) {
  nm_alloc a = nm_alloc_resolve(alloc);
  nm_build_ctx ctx;
  cb_list list;
  uint8_t *work;
  size_t work_size;
  nm_status st;
  int tx, ty;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (cfg && (cfg->tile_size < 1 || cfg->tile_size > 255))
    return nm_diag_set(diag, NM_ERR_PARAM, "tileSize", "a tile cache needs tileSize 1..255");
  if ((st = nm_build_ctx_init(&ctx, verts, nverts, tris, ntris, cfg, alloc, diag)) < 0) return st;
  memset(&list, 0, sizeof list);
  work_size = (size_t)cfg->tile_size * (size_t)cfg->tile_size * 3;
  work_size += nm_align4(nm_fastlz_bound(work_size)) + nm_fastlz_htab_bytes();
  if (!(work = (uint8_t *)nm_malloc(&a, work_size))) st = NM_ERR_NOMEM;
  for (ty = 0; st >= 0 && ty < ctx.rc.tiles_y; ty++)
    for (tx = 0; st >= 0 && tx < ctx.rc.tiles_x; tx++) {
      st = tile_layers(&ctx, tx, ty, &a, work, &list);
      if (st >= 0 && cfg->progress &&
          cfg->progress(cfg->progress_ud, ty * ctx.rc.tiles_x + tx + 1, ctx.rc.tiles_x * ctx.rc.tiles_y))
        st = nm_diag_set(diag, NM_ERR_PARAM, "progress", "build cancelled by the progress callback");
    }
  nm_free(&a, work, work_size);
  if (st >= 0 && list.n == 0) st = nm_diag_set(diag, NM_ERR_EMPTY, NULL, "no walkable layers");
  if (st >= 0) st = make_cache(&ctx, &list, max_obstacles, rules, alloc, diag, out);
  list_free(&a, &list);
  nm_build_ctx_free(&ctx);
  if (st == NM_ERR_NOMEM) nm_diag_set(diag, st, "memory", "out of memory");
  return st;
}
