// detour_toolbox.cpp -- Detour's own timings (Debian's librecast-dev) of the
// queries toolbox_bench.c times, on the same files and inputs, in CPU time,
// so both are measured on one machine at one time. Built by
// `make bench-toolbox` when the library is installed.
//   detour_toolbox <shared-dir> [seconds per timing] [query]
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>
#include <DetourAlloc.h>
#include "detour_mset.h"
extern "C" {
#include "cases.h"
#include "toolbox_cases.h"
}

static const int BUF = 4096;

// Loads an MSET file as RecastDemo does (header, then ref/size/blob records).

static unsigned long long rng_state = 1;
static float frand() {  // splitmix64, top 24 bits
  unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (float)((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
}

struct Bench {
  dtNavMeshQuery *q;
  dtQueryFilter f;
  tb_case c[TB_MAX_CASES];
  int n;
  dtPolyRef buf[BUF], par[BUF];
  float costs[BUF], segs[6 * 192];
  volatile float sink;
};

static void run(Bench *b, int k, const tb_case *c) {
  float t, v[3], w[3], d, sq[12], ext[3] = {2, 4, 2};
  dtPolyRef r;
  int n = 0, done;
  switch (k) {
  case 0: b->q->raycast(c->sref, c->s, c->e, &b->f, &t, v, b->buf, &n, BUF); b->sink += t; break;
  case 1:
    tb_derived(c, w, sq);
    b->q->moveAlongSurface(c->sref, c->s, w, &b->f, v, b->buf, &n, 64);
    break;
  case 2: b->q->findDistanceToWall(c->sref, c->s, 5, &b->f, &d, v, w); b->sink += d; break;
  case 3: b->q->findRandomPoint(&b->f, frand, &r, v); break;
  case 4: b->q->findRandomPointAroundCircle(c->sref, c->s, 5, &b->f, frand, &r, v); break;
  case 5: b->q->findPolysAroundCircle(c->sref, c->s, 5, &b->f, b->buf, b->par, b->costs, &n, BUF); break;
  case 6:
    tb_derived(c, w, sq);
    b->q->findPolysAroundShape(c->sref, sq, 4, &b->f, b->buf, b->par, b->costs, &n, BUF);
    break;
  case 7: b->q->findLocalNeighbourhood(c->sref, c->s, 5, &b->f, b->buf, b->par, &n, 64); break;
  case 8: b->q->queryPolygons(c->s, ext, &b->f, b->buf, &n, BUF); break;
  case 9: b->q->getPolyWallSegments(c->sref, &b->f, b->segs, b->buf, &n, 192); break;
  case 10: b->q->findPath(c->sref, c->eref, c->s, c->e, &b->f, b->buf, &n, BUF); break;
  default:
    b->q->initSlicedFindPath(c->sref, c->eref, c->s, c->e, &b->f);
    while (b->q->updateSlicedFindPath(64, &done) & DT_IN_PROGRESS) {}
    b->q->finalizeSlicedFindPath(b->buf, &n, BUF);
  }
  b->sink += (float)n;
}

static double measure(Bench *b, int k, double secs) {
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = tb_cpu_now(), t;
    long calls = 0;
    do {
      for (int i = 0; i < b->n; i++) run(b, k, &b->c[i]);
      calls += b->n;
      t = tb_cpu_now() - t0;
    } while (t < secs / 3);
    if (t / (double)calls * 1e6 < best) best = t / (double)calls * 1e6;
  }
  return best;
}

int main(int argc, char **argv) {
  static Bench b;
  const char *shared = argc > 1 ? argv[1] : "../shared";
  double secs = argc > 2 ? atof(argv[2]) : 1.0;
  tb_header("Detour (C++) us");
  for (int i = 0; bench_meshes[i]; i++) {
    const char *name = bench_meshes[i];
    bool large = strstr(name, "city") || strstr(name, "maze");
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
    if (!(b.n = tb_load_cases(path, b.c))) continue;
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
    unsigned char *bytes = bench_read_file(path, &len);
    dtNavMesh *mesh = bytes ? tb_load_mset(bytes, len) : 0;
    free(bytes);
    if (!mesh) continue;
    b.q = dtAllocNavMeshQuery();
    b.q->init(mesh, large ? 65535 : 2048);
    printf("%-17s", name);
    for (int k = 0; tb_queries[k]; k++) {
      if (argc > 3 && strcmp(argv[3], tb_queries[k]) != 0) continue;
      double us = measure(&b, k, secs);
      printf(" %8.3f", us);
      fprintf(stderr, "{\"impl\":\"detour\",\"bench\":\"toolbox\",\"mesh\":\"%s\",\"query\":\"%s\","
              "\"cases\":%d,\"us_per_call\":%.4f}\n", name, tb_queries[k], b.n, us);
    }
    printf("\n");
    fflush(stdout);
    dtFreeNavMeshQuery(b.q);
    dtFreeNavMesh(mesh);
  }
  return 0;
}
