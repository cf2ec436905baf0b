-- Results into caller-supplied tables (no garbage per call), the batch call
-- mesh:paths, and the reachableOnly early exit (issue 7).
local helper = require "helper"

describe("caller-supplied result tables", function()
  local mesh, marks, S, E
  setup(function()
    mesh, marks = helper.level_mesh()
    S, E = marks.S, marks.E
  end)

  it("path() fills opts.out and clears an older, longer result", function()
    local out = {}
    local p = mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { out = out })
    assert.are.equal(out, p)
    assert.are.same(mesh:path(S[1], S[2], S[3], E[1], E[2], E[3]), out)
    local long = #out
    mesh:path(S[1], S[2], S[3], S[1] + 1, S[2], S[3], { out = out })
    assert.is_true(#out < long)
    assert.are.equal(6, #out)
    assert.is_nil(out[7])
  end)

  it("findPath fills opts.out; findStraightPath fills points, flags, refs", function()
    local sref = mesh:findNearestPoly(S[1], S[2], S[3])
    local eref = mesh:findNearestPoly(E[1], E[2], E[3])
    local polys = { 1, 2, 3 }
    for _ = 1, 2 do
      local p = mesh:findPath(sref, eref, S[1], S[2], S[3], E[1], E[2], E[3], nil, { out = polys })
      assert.are.equal(polys, p)
    end
    assert.are.same((mesh:findPath(sref, eref, S[1], S[2], S[3], E[1], E[2], E[3])), polys)
    local pts, fl, rf = { "old" }, {}, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
    local a, b, c = mesh:findStraightPath(S[1], S[2], S[3], E[1], E[2], E[3], polys, { points = pts, flags = fl, refs = rf })
    assert.are.equal(pts, a)
    assert.are.equal(fl, b)
    assert.are.equal(rf, c)
    local a2, b2, c2 = mesh:findStraightPath(S[1], S[2], S[3], E[1], E[2], E[3], polys)
    assert.are.same(a2, pts)
    assert.are.same(b2, fl)
    assert.are.same(c2, rf)
  end)

  it("raises when an output is not a table", function()
    assert.has_error(function() mesh:path(S[1], S[2], S[3], E[1], E[2], E[3], { out = 5 }) end)
    assert.has_error(function() mesh:findStraightPath(S[1], S[2], S[3], E[1], E[2], E[3], { 1 }, { points = "x" }) end)
  end)
end)

describe("mesh:paths", function()
  local mesh, marks
  setup(function() mesh, marks = helper.level_mesh() end)

  it("answers many queries as path() would", function()
    local S, E = marks.S, marks.E
    local q = { S[1], S[2], S[3], E[1], E[2], E[3],   -- through the level
                500, 0, 500, 1, 0, 1,                  -- no polygon at the start
                S[1], S[2], S[3], 34.5, 0, 13.5 }      -- towards the walled island
    local res, part = mesh:paths(q)
    assert.are.equal(3, #res)
    assert.are.same(mesh:path(S[1], S[2], S[3], E[1], E[2], E[3]), res[1])
    assert.is_false(res[2])
    assert.is_table(res[3])
    assert.are.same({ false, false, true }, part)
    -- again into the same tables, now refusing other islands at once
    local inner = res[1]
    local res2, part2 = mesh:paths(q, { out = res, partials = part, reachableOnly = true })
    assert.are.equal(res, res2)
    assert.are.equal(part, part2)
    assert.are.equal(inner, res[1]) -- the point list was reused too
    assert.is_false(res[3])
    -- a shorter batch clears the rest of the output tables
    mesh:paths({ S[1], S[2], S[3], E[1], E[2], E[3] }, { out = res, partials = part })
    assert.are.equal(1, #res)
    assert.is_nil(res[2])
    assert.is_nil(part[2])
  end)

  it("raises on malformed query lists", function()
    assert.has_error(function() mesh:paths({ 1, 2, 3 }) end)
    assert.has_error(function() mesh:paths({ 1, 2, 3, 4, 5, 0 / 0 }) end)
    assert.has_error(function() mesh:paths("x") end)
  end)
end)

describe("reachableOnly", function()
  it("returns at once with ERR_NO_PATH across islands, else the normal path", function()
    local mesh, marks = helper.level_mesh()
    local S = marks.S
    local pts, msg, code = mesh:path(S[1], S[2], S[3], 34.5, 0, 13.5, { reachableOnly = true })
    assert.is_nil(pts)
    assert.matches("different islands", msg)
    assert.are.equal("ERR_NO_PATH", code)
    local a = mesh:findNearestPoly(S[1], S[2], S[3])
    local b = mesh:findNearestPoly(34.5, 0, 13.5)
    local _, _, code2 = mesh:findPath(a, b, S[1], S[2], S[3], 34.5, 0, 13.5, nil, { reachableOnly = true })
    assert.are.equal("ERR_NO_PATH", code2)
    local p, partial = mesh:findPath(a, b, S[1], S[2], S[3], 34.5, 0, 13.5) -- Detour's partial path
    assert.is_true(partial)
    assert.is_true(#p > 1)
    assert.is_table(mesh:path(S[1], S[2], S[3], marks.E[1], marks.E[2], marks.E[3], { reachableOnly = true }))
  end)
end)
