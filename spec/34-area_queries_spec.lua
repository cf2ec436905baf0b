-- Area queries on generated levels: findPolysAroundCircle,
-- findPolysAroundShape, findLocalNeighbourhood, queryPolygons,
-- getPolyWallSegments. Brute-force checks against the level's own polygons.
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

-- X/Z distance from (x, z) to a convex polygon (flat xyz list); 0 inside.
local function dist_to_poly(v, x, z)
  if levels.on_mesh({ polys = { { verts = v } } }, x, z, 0) then return 0 end
  local best, n = math.huge, #v / 3
  for k = 1, n do
    local j = k % n + 1
    best = math.min(best, (helper.dist_pt_seg2d(x, z, v[3 * k - 2], v[3 * k], v[3 * j - 2], v[3 * j])))
  end
  return best
end

-- Set of the refs in a list.
local function set(list)
  local s = {}
  for _, r in ipairs(list) do s[r] = true end
  return s
end

-- Checks refs/parents: start first with parent 0, every other parent listed
-- before its child and adjacent to it (shares an edge in X/Z).
local function check_tree(mesh, refs, parents, start)
  assert.are.equal(start, refs[1])
  assert.are.equal(0, parents[1])
  local pos = {}
  for i, r in ipairs(refs) do
    assert.is_nil(pos[r]) -- each polygon once
    pos[r] = i
    if i > 1 then
      assert.is_true(pos[parents[i]] ~= nil and pos[parents[i]] < i)
      local _, srefs = mesh:getPolyWallSegments(r)
      assert.is_true(set(srefs)[parents[i]])
    end
  end
end

describe("findPolysAroundCircle", function()
  local lv, mesh
  setup(function()
    lv = levels.grid { n = 10, size = 2 }
    mesh = lv.mesh
  end)
  teardown(function() mesh:close() end)

  it("finds exactly the polygons the circle touches, cheapest first", function()
    for _, c in ipairs { { 7.1, 6.7, 3.25 }, { 0.4, 19.2, 5 }, { 10, 10, 0.5 }, { 13.3, 2.2, 0 } } do
      local start = lv:ref_at(c[1], c[2])
      local refs, parents, costs = mesh:findPolysAroundCircle(start, c[1], 0, c[2], c[3])
      local got, want = set(refs), {}
      for _, p in ipairs(lv.polys) do
        if dist_to_poly(p.verts, c[1], c[2]) <= c[3] then
          want[#want + 1] = p
        end
      end
      assert.are.equal(#want, #refs)
      for _, p in ipairs(want) do
        assert.is_true(got[lv:ref_at(p.verts[1] + 0.5, p.verts[3] + 0.5)])
      end
      check_tree(mesh, refs, parents, start)
      assert.are.equal(0, costs[1])
      for i = 2, #costs do
        assert.is_true(costs[i] >= costs[i - 1]) -- Dijkstra order
        local v = mesh:getPolyVerts(refs[i])
        assert.is_true(costs[i] >= dist_to_poly(v, c[1], c[2]) - 1e-4)
      end
    end
  end)

  it("weights costs by area and filters polygons out", function()
    local area = levels.grid { n = 6, size = 2, areas = function(i) return i >= 3 and 1 or 0 end }
    local m = area.mesh
    local start = area:ref_at(1, 1)
    local _, _, plain = m:findPolysAroundCircle(start, 1, 0, 1, 9)
    local refs, _, costly = m:findPolysAroundCircle(start, 1, 0, 1, 9, navmesh.filter { areaCost = { [1] = 10 } })
    local far = area:ref_at(11, 1)
    local i_far
    for i, r in ipairs(refs) do if r == far then i_far = i end end
    assert.is_truthy(i_far)
    assert.is_true(costly[i_far] > plain[i_far] * 2)
    -- the start is always reported (as Detour), its neighbours must pass
    local excl = m:findPolysAroundCircle(start, 1, 0, 1, 9, navmesh.filter { exclude = 1 })
    assert.are.same({ start }, excl)
    m:close()
  end)

  it("raises on bad arguments", function()
    local start = lv:ref_at(1, 1)
    assert.has_error(function() mesh:findPolysAroundCircle(start, 1, 0, 1, -1) end)
    assert.has_error(function() mesh:findPolysAroundCircle(start, 1, 0, 1, 1 / 0) end)
    assert.has_error(function() mesh:findPolysAroundCircle(start + 99999, 1, 0, 1, 1) end)
    assert.has_error(function() mesh:findPolysAroundCircle(start, 1, 0, 1) end)
  end)
end)

describe("findPolysAroundShape", function()
  local lv, mesh
  setup(function()
    lv = levels.grid { n = 10, size = 2, pillars = { { 5, 5 } } }
    mesh = lv.mesh
  end)
  teardown(function() mesh:close() end)

  it("finds the polygons a convex shape overlaps, in either winding", function()
    -- a diamond around (7, 7)
    local shape = { 7, 0, 3.5, 10.5, 0, 7, 7, 0, 10.5, 3.5, 0, 7 }
    local rev = { 3.5, 0, 7, 7, 0, 10.5, 10.5, 0, 7, 7, 0, 3.5 }
    local start = lv:ref_at(7, 7)
    local refs, parents, costs = mesh:findPolysAroundShape(start, shape)
    local refs2 = mesh:findPolysAroundShape(start, rev)
    assert.are.same(refs, refs2)
    check_tree(mesh, refs, parents, start)
    for i = 2, #costs do assert.is_true(costs[i] >= costs[i - 1]) end
    -- brute force: cells overlapping the diamond |x-7| + |z-7| <= 3.5 (open interiors)
    local want = 0
    for _, p in ipairs(lv.polys) do
      local x0, z0 = p.verts[1], p.verts[3]
      local cx, cz = math.max(x0, math.min(7, x0 + 2)), math.max(z0, math.min(7, z0 + 2))
      if math.abs(cx - 7) + math.abs(cz - 7) < 3.5 then want = want + 1 end
    end
    assert.are.equal(want, #refs)
  end)

  it("raises on bad shapes", function()
    local start = lv:ref_at(7, 7)
    assert.has_error(function() mesh:findPolysAroundShape(start, { 1, 0, 1, 2, 0, 2 }) end)
    assert.has_error(function() mesh:findPolysAroundShape(start, { 1, 0, 1, 2, 0, 2, 3, 0 }) end)
    assert.has_error(function() mesh:findPolysAroundShape(start, { 1, 0, 1, 2, 0, 2, 3, 0, "x" }) end)
    assert.has_error(function() mesh:findPolysAroundShape(start, { 1, 0, 1, 2, 0, 2, 3, 0, 0 / 0 }) end)
    assert.has_error(function() mesh:findPolysAroundShape(start) end)
  end)
end)

describe("findLocalNeighbourhood", function()
  it("collects nearby polygons and skips ones overlapping them on another level", function()
    -- ground A, B, C, C2 round a corner, a ramp R up to y 2, an upper floor
    -- S and E, with E right above A (fromPolygons links polygons that share
    -- vertex indices, so the heights only need to tell the floors apart)
    local v = {
      0, 0, 0,  0, 0, 2,  2, 0, 2,  2, 0, 0,      -- 1-4   A: x 0..2, z 0..2
      4, 0, 0,  4, 0, 2,                          -- 5-6   B: x 2..4, z 0..2
      2, 0, 4,  4, 0, 4,                          -- 7-8   C: x 2..4, z 2..4
      2, 0, 6,  4, 0, 6,                          -- 9-10  C2: x 2..4, z 4..6
      0, 2, 4,  0, 2, 6,                          -- 11-12 R: x 0..2, z 4..6, up to y 2 at x 0
      0, 2, 2,  2, 2, 2,                          -- 13-14 S: x 0..2, z 2..4, y 2
      0, 2, 0,  2, 2, 0,                          -- 15-16 E: x 0..2, z 0..2, y 2
    }
    local m = assert(navmesh.fromPolygons { vertices = v, polygons = {
      { 1, 2, 3, 4 }, { 4, 3, 6, 5 }, { 3, 7, 8, 6 }, { 7, 9, 10, 8 }, { 11, 12, 9, 7 },
      { 13, 11, 7, 14 }, { 15, 13, 14, 16 } } })
    local a = m:findNearestPoly(1, 0, 1, 0.1, 0.5, 0.1)
    local e = m:findNearestPoly(1, 2, 1, 0.1, 0.5, 0.1)
    assert.are_not.equal(a, e)
    local around = set((m:findPolysAroundCircle(a, 1, 0, 1, 10)))
    assert.is_true(around[e]) -- the plain search does reach E
    local refs, parents = m:findLocalNeighbourhood(a, 1, 0, 1, 10)
    assert.are.equal(6, #refs)
    assert.is_nil(set(refs)[e]) -- E overlaps A and is not linked to S: left out
    check_tree(m, refs, parents, a)
    -- from E the overlap goes the other way
    local from_e = set((m:findLocalNeighbourhood(e, 1, 2, 1, 10)))
    assert.is_nil(from_e[a])
    -- a small radius keeps to the polygons the circle touches
    assert.are.same({ a }, (m:findLocalNeighbourhood(a, 1, 0, 1, 0.5)))
    assert.has_error(function() m:findLocalNeighbourhood(a, 1, 0, 1, -0.5) end)
    assert.has_error(function() m:findLocalNeighbourhood(a, 1, 0 / 0, 1, 1) end)
    m:close()
  end)

  it("returns at most 64 polygons (Detour's limit)", function()
    local lv = levels.grid { n = 16, size = 1 }
    local refs = lv.mesh:findLocalNeighbourhood(lv:ref_at(8.5, 8.5), 8.5, 0, 8.5, 100)
    assert.is_true(#refs <= 64 and #refs > 20)
    lv.mesh:close()
  end)
end)

describe("queryPolygons", function()
  local lv, mesh
  setup(function()
    lv = levels.grid { n = 10, size = 2, pillars = { { 2, 2 } } }
    mesh = lv.mesh
  end)
  teardown(function() mesh:close() end)

  it("returns the polygons whose bounds overlap the box", function()
    for _, b in ipairs { { 5, 0, 5, 1.5, 1, 1.5 }, { 10, 0, 10, 20, 1, 20 }, { 1, 0, 1, 0, 0, 0 }, { 50, 0, 50, 1, 1, 1 } } do
      local refs = mesh:queryPolygons(b[1], b[2], b[3], b[4], b[5], b[6])
      local got = set(refs)
      local want = 0
      for _, p in ipairs(lv.polys) do
        local x0, z0 = p.verts[1], p.verts[3]
        if x0 <= b[1] + b[4] and x0 + 2 >= b[1] - b[4] and z0 <= b[3] + b[6] and z0 + 2 >= b[3] - b[6] then
          want = want + 1
          assert.is_true(got[lv:ref_at(x0 + 1, z0 + 1)])
        end
      end
      assert.are.equal(want, #refs)
    end
  end)

  it("applies the filter", function()
    local r = lv:ref_at(7, 5)
    mesh:setPolyFlags(r, 2)
    local refs = mesh:queryPolygons(7, 0, 5, 0.5, 1, 0.5, navmesh.filter { exclude = 2 })
    mesh:setPolyFlags(r, 1)
    assert.are.same({}, refs)
  end)

  it("agrees with findNearestPoly on the shared navmeshes", function()
    if helper.skip_without_shared("queryPolygons shared-mesh spec") then return end
    local m = assert(navmesh.load(helper.shared .. "/navmeshes/city_tiled.bin"))
    local n = 0
    for _, c in ipairs(helper.oracle("city_tiled")) do
      local s = c.start
      local refs = m:queryPolygons(s[1], s[2], s[3], 2, 4, 2)
      assert.is_true(set(refs)[c.nearest_start.ref])
      n = n + 1
    end
    m:close()
    print(("# queryPolygons city_tiled: nearest polygon among the box's polygons in %d/%d cases"):format(n, n))
  end)

  it("raises on bad arguments", function()
    assert.has_error(function() mesh:queryPolygons(1, 0, 1, -1, 1, 1) end)
    assert.has_error(function() mesh:queryPolygons(1, 0, 1 / 0, 1, 1, 1) end)
    assert.has_error(function() mesh:queryPolygons(1, 0, 1) end)
  end)
end)

describe("getPolyWallSegments", function()
  it("splits a polygon's outline into walls (ref 0) and portals", function()
    local lv = levels.grid { n = 3, size = 2, pillars = { { 1, 0 } } }
    local m = lv.mesh
    local corner = lv:ref_at(1, 1)  -- cell (0,0): walls west, south and east (pillar)
    local segs, refs = m:getPolyWallSegments(corner)
    assert.are.equal(4, #refs)
    assert.are.equal(24, #segs)
    local walls, portals = 0, 0
    for k = 1, 4 do
      if refs[k] == 0 then walls = walls + 1 else
        portals = portals + 1
        assert.are.equal(lv:ref_at(1, 3), refs[k])
      end
    end
    assert.are.same({ 3, 1 }, { walls, portals })
    -- a filter turns the portal into a wall
    m:setPolyFlags(lv:ref_at(1, 3), 2)
    local _, refs2 = m:getPolyWallSegments(corner, navmesh.filter { exclude = 2 })
    assert.are.same({ 0, 0, 0, 0 }, refs2)
    m:close()
  end)

  it("covers every polygon edge exactly on the tiled shared navmeshes", function()
    if helper.skip_without_shared("getPolyWallSegments shared-mesh spec") then return end
    for _, name in ipairs { "dungeon_tiled", "city_tiled" } do
      local m = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. ".bin"))
      local polys, split = 0, 0
      for _, ref in ipairs(m:polyRefs()) do
        local v = m:getPolyVerts(ref)
        local segs, refs = m:getPolyWallSegments(ref)
        local perim, len = 0, 0
        for k = 1, #v / 3 do
          local j = k % (#v / 3) + 1
          perim = perim + math.sqrt((v[3 * j - 2] - v[3 * k - 2]) ^ 2 + (v[3 * j] - v[3 * k]) ^ 2)
        end
        for k = 0, #refs - 1 do
          len = len + math.sqrt((segs[6 * k + 4] - segs[6 * k + 1]) ^ 2 + (segs[6 * k + 6] - segs[6 * k + 3]) ^ 2)
        end
        assert.is_true(helper.near(len, perim, 1e-3))
        if #refs > #v / 3 then split = split + 1 end
        for k = 1, #refs do assert.is_true(refs[k] == 0 or m:isValidPolyRef(refs[k])) end
        polys = polys + 1
      end
      m:close()
      if name == "city_tiled" then assert.is_true(split > 0) end
      print(("# getPolyWallSegments %s: %d polygons, outlines covered exactly, %d with split tile-border edges"):format(
        name, polys, split))
    end
  end)

  it("raises on bad arguments", function()
    local lv = levels.grid { n = 2, size = 2 }
    assert.has_error(function() lv.mesh:getPolyWallSegments(0) end)
    assert.has_error(function() lv.mesh:getPolyWallSegments(lv:ref_at(1, 1), 5) end)
    lv.mesh:close()
  end)
end)
