/* grid.c -- the proximity grid: agent boxes by grid cell, rebuilt every
 * update, listing the agents near a point (Detour's dtProximityGrid,
 * faster, with the same answers).
 *
 * Each agent's X/Z box is entered in every cell it touches (cells of 3 x
 * the largest agent radius, so at most four; as in Detour, entries past
 * 4 x max_agents are dropped). A query lists the ids in the cells its box
 * touches, row by row (Z), cell by cell (X), and inside a cell the most
 * recently entered first, each id once and at most `max` of them: which
 * neighbours an agent sees in a dense crowd depends on this order, and it
 * is Detour's. Detour finds the cells through a hash of bucket chains;
 * here the entries are sorted by cell once per update (a stable radix
 * sort of the entries taken newest first) with a table of where each row
 * starts, so a query reads each row of its box as one run found by a
 * binary search inside the row, and a stamp per id replaces
 * the search of the ids listed so far. Building is linear in the agents,
 * a query logarithmic plus the entries it reads. */
#include "nm_crowd.h"

nm_status nm_grid_init(nm_grid *g, const nm_alloc *a, int max_ids, float cell_size) {
  const size_t n = (size_t)max_ids * 4;
  memset(g, 0, sizeof *g);
  g->cell_size = cell_size;
  g->inv_cell_size = 1.0f / cell_size;
  g->pool_size = (int)n;
  g->max_ids = max_ids;
  g->pool = (nm_grid_item *)nm_malloc(a, n * sizeof(nm_grid_item));
  g->keys = (uint64_t *)nm_malloc(a, 2 * n * sizeof(uint64_t));
  g->ids = (uint32_t *)nm_malloc(a, 2 * n * sizeof(uint32_t));
  g->seen = (uint32_t *)nm_calloc(a, (size_t)max_ids * sizeof(uint32_t));
  g->rows = (int *)nm_malloc(a, (n + 2) * sizeof(int));
  if (!g->pool || !g->keys || !g->ids || !g->seen || !g->rows) return NM_ERR_NOMEM;
  return NM_OK;
}

void nm_grid_free(nm_grid *g, const nm_alloc *a) {
  const size_t n = (size_t)g->pool_size;
  nm_free(a, g->pool, n * sizeof(nm_grid_item));
  nm_free(a, g->keys, 2 * n * sizeof(uint64_t));
  nm_free(a, g->ids, 2 * n * sizeof(uint32_t));
  nm_free(a, g->seen, (size_t)g->max_ids * sizeof(uint32_t));
  nm_free(a, g->rows, (n + 2) * sizeof(int));
  memset(g, 0, sizeof *g);
}

/* Cell coordinate of v (floor, clamped so the int conversion is defined). */
static inline int cell_of(float v, float inv) {
  const float c = floorf(v * inv);
  if (!(c > -1e9f)) return -1000000000;
  if (c > 1e9f) return 1000000000;
  return (int)c;
}

void nm_grid_clear(nm_grid *g) { g->count = 0; }

void nm_grid_add(nm_grid *g, uint32_t id, float minx, float miny, float maxx, float maxy) {
  const int x0 = cell_of(minx, g->inv_cell_size), y0 = cell_of(miny, g->inv_cell_size);
  const int x1 = cell_of(maxx, g->inv_cell_size), y1 = cell_of(maxy, g->inv_cell_size);
  int x, y;
  for (y = y0; y <= y1; ++y)
    for (x = x0; x <= x1; ++x) {
      nm_grid_item *it;
      if (g->count >= g->pool_size) return;
      it = &g->pool[g->count++];
      it->x = x;
      it->y = y;
      it->id = id;
    }
}

/* Key of cell (x, y): rows (y) major, then x, from the grid's corner. */
static inline uint64_t cell_key(const nm_grid *g, int x, int y) {
  return (uint64_t)(uint32_t)(y - g->ymin) * g->width + (uint32_t)(x - g->xmin);
}

/* Sorts keys/ids [n] by key, stably, a byte at a time (LSD radix) for as
 * many bytes as the largest key has; the result ends in keys/ids. */
static void radix_sort(uint64_t *keys, uint32_t *ids, uint64_t *tk, uint32_t *ti, int n,
                       uint64_t max_key) {
  int shift, i;
  for (shift = 0; shift < 64 && (max_key >> shift) != 0; shift += 8) {
    int count[257];
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) count[((keys[i] >> shift) & 0xff) + 1]++;
    for (i = 0; i < 256; i++) count[i + 1] += count[i];
    for (i = 0; i < n; i++) {
      const int d = count[(keys[i] >> shift) & 0xff]++;
      tk[d] = keys[i];
      ti[d] = ids[i];
    }
    memcpy(keys, tk, (size_t)n * sizeof *keys);
    memcpy(ids, ti, (size_t)n * sizeof *ids);
  }
}

/* Where each row's entries start in the sorted list (rows[y - ymin], and
 * rows[height] = count), when the rows are not many more than the entries;
 * nrows 0 otherwise (queries then search the whole list). */
static void make_rows(nm_grid *g) {
  const int64_t h = (int64_t)g->ymax - g->ymin + 1;
  int r, i = 0;
  g->nrows = 0;
  if (h > g->pool_size + 1) return;
  for (r = 0; r <= (int)h; r++) {
    const uint64_t first = (uint64_t)r * g->width; /* key of the row's first cell */
    while (i < g->count && g->keys[i] < first) i++;
    g->rows[r] = i;
  }
  g->nrows = (int)h;
}

void nm_grid_finish(nm_grid *g) {
  const int n = g->count;
  int i;
  if (!n) return;
  g->xmin = g->xmax = g->pool[0].x;
  g->ymin = g->ymax = g->pool[0].y;
  for (i = 1; i < n; i++) {
    g->xmin = nm_mini(g->xmin, g->pool[i].x);
    g->xmax = nm_maxi(g->xmax, g->pool[i].x);
    g->ymin = nm_mini(g->ymin, g->pool[i].y);
    g->ymax = nm_maxi(g->ymax, g->pool[i].y);
  }
  g->width = (uint64_t)((int64_t)g->xmax - g->xmin) + 1;
  for (i = 0; i < n; i++) { /* newest first: the stable sort keeps that inside a cell */
    const nm_grid_item *it = &g->pool[n - 1 - i];
    g->keys[i] = cell_key(g, it->x, it->y);
    g->ids[i] = it->id;
  }
  radix_sort(g->keys, g->ids, g->keys + g->pool_size, g->ids + g->pool_size, n,
             cell_key(g, g->xmax, g->ymax));
  make_rows(g);
}

/* First sorted entry in [lo, hi) with key >= k (hi when none). */
static int lower_bound(const uint64_t *keys, int lo, int hi, uint64_t k) {
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* A new query stamp in *stamp; on wraparound the marks are cleared. */
static uint32_t next_stamp(const nm_grid *g, uint32_t *seen, uint32_t *stamp) {
  if (++*stamp == 0) {
    memset(seen, 0, (size_t)g->max_ids * sizeof(uint32_t));
    *stamp = 1;
  }
  return *stamp;
}

int nm_grid_query_marks(const nm_grid *g, uint32_t *seen, uint32_t *stamp, float minx, float miny,
                        float maxx, float maxy, uint32_t *ids, int max) {
  const int x0 = nm_maxi(cell_of(minx, g->inv_cell_size), g->xmin);
  const int x1 = nm_mini(cell_of(maxx, g->inv_cell_size), g->xmax);
  const int y0 = nm_maxi(cell_of(miny, g->inv_cell_size), g->ymin);
  const int y1 = nm_mini(cell_of(maxy, g->inv_cell_size), g->ymax);
  const uint32_t mark = next_stamp(g, seen, stamp);
  int y, n = 0;
  if (!g->count || x0 > x1) return 0;
  for (y = y0; y <= y1; ++y) {
    const uint64_t hi = cell_key(g, x1, y);
    const int r = y - g->ymin;
    int i = g->nrows ? lower_bound(g->keys, g->rows[r], g->rows[r + 1], cell_key(g, x0, y))
                     : lower_bound(g->keys, 0, g->count, cell_key(g, x0, y));
    for (; i < g->count && g->keys[i] <= hi; i++) {
      const uint32_t id = g->ids[i];
      if (seen[id] == mark) continue;
      if (n >= max) return n;
      seen[id] = mark;
      ids[n++] = id;
    }
  }
  return n;
}

int nm_grid_query(nm_grid *g, float minx, float miny, float maxx, float maxy, uint32_t *ids, int max) {
  return nm_grid_query_marks(g, g->seen, &g->stamp, minx, miny, maxx, maxy, ids, max);
}
