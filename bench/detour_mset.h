// detour_mset.h -- loads a RecastDemo MSET file into a dtNavMesh (header,
// then ref / size / tile blob records), for the toolbox's Detour-side
// programs (detour_toolbox.cpp, detour_compare.cpp).
#ifndef NM_DETOUR_MSET_H
#define NM_DETOUR_MSET_H
#include <DetourNavMesh.h>
#include <DetourAlloc.h>
#include <string.h>

static inline dtNavMesh *tb_load_mset(const unsigned char *b, size_t len) {
  struct Hdr { int magic, version, numTiles; dtNavMeshParams params; } h;
  if (len < sizeof h) return 0;
  memcpy(&h, b, sizeof h);
  dtNavMesh *m = dtAllocNavMesh();
  if (dtStatusFailed(m->init(&h.params))) { dtFreeNavMesh(m); return 0; }
  size_t off = sizeof h;
  for (int i = 0; i < h.numTiles && off + 8 <= len; i++) {
    unsigned int ref;
    int size;
    memcpy(&ref, b + off, 4);
    memcpy(&size, b + off + 4, 4);
    off += 8;
    if (!ref || size <= 0 || off + (size_t)size > len) break;
    unsigned char *data = (unsigned char *)dtAlloc(size, DT_ALLOC_PERM);
    memcpy(data, b + off, size);
    off += size;
    m->addTile(data, size, DT_TILE_FREE_DATA, ref, 0);
  }
  return m;
}
#endif
