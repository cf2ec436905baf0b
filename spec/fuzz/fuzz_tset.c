/* fuzz_tset.c -- RecastDemo tile-cache files (TSET): any bytes behind the
 * TSET magic and version go through nm_cache_load (header, every layer
 * record, FastLZ bodies, layer meshing). A cache that loads must take an
 * obstacle and update, save to bytes that load again into a cache with
 * the same layers, and its navmesh must answer queries (fz_exercise). */
#include "fuzz.h"
#include "tilecache/nm_cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *b = fz_copy(data, size);
  nm_cache *c = NULL, *again = NULL;
  nm_diag d;
  nm_status st;
  if (size >= 8) memcpy(b, "TEST\x01\0\0\0", 8); /* magic and version, as on disk */
  st = nm_cache_load(b, size, NULL, NULL, &d, &c);
  fz_say("load", st, &d);
  FZ_CHECK(fz_status_known(st));
  FZ_CHECK((st == NM_OK) == (c != NULL));
  FZ_CHECK(st == NM_OK || st == NM_ERR_DATA || st == NM_ERR_NOMEM);
  if (c) {
    nm_obstacle ob;
    nm_cache_info info, info2;
    void *saved = NULL;
    size_t len = 0;
    uint32_t id = 0;
    int done = 0;
    const nm_clayer *first = NULL;
    int i;
    for (i = 0; i < c->top && !first; i++)
      if (c->layers[i].data) first = &c->layers[i];
    memset(&ob, 0, sizeof ob);
    ob.kind = NM_OBSTACLE_CYLINDER;
    if (first) {
      ob.pos[0] = 0.5f * (first->tbmin[0] + first->tbmax[0]);
      ob.pos[1] = first->tbmin[1] - 0.5f;
      ob.pos[2] = 0.5f * (first->tbmin[2] + first->tbmax[2]);
    }
    ob.radius = 1;
    ob.height = 2;
    FZ_CHECK(nm_cache_add_obstacle(c, &ob, &id) == NM_OK);
    st = nm_cache_update(c, 0, &done, NULL);
    FZ_CHECK(st == NM_OK || st == NM_ERR_DATA);
    fz_exercise(nm_cache_navmesh(c));
    FZ_CHECK(nm_cache_save(c, &saved, &len) == NM_OK);
    nm_cache_get_info(c, &info);
    st = nm_cache_load(saved, len, NULL, NULL, &d, &again);
    FZ_CHECK(st == NM_OK);
    nm_cache_get_info(again, &info2);
    FZ_CHECK(info.layers == info2.layers && info.compressed_bytes == info2.compressed_bytes);
    nm_cache_free_bytes(c, saved, len);
    nm_cache_free(again);
    nm_cache_free(c);
  }
  free(b);
  return 0;
}
