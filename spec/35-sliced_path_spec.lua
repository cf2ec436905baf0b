-- Sliced pathfinding (findPathBegin / findPathStep / findPathEnd) and the
-- per-call iteration cap of findPath: same corridors as findPath on every
-- oracle case, partial corridors when stopped early, and the rules about
-- other queries in between.
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

-- Runs a sliced search with steps of `step` iterations; returns polys, partial, steps.
local function sliced(mesh, sref, eref, s, e, step, filter)
  assert.is_true(mesh:findPathBegin(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3], filter))
  local steps, state = 0, "in_progress"
  while state == "in_progress" do
    local n
    state, n = mesh:findPathStep(step)
    assert.is_true(n <= step)
    steps = steps + 1
  end
  assert.are.equal("done", state)
  local polys, partial = mesh:findPathEnd()
  return polys, partial, steps
end

describe("sliced findPath", function()
  describe("gives findPath's corridors on every oracle case", function()
    if helper.skip_without_shared("sliced findPath oracle specs") then return end
    local all = {}
    for _, n in ipairs(helper.small_meshes) do all[#all + 1] = n end
    for _, n in ipairs(helper.large_meshes) do all[#all + 1] = n end
    for _, name in ipairs(all) do
      if helper.exists(helper.shared .. "/oracle/" .. name .. ".jsonl") then
        it(name, function()
          local large = name == "city_tiled" or name == "maze_tiled"
          local mesh = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. ".bin",
                                           { maxNodes = large and 65535 or 2048 }))
          local n, same, detour, calls = 0, 0, 0, 0
          for _, c in ipairs(helper.oracle(name)) do
            if c.path ~= helper.null then
              local s, e = c.nearest_start.pos, c.nearest_end.pos
              local sr, er = c.nearest_start.ref, c.nearest_end.ref
              local step = ({ 1, 7, 64 })[c.case % 3 + 1] * (large and 40 or 1)
              local p1, part1 = mesh:findPath(sr, er, s[1], s[2], s[3], e[1], e[2], e[3])
              local p2, part2, steps = sliced(mesh, sr, er, s, e, step)
              calls = calls + steps
              n = n + 1
              if part1 == part2 and table.concat(p1, ",") == table.concat(p2, ",") then same = same + 1 end
              if table.concat(p2, ",") == table.concat(c.path.polys, ",") then detour = detour + 1 end
            end
          end
          mesh:close()
          print(("# sliced %-17s %d/%d equal findPath, %d/%d equal Detour's corridor (%d step calls)"):format(
            name, same, n, detour, n, calls))
          assert.are.equal(n, same)
          assert.are.equal(n, detour)
        end)
      end
    end
  end)

  describe("on a generated level", function()
    local lv, mesh, s, e, sref, eref
    setup(function()
      lv = levels.grid { n = 12, size = 2, pillars = { { 5, 2 }, { 5, 3 }, { 5, 4 }, { 5, 5 }, { 5, 6 }, { 5, 7 } } }
      mesh = lv.mesh
      s, e = { 1, 0, 9 }, { 23, 0, 9 }
      sref, eref = lv:ref_at(s[1], s[3]), lv:ref_at(e[1], e[3])
    end)
    teardown(function() mesh:close() end)

    it("findPath with maxIterations stops early with a partial corridor and says so", function()
      local full, partial, oon, unfinished = mesh:findPath(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3])
      assert.is_false(partial or oon or unfinished)
      local p, part, _, unf = mesh:findPath(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3], nil, { maxIterations = 5 })
      assert.is_true(part and unf)
      assert.are.equal(sref, p[1])
      assert.is_true(#p < #full)
      -- the same as a sliced search ended after 5 iterations
      mesh:findPathBegin(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3])
      assert.are.equal("in_progress", (mesh:findPathStep(5)))
      local q, qpart = mesh:findPathEnd()
      assert.are.same(p, q)
      assert.is_true(qpart)
      -- a cap that is large enough changes nothing
      local big, bpart, _, bunf = mesh:findPath(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3], nil, { maxIterations = 100000 })
      assert.are.same(full, big)
      assert.is_false(bpart or bunf)
    end)

    it("keeps going across queries that do not search", function()
      local full = mesh:findPath(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3])
      mesh:findPathBegin(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3])
      mesh:findPathStep(3)
      mesh:findNearestPoly(5, 0, 5)
      mesh:raycast(sref, 1, 0, 9, 20, 0, 9)
      mesh:moveAlongSurface(sref, 1, 0, 9, 3, 0, 9)
      mesh:findLocalNeighbourhood(sref, 1, 0, 9, 3)
      mesh:queryPolygons(5, 0, 5, 3, 3, 3)
      mesh:getPolyWallSegments(sref)
      mesh:findRandomPoint()
      mesh:closestPointOnPoly(sref, 1, 0, 9)
      local state = mesh:findPathStep(1000000)
      assert.are.equal("done", state)
      assert.are.same(full, (mesh:findPathEnd()))
    end)

    local takers = {
      findPath = function(m) m:findPath(sref, eref, 1, 0, 9, 23, 0, 9) end,
      findPathBegin = function(m) m:findPathBegin(sref, sref, 1, 0, 9, 1, 0, 9) m:findPathEnd() end,
      findPolysAroundCircle = function(m) m:findPolysAroundCircle(sref, 1, 0, 9, 3) end,
      findPolysAroundShape = function(m) m:findPolysAroundShape(sref, { 0, 0, 8, 2, 0, 8, 2, 0, 10 }) end,
      findDistanceToWall = function(m) m:findDistanceToWall(sref, 1, 0, 9, 3) end,
      findRandomPointAroundCircle = function(m) m:findRandomPointAroundCircle(sref, 1, 0, 9, 3) end,
      path = function(m) m:path(1, 0, 9, 23, 0, 9) end,
      setPolyFlags = function(m) m:setPolyFlags(eref, 1) end,
    }
    for name, take in pairs(takers) do
      it("ends when " .. name .. " runs in between: step and end then fail", function()
        mesh:findPathBegin(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3])
        mesh:findPathStep(2)
        take(mesh)
        local st, msg, code = mesh:findPathStep(10)
        assert.is_nil(st)
        assert.matches("no sliced path search in progress", msg)
        assert.are.equal("ERR_STATE", code)
        local polys, msg2, code2 = mesh:findPathEnd()
        assert.is_nil(polys)
        assert.matches("findPathEnd", msg2)
        assert.are.equal("ERR_STATE", code2)
      end)
    end

    it("fails step and end without a search, and after the end", function()
      local fresh = levels.grid { n = 2, size = 2 }
      assert.are.equal("ERR_STATE", select(3, fresh.mesh:findPathStep(5)))
      assert.are.equal("ERR_STATE", select(3, fresh.mesh:findPathEnd()))
      fresh.mesh:close()
      mesh:findPathBegin(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3])
      mesh:findPathStep(100000)
      assert.is_table(mesh:findPathEnd())
      assert.are.equal("ERR_STATE", select(3, mesh:findPathStep(5)))
    end)

    it("handles start == end in one step", function()
      mesh:findPathBegin(sref, sref, 1, 0, 9, 1.5, 0, 9)
      assert.are.equal("done", (mesh:findPathStep(1)))
      assert.are.same({ { sref }, false }, { mesh:findPathEnd() })
    end)

    it("uses a copy of the filter", function()
      local f = navmesh.filter { areaCost = { [0] = 1 } }
      local want = mesh:findPath(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3], f)
      mesh:findPathBegin(sref, eref, s[1], s[2], s[3], e[1], e[2], e[3], f)
      f:areaCost(0, 50)
      f:include(0)
      mesh:findPathStep(100000)
      assert.are.same(want, (mesh:findPathEnd()))
    end)

    it("raises on bad arguments", function()
      assert.has_error(function() mesh:findPathBegin(0, eref, 1, 0, 9, 23, 0, 9) end)
      assert.has_error(function() mesh:findPathBegin(sref, eref, 1, 0, 9, 23, 0 / 0, 9) end)
      assert.has_error(function() mesh:findPathBegin(sref, eref, 1, 0, 9, 23, 0, 9, 7) end)
      mesh:findPathBegin(sref, eref, 1, 0, 9, 23, 0, 9)
      assert.has_error(function() mesh:findPathStep(0) end)
      assert.has_error(function() mesh:findPathStep() end)
      assert.has_error(function() mesh:findPathStep("many") end)
      assert.has_error(function() mesh:findPath(sref, eref, 1, 0, 9, 23, 0, 9, nil, { maxIterations = 0 }) end)
      assert.has_error(function() mesh:findPath(sref, eref, 1, 0, 9, 23, 0, 9, nil, { maxIter = 5 }) end)
      assert.has_error(function() mesh:findPath(sref, eref, 1, 0, 9, 23, 0, 9, nil, { maxIterations = 1.5 }) end)
    end)
  end)
end)
