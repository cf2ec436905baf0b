--- navworker: a service of the Skynet suite, answering commands on shared
-- meshes (each its own lua_State, on any of Skynet's worker threads).
local skynet = require "skynet"
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"

local QUERIES = gridlevel.queries(40, { size = 40 })
local CMD = {}
local kept -- the handle `reopen` drops without closing

-- The answers of one handle to every query, one line each.
local function answers(mesh)
  local out = {}
  for i, q in ipairs(QUERIES) do out[i] = gridlevel.answer(mesh, q) end
  return table.concat(out, "\n")
end

--- answers(name) -> the answers of a handle opened on name
function CMD.answers(name)
  local mesh = assert(navmesh.open(name))
  local s = answers(mesh)
  mesh:close()
  return s
end

--- rounds(name, n) -> { [answers] = count }: n times open, answer, close,
-- while another service republishes the name.
function CMD.rounds(name, n)
  local seen = {}
  for _ = 1, n do
    local s = CMD.answers(name)
    seen[s] = (seen[s] or 0) + 1
    skynet.yield()
  end
  return seen
end

--- publish(name, paths, n) -> n: shares each file in turn under name
-- (replace = true), n times.
function CMD.publish(name, paths, n)
  for i = 1, n do
    local mesh = assert(navmesh.load(paths[(i - 1) % #paths + 1]))
    assert(mesh:share(name, { replace = true }))
    mesh:close()
    skynet.yield()
  end
  return n
end

--- reopen(name) -> sharedBytes, memoryBytes of the mesh, this state's
-- collectgarbage("count") and navmesh.memory(): opens the name again and
-- drops the previous handle without closing it.
function CMD.reopen(name)
  kept = assert(navmesh.open(name))
  return navmesh.sharedBytes(), kept:info().memoryBytes, collectgarbage("count"), navmesh.memory and navmesh.memory() or -1
end

--- shared() -> navmesh.sharedBytes()
function CMD.shared()
  return navmesh.sharedBytes()
end

function CMD.exit()
  skynet.exit()
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    local f = assert(CMD[cmd], cmd)
    if cmd == "exit" then return f() end
    skynet.ret(skynet.pack(f(...)))
  end)
end)
