/* fuzz_native.c -- our own "NMSH" format. The input is loaded twice: as it
 * is (mostly stopped by the CRC-32 of the body), then with the magic forced
 * and the CRC recomputed, so mutations reach the tile directory and blobs. */
#include "fuzz.h"

/* CRC-32 (IEEE, reflected) as format.c computes it. */
static uint32_t crc32(const uint8_t *p, size_t n) {
  uint32_t crc = 0xffffffffu;
  size_t i;
  int k;
  for (i = 0; i < n; i++) {
    crc ^= p[i];
    for (k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *b = fz_copy(data, size);
  fz_load_and_exercise(data, size);
  if (size >= 64) {
    uint32_t c;
    memcpy(b, "NMSH", 4);
    c = crc32(b + 64, size - 64);
    b[52] = (uint8_t)c; b[53] = (uint8_t)(c >> 8); b[54] = (uint8_t)(c >> 16); b[55] = (uint8_t)(c >> 24);
    fz_load_and_exercise(b, size);
  }
  free(b);
  return 0;
}
