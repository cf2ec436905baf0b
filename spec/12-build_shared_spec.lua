-- Builds the three RecastDemo meshes of ../shared/meshes solo and tiled with
-- RecastDemo's defaults and compares each with the navmesh recastnavigation
-- built (../shared/navmeshes): polygon count within 5%, walkable area (sum of
-- polygon X/Z areas) within 1%, and on the oracle's query points: wherever
-- Detour reached the goal ours does too (>= 99%), with a straight path whose
-- length is within 2% of Detour's in >= 95% of those cases.
local helper = require "helper"
local navmesh = require "navmesh"
local geom = require "buildgeom"

local MESHES = { "dungeon", "nav_test", "undulating" }
-- The large worlds take seconds each: only with NAVMESH_LARGE=1 (tiled only,
-- with the settings their reference navmeshes were built with).
local LARGE = { city = { cellSize = 0.4, tileSize = 64 }, maze = { cellSize = 0.3, tileSize = 64 } }
if os.getenv("NAVMESH_LARGE") == "1" then
  MESHES[#MESHES + 1] = "maze"
  MESHES[#MESHES + 1] = "city"
end

-- Our mesh, Recast's mesh and the figures of one (mesh, mode) pair.
local function compare(name, mode)
  local cfg = LARGE[name] or (mode == "tiled" and { tileSize = 32 } or {})
  if LARGE[name] then cfg.threads = 2 end
  local ours, stats = assert(navmesh.buildObj(helper.shared .. "/meshes/" .. name .. ".obj", cfg,
                                              { maxNodes = LARGE[name] and 65535 or 2048 }))
  local theirs = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. "_" .. mode .. ".bin",
                                    { maxNodes = LARGE[name] and 65535 or 2048 }))
  local r = {
    polys = ours:info().polys, rpolys = theirs:info().polys,
    tiles = ours:info().tiles, rtiles = theirs:info().tiles,
    area = geom.walkable_area(ours), rarea = geom.walkable_area(theirs),
    reached = 0, goals = 0, close = 0, worst = 0, ms = stats.ms.total,
  }
  for _, c in ipairs(helper.oracle(name .. "_" .. mode)) do
    if c.path ~= helper.null and c.path.status == "success" then
      r.goals = r.goals + 1
      local s, e = c.start, c["end"]
      local pts, _, reached = geom.route(ours, s[1], s[2], s[3], e[1], e[2], e[3])
      if reached then
        r.reached = r.reached + 1
        local rel = math.abs(helper.length2d(pts) - c.straight.length_2d) / math.max(c.straight.length_2d, 1e-3)
        if rel <= 0.02 then r.close = r.close + 1 end
        r.worst = math.max(r.worst, rel)
      end
    end
  end
  ours:close()
  theirs:close()
  return r
end

describe("builds match recastnavigation's", function()
  if helper.skip_without_shared("build comparison specs") then return end
  for _, name in ipairs(MESHES) do
    for _, mode in ipairs(LARGE[name] and { "tiled" } or { "solo", "tiled" }) do
      describe(name .. " " .. mode, function()
        local r
        setup(function() r = compare(name, mode) end)
        it("reports its figures", function()
          print(("# %-10s %-5s polys %4d vs %4d (%+.1f%%)  tiles %3d vs %3d  area %9.2f vs %9.2f (%+.2f%%)"):format(
            name, mode, r.polys, r.rpolys, 100 * (r.polys - r.rpolys) / r.rpolys, r.tiles, r.rtiles,
            r.area, r.rarea, 100 * (r.area - r.rarea) / r.rarea))
          print(("# %-10s %-5s reached %d/%d (%.1f%%)  length within 2%%: %d/%d (%.1f%%), worst %.1f%%  build %.1f ms"):format(
            name, mode, r.reached, r.goals, helper.percent(r.reached, r.goals), r.close, r.reached,
            helper.percent(r.close, r.reached), 100 * r.worst, r.ms))
        end)
        it("has the same number of polygons within 5%", function()
          assert.is_true(math.abs(r.polys - r.rpolys) <= 0.05 * r.rpolys)
        end)
        it("has the same walkable area within 1%", function()
          assert.is_true(math.abs(r.area - r.rarea) <= 0.01 * r.rarea)
        end)
        it("reaches the goal wherever Detour did (>= 99%)", function()
          assert.is_true(r.goals > 0)
          assert.is_true(helper.percent(r.reached, r.goals) >= 99)
        end)
        it("finds straight paths within 2% of Detour's length (>= 95%)", function()
          assert.is_true(helper.percent(r.close, r.reached) >= 95)
        end)
      end)
    end
  end
end)
