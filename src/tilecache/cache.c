/* cache.c -- the tile-cache object: parameters, layer slots and their
 * position lookup, the navmesh it maintains.
 *
 * Layer slots and references follow Detour's dtTileCache: a reference is
 * salt << tileBits | slot (tileBits from max_tiles), slots are handed out
 * lowest first and a removed slot is reused first; layers of one grid cell
 * are found newest first (Detour's hash chains), which decides the order in
 * which an obstacle's layers are rebuilt. */
#include <math.h>
#include "nm_cache.h"

void nm_cache_params_init(nm_cache_params *p) {
  memset(p, 0, sizeof *p);
  p->cell_size = 0.3f;
  p->cell_height = 0.2f;
  p->width = p->height = 48;
  p->walkable_height = 2.0f;
  p->walkable_radius = 0.6f;
  p->walkable_climb = 0.9f;
  p->max_simplification_error = 1.3f;
  p->max_obstacles = 1024;
}

void nm_cache_rules_init(nm_cache_rules *r) {
  int i;
  memset(r, 0, sizeof *r);
  for (i = 0; i < 64; i++) {
    r->poly_area[i] = (uint8_t)(i == NM_LAYER_WALKABLE ? 0 : i);
    r->poly_flags[i] = 1;
  }
}

/* 1 when v is finite and at least lo. */
static int fin_ge(float v, float lo) { return isfinite(v) && v >= lo; }

static nm_status check_params(const nm_cache_params *p, const nm_cache_rules *r, nm_diag *diag) {
  int i;
  if (!nm_isfinite3(p->orig) || !nm_coords_ok(p->orig, 3))
    return nm_diag_set(diag, NM_ERR_PARAM, "orig", "origin must be finite");
  if (!(fin_ge(p->cell_size, 0) && p->cell_size > 0 && 1.0f / p->cell_size <= 1e30f))
    return nm_diag_set(diag, NM_ERR_PARAM, "cellSize", "cellSize must be > 0");
  if (!(fin_ge(p->cell_height, 0) && p->cell_height > 0 && 1.0f / p->cell_height <= 1e30f))
    return nm_diag_set(diag, NM_ERR_PARAM, "cellHeight", "cellHeight must be > 0");
  if (p->width < 1 || p->width > 255 || p->height < 1 || p->height > 255)
    return nm_diag_set(diag, NM_ERR_PARAM, "width", "layer grid must be 1..255 cells a side");
  if (!fin_ge(p->walkable_height, 0) || !fin_ge(p->walkable_radius, 0) || !fin_ge(p->walkable_climb, 0) ||
      !nm_coord_ok(p->walkable_height) || !nm_coord_ok(p->walkable_radius) || !nm_coord_ok(p->walkable_climb))
    return nm_diag_set(diag, NM_ERR_PARAM, "walkableClimb", "agent sizes must be finite and >= 0");
  if (!fin_ge(p->max_simplification_error, 0) || p->max_simplification_error > 1e6f)
    return nm_diag_set(diag, NM_ERR_PARAM, "maxSimplificationError", "maxSimplificationError must be >= 0");
  if (p->max_tiles < 1 || p->max_tiles > (1 << 22))
    return nm_diag_set(diag, NM_ERR_PARAM, "maxTiles", "maxTiles must be in 1..4194304");
  if (p->max_obstacles < 1 || p->max_obstacles > 65536)
    return nm_diag_set(diag, NM_ERR_PARAM, "maxObstacles", "maxObstacles must be in 1..65536");
  if (!fin_ge(r->obstacle_padding, 0) || !nm_coord_ok(r->obstacle_padding))
    return nm_diag_set(diag, NM_ERR_PARAM, "obstaclePadding", "obstaclePadding must be finite and >= 0");
  for (i = 0; i < 64; i++)
    if (r->poly_area[i] >= NM_MAX_AREAS)
      return nm_diag_set(diag, NM_ERR_PARAM, "areaMap", "polygon area of layer area %d must be < 64", i);
  return nm_navmesh_params_check(&p->nav, diag);
}

/* Allocates the tables of a cache whose parameters are set. */
static nm_status cache_alloc(nm_cache *c) {
  const nm_alloc *a = &c->alloc;
  int i;
  c->tile_bits = nm_ilog2(nm_next_pow2((uint32_t)c->p.max_tiles));
  c->salt_bits = 32 - c->tile_bits > 31 ? 31 : 32 - c->tile_bits;
  c->lut_mask = nm_next_pow2((uint32_t)(c->p.max_tiles / 4 > 0 ? c->p.max_tiles / 4 : 1)) - 1;
  c->layers = (nm_clayer *)nm_calloc(a, nm_mul_size((size_t)c->p.max_tiles, sizeof(nm_clayer)));
  c->lut = (nm_clayer **)nm_calloc(a, (c->lut_mask + 1) * sizeof(nm_clayer *));
  c->obs = (nm_cobstacle *)nm_calloc(a, (size_t)c->p.max_obstacles * sizeof(nm_cobstacle));
  c->reqs = (uint16_t *)nm_malloc(a, (size_t)c->p.max_obstacles * sizeof(uint16_t));
  if (!c->layers || !c->lut || !c->obs || !c->reqs) return NM_ERR_NOMEM;
  for (i = 0; i < c->p.max_obstacles; i++) {
    c->obs[i].salt = 1;
    c->obs[i].next = i + 1 < c->p.max_obstacles ? i + 1 : -1;
  }
  c->free_ob = 0;
  c->gx0 = c->gy0 = 1;
  c->gx1 = c->gy1 = 0;
  return nm_cache_scratch_init(c);
}

nm_status nm_cache_new(const nm_cache_params *p, const nm_cache_rules *rules, const nm_alloc *alloc, nm_diag *diag,
                       nm_cache **out) {
  nm_alloc a = nm_alloc_resolve(alloc);
  nm_cache_rules defaults;
  nm_cache *c;
  nm_status st;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!p) return nm_diag_set(diag, NM_ERR_PARAM, "params", "missing parameters");
  if (!rules) {
    nm_cache_rules_init(&defaults);
    rules = &defaults;
  }
  if ((st = check_params(p, rules, diag)) < 0) return st;
  if (!(c = (nm_cache *)nm_calloc(&a, sizeof *c))) return NM_ERR_NOMEM;
  c->alloc = a;
  c->p = *p;
  c->rules = *rules;
  { /* in cell heights; layer heights are bytes, so more than 255 is all */
    const float climb = p->walkable_climb / p->cell_height;
    c->walk_climb = climb < 1000.0f ? (int)climb : 1000;
  }
  if ((st = cache_alloc(c)) < 0 || (st = nm_navmesh_new(&p->nav, &a, diag, &c->mesh)) < 0) {
    nm_cache_free(c);
    return st;
  }
  *out = c;
  return NM_OK;
}

void nm_cache_free(nm_cache *c) {
  nm_alloc a;
  int i;
  if (!c) return;
  a = c->alloc;
  if (c->layers)
    for (i = 0; i < c->top; i++) nm_free(&a, c->layers[i].data, c->layers[i].size);
  if (c->obs)
    for (i = 0; i < c->ob_top; i++) {
      nm_cobstacle *o = &c->obs[i];
      nm_free(&a, o->pverts, sizeof(float) * 3 * 64);
      nm_free(&a, o->touched, sizeof(uint32_t) * 3 * (size_t)o->cap);
    }
  nm_free(&a, c->layers, (size_t)c->p.max_tiles * sizeof(nm_clayer));
  nm_free(&a, c->lut, (c->lut_mask + 1) * sizeof(nm_clayer *));
  nm_free(&a, c->obs, (size_t)c->p.max_obstacles * sizeof(nm_cobstacle));
  nm_free(&a, c->reqs, (size_t)c->p.max_obstacles * sizeof(uint16_t));
  nm_free(&a, c->upd, (size_t)c->cap_upd * sizeof(uint32_t));
  nm_scratch_free(&c->sa, &a);
  nm_scratch_free(&c->sb, &a);
  nm_scratch_free(&c->sp, &a);
  nm_navmesh_release(c->mesh);
  nm_free(&a, c, sizeof *c);
}

nm_navmesh *nm_cache_navmesh(const nm_cache *c) { return c->mesh; }

/* ---- versions ---- */

nm_status nm_cache_use_versions(nm_cache *c, const nm_alloc *alloc) {
  nm_navmesh *v;
  nm_status st;
  if (!c) return NM_ERR_PARAM;
  if (c->versions) return NM_OK;
  if ((st = nm_navmesh_version_new(c->mesh, alloc, &v)) < 0) return st;
  nm_version_set_owner(v, c); /* readers cannot draft the cache's navmesh */
  nm_navmesh_release(c->mesh);
  c->mesh = v;
  c->versions = 1;
  return NM_OK;
}

nm_status nm_cache_write_begin(nm_cache *c) {
  nm_navmesh *d;
  nm_status st;
  if (!c->versions) return NM_OK;
  if ((st = nm_version_edit_as(c->mesh, c, &d)) < 0) return st;
  c->mesh = d; /* the draft holds the version it was made from (d->base) */
  return NM_OK;
}

void nm_cache_write_end(nm_cache *c) {
  nm_navmesh *d = c->mesh, *v;
  if (!c->versions) return;
  v = d->base;
  if (d->generation != v->generation + 1) { /* tiles changed: the next version */
    nm_navmesh_version_commit(d);
    nm_navmesh_release(v);
  } else { /* nothing changed: no new version */
    c->mesh = v;
    nm_navmesh_release(d);
  }
}
void nm_cache_get_params(const nm_cache *c, nm_cache_params *p) { *p = c->p; }

void nm_cache_get_info(const nm_cache *c, nm_cache_info *info) {
  int i;
  memset(info, 0, sizeof *info);
  info->layers = c->nlayers;
  info->max_layers = c->p.max_tiles;
  info->obstacles = c->nobs;
  info->max_obstacles = c->p.max_obstacles;
  info->pending_layers = c->nupd;
  info->pending_requests = c->nreqs;
  info->compressed_bytes = c->compressed;
  info->memory_bytes = sizeof *c + (size_t)c->p.max_tiles * sizeof(nm_clayer) +
                       (c->lut_mask + 1) * sizeof(nm_clayer *) +
                       (size_t)c->p.max_obstacles * (sizeof(nm_cobstacle) + sizeof(uint16_t)) +
                       (size_t)c->cap_upd * sizeof(uint32_t) + c->sa.size + c->sb.size + c->sp.size + c->compressed;
  for (i = 0; i < c->ob_top; i++)
    info->memory_bytes += (c->obs[i].pverts ? sizeof(float) * 3 * 64 : 0) + sizeof(uint32_t) * 3 * (size_t)c->obs[i].cap;
}

/* ---- layer slots ---- */

static uint32_t cell_hash(int x, int y, uint32_t mask) {
  return (0x8da6b343u * (uint32_t)x + 0xd8163841u * (uint32_t)y) & mask;
}

uint32_t nm_cache_layer_ref(const nm_cache *c, const nm_clayer *l) {
  return (l->salt << c->tile_bits) | (uint32_t)(l - c->layers);
}

nm_clayer *nm_cache_layer_by_ref(const nm_cache *c, uint32_t ref) {
  const uint32_t slot = ref & ((1u << c->tile_bits) - 1);
  const uint32_t salt = (ref >> c->tile_bits) & ((c->salt_bits >= 32 ? 0 : (1u << c->salt_bits)) - 1);
  nm_clayer *l;
  if (slot >= (uint32_t)c->p.max_tiles) return NULL;
  l = &c->layers[slot];
  return l->data && l->salt == salt ? l : NULL;
}

int nm_cache_layers_at(const nm_cache *c, int tx, int ty, nm_clayer **out, int cap) {
  nm_clayer *l = c->lut[cell_hash(tx, ty, c->lut_mask)];
  int n = 0;
  for (; l; l = l->next)
    if (l->h.tx == tx && l->h.ty == ty && n < cap) out[n++] = l;
  return n;
}

/* The stored layer at (tx, ty, tlayer), or NULL. */
static nm_clayer *layer_at(const nm_cache *c, int tx, int ty, int tlayer) {
  nm_clayer *l = c->lut[cell_hash(tx, ty, c->lut_mask)];
  for (; l; l = l->next)
    if (l->h.tx == tx && l->h.ty == ty && l->h.tlayer == tlayer) return l;
  return NULL;
}

/* Next free slot (removed slots first, then the lowest never used). */
static nm_clayer *slot_take(nm_cache *c) {
  nm_clayer *l;
  if (c->free_layers) {
    l = c->free_layers;
    c->free_layers = l->next;
    return l;
  }
  if (c->hwm >= c->p.max_tiles) return NULL;
  l = &c->layers[c->hwm++];
  l->salt = 1;
  return l;
}

/* Tight bounds of a layer: the box of its cells, Y from its own range. */
static void tight_bounds(const nm_cache *c, nm_clayer *l) {
  const float cs = c->p.cell_size;
  const nm_layer_header *h = &l->h;
  l->tbmin[0] = h->bmin[0] + (float)h->minx * cs;
  l->tbmin[1] = h->bmin[1];
  l->tbmin[2] = h->bmin[2] + (float)h->miny * cs;
  l->tbmax[0] = h->bmin[0] + (float)(h->maxx + 1) * cs;
  l->tbmax[1] = h->bmax[1];
  l->tbmax[2] = h->bmin[2] + (float)(h->maxy + 1) * cs;
}

nm_status nm_cache_take_layer(nm_cache *c, uint8_t *data, size_t size, nm_diag *diag, nm_clayer **out) {
  nm_layer_header h;
  nm_clayer *l;
  nm_status st;
  uint32_t hi;
  if (size <= NM_LAYER_HEADER) return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "layer shorter than its header");
  nm_layer_read_header(data, &h);
  if ((st = nm_layer_check_header(&h, c->p.width, c->p.height, diag)) < 0) return st;
  if (layer_at(c, h.tx, h.ty, h.tlayer))
    return nm_diag_set(diag, NM_ERR_FULL, "tlayer", "a layer is already at (%d, %d, layer %d)", (int)h.tx,
                       (int)h.ty, (int)h.tlayer);
  if (!(l = slot_take(c))) return nm_diag_set(diag, NM_ERR_FULL, "maxTiles", "no free layer slot");
  l->h = h;
  l->data = data;
  l->size = size;
  tight_bounds(c, l);
  hi = cell_hash(h.tx, h.ty, c->lut_mask);
  l->next = c->lut[hi];
  c->lut[hi] = l;
  if ((int)(l - c->layers) >= c->top) c->top = (int)(l - c->layers) + 1;
  if (c->gx0 > c->gx1) { c->gx0 = c->gx1 = h.tx; c->gy0 = c->gy1 = h.ty; }
  c->gx0 = nm_mini(c->gx0, h.tx); c->gx1 = nm_maxi(c->gx1, h.tx);
  c->gy0 = nm_mini(c->gy0, h.ty); c->gy1 = nm_maxi(c->gy1, h.ty);
  c->nlayers++;
  c->compressed += size;
  *out = l;
  return NM_OK;
}

/* Takes a layer just added back out (its slot is freed with a new salt),
 * so a failed nm_cache_add_layer leaves the cache as it was. */
static void layer_drop(nm_cache *c, nm_clayer *l) {
  nm_clayer **pp = &c->lut[cell_hash(l->h.tx, l->h.ty, c->lut_mask)];
  for (; *pp; pp = &(*pp)->next)
    if (*pp == l) { *pp = l->next; break; }
  c->compressed -= l->size;
  c->nlayers--;
  nm_free(&c->alloc, l->data, l->size);
  l->data = NULL;
  l->size = 0;
  l->salt = (l->salt + 1) & ((c->salt_bits >= 32 ? 0 : (1u << c->salt_bits)) - 1);
  if (l->salt == 0) l->salt = 1;
  l->next = c->free_layers;
  c->free_layers = l;
}

nm_status nm_cache_add_layer(nm_cache *c, const void *data, size_t size, int build, nm_diag *diag, uint32_t *ref) {
  uint8_t *copy;
  nm_clayer *l;
  nm_status st;
  if (ref) *ref = 0;
  if (!c || !data) return NM_ERR_PARAM;
  if (size <= NM_LAYER_HEADER) return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "layer shorter than its header");
  if (!(copy = (uint8_t *)nm_malloc(&c->alloc, size))) return NM_ERR_NOMEM;
  memcpy(copy, data, size);
  if ((st = nm_cache_take_layer(c, copy, size, diag, &l)) < 0) {
    nm_free(&c->alloc, copy, size);
    return st;
  }
  if (build) {
    if ((st = nm_cache_write_begin(c)) >= 0) {
      st = nm_cache_rebuild(c, l, diag);
      nm_cache_write_end(c);
    }
    if (st < 0) {
      layer_drop(c, l);
      return st;
    }
  }
  if (ref) *ref = nm_cache_layer_ref(c, l);
  return NM_OK;
}

void nm_cache_query_layers(const nm_cache *c, const float *bmin, const float *bmax,
                           void (*fn)(void *ud, nm_clayer *l), void *ud) {
  const float tw = (float)c->p.width * c->p.cell_size, th = (float)c->p.height * c->p.cell_size;
  const float fx0 = floorf((bmin[0] - c->p.orig[0]) / tw), fx1 = floorf((bmax[0] - c->p.orig[0]) / tw);
  const float fy0 = floorf((bmin[2] - c->p.orig[2]) / th), fy1 = floorf((bmax[2] - c->p.orig[2]) / th);
  int x0, x1, y0, y1, x, y;
  if (c->gx0 > c->gx1 || fx1 < (float)c->gx0 || fx0 > (float)c->gx1 || fy1 < (float)c->gy0 || fy0 > (float)c->gy1)
    return;
  x0 = fx0 < (float)c->gx0 ? c->gx0 : (int)fx0;
  x1 = fx1 > (float)c->gx1 ? c->gx1 : (int)fx1;
  y0 = fy0 < (float)c->gy0 ? c->gy0 : (int)fy0;
  y1 = fy1 > (float)c->gy1 ? c->gy1 : (int)fy1;
  for (y = y0; y <= y1; y++)
    for (x = x0; x <= x1; x++) {
      nm_clayer *l = c->lut[cell_hash(x, y, c->lut_mask)];
      for (; l; l = l->next) {
        if (l->h.tx != x || l->h.ty != y) continue;
        if (nm_overlap_bounds(bmin, bmax, l->tbmin, l->tbmax)) fn(ud, l);
      }
    }
}
