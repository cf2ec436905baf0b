/* region_merge.c -- the post-pass of the watershed and monotone partitions
 * (Recast's region merge and filter), and the region records they and the
 * layer partition share.
 *
 * Each region records its neighbours in outline order (found by walking
 * the region's outer contour once) and the regions stacked above or below
 * it. Then: groups of connected regions smaller than min_area (and not
 * touching a tile border) are removed; regions up to merge_area cells, or
 * with no open edge, merge into their smallest neighbour when the two touch
 * along exactly one stretch of outline and do not overlap vertically;
 * finally ids are renumbered 1..n.
 *
 * The lists of all regions live in one int arena (a region list that
 * outgrows its slot moves to the end), so the pass makes O(log n)
 * allocations instead of two per region. */
#include "nm_region.h"

/* ---- growable arrays ---- */

/* Doubling growth through the allocator; the pointer is read and written
 * with memcpy so any T ** can be passed without aliasing trouble. */
nm_status nm_grow(const nm_alloc *a, void *pp, int *cap, int need, size_t elem) {
  void *p, *np;
  int ncap;
  if (need <= *cap) return NM_OK;
  ncap = *cap > 0 ? *cap : 64;
  while (ncap < need) {
    if (ncap > (1 << 29)) return NM_ERR_NOMEM;
    ncap *= 2;
  }
  memcpy(&p, pp, sizeof p);
  np = nm_realloc(a, p, (size_t)*cap * elem, nm_mul_size((size_t)ncap, elem));
  if (!np) return NM_ERR_NOMEM;
  memcpy(pp, &np, sizeof np);
  *cap = ncap;
  return NM_OK;
}

/* ---- region records ---- */

/* Regions 0 .. nreg-1 with id == index and empty lists. */
nm_status nm_rg_set_init(nm_rg_set *set, const nm_alloc *a, int nreg) {
  int i;
  memset(set, 0, sizeof *set);
  set->a = a;
  set->regs = (nm_rg_region *)nm_calloc(a, (size_t)nreg * sizeof *set->regs);
  if (!set->regs) return NM_ERR_NOMEM;
  set->nreg = nreg;
  for (i = 0; i < nreg; i++) {
    set->regs[i].id = (uint16_t)i;
    set->regs[i].ymin = 0xffff;
  }
  return NM_OK;
}

/* Frees the records, the list arena and the scratch ints. */
void nm_rg_set_free(nm_rg_set *set) {
  nm_free(set->a, set->regs, (size_t)set->nreg * sizeof *set->regs);
  nm_free(set->a, set->data, (size_t)set->cap * sizeof(int));
  nm_free(set->a, set->tmp, (size_t)set->tmp_cap * sizeof(int));
  memset(set, 0, sizeof *set);
}

/* Appends v to list l, moving the list to the end of the arena (doubling
 * its slot) when its slot is full; the old slot is left unused. */
nm_status nm_rg_push(nm_rg_set *set, nm_rg_list *l, int v) {
  if (l->len == l->cap) {
    const int ncap = l->cap ? l->cap * 2 : 4;
    if (l->cap > 0 && l->off + l->cap == set->len) { /* last in the arena: grow in place */
      if (nm_grow(set->a, &set->data, &set->cap, set->len + ncap - l->cap, sizeof(int)) != NM_OK)
        return NM_ERR_NOMEM;
      set->len += ncap - l->cap;
    } else {
      if (nm_grow(set->a, &set->data, &set->cap, set->len + ncap, sizeof(int)) != NM_OK)
        return NM_ERR_NOMEM;
      if (l->len) memcpy(set->data + set->len, set->data + l->off, (size_t)l->len * sizeof(int));
      l->off = set->len;
      set->len += ncap;
    }
    l->cap = ncap;
  }
  set->data[l->off + l->len++] = v;
  return NM_OK;
}

/* Linear membership test; region lists are short. */
int nm_rg_contains(const nm_rg_set *set, const nm_rg_list *l, int v) {
  const int *it = nm_rg_items(set, l);
  int i;
  for (i = 0; i < l->len; i++)
    if (it[i] == v) return 1;
  return 0;
}

/* Appends v unless l already holds it. */
nm_status nm_rg_push_unique(nm_rg_set *set, nm_rg_list *l, int v) {
  return nm_rg_contains(set, l, v) ? NM_OK : nm_rg_push(set, l, v);
}

/* Removes l[j] when it equals its cyclic successor, until no two neighbours
 * in the cycle are equal (a single entry stays). */
static void rg_remove_adjacent(nm_rg_set *set, nm_rg_list *l) {
  int *it = nm_rg_items(set, l);
  int j = 0;
  while (j < l->len && l->len > 1) {
    if (it[j] == it[(j + 1) % l->len]) {
      memmove(it + j, it + j + 1, (size_t)(l->len - j - 1) * sizeof(int));
      l->len--;
    } else {
      j++;
    }
  }
}

/* Four strips of `border` cells: -x, +x, -z, +z, each with its own id
 * (later strips overwrite the corners), as Recast numbers them. */
void nm_rg_paint_borders(const nm_chf *chf, int border, uint16_t *reg, int *next_id) {
  const int w = chf->width, h = chf->height;
  const int bw = nm_mini(w, border), bh = nm_mini(h, border);
  const int rect[4][4] = {{0, bw, 0, h}, {w - bw, w, 0, h}, {0, w, 0, bh}, {0, w, h - bh, h}};
  int k, x, z, i;
  if (border <= 0) return;
  for (k = 0; k < 4; k++) {
    const uint16_t id = (uint16_t)(*next_id | NM_BORDER_REG);
    for (z = rect[k][2]; z < rect[k][3]; z++)
      for (x = rect[k][0]; x < rect[k][1]; x++) {
        const nm_ccell *c = &chf->cells[x + z * w];
        const int end = (int)(c->index + c->count);
        for (i = (int)c->index; i < end; i++)
          if (chf->areas[i] != NM_NULL_AREA) reg[i] = id;
      }
    (*next_id)++;
  }
}

/* Maps each surviving id to 1..n in the order of the lowest record that
 * carries it (what Recast's quadratic loop computes), in one pass with a
 * lookup table in set->tmp. */
int nm_rg_compact_ids(nm_rg_set *set, const nm_chf *chf, uint16_t *reg) {
  uint16_t *map = (uint16_t *)set->tmp; /* tmp holds at least nreg ints */
  int i, gen = 0;
  memset(map, 0, (size_t)set->nreg * sizeof *map);
  for (i = 0; i < set->nreg; i++) {
    const int id = set->regs[i].id;
    if (id == 0 || (id & NM_BORDER_REG)) continue;
    if (!map[id]) map[id] = (uint16_t)++gen;
    set->regs[i].id = map[id];
  }
  for (i = 0; i < chf->span_count; i++)
    if (!(reg[i] & NM_BORDER_REG)) reg[i] = set->regs[reg[i]].id;
  return gen;
}

/* ---- neighbours and floors ---- */

/* Walks the outline of the region of span i, starting at its edge in
 * direction dir, recording the sequence of regions across it. */
static nm_status rg_walk_contour(nm_rg_set *set, nm_rg_list *cont, const nm_chf *chf,
                                 const uint16_t *reg, int i, int dir) {
  const int start_dir = dir, start_i = i;
  int ni = nm_chf_nei(chf, i, dir), cur = ni >= 0 ? reg[ni] : 0, iter = 0;
  if (nm_rg_push(set, cont, cur) != NM_OK) return NM_ERR_NOMEM;
  /* Right-hand wall following around the region: at an edge turn right
   * (clockwise), otherwise step forward and turn left. Recast's 40000 step
   * cap bounds the walk on pathological outlines. */
  while (++iter < 40000) {
    int r;
    ni = nm_chf_nei(chf, i, dir);
    r = ni >= 0 ? reg[ni] : 0;
    if (r != reg[i]) { /* an edge of the region: note the region beyond, turn right */
      if (r != cur) {
        cur = r;
        if (nm_rg_push(set, cont, cur) != NM_OK) return NM_ERR_NOMEM;
      }
      dir = (dir + 1) & 3;
    } else { /* step into the neighbour and turn left */
      i = ni;
      dir = (dir + 3) & 3;
    }
    if (i == start_i && dir == start_dir) break;
  }
  rg_remove_adjacent(set, cont);
  return NM_OK;
}

/* First direction in which span i borders another region, or -1. */
static int rg_edge_dir(const nm_chf *chf, const uint16_t *reg, int i) {
  int dir;
  for (dir = 0; dir < 4; dir++) {
    const int ni = nm_chf_nei(chf, i, dir);
    if ((ni >= 0 ? reg[ni] : 0) != reg[i]) return dir;
  }
  return -1;
}

/* Counts the spans of span i's region, records the regions sharing its
 * column as floors, and walks the outline once per region. */
static nm_status rg_collect_span(nm_rg_set *set, const nm_chf *chf, const uint16_t *reg,
                                 const nm_ccell *c, int i) {
  const int r = reg[i], end = (int)(c->index + c->count);
  nm_rg_region *R;
  int j, dir;
  if (r == 0 || r >= set->nreg) return NM_OK;
  R = &set->regs[r];
  R->span_count++;
  for (j = (int)c->index; j < end; j++) {
    const int f = reg[j];
    if (j == i || f == 0 || f >= set->nreg) continue;
    if (f == r) R->overlap = 1;
    if (nm_rg_push_unique(set, &R->floors, f) != NM_OK) return NM_ERR_NOMEM;
  }
  if (R->cons.len > 0) return NM_OK;
  R->area = chf->areas[i];
  dir = rg_edge_dir(chf, reg, i);
  if (dir < 0) return NM_OK;
  return rg_walk_contour(set, &R->cons, chf, reg, i, dir);
}

/* rg_collect_span over every span, column by column. */
static nm_status rg_collect(nm_rg_set *set, const nm_chf *chf, const uint16_t *reg) {
  const int ncols = chf->width * chf->height;
  int c, i;
  for (c = 0; c < ncols; c++) {
    const nm_ccell *cell = &chf->cells[c];
    const int end = (int)(cell->index + cell->count);
    for (i = (int)cell->index; i < end; i++)
      if (rg_collect_span(set, chf, reg, cell, i) != NM_OK) return NM_ERR_NOMEM;
  }
  return NM_OK;
}

/* ---- removing small islands ---- */

/* Removes every group of connected regions whose total size is below
 * min_area, unless the group touches a tile border. tmp holds 2 * nreg. */
static void rg_remove_small(nm_rg_set *set, int min_area) {
  int *stack = set->tmp, *trace = set->tmp + set->nreg;
  int i, j;
  /* Depth-first over the neighbour graph from each unvisited region; the
   * trace lists the group so it can be cleared as a whole. */
  for (i = 0; i < set->nreg; i++) {
    nm_rg_region *R = &set->regs[i];
    int ns = 0, nt = 0, count = 0, to_border = 0;
    if (R->id == 0 || (R->id & NM_BORDER_REG) || R->span_count == 0 || R->visited) continue;
    R->visited = 1;
    stack[ns++] = i;
    while (ns > 0) {
      const nm_rg_region *C = &set->regs[stack[--ns]];
      const int *cons = nm_rg_items(set, &C->cons);
      count += C->span_count;
      trace[nt++] = (int)(C - set->regs);
      for (j = 0; j < C->cons.len; j++) {
        nm_rg_region *N;
        if (cons[j] & NM_BORDER_REG) {
          to_border = 1;
          continue;
        }
        N = &set->regs[cons[j]];
        if (N->visited || N->id == 0 || (N->id & NM_BORDER_REG)) continue;
        N->visited = 1;
        stack[ns++] = cons[j];
      }
    }
    if (count < min_area && !to_border)
      for (j = 0; j < nt; j++) {
        set->regs[trace[j]].span_count = 0;
        set->regs[trace[j]].id = 0;
      }
  }
}

/* ---- merging small regions ---- */

/* a may absorb b: same area, one shared stretch of outline, b not above or
 * below a. */
static int rg_can_merge(const nm_rg_set *set, const nm_rg_region *a, const nm_rg_region *b) {
  const int *cons = nm_rg_items(set, &a->cons);
  int i, n = 0;
  if (a->area != b->area) return 0;
  for (i = 0; i < a->cons.len; i++)
    if (cons[i] == b->id) n++;
  if (n > 1) return 0;
  return !nm_rg_contains(set, &a->floors, b->id);
}

/* Index of v in list l, or -1. */
static int rg_find(const nm_rg_set *set, const nm_rg_list *l, int v) {
  const int *it = nm_rg_items(set, l);
  int i;
  for (i = 0; i < l->len; i++)
    if (it[i] == v) return i;
  return -1;
}

/* Splices b's outline into a's at their shared edge and moves b's spans and
 * floors to a; *merged is 0 when the outlines do not meet. */
static nm_status rg_merge_pair(nm_rg_set *set, nm_rg_region *a, nm_rg_region *b, int *merged) {
  const int na = a->cons.len, nb = b->cons.len;
  const int insa = rg_find(set, &a->cons, b->id), insb = rg_find(set, &b->cons, a->id);
  int i;
  *merged = 0;
  if (insa < 0 || insb < 0) return NM_OK;
  /* New outline of a: a's neighbours starting after b, then b's starting
   * after a; the shared stretch drops out and duplicates collapse. */
  if (nm_grow(set->a, &set->tmp, &set->tmp_cap, na, sizeof(int)) != NM_OK) return NM_ERR_NOMEM;
  memcpy(set->tmp, nm_rg_items(set, &a->cons), (size_t)na * sizeof(int));
  a->cons.len = 0;
  for (i = 0; i < na - 1; i++)
    if (nm_rg_push(set, &a->cons, set->tmp[(insa + 1 + i) % na]) != NM_OK) return NM_ERR_NOMEM;
  for (i = 0; i < nb - 1; i++) /* re-read: a push may move the arena */
    if (nm_rg_push(set, &a->cons, set->data[b->cons.off + (insb + 1 + i) % nb]) != NM_OK)
      return NM_ERR_NOMEM;
  rg_remove_adjacent(set, &a->cons);
  for (i = 0; i < b->floors.len; i++)
    if (nm_rg_push_unique(set, &a->floors, set->data[b->floors.off + i]) != NM_OK)
      return NM_ERR_NOMEM;
  a->span_count += b->span_count;
  b->span_count = 0;
  b->cons.len = 0;
  *merged = 1;
  return NM_OK;
}

/* Renames old_id to new_id in every region's id, neighbours and floors. */
static void rg_rename(nm_rg_set *set, int old_id, int new_id) {
  int j, k;
  /* Every record is visited, as in Recast: ids appear in outlines, floors
   * and in the records already merged into old_id. */
  for (j = 0; j < set->nreg; j++) {
    nm_rg_region *R = &set->regs[j];
    int *it, changed = 0;
    if (R->id == 0 || (R->id & NM_BORDER_REG)) continue;
    if (R->id == old_id) R->id = (uint16_t)new_id;
    it = nm_rg_items(set, &R->cons);
    for (k = 0; k < R->cons.len; k++)
      if (it[k] == old_id) {
        it[k] = new_id;
        changed = 1;
      }
    it = nm_rg_items(set, &R->floors);
    for (k = 0; k < R->floors.len; k++)
      if (it[k] == old_id) it[k] = new_id;
    if (changed) rg_remove_adjacent(set, &R->cons);
  }
}

/* Smallest neighbour region that R can merge with (R's id when none). */
static int rg_merge_target(const nm_rg_set *set, const nm_rg_region *R) {
  const int *cons = nm_rg_items(set, &R->cons);
  int j, smallest = 0xfffffff, target = R->id;
  for (j = 0; j < R->cons.len; j++) {
    const nm_rg_region *M;
    if (cons[j] & NM_BORDER_REG) continue;
    M = &set->regs[cons[j]];
    if (M->id == 0 || (M->id & NM_BORDER_REG) || M->overlap) continue;
    if (M->span_count < smallest && rg_can_merge(set, R, M) && rg_can_merge(set, M, R)) {
      smallest = M->span_count;
      target = M->id;
    }
  }
  return target;
}

/* One sweep of merges; *count gets the number done. */
static nm_status rg_merge_sweep(nm_rg_set *set, int merge_area, int *count) {
  int i;
  *count = 0;
  for (i = 0; i < set->nreg; i++) {
    nm_rg_region *R = &set->regs[i];
    int target, old_id, merged;
    if (R->id == 0 || (R->id & NM_BORDER_REG) || R->overlap || R->span_count == 0) continue;
    /* big regions with an open edge stay as they are */
    if (R->span_count > merge_area && nm_rg_contains(set, &R->cons, 0)) continue;
    target = rg_merge_target(set, R);
    if (target == R->id) continue;
    old_id = R->id;
    if (rg_merge_pair(set, &set->regs[target], R, &merged) != NM_OK) return NM_ERR_NOMEM;
    if (!merged) continue;
    rg_rename(set, old_id, target);
    (*count)++;
  }
  return NM_OK;
}

/* The whole post-pass: collect neighbours and floors, remove small
 * islands, merge until nothing changes, renumber. */
nm_status nm_rg_merge_and_filter(nm_chf *chf, uint16_t *reg, int max_id, int min_area,
                                 int merge_area) {
  nm_rg_set set;
  nm_status st;
  int count;
  if ((st = nm_rg_set_init(&set, &chf->a, max_id + 1)) != NM_OK) return st;
  st = nm_grow(set.a, &set.tmp, &set.tmp_cap, 2 * set.nreg, sizeof(int));
  if (st == NM_OK) st = rg_collect(&set, chf, reg);
  if (st == NM_OK) {
    rg_remove_small(&set, min_area);
    do {
      st = rg_merge_sweep(&set, merge_area, &count);
    } while (st == NM_OK && count > 0);
  }
  if (st == NM_OK) chf->max_regions = (uint16_t)nm_rg_compact_ids(&set, chf, reg);
  nm_rg_set_free(&set);
  return st;
}
