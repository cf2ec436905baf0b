--- A crowd crossing a doorway: 200 agents in two halls (examples/doorway.lua),
-- 100 in each, every one sent to the mirror image of its start in the other
-- hall, so two streams meet in the one doorway. Steps the crowd at 20 Hz
-- until everyone has arrived (or 200 s have passed), prints what happened,
-- and writes
--   an SVG picture of the level, every agent's trail (west-to-east red,
--   east-to-west blue) and the agents at the moment most of them were near
--   the doorway, with their velocities (default build/crowd.svg), and
--   a navmesh.debug export with the run as a recording for the viewer's
--   replay (examples/viewer/index.html; default build/crowd.json; needs
--   lua-cjson).
-- Usage: lua examples/crowd.lua [svg-path [export-path [agents [avoidance]]]]
--   (LUA_PATH="lua/?.lua;examples/?.lua;;" LUA_CPATH="build/5.4/?.so;;")
-- avoidance: "sampled" (default) or "orca".
local navmesh = require "navmesh"
local doorway = require "doorway"

local svg_path = arg and arg[1] or "build/crowd.svg"
local export_path = arg and arg[2] or "build/crowd.json"
local AGENTS = tonumber(arg and arg[3]) or 200
local AVOIDANCE = arg and arg[4] or "sampled"
local DT, MAX_TICKS, RADIUS = 0.05, 4000, 0.4
local TRAIL_EVERY, FRAME_EVERY = 5, 5 -- ticks between trail points / recorded frames

local mesh, door, size = doorway.build(navmesh)
local crowd = navmesh.crowd(mesh, { maxAgents = AGENTS, maxAgentRadius = RADIUS })

-- Starts on a grid of cell centres in each hall (pillars skipped), the
-- west hall's from the wall outwards, so the first to leave are near the
-- door; each agent's target is its start mirrored about the wall.
local function starts(n)
  local out, span = {}, size[1]
  for col = 0, 40 do
    for row = 0, 40 do
      local x, z = door[1] - 1.5 - 2 * col, 1.5 + 2 * row
      if x > 0.5 and z < size[2] - 0.5 and #out < n then
        local ref, px, _, pz = mesh:findNearestPoly(x, 0, z, 0.1, 1, 0.1)
        if ref and px == x and pz == z then out[#out + 1] = { x, z, span - x, z } end
      end
    end
  end
  return out
end

local ids, goals, trails = {}, {}, {}
local half = starts(math.ceil(AGENTS / 2))
for i = 1, AGENTS do
  local s = half[math.floor((i + 1) / 2)]
  local x, z, gx, gz = s[1], s[2], s[3], s[4]
  if i % 2 == 0 then x, gx = gx, x end -- every other agent starts in the east hall
  local id = assert(crowd:addAgent(x, 0, z, { radius = RADIUS, avoidance = AVOIDANCE }))
  assert(crowd:requestMoveTarget(id, gx, 0, gz))
  ids[i], goals[i], trails[i] = id, { gx, gz }, { x, 0, z }
end

-- ---- the run ----
local pos, frames = {}, {}
local arrived, ticks, clock = 0, 0, 0
local function count_arrived()
  local n = 0
  for i = 1, AGENTS do
    local dx, dz = pos[3 * i - 2] - goals[i][1], pos[3 * i] - goals[i][2]
    if dx * dx + dz * dz < 1 then n = n + 1 end
  end
  return n
end
local busiest, busiest_tick, snapshot = -1, 0, {}
local dcx, dcz = (door[1] + door[3]) / 2, (door[2] + door[4]) / 2
local function crowded() -- agents within 6 m of the doorway's centre
  local n = 0
  for i = 1, AGENTS do
    local dx, dz = pos[3 * i - 2] - dcx, pos[3 * i] - dcz
    if dx * dx + dz * dz < 36 then n = n + 1 end
  end
  return n
end
local function record(list, n)
  local f = {}
  for k = 1, 3 * n do f[k] = pos[k] end
  list[#list + 1] = f
end
crowd:positions(pos)
record(frames, AGENTS)
while ticks < MAX_TICKS do
  local t0 = os.clock()
  crowd:update(DT)
  clock = clock + os.clock() - t0
  ticks = ticks + 1
  crowd:positions(pos)
  if ticks % TRAIL_EVERY == 0 then
    for i = 1, AGENTS do
      local t = trails[i]
      t[#t + 1], t[#t + 2], t[#t + 3] = pos[3 * i - 2], pos[3 * i - 1], pos[3 * i]
    end
  end
  if ticks % FRAME_EVERY == 0 then record(frames, AGENTS) end
  local near = crowded()
  if near > busiest then -- the moment most agents are at the door: drawn with their velocities
    busiest, busiest_tick = near, ticks
    for i = 1, AGENTS do snapshot[i] = crowd:getAgent(ids[i]) end
  end
  arrived = count_arrived()
  if arrived == AGENTS then break end
end

-- how many ended on the far side of the wall
local crossed = 0
for i = 1, AGENTS do
  local east = pos[3 * i - 2] > door[1]
  if (i % 2 == 1) == east then crossed = crossed + 1 end
end
print(("%d agents (%s avoidance, radius %.1f) through a %.0f m doorway: %d within 1 m of their targets "
       .. "after %d ticks (%.1f s simulated), %d on the far side of the wall")
  :format(AGENTS, AVOIDANCE, RADIUS, door[4] - door[2], arrived, ticks, ticks * DT, crossed))
print(("update: %.3f ms per tick (CPU, mean over %d ticks)"):format(clock / ticks * 1000, ticks))

-- (pair, recorded frame) overlaps deeper than 10% of the radii sum
local overlaps, lim2 = 0, (0.9 * 2 * RADIUS) ^ 2
for _, f in ipairs(frames) do
  for i = 0, AGENTS - 1 do
    local x, z = f[3 * i + 1], f[3 * i + 3]
    for j = i + 1, AGENTS - 1 do
      if (x - f[3 * j + 1]) ^ 2 + (z - f[3 * j + 3]) ^ 2 < lim2 then overlaps = overlaps + 1 end
    end
  end
end
print(("overlaps: %d (pair, frame) deeper than 10%% of the radii sum in %d frames"):format(overlaps, #frames))

-- ---- the picture ----
local paths = {}
for i = 1, AGENTS do
  paths[i] = { points = trails[i], name = "agent " .. ids[i], width = 1.2, dots = false,
               color = i % 2 == 1 and "#d0463c" or "#2f6fce" }
end
local svg = navmesh.debug.svg { mesh = mesh, paths = paths, agents = snapshot, scale = 14,
                                title = ("%d agents crossing a doorway"):format(AGENTS) }
local f = assert(io.open(svg_path, "w"))
f:write(svg)
f:close()
print(("picture: %s (trails: red west to east, blue east to west; yellow: the agents at %.1f s, when %d were within 6 m of the doorway, with their velocities)")
  :format(svg_path, busiest_tick * DT, busiest))

-- ---- the recording for the viewer ----
local ok = pcall(require, "cjson")
if ok then
  local text = navmesh.debug.export { mesh = mesh,
    recording = { dt = DT * FRAME_EVERY, radius = RADIUS, frames = frames } }
  f = assert(io.open(export_path, "w"))
  f:write(text)
  f:close()
  print(("recording: %s (%d frames of %d agents, %d KiB; open examples/viewer/index.html and load it)")
    :format(export_path, #frames, AGENTS, math.floor(#text / 1024)))
else
  print("recording: skipped (lua-cjson is not installed)")
end
crowd:close()
mesh:close()
