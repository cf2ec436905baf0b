/* optimal.c -- truly shortest paths: the any-angle search of Cui, Harabor
 * and Grastien, "Compromise-free Pathfinding on a Navigation Mesh" (IJCAI
 * 2017, "Polyanya"), on our tiled 2.5-D navmesh.
 *
 * A search node is a root point r (the start, or a wall corner the path turns
 * around) and an interval [left, right] on a portal leading into a polygon:
 * every point of the interval is seen from r in a straight line inside the
 * navmesh. g is the length of the shortest known path to r; f adds the length
 * of the shortest way from r through the interval to the goal (the goal is
 * mirrored across the interval's line when it lies on r's side), a lower
 * bound of every path the node stands for. Expanding a node projects the cone
 * r-left-right onto the other portals of the polygon (optimal_expand.c).
 * Nodes leave the open list in order of f, so the first goal node taken is a
 * shortest path. Pruning: successors into dead ends are dropped (cul-de-sac),
 * a node with a single successor that keeps its root is expanded at once
 * without the open list (intermediate), and a root reached again with a
 * greater g is dropped (root level; roots are named by mesh vertex and the
 * piece of walkable area around it, see nm_opt_root_key).
 *
 * The corridor returned is the chain of polygons of the goal node's
 * ancestors; the shortest path crosses exactly their portals, so the funnel
 * (straight.c) over it gives that path. nm_query_path_optimal skips the
 * funnel: the path's turns are the roots along that chain. Distances are
 * measured in X/Z; an off-mesh connection costs its straight 3-D length.
 * Area costs must be uniform: with others the search falls back to A*
 * (NM_FALLBACK).
 *
 * The scratch space (nodes, open list, root table, corner cache) lives in
 * the query, made on first use; nodes grow, doubling, up to 8 per A* node
 * of the query (at least 4096); a warm query allocates nothing. */
#include "nm_optimal.h"

#define NM_OPT_NODES_PER_POOL 8u
#define NM_OPT_MIN_LIMIT 4096u
#define NM_OPT_FIRST_CAP 1024u
#define NM_OPT_FIRST_ROOTS 2048u
#define NM_OPT_MIN_CORNERS 4096u
#define NM_OPT_MAX_CORNERS 65536u

/* ---- scratch space ---- */

/* Frees the optimal-search scratch of a query (from nm_query_free). */
void nm_opt_free(nm_query *q) {
  nm_opt *s = q->opt;
  if (!s) return;
  nm_free(&q->alloc, s->nodes, (size_t)s->cap * sizeof(nm_opt_node));
  nm_free(&q->alloc, s->heap, (size_t)s->hcap * sizeof(nm_opt_open));
  nm_free(&q->alloc, s->roots, ((size_t)s->rmask + 1) * sizeof(nm_opt_root));
  nm_free(&q->alloc, s->corners, ((size_t)s->cmask + 1) * sizeof(nm_opt_corner));
  nm_free(&q->alloc, s->cor, (size_t)s->ccap * sizeof(nm_polyref));
  nm_free(&q->alloc, s, sizeof *s);
  q->opt = NULL;
}

/* The query's scratch, made on first use. NULL when out of memory. */
static nm_opt *opt_scratch(nm_query *q) {
  nm_opt *s = q->opt;
  if (s) return s;
  if (!(s = (nm_opt *)nm_calloc(&q->alloc, sizeof *s))) return NULL;
  q->opt = s;
  s->limit = q->pool.max * NM_OPT_NODES_PER_POOL; /* max <= 1 << 22: no overflow */
  if (s->limit < NM_OPT_MIN_LIMIT) s->limit = NM_OPT_MIN_LIMIT;
  s->cap = s->hcap = NM_OPT_FIRST_CAP;
  s->nodes = (nm_opt_node *)nm_malloc(&q->alloc, (size_t)s->cap * sizeof(nm_opt_node));
  s->heap = (nm_opt_open *)nm_malloc(&q->alloc, (size_t)s->cap * sizeof(nm_opt_open));
  s->rmask = NM_OPT_FIRST_ROOTS - 1;
  s->roots = (nm_opt_root *)nm_calloc(&q->alloc, (size_t)NM_OPT_FIRST_ROOTS * sizeof(nm_opt_root));
  s->cmask = nm_next_pow2(q->pool.max * 2 < NM_OPT_MIN_CORNERS ? NM_OPT_MIN_CORNERS
                          : (q->pool.max * 2 > NM_OPT_MAX_CORNERS ? NM_OPT_MAX_CORNERS : q->pool.max * 2)) - 1;
  s->corners = (nm_opt_corner *)nm_calloc(&q->alloc, ((size_t)s->cmask + 1) * sizeof(nm_opt_corner));
  s->cgen = 1;
  if (!s->nodes || !s->heap || !s->roots || !s->corners) {
    nm_opt_free(q);
    return NULL;
  }
  return s;
}

/* Doubles the node and open-list arrays (up to the limit); 0 when full. */
static int opt_grow(nm_query *q, nm_opt *s) {
  const uint32_t ncap = s->cap > s->limit / 2 ? s->limit : s->cap * 2;
  void *p;
  if (ncap <= s->cap) return 0;
  if (s->hcap < ncap) {
    p = nm_realloc(&q->alloc, s->heap, (size_t)s->hcap * sizeof(nm_opt_open), (size_t)ncap * sizeof(nm_opt_open));
    if (!p) return 0;
    s->heap = (nm_opt_open *)p;
    s->hcap = ncap;
  }
  p = nm_realloc(&q->alloc, s->nodes, (size_t)s->cap * sizeof(nm_opt_node),
                 (size_t)ncap * sizeof(nm_opt_node));
  if (!p) return 0;
  s->nodes = (nm_opt_node *)p;
  s->cap = ncap;
  return 1;
}

/* ---- root table ---- */

static uint32_t root_hash(uint64_t key, uint32_t mask) {
  key ^= key >> 31;
  key *= 0x9e3779b97f4a7c15ull;
  return (uint32_t)(key >> 32) & mask;
}

/* Slot of key in the current search, or the empty slot where it goes. */
static nm_opt_root *root_slot(nm_opt *s, uint64_t key) {
  uint32_t i = root_hash(key, s->rmask);
  for (;;) {
    nm_opt_root *r = &s->roots[i];
    if (r->stamp != s->stamp || r->key == key) return r;
    i = (i + 1) & s->rmask;
  }
}

/* Doubles the root table, keeping the current search's entries. */
static void roots_grow(nm_query *q, nm_opt *s) {
  const uint32_t osize = s->rmask + 1, nsize = osize * 2;
  nm_opt_root *old = s->roots, *nr;
  uint32_t i;
  if (nsize < osize || !(nr = (nm_opt_root *)nm_calloc(&q->alloc, (size_t)nsize * sizeof(nm_opt_root))))
    return;
  s->roots = nr;
  s->rmask = nsize - 1;
  for (i = 0; i < osize; i++)
    if (old[i].stamp == s->stamp) *root_slot(s, old[i].key) = old[i];
  nm_free(&q->alloc, old, (size_t)osize * sizeof(nm_opt_root));
}

/* Forgets the remembered corner tests when the mesh or the filter's flags
 * changed since they were made. */
static void corners_check(nm_opt *s, const nm_navmesh *m, const nm_filter *f) {
  if (s->mesh_gen == m->generation && s->inc == f->include_flags && s->exc == f->exclude_flags) return;
  s->mesh_gen = m->generation;
  s->inc = f->include_flags;
  s->exc = f->exclude_flags;
  if (++s->cgen == 0) {
    memset(s->corners, 0, ((size_t)s->cmask + 1) * sizeof(nm_opt_corner));
    s->cgen = 1;
  }
}

/* Starts a new search: every entry of the table becomes stale. */
static void roots_reset(nm_opt *s) {
  if (++s->stamp == 0) {
    memset(s->roots, 0, ((size_t)s->rmask + 1) * sizeof(nm_opt_root));
    s->stamp = 1;
  }
  s->rcount = 0;
}

/* Looks key up; 0 when recorded with a g that beats g (`ties`: or equals
 * it within rounding), else records g if lower and returns 1. */
static int table_check(nm_opt_ctx *c, uint64_t key, double g, int ties) {
  nm_opt *s = c->s;
  nm_opt_root *r = root_slot(s, key);
  if (r->stamp == s->stamp) {
    const double tol = 1e-12 * r->g;
    if (ties ? g >= r->g - tol : g > r->g + tol) return 0;
    if (g < r->g) r->g = g;
    return 1;
  }
  if ((s->rcount + 1) * 4 > (s->rmask + 1) * 3) return 1; /* full: no pruning for it */
  r->key = key;
  r->g = g;
  r->stamp = s->stamp;
  if (++s->rcount * 2 > s->rmask + 1) roots_grow(c->q, s);
  return 1;
}

int nm_opt_root_check(nm_opt_ctx *c, uint64_t key, double g) { return table_check(c, key, g, 0); }
int nm_opt_seen(nm_opt_ctx *c, uint64_t key, double g) { return table_check(c, key, g, 1); }

/* A root whose recorded g became smaller after the node was made. */
static int root_stale(nm_opt_ctx *c, const nm_opt_node *n) {
  const nm_opt_root *r;
  if (!n->rootkey) return 0;
  r = root_slot(c->s, n->rootkey);
  return r->stamp == c->s->stamp && n->g > r->g + 1e-12 * r->g;
}

/* ---- open list: a binary heap by f, then larger g ----
 * Entries carry their keys, so sifting never touches the (large) nodes. */

static int entry_before(const nm_opt_open *a, const nm_opt_open *b) {
  return a->f < b->f || (a->f == b->f && a->g > b->g);
}

static void heap_push(nm_opt *s, uint32_t idx) {
  nm_opt_open e;
  uint32_t i = s->hsize++;
  e.f = s->nodes[idx].f;
  e.g = s->nodes[idx].g;
  e.idx = idx;
  while (i > 0) {
    const uint32_t parent = (i - 1) / 2;
    if (!entry_before(&e, &s->heap[parent])) break;
    s->heap[i] = s->heap[parent];
    i = parent;
  }
  s->heap[i] = e;
}

static uint32_t heap_pop(nm_opt *s) {
  const uint32_t top = s->heap[0].idx;
  const nm_opt_open last = s->heap[--s->hsize];
  uint32_t i = 0, child = 1;
  while (child < s->hsize) {
    if (child + 1 < s->hsize && entry_before(&s->heap[child + 1], &s->heap[child])) child++;
    if (!entry_before(&s->heap[child], &last)) break;
    s->heap[i] = s->heap[child];
    i = child;
    child = 2 * i + 1;
  }
  s->heap[i] = last;
  return top;
}

/* ---- the search ---- */

/* Room for the successors of one expansion at the end of the node array;
 * 0 when the node limit is reached. */
static int room(nm_opt_ctx *c) {
  nm_opt *s = c->s;
  while (s->count + NM_OPT_MAX_SUCC > s->cap)
    if (!opt_grow(c->q, s)) {
      c->st |= NM_OUT_OF_NODES;
      return 0;
    }
  return 1;
}

/* Expands node idx; while it has exactly one successor keeping its root,
 * expands that one at once (intermediate pruning: such a node never enters
 * the open list, so it needs no f). Other successors go to the open list. */
static void expand(nm_opt_ctx *c, uint32_t idx) {
  nm_opt *s = c->s;
  uint8_t same[NM_OPT_MAX_SUCC];
  for (;;) {
    nm_opt_node *x;
    int n, i;
    if (!room(c)) return;
    x = &s->nodes[s->count];
    n = nm_opt_successors(c, &s->nodes[idx], x, same);
    for (i = 0; i < n; i++) x[i].parent = idx + 1;
    if (n == 1 && same[0] && !(x->flags & NM_OPT_FINAL)) {
      idx = s->count++;
      continue;
    }
    for (i = 0; i < n; i++, x++) {
      x->f = (x->flags & NM_OPT_FINAL) ? x->g : x->g + nm_opt_heuristic(x, c->goal, c->eps);
      heap_push(s, s->count++);
    }
    return;
  }
}

/* X/Z distance from the goal to what node n reaches (for partial paths). */
static double goal_gap(const nm_opt_ctx *c, const nm_opt_node *n) {
  const double *a = n->right, *b = n->left, *p = c->goal;
  const double dx = b[0] - a[0], dy = b[1] - a[1], dd = dx * dx + dy * dy;
  double t = dd > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / dd : 0;
  double q[2];
  if (n->flags & NM_OPT_POINT) return nm_opt_dist(n->root, p);
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  q[0] = a[0] + t * dx;
  q[1] = a[1] + t * dy;
  return nm_opt_dist(q, p);
}

/* The node that came nearest to the goal (when it was not reached). */
static uint32_t nearest_node(const nm_opt_ctx *c) {
  uint32_t i, best = 0;
  double gap = DBL_MAX;
  for (i = 0; i < c->s->count; i++) {
    const double d = goal_gap(c, &c->s->nodes[i]);
    if (d < gap) {
      gap = d;
      best = i;
    }
  }
  return best;
}

/* Runs the search from the start node; *found gets the goal node, or the
 * node nearest to the goal (with NM_PARTIAL) when the goal is unreachable. */
static nm_status search(nm_opt_ctx *c, const nm_opt_node *start, uint32_t *found) {
  nm_opt *s = c->s;
  s->count = 1;
  s->hsize = 0;
  roots_reset(s);
  s->nodes[0] = *start;
  s->nodes[0].parent = 0;
  s->nodes[0].f = nm_opt_dist(start->root, c->goal);
  heap_push(s, 0);
  while (s->hsize) {
    const uint32_t idx = heap_pop(s);
    if (s->nodes[idx].flags & NM_OPT_FINAL) {
      *found = idx;
      return c->st;
    }
    if (root_stale(c, &s->nodes[idx])) continue;
    expand(c, idx);
  }
  *found = nearest_node(c);
  return c->st | NM_PARTIAL;
}

/* Number of polygons in the corridor of node idx. */
static int chain_len(const nm_opt *s, uint32_t idx) {
  const nm_opt_node *n;
  int len = 0;
  if (s->nodes[idx].flags & NM_OPT_FINAL) idx = s->nodes[idx].parent - 1; /* same polygon */
  for (n = &s->nodes[idx];; n = &s->nodes[n->parent - 1]) {
    len += (n->flags & NM_OPT_OFFMESH) ? 2 : 1;
    if (!n->parent) break;
  }
  return len;
}

/* Writes the corridor of node idx (start polygon first) into path, cut at
 * its end when cap is too small. */
static nm_status write_corridor(const nm_opt *s, uint32_t idx, nm_polyref *path, int cap, int *count) {
  const nm_opt_node *n;
  const int len = chain_len(s, idx);
  int w = len;
  if (s->nodes[idx].flags & NM_OPT_FINAL) idx = s->nodes[idx].parent - 1;
  for (n = &s->nodes[idx];; n = &s->nodes[n->parent - 1]) {
    if (--w < cap) path[w] = n->poly;
    if ((n->flags & NM_OPT_OFFMESH) && --w < cap) path[w] = n->from;
    if (!n->parent) break;
  }
  *count = len < cap ? len : cap;
  return len > cap ? NM_TRUNCATED : NM_OK;
}

/* 1 when every area costs the same (the only case the search handles). */
static int uniform_costs(const nm_filter *f) {
  int i;
  for (i = 1; i < NM_MAX_AREAS; i++)
    if (f->area_cost[i] != f->area_cost[0]) return 0;
  return 1;
}

/* Distance tolerance of searches on mesh m (see NM_OPT_EPS). */
static double mesh_eps(const nm_navmesh *m) {
  const double x0 = fabs(m->orig[0] + (double)m->gx0 * m->tile_width);
  const double x1 = fabs(m->orig[0] + (double)(m->gx1 + 1) * m->tile_width);
  const double z0 = fabs(m->orig[2] + (double)m->gy0 * m->tile_height);
  const double z1 = fabs(m->orig[2] + (double)(m->gy1 + 1) * m->tile_height);
  double mag = x0 > x1 ? x0 : x1;
  if (z0 > mag) mag = z0;
  if (z1 > mag) mag = z1;
  return NM_OPT_EPS * (1 + mag);
}

/* The point pos moved into polygon ref in X/Z, as (x, -z). */
static void point_in_poly(nm_query *q, nm_polyref ref, const float *pos, double *out) {
  const nm_tile *t;
  const nm_poly *p;
  float v[NM_MAX_VERTS_PER_POLY * 3], c[3];
  int i;
  nm_ref_unsafe(q->mesh, ref, &t, &p);
  for (i = 0; i < p->vert_count; i++) nm_vcopy(&v[i * 3], &t->verts[p->verts[i] * 3]);
  if (nm_point_in_polygon(pos, v, p->vert_count)) {
    nm_opt_pt(out, pos);
    return;
  }
  nm_query_closest_point_boundary(q, ref, pos, c);
  nm_opt_pt(out, c);
}

/* Checks the arguments and runs a search into c (*found: its last node).
 * NM_FALLBACK when the search does not apply (nothing ran then). */
static nm_status opt_run(nm_query *q, nm_polyref start_ref, nm_polyref end_ref, const float *start,
                         const float *end, const nm_filter *filter, nm_opt_ctx *c, uint32_t *found) {
  const nm_tile *t;
  const nm_poly *sp, *ep;
  nm_opt_node sn;
  if (!q || !start || !end || !filter || !nm_isfinite3(start) || !nm_isfinite3(end) ||
      !nm_ref_get(q->mesh, start_ref, &t, &sp) || !nm_ref_get(q->mesh, end_ref, &t, &ep))
    return NM_ERR_PARAM;
  if (!uniform_costs(filter) || nm_poly_type(sp) == NM_POLYTYPE_OFFMESH ||
      nm_poly_type(ep) == NM_POLYTYPE_OFFMESH)
    return NM_FALLBACK;
  memset(c, 0, sizeof *c);
  c->q = q;
  c->m = q->mesh;
  c->f = filter;
  c->goal_ref = end_ref;
  c->eps = mesh_eps(q->mesh);
  if (!(c->s = opt_scratch(q))) return NM_ERR_NOMEM;
  corners_check(c->s, q->mesh, filter);
  point_in_poly(q, end_ref, end, c->goal);
  memset(&sn, 0, sizeof sn);
  point_in_poly(q, start_ref, start, sn.root);
  memcpy(sn.left, sn.root, sizeof sn.left);
  memcpy(sn.right, sn.root, sizeof sn.right);
  sn.poly = start_ref;
  sn.flags = NM_OPT_POINT;
  return search(c, &sn, found);
}

nm_status nm_query_find_path_optimal(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                     const float start[3], const float end[3],
                                     const nm_filter *filter, nm_polyref *path, int cap, int *count) {
  nm_opt_ctx c;
  uint32_t found;
  nm_status st;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!path || cap <= 0) return NM_ERR_PARAM;
  st = opt_run(q, start_ref, end_ref, start, end, filter, &c, &found);
  if (st == NM_FALLBACK) {
    st = nm_query_find_path(q, start_ref, end_ref, start, end, filter, path, cap, count);
    return st < 0 ? st : st | NM_FALLBACK;
  }
  if (st < 0) return st;
  return st | write_corridor(c.s, found, path, cap, count);
}

/* ---- the path itself ---- */

/* Walks the path of goal node idx backwards -- the goal, every root where
 * the path turns, the start -- and numbers the points from the end: point
 * number `total - 1 - i` is the i-th met. With pts (second pass), writes
 * those below cap as (x, 0, z) and, in refs, the polygon they lie on (that
 * of the earliest node with the root). Returns the number of points. */
static int turns(const nm_opt_ctx *c, uint32_t idx, nm_polyref start_ref, float *pts,
                 nm_polyref *refs, int cap, int total) {
  const nm_opt *s = c->s;
  const nm_opt_node *n = &s->nodes[idx];
  const double *last = NULL;
  int k = 0, goal = 1;
  for (;;) {
    const double *p = goal ? c->goal : n->root;
    const nm_polyref ref = goal ? c->goal_ref : (n->parent ? n->from : start_ref);
    if (!last || p[0] != last[0] || p[1] != last[1]) {
      const int w = total - 1 - k++;
      if (pts && w >= 0 && w < cap) nm_vset(&pts[3 * w], (float)p[0], 0.0f, (float)-p[1]);
      last = p;
    }
    /* the polygon of the node where this root first appears holds it */
    if (pts && refs && total - k >= 0 && total - k < cap) refs[total - k] = ref;
    /* the goal was first; now the goal node's own point. (Testing k == 1
     * here looped forever when that point is the goal itself: k stayed 1.) */
    if (goal) { goal = 0; continue; }
    if (!n->parent) break;
    n = &s->nodes[n->parent - 1];
  }
  return k;
}

/* Drops points where the path runs straight on (collinear neighbours). */
static int drop_straight(float *pts, nm_polyref *refs, int n, double eps) {
  int i, w = 1;
  for (i = 1; i < n; i++) {
    if (i + 1 < n) {
      const float *a = &pts[3 * (w - 1)], *b = &pts[3 * i], *d = &pts[3 * (i + 1)];
      const double ux = (double)b[0] - a[0], uz = (double)b[2] - a[2];
      const double vx = (double)d[0] - b[0], vz = (double)d[2] - b[2];
      const double lu = sqrt(ux * ux + uz * uz), lv = sqrt(vx * vx + vz * vz);
      if (fabs(ux * vz - uz * vx) <= eps * (lu + lv) && ux * vx + uz * vz >= 0) continue;
    }
    memmove(&pts[3 * w], &pts[3 * i], 3 * sizeof(float));
    if (refs) refs[w] = refs[i];
    w++;
  }
  return w;
}

/* 1 when the path of node idx takes an off-mesh connection. */
static int uses_offmesh(const nm_opt *s, uint32_t idx) {
  for (;;) {
    if (s->nodes[idx].flags & NM_OPT_OFFMESH) return 1;
    if (!s->nodes[idx].parent) return 0;
    idx = s->nodes[idx].parent - 1;
  }
}

/* Makes room for n polygons in the scratch corridor. */
static nm_polyref *corridor_room(nm_query *q, nm_opt *s, uint32_t n) {
  if (n > s->ccap) {
    void *p = nm_realloc(&q->alloc, s->cor, (size_t)s->ccap * sizeof(nm_polyref), (size_t)n * sizeof(nm_polyref));
    if (!p) return NULL;
    s->cor = (nm_polyref *)p;
    s->ccap = n;
  }
  return s->cor;
}

/* The path through a corridor by the funnel, as mesh:path makes it: to the
 * end, or to the nearest point of the last polygon when it is not end_ref;
 * point heights from the detail mesh. */
static nm_status funnel_path(nm_query *q, const nm_polyref *cor, int ncor, nm_polyref end_ref,
                             const float *start, const float *end, float *pts, nm_polyref *refs,
                             int cap, int *count) {
  float e[3];
  nm_status st;
  int i;
  nm_vcopy(e, end);
  if (cor[ncor - 1] != end_ref) nm_query_closest_point(q, cor[ncor - 1], end, e, NULL);
  st = nm_query_straight_path(q, start, e, cor, ncor, NULL, pts, NULL, refs, cap, count);
  if (st < 0) return st;
  for (i = 0; i < *count; i++)
    if (!refs[i]) refs[i] = cor[ncor - 1];
  nm_query_surface_heights(q, pts, refs, *count, cor[ncor - 1]);
  return st;
}

/* Corridor, then funnel: the path when the optimal search does not apply
 * (A* corridor, NM_FALLBACK), did not reach the goal, or took off-mesh
 * connections (the funnel places their end points). */
static nm_status corridor_path(nm_query *q, nm_status st, uint32_t found,
                               nm_polyref start_ref, nm_polyref end_ref, const float *start,
                               const float *end, const nm_filter *filter, float *pts,
                               nm_polyref *refs, int cap, int *count) {
  nm_opt *s = q->opt ? q->opt : opt_scratch(q);
  nm_polyref *cor;
  int ncor = 0;
  if (!s) return NM_ERR_NOMEM;
  if (st == NM_FALLBACK) {
    if (!(cor = corridor_room(q, s, q->pool.max))) return NM_ERR_NOMEM;
    st = nm_query_find_path(q, start_ref, end_ref, start, end, filter, cor, (int)q->pool.max, &ncor);
    if (st < 0) return st;
    st |= NM_FALLBACK;
  } else {
    if (!(cor = corridor_room(q, s, (uint32_t)chain_len(s, found)))) return NM_ERR_NOMEM;
    st |= write_corridor(s, found, cor, (int)s->ccap, &ncor);
  }
  return st | funnel_path(q, cor, ncor, end_ref, start, end, pts, refs, cap, count);
}

nm_status nm_query_path_optimal(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                const float start[3], const float end[3], const nm_filter *filter,
                                float *pts, nm_polyref *refs, int cap, int *count) {
  nm_opt_ctx c;
  uint32_t found = 0;
  nm_status st;
  int n;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!pts || !refs || cap <= 0) return NM_ERR_PARAM;
  st = opt_run(q, start_ref, end_ref, start, end, filter, &c, &found);
  if (st < 0) return st;
  if (st == NM_FALLBACK || (st & NM_PARTIAL) || uses_offmesh(c.s, found))
    return corridor_path(q, st, found, start_ref, end_ref, start, end, filter, pts, refs, cap, count);
  n = turns(&c, found, start_ref, NULL, NULL, 0, 0);
  turns(&c, found, start_ref, pts, refs, cap, n);
  if (n > cap) {
    *count = cap;
    st |= NM_TRUNCATED;
  } else {
    *count = drop_straight(pts, refs, n, c.eps);
  }
  nm_query_surface_heights(q, pts, refs, *count, end_ref);
  return st;
}

nm_status nm_query_surface_heights(nm_query *q, float *pts, const nm_polyref *refs, int n,
                                   nm_polyref last) {
  int i;
  if (!q || n < 0 || (n > 0 && (!pts || !refs))) return NM_ERR_PARAM;
  for (i = 0; i < n; i++) {
    const nm_polyref ref = refs[i] ? refs[i] : last;
    const nm_tile *t;
    const nm_poly *p;
    float c[3];
    if (!nm_isfinite3(&pts[i * 3]) || !nm_ref_get(q->mesh, ref, &t, &p)) continue;
    nm_closest_point_on_poly(q->mesh, ref, &pts[i * 3], c, NULL);
    pts[i * 3 + 1] = c[1];
  }
  return NM_OK;
}
