/* tile.c -- checking a Detour tile blob and binding its sections.
 *
 * A blob is a 100-byte header and eight sections whose sizes follow from the
 * header counts (shared/docs/detour-tile-format.md, 3.1). Nothing in a blob
 * is trusted: every count, offset, index and float that a query could later
 * use to address memory or convert to an integer is checked here, once, so
 * the query code can run without bounds checks. */
#include <math.h>
#include "nm_mesh.h"

/* Byte offsets of the nine sections of a blob (and its total size). */
typedef struct nm_tile_layout {
  size_t verts, polys, links, dmeshes, dverts, dtris, bvtree, offmesh, end;
} nm_tile_layout;

/* Section offsets from header counts; 0 when a count is negative or huge. */
static int tile_layout(const nm_tile_header *h, nm_tile_layout *l) {
  const int32_t c[8] = {h->vert_count, h->poly_count, h->max_link_count, h->detail_mesh_count,
                        h->detail_vert_count, h->detail_tri_count, h->bv_node_count,
                        h->offmesh_con_count};
  static const size_t esz[8] = {12, sizeof(nm_poly), sizeof(nm_link), sizeof(nm_poly_detail),
                                12, 4, sizeof(nm_bvnode), sizeof(nm_offmesh_con)};
  size_t off = sizeof(nm_tile_header), *dst[9];
  int i;
  dst[0] = &l->verts; dst[1] = &l->polys; dst[2] = &l->links; dst[3] = &l->dmeshes;
  dst[4] = &l->dverts; dst[5] = &l->dtris; dst[6] = &l->bvtree; dst[7] = &l->offmesh;
  dst[8] = &l->end;
  for (i = 0; i < 8; i++) {
    if (c[i] < 0 || c[i] > (1 << 26)) return 0; /* 64M elements: far beyond any tile */
    *dst[i] = off;
    off += nm_align4((size_t)c[i] * esz[i]);
  }
  *dst[8] = off;
  return 1;
}

/* Header fields that do not depend on the sections. */
static nm_status check_header(const nm_tile_header *h, size_t size, nm_tile_layout *l,
                              nm_diag *diag) {
  int i;
  if (h->magic != NM_TILE_MAGIC) return nm_diag_set(diag, NM_ERR_DATA, "magic", "not a Detour tile (bad magic)");
  if (h->version != NM_TILE_VERSION)
    return nm_diag_set(diag, NM_ERR_DATA, "version", "tile version %d, expected 7", (int)h->version);
  if (!tile_layout(h, l)) return nm_diag_set(diag, NM_ERR_DATA, "counts", "negative or huge section count");
  if (l->end != size)
    return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "tile sections need %lu bytes, blob has %lu",
                       (unsigned long)l->end, (unsigned long)size);
  if (h->x < -NM_MAX_TILE_COORD || h->x > NM_MAX_TILE_COORD || h->y < -NM_MAX_TILE_COORD ||
      h->y > NM_MAX_TILE_COORD || h->layer < 0 || h->layer > NM_MAX_TILE_COORD)
    return nm_diag_set(diag, NM_ERR_DATA, "x", "tile coordinates out of range");
  if (h->vert_count > 65536) return nm_diag_set(diag, NM_ERR_DATA, "vertCount", "more than 65536 vertices");
  for (i = 0; i < 3; i++)
    if (!nm_coord_ok(h->bmin[i]) || !nm_coord_ok(h->bmax[i]) || h->bmin[i] > h->bmax[i])
      return nm_diag_set(diag, NM_ERR_DATA, "bmin", "tile bounds not finite, out of range or inverted");
  if (!isfinite(h->bv_quant_factor) || h->bv_quant_factor < 0 || !nm_coord_ok(h->walkable_climb) ||
      h->walkable_climb < 0 || !nm_coord_ok(h->walkable_height) || !nm_coord_ok(h->walkable_radius))
    return nm_diag_set(diag, NM_ERR_DATA, "bvQuantFactor", "bad float in tile header");
  if (h->offmesh_base < 0 || h->offmesh_base > h->poly_count ||
      h->offmesh_con_count > h->poly_count - h->offmesh_base)
    return nm_diag_set(diag, NM_ERR_DATA, "offMeshBase", "off-mesh polygon range out of bounds");
  if (h->detail_mesh_count < h->offmesh_base)
    return nm_diag_set(diag, NM_ERR_DATA, "detailMeshCount", "fewer detail meshes than ground polygons");
  return NM_OK;
}

/* One polygon: vertex and neighbour indices, type against the off-mesh range. */
static nm_status check_poly(const nm_tile_header *h, const nm_poly *p, int index, nm_diag *diag) {
  int j, type = nm_poly_type(p);
  int is_offmesh = index >= h->offmesh_base;
  if (type > NM_POLYTYPE_OFFMESH || (type == NM_POLYTYPE_OFFMESH) != is_offmesh)
    return nm_diag_set(diag, NM_ERR_DATA, "polys", "polygon %d has a bad type", index);
  if (p->vert_count < (is_offmesh ? 2 : 3) || p->vert_count > NM_MAX_VERTS_PER_POLY ||
      (is_offmesh && p->vert_count != 2))
    return nm_diag_set(diag, NM_ERR_DATA, "polys", "polygon %d has %d vertices", index, p->vert_count);
  for (j = 0; j < p->vert_count; j++) {
    uint16_t n = p->neis[j];
    if (p->verts[j] >= h->vert_count)
      return nm_diag_set(diag, NM_ERR_DATA, "polys", "polygon %d vertex index out of range", index);
    if (n & NM_EXT_LINK) {
      if ((n & 0xff) > 7) return nm_diag_set(diag, NM_ERR_DATA, "polys", "polygon %d bad portal side", index);
    } else if (n != 0 && (int)n - 1 >= h->offmesh_base) {
      return nm_diag_set(diag, NM_ERR_DATA, "polys", "polygon %d neighbour out of range", index);
    }
  }
  return NM_OK;
}

/* One detail sub-mesh: its vertex and triangle ranges and triangle indices. */
static nm_status check_detail(const nm_tile_header *h, const nm_poly *p, const nm_poly_detail *d,
                              const uint8_t *dtris, int index, nm_diag *diag) {
  uint32_t k;
  int lim = p->vert_count + d->vert_count;
  if ((uint64_t)d->vert_base + d->vert_count > (uint64_t)h->detail_vert_count ||
      (uint64_t)d->tri_base + d->tri_count > (uint64_t)h->detail_tri_count)
    return nm_diag_set(diag, NM_ERR_DATA, "detailMeshes", "detail mesh %d out of range", index);
  for (k = 0; k < d->tri_count; k++) {
    const uint8_t *t = &dtris[(d->tri_base + k) * 4];
    if (t[0] >= lim || t[1] >= lim || t[2] >= lim)
      return nm_diag_set(diag, NM_ERR_DATA, "detailTris", "detail triangle index out of range in poly %d", index);
  }
  return NM_OK;
}

/* BV nodes: leaves name ground polygons (an off-mesh polygon found through
 * the tree would be linked as the ground under a connection, even to
 * itself), escapes stay inside the tree. */
static nm_status check_bvtree(const nm_tile_header *h, const nm_bvnode *bv, nm_diag *diag) {
  int k;
  for (k = 0; k < h->bv_node_count; k++) {
    int32_t i = bv[k].i;
    if (i >= 0 ? i >= h->offmesh_base : (i == INT32_MIN || -i > h->bv_node_count - k))
      return nm_diag_set(diag, NM_ERR_DATA, "bvTree", "BV node %d out of range", k);
  }
  return NM_OK;
}

/* Off-mesh connection records: finite, pointing to their own polygons. */
static nm_status check_offmesh(const nm_tile_header *h, const nm_poly *polys,
                               const nm_offmesh_con *cons, nm_diag *diag) {
  int i;
  for (i = 0; i < h->offmesh_con_count; i++) {
    const nm_offmesh_con *c = &cons[i];
    if (c->poly < h->offmesh_base || c->poly >= h->poly_count ||
        nm_poly_type(&polys[c->poly]) != NM_POLYTYPE_OFFMESH)
      return nm_diag_set(diag, NM_ERR_DATA, "offMeshCons", "off-mesh connection %d has a bad polygon", i);
    if (!nm_coords_ok(c->pos, 6) || !nm_coord_ok(c->rad) || c->rad < 0 ||
        (c->side > 7 && c->side != 0xff))
      return nm_diag_set(diag, NM_ERR_DATA, "offMeshCons", "off-mesh connection %d malformed", i);
  }
  return NM_OK;
}

nm_status nm_tile_validate(uint8_t *data, size_t size, nm_diag *diag) {
  const nm_tile_header *h = (const nm_tile_header *)data;
  nm_tile_layout l;
  nm_status st;
  const nm_poly *polys;
  const nm_poly_detail *dm;
  int i;
  if (size < sizeof(nm_tile_header))
    return nm_diag_set(diag, NM_ERR_DATA, "dataSize", "tile blob shorter than its header");
  if ((st = check_header(h, size, &l, diag)) < 0) return st;
  if (!nm_coords_ok((const float *)(data + l.verts), 3 * h->vert_count) ||
      !nm_coords_ok((const float *)(data + l.dverts), 3 * h->detail_vert_count))
    return nm_diag_set(diag, NM_ERR_DATA, "verts", "vertex coordinates not finite or beyond 1e12");
  polys = (const nm_poly *)(data + l.polys);
  dm = (const nm_poly_detail *)(data + l.dmeshes);
  for (i = 0; i < h->poly_count; i++) {
    if ((st = check_poly(h, &polys[i], i, diag)) < 0) return st;
    if (i < h->offmesh_base &&
        (st = check_detail(h, &polys[i], &dm[i], data + l.dtris, i, diag)) < 0)
      return st;
  }
  if ((st = check_bvtree(h, (const nm_bvnode *)(data + l.bvtree), diag)) < 0) return st;
  return check_offmesh(h, polys, (const nm_offmesh_con *)(data + l.offmesh), diag);
}

void nm_tile_bind(nm_tile *t, uint8_t *data, size_t size) {
  nm_tile_header *h = (nm_tile_header *)data;
  nm_tile_layout l;
  tile_layout(h, &l);
  t->header = h;
  t->verts = (float *)(data + l.verts);
  t->polys = (nm_poly *)(data + l.polys);
  t->links = (nm_link *)(data + l.links);
  t->dmeshes = (nm_poly_detail *)(data + l.dmeshes);
  t->dverts = (float *)(data + l.dverts);
  t->dtris = data + l.dtris;
  t->bvtree = h->bv_node_count ? (nm_bvnode *)(data + l.bvtree) : NULL;
  t->offmesh = (nm_offmesh_con *)(data + l.offmesh);
  t->data = data;
  t->data_size = size;
}
