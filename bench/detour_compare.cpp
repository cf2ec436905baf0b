// detour_compare.cpp -- differential check of the query toolbox against
// Detour itself (Debian's librecast-dev) on the oracle cases of the shared
// navmeshes: for each query the same inputs go to both libraries and the
// answers are compared (refs exactly, coordinates to 1e-4). Prints one line
// per (mesh, query): agreeing cases / cases. Built and run by
// `make bench-toolbox` when the library is installed.
//   detour_compare <shared-dir>
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>
#include <DetourAlloc.h>
#include "detour_mset.h"
#include <cmath>
extern "C" {
#include "navmesh.h"
#include "cases.h"
#include "toolbox_cases.h"
}

static const int BUF = 4096;

static bool near(float a, float b) { return std::fabs(a - b) <= 1e-4f * (1 + std::fabs(a) / 1000); }
static bool same_pts(const float *a, const float *b, int n) {
  for (int i = 0; i < n; i++)
    if (!near(a[i], b[i])) return false;
  return true;
}
static bool same_refs(const dtPolyRef *a, const nm_polyref *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

struct Both {
  dtNavMeshQuery *dq;
  dtQueryFilter df;
  nm_query *q;
  nm_filter f;
  dtPolyRef dr[BUF], dp[BUF];
  nm_polyref r[BUF], p[BUF];
  float dc[BUF], c[BUF];
};

// One comparison per query; true when both agree on case c.
static bool cmp(Both *b, int k, const tb_case *c) {
  float w[3], sq[12], dv[3], v[3], dn[3], nn[3], dd, d, ds[6 * 192], s[6 * 192];
  int dn_ = 0, n = 0, found;
  tb_derived(c, w, sq);
  switch (k) {
  case 0:
    b->dq->moveAlongSurface(c->sref, c->s, w, &b->df, dv, b->dr, &dn_, 64);
    nm_query_move_along_surface(b->q, c->sref, c->s, w, &b->f, v, b->r, 64, &n);
    return dn_ == n && same_refs(b->dr, b->r, n) && same_pts(dv, v, 3);
  case 1:
    b->dq->findDistanceToWall(c->sref, c->s, 5, &b->df, &dd, dv, dn);
    nm_query_distance_to_wall(b->q, c->sref, c->s, 5, &b->f, &d, v, nn, &found);
    return near(dd, d) && (!found || same_pts(dv, v, 3));
  case 2:
    b->dq->findPolysAroundCircle(c->sref, c->s, 5, &b->df, b->dr, b->dp, b->dc, &dn_, BUF);
    nm_query_polys_around_circle(b->q, c->sref, c->s, 5, &b->f, b->r, b->p, b->c, BUF, &n);
    return dn_ == n && same_refs(b->dr, b->r, n) && same_refs(b->dp, b->p, n) && same_pts(b->dc, b->c, n);
  case 3:
    b->dq->findPolysAroundShape(c->sref, sq, 4, &b->df, b->dr, b->dp, b->dc, &dn_, BUF);
    nm_query_polys_around_shape(b->q, c->sref, sq, 4, &b->f, b->r, b->p, b->c, BUF, &n);
    return dn_ == n && same_refs(b->dr, b->r, n) && same_refs(b->dp, b->p, n) && same_pts(b->dc, b->c, n);
  case 4:
    b->dq->findLocalNeighbourhood(c->sref, c->s, 5, &b->df, b->dr, b->dp, &dn_, 64);
    nm_query_local_neighbourhood(b->q, c->sref, c->s, 5, &b->f, b->r, b->p, 64, &n);
    return dn_ == n && same_refs(b->dr, b->r, n) && same_refs(b->dp, b->p, n);
  case 5: {
    float ext[3] = {2, 4, 2};
    b->dq->queryPolygons(c->s, ext, &b->df, b->dr, &dn_, BUF);
    nm_query_polygons(b->q, c->s, ext, &b->f, b->r, BUF, &n);
    return dn_ == n && same_refs(b->dr, b->r, n);
  }
  default:
    b->dq->getPolyWallSegments(c->sref, &b->df, ds, b->dr, &dn_, 192);
    nm_query_wall_segments(b->q, c->sref, &b->f, s, b->r, 192, &n);
    return dn_ == n && same_refs(b->dr, b->r, n) && same_pts(ds, s, 6 * n);
  }
}

static const char *const names[] = {"moveAlongSurface", "findDistanceToWall", "findPolysAroundCircle",
                                    "findPolysAroundShape", "findLocalNeighbourhood", "queryPolygons",
                                    "getPolyWallSegments"};

int main(int argc, char **argv) {
  static Both b;
  static tb_case cs[TB_MAX_CASES];
  const char *shared = argc > 1 ? argv[1] : "../shared";
  printf("%-17s", "agree with Detour");
  for (const char *nm : names) printf(" %10.10s", nm);
  printf("\n");
  for (int i = 0; bench_meshes[i]; i++) {
    const char *name = bench_meshes[i];
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
    int ncase = tb_load_cases(path, cs);
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
    unsigned char *bytes = bench_read_file(path, &len);
    nm_navmesh *mesh = 0;
    dtNavMesh *dm = bytes ? tb_load_mset(bytes, len) : 0;
    if (!ncase || !dm || nm_navmesh_load(bytes, len, NULL, NULL, &mesh) < 0) continue;
    free(bytes);
    b.dq = dtAllocNavMeshQuery();
    b.dq->init(dm, 65535);
    nm_query_new(mesh, 65535, NULL, &b.q);
    nm_navmesh_release(mesh);
    nm_filter_init(&b.f);
    printf("%-17s", name);
    for (int k = 0; k < 7; k++) {
      int ok = 0;
      for (int j = 0; j < ncase; j++) ok += cmp(&b, k, &cs[j]);
      printf(" %6d/%-3d", ok, ncase);
    }
    printf("\n");
    nm_query_free(b.q);
    dtFreeNavMeshQuery(b.dq);
    dtFreeNavMesh(dm);
  }
  return 0;
}
