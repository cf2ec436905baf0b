/* fastlz.c -- the FastLZ level-1 stream: decoder and encoder.
 *
 * RecastDemo stores tile-cache layers compressed with FastLZ (level 1 for
 * inputs under 64 KiB). The stream (shared/docs/tilecache-format.md, 2.4)
 * is a sequence of literal runs (control c < 32: c + 1 bytes follow) and
 * back-references (c >= 32: length from the top three bits, one extension
 * byte when they are all set, a 13-bit distance). The decoder trusts
 * nothing: every run and reference is checked against both buffers.
 * The encoder makes the choices FastLZ's level-1 encoder makes (one match
 * candidate per 13-bit hash of the next three bytes, literal runs of at most
 * 32 bytes, no match search in the last 12 bytes, long matches cut into
 * 262-byte pieces), so re-encoding a stored layer gives its stored bytes. */
#include "nm_cache.h"

#define FLZ_MAX_COPY 32
#define FLZ_MAX_LEN 264
#define FLZ_MAX_DISTANCE 8192
#define FLZ_HASH_LOG 13
#define FLZ_HASH_SIZE (1 << FLZ_HASH_LOG)

/* ---- decoding ---- */

/* Copies an overlapping back-reference of len bytes from dist + 1 bytes
 * back: the pattern of dist + 1 bytes repeats, so whole copies of what is
 * already written double the copied part each step. */
static void flz_copy_back(uint8_t *out, size_t op, size_t dist, size_t len) {
  const size_t from = op - dist - 1;
  size_t done = 0;
  while (done < len) {
    const size_t n = len - done < done + dist + 1 ? len - done : done + dist + 1;
    memcpy(out + op + done, out + from, n);
    done += n;
  }
}

nm_status nm_fastlz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *outlen) {
  size_t ip = 0, op = 0;
  *outlen = 0;
  if (n == 0) return NM_ERR_DATA;
  if ((in[0] >> 5) != 0) return NM_ERR_DATA; /* level tag: only level 1 */
  while (ip < n) {
    const unsigned c = ip == 0 ? (in[0] & 31u) : in[ip];
    ip++;
    if (c < 32) { /* literal run of c + 1 bytes */
      const size_t len = c + 1;
      if (len > n - ip || len > cap - op) return NM_ERR_DATA;
      memcpy(out + op, in + ip, len);
      ip += len;
      op += len;
    } else {
      size_t len = (c >> 5) + 2, dist = (size_t)(c & 31) << 8;
      if ((c >> 5) == 7) {
        if (ip >= n) return NM_ERR_DATA;
        len = 9 + (size_t)in[ip++];
      }
      if (ip >= n) return NM_ERR_DATA;
      dist |= in[ip++];
      if (dist + 1 > op || len > cap - op) return NM_ERR_DATA;
      if (dist == 0) memset(out + op, out[op - 1], len); /* a run of the last byte */
      else if (len <= dist + 1) memcpy(out + op, out + op - dist - 1, len); /* no overlap */
      else flz_copy_back(out, op, dist, len);
      op += len;
    }
  }
  *outlen = op;
  return NM_OK;
}

/* ---- encoding ---- */

/* FastLZ's hash of the three bytes at p (two overlapping 16-bit reads). */
static uint32_t flz_hash(const uint8_t *p) {
  uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
  v ^= ((uint32_t)p[1] | ((uint32_t)p[2] << 8)) ^ (v >> (16 - FLZ_HASH_LOG));
  return v & (FLZ_HASH_SIZE - 1);
}

size_t nm_fastlz_bound(size_t n) { return n + n / 31 + 70; }

/* Length past `anchor + 3` of the match between ip and ref (both already
 * equal for 3 bytes), as FastLZ measures it: returns the position one past
 * the first mismatch (or the bound), before its "minus 3" bias. */
static size_t flz_extend(const uint8_t *in, size_t anchor, size_t ref, size_t bound, int run) {
  size_t ip = anchor + 3;
  ref += 3;
  if (run) { /* distance 1: compare against the repeated byte */
    const uint8_t x = in[ip - 1];
    while (ip < bound) {
      if (in[ref++] != x) break;
      ip++;
    }
    return ip;
  }
  {
    int k;
    for (k = 0; k < 8; k++) /* the unrolled part: safe inside ip_limit */
      if (in[ref++] != in[ip++]) return ip;
  }
  while (ip < bound)
    if (in[ref++] != in[ip++]) break;
  return ip;
}

/* Writes one back-reference of biased length len (match length - 2). */
static uint8_t *flz_emit_match(uint8_t *op, size_t len, size_t dist) {
  while (len > FLZ_MAX_LEN - 2) {
    *op++ = (uint8_t)((7 << 5) + (dist >> 8));
    *op++ = (uint8_t)(FLZ_MAX_LEN - 2 - 7 - 2);
    *op++ = (uint8_t)(dist & 255);
    len -= FLZ_MAX_LEN - 2;
  }
  if (len < 7) {
    *op++ = (uint8_t)((len << 5) + (dist >> 8));
  } else {
    *op++ = (uint8_t)((7 << 5) + (dist >> 8));
    *op++ = (uint8_t)(len - 7);
  }
  *op++ = (uint8_t)(dist & 255);
  return op;
}

/* Encoder state: input, output cursor, open literal count, hash table. */
typedef struct flz_enc {
  const uint8_t *in;
  uint8_t *op;
  size_t copy;
  uint32_t *htab;
} flz_enc;

/* Appends one literal byte, opening a new run when 32 are pending. */
static void flz_literal(flz_enc *e, uint8_t b) {
  *e->op++ = b;
  if (++e->copy == FLZ_MAX_COPY) {
    e->copy = 0;
    *e->op++ = FLZ_MAX_COPY - 1;
  }
}

/* Closes the open literal run: its control byte gets the real count, or
 * the reserved control byte is taken back when the run is empty. */
static void flz_close_run(flz_enc *e) {
  if (e->copy) *(e->op - e->copy - 1) = (uint8_t)(e->copy - 1);
  else e->op--;
}

/* One step of the main loop at ip: a match (returns the next ip) or a
 * literal byte. */
static size_t flz_step(flz_enc *e, size_t ip, size_t n) {
  const uint8_t *in = e->in;
  const size_t anchor = ip, bound = n - 2;
  const uint32_t h = flz_hash(in + ip);
  const size_t ref = e->htab[h], dist = anchor - ref;
  size_t end, len;
  e->htab[h] = (uint32_t)anchor;
  if (dist == 0 || dist >= FLZ_MAX_DISTANCE || in[ref] != in[ip] || in[ref + 1] != in[ip + 1] ||
      in[ref + 2] != in[ip + 2]) {
    flz_literal(e, in[anchor]);
    return anchor + 1;
  }
  end = flz_extend(in, anchor, ref, bound, dist == 1);
  flz_close_run(e);
  e->copy = 0;
  end -= 3;
  len = end - anchor;
  e->op = flz_emit_match(e->op, len, dist - 1);
  e->htab[flz_hash(in + end)] = (uint32_t)end;
  end++;
  e->htab[flz_hash(in + end)] = (uint32_t)end;
  end++;
  *e->op++ = FLZ_MAX_COPY - 1; /* a literal run is assumed to follow */
  return end;
}

size_t nm_fastlz_compress(const uint8_t *in, size_t n, uint8_t *out, uint32_t *htab) {
  flz_enc e;
  size_t ip = 0, i;
  if (n < 4) {
    if (n == 0) return 0;
    out[0] = (uint8_t)(n - 1);
    memcpy(out + 1, in, n);
    return n + 1;
  }
  for (i = 0; i < FLZ_HASH_SIZE; i++) htab[i] = 0;
  e.in = in;
  e.op = out;
  e.htab = htab;
  *e.op++ = FLZ_MAX_COPY - 1; /* the stream starts with a literal run */
  *e.op++ = in[ip++];
  *e.op++ = in[ip++];
  e.copy = 2;
  while (ip + 12 < n) ip = flz_step(&e, ip, n);
  while (ip < n) flz_literal(&e, in[ip++]);
  flz_close_run(&e);
  return (size_t)(e.op - out);
}

size_t nm_fastlz_htab_bytes(void) { return FLZ_HASH_SIZE * sizeof(uint32_t); }
