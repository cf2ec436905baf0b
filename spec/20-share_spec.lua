-- Sharing one mesh between handles: mesh:share(name), navmesh.open(name),
-- navmesh.unshare(name), navmesh.sharedBytes(). Shared meshes are read-only;
-- a name can take a new version ({replace = true}); the data lives until the
-- last handle on it closes, whatever the order of close and GC.
-- The level comes from examples/gridlevel.lua (no ../shared needed).
package.path = "examples/?.lua;" .. package.path
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"

local SMALL = { size = 12 }

-- Every answer of a handle on n fixed queries, as one string.
local function answers(mesh, n, opts)
  local out = {}
  for i, q in ipairs(gridlevel.queries(n or 40, opts or SMALL)) do out[i] = gridlevel.answer(mesh, q) end
  return table.concat(out, "\n")
end

local function build(opts, handle_opts)
  return assert(gridlevel.build(navmesh, opts or SMALL, handle_opts))
end

local names = 0
local function fresh_name()
  names = names + 1
  return ("spec20-%d"):format(names)
end

describe("mesh:share / navmesh.open", function()
  local name, base
  before_each(function()
    name = fresh_name()
    collectgarbage()
    collectgarbage()
    base = navmesh.sharedBytes()
  end)
  after_each(function() navmesh.unshare(name) end)

  it("opens a new handle on the same data with its own query state", function()
    local m = build(SMALL, { maxNodes = 512 })
    local want = answers(m)
    assert.is_true(m:share(name))
    local h = assert(navmesh.open(name, { maxNodes = 64 }))
    assert.are_not.equal(m, h)
    assert.are.equal(m:info().polys, h:info().polys)
    assert.are.equal(512, m:info().maxNodes)
    assert.are.equal(64, h:info().maxNodes)
    assert.are.equal(want, answers(m))
    assert.are.equal(answers(navmesh.open(name)), want)
    m:close()
    h:close()
  end)

  it("keeps polygon references and polygon flags across share", function()
    local m = build()
    local ref = assert(m:findNearestPoly(2.5, 0.125, 2.5))
    m:setPolyFlags(ref, 5)
    m:setPolyArea(ref, 3)
    assert(m:share(name))
    local h = assert(navmesh.open(name))
    for _, mesh in ipairs { m, h } do
      assert.is_true(mesh:isValidPolyRef(ref))
      assert.are.equal(5, mesh:getPolyFlags(ref))
      assert.are.equal(3, mesh:getPolyArea(ref))
      assert.are.equal(ref, (mesh:findNearestPoly(2.5, 0.125, 2.5)))
    end
  end)

  it("copies the mesh into system memory counted by sharedBytes", function()
    local m = build()
    assert.are.equal(base, navmesh.sharedBytes())
    assert(m:share(name))
    local after = navmesh.sharedBytes()
    assert.is_true(after - base >= m:info().dataBytes)
    local h = assert(navmesh.open(name))
    assert(h:share(name .. "-alias")) -- already in system memory: no copy
    assert.are.equal(after, navmesh.sharedBytes())
    assert.is_true(navmesh.unshare(name .. "-alias"))
    h:close()
    m:close()
  end)

  it("shares a mesh built from triangles, tiled, with the same answers", function()
    -- a 24 x 24 floor of two triangles rising 2 units along x, built in tiles
    local verts = { 0, 0, 0, 24, 2, 0, 0, 0, 24, 24, 2, 24 }
    local tris = { 1, 3, 2, 2, 3, 4 }
    local m = assert(navmesh.build(verts, tris, { tileSize = 32 }))
    assert.is_true(m:info().tiles > 1)
    local q = { 1, 0.1, 1, 22, 1.8, 21 }
    local want = assert(m:path(q[1], q[2], q[3], q[4], q[5], q[6]))
    assert(m:share(name))
    local h = assert(navmesh.open(name))
    for _, mesh in ipairs { m, h } do
      assert.are.same(want, (mesh:path(q[1], q[2], q[3], q[4], q[5], q[6])))
    end
  end)

  it("shares a mesh used in place from a file mapping", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(build():saveString("native"))
    f:close()
    local mapped = assert(navmesh.load(path, { mmap = true }))
    local want = answers(mapped)
    assert(mapped:share(name))
    os.remove(path)
    local h = assert(navmesh.open(name))
    assert.are.equal(want, answers(h))
    assert.are.equal(want, answers(mapped))
  end)

  it("returns nil, msg, ERR_NOT_FOUND for a name nobody shared", function()
    local h, msg, code = navmesh.open(name)
    assert.is_nil(h)
    assert.are.equal("open: no navmesh is shared as '" .. name .. "'", msg)
    assert.are.equal("ERR_NOT_FOUND", code)
  end)

  it("refuses to take a name from another mesh unless told to replace it", function()
    local a, b = build(), build { size = 12, seed = 2 }
    assert(a:share(name))
    assert.is_true(a:share(name)) -- the same mesh again: nothing to do
    local ok, msg, code = b:share(name)
    assert.is_nil(ok)
    assert.are.equal("share: a navmesh is already shared as '" .. name .. "'", msg)
    assert.are.equal("ERR_EXISTS", code)
    assert.is_false(b:info().readOnly) -- refused: b stays private and writable
    local bref = assert(b:findNearestPoly(2.5, 0.125, 2.5))
    b:setPolyFlags(bref, 1)
  end)

  it("publishes a new version with replace = true; open handles keep the old one", function()
    local v1, v2 = build(), build { size = 12, seed = 2 }
    local want1, want2 = answers(v1), answers(v2, 40, SMALL)
    assert.are_not.equal(want1, want2)
    assert(v1:share(name))
    local old = assert(navmesh.open(name))
    assert.is_true(v2:share(name, { replace = true }))
    local new = assert(navmesh.open(name))
    assert.are.equal(want1, answers(old))
    assert.are.equal(want2, answers(new))
    v1:close()
    assert.are.equal(want1, answers(old)) -- still alive through `old`
  end)

  it("makes shared meshes read-only: mutators raise, getters work", function()
    local m = build()
    local ref = assert(m:findNearestPoly(2.5, 0.125, 2.5))
    assert.is_false(m:info().readOnly)
    assert(m:share(name))
    local h = assert(navmesh.open(name))
    local tile = m:saveString() -- any bytes: the read-only check comes first
    for _, mesh in ipairs { m, h } do
      assert.is_true(mesh:info().readOnly)
      local ro = "navmesh is read%-only %(shared or mapped%); publish a changed copy with share%(name, { replace = true }%)$"
      assert.error_matches(function() mesh:addTile(tile) end, "NavMesh:addTile: " .. ro)
      assert.error_matches(function() mesh:removeTile(0, 0) end, "NavMesh:removeTile: " .. ro)
      assert.error_matches(function() mesh:setPolyFlags(ref, 2) end, "NavMesh:setPolyFlags: " .. ro)
      assert.error_matches(function() mesh:setPolyArea(ref, 2) end, "NavMesh:setPolyArea: " .. ro)
      assert.are.equal(1, mesh:getPolyFlags(ref))
    end
    assert.is_true(navmesh.unshare(name))
    assert.is_true(h:info().readOnly) -- unsharing does not make the data writable again
  end)

  it("unshare drops the name; handles already open keep working", function()
    local m = build()
    local want = answers(m)
    assert(m:share(name))
    local h = assert(navmesh.open(name))
    assert.is_true(navmesh.unshare(name))
    assert.is_false(navmesh.unshare(name))
    assert.are.equal("ERR_NOT_FOUND", select(3, navmesh.open(name)))
    assert.are.equal(want, answers(h))
    assert.are.equal(want, answers(m))
  end)

  it("lets a query outlive the sharing handle and the name", function()
    local m = build()
    local want = answers(m)
    assert(m:share(name))
    local h = assert(navmesh.open(name))
    m:close()
    navmesh.unshare(name)
    m = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    assert.are.equal(want, answers(h))
    assert.is_true(navmesh.sharedBytes() > base)
    h:close()
    assert.are.equal(base, navmesh.sharedBytes()) -- the last close freed the data
  end)

  it("frees the data whatever order the GC collects handles in", function()
    for order = 1, 3 do
      local m = build()
      assert(m:share(name))
      local hs = { m, assert(navmesh.open(name)), assert(navmesh.open(name)) }
      local want = answers(hs[2], 10)
      assert.is_true(navmesh.unshare(name))
      table.remove(hs, order) -- drop one handle without closing it
      collectgarbage()
      collectgarbage()
      for _, h in ipairs(hs) do assert.are.equal(want, answers(h, 10)) end
      assert.is_true(navmesh.sharedBytes() > base)
      m = nil -- luacheck: ignore
      hs = nil -- luacheck: ignore
      collectgarbage()
      collectgarbage()
      assert.are.equal(base, navmesh.sharedBytes())
    end
  end)

  it("frees the data of a name still shared once it is unshared and unused", function()
    local m = build()
    assert(m:share(name))
    m:close()
    assert.is_true(navmesh.sharedBytes() > base) -- the registry holds it
    navmesh.unshare(name)
    assert.are.equal(base, navmesh.sharedBytes())
  end)

  it("raises on programmer errors", function()
    local m = build()
    assert.has_error(function() m:share() end)
    assert.has_error(function() m:share({}) end)
    assert.has_error(function() m:share("") end, "bad argument #1 to 'NavMesh:share' (name must be 1 to 255 bytes, got 0)")
    assert.has_error(function() m:share(("x"):rep(256)) end)
    assert.has_error(function() m:share(name, { replace = "yes" }) end, "bad option 'replace' to 'NavMesh:share' (boolean expected, got 'yes')")
    assert.has_error(function() m:share(name, { replce = true }) end)
    assert.has_error(function() navmesh.open() end)
    assert.has_error(function() navmesh.open(name, { maxNodes = 0 }) end)
    assert.has_error(function() navmesh.open(name, { nodes = 10 }) end)
    assert.has_error(function() navmesh.unshare("") end)
    assert.has_error(function() navmesh.unshare(nil) end)
    m:close()
    assert.has_error(function() m:share(name) end, "NavMesh:share: attempt to use a closed navmesh.NavMesh")
    assert.is_false(navmesh.unshare(name)) -- nothing was published
  end)

  it("reports an integer byte count", function()
    local n = navmesh.sharedBytes()
    assert.are.equal("number", type(n))
    assert.are.equal(n, math.floor(n))
    assert.is_true(n >= 0)
  end)
end)
