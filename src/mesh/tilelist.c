/* tilelist.c -- tiles seen from outside: listing them, reading a tile's
 * bytes without removing it, and adding one back at its old references
 * (Detour's addTile with lastRef). */
#include "nm_mesh.h"

nm_status nm_navmesh_add_tile_ref(nm_navmesh *m, const void *data, size_t size, nm_polyref last_ref,
                                  nm_diag *diag, nm_polyref *ref_out) {
  if (ref_out) *ref_out = 0;
  if (!m) return nm_diag_set(diag, NM_ERR_PARAM, "mesh", "missing navmesh");
  if (last_ref && (nm_ref_salt(m, last_ref) == 0 || nm_ref_tile(m, last_ref) >= (uint32_t)m->max_tiles))
    return nm_diag_set(diag, NM_ERR_PARAM, "lastRef", "tile reference 0x%08x has %s", (unsigned)last_ref,
                       nm_ref_salt(m, last_ref) == 0 ? "salt 0" : "a slot past maxTiles");
  return nm_navmesh_add_tile_at(m, data, size, last_ref & ~m->poly_mask, diag, ref_out);
}

nm_status nm_navmesh_get_tile(const nm_navmesh *m, int tx, int ty, int layer, const void **data,
                              size_t *size) {
  const nm_tile *t;
  if (data) *data = NULL;
  if (size) *size = 0;
  if (!m || !data || !size) return NM_ERR_PARAM;
  if (!(t = nm_navmesh_tile_at(m, tx, ty, layer))) return NM_ERR_PARAM;
  *data = t->data;
  *size = t->data_size;
  return NM_OK;
}

nm_status nm_navmesh_tiles(const nm_navmesh *m, nm_tile_info *out, int cap, int *count) {
  int i, n = 0;
  if (count) *count = 0;
  if (!m || !count || cap < 0 || (cap > 0 && !out)) return NM_ERR_PARAM;
  for (i = 0; i < m->top; i++) {
    const nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    if (n < cap) {
      out[n].x = t->header->x;
      out[n].y = t->header->y;
      out[n].layer = t->header->layer;
      out[n].ref = nm_tile_base(m, t);
      out[n].polys = t->header->poly_count;
      out[n].data_size = t->data_size;
    }
    n++;
  }
  *count = n;
  return n > cap ? NM_TRUNCATED : NM_OK;
}
