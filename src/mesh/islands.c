/* islands.c -- connected components ("islands") of the polygon graph.
 *
 * Union-find over every link, treating links as undirected, gives each
 * polygon an island label; labels are then renumbered 1..n in polygon order
 * (tiles by slot, polygons by index), so they are deterministic. Two polygons
 * with different labels can never be joined by a path, whatever the filter:
 * isReachable answers in O(1), findPath's reachableOnly gives up at once, and
 * the optimal search skips the search that would find out (optimal.c). */
#include "nm_mesh.h"

/* Root of x with path halving. */
static uint32_t uf_find(uint32_t *parent, uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

/* Joins the sets of a and b (the smaller index becomes the root). */
static void uf_union(uint32_t *parent, uint32_t a, uint32_t b) {
  a = uf_find(parent, a);
  b = uf_find(parent, b);
  if (a < b) parent[b] = a;
  else if (b < a) parent[a] = b;
}

void nm_islands_free(nm_navmesh *m) {
  nm_free(&m->alloc, m->islands, m->islands_len * sizeof(uint32_t));
  m->islands = NULL;
  m->islands_len = 0;
  m->island_count = 0;
}

/* Gives every present tile its base index; returns the polygon total. */
static size_t assign_bases(nm_navmesh *m) {
  size_t n = 0;
  int i;
  for (i = 0; i < m->top; i++) {
    nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    t->island_base = (uint32_t)n;
    n += (size_t)t->header->poly_count;
  }
  return n;
}

/* Unions every polygon with every polygon it links to. */
static void union_links(const nm_navmesh *m, uint32_t *parent) {
  int i, j;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    for (j = 0; j < t->header->poly_count; j++) {
      uint32_t k;
      for (k = t->polys[j].first_link; k != NM_NULL_LINK; k = t->links[k].next) {
        const nm_tile *nt = &m->tiles[nm_ref_tile(m, t->links[k].ref)];
        if (nt->header) uf_union(parent, t->island_base + (uint32_t)j, nt->island_base + nm_ref_poly(m, t->links[k].ref));
      }
    }
  }
}

nm_status nm_islands_update(nm_navmesh *m) {
  size_t n = assign_bases(m), i;
  uint32_t *lab, next = 0;
  if (n != m->islands_len) {
    nm_islands_free(m);
    if (n && !(m->islands = (uint32_t *)nm_malloc(&m->alloc, n * sizeof(uint32_t)))) return NM_ERR_NOMEM;
    m->islands_len = n;
  }
  lab = m->islands;
  for (i = 0; i < n; i++) lab[i] = (uint32_t)i;
  union_links(m, lab);
  /* every polygon points straight at its root, the smallest index of its
   * set; one forward pass then turns roots into labels 1, 2, ... and the
   * others copy their root's label, which is already written */
  for (i = 0; i < n; i++) lab[i] = uf_find(lab, (uint32_t)i);
  for (i = 0; i < n; i++) lab[i] = lab[i] == i ? ++next : lab[lab[i]];
  m->island_count = (int)next;
  m->islands_dirty = 0;
  return NM_OK;
}

uint32_t nm_island_label(const nm_navmesh *m, nm_polyref ref) {
  const nm_tile *t;
  const nm_poly *p;
  if (m->islands_dirty || !m->islands || !nm_ref_get(m, ref, &t, &p)) return 0;
  return m->islands[t->island_base + (uint32_t)(p - t->polys)];
}

uint32_t nm_navmesh_island(nm_navmesh *m, nm_polyref ref) {
  if (m->islands_dirty && !m->frozen && nm_islands_update(m) < 0) return 0;
  return nm_island_label(m, ref);
}

int nm_navmesh_is_reachable(nm_navmesh *m, nm_polyref a, nm_polyref b) {
  uint32_t ia = nm_navmesh_island(m, a);
  return ia != 0 && ia == nm_navmesh_island(m, b);
}

int nm_navmesh_island_count(nm_navmesh *m) {
  if (m->islands_dirty && !m->frozen) nm_islands_update(m);
  return m->island_count;
}
