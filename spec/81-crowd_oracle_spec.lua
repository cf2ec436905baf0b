-- spec/81-crowd_oracle_spec.lua: the crowd from Lua against DetourCrowd's
-- recorded runs (../shared/oracle/crowd, see its README): the same agents,
-- filter, avoidance presets, targets and re-targets at tick 200, 400 ticks
-- of 0.05 s, Detour's limits (navmesh.crowd{ limits = "detour" }).
--   * tick 0 exactly: positions, first polygons, states, target states;
--   * the 10- and 25-agent scenarios: every recorded position within 0.05 m
--     of dtCrowd's up to tick 100 (printed: how many records are identical);
--   * every scenario: at least as many agents end within 1 m (X/Z) of their
--     final target as in dtCrowd, no agent is ever off the navmesh (each
--     walking agent on its polygon: checked every tick for 10 and 25
--     agents, every recorded tick for 100 and 500), and no more (pair,
--     recorded tick) overlaps deeper than 10% of the radii sum than dtCrowd's.
-- Which scenarios run: all ten on Lua 5.4 (about 6 s); the 10- and
-- 25-agent ones on other Luas, and everywhere when NAVMESH_CROWD_ORACLE is
-- "small" (the valgrind run sets it); none with "none".
-- The C test (spec/c/test_crowd_oracle.c) checks the same every tick.
-- Skips with a message without ../shared.
local navmesh = require "navmesh"
local helper = require "helper"
local ch = require "crowdhelp"

local ALL = { "dungeon_10", "dungeon_25", "dungeon_100", "nav_test_10", "nav_test_25", "nav_test_100",
              "city_10", "city_25", "city_100", "city_500" }
local mode = os.getenv("NAVMESH_CROWD_ORACLE")
if not mode then mode = (_VERSION == "Lua 5.4" and not rawget(_G, "jit")) and "all" or "small" end

local function wanted(name)
  if mode == "none" then return false end
  return mode == "all" or name:match("_10$") or name:match("_25$")
end

-- The crowd as the oracle set it up (RecastDemo's crowd tool): returns
-- the crowd and the agent ids in the order of the file.
local function make_crowd(mesh, s)
  local h = s.header
  local crowd = navmesh.crowd(mesh, { maxAgents = h.maxAgents, maxAgentRadius = h.maxAgentRadius, limits = "detour" })
  for i, p in ipairs(h.avoidancePresets) do crowd:setObstacleAvoidanceParams(i - 1, p) end
  local ap = h.agentParams
  local params = {
    radius = ap.radius, height = ap.height, maxAcceleration = ap.maxAcceleration, maxSpeed = ap.maxSpeed,
    collisionQueryRange = ap.collisionQueryRange, pathOptimizationRange = ap.pathOptimizationRange,
    separationWeight = ap.separationWeight, updateFlags = ap.updateFlags,
    obstacleAvoidanceType = ap.obstacleAvoidanceType,
    filter = navmesh.filter { include = h.filter.include, exclude = h.filter.exclude },
  }
  local ids = {}
  for i, st in ipairs(h.starts) do ids[i] = assert(crowd:addAgent(st.pos[1], st.pos[2], st.pos[3], params)) end
  for i, t in ipairs(h.targets) do assert(crowd:requestMoveTarget(ids[i], t.pos[1], t.pos[2], t.pos[3], t.ref)) end
  return crowd, ids
end

-- Compares the crowd now with record r: largest deviation, and whether
-- every position (and at tick 0 every first polygon and state) is identical.
local function compare(crowd, ids, r, pos)
  local dev, same = 0, true
  crowd:positions(pos)
  for i = 1, #ids do
    for j = 1, 3 do
      local d = math.abs(pos[3 * i - 3 + j] - ch.to_float(r.npos[i][j]))
      if d > dev then dev = d end
      if d ~= 0 then same = false end
    end
    if r.tick == 0 then
      local a = crowd:getAgent(ids[i])
      same = same and (a.poly or 0) == r.firstPoly[i] and a.state == ({ "invalid", "walking", "offmesh" })[r.state[i] + 1]
             and a.targetState == ({ "none", "failed", "valid", "requesting", "waitingForQueue", "waitingForPath",
                                     "velocity" })[r.targetState[i] + 1]
    end
  end
  return dev, same
end

-- The oracle's own figures: arrivals and overlaps at its recorded ticks.
local function oracle_figures(s, radius, height)
  local arrived, overlaps, n = 0, 0, s.header.agents
  for i = 1, n do if s.final.dist2d[i] < 1 then arrived = arrived + 1 end end
  for _, r in ipairs(s.records) do
    local pos = {}
    for i = 1, n do pos[3 * i - 2], pos[3 * i - 1], pos[3 * i] = r.npos[i][1], r.npos[i][2], r.npos[i][3] end
    overlaps = overlaps + ch.overlaps(pos, n, radius, height)
  end
  return arrived, overlaps
end

-- Runs scenario s: what the checks need.
local function run(mesh, s)
  local h = s.header
  local crowd, ids = make_crowd(mesh, s)
  local res = { dev_early = 0, identical = 0, off_mesh = 0, overlaps = 0, arrived = 0 }
  local pos, r, every_tick = {}, 1, h.agents <= 25
  for k = 0, h.ticks do
    local rec = s.records[r]
    if rec and rec.tick == k then
      local dev, same = compare(crowd, ids, rec, pos)
      if k == 0 then res.tick0_exact = same end
      if same then res.identical = res.identical + 1 end
      if k <= 100 and dev > res.dev_early then res.dev_early = dev end
      res.overlaps = res.overlaps + ch.overlaps(pos, h.agents, h.agentParams.radius, h.agentParams.height)
      r = r + 1
    end
    if every_tick or (rec and rec.tick == k) then res.off_mesh = res.off_mesh + ch.count_off_mesh(mesh, crowd, ids) end
    if k == h.ticks then break end
    if k == h.retargetTick then
      for _, t in ipairs(h.targets2) do
        assert(crowd:requestMoveTarget(ids[t.agent + 1], t.pos[1], t.pos[2], t.pos[3], t.ref))
      end
    end
    crowd:update(h.dt)
  end
  crowd:positions(pos)
  for i = 1, h.agents do
    local t = s.final.target[i]
    local dx, dz = pos[3 * i - 2] - ch.to_float(t[1]), pos[3 * i] - ch.to_float(t[3])
    if dx * dx + dz * dz < 1 then res.arrived = res.arrived + 1 end
  end
  crowd:close()
  return res
end

describe("crowd against dtCrowd's recorded runs (Detour's limits)", function()
  if helper.skip_without_shared("crowd oracle") then return end
  for _, name in ipairs(ALL) do
    if wanted(name) then
      it(name, function()
        local s = assert(ch.scenario(name), name .. ": oracle file missing")
        local h = s.header
        local mesh = assert(navmesh.load(helper.shared .. "/navmeshes/" .. h.navmesh))
        local arrived, overlaps = oracle_figures(s, h.agentParams.radius, h.agentParams.height)
        local res = run(mesh, s)
        print(("# %-12s deviation up to tick 100: %.3g m, %d/%d records identical; arrived %d (dtCrowd %d), "
               .. "overlaps %d (dtCrowd %d), off the mesh %d"):format(name, res.dev_early, res.identical, #s.records,
               res.arrived, arrived, res.overlaps, overlaps, res.off_mesh))
        assert.is_true(res.tick0_exact, "tick 0 identical")
        if h.agents <= 25 then assert.is_true(res.dev_early <= 0.05, "within 0.05 m up to tick 100") end
        assert.is_true(res.arrived >= arrived, "arrivals")
        assert.are.equal(0, res.off_mesh)
        assert.is_true(res.overlaps <= overlaps, "overlaps")
        mesh:close()
      end)
    end
  end
end)
