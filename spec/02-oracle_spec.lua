-- Agreement with Detour on the shared oracle cases (../shared/oracle):
-- nearest polygon (ref, position 1e-4, over-poly), corridors (status and
-- polygon list), and straight paths from Detour's own corridor (points 1e-4,
-- flags, refs). Prints the figures; lists every disagreeing case.
local helper = require "helper"
local navmesh = require "navmesh"

-- Runs every case of one file; returns counts and the list of disagreements.
-- `how` = "mset" loads the shared file; "mapped" saves it in our own format
-- and maps that file read-only (stored links checked, not rebuilt).
local function compare(name, how)
  local large = name == "city_tiled" or name == "maze_tiled"
  local opts = { maxNodes = large and 65535 or 2048 }
  local mesh = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. ".bin", opts))
  if how == "mapped" then
    local path = os.tmpname()
    assert(mesh:save(path, "native"))
    mesh:close()
    opts.mmap = true
    mesh = assert(navmesh.load(path, opts))
    os.remove(path) -- the mapping stays valid
  end
  local r = helper.oracle_tally(mesh)
  for _, c in ipairs(helper.oracle(name)) do helper.oracle_case(mesh, c, r) end
  mesh:close()
  return r
end

local all = {}
for _, n in ipairs(helper.small_meshes) do all[#all + 1] = n end
for _, n in ipairs(helper.large_meshes) do all[#all + 1] = n end

describe("oracle agreement", function()
  if helper.skip_without_shared("oracle agreement specs") then return end
  for _, name in ipairs(all) do
    if helper.exists(helper.shared .. "/oracle/" .. name .. ".jsonl") then
      describe(name, function()
        local r
        setup(function() r = compare(name) end)
        it("reports its figures", function()
          print(("# %-17s nearest %d/%d (%.2f%%)  corridors %d/%d (%.2f%%)  straight %d/%d (%.2f%%)"):format(
            name, r.nearest, r.nearest_n, helper.percent(r.nearest, r.nearest_n),
            r.path, r.path_n, helper.percent(r.path, r.path_n),
            r.straight, r.straight_n, helper.percent(r.straight, r.straight_n)))
          for _, b in ipairs(r.bad) do print("#   disagree: " .. b) end
        end)
        it("answers the same from its own format, memory-mapped", function()
          local m = compare(name, "mapped")
          assert.are.same(r, m)
        end)
        it("agrees on nearest polygons (>= 99.5%)", function()
          assert.is_true(helper.percent(r.nearest, r.nearest_n) >= 99.5)
        end)
        it("agrees on corridors (>= 99.5%)", function()
          assert.is_true(helper.percent(r.path, r.path_n) >= 99.5)
        end)
        it("agrees on every straight path from Detour's corridor", function()
          assert.are.equal(r.straight_n, r.straight)
        end)
        it("knows its islands: isReachable is false exactly for Detour's partial paths", function()
          local documented = { dungeon_solo = 4, dungeon_tiled = 5, nav_test_solo = 17, nav_test_tiled = 33,
                               undulating_solo = 1, undulating_tiled = 7, city_tiled = 81, maze_tiled = 1 }
          print(("# %-17s %d islands, isReachable right on %d/%d corridors"):format(name, r.islands, r.reach, r.path_n))
          assert.are.equal(documented[name], r.islands)
          assert.are.equal(r.path_n, r.reach)
        end)
      end)
    end
  end
end)
