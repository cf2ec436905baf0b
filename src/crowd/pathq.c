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
 * completely. */
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
  s->start_ref = start_ref;
  s->end_ref = end_ref;
  nm_vcopy(s->start, start);
  nm_vcopy(s->end, end);
  s->filter = *f;
  s->status = NM_PQ_IDLE;
  s->partial = 0;
  s->npath = 0;
  s->keep_alive = 0;
  return s->handle;
}

/* The search of slot s has finished: its path goes into the slot. */
static void slot_finish(nm_pathq *pq, nm_pq_slot *s, const nm_alloc *a) {
  nm_status st;
  if (!nm_refs_reserve(a, &s->path, &s->cap, nm_sliced_path_length(pq->q), pq->limit))
    pq->nomem = 1;
  st = nm_query_find_path_end(pq->q, s->path, s->cap, &s->npath);
  s->status = st < 0 ? NM_PQ_FAILED : NM_PQ_DONE;
  s->partial = st >= 0 && (st & NM_PARTIAL);
}

/* Runs the search of slot s with at most *iters iterations (taken off). */
static void slot_run(nm_pathq *pq, nm_pq_slot *s, const nm_alloc *a, int *iters) {
  nm_status st;
  int done = 0;
  if (s->status == NM_PQ_IDLE) {
    if (nm_sliced_begin(pq->q, s->start_ref, s->end_ref, s->start, s->end, &s->filter, 1) < 0) {
      s->status = NM_PQ_FAILED;
      return;
    }
    s->status = NM_PQ_RUNNING;
  }
  st = nm_query_find_path_step(pq->q, *iters, &done);
  *iters -= done;
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

int nm_pathq_pending(const nm_pathq *pq) {
  int i, n = 0;
  for (i = 0; i < pq->nslots; i++) n += pq->slots[i].handle != 0;
  return n;
}
