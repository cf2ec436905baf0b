// crowd_diff.cpp -- differential check of the crowd against DetourCrowd
// (Debian's librecast-dev) on the shared crowd scenarios: both crowds get
// the same agents and targets and are stepped together; every tick each
// agent's position, velocities, states, corridor, corners and neighbours
// are compared and the first difference is reported. (Debian's dtCrowd
// reproduces the oracle files bit for bit; see docs/crowd.md.)
//   crowd_diff <shared-dir> <scenario> [ticks]
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>
#include <DetourCrowd.h>
#include <cmath>
#include <cstring>
#include "detour_mset.h"
#include "crowd_setup.h"
extern "C" {
#include "navmesh.h"
#include "cases.h"
#include "crowd_oracle.h"
}

static bool same3(const float *a, const float *b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

// Compares agent i; prints and returns false on the first difference.
static bool compare(int tick, int i, const dtCrowdAgent *d, nm_crowd *c, int id) {
  nm_crowd_agent_info a;
  nm_polyref path[4096];
  int n = 0;
  nm_crowd_get_agent(c, id, &a);
  nm_crowd_get_corridor(c, id, path, 4096, &n);
  const char *what = 0;
  if (a.state != d->state) what = "state";
  else if (a.target_state != d->targetState) what = "targetState";
  else if (n != d->corridor.getPathCount() || memcmp(path, d->corridor.getPath(), n * 4)) what = "corridor";
  else if (a.ncorners != d->ncorners || memcmp(a.corners, d->cornerVerts, 12 * a.ncorners)) what = "corners";
  else if (a.nneighbours != d->nneis) what = "nneis";
  else if (!same3(a.dvel, d->dvel)) what = "dvel";
  else if (!same3(a.nvel, d->nvel)) what = "nvel";
  else if (!same3(a.vel, d->vel)) what = "vel";
  else if (!same3(a.pos, d->npos)) what = "npos";
  else {
    for (int k = 0; k < a.nneighbours; k++)
      if ((a.neighbours[k] & 0xffff) != d->neis[k].idx) what = "neis";
  }
  if (!what) return true;
  printf("tick %d agent %d: %s differs\n", tick, i, what);
  printf("  ours   pos %.9g %.9g %.9g vel %.9g %.9g dvel %.9g %.9g nvel %.9g %.9g ts %d path %d corners %d neis %d\n",
         a.pos[0], a.pos[1], a.pos[2], a.vel[0], a.vel[2], a.dvel[0], a.dvel[2], a.nvel[0], a.nvel[2],
         a.target_state, n, a.ncorners, a.nneighbours);
  printf("  detour pos %.9g %.9g %.9g vel %.9g %.9g dvel %.9g %.9g nvel %.9g %.9g ts %d path %d corners %d neis %d\n",
         d->npos[0], d->npos[1], d->npos[2], d->vel[0], d->vel[2], d->dvel[0], d->dvel[2], d->nvel[0],
         d->nvel[2], d->targetState, d->corridor.getPathCount(), d->ncorners, d->nneis);
  printf("  corners ours:");
  for (int k = 0; k < a.ncorners; k++) printf(" (%.9g %.9g %.9g f%d r%u)", a.corners[k*3], a.corners[k*3+1], a.corners[k*3+2], a.corner_flags[k], a.corner_refs[k]);
  printf("\n  corners detour:");
  for (int k = 0; k < d->ncorners; k++) printf(" (%.9g %.9g %.9g f%d r%u)", d->cornerVerts[k*3], d->cornerVerts[k*3+1], d->cornerVerts[k*3+2], d->cornerFlags[k], d->cornerPolys[k]);
  printf("\n  corridor ours:");
  for (int k = 0; k < n && k < 12; k++) printf(" %u", path[k]);
  printf("\n  corridor detour:");
  for (int k = 0; k < d->corridor.getPathCount() && k < 12; k++) printf(" %u", d->corridor.getPath()[k]);
  printf("\n");
  return false;
}

int main(int argc, char **argv) {
  static co_scenario s;
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const char *name = argc > 2 ? argv[2] : "dungeon_10";
  char path[1024];
  snprintf(path, sizeof path, "%s/oracle/crowd/%s.jsonl", shared, name);
  if (!co_load(path, &s)) { printf("cannot read %s\n", path); return 1; }
  const int ticks = argc > 3 ? atoi(argv[3]) : s.ticks;
  snprintf(path, sizeof path, "%s/navmeshes/%s", shared, s.navmesh);
  size_t len;
  unsigned char *bytes = bench_read_file(path, &len);
  nm_navmesh *mesh = 0;
  dtNavMesh *dm = bytes ? tb_load_mset(bytes, len) : 0;
  if (!dm || nm_navmesh_load(bytes, len, NULL, NULL, &mesh) < 0) { printf("cannot load mesh\n"); return 1; }
  dtCrowdAgentParams ap;
  dtCrowd *dc = cs_detour_crowd(dm, s.max_agents, s.max_agent_radius, &ap);
  nm_crowd_agent_params np;
  nm_filter f;
  nm_crowd *c = cs_our_crowd(mesh, s.max_agents, s.max_agent_radius, 0, &np, &f);
  if (!c) return 1;
  static int ids[CO_MAX_AGENTS];
  for (int i = 0; i < s.agents; i++) {
    dc->addAgent(s.start[i].pos, &ap);
    if (nm_crowd_add_agent(c, s.start[i].pos, &np, &ids[i]) < 0) printf("add %d failed\n", i);
  }
  for (int i = 0; i < s.agents; i++) {
    dc->requestMoveTarget(i, s.target[i].ref, s.target[i].pos);
    nm_crowd_request_move_target_ref(c, ids[i], s.target[i].ref, s.target[i].pos);
  }
  for (int k = 0; k <= ticks; k++) {
    for (int i = 0; i < s.agents; i++)
      if (!compare(k, i, dc->getAgent(i), c, ids[i])) return 1;
    if (k == ticks) break;
    if (k == s.retarget_tick)
      for (int i = 0; i < s.ntarget2; i++) {
        const int a = s.target2_agent[i];
        dc->requestMoveTarget(a, s.target2[i].ref, s.target2[i].pos);
        nm_crowd_request_move_target_ref(c, ids[a], s.target2[i].ref, s.target2[i].pos);
      }
    dc->update(s.dt, 0);
    nm_crowd_update(c, s.dt);
  }
  printf("%s: %d ticks identical\n", name, ticks);
  return 0;
}
