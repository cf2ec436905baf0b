/* fuzz_build_soup.c -- nm_navmesh_build on arbitrary triangle soups with
 * fuzzed configs. Built only when the library defines nm_navmesh_build.
 *
 * Input layout (seeds.c writes the same; missing bytes read as 0):
 *   u8 options  bit0-1 partition (3: out of range), bit2 low hanging,
 *               bit3 ledges, bit4 low height, bit5 tiled, bit6 an area
 *               volume, bit7 explicit build box
 *   coord cell size, cell height, agent height, radius, climb, max slope,
 *         region min size, merge size, edge max len, edge max error,
 *         detail sample dist, detail max error        (fz_coord: 1 or 5 bytes)
 *   u8 verts per poly, [u8 tile size (cells, *4) when tiled]
 *   [volume: u8 kind (mod 3), coord bmin[3], bmax[3], centre[3], radius, height,
 *            hmin, hmax, i8 area]
 *   [coord bmin[3], bmax[3]]
 *   u8 nverts, coord verts[nverts * 3], u8 ntris, u8 tris[ntris * 3]
 * The build gets a 16 MB memory limit so that huge grids fail fast.
 * Invariants: known status; success gives a mesh that answers queries and
 * round-trips; failures leave *out NULL and name a field for ERR_PARAM. */
#include "fuzz.h"

typedef struct bs_arrays {
  float verts[256 * 3], vol_verts[4 * 3];
  int tris[256 * 3];
  nm_area_volume vol;
} bs_arrays;

/* Config fields in input order. */
static void read_config(fz_reader *r, nm_build_config *c) {
  float *f[12];
  int i;
  f[0] = &c->cell_size; f[1] = &c->cell_height; f[2] = &c->agent_height;
  f[3] = &c->agent_radius; f[4] = &c->agent_max_climb; f[5] = &c->agent_max_slope;
  f[6] = &c->region_min_size; f[7] = &c->region_merge_size; f[8] = &c->edge_max_len;
  f[9] = &c->edge_max_error; f[10] = &c->detail_sample_dist; f[11] = &c->detail_sample_max_error;
  for (i = 0; i < 12; i++) *f[i] = fz_coord(r);
  c->verts_per_poly = fz_u8(r);
}

/* One area volume of any kind (a square outline for convex ones). */
static void read_volume(fz_reader *r, bs_arrays *a) {
  nm_area_volume *v = &a->vol;
  int i;
  memset(v, 0, sizeof *v);
  v->kind = fz_u8(r) % 3;
  fz_point(r, v->bmin);
  fz_point(r, v->bmax);
  fz_point(r, v->center);
  v->radius = fz_coord(r);
  v->height = fz_coord(r);
  v->hmin = fz_coord(r);
  v->hmax = fz_coord(r);
  v->area = (int8_t)fz_u8(r);
  for (i = 0; i < 4; i++) { /* outline: the box's corners in X/Z */
    a->vol_verts[i * 3 + 0] = (i == 1 || i == 2) ? v->bmax[0] : v->bmin[0];
    a->vol_verts[i * 3 + 1] = v->bmin[1];
    a->vol_verts[i * 3 + 2] = (i >= 2) ? v->bmax[2] : v->bmin[2];
  }
  v->verts = a->vol_verts;
  v->nverts = 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bs_arrays a;
  nm_build_config cfg;
  nm_build_stats stats;
  nm_navmesh *m = NULL;
  fz_reader r;
  nm_diag d;
  nm_status st;
  uint8_t opt;
  int nverts, ntris, i;
  memset(&d, 0, sizeof d);
  fz_init(&r, data, size);
  nm_build_config_init(&cfg);
  opt = fz_u8(&r);
  cfg.partition = opt & 3;
  cfg.filter_low_hanging = (opt >> 2) & 1;
  cfg.filter_ledges = (opt >> 3) & 1;
  cfg.filter_low_height = (opt >> 4) & 1;
  read_config(&r, &cfg);
  if (opt & 32) cfg.tile_size = fz_u8(&r) * 4;
  if (opt & 64) {
    read_volume(&r, &a);
    cfg.volumes = &a.vol;
    cfg.nvolumes = 1;
  }
  if (opt & 128) {
    fz_point(&r, cfg.bmin);
    fz_point(&r, cfg.bmax);
  }
  cfg.memory_limit = 16u << 20;
  cfg.threads = 1;
  nverts = fz_u8(&r);
  for (i = 0; i < nverts * 3; i++) a.verts[i] = fz_coord(&r);
  ntris = fz_u8(&r);
  for (i = 0; i < ntris * 3; i++) a.tris[i] = fz_u8(&r);
  st = nm_navmesh_build(a.verts, nverts, a.tris, ntris, &cfg, NULL, &d, &m, &stats);
  fz_say("nm_navmesh_build", st, &d);
  FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM || st == NM_ERR_EMPTY || st == NM_ERR_NOMEM);
  if (st < 0) {
    FZ_CHECK(m == NULL);
    if (st == NM_ERR_PARAM) FZ_CHECK(d.msg[0] != 0);
    return 0;
  }
  FZ_CHECK(m != NULL);
  fz_exercise(m);
  nm_navmesh_release(m);
  return 0;
}
