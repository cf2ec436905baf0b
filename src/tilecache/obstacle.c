/* obstacle.c -- obstacle requests and the update that rebuilds the layers
 * they touch (Detour's dtTileCache::addObstacle / removeObstacle / update).
 *
 * Ids, slots and the order of rebuilds follow Detour: an obstacle's id is
 * salt << 16 | slot, slots come from a free list (0, 1, 2, ... then freed
 * slots, most recent first); requests are looked at in the order they were
 * made, each appending the layers it touches (tight layer bounds against
 * the obstacle's bounds) to the rebuild list unless already there; a
 * removed obstacle's slot returns to the free list (salt + 1) in the update
 * that rebuilds its last pending layer. Beyond Detour: requests are looked
 * at on every update (not only once the rebuild list is empty), an obstacle
 * may touch any number of layers, a request for an obstacle not yet looked
 * at is merged with it (add then remove frees the slot at once), and move
 * requests rebuild the union of the old and new layers once. */
#include <math.h>
#include "nm_cache.h"

#define NM_MAX_PRISM_VERTS 64

/* ---- checking a shape ---- */

static int fin(float v) { return nm_coord_ok(v); }
static int fin3(const float *v) { return nm_coords_ok(v, 3); }

static nm_status check_shape(const nm_obstacle *ob, nm_diag *diag) {
  int i;
  if (!ob) return nm_diag_set(diag, NM_ERR_PARAM, "obstacle", "missing obstacle");
  if (ob->area < 0 || ob->area > 63) return nm_diag_set(diag, NM_ERR_PARAM, "area", "area must be 0 (cut) or 1..63");
  if (!fin(ob->padding) || ob->padding < 0)
    return nm_diag_set(diag, NM_ERR_PARAM, "padding", "padding must be finite and >= 0");
  switch (ob->kind) {
    case NM_OBSTACLE_CYLINDER:
      if (!fin3(ob->pos) || !fin(ob->radius) || !fin(ob->height) || ob->radius < 0 || ob->height < 0)
        return nm_diag_set(diag, NM_ERR_PARAM, "radius", "cylinder needs a finite position, radius >= 0 and height >= 0");
      return NM_OK;
    case NM_OBSTACLE_BOX:
      if (!fin3(ob->bmin) || !fin3(ob->bmax) || ob->bmin[0] > ob->bmax[0] || ob->bmin[1] > ob->bmax[1] ||
          ob->bmin[2] > ob->bmax[2])
        return nm_diag_set(diag, NM_ERR_PARAM, "bmin", "box needs finite corners with bmin <= bmax");
      return NM_OK;
    case NM_OBSTACLE_ORIENTED_BOX:
      if (!fin3(ob->center) || !fin3(ob->half_extents) || !(fabsf(ob->yaw) <= 1e6f) || ob->half_extents[0] < 0 ||
          ob->half_extents[1] < 0 || ob->half_extents[2] < 0)
        return nm_diag_set(diag, NM_ERR_PARAM, "halfExtents", "oriented box needs a finite centre and yaw, half extents >= 0");
      return NM_OK;
    case NM_OBSTACLE_PRISM:
      if (!ob->verts || ob->nverts < 3 || ob->nverts > NM_MAX_PRISM_VERTS)
        return nm_diag_set(diag, NM_ERR_PARAM, "vertices", "prism needs 3..64 vertices");
      for (i = 0; i < ob->nverts; i++)
        if (!fin(ob->verts[i * 3]) || !fin(ob->verts[i * 3 + 2]))
          return nm_diag_set(diag, NM_ERR_PARAM, "vertices", "prism vertex %d is not finite", i + 1);
      if (!fin(ob->hmin) || !fin(ob->hmax) || ob->hmin > ob->hmax)
        return nm_diag_set(diag, NM_ERR_PARAM, "hmin", "prism needs finite hmin <= hmax");
      return NM_OK;
    default: return nm_diag_set(diag, NM_ERR_PARAM, "kind", "unknown obstacle kind %d", ob->kind);
  }
}

/* Sets an obstacle slot's shape (the prism outline is copied into pverts,
 * which the caller has allocated for prisms). */
static void set_shape(nm_cache *c, nm_cobstacle *o, const nm_obstacle *ob) {
  o->s = *ob;
  if (ob->kind == NM_OBSTACLE_PRISM) {
    int i;
    for (i = 0; i < ob->nverts; i++) nm_vset(&o->pverts[i * 3], ob->verts[i * 3], 0, ob->verts[i * 3 + 2]);
    o->s.verts = o->pverts;
  } else {
    o->s.verts = NULL;
    o->s.nverts = 0;
  }
  if (ob->kind == NM_OBSTACLE_ORIENTED_BOX) {
    const float ch = cosf(0.5f * ob->yaw), sh = sinf(-0.5f * ob->yaw);
    o->rot_aux[0] = ch * sh;
    o->rot_aux[1] = ch * ch - 0.5f;
  }
  nm_obstacle_bounds(&o->s, c->rules.obstacle_padding + ob->padding, o->bmin, o->bmax);
}

/* Room for a prism outline in slot o when ob needs one. */
static nm_status prism_room(nm_cache *c, nm_cobstacle *o, const nm_obstacle *ob) {
  if (ob->kind != NM_OBSTACLE_PRISM || o->pverts) return NM_OK;
  o->pverts = (float *)nm_malloc(&c->alloc, sizeof(float) * 3 * NM_MAX_PRISM_VERTS);
  return o->pverts ? NM_OK : NM_ERR_NOMEM;
}

/* The obstacle of id, or NULL when id names no live obstacle. */
static nm_cobstacle *obstacle_of(const nm_cache *c, uint32_t id) {
  const uint32_t slot = id & 0xffff, salt = id >> 16;
  nm_cobstacle *o;
  if (slot >= (uint32_t)c->p.max_obstacles) return NULL;
  o = &c->obs[slot];
  return o->state != NM_OB_EMPTY && o->salt == salt ? o : NULL;
}

/* Returns slot o to the free list with a new salt (never 0). */
static void free_slot(nm_cache *c, nm_cobstacle *o) {
  o->state = NM_OB_EMPTY;
  o->req = NM_REQ_NONE;
  o->ntouched = o->npending = 0;
  o->salt = (uint16_t)(o->salt + 1);
  if (o->salt == 0) o->salt = 1;
  o->next = c->free_ob;
  c->free_ob = (int)(o - c->obs);
  c->nobs--;
}

/* ---- requests ---- */

nm_status nm_cache_add_obstacle(nm_cache *c, const nm_obstacle *ob, uint32_t *id) {
  nm_cobstacle *o;
  nm_status st;
  if (id) *id = 0;
  if (!c) return NM_ERR_PARAM;
  if ((st = check_shape(ob, NULL)) < 0) return st;
  if (c->free_ob < 0) return NM_ERR_FULL;
  o = &c->obs[c->free_ob];
  if ((st = prism_room(c, o, ob)) < 0) return st;
  c->free_ob = o->next;
  o->next = -1;
  set_shape(c, o, ob);
  o->state = NM_OB_PROCESSING;
  o->req = NM_REQ_ADD;
  o->ntouched = o->npending = 0;
  c->reqs[c->nreqs++] = (uint16_t)(o - c->obs);
  if ((int)(o - c->obs) >= c->ob_top) c->ob_top = (int)(o - c->obs) + 1;
  c->nobs++;
  if (id) *id = ((uint32_t)o->salt << 16) | (uint32_t)(o - c->obs);
  return NM_OK;
}

/* Drops slot o's entry from the request queue. */
static void unqueue(nm_cache *c, const nm_cobstacle *o) {
  int i;
  for (i = 0; i < c->nreqs; i++)
    if (c->reqs[i] == (uint16_t)(o - c->obs)) {
      memmove(&c->reqs[i], &c->reqs[i + 1], sizeof(uint16_t) * (size_t)(c->nreqs - i - 1));
      c->nreqs--;
      return;
    }
}

nm_status nm_cache_remove_obstacle(nm_cache *c, uint32_t id) {
  nm_cobstacle *o;
  if (!c || !(o = obstacle_of(c, id)) || o->state == NM_OB_REMOVING || o->req == NM_REQ_REMOVE)
    return NM_ERR_PARAM;
  if (o->req == NM_REQ_ADD) { /* never looked at: nothing to rebuild */
    unqueue(c, o);
    free_slot(c, o);
    return NM_OK;
  }
  if (o->req == NM_REQ_NONE) c->reqs[c->nreqs++] = (uint16_t)(o - c->obs);
  o->req = NM_REQ_REMOVE;
  return NM_OK;
}

nm_status nm_cache_move_obstacle(nm_cache *c, uint32_t id, const nm_obstacle *ob) {
  nm_cobstacle *o;
  nm_status st;
  if (!c || !(o = obstacle_of(c, id)) || o->state == NM_OB_REMOVING || o->req == NM_REQ_REMOVE)
    return NM_ERR_PARAM;
  if ((st = check_shape(ob, NULL)) < 0) return st;
  if ((st = prism_room(c, o, ob)) < 0) return st;
  set_shape(c, o, ob);
  if (o->req == NM_REQ_NONE) {
    c->reqs[c->nreqs++] = (uint16_t)(o - c->obs);
    o->req = NM_REQ_MOVE;
  }
  return NM_OK;
}

/* ---- looking at requests ---- */

/* Makes room for n touched and 2n pending layers in slot o (contents kept). */
static nm_status touched_room(nm_cache *c, nm_cobstacle *o, int n) {
  uint32_t *t;
  int cap = o->cap ? o->cap : 4;
  if (n <= o->cap) return NM_OK;
  while (cap < n) cap *= 2;
  if (!(t = (uint32_t *)nm_malloc(&c->alloc, sizeof(uint32_t) * 3 * (size_t)cap))) return NM_ERR_NOMEM;
  if (o->ntouched) memcpy(t, o->touched, sizeof(uint32_t) * (size_t)o->ntouched);
  if (o->npending) memcpy(t + cap, o->pending, sizeof(uint32_t) * (size_t)o->npending);
  nm_free(&c->alloc, o->touched, sizeof(uint32_t) * 3 * (size_t)o->cap);
  o->touched = t;
  o->pending = t + cap;
  o->cap = cap;
  return NM_OK;
}

/* Room for n more entries in the rebuild list. */
static nm_status update_room(nm_cache *c, int n) {
  uint32_t *u;
  int cap = c->cap_upd ? c->cap_upd : 16;
  if (c->nupd + n <= c->cap_upd) return NM_OK;
  while (cap < c->nupd + n) cap *= 2;
  if (!(u = (uint32_t *)nm_malloc(&c->alloc, sizeof(uint32_t) * (size_t)cap))) return NM_ERR_NOMEM;
  if (c->nupd) memcpy(u, c->upd, sizeof(uint32_t) * (size_t)c->nupd);
  nm_free(&c->alloc, c->upd, sizeof(uint32_t) * (size_t)c->cap_upd);
  c->upd = u;
  c->cap_upd = cap;
  return NM_OK;
}

static int contains(const uint32_t *a, int n, uint32_t v) {
  int i;
  for (i = 0; i < n; i++)
    if (a[i] == v) return 1;
  return 0;
}

/* Query callbacks: count the layers, or collect their references. */
typedef struct touch_acc {
  const nm_cache *c;
  uint32_t *out;
  int n;
} touch_acc;
static void count_layer(void *ud, nm_clayer *l) {
  (void)l;
  ((touch_acc *)ud)->n++;
}
static void collect_layer(void *ud, nm_clayer *l) {
  touch_acc *t = (touch_acc *)ud;
  t->out[t->n++] = nm_cache_layer_ref(t->c, l);
}

/* Queues the layers of list [n] for rebuilding and makes them o's pending
 * layers (room was made by the caller). */
static void queue_layers(nm_cache *c, nm_cobstacle *o, const uint32_t *list, int n) {
  int j;
  o->npending = 0;
  for (j = 0; j < n; j++) {
    if (!contains(c->upd, c->nupd, list[j])) c->upd[c->nupd++] = list[j];
    o->pending[o->npending++] = list[j];
  }
}

/* Handles the request of slot o: finds the layers of its new shape (add,
 * move), queues what must be rebuilt. Nothing changes on ERR_NOMEM. */
static nm_status handle_request(nm_cache *c, nm_cobstacle *o) {
  touch_acc acc;
  nm_status st;
  int i;
  if (o->req == NM_REQ_REMOVE) {
    if ((st = update_room(c, o->ntouched)) < 0) return st;
    o->state = NM_OB_REMOVING;
    queue_layers(c, o, o->touched, o->ntouched);
    return NM_OK;
  }
  acc.c = c;
  acc.n = 0;
  nm_cache_query_layers(c, o->bmin, o->bmax, count_layer, &acc);
  if ((st = touched_room(c, o, nm_maxi(acc.n, o->ntouched))) < 0 || (st = update_room(c, acc.n + o->ntouched)) < 0)
    return st;
  for (i = 0; i < o->ntouched; i++) o->pending[i] = o->touched[i]; /* old place (move) */
  o->npending = o->ntouched;
  acc.out = o->touched;
  acc.n = 0;
  nm_cache_query_layers(c, o->bmin, o->bmax, collect_layer, &acc);
  o->ntouched = acc.n;
  for (i = 0; i < acc.n; i++)
    if (!contains(o->pending, o->npending, o->touched[i])) o->pending[o->npending++] = o->touched[i];
  queue_layers(c, o, o->pending, o->npending); /* rewrites pending in place */
  o->state = NM_OB_PROCESSING;
  return NM_OK;
}

/* Looks at every queued request in order; stops at the first failure (the
 * requests not handled stay queued). */
static nm_status handle_requests(nm_cache *c) {
  int i;
  nm_status st = NM_OK;
  for (i = 0; i < c->nreqs; i++) {
    nm_cobstacle *o = &c->obs[c->reqs[i]];
    if ((st = handle_request(c, o)) < 0) break;
    o->req = NM_REQ_NONE;
  }
  memmove(c->reqs, c->reqs + i, sizeof(uint16_t) * (size_t)(c->nreqs - i));
  c->nreqs -= i;
  return st;
}

/* ---- the update ---- */

/* After layer ref was rebuilt (0: none), obstacles whose requests have no
 * pending layer left are done: added or moved ones are in place, removed
 * ones give their slot back (in slot order, as Detour). */
static void settle(nm_cache *c, uint32_t ref) {
  int i, j;
  for (i = 0; i < c->ob_top; i++) {
    nm_cobstacle *o = &c->obs[i];
    if (o->state != NM_OB_PROCESSING && o->state != NM_OB_REMOVING) continue;
    for (j = 0; ref && j < o->npending; j++)
      if (o->pending[j] == ref) {
        o->pending[j] = o->pending[--o->npending];
        break;
      }
    if (o->npending) continue;
    if (o->state == NM_OB_PROCESSING) o->state = NM_OB_PROCESSED;
    else free_slot(c, o);
  }
}

/* Rebuilds pending layers in order, at most max_tiles (0: all); *n counts
 * them. A layer that fails for want of memory stays pending; one that
 * cannot be meshed is dropped. */
static nm_status rebuild_pending(nm_cache *c, int max_tiles, int *n, int *rebuilt) {
  nm_status st = NM_OK;
  while (c->nupd > 0 && (max_tiles == 0 || *n < max_tiles)) {
    const uint32_t ref = c->upd[0];
    nm_clayer *l = nm_cache_layer_by_ref(c, ref);
    if (l && (st = nm_cache_rebuild(c, l, NULL)) < 0 && st == NM_ERR_NOMEM) return st; /* stays pending */
    c->last_ref = ref;
    memmove(c->upd, c->upd + 1, sizeof(uint32_t) * (size_t)(c->nupd - 1));
    c->nupd--;
    settle(c, ref);
    ++*n;
    if (rebuilt) *rebuilt = *n;
    if (st < 0) return st;
  }
  return NM_OK;
}

nm_status nm_cache_update(nm_cache *c, int max_tiles, int *up_to_date, int *rebuilt) {
  nm_status st;
  int n = 0;
  if (up_to_date) *up_to_date = 0;
  if (rebuilt) *rebuilt = 0;
  if (!c || max_tiles < 0) return NM_ERR_PARAM;
  if ((st = handle_requests(c)) < 0) return st;
  if (c->nupd > 0) {
    if ((st = nm_cache_write_begin(c)) < 0) return st;
    st = rebuild_pending(c, max_tiles, &n, rebuilt);
    nm_cache_write_end(c);
    if (st < 0) return st;
  }
  if (n == 0) settle(c, 0);
  if (up_to_date) *up_to_date = c->nupd == 0 && c->nreqs == 0;
  return NM_OK;
}

nm_status nm_cache_build_tiles_at(nm_cache *c, int tx, int ty) {
  nm_clayer *found[256];
  nm_status st = NM_OK;
  int n, i;
  if (!c) return NM_ERR_PARAM;
  n = nm_cache_layers_at(c, tx, ty, found, 256);
  if (n == 0 || (st = nm_cache_write_begin(c)) < 0) return st;
  for (i = 0; i < n && st >= 0; i++) st = nm_cache_rebuild(c, found[i], NULL);
  nm_cache_write_end(c);
  return st;
}

/* ---- reading obstacles ---- */

int nm_cache_obstacle_ids(const nm_cache *c, uint32_t *ids, int cap) {
  int i, n = 0;
  if (!c) return 0;
  for (i = 0; i < c->ob_top; i++) {
    const nm_cobstacle *o = &c->obs[i];
    if (o->state == NM_OB_EMPTY) continue;
    if (ids && n < cap) ids[n] = ((uint32_t)o->salt << 16) | (uint32_t)i;
    n++;
  }
  return n;
}

nm_status nm_cache_get_obstacle(const nm_cache *c, uint32_t id, nm_obstacle *ob, int *state) {
  const nm_cobstacle *o = c ? obstacle_of(c, id) : NULL;
  if (!o) return NM_ERR_PARAM;
  if (ob) *ob = o->s;
  if (state) {
    if (o->state == NM_OB_REMOVING || o->req == NM_REQ_REMOVE) *state = NM_OBSTACLE_REMOVING;
    else if (o->state == NM_OB_PROCESSED && o->req == NM_REQ_NONE) *state = NM_OBSTACLE_PLACED;
    else *state = NM_OBSTACLE_PENDING;
  }
  return NM_OK;
}
