/* copy.c -- a copy of a navmesh made with another allocator.
 *
 * The Lua binding moves a mesh into system memory before sharing it between
 * Lua states; this does that without a serialised image in between. Tiles
 * go to their own slot and salt in slot order, exactly as loading a saved
 * image places them, so polygon references are the same in the copy and the
 * copy equals load(save(mesh)), links included. Polygon flags and areas live
 * in the tile data and come along. The copy is not frozen. */
#include "nm_mesh.h"

nm_status nm_navmesh_copy(const nm_navmesh *mesh, const nm_alloc *alloc, nm_navmesh **out) {
  nm_navmesh_params p;
  nm_navmesh *m;
  nm_status st;
  int i;
  if (!out) return NM_ERR_PARAM;
  *out = NULL;
  if (!mesh) return NM_ERR_PARAM;
  nm_navmesh_get_params(mesh, &p);
  if ((st = nm_navmesh_new(&p, alloc, NULL, &m)) < 0) return st;
  for (i = 0; i < mesh->top; i++) {
    const nm_tile *t = &mesh->tiles[i];
    if (!t->header) continue;
    st = nm_navmesh_add_tile_at(m, t->data, t->data_size, nm_tile_base(mesh, t), NULL, NULL);
    if (st < 0) {
      nm_navmesh_release(m);
      return st;
    }
  }
  *out = m;
  return NM_OK;
}
