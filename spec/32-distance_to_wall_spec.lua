-- mesh:findDistanceToWall: the distance equals a brute-force minimum over the
-- level's boundary edges; hit point and normal are consistent with it.
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

-- Brute force: nearest boundary edge of the level to (x, z).
local function nearest_wall(lv, x, z)
  local best = math.huge
  for _, w in ipairs(lv.walls) do
    local d = helper.dist_pt_seg2d(x, z, w[1], w[2], w[3], w[4])
    if d < best then best = d end
  end
  return best
end

describe("findDistanceToWall", function()
  local lv, mesh
  setup(function()
    lv = levels.grid { xs = { 0, 1.5, 4, 5, 8, 9.5, 12 }, zs = { 0, 2, 3, 6, 7.5, 10, 12 },
                       pillars = { { 2, 2 }, { 3, 4 } }, split = function(i, j) return (i + j) % 3 == 0 end }
    mesh = lv.mesh
  end)
  teardown(function() mesh:close() end)

  it("equals the brute-force minimum over boundary edges", function()
    mesh:seed(2024)
    local n, worst = 300, 0
    for _ = 1, n do
      local ref, x, y, z = mesh:findRandomPoint()
      local d, hx, hy, hz, nx, ny, nz = mesh:findDistanceToWall(ref, x, y, z, 100)
      local want = nearest_wall(lv, x, z)
      worst = math.max(worst, math.abs(d - want))
      assert.is_true(helper.near(d, want, 1e-4))
      -- the hit point lies on a wall at that distance, the normal points from it to the centre
      assert.is_true(helper.near(nearest_wall(lv, hx, hz), 0, 1e-4))
      assert.is_true(helper.near(math.sqrt((hx - x) ^ 2 + (hz - z) ^ 2), d, 1e-4))
      assert.is_true(helper.near(hy, 0))
      if d > 1e-3 then
        assert.is_true(helper.near(nx, (x - hx) / d, 1e-3) and helper.near(nz, (z - hz) / d, 1e-3))
        assert.is_true(helper.near(nx * nx + ny * ny + nz * nz, 1, 1e-5))
      end
    end
    print(("# findDistanceToWall: %d random points, largest difference from brute force %.3g"):format(n, worst))
  end)

  it("returns only maxRadius when no wall is that close", function()
    local ref = lv:ref_at(1, 0.5)
    local res = { mesh:findDistanceToWall(ref, 1, 0, 0.5, 0.375) }
    assert.are.same({ 0.375 }, res)
    local d = mesh:findDistanceToWall(ref, 1, 0, 0.5, 0.8)
    assert.is_true(helper.near(d, 0.5))
  end)

  it("counts edges to polygons the filter rejects as walls", function()
    local ref, other = lv:ref_at(7.6, 1.5), lv:ref_at(8.75, 1)
    local f = navmesh.filter { exclude = 4 }
    mesh:setPolyFlags(other, 4)
    local d, hx, _, hz = mesh:findDistanceToWall(ref, 7.6, 0, 1.5, 10, f)
    mesh:setPolyFlags(other, 1)
    assert.is_true(helper.near(d, 0.4) and helper.near(hx, 8) and helper.near(hz, 1.5))
    d = mesh:findDistanceToWall(ref, 7.6, 0, 1.5, 10, f)
    assert.is_true(helper.near(d, nearest_wall(lv, 7.6, 1.5)) and d > 0.4)
  end)

  it("agrees with brute force over the reachable polygons of the shared navmeshes", function()
    if helper.skip_without_shared("findDistanceToWall shared-mesh spec") then return end
    for _, name in ipairs { "dungeon_tiled", "nav_test_tiled", "undulating_solo" } do
      local m = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. ".bin"))
      m:seed(99)
      local agree, n, R = 0, 200, 4
      for _ = 1, n do
        local ref, x, y, z = m:findRandomPoint()
        local d = m:findDistanceToWall(ref, x, y, z, R)
        -- brute force: wall parts of every polygon reachable through portals within R
        local best = R
        for _, p in ipairs((m:findPolysAroundCircle(ref, x, y, z, R))) do
          local segs, refs = m:getPolyWallSegments(p)
          for k = 1, #refs do
            if refs[k] == 0 then
              local o = 6 * (k - 1)
              best = math.min(best, (helper.dist_pt_seg2d(x, z, segs[o + 1], segs[o + 3], segs[o + 4], segs[o + 6])))
            end
          end
        end
        -- never closer than a real wall; equal unless a wall on another layer is
        -- nearer (float32 precision: undulating lies near x, z = 5000)
        local tol = math.max(1e-4, (math.abs(x) + math.abs(z)) * 5e-7)
        assert.is_true(d >= best - tol)
        if helper.near(d, best, tol) then agree = agree + 1 end
      end
      m:close()
      print(("# findDistanceToWall %-16s %d/%d equal the brute force"):format(name, agree, n))
      assert.is_true(agree >= 0.95 * n)
    end
  end)

  it("raises on bad arguments", function()
    local ref = lv:ref_at(1, 0.5)
    assert.has_error(function() mesh:findDistanceToWall(ref, 0.75, 0, 1, -1) end)
    assert.has_error(function() mesh:findDistanceToWall(ref, 0.75, 0, 1, 0 / 0) end)
    assert.has_error(function() mesh:findDistanceToWall(ref, 0.75, 0 / 0, 1, 1) end)
    assert.has_error(function() mesh:findDistanceToWall(0, 0.75, 0, 1, 1) end)
    assert.has_error(function() mesh:findDistanceToWall(ref, 0.75, 0, 1) end)
  end)
end)
