/* lregion.c -- regions of a tile-cache layer (DetourTileCache's region pass).
 *
 * A layer is a 2-D grid, so regions come from one sweep over its rows
 * instead of a watershed: in each row, runs of connected cells ("sweeps")
 * continue the region above them when they touch exactly one region there
 * along their whole length and that region touches nothing else in this
 * row; otherwise they start a new region (monotone partitioning). Then
 * regions are merged into their largest neighbour of the same area where
 * that neighbour is their only contact with it, which joins the monotone
 * strips of simple shapes back together. At most 255 regions (8-bit ids).
 *
 * Two cells are connected when the second is walkable, the height step is
 * at most walk_climb and both have the same area (Detour does not compare
 * areas; the layers it builds have one walkable area, where this changes
 * nothing, but area-marking obstacles need regions that keep areas apart). */
#include "nm_cache.h"

#define LREG_MAX_NEIS 16

typedef struct lsweep {
  uint16_t ns;   /* cells of this sweep touching the neighbour region above */
  uint8_t id;    /* region id given to the sweep */
  uint8_t nei;   /* the one region above, 0xff none or several */
} lsweep;

typedef struct lregion {
  int area;                    /* cells */
  uint8_t neis[LREG_MAX_NEIS]; /* neighbour regions (consecutive repeats dropped) */
  uint8_t nneis;
  uint8_t reg;                 /* merged region id */
  uint8_t area_id;
} lregion;

size_t nm_lregion_scratch(int w) {
  return nm_align4((size_t)w * sizeof(lsweep)) + 256 * sizeof(lregion) + 256;
}

/* 1 when cell ib is reachable from cell ia (walkable, climbable, same area). */
static int lconnected(const nm_lgrid *g, int ia, int ib, int climb) {
  int dh;
  if (g->areas[ib] == NM_LAYER_NULL_AREA || g->areas[ib] != g->areas[ia]) return 0;
  dh = (int)g->heights[ia] - (int)g->heights[ib];
  return dh <= climb && dh >= -climb;
}

/* Assigns the sweep ids of row y (cells get their local sweep index). */
static int sweep_row(nm_lgrid *g, int y, int climb, lsweep *sweeps, uint8_t *prev_count) {
  const int w = g->w;
  int x, nsweeps = 0;
  for (x = 0; x < w; x++) {
    const int idx = x + y * w;
    uint8_t sid = 0xff;
    if (g->areas[idx] == NM_LAYER_NULL_AREA) continue;
    if (x > 0 && lconnected(g, idx, idx - 1, climb) && g->regs[idx - 1] != 0xff) sid = g->regs[idx - 1];
    if (sid == 0xff) {
      sid = (uint8_t)nsweeps++;
      sweeps[sid].nei = 0xff;
      sweeps[sid].ns = 0;
    }
    if (y > 0 && lconnected(g, idx, idx - w, climb)) {
      const uint8_t nr = g->regs[idx - w];
      if (nr != 0xff) {
        if (sweeps[sid].ns == 0) sweeps[sid].nei = nr;
        if (sweeps[sid].nei == nr) {
          sweeps[sid].ns++;
          prev_count[nr]++;
        } else {
          sweeps[sid].nei = 0xff; /* touches two regions above */
        }
      }
    }
    g->regs[idx] = sid;
  }
  return nsweeps;
}

/* Monotone pass: region ids for every row; ERR_DATA past 255 regions. */
static nm_status sweep_all(nm_lgrid *g, int climb, lsweep *sweeps, int *nregs) {
  uint8_t prev_count[256];
  int y, x, i, reg = 0;
  for (y = 0; y < g->hgt; y++) {
    int ns;
    memset(prev_count, 0, (size_t)reg);
    ns = sweep_row(g, y, climb, sweeps, prev_count);
    for (i = 0; i < ns; i++) {
      if (sweeps[i].nei != 0xff && (uint16_t)prev_count[sweeps[i].nei] == sweeps[i].ns) {
        sweeps[i].id = sweeps[i].nei;
      } else {
        if (reg == 255) return NM_ERR_DATA; /* more regions than 8-bit ids */
        sweeps[i].id = (uint8_t)reg++;
      }
    }
    for (x = 0; x < g->w; x++) {
      uint8_t *r = &g->regs[x + y * g->w];
      if (*r != 0xff) *r = sweeps[*r].id;
    }
  }
  *nregs = reg;
  return NM_OK;
}

/* Appends v to a neighbour list unless it repeats the last entry. */
static void add_unique_last(lregion *r, uint8_t v) {
  if (r->nneis > 0 && r->neis[r->nneis - 1] == v) return;
  if (r->nneis >= LREG_MAX_NEIS) return;
  r->neis[r->nneis++] = v;
}

/* Sizes, areas and row-to-row neighbours of the monotone regions. */
static void region_neighbours(const nm_lgrid *g, int climb, lregion *regs, int nregs) {
  int x, y, i;
  memset(regs, 0, sizeof(lregion) * (size_t)nregs);
  for (y = 0; y < g->hgt; y++)
    for (x = 0; x < g->w; x++) {
      const int idx = x + y * g->w;
      const uint8_t ri = g->regs[idx];
      if (ri == 0xff) continue;
      regs[ri].area++;
      regs[ri].area_id = g->areas[idx];
      if (y > 0 && lconnected(g, idx, idx - g->w, climb)) {
        const uint8_t rai = g->regs[idx - g->w];
        if (rai != 0xff && rai != ri) {
          add_unique_last(&regs[ri], rai);
          add_unique_last(&regs[rai], ri);
        }
      }
    }
  for (i = 0; i < nregs; i++) regs[i].reg = (uint8_t)i;
}

/* 1 when the merged region old touches region nw through exactly one
 * neighbour entry (merging then keeps the shape monotone enough). */
static int can_merge(uint8_t old, uint8_t nw, const lregion *regs, int nregs) {
  int i, j, count = 0;
  for (i = 0; i < nregs; i++) {
    if (regs[i].reg != old) continue;
    for (j = 0; j < regs[i].nneis; j++)
      if (regs[regs[i].neis[j]].reg == nw) count++;
  }
  return count == 1;
}

/* Merges each region into its largest mergeable neighbour of its area. */
static void merge_regions(lregion *regs, int nregs) {
  int i, j;
  for (i = 0; i < nregs; i++) {
    lregion *r = &regs[i];
    int merge = -1, mergea = 0;
    for (j = 0; j < r->nneis; j++) {
      const lregion *n = &regs[r->neis[j]];
      if (r->reg == n->reg || r->area_id != n->area_id) continue;
      if (n->area > mergea && can_merge(r->reg, n->reg, regs, nregs)) {
        mergea = n->area;
        merge = r->neis[j];
      }
    }
    if (merge != -1) {
      const uint8_t old = r->reg, nw = regs[merge].reg;
      for (j = 0; j < nregs; j++)
        if (regs[j].reg == old) regs[j].reg = nw;
    }
  }
}

nm_status nm_lregion_build(nm_lgrid *g, int climb, void *work) {
  lsweep *sweeps = (lsweep *)work;
  lregion *regs = (lregion *)((uint8_t *)work + nm_align4((size_t)g->w * sizeof(lsweep)));
  uint8_t remap[256];
  int nregs, i, n = 0;
  nm_status st;
  memset(g->regs, 0xff, (size_t)g->w * (size_t)g->hgt);
  if ((st = sweep_all(g, climb, sweeps, &nregs)) < 0) return st;
  region_neighbours(g, climb, regs, nregs);
  merge_regions(regs, nregs);
  memset(remap, 0, sizeof remap); /* compact the ids, keeping their order */
  for (i = 0; i < nregs; i++) remap[regs[i].reg] = 1;
  for (i = 0; i < 256; i++)
    if (remap[i]) remap[i] = (uint8_t)n++;
  for (i = 0; i < nregs; i++) regs[i].reg = remap[regs[i].reg];
  g->nregs = n;
  for (i = 0; i < g->w * g->hgt; i++)
    if (g->regs[i] != 0xff) g->regs[i] = regs[g->regs[i]].reg;
  return NM_OK;
}
