/* text.c -- a growable text buffer for the debug outputs (OBJ, SVG):
 * memory from the mesh's allocator, numbers written the same in every
 * C locale. */
#include <stdio.h>
#include <stdlib.h>
#include "nm_debug.h"

void nm_text_init(nm_text *t, const nm_alloc *alloc) {
  memset(t, 0, sizeof *t);
  t->alloc = alloc;
}

void nm_text_free(nm_text *t) {
  nm_free(t->alloc, t->buf, t->cap);
  t->buf = NULL;
  t->len = t->cap = 0;
}

/* Makes room for n more bytes; 0 (and `failed`) when it cannot. */
static int reserve(nm_text *t, size_t n) {
  size_t cap;
  char *nb;
  if (t->failed) return 0;
  if (t->cap - t->len >= n) return 1;
  cap = t->cap ? t->cap : 4096;
  while (cap - t->len < n) {
    if (cap > SIZE_MAX / 2) { t->failed = 1; return 0; }
    cap *= 2;
  }
  nb = (char *)nm_realloc(t->alloc, t->buf, t->cap, cap);
  if (!nb) { t->failed = 1; return 0; }
  t->buf = nb;
  t->cap = cap;
  return 1;
}

void nm_text_put(nm_text *t, const char *s, size_t n) {
  if (!reserve(t, n)) return;
  memcpy(t->buf + t->len, s, n);
  t->len += n;
}

void nm_text_str(nm_text *t, const char *s) { nm_text_put(t, s, strlen(s)); }

/* %.9g round-trips every float; shorter forms are tried first so that 0.5
 * stays "0.5". A ',' from a host's LC_NUMERIC becomes '.'. */
void nm_text_float(nm_text *t, float v) {
  char s[32];
  int prec, n = 0, i;
  if (v == 0) v = 0; /* no "-0" */
  for (prec = 6; prec <= 9; prec++) {
    n = snprintf(s, sizeof s, "%.*g", prec, (double)v);
    if ((float)strtod(s, NULL) == v) break;
  }
  for (i = 0; i < n; i++)
    if (s[i] == ',') s[i] = '.';
  nm_text_put(t, s, (size_t)n);
}

void nm_text_uint(nm_text *t, unsigned long v) {
  char s[24];
  int n = snprintf(s, sizeof s, "%lu", v);
  nm_text_put(t, s, (size_t)n);
}

void nm_text_int(nm_text *t, long v) {
  char s[24];
  int n = snprintf(s, sizeof s, "%ld", v);
  nm_text_put(t, s, (size_t)n);
}
