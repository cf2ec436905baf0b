/* test_cache_oracle.c -- the obstacle scenarios of
 * ../shared/oracle/tilecache replayed through the tile cache: after every
 * step the obstacle ids, the layers rebuilt (in order), their polygon
 * counts, the tile and polygon totals, and the step's query cases
 * (nearest polygon, corridor, straight path from Detour's corridor) are
 * compared with Detour's. Targets: every discrete step result equal;
 * nearest and corridors >= 99.5%, straight paths 100%. SKIP without
 * ../shared. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "json.h"
#include "navmesh.h"
#include "tilecache/nm_cache.h"
#include "cache_util.h"

static const char *g_shared = "../shared";

/* Agreement counts of one scenario. */
typedef struct tally {
  int steps, steps_ok, ids, ids_ok, rot_ok;
  int nearest, nearest_n, path, path_n, straight, straight_n;
  int final_bad;   /* tiles differing from {mesh}_final.bin (-1: not read) */
} tally;

static int near3(const float *a, const float *b) {
  return fabsf(a[0] - b[0]) <= 1e-4f && fabsf(a[1] - b[1]) <= 1e-4f && fabsf(a[2] - b[2]) <= 1e-4f;
}

/* ---- obstacles ---- */

/* The obstacle of a JSON object, as the oracle passed it to Detour. */
static void read_obstacle(const jdoc *d, int o, nm_obstacle *ob) {
  memset(ob, 0, sizeof *ob);
  if (j_str_eq(d, j_get(d, o, "kind"), "cylinder")) {
    ob->kind = NM_OBSTACLE_CYLINDER;
    j_floats(d, j_get(d, o, "pos"), ob->pos, 3);
    ob->radius = (float)j_num(d, j_get(d, o, "radius"));
    ob->height = (float)j_num(d, j_get(d, o, "height"));
  } else if (j_str_eq(d, j_get(d, o, "kind"), "box")) {
    ob->kind = NM_OBSTACLE_BOX;
    j_floats(d, j_get(d, o, "bmin"), ob->bmin, 3);
    j_floats(d, j_get(d, o, "bmax"), ob->bmax, 3);
  } else {
    ob->kind = NM_OBSTACLE_ORIENTED_BOX;
    j_floats(d, j_get(d, o, "center"), ob->center, 3);
    j_floats(d, j_get(d, o, "halfExtents"), ob->half_extents, 3);
    ob->yaw = (float)j_num(d, j_get(d, o, "yaw"));
  }
}

/* Requests the step's additions or removals; counts matching ids. */
static int step_requests(nm_cache *c, const jdoc *d, tally *t) {
  int k, ok = 1;
  for (k = d->n[j_get(d, 0, "obstacles")].first; k >= 0; k = d->n[k].next) {
    nm_obstacle ob;
    uint32_t id = 0;
    read_obstacle(d, k, &ob);
    ok &= nm_cache_add_obstacle(c, &ob, &id) == NM_OK;
    t->ids++;
    if (id == (uint32_t)j_num(d, j_get(d, k, "id"))) t->ids_ok++;
    else ok = 0;
    if (ob.kind == NM_OBSTACLE_ORIENTED_BOX) {
      float rot[2];
      const nm_cobstacle *o = &c->obs[id & 0xffff];
      j_floats(d, j_get(d, k, "rotAux"), rot, 2);
      t->rot_ok += o->rot_aux[0] == rot[0] && o->rot_aux[1] == rot[1];
    } else {
      t->rot_ok++;
    }
  }
  for (k = d->n[j_get(d, 0, "removed")].first; k >= 0; k = d->n[k].next)
    ok &= nm_cache_remove_obstacle(c, (uint32_t)j_num(d, k)) == NM_OK;
  return ok;
}

/* Polygons of the navmesh tile at (tx, ty, layer), 0 when none. */
static int tile_polys(const nm_navmesh *m, int tx, int ty, int layer) {
  const nm_tile *t = nm_navmesh_tile_at(m, tx, ty, layer);
  return t ? t->header->poly_count : 0;
}

/* Updates one layer at a time until up to date, comparing the rebuilt
 * layers with changedTiles; then the totals. 1 when all agree. */
static int step_updates(nm_cache *c, const jdoc *d, const char *name, int step) {
  const int changed = j_get(d, 0, "changedTiles");
  const nm_navmesh *m = nm_cache_navmesh(c);
  nm_navmesh_info info;
  int k = d->n[changed].first, n = 0, done = 0, ok = 1, guard = 0;
  while (!done && guard++ < 10000) {
    int rebuilt = 0;
    ok &= nm_cache_update(c, 1, &done, &rebuilt) == NM_OK;
    if (!rebuilt) continue;
    n++;
    {
      const nm_clayer *l = &c->layers[c->last_ref & ((1u << c->tile_bits) - 1)];
      float want[4];
      if (k < 0 || j_floats(d, k, want, 4) != 4 || l->h.tx != (int)want[0] || l->h.ty != (int)want[1] ||
          l->h.tlayer != (int)want[2]) {
        if (ok) printf("#   %s step %d: rebuild %d is layer (%d, %d, %d)\n", name, step, n, l->h.tx, l->h.ty, l->h.tlayer);
        ok = 0;
      }
      if (k >= 0) k = d->n[k].next;
    }
  }
  for (k = d->n[changed].first; k >= 0; k = d->n[k].next) {
    float want[4];
    j_floats(d, k, want, 4);
    if (tile_polys(m, (int)want[0], (int)want[1], (int)want[2]) != (int)want[3]) {
      if (ok) printf("#   %s step %d: layer (%g, %g, %g) has %d polys, Detour %g\n", name, step, want[0], want[1],
                     want[2], tile_polys(m, (int)want[0], (int)want[1], (int)want[2]), want[3]);
      ok = 0;
    }
  }
  nm_navmesh_get_info(m, &info);
  ok &= n == (int)j_num(d, j_get(d, 0, "tilesRebuilt"));
  ok &= info.tiles == (int)j_num(d, j_get(d, 0, "navTiles")) && info.polys == (int)j_num(d, j_get(d, 0, "polys"));
  if (!ok) printf("#   %s step %d: %d rebuilds (Detour %g), %d tiles, %d polys (Detour %g, %g)\n", name, step, n,
                  j_num(d, j_get(d, 0, "tilesRebuilt")), info.tiles, info.polys, j_num(d, j_get(d, 0, "navTiles")),
                  j_num(d, j_get(d, 0, "polys")));
  return ok;
}

/* ---- query cases ---- */

/* Nearest polygon of one end of a case. */
static void case_nearest(nm_query *q, const jdoc *d, int cs, const char *pt, const char *key, tally *t) {
  const float ext[3] = {2, 4, 2};
  const int o = j_get(d, cs, key);
  nm_filter f;
  float p[3], want[3], got[3];
  nm_polyref ref = 0;
  int over = 0;
  nm_filter_init(&f);
  j_floats(d, j_get(d, cs, pt), p, 3);
  nm_query_find_nearest(q, p, ext, &f, &ref, got, &over);
  t->nearest_n++;
  if (!d->n[j_get(d, o, "found")].num) {
    t->nearest += ref == 0;
    return;
  }
  j_floats(d, j_get(d, o, "pos"), want, 3);
  t->nearest += ref == (nm_polyref)j_num(d, j_get(d, o, "ref")) && near3(got, want) &&
                over == (int)j_num(d, j_get(d, o, "over_poly"));
}

/* Reads a JSON array of refs (at most cap). */
static int read_refs(const jdoc *d, int a, nm_polyref *out, int cap) {
  int k, n = 0;
  for (k = a >= 0 ? d->n[a].first : -1; k >= 0 && n < cap; k = d->n[k].next) out[n++] = (nm_polyref)d->n[k].num;
  return n;
}

/* Corridor of a case and the straight path along Detour's corridor. */
static void case_paths(nm_query *q, const jdoc *d, int cs, int cap, nm_polyref *buf, nm_polyref *want, tally *t) {
  const int path = j_get(d, cs, "path"), st = j_get(d, cs, "straight");
  const int ns = j_get(d, cs, "nearest_start"), ne = j_get(d, cs, "nearest_end");
  nm_filter f;
  float s[3], e[3];
  int n = 0, nw, i, ok;
  nm_status r;
  if (j_is_null(d, path)) return;
  nm_filter_init(&f);
  j_floats(d, j_get(d, ns, "pos"), s, 3);
  j_floats(d, j_get(d, ne, "pos"), e, 3);
  r = nm_query_find_path(q, (nm_polyref)j_num(d, j_get(d, ns, "ref")), (nm_polyref)j_num(d, j_get(d, ne, "ref")), s,
                         e, &f, buf, cap, &n);
  nw = read_refs(d, j_get(d, path, "polys"), want, cap);
  ok = r >= 0 && n == nw && ((r & NM_PARTIAL) != 0) == j_str_eq(d, j_get(d, path, "status"), "partial");
  for (i = 0; ok && i < n; i++) ok = buf[i] == want[i];
  t->path_n++;
  t->path += ok;
  if (j_is_null(d, st)) return;
  {
    float *pts = (float *)malloc(sizeof(float) * 3 * (size_t)cap), wp[3];
    uint8_t *flags = (uint8_t *)malloc((size_t)cap);
    nm_polyref *refs = (nm_polyref *)malloc(sizeof(nm_polyref) * (size_t)cap);
    int np = 0, k, wf;
    j_floats(d, j_get(d, st, "end_input"), e, 3);
    nm_query_straight_path(q, s, e, want, nw, NULL, pts, flags, refs, cap, &np);
    ok = np == (int)j_num(d, j_get(d, st, "npoints"));
    for (i = 0, k = d->n[j_get(d, st, "points")].first; ok && i < np; i++, k = d->n[k].next) {
      j_floats(d, k, wp, 3);
      wf = (int)j_num(d, j_at(d, j_get(d, st, "flags"), i));
      ok = near3(&pts[i * 3], wp) && flags[i] == wf &&
           refs[i] == (nm_polyref)j_num(d, j_at(d, j_get(d, st, "refs"), i));
    }
    t->straight_n++;
    t->straight += ok;
    free(pts);
    free(flags);
    free(refs);
  }
}

/* Runs the step's cases on the cache's navmesh. */
static void step_cases(nm_cache *c, const jdoc *d, int big, tally *t) {
  const int cap = big ? 4096 : 256;
  nm_query *q = NULL;
  nm_polyref *buf = (nm_polyref *)malloc(sizeof(nm_polyref) * (size_t)cap);
  nm_polyref *want = (nm_polyref *)malloc(sizeof(nm_polyref) * (size_t)cap);
  int k;
  nm_query_new(nm_cache_navmesh(c), big ? 65535 : 2048, NULL, &q);
  for (k = d->n[j_get(d, 0, "cases")].first; q && k >= 0; k = d->n[k].next) {
    case_nearest(q, d, k, "start", "nearest_start", t);
    case_nearest(q, d, k, "end", "nearest_end", t);
    case_paths(q, d, k, cap, buf, want, t);
  }
  nm_query_free(q);
  free(buf);
  free(want);
}

/* One scenario file: load the cache, replay every step. */
static void replay(const char *name, tally *t) {
  char path[512];
  size_t len, jlen;
  uint8_t *b, *text;
  nm_cache *c = NULL;
  jdoc d;
  char *line, *save = NULL;
  memset(t, 0, sizeof *t);
  memset(&d, 0, sizeof d);
  snprintf(path, sizeof path, "%s/tilecaches/%s.tset", g_shared, name);
  b = read_file(path, &len);
  snprintf(path, sizeof path, "%s/oracle/tilecache/%s.jsonl", g_shared, name);
  text = read_file(path, &jlen);
  CHECK(b && text);
  if (b && text && nm_cache_load(b, len, NULL, NULL, NULL, &c) == NM_OK) {
    for (line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      int ok;
      j_parse(&d, line);
      ok = step_requests(c, &d, t);
      ok &= step_updates(c, &d, name, t->steps);
      step_cases(c, &d, !strcmp(name, "city"), t);
      t->steps++;
      t->steps_ok += ok;
    }
  }
  if (c) { /* the end state against Detour's saved navmesh */
    uint8_t *fb;
    nm_navmesh *ref = NULL;
    int ntiles = 0;
    snprintf(path, sizeof path, "%s/oracle/tilecache/%s_final.bin", g_shared, name);
    fb = read_file(path, &len);
    if (fb && nm_navmesh_load(fb, len, NULL, NULL, &ref) == NM_OK)
      t->final_bad = compare_meshes(name, nm_cache_navmesh(c), ref, &ntiles);
    else
      t->final_bad = -1;
    nm_navmesh_release(ref);
    free(fb);
  }
  nm_cache_free(c);
  free(d.n);
  free(b);
  free(text);
}

static double pct(int a, int n) { return n ? 100.0 * a / n : 100.0; }

static void scenario(const char *name) {
  tally t;
  size_t n;
  char path[512];
  uint8_t *probe;
  snprintf(path, sizeof path, "%s/oracle/tilecache/%s.jsonl", g_shared, name);
  if (!(probe = read_file(path, &n))) {
    printf("# SKIP %s scenario: %s not found\n", name, path);
    return;
  }
  free(probe);
  replay(name, &t);
  printf("# %-10s steps %d/%d, ids %d/%d, rotAux %d/%d, nearest %d/%d (%.2f%%), corridors %d/%d (%.2f%%), "
         "straight %d/%d (%.2f%%), final tiles differing %d\n",
         name, t.steps_ok, t.steps, t.ids_ok, t.ids, t.rot_ok, t.ids, t.nearest, t.nearest_n,
         pct(t.nearest, t.nearest_n), t.path, t.path_n, pct(t.path, t.path_n), t.straight, t.straight_n,
         pct(t.straight, t.straight_n), t.final_bad);
  CHECK(t.final_bad == 0);
  CHECK(t.steps > 0 && t.steps_ok == t.steps);
  CHECK(t.ids_ok == t.ids && t.rot_ok == t.ids);
  CHECK(pct(t.nearest, t.nearest_n) >= 99.5);
  CHECK(pct(t.path, t.path_n) >= 99.5);
  CHECK(t.straight == t.straight_n);
}

TEST(scenario_dungeon) { scenario("dungeon"); }
TEST(scenario_nav_test) { scenario("nav_test"); }
TEST(scenario_undulating) { scenario("undulating"); }
TEST(scenario_city) { scenario("city"); }

int main(int argc, char **argv) {
  if (argc > 1) g_shared = argv[1];
  RUN(scenario_dungeon);
  RUN(scenario_nav_test);
  RUN(scenario_undulating);
  RUN(scenario_city);
  return tap_done();
}
