/* links.c -- polygon adjacency ("links") of the runtime navmesh.
 *
 * Each tile owns an array of link slots (the blob's link section) threaded
 * into one list per polygon. Links are rebuilt whenever a tile is added; the
 * link bytes stored in files are never trusted. The order of creation follows
 * Detour (internal edges, off-mesh bases, then other layers and the eight
 * neighbour cells), and every link is pushed at the front of its list, so the
 * neighbour order seen by A* -- which decides ties -- equals Detour's.
 * Tile-border links join edges flagged as portals on opposite sides whose
 * X/Z extents overlap and whose heights meet within twice the climb height. */
#include <math.h>
#include "nm_mesh.h"

/* Threads all link slots of a tile into its free chain, in order 0, 1, ... */
void nm_links_init(nm_tile *t) {
  int i, n = t->header->max_link_count;
  for (i = 0; i < n; i++) t->links[i].next = (uint32_t)(i + 1);
  if (n > 0) t->links[n - 1].next = NM_NULL_LINK;
  t->links_free = n > 0 ? 0 : NM_NULL_LINK;
  for (i = 0; i < t->header->poly_count; i++) t->polys[i].first_link = NM_NULL_LINK;
}

/* Takes a free link slot, NM_NULL_LINK when the tile has none left. */
static uint32_t link_alloc(nm_tile *t) {
  uint32_t i = t->links_free;
  if (i != NM_NULL_LINK) t->links_free = t->links[i].next;
  return i;
}

/* Pushes a new link at the front of polygon p's list. */
static void link_push(nm_tile *t, nm_poly *p, nm_polyref ref, int edge, int side, int bmin, int bmax) {
  uint32_t i = link_alloc(t);
  nm_link *l;
  if (i == NM_NULL_LINK) return;
  l = &t->links[i];
  l->ref = ref;
  l->edge = (uint8_t)edge;
  l->side = (uint8_t)side;
  l->bmin = (uint8_t)bmin;
  l->bmax = (uint8_t)bmax;
  l->next = p->first_link;
  p->first_link = i;
}

void nm_links_connect_internal(nm_navmesh *m, nm_tile *t) {
  const nm_polyref base = nm_tile_base(m, t);
  int i, j;
  for (i = 0; i < t->header->poly_count; i++) {
    nm_poly *p = &t->polys[i];
    p->first_link = NM_NULL_LINK;
    if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) continue;
    /* backwards, so that front insertion leaves the list in edge order */
    for (j = p->vert_count - 1; j >= 0; j--) {
      if (p->neis[j] == 0 || (p->neis[j] & NM_EXT_LINK)) continue;
      link_push(t, p, base | (nm_polyref)(p->neis[j] - 1), j, 0xff, 0, 0);
    }
  }
}

/* ---- tile borders ---- */

/* The coordinate that is constant along a border of this side (x or z). */
static float slab_coord(const float *v, int side) {
  if (side == 0 || side == 4) return v[0];
  if (side == 2 || side == 6) return v[2];
  return 0;
}

/* An edge as a height profile along the border: (along, y) at both ends,
 * sorted by the along-border coordinate. A side that is no tile border
 * (odd: diagonal) gives an empty profile, which overlaps nothing. */
static void slab_ends(const float *va, const float *vb, float *bmin, float *bmax, int side) {
  const int ax = (side == 0 || side == 4) ? 2 : 0;
  if (side != 0 && side != 4 && side != 2 && side != 6) {
    bmin[0] = bmin[1] = bmax[0] = bmax[1] = 0;
    return;
  }
  if (va[ax] < vb[ax]) {
    bmin[0] = va[ax]; bmin[1] = va[1];
    bmax[0] = vb[ax]; bmax[1] = vb[1];
  } else {
    bmin[0] = vb[ax]; bmin[1] = vb[1];
    bmax[0] = va[ax]; bmax[1] = va[1];
  }
}

/* Do two border edges overlap along the border (each shortened by px at both
 * ends) and meet in height (cross, or within 2*py at one end)? */
static int slabs_overlap(const float *amin, const float *amax, const float *bmin, const float *bmax,
                         float px, float py) {
  const float minx = nm_maxf(amin[0] + px, bmin[0] + px);
  const float maxx = nm_minf(amax[0] - px, bmax[0] - px);
  float ad, ak, bd, bk, dmin, dmax, thr;
  if (minx > maxx) return 0;
  ad = (amax[1] - amin[1]) / (amax[0] - amin[0]);
  ak = amin[1] - ad * amin[0];
  bd = (bmax[1] - bmin[1]) / (bmax[0] - bmin[0]);
  bk = bmin[1] - bd * bmin[0];
  dmin = (bd * minx + bk) - (ad * minx + ak);
  dmax = (bd * maxx + bk) - (ad * maxx + ak);
  if (dmin * dmax < 0) return 1;
  thr = nm_sqr(py * 2);
  return dmin * dmin <= thr || dmax * dmax <= thr;
}

/* Polygons of tile t with a portal edge on `side` touching edge va-vb; their
 * refs in con[] and the overlapping interval in area[] (pairs). */
static int connecting_polys(const nm_navmesh *m, const float *va, const float *vb, const nm_tile *t,
                            int side, nm_polyref *con, float *area, int cap) {
  const uint16_t want = (uint16_t)(NM_EXT_LINK | (unsigned)side);
  const nm_polyref base = nm_tile_base(m, t);
  float amin[2], amax[2], bmin[2], bmax[2];
  const float apos = slab_coord(va, side);
  int i, j, n = 0;
  slab_ends(va, vb, amin, amax, side);
  for (i = 0; i < t->header->poly_count; i++) {
    const nm_poly *p = &t->polys[i];
    const int nv = p->vert_count;
    for (j = 0; j < nv; j++) {
      const float *vc, *vd;
      if (p->neis[j] != want) continue;
      vc = &t->verts[p->verts[j] * 3];
      vd = &t->verts[p->verts[(j + 1) % nv] * 3];
      if (fabsf(apos - slab_coord(vc, side)) > 0.01f) continue;
      slab_ends(vc, vd, bmin, bmax, side);
      if (!slabs_overlap(amin, amax, bmin, bmax, 0.01f, t->header->walkable_climb)) continue;
      if (n < cap) {
        area[n * 2 + 0] = nm_maxf(amin[0], bmin[0]);
        area[n * 2 + 1] = nm_minf(amax[0], bmax[0]);
        con[n++] = base | (nm_polyref)i;
      }
      break;
    }
  }
  return n;
}

/* The part [lo, hi] of edge va-vb (along the border axis) as 0..255 bytes. */
static void portal_limits(const float *va, const float *vb, int dir, float lo, float hi, int *bmin,
                          int *bmax) {
  const int ax = (dir == 0 || dir == 4) ? 2 : 0;
  float tmin = (lo - va[ax]) / (vb[ax] - va[ax]);
  float tmax = (hi - va[ax]) / (vb[ax] - va[ax]);
  if (tmin > tmax) { float s = tmin; tmin = tmax; tmax = s; }
  *bmin = (int)roundf(nm_clampf(tmin, 0.0f, 1.0f) * 255.0f);
  *bmax = (int)roundf(nm_clampf(tmax, 0.0f, 1.0f) * 255.0f);
}

void nm_links_connect_external(nm_navmesh *m, nm_tile *t, nm_tile *target, int side) {
  int i, j, k;
  for (i = 0; i < t->header->poly_count; i++) {
    nm_poly *p = &t->polys[i];
    const int nv = p->vert_count;
    for (j = 0; j < nv; j++) {
      nm_polyref nei[4];
      float neia[8];
      const float *va, *vb;
      int dir, nnei;
      if (!(p->neis[j] & NM_EXT_LINK)) continue;
      dir = p->neis[j] & 0xff;
      if (side != -1 && dir != side) continue;
      va = &t->verts[p->verts[j] * 3];
      vb = &t->verts[p->verts[(j + 1) % nv] * 3];
      nnei = connecting_polys(m, va, vb, target, (dir + 4) & 7, nei, neia, 4);
      for (k = 0; k < nnei; k++) {
        int bmin = 0, bmax = 255;
        if (dir == 0 || dir == 4 || dir == 2 || dir == 6)
          portal_limits(va, vb, dir, neia[k * 2], neia[k * 2 + 1], &bmin, &bmax);
        link_push(t, p, nei[k], j, dir, bmin, bmax);
      }
    }
  }
}

/* ---- off-mesh connections ---- */

/* Nearest ground polygon of tile t to center within half_ext, with the
 * "directly over within climb height" preference; 0 when none. */
nm_polyref nm_find_nearest_in_tile(const nm_navmesh *m, const nm_tile *t, const float *center,
                                   const float *half_ext, float *nearest) {
  const nm_polyref base = nm_tile_base(m, t);
  float qmin[3], qmax[3], best = FLT_MAX;
  nm_polyref found = 0;
  nm_box_iter it;
  int ip, n = 0;
  nm_vsub(qmin, center, half_ext);
  nm_vadd(qmax, center, half_ext);
  nm_box_begin(&it, t, qmin, qmax);
  while ((ip = nm_box_next(&it)) >= 0 && n++ < 128) {
    const nm_polyref ref = base | (nm_polyref)ip;
    float pt[3], diff[3], d;
    int over = 0;
    nm_closest_point_on_poly(m, ref, center, pt, &over);
    nm_vsub(diff, center, pt);
    if (over) {
      d = fabsf(diff[1]) - t->header->walkable_climb;
      d = d > 0 ? d * d : 0;
    } else {
      d = nm_vlen_sqr(diff);
    }
    if (d < best) {
      nm_vcopy(nearest, pt);
      best = d;
      found = ref;
    }
  }
  return found;
}

void nm_links_base_offmesh(nm_navmesh *m, nm_tile *t) {
  const nm_polyref base = nm_tile_base(m, t);
  int i;
  for (i = 0; i < t->header->offmesh_con_count; i++) {
    nm_offmesh_con *c = &t->offmesh[i];
    nm_poly *p = &t->polys[c->poly];
    const float ext[3] = {c->rad, t->header->walkable_climb, c->rad};
    float pt[3];
    nm_polyref ref = nm_find_nearest_in_tile(m, t, &c->pos[0], ext, pt);
    if (!ref) continue;
    if (nm_sqr(pt[0] - c->pos[0]) + nm_sqr(pt[2] - c->pos[2]) > nm_sqr(c->rad)) continue;
    nm_vcopy(&t->verts[p->verts[0] * 3], pt); /* snap the start onto the mesh */
    link_push(t, p, ref, 0, 0xff, 0, 0);
    link_push(t, &t->polys[nm_ref_poly(m, ref)], base | c->poly, 0xff, 0xff, 0, 0);
  }
}

void nm_links_connect_offmesh(nm_navmesh *m, nm_tile *t, nm_tile *target, int side) {
  const uint8_t opposite = side == -1 ? 0xff : (uint8_t)((side + 4) & 7);
  int i;
  for (i = 0; i < target->header->offmesh_con_count; i++) {
    nm_offmesh_con *c = &target->offmesh[i];
    nm_poly *tp = &target->polys[c->poly];
    const float ext[3] = {c->rad, target->header->walkable_climb, c->rad};
    float pt[3];
    nm_polyref ref;
    if (c->side != opposite || tp->first_link == NM_NULL_LINK) continue;
    ref = nm_find_nearest_in_tile(m, t, &c->pos[3], ext, pt);
    if (!ref) continue;
    if (nm_sqr(pt[0] - c->pos[3]) + nm_sqr(pt[2] - c->pos[5]) > nm_sqr(c->rad)) continue;
    nm_vcopy(&target->verts[tp->verts[1] * 3], pt); /* snap the end onto the mesh */
    link_push(target, tp, ref, 1, opposite, 0, 0);
    if (c->flags & NM_OFFMESH_BIDIR)
      link_push(t, &t->polys[nm_ref_poly(m, ref)], nm_tile_base(m, target) | c->poly, 0xff,
                side == -1 ? 0xff : side, 0, 0);
  }
}

void nm_links_unconnect(nm_navmesh *m, nm_tile *t, const nm_tile *target) {
  const uint32_t num = (uint32_t)(target - m->tiles);
  int i;
  for (i = 0; i < t->header->poly_count; i++) {
    nm_poly *p = &t->polys[i];
    uint32_t j = p->first_link, prev = NM_NULL_LINK;
    while (j != NM_NULL_LINK) {
      const uint32_t next = t->links[j].next;
      if (nm_ref_tile(m, t->links[j].ref) == num) {
        if (prev == NM_NULL_LINK) p->first_link = next;
        else t->links[prev].next = next;
        t->links[j].next = t->links_free;
        t->links_free = j;
      } else {
        prev = j;
      }
      j = next;
    }
  }
}

/* ---- which tiles a change writes to (drafts of versions) ---- */

int nm_side_towards(int dx, int dy) {
  static const int sx[8] = {1, 1, 0, -1, -1, -1, 0, 1}, sy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
  int i;
  for (i = 0; i < 8; i++)
    if (sx[i] == dx && sy[i] == dy) return i;
  return -1;
}

/* Side bits of a tile: its portal edges by direction (bits 0..7), its
 * off-mesh connections by the side their end lies on (8..15, 16 for the
 * same cell) and the same for the bidirectional ones (17..24, 25). */
uint32_t nm_links_side_mask(const nm_tile *t) {
  uint32_t mask = 0;
  int i, j;
  for (i = 0; i < t->header->offmesh_base; i++) {
    const nm_poly *p = &t->polys[i];
    for (j = 0; j < p->vert_count; j++)
      if (p->neis[j] & NM_EXT_LINK) mask |= 1u << (p->neis[j] & 7);
  }
  for (i = 0; i < t->header->offmesh_con_count; i++) {
    const nm_offmesh_con *c = &t->offmesh[i];
    const uint32_t bit = c->side == 0xff ? 8 : c->side;
    mask |= 1u << (8 + bit);
    if (c->flags & NM_OFFMESH_BIDIR) mask |= 1u << (17 + bit);
  }
  return mask;
}

/* Can linking tile t (side bits tmask) write into a neighbour (side bits
 * omask) whose direction towards t is `side` (-1: the same cell)? The
 * neighbour's portal edges facing t, its off-mesh connections ending
 * towards t, and t's bidirectional connections ending towards it are the
 * only ways the linking writes into it (the test is conservative). */
int nm_links_may_touch(uint32_t omask, uint32_t tmask, int side) {
  if (side < 0) return (omask & 0xffu) || (omask & (1u << 16)) || (tmask & (1u << 25));
  return (omask & (1u << side)) || (omask & (1u << (8 + side))) || (tmask & (1u << (17 + ((side + 4) & 7))));
}

/* 1 when some link of tile o leads into slot `slot`. */
int nm_links_to_slot(const nm_navmesh *m, const nm_tile *o, uint32_t slot) {
  int i;
  for (i = 0; i < o->header->poly_count; i++) {
    uint32_t k;
    for (k = o->polys[i].first_link; k != NM_NULL_LINK; k = o->links[k].next)
      if (nm_ref_tile(m, o->links[k].ref) == slot) return 1;
  }
  return 0;
}

/* ---- stored links (our own format) ---- */

/* A stored link of polygon p is usable: its target exists and its edge and
 * side index what the queries will index with it. */
static int link_ok(const nm_navmesh *m, const nm_poly *p, const nm_link *l) {
  const nm_tile *nt;
  const nm_poly *np;
  if (!nm_ref_get(m, l->ref, &nt, &np)) return 0;
  if (l->side != 0xff && l->side > 7) return 0;
  if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) return l->edge < 2;
  if (l->edge == 0xff) return nm_poly_type(np) == NM_POLYTYPE_OFFMESH;
  return l->edge < p->vert_count;
}

/* Checks the lists of one tile: each link used once (no cycles, no shared
 * tails), every link usable. mark: one byte per slot, zeroed here. */
static int tile_links_ok(const nm_navmesh *m, const nm_tile *t, uint8_t *mark) {
  const uint32_t n = (uint32_t)t->header->max_link_count;
  int i;
  memset(mark, 0, n);
  for (i = 0; i < t->header->poly_count; i++) {
    const nm_poly *p = &t->polys[i];
    uint32_t k;
    for (k = p->first_link; k != NM_NULL_LINK; k = t->links[k].next) {
      if (k >= n || mark[k] || !link_ok(m, p, &t->links[k])) return 0;
      mark[k] = 1;
    }
  }
  return 1;
}

/* Chains the unused slots of a tile (ascending) as its free list. */
static void tile_free_chain(nm_tile *t, const uint8_t *mark) {
  int32_t i;
  t->links_free = NM_NULL_LINK;
  for (i = t->header->max_link_count - 1; i >= 0; i--)
    if (!mark[i]) {
      t->links[i].next = t->links_free;
      t->links_free = (uint32_t)i;
    }
}

nm_status nm_links_check_all(nm_navmesh *m, int writable, nm_diag *diag) {
  size_t most = 1;
  uint8_t *mark;
  int i;
  for (i = 0; i < m->top; i++)
    if (m->tiles[i].header && (size_t)m->tiles[i].header->max_link_count > most)
      most = (size_t)m->tiles[i].header->max_link_count;
  if (!(mark = (uint8_t *)nm_malloc(&m->alloc, most))) return NM_ERR_NOMEM;
  for (i = 0; i < m->top; i++) {
    nm_tile *t = &m->tiles[i];
    if (!t->header) continue;
    if (!tile_links_ok(m, t, mark)) {
      nm_free(&m->alloc, mark, most);
      return nm_diag_set(diag, NM_ERR_DATA, "links", "stored links of tile slot %d are inconsistent", i);
    }
    if (writable) tile_free_chain(t, mark);
    else t->links_free = NM_NULL_LINK;
  }
  nm_free(&m->alloc, mark, most);
  return NM_OK;
}
