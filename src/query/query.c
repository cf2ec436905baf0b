/* query.c -- query objects (scratch space over a retained mesh), the node
 * pool and open list storage, filters, and the point queries that need no
 * search: closest point, closest boundary point, surface height. */
#include "nm_query.h"

void nm_filter_init(nm_filter *f) {
  int i;
  for (i = 0; i < NM_MAX_AREAS; i++) f->area_cost[i] = 1.0f;
  f->include_flags = 0xffff;
  f->exclude_flags = 0;
  f->heuristic_scale = 0.999f;
  f->area_change_count = 0;
  memset(f->area_change, 0, sizeof f->area_change);
}

nm_status nm_nodepool_init(nm_nodepool *p, const nm_alloc *a, uint32_t max) {
  uint32_t i, bits;
  memset(p, 0, sizeof *p);
  p->max = max;
  /* a quarter of the node count keeps the bucket heads cache-resident
   * (chains stay short: most searches use a fraction of the pool) */
  p->hash_size = nm_next_pow2(max / 4 > 0 ? max / 4 : 1);
  bits = nm_ilog2(p->hash_size);
  p->hash_shift = bits == 0 ? 31 : 32 - bits; /* size 1: every ref hashes to 0 */
  if (bits == 0) p->hash_size = 2;
  p->nodes = (nm_node *)nm_malloc(a, nm_mul_size(max, sizeof(nm_node)));
  p->next = (uint32_t *)nm_malloc(a, nm_mul_size(max, sizeof(uint32_t)));
  p->first = (uint32_t *)nm_malloc(a, nm_mul_size(p->hash_size, sizeof(uint32_t)));
  if (!p->nodes || !p->next || !p->first) return NM_ERR_NOMEM;
  for (i = 0; i < p->hash_size; i++) p->first[i] = NM_NULL_IDX;
  return NM_OK;
}

void nm_nodepool_free(nm_nodepool *p, const nm_alloc *a) {
  nm_free(a, p->nodes, (size_t)p->max * sizeof(nm_node));
  nm_free(a, p->next, (size_t)p->max * sizeof(uint32_t));
  nm_free(a, p->first, (size_t)p->hash_size * sizeof(uint32_t));
  memset(p, 0, sizeof *p);
}

nm_status nm_heap_init(nm_heap *h, const nm_alloc *a, uint32_t cap, nm_node *base) {
  h->size = 0;
  h->cap = cap;
  h->base = base;
  h->items = (nm_heap_item *)nm_malloc(a, nm_mul_size((size_t)cap + 1, sizeof(nm_heap_item)));
  h->pos = (uint32_t *)nm_malloc(a, nm_mul_size((size_t)cap + 1, sizeof(uint32_t)));
  return h->items && h->pos ? NM_OK : NM_ERR_NOMEM;
}

void nm_heap_free(nm_heap *h, const nm_alloc *a) {
  nm_free(a, h->items, ((size_t)h->cap + 1) * sizeof(nm_heap_item));
  nm_free(a, h->pos, ((size_t)h->cap + 1) * sizeof(uint32_t));
  h->items = NULL;
  h->pos = NULL;
}

nm_status nm_query_new(nm_navmesh *mesh, int max_nodes, const nm_alloc *alloc, nm_query **out) {
  nm_alloc a = nm_alloc_resolve(alloc);
  nm_query *q;
  *out = NULL;
  if (!mesh || max_nodes < 1 || max_nodes > (1 << 22)) return NM_ERR_PARAM;
  if (!(q = (nm_query *)nm_calloc(&a, sizeof *q))) return NM_ERR_NOMEM;
  q->alloc = a;
  if (nm_nodepool_init(&q->pool, &a, (uint32_t)max_nodes) < 0 ||
      nm_heap_init(&q->open, &a, (uint32_t)max_nodes, q->pool.nodes) < 0 ||
      nm_nodepool_init(&q->tiny, &a, NM_TINY_NODES) < 0) {
    nm_query_free(q);
    return NM_ERR_NOMEM;
  }
  q->rng = 0x853c49e6748fea9bull;
  q->mesh = mesh;
  nm_navmesh_retain(mesh);
  *out = q;
  return NM_OK;
}

void nm_query_free(nm_query *q) {
  nm_alloc a;
  if (!q) return;
  a = q->alloc;
  nm_opt_free(q);
  nm_nodepool_free(&q->pool, &a);
  nm_heap_free(&q->open, &a);
  nm_nodepool_free(&q->tiny, &a);
  nm_rand_table_free(q);
  nm_navmesh_release(q->mesh);
  nm_free(&a, q, sizeof *q);
}

nm_navmesh *nm_query_mesh(const nm_query *q) { return q->mesh; }

nm_status nm_query_set_mesh(nm_query *q, nm_navmesh *mesh) {
  if (!q || !mesh) return NM_ERR_PARAM;
  if (mesh == q->mesh) return NM_OK;
  nm_navmesh_retain(mesh);
  nm_navmesh_release(q->mesh);
  q->mesh = mesh;
  /* whatever was made for the old mesh: the sliced search, the random
   * point table, the optimal search's tables (remade on first use) */
  q->sliced.state = NM_SLICED_NONE;
  q->pool_stamp++;
  q->rtab.valid = 0;
  nm_opt_free(q);
  return NM_OK;
}

nm_status nm_query_closest_point(nm_query *q, nm_polyref ref, const float pos[3], float closest[3],
                                 int *over) {
  const nm_tile *t;
  const nm_poly *p;
  if (!pos || !closest || !nm_isfinite3(pos)) return NM_ERR_PARAM;
  if (!nm_ref_get(q->mesh, ref, &t, &p)) return NM_ERR_PARAM;
  nm_closest_point_on_poly(q->mesh, ref, pos, closest, over);
  return NM_OK;
}

nm_status nm_query_closest_point_boundary(nm_query *q, nm_polyref ref, const float pos[3],
                                          float closest[3]) {
  const nm_tile *t;
  const nm_poly *p;
  float verts[NM_MAX_VERTS_PER_POLY * 3], ed[NM_MAX_VERTS_PER_POLY], et[NM_MAX_VERTS_PER_POLY];
  int i, nv, imin = 0;
  if (!pos || !closest || !nm_isfinite3(pos)) return NM_ERR_PARAM;
  if (!nm_ref_get(q->mesh, ref, &t, &p)) return NM_ERR_PARAM;
  nv = p->vert_count;
  for (i = 0; i < nv; i++) nm_vcopy(&verts[i * 3], &t->verts[p->verts[i] * 3]);
  if (nm_dist_pt_poly_edges_sqr(pos, verts, nv, ed, et)) {
    nm_vcopy(closest, pos);
    return NM_OK;
  }
  for (i = 1; i < nv; i++)
    if (ed[i] < ed[imin]) imin = i;
  nm_vlerp(closest, &verts[imin * 3], &verts[((imin + 1) % nv) * 3], et[imin]);
  return NM_OK;
}

nm_status nm_query_poly_height(nm_query *q, nm_polyref ref, const float pos[3], float *height) {
  const nm_tile *t;
  const nm_poly *p;
  if (!pos || !height || !nm_isfinite3(pos)) return NM_ERR_PARAM;
  if (!nm_ref_get(q->mesh, ref, &t, &p)) return NM_ERR_PARAM;
  if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) {
    const float *v0 = &t->verts[p->verts[0] * 3], *v1 = &t->verts[p->verts[1] * 3];
    float tt;
    nm_dist_pt_seg_sqr2d(pos, v0, v1, &tt);
    *height = v0[1] + (v1[1] - v0[1]) * tt;
    return NM_OK;
  }
  return nm_poly_height(t, p, pos, height) ? NM_OK : NM_ERR_NO_POLY;
}

nm_status nm_query_portal_points(nm_query *q, nm_polyref from, nm_polyref to, float left[3],
                                 float right[3]) {
  const nm_tile *ft, *tt;
  const nm_poly *fp, *tp;
  if (!left || !right) return NM_ERR_PARAM;
  if (!nm_ref_get(q->mesh, from, &ft, &fp) || !nm_ref_get(q->mesh, to, &tt, &tp)) return NM_ERR_PARAM;
  return nm_portal_points(q->mesh, from, ft, fp, to, tt, tp, left, right) ? NM_OK : NM_ERR_PARAM;
}
