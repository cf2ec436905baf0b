--- gridlevel: a procedural level for the examples and the host tests.
-- A square grid of `size` x `size` cells of `cell` world units. Walls run
-- along every sixth column and row with a few doorways, and scattered
-- pillars block single cells; the positions come from a fixed-seed
-- Park-Miller generator, so every Lua (5.1, LuaJIT, 5.3, 5.4) makes the
-- same level. Each free cell becomes one quad polygon; neighbouring quads
-- share edges, and the ground rises gently along x so heights matter.
-- Needs nothing but `navmesh.fromPolygons`.
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

--- The level as `navmesh.fromPolygons` input.
-- @param opts { size = 40 (cells per side), cell = 1 (wu), seed = 1 }
function M.polygons(opts)
  opts = opts or {}
  local size, cell, seed = opts.size or 40, opts.cell or 1, opts.seed or 1
  local blocked, verts, polys = blocked_cells(size, seed), {}, {}
  for r = 0, size do
    for c = 0, size do
      local x, z = c * cell, r * cell
      verts[#verts + 1] = x
      verts[#verts + 1] = ground(x)
      verts[#verts + 1] = z
    end
  end
  local function v(r, c) return r * (size + 1) + c + 1 end
  for r = 0, size - 1 do
    for c = 0, size - 1 do
      if not blocked[r * size + c] then
        polys[#polys + 1] = { v(r, c), v(r + 1, c), v(r + 1, c + 1), v(r, c + 1) }
      end
    end
  end
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
