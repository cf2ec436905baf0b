/* tiles.c -- one tile through the whole Recast pipeline, as RecastDemo's
 * Solo Mesh and Tile Mesh samples run it.
 *
 * The tile's voxel box is its square grown by the border (walkable radius + 3
 * cells) on every side, spanning the whole build box in Y. Its triangles are
 * the chunks of the chunky partition that overlap the grown square, taken
 * chunk by chunk in tree order (a solo build takes all triangles in input
 * order). Then: rasterize, the three filters, compact heightfield, erosion by
 * the agent radius, area volumes, regions (watershed over the distance field,
 * monotone or layers), contours, convex polygons, detail mesh, and finally a
 * Detour tile blob (nm_tile_create) with Recast-form neighbour slots, world
 * coordinates computed from cell coordinates as Detour does, area 63
 * (walkable) stored as area 0 and flags 1 (walk). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L
#endif
#include <time.h>
#include "nm_bake.h"

/* Everything a tile build holds; tile_cleanup frees what is set. */
typedef struct tile_work {
  const nm_build_ctx *ctx;
  const nm_alloc *a;
  nm_tile_result *res;
  int tx, ty;
  float bmin[3], bmax[3];    /* voxel box, border included */
  nm_heightfield hf;
  nm_chf chf;
  nm_contour_set cset;
  nm_polymesh pmesh;
  nm_polymesh_detail dmesh;
  int have_hf, have_chf, have_cset, have_pmesh, have_dmesh;
  const char *stage;         /* the stage running, for messages */
} tile_work;

double nm_clock_ms(void) {
#if defined(CLOCK_MONOTONIC)
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
#endif
  return (double)clock() * 1e3 / CLOCKS_PER_SEC;
}

/* Elapsed ms since *t0 added to *acc; restarts *t0. */
static void lap(double *acc, double *t0) {
  const double t = nm_clock_ms();
  *acc += t - *t0;
  *t0 = t;
}

/* Frees whatever the tile build still holds. */
static void tile_cleanup(tile_work *w) {
  if (w->have_hf) nm_hf_free(&w->hf);
  if (w->have_chf) nm_chf_free(&w->chf);
  if (w->have_cset) nm_contours_free(&w->cset);
  if (w->have_pmesh) nm_polymesh_free(&w->pmesh);
  if (w->have_dmesh) nm_detail_free(&w->dmesh);
  w->have_hf = w->have_chf = w->have_cset = w->have_pmesh = w->have_dmesh = 0;
}

/* The tile's voxel box: its square grown by the border, Y of the build box. */
static void tile_box(const nm_rc_config *rc, int tx, int ty, float *bmin, float *bmax) {
  if (rc->tile_size <= 0) {
    nm_vcopy(bmin, rc->bmin);
    nm_vcopy(bmax, rc->bmax);
    return;
  }
  bmin[0] = rc->bmin[0] + (float)tx * rc->tile_world;
  bmin[1] = rc->bmin[1];
  bmin[2] = rc->bmin[2] + (float)ty * rc->tile_world;
  bmax[0] = rc->bmin[0] + (float)(tx + 1) * rc->tile_world;
  bmax[1] = rc->bmax[1];
  bmax[2] = rc->bmin[2] + (float)(ty + 1) * rc->tile_world;
  bmin[0] -= (float)rc->border_size * rc->cs;
  bmin[2] -= (float)rc->border_size * rc->cs;
  bmax[0] += (float)rc->border_size * rc->cs;
  bmax[2] += (float)rc->border_size * rc->cs;
}

/* ---- stage: rasterize ---- */

/* Rasterizes the chunks overlapping the tile (all triangles when solo).
 * Returns NM_ERR_EMPTY when no triangle comes near the tile. */
static nm_status tile_rasterize(tile_work *w) {
  const nm_build_ctx *ctx = w->ctx;
  const nm_rc_config *rc = &ctx->rc;
  const float tbmin[2] = {w->bmin[0], w->bmin[2]}, tbmax[2] = {w->bmax[0], w->bmax[2]};
  int *ids, n, i;
  nm_status st = NM_OK;
  if (rc->tile_size <= 0)
    return nm_hf_rasterize(&w->hf, ctx->verts, ctx->tris, ctx->tri_areas, ctx->ntris, rc->walkable_climb);
  n = nm_chunky_overlapping(&ctx->chunky, tbmin, tbmax, NULL, 0);
  if (n == 0) return NM_ERR_EMPTY;
  if (!(ids = (int *)nm_malloc(w->a, (size_t)n * sizeof(int)))) return NM_ERR_NOMEM;
  nm_chunky_overlapping(&ctx->chunky, tbmin, tbmax, ids, n);
  for (i = 0; i < n && st >= 0; i++) {
    const nm_chunk_node *node = &ctx->chunky.nodes[ids[i]];
    st = nm_hf_rasterize(&w->hf, ctx->verts, &ctx->chunky.tris[node->i * 3], &ctx->tri_areas[node->i],
                         node->n, rc->walkable_climb);
  }
  nm_free(w->a, ids, (size_t)n * sizeof(int));
  return st;
}

/* Heightfield, rasterization and the walkable filters. */
static nm_status stage_heightfield(tile_work *w, nm_build_stats *s, double *t0) {
  const nm_rc_config *rc = &w->ctx->rc;
  const nm_build_config *cfg = w->ctx->cfg;
  nm_status st;
  w->stage = "rasterize";
  memset(&w->hf, 0, sizeof w->hf);
  w->have_hf = 1;   /* the free functions take zeroed and half-built outputs */
  if ((st = nm_hf_init(&w->hf, w->a, rc->width, rc->height, w->bmin, w->bmax, rc->cs, rc->ch)) < 0) return st;
  if ((st = tile_rasterize(w)) < 0) return st;
  lap(&s->ms_rasterize, t0);
  nm_hf_filter(&w->hf,
               (cfg->filter_low_hanging ? NM_FILTER_LOW_HANGING : 0) | (cfg->filter_ledges ? NM_FILTER_LEDGES : 0) |
                   (cfg->filter_low_height ? NM_FILTER_LOW_HEIGHT : 0),
               rc->walkable_height, rc->walkable_climb);
  lap(&s->ms_filter, t0);
  return NM_OK;
}

/* ---- stage: compact heightfield, erosion, areas, regions ---- */

/* Marks the area volumes in order (areas already mapped to Recast ids). */
static void mark_volumes(tile_work *w) {
  const nm_build_config *cfg = w->ctx->cfg;
  int i;
  for (i = 0; i < cfg->nvolumes; i++) {
    const nm_area_volume *v = &cfg->volumes[i];
    const uint8_t area = w->ctx->vol_areas[i];
    if (v->kind == NM_VOLUME_CONVEX) nm_chf_mark_convex(&w->chf, v->verts, v->nverts, v->hmin, v->hmax, area);
    else if (v->kind == NM_VOLUME_BOX) nm_chf_mark_box(&w->chf, v->bmin, v->bmax, area);
    else nm_chf_mark_cylinder(&w->chf, v->center, v->radius, v->height, area);
  }
}

/* Region partition of the chosen kind. */
static nm_status partition(tile_work *w, nm_build_stats *s, double *t0) {
  const nm_rc_config *rc = &w->ctx->rc;
  nm_status st;
  if (rc->partition == NM_PARTITION_WATERSHED) {
    if ((st = nm_chf_build_distance(&w->chf)) < 0) return st;
    lap(&s->ms_distance, t0);
    st = nm_chf_regions_watershed(&w->chf, rc->border_size, rc->min_region_area, rc->merge_region_area);
  } else if (rc->partition == NM_PARTITION_MONOTONE) {
    st = nm_chf_regions_monotone(&w->chf, rc->border_size, rc->min_region_area, rc->merge_region_area);
  } else {
    st = nm_chf_regions_layers(&w->chf, rc->border_size, rc->min_region_area);
  }
  lap(&s->ms_regions, t0);
  return st;
}

/* Compact heightfield (the heightfield is freed after), erosion, volumes. */
static nm_status stage_compact(tile_work *w, nm_build_stats *s, double *t0) {
  const nm_rc_config *rc = &w->ctx->rc;
  nm_status st;
  w->stage = "compact heightfield";
  memset(&w->chf, 0, sizeof w->chf);
  w->have_chf = 1;
  if ((st = nm_chf_build(&w->hf, rc->walkable_height, rc->walkable_climb, w->a, &w->chf)) < 0) return st;
  nm_hf_free(&w->hf);
  w->have_hf = 0;
  lap(&s->ms_compact, t0);
  w->stage = "erosion";
  if ((st = nm_chf_erode(&w->chf, rc->walkable_radius)) < 0) return st;
  lap(&s->ms_erode, t0);
  mark_volumes(w);
  lap(&s->ms_areas, t0);
  return NM_OK;
}

/* The compact heightfield, then regions. */
static nm_status stage_regions(tile_work *w, nm_build_stats *s, double *t0) {
  nm_status st = stage_compact(w, s, t0);
  if (st < 0) return st;
  w->stage = "regions";
  return partition(w, s, t0);
}

/* ---- stage: contours, polygons, detail ---- */

/* Contours, poly mesh, detail mesh. NM_ERR_EMPTY when nothing remains. */
static nm_status stage_polys(tile_work *w, nm_build_stats *s, double *t0) {
  const nm_rc_config *rc = &w->ctx->rc;
  nm_status st;
  w->stage = "contours";
  memset(&w->cset, 0, sizeof w->cset);
  w->have_cset = 1;
  if ((st = nm_contours_build(&w->chf, rc->max_error, rc->max_edge_len, w->a, &w->cset)) < 0) return st;
  lap(&s->ms_contours, t0);
  if (w->cset.nconts == 0) return NM_ERR_EMPTY;
  w->stage = "polygon mesh";
  memset(&w->pmesh, 0, sizeof w->pmesh);
  w->have_pmesh = 1;
  if ((st = nm_polymesh_build(&w->cset, rc->nvp, w->a, &w->pmesh)) < 0) return st;
  nm_contours_free(&w->cset);
  w->have_cset = 0;
  lap(&s->ms_polymesh, t0);
  if (w->pmesh.npolys == 0) return NM_ERR_EMPTY;
  w->stage = "detail mesh";
  memset(&w->dmesh, 0, sizeof w->dmesh);
  w->have_dmesh = 1;
  st = nm_detail_build(&w->pmesh, &w->chf, rc->detail_sample_dist, rc->detail_sample_max_error, w->a, &w->dmesh);
  if (st < 0) return st;
  nm_chf_free(&w->chf);
  w->have_chf = 0;
  lap(&s->ms_detail, t0);
  return NM_OK;
}

/* ---- stage: tile data ---- */

/* Arrays of the tile input made from the poly mesh. */
typedef struct tile_arrays {
  float *verts;
  uint16_t *polys, *neis, *flags;
  uint8_t *areas;
  size_t nv, np, nvp;
} tile_arrays;

static void arrays_free(const nm_alloc *a, tile_arrays *t) {
  nm_free(a, t->verts, t->nv * 3 * sizeof(float));
  nm_free(a, t->polys, t->np * t->nvp * sizeof(uint16_t));
  nm_free(a, t->neis, t->np * t->nvp * sizeof(uint16_t));
  nm_free(a, t->flags, t->np * sizeof(uint16_t));
  nm_free(a, t->areas, t->np);
}

/* Splits Recast's poly records (verts then neighbours) and converts cell
 * coordinates to world units as Detour does (bmin + v * cs); flags come
 * from the configuration's area_flags map (Detour's mesh-process hook), 1
 * (walk) without one. */
static nm_status fill_arrays(const nm_polymesh *pm, const uint16_t *area_flags, const nm_alloc *a,
                             tile_arrays *t) {
  size_t i, j;
  memset(t, 0, sizeof *t);
  t->nv = (size_t)pm->nverts;
  t->np = (size_t)pm->npolys;
  t->nvp = (size_t)pm->nvp;
  t->verts = (float *)nm_malloc(a, t->nv * 3 * sizeof(float));
  t->polys = (uint16_t *)nm_malloc(a, t->np * t->nvp * sizeof(uint16_t));
  t->neis = (uint16_t *)nm_malloc(a, t->np * t->nvp * sizeof(uint16_t));
  t->flags = (uint16_t *)nm_malloc(a, t->np * sizeof(uint16_t));
  t->areas = (uint8_t *)nm_malloc(a, t->np);
  if (!t->verts || !t->polys || !t->neis || !t->flags || !t->areas) return NM_ERR_NOMEM;
  for (i = 0; i < t->nv; i++) {
    const uint16_t *iv = &pm->verts[i * 3];
    t->verts[i * 3 + 0] = pm->bmin[0] + (float)iv[0] * pm->cs;
    t->verts[i * 3 + 1] = pm->bmin[1] + (float)iv[1] * pm->ch;
    t->verts[i * 3 + 2] = pm->bmin[2] + (float)iv[2] * pm->cs;
  }
  for (i = 0; i < t->np; i++) {
    const uint16_t *src = &pm->polys[i * 2 * t->nvp];
    for (j = 0; j < t->nvp; j++) {
      t->polys[i * t->nvp + j] = src[j];
      t->neis[i * t->nvp + j] = src[t->nvp + j];
    }
    t->areas[i] = pm->areas[i] == NM_WALKABLE_AREA ? 0 : pm->areas[i];
    t->flags[i] = area_flags ? area_flags[t->areas[i]] : 1;
  }
  return NM_OK;
}

/* The Detour tile blob of the finished poly mesh and detail mesh. */
static nm_status stage_tiledata(tile_work *w) {
  const nm_build_config *cfg = w->ctx->cfg;
  const nm_polymesh *pm = &w->pmesh;
  nm_poly_mesh_input in;
  tile_arrays t;
  nm_status st;
  if (pm->nverts >= 0xffff)
    return nm_diag_set(&w->res->diag, NM_ERR_PARAM, "tileSize", "tile (%d, %d) has %d vertices (limit 65534); use smaller tiles",
                       w->tx, w->ty, pm->nverts);
  w->stage = "tile data";
  if ((st = fill_arrays(pm, cfg->area_flags, w->a, &t)) >= 0) {
    memset(&in, 0, sizeof in);
    in.verts = t.verts;
    in.nverts = pm->nverts;
    in.polys = t.polys;
    in.neis = t.neis;
    in.npolys = pm->npolys;
    in.nvp = pm->nvp;
    in.areas = t.areas;
    in.flags = t.flags;
    in.dmeshes = w->dmesh.meshes;
    in.dverts = w->dmesh.verts;
    in.ndverts = w->dmesh.nverts;
    in.dtris = w->dmesh.tris;
    in.ndtris = w->dmesh.ntris;
    in.dtri_flags_valid = 1;
    in.offmesh = cfg->offmesh;
    in.noffmesh = cfg->noffmesh;
    in.tile_x = w->tx;
    in.tile_y = w->ty;
    nm_vcopy(in.bmin, pm->bmin);
    nm_vcopy(in.bmax, pm->bmax);
    in.walkable_height = cfg->agent_height;
    in.walkable_radius = cfg->agent_radius;
    in.walkable_climb = cfg->agent_max_climb;
    in.cell_size = pm->cs;
    in.build_bvtree = 1;
    st = nm_tile_create(&in, w->a, &w->res->diag, &w->res->blob, &w->res->size);
    w->res->npolys = pm->npolys;
  }
  arrays_free(w->a, &t);
  return st;
}

/* st, or ERR_CANCELLED when the build job running this asked to stop. */
static nm_status go_on(const nm_build_ctx *ctx, nm_status st) {
  if (st >= 0 && ctx->cancel && __atomic_load_n(ctx->cancel, __ATOMIC_ACQUIRE)) return NM_ERR_CANCELLED;
  return st;
}

void nm_build_tile(const nm_build_ctx *ctx, int tx, int ty, nm_tile_result *res) {
  tile_work w;
  nm_build_stats *s = &res->stats;
  double t0 = nm_clock_ms(), start = t0;
  nm_status st;
  memset(res, 0, sizeof *res);
  memset(&w, 0, sizeof w);
  w.ctx = ctx;
  w.a = &ctx->a;
  w.res = res;
  w.tx = tx;
  w.ty = ty;
  tile_box(&ctx->rc, tx, ty, w.bmin, w.bmax);
  st = go_on(ctx, NM_OK);
  if (st >= 0) st = go_on(ctx, stage_heightfield(&w, s, &t0));
  if (st >= 0) st = go_on(ctx, stage_regions(&w, s, &t0));
  if (st >= 0) st = go_on(ctx, stage_polys(&w, s, &t0));
  if (st >= 0) st = stage_tiledata(&w);
  lap(&s->ms_tiledata, &t0);
  tile_cleanup(&w);
  s->ms_total = nm_clock_ms() - start;
  if (st == NM_ERR_EMPTY) st = NM_OK;   /* an empty tile is not an error */
  if (st == NM_ERR_NOMEM)
    nm_diag_set(&res->diag, st, "memory", "out of memory in tile (%d, %d), %s", tx, ty, w.stage);
  else if (st == NM_ERR_CANCELLED)
    nm_diag_set(&res->diag, st, NULL, "build cancelled");
  else if (st < 0 && !res->diag.msg[0])
    nm_diag_set(&res->diag, st, w.stage, "tile (%d, %d): %s failed: %s", tx, ty, w.stage, nm_strerror(st));
  res->st = st;
}

/* For the tile cache (src/tilecache): tile (tx, ty) up to its eroded compact
 * heightfield with the area volumes marked; *chf is the caller's (free it
 * with nm_chf_free). NM_ERR_EMPTY when no triangle comes near the tile. */
nm_status nm_build_tile_chf(const nm_build_ctx *ctx, int tx, int ty, nm_chf *chf) {
  tile_work w;
  nm_tile_result res;
  double t0 = nm_clock_ms();
  nm_status st;
  memset(&res, 0, sizeof res);
  memset(&w, 0, sizeof w);
  w.ctx = ctx;
  w.a = &ctx->a;
  w.res = &res;
  w.tx = tx;
  w.ty = ty;
  tile_box(&ctx->rc, tx, ty, w.bmin, w.bmax);
  st = stage_heightfield(&w, &res.stats, &t0);
  if (st >= 0) st = stage_compact(&w, &res.stats, &t0);
  if (st >= 0) {
    *chf = w.chf;
    w.have_chf = 0;
  }
  tile_cleanup(&w);
  return st;
}
