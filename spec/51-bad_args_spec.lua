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

local COORD = "bad argument #%d+ to 'NavMesh:[%a]+' %(coordinate must be a finite number, got [%w%-%+%.]+%)"

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
    raises("^[^:]*:%d+: bad argument #7 to 'NavMesh:findNearestPoly' %(navmesh.Filter expected, got table; make one with navmesh.filter{...}%)$",
           function() local r = m:findNearestPoly(0, 0, 0, 1, 1, 1, {}) return r end)
    raises("table expected, got number", function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, 5) return r end)
    raises("string expected, got nil", function() local r = navmesh.loadString(nil) return r end)
    raises("string expected, got table", function() local r = navmesh.loadString({}) return r end)
    raises("string expected, got boolean", function() local r = navmesh.load(true) return r end)
    raises("table expected", function() local r = navmesh.fromPolygons("x") return r end)
    raises("table expected", function() local r = navmesh.new(7) return r end)
    raises("calling 'NavMesh:findNearestPoly' on bad self %(navmesh.NavMesh expected, got table%)",
           function() local r = m.findNearestPoly({}, 0, 0, 0) return r end)
    raises("bad argument #1 to 'NavMesh:getPolyArea' %(number expected, got navmesh.Filter%)",
           function() local r = m:getPolyArea(navmesh.filter()) return r end)
  end)

  it("bad references, lists and options raise", function()
    raises("invalid polygon reference", function() local r = m:findPath(0, ref, 0, 0, 0, 1, 0, 1) return r end)
    raises("invalid polygon reference", function() local r = m:findPath(ref, 0x7fffffff, 0, 0, 0, 1, 0, 1) return r end)
    raises("invalid polygon reference", function() local r = m:findPath(-1, ref, 0, 0, 0, 1, 0, 1) return r end)
    raises("invalid polygon reference", function() local r = m:getPolyVerts(2 ^ 32) return r end)
    raises("empty polygon list", function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, {}) return r end)
    raises("polygon list must hold polygon references",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref, "x" }) return r end)
    raises("bad option 'inset' to 'NavMesh:findStraightPath' %(finite number >= 0 expected, got %-1%)",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { inset = -1 }) return r end)
    raises("bad option 'inset' to 'NavMesh:findStraightPath' %(finite number >= 0 expected, got nan%)",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { inset = NAN }) return r end)
    raises("bad option 'inset' to 'NavMesh:path' %(finite number >= 0 expected, got 'wide'%)",
           function() local r = m:path(0, 0, 0, 1, 0, 1, { inset = "wide" }) return r end)
    raises([[bad option 'crossings' to 'NavMesh:findStraightPath' %("none", "area" or "all" expected, got 'some'%)]],
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { crossings = "some" }) return r end)
    raises("unknown option 'bogus' to 'NavMesh:findStraightPath' %(known keys: crossings, inset, maxPoints, points, flags, refs%)",
           function() local r = m:findStraightPath(0, 0, 0, 1, 0, 1, { ref }, { bogus = 1 }) return r end)
    raises("unknown option 'Inset' to 'NavMesh:path' %(did you mean 'inset'%?%)",
           function() local r = m:path(0, 0, 0, 1, 0, 1, { Inset = 1 }) return r end)
    raises("bad option '%[1%]' to 'NavMesh:path' %(option names are strings, got key 1%)",
           function() local r = m:path(0, 0, 0, 1, 0, 1, { 0.5 }) return r end)
    raises("bad argument #4 to 'NavMesh:findNearestPoly' %(half extents must be >= 0",
           function() local r = m:findNearestPoly(0, 0, 0, 1, -1, 1) return r end)
    raises("bad option 'halfExtents' to 'NavMesh:path' %({x, y, z} >= 0 expected, got {1, %-1, 1}%)",
           function() local r = m:path(0, 0, 0, 1, 0, 1, { halfExtents = { 1, -1, 1 } }) return r end)
    raises("bad option 'maxNodes' to 'navmesh.loadString' %(integer in 1..4194304 expected, got 0%)",
           function() local r = navmesh.loadString(m:saveString(), { maxNodes = 0 }) return r end)
    raises("bad option 'maxPoints' to 'NavMesh:path' %(integer in 1..16777216 expected, got 2.5%)",
           function() local r = m:path(0, 0, 0, 1, 0, 1, { maxPoints = 2.5 }) return r end)
    raises("bad option 'tileWidth' to 'navmesh.new' %(finite number >= 0 expected, got nan%)",
           function() local r = navmesh.new{ tileWidth = NAN } return r end)
    raises("bad option 'areaCost%[1%]' to 'navmesh.filter' %(costs must be finite numbers >= 0, got inf%)",
           function() local r = navmesh.filter{ areaCost = { [1] = INF } } return r end)
    raises("bad option 'areaCost%[1%]' to 'navmesh.filter' %(costs must be finite numbers >= 0, got %-1%)",
           function() local r = navmesh.filter{ areaCost = { [1] = -1 } } return r end)
    raises("bad option 'include' to 'navmesh.filter' %(integer in 0..65535 expected, got 70000%)",
           function() local r = navmesh.filter{ include = 70000 } return r end)
    raises("bad argument #2 to 'Filter:areaCost' %(cost must be a finite number >= 0, got %-2%)",
           function() local r = navmesh.filter():areaCost(1, -2) return r end)
    raises("bad option 'vertices' to 'navmesh.fromPolygons' %(item 2: finite number expected, got nan%)", function()
      local r = navmesh.fromPolygons{ vertices = { 0, NAN, 0, 1, 0, 0, 1, 0, 1 }, polygons = { { 1, 2, 3 } } }
      return r
    end)
    raises("bad option 'polygons%[1%]%[3%]' to 'navmesh.fromPolygons' %(vertex index in 1..3 expected, got 4%)", function()
      local r = navmesh.fromPolygons{ vertices = { 0, 0, 0, 1, 0, 0, 1, 0, 1 }, polygons = { { 1, 2, 4 } } }
      return r
    end)
    raises("unknown option 'offMeshConnections%[1%]%.ned' to 'navmesh.fromPolygons' %(did you mean 'end'%?%)", function()
      local r = navmesh.fromPolygons{ vertices = { 0, 0, 0, 1, 0, 0, 1, 0, 1 }, polygons = { { 1, 2, 3 } },
                                      offMeshConnections = { { start = { 0, 0, 0 }, ned = { 1, 0, 1 } } } }
      return r
    end)
    raises("bad argument #2 to 'NavMesh:setPolyFlags' %(flags in 0..65535 expected, got 65536%)",
           function() local r = m:setPolyFlags(ref, 65536) return r end)
    raises("bad argument #1 to 'NavMesh:getPolyVerts' %(invalid polygon reference 123456 %(not in this mesh%)%)",
           function() local r = m:getPolyVerts(123456) return r end)
    raises("bad argument #1 to 'NavMesh:paths' %(item 5: finite number expected, got 'x'%)",
           function() local r = m:paths({ 0, 0, 0, 1, "x", 1 }) return r end)
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
    raises("bad argument #1 to 'navmesh.build' %(item 2: finite number expected, got nan%)",
           function() local r = navmesh.build({ 0, NAN, 0, 10, 0, 0, 10, 0, 10 }, { 1, 2, 3 }) return r end)
    raises("bad argument #1 to 'navmesh.build' %(item 4: finite number expected, got inf%)",
           function() local r = navmesh.build({ 0, 0, 0, INF, 0, 0, 10, 0, 10 }, { 1, 2, 3 }) return r end)
    raises("bad argument #2 to 'navmesh.build' %(item 3: vertex number in 1..4 expected, got 9%)",
           function() local r = navmesh.build(v, { 1, 2, 9 }) return r end)
    raises("bad argument #2 to 'navmesh.build' %(flat list of triples expected %(length a multiple of 3%), got length 2%)",
           function() local r = navmesh.build(v, { 1, 2 }) return r end)
    raises("bad argument #1 to 'navmesh.build' %(table expected, got string%)", function() local r = navmesh.build("x", t) return r end)
    raises("unknown option 'bogus' to 'navmesh.build' %(known keys: cellSize, ",
           function() local r = navmesh.build(v, t, { bogus = 1 }) return r end)
    raises("bad argument #3 to 'navmesh.build' %(cellSize must be > 0 %(got 0%)%)",
           function() local r = navmesh.build(v, t, { cellSize = 0 }) return r end)
    raises("bad option 'cellSize' to 'navmesh.build' %(finite number >= 0 expected, got nan%)",
           function() local r = navmesh.build(v, t, { cellSize = NAN }) return r end)
    raises("bad option 'threads' to 'navmesh.build' %(integer in 1..64 expected, got 100%)",
           function() local r = navmesh.build(v, t, { threads = 100 }) return r end)
    raises([[bad option 'partition' to 'navmesh.build' %("watershed", "monotone" or "layers" expected, got 'grid'%)]],
           function() local r = navmesh.build(v, t, { partition = "grid" }) return r end)
    raises("bad option 'progress' to 'navmesh.build' %(function expected, got true%)",
           function() local r = navmesh.build(v, t, { progress = true }) return r end)
    raises("bad option 'bounds%[2%]' to 'navmesh.build' %(finite number expected, got nan%)",
           function() local r = navmesh.build(v, t, { bounds = { 0, NAN, 0, 1, 1, 1 } }) return r end)
    -- inside the nested tables: the key path, not an argument number of their own
    raises("unknown option 'areas%[2%]%.aera' to 'navmesh.build' %(did you mean 'area'%?%)", function()
      local r = navmesh.build(v, t, { areas = { { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 } },
                                                { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 }, aera = 2 } } })
      return r
    end)
    raises("bad option 'areas%[1%]%.area' to 'navmesh.build' %(integer in %-1..62 expected, got 63%)", function()
      local r = navmesh.build(v, t, { areas = { { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 }, area = 63 } } })
      return r
    end)
    raises("bad option 'areas%[1%]%.radius' to 'navmesh.build' %(finite number >= 0 expected, got %-1%)", function()
      local r = navmesh.build(v, t, { areas = { { kind = "cylinder", center = { 0, 0, 0 }, radius = -1, height = 1 } } })
      return r
    end)
    raises("bad option 'areas%[1%]%.center%[3%]' to 'navmesh.build' %(finite number expected, got nil%)", function()
      local r = navmesh.build(v, t, { areas = { { kind = "cylinder", center = { 0, 0 }, radius = 1, height = 1 } } })
      return r
    end)
    raises([[bad option 'areas%[1%]%.kind' to 'navmesh.build' %("convex", "box" or "cylinder" expected, got 'sphere'%)]],
           function() local r = navmesh.build(v, t, { areas = { { kind = "sphere" } } }) return r end)
    raises("bad option 'areas%[1%]%.vertices' to 'navmesh.build' %(item 4: finite number expected, got inf%)", function()
      local r = navmesh.build(v, t, { areas = { { kind = "convex", vertices = { 0, 0, 0, INF, 0, 0, 1, 0, 1 } } } })
      return r
    end)
    raises("unknown option 'offMeshConnections%[1%]%.radious' to 'navmesh.build' %(did you mean 'radius'%?%)", function()
      local r = navmesh.build(v, t, { offMeshConnections = { { start = { 1, 0, 1 }, ["end"] = { 9, 0, 9 }, radious = 1 } } })
      return r
    end)
    raises("bad option 'offMeshConnections%[1%]%.flags' to 'navmesh.build' %(integer in 0..65535 expected, got %-1%)", function()
      local r = navmesh.build(v, t, { offMeshConnections = { { start = { 1, 0, 1 }, ["end"] = { 9, 0, 9 }, flags = -1 } } })
      return r
    end)
    local r, msg, code = navmesh.build({ 0, 0, 0, 10, 0, 10, 10, 10, 10 }, { 1, 2, 3 }) -- a wall: nothing walkable
    assert.is_nil(r)
    assert.are.equal("ERR_EMPTY", code)
    assert.are.equal("build: input produced no walkable polygons: no triangle is flatter than agentMaxSlope (45 degrees)", msg)
    r, msg, code = navmesh.parseObj("v 1 nan 2\nf 1 2 3\n")
    assert.is_nil(r)
    assert.are.equal("ERR_DATA", code)
    assert.are.equal("parseObj: bad OBJ data: line 1: a vertex needs three finite numbers", msg)
    r, msg, code = navmesh.buildObj("/nonexistent/level.obj")
    assert.is_nil(r)
    assert.are.equal("ERR_IO", code)
    assert.is_truthy(msg:find("^cannot open /nonexistent/level.obj: "), msg)
  end)

  it("wrongly wound triangles: the outcome says so and how to fix it", function()
    if not navmesh.build then return print("# SKIP navmesh.build is not in this library yet") end
    local v = { 0, 0, 0, 10, 0, 0, 10, 0, 10, 0, 0, 10 }
    for _, config in ipairs { {}, { tileSize = 16 } } do
      local r, msg, code = navmesh.build(v, { 1, 2, 3, 1, 3, 4 }, config) -- clockwise seen from above
      assert.is_nil(r)
      assert.are.equal("ERR_EMPTY", code)
      assert.are.equal("build: input produced no walkable polygons: 2 of 2 triangles face down " ..
                       "(wound clockwise seen from above): reverse them", msg)
      assert.is_truthy(navmesh.build(v, { 1, 3, 2, 1, 4, 3 }, config)) -- reversed: a floor
    end
    local r, msg = navmesh.build({ 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1 }, { 1, 3, 2, 1, 4, 3 }) -- smaller than the agent
    assert.is_nil(r)
    assert.are.equal("build: input produced no walkable polygons: 2 walkable triangles left no region " ..
                     "(regionMinSize, agentRadius, agentHeight)", msg)
  end)

  it("the OBJ reader counts what it drops", function()
    if not navmesh.parseObj then return print("# SKIP navmesh.parseObj is not in this library yet") end
    local text = "v 0 0 0\nv 20 0 0\nv 20 0 20\nv 0 0 20\nusemtl floor\ngarbage line\n" ..
                 "f 1 3 2\nf 1 4 3\nf 1 2\nf 1 3 9\n"
    local v, t, dropped = navmesh.parseObj(text)
    assert.are.equal(12, #v)
    assert.are.same({ 1, 3, 2, 1, 4, 3 }, t)
    assert.are.same({ lines = 1, faces = 2, triangles = 1 }, dropped)
    local _, _, clean = navmesh.parseObj("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 3 2\n")
    assert.are.same({ lines = 0, faces = 0, triangles = 0 }, clean)
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
    local mesh, stats = navmesh.buildObj(path)
    os.remove(path)
    assert.is_truthy(mesh, stats)
    assert.are.same({ lines = 1, faces = 2, triangles = 1 }, stats.dropped)
    mesh:close()
  end)

  it("names the function the user called, however it is called", function()
    -- a tail call or pcall(f, ...) leaves Lua no call site to name: still
    -- the public name, never navmesh.core.*, and arguments counted after self
    local NAME = "bad argument #1 to 'NavMesh:findNearestPoly' %(number expected, got string%)"
    raises(NAME, function() return m:findNearestPoly("x", 0, 0) end)
    local ok, err = pcall(m.findNearestPoly, m, "x", 0, 0)
    assert.is_false(ok)
    assert.is_truthy(err:find(NAME), err)
    ok, err = pcall(navmesh.build, "x", {})
    assert.is_false(ok)
    assert.are.equal("bad argument #1 to 'navmesh.build' (table expected, got string)", err)
    for _, e in ipairs { err, select(2, pcall(navmesh.filter, 5)), select(2, pcall(m.path, m, 0, 0, 0, 1, 0, 1, { filter = {} })) } do
      assert.is_nil(e:find("navmesh.core", 1, true), e)
      assert.is_nil(e:find("'?'", 1, true), e)
    end
    raises("bad option 'filter' to 'NavMesh:path' %(navmesh.Filter expected, got table; make one with navmesh.filter{...}%)",
           function() local r = m:path(0, 0, 0, 1, 0, 1, { filter = {} }) return r end)
    raises("bad option 'filter' to 'NavMesh:paths' %(navmesh.Filter expected, got table",
           function() local r = m:paths({}, { filter = {} }) return r end)
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
