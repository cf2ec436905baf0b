/* nm_optimal.h -- shared parts of the optimal (any-angle) path search:
 * search nodes, the scratch space a query keeps for it, and the interface
 * between the search driver (optimal.c) and successor generation
 * (optimal_expand.c). See optimal.c for the algorithm.
 *
 * Geometry runs in double precision on 2-D points (x, -z): flipping z makes
 * Detour's polygon vertex order counter-clockwise, so orient() > 0 means
 * "to the left" in the usual mathematical sense throughout. */
#ifndef NM_OPTIMAL_H
#define NM_OPTIMAL_H

#include "nm_query.h"

/* Distances below eps are zero, with eps = NM_OPT_EPS * (1 + the largest
 * X/Z coordinate magnitude of the mesh): a few float32 steps, since mesh
 * points (and the two tiles' copies of a border point) carry float32
 * rounding; double rounding in the search is far finer. */
#define NM_OPT_EPS 4e-7

/* Node flags. */
enum {
  NM_OPT_POINT = 1,    /* root lies inside `poly`: every portal of it is seen */
  NM_OPT_FINAL = 2,    /* goal node: g is the whole path length */
  NM_OPT_OFFMESH = 4   /* `from` is the off-mesh connection that led to `poly` */
};

/* Mesh-point descriptors: what a root or an interval end is, so that corners
 * can be tested and roots recognised. 0 = a computed point (no corner). */
#define NM_OPT_VERT (1ull << 62)  /* | vertex index << 32 | ref of a polygon using it */
#define NM_OPT_PEND (2ull << 62)  /* | edge << 40 | byte << 32 | ref: end of a partial portal */
#define NM_OPT_OFFM (3ull << 62)  /* | end << 32 | ref of an off-mesh connection */

typedef struct nm_opt_node {
  double root[2];            /* root point (x, -z) */
  double left[2], right[2];  /* interval, as seen from the root */
  double g, f;               /* path length to the root; g + heuristic */
  uint64_t lkey, rkey;       /* descriptors of the interval ends */
  uint64_t rootkey;          /* root identity for root-level pruning (0: none) */
  nm_polyref poly;           /* polygon the interval leads into */
  nm_polyref from;           /* polygon whose edge holds the interval */
  uint32_t parent;           /* index + 1 of the parent node, 0 for the start */
  uint32_t flags;            /* NM_OPT_* */
} nm_opt_node;

/* Best g per root (open addressing; entries of older searches are empty). */
typedef struct nm_opt_root {
  uint64_t key;
  double g;
  uint32_t stamp;
} nm_opt_root;

/* An open-list entry: a node index with its keys. */
typedef struct nm_opt_open {
  double f, g;
  uint32_t idx;
} nm_opt_open;

/* A remembered corner test (see nm_opt_root_key). */
typedef struct nm_opt_corner {
  uint64_t desc, key;
  uint32_t gen;              /* valid while equal to nm_opt.cgen */
  int corner;
} nm_opt_corner;

/* Scratch space of the optimal search, owned by the query and grown (never
 * shrunk) up to `limit` nodes, so warm queries allocate nothing. */
typedef struct nm_opt {
  nm_opt_node *nodes;
  nm_opt_open *heap;         /* open list, [hcap] */
  uint32_t count, cap, hcap, limit, hsize;
  nm_opt_root *roots;        /* [rmask + 1] */
  uint32_t rmask, rcount, stamp;
  /* Corner tests depend only on the mesh and the filter's flags; they are
   * kept across searches in a direct-mapped cache until either changes. */
  nm_opt_corner *corners;    /* [cmask + 1] */
  uint32_t cmask, cgen, mesh_gen;
  uint16_t inc, exc;
  nm_polyref *cor;           /* corridor for paths that need the funnel, [ccap] */
  uint32_t ccap;
} nm_opt;

/* One search. */
typedef struct nm_opt_ctx {
  nm_query *q;
  const nm_navmesh *m;
  const nm_filter *f;
  nm_opt *s;
  nm_polyref goal_ref;
  double goal[2];
  double eps;                /* distance tolerance [Units: wu] */
  nm_status st;              /* NM_OUT_OF_NODES once nodes were dropped */
} nm_opt_ctx;

#define NM_OPT_MAX_SUCC 96

static inline double nm_opt_orient(const double *o, const double *a, const double *b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}
static inline double nm_opt_dist(const double *a, const double *b) {
  const double dx = b[0] - a[0], dy = b[1] - a[1];
  return sqrt(dx * dx + dy * dy);
}
static inline void nm_opt_pt(double *d, const float *v) {
  d[0] = v[0];
  d[1] = -(double)v[2];
}

/* optimal_expand.c: successors of node n into out[] (at most
 * NM_OPT_MAX_SUCC; parent and f are left to the caller), same[i] = 1 where
 * successor i keeps n's root (for intermediate pruning). */
NM_INTERNAL int nm_opt_successors(nm_opt_ctx *c, const nm_opt_node *n, nm_opt_node *out,
                                  uint8_t *same);
/* The shortest way from the root of n through its interval to the goal. */
NM_INTERNAL double nm_opt_heuristic(const nm_opt_node *n, const double *goal, double eps);
/* Root identity of a descriptor for root-level pruning; *corner gets whether
 * a path may turn there (a wall touches the point). */
NM_INTERNAL uint64_t nm_opt_root_key(const nm_opt_ctx *c, uint64_t desc, int *corner);

/* optimal.c: root-level pruning. Records g for the root key when it is the
 * best so far; returns 0 when a node rooted there at g should be dropped. */
NM_INTERNAL int nm_opt_root_check(nm_opt_ctx *c, uint64_t key, double g);
/* Like nm_opt_root_check, but also 0 when key was recorded at the same g. */
NM_INTERNAL int nm_opt_seen(nm_opt_ctx *c, uint64_t key, double g);

#endif
