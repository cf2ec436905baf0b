/* nm_query.h -- query scratch space: the A* node pool and open list.
 *
 * A node is a (polygon, state) pair; Detour gives a polygon up to four nodes,
 * one per tile side it was entered from (state = link side / 2), and so do we.
 * Nodes live in one array, found through a hash of the reference. The pool is
 * cleared in time proportional to the nodes used, not to its capacity, so a
 * large pool costs nothing on short queries.
 * The open list is a binary heap ordered by `total` with Detour's exact
 * sift rules (strict comparisons, bottom-up removal), so among equal totals
 * the same node wins as in Detour. It holds (total, node index) pairs and a
 * slot per node, which keeps sifting inside the heap's own memory and makes
 * a decrease-key O(log n) instead of Detour's linear search. */
#ifndef NM_QUERY_H
#define NM_QUERY_H

#include "../mesh/nm_mesh.h"

enum { NM_NODE_OPEN = 1, NM_NODE_CLOSED = 2, NM_NODE_PARENT_DETACHED = 4 };
#define NM_NULL_IDX 0xffffffffu

typedef struct nm_node {
  float pos[3];
  float cost;        /* cost from the start */
  float total;       /* cost + heuristic */
  nm_polyref id;
  uint32_t pidx : 24; /* parent node index + 1, 0 = none */
  uint32_t state : 2;
  uint32_t flags : 3;
} nm_node;

typedef struct nm_nodepool {
  nm_node *nodes;
  uint32_t *first;   /* [hash_size] bucket heads */
  uint32_t *next;    /* [max] chain links */
  uint32_t max, count, hash_size, hash_shift;
} nm_nodepool;

/* Open-list entry: the node's total is kept beside its index, so sifting
 * compares contiguous memory and never touches the nodes themselves. */
typedef struct nm_heap_item {
  float total;
  uint32_t node;     /* index into base */
} nm_heap_item;

typedef struct nm_heap {
  nm_heap_item *items;
  uint32_t *pos;     /* [cap] slot of node i while it is open */
  nm_node *base;     /* the node array the indices refer to */
  uint32_t size, cap;
} nm_heap;

/* State of a sliced (step by step) path search. */
typedef struct nm_sliced {
  int active;
  nm_status status;
  nm_polyref start_ref, end_ref;
  float start[3], end[3];
  nm_filter filter;
  nm_node *last_best;
  float last_best_cost;
} nm_sliced;

struct nm_query {
  nm_alloc alloc;
  nm_navmesh *mesh;
  nm_nodepool pool;
  nm_heap open;
  nm_sliced sliced;
  uint64_t rng;
  struct nm_opt *opt;   /* optimal-search scratch (optimal.c), made on first use */
};

NM_INTERNAL nm_status nm_nodepool_init(nm_nodepool *p, const nm_alloc *a, uint32_t max);
NM_INTERNAL void nm_nodepool_free(nm_nodepool *p, const nm_alloc *a);
NM_INTERNAL nm_status nm_heap_init(nm_heap *h, const nm_alloc *a, uint32_t cap, nm_node *base);
NM_INTERNAL void nm_heap_free(nm_heap *h, const nm_alloc *a);
NM_INTERNAL void nm_opt_free(nm_query *q); /* optimal.c */

static inline uint32_t nm_hash_ref(nm_polyref r, uint32_t shift) {
  return (uint32_t)(r * 2654435761u) >> shift;
}

/* Forgets all nodes (cost: the nodes used since the last clear). */
static inline void nm_nodepool_clear(nm_nodepool *p) {
  uint32_t i;
  for (i = 0; i < p->count; i++) p->first[nm_hash_ref(p->nodes[i].id, p->hash_shift)] = NM_NULL_IDX;
  p->count = 0;
}

static inline nm_node *nm_nodepool_find(const nm_nodepool *p, nm_polyref id, uint32_t state) {
  uint32_t i = p->first[nm_hash_ref(id, p->hash_shift)];
  while (i != NM_NULL_IDX) {
    if (p->nodes[i].id == id && p->nodes[i].state == state) return &p->nodes[i];
    i = p->next[i];
  }
  return NULL;
}

/* The node of (id, state), made fresh (flags 0) if new; NULL when full. */
static inline nm_node *nm_nodepool_get(nm_nodepool *p, nm_polyref id, uint32_t state) {
  const uint32_t b = nm_hash_ref(id, p->hash_shift);
  uint32_t i = p->first[b];
  nm_node *n;
  while (i != NM_NULL_IDX) {
    if (p->nodes[i].id == id && p->nodes[i].state == state) return &p->nodes[i];
    i = p->next[i];
  }
  if (p->count >= p->max) return NULL;
  i = p->count++;
  n = &p->nodes[i];
  n->pidx = 0;
  n->cost = 0;
  n->total = 0;
  n->id = id;
  n->state = state;
  n->flags = 0;
  p->next[i] = p->first[b];
  p->first[b] = i;
  return n;
}

static inline uint32_t nm_node_idx(const nm_nodepool *p, const nm_node *n) {
  return (uint32_t)(n - p->nodes) + 1;
}
static inline nm_node *nm_node_at(const nm_nodepool *p, uint32_t idx) {
  return idx ? &p->nodes[idx - 1] : NULL;
}

/* ---- open list ---- */

static inline void nm_heap_clear(nm_heap *h) { h->size = 0; }

/* Moves item x up from slot i while its parent costs strictly more. */
static inline void nm_heap_up(nm_heap *h, uint32_t i, nm_heap_item x) {
  nm_heap_item *it = h->items;
  while (i > 0) {
    const uint32_t parent = (i - 1) / 2;
    if (!(it[parent].total > x.total)) break;
    it[i] = it[parent];
    h->pos[it[i].node] = i;
    i = parent;
  }
  it[i] = x;
  h->pos[x.node] = i;
}

static inline void nm_heap_push(nm_heap *h, nm_node *n) {
  nm_heap_item x;
  x.total = n->total;
  x.node = (uint32_t)(n - h->base);
  nm_heap_up(h, h->size++, x);
}

/* Removes the cheapest node: the hole left at the root sinks to a leaf along
 * the cheaper children, then the last item is placed there and rises. */
static inline nm_node *nm_heap_pop(nm_heap *h) {
  nm_heap_item *it = h->items;
  const nm_heap_item top = it[0], last = it[--h->size];
  uint32_t i = 0, child = 1;
  while (child < h->size) {
    if (child + 1 < h->size && it[child].total > it[child + 1].total) child++;
    it[i] = it[child];
    h->pos[it[i].node] = i;
    i = child;
    child = i * 2 + 1;
  }
  nm_heap_up(h, i, last);
  return &h->base[top.node];
}

/* A node in the list got cheaper: restore the order. */
static inline void nm_heap_modify(nm_heap *h, nm_node *n) {
  nm_heap_item x;
  x.total = n->total;
  x.node = (uint32_t)(n - h->base);
  nm_heap_up(h, h->pos[x.node], x);
}

static inline int nm_filter_pass(const nm_filter *f, const nm_poly *p) {
  return (p->flags & f->include_flags) != 0 && (p->flags & f->exclude_flags) == 0;
}

/* Portal (left, right) between two adjacent polygons; 0 when not adjacent. */
NM_INTERNAL int nm_portal_points(const nm_navmesh *m, nm_polyref from, const nm_tile *ft,
                                 const nm_poly *fp, nm_polyref to, const nm_tile *tt,
                                 const nm_poly *tp, float *left, float *right);

#endif
