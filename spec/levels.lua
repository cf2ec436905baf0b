-- spec/levels.lua: small navmeshes the specs build themselves with
-- navmesh.fromPolygons (no shared data needed).
--
-- levels.grid{ xs = {...} | n = 8, size = 2, zs = {...}, pillars = {{i,j}...},
--              areas = function(i, j) -> area, split = function(i, j) -> bool,
--              height = function(x, z) -> y }
-- makes a grid of cells (column i from xs[i] to xs[i+1], row j likewise,
-- 0-based cell indices), leaves the pillar cells out, and gives each cell one
-- quad (or two triangles when split(i, j)). Returns a level table:
--   mesh, polys = { {verts = {x1,y1,z1,...}, area2d =, cell = {i,j}}, ... },
--   walls = { {ax,az,bx,bz}, ... } (edges used by one polygon only),
--   ref_at(self, x, z), area = total X/Z area.
local navmesh = require "navmesh"

local levels = {}

local function grid_lines(n, size, list)
  if list then return list end
  local xs = {}
  for i = 0, n do xs[#xs + 1] = i * size end
  return xs
end

-- Area of a polygon in X/Z (flat xyz list).
local function area2d(v)
  local a = 0
  for k = 1, #v / 3 do
    local j = k % (#v / 3) + 1
    a = a + v[3 * k - 2] * v[3 * j] - v[3 * j - 2] * v[3 * k]
  end
  return math.abs(a) / 2
end
levels.area2d = area2d

-- Edges used by exactly one polygon (by vertex index pairs).
local function boundary(vertices, polys)
  local count, walls = {}, {}
  for _, p in ipairs(polys) do
    for k = 1, #p do
      local a, b = p[k], p[k % #p + 1]
      local key = math.min(a, b) .. ":" .. math.max(a, b)
      count[key] = (count[key] or 0) + 1
    end
  end
  for _, p in ipairs(polys) do
    for k = 1, #p do
      local a, b = p[k], p[k % #p + 1]
      if count[math.min(a, b) .. ":" .. math.max(a, b)] == 1 then
        walls[#walls + 1] = { vertices[3 * a - 2], vertices[3 * a], vertices[3 * b - 2], vertices[3 * b] }
      end
    end
  end
  return walls
end

function levels.grid(o)
  local xs = grid_lines(o.n or 8, o.size or 2, o.xs)
  local zs = grid_lines(o.n or 8, o.size or 2, o.zs or o.xs)
  local height = o.height or function() return 0 end
  local pillar = {}
  for _, p in ipairs(o.pillars or {}) do pillar[p[1] .. ":" .. p[2]] = true end
  local vertices, index = {}, {}
  local function vid(i, j)
    local key = i .. ":" .. j
    if not index[key] then
      local x, z = xs[i + 1], zs[j + 1]
      vertices[#vertices + 1] = x
      vertices[#vertices + 1] = height(x, z)
      vertices[#vertices + 1] = z
      index[key] = #vertices / 3
    end
    return index[key]
  end
  local polys, areas, cells = {}, {}, {}
  for j = 0, #zs - 2 do
    for i = 0, #xs - 2 do
      if not pillar[i .. ":" .. j] then
        local a, b, c, d = vid(i, j), vid(i, j + 1), vid(i + 1, j + 1), vid(i + 1, j)
        local list = (o.split and o.split(i, j)) and { { a, b, c }, { a, c, d } } or { { a, b, c, d } }
        for _, p in ipairs(list) do
          polys[#polys + 1] = p
          areas[#areas + 1] = o.areas and o.areas(i, j) or 0
          cells[#cells + 1] = { i, j }
        end
      end
    end
  end
  local mesh = assert(navmesh.fromPolygons({ vertices = vertices, polygons = polys, areas = areas },
                                           o.maxNodes and { maxNodes = o.maxNodes } or nil))
  local lv = { mesh = mesh, polys = {}, walls = boundary(vertices, polys), area = 0,
               xmin = xs[1], xmax = xs[#xs], zmin = zs[1], zmax = zs[#zs] }
  for k, p in ipairs(polys) do
    local v = {}
    for _, id in ipairs(p) do
      v[#v + 1] = vertices[3 * id - 2]; v[#v + 1] = vertices[3 * id - 1]; v[#v + 1] = vertices[3 * id]
    end
    lv.polys[k] = { verts = v, area2d = area2d(v), cell = cells[k], area = areas[k] }
    lv.area = lv.area + lv.polys[k].area2d
  end
  -- The polygon under (x, z) (one of them when the point is on a shared edge).
  function lv.ref_at(_, x, z)
    local ref, px, _, pz = mesh:findNearestPoly(x, height(x, z), z, 0.01, 2, 0.01)
    assert(ref and math.abs(px - x) < 1e-5 and math.abs(pz - z) < 1e-5,
           ("no polygon under (%g, %g)"):format(x, z))
    return ref
  end
  return lv
end

-- Whether (x, z) lies on the level's polygons (inside or within tol of one).
function levels.on_mesh(lv, x, z, tol)
  tol = tol or 1e-4
  for _, p in ipairs(lv.polys) do
    local v, n, s = p.verts, #p.verts / 3, 0
    for k = 1, n do
      local j = k % n + 1
      s = s + v[3 * k - 2] * v[3 * j] - v[3 * j - 2] * v[3 * k]
    end
    local inside = true
    for k = 1, n do
      local j = k % n + 1
      local ex, ez = v[3 * j - 2] - v[3 * k - 2], v[3 * j] - v[3 * k]
      local d = (ex * (z - v[3 * k]) - ez * (x - v[3 * k - 2])) / math.sqrt(ex * ex + ez * ez)
      if (s >= 0 and d or -d) < -tol then inside = false break end
    end
    if inside then return true end
  end
  return false
end

return levels
