#!/usr/bin/env bash
# spec/hosts/lua55_test.sh -- the spec suite on Lua 5.5. Debian has no Lua
# 5.5: the interpreter is the standalone `lua` of Skynet f19d1605's 3rd/lua
# (Lua 5.5.0, built and cached by skynet_build.sh), the module is built
# against the same headers. busted cannot run there (its C modules exist
# for 5.1-5.4 only), so spec/minibusted.lua runs the specs: the same files,
# the same assertions (luassert), busted's TAP. Skips with a message when
# ../shared/hosts is absent.
set -u
cd "$(dirname "$0")/../.."
SHARED=${SHARED:-../shared}
H=f19d1605
. spec/hosts/skynet_build.sh
if [ ! -f "$SHARED/hosts/skynet-$H.tar.gz" ]; then
  echo "# skipped: $SHARED/hosts/skynet-$H.tar.gz (Lua 5.5.0 comes from it) is absent"
  echo "1..0"
  exit 0
fi
if ! build_skynet "$H" || ! out=$(build_module "$H"); then
  echo "not ok 1 - skynet $H and the module against its 3rd/lua build"
  tail -5 "build/hosts/skynet-$H/build.log" 2>/dev/null | sed 's/^/#   /'
  printf '%s\n' "${out:-}" | tail -5 | sed 's/^/#   /'
  echo "1..1"
  exit 1
fi
lua=build/hosts/skynet-$H/skynet/3rd/lua/lua
echo "# $("$lua" -v 2>&1 | head -1)"
LUA_PATH="lua/?.lua;spec/?.lua;;" LUA_CPATH="build/hosts/skynet-$H/lib/?.so;;" exec "$lua" spec/minibusted.lua spec
