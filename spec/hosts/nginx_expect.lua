-- spec/hosts/nginx_expect.lua -- the answers nginx must give, computed in
-- plain luajit with the same handler module (examples/openresty/navapp.lua)
-- on the same level. Prints one line per query: "<query string>\t<status>\t<body>".
-- Usage: luajit spec/hosts/nginx_expect.lua N
package.path = "lua/?.lua;examples/?.lua;examples/openresty/?.lua;" .. package.path
package.cpath = "build/jit/?.so;" .. package.cpath
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"
local navapp = require "navapp"

local mesh = assert(gridlevel.build(navmesh))
local n = tonumber(arg[1]) or 10
local queries = gridlevel.queries(n)
-- plus one start far off the mesh (404 ERR_NO_POLY)
queries[#queries + 1] = { -500, 0, -500, 5.5, 0.275, 5.5 }
for _, q in ipairs(queries) do
  local args, parts = {}, {}
  for i, k in ipairs { "sx", "sy", "sz", "ex", "ey", "ez" } do
    args[k] = ("%.17g"):format(q[i])
    parts[i] = k .. "=" .. args[k]
  end
  local status, body = navapp.handle(mesh, args)
  io.write(table.concat(parts, "&"), "\t", status, "\t", body, "\n")
end
