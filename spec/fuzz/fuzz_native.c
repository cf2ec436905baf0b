/* fuzz_native.c -- our own "NMSH" format. The input is loaded as it is
 * (mostly stopped by the 64-bit checksum of the body), then with the magic
 * forced and the checksum recomputed, so that mutations reach the tile
 * directory, the blobs and the stored links behind it: once copied
 * (nm_navmesh_load) and once in place, read-only, as nm_navmesh_map uses a
 * mapped file (tiles pointing into a read-only page copy of the input, so a
 * write into mapped data faults; links checked, not rebuilt). */
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#include "fuzz.h"
#include "mesh/nm_mesh.h"

/* Loads b in place from read-only pages, as nm_navmesh_map does. */
static void load_in_place(const uint8_t *b, size_t size) {
  nm_navmesh *m = NULL;
  nm_diag d;
  nm_status st;
  uint8_t *ro = (uint8_t *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  FZ_CHECK(ro != MAP_FAILED);
  memcpy(ro, b, size);
  FZ_CHECK(mprotect(ro, size, PROT_READ) == 0);
  memset(&d, 0, sizeof d);
  fz_alloc_failed = 0;
  st = nm_format_load_own(ro, size, 1, &fz_alloc, &d, &m);
  fz_say("nm_format_load_own in place", st, &d);
  FZ_CHECK(st == NM_OK || st == NM_ERR_DATA || (st == NM_ERR_NOMEM && fz_alloc_failed));
  if (st == NM_OK) {
    FZ_CHECK(nm_navmesh_is_frozen(m));
    fz_exercise(m);
    nm_navmesh_release(m);
  } else {
    FZ_CHECK(m == NULL);
  }
  munmap(ro, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *b = fz_copy(data, size);
  fz_load_and_exercise(data, size);
  if (size >= 64) {
    uint64_t sum;
    int i;
    memcpy(b, "NMSH", 4);
    sum = nm_format_checksum(b + 64, size - 64);
    for (i = 0; i < 8; i++) b[52 + i] = (uint8_t)(sum >> (8 * i));
    fz_load_and_exercise(b, size);
    load_in_place(b, size);
  }
  free(b);
  return 0;
}
