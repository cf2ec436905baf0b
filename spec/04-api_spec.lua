-- The Lua contract (design.md, style.md C): result shapes, raise versus
-- nil+message+code, closed handles, garbage collection, save/load, tiles.
-- Uses only the bundled procedural level (no ../shared needed).
local helper = require "helper"
local navmesh = require "navmesh"

local function xyz(t) return t[1], t[2], t[3] end

describe("module", function()
  it("has a version and its functions", function()
    assert.is_string(navmesh._VERSION)
    for _, f in ipairs { "load", "loadString", "new", "fromPolygons", "filter" } do
      assert.is_function(navmesh[f])
    end
  end)

  it("returns nil, message, code for unreadable or corrupt data", function()
    local m, err, code = navmesh.load("/nonexistent/level.bin")
    assert.is_nil(m)
    assert.matches("/nonexistent/level.bin", err, 1, true)
    assert.are.equal("ERR_IO", code)
    m, err, code = navmesh.loadString("this is not a navmesh")
    assert.is_nil(m)
    assert.matches("corrupt", err)
    assert.are.equal("ERR_DATA", code)
    m, err, code = navmesh.loadString("")
    assert.is_nil(m)
    assert.are.equal("ERR_DATA", code)
  end)

  it("raises on wrong argument types and unknown options", function()
    assert.has_error(function() navmesh.loadString({}) end)
    assert.has_error(function() navmesh.load(nil) end)
    assert.has_error(function() navmesh.loadString("x", { maxNodez = 1 }) end, "unknown option 'maxNodez' to 'navmesh.loadString' (did you mean 'maxNodes'?)")
    assert.has_error(function() navmesh.loadString("x", { maxNodes = 0 }) end)
    assert.has_error(function() navmesh.new { tileWidth = 0 } end)
    assert.has_error(function() navmesh.new { tileWidth = 10, maxTiles = 1048576, maxPolys = 1048576 } end)
    assert.has_error(function() navmesh.new { tileWidth = 10, colour = 1 } end)
  end)
end)

describe("fromPolygons", function()
  it("builds a navmesh from convex polygons", function()
    local m = navmesh.fromPolygons { vertices = { 0, 0, 0, 0, 0, 10, 10, 0, 10, 10, 0, 0 }, polygons = { { 1, 2, 3, 4 } } }
    local info = m:info()
    assert.are.equal(1, info.tiles)
    assert.are.equal(1, info.polys)
    assert.are.equal(4, info.vertices)
    assert.is_true(info.memoryBytes >= info.dataBytes)
    local ref, x, y, z, over = m:findNearestPoly(5, 1, 5)
    assert.is_number(ref)
    assert.is_true(helper.near(x, 5) and helper.near(y, 0) and helper.near(z, 5))
    assert.is_true(over)
  end)

  it("accepts either winding and joins polygons sharing an edge", function()
    -- two squares, one wound each way, sharing the edge x = 10
    local v = { 0, 0, 0, 0, 0, 10, 10, 0, 10, 10, 0, 0, 20, 0, 0, 20, 0, 10 }
    local m = navmesh.fromPolygons { vertices = v, polygons = { { 1, 2, 3, 4 }, { 4, 3, 6, 5 } } }
    local pts, partial = m:path(1, 0, 1, 19, 0, 9)
    assert.is_false(partial)
    assert.are.equal(6, #pts) -- straight across: start and end only
    assert.is_true(helper.near(pts[4], 19) and helper.near(pts[6], 9))
  end)

  it("raises on malformed polygons and returns ERR_EMPTY for none", function()
    local sq = { 0, 0, 0, 0, 0, 10, 10, 0, 10, 10, 0, 0, 5, 0, 5 }
    assert.has_error(function() navmesh.fromPolygons { vertices = sq, polygons = { { 1, 2, 9 } } } end)
    assert.has_error(function() navmesh.fromPolygons { vertices = sq, polygons = { { 1, 2 } } } end)
    assert.has_error(function() navmesh.fromPolygons { vertices = { 0, 0 }, polygons = {} } end)
    assert.has_error(function() navmesh.fromPolygons { vertices = { 0, 0 / 0, 0, 1, 0, 0, 0, 0, 1 }, polygons = { { 1, 2, 3 } } } end)
    -- not convex: the dent at vertex 5
    local ok, err = pcall(navmesh.fromPolygons, { vertices = sq, polygons = { { 1, 2, 3, 5, 4 } } })
    assert.is_false(ok)
    assert.matches("not convex", err)
    assert.has_error(function() navmesh.fromPolygons { vertices = sq, polygons = { { 1, 2, 3 } }, colour = 1 } end)
    local m, msg, code = navmesh.fromPolygons { vertices = sq, polygons = {} }
    assert.is_nil(m)
    assert.is_string(msg)
    assert.are.equal("ERR_EMPTY", code)
  end)
end)

describe("queries on the procedural level", function()
  local mesh, marks
  setup(function() mesh, marks = helper.level_mesh() end)

  it("finds the nearest polygon, or says there is none", function()
    local ref, x, y, z, over = mesh:findNearestPoly(xyz(marks.S))
    assert.is_true(ref > 0)
    assert.is_true(over)
    assert.is_true(helper.near(x, marks.S[1]) and helper.near(z, marks.S[3]) and helper.near(y, 0))
    local r, msg, code = mesh:findNearestPoly(500, 0, 500)
    assert.is_nil(r)
    assert.matches("no polygon", msg)
    assert.are.equal("ERR_NO_POLY", code)
    -- wider extents reach a polygon 3 units away
    assert.is_nil(mesh:findNearestPoly(-3.5, 0, 5))
    assert.is_number(mesh:findNearestPoly(-3.5, 0, 5, 5, 1, 5))
  end)

  it("raises on NaN, infinite or non-number coordinates", function()
    assert.has_error(function() mesh:findNearestPoly(0 / 0, 0, 0) end, "bad argument #1 to 'NavMesh:findNearestPoly' (coordinate must be a finite number, got nan)")
    assert.has_error(function() mesh:findNearestPoly(1, math.huge, 0) end)
    assert.has_error(function() mesh:findNearestPoly(1, "x", 0) end)
    assert.has_error(function() mesh:findNearestPoly(1, 0, 0, -1, 1, 1) end)
    assert.has_error(function() mesh:path(0, 0, 0, 1, 0, -math.huge) end)
    assert.has_error(function() mesh.findNearestPoly(42, 1, 2, 3) end)
  end)

  it("finds a corridor and a straight path around the pillars", function()
    local s, e = marks.S, marks.E
    local sref, sx, sy, sz = mesh:findNearestPoly(xyz(s))
    local eref, ex, ey, ez = mesh:findNearestPoly(xyz(e))
    local polys, partial, out = mesh:findPath(sref, eref, sx, sy, sz, ex, ey, ez)
    assert.is_false(partial)
    assert.is_false(out)
    assert.are.equal(sref, polys[1])
    assert.are.equal(eref, polys[#polys])
    local pts, flags, refs = mesh:findStraightPath(sx, sy, sz, ex, ey, ez, polys)
    assert.are.equal(#flags * 3, #pts)
    assert.are.equal(#flags, #refs)
    assert.are.equal(1, flags[1])
    assert.are.equal(2, flags[#flags])
    assert.are.equal(0, refs[#refs])
    assert.is_true(#flags > 2) -- the level is not a straight line
    -- path() is the same three steps
    local pts2, partial2 = mesh:path(sx, sy, sz, ex, ey, ez)
    assert.are.same(pts, pts2)
    assert.is_false(partial2)
  end)

  it("returns a partial path towards an island", function()
    local island = { 34.5, 0, 13.5 } -- the 'I' cells, walled in
    local pts, partial = mesh:path(marks.S[1], 0, marks.S[3], xyz(island))
    assert.is_true(partial)
    assert.is_true(#pts >= 6)
    local a, b, c = mesh:findNearestPoly(xyz(marks.S)), mesh:findNearestPoly(xyz(island)), mesh:findNearestPoly(xyz(marks.E))
    assert.is_false(mesh:isReachable(a, b))
    assert.is_true(mesh:isReachable(a, c))
    assert.are.equal(2, mesh:info().islands)
    assert.are.equal(mesh:getIsland(a), mesh:getIsland(c))
    assert.are_not.equal(mesh:getIsland(a), mesh:getIsland(b))
  end)

  it("limits and decorates the straight path as asked", function()
    local s, e = marks.S, marks.E
    local all = mesh:path(s[1], s[2], s[3], e[1], e[2], e[3], { crossings = "all" })
    local plain = mesh:path(s[1], s[2], s[3], e[1], e[2], e[3])
    assert.is_true(#all > #plain)
    local two = mesh:path(s[1], s[2], s[3], e[1], e[2], e[3], { maxPoints = 2 })
    assert.are.equal(6, #two)
    assert.has_error(function() mesh:path(0, 0, 0, 1, 0, 1, { inset = -1 }) end)
    assert.has_error(function() mesh:path(0, 0, 0, 1, 0, 1, { crossings = "some" }) end)
    assert.has_error(function() mesh:path(0, 0, 0, 1, 0, 1, { speed = 1 }) end)
  end)

  it("raises on bad polygon references", function()
    assert.has_error(function() mesh:findPath(0, 1, 0, 0, 0, 1, 1, 1) end)
    assert.has_error(function() mesh:findPath(123456789, 1, 0, 0, 0, 1, 1, 1) end)
    assert.has_error(function() mesh:findStraightPath(0, 0, 0, 1, 1, 1, {}) end)
    assert.has_error(function() mesh:findStraightPath(0, 0, 0, 1, 1, 1, { "x" }) end)
    assert.is_false(mesh:isValidPolyRef(123456789))
    assert.is_false(mesh:isValidPolyRef(0.5))
  end)
end)

describe("filters", function()
  it("exclude flags and area costs change the route", function()
    -- the narrow corridor out of the first room (row z = 5, x 11..20)
    -- becomes area 2 with flag 2; the other way round is through the south
    local level = require "level"
    local v, p, marks = level.polygons()
    local areas, flags = {}, {}
    for i, poly in ipairs(p) do
      local x, z = v[3 * poly[1] - 2], v[3 * poly[1]]
      local corridor = z == 5 and x >= 11 and x < 21
      areas[i] = corridor and 2 or 0
      flags[i] = corridor and 2 or 1
    end
    local mesh = navmesh.fromPolygons { vertices = v, polygons = p, areas = areas, flags = flags }
    local s, e = marks.S, marks.E
    local base = helper.length2d(mesh:path(s[1], s[2], s[3], e[1], e[2], e[3]))
    local avoid = navmesh.filter { areaCost = { [2] = 50 } }
    local costly = helper.length2d(mesh:path(s[1], s[2], s[3], e[1], e[2], e[3], { filter = avoid }))
    assert.is_true(costly > base + 1)
    local blocked = navmesh.filter { exclude = 2 }
    local b = helper.length2d(mesh:path(s[1], s[2], s[3], e[1], e[2], e[3], { filter = blocked }))
    assert.is_true(b > base + 1)
    assert.are.equal(50, avoid:areaCost(2))
    assert.are.equal(1, avoid:areaCost(3))
    assert.are.equal(0xffff, blocked:include())
    assert.are.equal(2, blocked:exclude())
  end)

  it("rejects bad filter definitions", function()
    assert.has_error(function() navmesh.filter { areaCost = { [64] = 1 } } end)
    assert.has_error(function() navmesh.filter { areaCost = { [1] = -1 } } end)
    assert.has_error(function() navmesh.filter { include = 0x10000 } end)
    assert.has_error(function() navmesh.filter { speed = 1 } end)
  end)
end)

describe("handles", function()
  it("close idempotently and refuse use afterwards", function()
    local m = helper.level_mesh()
    assert.matches("^navmesh.NavMesh %(1 tiles", tostring(m))
    m:close()
    m:close()
    assert.are.equal("navmesh.NavMesh (closed)", tostring(m))
    assert.has_error(function() m:findNearestPoly(1, 0, 1) end, "NavMesh:findNearestPoly: attempt to use a closed navmesh.NavMesh")
    assert.has_error(function() m:info() end, "NavMesh:info: attempt to use a closed navmesh.NavMesh")
  end)

  it("are collected without leaking or crashing", function()
    for _ = 1, 50 do helper.level_mesh() end
    collectgarbage()
    collectgarbage()
    local m = helper.level_mesh()
    assert.is_number(m:findNearestPoly(1.5, 0, 1.5))
  end)

  it("close with <close> on Lua 5.4 and later", function()
    if tonumber(_VERSION:match("%d+%.%d+")) < 5.4 then return end
    local chunk = assert(load([[
      local helper = ...
      local kept
      do
        local m <close> = helper.level_mesh()
        kept = m
      end
      return kept
    ]]))
    local m = chunk(helper)
    assert.are.equal("navmesh.NavMesh (closed)", tostring(m))
  end)
end)

describe("save and load", function()
  local mesh, marks
  setup(function() mesh, marks = helper.level_mesh() end)

  for _, fmt in ipairs { "mset", "native" } do
    it("round-trips the " .. fmt .. " format with identical answers", function()
      local bytes = mesh:saveString(fmt)
      local m2 = assert(navmesh.loadString(bytes))
      assert.are.equal(bytes, m2:saveString(fmt))
      local s, e = marks.S, marks.E
      assert.are.same(mesh:path(s[1], s[2], s[3], e[1], e[2], e[3]), m2:path(s[1], s[2], s[3], e[1], e[2], e[3]))
      assert.are.same({ mesh:findNearestPoly(3.2, 0, 4.1) }, { m2:findNearestPoly(3.2, 0, 4.1) })
    end)
  end

  it("writes and reads files", function()
    local path = os.tmpname()
    assert.is_true(mesh:save(path, "native"))
    local m2 = assert(navmesh.load(path))
    assert.are.equal(mesh:info().polys, m2:info().polys)
    os.remove(path)
    local ok, err, code = mesh:save("/nonexistent/dir/x.bin")
    assert.is_nil(ok)
    assert.is_string(err)
    assert.are.equal("ERR_IO", code)
  end)

  it("detects damaged native files by their checksum", function()
    local bytes = mesh:saveString("native")
    local i = #bytes - 100
    local damaged = bytes:sub(1, i - 1) .. string.char((bytes:byte(i) + 1) % 256) .. bytes:sub(i + 1)
    local m, err, code = navmesh.loadString(damaged)
    assert.is_nil(m)
    assert.matches("checksum", err)
    assert.are.equal("ERR_DATA", code)
  end)
end)

describe("tiles", function()
  it("can be removed and added again at run time", function()
    local mesh = helper.level_mesh()
    local tx, ty, ref = mesh:tileAt(2, 2)
    assert.are.equal(0, tx)
    assert.are.equal(0, ty)
    assert.is_number(ref)
    local before = mesh:findNearestPoly(1.5, 0, 1.5)
    local blob = mesh:removeTile(tx, ty)
    assert.is_string(blob)
    assert.are.equal(0, mesh:info().tiles)
    assert.are.equal(0, mesh:info().islands)
    assert.is_nil(mesh:findNearestPoly(1.5, 0, 1.5))
    assert.is_false(mesh:isValidPolyRef(before))
    local again = assert(mesh:addTile(blob))
    assert.is_true(again ~= ref) -- a new salt: old references stay invalid
    local after = mesh:findNearestPoly(1.5, 0, 1.5)
    assert.is_true(after ~= before)
    assert.are.equal(2, mesh:info().islands)
    local _, msg, code = mesh:addTile(blob)
    assert.are.equal("ERR_FULL", code)
    assert.is_string(msg)
    local r, msg2, code2 = mesh:removeTile(5, 5)
    assert.is_nil(r)
    assert.is_string(msg2)
    assert.are.equal("ERR_PARAM", code2)
  end)

  it("build a mesh from tiles with navmesh.new", function()
    local src = helper.level_mesh()
    local info = src:info()
    local blob = src:removeTile(0, 0)
    local m = navmesh.new { origin = info.origin, tileWidth = info.tileWidth, tileHeight = info.tileHeight,
                            maxTiles = 4, maxPolys = 1024 }
    assert.are.equal(0, m:info().tiles)
    assert.is_number(m:addTile(blob))
    assert.are.equal(info.polys, m:info().polys)
    local _, _, code = m:addTile("VAND garbage")
    assert.are.equal("ERR_DATA", code)
  end)
end)
