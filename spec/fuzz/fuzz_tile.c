/* fuzz_tile.c -- single Detour tile blobs (version 7): the loader makes a
 * one-tile mesh (tile.c validates every count, index and float). The
 * input's first bytes are forced to the tile magic and version so the
 * fuzzer spends its time behind the header check. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *b = fz_copy(data, size);
  if (size >= 8) memcpy(b, "VAND\x07\0\0\0", 8);
  fz_load_and_exercise(b, size);
  free(b);
  return 0;
}
