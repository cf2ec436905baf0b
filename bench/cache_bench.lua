-- cache_bench.lua -- the tile cache and shared versions from Lua, beside
-- the C figures of bench/cache_bench.c and bench/version_bench.c (make
-- bench prints both):
--  * per shared .tset: one cylinder (radius 1, height 2) at 200 polygon
--    centres, cache:addObstacle + cache:update(1) until done, then
--    removeObstacle + update (median us, as cache_bench.c times them in C);
--    the same with the cache shared (each update publishes a version) plus
--    an opened handle's refresh() (median us);
--  * on city: publishing one changed tile from Lua (edit(), removeTile,
--    addTile at the old reference, share(name, {replace = true})) against
--    today's whole-mesh copy (share of a private mesh with replace, which
--    also drops the previous copy), rounds interleaved, the order
--    alternating, the median of the per-round ratios (version_bench.c's C
--    figure: about 2%).
--   lua cache_bench.lua <shared-dir> [seconds]
-- Table on stdout, JSON lines on stderr (tools/bench.sh).
local navmesh = require "navmesh"

local shared = arg[1] or "../shared"
local clock = os.clock
local POINTS = 200
local city_publish -- what a shared city cache's update spends publishing

local function median(t)
  table.sort(t)
  local n = #t
  if n == 0 then return 0 end
  return n % 2 == 1 and t[(n + 1) / 2] or (t[n / 2] + t[n / 2 + 1]) / 2
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- POINTS polygon centres spread over the mesh, 0.5 below the surface.
local function sample(mesh)
  local refs, pts = mesh:polyRefs(), {}
  for i = 0, POINTS - 1 do
    local v = mesh:getPolyVerts(refs[math.floor(i * #refs / POINTS) + 1])
    local x, y, z, n = 0, 0, 0, #v / 3
    for k = 1, #v, 3 do x, y, z = x + v[k], y + v[k + 1], z + v[k + 2] end
    pts[#pts + 1] = { x / n, y / n - 0.5, z / n }
  end
  return pts
end

-- Median us of add + update(1) until done, and of remove + update; with
-- `reader` (a handle opened on the shared cache) the mean us of its
-- refresh() to each new version (under os.clock's microsecond).
local function obstacle_times(cache, pts, reader)
  local add, rem, ref = {}, {}, 0
  for _, p in ipairs(pts) do
    local t0 = clock()
    local id = cache:addObstacle { kind = "cylinder", center = p, radius = 1, height = 2 }
    repeat until cache:update(1)
    add[#add + 1] = (clock() - t0) * 1e6
    if reader then -- (an obstacle that touches no layer publishes no version)
      t0 = clock()
      reader:refresh()
      ref = ref + (clock() - t0) * 1e6
    end
    t0 = clock()
    cache:removeObstacle(id)
    repeat until cache:update(1)
    rem[#rem + 1] = (clock() - t0) * 1e6
    if reader then reader:refresh() end
  end
  return median(add), median(rem), ref / #pts
end

print("tile cache from Lua (" .. (jit and jit.version or _VERSION) .. "): median us over " .. POINTS ..
      " obstacles (cylinder r 1, h 2), add/remove + update(1) until done")
print(("%-11s %11s %11s %13s %13s %11s"):format("cache", "add+upd us", "rem+upd us", "shared add us",
                                               "shared rem us", "refresh us"))
for _, name in ipairs { "dungeon", "nav_test", "undulating", "city" } do
  local path = shared .. "/tilecaches/" .. name .. ".tset"
  if exists(path) then
    local cache, mesh = assert(navmesh.loadCache(path))
    local pts = sample(mesh)
    local add, rem = obstacle_times(cache, pts)
    local sname = "cache-bench-" .. name
    assert(cache:share(sname))
    local reader = assert(navmesh.open(sname))
    local sadd, srem, refresh = obstacle_times(cache, pts, reader)
    print(("%-11s %11.1f %11.1f %13.1f %13.1f %11.2f"):format(name, add, rem, sadd, srem, refresh))
    if name == "city" then -- what sharing adds to an update, against copying this navmesh whole
      local bytes, copies = mesh:saveString(), {}
      for r = 1, 10 do
        local private = assert(navmesh.loadString(bytes))
        local t0 = clock()
        assert(private:share("cache-bench-copy", { replace = true }))
        copies[r] = (clock() - t0) * 1e3
        private:close()
      end
      navmesh.unshare("cache-bench-copy")
      city_publish = { us = sadd - add, copy_ms = median(copies), tiles = mesh:info().tiles }
    end
    io.stderr:write(('{"impl":"navmesh-cache-lua","lua":"%s","mesh":"%s","add_us":%.2f,"remove_us":%.2f,' ..
                     '"shared_add_us":%.2f,"shared_remove_us":%.2f,"refresh_us":%.3f}\n'):format(
      jit and jit.version or _VERSION, name, add, rem, sadd, srem, refresh))
    reader:close()
    cache:close()
    mesh:close()
    navmesh.unshare(sname)
  end
end

if city_publish then
  print(("city cache (%d tiles): an update publishing its rebuilt tile costs %.1f us more than a private one; " ..
         "a whole copy of that navmesh (share of a private mesh) %.3f ms: %.2f%%"):format(city_publish.tiles,
    city_publish.us, city_publish.copy_ms, city_publish.us / (city_publish.copy_ms * 1e3) * 100))
  io.stderr:write(('{"impl":"navmesh-cache-publish-lua","lua":"%s","mesh":"city","publish_us":%.2f,"copy_ms":%.4f}\n')
    :format(jit and jit.version or _VERSION, city_publish.us, city_publish.copy_ms))
end

-- ---- publishing one changed tile against a whole-mesh copy (city) ----
local city = shared .. "/navmeshes/city_tiled.bin"
if exists(city) then
  local f = assert(io.open(city, "rb"))
  local bytes = f:read("*a")
  f:close()
  local vname, cname = "cache-bench-versions", "cache-bench-copies"
  local v = assert(navmesh.loadString(bytes))
  assert(v:share(vname))
  assert(assert(navmesh.loadString(bytes)):share(cname))
  local tiles = v:tiles()
  local rounds = 60
  local vt, ct, ratios = {}, {}, {}
  for r = 1, rounds do
    local private = assert(navmesh.loadString(bytes)) -- made outside the timing
    collectgarbage()
    local t = tiles[(r * 97) % #tiles + 1]
    local function version()
      local t0 = clock()
      local d = assert(v:edit())
      local blob = assert(d:removeTile(t.x, t.y, t.layer))
      assert(d:addTile(blob, { ref = t.ref }))
      assert(d:share(vname, { replace = true }))
      local dt = clock() - t0
      v:close()
      v = d -- the writer keeps the latest version
      return dt
    end
    local function copy()
      local t0 = clock()
      assert(private:share(cname, { replace = true }))
      return clock() - t0
    end
    local a, b
    if r % 2 == 1 then a = version() b = copy() else b = copy() a = version() end
    vt[#vt + 1], ct[#ct + 1], ratios[#ratios + 1] = a * 1e3, b * 1e3, a / b
    private:close()
  end
  local info = v:info()
  print()
  print(("publishing one changed tile of city (%d tiles) from Lua, %d interleaved rounds:"):format(info.tiles, rounds))
  print(("  whole-mesh copy (share of a private mesh, replace) %.3f ms; one-tile version (edit, removeTile, " ..
         "addTile{ref}, share) %.3f ms; version / copy %.2f%% (median of per-round ratios)"):format(
    median(ct), median(vt), median(ratios) * 100))
  io.stderr:write(('{"impl":"navmesh-versions-lua","lua":"%s","mesh":"city_tiled","rounds":%d,"copy_ms":%.4f,' ..
                   '"version_ms":%.4f,"ratio":%.4f}\n'):format(jit and jit.version or _VERSION, rounds, median(ct),
                                                              median(vt), median(ratios)))
  navmesh.unshare(vname)
  navmesh.unshare(cname)
  v:close()
end
