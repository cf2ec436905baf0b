/* rebuild.c -- the navmesh tile of one layer: decompress, stamp obstacles,
 * regions, contours, polygon mesh, tile blob, and the swap in the navmesh
 * (Detour's dtTileCache::buildNavMeshTile).
 *
 * The tile is made like Detour's dtCreateNavMeshData makes tile-cache
 * tiles: vertices on the layer lattice (bmin + i * cs), the layer header's
 * bounds, no detail mesh (each polygon gets the fan of its own vertices),
 * no BV tree, areas and flags from the cache's rules. The old tile is only
 * removed once the new one is complete, and adding the new one needs no
 * allocation, so a failure leaves the navmesh as it was. */
#include "nm_cache.h"

nm_status nm_cache_scratch_init(nm_cache *c) {
  const int w = c->p.width, h = c->p.height;
  const size_t need = nm_align4((size_t)w * (size_t)h * 4) + nm_align4(nm_lregion_scratch(w)) +
                      nm_lcontour_scratch(w, h) + 128;
  return nm_scratch_reserve(&c->sa, &c->alloc, need);
}

/* Sets up the grid views over the first scratch and decompresses l. */
static nm_status grid_load(nm_cache *c, const nm_clayer *l, nm_lgrid *g, nm_diag *diag) {
  const size_t cells = (size_t)c->p.width * (size_t)c->p.height;
  c->sa.used = 0;
  g->w = c->p.width;
  g->hgt = c->p.height;
  g->heights = (uint8_t *)nm_scratch_take(&c->sa, cells * 4);
  g->areas = g->heights + cells;
  g->cons = g->areas + cells;
  g->regs = g->cons + cells;
  g->nregs = 0;
  return nm_layer_decompress(l->data, l->size, g, diag);
}

/* Stamps every live obstacle whose touched list holds ref, in slot order. */
static void stamp_all(nm_cache *c, nm_lgrid *g, uint32_t ref) {
  int i, j;
  for (i = 0; i < c->ob_top; i++) {
    const nm_cobstacle *o = &c->obs[i];
    if (o->state == NM_OB_EMPTY || o->state == NM_OB_REMOVING) continue;
    for (j = 0; j < o->ntouched; j++)
      if (o->touched[j] == ref) {
        nm_stamp_obstacle(g, c, o);
        break;
      }
  }
}

/* Twice the X/Z area of layer polygon p (lattice coordinates, exact). */
static int lattice_area2(const nm_lmesh *m, const uint16_t *p) {
  int j, a = 0;
  const uint16_t *o = &m->verts[p[0] * 3];
  for (j = 2; j < NM_LAYER_NVP && p[j] != NM_LAYER_NULL_IDX; j++) {
    const uint16_t *u = &m->verts[p[j - 1] * 3], *v = &m->verts[p[j] * 3];
    a += ((int)u[0] - o[0]) * ((int)v[2] - o[2]) - ((int)v[0] - o[0]) * ((int)u[2] - o[2]);
  }
  return a;
}

/* Drops polygons without area (slivers a thin cut can leave; Detour would
 * store them, a Detour tile must not have them): later polygons move down,
 * neighbour slots follow, slots to a dropped polygon become walls. Returns
 * the polygons kept. */
static int drop_slivers(nm_lmesh *m, uint16_t *remap) {
  const int stride = NM_LAYER_NVP * 2;
  int i, j, n = 0;
  for (i = 0; i < m->npolys; i++) remap[i] = lattice_area2(m, &m->polys[i * stride]) ? (uint16_t)n++ : 0xffff;
  if (n == m->npolys) return n;
  for (i = 0; i < m->npolys; i++) {
    uint16_t *p = &m->polys[i * stride];
    if (remap[i] == 0xffff) continue;
    for (j = 0; j < NM_LAYER_NVP; j++)
      if (p[NM_LAYER_NVP + j] < 0x8000) p[NM_LAYER_NVP + j] = remap[p[NM_LAYER_NVP + j]];
    memmove(&m->polys[remap[i] * stride], p, sizeof(uint16_t) * (size_t)stride);
    m->areas[remap[i]] = m->areas[i];
  }
  m->npolys = n;
  return n;
}

/* The tile input of a layer mesh, arrays taken from the mesh scratch. */
static nm_status tile_input(nm_cache *c, const nm_lgrid *g, const nm_lmesh *m, nm_poly_mesh_input *in) {
  const int np = m->npolys, nv = m->nverts;
  const float cs = c->p.cell_size, ch = c->p.cell_height, *o = g->h.bmin;
  float *v = (float *)nm_scratch_take(&c->sb, sizeof(float) * 3 * (size_t)nv);
  uint16_t *polys = (uint16_t *)nm_scratch_take(&c->sb, sizeof(uint16_t) * NM_LAYER_NVP * 2 * (size_t)np);
  uint8_t *areas = (uint8_t *)nm_scratch_take(&c->sb, (size_t)np);
  uint16_t *flags = (uint16_t *)nm_scratch_take(&c->sb, sizeof(uint16_t) * (size_t)np);
  int i, j;
  if (!v || !polys || !areas || !flags) return NM_ERR_NOMEM;
  for (i = 0; i < nv; i++) {
    const uint16_t *iv = &m->verts[i * 3];
    v[i * 3] = o[0] + (float)iv[0] * cs;
    v[i * 3 + 1] = o[1] + (float)iv[1] * ch;
    v[i * 3 + 2] = o[2] + (float)iv[2] * cs;
  }
  for (i = 0; i < np; i++) {
    for (j = 0; j < NM_LAYER_NVP; j++) {
      polys[i * NM_LAYER_NVP + j] = m->polys[i * NM_LAYER_NVP * 2 + j];
      polys[(np + i) * NM_LAYER_NVP + j] = m->polys[i * NM_LAYER_NVP * 2 + NM_LAYER_NVP + j];
    }
    areas[i] = c->rules.poly_area[m->areas[i] & 63];
    flags[i] = c->rules.poly_flags[m->areas[i] & 63];
  }
  memset(in, 0, sizeof *in);
  in->verts = v;
  in->nverts = nv;
  in->polys = polys;
  in->neis = polys + (size_t)np * NM_LAYER_NVP;
  in->npolys = np;
  in->nvp = NM_LAYER_NVP;
  in->areas = areas;
  in->flags = flags;
  in->tile_x = g->h.tx;
  in->tile_y = g->h.ty;
  in->tile_layer = g->h.tlayer;
  nm_vcopy(in->bmin, g->h.bmin);
  nm_vcopy(in->bmax, g->h.bmax);
  in->walkable_height = c->p.walkable_height;
  in->walkable_radius = c->p.walkable_radius;
  in->walkable_climb = c->p.walkable_climb;
  in->cell_size = cs;
  return NM_OK;
}

/* Replaces the navmesh tile of the layer by blob (NULL: no tile). The mesh
 * takes the blob; on failure nothing changed and the caller frees it. */
static nm_status swap_tile(nm_cache *c, const nm_layer_header *h, uint8_t *blob, size_t size, nm_diag *diag) {
  nm_navmesh *m = c->mesh;
  const int had = nm_navmesh_tile_at(m, h->tx, h->ty, h->tlayer) != NULL;
  if (m->frozen) return nm_diag_set(diag, NM_ERR_READONLY, NULL, "navmesh is shared (read-only)");
  if (blob && ((const nm_tile_header *)blob)->poly_count > (int32_t)m->poly_mask + 1)
    return nm_diag_set(diag, NM_ERR_DATA, "polyCount", "layer (%d, %d, %d) gives %d polygons, the navmesh allows %d",
                       (int)h->tx, (int)h->ty, (int)h->tlayer, (int)((const nm_tile_header *)blob)->poly_count,
                       m->max_polys);
  if (blob && !had && !m->free_stack && m->hwm >= m->max_tiles)
    return nm_diag_set(diag, NM_ERR_FULL, "maxTiles", "no free navmesh tile slot");
  if (m->lineage) /* a draft of a version (nm_cache_use_versions): copy-on-write */
    return nm_navmesh_swap_tile_owned(m, h->tx, h->ty, h->tlayer, blob, size, diag);
  if (had) nm_navmesh_remove_tile(m, h->tx, h->ty, h->tlayer, NULL, NULL);
  return blob ? nm_navmesh_add_tile_owned(m, blob, size, diag, NULL) : NM_OK;
}

nm_status nm_cache_rebuild(nm_cache *c, nm_clayer *l, nm_diag *diag) {
  nm_lgrid g;
  nm_lcontour_set cset;
  nm_lmesh mesh;
  nm_poly_mesh_input in;
  nm_status st;
  void *blob = NULL;
  size_t size = 0;
  void *rwork;
  if ((st = grid_load(c, l, &g, diag)) < 0) return st;
  stamp_all(c, &g, nm_cache_layer_ref(c, l));
  rwork = nm_scratch_take(&c->sa, nm_lregion_scratch(g.w));
  if ((st = nm_lregion_build(&g, c->walk_climb, rwork)) < 0)
    return nm_diag_set(diag, st, "regions", "layer (%d, %d, %d) has more than 255 regions", (int)g.h.tx, (int)g.h.ty,
                       (int)g.h.tlayer);
  if ((st = nm_lcontour_build(&g, c->walk_climb, c->p.max_simplification_error, &c->sa, &cset)) < 0) return st;
  if ((st = nm_lmesh_build(&cset, &c->sb, &c->sp, &c->alloc, &mesh)) < 0) return st;
  if (mesh.npolys > 0) {
    uint16_t *remap = (uint16_t *)nm_scratch_take(&c->sb, sizeof(uint16_t) * (size_t)mesh.npolys);
    if (!remap) return NM_ERR_NOMEM;
    drop_slivers(&mesh, remap);
  }
  if (mesh.npolys > 0) {
    if ((st = tile_input(c, &g, &mesh, &in)) < 0) return st;
    if ((st = nm_tile_create(&in, &c->mesh->alloc, diag, &blob, &size)) < 0)
      return st == NM_ERR_NOMEM ? st : NM_ERR_DATA;
  }
  if ((st = swap_tile(c, &g.h, (uint8_t *)blob, size, diag)) < 0) nm_free(&c->mesh->alloc, blob, size);
  return st;
}
