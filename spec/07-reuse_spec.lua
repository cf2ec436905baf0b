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

  -- The promise of `out`/`partials`: a server answering a batch per tick
  -- makes no garbage, also when the batch size changes from tick to tick and
  -- when queries fail (a result turns false, then is a path again).
  it("makes no garbage with out/partials when batch sizes vary and queries fail", function()
    local S, E = marks.S, marks.E
    local kinds = {
      { S[1], S[2], S[3], E[1], E[2], E[3] },   -- a path
      { 500, 0, 500, 1, 0, 1 },                  -- no polygon at the start
      { S[1], S[2], S[3], 34.5, 0, 13.5 },       -- another island: false with reachableOnly
    }
    local batches = {}
    for n = 1, 7 do -- sizes 1..7; each slot changes kind from one batch to the next
      local q = {}
      for i = 1, n do
        for _, x in ipairs(kinds[(i + n) % 3 + 1]) do q[#q + 1] = x end
      end
      batches[#batches + 1] = q
    end
    for n = 6, 2, -1 do batches[#batches + 1] = batches[n] end
    local out, partials = {}, {}
    local opts = { out = out, partials = partials, reachableOnly = true }
    local function round()
      for _, q in ipairs(batches) do mesh:paths(q, opts) end
    end
    -- LuaJIT counts the memory of compiled traces as Lua memory: measure
    -- with the compiler off, so the count is what the calls allocate.
    if jit then jit.off() end
    for _ = 1, 5 do round() end -- warm-up: every table the batches need exists
    collectgarbage("collect")
    collectgarbage("stop")
    local before = collectgarbage("count")
    for _ = 1, 100 do round() end -- 1,200 calls
    local grew = collectgarbage("count") - before
    collectgarbage("restart")
    if jit then jit.on() end
    print(("# paths: %.2f KiB of garbage in 1,200 calls of varying batches"):format(grew))
    assert.is_true(grew < 2, ("%.2f KiB of garbage"):format(grew))
    -- and the answers are still those of path()
    local res, part = mesh:paths(batches[7], opts)
    for i = 1, 7 do
      local k = kinds[(i + 7) % 3 + 1]
      local p, partial = mesh:path(k[1], k[2], k[3], k[4], k[5], k[6], { reachableOnly = true })
      if p then assert.are.same(p, res[i]) else assert.is_false(res[i]) end
      assert.are.equal(partial == true, part[i])
    end
    assert.are.equal(7, #res)
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
