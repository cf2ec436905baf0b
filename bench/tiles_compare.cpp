// tiles_compare.cpp -- differential check of tile edits against Detour itself
// (Debian's librecast-dev): on each tiled navmesh of ../shared, the same
// script of edits goes to a dtNavMesh, to our mutable mesh and to a chain
// of our versions (one draft per step): remove a tile (keeping its bytes),
// add it back at its old reference (addTile's lastRef), add one back
// without (the free-slot order), try a lastRef whose slot is taken, set a
// polygon's flags. The returned references must agree step by step, and at
// the end (and every 10 steps) every tile must agree: same reference, same
// bytes outside the link section, and for every polygon the same links in
// the same order (ref, edge, side, bmin, bmax) -- the order A* ties follow.
// Border links' bmin/bmax may differ by one: Debian's snapshot (e75adf8)
// truncates the portal limits to bytes where upstream (9f4ce64, which we
// follow and the oracle comes from) rounds them; counted apart.
// Prints one line per mesh. Usage: tiles_compare <shared-dir>
#include <DetourNavMesh.h>
#include <DetourAlloc.h>
#include <DetourCommon.h>
#include "detour_mset.h"
#include <vector>
extern "C" {
#include "navmesh.h"
#include "cases.h"
}

// Section offsets of a tile blob (Detour's layout, shared by ours).
struct View {
  const dtMeshHeader *h;
  const dtPoly *polys;
  const dtLink *links;
  size_t links_off, links_end;
};
static View view(const unsigned char *d) {
  View v;
  v.h = (const dtMeshHeader *)d;
  size_t off = dtAlign4(sizeof(dtMeshHeader)) + dtAlign4(sizeof(float) * 3 * v.h->vertCount);
  v.polys = (const dtPoly *)(d + off);
  off += dtAlign4(sizeof(dtPoly) * v.h->polyCount);
  v.links = (const dtLink *)(d + off);
  v.links_off = off;
  v.links_end = off + dtAlign4(sizeof(dtLink) * v.h->maxLinkCount);
  return v;
}

static long g_rounding; // border link limits one apart (truncated vs rounded)

// Same byte, or (counted) one apart.
static bool limit_ok(unsigned char x, unsigned char y) {
  if (x == y) return true;
  if (x + 1 != y && y + 1 != x) return false;
  g_rounding++;
  return true;
}

// Same tile: bytes outside the links (polygons compared field by field
// but firstLink, which names a slot), and the same link lists.
static bool same_tile(const unsigned char *a, int na, const unsigned char *b, size_t nb) {
  if ((size_t)na != nb) return false;
  View va = view(a), vb = view(b);
  const size_t polys_off = (const unsigned char *)va.polys - a;
  if (memcmp(a, b, polys_off) != 0 || memcmp(a + va.links_end, b + vb.links_end, nb - vb.links_end) != 0) return false;
  for (int i = 0; i < va.h->polyCount; i++) {
    const dtPoly &p = va.polys[i], &q = vb.polys[i];
    if (memcmp(p.verts, q.verts, sizeof p.verts) || memcmp(p.neis, q.neis, sizeof p.neis) || p.flags != q.flags ||
        p.vertCount != q.vertCount || p.areaAndtype != q.areaAndtype)
      return false;
    unsigned int ka = p.firstLink, kb = q.firstLink;
    for (; ka != DT_NULL_LINK && kb != DT_NULL_LINK; ka = va.links[ka].next, kb = vb.links[kb].next) {
      const dtLink &x = va.links[ka], &y = vb.links[kb];
      if (x.ref != y.ref || x.edge != y.edge || x.side != y.side) return false;
      if (x.side == 0xff ? (x.bmin != y.bmin || x.bmax != y.bmax) : !(limit_ok(x.bmin, y.bmin) && limit_ok(x.bmax, y.bmax)))
        return false;
    }
    if (ka != kb) return false; // one list is longer
  }
  return true;
}

// Every tile of Detour's mesh is in ours at the same reference, the same;
// and ours has no others.
static bool same_mesh(const dtNavMesh *dm, const nm_navmesh *m) {
  int n = 0, count = 0;
  for (int i = 0; i < dm->getMaxTiles(); i++) {
    const dtMeshTile *t = dm->getTile(i);
    if (!t || !t->header) continue;
    n++;
    const void *ours;
    size_t size;
    if (nm_navmesh_tile_ref_at(m, t->header->x, t->header->y, t->header->layer) != (nm_polyref)dm->getTileRef(t) ||
        nm_navmesh_get_tile(m, t->header->x, t->header->y, t->header->layer, &ours, &size) != NM_OK ||
        !same_tile(t->data, t->dataSize, (const unsigned char *)ours, size))
      return false;
  }
  nm_navmesh_tiles(m, NULL, 0, &count);
  return n == count;
}

struct Removed { int x, y, layer; dtTileRef ref; std::vector<unsigned char> bytes; };

struct Run {
  dtNavMesh *dm;
  nm_navmesh *m, *tip;
  std::vector<Removed> removed;
  int steps, agree;
  unsigned seed;
  unsigned next() { return seed = seed * 1664525u + 1013904223u, seed >> 8; }
};

// Adds bytes in all three; true when the results agree.
static bool add_all(Run &r, nm_navmesh *d, const Removed &t, dtTileRef last) {
  unsigned char *data = (unsigned char *)dtAlloc((int)t.bytes.size(), DT_ALLOC_PERM);
  memcpy(data, t.bytes.data(), t.bytes.size());
  dtTileRef got = 0;
  dtStatus ds = r.dm->addTile(data, (int)t.bytes.size(), DT_TILE_FREE_DATA, last, &got);
  if (dtStatusFailed(ds)) dtFree(data);
  nm_polyref a = 0, b = 0;
  nm_status sa = nm_navmesh_add_tile_ref(r.m, t.bytes.data(), t.bytes.size(), (nm_polyref)last, NULL, &a);
  nm_status sb = nm_navmesh_add_tile_ref(d, t.bytes.data(), t.bytes.size(), (nm_polyref)last, NULL, &b);
  if (dtStatusFailed(ds)) return sa < 0 && sb < 0;
  return sa == NM_OK && sb == NM_OK && a == (nm_polyref)got && b == a;
}

// Removes the tile at (x, y, layer) in all three, keeping its bytes.
static bool remove_all(Run &r, nm_navmesh *d, int x, int y, int layer) {
  const dtMeshTile *t = r.dm->getTileAt(x, y, layer);
  if (!t) return false;
  Removed k = {x, y, layer, r.dm->getTileRef(t), std::vector<unsigned char>(t->data, t->data + t->dataSize)};
  if (dtStatusFailed(r.dm->removeTile(k.ref, 0, 0))) return false;
  bool ok = nm_navmesh_remove_tile(r.m, x, y, layer, NULL, NULL) == NM_OK &&
            nm_navmesh_remove_tile(d, x, y, layer, NULL, NULL) == NM_OK;
  r.removed.push_back(k);
  return ok;
}

// One step of the script on Detour, ours and a draft of the latest version.
static bool step(Run &r, const nm_tile_info *tiles, int ntiles) {
  nm_navmesh *d = NULL;
  if (nm_navmesh_version_edit(r.tip, &d) != NM_OK) return false;
  const nm_tile_info &ti = tiles[r.next() % ntiles];
  bool ok = true;
  switch (r.next() % 5) {
  case 0: // remove and add back at the old reference
    if (r.dm->getTileAt(ti.x, ti.y, ti.layer) && (ok = remove_all(r, d, ti.x, ti.y, ti.layer))) {
      Removed k = r.removed.back();
      r.removed.pop_back();
      ok = add_all(r, d, k, k.ref);
    }
    break;
  case 1: // remove, keep for later
    if (r.dm->getTileAt(ti.x, ti.y, ti.layer)) ok = remove_all(r, d, ti.x, ti.y, ti.layer);
    break;
  case 2: // add a removed one back, with or without its old reference
    if (!r.removed.empty()) {
      size_t i = r.next() % r.removed.size();
      Removed k = r.removed[i];
      r.removed.erase(r.removed.begin() + (long)i);
      ok = add_all(r, d, k, (r.next() & 1) ? k.ref : 0);
    }
    break;
  case 3: // a lastRef whose slot is taken fails in both
    if (!r.removed.empty() && r.dm->getTileAt(ti.x, ti.y, ti.layer)) {
      Removed k = r.removed.back();
      k.ref = r.dm->getTileRefAt(ti.x, ti.y, ti.layer);
      if (!r.dm->getTileAt(k.x, k.y, k.layer)) ok = add_all(r, d, k, k.ref);
    }
    break;
  default: { // flags of a polygon
    dtTileRef base = r.dm->getTileRefAt(ti.x, ti.y, ti.layer);
    unsigned short f = (unsigned short)(r.next() & 0xffff);
    if (base) {
      const dtMeshTile *t = r.dm->getTileAt(ti.x, ti.y, ti.layer);
      dtPolyRef p = (dtPolyRef)base | (dtPolyRef)(r.next() % (unsigned)t->header->polyCount);
      r.dm->setPolyFlags(p, f);
      ok = nm_navmesh_set_poly_flags(r.m, (nm_polyref)p, f) == NM_OK && nm_navmesh_set_poly_flags(d, (nm_polyref)p, f) == NM_OK;
    }
  }
  }
  nm_navmesh_version_commit(d);
  nm_navmesh_release(r.tip);
  r.tip = d;
  return ok;
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  printf("tile edits against Detour (steps agreeing / steps; whole meshes checked every 10 steps)\n");
  for (int i = 0; bench_meshes[i]; i++) {
    if (!strstr(bench_meshes[i], "tiled") || bench_skip(bench_meshes[i])) continue;
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, bench_meshes[i]);
    unsigned char *bytes = bench_read_file(path, &len);
    Run r;
    r.dm = bytes ? tb_load_mset(bytes, len) : 0;
    r.m = r.tip = 0;
    if (!r.dm || nm_navmesh_load(bytes, len, NULL, NULL, &r.m) < 0 || nm_navmesh_version_new(r.m, NULL, &r.tip) < 0)
      continue;
    free(bytes);
    int ntiles = 0;
    nm_navmesh_tiles(r.m, NULL, 0, &ntiles);
    std::vector<nm_tile_info> tiles((size_t)ntiles);
    nm_navmesh_tiles(r.m, tiles.data(), ntiles, &ntiles);
    r.steps = r.agree = 0;
    r.seed = 2024;
    int checks = 0, meshes_same = 0;
    g_rounding = 0;
    for (int k = 0; k < 200; k++) {
      r.agree += step(r, tiles.data(), ntiles);
      r.steps++;
      if (k % 10 == 9) {
        checks += 2;
        meshes_same += same_mesh(r.dm, r.m) + same_mesh(r.dm, r.tip);
      }
    }
    printf("%-17s steps %d/%d, meshes (ours, version) equal to Detour's %d/%d (%ld link limits one apart)\n",
           bench_meshes[i], r.agree, r.steps, meshes_same, checks, g_rounding);
    nm_navmesh_release(r.tip);
    nm_navmesh_release(r.m);
    dtFreeNavMesh(r.dm);
  }
  return 0;
}
