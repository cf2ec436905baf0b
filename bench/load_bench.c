/* load_bench.c -- loading the shared navmeshes: RecastDemo MSET bytes, our
 * own format from bytes (copied, stored links checked), and our own format
 * memory-mapped in place; ms per load (median of 21), ms per MB, and the
 * memory: tile data bytes and what a mapped mesh keeps in private memory.
 * Then two processes map the same file and touch every page: the kernel's
 * proportional set size (Pss) of the mapping in one of them shows the pages
 * are shared (Pss is about half of Rss). Usage: load_bench SHARED_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "navmesh.h"
#include "cases.h"

#define RUNS 21

/* Median ms of RUNS loads of bytes (or, when path, maps of the file). */
static double time_load(const void *bytes, size_t len, const char *path) {
  double t[RUNS];
  int i;
  for (i = 0; i < RUNS; i++) {
    nm_navmesh *m = NULL;
    double a = bench_now();
    if (path) nm_navmesh_map(path, NULL, NULL, &m);
    else nm_navmesh_load(bytes, len, NULL, NULL, &m);
    t[i] = (bench_now() - a) * 1e3;
    nm_navmesh_release(m);
  }
  return bench_median(t, RUNS);
}

/* Rss and Pss (KiB) of this process's mapping of `path`. */
static void mapping_kib(const char *path, long *rss, long *pss) {
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  int in = 0;
  *rss = *pss = -1;
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    if (strchr(line, '/') && strstr(line, path)) in = 1;
    else if (in && sscanf(line, "Rss: %ld", rss) == 1) {}
    else if (in && sscanf(line, "Pss: %ld", pss) == 1) break;
  }
  fclose(f);
}

/* Touches every tile page by running nearest queries over the whole mesh. */
static void touch(nm_navmesh *m) {
  nm_navmesh_info info;
  nm_query *q;
  nm_filter f;
  float p[3], ext[3] = {1000, 1000, 1000}, pt[3];
  nm_polyref r;
  nm_navmesh_get_info(m, &info);
  nm_filter_init(&f);
  nm_query_new(m, 64, NULL, &q);
  for (p[0] = info.bmin[0]; p[0] <= info.bmax[0]; p[0] += 5)
    for (p[2] = info.bmin[2]; p[2] <= info.bmax[2]; p[2] += 5) {
      p[1] = (info.bmin[1] + info.bmax[1]) * 0.5f;
      ext[0] = ext[2] = 2.5f;
      nm_query_find_nearest(q, p, ext, &f, &r, pt, NULL);
    }
  nm_query_free(q);
}

/* Maps the file in this process and in a child; the child reports Pss. */
static void shared_pages(const char *path) {
  nm_navmesh *m = NULL;
  int fds[2];
  long rss = 0, pss = 0;
  pid_t pid;
  if (nm_navmesh_map(path, NULL, NULL, &m) < 0 || pipe(fds) != 0) return;
  touch(m);
  if ((pid = fork()) == 0) {
    nm_navmesh *c = NULL;
    nm_navmesh_map(path, NULL, NULL, &c);
    touch(c);
    mapping_kib(path, &rss, &pss);
    if (write(fds[1], &rss, sizeof rss) < 0 || write(fds[1], &pss, sizeof pss) < 0) _exit(1);
    _exit(0);
  }
  if (read(fds[0], &rss, sizeof rss) > 0 && read(fds[0], &pss, sizeof pss) > 0)
    printf("    two processes map %s: the child's Rss %ld KiB, Pss %ld KiB (shared pages count half)\n", path, rss, pss);
  waitpid(pid, NULL, 0);
  nm_navmesh_release(m);
}

int main(int argc, char **argv) {
  const char *shared = argc > 1 ? argv[1] : "../shared";
  int i;
  printf("%-17s %9s %9s %9s %9s %9s %11s %11s\n", "load (median ms)", "MB", "MSET", "native", "mmap",
         "mmap/MB", "data B", "private B");
  for (i = 0; bench_meshes[i]; i++) {
    char path[1024], own[1024];
    size_t len, nlen;
    unsigned char *bytes;
    void *native = NULL;
    nm_navmesh *m = NULL, *mm = NULL;
    nm_navmesh_info info, minfo;
    double t_mset, t_native, t_map, mb;
    FILE *f;
    if (bench_skip(bench_meshes[i])) continue;
    snprintf(path, sizeof path, "%s/navmeshes/%s.bin", shared, bench_meshes[i]);
    if (!(bytes = bench_read_file(path, &len))) continue;
    if (nm_navmesh_load(bytes, len, NULL, NULL, &m) < 0) { free(bytes); continue; }
    nm_navmesh_save(m, NM_FORMAT_NATIVE, &native, &nlen);
    snprintf(own, sizeof own, "build/%s.nmsh", bench_meshes[i]);
    if ((f = fopen(own, "wb"))) { fwrite(native, 1, nlen, f); fclose(f); }
    t_mset = time_load(bytes, len, NULL);
    t_native = time_load(native, nlen, NULL);
    t_map = time_load(NULL, 0, own);
    nm_navmesh_map(own, NULL, NULL, &mm);
    nm_navmesh_get_info(m, &info);
    nm_navmesh_get_info(mm, &minfo);
    mb = (double)nlen / (1024.0 * 1024.0);
    printf("%-17s %9.3f %9.3f %9.3f %9.3f %9.3f %11lu %11lu\n", bench_meshes[i], mb, t_mset, t_native, t_map,
           t_map / mb, (unsigned long)info.data_bytes, (unsigned long)(minfo.memory_bytes - minfo.data_bytes));
    fprintf(stderr, "{\"impl\":\"navmesh-load\",\"mesh\":\"%s\",\"mb\":%.4f,\"mset_ms\":%.4f,\"native_ms\":%.4f,"
            "\"mmap_ms\":%.4f,\"data_bytes\":%lu,\"mapped_private_bytes\":%lu}\n", bench_meshes[i], mb, t_mset,
            t_native, t_map, (unsigned long)info.data_bytes, (unsigned long)(minfo.memory_bytes - minfo.data_bytes));
    nm_navmesh_release(mm);
    if (strstr(bench_meshes[i], "city")) shared_pages(own);
    nm_free_bytes(m, native, nlen);
    nm_navmesh_release(m);
    free(bytes);
  }
  return 0;
}
