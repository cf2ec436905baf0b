/* test_polymerge.c -- greedy merging of triangles into convex polygons
 * (nm_polymesh_merge in polymesh.c) on large hand-made triangle sets: a
 * long thin strip, a fan, triangulated grids (many equal edges, so the tie
 * rule decides), shuffled orders and degenerate sets where many triangles
 * share one edge. Each result is compared with a plain O(n^3) reference
 * written here from the rule itself: every round, over all pairs j < k,
 * take the largest squared length of a shared edge whose merge stays
 * convex and within nvp corners (the first such pair in (j, k) order on
 * ties), join k into j, move the last polygon into slot k. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "track_alloc.h"
#include "poly/nm_poly.h"

#define NUL 0xffff
#define MAXP 2600
#define NVP 6

/* A triangle set: mesh vertices (x, y, z) and polygon records (nvp slots,
 * NUL padded; one spare record for the merge's scratch). */
typedef struct set {
  uint16_t verts[3 * 4096];
  int nverts;
  uint16_t polys[(MAXP + 1) * NVP];
  uint16_t regs[MAXP + 1], areas[MAXP + 1];
  int n;
} set;

static unsigned rng_state = 12345u;
static int rnd(int m) {
  rng_state = rng_state * 1103515245u + 12345u;
  return (int)((rng_state >> 16) % (unsigned)m);
}

static int add_vert(set *s, int x, int z) {
  s->verts[s->nverts * 3] = (uint16_t)x;
  s->verts[s->nverts * 3 + 1] = 7;
  s->verts[s->nverts * 3 + 2] = (uint16_t)z;
  return s->nverts++;
}

static long area2(const set *s, int a, int b, int c) {
  const uint16_t *p = &s->verts[a * 3], *q = &s->verts[b * 3], *r = &s->verts[c * 3];
  return ((long)q[0] - p[0]) * ((long)r[2] - p[2]) - ((long)r[0] - p[0]) * ((long)q[2] - p[2]);
}

/* Adds triangle abc wound the mesh's way (area2 < 0), region reg. */
static void add_tri(set *s, int a, int b, int c, int reg) {
  uint16_t *p = &s->polys[s->n * NVP];
  int i;
  if (area2(s, a, b, c) > 0) { const int t = b; b = c; c = t; }
  for (i = 0; i < NVP; i++) p[i] = NUL;
  p[0] = (uint16_t)a; p[1] = (uint16_t)b; p[2] = (uint16_t)c;
  s->regs[s->n] = (uint16_t)reg;
  s->areas[s->n] = (uint16_t)(1 + s->n % 5);
  s->n++;
}

/* ---- the reference ---- */

/* Corners of polygon record p. */
static int corners(const uint16_t *p, int nvp) {
  int n = 0;
  while (n < nvp && p[n] != NUL) n++;
  return n;
}

/* c strictly left of a->b in the mesh's sense. */
static int left(const set *s, int a, int b, int c) { return area2(s, a, b, c) < 0; }

/* Value of merging record A into record B (A first): -1 when impossible.
 * The shared edge is the first edge of A, in A's order, that B also has;
 * *ia / *ib name where it starts in each. */
static long ref_value(const set *s, const uint16_t *A, const uint16_t *B, int nvp, int *ia, int *ib) {
  const int na = corners(A, nvp), nb = corners(B, nvp);
  int i, j, found = 0;
  long dx, dz;
  if (na + nb - 2 > nvp) return -1;
  for (i = 0; i < na && !found; i++) {
    const int a0 = A[i], a1 = A[i + 1 < na ? i + 1 : 0];
    for (j = 0; j < nb && !found; j++) {
      const int b0 = B[j], b1 = B[j + 1 < nb ? j + 1 : 0];
      if ((a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0)) { *ia = i; *ib = j; found = 1; }
    }
  }
  if (!found) return -1;
  /* the corners on both ends of the edge must stay strictly convex */
  if (!left(s, A[(*ia + na - 1) % na], A[*ia], B[(*ib + 2) % nb])) return -1;
  if (!left(s, B[(*ib + nb - 1) % nb], B[*ib], A[(*ia + 2) % na])) return -1;
  dx = (long)s->verts[A[*ia] * 3] - s->verts[A[(*ia + 1) % na] * 3];
  dz = (long)s->verts[A[*ia] * 3 + 2] - s->verts[A[(*ia + 1) % na] * 3 + 2];
  return dx * dx + dz * dz;
}

/* The O(n^3) greedy loop on s (polys, regs, areas updated in place). */
static void ref_merge(set *s, int nvp) {
  for (;;) {
    long best = 0;
    int bj = -1, bk = -1, bia = 0, bib = 0, j, k, ia, ib, na, nb, m = 0, i;
    uint16_t out[NVP];
    for (j = 0; j < s->n; j++)
      for (k = j + 1; k < s->n; k++) {
        const long v = ref_value(s, &s->polys[j * NVP], &s->polys[k * NVP], nvp, &ia, &ib);
        if (v > best) { best = v; bj = j; bk = k; bia = ia; bib = ib; }
      }
    if (bj < 0) return;
    /* walk A from the end of the shared edge back to its start, then B */
    na = corners(&s->polys[bj * NVP], nvp);
    nb = corners(&s->polys[bk * NVP], nvp);
    for (i = 0; i < NVP; i++) out[i] = NUL;
    for (i = 1; i < na; i++) out[m++] = s->polys[bj * NVP + (bia + i) % na];
    for (i = 1; i < nb; i++) out[m++] = s->polys[bk * NVP + (bib + i) % nb];
    memcpy(&s->polys[bj * NVP], out, sizeof out);
    if (s->regs[bj] != s->regs[bk]) s->regs[bj] = 0;
    s->n--;
    if (bk != s->n) {
      memcpy(&s->polys[bk * NVP], &s->polys[s->n * NVP], sizeof out);
      s->regs[bk] = s->regs[s->n];
      s->areas[bk] = s->areas[s->n];
    }
  }
}

/* ---- triangle sets ---- */

/* A thin strip along x: two slightly wavy rows of vertices with uneven
 * spacing, zigzag triangles; regions change every 37 triangles. */
static void make_strip(set *s, int ntris) {
  int top[2048], bot[2048], i, x = 0, nt = 0;
  memset(s, 0, sizeof *s);
  for (i = 0; i <= ntris / 2 + 1; i++) {
    top[i] = add_vert(s, x + rnd(3), 12 + rnd(3));
    bot[i] = add_vert(s, x + rnd(3), rnd(3));
    x += 3 + rnd(5);
  }
  for (i = 0; nt < ntris; i++) {
    add_tri(s, bot[i], top[i], bot[i + 1], (nt / 37) + 1);
    if (++nt < ntris) add_tri(s, top[i], top[i + 1], bot[i + 1], (nt / 37) + 1), nt++;
  }
}

/* A fan: ntris triangles from a centre to a ring of corners on a circle
 * (rounded to the grid, so not every merge stays convex). */
static void make_fan(set *s, int ntris) {
  int i, c, first = -1, prev = -1;
  memset(s, 0, sizeof *s);
  c = add_vert(s, 20000, 20000);
  for (i = 0; i < ntris; i++) {
    const double t = 6.283185307179586 * i / ntris;
    const int v = add_vert(s, 20000 + (int)lround(9000.0 * cos(t)), 20000 + (int)lround(9000.0 * sin(t)));
    if (prev >= 0) add_tri(s, c, prev, v, 1 + i / 50);
    else first = v;
    prev = v;
  }
  add_tri(s, c, prev, first, 1);
}

/* A k x k grid of unit-ish squares, each cut along one diagonal (equal
 * edges everywhere: the tie rule decides the merges). */
static void make_grid(set *s, int k, int cell, int mixed) {
  int x, z;
  memset(s, 0, sizeof *s);
  for (z = 0; z <= k; z++)
    for (x = 0; x <= k; x++) add_vert(s, x * cell, z * cell);
  for (z = 0; z < k; z++)
    for (x = 0; x < k; x++) {
      const int a = z * (k + 1) + x, b = a + 1, c = a + k + 1, d = c + 1;
      const int reg = 1 + (x / 5 + z / 7) % 3;
      if (mixed && (x + z) % 3 == 0) { add_tri(s, a, b, d, reg); add_tri(s, a, d, c, reg); }
      else { add_tri(s, a, b, c, reg); add_tri(s, b, d, c, reg); }
    }
}

/* Many triangles on one edge (a book): apexes on both sides, some
 * repeated, plus a small grid beside it. Every page pair shares the
 * spine, so the live pairs far outnumber the triangles. */
static void make_book(set *s, int pages) {
  int a, b, i;
  make_grid(s, 6, 9, 1);
  a = add_vert(s, 1000, 1000);
  b = add_vert(s, 1000, 1100);
  for (i = 0; i < pages; i++) {
    const int side = i % 2 ? 1 : -1, apex = add_vert(s, 1000 + side * (5 + rnd(300)), 1000 + rnd(100));
    add_tri(s, a, b, apex, 1 + i % 2);
    if (i % 7 == 0) add_tri(s, a, b, apex, 3); /* the same triangle twice */
  }
}

/* Reorders the triangles at random (the tie rule then picks others). */
static void shuffle(set *s) {
  int i;
  for (i = s->n - 1; i > 0; i--) {
    const int j = rnd(i + 1);
    uint16_t t[NVP], r = s->regs[i], ar = s->areas[i];
    memcpy(t, &s->polys[i * NVP], sizeof t);
    memcpy(&s->polys[i * NVP], &s->polys[j * NVP], sizeof t);
    memcpy(&s->polys[j * NVP], t, sizeof t);
    s->regs[i] = s->regs[j]; s->regs[j] = r;
    s->areas[i] = s->areas[j]; s->areas[j] = ar;
  }
}

/* ---- comparison ---- */

static set g_in, g_ref, g_out;

/* Merges g_in with method how and nvp, and checks it equals the reference
 * (records, regions, areas); returns the merged count (-1 on mismatch). */
static int check_method(int how, int nvp) {
  nm_alloc a;
  track t;
  int np, i, same = 1;
  memset(&t, 0, sizeof t);
  a.fn = track_fn;
  a.ud = &t;
  g_out = g_in;
  /* the library's records are nvp wide: repack the NVP-wide ones */
  for (i = 0; i < g_in.n; i++) memmove(&g_out.polys[i * nvp], &g_in.polys[i * NVP], sizeof(uint16_t) * (size_t)nvp);
  np = g_in.n;
  CHECK(nm_polymesh_merge(g_out.polys, &np, g_out.regs, g_out.areas, g_out.verts, nvp, how, &a) == NM_OK);
  CHECK(t.live == 0 && t.bad_sizes == 0);
  same = np == g_ref.n;
  for (i = 0; same && i < np; i++) {
    same = memcmp(&g_out.polys[i * nvp], &g_ref.polys[i * NVP], sizeof(uint16_t) * (size_t)nvp) == 0 &&
           g_out.regs[i] == g_ref.regs[i] && g_out.areas[i] == g_ref.areas[i];
    if (!same) printf("#   method %d nvp %d: polygon %d differs\n", how, nvp, i);
  }
  CHECK(same);
  return same ? np : -1;
}

/* Runs the reference on g_in and every method against it. */
static void check_all(const char *what, int nvp) {
  int i, np;
  g_ref = g_in;
  for (i = 0; i < g_in.n; i++) {
    int k;
    for (k = nvp; k < NVP; k++) g_ref.polys[i * NVP + k] = NUL;
  }
  ref_merge(&g_ref, nvp);
  CHECK(g_ref.n < g_in.n); /* the set does merge */
  np = check_method(NM_PM_MERGE_INCIDENCE, nvp);
  CHECK(check_method(NM_PM_MERGE_AUTO, nvp) == np);
  if (g_in.n <= 200) CHECK(check_method(NM_PM_MERGE_SCAN, nvp) == np); /* as slow as the reference */
  printf("# %s nvp %d: %d triangles -> %d polygons\n", what, nvp, g_in.n, g_ref.n);
}

TEST(strip_matches_reference) {
  make_strip(&g_in, 400);
  check_all("strip", 6);
  make_strip(&g_in, 300);
  check_all("strip", 4);
}

TEST(fan_matches_reference) {
  make_fan(&g_in, 300);
  check_all("fan", 6);
  make_fan(&g_in, 200);
  check_all("fan", 5);
}

TEST(grid_ties_match_reference) {
  make_grid(&g_in, 14, 4, 0);
  check_all("grid", 6);
  make_grid(&g_in, 12, 3, 1);
  shuffle(&g_in);
  check_all("shuffled grid", 6);
  make_grid(&g_in, 10, 5, 1);
  shuffle(&g_in);
  check_all("shuffled grid", 4);
}

TEST(shared_edges_match_reference) {
  make_book(&g_in, 90);
  check_all("book", 6);
  shuffle(&g_in);
  check_all("shuffled book", 6);
}

/* Every allocation of the incidence merge fails in turn: NM_ERR_NOMEM,
 * nothing leaks, sizes match; then it succeeds. */
TEST(alloc_failure) {
  nm_alloc a;
  track t;
  long n, fails = 0;
  int np;
  nm_status st = NM_ERR_NOMEM;
  make_book(&g_in, 90); /* enough live pairs to make the heap grow */
  a.fn = track_fn;
  for (n = 1; st == NM_ERR_NOMEM && n < 100; n++) {
    memset(&t, 0, sizeof t);
    t.fail_at = n;
    a.ud = &t;
    g_out = g_in;
    np = g_in.n;
    st = nm_polymesh_merge(g_out.polys, &np, g_out.regs, g_out.areas, g_out.verts, NVP, NM_PM_MERGE_INCIDENCE, &a);
    CHECK(st == NM_OK || st == NM_ERR_NOMEM);
    CHECK(t.live == 0 && t.bad_sizes == 0);
    fails += st == NM_ERR_NOMEM;
  }
  CHECK(st == NM_OK);
  CHECK(fails >= 4); /* three blocks, then at least one growth */
  printf("# %ld allocation points failed cleanly\n", fails);
}

int main(void) {
  RUN(strip_matches_reference);
  RUN(fan_matches_reference);
  RUN(grid_ties_match_reference);
  RUN(shared_edges_match_reference);
  RUN(alloc_failure);
  return tap_done();
}
