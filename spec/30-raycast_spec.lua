-- mesh:raycast: agreement with Detour's raycast on every public oracle case
-- of the shared navmeshes (t within 1e-4, hit flag, normal within 1e-4,
-- visited polygons), then its contract on a level built here.
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

local TOL = 1e-4
local FLT_MAX = 3.40282347e+38

-- Compares one case; returns nil when it agrees, else a description.
local function check_case(mesh, c)
  local o = c.raycast
  local s, e = c.nearest_start.pos, c.nearest_end.pos
  local t, nx, ny, nz, polys = mesh:raycast(c.nearest_start.ref, s[1], s[2], s[3], e[1], e[2], e[3])
  local want_t = o.t >= FLT_MAX and math.huge or o.t
  local why
  if (t <= 1) ~= o.hit then
    why = ("hit %s, want %s"):format(tostring(t <= 1), tostring(o.hit))
  elseif not (t == want_t or helper.near(t, want_t, TOL)) then
    why = ("t %.9g, want %.9g"):format(t, want_t)
  elseif not (helper.near(nx, o.normal[1], TOL) and helper.near(ny, o.normal[2], TOL) and
              helper.near(nz, o.normal[3], TOL)) then
    why = ("normal (%g, %g, %g), want (%g, %g, %g)"):format(nx, ny, nz, o.normal[1], o.normal[2], o.normal[3])
  elseif #polys ~= o.npolys then
    why = ("%d polys, want %d"):format(#polys, o.npolys)
  else
    for i = 1, #polys do
      if polys[i] ~= o.polys[i] then why = ("poly %d is %d, want %d"):format(i, polys[i], o.polys[i]) break end
    end
  end
  local exact = ("%.9g"):format(t == math.huge and FLT_MAX or t) == ("%.9g"):format(o.t)
  return why, exact
end

local function compare(name)
  local large = name == "city_tiled" or name == "maze_tiled"
  local mesh = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. ".bin",
                                   { maxNodes = large and 65535 or 2048 }))
  local r = { n = 0, ok = 0, exact = 0, hits = 0, zero = 0, bad = {} }
  for _, c in ipairs(helper.oracle(name)) do
    if c.raycast ~= helper.null then
      r.n = r.n + 1
      if c.raycast.hit then r.hits = r.hits + 1 end
      if c.raycast.t == 0 and c.raycast.npolys == 0 then r.zero = r.zero + 1 end
      local why, exact = check_case(mesh, c)
      if exact then r.exact = r.exact + 1 end
      if why then r.bad[#r.bad + 1] = ("case %d: %s"):format(c.case, why)
      else r.ok = r.ok + 1 end
    end
  end
  mesh:close()
  return r
end

describe("raycast", function()
  describe("agrees with Detour's oracle", function()
    if helper.skip_without_shared("raycast oracle specs") then return end
    local all = {}
    for _, n in ipairs(helper.small_meshes) do all[#all + 1] = n end
    for _, n in ipairs(helper.large_meshes) do all[#all + 1] = n end
    local total, agree = 0, 0
    for _, name in ipairs(all) do
      if helper.exists(helper.shared .. "/oracle/" .. name .. ".jsonl") then
        it("on every case of " .. name, function()
          local r = compare(name)
          total, agree = total + r.n, agree + r.ok
          print(("# raycast %-17s %d/%d agree (%.2f%%), t bit-exact %d, %d hit a wall, %d stop at t=0 unable to enter"):format(
            name, r.ok, r.n, helper.percent(r.ok, r.n), r.exact, r.hits, r.zero))
          for _, b in ipairs(r.bad) do print("#   disagree: " .. b) end
          assert.are.equal(r.n, r.ok)
        end)
      end
    end
    it("reports the total", function()
      print(("# raycast total: %d/%d oracle cases agree"):format(agree, total))
      assert.are.equal(total, agree)
    end)
  end)

  describe("on a generated level", function()
    local mesh, lv
    setup(function()
      lv = levels.grid { n = 8, size = 2, pillars = { { 3, 3 }, { 4, 3 } } }
      mesh = lv.mesh
    end)
    teardown(function() mesh:close() end)

    it("reaches an open end with t = math.huge and no normal", function()
      local ref = lv:ref_at(1.5, 1.5)
      local t, nx, ny, nz, polys = mesh:raycast(ref, 1.5, 0, 1.5, 13.5, 0, 1.5)
      assert.are.equal(math.huge, t)
      assert.are.same({ 0, 0, 0 }, { nx, ny, nz })
      assert.are.equal(ref, polys[1])
      assert.are.equal(lv:ref_at(13.5, 1.5), polys[#polys])
      assert.are.equal(7, #polys)
    end)

    it("hits a pillar with the parameter and normal of its face", function()
      -- pillar cells (3,3) and (4,3) cover x 6..10, z 6..8
      local ref = lv:ref_at(1, 7)
      local t, nx, ny, nz = mesh:raycast(ref, 1, 0, 7, 11, 0, 7)
      assert.is_true(helper.near(t, 0.5, 1e-5)) -- x = 6 of the way 1 -> 11
      assert.is_true(helper.near(math.abs(nx), 1, 1e-6) and ny == 0 and helper.near(nz, 0, 1e-6))
      assert.is_true(nx < 0) -- faces back towards the ray's start
    end)

    it("hits the level's outer wall", function()
      local ref = lv:ref_at(15, 15)
      local t, nx, _, nz = mesh:raycast(ref, 15, 0, 15, 15, 0, 20)
      assert.is_true(helper.near(t, 1 / 5, 1e-5))
      assert.is_true(helper.near(nx, 0, 1e-6) and helper.near(nz, -1, 1e-6))
    end)

    it("stops at t = 0 with no normal when it cannot enter the start polygon", function()
      -- a start a hair outside its polygon (how a start on the boundary looks
      -- after rounding) with the ray leaving at once: Detour's t = 0 case
      local ref = lv:ref_at(1, 1)
      local t, nx, ny, nz, polys = mesh:raycast(ref, -1e-4, 0, 1, -1, 0, 1)
      assert.are.equal(0, t)
      assert.are.same({ 0, 0, 0 }, { nx, ny, nz })
      assert.are.equal(0, #polys)
    end)

    it("hits at t = 0 with the wall's normal from a start exactly on a wall", function()
      local ref = lv:ref_at(1, 1)
      local t, nx, _, nz, polys = mesh:raycast(ref, 0, 0, 1, -1, 0, 1)
      assert.are.equal(0, t)
      assert.is_true(helper.near(math.abs(nx), 1, 1e-6) and helper.near(nz, 0, 1e-6))
      assert.are.same({ ref }, polys)
    end)

    it("respects the filter: excluded polygons are walls", function()
      local f = navmesh.filter { exclude = 2 }
      local blocked = lv:ref_at(5, 1)
      mesh:setPolyFlags(blocked, 3)
      local t = mesh:raycast(lv:ref_at(1, 1), 1, 0, 1, 13, 0, 1, f)
      mesh:setPolyFlags(blocked, 1)
      assert.is_true(helper.near(t, 3 / 12, 1e-5)) -- x = 4, the excluded cell's edge
      assert.are.equal(math.huge, (mesh:raycast(lv:ref_at(1, 1), 1, 0, 1, 13, 0, 1, f)))
    end)

    it("raises on bad arguments", function()
      local ref = lv:ref_at(1, 1)
      assert.has_error(function() mesh:raycast(ref, 0 / 0, 0, 0, 1, 0, 1) end)
      assert.has_error(function() mesh:raycast(ref, 1, 0, 1, math.huge, 0, 1) end)
      assert.has_error(function() mesh:raycast(12345678, 1, 0, 1, 2, 0, 2) end)
      assert.has_error(function() mesh:raycast("x", 1, 0, 1, 2, 0, 2) end)
      assert.has_error(function() mesh:raycast(ref, 1, 0, 1, 2, 0, 2, {}) end)
      assert.has_error(function() mesh.raycast(nil, ref, 1, 0, 1, 2, 0, 2) end)
    end)
  end)
end)
