/* test_query.c -- unit tests of the geometry helpers, the node pool and open
 * list, tile creation and the funnel, on tiny hand-made inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "navmesh.h"
#include "query/nm_query.h"

TEST(tri_area_sign) {
  const float a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 0, 1};
  /* c lies to the left of a->b seen from above (x right, z down the page):
   * Detour's sign convention makes that negative */
  CHECK(nm_tri_area2d(a, b, c) < 0);
  CHECK(nm_tri_area2d(a, c, b) > 0);
  CHECK(nm_tri_area2d(a, b, b) == 0);
}

TEST(dist_point_segment) {
  const float p[3] = {0, 0, 0}, q[3] = {10, 5, 0}, pt[3] = {5, 0, 3}, before[3] = {-2, 0, 1};
  float t;
  CHECK_NEAR(nm_dist_pt_seg_sqr2d(pt, p, q, &t), 9.0, 1e-6);
  CHECK_NEAR(t, 0.5, 1e-6);
  CHECK_NEAR(nm_dist_pt_seg_sqr2d(before, p, q, &t), 5.0, 1e-6);
  CHECK(t == 0);
}

TEST(point_in_polygon) {
  const float sq[12] = {0, 0, 0, 0, 0, 4, 4, 0, 4, 4, 0, 0};
  const float in[3] = {1, 9, 1}, out[3] = {5, 0, 1}, edge[3] = {-0.001f, 0, 2};
  float ed[4], et[4];
  CHECK(nm_point_in_polygon(in, sq, 4));
  CHECK(!nm_point_in_polygon(out, sq, 4));
  CHECK(!nm_dist_pt_poly_edges_sqr(edge, sq, 4, ed, et));
  CHECK_NEAR(ed[0], 0.001 * 0.001, 1e-9); /* edge 0: (0,0)-(0,4) */
}

TEST(height_on_triangle) {
  const float a[3] = {0, 0, 0}, b[3] = {0, 2, 4}, c[3] = {4, 0, 0};
  const float p[3] = {0.5f, 100, 2}, off[3] = {5, 0, 5};
  float h = -1;
  CHECK(nm_closest_height_on_tri(p, a, b, c, &h));
  CHECK_NEAR(h, 1.0, 1e-5); /* y rises 2 over z 0..4 */
  CHECK(!nm_closest_height_on_tri(off, a, b, c, &h));
}

TEST(segment_intersection) {
  const float a0[3] = {0, 0, 0}, a1[3] = {4, 0, 4}, b0[3] = {0, 0, 4}, b1[3] = {4, 0, 0};
  const float c0[3] = {0, 0, 1}, c1[3] = {4, 0, 5};
  float s, t;
  CHECK(nm_intersect_seg_seg2d(a0, a1, b0, b1, &s, &t));
  CHECK_NEAR(s, 0.5, 1e-6);
  CHECK_NEAR(t, 0.5, 1e-6);
  CHECK(!nm_intersect_seg_seg2d(a0, a1, c0, c1, &s, &t)); /* parallel */
}

TEST(node_pool) {
  nm_alloc a = {NULL, NULL};
  nm_nodepool p;
  nm_node *n1, *n2, *n3;
  nm_alloc sys;
  memset(&sys, 0, sizeof sys);
  (void)a;
  {
    extern nm_alloc nm_alloc_resolve(const nm_alloc *);
    sys = nm_alloc_resolve(NULL);
  }
  CHECK(nm_nodepool_init(&p, &sys, 3) == NM_OK);
  n1 = nm_nodepool_get(&p, 100, 0);
  n2 = nm_nodepool_get(&p, 100, 1);
  CHECK(n1 && n2 && n1 != n2);
  CHECK(nm_nodepool_get(&p, 100, 0) == n1);
  CHECK(nm_nodepool_find(&p, 100, 1) == n2);
  n3 = nm_nodepool_get(&p, 7, 0);
  CHECK(n3 != NULL);
  CHECK(nm_nodepool_get(&p, 8, 0) == NULL); /* full */
  CHECK(nm_node_at(&p, nm_node_idx(&p, n3)) == n3);
  nm_nodepool_clear(&p);
  CHECK(p.count == 0);
  CHECK(nm_nodepool_find(&p, 100, 0) == NULL);
  CHECK(nm_nodepool_get(&p, 8, 0) != NULL);
  nm_nodepool_free(&p, &sys);
}

TEST(open_list_order) {
  extern nm_alloc nm_alloc_resolve(const nm_alloc *);
  nm_alloc sys = nm_alloc_resolve(NULL);
  nm_heap h;
  nm_node nodes[200];
  float last = -1e30f;
  int i, ok = 1;
  unsigned seed = 12345;
  CHECK(nm_heap_init(&h, &sys, 200, nodes) == NM_OK);
  for (i = 0; i < 200; i++) {
    seed = seed * 1103515245u + 12345u;
    nodes[i].total = (float)((seed >> 16) % 50); /* many ties */
    nm_heap_push(&h, &nodes[i]);
  }
  for (i = 0; i < 50; i++) { /* decrease some keys */
    nodes[i * 3].total -= 10;
    nm_heap_modify(&h, &nodes[i * 3]);
  }
  for (i = 0; i < (int)h.size; i++) ok &= h.pos[h.items[i].node] == (uint32_t)i && h.items[i].total == nodes[h.items[i].node].total;
  CHECK(ok);
  while (h.size) {
    nm_node *n = nm_heap_pop(&h);
    if (n->total < last) ok = 0;
    last = n->total;
  }
  CHECK(ok);
  nm_heap_free(&h, &sys);
}

/* An L-shaped corridor of three unit-wide squares:
 *   (0..2, 0..1) -> (2..3, 0..1) -> (2..3, 1..3) */
static nm_navmesh *l_corridor(void) {
  static const float v[] = {0, 0, 0, 0, 0, 1, 2, 0, 1, 2, 0, 0, 3, 0, 0, 3, 0, 1, 2, 0, 3, 3, 0, 3};
  static const uint16_t polys[] = {0, 1, 2, 3, 3, 2, 5, 4, 2, 6, 7, 5};
  nm_poly_mesh_input in;
  nm_navmesh *m = NULL;
  void *blob;
  size_t size;
  memset(&in, 0, sizeof in);
  in.verts = v;
  in.nverts = 8;
  in.polys = polys;
  in.npolys = 3;
  in.nvp = 4;
  in.bmin[0] = 1;
  in.walkable_climb = 0.5f;
  in.build_bvtree = 1;
  if (nm_tile_create(&in, NULL, NULL, &blob, &size) != NM_OK) return NULL;
  nm_navmesh_load(blob, size, NULL, NULL, &m);
  nm_tile_free(NULL, blob, size);
  return m;
}

TEST(funnel_around_a_corner) {
  nm_navmesh *m = l_corridor();
  nm_query *q = NULL;
  nm_filter f;
  float ext[3] = {0.1f, 1, 0.1f}, s[3] = {0.5f, 0, 0.5f}, e[3] = {2.5f, 0, 2.5f}, ns[3], ne[3];
  float pts[3 * 8];
  nm_polyref sref, eref, path[8];
  uint8_t flags[8];
  int n = 0, np = 0;
  nm_straight_opts opts = {NM_CROSSINGS_NONE, 0.3f};
  CHECK(m != NULL);
  if (!m) return;
  CHECK(nm_query_new(m, 64, NULL, &q) == NM_OK);
  nm_navmesh_release(m);
  nm_filter_init(&f);
  CHECK(nm_query_find_nearest(q, s, ext, &f, &sref, ns, NULL) == NM_OK);
  CHECK(nm_query_find_nearest(q, e, ext, &f, &eref, ne, NULL) == NM_OK);
  CHECK(nm_query_find_path(q, sref, eref, ns, ne, &f, path, 8, &np) == NM_OK);
  CHECK(np == 3);
  CHECK(nm_query_straight_path(q, ns, ne, path, np, NULL, pts, flags, NULL, 8, &n) == NM_OK);
  CHECK(n == 3); /* start, the inner corner (2, 1), end */
  CHECK_NEAR(pts[3], 2.0, 1e-5);
  CHECK_NEAR(pts[5], 1.0, 1e-5);
  CHECK(flags[0] == NM_STRAIGHT_START && flags[1] == 0 && flags[2] == NM_STRAIGHT_END);
  /* with inset the corner moves 0.3 along the portals away from (2, 1) */
  CHECK(nm_query_straight_path(q, ns, ne, path, np, &opts, pts, flags, NULL, 8, &n) == NM_OK);
  CHECK(n >= 3);
  CHECK(sqrt((pts[3] - 2.0) * (pts[3] - 2.0) + (pts[5] - 1.0) * (pts[5] - 1.0)) >= 0.3 - 1e-5);
  /* a buffer of two points is reported as truncated */
  CHECK(nm_query_straight_path(q, ns, ne, path, np, NULL, pts, flags, NULL, 2, &n) == NM_TRUNCATED);
  CHECK(n == 2);
  /* NaN in, error out */
  s[0] = NAN;
  CHECK(nm_query_find_nearest(q, s, ext, &f, &sref, ns, NULL) == NM_ERR_PARAM);
  nm_query_free(q);
}

TEST(save_and_load_roundtrip) {
  nm_navmesh *m = l_corridor(), *m2 = NULL;
  void *bytes = NULL, *bytes2 = NULL;
  size_t len = 0, len2 = 0;
  int fmt;
  CHECK(m != NULL);
  if (!m) return;
  for (fmt = NM_FORMAT_MSET; fmt <= NM_FORMAT_NATIVE; fmt++) {
    nm_navmesh_info a, b;
    CHECK(nm_navmesh_save(m, fmt, &bytes, &len) == NM_OK);
    CHECK(nm_navmesh_load(bytes, len, NULL, NULL, &m2) == NM_OK);
    CHECK(m2 && nm_navmesh_save(m2, fmt, &bytes2, &len2) == NM_OK);
    CHECK(len == len2 && bytes2 && memcmp(bytes, bytes2, len) == 0);
    nm_navmesh_get_info(m, &a);
    if (m2) nm_navmesh_get_info(m2, &b);
    CHECK(m2 && a.polys == b.polys && a.tiles == b.tiles);
    /* every truncation is refused cleanly */
    {
      size_t cut;
      int bad = 0;
      for (cut = 0; cut < len; cut++) {
        nm_navmesh *t = NULL;
        if (nm_navmesh_load(bytes, cut, NULL, NULL, &t) != NM_ERR_DATA || t) bad++;
      }
      CHECK(bad == 0);
    }
    nm_free_bytes(m, bytes, len);
    if (m2) nm_free_bytes(m2, bytes2, len2);
    nm_navmesh_release(m2);
    m2 = NULL;
  }
  nm_navmesh_release(m);
}

TEST(status_names) {
  CHECK(strcmp(nm_status_name(NM_ERR_NO_POLY), "ERR_NO_POLY") == 0);
  CHECK(strcmp(nm_status_name(NM_PARTIAL | NM_OUT_OF_NODES), "PARTIAL") == 0);
  CHECK(strcmp(nm_strerror(NM_ERR_DATA), "corrupt or incompatible navmesh data") == 0);
  CHECK(strcmp(nm_status_name(-99), "UNKNOWN") == 0);
}

int main(void) {
  RUN(tri_area_sign);
  RUN(dist_point_segment);
  RUN(point_in_polygon);
  RUN(height_on_triangle);
  RUN(segment_intersection);
  RUN(node_pool);
  RUN(open_list_order);
  RUN(funnel_around_a_corner);
  RUN(save_and_load_roundtrip);
  RUN(status_names);
  return tap_done();
}
