#!/usr/bin/env bash
# tools/bench.sh -- make bench: our timings against Detour's and Recast's,
# each pair in one process (alternating rounds, CPU time, the median of the
# per-round ratios with quartiles and the load average beside it; see
# bench/pair.h and docs/performance.md), on ../shared.
#   BENCH_SECONDS=1 (per pair), SHARED=../shared, BENCH_MESH=name
# Runs bench/pairs.cpp (queries and the query toolbox in C against Detour),
# bench/bench.lua on Lua 5.4 and LuaJIT and bench/toolbox_bench.lua on 5.4
# (our binding against Detour's C through bench/detour_lua.cpp),
# bench/optimal_bench.c, bench/load_bench.c, bench/build_pairs.cpp (builds
# against Recast) and bench/threads.c. Without Debian's librecast-dev our
# side is timed alone (and builds by bench/build_bench.c). JSON lines go to
# build/bench.json. The last line says how long it all took.
set -u
cd "$(dirname "$0")/.."
B=build
SECS=${BENCH_SECONDS:-1}
SHARED=${SHARED:-../shared}
JSON=$B/bench.json
BIN=$B/bench   # bench programs (a directory: the Makefile puts threads there)
T0=$(date +%s)
rm -f "$BIN" 2>/dev/null   # an old checkout left a program of that name
mkdir -p "$BIN"
: >"$JSON"
CFLAGS="-std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibench"
CXXFLAGS="-O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibench -I/usr/include/recastnavigation"
RC=/usr/include/recastnavigation

if [ ! -d "$SHARED/navmeshes" ]; then
  echo "bench: $SHARED not found; the benchmarks need the shared reference meshes"
  exit 0
fi
if [ ! -f $RC/DetourNavMeshQuery.h ] && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q librecast-dev >/dev/null 2>&1 || true
fi
DETOUR=0
[ -f $RC/DetourNavMeshQuery.h ] && [ -f $RC/Recast.h ] && command -v g++ >/dev/null && DETOUR=1
[ $DETOUR = 1 ] || echo "(Detour / Recast not found: install librecast-dev and g++ to time them side by side)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- queries in C: ours against Detour ----
if [ $DETOUR = 1 ]; then
  g++ $CXXFLAGS bench/pairs.cpp $B/libnavmesh.a -lDetour -lm -o $BIN/pairs
else
  g++ $CXXFLAGS -DNO_DETOUR bench/pairs.cpp $B/libnavmesh.a -lm -o $BIN/pairs
fi && $BIN/pairs "$SHARED" "$SECS" 2>>"$JSON"

# ---- queries from Lua: our binding against Detour's C ----
for pair in 5.4:lua5.4:/usr/include/lua5.4 jit:luajit:/usr/include/luajit-2.1; do
  v=${pair%%:*}; rest=${pair#*:}; lua=${rest%%:*}; inc=${rest#*:}
  command -v "$lua" >/dev/null && [ -f "$B/$v/navmesh/core.so" ] || continue
  mkdir -p "$BIN/$v"
  if [ $DETOUR = 1 ] && [ -f "$inc/lua.h" ]; then
    g++ $CXXFLAGS -fPIC -shared -Isrc/lua -I"$inc" bench/detour_lua.cpp -lDetour -lm -o "$BIN/$v/detourbench.so" ||
      rm -f "$BIN/$v/detourbench.so"
  fi
  run_lua() { LUA_PATH="lua/?.lua;spec/?.lua;examples/?.lua;;" LUA_CPATH="$B/$v/?.so;$BIN/$v/?.so;;" "$lua" "$@"; }
  echo
  run_lua bench/bench.lua "$SHARED" "$SECS" 2>>"$JSON"
  if [ "$v" = 5.4 ]; then
    echo
    run_lua bench/toolbox_bench.lua "$SHARED" "$SECS" 2>>"$JSON"
  fi
done

# ---- optimal paths, loading ----
for n in optimal_bench load_bench; do
  echo
  gcc $CFLAGS "bench/$n.c" $B/libnavmesh.a -lm -lpthread -o "$BIN/$n" && "$BIN/$n" "$SHARED" "$SECS" 2>>"$JSON"
done

# ---- builds: ours against Recast (or ours alone) ----
echo
if [ $DETOUR = 1 ]; then
  g++ $CXXFLAGS bench/build_pairs.cpp $B/libnavmesh.a -lRecast -lDetour -lm -lpthread -o $BIN/build_pairs &&
    $BIN/build_pairs "$SHARED" "$SECS" 2>>"$JSON"
else
  gcc $CFLAGS bench/build_bench.c $B/libnavmesh.a -lm -lpthread -o $BIN/build_bench && $BIN/build_bench "$SHARED" 2>>"$JSON"
fi

# tile edits (remove, add at lastRef, flags) and versions against Detour's own
if [ $DETOUR = 1 ]; then
  echo
  g++ $CXXFLAGS bench/tiles_compare.cpp $B/libnavmesh.a -lDetour -lm -lpthread -o $BIN/tiles_compare &&
    $BIN/tiles_compare "$SHARED"
fi
# versions: one changed tile published against today's whole-mesh copy
echo
gcc $CFLAGS bench/version_bench.c $B/libnavmesh.a -lm -lpthread -o $BIN/version_bench && $BIN/version_bench "$SHARED" "$SECS" 2>>"$JSON"
# the tile cache beside Detour's dtTileCache, interleaved in one process
# (ours alone without it: bench/cache_bench.c)
echo
if [ $DETOUR = 1 ] && [ -f $RC/DetourTileCache.h ]; then
  g++ $CXXFLAGS -Wno-unused-function bench/detour_cache_bench.cpp $B/libnavmesh.a \
    -lRecast -lDetourTileCache -lDetour -lm -lpthread -o $BIN/detour_cache_bench &&
    $BIN/detour_cache_bench "$SHARED" 5 2>>"$JSON"
else
  gcc $CFLAGS bench/cache_bench.c $B/libnavmesh.a -lm -lpthread -o $BIN/cache_bench && $BIN/cache_bench "$SHARED" 2>>"$JSON"
fi
# crowds beside Debian's DetourCrowd (bench/crowd_bench.cpp): update time per
# tick, ORCA vs sampled avoidance
if [ $DETOUR = 1 ] && [ -f $RC/DetourCrowd.h ]; then
  echo
  g++ $CXXFLAGS -Ispec/c bench/crowd_bench.cpp $B/libnavmesh.a -lDetourCrowd -lDetour -lm -o $BIN/crowd_bench &&
    $BIN/crowd_bench "$SHARED" "$SECS" 2>>"$JSON"
else
  echo "(crowd bench skipped: install librecast-dev and g++ to run DetourCrowd side by side)"
fi
# the other Lua benches (tile cache, crowd) on Lua 5.4
for f in bench/*_bench.lua; do
  case $f in bench/toolbox_bench.lua) continue;; esac
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
echo "make bench took $(($(date +%s) - T0)) s (BENCH_SECONDS=$SECS; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
