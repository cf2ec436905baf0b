# spec/hosts/skynet_build.sh -- sourced by skynet_test.sh and lua55_test.sh.
# build_skynet HASH: Skynet from $SHARED/hosts/skynet-HASH.tar.gz into
# build/hosts/skynet-HASH/skynet, without jemalloc (the recipe of
# ../shared/hosts/README.md), unless a build newer than the archive is there.
# Its 3rd/lua also gives a standalone `lua` (3rd/lua/lua). Log: build.log.
build_skynet() { # one at a time: hosts-skynet and busted-5.5 run side by side
  mkdir -p build/hosts
  ( flock 9 && build_skynet_now "$1" ) 9>"build/hosts/skynet-$1.lock"
}
build_skynet_now() {
  local dir=build/hosts/skynet-$1 tgz=$SHARED/hosts/skynet-$1.tar.gz
  [ -x "$dir/skynet/skynet" ] && [ -x "$dir/skynet/3rd/lua/lua" ] && [ "$dir/built" -nt "$tgz" ] && return 0
  rm -rf "$dir/skynet" "$dir/built"
  mkdir -p "$dir"
  tar -xzf "$tgz" -C "$dir" &&
    nice make -C "$dir/skynet" -j2 linux MALLOC_STATICLIB= SKYNET_DEFINES=-DNOUSE_JEMALLOC \
      >"$dir/build.log" 2>&1 &&
    touch "$dir/built"
}

# build_module HASH: the module against that Skynet's 3rd/lua, in
# build/hosts/skynet-HASH/lib/navmesh/core.so (make LUA_INCDIR=... CUSTOM=...).
build_module() {
  mkdir -p build/hosts
  ( flock 9 && build_module_now "$1" ) 9>"build/hosts/skynet-$1.lock"
}
build_module_now() {
  make -s LUA_INCDIR="build/hosts/skynet-$1/skynet/3rd/lua" CUSTOM="build/hosts/skynet-$1/lib" 2>&1
}
