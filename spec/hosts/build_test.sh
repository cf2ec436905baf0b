#!/usr/bin/env bash
# spec/hosts/build_test.sh -- the module builds the way embedders need it.
# Each build/<lua>/navmesh/core.so must leave every Lua API symbol to the
# host (no liblua / libluajit in its NEEDED list; Skynet and nginx embed
# their own Lua) and export luaopen_navmesh_core. `make LUA_INCDIR=<dir>`
# must build a working module against other headers (here luajit-2.1's, the
# layout of OpenResty's include dir; Skynet's 3rd/lua is the 5.4 layout).
# The Skynet example's Lua files must compile. Output: TAP.
set -u
cd "$(dirname "$0")/../.."
. spec/hosts/tap.sh

# check_module SO INTERPRETER: no liblua, lua_* undefined, loads and answers.
check_module() {
  local so=$1 lua=$2 needed undef out
  needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  ! grep -qiE 'lua' <<<"$needed"
  say $? "$so does not link a Lua library (NEEDED: $needed)"
  undef=$(nm -D --undefined-only "$so" | grep -c ' lua_\| luaL_')
  nm -D --defined-only "$so" | grep -q ' T luaopen_navmesh_core$' && [ "$undef" -gt 0 ]
  say $? "$so exports luaopen_navmesh_core and takes $undef Lua API symbols from the host"
  out=$(LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="$(dirname "$(dirname "$so")")/?.so;;" "$lua" -e '
    local navmesh = require "navmesh"
    local m = assert(require("gridlevel").build(navmesh, { size = 8 }))
    local pts = assert(m:path(1.5, 0.075, 1.5, 6.5, 0.325, 6.5))
    assert(m:share("build-test") and navmesh.open("build-test"))
    assert(#pts >= 6)' 2>&1)
  [ $? -eq 0 ]
  say $? "$so loads in $lua, builds, shares, opens and finds a path" "$out"
}

for pair in 5.4:lua5.4 jit:luajit 5.1:lua5.1 5.3:lua5.3; do
  v=${pair%%:*}; lua=${pair#*:}
  if [ -f "build/$v/navmesh/core.so" ] && command -v "$lua" >/dev/null; then
    check_module "build/$v/navmesh/core.so" "$lua"
  else
    say 1 "build/$v/navmesh/core.so and $lua present"
  fi
done

# make LUA_INCDIR=... (the way Skynet and OpenResty users build it)
inc=/usr/include/luajit-2.1
if [ -f "$inc/lua.h" ]; then
  rm -f build/custom/navmesh/core.so
  out=$(make -s LUA_INCDIR="$inc" build/custom/navmesh/core.so 2>&1)
  say $? "make LUA_INCDIR=$inc builds build/custom/navmesh/core.so" "$out"
  [ -f build/custom/navmesh/core.so ] && check_module build/custom/navmesh/core.so luajit
else
  say 1 "$inc/lua.h present for the LUA_INCDIR build"
fi

# The Skynet example compiles with Lua 5.4 (Skynet itself is not run here).
for f in examples/skynet/*.lua; do
  out=$(luac5.4 -p "$f" 2>&1)
  say $? "$f compiles with luac5.4" "$out"
done
finish
