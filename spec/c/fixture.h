/* fixture.h -- a small tiled navmesh made with the library itself, shared by
 * the C tests (spec/c) and the fuzz targets (spec/fuzz): 3 x 3 tiles of
 * 8 x 8 wu on a gentle slope, made with nm_tile_create from convex
 * polygons (quads, a quad split in two triangles, a missing quad in some
 * tiles), with areas and flags varying, an explicit detail mesh and two
 * off-mesh links (one into the next tile) in the centre tile, and some tiles
 * without a BV tree. Every allocation goes through the given allocator. */
#ifndef NM_FIXTURE_H
#define NM_FIXTURE_H

#include <string.h>
#include "navmesh.h"

#define FZ_TILE 8.0f
#define FZ_GRID 3

/* Height of the fixture's ground at (x, z): a gentle continuous slope, so
 * tile borders meet. */
static inline float fz_ground(float x, float z) { return 0.05f * x + 0.02f * z; }

/* Blob of fixture tile (tx, ty): a 3 x 3 vertex lattice, four quads (one
 * split in two triangles, one missing in some tiles), areas and flags varying,
 * an explicit detail mesh in the centre tile, off-mesh links in tile (1, 1). */
static inline nm_status fz_fixture_tile_a(int tx, int ty, const nm_alloc *alloc, void **blob, size_t *size) {
  float v[9 * 3];
  uint16_t polys[6 * 6];
  uint8_t areas[6];
  uint16_t flags[6];
  uint32_t dm[6 * 4];
  float dv[6 * 5 * 3];
  uint8_t dt[6 * 4 * 4];
  nm_offmesh_link off[2];
  nm_poly_mesh_input in;
  int i, j, np = 0, hole = (tx + ty * FZ_GRID) % 4 == 3, detail = tx == 1 && ty == 1;
  memset(&in, 0, sizeof in);
  memset(off, 0, sizeof off);
  for (j = 0; j < 3; j++)
    for (i = 0; i < 3; i++) {
      float *p = &v[(j * 3 + i) * 3];
      p[0] = tx * FZ_TILE + i * FZ_TILE * 0.5f;
      p[2] = ty * FZ_TILE + j * FZ_TILE * 0.5f;
      p[1] = fz_ground(p[0], p[2]);
    }
  memset(polys, 0xff, sizeof polys);
  for (j = 0; j < 2; j++)
    for (i = 0; i < 2; i++) {
      uint16_t a = (uint16_t)(j * 3 + i), b = (uint16_t)(a + 1), c = (uint16_t)(a + 4), d = (uint16_t)(a + 3);
      if (hole && i == 1 && j == 1) continue;
      if (!detail && i == 0 && j == 1) { /* two triangles */
        polys[np * 6 + 0] = a; polys[np * 6 + 1] = b; polys[np * 6 + 2] = c;
        areas[np] = 0; flags[np] = 1; np++;
        polys[np * 6 + 0] = a; polys[np * 6 + 1] = c; polys[np * 6 + 2] = d;
        areas[np] = 2; flags[np] = 3; np++;
        continue;
      }
      polys[np * 6 + 0] = a; polys[np * 6 + 1] = b; polys[np * 6 + 2] = c; polys[np * 6 + 3] = d;
      areas[np] = (uint8_t)((i + j + tx) % 3);
      flags[np] = (uint16_t)(i == 1 && j == 0 ? 2 : 1);
      np++;
    }
  if (detail) { /* each quad: its 4 corners, a raised centre, 4 triangles */
    for (i = 0; i < np; i++) {
      const uint16_t *p = &polys[i * 6];
      float *c = &dv[(i * 5 + 4) * 3];
      c[0] = c[1] = c[2] = 0;
      for (j = 0; j < 4; j++) {
        memcpy(&dv[(i * 5 + j) * 3], &v[p[j] * 3], sizeof(float) * 3);
        c[0] += v[p[j] * 3] * 0.25f; c[1] += v[p[j] * 3 + 1] * 0.25f; c[2] += v[p[j] * 3 + 2] * 0.25f;
      }
      c[1] += 0.2f;
      dm[i * 4 + 0] = (uint32_t)i * 5; dm[i * 4 + 1] = 5;
      dm[i * 4 + 2] = (uint32_t)i * 4; dm[i * 4 + 3] = 4;
      for (j = 0; j < 4; j++) {
        uint8_t *t = &dt[(i * 4 + j) * 4];
        t[0] = (uint8_t)j; t[1] = (uint8_t)((j + 1) % 4); t[2] = 4; t[3] = 0;
      }
    }
    in.dmeshes = dm; in.dverts = dv; in.ndverts = np * 5; in.dtris = dt; in.ndtris = np * 4;
    /* one link inside the tile, one into the tile to the east (+x) */
    off[0].start[0] = 9; off[0].start[2] = 9; off[0].end[0] = 15; off[0].end[2] = 15;
    off[1].start[0] = 15; off[1].start[2] = 10; off[1].end[0] = 17; off[1].end[2] = 10;
    for (i = 0; i < 2; i++) {
      off[i].start[1] = fz_ground(off[i].start[0], off[i].start[2]);
      off[i].end[1] = fz_ground(off[i].end[0], off[i].end[2]);
      off[i].radius = 0.6f;
      off[i].bidirectional = i == 0;
      off[i].area = 4;
      off[i].flags = 4;
    }
    in.offmesh = off;
    in.noffmesh = 2;
  }
  in.verts = v; in.nverts = 9; in.polys = polys; in.npolys = np; in.nvp = 6;
  in.areas = areas; in.flags = flags;
  in.border_portals = 1;
  in.tile_x = tx; in.tile_y = ty;
  in.bmin[0] = tx * FZ_TILE; in.bmin[1] = -2; in.bmin[2] = ty * FZ_TILE;
  in.bmax[0] = (tx + 1) * FZ_TILE; in.bmax[1] = 4; in.bmax[2] = (ty + 1) * FZ_TILE;
  in.walkable_height = 2; in.walkable_radius = 0.6f; in.walkable_climb = 0.9f;
  in.cell_size = 0.3f;
  in.build_bvtree = (tx + ty) % 2 == 0; /* some tiles without a BV tree */
  return nm_tile_create(&in, alloc, NULL, blob, size);
}
static inline nm_status fz_fixture_tile(int tx, int ty, void **blob, size_t *size) {
  return fz_fixture_tile_a(tx, ty, NULL, blob, size);
}

/* The whole fixture: a mesh with room for 16 tiles holding the nine. */
static inline nm_status fz_fixture_mesh_a(const nm_alloc *alloc, nm_navmesh **out) {
  nm_navmesh_params prm;
  nm_status st;
  int tx, ty;
  memset(&prm, 0, sizeof prm);
  prm.tile_width = prm.tile_height = FZ_TILE;
  prm.max_tiles = 16;
  prm.max_polys = 64;
  if ((st = nm_navmesh_new(&prm, alloc, NULL, out)) < 0) return st;
  for (ty = 0; ty < FZ_GRID; ty++)
    for (tx = 0; tx < FZ_GRID; tx++) {
      void *blob;
      size_t size;
      if ((st = fz_fixture_tile_a(tx, ty, alloc, &blob, &size)) >= 0) {
        st = nm_navmesh_add_tile(*out, blob, size, NULL, NULL);
        nm_tile_free(alloc, blob, size);
      }
      if (st < 0) {
        nm_navmesh_release(*out);
        *out = NULL;
        return st;
      }
    }
  return NM_OK;
}
static inline nm_status fz_fixture_mesh(nm_navmesh **out) { return fz_fixture_mesh_a(NULL, out); }

#endif
