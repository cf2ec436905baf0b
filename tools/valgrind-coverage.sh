#!/usr/bin/env bash
# tools/valgrind-coverage.sh -- make valgrind-coverage: does the valgrind
# suite of `make test` (tools/valgrind-set.sh: a chosen set of specs, some
# with fewer cases) reach every line of C the whole Lua suite reaches?
# With the Lua 5.4 module built for gcov (build/cov), it runs every spec
# alone (the whole suite, at full size), then the valgrind set as
# tools/test.sh runs it (one busted, its settings) and the complete run of
# make valgrind, records the lines each run executed (tools/gcov-lines.lua)
# and compares them (tools/valgrind-coverage.lua): the lines the set misses
# are listed, with each spec's count of lines no other spec reaches. Exits
# 1 when the set misses a line the whole suite reaches, unless the complete
# run misses it too (then it is listed as such). Takes a few minutes.
set -u
cd "$(dirname "$0")/.."
B=build
OUT=$B/cov/lines
. tools/valgrind-set.sh
mkdir -p "$OUT/suite" "$OUT/logs"
rm -f "$OUT"/suite/* "$OUT"/logs/* "$OUT"/valgrind.txt "$OUT"/all.txt

# gcov over every object, executed lines to stdout ("all": every line).
lines() {
  local d sub
  for d in "$B"/cov/obj/*/; do
    sub=$(basename "$d")
    # shellcheck disable=SC2046
    gcov -t -o "$d" $(ls "$d"*.gcno | sed "s#.*/\(.*\)\.gcno#src/$sub/\1.c#") 2>/dev/null
  done | lua5.4 tools/gcov-lines.lua "${1:-}" | sort -u
}

# run FILE ENV... -- SPECS: busted with the coverage module; lines to FILE,
# its TAP output to logs/.
run() {
  local out=$1 log=$OUT/logs/$(basename "$1" .txt).log; shift
  local env=()
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  find "$B"/cov/obj -name '*.gcda' -delete
  env "${env[@]}" LUA_PATH="lua/?.lua;spec/?.lua;;" LUA_CPATH="$B/cov/5.4/?.so;;" \
    lua5.4 /usr/bin/busted -o TAP "$@" >"$log" 2>&1 || echo "  (a test failed: see $log)"
  lines >"$out"
}

echo "== the whole Lua suite, spec by spec"
for f in spec/*_spec.lua; do
  n=$(basename "$f" .lua)
  run "$OUT/suite/$n.txt" -- "$f"
  echo "  $n: $(wc -l <"$OUT/suite/$n.txt") lines"
done
lines all >"$OUT/all.txt"
echo "== the valgrind set of make test (tools/valgrind-set.sh): $VALGRIND_ENV"
# shellcheck disable=SC2086
run "$OUT/valgrind.txt" $VALGRIND_ENV -- $(valgrind_specs)
VALGRIND_SET=full . tools/valgrind-set.sh
echo "== the complete valgrind run (make valgrind): $VALGRIND_ENV"
# shellcheck disable=SC2086
run "$OUT/full.txt" $VALGRIND_ENV -- $(valgrind_specs)
lua5.4 tools/valgrind-coverage.lua "$OUT"
