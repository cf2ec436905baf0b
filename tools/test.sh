#!/usr/bin/env bash
# tools/test.sh -- every test suite of the project (make test).
#   bash tools/test.sh [WORD]   only the suites whose name contains WORD
# Each suite is one `run_suite NAME CMD...` line below; suites run side by
# side, TEST_JOBS at a time (default 2, the cores of the machine we share),
# started in the order written (longest first: that packs them best).
# Each suite speaks TAP; its "ok"/"not ok" lines are counted, failures and
# the figures the specs print ("# ..." lines) are shown when it ends, full
# logs are kept in build/test-logs/. At the end: every suite with its
# wall-clock and CPU seconds, the load average, and last the line
# "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
# Every build the tests make treats warnings as errors (a plain `make` does not).
export WERROR=${WERROR--Werror}
B=build
LOGS=$B/test-logs
ONLY=${1:-}
JOBS=${TEST_JOBS:-2}
mkdir -p "$LOGS"
PASS=0
FAIL=0
SUITES=""   # the suites started, in order
T0=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# run_suite NAME CMD...: runs a TAP-producing command in the background once
# fewer than JOBS suites are running; its log, exit status and times
# (wall, user, system seconds) go to $LOGS/NAME.{log,rc,time}.
run_suite() {
  local name=$1; shift
  case $name in *"$ONLY"*) ;; *) return 0 ;; esac
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
    wait -n
    tally_finished
  done
  rm -f "$LOGS/$name.rc" "$LOGS/$name.time"
  SUITES="$SUITES $name"
  (
    TIMEFORMAT="%R %U %S"
    { time "$@" >"$LOGS/$name.log" 2>&1; } 2>"$LOGS/$name.time.tmp"
    echo $? >"$LOGS/$name.rc.tmp"
    tail -1 "$LOGS/$name.time.tmp" >"$LOGS/$name.time"
    mv "$LOGS/$name.rc.tmp" "$LOGS/$name.rc"
  ) &
}

# Tallies every suite that has ended and was not tallied yet.
TALLIED=" "
tally_finished() {
  local name
  for name in $SUITES; do
    case $TALLIED in *" $name "*) continue ;; esac
    [ -f "$LOGS/$name.rc" ] || continue
    TALLIED="$TALLIED$name "
    tally "$name" "$(cat "$LOGS/$name.rc")"
  done
}

# tally NAME STATUS: counts the results in NAME's log (the suite exited with
# STATUS), shows its failures and figures.
RESULTS=""
tally() {
  local name=$1 rc=$2 log=$LOGS/$1.log p f t
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
  read -r t u s <"$LOGS/$name.time" 2>/dev/null || { t=0.000; u=0.000; s=0.000; }
  u=$(($(ms "$u") + $(ms "$s")))
  RESULTS="$RESULTS$(printf '\n  %-22s %4d passed, %d failed  %7.1f s wall %5d.%d s CPU' "$name:" "$p" "$f" "$t" \
    $((u / 1000)) $((u % 1000 / 100)))"
}

# Milliseconds of a time bash printed ("12.345").
ms() {
  local v=${1/./}
  echo $((10#${v:-0}))
}

# A suite that cannot run at all ("NAME: why"): one failure.
missing() {
  case ${1%%:*} in *"$ONLY"*) ;; *) return 0 ;; esac
  echo "not ok - $1"
  FAIL=$((FAIL + 1))
}

echo "== building"
if ! make -s -j"$JOBS" test-build >"$LOGS/build.log" 2>&1; then
  tail -30 "$LOGS/build.log"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "== running (up to $JOBS suites at a time; built in $(($(date +%s) - T0)) s)"

# ---- the Lua suite under valgrind memcheck (normal module) ----
# The specs and settings of tools/valgrind-set.sh (a set that reaches every
# C line the whole suite reaches: make valgrind-coverage; VALGRIND_SET=full
# for the complete run). Fails on any memcheck error or definitely-lost byte.
. tools/valgrind-set.sh
valgrind_suite() ( # (a subshell: the exports stay here)
  local vlog=$LOGS/valgrind-memcheck.txt rc
  # shellcheck disable=SC2086
  export $VALGRIND_ENV
  echo "# valgrind: $VALGRIND_ENV, skipping:$(for s in $VALGRIND_SKIP; do printf ' %s' "$s"; done)"
  # shellcheck disable=SC2046
  LUA_PATH="lua/?.lua;spec/?.lua;;" LUA_CPATH="$B/5.4/?.so;;" \
    valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    --log-file="$vlog" lua5.4 /usr/bin/busted -o TAP $(valgrind_specs)
  rc=$?
  grep -E "ERROR SUMMARY|definitely lost|indirectly lost|All heap blocks" "$vlog" |
    sed 's/^==[0-9]*== */# valgrind: /'
  exit $rc
)

busted_on() { # busted_on NAME INTERPRETER CPATH-DIR [env...]
  local name=$1 lua=$2 cdir=$3; shift 3
  env "$@" LUA_PATH="lua/?.lua;spec/?.lua;;" LUA_CPATH="$cdir/?.so;;" \
    "$lua" /usr/bin/busted -o TAP spec
}

# Fuzz regression inputs and seeds, replayed under ASan + UBSan: each file in
# spec/fuzz/<target>/ (crashes `make fuzz` found) runs through the target's
# entry point (one TAP line each); the generated seeds run as one line per
# target. obj/build_soup exist once the library defines their function.
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
for d in spec/fuzz/*/; do
  t=$(basename "$d")
  case " $FUZZ_BUILT " in *" $t "*) ;; *) echo "# fuzz $t: $(ls "$d" | wc -l) saved inputs not replayed (the library does not define its function yet)";; esac
done
ASAN_RT=$(gcc -print-file-name=libasan.so)
UBSAN_RT=$(gcc -print-file-name=libubsan.so)
TSAN_RUN=""
command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null && TSAN_RUN="setarch $(uname -m) -R"

# ---- the suites, longest first ----
if command -v valgrind >/dev/null && [ -f "$B/5.4/navmesh/core.so" ]; then
  run_suite busted-5.4-valgrind valgrind_suite
else
  missing "busted-5.4-valgrind: valgrind or the 5.4 module is missing"
fi
# the Lua suite again with a sanitized module (ASan + UBSan preloaded)
run_suite busted-5.4-asan busted_on asan lua5.4 "$B/asan/5.4" \
  LD_PRELOAD="$ASAN_RT $UBSAN_RT" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 NAVMESH_SANITIZED=1
# busted on every Lua we have a module and busted for
for pair in 5.3:lua5.3 5.1:lua5.1 5.4:lua5.4 jit:luajit; do
  v=${pair%%:*}; lua=${pair#*:}
  if [ -f "$B/$v/navmesh/core.so" ] && command -v "$lua" >/dev/null; then
    run_suite "busted-$v" busted_on "$v" "$lua" "$B/$v"
  else
    missing "busted-$v: $lua or its module is missing"
  fi
done
# Lua 5.5 (the standalone lua of Skynet f19d1605's 3rd/lua) and real Skynet
# nodes on Lua 5.5.0 and 5.4.8 (spec/hosts/skynet_build.sh serialises their
# shared Skynet build)
run_suite hosts-skynet bash spec/hosts/skynet_test.sh
run_suite busted-5.5 bash spec/hosts/lua55_test.sh
# eight Lua 5.4 states on eight threads over one shared mesh under TSan
run_suite c-threads-tsan env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_threads" "lua/?.lua;examples/?.lua" "$B/tsan/5.4/?.so"
# hosts (issue 4): how the module is linked, nginx + lua-nginx-module
run_suite hosts-build bash spec/hosts/build_test.sh
run_suite hosts-nginx bash spec/hosts/nginx_test.sh
# the viewer page served by the OpenResty example, in headless Chromium
run_suite hosts-viewer bash spec/hosts/viewer_test.sh
# a tile cache publishing versions while four Lua states refresh and query
run_suite c-cache-threads-tsan env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_cache_threads" "lua/?.lua;examples/?.lua" "$B/tsan/5.4/?.so"
# versions published by one thread while four query them; build jobs on
# worker threads (C only, TSan)
run_suite c-versions-tsan env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_versions_tsan"
run_suite c-build-job-tsan env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_build_job"
# every ```lua block of README.md, docs/, examples/*/README.md
run_suite doctest lua5.4 tools/doctest.lua
# C unit tests (ASan + UBSan)
for t in "$B"/asan/tests/test_*; do
  [ -x "$t" ] && run_suite "c-$(basename "$t")" env ASAN_OPTIONS=detect_leaks=1 "$t"
done
for t in $FUZZ_BUILT; do
  run_suite "fuzz-$t" replay_target "$t"
done
# crowd updates on worker threads (C only, TSan)
run_suite c-crowd-tsan env TSAN_OPTIONS="halt_on_error=1 exitcode=66" $TSAN_RUN \
  "$B/tsan/tests/test_crowd"

while [ -n "$(jobs -rp)" ]; do
  wait -n
  tally_finished
done
wait
tally_finished
printf "== suites (wall-clock and CPU seconds of each; they ran %s at a time):%b\n" "$JOBS" "$RESULTS"
echo "== make test took $(($(date +%s) - T0)) s on $(nproc) cores; load average $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
