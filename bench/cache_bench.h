/* cache_bench.h -- the tile-cache timings on our side, shared by
 * bench/cache_bench.c (ours alone) and bench/detour_cache_bench.cpp (ours
 * and Detour's dtTileCache interleaved in one process): loading a whole
 * .tset (decompress and build every layer's tile), rebuilding the tiles of
 * one grid cell, and one cylinder obstacle (radius 1, height 2, as
 * RecastDemo's tool) added and updated until done, then removed and
 * updated until done, at polygon centres spread over the mesh. */
#ifndef NM_CACHE_BENCH_H
#define NM_CACHE_BENCH_H
#include "navmesh.h"
#include "cases.h"

#define CB_POINTS 200
#define CB_CELLS 200

static const char *const cb_meshes[] = {"dungeon", "nav_test", "undulating", "city", NULL};

/* Sample points and cells of one cache. */
typedef struct cb_set {
  float pts[CB_POINTS * 3];
  int npts;
  int cells[CB_CELLS * 2];
  int ncells;
} cb_set;

/* Centre of polygon ref (its vertex mean). */
static void cb_centre(const nm_navmesh *m, nm_polyref ref, float *out) {
  float v[3 * 6];
  int n = 0, i;
  nm_navmesh_get_poly_verts(m, ref, v, &n);
  out[0] = out[1] = out[2] = 0;
  for (i = 0; i < n; i++) {
    out[0] += v[i * 3] / (float)n;
    out[1] += v[i * 3 + 1] / (float)n;
    out[2] += v[i * 3 + 2] / (float)n;
  }
}

typedef struct cb_collect { nm_polyref *refs; int n, cap; } cb_collect;
static void cb_take(void *ud, nm_polyref ref) {
  cb_collect *c = (cb_collect *)ud;
  if (c->n < c->cap) c->refs[c->n] = ref;
  c->n++;
}

/* Points: centres of CB_POINTS polygons evenly spread in slot order, 0.5
 * below the surface; cells: the grid cells of CB_CELLS of them. */
static void cb_sample(const nm_navmesh *m, cb_set *s) {
  nm_navmesh_info info;
  cb_collect c;
  int i;
  nm_navmesh_get_info(m, &info);
  c.cap = info.polys;
  c.n = 0;
  c.refs = (nm_polyref *)malloc(sizeof(nm_polyref) * (size_t)(c.cap + 1));
  nm_navmesh_foreach_poly(m, cb_take, &c);
  s->npts = s->ncells = 0;
  for (i = 0; i < CB_POINTS && c.n > 0; i++) {
    float *p = &s->pts[s->npts * 3];
    int tx, ty;
    cb_centre(m, c.refs[(size_t)i * (size_t)c.n / CB_POINTS], p);
    p[1] -= 0.5f;
    s->npts++;
    nm_navmesh_tile_loc(m, p, &tx, &ty);
    if (s->ncells < CB_CELLS) {
      s->cells[s->ncells * 2] = tx;
      s->cells[s->ncells * 2 + 1] = ty;
      s->ncells++;
    }
  }
  free(c.refs);
}

/* ms to load the whole cache. */
static double cb_ours_load(const uint8_t *b, size_t len) {
  nm_cache *c = NULL;
  const double t0 = bench_now();
  nm_cache_load(b, len, NULL, NULL, NULL, &c);
  {
    const double t = (bench_now() - t0) * 1e3;
    nm_cache_free(c);
    return t;
  }
}

/* Median us to rebuild the tiles of one sampled cell. */
static double cb_ours_rebuild(nm_cache *c, const cb_set *s) {
  double t[CB_CELLS];
  int i;
  for (i = 0; i < s->ncells; i++) {
    const double t0 = bench_now();
    nm_cache_build_tiles_at(c, s->cells[i * 2], s->cells[i * 2 + 1]);
    t[i] = (bench_now() - t0) * 1e6;
  }
  return bench_median(t, s->ncells);
}

/* Median us of add + update until done (*add) and remove + update (*rem). */
static void cb_ours_obstacle(nm_cache *c, const cb_set *s, double *add, double *rem) {
  double ta[CB_POINTS], tr[CB_POINTS];
  int i;
  for (i = 0; i < s->npts; i++) {
    nm_obstacle ob;
    uint32_t id = 0;
    int done = 0;
    double t0;
    memset(&ob, 0, sizeof ob);
    ob.kind = NM_OBSTACLE_CYLINDER;
    memcpy(ob.pos, &s->pts[i * 3], sizeof ob.pos);
    ob.radius = 1.0f;
    ob.height = 2.0f;
    t0 = bench_now();
    nm_cache_add_obstacle(c, &ob, &id);
    do nm_cache_update(c, 1, &done, NULL); while (!done);
    ta[i] = (bench_now() - t0) * 1e6;
    t0 = bench_now();
    nm_cache_remove_obstacle(c, id);
    do nm_cache_update(c, 1, &done, NULL); while (!done);
    tr[i] = (bench_now() - t0) * 1e6;
  }
  *add = bench_median(ta, s->npts);
  *rem = bench_median(tr, s->npts);
}

static uint8_t *cb_read(const char *shared, const char *dir, const char *name, const char *ext, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s/%s%s", shared, dir, name, ext);
  return bench_read_file(path, len);
}
#endif
