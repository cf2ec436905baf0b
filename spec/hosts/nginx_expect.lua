-- spec/hosts/nginx_expect.lua -- the answers nginx must give, computed in
-- plain luajit with the same handler module (examples/openresty/navapp.lua)
-- on the same level. Prints one line per query: "<query string>\t<status>\t<body>".
-- Usage: luajit spec/hosts/nginx_expect.lua N
--        luajit spec/hosts/nginx_expect.lua cache DOORS FILE
package.path = "lua/?.lua;examples/?.lua;examples/openresty/?.lua;" .. package.path
package.cpath = "build/jit/?.so;" .. package.cpath
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"
local navapp = require "navapp"

-- `nginx_expect.lua cache DOORS FILE`: whether FILE holds the export the
-- last of the requests /debug/cache-export?door=D, D in DOORS (comma
-- separated, in the order the worker got them), must give (JSON objects
-- compared as values: their key order differs from one process to the
-- next; rebuilt tiles' references depend on the history).
if arg[1] == "cache" then
  local cjson = require "cjson"
  local function same(a, b)
    if type(a) ~= type(b) then return false end
    if type(a) ~= "table" then return a == b end
    for k, v in pairs(a) do if not same(v, b[k]) then return false end end
    for k in pairs(b) do if a[k] == nil then return false end end
    return true
  end
  local f = assert(io.open(arg[3], "rb"))
  local got = f:read("*a")
  f:close()
  local status, want
  for door in arg[2]:gmatch("[^,]+") do status, want = navapp.cache_export { door = door } end
  local ok = status == 200 and same(cjson.decode(want), cjson.decode(got))
  io.write(ok and "same" or "differs", "\n")
  os.exit(ok and 0 or 1)
end

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
