-- tools/update-rockspec.lua: rewrites the C source list of the rockspec from
-- the files under src/ (run by `make rockspec`; spec/06 checks the result).
local p = io.popen("ls navmesh-*.rockspec")
local name = p:read("*l")
p:close()
local f = assert(io.open(name))
local text = f:read("*a")
f:close()
local files = {}
p = io.popen("ls src/*/*.c | grep -v '^src/lua/'") -- every folder of the core
for line in p:lines() do files[#files + 1] = line end
p:close()
table.sort(files)
p = io.popen("ls src/lua/*.c") -- the binding (src/lua/lnm.h maps its files)
for line in p:lines() do files[#files + 1] = line end
p:close()
local list = {}
for _, f2 in ipairs(files) do list[#list + 1] = ('        "%s",'):format(f2) end
local out, n = text:gsub("(sources = {\n).-(\n      },)", function(a, b)
  return a .. table.concat(list, "\n") .. b
end)
assert(n == 1, "sources list not found in " .. name)
f = assert(io.open(name, "w"))
f:write(out)
f:close()
print(("%s: %d C files"):format(name, #files))
