/* fuzz_query.c -- sequences of queries and tile edits on the fixture mesh.
 *
 * Each input loads the fixture (3 x 3 tiles, saved once as MSET bytes) and
 * decodes into up to 64 operations: nearest polygon, path, straight path
 * (crossings, inset, caps), closest point, boundary point, poly height,
 * filters, polygon flags/areas, adding (possibly damaged) and removing tiles,
 * islands, portals, freezing, and the toolbox (raycast, moveAlongSurface,
 * distanceToWall, area queries, random points, optimal, limited and sliced
 * paths).
 * Coordinates come from fz_coord (lattice, NaN, inf, huge), references from
 * polygons seen so far, from every polygon of the mesh, or raw 32-bit values.
 * Invariants: statuses known, returned refs valid, points finite, counts
 * within caps, failures leave counts at 0, consecutive path polygons share a
 * portal, a complete path joins polygons of one island. */
#include <float.h>
#include "fuzz.h"

/* The fixture, made once: MSET bytes and the nine tile blobs. */
static uint8_t *g_mset;
static size_t g_mset_len;
static void *g_tiles[FZ_GRID * FZ_GRID];
static size_t g_tile_size[FZ_GRID * FZ_GRID];

static void fixture_init(void) {
  nm_navmesh *m;
  void *bytes;
  int i;
  if (g_mset) return;
  FZ_CHECK(fz_fixture_mesh(&m) == NM_OK);
  FZ_CHECK(nm_navmesh_save(m, NM_FORMAT_MSET, &bytes, &g_mset_len) == NM_OK);
  g_mset = fz_copy((const uint8_t *)bytes, g_mset_len);
  nm_free_bytes(m, bytes, g_mset_len);
  nm_navmesh_release(m);
  for (i = 0; i < FZ_GRID * FZ_GRID; i++)
    FZ_CHECK(fz_fixture_tile(i % FZ_GRID, i / FZ_GRID, &g_tiles[i], &g_tile_size[i]) == NM_OK);
}

/* Per-input state. */
typedef struct qstate {
  fz_reader r;
  nm_navmesh *m;
  nm_query *q;
  nm_filter f;
  nm_polyref seen[16];
  int nseen;
  nm_polyref path[256];
  int npath;
} qstate;

static void remember(qstate *s, nm_polyref ref) {
  s->seen[s->nseen++ % 16] = ref;
}

/* A reference: one seen, the k-th polygon of the mesh, 0, or raw bits. */
typedef struct nth_cb { int k; nm_polyref ref; } nth_cb;
static void nth_poly(void *ud, nm_polyref ref) {
  nth_cb *c = (nth_cb *)ud;
  if (c->k-- == 0) c->ref = ref;
}
static nm_polyref pick_ref(qstate *s) {
  const uint8_t b = fz_u8(&s->r);
  if (b < 96 && s->nseen) return s->seen[b % (s->nseen < 16 ? s->nseen : 16)];
  if (b < 224) {
    nth_cb c;
    c.k = fz_u8(&s->r);
    c.ref = 0;
    nm_navmesh_foreach_poly(s->m, nth_poly, &c);
    return c.ref;
  }
  if (b < 240) return 0;
  return fz_u32(&s->r);
}

/* Half extents: small lattice values, or hostile ones. */
static void pick_ext(qstate *s, float *ext) {
  const uint8_t b = fz_u8(&s->r);
  if (b < 200) {
    ext[0] = ext[2] = 0.5f + (b % 16);
    ext[1] = 0.5f + (b / 16) % 8;
  } else {
    fz_point(&s->r, ext);
  }
}

static void op_nearest(qstate *s) {
  float c[3], ext[3], pt[3] = {0, 0, 0};
  nm_polyref ref = 1;
  int over = -1;
  nm_status st;
  fz_point(&s->r, c);
  pick_ext(s, ext);
  st = nm_query_find_nearest(s->q, c, ext, &s->f, &ref, pt, &over);
  FZ_CHECK(st == NM_OK || st == NM_ERR_NO_POLY || st == NM_ERR_PARAM);
  if (st < 0) {
    FZ_CHECK(ref == 0);
    return;
  }
  FZ_CHECK(nm_navmesh_is_valid_ref(s->m, ref) && fz_finite3(pt) && (over == 0 || over == 1));
  remember(s, ref);
}

static void op_path(qstate *s) {
  const nm_polyref a = pick_ref(s), b = pick_ref(s);
  float p0[3], p1[3];
  int cap = 1 + fz_u8(&s->r), n = -1, i;
  nm_status st;
  fz_point(&s->r, p0);
  fz_point(&s->r, p1);
  if (cap > 256) cap = 256;
  st = nm_query_find_path(s->q, a, b, p0, p1, &s->f, s->path, cap, &n);
  FZ_CHECK(fz_status_known(st));
  if (st < 0) {
    FZ_CHECK(n == 0);
    s->npath = 0;
    return;
  }
  FZ_CHECK(n >= 1 && n <= cap && s->path[0] == a);
  for (i = 0; i < n; i++) FZ_CHECK(nm_navmesh_is_valid_ref(s->m, s->path[i]));
  if (!(st & (NM_PARTIAL | NM_TRUNCATED))) {
    FZ_CHECK(s->path[n - 1] == b);
    FZ_CHECK(nm_navmesh_is_reachable(s->m, a, b)); /* a path exists: same island */
  }
  for (i = 0; i + 1 < n; i++) { /* consecutive polygons are neighbours */
    float l[3], r[3];
    FZ_CHECK(nm_query_portal_points(s->q, s->path[i], s->path[i + 1], l, r) == NM_OK);
    FZ_CHECK(fz_finite3(l) && fz_finite3(r));
  }
  s->npath = n;
  remember(s, s->path[n - 1]);
}

static void op_straight(qstate *s) {
  nm_straight_opts o;
  nm_polyref path[256], refs[64];
  float p0[3], p1[3], pts[64 * 3];
  uint8_t flags[64];
  const uint8_t how = fz_u8(&s->r);
  int n = -1, cap = 1 + fz_u8(&s->r) % 64, np, i;
  nm_status st;
  fz_point(&s->r, p0);
  fz_point(&s->r, p1);
  o.crossings = (int)(how % 4); /* 3: out of range */
  o.inset = (how & 4) ? fz_coord(&s->r) : 0.0f;
  if ((how & 8) || s->npath == 0) { /* a made-up corridor */
    np = fz_u8(&s->r) % 12;
    for (i = 0; i < np; i++) path[i] = pick_ref(s);
  } else {
    np = s->npath;
    memcpy(path, s->path, sizeof(nm_polyref) * (size_t)np);
  }
  st = nm_query_straight_path(s->q, p0, p1, path, np, &o, pts, (how & 16) ? NULL : flags,
                              (how & 32) ? NULL : refs, cap, &n);
  fz_check_straight(s->m, st, pts, (how & 16) ? NULL : flags, (how & 32) ? NULL : refs, n, cap);
}

static void op_point(qstate *s, int which) {
  const nm_polyref ref = pick_ref(s);
  float p[3], out[3], h;
  int over = -1;
  nm_status st;
  fz_point(&s->r, p);
  if (which == 0) {
    st = nm_query_closest_point(s->q, ref, p, out, &over);
    FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM);
    if (st == NM_OK) FZ_CHECK(fz_finite3(out) && (over == 0 || over == 1));
  } else if (which == 1) {
    st = nm_query_closest_point_boundary(s->q, ref, p, out);
    FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM);
    if (st == NM_OK) FZ_CHECK(fz_finite3(out));
  } else {
    st = nm_query_poly_height(s->q, ref, p, &h);
    FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM || st == NM_ERR_NO_POLY);
    if (st == NM_OK) FZ_CHECK(isfinite(h));
  }
  if (st == NM_OK) FZ_CHECK(nm_navmesh_is_valid_ref(s->m, ref));
}

static void op_filter(qstate *s) {
  static const float costs[8] = {0.0f, 0.5f, 1.0f, 2.0f, 10.0f, 1e6f, 1e30f, 3e38f};
  const uint8_t k = fz_u8(&s->r);
  s->f.include_flags = fz_u16(&s->r);
  s->f.exclude_flags = fz_u16(&s->r);
  s->f.area_cost[k % NM_MAX_AREAS] = costs[(k >> 6) | ((fz_u8(&s->r) & 1) << 2)];
}

static void op_poly_attr(qstate *s) {
  const nm_polyref ref = pick_ref(s);
  const uint8_t b = fz_u8(&s->r);
  const uint16_t v = fz_u16(&s->r);
  const int valid = nm_navmesh_is_valid_ref(s->m, ref);
  nm_status st;
  const int frozen = nm_navmesh_is_frozen(s->m);
  if (b & 1) {
    st = nm_navmesh_set_poly_flags(s->m, ref, v);
    FZ_CHECK(st == (frozen ? NM_ERR_READONLY : valid ? NM_OK : NM_ERR_PARAM));
  } else {
    st = nm_navmesh_set_poly_area(s->m, ref, (uint8_t)v);
    FZ_CHECK(frozen ? st == NM_ERR_READONLY : st == (valid && (uint8_t)v < NM_MAX_AREAS ? NM_OK : NM_ERR_PARAM));
  }
}

/* Adds a fixture tile, sometimes with a few bytes changed. */
static void op_add_tile(qstate *s) {
  const uint8_t b = fz_u8(&s->r);
  const int k = b % (FZ_GRID * FZ_GRID), nflips = (b >> 4) % 8;
  uint8_t *blob = fz_copy((const uint8_t *)g_tiles[k], g_tile_size[k]);
  nm_polyref ref = 0;
  nm_diag d;
  nm_status st;
  int i;
  for (i = 0; i < nflips; i++) {
    const uint16_t at = fz_u16(&s->r);
    blob[at % g_tile_size[k]] ^= fz_u8(&s->r);
  }
  st = nm_navmesh_add_tile(s->m, blob, g_tile_size[k], &d, &ref);
  if (nm_navmesh_is_frozen(s->m)) FZ_CHECK(st == NM_ERR_READONLY);
  else FZ_CHECK(st == NM_OK || st == NM_ERR_DATA || st == NM_ERR_FULL || st == NM_ERR_NOMEM);
  if (st == NM_OK) FZ_CHECK(ref != 0);
  free(blob);
}

static void op_remove_tile(qstate *s) {
  const int tx = (int8_t)fz_u8(&s->r) % 5, ty = (int8_t)fz_u8(&s->r) % 5, keep = fz_u8(&s->r) & 1;
  const nm_polyref had = nm_navmesh_tile_ref_at(s->m, tx, ty, 0);
  void *data = NULL;
  size_t size = 0;
  nm_status st = nm_navmesh_remove_tile(s->m, tx, ty, 0, keep ? &data : NULL, keep ? &size : NULL);
  if (nm_navmesh_is_frozen(s->m)) FZ_CHECK(st == NM_ERR_READONLY && data == NULL);
  else FZ_CHECK(st == (had ? NM_OK : NM_ERR_PARAM) || st == NM_ERR_NOMEM);
  if (st == NM_OK) {
    FZ_CHECK(nm_navmesh_tile_ref_at(s->m, tx, ty, 0) == 0 && !nm_navmesh_is_valid_ref(s->m, had));
    if (keep) FZ_CHECK(data != NULL && size > 0);
  }
  if (data) nm_free_bytes(s->m, data, size);
}

/* Islands: labels within 1..count for valid refs, 0 otherwise. */
static void op_islands(qstate *s) {
  const nm_polyref a = pick_ref(s), b = pick_ref(s);
  const uint32_t ia = nm_navmesh_island(s->m, a);
  const int count = nm_navmesh_island_count(s->m), reach = nm_navmesh_is_reachable(s->m, a, b);
  FZ_CHECK(count >= 0);
  if (!nm_navmesh_is_valid_ref(s->m, a)) FZ_CHECK(ia == 0 && !reach);
  else FZ_CHECK(ia <= (uint32_t)count);
  if (reach) FZ_CHECK(nm_navmesh_is_valid_ref(s->m, b) && ia != 0);
  if (a == b && ia != 0) FZ_CHECK(reach);
}

/* The portal between two polygons: both valid neighbours, or ERR_PARAM. */
static void op_portal(qstate *s) {
  const nm_polyref a = pick_ref(s), b = pick_ref(s);
  float l[3], r[3];
  const nm_status st = nm_query_portal_points(s->q, a, b, l, r);
  FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM);
  if (st == NM_OK)
    FZ_CHECK(nm_navmesh_is_valid_ref(s->m, a) && nm_navmesh_is_valid_ref(s->m, b) && fz_finite3(l) &&
             fz_finite3(r));
}

/* Freezes the mesh (rarely): edits then fail with ERR_READONLY. */
static void op_freeze(qstate *s) {
  const nm_status st = nm_navmesh_freeze(s->m);
  void *data = NULL;
  size_t size = 0;
  FZ_CHECK(st == NM_OK || st == NM_ERR_NOMEM);
  FZ_CHECK(nm_navmesh_is_frozen(s->m));
  FZ_CHECK(nm_navmesh_remove_tile(s->m, 0, 0, 0, &data, &size) == NM_ERR_READONLY && data == NULL);
  FZ_CHECK(nm_navmesh_add_tile(s->m, g_tiles[0], g_tile_size[0], NULL, NULL) == NM_ERR_READONLY);
}

/* ---- the toolbox: raycast, moveAlongSurface, distanceToWall, area
 * queries, random points, optimal paths, sliced search ---- */

static void check_refs(qstate *s, nm_status st, const nm_polyref *refs, int n, int cap) {
  int i;
  FZ_CHECK(fz_status_known(st));
  if (st < 0) return;
  FZ_CHECK(n >= 0 && n <= cap);
  for (i = 0; i < n; i++) FZ_CHECK(nm_navmesh_is_valid_ref(s->m, refs[i]));
}

static void op_raycast_move(qstate *s) {
  const nm_polyref a = pick_ref(s);
  const uint8_t how = fz_u8(&s->r);
  float p0[3], p1[3], t = -1, nrm[3], res[3];
  nm_polyref refs[32];
  int n = -1, cap = 1 + how % 32;
  nm_status st;
  fz_point(&s->r, p0);
  fz_point(&s->r, p1);
  if (how & 32) {
    st = nm_query_move_along_surface(s->q, a, p0, p1, &s->f, res, refs, cap, &n);
    check_refs(s, st, refs, n, cap);
    if (st >= 0) FZ_CHECK(fz_finite3(res));
  } else {
    st = nm_query_raycast(s->q, a, p0, p1, &s->f, &t, nrm, refs, cap, &n);
    check_refs(s, st, refs, n, cap);
    if (st >= 0) FZ_CHECK(fz_finite3(nrm) && (t == FLT_MAX || (t >= 0 && t <= 1)));
  }
}

static void op_around(qstate *s) {
  const nm_polyref a = pick_ref(s);
  const uint8_t how = fz_u8(&s->r);
  float c[3], radius = fz_coord(&s->r), dist, hit[3], nrm[3], costs[48], pt[3], shape[4 * 3];
  nm_polyref refs[48], parents[48], got = 0;
  int n = -1, cap = 1 + how % 48, found, i;
  nm_status st;
  fz_point(&s->r, c);
  switch ((how >> 6) | ((fz_u8(&s->r) & 1) << 2)) {
    case 0:
      st = nm_query_distance_to_wall(s->q, a, c, radius, &s->f, &dist, hit, nrm, &found);
      FZ_CHECK(fz_status_known(st));
      if (st >= 0 && !(isfinite(dist) && fz_finite3(hit) && fz_finite3(nrm)))
        fprintf(stderr, "distanceToWall(%#x, %g %g %g, r %g): dist %g hit %g %g %g normal %g %g %g\n",
                (unsigned)a, c[0], c[1], c[2], radius, dist, hit[0], hit[1], hit[2], nrm[0], nrm[1], nrm[2]);
      if (st >= 0) FZ_CHECK(isfinite(dist) && fz_finite3(hit) && fz_finite3(nrm));
      break;
    case 1:
      st = nm_query_polys_around_circle(s->q, a, c, radius, &s->f, refs, parents, costs, cap, &n);
      check_refs(s, st, refs, n, cap);
      break;
    case 2:
      st = nm_query_local_neighbourhood(s->q, a, c, radius, &s->f, refs, parents, cap, &n);
      check_refs(s, st, refs, n, cap);
      break;
    case 3:
      st = nm_query_random_point_around(s->q, a, c, radius, &s->f, &got, pt);
      FZ_CHECK(fz_status_known(st));
      if (st >= 0) FZ_CHECK(nm_navmesh_is_valid_ref(s->m, got) && fz_finite3(pt));
      break;
    case 4:
      for (i = 0; i < 4; i++) fz_point(&s->r, &shape[i * 3]);
      st = nm_query_polys_around_shape(s->q, a, shape, 3 + (how & 1), &s->f, refs, NULL, NULL, cap, &n);
      check_refs(s, st, refs, n, cap);
      break;
    default: {
      float ext[3];
      pick_ext(s, ext);
      st = nm_query_polygons(s->q, c, ext, &s->f, refs, cap, &n);
      check_refs(s, st, refs, n, cap);
    }
  }
}

static void op_walls_random(qstate *s) {
  const nm_polyref a = pick_ref(s);
  const uint8_t how = fz_u8(&s->r);
  float segs[192 * 6], pt[3];
  nm_polyref refs[192], got = 0;
  int n = -1, cap = 1 + how % 192, i;
  nm_status st;
  if (how & 1) {
    nm_query_seed(s->q, how);
    st = nm_query_random_point(s->q, &s->f, &got, pt);
    FZ_CHECK(st == NM_OK || st == NM_ERR_NO_POLY || st == NM_ERR_NOMEM);
    if (st == NM_OK) FZ_CHECK(nm_navmesh_is_valid_ref(s->m, got) && fz_finite3(pt));
    return;
  }
  st = nm_query_wall_segments(s->q, a, &s->f, segs, (how & 2) ? NULL : refs, cap, &n);
  FZ_CHECK(fz_status_known(st));
  if (st < 0) return;
  FZ_CHECK(n >= 0 && n <= cap);
  for (i = 0; i < n; i++) {
    FZ_CHECK(fz_finite3(&segs[i * 6]) && fz_finite3(&segs[i * 6 + 3]));
    if (!(how & 2)) FZ_CHECK(refs[i] == 0 || nm_navmesh_is_valid_ref(s->m, refs[i]));
  }
}

/* Optimal paths (corridor or points), limited and sliced A*. */
static void op_other_paths(qstate *s) {
  const nm_polyref a = pick_ref(s), b = pick_ref(s);
  const uint8_t how = fz_u8(&s->r);
  float p0[3], p1[3], pts[64 * 3];
  nm_polyref refs[64];
  int n = -1, cap = 1 + how % 64, i, done;
  nm_status st;
  fz_point(&s->r, p0);
  fz_point(&s->r, p1);
  switch (how >> 6) {
    case 0:
      st = nm_query_find_path_optimal(s->q, a, b, p0, p1, &s->f, refs, cap, &n);
      check_refs(s, st, refs, n, cap);
      break;
    case 1:
      st = nm_query_path_optimal(s->q, a, b, p0, p1, &s->f, pts, refs, cap, &n);
      check_refs(s, st, refs, n, cap);
      for (i = 0; st >= 0 && i < n; i++) FZ_CHECK(fz_finite3(&pts[i * 3]));
      break;
    case 2:
      st = nm_query_find_path_limited(s->q, a, b, p0, p1, &s->f, 1 + fz_u8(&s->r), refs, cap, &n);
      check_refs(s, st, refs, n, cap);
      break;
    default:
      st = nm_query_find_path_begin(s->q, a, b, p0, p1, &s->f);
      FZ_CHECK(fz_status_known(st));
      for (i = 0; i < 4; i++) {
        st = nm_query_find_path_step(s->q, 1 + fz_u8(&s->r) % 16, &done);
        FZ_CHECK(fz_status_known(st));
      }
      st = nm_query_find_path_end(s->q, refs, cap, &n);
      check_refs(s, st, refs, n, cap);
  }
}

static void run_ops(qstate *s) {
  int nops = 0;
  while (fz_left(&s->r) && nops++ < 64) {
    const uint8_t op = fz_u8(&s->r);
    if (op == 0xff) { op_freeze(s); continue; }
    switch (op % 18) {
      case 0: case 1: op_nearest(s); break;
      case 2: case 3: op_path(s); break;
      case 4: op_straight(s); break;
      case 5: op_point(s, 0); break;
      case 6: op_point(s, 1); break;
      case 7: op_point(s, 2); break;
      case 8: op_filter(s); break;
      case 9: op_poly_attr(s); break;
      case 10: op_add_tile(s); break;
      case 11: op_remove_tile(s); break;
      case 12: op_islands(s); break;
      case 13: op_portal(s); break;
      case 14: op_raycast_move(s); break;
      case 15: op_around(s); break;
      case 16: op_walls_random(s); break;
      default: op_other_paths(s); break;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  qstate s;
  static const int nodes[4] = {1, 8, 64, 2048};
  fixture_init();
  memset(&s, 0, sizeof s);
  fz_init(&s.r, data, size);
  FZ_CHECK(nm_navmesh_load(g_mset, g_mset_len, NULL, NULL, &s.m) == NM_OK);
  FZ_CHECK(nm_query_new(s.m, nodes[fz_u8(&s.r) % 4], NULL, &s.q) == NM_OK);
  nm_filter_init(&s.f);
  run_ops(&s);
  nm_query_free(s.q);
  nm_navmesh_release(s.m);
  return 0;
}
