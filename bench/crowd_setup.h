// crowd_setup.h -- the crowd tool's settings of the shared crowd oracle
// (../shared/oracle/crowd/README.md: RecastDemo's CrowdTool, avoidance
// quality 3, filter excluding flags 0x10) for a dtCrowd and for our crowd,
// shared by bench/crowd_bench.cpp and bench/crowd_diff.cpp.
#ifndef NM_CROWD_SETUP_H
#define NM_CROWD_SETUP_H
#include <DetourCrowd.h>
#include <cstring>
extern "C" {
#include "navmesh.h"
}

// A dtCrowd set up as the oracle's; *ap gets the agent parameters.
static inline dtCrowd *cs_detour_crowd(dtNavMesh *dm, int max_agents, float max_radius,
                                       dtCrowdAgentParams *ap) {
  dtCrowd *dc = dtAllocCrowd();
  dc->init(max_agents, max_radius, dm);
  dtQueryFilter *f = dc->getEditableFilter(0);
  f->setIncludeFlags(0xffff);
  f->setExcludeFlags(0x10);
  dtObstacleAvoidanceParams p;
  memcpy(&p, dc->getObstacleAvoidanceParams(0), sizeof p);
  const int divs[4] = {5, 5, 7, 7}, rings[4] = {2, 2, 2, 3}, depth[4] = {1, 2, 3, 3};
  for (int i = 0; i < 4; i++) {
    p.velBias = 0.5f;
    p.adaptiveDivs = (unsigned char)divs[i];
    p.adaptiveRings = (unsigned char)rings[i];
    p.adaptiveDepth = (unsigned char)depth[i];
    dc->setObstacleAvoidanceParams(i, &p);
  }
  memset(ap, 0, sizeof *ap);
  ap->radius = 0.6f;
  ap->height = 2;
  ap->maxAcceleration = 8;
  ap->maxSpeed = 3.5f;
  ap->collisionQueryRange = ap->radius * 12;
  ap->pathOptimizationRange = ap->radius * 30;
  ap->updateFlags = 31;
  ap->obstacleAvoidanceType = 3;
  ap->separationWeight = 2;
  return dc;
}

// Our crowd with the same settings. mode 0: Detour's limits (dtCrowd's
// motion), 1: our defaults, 2: our defaults with ORCA. *ap gets the agent
// parameters; they point at *f, which must outlive the adds. threads: the
// update's threads (the motion is the same with any number).
static inline nm_crowd *cs_our_crowd(nm_navmesh *mesh, int max_agents, float max_radius, int mode,
                                     nm_crowd_agent_params *ap, nm_filter *f, int threads = 1) {
  nm_crowd_config cfg;
  nm_crowd *c = 0;
  if (mode == 0) nm_crowd_config_detour(&cfg, max_agents, max_radius);
  else nm_crowd_config_init(&cfg, max_agents, max_radius);
  cfg.threads = threads;
  if (nm_crowd_new(mesh, &cfg, NULL, NULL, &c) < 0) return 0;
  for (int i = 0; i < 4; i++) {
    nm_avoidance_params p;
    nm_avoidance_params_preset(&p, i);
    nm_crowd_set_avoidance_params(c, i, &p);
  }
  nm_filter_init(f);
  f->exclude_flags = 0x10;
  nm_crowd_agent_params_init(ap, 0.6f);
  ap->filter = f;
  ap->avoidance = mode == 2 ? NM_AVOID_ORCA : NM_AVOID_SAMPLED;
  return c;
}
#endif
