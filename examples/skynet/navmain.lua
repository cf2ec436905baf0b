--- navmain: the start service of the Skynet example.
-- Builds the level once, publishes it under the name "level", starts a few
-- navigation services (each its own Lua state, scheduled on any of Skynet's
-- worker threads) and asks each of them for the same paths.
local skynet = require "skynet"
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"

local QUERIES = {
  { 2.5, 0.125, 2.5, 30.5, 1.525, 33.5 },
  { 36.5, 1.825, 3.5, 3.5, 0.175, 36.5 },
  { -100, 0, -100, 5.5, 0.275, 5.5 }, -- start far off the mesh: an error tuple
}

skynet.start(function()
  -- Build in this service's memory; share copies it into system memory,
  -- where it outlives this service and serves every other one.
  local mesh = assert(gridlevel.build(navmesh))
  assert(mesh:share("level"))
  mesh:close() -- the name keeps the data alive

  local services = {}
  for i = 1, tonumber(skynet.getenv "nav_services" or 4) do
    services[i] = skynet.newservice("navservice", "level")
  end
  for i, s in ipairs(services) do
    for _, q in ipairs(QUERIES) do
      local points, partial_or_err, code = skynet.call(s, "lua", "path", table.unpack(q))
      if points then
        skynet.error(("service %d: %d points, partial=%s"):format(i, #points // 3, tostring(partial_or_err)))
      else
        skynet.error(("service %d: %s (%s)"):format(i, partial_or_err, code))
      end
    end
  end
  -- A new version of the level can replace the old one atomically; services
  -- that reopen the name get it, open handles keep the old data until closed.
  local v2 = assert(gridlevel.build(navmesh, { seed = 2 }))
  assert(v2:share("level", { replace = true }))
  v2:close()
  for _, s in ipairs(services) do skynet.call(s, "lua", "reopen") end
  skynet.error("navmain: done, shared bytes " .. navmesh.sharedBytes())
end)
