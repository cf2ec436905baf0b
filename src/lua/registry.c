/* registry.c -- the process-wide table of shared navmeshes.
 *
 * mesh:share(name) puts a mesh here; navmesh.open(name), in any Lua state on
 * any thread of the process, takes a new reference from here. This is the
 * library's only global mutable state, so it lives in the binding and not in
 * the core: a linked list of (name, mesh) guarded by one pthread mutex. The
 * list holds one reference on each mesh, so a mesh lives while it is named
 * here or any handle still uses it; the last nm_navmesh_release frees it
 * (the core's atomic reference count). Published meshes are read-only
 * (frozen) and live in system memory, because they outlive the Lua state
 * that shared them and are released from other threads.
 *
 * "Process-wide" means per loaded copy of this file: each navmesh/core.so
 * (one per Lua flavour) has its own registry, so a process that loads both
 * the 5.4 and the LuaJIT module has two independent sets of names.
 *
 * A Lua state that closes unloads the C modules it loaded (dlclose), and the
 * last one to close would take this registry with it: in Skynet, a loader
 * service that shares a map and exits would leave no map behind. So the
 * first successful share pins the module (pin_module): it stays loaded, and
 * the names with it, until the process exits; the names still shared then
 * are released by registry_unload. */
#if !defined(_GNU_SOURCE)
#  define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"

typedef struct entry {
  struct entry *next;
  nm_navmesh *mesh;  /* one reference held */
  size_t bytes;      /* its memory (nm_navmesh_info.memory_bytes) */
  size_t len;
  char name[1];      /* len bytes, then a NUL */
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *entries;
static size_t live_bytes; /* accessed with __atomic builtins only */

/* ---- the counting system allocator ---- */

/* realloc/free in lua_Alloc form, keeping live_bytes up to date. */
static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  void *p;
  (void)ud;
  if (nsize == 0) {
    if (ptr) {
      free(ptr);
      __atomic_sub_fetch(&live_bytes, osize, __ATOMIC_RELAXED);
    }
    return NULL;
  }
  p = realloc(ptr, nsize);
  if (p) {
    if (ptr) __atomic_sub_fetch(&live_bytes, osize, __ATOMIC_RELAXED);
    __atomic_add_fetch(&live_bytes, nsize, __ATOMIC_RELAXED);
  }
  return p;
}

static const nm_alloc sys_alloc = {counting_alloc, NULL};

const nm_alloc *lnm_registry_alloc(void) { return &sys_alloc; }

size_t lnm_registry_bytes(void) { return __atomic_load_n(&live_bytes, __ATOMIC_RELAXED); }

/* ---- keeping the module loaded ---- */

static pthread_once_t pinned = PTHREAD_ONCE_INIT;

/* Marks the shared object holding this file as never to be unloaded: the
 * path from dladdr, opened again with RTLD_NODELETE (RTLD_NOLOAD: only if it
 * is loaded; when the binding is linked into the program itself nothing is
 * to be done and the call fails harmlessly). The handle is kept on purpose. */
static void pin_module(void) {
  Dl_info info;
  if (dladdr((const void *)&pinned, &info) && info.dli_fname)
    (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}

/* ---- the table ---- */

/* The link pointing at the entry called name (or at the list's end). Called
 * with the lock held. */
static entry **find(const char *name, size_t len) {
  entry **e = &entries;
  for (; *e; e = &(*e)->next)
    if ((*e)->len == len && memcmp((*e)->name, name, len) == 0) break;
  return e;
}

int lnm_registry_put(const char *name, size_t len, nm_navmesh *mesh, int replace) {
  entry *fresh = (entry *)malloc(sizeof(entry) + len), **e;
  nm_navmesh *old = NULL;
  nm_navmesh_info info;
  int rc = LNM_REG_OK;
  if (!fresh) return LNM_REG_NOMEM;
  nm_navmesh_get_info(mesh, &info); /* frozen: it stays true */
  memcpy(fresh->name, name, len);
  fresh->name[len] = '\0';
  fresh->len = len;
  fresh->mesh = mesh;
  fresh->bytes = info.memory_bytes;
  pthread_mutex_lock(&lock);
  e = find(name, len);
  if (!*e) {             /* a new name */
    nm_navmesh_retain(mesh);
    fresh->next = NULL;
    *e = fresh;
    fresh = NULL;
  } else if ((*e)->mesh != mesh) {
    if (replace) {       /* a new version under a known name */
      nm_navmesh_retain(mesh);
      old = (*e)->mesh;
      (*e)->mesh = mesh;
      (*e)->bytes = fresh->bytes;
    } else {
      rc = LNM_REG_EXISTS;
    }
  }
  pthread_mutex_unlock(&lock);
  free(fresh);
  nm_navmesh_release(old); /* outside the lock: may free a whole mesh */
  if (rc == LNM_REG_OK) pthread_once(&pinned, pin_module);
  return rc;
}

nm_navmesh *lnm_registry_open(const char *name, size_t len, size_t *bytes) {
  nm_navmesh *mesh = NULL;
  entry **e;
  pthread_mutex_lock(&lock);
  e = find(name, len);
  if (*e) {
    mesh = (*e)->mesh;
    *bytes = (*e)->bytes;
    nm_navmesh_retain(mesh);
  }
  pthread_mutex_unlock(&lock);
  return mesh;
}

int lnm_registry_replace(const char *name, size_t len, nm_navmesh *old, nm_navmesh *mesh) {
  entry **e;
  int done = 0;
  pthread_mutex_lock(&lock);
  e = find(name, len);
  if (*e && (*e)->mesh == old) {
    nm_navmesh_retain(mesh);
    (*e)->mesh = mesh;
    done = 1;
  }
  pthread_mutex_unlock(&lock);
  if (done) nm_navmesh_release(old); /* outside the lock */
  return done;
}

int lnm_registry_taken(const char *name, size_t len, const nm_navmesh *mesh) {
  entry **e;
  int taken;
  pthread_mutex_lock(&lock);
  e = find(name, len);
  taken = *e && (*e)->mesh != mesh;
  pthread_mutex_unlock(&lock);
  return taken;
}

int lnm_registry_remove(const char *name, size_t len) {
  entry *gone = NULL, **e;
  pthread_mutex_lock(&lock);
  e = find(name, len);
  if (*e) {
    gone = *e;
    *e = gone->next;
  }
  pthread_mutex_unlock(&lock);
  if (!gone) return 0;
  nm_navmesh_release(gone->mesh);
  free(gone);
  return 1;
}

#if defined(__GNUC__)
/* Releases what is still shared when the module is unloaded (at process
 * exit once pinned, or when the last state closes before any share). */
__attribute__((destructor)) static void registry_unload(void) {
  entry *e = entries, *next;
  entries = NULL;
  for (; e; e = next) {
    next = e->next;
    nm_navmesh_release(e->mesh);
    free(e);
  }
}
#endif
