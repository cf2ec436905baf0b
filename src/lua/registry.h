/* registry.h -- the process-wide table of shared navmeshes (name -> mesh),
 * used by the Lua binding for mesh:share / navmesh.open / navmesh.unshare.
 * No Lua here: the registry deals in core meshes and byte-string names. */
#ifndef NM_LUA_REGISTRY_H
#define NM_LUA_REGISTRY_H

#include <stddef.h>
#include "navmesh.h"

#define LNM_REG_MAX_NAME 255

/* Outcomes of lnm_registry_put. */
enum { LNM_REG_OK = 0, LNM_REG_EXISTS = 1, LNM_REG_NOMEM = 2 };

/* The allocator for meshes that outlive one Lua state: the system allocator
 * (thread-safe), counting the bytes it holds (lnm_registry_bytes). */
const nm_alloc *lnm_registry_alloc(void);

/* Bytes currently held through lnm_registry_alloc(), process-wide. */
size_t lnm_registry_bytes(void);

/* Publishes mesh under name [Limit: 1..255 bytes]: the registry retains it.
 * mesh must be frozen and allocated with lnm_registry_alloc(). When the name
 * is taken by another mesh: LNM_REG_EXISTS, or with replace != 0 the new
 * mesh takes the name atomically (the old one is released; handles on it
 * keep it alive). Publishing the same mesh again under its name is a no-op. */
int lnm_registry_put(const char *name, size_t len, nm_navmesh *mesh, int replace);

/* The mesh published under name with one new reference (the caller releases
 * it) and its memory bytes (*bytes), or NULL when the name is not shared. */
nm_navmesh *lnm_registry_open(const char *name, size_t len, size_t *bytes);

/* Publishes mesh under name in place of `old` (a newer version of it):
 * only when the name still holds old. 1 when replaced, 0 when the name is
 * gone or holds another mesh (nothing changes). The byte count kept for
 * the name stays old's (a version differs from it in a few tiles). */
int lnm_registry_replace(const char *name, size_t len, nm_navmesh *old, nm_navmesh *mesh);

/* 1 when name holds a mesh other than `mesh` (which may be NULL). */
int lnm_registry_taken(const char *name, size_t len, const nm_navmesh *mesh);

/* Drops the name (and the registry's reference). 1 if it was shared. */
int lnm_registry_remove(const char *name, size_t len);

#endif
