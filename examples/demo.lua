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

-- ---- picture: polygons shaded by height, lowest drawn first ----
local S = 20 -- pixels per world unit
local function px(x, z) return x * S + S, z * S + S end
local function pt(x, z) return ("%.1f,%.1f"):format(px(x, z)) end
local svg = {}
local function add(s) svg[#svg + 1] = s end
local w, h = (world.WIDTH + 2) * S, (world.DEPTH + 3) * S
add(('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'):format(w, h, w, h))
add(('<rect width="%d" height="%d" fill="#3b3b48"/>'):format(w, h))
local polys = {}
for _, ref in ipairs(mesh:polyRefs()) do
  local v = mesh:getPolyVerts(ref)
  if #v >= 9 then
    local y = 0
    for i = 2, #v, 3 do y = y + v[i] end
    polys[#polys + 1] = { v = v, y = y / (#v / 3) }
  end
end
table.sort(polys, function(a, b) return a.y < b.y end)
for _, p in ipairs(polys) do
  local q, shade = {}, math.max(0, math.min(1, p.y / 3.2))
  for i = 1, #p.v, 3 do q[#q + 1] = pt(p.v[i], p.v[i + 2]) end
  local r, g, b = math.floor(217 - 90 * shade), math.floor(228 - 70 * shade), math.floor(238 - 20 * shade)
  add(('<polygon points="%s" fill="rgb(%d,%d,%d)" fill-opacity="%.2f" stroke="#8a99a8" stroke-width="1"/>'):format(
    table.concat(q, " "), r, g, b, p.y > 2 and 0.85 or 1))
end
local function line(pts, colour, dash)
  local p = {}
  for i = 1, #pts, 3 do p[#p + 1] = pt(pts[i], pts[i + 2]) end
  add(('<polyline points="%s" fill="none" stroke="%s" stroke-width="3" %s/>'):format(
    table.concat(p, " "), colour, dash and 'stroke-dasharray="8,5"' or ""))
  for i = 1, #pts, 3 do
    local x, y = px(pts[i], pts[i + 2])
    add(('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>'):format(x, y, colour))
  end
end
line(plain, "#d0463c", true)
line(inset, "#2f6fce", false)
line(under, "#2e9e4f", true)
for name, m in pairs(marks) do
  if name ~= "O" then
    local x, y = px(m[1], m[3])
    add(('<circle cx="%.1f" cy="%.1f" r="7" fill="#e0a020"/>'):format(x, y))
    add(('<text x="%.1f" y="%.1f" font-family="sans-serif" font-size="12" fill="#000">%s</text>'):format(x - 4, y + 4, name))
  end
end
add(('<text x="%d" y="%d" font-family="sans-serif" font-size="14" fill="#ffffff">built polygons (darker = higher)   red dashed: plain path   blue: inset %.1f   green: under the bridge</text>'):format(S, h - 8, INSET))
add("</svg>")
local f = assert(io.open(out, "w"))
f:write(table.concat(svg, "\n"), "\n")
f:close()
print("picture: " .. out)
