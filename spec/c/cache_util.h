/* cache_util.h -- helpers of the tile-cache tests: reading files, and
 * comparing two navmeshes tile by tile (slots, salts, blob contents apart
 * from the run-time link state). */
#ifndef NM_TEST_CACHE_UTIL_H
#define NM_TEST_CACHE_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mesh/nm_mesh.h"

/* Whole file into memory (NULL when missing). */
static inline uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (uint8_t *)malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  if (buf) buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* Compares two tile blobs section by section, the link section and the
 * polygons' first links aside (run-time state). Returns 1 when equal. */
static inline int same_tile(const nm_tile *a, const nm_tile *b) {
  const nm_tile_header *ha = a->header, *hb = b->header;
  int i;
  if (memcmp(ha, hb, sizeof *ha) != 0) return 0;
  if (memcmp(a->verts, b->verts, sizeof(float) * 3 * (size_t)ha->vert_count) != 0) return 0;
  for (i = 0; i < ha->poly_count; i++) {
    nm_poly pa = a->polys[i], pb = b->polys[i];
    pa.first_link = pb.first_link = 0;
    if (memcmp(&pa, &pb, sizeof pa) != 0) return 0;
  }
  if (memcmp(a->dmeshes, b->dmeshes, sizeof(nm_poly_detail) * (size_t)ha->detail_mesh_count) != 0) return 0;
  if (memcmp(a->dtris, b->dtris, 4 * (size_t)ha->detail_tri_count) != 0) return 0;
  return a->data_size == b->data_size;
}

/* Tile by tile: same slots, salts and contents. Prints the first few
 * differences. Returns the number of differing slots. */
static inline int compare_meshes(const char *name, const nm_navmesh *ours, const nm_navmesh *ref, int *ntiles) {
  int i, bad = 0;
  *ntiles = 0;
  for (i = 0; i < ref->max_tiles && i < ours->max_tiles; i++) {
    const nm_tile *a = &ours->tiles[i], *b = &ref->tiles[i];
    if (!a->header && !b->header) continue;
    (*ntiles)++;
    if (!a->header || !b->header || a->salt != b->salt || !same_tile(a, b)) {
      if (bad++ < 5)
        printf("#   %s slot %d differs: ours %s (%d polys), Detour %s (%d polys)\n", name, i,
               a->header ? "tile" : "none", a->header ? a->header->poly_count : 0, b->header ? "tile" : "none",
               b->header ? b->header->poly_count : 0);
    }
  }
  return bad;
}

#endif
