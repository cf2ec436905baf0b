/* lmemory.c -- memory accounting: each Lua state's account of what the
 * binding holds in its memory, the collector charges that keep dropped
 * handles from piling up, and the system allocator of job-built caches. */
#include <stdlib.h>
#include "lnm.h"

/* ---- memory the collector does not see ----
 * The core and the handles' scratch allocate through the Lua state's
 * allocator function directly, which the collector does not count: a state
 * could drop handles holding megabytes while collectgarbage("count") shows
 * kilobytes, and no cycle would come to free them. So each state gets one
 * account (a userdata anchored in the registry, freed after every handle's
 * __gc has run at lua_close) that counts what passes through it, and every
 * byte a handle takes is charged (lnm_gc_charge). */

typedef struct lnm_acct {
  lua_Alloc fn;   /* the state's allocator */
  void *ud;
  size_t bytes;   /* held through this account now */
  size_t charged; /* bytes handles took since the last collection we ran */
  size_t base;    /* the state's heap + bytes after that collection */
} lnm_acct;

/* A collection is never run for less than this much charged. */
#define LNM_GC_FLOOR ((size_t)1 << 20)

static const char acct_key = 0; /* registry key (its address) */

/* The state's allocator, counting. The state runs on one thread at a time
 * and only its own handles use the account, so no atomics are needed. */
static void *acct_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lnm_acct *a = (lnm_acct *)ud;
  void *p = a->fn(a->ud, ptr, osize, nsize);
  if (nsize == 0 || p) a->bytes = a->bytes - (ptr ? osize : 0) + nsize;
  return p;
}

/* The state's account, or NULL before lnm_acct_open. */
static lnm_acct *state_acct(lua_State *L) {
  lnm_acct *a;
  lua_pushlightuserdata(L, (void *)&acct_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  a = (lnm_acct *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return a;
}

/* Makes the state's account (luaopen); a second require keeps the first. */
void lnm_acct_open(lua_State *L) {
  lnm_acct *a;
  if (state_acct(L)) return;
  lua_pushlightuserdata(L, (void *)&acct_key);
  a = (lnm_acct *)lua_newuserdata(L, sizeof *a);
  memset(a, 0, sizeof *a);
  a->fn = lua_getallocf(L, &a->ud);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

/* Bytes this state's handles hold in its memory (meshes, queries, scratch). */
size_t lnm_acct_bytes(lua_State *L) {
  lnm_acct *a = state_acct(L);
  return a ? a->bytes : 0;
}

/* Bytes held through handle h's account now (all of its state's handles). */
size_t lnm_handle_bytes(const lnm_mesh *h) { return lnm_alloc_bytes(&h->alloc); }

/* Lowers the account's base to what the state holds now, less what was
 * charged since the module's last collection, when that is smaller: Lua's
 * own collections may have freed much since (a spec file's data, a level
 * loaded and dropped), and a base left at the old heap size would let
 * dropped handles pile up to that size before the module collects. */
static void lower_base(lua_State *L, lnm_acct *a) {
  size_t held = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + a->bytes;
  size_t live = held > a->charged ? held - a->charged : 0;
  if (live < a->base) a->base = live;
}

/* Counts `bytes` handle h just took (a mesh it holds, shared or not, its
 * query, scratch) and runs a full collection once the bytes taken and not
 * given back by close since the last one pass what the state held after it
 * (its Lua heap and the module's bytes; at least LNM_GC_FLOOR): Lua's own
 * rule (collect when memory has doubled) with the module's bytes counted.
 * Handles dropped without close are then freed at the pace memory is
 * taken, whatever the collector's mode (Lua's step API cannot do it in
 * generational mode, the default of 5.4's and 5.5's lua.c and of Skynet:
 * stepping only makes minor collections, which age the dropped handles
 * instead of freeing them), and code that closes its handles never pays
 * for a collection. Nothing runs while the collector is stopped (5.2 and
 * later; 5.1 and LuaJIT cannot tell). */
void lnm_gc_charge(lua_State *L, lnm_mesh *h, size_t bytes) {
  lnm_gc_charge_to(L, &h->alloc, &h->charged, bytes);
}

void lnm_gc_charge_to(lua_State *L, const nm_alloc *alloc, size_t *charged, size_t bytes) {
  lnm_acct *a = state_acct(L);
  if (!a || alloc->ud != a) return;
  *charged += bytes;
  a->charged += bytes;
  lower_base(L, a);
  if (a->charged <= (a->base > LNM_GC_FLOOR ? a->base : LNM_GC_FLOOR)) return;
#if LUA_VERSION_NUM >= 502
  if (!lua_gc(L, LUA_GCISRUNNING, 0)) return;
#endif
  lua_gc(L, LUA_GCCOLLECT, 0);
  a->charged = 0;
  a->base = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + a->bytes;
}

/* Gives back what an object was charged (it is being closed). */
void lnm_gc_refund(const nm_alloc *alloc, size_t *charged) { lnm_gc_uncharge(alloc, charged, *charged); }

/* Gives back part of what an object was charged: bytes it no longer holds
 * in the state's memory (a mesh moved into system memory by share). */
void lnm_gc_uncharge(const nm_alloc *alloc, size_t *charged, size_t bytes) {
  lnm_acct *a = (lnm_acct *)alloc->ud;
  if (alloc->fn != acct_alloc) return;
  if (bytes > *charged) bytes = *charged;
  *charged -= bytes;
  a->charged -= bytes < a->charged ? bytes : a->charged;
}

size_t lnm_acct_alloc(lua_State *L, nm_alloc *alloc) {
  lnm_acct *a = state_acct(L);
  if (a) {
    alloc->fn = acct_alloc;
    alloc->ud = a;
    return a->bytes;
  }
  alloc->fn = lua_getallocf(L, &alloc->ud);
  return 0;
}

size_t lnm_alloc_bytes(const nm_alloc *a) {
  return a->fn == acct_alloc ? ((const lnm_acct *)a->ud)->bytes : 0;
}

/* ---- the system allocator (caches built by jobs live in it) ---- */

static void *system_fn(void *ud, void *p, size_t os, size_t ns) {
  (void)ud;
  (void)os;
  if (ns == 0) {
    free(p);
    return NULL;
  }
  return realloc(p, ns);
}

const nm_alloc *lnm_system_alloc(void) {
  static const nm_alloc a = {system_fn, NULL};
  return &a;
}
