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

/* State of a sliced (step by step) path search. The search owns the node
 * pool while pool_stamp matches the query's and the mesh generation is
 * unchanged; anything else taking the pool (or changing the mesh) ends it. */
enum { NM_SLICED_NONE = 0, NM_SLICED_RUNNING = 1, NM_SLICED_DONE = 2 };
typedef struct nm_sliced {
  int state;              /* NM_SLICED_* */
  nm_status status;       /* detail bits gathered so far */
  nm_polyref start_ref, end_ref;
  float start[3], end[3];
  nm_filter filter;       /* a copy: the caller's may go away */
  nm_node *last_best;     /* node closest to the goal so far */
  float last_best_cost;   /* its heuristic */
  uint32_t stamp;         /* pool_stamp when the search took the pool */
  uint32_t generation;    /* mesh generation at begin */
  int detour_sliced;      /* Detour's updateSlicedFindPath rules (see nm_sliced_begin) */
} nm_sliced;

/* Area-sum table of findRandomPoint: refs of the passing ground polygons
 * and running sums of their X/Z areas (doubles: sums over big worlds). */
typedef struct nm_rand_table {
  nm_polyref *refs;
  double *cum;
  int count, cap;
  int valid;
  uint32_t generation;    /* mesh generation it was built for */
  uint16_t include_flags, exclude_flags;
} nm_rand_table;

#define NM_TINY_NODES 64  /* moveAlongSurface / findLocalNeighbourhood pool (Detour's) */

struct nm_query {
  nm_alloc alloc;
  nm_navmesh *mesh;
  nm_nodepool pool;
  nm_heap open;
  nm_sliced sliced;
  uint64_t rng;
  nm_nodepool tiny;       /* small pool for the breadth-first surface walks */
  uint32_t pool_stamp;    /* bumped whenever a search takes pool and open list */
  nm_rand_table rtab;
  struct nm_opt *opt;   /* optimal-search scratch (optimal.c), made on first use */
};

NM_INTERNAL nm_status nm_nodepool_init(nm_nodepool *p, const nm_alloc *a, uint32_t max);
NM_INTERNAL void nm_nodepool_free(nm_nodepool *p, const nm_alloc *a);
NM_INTERNAL nm_status nm_heap_init(nm_heap *h, const nm_alloc *a, uint32_t cap, nm_node *base);
NM_INTERNAL void nm_heap_free(nm_heap *h, const nm_alloc *a);
NM_INTERNAL void nm_rand_table_free(nm_query *q); /* random.c */
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

/* Midpoint of the portal from -> to ((l + r) * 0.5, Detour's rounding);
 * mid is left alone when the polygons are not adjacent. */
NM_INTERNAL void nm_edge_mid(const nm_navmesh *m, nm_polyref from, const nm_tile *ft,
                             const nm_poly *fp, nm_polyref to, const nm_tile *tt,
                             const nm_poly *tp, float *mid);

/* ---- shared by the query toolbox ---- */

/* Writes the polygons from the start node to node `end` of pool into path
 * (cut at the end when cap is too small: NM_TRUNCATED). */
NM_INTERNAL nm_status nm_path_to_node(const nm_nodepool *pool, const nm_node *end,
                                      nm_polyref *path, int cap, int *count);

/* Clears the node pool and open list for a new search, ending any sliced
 * search that held them. */
static inline void nm_query_take_pool(nm_query *q) {
  nm_nodepool_clear(&q->pool);
  nm_heap_clear(&q->open);
  q->pool_stamp++;
}

/* Area-change cost of a step from polygon cur into polygon next. */
static inline float nm_filter_change(const nm_filter *f, const nm_poly *cur, const nm_poly *next) {
  const int a = nm_poly_area(cur), b = nm_poly_area(next);
  return (f->area_change_count && a != b) ? nm_filter_area_change(f, a, b) : 0.0f;
}

/* Cost of walking pa -> pb on polygon cur and then entering polygon next
 * (Detour's getCost plus the area-change cost). Detour's float rounding. */
static inline float nm_filter_cost(const nm_filter *f, const float *pa, const float *pb,
                                   const nm_poly *cur, const nm_poly *next) {
  const float c = nm_vdist(pa, pb) * f->area_cost[nm_poly_area(cur)];
  return f->area_change_count ? c + nm_filter_change(f, cur, next) : c;
}

/* Unit vector in place (Detour's: multiply by 1/length); zero stays zero. */
static inline void nm_vnormalize(float *v) {
  const float l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  if (l2 > 0) {
    const float d = 1.0f / sqrtf(l2);
    v[0] *= d;
    v[1] *= d;
    v[2] *= d;
  }
}

/* Collects the vertices of polygon p into verts [(x,y,z) * 6]; returns n. */
static inline int nm_poly_verts(const nm_tile *t, const nm_poly *p, float *verts) {
  int i;
  for (i = 0; i < p->vert_count; i++) nm_vcopy(&verts[i * 3], &t->verts[p->verts[i] * 3]);
  return p->vert_count;
}

/* Clipping of a segment against a convex polygon in X/Z (Cyrus-Beck), one
 * edge at a time: lo/hi are the parameters where the segment enters and
 * leaves, smin/smax the edges crossed there (-1 none). winding -1 for
 * polygons wound the other way round from navmesh polygons. Detour's
 * operation order, so raycasts agree with it bit for bit; inline so that
 * raycast's constant winding folds away and the state stays in registers. */
typedef struct nm_clip {
  float p0x, p0z, dx, dz, winding, lo, hi;
  int smin, smax;
} nm_clip;

static inline void nm_clip_begin(nm_clip *c, const float *p0, const float *p1, float winding) {
  c->p0x = p0[0];
  c->p0z = p0[2];
  c->dx = p1[0] - p0[0];
  c->dz = p1[2] - p0[2];
  c->winding = winding;
  c->lo = 0;
  c->hi = 1;
  c->smin = c->smax = -1;
}

/* Clips by edge j (vj -> vi); 0 when the segment misses the polygon. */
static inline int nm_clip_edge(nm_clip *c, const float *vi, const float *vj, int j) {
  const float ex = vi[0] - vj[0], ez = vi[2] - vj[2];
  const float fx = c->p0x - vj[0], fz = c->p0z - vj[2];
  const float n = (ez * fx - ex * fz) * c->winding; /* perp(edge, diff) */
  const float d = (c->dz * ex - c->dx * ez) * c->winding; /* perp(dir, edge) */
  float t;
  if (fabsf(d) < 0.000001f) return n >= 0; /* parallel: outside it means no hit */
  if (d < 0) { /* entering across this edge (n >= 0: at t <= 0, which never beats lo) */
    if (n < 0 && (t = n / d) > c->lo) {
      c->lo = t;
      c->smin = j;
      return !(c->lo > c->hi);
    }
  } else if ((t = n / d) < c->hi) { /* leaving across this edge */
    c->hi = t;
    c->smax = j;
    return !(c->hi < c->lo);
  }
  return 1;
}

/* Segment p0-p1 against polygon verts [(x,y,z) * nverts]: tmin/tmax and
 * seg_min/seg_max as in nm_clip; 0 when it misses. */
static inline int nm_intersect_seg_poly2d(const float *p0, const float *p1, const float *verts,
                                          int nverts, float winding, float *tmin, float *tmax,
                                          int *seg_min, int *seg_max) {
  nm_clip c;
  int i, j, hit = 1;
  nm_clip_begin(&c, p0, p1, winding);
  for (i = 0, j = nverts - 1; i < nverts && hit; j = i++) hit = nm_clip_edge(&c, &verts[i * 3], &verts[j * 3], j);
  *tmin = c.lo;
  *tmax = c.hi;
  *seg_min = c.smin;
  *seg_max = c.smax;
  return hit;
}

/* Boundary parts of edge j of polygon p (polys.c): segs [6 * n] gets
 * (ax,ay,az,bx,by,bz) per part, refs [n] the polygon across (0 for walls).
 * With refs NULL only wall parts are given. Returns n <= NM_EDGE_SEGS_MAX. */
#define NM_EDGE_SEGS_MAX 32
NM_INTERNAL int nm_edge_wall_parts(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, int j,
                                   const nm_filter *f, float *segs, nm_polyref *refs);

/* nm_query_find_path_begin, with detour_sliced set: the search then
 * expands as Detour's sliced search does (it differs from Detour's
 * findPath): one node per polygon whatever tile side it is entered from,
 * and a polygon already reached from the parent of the node being expanded
 * is not reached again from that node. The crowd uses it to plan as
 * dtCrowd plans (path.c). */
NM_INTERNAL nm_status nm_sliced_begin(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                      const float *start, const float *end, const nm_filter *f,
                                      int detour_sliced);

/* Polygons on the corridor the sliced search would end with now (path.c):
 * for sizing the buffer of nm_query_find_path_end; 0 when none runs. */
NM_INTERNAL int nm_sliced_path_length(nm_query *q);

/* The area search of findPolysAroundCircle without output (around.c): the
 * polygons reached are the nodes left in the pool. */
NM_INTERNAL nm_status nm_around_circle_nodes(nm_query *q, nm_polyref start_ref, const float *center,
                                             float radius, const nm_filter *f);

#endif
