/* chunky.c -- the chunky triangle partition of RecastDemo's tiled builds.
 *
 * The triangles are split into chunks of at most NM_CHUNK_TRIS by a 2-D
 * (X/Z) bounding-volume tree: a node's triangles are sorted along the longer
 * side of their box by the minimum of each triangle's box and cut in half
 * until a node holds few enough. Nodes are stored in pre-order with an escape
 * offset in inner nodes, so a tile finds the chunks overlapping its box in one
 * forward walk and rasterizes them chunk by chunk in tree order. The sort is
 * our own stable sort (glibc's qsort, which RecastDemo uses, merge sorts
 * such arrays): a radix sort on the float bits, which keeps the partition
 * independent of the C library and costs a few passes per tree level. */
#include "nm_input.h"

/* One triangle's X/Z box and its index. */
typedef struct chunk_item {
  float bmin[2], bmax[2];
  int i;
} chunk_item;

/* The recursion's shared state. */
typedef struct chunk_work {
  chunk_item *items, *tmp;
  const int *in_tris;
  nm_chunky *cm;
  int per_chunk, cur_tri;
} chunk_work;

/* Box of items [imin, imax). */
static void items_bounds(const chunk_item *items, int imin, int imax, float *bmin, float *bmax) {
  int i;
  bmin[0] = items[imin].bmin[0];
  bmin[1] = items[imin].bmin[1];
  bmax[0] = items[imin].bmax[0];
  bmax[1] = items[imin].bmax[1];
  for (i = imin + 1; i < imax; i++) {
    if (items[i].bmin[0] < bmin[0]) bmin[0] = items[i].bmin[0];
    if (items[i].bmin[1] < bmin[1]) bmin[1] = items[i].bmin[1];
    if (items[i].bmax[0] > bmax[0]) bmax[0] = items[i].bmax[0];
    if (items[i].bmax[1] > bmax[1]) bmax[1] = items[i].bmax[1];
  }
}

#define SORT_SMALL 64   /* insertion sort up to this many items */

/* Stable insertion sort of items[0..n) by bmin[axis]. */
static void insertion_sort(chunk_item *items, int n, int axis) {
  int i, j;
  for (i = 1; i < n; i++) {
    const chunk_item it = items[i];
    for (j = i; j > 0 && items[j - 1].bmin[axis] > it.bmin[axis]; j--) items[j] = items[j - 1];
    items[j] = it;
  }
}

/* Unsigned key that orders like the float (finite, -0 as +0): flip all
 * bits of negatives, the sign bit of the rest. */
static uint32_t sort_key(float f) {
  uint32_t u;
  f += 0.0f; /* -0 + 0 = +0: equal floats get equal keys */
  memcpy(&u, &f, sizeof u);
  return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

/* Stable sort of items[0..n) by bmin[axis] (what glibc's merge-sorting
 * qsort gives RecastDemo): a least-significant-digit radix sort on the key
 * bytes, each pass a stable scatter between items and tmp[0..n); passes
 * whose byte is the same for all items are skipped. */
static void sort_items(chunk_item *items, chunk_item *tmp, int n, int axis) {
  int count[4][256], pass, i;
  chunk_item *src = items, *dst = tmp, *t;
  if (n <= SORT_SMALL) {
    insertion_sort(items, n, axis);
    return;
  }
  memset(count, 0, sizeof count);
  for (i = 0; i < n; i++) {
    const uint32_t k = sort_key(items[i].bmin[axis]);
    for (pass = 0; pass < 4; pass++) count[pass][(k >> (8 * pass)) & 0xff]++;
  }
  for (pass = 0; pass < 4; pass++) {
    int sum = 0, b;
    if (count[pass][(sort_key(items[0].bmin[axis]) >> (8 * pass)) & 0xff] == n) continue;
    for (b = 0; b < 256; b++) { /* bucket starts */
      const int c = count[pass][b];
      count[pass][b] = sum;
      sum += c;
    }
    for (i = 0; i < n; i++) dst[count[pass][(sort_key(src[i].bmin[axis]) >> (8 * pass)) & 0xff]++] = src[i];
    t = src;
    src = dst;
    dst = t;
  }
  if (src != items) memcpy(items, src, sizeof *items * (size_t)n);
}

/* Builds the subtree over items [imin, imax) (pre-order). */
static void subdivide(chunk_work *w, int imin, int imax) {
  nm_chunky *cm = w->cm;
  const int n = imax - imin, icur = cm->nnodes;
  nm_chunk_node *node;
  if (cm->nnodes >= cm->cap_nodes) return;
  node = &cm->nodes[cm->nnodes++];
  items_bounds(w->items, imin, imax, node->bmin, node->bmax);
  if (n <= w->per_chunk) {
    int i;
    node->i = w->cur_tri;
    node->n = n;
    for (i = imin; i < imax; i++, w->cur_tri++)
      memcpy(&cm->tris[w->cur_tri * 3], &w->in_tris[w->items[i].i * 3], 3 * sizeof(int));
    if (n > cm->max_leaf_tris) cm->max_leaf_tris = n;
    return;
  }
  {
    const int axis = (node->bmax[1] - node->bmin[1]) > (node->bmax[0] - node->bmin[0]) ? 1 : 0;
    const int split = imin + n / 2;
    sort_items(w->items + imin, w->tmp, n, axis);
    subdivide(w, imin, split);
    subdivide(w, split, imax);
    /* the node pointer may not move: nodes is allocated once */
    cm->nodes[icur].i = -(cm->nnodes - icur);
    cm->nodes[icur].n = 0;
  }
}

/* X/Z box of every triangle. */
static void fill_items(chunk_item *items, const float *verts, const int *tris, int ntris) {
  int i, j;
  for (i = 0; i < ntris; i++) {
    const int *t = &tris[i * 3];
    chunk_item *it = &items[i];
    it->i = i;
    it->bmin[0] = it->bmax[0] = verts[t[0] * 3];
    it->bmin[1] = it->bmax[1] = verts[t[0] * 3 + 2];
    for (j = 1; j < 3; j++) {
      const float *v = &verts[t[j] * 3];
      if (v[0] < it->bmin[0]) it->bmin[0] = v[0];
      if (v[2] < it->bmin[1]) it->bmin[1] = v[2];
      if (v[0] > it->bmax[0]) it->bmax[0] = v[0];
      if (v[2] > it->bmax[1]) it->bmax[1] = v[2];
    }
  }
}

nm_status nm_chunky_build(const float *verts, const int *tris, int ntris, int per_chunk,
                          const nm_alloc *a, nm_chunky *cm) {
  const int nchunks = (ntris + per_chunk - 1) / per_chunk;
  chunk_work w;
  memset(cm, 0, sizeof *cm);
  cm->a = *a;
  if (ntris <= 0) return NM_OK;
  cm->cap_nodes = nchunks * 4;
  cm->nodes = (nm_chunk_node *)nm_calloc(a, nm_mul_size((size_t)cm->cap_nodes, sizeof *cm->nodes));
  cm->tris = (int *)nm_malloc(a, nm_mul_size((size_t)ntris, 3 * sizeof(int)));
  cm->ntris = ntris;
  memset(&w, 0, sizeof w);
  w.items = (chunk_item *)nm_malloc(a, nm_mul_size((size_t)ntris, sizeof *w.items));
  w.tmp = (chunk_item *)nm_malloc(a, nm_mul_size((size_t)ntris, sizeof *w.tmp));
  if (!cm->nodes || !cm->tris || !w.items || !w.tmp) {
    nm_free(a, w.items, (size_t)ntris * sizeof *w.items);
    nm_free(a, w.tmp, (size_t)ntris * sizeof *w.tmp);
    nm_chunky_free(cm);
    return NM_ERR_NOMEM;
  }
  fill_items(w.items, verts, tris, ntris);
  w.in_tris = tris;
  w.cm = cm;
  w.per_chunk = per_chunk;
  subdivide(&w, 0, ntris);
  nm_free(a, w.items, (size_t)ntris * sizeof *w.items);
  nm_free(a, w.tmp, (size_t)ntris * sizeof *w.tmp);
  return NM_OK;
}

void nm_chunky_free(nm_chunky *cm) {
  nm_free(&cm->a, cm->nodes, (size_t)cm->cap_nodes * sizeof *cm->nodes);
  nm_free(&cm->a, cm->tris, (size_t)cm->ntris * 3 * sizeof(int));
  cm->nodes = NULL;
  cm->tris = NULL;
  cm->nnodes = cm->cap_nodes = cm->ntris = 0;
}

/* 1 when the X/Z boxes a and b overlap (touching counts). */
static int rect_overlap(const float *amin, const float *amax, const float *bmin, const float *bmax) {
  return !(amin[0] > bmax[0] || amax[0] < bmin[0] || amin[1] > bmax[1] || amax[1] < bmin[1]);
}

int nm_chunky_overlapping(const nm_chunky *cm, const float bmin[2], const float bmax[2], int *ids, int cap) {
  int i = 0, n = 0;
  while (i < cm->nnodes) {
    const nm_chunk_node *node = &cm->nodes[i];
    const int overlap = rect_overlap(bmin, bmax, node->bmin, node->bmax);
    const int leaf = node->i >= 0;
    if (leaf && overlap) {
      if (n < cap) ids[n] = i;
      n++;
    }
    i += (overlap || leaf) ? 1 : -node->i;
  }
  return n;
}
