/* replay.c -- runs saved inputs through a fuzz target's entry point without
 * libFuzzer (built with ASan+UBSan for `make test`).
 *
 *   replay NAME FILE...        one TAP line per file
 *   replay -a LABEL NAME FILE... one TAP line for all files together
 *
 * Each input runs in a child process, so a crash, an invariant failure
 * (abort) or a leak report (LeakSanitizer exits non-zero) fails that input
 * and the others still run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fuzz.h"

/* Reads a whole file; NULL on error. */
static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0, got;
  if (!f) return NULL;
  do {
    if (n == cap) {
      uint8_t *nb = (uint8_t *)realloc(buf, cap = cap ? cap * 2 : 4096);
      if (!nb) { free(buf); fclose(f); return NULL; }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return buf;
}

/* Runs one input in a child; returns a static description of the outcome,
 * NULL when it passed. */
static const char *run_one(const char *path) {
  static char why[128];
  int status;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    size_t len = 0;
    uint8_t *buf = slurp(path, &len);
    if (!buf) _exit(3);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    exit(0); /* exit (not _exit): LeakSanitizer runs its check here */
  }
  if (waitpid(pid, &status, 0) < 0) return "waitpid failed";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return NULL;
  if (WIFEXITED(status))
    snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(status));
  else
    snprintf(why, sizeof why, "signal %d", WTERMSIG(status));
  return why;
}

static const char *base(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int main(int argc, char **argv) {
  const char *label = NULL, *name;
  int i, first, n = 0, bad = 0;
  if (argc > 2 && strcmp(argv[1], "-a") == 0) {
    label = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: replay [-a LABEL] NAME FILE...\n");
    return 2;
  }
  name = argv[1];
  first = 2;
  for (i = first; i < argc; i++) {
    const char *why = run_one(argv[i]);
    n++;
    if (why) bad++;
    if (!label) printf("%sok %d - fuzz %s: %s%s%s\n", why ? "not " : "", n, name, base(argv[i]),
                       why ? ": " : "", why ? why : "");
    else if (why) printf("# %s: %s: %s\n", name, argv[i], why);
  }
  if (label) {
    printf("%sok 1 - fuzz %s: %s (%d inputs, %d failed)\n", bad ? "not " : "", name, label, n, bad);
    n = 1;
  }
  printf("1..%d\n", n);
  return bad ? 1 : 0;
}
