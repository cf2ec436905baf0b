/* nm_crowd.h -- the crowd's parts: path corridor, local boundary, proximity
 * grid, path queue, obstacle avoidance (sampled and ORCA), agents.
 *
 * These follow DetourCrowd's algorithms and float operation order (the
 * agreement with dtCrowd is bit for bit on the shared scenarios), written in
 * our style: every buffer comes from the crowd's allocator, refs are always
 * validated through the mesh before use, and paths have no fixed limit
 * unless the configuration sets Detour's. See docs/crowd.md. */
#ifndef NM_CROWD_H
#define NM_CROWD_H

#include "../query/nm_query.h"
#include "../core/nm_thread.h"

#define NM_CORRIDOR_START_CAP 64  /* first corridor allocation without a limit */
#define NM_BOUNDARY_MAX_SEGS 8    /* wall segments kept per agent (Detour's) */
#define NM_BOUNDARY_MAX_POLYS 16  /* polygons searched for them (Detour's) */
#define NM_AVOID_MAX_CIRCLES 6    /* neighbours given to the avoidance (Detour's init) */
#define NM_AVOID_MAX_SEGS 8
#define NM_AVOID_MAX_DIVS 32      /* sampling pattern limits (Detour's) */
#define NM_AVOID_MAX_RINGS 4
#define NM_QUICK_SEARCH_ITERS 20  /* first search of a new request (Detour's) */
#define NM_QUICK_SEARCH_POLYS 32
#define NM_TOPO_ITERS 32          /* topology optimisation search */
#define NM_LOCAL_NODES 512        /* node pool of the crowd's own query (Detour's) */

/* ---- path corridor (corridor.c) ----
 * The polygons from the one the agent stands on (path[0]) to the one
 * holding its target, with both points. */
typedef struct nm_corridor {
  float pos[3], target[3];
  nm_polyref *path;
  int npath, cap;
  int limit;      /* most polygons it may hold (0: no limit) */
} nm_corridor;

/* Grows buf [*cap] to room for n refs (at most limit, 0: none), doubling;
 * 0 when memory ran out (buf keeps its size). */
NM_INTERNAL int nm_refs_reserve(const nm_alloc *a, nm_polyref **buf, int *cap, int n, int limit);
NM_INTERNAL nm_status nm_corridor_init(nm_corridor *c, const nm_alloc *a, int limit);
NM_INTERNAL void nm_corridor_free(nm_corridor *c, const nm_alloc *a);
/* Room for n polygons (within the limit); 0 when memory ran out (the
 * corridor keeps the room it had). */
NM_INTERNAL int nm_corridor_reserve(nm_corridor *c, const nm_alloc *a, int n);
NM_INTERNAL void nm_corridor_reset(nm_corridor *c, nm_polyref ref, const float *pos);
/* Replaces the path; cut to the room there is. 0 when it had to be cut
 * because memory ran out. */
NM_INTERNAL int nm_corridor_set(nm_corridor *c, const nm_alloc *a, const float *target,
                                const nm_polyref *path, int npath);
NM_INTERNAL int nm_corridor_find_corners(nm_corridor *c, nm_query *q, float *verts, uint8_t *flags,
                                         nm_polyref *polys, int max);
NM_INTERNAL void nm_corridor_optimize_vis(nm_corridor *c, const nm_alloc *a, const float *next,
                                          float range, nm_query *q, const nm_filter *f);
NM_INTERNAL int nm_corridor_optimize_topo(nm_corridor *c, const nm_alloc *a, nm_query *q,
                                          const nm_filter *f);
NM_INTERNAL int nm_corridor_move_position(nm_corridor *c, const nm_alloc *a, const float *npos,
                                          nm_query *q, const nm_filter *f);
NM_INTERNAL int nm_corridor_move_target(nm_corridor *c, const nm_alloc *a, const float *npos,
                                        nm_query *q, const nm_filter *f);
NM_INTERNAL void nm_corridor_fix_start(nm_corridor *c, nm_polyref safe, const float *pos);
NM_INTERNAL void nm_corridor_trim_invalid(nm_corridor *c, nm_polyref safe, const float *pos,
                                          nm_query *q, const nm_filter *f);
NM_INTERNAL int nm_corridor_is_valid(const nm_corridor *c, int lookahead, const nm_navmesh *m,
                                     const nm_filter *f);
NM_INTERNAL int nm_corridor_move_over_offmesh(nm_corridor *c, nm_polyref con, nm_polyref *refs,
                                              float *start, float *end, const nm_navmesh *m);
/* Detour's corridor merges (exported for the tests). */
NM_INTERNAL int nm_merge_start_moved(nm_polyref *path, int npath, int max,
                                     const nm_polyref *visited, int nvisited);
NM_INTERNAL int nm_merge_end_moved(nm_polyref *path, int npath, int max,
                                   const nm_polyref *visited, int nvisited);
NM_INTERNAL int nm_merge_start_shortcut(nm_polyref *path, int npath, int max,
                                        const nm_polyref *visited, int nvisited);
/* A ref that is valid and passes the filter (Detour's isValidPolyRef). */
NM_INTERNAL int nm_ref_passes(const nm_navmesh *m, nm_polyref ref, const nm_filter *f);

/* ---- local boundary (boundary.c): the nearest walls around an agent ---- */
typedef struct nm_boundary_seg {
  float d;        /* squared X/Z distance from the centre */
  float s[6];     /* (ax,ay,az,bx,by,bz) */
} nm_boundary_seg;

typedef struct nm_boundary {
  float center[3];
  nm_boundary_seg segs[NM_BOUNDARY_MAX_SEGS];
  int nsegs;
  nm_polyref polys[NM_BOUNDARY_MAX_POLYS];
  int npolys;
} nm_boundary;

NM_INTERNAL void nm_boundary_reset(nm_boundary *b);
NM_INTERNAL void nm_boundary_update(nm_boundary *b, nm_polyref ref, const float *pos, float range,
                                    nm_query *q, const nm_filter *f);
NM_INTERNAL int nm_boundary_is_valid(const nm_boundary *b, const nm_navmesh *m, const nm_filter *f);

/* ---- proximity grid (grid.c): agent boxes by cell, listing agents near a
 * point in Detour's order ---- */
typedef struct nm_grid_item {
  int x, y;
  uint32_t id;
} nm_grid_item;

typedef struct nm_grid {
  nm_grid_item *pool;       /* [pool_size] entries in the order added */
  uint64_t *keys;           /* [2 * pool_size] cell keys sorted (+ sort scratch) */
  uint32_t *ids;            /* [2 * pool_size] their ids (+ sort scratch) */
  uint32_t *seen;           /* [max_ids] stamp of the last query listing the id */
  int *rows;                /* [pool_size + 2] first sorted entry of each row */
  uint32_t stamp;
  int pool_size, count, max_ids, nrows;
  int xmin, xmax, ymin, ymax;
  uint64_t width;
  float cell_size, inv_cell_size;
} nm_grid;

/* A grid for ids 0 .. max_ids-1 with room for 4 cells per id. */
NM_INTERNAL nm_status nm_grid_init(nm_grid *g, const nm_alloc *a, int max_ids, float cell_size);
NM_INTERNAL void nm_grid_free(nm_grid *g, const nm_alloc *a);
NM_INTERNAL void nm_grid_clear(nm_grid *g);
NM_INTERNAL void nm_grid_add(nm_grid *g, uint32_t id, float minx, float miny, float maxx, float maxy);
/* Sorts the entries for queries (after the adds, before the queries). */
NM_INTERNAL void nm_grid_finish(nm_grid *g);
NM_INTERNAL int nm_grid_query(nm_grid *g, float minx, float miny, float maxx, float maxy,
                              uint32_t *ids, int max);
/* The same with the caller's marks (seen [max_ids], *stamp): queries on
 * several threads at once, each with its own marks, read the grid only. */
NM_INTERNAL int nm_grid_query_marks(const nm_grid *g, uint32_t *seen, uint32_t *stamp, float minx,
                                    float miny, float maxx, float maxy, uint32_t *ids, int max);

/* ---- path queue (pathq.c): long searches, sliced over updates ---- */
enum { NM_PQ_IDLE = 0, NM_PQ_RUNNING = 1, NM_PQ_DONE = 2, NM_PQ_FAILED = 3 };

/* What a path search is asked (the same request gives the same search). */
typedef struct nm_pq_request {
  nm_polyref start_ref, end_ref;
  float start[3], end[3];
  nm_filter filter;
} nm_pq_request;

typedef struct nm_pq_slot {
  uint32_t handle;          /* 0: free */
  nm_pq_request req;
  nm_polyref *path;
  int npath, cap;
  int status;               /* NM_PQ_* */
  int partial;
  int keep_alive;
  int replay;               /* answered from the cache (its iterations are spent) */
  int iters;                /* iterations done (live) or still to spend (replay) */
  uint32_t generation;      /* mesh generation of a replayed answer */
} nm_pq_slot;

#define NM_PQ_CACHE 16      /* finished searches remembered */

/* A finished search: its request, result and the iterations it took. */
typedef struct nm_pq_cached {
  int used;
  uint32_t generation;      /* mesh generation it was made in */
  nm_pq_request req;
  nm_polyref *path;
  int npath, cap, partial, iterations;
} nm_pq_cached;

typedef struct nm_pathq {
  nm_query *q;
  nm_pq_slot *slots;
  int nslots, head;
  uint32_t next_handle;
  int limit;                /* longest path kept (0: no limit) */
  int nomem;                /* a result was cut for want of memory */
  nm_pq_cached cache[NM_PQ_CACHE];
  int cache_next;           /* entry replaced next (round robin) */
} nm_pathq;

NM_INTERNAL nm_status nm_pathq_init(nm_pathq *pq, const nm_alloc *a, nm_navmesh *mesh, int nslots,
                                    int nodes, int limit);
NM_INTERNAL void nm_pathq_free(nm_pathq *pq, const nm_alloc *a);
NM_INTERNAL uint32_t nm_pathq_request(nm_pathq *pq, nm_polyref start_ref, nm_polyref end_ref,
                                      const float *start, const float *end, const nm_filter *f);
NM_INTERNAL int nm_pathq_update(nm_pathq *pq, const nm_alloc *a, int max_iters);
NM_INTERNAL int nm_pathq_status(const nm_pathq *pq, uint32_t handle);
NM_INTERNAL int nm_pathq_result(nm_pathq *pq, uint32_t handle, nm_polyref **path, int *npath,
                                int *partial);
NM_INTERNAL int nm_pathq_pending(const nm_pathq *pq);
/* Moves the queue onto another version of its mesh: searches in progress
 * and results not collected fail (their agents ask again), remembered
 * searches are forgotten. */
NM_INTERNAL void nm_pathq_set_mesh(nm_pathq *pq, nm_navmesh *mesh);

/* ---- obstacle avoidance (avoid.c: sampled; orca.c: ORCA) ---- */
typedef struct nm_obstacle_circle {
  float p[3], vel[3], dvel[3];
  float rad;
  float dp[3], np[3];       /* direction to it, and the side to pass it on */
} nm_obstacle_circle;

typedef struct nm_obstacle_seg {
  float p[3], q[3];
  int touch;                /* the agent is within 0.01 of it */
} nm_obstacle_seg;

typedef struct nm_avoid {
  nm_obstacle_circle circles[NM_AVOID_MAX_CIRCLES];
  nm_obstacle_seg segs[NM_AVOID_MAX_SEGS];
  int ncircles, nsegs;
  int trig_divs;            /* division count trig[] was made for (0: none) */
  float trig[4];            /* cos, sin of the pattern's step and half step */
} nm_avoid;

NM_INTERNAL void nm_avoid_reset(nm_avoid *av);
NM_INTERNAL void nm_avoid_add_circle(nm_avoid *av, const float *pos, float rad, const float *vel,
                                     const float *dvel);
NM_INTERNAL void nm_avoid_add_segment(nm_avoid *av, const float *p, const float *q);
/* Detour's sampleVelocityAdaptive: nvel gets the best sampled velocity;
 * returns the number of samples scored. */
NM_INTERNAL int nm_avoid_sample_adaptive(nm_avoid *av, const float *pos, float rad, float vmax,
                                         const float *vel, const float *dvel, float *nvel,
                                         const nm_avoidance_params *prm);
/* ORCA (van den Berg et al. 2011): nvel gets the velocity closest to dvel
 * outside every agent's and wall's velocity obstacle (or the least bad). */
NM_INTERNAL void nm_avoid_orca(const nm_avoid *av, const float *pos, float rad, float vmax,
                               const float *vel, const float *dvel, float *nvel,
                               const nm_avoidance_params *prm, float dt);

/* ---- agents and the crowd (crowd.c, update.c, steer.c) ---- */
typedef struct nm_crowd_nei {
  int idx;                  /* slot of the neighbour */
  float dist;               /* squared X/Z distance */
} nm_crowd_nei;

typedef struct nm_agent_anim {
  int active;
  float init_pos[3], start_pos[3], end_pos[3];
  nm_polyref poly;
  float t, tmax;
} nm_agent_anim;

typedef struct nm_agent {
  int active;
  uint16_t salt;
  uint8_t state, partial;
  nm_corridor corridor;
  nm_boundary boundary;
  float topo_time;
  nm_crowd_nei neis[NM_CROWD_MAX_NEIGHBOURS];
  int nneis;
  float desired_speed;
  float npos[3], disp[3], dvel[3], nvel[3], vel[3];
  nm_crowd_agent_params params;   /* params.filter points at `filter` */
  nm_filter filter;
  float corner_verts[3 * NM_CROWD_MAX_CORNERS];
  uint8_t corner_flags[NM_CROWD_MAX_CORNERS];
  nm_polyref corner_polys[NM_CROWD_MAX_CORNERS];
  int ncorners;
  uint8_t target_state, target_replan;
  nm_polyref target_ref;
  float target_pos[3];
  nm_polyref plan_ref;      /* where the corridor leads: the target, or the */
  float plan_pos[3];        /* nearest point of the agent's island to it */
  uint32_t plan_generation; /* mesh generation when plan was chosen */
  uint32_t target_pathq;
  float target_replan_time;
  nm_agent_anim anim;
} nm_agent;

/* What one thread needs to run the per-agent phases (workers.c): its own
 * query, avoidance scratch, grid marks, allocator and counters. Context 0
 * is the calling thread's (the crowd's own query and allocator). */
typedef struct nm_crowd_ctx {
  nm_query *q;
  nm_avoid avoid;
  uint32_t *seen;              /* grid marks [max_agents] (NULL: the grid's own) */
  uint32_t stamp;
  nm_alloc alloc;              /* the crowd's, or the locked one with workers */
  int samples;                 /* velocity samples scored in this update */
} nm_crowd_ctx;

struct nm_crowd;
/* One per-agent step of a phase (the agent's slot state is its own to write;
 * it reads other agents only where the phase does not write them). */
typedef void (*nm_crowd_step)(struct nm_crowd *c, nm_crowd_ctx *x, nm_agent *ag, float dt);

/* The worker threads of a crowd (config.threads - 1 of them). */
typedef struct nm_crowd_pool {
  int nworkers;
  nm_crowd_ctx *ctx;           /* [nworkers + 1]: 0 is the caller's */
#ifdef NM_HAVE_PTHREADS
  pthread_t *threads;          /* [nworkers] */
  pthread_mutex_t lock;
  pthread_cond_t start, done;
#endif
  nm_lock alloc_lock;          /* serialises the crowd's allocator */
  int started;                 /* nm_crowd_pool_start ran */
  int ready;                   /* lock and conditions made */
  unsigned gen;                /* bumped for each phase */
  int in_flight;               /* workers running blocks of the phase */
  unsigned long worker_steps;  /* agent steps the workers ran (for tests) */
  int quit;
  int count;                   /* agents of the phase (0 once it is closed) */
  int next;                    /* next block of active agents (atomic) */
  nm_crowd_step step;          /* the phase being run */
  float dt;
} nm_crowd_pool;

struct nm_crowd {
  nm_alloc alloc;
  nm_navmesh *mesh;
  nm_query *q;                 /* local searches (Detour's 512-node query) */
  nm_pathq pq;
  nm_grid grid;
  nm_agent *agents;            /* [max_agents] */
  int *active;                 /* slots of the active agents, ascending */
  int nactive;
  nm_crowd_config cfg;
  nm_avoidance_params avoid_params[NM_CROWD_MAX_AVOIDANCE_PARAMS];
  nm_polyref *merge;           /* scratch for joining a queued path to a corridor */
  int merge_cap;
  float ext[3];                /* placement box half extents */
  nm_crowd_stats stats;
  int nomem;                   /* memory ran out during this update */
  nm_crowd_ctx ctx0;           /* the calling thread's context */
  nm_crowd_pool pool;          /* workers (none with threads = 1) */
};

/* workers.c: starts config.threads - 1 workers with their contexts (fewer
 * when threads cannot be started: the results are the same); stops them. */
NM_INTERNAL nm_status nm_crowd_pool_start(nm_crowd *c, int threads);
NM_INTERNAL void nm_crowd_pool_stop(nm_crowd *c);
/* Runs step for every active agent, in blocks over the threads; returns
 * when all are done. */
NM_INTERNAL void nm_crowd_run(nm_crowd *c, nm_crowd_step step, float dt);
/* Velocity samples scored by all contexts in this update (and resets). */
NM_INTERNAL int nm_crowd_take_samples(nm_crowd *c);

/* crowd.c */
NM_INTERNAL nm_agent *nm_crowd_agent(const nm_crowd *c, int id);
NM_INTERNAL int nm_crowd_agent_id(const nm_crowd *c, const nm_agent *ag);
NM_INTERNAL void nm_crowd_replan(nm_agent *ag, nm_polyref ref, const float *pos);
/* Room for n refs in the merge scratch; 0 when memory ran out. */
NM_INTERNAL int nm_crowd_merge_reserve(nm_crowd *c, int n);

/* island.c: for a target on another island than the agent, the nearest
 * point of the agent's island (*ref, pos); 0 when the target is reachable
 * as far as islands tell, or no such point was found. */
NM_INTERNAL int nm_crowd_island_goal(nm_crowd *c, const nm_agent *ag, nm_polyref *ref, float *pos);

/* requests.c: the path-request phases of an update */
NM_INTERNAL void nm_crowd_check_paths(nm_crowd *c, float dt);
NM_INTERNAL void nm_crowd_move_requests(nm_crowd *c);
NM_INTERNAL void nm_crowd_optimize_topology(nm_crowd *c, float dt);

/* steer.c: the per-agent phases of an update (each over all agents,
 * through nm_crowd_run where they may run on several threads) */
NM_INTERNAL void nm_crowd_neighbours(nm_crowd *c);
NM_INTERNAL void nm_crowd_corners(nm_crowd *c);
NM_INTERNAL void nm_crowd_offmesh_trigger(nm_crowd *c);
NM_INTERNAL void nm_crowd_steer(nm_crowd *c);
NM_INTERNAL void nm_crowd_plan_velocities(nm_crowd *c, float dt);
NM_INTERNAL void nm_crowd_integrate(nm_crowd *c, float dt);
NM_INTERNAL void nm_crowd_collide(nm_crowd *c);
NM_INTERNAL void nm_crowd_move(nm_crowd *c);
NM_INTERNAL void nm_crowd_animate(nm_crowd *c, float dt);

#endif
