-- Small scenes whose answer is known, one per thing a stage of the pipeline
-- must get right: a flat plane, a wall, steps below and above the climb
-- height, slopes, a low ceiling, a hole, two floors above each other, area
-- volumes, off-mesh connections, and the three region partitions. Built with
-- RecastDemo's defaults (cell 0.3 x 0.2, agent 2.0 / 0.6 / 0.9, 45 degrees)
-- unless a spec says otherwise.
local navmesh = require "navmesh"
local geom = require "buildgeom"

local function build(s, cfg)
  return assert(navmesh.build(s.vertices, s.triangles, cfg))
end

local function near(a, b, tol) return math.abs(a - b) <= tol end

describe("build scenes", function()
  describe("a flat 10 x 10 plane", function()
    local s = geom.scene():floor(0, 0, 10, 10, 0)
    local mesh
    setup(function() mesh = build(s) end)

    -- The voxel grid covers x and z from 0 to 9.9 (33 cells). The ledge
    -- filter drops the outermost cells (their outer neighbour is a drop),
    -- then erosion by the radius (2 cells) drops two more: the polygon lies
    -- 0.9 inside the grid on every side.
    it("becomes one polygon, eroded by the agent radius", function()
      assert.equal(1, mesh:info().polys)
      local v = mesh:getPolyVerts(mesh:polyRefs()[1])
      assert.equal(12, #v)   -- a quad
      for i = 1, #v, 3 do
        assert.is_true(near(v[i + 1], 0, 0.25))
        -- the outline lies about one radius (0.6, two cells) inside the plane
        for _, c in ipairs { v[i], v[i + 2] } do
          local d = math.min(math.abs(c), math.abs(9.9 - c))
          assert.is_true(near(d, 0.9, 1e-4), "corner coordinate " .. c)
        end
      end
    end)

    it("has the walkable area of the eroded square", function()
      local a = geom.walkable_area(mesh)
      print(("# flat plane: %d polygon(s), walkable area %.2f"):format(mesh:info().polys, a))
      assert.is_true(near(a, 8.1 * 8.1, 1e-3))
    end)

    it("is the same with each partition", function()
      for _, p in ipairs { "watershed", "monotone", "layers" } do
        local m = build(s, { partition = p })
        assert.equal(1, m:info().polys)
        assert.is_true(near(geom.walkable_area(m), geom.walkable_area(mesh), 1e-3))
      end
    end)

    it("gives a two-point straight path corner to corner", function()
      local pts, _, reached = geom.route(mesh, 1, 0, 1, 9, 0, 9)
      assert.is_true(reached)
      assert.equal(6, #pts)
    end)
  end)

  describe("a plane with a wall across it", function()
    local s = geom.scene():floor(0, 0, 10, 10, 0):box(4.7, 0, -1, 5.3, 3, 11)
    local mesh
    setup(function() mesh = build(s) end)
    it("splits the walkable area into two parts with no path between", function()
      local _, _, reached = geom.route(mesh, 2, 0, 5, 8, 0, 5)
      assert.is_false(reached)
      assert.truthy(geom.nearest(mesh, 2, 0, 5))
      assert.truthy(geom.nearest(mesh, 8, 0, 5))
      -- no polygon on or next to the wall (radius 0.6 around it)
      local ref, _, _, _, over = geom.nearest(mesh, 5, 0, 5, 0.2, 1, 0.2)
      assert.is_true(ref == nil or not over)
    end)
    it("joins both parts through a doorway wider than the agent", function()
      local d = geom.scene():floor(0, 0, 10, 10, 0):box(4.7, 0, -1, 5.3, 3, 4):box(4.7, 0, 6, 5.3, 3, 11)
      local m = build(d)
      local pts, _, reached = geom.route(m, 2, 0, 1, 8, 0, 1)
      assert.is_true(reached)
      assert.is_true(#pts >= 12)   -- turns through the doorway
    end)
    it("keeps them apart for a doorway narrower than the agent", function()
      local d = geom.scene():floor(0, 0, 10, 10, 0):box(4.7, 0, -1, 5.3, 3, 4.6):box(4.7, 0, 5.4, 5.3, 3, 11)
      local _, _, reached = geom.route(build(d), 2, 0, 1, 8, 0, 1)
      assert.is_false(reached)
    end)
  end)

  describe("steps", function()
    -- floor at 0 for x < 5, floor at h for x > 5, joined by a vertical riser
    local function step(h)
      local s = geom.scene():floor(0, 0, 5, 10, 0):floor(5, 0, 10, 10, h)
      local a, b = s:vertex(5, 0, 0), s:vertex(5, 0, 10)
      local c, d = s:vertex(5, h, 10), s:vertex(5, h, 0)
      return s:quad(a, b, c, d)
    end
    it("lower than the max climb (0.9) are walked up", function()
      local _, _, reached = geom.route(build(step(0.6)), 2, 0, 5, 8, 0.6, 5)
      assert.is_true(reached)
    end)
    it("higher than the max climb block the way", function()
      local m = build(step(1.4))
      assert.truthy(geom.nearest(m, 8, 1.4, 5))
      local _, _, reached = geom.route(m, 2, 0, 5, 8, 1.4, 5)
      assert.is_false(reached)
    end)
    it("follow agentMaxClimb", function()
      local _, _, reached = geom.route(build(step(1.4), { agentMaxClimb = 1.6 }), 2, 0, 5, 8, 1.4, 5)
      assert.is_true(reached)
    end)
  end)

  describe("slopes", function()
    -- a 10 x 10 ramp rising along x by 10 * tan(angle)
    local function ramp(deg)
      return geom.scene():ramp_x(0, 0, 10, 10, 0, 10 * math.tan(math.rad(deg)))
    end
    it("gentler than the max slope are walkable, following the surface", function()
      local m = build(ramp(30))
      local ref, _, y = geom.nearest(m, 5, 2.9, 5, 0.5, 2, 0.5)
      assert.truthy(ref)
      assert.is_true(near(y, 5 * math.tan(math.rad(30)), 0.3), "height " .. tostring(y))
    end)
    it("steeper than the max slope produce nothing", function()
      local mesh, _, code = navmesh.build(ramp(60).vertices, ramp(60).triangles)
      assert.is_nil(mesh)
      assert.equal("ERR_EMPTY", code)
    end)
    it("follow agentMaxSlope", function()
      local r = ramp(50)
      assert.is_nil((navmesh.build(r.vertices, r.triangles)))
      assert.truthy((navmesh.build(r.vertices, r.triangles, { agentMaxSlope = 55 })))
    end)
  end)

  describe("ceilings", function()
    -- a slab over the middle third of a floor, its underside at height h
    local function ceiling(h)
      return geom.scene():floor(0, 0, 12, 12, 0):box(4, h, -1, 8, h + 0.5, 13)
    end
    it("lower than the agent height make the floor under them unwalkable", function()
      local m = build(ceiling(1.5))
      local ref, _, y, _, over = geom.nearest(m, 6, 0, 6, 0.2, 0.5, 0.2)
      assert.is_true(ref == nil or not over or y > 1)
      local _, _, reached = geom.route(m, 1, 0, 6, 11, 0, 6)
      assert.is_false(reached)
    end)
    it("higher than the agent height leave it walkable", function()
      local m = build(ceiling(2.5))
      local ref, _, y, _, over = geom.nearest(m, 6, 0, 6, 0.2, 0.5, 0.2)
      assert.truthy(ref)
      assert.is_true(over and near(y, 0, 0.25))
      local _, _, reached = geom.route(m, 1, 0, 6, 11, 0, 6)
      assert.is_true(reached)
    end)
  end)

  describe("a hole", function()
    -- a 12 x 12 floor with a 4 x 4 hole in the middle
    local s = geom.scene():floor(0, 0, 12, 4, 0):floor(0, 8, 12, 12, 0):floor(0, 4, 4, 8, 0):floor(8, 4, 12, 8, 0)
    local mesh
    setup(function() mesh = build(s) end)
    it("has no polygon over it", function()
      local ref, _, _, _, over = geom.nearest(mesh, 6, 0, 6, 0.5, 1, 0.5)
      assert.is_true(ref == nil or not over)
    end)
    it("is walked around", function()
      local pts, _, reached = geom.route(mesh, 6, 0, 1.5, 6, 0, 10.5)
      assert.is_true(reached)
      local len = geom.length2d(pts)
      assert.is_true(#pts >= 12 and len > 9.5, ("%d points, length %.2f"):format(#pts / 3, len))
    end)
  end)

  describe("two floors above each other", function()
    -- ground floor and a 0.5 thick slab with its top at 4.5
    local s = geom.scene():floor(0, 0, 12, 12, 0):box(2, 4, 2, 10, 4.5, 10)
    local mesh
    setup(function() mesh = build(s) end)
    it("are both walkable at the same X/Z", function()
      local r1, _, y1, _, o1 = geom.nearest(mesh, 6, 0.2, 6, 0.5, 1, 0.5)
      local r2, _, y2, _, o2 = geom.nearest(mesh, 6, 4.6, 6, 0.5, 1, 0.5)
      assert.truthy(r1 and r2)
      assert.are_not.equal(r1, r2)
      assert.is_true(o1 and o2)
      assert.is_true(near(y1, 0, 0.25) and near(y2, 4.5, 0.25))
    end)
    it("are not connected", function()
      local _, _, reached = geom.route(mesh, 6, 0.2, 6, 6, 4.6, 6)
      assert.is_false(reached)
    end)
    it("keep both levels with each partition", function()
      for _, p in ipairs { "watershed", "monotone", "layers" } do
        local m = build(s, { partition = p })
        local r1 = geom.nearest(m, 6, 0.2, 6, 0.5, 1, 0.5)
        local r2 = geom.nearest(m, 6, 4.6, 6, 0.5, 1, 0.5)
        assert.truthy(r1 and r2 and r1 ~= r2, p)
      end
    end)
  end)

  describe("partitions", function()
    -- an L-shaped room with pillars: several regions whichever way
    local s = geom.scene():floor(0, 0, 20, 8, 0):floor(12, 8, 20, 20, 0)
    s:box(4, 0, 3, 5, 2, 4):box(15, 0, 12, 16, 2, 13):box(8, 0, 5, 9, 2, 6)
    -- (solo and tiled builds differ a little where an edge of the geometry
    -- lies exactly on a cell boundary, as Recast's do; compare like with like)
    for _, ts in ipairs { 0, 24 } do
      it("cover the same walkable area and give the same routes, tile size " .. ts, function()
        local areas, lens = {}, {}
        for _, p in ipairs { "watershed", "monotone", "layers" } do
          local m = build(s, { partition = p, tileSize = ts })
          local pts, _, reached = geom.route(m, 1, 0, 1, 18, 0, 18)
          assert.is_true(reached, p)
          areas[#areas + 1], lens[#lens + 1] = geom.walkable_area(m), geom.length2d(pts)
          print(("# partition %-9s tile %2d: %3d polys, area %.2f, route %.3f"):format(
            p, ts, m:info().polys, areas[#areas], lens[#lens]))
        end
        for i = 2, #areas do
          assert.is_true(math.abs(areas[i] - areas[1]) / areas[1] < 0.02)
          assert.is_true(math.abs(lens[i] - lens[1]) / lens[1] < 0.1)
        end
      end)
    end
  end)

  describe("area volumes", function()
    local s = geom.scene():floor(0, 0, 12, 12, 0)
    it("mark polygons with their area id", function()
      local m = build(s, { areas = { { kind = "box", bmin = { 4, -1, 4 }, bmax = { 8, 1, 8 }, area = 5 } } })
      local inside = geom.nearest(m, 6, 0, 6, 0.2, 1, 0.2)
      local outside = geom.nearest(m, 1.5, 0, 1.5, 0.2, 1, 0.2)
      assert.equal(5, m:getPolyArea(inside))
      assert.equal(0, m:getPolyArea(outside))
      assert.equal(1, m:getPolyFlags(inside))
      assert.equal(1, m:getPolyFlags(outside))
    end)
    it("of each kind; area -1 cuts a hole", function()
      for _, vol in ipairs {
        { kind = "box", bmin = { 4, -1, 4 }, bmax = { 8, 1, 8 }, area = -1 },
        { kind = "cylinder", center = { 6, -1, 6 }, radius = 2, height = 2, area = -1 },
        { kind = "convex", vertices = { 4, 0, 4, 8, 0, 4, 8, 0, 8, 4, 0, 8 }, hmin = -1, hmax = 1, area = -1 },
      } do
        local m = build(s, { areas = { vol } })
        local ref, _, _, _, over = geom.nearest(m, 6, 0, 6, 0.3, 1, 0.3)
        assert.is_true(ref == nil or not over, vol.kind)
        local pts, _, reached = geom.route(m, 6, 0, 1, 6, 0, 11)
        assert.is_true(reached and #pts > 6, vol.kind)
      end
    end)
    it("are avoided by filters with a high area cost", function()
      -- a strip of area 3 across the floor, open at both ends
      local m = build(s, { areas = { { kind = "box", bmin = { 2, -1, 5 }, bmax = { 12, 1, 7 }, area = 3 } } })
      assert.equal(3, m:getPolyArea((geom.nearest(m, 6, 0, 6, 0.2, 1, 0.2))))
      local sref, s1, s2, s3 = m:findNearestPoly(8, 0, 2)
      local eref, e1, e2, e3 = m:findNearestPoly(8, 0, 10)
      local function minx(filter)
        local polys = m:findPath(sref, eref, s1, s2, s3, e1, e2, e3, filter)
        local pts = m:findStraightPath(s1, s2, s3, e1, e2, e3, polys)
        local x = math.huge
        for i = 1, #pts, 3 do x = math.min(x, pts[i]) end
        return x
      end
      assert.is_true(minx() > 7)                                           -- straight through
      assert.is_true(minx(navmesh.filter { areaCost = { [3] = 100 } }) < 2.5) -- around the strip
    end)
  end)

  describe("off-mesh connections", function()
    -- two platforms with a 2 wu gap between them
    local s = geom.scene():floor(0, 0, 6, 6, 0):floor(8, 0, 14, 6, 0)
    local link = { start = { 5, 0, 3 }, ["end"] = { 9, 0, 3 }, radius = 0.5, bidirectional = true }
    it("are the only way across a gap", function()
      local _, _, reached = geom.route(build(s), 2, 0, 3, 12, 0, 3)
      assert.is_false(reached)
      for _, ts in ipairs { 0, 16 } do
        local m = build(s, { offMeshConnections = { link }, tileSize = ts })
        local pts, flags, ok = geom.route(m, 2, 0, 3, 12, 0, 3)
        assert.is_true(ok, "tile size " .. ts)
        local found = false
        for i, f in ipairs(flags) do
          if math.floor(f / 4) % 2 == 1 then
            found = true
            -- Detour snaps the start onto the polygon under it, within the radius
            assert.is_true((pts[3 * i - 2] - 5) ^ 2 + (pts[3 * i] - 3) ^ 2 <= 0.25)
          end
        end
        assert.is_true(found)
      end
    end)
    it("one-way connections are not used backwards", function()
      local one = { start = link.start, ["end"] = link["end"], radius = 0.5, bidirectional = false }
      local m = build(s, { offMeshConnections = { one } })
      local _, _, there = geom.route(m, 2, 0, 3, 12, 0, 3)
      local _, _, back = geom.route(m, 12, 0, 3, 2, 0, 3)
      assert.is_true(there)
      assert.is_false(back)
    end)
  end)
end)
