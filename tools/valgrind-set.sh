# tools/valgrind-set.sh -- the valgrind suite of `make test`: which specs
# run under memcheck and how (sourced by tools/test.sh and by
# tools/valgrind-coverage.sh, which checks the choice).
#
# make test runs every spec but those in VALGRIND_SKIP, with VALGRIND_ENV:
# NAVMESH_SPEC_SCALE runs a fifth of the specs' data-driven loops (every
# fifth oracle case, a fifth of the random pairs; spec/helper.lua) and
# NAVMESH_HOSTILE_SCALE 2% of the hostile copies. The choice is measured,
# not guessed: `make valgrind-coverage` builds the module for gcov and shows
# that this set reaches every line of C the whole Lua suite (every spec at
# full size) reaches; run it after adding or changing specs (a new spec is
# in the set until it is skipped here, and the check says what a skip
# would lose). The native, ASan and other busted suites run everything.
#
# VALGRIND_SET=full (make valgrind, make test-full): the complete run of
# before, every spec but 03-inset (pure-Lua geometry checks, some 15
# minutes under memcheck for little C) with 2% of the hostile copies.
if [ "${VALGRIND_SET:-}" = full ]; then
  VALGRIND_SKIP="03-inset"
  VALGRIND_ENV="NAVMESH_HOSTILE_SCALE=0.02"
else
  VALGRIND_SKIP="03-inset"
  VALGRIND_ENV="NAVMESH_HOSTILE_SCALE=0.02 NAVMESH_SPEC_SCALE=0.2"
fi

# The spec files of the set, one per line.
valgrind_specs() {
  local f s skip
  for f in spec/*_spec.lua; do
    skip=0
    for s in $VALGRIND_SKIP; do case $f in spec/"$s"_spec.lua) skip=1 ;; esac; done
    [ $skip = 1 ] || echo "$f"
  done
}
