/* nm_optimal.h -- shared parts of the optimal (any-angle) path search:
 * search nodes, the scratch space a query keeps for it, and the interfaces
 * between the search driver (optimal.c), successor generation
 * (optimal_expand.c), what is remembered about polygons (optimal_mesh.c)
 * and about the polygon graph (optimal_cuts.c), and the path output
 * (optimal_path.c). See optimal.c for the algorithm.
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
  NM_OPT_OFFMESH = 4,  /* `from` is the off-mesh connection that led to `poly` */
  NM_OPT_MOVED = 8,    /* the root lay on the interval's line and moved to its nearer end */
  NM_OPT_VIAR = 16,    /* ... from the right end of the parent's interval (a turn the path keeps) */
  NM_OPT_VIAL = 32     /* ... from the left end of it */
};
/* Above the flags: the number of the portal record (among those of the
 * polygon `from`) that holds the interval. */
#define NM_OPT_PSHIFT 16

/* Mesh-point descriptors: what an interval end is, so that corners can be
 * tested and roots recognised. */
#define NM_OPT_VERT (1ull << 62)  /* | vertex slot << 32 | ref of a polygon using it */
#define NM_OPT_PEND (2ull << 62)  /* | edge << 40 | byte << 32 | ref: end of a partial portal */
#define NM_OPT_OFFM (3ull << 62)  /* | end << 32 | ref of an off-mesh connection */
#define NM_OPT_KIND (3ull << 62)

typedef struct nm_opt_node {
  double root[2];            /* root point (x, -z) */
  double left[2], right[2];  /* interval, as seen from the root */
  double g;                  /* path length to the root */
  uint64_t lkey, rkey;       /* root keys of the interval ends, 0 where no corner */
  uint64_t rootkey;          /* root identity for root-level pruning (0: none) */
  nm_polyref poly;           /* polygon the interval leads into */
  nm_polyref from;           /* polygon whose edge holds the interval */
  uint32_t parent;           /* index + 1 of the parent node, 0 for the start */
  uint32_t flags;            /* NM_OPT_* */
} nm_opt_node;

/* Where a node lies in its portal's dominance chain, kept beside the nodes
 * (same index) so that walking a chain reads 12 bytes a node, not 96: the
 * part [t0, t1] of the portal (a -> b) its interval covers, rounded to
 * float, and the previous node through the same portal. */
typedef struct nm_opt_span {
  float t0, t1;
  uint32_t chain;            /* index + 1 of the previous node through the same portal */
} nm_opt_span;

/* An entry of the per-search hash tables (root g values, repeated views).
 * Entries of older searches (other stamp) count as empty. */
typedef struct nm_opt_entry {
  uint64_t key;
  double g;
  uint32_t stamp;
} nm_opt_entry;

/* An open-list entry: a node index with its keys. */
typedef struct nm_opt_open {
  double f, g;
  uint32_t idx;
} nm_opt_open;

/* A portal of a polygon as the search sees it (optimal_mesh.c): the edge,
 * or the part of it a tile-border link covers, into a neighbour that passes
 * the filter. One 80-byte record; a polygon's records are consecutive. */
typedef struct nm_opt_portal {
  double a[2], b[2];         /* ends (x, -z), a -> b counter-clockwise */
  uint64_t ka, kb;           /* root keys of the ends (0: no corner), see NM_PO_KA/KB */
  nm_polyref nei;            /* the polygon behind it */
  nm_polyref own;            /* the polygon it belongs to */
  uint32_t head;             /* newest node made through it + 1 (dominance), this search */
  uint32_t stamp;            /* head belongs to the search with this stamp */
  uint8_t edge;              /* edge of the polygon */
  uint8_t flags;             /* NM_PO_* */
  uint8_t bmin, bmax;        /* part of the edge, in 1/255 (0, 255: all of it) */
  uint32_t lo, hi;           /* the part of the mesh beyond (NM_PO_BEYOND_*) */
  nm_polyref mnei;           /* the mesh polygon behind it (nei: the search polygon holding it) */
} nm_opt_portal;

#define NM_PO_KA 1           /* ka is known */
#define NM_PO_KB 2           /* kb is known */
#define NM_PO_DEAD 4         /* nei's only link leads back here: a cul-de-sac but for the goal */
#define NM_PO_BEYOND_IN 8    /* the part beyond, hanging off this polygon alone, holds the
                              * goal only when its side number is in [lo, hi] */
#define NM_PO_BEYOND_OUT 16  /* ... only when it is not in [lo, hi] */

/* What the search remembers about one polygon: where its portal records
 * are. Valid while gen equals nm_opt.cgen (same mesh generation and filter
 * flags as when it was made). */
typedef struct nm_opt_pinfo {
  uint32_t gen;
  uint32_t first;            /* its first record in nm_opt.portals */
  uint16_t count;            /* number of records */
  uint16_t offmesh;          /* it has off-mesh connections */
} nm_opt_pinfo;

/* A node of the path's chain and where the path crosses its interval
 * (optimal_corridor.c; kept in the open list's memory once the search is
 * done, so the same size as nm_opt_open). */
typedef struct nm_opt_hop {
  double at[2];
  uint32_t idx;
} nm_opt_hop;
typedef char nm_opt_hop_fits[sizeof(nm_opt_hop) <= sizeof(nm_opt_open) ? 1 : -1];

/* Scratch space of the optimal search, owned by the query and grown (never
 * shrunk) up to `limit` nodes, so warm queries allocate nothing. */
typedef struct nm_opt {
  nm_opt_node *nodes;
  nm_opt_span *spans;        /* [scap >= cap], beside nodes */
  nm_opt_open *heap;         /* open list, [hcap] */
  uint32_t count, cap, hcap, limit, hsize, scap;
  nm_opt_entry *roots;       /* [rmask + 1] */
  uint32_t rmask, rcount, stamp;
  /* Portal records depend only on the mesh and the filter's flags; they
   * are kept across searches until either changes (generation cgen). */
  nm_opt_pinfo *pinfo;       /* [npinfo], by dense polygon number */
  uint32_t *tbase;           /* [ntbase] dense number of polygon 0 of each tile slot */
  uint32_t npinfo, ntbase;   /* (capacities) */
  uint32_t npoly;            /* polygons of the mesh (dense numbers below it) */
  nm_opt_portal *portals;    /* [pcap], the first pused made */
  uint32_t pused, pcap, plimit;
  uint32_t cgen, mesh_gen;
  uint16_t inc, exc;
  int mesh_set;              /* mesh_gen/inc/exc describe the records */
  /* The block-cut forest of the polygon graph (optimal_cuts.c), per mesh
   * generation: cut polygons and the blocks of links as forest nodes. */
  uint32_t *vcut;            /* [nvcut] forest node of each cut polygon, else ~0 */
  uint32_t *lbase;           /* [nlbase] dense number of link 0 of each tile slot */
  uint32_t *lblock;          /* [nlblock] block of each link's edge, by dense link number */
  uint32_t *bpar, *btin, *btout; /* [nbcap] each: parent, Euler tour interval */
  uint32_t nvcut, nlbase, nlblock, nbcap, nbc;
  int cuts;                  /* the forest is made */
  /* Merged search polygons (optimal_groups.c), per mesh generation and
   * filter flags: group (dense number of its first polygon) of each
   * polygon, members in a list, and each polygon's ref. */
  uint32_t *grp, *gnext, *gfirst;
  nm_polyref *gref;
  uint32_t ngrp, ngnext, ngfirst, ngref;
  nm_polyref *cor;           /* corridor for paths that need the funnel, [ccap] */
  uint32_t ccap;
  float *tpts;               /* a whole path when the caller's arrays are short, [3 * ntpts] */
  nm_polyref *trefs;         /* [ntrefs] */
  uint32_t ntpts, ntrefs;
  /* Breadth-first walk over the polygons a start reaches (partial paths):
   * the walk that marked each polygon (by dense number), the queue, and
   * a lower bound of each queued polygon's distance to the goal (from its
   * disk; DBL_MAX for off-mesh connections). */
  uint32_t *wmark;           /* [nwmark] */
  nm_polyref *wqueue;        /* [nwqueue] */
  double *wgap;              /* [nwgap] */
  uint32_t nwmark, nwqueue, nwgap, wstamp;
  /* A disk holding each polygon in X/Z (x, -z, radius, padding; by dense number),
   * for the walk's lower bounds; made on the first walk of a mesh
   * generation (disk_gen). */
  float *disk;               /* [4 * ndisk] */
  uint32_t ndisk, disk_gen;
  int disk_set;
} nm_opt;

/* One search. */
typedef struct nm_opt_ctx {
  nm_query *q;
  const nm_navmesh *m;
  const nm_filter *f;
  nm_opt *s;
  nm_polyref goal_ref;
  nm_polyref goal_grp;       /* the search polygon holding the goal */
  double goal[2];
  double eps, eps2;          /* distance tolerance [Units: wu], and its square */
  uint32_t side;             /* the goal's place in the block-cut forest (~0: no pruning) */
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

/* optimal_expand.c: successors of node n (index + 1: parent) into out[]
 * (at most NM_OPT_MAX_SUCC), same[i] = 1 where successor i keeps n's root
 * (for intermediate pruning). */
NM_INTERNAL int nm_opt_successors(nm_opt_ctx *c, const nm_opt_node *n, uint32_t parent, nm_opt_node *out,
                                  uint8_t *same);

/* optimal_mesh.c: portal records. */
/* Makes the tables fit mesh m and filter f (forgetting records when either
 * changed); NM_ERR_NOMEM. */
NM_INTERNAL nm_status nm_opt_mesh_sync(nm_query *q, nm_opt *s, const nm_navmesh *m, const nm_filter *f);
/* Makes the portal records of polygon ref (entry pi). */
NM_INTERNAL void nm_opt_portals_make(nm_opt_ctx *c, nm_opt_pinfo *pi, nm_polyref ref);
/* The part of its edge that link l of polygon p (tile t) crosses, as the
 * funnel sees it, in (x, -z): a -> b. */
NM_INTERNAL void nm_opt_link_ends(const nm_tile *t, const nm_poly *p, const nm_link *l, double *a, double *b);
/* Root key (0: no corner) of end a (b = 0) or b (b = 1) of portal pr,
 * worked out and remembered. */
NM_INTERNAL uint64_t nm_opt_end_key_make(const nm_opt_ctx *c, nm_opt_portal *pr, int b);

/* Dense number of polygon r (index into pinfo, vcut). */
static inline uint32_t nm_opt_dense(const nm_opt *s, const nm_navmesh *m, nm_polyref r) {
  return s->tbase[nm_ref_tile(m, r)] + nm_ref_poly(m, r);
}

/* The portal records of polygon ref (valid until the next call), and in
 * *pi its entry. */
static inline nm_opt_portal *nm_opt_portals(nm_opt_ctx *c, nm_polyref ref, const nm_opt_pinfo **pi) {
  nm_opt_pinfo *e = &c->s->pinfo[nm_opt_dense(c->s, c->m, ref)];
  if (e->gen != c->s->cgen) nm_opt_portals_make(c, e, ref);
  *pi = e;
  return &c->s->portals[e->first];
}

/* Root key (0: no corner) of end a (b = 0) or b (b = 1) of portal pr. */
static inline uint64_t nm_opt_end_key(const nm_opt_ctx *c, nm_opt_portal *pr, int b) {
  if (pr->flags & (b ? NM_PO_KB : NM_PO_KA)) return b ? pr->kb : pr->ka;
  return nm_opt_end_key_make(c, pr, b);
}

/* Grows array *p of *cap items of `size` bytes to n items (never shrinks). */
NM_INTERNAL int nm_opt_grow_array(nm_query *q, void **p, uint32_t *cap, uint32_t n, size_t size);

/* optimal_groups.c: merged search polygons for mesh m. */
NM_INTERNAL nm_status nm_opt_groups_make(nm_query *q, nm_opt *s, const nm_navmesh *m);
/* X/Z distance from p to the nearest mesh polygon of search polygon g,
 * that polygon in *member. */
NM_INTERNAL double nm_opt_group_gap(const nm_opt_ctx *c, nm_polyref g, const double *p, nm_polyref *member);
/* X/Z distance from p (x, -z) to mesh polygon ref: 0 inside it. */
NM_INTERNAL double nm_opt_poly_gap(const nm_navmesh *m, nm_polyref ref, const double *p);
/* The search polygon holding polygon r, named by its group's first polygon. */
static inline nm_polyref nm_opt_group(const nm_opt_ctx *c, nm_polyref r) {
  return c->s->gref[c->s->grp[nm_opt_dense(c->s, c->m, r)]];
}

/* optimal_cuts.c: the block-cut forest, made for the query's mesh. */
NM_INTERNAL nm_status nm_opt_cuts_make(nm_query *q, nm_opt *s);
/* The goal's place in the forest, for nm_opt_ctx.side. */
NM_INTERNAL uint32_t nm_opt_goal_side(const nm_opt_ctx *c);
/* Sets the NM_PO_BEYOND_* test of the record of link `link` of polygon ref. */
NM_INTERNAL void nm_opt_portal_cut(const nm_opt *s, nm_polyref ref, const nm_navmesh *m, uint32_t link,
                                   nm_opt_portal *pr);

/* 1 when the goal lies beyond portal pr -- or may, as far as is known. */
static inline int nm_opt_goal_beyond(const nm_opt_ctx *c, const nm_opt_portal *pr) {
  int in;
  if (!(pr->flags & (NM_PO_BEYOND_IN | NM_PO_BEYOND_OUT)) || c->side == 0xffffffffu) return 1;
  in = c->side >= pr->lo && c->side <= pr->hi;
  return (pr->flags & NM_PO_BEYOND_IN) ? in : !in;
}

/* optimal.c: root-level pruning. Records g for the root key when it is the
 * best so far; returns 0 when a node rooted there at g should be dropped. */
NM_INTERNAL int nm_opt_root_check(nm_opt_ctx *c, uint64_t key, double g);
/* Like nm_opt_root_check, but also 0 when key was recorded at the same g. */
NM_INTERNAL int nm_opt_seen(nm_opt_ctx *c, uint64_t key, double g);
/* Interval dominance: 0 when the node at index xi, through the part
 * [t0, t1] of portal pr, is no better anywhere on its interval than a node
 * already made through pr; else it is remembered in pr's chain.
 * (nm_opt_dominated: the chain is not empty.) */
NM_INTERNAL int nm_opt_dominated(nm_opt_ctx *c, nm_opt_portal *pr, uint32_t xi);
static inline int nm_opt_dominance(nm_opt_ctx *c, nm_opt_portal *pr, uint32_t xi, double t0, double t1) {
  nm_opt_span *sp = &c->s->spans[xi];
  sp->t0 = (float)t0;
  sp->t1 = (float)t1;
  if (pr->stamp != c->s->stamp) { /* the first node through pr in this search */
    pr->stamp = c->s->stamp;
    pr->head = xi + 1;
    sp->chain = 0;
    return 1;
  }
  return nm_opt_dominated(c, pr, xi);
}
/* optimal_union.c: interval dominance by several nodes. 1 when the first
 * NM_OPT_UNION_MAX nodes in pr's chain whose spans overlap node xi's
 * together reach every point of xi's interval no worse than xi does (then
 * xi can go). */
#define NM_OPT_UNION_MAX 8
NM_INTERNAL int nm_opt_union_dominated(const nm_opt_ctx *c, const nm_opt_portal *pr, uint32_t xi);
/* Spans (nm_opt_span) are exact within float rounding (6e-8): an end
 * outside another span by more than this is outside for certain. */
#define NM_OPT_SPAN_GAP 1e-6f
/* Runs a search (arguments checked here); *found gets its last node.
 * NM_FALLBACK when the search does not apply (nothing ran then). */
NM_INTERNAL nm_status nm_opt_run(nm_query *q, nm_polyref start_ref, nm_polyref end_ref, const float *start,
                                 const float *end, const nm_filter *filter, nm_opt_ctx *c, uint32_t *found);
/* The query's scratch, made on first use. NULL when out of memory. */
NM_INTERNAL nm_opt *nm_opt_scratch(nm_query *q);
/* optimal_corridor.c: the corridor of mesh polygons of node idx's path,
 * start first, into path [cap] (cut at its end); returns its length. */
NM_INTERNAL uint32_t nm_opt_corridor(nm_opt_ctx *c, uint32_t idx, nm_polyref start_ref, nm_polyref *path,
                                     uint32_t cap);
/* The mesh polygon on the far side (into = 1) or near side (0) of the
 * portal record holding node n's interval (n neither start nor off-mesh). */
NM_INTERNAL nm_polyref nm_opt_portal_mesh(nm_opt_ctx *c, const nm_opt_node *n, int into);

#endif
