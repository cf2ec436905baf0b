// detour_cache_bench.cpp -- our tile cache and Detour's dtTileCache (Debian's
// librecast-dev) side by side in one process, on each shared .tset: whole
// load, rebuild of the tiles of one grid cell (buildNavMeshTilesAt), one
// cylinder obstacle added / removed and updated until done, stored bytes;
// then whole caches built from the OBJ (RecastDemo's rasterizeTileLayers:
// Recast's heightfield layers, dtBuildTileCacheLayer, every tile built;
// Detour's triangles per tile are picked before timing, ours are not).
// Rounds are interleaved (ours first on even rounds, Detour first on odd
// ones); each figure is the median over rounds of the per-round ratio
// ours / Detour. Detour gets RecastDemo's helpers: a 32000-byte linear
// allocator reset per layer build, area 63 -> 0 with flags 1, and FastLZ
// as its compressor -- our level-1 codec (src/tilecache/fastlz.c) behind its
// dtTileCacheCompressor interface, since Debian ships no FastLZ.
//   detour_cache_bench <shared-dir> [rounds]
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourTileCache.h>
#include <DetourTileCacheBuilder.h>
#include <DetourAlloc.h>
#include <Recast.h>
#include "recast_front.h"
#include <cmath>
#include <cstdio>
#include <vector>
#include <cstdlib>
#include <cstring>
extern "C" {
#include "cache_bench.h"
/* our FastLZ level-1 codec (internal to the library, linked statically) */
nm_status nm_fastlz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *outlen);
size_t nm_fastlz_compress(const uint8_t *in, size_t n, uint8_t *out, uint32_t *htab);
size_t nm_fastlz_bound(size_t n);
size_t nm_fastlz_htab_bytes(void);
}

struct FastLZ : dtTileCacheCompressor {
  uint32_t *htab;
  FastLZ() : htab((uint32_t *)malloc(nm_fastlz_htab_bytes())) {}
  ~FastLZ() { free(htab); }
  int maxCompressedSize(const int n) { return (int)nm_fastlz_bound((size_t)n); }
  dtStatus compress(const unsigned char *b, const int n, unsigned char *out, const int, int *outn) {
    *outn = (int)nm_fastlz_compress(b, (size_t)n, out, htab);
    return DT_SUCCESS;
  }
  dtStatus decompress(const unsigned char *in, const int n, unsigned char *b, const int cap, int *outn) {
    size_t got = 0;
    if (nm_fastlz_decompress(in, (size_t)n, b, (size_t)cap, &got) < 0) return DT_FAILURE;
    *outn = (int)got;
    return DT_SUCCESS;
  }
};

// RecastDemo's linear allocator: one buffer, reset before each layer build.
struct Linear : dtTileCacheAlloc {
  unsigned char *buf;
  size_t cap, top;
  Linear(size_t n) : buf((unsigned char *)malloc(n)), cap(n), top(0) {}
  ~Linear() { free(buf); }
  void reset() { top = 0; }
  void *alloc(const size_t size) {
    const size_t n = (size + 15) & ~(size_t)15;
    if (top + n > cap) return 0;
    void *p = buf + top;
    top += n;
    return p;
  }
  void free(void *) {}
};

// area 63 -> 0, flags 1 (the sample's mesh process, for the areas that occur)
struct DemoProc : dtTileCacheMeshProcess {
  void process(dtNavMeshCreateParams *p, unsigned char *areas, unsigned short *flags) {
    for (int i = 0; i < p->polyCount; i++) {
      if (areas[i] == DT_TILECACHE_WALKABLE_AREA) areas[i] = 0;
      flags[i] = 1;
    }
  }
};

struct Detour {
  dtTileCache *tc;
  dtNavMesh *nav;
};

// Loads a TSET as RecastDemo's Load does (ms in *ms).
static bool detour_load(const uint8_t *b, size_t len, FastLZ *comp, Linear *la, DemoProc *proc, Detour *d, double *ms) {
  struct Hdr { int magic, version, numTiles; dtNavMeshParams mesh; dtTileCacheParams cache; } h;
  const double t0 = bench_now();
  memcpy(&h, b, sizeof h);
  d->tc = dtAllocTileCache();
  d->nav = dtAllocNavMesh();
  if (dtStatusFailed(d->tc->init(&h.cache, la, comp, proc)) || dtStatusFailed(d->nav->init(&h.mesh))) return false;
  size_t off = sizeof h;
  for (int i = 0; i < h.numTiles; i++) {
    unsigned int ref;
    int size;
    memcpy(&ref, b + off, 4);
    memcpy(&size, b + off + 4, 4);
    off += 8;
    if (!ref || !size) break;
    unsigned char *data = (unsigned char *)dtAlloc(size, DT_ALLOC_PERM);
    memcpy(data, b + off, size);
    off += size;
    dtCompressedTileRef tile = 0;
    if (dtStatusFailed(d->tc->addTile(data, size, DT_COMPRESSEDTILE_FREE_DATA, &tile))) dtFree(data);
    if (tile) d->tc->buildNavMeshTile(tile, d->nav);
  }
  *ms = (bench_now() - t0) * 1e3;
  return true;
}

static void detour_free(Detour *d) {
  dtFreeTileCache(d->tc);
  dtFreeNavMesh(d->nav);
}

static double detour_rebuild(Detour *d, const cb_set *s) {
  double t[CB_CELLS];
  for (int i = 0; i < s->ncells; i++) {
    const double t0 = bench_now();
    d->tc->buildNavMeshTilesAt(s->cells[i * 2], s->cells[i * 2 + 1], d->nav);
    t[i] = (bench_now() - t0) * 1e6;
  }
  return bench_median(t, s->ncells);
}

static void detour_obstacle(Detour *d, const cb_set *s, double *add, double *rem) {
  double ta[CB_POINTS], tr[CB_POINTS];
  for (int i = 0; i < s->npts; i++) {
    dtObstacleRef id = 0;
    bool done = false;
    double t0 = bench_now();
    d->tc->addObstacle(&s->pts[i * 3], 1.0f, 2.0f, &id);
    do d->tc->update(0, d->nav, &done); while (!done);
    ta[i] = (bench_now() - t0) * 1e6;
    t0 = bench_now();
    d->tc->removeObstacle(id);
    do d->tc->update(0, d->nav, &done); while (!done);
    tr[i] = (bench_now() - t0) * 1e6;
  }
  *add = bench_median(ta, s->npts);
  *rem = bench_median(tr, s->npts);
}

static double ratio(double *r, int n) { return bench_median(r, n); }

// ---- whole-cache builds from the OBJ: RecastDemo's rasterizeTileLayers ----

struct Geo {
  float *v = 0;
  int *t = 0, nv = 0, nt = 0;
  float bmin[3], bmax[3];
  std::vector<std::vector<int> > tile_tris; // triangles near each tile, picked before timing
  int tw = 0, th = 0;
  rcConfig cfg;
};

// RecastDemo's configuration for the Temp Obstacles sample (tile size 48).
static void geo_plan(Geo *g) {
  rcConfig &c = g->cfg;
  memset(&c, 0, sizeof c);
  c.cs = 0.3f; c.ch = 0.2f; c.walkableSlopeAngle = 45.0f;
  c.walkableHeight = (int)std::ceil(2.0f / c.ch);
  c.walkableClimb = (int)std::floor(0.9f / c.ch);
  c.walkableRadius = (int)std::ceil(0.6f / c.cs);
  c.tileSize = 48;
  c.borderSize = c.walkableRadius + 3;
  c.width = c.height = c.tileSize + c.borderSize * 2;
  rcCalcBounds(g->v, g->nv, g->bmin, g->bmax);
  rcVcopy(c.bmin, g->bmin);
  rcVcopy(c.bmax, g->bmax);
  int gw, gh;
  rcCalcGridSize(c.bmin, c.bmax, c.cs, &gw, &gh);
  g->tw = (gw + 47) / 48;
  g->th = (gh + 47) / 48;
  const float tcs = 48 * c.cs;
  for (int y = 0; y < g->th; y++)
    for (int x = 0; x < g->tw; x++) {
      float lo[2] = {c.bmin[0] + x * tcs - c.borderSize * c.cs, c.bmin[2] + y * tcs - c.borderSize * c.cs};
      float hi[2] = {c.bmin[0] + (x + 1) * tcs + c.borderSize * c.cs, c.bmin[2] + (y + 1) * tcs + c.borderSize * c.cs};
      std::vector<int> tris;
      for (int i = 0; i < g->nt; i++) {
        const int *t = &g->t[i * 3];
        float a[2] = {1e30f, 1e30f}, b[2] = {-1e30f, -1e30f};
        for (int k = 0; k < 3; k++) {
          const float *p = &g->v[t[k] * 3];
          a[0] = std::fmin(a[0], p[0]); b[0] = std::fmax(b[0], p[0]);
          a[1] = std::fmin(a[1], p[2]); b[1] = std::fmax(b[1], p[2]);
        }
        if (a[0] > hi[0] || b[0] < lo[0] || a[1] > hi[1] || b[1] < lo[1]) continue;
        tris.insert(tris.end(), t, t + 3);
      }
      g->tile_tris.push_back(tris);
    }
}

// Layers of one tile, compressed, appended to out (RecastDemo's order).
static void detour_tile_layers(rcContext *ctx, const Geo *g, int tx, int ty, FastLZ *comp,
                               std::vector<std::pair<unsigned char *, int> > *out) {
  rcConfig c = g->cfg;
  const float tcs = c.tileSize * c.cs;
  c.bmin[0] = g->cfg.bmin[0] + tx * tcs - c.borderSize * c.cs;
  c.bmin[2] = g->cfg.bmin[2] + ty * tcs - c.borderSize * c.cs;
  c.bmax[0] = g->cfg.bmin[0] + (tx + 1) * tcs + c.borderSize * c.cs;
  c.bmax[2] = g->cfg.bmin[2] + (ty + 1) * tcs + c.borderSize * c.cs;
  const std::vector<int> &tris = g->tile_tris[ty * g->tw + tx];
  const int n = (int)tris.size() / 3;
  if (!n) return;
  rcCompactHeightfield *chf = rc_front(ctx, c, g->v, g->nv, tris.data(), n);
  rcHeightfieldLayerSet *lset = rcAllocHeightfieldLayerSet();
  rcBuildHeightfieldLayers(ctx, *chf, c.borderSize, c.walkableHeight, *lset);
  for (int i = 0; i < lset->nlayers && i < 32; i++) {
    const rcHeightfieldLayer *l = &lset->layers[i];
    dtTileCacheLayerHeader h;
    memset(&h, 0, sizeof h);
    h.magic = DT_TILECACHE_MAGIC; h.version = DT_TILECACHE_VERSION;
    h.tx = tx; h.ty = ty; h.tlayer = i;
    rcVcopy(h.bmin, l->bmin); rcVcopy(h.bmax, l->bmax);
    h.width = (unsigned char)l->width; h.height = (unsigned char)l->height;
    h.minx = (unsigned char)l->minx; h.maxx = (unsigned char)l->maxx;
    h.miny = (unsigned char)l->miny; h.maxy = (unsigned char)l->maxy;
    h.hmin = (unsigned short)l->hmin; h.hmax = (unsigned short)l->hmax;
    unsigned char *data = 0;
    int size = 0;
    if (dtStatusSucceed(dtBuildTileCacheLayer(comp, &h, l->heights, l->areas, l->cons, &data, &size)))
      out->push_back(std::make_pair(data, size));
  }
  rcFreeHeightfieldLayerSet(lset);
  rcFreeCompactHeightfield(chf);
}

// A whole cache as RecastDemo builds it (tiles built in slot order); ms.
static double detour_build(const Geo *g, FastLZ *comp, Linear *la, DemoProc *proc) {
  rcContext ctx(false);
  const double t0 = bench_now();
  std::vector<std::pair<unsigned char *, int> > layers;
  for (int y = 0; y < g->th; y++)
    for (int x = 0; x < g->tw; x++) detour_tile_layers(&ctx, g, x, y, comp, &layers);
  dtTileCacheParams tp;
  memset(&tp, 0, sizeof tp);
  rcVcopy(tp.orig, g->bmin);
  tp.cs = 0.3f; tp.ch = 0.2f; tp.width = tp.height = 48;
  tp.walkableHeight = 2.0f; tp.walkableRadius = 0.6f; tp.walkableClimb = 0.9f;
  tp.maxSimplificationError = 1.3f;
  tp.maxTiles = g->tw * g->th * 4;
  tp.maxObstacles = 1024;
  int tb = 0;
  while ((1 << tb) < g->tw * g->th * 4) tb++;
  if (tb > 14) tb = 14;
  dtNavMeshParams np;
  rcVcopy(np.orig, g->bmin);
  np.tileWidth = np.tileHeight = 48 * 0.3f;
  np.maxTiles = 1 << tb;
  np.maxPolys = 1 << (22 - tb);
  dtTileCache *tc = dtAllocTileCache();
  dtNavMesh *nav = dtAllocNavMesh();
  tc->init(&tp, la, comp, proc);
  nav->init(&np);
  for (size_t i = 0; i < layers.size(); i++) {
    dtCompressedTileRef ref = 0;
    if (dtStatusFailed(tc->addTile(layers[i].first, layers[i].second, DT_COMPRESSEDTILE_FREE_DATA, &ref)))
      dtFree(layers[i].first);
    else
      tc->buildNavMeshTile(ref, nav);
  }
  const double ms = (bench_now() - t0) * 1e3;
  dtFreeTileCache(tc);
  dtFreeNavMesh(nav);
  return ms;
}

// Ours: nm_cache_build with the same settings (chunky partition included); ms.
static double ours_build(const Geo *g) {
  nm_build_config cfg;
  nm_cache *c = 0;
  nm_build_config_init(&cfg);
  cfg.tile_size = 48;
  const double t0 = bench_now();
  nm_cache_build(g->v, g->nv, g->t, g->nt, &cfg, 1024, 0, 0, 0, &c);
  const double ms = (bench_now() - t0) * 1e3;
  nm_cache_free(c);
  return ms;
}

// Interleaved whole-cache builds from the OBJ.
static void bench_builds(const char *shared, const char *name, int rounds, FastLZ *comp, Linear *la,
                         DemoProc *proc) {
  size_t len;
  uint8_t *text = cb_read(shared, "meshes", name, ".obj", &len);
  Geo g;
  if (!text || nm_obj_parse((const char *)text, len, 0, 0, &g.v, &g.nv, &g.t, &g.nt) < 0) { free(text); return; }
  geo_plan(&g);
  double ours[16], det[16], r[16];
  for (int i = 0; i < rounds && i < 16; i++) {
    if (i % 2 == 0) { ours[i] = ours_build(&g); det[i] = detour_build(&g, comp, la, proc); }
    else { det[i] = detour_build(&g, comp, la, proc); ours[i] = ours_build(&g); }
    r[i] = ours[i] / det[i];
  }
  const int n = rounds < 16 ? rounds : 16;
  const double rr = ratio(r, n), om = bench_median(ours, n), dm = bench_median(det, n);
  printf("%-11s whole cache from the OBJ: ours %9.1f ms, Detour %9.1f ms (ratio %.2f)\n", name, om, dm, rr);
  fprintf(stderr, "{\"impl\":\"cache-build-vs-detour\",\"mesh\":\"%s\",\"ours_ms\":%.2f,\"detour_ms\":%.2f,"
          "\"ratio\":%.3f}\n", name, om, dm, rr);
  nm_obj_free(0, g.v, g.nv, g.t, g.nt);
  free(text);
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const int rounds = argc > 2 ? atoi(argv[2]) : 5;
  FastLZ comp;
  Linear la(32000);
  DemoProc proc;
  printf("tile cache, ours vs Detour's dtTileCache (librecast-dev 1.5.1) in one process, %d interleaved rounds\n", rounds);
  printf("(ratio = median over rounds of ours/Detour; us and ms are medians; Detour's compressor: our FastLZ)\n");
  printf("%-11s %16s %16s %16s %16s %9s\n", "cache", "load ms (ratio)", "cell us (ratio)", "add us (ratio)",
         "remove us (ratio)", "bytes");
  for (int m = 0; cb_meshes[m]; m++) {
    size_t len;
    uint8_t *b = cb_read(shared, "tilecaches", cb_meshes[m], ".tset", &len);
    if (!b || bench_skip(cb_meshes[m])) { free(b); continue; }
    nm_cache *c = 0;
    nm_cache_load(b, len, 0, 0, 0, &c);
    static cb_set s;
    cb_sample(nm_cache_navmesh(c), &s);
    Detour d;
    double dms;
    detour_load(b, len, &comp, &la, &proc, &d, &dms);
    double rl[64], rc[64], ra[64], rr[64], ol[64], oc[64], oa[64], orr[64];
    for (int r = 0; r < rounds && r < 64; r++) {
      double l0, c0, a0, x0, l1 = 0, c1, a1, x1;
      for (int k = 0; k < 2; k++) {
        if ((k == 0) == (r % 2 == 0)) {
          l0 = cb_ours_load(b, len);
          c0 = cb_ours_rebuild(c, &s);
          cb_ours_obstacle(c, &s, &a0, &x0);
        } else {
          Detour e;
          detour_load(b, len, &comp, &la, &proc, &e, &l1);
          detour_free(&e);
          c1 = detour_rebuild(&d, &s);
          detour_obstacle(&d, &s, &a1, &x1);
        }
      }
      ol[r] = l0; oc[r] = c0; oa[r] = a0; orr[r] = x0;
      rl[r] = l0 / l1; rc[r] = c0 / c1; ra[r] = a0 / a1; rr[r] = x0 / x1;
    }
    nm_cache_info info;
    nm_cache_get_info(c, &info);
    printf("%-11s %8.2f (%5.2f) %8.1f (%5.2f) %8.1f (%5.2f) %8.1f (%5.2f) %9lu\n", cb_meshes[m],
           bench_median(ol, rounds), ratio(rl, rounds), bench_median(oc, rounds), ratio(rc, rounds),
           bench_median(oa, rounds), ratio(ra, rounds), bench_median(orr, rounds), ratio(rr, rounds),
           (unsigned long)info.compressed_bytes);
    fprintf(stderr,
            "{\"impl\":\"cache-vs-detour\",\"mesh\":\"%s\",\"load_ratio\":%.3f,\"cell_ratio\":%.3f,"
            "\"add_ratio\":%.3f,\"remove_ratio\":%.3f,\"bytes\":%lu}\n",
            cb_meshes[m], ratio(rl, rounds), ratio(rc, rounds), ratio(ra, rounds), ratio(rr, rounds),
            (unsigned long)info.compressed_bytes);
    detour_free(&d);
    nm_cache_free(c);
    free(b);
  }
  for (int m = 0; cb_meshes[m]; m++)
    if (!bench_skip(cb_meshes[m])) bench_builds(shared, cb_meshes[m], rounds < 3 ? rounds : 3, &comp, &la, &proc);
  return 0;
}
