/* distance.c -- distance field of the compact heightfield (Recast's).
 *
 * Every span gets its distance to the nearest region boundary (a span with
 * a missing neighbour or a neighbour of another area) by a two-pass chamfer
 * transform (orthogonal step 2, diagonal step 3), then a 3x3 box blur
 * smooths the field. The watershed partition floods regions from the ridges
 * of this field. chf->max_distance is the maximum before blurring. */
#include "nm_front.h"

/* 0 on boundary spans (fewer than four neighbours of the same area),
 * 0xffff elsewhere. */
static void dist_seed(const nm_chf *chf, uint16_t *d) {
  const int ncols = chf->width * chf->height;
  int c;
  for (c = 0; c < ncols; c++) {
    const nm_ccell *cell = &chf->cells[c];
    int i, end = (int)cell->index + (int)cell->count;
    for (i = (int)cell->index; i < end; i++) {
      int dir, n = 0;
      for (dir = 0; dir < 4; dir++) {
        const int ni = nm_chf_nei_c(chf, c, i, dir);
        if (ni >= 0 && chf->areas[ni] == chf->areas[i]) n++;
      }
      d[i] = n == 4 ? 0xffff : 0;
    }
  }
}

/* Relaxes d[i] from its neighbour in dir (+2) and the diagonal reached by
 * turning to dir2 from there (+3). */
static inline void dist_relax(const nm_chf *chf, uint16_t *d, int c, int i, int dir, int dir2) {
  const int ni = nm_chf_nei_c(chf, c, i, dir);
  int di;
  if (ni < 0) return;
  if (d[ni] + 2 < d[i]) d[i] = (uint16_t)(d[ni] + 2);
  di = nm_chf_nei_c(chf, c + nm_chf_col_step(chf, dir), ni, dir2);
  if (di >= 0 && d[di] + 3 < d[i]) d[i] = (uint16_t)(d[di] + 3);
}

/* The forward and backward sweeps of the chamfer transform. */
static void dist_sweeps(const nm_chf *chf, uint16_t *d) {
  const int n = chf->width * chf->height;
  int c, i;
  /* forward: from -x and -z (and the two diagonals between them) */
  for (c = 0; c < n; c++) {
    const nm_ccell *cell = &chf->cells[c];
    for (i = (int)cell->index; i < (int)(cell->index + cell->count); i++) {
      dist_relax(chf, d, c, i, 0, 3);
      dist_relax(chf, d, c, i, 3, 2);
    }
  }
  /* backward: from +x and +z */
  for (c = n - 1; c >= 0; c--) {
    const nm_ccell *cell = &chf->cells[c];
    for (i = (int)cell->index; i < (int)(cell->index + cell->count); i++) {
      dist_relax(chf, d, c, i, 2, 1);
      dist_relax(chf, d, c, i, 1, 0);
    }
  }
}

/* Blurred value of span i: the mean of its 3x3 neighbourhood, with the
 * span's own value standing in for missing neighbours. Spans at distance
 * <= 2 stay as they are so boundaries stay sharp. */
static inline uint16_t dist_blur_one(const nm_chf *chf, const uint16_t *src, int c, int i) {
  const int cd = src[i];
  int dir, sum;
  if (cd <= 2) return (uint16_t)cd;
  sum = cd;
  for (dir = 0; dir < 4; dir++) {
    const int ni = nm_chf_nei_c(chf, c, i, dir);
    int di;
    if (ni < 0) {
      sum += cd * 2;
      continue;
    }
    sum += src[ni];
    di = nm_chf_nei_c(chf, c + nm_chf_col_step(chf, dir), ni, (dir + 1) & 3);
    sum += di >= 0 ? src[di] : cd;
  }
  return (uint16_t)((sum + 5) / 9);
}

/* Box blur of the whole field from src into dst (they must differ). */
static void dist_blur(const nm_chf *chf, const uint16_t *src, uint16_t *dst) {
  const int n = chf->width * chf->height;
  int c;
  for (c = 0; c < n; c++) {
    const nm_ccell *cell = &chf->cells[c];
    int i, end = (int)cell->index + (int)cell->count;
    for (i = (int)cell->index; i < end; i++) dst[i] = dist_blur_one(chf, src, c, i);
  }
}

/* Replaces any previous field. Two scratch-free passes over src, then the
 * blur into dst, which becomes chf->dist; src is freed. */
nm_status nm_chf_build_distance(nm_chf *chf) {
  const size_t n = (size_t)chf->span_count, bytes = n * sizeof(uint16_t);
  uint16_t *src, *dst, maxd = 0;
  size_t i;
  if (chf->dist) {
    nm_free(&chf->a, chf->dist, bytes);
    chf->dist = NULL;
  }
  chf->max_distance = 0;
  if (n == 0) return NM_OK;
  src = (uint16_t *)nm_malloc(&chf->a, bytes);
  dst = (uint16_t *)nm_malloc(&chf->a, bytes);
  if (!src || !dst) {
    nm_free(&chf->a, src, bytes);
    nm_free(&chf->a, dst, bytes);
    return NM_ERR_NOMEM;
  }
  dist_seed(chf, src);
  dist_sweeps(chf, src);
  for (i = 0; i < n; i++)
    if (src[i] > maxd) maxd = src[i];
  chf->max_distance = maxd;
  dist_blur(chf, src, dst);
  nm_free(&chf->a, src, bytes);
  chf->dist = dst;
  return NM_OK;
}
