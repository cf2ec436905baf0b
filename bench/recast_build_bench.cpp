// recast_build_bench.cpp -- the reference for build_bench.c: Recast itself
// (Debian's librecast-dev) building the same shared meshes with RecastDemo's
// Solo Mesh / Tile Mesh pipeline and default settings, timed the same way
// (median of 5 builds; BENCH_BUILDS / BENCH_ROUNDS override). Measured on the
// same machine at the same time, it is the fair yardstick on a busy machine.
// The triangles of each tile are picked before timing (RecastDemo picks them
// from a chunky partition made at load time); everything else is timed:
// heightfield to Detour tile data and the tile added to a dtNavMesh.
// Usage: recast_build_bench SHARED_DIR
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <vector>
#include "Recast.h"
#include "recast_front.h"
#include "DetourNavMesh.h"
#include "DetourNavMeshBuilder.h"
#include "navmesh.h"

namespace {

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

struct Geometry {
  float *v = nullptr;
  int *t = nullptr;
  int nv = 0, nt = 0;
  float bmin[3], bmax[3];
};

struct Settings {
  float cs = 0.3f, ch = 0.2f, height = 2.0f, radius = 0.6f, climb = 0.9f, slope = 45.0f;
  float region_min = 8, region_merge = 20, edge_len = 12.0f, edge_error = 1.3f;
  int nvp = 6;
  float detail_dist = 6.0f, detail_error = 1.0f;
  int tile_size = 0;
};

// rcConfig as RecastDemo's samples fill it.
rcConfig make_config(const Settings &s) {
  rcConfig c;
  memset(&c, 0, sizeof c);
  c.cs = s.cs;
  c.ch = s.ch;
  c.walkableSlopeAngle = s.slope;
  c.walkableHeight = (int)ceilf(s.height / c.ch);
  c.walkableClimb = (int)floorf(s.climb / c.ch);
  c.walkableRadius = (int)ceilf(s.radius / c.cs);
  c.maxEdgeLen = (int)(s.edge_len / s.cs);
  c.maxSimplificationError = s.edge_error;
  c.minRegionArea = (int)rcSqr(s.region_min);
  c.mergeRegionArea = (int)rcSqr(s.region_merge);
  c.maxVertsPerPoly = s.nvp;
  c.detailSampleDist = s.detail_dist < 0.9f ? 0 : s.cs * s.detail_dist;
  c.detailSampleMaxError = s.ch * s.detail_error;
  if (s.tile_size > 0) {
    c.tileSize = s.tile_size;
    c.borderSize = c.walkableRadius + 3;
    c.width = c.height = c.tileSize + c.borderSize * 2;
  }
  return c;
}

// One tile (or the solo mesh) from triangles to Detour tile data; nullptr
// when it has no polygons.
unsigned char *build_tile(rcContext *ctx, const Geometry &g, const std::vector<int> &tris, rcConfig c,
                          const Settings &s, int tx, int ty, int *size) {
  unsigned char *data = nullptr;
  const int n = (int)tris.size() / 3;
  rcCompactHeightfield *chf = rc_front(ctx, c, g.v, g.nv, tris.data(), n);
  rcBuildDistanceField(ctx, *chf);
  rcBuildRegions(ctx, *chf, c.borderSize, c.minRegionArea, c.mergeRegionArea);
  rcContourSet *cset = rcAllocContourSet();
  rcBuildContours(ctx, *chf, c.maxSimplificationError, c.maxEdgeLen, *cset);
  rcPolyMesh *pm = rcAllocPolyMesh();
  rcPolyMeshDetail *dm = rcAllocPolyMeshDetail();
  if (cset->nconts > 0 && rcBuildPolyMesh(ctx, *cset, c.maxVertsPerPoly, *pm) &&
      rcBuildPolyMeshDetail(ctx, *pm, *chf, c.detailSampleDist, c.detailSampleMaxError, *dm) && pm->npolys > 0) {
    for (int i = 0; i < pm->npolys; i++) {
      if (pm->areas[i] == RC_WALKABLE_AREA) pm->areas[i] = 0;
      pm->flags[i] = 1;
    }
    dtNavMeshCreateParams p;
    memset(&p, 0, sizeof p);
    p.verts = pm->verts;
    p.vertCount = pm->nverts;
    p.polys = pm->polys;
    p.polyAreas = pm->areas;
    p.polyFlags = pm->flags;
    p.polyCount = pm->npolys;
    p.nvp = pm->nvp;
    p.detailMeshes = dm->meshes;
    p.detailVerts = dm->verts;
    p.detailVertsCount = dm->nverts;
    p.detailTris = dm->tris;
    p.detailTriCount = dm->ntris;
    p.walkableHeight = s.height;
    p.walkableRadius = s.radius;
    p.walkableClimb = s.climb;
    p.tileX = tx;
    p.tileY = ty;
    rcVcopy(p.bmin, pm->bmin);
    rcVcopy(p.bmax, pm->bmax);
    p.cs = c.cs;
    p.ch = c.ch;
    p.buildBvTree = true;
    if (!dtCreateNavMeshData(&p, &data, size)) data = nullptr;
  }
  rcFreeCompactHeightfield(chf);
  rcFreeContourSet(cset);
  rcFreePolyMesh(pm);
  rcFreePolyMeshDetail(dm);
  return data;
}

// Triangles whose X/Z box overlaps the box (input order).
std::vector<int> tiles_tris(const Geometry &g, const float *bmin, const float *bmax) {
  std::vector<int> out;
  for (int i = 0; i < g.nt; i++) {
    const int *t = &g.t[i * 3];
    float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
    for (int k = 0; k < 3; k++) {
      const float *p = &g.v[t[k] * 3];
      lo[0] = std::min(lo[0], p[0]); hi[0] = std::max(hi[0], p[0]);
      lo[1] = std::min(lo[1], p[2]); hi[1] = std::max(hi[1], p[2]);
    }
    if (lo[0] > bmax[0] || hi[0] < bmin[0] || lo[1] > bmax[2] || hi[1] < bmin[2]) continue;
    out.insert(out.end(), t, t + 3);
  }
  return out;
}

struct Job {
  rcConfig c;
  std::vector<int> tris;
  int tx, ty;
};

// The jobs of a build: one solo job, or one per tile (row by row).
std::vector<Job> plan(const Geometry &g, const Settings &s) {
  std::vector<Job> jobs;
  rcConfig c = make_config(s);
  rcVcopy(c.bmin, g.bmin);
  rcVcopy(c.bmax, g.bmax);
  int gw, gh;
  rcCalcGridSize(c.bmin, c.bmax, c.cs, &gw, &gh);
  if (s.tile_size <= 0) {
    c.width = gw;
    c.height = gh;
    std::vector<int> all(g.t, g.t + g.nt * 3);
    jobs.push_back(Job{c, all, 0, 0});
    return jobs;
  }
  const int tw = (gw + s.tile_size - 1) / s.tile_size, th = (gh + s.tile_size - 1) / s.tile_size;
  const float tcs = s.tile_size * s.cs;
  for (int y = 0; y < th; y++)
    for (int x = 0; x < tw; x++) {
      Job j{c, {}, x, y};
      j.c.bmin[0] = g.bmin[0] + x * tcs - c.borderSize * c.cs;
      j.c.bmin[2] = g.bmin[2] + y * tcs - c.borderSize * c.cs;
      j.c.bmax[0] = g.bmin[0] + (x + 1) * tcs + c.borderSize * c.cs;
      j.c.bmax[2] = g.bmin[2] + (y + 1) * tcs + c.borderSize * c.cs;
      j.tris = tiles_tris(g, j.c.bmin, j.c.bmax);
      jobs.push_back(j);
    }
  return jobs;
}

}  // namespace

// One whole build; returns polygons made. (Not inlined, and outside the
// anonymous namespace, so that callgrind can count just this:
// --toggle-collect=recast_build_once.)
__attribute__((noinline)) int recast_build_once(rcContext *ctx, const Geometry &g, const Settings &s, const std::vector<Job> &jobs) {
  dtNavMesh *mesh = dtAllocNavMesh();
  int polys = 0;
  if (s.tile_size > 0) {
    dtNavMeshParams p;
    const unsigned n = (unsigned)jobs.size();
    unsigned tb = 0;
    while ((1u << tb) < n) tb++;
    tb = std::min(tb, 14u);
    rcVcopy(p.orig, g.bmin);
    p.tileWidth = p.tileHeight = s.tile_size * s.cs;
    p.maxTiles = 1 << tb;
    p.maxPolys = 1 << (22 - tb);
    mesh->init(&p);
  }
  for (const Job &j : jobs) {
    int size = 0;
    unsigned char *data = build_tile(ctx, g, j.tris, j.c, s, j.tx, j.ty, &size);
    if (!data) continue;
    polys += ((dtMeshHeader *)data)->polyCount;
    if (s.tile_size > 0) mesh->addTile(data, size, DT_TILE_FREE_DATA, 0, 0);
    else mesh->init(data, size, DT_TILE_FREE_DATA);
  }
  dtFreeNavMesh(mesh);
  return polys;
}

namespace {

int builds(int def) {
  const char *e = getenv("BENCH_ROUNDS");
  if (!e) e = getenv("BENCH_BUILDS");
  return e && atoi(e) > 0 ? atoi(e) : def;
}

void bench(const char *shared, const char *name, float cs, int tile, bool solo, int n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/meshes/%s.obj", shared, name);
  FILE *f = fopen(path, "rb");
  if (!f) return;
  std::vector<char> text;
  char buf[65536];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) text.insert(text.end(), buf, buf + k);
  fclose(f);
  Geometry g;
  if (nm_obj_parse(text.data(), text.size(), nullptr, nullptr, &g.v, &g.nv, &g.t, &g.nt) < 0) return;
  rcCalcBounds(g.v, g.nv, g.bmin, g.bmax);
  rcContext ctx(false);
  const char *only = getenv("BENCH_MODE");
  for (int mode = solo ? 0 : 1; mode < 2; mode++) {
    if (only && strcmp(only, mode ? "tiled" : "solo") != 0) continue;
    Settings s;
    s.cs = cs;
    s.tile_size = mode ? tile : 0;
    std::vector<Job> jobs = plan(g, s);
    std::vector<double> ms;
    int polys = 0;
    for (int i = 0; i < n; i++) {
      const double t0 = now_ms();
      polys = recast_build_once(&ctx, g, s, jobs);
      ms.push_back(now_ms() - t0);
    }
    std::sort(ms.begin(), ms.end());
    printf("%-11s %-5s 1 thr  median %8.2f ms  (min %8.2f, %d builds)  %5d polys\n", name, mode ? "tiled" : "solo",
           ms[ms.size() / 2], ms[0], n, polys);
    fprintf(stderr, "{\"impl\":\"recast-build\",\"mesh\":\"%s\",\"mode\":\"%s\",\"threads\":1,\"builds\":%d,"
            "\"median_ms\":%.3f,\"min_ms\":%.3f,\"polys\":%d}\n", name, mode ? "tiled" : "solo", n,
            ms[ms.size() / 2], ms[0], polys);
  }
  nm_obj_free(nullptr, g.v, g.nv, g.t, g.nt);
}

}  // namespace

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const char *only = getenv("BENCH_MESH");
  printf("Recast (librecast %s, the same pipeline and settings), wall-clock ms\n", "1.5.1");
  struct { const char *name; float cs; int tile; bool solo; int n; } m[] = {
    {"dungeon", 0.3f, 32, true, 5}, {"nav_test", 0.3f, 32, true, 5}, {"undulating", 0.3f, 32, true, 5},
    {"city", 0.4f, 64, false, 3}, {"maze", 0.3f, 64, false, 3},
  };
  for (auto &x : m)
    if (!only || strcmp(only, x.name) == 0) bench(shared, x.name, x.cs, x.tile, x.solo, builds(x.n));
  return 0;
}
