/* cache_level.h -- a small generated tile cache for the tests and fuzz
 * seeds that must run without ../shared: a TSET image of gx x gy tiles of
 * CL_N x CL_N cells (cell 0.5 / 0.2): a floor in steps of one cell height,
 * square pillars (holes) on a 9-cell lattice, and in tile (1, 1) a second
 * layer, a platform 4 m above the floor. Layers are compressed with the
 * library's FastLZ encoder, cons bits set as Recast's layers set them
 * (same-layer neighbours, portals towards the next tile). */
#ifndef NM_CACHE_LEVEL_H
#define NM_CACHE_LEVEL_H
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "tilecache/nm_cache.h"

#define CL_N 24
#define CL_CS 0.5f
#define CL_CH 0.2f

/* Floor of global cell (x, z): walkable height in cells, -1 for a pillar. */
static inline int cl_floor(int x, int z) {
  if (x % 9 >= 4 && x % 9 <= 5 && z % 9 >= 4 && z % 9 <= 5) return -1;
  return 2 + (x / 7) % 3;
}

/* Platform (layer 1 of tile (1, 1)) at global cell (x, z): height or -1. */
static inline int cl_platform(int x, int z) {
  const int lx = x - CL_N, lz = z - CL_N;
  return lx >= 6 && lx < 18 && lz >= 6 && lz < 18 ? 22 : -1;
}

/* Height of (x, z) in layer `layer` of the level (-1: not walkable). */
static inline int cl_height(int layer, int x, int z, int gx, int gy) {
  if (x < 0 || z < 0 || x >= gx * CL_N || z >= gy * CL_N) return -1;
  return layer == 0 ? cl_floor(x, z) : cl_platform(x, z);
}

/* Grids of one layer (heights relative to hmin, areas, cons); fills the
 * header's ranges. Returns 0 when the layer has no cell. */
static inline int cl_grids(int tx, int ty, int layer, int gx, int gy, uint8_t *g, nm_layer_header *h) {
  static const int dx[4] = {-1, 0, 1, 0}, dz[4] = {0, 1, 0, -1};
  const int cells = CL_N * CL_N;
  int x, z, d, hmin = 255, hmax = 0, any = 0;
  h->minx = h->miny = 255;
  h->maxx = h->maxy = 0;
  for (z = 0; z < CL_N; z++)
    for (x = 0; x < CL_N; x++) {
      const int v = cl_height(layer, tx * CL_N + x, ty * CL_N + z, gx, gy);
      if (v < 0) continue;
      any = 1;
      if (v < hmin) hmin = v;
      if (v > hmax) hmax = v;
      if (x < h->minx) h->minx = (uint8_t)x;
      if (x > h->maxx) h->maxx = (uint8_t)x;
      if (z < h->miny) h->miny = (uint8_t)z;
      if (z > h->maxy) h->maxy = (uint8_t)z;
    }
  if (!any) return 0;
  for (z = 0; z < CL_N; z++)
    for (x = 0; x < CL_N; x++) {
      const int i = x + z * CL_N, v = cl_height(layer, tx * CL_N + x, ty * CL_N + z, gx, gy);
      uint8_t c = 0;
      g[i] = v < 0 ? 0xff : (uint8_t)(v - hmin);
      g[cells + i] = v < 0 ? 0 : 63;
      for (d = 0; v >= 0 && d < 4; d++) {
        const int nx = x + dx[d], nz = z + dz[d];
        const int nv = cl_height(layer, tx * CL_N + nx, ty * CL_N + nz, gx, gy);
        if (nv < 0) continue;
        if (nx < 0 || nz < 0 || nx >= CL_N || nz >= CL_N) c |= (uint8_t)(16 << d); /* portal to the next tile */
        else c |= (uint8_t)(1 << d);
      }
      g[2 * cells + i] = c;
    }
  h->hmin = (uint16_t)hmin;
  h->hmax = (uint16_t)hmax;
  return 1;
}

static inline void cl_w32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void cl_wf(uint8_t *p, float v) { memcpy(p, &v, 4); }

/* The TSET image of a gx x gy level (malloc'd; free()). */
static inline uint8_t *cl_make_tset(int gx, int gy, size_t *len) {
  const int cells = CL_N * CL_N;
  const float tw = CL_N * CL_CS;
  const int tiles = gx * gy * 4, tb = (int)nm_ilog2(nm_next_pow2((uint32_t)tiles));
  uint8_t *out = (uint8_t *)malloc(92 + (size_t)tiles * (8 + 56 + nm_fastlz_bound((size_t)cells * 3)));
  uint8_t *g = (uint8_t *)malloc((size_t)cells * 3);
  uint32_t *htab = (uint32_t *)malloc(nm_fastlz_htab_bytes());
  size_t off = 92;
  int tx, ty, layer, n = 0;
  memset(out, 0, 92);
  cl_w32(out, ('T' << 24) | ('S' << 16) | ('E' << 8) | 'T');
  cl_w32(out + 4, 1);
  cl_wf(out + 24, tw); cl_wf(out + 28, tw);                /* nav: orig 0, tile size */
  cl_w32(out + 32, 1u << tb); cl_w32(out + 36, 1u << (22 - tb));
  cl_wf(out + 52, CL_CS); cl_wf(out + 56, CL_CH);          /* cache */
  cl_w32(out + 60, CL_N); cl_w32(out + 64, CL_N);
  cl_wf(out + 68, 2.0f); cl_wf(out + 72, 0.6f); cl_wf(out + 76, 0.9f); cl_wf(out + 80, 1.3f);
  cl_w32(out + 84, (uint32_t)tiles); cl_w32(out + 88, 64);
  for (ty = 0; ty < gy; ty++)
    for (tx = 0; tx < gx; tx++)
      for (layer = 0; layer < 2; layer++) {
        nm_layer_header h;
        uint8_t *rec = out + off;
        size_t body;
        memset(&h, 0, sizeof h);
        if (!cl_grids(tx, ty, layer, gx, gy, g, &h)) continue;
        h.magic = NM_LAYER_MAGIC;
        h.version = NM_LAYER_VERSION;
        h.tx = tx; h.ty = ty; h.tlayer = layer;
        h.bmin[0] = (float)tx * tw; h.bmin[2] = (float)ty * tw;
        h.bmax[0] = (float)(tx + 1) * tw; h.bmax[2] = (float)(ty + 1) * tw;
        h.bmin[1] = (float)h.hmin * CL_CH; h.bmax[1] = (float)h.hmax * CL_CH;
        h.width = h.height = CL_N;
        memcpy(rec + 8, &h, 56);
        body = nm_fastlz_compress(g, (size_t)cells * 3, rec + 8 + 56, htab);
        cl_w32(rec, (1u << tb) | (uint32_t)n);
        cl_w32(rec + 4, (uint32_t)(56 + body));
        off += 8 + 56 + body;
        n++;
      }
  cl_w32(out + 8, (uint32_t)n);
  free(g);
  free(htab);
  *len = off;
  return out;
}
/* A cutting cylinder of radius r, 3 high, standing on y = 0 at (x, z). */
static inline nm_obstacle cl_cylinder(float x, float z, float r) {
  nm_obstacle o;
  memset(&o, 0, sizeof o);
  o.kind = NM_OBSTACLE_CYLINDER;
  o.pos[0] = x; o.pos[1] = 0; o.pos[2] = z;
  o.radius = r;
  o.height = 3;
  return o;
}

#endif
