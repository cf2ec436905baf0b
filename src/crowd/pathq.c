/* pathq.c -- the path queue (Detour's dtPathQueue): long path searches
 * run a slice at a time, from one budget of search iterations per update
 * shared by all requests.
 *
 * A request takes a free slot and gets a handle (never 0). Each update
 * walks the slots round-robin from where the last one stopped: a waiting
 * request starts its search, a running one continues with what is left of
 * the budget; a finished search writes its path into the slot at once
 * (the search state is shared by the slots). The update stops on the slot
 * that used up the budget, so the next update resumes it first. A result
 * not collected within two updates is dropped. With no path limit the slot
 * buffers grow to hold whole paths; the search node pool is the crowd's
 * (sized from the mesh unless configured), so far targets are planned
 * completely.
 *
 * Beyond Detour: agents waiting at the end of a partial path ask for the
 * same search again and again (every second, in Detour's crowd). A search
 * is a function of its request and the mesh, so the last NM_PQ_CACHE
 * finished searches are remembered; a repeated request is answered from
 * there, and still spends the iterations the search took from the budget,
 * in the same slices, so that every request finishes in the same update as
 * a real search would (the crowd moves exactly as dtCrowd). */
#include "nm_crowd.h"

#define KEEP_ALIVE 2 /* updates a finished result waits to be collected */

nm_status nm_pathq_init(nm_pathq *pq, const nm_alloc *a, nm_navmesh *mesh, int nslots, int nodes,
                        int limit) {
  const int cap = limit > 0 && limit <= 256 ? limit : NM_CORRIDOR_START_CAP;
  nm_status st;
  int i;
  memset(pq, 0, sizeof *pq);
  pq->limit = limit;
  pq->next_handle = 1;
  pq->slots = (nm_pq_slot *)nm_calloc(a, (size_t)nslots * sizeof(nm_pq_slot));
  if (!pq->slots) return NM_ERR_NOMEM;
  pq->nslots = nslots;
  for (i = 0; i < nslots; i++) {
    pq->slots[i].path = (nm_polyref *)nm_malloc(a, (size_t)cap * sizeof(nm_polyref));
    if (!pq->slots[i].path) return NM_ERR_NOMEM;
    pq->slots[i].cap = cap;
  }
  if ((st = nm_query_new(mesh, nodes, a, &pq->q)) < 0) return st;
  return NM_OK;
}

void nm_pathq_free(nm_pathq *pq, const nm_alloc *a) {
  int i;
  if (pq->slots)
    for (i = 0; i < pq->nslots; i++)
      nm_free(a, pq->slots[i].path, (size_t)pq->slots[i].cap * sizeof(nm_polyref));
  for (i = 0; i < NM_PQ_CACHE; i++)
    nm_free(a, pq->cache[i].path, (size_t)pq->cache[i].cap * sizeof(nm_polyref));
  nm_free(a, pq->slots, (size_t)pq->nslots * sizeof(nm_pq_slot));
  nm_query_free(pq->q);
  memset(pq, 0, sizeof *pq);
}

uint32_t nm_pathq_request(nm_pathq *pq, nm_polyref start_ref, nm_polyref end_ref,
                          const float *start, const float *end, const nm_filter *f) {
  nm_pq_slot *s = NULL;
  int i;
  for (i = 0; i < pq->nslots && !s; i++)
    if (!pq->slots[i].handle) s = &pq->slots[i];
  if (!s) return 0;
  s->handle = pq->next_handle++;
  if (!pq->next_handle) pq->next_handle = 1;
  s->req.start_ref = start_ref;
  s->req.end_ref = end_ref;
  nm_vcopy(s->req.start, start);
  nm_vcopy(s->req.end, end);
  s->req.filter = *f;
  s->status = NM_PQ_IDLE;
  s->partial = 0;
  s->npath = 0;
  s->keep_alive = 0;
  return s->handle;
}

/* ---- remembered searches ---- */

/* Bitwise equality of floats (the same bits give the same search). */
static int same_floats(const float *a, const float *b, int n) {
  return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

static int same_filter(const nm_filter *a, const nm_filter *b) {
  int i;
  if (a->include_flags != b->include_flags || a->exclude_flags != b->exclude_flags ||
      !same_floats(a->area_cost, b->area_cost, NM_MAX_AREAS) ||
      !same_floats(&a->heuristic_scale, &b->heuristic_scale, 1) ||
      a->area_change_count != b->area_change_count)
    return 0;
  for (i = 0; i < a->area_change_count; i++)
    if (a->area_change[i].from != b->area_change[i].from || a->area_change[i].to != b->area_change[i].to ||
        !same_floats(&a->area_change[i].cost, &b->area_change[i].cost, 1))
      return 0;
  return 1;
}

static int same_request(const nm_pq_request *a, const nm_pq_request *b) {
  return a->start_ref == b->start_ref && a->end_ref == b->end_ref && same_floats(a->start, b->start, 3) &&
         same_floats(a->end, b->end, 3) && same_filter(&a->filter, &b->filter);
}

/* The cache entry answering request r in this mesh generation, or NULL. */
static const nm_pq_cached *cache_find(const nm_pathq *pq, const nm_pq_request *r) {
  int i;
  for (i = 0; i < NM_PQ_CACHE; i++) {
    const nm_pq_cached *e = &pq->cache[i];
    if (e->used && e->generation == pq->q->mesh->generation && same_request(&e->req, r)) return e;
  }
  return NULL;
}

/* Remembers the search slot s just finished (skipped when memory runs out,
 * which is reported: the update still returns ERR_NOMEM). */
static void cache_store(nm_pathq *pq, const nm_pq_slot *s, const nm_alloc *a) {
  nm_pq_cached *e = &pq->cache[pq->cache_next];
  if (!nm_refs_reserve(a, &e->path, &e->cap, s->npath, 0)) {
    e->used = 0;
    pq->nomem = 1;
    return;
  }
  pq->cache_next = (pq->cache_next + 1) % NM_PQ_CACHE;
  e->used = 1;
  e->generation = pq->q->mesh->generation;
  e->req = s->req;
  memcpy(e->path, s->path, (size_t)s->npath * sizeof(nm_polyref));
  e->npath = s->npath;
  e->partial = s->partial;
  e->iterations = s->iters;
}

/* ---- running the slots ---- */

/* The search of slot s has finished: its path goes into the slot. */
static void slot_finish(nm_pathq *pq, nm_pq_slot *s, const nm_alloc *a) {
  nm_status st;
  if (!nm_refs_reserve(a, &s->path, &s->cap, nm_sliced_path_length(pq->q), pq->limit))
    pq->nomem = 1;
  st = nm_query_find_path_end(pq->q, s->path, s->cap, &s->npath);
  s->status = st < 0 ? NM_PQ_FAILED : NM_PQ_DONE;
  s->partial = st >= 0 && (st & NM_PARTIAL);
  if (s->status == NM_PQ_DONE && !(st & NM_TRUNCATED)) cache_store(pq, s, a);
}

/* A remembered search answers slot s: its path is copied now, its
 * iterations are spent as the search would spend them (slot_replay). */
static void slot_recall(nm_pathq *pq, nm_pq_slot *s, const nm_pq_cached *e, const nm_alloc *a) {
  if (!nm_refs_reserve(a, &s->path, &s->cap, e->npath, pq->limit)) pq->nomem = 1;
  s->npath = nm_mini(e->npath, s->cap);
  memcpy(s->path, e->path, (size_t)s->npath * sizeof(nm_polyref));
  s->partial = e->partial;
  s->iters = e->iterations;
  s->replay = 1;
  s->generation = e->generation;
}

/* Spends a remembered search's iterations; done when they are spent (a
 * mesh change in between fails it, as it fails a live search). */
static void slot_replay(nm_pathq *pq, nm_pq_slot *s, int *iters) {
  const int take = nm_mini(*iters, s->iters);
  *iters -= take;
  s->iters -= take;
  if (s->generation != pq->q->mesh->generation) s->status = NM_PQ_FAILED;
  else if (s->iters <= 0) s->status = NM_PQ_DONE;
}

/* Runs the search of slot s with at most *iters iterations (taken off). */
static void slot_run(nm_pathq *pq, nm_pq_slot *s, const nm_alloc *a, int *iters) {
  const nm_pq_request *r = &s->req;
  nm_status st;
  int done = 0;
  if (s->status == NM_PQ_IDLE) {
    const nm_pq_cached *e = cache_find(pq, r);
    s->iters = 0;
    s->replay = 0;
    if (e) {
      slot_recall(pq, s, e, a);
    } else if (nm_sliced_begin(pq->q, r->start_ref, r->end_ref, r->start, r->end, &r->filter, 1) < 0) {
      s->status = NM_PQ_FAILED;
      return;
    }
    s->status = NM_PQ_RUNNING;
  }
  if (s->replay) {
    slot_replay(pq, s, iters);
    return;
  }
  st = nm_query_find_path_step(pq->q, *iters, &done);
  *iters -= done;
  s->iters += done;
  if (st < 0) s->status = NM_PQ_FAILED; /* the mesh changed under the search */
  else if (!(st & NM_UNFINISHED)) slot_finish(pq, s, a);
}

int nm_pathq_update(nm_pathq *pq, const nm_alloc *a, int max_iters) {
  int iters = max_iters, i;
  for (i = 0; i < pq->nslots; i++) {
    nm_pq_slot *s = &pq->slots[pq->head % pq->nslots];
    if (!s->handle) {
      pq->head++;
      continue;
    }
    if (s->status == NM_PQ_DONE || s->status == NM_PQ_FAILED) {
      if (++s->keep_alive > KEEP_ALIVE) { /* never collected: free the slot */
        s->handle = 0;
        s->status = NM_PQ_IDLE;
      }
      pq->head++;
      continue;
    }
    slot_run(pq, s, a, &iters);
    if (iters <= 0) break;
    pq->head++;
  }
  if (pq->head >= pq->nslots) pq->head %= pq->nslots; /* same slot, no overflow */
  return max_iters - iters;
}

/* The slot holding handle h, or NULL. */
static nm_pq_slot *find_slot(const nm_pathq *pq, uint32_t h) {
  int i;
  if (!h) return NULL;
  for (i = 0; i < pq->nslots; i++)
    if (pq->slots[i].handle == h) return &pq->slots[i];
  return NULL;
}

int nm_pathq_status(const nm_pathq *pq, uint32_t handle) {
  const nm_pq_slot *s = find_slot(pq, handle);
  return s ? s->status : NM_PQ_FAILED;
}

int nm_pathq_result(nm_pathq *pq, uint32_t handle, nm_polyref **path, int *npath, int *partial) {
  nm_pq_slot *s = find_slot(pq, handle);
  if (!s || s->status != NM_PQ_DONE) return 0;
  s->handle = 0;
  s->status = NM_PQ_IDLE;
  *path = s->path;
  *npath = s->npath;
  *partial = s->partial;
  return 1;
}

void nm_pathq_set_mesh(nm_pathq *pq, nm_navmesh *mesh) {
  int i;
  nm_query_set_mesh(pq->q, mesh);
  for (i = 0; i < pq->nslots; i++) /* searches and results of the old mesh */
    if (pq->slots[i].handle && pq->slots[i].status != NM_PQ_FAILED) {
      pq->slots[i].status = NM_PQ_FAILED;
      pq->slots[i].keep_alive = 0;
    }
  for (i = 0; i < NM_PQ_CACHE; i++) pq->cache[i].used = 0;
}

int nm_pathq_pending(const nm_pathq *pq) {
  int i, n = 0;
  for (i = 0; i < pq->nslots; i++) n += pq->slots[i].handle != 0;
  return n;
}
