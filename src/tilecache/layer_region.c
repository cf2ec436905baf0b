/* layer_region.c -- regions of a tile-cache layer (DetourTileCache's region pass).
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
 * Only the layer's cell rectangle (header minx..maxy) is visited: no cell
 * of the layer lies outside it, and the rest of the grid keeps no region.
 *
 * Two cells are connected when the second is walkable, the height step is
 * at most walk_climb and both have the same area (Detour does not compare
 * areas; the layers it builds have one walkable area, where this changes
 * nothing, but area-marking obstacles need regions that keep areas apart). */
#include "nm_cache.h"

#define LREG_MAX_NEIS 16

typedef struct lsweep {
  uint16_t ns;    /* cells of this sweep touching the neighbour region above */
  uint8_t id;     /* region id given to the sweep */
  uint8_t nei;    /* the one region above, 0xff none or several */
  uint16_t cells; /* cells of the sweep */
  uint16_t start; /* its first cell */
} lsweep;

typedef struct lregion {
  int area;                    /* cells */
  uint8_t neis[LREG_MAX_NEIS]; /* neighbour regions (consecutive repeats dropped) */
  uint8_t nneis;
  uint8_t reg;                 /* merged region id */
  uint8_t area_id;
  uint16_t first;              /* its first cell in row order */
} lregion;

size_t nm_lregion_scratch(int w) {
  return nm_align4((size_t)w * sizeof(lsweep)) + 256 * sizeof(lregion) + (size_t)w + 256;
}

/* 1 when a cell of area a and height h reaches a neighbour of area na and
 * height nh: same area, height step within the climb. */
static int reaches(int a, int h, int na, int nh, int climb) {
  return (na == a) & ((unsigned)(h - nh + climb) <= (unsigned)(2 * climb));
}

/* Counts the -z contacts of one sweep cell whose neighbour above (region
 * nr) it reaches: the sweep keeps one region above, or 0xff once it has
 * met two. */
static void sweep_contact(uint8_t nr, uint16_t *ns, uint8_t *nei, uint8_t *prev_count) {
  if (nr == 0xff) return;
  if (*ns == 0) *nei = nr;
  if (*nei == nr) {
    (*ns)++;
    prev_count[nr]++;
  } else {
    *nei = 0xff; /* touches two regions above */
  }
}

/* Assigns the sweep ids of row y: runs of walkable cells each reaching the
 * cell before it are one sweep (cells get the sweep's local index). The
 * counters live in locals while a run is walked. */
static int sweep_row(nm_lgrid *g, int y, int climb, lsweep *sweeps, uint8_t *prev_count) {
  const int w = g->w, x1 = g->x1;
  const uint8_t *a = g->areas + y * w, *h = g->heights + y * w;
  uint8_t *regs = g->regs + y * w;
  int x = g->x0, nsweeps = 0;
  while (x <= x1) {
    const int start = x;
    uint16_t ns = 0;
    uint8_t nei = 0xff;
    lsweep *s;
    if (a[x] == NM_LAYER_NULL_AREA) { x++; continue; }
    do {
      if (y > 0 && reaches(a[x], h[x], a[x - w], h[x - w], climb)) sweep_contact(regs[x - w], &ns, &nei, prev_count);
      regs[x] = (uint8_t)nsweeps;
      x++;
    } while (x <= x1 && a[x] != NM_LAYER_NULL_AREA && reaches(a[x], h[x], a[x - 1], h[x - 1], climb));
    s = &sweeps[nsweeps++];
    s->ns = ns;
    s->nei = nei;
    s->cells = (uint16_t)(x - start);
    s->start = (uint16_t)(start + y * w);
  }
  return nsweeps;
}

/* Appends v to a neighbour list unless it repeats the last entry. */
static void add_unique_last(lregion *r, uint8_t v) {
  if (r->nneis > 0 && r->neis[r->nneis - 1] == v) return;
  if (r->nneis >= LREG_MAX_NEIS) return;
  r->neis[r->nneis++] = v;
}

/* Gives row y's cells their region ids and adds the neighbours they meet
 * in the row above to their regions (in cell order). A sweep that continues
 * its one region above meets no other region there, so its cells are
 * skipped. */
static void settle_row(nm_lgrid *g, int y, int climb, const lsweep *sweeps, lregion *regs) {
  const int w = g->w;
  const uint8_t *a = g->areas + y * w, *h = g->heights + y * w;
  uint8_t *row = g->regs + y * w;
  int x;
  for (x = g->x0; x <= g->x1; x++) {
    const lsweep *s;
    uint8_t ri, rai;
    if (row[x] == 0xff) continue;
    s = &sweeps[row[x]];
    ri = row[x] = s->id;
    if (s->id == s->nei || y == 0 || !reaches(a[x], h[x], a[x - w], h[x - w], climb)) continue;
    rai = row[x - w];
    if (rai != 0xff && rai != ri) {
      add_unique_last(&regs[ri], rai);
      add_unique_last(&regs[rai], ri);
    }
  }
}

/* Monotone pass: region ids for every row, with each region's size, area
 * and neighbours; ERR_DATA past 255 regions. */
static nm_status sweep_all(nm_lgrid *g, int climb, lsweep *sweeps, lregion *regs, int *nregs) {
  uint8_t prev_count[256];
  int y, i, reg = 0;
  for (y = g->z0; y <= g->z1; y++) {
    int ns;
    memset(prev_count, 0, (size_t)reg);
    ns = sweep_row(g, y, climb, sweeps, prev_count);
    for (i = 0; i < ns; i++) {
      if (sweeps[i].nei != 0xff && (uint16_t)prev_count[sweeps[i].nei] == sweeps[i].ns) {
        sweeps[i].id = sweeps[i].nei;
      } else {
        if (reg == 255) return NM_ERR_DATA; /* more regions than 8-bit ids */
        memset(&regs[reg], 0, sizeof *regs);
        regs[reg].reg = (uint8_t)reg;
        regs[reg].first = sweeps[i].start;
        regs[reg].area_id = g->areas[sweeps[i].start];
        sweeps[i].id = (uint8_t)reg++;
      }
      regs[sweeps[i].id].area += sweeps[i].cells;
    }
    settle_row(g, y, climb, sweeps, regs);
  }
  *nregs = reg;
  return NM_OK;
}

/* Members of each merged region: a list per id through the regions, so
 * the merge tests and relabelling visit one region's members, not all. */
typedef struct lmembers {
  uint8_t head[256], next[256];
} lmembers;

/* 1 when the merged region old touches region nw through exactly one
 * neighbour entry (merging then keeps the shape monotone enough). */
static int can_merge(uint8_t old, uint8_t nw, const lregion *regs, const lmembers *mb) {
  int i, j, count = 0;
  for (i = mb->head[old]; i != 0xff; i = mb->next[i])
    for (j = 0; j < regs[i].nneis; j++)
      if (regs[regs[i].neis[j]].reg == nw) count++;
  return count == 1;
}

/* Relabels the members of old as nw and joins the two lists. */
static void relabel(lregion *regs, lmembers *mb, uint8_t old, uint8_t nw) {
  int i, last = 0xff;
  for (i = mb->head[old]; i != 0xff; i = mb->next[i]) {
    regs[i].reg = nw;
    last = i;
  }
  if (last == 0xff) return;
  mb->next[last] = mb->head[nw];
  mb->head[nw] = mb->head[old];
  mb->head[old] = 0xff;
}

/* Merges each region into its largest mergeable neighbour of its area. */
static void merge_regions(lregion *regs, int nregs) {
  lmembers mb;
  int i, j;
  memset(&mb, 0xff, sizeof mb);
  for (i = 0; i < nregs; i++) mb.head[i] = (uint8_t)i;
  for (i = 0; i < nregs; i++) {
    lregion *r = &regs[i];
    int merge = -1, mergea = 0;
    for (j = 0; j < r->nneis; j++) {
      const lregion *n = &regs[r->neis[j]];
      if (r->reg == n->reg || r->area_id != n->area_id) continue;
      if (n->area > mergea && can_merge(r->reg, n->reg, regs, &mb)) {
        mergea = n->area;
        merge = r->neis[j];
      }
    }
    if (merge != -1) relabel(regs, &mb, r->reg, regs[merge].reg);
  }
}

nm_status nm_lregion_build(nm_lgrid *g, int climb, void *work) {
  lsweep *sweeps = (lsweep *)work;
  lregion *regs = (lregion *)((uint8_t *)work + nm_align4((size_t)g->w * sizeof(lsweep)));
  uint8_t remap[256];
  int nregs, i, n = 0;
  nm_status st;
  memset(g->regs, 0xff, (size_t)g->w * (size_t)g->hgt);
  if ((st = sweep_all(g, climb, sweeps, regs, &nregs)) < 0) return st;
  merge_regions(regs, nregs);
  memset(remap, 0, sizeof remap); /* compact the ids, keeping their order */
  for (i = 0; i < nregs; i++) remap[regs[i].reg] = 1;
  for (i = 0; i < 256; i++)
    if (remap[i]) remap[i] = (uint8_t)n++;
  g->nregs = n;
  memset(g->first, 0xff, sizeof g->first);
  for (i = 0; i < nregs; i++) { /* cells keep their monotone ids: map them */
    const uint8_t r = remap[regs[i].reg];
    g->map[i] = r;
    if (regs[i].first < g->first[r]) g->first[r] = regs[i].first;
  }
  g->map[0xff] = 0xff;
  return NM_OK;
}
