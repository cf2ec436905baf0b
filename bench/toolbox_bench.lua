-- toolbox_bench.lua -- mean microseconds per call of the query toolbox on the
-- shared navmeshes, from Lua (the same inputs as toolbox_bench.c: the oracle
-- cases' nearest start/end polygons and points).
--   lua toolbox_bench.lua <shared-dir> [seconds per timing]
-- Table on stdout, one JSON object per (mesh, query) on stderr (the
-- tools/bench.sh convention). Each timing is the best of three, CPU time.
local navmesh = require "navmesh"

local shared = arg[1] or "../shared"
local secs = tonumber(arg[2]) or 1
local clock = os.clock

-- The oracle cases: start/end refs and points, read with patterns.
local function load_cases(path)
  local cases = {}
  for line in io.lines(path) do
    local c = {}
    for _, k in ipairs { "start", "end" } do
      local ref, x, y, z = line:match('"nearest_' .. k .. '":{[^}]-"ref":(%d+),"pos":%[([^,]+),([^,]+),([^%]]+)%]')
      if ref then c[k] = { tonumber(ref), tonumber(x), tonumber(y), tonumber(z) } end
    end
    if c.start and c["end"] then cases[#cases + 1] = c end
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
  { "findPath", function(m, s, e) return m:findPath(s[1], e[1], s[2], s[3], s[4], e[2], e[3], e[4]) end },
  { "findPathSliced64", function(m, s, e)
    m:findPathBegin(s[1], e[1], s[2], s[3], s[4], e[2], e[3], e[4])
    while m:findPathStep(64) == "in_progress" do end
    return m:findPathEnd() end },
}

-- Best of three measurements of the mean time per call, in microseconds.
local function measure(mesh, cases, fn)
  local best = math.huge
  for _ = 1, 3 do
    local t0, calls, t = clock(), 0, 0
    repeat
      for i = 1, #cases do fn(mesh, cases[i].start, cases[i]["end"]) end
      calls = calls + #cases
      t = clock() - t0
    until t >= secs / 3
    best = math.min(best, t / calls * 1e6)
  end
  return best
end

local meshes = { "dungeon_solo", "dungeon_tiled", "nav_test_solo", "nav_test_tiled",
                 "undulating_solo", "undulating_tiled", "city_tiled", "maze_tiled" }
local head = { ("%-17s"):format("toolbox (" .. (jit and "LuaJIT" or _VERSION) .. ")") }
for _, q in ipairs(queries) do head[#head + 1] = (" %8.8s"):format(q[1]) end
print(table.concat(head))
for _, name in ipairs(meshes) do
  local large = name:find("city") or name:find("maze")
  local mesh = assert(navmesh.load(shared .. "/navmeshes/" .. name .. ".bin", { maxNodes = large and 65535 or 2048 }))
  local cases = load_cases(shared .. "/oracle/" .. name .. ".jsonl")
  mesh:seed(1)
  local row = { ("%-17s"):format(name) }
  for _, q in ipairs(queries) do
    local us = measure(mesh, cases, q[2])
    row[#row + 1] = (" %8.3f"):format(us)
    io.stderr:write(('{"impl":"navmesh-lua","bench":"toolbox","lua":"%s","mesh":"%s","query":"%s","cases":%d,"us_per_call":%.4f}\n'):format(
      jit and jit.version or _VERSION, name, q[1], #cases, us))
  end
  print(table.concat(row))
  io.stdout:flush()
  mesh:close()
end
