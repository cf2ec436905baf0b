-- mesh:findRandomPoint / findRandomPointAroundCircle / seed: points lie on
-- the mesh, repeat with the seed, and spread evenly by area (chi-square tests
-- on polygon hit counts with fixed seeds).
local helper = require "helper"
local navmesh = require "navmesh"
local levels = require "levels"

-- Upper 0.1% point of the chi-square distribution with df degrees of
-- freedom (Wilson-Hilferty approximation).
local function chi2_critical(df)
  local z = 3.0902
  return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ^ 3
end

-- Chi-square statistic of observed counts against expected ones; bins with
-- an expected count below 10 are pooled. Returns stat, degrees of freedom.
local function chi2(observed, expected)
  local stat, bins, po, pe = 0, 0, 0, 0
  for k, e in pairs(expected) do
    local o = observed[k] or 0
    if e < 10 then po, pe = po + o, pe + e
    else stat, bins = stat + (o - e) ^ 2 / e, bins + 1 end
  end
  if pe > 0 then stat, bins = stat + (po - pe) ^ 2 / pe, bins + 1 end
  return stat, bins - 1
end

-- X/Z area of polygon ref.
local function poly_area(mesh, ref)
  return levels.area2d(mesh:getPolyVerts(ref))
end

describe("findRandomPoint", function()
  local lv, mesh
  setup(function()
    lv = levels.grid { xs = { 0, 0.5, 2, 2.5, 6, 7, 10 }, zs = { 0, 3, 3.5, 4, 8, 9, 12 },
                       pillars = { { 2, 3 } }, split = function(i, j) return (i * j) % 4 == 1 end }
    mesh = lv.mesh
  end)
  teardown(function() mesh:close() end)

  it("returns points on the mesh, on the polygon it names", function()
    mesh:seed(1)
    for _ = 1, 500 do
      local ref, x, y, z = mesh:findRandomPoint()
      assert.is_true(levels.on_mesh(lv, x, z, 1e-5))
      local cx, cy, cz = mesh:closestPointOnPoly(ref, x, y, z)
      assert.is_true(helper.near(cx, x, 1e-5) and helper.near(cy, y, 1e-5) and helper.near(cz, z, 1e-5))
    end
  end)

  it("repeats with the seed, per handle", function()
    local other = levels.grid { xs = { 0, 0.5, 2, 2.5, 6, 7, 10 }, zs = { 0, 3, 3.5, 4, 8, 9, 12 },
                                pillars = { { 2, 3 } }, split = function(i, j) return (i * j) % 4 == 1 end }
    local function draw(m, seed, n)
      local out = {}
      m:seed(seed)
      for _ = 1, n do
        local ref, x, y, z = m:findRandomPoint()
        out[#out + 1] = ("%d %.7g %.7g %.7g"):format(ref, x, y, z)
      end
      return table.concat(out, "\n")
    end
    local a = draw(mesh, 42, 20)
    assert.are.equal(a, draw(other.mesh, 42, 20))
    assert.are.equal(a, draw(mesh, 42, 20))
    assert.are_not.equal(a, draw(mesh, 43, 20))
    other.mesh:close()
  end)

  it("spreads points evenly by area (chi-square on polygon counts)", function()
    local n, counts, expected = 40000, {}, {}
    mesh:seed(20240607)
    for _ = 1, n do
      local ref = mesh:findRandomPoint()
      counts[ref] = (counts[ref] or 0) + 1
    end
    for _, ref in ipairs(mesh:polyRefs()) do expected[ref] = n * poly_area(mesh, ref) / lv.area end
    local stat, df = chi2(counts, expected)
    print(("# findRandomPoint generated level: chi-square %.1f, df %d, 0.1%% critical %.1f"):format(
      stat, df, chi2_critical(df)))
    assert.is_true(stat < chi2_critical(df))
  end)

  it("is even by area across the tiles of a shared tiled navmesh", function()
    if helper.skip_without_shared("findRandomPoint shared-mesh spec") then return end
    local m = assert(navmesh.load(helper.shared .. "/navmeshes/dungeon_tiled.bin"))
    local n, counts, expected, total = 60000, {}, {}, 0
    for _, ref in ipairs(m:polyRefs()) do
      expected[ref] = poly_area(m, ref)
      total = total + expected[ref]
    end
    for ref, a in pairs(expected) do expected[ref] = n * a / total end
    m:seed(7)
    for _ = 1, n do
      local ref = m:findRandomPoint()
      counts[ref] = (counts[ref] or 0) + 1
    end
    m:close()
    local stat, df = chi2(counts, expected)
    print(("# findRandomPoint dungeon_tiled: chi-square %.1f, df %d, 0.1%% critical %.1f"):format(
      stat, df, chi2_critical(df)))
    assert.is_true(stat < chi2_critical(df))
  end)

  it("follows the filter and fails when nothing passes", function()
    local only = lv:ref_at(8.5, 10.5)
    mesh:setPolyFlags(only, 8)
    mesh:seed(3)
    for _ = 1, 50 do assert.are.equal(only, (mesh:findRandomPoint(navmesh.filter { include = 8 }))) end
    mesh:setPolyFlags(only, 1)
    local ref, msg, code = mesh:findRandomPoint(navmesh.filter { include = 8 })
    assert.is_nil(ref)
    assert.matches("findRandomPoint", msg)
    assert.are.equal("ERR_NO_POLY", code)
  end)

  it("raises on bad arguments", function()
    assert.has_error(function() mesh:findRandomPoint("filter") end)
    assert.has_error(function() mesh:seed() end)
    assert.has_error(function() mesh:seed("x") end)
  end)
end)

describe("findRandomPointAroundCircle", function()
  local lv, mesh
  setup(function()
    lv = levels.grid { n = 10, size = 2, pillars = { { 8, 8 } }, split = function(i, j) return (i + j) % 2 == 0 end }
    mesh = lv.mesh
  end)
  teardown(function() mesh:close() end)

  it("returns points on the mesh within the circle, on polygons the circle reaches", function()
    mesh:seed(11)
    for _, c in ipairs { { 7.3, 9.1, 3 }, { 0.5, 0.5, 2 }, { 16.2, 15.1, 2.5 } } do
      local ref0 = lv:ref_at(c[1], c[2])
      local reach = {}
      for _, r in ipairs((mesh:findPolysAroundCircle(ref0, c[1], 0, c[2], c[3]))) do reach[r] = true end
      for _ = 1, 300 do
        local ref, x, _, z = mesh:findRandomPointAroundCircle(ref0, c[1], 0, c[2], c[3])
        assert.is_true(reach[ref])
        assert.is_true(levels.on_mesh(lv, x, z, 1e-5))
        assert.is_true((x - c[1]) ^ 2 + (z - c[2]) ^ 2 <= c[3] ^ 2 + 1e-4)
      end
    end
  end)

  it("is uniform over an open disc (quadrant chi-square, inner/outer halves)", function()
    local cx, cz, r, n = 9.3, 8.7, 3, 8000
    local ref0 = lv:ref_at(cx, cz)
    local quad, inner = { 0, 0, 0, 0 }, 0
    mesh:seed(5)
    for _ = 1, n do
      local _, x, _, z = mesh:findRandomPointAroundCircle(ref0, cx, 0, cz, r)
      local q = (x >= cx and 1 or 0) + (z >= cz and 2 or 0) + 1
      quad[q] = quad[q] + 1
      if (x - cx) ^ 2 + (z - cz) ^ 2 < r * r / 2 then inner = inner + 1 end
    end
    local stat = chi2(quad, { n / 4, n / 4, n / 4, n / 4 })
    local zin = (inner - n / 2) / math.sqrt(n / 4)
    print(("# findRandomPointAroundCircle: quadrant chi-square %.2f (critical %.2f), inner-half z %.2f"):format(
      stat, chi2_critical(3), zin))
    assert.is_true(stat < chi2_critical(3))
    assert.is_true(math.abs(zin) < 3.29)
  end)

  it("stays on the start polygon for radius 0", function()
    local ref0 = lv:ref_at(3.5, 2.5)
    mesh:seed(1)
    for _ = 1, 20 do assert.are.equal(ref0, (mesh:findRandomPointAroundCircle(ref0, 3.5, 0, 2.5, 0))) end
  end)

  it("fails when the filter rejects the start polygon", function()
    local ref, msg, code = mesh:findRandomPointAroundCircle(lv:ref_at(3, 3), 3, 0, 3, 1, navmesh.filter { include = 0 })
    assert.is_nil(ref)
    assert.matches("findRandomPointAroundCircle", msg)
    assert.are.equal("ERR_PARAM", code)
  end)

  it("raises on bad arguments", function()
    local ref0 = lv:ref_at(3, 3)
    assert.has_error(function() mesh:findRandomPointAroundCircle(ref0, 3, 0, 3, -1) end)
    assert.has_error(function() mesh:findRandomPointAroundCircle(ref0, 3, 0, 0 / 0, 1) end)
    assert.has_error(function() mesh:findRandomPointAroundCircle(-5, 3, 0, 3, 1) end)
    assert.has_error(function() mesh:findRandomPointAroundCircle(ref0, 3, 0, 3) end)
  end)
end)
