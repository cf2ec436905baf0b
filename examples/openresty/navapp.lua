--- navapp: the navmesh HTTP handler of the OpenResty example.
--
--   GET /path?sx=&sy=&sz=&ex=&ey=&ez=
--     200 {"points":[x,y,z, ...],"partial":false}
--     400 {"error":"sx: finite number expected"}       bad or missing parameter
--     404 {"error":"path: start: ...","code":"ERR_NO_POLY"}  no polygon / no path
--   GET /thread-path?...  the same answer computed in an ngx.run_worker_thread
--     thread, which has its own Lua VM and opens the shared mesh by name.
--   GET /debug/export  the live mesh as a navmesh.debug export (JSON, with a
--     synthetic crowd recording) for the viewer page at /viewer/
--   GET /debug/cache-export[?door=shut|open]  this worker's tile cache
--     (a door and a crate on examples/level.lua) as a navmesh.debug export
--     with its obstacles and the path around them: /viewer/?src=/debug/cache-export
--   GET /debug/paths?sx=..&ez=..[&inset=0.4]  the default, inset and optimal
--     paths between two points with their X/Z lengths, and the default
--     search's nodes: {"default":{"points":[...],"length":..,"partial":..},
--     "inset":{...},"optimal":{...},"insetDistance":0.4,"nodes":{...}}
--
-- The mesh is built and shared once in init_by_lua (the master, before the
-- workers fork); each worker opens its own handle (its own query state) in
-- init_worker_by_lua. The pure part (check_args, answer, handle) needs no
-- nginx: the host test runs it in plain luajit to get the expected bodies.
local navmesh = require "navmesh"

local M = {}

local PARAMS = { "sx", "sy", "sz", "ex", "ey", "ez" }

-- JSON string literal (the messages we send are plain ASCII, but quote
-- whatever could break the document).
local function json_string(s)
  return '"' .. tostring(s):gsub('[%c"\\]', function(c)
    return ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local function json_error(status, msg, code)
  local body = '{"error":' .. json_string(msg)
  if code then body = body .. ',"code":' .. json_string(code) end
  return status, body .. "}"
end

--- Query parameters (the table ngx.req.get_uri_args() returns) as six
-- numbers, or nil and a message saying which parameter is wrong.
function M.check_args(args)
  local q = {}
  for i, k in ipairs(PARAMS) do
    local v = args[k]
    if v == nil then return nil, k .. ": missing" end
    if type(v) ~= "string" then return nil, k .. ": one value expected" end
    local n = tonumber(v)
    if not n or n ~= n or n == math.huge or n == -math.huge then
      return nil, k .. ": finite number expected"
    end
    q[i] = n
  end
  return q
end

--- status, JSON body for one query on mesh.
function M.answer(mesh, q)
  local pts, partial, code = mesh:path(q[1], q[2], q[3], q[4], q[5], q[6])
  if not pts then return json_error(404, partial, code) end
  local nums = {}
  for i = 1, #pts do nums[i] = ("%.9g"):format(pts[i]) end
  return 200, '{"points":[' .. table.concat(nums, ",") .. '],"partial":' .. tostring(partial) .. "}"
end

--- status, JSON body for a request's arguments.
function M.handle(mesh, args)
  local q, err = M.check_args(args)
  if not q then return json_error(400, err) end
  return M.answer(mesh, q)
end

-- ---- the viewer's API (examples/viewer/, docs/debug.md) ----

local function length2d(pts)
  local len = 0
  for i = 4, #pts, 3 do
    len = len + math.sqrt((pts[i] - pts[i - 3]) ^ 2 + (pts[i + 2] - pts[i - 1]) ^ 2)
  end
  return len
end

--- The three paths the viewer shows side by side for query q (six
-- numbers): a table {default=, inset=, optimal=, insetDistance=, nodes=},
-- or nil, message, code when there is no path. Also used by the viewer's
-- browser test to get the expected answer outside nginx.
function M.three_paths(mesh, q, inset)
  local out = { insetDistance = inset }
  local opts = { default = {}, inset = { inset = inset }, optimal = { optimal = true } }
  for _, name in ipairs { "default", "inset", "optimal" } do
    local pts, partial, code = mesh:path(q[1], q[2], q[3], q[4], q[5], q[6], opts[name])
    if not pts then return nil, partial, code end
    out[name] = { points = pts, partial = partial, length = length2d(pts) }
    if name == "default" then out.nodes = mesh:getNodePool() end -- the default search's tree
  end
  return out
end

--- status, JSON body of /debug/paths for a request's arguments.
function M.debug_paths(mesh, args)
  local q, err = M.check_args(args)
  if not q then return json_error(400, err) end
  local inset = tonumber(args.inset or "0.4")
  if not inset or inset ~= inset or inset < 0 or inset > 100 then return json_error(400, "inset: number in 0..100 expected") end
  local res, msg, code = M.three_paths(mesh, q, inset)
  if not res then return json_error(404, msg, code) end
  return 200, require("cjson").encode(res)
end

--- JSON body of /debug/export: the mesh, and a synthetic crowd run for
-- the viewer's replay (until the crowd exists).
function M.debug_export(mesh)
  local dbg = navmesh.debug
  return dbg.export { mesh = mesh, recording = dbg.syntheticRecording(mesh, { agents = 12, frames = 150 }) }
end

-- ---- a tile cache with obstacles (docs/tilecache.md) for the viewer ----
-- Each worker keeps its own tile cache of examples/level.lua (2 m per map
-- cell) with a crate in the wide corridor and a door across the passage
-- east of the west room; /debug/cache-export?door=shut|open closes or
-- opens the door (one tile rebuilt) and exports the mesh, the obstacles
-- (cache:obstacles()) and the path from S to E: open
-- /viewer/?src=/debug/cache-export to see it.

local DOOR = { kind = "box", bmin = { 29.6, -0.5, 9.5 }, bmax = { 30.4, 2.5, 12.5 } }
local CRATE = { kind = "cylinder", center = { 55, 0, 19 }, radius = 1.2, height = 1.5 }
local scene -- per worker (or per plain Lua state): { cache, mesh, marks, door }

--- status, JSON body of /debug/cache-export for a request's arguments.
function M.cache_export(args)
  local door = args.door or "shut"
  if door ~= "shut" and door ~= "open" then return json_error(400, "door: \"shut\" or \"open\" expected") end
  if not scene then
    local vertices, triangles, marks = require("level").triangles(nil, 2)
    local cache, mesh = assert(navmesh.buildCache(vertices, triangles))
    assert(cache:addObstacle(CRATE))
    scene = { cache = cache, mesh = mesh, marks = marks }
  end
  if door == "shut" and not scene.door then scene.door = assert(scene.cache:addObstacle(DOOR)) end
  if door == "open" and scene.door then
    scene.cache:removeObstacle(scene.door)
    scene.door = nil
  end
  scene.cache:update()
  local S, E = scene.marks.S, scene.marks.E
  local pts = assert(scene.mesh:path(S[1], S[2], S[3], E[1], E[2], E[3]))
  return 200, navmesh.debug.export { mesh = scene.mesh, obstacles = scene.cache:obstacles(),
                                     paths = { { name = "S -> E, door " .. door, points = pts } } }
end

-- ---- nginx glue ----

local worker_mesh

--- init_worker_by_lua: this worker's handle on the shared mesh.
function M.init_worker(name)
  worker_mesh = assert(navmesh.open(name))
end

local function respond(status, body)
  ngx.status = status
  ngx.header.content_type = "application/json"
  ngx.header["X-Worker-Pid"] = ngx.worker.pid()
  ngx.say(body)
end

--- content_by_lua of /path
function M.serve_path()
  respond(M.handle(worker_mesh, ngx.req.get_uri_args()))
end

local export_body -- per worker: the shared mesh does not change

--- content_by_lua of /debug/export and /debug/paths
function M.serve_debug_export()
  export_body = export_body or M.debug_export(worker_mesh)
  respond(200, export_body)
end
function M.serve_debug_paths()
  respond(M.debug_paths(worker_mesh, ngx.req.get_uri_args()))
end
function M.serve_cache_export()
  respond(M.cache_export(ngx.req.get_uri_args()))
end

local thread_meshes = {} -- per worker-thread VM: name -> handle

--- Runs inside an ngx.run_worker_thread VM (no ngx API there): opens the
-- shared mesh by name once per VM and answers one query.
function M.thread_answer(name, sx, sy, sz, ex, ey, ez)
  local mesh = thread_meshes[name]
  if not mesh then
    mesh = assert(navmesh.open(name))
    thread_meshes[name] = mesh
  end
  return M.answer(mesh, { sx, sy, sz, ex, ey, ez })
end

--- content_by_lua of /thread-path: the query runs on a thread of the
-- "navmesh" thread_pool.
function M.serve_thread_path(name)
  local q, err = M.check_args(ngx.req.get_uri_args())
  if not q then return respond(json_error(400, err)) end
  local ok, status, body = ngx.run_worker_thread("navmesh", "navapp", "thread_answer", name,
                                                 q[1], q[2], q[3], q[4], q[5], q[6])
  if not ok then return respond(json_error(500, "worker thread: " .. tostring(status))) end
  respond(status, body)
end

return M
