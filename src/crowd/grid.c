/* grid.c -- the proximity grid (Detour's dtProximityGrid): agent boxes
 * hashed by grid cell, rebuilt every update.
 *
 * Each agent's X/Z box is entered in every cell it touches (cells of 3 x
 * the largest agent radius, so at most four); a query lists the ids in the
 * cells a box touches, row by row, each id once. The hash, the bucket
 * chains (newest first) and the scan order are Detour's: which neighbours
 * an agent sees in a dense crowd depends on them. Cost: linear in agents
 * to build, and per query in the cells and items scanned. */
#include "nm_crowd.h"

nm_status nm_grid_init(nm_grid *g, const nm_alloc *a, int pool_size, float cell_size) {
  memset(g, 0, sizeof *g);
  g->cell_size = cell_size;
  g->inv_cell_size = 1.0f / cell_size;
  g->nbuckets = (int)nm_next_pow2((uint32_t)pool_size);
  g->pool_size = pool_size;
  g->buckets = (uint32_t *)nm_malloc(a, (size_t)g->nbuckets * sizeof(uint32_t));
  g->pool = (nm_grid_item *)nm_malloc(a, (size_t)pool_size * sizeof(nm_grid_item));
  if (!g->buckets || !g->pool) return NM_ERR_NOMEM;
  nm_grid_clear(g);
  return NM_OK;
}

void nm_grid_free(nm_grid *g, const nm_alloc *a) {
  nm_free(a, g->buckets, (size_t)g->nbuckets * sizeof(uint32_t));
  nm_free(a, g->pool, (size_t)g->pool_size * sizeof(nm_grid_item));
  memset(g, 0, sizeof *g);
}

/* Detour's cell hash, with its int wraparound done in unsigned. */
static inline uint32_t cell_hash(int x, int y, int n) {
  return (((uint32_t)x * 73856093u) ^ ((uint32_t)y * 19349663u)) & (uint32_t)(n - 1);
}

/* Cell coordinate of v (floor, clamped so the int conversion is defined). */
static inline int cell_of(float v, float inv) {
  const float c = floorf(v * inv);
  if (!(c > -1e9f)) return -1000000000;
  if (c > 1e9f) return 1000000000;
  return (int)c;
}

void nm_grid_clear(nm_grid *g) {
  memset(g->buckets, 0xff, (size_t)g->nbuckets * sizeof(uint32_t));
  g->pool_head = 0;
}

void nm_grid_add(nm_grid *g, uint32_t id, float minx, float miny, float maxx, float maxy) {
  const int x0 = cell_of(minx, g->inv_cell_size), y0 = cell_of(miny, g->inv_cell_size);
  const int x1 = cell_of(maxx, g->inv_cell_size), y1 = cell_of(maxy, g->inv_cell_size);
  int x, y;
  for (y = y0; y <= y1; ++y)
    for (x = x0; x <= x1; ++x) {
      nm_grid_item *it;
      uint32_t h;
      if (g->pool_head >= g->pool_size) return;
      h = cell_hash(x, y, g->nbuckets);
      it = &g->pool[g->pool_head];
      it->x = x;
      it->y = y;
      it->id = id;
      it->next = g->buckets[h];
      g->buckets[h] = (uint32_t)g->pool_head++;
    }
}

int nm_grid_query(const nm_grid *g, float minx, float miny, float maxx, float maxy, uint32_t *ids,
                  int max) {
  const int x0 = cell_of(minx, g->inv_cell_size), y0 = cell_of(miny, g->inv_cell_size);
  const int x1 = cell_of(maxx, g->inv_cell_size), y1 = cell_of(maxy, g->inv_cell_size);
  int x, y, n = 0;
  for (y = y0; y <= y1; ++y)
    for (x = x0; x <= x1; ++x) {
      uint32_t i = g->buckets[cell_hash(x, y, g->nbuckets)];
      while (i != NM_NULL_IDX) {
        const nm_grid_item *it = &g->pool[i];
        if (it->x == x && it->y == y) {
          int k = 0;
          while (k < n && ids[k] != it->id) k++;
          if (k == n) {
            if (n >= max) return n;
            ids[n++] = it->id;
          }
        }
        i = it->next;
      }
    }
  return n;
}
