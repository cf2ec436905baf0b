/* mapfile.c -- navmeshes used in place from a read-only file mapping.
 *
 * Our own format stores 16-byte aligned tile blobs with their live links, so
 * a mapped file can serve queries without copying: every process that maps
 * the same file shares one copy of the data in the page cache (nginx
 * workers, several servers on one host). The mesh is read-only. On systems
 * without mmap the file is read into memory instead. Do not rewrite a file
 * while it is mapped (as with any mapping, the pages could change). */
#if !defined(_WIN32)
#  define _POSIX_C_SOURCE 200809L
#  define _DEFAULT_SOURCE 1 /* MAP_POPULATE */
#  include <fcntl.h>
#  include <sys/mman.h>
#  include <sys/stat.h>
#  include <unistd.h>
#  define NM_HAVE_MMAP 1
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "nm_mesh.h"

#if defined(NM_HAVE_MMAP)

void nm_unmap(void *base, size_t len) { munmap(base, len); }

/* Maps the whole file read-only; NULL and a diag message on failure. */
static void *map_file(const char *path, size_t *len, nm_diag *diag, nm_status *st) {
  struct stat sb;
  void *base;
  int fd = open(path, O_RDONLY);
  *st = NM_ERR_IO;
  if (fd < 0) { nm_diag_set(diag, NM_ERR_IO, "path", "cannot open %s: %s", path, strerror(errno)); return NULL; }
  if (fstat(fd, &sb) != 0 || sb.st_size <= 0) {
    nm_diag_set(diag, NM_ERR_IO, "path", "cannot map %s: empty or unreadable", path);
    close(fd);
    return NULL;
  }
#if defined(MAP_POPULATE)
  /* fault the pages in with one call: they are all read at once anyway */
  base = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
#else
  base = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
#endif
  close(fd);
  if (base == MAP_FAILED) { nm_diag_set(diag, NM_ERR_IO, "path", "cannot map %s: %s", path, strerror(errno)); return NULL; }
  *len = (size_t)sb.st_size;
  *st = NM_OK;
  return base;
}

nm_status nm_navmesh_map(const char *path, const nm_alloc *alloc, nm_diag *diag, nm_navmesh **out) {
  size_t len = 0;
  nm_status st;
  void *base;
  if (!out || !path) return NM_ERR_PARAM;
  *out = NULL;
  if (!(base = map_file(path, &len, diag, &st))) return st;
  if ((st = nm_format_load_own((const uint8_t *)base, len, 1, alloc, diag, out)) < 0) {
    munmap(base, len);
    return st;
  }
  (*out)->mapping = base;
  (*out)->mapping_len = len;
  return NM_OK;
}

#else /* no mmap: read the file and load a private copy */

void nm_unmap(void *base, size_t len) { (void)base; (void)len; }

nm_status nm_navmesh_map(const char *path, const nm_alloc *alloc, nm_diag *diag, nm_navmesh **out) {
  nm_alloc a = nm_alloc_resolve(alloc);
  FILE *f;
  long n;
  uint8_t *buf;
  nm_status st;
  if (!out || !path) return NM_ERR_PARAM;
  *out = NULL;
  if (!(f = fopen(path, "rb"))) return nm_diag_set(diag, NM_ERR_IO, "path", "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (n <= 0 || !(buf = (uint8_t *)nm_malloc(&a, (size_t)n))) { fclose(f); return n <= 0 ? NM_ERR_IO : NM_ERR_NOMEM; }
  st = fread(buf, 1, (size_t)n, f) == (size_t)n ? nm_format_load_own(buf, (size_t)n, 0, alloc, diag, out) : NM_ERR_IO;
  fclose(f);
  nm_free(&a, buf, (size_t)n);
  if (st >= 0) nm_navmesh_freeze(*out);
  return st;
}

#endif
