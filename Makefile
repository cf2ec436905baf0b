# navmesh -- build, test, demo, bench.
#   make            the C core and one Lua module per Lua found (build/<lua>/navmesh/core.so)
#   make test       everything CI runs; ends with "N passed, N failed"
#   make demo       builds a procedural level, finds a path, writes build/demo.svg
#   make bench      timings in C and from Lua (make bench BENCH_SECONDS=1)
# Variables: CC, LUA_INCDIR (build one module against these headers, e.g.
# skynet/3rd/lua), OPT.

CC      ?= cc
OPT     ?= -O2
WARN    := -Wall -Wextra -Werror -pedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_CORE := -std=c99 $(OPT) -g -fPIC -fvisibility=hidden -ffp-contract=off $(WARN) -Iinclude
B       := build
SRC     := $(wildcard src/core/*.c src/mesh/*.c src/query/*.c src/build/*.c)
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
ifneq ($(LUA_INCDIR),)
MODULES := $(B)/custom/navmesh/core.so
endif

.PHONY: all deps test test-c test-lua demo bench fuzz clean
all: $(LIB) $(MODULES)

$(B)/obj/%.o: src/%.c $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -c $< -o $@

$(LIB): $(OBJ)
	@mkdir -p $(B)
	rm -f $@ && ar rcs $@ $(OBJ)

# One module per Lua: the binding (src/lua/*.c: lnavmesh.c and the shared-mesh
# registry) compiled against that Lua's headers, linked with the core; never
# linked against liblua.
BINDING := $(wildcard src/lua/*.c)
BINDING_H := $(wildcard src/lua/*.h)
define lua_module
$(B)/$(1)/navmesh/core.so: $(BINDING) $(BINDING_H) include/navmesh.h $(LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_CORE) -I$(2) $$(SOFLAGS) $(BINDING) $(LIB) -lm -lpthread -o $$@
endef
$(foreach l,$(FOUND_LUAS),$(eval $(call lua_module,$(word 1,$(subst :, ,$(l))),$(word 2,$(subst :, ,$(l))))))
ifneq ($(LUA_INCDIR),)
$(eval $(call lua_module,custom,$(LUA_INCDIR)))
endif

deps:
	@sh tools/deps.sh

test: deps
	@sh tools/test.sh

demo: deps all
	@mkdir -p $(B)
	LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="$(B)/5.4/?.so;;" lua5.4 examples/demo.lua $(B)/demo.svg

bench: deps all
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

$(B)/tsan/tests/test_threads: spec/c/threads/test_threads.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes $(TSAN) -I$(LUA54_INC) $< $(LUA54_LIB) -lm -pthread -o $@

test-build: $(B)/tsan/5.4/navmesh/core.so $(B)/tsan/tests/test_threads

# ---- 1 vs 2 threads on one shared mesh (bench/threads.c) ----
$(B)/bench/threads: bench/threads.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -Wno-missing-prototypes -I$(LUA54_INC) $< $(LIB) $(LUA54_LIB) -lm -pthread -o $@

BENCH_SECONDS ?= 2
bench-threads: all $(B)/bench/threads
	$(B)/bench/threads "lua/?.lua;examples/?.lua" "$(B)/5.4/?.so" $(BENCH_SECONDS) 3
.PHONY: bench-threads
