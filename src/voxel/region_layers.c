/* region_layers.c -- layer partition of the compact heightfield (Recast's).
 *
 * Starts from the monotone sweep (region_monotone.c), then merges the sweep
 * regions into layers: a breadth-first walk from each unvisited region
 * takes in neighbouring regions of the same area unless the neighbour lies
 * above or below something already in the layer, so no layer overlaps
 * itself in y. Layers smaller than min_area that do not touch a tile border
 * are removed; ids are renumbered 1..n. Good for tiles with many stacked
 * floors, where the watershed would tangle. */
#include "nm_region.h"

/* Records span i's region: size, y range, area, neighbours (unique) and
 * whether it touches a border region. */
static nm_status layer_note_span(nm_rg_set *set, const nm_chf *chf, const uint16_t *reg, int i) {
  const int ri = reg[i];
  nm_rg_region *R = &set->regs[ri];
  int dir;
  R->span_count++;
  if (chf->spans[i].y < R->ymin) R->ymin = chf->spans[i].y;
  if (chf->spans[i].y > R->ymax) R->ymax = chf->spans[i].y;
  R->area = chf->areas[i];
  for (dir = 0; dir < 4; dir++) {
    const int ni = nm_chf_nei(chf, i, dir);
    int rn;
    if (ni < 0) continue;
    rn = reg[ni];
    if (rn > 0 && rn < set->nreg && rn != ri && nm_rg_push_unique(set, &R->cons, rn) != NM_OK)
      return NM_ERR_NOMEM;
    if (rn & NM_BORDER_REG) R->to_border = 1;
  }
  return NM_OK;
}

/* Marks every pair of distinct regions sharing column (x, z) as floors of
 * each other. */
static nm_status layer_note_column(nm_rg_set *set, const nm_chf *chf, const uint16_t *reg, int x,
                                   int z) {
  const nm_ccell *c = &chf->cells[x + z * chf->width];
  const int b = (int)c->index, e = (int)(c->index + c->count);
  int i, j;
  for (i = b; i < e; i++) {
    const int ri = reg[i];
    if (ri == 0 || ri >= set->nreg) continue;
    if (layer_note_span(set, chf, reg, i) != NM_OK) return NM_ERR_NOMEM;
    for (j = i + 1; j < e; j++) {
      const int rj = reg[j];
      if (rj == 0 || rj >= set->nreg || rj == ri) continue;
      if (nm_rg_push_unique(set, &set->regs[ri].floors, rj) != NM_OK ||
          nm_rg_push_unique(set, &set->regs[rj].floors, ri) != NM_OK)
        return NM_ERR_NOMEM;
    }
  }
  return NM_OK;
}

/* Adds region nei (reached from the layer rooted at root) to the layer:
 * its floors, y range, spans and border contact move to the root. */
static nm_status layer_absorb(nm_rg_set *set, nm_rg_region *root, nm_rg_region *n) {
  int k;
  for (k = 0; k < n->floors.len; k++)
    if (nm_rg_push_unique(set, &root->floors, set->data[n->floors.off + k]) != NM_OK)
      return NM_ERR_NOMEM;
  if (n->ymin < root->ymin) root->ymin = n->ymin;
  if (n->ymax > root->ymax) root->ymax = n->ymax;
  root->span_count += n->span_count;
  n->span_count = 0;
  root->to_border = root->to_border || n->to_border;
  return NM_OK;
}

/* Breadth-first walk building layer `layer` from region `start`; queue is
 * scratch for nreg ints. */
static nm_status layer_walk(nm_rg_set *set, int start, int layer, int *queue) {
  nm_rg_region *root = &set->regs[start];
  int head = 0, tail = 0, j;
  root->id = (uint16_t)layer;
  queue[tail++] = start;
  while (head < tail) {
    const nm_rg_region *R = &set->regs[queue[head++]];
    for (j = 0; j < R->cons.len; j++) {
      const int nei = set->data[R->cons.off + j];
      nm_rg_region *N = &set->regs[nei];
      if (N->id != 0 || N->area != R->area) continue;
      if (nm_rg_contains(set, &root->floors, nei)) continue; /* would overlap the layer */
      queue[tail++] = nei;
      N->id = (uint16_t)layer;
      if (layer_absorb(set, root, N) != NM_OK) return NM_ERR_NOMEM;
    }
  }
  return NM_OK;
}

/* Groups the regions into layers (ids 1..) and clears the ids of layers
 * too small to keep. */
static nm_status layer_merge(nm_rg_set *set, int min_area) {
  uint8_t *kill;
  int i, layer = 1;
  for (i = 0; i < set->nreg; i++) set->regs[i].id = 0;
  for (i = 1; i < set->nreg; i++) {
    if (set->regs[i].id != 0) continue;
    if (layer_walk(set, i, layer, set->tmp) != NM_OK) return NM_ERR_NOMEM;
    layer++;
  }
  /* a layer's size sits on its root; mark small layers, then clear them */
  kill = (uint8_t *)(set->tmp + set->nreg);
  memset(kill, 0, (size_t)layer);
  for (i = 0; i < set->nreg; i++) {
    const nm_rg_region *R = &set->regs[i];
    if (R->span_count > 0 && R->span_count < min_area && !R->to_border) kill[R->id] = 1;
  }
  for (i = 0; i < set->nreg; i++)
    if (kill[set->regs[i].id]) set->regs[i].id = 0;
  return NM_OK;
}

/* The layer post-pass on sweep regions reg (ids < max_id + 1). */
static nm_status layer_regions(nm_chf *chf, uint16_t *reg, int max_id, int min_area) {
  nm_rg_set set;
  nm_status st;
  int x, z;
  if ((st = nm_rg_set_init(&set, &chf->a, max_id + 1)) != NM_OK) return st;
  /* queue (nreg ints), then one kill flag per layer id (<= nreg bytes) */
  st = nm_grow(set.a, &set.tmp, &set.tmp_cap, 2 * set.nreg, sizeof(int));
  for (z = 0; z < chf->height && st == NM_OK; z++)
    for (x = 0; x < chf->width && st == NM_OK; x++) st = layer_note_column(&set, chf, reg, x, z);
  if (st == NM_OK) st = layer_merge(&set, min_area);
  if (st == NM_OK) chf->max_regions = (uint16_t)nm_rg_compact_ids(&set, chf, reg);
  nm_rg_set_free(&set);
  return st;
}

/* Sweep, then layer merging; min_area applies to whole layers. */
nm_status nm_chf_regions_layers(nm_chf *chf, int border, int min_area) {
  const size_t n = (size_t)chf->span_count;
  uint16_t *reg;
  nm_status st;
  int id = 0;
  size_t i;
  chf->border_size = border;
  chf->max_regions = 0;
  if (n == 0) return NM_OK;
  reg = (uint16_t *)nm_calloc(&chf->a, n * sizeof *reg);
  if (!reg) return NM_ERR_NOMEM;
  st = nm_rg_sweep(chf, border, reg, &id);
  if (st == NM_OK) st = layer_regions(chf, reg, id, min_area);
  if (st == NM_OK)
    for (i = 0; i < n; i++) chf->spans[i].reg = reg[i];
  nm_free(&chf->a, reg, n * sizeof *reg);
  return st;
}
