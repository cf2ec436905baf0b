/* tap.h -- a tiny TAP producer for the C unit tests.
 *   TEST(name) { ... CHECK(cond); ... }   and in main: RUN(name); ... return tap_done();
 * Each RUN prints "ok N - name" or "not ok N - name" with the failed checks. */
#ifndef NM_TAP_H
#define NM_TAP_H
#include <stdio.h>

static int tap_n, tap_failed, tap_cur_fail;

#define TEST(name) static void test_##name(void)
#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      printf("#   check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
      tap_cur_fail = 1;                                                          \
    }                                                                            \
  } while (0)
#define CHECK_NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol))
#define RUN(name)                                                                \
  do {                                                                           \
    tap_cur_fail = 0;                                                            \
    test_##name();                                                               \
    tap_n++;                                                                     \
    if (tap_cur_fail) tap_failed++;                                              \
    printf("%sok %d - %s\n", tap_cur_fail ? "not " : "", tap_n, #name);          \
    fflush(stdout);                                                              \
  } while (0)

static int tap_done(void) {
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
#endif
