/* corridor.c -- the path corridor of an agent (Detour's dtPathCorridor).
 *
 * A corridor is the list of polygons from the one the agent stands on to
 * the one holding its target. Moving the agent walks the surface from
 * path[0] (moveAlongSurface) and merges the polygons walked into the front
 * of the list; corners to steer to come from the straight path through the
 * list, cut at a few corners. Two optimisations shorten the list: a ray
 * towards a corner further on (visibility) and a short search from the
 * start (topology). The merges, clamps and float order are Detour's, so a
 * crowd built on this moves as dtCrowd does. Unlike Detour's fixed
 * 256-polygon buffer, the list grows as needed unless a limit is set. */
#include "nm_crowd.h"

nm_status nm_corridor_init(nm_corridor *c, const nm_alloc *a, int limit) {
  const int cap = limit > 0 && limit <= 256 ? limit : NM_CORRIDOR_START_CAP;
  memset(c, 0, sizeof *c);
  c->limit = limit;
  c->path = (nm_polyref *)nm_malloc(a, (size_t)cap * sizeof(nm_polyref));
  if (!c->path) return NM_ERR_NOMEM;
  c->cap = cap;
  return NM_OK;
}

void nm_corridor_free(nm_corridor *c, const nm_alloc *a) {
  nm_free(a, c->path, (size_t)c->cap * sizeof(nm_polyref));
  c->path = NULL;
  c->cap = c->npath = 0;
}

int nm_refs_reserve(const nm_alloc *a, nm_polyref **buf, int *cap, int n, int limit) {
  int want = *cap > 0 ? *cap : 16;
  nm_polyref *p;
  if (limit > 0 && n > limit) n = limit;
  if (n <= *cap) return 1;
  while (want < n) want = want < (1 << 29) ? want * 2 : n;
  if (limit > 0 && want > limit) want = limit;
  p = (nm_polyref *)nm_realloc(a, *buf, (size_t)*cap * sizeof(nm_polyref),
                               (size_t)want * sizeof(nm_polyref));
  if (!p) return 0;
  *buf = p;
  *cap = want;
  return 1;
}

int nm_corridor_reserve(nm_corridor *c, const nm_alloc *a, int n) {
  return nm_refs_reserve(a, &c->path, &c->cap, n, c->limit);
}

void nm_corridor_reset(nm_corridor *c, nm_polyref ref, const float *pos) {
  nm_vcopy(c->pos, pos);
  nm_vcopy(c->target, pos);
  c->path[0] = ref;
  c->npath = 1;
}

int nm_corridor_set(nm_corridor *c, const nm_alloc *a, const float *target,
                    const nm_polyref *path, int npath) {
  const int ok = nm_corridor_reserve(c, a, npath);
  nm_vcopy(c->target, target);
  if (npath > c->cap) npath = c->cap;
  memmove(c->path, path, (size_t)npath * sizeof(nm_polyref));
  c->npath = npath;
  return ok;
}

int nm_ref_passes(const nm_navmesh *m, nm_polyref ref, const nm_filter *f) {
  const nm_tile *t;
  const nm_poly *p;
  return nm_ref_get(m, ref, &t, &p) && nm_filter_pass(f, p);
}

/* ---- merges (Detour's dtMergeCorridor*) ---- */

/* The last path polygon (from the end) that was visited, and the first
 * visit of it: *fp, *fv; 0 when they share none. */
static int furthest_common(const nm_polyref *path, int npath, const nm_polyref *visited,
                           int nvisited, int *fp, int *fv) {
  int i, j;
  for (i = npath - 1; i >= 0; --i)
    for (j = 0; j < nvisited; ++j)
      if (path[i] == visited[j]) {
        *fp = i;
        *fv = j;
        return 1;
      }
  return 0;
}

/* The agent walked `visited` from path[0]: they replace the path up to the
 * last polygon both share (walked back polygons come first, reversed). */
int nm_merge_start_moved(nm_polyref *path, int npath, int max, const nm_polyref *visited,
                         int nvisited) {
  int fp, fv, req, orig, size, i;
  if (!furthest_common(path, npath, visited, nvisited, &fp, &fv)) return npath;
  req = nvisited - fv;
  orig = nm_mini(fp + 1, npath);
  size = nm_maxi(0, npath - orig);
  if (req > max) req = max;
  if (req + size > max) size = max - req;
  if (size) memmove(path + req, path + orig, (size_t)size * sizeof(nm_polyref));
  for (i = 0; i < req; ++i) path[i] = visited[(nvisited - 1) - i];
  return req + size;
}

/* The target walked `visited` from the last polygon: appended after the
 * first path polygon both share. */
int nm_merge_end_moved(nm_polyref *path, int npath, int max, const nm_polyref *visited,
                       int nvisited) {
  int fp = -1, fv = -1, i, j, ppos, vpos, count;
  for (i = 0; i < npath && fp < 0; ++i)
    for (j = 0; j < nvisited; ++j)
      if (path[i] == visited[j]) {
        fp = i;
        fv = j;
        break;
      }
  if (fp < 0) return npath;
  ppos = fp + 1;
  vpos = fv + 1;
  count = nm_mini(nvisited - vpos, max - ppos);
  if (count > 0) memcpy(path + ppos, visited + vpos, (size_t)count * sizeof(nm_polyref));
  return ppos + nm_maxi(count, 0);
}

/* A shortcut (ray or search) from path[0] reached `visited`: it replaces
 * the path up to the last polygon both share. */
int nm_merge_start_shortcut(nm_polyref *path, int npath, int max, const nm_polyref *visited,
                            int nvisited) {
  int fp, fv, req, size, i;
  if (!furthest_common(path, npath, visited, nvisited, &fp, &fv)) return npath;
  req = fv;
  if (req <= 0) return npath;
  if (req > max) req = max;
  size = nm_maxi(0, npath - fp);
  if (req + size > max) size = max - req;
  if (size) memmove(path + req, path + fp, (size_t)size * sizeof(nm_polyref));
  for (i = 0; i < req; ++i) path[i] = visited[i];
  return req + size;
}

/* ---- steering corners and shortcuts ---- */

int nm_corridor_find_corners(nm_corridor *c, nm_query *q, float *verts, uint8_t *flags,
                             nm_polyref *polys, int max) {
  const float min_dist = 0.01f;
  int n = 0, i;
  nm_query_straight_path(q, c->pos, c->target, c->path, c->npath, NULL, verts, flags, polys, max,
                         &n);
  /* drop corners the agent already stands on */
  while (n && !(flags[0] & NM_STRAIGHT_OFFMESH) &&
         !(nm_vdist2d_sqr(verts, c->pos) > nm_sqr(min_dist))) {
    if (--n) {
      memmove(flags, flags + 1, (size_t)n);
      memmove(polys, polys + 1, (size_t)n * sizeof(nm_polyref));
      memmove(verts, verts + 3, (size_t)n * 3 * sizeof(float));
    }
  }
  /* nothing past an off-mesh connection */
  for (i = 0; i < n; ++i)
    if (flags[i] & NM_STRAIGHT_OFFMESH) return i + 1;
  return n;
}

/* Casts a ray from the agent towards `next` (stretched to `range`, a bit
 * past next) and, when it gets at least 99% of the way, takes the polygons
 * it crossed as the start of the corridor. */
void nm_corridor_optimize_vis(nm_corridor *c, const nm_alloc *a, const float *next, float range,
                              nm_query *q, const nm_filter *f) {
  nm_polyref res[32];
  float goal[3], delta[3], t, norm[3];
  float dist = nm_vdist2d(c->pos, next);
  int nres = 0;
  if (dist < 0.01f) return;
  dist = nm_minf(dist + 0.01f, range);
  nm_vsub(delta, next, c->pos);
  nm_vmad(goal, c->pos, delta, range / dist);
  if (nm_query_raycast(q, c->path[0], c->pos, goal, f, &t, norm, res, 32, &nres) < 0) return;
  if (nres > 1 && t > 0.99f) {
    nm_corridor_reserve(c, a, c->npath + nres);
    c->npath = nm_merge_start_shortcut(c->path, c->npath, c->cap, res, nres);
  }
}

/* A short search (32 iterations) from the agent to the corridor's end:
 * where it reaches a corridor polygon, its path replaces the start. */
int nm_corridor_optimize_topo(nm_corridor *c, const nm_alloc *a, nm_query *q, const nm_filter *f) {
  nm_polyref res[NM_QUICK_SEARCH_POLYS];
  int nres = 0;
  nm_status st;
  if (c->npath < 3) return 0;
  if (nm_sliced_begin(q, c->path[0], c->path[c->npath - 1], c->pos, c->target, f, 1) < 0)
    return 0;
  nm_query_find_path_step(q, NM_TOPO_ITERS, NULL);
  st = nm_query_find_path_end_partial(q, c->path, c->npath, res, NM_QUICK_SEARCH_POLYS, &nres);
  if (st < 0 || nres <= 0) return 0;
  nm_corridor_reserve(c, a, c->npath + nres);
  c->npath = nm_merge_start_shortcut(c->path, c->npath, c->cap, res, nres);
  return 1;
}

/* ---- moves ---- */

int nm_corridor_move_position(nm_corridor *c, const nm_alloc *a, const float *npos, nm_query *q,
                              const nm_filter *f) {
  nm_polyref visited[16];
  float result[3], h;
  int nvisited = 0;
  if (nm_query_move_along_surface(q, c->path[0], c->pos, npos, f, result, visited, 16,
                                  &nvisited) < 0)
    return 0;
  nm_corridor_reserve(c, a, c->npath + nvisited);
  c->npath = nm_merge_start_moved(c->path, c->npath, c->cap, visited, nvisited);
  h = c->pos[1]; /* keep the height when the point is not over the polygon */
  nm_query_poly_height(q, c->path[0], result, &h);
  result[1] = h;
  nm_vcopy(c->pos, result);
  return 1;
}

int nm_corridor_move_target(nm_corridor *c, const nm_alloc *a, const float *npos, nm_query *q,
                            const nm_filter *f) {
  nm_polyref visited[16];
  float result[3];
  int nvisited = 0;
  if (nm_query_move_along_surface(q, c->path[c->npath - 1], c->target, npos, f, result, visited,
                                  16, &nvisited) < 0)
    return 0;
  nm_corridor_reserve(c, a, c->npath + nvisited);
  c->npath = nm_merge_end_moved(c->path, c->npath, c->cap, visited, nvisited);
  nm_vcopy(c->target, result);
  return 1;
}

/* ---- repairs after the mesh changed ---- */

/* The agent was put back on polygon safe: it becomes the start, followed by
 * a gap (ref 0) that makes the corridor invalid, so that it is replanned
 * while its far end is kept for the new search (Detour's fixPathStart). */
void nm_corridor_fix_start(nm_corridor *c, nm_polyref safe, const float *pos) {
  nm_vcopy(c->pos, pos);
  if (c->npath < 3 && c->npath > 0) {
    c->path[2] = c->path[c->npath - 1];
    c->path[0] = safe;
    c->path[1] = 0;
    c->npath = 3;
  } else {
    c->path[0] = safe;
    c->path[1] = 0;
  }
}

/* Keeps the corridor up to its first invalid polygon (all of it bad: the
 * safe polygon alone) and clamps the target into the last one kept. */
void nm_corridor_trim_invalid(nm_corridor *c, nm_polyref safe, const float *pos, nm_query *q,
                              const nm_filter *f) {
  float tgt[3];
  int n = 0;
  while (n < c->npath && nm_ref_passes(q->mesh, c->path[n], f)) n++;
  if (n == c->npath) return;
  if (n == 0) {
    nm_vcopy(c->pos, pos);
    c->path[0] = safe;
    c->npath = 1;
  } else {
    c->npath = n;
  }
  nm_vcopy(tgt, c->target);
  nm_query_closest_point_boundary(q, c->path[c->npath - 1], tgt, c->target);
}

int nm_corridor_is_valid(const nm_corridor *c, int lookahead, const nm_navmesh *m,
                         const nm_filter *f) {
  const int n = nm_mini(c->npath, lookahead);
  int i;
  for (i = 0; i < n; ++i)
    if (!nm_ref_passes(m, c->path[i], f)) return 0;
  return 1;
}

/* End points of off-mesh connection con entered from polygon prev: start
 * is the end linked to prev (Detour's getOffMeshConnectionPolyEndPoints). */
static int offmesh_ends(const nm_navmesh *m, nm_polyref prev, nm_polyref con, float *start,
                        float *end) {
  const nm_tile *t;
  const nm_poly *p;
  uint32_t i;
  int i0 = 0, i1 = 1;
  if (!nm_ref_get(m, con, &t, &p) || nm_poly_type(p) != NM_POLYTYPE_OFFMESH) return 0;
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next)
    if (t->links[i].edge == 0) {
      if (t->links[i].ref != prev) {
        i0 = 1;
        i1 = 0;
      }
      break;
    }
  nm_vcopy(start, &t->verts[p->verts[i0] * 3]);
  nm_vcopy(end, &t->verts[p->verts[i1] * 3]);
  return 1;
}

/* Advances the corridor over off-mesh connection con: the polygons up to
 * and including it are dropped; refs gets (polygon before, connection);
 * start/end its end points, and the agent's position becomes end. */
int nm_corridor_move_over_offmesh(nm_corridor *c, nm_polyref con, nm_polyref *refs, float *start,
                                  float *end, const nm_navmesh *m) {
  nm_polyref prev = 0, cur = c->path[0];
  int npos = 0, i;
  while (npos < c->npath && cur != con) {
    prev = cur;
    cur = c->path[npos];
    npos++;
  }
  if (npos == c->npath) return 0;
  for (i = npos; i < c->npath; ++i) c->path[i - npos] = c->path[i];
  c->npath -= npos;
  refs[0] = prev;
  refs[1] = cur;
  if (!offmesh_ends(m, refs[0], refs[1], start, end)) return 0;
  nm_vcopy(c->pos, end);
  return 1;
}
