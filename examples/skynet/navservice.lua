--- navservice: a Skynet service answering path queries on a shared mesh.
-- Started as skynet.newservice("navservice", name). It opens the mesh that
-- another service published with mesh:share(name): the data is shared, the
-- query state (node pool, scratch) is this service's own and lives in its
-- memory, so many services query one map in parallel on Skynet's threads.
local skynet = require "skynet"
local navmesh = require "navmesh"

local name = ...
local mesh

local CMD = {}

--- path(sx,sy,sz, ex,ey,ez) -> points (flat {x,y,z,...}), partial
-- or nil, message, code (no polygon near a point, no path).
function CMD.path(sx, sy, sz, ex, ey, ez)
  return mesh:path(sx, sy, sz, ex, ey, ez)
end

--- nearest(x,y,z) -> ref, x, y, z  or nil, message, code
function CMD.nearest(x, y, z)
  return mesh:findNearestPoly(x, y, z)
end

--- reopen() -> true: switch to the version now published under the name.
function CMD.reopen()
  local fresh = assert(navmesh.open(name, { maxNodes = 4096 }))
  mesh:close()
  mesh = fresh
  return true
end

skynet.start(function()
  mesh = assert(navmesh.open(name, { maxNodes = 4096 }))
  skynet.dispatch("lua", function(_, _, cmd, ...)
    local f = CMD[cmd]
    if not f then error("navservice: unknown command " .. tostring(cmd)) end
    skynet.ret(skynet.pack(f(...)))
  end)
end)
