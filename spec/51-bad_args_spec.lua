-- Bad arguments from Lua: NaN/inf coordinates, wrong types, bad options and
-- closed handles raise errors that say what is wrong (the messages are
-- checked); huge but finite coordinates are not errors and must give finite
-- answers or a nil, message, code outcome -- never a crash.
local navmesh = require "navmesh"

local NAN, INF = 0 / 0, math.huge

-- A 3 x 3 lattice of quads with a hole; returns the mesh and a valid ref.
local function small_mesh()
  local v, polys = {}, {}
  for j = 0, 3 do
    for i = 0, 3 do v[#v + 1], v[#v + 2], v[#v + 3] = i * 4, 0, j * 4 end
  end
  for j = 0, 2 do
    for i = 0, 2 do
      if not (i == 1 and j == 1) then
        local a = j * 4 + i + 1
        polys[#polys + 1] = { a, a + 1, a + 5, a + 4 }
      end
    end
  end
  local m = assert(navmesh.fromPolygons{ vertices = v, polygons = polys })
  return m, (m:findNearestPoly(2, 0, 2))
end

local function finite(...)
  for i = 1, select("#", ...) do
    local x = select(i, ...)
    if type(x) ~= "number" or x ~= x or x == INF or x == -INF then return false end
  end
  return true
end

-- Asserts fn raises an error whose message matches pattern.
local function raises(pattern, fn)
  local ok, err = pcall(fn)
  assert.is_false(ok)
  assert.is_string(err)
  if not err:find(pattern) then
    error(("error message %q does not match %q"):format(err, pattern), 2)
  end
end

local COORD = "bad argument #%d+ to '[^']*' %(coordinate must be a finite number%)"

describe("bad arguments", function()
  local m, ref
  before_each(function() m, ref = small_mesh() end)
  after_each(function() m:close() end)

  it("NaN and infinite coordinates raise in every query", function()
    for _, bad in ipairs { NAN, INF, -INF, 1e39, -1e300 } do
      raises(COORD, function() local r = m:findNearestPoly(bad, 0, 0) return r end)
      raises(COORD, function() local r = m:findNearestPoly(0, 0, 0, 2, bad, 2) return r end)
      raises(COORD, function() local r = m:findPath(ref, ref, 0, bad, 0, 1, 0, 1) return r end)
      raises(COORD, function() local r = m:findPath(ref, ref, 0, 0, 0, 1, 0, bad) return r end)
      raises(COORD, function() local r = m:findStraightPath(bad, 0, 0, 1, 0, 1, { ref }) return r end)
      raises(COORD, function() local r = m:path(0, 0, 0, 1, bad, 1) return r end)
      raises(COORD, function() local r = m:closestPointOnPoly(ref, 0, 0, bad) return r end)
      raises(COORD, function() local r = m:closestPointOnPolyBoundary(ref, bad, 0, 0) return r end)
      raises(COORD, function() local r = m:getPolyHeight(ref, 0, bad, 0) return r end)
      raises(COORD, function() local r = m:tileAt(bad, 0) return r end)
    end
  end)

  it("wrong types raise with the expected type named", function()
    raises("number expected, got string", function() local r = m:findNearestPoly("x", 0, 0) return r end)
    raises("number expected, got no value", function() local r = m:findNearestPoly(0, 0) return r end)
    raises("number expected, got nil", function() local r = m:findNearestPoly(0, nil, 0) return r end)
    raises("number expected, got table", function() local r = m:findPath({}, ref, 0, 0, 0, 1, 0, 1) return r end)
    raises("navmesh.Filter expected", function() local r = m:findNearestPoly(0, 0, 0, 1, 1, 1, {}) return r end)
    raises("table expected, got number", function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, 5) return r end)
    raises("string expected, got nil", function() local r = navmesh.loadString(nil) return r end)
    raises("string expected, got table", function() local r = navmesh.loadString({}) return r end)
    raises("string expected, got boolean", function() local r = navmesh.load(true) return r end)
    raises("table expected", function() local r = navmesh.fromPolygons("x") return r end)
    raises("table expected", function() local r = navmesh.new(7) return r end)
    raises("navmesh.NavMesh expected", function() local r = m.findNearestPoly({}, 0, 0, 0) return r end)
  end)

  it("bad references, lists and options raise", function()
    raises("invalid polygon reference", function() local r = m:findPath(0, ref, 0, 0, 0, 1, 0, 1) return r end)
    raises("invalid polygon reference", function() local r = m:findPath(ref, 0x7fffffff, 0, 0, 0, 1, 0, 1) return r end)
    raises("invalid polygon reference", function() local r = m:findPath(-1, ref, 0, 0, 0, 1, 0, 1) return r end)
    raises("invalid polygon reference", function() local r = m:getPolyVerts(2 ^ 32) return r end)
    raises("empty polygon list", function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, {}) return r end)
    raises("polygon list must hold polygon references",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref, "x" }) return r end)
    raises("bad option 'inset' %(out of range%)",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { inset = -1 }) return r end)
    raises("bad option 'inset' %(out of range%)",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { inset = NAN }) return r end)
    raises("bad option 'crossings'",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { crossings = "some" }) return r end)
    raises("unknown option 'bogus'",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { bogus = 1 }) return r end)
    raises("half extents must be >= 0", function() local r = m:findNearestPoly(0, 0, 0, 1, -1, 1) return r end)
    raises("bad option 'maxNodes'", function() local r = navmesh.loadString(m:saveString(), { maxNodes = 0 }) return r end)
    raises("bad option 'tileWidth' %(out of range%)", function() local r = navmesh.new{ tileWidth = NAN } return r end)
    raises("costs must be finite numbers >= 0", function() local r = navmesh.filter{ areaCost = { [1] = INF } } return r end)
    raises("costs must be finite numbers >= 0", function() local r = navmesh.filter{ areaCost = { [1] = -1 } } return r end)
    raises("item 2 is not a finite number", function()
      local r = navmesh.fromPolygons{ vertices = { 0, NAN, 0, 1, 0, 0, 1, 0, 1 }, polygons = { { 1, 2, 3 } } }
      return r
    end)
    raises("vertex index 3 out of range", function()
      local r = navmesh.fromPolygons{ vertices = { 0, 0, 0, 1, 0, 0, 1, 0, 1 }, polygons = { { 1, 2, 4 } } }
      return r
    end)
  end)

  it("a closed handle raises", function()
    m:close()
    raises("attempt to use a closed navmesh.NavMesh", function() local r = m:findNearestPoly(0, 0, 0) return r end)
    raises("attempt to use a closed navmesh.NavMesh", function() local r = m:saveString() return r end)
    m:close() -- idempotent
  end)

  it("bad bytes are outcomes: nil, message, code", function()
    for _, s in ipairs { "", "x", "TESM", "VAND", "NMSH", ("\0"):rep(200), m:saveString():sub(1, 60) } do
      local r, msg, code = navmesh.loadString(s)
      assert.is_nil(r)
      assert.is_truthy(msg:find("^loadString: corrupt or incompatible navmesh data"), msg)
      assert.are.equal("ERR_DATA", code)
    end
    local r, msg, code = navmesh.load("/nonexistent/level.bin")
    assert.is_nil(r)
    assert.is_truthy(msg:find("^cannot open /nonexistent/level.bin"), msg)
    assert.are.equal("ERR_IO", code)
  end)

  it("a huge search box over a sparse tile grid does not walk every cell", function()
    -- two tiles 2e8 cells apart: the box below spans 4e16 grid cells
    local function le32(v)
      v = v % 4294967296
      local b = {}
      for i = 1, 4 do b[i] = string.char(v % 256); v = math.floor(v / 256) end
      return table.concat(b)
    end
    local npolys = #m:polyRefs()
    local blob = m:removeTile(0, 0)
    local function at(x, y) return blob:sub(1, 8) .. le32(x) .. le32(y) .. blob:sub(17) end
    local sparse = navmesh.new{ origin = { 0, 0, 0 }, tileWidth = 12, maxTiles = 4, maxPolys = 16 }
    assert.is_truthy(sparse:addTile(at(0, 0)))
    assert.is_truthy(sparse:addTile(at(-200000000, 200000000)))
    local r, x, y, z = sparse:findNearestPoly(2, 0, 2, 1e12, 10, 1e12)
    assert.is_true(sparse:isValidPolyRef(r) and finite(x, y, z))
    if sparse.queryPolygons then
      local refs = sparse:queryPolygons(2, 0, 2, 1e12, 10, 1e12)
      assert.are.equal(2 * npolys, #refs) -- every polygon of both copies of the tile
    end
    sparse:close()
  end)

  it("degenerate requests answer: a path from a point to itself (A* and optimal)", function()
    for _, opts in ipairs { {}, { optimal = true }, { optimal = true, inset = 0.3 } } do
      local pts = m:path(2, 0, 2, 2, 0, 2, opts)
      assert.is_true(#pts >= 3 and #pts % 3 == 0)
      assert.is_true(finite(pts[1], pts[2], pts[3]) and math.abs(pts[1] - 2) < 1e-3 and math.abs(pts[3] - 2) < 1e-3)
    end
    local polys = m:findPath(ref, ref, 2, 0, 2, 2, 0, 2, nil, { optimal = true })
    assert.are.same({ ref }, polys)
  end)

  it("A* with zero area costs and far-away end points (NaN costs) ends", function()
    local v, polys = {}, {}
    for j = 0, 5 do for i = 0, 5 do v[#v + 1], v[#v + 2], v[#v + 3] = i * 4, 0, j * 4 end end
    for j = 0, 4 do
      for i = 0, 4 do local a = j * 6 + i + 1; polys[#polys + 1] = { a, a + 1, a + 7, a + 6 } end
    end
    local grid = navmesh.fromPolygons{ vertices = v, polygons = polys }
    local f = navmesh.filter{ areaCost = { [0] = 0 } } -- 0 * inf distance = NaN
    local a, b = grid:findNearestPoly(1, 0, 1), grid:findNearestPoly(19, 0, 19)
    for _, big in ipairs { 3e38, 1e30 } do
      local p = grid:findPath(a, b, big, 0, big, -big, 0, -big, f)
      assert.is_true(#p >= 1 and p[1] == a)
      for _, r in ipairs(p) do assert.is_true(grid:isValidPolyRef(r)) end
    end
    grid:close()
  end)

  it("build and OBJ input: bad arguments raise, bad data is an outcome", function()
    if not navmesh.build then return print("# SKIP navmesh.build is not in this library yet") end
    local v, t = { 0, 0, 0, 10, 0, 0, 10, 0, 10, 0, 0, 10 }, { 1, 3, 2, 1, 4, 3 }
    raises("item 2 is not a finite number",
           function() local r = navmesh.build({ 0, NAN, 0, 10, 0, 0, 10, 0, 10 }, { 1, 2, 3 }) return r end)
    raises("item 4 is not a finite number",
           function() local r = navmesh.build({ 0, 0, 0, INF, 0, 0, 10, 0, 10 }, { 1, 2, 3 }) return r end)
    raises("index 3 is not a vertex number in 1..4", function() local r = navmesh.build(v, { 1, 2, 9 }) return r end)
    raises("length a multiple of 3", function() local r = navmesh.build(v, { 1, 2 }) return r end)
    raises("table expected, got string", function() local r = navmesh.build("x", t) return r end)
    raises("unknown option 'bogus'", function() local r = navmesh.build(v, t, { bogus = 1 }) return r end)
    raises("cellSize must be > 0", function() local r = navmesh.build(v, t, { cellSize = 0 }) return r end)
    raises("bad option 'cellSize' %(out of range%)", function() local r = navmesh.build(v, t, { cellSize = NAN }) return r end)
    local r, msg, code = navmesh.build({ 0, 0, 0, 10, 10, 0, 10, 0, 0 }, { 1, 2, 3 }) -- a wall: nothing walkable
    assert.is_nil(r)
    assert.are.equal("ERR_EMPTY", code)
    assert.is_truthy(msg:find("^build: input produced no walkable polygons"), msg)
    r, msg, code = navmesh.parseObj("v 1 nan 2\nf 1 2 3\n")
    assert.is_nil(r)
    assert.are.equal("ERR_DATA", code)
    assert.is_truthy(msg:find("^parseObj: .*line 1"), msg)
    r, msg, code = navmesh.buildObj("/nonexistent/level.obj")
    assert.is_nil(r)
    assert.are.equal("ERR_IO", code)
  end)

  it("huge finite coordinates give finite answers or outcomes, never a crash", function()
    for _, big in ipairs { 3e38, -3e38, 1e30, -1e20 } do
      local x, y, z, over = m:closestPointOnPoly(ref, big, 0, big)
      assert.is_true(finite(x, y, z))
      assert.is_boolean(over)
      x, y, z = m:closestPointOnPolyBoundary(ref, big, big, -big)
      assert.is_true(finite(x, y, z))
      local h, msg = m:getPolyHeight(ref, big, 0, big)
      assert.is_true(h == nil and type(msg) == "string" or finite(h))
      local e = math.abs(big)
      local r, nx, ny, nz = m:findNearestPoly(big, 0, big, e, e, e)
      assert.is_true(r == nil or (m:isValidPolyRef(r) and finite(nx, ny, nz)))
      r, nx, ny, nz = m:findNearestPoly(2, 0, 2, e, e, e)
      assert.is_true(m:isValidPolyRef(r) and finite(nx, ny, nz))
      local polys = m:findPath(ref, ref, big, 0, big, -big, 0, -big)
      assert.are.equal(1, #polys)
      local far = m:findNearestPoly(10, 0, 10)
      polys = m:findPath(ref, far, big, 0, big, -big, 0, -big)
      assert.is_true(#polys >= 1)
      local pts = m:findStraightPath(big, 0, big, -big, 0, -big, polys, { inset = 0.5, crossings = "all" })
      for i = 1, #pts do assert.is_true(finite(pts[i])) end
      local path = m:path(big, 0, big, 2, 0, 2)
      assert.is_true(path == nil or #path >= 3)
      local tx, ty = m:tileAt(big, -big)
      assert.is_true(math.abs(tx) <= 2 ^ 29 and math.abs(ty) <= 2 ^ 29)
    end
  end)
end)
