--- doorway: two halls joined by one doorway, for the crowd example
-- (examples/crowd.lua) and the crowd specs.
-- Drawn in level.lua's ASCII form ('.' floor, '#' wall or pillar, one
-- square polygon of `cell` world units per floor cell). The floor is where
-- an agent's centre may stand (as Recast's meshes are eroded by the agent
-- radius). The west hall spans x 0..W, the east hall x W+T..2W+T (T the
-- wall's thickness), both z 0..H; the doorway is `door` cells wide in the
-- middle of the wall. A few pillars stand in each hall.
local level = require "level"

local M = {}

--- The map and the doorway's rectangle.
-- @param opts { width = 30, depth = 24, wall = 2, door = 4, pillars = true }
-- @return map (list of rows), door {x0, z0, x1, z1} in cells
function M.map(opts)
  opts = opts or {}
  local w, h, t, door = opts.width or 30, opts.depth or 24, opts.wall or 2, opts.door or 4
  local z0 = math.floor((h - door) / 2)
  local rows = {}
  for z = 0, h - 1 do
    local row = {}
    for x = 0, 2 * w + t - 1 do
      local wall = x >= w and x < w + t and not (z >= z0 and z < z0 + door)
      row[x + 1] = wall and "#" or "."
    end
    rows[z + 1] = row
  end
  if opts.pillars ~= false then -- 2 x 2 pillars, mirrored about the wall
    for _, p in ipairs { { 8, 5 }, { 16, 15 }, { 22, 7 }, { 10, 18 } } do
      for dz = 0, 1 do
        for dx = 0, 1 do
          if p[1] + dx < w and p[2] + dz < h then
            rows[p[2] + dz + 1][p[1] + dx + 1] = "#"
            rows[p[2] + dz + 1][2 * w + t - (p[1] + dx)] = "#"
          end
        end
      end
    end
  end
  for z = 1, h do rows[z] = table.concat(rows[z]) end
  return rows, { w, z0, w + t, z0 + door }
end

--- The level as `navmesh.fromPolygons` input plus the doorway.
-- @return def {vertices=, polygons=}, door {x0, z0, x1, z1} in world units
function M.polygons(opts)
  opts = opts or {}
  local cell = opts.cell or 1
  local map, door = M.map(opts)
  local verts, polys = level.polygons(map, cell)
  for i = 1, 4 do door[i] = door[i] * cell end
  return { vertices = verts, polygons = polys }, door
end

--- Builds the level: mesh, door {x0, z0, x1, z1}, size {x, z} in world units.
function M.build(navmesh, opts)
  opts = opts or {}
  local def, door = M.polygons(opts)
  local cell = opts.cell or 1
  local size = { (2 * (opts.width or 30) + (opts.wall or 2)) * cell, (opts.depth or 24) * cell }
  return assert(navmesh.fromPolygons(def)), door, size
end

return M
