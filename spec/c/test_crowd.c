/* test_crowd.c -- the crowd on small hand-made navmeshes (no ../shared
 * needed): two rooms joined by doorways, a long strip, the 3 x 3 tile
 * fixture; corridor merges; the same motion with 1 to 4 threads; bad input;
 * allocation failure at every point of create, add and update. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "fixture.h"
#include "track_alloc.h"
#include "crowd/nm_crowd.h"

/* ---- meshes ---- */

typedef struct rect {
  float x0, z0, x1, z1;
  uint16_t flags;
  uint8_t area;
} rect;

/* One tile of axis-aligned rectangles at height 0 (edges shared exactly
 * become links), optional off-mesh links. */
static nm_navmesh *rect_mesh(const rect *r, int n, const nm_offmesh_link *off, int noff,
                             const nm_alloc *a) {
  static float v[4096 * 3];
  static uint16_t polys[1024 * 6];
  static uint16_t flags[1024];
  static uint8_t areas[1024];
  nm_poly_mesh_input in;
  nm_navmesh_params prm;
  nm_navmesh *m = NULL;
  void *blob = NULL;
  size_t size;
  float mx = 0, mz = 0;
  int i, k, nv = 0;
  memset(&in, 0, sizeof in);
  memset(polys, 0xff, sizeof polys);
  for (i = 0; i < n; i++) {
    const float xs[4] = {r[i].x0, r[i].x1, r[i].x1, r[i].x0}, zs[4] = {r[i].z0, r[i].z0, r[i].z1, r[i].z1};
    for (k = 0; k < 4; k++) {
      int j;
      for (j = 0; j < nv && !(v[j * 3] == xs[k] && v[j * 3 + 2] == zs[k]); j++) {}
      if (j == nv) {
        v[nv * 3] = xs[k];
        v[nv * 3 + 1] = 0;
        v[nv * 3 + 2] = zs[k];
        nv++;
      }
      polys[i * 6 + k] = (uint16_t)j;
    }
    flags[i] = r[i].flags ? r[i].flags : 1;
    areas[i] = r[i].area;
    mx = nm_maxf(mx, r[i].x1);
    mz = nm_maxf(mz, r[i].z1);
  }
  in.verts = v; in.nverts = nv; in.polys = polys; in.npolys = n; in.nvp = 6;
  in.flags = flags; in.areas = areas; in.offmesh = off; in.noffmesh = noff;
  in.bmin[0] = -1; in.bmin[1] = -1; in.bmin[2] = -1;
  in.bmax[0] = mx + 1; in.bmax[1] = 3; in.bmax[2] = mz + 1;
  in.walkable_height = 2; in.walkable_radius = 0.6f; in.walkable_climb = 0.9f;
  in.cell_size = 0.3f;
  in.build_bvtree = 1;
  memset(&prm, 0, sizeof prm);
  prm.orig[0] = -1; prm.orig[2] = -1;
  prm.tile_width = prm.tile_height = nm_maxf(mx, mz) + 4;
  prm.max_tiles = 1;
  prm.max_polys = 1024;
  if (nm_tile_create(&in, a, NULL, &blob, &size) < 0) return NULL;
  if (nm_navmesh_new(&prm, a, NULL, &m) < 0 || nm_navmesh_add_tile(m, blob, size, NULL, NULL) < 0) {
    nm_navmesh_release(m);
    m = NULL;
  }
  nm_tile_free(a, blob, size);
  return m;
}

/* Two 20 x 20 rooms (x 0..20 and 22..42) joined by a doorway at z 9..11
 * (flags door_flags) and, when two_doors, a second one at z 17..19. */
static nm_navmesh *rooms(int two_doors, uint16_t door_flags, const nm_alloc *a) {
  static const float zs1[] = {0, 9, 11, 20}, zs2[] = {0, 9, 11, 17, 19, 20};
  const float *zs = two_doors ? zs2 : zs1;
  const int nz = two_doors ? 5 : 3;
  rect r[16];
  int i, n = 0;
  memset(r, 0, sizeof r);
  for (i = 0; i < nz; i++) {
    rect ra = {0, zs[i], 20, zs[i + 1], 1, 0}, rb = {22, zs[i], 42, zs[i + 1], 1, 0};
    r[n++] = ra;
    r[n++] = rb;
    if (zs[i] == 9 || zs[i] == 17) {
      rect d = {20, zs[i], 22, zs[i + 1], 1, 0};
      d.flags = zs[i] == 9 ? door_flags : 1;
      r[n++] = d;
    }
  }
  return rect_mesh(r, n, NULL, 0, a);
}

/* A strip of n quads of 1 x 3 wu along x. */
static nm_navmesh *strip(int n, const nm_alloc *a) {
  static rect r[1024];
  int i;
  for (i = 0; i < n; i++) {
    r[i].x0 = (float)i;
    r[i].x1 = (float)(i + 1);
    r[i].z0 = 0;
    r[i].z1 = 3;
    r[i].flags = 1;
    r[i].area = 0;
  }
  return rect_mesh(r, n, NULL, 0, a);
}

/* ---- helpers ---- */

static nm_crowd *new_crowd(nm_navmesh *m, int max_agents, const nm_alloc *a) {
  nm_crowd_config cfg;
  nm_crowd *c = NULL;
  nm_crowd_config_init(&cfg, max_agents, 0.6f);
  CHECK(nm_crowd_new(m, &cfg, a, NULL, &c) == NM_OK);
  return c;
}

static int add(nm_crowd *c, float x, float z, const nm_crowd_agent_params *p) {
  const float pos[3] = {x, 0, z};
  int id = -1;
  CHECK(nm_crowd_add_agent(c, pos, p, &id) == NM_OK);
  return id;
}

static void target(nm_crowd *c, int id, float x, float z) {
  const float pos[3] = {x, 0, z};
  CHECK(nm_crowd_request_move_target(c, id, pos) == NM_OK);
}

static float dist2d(const float *a, float x, float z) {
  return sqrtf((a[0] - x) * (a[0] - x) + (a[2] - z) * (a[2] - z));
}

/* Every walking agent stands on its polygon (X/Z within 1 mm). */
static int all_on_mesh(nm_crowd *c, nm_query *q) {
  float pos[3 * 256], cl[3];
  int ids[256], n, i;
  nm_crowd_positions(c, pos, NULL, ids, NULL, 256, &n);
  for (i = 0; i < n; i++) {
    nm_crowd_agent_info a;
    nm_crowd_get_agent(c, ids[i], &a);
    if (a.state != NM_AGENT_WALKING) continue;
    if (nm_query_closest_point(q, a.first_poly, a.pos, cl, NULL) < 0) return 0;
    if (dist2d(cl, a.pos[0], a.pos[2]) > 1e-3f) return 0;
  }
  return 1;
}

/* ---- corridor merges (Detour's dtMergeCorridor*) ---- */

TEST(merges) {
  nm_polyref p[8] = {1, 2, 3, 4}, q[8] = {1, 2, 3, 4}, r[8] = {1, 2, 3, 4, 5};
  const nm_polyref fwd[] = {1, 2}, back[] = {1, 5}, none[] = {9}, tail[] = {3, 4, 5};
  const nm_polyref cut[] = {1, 9, 4};
  int n = nm_merge_start_moved(p, 4, 8, fwd, 2);
  CHECK(n == 3 && p[0] == 2 && p[1] == 3 && p[2] == 4); /* walked forward along it */
  n = nm_merge_start_moved(q, 4, 8, back, 2);
  CHECK(n == 5 && q[0] == 5 && q[1] == 1 && q[2] == 2 && q[4] == 4); /* stepped off: back first */
  CHECK(nm_merge_start_moved(q, 5, 8, none, 1) == 5);                 /* nothing shared */
  n = nm_merge_end_moved(p, 3, 8, tail, 3);
  CHECK(n == 4 && p[2] == 4 && p[3] == 5);
  n = nm_merge_start_shortcut(r, 5, 8, cut, 3);
  CHECK(n == 4 && r[0] == 1 && r[1] == 9 && r[2] == 4 && r[3] == 5);
  n = nm_merge_start_moved(r, 4, 3, tail, 3); /* cut at max */
  CHECK(n <= 3);
}

/* ---- behaviour ---- */

/* 20 agents cross the rooms both ways (through the doorway, or within the
 * left room when `open`); returns their final positions, how many arrived
 * and the (pair, tick) overlaps deeper than 40%. Checks every tick that
 * no agent leaves the mesh. */
static void crossing_run(int avoidance, int open, float *final_pos, int *arrived, int *deep) {
  nm_navmesh *m = rooms(0, 1, NULL);
  nm_crowd *c = new_crowd(m, 64, NULL);
  nm_crowd_agent_params p;
  nm_query *q = NULL;
  float goal[20][2];
  int ids[20], i, k, n;
  nm_crowd_agent_params_init(&p, 0.6f);
  p.avoidance = avoidance;
  nm_query_new(m, 64, NULL, &q);
  for (i = 0; i < 20; i++) {
    const int left = i % 2 == 0;
    const float x0 = open ? (left ? 2.0f : 18.0f) : (left ? 4.0f : 38.0f);
    const float x1 = open ? (left ? 17.0f : 3.0f) : (left ? 36.0f : 6.0f);
    ids[i] = add(c, left ? x0 + (float)(i % 4) : x0 - (float)(i % 4), 3.0f + (float)i * 0.7f, &p);
    goal[i][0] = x1;
    goal[i][1] = 16.0f - (float)i * 0.5f;
    target(c, ids[i], goal[i][0], goal[i][1]);
  }
  *deep = 0;
  for (k = 0; k < 1200; k++) {
    float pos[60];
    int a, b;
    CHECK(nm_crowd_update(c, 0.05f) == NM_OK);
    CHECK(all_on_mesh(c, q));
    nm_crowd_positions(c, pos, NULL, NULL, NULL, 20, &n);
    for (a = 0; a < n; a++)
      for (b = a + 1; b < n; b++) *deep += dist2d(&pos[a * 3], pos[b * 3], pos[b * 3 + 2]) < 0.6f * 1.2f;
  }
  *arrived = 0;
  for (i = 0; i < 20; i++) {
    nm_crowd_agent_info a;
    nm_crowd_get_agent(c, ids[i], &a);
    *arrived += dist2d(a.pos, goal[i][0], goal[i][1]) < 1.0f;
    memcpy(&final_pos[i * 3], a.pos, sizeof a.pos);
  }
  nm_query_free(q);
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* Runs a crossing twice (checking determinism) and reports it; all agents
 * must arrive without deep overlaps when `must`. */
static void crossing_check(int avoidance, int open, const char *what, int must) {
  float a[60], b[60];
  int arrived, deep, arrived2, deep2;
  crossing_run(avoidance, open, a, &arrived, &deep);
  crossing_run(avoidance, open, b, &arrived2, &deep2);
  printf("# %s: %d/20 arrived, %d (pair, tick) overlaps deeper than 40%%\n", what, arrived, deep);
  CHECK(memcmp(a, b, sizeof a) == 0); /* deterministic, bit for bit */
  if (must) CHECK(arrived == 20 && deep == 0);
}

/* Through a doorway one agent wide, both ways: sampled avoidance gets
 * everyone through; ORCA stalls where the two streams meet in the doorway
 * (neither side backs off), reported only. */
TEST(doorway) {
  crossing_check(NM_AVOID_SAMPLED, 0, "doorway, sampled", 1);
  crossing_check(NM_AVOID_ORCA, 0, "doorway, ORCA", 0);
}

/* Two streams crossing a room, both methods. */
TEST(room_crossing) {
  crossing_check(NM_AVOID_ORCA, 1, "room crossing, ORCA", 1);
  crossing_check(NM_AVOID_SAMPLED, 1, "room crossing, sampled", 1);
}

/* An agent that may not use the near door (flags 2) takes the far one. */
TEST(filter_per_agent) {
  nm_navmesh *m = rooms(1, 2, NULL);
  nm_crowd *c = new_crowd(m, 8, NULL);
  nm_crowd_agent_params p;
  nm_filter f;
  nm_crowd_agent_info a;
  int free_id, barred, k, used_door = 0, barred_door = 0;
  nm_crowd_agent_params_init(&p, 0.5f);
  free_id = add(c, 10, 8, &p);
  nm_filter_init(&f);
  f.exclude_flags = 2;
  p.filter = &f;
  barred = add(c, 10, 12, &p);
  target(c, free_id, 32, 8);
  target(c, barred, 32, 12);
  for (k = 0; k < 400; k++) {
    uint16_t fl;
    nm_crowd_update(c, 0.05f);
    nm_crowd_get_agent(c, free_id, &a);
    nm_navmesh_get_poly_flags(m, a.first_poly, &fl);
    used_door |= fl == 2;
    nm_crowd_get_agent(c, barred, &a);
    nm_navmesh_get_poly_flags(m, a.first_poly, &fl);
    barred_door |= fl == 2;
  }
  CHECK(used_door && !barred_door);
  CHECK(dist2d(a.pos, 32, 12) < 1.0f);
  nm_crowd_get_agent(c, free_id, &a);
  CHECK(dist2d(a.pos, 32, 8) < 1.0f);
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* A target 300 polygons away is planned whole and reached; with Detour's
 * limit of 256 the corridor never holds it. */
TEST(far_target) {
  nm_navmesh *m = strip(300, NULL);
  nm_crowd *c = new_crowd(m, 4, NULL);
  nm_crowd_agent_params p;
  nm_crowd_agent_info a;
  int id, k, longest = 0;
  nm_crowd_agent_params_init(&p, 0.6f);
  p.max_speed = 12;
  p.max_acceleration = 30;
  id = add(c, 0.5f, 1.5f, &p);
  target(c, id, 299.5f, 1.5f);
  for (k = 0; k < 700; k++) {
    nm_crowd_update(c, 0.05f);
    nm_crowd_get_agent(c, id, &a);
    if (a.path_count > longest) longest = a.path_count;
  }
  printf("# far target: longest corridor %d polygons, end %.2f wu from the target\n", longest,
         dist2d(a.pos, 299.5f, 1.5f));
  CHECK(longest >= 290);
  CHECK(dist2d(a.pos, 299.5f, 1.5f) < 1.0f);
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* Rooms joined only by an off-mesh connection: the agent is animated over
 * it (state OFFMESH for a while) and arrives. */
TEST(offmesh) {
  static const rect r[2] = {{0, 0, 10, 10, 1, 0}, {14, 0, 24, 10, 1, 0}};
  nm_offmesh_link l;
  nm_navmesh *m;
  nm_crowd *c;
  nm_crowd_agent_params p;
  nm_crowd_agent_info a;
  int id, k, flew = 0;
  memset(&l, 0, sizeof l);
  l.start[0] = 9.5f; l.start[2] = 5;
  l.end[0] = 14.5f; l.end[2] = 5;
  l.radius = 0.5f;
  l.flags = 1;
  m = rect_mesh(r, 2, &l, 1, NULL);
  CHECK(m != NULL);
  if (!m) return;
  c = new_crowd(m, 4, NULL);
  nm_crowd_agent_params_init(&p, 0.5f);
  id = add(c, 2, 5, &p);
  target(c, id, 20, 5);
  for (k = 0; k < 300; k++) {
    nm_crowd_update(c, 0.05f);
    nm_crowd_get_agent(c, id, &a);
    flew += a.state == NM_AGENT_OFFMESH;
  }
  CHECK(flew > 0);
  CHECK(a.state == NM_AGENT_WALKING && dist2d(a.pos, 20, 5) < 1.0f);
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* Tiles go and come back under walking agents: agents are put on the
 * nearest polygon or marked invalid (never left on a freed polygon), and
 * walk on when the tile is back. */
TEST(tile_changes) {
  nm_navmesh *m = NULL;
  nm_crowd *c;
  nm_crowd_agent_params p;
  void *data = NULL;
  size_t size = 0;
  int ids[6], i, k, invalid = 0;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  c = new_crowd(m, 8, NULL);
  nm_crowd_agent_params_init(&p, 0.4f);
  for (i = 0; i < 6; i++) {
    ids[i] = add(c, 9.0f + (float)i, 10.0f + (float)(i % 3), &p);
    target(c, ids[i], 22.0f - (float)i, 2.0f + (float)i);
  }
  for (k = 0; k < 10; k++) nm_crowd_update(c, 0.05f);
  CHECK(nm_navmesh_remove_tile(m, 1, 1, 0, &data, &size) == NM_OK);
  for (k = 0; k < 20; k++) {
    nm_crowd_update(c, 0.05f);
    for (i = 0; i < 6; i++) {
      nm_crowd_agent_info a;
      nm_crowd_get_agent(c, ids[i], &a);
      if (a.state == NM_AGENT_INVALID) invalid++;
      else CHECK(nm_navmesh_is_valid_ref(m, a.first_poly));
    }
  }
  CHECK(invalid > 0);
  CHECK(nm_navmesh_add_tile(m, data, size, NULL, NULL) == NM_OK);
  nm_free_bytes(m, data, size);
  for (k = 0; k < 200; k++) nm_crowd_update(c, 0.05f);
  for (i = 0; i < 6; i++) {
    nm_crowd_agent_info a;
    nm_crowd_get_agent(c, ids[i], &a);
    CHECK(a.state == NM_AGENT_WALKING && nm_navmesh_is_valid_ref(m, a.first_poly));
  }
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* The crowd moves onto a newer version of its mesh (the middle tile
 * removed): agents go round the hole and arrive; the old version is
 * released by everyone else and never touched again (ASan). */
TEST(new_version) {
  nm_navmesh *m = NULL, *v1 = NULL, *v2 = NULL;
  nm_crowd *c;
  nm_crowd_agent_params p;
  nm_query *q = NULL;
  nm_filter f;
  void *data = NULL;
  size_t size = 0;
  int ids[6], i, k, in_hole = 0, bad_ref = 0, arrived = 0;
  CHECK(fz_fixture_mesh(&m) == NM_OK);
  CHECK(nm_navmesh_version_new(m, NULL, &v1) == NM_OK);
  nm_navmesh_release(m);
  c = new_crowd(v1, 8, NULL);
  nm_crowd_agent_params_init(&p, 0.4f);
  CHECK(nm_query_new(v1, 64, NULL, &q) == NM_OK);
  nm_filter_init(&f);
  for (i = 0; i < 6; i++) { /* (the ground rises: the targets are snapped to it first) */
    const float goal[3] = {21.0f, 0, 9.5f + (float)i}, ext[3] = {1, 8, 1};
    float on[3];
    nm_polyref ref = 0;
    ids[i] = add(c, 3.0f, 9.5f + (float)i, &p);
    CHECK(nm_query_find_nearest(q, goal, ext, &f, &ref, on, NULL) == NM_OK && ref);
    CHECK(nm_crowd_request_move_target(c, ids[i], on) == NM_OK);
  }
  nm_query_free(q);
  for (k = 0; k < 10; k++) nm_crowd_update(c, 0.05f);
  CHECK(nm_navmesh_version_edit(v1, &v2) == NM_OK);
  CHECK(nm_navmesh_remove_tile(v2, 1, 1, 0, &data, &size) == NM_OK);
  nm_free_bytes(v2, data, size);
  CHECK(nm_navmesh_version_commit(v2) == NM_OK);
  CHECK(nm_crowd_set_navmesh(c, NULL) == NM_ERR_PARAM);
  CHECK(nm_crowd_set_navmesh(c, v2) == NM_OK);
  nm_navmesh_release(v1); /* the draft retained it: v2 keeps it alive until freed */
  for (k = 0; k < 500; k++) {
    nm_crowd_update(c, 0.05f);
    for (i = 0; i < 6; i++) {
      nm_crowd_agent_info a;
      nm_crowd_get_agent(c, ids[i], &a);
      if (a.state != NM_AGENT_WALKING) continue;
      bad_ref += !nm_navmesh_is_valid_ref(v2, a.first_poly);
      in_hole += a.pos[0] > 8.5f && a.pos[0] < 15.5f && a.pos[2] > 8.5f && a.pos[2] < 15.5f;
      if (k == 499) arrived += dist2d(a.pos, 21.0f, 9.5f + (float)i) < 1.0f;
    }
  }
  printf("# new version (middle tile removed): %d/6 arrived round the hole, (agent, tick) in the hole %d\n",
         arrived, in_hole);
  CHECK(bad_ref == 0 && in_hole == 0 && arrived == 6);
  nm_crowd_free(c);
  nm_navmesh_release(v2);
}

/* Velocity requests move the agent that way; a reset stops it. */
TEST(velocity_and_reset) {
  nm_navmesh *m = rooms(0, 1, NULL);
  nm_crowd *c = new_crowd(m, 4, NULL);
  nm_crowd_agent_params p;
  nm_crowd_agent_info a;
  const float vel[3] = {2, 0, 0};
  int id, k;
  nm_crowd_agent_params_init(&p, 0.6f);
  id = add(c, 5, 5, &p);
  CHECK(nm_crowd_request_move_velocity(c, id, vel) == NM_OK);
  for (k = 0; k < 40; k++) nm_crowd_update(c, 0.05f);
  nm_crowd_get_agent(c, id, &a);
  CHECK(a.pos[0] > 7.5f && fabsf(a.pos[2] - 5) < 0.1f && a.target_state == NM_TARGET_VELOCITY);
  CHECK(nm_crowd_reset_move_target(c, id) == NM_OK);
  for (k = 0; k < 40; k++) nm_crowd_update(c, 0.05f);
  nm_crowd_get_agent(c, id, &a);
  CHECK(sqrtf(a.vel[0] * a.vel[0] + a.vel[2] * a.vel[2]) < 1e-3f && a.target_state == NM_TARGET_NONE);
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* ---- threads ---- */

#define THREAD_AGENTS 80
#define THREAD_TICKS 300

/* 80 agents (a quarter with ORCA) crossing the rooms both ways with
 * `threads` threads: every position and velocity after every tick into
 * out [THREAD_TICKS * THREAD_AGENTS * 6]. */
static void threads_run(int threads, float *out, int *velocity_samples, unsigned long *worker_steps) {
  nm_navmesh *m = rooms(1, 1, NULL);
  nm_crowd_config cfg;
  nm_crowd *c = NULL;
  nm_crowd_agent_params p;
  int i, k, n;
  nm_crowd_config_init(&cfg, THREAD_AGENTS, 0.5f);
  cfg.threads = threads;
  CHECK(nm_crowd_new(m, &cfg, NULL, NULL, &c) == NM_OK);
  nm_crowd_agent_params_init(&p, 0.45f);
  for (i = 0; i < THREAD_AGENTS; i++) {
    const int left = i % 2 == 0;
    const float z = 1.5f + (float)(i / 2 % 18), x = 2.0f + (float)(i / 36) * 1.2f;
    p.avoidance = i % 4 == 3 ? NM_AVOID_ORCA : NM_AVOID_SAMPLED;
    target(c, add(c, left ? x : 42.0f - x, z, &p), left ? 40.0f - x : x, 19.0f - z);
  }
  *velocity_samples = 0;
  for (k = 0; k < THREAD_TICKS; k++) {
    nm_crowd_stats st;
    CHECK(nm_crowd_update(c, 0.05f) == NM_OK);
    nm_crowd_get_stats(c, &st);
    *velocity_samples += st.velocity_samples;
    nm_crowd_positions(c, &out[k * THREAD_AGENTS * 6], &out[k * THREAD_AGENTS * 6 + THREAD_AGENTS * 3], NULL,
                       NULL, THREAD_AGENTS, &n);
    CHECK(n == THREAD_AGENTS);
  }
  *worker_steps = c->pool.worker_steps;
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* The same crowd with 1, 2, 3 and 4 threads: identical positions and
 * velocities after every tick, and the same work counted. */
TEST(threads) {
  const size_t n = (size_t)THREAD_TICKS * THREAD_AGENTS * 6;
  float *one = (float *)malloc(n * sizeof(float)), *more = (float *)malloc(n * sizeof(float));
  int threads, s1, s;
  unsigned long w;
  threads_run(1, one, &s1, &w);
  CHECK(w == 0);
  for (threads = 2; threads <= 4; threads++) {
    threads_run(threads, more, &s, &w);
    printf("# %d threads: %s positions and velocities over %d ticks of %d agents (velocity samples %d, 1 thread "
           "%d; %lu agent steps run by the workers)\n", threads,
           memcmp(one, more, n * sizeof(float)) ? "different" : "identical", THREAD_TICKS, THREAD_AGENTS, s, s1, w);
    CHECK(memcmp(one, more, n * sizeof(float)) == 0);
    CHECK(s == s1);
    CHECK(w > 0);
  }
  free(one);
  free(more);
}

/* ---- bad input ---- */

TEST(bad_input) {
  nm_navmesh *m = rooms(0, 1, NULL);
  nm_crowd *c = NULL;
  nm_crowd_config cfg;
  nm_crowd_agent_params p, bad;
  nm_avoidance_params ap;
  const float nan3[3] = {NAN, 0, 0}, off[3] = {100, 0, 100}, here[3] = {5, 0, 5};
  float pos[6];
  int id = 0, id2, n;
  nm_crowd_config_init(&cfg, 2, 0.6f);
  cfg.max_agents = 0;
  CHECK(nm_crowd_new(m, &cfg, NULL, NULL, &c) == NM_ERR_PARAM && !c);
  cfg.max_agents = 2;
  cfg.max_agent_radius = NAN;
  CHECK(nm_crowd_new(m, &cfg, NULL, NULL, &c) == NM_ERR_PARAM);
  cfg.max_agent_radius = 0.6f;
  CHECK(nm_crowd_new(m, &cfg, NULL, NULL, &c) == NM_OK);
  nm_crowd_agent_params_init(&p, 0.6f);
  CHECK(nm_crowd_add_agent(c, nan3, &p, &id) == NM_ERR_PARAM && id == -1);
  bad = p;
  bad.radius = -1;
  CHECK(nm_crowd_add_agent(c, here, &bad, &id) == NM_ERR_PARAM);
  bad = p;
  bad.max_speed = -3;
  CHECK(nm_crowd_add_agent(c, here, &bad, &id) == NM_ERR_PARAM);
  bad = p;
  bad.avoidance_type = 8;
  CHECK(nm_crowd_add_agent(c, here, &bad, &id) == NM_ERR_PARAM);
  CHECK(nm_crowd_add_agent(c, off, &p, &id) == NM_ERR_NO_POLY);
  CHECK(nm_crowd_agent_count(c) == 0);
  CHECK(nm_crowd_add_agent(c, here, &p, &id) == NM_OK);
  CHECK(nm_crowd_add_agent(c, here, &p, &id2) == NM_OK);
  CHECK(nm_crowd_add_agent(c, here, &p, &n) == NM_ERR_FULL); /* more than max_agents */
  CHECK(nm_crowd_request_move_target(c, id, off) == NM_ERR_NO_POLY);
  CHECK(nm_crowd_request_move_target(c, id, nan3) == NM_ERR_PARAM);
  CHECK(nm_crowd_request_move_target_ref(c, id, 12345, here) == NM_ERR_PARAM);
  CHECK(nm_crowd_request_move_velocity(c, id, nan3) == NM_ERR_PARAM);
  CHECK(nm_crowd_update(c, NAN) == NM_ERR_PARAM);
  CHECK(nm_crowd_update(c, -0.1f) == NM_ERR_PARAM);
  CHECK(nm_crowd_update(c, INFINITY) == NM_ERR_PARAM);
  CHECK(nm_crowd_remove_agent(c, id2) == NM_OK);
  CHECK(nm_crowd_remove_agent(c, id2) == NM_ERR_PARAM); /* removed */
  CHECK(nm_crowd_add_agent(c, here, &p, &n) == NM_OK);  /* takes the slot again */
  CHECK(n != id2 && nm_crowd_request_move_target(c, id2, here) == NM_ERR_PARAM);
  CHECK(nm_crowd_reset_move_target(c, 777) == NM_ERR_PARAM); /* unknown */
  CHECK(nm_crowd_reset_move_target(c, -1) == NM_ERR_PARAM);
  CHECK(nm_crowd_update_agent_params(c, id, &bad) == NM_ERR_PARAM);
  nm_avoidance_params_preset(&ap, 3);
  ap.horiz_time = 0;
  CHECK(nm_crowd_set_avoidance_params(c, 0, &ap) == NM_ERR_PARAM);
  nm_avoidance_params_preset(&ap, 3);
  CHECK(nm_crowd_set_avoidance_params(c, 8, &ap) == NM_ERR_PARAM);
  CHECK(nm_crowd_positions(c, pos, NULL, NULL, NULL, 1, &n) == NM_TRUNCATED && n == 1);
  CHECK(nm_crowd_positions(c, pos, NULL, NULL, NULL, 2, &n) == NM_OK && n == 2);
  nm_crowd_free(c);
  nm_navmesh_release(m);
}

/* ---- allocation failure ---- */

/* Makes a crowd on the strip, adds an agent far from its target and steps
 * until the whole path is in: every allocation on the way may fail.
 * *phase: 1 creation failed, 2 adding failed, 3 an update failed. */
static nm_status alloc_run(track *t, nm_navmesh *m, int threads, int *arrived, int *phase) {
  nm_alloc a = {track_fn, t};
  nm_crowd_config cfg;
  nm_crowd *c = NULL;
  nm_crowd_agent_params p;
  const float start[3] = {0.5f, 0, 1.5f}, goal[3] = {299.5f, 0, 1.5f};
  nm_status st, worst = NM_OK;
  int id, k;
  nm_crowd_config_init(&cfg, 4, 0.6f);
  cfg.threads = threads;
  *phase = 1;
  if ((st = nm_crowd_new(m, &cfg, &a, NULL, &c)) < 0) return st;
  *phase = 2;
  nm_crowd_agent_params_init(&p, 0.6f);
  p.max_speed = 12;
  p.max_acceleration = 30;
  if ((st = nm_crowd_add_agent(c, start, &p, &id)) < 0) {
    nm_crowd_free(c);
    return st;
  }
  nm_crowd_request_move_target(c, id, goal);
  *phase = 0;
  for (k = 0; k < 700; k++)
    if ((st = nm_crowd_update(c, 0.05f)) < 0) {
      worst = st;
      *phase = 3;
    }
  {
    nm_crowd_agent_info info;
    nm_crowd_get_agent(c, id, &info);
    *arrived = dist2d(info.pos, 299.5f, 1.5f) < 1.0f;
  }
  nm_crowd_free(c);
  return worst;
}

/* Every allocation of a run failing in turn, with `threads` threads (the
 * workers' contexts are allocated too, and the steps on workers allocate
 * through the locked allocator). */
static void alloc_failures(int threads) {
  nm_navmesh *m = strip(300, NULL);
  track t;
  long total, i;
  int arrived = 0, failures = 0, nomem = 0, phase, in_update = 0;
  memset(&t, 0, sizeof t);
  CHECK(alloc_run(&t, m, threads, &arrived, &phase) == NM_OK && arrived && t.live == 0);
  total = t.allocs;
  for (i = 1; i <= total; i++) {
    nm_status st;
    memset(&t, 0, sizeof t);
    t.fail_at = i;
    arrived = 0;
    st = alloc_run(&t, m, threads, &arrived, &phase);
    failures += t.failed > 0;
    nomem += st == NM_ERR_NOMEM;
    CHECK(t.live == 0 && t.bad_sizes == 0);
    CHECK(t.failed == 0 || st == NM_ERR_NOMEM);
    if (phase == 3) { /* the path was cut; the crowd went on and replanned */
      in_update++;
      CHECK(arrived);
    }
  }
  printf("# %d thread%s: %ld allocations in a run, each failed once: %d NM_ERR_NOMEM (%d in updates, the "
         "agent still arrives), nothing leaked\n", threads, threads > 1 ? "s" : "", total, nomem, in_update);
  CHECK(in_update > 0);
  CHECK(failures == total && nomem == total);
  nm_navmesh_release(m);
}

TEST(alloc_failure) {
  alloc_failures(1);
  alloc_failures(3);
}

int main(void) {
  RUN(merges);
  RUN(doorway);
  RUN(room_crossing);
  RUN(filter_per_agent);
  RUN(far_target);
  RUN(offmesh);
  RUN(tile_changes);
  RUN(new_version);
  RUN(velocity_and_reset);
  RUN(threads);
  RUN(bad_input);
  RUN(alloc_failure);
  return tap_done();
}
