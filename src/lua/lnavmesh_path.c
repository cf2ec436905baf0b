/* lnavmesh_path.c -- the path queries of a NavMesh: findNearestPoly, findPath
 * (A* or optimal), findStraightPath, and path/paths (all three in one
 * call), with results written into caller tables when asked. */
#include "lnm.h"

/* ---- queries ---- */

/* mesh:findNearestPoly(x,y,z [, hx,hy,hz [, filter]]) -> ref, x, y, z, over */
static int mesh_find_nearest(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float c[3], ext[3] = {2, 4, 2}, pt[3];
  const nm_filter *f;
  nm_polyref ref;
  int over = 0;
  nm_status st;
  lnm_check_point(L, 2, c);
  if (!lua_isnoneornil(L, 5)) {
    lnm_check_point(L, 5, ext);
    if (ext[0] < 0 || ext[1] < 0 || ext[2] < 0) luaL_argerror(L, 5, "half extents must be >= 0 (each of hx, hy, hz)");
  }
  f = lnm_opt_filter(L, 8, h);
  if ((st = nm_query_find_nearest(h->q, c, ext, f, &ref, pt, &over)) < 0)
    return lnm_push_fail(L, "findNearestPoly", st, NULL);
  lua_pushinteger(L, (lua_Integer)ref);
  lnm_push_point(L, pt);
  lua_pushboolean(L, over);
  return 5;
}

/* ---- results into caller-supplied tables (no garbage per call) ----
 * A query given an output table writes its result list there (items 1..n,
 * and clears what followed from an earlier, longer result) and returns that
 * same table; without one it makes a new table. */

/* Table field `key` of options t, pushed and its index returned; 0 (nothing
 * pushed) when absent. Raises when it is not a table. */
static int out_field(lua_State *L, int t, const char *key) {
  if (!t) return 0;
  lua_getfield(L, t, key);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  if (!lua_istable(L, -1)) lnm_opterror(L, key, "table expected, got %s", lnm_got(L, lua_gettop(L)));
  return lua_gettop(L);
}

/* Pushes the table to fill: a copy of out (when given) or a new table. */
static void out_begin(lua_State *L, int out, int n) {
  if (out) lua_pushvalue(L, out);
  else lua_createtable(L, n, 0);
}

/* Clears items n+1 ... of the table on top (the tail of an older result).
 * Items 1..n are set, so the table's length (a border) is where the older
 * result ended: one lookup instead of a read per cleared item. */
static void out_end(lua_State *L, int n) {
  const int len = (int)lua_rawlen(L, -1);
  while (n < len) {
    lua_pushnil(L);
    lua_rawseti(L, -2, ++n);
  }
}

/* A list of n floats into out (0: a new table), left on the stack. */
static void push_floats_into(lua_State *L, int out, const float *v, int n) {
  int i;
  out_begin(L, out, n);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  if (out) out_end(L, n);
}

/* A list of n references into out (0: a new table), left on the stack. */
static void push_refs_into(lua_State *L, int out, const nm_polyref *refs, int n) {
  int i;
  if (!out) {
    lnm_push_refs(L, refs, n);
    return;
  }
  out_begin(L, out, n);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)refs[i]);
    lua_rawseti(L, -2, i + 1);
  }
  out_end(L, n);
}

/* The optional options table at idx (its index into *t, 0 when nil or
 * absent) and which of names[] it holds: bit i for names[i]. The readers
 * then look up only the keys present (KEY below): a lookup costs as much
 * for an absent key as for a present one, and a reused { out = t } table
 * would cost more than no options. The values of the names in `grab` are
 * taken in the same pass (a lookup by name hashes the name on LuaJIT):
 * pushed from index *slot on, one per bit of grab in names order, nil when
 * absent. Anything else (not a table, a key not in names) goes to
 * lnm_opt_table, which raises. */
static unsigned opt_keys(lua_State *L, int idx, const char *const *names, int *t, unsigned grab, int *slot) {
  unsigned keys = 0, i, b;
  if (slot) *slot = lua_gettop(L) + 1;
  for (b = grab; b; b &= b - 1) lua_pushnil(L);
  if (!lua_istable(L, idx)) {
    *t = lnm_opt_table(L, idx, names); /* 0 for nil or none */
    return 0;
  }
  *t = lnm_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, *t)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    for (i = 0; k && names[i] && (names[i][0] != k[0] || strcmp(names[i], k) != 0); i++) {}
    if (!k || !names[i]) lnm_opt_table(L, idx, names); /* raises */
    keys |= 1u << i;
    if (grab >> i & 1u) {
      int n = 0;
      for (b = grab & ((1u << i) - 1); b; b &= b - 1) n++;
      lua_replace(L, *slot + n);
    } else {
      lua_pop(L, 1);
    }
  }
  return keys;
}

/* The output table option `key` taken into stack slot idx (opt_keys): idx,
 * or 0 when absent. Raises when it is not a table. */
static int out_slot(lua_State *L, int idx, const char *key) {
  if (lua_isnil(L, idx)) return 0;
  if (!lua_istable(L, idx)) luaL_error(L, "bad option '%s' (table expected, got %s)", key, luaL_typename(L, idx));
  return idx;
}

/* The options table t when names[i] is among keys, else 0 (no table). */
#define KEY(keys, i, t) (((keys) >> (i) & 1u) ? (t) : 0)
/* names[0..2] of every options list that has straight-path options. */
#define STRAIGHT_KEYS 7u

/* The outcome of reachableOnly: start and goal on different islands. */
static int push_unreachable(lua_State *L, const char *what) {
  nm_diag d;
  d.field = NULL;
  strcpy(d.msg, "start and goal are on different islands");
  return lnm_push_fail(L, what, NM_ERR_NO_PATH, &d);
}

/* ---- optimal paths (issue 8): the `optimal` option of findPath ---- */

/* A* corridor, or the optimal one (then the buffer grows until the whole
 * corridor fits), into h->route.corridor; *n gets its length. */
static nm_status run_find_path(lua_State *L, lnm_mesh *h, int optimal, int max_iter, nm_polyref s,
                               nm_polyref e, const float *sp, const float *ep, const nm_filter *f, int *n) {
  int cap = h->max_nodes;
  nm_status st;
  lnm_ensure_path(L, h, cap);
  if (!optimal) return nm_query_find_path_limited(h->q, s, e, sp, ep, f, max_iter, h->route.corridor, cap, n);
  for (;;) {
    st = nm_query_find_path_optimal(h->q, s, e, sp, ep, f, h->route.corridor, cap, n);
    if (st == NM_ERR_NOMEM) lnm_raise_status(L, "findPath", st, NULL);
    if (st < 0 || !(st & NM_TRUNCATED) || cap >= (1 << 24)) return st;
    lnm_ensure_path(L, h, cap *= 4);
  }
}

/* ---- end of the optimal-path block ---- */

/* mesh:findPath(sref, eref, sx,sy,sz, ex,ey,ez [, filter [, opts]])
 *   -> polys, partial, outOfNodes, unfinished, fallback
 * opts: { maxIterations = n } (unfinished: the cap stopped the search),
 *       { optimal = true } (fallback: the filter made it use A*) */
static int mesh_find_path(lua_State *L) {
  static const char *const keys[] = {"optimal", "maxIterations", "reachableOnly", "out", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  nm_polyref s = lnm_check_valid_ref(L, h, 2), e = lnm_check_valid_ref(L, h, 3);
  float sp[3], ep[3];
  const nm_filter *f;
  int n = 0, optimal, max_iter, t, out;
  nm_status st;
  lnm_check_point(L, 4, sp);
  lnm_check_point(L, 7, ep);
  f = lnm_opt_filter(L, 10, h);
  t = lnm_opt_table(L, 11, keys);
  optimal = lnm_field_bool(L, t, "optimal", 0);
  max_iter = t ? (int)lnm_field_int(L, t, "maxIterations", 0x7fffffff, 1, 0x7fffffff) : 0x7fffffff;
  if (optimal && max_iter != 0x7fffffff) lnm_opterror(L, "maxIterations", "not with optimal = true (an optimal search runs to the end)");
  if (lnm_field_bool(L, t, "reachableOnly", 0) && !nm_navmesh_is_reachable(h->mesh, s, e))
    return push_unreachable(L, "findPath");
  out = out_field(L, t, "out");
  if ((st = run_find_path(L, h, optimal, max_iter, s, e, sp, ep, f, &n)) < 0)
    return lnm_push_fail(L, "findPath", st, NULL);
  push_refs_into(L, out, h->route.corridor, n);
  lua_pushboolean(L, (st & NM_PARTIAL) != 0);
  lua_pushboolean(L, (st & NM_OUT_OF_NODES) != 0);
  lua_pushboolean(L, (st & NM_UNFINISHED) != 0);
  lua_pushboolean(L, optimal && (st & NM_FALLBACK) != 0);
  return 5;
}

/* Reads straight-path options from table t (0 = none); *max_pts too. */
static void read_straight_opts(lua_State *L, int t, nm_straight_opts *o, int *max_pts) {
  static const char *const crossings[] = {"none", "area", "all", NULL};
  o->crossings = NM_CROSSINGS_NONE;
  o->inset = 0;
  if (!t) return;
  lua_getfield(L, t, "crossings");
  if (!lua_isnil(L, -1)) {
    const char *c = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    int i;
    for (i = 0; crossings[i] && strcmp(crossings[i], c) != 0; i++) {}
    if (!crossings[i])
      lnm_opterror(L, "crossings", "\"none\", \"area\" or \"all\" expected, got %s", lnm_got(L, lua_gettop(L)));
    o->crossings = i;
  }
  lua_pop(L, 1);
  o->inset = (float)lnm_field_number(L, t, "inset", 0, 0);
  *max_pts = (int)lnm_field_int(L, t, "maxPoints", *max_pts, 1, 1 << 24);
}

/* Output tables of a straight path: points, flags, refs (0 = new table). */
typedef struct straight_out {
  int points, flags, refs;
} straight_out;

/* Runs the straight path over h->route.corridor[0..npath) and pushes
 * points, flags and refs into o's tables or new ones. Returns the number
 * of pushed values, -1 when the corridor was refused. */
static int push_straight(lua_State *L, lnm_mesh *h, const float *sp, const float *ep, int npath,
                         const nm_straight_opts *o, int max_pts, const straight_out *out) {
  int cap = 2 * npath + 2, n = 0, i;
  nm_status st;
  if (max_pts < cap) cap = max_pts;
  lnm_ensure_pts(L, h, cap);
  st = nm_query_straight_path(h->q, sp, ep, h->route.corridor, npath, o, h->route.points, h->route.flags,
                              h->route.refs, cap, &n);
  if (st < 0) return -1;
  push_floats_into(L, out->points, h->route.points, 3 * n);
  out_begin(L, out->flags, n);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, h->route.flags[i]);
    lua_rawseti(L, -2, i + 1);
  }
  if (out->flags) out_end(L, n);
  push_refs_into(L, out->refs, h->route.refs, n);
  return 3;
}

/* The list item on top as a polygon reference (an integral number in
 * 1 .. 2^32-1), 0 when it is not one. Lua 5.3+ reads integers as such,
 * which costs half of the conversion through a float. */
static nm_polyref list_ref(lua_State *L) {
#if LUA_VERSION_NUM >= 503
  int isint;
  const lua_Integer v = lua_tointegerx(L, -1, &isint);
  if (!isint || lua_type(L, -1) != LUA_TNUMBER || v <= 0 || v > (lua_Integer)0xffffffffu) return 0;
#else
  const lua_Number v = lua_tonumber(L, -1);
  if (lua_type(L, -1) != LUA_TNUMBER || v != floor(v) || v <= 0 || v > 4294967295.0) return 0;
#endif
  return (nm_polyref)v;
}

/* The corridor argument at idx (a list of references) into h->route.corridor. */
static int read_corridor(lua_State *L, lnm_mesh *h, int idx) {
  int npath = (int)lua_rawlen(L, idx), i;
  nm_polyref *path;
  if (npath == 0) luaL_argerror(L, idx, "empty polygon list (a corridor from findPath expected)");
  path = lnm_ensure_path(L, h, npath);
  for (i = 0; i < npath; i++) {
    lua_rawgeti(L, idx, i + 1);
    if (!(path[i] = list_ref(L)))
      luaL_argerror(L, idx, lua_pushfstring(L, "polygon list must hold polygon references, got %s at [%d]",
                                            lnm_got(L, lua_gettop(L)), i + 1));
    lua_pop(L, 1);
  }
  if (!nm_navmesh_is_valid_ref(h->mesh, path[0]))
    luaL_argerror(L, idx, lua_pushfstring(L, "invalid polygon reference %s at [1] (not in this mesh)",
                                          lnm_number(L, (lua_Number)path[0])));
  return npath;
}

/* mesh:findStraightPath(sx,sy,sz, ex,ey,ez, polys [, opts]) -> points, flags, refs
 * opts: crossings, inset, maxPoints, and points/flags/refs tables to fill. */
static int mesh_find_straight(lua_State *L) {
  static const char *const keys[] = {"crossings", "inset", "maxPoints", "points", "flags", "refs", NULL};
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float sp[3], ep[3];
  nm_straight_opts o;
  straight_out out;
  int npath, t, max_pts = 1 << 24, r, slot;
  unsigned k;
  lnm_check_point(L, 2, sp);
  lnm_check_point(L, 5, ep);
  luaL_checktype(L, 8, LUA_TTABLE);
  k = opt_keys(L, 9, keys, &t, 070u, &slot); /* points, flags, refs into slot.. */
  read_straight_opts(L, k & STRAIGHT_KEYS ? t : 0, &o, &max_pts);
  npath = read_corridor(L, h, 8);
  out.points = out_slot(L, slot, "points");
  out.flags = out_slot(L, slot + 1, "flags");
  out.refs = out_slot(L, slot + 2, "refs");
  r = push_straight(L, h, sp, ep, npath, &o, max_pts, &out);
  if (r < 0) return lnm_push_fail(L, "findStraightPath", NM_ERR_PARAM, NULL);
  return r;
}

/* Everything mesh:path and mesh:paths are asked to do. */
typedef struct path_opts {
  nm_path_opts o;
} path_opts;

/* (read_path_opts's KEY() bits follow this order) */
static const char *const path_keys[] = {"crossings", "inset", "maxPoints", "filter", "halfExtents",
                                        "optimal", "reachableOnly", "out", "partials", NULL};

/* Reads the options table t (0 = none) of path/paths, which holds the keys
 * k (opt_keys). */
static void read_path_opts(lua_State *L, lnm_mesh *h, int t, unsigned k, path_opts *po) {
  nm_path_opts *o = &po->o;
  const nm_filter *f;
  nm_path_opts_init(o);
  o->filter = &h->filter;
  read_straight_opts(L, k & STRAIGHT_KEYS ? t : 0, &o->straight, &o->max_points);
  o->optimal = lnm_field_bool(L, KEY(k, 5, t), "optimal", 0);
  o->reachable_only = lnm_field_bool(L, KEY(k, 6, t), "reachableOnly", 0);
  if (!KEY(k, 3, t) && !KEY(k, 4, t)) return; /* no filter, no halfExtents */
  if (KEY(k, 3, t) && (f = lnm_field_filter(L, t, "filter")) != NULL) o->filter = f;
  if (lnm_field_vec3(L, t, "halfExtents", o->half_ext) && (o->half_ext[0] < 0 || o->half_ext[1] < 0 || o->half_ext[2] < 0))
    lnm_opterror(L, "halfExtents", "{x, y, z} >= 0 expected, got {%s, %s, %s}", lnm_number(L, o->half_ext[0]),
                 lnm_number(L, o->half_ext[1]), lnm_number(L, o->half_ext[2]));
}

/* One whole path query (nm_query_path: nearest polygons, corridor -- A* or
 * optimal -- and straight path) into table `out` (0: a new one), left on
 * the stack. Returns NM_OK / NM_PARTIAL / NM_FALLBACK bits, or a failure
 * (nothing pushed): ERR_NO_POLY (*what says which end), ERR_NO_PATH. */
static nm_status path_one(lua_State *L, lnm_mesh *h, const path_opts *po, const float *sp, const float *ep,
                          int out, const char **what) {
  size_t before = lnm_route_bytes(h);
  nm_status st = nm_query_path(h->q, sp, ep, &po->o, &h->route);
  lnm_route_charge(L, h, before);
  if (st == NM_ERR_NOMEM) lnm_raise_status(L, "path", st, NULL);
  *what = st != NM_ERR_NO_POLY ? "path" : h->route.failed_end ? "path: end" : "path: start";
  if (st < 0) return st;
  push_floats_into(L, out, h->route.points, 3 * h->route.npoints);
  return st & (NM_PARTIAL | NM_FALLBACK);
}

/* mesh:path(sx,sy,sz, ex,ey,ez [, opts]) -> points, partial [, fallback]
 * (nearest polygons, A* -- or the optimal search with opts.optimal, then
 * heights from the detail mesh -- and straight path in one call). */
static int mesh_path(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  float sp[3], ep[3];
  path_opts po;
  const char *what;
  nm_status st;
  int t, slot;
  unsigned k;
  lnm_check_point(L, 2, sp);
  lnm_check_point(L, 5, ep);
  k = opt_keys(L, 8, path_keys, &t, 1u << 7, &slot); /* out into slot */
  read_path_opts(L, h, t, k, &po);
  st = path_one(L, h, &po, sp, ep, out_slot(L, slot, "out"), &what);
  if (st < 0) return st == NM_ERR_NO_PATH && po.o.reachable_only ? push_unreachable(L, what) : lnm_push_fail(L, what, st, NULL);
  lua_pushboolean(L, (st & NM_PARTIAL) != 0);
  if (!po.o.optimal) return 2;
  lua_pushboolean(L, (st & NM_FALLBACK) != 0);
  return 3;
}

/* ---- spare point lists of mesh:paths ----
 * A point list that leaves opts.out (its query failed and the slot became
 * false, or a shorter batch cleared it) is kept as a spare of that out
 * table, and a later query that needs a new list takes a spare first: a
 * server answering a batch per tick makes no garbage, whatever the batch
 * size and however many queries fail. The spares live in a weak-keyed
 * registry table, out -> { list, ... }, so they go with the out table. */
static const char spares_key = 's'; /* its address is the registry key */

/* Pushes the spare stack of the out table at index out; returns its index. */
static int push_spares(lua_State *L, int out) {
  lua_pushlightuserdata(L, (void *)&spares_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, out);
  lua_rawget(L, -2);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, out);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
  }
  lua_remove(L, -2);
  return lua_gettop(L);
}

/* Pushes a spare list, or nothing when there is none; 1 when pushed. */
static int take_spare(lua_State *L, int spares) {
  int n = (int)lua_rawlen(L, spares);
  if (n == 0) return 0;
  lua_rawgeti(L, spares, n);
  lua_pushnil(L);
  lua_rawseti(L, spares, n);
  return 1;
}

/* Keeps the table at index t as a spare. */
static void give_spare(lua_State *L, int spares, int t) {
  lua_pushvalue(L, t);
  lua_rawseti(L, spares, (int)lua_rawlen(L, spares) + 1);
}

/* out_end for the results table on top: the lists it clears become spares. */
static void results_end(lua_State *L, int n, int spares) {
  for (;;) {
    lua_rawgeti(L, -1, ++n);
    if (lua_isnil(L, -1)) break;
    if (lua_istable(L, -1)) give_spare(L, spares, lua_gettop(L));
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_rawseti(L, -2, n);
  }
  lua_pop(L, 1);
}

/* The six numbers of query i (0-based) of the list at index 2 into p. */
static void read_query(lua_State *L, int i, float p[6]) {
  int k;
  for (k = 0; k < 6; k++) {
    lua_rawgeti(L, 2, 6 * i + k + 1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1)))
      luaL_argerror(L, 2, lua_pushfstring(L, "item %d: finite number expected, got %s", 6 * i + k + 1,
                                          lnm_got(L, lua_gettop(L))));
    p[k] = (float)lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
}

/* mesh:paths(queries [, opts]) -> results, partials
 * Many path() queries in one call: queries is a flat list of six numbers
 * per query (sx,sy,sz, ex,ey,ez). results[i] is the point list of query i,
 * or false when it has no path (no polygon near an end, or reachableOnly
 * and different islands); partials[i] says whether it stops short. With
 * opts.out / opts.partials the results go into those tables, and the point
 * lists already in opts.out (or kept as its spares) are reused. Other
 * options as for path(). */
static int mesh_paths(lua_State *L) {
  lnm_mesh *h = lnm_check_mesh(L, 1);
  path_opts po;
  int t, nq, i, out, partials, res, spares = 0;
  unsigned keys;
  luaL_checktype(L, 2, LUA_TTABLE);
  keys = opt_keys(L, 3, path_keys, &t, 0, NULL);
  read_path_opts(L, h, t, keys, &po);
  nq = (int)lua_rawlen(L, 2);
  if (nq % 6) luaL_argerror(L, 2, lua_pushfstring(L, "six numbers per query expected (sx,sy,sz, ex,ey,ez), got length %d", nq));
  nq /= 6;
  out = out_field(L, t, "out");
  partials = out_field(L, t, "partials");
  if (out) spares = push_spares(L, out);
  out_begin(L, out, nq);
  res = lua_gettop(L);
  out_begin(L, partials, nq);
  for (i = 0; i < nq; i++) {
    float p[6];
    const char *what;
    nm_status st;
    int inner = 0;
    read_query(L, i, p);
    lua_rawgeti(L, res, i + 1); /* a point list to reuse? */
    if (lua_istable(L, -1)) inner = lua_gettop(L);
    else lua_pop(L, 1);
    if (!inner && spares && take_spare(L, spares)) inner = lua_gettop(L);
    st = path_one(L, h, &po, p, p + 3, inner, &what);
    if (st < 0) {
      if (inner) give_spare(L, spares, inner);
      lua_pushboolean(L, 0);
    }
    lua_rawseti(L, res, i + 1);
    if (inner) lua_pop(L, 1);
    lua_pushboolean(L, st >= 0 && (st & NM_PARTIAL) != 0);
    lua_rawseti(L, res + 1, i + 1);
  }
  if (partials) out_end(L, nq);
  lua_pushvalue(L, res);
  if (out) results_end(L, nq, spares);
  lua_insert(L, -2);
  return 2;
}

/* ---- registration ---- */

static const luaL_Reg query_methods[] = {
  {"findNearestPoly", mesh_find_nearest},
  {"findPath", mesh_find_path},
  {"findStraightPath", mesh_find_straight},
  {"path", mesh_path},
  {"paths", mesh_paths},
  {NULL, NULL}
};

/* The query methods, and the weak-keyed table of mesh:paths' spares. */
void lnm_open_navmesh_path(lua_State *L) {
  lnm_add_methods(L, LNM_MESH, query_methods);
  lua_pushlightuserdata(L, (void *)&spares_key);
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
}
