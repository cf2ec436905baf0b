/* buildjob.c -- nm_navmesh_build on a worker thread (nm_build_job_*), so a
 * Lua handler (OpenResty, Skynet) never blocks on a build: start it, poll
 * it without blocking, cancel or free it at any point.
 *
 * The caller's allocator is called on the calling thread only: the inputs
 * are copied with it when the job starts (the worker reads the copies) and
 * freed with the job; the worker builds with the system allocator (tile
 * workers of a threaded build included), and a finished mesh is moved into
 * the caller's memory by the poll that hands it over (nm_navmesh_copy: the
 * same tiles, references and links, about a millisecond per 2 MB) -- or
 * handed over as it is when the caller's allocator is the system one. So a
 * Lua state's allocator, which is not thread-safe (LuaJIT's), never sees
 * two threads, and the mesh it gets is accounted to it. The progress
 * callback of the configuration, which may be a Lua function, is never
 * called: the job keeps its own counts (nm_build_job_progress).
 * nm_cache_build_job_start runs nm_cache_build the same way; that cache is
 * built in (and stays in) a thread-safe allocator's memory, since there is
 * no cheap way to move a cache. */
#include "nm_bake.h"
#include "../core/nm_thread.h"

struct nm_build_job {
  nm_job job;               /* first: the worker's view */
  nm_alloc alloc;           /* the caller's */
  int caller_is_system;     /* alloc is the system allocator: no copy at the end */
  /* inputs, copied */
  float *verts;
  int *tris;
  int nverts, ntris;
  nm_build_config cfg;
  nm_area_volume *volumes;
  float **volume_verts;     /* [nvolumes] convex outlines */
  nm_offmesh_link *offmesh;
  uint16_t *area_flags;
  /* progress (atomic) and the result, valid once the job is done */
  int tiles_done, tiles_total;
  nm_status st;
  nm_diag diag;
  nm_build_stats stats;
  nm_navmesh *mesh;         /* system memory, until handed over */
  int taken;
  /* a tile cache's build (nm_cache_build_job_start) */
  int is_cache, max_obstacles;
  nm_cache_rules rules;
  nm_alloc cache_alloc;     /* thread-safe: the cache lives in it */
  nm_cache *cache;          /* until handed over */
};

/* The configuration's progress hook inside the job: counts, never stops
 * (a cancel reaches the tiles through ctx->cancel). */
static int job_progress(void *ud, int done, int total) {
  nm_build_job *j = (nm_build_job *)ud;
  nm_atomic_set(&j->tiles_total, total);
  nm_atomic_set(&j->tiles_done, done);
  return 0;
}

/* The progress hook of a cache build: counts, and stops it (a non-zero
 * return) once the job is cancelled. */
static int cache_progress(void *ud, int done, int total) {
  nm_build_job *j = (nm_build_job *)ud;
  job_progress(ud, done, total);
  return nm_atomic_get(&j->job.cancel);
}

/* The worker's part of a cache build, in cache_alloc's memory. */
static void cache_run(nm_build_job *j) {
  nm_build_config cfg = j->cfg;
  cfg.progress = cache_progress;
  cfg.progress_ud = j;
  j->st = nm_cache_build(j->verts, j->nverts, j->tris, j->ntris, &cfg, j->max_obstacles, &j->rules, &j->cache_alloc,
                         &j->diag, &j->cache);
  if (nm_atomic_get(&j->job.cancel)) { /* stopped by the hook, or done after it */
    nm_cache_free(j->cache);
    j->cache = NULL;
    j->st = nm_diag_set(&j->diag, NM_ERR_CANCELLED, NULL, "build cancelled");
  }
}

/* The worker's part: the build, in system memory. */
static void job_run(nm_job *job) {
  nm_build_job *j = (nm_build_job *)(void *)job;
  nm_build_config cfg = j->cfg;
  if (j->is_cache) {
    cache_run(j);
    return;
  }
  cfg.progress = job_progress;
  cfg.progress_ud = j;
  j->st = nm_build_run(j->verts, j->nverts, j->tris, j->ntris, &cfg, NULL, &job->cancel, &j->diag, &j->mesh,
                       &j->stats);
  if (j->st >= 0 && nm_atomic_get(&job->cancel)) { /* cancelled after the last tile */
    nm_navmesh_release(j->mesh);
    j->mesh = NULL;
    j->st = nm_diag_set(&j->diag, NM_ERR_CANCELLED, NULL, "build cancelled");
  }
}

/* A copy of n bytes at p with the job's allocator (NULL when n is 0). */
static void *dup_bytes(nm_build_job *j, const void *p, size_t n, int *ok) {
  void *c;
  if (n == 0) return NULL;
  if (!(c = nm_malloc(&j->alloc, n))) {
    *ok = 0;
    return NULL;
  }
  memcpy(c, p, n);
  return c;
}

/* Copies the configuration's lists (volumes and their outlines, off-mesh
 * links, area flags): the caller's may go away while the job runs. */
static int copy_lists(nm_build_job *j, const nm_build_config *cfg) {
  int ok = 1, i, nv = cfg->nvolumes > 0 ? cfg->nvolumes : 0;
  j->volumes = (nm_area_volume *)dup_bytes(j, cfg->volumes, (size_t)nv * sizeof(nm_area_volume), &ok);
  if (ok && nv > 0 && !(j->volume_verts = (float **)nm_calloc(&j->alloc, (size_t)nv * sizeof(float *)))) ok = 0;
  for (i = 0; ok && i < nv; i++)
    if (j->volumes[i].kind == NM_VOLUME_CONVEX && j->volumes[i].nverts > 0) {
      j->volume_verts[i] = (float *)dup_bytes(j, cfg->volumes[i].verts, (size_t)j->volumes[i].nverts * 3 * sizeof(float), &ok);
      j->volumes[i].verts = j->volume_verts[i];
    }
  if (cfg->noffmesh > 0)
    j->offmesh = (nm_offmesh_link *)dup_bytes(j, cfg->offmesh, (size_t)cfg->noffmesh * sizeof(nm_offmesh_link), &ok);
  if (cfg->area_flags) j->area_flags = (uint16_t *)dup_bytes(j, cfg->area_flags, NM_MAX_AREAS * sizeof(uint16_t), &ok);
  j->cfg = *cfg;
  j->cfg.volumes = j->volumes;
  j->cfg.offmesh = j->offmesh;
  j->cfg.area_flags = j->area_flags;
  return ok;
}

/* Frees the job's copies and the job (the worker has stopped). */
static void job_free(nm_build_job *j) {
  const nm_alloc a = j->alloc;
  int i, nv = j->cfg.nvolumes > 0 ? j->cfg.nvolumes : 0;
  if (j->volume_verts)
    for (i = 0; i < nv; i++)
      if (j->volume_verts[i]) nm_free(&a, j->volume_verts[i], (size_t)j->volumes[i].nverts * 3 * sizeof(float));
  nm_free(&a, j->volume_verts, (size_t)nv * sizeof(float *));
  nm_free(&a, j->volumes, (size_t)nv * sizeof(nm_area_volume));
  nm_free(&a, j->offmesh, (size_t)(j->cfg.noffmesh > 0 ? j->cfg.noffmesh : 0) * sizeof(nm_offmesh_link));
  nm_free(&a, j->area_flags, j->area_flags ? NM_MAX_AREAS * sizeof(uint16_t) : 0);
  nm_free(&a, j->verts, (size_t)j->nverts * 3 * sizeof(float));
  nm_free(&a, j->tris, (size_t)j->ntris * 3 * sizeof(int));
  nm_navmesh_release(j->mesh);
  nm_cache_free(j->cache);
  nm_free(&a, j, sizeof *j);
}

/* A job with copies of the inputs (not started): what a build would refuse
 * before allocating is refused here. */
static nm_status job_new(const float *verts, int nverts, const int *tris, int ntris, const nm_build_config *cfg,
                         const nm_alloc *alloc, nm_diag *diag, nm_build_job **out) {
  nm_alloc a = nm_alloc_resolve(alloc);
  nm_build_ctx check;
  nm_build_job *j;
  int ok = 1;
  nm_status st;
  if ((st = nm_build_setup(&check, verts, nverts, tris, ntris, cfg, NULL, diag)) < 0) return st;
  if (!(j = (nm_build_job *)nm_calloc(&a, sizeof *j))) return NM_ERR_NOMEM;
  j->alloc = a;
  j->caller_is_system = !alloc || !alloc->fn;
  j->nverts = nverts;
  j->ntris = ntris;
  j->verts = (float *)dup_bytes(j, verts, (size_t)nverts * 3 * sizeof(float), &ok);
  j->tris = (int *)dup_bytes(j, tris, (size_t)ntris * 3 * sizeof(int), &ok);
  if (!ok || !copy_lists(j, cfg)) {
    job_free(j);
    return nm_diag_set(diag, NM_ERR_NOMEM, "memory", "out of memory");
  }
  j->job.run = job_run;
  *out = j;
  return NM_OK;
}

nm_status nm_build_job_start(const float *verts, int nverts, const int *tris, int ntris,
                             const nm_build_config *cfg, const nm_alloc *alloc, nm_diag *diag,
                             nm_build_job **out) {
  nm_status st;
  if (diag) { diag->field = NULL; diag->msg[0] = 0; }
  if (!out) return nm_diag_set(diag, NM_ERR_PARAM, "out", "missing output pointer");
  *out = NULL;
  if ((st = job_new(verts, nverts, tris, ntris, cfg, alloc, diag, out)) < 0) return st;
  nm_job_start(&(*out)->job);
  return NM_OK;
}

nm_status nm_cache_build_job_start(const float *verts, int nverts, const int *tris, int ntris,
                                   const nm_build_config *cfg, int max_obstacles, const nm_cache_rules *rules,
                                   const nm_alloc *alloc, const nm_alloc *cache_alloc, nm_diag *diag,
                                   nm_build_job **out) {
  nm_status st;
  if (diag) { diag->field = NULL; diag->msg[0] = 0; }
  if (!out) return nm_diag_set(diag, NM_ERR_PARAM, "out", "missing output pointer");
  *out = NULL;
  if (cfg && (cfg->tile_size < 1 || cfg->tile_size > 255))
    return nm_diag_set(diag, NM_ERR_PARAM, "tileSize", "tileSize must be 1..255 for a tile cache");
  if (max_obstacles < 1 || max_obstacles > 65536)
    return nm_diag_set(diag, NM_ERR_PARAM, "maxObstacles", "maxObstacles must be in 1..65536");
  if ((st = job_new(verts, nverts, tris, ntris, cfg, alloc, diag, out)) < 0) return st;
  (*out)->is_cache = 1;
  (*out)->max_obstacles = max_obstacles;
  if (rules) (*out)->rules = *rules;
  else nm_cache_rules_init(&(*out)->rules);
  (*out)->cache_alloc = nm_alloc_resolve(cache_alloc);
  nm_job_start(&(*out)->job);
  return NM_OK;
}

nm_status nm_cache_build_job_poll(nm_build_job *j, nm_cache **out, nm_diag *diag) {
  if (out) *out = NULL;
  if (!j || !out || !j->is_cache) return NM_ERR_PARAM;
  if (!nm_job_done(&j->job)) return NM_UNFINISHED;
  if (j->st < 0) {
    if (diag) *diag = j->diag;
    return j->st;
  }
  if (j->taken) return nm_diag_set(diag, NM_ERR_STATE, NULL, "the result was already taken");
  *out = j->cache;
  j->cache = NULL;
  j->taken = 1;
  return NM_OK;
}

nm_status nm_build_job_poll(nm_build_job *j, nm_navmesh **out, nm_diag *diag, nm_build_stats *stats) {
  nm_navmesh *m;
  if (out) *out = NULL;
  if (!j || !out || j->is_cache) return NM_ERR_PARAM;
  if (!nm_job_done(&j->job)) return NM_UNFINISHED;
  if (stats) *stats = j->stats;
  if (j->st < 0) {
    if (diag) *diag = j->diag;
    return j->st;
  }
  if (j->taken) return nm_diag_set(diag, NM_ERR_STATE, NULL, "the result was already taken");
  if (j->caller_is_system) {
    m = j->mesh;
  } else if (nm_navmesh_copy(j->mesh, &j->alloc, &m) < 0) {
    return nm_diag_set(diag, NM_ERR_NOMEM, "memory", "out of memory (the result is kept: poll again)");
  } else {
    nm_navmesh_release(j->mesh);
  }
  j->mesh = NULL;
  j->taken = 1;
  *out = m;
  return NM_OK;
}

void nm_build_job_progress(nm_build_job *j, int *done, int *total) {
  if (done) *done = j ? nm_atomic_get(&j->tiles_done) : 0;
  if (total) *total = j ? nm_atomic_get(&j->tiles_total) : 0;
}

void nm_build_job_cancel(nm_build_job *j) {
  if (j) nm_atomic_set(&j->job.cancel, 1);
}

void nm_build_job_free(nm_build_job *j) {
  if (!j) return;
  nm_job_stop(&j->job);
  job_free(j);
}
