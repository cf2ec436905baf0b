--- A small procedural level for the demo, the examples and the specs.
-- The level is an ASCII map: '.' is floor, '#' is wall or pillar, 'I' is
-- floor cut off from the rest (an island), 'S' and 'E' are floor cells that
-- mark the demo's start and end. Every floor cell becomes one square polygon
-- of `cell` world units; neighbouring cells share corner vertices, so
-- `navmesh.fromPolygons` links them. Y is up; the map's rows run along +Z.
local level = {}

level.MAP = {
  "########################################",
  "#S.........#################...........#",
  "#..........#################...........#",
  "#..........#################...........#",
  "#...##.....##########........###.......#",
  "#...##...................###...........#",
  "#..........##########....###...........#",
  "#..........###########.................#",
  "#######.##################....######.###",
  "#######.##################....######.###",
  "#######.##################....######.###",
  "#.............####............#........#",
  "#....#####....####.....##.....#.#####..#",
  "#....#####.............##.....#.#III#..#",
  "#....#####....####.....##.....#.#####..#",
  "#.............####............#.......E#",
  "########################################",
}

--- Polygons of a map: returns vertices (flat xyz), polygons (lists of
-- 1-based indices), and the world positions of the S and E cells' centres.
function level.polygons(map, cell, height)
  map = map or level.MAP
  cell = cell or 1.0
  height = height or function() return 0 end
  local verts, polys, index = {}, {}, {}
  local marks = {}
  local function vertex(i, j) -- grid corner (column i, row j)
    local key = j * 100000 + i
    local v = index[key]
    if not v then
      local x, z = i * cell, j * cell
      verts[#verts + 1] = x
      verts[#verts + 1] = height(x, z)
      verts[#verts + 1] = z
      v = #verts / 3
      index[key] = v
    end
    return v
  end
  for j, row in ipairs(map) do
    for i = 1, #row do
      local c = row:sub(i, i)
      if c ~= "#" then
        local x0, z0 = i - 1, j - 1
        -- corners in order (x0,z0) (x0,z1) (x1,z1) (x1,z0)
        polys[#polys + 1] = { vertex(x0, z0), vertex(x0, z0 + 1), vertex(x0 + 1, z0 + 1), vertex(x0 + 1, z0) }
        if c == "S" or c == "E" then
          local x, z = (x0 + 0.5) * cell, (z0 + 0.5) * cell
          marks[c] = { x, height(x, z), z }
        end
      end
    end
  end
  return verts, polys, marks
end

--- The same floor as triangles for `navmesh.build` / `navmesh.buildCache`:
-- returns vertices (flat xyz), triangles (flat, 1-based, two per floor
-- cell, wound as Recast wants floors) and the marks.
function level.triangles(map, cell, height)
  local verts, polys, marks = level.polygons(map, cell, height)
  local tris = {}
  for _, p in ipairs(polys) do
    for k = 2, #p - 1 do
      tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = p[1], p[k], p[k + 1]
    end
  end
  return verts, tris, marks
end

return level
