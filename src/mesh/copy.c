/* copy.c -- a copy of a navmesh made with another allocator.
 *
 * The Lua binding moves a mesh into system memory before sharing it between
 * Lua states; this does it without a serialised image in between. Each tile
 * blob is copied byte for byte, live links included, into its own slot with
 * its own salt (as loading a saved image of our own format places it), so
 * polygon references, flags, areas and the order of every polygon's links
 * are those of the original: queries on the copy give the same answers,
 * ties included. The link free lists are rebuilt by the same check a load
 * does, and the island labels are made; the copy is not frozen. */
#include "nm_mesh.h"

/* Copies one tile blob into slot and salt `ref` of m, links untouched. */
static nm_status copy_tile(nm_navmesh *m, const nm_tile *t, nm_polyref ref) {
  uint8_t *data = (uint8_t *)nm_malloc(&m->alloc, t->data_size);
  nm_tile *placed;
  nm_status st;
  if (!data) return NM_ERR_NOMEM;
  memcpy(data, t->data, t->data_size);
  st = nm_navmesh_place_tile(m, data, t->data_size, ref, NM_TILE_OWNS_DATA, NULL, &placed);
  if (st < 0) nm_free(&m->alloc, data, t->data_size);
  return st;
}

nm_status nm_navmesh_copy(const nm_navmesh *mesh, const nm_alloc *alloc, nm_navmesh **out) {
  nm_navmesh_params p;
  nm_navmesh *m;
  nm_status st = NM_OK;
  int i;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!mesh) return NM_ERR_PARAM;
  nm_navmesh_get_params(mesh, &p);
  if ((st = nm_navmesh_new(&p, alloc, NULL, &m)) < 0) return st;
  for (i = 0; i < mesh->top && st >= 0; i++)
    if (mesh->tiles[i].header) st = copy_tile(m, &mesh->tiles[i], nm_tile_base(mesh, &mesh->tiles[i]));
  if (st >= 0) st = nm_links_check_all(m, 1, NULL);
  if (st >= 0) st = nm_islands_update(m);
  if (st < 0) {
    nm_navmesh_release(m);
    return st;
  }
  *out = m;
  return NM_OK;
}
