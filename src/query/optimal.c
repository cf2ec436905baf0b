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
 * Nodes leave the open list in order of f (larger g first among equal f), so
 * the first goal node taken is a shortest path. Pruning: successors into
 * dead ends are dropped -- single polygons (cul-de-sac) and whole parts of
 * the mesh hanging off one polygon without the goal (optimal_cuts.c) --, a
 * node with a single successor that keeps its root is expanded at once
 * without the open list (intermediate), a root reached again with a greater
 * g is dropped (root level; roots are named by mesh point and the piece of
 * walkable area around it), and so is a node whose interval another node
 * through the same portal reaches no worse at every point (interval
 * dominance, below), or several such nodes together (optimal_union.c).
 *
 * The corridor returned is the chain of polygons of the goal node's
 * ancestors; the shortest path crosses exactly their portals, so the funnel
 * (straight.c) over it gives that path. nm_query_path_optimal
 * (optimal_path.c) skips the funnel: the path's turns are the roots along
 * that chain. Distances are measured in X/Z; an off-mesh connection costs its
 * straight 3-D length. Area costs must be uniform: with others the search
 * falls back to A* (NM_FALLBACK).
 *
 * The scratch space (nodes, open list, root table, per-polygon facts) lives
 * in the query, made on first use; nodes grow, doubling, up to 8 per A* node
 * of the query (at least 4096); a warm query allocates nothing. */
#include "nm_optimal.h"

#define NM_OPT_NODES_PER_POOL 8u
#define NM_OPT_MIN_LIMIT 4096u
#define NM_OPT_FIRST_CAP 1024u
#define NM_OPT_FIRST_ROOTS 2048u

/* ---- scratch space ---- */

/* Frees the optimal-search scratch of a query (from nm_query_free). */
void nm_opt_free(nm_query *q) {
  nm_opt *s = q->opt;
  if (!s) return;
  nm_free(&q->alloc, s->nodes, (size_t)s->cap * sizeof(nm_opt_node));
  nm_free(&q->alloc, s->spans, (size_t)s->scap * sizeof(nm_opt_span));
  nm_free(&q->alloc, s->heap, (size_t)s->hcap * sizeof(nm_opt_open));
  nm_free(&q->alloc, s->roots, ((size_t)s->rmask + 1) * sizeof(nm_opt_entry));
  nm_free(&q->alloc, s->portals, (size_t)s->pcap * sizeof(nm_opt_portal));
  nm_free(&q->alloc, s->pinfo, (size_t)s->npinfo * sizeof(nm_opt_pinfo));
  nm_free(&q->alloc, s->tbase, (size_t)s->ntbase * sizeof(uint32_t));
  nm_free(&q->alloc, s->vcut, (size_t)s->nvcut * sizeof(uint32_t));
  nm_free(&q->alloc, s->lbase, (size_t)s->nlbase * sizeof(uint32_t));
  nm_free(&q->alloc, s->lblock, (size_t)s->nlblock * sizeof(uint32_t));
  nm_free(&q->alloc, s->bpar, (size_t)s->nbcap * 3 * sizeof(uint32_t));
  nm_free(&q->alloc, s->cor, (size_t)s->ccap * sizeof(nm_polyref));
  nm_free(&q->alloc, s->grp, (size_t)s->ngrp * sizeof(uint32_t));
  nm_free(&q->alloc, s->gnext, (size_t)s->ngnext * sizeof(uint32_t));
  nm_free(&q->alloc, s->gfirst, (size_t)s->ngfirst * sizeof(uint32_t));
  nm_free(&q->alloc, s->gref, (size_t)s->ngref * sizeof(nm_polyref));
  nm_free(&q->alloc, s->wmark, (size_t)s->nwmark * sizeof(uint32_t));
  nm_free(&q->alloc, s->wqueue, (size_t)s->nwqueue * sizeof(nm_polyref));
  nm_free(&q->alloc, s->wgap, (size_t)s->nwgap * sizeof(double));
  nm_free(&q->alloc, s->disk, (size_t)s->ndisk * 4 * sizeof(float));
  nm_free(&q->alloc, s->tpts, (size_t)s->ntpts * 3 * sizeof(float));
  nm_free(&q->alloc, s->trefs, (size_t)s->ntrefs * sizeof(nm_polyref));
  nm_free(&q->alloc, s, sizeof *s);
  q->opt = NULL;
}

nm_opt *nm_opt_scratch(nm_query *q) {
  nm_opt *s = q->opt;
  if (s) return s;
  if (!(s = (nm_opt *)nm_calloc(&q->alloc, sizeof *s))) return NULL;
  q->opt = s;
  s->limit = q->pool.max * NM_OPT_NODES_PER_POOL; /* max <= 1 << 22: no overflow */
  if (s->limit < NM_OPT_MIN_LIMIT) s->limit = NM_OPT_MIN_LIMIT;
  s->cap = s->hcap = s->scap = NM_OPT_FIRST_CAP;
  s->nodes = (nm_opt_node *)nm_malloc(&q->alloc, (size_t)s->cap * sizeof(nm_opt_node));
  s->spans = (nm_opt_span *)nm_malloc(&q->alloc, (size_t)s->cap * sizeof(nm_opt_span));
  s->heap = (nm_opt_open *)nm_malloc(&q->alloc, (size_t)s->cap * sizeof(nm_opt_open));
  s->rmask = NM_OPT_FIRST_ROOTS - 1;
  s->roots = (nm_opt_entry *)nm_calloc(&q->alloc, (size_t)NM_OPT_FIRST_ROOTS * sizeof(nm_opt_entry));
  s->cgen = 1;
  if (!s->nodes || !s->spans || !s->heap || !s->roots) {
    nm_opt_free(q);
    return NULL;
  }
  return s;
}

/* Doubles the node, span and open-list arrays (up to the limit); 0 when
 * full. */
static int opt_grow(nm_query *q, nm_opt *s) {
  const uint32_t ncap = s->cap > s->limit / 2 ? s->limit : s->cap * 2;
  if (ncap <= s->cap) return 0;
  return nm_opt_grow_array(q, (void **)&s->heap, &s->hcap, ncap, sizeof(nm_opt_open)) &&
         nm_opt_grow_array(q, (void **)&s->spans, &s->scap, ncap, sizeof(nm_opt_span)) &&
         nm_opt_grow_array(q, (void **)&s->nodes, &s->cap, ncap, sizeof(nm_opt_node));
}

/* ---- root table ---- */

static uint32_t root_hash(uint64_t key, uint32_t mask) {
  key ^= key >> 31;
  key *= 0x9e3779b97f4a7c15ull;
  return (uint32_t)(key >> 32) & mask;
}

/* Slot of key in the current search, or the empty slot where it goes. */
static nm_opt_entry *root_slot(nm_opt *s, uint64_t key) {
  uint32_t i = root_hash(key, s->rmask);
  for (;;) {
    nm_opt_entry *r = &s->roots[i];
    if (r->stamp != s->stamp || r->key == key) return r;
    i = (i + 1) & s->rmask;
  }
}

/* Doubles the root table, keeping the current search's entries. */
static void roots_grow(nm_query *q, nm_opt *s) {
  const uint32_t osize = s->rmask + 1, nsize = osize * 2;
  nm_opt_entry *old = s->roots, *nr;
  uint32_t i;
  if (nsize < osize || !(nr = (nm_opt_entry *)nm_calloc(&q->alloc, (size_t)nsize * sizeof(nm_opt_entry))))
    return;
  s->roots = nr;
  s->rmask = nsize - 1;
  for (i = 0; i < osize; i++)
    if (old[i].stamp == s->stamp) *root_slot(s, old[i].key) = old[i];
  nm_free(&q->alloc, old, (size_t)osize * sizeof(nm_opt_entry));
}

/* Starts a new search: every entry of the root table and every dominance
 * chain of a portal record becomes stale. */
static void search_reset(nm_opt *s) {
  if (++s->stamp == 0) {
    uint32_t i;
    memset(s->roots, 0, ((size_t)s->rmask + 1) * sizeof(nm_opt_entry));
    for (i = 0; i < s->pused; i++) s->portals[i].stamp = 0;
    s->stamp = 1;
  }
  s->rcount = 0;
}

/* Looks key up; 0 when recorded with a g that beats g (`ties`: or equals
 * it within rounding), else records g if lower and returns 1. */
static int table_check(nm_opt_ctx *c, uint64_t key, double g, int ties) {
  nm_opt *s = c->s;
  nm_opt_entry *r = root_slot(s, key);
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
  const nm_opt_entry *r;
  if (!n->rootkey) return 0;
  r = root_slot(c->s, n->rootkey);
  return r->stamp == c->s->stamp && n->g > r->g + 1e-12 * r->g;
}

/* ---- interval dominance ----
 * Node b dominates node a through the same edge when b's interval holds
 * a's and g_b + |r_b p| <= g_a + |r_a p| at every point p of a's interval:
 * every path a stands for then has one at most as long through b (going
 * to p via r_b instead), so a can go. With both roots on the same side of
 * the edge's line, the difference of the two distances along the line has
 * a single extremum, where the line through both roots meets it; so the
 * test is exact at the ends and, when that point lies on the interval with
 * r_a between r_b and it, there too (where it reads g_b + |r_b r_a| <= g_a). */

/* Length of the path through n's root to p. */
static double via_root(const nm_opt_node *n, const double *p) { return n->g + nm_opt_dist(n->root, p); }

/* 1 when node b dominates node a (see above). */
static int dominates(const nm_opt_node *b, const nm_opt_node *a) {
  const double ux = b->left[0] - b->right[0], uy = b->left[1] - b->right[1], uu = ux * ux + uy * uy;
  const double ta = (a->right[0] - b->right[0]) * ux + (a->right[1] - b->right[1]) * uy;
  const double tb = (a->left[0] - b->right[0]) * ux + (a->left[1] - b->right[1]) * uy;
  double o1, o2;
  if (b->poly != a->poly || ta < -1e-9 * uu || tb > (1 + 1e-9) * uu) return 0;
  if (!(nm_opt_orient(b->right, b->left, b->root) > 0 && nm_opt_orient(b->right, b->left, a->root) > 0)) return 0;
  if (via_root(b, a->right) > via_root(a, a->right) * (1 + 1e-10)) return 0;
  if (via_root(b, a->left) > via_root(a, a->left) * (1 + 1e-10)) return 0;
  o1 = nm_opt_orient(b->root, a->root, a->right);
  o2 = nm_opt_orient(b->root, a->root, a->left);
  if ((o1 < 0) != (o2 < 0)) { /* the line through both roots crosses the interval */
    const double t = o1 / (o1 - o2);
    double x[2];
    x[0] = a->right[0] + (a->left[0] - a->right[0]) * t;
    x[1] = a->right[1] + (a->left[1] - a->right[1]) * t;
    if (via_root(b, x) > via_root(a, x) * (1 + 1e-10)) return 0;
  }
  return 1;
}

/* Walks pr's chain for a node dominating node xi alone. A dominating
 * node's interval holds xi's (within 1e-9 of its length, see dominates()),
 * so where the spans, each within float rounding (6e-8) of exact, show an
 * end of xi's outside by more than NM_OPT_SPAN_GAP, the full test is
 * skipped: it would fail. When no node does it alone but two or more that
 * do not hold xi's interval overlap it and, with the others, reach both
 * its ends, they may do it together (optimal_union.c) -- though not in the
 * search that makes partial paths (side ~0, see nm_opt_run): there the
 * extra drops would change which of several nodes equally near the goal
 * comes first, and so where a partial path ends. */
int nm_opt_dominated(nm_opt_ctx *c, nm_opt_portal *pr, uint32_t xi) {
  nm_opt *s = c->s;
  nm_opt_span *x = &s->spans[xi];
  const float lo = x->t0 + NM_OPT_SPAN_GAP, hi = x->t1 - NM_OPT_SPAN_GAP;
  uint32_t j;
  int n = 0, ends = 0; /* nodes whose spans overlap xi's but do not hold it; ends of xi's reached */
  for (j = pr->head; j; j = s->spans[j - 1].chain) {
    const nm_opt_span *b = &s->spans[j - 1];
    if (b->t0 <= lo) {
      if (b->t1 >= hi) {
        if (dominates(&s->nodes[j - 1], &s->nodes[xi])) return 0;
        ends = 3;
      } else if (b->t1 > lo) {
        n++;
        ends |= 1;
      }
    } else if (b->t0 < hi) {
      n++;
      ends |= (b->t1 >= hi) << 1;
    }
  }
  if (n >= 2 && ends == 3 && c->side != 0xffffffffu && nm_opt_union_dominated(c, pr, xi)) return 0;
  x->chain = pr->head;
  pr->head = xi + 1;
  return 1;
}

/* ---- open list: a binary heap by f, then larger g ----
 * Entries carry their keys, so sifting never touches the (large) nodes. */

static int entry_before(const nm_opt_open *a, const nm_opt_open *b) {
  return a->f < b->f || (a->f == b->f && a->g > b->g);
}

static void heap_push(nm_opt *s, nm_opt_open e) {
  uint32_t i = s->hsize++;
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

/* The shortest way from the root of n through its interval to the goal
 * (mirrored across the interval's line when it lies on the root's side):
 * a lower bound of every path the node stands for. */
static double heuristic(const nm_opt_node *n, const double *goal, double eps) {
  const double *r = n->root, *a = n->right, *b = n->left;
  const double dx = b[0] - a[0], dy = b[1] - a[1], d2 = dx * dx + dy * dy;
  double sr, sg, g2[2];
  if (n->flags & NM_OPT_POINT) return nm_opt_dist(r, goal);
  if (d2 < eps * eps) return nm_opt_dist(r, a) + nm_opt_dist(a, goal);
  sr = nm_opt_orient(a, b, r);
  if (sr * sr <= eps * eps * d2) return nm_opt_dist(r, goal); /* root on the interval */
  sg = nm_opt_orient(a, b, goal);
  g2[0] = goal[0];
  g2[1] = goal[1];
  if ((sr > 0) == (sg > 0) && fabs(sg) > 0) { /* same side as the root: mirror it */
    const double t = ((goal[0] - a[0]) * dx + (goal[1] - a[1]) * dy) / d2;
    g2[0] = 2 * (a[0] + t * dx) - goal[0];
    g2[1] = 2 * (a[1] + t * dy) - goal[1];
  }
  if (nm_opt_orient(r, a, g2) < 0) return nm_opt_dist(r, a) + nm_opt_dist(a, g2);
  if (nm_opt_orient(r, b, g2) > 0) return nm_opt_dist(r, b) + nm_opt_dist(b, g2);
  return nm_opt_dist(r, g2);
}

/* The open-list entry of node idx. */
static nm_opt_open open_entry(const nm_opt_ctx *c, uint32_t idx) {
  const nm_opt_node *x = &c->s->nodes[idx];
  nm_opt_open e;
  e.g = x->g;
  e.f = (x->flags & NM_OPT_FINAL) ? x->g : x->g + heuristic(x, c->goal, c->eps);
  e.idx = idx;
  return e;
}

/* Puts the successors of an expansion, nodes [first, first + n), into the
 * open list, all but the best one; returns that one in *best (0 when there
 * are none). */
static int open_succs(nm_opt_ctx *c, uint32_t first, int n, nm_opt_open *best) {
  int i;
  if (n <= 0) return 0;
  *best = open_entry(c, first);
  for (i = 1; i < n; i++) {
    const nm_opt_open e = open_entry(c, first + (uint32_t)i);
    if (entry_before(&e, best)) {
      heap_push(c->s, *best);
      *best = e;
    } else {
      heap_push(c->s, e);
    }
  }
  return 1;
}

/* Expands node idx, and goes on with a successor at once while that is
 * what the open list would give next anyway: the single successor that
 * keeps its root (intermediate pruning: such a node needs no f), or the
 * best successor when nothing in the open list comes before it (saving
 * its trip through the list). Other successors go to the open list.
 * Returns the goal node + 1 when the best successor is it, else 0. */
static uint32_t expand(nm_opt_ctx *c, uint32_t idx) {
  nm_opt *s = c->s;
  uint8_t same[NM_OPT_MAX_SUCC];
  nm_opt_open best;
  for (;;) {
    const uint32_t first = s->count;
    int n;
    if (!room(c)) return 0;
    n = nm_opt_successors(c, &s->nodes[idx], idx + 1, &s->nodes[first], same);
    s->count += (uint32_t)n;
    if (n == 1 && same[0] && !(s->nodes[first].flags & NM_OPT_FINAL)) {
      idx = first;
      continue;
    }
    if (!open_succs(c, first, n, &best)) return 0;
    if (s->hsize && entry_before(&s->heap[0], &best)) {
      heap_push(s, best);
      return 0;
    }
    if (s->nodes[best.idx].flags & NM_OPT_FINAL) return best.idx + 1;
    idx = best.idx;
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
  double gap = DBL_MAX, ggap = DBL_MAX;
  nm_polyref last = 0, member;
  for (i = 0; i < c->s->count; i++) {
    const nm_opt_node *n = &c->s->nodes[i];
    double d = goal_gap(c, n);
    if (n->poly != last) ggap = nm_opt_group_gap(c, n->poly, c->goal, &member);
    last = n->poly; /* a merged polygon may reach nearer the goal than its portals: */
    if (ggap < d) d = ggap;
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
  uint32_t f;
  s->count = 1;
  s->hsize = 0;
  search_reset(s);
  s->nodes[0] = *start;
  s->nodes[0].parent = 0;
  heap_push(s, open_entry(c, 0));
  while (s->hsize) {
    const uint32_t idx = heap_pop(s);
    const nm_opt_node *n = &s->nodes[idx];
    if (n->flags & NM_OPT_FINAL) {
      *found = idx;
      return c->st;
    }
    if (root_stale(c, n)) continue;
    if ((f = expand(c, idx)) != 0) {
      *found = f - 1;
      return c->st;
    }
  }
  *found = nearest_node(c);
  return c->st | NM_PARTIAL;
}

/* 1 when every area costs the same (the only case the search handles).
 * Equal bytes, each cost to the next, settle the usual case at once. */
static int uniform_costs(const nm_filter *f) {
  int i;
  if (!memcmp(&f->area_cost[1], &f->area_cost[0], (NM_MAX_AREAS - 1) * sizeof f->area_cost[0])) return 1;
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

/* The point pos moved into polygon ref in X/Z, as (x, -z): kept when it
 * is left of (or on) every edge of the convex, counter-clockwise polygon. */
static void point_in_poly(nm_query *q, nm_polyref ref, const float *pos, double *out) {
  const nm_tile *t;
  const nm_poly *p;
  double a[2], b[2];
  float c[3];
  int i;
  nm_ref_unsafe(q->mesh, ref, &t, &p);
  nm_opt_pt(out, pos);
  nm_opt_pt(a, &t->verts[p->verts[p->vert_count - 1] * 3]);
  for (i = 0; i < p->vert_count; i++, a[0] = b[0], a[1] = b[1]) {
    nm_opt_pt(b, &t->verts[p->verts[i] * 3]);
    if (nm_opt_orient(a, b, out) < 0) break;
  }
  if (i == p->vert_count) return;
  nm_query_closest_point_boundary(q, ref, pos, c);
  nm_opt_pt(out, c);
}

/* Searches from start (polygon start_ref) to end (end_ref), the context
 * already set up for the query; `prune`: leave out dead-end parts of the
 * mesh that do not hold the goal (not when the search is to find the node
 * nearest an unreachable goal, which may lie in one). */
static nm_status aim(nm_opt_ctx *c, nm_polyref start_ref, nm_polyref end_ref, const float *start,
                     const float *end, int prune, uint32_t *found) {
  nm_opt_node sn;
  c->goal_ref = end_ref;
  c->st = NM_OK;
  point_in_poly(c->q, end_ref, end, c->goal);
  c->goal_grp = nm_opt_group(c, end_ref);
  memset(&sn, 0, sizeof sn);
  point_in_poly(c->q, start_ref, start, sn.root);
  memcpy(sn.left, sn.root, sizeof sn.left);
  memcpy(sn.right, sn.root, sizeof sn.right);
  sn.poly = nm_opt_group(c, start_ref);
  sn.flags = NM_OPT_POINT;
  c->side = prune ? nm_opt_goal_side(c) : 0xffffffffu;
  return search(c, &sn, found);
}

/* 1 when the mesh's island labels, if up to date, put polygons a and b
 * apart: no path joins them, whatever the filter. */
static int apart(const nm_navmesh *m, nm_polyref a, nm_polyref b) {
  const uint32_t la = nm_island_label(m, a), lb = nm_island_label(m, b);
  return la && lb && la != lb;
}

/* Makes the walk's mark and queue arrays fit the mesh's polygons and
 * starts a new walk (marks of older walks count as unmarked); 0 when out
 * of memory. */
static int walk_room(nm_opt_ctx *c) {
  nm_opt *s = c->s;
  const uint32_t n = s->npoly > 0 ? s->npoly : 1, old = s->nwmark;
  if (!nm_opt_grow_array(c->q, (void **)&s->wmark, &s->nwmark, n, sizeof(uint32_t)) ||
      !nm_opt_grow_array(c->q, (void **)&s->wqueue, &s->nwqueue, n, sizeof(nm_polyref)) ||
      !nm_opt_grow_array(c->q, (void **)&s->wgap, &s->nwgap, n, sizeof(double)))
    return 0;
  if (s->nwmark > old) memset(s->wmark + old, 0, (size_t)(s->nwmark - old) * sizeof(uint32_t));
  if (++s->wstamp == 0) {
    memset(s->wmark, 0, (size_t)s->nwmark * sizeof(uint32_t));
    s->wstamp = 1;
  }
  return 1;
}

/* The disk of polygon pl of tile t into d (x, -z, radius): centred on its
 * X/Z bounding box, the radius rounded up so that the float disk still
 * holds every vertex. */
static void poly_disk(const nm_tile *t, const nm_poly *pl, float *d) {
  const float *v = &t->verts[pl->verts[0] * 3];
  float x0 = v[0], x1 = v[0], z0 = v[2], z1 = v[2], rf;
  double r2 = 0, r;
  int i;
  for (i = 1; i < pl->vert_count; i++) {
    v = &t->verts[pl->verts[i] * 3];
    x0 = v[0] < x0 ? v[0] : x0;
    x1 = v[0] > x1 ? v[0] : x1;
    z0 = v[2] < z0 ? v[2] : z0;
    z1 = v[2] > z1 ? v[2] : z1;
  }
  d[0] = 0.5f * (x0 + x1);
  d[1] = -0.5f * (z0 + z1);
  for (i = 0; i < pl->vert_count; i++) {
    const double dx = (double)t->verts[pl->verts[i] * 3] - d[0];
    const double dy = -(double)t->verts[pl->verts[i] * 3 + 2] - d[1];
    if (dx * dx + dy * dy > r2) r2 = dx * dx + dy * dy;
  }
  r = sqrt(r2);
  rf = (float)r;
  d[2] = (double)rf < r ? nextafterf(rf, FLT_MAX) : rf;
  d[3] = 0;
}

/* Makes the disks of every polygon of the mesh (once per generation); 0
 * when out of memory. */
static int disks_make(nm_opt_ctx *c) {
  nm_opt *s = c->s;
  const nm_navmesh *m = c->m;
  int i, j;
  if (s->disk_set && s->disk_gen == s->mesh_gen) return 1;
  if (!nm_opt_grow_array(c->q, (void **)&s->disk, &s->ndisk, s->npoly > 0 ? s->npoly : 1, 4 * sizeof(float)))
    return 0;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    for (j = 0; j < t->header->poly_count; j++) poly_disk(t, &t->polys[j], &s->disk[4 * (s->tbase[i] + (uint32_t)j)]);
  }
  s->disk_gen = s->mesh_gen;
  s->disk_set = 1;
  return 1;
}

/* The mesh polygon nearest (in X/Z) to point p (x, -z) among those polygon
 * start_ref reaches through links into polygons that pass the filter --
 * off-mesh connections too, one-way ones one way --, the first met in a
 * breadth-first walk among equals. 0 when out of memory. A walk over the
 * polygon graph costs far less than a search that runs until no node is
 * left, which is what finding this by the search takes. */
static nm_polyref nearest_reachable(nm_opt_ctx *c, nm_polyref start_ref, const double *p) {
  nm_opt *s = c->s;
  const nm_navmesh *m = c->m;
  uint32_t head = 0, tail = 0, i, bi = 0, lo = 0;
  double gap;
  if (!walk_room(c) || !disks_make(c)) return 0;
  s->wmark[nm_opt_dense(s, m, start_ref)] = s->wstamp;
  s->wqueue[tail++] = start_ref;
  while (head < tail) { /* the walk, with a lower bound of each polygon's gap from its disk */
    const nm_polyref r = s->wqueue[head];
    const float *d = &s->disk[4 * nm_opt_dense(s, m, r)];
    const nm_tile *t;
    const nm_poly *pl;
    nm_ref_unsafe(m, r, &t, &pl);
    if (nm_poly_type(pl) == NM_POLYTYPE_OFFMESH) {
      s->wgap[head] = DBL_MAX;
    } else {
      const double dx = p[0] - d[0], dy = p[1] - d[1];
      s->wgap[head] = sqrt(dx * dx + dy * dy) - d[2];
    }
    if (s->wgap[head] < s->wgap[lo]) lo = head;
    head++;
    for (i = pl->first_link; i != NM_NULL_LINK; i = t->links[i].next) {
      const nm_polyref nr = t->links[i].ref;
      const nm_tile *nt;
      const nm_poly *np;
      uint32_t dn;
      if (!nr || s->wmark[dn = nm_opt_dense(s, m, nr)] == s->wstamp) continue;
      nm_ref_unsafe(m, nr, &nt, &np);
      if (!nm_filter_pass(c->f, np)) continue;
      s->wmark[dn] = s->wstamp;
      s->wqueue[tail++] = nr;
    }
  }
  if (s->wgap[lo] == DBL_MAX) return 0; /* (the start is never off-mesh) */
  /* the polygon with the nearest disk first, then the others whose disks
   * come nearer than the best so far */
  bi = lo;
  gap = nm_opt_poly_gap(m, s->wqueue[lo], p);
  for (i = 0; i < tail; i++)
    if (s->wgap[i] <= gap && i != lo) {
      const double d = nm_opt_poly_gap(m, s->wqueue[i], p);
      if (d < gap || (d == gap && i < bi)) {
        gap = d;
        bi = i;
      }
    }
  return s->wqueue[bi];
}

nm_status nm_opt_run(nm_query *q, nm_polyref start_ref, nm_polyref end_ref, const float *start,
                     const float *end, const nm_filter *filter, nm_opt_ctx *c, uint32_t *found) {
  const nm_tile *t;
  const nm_poly *sp, *ep;
  nm_polyref near;
  nm_status st;
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
  c->eps = mesh_eps(q->mesh);
  c->eps2 = c->eps * c->eps;
  if (!(c->s = nm_opt_scratch(q)) || nm_opt_mesh_sync(q, c->s, q->mesh, filter) < 0) return NM_ERR_NOMEM;
  if (!apart(q->mesh, start_ref, end_ref)) {
    st = aim(c, start_ref, end_ref, start, end, 1, found);
    if (!(st & NM_PARTIAL) || (st & NM_OUT_OF_NODES)) return st;
  } else {
    point_in_poly(q, end_ref, end, c->goal); /* unreachable for certain: no search */
  }
  /* Unreachable: the shortest path to the point nearest the goal of the
   * polygon nearest it that the start reaches. */
  near = nearest_reachable(c, start_ref, c->goal);
  if (near && near != end_ref) {
    float e[3];
    if (nm_query_closest_point(q, near, end, e, NULL) >= 0) {
      st = aim(c, start_ref, near, start, e, 1, found);
      if (!(st & NM_PARTIAL)) return st | NM_PARTIAL;
    }
  }
  /* The walk and the search disagree (a link the search cannot pass, such
   * as a portal shorter than eps): the node nearest the goal, from a
   * search that prunes no dead end (the goal may lie in one). */
  return aim(c, start_ref, end_ref, start, end, 0, found);
}

nm_status nm_query_find_path_optimal(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                     const float start[3], const float end[3],
                                     const nm_filter *filter, nm_polyref *path, int cap, int *count) {
  nm_opt_ctx c;
  uint32_t found, n;
  nm_status st;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!path || cap <= 0) return NM_ERR_PARAM;
  st = nm_opt_run(q, start_ref, end_ref, start, end, filter, &c, &found);
  if (st == NM_FALLBACK) {
    st = nm_query_find_path(q, start_ref, end_ref, start, end, filter, path, cap, count);
    return st < 0 ? st : st | NM_FALLBACK;
  }
  if (st < 0) return st;
  n = nm_opt_corridor(&c, found, start_ref, path, (uint32_t)cap);
  *count = n < (uint32_t)cap ? (int)n : cap;
  return st | (n > (uint32_t)cap ? NM_TRUNCATED : 0);
}
