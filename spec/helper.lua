-- spec/helper.lua: shared helpers for the busted specs.
-- A small JSON reader (for the oracle files), the path to ../shared, and
-- geometry helpers used by several specs.
local helper = {}

-- the procedural level and other example modules
package.path = "examples/?.lua;" .. package.path

-- ---- JSON (the subset the oracle files use: objects, arrays, numbers,
-- strings without escapes beyond \" \\ \/ \n \t, true/false/null) ----
local function skip(s, i)
  local _, e = s:find("^[ \t\r\n]*", i)
  return e + 1
end

local decode_value
local function decode_string(s, i)
  local out, j = {}, i + 1
  while true do
    local c = s:sub(j, j)
    if c == '"' then return table.concat(out), j + 1 end
    if c == "\\" then
      local n = s:sub(j + 1, j + 1)
      local map = { n = "\n", t = "\t", r = "\r", b = "\b", f = "\f" }
      out[#out + 1] = map[n] or n
      j = j + 2
    else
      local e = s:find('["\\]', j)
      out[#out + 1] = s:sub(j, e - 1)
      j = e
    end
  end
end

function decode_value(s, i)
  i = skip(s, i)
  local c = s:sub(i, i)
  if c == "{" then
    local obj = {}
    i = skip(s, i + 1)
    if s:sub(i, i) == "}" then return obj, i + 1 end
    while true do
      local k
      k, i = decode_string(s, skip(s, i))
      i = skip(s, i) + 1 -- ':'
      obj[k], i = decode_value(s, i)
      i = skip(s, i)
      local d = s:sub(i, i)
      i = i + 1
      if d == "}" then return obj, i end
    end
  elseif c == "[" then
    local arr, n = {}, 0
    i = skip(s, i + 1)
    if s:sub(i, i) == "]" then return arr, i + 1 end
    while true do
      n = n + 1
      arr[n], i = decode_value(s, i)
      i = skip(s, i)
      local d = s:sub(i, i)
      i = i + 1
      if d == "]" then return arr, i end
    end
  elseif c == '"' then
    return decode_string(s, i)
  elseif s:sub(i, i + 3) == "true" then return true, i + 4
  elseif s:sub(i, i + 4) == "false" then return false, i + 5
  elseif s:sub(i, i + 3) == "null" then return helper.null, i + 4
  else
    local num = s:match("^-?[%d%.eE+-]+", i)
    return tonumber(num), i + #num
  end
end

helper.null = setmetatable({}, { __tostring = function() return "null" end })

function helper.json_decode(s)
  return (decode_value(s, 1))
end

-- ---- shared reference data ----
local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end
helper.exists = exists

helper.shared = os.getenv("NAVMESH_SHARED") or "../shared"
helper.have_shared = exists(helper.shared .. "/navmeshes/dungeon_solo.bin")
helper.small_meshes = { "dungeon_solo", "dungeon_tiled", "nav_test_solo", "nav_test_tiled",
                        "undulating_solo", "undulating_tiled" }
helper.large_meshes = { "city_tiled", "maze_tiled" }

-- NAVMESH_SPEC_SCALE=f (0 < f <= 1, default 1) runs a fraction f of the
-- specs' data-driven work: every round(1/f)-th oracle case (helper.oracle)
-- and the pure-Lua reference checks (brute-force shortest paths) on every
-- round(1/f)-th query (helper.sampled). The valgrind suite of make test
-- runs so (tools/valgrind-set.sh); make valgrind-coverage checks that it
-- still reaches every C line the whole suite reaches.
helper.scale = math.min(1, math.max(0.001, tonumber(os.getenv("NAVMESH_SPEC_SCALE") or "1") or 1))
local sample = math.max(1, math.floor(1 / helper.scale + 0.5))

-- Whether the i-th item of a sampled loop is checked (every one at scale 1).
function helper.sampled(i)
  return (i - 1) % sample == 0
end

-- n scaled by NAVMESH_SPEC_SCALE, at least min (default 1).
function helper.scaled(n, min)
  return math.max(min or 1, math.floor(n * helper.scale + 0.5))
end

-- Oracle cases of one mesh file, decoded. Cached weakly: a spec that
-- collects garbage on purpose does not traverse every file's cases again
-- and again.
local cache = setmetatable({}, { __mode = "v" })
function helper.oracle(name)
  if cache[name] then return cache[name] end
  local f = assert(io.open(helper.shared .. "/oracle/" .. name .. ".jsonl", "rb"))
  local cases, i = {}, 0
  for line in f:lines() do
    if line:find("%S") then
      i = i + 1
      if (i - 1) % sample == 0 then cases[#cases + 1] = helper.json_decode(line) end
    end
  end
  f:close()
  cache[name] = cases
  return cases
end

-- ---- agreement with the query oracle (spec/02, spec/71) ----

local function same_point(x, y, z, p, tol)
  return helper.near(x, p[1], tol) and helper.near(y, p[2], tol) and helper.near(z, p[3], tol)
end

-- Counts of agreeing cases (oracle_case adds to them).
function helper.oracle_tally(mesh)
  return { nearest = 0, nearest_n = 0, path = 0, path_n = 0, straight = 0, straight_n = 0, bad = {},
           reach = 0, islands = mesh:info().islands }
end

-- Checks one case of the query oracle on mesh: nearest polygon (ref,
-- position 1e-4, over-poly), corridor (status and polygon list), straight
-- path from Detour's own corridor (points 1e-4, flags, refs), and whether
-- isReachable is false exactly for Detour's partial paths; counts into r.
function helper.oracle_case(mesh, c, r)
  local TOL = 1e-4
  for _, k in ipairs { "start", "end" } do
    local o, p = c["nearest_" .. k], c[k]
    local ref, x, y, z, over = mesh:findNearestPoly(p[1], p[2], p[3], 2, 4, 2)
    r.nearest_n = r.nearest_n + 1
    if (not o.found and ref == nil) or (ref == o.ref and same_point(x, y, z, o.pos, TOL) and over == o.over_poly) then
      r.nearest = r.nearest + 1
    else
      r.bad[#r.bad + 1] = ("case %d nearest_%s: got %s want %s"):format(c.case, k, tostring(ref), tostring(o.ref))
    end
  end
  if c.path ~= helper.null then
    local s, e = c.nearest_start.pos, c.nearest_end.pos
    local polys, partial = mesh:findPath(c.nearest_start.ref, c.nearest_end.ref, s[1], s[2], s[3], e[1], e[2], e[3])
    local ok = #polys == c.path.npolys and partial == (c.path.status == "partial")
    for i = 1, #polys do ok = ok and polys[i] == c.path.polys[i] end
    r.path_n = r.path_n + 1
    if mesh:isReachable(c.nearest_start.ref, c.nearest_end.ref) == (c.path.status == "success") then
      r.reach = r.reach + 1
    end
    if ok then r.path = r.path + 1
    else r.bad[#r.bad + 1] = ("case %d path: got %d polys (partial %s), want %d (%s)"):format(
      c.case, #polys, tostring(partial), c.path.npolys, c.path.status) end
  end
  if c.straight ~= helper.null then
    local s, e = c.nearest_start.pos, c.straight.end_input
    local pts, flags, refs = mesh:findStraightPath(s[1], s[2], s[3], e[1], e[2], e[3], c.path.polys)
    local ok = #flags == c.straight.npoints and #pts == 3 * #flags and #refs == #flags
    for i = 1, ok and #flags or 0 do
      ok = ok and flags[i] == c.straight.flags[i] and refs[i] == c.straight.refs[i] and
           same_point(pts[3 * i - 2], pts[3 * i - 1], pts[3 * i], c.straight.points[i], TOL)
    end
    r.straight_n = r.straight_n + 1
    if ok then r.straight = r.straight + 1
    else r.bad[#r.bad + 1] = ("case %d straight: got %d points, want %d"):format(c.case, #flags, c.straight.npoints) end
  end
end

-- ---- tiles ----

-- A tile blob without its run-time link state (the link section and each
-- polygon's first link), as spec/c/cache_util.h's same_tile compares
-- tiles: Detour's header is 100 bytes, then vertices (12 bytes each),
-- polygons (32, the first link in the first 4) and links (12).
function helper.tile_content(blob)
  local function i32(o)
    local a, b, c, d = blob:byte(o + 1, o + 4)
    return a + b * 256 + c * 65536 + d * 16777216
  end
  local polys, verts, links = i32(24), i32(28), i32(32)
  local poff = 100 + 12 * verts
  local parts = { blob:sub(1, poff) }
  for i = 0, polys - 1 do parts[#parts + 1] = "\0\0\0\0" .. blob:sub(poff + 32 * i + 5, poff + 32 * i + 32) end
  parts[#parts + 1] = blob:sub(poff + 32 * polys + 12 * links + 1)
  return table.concat(parts)
end

-- Every tile of a mesh by place ("x,y,layer"): its reference, polygon
-- count and content (tile_content), to compare meshes tile by tile.
function helper.tile_contents(mesh)
  local out = {}
  for _, t in ipairs(mesh:tiles()) do
    out[t.x .. "," .. t.y .. "," .. t.layer] = { ref = t.ref, polys = t.polys,
                                                  content = helper.tile_content(mesh:getTile(t.x, t.y, t.layer)) }
  end
  return out
end

-- The same without references: what removing an obstacle must give back
-- (rebuilt tiles come back with new salts).
function helper.tile_shapes(mesh)
  local out = {}
  for k, t in pairs(helper.tile_contents(mesh)) do out[k] = t.content end
  return out
end

-- Says (once per file) why a spec that needs ../shared does nothing.
function helper.skip_without_shared(what)
  if not helper.have_shared then
    print(("SKIP %s: %s not found (reference data lives beside the project)"):format(what, helper.shared))
    return true
  end
  return false
end

-- Says (once per module) why a test that needs a Lua C module this Lua
-- lacks (lua-cjson, lua-expat: Debian builds them for 5.1-5.4 only) does
-- nothing; true when it is missing.
local missing_said = {}
function helper.skip_without_module(name, what)
  if pcall(require, name) then return false end
  if not missing_said[name] then
    print(("SKIP %s: module '%s' is not installed for %s"):format(what, name, _VERSION))
    missing_said[name] = true
  end
  return true
end

-- ---- geometry ----
function helper.near(a, b, tol)
  return math.abs(a - b) <= (tol or 1e-4)
end

function helper.length2d(pts)
  local len = 0
  for i = 4, #pts, 3 do
    local dx, dz = pts[i] - pts[i - 3], pts[i + 2] - pts[i - 1]
    len = len + math.sqrt(dx * dx + dz * dz)
  end
  return len
end

-- Squared X/Z distance from point p to segment a-b (tables {x,y,z}).
function helper.dist_pt_seg2d(px, pz, ax, az, bx, bz)
  local dx, dz = bx - ax, bz - az
  local d = dx * dx + dz * dz
  local t = 0
  if d > 0 then t = ((px - ax) * dx + (pz - az) * dz) / d end
  if t < 0 then t = 0 elseif t > 1 then t = 1 end
  local x, z = ax + t * dx - px, az + t * dz - pz
  return math.sqrt(x * x + z * z), t
end

function helper.percent(n, d)
  if d == 0 then return 100 end
  return 100 * n / d
end

-- The bundled procedural level as a navmesh (opts: fromPolygons extras).
function helper.level_mesh(extra, map)
  local level = require "level"
  local navmesh = require "navmesh"
  local v, p, marks = level.polygons(map)
  local def = { vertices = v, polygons = p }
  for k, x in pairs(extra or {}) do def[k] = x end
  return assert(navmesh.fromPolygons(def)), marks, v, p
end

return helper
