-- The module's memory and the garbage collector. A handle's mesh, query
-- state and scratch are allocated outside the collector's count, so the
-- binding counts them (navmesh.memory(): this state; navmesh.sharedBytes():
-- shared meshes, process-wide) and charges them to the collector: handles
-- dropped without close() must be collected while memory is being taken,
-- not pile up (issue 19: 40 re-opens of a republished map kept 40 versions).
-- Bounds are in the module's own byte counts, never in time or RSS.
package.path = "examples/?.lua;" .. package.path
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"

local LEVEL = { size = 40 } -- some 170 KB per version
local MB = 1024 * 1024

-- The level's bytes and the memory one version of it takes.
local function level_bytes()
  local m = assert(gridlevel.build(navmesh, LEVEL))
  local bytes, version = m:saveString(), m:info().memoryBytes
  m:close()
  return bytes, version
end

-- What the state holds now after a full collection, plus the 1 MB below
-- which the module never collects: the bound of what may pile up before a
-- collection comes is about this much again.
local function settled()
  collectgarbage()
  collectgarbage()
  return collectgarbage("count") * 1024 + navmesh.memory() + MB
end

describe("navmesh.memory", function()
  it("counts a handle's mesh and query state and gives them back on close", function()
    local bytes, version = level_bytes()
    collectgarbage()
    local before = navmesh.memory()
    local m = assert(navmesh.loadString(bytes, { maxNodes = 4096 }))
    local held = navmesh.memory() - before
    assert.is_true(held >= version, ("held %d, mesh %d"):format(held, version))
    local pts = assert(m:path(2.5, 0.125, 2.5, 30.5, 1.525, 33.5))
    assert.is_true(#pts >= 6)
    assert.is_true(navmesh.memory() - before >= held) -- path scratch
    m:close()
    assert.are.equal(before, navmesh.memory())
  end)

  it("gives back everything a file load took", function()
    local bytes = level_bytes()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(bytes)
    f:close()
    collectgarbage()
    local before = navmesh.memory()
    local m = assert(navmesh.load(path))
    assert.is_true(navmesh.memory() > before)
    m:close()
    os.remove(path)
    assert.are.equal(before, navmesh.memory())
  end)

  it("does not count a shared mesh's data, which sharedBytes counts", function()
    local bytes, version = level_bytes()
    collectgarbage()
    local mem, shared = navmesh.memory(), navmesh.sharedBytes()
    local m = assert(navmesh.loadString(bytes))
    assert(m:share("spec22-count"))
    assert.is_true(navmesh.sharedBytes() - shared >= version)
    assert.is_true(navmesh.memory() - mem < version) -- only the query state
    m:close()
    navmesh.unshare("spec22-count")
    assert.are.equal(mem, navmesh.memory())
    assert.are.equal(shared, navmesh.sharedBytes())
  end)
end)

describe("handles dropped without close", function()
  it("re-opening a republished mesh keeps a bounded number of versions", function()
    local bytes, version = level_bytes()
    local bound = 2 * settled() + 4 * version
    local rounds = math.max(40, math.ceil(2 * bound / version))
    local base = navmesh.sharedBytes()
    local peak, nav = 0, nil
    for _ = 1, rounds do
      local src = assert(navmesh.loadString(bytes))
      assert(src:share("spec22-map", { replace = true })) -- a new version
      src:close()
      nav = assert(navmesh.open("spec22-map")) -- the old handle is dropped
      peak = math.max(peak, navmesh.sharedBytes() - base)
    end
    assert.is_true(peak <= bound, ("%d rounds: peak %d bytes (%.1f versions) above the bound %d")
      :format(rounds, peak, peak / version, bound))
    assert.is_true(#assert(nav:path(2.5, 0.125, 2.5, 30.5, 1.525, 33.5)) >= 6)
    navmesh.unshare("spec22-map")
    nav:close()
  end)

  it("loading in a loop keeps the state's memory bounded", function()
    local bytes, version = level_bytes()
    local bound = 2 * settled() + 4 * version
    local rounds = math.max(40, math.ceil(2 * bound / version))
    local base = navmesh.memory()
    local peak = 0
    for _ = 1, rounds do
      local m = assert(navmesh.loadString(bytes)) -- dropped at the next round
      peak = math.max(peak, navmesh.memory() - base)
      assert(m)
    end
    assert.is_true(peak <= bound, ("%d rounds: peak %d bytes (%.1f meshes) above the bound %d")
      :format(rounds, peak, peak / version, bound))
  end)

  it("are left alone while the collector is stopped (Lua 5.2 and later)", function()
    if _VERSION == "Lua 5.1" then return end -- 5.1 and LuaJIT cannot tell
    local bytes, version = level_bytes()
    collectgarbage()
    local base = navmesh.memory()
    collectgarbage("stop")
    local ok, err = pcall(function()
      for _ = 1, 12 do assert(navmesh.loadString(bytes)) end
      assert.is_true(navmesh.memory() - base >= 12 * version)
    end)
    collectgarbage("restart")
    assert(ok, err)
    collectgarbage()
    assert.are.equal(base, navmesh.memory())
  end)
end)
