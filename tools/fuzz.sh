#!/usr/bin/env bash
# tools/fuzz.sh -- `make fuzz`: runs every libFuzzer target for FUZZ_SECONDS
# (default 60) each, one after another, on a corpus kept in build/fuzz/corpus/
# and seeded from inputs the library generates (build/fuzz/seeds). Crashes,
# leaks, timeouts and out-of-memory inputs are written to spec/fuzz/<target>/
# where `make test` replays them. Prints execs and seconds per target.
#   FUZZ_SECONDS=600 make fuzz            longer runs
#   FUZZ_ONLY="query tile" make fuzz      a subset
#   FUZZ_JOBS=2 make fuzz                 libFuzzer -fork=N (keeps going after crashes)
set -u
cd "$(dirname "$0")/.."
B=build
SECS=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-0}
LOGS=$B/fuzz/logs
mkdir -p "$LOGS"

if ! command -v "${FUZZ_CC:-clang}" >/dev/null; then
  echo "fuzz: ${FUZZ_CC:-clang} not found (libFuzzer needs clang)"
  exit 1
fi
all=$(make -s fuzz-targets)
targets=${FUZZ_ONLY:-$all}
echo "== building fuzz targets: $targets"
if ! make -s fuzz-build $(for t in $targets; do echo "$B/fuzz/bin/$t"; done) >"$LOGS/build.log" 2>&1; then
  tail -30 "$LOGS/build.log"
  exit 1
fi
for t in obj build_soup; do
  case " $all " in *" $t "*) ;; *) echo "fuzz: $t skipped (the library does not define its function yet)";; esac
done
rm -rf "$B/fuzz/seeds-out"
"$B/fuzz/seeds" "$B/fuzz/seeds-out" || exit 1

summary=""
found=0
for t in $targets; do
  corpus=$B/fuzz/corpus/$t
  regress=spec/fuzz/$t
  mkdir -p "$corpus" "$regress"
  before=$(ls "$regress" | wc -l)
  log=$LOGS/$t.log
  extra=""
  [ "$JOBS" -gt 0 ] && extra="-fork=$JOBS -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
  echo "== $t: ${SECS} s"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$B/fuzz/bin/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$regress/" $extra \
    "$corpus" "$B/fuzz/seeds-out/$t" >"$log" 2>&1
  rc=$?
  t1=$(date +%s)
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  [ -z "$execs" ] && execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  after=$(ls "$regress" | wc -l)
  new=$((after - before))
  found=$((found + new))
  line=$(printf "%-11s %10s execs in %4d s (%s/s), cov %s, corpus %d, new crash inputs %d, exit %d" \
    "$t" "${execs:-?}" "$((t1 - t0))" "$(( ${execs:-0} / ( (t1 - t0) > 0 ? (t1 - t0) : 1 ) ))" \
    "${cov:-?}" "$(ls "$corpus" | wc -l)" "$new" "$rc")
  echo "$line"
  summary="$summary\n  $line"
  if [ "$new" -gt 0 ]; then
    ls -t "$regress" | head -"$new" | sed "s|^|    new: $regress/|"
    grep -E 'ERROR|SUMMARY|invariant failed|runtime error' "$log" | head -5 | sed 's/^/    /'
  fi
done
printf "== fuzz summary:%b\n" "$summary"
echo "$found new regression inputs under spec/fuzz/ (replayed by make test)"
