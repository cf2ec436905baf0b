#!/usr/bin/env bash
# spec/hosts/skynet_test.sh -- the module in real Skynet nodes (issue 19).
# For each Skynet archive in ../shared/hosts (f19d1605: Lua 5.5.0;
# 28e80870: Lua 5.4.8): builds Skynet without jemalloc (cached in
# build/hosts/skynet-<hash>/, rebuilt only when the archive is newer), builds
# the module against its 3rd/lua with `make LUA_INCDIR=...` (into
# build/hosts/skynet-<hash>/lib), checks the link, and runs a node
# (spec/hosts/skynet/config, which includes examples/skynet/config) whose
# start service skytest.lua runs the phases it describes and ends the node
# with skynet.abort(); a timeout stops a node that hangs. check.lua then
# compares what the services answered with plain Lua 5.4 (build/5.4).
# Also: `make LUA_INCDIR=A` then `=B` into one directory rebuilds for B.
# Skips with a message when ../shared/hosts is absent. Output: TAP.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
SHARED=${SHARED:-../shared}
[ -d "$SHARED" ] && SHARED=$(cd "$SHARED" && pwd)
HASHES=${SKYNET_HASHES:-"f19d1605 28e80870"}
. spec/hosts/skynet_build.sh
NODE_TIMEOUT=${NODE_TIMEOUT:-180}
. spec/hosts/tap.sh

if [ ! -d "$SHARED/hosts" ]; then
  echo "# skipped: $SHARED/hosts (the Skynet source archives) is absent"
  finish
fi
if ! command -v lua5.4 >/dev/null || [ ! -f build/5.4/navmesh/core.so ]; then
  say 1 "lua5.4 and build/5.4/navmesh/core.so (plain Lua 5.4 gives the expected answers)"
  finish
fi

# Undefined Lua API symbols of module $1 that binary $2 does not export.
missing_symbols() {
  comm -23 <(nm -D --undefined-only "$1" | awk '{print $NF}' | grep -E '^luaL?_' | sort -u) \
    <(nm -D --defined-only "$2" | awk '{print $NF}' | sort -u)
}

# The level files the services load (plain Lua 5.4 writes them).
WORK=$ROOT/build/hosts/work
mkdir -p "$WORK"
out=$(LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="build/5.4/?.so;;" lua5.4 - "$WORK" 2>&1 <<'EOF'
  local navmesh, gridlevel = require "navmesh", require "gridlevel"
  for seed = 1, 2 do
    local m = assert(gridlevel.build(navmesh, { size = 40, seed = seed }))
    assert(m:save(arg[1] .. "/level" .. seed .. ".bin"))
  end
EOF
)
say $? "plain Lua 5.4 writes the two versions of the level the services load" "$out"

for h in $HASHES; do
  dir=build/hosts/skynet-$h
  if [ ! -f "$SHARED/hosts/skynet-$h.tar.gz" ]; then
    say 1 "$SHARED/hosts/skynet-$h.tar.gz present"
    continue
  fi
  t0=$(date +%s)
  build_skynet "$h"
  say $? "skynet $h builds without jemalloc ($(($(date +%s) - t0)) s; cached in $dir)" "$(tail -5 "$dir/build.log" 2>/dev/null)"
  [ -x "$dir/skynet/skynet" ] || continue
  ver=$("$dir/skynet/3rd/lua/lua" -v 2>&1 | awk '{print $2}')
  out=$(build_module "$h")
  say $? "make LUA_INCDIR=$dir/skynet/3rd/lua (Lua $ver) builds $dir/lib/navmesh/core.so" "$out"
  so=$dir/lib/navmesh/core.so
  [ -f "$so" ] || continue
  miss=$(missing_symbols "$so" "$dir/skynet/skynet")
  [ -z "$miss" ] && ! readelf -d "$so" | grep -q 'NEEDED.*lua'
  say $? "the module links no Lua library; skynet $h exports every Lua API symbol it takes" "$miss"

  run=$ROOT/$dir/run
  rm -rf "$run"
  mkdir -p "$run"
  cp "$WORK"/level1.bin "$WORK"/level2.bin "$run"/
  # one node is given NAVMESH_ROOT with a trailing slash, the other without
  root=$ROOT
  [ "$h" = "${HASHES%% *}" ] && root=$ROOT/
  t0=$(date +%s)
  (cd "$dir/skynet" && NAVMESH_ROOT=$root NAVMESH_CPATH="$ROOT/$dir/lib/?.so" NAVMESH_WORK="$run" \
    NAVMESH_CITY="$SHARED/navmeshes/city_tiled.bin" \
    timeout -k 5 "$NODE_TIMEOUT" ./skynet "$ROOT/spec/hosts/skynet/config" >"$run/node.log" 2>&1)
  rc=$?
  [ $rc -ne 124 ] && [ $rc -ne 137 ] && [ -f "$run/report.lua" ]
  say $? "skynet $h: the node ran every phase and ended itself with skynet.abort ($(($(date +%s) - t0)) s, exit $rc, NAVMESH_ROOT=$root)" \
    "$(tail -12 "$run/node.log")"
  ! grep -E "error|failed" "$run/node.log" | grep -v "^.*Memory warning" | grep -q .
  say $? "skynet $h: no service logged an error" "$(grep -E "error|failed" "$run/node.log")"
  LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="build/5.4/?.so;;" \
    lua5.4 spec/hosts/skynet/check.lua "$run" >"$run/check.log" 2>&1
  rc=$?
  while IFS= read -r line; do
    case $line in
      "ok - "*) say 0 "skynet $h ${line#ok - }" ;;
      "not ok - "*) say 1 "skynet $h ${line#not ok - }" ;;
      "# "*) echo "# skynet $h ${line#\# }" ;;
      *) echo "#   $line" ;;
    esac
  done <"$run/check.log"
  [ $rc -eq 0 ] || say 1 "skynet $h: check.lua ran to its end (exit $rc)"
done

# make LUA_INCDIR=A, then =B into the same directory: B's module, rebuilt.
set -- $HASHES
if [ $# -ge 2 ] && [ -x "build/hosts/skynet-$1/skynet/3rd/lua/lua" ] && [ -x "build/hosts/skynet-$2/skynet/3rd/lua/lua" ]; then
  chk=build/hosts/incdir-check
  for h in "$1" "$2"; do
    out=$(make -s LUA_INCDIR="build/hosts/skynet-$h/skynet/3rd/lua" CUSTOM=$chk 2>&1 &&
      LUA_PATH="lua/?.lua;;" LUA_CPATH="$chk/?.so;;" "build/hosts/skynet-$h/skynet/3rd/lua/lua" -e '
        local navmesh = require "navmesh"
        assert(navmesh.new { tileWidth = 8 })' 2>&1)
    say $? "make LUA_INCDIR=<skynet $h 3rd/lua> CUSTOM=$chk after the other one: the module loads in that Lua" "$out"
  done
fi
finish
