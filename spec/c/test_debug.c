/* test_debug.c -- the debug outputs in C (src/debug/, src/query/nodes.c) on
 * the shared fixture (3 x 3 tiles, an explicit detail mesh in the centre
 * tile, two off-mesh links): detail triangles and their truncation, OBJ
 * text read back by nm_obj_parse, the scene's counts against the mesh,
 * the node pool after a search, bad arguments, and every allocation of
 * nm_navmesh_to_obj / nm_debug_scene_make failing in turn. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "fixture.h"
#include "track_alloc.h"

static nm_navmesh *g_mesh;

/* Every polygon ref of a mesh, in nm_navmesh_foreach_poly order. */
typedef struct refs { nm_polyref r[256]; int n; } refs;
static void add_ref(void *ud, nm_polyref ref) {
  refs *rs = (refs *)ud;
  if (rs->n < 256) rs->r[rs->n++] = ref;
}

static float area2d(const float *a, const float *b, const float *c) {
  return 0.5f * ((b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]));
}

TEST(poly_detail_covers_polygons) {
  refs rs;
  int i, k, ground = 0;
  rs.n = 0;
  nm_navmesh_foreach_poly(g_mesh, add_ref, &rs);
  for (i = 0; i < rs.n; i++) {
    float v[3 * 6], tris[9 * NM_MAX_DETAIL_TRIS], pa = 0, da = 0;
    int nv, nt;
    CHECK(nm_navmesh_get_poly_verts(g_mesh, rs.r[i], v, &nv) == NM_OK);
    CHECK(nm_navmesh_get_poly_detail(g_mesh, rs.r[i], tris, NM_MAX_DETAIL_TRIS, &nt) == NM_OK);
    if (nv == 2) { CHECK(nt == 0); continue; } /* off-mesh connection */
    ground++;
    for (k = 2; k < nv; k++) pa += area2d(&v[0], &v[(k - 1) * 3], &v[k * 3]);
    for (k = 0; k < nt; k++) da += area2d(&tris[k * 9], &tris[k * 9 + 3], &tris[k * 9 + 6]);
    CHECK(nt >= nv - 2);
    CHECK_NEAR(fabs(da), fabs(pa), 1e-4 * fabs(pa)); /* the fixture's own detail mesh is wound the other way */
  }
  CHECK(ground > 20);
}

TEST(poly_detail_truncates_and_checks) {
  nm_polyref ref = nm_navmesh_tile_ref_at(g_mesh, 1, 1, 0) | 0;
  float tris[9 * 2];
  int n = -1;
  nm_status st = nm_navmesh_get_poly_detail(g_mesh, ref, tris, 1, &n);
  CHECK(st == NM_TRUNCATED || st == NM_OK);
  CHECK(n == 1);
  CHECK(nm_navmesh_get_poly_detail(g_mesh, ref, tris, 0, &n) >= 0 && n == 0);
  CHECK(nm_navmesh_get_poly_detail(g_mesh, 12345678u, tris, 2, &n) == NM_ERR_PARAM && n == 0);
  CHECK(nm_navmesh_get_poly_detail(g_mesh, ref, NULL, 2, &n) == NM_ERR_PARAM);
  CHECK(nm_navmesh_get_poly_detail(g_mesh, ref, tris, 2, NULL) == NM_ERR_PARAM);
}

/* The OBJ text read back: one fan per ground polygon, vertices equal. */
TEST(obj_reads_back) {
  refs rs;
  void *text;
  size_t len;
  float *v;
  int *t, nv, nt, i, k, ti = 0;
  rs.n = 0;
  nm_navmesh_foreach_poly(g_mesh, add_ref, &rs);
  CHECK(nm_navmesh_to_obj(g_mesh, NULL, &text, &len) == NM_OK);
  CHECK(nm_obj_parse((const char *)text, len, NULL, NULL, &v, &nv, &t, &nt) == NM_OK);
  for (i = 0; i < rs.n; i++) {
    float pv[3 * 6];
    int pn;
    nm_navmesh_get_poly_verts(g_mesh, rs.r[i], pv, &pn);
    for (k = 2; k < pn; k++, ti++) {
      CHECK(ti < nt);
      if (ti >= nt) break;
      CHECK(memcmp(&v[t[ti * 3] * 3], &pv[0], 3 * sizeof(float)) == 0);
      CHECK(memcmp(&v[t[ti * 3 + 1] * 3], &pv[(k - 1) * 3], 3 * sizeof(float)) == 0);
      CHECK(memcmp(&v[t[ti * 3 + 2] * 3], &pv[k * 3], 3 * sizeof(float)) == 0);
    }
  }
  CHECK(ti == nt);
  CHECK(strstr((const char *)text, "\nl ") != NULL); /* the off-mesh links */
  nm_obj_free(NULL, v, nv, t, nt);
  nm_free_bytes(g_mesh, text, len);
}

TEST(obj_box_and_bad_args) {
  nm_obj_opts o;
  void *text;
  size_t len;
  memset(&o, 0, sizeof o);
  o.use_box = 1;
  o.detail = 1;
  o.bmin[0] = 100; o.bmin[1] = -100; o.bmin[2] = 100;
  o.bmax[0] = 200; o.bmax[1] = 100; o.bmax[2] = 200;
  CHECK(nm_navmesh_to_obj(g_mesh, &o, &text, &len) == NM_OK);
  CHECK(memchr(text, 'f', len) == NULL); /* nothing there: the header only */
  nm_free_bytes(g_mesh, text, len);
  o.bmin[1] = NAN;
  CHECK(nm_navmesh_to_obj(g_mesh, &o, &text, &len) == NM_ERR_PARAM && text == NULL);
  CHECK(nm_navmesh_to_obj(NULL, NULL, &text, &len) == NM_ERR_PARAM);
}

TEST(scene_counts) {
  nm_debug_scene s;
  nm_navmesh_info info;
  float bmin[3] = {0, -100, 0}, bmax[3] = {7, 100, 7};
  int i, links = 0, verts = 0;
  nm_navmesh_get_info(g_mesh, &info);
  CHECK(nm_debug_scene_make(g_mesh, NULL, NULL, &s) == NM_OK);
  CHECK(s.ntiles == info.tiles && s.npolys == info.polys + info.offmesh_polys);
  for (i = 0; i < s.npolys; i++) {
    CHECK(s.polys[i].first == (uint32_t)verts);
    verts += s.polys[i].nverts;
    links += s.polys[i].offmesh;
    CHECK(s.polys[i].island >= 1);
    CHECK(s.polys[i].tile >= 0 && s.polys[i].tile < s.ntiles);
  }
  CHECK(verts == s.nverts && links == s.nlinks && links == info.offmesh_polys && links == 2);
  CHECK(s.nwalls > 0);
  CHECK(s.links[0].radius > 0);
  nm_debug_scene_free(g_mesh, &s);
  CHECK(nm_debug_scene_make(g_mesh, bmin, bmax, &s) == NM_OK);
  CHECK(s.ntiles == 1 && s.npolys > 0 && s.npolys < info.polys);
  nm_debug_scene_free(g_mesh, &s);
  bmin[0] = NAN;
  CHECK(nm_debug_scene_make(g_mesh, bmin, bmax, &s) == NM_ERR_PARAM);
  CHECK(nm_debug_scene_make(g_mesh, bmin, NULL, &s) == NM_ERR_PARAM);
}

/* After findPath the pool holds the search tree: the goal's parent chain
 * is the corridor, reversed. */
TEST(node_pool_is_the_search_tree) {
  nm_query *q;
  nm_filter f;
  float ext[3] = {1, 4, 1}, a[3] = {1, 0, 1}, b[3] = {22, 0, 22}, sa[3], sb[3];
  nm_polyref sref, eref, path[64];
  nm_node_info ni;
  int n, i, goal = -1, k = 0;
  a[1] = fz_ground(a[0], a[2]);
  b[1] = fz_ground(b[0], b[2]);
  nm_filter_init(&f);
  CHECK(nm_query_new(g_mesh, 512, NULL, &q) == NM_OK);
  CHECK(nm_query_node_count(q) == 0);
  nm_query_find_nearest(q, a, ext, &f, &sref, sa, NULL);
  nm_query_find_nearest(q, b, ext, &f, &eref, sb, NULL);
  CHECK(nm_query_find_path(q, sref, eref, sa, sb, &f, path, 64, &n) >= 0);
  for (i = 0; i < nm_query_node_count(q); i++) {
    CHECK(nm_query_get_node(q, i, &ni) == NM_OK);
    if (ni.ref == eref) goal = i;
  }
  CHECK(goal >= 0);
  for (i = goal; i >= 0 && k < n; i = ni.parent, k++) {
    nm_query_get_node(q, i, &ni);
    CHECK(ni.ref == path[n - 1 - k]);
  }
  CHECK(k == n && ni.parent == -1);
  CHECK(nm_query_get_node(q, -1, &ni) == NM_ERR_PARAM);
  CHECK(nm_query_get_node(q, nm_query_node_count(q), &ni) == NM_ERR_PARAM);
  nm_query_free(q);
}

/* Every allocation of the OBJ writer and the scene failing in turn gives
 * ERR_NOMEM and leaves nothing allocated; the mesh's allocator is used. */
TEST(allocation_failures) {
  int what;
  for (what = 0; what < 2; what++) {
    track tr;
    nm_alloc a = {track_fn, &tr};
    nm_navmesh *m;
    long n, nomem = 0, runs = 0;
    memset(&tr, 0, sizeof tr);
    CHECK(fz_fixture_mesh_a(&a, &m) == NM_OK);
    nm_navmesh_island_count(m); /* the labels now: their allocation is not the scene's */
    for (n = 1; n < 1000; n++) {
      long live = tr.live, before = tr.allocs;
      nm_status st;
      tr.fail_at = before + n;
      tr.failed = 0;
      if (what == 0) {
        void *text;
        size_t len;
        nm_obj_opts o;
        memset(&o, 0, sizeof o);
        o.detail = 1;
        if ((st = nm_navmesh_to_obj(m, &o, &text, &len)) == NM_OK) nm_free_bytes(m, text, len);
      } else {
        nm_debug_scene s;
        if ((st = nm_debug_scene_make(m, NULL, NULL, &s)) == NM_OK) nm_debug_scene_free(m, &s);
      }
      runs++;
      CHECK(tr.live == live && tr.bad_sizes == 0);
      if (!tr.failed) { CHECK(st == NM_OK); break; }
      CHECK(st == NM_ERR_NOMEM);
      nomem++;
    }
    printf("# %s: %ld allocations failed in turn, each ERR_NOMEM\n", what ? "nm_debug_scene_make" : "nm_navmesh_to_obj", nomem);
    CHECK(nomem >= 1 && runs == nomem + 1);
    tr.fail_at = 0;
    nm_navmesh_release(m);
    CHECK(tr.live == 0);
  }
}

int main(void) {
  if (fz_fixture_mesh(&g_mesh) != NM_OK) {
    printf("not ok 1 - fixture\n1..1\n");
    return 1;
  }
  RUN(poly_detail_covers_polygons);
  RUN(poly_detail_truncates_and_checks);
  RUN(obj_reads_back);
  RUN(obj_box_and_bad_args);
  RUN(scene_counts);
  RUN(node_pool_is_the_search_tree);
  RUN(allocation_failures);
  nm_navmesh_release(g_mesh);
  return tap_done();
}
