-- crowd_bench.lua -- crowd update time per tick from Lua (navmesh.crowd),
-- beside bench/crowd_bench.cpp's C figures (make bench prints both).
-- Scenarios as the C bench runs them: RecastDemo's crowd tool settings
-- (radius 0.6, avoidance preset "high", filter excluding flags 0x10), 400
-- ticks of 0.05 s, the even agents re-targeted at tick 200; the oracle
-- files' agents for dungeon 25/100 and city 25/100/500, seeded random
-- points (mesh:seed(1), findRandomPoint) for the others: dungeon 500 and
-- 2000 over the whole mesh, city 2000 in a disc of radius 120 around
-- (300, 300). Per scenario: mean and slowest update (CPU time, os.clock)
-- with our defaults and with Detour's limits (limits = "detour"), and what
-- reading every agent costs: positions(out) into a reused table,
-- positions(out, ids), velocities(out), getAgent(id) per agent.
--   lua crowd_bench.lua <shared-dir> [seconds-ignored]
-- Table on stdout, one JSON object per scenario on stderr.
local navmesh = require "navmesh"

local shared = arg[1] or "../shared"
local clock = os.clock
local TICKS, DT, RETARGET = 400, 0.05, 200

-- Agents of an oracle file: starts, targets, targets2 as {x, y, z, ref}.
local function oracle_points(name)
  local f = io.open(shared .. "/oracle/crowd/" .. name .. ".jsonl", "rb")
  if not f then return nil end
  local header = f:read("*l")
  f:close()
  local lists = {}
  for _, key in ipairs { "starts", "targets", "targets2" } do
    local part = header:match('"' .. key .. '":(%b[])')
    local list = {}
    for x, y, z, ref in part:gmatch('"pos":%[([^,]+),([^,]+),([^%]]+)%],"ref":(%d+)') do
      list[#list + 1] = { tonumber(x), tonumber(y), tonumber(z), tonumber(ref) }
    end
    lists[key] = list
  end
  return lists
end

-- Seeded random points (the C bench's draw: starts, targets, then second
-- targets for the even agents; inside the disc when one is given).
local function random_points(mesh, filter, n, disc)
  mesh:seed(1)
  local function draw()
    while true do
      local ref, x, y, z = mesh:findRandomPoint(filter)
      if not disc or (x - 300) ^ 2 + (z - 300) ^ 2 <= disc * disc then return { x, y, z, ref } end
    end
  end
  local lists = { starts = {}, targets = {}, targets2 = {} }
  for i = 1, n do lists.starts[i] = draw() end
  for i = 1, n do lists.targets[i] = draw() end
  for i = 1, math.ceil(n / 2) do lists.targets2[i] = draw() end
  return lists
end

local function make_crowd(mesh, filter, pts, n, limits)
  local crowd = navmesh.crowd(mesh, { maxAgents = n, maxAgentRadius = 0.6, limits = limits })
  for i = 0, 3 do crowd:setObstacleAvoidanceParams(i, ({ "low", "medium", "good", "high" })[i + 1]) end
  local ids, params = {}, { radius = 0.6, filter = filter }
  for i = 1, n do
    local p = pts.starts[i]
    ids[i] = assert(crowd:addAgent(p[1], p[2], p[3], params))
  end
  for i = 1, n do
    local p = pts.targets[i]
    crowd:requestMoveTarget(ids[i], p[1], p[2], p[3], p[4])
  end
  return crowd, ids
end

-- 400 ticks: mean and slowest update in microseconds, and the crowd.
local function run(mesh, filter, pts, n, limits)
  local crowd, ids = make_crowd(mesh, filter, pts, n, limits)
  local total, worst = 0, 0
  for k = 0, TICKS - 1 do
    if k == RETARGET then
      for i, p in ipairs(pts.targets2) do crowd:requestMoveTarget(ids[2 * i - 1], p[1], p[2], p[3], p[4]) end
    end
    local t0 = clock()
    crowd:update(DT)
    local t = clock() - t0
    total = total + t
    if t > worst then worst = t end
  end
  return total / TICKS * 1e6, worst * 1e6, crowd, ids
end

-- Mean microseconds per call of fn over at least 0.2 s.
local function per_call(fn)
  local t0, calls = clock(), 0
  repeat
    for _ = 1, 20 do fn() end
    calls = calls + 20
  until clock() - t0 >= 0.2
  return (clock() - t0) / calls * 1e6
end

local scenarios = {
  { "dungeon", "dungeon_tiled.bin", "dungeon_25", 25 },
  { "dungeon", "dungeon_tiled.bin", "dungeon_100", 100 },
  { "dungeon", "dungeon_tiled.bin", nil, 500 },
  { "dungeon", "dungeon_tiled.bin", nil, 2000 },
  { "city", "city_tiled.bin", "city_25", 25 },
  { "city", "city_tiled.bin", "city_100", 100 },
  { "city", "city_tiled.bin", "city_500", 500 },
  { "city", "city_tiled.bin", nil, 2000, 120 },
}

local lua = jit and jit.version or _VERSION
print(("crowd from Lua (%s): us per update, 400 ticks (CPU time); reading all agents, us per call"):format(lua))
print(("%-8s %5s | %8s %8s | %8s %8s | %9s %9s %9s %9s"):format("mesh", "agents", "dflt", "dflt-max", "detour",
      "det-max", "positions", "pos+ids", "velocity", "getAgent"))
for _, sc in ipairs(scenarios) do
  local name, file, oracle, n, disc = sc[1], sc[2], sc[3], sc[4], sc[5]
  local mesh = navmesh.load(shared .. "/navmeshes/" .. file)
  local filter = navmesh.filter { exclude = 0x10 }
  local pts = mesh and (oracle and oracle_points(oracle) or random_points(mesh, filter, n, disc))
  if not pts then
    print(("%-8s %5d | (%s or its oracle file missing: skipped)"):format(name, n, file))
  else
    local mean, worst, crowd, ids = run(mesh, filter, pts, n)
    local dmean, dworst, dcrowd = run(mesh, filter, pts, n, "detour")
    dcrowd:close()
    local out, got, vel = {}, {}, {}
    local t_pos = per_call(function() crowd:positions(out) end)
    local t_ids = per_call(function() crowd:positions(out, got) end)
    local t_vel = per_call(function() crowd:velocities(vel) end)
    local t_get = per_call(function() crowd:getAgent(ids[1]) end)
    crowd:close()
    print(("%-8s %5d | %8.1f %8.1f | %8.1f %8.1f | %9.1f %9.1f %9.1f %9.2f"):format(name, n, mean, worst, dmean,
          dworst, t_pos, t_ids, t_vel, t_get))
    io.stderr:write(('{"impl":"navmesh-lua","bench":"crowd","lua":"%s","mesh":"%s","agents":%d,"defaults_mean_us":%.1f,'
      .. '"defaults_max_us":%.1f,"detour_limits_mean_us":%.1f,"detour_limits_max_us":%.1f,"positions_us":%.2f,'
      .. '"positions_ids_us":%.2f,"velocities_us":%.2f,"get_agent_us":%.3f}\n'):format(lua, name, n, mean, worst, dmean,
      dworst, t_pos, t_ids, t_vel, t_get))
    mesh:close()
  end
  io.stdout:flush()
end
