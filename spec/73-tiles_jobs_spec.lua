-- Tiles without a cache and builds off the Lua thread (no ../shared
-- needed): navmesh.buildTile gives the tiles of the whole tiled build,
-- navmesh.tileGrid the mesh they fit, mesh:getTile reads a tile without
-- removing it, mesh:tiles lists them, addTile(bytes, {ref = oldRef}) gives
-- polygons their old references back, the build config's areaFlags sets
-- polygon flags by area; navmesh.buildJob and buildCacheJob build on a
-- worker thread.
package.path = "examples/?.lua;" .. package.path
local helper = require "helper"
local navmesh = require "navmesh"
local level = require "level"
local world = require "world"

local V, T, MARKS = level.triangles(nil, 2)
local CFG = { tileSize = 32 }

local function raised(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

describe("tiles without a cache", function()
  it("buildTile gives each tile of the tiled build; tileGrid the mesh they fit", function()
    local whole = assert(navmesh.build(V, T, CFG))
    local params, tx, ty = assert(navmesh.tileGrid(V, CFG))
    local info = whole:info()
    assert.are.equal(info.maxTiles, params.maxTiles)
    assert.are.equal(info.tileWidth, params.tileWidth)
    assert.is_true(tx * ty >= info.tiles)
    local m = navmesh.new(params)
    local empty = 0
    for y = 0, ty - 1 do
      for x = 0, tx - 1 do
        local bytes, msg, code = navmesh.buildTile(V, T, CFG, x, y)
        if bytes then
          assert(m:addTile(bytes))
          assert.are.equal(helper.tile_content(whole:getTile(x, y)), helper.tile_content(bytes))
        else
          assert.are.equal("ERR_EMPTY", code)
          assert.is_truthy(msg:find("^buildTile: "))
          assert.is_nil(whole:getTile(x, y))
          empty = empty + 1
        end
      end
    end
    assert.are.equal(tx * ty - empty, info.tiles)
    -- added in grid order, as the build adds them: the same mesh, links included
    assert.are.equal(whole:saveString("native"), m:saveString("native"))
  end)

  it("getTile reads a tile without removing it; tiles lists them", function()
    local m = assert(navmesh.build(V, T, CFG))
    local list = m:tiles()
    assert.are.equal(m:info().tiles, #list)
    local polys = 0
    for _, t in ipairs(list) do
      local bytes = assert(m:getTile(t.x, t.y, t.layer))
      assert.are.equal(t.bytes, #bytes)
      assert.is_true(m:isValidPolyRef(t.ref))
      polys = polys + t.polys
    end
    assert.are.equal(m:info().polys, polys)
    local t = list[2]
    assert.are.equal(m:getTile(t.x, t.y), m:removeTile(t.x, t.y)) -- what removeTile gives
    assert.are.same({ nil, ("getTile: no tile at (%d, %d, layer 0)"):format(t.x, t.y), "ERR_PARAM" },
                    { m:getTile(t.x, t.y) })
    assert.are.equal(#list - 1, #m:tiles())
  end)

  it("addTile(bytes, {ref = oldRef}) brings a tile back at its old references", function()
    local m = assert(navmesh.build(V, T, CFG))
    local S = MARKS.S
    local ref = assert(m:findNearestPoly(S[1], S[2], S[3]))
    local tx, ty, tref = m:tileAt(S[1], S[3])
    local bytes = assert(m:removeTile(tx, ty))
    assert.is_false(m:isValidPolyRef(ref))
    local other = m:tiles()[1] -- the freed slot would be taken first: take it
    local ob = m:removeTile(other.x, other.y)
    assert.are.equal(tref, m:addTile(bytes, { ref = tref }))
    assert.is_true(m:isValidPolyRef(ref))
    assert.are.equal(ref, (m:findNearestPoly(S[1], S[2], S[3])))
    assert(m:addTile(ob))
    -- a reference whose slot is taken: nil, msg, ERR_FULL
    local b2 = m:removeTile(tx, ty)
    local ok, _, code = m:addTile(b2, { ref = other.ref + 0 })
    if other.ref ~= tref then
      assert.is_nil(ok)
      assert.are.equal("ERR_FULL", code)
    end
    assert.is_truthy(raised(m.addTile, m, b2, { ref = -1 }):find("^bad option 'ref' to 'NavMesh:addTile'"))
    assert.is_truthy(raised(m.addTile, m, b2, { rfe = 1 }):find("^unknown option 'rfe'"))
  end)

  it("areaFlags gives polygons their flags by area (also in rebuilt tiles)", function()
    local mud = { kind = "box", bmin = { 40, -1, 8 }, bmax = { 44, 1, 14 }, area = 5 }
    local cfg = { tileSize = 32, areas = { mud }, areaFlags = { [0] = 1, [5] = 8 } }
    local m = assert(navmesh.build(V, T, cfg))
    local counts = {}
    for _, ref in ipairs(m:polyRefs()) do
      local a, f = m:getPolyArea(ref), m:getPolyFlags(ref)
      assert.are.equal(a == 5 and 8 or 1, f)
      counts[a] = (counts[a] or 0) + 1
    end
    assert.is_true(counts[5] > 0 and counts[0] > 0)
    local t = m:tiles()[1]
    local rebuilt = assert(navmesh.buildTile(V, T, cfg, t.x, t.y))
    assert.are.equal(helper.tile_content(m:getTile(t.x, t.y)), helper.tile_content(rebuilt))
    assert.is_truthy(raised(navmesh.build, V, T, { areaFlags = { [2] = 70000 } })
      :find("^bad option 'areaFlags%[2%]' to 'navmesh.build' %(flags in 0..65535 expected, got 70000%)"))
    assert.is_truthy(raised(navmesh.build, V, T, { areaFlags = { x = 1 } }):find("area keys in 0..63 expected"))
  end)

  it("raises for bad tile coordinates and configs", function()
    local _, tx = navmesh.tileGrid(V, CFG)
    assert.are.equal(("bad argument #4 to 'navmesh.buildTile' (tile x in 0..%d expected (the grid is %d tiles), got %d)")
                     :format(tx - 1, tx, tx), raised(navmesh.buildTile, V, T, CFG, tx, 0))
    assert.is_truthy(raised(navmesh.buildTile, V, T, {}, 0, 0):find("^bad argument #3 to 'navmesh.buildTile'"))
    assert.is_truthy(raised(navmesh.buildTile, V, T, nil, 0, 0):find("table expected"))
    assert.is_truthy(raised(navmesh.tileGrid, V, {}):find("^bad argument #2 to 'navmesh.tileGrid'"))
    local m = assert(navmesh.build(V, T, CFG))
    assert.is_truthy(raised(m.getTile, m, 0.5, 0):find("^bad argument #1 to 'NavMesh:getTile'"))
  end)
end)

describe("navmesh.buildJob", function()
  local WV, WT = world.triangles()

  local function wait(job)
    local last = -1
    while true do
      local done = job:progress()
      assert.is_true(done >= last) -- progress never goes back
      last = done
      local m, stats, code = job:result()
      if m or stats then return m, stats, code end
    end
  end

  it("builds on a worker thread: result() is nil while it runs, then what build returns", function()
    local cfg = { tileSize = 16 }
    local want = assert(navmesh.build(WV, WT, cfg))
    local job = navmesh.buildJob(WV, WT, cfg, { maxNodes = 100 })
    assert.is_truthy(tostring(job):find("^navmesh.BuildJob"))
    local m, stats = wait(job)
    assert.are.equal(want:saveString("native"), m:saveString("native"))
    assert.are.equal(want:info().tiles, stats.tiles)
    assert.are.equal(100, m:info().maxNodes)
    local done, total = job:progress()
    assert.are.equal(done, total)
    assert.are.equal(m, (job:result())) -- the same handle again
    job:close()
    assert.is_truthy(m:path(MARKS.S[1], 0, MARKS.S[3], MARKS.S[1] + 1, 0, MARKS.S[3])) -- outlives the job
    assert.has_error(function() job:result() end, "BuildJob:result: attempt to use a closed navmesh.BuildJob")
  end)

  it("cancels: result() gives nil, msg, ERR_CANCELLED (unless it had finished)", function()
    local job = navmesh.buildJob(WV, WT, { tileSize = 8, cellSize = 0.1 })
    job:cancel()
    local m, msg, code = wait(job)
    if m then
      print("# the build finished before the cancel reached it")
    else
      assert.are.equal("ERR_CANCELLED", code)
      assert.is_truthy(msg:find("^buildJob: cancelled"))
      assert.are.same({ nil, msg, code }, { job:result() })
    end
    job:close()
  end)

  it("can be closed or dropped while it runs", function()
    for _ = 1, 3 do navmesh.buildJob(WV, WT, { tileSize = 8, cellSize = 0.1 }) end
    collectgarbage()
    collectgarbage()
    local job = navmesh.buildJob(WV, WT, { tileSize = 8, cellSize = 0.1 })
    job:close()
    job:close()
  end)

  it("buildCacheJob builds a tile cache on a worker thread: what buildCache returns", function()
    local want = assert(navmesh.buildCache(V, T, { tileSize = 32, maxObstacles = 8 }))
    local job = navmesh.buildCacheJob(V, T, { tileSize = 32, maxObstacles = 8 }, { maxNodes = 64 })
    local cache, mesh = wait(job)
    assert.are.equal(want:saveString(), cache:saveString())
    assert.are.equal(8, cache:info().maxObstacles)
    assert.are.equal(64, mesh:info().maxNodes)
    assert.are.same({ cache, mesh }, { job:result() })
    job:close()
    assert(cache:addObstacle { kind = "cylinder", center = { 17, 0, 5 }, radius = 1, height = 2 })
    assert.are.same({ true, 1 }, { cache:update() })
    cache:close()
    local j2 = navmesh.buildCacheJob(WV, WT, { cellSize = 0.1 })
    j2:cancel()
    local c2, msg, code = wait(j2)
    if c2 then
      print("# the cache build finished before the cancel reached it")
    else
      assert.are.equal("ERR_CANCELLED", code)
      assert.is_truthy(msg:find("^buildCacheJob: cancelled"))
    end
    j2:close()
    assert.is_truthy(raised(navmesh.buildCacheJob, V, T, { tileSize = 300 }):find("^bad option 'tileSize'"))
    assert.are.equal("ERR_EMPTY", select(3, navmesh.buildCacheJob(V, {})))
  end)

  it("refuses at once what build refuses before building; the rest comes as the result", function()
    local j, msg, code = navmesh.buildJob({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, {})
    assert.is_nil(j)
    assert.are.equal("ERR_EMPTY", code)
    assert.is_truthy(msg:find("^buildJob: "))
    j = navmesh.buildJob({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { 1, 2, 3 }) -- faces down: nothing walkable
    local m, msg2, code2 = wait(j)
    assert.is_nil(m)
    assert.are.equal("ERR_EMPTY", code2)
    assert.is_truthy(msg2:find("face down"))
    assert.is_truthy(raised(navmesh.buildJob, WV, WT, { cellSize = 0 }):find("^bad argument #3 to 'navmesh.buildJob'"))
    assert.are.equal("bad option 'progress' to 'navmesh.buildJob' (not called for a job: poll job:progress() instead)",
                     raised(navmesh.buildJob, WV, WT, { progress = print }))
  end)
end)
