/* version.c -- versions of a navmesh: frozen meshes that share unchanged
 * tiles, so a server can publish a mesh that changed in a few tiles at a
 * cost in those tiles, while readers go on querying the versions they hold.
 *
 * A lineage is the bookkeeping all versions made from one mesh share: the
 * live (published, not yet freed) versions oldest first, the latest one
 * (the "tip"), the blobs that newer versions replaced but older live ones
 * may still use, and the lock that guards all of it. Versions are numbered;
 * a blob made by the draft that became version b and replaced in version d
 * is used by exactly the versions numbered in [b, d), so when a version is
 * freed every retired blob whose range holds no live version is freed with
 * it (epoch-style reclamation: no per-blob counts to update, so publishing
 * never touches unchanged tiles). Blobs of the tip are "current". When the
 * tip is freed, the newest live version becomes the tip again: blobs born
 * after it are freed and the blobs it uses that later versions had
 * retired are current again (a rewind, linear in the tiles, rare).
 *
 * One draft at a time, made from the tip only: a single writer, as a tile
 * cache or a game server has. The draft is an ordinary mutable mesh for
 * add/remove tile and set flags/area; navmesh.c makes a tile private
 * (nm_cow_tile) before writing into it. Readers of a version read only its
 * slot table and the blobs it names, none of which change while it lives;
 * the draft writes only its own copies and the retirement records that lie
 * past the end of shared blobs, which no reader reads. The allocator of a
 * lineage is called from whichever thread frees the last reference to a
 * version, so it must be thread-safe (NULL: the system allocator). */
#include "nm_mesh.h"
#include "../core/nm_thread.h"

typedef struct nm_lineage {
  nm_alloc alloc;
  nm_lock lock;
  const void *owner;      /* set: only this writer drafts (a tile cache) */
  uint32_t next_number;   /* number of the next draft */
  int drafting;           /* a draft is open */
  int users;              /* live versions + the open draft */
  nm_navmesh *oldest, *newest; /* live versions (vprev/vnext) */
  nm_navmesh *tip;        /* the latest version (the newest live one) */
  nm_retired *retired;    /* replaced blobs older live versions may use */
} nm_lineage;

/* ---- copy-on-write of tiles in a draft ---- */

/* The record that retires a blob lies after it in its block. */
static nm_retired *trailer(uint8_t *data, size_t size) {
  return (nm_retired *)(void *)(data + ((size + 7) & ~(size_t)7));
}

nm_status nm_cow_tile(nm_navmesh *m, nm_tile *t, nm_cow *c) {
  uint8_t *copy;
  if (!m->lineage || t->birth == m->version) return NM_OK;
  if (c->n >= NM_COW_MAX || !(copy = (uint8_t *)nm_malloc(&m->alloc, nm_blob_bytes(m, t->data_size))))
    return NM_ERR_NOMEM;
  memcpy(copy, t->data, t->data_size);
  c->e[c->n].t = t;
  c->e[c->n].data = t->data;
  c->e[c->n].size = t->data_size;
  c->e[c->n].birth = t->birth;
  c->n++;
  nm_tile_bind(t, copy, t->data_size); /* links_free is an index: still right */
  t->birth = m->version;
  return NM_OK;
}

void nm_cow_undo(nm_navmesh *m, nm_cow *c) {
  while (c->n > 0) {
    c->n--;
    nm_free(&m->alloc, c->e[c->n].t->data, nm_blob_bytes(m, c->e[c->n].size));
    nm_tile_bind(c->e[c->n].t, c->e[c->n].data, c->e[c->n].size);
    c->e[c->n].t->birth = c->e[c->n].birth;
  }
}

void nm_version_replaced(nm_navmesh *m, uint8_t *data, size_t size, uint32_t birth) {
  nm_retired *r = trailer(data, size);
  r->data = data;
  r->bytes = nm_blob_bytes(m, size);
  r->birth = birth;
  r->death = 0;
  r->next = m->replaced;
  m->replaced = r;
}

void nm_cow_keep(nm_navmesh *m, nm_cow *c) {
  int i;
  for (i = 0; i < c->n; i++) nm_version_replaced(m, c->e[i].data, c->e[i].size, c->e[i].birth);
  c->n = 0;
}

/* ---- the lineage ---- */

/* A lineage with one open draft (the first version being made). */
static nm_lineage *lineage_new(const nm_alloc *a) {
  nm_lineage *lin = (nm_lineage *)nm_calloc(a, sizeof *lin);
  if (!lin) return NULL;
  if (!nm_lock_init(&lin->lock)) {
    nm_free(a, lin, sizeof *lin);
    return NULL;
  }
  lin->alloc = *a;
  lin->next_number = 2;
  lin->drafting = 1;
  lin->users = 1;
  return lin;
}

/* Frees a list of retired blobs. */
static void free_retired(const nm_alloc *a, nm_retired *r) {
  nm_retired *next;
  for (; r; r = next) {
    next = r->next;
    nm_free(a, r->data, r->bytes);
  }
}

/* Frees what is left once no version and no draft is. */
static void lineage_free(nm_lineage *lin) {
  nm_alloc a = lin->alloc;
  free_retired(&a, lin->retired);
  nm_lock_destroy(&lin->lock);
  nm_free(&a, lin, sizeof *lin);
}

/* 1 when a live version is numbered in [birth, death). Lock held. */
static int in_use(const nm_lineage *lin, const nm_retired *r) {
  const nm_navmesh *v;
  for (v = lin->oldest; v && v->version < r->death; v = v->vnext)
    if (v->version >= r->birth) return 1;
  return 0;
}

/* Moves the retired blobs no live version uses into *gone. Lock held. */
static void sweep(nm_lineage *lin, nm_retired **gone) {
  nm_retired **pp = &lin->retired;
  while (*pp) {
    nm_retired *r = *pp;
    if (in_use(lin, r)) {
      pp = &r->next;
      continue;
    }
    *pp = r->next;
    r->next = *gone;
    *gone = r;
  }
}

/* Takes version v out of the live list. Lock held. */
static void unlink_live(nm_lineage *lin, nm_navmesh *v) {
  if (v->vprev) v->vprev->vnext = v->vnext;
  else lin->oldest = v->vnext;
  if (v->vnext) v->vnext->vprev = v->vprev;
  else lin->newest = v->vprev;
  v->vprev = v->vnext = NULL;
}

/* A draft freed without being committed: its own blobs go, the blobs it
 * shares stay with the versions that use them. */
static void draft_gone(nm_navmesh *d) {
  nm_lineage *lin = d->lineage;
  nm_navmesh *base = d->base;
  int last;
  nm_mesh_destroy(d, NM_FREE_OWN_BLOBS);
  nm_lock_take(&lin->lock);
  lin->drafting = 0;
  last = --lin->users == 0;
  nm_lock_give(&lin->lock);
  if (last) lineage_free(lin); /* a first version that was never made */
  nm_navmesh_release(base);
}

/* The tip went: the newest live version (number `keep`, 0 for none) is
 * the tip again. Retired blobs it uses are current again; those born after
 * it go to *gone. Lock held. */
static void rewind(nm_lineage *lin, uint32_t keep, nm_retired **gone) {
  nm_retired **pp = &lin->retired;
  while (*pp) {
    nm_retired *r = *pp;
    if (r->death <= keep) {
      pp = &r->next;
      continue;
    }
    *pp = r->next; /* out of the list: freed, or current again */
    if (r->birth > keep) {
      r->next = *gone;
      *gone = r;
    }
  }
}

/* Frees the blobs of a freed tip that were born after version `keep`. */
static void free_newer_blobs(nm_navmesh *v, uint32_t keep) {
  int i;
  for (i = 0; i < v->top; i++) {
    nm_tile *t = &v->tiles[i];
    if (t->header && t->birth > keep) nm_free(&v->alloc, t->data, nm_blob_bytes(v, t->data_size));
  }
}

void nm_version_gone(nm_navmesh *v) {
  nm_lineage *lin = v->lineage;
  const nm_alloc a = v->alloc; /* lin may go as soon as the lock is given */
  nm_retired *gone = NULL;
  uint32_t keep = 0;
  int last, was_tip;
  if (!v->committed) {
    draft_gone(v);
    return;
  }
  nm_lock_take(&lin->lock);
  unlink_live(lin, v);
  was_tip = lin->tip == v;
  if (was_tip) {
    lin->tip = lin->newest;
    keep = lin->newest ? lin->newest->version : 0;
    rewind(lin, keep, &gone);
  }
  sweep(lin, &gone);
  last = --lin->users == 0;
  nm_lock_give(&lin->lock);
  free_retired(&a, gone);
  if (was_tip) free_newer_blobs(v, keep);
  nm_mesh_destroy(v, NM_FREE_NO_BLOBS);
  if (last) lineage_free(lin);
}

/* ---- making versions ---- */

/* Publishes draft d as the latest version: its replaced blobs are retired
 * and it joins the live list. Called with nothing held. */
static void publish(nm_navmesh *d) {
  nm_lineage *lin = d->lineage;
  nm_retired *r = d->replaced;
  nm_navmesh *base = d->base;
  nm_islands_free(d); /* stale if made during the edit; readers remake them */
  d->islands_dirty = 0;
  d->frozen = 1;
  d->base = NULL;
  d->replaced = NULL;
  nm_lock_take(&lin->lock);
  while (r) {
    nm_retired *next = r->next;
    r->death = d->version;
    r->next = lin->retired;
    lin->retired = r;
    r = next;
  }
  d->vprev = lin->newest;
  if (lin->newest) lin->newest->vnext = d;
  else lin->oldest = d;
  lin->newest = lin->tip = d;
  d->committed = 1;
  lin->drafting = 0;
  nm_lock_give(&lin->lock);
  nm_navmesh_release(base); /* the previous tip; freeing it may free blobs */
}

/* Copies every tile of mesh into draft v (blobs with room for their
 * retirement record, live links byte for byte, slots and salts kept). */
static nm_status copy_tiles(nm_navmesh *v, const nm_navmesh *mesh) {
  nm_status st = NM_OK;
  int i;
  for (i = 0; i < mesh->top && st >= 0; i++) {
    const nm_tile *t = &mesh->tiles[i];
    uint8_t *data;
    nm_tile *placed;
    if (!t->header) continue;
    if (!(data = (uint8_t *)nm_malloc(&v->alloc, nm_blob_bytes(v, t->data_size)))) return NM_ERR_NOMEM;
    memcpy(data, t->data, t->data_size);
    st = nm_navmesh_place_tile(v, data, t->data_size, nm_tile_base(mesh, t), 0, NULL, &placed);
    if (st < 0) nm_free(&v->alloc, data, nm_blob_bytes(v, t->data_size));
  }
  return st;
}

nm_status nm_navmesh_version_new(const nm_navmesh *mesh, const nm_alloc *alloc, nm_navmesh **out) {
  nm_navmesh_params p;
  nm_navmesh *v;
  nm_status st;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!mesh) return NM_ERR_PARAM;
  nm_navmesh_get_params(mesh, &p);
  if ((st = nm_navmesh_new(&p, alloc, NULL, &v)) < 0) return st;
  if (!(v->lineage = lineage_new(&v->alloc))) {
    nm_navmesh_release(v);
    return NM_ERR_NOMEM;
  }
  v->version = 1;
  st = copy_tiles(v, mesh);
  if (st >= 0) st = nm_links_check_all(v, 1, NULL); /* rebuilds the free link chains */
  if (st < 0) {
    nm_navmesh_release(v); /* a draft: frees its blobs and the lineage */
    return st;
  }
  v->generation = mesh->generation;
  publish(v);
  *out = v;
  return NM_OK;
}

/* Registers a new draft of version v: its number, or 0 with *st set. */
static uint32_t draft_begin(nm_navmesh *v, nm_status *st) {
  nm_lineage *lin = v->lineage;
  uint32_t number = 0;
  nm_lock_take(&lin->lock);
  if (lin->tip != v) *st = NM_ERR_STALE;
  else if (lin->drafting) *st = NM_ERR_STATE;
  else {
    lin->drafting = 1;
    lin->users++;
    number = lin->next_number++;
  }
  nm_lock_give(&lin->lock);
  return number;
}

/* Copies the grid and slot bookkeeping of v into d, field by field (the
 * reference count and labels of v are touched by readers meanwhile). */
static void copy_grid(nm_navmesh *d, const nm_navmesh *v) {
  d->alloc = v->alloc;
  nm_vcopy(d->orig, v->orig);
  d->tile_width = v->tile_width;
  d->tile_height = v->tile_height;
  d->max_tiles = v->max_tiles;
  d->max_polys = v->max_polys;
  d->tile_bits = v->tile_bits;
  d->poly_bits = v->poly_bits;
  d->salt_bits = v->salt_bits;
  d->tile_mask = v->tile_mask;
  d->poly_mask = v->poly_mask;
  d->salt_mask = v->salt_mask;
  d->lut_mask = v->lut_mask;
  d->free_stack = v->free_stack;
  d->hwm = v->hwm;
  d->top = v->top;
  d->ntiles = v->ntiles;
  d->gx0 = v->gx0;
  d->gy0 = v->gy0;
  d->gx1 = v->gx1;
  d->gy1 = v->gy1;
  d->lineage = v->lineage;
}

/* A draft of v: its own slot table and position hash, copies of v's. */
static nm_navmesh *draft_arrays(const nm_navmesh *v) {
  nm_navmesh *d = (nm_navmesh *)nm_calloc(&v->alloc, sizeof *d);
  const size_t slots = (size_t)v->max_tiles * sizeof(nm_tile), lut = (v->lut_mask + 1) * sizeof(uint32_t);
  if (!d) return NULL;
  copy_grid(d, v);
  /* calloc: a huge, mostly unused table costs only the pages of the used
   * slots (the system allocator maps zero pages), not a pass over it */
  d->tiles = (nm_tile *)nm_calloc(&v->alloc, slots);
  d->pos_lookup = (uint32_t *)nm_malloc(&v->alloc, lut);
  if (!d->tiles || !d->pos_lookup) {
    nm_free(&v->alloc, d->tiles, slots);
    nm_free(&v->alloc, d->pos_lookup, lut);
    nm_free(&v->alloc, d, sizeof *d);
    return NULL;
  }
  /* slots past top were never used: zero in v, zero here */
  memcpy(d->tiles, v->tiles, (size_t)v->top * sizeof(nm_tile));
  memcpy(d->pos_lookup, v->pos_lookup, lut);
  return d;
}

void nm_version_set_owner(nm_navmesh *v, const void *owner) {
  if (v && v->lineage) v->lineage->owner = owner;
}

nm_status nm_navmesh_version_edit(nm_navmesh *v, nm_navmesh **out) { return nm_version_edit_as(v, NULL, out); }

nm_status nm_version_edit_as(nm_navmesh *v, const void *owner, nm_navmesh **out) {
  nm_status st = NM_OK;
  nm_navmesh *d;
  uint32_t number;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!v || !v->lineage || !v->committed) return NM_ERR_PARAM;
  if (v->lineage->owner != owner) return NM_ERR_READONLY; /* another writer's (set once, before readers) */
  if (!(number = draft_begin(v, &st))) return st;
  if (!(d = draft_arrays(v))) {
    nm_lock_take(&v->lineage->lock);
    v->lineage->drafting = 0;
    v->lineage->users--; /* v lives: never the last */
    nm_lock_give(&v->lineage->lock);
    return NM_ERR_NOMEM;
  }
  nm_refcount_init(&d->refs, 1);
  d->islands_dirty = 1;
  d->version = number;
  d->generation = v->generation + 1;
  d->base = v;
  nm_navmesh_retain(v);
  *out = d;
  return NM_OK;
}

nm_status nm_navmesh_version_commit(nm_navmesh *d) {
  if (!d || !d->lineage || d->committed) return NM_ERR_PARAM;
  publish(d);
  return NM_OK;
}

nm_navmesh *nm_navmesh_version_latest(nm_navmesh *m) {
  nm_navmesh *v = NULL;
  if (!m) return NULL;
  if (m->lineage) {
    nm_lock_take(&m->lineage->lock);
    for (v = m->lineage->newest; v && !nm_refcount_try_inc(&v->refs); v = v->vprev) {}
    nm_lock_give(&m->lineage->lock);
  }
  if (!v) {
    v = m;
    nm_navmesh_retain(m);
  }
  return v;
}

uint32_t nm_navmesh_version_number(const nm_navmesh *m) { return m && m->lineage ? m->version : 0; }
