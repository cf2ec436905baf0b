/* optimal_path.c -- the shortest path itself (nm_query_path_optimal): the
 * points where the path of the optimal search (optimal.c) turns, read from
 * the roots along the goal node's ancestors, with heights from the mesh
 * surface; the funnel (straight.c) over the search's corridor where that
 * does not apply (partial paths, off-mesh connections, A* fallback). */
#include "nm_optimal.h"


/* Where turns() writes: points met so far (k), the slot of the last one
 * (w, -1: not written) and its position, and where its polygon comes from
 * (worked out once the point is left behind: src, how, see point_ref). */
typedef struct turn_out {
  nm_opt_ctx *c;
  float *pts;
  nm_polyref *refs;
  int cap, k, w;
  const double *last;
  const nm_opt_node *src;
  int how;
  nm_polyref start_ref;
} turn_out;

/* A mesh polygon on whose boundary an end of node n's interval lies: the
 * one n leads into (how 1) or the one whose edge holds the interval (0);
 * how 2: n's `from` (an off-mesh connection), 3: the start's polygon,
 * 4: the goal's. The portal record holding the
 * interval names the mesh polygons. */
static nm_polyref point_ref(const turn_out *o, const nm_opt_node *n, int how) {
  if (how >= 2) return how == 2 ? n->from : (how == 3 ? o->start_ref : o->c->goal_ref);
  return nm_opt_portal_mesh(o->c, n, how);
}

nm_polyref nm_opt_portal_mesh(nm_opt_ctx *c, const nm_opt_node *n, int into) {
  const nm_opt_pinfo *pi;
  const nm_opt_portal *pr;
  const uint32_t k = n->flags >> NM_OPT_PSHIFT;
  pr = nm_opt_portals(c, n->from, &pi);
  if (k >= pi->count) return n->poly; /* (cannot happen: records are remade alike) */
  return into ? pr[k].mnei : pr[k].own;
}

/* Writes the polygon of the last point met. */
static void turn_flush(turn_out *o) {
  if (o->w >= 0) o->refs[o->w] = point_ref(o, o->src, o->how);
}

/* Meets point p, whose polygon point_ref(src, how) tells: written unless
 * it repeats the last one; a repeat gives the last point its polygon (the
 * earliest node's wins). */
static void turn_point(turn_out *o, const double *p, const nm_opt_node *src, int how) {
  if (p[0] != o->last[0] || p[1] != o->last[1]) {
    turn_flush(o);
    o->last = p;
    o->w = o->k < o->cap ? o->k : -1;
    if (o->w >= 0) nm_vset(&o->pts[3 * o->w], (float)p[0], 0.0f, (float)-p[1]);
    o->k++;
  }
  o->src = src;
  o->how = how;
}

/* Walks the path of goal node idx backwards -- the goal, every root where
 * the path turns, the start -- writing the first cap points met as
 * (x, 0, z), with in refs the polygon
 * each lies on. A root is an end of the interval before it, on that node's
 * polygon, or was moved along its own interval's line to its end (then the
 * path turned at the interval end before it too). Returns the number of
 * points met. */
static int turns(nm_opt_ctx *c, uint32_t idx, nm_polyref start_ref, float *pts, nm_polyref *refs,
                 int cap) {
  const nm_opt *s = c->s;
  const nm_opt_node *n = &s->nodes[idx];
  turn_out o;
  o.c = c;
  o.pts = pts;
  o.refs = refs;
  o.cap = cap;
  o.k = 1;
  o.w = 0;
  o.last = c->goal;
  o.src = NULL;
  o.how = 4;
  o.start_ref = start_ref;
  nm_vset(pts, (float)c->goal[0], 0.0f, (float)-c->goal[1]);
  for (;;) {
    const nm_opt_node *par = n->parent ? &s->nodes[n->parent - 1] : NULL;
    if (!par) turn_point(&o, n->root, n, 3);
    else if (n->flags & NM_OPT_OFFMESH) turn_point(&o, n->root, n, 2);
    else if (n->flags & NM_OPT_MOVED) turn_point(&o, n->root, n, 0);
    else turn_point(&o, n->root, par, 1);
    if (n->flags & NM_OPT_VIAR) turn_point(&o, par->right, par, 1);
    if (n->flags & NM_OPT_VIAL) turn_point(&o, par->left, par, 1);
    if (!par) break;
    n = par;
  }
  turn_flush(&o);
  return o.k;
}

/* Reverses the first n points and refs. */
static void reverse(float *pts, nm_polyref *refs, int n) {
  int i;
  for (i = 0; i < n / 2; i++) {
    float t[3];
    const nm_polyref r = refs[i];
    nm_vcopy(t, &pts[3 * i]);
    nm_vcopy(&pts[3 * i], &pts[3 * (n - 1 - i)]);
    nm_vcopy(&pts[3 * (n - 1 - i)], t);
    refs[i] = refs[n - 1 - i];
    refs[n - 1 - i] = r;
  }
}

/* Drops points where the path runs straight on (collinear neighbours). */
static int drop_straight(float *pts, nm_polyref *refs, int n, double eps) {
  int i, w = 1;
  for (i = 1; i < n; i++) {
    if (i + 1 < n) {
      const float *a = &pts[3 * (w - 1)], *b = &pts[3 * i], *d = &pts[3 * (i + 1)];
      const double ux = (double)b[0] - a[0], uz = (double)b[2] - a[2];
      const double vx = (double)d[0] - b[0], vz = (double)d[2] - b[2];
      const double lu = sqrt(ux * ux + uz * uz), lv = sqrt(vx * vx + vz * vz);
      if (fabs(ux * vz - uz * vx) <= eps * (lu + lv) && ux * vx + uz * vz >= 0) continue;
    }
    memmove(&pts[3 * w], &pts[3 * i], 3 * sizeof(float));
    if (refs) refs[w] = refs[i];
    w++;
  }
  return w;
}

/* 1 when the path of node idx takes an off-mesh connection. */
static int uses_offmesh(const nm_opt *s, uint32_t idx) {
  for (;;) {
    if (s->nodes[idx].flags & NM_OPT_OFFMESH) return 1;
    if (!s->nodes[idx].parent) return 0;
    idx = s->nodes[idx].parent - 1;
  }
}

/* Makes room for n polygons in the scratch corridor. */
static nm_polyref *corridor_room(nm_query *q, nm_opt *s, uint32_t n) {
  return nm_opt_grow_array(q, (void **)&s->cor, &s->ccap, n, sizeof(nm_polyref)) ? s->cor : NULL;
}

/* The path through a corridor by the funnel, as mesh:path makes it: to the
 * end, or to the nearest point of the last polygon when it is not end_ref;
 * point heights from the detail mesh. */
static nm_status funnel_path(nm_query *q, const nm_polyref *cor, int ncor, nm_polyref end_ref,
                             const float *start, const float *end, float *pts, nm_polyref *refs,
                             int cap, int *count) {
  float e[3];
  nm_status st;
  int i;
  nm_vcopy(e, end);
  if (cor[ncor - 1] != end_ref) nm_query_closest_point(q, cor[ncor - 1], end, e, NULL);
  st = nm_query_straight_path(q, start, e, cor, ncor, NULL, pts, NULL, refs, cap, count);
  if (st < 0) return st;
  for (i = 0; i < *count; i++)
    if (!refs[i]) refs[i] = cor[ncor - 1];
  nm_query_surface_heights(q, pts, refs, *count, cor[ncor - 1]);
  return st;
}

/* Corridor, then funnel: the path when the optimal search does not apply
 * (A* corridor, NM_FALLBACK), did not reach the goal, or took off-mesh
 * connections (the funnel places their end points). */
static nm_status corridor_path(nm_query *q, nm_opt_ctx *c, nm_status st, uint32_t found,
                               nm_polyref start_ref, nm_polyref end_ref, const float *start,
                               const float *end, const nm_filter *filter, float *pts,
                               nm_polyref *refs, int cap, int *count) {
  nm_opt *s = q->opt ? q->opt : nm_opt_scratch(q);
  nm_polyref *cor;
  int ncor = 0;
  if (!s) return NM_ERR_NOMEM;
  if (st == NM_FALLBACK) {
    if (!(cor = corridor_room(q, s, q->pool.max))) return NM_ERR_NOMEM;
    st = nm_query_find_path(q, start_ref, end_ref, start, end, filter, cor, (int)q->pool.max, &ncor);
    if (st < 0) return st;
    st |= NM_FALLBACK;
  } else {
    uint32_t n = nm_opt_corridor(c, found, start_ref, s->cor, s->ccap);
    if (n > s->ccap) {
      if (!corridor_room(q, s, n)) return NM_ERR_NOMEM;
      nm_opt_corridor(c, found, start_ref, s->cor, s->ccap);
    }
    cor = s->cor;
    ncor = (int)n;
  }
  return st | funnel_path(q, cor, ncor, end_ref, start, end, pts, refs, cap, count);
}

/* Heights of the n points of a path from the search: the start (first)
 * and, when the path reaches it (to_goal), the goal (last), which the search
 * moved over their polygons, straight from the detail surface; the points
 * between, where the path turns, from the polygon named in refs. */
static void path_heights(nm_query *q, float *pts, const nm_polyref *refs, int n, nm_polyref start_ref,
                         nm_polyref end_ref, int to_goal) {
  const nm_tile *t;
  const nm_poly *p;
  nm_ref_unsafe(q->mesh, start_ref, &t, &p);
  pts[1] = nm_detail_height(t, p, pts);
  if (to_goal && n >= 2) {
    nm_ref_unsafe(q->mesh, end_ref, &t, &p);
    pts[3 * (n - 1) + 1] = nm_detail_height(t, p, &pts[3 * (n - 1)]);
    n--;
  }
  if (n > 1) nm_query_surface_heights(q, pts + 3, refs + 1, n - 1, end_ref);
}

/* The path of goal node idx, of n points before straight ones are dropped,
 * in the scratch arrays tpts/trefs, start first, as the caller's arrays
 * would get it if they were long enough (so a path cut to them is the
 * start of the whole one). Returns its length, -1 when out of memory. */
static int whole_path(nm_query *q, nm_opt_ctx *c, uint32_t idx, nm_polyref start_ref, int n) {
  nm_opt *s = c->s;
  if (!nm_opt_grow_array(q, (void **)&s->tpts, &s->ntpts, (uint32_t)n, 3 * sizeof(float)) ||
      !nm_opt_grow_array(q, (void **)&s->trefs, &s->ntrefs, (uint32_t)n, sizeof(nm_polyref)))
    return -1;
  turns(c, idx, start_ref, s->tpts, s->trefs, n);
  reverse(s->tpts, s->trefs, n);
  return drop_straight(s->tpts, s->trefs, n, c->eps);
}

nm_status nm_query_path_optimal(nm_query *q, nm_polyref start_ref, nm_polyref end_ref,
                                const float start[3], const float end[3], const nm_filter *filter,
                                float *pts, nm_polyref *refs, int cap, int *count) {
  nm_opt_ctx c;
  uint32_t found = 0;
  nm_status st;
  int n;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!pts || !refs || cap <= 0) return NM_ERR_PARAM;
  st = nm_opt_run(q, start_ref, end_ref, start, end, filter, &c, &found);
  if (st < 0) return st;
  /* A partial path from a search to the nearest point the start reaches
   * (c.goal_ref is then not end_ref) needs no funnel; one from the node
   * nearest the goal does. */
  if (st == NM_FALLBACK || ((st & NM_PARTIAL) && c.goal_ref == end_ref) || uses_offmesh(c.s, found))
    return corridor_path(q, &c, st, found, start_ref, end_ref, start, end, filter, pts, refs, cap, count);
  n = turns(&c, found, start_ref, pts, refs, cap);
  if (n > cap) { /* short arrays: the whole path aside, then its start */
    n = whole_path(q, &c, found, start_ref, n);
    if (n < 0) return NM_ERR_NOMEM;
    if (n > cap) st |= NM_TRUNCATED;
    *count = n > cap ? cap : n;
    memcpy(pts, c.s->tpts, (size_t)*count * 3 * sizeof(float));
    memcpy(refs, c.s->trefs, (size_t)*count * sizeof(nm_polyref));
  } else {
    reverse(pts, refs, n);
    *count = drop_straight(pts, refs, n, c.eps);
  }
  path_heights(q, pts, refs, *count, start_ref, c.goal_ref, !(st & NM_TRUNCATED));
  return st;
}

/* Height of the vertex of polygon p (tile t) at the X/Z of pt, into *y;
 * 0 when pt is no vertex. The detail surface runs through the polygon's
 * vertices, so this is its height there -- and paths mostly turn at them. */
static int vertex_height(const nm_tile *t, const nm_poly *p, const float *pt, float *y) {
  int i;
  for (i = 0; i < p->vert_count; i++) {
    const float *v = &t->verts[p->verts[i] * 3];
    if (v[0] == pt[0] && v[2] == pt[2]) {
      *y = v[1];
      return 1;
    }
  }
  return 0;
}

nm_status nm_query_surface_heights(nm_query *q, float *pts, const nm_polyref *refs, int n,
                                   nm_polyref last) {
  int i;
  if (!q || n < 0 || (n > 0 && (!pts || !refs))) return NM_ERR_PARAM;
  for (i = 0; i < n; i++) {
    const nm_polyref ref = refs[i] ? refs[i] : last;
    const nm_tile *t;
    const nm_poly *p;
    float c[3];
    if (!nm_isfinite3(&pts[i * 3]) || !nm_ref_get(q->mesh, ref, &t, &p)) continue;
    if (vertex_height(t, p, &pts[i * 3], &pts[i * 3 + 1])) continue;
    nm_closest_point_on_poly(q->mesh, ref, &pts[i * 3], c, NULL);
    pts[i * 3 + 1] = c[1];
  }
  return NM_OK;
}
