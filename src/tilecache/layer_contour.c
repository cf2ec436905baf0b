/* layer_contour.c -- region outlines of a tile-cache layer (DetourTileCache's
 * contour pass).
 *
 * Each region's outline is traced along cell edges (keeping the region on
 * one side, turning where the neighbour changes), collinear steps along one
 * axis are merged while the neighbour stays the same, and the outline is
 * simplified as Recast does (Douglas-Peucker from the points where the
 * neighbour changes, each segment measured in a fixed direction so both
 * sides of a shared edge simplify alike). Every kept vertex then gets the
 * height of its corner (highest walkable cell around it within the climb),
 * the portal direction of the edge it starts (towards another layer or
 * tile) and a mark when it lies in the middle of a straight portal edge
 * (the mesh stage removes those vertices when it can).
 * Vertices are 4 bytes: x, y (cells), z, then the neighbour region while
 * tracing, the portal/remove flags when stored. An outline of more than
 * 4 (w + h) traced vertices cannot be meshed (ERR_DATA), as in Detour: it
 * bounds the work of the mesh stage on degenerate layers. */
#include "nm_cache.h"

static const int ldir_x[4] = {-1, 0, 1, 0};
static const int ldir_z[4] = {0, 1, 0, -1};

/* Temporary outline: raw vertices, then the indices of the kept ones. */
typedef struct ltemp {
  uint8_t *verts;
  int nverts, cverts;
  uint16_t *poly;
  int npoly;
} ltemp;

size_t nm_lcontour_scratch(int w, int hgt) {
  const size_t cells = (size_t)w * (size_t)hgt, temp = cells * 4 + 8;
  /* all stored outlines (at most one vertex per cell edge), the tracing
   * buffers and the contour records */
  return nm_align4(cells * 16 + 16) + nm_align4(temp * 4) + nm_align4(temp * 2) + 256 * sizeof(nm_lcontour) + 64;
}

/* Region beyond edge dir of cell (x, z): the neighbour's region, 0xf8 + dir
 * for a portal (walkable neighbour in another layer or tile), 0xff wall. */
static uint8_t neighbour_reg(const nm_lgrid *g, int x, int z, int dir) {
  const int ia = x + z * g->w;
  const uint8_t mask = (uint8_t)(1 << dir);
  if (!(g->cons[ia] & mask)) return (g->cons[ia] >> 4) & mask ? (uint8_t)(0xf8 + dir) : 0xff;
  return nm_lreg(g, (x + ldir_x[dir]) + (z + ldir_z[dir]) * g->w);
}

/* Appends a traced vertex, merging it into the last one when the last two
 * and this one run along one axis with the same neighbour region r. */
static int append_vertex(ltemp *t, int x, int y, int z, int r) {
  uint8_t *v;
  if (t->nverts > 1) {
    uint8_t *pa = &t->verts[(t->nverts - 2) * 4], *pb = &t->verts[(t->nverts - 1) * 4];
    if ((int)pb[3] == r) {
      if (pa[0] == pb[0] && (int)pb[0] == x) { /* along z: move the end */
        pb[1] = (uint8_t)y;
        pb[2] = (uint8_t)z;
        return 1;
      }
      if (pa[2] == pb[2] && (int)pb[2] == z) { /* along x */
        pb[0] = (uint8_t)x;
        pb[1] = (uint8_t)y;
        return 1;
      }
    }
  }
  if (t->nverts + 1 > t->cverts) return 0;
  v = &t->verts[t->nverts * 4];
  v[0] = (uint8_t)x;
  v[1] = (uint8_t)y;
  v[2] = (uint8_t)z;
  v[3] = (uint8_t)r;
  t->nverts++;
  return 1;
}

/* Traces the outline of the region of cell (x, z), which is its first cell
 * in row order, clockwise along cell corners. 0 when the buffer is full. */
static int walk_contour(const nm_lgrid *g, int x, int z, ltemp *t) {
  const uint8_t reg = nm_lreg(g, x + z * g->w);
  int sx = x, sz = z, sdir = -1, dir, i, iter = 0, max_iter = g->w * g->hgt * 4;
  t->nverts = 0;
  for (i = 0; i < 4; i++) {
    dir = (i + 3) & 3;
    if (neighbour_reg(g, x, z, dir) != reg) { sdir = dir; break; }
  }
  if (sdir == -1) return 1;
  dir = sdir;
  while (iter < max_iter) {
    const uint8_t rn = neighbour_reg(g, x, z, dir);
    int nx = x, nz = z, ndir;
    if (rn != reg) { /* wall: add its corner, turn right */
      int px = x, pz = z;
      if (dir == 0) pz++;
      else if (dir == 1) { px++; pz++; }
      else if (dir == 2) px++;
      if (!append_vertex(t, px, g->heights[x + z * g->w], pz, rn)) return 0;
      ndir = (dir + 1) & 3;
    } else { /* step into the neighbour, turn left */
      nx = x + ldir_x[dir];
      nz = z + ldir_z[dir];
      ndir = (dir + 3) & 3;
    }
    if (iter > 0 && x == sx && z == sz && dir == sdir) break;
    x = nx;
    z = nz;
    dir = ndir;
    iter++;
  }
  if (t->nverts > 1) { /* the last vertex may repeat the first */
    const uint8_t *pa = &t->verts[(t->nverts - 1) * 4], *pb = t->verts;
    if (pa[0] == pb[0] && pa[2] == pb[2]) t->nverts--;
  }
  return 1;
}

/* Starting points of the simplification: where the neighbour changes, or
 * the lower-left and upper-right vertices when it never does. */
static void simplify_seed(ltemp *t) {
  int i;
  t->npoly = 0;
  for (i = 0; i < t->nverts; i++) {
    const int j = (i + 1) % t->nverts;
    if (t->verts[j * 4 + 3] != t->verts[i * 4 + 3]) t->poly[t->npoly++] = (uint16_t)i;
  }
  if (t->npoly < 2) {
    int llx = t->verts[0], llz = t->verts[2], lli = 0, urx = llx, urz = llz, uri = 0;
    for (i = 1; i < t->nverts; i++) {
      const int x = t->verts[i * 4], z = t->verts[i * 4 + 2];
      if (x < llx || (x == llx && z < llz)) { llx = x; llz = z; lli = i; }
      if (x > urx || (x == urx && z > urz)) { urx = x; urz = z; uri = i; }
    }
    t->npoly = 0;
    t->poly[t->npoly++] = (uint16_t)lli;
    t->poly[t->npoly++] = (uint16_t)uri;
  }
}

/* Farthest raw vertex from kept segment i (traversed in lexical order so
 * opposite segments measure alike); -1 when none is beyond max_error. */
static int farthest_vertex(const ltemp *t, int i, float max_error) {
  const int ii = (i + 1) % t->npoly, n = t->nverts;
  const int ai = t->poly[i], bi = t->poly[ii];
  const int ax = t->verts[ai * 4], az = t->verts[ai * 4 + 2];
  const int bx = t->verts[bi * 4], bz = t->verts[bi * 4 + 2];
  int ci, cinc, endi, maxi = -1;
  float maxd = 0;
  if (bx > ax || (bx == ax && bz > az)) {
    cinc = 1;
    ci = (ai + cinc) % n;
    endi = bi;
  } else {
    cinc = n - 1;
    ci = (bi + cinc) % n;
    endi = ai;
  }
  while (ci != endi) {
    const float d = nm_dist_pt_seg_cells(t->verts[ci * 4], t->verts[ci * 4 + 2], ax, az, bx, bz);
    if (d > maxd) { maxd = d; maxi = ci; }
    ci = (ci + cinc) % n;
  }
  return maxi != -1 && maxd > max_error * max_error ? maxi : -1;
}

/* Simplifies the traced outline in place (kept vertices, starting at the
 * lowest raw index). */
static void simplify_contour(ltemp *t, float max_error) {
  int i, start = 0;
  simplify_seed(t);
  for (i = 0; i < t->npoly;) {
    const int maxi = farthest_vertex(t, i, max_error);
    if (maxi >= 0) {
      int j;
      t->npoly++;
      for (j = t->npoly - 1; j > i; j--) t->poly[j] = t->poly[j - 1];
      t->poly[i + 1] = (uint16_t)maxi;
    } else {
      i++;
    }
  }
  for (i = 1; i < t->npoly; i++)
    if (t->poly[i] < t->poly[start]) start = i;
  /* kept indices grow along the outline from start, so copying forwards
   * never overwrites a vertex still to be read */
  t->nverts = 0;
  for (i = 0; i < t->npoly; i++) {
    const int j = (start + i) % t->npoly;
    memmove(&t->verts[t->nverts * 4], &t->verts[t->poly[j] * 4], 4);
    t->nverts++;
  }
}

/* Height of the corner (x, z) of vertex height y: the highest walkable cell
 * of the four around it within the climb. *remove is set when those cells
 * (more than one, one region) share exactly one portal direction: the
 * vertex sits inside a straight portal edge. */
static uint8_t corner_height(const nm_lgrid *g, int x, int y, int z, int climb, int *remove) {
  int dx, dz, n = 0, portals = 0, same = 1, d;
  uint8_t portal = 0xf, height = 0, preg = 0xff;
  for (dz = -1; dz <= 0; dz++)
    for (dx = -1; dx <= 0; dx++) {
      const int px = x + dx, pz = z + dz;
      int idx, lh;
      if (px < 0 || pz < 0 || px >= g->w || pz >= g->hgt) continue;
      idx = px + pz * g->w;
      lh = g->heights[idx];
      if (lh - y > climb || y - lh > climb || g->areas[idx] == NM_LAYER_NULL_AREA) continue;
      if (lh > height) height = (uint8_t)lh;
      portal &= (uint8_t)(g->cons[idx] >> 4);
      if (preg != 0xff && preg != nm_lreg(g, idx)) same = 0;
      preg = nm_lreg(g, idx);
      n++;
    }
  for (d = 0; d < 4; d++) portals += (portal >> d) & 1;
  *remove = n > 1 && portals == 1 && same;
  return height;
}

/* Stores the simplified outline t as contour c (heights, portal flags). */
static void store_contour(const nm_lgrid *g, const ltemp *t, int climb, nm_lcontour *c, uint8_t *dst) {
  int i, j;
  c->nverts = t->nverts;
  c->verts = dst;
  for (i = 0, j = t->nverts - 1; i < t->nverts; j = i++) {
    const uint8_t *v = &t->verts[j * 4], *vn = &t->verts[i * 4];
    const uint8_t nei = vn[3]; /* the neighbour of the edge is kept at its end vertex */
    int remove = 0;
    uint8_t *o = &dst[j * 4];
    const uint8_t h = corner_height(g, v[0], v[1], v[2], climb, &remove);
    o[0] = v[0];
    o[1] = h;
    o[2] = v[2];
    o[3] = 0x0f;
    if (nei != 0xff && nei >= 0xf8) o[3] = (uint8_t)(nei - 0xf8);
    if (remove) o[3] |= 0x80;
  }
}

nm_status nm_lcontour_build(nm_lgrid *g, int climb, float max_error, nm_scratch *s, nm_lcontour_set *cset) {
  const size_t cells = (size_t)g->w * (size_t)g->hgt, temp = cells * 4 + 8;
  uint8_t *store = (uint8_t *)nm_scratch_take(s, cells * 16 + 16);
  ltemp t;
  int r;
  size_t used = 0;
  t.verts = (uint8_t *)nm_scratch_take(s, temp * 4);
  t.poly = (uint16_t *)nm_scratch_take(s, temp * 2);
  t.cverts = (g->w + g->hgt) * 4; /* Detour's limit: twice around the layer */
  cset->nconts = g->nregs;
  cset->conts = (nm_lcontour *)nm_scratch_take(s, 256 * sizeof(nm_lcontour));
  if (!store || !t.verts || !t.poly || !cset->conts) return NM_ERR_NOMEM;
  memset(cset->conts, 0, sizeof(nm_lcontour) * (size_t)cset->nconts);
  for (r = 0; r < g->nregs; r++) { /* each region from its first cell in row order */
    const int idx = g->first[r];
    nm_lcontour *c = &cset->conts[r];
    if (g->first[r] == 0xffff) continue;
    c->reg = (uint8_t)r;
    c->area = g->areas[idx];
    if (!walk_contour(g, idx % g->w, idx / g->w, &t)) return NM_ERR_DATA;
    if (t.nverts == 0) continue;
    simplify_contour(&t, max_error);
    if (used + (size_t)t.nverts * 4 > cells * 16 + 16) return NM_ERR_DATA;
    store_contour(g, &t, climb, c, store + used);
    used += (size_t)t.nverts * 4;
  }
  return NM_OK;
}
