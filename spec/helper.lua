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
  elseif s:sub(i, i + 3) == "null" then -- The bundled procedural level as a navmesh (opts: fromPolygons extras).
function helper.level_mesh(extra, map)
  local level = require "level"
  local navmesh = require "navmesh"
  local v, p, marks = level.polygons(map)
  local def = { vertices = v, polygons = p }
  for k, x in pairs(extra or {}) do def[k] = x end
  return assert(navmesh.fromPolygons(def)), marks, v, p
end

return helper.null, i + 4
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

-- Oracle cases of one mesh file, decoded (cached).
local cache = {}
function helper.oracle(name)
  if cache[name] then return cache[name] end
  local f = assert(io.open(helper.shared .. "/oracle/" .. name .. ".jsonl", "rb"))
  local cases = {}
  for line in f:lines() do
    if line:find("%S") then cases[#cases + 1] = helper.json_decode(line) end
  end
  f:close()
  cache[name] = cases
  return cases
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
