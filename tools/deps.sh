#!/bin/sh
# tools/deps.sh -- installs what `make test`, `make demo` and `make bench` need,
# when it is missing (Debian/Ubuntu, as root). Prints what it does; never
# fails the build by itself: suites whose tools stay missing report failures.
set -u

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_file() { [ -e "$1" ]; }
have_glob() { for f in $1; do [ -e "$f" ] && return 0; done; return 1; }

check() { # check <package> <test> <arg>
  pkg=$1; shift
  if ! "$@"; then need="$need $pkg"; fi
}

check gcc               have_cmd gcc
check make              have_cmd make
check lua5.4            have_cmd lua5.4
check liblua5.4-dev     have_file /usr/include/lua5.4/lua.h
check lua-busted        have_file /usr/share/lua/5.4/busted/runner.lua
check luarocks          have_cmd luarocks
check luajit2           have_cmd luajit
check libluajit2-5.1-dev have_file /usr/include/luajit-2.1/lua.h
check lua5.1            have_cmd lua5.1
check liblua5.1-0-dev   have_file /usr/include/lua5.1/lua.h
check lua5.3            have_cmd lua5.3
check liblua5.3-dev     have_file /usr/include/lua5.3/lua.h
check valgrind          have_cmd valgrind
check clang             have_cmd clang
check libclang-rt-14-dev have_glob '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'
check nginx             have_cmd nginx
check libnginx-mod-http-lua have_file /usr/share/nginx/modules-available/mod-http-lua.conf
check curl              have_cmd curl
# navmesh.debug: JSON export (lua-cjson), the SVG spec's XML parser
# (lua-expat), the viewer's browser test (chromium, chromium-driver)
check lua-cjson         have_glob '/usr/lib/*/lua/5.4/cjson.so'
check lua-expat         have_glob '/usr/lib/*/lua/5.4/lxp.so'
check chromium          have_cmd chromium
check chromium-driver   have_cmd chromedriver

[ -z "$need" ] && exit 0
echo "deps: missing:$need"
if [ "$(id -u)" != 0 ]; then
  echo "deps: not root; install them with: sudo apt-get install -y$need"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! apt-get install -y -q $need >/tmp/navmesh-apt.log 2>&1; then
  echo "deps: refreshing package lists"
  apt-get update -q >>/tmp/navmesh-apt.log 2>&1
  # shellcheck disable=SC2086
  apt-get install -y -q $need >>/tmp/navmesh-apt.log 2>&1 || {
    echo "deps: apt-get install failed (see /tmp/navmesh-apt.log); going on with what is there"
    tail -5 /tmp/navmesh-apt.log
  }
fi
echo "deps: done"
