--- bench/bench.lua: query timings from Lua on the shared navmeshes, with the
-- oracle's query points as inputs; each timing repeated for >= SECONDS.
-- Columns: findNearestPoly, findPath, findStraightPath, the three in a row,
-- mesh:path() (new tables, and reusing one with `out`), mesh:paths() per
-- path, and mesh:path() with { optimal = true, out = t }; all cases,
-- partial ones too. Usage: lua bench/bench.lua [shared-dir] [seconds]
package.path = "spec/?.lua;" .. package.path
local helper = require "helper"
local navmesh = require "navmesh"

local shared = arg[1] or helper.shared
local SECONDS = tonumber(arg[2] or "1")
helper.shared = shared
local clock = os.clock

-- Runs fn(i) over i = 1..n repeatedly for SECONDS; returns us per call.
local function timeit(n, fn)
  local calls, t0 = 0, clock()
  local t
  repeat
    for i = 1, n do fn(i) end
    calls = calls + n
    t = clock() - t0
  until t >= SECONDS
  return t / calls * 1e6
end

local meshes = {}
for _, n in ipairs(helper.small_meshes) do meshes[#meshes + 1] = n end
for _, n in ipairs(helper.large_meshes) do meshes[#meshes + 1] = n end

print(("navmesh (%s)%s %10s %10s %10s %10s %10s %10s %10s %10s"):format(jit and "LuaJIT" or _VERSION, (" "):rep(10 - #(jit and "LuaJIT" or _VERSION)),
  "nearest us", "findPath", "straight", "sequence", "path()", "path(out)", "paths()", "optimal"))
for _, name in ipairs(meshes) do
  local file = shared .. "/navmeshes/" .. name .. ".bin"
  if helper.exists(file) then
    local large = name:find("city") or name:find("maze")
    local mesh = assert(navmesh.load(file, { maxNodes = large and 65535 or 2048 }))
    local cases = helper.oracle(name)
    local P = {}
    for i, c in ipairs(cases) do
      local s, e = c.start, c["end"]
      local sref, sx, sy, sz = mesh:findNearestPoly(s[1], s[2], s[3])
      local eref, ex, ey, ez = mesh:findNearestPoly(e[1], e[2], e[3])
      local polys = mesh:findPath(sref, eref, sx, sy, sz, ex, ey, ez)
      local tx, ty, tz = ex, ey, ez
      if polys[#polys] ~= eref then tx, ty, tz = mesh:closestPointOnPoly(polys[#polys], ex, ey, ez) end
      P[i] = { s = s, e = e, sref = sref, eref = eref, sx = sx, sy = sy, sz = sz, ex = ex, ey = ey, ez = ez,
               polys = polys, tx = tx, ty = ty, tz = tz }
    end
    local n = #P
    local nearest = timeit(n, function(i)
      local p = P[i]
      mesh:findNearestPoly(p.s[1], p.s[2], p.s[3])
      mesh:findNearestPoly(p.e[1], p.e[2], p.e[3])
    end) / 2
    local path = timeit(n, function(i)
      local p = P[i]
      mesh:findPath(p.sref, p.eref, p.sx, p.sy, p.sz, p.ex, p.ey, p.ez)
    end)
    local straight = timeit(n, function(i)
      local p = P[i]
      mesh:findStraightPath(p.sx, p.sy, p.sz, p.tx, p.ty, p.tz, p.polys)
    end)
    local seq = timeit(n, function(i)
      local p = P[i]
      local s, e = p.s, p.e
      local sref, sx, sy, sz = mesh:findNearestPoly(s[1], s[2], s[3])
      local eref, ex, ey, ez = mesh:findNearestPoly(e[1], e[2], e[3])
      local polys = mesh:findPath(sref, eref, sx, sy, sz, ex, ey, ez)
      if polys[#polys] ~= eref then ex, ey, ez = mesh:closestPointOnPoly(polys[#polys], ex, ey, ez) end
      mesh:findStraightPath(sx, sy, sz, ex, ey, ez, polys)
    end)
    local onecall = timeit(n, function(i)
      local p = P[i]
      mesh:path(p.s[1], p.s[2], p.s[3], p.e[1], p.e[2], p.e[3])
    end)
    local out = {}
    local reused = timeit(n, function(i)
      local p = P[i]
      mesh:path(p.s[1], p.s[2], p.s[3], p.e[1], p.e[2], p.e[3], { out = out })
    end)
    local oopts = { out = {}, optimal = true }
    local optimal = timeit(n, function(i)
      local p = P[i]
      mesh:path(p.s[1], p.s[2], p.s[3], p.e[1], p.e[2], p.e[3], oopts)
    end)
    local flat = {}
    for i = 1, n do
      local p = P[i]
      for k = 1, 3 do flat[#flat + 1] = p.s[k] end
      for k = 1, 3 do flat[#flat + 1] = p.e[k] end
    end
    local bopts = { out = {}, partials = {} }
    local batch = timeit(1, function() mesh:paths(flat, bopts) end) / n
    print(("%-17s %10.3f %10.2f %10.3f %10.2f %10.2f %10.2f %10.2f %10.2f"):format(name, nearest, path, straight, seq, onecall, reused, batch, optimal))
    io.stderr:write(('{"impl":"navmesh-lua","lua":"%s","mesh":"%s","nearest_us":%.4f,"path_us":%.3f,"straight_us":%.4f,"sequence_us":%.3f,"path_call_us":%.3f,"path_out_us":%.3f,"paths_batch_us":%.3f,"path_optimal_out_us":%.3f}\n'):format(
      jit and jit.version or _VERSION, name, nearest, path, straight, seq, onecall, reused, batch, optimal))
    mesh:close()
  end
end
