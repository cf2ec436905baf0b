-- `<close>` on navmesh handles (Lua 5.4 to-be-closed variables): a handle
-- leaving its scope is closed at once, and closing the last handle on a
-- shared mesh frees the data without waiting for the GC. Skips before 5.4
-- (the syntax does not parse there, so the code is loaded from a string).
package.path = "examples/?.lua;" .. package.path
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"

local CODE = [[
local navmesh, gridlevel, name = ...
local escaped
do
  local m <close> = assert(gridlevel.build(navmesh, { size = 8 }))
  assert(m:share(name))
  local h <close> = assert(navmesh.open(name))
  escaped = h
  assert(h:path(1.5, 0.075, 1.5, 4.5, 0.225, 4.5))
end
return escaped
]]

describe("<close>", function()
  if tonumber(_VERSION:match("%d+%.%d+")) < 5.4 then
    pending("to-be-closed variables need Lua 5.4 (this is " .. (jit and jit.version or _VERSION) .. ")")
    return
  end
  local chunk = assert(load(CODE, "=close-chunk"))

  it("closes a handle when it leaves its scope", function()
    local h = chunk(navmesh, gridlevel, "spec21-a")
    assert.has_error(function() h:info() end, "NavMesh:info: attempt to use a closed navmesh.NavMesh")
    assert.are.equal("navmesh.NavMesh (closed)", tostring(h))
    navmesh.unshare("spec21-a")
  end)

  it("frees shared data when the last handle leaves its scope and the name is gone", function()
    collectgarbage()
    collectgarbage()
    local base = navmesh.sharedBytes()
    chunk(navmesh, gridlevel, "spec21-b")
    assert.is_true(navmesh.sharedBytes() > base) -- the name still holds it
    assert.is_true(navmesh.unshare("spec21-b"))
    assert.are.equal(base, navmesh.sharedBytes()) -- no collectgarbage needed
  end)
end)
