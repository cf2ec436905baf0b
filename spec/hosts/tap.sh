# spec/hosts/tap.sh -- TAP lines for the host test scripts (sourced).
# say STATUS(0=ok) DESCRIPTION [DETAIL]: one "ok N" / "not ok N" line, and
# the last lines of DETAIL as "#   " lines on failure. finish: the plan
# line, and the exit status (1 if anything failed).
n=0
failed=0
say() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
    failed=$((failed + 1)); echo "not ok $n - $2"
    [ $# -ge 3 ] && printf '%s\n' "$3" | tail -12 | sed 's/^/#   /'
  fi
}

finish() {
  echo "1..$n"
  [ "$failed" -eq 0 ]
  exit $?
}
