-- Filter extras: the area-change cost (Unreal's addition: a fixed cost for a
-- step into a polygon of another area) and the heuristic scale.
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

-- Whether any polygon of the corridor has the given area.
local function uses_area(mesh, polys, area)
  for _, r in ipairs(polys) do
    if mesh:getPolyArea(r) == area then return true end
  end
  return false
end

describe("filter area-change cost", function()
  local lv, mesh, sref, eref
  setup(function()
    -- 6 x 3 cells; the middle row between the end cells is area 1 ("mud")
    lv = levels.grid { xs = { 0, 2, 4, 6, 8, 10, 12 }, zs = { 0, 2, 4, 6 },
                       areas = function(i, j) return (j == 1 and i >= 1 and i <= 4) and 1 or 0 end }
    mesh = lv.mesh
    sref, eref = lv:ref_at(1, 3), lv:ref_at(11, 3)
  end)
  teardown(function() mesh:close() end)

  local function corridor(filter)
    return (mesh:findPath(sref, eref, 1, 0, 3, 11, 0, 3, filter))
  end

  it("changes the corridor: a path avoids needless area changes", function()
    local straight = corridor()
    assert.are.equal(6, #straight)
    assert.is_true(uses_area(mesh, straight, 1))
    -- area costs alone (equal) keep the straight corridor
    assert.are.same(straight, corridor(navmesh.filter { areaCost = { [1] = 1 } }))
    -- a cost of 5 per change (2 changes) beats the 2.8 wu detour
    local f = navmesh.filter { areaChangeCost = { [0] = { [1] = 5 }, [1] = { [0] = 5 } } }
    local around = corridor(f)
    assert.is_false(uses_area(mesh, around, 1))
    assert.are.equal(8, #around)
    -- Unreal's form: a cost for entering area 1 from any other area
    assert.are.same(around, corridor(navmesh.filter { areaChangeCost = { ["*"] = { [1] = 5 } } }))
    -- a small change cost is a cost, not a ban
    assert.are.same(straight, corridor(navmesh.filter { areaChangeCost = { ["*"] = { ["*"] = 0.5 } } }))
    -- the sliced search uses it too
    mesh:findPathBegin(sref, eref, 1, 0, 3, 11, 0, 3, f)
    mesh:findPathStep(1000)
    assert.are.same(around, (mesh:findPathEnd()))
  end)

  it("adds to the costs of findPolysAroundCircle", function()
    local f = navmesh.filter { areaChangeCost = { [0] = { [1] = 5 } } }
    local refs, _, plain = mesh:findPolysAroundCircle(sref, 1, 0, 3, 2.5)
    local refs2, _, costly = mesh:findPolysAroundCircle(sref, 1, 0, 3, 2.5, f)
    local mud = lv:ref_at(3, 3)
    local a, b
    for i, r in ipairs(refs) do if r == mud then a = plain[i] end end
    for i, r in ipairs(refs2) do if r == mud then b = costly[i] end end
    assert.is_true(helper.near(b, a + 5, 1e-4))
  end)

  it("looks up the most specific pair", function()
    local f = navmesh.filter { areaChangeCost = { ["*"] = { ["*"] = 1, [2] = 2 }, [3] = { ["*"] = 3, [2] = 4 } } }
    assert.are.equal(4, f:areaChangeCost(3, 2))
    assert.are.equal(3, f:areaChangeCost(3, 5))
    assert.are.equal(2, f:areaChangeCost(1, 2))
    assert.are.equal(1, f:areaChangeCost(1, 5))
    assert.are.equal(0, f:areaChangeCost(5, 5)) -- no change, no cost
    f:areaChangeCost(1, 5, 7)
    assert.are.equal(7, f:areaChangeCost(1, 5))
    assert.are.equal(0, navmesh.filter():areaChangeCost(0, 1))
  end)

  it("raises on bad values", function()
    assert.has_error(function() navmesh.filter { areaChangeCost = 5 } end)
    assert.has_error(function() navmesh.filter { areaChangeCost = { [0] = 5 } } end)
    assert.has_error(function() navmesh.filter { areaChangeCost = { [64] = { [1] = 1 } } } end)
    assert.has_error(function() navmesh.filter { areaChangeCost = { [0] = { [1] = -1 } } } end)
    assert.has_error(function() navmesh.filter { areaChangeCost = { [0] = { [1] = "x" } } } end)
    assert.has_error(function() navmesh.filter { areaChangeCost = { any = { [1] = 1 } } } end)
    local many = {}
    for a = 0, 40 do many[a] = { [63] = 1 } end
    assert.has_error(function() navmesh.filter { areaChangeCost = many } end, "bad option 'areaChangeCost' to 'navmesh.filter' (at most 32 area pairs)")
    local f = navmesh.filter()
    assert.has_error(function() f:areaChangeCost(0, 64) end)
    assert.has_error(function() f:areaChangeCost(0, 1, 0 / 0) end)
  end)
end)

describe("filter heuristic scale", function()
  it("defaults to Detour's 0.999 and can be set", function()
    local f = navmesh.filter()
    assert.is_true(helper.near(f:heuristicScale(), 0.999, 1e-6))
    assert.is_true(helper.near(navmesh.filter { heuristicScale = 2 }:heuristicScale(), 2))
    assert.are.equal(0, f:heuristicScale(0))
    assert.has_error(function() f:heuristicScale(-1) end)
    assert.has_error(function() navmesh.filter { heuristicScale = "x" } end)
    assert.has_error(function() navmesh.filter { heuristicScale = -0.5 } end)
  end)

  it("trades search effort for optimality", function()
    local lv = levels.grid { n = 14, size = 2, pillars = { { 6, 3 }, { 6, 4 }, { 6, 5 }, { 6, 6 }, { 6, 7 }, { 6, 8 }, { 6, 9 } } }
    local m, s, e = lv.mesh, lv:ref_at(3, 13), lv:ref_at(25, 13)
    local function iterations(scale)
      m:findPathBegin(s, e, 3, 0, 13, 25, 0, 13, navmesh.filter { heuristicScale = scale })
      local _, n = m:findPathStep(100000)
      local polys = m:findPathEnd()
      assert.are.equal(s, polys[1])
      assert.are.equal(e, polys[#polys])
      return n, polys
    end
    local dijkstra, p0 = iterations(0)
    local default, p1 = iterations(0.999)
    local greedy = iterations(3)
    print(("# heuristicScale 0 / 0.999 / 3: %d / %d / %d node expansions"):format(dijkstra, default, greedy))
    assert.is_true(dijkstra > default and default > greedy)
    assert.are.equal(#p0, #p1)
    m:close()
  end)

  it("keeps Detour's corridors when set to 0.999 explicitly", function()
    if helper.skip_without_shared("heuristic scale oracle spec") then return end
    local m = assert(navmesh.load(helper.shared .. "/navmeshes/dungeon_tiled.bin"))
    local f, n, same = navmesh.filter { heuristicScale = 0.999 }, 0, 0
    for _, c in ipairs(helper.oracle("dungeon_tiled")) do
      if c.path ~= helper.null then
        local s, e = c.nearest_start.pos, c.nearest_end.pos
        local p = m:findPath(c.nearest_start.ref, c.nearest_end.ref, s[1], s[2], s[3], e[1], e[2], e[3], f)
        n = n + 1
        if table.concat(p, ",") == table.concat(c.path.polys, ",") then same = same + 1 end
      end
    end
    m:close()
    assert.are.equal(n, same)
  end)
end)
