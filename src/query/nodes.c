/* nodes.c -- read access to the node pool of the last A* search (Detour's
 * dtNavMeshQuery::getNodePool), for drawing what a search looked at. */
#include "nm_query.h"

int nm_query_node_count(const nm_query *q) { return q ? (int)q->pool.count : 0; }

nm_status nm_query_get_node(const nm_query *q, int i, nm_node_info *out) {
  const nm_node *n;
  if (!q || !out || i < 0 || (uint32_t)i >= q->pool.count) return NM_ERR_PARAM;
  n = &q->pool.nodes[i];
  out->ref = n->id;
  nm_vcopy(out->pos, n->pos);
  out->cost = n->cost;
  out->total = n->total;
  out->parent = (int)n->pidx - 1;
  out->closed = (n->flags & NM_NODE_CLOSED) != 0;
  return NM_OK;
}
