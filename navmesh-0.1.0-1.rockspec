package = "navmesh"
version = "0.1.0-1"
-- Where a published rock comes from: the release tag of the public
-- repository (LuaRocks fetches it for `luarocks install`/`build`).
-- `luarocks make` in a checkout builds the files at hand and fetches nothing.
source = {
  url = "git+https://github.com/navmesh-lua/navmesh.git",
  tag = "v0.1.0",
}
description = {
  summary = "Navigation meshes for Lua: build (Recast-style), load and query (Detour-style) in C",
  detailed = [[
    navmesh builds navigation meshes from triangle geometry, loads RecastDemo
    MSET files and its own format, and answers path queries (nearest polygon,
    A*, string pulling with edge inset) from Lua 5.1-5.5 and LuaJIT.
  ]],
  homepage = "https://github.com/navmesh-lua/navmesh",
  license = "MIT",
}
dependencies = {
  "lua >= 5.1",
  "lua-cjson", -- navmesh.debug.export
}
build = {
  type = "builtin",
  modules = {
    ["navmesh"] = "lua/navmesh.lua",
    ["navmesh.debug"] = "lua/navmesh/debug.lua",
    ["navmesh.core"] = {
      sources = {
        "src/build/area.c",
        "src/build/build.c",
        "src/build/buildjob.c",
        "src/build/chunky.c",
        "src/build/compact.c",
        "src/build/contour.c",
        "src/build/detail.c",
        "src/build/distance.c",
        "src/build/filter.c",
        "src/build/obj.c",
        "src/build/onetile.c",
        "src/build/polymesh.c",
        "src/build/pool.c",
        "src/build/rasterize.c",
        "src/build/region.c",
        "src/build/region_layers.c",
        "src/build/region_merge.c",
        "src/build/region_monotone.c",
        "src/build/tiles.c",
        "src/core/job.c",
        "src/core/nm_core.c",
        "src/debug/detail.c",
        "src/debug/obj.c",
        "src/debug/scene.c",
        "src/debug/text.c",
        "src/mesh/copy.c",
        "src/mesh/format.c",
        "src/mesh/islands.c",
        "src/mesh/links.c",
        "src/mesh/mapfile.c",
        "src/mesh/navmesh.c",
        "src/mesh/tile.c",
        "src/mesh/tilebuild.c",
        "src/mesh/tilelist.c",
        "src/mesh/version.c",
        "src/query/around.c",
        "src/query/filter.c",
        "src/query/geom.c",
        "src/query/nearest.c",
        "src/query/nodes.c",
        "src/query/optimal.c",
        "src/query/optimal_corridor.c",
        "src/query/optimal_cuts.c",
        "src/query/optimal_expand.c",
        "src/query/optimal_groups.c",
        "src/query/optimal_mesh.c",
        "src/query/optimal_path.c",
        "src/query/optimal_union.c",
        "src/query/path.c",
        "src/query/polys.c",
        "src/query/query.c",
        "src/query/random.c",
        "src/query/raycast.c",
        "src/query/straight.c",
        "src/query/surface.c",
        "src/lua/lbuild.c",
        "src/lua/ldebug.c",
        "src/lua/lfilter.c",
        "src/lua/lmesh.c",
        "src/lua/lnavmesh.c",
        "src/lua/lquery.c",
        "src/lua/lshare.c",
        "src/lua/ltoolbox.c",
        "src/lua/lutil.c",
        "src/lua/registry.c",
      },
      libraries = { "pthread" },
      incdirs = { "include", "src" },
    },
  },
}
