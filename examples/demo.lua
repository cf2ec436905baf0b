--- make demo: build the bundled procedural level, find a path across it with
-- and without edge inset, print both, and draw the navmesh and the paths to
-- an SVG picture (default build/demo.svg).
local navmesh = require "navmesh"
local level = require "level"

local out = arg and arg[1] or "build/demo.svg"
local INSET = 0.4

local verts, polys, marks = level.polygons()
local mesh = assert(navmesh.fromPolygons { vertices = verts, polygons = polys })
local info = mesh:info()
print(("level: %d polygons, %d vertices, %d bytes of tile data"):format(info.polys, info.vertices, info.dataBytes))

local s, e = marks.S, marks.E
local plain, partial = assert(mesh:path(s[1], s[2], s[3], e[1], e[2], e[3]))
local inset = assert(mesh:path(s[1], s[2], s[3], e[1], e[2], e[3], { inset = INSET }))

local function show(name, pts)
  local parts, len = {}, 0
  for i = 1, #pts, 3 do
    parts[#parts + 1] = ("(%.2f, %.2f)"):format(pts[i], pts[i + 2])
    if i > 1 then len = len + math.sqrt((pts[i] - pts[i - 3]) ^ 2 + (pts[i + 2] - pts[i - 1]) ^ 2) end
  end
  print(("%s: %d points, length %.2f%s"):format(name, #pts / 3, len, partial and " (partial)" or ""))
  print("  " .. table.concat(parts, " "))
end
show("path", plain)
show(("path with inset %.1f"):format(INSET), inset)

-- ---- picture ----
local S = 20 -- pixels per world unit
local function px(x, z) return x * S + S, z * S + S end
local function pt(x, z) return ("%.1f,%.1f"):format(px(x, z)) end
local svg = {}
local function add(s) svg[#svg + 1] = s end
local w, h = (info.bmax[1] + 2) * S, (info.bmax[3] + 2) * S
add(('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'):format(w, h, w, h))
add(('<rect width="%d" height="%d" fill="#3b3b48"/>'):format(w, h))
for _, ref in ipairs(mesh:polyRefs()) do
  local v, p = mesh:getPolyVerts(ref), {}
  for i = 1, #v, 3 do p[#p + 1] = pt(v[i], v[i + 2]) end
  add(('<polygon points="%s" fill="#d9e4ee" stroke="#a9b8c6" stroke-width="1"/>'):format(table.concat(p, " ")))
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
for name, m in pairs(marks) do
  local x, y = px(m[1], m[3])
  add(('<circle cx="%.1f" cy="%.1f" r="8" fill="%s"/>'):format(x, y, name == "S" and "#2e9e4f" or "#e0a020"))
end
add(('<text x="%d" y="%d" font-family="sans-serif" font-size="14" fill="#ffffff">red dashed: plain path   blue: inset %.1f</text>'):format(S, h - 4, INSET))
add("</svg>")
local f = assert(io.open(out, "w"))
f:write(table.concat(svg, "\n"), "\n")
f:close()
print("picture: " .. out)
