--- bench/pair.lua: two ways of doing one job timed side by side in one
-- process, as bench/pair.h does in C: rounds of one pass of A and one of B
-- in alternating order, the median of the per-round A/B with its quartiles,
-- the median microseconds per call of each, the load average at the end.
-- A pass is a function(reps) returning the seconds `reps` passes took
-- (pair.clock: Detour's module clock when it is there, which honours
-- BENCH_CLOCK=wall; os.clock, CPU time, otherwise).
local pair = {}

local ok, detour = pcall(require, "detourbench")
pair.detour = ok and detour or nil
pair.clock = pair.detour and pair.detour.clock or os.clock
pair.lua = jit and "LuaJIT" or _VERSION

--- Whether mesh `name` is to be timed (BENCH_MESH=name picks one).
function pair.wanted(name)
  local only = os.getenv("BENCH_MESH")
  return not only or only == "" or only == name
end

--- The 1-minute load average (-1 when unknown).
function pair.load()
  if pair.detour then return pair.detour.load() end
  local f = io.open("/proc/loadavg")
  local l = f and tonumber(f:read("*l"):match("^(%S+)"))
  if f then f:close() end
  return l or -1
end

--- A pass timing fn(), which runs one pass over all inputs.
function pair.timed(fn)
  local clock = pair.clock
  return function(reps)
    local t0 = clock()
    for _ = 1, reps do fn() end
    return clock() - t0
  end
end

local function median(v)
  table.sort(v)
  local n = #v
  if n == 0 then return 0 end
  if n % 2 == 1 then return v[(n + 1) / 2] end
  return 0.5 * (v[n / 2] + v[n / 2 + 1])
end

--- Times pass a (a_calls calls per pass) against pass b for about secs
-- seconds (at least 5 rounds); b may be nil (a alone). Returns a table:
-- a_us, b_us, ratio, q1, q3, rounds, load.
function pair.run(a, a_calls, b, b_calls, secs)
  local ta, tb, ratio = {}, {}, {}
  local t1 = a(1)
  local t2 = b and b(1) or 0
  local slow = math.max(t1, t2)
  local reps = slow <= 0 and 1000 or slow >= secs / 16 and 1 or math.floor(secs / 16 / slow + 0.5)
  local fixed = tonumber(os.getenv("BENCH_ROUNDS") or "")
  if fixed and fixed > 0 then reps = 1 end
  local t0, n = pair.clock(), 0
  repeat
    n = n + 1
    if not b then
      ta[n], tb[n] = a(reps), 0
    elseif n % 2 == 1 then
      ta[n] = a(reps); tb[n] = b(reps)
    else
      tb[n] = b(reps); ta[n] = a(reps)
    end
    ratio[n] = tb[n] > 0 and ta[n] / tb[n] or 0
  until n >= 512 or (fixed and fixed > 0 and n >= fixed) or (not fixed and n >= 5 and pair.clock() - t0 >= secs)
  local r = { rounds = n, reps = reps, ratio = median(ratio) }
  r.q1, r.q3 = ratio[math.floor((n - 1) / 4) + 1], ratio[math.floor((3 * (n - 1) + 3) / 4) + 1]
  for i = 1, n do
    ta[i] = ta[i] * 1e6 / (reps * math.max(a_calls, 1))
    tb[i] = tb[i] * 1e6 / (reps * math.max(b_calls or 1, 1))
  end
  r.a_us, r.b_us, r.load = median(ta), median(tb), pair.load()
  return r
end

--- One table row for r: name, job, A us, B us, ratio [q1-q3], rounds, load.
function pair.row(name, job, vs, r)
  if r.b_us == 0 then
    return ("%-17s %-30s %10.3f %10s %7s %13s %4d %6.2f"):format(name, job, r.a_us, "-", "-", "", r.rounds, r.load)
  end
  return ("%-17s %-30s %10.3f %10.3f %7.3f [%5.3f-%5.3f] %4d %6.2f  %s"):format(name, job, r.a_us, r.b_us, r.ratio,
    r.q1, r.q3, r.rounds, r.load, vs)
end

--- The table header matching pair.row.
function pair.header(who)
  return ("%-17s %-30s %10s %10s %7s %13s %4s %6s  %s"):format("mesh", "job", who .. " us", "vs us", "ratio", "[q1-q3]",
    "rnds", "load", "vs")
end

--- One JSON line (stderr, tools/bench.sh collects them) for r.
function pair.json(fields, r)
  local parts = {}
  for _, kv in ipairs(fields) do parts[#parts + 1] = ('"%s":"%s"'):format(kv[1], kv[2]) end
  io.stderr:write(("{%s,\"us\":%.4f,\"vs_us\":%.4f,\"ratio\":%.4f,\"q1\":%.4f,\"q3\":%.4f,\"rounds\":%d,\"load\":%.2f}\n")
    :format(table.concat(parts, ","), r.a_us, r.b_us, r.ratio, r.q1 or 0, r.q3 or 0, r.rounds, r.load))
end

return pair
