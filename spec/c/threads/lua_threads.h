/* lua_threads.h -- what the host tests with Lua states on threads share
 * (spec/c/threads/test_threads.c, test_cache_threads.c): making a state
 * with the module's paths, running a chunk with arguments, the workers'
 * records and TAP lines. */
#ifndef NM_LUA_THREADS_H
#define NM_LUA_THREADS_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

static const char *lua_path, *lua_cpath; /* package.path / cpath of every state */
static const char *run_name;             /* the shared mesh's name: run's first argument */

typedef struct worker {
  pthread_t thread;
  int id;
  char *answers; /* malloc'd result, NULL on error */
  char err[256];
} worker;

static int workers_done; /* __atomic: threads finished */
static int tap_n, tap_failed;

/* A fresh state with the standard libraries and the module's paths. */
static lua_State *new_state(void) {
  lua_State *L = luaL_newstate();
  if (!L) return NULL;
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushstring(L, lua_path);
  lua_setfield(L, -2, "path");
  lua_pushstring(L, lua_cpath);
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  return L;
}

/* Runs code with the name and two integers as arguments; leaves one
 * result. On error copies the message into err and returns 0. */
static int run(lua_State *L, const char *code, int a, int b, char *err, size_t errlen) {
  if (luaL_loadstring(L, code) != LUA_OK) goto fail;
  lua_pushstring(L, run_name);
  lua_pushinteger(L, a);
  lua_pushinteger(L, b);
  if (lua_pcall(L, 3, 1, 0) != LUA_OK) goto fail;
  return 1;
fail:
  snprintf(err, errlen, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  return 0;
}

/* A copy of the string on top of the stack (popped). */
static char *pop_string(lua_State *L) {
  size_t len;
  const char *s = lua_tolstring(L, -1, &len);
  char *copy = s ? (char *)malloc(len + 1) : NULL;
  if (copy) memcpy(copy, s, len + 1);
  lua_pop(L, 1);
  return copy;
}

/* Takes the paths from the command line and makes the main state for the
 * shared mesh `name`; NULL (usage printed) on bad arguments. */
static lua_State *host_start(int argc, char **argv, const char *name) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <package.path> <package.cpath>\n", argv[0]);
    return NULL;
  }
  lua_path = argv[1];
  lua_cpath = argv[2];
  run_name = name;
  return new_state();
}

/* What each worker thread runs: worker_chunk with the name, worker_a and
 * worker_b; with worker_want set, the global WANT holds it first. */
static const char *worker_chunk, *worker_want;
static int worker_a, worker_b;

static void *worker_main(void *arg) {
  worker *w = (worker *)arg;
  lua_State *L = new_state();
  if (!L) {
    snprintf(w->err, sizeof w->err, "cannot create a Lua state");
  } else {
    if (worker_want) {
      lua_pushstring(L, worker_want);
      lua_setglobal(L, "WANT");
    }
    if (run(L, worker_chunk, worker_a, worker_b, w->err, sizeof w->err)) w->answers = pop_string(L);
    lua_close(L);
  }
  __atomic_add_fetch(&workers_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* Starts n workers (w[i].id = 0 for one that could not start). */
static void start_workers(worker *w, int n) {
  int i;
  for (i = 0; i < n; i++) {
    w[i].id = i + 1;
    if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) {
      snprintf(w[i].err, sizeof w[i].err, "pthread_create failed");
      __atomic_add_fetch(&workers_done, 1, __ATOMIC_RELEASE);
      w[i].id = 0;
    }
  }
}

/* Runs code (with the count of runs so far as its first integer) every
 * pause_ms until n workers are done; returns the runs, -1 on an error. */
static int run_until_done(lua_State *L, const char *code, int n, long pause_ms, char *err, size_t errlen) {
  struct timespec pause;
  int runs = 0;
  pause.tv_sec = 0;
  pause.tv_nsec = pause_ms * 1000 * 1000;
  while (__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE) < n) {
    if (!run(L, code, runs, 0, err, errlen)) return -1;
    lua_pop(L, 1);
    runs++;
    nanosleep(&pause, NULL);
  }
  return runs;
}

/* Prints one TAP line "ok N - ..." / "not ok N - ..." (+ why). */
static void report(int ok, const char *fmt, int arg, const char *detail) {
  tap_n++;
  if (!ok) tap_failed++;
  printf("%sok %d - ", ok ? "" : "not ", tap_n);
  printf(fmt, arg);
  printf("\n");
  if (!ok && detail) printf("#   %s\n", detail);
  fflush(stdout);
}

static int tap_done(void) {
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}

#endif
