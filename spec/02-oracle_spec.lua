-- Agreement with Detour on the shared oracle cases (../shared/oracle):
-- nearest polygon (ref, position 1e-4, over-poly), corridors (status and
-- polygon list), and straight paths from Detour's own corridor (points 1e-4,
-- flags, refs). Prints the figures; lists every disagreeing case.
local helper = require "helper"
local navmesh = require "navmesh"

local TOL = 1e-4

local function same_point(x, y, z, p)
  return helper.near(x, p[1], TOL) and helper.near(y, p[2], TOL) and helper.near(z, p[3], TOL)
end

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
  local r = { nearest = 0, nearest_n = 0, path = 0, path_n = 0, straight = 0, straight_n = 0, bad = {},
              reach = 0, islands = mesh:info().islands }
  for _, c in ipairs(helper.oracle(name)) do
    for _, k in ipairs { "start", "end" } do
      local o, p = c["nearest_" .. k], c[k]
      local ref, x, y, z, over = mesh:findNearestPoly(p[1], p[2], p[3], 2, 4, 2)
      r.nearest_n = r.nearest_n + 1
      if (not o.found and ref == nil) or
         (ref == o.ref and same_point(x, y, z, o.pos) and over == o.over_poly) then
        r.nearest = r.nearest + 1
      else
        r.bad[#r.bad + 1] = ("case %d nearest_%s: got %s want %s"):format(c.case, k, tostring(ref), tostring(o.ref))
      end
    end
    if c.path ~= helper.null then
      local s, e = c.nearest_start.pos, c.nearest_end.pos
      local polys, partial = mesh:findPath(c.nearest_start.ref, c.nearest_end.ref,
                                           s[1], s[2], s[3], e[1], e[2], e[3])
      local ok = #polys == c.path.npolys and partial == (c.path.status == "partial")
      for i = 1, #polys do ok = ok and polys[i] == c.path.polys[i] end
      r.path_n = r.path_n + 1
      -- every partial path of the oracle comes from an island boundary
      if mesh:isReachable(c.nearest_start.ref, c.nearest_end.ref) == (c.path.status == "success") then
        r.reach = r.reach + 1
      end
      if ok then r.path = r.path + 1
      else r.bad[#r.bad + 1] = ("case %d path: got %d polys (partial %s), want %d (%s)"):format(
        c.case, #polys, tostring(partial), c.path.npolys, c.path.status) end
    end
    if c.straight ~= helper.null then
      local s, e = c.nearest_start.pos, c.straight.end_input
      local pts, flags, refs = mesh:findStraightPath(s[1], s[2], s[3], e[1], e[2], e[3], c.path.polys)
      local ok = #flags == c.straight.npoints and #pts == 3 * #flags and #refs == #flags
      for i = 1, ok and #flags or 0 do
        ok = ok and flags[i] == c.straight.flags[i] and refs[i] == c.straight.refs[i] and
             same_point(pts[3 * i - 2], pts[3 * i - 1], pts[3 * i], c.straight.points[i])
      end
      r.straight_n = r.straight_n + 1
      if ok then r.straight = r.straight + 1
      else r.bad[#r.bad + 1] = ("case %d straight: got %d points, want %d"):format(c.case, #flags, c.straight.npoints) end
    end
  end
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
