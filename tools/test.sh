#!/usr/bin/env bash
# tools/test.sh -- every test suite of the project: the valgrind run in the
# background, the others one after another beside it.
# Each suite speaks TAP; its "ok"/"not ok" lines are counted, failures and
# the figures the specs print ("# ..." lines) are shown, full logs are kept
# in build/test-logs/. The last line is "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
# Every build the tests make treats warnings as errors (a plain `make` does not).
export WERROR=${WERROR--Werror}
B=build
LOGS=$B/test-logs
mkdir -p "$LOGS"
PASS=0
FAIL=0
SUITES=""

# run_suite NAME CMD...: runs a TAP-producing command and counts its results.
run_suite() {
  local name=$1; shift
  local t0
  t0=$(date +%s)
  "$@" >"$LOGS/$name.log" 2>&1
  tally "$name" $? "$t0"
}

# tally NAME STATUS T0: counts the results in NAME's log (the suite exited
# with STATUS, started at T0), shows its failures and figures.
tally() {
  local name=$1 rc=$2 t0=$3 log=$LOGS/$1.log t1 p f
  t1=$(date +%s)
  p=$(grep -cE '^ok [0-9]+' "$log")
  f=$(grep -cE '^not ok [0-9]+' "$log")
  # A suite that crashed or failed without reporting a failing test counts as one failure.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    echo "not ok - $name exited with status $rc; last lines:"
    tail -15 "$log" | sed 's/^/    /'
  fi
  grep -E '^not ok [0-9]+' "$log" | head -40 | sed "s/^/[$name] /"
  grep -E '^# ' "$log" | grep -vE '^# *(check failed|Failure|Error|[-=]+$)' | sed "s/^/[$name] /" | head -200
  grep -E '^#   check failed' "$log" | head -20 | sed "s/^/[$name] /"
  PASS=$((PASS + p))
  FAIL=$((FAIL + f))
  SUITES="$SUITES\n  $name: $p passed, $f failed ($((t1 - t0)) s)"
}

echo "== building"
if ! make -s test-build >"$LOGS/build.log" 2>&1; then
  cat "$LOGS/build.log" | tail -30
  echo "0 passed, 1 failed"
  exit 1
fi

# ---- the Lua suite once under valgrind memcheck (normal module) ----
# Every spec but those in VALGRIND_SKIP (03-inset: 11 s of pure-Lua geometry
# checks natively, some 15 minutes under memcheck, little C per second); the
# hostile-bytes spec with 2% of its copies (NAVMESH_HOSTILE_SCALE). Fails on
# any memcheck error or definitely-lost byte.
VALGRIND_SKIP=${VALGRIND_SKIP:-03-inset}
valgrind_suite() ( # (a subshell: the export stays here)
  local vlog=$LOGS/valgrind-memcheck.txt rc specs="" f skip
  export NAVMESH_HOSTILE_SCALE=0.02 NAVMESH_VALGRIND=1
  for f in spec/*_spec.lua; do
    skip=0
    for s in $VALGRIND_SKIP; do case $f in spec/"$s"_spec.lua) skip=1;; esac; done
    if [ $skip = 1 ]; then echo "# valgrind: skipping $f"; else specs="$specs $f"; fi
  done
  # shellcheck disable=SC2086
  LUA_PATH="lua/?.lua;spec/?.lua;;" LUA_CPATH="$B/5.4/?.so;;" \
    valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    --log-file="$vlog" lua5.4 /usr/bin/busted -o TAP $specs
  rc=$?
  grep -E "ERROR SUMMARY|definitely lost|indirectly lost|All heap blocks" "$vlog" |
    sed 's/^==[0-9]*== */# valgrind: /'
  exit $rc
)
# It is the longest suite (some 10 minutes) and runs on one core, so it
# starts now, in the background, and the other suites run beside it.
VG_PID=""
if command -v valgrind >/dev/null && [ -f "$B/5.4/navmesh/core.so" ]; then
  VG_T0=$(date +%s)
  rm -f "$LOGS/busted-5.4-valgrind.rc"
  (valgrind_suite >"$LOGS/busted-5.4-valgrind.log" 2>&1; echo $? >"$LOGS/busted-5.4-valgrind.rc") &
  VG_PID=$!
else
  echo "not ok - busted-5.4-valgrind: valgrind or the 5.4 module is missing"
  FAIL=$((FAIL + 1))
fi

# ---- C unit tests (ASan + UBSan) ----
for t in "$B"/asan/tests/test_*; do
  [ -x "$t" ] || continue
  run_suite "c-$(basename "$t")" env ASAN_OPTIONS=detect_leaks=1 "$t"
done

# ---- fuzz regression inputs and seeds, replayed under ASan + UBSan ----
# Each file in spec/fuzz/<target>/ (crashes `make fuzz` found) runs through
# the target's entry point (one TAP line each); the generated seeds run as one
# line per target. obj/build_soup exist once the library defines their function.
replay_target() ( # replay_target TARGET (a subshell: the exports stay here)
  local t=$1 bin=$B/asan/fuzz/$1 files
  files=$(ls -d spec/fuzz/"$t"/* 2>/dev/null)
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
  local rc=0
  # shellcheck disable=SC2086
  if [ -n "$files" ]; then "$bin" "$t" $files || rc=1; fi
  "$bin" -a seeds "$t" "$B"/fuzz/seeds-test/"$t"/* || rc=1
  exit $rc
)
rm -rf "$B/fuzz/seeds-test"
"$B/fuzz/seeds" "$B/fuzz/seeds-test"
FUZZ_BUILT=$(make -s fuzz-targets)
for t in $FUZZ_BUILT; do
  run_suite "fuzz-$t" replay_target "$t"
done
for d in spec/fuzz/*/; do
  t=$(basename "$d")
  case " $FUZZ_BUILT " in *" $t "*) ;; *) echo "# fuzz $t: $(ls "$d" | wc -l) saved inputs not replayed (the library does not define its function yet)";; esac
done

# ---- busted on every Lua we have a module and busted for ----
busted_on() { # busted_on NAME INTERPRETER CPATH-DIR [env...]
  local name=$1 lua=$2 cdir=$3; shift 3
  env "$@" LUA_PATH="lua/?.lua;spec/?.lua;;" LUA_CPATH="$cdir/?.so;;" \
    "$lua" /usr/bin/busted -o TAP spec
}
for pair in 5.4:lua5.4 jit:luajit 5.1:lua5.1 5.3:lua5.3; do
  v=${pair%%:*}; lua=${pair#*:}
  if [ -f "$B/$v/navmesh/core.so" ] && command -v "$lua" >/dev/null; then
    run_suite "busted-$v" busted_on "$v" "$lua" "$B/$v"
  else
    echo "not ok - busted-$v: $lua or its module is missing"
    FAIL=$((FAIL + 1))
  fi
done

run_suite "doctest" lua5.4 tools/doctest.lua # every ```lua block of README.md, docs/, examples/*/README.md

# ---- hosts (issue 4): how the module is linked, nginx + lua-nginx-module,
# eight Lua 5.4 states on eight threads over one shared mesh under TSan ----
run_suite "hosts-build" bash spec/hosts/build_test.sh
run_suite "hosts-nginx" bash spec/hosts/nginx_test.sh
run_suite "hosts-viewer" bash spec/hosts/viewer_test.sh
run_suite "hosts-skynet" bash spec/hosts/skynet_test.sh # issue 19: real Skynet nodes, Lua 5.5.0 and 5.4.8
run_suite "busted-5.5" bash spec/hosts/lua55_test.sh    # the specs on Skynet's standalone Lua 5.5.0
TSAN_RUN=""
command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null && TSAN_RUN="setarch $(uname -m) -R"
run_suite "c-threads-tsan" env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_threads" "lua/?.lua;examples/?.lua" "$B/tsan/5.4/?.so"
# a tile cache publishing versions while four Lua states refresh and query
run_suite "c-cache-threads-tsan" env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_cache_threads" "lua/?.lua;examples/?.lua" "$B/tsan/5.4/?.so"
# versions published by one thread while four query them (C only)
run_suite "c-versions-tsan" env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_versions_tsan"
# build jobs on worker threads (C only)
run_suite "c-build-job-tsan" env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_build_job"

# ---- the Lua suite again with a sanitized module (ASan + UBSan preloaded) ----
ASAN_RT=$(gcc -print-file-name=libasan.so)
UBSAN_RT=$(gcc -print-file-name=libubsan.so)
run_suite "busted-5.4-asan" busted_on asan lua5.4 "$B/asan/5.4" \
  LD_PRELOAD="$ASAN_RT $UBSAN_RT" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 NAVMESH_SANITIZED=1

# the valgrind run started after the build: wait for it
if [ -n "${VG_PID:-}" ]; then
  wait "$VG_PID"
  tally "busted-5.4-valgrind" "$(cat "$LOGS/busted-5.4-valgrind.rc" 2>/dev/null || echo 1)" "$VG_T0"
fi

printf "== suites:%b\n" "$SUITES"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
