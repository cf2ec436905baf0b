-- toolbox_bench.lua -- the query toolbox from Lua against Detour's C, timed
-- side by side in one process (bench/pair.lua, with the detourbench module;
-- our side alone without it), on the shared navmeshes with the toolbox
-- cases of bench/toolbox_cases.h (the oracle cases' nearest start/end
-- polygons and points, the same refs in both).
--   lua toolbox_bench.lua <shared-dir> [seconds per pair x 3]
-- Table on stdout, one JSON object per (mesh, query) on stderr (the
-- tools/bench.sh convention).
package.path = "bench/?.lua;" .. package.path
local navmesh = require "navmesh"
local pair = require "pair"

local shared = arg[1] or "../shared"
local secs = (tonumber(arg[2]) or 1) / 3
local D, LUA = pair.detour, pair.lua

-- The toolbox cases: the module's (as the C side reads them), or read from
-- the oracle file with patterns.
local function load_cases(side, path)
  local cases = {}
  if side then
    local f = side:tbcases()
    for i = 1, #f, 8 do
      cases[#cases + 1] = { start = { f[i], f[i + 1], f[i + 2], f[i + 3] }, ["end"] = { f[i + 4], f[i + 5], f[i + 6], f[i + 7] } }
    end
    return cases
  end
  for line in io.lines(path) do
    local c = {}
    for _, k in ipairs { "start", "end" } do
      local ref, x, y, z = line:match('"nearest_' .. k .. '":{[^}]-"ref":(%d+),"pos":%[([^,]+),([^,]+),([^%]]+)%]')
      if ref then c[k] = { tonumber(ref), tonumber(x), tonumber(y), tonumber(z) } end
    end
    if c.start and c["end"] and #cases < 256 then cases[#cases + 1] = c end
  end
  return cases
end

local queries = {
  { "raycast", function(m, s, e) return m:raycast(s[1], s[2], s[3], s[4], e[2], e[3], e[4]) end },
  { "moveAlongSurface", function(m, s, e)
    return m:moveAlongSurface(s[1], s[2], s[3], s[4], s[2] + (e[2] - s[2]) * 0.1, s[3] + (e[3] - s[3]) * 0.1,
                              s[4] + (e[4] - s[4]) * 0.1) end },
  { "findDistanceToWall", function(m, s) return m:findDistanceToWall(s[1], s[2], s[3], s[4], 5) end },
  { "findRandomPoint", function(m) return m:findRandomPoint() end },
  { "findRandomPointAroundCircle", function(m, s) return m:findRandomPointAroundCircle(s[1], s[2], s[3], s[4], 5) end },
  { "findPolysAroundCircle", function(m, s) return m:findPolysAroundCircle(s[1], s[2], s[3], s[4], 5) end },
  { "findPolysAroundShape", function(m, s)
    local x, y, z = s[2], s[3], s[4]
    return m:findPolysAroundShape(s[1], { x - 3, y, z + 3, x + 3, y, z + 3, x + 3, y, z - 3, x - 3, y, z - 3 }) end },
  { "findLocalNeighbourhood", function(m, s) return m:findLocalNeighbourhood(s[1], s[2], s[3], s[4], 5) end },
  { "queryPolygons", function(m, s) return m:queryPolygons(s[2], s[3], s[4], 2, 4, 2) end },
  { "getPolyWallSegments", function(m, s) return m:getPolyWallSegments(s[1]) end },
  { "findPathSliced64", function(m, s, e)
    m:findPathBegin(s[1], e[1], s[2], s[3], s[4], e[2], e[3], e[4])
    while m:findPathStep(64) == "in_progress" do end
    return m:findPathEnd() end },
}

local meshes = { "dungeon_solo", "dungeon_tiled", "nav_test_solo", "nav_test_tiled",
                 "undulating_solo", "undulating_tiled", "city_tiled", "maze_tiled" }
print(("query toolbox from %s: ours against %s, us per call; ratio = median of the per-round ours/vs"):format(LUA,
  D and "Detour's C in one process" or "(nothing: no detourbench module)"))
print(pair.header(LUA))
for _, name in ipairs(meshes) do
  if pair.wanted(name) then
    local large = name:find("city") or name:find("maze")
    local mesh = assert(navmesh.load(shared .. "/navmeshes/" .. name .. ".bin", { maxNodes = large and 65535 or 2048 }))
    local side = D and assert(D.open(shared, name))
    local cases = load_cases(side, shared .. "/oracle/" .. name .. ".jsonl")
    mesh:seed(1)
    for _, q in ipairs(queries) do
      local fn = q[2]
      local a = pair.timed(function() for i = 1, #cases do fn(mesh, cases[i].start, cases[i]["end"]) end end)
      local b = side and function(reps) return side:pass(q[1], reps) end
      local r = pair.run(a, #cases, b, side and side:calls(q[1]), secs)
      print(pair.row(name, q[1], side and "Detour" or "-", r))
      io.stdout:flush()
      pair.json({ { "bench", "toolbox_pairs" }, { "impl", "navmesh-lua" }, { "lua", jit and jit.version or _VERSION },
        { "mesh", name }, { "job", q[1] }, { "vs", side and "detour" or "-" } }, r)
    end
    if side then side:close() end
    mesh:close()
  end
end
