/* region_monotone.c -- monotone partition of the compact heightfield
 * (Recast's sweep).
 *
 * Rows are swept along +z. In each row every run of connected spans along
 * x becomes a provisional region; a run continues the region of the row
 * below when all its links to that row go to one region and that region
 * links to no other run of this row, otherwise it starts a new region. The
 * regions are monotone in z, so they need no holes to be traced, and the
 * pass is fast; the shapes are long and thin. region_merge.c then removes
 * and merges small regions, as after the watershed. The layer partition
 * (region_layers.c) starts from the same sweep. */
#include "nm_region.h"

#define SWEEP_NULL_NEI (-1)

typedef struct sweep_run {
  int id;   /* final region id of the run */
  int ns;   /* spans of the run linked to nei */
  int nei;  /* the one region below, 0 none, SWEEP_NULL_NEI several */
} sweep_run;

typedef struct sweep_ctx {
  const nm_chf *chf;
  uint16_t *reg;
  sweep_run *runs;   /* [max spans in a row + 1] */
  int *prev;         /* links from this row per region id below */
  int *touched;      /* region ids with prev != 0 */
  int ntouched, nprev;
} sweep_ctx;

/* Most spans in any row (+1 so run ids start at 1). */
static int sweep_max_row(const nm_chf *chf) {
  int x, z, best = 0;
  for (z = 0; z < chf->height; z++) {
    int n = 0;
    for (x = 0; x < chf->width; x++) n += (int)chf->cells[x + z * chf->width].count;
    best = nm_maxi(best, n);
  }
  return best + 1;
}

/* Assigns span i to a run of this row: the run of its -x
 * neighbour or a new one (*nrun); notes its link to the row below. */
static void sweep_span(sweep_ctx *s, int i, int *nrun) {
  const nm_chf *chf = s->chf;
  const int left = nm_chf_nei(chf, i, 0), down = nm_chf_nei(chf, i, 3);
  int run = 0;
  if (left >= 0 && !(s->reg[left] & NM_BORDER_REG) && chf->areas[left] == chf->areas[i])
    run = s->reg[left];
  if (!run) {
    run = (*nrun)++;
    s->runs[run].ns = 0;
    s->runs[run].nei = 0;
  }
  if (down >= 0 && s->reg[down] && !(s->reg[down] & NM_BORDER_REG) &&
      chf->areas[down] == chf->areas[i]) {
    const int nr = s->reg[down];
    sweep_run *r = &s->runs[run];
    if (r->nei == 0 || r->nei == nr) {
      r->nei = nr;
      r->ns++;
      if (nr < s->nprev && s->prev[nr]++ == 0) s->touched[s->ntouched++] = nr;
    } else {
      r->nei = SWEEP_NULL_NEI;
    }
  }
  s->reg[i] = (uint16_t)run;
}

/* Gives each run of the row its final id and writes it to the spans. */
static nm_status sweep_finish_row(sweep_ctx *s, int z, int border, int nrun, int *id) {
  const nm_chf *chf = s->chf;
  int k, x, i;
  /* A run continues the region below only when every link from this row
   * into that region comes from this run (prev counts them per region),
   * so regions never fork upward. */
  for (k = 1; k < nrun; k++) {
    sweep_run *r = &s->runs[k];
    if (r->nei > 0 && r->nei < s->nprev && s->prev[r->nei] == r->ns) {
      r->id = r->nei;
    } else {
      if (*id > NM_RG_MAX_ID) return NM_ERR_PARAM; /* too many regions */
      r->id = (*id)++;
    }
  }
  for (x = border; x < chf->width - border; x++) {
    const nm_ccell *c = &chf->cells[x + z * chf->width];
    for (i = (int)c->index; i < (int)(c->index + c->count); i++)
      if (s->reg[i] > 0 && s->reg[i] < nrun) s->reg[i] = (uint16_t)s->runs[s->reg[i]].id;
  }
  /* clear only the counters this row touched (Recast clears all ids) */
  for (k = 0; k < s->ntouched; k++) s->prev[s->touched[k]] = 0;
  s->ntouched = 0;
  return NM_OK;
}

/* Sweeps the rows inside the border, assigning and resolving runs. */
static nm_status sweep_rows(sweep_ctx *s, int border, int *id) {
  const nm_chf *chf = s->chf;
  int x, z, i;
  for (z = border; z < chf->height - border; z++) {
    int nrun = 1;
    for (x = border; x < chf->width - border; x++) {
      const nm_ccell *c = &chf->cells[x + z * chf->width];
      for (i = (int)c->index; i < (int)(c->index + c->count); i++)
        if (chf->areas[i] != NM_NULL_AREA) sweep_span(s, i, &nrun);
    }
    if (sweep_finish_row(s, z, border, nrun, id) != NM_OK) return NM_ERR_PARAM;
  }
  return NM_OK;
}

/* Runs the sweep into reg (zeroed by the caller); *max_id gets one past
 * the last id used, border strips included. */
nm_status nm_rg_sweep(const nm_chf *chf, int border, uint16_t *reg, int *max_id) {
  const nm_alloc *a = &chf->a;
  const int maxrow = sweep_max_row(chf);
  sweep_ctx s;
  nm_status st = NM_ERR_NOMEM;
  int id = 1;
  memset(&s, 0, sizeof s);
  s.chf = chf;
  s.reg = reg;
  s.nprev = NM_RG_MAX_ID + 1;
  s.runs = (sweep_run *)nm_malloc(a, (size_t)maxrow * sizeof *s.runs);
  s.prev = (int *)nm_calloc(a, (size_t)s.nprev * sizeof *s.prev);
  s.touched = (int *)nm_malloc(a, (size_t)maxrow * sizeof *s.touched);
  if (s.runs && s.prev && s.touched) {
    nm_rg_paint_borders(chf, border, reg, &id);
    st = sweep_rows(&s, border, &id);
    *max_id = id;
  }
  nm_free(a, s.runs, (size_t)maxrow * sizeof *s.runs);
  nm_free(a, s.prev, (size_t)s.nprev * sizeof *s.prev);
  nm_free(a, s.touched, (size_t)maxrow * sizeof *s.touched);
  return st;
}

/* Sweep, then the same merge and filter as the watershed. */
nm_status nm_chf_regions_monotone(nm_chf *chf, int border, int min_area, int merge_area) {
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
  if (st == NM_OK) st = nm_rg_merge_and_filter(chf, reg, id, min_area, merge_area);
  if (st == NM_OK)
    for (i = 0; i < n; i++) chf->spans[i].reg = reg[i];
  nm_free(&chf->a, reg, n * sizeof *reg);
  return st;
}
