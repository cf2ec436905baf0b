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
#include "nm_region.h"

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
  if (chf->nei) nm_free(&chf->a, chf->nei, n * 4 * sizeof *chf->nei);
  chf->nei = NULL;
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

/* Records a link from span i in direction dir to span j, the span with
 * index k within its column, unless span i already has one there (a span
 * keeps its first, lowest match, as in Recast). con starts with all bits set
 * (unconnected), so clearing bits writes k. */
static inline void chf_set_link(nm_chf *chf, int i, int dir, int j, int k) {
  if (chf->nei[i * 4 + dir] >= 0) return;
  chf->nei[i * 4 + dir] = j;
  chf->spans[i].con &= ~((uint32_t)(NM_NOT_CONNECTED ^ k) << (6 * dir));
}

/* The link test, symmetric in s and t: enough shared headroom and a small
 * enough step. */
static inline int chf_linked(const nm_chf *chf, const nm_cspan *s, const nm_cspan *t) {
  const int y = s->y, ty = t->y;
  return nm_mini(y + (int)s->h, ty + (int)t->h) - nm_maxi(y, ty) >= chf->walkable_height &&
         abs(ty - y) <= chf->walkable_climb;
}

/* Links the spans of column a with those of its neighbour column b, which
 * lies in direction dir from a. The test being symmetric, one pass over the
 * pairs links both ways. Spans above index 62 stay unlinked (con holds the
 * index within the column in 6 bits). */
static void chf_link_pair(nm_chf *chf, int a, int b, int dir) {
  const int ab = (int)chf->cells[a].index, bb = (int)chf->cells[b].index;
  const int na = nm_mini((int)chf->cells[a].count, CHF_MAX_LAYERS + 1);
  const int nb = nm_mini((int)chf->cells[b].count, CHF_MAX_LAYERS + 1);
  int i, k;
  for (i = 0; i < na; i++)
    for (k = 0; k < nb; k++)
      if (chf_linked(chf, &chf->spans[ab + i], &chf->spans[bb + k])) {
        chf_set_link(chf, ab + i, dir, bb + k, k);
        chf_set_link(chf, bb + k, (dir + 2) & 3, ab + i, i);
      }
}

/* Links column a with neighbour column b (direction dir from a); columns
 * of one span each, the common case, take the short way. */
static inline void chf_link_columns(nm_chf *chf, int a, int b, int dir) {
  const nm_ccell ca = chf->cells[a], cb = chf->cells[b];
  if (cb.count == 0) return;
  if (ca.count == 1 && cb.count == 1) {
    const int i = (int)ca.index, j = (int)cb.index;
    if (!chf_linked(chf, &chf->spans[i], &chf->spans[j])) return;
    chf_set_link(chf, i, dir, j, 0);
    chf_set_link(chf, j, (dir + 2) & 3, i, 0);
    return;
  }
  chf_link_pair(chf, a, b, dir);
}

/* Links every column with its +x and +z neighbours (and so each with all
 * four), starting from no links at all. */
static void chf_link(nm_chf *chf) {
  const int w = chf->width, h = chf->height;
  int x, z;
  if (chf->span_count > 0) memset(chf->nei, 0xff, (size_t)chf->span_count * 4 * sizeof *chf->nei); /* all -1 */
  for (z = 0; z < h; z++)
    for (x = 0; x < w; x++) {
      const int c = x + z * w;
      if (chf->cells[c].count == 0) continue;
      if (x < w - 1) chf_link_columns(chf, c, c + 1, 2);
      if (z < h - 1) chf_link_columns(chf, c, c + w, 1);
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
  chf->nei = (int32_t *)nm_malloc(&chf->a, nm_mul_size(n, 4 * sizeof *chf->nei));
  if (!chf->spans || !chf->areas || !chf->nei) {
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
  chf_link(chf);
  return NM_OK;
}
