/* islands.c -- connected components ("islands") of the polygon graph.
 *
 * Union-find over every link, treating links as undirected, gives each
 * polygon an island label; labels are then renumbered 1..n in polygon order
 * (tiles by slot, polygons by index), so they are deterministic. Two polygons
 * with different labels can never be joined by a path, whatever the filter:
 * isReachable answers in O(1), findPath's reachableOnly gives up at once, and
 * the optimal search skips the search that would find out (optimal.c).
 *
 * The labels are one block (nm_islands) that making them never writes into
 * the tiles. A mutable mesh remakes them on first use after a change. A
 * version (version.c) is published without them, since making them is
 * linear in the mesh; the first reader that asks makes them and installs
 * the block with a compare-and-swap, so readers on other threads either see
 * no block or a whole one (a loser of the race frees its own). */
#include "nm_mesh.h"

/* The mesh's label block (acquire: a block seen is a block complete). */
static nm_islands *islands_get(const nm_navmesh *m) {
  return __atomic_load_n(&m->islands, __ATOMIC_ACQUIRE);
}

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

/* Frees a label block. */
static void islands_drop(const nm_navmesh *m, nm_islands *isl) {
  if (isl) nm_free(&m->alloc, isl, isl->bytes);
}

void nm_islands_free(nm_navmesh *m) {
  islands_drop(m, m->islands);
  m->islands = NULL;
}

/* Polygon total of the mesh. */
static size_t count_polys(const nm_navmesh *m) {
  size_t n = 0;
  int i;
  for (i = 0; i < m->top; i++)
    if (m->tiles[i].header) n += (size_t)m->tiles[i].header->poly_count;
  return n;
}

/* Unions every polygon with every polygon it links to. */
static void union_links(const nm_navmesh *m, const uint32_t *base, uint32_t *parent) {
  int i, j;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    for (j = 0; j < t->header->poly_count; j++) {
      uint32_t k;
      for (k = t->polys[j].first_link; k != NM_NULL_LINK; k = t->links[k].next) {
        const nm_polyref r = t->links[k].ref;
        if (m->tiles[nm_ref_tile(m, r)].header)
          uf_union(parent, base[i] + (uint32_t)j, base[nm_ref_tile(m, r)] + nm_ref_poly(m, r));
      }
    }
  }
}

/* A new label block for m, made without writing to m; NULL out of memory. */
static nm_islands *islands_make(const nm_navmesh *m) {
  const size_t n = count_polys(m), head = (sizeof(nm_islands) + 7) & ~(size_t)7;
  const size_t bytes = head + ((size_t)m->top + n) * sizeof(uint32_t);
  nm_islands *isl = (nm_islands *)nm_malloc(&m->alloc, bytes);
  uint32_t *lab, next = 0, sum = 0;
  size_t i;
  if (!isl) return NULL;
  isl->bytes = bytes;
  isl->nslots = m->top;
  isl->base = (uint32_t *)((uint8_t *)isl + head);
  isl->label = lab = isl->base + m->top;
  for (i = 0; i < (size_t)m->top; i++) {
    isl->base[i] = sum;
    if (m->tiles[i].header) sum += (uint32_t)m->tiles[i].header->poly_count;
  }
  for (i = 0; i < n; i++) lab[i] = (uint32_t)i;
  union_links(m, isl->base, lab);
  /* every polygon points straight at its root, the smallest index of its
   * set; one forward pass then turns roots into labels 1, 2, ... and the
   * others copy their root's label, which is already written */
  for (i = 0; i < n; i++) lab[i] = uf_find(lab, (uint32_t)i);
  for (i = 0; i < n; i++) lab[i] = lab[i] == i ? ++next : lab[lab[i]];
  isl->count = (int)next;
  return isl;
}

nm_status nm_islands_update(nm_navmesh *m) {
  nm_islands *isl = islands_make(m);
  if (!isl) return NM_ERR_NOMEM;
  nm_islands_free(m);
  __atomic_store_n(&m->islands, isl, __ATOMIC_RELEASE);
  m->islands_dirty = 0;
  return NM_OK;
}

/* The labels of a version, made and installed by whoever asks first. */
static nm_islands *islands_shared(nm_navmesh *m) {
  nm_islands *isl = islands_get(m), *none = NULL;
  if (isl) return isl;
  if (!(isl = islands_make(m))) return NULL;
  if (__atomic_compare_exchange_n(&m->islands, &none, isl, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return isl;
  islands_drop(m, isl); /* another thread installed its block first */
  return none;
}

/* Up-to-date labels of m, made now where that is allowed: a mutable mesh
 * (used by one thread) or a version; NULL when they cannot be had. */
static nm_islands *islands_current(nm_navmesh *m) {
  if (!m->frozen) {
    if ((m->islands_dirty || !m->islands) && nm_islands_update(m) < 0) return NULL;
    return m->islands;
  }
  if (m->lineage) return islands_shared(m);
  return m->islands_dirty ? NULL : islands_get(m);
}

uint32_t nm_island_label(const nm_navmesh *m, nm_polyref ref) {
  const nm_islands *isl = islands_get(m);
  const nm_tile *t;
  const nm_poly *p;
  if (m->islands_dirty || !isl || !nm_ref_get(m, ref, &t, &p)) return 0;
  return isl->label[isl->base[t - m->tiles] + (uint32_t)(p - t->polys)];
}

uint32_t nm_navmesh_island(nm_navmesh *m, nm_polyref ref) {
  if (!islands_current(m)) return 0;
  return nm_island_label(m, ref);
}

int nm_navmesh_is_reachable(nm_navmesh *m, nm_polyref a, nm_polyref b) {
  uint32_t ia = nm_navmesh_island(m, a);
  return ia != 0 && ia == nm_navmesh_island(m, b);
}

int nm_navmesh_island_count(nm_navmesh *m) {
  const nm_islands *isl = islands_current(m);
  return isl ? isl->count : 0;
}
