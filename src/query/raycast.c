/* raycast.c -- raycast along the navmesh surface (Detour's raycast).
 *
 * The ray is the X/Z segment start->end. Starting in start_ref, each polygon
 * is clipped against the segment (Cyrus-Beck: per edge, the parameter where
 * the segment enters or leaves the edge's half plane). The furthest exit so
 * far is the ray's progress t. If the segment ends inside the polygon the end
 * is reached (t = FLT_MAX); otherwise the ray crosses the exit edge into the
 * neighbour linked there (for tile-border links only when the crossing point
 * lies on the linked part of the edge) or, when there is none, it hits that
 * edge as a wall. A polygon the segment does not intersect at all (possible
 * only through float precision, mostly a start point on the boundary) stops
 * the ray with the largest t so far and no normal, as Detour does.
 * Float operations follow Detour's order: results agree with it bit for bit.
 * Unlike Detour, a ray that stops progressing (polygons linked in a cycle in
 * corrupt data) ends instead of looping forever. */
#include "nm_query.h"

/* Polygons in a row the ray may cross without getting further (a ray
 * through a vertex passes the polygons around it at the same t). */
#define RAY_STALL_MAX 64

/* Whether a tile-border link covers the point where the ray leaves through
 * its edge (the link may span only part of the edge). */
static int border_link_hit(const nm_tile *t, const nm_poly *p, const nm_link *l, const float *s,
                           const float *e, float tmax) {
  const float k = 1.0f / 255.0f;
  const float *left, *right;
  int axis;
  float lo, hi, v;
  if (l->bmin == 0 && l->bmax == 255) return 1;
  if (l->side == 0 || l->side == 4) axis = 2;
  else if (l->side == 2 || l->side == 6) axis = 0;
  else return 0;
  left = &t->verts[p->verts[l->edge] * 3];
  right = &t->verts[p->verts[(l->edge + 1) % p->vert_count] * 3];
  lo = left[axis] + (right[axis] - left[axis]) * (l->bmin * k);
  hi = left[axis] + (right[axis] - left[axis]) * (l->bmax * k);
  if (lo > hi) {
    const float tmp = lo;
    lo = hi;
    hi = tmp;
  }
  v = s[axis] + (e[axis] - s[axis]) * tmax;
  return v >= lo && v <= hi;
}

/* The passable ground neighbour across edge `edge` of polygon p at the
 * ray's exit point, 0 when the edge is a wall there. */
static nm_polyref next_poly(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, int edge,
                            const nm_filter *f, const float *s, const float *e, float tmax) {
  uint32_t i;
  for (i = p->first_link; i != NM_NULL_LINK; i = t->links[i].next) {
    const nm_link *l = &t->links[i];
    const nm_tile *nt;
    const nm_poly *np;
    if ((int)l->edge != edge) continue;
    nm_ref_unsafe(m, l->ref, &nt, &np);
    if (nm_poly_type(np) == NM_POLYTYPE_OFFMESH || !nm_filter_pass(f, np)) continue;
    if (l->side == 0xff || border_link_hit(t, p, l, s, e, tmax)) return l->ref;
  }
  return 0;
}

/* Unit X/Z normal of edge a -> a+1 of polygon p (Detour's orientation). */
static void edge_normal(const nm_tile *t, const nm_poly *p, int a, float *normal) {
  const int b = a + 1 < p->vert_count ? a + 1 : 0;
  const float *va = &t->verts[p->verts[a] * 3], *vb = &t->verts[p->verts[b] * 3];
  const float dx = vb[0] - va[0], dz = vb[2] - va[2];
  nm_vset(normal, dz, 0, -dx);
  nm_vnormalize(normal);
}

/* Clips the ray against polygon p of tile t (vertices read in place). */
static int clip_poly(nm_clip *c, const nm_tile *t, const nm_poly *p) {
  const float *tv = t->verts;
  const int nv = p->vert_count;
  int i, j;
  for (i = 0, j = nv - 1; i < nv; j = i++)
    if (!nm_clip_edge(c, &tv[p->verts[i] * 3], &tv[p->verts[j] * 3], j)) return 0;
  return 1;
}

nm_status nm_query_raycast(nm_query *q, nm_polyref start_ref, const float start[3],
                           const float end[3], const nm_filter *filter, float *t, float normal[3],
                           nm_polyref *path, int cap, int *count) {
  const nm_navmesh *m = q->mesh;
  const nm_tile *tile;
  const nm_poly *poly;
  nm_polyref cur = start_ref;
  nm_status st = NM_OK;
  float n3[3] = {0, 0, 0}, hit_t = 0;
  int n = 0, stall = 0;
  if (!t || !count) return NM_ERR_PARAM;
  *t = 0;
  *count = 0;
  if (normal) nm_vset(normal, 0, 0, 0);
  if (!start || !end || !filter || !nm_isfinite3(start) || !nm_isfinite3(end) || cap < 0 ||
      (cap > 0 && !path) || !nm_ref_get(m, start_ref, &tile, &poly))
    return NM_ERR_PARAM;
  while (cur) {
    nm_clip c;
    nm_ref_unsafe(m, cur, &tile, &poly);
    nm_clip_begin(&c, start, end, 1.0f);
    if (!clip_poly(&c, tile, poly)) break; /* cannot enter: keep the largest t, no normal */
    if (c.hi > hit_t) {
      hit_t = c.hi;
      stall = 0;
    } else if (++stall > RAY_STALL_MAX) {
      break; /* no progress: only a corrupt mesh links polygons in a cycle */
    }
    if (n < cap) path[n++] = cur;
    else st |= NM_TRUNCATED;
    if (c.smax == -1) { /* the segment ends inside this polygon */
      hit_t = FLT_MAX;
      break;
    }
    cur = next_poly(m, tile, poly, c.smax, filter, start, end, c.hi);
    if (!cur) edge_normal(tile, poly, c.smax, n3);
  }
  *t = hit_t;
  *count = n;
  if (normal) nm_vcopy(normal, n3);
  return st;
}
