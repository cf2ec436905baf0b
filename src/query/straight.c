/* straight.c -- findStraightPath: string pulling through a polygon corridor
 * (the "simple stupid funnel" algorithm), with optional edge inset.
 *
 * Portals are the shared edges between consecutive corridor polygons. The
 * funnel keeps an apex and a left and right boundary; a portal end that
 * narrows the funnel moves that boundary, one that crosses the other boundary
 * turns the path at that boundary's point, which becomes the new apex.
 * Edge inset (seed 004): every portal is shrunk by `inset` at both ends before
 * it enters the funnel (portals narrower than 2*inset collapse to their
 * midpoint), so each corner lies on a portal at least min(inset, width/2)
 * away from the wall vertex it turns around, still on the navmesh, and each
 * segment still crosses every portal inside it, so it stays in the corridor. */
#include "nm_query.h"

/* Output buffer of the straight path. */
typedef struct spath {
  float *pts;
  uint8_t *flags;
  nm_polyref *refs;
  int cap, n;
} spath;

enum { SP_MORE = 0, SP_FULL = 1, SP_DONE = 2, SP_CUT = 3, SP_BAD = 4 };

/* Appends a point, or updates the last one when it is the same point.
 * SP_FULL when the buffer filled up, SP_DONE after the end point. */
static int sp_append(spath *sp, const float *pos, uint8_t flags, nm_polyref ref) {
  if (sp->n > 0 && nm_vequal(&sp->pts[(sp->n - 1) * 3], pos)) {
    if (sp->flags) sp->flags[sp->n - 1] = flags;
    if (sp->refs) sp->refs[sp->n - 1] = ref;
    return SP_MORE;
  }
  nm_vcopy(&sp->pts[sp->n * 3], pos);
  if (sp->flags) sp->flags[sp->n] = flags;
  if (sp->refs) sp->refs[sp->n] = ref;
  sp->n++;
  if (sp->n >= sp->cap) return SP_FULL;
  if (flags == NM_STRAIGHT_END) return SP_DONE;
  return SP_MORE;
}

/* Adds the points where segment (last point)->end crosses the portals
 * path[from..to] (all of them, or those between different areas). */
static int sp_crossings(nm_query *q, spath *sp, int from, int to, const float *end,
                        const nm_polyref *path, int crossings) {
  const float *start = &sp->pts[(sp->n - 1) * 3];
  int i, r;
  for (i = from; i < to; i++) {
    const nm_tile *ft, *tt;
    const nm_poly *fp, *tp;
    float left[3], right[3], s, t, pt[3];
    if (!nm_ref_get(q->mesh, path[i], &ft, &fp) || !nm_ref_get(q->mesh, path[i + 1], &tt, &tp))
      return SP_DONE;
    if (!nm_portal_points(q->mesh, path[i], ft, fp, path[i + 1], tt, tp, left, right)) break;
    if (crossings == NM_CROSSINGS_AREA && nm_poly_area(fp) == nm_poly_area(tp)) continue;
    if (nm_intersect_seg_seg2d(start, end, left, right, &s, &t)) {
      nm_vlerp(pt, left, right, t);
      if ((r = sp_append(sp, pt, 0, path[i + 1])) != SP_MORE) return r;
      start = &sp->pts[(sp->n - 1) * 3];
    }
  }
  return SP_MORE;
}

/* Status of a finished straight path. */
static nm_status sp_status(const spath *sp, nm_status extra) {
  return extra | (sp->n >= sp->cap ? NM_TRUNCATED : NM_OK);
}

/* ---- edge inset ---- */

#define NM_FAN_STEPS 64

/* Index of the vertex of polygon p at the position of v (X/Z/Y within
 * 1e-3 wu), or -1. */
static int find_vertex(const nm_tile *t, const nm_poly *p, const float *v) {
  int j;
  for (j = 0; j < p->vert_count; j++)
    if (nm_vdist_sqr(&t->verts[p->verts[j] * 3], v) < 1e-6f) return j;
  return -1;
}

/* 1 when vertex k of polygon p touches a wall. Walks around the vertex from
 * polygon to polygon, always crossing the edge that starts at the vertex; a
 * full turn back to p means the vertex is inside the navmesh, an edge with no
 * neighbour (or a tile-border edge not linked from the vertex on) is a wall. */
static int vertex_on_wall(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, int k) {
  const nm_poly *const p0 = p;
  const float *v = &t->verts[p->verts[k] * 3];
  int step;
  for (step = 0; step < NM_FAN_STEPS; step++) {
    const uint16_t nei = p->neis[k];
    if (nei == 0) return 1;
    if (!(nei & NM_EXT_LINK)) {
      const nm_poly *n = &t->polys[nei - 1];
      int j;
      for (j = 0; j < n->vert_count && n->verts[j] != p->verts[k]; j++) {}
      if (j == n->vert_count) return 1;
      p = n;
      k = j;
    } else {
      const nm_link *l = NULL;
      const nm_tile *nt;
      const nm_poly *np;
      uint32_t i;
      for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next)
        if (t->links[i].edge == k && t->links[i].side != 0xff && t->links[i].bmin == 0) { l = &t->links[i]; break; }
      if (!l) return 1;
      nm_ref_unsafe(m, l->ref, &nt, &np);
      if ((k = find_vertex(nt, np, v)) < 0) return 1;
      t = nt;
      p = np;
    }
    if (p == p0) return 0;
  }
  return 1;
}

/* The link of fp leading to polygon `to` (the one portals use), or NULL. */
static const nm_link *portal_link(const nm_tile *ft, const nm_poly *fp, nm_polyref to) {
  uint32_t i;
  for (i = fp->first_link; i != NM_NULL_LINK; i = ft->links[i].next)
    if (ft->links[i].ref == to) return &ft->links[i];
  return NULL;
}

/* Moves the wall ends of portal path[i] -> path[i+1] inward: by d when both
 * ends are walls (a portal narrower than 2d becomes its midpoint), by
 * min(d, width) when only one end is (the other end is open navmesh). */
static void inset_portal(nm_query *q, const nm_polyref *path, int i, float *left, float *right, float d) {
  const nm_tile *ft;
  const nm_poly *fp;
  const nm_link *l;
  const float w = nm_vdist2d(left, right);
  int lw = 1, rw = 1;
  float l0[3], r0[3];
  if (!(w > 0)) return;
  nm_ref_unsafe(q->mesh, path[i], &ft, &fp);
  if ((l = portal_link(ft, fp, path[i + 1])) != NULL && l->edge < fp->vert_count) {
    const int partial = l->side != 0xff && (l->bmin != 0 || l->bmax != 255);
    if (!partial || l->bmin == 0) lw = vertex_on_wall(q->mesh, ft, fp, l->edge);
    if (!partial || l->bmax == 255) rw = vertex_on_wall(q->mesh, ft, fp, (l->edge + 1) % fp->vert_count);
  }
  nm_vcopy(l0, left);
  nm_vcopy(r0, right);
  if (lw && rw) {
    if (w <= 2 * d) {
      nm_vlerp(left, l0, r0, 0.5f);
      nm_vcopy(right, left);
    } else {
      nm_vlerp(left, l0, r0, d / w);
      nm_vlerp(right, r0, l0, d / w);
    }
  } else if (lw) {
    nm_vlerp(left, l0, r0, nm_minf(d, w) / w);
  } else if (rw) {
    nm_vlerp(right, r0, l0, nm_minf(d, w) / w);
  }
}

/* Funnel state: apex, both boundaries, and what each boundary point is. */
typedef struct funnel {
  float apex[3], left[3], right[3];
  int apex_i, left_i, right_i;
  nm_polyref left_ref, right_ref;
  int left_type, right_type;
} funnel;

/* Turns the path at one boundary point (side: 0 left, 1 right): appends it
 * and restarts the funnel from there. Returns SP_* and the restart index. */
static int funnel_turn(nm_query *q, funnel *fn, spath *sp, const nm_polyref *path, int side,
                       int crossings, int *restart) {
  const float *pt = side ? fn->right : fn->left;
  const nm_polyref ref = side ? fn->right_ref : fn->left_ref;
  const int type = side ? fn->right_type : fn->left_type, idx = side ? fn->right_i : fn->left_i;
  uint8_t flags = 0;
  int r;
  if (crossings && (r = sp_crossings(q, sp, fn->apex_i, idx, pt, path, crossings)) != SP_MORE) return r;
  nm_vcopy(fn->apex, pt);
  fn->apex_i = idx;
  if (!ref) flags = NM_STRAIGHT_END;
  else if (type == NM_POLYTYPE_OFFMESH) flags = NM_STRAIGHT_OFFMESH;
  if ((r = sp_append(sp, fn->apex, flags, ref)) != SP_MORE) return r;
  nm_vcopy(fn->left, fn->apex);
  nm_vcopy(fn->right, fn->apex);
  fn->left_i = fn->right_i = fn->apex_i;
  *restart = fn->apex_i;
  return SP_MORE;
}

/* Decoded corridor polygons: portal i needs path[i] and path[i+1], and the
 * next portal needs path[i+1] again, so the last one decoded is kept. */
typedef struct corridor {
  const nm_tile *t;
  const nm_poly *p;
  int i; /* index of the polygon in t/p, -1 for none */
} corridor;

/* Portal i of the corridor (to path[i+1]); 0 when path[i+1] is unusable. */
static int corridor_portal(nm_query *q, corridor *c, const nm_polyref *path, int i, float *left,
                           float *right, int *to_type) {
  const nm_tile *ft, *tt;
  const nm_poly *fp, *tp;
  if (c->i == i) {
    ft = c->t;
    fp = c->p;
  } else if (!nm_ref_get(q->mesh, path[i], &ft, &fp)) {
    return 0;
  }
  if (!nm_ref_get(q->mesh, path[i + 1], &tt, &tp)) return 0;
  c->t = tt;
  c->p = tp;
  c->i = i + 1;
  if (!nm_portal_points(q->mesh, path[i], ft, fp, path[i + 1], tt, tp, left, right)) return 0;
  *to_type = nm_poly_type(tp);
  return 1;
}

/* The corridor breaks after path[i]: end on the boundary of path[i] closest
 * to the requested end (raw_end). SP_CUT, or SP_BAD when path[i] is invalid. */
static int funnel_cut(nm_query *q, spath *sp, const funnel *fn, const float *raw_end,
                      const nm_polyref *path, int i, int crossings) {
  float cend[3];
  if (nm_query_closest_point_boundary(q, path[i], raw_end, cend) < 0) return SP_BAD;
  if (crossings) sp_crossings(q, sp, fn->apex_i, i, cend, path, crossings);
  if (sp->n < sp->cap) sp_append(sp, cend, 0, path[i]);
  return SP_CUT;
}

/* Runs the funnel over the corridor from start to end (both already on the
 * corridor's end polygons). Returns SP_*. */
static int funnel_run(nm_query *q, spath *sp, const float *start, const float *end,
                      const float *raw_end, const nm_polyref *path, int npath,
                      const nm_straight_opts *o) {
  funnel fn;
  corridor c = {NULL, NULL, -1};
  int i, r;
  memset(&fn, 0, sizeof fn);
  nm_vcopy(fn.apex, start);
  nm_vcopy(fn.left, start);
  nm_vcopy(fn.right, start);
  fn.left_ref = fn.right_ref = path[0];
  for (i = 0; i < npath; i++) {
    float left[3], right[3], tt;
    int to_type = NM_POLYTYPE_GROUND;
    if (i + 1 < npath) {
      if (!corridor_portal(q, &c, path, i, left, right, &to_type))
        return funnel_cut(q, sp, &fn, raw_end, path, i, o->crossings);
      if (o->inset > 0 && !nm_vequal(left, right)) inset_portal(q, path, i, left, right, o->inset);
      if (i == 0 && nm_dist_pt_seg_sqr2d(fn.apex, left, right, &tt) < nm_sqr(0.001f)) continue;
    } else {
      nm_vcopy(left, end);
      nm_vcopy(right, end);
    }
    if (nm_tri_area2d(fn.apex, fn.right, right) <= 0.0f) { /* right end narrows */
      if (nm_vequal(fn.apex, fn.right) || nm_tri_area2d(fn.apex, fn.left, right) > 0.0f) {
        nm_vcopy(fn.right, right);
        fn.right_ref = i + 1 < npath ? path[i + 1] : 0;
        fn.right_type = to_type;
        fn.right_i = i;
      } else {
        if ((r = funnel_turn(q, &fn, sp, path, 0, o->crossings, &i)) != SP_MORE) return r;
        continue;
      }
    }
    if (nm_tri_area2d(fn.apex, fn.left, left) >= 0.0f) { /* left end narrows */
      if (nm_vequal(fn.apex, fn.left) || nm_tri_area2d(fn.apex, fn.right, left) < 0.0f) {
        nm_vcopy(fn.left, left);
        fn.left_ref = i + 1 < npath ? path[i + 1] : 0;
        fn.left_type = to_type;
        fn.left_i = i;
      } else {
        if ((r = funnel_turn(q, &fn, sp, path, 1, o->crossings, &i)) != SP_MORE) return r;
        continue;
      }
    }
  }
  if (o->crossings) return sp_crossings(q, sp, fn.apex_i, npath - 1, end, path, o->crossings);
  return SP_MORE;
}

nm_status nm_query_straight_path(nm_query *q, const float start[3], const float end[3],
                                 const nm_polyref *path, int npath, const nm_straight_opts *opts,
                                 float *pts, uint8_t *flags, nm_polyref *refs, int cap, int *count) {
  static const nm_straight_opts defaults = {NM_CROSSINGS_NONE, 0.0f};
  const nm_straight_opts *o = opts ? opts : &defaults;
  float cstart[3], cend[3];
  spath sp;
  int r;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!start || !end || !nm_isfinite3(start) || !nm_isfinite3(end) || !path || npath <= 0 ||
      !pts || cap <= 0 || !(o->inset >= 0) || !isfinite(o->inset) || o->crossings < 0 ||
      o->crossings > NM_CROSSINGS_ALL)
    return NM_ERR_PARAM;
  if (nm_query_closest_point_boundary(q, path[0], start, cstart) < 0 ||
      nm_query_closest_point_boundary(q, path[npath - 1], end, cend) < 0)
    return NM_ERR_PARAM;
  sp.pts = pts; sp.flags = flags; sp.refs = refs; sp.cap = cap; sp.n = 0;
  r = sp_append(&sp, cstart, NM_STRAIGHT_START, path[0]);
  if (r == SP_MORE && npath > 1) r = funnel_run(q, &sp, cstart, cend, end, path, npath, o);
  if (r == SP_BAD) return NM_ERR_PARAM;
  *count = sp.n;
  if (r == SP_CUT) return sp_status(&sp, NM_PARTIAL);
  if (r == SP_MORE) sp_append(&sp, cend, NM_STRAIGHT_END, 0);
  *count = sp.n;
  return sp_status(&sp, NM_OK);
}
