# navmesh -- build, test, demo, bench.
#   make            the C core and one Lua module per Lua found (build/<lua>/navmesh/core.so)
#   make test       everything CI runs; ends with "N passed, N failed"
#   make demo       builds a procedural level, finds a path, writes build/demo.svg
#   make obstacles  a tile cache: a door closes, a crate falls; writes build/obstacles.svg
#   make bench      ours against Detour / Recast, each pair timed in one process
#                   (BENCH_SECONDS per pair, default 1; docs/performance.md)
# Variables: CC, LUA_INCDIR (build one module against these headers, e.g.
# skynet/3rd/lua, into CUSTOM, default build/custom), OPT, WERROR (empty:
# warnings stay warnings, so other compilers and flags such as OPT=-O3
# build; tools/test.sh, and so `make test` and CI, set WERROR=-Werror).

CC      ?= cc
OPT     ?= -O2
WERROR  ?=
WARN    := -Wall -Wextra $(WERROR) -pedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_CORE := -std=c99 $(OPT) -g -fPIC -fvisibility=hidden -ffp-contract=off $(WARN) -Iinclude
B       := build
# every folder under src/ but the Lua binding is part of the core library
SRC     := $(filter-out src/lua/%,$(wildcard src/*/*.c))
OBJ     := $(patsubst src/%.c,$(B)/obj/%.o,$(SRC))
LIB     := $(B)/libnavmesh.a
SOFLAGS := -shared
ifeq ($(shell uname -s),Darwin)
SOFLAGS := -bundle -undefined dynamic_lookup
endif

# Lua flavours we build a module for: name:include-dir
LUAS := 5.4:/usr/include/lua5.4 jit:/usr/include/luajit-2.1 5.1:/usr/include/lua5.1 5.3:/usr/include/lua5.3
FOUND_LUAS := $(foreach l,$(LUAS),$(if $(wildcard $(word 2,$(subst :, ,$(l)))/lua.h),$(l)))
MODULES := $(foreach l,$(FOUND_LUAS),$(B)/$(word 1,$(subst :, ,$(l)))/navmesh/core.so)
CUSTOM  := $(B)/custom
ifneq ($(LUA_INCDIR),)
MODULES := $(CUSTOM)/navmesh/core.so
endif

.PHONY: all deps test test-c test-lua demo obstacles crowd bench fuzz clean FORCE
all: $(LIB) $(MODULES)

$(B)/obj/%.o: src/%.c $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -c $< -o $@

$(LIB): $(OBJ)
	@mkdir -p $(B)
	rm -f $@ && ar rcs $@ $(OBJ)

# One module per Lua: the binding (src/lua/*.c: lmodule.c, one file per class, and the shared-mesh
# registry) compiled against that Lua's headers, linked with the core; never
# linked against liblua.
BINDING := $(wildcard src/lua/*.c)
BINDING_H := $(wildcard src/lua/*.h)
define lua_module
$(1)/navmesh/core.so: $(BINDING) $(BINDING_H) include/navmesh.h $(LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_CORE) -I$(2) $$(SOFLAGS) $(BINDING) $(LIB) -lm -lpthread -o $$@
endef
$(foreach l,$(FOUND_LUAS),$(eval $(call lua_module,$(B)/$(word 1,$(subst :, ,$(l))),$(word 2,$(subst :, ,$(l))))))
# make LUA_INCDIR=<dir>: the module depends on the headers it was built
# against. $(CUSTOM)/incdir records their directory and is rewritten (so the
# module is rebuilt) only when another directory is given.
ifneq ($(LUA_INCDIR),)
$(CUSTOM)/incdir: FORCE
	@mkdir -p $(dir $@)
	@echo '$(abspath $(LUA_INCDIR))' | cmp -s - $@ || echo '$(abspath $(LUA_INCDIR))' >$@
$(CUSTOM)/navmesh/core.so: $(CUSTOM)/incdir $(wildcard $(LUA_INCDIR)/*.h)
$(eval $(call lua_module,$(CUSTOM),$(LUA_INCDIR)))
endif
FORCE:

deps:
	@sh tools/deps.sh

test: deps
	@bash tools/test.sh

# deps first, then a new make: the modules to build (FOUND_LUAS) are decided
# when make reads this file, so a make started before the Lua headers were
# installed would build none of them.
demo: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(B)
	LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="$(B)/5.4/?.so;;" lua5.4 examples/demo.lua $(B)/demo.svg

# The tile-cache example: a door closes, a crate falls; writes build/obstacles.svg
obstacles: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(B)
	LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="$(B)/5.4/?.so;;" lua5.4 examples/obstacles.lua $(B)/obstacles.svg

# 200 agents crossing the doorway level: build/crowd.svg and a recording
# for the viewer, build/crowd.json (examples/crowd.lua)
crowd: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(B)
	LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="$(B)/5.4/?.so;;" lua5.4 examples/crowd.lua

bench: deps
	@$(MAKE) --no-print-directory all
	@sh tools/bench.sh

fuzz: deps
	@sh tools/fuzz.sh

clean:
	rm -rf $(B)

# ---- sanitized builds and C unit tests ----
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASANOBJ := $(patsubst src/%.c,$(B)/asan/obj/%.o,$(SRC))
CTESTS  := $(patsubst spec/c/%.c,$(B)/asan/tests/%,$(wildcard spec/c/test_*.c))

$(B)/asan/obj/%.o: src/%.c $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) $(SAN) -c $< -o $@

$(B)/asan/libnavmesh.a: $(ASANOBJ)
	rm -f $@ && ar rcs $@ $(ASANOBJ)

$(B)/asan/tests/%: spec/c/%.c $(wildcard spec/c/*.h) $(B)/asan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes -Isrc $(SAN) $< $(B)/asan/libnavmesh.a -lm -lpthread -o $@

# The Lua 5.4 module with sanitizers, loaded into a stock lua5.4 with the
# sanitizer runtime preloaded (see tools/test.sh).
$(B)/asan/5.4/navmesh/core.so: $(BINDING) $(BINDING_H) $(B)/asan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) $(SAN) -I/usr/include/lua5.4 -shared $(BINDING) $(B)/asan/libnavmesh.a -lm -lpthread -o $@

test-build: all $(CTESTS) $(B)/asan/5.4/navmesh/core.so
.PHONY: test-build

rockspec:
	lua5.4 tools/update-rockspec.lua
.PHONY: rockspec

# ---- coverage of the C code reached from Lua (tools/valgrind-coverage.sh):
# the Lua 5.4 module built with gcov instrumentation, to compare what the
# valgrind suite reaches with what the whole Lua suite reaches ----
COVOBJ := $(patsubst src/%.c,$(B)/cov/obj/%.o,$(SRC) $(BINDING))
$(B)/cov/obj/lua/%.o: src/lua/%.c $(BINDING_H) include/navmesh.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -O0 --coverage -fprofile-update=atomic -I/usr/include/lua5.4 -c $< -o $@
$(B)/cov/obj/%.o: src/%.c $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -O0 --coverage -fprofile-update=atomic -c $< -o $@
$(B)/cov/5.4/navmesh/core.so: $(COVOBJ)
	@mkdir -p $(dir $@)
	$(CC) --coverage $(SOFLAGS) $(COVOBJ) -lm -lpthread -o $@
valgrind-coverage: all $(B)/cov/5.4/navmesh/core.so
	@bash tools/valgrind-coverage.sh
# today's complete valgrind run alone (make test runs a chosen set of specs)
valgrind: deps
	@VALGRIND_SET=full bash tools/test.sh valgrind
# make test with the complete valgrind run
test-full: deps
	@VALGRIND_SET=full bash tools/test.sh
.PHONY: valgrind-coverage valgrind test-full

# ---- ThreadSanitizer: the shared-mesh host test (spec/c/threads) ----
# A host program linked with liblua5.4 runs eight Lua states on eight
# threads over one shared mesh; it, the core and the 5.4 module are all
# built with -fsanitize=thread (see tools/test.sh, suite c-threads-tsan).
TSAN     := -fsanitize=thread -fno-omit-frame-pointer
TSANOBJ  := $(patsubst src/%.c,$(B)/tsan/obj/%.o,$(SRC))
LUA54_INC ?= /usr/include/lua5.4
LUA54_LIB ?= -llua5.4

$(B)/tsan/obj/%.o: src/%.c $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) $(TSAN) -c $< -o $@

$(B)/tsan/libnavmesh.a: $(TSANOBJ)
	rm -f $@ && ar rcs $@ $(TSANOBJ)

$(B)/tsan/5.4/navmesh/core.so: $(BINDING) $(BINDING_H) $(B)/tsan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) $(TSAN) -I$(LUA54_INC) -shared $(BINDING) $(B)/tsan/libnavmesh.a -lm -pthread -o $@

$(B)/tsan/tests/test_threads: spec/c/threads/test_threads.c spec/c/threads/lua_threads.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes $(TSAN) -I$(LUA54_INC) $< $(LUA54_LIB) -lm -pthread -o $@

# A tile cache publishing versions while Lua states on threads refresh and query.
$(B)/tsan/tests/test_cache_threads: spec/c/threads/test_cache_threads.c spec/c/threads/lua_threads.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes $(TSAN) -I$(LUA54_INC) $< $(LUA54_LIB) -lm -pthread -o $@

test-build: $(B)/tsan/5.4/navmesh/core.so $(B)/tsan/tests/test_threads $(B)/tsan/tests/test_cache_threads

# Versions published while reader threads query (C only, no Lua).
$(B)/tsan/tests/test_versions_tsan: spec/c/threads/test_versions_tsan.c spec/c/fixture.h $(B)/tsan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes $(TSAN) $< $(B)/tsan/libnavmesh.a -lm -pthread -o $@

# Build jobs (a worker thread per job, tile workers inside it) under TSan.
$(B)/tsan/tests/test_build_job: spec/c/test_build_job.c spec/c/tap.h spec/c/track_alloc.h $(B)/tsan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes -Isrc $(TSAN) $< $(B)/tsan/libnavmesh.a -lm -pthread -o $@

test-build: $(B)/tsan/tests/test_versions_tsan $(B)/tsan/tests/test_build_job

# The crowd with its update on worker threads (config.threads) under TSan.
$(B)/tsan/tests/test_crowd: spec/c/test_crowd.c spec/c/tap.h spec/c/track_alloc.h spec/c/fixture.h $(B)/tsan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes -Isrc $(TSAN) $< $(B)/tsan/libnavmesh.a -lm -pthread -o $@

test-build: $(B)/tsan/tests/test_crowd

# ---- 1 vs 2 threads on one shared mesh (bench/threads.c) ----
$(B)/bench/threads: bench/threads.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes -I$(LUA54_INC) $< $(LIB) $(LUA54_LIB) -lm -pthread -o $@

BENCH_SECONDS ?= 2
bench-threads: all $(B)/bench/threads
	$(B)/bench/threads "lua/?.lua;examples/?.lua" "$(B)/5.4/?.so" $(BENCH_SECONDS) 3
.PHONY: bench-threads

# ---- query toolbox benchmark (issue 6): us per call (CPU time) of the
# toolbox queries in C and from Lua 5.4 and LuaJIT against Detour's in one
# process (bench/pairs.cpp, bench/toolbox_bench.lua with the detourbench
# module; make bench runs them too, the Lua part on 5.4), and a
# differential check against Detour (bench/detour_compare.cpp). Needs
# Debian's librecast-dev. JSON lines: build/bench-toolbox.json
SHARED ?= ../shared
DETOUR_INC := /usr/include/recastnavigation
BENCH_CXX := g++ -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibench -I$(DETOUR_INC)
bench-toolbox: all
	@mkdir -p $(B)/bench/5.4 $(B)/bench/jit
	@: > $(B)/bench-toolbox.json
	$(BENCH_CXX) bench/pairs.cpp $(LIB) -lDetour -lm -o $(B)/bench/pairs
	BENCH_JOB=toolbox $(B)/bench/pairs $(SHARED) $(BENCH_SECONDS) 2>>$(B)/bench-toolbox.json
	$(BENCH_CXX) bench/detour_compare.cpp $(LIB) -lDetour -lm -o $(B)/bench/detour_compare
	$(B)/bench/detour_compare $(SHARED)
	$(BENCH_CXX) -fPIC -shared -Isrc/lua -I/usr/include/lua5.4 bench/detour_lua.cpp -lDetour -lm -o $(B)/bench/5.4/detourbench.so
	LUA_PATH="lua/?.lua;;" LUA_CPATH="$(B)/5.4/?.so;$(B)/bench/5.4/?.so;;" lua5.4 bench/toolbox_bench.lua $(SHARED) $(BENCH_SECONDS) 2>>$(B)/bench-toolbox.json
	@if [ -f $(B)/jit/navmesh/core.so ] && command -v luajit >/dev/null; then \
	  $(BENCH_CXX) -fPIC -shared -Isrc/lua -I/usr/include/luajit-2.1 bench/detour_lua.cpp -lDetour -lm -o $(B)/bench/jit/detourbench.so && \
	  LUA_PATH="lua/?.lua;;" LUA_CPATH="$(B)/jit/?.so;$(B)/bench/jit/?.so;;" luajit bench/toolbox_bench.lua $(SHARED) $(BENCH_SECONDS) 2>>$(B)/bench-toolbox.json; fi
.PHONY: bench-toolbox

# ---- crowds (issue 18): update time per tick beside Debian's DetourCrowd and
# a differential check of every agent every tick on the shared scenarios
# (make bench runs the timing too). JSON lines: build/bench-crowd.json
CROWD_CXX := g++ -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -I$(DETOUR_INC) -Ibench -Ispec/c
bench-crowd: all
	@mkdir -p $(B)/bench
	@if [ -f $(DETOUR_INC)/DetourCrowd.h ] && command -v g++ >/dev/null; then \
	  $(CROWD_CXX) bench/crowd_diff.cpp $(LIB) -lDetourCrowd -lDetour -lm -lpthread -o $(B)/bench/crowd_diff && \
	  for s in dungeon_10 dungeon_25 dungeon_100 nav_test_10 nav_test_25 nav_test_100 city_10 city_25 city_100 city_500; do \
	    $(B)/bench/crowd_diff $(SHARED) $$s; done; \
	  $(CROWD_CXX) bench/crowd_bench.cpp $(LIB) -lDetourCrowd -lDetour -lm -lpthread -o $(B)/bench/crowd_bench && \
	  $(B)/bench/crowd_bench $(SHARED) 2>$(B)/bench-crowd.json; \
	else echo "(crowd bench skipped: install librecast-dev and g++)"; fi
.PHONY: bench-crowd

# ---- our builds alone, with stage times and peak memory (bench/build_bench.c;
# make bench times them against Recast with bench/build_pairs.cpp) ----
bench-build: all
	@mkdir -p $(B)/bench
	$(CC) -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibench bench/build_bench.c $(LIB) -lm -lpthread -o $(B)/bench/build_bench
	$(B)/bench/build_bench $(SHARED)
.PHONY: bench-build

# ---- fuzzing (issue 5): libFuzzer targets, seeds, replay of saved inputs ----
# `make fuzz` (tools/fuzz.sh) builds build/fuzz/bin/<target> with clang and
# libFuzzer; `make test` replays spec/fuzz/<target>/* through the same entry
# points linked with spec/fuzz/replay.c under ASan+UBSan ($(CC)).
# obj and build_soup need the build pipeline: they are built only when the
# library defines nm_obj_parse / nm_navmesh_build (checked in the sources).
FUZZ_CC  ?= clang
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_TARGETS := mset native tile tilecreate query tset obstacles
FUZZ_DEFS :=
FUZZ_LPAREN := (
fuzz_defines = $(shell grep -lE '^nm_status[[:space:]]+$(1)[[:space:]]*[$(FUZZ_LPAREN)]' $(SRC) /dev/null 2>/dev/null)
ifneq ($(call fuzz_defines,nm_obj_parse),)
FUZZ_TARGETS += obj
TEST_HAVE_DEFS += -DNM_TEST_HAVE_OBJ
endif
ifneq ($(call fuzz_defines,nm_navmesh_build),)
FUZZ_TARGETS += build_soup
FUZZ_DEFS += -DFUZZ_HAVE_BUILD
TEST_HAVE_DEFS += -DNM_TEST_HAVE_BUILD
endif
# the allocation-failure test covers OBJ parsing and builds once they exist
$(B)/asan/tests/test_alloc_fail: private CFLAGS_CORE += $(TEST_HAVE_DEFS)
FUZZ_CFLAGS := $(CFLAGS_CORE) -Wno-missing-prototypes -Ispec/fuzz -Isrc $(FUZZ_DEFS)
FUZZOBJ := $(patsubst src/%.c,$(B)/fuzz/obj/%.o,$(SRC))

$(B)/fuzz/obj/%.o: src/%.c $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_CORE) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

$(B)/fuzz/libnavmesh.a: $(FUZZOBJ)
	rm -f $@ && ar rcs $@ $(FUZZOBJ)

$(B)/fuzz/bin/%: spec/fuzz/fuzz_%.c spec/fuzz/fuzz.h $(B)/fuzz/libnavmesh.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer $< $(B)/fuzz/libnavmesh.a -lm -o $@

$(B)/fuzz/seeds: spec/fuzz/seeds.c spec/fuzz/fuzz.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_CFLAGS) $< $(LIB) -lm -o $@

$(B)/asan/fuzz/%: spec/fuzz/fuzz_%.c spec/fuzz/replay.c spec/fuzz/fuzz.h $(B)/asan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_CFLAGS) $(SAN) -fsanitize=float-cast-overflow spec/fuzz/replay.c $< $(B)/asan/libnavmesh.a -lm -o $@

fuzz-build: $(addprefix $(B)/fuzz/bin/,$(FUZZ_TARGETS)) $(B)/fuzz/seeds
fuzz-replay: $(addprefix $(B)/asan/fuzz/,$(FUZZ_TARGETS)) $(B)/fuzz/seeds
fuzz-targets:
	@echo $(FUZZ_TARGETS)
test-build: fuzz-replay

# Out of memory through the Lua binding: a C test embedding liblua5.4 (only
# when its headers are installed), run by tools/test.sh with the C tests.
ifneq ($(wildcard /usr/include/lua5.4/lua.h),)
$(B)/asan/tests/test_lua_oom: spec/c/lua_oom.c spec/c/tap.h spec/c/fixture.h $(BINDING) $(BINDING_H) $(B)/asan/libnavmesh.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes -Isrc/lua -I/usr/include/lua5.4 $(SAN) $< $(BINDING) $(B)/asan/libnavmesh.a -llua5.4 -lm -pthread -o $@
test-build: $(B)/asan/tests/test_lua_oom
endif
.PHONY: fuzz-build fuzz-replay fuzz-targets
