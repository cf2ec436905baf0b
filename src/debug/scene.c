/* scene.c -- everything a top-down picture of a navmesh needs, in flat
 * arrays (nm_debug_scene): the tiles, the polygons with their attributes
 * and vertices, the walls and the off-mesh connections, all of the mesh or
 * the part overlapping a box. Made in two passes (count, then fill) so each
 * array is one exact allocation. */
#include "nm_debug.h"
#include "../query/nm_query.h"

static int tile_in_box(const nm_tile *t, const float *bmin, const float *bmax) {
  return t->header && (!bmin || nm_overlap_bounds(t->header->bmin, t->header->bmax, bmin, bmax));
}

/* Wall parts of ground polygon p (the default filter's walls): appended to
 * walls [6 * n] when given; returns how many. */
static int poly_walls(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, const nm_filter *f,
                      float *walls) {
  float segs[6 * NM_EDGE_SEGS_MAX];
  int j, n = 0;
  for (j = 0; j < p->vert_count; j++) {
    int k = nm_edge_wall_parts(m, t, p, j, f, segs, NULL);
    if (walls) memcpy(&walls[n * 6], segs, (size_t)k * 6 * sizeof(float));
    n += k;
  }
  return n;
}

/* Pass one: how many of each thing the scene holds. */
static void count_scene(const nm_navmesh *m, const float *bmin, const float *bmax, const nm_filter *f,
                        nm_debug_scene *s) {
  int i, j;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!tile_in_box(t, bmin, bmax)) continue;
    s->ntiles++;
    for (j = 0; j < t->header->poly_count; j++) {
      const nm_poly *p = &t->polys[j];
      if (!nm_poly_in_box(t, p, bmin, bmax)) continue;
      s->npolys++;
      s->nverts += p->vert_count;
      if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) s->nlinks++;
      else s->nwalls += poly_walls(m, t, p, f, NULL);
    }
  }
}

/* The off-mesh connection record of polygon index ip of t (or NULL). */
static const nm_offmesh_con *offmesh_of(const nm_tile *t, int ip) {
  int k;
  for (k = 0; k < t->header->offmesh_con_count; k++)
    if (t->offmesh[k].poly == ip) return &t->offmesh[k];
  return NULL;
}

static void put_link(const nm_tile *t, int ip, nm_polyref ref, nm_debug_link *l) {
  const nm_offmesh_con *c = offmesh_of(t, ip);
  const nm_poly *p = &t->polys[ip];
  l->ref = ref;
  nm_vcopy(l->start, &t->verts[p->verts[0] * 3]);
  nm_vcopy(l->end, &t->verts[p->verts[1] * 3]);
  l->radius = c ? c->rad : 0;
  l->bidirectional = c ? (c->flags & NM_OFFMESH_BIDIR) != 0 : 0;
}

/* One polygon into the scene at the fill counters of s. */
static void put_poly(const nm_navmesh *m, const nm_tile *t, int ip, const nm_filter *f, nm_debug_scene *s) {
  const nm_poly *p = &t->polys[ip];
  nm_debug_poly *d = &s->polys[s->npolys++];
  nm_polyref ref = nm_tile_base(m, t) | (nm_polyref)ip;
  int j;
  d->ref = ref;
  d->island = nm_island_label(m, ref);
  d->first = (uint32_t)s->nverts;
  d->tile = s->ntiles - 1;
  d->flags = p->flags;
  d->area = (uint8_t)nm_poly_area(p);
  d->nverts = p->vert_count;
  d->offmesh = nm_poly_type(p) == NM_POLYTYPE_OFFMESH;
  for (j = 0; j < p->vert_count; j++) nm_vcopy(&s->verts[3 * s->nverts++], &t->verts[p->verts[j] * 3]);
  if (d->offmesh) put_link(t, ip, ref, &s->links[s->nlinks++]);
  else s->nwalls += poly_walls(m, t, p, f, &s->walls[6 * s->nwalls]);
}

/* Pass two: fills the arrays (counters restart from zero). */
static void fill_scene(const nm_navmesh *m, const float *bmin, const float *bmax, const nm_filter *f,
                       nm_debug_scene *s) {
  int i, j;
  s->ntiles = s->npolys = s->nverts = s->nwalls = s->nlinks = 0;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    nm_debug_tile *dt;
    if (!tile_in_box(t, bmin, bmax)) continue;
    dt = &s->tiles[s->ntiles++];
    dt->x = t->header->x;
    dt->y = t->header->y;
    dt->layer = t->header->layer;
    nm_vcopy(dt->bmin, t->header->bmin);
    nm_vcopy(dt->bmax, t->header->bmax);
    for (j = 0; j < t->header->poly_count; j++)
      if (nm_poly_in_box(t, &t->polys[j], bmin, bmax)) put_poly(m, t, j, f, s);
  }
}

void nm_debug_scene_free(const nm_navmesh *mesh, nm_debug_scene *s) {
  const nm_alloc *a;
  if (!mesh || !s) return;
  a = &mesh->alloc;
  nm_free(a, s->tiles, (size_t)s->ntiles * sizeof *s->tiles);
  nm_free(a, s->polys, (size_t)s->npolys * sizeof *s->polys);
  nm_free(a, s->verts, (size_t)s->nverts * 3 * sizeof(float));
  nm_free(a, s->walls, (size_t)s->nwalls * 6 * sizeof(float));
  nm_free(a, s->links, (size_t)s->nlinks * sizeof *s->links);
  memset(s, 0, sizeof *s);
}

/* Allocates each array for the counts in s; 0 when one failed (the others
 * are then freed and s emptied). */
static int alloc_scene(const nm_navmesh *m, nm_debug_scene *s) {
  const nm_alloc *a = &m->alloc;
  nm_debug_scene c = *s;
  s->tiles = (nm_debug_tile *)nm_malloc(a, (size_t)c.ntiles * sizeof *s->tiles);
  s->polys = (nm_debug_poly *)nm_malloc(a, (size_t)c.npolys * sizeof *s->polys);
  s->verts = (float *)nm_malloc(a, (size_t)c.nverts * 3 * sizeof(float));
  s->walls = (float *)nm_malloc(a, (size_t)c.nwalls * 6 * sizeof(float));
  s->links = (nm_debug_link *)nm_malloc(a, (size_t)c.nlinks * sizeof *s->links);
  if ((c.ntiles && !s->tiles) || (c.npolys && !s->polys) || (c.nverts && !s->verts) ||
      (c.nwalls && !s->walls) || (c.nlinks && !s->links)) {
    if (!s->tiles) s->ntiles = 0; /* free only what exists, with its size */
    if (!s->polys) s->npolys = 0;
    if (!s->verts) s->nverts = 0;
    if (!s->walls) s->nwalls = 0;
    if (!s->links) s->nlinks = 0;
    nm_debug_scene_free(m, s);
    return 0;
  }
  return 1;
}

nm_status nm_debug_scene_make(nm_navmesh *mesh, const float *bmin, const float *bmax,
                              nm_debug_scene *out) {
  nm_filter f;
  int i;
  if (!out) return NM_ERR_PARAM;
  memset(out, 0, sizeof *out);
  if (!mesh || (!bmin) != (!bmax)) return NM_ERR_PARAM;
  for (i = 0; bmin && i < 3; i++)
    if (bmin[i] != bmin[i] || bmax[i] != bmax[i]) return NM_ERR_PARAM;
  nm_filter_init(&f);
  nm_navmesh_island_count(mesh); /* labels made now if tiles changed */
  count_scene(mesh, bmin, bmax, &f, out);
  if (!alloc_scene(mesh, out)) return NM_ERR_NOMEM;
  fill_scene(mesh, bmin, bmax, &f, out);
  return NM_OK;
}
