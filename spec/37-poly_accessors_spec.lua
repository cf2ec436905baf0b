-- Point and polygon accessors on generated levels: closestPointOnPoly,
-- closestPointOnPolyBoundary, getPolyHeight, isValidPolyRef,
-- getPolyArea/Flags, setPolyArea/Flags; and the toolbox methods on a closed
-- handle.
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

describe("polygon accessors", function()
  local lv, mesh, ref
  setup(function()
    lv = levels.grid { n = 4, size = 2, height = function(x, z) return 0.5 * x + 0.25 * z end,
                       areas = function(i) return i end }
    mesh = lv.mesh
    ref = lv:ref_at(3, 3) -- cell (1,1): x 2..4, z 2..4
  end)
  teardown(function() mesh:close() end)

  it("closestPointOnPoly: the surface point above/below, or the nearest edge point", function()
    local x, y, z, over = mesh:closestPointOnPoly(ref, 3, 10, 3)
    assert.is_true(over)
    assert.is_true(helper.near(x, 3) and helper.near(z, 3) and helper.near(y, 2.25, 1e-3))
    x, y, z, over = mesh:closestPointOnPoly(ref, 6, 0, 3)
    assert.is_false(over)
    assert.is_true(helper.near(x, 4) and helper.near(z, 3) and helper.near(y, 2.75, 1e-3))
  end)

  it("closestPointOnPolyBoundary: the point itself inside, else the nearest edge point", function()
    local x, y, z = mesh:closestPointOnPolyBoundary(ref, 2.5, 7, 3.5)
    assert.are.same({ 2.5, 7, 3.5 }, { x, y, z })
    x, _, z = mesh:closestPointOnPolyBoundary(ref, 1, 0, 5)
    assert.is_true(helper.near(x, 2) and helper.near(z, 4))
  end)

  it("getPolyHeight: the surface height over the polygon, nil outside", function()
    assert.is_true(helper.near(mesh:getPolyHeight(ref, 3.5, 0, 2.5), 2.375, 1e-3))
    local h, msg, code = mesh:getPolyHeight(ref, 5, 0, 3)
    assert.is_nil(h)
    assert.matches("getPolyHeight", msg)
    assert.are.equal("ERR_NO_POLY", code)
  end)

  it("isValidPolyRef", function()
    assert.is_true(mesh:isValidPolyRef(ref))
    assert.is_false(mesh:isValidPolyRef(0))
    assert.is_false(mesh:isValidPolyRef(ref + 100000))
    assert.is_false(mesh:isValidPolyRef(-1))
    assert.is_false(mesh:isValidPolyRef(1.5))
  end)

  it("get/set area and flags", function()
    assert.are.equal(1, mesh:getPolyArea(ref))
    assert.are.equal(1, mesh:getPolyFlags(ref))
    mesh:setPolyArea(ref, 17)
    mesh:setPolyFlags(ref, 0x8001)
    assert.are.equal(17, mesh:getPolyArea(ref))
    assert.are.equal(0x8001, mesh:getPolyFlags(ref))
    mesh:setPolyArea(ref, 1)
    mesh:setPolyFlags(ref, 1)
    assert.has_error(function() mesh:setPolyArea(ref, 64) end)
    assert.has_error(function() mesh:setPolyFlags(ref, 0x10000) end)
    assert.has_error(function() mesh:setPolyFlags(ref, -1) end)
    assert.has_error(function() mesh:getPolyArea(0) end)
    assert.has_error(function() mesh:setPolyFlags(ref + 100000, 1) end)
  end)

  it("a flags change reaches findRandomPoint's area table at once", function()
    mesh:setPolyFlags(ref, 4)
    local f = navmesh.filter { include = 4 }
    assert.are.equal(ref, (mesh:findRandomPoint(f)))
    mesh:setPolyFlags(ref, 1)
    assert.is_nil((mesh:findRandomPoint(f)))
  end)
end)

describe("toolbox methods on a closed handle", function()
  it("raise 'attempt to use a closed navmesh.NavMesh'", function()
    local lv = levels.grid { n = 2, size = 2 }
    local m, r = lv.mesh, lv:ref_at(1, 1)
    m:close()
    local calls = {
      function() m:raycast(r, 1, 0, 1, 2, 0, 2) end,
      function() m:moveAlongSurface(r, 1, 0, 1, 2, 0, 2) end,
      function() m:findDistanceToWall(r, 1, 0, 1, 2) end,
      function() m:findRandomPoint() end,
      function() m:findRandomPointAroundCircle(r, 1, 0, 1, 2) end,
      function() m:seed(1) end,
      function() m:findPolysAroundCircle(r, 1, 0, 1, 2) end,
      function() m:findPolysAroundShape(r, { 0, 0, 0, 1, 0, 0, 1, 0, 1 }) end,
      function() m:findLocalNeighbourhood(r, 1, 0, 1, 2) end,
      function() m:queryPolygons(1, 0, 1, 1, 1, 1) end,
      function() m:getPolyWallSegments(r) end,
      function() m:findPathBegin(r, r, 1, 0, 1, 1, 0, 1) end,
      function() m:findPathStep(1) end,
      function() m:findPathEnd() end,
    }
    for _, f in ipairs(calls) do
      assert.error_matches(f, "NavMesh:%a+: attempt to use a closed navmesh%.NavMesh$")
    end
  end)

  it("survive garbage collection of a handle mid sliced search", function()
    local lv = levels.grid { n = 6, size = 2 }
    local s, e = lv:ref_at(1, 1), lv:ref_at(11, 11)
    lv.mesh:findPathBegin(s, e, 1, 0, 1, 11, 0, 11)
    lv.mesh:findPathStep(1)
    lv = nil
    collectgarbage()
    collectgarbage()
    assert.is_nil(lv)
  end)
end)
