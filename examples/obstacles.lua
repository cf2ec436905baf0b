--- Temporary obstacles with a tile cache (docs/tilecache.md): on the
-- bundled procedural level (examples/level.lua, 2 m per map cell) a door
-- closes across the corridor the path from S to E takes and a crate falls
-- into the corridor it takes next; each change rebuilds only the tiles it
-- touches, and the paths route around them. Writes both pictures side by
-- side in one SVG (default build/obstacles.svg).
--   LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="build/5.4/?.so;;" lua5.4 examples/obstacles.lua [out.svg]
local navmesh = require "navmesh"
local level = require "level"

local out = ... or "build/obstacles.svg"

local vertices, triangles, marks = level.triangles(nil, 2)
local cache, mesh = assert(navmesh.buildCache(vertices, triangles, { tileSize = 48 }))
local S, E = marks.S, marks.E

local function route()
  local pts, partial = assert(mesh:path(S[1], S[2], S[3], E[1], E[2], E[3]))
  assert(not partial, "E out of reach")
  return pts
end

-- true when the path's X/Z polyline crosses the box's X/Z rectangle
local function crosses(pts, o)
  for i = 4, #pts, 3 do
    for k = 0, 20 do
      local f = k / 20
      local x = pts[i - 3] + (pts[i] - pts[i - 3]) * f
      local z = pts[i - 1] + (pts[i + 2] - pts[i - 1]) * f
      if x >= o.bmin[1] and x <= o.bmax[1] and z >= o.bmin[3] and z <= o.bmax[3] then return true end
    end
  end
  return false
end

local function length(pts)
  local len = 0
  for i = 4, #pts, 3 do len = len + math.sqrt((pts[i] - pts[i - 3]) ^ 2 + (pts[i + 2] - pts[i - 1]) ^ 2) end
  return len
end

local info = cache:info()
print(("cache: %d layers of %d x %d cells, %d bytes compressed; navmesh: %d tiles, %d polygons"):format(
  info.layers, info.tileSize, info.tileSize, info.compressedBytes, mesh:info().tiles, mesh:info().polys))

local before = route()
print(("before: %d points, length %.1f"):format(#before / 3, length(before)))
local left = navmesh.debug.svg { mesh = mesh, scale = 8, title = "before", paths = { { name = "S -> E", points = before } } }

-- The door: a slab across the passage from the west room to the middle
-- (map column 15, row 5), cutting the navmesh where it stands.
local door = { kind = "box", bmin = { 29.6, -0.5, 9.5 }, bmax = { 30.4, 2.5, 12.5 } }
assert(crosses(before, door), "the first path should take the passage east of the west room")
local door_id = assert(cache:addObstacle(door))
local done, rebuilt = cache:update()
print(("door closes: %d tile(s) rebuilt, up to date: %s"):format(rebuilt, tostring(done)))
local detour = route()
print(("the way round: %d points, length %.1f"):format(#detour / 3, length(detour)))

-- The crate: a cylinder (base centre, radius, height) that falls right
-- onto the new path where it crosses z = 19 in the wide corridor.
local function crossing(pts, z)
  for i = 4, #pts, 3 do
    local z0, z1 = pts[i - 1], pts[i + 2]
    if (z0 - z) * (z1 - z) <= 0 and z0 ~= z1 then
      local x = pts[i - 3] + (pts[i] - pts[i - 3]) * (z - z0) / (z1 - z0)
      if x > 50 and x < 62 then return x end
    end
  end
  error("the way round should cross the wide corridor")
end
local crate = { kind = "cylinder", center = { crossing(detour, 19), 0, 19 }, radius = 1.2, height = 1.5 }
local crate_id = assert(cache:addObstacle(crate))
done, rebuilt = cache:update(1) -- a server tick's budget: one tile per update
local ticks = 1
while not done do
  local _, n = cache:update(1)
  rebuilt, ticks = rebuilt + n, ticks + 1
  done = cache:info().pendingLayers == 0
end
print(("crate falls: %d tile(s) rebuilt over %d update(s) of one tile"):format(rebuilt, ticks))

local after = route()
print(("after: %d points, length %.1f (%.1f longer)"):format(#after / 3, length(after), length(after) - length(before)))
assert(not crosses(after, door), "the path must not go through the closed door")
for i = 1, #after, 3 do -- and keeps off the crate: the centre line stays an agent radius away
  local d = math.sqrt((after[i] - crate.center[1]) ^ 2 + (after[i + 2] - crate.center[3]) ^ 2)
  assert(d >= crate.radius, "a path corner inside the crate")
end

-- ---- one SVG, two panels: navmesh.debug.svg draws the mesh, the paths
-- and the obstacles cache:obstacles() lists ----
local right = navmesh.debug.svg { mesh = mesh, scale = 8, title = "after: door closed, crate fallen",
                                  paths = { { name = "S -> E", points = after } }, obstacles = cache:obstacles() }
local function size(svg) return tonumber(svg:match('width="(%d+)"')), tonumber(svg:match('height="(%d+)"')) end
local w1, h1 = size(left)
local w2, h2 = size(right)
local function panel(svg, x, caption)
  return ('<text x="%d" y="18" font-family="sans-serif" font-size="15" fill="#222">%s</text>\n'):format(x + 4, caption) ..
         svg:gsub('^<svg xmlns="http://www.w3.org/2000/svg" ', ('<svg x="%d" y="26" '):format(x), 1)
end
local picture = table.concat {
  ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">\n'):format(w1 + w2 + 20, math.max(h1, h2) + 26),
  '<rect width="100%" height="100%" fill="#ffffff"/>\n',
  panel(left, 0, ("before: path %.1f m"):format(length(before))), "\n",
  panel(right, w1 + 20, ("after: door closed, crate fallen: path %.1f m"):format(length(after))), "\n",
  "</svg>\n",
}
local f = assert(io.open(out, "w"))
f:write(picture)
f:close()
print("wrote " .. out)
cache:close()
mesh:close()
