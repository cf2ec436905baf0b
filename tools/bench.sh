#!/usr/bin/env bash
# tools/bench.sh -- make bench: timings in C and from Lua on ../shared.
#   BENCH_SECONDS=1 (per timing), SHARED=../shared
# Runs bench/bench.c (ours, C), bench/detour_bench.cpp (Detour itself, when
# Debian's librecast-dev is installed: the same files and cases measured on
# the same machine), bench/bench.lua on Lua 5.4 and LuaJIT, then every extra
# bench/*_bench.c and bench/*_bench.lua. JSON lines go to build/bench.json.
set -u
cd "$(dirname "$0")/.."
B=build
SECS=${BENCH_SECONDS:-1}
SHARED=${SHARED:-../shared}
JSON=$B/bench.json
BIN=$B/bench   # bench programs (a directory: the Makefile puts threads and toolbox there)
rm -f "$BIN" 2>/dev/null   # an old checkout left a program of that name
mkdir -p "$BIN"
: >"$JSON"
CFLAGS="-std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibench"

if [ ! -d "$SHARED/navmeshes" ]; then
  echo "bench: $SHARED not found; the benchmarks need the shared reference meshes"
  exit 0
fi
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

gcc $CFLAGS bench/bench.c $B/libnavmesh.a -lm -o $BIN/bench && $BIN/bench "$SHARED" "$SECS" 2>>"$JSON"
echo
if [ ! -f /usr/include/recastnavigation/DetourNavMeshQuery.h ] && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q librecast-dev >/dev/null 2>&1 || true
fi
if [ -f /usr/include/recastnavigation/DetourNavMeshQuery.h ] && command -v g++ >/dev/null; then
  g++ -O2 -I/usr/include/recastnavigation -Ibench bench/detour_bench.cpp -lDetour -lm -o $BIN/detour_bench &&
    $BIN/detour_bench "$SHARED" "$SECS" 2>>"$JSON"
  # tile edits (remove, add at lastRef, flags) and versions against Detour's own
  echo
  g++ -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -I/usr/include/recastnavigation -Ibench bench/tiles_compare.cpp \
    $B/libnavmesh.a -lDetour -lm -lpthread -o $BIN/tiles_compare && $BIN/tiles_compare "$SHARED"
else
  echo "(Detour reference skipped: install librecast-dev and g++ to measure it side by side)"
fi
for pair in 5.4:lua5.4 jit:luajit; do
  v=${pair%%:*}; lua=${pair#*:}
  if command -v "$lua" >/dev/null && [ -f "$B/$v/navmesh/core.so" ]; then
    echo
    LUA_PATH="lua/?.lua;spec/?.lua;;" LUA_CPATH="$B/$v/?.so;;" "$lua" bench/bench.lua "$SHARED" "$SECS" 2>>"$JSON"
  fi
done
for f in bench/*_bench.c; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .c)
  echo
  gcc $CFLAGS "$f" $B/libnavmesh.a -lm -lpthread -o "$BIN/$n" && "$BIN/$n" "$SHARED" "$SECS" 2>>"$JSON"
done
# the tile cache beside Detour's dtTileCache, interleaved in one process
if [ -f /usr/include/recastnavigation/DetourTileCache.h ] && command -v g++ >/dev/null; then
  echo
  g++ -O2 -D_POSIX_C_SOURCE=200809L -Wno-unused-function -I/usr/include/recastnavigation -Iinclude -Ibench \
    bench/detour_cache_bench.cpp $B/libnavmesh.a -lRecast -lDetourTileCache -lDetour -lm -lpthread \
    -o $BIN/detour_cache_bench && $BIN/detour_cache_bench "$SHARED" 5 2>>"$JSON"
fi
# Recast building the same meshes (the yardstick for bench/build_bench.c)
if [ -f /usr/include/recastnavigation/Recast.h ] && command -v g++ >/dev/null; then
  echo
  g++ -O2 -I/usr/include/recastnavigation -Iinclude bench/recast_build_bench.cpp $B/libnavmesh.a \
    -lRecast -lDetour -lm -o $BIN/recast_build_bench && $BIN/recast_build_bench "$SHARED" 2>>"$JSON"
fi
# Crowds side by side with Debian's DetourCrowd (bench/crowd_bench.cpp):
# update time per tick, ORCA vs sampled avoidance.
if [ -f /usr/include/recastnavigation/DetourCrowd.h ] && command -v g++ >/dev/null; then
  echo
  g++ -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -I/usr/include/recastnavigation -Ibench -Ispec/c \
    bench/crowd_bench.cpp $B/libnavmesh.a -lDetourCrowd -lDetour -lm -lpthread -o $BIN/crowd_bench &&
    $BIN/crowd_bench "$SHARED" "$SECS" 2>>"$JSON"
else
  echo "(crowd bench skipped: install librecast-dev and g++ to run DetourCrowd side by side)"
fi
for f in bench/*_bench.lua; do
  [ -f "$f" ] || continue
  echo
  LUA_PATH="lua/?.lua;spec/?.lua;examples/?.lua;;" LUA_CPATH="$B/5.4/?.so;;" lua5.4 "$f" "$SHARED" "$SECS" 2>>"$JSON"
done
# 1 vs 2 threads on one shared mesh: Lua 5.4 states opening it by name, and
# the core directly (bench/threads.c, also `make bench-threads`).
if ! make -s "$B/bench/threads" >/dev/null 2>&1; then
  echo; echo "(threads bench not built: make $B/bench/threads fails)"
elif [ -f "$B/5.4/navmesh/core.so" ]; then
  echo
  "$B/bench/threads" "lua/?.lua;examples/?.lua" "$B/5.4/?.so" "$SECS" 3 2>>"$JSON"
fi
echo
echo "JSON lines: $JSON"
