// detour_bench.cpp -- the same timings as bench.c, measured with Detour
// itself (Debian's librecast-dev, recastnavigation 1.5.1) on the same files
// and cases, so both are measured on one machine at one time. Optional: built
// by tools/bench.sh only when the library is installed.
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>
#include <DetourAlloc.h>
#include <cmath>
extern "C" {
#include "cases.h"
}

static const int MAXP = 4096;
static const float EXT[3] = {2, 4, 2};

struct Prepared {
  dtPolyRef sref, eref, path[MAXP];
  float s[3], e[3], end[3];
  int npath;
};

// Loads an MSET file the way RecastDemo does.
static dtNavMesh *load_mset(const unsigned char *b, size_t len, size_t *data_bytes) {
  struct Hdr { int magic, version, numTiles; dtNavMeshParams params; } h;
  if (len < sizeof h) return 0;
  memcpy(&h, b, sizeof h);
  dtNavMesh *m = dtAllocNavMesh();
  if (dtStatusFailed(m->init(&h.params))) { dtFreeNavMesh(m); return 0; }
  size_t off = sizeof h;
  *data_bytes = 0;
  for (int i = 0; i < h.numTiles; i++) {
    unsigned int ref; int size;
    memcpy(&ref, b + off, 4); memcpy(&size, b + off + 4, 4); off += 8;
    unsigned char *data = (unsigned char *)dtAlloc(size, DT_ALLOC_PERM);
    memcpy(data, b + off, size); off += size;
    m->addTile(data, size, DT_TILE_FREE_DATA, ref, 0);
    *data_bytes += size;
  }
  return m;
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  double secs = argc > 2 ? atof(argv[2]) : 1.0;
  static float pts[3 * (2 * MAXP + 2)];
  printf("Detour (C++)      %7s %8s %10s %12s %10s %10s %10s %10s\n", "cases", "load ms", "nearest us",
         "path us mean", "path med", "straight", "sequence", "data B");
  for (int mi = 0; bench_meshes[mi]; mi++) {
    const char *name = bench_meshes[mi];
    if (bench_skip(name)) continue;
    char path[1024];
    size_t len, data_bytes = 0;
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
    unsigned char *bytes = bench_read_file(path, &len);
    if (!bytes) continue;
    bench_case *c = 0;
    snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
    int n = bench_read_cases(path, &c);
    if (!n) continue;
    bool large = strstr(name, "city") || strstr(name, "maze");
    double t0 = bench_now();
    int rnd = 0;
    dtNavMesh *m = 0;
    for (int k = 0; k < 20; k++) { if (m) dtFreeNavMesh(m); m = load_mset(bytes, len, &data_bytes); }
    double load_ms = (bench_now() - t0) / 20 * 1e3;
    dtNavMeshQuery *q = dtAllocNavMeshQuery();
    q->init(m, large ? 65535 : 2048);
    dtQueryFilter f;
    Prepared *p = (Prepared *)calloc(n, sizeof(Prepared));
    for (int i = 0; i < n; i++) {
      q->findNearestPoly(c[i].start, EXT, &f, &p[i].sref, p[i].s);
      q->findNearestPoly(c[i].end, EXT, &f, &p[i].eref, p[i].e);
      if (!p[i].sref || !p[i].eref) continue;
      q->findPath(p[i].sref, p[i].eref, p[i].s, p[i].e, &f, p[i].path, &p[i].npath, MAXP);
      memcpy(p[i].end, p[i].e, sizeof p[i].end);
      if (p[i].npath && p[i].path[p[i].npath - 1] != p[i].eref)
        q->closestPointOnPoly(p[i].path[p[i].npath - 1], p[i].e, p[i].end, 0);
    }
    // nearest
    long calls = 0; double t; dtPolyRef r; float pt[3];
    t0 = bench_now();
    rnd = 0;
    do {
      for (int i = 0; i < n; i++) {
        q->findNearestPoly(c[i].start, EXT, &f, &r, pt);
        q->findNearestPoly(c[i].end, EXT, &f, &r, pt);
      }
      calls += 2 * n;
    } while (bench_continue(t0, secs, &rnd));
  t = bench_now() - t0;
    double nearest_us = t / calls * 1e6;
    // findPath
    double *acc = (double *)calloc(n, sizeof(double)), total = 0;
    dtPolyRef pp[MAXP]; int np, rounds = 0, mcount = 0;
    t0 = bench_now();
    rnd = 0;
    do {
      for (int i = 0; i < n; i++) {
        if (!p[i].sref || !p[i].eref) continue;
        double a = bench_now();
        q->findPath(p[i].sref, p[i].eref, p[i].s, p[i].e, &f, pp, &np, MAXP);
        acc[i] += bench_now() - a;
      }
      rounds++;
    } while (bench_continue(t0, secs, &rnd));
    for (int i = 0; i < n; i++)
      if (p[i].sref && p[i].eref) { total += acc[i]; acc[mcount++] = acc[i] / rounds * 1e6; }
    double path_us = total / ((double)rounds * mcount) * 1e6, path_med = bench_median(acc, mcount);
    free(acc);
    // straight
    calls = 0;
    t0 = bench_now();
    rnd = 0;
    do {
      for (int i = 0; i < n; i++) {
        if (!p[i].npath) continue;
        int ns;
        q->findStraightPath(p[i].s, p[i].end, p[i].path, p[i].npath, pts, 0, 0, &ns, 2 * MAXP + 2, 0);
        calls++;
      }
    } while (bench_continue(t0, secs, &rnd));
  t = bench_now() - t0;
    double straight_us = t / calls * 1e6;
    // whole sequence
    calls = 0;
    t0 = bench_now();
    rnd = 0;
    do {
      for (int i = 0; i < n; i++) {
        dtPolyRef sref, eref; float s[3], e[3]; int ns;
        q->findNearestPoly(c[i].start, EXT, &f, &sref, s);
        q->findNearestPoly(c[i].end, EXT, &f, &eref, e);
        if (!sref || !eref) continue;
        q->findPath(sref, eref, s, e, &f, pp, &np, MAXP);
        if (!np) continue;
        if (pp[np - 1] != eref) q->closestPointOnPoly(pp[np - 1], e, e, 0);
        q->findStraightPath(s, e, pp, np, pts, 0, 0, &ns, 2 * MAXP + 2, 0);
        calls++;
      }
    } while (bench_continue(t0, secs, &rnd));
  t = bench_now() - t0;
    double seq_us = t / calls * 1e6;
    printf("%-17s %7d %8.3f %10.3f %12.2f %10.2f %10.3f %10.2f %10lu\n", name, n, load_ms, nearest_us, path_us,
           path_med, straight_us, seq_us, (unsigned long)data_bytes);
    fprintf(stderr,
            "{\"impl\":\"detour\",\"mesh\":\"%s\",\"load_ms\":%.4f,\"nearest_us\":%.4f,\"path_us\":%.3f,"
            "\"path_median_us\":%.3f,\"straight_us\":%.4f,\"sequence_us\":%.3f,\"data_bytes\":%lu}\n",
            name, load_ms, nearest_us, path_us, path_med, straight_us, seq_us, (unsigned long)data_bytes);
    free(p); free(c); free(bytes);
    dtFreeNavMeshQuery(q);
    dtFreeNavMesh(m);
  }
  return 0;
}
