-- Tile caches and temporary obstacles on the procedural level (no ../shared
-- needed): navmesh.buildCache of examples/level.lua's floor (2 m per map
-- cell), every kind of obstacle cuts and removing it gives the same tiles
-- back, moves, area-marking obstacles and path costs, padding, the update
-- budget, saving and loading, the obstacle list (and navmesh.debug drawing
-- it), the NavMesh handle's lifetime, and every bad input of the issue.
-- spec/72-cache_share_spec.lua covers sharing; examples/obstacles.lua runs
-- at the end.
package.path = "examples/?.lua;" .. package.path
local helper = require "helper"
local navmesh = require "navmesh"
local level = require "level"

local V, T, MARKS = level.triangles(nil, 2)
local S, E = MARKS.S, MARKS.E

local function make(config, opts)
  return assert(navmesh.buildCache(V, T, config, opts))
end

-- The tiles of a mesh by place, contents apart from links and references.
local canon = helper.tile_shapes

local function length(pts)
  local len = 0
  for i = 4, #pts, 3 do len = len + math.sqrt((pts[i] - pts[i - 3]) ^ 2 + (pts[i + 2] - pts[i - 1]) ^ 2) end
  return len
end

local function route(mesh, filter)
  return assert(mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { filter = filter }))
end

-- The polygon under (x, z) on the floor (its closest point within 0.2 m
-- horizontally), or nil.
local function on_mesh(mesh, x, z)
  local ref, px, _, pz = mesh:findNearestPoly(x, 0, z, 0.2, 1, 0.2)
  if ref and (px - x) ^ 2 + (pz - z) ^ 2 <= 0.04 then return ref end
  return nil
end

-- Raised message without the position prefix.
local function raised(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

-- Where the obstacles go: the middle of map cell (8, 2) in the west room
-- (cells 1..10 x 1..7), 2 m or more from any wall.
local ROOM = { 17, 5 }

describe("navmesh.buildCache", function()
  it("builds a cache and a NavMesh handle from triangles (tileSize 48 by default)", function()
    local cache, mesh = make()
    local info = cache:info()
    assert.are.equal(48, info.tileSize)
    assert.is_true(math.abs(info.cellSize - 0.3) < 1e-6)
    assert.is_true(info.layers > 4)
    assert.are.equal(info.layers, mesh:info().tiles) -- one floor: one layer per tile
    assert.are.equal(0, info.obstacles)
    assert.are.equal(1024, info.maxObstacles)
    assert.are.equal(0, info.version) -- not shared
    assert.is_true(info.compressedBytes > 0 and info.memoryBytes > info.compressedBytes)
    assert.is_truthy(tostring(cache):find("^navmesh.TileCache %(%d+ layers, 0 obstacles%)"))
    local pts, partial = route(mesh)
    assert.is_false(partial)
    assert.is_true(#pts >= 6)
    assert.is_false(mesh:info().readOnly)
  end)

  it("takes navmesh.build's config and maxObstacles, obstaclePadding, areaFlags", function()
    local cache = make { tileSize = 32, cellSize = 0.25, agentRadius = 0.5, maxObstacles = 3 }
    local info = cache:info()
    assert.are.equal(32, info.tileSize)
    assert.are.equal(3, info.maxObstacles)
    assert.is_true(math.abs(info.cellSize - 0.25) < 1e-6)
  end)

  it("returns nil, msg, ERR_EMPTY when nothing is walkable", function()
    local c, msg, code = navmesh.buildCache({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { 1, 2, 3 }) -- faces down
    assert.is_nil(c)
    assert.are.equal("ERR_EMPTY", code)
    assert.is_truthy(msg:find("^buildCache: input produced no walkable polygons"))
  end)

  it("calls the progress function after each tile", function()
    local calls, last = 0, 0
    make { progress = function(done, total)
      calls = calls + 1
      assert.is_true(done > last and done <= total)
      last = done
    end }
    assert.is_true(calls > 1)
  end)
end)

describe("obstacles", function()
  local cache, mesh, base
  before_each(function()
    cache, mesh = make()
    base = canon(mesh)
  end)
  after_each(function()
    cache:close()
    mesh:close()
  end)

  local shapes = {
    { kind = "cylinder", center = { ROOM[1], 0, ROOM[2] }, radius = 1.5, height = 2 },
    { kind = "box", bmin = { ROOM[1] - 1.5, -0.5, ROOM[2] - 1 }, bmax = { ROOM[1] + 1.5, 2, ROOM[2] + 1 } },
    { kind = "obox", center = { ROOM[1], 1, ROOM[2] }, halfExtents = { 2, 1, 1 }, yaw = 0.6 },
    { kind = "convex", vertices = { ROOM[1] - 1.5, 0, ROOM[2] - 1.5, ROOM[1] + 1.5, 0, ROOM[2] - 1, ROOM[1], 0,
                                    ROOM[2] + 1.5 }, hmin = -0.5, hmax = 2 },
  }
  for _, shape in ipairs(shapes) do
    it("a " .. shape.kind .. " cuts the navmesh; removing it gives the same tiles back", function()
      assert.is_truthy(on_mesh(mesh, ROOM[1], ROOM[2]))
      local refs_before = mesh:tiles()
      local id = assert(cache:addObstacle(shape))
      assert.are.equal("pending", cache:getObstacle(id).state)
      assert.are.same(base, canon(mesh)) -- nothing changes before update
      local done, rebuilt = cache:update()
      assert.is_true(done)
      assert.is_true(rebuilt >= 1)
      assert.are.equal("placed", cache:getObstacle(id).state)
      assert.is_nil(on_mesh(mesh, ROOM[1], ROOM[2])) -- cut
      assert.are_not.same(base, canon(mesh))
      assert.is_true(cache:removeObstacle(id))
      assert.are.equal("removing", cache:getObstacle(id).state)
      assert.is_true((cache:update()))
      assert.are.same(base, canon(mesh))
      assert.are.equal(0, #cache:obstacles())
      -- rebuilt tiles changed salt: their old references are stale
      local stale = 0
      for _, t in ipairs(refs_before) do
        if not mesh:isValidPolyRef(t.ref) then stale = stale + 1 end
      end
      assert.are.equal(rebuilt, stale)
    end)
  end

  it("lists obstacles as navmesh.debug draws them (svg and export)", function()
    local ids = {}
    for i, s in ipairs(shapes) do
      local shape = {}
      for k, v in pairs(s) do shape[k] = v end
      if i == 2 then shape.area = 5 end
      ids[i] = assert(cache:addObstacle(shape))
    end
    cache:update()
    local list = cache:obstacles()
    assert.are.equal(4, #list)
    for i, o in ipairs(list) do
      assert.are.equal(ids[i], o.id)
      assert.are.equal(shapes[i].kind, o.kind)
      assert.are.equal("placed", o.state)
      assert.are.equal(i == 2 and 5 or 0, o.area)
      assert.are.equal(0, o.padding)
    end
    assert.are.same(shapes[1].center, list[1].center)
    assert.are.equal(1.5, list[1].radius)
    assert.are.same(shapes[2].bmax, list[2].bmax)
    assert.is_true(math.abs(list[3].yaw - 0.6) < 1e-6)
    assert.are.equal(9, #list[4].vertices)
    assert.are.equal(-0.5, list[4].vertices[2]) -- the outline at hmin
    local svg = navmesh.debug.svg { mesh = mesh, obstacles = list }
    local _, drawn = svg:gsub('class="obstacle"', "")
    assert.are.equal(4, drawn)
    if pcall(require, "cjson") then -- export writes JSON with lua-cjson
      local json = navmesh.debug.export { mesh = mesh, obstacles = list }
      local back = require("cjson").decode(json)
      assert.are.equal(4, #back.obstacles)
      assert.are.equal("obox", back.obstacles[3].kind)
    else
      print("# navmesh.debug.export not checked: lua-cjson is missing for " .. _VERSION)
    end
    -- a listed obstacle goes back in as it came out (id and state are ignored)
    assert.is_true(cache:moveObstacle(ids[1], list[1]))
  end)

  it("moves an obstacle: its old place is restored, the new one cut", function()
    local a, b = { 17, 5 }, { 5, 5 }
    local id = assert(cache:addObstacle { kind = "cylinder", center = { a[1], 0, a[2] }, radius = 1, height = 2 })
    cache:update()
    assert.is_nil(on_mesh(mesh, a[1], a[2]))
    assert.is_true(cache:moveObstacle(id, { kind = "box", bmin = { b[1] - 1, -1, b[2] - 1 }, bmax = { b[1] + 1, 2, b[2] + 1 } }))
    assert.are.equal("pending", cache:getObstacle(id).state)
    cache:update()
    assert.is_truthy(on_mesh(mesh, a[1], a[2]))
    assert.is_nil(on_mesh(mesh, b[1], b[2]))
    -- the same tiles as a cache that only ever had the box there
    local other, om = make()
    other:addObstacle { kind = "box", bmin = { b[1] - 1, -1, b[2] - 1 }, bmax = { b[1] + 1, 2, b[2] + 1 } }
    other:update()
    assert.are.same(canon(om), canon(mesh))
    assert.are.equal(id, cache:obstacles()[1].id) -- the id stays
    other:close()
  end)

  it("an area obstacle marks polygons (area, flags) instead of cutting; costs route around it", function()
    -- mud across the middle of the long corridor between the rooms (map row 5)
    local mud = { kind = "box", bmin = { 40, -0.5, 8 }, bmax = { 44, 1, 14 }, area = 5 }
    local plain = route(mesh)
    local c2, m2 = make { areaFlags = { [5] = 8 } }
    for _, c in ipairs { cache, c2 } do
      assert(c:addObstacle(mud))
      c:update()
    end
    local ref = assert(on_mesh(mesh, 42, 11))
    assert.are.equal(5, mesh:getPolyArea(ref))
    assert.are.equal(1, mesh:getPolyFlags(ref))
    assert.are.equal(8, m2:getPolyFlags(assert(on_mesh(m2, 42, 11))))
    -- crossing costs the same: the same route
    assert.are.same(plain, route(mesh))
    -- mud costs 20 times more: a longer way round
    local costly = route(mesh, navmesh.filter { areaCost = { [5] = 20 } })
    assert.is_true(length(costly) > length(plain) + 5)
    -- excluded by flags (areaFlags), the same way round
    local around = route(m2, navmesh.filter { exclude = 8 })
    assert.is_true(length(around) > length(plain) + 5)
    c2:close()
  end)

  it("grows an obstacle by padding (per obstacle, or obstaclePadding for all)", function()
    local c2, m2 = make { obstaclePadding = 0.6 }
    local shape = { kind = "cylinder", center = { ROOM[1], 0, ROOM[2] }, radius = 0.5, height = 2 }
    assert(c2:addObstacle(shape))
    shape.padding = 0.6
    assert(cache:addObstacle(shape))
    cache:update()
    c2:update()
    assert.are.same(canon(m2), canon(mesh))
    assert.is_nil(on_mesh(mesh, ROOM[1] + 0.7, ROOM[2]))
    local c3, m3 = make()
    shape.padding = nil
    assert(c3:addObstacle(shape))
    c3:update()
    assert.is_truthy(on_mesh(m3, ROOM[1] + 1.0, ROOM[2])) -- no padding: Detour's stamping
    c2:close()
    c3:close()
  end)

  it("rebuilds at most maxTiles per update and says when it is up to date", function()
    -- a box along the passage east of the west room, over three tiles
    assert(cache:addObstacle { kind = "box", bmin = { 12, -1, 10.2 }, bmax = { 45, 2, 11.8 } })
    local steps, total = 0, 0
    repeat
      local done, n = cache:update(1)
      assert.is_true(n <= 1)
      steps, total = steps + 1, total + n
    until done
    assert.is_true(total >= 2)
    assert.are.equal(total, steps)
    assert.is_true(cache:update(1)) -- nothing left
    assert.are.same({ true, 0 }, { cache:update() })
  end)

  it("accepts an obstacle outside every tile: it touches nothing", function()
    local id = assert(cache:addObstacle { kind = "cylinder", center = { 500, 0, -500 }, radius = 2, height = 2 })
    assert.are.same({ true, 0 }, { cache:update() })
    assert.are.same(base, canon(mesh))
    assert.are.equal("placed", cache:getObstacle(id).state)
    assert.is_true(cache:removeObstacle(id))
    cache:update()
    assert.are.equal(0, #cache:obstacles())
  end)

  it("Detour's buildNavMeshTilesAt rebuilds one grid cell", function()
    local before = mesh:tiles()[1]
    assert.is_true(cache:buildNavMeshTilesAt(before.x, before.y))
    assert.is_false(mesh:isValidPolyRef(before.ref))
    assert.are.same(base, canon(mesh))
  end)
end)

describe("TileCache files", function()
  it("saves and loads (file and string): the same layers and navmesh", function()
    local cache, mesh = make()
    assert(cache:addObstacle { kind = "cylinder", center = { 17, 0, 5 }, radius = 1, height = 2 })
    cache:update()
    local bytes = cache:saveString() -- obstacles are not saved (as in RecastDemo)
    local path = os.tmpname()
    assert.is_true(cache:save(path))
    local c2, m2 = assert(navmesh.loadCache(path, { maxNodes = 100 }))
    os.remove(path)
    local c3, m3 = assert(navmesh.loadCacheString(bytes))
    assert.are.equal(bytes, c2:saveString())
    assert.are.equal(100, m2:info().maxNodes)
    assert.are.same(canon(m2), canon(m3))
    assert.is_truthy(on_mesh(m2, 17, 5)) -- no obstacle in the loaded one
    local fresh, fm = make()
    assert.are.same(canon(fm), canon(m2))
    for _, c in ipairs { cache, c2, c3, fresh } do c:close() end
  end)

  it("returns nil, msg, ERR_DATA for damaged bytes and ERR_IO for missing files", function()
    local cache = make()
    local bytes = cache:saveString()
    local c, msg, code = navmesh.loadCacheString(bytes:sub(1, 200))
    assert.is_nil(c)
    assert.are.equal("ERR_DATA", code)
    assert.is_truthy(msg:find("^loadCacheString: corrupt or incompatible navmesh data: "))
    c, msg, code = navmesh.loadCacheString("TSET" .. ("\0"):rep(200))
    assert.is_nil(c)
    assert.are.equal("ERR_DATA", code)
    local x, loaded, rejected = 12345, 0, 0
    for _ = 1, 60 do -- byte flips: each loads or is refused, never worse
      local s = bytes
      for _ = 1, 3 do
        x = (x * 1103515245 + 12345) % 2147483648
        local i = x % #s + 1
        s = s:sub(1, i - 1) .. string.char((s:byte(i) + 1 + x % 255) % 256) .. s:sub(i + 1)
      end
      local c2, _, code2 = navmesh.loadCacheString(s)
      if c2 then
        loaded = loaded + 1
        c2:addObstacle { kind = "cylinder", center = { 17, 0, 5 }, radius = 1, height = 2 }
        c2:update()
        c2:close()
      else
        assert.are.equal("ERR_DATA", code2)
        rejected = rejected + 1
      end
    end
    assert.is_true(rejected > 0)
    local c3, msg3, code3 = navmesh.loadCache("/nonexistent/level.tset")
    assert.is_nil(c3)
    assert.are.equal("ERR_IO", code3)
    assert.is_truthy(msg3:find("^cannot open /nonexistent/level.tset"))
    cache:close()
  end)
end)

describe("the cache's NavMesh handle", function()
  it("follows the cache and refuses edits that would bypass it", function()
    local cache, mesh = make()
    local ref = mesh:polyRefs()[1]
    local msg = "this navmesh is maintained by a TileCache"
    assert.is_truthy(raised(mesh.setPolyFlags, mesh, ref, 2):find("^NavMesh:setPolyFlags: " .. msg))
    assert.is_truthy(raised(mesh.removeTile, mesh, 0, 0):find("^NavMesh:removeTile: " .. msg))
    assert.is_truthy(raised(mesh.addTile, mesh, "x"):find("^NavMesh:addTile: " .. msg))
    assert.is_truthy(raised(mesh.share, mesh, "spec70"):find("^NavMesh:share: .*cache:share%(name%)"))
    assert.is_truthy(raised(mesh.edit, mesh):find("^NavMesh:edit: "))
    assert.is_false(mesh:refresh())
    cache:close()
  end)

  it("outlives the cache (closed or collected)", function()
    local cache, mesh = make()
    local want = route(mesh)
    cache:close()
    cache:close() -- again: nothing
    assert.are.same(want, route(mesh))
    assert.is_truthy(raised(cache.update, cache):find("^TileCache:update: attempt to use a closed navmesh.TileCache"))
    assert.are.equal("navmesh.TileCache (closed)", tostring(cache))
    local _, m2 = make()
    collectgarbage()
    collectgarbage()
    assert.are.same(want, route(m2))
    m2:close()
    mesh:close()
  end)

  it("lets the cache work on after the handle is closed", function()
    local cache, mesh = make()
    mesh:close()
    assert(cache:addObstacle { kind = "cylinder", center = { 12, 0, 8 }, radius = 1, height = 2 })
    assert.is_true((cache:update()))
    cache:close()
  end)
end)

describe("bad input", function()
  local cache
  before_each(function() cache = make { maxObstacles = 2 } end)
  after_each(function() cache:close() end)

  local function err(shape)
    return raised(cache.addObstacle, cache, shape)
  end

  it("raises for NaN, negative or missing sizes and unknown kinds or keys", function()
    local nan = 0 / 0
    assert.are.equal("bad option 'radius' to 'TileCache:addObstacle' (finite number >= 0 expected, got nan)",
                     err { kind = "cylinder", center = { 0, 0, 0 }, radius = nan, height = 1 })
    assert.are.equal("bad option 'radius' to 'TileCache:addObstacle' (finite number >= 0 expected, got -1)",
                     err { kind = "cylinder", center = { 0, 0, 0 }, radius = -1, height = 1 })
    assert.are.equal("bad option 'height' to 'TileCache:addObstacle' (number required for a cylinder, got nil)",
                     err { kind = "cylinder", center = { 0, 0, 0 }, radius = 1 })
    assert.are.equal("bad option 'center[2]' to 'TileCache:addObstacle' (finite number expected, got nan)",
                     err { kind = "cylinder", center = { 0, nan, 0 }, radius = 1, height = 1 })
    assert.are.equal("bad option 'halfExtents' to 'TileCache:addObstacle' (half extents >= 0 expected, got {1, -2, 1})",
                     err { kind = "obox", center = { 0, 0, 0 }, halfExtents = { 1, -2, 1 } })
    assert.are.equal("bad option 'bmin' to 'TileCache:addObstacle' (bmin <= bmax expected, got 3 > 2 on axis 1)",
                     err { kind = "box", bmin = { 3, 0, 0 }, bmax = { 2, 1, 1 } })
    assert.are.equal("bad option 'vertices' to 'TileCache:addObstacle' (3 to 64 points {x,y,z, ...} expected, got a list of 6 numbers)",
                     err { kind = "convex", vertices = { 0, 0, 0, 1, 0, 0 }, hmin = 0, hmax = 1 })
    assert.are.equal("bad option 'hmax' to 'TileCache:addObstacle' (finite number >= 1 expected, got 0)",
                     err { kind = "convex", vertices = { 0, 0, 0, 1, 0, 0, 0, 0, 1 }, hmin = 1, hmax = 0 })
    assert.are.equal("bad option 'kind' to 'TileCache:addObstacle' (\"cylinder\", \"box\", \"obox\" or \"convex\" expected, got 'sphere')",
                     err { kind = "sphere" })
    assert.is_truthy(err { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 }, radius = 2 }
      :find("^unknown option 'radius' to 'TileCache:addObstacle'"))
    assert.are.equal("bad option 'area' to 'TileCache:addObstacle' (integer in 0..63 expected, got 64)",
                     err { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 }, area = 64 })
    assert.are.equal("bad option 'padding' to 'TileCache:addObstacle' (finite number >= 0 expected, got -0.5)",
                     err { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 }, padding = -0.5 })
    assert.are.equal("bad argument #1 to 'TileCache:addObstacle' (table expected, got number)", err(5))
    assert.are.equal(0, #cache:obstacles()) -- nothing was added
  end)

  it("returns nil, msg, ERR_FULL past maxObstacles and nil, msg for unknown ids", function()
    local box = { kind = "box", bmin = { 0, 0, 0 }, bmax = { 1, 1, 1 } }
    local a, b = assert(cache:addObstacle(box)), assert(cache:addObstacle(box))
    local id, msg, code = cache:addObstacle(box)
    assert.is_nil(id)
    assert.are.equal("ERR_FULL", code)
    assert.is_truthy(msg:find("^addObstacle: all 2 obstacle slots are in use"))
    assert.is_true(cache:removeObstacle(a))
    local ok, msg2, code2 = cache:removeObstacle(a)
    assert.is_nil(ok)
    assert.are.equal(("removeObstacle: no obstacle %d (unknown id, or removed already)"):format(a), msg2)
    assert.are.equal("ERR_NOT_FOUND", code2)
    assert.are.same({ nil, ("moveObstacle: no obstacle 99 (unknown id, or removed already)"), "ERR_NOT_FOUND" },
                    { cache:moveObstacle(99, box) })
    assert.is_nil((cache:getObstacle(12345)))
    assert.is_truthy(cache:getObstacle(b))
    assert.is_truthy(raised(cache.removeObstacle, cache, -1):find("obstacle id expected, got %-1"))
    assert.is_truthy(raised(cache.update, cache, -1):find("^bad argument #1 to 'TileCache:update'"))
    assert.is_truthy(raised(navmesh.buildCache, V, T, { tileSize = 300 }):find("^bad option 'tileSize'"))
    assert.is_truthy(raised(navmesh.buildCache, V, T, { maxObstacles = 0 }):find("^bad option 'maxObstacles'"))
    assert.is_truthy(raised(navmesh.buildCache, V, T, { obstaclePadding = -1 }):find("^bad option 'obstaclePadding'"))
    assert.is_truthy(raised(navmesh.buildCache, V, T, { areaFlags = { [64] = 1 } }):find("^bad option 'areaFlags'"))
    assert.is_truthy(raised(navmesh.loadCacheString, "x", { maxnodes = 1 }):find("^unknown option 'maxnodes'"))
  end)
end)

describe("examples/obstacles.lua", function()
  it("runs: the door and the crate change the path; one SVG with both pictures", function()
    local out, lines = os.tmpname(), {}
    local print0 = _G.print
    _G.print = function(...) lines[#lines + 1] = table.concat({ ... }, " ") end
    local ok, err = pcall(assert(loadfile("examples/obstacles.lua")), out)
    _G.print = print0
    assert(ok, err)
    local text = table.concat(lines, "\n")
    assert.is_truthy(text:find("door closes: %d+ tile"), text)
    assert.is_truthy(text:find("wrote " .. out, 1, true), text)
    local svg = assert(io.open(out)):read("*a")
    os.remove(out)
    local _, panels = svg:gsub("<svg ", "")
    assert.are.equal(3, panels) -- the page and two pictures
    local _, drawn = svg:gsub('class="obstacle"', "")
    assert.are.equal(2, drawn)
  end)
end)
