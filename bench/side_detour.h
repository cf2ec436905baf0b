// side_detour.h -- Detour's side of the query benchmarks (Debian's
// librecast-dev): the jobs of side_ours.h, call for call, on the same mesh
// file (loaded as RecastDemo loads an MSET file) and the same inputs. Used
// by pairs.cpp (against our C) and detour_lua.cpp (against our Lua
// binding). Include cases.h, toolbox_cases.h and side_ours.h first (the job
// numbers and sizes).
#ifndef NM_BENCH_SIDE_DETOUR_H
#define NM_BENCH_SIDE_DETOUR_H
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>
#include "detour_mset.h"

struct DetourPrep {
  dtPolyRef sref, eref, path[SIDE_MAXP];
  float s[3], e[3], end[3];
  int npath;
};

struct DetourSide {
  dtNavMesh *mesh;
  dtNavMeshQuery *q;
  dtQueryFilter f;
  bench_case *c;
  DetourPrep *p;
  int n;
  unsigned char *bytes;
  size_t len;
  tb_case tc[TB_MAX_CASES];
  int ntc;
  dtPolyRef buf[SIDE_BUF], par[SIDE_BUF], path[SIDE_MAXP];
  float costs[SIDE_BUF], segs[6 * 192], pts[3 * (2 * SIDE_MAXP + 2)];
  volatile float sink;
};

// Detour's random numbers for the random-point queries (splitmix64).
static float detour_frand() {
  static unsigned long long state = 1;
  unsigned long long z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (float)((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
}

static void detour_prepare(DetourSide *d) {
  for (int i = 0; i < d->n; i++) {
    DetourPrep *p = &d->p[i];
    p->npath = 0;
    d->q->findNearestPoly(d->c[i].start, side_ext, &d->f, &p->sref, p->s);
    d->q->findNearestPoly(d->c[i].end, side_ext, &d->f, &p->eref, p->e);
    if (!p->sref || !p->eref) continue;
    d->q->findPath(p->sref, p->eref, p->s, p->e, &d->f, p->path, &p->npath, SIDE_MAXP);
    memcpy(p->end, p->e, sizeof p->end);
    if (p->npath && p->path[p->npath - 1] != p->eref) d->q->closestPointOnPoly(p->path[p->npath - 1], p->e, p->end, 0);
  }
}

// Loads mesh `name` and its cases into d (zeroed first); false on failure.
static bool detour_open(DetourSide *d, const char *shared, const char *name) {
  char path[1024];
  bool large = strstr(name, "city") || strstr(name, "maze");
  memset((void *)d, 0, sizeof *d);
  snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
  if (!(d->n = bench_read_cases(path, &d->c))) return false;
  d->ntc = tb_load_cases(path, d->tc);
  snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
  d->bytes = bench_read_file(path, &d->len);
  d->mesh = d->bytes ? tb_load_mset(d->bytes, d->len) : 0;
  if (!d->mesh) return false;
  d->q = dtAllocNavMeshQuery();
  if (!d->q || dtStatusFailed(d->q->init(d->mesh, large ? 65535 : 2048))) return false;
  d->p = (DetourPrep *)calloc((size_t)d->n, sizeof *d->p);
  if (!d->p) return false;
  new (&d->f) dtQueryFilter();
  detour_prepare(d);
  return true;
}

static void detour_close(DetourSide *d) {
  free(d->bytes);
  free(d->p);
  free(d->c);
  dtFreeNavMeshQuery(d->q);
  dtFreeNavMesh(d->mesh);
  memset((void *)d, 0, sizeof *d);
}

static void detour_sequence(DetourSide *d, const bench_case *c) {
  dtPolyRef sref, eref;
  float s[3], e[3];
  int np = 0, ns;
  d->q->findNearestPoly(c->start, side_ext, &d->f, &sref, s);
  d->q->findNearestPoly(c->end, side_ext, &d->f, &eref, e);
  if (!sref || !eref) return;
  d->q->findPath(sref, eref, s, e, &d->f, d->path, &np, SIDE_MAXP);
  if (!np) return;
  if (d->path[np - 1] != eref) d->q->closestPointOnPoly(d->path[np - 1], e, e, 0);
  d->q->findStraightPath(s, e, d->path, np, d->pts, 0, 0, &ns, 2 * SIDE_MAXP + 2, 0);
}

static void detour_toolbox(DetourSide *d, int k, const tb_case *c) {
  float t, v[3], w[3], dist, sq[12];
  dtPolyRef r;
  int n = 0, done;
  switch (k) {
  case 0: d->q->raycast(c->sref, c->s, c->e, &d->f, &t, v, d->buf, &n, SIDE_BUF); d->sink += t; break;
  case 1:
    tb_derived(c, w, sq);
    d->q->moveAlongSurface(c->sref, c->s, w, &d->f, v, d->buf, &n, 64);
    break;
  case 2: d->q->findDistanceToWall(c->sref, c->s, 5, &d->f, &dist, v, w); d->sink += dist; break;
  case 3: d->q->findRandomPoint(&d->f, detour_frand, &r, v); break;
  case 4: d->q->findRandomPointAroundCircle(c->sref, c->s, 5, &d->f, detour_frand, &r, v); break;
  case 5: d->q->findPolysAroundCircle(c->sref, c->s, 5, &d->f, d->buf, d->par, d->costs, &n, SIDE_BUF); break;
  case 6:
    tb_derived(c, w, sq);
    d->q->findPolysAroundShape(c->sref, sq, 4, &d->f, d->buf, d->par, d->costs, &n, SIDE_BUF);
    break;
  case 7: d->q->findLocalNeighbourhood(c->sref, c->s, 5, &d->f, d->buf, d->par, &n, 64); break;
  case 8: d->q->queryPolygons(c->s, side_ext, &d->f, d->buf, &n, SIDE_BUF); break;
  case 9: d->q->getPolyWallSegments(c->sref, &d->f, d->segs, d->buf, &n, 192); break;
  case 10: d->q->findPath(c->sref, c->eref, c->s, c->e, &d->f, d->buf, &n, SIDE_BUF); break;
  default:
    d->q->initSlicedFindPath(c->sref, c->eref, c->s, c->e, &d->f);
    while (d->q->updateSlicedFindPath(64, &done) & DT_IN_PROGRESS) {}
    d->q->finalizeSlicedFindPath(d->buf, &n, SIDE_BUF);
  }
  d->sink += (float)n;
}

static void detour_one(DetourSide *d, int k, int i) {
  const DetourPrep *p = &d->p[i];
  dtPolyRef r;
  float pt[3];
  int n;
  switch (k) {
  case SIDE_NEAREST:
    d->q->findNearestPoly(d->c[i].start, side_ext, &d->f, &r, pt);
    d->q->findNearestPoly(d->c[i].end, side_ext, &d->f, &r, pt);
    break;
  case SIDE_PATH:
    if (p->sref && p->eref) d->q->findPath(p->sref, p->eref, p->s, p->e, &d->f, d->path, &n, SIDE_MAXP);
    break;
  case SIDE_STRAIGHT:
    if (p->npath) d->q->findStraightPath(p->s, p->end, p->path, p->npath, d->pts, 0, 0, &n, 2 * SIDE_MAXP + 2, 0);
    break;
  default: detour_sequence(d, &d->c[i]);
  }
}

// pair_pass for Detour: `reps` passes of job k; seconds.
static double detour_pass(void *side, int k, int reps) {
  DetourSide *d = (DetourSide *)side;
  const double t0 = pair_clock();
  for (int r = 0; r < reps; r++) {
    if (k == SIDE_LOAD)
      dtFreeNavMesh(tb_load_mset(d->bytes, d->len));
    else if (k >= SIDE_TOOLBOX)
      for (int i = 0; i < d->ntc; i++) detour_toolbox(d, k - SIDE_TOOLBOX, &d->tc[i]);
    else
      for (int i = 0; i < d->n; i++) detour_one(d, k, i);
  }
  return pair_clock() - t0;
}

static int detour_calls(const DetourSide *d, int k) {
  int n = 0;
  if (k == SIDE_NEAREST) return 2 * d->n;
  if (k == SIDE_SEQUENCE) return d->n;
  if (k == SIDE_LOAD) return 1;
  if (k >= SIDE_TOOLBOX) return d->ntc;
  for (int i = 0; i < d->n; i++) n += k == SIDE_PATH ? d->p[i].sref && d->p[i].eref : d->p[i].npath > 0;
  return n;
}
#endif
