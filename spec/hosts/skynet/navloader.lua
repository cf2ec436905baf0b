--- navloader: the common pattern, a service that loads a map, shares it
-- and exits. Started as skynet.newservice("navloader", name, path, flag);
-- when Skynet closes this service's lua_State, a finalizer writes the file
-- `flag`, so the test knows the state (and every C module only it had
-- loaded) is gone before other services open the name.
local skynet = require "skynet"
local navmesh = require "navmesh"

local name, path, flag = ...

-- global: lives until lua_close runs the finalizers
NAVLOADER_CLOSING = setmetatable({}, { __gc = function()
  local f = io.open(flag, "w")
  if f then f:write("closed\n") f:close() end
end })

skynet.start(function()
  local mesh = assert(navmesh.load(path))
  assert(mesh:share(name))
  mesh:close()
  skynet.exit()
end)
