/* build.c -- nm_navmesh_build: checks the configuration and the input,
 * derives the Recast configuration in cells as RecastDemo does, refuses
 * builds whose voxel grids would not fit the memory limit (before allocating
 * them), and runs a solo build (one tile over the whole box; the navmesh is
 * then shaped by that tile, as RecastDemo's Solo Mesh sample makes it) or a
 * tiled build (a grid of tileSize-cell tiles over the box, tile and polygon
 * reference bits as RecastDemo's Tile Mesh sample chooses them, tiles built
 * by the tile loop in pool.c). Every allocation goes through a counting
 * wrapper of the caller's allocator, which gives the peak build memory. */
#include <float.h>
#include <math.h>
#include "nm_bake.h"

#define NM_DEFAULT_MEMORY_LIMIT ((size_t)4 << 30)
#define NM_BYTES_PER_COLUMN 24   /* heightfield column head + compact cell + flags */
/* Cell coordinates of one tile must fit the poly mesh's 16-bit vertices, and
 * squared lengths of edges across the tile must fit an int. */
#define NM_MAX_GRID_SIDE 32767

void nm_build_config_init(nm_build_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->cell_size = 0.3f;
  cfg->cell_height = 0.2f;
  cfg->agent_height = 2.0f;
  cfg->agent_radius = 0.6f;
  cfg->agent_max_climb = 0.9f;
  cfg->agent_max_slope = 45.0f;
  cfg->region_min_size = 8;
  cfg->region_merge_size = 20;
  cfg->edge_max_len = 12.0f;
  cfg->edge_max_error = 1.3f;
  cfg->verts_per_poly = 6;
  cfg->detail_sample_dist = 6.0f;
  cfg->detail_sample_max_error = 1.0f;
  cfg->partition = NM_PARTITION_WATERSHED;
  cfg->tile_size = 0;
  cfg->threads = 1;
  cfg->filter_low_hanging = cfg->filter_ledges = cfg->filter_low_height = 1;
  cfg->bmin[0] = cfg->bmin[1] = cfg->bmin[2] = 1.0f;  /* bmin > bmax: bounds of the input */
}

/* ---- checking the configuration ---- */

/* ERR_PARAM unless lo <= v <= hi (and finite). */
static nm_status check_range(nm_diag *diag, const char *field, float v, float lo, float hi) {
  if (isfinite(v) && v >= lo && v <= hi) return NM_OK;
  return nm_diag_set(diag, NM_ERR_PARAM, field, "%s must be in %g..%g (got %g)", field, (double)lo, (double)hi,
                     (double)v);
}

/* Ranges of the scalar settings. */
static nm_status check_scalars(const nm_build_config *c, nm_diag *d) {
  nm_status st = NM_OK;
  if (!(isfinite(c->cell_size) && c->cell_size > 0))
    return nm_diag_set(d, NM_ERR_PARAM, "cellSize", "cellSize must be > 0 (got %g)", (double)c->cell_size);
  if (!(isfinite(c->cell_height) && c->cell_height > 0))
    return nm_diag_set(d, NM_ERR_PARAM, "cellHeight", "cellHeight must be > 0 (got %g)", (double)c->cell_height);
  if (!(isfinite(c->agent_height) && c->agent_height > 0))
    return nm_diag_set(d, NM_ERR_PARAM, "agentHeight", "agentHeight must be > 0 (got %g)", (double)c->agent_height);
  if ((st = check_range(d, "agentRadius", c->agent_radius, 0, FLT_MAX)) < 0) return st;
  if ((st = check_range(d, "agentMaxClimb", c->agent_max_climb, 0, FLT_MAX)) < 0) return st;
  if ((st = check_range(d, "agentMaxSlope", c->agent_max_slope, 0, 90)) < 0) return st;
  if ((st = check_range(d, "regionMinSize", c->region_min_size, 0, 10000)) < 0) return st;
  if ((st = check_range(d, "regionMergeSize", c->region_merge_size, 0, 10000)) < 0) return st;
  if ((st = check_range(d, "edgeMaxLen", c->edge_max_len, 0, FLT_MAX)) < 0) return st;
  if ((st = check_range(d, "edgeMaxError", c->edge_max_error, 0, FLT_MAX)) < 0) return st;
  if ((st = check_range(d, "detailSampleDist", c->detail_sample_dist, 0, FLT_MAX)) < 0) return st;
  if ((st = check_range(d, "detailSampleMaxError", c->detail_sample_max_error, 0, FLT_MAX)) < 0) return st;
  if (c->verts_per_poly < 3 || c->verts_per_poly > NM_MAX_VERTS_PER_POLY)
    return nm_diag_set(d, NM_ERR_PARAM, "vertsPerPoly", "vertsPerPoly must be in 3..6 (got %d)", c->verts_per_poly);
  if (c->partition < NM_PARTITION_WATERSHED || c->partition > NM_PARTITION_LAYERS)
    return nm_diag_set(d, NM_ERR_PARAM, "partition", "unknown partition %d", c->partition);
  if (c->tile_size < 0 || c->tile_size > 4096)
    return nm_diag_set(d, NM_ERR_PARAM, "tileSize", "tileSize must be in 0..4096 cells (got %d)", c->tile_size);
  if (c->threads < 1 || c->threads > 64)
    return nm_diag_set(d, NM_ERR_PARAM, "threads", "threads must be in 1..64 (got %d)", c->threads);
  return NM_OK;
}

/* The agent sizes in cells must fit the pipeline's span fields. */
static nm_status check_cells(const nm_build_config *c, nm_diag *d) {
  const float wh = ceilf(c->agent_height / c->cell_height), wc = floorf(c->agent_max_climb / c->cell_height);
  const float wr = ceilf(c->agent_radius / c->cell_size), el = c->edge_max_len / c->cell_size;
  if (!(wh <= 255))
    return nm_diag_set(d, NM_ERR_PARAM, "agentHeight", "agentHeight is %g cells; at most 255 (raise cellHeight)", (double)wh);
  if (!(wc <= 255))
    return nm_diag_set(d, NM_ERR_PARAM, "agentMaxClimb", "agentMaxClimb is %g cells; at most 255 (raise cellHeight)", (double)wc);
  if (!(wr <= 127))
    return nm_diag_set(d, NM_ERR_PARAM, "agentRadius", "agentRadius is %g cells; at most 127 (raise cellSize)", (double)wr);
  if (!(el <= 1e8f))
    return nm_diag_set(d, NM_ERR_PARAM, "edgeMaxLen", "edgeMaxLen is %g cells; at most 1e8", (double)el);
  return NM_OK;
}

/* One area volume: shape, finite numbers, area in -1..62. */
static nm_status check_volume(const nm_area_volume *v, int i, nm_diag *d) {
  int k, ok = v->area >= -1 && v->area <= 62;
  if (!ok) return nm_diag_set(d, NM_ERR_PARAM, "areas", "area volume %d: area must be in -1..62 (got %d)", i + 1, v->area);
  if (v->kind == NM_VOLUME_CONVEX) {
    ok = v->verts && v->nverts >= 3 && isfinite(v->hmin) && isfinite(v->hmax) && v->hmin <= v->hmax;
    for (k = 0; ok && k < v->nverts * 3; k++) ok = isfinite(v->verts[k]);
  } else if (v->kind == NM_VOLUME_BOX) {
    ok = nm_isfinite3(v->bmin) && nm_isfinite3(v->bmax);
    for (k = 0; ok && k < 3; k++) ok = v->bmin[k] <= v->bmax[k];
  } else if (v->kind == NM_VOLUME_CYLINDER) {
    ok = nm_isfinite3(v->center) && isfinite(v->radius) && v->radius > 0 && isfinite(v->height) && v->height > 0;
  } else {
    return nm_diag_set(d, NM_ERR_PARAM, "areas", "area volume %d: unknown kind %d", i + 1, v->kind);
  }
  if (!ok) return nm_diag_set(d, NM_ERR_PARAM, "areas", "area volume %d: malformed shape", i + 1);
  return NM_OK;
}

/* Volumes, off-mesh connections, build box. */
static nm_status check_lists(const nm_build_config *c, nm_diag *d) {
  nm_status st;
  int i;
  if (c->nvolumes < 0 || (c->nvolumes > 0 && !c->volumes))
    return nm_diag_set(d, NM_ERR_PARAM, "areas", "bad area volume list");
  for (i = 0; i < c->nvolumes; i++)
    if ((st = check_volume(&c->volumes[i], i, d)) < 0) return st;
  if (c->noffmesh < 0 || (c->noffmesh > 0 && !c->offmesh))
    return nm_diag_set(d, NM_ERR_PARAM, "offMeshConnections", "bad off-mesh connection list");
  for (i = 0; i < c->noffmesh; i++) {
    const nm_offmesh_link *o = &c->offmesh[i];
    if (!nm_isfinite3(o->start) || !nm_isfinite3(o->end) || !isfinite(o->radius) || !(o->radius > 0) ||
        o->area >= NM_MAX_AREAS)
      return nm_diag_set(d, NM_ERR_PARAM, "offMeshConnections", "off-mesh connection %d is malformed", i + 1);
  }
  if (!nm_isfinite3(c->bmin) || !nm_isfinite3(c->bmax))
    return nm_diag_set(d, NM_ERR_PARAM, "bounds", "build box must be finite");
  return NM_OK;
}

/* ---- checking the input ---- */

/* Finite vertices, indices in range. */
static nm_status check_input(const float *verts, int nverts, const int *tris, int ntris, nm_diag *d) {
  int i;
  if (nverts < 0 || ntris < 0 || (nverts > 0 && !verts) || (ntris > 0 && !tris) || nverts > INT32_MAX / 3)
    return nm_diag_set(d, NM_ERR_PARAM, "vertices", "bad vertex or triangle list");
  for (i = 0; i < nverts * 3; i++)
    if (!isfinite(verts[i])) return nm_diag_set(d, NM_ERR_PARAM, "vertices", "vertex %d is not finite", i / 3 + 1);
  for (i = 0; i < ntris * 3; i++)
    if (tris[i] < 0 || tris[i] >= nverts)
      return nm_diag_set(d, NM_ERR_PARAM, "triangles", "triangle %d: vertex index %d out of range", i / 3 + 1,
                         tris[i] + 1);
  return NM_OK;
}

/* 1 when the triangle has no area (repeated index or collinear corners). */
static int degenerate(const float *verts, const int *t) {
  const float *a = &verts[t[0] * 3], *b = &verts[t[1] * 3], *c = &verts[t[2] * 3];
  float e0[3], e1[3], n[3];
  if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) return 1;
  nm_vsub(e0, b, a);
  nm_vsub(e1, c, a);
  n[0] = e0[1] * e1[2] - e0[2] * e1[1];
  n[1] = e0[2] * e1[0] - e0[0] * e1[2];
  n[2] = e0[0] * e1[1] - e0[1] * e1[0];
  return n[0] == 0 && n[1] == 0 && n[2] == 0;
}

/* Drops zero-area triangles into a copy when there are any; *owned gets the
 * copy's triangle count (0 when the input is used as it is). */
static nm_status drop_degenerate(nm_build_ctx *ctx, const int *tris, int ntris, int *owned) {
  int i, n = 0, *copy;
  *owned = 0;
  ctx->tris = tris;
  ctx->ntris = ntris;
  for (i = 0; i < ntris; i++) n += !degenerate(ctx->verts, &tris[i * 3]);
  if (n == ntris) return NM_OK;
  if (n == 0) { ctx->ntris = 0; return NM_OK; }
  if (!(copy = (int *)nm_malloc(&ctx->a, (size_t)n * 3 * sizeof(int)))) return NM_ERR_NOMEM;
  for (i = 0, n = 0; i < ntris; i++)
    if (!degenerate(ctx->verts, &tris[i * 3])) memcpy(&copy[3 * n++], &tris[i * 3], 3 * sizeof(int));
  ctx->tris = copy;
  ctx->ntris = n;
  *owned = n;
  return NM_OK;
}

/* ---- the Recast configuration ---- */

/* Build box: the configured one, or the bounds of all input vertices. */
static void build_box(const nm_build_config *c, const float *verts, int nverts, float *bmin, float *bmax) {
  int i;
  if (c->bmin[0] <= c->bmax[0] && c->bmin[1] <= c->bmax[1] && c->bmin[2] <= c->bmax[2]) {
    nm_vcopy(bmin, c->bmin);
    nm_vcopy(bmax, c->bmax);
    return;
  }
  nm_vcopy(bmin, verts);
  nm_vcopy(bmax, verts);
  for (i = 1; i < nverts; i++) {
    nm_vmin(bmin, &verts[i * 3]);
    nm_vmax(bmax, &verts[i * 3]);
  }
}

/* rcConfig as RecastDemo's samples fill it (single precision). */
static void derive_config(const nm_build_config *c, nm_rc_config *rc) {
  rc->cs = c->cell_size;
  rc->ch = c->cell_height;
  rc->walkable_slope = c->agent_max_slope;
  rc->walkable_height = (int)ceilf(c->agent_height / rc->ch);
  rc->walkable_climb = (int)floorf(c->agent_max_climb / rc->ch);
  rc->walkable_radius = (int)ceilf(c->agent_radius / rc->cs);
  rc->max_edge_len = (int)(c->edge_max_len / c->cell_size);
  rc->max_error = c->edge_max_error;
  rc->min_region_area = (int)(c->region_min_size * c->region_min_size);
  rc->merge_region_area = (int)(c->region_merge_size * c->region_merge_size);
  rc->nvp = c->verts_per_poly;
  rc->detail_sample_dist = c->detail_sample_dist < 0.9f ? 0 : c->cell_size * c->detail_sample_dist;
  rc->detail_sample_max_error = c->cell_height * c->detail_sample_max_error;
  rc->partition = c->partition;
  rc->tile_size = c->tile_size;
  rc->border_size = c->tile_size > 0 ? rc->walkable_radius + 3 : 0;
}

/* Voxel grid and tile grid over the box; refuses grids that do not fit the
 * memory limit, before anything is allocated. */
static nm_status derive_grid(const nm_build_config *c, nm_rc_config *rc, nm_diag *d) {
  const double gw = (double)((rc->bmax[0] - rc->bmin[0]) / rc->cs + 0.5f);
  const double gh = (double)((rc->bmax[2] - rc->bmin[2]) / rc->cs + 0.5f);
  const double limit = (double)(c->memory_limit ? c->memory_limit : NM_DEFAULT_MEMORY_LIMIT);
  double columns;
  if (!(gw < 1073741824.0 && gh < 1073741824.0 && gw * gh < 2147483647.0))
    return nm_diag_set(d, NM_ERR_PARAM, "cellSize", "voxel grid of %.0f x %.0f cells is too large; raise cellSize", gw, gh);
  rc->grid_w = (int)gw;
  rc->grid_h = (int)gh;
  if (rc->tile_size > 0) {
    rc->tiles_x = (rc->grid_w + rc->tile_size - 1) / rc->tile_size;
    rc->tiles_y = (rc->grid_h + rc->tile_size - 1) / rc->tile_size;
    rc->width = rc->height = rc->tile_size + 2 * rc->border_size;
    rc->tile_world = (float)rc->tile_size * rc->cs;
    if ((double)rc->tiles_x * rc->tiles_y > (double)(1 << NM_MAX_TILE_BITS))
      return nm_diag_set(d, NM_ERR_PARAM, "tileSize", "tile grid of %d x %d tiles exceeds %d tiles; raise tileSize",
                         rc->tiles_x, rc->tiles_y, 1 << NM_MAX_TILE_BITS);
    columns = (double)rc->width * rc->height * nm_mini(c->threads, rc->tiles_x * rc->tiles_y);
  } else {
    rc->tiles_x = rc->tiles_y = 1;
    rc->width = rc->grid_w;
    rc->height = rc->grid_h;
    columns = gw * gh;
    if (rc->width > NM_MAX_GRID_SIDE || rc->height > NM_MAX_GRID_SIDE)
      return nm_diag_set(d, NM_ERR_PARAM, "cellSize",
                         "voxel grid of %d x %d cells: at most %d per side in one tile; raise cellSize or set tileSize",
                         rc->width, rc->height, NM_MAX_GRID_SIDE);
  }
  if (columns * NM_BYTES_PER_COLUMN > limit)
    return nm_diag_set(d, NM_ERR_PARAM, "cellSize",
                       "voxel grid of %d x %d cells needs about %.0f MB, over the memory limit of %.0f MB",
                       rc->grid_w, rc->grid_h, columns * NM_BYTES_PER_COLUMN / 1048576.0, limit / 1048576.0);
  return NM_OK;
}

/* Recast area id of each volume: 0 ground -> 63, -1 -> 0 (not walkable). */
static nm_status volume_areas(nm_build_ctx *ctx) {
  const nm_build_config *c = ctx->cfg;
  int i;
  if (c->nvolumes == 0) return NM_OK;
  if (!(ctx->vol_areas = (uint8_t *)nm_malloc(&ctx->a, (size_t)c->nvolumes))) return NM_ERR_NOMEM;
  for (i = 0; i < c->nvolumes; i++) {
    const int a = c->volumes[i].area;
    ctx->vol_areas[i] = (uint8_t)(a < 0 ? NM_NULL_AREA : a == 0 ? NM_WALKABLE_AREA : a);
  }
  return NM_OK;
}

/* ---- solo and tiled builds ---- */

/* ERR_EMPTY with the likely reason nothing walkable came out: triangles
 * wound the wrong way (facing down), all too steep, or walkable ones that
 * left no region (too small, or too narrow or low for the agent). */
static nm_status no_walkable(const nm_build_ctx *ctx, nm_diag *diag) {
  int up, down;
  nm_count_walkable_triangles(ctx->rc.walkable_slope, ctx->verts, ctx->tris, ctx->ntris, &up, &down);
  if (up == 0 && down > 0)
    return nm_diag_set(diag, NM_ERR_EMPTY, "triangles",
                       "%d of %d triangles face down (wound clockwise seen from above): reverse them", down,
                       ctx->ntris);
  if (up == 0)
    return nm_diag_set(diag, NM_ERR_EMPTY, "agentMaxSlope", "no triangle is flatter than agentMaxSlope (%g degrees)",
                       (double)ctx->rc.walkable_slope);
  return nm_diag_set(diag, NM_ERR_EMPTY, "agentRadius",
                     "%d walkable triangles left no region (regionMinSize, agentRadius, agentHeight)", up);
}

/* One tile over the whole box; the mesh is shaped by that tile. */
static nm_status build_solo(nm_build_ctx *ctx, const nm_alloc *alloc, nm_diag *diag, nm_navmesh **out,
                            nm_build_stats *stats) {
  const nm_build_config *cfg = ctx->cfg;
  nm_tile_result r;
  nm_status st;
  nm_build_tile(ctx, 0, 0, &r);
  if (r.st < 0) {
    if (diag) *diag = r.diag;
    return r.st;
  }
  nm_stats_add(stats, &r.stats);
  if (!r.blob) return no_walkable(ctx, diag);
  st = nm_navmesh_load(r.blob, r.size, alloc, diag, out);
  nm_free(&ctx->a, r.blob, r.size);
  if (st < 0) return st;
  stats->tiles = 1;
  stats->polys = r.npolys;
  if (cfg->progress && cfg->progress(cfg->progress_ud, 1, 1)) {
    nm_navmesh_release(*out);
    *out = NULL;
    return nm_diag_set(diag, NM_ERR_PARAM, "progress", "build cancelled by the progress callback");
  }
  return NM_OK;
}

void nm_build_grid_params(const nm_rc_config *rc, nm_navmesh_params *p) {
  const uint32_t ntiles = (uint32_t)(rc->tiles_x * rc->tiles_y);
  const int tile_bits = nm_mini((int)nm_ilog2(nm_next_pow2(ntiles)), NM_MAX_TILE_BITS);
  nm_vcopy(p->orig, rc->bmin);
  p->tile_width = p->tile_height = rc->tile_world;
  p->max_tiles = 1 << tile_bits;
  p->max_polys = 1 << (22 - tile_bits);
}

nm_status nm_build_tiled_tris(nm_build_ctx *ctx) {
  nm_status st = nm_chunky_build(ctx->verts, ctx->tris, ctx->ntris, NM_CHUNK_TRIS, &ctx->a, &ctx->chunky);
  if (st >= 0 && ctx->ntris > 0) {
    if ((ctx->tri_areas = (uint8_t *)nm_calloc(&ctx->a, (size_t)ctx->ntris)) == NULL) st = NM_ERR_NOMEM;
    else nm_mark_walkable_triangles(ctx->rc.walkable_slope, ctx->verts, ctx->chunky.tris, ctx->ntris, ctx->tri_areas);
  }
  return st;
}

/* The tile grid; tile and polygon bits as RecastDemo chooses them. */
static nm_status build_tiled(nm_build_ctx *ctx, const nm_alloc *alloc, nm_diag *diag, nm_navmesh **out,
                             nm_build_stats *stats) {
  nm_navmesh_params p;
  nm_navmesh *mesh = NULL;
  nm_status st;
  nm_build_grid_params(&ctx->rc, &p);
  if ((st = nm_navmesh_new(&p, alloc, diag, &mesh)) < 0) return st;
  st = nm_build_tiled_tris(ctx);
  if (st >= 0) st = nm_build_tiles(ctx, mesh, diag, stats);
  if (st >= 0 && stats->tiles == 0) st = no_walkable(ctx, diag);
  if (st < 0) {
    nm_navmesh_release(mesh);
    return st;
  }
  *out = mesh;
  return NM_OK;
}

nm_status nm_build_prepare(nm_build_ctx *ctx, const int *tris, int ntris, nm_diag *diag) {
  nm_status st = drop_degenerate(ctx, tris, ntris, &ctx->owned_tris);
  if (st >= 0) st = volume_areas(ctx);
  if (st >= 0 && ctx->ntris == 0) st = nm_diag_set(diag, NM_ERR_EMPTY, "triangles", "no triangles with area");
  return st;
}

void nm_build_cleanup(nm_build_ctx *ctx, nm_status st, nm_diag *diag) {
  nm_free(&ctx->a, ctx->tri_areas, (size_t)ctx->ntris);
  nm_chunky_free(&ctx->chunky);
  nm_free(&ctx->a, ctx->vol_areas, (size_t)ctx->cfg->nvolumes);
  if (ctx->owned_tris) nm_free(&ctx->a, (void *)ctx->tris, (size_t)ctx->owned_tris * 3 * sizeof(int));
  if (st == NM_ERR_NOMEM) nm_diag_set(diag, st, "memory", "out of memory");
}

/* Everything after the checks: context, triangles, the build. */
static nm_status run_build(nm_build_ctx *ctx, const int *tris, int ntris, const nm_alloc *alloc, nm_diag *diag,
                           nm_navmesh **out, nm_build_stats *stats) {
  nm_status st = nm_build_prepare(ctx, tris, ntris, diag);
  if (st >= 0 && ctx->rc.tile_size <= 0) {
    if ((ctx->tri_areas = (uint8_t *)nm_calloc(&ctx->a, (size_t)ctx->ntris)) == NULL) st = NM_ERR_NOMEM;
    else nm_mark_walkable_triangles(ctx->rc.walkable_slope, ctx->verts, ctx->tris, ctx->ntris, ctx->tri_areas);
    if (st >= 0) st = build_solo(ctx, alloc, diag, out, stats);
  } else if (st >= 0) {
    st = build_tiled(ctx, alloc, diag, out, stats);
  }
  nm_build_cleanup(ctx, st, diag);
  return st;
}

/* All checks that need no allocation. */
static nm_status check_all(const float *verts, int nverts, const int *tris, int ntris, const nm_build_config *cfg,
                           nm_diag *diag) {
  nm_status st;
  if (!cfg) return nm_diag_set(diag, NM_ERR_PARAM, "config", "missing configuration");
  if ((st = check_scalars(cfg, diag)) < 0 || (st = check_cells(cfg, diag)) < 0 || (st = check_lists(cfg, diag)) < 0)
    return st;
  if ((st = check_input(verts, nverts, tris, ntris, diag)) < 0) return st;
  if (nverts == 0 || ntris == 0) return nm_diag_set(diag, NM_ERR_EMPTY, "triangles", "no triangles");
  return NM_OK;
}

nm_status nm_build_setup(nm_build_ctx *ctx, const float *verts, int nverts, const int *tris, int ntris,
                         const nm_build_config *cfg, const nm_alloc *alloc, nm_diag *diag) {
  nm_status st;
  memset(ctx, 0, sizeof *ctx);
  if ((st = check_all(verts, nverts, tris, ntris, cfg, diag)) < 0) return st;
  ctx->cfg = cfg;
  ctx->verts = verts;
  ctx->nverts = nverts;
  derive_config(cfg, &ctx->rc);
  build_box(cfg, verts, nverts, ctx->rc.bmin, ctx->rc.bmax);
  if ((st = derive_grid(cfg, &ctx->rc, diag)) < 0) return st;
  if (ctx->rc.grid_w < 1 || ctx->rc.grid_h < 1)
    return nm_diag_set(diag, NM_ERR_EMPTY, "bounds", "build box is narrower than one cell");
  ctx->counter.base = nm_alloc_resolve(alloc);
  ctx->counter.system = !alloc || !alloc->fn;
  ctx->a.fn = nm_counting_fn;
  ctx->a.ud = &ctx->counter;
  return NM_OK;
}

nm_status nm_navmesh_build(const float *verts, int nverts, const int *tris, int ntris,
                           const nm_build_config *cfg, const nm_alloc *alloc, nm_diag *diag,
                           nm_navmesh **out, nm_build_stats *stats) {
  return nm_build_run(verts, nverts, tris, ntris, cfg, alloc, NULL, diag, out, stats);
}

nm_status nm_build_run(const float *verts, int nverts, const int *tris, int ntris, const nm_build_config *cfg,
                       const nm_alloc *alloc, const int *cancel, nm_diag *diag, nm_navmesh **out,
                       nm_build_stats *stats) {
  nm_build_ctx ctx;
  nm_build_stats local;
  nm_status st;
  const double t0 = nm_clock_ms();
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  if (diag) { diag->field = NULL; diag->msg[0] = 0; }
  if (!out) return nm_diag_set(diag, NM_ERR_PARAM, "out", "missing output pointer");
  *out = NULL;
  if ((st = nm_build_setup(&ctx, verts, nverts, tris, ntris, cfg, alloc, diag)) < 0) return st;
  ctx.cancel = cancel;
  st = run_build(&ctx, tris, ntris, &ctx.counter.base, diag, out, stats);
  stats->peak_bytes = ctx.counter.peak;
  stats->ms_total = nm_clock_ms() - t0;
  return st;
}

nm_status nm_build_ctx_init(nm_build_ctx *ctx, const float *verts, int nverts, const int *tris, int ntris,
                            const nm_build_config *cfg, const nm_alloc *alloc, nm_diag *diag) {
  nm_status st = nm_build_setup(ctx, verts, nverts, tris, ntris, cfg, alloc, diag);
  if (st < 0) return st;
  if (cfg->tile_size <= 0) return nm_diag_set(diag, NM_ERR_PARAM, "tileSize", "a tiled build needs tileSize > 0");
  st = nm_build_prepare(ctx, tris, ntris, diag);
  if (st >= 0) st = nm_build_tiled_tris(ctx);
  if (st < 0) {
    nm_build_cleanup(ctx, st, diag);
    memset(ctx, 0, sizeof *ctx);
  }
  return st;
}

void nm_build_ctx_free(nm_build_ctx *ctx) {
  nm_build_cleanup(ctx, NM_OK, NULL);
  memset(ctx, 0, sizeof *ctx);
}
