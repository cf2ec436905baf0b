--- navlimit: navmesh.load under skynet.memlimit. The limit leaves 1 MB
-- above what the service holds after its main chunk: small allocations
-- still work, the buffer for a 1.8 MB file is refused. The load must raise
-- "not enough memory" (not return nil, "cannot open ...", "ERR_IO").
local skynet = require "skynet"
local navmesh = require "navmesh"

local path = ...
skynet.memlimit(math.floor(collectgarbage("count") * 1024) + 1024 * 1024)

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd)
    if cmd == "exit" then return skynet.exit() end
    local ok, m, msg, code = pcall(navmesh.load, path)
    if ok and m then m:close() end
    skynet.ret(skynet.pack(ok, tostring(m), tostring(msg), tostring(code)))
  end)
end)
