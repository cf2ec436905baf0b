/* fuzz_tilecreate.c -- nm_tile_create on decoded polygon soups.
 *
 * Input layout (seeds.c writes the same; missing bytes read as 0):
 *   u8 options  bit0 border portals, bit1 BV tree, bit2 areas, bit3 flags,
 *               bit4 neighbours, bit5 detail mesh, bit6 detail flags valid,
 *               bit7 explicit bounds
 *   u8 nvp (mod 8), u8 nverts, u8 npolys, u8 noffmesh (mod 4),
 *   i8 tile x, i8 tile y, u8 layer (mod 4)
 *   coord walkable height, radius, climb, cell size    (fz_coord: 1 or 5 bytes)
 *   coord verts[nverts * 3]
 *   u8 polys[npolys * nvp]                             (0xff = unused slot)
 *   [u8 areas[npolys]] [u16 flags[npolys]] [u16 neis[npolys * nvp]]
 *   [u8 ndverts, coord dverts[ndverts * 3], u8 ndtris, u8 dtris[ndtris * 4],
 *    u8 dmeshes[npolys * 4]]
 *   offmesh[noffmesh]: coord start[3], end[3], radius; u8 bidir, u8 area, u16 flags
 *   [coord bmin[3], bmax[3]]
 * Invariant: a blob that nm_tile_create accepts loads, answers queries and
 * round-trips (our own output must always pass our own validation). */
#include "fuzz.h"

typedef struct tc_arrays {
  float verts[256 * 3], dverts[256 * 3];
  uint16_t polys[256 * 7], flags[256], neis[256 * 7];
  uint8_t areas[256], dtris[256 * 4];
  uint32_t dmeshes[256 * 4];
  nm_offmesh_link off[4];
} tc_arrays;

/* The optional detail mesh part of the input. */
static void read_detail(fz_reader *r, nm_poly_mesh_input *in, tc_arrays *a) {
  int i;
  in->ndverts = fz_u8(r);
  for (i = 0; i < in->ndverts * 3; i++) a->dverts[i] = fz_coord(r);
  in->ndtris = fz_u8(r);
  for (i = 0; i < in->ndtris * 4; i++) a->dtris[i] = fz_u8(r);
  for (i = 0; i < in->npolys * 4; i++) a->dmeshes[i] = fz_u8(r);
  in->dverts = a->dverts;
  in->dtris = a->dtris;
  in->dmeshes = a->dmeshes;
}

/* Decodes the whole input into in (arrays live in a). */
static void decode(fz_reader *r, nm_poly_mesh_input *in, tc_arrays *a) {
  const uint8_t opt = fz_u8(r);
  int i, slots;
  in->nvp = fz_u8(r) % 8;
  in->nverts = fz_u8(r);
  in->npolys = fz_u8(r);
  in->noffmesh = fz_u8(r) % 4;
  in->tile_x = (int8_t)fz_u8(r);
  in->tile_y = (int8_t)fz_u8(r);
  in->tile_layer = fz_u8(r) % 4;
  in->walkable_height = fz_coord(r);
  in->walkable_radius = fz_coord(r);
  in->walkable_climb = fz_coord(r);
  in->cell_size = fz_coord(r);
  for (i = 0; i < in->nverts * 3; i++) a->verts[i] = fz_coord(r);
  slots = in->npolys * in->nvp;
  for (i = 0; i < slots; i++) {
    const uint8_t b = fz_u8(r);
    a->polys[i] = b == 0xff ? 0xffff : b;
  }
  in->verts = a->verts;
  in->polys = a->polys;
  if (opt & 4) { for (i = 0; i < in->npolys; i++) a->areas[i] = fz_u8(r); in->areas = a->areas; }
  if (opt & 8) { for (i = 0; i < in->npolys; i++) a->flags[i] = fz_u16(r); in->flags = a->flags; }
  if (opt & 16) { for (i = 0; i < slots; i++) a->neis[i] = fz_u16(r); in->neis = a->neis; }
  if (opt & 32) read_detail(r, in, a);
  in->dtri_flags_valid = (opt & 64) != 0;
  for (i = 0; i < in->noffmesh; i++) {
    nm_offmesh_link *o = &a->off[i];
    fz_point(r, o->start);
    fz_point(r, o->end);
    o->radius = fz_coord(r);
    o->bidirectional = fz_u8(r) & 1;
    o->area = fz_u8(r);
    o->flags = fz_u16(r);
    o->user_id = (uint32_t)i;
  }
  in->offmesh = a->off;
  in->border_portals = opt & 1;
  in->build_bvtree = (opt & 2) != 0;
  if (opt & 128) {
    fz_point(r, in->bmin);
    fz_point(r, in->bmax);
  } else {
    in->bmin[0] = 1; /* bmin > bmax: bounds from the vertices */
    in->bmax[0] = 0;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tc_arrays a;
  nm_poly_mesh_input in;
  fz_reader r;
  nm_diag d;
  void *blob = NULL;
  size_t bsize = 0;
  nm_status st;
  memset(&in, 0, sizeof in);
  memset(&a, 0, sizeof a);
  memset(&d, 0, sizeof d);
  fz_init(&r, data, size);
  decode(&r, &in, &a);
  fz_alloc_failed = 0;
  st = nm_tile_create(&in, &fz_alloc, &d, &blob, &bsize);
  fz_say("nm_tile_create", st, &d);
  FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM || st == NM_ERR_EMPTY || (st == NM_ERR_NOMEM && fz_alloc_failed));
  if (st < 0) {
    FZ_CHECK(blob == NULL && bsize == 0);
    if (st != NM_ERR_NOMEM) FZ_CHECK(d.msg[0] != 0);
    return 0;
  }
  FZ_CHECK(blob != NULL && bsize > 0);
  {
    nm_navmesh *m = NULL;
    st = nm_navmesh_load(blob, bsize, NULL, &d, &m);
    if (st != NM_OK) fprintf(stderr, "tile_create output rejected: %s\n", d.msg);
    FZ_CHECK(st == NM_OK);
    fz_exercise(m);
    nm_navmesh_release(m);
  }
  nm_tile_free(&fz_alloc, blob, bsize);
  return 0;
}
