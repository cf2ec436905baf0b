/* region.c -- watershed partition of the compact heightfield (Recast's).
 *
 * The distance field is read as a terrain whose peaks are the centres of
 * open areas. Water rises level by level (two distance units at a time,
 * from the highest level down): at each level the existing regions first
 * grow into the newly submerged spans (a few rounds, each span joining the
 * neighbouring region it is closest to), then every submerged span still
 * without a region seeds a new region flooded over the spans at or above
 * the level. Spans in the border strips of a tiled build get border
 * regions of their own first. A final unbounded growth round fills what is
 * left, and region_merge.c removes and merges small regions.
 *
 * Submerged spans are kept in 8 level buckets refilled every 8 levels, and
 * growth rounds drop finished entries in place (order is kept, so results
 * match a scan that skips them). */
#include "nm_region.h"

#define WS_NB_STACKS 8
#define WS_EXPAND_ITERS 8

typedef struct ws_dirty {
  int i, r, d;
} ws_dirty;

typedef struct ws_stack {
  int *v;               /* span indices */
  int n, cap;
} ws_stack;

typedef struct ws_ctx {
  nm_chf *chf;
  uint16_t *reg, *rdist;        /* region per span, distance to the region's seed */
  ws_stack lvl[WS_NB_STACKS];   /* level buckets */
  ws_stack stack;               /* flood fill and final growth */
  ws_dirty *dirty;
  int dirty_cap;
} ws_ctx;

/* Appends span i to s, growing it through the chf's allocator. */
static nm_status ws_push(ws_ctx *w, ws_stack *s, int i) {
  if (s->n == s->cap && nm_grow(&w->chf->a, &s->v, &s->cap, s->n + 1, sizeof *s->v) != NM_OK)
    return NM_ERR_NOMEM;
  s->v[s->n++] = i;
  return NM_OK;
}

/* Refills the buckets: bucket k gets the unassigned spans whose level is k
 * steps below `level` (the last bucket nothing deeper). */
static nm_status ws_sort_levels(ws_ctx *w, int level) {
  const nm_chf *chf = w->chf;
  const int start = level >> 1;
  int k, i;
  for (k = 0; k < WS_NB_STACKS; k++) w->lvl[k].n = 0;
  for (i = 0; i < chf->span_count; i++) { /* span order is column order */
    int sid;
    if (chf->areas[i] == NM_NULL_AREA || w->reg[i] != 0) continue;
    sid = start - (chf->dist[i] >> 1);
    if (sid >= WS_NB_STACKS) continue;
    if (sid < 0) sid = 0;
    if (ws_push(w, &w->lvl[sid], i) != NM_OK) return NM_ERR_NOMEM;
  }
  return NM_OK;
}

/* Carries the still unassigned entries of src over to dst. */
static nm_status ws_append(ws_ctx *w, const ws_stack *src, ws_stack *dst) {
  int j;
  for (j = 0; j < src->n; j++)
    if (w->reg[src->v[j]] == 0 && ws_push(w, dst, src->v[j]) != NM_OK) return NM_ERR_NOMEM;
  return NM_OK;
}

/* Region that span i would join: the neighbour (same area, not a border
 * region) with the smallest distance to its seed; 0 when none. */
static int ws_best_neighbour(const ws_ctx *w, int i, int *dist) {
  const nm_chf *chf = w->chf;
  const uint8_t area = chf->areas[i];
  int dir, r = w->reg[i], d2 = 0xffff;
  for (dir = 0; dir < 4; dir++) {
    const int ni = nm_chf_nei(chf, i, dir);
    int nr;
    if (ni < 0 || chf->areas[ni] != area) continue;
    nr = w->reg[ni];
    if (nr > 0 && !(nr & NM_BORDER_REG) && w->rdist[ni] + 2 < d2) {
      r = nr;
      d2 = w->rdist[ni] + 2;
    }
  }
  *dist = d2;
  return r;
}

/* One growth round over s: entries that find a region are applied after
 * the round (so the round does not depend on entry order) and dropped.
 * Returns how many joined a region. */
static int ws_grow_round(ws_ctx *w, ws_stack *s) {
  int j, k = 0, nd = 0;
  for (j = 0; j < s->n; j++) {
    int d2;
    const int r = ws_best_neighbour(w, s->v[j], &d2);
    if (r) {
      w->dirty[nd].i = s->v[j];
      w->dirty[nd].r = r;
      w->dirty[nd].d = d2;
      nd++;
    } else {
      s->v[k++] = s->v[j];
    }
  }
  for (j = 0; j < nd; j++) {
    w->reg[w->dirty[j].i] = (uint16_t)w->dirty[j].r;
    w->rdist[w->dirty[j].i] = (uint16_t)w->dirty[j].d;
  }
  s->n = k;
  return nd;
}

/* Grows existing regions into the spans of s, at most max_iter rounds when
 * level > 0, until nothing changes otherwise. */
static nm_status ws_expand(ws_ctx *w, ws_stack *s, int level, int max_iter) {
  int j, k = 0, iter = 0;
  /* Entries that already have a region (flooded since they were bucketed)
   * are dropped; the survivors keep their order, which the seeding pass
   * after the growth depends on. */
  for (j = 0; j < s->n; j++)
    if (w->reg[s->v[j]] == 0) s->v[k++] = s->v[j];
  s->n = k;
  if (nm_grow(&w->chf->a, &w->dirty, &w->dirty_cap, s->n, sizeof *w->dirty) != NM_OK)
    return NM_ERR_NOMEM;
  while (s->n > 0) {
    if (ws_grow_round(w, s) == 0) break;
    if (level > 0 && ++iter >= max_iter) break;
  }
  return NM_OK;
}

/* Collects every unassigned walkable span into the flood stack for the
 * final growth. */
static nm_status ws_fill_rest(ws_ctx *w) {
  const nm_chf *chf = w->chf;
  int i;
  w->stack.n = 0;
  for (i = 0; i < chf->span_count; i++)
    if (w->reg[i] == 0 && chf->areas[i] != NM_NULL_AREA && ws_push(w, &w->stack, i) != NM_OK)
      return NM_ERR_NOMEM;
  return NM_OK;
}

/* Region met next to span i (directly, or diagonally via the neighbour),
 * other than r; 0 when none. Border regions count only diagonally. */
static int ws_other_region(const ws_ctx *w, int i, int r) {
  const nm_chf *chf = w->chf;
  const uint8_t area = chf->areas[i];
  int dir;
  for (dir = 0; dir < 4; dir++) {
    const int ni = nm_chf_nei(chf, i, dir);
    int nr, di;
    if (ni < 0 || chf->areas[ni] != area) continue;
    nr = w->reg[ni];
    if (nr & NM_BORDER_REG) continue;
    if (nr != 0 && nr != r) return nr;
    di = nm_chf_nei(chf, ni, (dir + 1) & 3);
    if (di < 0 || chf->areas[di] != area) continue;
    if (w->reg[di] != 0 && w->reg[di] != r) return w->reg[di];
  }
  return 0;
}

/* Floods new region r from seed span over spans at distance >= level - 2
 * of the same area, stopping at spans that touch another region. *grew
 * tells whether any span kept the region. */
static nm_status ws_flood(ws_ctx *w, int seed, int level, int r, int *grew) {
  const nm_chf *chf = w->chf;
  const uint8_t area = chf->areas[seed];
  const int lev = level >= 2 ? level - 2 : 0;
  int dir, count = 0;
  w->stack.n = 0;
  if (ws_push(w, &w->stack, seed) != NM_OK) return NM_ERR_NOMEM;
  w->reg[seed] = (uint16_t)r;
  w->rdist[seed] = 0;
  /* Depth-first fill. A span touching another region (directly or across a
   * diagonal) is given back (region 0) and not expanded: the watershed
   * line between two basins stays unassigned until the growth rounds. */
  while (w->stack.n > 0) {
    const int e = w->stack.v[--w->stack.n];
    if (ws_other_region(w, e, r)) {
      w->reg[e] = 0;
      continue;
    }
    count++;
    for (dir = 0; dir < 4; dir++) {
      const int ni = nm_chf_nei(chf, e, dir);
      if (ni < 0 || chf->areas[ni] != area) continue;
      if (chf->dist[ni] >= lev && w->reg[ni] == 0) {
        w->reg[ni] = (uint16_t)r;
        w->rdist[ni] = 0;
        if (ws_push(w, &w->stack, ni) != NM_OK) return NM_ERR_NOMEM;
      }
    }
  }
  *grew = count > 0;
  return NM_OK;
}

/* Seeds new regions from the unassigned spans of bucket s. */
static nm_status ws_seed_regions(ws_ctx *w, const ws_stack *s, int level, int *id) {
  int j;
  for (j = 0; j < s->n; j++) {
    int grew;
    if (w->reg[s->v[j]] != 0) continue;
    if (ws_flood(w, s->v[j], level, *id, &grew) != NM_OK) return NM_ERR_NOMEM;
    if (grew && ++*id > NM_RG_MAX_ID) return NM_ERR_PARAM; /* too many regions */
  }
  return NM_OK;
}

/* The level loop of the watershed; *id gets one past the last region id. */
static nm_status ws_levels(ws_ctx *w, int *id) {
  /* Levels are even distances from the (rounded up) maximum down to 0. The
   * buckets cover 8 levels: at the first level of each group they are
   * refilled from the spans; at the others the previous bucket's leftovers
   * (spans that neither grew into a region nor seeded one) move down. */
  int level = (w->chf->max_distance + 1) & ~1, sid = -1;
  nm_status st;
  while (level > 0) {
    level = level >= 2 ? level - 2 : 0;
    sid = (sid + 1) & (WS_NB_STACKS - 1);
    st = sid == 0 ? ws_sort_levels(w, level) : ws_append(w, &w->lvl[sid - 1], &w->lvl[sid]);
    if (st == NM_OK) st = ws_expand(w, &w->lvl[sid], level, WS_EXPAND_ITERS);
    if (st == NM_OK) st = ws_seed_regions(w, &w->lvl[sid], level, id);
    if (st != NM_OK) return st;
  }
  /* Whatever is left (spans no level reached, e.g. cut off by a border
   * region) joins its nearest region, without a round limit. */
  st = ws_fill_rest(w);
  if (st == NM_OK) st = ws_expand(w, &w->stack, 0, WS_EXPAND_ITERS * 8);
  return st;
}

/* Frees every scratch array of the watershed (NULL ones are fine). */
static void ws_free(ws_ctx *w) {
  const nm_alloc *a = &w->chf->a;
  const size_t n = (size_t)w->chf->span_count;
  int k;
  nm_free(a, w->reg, n * sizeof *w->reg);
  nm_free(a, w->rdist, n * sizeof *w->rdist);
  for (k = 0; k < WS_NB_STACKS; k++) nm_free(a, w->lvl[k].v, (size_t)w->lvl[k].cap * sizeof(int));
  nm_free(a, w->stack.v, (size_t)w->stack.cap * sizeof(int));
  nm_free(a, w->dirty, (size_t)w->dirty_cap * sizeof(ws_dirty));
}

/* Border strips first (tiled builds), then the level loop, then merge and
 * filter. Region ids end up in chf->spans[i].reg; chf->max_regions counts
 * ids like Recast (it may include ids no span kept). */
nm_status nm_chf_regions_watershed(nm_chf *chf, int border, int min_area, int merge_area) {
  const size_t n = (size_t)chf->span_count;
  ws_ctx w;
  nm_status st;
  int id = 1;
  size_t i;
  chf->border_size = border;
  chf->max_regions = 0;
  if (n == 0) return NM_OK;
  if (!chf->dist) return NM_ERR_PARAM;
  memset(&w, 0, sizeof w);
  w.chf = chf;
  w.reg = (uint16_t *)nm_calloc(&chf->a, n * sizeof *w.reg);
  w.rdist = (uint16_t *)nm_calloc(&chf->a, n * sizeof *w.rdist);
  st = w.reg && w.rdist ? NM_OK : NM_ERR_NOMEM;
  if (st == NM_OK) {
    nm_rg_paint_borders(chf, border, w.reg, &id);
    st = ws_levels(&w, &id);
  }
  if (st == NM_OK) st = nm_rg_merge_and_filter(chf, w.reg, id, min_area, merge_area);
  if (st == NM_OK)
    for (i = 0; i < n; i++) chf->spans[i].reg = w.reg[i];
  ws_free(&w);
  return st;
}
