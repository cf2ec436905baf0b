/* onetile.c -- one tile of a tiled build, alone, and the grid it lies in.
 *
 * A tile of a tiled build depends on the whole input only through the
 * build box (the bounds of all vertices, or the configured box), the
 * chunky partition of all triangles (which decides the order the tile's
 * triangles are rasterized in) and the configuration. Setting those up as
 * nm_navmesh_build does and running the tile pipeline for one (tx, ty)
 * gives the blob that build adds to its mesh for that tile, byte for byte
 * (the links are made when a blob is added to a mesh, so a blob never has
 * any). So a server can rebuild the tile under a changed piece of level
 * and swap it in (nm_navmesh_remove_tile + nm_navmesh_add_tile_ref), into
 * a mesh made by nm_navmesh_build or by nm_navmesh_new with the
 * parameters of nm_build_tile_grid. */
#include "nm_bake.h"

/* The tile grid checks: a tiled configuration, a cell on the grid. */
static nm_status check_tile(const nm_build_ctx *ctx, int tx, int ty, nm_diag *diag) {
  if (ctx->rc.tile_size <= 0)
    return nm_diag_set(diag, NM_ERR_PARAM, "tileSize", "a tile build needs tileSize > 0");
  if (tx < 0 || ty < 0 || tx >= ctx->rc.tiles_x || ty >= ctx->rc.tiles_y)
    return nm_diag_set(diag, NM_ERR_PARAM, "tile", "tile (%d, %d) is off the %d x %d tile grid", tx, ty,
                       ctx->rc.tiles_x, ctx->rc.tiles_y);
  return NM_OK;
}

nm_status nm_navmesh_build_tile(const float *verts, int nverts, const int *tris, int ntris,
                                const nm_build_config *cfg, int tx, int ty, const nm_alloc *alloc,
                                nm_diag *diag, void **data, size_t *size, nm_build_stats *stats) {
  nm_build_ctx ctx;
  nm_build_stats local;
  nm_tile_result r;
  nm_status st;
  const double t0 = nm_clock_ms();
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  memset(&r, 0, sizeof r);
  if (diag) { diag->field = NULL; diag->msg[0] = 0; }
  if (!data || !size) return nm_diag_set(diag, NM_ERR_PARAM, "out", "missing output pointer");
  *data = NULL;
  *size = 0;
  if ((st = nm_build_setup(&ctx, verts, nverts, tris, ntris, cfg, alloc, diag)) < 0) return st;
  if ((st = check_tile(&ctx, tx, ty, diag)) < 0) return st;
  st = nm_build_prepare(&ctx, tris, ntris, diag);
  if (st >= 0) st = nm_build_tiled_tris(&ctx);
  if (st >= 0) {
    nm_build_tile(&ctx, tx, ty, &r);
    nm_stats_add(stats, &r.stats);
    if ((st = r.st) < 0 && diag) *diag = r.diag;
  }
  if (st >= 0 && !r.blob)
    st = nm_diag_set(diag, NM_ERR_EMPTY, "tile", "tile (%d, %d) has no walkable polygons", tx, ty);
  nm_build_cleanup(&ctx, st, diag);
  if (st >= 0) { /* the counting hook wraps alloc: the blob is alloc's */
    *data = r.blob;
    *size = r.size;
    stats->tiles = 1;
    stats->polys = r.npolys;
  }
  stats->peak_bytes = ctx.counter.peak;
  stats->ms_total = nm_clock_ms() - t0;
  return st;
}

nm_status nm_build_tile_grid(const float *verts, int nverts, const nm_build_config *cfg, nm_diag *diag,
                             nm_navmesh_params *params, int *tiles_x, int *tiles_y) {
  static const int one_tri[3] = {0, 0, 0}; /* the checks want a triangle; only the box matters */
  nm_build_ctx ctx;
  nm_status st;
  if (diag) { diag->field = NULL; diag->msg[0] = 0; }
  if (!params || !tiles_x || !tiles_y) return nm_diag_set(diag, NM_ERR_PARAM, "out", "missing output pointer");
  if ((st = nm_build_setup(&ctx, verts, nverts, one_tri, nverts > 0 ? 1 : 0, cfg, NULL, diag)) < 0) return st;
  if (ctx.rc.tile_size <= 0)
    return nm_diag_set(diag, NM_ERR_PARAM, "tileSize", "a tile grid needs tileSize > 0");
  nm_build_grid_params(&ctx.rc, params);
  *tiles_x = ctx.rc.tiles_x;
  *tiles_y = ctx.rc.tiles_y;
  return NM_OK;
}
