-- The Lua contract of building: navmesh.build, navmesh.buildObj,
-- navmesh.parseObj. Return shapes, raise vs nil/msg/code, config checking,
-- bad input, the stats table, the progress callback, determinism across runs
-- and thread counts, save/load round trips.
local navmesh = require "navmesh"
local geom = require "buildgeom"

-- A 20 x 20 floor with two boxes on it (enough for a few tiles).
local function yard()
  local s = geom.scene()
  s:floor(0, 0, 20, 20, 0)
  s:box(5, 0, 5, 8, 2, 12)
  s:box(12, 0, 3, 15, 1.2, 6)
  return s
end

local function tmpname()
  local name = os.tmpname()
  return name
end

local function write_file(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- The yard as OBJ text (CR LF, quads, a comment, v/vt/vn faces).
local function yard_obj()
  local s = yard()
  local out = { "# yard\r\n" }
  for i = 1, #s.vertices, 3 do
    out[#out + 1] = ("v %.6f %.6f %.6f\r\n"):format(s.vertices[i], s.vertices[i + 1], s.vertices[i + 2])
  end
  out[#out + 1] = "vn 0 1 0\r\n"
  for i = 1, #s.triangles, 3 do
    out[#out + 1] = ("f %d//1 %d/1/1 %d\r\n"):format(s.triangles[i], s.triangles[i + 1], s.triangles[i + 2])
  end
  return table.concat(out)
end

describe("navmesh.build", function()
  local s = yard()

  it("returns a mesh and a stats table", function()
    local mesh, stats = navmesh.build(s.vertices, s.triangles)
    assert.equal("userdata", type(mesh))
    assert.is_table(stats)
    assert.equal(1, stats.tiles)
    assert.is_true(stats.polys > 0)
    assert.equal(stats.polys, mesh:info().polys)
    assert.is_true(stats.peakBytes > 0)
    for _, k in ipairs { "rasterize", "filter", "compact", "erode", "areas", "distance", "regions",
                         "contours", "polymesh", "detail", "tiledata", "total" } do
      assert.is_number(stats.ms[k])
      assert.is_true(stats.ms[k] >= 0)
    end
    mesh:close()
  end)

  it("builds tiled meshes with one tile per non-empty grid cell", function()
    local mesh, stats = navmesh.build(s.vertices, s.triangles, { tileSize = 16 })
    local info = mesh:info()
    -- 20 wu / 0.3 = 67 cells -> 5 x 5 tiles of 16 cells (4.8 wu); the last
    -- row and column hold less than a cell of the eroded floor: empty, not stored
    assert.equal(16, stats.tiles)
    assert.equal(16, info.tiles)
    assert.near(4.8, info.tileWidth, 1e-5)
    assert.equal(32, info.maxTiles)          -- nextPow2(25)
    assert.equal(131072, info.maxPolys)        -- 2^(22 - 5)
  end)

  it("accepts every config key with RecastDemo's meaning", function()
    local mesh = navmesh.build(s.vertices, s.triangles, {
      cellSize = 0.3, cellHeight = 0.2, agentHeight = 2, agentRadius = 0.6, agentMaxClimb = 0.9,
      agentMaxSlope = 45, regionMinSize = 8, regionMergeSize = 20, edgeMaxLen = 12, edgeMaxError = 1.3,
      vertsPerPoly = 6, detailSampleDist = 6, detailSampleMaxError = 1, partition = "monotone",
      tileSize = 32, threads = 2, areas = {}, offMeshConnections = {}, progress = function() end,
      bounds = { 0, -1, 0, 20, 3, 20 }, filterLowHangingObstacles = true, filterLedgeSpans = true,
      filterWalkableLowHeightSpans = false, memoryLimit = 1e9,
    })
    assert.is_true(mesh:info().polys > 0)
  end)

  it("gives the same mesh for an absent config and RecastDemo's defaults", function()
    local a = navmesh.build(s.vertices, s.triangles)
    local b = navmesh.build(s.vertices, s.triangles, {
      cellSize = 0.3, cellHeight = 0.2, agentHeight = 2.0, agentRadius = 0.6, agentMaxClimb = 0.9,
      agentMaxSlope = 45, regionMinSize = 8, regionMergeSize = 20, edgeMaxLen = 12, edgeMaxError = 1.3,
      vertsPerPoly = 6, detailSampleDist = 6, detailSampleMaxError = 1, partition = "watershed" })
    assert.equal(a:saveString(), b:saveString())
  end)

  describe("raises on programmer errors", function()
    it("wrong argument types", function()
      assert.has_error(function() navmesh.build("x", s.triangles) end)
      assert.has_error(function() navmesh.build(s.vertices, 3) end)
      assert.has_error(function() navmesh.build(s.vertices, s.triangles, 5) end)
    end)
    it("unknown config keys", function()
      assert.has_error(function() navmesh.build(s.vertices, s.triangles, { cellsize = 0.3 }) end,
        "unknown option 'cellsize' to 'navmesh.build' (did you mean 'cellSize'?)")
    end)
    it("out-of-range values", function()
      for _, bad in ipairs {
        { cellSize = 0 }, { cellSize = -1 }, { cellHeight = 0 }, { vertsPerPoly = 2 }, { vertsPerPoly = 7 },
        { agentMaxSlope = 91 }, { agentHeight = 0 }, { threads = 0 }, { tileSize = -32 },
        { partition = "voronoi" }, { agentRadius = 0 / 0 }, { edgeMaxLen = math.huge },
        { filterLedgeSpans = 1 }, { progress = 3 }, { bounds = { 0, 0, 0, 1, 1 } },
      } do
        assert.has_error(function() navmesh.build(s.vertices, s.triangles, bad) end)
      end
    end)
    it("names the field in the message", function()
      local ok, err = pcall(navmesh.build, s.vertices, s.triangles, { vertsPerPoly = 7 })
      assert.is_false(ok)
      assert.matches("vertsPerPoly", err)
      ok, err = pcall(navmesh.build, s.vertices, s.triangles, { cellSize = 0 })
      assert.matches("cellSize", err)
    end)
    it("NaN and infinite vertices", function()
      local v = { 0, 0, 0, 1, 0, 0, 0 / 0, 0, 1 }
      assert.has_error(function() navmesh.build(v, { 1, 2, 3 }) end)
      v[7] = math.huge
      assert.has_error(function() navmesh.build(v, { 1, 2, 3 }) end)
    end)
    it("vertex lists that are not whole points, indices out of range", function()
      assert.has_error(function() navmesh.build({ 0, 0, 0, 1 }, { 1, 1, 1 }) end)
      assert.has_error(function() navmesh.build({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { 1, 2, 4 }) end)
      assert.has_error(function() navmesh.build({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { 0, 1, 2 }) end)
      assert.has_error(function() navmesh.build({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { 1, 2 }) end)
      assert.has_error(function() navmesh.build({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { 1, 2, 2.5 }) end)
    end)
    it("grids too large for the memory limit, before allocating them", function()
      local big = { 0, 0, 0, 100000, 0, 0, 0, 0, 100000 }
      local ok, err = pcall(navmesh.build, big, { 1, 3, 2 }, { cellSize = 0.01 })
      assert.is_false(ok)
      assert.matches("cellSize", err)
      ok, err = pcall(navmesh.build, s.vertices, s.triangles, { memoryLimit = 1000 })
      assert.is_false(ok)
      assert.matches("memory limit", err)
    end)
    it("malformed area volumes and off-mesh connections", function()
      for _, bad in ipairs {
        { areas = { { kind = "sphere", area = 1 } } },
        { areas = { { kind = "box", bmin = { 0, 0, 0 }, area = 1 } } },
        { areas = { { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 }, area = 63 } } },
        { areas = { { kind = "convex", vertices = { 0, 0, 0, 1, 0, 0 }, hmin = 0, hmax = 1 } } },
        { areas = { { kind = "cylinder", center = { 0, 0, 0 }, radius = 0, height = 1 } } },
        { areas = { { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 }, colour = 1 } } },
        { offMeshConnections = { { start = { 0, 0, 0 } } } },
      } do
        assert.has_error(function() navmesh.build(s.vertices, s.triangles, bad) end)
      end
    end)
  end)

  describe("returns nil, msg, code on outcomes", function()
    it("empty geometry", function()
      local mesh, msg, code = navmesh.build({}, {})
      assert.is_nil(mesh)
      assert.equal("ERR_EMPTY", code)
      assert.matches("^build: ", msg)
    end)
    it("only zero-area triangles", function()
      local mesh, _, code = navmesh.build({ 0, 0, 0, 1, 0, 0, 2, 0, 0 }, { 1, 2, 3, 1, 1, 2 })
      assert.is_nil(mesh)
      assert.equal("ERR_EMPTY", code)
    end)
    it("geometry with nothing walkable (a wall)", function()
      local w = geom.scene()
      local a, b, c, d = w:vertex(0, 0, 0), w:vertex(0, 5, 0), w:vertex(10, 5, 0), w:vertex(10, 0, 0)
      w:quad(a, b, c, d)
      local mesh, _, code = navmesh.build(w.vertices, w.triangles)
      assert.is_nil(mesh)
      assert.equal("ERR_EMPTY", code)
      mesh, _, code = navmesh.build(w.vertices, w.triangles, { tileSize = 16 })
      assert.is_nil(mesh)
      assert.equal("ERR_EMPTY", code)
    end)
  end)

  it("ignores zero-area triangles", function()
    local t = {}
    for i = 1, #s.triangles do t[i] = s.triangles[i] end
    local v = {}
    for i = 1, #s.vertices do v[i] = s.vertices[i] end
    local n = math.floor(#v / 3)
    -- a collinear sliver hanging above the floor and a triangle with a repeated corner
    v[#v + 1], v[#v + 2], v[#v + 3] = 1, 1, 1
    v[#v + 1], v[#v + 2], v[#v + 3] = 10, 1, 10
    v[#v + 1], v[#v + 2], v[#v + 3] = 19, 1, 19
    t[#t + 1], t[#t + 2], t[#t + 3] = n + 1, n + 2, n + 3
    t[#t + 1], t[#t + 2], t[#t + 3] = 1, 1, 2
    local a = navmesh.build(s.vertices, s.triangles, { bounds = { 0, -1, 0, 20, 3, 20 } })
    local b = navmesh.build(v, t, { bounds = { 0, -1, 0, 20, 3, 20 } })
    assert.equal(a:saveString(), b:saveString())
  end)
end)

describe("progress callback", function()
  local s = yard()
  it("is called with (done, total) in grid order, ending at total", function()
    local calls = {}
    local mesh = navmesh.build(s.vertices, s.triangles, { tileSize = 16, progress = function(done, total)
      calls[#calls + 1] = { done, total }
    end })
    assert.truthy(mesh)
    assert.equal(25, #calls)
    for i, c in ipairs(calls) do
      assert.equal(i, c[1])
      assert.equal(25, c[2])
    end
  end)
  it("is called once with (1, 1) for a solo build", function()
    local calls = {}
    navmesh.build(s.vertices, s.triangles, { progress = function(d, t) calls[#calls + 1] = d .. "/" .. t end })
    assert.same({ "1/1" }, calls)
  end)
  it("runs on the calling thread also with several threads", function()
    local n = 0
    local mesh = navmesh.build(s.vertices, s.triangles, { tileSize = 16, threads = 2, progress = function(d, t)
      n = n + 1
      assert(d == n and t == 25)
      local junk = {}
      for i = 1, 100 do junk[i] = { i } end   -- allocates while workers build
    end })
    assert.truthy(mesh)
    assert.equal(25, n)
  end)
  it("may collect garbage: the inputs stay alive during the build", function()
    local ref = navmesh.build(s.vertices, s.triangles, { tileSize = 16 }):saveString()
    for _, threads in ipairs { 1, 2 } do
      local v, t = {}, {}
      for i = 1, #s.vertices do v[i] = s.vertices[i] end
      for i = 1, #s.triangles do t[i] = s.triangles[i] end
      local mesh = navmesh.build(v, t, { tileSize = 16, threads = threads, progress = function()
        collectgarbage()
        collectgarbage()
      end })
      assert.equal(ref, mesh:saveString())
    end
  end)
  it("cancels the build by raising; the error comes through", function()
    for _, threads in ipairs { 1, 2 } do
      local n = 0
      assert.has_error(function()
        navmesh.build(s.vertices, s.triangles, { tileSize = 16, threads = threads, progress = function(d)
          n = n + 1
          if d == 3 then error("stop here") end
        end })
      end, nil)
      assert.equal(3, n)
      local ok, err = pcall(navmesh.build, s.vertices, s.triangles, { tileSize = 16, threads = threads,
        progress = function() error({ code = 42 }) end })
      assert.is_false(ok)
      assert.same({ code = 42 }, err)
    end
  end)
end)

describe("determinism", function()
  local s = yard()
  it("gives byte-identical saved meshes on every run and with 1, 2 and 4 threads", function()
    local ref = navmesh.build(s.vertices, s.triangles, { tileSize = 16 }):saveString()
    for _, threads in ipairs { 1, 2, 4, 2, 4 } do
      local mesh = navmesh.build(s.vertices, s.triangles, { tileSize = 16, threads = threads })
      assert.equal(ref, mesh:saveString())
      assert.equal(ref, mesh:saveString("mset"))
    end
    local solo = navmesh.build(s.vertices, s.triangles):saveString()
    assert.equal(solo, navmesh.build(s.vertices, s.triangles):saveString())
  end)
end)

describe("saving", function()
  local s = yard()
  it("writes MSET files that load back to the same mesh", function()
    for _, cfg in ipairs { {}, { tileSize = 16 } } do
      local mesh = navmesh.build(s.vertices, s.triangles, cfg)
      local path = tmpname()
      assert.is_true(mesh:save(path))
      local f = assert(io.open(path, "rb"))
      local bytes = f:read("*a")
      f:close()
      os.remove(path)
      assert.equal("TESM", bytes:sub(1, 4))
      local back = assert(navmesh.loadString(bytes))
      assert.equal(mesh:info().polys, back:info().polys)
      assert.equal(bytes, back:saveString())
    end
  end)
end)

describe("navmesh.parseObj", function()
  it("returns flat vertex and 1-based triangle lists", function()
    local v, t = navmesh.parseObj("v 0 0 0\nv 1 0 0\nv 1 0 1\r\nv 0 0 1\nf 1/1 2/2 3/3 4/4\nf -1 -2 -3\n")
    assert.same({ 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1 }, v)
    assert.same({ 1, 2, 3, 1, 3, 4, 4, 3, 2 }, t)
  end)
  it("returns nil, msg, ERR_DATA for malformed text", function()
    local v, msg, code = navmesh.parseObj("v 0 0\n")
    assert.is_nil(v)
    assert.equal("ERR_DATA", code)
    assert.matches("line 1", msg)
  end)
  it("raises on a non-string", function()
    assert.has_error(function() navmesh.parseObj({}) end)
  end)
end)

describe("navmesh.buildObj", function()
  it("builds the same mesh as navmesh.build on the same geometry", function()
    local path = tmpname()
    write_file(path, yard_obj())
    local a = assert(navmesh.buildObj(path, { tileSize = 16 }))
    local v, t = navmesh.parseObj(yard_obj())
    local b = assert(navmesh.build(v, t, { tileSize = 16 }))
    os.remove(path)
    assert.equal(a:saveString(), b:saveString())
  end)
  it("returns nil, msg, ERR_IO for a missing file", function()
    local mesh, msg, code = navmesh.buildObj("/nonexistent/level.obj")
    assert.is_nil(mesh)
    assert.equal("ERR_IO", code)
    assert.matches("level.obj", msg)
  end)
  it("returns nil, msg, ERR_DATA for a malformed file", function()
    local path = tmpname()
    write_file(path, "v 0 0 0\nv 1 0 x\nf 1 2 3\n")
    local mesh, msg, code = navmesh.buildObj(path)
    os.remove(path)
    assert.is_nil(mesh)
    assert.equal("ERR_DATA", code)
    assert.matches("line 2", msg)
  end)
  it("returns nil, msg, ERR_EMPTY for an empty file", function()
    local path = tmpname()
    write_file(path, "# nothing here\n")
    local mesh, _, code = navmesh.buildObj(path)
    os.remove(path)
    assert.is_nil(mesh)
    assert.equal("ERR_EMPTY", code)
  end)
  it("raises on bad config before reading the file", function()
    assert.has_error(function() navmesh.buildObj("/nonexistent/level.obj", { bogus = 1 }) end)
  end)
end)
