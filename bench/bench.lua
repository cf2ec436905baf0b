--- bench/bench.lua: our queries from Lua against Detour's in C, timed side
-- by side in one process (bench/pair.lua: alternating rounds, the median
-- of the per-round ratios, quartiles, load average), on the shared
-- navmeshes with the oracle's query points (the very floats the C benches
-- read, from the detourbench module). Detour's side is the C call sequence
-- doing the same work: findNearestPoly, findPath, findStraightPath (new
-- tables, and the `points/flags/refs` out-table form), the three in a row,
-- and mesh:path() (new tables, reusing `out`), mesh:paths() per path and
-- mesh:path { optimal = true, out = t } against Detour's nearest + path +
-- straight. Two rows pair our own forms: path(out) against path() and
-- findStraightPath(out) against findStraightPath(). Without the module
-- (no librecast-dev) our side is timed alone.
-- Usage: lua bench/bench.lua [shared-dir] [seconds per pair]
package.path = "bench/?.lua;spec/?.lua;" .. package.path
local helper = require "helper"
local navmesh = require "navmesh"
local pair = require "pair"

local shared = arg[1] or helper.shared
local SECONDS = tonumber(arg[2] or "1")
helper.shared = shared
local D, LUA = pair.detour, pair.lua

-- The cases' start and end points: the module's (the C benches' floats),
-- or the oracle file's.
local function case_points(side, name)
  local pts = {}
  if side then
    local flat = side:cases()
    for i = 1, #flat, 6 do pts[#pts + 1] = { flat[i], flat[i + 1], flat[i + 2], flat[i + 3], flat[i + 4], flat[i + 5] } end
  else
    for _, c in ipairs(helper.oracle(name)) do
      pts[#pts + 1] = { c.start[1], c.start[2], c.start[3], c["end"][1], c["end"][2], c["end"][3] }
    end
  end
  return pts
end

-- Per case: nearest polygons and points, corridor, clamped end.
local function prepare(mesh, pts)
  local P = {}
  for i, q in ipairs(pts) do
    local p = { q = q }
    p.sref, p.sx, p.sy, p.sz = mesh:findNearestPoly(q[1], q[2], q[3])
    p.eref, p.ex, p.ey, p.ez = mesh:findNearestPoly(q[4], q[5], q[6])
    if p.sref and p.eref then
      p.polys = mesh:findPath(p.sref, p.eref, p.sx, p.sy, p.sz, p.ex, p.ey, p.ez)
      p.tx, p.ty, p.tz = p.ex, p.ey, p.ez
      if p.polys[#p.polys] ~= p.eref then p.tx, p.ty, p.tz = mesh:closestPointOnPoly(p.polys[#p.polys], p.ex, p.ey, p.ez) end
    end
    P[i] = p
  end
  return P
end

-- The jobs on one mesh: { name, pass, calls per pass, Detour job }.
local function jobs(mesh, P)
  local n, withpath = #P, {}
  for _, p in ipairs(P) do if p.polys and #p.polys > 0 then withpath[#withpath + 1] = p end end
  local sopts = { points = {}, flags = {}, refs = {} }
  local popts = { out = {} }
  local oopts = { out = {}, optimal = true }
  local flat = {}
  for _, p in ipairs(P) do for k = 1, 6 do flat[#flat + 1] = p.q[k] end end
  local bopts = { out = {}, partials = {} }
  local function each(list, fn) return pair.timed(function() for i = 1, #list do fn(list[i]) end end) end
  return {
    { "findNearestPoly", each(P, function(p)
      mesh:findNearestPoly(p.q[1], p.q[2], p.q[3])
      mesh:findNearestPoly(p.q[4], p.q[5], p.q[6]) end), 2 * n, "findNearestPoly" },
    { "findPath", each(withpath, function(p)
      mesh:findPath(p.sref, p.eref, p.sx, p.sy, p.sz, p.ex, p.ey, p.ez) end), #withpath, "findPath" },
    { "findStraightPath", each(withpath, function(p)
      mesh:findStraightPath(p.sx, p.sy, p.sz, p.tx, p.ty, p.tz, p.polys) end), #withpath, "findStraightPath" },
    { "findStraightPath(out)", each(withpath, function(p)
      mesh:findStraightPath(p.sx, p.sy, p.sz, p.tx, p.ty, p.tz, p.polys, sopts) end), #withpath, "findStraightPath" },
    { "nearest+findPath+straight", each(P, function(p)
      local q = p.q
      local sref, sx, sy, sz = mesh:findNearestPoly(q[1], q[2], q[3])
      local eref, ex, ey, ez = mesh:findNearestPoly(q[4], q[5], q[6])
      if not (sref and eref) then return end
      local polys = mesh:findPath(sref, eref, sx, sy, sz, ex, ey, ez)
      if polys[#polys] ~= eref then ex, ey, ez = mesh:closestPointOnPoly(polys[#polys], ex, ey, ez) end
      mesh:findStraightPath(sx, sy, sz, ex, ey, ez, polys) end), n, "sequence" },
    { "path()", each(P, function(p)
      local q = p.q
      mesh:path(q[1], q[2], q[3], q[4], q[5], q[6]) end), n, "sequence" },
    { "path(out)", each(P, function(p)
      local q = p.q
      mesh:path(q[1], q[2], q[3], q[4], q[5], q[6], popts) end), n, "sequence" },
    { "paths(out) per path", pair.timed(function() mesh:paths(flat, bopts) end), n, "sequence" },
    { "path{optimal,out}", each(P, function(p)
      local q = p.q
      mesh:path(q[1], q[2], q[3], q[4], q[5], q[6], oopts) end), n, "sequence" },
  }
end

print(("queries from %s: ours against %s in one process, %s time, us per call (medians over the rounds);")
  :format(LUA, D and "Detour's C" or "(nothing: no detourbench module)",
    os.getenv("BENCH_CLOCK") == "wall" and D and "wall-clock" or "CPU"))
print("ratio = median of the per-round ours/vs [quartiles]; below 1 ours is faster")
print(pair.header(LUA))
local meshes = {}
for _, n in ipairs(helper.small_meshes) do meshes[#meshes + 1] = n end
for _, n in ipairs(helper.large_meshes) do meshes[#meshes + 1] = n end
for _, name in ipairs(meshes) do
  local file = shared .. "/navmeshes/" .. name .. ".bin"
  if helper.exists(file) and pair.wanted(name) then
    local large = name:find("city") or name:find("maze")
    local mesh = assert(navmesh.load(file, { maxNodes = large and 65535 or 2048 }))
    local side = D and assert(D.open(shared, name))
    local list = jobs(mesh, prepare(mesh, case_points(side, name)))
    local by = {}
    local function report(job, vs, r)
      print(pair.row(name, job, vs, r))
      io.stdout:flush()
      pair.json({ { "bench", "pairs" }, { "impl", "navmesh-lua" }, { "lua", jit and jit.version or _VERSION },
        { "mesh", name }, { "job", job }, { "vs", vs } }, r)
    end
    for _, j in ipairs(list) do
      by[j[1]] = j
      local b = side and function(reps) return side:pass(j[4], reps) end
      local r = pair.run(j[2], j[3], b, side and side:calls(j[4]), SECONDS / 2)
      report(j[1], side and "Detour " .. j[4] or "-", r)
    end
    for _, pq in ipairs { { "path(out)", "path()" }, { "findStraightPath(out)", "findStraightPath" } } do
      local a, b = by[pq[1]], by[pq[2]]
      report(pq[1], pq[2], pair.run(a[2], a[3], b[2], b[3], SECONDS / 2))
    end
    if side then side:close() end
    mesh:close()
  end
end
