/* nm_region.h -- helpers shared by the front half of the build (area,
 * distance and the three region partitions): walking the compact
 * heightfield, growable scratch arrays, and the region records that region
 * merging and layer merging work on. Internal to src/voxel. */
#ifndef NM_FRONT_H
#define NM_FRONT_H

#include "nm_voxel.h"

/* Span index of the neighbour of span i in direction dir, or -1 when there
 * is no link: one load from the table nm_chf_build makes, where the link
 * bits would need the neighbour column's first index. */
static inline int nm_chf_nei(const nm_chf *chf, int i, int dir) {
  return (int)chf->nei[i * 4 + dir];
}

/* Grows the array whose pointer is at pp (any T **, *cap elements of elem
 * bytes) to hold at least need elements, doubling; NM_ERR_NOMEM leaves it
 * as it was. */
NM_INTERNAL nm_status nm_grow(const nm_alloc *a, void *pp, int *cap, int need, size_t elem);

/* ---- region records (region.c) ---- */

/* A list of ints living in an nm_rg_arena: data[off .. off + len). */
typedef struct nm_rg_list {
  int off, len, cap;
} nm_rg_list;

typedef struct nm_rg_region {
  int span_count;
  uint16_t id;          /* current id; merged regions take the id of their target */
  uint8_t area;
  uint8_t overlap;      /* shares a column with itself (watershed/monotone) */
  uint8_t visited, to_border;
  uint16_t ymin, ymax;
  nm_rg_list cons;      /* neighbouring region ids around the outline, in order */
  nm_rg_list floors;    /* region ids found above or below in the same columns */
} nm_rg_region;

/* Regions 0 .. nreg-1 and the arena holding their lists. */
typedef struct nm_rg_set {
  const nm_alloc *a;
  nm_rg_region *regs;
  int nreg;
  int *data;            /* list arena */
  int len, cap;
  int *tmp;             /* scratch ints */
  int tmp_cap;
} nm_rg_set;

NM_INTERNAL nm_status nm_rg_set_init(nm_rg_set *set, const nm_alloc *a, int nreg);
NM_INTERNAL void nm_rg_set_free(nm_rg_set *set);
static inline int *nm_rg_items(const nm_rg_set *set, const nm_rg_list *l) {
  return set->data ? set->data + l->off : set->data; /* no arithmetic on NULL */
}
NM_INTERNAL nm_status nm_rg_push(nm_rg_set *set, nm_rg_list *l, int v);
NM_INTERNAL nm_status nm_rg_push_unique(nm_rg_set *set, nm_rg_list *l, int v);
NM_INTERNAL int nm_rg_contains(const nm_rg_set *set, const nm_rg_list *l, int v);

/* Gives the four border strips of a tiled build their own region ids
 * (flagged NM_BORDER_REG), starting at *next_id. */
NM_INTERNAL void nm_rg_paint_borders(const nm_chf *chf, int border, uint16_t *reg, int *next_id);
/* Renumbers region ids: ids of kept regions become 1..n in order of their
 * first record; border ids stay. Writes them into reg; returns n. */
NM_INTERNAL int nm_rg_compact_ids(nm_rg_set *set, const nm_chf *chf, uint16_t *reg);
/* Removes regions smaller than min_area and merges those up to merge_area
 * into neighbours (the watershed and monotone post-pass); sets
 * chf->max_regions. reg holds ids < max_id + 1. */
NM_INTERNAL nm_status nm_rg_merge_and_filter(nm_chf *chf, uint16_t *reg, int max_id, int min_area,
                                             int merge_area);
/* The monotone sweep (region_monotone.c): one region per run of spans along
 * x, joined with the run below when that is its only neighbour. */
NM_INTERNAL nm_status nm_rg_sweep(const nm_chf *chf, int border, uint16_t *reg, int *max_id);

/* Region ids must stay below the border flag. */
#define NM_RG_MAX_ID (NM_BORDER_REG - 1)

#endif
