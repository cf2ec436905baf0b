/* json.h -- a small JSON reader for the C tests (the oracle's JSONL lines):
 * objects, arrays, numbers, strings without escapes beyond \" \\ \/,
 * true/false/null. Nodes live in one malloc'd array per parsed line. */
#ifndef NM_TEST_JSON_H
#define NM_TEST_JSON_H
#include <stdlib.h>
#include <string.h>

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jnode {
  int type;
  double num;               /* J_NUM, J_BOOL (0/1) */
  const char *str, *key;    /* J_STR text; key in the parent object */
  int slen, klen;
  int first, next, count;   /* children (index of the first, -1), sibling, count */
} jnode;

typedef struct jdoc {
  jnode *n;
  int used, cap;
  const char *p;
} jdoc;

static int j_new(jdoc *d, int type) {
  if (d->used == d->cap) {
    d->cap = d->cap ? d->cap * 2 : 1024;
    d->n = (jnode *)realloc(d->n, sizeof(jnode) * (size_t)d->cap);
  }
  memset(&d->n[d->used], 0, sizeof(jnode));
  d->n[d->used].type = type;
  d->n[d->used].first = d->n[d->used].next = -1;
  return d->used++;
}

static void j_ws(jdoc *d) {
  while (*d->p == ' ' || *d->p == '\t' || *d->p == '\n' || *d->p == '\r') d->p++;
}

/* A string at d->p (after the quote); returns its start, sets its length. */
static const char *j_str(jdoc *d, int *len) {
  const char *s = ++d->p;
  while (*d->p && *d->p != '"') d->p += *d->p == '\\' ? 2 : 1;
  *len = (int)(d->p - s);
  if (*d->p) d->p++;
  return s;
}

static int j_value(jdoc *d);

/* Elements of an array or members of an object, linked as children of i. */
static void j_children(jdoc *d, int i, char close) {
  int last = -1;
  d->p++;
  j_ws(d);
  while (*d->p && *d->p != close) {
    const char *key = NULL;
    int klen = 0, k;
    if (close == '}') {
      key = j_str(d, &klen);
      j_ws(d);
      d->p++; /* ':' */
    }
    k = j_value(d);
    d->n[k].key = key;
    d->n[k].klen = klen;
    if (last < 0) d->n[i].first = k;
    else d->n[last].next = k;
    last = k;
    d->n[i].count++;
    j_ws(d);
    if (*d->p == ',') d->p++;
    j_ws(d);
  }
  if (*d->p) d->p++;
}

static int j_value(jdoc *d) {
  int i;
  j_ws(d);
  if (*d->p == '{' || *d->p == '[') {
    const char close = *d->p == '{' ? '}' : ']';
    i = j_new(d, close == '}' ? J_OBJ : J_ARR);
    j_children(d, i, close);
  } else if (*d->p == '"') {
    int len;
    const char *s;
    i = j_new(d, J_STR);
    s = j_str(d, &len);
    d->n[i].str = s;
    d->n[i].slen = len;
  } else if (!strncmp(d->p, "true", 4) || !strncmp(d->p, "false", 5)) {
    i = j_new(d, J_BOOL);
    d->n[i].num = *d->p == 't';
    d->p += *d->p == 't' ? 4 : 5;
  } else if (!strncmp(d->p, "null", 4)) {
    i = j_new(d, J_NULL);
    d->p += 4;
  } else {
    char *end;
    i = j_new(d, J_NUM);
    d->n[i].num = strtod(d->p, &end);
    d->p = end;
  }
  return i;
}

/* Parses text into d (root node 0). */
static void j_parse(jdoc *d, const char *text) {
  d->used = 0;
  d->p = text;
  j_value(d);
}

/* Member key of object o (-1 when absent or o is -1). */
static int j_get(const jdoc *d, int o, const char *key) {
  int k;
  const int kl = (int)strlen(key);
  if (o < 0) return -1;
  for (k = d->n[o].first; k >= 0; k = d->n[k].next)
    if (d->n[k].klen == kl && !memcmp(d->n[k].key, key, (size_t)kl)) return k;
  return -1;
}

/* Element i of array a (-1 when out of range). */
static int j_at(const jdoc *d, int a, int i) {
  int k;
  if (a < 0) return -1;
  for (k = d->n[a].first; k >= 0 && i > 0; k = d->n[k].next) i--;
  return k;
}

static double j_num(const jdoc *d, int i) { return i >= 0 ? d->n[i].num : 0; }
static int j_is_null(const jdoc *d, int i) { return i < 0 || d->n[i].type == J_NULL; }
static int j_str_eq(const jdoc *d, int i, const char *s) {
  return i >= 0 && d->n[i].type == J_STR && d->n[i].slen == (int)strlen(s) && !memcmp(d->n[i].str, s, strlen(s));
}

/* Reads a numeric array into floats; returns the count read (<= cap). */
static int j_floats(const jdoc *d, int a, float *out, int cap) {
  int k, n = 0;
  if (a < 0) return 0;
  for (k = d->n[a].first; k >= 0 && n < cap; k = d->n[k].next) out[n++] = (float)d->n[k].num;
  return n;
}
#endif
