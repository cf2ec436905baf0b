/* optimal_cuts.c -- dead-end regions for the optimal path search: the
 * block-cut tree of the polygon graph (Hopcroft and Tarjan's biconnected
 * components, run iteratively).
 *
 * A polygon P is a cut polygon when removing it splits the graph of linked
 * polygons. A path that crosses from P into a part that hangs off P alone
 * must come back through P to go anywhere else, and since P is convex (in
 * X/Z) the straight way across P is never longer than such an excursion.
 * So when the goal does not lie in that part, the search need not enter it:
 * this generalises cul-de-sac pruning from single polygons to whole rooms,
 * corridors and dead ends (a maze's graph is nearly a tree).
 *
 * The graph has every link (ground and off-mesh, either direction, all
 * polygons whatever the filter: excluded polygons only remove ways, so the
 * parts found stay parts). Blocks (biconnected components) and cut
 * polygons form a forest; its Euler tour numbers let a portal record test
 * "the goal lies beyond" with one interval: when P's block-cut node c is
 * the parent of the link's block B, the part beyond is B's subtree; when B
 * is c's parent, it is everything outside c's subtree. Made once per mesh
 * generation; the working memory is freed at once. */
#include "nm_optimal.h"

#define CUT_NONE 0xffffffffu

/* Working memory: the graph in compressed rows, with each entry's twin
 * (the same edge seen from the other end) and block. */
typedef struct cut_work {
  uint32_t n, m;             /* vertices (dense polygons), directed entries */
  uint32_t *off;             /* [n + 1] */
  uint32_t *to, *twin, *blk; /* [m] */
  uint32_t *tin, *low;       /* [n] DFS order and low-link, 0: unvisited */
  uint32_t *stk;             /* [n] DFS stack: entry that led to the vertex */
  uint32_t *cur;             /* [n] next entry to look at */
  uint32_t *est;             /* [m] edge stack */
  uint32_t nb;               /* blocks found */
} cut_work;

/* 1 when polygon `to` has a link back to `from`. */
static int links_back(const nm_navmesh *m, nm_polyref to, nm_polyref from) {
  const nm_tile *t;
  const nm_poly *p;
  uint32_t i;
  nm_ref_unsafe(m, to, &t, &p);
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next)
    if (t->links[i].ref == from) return 1;
  return 0;
}

/* Calls fn for every undirected edge once (a link, unless it is the
 * second of a pair or a repeat of a link to the same polygon). */
static void each_edge(const nm_opt *s, const nm_navmesh *m, void (*fn)(cut_work *, uint32_t, uint32_t),
                      cut_work *w) {
  int it;
  for (it = 0; it < m->top; it++) {
    const nm_tile *t = &m->tiles[it];
    int ip;
    if (!t->header) continue;
    for (ip = 0; ip < t->header->poly_count; ip++) {
      const nm_polyref ref = nm_tile_base(m, t) | (nm_polyref)ip;
      uint32_t i, j;
      for (i = t->polys[ip].first_link; i != NM_NULL_LINK; i = t->links[i].next) {
        const nm_polyref nei = t->links[i].ref;
        for (j = t->polys[ip].first_link; j != i && t->links[j].ref != nei; j = t->links[j].next) {}
        if (nei == ref || j != i || (nei < ref && links_back(m, nei, ref))) continue;
        fn(w, nm_opt_dense(s, m, ref), nm_opt_dense(s, m, nei));
      }
    }
  }
}

static void count_edge(cut_work *w, uint32_t a, uint32_t b) {
  w->off[a + 1]++;
  w->off[b + 1]++;
}

static void put_edge(cut_work *w, uint32_t a, uint32_t b) {
  const uint32_t ea = w->cur[a]++, eb = w->cur[b]++;
  w->to[ea] = b;
  w->to[eb] = a;
  w->twin[ea] = eb;
  w->twin[eb] = ea;
}

/* Allocates the working memory and fills in the graph; 0 when out of memory. */
static int work_make(nm_query *q, const nm_opt *s, cut_work *w) {
  const nm_alloc *a = &q->alloc;
  uint32_t i;
  memset(w, 0, sizeof *w);
  w->n = s->npoly;
  if (!(w->off = (uint32_t *)nm_calloc(a, nm_mul_size((size_t)w->n + 1, sizeof(uint32_t))))) return 0;
  each_edge(s, q->mesh, count_edge, w);
  for (i = 0; i < w->n; i++) w->off[i + 1] += w->off[i];
  w->m = w->off[w->n];
  w->to = (uint32_t *)nm_malloc(a, nm_mul_size(w->m + 1, sizeof(uint32_t)));
  w->twin = (uint32_t *)nm_malloc(a, nm_mul_size(w->m + 1, sizeof(uint32_t)));
  w->blk = (uint32_t *)nm_malloc(a, nm_mul_size(w->m + 1, sizeof(uint32_t)));
  w->est = (uint32_t *)nm_malloc(a, nm_mul_size(w->m + 1, sizeof(uint32_t)));
  w->tin = (uint32_t *)nm_calloc(a, nm_mul_size((size_t)w->n + 1, sizeof(uint32_t)));
  w->low = (uint32_t *)nm_malloc(a, nm_mul_size((size_t)w->n + 1, sizeof(uint32_t)));
  w->stk = (uint32_t *)nm_malloc(a, nm_mul_size((size_t)w->n + 1, sizeof(uint32_t)));
  w->cur = (uint32_t *)nm_malloc(a, nm_mul_size((size_t)w->n + 1, sizeof(uint32_t)));
  if (!w->to || !w->twin || !w->blk || !w->est || !w->tin || !w->low || !w->stk || !w->cur) return 0;
  memcpy(w->cur, w->off, (size_t)w->n * sizeof(uint32_t));
  each_edge(s, q->mesh, put_edge, w);
  return 1;
}

static void work_free(nm_query *q, cut_work *w) {
  const nm_alloc *a = &q->alloc;
  nm_free(a, w->off, ((size_t)w->n + 1) * sizeof(uint32_t));
  nm_free(a, w->to, ((size_t)w->m + 1) * sizeof(uint32_t));
  nm_free(a, w->twin, ((size_t)w->m + 1) * sizeof(uint32_t));
  nm_free(a, w->blk, ((size_t)w->m + 1) * sizeof(uint32_t));
  nm_free(a, w->est, ((size_t)w->m + 1) * sizeof(uint32_t));
  nm_free(a, w->tin, ((size_t)w->n + 1) * sizeof(uint32_t));
  nm_free(a, w->low, ((size_t)w->n + 1) * sizeof(uint32_t));
  nm_free(a, w->stk, ((size_t)w->n + 1) * sizeof(uint32_t));
  nm_free(a, w->cur, ((size_t)w->n + 1) * sizeof(uint32_t));
}

/* ---- biconnected components ---- */

/* Vertex v (entered by entry `by`, CUT_NONE at a root) is done: its
 * low-link goes to its parent u, and when nothing below v reaches above u,
 * the edges stacked since u->v form a block. */
static void bcc_finish(cut_work *w, uint32_t v, uint32_t by, uint32_t *ns) {
  const uint32_t u = w->to[w->twin[by]];
  if (w->low[v] < w->low[u]) w->low[u] = w->low[v];
  if (w->low[v] >= w->tin[u]) {
    uint32_t e;
    do {
      e = w->est[--*ns];
      w->blk[e] = w->blk[w->twin[e]] = w->nb;
    } while (e != by);
    w->nb++;
  }
}

/* Depth-first search from root, labelling every edge with its block. */
static void bcc_from(cut_work *w, uint32_t root, uint32_t *clock) {
  uint32_t sp = 0, ns = 0;
  w->tin[root] = w->low[root] = ++*clock;
  w->cur[root] = w->off[root];
  w->stk[sp++] = CUT_NONE;
  while (sp) {
    const uint32_t by = w->stk[sp - 1], v = by == CUT_NONE ? root : w->to[by];
    if (w->cur[v] < w->off[v + 1]) {
      const uint32_t e = w->cur[v]++, x = w->to[e];
      if (by != CUT_NONE && e == w->twin[by]) continue; /* the way in */
      if (!w->tin[x]) {
        w->est[ns++] = e;
        w->tin[x] = w->low[x] = ++*clock;
        w->cur[x] = w->off[x];
        w->stk[sp++] = e;
      } else if (w->tin[x] < w->tin[v]) {
        w->est[ns++] = e; /* a back edge */
        if (w->tin[x] < w->low[v]) w->low[v] = w->tin[x];
      }
      continue;
    }
    sp--;
    if (by != CUT_NONE) bcc_finish(w, v, by, &ns);
  }
}

/* ---- the block-cut forest ---- */

/* 1 when entry e is the first of its vertex's row in its block. */
static int first_in_block(const cut_work *w, uint32_t v, uint32_t e) {
  uint32_t k;
  for (k = w->off[v]; k < e; k++)
    if (w->blk[k] == w->blk[e]) return 0;
  return 1;
}

/* Numbers the cut polygons -- those in two blocks or more -- as forest
 * nodes nb + k (s->vcut, else CUT_NONE); returns how many there are. */
static uint32_t number_cuts(nm_opt *s, const cut_work *w) {
  uint32_t v, e, nc = 0;
  for (v = 0; v < w->n; v++) {
    uint32_t blocks = 0;
    for (e = w->off[v]; e < w->off[v + 1] && blocks < 2; e++) blocks += first_in_block(w, v, e);
    s->vcut[v] = blocks > 1 ? w->nb + nc++ : CUT_NONE;
  }
  return nc;
}

/* The forest's rows: block -> its cut polygons, cut -> its blocks, in
 * compressed form over off[nbc + 1] / adj; 0 when out of memory. */
static int forest_rows(nm_query *q, const nm_opt *s, const cut_work *w, uint32_t **off, uint32_t **adj,
                       uint32_t *nadj) {
  uint32_t v, e, k, pass;
  *adj = NULL;
  if (!(*off = (uint32_t *)nm_calloc(&q->alloc, nm_mul_size((size_t)s->nbc + 1, sizeof(uint32_t))))) return 0;
  for (pass = 0; pass < 2; pass++) {
    for (v = 0; v < w->n; v++) {
      const uint32_t c = s->vcut[v];
      if (c == CUT_NONE) continue;
      for (e = w->off[v]; e < w->off[v + 1]; e++) {
        if (!first_in_block(w, v, e)) continue;
        if (pass == 0) {
          (*off)[c + 1]++;
          (*off)[w->blk[e] + 1]++;
        } else {
          (*adj)[(*off)[c]++] = w->blk[e];
          (*adj)[(*off)[w->blk[e]]++] = c;
        }
      }
    }
    if (pass == 1) break;
    for (k = 0; k < s->nbc; k++) (*off)[k + 1] += (*off)[k];
    *nadj = (*off)[s->nbc];
    if (!(*adj = (uint32_t *)nm_malloc(&q->alloc, nm_mul_size(*nadj + 1, sizeof(uint32_t))))) return 0;
  }
  for (k = s->nbc; k > 0; k--) (*off)[k] = (*off)[k - 1]; /* the fill moved each start to the next row's */
  (*off)[0] = 0;
  return 1;
}

/* Euler tour of the forest: parent, entry number and the last entry number
 * in each subtree (stk, cur: scratch of nbc entries). */
static void forest_tour(nm_opt *s, const uint32_t *off, const uint32_t *adj, uint32_t *stk, uint32_t *cur) {
  uint32_t r, clock = 0;
  for (r = 0; r < s->nbc; r++) s->btin[r] = CUT_NONE;
  for (r = 0; r < s->nbc; r++) {
    uint32_t sp = 0;
    if (s->btin[r] != CUT_NONE) continue;
    s->bpar[r] = CUT_NONE;
    s->btin[r] = clock++;
    cur[r] = off[r];
    stk[sp++] = r;
    while (sp) {
      const uint32_t x = stk[sp - 1];
      if (cur[x] < off[x + 1]) {
        const uint32_t y = adj[cur[x]++];
        if (s->btin[y] != CUT_NONE) continue;
        s->bpar[y] = x;
        s->btin[y] = clock++;
        cur[y] = off[y];
        stk[sp++] = y;
        continue;
      }
      s->btout[x] = clock - 1;
      sp--;
    }
  }
}

/* Block of each link's edge, by dense link number (CUT_NONE: a link of a
 * polygon to itself). */
static void link_blocks(nm_opt *s, const nm_navmesh *m, const cut_work *w) {
  int it;
  for (it = 0; it < m->top; it++) {
    const nm_tile *t = &m->tiles[it];
    int ip;
    if (!t->header) continue;
    for (ip = 0; ip < t->header->poly_count; ip++) {
      const uint32_t v = s->tbase[it] + (uint32_t)ip;
      uint32_t i, e;
      for (i = t->polys[ip].first_link; i != NM_NULL_LINK; i = t->links[i].next) {
        const uint32_t x = nm_opt_dense(s, m, t->links[i].ref);
        for (e = w->off[v]; e < w->off[v + 1] && w->to[e] != x; e++) {}
        s->lblock[s->lbase[it] + i] = e < w->off[v + 1] ? w->blk[e] : CUT_NONE;
      }
    }
  }
}

/* Dense link numbers: the first of each tile slot, and how many in all. */
static uint32_t number_links(nm_opt *s, const nm_navmesh *m) {
  uint32_t n = 0;
  int it;
  for (it = 0; it < m->top; it++) {
    s->lbase[it] = n;
    if (m->tiles[it].header) n += (uint32_t)m->tiles[it].header->max_link_count;
  }
  return n;
}

/* The forest from the blocks of the work: nodes, rows, Euler tour. */
static int forest_make(nm_query *q, nm_opt *s, const cut_work *w) {
  uint32_t *off = NULL, *adj = NULL, *stk, *cur, nadj = 0;
  int ok;
  s->nbc = w->nb + number_cuts(s, w);
  if (!nm_opt_grow_array(q, (void **)&s->bpar, &s->nbcap, s->nbc + 1, 3 * sizeof(uint32_t))) return 0;
  s->btin = s->bpar + s->nbcap;
  s->btout = s->btin + s->nbcap;
  stk = (uint32_t *)nm_malloc(&q->alloc, nm_mul_size((size_t)s->nbc + 1, 2 * sizeof(uint32_t)));
  cur = stk ? stk + s->nbc + 1 : NULL;
  ok = stk && forest_rows(q, s, w, &off, &adj, &nadj);
  if (ok) forest_tour(s, off, adj, stk, cur);
  nm_free(&q->alloc, stk, ((size_t)s->nbc + 1) * 2 * sizeof(uint32_t));
  nm_free(&q->alloc, off, ((size_t)s->nbc + 1) * sizeof(uint32_t));
  nm_free(&q->alloc, adj, ((size_t)nadj + 1) * sizeof(uint32_t));
  return ok;
}

nm_status nm_opt_cuts_make(nm_query *q, nm_opt *s) {
  const nm_navmesh *m = q->mesh;
  cut_work w;
  uint32_t v, clock = 0, nl;
  int ok;
  s->cuts = 0;
  ok = work_make(q, s, &w) && nm_opt_grow_array(q, (void **)&s->vcut, &s->nvcut, w.n + 1, sizeof(uint32_t)) &&
       nm_opt_grow_array(q, (void **)&s->lbase, &s->nlbase, (uint32_t)(m->top > 0 ? m->top : 1),
                         sizeof(uint32_t));
  if (ok) {
    for (v = 0; v < w.n; v++)
      if (!w.tin[v]) bcc_from(&w, v, &clock);
    nl = number_links(s, m);
    ok = forest_make(q, s, &w) && nm_opt_grow_array(q, (void **)&s->lblock, &s->nlblock, nl > 0 ? nl : 1,
                                                    sizeof(uint32_t));
  }
  if (ok) link_blocks(s, m, &w);
  work_free(q, &w);
  s->cuts = ok;
  return ok ? NM_OK : NM_ERR_NOMEM;
}

uint32_t nm_opt_goal_side(const nm_opt_ctx *c) {
  const nm_opt *s = c->s;
  const uint32_t v = nm_opt_dense(s, c->m, c->goal_ref), it = nm_ref_tile(c->m, c->goal_ref);
  const nm_tile *t;
  const nm_poly *p;
  uint32_t i;
  if (!s->cuts) return CUT_NONE;
  if (s->vcut[v] != CUT_NONE) return s->btin[s->vcut[v]];
  nm_ref_unsafe(c->m, c->goal_ref, &t, &p);
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next)
    if (s->lblock[s->lbase[it] + i] != CUT_NONE) return s->btin[s->lblock[s->lbase[it] + i]];
  return CUT_NONE;
}

void nm_opt_portal_cut(const nm_opt *s, nm_polyref ref, const nm_navmesh *m, uint32_t link, nm_opt_portal *pr) {
  const uint32_t c = s->vcut[nm_opt_dense(s, m, ref)], b = s->lblock[s->lbase[nm_ref_tile(m, ref)] + link];
  if (!s->cuts || c == CUT_NONE || b == CUT_NONE) return;
  if (s->bpar[b] == c) { /* the link leads down into b's subtree */
    pr->flags |= NM_PO_BEYOND_IN;
    pr->lo = s->btin[b];
    pr->hi = s->btout[b];
  } else { /* it leads up, out of c's subtree */
    pr->flags |= NM_PO_BEYOND_OUT;
    pr->lo = s->btin[c];
    pr->hi = s->btout[c];
  }
}
