/* polymesh.c -- convex polygons from region outlines (Recast's poly mesh).
 *
 * Algorithm: each contour is triangulated by ear clipping (always cutting
 * the ear with the shortest diagonal, with Recast's exact integer tests and
 * a looser fallback for outlines that touch themselves), its vertices are
 * welded to the mesh through a hash on (x, z) with a small y tolerance, and
 * its triangles are merged greedily into convex polygons of up to nvp
 * vertices (always the pair with the longest shared edge that stays convex;
 * beyond a dozen triangles the candidate pairs come from vertex -> polygon
 * lists and wait in a heap, so long thin contours do not cost n^3).
 * Vertices that only existed because of the tile border (NM_BORDER_VERTEX)
 * are then removed: the polygons around such a vertex are cut out, the hole
 * is re-triangulated and merged again. Finally the neighbour slots are built
 * from shared edges and, in tiled builds, open edges on the tile square
 * become portals 0x8000 | dir (0 = -x, 1 = +z, 2 = +x, 3 = -z). */
#include "nm_polyutil.h"

#include <stdlib.h>

#define PM_BUCKETS (1 << 12)
#define PM_EAR 0x40000000          /* index flag: the vertex after it is an ear tip */
#define PM_IDX(v) ((v) & 0x0fffffff)
#define PM_NULL NM_MESH_NULL_IDX

/* Scratch of one poly mesh build: the mesh arrays while they grow (sized
 * for the worst case: every contour vertex distinct, every triangle kept),
 * the vertex hash, per-contour scratch sized for the largest contour, and
 * growable scratch for re-filling the holes left by removed vertices. */
typedef struct pm_work {
  const nm_alloc *a;
  int nvp;
  uint16_t *verts;     /* (x, y, z) [maxverts] */
  int nverts, maxverts;
  uint16_t *polys;     /* 2 * nvp per polygon [maxpolys] */
  uint16_t *regs;
  uint8_t *areas;
  int npolys, maxpolys;
  uint8_t *vflags;     /* [maxverts] 1: border vertex to remove */
  int *first, *next;   /* vertex hash [PM_BUCKETS], chains [maxverts] */
  int *idx, *tris;     /* contour scratch [maxcv], [maxcv * 3] */
  uint16_t *cpolys;    /* contour polygons [(maxcv + 1) * nvp] */
  int maxcv;
  /* vertex removal scratch, grown as needed */
  nm_ivec edges, hole, hreg, harea, tverts, tidx, ttris;
  uint16_t *hpolys;
  int hpolys_cap;
} pm_work;

/* Cyclic neighbours of position i in a polygon of n. */
static inline int pm_next(int i, int n) { return i + 1 < n ? i + 1 : 0; }
static inline int pm_prev(int i, int n) { return i > 0 ? i - 1 : n - 1; }

/* ---- stage: ear clipping ---- */

/* Point at polygon position i: idx holds vertex numbers (with the ear flag
 * in a high bit) into verts, four ints per vertex. */
static inline const int *pm_pt(const int *verts, const int *idx, int i) { return &verts[PM_IDX(idx[i]) * 4]; }

/* The segment i-j crosses no edge of the polygon that does not touch it
 * (loose: only proper crossings count). */
static int pm_diagonalie(int i, int j, int n, const int *verts, const int *idx, int loose) {
  const int *d0 = pm_pt(verts, idx, i), *d1 = pm_pt(verts, idx, j);
  int k;
  for (k = 0; k < n; k++) {
    const int k1 = pm_next(k, n);
    const int *p0, *p1;
    if (k == i || k1 == i || k == j || k1 == j) continue;
    /* edges meeting the diagonal at a shared point (outlines that touch
     * themselves, like merged holes) do not block it */
    p0 = pm_pt(verts, idx, k);
    p1 = pm_pt(verts, idx, k1);
    if (nm_i2_equal(d0, p0) || nm_i2_equal(d1, p0) || nm_i2_equal(d0, p1) || nm_i2_equal(d1, p1)) continue;
    if (loose ? nm_i2_cross_proper(d0, d1, p0, p1) : nm_i2_intersect(d0, d1, p0, p1)) return 0;
  }
  return 1;
}

/* i-j is an internal diagonal of the polygon (loose: touching the cone's
 * sides is allowed). */
static int pm_diagonal(int i, int j, int n, const int *verts, const int *idx, int loose) {
  const int *pi = pm_pt(verts, idx, i), *pj = pm_pt(verts, idx, j);
  const int *pn = pm_pt(verts, idx, pm_next(i, n)), *pp = pm_pt(verts, idx, pm_prev(i, n));
  int in;
  if (!loose) in = nm_i2_in_cone(pp, pi, pn, pj);
  /* loose cone: collinear sides count as inside, which lets a diagonal run
   * along an overlapping stretch of the outline */
  else if (nm_i2_left_on(pp, pi, pn)) in = nm_i2_left_on(pi, pj, pp) && nm_i2_left_on(pj, pi, pn);
  else in = !(nm_i2_left_on(pi, pj, pn) && nm_i2_left_on(pj, pi, pp));
  return in && pm_diagonalie(i, j, n, verts, idx, loose);
}

/* The corner i whose ear (i, i+1, i+2) has the shortest diagonal, or -1.
 * Strict mode uses the cached ear flags; loose mode tests afresh. */
static int pm_best_ear(int n, const int *verts, const int *idx, int loose) {
  int i, mini = -1, minlen = -1;
  for (i = 0; i < n; i++) {
    const int i1 = pm_next(i, n), i2 = pm_next(i1, n);
    const int *p0, *p2;
    int dx, dz, len;
    if (loose ? !pm_diagonal(i, i2, n, verts, idx, 1) : !(idx[i1] & PM_EAR)) continue;
    p0 = pm_pt(verts, idx, i);
    p2 = pm_pt(verts, idx, i2);
    dx = p2[0] - p0[0];
    dz = p2[2] - p0[2];
    len = dx * dx + dz * dz;
    if (minlen < 0 || len < minlen) { minlen = len; mini = i; }
  }
  return mini;
}

static void pm_set_ear(int *idx, int i, int ear) { idx[i] = ear ? (idx[i] | PM_EAR) : PM_IDX(idx[i]); }

/* Triangulates the polygon idx[n] (indices into verts, 4 ints per point)
 * into tris[(n - 2) * 3]. Returns the triangle count, negated when the
 * outline was too broken to finish (the triangles cut so far are kept, as
 * Recast keeps them). idx is clobbered. */
static int pm_triangulate(int n, const int *verts, int *idx, int *tris) {
  int ntris = 0, i;
  /* a vertex is an ear tip when its two neighbours see each other */
  for (i = 0; i < n; i++)
    if (pm_diagonal(i, pm_next(pm_next(i, n), n), n, verts, idx, 0)) idx[pm_next(i, n)] |= PM_EAR;
  while (n > 3) {
    int i1, mini = pm_best_ear(n, verts, idx, 0);
    if (mini < 0) mini = pm_best_ear(n, verts, idx, 1); /* overlapping segments: relax the tests */
    if (mini < 0) return -ntris;
    i = mini;
    i1 = pm_next(i, n);
    tris[ntris * 3] = PM_IDX(idx[i]);
    tris[ntris * 3 + 1] = PM_IDX(idx[i1]);
    tris[ntris * 3 + 2] = PM_IDX(idx[pm_next(i1, n)]);
    ntris++;
    /* cut the tip out; only the flags of its two neighbours can change */
    n--;
    memmove(&idx[i1], &idx[i1 + 1], sizeof(int) * (size_t)(n - i1));
    if (i1 >= n) i1 = 0;
    i = pm_prev(i1, n);
    pm_set_ear(idx, i, pm_diagonal(pm_prev(i, n), i1, n, verts, idx, 0));
    pm_set_ear(idx, i1, pm_diagonal(i, pm_next(i1, n), n, verts, idx, 0));
  }
  tris[ntris * 3] = PM_IDX(idx[0]);
  tris[ntris * 3 + 1] = PM_IDX(idx[1]);
  tris[ntris * 3 + 2] = PM_IDX(idx[2]);
  return ntris + 1;
}

/* ---- stage: merging triangles into convex polygons ---- */

/* The merge test runs for most pairs the merging looks at: its callers
 * want it inlined (GCC and clang stop doing so by themselves once it has
 * two callers, which costs about 5% of the merging in tiled builds). */
#if defined(__GNUC__)
#  define PM_HOT static inline __attribute__((always_inline))
#else
#  define PM_HOT static inline
#endif

/* Vertices used in a polygon record (unused slots hold PM_NULL). */
static int pm_count(const uint16_t *p, int nvp) {
  int i;
  for (i = 0; i < nvp && p[i] != PM_NULL; i++) {}
  return i;
}

/* c strictly left of a->b, on mesh vertices (Recast's sign). */
static int pm_uleft(const uint16_t *a, const uint16_t *b, const uint16_t *c) {
  return ((int)b[0] - (int)a[0]) * ((int)c[2] - (int)a[2]) - ((int)c[0] - (int)a[0]) * ((int)b[2] - (int)a[2]) < 0;
}

/* How good merging pa and pb is: the squared length of their shared edge,
 * or -1 when they share none, would exceed nvp vertices, or would not be
 * convex. *ea / *eb get the shared edge in each. */
PM_HOT int pm_merge_value(const uint16_t *pa, const uint16_t *pb, const uint16_t *verts, int nvp, int *ea, int *eb) {
  const int na = pm_count(pa, nvp), nb = pm_count(pb, nvp);
  int i, j, dx, dz;
  const uint16_t *va, *vb;
  if (na + nb - 2 > nvp) return -1;
  *ea = *eb = -1;
  for (i = 0; i < na && *ea < 0; i++) {
    int a0 = pa[i], a1 = pa[(i + 1) % na];
    if (a0 > a1) { const int t = a0; a0 = a1; a1 = t; }
    for (j = 0; j < nb; j++) {
      int b0 = pb[j], b1 = pb[(j + 1) % nb];
      if (b0 > b1) { const int t = b0; b0 = b1; b1 = t; }
      if (a0 == b0 && a1 == b1) { *ea = i; *eb = j; break; }
    }
  }
  if (*ea < 0) return -1;
  /* convex: at both ends of the shared edge the joined corner turns the
   * right way (collinear corners are refused, as in Recast) */
  if (!pm_uleft(&verts[pa[(*ea + na - 1) % na] * 3], &verts[pa[*ea] * 3], &verts[pb[(*eb + 2) % nb] * 3])) return -1;
  if (!pm_uleft(&verts[pb[(*eb + nb - 1) % nb] * 3], &verts[pb[*eb] * 3], &verts[pa[(*ea + 2) % na] * 3])) return -1;
  va = &verts[pa[*ea] * 3];
  vb = &verts[pa[(*ea + 1) % na] * 3];
  dx = (int)va[0] - (int)vb[0];
  dz = (int)va[2] - (int)vb[2];
  return dx * dx + dz * dz; /* < 2 * 32767^2 < INT_MAX: grids are at most NM_MAX_GRID_SIDE */
}

/* pa becomes the union of pa and pb joined along edges ea / eb. */
static void pm_merge_into(uint16_t *pa, const uint16_t *pb, int ea, int eb, uint16_t *tmp, int nvp) {
  const int na = pm_count(pa, nvp), nb = pm_count(pb, nvp);
  int i, n = 0;
  for (i = 0; i < nvp; i++) tmp[i] = PM_NULL;
  /* pa from the end of the shared edge round to its start, then pb likewise */
  for (i = 0; i < na - 1; i++) tmp[n++] = pa[(ea + 1 + i) % na];
  for (i = 0; i < nb - 1; i++) tmp[n++] = pb[(eb + 1 + i) % nb];
  memcpy(pa, tmp, sizeof(uint16_t) * (size_t)nvp);
}

#define PM_MASKS 256   /* polygons whose vertex masks fit on the stack */
#define PM_SCAN_MAX 12 /* more polygons than this merge through the incidence lists */

/* A 64-bit summary of the vertices of polygon p: two polygons that share
 * an edge share vertices, so their masks meet (the reverse need not hold). */
static uint64_t pm_vertex_mask(const uint16_t *p, int nvp) {
  uint64_t m = 0;
  int i;
  for (i = 0; i < nvp && p[i] != PM_NULL; i++) m |= (uint64_t)1 << ((p[i] * 0x9e3779b1u) >> 26);
  return m;
}

/* Greedy merging by scanning every pair each round: repeatedly joins the
 * pair (j, k), j < k, with the longest shared edge (the first such pair on
 * ties) and moves the last polygon into slot k. O(n^3), for small sets.
 * Returns the new polygon count. Pairs whose vertex masks do not meet
 * share no edge and are skipped without the full test. */
static int pm_merge_scan(uint16_t *polys, int npolys, uint16_t *regs, uint16_t *areas, const uint16_t *verts,
                         int nvp) {
  uint16_t *tmp = &polys[npolys * nvp];
  uint64_t masks[PM_MASKS];
  const int filter = npolys <= PM_MASKS;
  int j, k;
  for (j = 0; filter && j < npolys; j++) masks[j] = pm_vertex_mask(&polys[j * nvp], nvp);
  for (;;) {
    int best = 0, ba = 0, bb = 0, bea = 0, beb = 0, ea, eb;
    for (j = 0; j < npolys - 1; j++)
      for (k = j + 1; k < npolys; k++) {
        int v;
        if (filter && !(masks[j] & masks[k])) continue;
        v = pm_merge_value(&polys[j * nvp], &polys[k * nvp], verts, nvp, &ea, &eb);
        if (v > best) { best = v; ba = j; bb = k; bea = ea; beb = eb; }
      }
    if (best <= 0) return npolys;
    /* pb is replaced by the last polygon, keeping the records contiguous */
    pm_merge_into(&polys[ba * nvp], &polys[bb * nvp], bea, beb, tmp, nvp);
    if (regs && regs[ba] != regs[bb]) regs[ba] = 0;
    if (filter) masks[ba] |= masks[bb]; /* the union has the vertices of both */
    if (bb != npolys - 1) {
      memcpy(&polys[bb * nvp], &polys[(npolys - 1) * nvp], sizeof(uint16_t) * (size_t)nvp);
      if (regs) regs[bb] = regs[npolys - 1];
      if (areas) areas[bb] = areas[npolys - 1];
      if (filter) masks[bb] = masks[npolys - 1];
    }
    npolys--;
  }
}

/* ---- merging large sets: vertex incidence and a heap of pairs ---- */

/* A queued merge of slots j < k worth v along their edges ea / eb, with
 * both slots' change counters at the time v was computed: it is stale once
 * either slot has changed. */
typedef struct pm_pair {
  int v, j, k, sj, sk, ea, eb;
} pm_pair;

/* Scratch of the incidence merge. The vertices are relabelled 0..u-1
 * (u <= nnodes); node s * nvp + i is corner i of slot s, kept in the
 * doubly linked list of its vertex, so the polygons that can share an edge
 * with a changed one are found without looking at the others. */
typedef struct pm_inc {
  const nm_alloc *a;
  int nvp, nslots, nnodes;
  uint16_t *cp;       /* the polygons in compact labels [nnodes] */
  int *head, *cnt;    /* per vertex: first node, number of nodes [nnodes] */
  int *nxt, *prv;     /* per node [nnodes] */
  int *stamp, *mark;  /* per slot: change counter, last listing that met it */
  int tok;
  pm_pair *heap;      /* best pair first (pm_pair_before) */
  int nheap, cap;
} pm_inc;

/* The merge order of the scan: larger value, then smaller j, then smaller
 * k (the scan keeps the first maximum in (j, k) order). */
static int pm_pair_before(const pm_pair *x, const pm_pair *y) {
  if (x->v != y->v) return x->v > y->v;
  if (x->j != y->j) return x->j < y->j;
  return x->k < y->k;
}

static int pm_pair_live(const pm_inc *f, const pm_pair *p) {
  return f->stamp[p->j] == p->sj && f->stamp[p->k] == p->sk;
}

static void pm_heap_up(pm_pair *h, int i) {
  const pm_pair x = h[i];
  while (i > 0 && pm_pair_before(&x, &h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = x;
}

static void pm_heap_down(pm_pair *h, int n, int i) {
  const pm_pair x = h[i];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && pm_pair_before(&h[c + 1], &h[c])) c++;
    if (!pm_pair_before(&h[c], &x)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = x;
}

/* Makes room for one more pair: a full heap first drops its stale pairs
 * and only grows (by half) when that frees less than half of it, so its
 * size stays within twice the live pairs (plus the initial capacity). */
static nm_status pm_heap_room(pm_inc *f) {
  int i, n = 0, ncap;
  pm_pair *h;
  if (f->nheap < f->cap) return NM_OK;
  for (i = 0; i < f->nheap; i++)
    if (pm_pair_live(f, &f->heap[i])) f->heap[n++] = f->heap[i];
  f->nheap = n;
  for (i = n / 2 - 1; i >= 0; i--) pm_heap_down(f->heap, n, i);
  if (n <= f->cap / 2) return NM_OK;
  if (f->cap > (1 << 26)) return NM_ERR_NOMEM;
  ncap = f->cap + f->cap / 2;
  h = (pm_pair *)nm_realloc(f->a, f->heap, sizeof(pm_pair) * (size_t)f->cap, sizeof(pm_pair) * (size_t)ncap);
  if (!h) return NM_ERR_NOMEM;
  f->heap = h;
  f->cap = ncap;
  return NM_OK;
}

static nm_status pm_heap_push(pm_inc *f, pm_pair *p) {
  if (pm_heap_room(f) != NM_OK) return NM_ERR_NOMEM;
  p->sj = f->stamp[p->j];
  p->sk = f->stamp[p->k];
  f->heap[f->nheap] = *p;
  pm_heap_up(f->heap, f->nheap++);
  return NM_OK;
}

/* Takes the best live pair off the heap, dropping stale ones on the way;
 * 0 when none is left. */
static int pm_heap_pop(pm_inc *f, pm_pair *out) {
  while (f->nheap > 0) {
    *out = f->heap[0];
    f->heap[0] = f->heap[--f->nheap];
    if (f->nheap > 0) pm_heap_down(f->heap, f->nheap, 0);
    if (pm_pair_live(f, out)) return 1;
  }
  return 0;
}

/* Adds / removes the corners of slot s to / from their vertices' lists. */
static void pm_inc_link(pm_inc *f, int s) {
  const uint16_t *p = &f->cp[s * f->nvp];
  int i;
  for (i = 0; i < f->nvp && p[i] != PM_NULL; i++) {
    const int node = s * f->nvp + i, x = p[i];
    f->prv[node] = -1;
    f->nxt[node] = f->head[x];
    if (f->head[x] >= 0) f->prv[f->head[x]] = node;
    f->head[x] = node;
    f->cnt[x]++;
  }
}

static void pm_inc_unlink(pm_inc *f, int s) {
  const uint16_t *p = &f->cp[s * f->nvp];
  int i;
  for (i = 0; i < f->nvp && p[i] != PM_NULL; i++) {
    const int node = s * f->nvp + i, x = p[i];
    if (f->prv[node] >= 0) f->nxt[f->prv[node]] = f->nxt[node];
    else f->head[x] = f->nxt[node];
    if (f->nxt[node] >= 0) f->prv[f->nxt[node]] = f->prv[node];
    f->cnt[x]--;
  }
}

/* Writes polys in compact vertex labels to cp: the used corners are sorted
 * by vertex (two stable byte passes of a counting sort, nxt and prv as
 * scratch) and numbered by distinct vertex. */
static void pm_inc_relabel(pm_inc *f, const uint16_t *polys) {
  int count[257], *ord = f->nxt, *tmp = f->prv, *t;
  int n = 0, i, s, sh, u = -1, last = -1;
  for (i = 0; i < f->nnodes; i++) f->cp[i] = PM_NULL;
  for (s = 0; s < f->nslots; s++)
    for (i = 0; i < f->nvp && polys[s * f->nvp + i] != PM_NULL; i++) ord[n++] = s * f->nvp + i;
  for (sh = 0; sh < 16; sh += 8) {
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) count[((polys[ord[i]] >> sh) & 255) + 1]++;
    for (i = 0; i < 256; i++) count[i + 1] += count[i];
    for (i = 0; i < n; i++) tmp[count[(polys[ord[i]] >> sh) & 255]++] = ord[i];
    t = ord; ord = tmp; tmp = t;
  }
  for (i = 0; i < n; i++) {
    if (polys[ord[i]] != last) { last = polys[ord[i]]; u++; }
    f->cp[ord[i]] = (uint16_t)u;
  }
}

static void pm_inc_free(pm_inc *f) {
  nm_free(f->a, f->cp, sizeof(uint16_t) * (size_t)f->nnodes);
  nm_free(f->a, f->head, sizeof(int) * (4 * (size_t)f->nnodes + 2 * (size_t)f->nslots));
  nm_free(f->a, f->heap, sizeof(pm_pair) * (size_t)f->cap);
}

/* Allocates the scratch for polys[n] and lists every corner. */
static nm_status pm_inc_init(pm_inc *f, const uint16_t *polys, int n, int nvp, const nm_alloc *a) {
  int i;
  memset(f, 0, sizeof *f);
  f->a = a;
  f->nvp = nvp;
  f->nslots = n;
  f->nnodes = n * nvp;
  f->cap = 4 * n + 64;
  f->cp = (uint16_t *)nm_malloc(a, sizeof(uint16_t) * (size_t)f->nnodes);
  f->head = (int *)nm_malloc(a, sizeof(int) * (4 * (size_t)f->nnodes + 2 * (size_t)n));
  f->heap = (pm_pair *)nm_malloc(a, sizeof(pm_pair) * (size_t)f->cap);
  if (!f->cp || !f->head || !f->heap) return NM_ERR_NOMEM;
  f->cnt = f->head + f->nnodes;
  f->nxt = f->cnt + f->nnodes;
  f->prv = f->nxt + f->nnodes;
  f->stamp = f->prv + f->nnodes;
  f->mark = f->stamp + n;
  pm_inc_relabel(f, polys);
  for (i = 0; i < f->nnodes; i++) { f->head[i] = -1; f->cnt[i] = 0; }
  for (i = 0; i < n; i++) { f->stamp[i] = 0; f->mark[i] = 0; }
  for (i = 0; i < n; i++) pm_inc_link(f, i);
  return NM_OK;
}

/* Queues the merge of slot s with every polygon sharing an edge with it
 * (except slot skip; with above, only slots above s). A polygon sharing
 * edge (a, b) is in the lists of both a and b, so each edge looks through
 * the shorter list; the value is that of the scan, pair taken as (j < k). */
static nm_status pm_inc_queue(pm_inc *f, const uint16_t *polys, const uint16_t *verts, int s, int skip,
                              int above) {
  const int nvp = f->nvp;
  const uint16_t *p = &f->cp[s * nvp];
  const int n = pm_count(p, nvp);
  int i, node;
  pm_pair q;
  f->tok++;
  for (i = 0; i < n; i++) {
    const int a = p[i], b = p[pm_next(i, n)];
    for (node = f->head[f->cnt[a] <= f->cnt[b] ? a : b]; node >= 0; node = f->nxt[node]) {
      const int t = node / nvp;
      if (t == s || t == skip || (above && t < s) || f->mark[t] == f->tok) continue;
      f->mark[t] = f->tok; /* one evaluation per partner, whichever edge led here */
      q.j = nm_mini(s, t);
      q.k = nm_maxi(s, t);
      q.v = pm_merge_value(&polys[q.j * nvp], &polys[q.k * nvp], verts, nvp, &q.ea, &q.eb);
      if (q.v > 0 && pm_heap_push(f, &q) != NM_OK) return NM_ERR_NOMEM;
    }
  }
  return NM_OK;
}

/* Merges slot k into slot j (in polys and in cp) and moves the last slot
 * into k, as the scan does, keeping the lists and change counters in step.
 * Returns the new polygon count. */
static int pm_inc_apply(pm_inc *f, uint16_t *polys, int np, uint16_t *regs, uint16_t *areas, const pm_pair *p) {
  const int nvp = f->nvp, last = np - 1, j = p->j, k = p->k, ea = p->ea, eb = p->eb;
  uint16_t tmp[NM_MAX_VERTS_PER_POLY];
  pm_inc_unlink(f, j);
  pm_inc_unlink(f, k);
  if (k != last) pm_inc_unlink(f, last);
  pm_merge_into(&polys[j * nvp], &polys[k * nvp], ea, eb, tmp, nvp);
  pm_merge_into(&f->cp[j * nvp], &f->cp[k * nvp], ea, eb, tmp, nvp);
  if (regs && regs[j] != regs[k]) regs[j] = 0;
  if (k != last) {
    memcpy(&polys[k * nvp], &polys[last * nvp], sizeof(uint16_t) * (size_t)nvp);
    memcpy(&f->cp[k * nvp], &f->cp[last * nvp], sizeof(uint16_t) * (size_t)nvp);
    if (regs) regs[k] = regs[last];
    if (areas) areas[k] = areas[last];
  }
  f->stamp[j]++;
  f->stamp[k]++;
  f->stamp[last]++;
  pm_inc_link(f, j);
  if (k != last) pm_inc_link(f, k);
  return last;
}

/* The scan's greedy merging in O(n log n) for ordinary meshes: every pair
 * sharing an edge sits in a heap under the scan's order, and after each
 * merge only the pairs of the two changed slots are queued again (older
 * pairs of those slots go stale). The heap's best live pair is therefore
 * the pair the scan would pick, round after round. */
static nm_status pm_merge_incidence(uint16_t *polys, int *npolys, uint16_t *regs, uint16_t *areas,
                                    const uint16_t *verts, int nvp, const nm_alloc *a) {
  pm_inc f;
  pm_pair best;
  int np = *npolys, s;
  nm_status st = pm_inc_init(&f, polys, np, nvp, a);
  for (s = 0; st == NM_OK && s < np; s++) st = pm_inc_queue(&f, polys, verts, s, -1, 1);
  while (st == NM_OK && pm_heap_pop(&f, &best)) {
    np = pm_inc_apply(&f, polys, np, regs, areas, &best);
    st = pm_inc_queue(&f, polys, verts, best.j, -1, 0);
    if (st == NM_OK && best.k < np) st = pm_inc_queue(&f, polys, verts, best.k, best.j, 0);
  }
  pm_inc_free(&f);
  *npolys = np;
  return st;
}

/* See nm_build.h: greedy merging of polys[*npolys] (nvp slots each, one
 * scratch record after them); regs, when given, follows the polygons and
 * becomes 0 for a merge of two regions; areas, when given, follows them. */
nm_status nm_polymesh_merge(uint16_t *polys, int *npolys, uint16_t *regs, uint16_t *areas, const uint16_t *verts,
                            int nvp, int how, const nm_alloc *a) {
  if (how == NM_PM_MERGE_INCIDENCE || (how == NM_PM_MERGE_AUTO && *npolys > PM_SCAN_MAX))
    return pm_merge_incidence(polys, npolys, regs, areas, verts, nvp, a);
  *npolys = pm_merge_scan(polys, *npolys, regs, areas, verts, nvp);
  return NM_OK;
}

/* ---- stage: vertices and per-contour polygons ---- */

/* Bucket of a vertex position; any spread works (a chain holds all the
 * vertices of one x/z column in insertion order whatever the hash). */
static int pm_hash(int x, int z) {
  const uint32_t h = 0x8da6b343u * (uint32_t)x + 0xcb1ab31fu * (uint32_t)z;
  return (int)(h & (PM_BUCKETS - 1));
}

/* Index of the mesh vertex at (x, z) whose height is within 2 cells of y
 * (the first one found), or a new vertex. */
static int pm_add_vertex(pm_work *w, int x, int y, int z) {
  const int b = pm_hash(x, z);
  int i;
  uint16_t *v;
  for (i = w->first[b]; i != -1; i = w->next[i]) {
    v = &w->verts[i * 3];
    if (v[0] == x && v[2] == z && abs((int)v[1] - y) <= 2) return i;
  }
  i = w->nverts++;
  v = &w->verts[i * 3];
  v[0] = (uint16_t)x;
  v[1] = (uint16_t)y;
  v[2] = (uint16_t)z;
  w->next[i] = w->first[b];
  w->first[b] = i;
  return i;
}

/* Appends a polygon (nvp vertex slots) with no neighbours yet. */
static void pm_store(pm_work *w, const uint16_t *src, uint16_t reg, uint8_t area) {
  uint16_t *p = &w->polys[w->npolys * w->nvp * 2];
  int j;
  for (j = 0; j < w->nvp * 2; j++) p[j] = PM_NULL;
  memcpy(p, src, sizeof(uint16_t) * (size_t)w->nvp);
  w->regs[w->npolys] = reg;
  w->areas[w->npolys] = area;
  w->npolys++;
}

/* Triangulates one contour, welds its vertices into the mesh, merges its
 * triangles into convex polygons and stores them. */
static nm_status pm_add_contour(pm_work *w, const nm_contour *c) {
  const int nvp = w->nvp;
  int j, k, ntris, np = 0;
  for (j = 0; j < c->nverts; j++) w->idx[j] = j;
  ntris = pm_triangulate(c->nverts, c->verts, w->idx, w->tris);
  if (ntris < 0) ntris = -ntris; /* broken outline: keep what was cut, like Recast */
  for (j = 0; j < c->nverts; j++) {
    const int *v = &c->verts[j * 4];
    w->idx[j] = pm_add_vertex(w, v[0], v[1], v[2]);
    if (v[3] & NM_BORDER_VERTEX) w->vflags[w->idx[j]] = 1;
  }
  /* one polygon per non-degenerate triangle (a triangle can collapse when
   * welding joined two of its corners), plus one scratch record */
  for (j = 0; j < (ntris + 1) * nvp; j++) w->cpolys[j] = PM_NULL;
  for (j = 0; j < ntris; j++) {
    const int *t = &w->tris[j * 3];
    if (t[0] == t[1] || t[0] == t[2] || t[1] == t[2]) continue;
    for (k = 0; k < 3; k++) w->cpolys[np * nvp + k] = (uint16_t)w->idx[t[k]];
    np++;
  }
  if (np > 0 && nvp > 3 && nm_polymesh_merge(w->cpolys, &np, NULL, NULL, w->verts, nvp, NM_PM_MERGE_AUTO, w->a) != NM_OK)
    return NM_ERR_NOMEM;
  for (j = 0; j < np && w->npolys < w->maxpolys; j++) pm_store(w, &w->cpolys[j * nvp], c->reg, c->area);
  return NM_OK;
}

/* ---- stage: removing tile-border vertices ---- */

/* Whether vertex rem can go: the polygons around it must keep more than
 * two edges between them and form one fan (at most two open edges). */
static nm_status pm_can_remove(pm_work *w, int rem, int *ok) {
  const int nvp = w->nvp;
  int i, j, k, m, remaining = 0, open = 0;
  *ok = 0;
  for (i = 0; i < w->npolys; i++) {
    const uint16_t *p = &w->polys[i * nvp * 2];
    const int nv = pm_count(p, nvp);
    int nrem = 0;
    for (j = 0; j < nv; j++) nrem += p[j] == rem;
    if (nrem) remaining += nv - (nrem + 1);
  }
  if (remaining <= 2) return NM_OK; /* e.g. the tip of a lone triangle */
  /* count, per other end point, the edges from rem: each inner edge of the
   * fan is shared by two polygons, an open one (fan border) by one */
  w->edges.n = 0;
  for (i = 0; i < w->npolys; i++) {
    const uint16_t *p = &w->polys[i * nvp * 2];
    const int nv = pm_count(p, nvp);
    for (j = 0, k = nv - 1; j < nv; k = j++) {
      if (p[j] != rem && p[k] != rem) continue;
      const int b = p[j] == rem ? p[k] : p[j];
      for (m = 0; m < w->edges.n && w->edges.v[m] != b; m += 4) {}
      if (m < w->edges.n) w->edges.v[m + 1]++;
      else if (nm_ivec_push4(w->a, &w->edges, b, 1, 0, 0) != NM_OK) return NM_ERR_NOMEM;
    }
  }
  for (m = 0; m < w->edges.n; m += 4) open += w->edges.v[m + 1] < 2;
  *ok = open <= 2; /* more: rem joins polygons that are not one fan */
  return NM_OK;
}

/* Cuts out every polygon using rem, keeping their other edges (with region
 * and area) in w->edges, then deletes vertex rem and renumbers. */
static nm_status pm_cut_out(pm_work *w, int rem) {
  const int nvp = w->nvp;
  int i, j, k;
  w->edges.n = 0;
  for (i = 0; i < w->npolys; i++) {
    uint16_t *p = &w->polys[i * nvp * 2], *last;
    const int nv = pm_count(p, nvp);
    for (j = 0; j < nv && p[j] != rem; j++) {}
    if (j == nv) continue;
    for (j = 0, k = nv - 1; j < nv; k = j++)
      if (p[j] != rem && p[k] != rem &&
          nm_ivec_push4(w->a, &w->edges, p[k], p[j], w->regs[i], w->areas[i]) != NM_OK)
        return NM_ERR_NOMEM;
    last = &w->polys[(w->npolys - 1) * nvp * 2];
    if (p != last) memcpy(p, last, sizeof(uint16_t) * (size_t)nvp * 2);
    for (j = 0; j < nvp * 2; j++) last[j] = PM_NULL;
    w->regs[i] = w->regs[w->npolys - 1];
    w->areas[i] = w->areas[w->npolys - 1];
    w->npolys--;
    i--;
  }
  /* delete the vertex; every index above it moves down one */
  memmove(&w->verts[rem * 3], &w->verts[(rem + 1) * 3], sizeof(uint16_t) * 3 * (size_t)(w->nverts - rem - 1));
  w->nverts--;
  for (i = 0; i < w->npolys; i++)
    for (j = 0; j < nvp && w->polys[i * nvp * 2 + j] != PM_NULL; j++)
      if (w->polys[i * nvp * 2 + j] > rem) w->polys[i * nvp * 2 + j]--;
  for (i = 0; i < w->edges.n; i += 4) {
    if (w->edges.v[i] > rem) w->edges.v[i]--;
    if (w->edges.v[i + 1] > rem) w->edges.v[i + 1]--;
  }
  return NM_OK;
}

/* Pushes (v, reg, area) at the front or back of the hole chain (the three
 * arrays are parallel; capacity was reserved by pm_chain_hole). */
static void pm_chain_push(pm_work *w, int front, int v, int reg, int area) {
  nm_ivec *arr[3];
  const int val[3] = {v, reg, area};
  int k;
  arr[0] = &w->hole; arr[1] = &w->hreg; arr[2] = &w->harea;
  for (k = 0; k < 3; k++) {
    int *d = arr[k]->v;
    if (front) {
      memmove(d + 1, d, sizeof(int) * (size_t)arr[k]->n);
      d[0] = val[k];
    } else {
      d[arr[k]->n] = val[k];
    }
    arr[k]->n++;
  }
}

/* Links the kept edges into the outline of the hole, growing a chain at
 * both ends; each chain vertex remembers the region and area of the edge
 * that brought it in. */
static nm_status pm_chain_hole(pm_work *w) {
  int *e = w->edges.v, ne = w->edges.n / 4, i, match = 1;
  if (nm_ivec_reserve(w->a, &w->hole, ne + 1) != NM_OK || nm_ivec_reserve(w->a, &w->hreg, ne + 1) != NM_OK ||
      nm_ivec_reserve(w->a, &w->harea, ne + 1) != NM_OK)
    return NM_ERR_NOMEM;
  w->hole.n = w->hreg.n = w->harea.n = 0;
  /* edges run the polygons' way round, so an edge ending at the chain's
   * first vertex goes in front and one starting at its last goes behind;
   * edge 0 itself is matched on the first pass */
  pm_chain_push(w, 0, e[0], e[2], e[3]);
  while (ne && match) {
    match = 0;
    for (i = 0; i < ne; i++) {
      int *ei = &e[i * 4];
      if (w->hole.v[0] == ei[1]) pm_chain_push(w, 1, ei[0], ei[2], ei[3]);
      else if (w->hole.v[w->hole.n - 1] == ei[0]) pm_chain_push(w, 0, ei[1], ei[2], ei[3]);
      else continue;
      memcpy(ei, &e[(ne - 1) * 4], sizeof(int) * 4);
      ne--;
      match = 1;
      i--;
    }
  }
  return NM_OK;
}

/* Grows the hole polygon scratch (uint16) to n entries: polygons, then
 * their regions, then their areas. */
static nm_status pm_hpolys_reserve(pm_work *w, int n) {
  uint16_t *p;
  if (n <= w->hpolys_cap) return NM_OK;
  p = (uint16_t *)nm_realloc(w->a, w->hpolys, sizeof(uint16_t) * (size_t)w->hpolys_cap, sizeof(uint16_t) * (size_t)n);
  if (!p) return NM_ERR_NOMEM;
  w->hpolys = p;
  w->hpolys_cap = n;
  return NM_OK;
}

/* Triangulates the hole chain, merges the triangles (a polygon joining
 * several regions gets region 0) and stores them in the mesh. */
static nm_status pm_fill_hole(pm_work *w) {
  const int nvp = w->nvp, nh = w->hole.n;
  int i, k, ntris, np = 0;
  uint16_t *polys, *pregs, *pareas;
  if (nm_ivec_reserve(w->a, &w->tverts, nh * 4) != NM_OK || nm_ivec_reserve(w->a, &w->tidx, nh) != NM_OK ||
      nm_ivec_reserve(w->a, &w->ttris, nh * 3) != NM_OK || pm_hpolys_reserve(w, (nh + 1) * (nvp + 2)) != NM_OK)
    return NM_ERR_NOMEM;
  for (i = 0; i < nh; i++) {
    const uint16_t *v = &w->verts[w->hole.v[i] * 3];
    int *t = &w->tverts.v[i * 4];
    t[0] = v[0]; t[1] = v[1]; t[2] = v[2]; t[3] = 0;
    w->tidx.v[i] = i;
  }
  ntris = nh >= 3 ? pm_triangulate(nh, w->tverts.v, w->tidx.v, w->ttris.v) : 0;
  if (ntris < 0) ntris = -ntris;
  polys = w->hpolys;
  pregs = &polys[(ntris + 1) * nvp];
  pareas = &pregs[ntris + 1];
  for (i = 0; i < (ntris + 1) * nvp; i++) polys[i] = PM_NULL;
  for (i = 0; i < ntris; i++) {
    const int *t = &w->ttris.v[i * 3];
    const int *hr = w->hreg.v;
    if (t[0] == t[1] || t[0] == t[2] || t[1] == t[2]) continue;
    /* triangle corners are chain positions; the chain holds mesh vertices */
    for (k = 0; k < 3; k++) polys[np * nvp + k] = (uint16_t)w->hole.v[t[k]];
    pregs[np] = (uint16_t)((hr[t[0]] == hr[t[1]] && hr[t[1]] == hr[t[2]]) ? hr[t[0]] : 0);
    pareas[np] = (uint16_t)w->harea.v[t[0]];
    np++;
  }
  if (np > 0 && nvp > 3 && nm_polymesh_merge(polys, &np, pregs, pareas, w->verts, nvp, NM_PM_MERGE_AUTO, w->a) != NM_OK)
    return NM_ERR_NOMEM;
  for (i = 0; i < np && w->npolys < w->maxpolys; i++) pm_store(w, &polys[i * nvp], pregs[i], (uint8_t)pareas[i]);
  return NM_OK;
}

/* Removes every flagged border vertex that can go, re-filling its hole. */
static nm_status pm_remove_border_vertices(pm_work *w) {
  int i, ok;
  for (i = 0; i < w->nverts; i++) {
    if (!w->vflags[i]) continue;
    if (pm_can_remove(w, i, &ok) != NM_OK) return NM_ERR_NOMEM;
    if (!ok) continue;
    if (pm_cut_out(w, i) != NM_OK) return NM_ERR_NOMEM;
    if (w->edges.n > 0 && (pm_chain_hole(w) != NM_OK || pm_fill_hole(w) != NM_OK)) return NM_ERR_NOMEM;
    /* the flags follow the renumbered vertices; look at slot i again */
    memmove(&w->vflags[i], &w->vflags[i + 1], (size_t)(w->nverts - i));
    i--;
  }
  return NM_OK;
}

/* ---- stage: adjacency and portals ---- */

/* Fills the neighbour slots: edges are listed once from their lower vertex,
 * then matched with the same edge walked the other way by another polygon. */
static nm_status pm_adjacency(pm_work *w) {
  const int nvp = w->nvp, maxe = w->npolys * nvp;
  int *first = (int *)nm_malloc(w->a, sizeof(int) * (size_t)(w->nverts + maxe));
  int *edges = (int *)nm_malloc(w->a, sizeof(int) * 6 * (size_t)maxe);
  int *nexte, ne = 0, i, j, e;
  if (!first || !edges) {
    nm_free(w->a, first, sizeof(int) * (size_t)(w->nverts + maxe));
    nm_free(w->a, edges, sizeof(int) * 6 * (size_t)maxe);
    return NM_ERR_NOMEM;
  }
  nexte = first + w->nverts;
  /* edge records: (v0 < v1, first poly, its edge, second poly, its edge);
   * chained per lower vertex. Second poly == first means unmatched. */
  for (i = 0; i < w->nverts; i++) first[i] = -1;
  for (i = 0; i < w->npolys; i++) {
    const uint16_t *t = &w->polys[i * nvp * 2];
    const int nv = pm_count(t, nvp);
    for (j = 0; j < nv; j++) {
      const int v0 = t[j], v1 = t[(j + 1) % nv];
      int *d = &edges[ne * 6];
      if (v0 >= v1) continue;
      d[0] = v0; d[1] = v1; d[2] = i; d[3] = j; d[4] = i; d[5] = 0;
      nexte[ne] = first[v0];
      first[v0] = ne++;
    }
  }
  for (i = 0; i < w->npolys; i++) {
    const uint16_t *t = &w->polys[i * nvp * 2];
    const int nv = pm_count(t, nvp);
    for (j = 0; j < nv; j++) {
      const int v0 = t[j], v1 = t[(j + 1) % nv];
      if (v0 <= v1) continue; /* the same edge walked the other way */
      for (e = first[v1]; e != -1; e = nexte[e])
        if (edges[e * 6 + 1] == v0 && edges[e * 6 + 2] == edges[e * 6 + 4]) {
          edges[e * 6 + 4] = i;
          edges[e * 6 + 5] = j;
          break;
        }
    }
  }
  /* store both directions of every matched edge; unmatched ones stay open */
  for (i = 0; i < ne; i++) {
    const int *d = &edges[i * 6];
    if (d[2] == d[4]) continue;
    w->polys[d[2] * nvp * 2 + nvp + d[3]] = (uint16_t)d[4];
    w->polys[d[4] * nvp * 2 + nvp + d[5]] = (uint16_t)d[2];
  }
  nm_free(w->a, first, sizeof(int) * (size_t)(w->nverts + maxe));
  nm_free(w->a, edges, sizeof(int) * 6 * (size_t)maxe);
  return NM_OK;
}

/* Marks open edges lying on the tile square (width x height cells) as
 * portals to the neighbouring tile. */
static void pm_portals(pm_work *w, int width, int height) {
  const int nvp = w->nvp;
  int i, j;
  for (i = 0; i < w->npolys; i++) {
    uint16_t *p = &w->polys[i * nvp * 2];
    const int nv = pm_count(p, nvp);
    for (j = 0; j < nv; j++) {
      const uint16_t *va = &w->verts[p[j] * 3], *vb = &w->verts[p[(j + 1) % nv] * 3];
      if (p[nvp + j] != PM_NULL) continue;
      /* both ends on the same side of the square (x = 0, z = height, x =
       * width, z = 0); the tile links find out what lies beyond */
      if (va[0] == 0 && vb[0] == 0) p[nvp + j] = 0x8000 | 0;
      else if (va[2] == height && vb[2] == height) p[nvp + j] = 0x8000 | 1;
      else if (va[0] == width && vb[0] == width) p[nvp + j] = 0x8000 | 2;
      else if (va[2] == 0 && vb[2] == 0) p[nvp + j] = 0x8000 | 3;
    }
  }
}

/* ---- entry points ---- */

/* Frees whatever the work still owns (exact sizes from its counters). */
static void pm_work_free(pm_work *w) {
  const nm_alloc *a = w->a;
  nm_free(a, w->verts, sizeof(uint16_t) * 3 * (size_t)w->maxverts);
  nm_free(a, w->polys, sizeof(uint16_t) * 2 * (size_t)w->nvp * (size_t)w->maxpolys);
  nm_free(a, w->regs, sizeof(uint16_t) * (size_t)w->maxpolys);
  nm_free(a, w->areas, (size_t)w->maxpolys);
  nm_free(a, w->vflags, (size_t)w->maxverts);
  nm_free(a, w->first, sizeof(int) * (size_t)(PM_BUCKETS + w->maxverts));
  nm_free(a, w->idx, sizeof(int) * 4 * (size_t)w->maxcv);
  nm_free(a, w->cpolys, sizeof(uint16_t) * (size_t)(w->maxcv + 1) * (size_t)w->nvp);
  nm_free(a, w->hpolys, sizeof(uint16_t) * (size_t)w->hpolys_cap);
  nm_ivec_free(a, &w->edges);
  nm_ivec_free(a, &w->hole);
  nm_ivec_free(a, &w->hreg);
  nm_ivec_free(a, &w->harea);
  nm_ivec_free(a, &w->tverts);
  nm_ivec_free(a, &w->tidx);
  nm_ivec_free(a, &w->ttris);
}

/* Sizes and allocates the work arrays for the contours of cset. */
static nm_status pm_work_init(pm_work *w, const nm_contour_set *cset, int nvp, const nm_alloc *a) {
  int i;
  memset(w, 0, sizeof *w);
  w->a = a;
  w->nvp = nvp;
  for (i = 0; i < cset->nconts; i++) {
    const int n = cset->conts[i].nverts;
    if (n < 3) continue;
    w->maxverts += n;
    w->maxpolys += n - 2;
    w->maxcv = nm_maxi(w->maxcv, n);
  }
  if (w->maxverts >= 0xfffe) return NM_ERR_PARAM; /* indices are 16 bits: use tiles */
  if (w->maxverts == 0) return NM_OK;
  w->verts = (uint16_t *)nm_malloc(a, sizeof(uint16_t) * 3 * (size_t)w->maxverts);
  w->polys = (uint16_t *)nm_malloc(a, sizeof(uint16_t) * 2 * (size_t)nvp * (size_t)w->maxpolys);
  w->regs = (uint16_t *)nm_malloc(a, sizeof(uint16_t) * (size_t)w->maxpolys);
  w->areas = (uint8_t *)nm_malloc(a, (size_t)w->maxpolys);
  w->vflags = (uint8_t *)nm_calloc(a, (size_t)w->maxverts);
  w->first = (int *)nm_malloc(a, sizeof(int) * (size_t)(PM_BUCKETS + w->maxverts));
  w->idx = (int *)nm_malloc(a, sizeof(int) * 4 * (size_t)w->maxcv); /* idx, then tris */
  w->cpolys = (uint16_t *)nm_malloc(a, sizeof(uint16_t) * (size_t)(w->maxcv + 1) * (size_t)nvp);
  if (!w->verts || !w->polys || !w->regs || !w->areas || !w->vflags || !w->first || !w->idx || !w->cpolys)
    return NM_ERR_NOMEM;
  w->next = w->first + PM_BUCKETS;
  w->tris = w->idx + w->maxcv;
  for (i = 0; i < PM_BUCKETS; i++) w->first[i] = -1;
  return NM_OK;
}

/* Hands the arrays over to the mesh (vertices trimmed to their count). */
static nm_status pm_finish(pm_work *w, nm_polymesh *mesh) {
  uint16_t *verts = NULL;
  uint16_t *flags = NULL;
  if (w->nverts > 0) {
    verts = (uint16_t *)nm_malloc(w->a, sizeof(uint16_t) * 3 * (size_t)w->nverts);
    if (!verts) return NM_ERR_NOMEM;
    memcpy(verts, w->verts, sizeof(uint16_t) * 3 * (size_t)w->nverts);
  }
  if (w->maxpolys > 0 && !(flags = (uint16_t *)nm_calloc(w->a, sizeof(uint16_t) * (size_t)w->maxpolys))) {
    nm_free(w->a, verts, sizeof(uint16_t) * 3 * (size_t)w->nverts);
    return NM_ERR_NOMEM;
  }
  mesh->verts = verts;
  mesh->nverts = w->nverts;
  mesh->polys = w->polys;
  mesh->regs = w->regs;
  mesh->areas = w->areas;
  mesh->flags = flags;
  mesh->npolys = w->npolys;
  mesh->maxpolys = w->maxpolys;
  w->polys = NULL;
  w->regs = NULL;
  w->areas = NULL;
  return NM_OK;
}

/* See nm_build.h. Polygon flags come out 0 (the caller assigns them);
 * regions are the contours' (0 where removing a border vertex joined
 * polygons of several regions). NM_ERR_PARAM for nvp outside 3..6 or more
 * than 65533 contour vertices. */
nm_status nm_polymesh_build(const nm_contour_set *cset, int nvp, const nm_alloc *a, nm_polymesh *mesh) {
  pm_work w;
  nm_status st;
  int i;
  if (!mesh) return NM_ERR_PARAM;
  memset(mesh, 0, sizeof *mesh);
  mesh->a = nm_alloc_resolve(a);
  if (!cset || nvp < 3 || nvp > NM_MAX_VERTS_PER_POLY) return NM_ERR_PARAM;
  mesh->nvp = nvp;
  nm_vcopy(mesh->bmin, cset->bmin);
  nm_vcopy(mesh->bmax, cset->bmax);
  mesh->cs = cset->cs;
  mesh->ch = cset->ch;
  mesh->border_size = cset->border_size;
  mesh->max_edge_error = cset->max_error;
  st = pm_work_init(&w, cset, nvp, &mesh->a);
  for (i = 0; st == NM_OK && w.maxverts > 0 && i < cset->nconts; i++)
    if (cset->conts[i].nverts >= 3) st = pm_add_contour(&w, &cset->conts[i]);
  if (st == NM_OK && w.maxverts > 0) st = pm_remove_border_vertices(&w);
  if (st == NM_OK && w.npolys > 0) st = pm_adjacency(&w);
  if (st == NM_OK && cset->border_size > 0) pm_portals(&w, cset->width, cset->height);
  if (st == NM_OK) st = pm_finish(&w, mesh);
  pm_work_free(&w);
  return st;
}

/* Frees the mesh's arrays; the struct may be reused. */
void nm_polymesh_free(nm_polymesh *mesh) {
  if (!mesh) return;
  nm_free(&mesh->a, mesh->verts, sizeof(uint16_t) * 3 * (size_t)mesh->nverts);
  nm_free(&mesh->a, mesh->polys, sizeof(uint16_t) * 2 * (size_t)mesh->nvp * (size_t)mesh->maxpolys);
  nm_free(&mesh->a, mesh->regs, sizeof(uint16_t) * (size_t)mesh->maxpolys);
  nm_free(&mesh->a, mesh->flags, sizeof(uint16_t) * (size_t)mesh->maxpolys);
  nm_free(&mesh->a, mesh->areas, (size_t)mesh->maxpolys);
  mesh->verts = mesh->polys = mesh->regs = mesh->flags = NULL;
  mesh->areas = NULL;
  mesh->nverts = mesh->npolys = mesh->maxpolys = 0;
}
