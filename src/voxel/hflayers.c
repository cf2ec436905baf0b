/* hflayers.c -- the walkable surface of one tile cut into 2-D layers
 * (Recast's rcBuildHeightfieldLayers), the input of the tile cache.
 *
 * A layer holds at most one walkable span per column, so it fits a 2-D grid
 * of bytes. The compact heightfield (border included) is split into
 * monotone regions by a sweep over the tile's own columns; regions that
 * share a column "overlap" and can never be in one layer. Layers are grown
 * breadth-first from each region over its neighbours that overlap nothing
 * in the layer so far and keep its height range under 255 cells, then
 * layers close in height (within 4 walkable heights) that do not overlap
 * are merged. Each layer's grid gets heights above its lowest span, areas,
 * and per cell the links to the same layer (low nibble) and the portals
 * to walkable spans of other layers or of the border (high nibble), with
 * the height raised to meet the other side of a portal. */
#include "nm_voxel.h"

#define HL_MAX_LAYERS 63 /* Recast's RC_MAX_LAYERS (RC_NOT_CONNECTED) */
#define HL_MAX_NEIS 16

typedef struct hl_region {
  uint8_t layers[HL_MAX_LAYERS]; /* regions sharing a column with this one */
  uint8_t neis[HL_MAX_NEIS];
  uint16_t ymin, ymax;
  uint8_t layer_id, nlayers, nneis, base;
} hl_region;

typedef struct hl_sweep {
  uint16_t ns;
  uint8_t id, nei;
} hl_sweep;

static int hl_contains(const uint8_t *a, int n, uint8_t v) {
  int i;
  for (i = 0; i < n; i++)
    if (a[i] == v) return 1;
  return 0;
}

/* Adds v unless present; 0 when the list is full. */
static int hl_add_unique(uint8_t *a, uint8_t *n, int max, uint8_t v) {
  if (hl_contains(a, *n, v)) return 1;
  if ((int)*n >= max) return 0;
  a[(*n)++] = v;
  return 1;
}

/* The monotone sweep of one row: local sweep ids into reg; returns the
 * sweep count. prev counts contacts with each region of the row below. */
static int hl_sweep_row(const nm_chf *chf, int border, int y, uint8_t *reg, hl_sweep *sweeps, int *prev) {
  const int w = chf->width;
  int x, nsweeps = 0;
  for (x = border; x < w - border; x++) {
    const nm_ccell *c = &chf->cells[x + y * w];
    int i;
    for (i = (int)c->index; i < (int)(c->index + c->count); i++) {
      int ai;
      uint8_t sid = 0xff;
      if (chf->areas[i] == NM_NULL_AREA) continue;
      if ((ai = nm_chf_link(chf, x + y * w, i, 0)) >= 0 && chf->areas[ai] != NM_NULL_AREA && reg[ai] != 0xff)
        sid = reg[ai];
      if (sid == 0xff) {
        if (nsweeps >= 255) return -1;
        sid = (uint8_t)nsweeps++;
        sweeps[sid].nei = 0xff;
        sweeps[sid].ns = 0;
      }
      if ((ai = nm_chf_link(chf, x + y * w, i, 3)) >= 0 && reg[ai] != 0xff) {
        const uint8_t nr = reg[ai];
        if (sweeps[sid].ns == 0) sweeps[sid].nei = nr;
        if (sweeps[sid].nei == nr) {
          sweeps[sid].ns++;
          prev[nr]++;
        } else {
          sweeps[sid].nei = 0xff;
        }
      }
      reg[i] = sid;
    }
  }
  return nsweeps;
}

/* Monotone regions of every span of the tile's own columns (0xff others).
 * ERR_DATA past 255 regions. */
static nm_status hl_sweep_all(const nm_chf *chf, int border, uint8_t *reg, hl_sweep *sweeps, int *nregs) {
  const int w = chf->width, h = chf->height;
  int prev[256], y, x, i, id = 0;
  for (y = border; y < h - border; y++) {
    int ns;
    memset(prev, 0, sizeof(int) * (size_t)id);
    if ((ns = hl_sweep_row(chf, border, y, reg, sweeps, prev)) < 0) return NM_ERR_DATA;
    for (i = 0; i < ns; i++) {
      if (sweeps[i].nei != 0xff && prev[sweeps[i].nei] == (int)sweeps[i].ns) {
        sweeps[i].id = sweeps[i].nei;
      } else {
        if (id == 255) return NM_ERR_DATA;
        sweeps[i].id = (uint8_t)id++;
      }
    }
    for (x = border; x < w - border; x++) {
      const nm_ccell *c = &chf->cells[x + y * w];
      for (i = (int)c->index; i < (int)(c->index + c->count); i++)
        if (reg[i] != 0xff) reg[i] = sweeps[reg[i]].id;
    }
  }
  *nregs = id;
  return NM_OK;
}

/* Height ranges, neighbours and overlapping regions (column by column).
 * ERR_DATA when a region overlaps more than 63 others. */
static nm_status hl_relations(const nm_chf *chf, const uint8_t *reg, hl_region *regs) {
  int x, y, i, j;
  for (y = 0; y < chf->height; y++)
    for (x = 0; x < chf->width; x++) {
      const nm_ccell *c = &chf->cells[x + y * chf->width];
      uint8_t lregs[HL_MAX_LAYERS];
      int nl = 0, dir;
      for (i = (int)c->index; i < (int)(c->index + c->count); i++) {
        const uint8_t ri = reg[i];
        if (ri == 0xff) continue;
        if (chf->spans[i].y < regs[ri].ymin) regs[ri].ymin = chf->spans[i].y;
        if (chf->spans[i].y > regs[ri].ymax) regs[ri].ymax = chf->spans[i].y;
        if (nl < HL_MAX_LAYERS) lregs[nl++] = ri;
        for (dir = 0; dir < 4; dir++) {
          const int ai = nm_chf_link(chf, x + y * chf->width, i, dir);
          if (ai >= 0 && reg[ai] != 0xff && reg[ai] != ri)
            hl_add_unique(regs[ri].neis, &regs[ri].nneis, HL_MAX_NEIS, reg[ai]); /* full: more layers, fine */
        }
      }
      for (i = 0; i < nl - 1; i++)
        for (j = i + 1; j < nl; j++)
          if (lregs[i] != lregs[j] &&
              (!hl_add_unique(regs[lregs[i]].layers, &regs[lregs[i]].nlayers, HL_MAX_LAYERS, lregs[j]) ||
               !hl_add_unique(regs[lregs[j]].layers, &regs[lregs[j]].nlayers, HL_MAX_LAYERS, lregs[i])))
            return NM_ERR_DATA;
    }
  return NM_OK;
}

/* Joins region nei into the layer grown from root. */
static nm_status hl_join(hl_region *root, hl_region *n, uint8_t id) {
  int k;
  n->layer_id = id;
  for (k = 0; k < n->nlayers; k++)
    if (!hl_add_unique(root->layers, &root->nlayers, HL_MAX_LAYERS, n->layers[k])) return NM_ERR_DATA;
  root->ymin = (uint16_t)nm_mini(root->ymin, n->ymin);
  root->ymax = (uint16_t)nm_maxi(root->ymax, n->ymax);
  return NM_OK;
}

/* Grows layers breadth-first from each region not yet in one (a queue of
 * at most 64, as Recast's). Returns the layer count or -1 on overflow. */
static int hl_grow(hl_region *regs, int nregs) {
  uint8_t stack[64];
  int i, nstack, id = 0;
  for (i = 0; i < nregs; i++) {
    hl_region *root = &regs[i];
    if (root->layer_id != 0xff) continue;
    root->layer_id = (uint8_t)id;
    root->base = 1;
    nstack = 0;
    stack[nstack++] = (uint8_t)i;
    while (nstack) {
      const hl_region *reg = &regs[stack[0]];
      int j;
      nstack--;
      memmove(stack, stack + 1, (size_t)nstack);
      for (j = 0; j < reg->nneis; j++) {
        const uint8_t nei = reg->neis[j];
        hl_region *n = &regs[nei];
        if (n->layer_id != 0xff || hl_contains(root->layers, root->nlayers, nei)) continue;
        if (nm_maxi(root->ymax, n->ymax) - nm_mini(root->ymin, n->ymin) >= 255) continue;
        if (nstack >= 64) continue;
        stack[nstack++] = nei;
        if (hl_join(root, n, (uint8_t)id) < 0) return -1;
      }
    }
    if (id == 255) return -1;
    id++;
  }
  return id;
}

/* The layer of some base region, other than ri's, that ri may absorb:
 * close in height, the joined range under 255, no region of it overlapping
 * ri. 0xff when none. */
static uint8_t hl_merge_candidate(const hl_region *regs, int nregs, int i, int merge_height) {
  const hl_region *ri = &regs[i];
  int j, k;
  for (j = 0; j < nregs; j++) {
    const hl_region *rj = &regs[j];
    int overlap = 0;
    if (i == j || !rj->base) continue;
    if (ri->ymin > rj->ymax + merge_height || ri->ymax + merge_height < rj->ymin) continue;
    if (nm_maxi(ri->ymax, rj->ymax) - nm_mini(ri->ymin, rj->ymin) >= 255) continue;
    for (k = 0; k < nregs && !overlap; k++)
      overlap = regs[k].layer_id == rj->layer_id && hl_contains(ri->layers, ri->nlayers, (uint8_t)k);
    if (!overlap) return rj->layer_id;
  }
  return 0xff;
}

/* Merges layers that are close in height and do not overlap. */
static nm_status hl_merge(hl_region *regs, int nregs, int walkable_height) {
  const int merge_height = (uint16_t)(walkable_height * 4);
  int i, j;
  for (i = 0; i < nregs; i++) {
    hl_region *ri = &regs[i];
    if (!ri->base) continue;
    for (;;) {
      const uint8_t old = hl_merge_candidate(regs, nregs, i, merge_height);
      if (old == 0xff) break;
      for (j = 0; j < nregs; j++) {
        hl_region *rj = &regs[j];
        int k;
        if (rj->layer_id != old) continue;
        rj->base = 0;
        rj->layer_id = ri->layer_id;
        for (k = 0; k < rj->nlayers; k++)
          if (!hl_add_unique(ri->layers, &ri->nlayers, HL_MAX_LAYERS, rj->layers[k])) return NM_ERR_DATA;
        ri->ymin = (uint16_t)nm_mini(ri->ymin, rj->ymin);
        ri->ymax = (uint16_t)nm_maxi(ri->ymax, rj->ymax);
      }
    }
  }
  return NM_OK;
}

/* Layer ids compacted to 0..n-1 in order; returns n. */
static int hl_compact(hl_region *regs, int nregs) {
  uint8_t remap[256];
  int i, n = 0;
  memset(remap, 0, sizeof remap);
  for (i = 0; i < nregs; i++) remap[regs[i].layer_id] = 1;
  for (i = 0; i < 256; i++) remap[i] = remap[i] ? (uint8_t)n++ : 0xff;
  for (i = 0; i < nregs; i++) regs[i].layer_id = remap[regs[i].layer_id];
  return n;
}

/* Grids of layer id: heights above hmin, areas, links and portals. */
static void hl_fill(const nm_chf *chf, int border, const uint8_t *reg, const hl_region *regs, uint8_t id,
                    nm_hf_layer *l) {
  const int w = chf->width, lw = l->width, lh = l->height;
  int x, y, j, dir;
  for (y = 0; y < lh; y++)
    for (x = 0; x < lw; x++) {
      const int cx = border + x, cy = border + y;
      const nm_ccell *c = &chf->cells[cx + cy * w];
      for (j = (int)c->index; j < (int)(c->index + c->count); j++) {
        const int idx = x + y * lw;
        uint8_t portal = 0, con = 0;
        if (reg[j] == 0xff || regs[reg[j]].layer_id != id) continue;
        l->minx = nm_mini(l->minx, x); l->maxx = nm_maxi(l->maxx, x);
        l->miny = nm_mini(l->miny, y); l->maxy = nm_maxi(l->maxy, y);
        l->heights[idx] = (uint8_t)(chf->spans[j].y - l->hmin);
        l->areas[idx] = chf->areas[j];
        for (dir = 0; dir < 4; dir++) {
          const int ai = nm_chf_link(chf, cx + cy * w, j, dir);
          uint8_t alid;
          if (ai < 0 || chf->areas[ai] == NM_NULL_AREA) continue;
          alid = reg[ai] != 0xff ? regs[reg[ai]].layer_id : 0xff;
          if (alid != id) { /* portal: the height meets the other side */
            portal |= (uint8_t)(1 << dir);
            if (chf->spans[ai].y > l->hmin && (uint8_t)(chf->spans[ai].y - l->hmin) > l->heights[idx])
              l->heights[idx] = (uint8_t)(chf->spans[ai].y - l->hmin);
          } else {
            const int nx = cx + nm_dir_dx(dir) - border, ny = cy + nm_dir_dy(dir) - border;
            if (nx >= 0 && ny >= 0 && nx < lw && ny < lh) con |= (uint8_t)(1 << dir);
          }
        }
        l->cons[idx] = (uint8_t)((portal << 4) | con);
      }
    }
  if (l->minx > l->maxx) l->minx = l->maxx = 0;
  if (l->miny > l->maxy) l->miny = l->maxy = 0;
}

/* Makes layer id: bounds, height range, grids (one allocation). */
static nm_status hl_layer(const nm_chf *chf, int border, const uint8_t *reg, const hl_region *regs, int nregs,
                          uint8_t id, const nm_alloc *a, nm_hf_layer *l) {
  const int lw = chf->width - 2 * border, lh = chf->height - 2 * border;
  const size_t cells = (size_t)lw * (size_t)lh;
  int j;
  memset(l, 0, sizeof *l);
  if (!(l->heights = (uint8_t *)nm_malloc(a, cells * 3))) return NM_ERR_NOMEM;
  l->areas = l->heights + cells;
  l->cons = l->areas + cells;
  memset(l->heights, 0xff, cells);
  memset(l->areas, 0, cells * 2);
  for (j = 0; j < nregs; j++)
    if (regs[j].base && regs[j].layer_id == id) {
      l->hmin = regs[j].ymin;
      l->hmax = regs[j].ymax;
    }
  l->width = lw;
  l->height = lh;
  nm_vcopy(l->bmin, chf->bmin);
  nm_vcopy(l->bmax, chf->bmax);
  l->bmin[0] += (float)border * chf->cs;
  l->bmin[2] += (float)border * chf->cs;
  l->bmax[0] -= (float)border * chf->cs;
  l->bmax[2] -= (float)border * chf->cs;
  l->bmin[1] = chf->bmin[1] + (float)l->hmin * chf->ch;
  l->bmax[1] = chf->bmin[1] + (float)l->hmax * chf->ch;
  l->minx = lw;
  l->miny = lh;
  hl_fill(chf, border, reg, regs, id, l);
  return NM_OK;
}

void nm_hf_layers_free(const nm_alloc *a, nm_hf_layer *layers, int n) {
  int i;
  if (!layers) return;
  for (i = 0; i < n; i++)
    nm_free(a, layers[i].heights, (size_t)layers[i].width * (size_t)layers[i].height * 3);
  nm_free(a, layers, sizeof(nm_hf_layer) * (size_t)n);
}

/* Regions, their relations, grown and merged layers. */
static nm_status hl_partition(const nm_chf *chf, int border, int walkable_height, uint8_t *reg, hl_region *regs,
                              int *nregs, int *nlayers) {
  hl_sweep *sweeps = (hl_sweep *)regs; /* the sweep state fits the region records */
  nm_status st;
  int i;
  if ((st = hl_sweep_all(chf, border, reg, sweeps, nregs)) < 0) return st;
  memset(regs, 0, sizeof(hl_region) * (size_t)*nregs);
  for (i = 0; i < *nregs; i++) {
    regs[i].layer_id = 0xff;
    regs[i].ymin = 0xffff;
  }
  if ((st = hl_relations(chf, reg, regs)) < 0) return st;
  if (hl_grow(regs, *nregs) < 0) return NM_ERR_DATA;
  if ((st = hl_merge(regs, *nregs, walkable_height)) < 0) return st;
  *nlayers = hl_compact(regs, *nregs);
  return NM_OK;
}

nm_status nm_hf_layers_build(const nm_chf *chf, int border, int walkable_height, const nm_alloc *a,
                             nm_hf_layer **out, int *nlayers) {
  uint8_t *reg;
  hl_region *regs;
  nm_hf_layer *layers = NULL;
  int nregs = 0, n = 0, i;
  nm_status st;
  *out = NULL;
  *nlayers = 0;
  reg = (uint8_t *)nm_malloc(a, (size_t)chf->span_count + 1);
  regs = (hl_region *)nm_malloc(a, sizeof(hl_region) * 256 + sizeof(hl_sweep) * (size_t)chf->width);
  if (!reg || !regs) { st = NM_ERR_NOMEM; goto done; }
  memset(reg, 0xff, (size_t)chf->span_count + 1);
  if ((st = hl_partition(chf, border, walkable_height, reg, regs, &nregs, &n)) < 0 || n == 0) goto done;
  if (!(layers = (nm_hf_layer *)nm_calloc(a, sizeof(nm_hf_layer) * (size_t)n))) { st = NM_ERR_NOMEM; goto done; }
  for (i = 0; i < n; i++)
    if ((st = hl_layer(chf, border, reg, regs, nregs, (uint8_t)i, a, &layers[i])) < 0) {
      nm_hf_layers_free(a, layers, n); /* grids not made yet are NULL */
      layers = NULL;
      goto done;
    }
  *out = layers;
  *nlayers = n;
done:
  nm_free(a, reg, (size_t)chf->span_count + 1);
  nm_free(a, regs, sizeof(hl_region) * 256 + sizeof(hl_sweep) * (size_t)chf->width);
  return st;
}
