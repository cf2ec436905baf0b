-- spec/crowdhelp.lua: what the crowd specs share (spec/80-crowd_spec.lua,
-- spec/81-crowd_oracle_spec.lua): the oracle's scenario files, overlap
-- counts and the on-the-mesh check, as spec/c/test_crowd_oracle.c does them.
local helper = require "helper"

local M = {}

--- A crowd scenario of ../shared/oracle/crowd (see its README): the header
-- (starts, targets, targets2, agentParams, avoidancePresets ...), the tick
-- records (tick, npos, vel, state, targetState, firstPoly) and the final
-- line (target, dist2d, partial). nil when the file is absent.
function M.scenario(name)
  local f = io.open(helper.shared .. "/oracle/crowd/" .. name .. ".jsonl", "rb")
  if not f then return nil end
  local s = { records = {} }
  for line in f:lines() do
    if line:find("%S") then
      local o = helper.json_decode(line)
      if o.type == "header" then s.header = o
      elseif o.type == "tick" then s.records[#s.records + 1] = o
      elseif o.type == "final" then s.final = o end
    end
  end
  f:close()
  return s
end

--- x rounded to the nearest float32 (the files print float32 values with 9
-- digits: this gives back the float the crowd computed).
local frexp = math.frexp or function(x) -- (Lua 5.4 has no frexp; it has string.pack)
  local e = x == 0 and 0 or math.floor(math.log(math.abs(x), 2)) + 1
  return x / 2 ^ e, e
end
function M.to_float(x)
  if string.pack then return (string.unpack("<f", string.pack("<f", x))) end
  if x == 0 or x ~= x then return x end
  local m, e = frexp(x)
  local scaled = m * 2 ^ 24
  local r = math.floor(scaled + 0.5)
  if r - scaled == 0.5 and r % 2 == 1 then r = r - 1 end -- ties to even
  return r * 2 ^ (e - 24)
end

--- (pair, tick) overlaps at one tick: pairs at heights where they could
-- touch (|dy| < height) closer in X/Z than 90% of the radii sum.
-- pos is a flat {x,y,z, ...} list of n agents.
function M.overlaps(pos, n, radius, height)
  local lim2, k = (0.9 * 2 * radius) ^ 2, 0
  for i = 0, n - 1 do
    local xi, yi, zi = pos[3 * i + 1], pos[3 * i + 2], pos[3 * i + 3]
    for j = i + 1, n - 1 do
      local dx, dz = xi - pos[3 * j + 1], zi - pos[3 * j + 3]
      if math.abs(yi - pos[3 * j + 2]) < height and dx * dx + dz * dz < lim2 then k = k + 1 end
    end
  end
  return k
end

--- Whether a walking agent (a crowd:getAgent table) stands on its polygon:
-- the nearest point of the polygon is within 1 mm in X/Z. Agents in other
-- states pass.
function M.on_mesh(mesh, a)
  if a.state ~= "walking" then return true end
  if not a.poly or not mesh:isValidPolyRef(a.poly) then return false end
  local x, _, z = mesh:closestPointOnPoly(a.poly, a.x, a.y, a.z)
  return (x - a.x) ^ 2 + (z - a.z) ^ 2 <= 1e-6
end

--- Agents (of the ids list) that are not on their polygon now.
function M.count_off_mesh(mesh, crowd, ids)
  local k = 0
  for _, id in ipairs(ids) do
    if not M.on_mesh(mesh, crowd:getAgent(id)) then k = k + 1 end
  end
  return k
end

return M
