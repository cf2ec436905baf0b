/* fuzz_obj.c -- the Wavefront OBJ reader (nm_obj_parse) on arbitrary text.
 * Built only when the library defines nm_obj_parse (see the Makefile).
 * Invariants: known status; on success every triangle index lies in
 * [0, nverts); on failure the outputs are empty. Small successful parses
 * are also built (nm_navmesh_build, when present) with a coarse config and
 * a memory limit, so the OBJ -> build path sees the same text. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  float *v = NULL;
  int *t = NULL, nv = -1, nt = -1, i;
  nm_diag d;
  nm_status st;
  memset(&d, 0, sizeof d);
  st = nm_obj_parse((const char *)data, size, NULL, &d, &v, &nv, &t, &nt);
  fz_say("nm_obj_parse", st, &d);
  FZ_CHECK(st == NM_OK || st == NM_ERR_DATA || st == NM_ERR_PARAM || st == NM_ERR_EMPTY ||
           st == NM_ERR_NOMEM);
  if (st < 0) {
    FZ_CHECK(v == NULL && t == NULL);
    return 0;
  }
  FZ_CHECK(nv >= 0 && nt >= 0);
  for (i = 0; i < nt * 3; i++) FZ_CHECK(t[i] >= 0 && t[i] < nv);
#ifdef FUZZ_HAVE_BUILD
  if (nt > 0 && nt < 2000) {
    nm_build_config cfg;
    nm_navmesh *m = NULL;
    nm_build_config_init(&cfg);
    cfg.cell_size = 0.5f;
    cfg.cell_height = 0.25f;
    cfg.memory_limit = 16u << 20;
    st = nm_navmesh_build(v, nv, t, nt, &cfg, NULL, &d, &m, NULL);
    FZ_CHECK(fz_status_known(st) && st <= 0);
    if (st == NM_OK) {
      fz_exercise(m);
      nm_navmesh_release(m);
    }
  }
#endif
  nm_obj_free(NULL, v, nv, t, nt);
  return 0;
}
