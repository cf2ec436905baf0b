-- Edge inset through doorways of a generated level (no shared data needed;
-- spec/03-inset checks the rule on every oracle case of the shared meshes,
-- too slow for the valgrind suite): a path keeps `inset` away from the
-- jambs of a doorway wide enough for it, and crosses a doorway narrower
-- than twice the inset at its middle (design.md: min(d, half the portal)).
local helper = require "helper"
local levels = require "levels"

-- Two rooms (z < 4 and z > 4.5) joined by one doorway in a wall of depth
-- 0.5: the door cell spans x = 4 .. 4 + width.
local function rooms(width)
  return levels.grid {
    xs = { 0, 2, 4, 4 + width, 6 + width, 8 + width },
    zs = { 0, 2, 4, 4.5, 6.5, 8.5 },
    pillars = { { 0, 2 }, { 1, 2 }, { 3, 2 }, { 4, 2 } },
  }
end

-- The point of pts (flat xyz list) at height z in X/Z, or nil.
local function crossing(pts, z)
  for i = 1, #pts - 5, 3 do
    local az, bz = pts[i + 2], pts[i + 5]
    if (az - z) * (bz - z) <= 0 and az ~= bz then
      local t = (z - az) / (bz - az)
      return pts[i] + t * (pts[i + 3] - pts[i])
    end
  end
end

describe("edge inset through a doorway", function()
  it("crosses a doorway narrower than twice the inset at its middle", function()
    local lv = rooms(0.4)
    for _, inset in ipairs { 0.2, 0.3, 1.0 } do
      local pts, partial = lv.mesh:path(1, 0, 1, 7.4, 0, 7.5, { inset = inset })
      assert.is_false(partial)
      for _, z in ipairs { 4, 4.5 } do
        assert.is_true(helper.near(crossing(pts, z), 4.2, 1e-4), ("inset %g, z %g"):format(inset, z))
      end
    end
    lv.mesh:close()
  end)

  it("keeps the inset from both jambs of a wider doorway", function()
    local lv = rooms(1.0)
    local plain = lv.mesh:path(1, 0, 1, 8, 0, 7.5)
    local pts = lv.mesh:path(1, 0, 1, 8, 0, 7.5, { inset = 0.3 })
    for _, z in ipairs { 4, 4.5 } do
      local x = crossing(pts, z)
      assert.is_true(x >= 4.3 - 1e-4 and x <= 4.7 + 1e-4, ("z %g: x %g"):format(z, x))
    end
    -- without inset the path runs straight through, 0.23 from a jamb
    assert.are.equal(6, #plain)
    assert.is_true(helper.near(crossing(plain, 4), 1 + 7 * 3 / 6.5, 1e-4))
    lv.mesh:close()
  end)
end)
