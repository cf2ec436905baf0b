--- gridlevel: a larger procedural level for the host tests, the OpenResty
-- and Skynet examples and the thread benchmark.
-- A square map of `size` x `size` cells of `cell` world units: walls run
-- along every sixth column and row with one doorway per wall segment, and
-- scattered pillars block single cells; the positions come from a
-- fixed-seed Park-Miller generator, so every Lua (5.1, LuaJIT, 5.3, 5.4)
-- makes the same level. The map is drawn in the ASCII form of level.lua
-- ('.' floor, '#' blocked), which turns it into polygons; the ground rises
-- gently along x so heights matter. Needs nothing but navmesh.fromPolygons.
local level = require "level"

local M = {}

-- Park-Miller "minimal standard" generator: products stay below 2^46, exact
-- in doubles and integers alike.
local function rng(seed)
  local s = seed % 2147483646 + 1
  return function(n) -- integer in 0 .. n-1
    s = (s * 16807) % 2147483647
    return s % n
  end
end
M.rng = rng

local function ground(x) return 0.05 * x end
M.ground = ground

-- The blocked cells as a set keyed by row * size + col (0-based).
local function blocked_cells(size, seed)
  local rand, blocked = rng(seed), {}
  for k = 6, size - 2, 6 do -- walls: column k and row k
    for i = 0, size - 1 do
      blocked[i * size + k] = true
      blocked[k * size + i] = true
    end
  end
  for k = 6, size - 2, 6 do -- one doorway per wall segment between rooms
    for s = 0, size - 1, 6 do
      local i, j = s + rand(5), s + rand(5)
      if i < size then blocked[i * size + k] = nil end
      if j < size then blocked[k * size + j] = nil end
    end
  end
  for _ = 1, math.floor(size * size / 25) do -- pillars
    blocked[rand(size) * size + rand(size)] = true
  end
  return blocked
end

--- The level as an ASCII map (rows along +z, columns along +x).
-- @param opts { size = 40 (cells per side), seed = 1 }
function M.map(opts)
  opts = opts or {}
  local size = opts.size or 40
  local blocked, map = blocked_cells(size, opts.seed or 1), {}
  for r = 0, size - 1 do
    local row = {}
    for c = 0, size - 1 do row[c + 1] = blocked[r * size + c] and "#" or "." end
    map[r + 1] = table.concat(row)
  end
  return map
end

--- The level as `navmesh.fromPolygons` input.
-- @param opts { size = 40, cell = 1 (wu), seed = 1 }
function M.polygons(opts)
  opts = opts or {}
  local cell = opts.cell or 1
  local verts, polys = level.polygons(M.map(opts), cell, ground)
  return { vertices = verts, polygons = polys }
end

--- Builds the level: navmesh.fromPolygons(M.polygons(opts), handleOpts).
function M.build(navmesh, opts, handleOpts)
  return navmesh.fromPolygons(M.polygons(opts), handleOpts)
end

--- n fixed query pairs {sx,sy,sz, ex,ey,ez} over the level (some land on
-- blocked cells or far from any polygon, so failures are exercised too).
function M.queries(n, opts)
  opts = opts or {}
  local size, cell = opts.size or 40, opts.cell or 1
  local rand, out = rng((opts.seed or 1) + 7), {}
  local span = size * cell
  for i = 1, n do
    local sx, sz = rand(span * 100) / 100, rand(span * 100) / 100
    local ex, ez = rand(span * 100) / 100, rand(span * 100) / 100
    out[i] = { sx, ground(sx), sz, ex, ground(ex), ez }
  end
  return out
end

--- One query's answer as a canonical string ("%.9g" is exact for the
-- float results): "<n points> <partial>: x,y,z x,y,z ..." or "fail <code>".
function M.answer(mesh, q)
  local pts, partial = mesh:path(q[1], q[2], q[3], q[4], q[5], q[6])
  if not pts then return "fail " .. tostring(select(2, mesh:path(q[1], q[2], q[3], q[4], q[5], q[6]))) end
  local parts = { ("%d %s:"):format(#pts / 3, tostring(partial)) }
  for i = 1, #pts, 3 do
    parts[#parts + 1] = ("%.9g,%.9g,%.9g"):format(pts[i], pts[i + 1], pts[i + 2])
  end
  return table.concat(parts, " ")
end

return M
