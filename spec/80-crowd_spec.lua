-- spec/80-crowd_spec.lua: the crowd from Lua (navmesh.crowd, docs/crowd.md)
-- on levels made here, without ../shared: agents crossing the doorway
-- level (examples/doorway.lua) arrive through the doorway and never leave
-- the mesh; a target beyond 256 polygons is reached; an agent whose filter
-- bars a door goes round by the other; tiles removed, added and replaced
-- (an obstacle dropped in their way) under walking agents make them
-- re-plan, none ends inside the obstacle; the same calls give the same
-- positions bit for bit, in two runs, with 1, 2 and 4 threads, and in Lua
-- 5.4 and LuaJIT; positions()
-- makes no garbage; bad input raises or returns nil, msg, code as documented.
local navmesh = require "navmesh"
local ch = require "crowdhelp" -- (and helper, which puts examples/ on the path)
local level = require "level"
local doorway = require "doorway"

local DT = 0.05

local function dist2d(x, z, gx, gz) return math.sqrt((x - gx) ^ 2 + (z - gz) ^ 2) end

-- Steps the crowd up to max ticks (until done(tick) is true), calling
-- each(tick) after every update; returns the ticks run.
local function run(crowd, max, each, done)
  for k = 1, max do
    crowd:update(DT)
    if each then each(k) end
    if done and done(k) then return k end
  end
  return max
end

-- n agents per side of the doorway level, each sent to its start mirrored
-- about the wall: ids, goals {x, z}, and the level.
local function crossing(crowd_opts, n, params)
  local mesh, door, size = doorway.build(navmesh)
  local crowd = navmesh.crowd(mesh, crowd_opts or { maxAgents = 2 * n, maxAgentRadius = 0.4 })
  local ids, goals = {}, {}
  for i = 1, 2 * n do
    local k = math.floor((i - 1) / 2)
    local x, z = door[1] - 2.5 - 2 * (k % 5), 4.5 + 3 * math.floor(k / 5)
    local gx = size[1] - x
    if i % 2 == 0 then x, gx = gx, x end
    ids[i] = assert(crowd:addAgent(x, 0, z, params or { radius = 0.4 }))
    assert.is_true(crowd:requestMoveTarget(ids[i], gx, 0, z))
    goals[i] = { gx, z }
  end
  return crowd, ids, goals, mesh, door
end

local function all_arrived(crowd, ids, goals)
  local pos = crowd:positions()
  for i = 1, #ids do
    if dist2d(pos[3 * i - 2], pos[3 * i], goals[i][1], goals[i][2]) >= 1 then return false end
  end
  return true
end

describe("navmesh.crowd", function()
  it("makes a crowd over a mesh; close is idempotent, a closed crowd raises", function()
    local mesh = doorway.build(navmesh)
    local crowd = navmesh.crowd(mesh, { maxAgents = 4, maxAgentRadius = 0.5 })
    assert.matches("^navmesh%.Crowd %(0 of 4 agents%)", tostring(crowd))
    assert.are.equal(4, crowd:getAgentCount())
    local id = crowd:addAgent(5, 0, 5)
    assert.are.same({ id }, crowd:getActiveAgents())
    crowd:close()
    crowd:close()
    assert.matches("closed", tostring(crowd))
    assert.has_error(function() crowd:update(DT) end, "attempt to use a closed navmesh.Crowd")
    mesh:close()
  end)

  it("holds its mesh: closing the NavMesh handle leaves the crowd working", function()
    local mesh = doorway.build(navmesh)
    local crowd = navmesh.crowd(mesh)
    local id = crowd:addAgent(5.5, 0, 5.5)
    crowd:requestMoveTarget(id, 10.5, 0, 5.5)
    mesh:close()
    collectgarbage()
    run(crowd, 100)
    assert.is_true(crowd:getAgent(id).x > 10)
    crowd:close()
  end)

  it("works on a shared mesh (navmesh.open): its own query state, a reference to the mesh", function()
    local mesh = doorway.build(navmesh)
    assert(mesh:share("crowd-spec-doorway", { replace = true }))
    local a, b = navmesh.open("crowd-spec-doorway"), navmesh.open("crowd-spec-doorway")
    local c1, c2 = navmesh.crowd(a), navmesh.crowd(b)
    local i1, i2 = c1:addAgent(5.5, 0, 5.5), c2:addAgent(5.5, 0, 5.5)
    c1:requestMoveTarget(i1, 50.5, 0, 12.5)
    c2:requestMoveTarget(i2, 50.5, 0, 12.5)
    navmesh.unshare("crowd-spec-doorway")
    a:close()
    mesh:close()
    for _ = 1, 400 do
      c1:update(DT)
      c2:update(DT)
    end
    local p1, p2 = c1:getAgent(i1), c2:getAgent(i2)
    assert.is_true(dist2d(p1.x, p1.z, 50.5, 12.5) < 1)
    assert.are.same({ p1.x, p1.y, p1.z }, { p2.x, p2.y, p2.z })
    c1:close()
    c2:close()
    b:close()
  end)

  it("follows its NavMesh handle onto another version of the mesh (mesh:share moves the handle)", function()
    local function crossing_on(mesh, share_at)
      local crowd = navmesh.crowd(mesh, { maxAgents = 20, maxAgentRadius = 0.4 })
      local ids = {}
      for i = 1, 20 do
        local x, z = i % 2 == 1 and 25.5 or 36.5, 2.5 + i
        ids[i] = crowd:addAgent(x, 0, z, { radius = 0.4 })
        crowd:requestMoveTarget(ids[i], i % 2 == 1 and 36.5 or 25.5, 0, z)
      end
      local out, freed = {}, nil
      for k = 1, 200 do
        if k == share_at then
          collectgarbage()
          assert(mesh:share("crowd-spec-follow", { replace = true }))
          local held = navmesh.memory()
          crowd:update(DT) -- the crowd moves onto the shared copy: the state's own mesh is freed
          freed = held - navmesh.memory()
        else
          crowd:update(DT)
        end
      end
      local pos = crowd:positions()
      for i = 1, #pos do out[i] = ("%.9g"):format(pos[i]) end
      crowd:close()
      return table.concat(out, " "), freed
    end
    local plain = crossing_on((doorway.build(navmesh)))
    local shared_mesh = doorway.build(navmesh)
    local data = shared_mesh:info().dataBytes
    local moved, freed = crossing_on(shared_mesh, 100)
    assert.is_true(shared_mesh:info().readOnly) -- the handle is on the shared copy now
    assert.is_true(freed >= data, ("%d bytes freed, the mesh has %d"):format(freed, data))
    assert.are.equal(plain, moved) -- the same polygons: the agents went on as before
    navmesh.unshare("crowd-spec-follow")
  end)

  it("counts its memory in navmesh.memory() until closed", function()
    local mesh = doorway.build(navmesh)
    collectgarbage() -- (what earlier tests dropped goes now, not during the count)
    collectgarbage()
    local before = navmesh.memory()
    local crowd = navmesh.crowd(mesh, { maxAgents = 500 })
    assert.is_true(navmesh.memory() > before + 500 * 100)
    crowd:close()
    assert.are.equal(before, navmesh.memory())
    mesh:close()
  end)
end)

describe("crowd agents", function()
  it("cross the doorway level both ways through its doorway, never off the mesh", function()
    local crowd, ids, goals, mesh, door = crossing(nil, 15)
    local through, off = {}, 0
    local ticks = run(crowd, 1500, function(k)
      local pos = crowd:positions()
      for i = 1, #ids do
        local x, z = pos[3 * i - 2], pos[3 * i]
        if x >= door[1] and x <= door[3] and z >= door[2] and z <= door[4] then through[i] = true end
      end
      if k % 5 == 0 then off = off + ch.count_off_mesh(mesh, crowd, ids) end
    end, function() return all_arrived(crowd, ids, goals) end)
    local n = 0
    for i = 1, #ids do if through[i] then n = n + 1 end end
    print(("# doorway: %d agents arrived after %d ticks, %d walked through the doorway"):format(#ids, ticks, n))
    assert.is_true(all_arrived(crowd, ids, goals))
    assert.are.equal(#ids, n)
    assert.are.equal(0, off)
    crowd:close()
  end)

  it("with ORCA avoidance cross an open hall both ways", function()
    local mesh = doorway.build(navmesh)
    local crowd = navmesh.crowd(mesh, { maxAgents = 20 })
    local ids, goals = {}, {}
    for i = 1, 20 do
      local x, z = i % 2 == 1 and 3.5 or 26.5, 2.5 + i
      local gx = i % 2 == 1 and 26.5 or 3.5
      ids[i] = crowd:addAgent(x, 0, z, { radius = 0.4, avoidance = "orca" })
      crowd:requestMoveTarget(ids[i], gx, 0, z)
      goals[i] = { gx, z }
    end
    assert.are.equal("orca", crowd:getAgentParameters(ids[1]).avoidance)
    run(crowd, 800, nil, function() return all_arrived(crowd, ids, goals) end)
    assert.is_true(all_arrived(crowd, ids, goals))
    crowd:close()
  end)

  it("reach a target beyond 256 polygons (Detour's corridor limit) in one plan", function()
    -- a serpentine corridor one cell wide: 10 runs of 40 cells
    local map = {}
    for r = 0, 20 do
      local row = {}
      for c = 0, 41 do
        local open = c >= 1 and c <= 40 and (r % 2 == 1 or (r > 0 and r < 20 and
                     ((r % 4 == 2 and c == 40) or (r % 4 == 0 and c == 1))))
        row[#row + 1] = open and "." or "#"
      end
      map[r + 1] = table.concat(row)
    end
    local v, p = level.polygons(map)
    local mesh = assert(navmesh.fromPolygons { vertices = v, polygons = p })
    local function walk(opts)
      local crowd = navmesh.crowd(mesh, opts)
      local id = crowd:addAgent(1.5, 0, 1.5, { radius = 0.3, maxSpeed = 8, maxAcceleration = 40 })
      assert(crowd:requestMoveTarget(id, 1.5, 0, 19.5))
      local longest = 0
      local ticks = run(crowd, 3000, function()
        local n = #crowd:getAgent(id).corridor
        if n > longest then longest = n end
      end, function()
        local a = crowd:getAgent(id)
        return dist2d(a.x, a.z, 1.5, 19.5) < 1
      end)
      local a = crowd:getAgent(id)
      crowd:close()
      return longest, ticks, dist2d(a.x, a.z, 1.5, 19.5)
    end
    local longest, ticks, left = walk()
    local dlongest = walk { limits = "detour" }
    print(("# far target: %d polygons in the mesh, longest corridor %d (Detour's limits: %d), arrived after %d ticks")
      :format(#p, longest, dlongest, ticks))
    assert.is_true(longest > 256 + 100)
    assert.is_true(left < 1)
    assert.is_true(dlongest <= 256)
  end)

  it("take a filter each: an agent barred from one door goes round by the other", function()
    -- two rooms joined by a near door (flags 2) and a far one (flags 1)
    local map = {}
    for z = 0, 19 do
      local row = {}
      for x = 0, 40 do
        local wall = x == 20 and not (z >= 9 and z <= 11) and not (z >= 17 and z <= 19)
        row[#row + 1] = wall and "#" or "."
      end
      map[z + 1] = table.concat(row)
    end
    local v, p = level.polygons(map)
    local flags = {}
    for i, poly in ipairs(p) do
      local x, z = v[3 * poly[1] - 2], v[3 * poly[1]]
      flags[i] = (x == 20 and z >= 9 and z <= 11) and 2 or 1
    end
    local mesh = assert(navmesh.fromPolygons { vertices = v, polygons = p, flags = flags })
    local crowd = navmesh.crowd(mesh)
    local free = crowd:addAgent(10.5, 0, 8.5, { radius = 0.4 })
    local barred = crowd:addAgent(10.5, 0, 11.5, { radius = 0.4, filter = navmesh.filter { exclude = 2 } })
    crowd:requestMoveTarget(free, 30.5, 0, 8.5)
    crowd:requestMoveTarget(barred, 30.5, 0, 11.5)
    local used = { [free] = false, [barred] = false }
    run(crowd, 600, function()
      for id in pairs(used) do
        local a = crowd:getAgent(id)
        if mesh:getPolyFlags(a.poly) == 2 then used[id] = true end
      end
    end)
    local a, b = crowd:getAgent(free), crowd:getAgent(barred)
    assert.is_true(used[free])
    assert.is_false(used[barred])
    assert.is_true(dist2d(a.x, a.z, 30.5, 8.5) < 1 and dist2d(b.x, b.z, 30.5, 11.5) < 1)
    assert.are.equal(0, crowd:getAgentParameters(free).filter:exclude())
    assert.are.equal(2, crowd:getAgentParameters(barred).filter:exclude())
    crowd:close()
  end)

  it("move by velocity requests and stop on resetMoveTarget", function()
    local mesh = doorway.build(navmesh)
    local crowd = navmesh.crowd(mesh)
    local id = crowd:addAgent(5.5, 0, 2.5)
    assert.is_true(crowd:requestMoveVelocity(id, 2, 0, 0))
    run(crowd, 40)
    local a = crowd:getAgent(id)
    assert.are.equal("velocity", a.targetState)
    assert.are.same({ 2, 0, 0 }, a.targetVelocity)
    assert.is_true(a.x > 8 and math.abs(a.z - 2.5) < 0.1)
    assert.is_true(crowd:resetMoveTarget(id))
    run(crowd, 40)
    a = crowd:getAgent(id)
    assert.are.equal("none", a.targetState)
    assert.is_true(math.abs(a.vx) + math.abs(a.vz) < 1e-3)
    crowd:close()
  end)

  it("getAgent gives position, velocity, states, target, corridor, corners and neighbours", function()
    local crowd, ids, _, mesh = crossing(nil, 3)
    run(crowd, 20)
    local a = crowd:getAgent(ids[1])
    assert.are.equal(ids[1], a.id)
    assert.are.equal("walking", a.state)
    assert.are.equal("valid", a.targetState)
    assert.are.equal(a.poly, a.corridor[1])
    assert.are.equal(a.targetRef, a.corridor[#a.corridor])
    assert.is_true(mesh:isValidPolyRef(a.poly))
    assert.is_true(#a.corners >= 3 and #a.corners % 3 == 0 and #a.cornerRefs == #a.corners / 3)
    assert.is_true(math.sqrt(a.vx ^ 2 + a.vz ^ 2) > 0.5)
    assert.is_true(#a.neighbours >= 1)
    for _, n in ipairs(a.neighbours) do assert.is_table(crowd:getAgent(n)) end
    assert.are.equal(3, #a.desiredVelocity)
    assert.is_false(a.partial)
    -- the shape navmesh.debug draws agents (and corridors, and corners as a path) from
    local svg = navmesh.debug.svg { mesh = mesh, agents = { a }, corridors = { a.corridor }, paths = { a.corners } }
    assert.matches('class="agent"', svg)
    crowd:close()
  end)

  it("change parameters with updateAgentParameters (keys not given keep their values)", function()
    local mesh = doorway.build(navmesh)
    local crowd = navmesh.crowd(mesh)
    local f = navmesh.filter { exclude = 4 }
    local id = crowd:addAgent(5.5, 0, 5.5, { radius = 0.5, filter = f, separation = false })
    local p = crowd:getAgentParameters(id)
    assert.are.equal(0.5, p.radius)
    assert.is_true(math.abs(p.collisionQueryRange - 6) < 1e-6 and math.abs(p.pathOptimizationRange - 15) < 1e-5)
    assert.is_false(p.separation)
    assert.are.equal(31 - 4, p.updateFlags)
    crowd:updateAgentParameters(id, { maxSpeed = 0, anticipateTurns = false })
    p = crowd:getAgentParameters(id)
    assert.are.equal(0, p.maxSpeed)
    assert.are.equal(0.5, p.radius)
    assert.are.equal(4, p.filter:exclude())
    assert.are.equal(31 - 4 - 1, p.updateFlags)
    crowd:requestMoveTarget(id, 20.5, 0, 5.5)
    run(crowd, 40)
    assert.is_true(math.abs(crowd:getAgent(id).x - 5.5) < 1e-3)
    crowd:updateAgentParameters(id, { maxSpeed = 3.5 })
    run(crowd, 40)
    assert.is_true(crowd:getAgent(id).x > 8)
    crowd:close()
  end)

  it("set and read the obstacle-avoidance parameter sets", function()
    local crowd = navmesh.crowd((doorway.build(navmesh)))
    local p = crowd:getObstacleAvoidanceParams(0)
    assert.are.same({ 0.4, 7, 2, 5 }, { ch.to_float(0.4) == p.velBias and 0.4 or p.velBias, p.adaptiveDivs,
                                        p.adaptiveRings, p.adaptiveDepth })
    crowd:setObstacleAvoidanceParams(1, "low")
    p = crowd:getObstacleAvoidanceParams(1)
    assert.are.same({ 0.5, 5, 2, 1 }, { p.velBias, p.adaptiveDivs, p.adaptiveRings, p.adaptiveDepth })
    crowd:setObstacleAvoidanceParams(7, { adaptiveDivs = 9, horizTimeObst = 2 })
    p = crowd:getObstacleAvoidanceParams(7)
    assert.are.same({ 9, 2, 2 }, { p.adaptiveDivs, p.horizTimeObst, p.adaptiveRings })
    crowd:close()
  end)
end)

describe("crowd agents and tile changes", function()
  -- A 48 x 24 floor in tiles of 9.6 m; with `box`, a block {x0, z0, x1, z1}
  -- 1.5 m high stands on it (lower than the agents' 2 m head room, so the
  -- floor under it is not walkable, as a tile cache obstacle cuts it).
  local function floor(box)
    local v, t = { 0, 0, 0, 48, 0, 0, 48, 0, 24, 0, 0, 24 }, { 1, 3, 2, 1, 4, 3 }
    if box then
      local corners = { { box[1], box[2] }, { box[3], box[2] }, { box[3], box[4] }, { box[1], box[4] } }
      for _, y in ipairs { 0, 1.5 } do
        for _, c in ipairs(corners) do v[#v + 1], v[#v + 2], v[#v + 3] = c[1], y, c[2] end
      end
      local function quad(a, b, c, d)
        for _, k in ipairs { a, b, c, a, c, d } do t[#t + 1] = 4 + k end
      end
      quad(5, 8, 7, 6)
      quad(1, 2, 6, 5) quad(2, 3, 7, 6) quad(3, 4, 8, 7) quad(4, 1, 5, 8)
    end
    return assert(navmesh.build(v, t, { tileSize = 32, cellSize = 0.3, agentRadius = 0.5,
                                        bounds = { 0, -1, 0, 48, 4, 24 } }))
  end

  -- Ten agents walking west to east in lanes z = 7.5 .. 16.5.
  local function walkers(mesh)
    local crowd = navmesh.crowd(mesh, { maxAgents = 10, maxAgentRadius = 0.5 })
    local ids = {}
    for i = 1, 10 do
      ids[i] = crowd:addAgent(2, 0, 6.5 + i, { radius = 0.45 })
      assert(crowd:requestMoveTarget(ids[i], 46, 0, 6.5 + i))
    end
    return crowd, ids
  end

  it("an agent whose tile is removed is moved back onto the mesh or marked invalid, and walks on when it is back", function()
    local mesh = floor()
    local crowd, ids = walkers(mesh)
    run(crowd, 60) -- they are in tile x = 1 now
    local x = crowd:getAgent(ids[1]).x
    local tx, ty = mesh:tileAt(x, 12)
    local blob = assert(mesh:removeTile(tx, ty))
    local invalid = 0
    run(crowd, 20, function()
      for _, id in ipairs(ids) do
        local a = crowd:getAgent(id)
        if a.state == "invalid" then
          invalid = invalid + 1
          assert.is_nil(a.poly)
        else
          assert.is_true(mesh:isValidPolyRef(a.poly))
        end
      end
    end)
    assert.is_true(invalid > 0)
    assert(mesh:addTile(blob))
    run(crowd, 500)
    for _, id in ipairs(ids) do
      local a = crowd:getAgent(id)
      assert.are.equal("walking", a.state)
      assert.is_true(dist2d(a.x, a.z, 46, a.z) < 1)
    end
    crowd:close()
  end)

  it("an obstacle dropped in front of walking agents (its tile replaced): they re-plan, none ends inside it", function()
    local BOX = { 22.8, 10.5, 25.2, 16 } -- inside tile (2, 1): x 19.2..28.8, z 9.6..19.2
    local mesh, blocked = floor(), floor(BOX)
    local crowd, ids = walkers(mesh)
    run(crowd, 40) -- at x ~ 8: the block goes down some 15 m ahead of them
    local tx, ty = mesh:tileAt(24, 12)
    local with_block = assert(blocked:removeTile(tx, ty))
    assert(mesh:removeTile(tx, ty))
    assert(mesh:addTile(with_block))
    local inside, detour = 0, 0
    run(crowd, 600, function()
      local pos = crowd:positions()
      for i = 1, #ids do
        local x, z = pos[3 * i - 2], pos[3 * i]
        if x > BOX[1] and x < BOX[3] and z > BOX[2] and z < BOX[4] then inside = inside + 1 end
        detour = math.max(detour, math.abs(z - (6.5 + i)))
      end
    end)
    print(("# obstacle: agents swerved up to %.1f m from their lanes, (agent, tick) inside the block: %d"):format(detour, inside))
    assert.are.equal(0, inside)
    assert.is_true(detour > 2) -- the middle lanes had to go round
    for _, id in ipairs(ids) do
      local a = crowd:getAgent(id)
      assert.is_true(a.x > 45 and a.state == "walking")
    end
    crowd:close()
  end)
end)

describe("crowd agents on a tile cache's mesh", function()
  -- A pillar of radius 2.5 falls some 15 m ahead of ten walking agents; the
  -- crowd is on the cache's own handle, or on a reader of the shared cache
  -- (navmesh.open) that refreshes to the version with the pillar (the crowd
  -- follows its handle).
  for _, mode in ipairs { "the cache's handle", "a reader of the shared cache" } do
    it(("an obstacle dropped in front of walking agents (%s): they re-plan, none ends inside it"):format(mode), function()
      if not navmesh.buildCache then
        pending("navmesh.buildCache (the tile cache's Lua binding) is not in this build; "
                .. "the tile-swap test above drops the obstacle by hand")
        return
      end
      local v, t = { 0, 0, 0, 48, 0, 0, 48, 0, 24, 0, 0, 24 }, { 1, 3, 2, 1, 4, 3 }
      local cache, mesh = assert(navmesh.buildCache(v, t, { cellSize = 0.3, agentRadius = 0.5,
                                                            bounds = { 0, -1, 0, 48, 4, 24 } }))
      local walked_on = mesh
      if mode ~= "the cache's handle" then
        assert(cache:share("crowd-spec-cache"))
        walked_on = assert(navmesh.open("crowd-spec-cache"))
      end
      local crowd = navmesh.crowd(walked_on, { maxAgents = 10, maxAgentRadius = 0.5 })
      local ids = {}
      for i = 1, 10 do
        ids[i] = crowd:addAgent(2, 0, 6.5 + i, { radius = 0.45 })
        assert(crowd:requestMoveTarget(ids[i], 46, 0, 6.5 + i))
      end
      run(crowd, 40) -- at x ~ 8
      local CX, CZ, R = 24, 12, 2.5
      -- padded by the agents' radius, so that their bodies (not only their
      -- centres) keep clear of it: the cache stamps obstacles as given, cell by cell
      assert(cache:addObstacle { kind = "cylinder", center = { CX, 0, CZ }, radius = R, height = 2, padding = 0.5 })
      repeat until cache:update()
      if walked_on ~= mesh then assert(walked_on:refresh()) end
      local inside, detour, closest = 0, 0, math.huge
      run(crowd, 600, function()
        local pos = crowd:positions()
        for i = 1, #ids do
          local d = dist2d(pos[3 * i - 2], pos[3 * i], CX, CZ)
          if d < R then inside = inside + 1 end
          closest = math.min(closest, d)
          detour = math.max(detour, math.abs(pos[3 * i] - (6.5 + i)))
        end
      end)
      print(("# tile cache obstacle, %s (radius %.1f, padding 0.5): agents swerved up to %.1f m, came within "
             .. "%.2f m of its centre, (agent, tick) inside it: %d"):format(mode, R, detour, closest, inside))
      assert.are.equal(0, inside)
      assert.is_true(detour > 1.5)
      for _, id in ipairs(ids) do
        local a = crowd:getAgent(id)
        assert.is_true(a.x > 45 and a.state == "walking")
      end
      crowd:close()
      if walked_on ~= mesh then
        walked_on:close()
        navmesh.unshare("crowd-spec-cache")
      end
      cache:close()
      mesh:close()
    end)
  end
end)

describe("crowd determinism", function()
  -- The doorway crossing as text: every position after every 25th tick in
  -- %a (exact hex floats).
  local script = [[
    local navmesh = require "navmesh"
    local doorway = require "doorway"
    local mesh, door, size = doorway.build(navmesh)
    local crowd = navmesh.crowd(mesh, { maxAgents = 40, maxAgentRadius = 0.4, threads = THREADS or 1 })
    for i = 1, 40 do
      local k = math.floor((i - 1) / 2)
      local x, z = door[1] - 2.5 - 2 * (k % 5), 4.5 + 3 * math.floor(k / 5)
      local gx = size[1] - x
      if i % 2 == 0 then x, gx = gx, x end
      local id = crowd:addAgent(x, 0, z, { radius = 0.4, avoidance = i % 3 == 0 and "orca" or "sampled" })
      crowd:requestMoveTarget(id, gx, 0, z)
    end
    local FMT = pcall(string.format, "%a", 1) and "%a" or "%.17g" -- (Lua 5.1 has no %a)
    local out, pos = {}, {}
    for k = 1, 300 do
      crowd:update(0.05)
      if k % 25 == 0 then
        crowd:positions(pos)
        for i = 1, #pos do out[#out + 1] = string.format(FMT, pos[i]) end
      end
    end
    io.write(table.concat(out, " "))
  ]]

  local function run_here(threads)
    local out = {}
    local env = setmetatable({ io = { write = function(s) out[#out + 1] = s end }, THREADS = threads },
                             { __index = _G })
    local f = assert((loadstring or load)(script, "determinism", "t", env))
    if setfenv then setfenv(f, env) end
    f()
    return table.concat(out)
  end

  it("two runs give the same positions bit for bit", function()
    local a, b = run_here(), run_here()
    assert.is_true(#a > 1000)
    assert.are.equal(a, b)
  end)

  it("1, 2 and 4 threads (navmesh.crowd{ threads = n }) give the same positions bit for bit", function()
    local one = run_here(1)
    assert.are.equal(one, run_here(2))
    assert.are.equal(one, run_here(4))
  end)

  it("Lua 5.4 and LuaJIT give the same positions bit for bit", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(script)
    f:close()
    local outs = {}
    for _, l in ipairs { { "lua5.4", "build/5.4" }, { "luajit", "build/jit" } } do
      local ok = io.open(l[2] .. "/navmesh/core.so", "rb")
      if ok then ok:close() end
      local p = ok and io.popen(("LUA_PATH='lua/?.lua;examples/?.lua;;' LUA_CPATH='%s/?.so;;' %s %s 2>/dev/null")
        :format(l[2], l[1], path))
      local text = p and p:read("*a") or ""
      if p then p:close() end
      if #text > 0 then outs[#outs + 1] = { l[1], text } end
    end
    os.remove(path)
    if #outs < 2 then
      pending("lua5.4 and luajit with their modules (build/5.4, build/jit) are needed")
      return
    end
    print(("# %s and %s: %d bytes of %%a positions each"):format(outs[1][1], outs[2][1], #outs[1][2]))
    assert.are.equal(outs[1][2], outs[2][2])
    if pcall(string.format, "%a", 1) then assert.are.equal(outs[1][2], run_here()) end
  end)
end)

describe("crowd:positions", function()
  it("fills a reused table (and ids) in update order without garbage", function()
    local crowd, ids = crossing(nil, 10)
    local out, got, vel = {}, {}, {}
    run(crowd, 5)
    local t, n = crowd:positions(out, got)
    assert.are.equal(out, t)
    assert.are.equal(20, n)
    assert.are.same(ids, got)
    crowd:velocities(vel)
    local function ticks(n)
      for _ = 1, n do
        crowd:update(DT)
        crowd:positions(out, got)
        crowd:velocities(vel)
      end
    end
    ticks(200) -- (LuaJIT: the loop's traces, which are collectable objects, are made now)
    collectgarbage()
    collectgarbage("stop")
    local before = collectgarbage("count")
    ticks(50)
    local after = collectgarbage("count")
    collectgarbage("restart")
    assert.are.equal(before, after)
    assert.are.equal(60, #out)
    local a = crowd:getAgent(ids[7])
    assert.are.same({ a.x, a.y, a.z, a.vx, a.vy, a.vz }, { out[19], out[20], out[21], vel[19], vel[20], vel[21] })
    -- a removed agent leaves the lists, which shrink
    crowd:removeAgent(ids[1])
    crowd:positions(out, got)
    assert.are.equal(57, #out)
    assert.are.equal(19, #got)
    assert.are.equal(ids[2], got[1])
    crowd:close()
  end)
end)

describe("crowd bad input", function()
  local mesh = doorway.build(navmesh)
  local nan = 0 / 0

  it("raises for NaN positions, velocities and dt, and a negative dt", function()
    local crowd = navmesh.crowd(mesh)
    local id = crowd:addAgent(5.5, 0, 5.5)
    assert.has_error(function() crowd:addAgent(nan, 0, 5) end,
                     "bad argument #1 to 'Crowd:addAgent' (coordinate must be a finite number, got nan)")
    assert.has_error(function() crowd:requestMoveTarget(id, 5, nan, 5) end,
                     "bad argument #3 to 'Crowd:requestMoveTarget' (coordinate must be a finite number, got nan)")
    assert.has_error(function() crowd:requestMoveVelocity(id, 1 / 0, 0, 0) end)
    assert.has_error(function() crowd:update(nan) end,
                     "bad argument #1 to 'Crowd:update' (dt must be a finite number >= 0, got nan)")
    assert.has_error(function() crowd:update(-0.05) end)
    assert.has_error(function() crowd:update("x") end)
    crowd:close()
  end)

  it("raises for bad parameters: negative radius or speed, unknown keys, bad values", function()
    local crowd = navmesh.crowd(mesh)
    assert.has_error(function() crowd:addAgent(5, 0, 5, { radius = -1 }) end,
                     "bad option 'radius' to 'Crowd:addAgent' (finite number >= 0 expected, got -1)")
    assert.has_error(function() crowd:addAgent(5, 0, 5, { maxSpeed = -3 }) end,
                     "bad option 'maxSpeed' to 'Crowd:addAgent' (finite number >= 0 expected, got -3)")
    assert.has_error(function() crowd:addAgent(5, 0, 5, { maxSped = 3 }) end,
                     "unknown option 'maxSped' to 'Crowd:addAgent' (did you mean 'maxSpeed'?)")
    assert.has_error(function() crowd:addAgent(5, 0, 5, { height = 0 }) end)
    assert.has_error(function() crowd:addAgent(5, 0, 5, { obstacleAvoidanceType = 8 }) end)
    assert.has_error(function() crowd:addAgent(5, 0, 5, { avoidance = "rvo" }) end)
    assert.has_error(function() crowd:addAgent(5, 0, 5, { separation = 1 }) end)
    assert.has_error(function() crowd:addAgent(5, 0, 5, { filter = {} }) end)
    assert.has_error(function() crowd:setObstacleAvoidanceParams(8, "high") end)
    assert.has_error(function() crowd:setObstacleAvoidanceParams(0, { velBias = 2 }) end)
    assert.has_error(function() crowd:setObstacleAvoidanceParams(0, { adaptiveDivs = 33 }) end)
    assert.has_error(function() crowd:setObstacleAvoidanceParams(0, "best") end)
    assert.are.equal(0, #crowd:getActiveAgents()) -- nothing was added
    assert.has_error(function() navmesh.crowd(mesh, { maxAgents = 0 }) end)
    assert.has_error(function() navmesh.crowd(mesh, { maxAgentRadius = -1 }) end)
    assert.has_error(function() navmesh.crowd(mesh, { limits = "recast" }) end)
    assert.has_error(function() navmesh.crowd(mesh, { maxPath = 8 }) end)
    assert.has_error(function() navmesh.crowd(mesh, { threads = 0 }) end)
    assert.has_error(function() navmesh.crowd(mesh, { threads = 65 }) end)
    assert.has_error(function() navmesh.crowd({}) end)
    crowd:close()
  end)

  it("returns nil, msg, 'ERR_FULL' past maxAgents and takes agents again after a removal", function()
    local crowd = navmesh.crowd(mesh, { maxAgents = 2 })
    local a, b = crowd:addAgent(5.5, 0, 5.5), crowd:addAgent(7.5, 0, 5.5)
    local none, msg, code = crowd:addAgent(9.5, 0, 5.5)
    assert.is_nil(none)
    assert.are.equal("ERR_FULL", code)
    assert.matches("full", msg)
    crowd:removeAgent(a)
    local c = crowd:addAgent(9.5, 0, 5.5)
    assert.is_number(c)
    assert.are_not.equal(a, c) -- the slot is reused under a new id
    assert.are.same({ c, b }, crowd:getActiveAgents())
    crowd:close()
  end)

  it("raises for unknown or removed agent ids", function()
    local crowd = navmesh.crowd(mesh)
    local id = crowd:addAgent(5.5, 0, 5.5)
    crowd:removeAgent(id)
    local again = crowd:addAgent(5.5, 0, 5.5)
    for _, bad in ipairs { id, 12345, -1, 0 } do
      assert.has_error(function() crowd:getAgent(bad) end,
                       ("bad argument #1 to 'Crowd:getAgent' (unknown or removed agent id %d)"):format(bad))
      assert.has_error(function() crowd:requestMoveTarget(bad, 5, 0, 5) end)
      assert.has_error(function() crowd:removeAgent(bad) end)
    end
    assert.has_error(function() crowd:getAgent(1.5) end)
    assert.has_error(function() crowd:getAgent("x") end)
    assert.are.equal(again, crowd:getAgent(again).id)
    crowd:close()
  end)

  it("returns nil, msg, 'ERR_NO_POLY' for a start or a target off the navmesh (the request is unchanged)", function()
    local crowd = navmesh.crowd(mesh)
    local none, msg, code = crowd:addAgent(-50, 0, -50)
    assert.is_nil(none)
    assert.are.equal("ERR_NO_POLY", code)
    assert.matches("no polygon", msg)
    local id = crowd:addAgent(5.5, 0, 5.5)
    assert(crowd:requestMoveTarget(id, 10.5, 0, 5.5))
    none, msg, code = crowd:requestMoveTarget(id, 500, 0, 500)
    assert.is_nil(none)
    assert.are.equal("ERR_NO_POLY", code)
    assert.matches("requestMoveTarget", msg)
    assert.are.same({ 10.5, 0, 5.5 }, crowd:getAgent(id).target)
    assert.has_error(function() crowd:requestMoveTarget(id, 10.5, 0, 5.5, 99999999) end)
    crowd:close()
  end)

  it("raises for a closed mesh", function()
    local m = doorway.build(navmesh)
    m:close()
    assert.has_error(function() navmesh.crowd(m) end)
  end)
end)
