--- skytest: the start service of the Skynet suite (spec/hosts/skynet_test.sh).
-- Runs the phases below in a real node, writes what each service answered
-- to <navtest_work>/report.lua (checked against plain Lua 5.4 by check.lua)
-- and ends the node with skynet.abort().
--   A  a loader service loads level1.bin, shares it and exits; only then do
--      other services open the name and answer queries (nothing else has
--      loaded the module before: the loader's exit closed the last state).
--   B  one service republishes level1/level2 under a name (replace = true)
--      while three others open, query and close it in a loop.
--   D  one service republishes the city map 40 times; another re-opens it
--      after each without closing the previous handle.
--   E  navmesh.load of the city map under skynet.memlimit must raise.
--   C  the example: examples/skynet/navmain.lua (which starts navservice.lua).
local skynet = require "skynet"
require "skynet.manager" -- skynet.abort

local WORK = skynet.getenv "navtest_work"
local CITY = skynet.getenv "navtest_city"
local LEVELS = { WORK .. "/level1.bin", WORK .. "/level2.bin" }
local report = {}

-- A value as Lua source (tables with sorted keys), for report.lua.
local function dump(v, ind)
  if type(v) == "string" then return ("%q"):format(v) end
  if type(v) ~= "table" then return tostring(v) end
  local keys, out = {}, { "{\n" }
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    out[#out + 1] = ("%s  [%s] = %s,\n"):format(ind, dump(k, ""), dump(v[k], ind .. "  "))
  end
  return table.concat(out) .. ind .. "}"
end

-- Runs the functions at the same time (one coroutine each); their results.
local function together(fns)
  local results, left, me = {}, #fns, coroutine.running()
  for i, fn in ipairs(fns) do
    skynet.fork(function()
      results[i] = table.pack(pcall(fn))
      left = left - 1
      if left == 0 then skynet.wakeup(me) end
    end)
  end
  skynet.wait(me)
  return results
end

local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

local function workers(n)
  local w = {}
  for i = 1, n do w[i] = skynet.newservice("navworker") end
  return w
end

local function stop(list)
  for _, s in ipairs(list) do skynet.send(s, "lua", "exit") end
end

local phases = {}

function phases.A()
  local flag = WORK .. "/loader-closed"
  os.remove(flag)
  skynet.newservice("navloader", "map-A", LEVELS[1], flag)
  for _ = 1, 500 do -- until the loader's lua_State is closed (5 s at most)
    if exists(flag) then break end
    skynet.sleep(1)
  end
  skynet.sleep(5) -- and its C modules closed after its finalizers
  local r = { loaderClosed = exists(flag), answers = {} }
  local w = workers(3)
  for i, s in ipairs(w) do r.answers[i] = skynet.call(s, "lua", "answers", "map-A") end
  stop(w)
  return r
end

function phases.B()
  local w = workers(4)
  local publisher = w[4]
  skynet.call(publisher, "lua", "publish", "map-B", { LEVELS[1] }, 1)
  local res = together {
    function() return skynet.call(publisher, "lua", "publish", "map-B", LEVELS, 60) end,
    function() return skynet.call(w[1], "lua", "rounds", "map-B", 20) end,
    function() return skynet.call(w[2], "lua", "rounds", "map-B", 20) end,
    function() return skynet.call(w[3], "lua", "rounds", "map-B", 20) end,
  }
  local r = { published = res[1][2], seen = {} }
  for i = 2, 4 do
    assert(res[i][1], res[i][2])
    for answers, count in pairs(res[i][2]) do r.seen[answers] = (r.seen[answers] or 0) + count end
  end
  stop(w)
  return r
end

function phases.D()
  local w = workers(2)
  local publisher, reader = w[1], w[2]
  local r = { rounds = 40, peak = 0, base = skynet.call(reader, "lua", "shared") }
  for _ = 1, r.rounds do
    skynet.call(publisher, "lua", "publish", "city-D", { CITY }, 1)
    local shared, version, kb, mem = skynet.call(reader, "lua", "reopen", "city-D")
    r.peak = math.max(r.peak, shared)
    r.version, r.readerKB, r.readerMemory = version, kb, mem
  end
  stop(w)
  return r
end

function phases.E()
  local s = skynet.newservice("navlimit", CITY)
  local ok, m, msg, code = skynet.call(s, "lua", "load")
  skynet.send(s, "lua", "exit")
  return { ok = ok, result = m, msg = msg, code = code }
end

-- Every name unshared and every worker gone: the shared bytes go back to 0
-- (the workers' lua_States close asynchronously: wait for it, 5 s at most).
local function settle()
  local navmesh = require "navmesh"
  for _, name in ipairs { "map-A", "map-B", "city-D" } do navmesh.unshare(name) end
  for _ = 1, 500 do
    if navmesh.sharedBytes() == 0 then break end
    skynet.sleep(1)
  end
  return { sharedBytes = navmesh.sharedBytes() }
end

skynet.start(function()
  for _, name in ipairs { "A", "B", "D", "E" } do
    local ok, r = pcall(phases[name])
    report[name] = ok and r or { error = tostring(r) }
  end
  report.settled = settle()
  local ok, err = pcall(skynet.newservice, "navmain") -- the example; its log lines are checked
  report.C = { ok = ok, error = not ok and tostring(err) or nil }
  local f = assert(io.open(WORK .. "/report.lua", "w"))
  f:write("return ", dump(report, ""), "\n")
  f:close()
  skynet.error("skytest: report written")
  skynet.abort()
end)
