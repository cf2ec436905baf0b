/* areacost.c -- area-change costs of query filters (Unreal's addition to
 * Detour's filter: a fixed cost for a step that enters a polygon of another
 * area, so paths avoid needless area switches).
 *
 * A filter holds a short list of (from, to, cost) entries; either area may be
 * the NM_AREA_ANY wildcard. The list is only consulted when a step actually
 * changes area and the list is not empty, so filters without entries cost
 * exactly what Detour's does. */
#include "nm_query.h"

/* How specific an entry is for (from, to): 3 exact pair, 2 (from, ANY),
 * 1 (ANY, to), 0 (ANY, ANY), -1 no match. */
static int change_rank(const nm_area_change *c, int from, int to) {
  const int f = c->from == from, t = c->to == to;
  if ((!f && c->from != NM_AREA_ANY) || (!t && c->to != NM_AREA_ANY)) return -1;
  return f ? (t ? 3 : 2) : (t ? 1 : 0);
}

float nm_filter_area_change(const nm_filter *f, int from, int to) {
  float cost = 0;
  int i, best = -1;
  if (from == to && from != NM_AREA_ANY) return 0;
  for (i = 0; i < f->area_change_count && i < NM_MAX_AREA_CHANGES; i++) {
    const int r = change_rank(&f->area_change[i], from, to);
    if (r > best) {
      best = r;
      cost = f->area_change[i].cost;
    }
  }
  return cost;
}

static int valid_area(int a) { return (a >= 0 && a < NM_MAX_AREAS) || a == NM_AREA_ANY; }

nm_status nm_filter_set_area_change(nm_filter *f, int from, int to, float cost) {
  int i;
  if (!f || !valid_area(from) || !valid_area(to) || !(cost >= 0) || !isfinite(cost))
    return NM_ERR_PARAM;
  for (i = 0; i < f->area_change_count; i++) {
    nm_area_change *c = &f->area_change[i];
    if (c->from == from && c->to == to) {
      c->cost = cost;
      return NM_OK;
    }
  }
  if (f->area_change_count < 0 || f->area_change_count >= NM_MAX_AREA_CHANGES) return NM_ERR_PARAM;
  f->area_change[i].from = (uint8_t)from;
  f->area_change[i].to = (uint8_t)to;
  f->area_change[i].cost = cost;
  f->area_change_count++;
  return NM_OK;
}
