/* side_ours.h -- this library's side of the query benchmarks (pairs.cpp):
 * one shared navmesh, the oracle's query points as inputs, and one pass of
 * each timed job over all of them. side_detour.h is Detour's side, job for
 * job the same calls on the same inputs.
 *
 * Jobs: SIDE_NEAREST (findNearestPoly at both ends of each case),
 * SIDE_PATH (findPath between the nearest polygons), SIDE_STRAIGHT
 * (findStraightPath over each corridor, its end clamped onto the last
 * polygon of a partial one as the oracle does), SIDE_SEQUENCE (the three in
 * a row from the raw points), SIDE_LOAD (the mesh from the file's bytes,
 * then freed), then SIDE_TOOLBOX + k for tb_queries[k] on the toolbox
 * cases (toolbox_cases.h). Include cases.h and toolbox_cases.h first. */
#ifndef NM_BENCH_SIDE_OURS_H
#define NM_BENCH_SIDE_OURS_H
#include "navmesh.h"

#define SIDE_MAXP 4096
#define SIDE_BUF 4096
enum { SIDE_NEAREST, SIDE_PATH, SIDE_STRAIGHT, SIDE_SEQUENCE, SIDE_LOAD, SIDE_TOOLBOX };

static const char *const side_jobs[] = {"findNearestPoly", "findPath", "findStraightPath", "sequence",
                                        "load (MSET bytes)", NULL};
static const float side_ext[3] = {2, 4, 2};

/* Per-case inputs found once: nearest refs and points, corridor, end. */
typedef struct ours_prep {
  nm_polyref sref, eref, path[SIDE_MAXP];
  float s[3], e[3], end[3];
  int npath;
} ours_prep;

typedef struct ours_side {
  nm_navmesh *mesh;
  nm_query *q;
  nm_filter f;
  bench_case *c; /* the oracle's start and end points */
  ours_prep *p;
  int n;
  unsigned char *bytes; /* the mesh file */
  size_t len;
  tb_case tc[TB_MAX_CASES]; /* toolbox cases */
  int ntc;
  nm_polyref buf[SIDE_BUF], path[SIDE_MAXP];
  float costs[SIDE_BUF], segs[6 * 192], pts[3 * (2 * SIDE_MAXP + 2)];
  volatile float sink;
} ours_side;

/* Nearest polygons, corridor and straight-path end of every case. */
static void ours_prepare(ours_side *o) {
  int i;
  for (i = 0; i < o->n; i++) {
    ours_prep *p = &o->p[i];
    p->npath = 0;
    nm_query_find_nearest(o->q, o->c[i].start, side_ext, &o->f, &p->sref, p->s, NULL);
    nm_query_find_nearest(o->q, o->c[i].end, side_ext, &o->f, &p->eref, p->e, NULL);
    if (!p->sref || !p->eref) continue;
    nm_query_find_path(o->q, p->sref, p->eref, p->s, p->e, &o->f, p->path, SIDE_MAXP, &p->npath);
    memcpy(p->end, p->e, sizeof p->end);
    if (p->npath && p->path[p->npath - 1] != p->eref)
      nm_query_closest_point(o->q, p->path[p->npath - 1], p->e, p->end, NULL);
  }
}

/* Loads mesh `name` of the shared directory and its cases (node pool 65535
 * for the large worlds, 2048 otherwise, as the oracle); 0 on failure. */
static int ours_open(ours_side *o, const char *shared, const char *name) {
  char path[1024];
  int large = strstr(name, "city") || strstr(name, "maze"), st;
  memset(o, 0, sizeof *o);
  snprintf(path, sizeof path, "%s/oracle/%s.jsonl", shared, name);
  if (!(o->n = bench_read_cases(path, &o->c))) return 0;
  o->ntc = tb_load_cases(path, o->tc);
  snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, name);
  if (!(o->bytes = bench_read_file(path, &o->len))) return 0;
  st = nm_navmesh_load(o->bytes, o->len, NULL, NULL, &o->mesh);
  if (st < 0 || nm_query_new(o->mesh, large ? 65535 : 2048, NULL, &o->q) < 0) return 0;
  nm_filter_init(&o->f);
  nm_query_seed(o->q, 1);
  o->p = (ours_prep *)calloc((size_t)o->n, sizeof *o->p);
  if (!o->p) return 0;
  ours_prepare(o);
  return 1;
}

static void ours_close(ours_side *o) {
  free(o->bytes);
  free(o->p);
  free(o->c);
  nm_query_free(o->q);
  nm_navmesh_release(o->mesh);
  memset(o, 0, sizeof *o);
}

/* Calls one pass of job k makes. */
static int ours_calls(const ours_side *o, int k) {
  int i, n = 0;
  if (k == SIDE_NEAREST) return 2 * o->n;
  if (k == SIDE_SEQUENCE) return o->n;
  if (k == SIDE_LOAD) return 1;
  if (k >= SIDE_TOOLBOX) return o->ntc;
  for (i = 0; i < o->n; i++) n += k == SIDE_PATH ? o->p[i].sref && o->p[i].eref : o->p[i].npath > 0;
  return n;
}

/* The whole job of one case: both nearest polygons, corridor, path. */
static void ours_sequence(ours_side *o, const bench_case *c) {
  nm_polyref sref, eref;
  float s[3], e[3];
  int np, ns;
  if (nm_query_find_nearest(o->q, c->start, side_ext, &o->f, &sref, s, NULL) < 0) return;
  if (nm_query_find_nearest(o->q, c->end, side_ext, &o->f, &eref, e, NULL) < 0) return;
  if (nm_query_find_path(o->q, sref, eref, s, e, &o->f, o->path, SIDE_MAXP, &np) < 0 || !np) return;
  if (o->path[np - 1] != eref) nm_query_closest_point(o->q, o->path[np - 1], e, e, NULL);
  nm_query_straight_path(o->q, s, e, o->path, np, NULL, o->pts, NULL, NULL, 2 * SIDE_MAXP + 2, &ns);
}

/* Toolbox query k on case c (the inputs of toolbox_cases.h). */
static void ours_toolbox(ours_side *o, int k, const tb_case *c) {
  float t, v[3], w[3], d, sq[12];
  nm_polyref r;
  int n = 0, found;
  switch (k) {
  case 0: nm_query_raycast(o->q, c->sref, c->s, c->e, &o->f, &t, v, o->buf, SIDE_BUF, &n); o->sink += t; break;
  case 1:
    tb_derived(c, w, sq);
    nm_query_move_along_surface(o->q, c->sref, c->s, w, &o->f, v, o->buf, 64, &n);
    break;
  case 2: nm_query_distance_to_wall(o->q, c->sref, c->s, 5, &o->f, &d, v, w, &found); o->sink += d; break;
  case 3: nm_query_random_point(o->q, &o->f, &r, v); break;
  case 4: nm_query_random_point_around(o->q, c->sref, c->s, 5, &o->f, &r, v); break;
  case 5: nm_query_polys_around_circle(o->q, c->sref, c->s, 5, &o->f, o->buf, NULL, o->costs, SIDE_BUF, &n); break;
  case 6:
    tb_derived(c, w, sq);
    nm_query_polys_around_shape(o->q, c->sref, sq, 4, &o->f, o->buf, NULL, o->costs, SIDE_BUF, &n);
    break;
  case 7: nm_query_local_neighbourhood(o->q, c->sref, c->s, 5, &o->f, o->buf, NULL, 64, &n); break;
  case 8: nm_query_polygons(o->q, c->s, side_ext, &o->f, o->buf, SIDE_BUF, &n); break;
  case 9: nm_query_wall_segments(o->q, c->sref, &o->f, o->segs, o->buf, 192, &n); break;
  case 10: nm_query_find_path(o->q, c->sref, c->eref, c->s, c->e, &o->f, o->buf, SIDE_BUF, &n); break;
  default:
    nm_query_find_path_begin(o->q, c->sref, c->eref, c->s, c->e, &o->f);
    while (nm_query_find_path_step(o->q, 64, NULL) == NM_UNFINISHED) {}
    nm_query_find_path_end(o->q, o->buf, SIDE_BUF, &n);
  }
  o->sink += (float)n;
}

/* One case of job k. */
static void ours_one(ours_side *o, int k, int i) {
  const ours_prep *p = &o->p[i];
  nm_polyref r;
  float pt[3];
  int n;
  switch (k) {
  case SIDE_NEAREST:
    nm_query_find_nearest(o->q, o->c[i].start, side_ext, &o->f, &r, pt, NULL);
    nm_query_find_nearest(o->q, o->c[i].end, side_ext, &o->f, &r, pt, NULL);
    break;
  case SIDE_PATH:
    if (p->sref && p->eref) nm_query_find_path(o->q, p->sref, p->eref, p->s, p->e, &o->f, o->path, SIDE_MAXP, &n);
    break;
  case SIDE_STRAIGHT:
    if (p->npath)
      nm_query_straight_path(o->q, p->s, p->end, p->path, p->npath, NULL, o->pts, NULL, NULL, 2 * SIDE_MAXP + 2, &n);
    break;
  default: ours_sequence(o, &o->c[i]);
  }
}

/* pair_pass for this library: `reps` passes of job k; seconds. */
static double ours_pass(void *side, int k, int reps) {
  ours_side *o = (ours_side *)side;
  const double t0 = pair_clock();
  int r, i;
  for (r = 0; r < reps; r++) {
    if (k == SIDE_LOAD) {
      nm_navmesh *m = NULL;
      nm_navmesh_load(o->bytes, o->len, NULL, NULL, &m);
      nm_navmesh_release(m);
    } else if (k >= SIDE_TOOLBOX)
      for (i = 0; i < o->ntc; i++) ours_toolbox(o, k - SIDE_TOOLBOX, &o->tc[i]);
    else
      for (i = 0; i < o->n; i++) ours_one(o, k, i);
  }
  return pair_clock() - t0;
}
#endif
