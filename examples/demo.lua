--- make demo: build the bundled procedural 3-D level (examples/world.lua:
-- floors, walls, a ramp, a staircase, a bridge over the ground floor) from
-- its triangles, find a path across it with and without edge inset and one
-- under the bridge, print them, and draw the built polygons and the paths to
-- an SVG picture (default build/demo.svg).
local navmesh = require "navmesh"
local world = require "world"

local out = arg and arg[1] or "build/demo.svg"
local INSET = 0.4

local verts, tris, marks = world.triangles()
local mesh, stats = assert(navmesh.build(verts, tris))
local info = mesh:info()
print(("level: %d triangles -> %d polygons in %d tiles, %d bytes of tile data"):format(
  #tris / 3, info.polys, info.tiles, info.dataBytes))
print(("build: %.1f ms (rasterize %.1f, regions %.1f, contours %.1f, polygons %.1f, detail %.1f), peak %d KiB"):format(
  stats.ms.total, stats.ms.rasterize, stats.ms.distance + stats.ms.regions, stats.ms.contours,
  stats.ms.polymesh, stats.ms.detail, math.floor(stats.peakBytes / 1024)))

local function route(a, b, opts)
  local p, q = marks[a], marks[b]
  return assert(mesh:path(p[1], p[2], p[3], q[1], q[2], q[3], opts))
end
local plain, partial = route("S", "E")
local inset = route("S", "E", { inset = INSET })
local under = route("N", "U")

local function show(name, pts)
  local parts, len = {}, 0
  for i = 1, #pts, 3 do
    parts[#parts + 1] = ("(%.2f, %.2f, %.2f)"):format(pts[i], pts[i + 1], pts[i + 2])
    if i > 1 then len = len + math.sqrt((pts[i] - pts[i - 3]) ^ 2 + (pts[i + 2] - pts[i - 1]) ^ 2) end
  end
  print(("%s: %d points, length %.2f%s"):format(name, #pts / 3, len, partial and " (partial)" or ""))
  print("  " .. table.concat(parts, " "))
end
show("path S -> E (ground, doorway, staircase, east plateau)", plain)
show(("the same with inset %.1f"):format(INSET), inset)
show("path N -> U (on the ground, under the bridge)", under)

-- ---- picture: navmesh.debug.svg (docs/debug.md) draws the polygons by
-- area and height, tile borders, walls, the three paths and the nodes the
-- last search (N -> U) looked at; the marks are labelled on top ----
local S = 20 -- pixels per world unit
local svg = navmesh.debug.svg {
  mesh = mesh, scale = S, title = "navmesh demo level",
  paths = { { name = "plain S -> E", points = plain }, { name = ("inset %.1f"):format(INSET), points = inset },
            { name = "N -> U under the bridge", points = under } },
  nodes = mesh:getNodePool(),
}
-- the frame's origin: the mesh bounds' corner sits 10 px in (see navmesh.debug.svg)
local b = mesh:getDebugScene().tiles.bounds
local x0, z0 = math.huge, math.huge
for i = 1, #b, 6 do x0, z0 = math.min(x0, b[i]), math.min(z0, b[i + 2]) end
local labels = {}
for name, m in pairs(marks) do
  if name ~= "O" then
    local x, y = (m[1] - x0) * S + 10, (m[3] - z0) * S + 10
    labels[#labels + 1] = ('<circle cx="%.1f" cy="%.1f" r="7" fill="#e0a020"/><text x="%.1f" y="%.1f" font-family="sans-serif" font-size="12" fill="#000">%s</text>'):format(x, y, x - 4, y + 4, name)
  end
end
table.sort(labels)
svg = svg:gsub("</svg>\n$", function() return table.concat(labels, "\n") .. "\n</svg>\n" end)
local f = assert(io.open(out, "w"))
f:write(svg)
f:close()
print("picture: " .. out .. " (red: plain path, blue: inset " .. INSET .. ", green: under the bridge, purple: the last search's nodes)")
