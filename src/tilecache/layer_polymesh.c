/* layer_polymesh.c -- the polygon mesh of a tile-cache layer (DetourTileCache's
 * mesh pass).
 *
 * Each contour is triangulated by ear clipping (shortest diagonal first,
 * integer orientation tests on the cell lattice), its vertices are merged
 * with those of earlier contours (same x and z, heights within 2 cells),
 * and its triangles are merged greedily into convex polygons of at most six
 * vertices (the pair sharing the longest edge first). Vertices marked by the
 * contour pass as lying inside a straight portal edge are then removed where
 * the polygons around them allow it (the hole is re-triangulated and
 * merged). Last, polygons sharing an edge become neighbours, and open edges
 * lying on a portal of the contours get the portal's direction.
 * Polygons are stored as 2 * 6 slots: vertex indices, then neighbours. */
#include <stdlib.h>
#include "nm_cache.h"

#define NVP NM_LAYER_NVP
#define MAX_REM_EDGES 48
#define NULL_IDX NM_LAYER_NULL_IDX

/* ---- orientation tests on byte vertices (x at [0], z at [2]) ---- */

static int lnext(int i, int n) { return i + 1 < n ? i + 1 : 0; }
static int lprev(int i, int n) { return i - 1 >= 0 ? i - 1 : n - 1; }

static int area2(const uint8_t *a, const uint8_t *b, const uint8_t *c) {
  return ((int)b[0] - (int)a[0]) * ((int)c[2] - (int)a[2]) - ((int)c[0] - (int)a[0]) * ((int)b[2] - (int)a[2]);
}
static int left(const uint8_t *a, const uint8_t *b, const uint8_t *c) { return area2(a, b, c) < 0; }
static int left_on(const uint8_t *a, const uint8_t *b, const uint8_t *c) { return area2(a, b, c) <= 0; }
static int collinear(const uint8_t *a, const uint8_t *b, const uint8_t *c) { return area2(a, b, c) == 0; }

/* Proper intersection of segments ab and cd (no shared or touching point). */
static int intersect_prop(const uint8_t *a, const uint8_t *b, const uint8_t *c, const uint8_t *d) {
  if (collinear(a, b, c) || collinear(a, b, d) || collinear(c, d, a) || collinear(c, d, b)) return 0;
  return (left(a, b, c) != left(a, b, d)) && (left(c, d, a) != left(c, d, b));
}

/* c lies on segment ab (collinear and within its extent). */
static int between(const uint8_t *a, const uint8_t *b, const uint8_t *c) {
  if (!collinear(a, b, c)) return 0;
  if (a[0] != b[0]) return (a[0] <= c[0] && c[0] <= b[0]) || (a[0] >= c[0] && c[0] >= b[0]);
  return (a[2] <= c[2] && c[2] <= b[2]) || (a[2] >= c[2] && c[2] >= b[2]);
}

static int intersect(const uint8_t *a, const uint8_t *b, const uint8_t *c, const uint8_t *d) {
  return intersect_prop(a, b, c, d) || between(a, b, c) || between(a, b, d) || between(c, d, a) ||
         between(c, d, b);
}

static int vequal(const uint8_t *a, const uint8_t *b) { return a[0] == b[0] && a[2] == b[2]; }

#define LV(i) (&verts[(indices[i] & 0x7fff) * 4])

/* Diagonal i-j crosses no edge of the polygon (edges at i or j skipped). */
static int diagonalie(int i, int j, int n, const uint8_t *verts, const uint16_t *indices) {
  const uint8_t *d0 = LV(i), *d1 = LV(j);
  int k;
  for (k = 0; k < n; k++) {
    const int k1 = lnext(k, n);
    const uint8_t *p0, *p1;
    if (k == i || k1 == i || k == j || k1 == j) continue;
    p0 = LV(k);
    p1 = LV(k1);
    if (vequal(d0, p0) || vequal(d1, p0) || vequal(d0, p1) || vequal(d1, p1)) continue;
    /* segments whose boxes do not meet can neither cross nor touch */
    if ((d0[0] < p0[0] && d0[0] < p1[0] && d1[0] < p0[0] && d1[0] < p1[0]) ||
        (d0[0] > p0[0] && d0[0] > p1[0] && d1[0] > p0[0] && d1[0] > p1[0]) ||
        (d0[2] < p0[2] && d0[2] < p1[2] && d1[2] < p0[2] && d1[2] < p1[2]) ||
        (d0[2] > p0[2] && d0[2] > p1[2] && d1[2] > p0[2] && d1[2] > p1[2]))
      continue;
    if (intersect(d0, d1, p0, p1)) return 0;
  }
  return 1;
}

/* Diagonal i-j starts into the polygon's interior at i. */
static int in_cone(int i, int j, int n, const uint8_t *verts, const uint16_t *indices) {
  const uint8_t *pi = LV(i), *pj = LV(j), *pi1 = LV(lnext(i, n)), *pin1 = LV(lprev(i, n));
  if (left_on(pin1, pi, pi1)) return left(pi, pj, pin1) && left(pj, pi, pi1);
  return !(left_on(pi, pj, pi1) && left_on(pj, pi, pin1));
}

static int diagonal(int i, int j, int n, const uint8_t *verts, const uint16_t *indices) {
  return in_cone(i, j, n, verts, indices) && diagonalie(i, j, n, verts, indices);
}

/* Ear clipping of polygon indices[0..n) (vertices of 4 bytes); the top bit
 * of an index marks "i+1 is an ear". Writes the triangles (indices without
 * the mark) to tris; returns their count, negated when the polygon could
 * not be finished (the triangles so far are kept, as Detour does). */
static int triangulate(int n, const uint8_t *verts, uint16_t *indices, uint16_t *tris) {
  int ntris = 0, i;
  uint16_t *dst = tris;
  for (i = 0; i < n; i++) {
    const int i1 = lnext(i, n), i2 = lnext(i1, n);
    if (diagonal(i, i2, n, verts, indices)) indices[i1] |= 0x8000;
  }
  while (n > 3) {
    int min_len = -1, mini = -1, i1, k;
    for (i = 0; i < n; i++) {
      i1 = lnext(i, n);
      if (indices[i1] & 0x8000) {
        const uint8_t *p0 = LV(i), *p2 = LV(lnext(i1, n));
        const int dx = (int)p2[0] - (int)p0[0], dz = (int)p2[2] - (int)p0[2], len = dx * dx + dz * dz;
        if (min_len < 0 || len < min_len) { min_len = len; mini = i; }
      }
    }
    if (mini == -1) return -ntris;
    i = mini;
    i1 = lnext(i, n);
    *dst++ = indices[i] & 0x7fff;
    *dst++ = indices[i1] & 0x7fff;
    *dst++ = indices[lnext(i1, n)] & 0x7fff;
    ntris++;
    n--;
    for (k = i1; k < n; k++) indices[k] = indices[k + 1];
    if (i1 >= n) i1 = 0;
    i = lprev(i1, n);
    if (diagonal(lprev(i, n), i1, n, verts, indices)) indices[i] |= 0x8000;
    else indices[i] &= 0x7fff;
    if (diagonal(i, lnext(i1, n), n, verts, indices)) indices[i1] |= 0x8000;
    else indices[i1] &= 0x7fff;
  }
  *dst++ = indices[0] & 0x7fff;
  *dst++ = indices[1] & 0x7fff;
  *dst++ = indices[2] & 0x7fff;
  return ntris + 1;
}
#undef LV

/* ---- polygons of up to six vertices ---- */

static int count_verts(const uint16_t *p) {
  int i;
  for (i = 0; i < NVP; i++)
    if (p[i] == NULL_IDX) return i;
  return NVP;
}

static int uleft(const uint16_t *a, const uint16_t *b, const uint16_t *c) {
  return ((int)b[0] - (int)a[0]) * ((int)c[2] - (int)a[2]) - ((int)c[0] - (int)a[0]) * ((int)b[2] - (int)a[2]) < 0;
}

/* Squared length of the edge pa and pb share when merging them gives a
 * convex polygon of at most six vertices; -1 otherwise (ea, eb: the edge). */
static int merge_value(const uint16_t *pa, const uint16_t *pb, const uint16_t *verts, int *ea, int *eb) {
  const int na = count_verts(pa), nb = count_verts(pb);
  int i, j, dx, dz;
  uint16_t va, vb, vc;
  if (na + nb - 2 > NVP) return -1;
  *ea = *eb = -1;
  for (i = 0; i < na; i++) {
    uint16_t a0 = pa[i], a1 = pa[(i + 1) % na];
    if (a0 > a1) { uint16_t t = a0; a0 = a1; a1 = t; }
    for (j = 0; j < nb; j++) {
      uint16_t b0 = pb[j], b1 = pb[(j + 1) % nb];
      if (b0 > b1) { uint16_t t = b0; b0 = b1; b1 = t; }
      if (a0 == b0 && a1 == b1) { *ea = i; *eb = j; break; }
    }
  }
  if (*ea == -1 || *eb == -1) return -1;
  va = pa[(*ea + na - 1) % na]; vb = pa[*ea]; vc = pb[(*eb + 2) % nb];
  if (!uleft(&verts[va * 3], &verts[vb * 3], &verts[vc * 3])) return -1;
  va = pb[(*eb + nb - 1) % nb]; vb = pb[*eb]; vc = pa[(*ea + 2) % na];
  if (!uleft(&verts[va * 3], &verts[vb * 3], &verts[vc * 3])) return -1;
  va = pa[*ea];
  vb = pa[(*ea + 1) % na];
  dx = (int)verts[va * 3] - (int)verts[vb * 3];
  dz = (int)verts[va * 3 + 2] - (int)verts[vb * 3 + 2];
  return dx * dx + dz * dz;
}

/* pa becomes pa merged with pb across their shared edge ea/eb. */
static void merge_polys(uint16_t *pa, const uint16_t *pb, int ea, int eb) {
  uint16_t tmp[NVP * 2];
  const int na = count_verts(pa), nb = count_verts(pb);
  int i, n = 0;
  memset(tmp, 0xff, sizeof tmp);
  for (i = 0; i < na - 1; i++) tmp[n++] = pa[(ea + 1 + i) % na];
  for (i = 0; i < nb - 1; i++) tmp[n++] = pb[(eb + 1 + i) % nb];
  memcpy(pa, tmp, sizeof(uint16_t) * NVP);
}

/* Bit set of a polygon's vertex indices modulo 64: two polygons can only
 * share an edge when their sets meet. */
static uint64_t vmask(const uint16_t *p) {
  uint64_t m = 0;
  int i;
  for (i = 0; i < NVP && p[i] != NULL_IDX; i++) m |= (uint64_t)1 << (p[i] & 63);
  return m;
}

/* A mergeable pair of polygons (a < b) with its merge value and edges. */
typedef struct lpair {
  uint16_t a, b;
  uint8_t ea, eb;
  int v;
} lpair;

/* Adds the pairs of polygon p with every other polygon (but skip) that
 * can merge with it. Returns the pair count, -1 when cap is exceeded. */
static int add_pairs(const uint16_t *polys, int npolys, const uint16_t *verts, const uint64_t *masks, int p,
                     int skip, lpair *pairs, int n, int cap) {
  int k;
  for (k = 0; k < npolys; k++) {
    const int a = k < p ? k : p, b = k < p ? p : k;
    int ea, eb, v;
    if (k == p || k == skip || !(masks[a] & masks[b])) continue;
    v = merge_value(&polys[a * NVP], &polys[b * NVP], verts, &ea, &eb);
    if (v <= 0) continue;
    if (n >= cap) return -1;
    pairs[n].a = (uint16_t)a; pairs[n].b = (uint16_t)b;
    pairs[n].ea = (uint8_t)ea; pairs[n].eb = (uint8_t)eb;
    pairs[n++].v = v;
  }
  return n;
}

/* Drops the pairs that involve polygons pa, pb or last. */
static int drop_pairs(lpair *pairs, int n, int pa, int pb, int last) {
  int i, m = 0;
  for (i = 0; i < n; i++) {
    const lpair *p = &pairs[i];
    if (p->a == pa || p->b == pa || p->a == pb || p->b == pb || p->b == last) continue;
    pairs[m++] = *p;
  }
  return m;
}

/* The pair to merge: the largest value, ties to the first (a, b) in index
 * order (Detour scans j < k, j then k ascending, keeping strict gains). */
static int best_pair(const lpair *pairs, int n) {
  int j, best = 0;
  for (j = 1; j < n; j++) {
    const lpair *p = &pairs[j], *q = &pairs[best];
    if (p->v > q->v || (p->v == q->v && (p->a < q->a || (p->a == q->a && p->b < q->b)))) best = j;
  }
  return best;
}

/* Merges one pair: pa takes pb's polygon, the last polygon moves into
 * slot pb. Returns the new polygon count. */
static int merge_pair(uint16_t *polys, uint8_t *areas, int npolys, uint64_t *masks, int pa, int pb, int ea,
                      int eb) {
  const int last = npolys - 1;
  merge_polys(&polys[pa * NVP], &polys[pb * NVP], ea, eb);
  memcpy(&polys[pb * NVP], &polys[last * NVP], sizeof(uint16_t) * NVP);
  if (areas) areas[pb] = areas[last];
  masks[pa] = vmask(&polys[pa * NVP]);
  masks[pb] = masks[last];
  return last;
}

/* The plain greedy loop: measures every pair each time (pairs with no
 * common vertex skipped). Used for the small holes of vertex removal. */
static int merge_scan(uint16_t *polys, uint8_t *areas, int npolys, const uint16_t *verts, uint64_t *masks) {
  for (;;) {
    int best = 0, bpa = 0, bpb = 0, bea = 0, beb = 0, j, k;
    for (j = 0; j < npolys - 1; j++)
      for (k = j + 1; k < npolys; k++) {
        int ea, eb, v;
        if (!(masks[j] & masks[k])) continue;
        v = merge_value(&polys[j * NVP], &polys[k * NVP], verts, &ea, &eb);
        if (v > best) { best = v; bpa = j; bpb = k; bea = ea; beb = eb; }
      }
    if (best <= 0) return npolys;
    npolys = merge_pair(polys, areas, npolys, masks, bpa, bpb, bea, beb);
  }
}

/* Merges polygons (records of NVP) greedily as Detour does: each time the
 * pair sharing the longest edge (ties: the first pair in index order).
 * Candidate pairs are kept in a list updated around each merge instead of
 * measuring every pair again; areas (may be NULL) follow their polygons;
 * masks [npolys] and pairs [cap] are scratch. Returns the new count, or
 * -1 - count when the pair list is full: the merges so far are done, and a
 * call with a longer list goes on from there with the same choices. */
static int merge_all(uint16_t *polys, uint8_t *areas, int npolys, const uint16_t *verts, uint64_t *masks,
                     lpair *pairs, int cap) {
  int j, n = 0;
  for (j = 0; j < npolys; j++) masks[j] = vmask(&polys[j * NVP]);
  for (j = 0; j < npolys && n >= 0; j++) { /* pairs (j, k > j) */
    int k;
    for (k = j + 1; k < npolys && n >= 0; k++) {
      int ea, eb, v;
      if (!(masks[j] & masks[k])) continue;
      v = merge_value(&polys[j * NVP], &polys[k * NVP], verts, &ea, &eb);
      if (v <= 0) continue;
      if (n >= cap) { n = -1; break; }
      pairs[n].a = (uint16_t)j; pairs[n].b = (uint16_t)k;
      pairs[n].ea = (uint8_t)ea; pairs[n].eb = (uint8_t)eb;
      pairs[n++].v = v;
    }
  }
  while (n > 0) {
    const lpair p = pairs[best_pair(pairs, n)];
    const int last = npolys - 1;
    npolys = merge_pair(polys, areas, npolys, masks, p.a, p.b, p.ea, p.eb);
    n = drop_pairs(pairs, n, p.a, p.b, last);
    n = add_pairs(polys, npolys, verts, masks, p.a, -1, pairs, n, cap);
    if (n >= 0 && p.b != last) n = add_pairs(polys, npolys, verts, masks, p.b, p.a, pairs, n, cap);
  }
  return n < 0 ? -1 - npolys : npolys;
}

/* ---- vertices ---- */

#define VBUCKETS 256

/* Index of vertex (x, y, z), merged with an earlier one at the same x, z
 * and a height within 2 cells. */
static uint16_t add_vertex(nm_lmesh *m, uint16_t x, uint16_t y, uint16_t z, uint16_t *first, uint16_t *nextv) {
  const uint32_t bucket = (0x8da6b343u * x + 0xcb1ab31fu * z) & (VBUCKETS - 1);
  uint16_t i = first[bucket];
  uint16_t *v;
  while (i != NULL_IDX) {
    const uint16_t *w = &m->verts[i * 3];
    if (w[0] == x && w[2] == z && abs((int)w[1] - (int)y) <= 2) return i;
    i = nextv[i];
  }
  i = (uint16_t)m->nverts++;
  v = &m->verts[i * 3];
  v[0] = x;
  v[1] = y;
  v[2] = z;
  nextv[i] = first[bucket];
  first[bucket] = i;
  return i;
}

/* ---- removing vertices inside straight portal edges ---- */

/* 1 when removing vertex rem leaves a fillable hole: the polygons using it
 * keep more than two edges between them and form one fan (at most two
 * edges at rem are used by a single polygon). */
static int can_remove_vertex(const nm_lmesh *m, uint16_t rem) {
  uint16_t edges[MAX_REM_EDGES * 3];
  int i, j, k, touched = 0, remaining = 0, nedges = 0, open = 0;
  for (i = 0; i < m->npolys; i++) {
    const uint16_t *p = &m->polys[i * NVP * 2];
    const int nv = count_verts(p);
    int removed = 0;
    for (j = 0; j < nv; j++)
      if (p[j] == rem) { touched++; removed++; }
    if (removed) remaining += nv - (removed + 1);
  }
  if (remaining <= 2 || touched * 2 > MAX_REM_EDGES) return 0;
  for (i = 0; i < m->npolys; i++) {
    const uint16_t *p = &m->polys[i * NVP * 2];
    const int nv = count_verts(p);
    for (j = 0, k = nv - 1; j < nv; k = j++) {
      int a = p[j], b = p[k], m2, exists = 0;
      if (a != rem && b != rem) continue;
      if (b == rem) { b = a; a = rem; }
      for (m2 = 0; m2 < nedges; m2++)
        if (edges[m2 * 3 + 1] == b) { edges[m2 * 3 + 2]++; exists = 1; }
      if (!exists) {
        edges[nedges * 3] = (uint16_t)a;
        edges[nedges * 3 + 1] = (uint16_t)b;
        edges[nedges * 3 + 2] = 1;
        nedges++;
      }
    }
  }
  for (i = 0; i < nedges; i++) open += edges[i * 3 + 2] < 2;
  return open <= 2;
}

/* The hole left by removing a vertex: its boundary (vertex indices) and the
 * area of the polygon each boundary edge came from. */
typedef struct lhole {
  uint16_t edges[MAX_REM_EDGES * 3];
  int nedges;
  uint16_t verts[MAX_REM_EDGES], areas[MAX_REM_EDGES];
  int n;
} lhole;

/* Takes every polygon using rem out of the mesh, keeping its edges that do
 * not touch rem; then drops vertex rem and renumbers. ERR_DATA when the
 * edges do not fit. */
static nm_status cut_polys(nm_lmesh *m, uint16_t rem, lhole *h) {
  int i, j, k;
  h->nedges = 0;
  for (i = 0; i < m->npolys; i++) {
    uint16_t *p = &m->polys[i * NVP * 2];
    const int nv = count_verts(p);
    int has = 0;
    for (j = 0; j < nv; j++) has |= p[j] == rem;
    if (!has) continue;
    for (j = 0, k = nv - 1; j < nv; k = j++) {
      uint16_t *e;
      if (p[j] == rem || p[k] == rem) continue;
      if (h->nedges >= MAX_REM_EDGES) return NM_ERR_DATA;
      e = &h->edges[h->nedges++ * 3];
      e[0] = p[k];
      e[1] = p[j];
      e[2] = m->areas[i];
    }
    memcpy(p, &m->polys[(m->npolys - 1) * NVP * 2], sizeof(uint16_t) * NVP);
    memset(p + NVP, 0xff, sizeof(uint16_t) * NVP);
    m->areas[i] = m->areas[m->npolys - 1];
    m->npolys--;
    i--;
  }
  memmove(&m->verts[rem * 3], &m->verts[(rem + 1) * 3], sizeof(uint16_t) * 3 * (size_t)(m->nverts - 1 - rem));
  m->nverts--;
  for (i = 0; i < m->npolys; i++) {
    uint16_t *p = &m->polys[i * NVP * 2];
    const int nv = count_verts(p);
    for (j = 0; j < nv; j++)
      if (p[j] > rem) p[j]--;
  }
  for (i = 0; i < h->nedges; i++) {
    if (h->edges[i * 3] > rem) h->edges[i * 3]--;
    if (h->edges[i * 3 + 1] > rem) h->edges[i * 3 + 1]--;
  }
  return NM_OK;
}

static void push_front(uint16_t v, uint16_t *arr, int n) {
  memmove(arr + 1, arr, sizeof(uint16_t) * (size_t)n);
  arr[0] = v;
}

/* Chains the kept edges into the hole's boundary, growing it at both ends
 * until no edge fits. ERR_DATA when it would overflow. */
static nm_status chain_hole(lhole *h) {
  h->n = 0;
  h->verts[h->n] = h->edges[0];
  h->areas[h->n++] = h->edges[2];
  while (h->nedges) {
    int i, match = 0;
    for (i = 0; i < h->nedges; i++) {
      uint16_t *e = &h->edges[i * 3];
      int add = 0;
      if (h->verts[0] == e[1]) {
        if (h->n >= MAX_REM_EDGES) return NM_ERR_DATA;
        push_front(e[0], h->verts, h->n);
        push_front(e[2], h->areas, h->n);
        h->n++;
        add = 1;
      } else if (h->verts[h->n - 1] == e[0]) {
        if (h->n >= MAX_REM_EDGES) return NM_ERR_DATA;
        h->verts[h->n] = e[1];
        h->areas[h->n++] = e[2];
        add = 1;
      }
      if (add) {
        memcpy(e, &h->edges[(h->nedges - 1) * 3], sizeof(uint16_t) * 3);
        h->nedges--;
        match = 1;
        i--;
      }
    }
    if (!match) break;
  }
  return NM_OK;
}

/* Triangulates and merges the hole, then appends its polygons. */
static nm_status fill_hole(nm_lmesh *m, const lhole *h) {
  uint16_t tris[MAX_REM_EDGES * 3], tpoly[MAX_REM_EDGES], polys[MAX_REM_EDGES * NVP];
  uint8_t tverts[MAX_REM_EDGES * 4], pareas[MAX_REM_EDGES];
  uint64_t masks[MAX_REM_EDGES];
  int i, j, ntris, npolys = 0;
  for (i = 0; i < h->n; i++) {
    const uint16_t *v = &m->verts[h->verts[i] * 3];
    tverts[i * 4] = (uint8_t)v[0];
    tverts[i * 4 + 1] = (uint8_t)v[1];
    tverts[i * 4 + 2] = (uint8_t)v[2];
    tverts[i * 4 + 3] = 0;
    tpoly[i] = (uint16_t)i;
  }
  ntris = h->n >= 3 ? triangulate(h->n, tverts, tpoly, tris) : 0;
  if (ntris < 0) ntris = -ntris;
  if (ntris > MAX_REM_EDGES) return NM_ERR_DATA;
  memset(polys, 0xff, sizeof polys);
  for (j = 0; j < ntris; j++) {
    const uint16_t *t = &tris[j * 3];
    if (t[0] == t[1] || t[0] == t[2] || t[1] == t[2]) continue;
    polys[npolys * NVP] = h->verts[t[0]];
    polys[npolys * NVP + 1] = h->verts[t[1]];
    polys[npolys * NVP + 2] = h->verts[t[2]];
    pareas[npolys++] = (uint8_t)h->areas[t[0]];
  }
  if (!npolys) return NM_OK;
  for (i = 0; i < npolys; i++) masks[i] = vmask(&polys[i * NVP]);
  npolys = merge_scan(polys, pareas, npolys, m->verts, masks);
  for (i = 0; i < npolys; i++) {
    uint16_t *p;
    if (m->npolys >= m->max_polys) break;
    p = &m->polys[m->npolys * NVP * 2];
    memset(p, 0xff, sizeof(uint16_t) * NVP * 2);
    memcpy(p, &polys[i * NVP], sizeof(uint16_t) * NVP);
    m->areas[m->npolys++] = pareas[i];
  }
  return NM_OK;
}

/* Removes vertex rem and re-fills the hole around it. */
static nm_status remove_vertex(nm_lmesh *m, uint16_t rem) {
  lhole h;
  nm_status st;
  if ((st = cut_polys(m, rem, &h)) < 0) return st;
  if (h.nedges == 0) return NM_OK;
  if ((st = chain_hole(&h)) < 0) return st;
  return fill_hole(m, &h);
}

/* ---- adjacency ---- */

typedef struct ledge {
  uint16_t vert[2], poly_edge[2], poly[2];
} ledge;

/* Collects every polygon edge once: first those running from a lower to a
 * higher vertex index, then the reverse ones, paired with the first kind
 * (Lengyel's method). Returns the edge count. */
static int collect_edges(const nm_lmesh *m, ledge *edges, uint16_t *first, uint16_t *nexte) {
  int i, j, pass, n = 0;
  for (i = 0; i < m->nverts; i++) first[i] = NULL_IDX;
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < m->npolys; i++) {
      const uint16_t *t = &m->polys[i * NVP * 2];
      for (j = 0; j < NVP && t[j] != NULL_IDX; j++) {
        const uint16_t v0 = t[j], v1 = (j + 1 >= NVP || t[j + 1] == NULL_IDX) ? t[0] : t[j + 1];
        uint16_t e, lo = pass ? v1 : v0;
        if (pass == 0 ? v0 >= v1 : v0 <= v1) continue;
        if (pass) { /* pair with an open edge of the first kind */
          for (e = first[v1]; e != NULL_IDX; e = nexte[e])
            if (edges[e].vert[1] == v0 && edges[e].poly[0] == edges[e].poly[1]) break;
          if (e != NULL_IDX) {
            edges[e].poly[1] = (uint16_t)i;
            edges[e].poly_edge[1] = (uint16_t)j;
            continue;
          }
        }
        edges[n].vert[0] = lo;
        edges[n].vert[1] = pass ? v0 : v1;
        edges[n].poly[0] = edges[n].poly[1] = (uint16_t)i;
        edges[n].poly_edge[0] = (uint16_t)j;
        edges[n].poly_edge[1] = 0xff;
        nexte[n] = first[lo];
        first[lo] = (uint16_t)n++;
      }
    }
  return n;
}

/* Open edges lying along portal edge va-vb of a contour get its direction
 * (kept in poly_edge[1]). Axis 0: the portal runs along z at x = va[0]. */
static void mark_portal(const nm_lmesh *m, ledge *edges, int n, const uint8_t *va, const uint8_t *vb, uint8_t dir) {
  const int axis = (dir == 0 || dir == 2) ? 0 : 2, run = 2 - axis;
  const uint16_t at = va[axis];
  uint16_t lo = va[run], hi = vb[run];
  int i;
  if (lo > hi) { uint16_t t = lo; lo = hi; hi = t; }
  for (i = 0; i < n; i++) {
    ledge *e = &edges[i];
    const uint16_t *ea = &m->verts[e->vert[0] * 3], *eb = &m->verts[e->vert[1] * 3];
    uint16_t elo, ehi;
    if (e->poly[0] != e->poly[1] || ea[axis] != at || eb[axis] != at) continue;
    elo = ea[run];
    ehi = eb[run];
    if (elo > ehi) { uint16_t t = elo; elo = ehi; ehi = t; }
    if (!(lo >= ehi || hi <= elo)) e->poly_edge[1] = dir; /* ranges overlap (exclusive) */
  }
}

/* Neighbour slots of every polygon: shared edges and portals. */
static void build_adjacency(nm_lmesh *m, const nm_lcontour_set *cset, ledge *edges, uint16_t *first, uint16_t *nexte) {
  const int n = collect_edges(m, edges, first, nexte);
  int i, j, k;
  for (i = 0; i < cset->nconts; i++) {
    const nm_lcontour *c = &cset->conts[i];
    if (c->nverts < 3) continue;
    for (j = 0, k = c->nverts - 1; j < c->nverts; k = j++) {
      const uint8_t dir = c->verts[k * 4 + 3] & 0xf;
      if (dir != 0xf) mark_portal(m, edges, n, &c->verts[k * 4], &c->verts[j * 4], dir);
    }
  }
  for (i = 0; i < n; i++) {
    const ledge *e = &edges[i];
    if (e->poly[0] != e->poly[1]) {
      m->polys[e->poly[0] * NVP * 2 + NVP + e->poly_edge[0]] = e->poly[1];
      m->polys[e->poly[1] * NVP * 2 + NVP + e->poly_edge[1]] = e->poly[0];
    } else if (e->poly_edge[1] != 0xff) {
      m->polys[e->poly[0] * NVP * 2 + NVP + e->poly_edge[0]] = (uint16_t)(0x8000 | e->poly_edge[1]);
    }
  }
}

/* ---- the mesh ---- */

/* Working arrays of one mesh build. */
typedef struct lwork {
  uint8_t *vflags;
  uint16_t *nextv, *indices, *tris, *tpolys, first[VBUCKETS];
  uint64_t *masks;
  nm_scratch *ps;             /* the pair list of merge_all (grows) */
  const nm_alloc *a;
  int max_cont;
} lwork;

/* Triangulates contour c, adds its vertices and merged polygons. */
static nm_status add_contour(nm_lmesh *m, const nm_lcontour *c, lwork *w) {
  int j, ntris, npolys = 0;
  for (j = 0; j < c->nverts; j++) w->indices[j] = (uint16_t)j;
  ntris = triangulate(c->nverts, c->verts, w->indices, w->tris);
  if (ntris < 0) ntris = -ntris;
  for (j = 0; j < c->nverts; j++) {
    const uint8_t *v = &c->verts[j * 4];
    w->indices[j] = add_vertex(m, v[0], v[1], v[2], w->first, w->nextv);
    if (v[3] & 0x80) w->vflags[w->indices[j]] = 1;
  }
  memset(w->tpolys, 0xff, sizeof(uint16_t) * (size_t)w->max_cont * NVP);
  for (j = 0; j < ntris; j++) {
    const uint16_t *t = &w->tris[j * 3];
    if (t[0] == t[1] || t[0] == t[2] || t[1] == t[2]) continue;
    w->tpolys[npolys * NVP] = w->indices[t[0]];
    w->tpolys[npolys * NVP + 1] = w->indices[t[1]];
    w->tpolys[npolys * NVP + 2] = w->indices[t[2]];
    npolys++;
  }
  if (!npolys) return NM_OK;
  for (;;) { /* a longer pair list when one is full (degenerate outlines) */
    const int cap = (int)(w->ps->size / sizeof(lpair));
    npolys = merge_all(w->tpolys, NULL, npolys, m->verts, w->masks, (lpair *)w->ps->p, cap);
    if (npolys >= 0) break;
    npolys = -1 - npolys;
    if (nm_scratch_reserve(w->ps, w->a, w->ps->size * 2 + sizeof(lpair) * 64) < 0) return NM_ERR_NOMEM;
  }
  for (j = 0; j < npolys; j++) {
    uint16_t *p;
    if (m->npolys >= m->max_polys) return NM_ERR_DATA;
    p = &m->polys[m->npolys * NVP * 2];
    memcpy(p, &w->tpolys[j * NVP], sizeof(uint16_t) * NVP);
    m->areas[m->npolys++] = c->area;
  }
  return NM_OK;
}

/* Removes the marked vertices that can go. */
static nm_status remove_marked(nm_lmesh *m, lwork *w) {
  int i;
  for (i = 0; i < m->nverts; i++) {
    nm_status st;
    if (!w->vflags[i] || !can_remove_vertex(m, (uint16_t)i)) continue;
    if ((st = remove_vertex(m, (uint16_t)i)) < 0) return st;
    memmove(&w->vflags[i], &w->vflags[i + 1], (size_t)(m->nverts - i));
    i--;
  }
  return NM_OK;
}

/* Sizes of the mesh arrays from the contours; lays them out in s. */
static nm_status mesh_layout(const nm_lcontour_set *cset, nm_scratch *s, const nm_alloc *a, nm_lmesh *m, lwork *w) {
  int i, maxv = 0, maxt = 0, maxc = 0;
  size_t need;
  for (i = 0; i < cset->nconts; i++) {
    const int n = cset->conts[i].nverts;
    if (n < 3) continue;
    maxv += n;
    maxt += n - 2;
    maxc = nm_maxi(maxc, n);
  }
  need = (size_t)maxc * 8 + 16 + (size_t)maxv * 6 + (size_t)maxt * NVP * 4 + (size_t)maxt + (size_t)maxv * 3 + (size_t)maxc * (2 + 6 + NVP * 2) +
         ((size_t)maxv + (size_t)maxt * NVP) * 2 + (size_t)maxt * NVP * sizeof(ledge) + 256 +
         (size_t)maxv * 12 + (size_t)maxt * (NVP * 4 + 5) + 32; /* and the tile input (rebuild.c) */
  s->used = 0;
  if (nm_scratch_reserve(s, a, need) < 0) return NM_ERR_NOMEM;
  m->nverts = m->npolys = 0;
  m->max_verts = maxv;
  m->max_polys = maxt;
  m->verts = (uint16_t *)nm_scratch_take(s, (size_t)maxv * 6);
  m->polys = (uint16_t *)nm_scratch_take(s, (size_t)maxt * NVP * 4);
  m->areas = (uint8_t *)nm_scratch_take(s, (size_t)maxt);
  w->vflags = (uint8_t *)nm_scratch_take(s, (size_t)maxv + 1);
  w->nextv = (uint16_t *)nm_scratch_take(s, (size_t)maxv * 2);
  w->indices = (uint16_t *)nm_scratch_take(s, (size_t)maxc * 2);
  w->tris = (uint16_t *)nm_scratch_take(s, (size_t)maxc * 6);
  w->tpolys = (uint16_t *)nm_scratch_take(s, (size_t)maxc * NVP * 2);
  w->masks = (uint64_t *)nm_scratch_take(s, (size_t)maxc * 8 + 8);
  w->max_cont = maxc;
  if (maxv) {
    memset(m->polys, 0xff, (size_t)maxt * NVP * 4);
    memset(w->vflags, 0, (size_t)maxv + 1);
  }
  for (i = 0; i < VBUCKETS; i++) w->first[i] = NULL_IDX;
  return NM_OK;
}

nm_status nm_lmesh_build(const nm_lcontour_set *cset, nm_scratch *s, nm_scratch *ps, const nm_alloc *a,
                         nm_lmesh *m) {
  lwork w;
  nm_status st;
  int i;
  if ((st = mesh_layout(cset, s, a, m, &w)) < 0) return st;
  w.ps = ps;
  w.a = a;
  if (ps->size < sizeof(lpair) * ((size_t)w.max_cont * 4 + 16) &&
      nm_scratch_reserve(ps, a, sizeof(lpair) * ((size_t)w.max_cont * 4 + 16)) < 0)
    return NM_ERR_NOMEM;
  if (m->max_verts == 0) return NM_OK;
  for (i = 0; i < cset->nconts; i++) {
    if (cset->conts[i].nverts < 3) continue;
    if ((st = add_contour(m, &cset->conts[i], &w)) < 0) return st;
  }
  if ((st = remove_marked(m, &w)) < 0) return st;
  {
    uint16_t *first = (uint16_t *)nm_scratch_take(s, (size_t)m->nverts * 2 + 2);
    uint16_t *nexte = (uint16_t *)nm_scratch_take(s, (size_t)m->npolys * NVP * 2 + 2);
    ledge *edges = (ledge *)nm_scratch_take(s, (size_t)m->npolys * NVP * sizeof(ledge) + 2);
    if (!first || !nexte || !edges) return NM_ERR_NOMEM;
    build_adjacency(m, cset, edges, first, nexte);
  }
  return NM_OK;
}
