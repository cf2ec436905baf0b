/* objread.c -- a Wavefront OBJ reader that sees the file as RecastDemo does.
 *
 * Only positions and faces matter for a navmesh build. Rows are read one at
 * a time; leading blanks (space, tab, CR, LF, backslash) are skipped, so empty
 * lines vanish, and CR and backslash characters inside a row are dropped.
 * "#" rows are comments. "v x y z" adds a vertex (extra numbers such as a w
 * component are ignored; vn/vt/vp and every other row kind are ignored).
 * "f a b c ..." adds the fan (v0, v[i-1], v[i]) of its first 32 indices;
 * each token is cut at its first '/', positive indices are 1-based and
 * negative ones count back from the last vertex read so far; a triangle with
 * an index out of range is dropped, as RecastDemo drops it. What is dropped
 * (rows that are no OBJ statement, faces that lose triangles) is counted.
 * Differences from RecastDemo, all on input it would misread: a vertex row
 * without three finite numbers, or a face token that is not an integer, is
 * ERR_DATA here (RecastDemo keeps stale or zero values); rows are not cut at
 * 511 characters. The text need not be NUL-terminated; any byte is safe. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "nm_input.h"

#define OBJ_MAX_FACE 32   /* indices per face RecastDemo uses */
#define OBJ_MAX_NUM 128   /* longest number token we convert */

/* Growable arrays and the row buffer of one parse. */
typedef struct obj_state {
  nm_alloc a;
  nm_diag *diag;
  float *verts;
  size_t nverts, vcap;   /* vertices, capacity in vertices */
  int *tris;
  size_t ntris, tcap;    /* triangles, capacity in triangles */
  char *row;
  size_t rcap;
  long line;             /* 1-based line number of the text position */
  long row_line;         /* line on which the current row starts */
  nm_obj_dropped dropped;
} obj_state;

/* ---- growing ---- */

/* Makes room for `need` more items of `item` bytes in *p (capacity *cap). */
static int grow(obj_state *s, void **p, size_t *cap, size_t used, size_t need, size_t item) {
  size_t ncap;
  void *np;
  if (used + need <= *cap) return 1;
  ncap = *cap ? *cap : 64;
  while (ncap < used + need) {
    if (ncap > ((size_t)INT_MAX) / 2) return 0;
    ncap *= 2;
  }
  np = nm_realloc(&s->a, *p, *cap * item, nm_mul_size(ncap, item));
  if (!np) return 0;
  *p = np;
  *cap = ncap;
  return 1;
}

/* ---- rows ---- */

/* Copies the next row (from *pos) into s->row, NUL-terminated, applying
 * RecastDemo's rules; returns its length (0 at the end of the text) or -1 when
 * out of memory. *pos moves past the row's newline. */
static long next_row(obj_state *s, const char *text, size_t len, size_t *pos) {
  size_t i = *pos, n = 0;
  int start = 1;
  for (; i < len; i++) {
    const char c = text[i];
    if (c == '\n') {
      s->line++;
      if (!start) { i++; break; }
      continue;
    }
    if (c == '\r' || c == '\\') continue;
    if (start && (c == ' ' || c == '\t')) continue;
    if (start) s->row_line = s->line;
    start = 0;
    if (n + 1 >= s->rcap) {
      void *p = s->row;
      if (!grow(s, &p, &s->rcap, n + 1, 1, 1)) return -1;
      s->row = (char *)p;
    }
    s->row[n++] = c;
  }
  *pos = i;
  if (s->row) s->row[n] = 0;
  return (long)n;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Next blank-separated token of a row: start and length; 0 when none left. */
static int next_token(const char *row, size_t rlen, size_t *at, size_t *tstart, size_t *tlen) {
  size_t i = *at;
  while (i < rlen && is_blank(row[i])) i++;
  if (i >= rlen) return 0;
  *tstart = i;
  while (i < rlen && !is_blank(row[i])) i++;
  *tlen = i - *tstart;
  *at = i;
  return 1;
}

/* ---- vertices ---- */

/* A whole token as a finite float; 0 when it is not one. */
static int parse_float(const char *tok, size_t n, float *out) {
  char buf[OBJ_MAX_NUM];
  char *end;
  float v;
  if (n == 0 || n >= sizeof buf) return 0;
  memcpy(buf, tok, n);
  buf[n] = 0;
  v = strtof(buf, &end);
  if (end != buf + n || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

/* "v x y z ..." -> one vertex. */
static nm_status vertex_row(obj_state *s, size_t rlen) {
  size_t at = 1, ts, tl;
  float v[3];
  int k;
  for (k = 0; k < 3; k++)
    if (!next_token(s->row, rlen, &at, &ts, &tl) || !parse_float(s->row + ts, tl, &v[k]))
      return nm_diag_set(s->diag, NM_ERR_DATA, "obj", "line %ld: a vertex needs three finite numbers", s->row_line);
  if (s->nverts >= (size_t)INT_MAX / 3)
    return nm_diag_set(s->diag, NM_ERR_DATA, "obj", "line %ld: too many vertices", s->row_line);
  {
    void *p = s->verts;
    if (!grow(s, &p, &s->vcap, s->nverts, 1, 3 * sizeof(float))) return NM_ERR_NOMEM;
    s->verts = (float *)p;
  }
  memcpy(&s->verts[s->nverts * 3], v, sizeof v);
  s->nverts++;
  return NM_OK;
}

/* ---- faces ---- */

/* Leading integer of a face token (the part before its first '/'), turned
 * into a 0-based index; out-of-range values come back as -1. 0 when the
 * part is not an integer. */
static int parse_index(const char *tok, size_t n, size_t nverts, long *out) {
  size_t i = 0, end = 0;
  int neg = 0;
  long long v = 0;
  while (end < n && tok[end] != '/') end++;
  if (i < end && (tok[i] == '-' || tok[i] == '+')) neg = tok[i++] == '-';
  if (i >= end) return 0;
  for (; i < end; i++) {
    if (tok[i] < '0' || tok[i] > '9') return 0;
    if (v < (long long)INT_MAX * 4) v = v * 10 + (tok[i] - '0');
  }
  if (neg) v = (long long)nverts - v;   /* -1 is the last vertex read */
  else v = v - 1;                       /* 1-based */
  *out = (v < 0 || v >= (long long)nverts) ? -1 : (long)v;
  return 1;
}

/* Counts a face row that named `named` triangles and gave `made`: a row
 * with fewer than 3 indices (naming none) or one that lost triangles. */
static void count_face(obj_state *s, long long named, long long made) {
  long long lost;
  if (named > 0 && made == named) return;
  lost = (long long)s->dropped.triangles + (named - made);
  if (s->dropped.faces < INT_MAX) s->dropped.faces++;
  s->dropped.triangles = lost > INT_MAX ? INT_MAX : (int)lost;
}

/* "f a b c ..." -> the fan of its first 32 indices, dropping triangles with
 * an index out of range. */
static nm_status face_row(obj_state *s, size_t rlen) {
  long idx[OBJ_MAX_FACE];
  long long tokens = 0, made = 0;
  size_t at = 1, ts, tl;
  int n = 0, i;
  while (next_token(s->row, rlen, &at, &ts, &tl)) {
    if (n < OBJ_MAX_FACE) {
      if (!parse_index(s->row + ts, tl, s->nverts, &idx[n]))
        return nm_diag_set(s->diag, NM_ERR_DATA, "obj", "line %ld: face index %d is not an integer", s->row_line,
                           n + 1);
      n++;
    }
    tokens++;
  }
  for (i = 2; i < n; i++) {
    int *t;
    if (idx[0] < 0 || idx[i - 1] < 0 || idx[i] < 0) continue;
    if (s->ntris >= (size_t)INT_MAX / 3)
      return nm_diag_set(s->diag, NM_ERR_DATA, "obj", "line %ld: too many triangles", s->row_line);
    {
      void *p = s->tris;
      if (!grow(s, &p, &s->tcap, s->ntris, 1, 3 * sizeof(int))) return NM_ERR_NOMEM;
      s->tris = (int *)p;
    }
    t = &s->tris[s->ntris * 3];
    t[0] = (int)idx[0];
    t[1] = (int)idx[i - 1];
    t[2] = (int)idx[i];
    s->ntris++;
    made++;
  }
  count_face(s, tokens > 2 ? tokens - 2 : 0, made);
  return NM_OK;
}

/* Is the row's first word an OBJ statement (the Wavefront keywords)? Rows
 * that are not, and are no comment, are counted as dropped. */
static int is_statement(const char *row, size_t rlen) {
  static const char *const words[] = {
    "v", "vt", "vn", "vp", "f", "l", "p", "o", "g", "s", "mg", "usemtl", "mtllib", "cstype", "deg", "bmat",
    "step", "curv", "curv2", "surf", "parm", "trim", "hole", "scrv", "sp", "end", "con", "bevel", "c_interp",
    "d_interp", "lod", "maplib", "usemap", "shadow_obj", "trace_obj", "ctech", "stech", "call", "csh", NULL};
  size_t n = 0;
  int i;
  if (row[0] == '#') return 1;
  while (n < rlen && !is_blank(row[n])) n++;
  for (i = 0; words[i]; i++)
    if (strlen(words[i]) == n && memcmp(words[i], row, n) == 0) return 1;
  return 0;
}

/* ---- the parse ---- */

/* Reads every row; NM_OK, NM_ERR_DATA or NM_ERR_NOMEM. */
static nm_status parse_rows(obj_state *s, const char *text, size_t len) {
  size_t pos = 0;
  s->line = 1;
  while (pos < len) {
    const long rlen = next_row(s, text, len, &pos);
    nm_status st = NM_OK;
    if (rlen < 0) return NM_ERR_NOMEM;
    if (rlen == 0) break;
    if (s->row[0] == 'v' && (rlen == 1 || is_blank(s->row[1]))) st = vertex_row(s, (size_t)rlen);
    else if (s->row[0] == 'f' && (rlen == 1 || is_blank(s->row[1]))) st = face_row(s, (size_t)rlen);
    else if (!is_statement(s->row, (size_t)rlen) && s->dropped.lines < INT_MAX) s->dropped.lines++;
    if (st < 0) return st;
  }
  return NM_OK;
}

/* Shrinks an array to exactly `used` items so its owner can free it with
 * that size; 0 when the allocator refuses. */
static int shrink(obj_state *s, void **p, size_t *cap, size_t used, size_t item) {
  void *np;
  if (*cap == used) return 1;
  if (used == 0) {
    nm_free(&s->a, *p, *cap * item);
    *p = NULL;
    *cap = 0;
    return 1;
  }
  np = nm_realloc(&s->a, *p, *cap * item, used * item);
  if (!np) return 0;
  *p = np;
  *cap = used;
  return 1;
}

nm_status nm_obj_parse_counted(const char *text, size_t len, const nm_alloc *alloc, nm_diag *diag,
                               float **verts, int *nverts, int **tris, int *ntris, nm_obj_dropped *dropped) {
  obj_state s;
  nm_status st;
  void *pv, *pt;
  if (dropped) memset(dropped, 0, sizeof *dropped);
  if (!verts || !nverts || !tris || !ntris || (!text && len))
    return nm_diag_set(diag, NM_ERR_PARAM, "obj", "missing argument");
  *verts = NULL;
  *tris = NULL;
  *nverts = *ntris = 0;
  memset(&s, 0, sizeof s);
  s.a = nm_alloc_resolve(alloc);
  s.diag = diag;
  st = parse_rows(&s, text, len);
  nm_free(&s.a, s.row, s.rcap);
  pv = s.verts;
  pt = s.tris;
  if (st >= 0 && (!shrink(&s, &pv, &s.vcap, s.nverts, 3 * sizeof(float)) ||
                  !shrink(&s, &pt, &s.tcap, s.ntris, 3 * sizeof(int))))
    st = NM_ERR_NOMEM;
  if (st < 0) {
    nm_free(&s.a, pv, s.vcap * 3 * sizeof(float));
    nm_free(&s.a, pt, s.tcap * 3 * sizeof(int));
    return st == NM_ERR_NOMEM ? nm_diag_set(diag, st, "obj", "out of memory") : st;
  }
  *verts = (float *)pv;
  *tris = (int *)pt;
  *nverts = (int)s.nverts;
  *ntris = (int)s.ntris;
  if (dropped) *dropped = s.dropped;
  return NM_OK;
}

nm_status nm_obj_parse(const char *text, size_t len, const nm_alloc *alloc, nm_diag *diag,
                       float **verts, int *nverts, int **tris, int *ntris) {
  return nm_obj_parse_counted(text, len, alloc, diag, verts, nverts, tris, ntris, NULL);
}

void nm_obj_free(const nm_alloc *alloc, float *verts, int nverts, int *tris, int ntris) {
  nm_alloc a = nm_alloc_resolve(alloc);
  if (verts) nm_free(&a, verts, (size_t)nverts * 3 * sizeof(float));
  if (tris) nm_free(&a, tris, (size_t)ntris * 3 * sizeof(int));
}
