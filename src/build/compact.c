/* compact.c -- the compact heightfield: open spans with neighbour links.
 *
 * Recast's representation flip: each walkable solid span yields one open
 * span whose floor is the solid top and whose height reaches the bottom of
 * the next solid span. Columns become (first index, count) ranges into one
 * span array, so later stages walk flat arrays. Two open spans in adjacent
 * columns are linked when the floor step is at most walkable_climb and the
 * shared headroom is at least walkable_height; a link stores the neighbour's
 * index within its column in 6 bits, so neighbours above index 62 are left
 * unconnected. */
#include <stdlib.h>
#include "nm_front.h"

#define CHF_MAX_HEIGHT 0xffff
#define CHF_MAX_LAYERS (NM_NOT_CONNECTED - 1)
#define CHF_MAX_COLUMN 255   /* nm_ccell.count is 8 bits */
#define CHF_MAX_SPANS ((1 << 24) - 1) /* nm_ccell.index is 24 bits */

/* Frees every array of chf with the sizes it was built with; safe on a
 * zeroed or already freed chf. */
void nm_chf_free(nm_chf *chf) {
  const size_t n = (size_t)chf->span_count;
  if (chf->cells) nm_free(&chf->a, chf->cells, (size_t)chf->width * (size_t)chf->height * sizeof *chf->cells);
  if (chf->spans) nm_free(&chf->a, chf->spans, n * sizeof *chf->spans);
  if (chf->dist) nm_free(&chf->a, chf->dist, n * sizeof *chf->dist);
  if (chf->areas) nm_free(&chf->a, chf->areas, n);
  chf->cells = NULL;
  chf->spans = NULL;
  chf->dist = NULL;
  chf->areas = NULL;
}

/* Walkable spans of the heightfield, at most CHF_MAX_COLUMN per column. */
static size_t chf_count_spans(const nm_heightfield *hf) {
  const int n = hf->width * hf->height;
  size_t total = 0;
  int c;
  for (c = 0; c < n; c++) {
    const nm_span *s;
    int k = 0;
    for (s = hf->spans[c]; s; s = s->next)
      if (s->area != NM_NULL_AREA && k < CHF_MAX_COLUMN) k++;
    total += (size_t)k;
  }
  return total;
}

/* Fills cells, spans and areas from the walkable solid spans. */
static void chf_fill(nm_chf *chf, const nm_heightfield *hf) {
  const int n = hf->width * hf->height;
  int c, idx = 0;
  for (c = 0; c < n; c++) {
    const nm_span *s;
    int k = 0;
    chf->cells[c].index = (uint32_t)idx;
    for (s = hf->spans[c]; s && k < CHF_MAX_COLUMN; s = s->next) {
      int bot, top;
      if (s->area == NM_NULL_AREA) continue;
      bot = (int)s->smax;
      top = s->next ? (int)s->next->smin : CHF_MAX_HEIGHT;
      chf->spans[idx].y = (uint16_t)bot;
      chf->spans[idx].h = (uint32_t)nm_mini(top - bot, 0xff);
      chf->spans[idx].con = 0xffffff; /* all four directions unconnected */
      chf->areas[idx] = (uint8_t)s->area;
      idx++;
      k++;
    }
    chf->cells[c].count = (uint32_t)k;
  }
}

/* Links span s (in column x, z) to the first matching span of each
 * neighbour column. */
static void chf_link_span(nm_chf *chf, nm_cspan *s, int x, int z) {
  const int c = x + z * chf->width;
  int dir;
  for (dir = 0; dir < 4; dir++) {
    const nm_ccell *nc;
    int k, end;
    if ((dir == 0 && x == 0) || (dir == 1 && z == chf->height - 1) ||
        (dir == 2 && x == chf->width - 1) || (dir == 3 && z == 0))
      continue; /* grid edge */
    nc = &chf->cells[c + nm_chf_col_step(chf, dir)];
    end = (int)nc->index + (int)nc->count;
    /* first span (lowest) of the neighbour column with enough shared
     * headroom and a small enough step; Recast keeps only that one */
    for (k = (int)nc->index; k < end; k++) {
      const nm_cspan *ns = &chf->spans[k];
      const int bot = nm_maxi(s->y, ns->y);
      const int top = nm_mini(s->y + (int)s->h, ns->y + (int)ns->h);
      if (top - bot >= chf->walkable_height && abs((int)ns->y - (int)s->y) <= chf->walkable_climb) {
        const int layer = k - (int)nc->index;
        if (layer > CHF_MAX_LAYERS) continue; /* index does not fit in 6 bits */
        nm_set_con(s, dir, layer);
        break;
      }
    }
  }
}

/* Allocates the arrays of chf sized from its width, height, span_count. */
static nm_status chf_alloc(nm_chf *chf) {
  const size_t n = (size_t)chf->span_count;
  chf->cells = (nm_ccell *)nm_calloc(&chf->a, (size_t)chf->width * (size_t)chf->height * sizeof *chf->cells);
  if (!chf->cells) return NM_ERR_NOMEM;
  if (n == 0) return NM_OK;
  chf->spans = (nm_cspan *)nm_calloc(&chf->a, n * sizeof *chf->spans);
  chf->areas = (uint8_t *)nm_malloc(&chf->a, n);
  if (!chf->spans || !chf->areas) {
    nm_chf_free(chf);
    return NM_ERR_NOMEM;
  }
  return NM_OK;
}

/* Counts the walkable spans first so the span array is allocated once,
 * fills columns, then links neighbours. The top of the build volume grows
 * by walkable_height cells (the open space above the highest floor), as in
 * Recast. Refuses more spans than a 24-bit cell index can address. */
nm_status nm_chf_build(const nm_heightfield *hf, int walkable_height, int walkable_climb,
                       const nm_alloc *a, nm_chf *chf) {
  size_t nspans;
  int x, z;
  nm_status st;
  memset(chf, 0, sizeof *chf);
  chf->a = nm_alloc_resolve(a);
  nspans = chf_count_spans(hf);
  if (nspans > CHF_MAX_SPANS) return NM_ERR_PARAM;
  chf->width = hf->width;
  chf->height = hf->height;
  chf->span_count = (int)nspans;
  chf->walkable_height = walkable_height;
  chf->walkable_climb = walkable_climb;
  nm_vcopy(chf->bmin, hf->bmin);
  nm_vcopy(chf->bmax, hf->bmax);
  chf->bmax[1] += (float)walkable_height * hf->ch;
  chf->cs = hf->cs;
  chf->ch = hf->ch;
  if ((st = chf_alloc(chf)) != NM_OK) return st;
  chf_fill(chf, hf);
  for (z = 0; z < chf->height; z++)
    for (x = 0; x < chf->width; x++) {
      const nm_ccell *c = &chf->cells[x + z * chf->width];
      int i, end = (int)c->index + (int)c->count;
      for (i = (int)c->index; i < end; i++) chf_link_span(chf, &chf->spans[i], x, z);
    }
  return NM_OK;
}
