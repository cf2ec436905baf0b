// crowd_bench.cpp -- crowd update time per tick, ours and DetourCrowd
// (Debian's librecast-dev) side by side in one process.
//
// Scenarios as the shared crowd oracle runs them (RecastDemo's crowd tool
// settings, 400 ticks of 0.05 s, half the agents re-targeted at tick 200):
// the oracle files' agents for dungeon 25/100 and city 25/100/500, and
// seeded random points for dungeon 500 (whole mesh) and city 2000 (a disc
// of radius 120 around (300, 300), the density of city_500). Each round
// steps a fresh dtCrowd and a fresh crowd of ours (Detour's limits: the
// same work, the same motion) tick by tick, alternately, timing each
// update; the ratio of a round is our total over Detour's, and the median
// of the rounds' ratios is reported. Then our crowd alone with our defaults
// and with ORCA: time per tick, and (pair, recorded tick) overlaps deeper
// than 10% of the radii sum, as the oracle test counts them, and arrivals.
// For the 2000 agents, our defaults with the update on 1, 2 and 4 threads
// (wall clock; the positions must be identical).
//   crowd_bench <shared-dir> [seconds-ignored]   (BENCH_ROUNDS=n, default 3)
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>
#include <DetourCrowd.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>
#include "detour_mset.h"
#include "crowd_setup.h"
extern "C" {
#include "navmesh.h"
#include "cases.h"
#include "crowd_oracle.h"
}

struct Scenario {
  const char *name, *navmesh, *oracle;  // oracle file, or 0: random points
  int agents;
  float disc;                           // random points: disc radius (0: whole mesh)
};

static const Scenario scenarios[] = {
    {"dungeon", "dungeon_tiled.bin", "dungeon_25", 25, 0},
    {"dungeon", "dungeon_tiled.bin", "dungeon_100", 100, 0},
    {"dungeon", "dungeon_tiled.bin", 0, 500, 0},
    {"city", "city_tiled.bin", "city_25", 25, 0},
    {"city", "city_tiled.bin", "city_100", 100, 0},
    {"city", "city_tiled.bin", "city_500", 500, 0},
    {"city", "city_tiled.bin", 0, 2000, 120},
};

static co_scenario g_s;

// Random agents for a scenario without an oracle file: starts, targets,
// second targets for the even agents (seeded, the same every run).
static void draw_points(nm_navmesh *mesh, const Scenario &sc) {
  nm_query *q;
  nm_filter f;
  nm_query_new(mesh, 64, NULL, &q);
  nm_query_seed(q, 1);
  nm_filter_init(&f);
  f.exclude_flags = 0x10;
  memset(&g_s, 0, sizeof g_s);
  g_s.agents = sc.agents;
  g_s.max_agents = sc.agents;
  g_s.max_agent_radius = 0.6f;
  g_s.dt = 0.05f;
  g_s.ticks = 400;
  g_s.record_every = 10;
  g_s.retarget_tick = 200;
  g_s.ntarget2 = (sc.agents + 1) / 2;
  co_point *lists[3] = {g_s.start, g_s.target, g_s.target2};
  const int counts[3] = {sc.agents, sc.agents, g_s.ntarget2};
  for (int l = 0; l < 3; l++)
    for (int i = 0; i < counts[l]; i++) {
      co_point *p = &lists[l][i];
      do {
        nm_query_random_point(q, &f, &p->ref, p->pos);
      } while (sc.disc > 0 && (p->pos[0] - 300) * (p->pos[0] - 300) + (p->pos[2] - 300) * (p->pos[2] - 300) >
                                  sc.disc * sc.disc);
      if (l == 2) g_s.target2_agent[i] = 2 * i;
    }
  nm_query_free(q);
}

static dtCrowd *detour_crowd(dtNavMesh *dm) {
  dtCrowdAgentParams ap;
  dtCrowd *dc = cs_detour_crowd(dm, g_s.max_agents, g_s.max_agent_radius, &ap);
  for (int i = 0; i < g_s.agents; i++) dc->addAgent(g_s.start[i].pos, &ap);
  for (int i = 0; i < g_s.agents; i++) dc->requestMoveTarget(i, g_s.target[i].ref, g_s.target[i].pos);
  return dc;
}

// mode 0: Detour's limits; 1: our defaults; 2: our defaults with ORCA.
static nm_crowd *our_crowd(nm_navmesh *mesh, int mode, std::vector<int> &ids, int threads = 1) {
  nm_crowd_agent_params ap;
  nm_filter f;
  nm_crowd *c = cs_our_crowd(mesh, g_s.max_agents, g_s.max_agent_radius, mode, &ap, &f, threads);
  if (!c) return 0;
  ids.assign(g_s.agents, -1);
  for (int i = 0; i < g_s.agents; i++) nm_crowd_add_agent(c, g_s.start[i].pos, &ap, &ids[i]);
  for (int i = 0; i < g_s.agents; i++)
    nm_crowd_request_move_target_ref(c, ids[i], g_s.target[i].ref, g_s.target[i].pos);
  return c;
}

static void retarget_detour(dtCrowd *dc) {
  for (int i = 0; i < g_s.ntarget2; i++)
    dc->requestMoveTarget(g_s.target2_agent[i], g_s.target2[i].ref, g_s.target2[i].pos);
}
static void retarget_ours(nm_crowd *c, const std::vector<int> &ids) {
  for (int i = 0; i < g_s.ntarget2; i++)
    nm_crowd_request_move_target_ref(c, ids[g_s.target2_agent[i]], g_s.target2[i].ref, g_s.target2[i].pos);
}

static int overlaps(const float *pos, int n) {
  const float lim = 0.9f * 1.2f;
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      const float dx = pos[i * 3] - pos[j * 3], dz = pos[i * 3 + 2] - pos[j * 3 + 2];
      if (std::fabs(pos[i * 3 + 1] - pos[j * 3 + 1]) < 2 && dx * dx + dz * dz < lim * lim) k++;
    }
  return k;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One round of Detour and ours (Detour's limits) stepped alternately;
// per-tick times in us appended to td / to.
static void side_by_side(dtNavMesh *dm, nm_navmesh *mesh, std::vector<double> &td, std::vector<double> &to) {
  std::vector<int> ids;
  dtCrowd *dc = detour_crowd(dm);
  nm_crowd *c = our_crowd(mesh, 0, ids);
  for (int k = 0; k < g_s.ticks; k++) {
    if (k == g_s.retarget_tick) {
      retarget_detour(dc);
      retarget_ours(c, ids);
    }
    double t0 = bench_now();
    dc->update(g_s.dt, 0);
    double t1 = bench_now();
    nm_crowd_update(c, g_s.dt);
    double t2 = bench_now();
    td.push_back((t1 - t0) * 1e6);
    to.push_back((t2 - t1) * 1e6);
  }
  dtFreeCrowd(dc);
  nm_crowd_free(c);
}

// Our crowd alone (mode 1 or 2): per-tick times, overlaps, arrivals.
static void ours_alone(nm_navmesh *mesh, int mode, std::vector<double> &t, int *ov, int *arrived) {
  std::vector<int> ids;
  std::vector<float> pos(3 * g_s.agents);
  nm_crowd *c = our_crowd(mesh, mode, ids);
  int n;
  *ov = 0;
  for (int k = 0; k < g_s.ticks; k++) {
    if (k % g_s.record_every == 0) {
      nm_crowd_positions(c, pos.data(), NULL, NULL, NULL, g_s.agents, &n);
      *ov += overlaps(pos.data(), n);
    }
    if (k == g_s.retarget_tick) retarget_ours(c, ids);
    double t0 = bench_now();
    nm_crowd_update(c, g_s.dt);
    t.push_back((bench_now() - t0) * 1e6);
  }
  nm_crowd_positions(c, pos.data(), NULL, NULL, NULL, g_s.agents, &n);
  *ov += overlaps(pos.data(), n);
  *arrived = 0;
  for (int i = 0; i < g_s.agents; i++) {
    const bool second = i % 2 == 0;
    const float *tp = second ? g_s.target2[i / 2].pos : g_s.target[i].pos;
    const float dx = pos[i * 3] - tp[0], dz = pos[i * 3 + 2] - tp[2];
    *arrived += dx * dx + dz * dz < 1;
  }
  nm_crowd_free(c);
}

static double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

static double wall_now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Our defaults with the update on `threads` threads: mean wall-clock ms per
// update over the 400 ticks; *pos gets the final positions.
static double threaded_run(nm_navmesh *mesh, int threads, std::vector<float> &pos) {
  std::vector<int> ids;
  nm_crowd *c = our_crowd(mesh, 1, ids, threads);
  int n;
  double total = 0;
  for (int k = 0; k < g_s.ticks; k++) {
    if (k == g_s.retarget_tick) retarget_ours(c, ids);
    double t0 = wall_now();
    nm_crowd_update(c, g_s.dt);
    total += wall_now() - t0;
  }
  pos.assign(3 * g_s.agents, 0);
  nm_crowd_positions(c, pos.data(), NULL, NULL, NULL, g_s.agents, &n);
  nm_crowd_free(c);
  return total / g_s.ticks * 1e3;
}

// 1, 2 and 4 threads in interleaved rounds (wall clock: the point is the
// elapsed time of an update): mean ms per update, the median per-round
// speed-up over 1 thread, and whether the final positions are identical.
static void threads_table(nm_navmesh *mesh, const char *name, int rounds) {
  const int counts[3] = {1, 2, 4};
  std::vector<double> ms[3], speedup[3];
  bool same = true;
  for (int r = 0; r < rounds; r++) {
    std::vector<float> p0, p;
    double t[3];
    for (int i = 0; i < 3; i++) {
      t[i] = threaded_run(mesh, counts[i], i ? p : p0);
      ms[i].push_back(t[i]);
      speedup[i].push_back(t[0] / t[i]);
      if (i && p != p0) same = false;
    }
  }
  char load[64] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(load, sizeof load, f)) strcpy(load, "?");
    fclose(f);
    load[strcspn(load, "\n")] = 0;
  }
  printf("threads, %s %d agents (our defaults, wall clock, load average %s):", name, g_s.agents, load);
  for (int i = 0; i < 3; i++)
    printf(" %d: %.2f ms (x%.2f)", counts[i], mean(ms[i]), median(speedup[i]));
  printf("; positions %s\n", same ? "identical" : "DIFFERENT");
  fprintf(stderr, "{\"bench\":\"crowd_threads\",\"mesh\":\"%s\",\"agents\":%d,\"ms_1\":%.3f,\"ms_2\":%.3f,"
          "\"ms_4\":%.3f,\"speedup_2\":%.3f,\"speedup_4\":%.3f,\"identical\":%s}\n", name, g_s.agents,
          mean(ms[0]), mean(ms[1]), mean(ms[2]), median(speedup[1]), median(speedup[2]), same ? "true" : "false");
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  const char *r = getenv("BENCH_ROUNDS");
  const int rounds = r && atoi(r) > 0 ? atoi(r) : 3;
  printf("crowd update per tick (us), %d interleaved rounds of 400 ticks; ratio = median of per-round "
         "ours/Detour\n", rounds);
  printf("columns: Detour and ours (Detour's limits) median/mean us per tick, ratio; ours with our\n"
         "defaults (sampled): mean, slowest tick, overlaps, arrivals; the same with ORCA\n");
  printf("%-8s %5s | %8s %8s | %8s %8s | %5s | %8s %8s %8s %7s | %8s %8s %7s\n", "mesh", "agents",
         "dt-med", "dt-mean", "ours-med", "ours-mean", "ratio", "dflt", "dflt-max", "overlaps",
         "arrived", "orca", "overlaps", "arrived");
  for (const Scenario &sc : scenarios) {
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/navmeshes/%s", shared, sc.navmesh);
    unsigned char *bytes = bench_read_file(path, &len);
    nm_navmesh *mesh = 0;
    dtNavMesh *dm = bytes ? tb_load_mset(bytes, len) : 0;
    if (!dm || nm_navmesh_load(bytes, len, NULL, NULL, &mesh) < 0) {
      printf("(%s missing: skipped)\n", path);
      free(bytes);
      continue;
    }
    free(bytes);
    if (sc.oracle) {
      snprintf(path, sizeof path, "%s/oracle/crowd/%s.jsonl", shared, sc.oracle);
      if (!co_load(path, &g_s)) continue;
      co_free(&g_s);
    } else {
      draw_points(mesh, sc);
    }
    std::vector<double> td, to, ratios;
    for (int k = 0; k < rounds; k++) {
      std::vector<double> a, b;
      side_by_side(dm, mesh, a, b);
      ratios.push_back(mean(b) / mean(a));
      td.insert(td.end(), a.begin(), a.end());
      to.insert(to.end(), b.begin(), b.end());
    }
    std::vector<double> tdef, torca;
    int ov_s, ov_o, ar_s, ar_o;
    ours_alone(mesh, 1, tdef, &ov_s, &ar_s);
    ours_alone(mesh, 2, torca, &ov_o, &ar_o);
    printf("%-8s %5d | %8.1f %8.1f | %8.1f %8.1f | %5.2f | %8.1f %8.1f %8d %7d | %8.1f %8d %7d\n",
           sc.name, sc.agents, median(td), mean(td), median(to), mean(to), median(ratios), mean(tdef),
           *std::max_element(tdef.begin(), tdef.end()), ov_s, ar_s, mean(torca), ov_o, ar_o);
    fprintf(stderr,
            "{\"bench\":\"crowd\",\"mesh\":\"%s\",\"agents\":%d,\"detour_median_us\":%.1f,\"detour_mean_us\":%.1f,"
            "\"ours_median_us\":%.1f,\"ours_mean_us\":%.1f,\"ratio\":%.3f,\"defaults_mean_us\":%.1f,"
            "\"defaults_max_us\":%.1f,"
            "\"orca_mean_us\":%.1f,\"overlaps_sampled\":%d,\"overlaps_orca\":%d,\"arrived_sampled\":%d,"
            "\"arrived_orca\":%d}\n",
            sc.name, sc.agents, median(td), mean(td), median(to), mean(to), median(ratios), mean(tdef),
            *std::max_element(tdef.begin(), tdef.end()), mean(torca), ov_s, ov_o, ar_s, ar_o);
    fflush(stdout);
    if (sc.agents == 2000) threads_table(mesh, sc.name, rounds);
    nm_navmesh_release(mesh);
    dtFreeNavMesh(dm);
  }
  return 0;
}
