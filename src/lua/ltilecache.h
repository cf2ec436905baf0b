/* ltilecache.h -- the TileCache object, shared by ltilecache.c (life
 * cycle, updates, files, sharing) and ltilecache_obstacles.c. */
#ifndef NM_LUA_LTILECACHE_H
#define NM_LUA_LTILECACHE_H

#include "lnm.h"
#include "registry.h"

#define LNM_CACHE "navmesh.TileCache"

typedef struct lnm_cache {
  nm_cache *c;               /* NULL once closed */
  nm_alloc alloc;            /* the state's, through its account */
  size_t charged;            /* bytes charged to the collector */
  int mesh_ref;              /* registry reference to its NavMesh handle */
  size_t name_len;           /* > 0: shared under name */
  char name[LNM_REG_MAX_NAME + 1];
} lnm_cache;

/* The open cache at idx; raises on a closed one. */
lnm_cache *lnm_check_cache(lua_State *L, int idx);

#endif
