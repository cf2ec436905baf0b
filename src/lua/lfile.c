/* lfile.c -- reading and writing whole files for the binding. */
#include "lnm.h"

/* Reads a whole file into a block from the Lua allocator: returns it with
 * its length (*len) and allocated size (*cap), or NULL and *err when the
 * file cannot be read. Out of memory raises "<what>: not enough memory", as
 * everywhere else (a host such as skynet.memlimit may refuse only this one
 * large block: that is not a missing file). */
char *lnm_read_file(lua_State *L, const char *what, const char *path, size_t *len, size_t *cap,
                    const char **err) {
  void *ud;
  lua_Alloc fn = lua_getallocf(L, &ud);
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t n = 0;
  *cap = 0;
  if (!f) { *err = strerror(errno); return NULL; }
  for (;;) {
    size_t got;
    if (n == *cap) {
      size_t ncap = *cap ? *cap * 2 : 65536;
      char *nb = (char *)fn(ud, buf, *cap, ncap);
      if (!nb) {
        fn(ud, buf, *cap, 0);
        fclose(f);
        luaL_error(L, "%s: not enough memory", what);
      }
      buf = nb;
      *cap = ncap;
    }
    got = fread(buf + n, 1, *cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) { fn(ud, buf, *cap, 0); fclose(f); *err = "read error"; return NULL; }
  fclose(f);
  *len = n;
  return buf;
}

/* Writes bytes to a file: pushes true, or nil, "cannot write <path>: ...",
 * "ERR_IO". Returns the number of values pushed. */
int lnm_write_file(lua_State *L, const char *path, const void *bytes, size_t len) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(bytes, 1, len, f) == len;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot write %s: %s", path, strerror(errno));
    lua_pushstring(L, nm_status_name(NM_ERR_IO));
    return 3;
  }
  lua_pushboolean(L, 1);
  return 1;
}
