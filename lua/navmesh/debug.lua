--- navmesh.debug: see a navmesh. A compact JSON export of a whole picture
-- (the mesh, paths, corridors, obstacles, agents, a search's nodes, a
-- recorded crowd run) for the viewer page (examples/viewer/), and a
-- top-down SVG of the same things. See docs/debug.md.
--
--   local dbg = require "navmesh.debug"      -- also navmesh.debug
--   io.open("level.svg", "w"):write(dbg.svg{ mesh = m, paths = { pts } })
--   io.open("level.json", "w"):write(dbg.export{ mesh = m, nodes = m:getNodePool() })
--
-- Inputs are plain tables, so whatever makes them (a crowd, a tile cache)
-- can be drawn:
--   paths      { {x,y,z, x,y,z, ...}, ... } or { {points = {...}, name = "...",
--                color = "#rrggbb", width = px, dots = false}, ... } (style optional)
--   corridors  { {ref, ref, ...}, ... } or { {refs = {...}, name = "..."}, ... }
--   obstacles  { {kind = "cylinder", center = {x,y,z}, radius = r, height = h},
--                {kind = "box", bmin = {x,y,z}, bmax = {x,y,z}},
--                {kind = "obox", center = {x,y,z}, halfExtents = {x,y,z}, yaw = radians},
--                {kind = "convex", vertices = {x,y,z, ...}, hmin = a, hmax = b}, ... }
--   agents     { {x=, y=, z=, vx=, vy=, vz=, radius=}, ... } (or positional {x,y,z, vx,vy,vz, radius})
--   nodes      mesh:getNodePool() after a search
--   recording  { dt = seconds, radius = r, frames = { {x1,y1,z1, x2,y2,z2, ...}, ... } }
-- @module navmesh.debug
local debug = {}

local floor, sqrt, huge = math.floor, math.sqrt, math.huge
local fmt, concat = string.format, table.concat

-- Coordinates in exports are rounded to millimetres, as the nearest double
-- to k/1000: what a JSON reader gets back from the shortest text.
local DECIMALS, SCALE = 3, 1000

local function round(x) return floor(x * SCALE + 0.5) / SCALE end

local function finite(x) return type(x) == "number" and x == x and x ~= huge and x ~= -huge end

-- ---- checking and normalising the inputs ----

local function check_number(v, what)
  if not finite(v) then error(what .. ": finite number expected, got " .. tostring(v), 4) end
  return v
end

local function check_vec3(v, what)
  if type(v) ~= "table" then error(what .. ": {x, y, z} expected", 4) end
  return { check_number(v[1], what), check_number(v[2], what), check_number(v[3], what) }
end

-- A flat {x,y,z, ...} list, copied with its numbers rounded.
local function flat_points(v, what)
  if type(v) ~= "table" or #v % 3 ~= 0 then error(what .. ": flat {x,y,z, ...} list expected", 4) end
  local out = {}
  for i = 1, #v do out[i] = round(check_number(v[i], what)) end
  return out
end

local function list_of(v, what)
  if v == nil then return {} end
  if type(v) ~= "table" then error(what .. ": list expected", 3) end
  return v
end

-- A path's optional drawing style: color ("#rrggbb" or a colour name),
-- width (px), dots (false: no circle at each point, as for agent trails).
local function path_style(p, out, what)
  if p.color ~= nil then
    if type(p.color) ~= "string" or not (p.color:match("^#%x%x%x%x%x%x$") or p.color:match("^%a+$")) then
      error(what .. ".color: \"#rrggbb\" or a colour name expected", 4)
    end
    out.color = p.color
  end
  if p.width ~= nil then
    if not finite(p.width) or p.width <= 0 then error(what .. ".width: number > 0 expected", 4) end
    out.width = p.width
  end
  if p.dots ~= nil then out.dots = p.dots and true or false end
  return out
end

local function norm_paths(paths)
  local out = {}
  for i, p in ipairs(list_of(paths, "paths")) do
    local pts, what = p.points or p, "paths[" .. i .. "]"
    out[i] = path_style(p, { name = p.name or ("path " .. i), points = flat_points(pts, what) }, what)
  end
  return out
end

local function norm_corridors(corridors)
  local out = {}
  for i, c in ipairs(list_of(corridors, "corridors")) do
    local refs, copy = c.refs or c, {}
    for k, r in ipairs(refs) do
      if type(r) ~= "number" or r ~= floor(r) or r < 1 then
        error(("corridors[%d][%d]: polygon ref expected"):format(i, k), 3)
      end
      copy[k] = r
    end
    out[i] = { name = c.name or ("corridor " .. i), refs = copy }
  end
  return out
end

local OBSTACLE_KEYS = {
  cylinder = function(o, w)
    return { center = check_vec3(o.center, w .. ".center"), radius = check_number(o.radius, w .. ".radius"),
             height = check_number(o.height, w .. ".height") }
  end,
  box = function(o, w)
    return { bmin = check_vec3(o.bmin, w .. ".bmin"), bmax = check_vec3(o.bmax, w .. ".bmax") }
  end,
  obox = function(o, w)
    return { center = check_vec3(o.center, w .. ".center"),
             halfExtents = check_vec3(o.halfExtents, w .. ".halfExtents"), yaw = check_number(o.yaw or 0, w .. ".yaw") }
  end,
  convex = function(o, w)
    return { vertices = flat_points(o.vertices, w .. ".vertices"), hmin = check_number(o.hmin, w .. ".hmin"),
             hmax = check_number(o.hmax, w .. ".hmax") }
  end,
}

local function norm_obstacles(obstacles)
  local out = {}
  for i, o in ipairs(list_of(obstacles, "obstacles")) do
    local w = "obstacles[" .. i .. "]"
    local make = type(o) == "table" and OBSTACLE_KEYS[o.kind]
    if not make then error(w .. ": kind cylinder, box, obox or convex expected", 3) end
    local n = make(o, w)
    n.kind = o.kind
    out[i] = n
  end
  return out
end

local AGENT_KEYS = { "x", "y", "z", "vx", "vy", "vz", "radius" }

local function norm_agents(agents)
  local out = {}
  for i, a in ipairs(list_of(agents, "agents")) do
    local n = {}
    for k, key in ipairs(AGENT_KEYS) do
      local v = a[key]
      if v == nil then v = a[k] end
      if v == nil and k >= 4 and k <= 6 then v = 0 end
      if v == nil and key == "radius" then v = 0.6 end
      n[key] = round(check_number(v, ("agents[%d].%s"):format(i, key)))
    end
    out[i] = n
  end
  return out
end

local function norm_nodes(nodes)
  if nodes == nil then return nil end
  if type(nodes) ~= "table" or type(nodes.refs) ~= "table" or type(nodes.points) ~= "table" then
    error("nodes: mesh:getNodePool() table expected", 3)
  end
  local n = { refs = nodes.refs, points = flat_points(nodes.points, "nodes.points"), parents = nodes.parents or {},
              closed = {}, costs = {} }
  for i = 1, #nodes.refs do
    n.closed[i] = nodes.closed and nodes.closed[i] and 1 or 0
    n.costs[i] = round(nodes.costs and nodes.costs[i] or 0)
  end
  return n
end

local function norm_recording(rec)
  if rec == nil then return nil end
  if type(rec) ~= "table" or type(rec.frames) ~= "table" then error("recording: {dt=, frames={...}} expected", 3) end
  local frames = {}
  for i, f in ipairs(rec.frames) do frames[i] = flat_points(f, "recording.frames[" .. i .. "]") end
  return { dt = check_number(rec.dt or 0.1, "recording.dt"), radius = check_number(rec.radius or 0.6, "recording.radius"),
           frames = frames }
end

-- ---- the scene of a mesh ----

-- {bmin, bmax} box options of getDebugScene for a region {x0, z0, x1, z1}.
local function region_box(region)
  if region == nil then return nil end
  if type(region) ~= "table" or #region ~= 4 then error("region: {x0, z0, x1, z1} expected", 3) end
  for i = 1, 4 do check_number(region[i], "region") end
  local x0, z0 = math.min(region[1], region[3]), math.min(region[2], region[4])
  local x1, z1 = math.max(region[1], region[3]), math.max(region[2], region[4])
  return { bmin = { x0, -1e30, z0 }, bmax = { x1, 1e30, z1 } }
end

local function mesh_scene(mesh, region, decimals)
  local opts = region_box(region) or {}
  opts.decimals = decimals
  local scene = mesh:getDebugScene(opts)
  local info = mesh:info()
  scene.origin = { round(info.origin[1]), round(info.origin[2]), round(info.origin[3]) }
  scene.tileWidth, scene.tileHeight = round(info.tileWidth), round(info.tileHeight)
  return scene
end

--- The export as a Lua table (what `export` encodes): format, version,
-- mesh (the flat columns of mesh:getDebugScene, coordinates in mm), paths,
-- corridors, obstacles, agents, nodes, recording. `region = {x0, z0, x1, z1}`
-- keeps the part of the mesh overlapping that X/Z rectangle.
function debug.exportTable(args)
  if type(args) ~= "table" then error("export: table of arguments expected", 2) end
  local t = { format = "navmesh-debug", version = 1 }
  if args.mesh ~= nil then t.mesh = mesh_scene(args.mesh, args.region, DECIMALS) end
  t.paths = norm_paths(args.paths)
  t.corridors = norm_corridors(args.corridors)
  t.obstacles = norm_obstacles(args.obstacles)
  t.agents = norm_agents(args.agents)
  t.nodes = norm_nodes(args.nodes)
  t.recording = norm_recording(args.recording)
  return t
end

--- The export as compact JSON text (lua-cjson).
function debug.export(args)
  local cjson = require "cjson"
  local ok, text = pcall(cjson.encode, debug.exportTable(args))
  if not ok then error("export: " .. tostring(text), 2) end
  return text
end

-- ---- SVG ----

-- Area colours: ground (area 0, RecastDemo's, and 63, Recast's walkable area) sky blue as RecastDemo draws
-- it, the others from a fixed palette by area number.
local PALETTE = {
  { 90, 170, 90 }, { 215, 120, 60 }, { 160, 100, 200 }, { 200, 180, 60 },
  { 60, 170, 170 }, { 200, 90, 130 }, { 120, 140, 60 }, { 110, 110, 220 },
}
local function area_rgb(area)
  if area == 63 or area == 0 then return 0, 170, 230 end
  local c = PALETTE[area % #PALETTE + 1]
  return c[1], c[2], c[3]
end

local function shade(r, g, b, t) -- t in 0..1: 0 low (light), 1 high (dark)
  local k = 1 - 0.45 * t
  return floor(r * k + 0.5), floor(g * k + 0.5), floor(b * k + 0.5)
end

-- The picture's frame: world rectangle, scale (pixels per wu), size.
local function frame(scene, region, scale, max_px)
  local x0, z0, x1, z1
  if region then
    x0, z0 = math.min(region[1], region[3]), math.min(region[2], region[4])
    x1, z1 = math.max(region[1], region[3]), math.max(region[2], region[4])
  else
    x0, z0, x1, z1 = huge, huge, -huge, -huge
    local b = scene.tiles.bounds
    for i = 1, #b, 6 do
      x0, z0 = math.min(x0, b[i]), math.min(z0, b[i + 2])
      x1, z1 = math.max(x1, b[i + 3]), math.max(z1, b[i + 5])
    end
    if x0 > x1 then x0, z0, x1, z1 = 0, 0, 1, 1 end
  end
  local w, h = math.max(x1 - x0, 1e-3), math.max(z1 - z0, 1e-3)
  scale = scale or math.min(20, (max_px or 1600) / math.max(w, h))
  local pad = 10
  return { x0 = x0, z0 = z0, s = scale, pad = pad, w = floor(w * scale + 2 * pad + 0.5),
           h = floor(h * scale + 2 * pad + 0.5) }
end

local function px(f, x, z) return (x - f.x0) * f.s + f.pad, (z - f.z0) * f.s + f.pad end
local function pt(f, x, z)
  return fmt("%.1f,%.1f", (x - f.x0) * f.s + f.pad, (z - f.z0) * f.s + f.pad)
end

local function y_range(scene)
  local v, lo, hi = scene.verts, huge, -huge
  for i = 2, #v, 3 do
    local y = v[i]
    if y < lo then lo = y end
    if y > hi then hi = y end
  end
  if lo > hi then return 0, 1 end
  return lo, math.max(hi - lo, 1e-6)
end

local function draw_polys(out, f, scene, color_by)
  local p, v = scene.polys, scene.verts
  local ylo, yspan = y_range(scene)
  local first = 0
  out[#out + 1] = '<g id="polys" stroke="#34404c" stroke-width="0.5" stroke-opacity="0.55">'
  for i = 1, #p.refs do
    local n = p.nverts[i]
    if n >= 3 then
      local q, ysum = {}, 0
      for k = 0, n - 1 do
        local j = (first + k) * 3
        q[k + 1] = pt(f, v[j + 1], v[j + 3])
        ysum = ysum + v[j + 2]
      end
      local key = color_by == "island" and p.islands[i] or p.areas[i]
      local r, g, b = area_rgb(color_by == "island" and key % 64 or key)
      r, g, b = shade(r, g, b, (ysum / n - ylo) / yspan)
      out[#out + 1] = fmt('<polygon class="poly" data-ref="%d" points="%s" fill="rgb(%d,%d,%d)"/>',
                          p.refs[i], concat(q, " "), r, g, b)
    end
    first = first + n
  end
  out[#out + 1] = "</g>"
end

local function draw_tiles(out, f, scene)
  local b = scene.tiles.bounds
  out[#out + 1] = '<g id="tiles" fill="none" stroke="#1d2630" stroke-width="1" stroke-dasharray="4,3" stroke-opacity="0.6">'
  for i = 1, #b, 6 do
    local x, y = px(f, b[i], b[i + 2])
    out[#out + 1] = fmt('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>', x, y, (b[i + 3] - b[i]) * f.s,
                        (b[i + 5] - b[i + 2]) * f.s)
  end
  out[#out + 1] = "</g>"
end

local function draw_walls(out, f, scene)
  local w, d = scene.walls, {}
  for i = 1, #w, 6 do d[#d + 1] = "M" .. pt(f, w[i], w[i + 2]) .. "L" .. pt(f, w[i + 3], w[i + 5]) end
  if #d == 0 then return end
  out[#out + 1] = fmt('<path id="walls" fill="none" stroke="#101418" stroke-width="%.1f" stroke-linecap="round" d="%s"/>',
                      math.max(1, math.min(3, f.s * 0.15)), concat(d))
end

-- Off-mesh connections as arcs bowing to the left of start->end, end
-- circles of their snapping radius; one-way ones get an arrow head.
local function draw_links(out, f, scene)
  local l = scene.links
  if #l.refs == 0 then return end
  out[#out + 1] = '<g id="links" fill="none" stroke="#e0a020" stroke-width="2">'
  for i = 1, #l.refs do
    local o = (i - 1) * 6
    local p = l.points
    local ax, ay = px(f, p[o + 1], p[o + 3])
    local bx, by = px(f, p[o + 4], p[o + 6])
    local cx, cy = (ax + bx) / 2 - (by - ay) * 0.25, (ay + by) / 2 + (bx - ax) * 0.25
    out[#out + 1] = fmt('<path class="link" data-ref="%d" d="M%.1f,%.1fQ%.1f,%.1f %.1f,%.1f"%s/>', l.refs[i], ax, ay, cx, cy,
                        bx, by, l.bidirectional[i] == 1 and "" or ' marker-end="url(#arrow)"')
    local r = math.max(2, l.radius[i] * f.s)
    out[#out + 1] = fmt('<circle cx="%.1f" cy="%.1f" r="%.1f"/><circle cx="%.1f" cy="%.1f" r="%.1f"/>', ax, ay, r, bx, by, r)
  end
  out[#out + 1] = "</g>"
end

local PATH_COLOURS = { "#d0463c", "#2f6fce", "#2e9e4f", "#8e44ad", "#d35400", "#16a085" }

local function draw_paths(out, f, paths)
  for i, p in ipairs(paths) do
    local c, q = p.color or PATH_COLOURS[(i - 1) % #PATH_COLOURS + 1], {}
    local v = p.points
    for k = 1, #v, 3 do q[#q + 1] = pt(f, v[k], v[k + 2]) end
    out[#out + 1] = fmt('<g class="path" stroke="%s" fill="%s"><polyline fill="none" stroke-width="%s" points="%s"/>', c, c,
                        p.width or 3, concat(q, " "))
    for k = 1, p.dots ~= false and #v or 0, 3 do
      local x, y = px(f, v[k], v[k + 2])
      out[#out + 1] = fmt('<circle cx="%.1f" cy="%.1f" r="4"/>', x, y)
    end
    out[#out + 1] = fmt('<title>%s</title></g>', (p.name:gsub("[<>&\"]", "")))
  end
end

local function draw_corridors(out, f, mesh, corridors)
  for i, c in ipairs(corridors) do
    local col = PATH_COLOURS[(i - 1) % #PATH_COLOURS + 1]
    out[#out + 1] = fmt('<g class="corridor" fill="%s" fill-opacity="0.3" stroke="%s" stroke-width="1">', col, col)
    for _, ref in ipairs(c.refs) do
      if mesh:isValidPolyRef(ref) then
        local v, q = mesh:getPolyVerts(ref), {}
        for k = 1, #v, 3 do q[#q + 1] = pt(f, v[k], v[k + 2]) end
        if #q >= 3 then out[#out + 1] = fmt('<polygon points="%s"/>', concat(q, " ")) end
      end
    end
    out[#out + 1] = "</g>"
  end
end

local function draw_obstacle(out, f, o)
  if o.kind == "cylinder" then
    local x, y = px(f, o.center[1], o.center[3])
    out[#out + 1] = fmt('<circle class="obstacle" cx="%.1f" cy="%.1f" r="%.1f"/>', x, y, o.radius * f.s)
    return
  end
  local pts = {}
  if o.kind == "box" then
    local a, b = o.bmin, o.bmax
    pts = { pt(f, a[1], a[3]), pt(f, b[1], a[3]), pt(f, b[1], b[3]), pt(f, a[1], b[3]) }
  elseif o.kind == "obox" then
    local c, e, s, co = o.center, o.halfExtents, math.sin(o.yaw), math.cos(o.yaw)
    for _, k in ipairs { { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 } } do
      local lx, lz = k[1] * e[1], k[2] * e[3]
      pts[#pts + 1] = pt(f, c[1] + co * lx + s * lz, c[3] - s * lx + co * lz)
    end
  else
    local v = o.vertices
    for k = 1, #v, 3 do pts[#pts + 1] = pt(f, v[k], v[k + 2]) end
  end
  out[#out + 1] = fmt('<polygon class="obstacle" points="%s"/>', concat(pts, " "))
end

local function draw_agents(out, f, agents)
  if #agents == 0 then return end
  out[#out + 1] = '<g id="agents" fill="#f4d03f" stroke="#7d6608" stroke-width="1.5">'
  for _, a in ipairs(agents) do
    local x, y = px(f, a.x, a.z)
    out[#out + 1] = fmt('<circle class="agent" cx="%.1f" cy="%.1f" r="%.1f"/>', x, y, math.max(2, a.radius * f.s))
    local vx, vy = px(f, a.x + a.vx, a.z + a.vz)
    out[#out + 1] = fmt('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c0392b" stroke-width="2"/>', x, y, vx, vy)
  end
  out[#out + 1] = "</g>"
end

-- Searched nodes: a dot per node (closed dark, open light) and a line to
-- the node it was reached from.
local function draw_nodes(out, f, nodes)
  if not nodes or #nodes.refs == 0 then return end
  local p, lines = nodes.points, {}
  for i = 1, #nodes.refs do
    local par = nodes.parents[i] or 0
    if par > 0 then
      lines[#lines + 1] = "M" .. pt(f, p[par * 3 - 2], p[par * 3]) .. "L" .. pt(f, p[i * 3 - 2], p[i * 3])
    end
  end
  out[#out + 1] = '<g id="nodes">'
  if #lines > 0 then
    out[#out + 1] = fmt('<path fill="none" stroke="#6c3483" stroke-width="1" stroke-opacity="0.7" d="%s"/>', concat(lines))
  end
  for i = 1, #nodes.refs do
    local x, y = px(f, p[i * 3 - 2], p[i * 3])
    out[#out + 1] = fmt('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>', x, y,
                        nodes.closed[i] == 1 and "#6c3483" or "#d2b4de")
  end
  out[#out + 1] = "</g>"
end

local SVG_KEYS = { mesh = 1, paths = 1, corridors = 1, obstacles = 1, agents = 1, nodes = 1, region = 1, scale = 1,
                   maxPixels = 1, colorBy = 1, title = 1, recording = 1, layers = 1 }

local function layer_on(args, name)
  return not args.layers or args.layers[name] ~= false
end

--- A top-down SVG picture (text). Arguments as `export`, plus
-- `region = {x0, z0, x1, z1}` (world X/Z rectangle to draw, default the
-- whole mesh), `scale` (pixels per world unit; default fits `maxPixels`,
-- 1600, at most 20), `colorBy = "area" | "island"`, `title`, and
-- `layers = { tiles = false, walls = false, ... }` to leave layers out
-- (polys, tiles, walls, links, corridors, paths, obstacles, agents, nodes).
-- X runs right, Z runs down the page; polygons are coloured by area
-- (or island) and darker where higher.
function debug.svg(args)
  if type(args) ~= "table" then error("svg: table of arguments expected", 2) end
  for k in pairs(args) do
    if not SVG_KEYS[k] then error("svg: unknown option '" .. tostring(k) .. "'", 2) end
  end
  if args.scale ~= nil and (not finite(args.scale) or args.scale <= 0) then error("svg: scale must be > 0", 2) end
  if args.region ~= nil then region_box(args.region) end
  local scene = args.mesh and mesh_scene(args.mesh, args.region) or
                  { polys = { refs = {} }, verts = {}, walls = {}, links = { refs = {} }, tiles = { bounds = {} } }
  local f = frame(scene, args.region, args.scale, args.maxPixels)
  local out = {}
  out[1] = fmt('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">', f.w, f.h, f.w, f.h)
  out[2] = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto">' ..
           '<path d="M0,0L10,5L0,10z" fill="#e0a020"/></marker></defs>'
  out[3] = fmt('<rect width="%d" height="%d" fill="#3b3b48"/>', f.w, f.h)
  if args.title then out[4] = fmt("<title>%s</title>", (tostring(args.title):gsub("[<>&\"]", ""))) end
  if layer_on(args, "polys") then draw_polys(out, f, scene, args.colorBy) end
  if layer_on(args, "tiles") then draw_tiles(out, f, scene) end
  if layer_on(args, "walls") then draw_walls(out, f, scene) end
  if layer_on(args, "corridors") and args.mesh then draw_corridors(out, f, args.mesh, norm_corridors(args.corridors)) end
  if layer_on(args, "links") then draw_links(out, f, scene) end
  if layer_on(args, "nodes") then draw_nodes(out, f, norm_nodes(args.nodes)) end
  if layer_on(args, "obstacles") then
    out[#out + 1] = '<g id="obstacles" fill="#7b241c" fill-opacity="0.55" stroke="#f1948a" stroke-width="1.5">'
    for _, o in ipairs(norm_obstacles(args.obstacles)) do draw_obstacle(out, f, o) end
    out[#out + 1] = "</g>"
  end
  if layer_on(args, "paths") then draw_paths(out, f, norm_paths(args.paths)) end
  if layer_on(args, "agents") then draw_agents(out, f, norm_agents(args.agents)) end
  out[#out + 1] = "</svg>\n"
  return concat(out, "\n")
end

-- ---- a synthetic crowd recording (until the crowd exists) ----

--- A made-up crowd run for the viewer's replay: `agents` agents walk at
-- `speed` wu/s along paths between random points of the mesh (seeded,
-- so the same on every host), sampled every `dt` seconds for `frames`
-- frames. Returns the `recording` table export takes.
function debug.syntheticRecording(mesh, opts)
  opts = opts or {}
  local n, nframes = opts.agents or 8, opts.frames or 100
  local dt, speed = opts.dt or 0.1, opts.speed or 3
  mesh:seed(opts.seed or 1)
  local routes = {}
  for a = 1, n do
    local pts
    for _ = 1, 20 do
      local _, x0, y0, z0 = mesh:findRandomPoint()
      local _, x1, y1, z1 = mesh:findRandomPoint()
      pts = mesh:path(x0, y0, z0, x1, y1, z1)
      if pts and #pts >= 6 then break end
    end
    routes[a] = pts or {}
  end
  local frames = {}
  for k = 1, nframes do
    local frame_pts = {}
    for a = 1, n do
      local x, y, z = debug.pointAlong(routes[a], (k - 1) * dt * speed)
      frame_pts[#frame_pts + 1], frame_pts[#frame_pts + 2], frame_pts[#frame_pts + 3] = x, y, z
    end
    frames[k] = frame_pts
  end
  return { dt = dt, radius = opts.radius or 0.6, frames = frames }
end

--- The point at distance d along a flat path (clamped to its ends).
function debug.pointAlong(pts, d)
  if #pts < 3 then return 0, 0, 0 end
  for i = 4, #pts, 3 do
    local dx, dy, dz = pts[i] - pts[i - 3], pts[i + 1] - pts[i - 2], pts[i + 2] - pts[i - 1]
    local len = sqrt(dx * dx + dy * dy + dz * dz)
    if d <= len and len > 0 then
      local t = d / len
      return pts[i - 3] + dx * t, pts[i - 2] + dy * t, pts[i - 1] + dz * t
    end
    d = d - len
  end
  return pts[#pts - 2], pts[#pts - 1], pts[#pts]
end

return debug
