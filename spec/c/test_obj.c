/* test_obj.c -- the OBJ reader: RecastDemo's reading rules, malformed input,
 * hostile bytes, allocation failures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "navmesh.h"
#include "tap.h"
#include "track_alloc.h"

static nm_status parse(const char *text, track *t, float **v, int *nv, int **tr, int *nt, nm_diag *d) {
  nm_alloc a;
  a.fn = track_fn;
  a.ud = t;
  return nm_obj_parse(text, strlen(text), &a, d, v, nv, tr, nt);
}

static void release(track *t, float *v, int nv, int *tr, int nt) {
  nm_alloc a;
  a.fn = track_fn;
  a.ud = t;
  nm_obj_free(&a, v, nv, tr, nt);
}

TEST(vertices_and_triangles) {
  track t = {0, 0, 0, 0, 0};
  float *v; int nv, *tr, nt;
  const char *src = "# a quad\nv 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 2 3 4\n";
  CHECK(parse(src, &t, &v, &nv, &tr, &nt, NULL) == NM_OK);
  CHECK(nv == 4 && nt == 2);
  CHECK(v[3] == 1.0f && v[8] == 1.0f);
  /* fan (v0, v[i-1], v[i]) */
  CHECK(tr[0] == 0 && tr[1] == 1 && tr[2] == 2);
  CHECK(tr[3] == 0 && tr[4] == 2 && tr[5] == 3);
  release(&t, v, nv, tr, nt);
  CHECK(t.live == 0 && t.bad_sizes == 0);
}

TEST(slashes_negative_crlf_blank_lines) {
  track t = {0, 0, 0, 0, 0};
  float *v; int nv, *tr, nt;
  const char *src = "mtllib x.mtl\r\no obj\r\n\r\n   v 0 0 0\r\nv 1 0 0 1.0\r\nvn 0 1 0\r\nvt 0 0\r\n"
                    "\tv 1\\ 0 1\r\ng g\r\nusemtl m\r\ns off\r\nf 1/1/1 2//1 3/2\r\nf -3 -2 -1\r\n";
  CHECK(parse(src, &t, &v, &nv, &tr, &nt, NULL) == NM_OK);
  CHECK(nv == 3 && nt == 2);
  CHECK(v[6] == 1.0f && v[7] == 0.0f && v[8] == 1.0f);
  CHECK(tr[0] == 0 && tr[1] == 1 && tr[2] == 2);
  CHECK(tr[3] == 0 && tr[4] == 1 && tr[5] == 2);
  release(&t, v, nv, tr, nt);
  CHECK(t.live == 0);
}

TEST(out_of_range_triangles_are_dropped) {
  track t = {0, 0, 0, 0, 0};
  float *v; int nv, *tr, nt;
  /* index 0, index 9, a negative index before enough vertices: dropped */
  const char *src = "v 0 0 0\nv 1 0 0\nv 1 0 1\nf 0 1 2\nf 1 2 9\nf -4 1 2\nf 1 2 3\n";
  CHECK(parse(src, &t, &v, &nv, &tr, &nt, NULL) == NM_OK);
  CHECK(nv == 3 && nt == 1);
  release(&t, v, nv, tr, nt);
  CHECK(t.live == 0);
}

/* Writes at src + n: 40 vertices, the rows `between`, then one face of all
 * 40 (of which the reader uses the first 32). */
static void forty_and_a_long_face(char *src, size_t n, const char *between) {
  int i;
  for (i = 0; i < 40; i++) n += (size_t)sprintf(src + n, "v %d 0 %d\n", i, i * i);
  n += (size_t)sprintf(src + n, "%sf", between);
  for (i = 1; i <= 40; i++) n += (size_t)sprintf(src + n, " %d", i);
  sprintf(src + n, "\n");
}

TEST(at_most_32_indices_per_face) {
  char src[4096];
  int nv, nt, *tr;
  float *v;
  track t = {0, 0, 0, 0, 0};
  forty_and_a_long_face(src, 0, "");
  CHECK(parse(src, &t, &v, &nv, &tr, &nt, NULL) == NM_OK);
  CHECK(nv == 40 && nt == 30);
  release(&t, v, nv, tr, nt);
}

/* What the reader passes over is counted: garbage rows, and faces that
 * lose triangles (too few indices, an index out of range, past index 32). */
TEST(dropped_rows_and_faces_are_counted) {
  char src[4096];
  size_t n = 0;
  int nv, nt, *tr;
  float *v;
  track t = {0, 0, 0, 0, 0};
  nm_alloc a;
  nm_obj_dropped d;
  a.fn = track_fn;
  a.ud = &t;
  n += (size_t)sprintf(src + n, "# fine\nmtllib m\no x\ng y\nvn 0 1 0\nvt 0 0\ns 1\nusemtl z\n");
  n += (size_t)sprintf(src + n, "garbage here\nvv 1 2 3\n{\n"); /* 3 garbage rows */
  /* faces: too few indices; fine; 1 of 2 triangles lost; both lost; the long
   * face loses the 8 triangles past index 32 */
  forty_and_a_long_face(src, n, "f 1 2\nf 1 2 3\nf 1 2 3 99\nf 0 1 2 3\n");
  CHECK(nm_obj_parse_counted(src, strlen(src), &a, NULL, &v, &nv, &tr, &nt, &d) == NM_OK);
  CHECK(nv == 40 && nt == 1 + 1 + 0 + 30);
  CHECK(d.lines == 3);
  CHECK(d.faces == 4);
  CHECK(d.triangles == 0 + 1 + 2 + 8);
  release(&t, v, nv, tr, nt);
  /* a clean file drops nothing; the counts are zeroed first */
  d.lines = d.faces = d.triangles = 7;
  CHECK(nm_obj_parse_counted("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 2 3\n", 32, &a, NULL, &v, &nv, &tr, &nt, &d) == NM_OK);
  CHECK(nt == 1 && d.lines == 0 && d.faces == 0 && d.triangles == 0);
  release(&t, v, nv, tr, nt);
  CHECK(t.live == 0);
}

TEST(empty_text_is_empty_geometry) {
  track t = {0, 0, 0, 0, 0};
  float *v; int nv, *tr, nt;
  CHECK(parse("", &t, &v, &nv, &tr, &nt, NULL) == NM_OK);
  CHECK(nv == 0 && nt == 0 && v == NULL && tr == NULL);
  CHECK(parse("# nothing\n\n\n", &t, &v, &nv, &tr, &nt, NULL) == NM_OK);
  CHECK(nv == 0 && nt == 0);
  CHECK(t.live == 0);
}

TEST(malformed_rows) {
  static const char *bad[] = {"v 1 2\n", "v 1 2 x\n", "v nan 0 0\n", "v 0 inf 0\n", "v 1e99 0 0\n",
                              "v 0 0 0\nf 1 a 1\n", "v 0 0 0\nf //1 1 1\n", "v 0 0 0\nf 1.5 1 1\n", "v\n"};
  size_t i;
  for (i = 0; i < sizeof bad / sizeof *bad; i++) {
    track t = {0, 0, 0, 0, 0};
    float *v; int nv, *tr, nt;
    nm_diag d;
    memset(&d, 0, sizeof d);
    CHECK(parse(bad[i], &t, &v, &nv, &tr, &nt, &d) == NM_ERR_DATA);
    CHECK(strstr(d.msg, "line ") != NULL);
    CHECK(v == NULL && tr == NULL && t.live == 0);
  }
}

TEST(line_numbers_in_messages) {
  track t = {0, 0, 0, 0, 0};
  float *v; int nv, *tr, nt;
  nm_diag d;
  CHECK(parse("v 0 0 0\r\n\r\n# c\r\nv 1 2\r\n", &t, &v, &nv, &tr, &nt, &d) == NM_ERR_DATA);
  CHECK(strncmp(d.msg, "line 4:", 7) == 0);
}

/* Random bytes and mutations of a valid file: never a crash or a leak. */
TEST(hostile_bytes) {
  static const char base[] = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 -1e-3 1\nf 1/2/3 2 3 -1\n# x\n";
  unsigned seed = 12345;
  int round;
  for (round = 0; round < 4000; round++) {
    char buf[96];
    size_t len = sizeof base - 1, k;
    track t = {0, 0, 0, 0, 0};
    nm_alloc a;
    float *v; int nv, *tr, nt;
    nm_status st;
    memcpy(buf, base, len);
    for (k = 0; k < 1 + (size_t)(round % 8); k++) {
      seed = seed * 1103515245u + 12345u;
      buf[(seed >> 8) % len] = (char)(seed >> 16);
    }
    if (round % 3 == 0) len = (seed >> 4) % len; /* truncated, not NUL-terminated */
    a.fn = track_fn;
    a.ud = &t;
    st = nm_obj_parse(buf, len, &a, NULL, &v, &nv, &tr, &nt);
    CHECK(st == NM_OK || st == NM_ERR_DATA);
    if (st == NM_OK) {
      for (k = 0; k < (size_t)nt * 3; k++) CHECK(tr[k] >= 0 && tr[k] < nv);
      for (k = 0; k < (size_t)nv * 3; k++) CHECK(isfinite(v[k]));
      release(&t, v, nv, tr, nt);
    }
    CHECK(t.live == 0 && t.bad_sizes == 0);
  }
}

/* Every allocation fails in turn: ERR_NOMEM, nothing leaks. */
TEST(allocation_failures) {
  char src[8192];
  size_t n = 0;
  long total, k;
  int i;
  float *v; int nv, *tr, nt;
  track t = {0, 0, 0, 0, 0};
  for (i = 0; i < 200; i++) n += (size_t)sprintf(src + n, "v %d 0 %d\n", i, i % 7);
  for (i = 3; i <= 200; i++) n += (size_t)sprintf(src + n, "f %d %d %d\n", i - 2, i - 1, i);
  CHECK(parse(src, &t, &v, &nv, &tr, &nt, NULL) == NM_OK);
  release(&t, v, nv, tr, nt);
  total = t.allocs;
  CHECK(total > 3);
  for (k = 1; k <= total; k++) {
    track f = {0, 0, 0, 0, 0};
    nm_status st;
    f.fail_at = k;
    st = parse(src, &f, &v, &nv, &tr, &nt, NULL);
    CHECK(st == NM_ERR_NOMEM);
    CHECK(f.live == 0);
  }
}

int main(void) {
  RUN(vertices_and_triangles);
  RUN(slashes_negative_crlf_blank_lines);
  RUN(out_of_range_triangles_are_dropped);
  RUN(at_most_32_indices_per_face);
  RUN(dropped_rows_and_faces_are_counted);
  RUN(empty_text_is_empty_geometry);
  RUN(malformed_rows);
  RUN(line_numbers_in_messages);
  RUN(hostile_bytes);
  RUN(allocation_failures);
  return tap_done();
}
