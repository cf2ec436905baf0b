// build_pairs.cpp -- our navmesh builds against Recast's (Debian's
// librecast-dev), timed side by side in one process, on the shared OBJ
// meshes with RecastDemo's default settings: solo and tiled (tileSize 32;
// the large worlds city, cell 0.4, and maze, cell 0.3, tiled only with
// tileSize 64).
//
// Recast's side is RecastDemo's Solo Mesh / Tile Mesh pipeline, including
// the way Tile Mesh picks a tile's triangles: a chunky triangle mesh (the
// triangles split into chunks of at most 256 by a 2-D bounding-volume tree
// over their X/Z boxes, halves sorted stably by box minimum along the
// longer side), the chunks overlapping the tile's box (border included,
// at most 512) marked and rasterized chunk by chunk. Our build does the
// same (src/input/chunky.c), so both sides rasterize the same triangles in
// the same order; the polygon counts of the two show it. Both time the
// whole build from triangles to a dtNavMesh / nm_navmesh, the chunky
// partition included (RecastDemo makes it when it loads the mesh; our
// build makes it each time).
//
// Each round builds ours with 1 thread, Recast's, and, tiled, ours with 2
// threads, in rotating order. Figures: median ms of each; the median over
// the rounds of ours/Recast (1 thread, CPU time) and of ours with 2
// threads/Recast (wall-clock time, the only clock that shows threads), with
// quartiles; the load average when the row ends. At least 3 rounds and
// about `seconds` x 3 per row (large worlds: 3 rounds); BENCH_ROUNDS fixes
// the count (callgrind: --toggle-collect=recast_build_once).
// BENCH_MESH=name, BENCH_MODE=solo|tiled pick cases.
// Usage: build_pairs SHARED_DIR [seconds]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <vector>
#include "Recast.h"
#include "DetourNavMesh.h"
#include "DetourNavMeshBuilder.h"
extern "C" {
#include "navmesh.h"
#include "cases.h"
#include "pair.h"
}

namespace {

double now(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
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

// ---- RecastDemo's chunky triangle mesh (our own code of its algorithm) ----
const int CHUNK_TRIS = 256, MAX_CHUNKS_PER_TILE = 512;

struct ChunkNode {
  float bmin[2], bmax[2];
  int i, n;  // leaf: triangles [i, i+n) of Chunky::tris; inner: i = -escape
};

struct Chunky {
  std::vector<ChunkNode> nodes;
  std::vector<int> tris;
  int max_tris = 0;  // most triangles in a leaf
};

struct ChunkItem {
  float bmin[2], bmax[2];
  int i;
};

void item_bounds(const std::vector<ChunkItem> &it, int imin, int imax, ChunkNode &n) {
  n.bmin[0] = it[imin].bmin[0]; n.bmin[1] = it[imin].bmin[1];
  n.bmax[0] = it[imin].bmax[0]; n.bmax[1] = it[imin].bmax[1];
  for (int i = imin + 1; i < imax; i++) {
    n.bmin[0] = std::min(n.bmin[0], it[i].bmin[0]); n.bmin[1] = std::min(n.bmin[1], it[i].bmin[1]);
    n.bmax[0] = std::max(n.bmax[0], it[i].bmax[0]); n.bmax[1] = std::max(n.bmax[1], it[i].bmax[1]);
  }
}

// The subtree over items [imin, imax) in pre-order.
void subdivide(std::vector<ChunkItem> &it, int imin, int imax, const int *tris, size_t max_nodes, Chunky &cm) {
  if (cm.nodes.size() >= max_nodes) return;
  const int n = imax - imin, icur = (int)cm.nodes.size();
  cm.nodes.push_back(ChunkNode());
  item_bounds(it, imin, imax, cm.nodes[icur]);
  if (n <= CHUNK_TRIS) {
    cm.nodes[icur].i = (int)cm.tris.size() / 3;
    cm.nodes[icur].n = n;
    for (int i = imin; i < imax; i++) cm.tris.insert(cm.tris.end(), &tris[it[i].i * 3], &tris[it[i].i * 3 + 3]);
    cm.max_tris = std::max(cm.max_tris, n);
    return;
  }
  const ChunkNode &node = cm.nodes[icur];
  const int axis = node.bmax[1] - node.bmin[1] > node.bmax[0] - node.bmin[0] ? 1 : 0;
  std::stable_sort(it.begin() + imin, it.begin() + imax,
                   [axis](const ChunkItem &a, const ChunkItem &b) { return a.bmin[axis] < b.bmin[axis]; });
  subdivide(it, imin, imin + n / 2, tris, max_nodes, cm);
  subdivide(it, imin + n / 2, imax, tris, max_nodes, cm);
  cm.nodes[icur].i = -((int)cm.nodes.size() - icur);
  cm.nodes[icur].n = 0;
}

void make_chunky(const Geometry &g, Chunky &cm) {
  std::vector<ChunkItem> it(g.nt);
  for (int i = 0; i < g.nt; i++) {
    const float *a = &g.v[g.t[i * 3] * 3];
    it[i] = ChunkItem{{a[0], a[2]}, {a[0], a[2]}, i};
    for (int k = 1; k < 3; k++) {
      const float *p = &g.v[g.t[i * 3 + k] * 3];
      it[i].bmin[0] = std::min(it[i].bmin[0], p[0]); it[i].bmin[1] = std::min(it[i].bmin[1], p[2]);
      it[i].bmax[0] = std::max(it[i].bmax[0], p[0]); it[i].bmax[1] = std::max(it[i].bmax[1], p[2]);
    }
  }
  const int nchunks = (g.nt + CHUNK_TRIS - 1) / CHUNK_TRIS;
  cm.nodes.reserve(nchunks * 4);
  cm.tris.reserve(g.nt * 3);
  subdivide(it, 0, g.nt, g.t, (size_t)nchunks * 4, cm);
}

// Leaves overlapping the X/Z box, in tree order (at most max).
int chunks_overlapping(const Chunky &cm, const float *bmin, const float *bmax, int *ids, int max) {
  int n = 0;
  for (size_t i = 0; i < cm.nodes.size();) {
    const ChunkNode &c = cm.nodes[i];
    const bool overlap = !(bmin[0] > c.bmax[0] || bmax[0] < c.bmin[0] || bmin[1] > c.bmax[1] || bmax[1] < c.bmin[1]);
    const bool leaf = c.i >= 0;
    if (leaf && overlap && n < max) ids[n++] = (int)i;
    i += overlap || leaf ? 1 : -c.i;
  }
  return n;
}

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

// Marks and rasterizes the triangles of one tile: all of them (solo), or
// the chunks overlapping the tile's box, chunk by chunk (Tile Mesh).
bool rasterize(rcContext *ctx, const Geometry &g, const Chunky *cm, const rcConfig &c, rcHeightfield &hf,
               std::vector<unsigned char> &areas) {
  if (!cm) {
    areas.assign(g.nt, 0);
    rcMarkWalkableTriangles(ctx, c.walkableSlopeAngle, g.v, g.nv, g.t, g.nt, areas.data());
    return rcRasterizeTriangles(ctx, g.v, g.nv, g.t, areas.data(), g.nt, hf, c.walkableClimb);
  }
  int ids[MAX_CHUNKS_PER_TILE];
  const float tbmin[2] = {c.bmin[0], c.bmin[2]}, tbmax[2] = {c.bmax[0], c.bmax[2]};
  const int n = chunks_overlapping(*cm, tbmin, tbmax, ids, MAX_CHUNKS_PER_TILE);
  areas.resize(cm->max_tris);
  for (int i = 0; i < n; i++) {
    const ChunkNode &node = cm->nodes[ids[i]];
    const int *tris = &cm->tris[node.i * 3];
    std::fill(areas.begin(), areas.begin() + node.n, 0);
    rcMarkWalkableTriangles(ctx, c.walkableSlopeAngle, g.v, g.nv, tris, node.n, areas.data());
    if (!rcRasterizeTriangles(ctx, g.v, g.nv, tris, areas.data(), node.n, hf, c.walkableClimb)) return false;
  }
  return n > 0;
}

// Detour tile data of a poly mesh and its detail mesh; nullptr when it fails.
unsigned char *tile_data(const rcPolyMesh &pm, const rcPolyMeshDetail &dm, const rcConfig &c, const Settings &s,
                         int tx, int ty, int *size) {
  for (int i = 0; i < pm.npolys; i++) {
    if (pm.areas[i] == RC_WALKABLE_AREA) pm.areas[i] = 0;
    pm.flags[i] = 1;
  }
  dtNavMeshCreateParams p;
  memset(&p, 0, sizeof p);
  p.verts = pm.verts;
  p.vertCount = pm.nverts;
  p.polys = pm.polys;
  p.polyAreas = pm.areas;
  p.polyFlags = pm.flags;
  p.polyCount = pm.npolys;
  p.nvp = pm.nvp;
  p.detailMeshes = dm.meshes;
  p.detailVerts = dm.verts;
  p.detailVertsCount = dm.nverts;
  p.detailTris = dm.tris;
  p.detailTriCount = dm.ntris;
  p.walkableHeight = s.height;
  p.walkableRadius = s.radius;
  p.walkableClimb = s.climb;
  p.tileX = tx;
  p.tileY = ty;
  rcVcopy(p.bmin, pm.bmin);
  rcVcopy(p.bmax, pm.bmax);
  p.cs = c.cs;
  p.ch = c.ch;
  p.buildBvTree = true;
  unsigned char *data = nullptr;
  return dtCreateNavMeshData(&p, &data, size) ? data : nullptr;
}

// One tile (or the solo mesh) from triangles to Detour tile data; nullptr
// when it has no polygons.
unsigned char *build_tile(rcContext *ctx, const Geometry &g, const Chunky *cm, rcConfig c, const Settings &s, int tx,
                          int ty, std::vector<unsigned char> &areas, int *size) {
  unsigned char *data = nullptr;
  rcHeightfield *hf = rcAllocHeightfield();
  rcCreateHeightfield(ctx, *hf, c.width, c.height, c.bmin, c.bmax, c.cs, c.ch);
  if (!rasterize(ctx, g, cm, c, *hf, areas)) {
    rcFreeHeightField(hf);
    return nullptr;
  }
  rcFilterLowHangingWalkableObstacles(ctx, c.walkableClimb, *hf);
  rcFilterLedgeSpans(ctx, c.walkableHeight, c.walkableClimb, *hf);
  rcFilterWalkableLowHeightSpans(ctx, c.walkableHeight, *hf);
  rcCompactHeightfield *chf = rcAllocCompactHeightfield();
  rcBuildCompactHeightfield(ctx, c.walkableHeight, c.walkableClimb, *hf, *chf);
  rcFreeHeightField(hf);
  rcErodeWalkableArea(ctx, c.walkableRadius, *chf);
  rcBuildDistanceField(ctx, *chf);
  rcBuildRegions(ctx, *chf, c.borderSize, c.minRegionArea, c.mergeRegionArea);
  rcContourSet *cset = rcAllocContourSet();
  rcBuildContours(ctx, *chf, c.maxSimplificationError, c.maxEdgeLen, *cset);
  rcPolyMesh *pm = rcAllocPolyMesh();
  rcPolyMeshDetail *dm = rcAllocPolyMeshDetail();
  if (cset->nconts > 0 && rcBuildPolyMesh(ctx, *cset, c.maxVertsPerPoly, *pm) &&
      rcBuildPolyMeshDetail(ctx, *pm, *chf, c.detailSampleDist, c.detailSampleMaxError, *dm) && pm->npolys > 0)
    data = tile_data(*pm, *dm, c, s, tx, ty, size);
  rcFreeCompactHeightfield(chf);
  rcFreeContourSet(cset);
  rcFreePolyMesh(pm);
  rcFreePolyMeshDetail(dm);
  return data;
}

}  // namespace

// One whole Recast build (the chunky partition, then tile by tile, row by
// row, each added to a dtNavMesh as RecastDemo's "Build" does); returns the
// polygons made. Not inlined and outside the anonymous namespace, so that
// callgrind can count just this: --toggle-collect=recast_build_once.
__attribute__((noinline)) int recast_build_once(rcContext *ctx, const Geometry &g, const Settings &s) {
  rcConfig c = make_config(s);
  rcVcopy(c.bmin, g.bmin);
  rcVcopy(c.bmax, g.bmax);
  int gw, gh, polys = 0, size = 0;
  rcCalcGridSize(c.bmin, c.bmax, c.cs, &gw, &gh);
  std::vector<unsigned char> areas;
  dtNavMesh *mesh = dtAllocNavMesh();
  if (s.tile_size <= 0) {
    c.width = gw;
    c.height = gh;
    unsigned char *data = build_tile(ctx, g, nullptr, c, s, 0, 0, areas, &size);
    if (data) polys = ((dtMeshHeader *)data)->polyCount;
    if (data) mesh->init(data, size, DT_TILE_FREE_DATA);
    dtFreeNavMesh(mesh);
    return polys;
  }
  Chunky cm;
  make_chunky(g, cm);
  const int tw = (gw + s.tile_size - 1) / s.tile_size, th = (gh + s.tile_size - 1) / s.tile_size;
  const float tcs = s.tile_size * s.cs;
  dtNavMeshParams p;
  unsigned tb = 0;
  while ((1u << tb) < (unsigned)(tw * th)) tb++;
  tb = std::min(tb, 14u);
  rcVcopy(p.orig, g.bmin);
  p.tileWidth = p.tileHeight = tcs;
  p.maxTiles = 1 << tb;
  p.maxPolys = 1 << (22 - tb);
  mesh->init(&p);
  for (int y = 0; y < th; y++)
    for (int x = 0; x < tw; x++) {
      rcConfig tc = c;
      tc.bmin[0] = g.bmin[0] + x * tcs - c.borderSize * c.cs;
      tc.bmin[2] = g.bmin[2] + y * tcs - c.borderSize * c.cs;
      tc.bmax[0] = g.bmin[0] + (x + 1) * tcs + c.borderSize * c.cs;
      tc.bmax[2] = g.bmin[2] + (y + 1) * tcs + c.borderSize * c.cs;
      unsigned char *data = build_tile(ctx, g, &cm, tc, s, x, y, areas, &size);
      if (!data) continue;
      polys += ((dtMeshHeader *)data)->polyCount;
      mesh->addTile(data, size, DT_TILE_FREE_DATA, 0, 0);
    }
  dtFreeNavMesh(mesh);
  return polys;
}

namespace {

struct Case {
  const char *name;
  float cs;
  int tile;
  bool solo;
};

struct Side {  // one contestant of a row: its times per round
  std::vector<double> cpu, wall;
  int polys = 0;
};

// Our build of g with s; ms of CPU and wall time into side; 0 on failure.
bool ours(const Geometry &g, const Settings &s, int threads, Side &side, nm_build_stats *st) {
  nm_build_config c;
  nm_build_config_init(&c);
  c.cell_size = s.cs;
  c.tile_size = s.tile_size;
  c.threads = threads;
  nm_navmesh *m = nullptr;
  nm_diag d;
  const double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
  nm_status r = nm_navmesh_build(g.v, g.nv, g.t, g.nt, &c, nullptr, &d, &m, st);
  side.cpu.push_back(now(CLOCK_PROCESS_CPUTIME_ID) - c0);
  side.wall.push_back(now(CLOCK_MONOTONIC) - w0);
  nm_navmesh_release(m);
  if (r < 0) printf("our build failed: %s (%s)\n", nm_strerror(r), d.msg);
  side.polys = st->polys;
  return r >= 0;
}

void recast(rcContext *ctx, const Geometry &g, const Settings &s, Side &side) {
  const double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
  side.polys = recast_build_once(ctx, g, s);
  side.cpu.push_back(now(CLOCK_PROCESS_CPUTIME_ID) - c0);
  side.wall.push_back(now(CLOCK_MONOTONIC) - w0);
}

// Median and quartiles of a[i] / b[i].
void ratios(const std::vector<double> &a, const std::vector<double> &b, double *med, double *q1, double *q3) {
  std::vector<double> r;
  for (size_t i = 0; i < a.size(); i++) r.push_back(a[i] / b[i]);
  *med = bench_median(r.data(), (int)r.size());
  *q1 = r[(r.size() - 1) / 4];
  *q3 = r[(3 * (r.size() - 1) + 3) / 4];
}

double median(std::vector<double> v) { return bench_median(v.data(), (int)v.size()); }

// One row: rounds of ours (1 thread), Recast, ours (2 threads, tiled) in
// rotating order; then the figures.
void row(rcContext *ctx, const Geometry &g, const Settings &s, const char *name, int min_rounds, double secs) {
  Side o1, rc, o2;
  nm_build_stats st;
  const bool tiled = s.tile_size > 0;
  const char *fixed = getenv("BENCH_ROUNDS");
  const int nfixed = fixed ? atoi(fixed) : 0;
  const double t0 = now(CLOCK_MONOTONIC);
  for (int r = 0; nfixed > 0 ? r < nfixed : r < min_rounds || now(CLOCK_MONOTONIC) - t0 < secs * 1e3; r++) {
    for (int k = 0; k < 3; k++) {
      switch ((k + r) % 3) {
      case 0: if (!ours(g, s, 1, o1, &st)) return; break;
      case 1: recast(ctx, g, s, rc); break;
      default: if (tiled && !ours(g, s, 2, o2, &st)) return;
      }
    }
  }
  double r1, a1, b1, r2 = 0, a2 = 0, b2 = 0;
  ratios(o1.cpu, rc.cpu, &r1, &a1, &b1);
  if (tiled) ratios(o2.wall, rc.wall, &r2, &a2, &b2);
  const double load = pair_load();
  printf("%-10s %-5s %9.2f %9.2f %6.3f [%5.3f-%5.3f]", name, tiled ? "tiled" : "solo", median(o1.cpu), median(rc.cpu), r1,
         a1, b1);
  if (tiled) printf(" %9.2f %6.3f [%5.3f-%5.3f]", median(o2.wall), r2, a2, b2);
  else printf(" %9s %6s %13s", "", "", "");
  printf(" %6d %6d %3d %6.2f\n", o1.polys, rc.polys, (int)o1.cpu.size(), load);
  fflush(stdout);
  fprintf(stderr,
          "{\"bench\":\"build_pairs\",\"mesh\":\"%s\",\"mode\":\"%s\",\"ours_cpu_ms\":%.3f,\"recast_cpu_ms\":%.3f,"
          "\"ratio\":%.4f,\"q1\":%.4f,\"q3\":%.4f,\"ours2_wall_ms\":%.3f,\"recast_wall_ms\":%.3f,\"ratio2\":%.4f,"
          "\"q1_2\":%.4f,\"q3_2\":%.4f,\"ours_polys\":%d,\"recast_polys\":%d,\"rounds\":%d,\"peak_bytes\":%lu,"
          "\"load\":%.2f}\n",
          name, tiled ? "tiled" : "solo", median(o1.cpu), median(rc.cpu), r1, a1, b1, tiled ? median(o2.wall) : 0,
          median(rc.wall), r2, a2, b2, o1.polys, rc.polys, (int)o1.cpu.size(), (unsigned long)st.peak_bytes, load);
}

void bench(const char *shared, const Case &m, double secs) {
  char path[1024];
  size_t len;
  snprintf(path, sizeof path, "%s/meshes/%s.obj", shared, m.name);
  unsigned char *text = bench_read_file(path, &len);
  if (!text) return;
  Geometry g;
  const nm_status st = nm_obj_parse((const char *)text, len, nullptr, nullptr, &g.v, &g.nv, &g.t, &g.nt);
  free(text);
  if (st < 0) return;
  rcCalcBounds(g.v, g.nv, g.bmin, g.bmax);
  rcContext ctx(false);
  const char *only = getenv("BENCH_MODE");
  for (int mode = m.solo ? 0 : 1; mode < 2; mode++) {
    if (only && strcmp(only, mode ? "tiled" : "solo") != 0) continue;
    Settings s;
    s.cs = m.cs;
    s.tile_size = mode ? m.tile : 0;
    row(&ctx, g, s, m.name, m.solo ? 5 : 3, m.solo ? 3 * secs : 0);
  }
  nm_obj_free(nullptr, g.v, g.nv, g.t, g.nt);
}

}  // namespace

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const double secs = argc > 2 ? atof(argv[2]) : 1.0;
  const char *only = getenv("BENCH_MESH");
  static const Case cases[] = {
    {"dungeon", 0.3f, 32, true}, {"nav_test", 0.3f, 32, true}, {"undulating", 0.3f, 32, true},
    {"city", 0.4f, 64, false}, {"maze", 0.3f, 64, false},
  };
  printf("builds: ours against Recast (librecast 1.5.1) in one process, RecastDemo's settings and triangle selection;\n"
         "ms per build (medians over the rounds); ratio = median of the per-round ours/Recast [quartiles],\n"
         "1 thread in CPU time, 2 threads in wall-clock time (against Recast's wall-clock time)\n");
  printf("%-10s %-5s %9s %9s %6s %13s %9s %6s %13s %6s %6s %3s %6s\n", "mesh", "mode", "ours ms", "Recast", "ratio",
         "[q1-q3]", "2 thr ms", "ratio", "[q1-q3]", "polys", "Recast", "rnd", "load");
  for (const Case &m : cases)
    if (!only || strcmp(only, m.name) == 0) bench(shared, m, secs);
  return 0;
}
