/* distance.c -- distance field of the compact heightfield (Recast's).
 *
 * Every span gets its distance to the nearest region boundary (a span with
 * a missing neighbour or a neighbour of another area) by a two-pass chamfer
 * transform (orthogonal step 2, diagonal step 3), then a 3x3 box blur
 * smooths the field. The watershed partition floods regions from the ridges
 * of this field. chf->max_distance is the maximum before blurring. */
#include "nm_region.h"

/* 0 on boundary spans (fewer than four neighbours of the same area),
 * 0xffff elsewhere. */
static void dist_seed(const nm_chf *chf, uint16_t *d) {
  const int n = chf->span_count;
  const int32_t *nei = chf->nei;
  const uint8_t *areas = chf->areas;
  int i, dir;
  for (i = 0; i < n; i++) {
    int k = 0;
    for (dir = 0; dir < 4; dir++) {
      const int ni = nei[i * 4 + dir];
      k += ni >= 0 && areas[ni] == areas[i];
    }
    d[i] = k == 4 ? 0xffff : 0;
  }
}

/* Relaxes d[i] from its neighbour in dir (+2) and the diagonal reached by
 * turning to dir2 from there (+3). */
static inline void dist_relax(const int32_t *nei, uint16_t *d, int i, int dir, int dir2) {
  const int ni = nei[i * 4 + dir];
  int di;
  if (ni < 0) return;
  if (d[ni] + 2 < d[i]) d[i] = (uint16_t)(d[ni] + 2);
  di = nei[ni * 4 + dir2];
  if (di >= 0 && d[di] + 3 < d[i]) d[i] = (uint16_t)(d[di] + 3);
}

/* The forward and backward sweeps of the chamfer transform, in span order
 * (= column order; spans of one column never read each other). */
static void dist_sweeps(const nm_chf *chf, uint16_t *d) {
  const int n = chf->span_count;
  const int32_t *nei = chf->nei;
  int i;
  for (i = 0; i < n; i++) { /* forward: from -x and -z and the diagonals between */
    dist_relax(nei, d, i, 0, 3);
    dist_relax(nei, d, i, 3, 2);
  }
  for (i = n - 1; i >= 0; i--) { /* backward: from +x and +z */
    dist_relax(nei, d, i, 2, 1);
    dist_relax(nei, d, i, 1, 0);
  }
}

/* Blurred value of span i: the mean of its 3x3 neighbourhood, with the
 * span's own value standing in for missing neighbours. Spans at distance
 * <= 2 stay as they are so boundaries stay sharp. */
static inline uint16_t dist_blur_one(const int32_t *nei, const uint16_t *src, int i) {
  const int cd = src[i];
  int dir, sum;
  if (cd <= 2) return (uint16_t)cd;
  sum = cd;
  for (dir = 0; dir < 4; dir++) {
    const int ni = nei[i * 4 + dir];
    int di;
    if (ni < 0) {
      sum += cd * 2;
      continue;
    }
    sum += src[ni];
    di = nei[ni * 4 + ((dir + 1) & 3)];
    sum += di >= 0 ? src[di] : cd;
  }
  return (uint16_t)((sum + 5) / 9);
}

/* Box blur of the whole field from src into dst (they must differ). */
static void dist_blur(const nm_chf *chf, const uint16_t *src, uint16_t *dst) {
  const int n = chf->span_count;
  int i;
  for (i = 0; i < n; i++) dst[i] = dist_blur_one(chf->nei, src, i);
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
