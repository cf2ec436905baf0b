-- mesh:moveAlongSurface on generated levels: reaches open targets, slides
-- along walls, and never ends off the mesh.
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

-- A portable pseudo-random sequence (Park-Miller; exact in doubles on 5.1).
local function lcg(seed)
  local x = seed
  return function()
    x = (16807 * x) % 2147483647
    return x / 2147483647
  end
end

describe("moveAlongSurface", function()
  local lv, mesh
  setup(function()
    lv = levels.grid { n = 8, size = 2, pillars = { { 3, 3 }, { 4, 3 }, { 4, 4 }, { 1, 6 } } }
    mesh = lv.mesh
  end)
  teardown(function() mesh:close() end)

  it("reaches a target on the same open floor", function()
    local ref = lv:ref_at(1, 1)
    local x, y, z, visited = mesh:moveAlongSurface(ref, 1, 0, 1, 4.5, 0, 2.5)
    assert.is_true(helper.near(x, 4.5) and helper.near(y, 0) and helper.near(z, 2.5))
    assert.are.equal(ref, visited[1])
    assert.are.equal(lv:ref_at(4.5, 2.5), visited[#visited])
  end)

  it("slides along a wall instead of crossing it", function()
    local ref = lv:ref_at(1, 1)
    -- diagonally out through the level's edge z = 0: keeps the x motion
    local x, _, z, visited = mesh:moveAlongSurface(ref, 1, 0, 1, 3, 0, -1)
    assert.is_true(helper.near(x, 3) and helper.near(z, 0))
    assert.are.same({ ref, lv:ref_at(3, 1) }, visited)
    -- into the pillar cell x 6..8, z 6..8: stops on its face x = 6
    ref = lv:ref_at(5, 7)
    x, _, z = mesh:moveAlongSurface(ref, 5, 0, 7, 6.5, 0, 7)
    assert.is_true(helper.near(x, 6) and helper.near(z, 7))
    -- deeper in, the pillar's face z = 8 (reached round its corner) is closer
    x, _, z = mesh:moveAlongSurface(ref, 5, 0, 7, 7, 0, 7.5)
    assert.is_true(helper.near(x, 7) and helper.near(z, 8))
  end)

  it("never ends off the mesh, and its path is a chain of neighbours", function()
    local rnd = lcg(12345)
    mesh:seed(7)
    local moves, reached, off = 400, 0, 0
    for _ = 1, moves do
      local ref, sx, sy, sz = mesh:findRandomPoint()
      local ex, ez = sx + (rnd() - 0.5) * 8, sz + (rnd() - 0.5) * 8
      local x, _, z, visited = mesh:moveAlongSurface(ref, sx, sy, sz, ex, 0, ez)
      if not levels.on_mesh(lv, x, z, 1e-4) then off = off + 1 end
      if helper.near(x, ex) and helper.near(z, ez) then reached = reached + 1 end
      assert.are.equal(ref, visited[1])
      -- the end point lies on (or on the edge of) the last visited polygon
      local cx, _, cz = mesh:closestPointOnPoly(visited[#visited], x, 0, z)
      assert.is_true(helper.near(cx, x, 1e-4) and helper.near(cz, z, 1e-4))
    end
    print(("# moveAlongSurface: %d random moves, %d reached their target, %d ended off the mesh"):format(
      moves, reached, off))
    assert.are.equal(0, off)
    assert.is_true(reached > 0 and reached < moves)
  end)

  it("projects the result onto the surface height", function()
    local sl = levels.grid { n = 4, size = 2, height = function(x) return 0.25 * x end }
    local ref = sl:ref_at(1, 1)
    local x, y, z = sl.mesh:moveAlongSurface(ref, 1, 0.25, 1, 5, 0, 3)
    assert.is_true(helper.near(x, 5) and helper.near(z, 3))
    assert.is_true(helper.near(y, 1.25, 1e-3))
    sl.mesh:close()
  end)

  it("treats polygons the filter rejects as walls", function()
    local f = navmesh.filter { exclude = 2 }
    local a, b = lv:ref_at(3, 1), lv:ref_at(3, 3)
    mesh:setPolyFlags(a, 2)
    -- with one cell excluded the walk goes round it within its search circle
    local x, _, z = mesh:moveAlongSurface(lv:ref_at(1, 1), 1, 0, 1, 5, 0, 1, f)
    assert.is_true(helper.near(x, 5) and helper.near(z, 1))
    mesh:setPolyFlags(b, 2)
    x, _, z = mesh:moveAlongSurface(lv:ref_at(1, 1), 1, 0, 1, 5, 0, 1, f)
    mesh:setPolyFlags(a, 1)
    mesh:setPolyFlags(b, 1)
    assert.is_true(helper.near(x, 2) and helper.near(z, 1))
  end)

  it("raises on bad arguments", function()
    local ref = lv:ref_at(1, 1)
    assert.has_error(function() mesh:moveAlongSurface(ref, 1, 0, 1, 0 / 0, 0, 1) end)
    assert.has_error(function() mesh:moveAlongSurface(ref + 1000, 1, 0, 1, 2, 0, 1) end)
    assert.has_error(function() mesh:moveAlongSurface(ref, 1, 0, 1, 2, 0) end)
    assert.has_error(function() mesh:moveAlongSurface(ref, 1, 0, 1, 2, 0, 1, "filter") end)
  end)
end)
