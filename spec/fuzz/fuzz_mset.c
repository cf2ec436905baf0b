/* fuzz_mset.c -- RecastDemo MSET files: any bytes behind the MSET magic go
 * through nm_navmesh_load; a mesh that loads must answer queries and
 * survive a save/load round trip (fuzz.h, fz_exercise). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *b = fz_copy(data, size);
  if (size >= 4) memcpy(b, "TESM", 4); /* the magic, as stored on disk */
  fz_load_and_exercise(b, size);
  free(b);
  return 0;
}
