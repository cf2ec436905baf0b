/* nm_core.c -- status names, the default allocator, diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "nm_core.h"

/* Name of the lowest status in the list matching st. */
const char *nm_status_name(nm_status st) {
#define NM_STATUS_NAME(name, value, text) if (st == (value)) return #name;
  NM_STATUS_LIST(NM_STATUS_NAME)
#undef NM_STATUS_NAME
  if (st > 0) { /* several detail bits: name the lowest one */
    if (st & NM_PARTIAL) return "PARTIAL";
    if (st & NM_TRUNCATED) return "TRUNCATED";
    if (st & NM_OUT_OF_NODES) return "OUT_OF_NODES";
    if (st & NM_UNFINISHED) return "UNFINISHED";
    if (st & NM_FALLBACK) return "FALLBACK";
  }
  return "UNKNOWN";
}

/* Human text of a status. */
const char *nm_strerror(nm_status st) {
#define NM_STATUS_TEXT(name, value, text) if (st == (value)) return text;
  NM_STATUS_LIST(NM_STATUS_TEXT)
#undef NM_STATUS_TEXT
  if (st > 0) return "ok";
  return "unknown error";
}

/* The system allocator in lua_Alloc form. */
static void *nm_sys_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  return realloc(ptr, nsize);
}

void *nm_calloc(const nm_alloc *a, size_t n) {
  void *p;
  if (n == 0) return NULL;
  if (a->fn == nm_sys_alloc) return calloc(1, n);
  p = a->fn(a->ud, NULL, 0, n);
  if (p) memset(p, 0, n);
  return p;
}

nm_alloc nm_alloc_resolve(const nm_alloc *a) {
  nm_alloc r;
  if (a && a->fn) return *a;
  r.fn = nm_sys_alloc;
  r.ud = NULL;
  return r;
}

nm_status nm_diag_set(nm_diag *diag, nm_status st, const char *field, const char *fmt, ...) {
  if (diag) {
    va_list ap;
    diag->field = field;
    va_start(ap, fmt);
    vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
    va_end(ap);
  }
  return st;
}
