package = "navmesh"
version = "0.1.0-1"
source = {
  url = "git+file:///work/main",
}
description = {
  summary = "Navigation meshes for Lua: build (Recast-style), load and query (Detour-style) in C",
  detailed = [[
    navmesh builds navigation meshes from triangle geometry, loads RecastDemo
    MSET files and its own format, and answers path queries (nearest polygon,
    A*, string pulling with edge inset) from Lua 5.1-5.4 and LuaJIT.
  ]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.1",
}
build = {
  type = "builtin",
  modules = {
    ["navmesh"] = "lua/navmesh.lua",
    ["navmesh.core"] = {
      sources = {
        "src/core/nm_core.c",
        "src/mesh/format.c",
        "src/mesh/islands.c",
        "src/mesh/links.c",
        "src/mesh/mapfile.c",
        "src/mesh/navmesh.c",
        "src/mesh/tile.c",
        "src/mesh/tilebuild.c",
        "src/query/around.c",
        "src/query/filter.c",
        "src/query/geom.c",
        "src/query/nearest.c",
        "src/query/path.c",
        "src/query/polys.c",
        "src/query/query.c",
        "src/query/random.c",
        "src/query/raycast.c",
        "src/query/straight.c",
        "src/query/surface.c",
        "src/lua/lnavmesh.c",
      },
      incdirs = { "include", "src" },
    },
  },
}
