--- check.lua -- checks what a Skynet node of the suite reported against
-- plain Lua 5.4 (run by spec/hosts/skynet_test.sh with lua5.4 and
-- build/5.4; prints "ok - ..." / "not ok - ..." lines, the script numbers
-- them). Usage: lua5.4 check.lua WORK, where WORK holds level1.bin,
-- level2.bin, report.lua (skytest.lua) and node.log (the node's output).
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"

local WORK = ...
local QUERIES = gridlevel.queries(40, { size = 40 })

local function check(cond, desc, detail)
  print((cond and "ok - " or "not ok - ") .. desc)
  if not cond and detail then print("#   " .. tostring(detail):gsub("\n", "\n#   ")) end
end

-- The answers of a mesh file to the queries, as navworker.lua gives them.
local function answers_of(path)
  local mesh = assert(navmesh.load(path))
  local out = {}
  for i, q in ipairs(QUERIES) do out[i] = gridlevel.answer(mesh, q) end
  mesh:close()
  return table.concat(out, "\n")
end

-- Runs examples/skynet/navmain.lua (and the navservice.lua it starts) in
-- this plain Lua against a stand-in for the part of Skynet's API they use:
-- each service is its own chunk, calls are direct. Returns the lines they
-- log with skynet.error.
local function run_example()
  local lines, current = {}, nil
  local skynet = {}
  function skynet.getenv(k) return ({ nav_services = "4" })[k] end
  function skynet.error(msg) lines[#lines + 1] = msg end
  function skynet.start(f) f() end
  function skynet.dispatch(_, fn) current.dispatch = fn end
  function skynet.pack(...) return table.pack(...) end
  function skynet.ret(packed) current.ret = packed end
  local function as(svc, f, ...) -- runs f with svc as the current service
    local prev = current
    current = svc
    local r = table.pack(f(...))
    current = prev
    return table.unpack(r, 1, r.n)
  end
  function skynet.newservice(name, ...)
    local svc = {}
    as(svc, assert(loadfile("examples/skynet/" .. name .. ".lua")), ...)
    return svc
  end
  function skynet.call(svc, _, ...)
    as(svc, svc.dispatch, nil, nil, ...)
    return table.unpack(svc.ret, 1, svc.ret.n)
  end
  package.loaded.skynet = skynet
  skynet.newservice("navmain")
  package.loaded.skynet = nil
  return lines
end

-- The example's lines in the node's log (messages of navmain).
local function node_lines()
  local out = {}
  for line in io.lines(WORK .. "/node.log") do
    local msg = line:match("^%[:%x+%] (.*)$")
    if msg and (msg:match("^service %d+: ") or msg:match("^navmain: ")) then out[#out + 1] = msg end
  end
  return out
end

local v1, v2 = answers_of(WORK .. "/level1.bin"), answers_of(WORK .. "/level2.bin")
local ok, report = pcall(dofile, WORK .. "/report.lua")
check(ok, "the node wrote its report", report)
if not ok then return end

-- A: the loader pattern
local A = report.A
check(A.loaderClosed, "A: the loader service shared its map and exited (its lua_State closed) first", A.error)
for i = 1, 3 do
  check((A.answers or {})[i] == v1, ("A: service %d opened the name after that and answers the %d queries "
    .. "as plain Lua 5.4 does on the same file"):format(i, #QUERIES), A.error)
end

-- B: republished while queried
local B = report.B
local total, bad, count = 0, 0, { [v1] = 0, [v2] = 0 }
for answers, n in pairs(B.seen or {}) do
  total = total + n
  if count[answers] then count[answers] = count[answers] + n else bad = bad + n end
end
check(B.published == 60 and total == 60, "B: 60 versions published while 3 services made 60 open-query-close rounds",
  B.error or ("published %s, rounds %d"):format(tostring(B.published), total))
check(total > 0 and bad == 0, "B: every round answered exactly as plain Lua on level1 or on level2 (no mixed versions)",
  ("%d rounds matched neither"):format(bad))
print(("# B: rounds on level1 %d, on level2 %d"):format(count[v1], count[v2]))

-- D: re-opened without close
local D = report.D
local versions = D.peak and (D.peak - D.base) / D.version
check(versions and versions <= 4, "D: 40 re-opens of the republished city map without close keep at most 4 versions",
  D.error or ("peak %.1f versions"):format(versions or -1))
if versions then
  print(("# D: city map %d bytes; peak shared %d bytes above the start (%.1f versions) over %d re-opens; "
    .. "reader: collectgarbage %.0f KB, navmesh.memory() %d bytes"):format(D.version, D.peak - D.base, versions,
    D.rounds, D.readerKB, D.readerMemory))
end

-- E: out of memory under skynet.memlimit
local E = report.E
check(E.ok == false and tostring(E.result):match("not enough memory"),
  "E: navmesh.load under skynet.memlimit raises 'not enough memory'",
  E.error or ("pcall gave %s, %s, %s, %s"):format(tostring(E.ok), E.result, E.msg, E.code))

check(report.settled.sharedBytes == 0, "every name unshared and every service gone: navmesh.sharedBytes() is 0",
  report.settled.sharedBytes)

-- C: the example
check(report.C.ok, "C: examples/skynet/navmain.lua ran (with 4 navservice.lua)", report.C.error)
local want, got = run_example(), node_lines()
local same = #want == #got and #want > 0
for i = 1, #want do same = same and want[i] == got[i] end
check(same, ("C: the example logged the %d lines plain Lua 5.4 gives for it"):format(#want),
  "node:\n" .. table.concat(got, "\n") .. "\nplain Lua:\n" .. table.concat(want, "\n"))
