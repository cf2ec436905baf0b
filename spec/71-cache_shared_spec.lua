-- Tile caches against Detour on ../shared, through the Lua API:
--  * navmesh.loadCache of each RecastDemo .tset (dungeon, nav_test,
--    undulating, city) gives the navmesh of navmeshes/*_cache.bin tile by
--    tile (same tiles at the same references with the same polygons), and
--    saveString gives the file back byte for byte;
--  * navmesh.buildCache of each OBJ gives the same layers (the saved cache
--    equals the .tset) and so the same navmesh (city's build takes about a
--    second and a half: only with NAVMESH_LARGE=1);
--  * the public obstacle scenarios of oracle/tilecache replayed with
--    addObstacle / removeObstacle / update(1): the same ids, the same layers
--    rebuilt in the same order with the same polygon counts, the same tile
--    and polygon totals, and the query cases agree as in 02-oracle_spec
--    (nearest >= 99.5%, corridors >= 99.5%, straight paths 100%). All four
--    scenarios, on every Lua (about two seconds natively; city is left out
--    with NAVMESH_SPEC_SCALE < 1, as under valgrind).
-- The same checks in C: spec/c/test_cache.c, spec/c/test_cache_oracle.c.
local helper = require "helper"
local navmesh = require "navmesh"

local MESHES = { "dungeon", "nav_test", "undulating", "city" }
-- With NAVMESH_SPEC_SCALE below 1 (the valgrind set, tools/valgrind-set.sh)
-- city, whose 5278 tiles take about a minute under memcheck, is left out.
local SMALL_ONLY = helper.scale < 1

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- Tiles by place: "x,y,layer" -> {ref=, polys=}.
local function tile_map(mesh)
  local out = {}
  for _, t in ipairs(mesh:tiles()) do out[t.x .. "," .. t.y .. "," .. t.layer] = { ref = t.ref, polys = t.polys } end
  return out
end

-- Same tiles at the same references with the same polygons (blob contents
-- apart from the run-time links). Returns the number of tiles.
local function assert_same_navmesh(ours, ref)
  local a, b = helper.tile_contents(ours), helper.tile_contents(ref)
  local n, bad = 0, 0
  for k, t in pairs(b) do
    n = n + 1
    local u = a[k]
    if not (u and u.ref == t.ref and u.polys == t.polys and u.content == t.content) then
      bad = bad + 1
      if bad <= 3 then print(("#   tile %s differs"):format(k)) end
    end
  end
  for k in pairs(a) do
    if not b[k] then bad = bad + 1 end
  end
  assert.are.equal(0, bad)
  return n
end

local function shape_of(o)
  if o.kind == "cylinder" then return { kind = "cylinder", center = o.pos, radius = o.radius, height = o.height } end
  if o.kind == "box" then return { kind = "box", bmin = o.bmin, bmax = o.bmax } end
  return { kind = "obox", center = o.center, halfExtents = o.halfExtents, yaw = o.yaw }
end

-- Updates one layer at a time until done; the rebuilt layers in order
-- ({tx, ty, layer, polys}), found as the tile whose reference changed.
local function update_all(cache, mesh)
  local rebuilt, done = {}, false
  while not done do
    local before = tile_map(mesh)
    local n
    done, n = cache:update(1)
    if n > 0 then
      local after, changed = tile_map(mesh), {}
      for k, t in pairs(after) do
        if not before[k] or before[k].ref ~= t.ref then changed[#changed + 1] = { k, t.polys } end
      end
      for k in pairs(before) do
        if not after[k] then changed[#changed + 1] = { k, 0 } end
      end
      assert.is_true(#changed <= 1, "one layer per update(1)")
      if #changed == 0 then -- a layer without polygons, before and after
        rebuilt[#rebuilt + 1] = { unseen = true }
      else
        local x, y, l = changed[1][1]:match("(-?%d+),(-?%d+),(%d+)")
        rebuilt[#rebuilt + 1] = { tonumber(x), tonumber(y), tonumber(l), changed[1][2] }
      end
    end
  end
  return rebuilt
end

-- Replays a scenario; returns the tally of query cases and of steps.
local function replay(name)
  local cache, mesh = assert(navmesh.loadCache(helper.shared .. "/tilecaches/" .. name .. ".tset",
                                               { maxNodes = name == "city" and 65535 or 2048 }))
  local r = helper.oracle_tally(mesh)
  local f = assert(io.open(helper.shared .. "/oracle/tilecache/" .. name .. ".jsonl", "rb"))
  r.steps, r.rebuilt, r.unseen = 0, 0, 0
  for line in f:lines() do
    local step = helper.json_decode(line)
    for _, o in ipairs(step.obstacles) do assert.are.equal(o.id, cache:addObstacle(shape_of(o))) end
    for _, id in ipairs(step.removed) do assert.is_true(cache:removeObstacle(id)) end
    local rebuilt = update_all(cache, mesh)
    for i, e in ipairs(rebuilt) do -- a rebuild that left no tile where there was none cannot be seen
      if e.unseen and step.changedTiles[i] and step.changedTiles[i][4] == 0 then
        rebuilt[i], r.unseen = step.changedTiles[i], r.unseen + 1
      end
    end
    assert.are.same(step.changedTiles, rebuilt, ("step %d: layers rebuilt"):format(step.step))
    assert.are.equal(step.tilesRebuilt, #rebuilt)
    assert.are.equal(step.navTiles, mesh:info().tiles)
    assert.are.equal(step.polys, mesh:info().polys)
    local live = {}
    for _, o in ipairs(cache:obstacles()) do
      live[#live + 1] = o.id
      assert.are.equal("placed", o.state)
    end
    table.sort(live)
    local want = {}
    for i, id in ipairs(step.live) do want[i] = id end
    table.sort(want)
    assert.are.same(want, live)
    for _, c in ipairs(step.cases) do helper.oracle_case(mesh, c, r) end
    r.steps, r.rebuilt = r.steps + 1, r.rebuilt + #rebuilt
  end
  f:close()
  local final = assert(navmesh.load(helper.shared .. "/oracle/tilecache/" .. name .. "_final.bin"))
  assert_same_navmesh(mesh, final)
  cache:close()
  mesh:close()
  return r
end

describe("tile caches from ../shared", function()
  if helper.skip_without_shared("tile cache specs") then return end
  for _, name in ipairs(MESHES) do
    if name == "city" and SMALL_ONLY then
      print("# city left out (NAVMESH_SPEC_SCALE < 1: the valgrind set); every other suite runs it")
      break
    end
    describe(name, function()
      it("loads the .tset: the navmesh equals " .. name .. "_cache.bin tile by tile; saving gives the file back",
         function()
        local bytes = read(helper.shared .. "/tilecaches/" .. name .. ".tset")
        local cache, mesh = assert(navmesh.loadCache(helper.shared .. "/tilecaches/" .. name .. ".tset"))
        local ref = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. "_cache.bin"))
        local n = assert_same_navmesh(mesh, ref)
        assert.are.equal(bytes, cache:saveString())
        local again = assert(navmesh.loadCacheString(bytes))
        assert.are.equal(bytes, again:saveString())
        print(("# %-10s %d tiles, %d layers, %d bytes: equal to Detour's"):format(name, n, cache:info().layers, #bytes))
        again:close()
        cache:close()
      end)

      local large = name == "city" and os.getenv("NAVMESH_LARGE") ~= "1"
      it("builds the cache from " .. name .. ".obj: the same layers and navmesh" ..
         (large and " (skipped: NAVMESH_LARGE=1 runs it)" or ""), function()
        if large then return end
        local v, t = navmesh.parseObj(read(helper.shared .. "/meshes/" .. name .. ".obj"))
        local cache, mesh = assert(navmesh.buildCache(v, t))
        assert.are.equal(read(helper.shared .. "/tilecaches/" .. name .. ".tset"), cache:saveString())
        assert_same_navmesh(mesh, assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. "_cache.bin")))
        cache:close()
      end)

      it("replays the public obstacle scenario as Detour did", function()
        local r = replay(name)
        print(("# %-10s %d steps, %d layers rebuilt as Detour (%d left without a tile, unseen); nearest %d/%d (%.2f%%)  corridors %d/%d (%.2f%%)  " ..
               "straight %d/%d (%.2f%%)  isReachable %d/%d"):format(
          name, r.steps, r.rebuilt, r.unseen, r.nearest, r.nearest_n, helper.percent(r.nearest, r.nearest_n), r.path, r.path_n,
          helper.percent(r.path, r.path_n), r.straight, r.straight_n, helper.percent(r.straight, r.straight_n),
          r.reach, r.path_n))
        for _, b in ipairs(r.bad) do print("#   disagree: " .. b) end
        assert.is_true(helper.percent(r.nearest, r.nearest_n) >= 99.5)
        assert.is_true(helper.percent(r.path, r.path_n) >= 99.5)
        assert.are.equal(r.straight_n, r.straight)
      end)
    end)
  end
end)
