-- Optimal (truly shortest) paths: the Lua contract of { optimal = true } on
-- findPath and path, and exactness against a brute-force oracle (visibility
-- graph of wall corners + A*, spec/optimal_check.lua) on generated levels:
-- rooms, jittered pillars, narrow gaps with diagonal pinch points, a
-- triangle mesh, two floors joined by a ramp, and a filter-made obstacle
-- field.
local helper = require "helper"
local navmesh = require "navmesh"
local check = require "optimal_check"

local REL = 1e-4   -- agreement asked of the optimal length
local PAIRS = 200  -- random pairs per generated level

local function make(level, opts)
  return assert(navmesh.fromPolygons({ vertices = level[1], polygons = level[2], flags = level[3] }, opts))
end

-- Length of the optimal path between refs a, b (X/Z), its corridor and flags.
local function optimal_length(mesh, a, sx, sy, sz, b, gx, gy, gz, filter)
  local polys, partial, oon, _, fallback = mesh:findPath(a, b, sx, sy, sz, gx, gy, gz, filter, { optimal = true })
  local pts = mesh:findStraightPath(sx, sy, sz, gx, gy, gz, polys)
  return helper.length2d(pts), polys, partial, oon, fallback
end

-- Random pairs of points on W's polygons; the optimal length against the
-- brute-force one. Returns checked, disagreeing, max relative difference.
local function compare(mesh, W, pairs, seed, filter)
  local rnd = check.rng(seed)
  local r = { checked = 0, bad = {}, maxrel = 0, unreachable = 0 }
  local np = #W.polys
  for i = 1, pairs do
    local a, b = 1 + math.floor(rnd() * np), 1 + math.floor(rnd() * np)
    local sx, sy, sz = check.point_in(W, a, rnd)
    local gx, gy, gz = check.point_in(W, b, rnd)
    local len, _, partial, oon = optimal_length(mesh, W.polys[a].ref, sx, sy, sz, W.polys[b].ref, gx, gy, gz, filter)
    assert(not oon, "optimal search ran out of nodes")
    if partial then
      -- unreachable for the search: the oracle must agree
      if check.connected(W, a, b) then
        r.bad[#r.bad + 1] = ("%d -> %d: optimal says unreachable"):format(W.polys[a].ref, W.polys[b].ref)
      end
      r.unreachable = r.unreachable + 1
    elseif helper.sampled(i) then -- (NAVMESH_SPEC_SCALE: brute force on a sample)
      local brute = check.shortest(W, sx, sz, a, gx, gz, b, len * (1 + 2 * REL) + 1e-6)
      local rel = brute == math.huge and math.huge or math.abs(len - brute) / math.max(brute, 1e-9)
      r.checked = r.checked + 1
      if rel > r.maxrel then r.maxrel = rel end
      if rel > REL then
        r.bad[#r.bad + 1] = ("%d (%.6g, %.6g, %.6g) -> %d (%.6g, %.6g, %.6g): optimal %.6f brute %.6f"):format(
          W.polys[a].ref, sx, sy, sz, W.polys[b].ref, gx, gy, gz, len, brute)
      end
    end
  end
  return r
end

describe("optimal paths: Lua contract", function()
  local level, mesh, S, E
  setup(function()
    level = check.levels().rooms
    mesh = make(level)
    S = { 1.5, 0, 1.5 }
    E = { 38.5, 0, 13.5 }
  end)
  teardown(function() mesh:close() end)

  it("findPath returns polys, partial, outOfNodes, unfinished, fallback", function()
    local s = mesh:findNearestPoly(S[1], S[2], S[3])
    local e = mesh:findNearestPoly(E[1], E[2], E[3])
    local polys, partial, oon, unfinished, fallback = mesh:findPath(s, e, S[1], S[2], S[3], E[1], E[2], E[3], nil, { optimal = true })
    assert.is_false(unfinished)
    assert.is_table(polys)
    assert.are.equal(s, polys[1])
    assert.are.equal(e, polys[#polys])
    assert.is_false(partial)
    assert.is_false(oon)
    assert.is_false(fallback)
    for i = 2, #polys do -- a corridor: each polygon is linked to the next
      assert.is_number((mesh:getPortalPoints(polys[i - 1], polys[i])))
    end
    -- always five results; fallback is false without the option
    assert.are.equal(5, select("#", mesh:findPath(s, e, S[1], S[2], S[3], E[1], E[2], E[3])))
    assert.is_false((select(5, mesh:findPath(s, e, S[1], S[2], S[3], E[1], E[2], E[3], nil, { optimal = false }))))
  end)

  it("is never longer than A* + funnel, and here strictly shorter", function()
    local a = mesh:path(S[1], S[2], S[3], E[1], E[2], E[3])
    local o, partial, fallback = mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { optimal = true })
    assert.is_false(partial)
    assert.is_false(fallback)
    assert.is_true(helper.length2d(o) < helper.length2d(a) - 1e-3)
    assert.is_true(helper.near(o[1], S[1]) and helper.near(o[3], S[3]))
    assert.is_true(helper.near(o[#o - 2], E[1]) and helper.near(o[#o], E[3]))
  end)

  it("raises on bad options", function()
    local s = mesh:findNearestPoly(S[1], S[2], S[3])
    assert.has_error(function() mesh:findPath(s, s, 1, 0, 1, 1, 0, 1, nil, { optimal = 1 }) end,
      "bad option 'optimal' to 'NavMesh:findPath' (boolean expected, got 1)")
    assert.has_error(function() mesh:findPath(s, s, 1, 0, 1, 1, 0, 1, nil, { optimum = true }) end)
    assert.has_error(function() mesh:findPath(s, s, 1, 0, 1, 1, 0, 1, nil, "optimal") end)
    assert.has_error(function() mesh:path(1, 0, 1, 2, 0, 2, { optimal = "yes" }) end,
      "bad option 'optimal' to 'NavMesh:path' (boolean expected, got 'yes')")
  end)

  it("falls back to A* with non-uniform area costs, and says so", function()
    local f = navmesh.filter { areaCost = { [0] = 1, [3] = 4 } }
    local s = mesh:findNearestPoly(S[1], S[2], S[3])
    local e = mesh:findNearestPoly(E[1], E[2], E[3])
    local polys, partial, _, _, fallback = mesh:findPath(s, e, S[1], S[2], S[3], E[1], E[2], E[3], f, { optimal = true })
    local astar = mesh:findPath(s, e, S[1], S[2], S[3], E[1], E[2], E[3], f)
    assert.is_true(fallback)
    assert.is_false(partial)
    assert.are.same(astar, polys)
    local _, _, fb = mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { optimal = true, filter = f })
    assert.is_true(fb)
    -- uniform costs other than 1 are fine
    local _, _, _, fb2 = mesh:findPath(s, e, S[1], S[2], S[3], E[1], E[2], E[3],
      navmesh.filter { areaCost = (function() local t = {} for i = 0, 63 do t[i] = 2.5 end return t end)() },
      { optimal = true })
    assert.is_false(fb2)
  end)

  it("reports unreachable goals as partial, leading towards the goal", function()
    -- the 1-cell room at (34.5, 12.5) is closed off
    local s = mesh:findNearestPoly(S[1], S[2], S[3])
    local e = mesh:findNearestPoly(34.5, 0, 12.5)
    local polys, partial, oon = mesh:findPath(s, e, S[1], S[2], S[3], 34.5, 0, 12.5, nil, { optimal = true })
    assert.is_true(partial)
    assert.is_false(oon)
    assert.are.equal(s, polys[1])
    assert.are_not.equal(e, polys[#polys])
    -- it ends as close to the goal as A*'s partial path does
    local function gap(ref)
      local x, _, z = mesh:closestPointOnPoly(ref, 34.5, 0, 12.5)
      return math.sqrt((x - 34.5) ^ 2 + (z - 12.5) ^ 2)
    end
    local astar = mesh:findPath(s, e, S[1], S[2], S[3], 34.5, 0, 12.5)
    assert.is_true(gap(polys[#polys]) <= gap(astar[#astar]) + 1e-6)
    assert.is_true(gap(polys[#polys]) < 1.5 + 1e-6) -- beside the closed room
    local pts, p2 = mesh:path(S[1], S[2], S[3], 34.5, 0, 12.5, { optimal = true })
    assert.is_true(p2)
    assert.is_true(#pts >= 6)
  end)

  it("keeps the inset on optimal paths", function()
    local plain = mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { optimal = true })
    local same = mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { optimal = true, inset = 0 })
    assert.are.same(plain, same)
    local inset = mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { optimal = true, inset = 0.3 })
    assert.is_true(helper.length2d(inset) >= helper.length2d(plain) - 1e-6)
    -- no corner of the inset path comes closer than the inset to a wall
    -- corner (a grid point touching a wall cell); corners may also lie on
    -- open grid points, where the corridor of the plain path ends
    local W = check.extract(mesh)
    for i = 4, #inset - 3, 3 do
      local x, z = inset[i], inset[i + 2]
      for _, c in ipairs(W.nodes) do
        assert.is_true(math.sqrt((x - c.x) ^ 2 + (z - c.z) ^ 2) >= 0.3 - 1e-4)
      end
    end
  end)

  it("takes heights from the mesh surface", function()
    local lv = check.levels().floors
    local m = make(lv)
    -- from the ground floor under the balcony up onto the balcony
    local pts, partial = m:path(6.5, 0, 6.5, 10.5, 3, 6.5, { optimal = true })
    assert.is_false(partial)
    assert.is_true(helper.near(pts[2], 0) and helper.near(pts[#pts - 1], 3))
    for i = 1, #pts, 3 do -- every point lies on one of the surfaces under it
      local x, y, z = pts[i], pts[i + 1], pts[i + 2]
      local on = (x <= 12 + 1e-3 and helper.near(y, 0, 1e-3)) or
                 (x >= 12 - 1e-3 and x <= 18 + 1e-3 and z <= 2 + 1e-3 and helper.near(y, (x - 12) / 2, 1e-3)) or
                 (((x >= 4 - 1e-3 and z >= 4 - 1e-3) or x >= 18 - 1e-3) and helper.near(y, 3, 1e-3))
      assert.is_true(on)
    end
    -- the path climbs the ramp: it passes x = 18 at height 3
    local up = false
    for i = 1, #pts, 3 do if helper.near(pts[i], 18, 1e-3) and helper.near(pts[i + 1], 3, 1e-3) then up = true end end
    assert.is_true(up)
    m:close()
  end)

  it("uses off-mesh connections when they are shorter, at their 3-D length", function()
    -- two rooms joined by a corridor, and a connection across the wall
    local verts, polys = check.level({ { map = {
      "#########",
      "#...#...#",
      "#...#...#",
      "#...#...#",
      "#.......#",
      "#########" } } })
    local function build(y2)
      return assert(navmesh.fromPolygons { vertices = verts, polygons = polys,
        offMeshConnections = { { start = { 3.5, 0, 1.5 }, ["end"] = { 5.5, y2, 1.5 }, radius = 0.4 } } })
    end
    local m = build(0)
    local pts, partial = m:path(1.5, 0, 1.5, 7.5, 0, 1.5, { optimal = true })
    assert.is_false(partial)
    -- start -> connection start -> connection end -> goal: 2 + 2 + 2
    assert.is_true(helper.near(helper.length2d(pts), 6, 1e-3))
    local s = m:findNearestPoly(1.5, 0, 1.5)
    local e = m:findNearestPoly(7.5, 0, 1.5)
    local corridor = m:findPath(s, e, 1.5, 0, 1.5, 7.5, 0, 1.5, nil, { optimal = true })
    local through = false
    for _, r in ipairs(corridor) do if #m:getPolyVerts(r) == 6 then through = true end end
    assert.is_true(through)
    m:close()
    -- the same connection from further away is not worth the way to it
    local m2 = build(0)
    local p2 = m2:path(3.5, 0, 3.5, 5.5, 0, 3.5, { optimal = true })
    assert.is_true(helper.near(helper.length2d(p2), 1 + 2 * math.sqrt(0.5), 1e-3))
    m2:close()
  end)

  it("costs an off-mesh connection its 3-D length", function()
    -- ground (y 0, x 0..6), a ramp (x 6..8, z 1..4) up to a platform (y 3,
    -- x 8..10) and a ladder from (5.5, 0, 0.5) to (8.5, 3, 0.5): 3 long in
    -- X/Z but 4.24 in 3-D, so the way over the ramp (3.41) is shorter
    local verts, polys = check.level({
      { map = { "......", "......", "......", "......" }, height = function() return 0 end },
      { map = { "********", "******..", "******..", "******.." }, height = function(x) return 1.5 * (x - 6) end },
      { map = { "********..", "********..", "********..", "********.." }, height = function() return 3 end } })
    local m = assert(navmesh.fromPolygons { vertices = verts, polygons = polys,
      offMeshConnections = { { start = { 5.5, 0, 0.5 }, ["end"] = { 8.5, 3, 0.5 }, radius = 0.4 } } })
    local s = m:findNearestPoly(5.5, 0, 0.5)
    local e = m:findNearestPoly(8.5, 3, 0.5)
    local corridor = m:findPath(s, e, 5.5, 0, 0.5, 8.5, 3, 0.5, nil, { optimal = true })
    for _, r in ipairs(corridor) do assert.are_not.equal(6, #m:getPolyVerts(r)) end
    local pts = m:findStraightPath(5.5, 0, 0.5, 8.5, 3, 0.5, corridor)
    assert.is_true(helper.near(helper.length2d(pts), 2 + math.sqrt(2), 1e-3))
    m:close()
  end)
end)

describe("optimal paths from mesh:path", function()
  it("equal the funnel over the optimal corridor (turns come from the search)", function()
    local levels = check.levels()
    local n, worst = 0, 0
    for _, name in ipairs { "rooms", "pillars", "triangles", "gaps" } do
      local mesh = make(levels[name])
      local W = check.extract(mesh)
      local rnd = check.rng(99)
      for _ = 1, 100 do
        local a, b = 1 + math.floor(rnd() * #W.polys), 1 + math.floor(rnd() * #W.polys)
        local sx, sy, sz = check.point_in(W, a, rnd)
        local gx, gy, gz = check.point_in(W, b, rnd)
        local pts, partial = mesh:path(sx, sy, sz, gx, gy, gz, { optimal = true })
        local s = mesh:findNearestPoly(sx, sy, sz)
        local e = mesh:findNearestPoly(gx, gy, gz)
        local len = optimal_length(mesh, s, sx, sy, sz, e, gx, gy, gz)
        local d = math.abs(helper.length2d(pts) - len)
        if d > worst then worst = d end
        assert.is_true(d <= 1e-5 * (1 + len))
        assert.are.equal(partial, (select(3, optimal_length(mesh, s, sx, sy, sz, e, gx, gy, gz))))
        -- start and end as given, heights on the (flat) floor
        assert.is_true(helper.near(pts[1], sx) and helper.near(pts[3], sz))
        for i = 2, #pts, 3 do assert.is_true(helper.near(pts[i], 0, 1e-5)) end
        n = n + 1
      end
      mesh:close()
    end
    print(("# mesh:path optimal vs corridor + funnel: %d paths, max length difference %.2g"):format(n, worst))
  end)
end)

describe("optimal paths equal brute-force shortest paths", function()
  local levels = check.levels()
  for _, name in ipairs { "rooms", "pillars", "gaps", "triangles", "floors", "filtered" } do
    it("on the generated level '" .. name .. "'", function()
      local lv = levels[name]
      local mesh = make(lv)
      local filter, usable
      if name == "filtered" then
        filter = navmesh.filter { exclude = 2 }
        usable = function(ref) return mesh:getPolyFlags(ref) ~= 2 end
      end
      local W = check.extract(mesh, usable)
      local t0 = os.clock()
      local r = compare(mesh, W, PAIRS, #name, filter)
      print(("# optimal %-10s %3d pairs (%d unreachable), %d corners: %d disagree, max rel diff %.2g (%.2f s)"):format(
        name, r.checked, r.unreachable, #W.nodes, #r.bad, r.maxrel, os.clock() - t0))
      for i = 1, math.min(#r.bad, 5) do print("#   " .. r.bad[i]) end
      assert.are.equal(0, #r.bad)
      assert.is_true(r.checked >= helper.scaled(PAIRS / 2))
      mesh:close()
    end)
  end
end)
