/* polys.c -- polygon-level queries: queryPolygons (polygons overlapping a
 * box) and getPolyWallSegments (a polygon's boundary split into walls and
 * portals), as Detour answers them.
 *
 * An edge inside a tile has one neighbour or none. An edge on a tile border
 * may be shared with several polygons of the next tile, each covering part
 * of it (link bmin..bmax in 1/255ths of the edge); the parts are sorted into
 * an interval list between two sentinels, and the gaps between them are
 * walls. */
#include "nm_query.h"

#define MAX_INTERVALS 16

typedef struct interval {
  nm_polyref ref;
  int tmin, tmax;
} interval;

/* Inserts [tmin, tmax] in order of position (dropped when the list is full). */
static void interval_insert(interval *iv, int *n, int tmin, int tmax, nm_polyref ref) {
  int at = 0;
  if (*n + 1 > MAX_INTERVALS) return;
  while (at < *n && tmax > iv[at].tmin) at++;
  memmove(iv + at + 1, iv + at, sizeof *iv * (size_t)(*n - at));
  iv[at].ref = ref;
  iv[at].tmin = tmin;
  iv[at].tmax = tmax;
  (*n)++;
}

/* Appends segment vj->vi between parameters a and b (in 1/255ths). */
static int put_seg(float *segs, nm_polyref *refs, int n, const float *vj, const float *vi, int a,
                   int b, nm_polyref ref) {
  nm_vlerp(&segs[n * 6], vj, vi, (float)a / 255.0f);
  nm_vlerp(&segs[n * 6 + 3], vj, vi, (float)b / 255.0f);
  if (refs) refs[n] = ref;
  return n + 1;
}

int nm_edge_wall_parts(const nm_navmesh *m, const nm_tile *t, const nm_poly *p, int j,
                       const nm_filter *f, float *segs, nm_polyref *refs) {
  const float *vj = &t->verts[p->verts[j] * 3];
  const float *vi = &t->verts[p->verts[(j + 1) % p->vert_count] * 3];
  interval iv[MAX_INTERVALS];
  int n = 0, niv = 0, k;
  uint32_t l;
  if (!(p->neis[j] & NM_EXT_LINK)) { /* inside the tile: one neighbour or a wall */
    nm_polyref nei = 0;
    if (p->neis[j] && nm_filter_pass(f, &t->polys[p->neis[j] - 1]))
      nei = nm_tile_base(m, t) | (nm_polyref)(p->neis[j] - 1);
    if (nei && !refs) return 0;
    nm_vcopy(&segs[0], vj);
    nm_vcopy(&segs[3], vi);
    if (refs) refs[0] = nei;
    return 1;
  }
  for (l = p->first_link; l != NM_NULL_LINK; l = t->links[l].next) {
    const nm_link *lk = &t->links[l];
    const nm_tile *nt;
    const nm_poly *np;
    if (lk->edge != j || !lk->ref) continue;
    nm_ref_unsafe(m, lk->ref, &nt, &np);
    if (nm_filter_pass(f, np)) interval_insert(iv, &niv, lk->bmin, lk->bmax, lk->ref);
  }
  interval_insert(iv, &niv, -1, 0, 0);
  interval_insert(iv, &niv, 255, 256, 0);
  for (k = 1; k < niv; k++) {
    if (refs && iv[k].ref) n = put_seg(segs, refs, n, vj, vi, iv[k].tmin, iv[k].tmax, iv[k].ref);
    if (iv[k - 1].tmax != iv[k].tmin) n = put_seg(segs, refs, n, vj, vi, iv[k - 1].tmax, iv[k].tmin, 0);
  }
  return n;
}

nm_status nm_query_wall_segments(nm_query *q, nm_polyref ref, const nm_filter *filter,
                                 float *segs, nm_polyref *refs, int cap, int *count) {
  const nm_tile *t;
  const nm_poly *p;
  float es[6 * NM_EDGE_SEGS_MAX];
  nm_polyref er[NM_EDGE_SEGS_MAX];
  nm_status st = NM_OK;
  int j, k, n = 0;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!filter || cap < 0 || (cap > 0 && !segs) || !nm_ref_get(q->mesh, ref, &t, &p))
    return NM_ERR_PARAM;
  for (k = 0; k < p->vert_count; k++) { /* Detour's edge order: the last edge first */
    const int ne = nm_edge_wall_parts(q->mesh, t, p, j = (k + p->vert_count - 1) % p->vert_count,
                                      filter, es, refs ? er : NULL);
    int e;
    for (e = 0; e < ne; e++) {
      if (n >= cap) {
        st |= NM_TRUNCATED;
        break;
      }
      memcpy(&segs[n * 6], &es[e * 6], 6 * sizeof(float));
      if (refs) refs[n] = er[e];
      n++;
    }
  }
  *count = n;
  return st;
}

/* ---- queryPolygons ---- */

/* Result list of queryPolygons and the box it collects. */
typedef struct collect {
  const nm_navmesh *m;
  const float *qmin, *qmax;
  const nm_filter *f;
  nm_polyref *refs;
  int cap, n;
  nm_status st;
} collect;

/* Adds the polygons of tile t overlapping the box that pass the filter. */
static void collect_in_tile(void *ud, const nm_tile *t) {
  collect *c = (collect *)ud;
  const nm_polyref base = nm_tile_base(c->m, t);
  nm_box_iter it;
  int ip;
  nm_box_begin(&it, t, c->qmin, c->qmax);
  while ((ip = nm_box_next(&it)) >= 0) {
    if (!nm_filter_pass(c->f, &t->polys[ip])) continue;
    if (c->n < c->cap) c->refs[c->n++] = base | (nm_polyref)ip;
    else c->st |= NM_TRUNCATED;
  }
}

nm_status nm_query_polygons(nm_query *q, const float center[3], const float half_ext[3],
                            const nm_filter *filter, nm_polyref *refs, int cap, int *count) {
  float qmin[3], qmax[3];
  int x0, y0, x1, y1;
  collect c;
  if (!count) return NM_ERR_PARAM;
  *count = 0;
  if (!center || !half_ext || !filter || cap < 0 || (cap > 0 && !refs) || !nm_isfinite3(center) ||
      !nm_isfinite3(half_ext) || half_ext[0] < 0 || half_ext[1] < 0 || half_ext[2] < 0)
    return NM_ERR_PARAM;
  nm_vsub(qmin, center, half_ext);
  nm_vadd(qmax, center, half_ext);
  nm_navmesh_tile_loc(q->mesh, qmin, &x0, &y0);
  nm_navmesh_tile_loc(q->mesh, qmax, &x1, &y1);
  c.m = q->mesh;
  c.qmin = qmin;
  c.qmax = qmax;
  c.f = filter;
  c.refs = refs;
  c.cap = cap;
  c.n = 0;
  c.st = NM_OK;
  nm_navmesh_visit_tiles(q->mesh, x0, y0, x1, y1, collect_in_tile, &c);
  *count = c.n;
  return c.st;
}
