/* fuzz_obstacles.c -- obstacle request sequences on a generated tile cache
 * (spec/c/cache_level.h, 2 x 2 tiles and a platform). The input is a list
 * of operations: add (kind, shape, area: any coordinates, NaN and huge ones
 * included), remove or move an obstacle picked from the live list or by a
 * raw id, update with a budget. Invariants: every status is one the API
 * documents for the call; ids are salt << 16 | slot; whatever happened,
 * removing every obstacle and updating until done gives back the very
 * tiles of the fresh load (contents apart from links). Inputs of odd
 * length run with the navmesh published as versions
 * (nm_cache_use_versions), the first version kept and checked after. */
#include "fuzz.h"
#include "../c/cache_level.h"
#include "../c/cache_util.h"

#define FZ_MAX_LIVE 96

/* An obstacle shape from the input. */
static void read_shape(fz_reader *r, nm_obstacle *ob) {
  const int k = fz_u8(r);
  memset(ob, 0, sizeof *ob);
  ob->kind = k & 7; /* 4..7: an unknown kind */
  ob->area = (k >> 3) & 1 ? fz_u8(r) % 70 : 0;
  fz_point(r, ob->pos);
  ob->radius = fz_coord(r);
  ob->height = fz_coord(r);
  fz_point(r, ob->bmin);
  fz_point(r, ob->bmax);
  fz_point(r, ob->center);
  fz_point(r, ob->half_extents);
  ob->yaw = fz_coord(r);
  ob->hmin = fz_coord(r);
  ob->hmax = fz_coord(r);
}

/* Runs the operations; live holds the ids of live obstacles. */
static void run_ops(nm_cache *c, fz_reader *r, uint32_t *live, int *nlive) {
  static float verts[3 * 80];
  int ops = 0;
  while (fz_left(r) && ops++ < 200) {
    const int op = fz_u8(r) % 5;
    nm_obstacle ob;
    uint32_t id = 0;
    nm_status st;
    int i, done = 0, k = 0;
    if (op == 0 || op == 3) {
      read_shape(r, &ob);
      ob.nverts = fz_u8(r) % 80;
      for (i = 0; i < ob.nverts; i++) fz_point(r, &verts[i * 3]);
      ob.verts = verts;
    }
    if (op == 0) {
      st = nm_cache_add_obstacle(c, &ob, &id);
      FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM || st == NM_ERR_FULL);
      FZ_CHECK(st != NM_OK || ((id & 0xffff) < 64 && (id >> 16) >= 1));
      if (st == NM_OK && *nlive < FZ_MAX_LIVE) live[(*nlive)++] = id;
      else if (st == NM_OK) nm_cache_remove_obstacle(c, id);
    } else if (op == 1 || op == 3) {
      const int raw = fz_u8(r);
      const int pick = *nlive ? raw % *nlive : 0;
      id = raw >= 200 || !*nlive ? fz_u32(r) : live[pick];
      st = op == 1 ? nm_cache_remove_obstacle(c, id) : nm_cache_move_obstacle(c, id, &ob);
      FZ_CHECK(st == NM_OK || st == NM_ERR_PARAM || (op == 3 && st == NM_ERR_NOMEM));
      if (op == 1 && st == NM_OK)
        for (i = 0; i < *nlive; i++)
          if (live[i] == id) { live[i] = live[--*nlive]; break; }
    } else {
      st = nm_cache_update(c, fz_u8(r) % 4, &done, &k);
      FZ_CHECK(st == NM_OK || st == NM_ERR_DATA);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static uint8_t *tset;
  static size_t tlen;
  nm_cache *c = NULL;
  nm_navmesh *fresh = NULL, *kept = NULL;
  uint32_t live[FZ_MAX_LIVE];
  int nlive = 0, i, done = 0, guard = 0;
  fz_reader r;
  if (!tset) tset = cl_make_tset(2, 2, &tlen);
  FZ_CHECK(nm_cache_load(tset, tlen, NULL, NULL, NULL, &c) == NM_OK);
  FZ_CHECK(nm_navmesh_copy(nm_cache_navmesh(c), NULL, &fresh) == NM_OK);
  fz_init(&r, data, size);
  if (size % 2) { /* odd lengths: the navmesh published as versions, one of them kept */
    FZ_CHECK(nm_cache_use_versions(c, NULL) == NM_OK);
    kept = nm_cache_navmesh(c);
    nm_navmesh_retain(kept);
  }
  run_ops(c, &r, live, &nlive);
  fz_exercise(nm_cache_navmesh(c));
  if (kept) { /* the first version is as it was */
    FZ_CHECK(nm_navmesh_version_number(kept) == 1 && kept->ntiles == fresh->ntiles);
    fz_exercise(kept);
    nm_navmesh_release(kept);
  }
  for (i = 0; i < nlive; i++) nm_cache_remove_obstacle(c, live[i]); /* may be gone already */
  while (!done && guard++ < 1000) FZ_CHECK(nm_cache_update(c, 0, &done, NULL) >= 0);
  {
    const nm_navmesh *m = nm_cache_navmesh(c);
    FZ_CHECK(m->ntiles == fresh->ntiles);
    for (i = 0; i < fresh->top; i++) {
      const nm_tile *t = &fresh->tiles[i], *u;
      if (!t->header) continue;
      u = nm_navmesh_tile_at(m, t->header->x, t->header->y, t->header->layer);
      FZ_CHECK(u && same_tile(t, u));
    }
  }
  nm_navmesh_release(fresh);
  nm_cache_free(c);
  return 0;
}
