-- Edge inset (design.md): with opts.inset = d every interior corner of the
-- straight path keeps a distance >= min(d, half the portal width) from the
-- wall vertex it turns around, every point lies on the navmesh, every segment
-- stays inside the corridor, and inset 0 gives exactly the plain path.
-- Checked on every public oracle case of the six small shared navmeshes,
-- each fed Detour's own corridor, with d = 0.1, 0.3 and 1.0.
local helper = require "helper"
local navmesh = require "navmesh"

local EPS = 1e-3

-- Boundary of the mesh as the spec sees it, computed from polygon outlines
-- only: an edge is inner when another polygon has an overlapping collinear
-- edge running the other way; the end points of the other edges are walls.
local function wall_points(mesh)
  local edges = {}
  for _, ref in ipairs(mesh:polyRefs()) do
    local v = mesh:getPolyVerts(ref)
    local n = #v / 3
    if n >= 3 then
      for i = 0, n - 1 do
        local j = (i + 1) % n
        edges[#edges + 1] = { v[3 * i + 1], v[3 * i + 3], v[3 * j + 1], v[3 * j + 3], ref,
                              v[3 * i + 2], v[3 * j + 2] }
      end
    end
  end
  -- floors above each other share X/Z: vertices are keyed with their height
  local function key(x, z, y) return ("%.3f,%.3f,%.1f"):format(x, z, y) end
  local exact = {}
  for _, e in ipairs(edges) do exact[key(e[1], e[2], e[6]) .. ">" .. key(e[3], e[4], e[7])] = true end
  local function overlaps(a, b) -- b runs against a along the same line
    local dx, dz = a[3] - a[1], a[4] - a[2]
    local len = math.sqrt(dx * dx + dz * dz)
    if len < EPS then return false end
    local ux, uz = dx / len, dz / len
    for _, p in ipairs { { b[1], b[2], b[6] }, { b[3], b[4], b[7] } } do
      if math.abs((p[1] - a[1]) * uz - (p[2] - a[2]) * ux) > 0.01 then return false end
      local t = ((p[1] - a[1]) * ux + (p[2] - a[2]) * uz) / len
      if math.abs(a[6] + (a[7] - a[6]) * t - p[3]) > 0.5 then return false end
    end
    local t1 = (b[1] - a[1]) * ux + (b[2] - a[2]) * uz
    local t2 = (b[3] - a[1]) * ux + (b[4] - a[2]) * uz
    if t1 <= t2 then return false end -- same direction
    return math.min(t1, len) - math.max(t2, 0) > 0.01
  end
  local walls = {}
  for _, e in ipairs(edges) do
    local inner = exact[key(e[3], e[4], e[7]) .. ">" .. key(e[1], e[2], e[6])]
    if not inner then
      for _, f in ipairs(edges) do
        if f[5] ~= e[5] and overlaps(e, f) then inner = true break end
      end
    end
    if not inner then
      walls[key(e[1], e[2], e[6])] = true
      walls[key(e[3], e[4], e[7])] = true
    end
  end
  return function(x, z, y) return walls[key(x, z, y)] end
end

local function dist2d(ax, az, bx, bz) return math.sqrt((ax - bx) ^ 2 + (az - bz) ^ 2) end

-- Inside convex polygon v (flat xyz list) in X/Z, with tolerance.
local function inside(v, x, z)
  local n, sign = #v / 3, 0
  for i = 0, n - 1 do
    local j = (i + 1) % n
    local ax, az, bx, bz = v[3 * i + 1], v[3 * i + 3], v[3 * j + 1], v[3 * j + 3]
    local len = dist2d(ax, az, bx, bz)
    if len > 0 then
      local c = ((bx - ax) * (z - az) - (bz - az) * (x - ax)) / len
      if c > EPS then if sign < 0 then return false end sign = 1
      elseif c < -EPS then if sign > 0 then return false end sign = -1 end
    end
  end
  return true
end

-- Checks one inset path against the corridor; returns nil or a message.
local function check(mesh, is_wall, polys, pts, d, verts_of)
  -- corners: each interior point on a portal, away from its wall end
  local portals = {}
  for i = 1, #polys - 1 do
    local lx, ly, lz, rx, ry, rz = mesh:getPortalPoints(polys[i], polys[i + 1])
    portals[i] = { lx, lz, rx, rz, ly, ry }
  end
  for k = 2, #pts / 3 - 1 do
    local x, z = pts[3 * k - 2], pts[3 * k]
    local best
    for _, p in ipairs(portals) do
      local dd = helper.dist_pt_seg2d(x, z, p[1], p[2], p[3], p[4])
      if dd < EPS then
        local w = dist2d(p[1], p[2], p[3], p[4])
        for _, e in ipairs { { p[1], p[2], p[5] }, { p[3], p[4], p[6] } } do
          local de = dist2d(x, z, e[1], e[2])
          if is_wall(e[1], e[2], e[3]) and (not best or de < best.d) then best = { d = de, w = w } end
        end
      end
    end
    if best and best.d < math.min(d, best.w / 2) - EPS then
      return ("corner %d is %.4f from a wall vertex (needs %.4f)"):format(k, best.d, math.min(d, best.w / 2))
    end
  end
  -- points on the mesh: on (or on the edge of) a corridor polygon in X/Z;
  -- corners also within a step (1 wu) of its surface in height (the end
  -- points keep the caller's heights)
  local n = #pts / 3
  for k = 1, n do
    local x, y, z = pts[3 * k - 2], pts[3 * k - 1], pts[3 * k]
    local on = false
    for _, ref in ipairs(polys) do
      local cx, cy, cz = mesh:closestPointOnPoly(ref, x, y, z)
      if dist2d(x, z, cx, cz) <= EPS and (k == 1 or k == n or math.abs(cy - y) <= 1.0) then
        on = true
        break
      end
    end
    if not on then return ("point %d is off the navmesh"):format(k) end
  end
  -- segments inside the corridor (sampled, walking the corridor forwards)
  local cur = 1
  for k = 1, #pts / 3 - 1 do
    local ax, az, bx, bz = pts[3 * k - 2], pts[3 * k], pts[3 * k + 1], pts[3 * k + 3]
    local steps = math.min(200, math.max(1, math.ceil(dist2d(ax, az, bx, bz) / 0.1)))
    for s = 0, steps do
      local t = s / steps
      local x, z = ax + (bx - ax) * t, az + (bz - az) * t
      local found = false
      for c = cur, math.min(#polys, cur + 8) do
        if inside(verts_of(polys[c]), x, z) then cur = c found = true break end
      end
      if not found then
        for c = 1, #polys do
          if inside(verts_of(polys[c]), x, z) then cur = c found = true break end
        end
      end
      if not found then return ("segment %d leaves the corridor at (%.3f, %.3f)"):format(k, x, z) end
    end
  end
  return nil
end

describe("edge inset", function()
  if helper.skip_without_shared("inset property specs") then return end
  for _, name in ipairs(helper.small_meshes) do
    describe(name, function()
      local mesh, is_wall, cases, vcache
      setup(function()
        mesh = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. ".bin"))
        is_wall = wall_points(mesh)
        cases = helper.oracle(name)
        vcache = {}
      end)
      teardown(function() mesh:close() end)
      local function verts_of(ref)
        local v = vcache[ref]
        if not v then v = mesh:getPolyVerts(ref) vcache[ref] = v end
        return v
      end

      it("inset 0 gives exactly the plain path", function()
        for _, c in ipairs(cases) do
          if c.straight ~= helper.null then
            local s, e = c.nearest_start.pos, c.straight.end_input
            local a = mesh:findStraightPath(s[1], s[2], s[3], e[1], e[2], e[3], c.path.polys)
            local b = mesh:findStraightPath(s[1], s[2], s[3], e[1], e[2], e[3], c.path.polys, { inset = 0 })
            assert.are.same(a, b)
          end
        end
      end)

      for _, d in ipairs { 0.1, 0.3, 1.0 } do
        it(("keeps corners, points and segments right with inset %.1f"):format(d), function()
          local bad, n, longer = {}, 0, 0
          for _, c in ipairs(cases) do
            if c.straight ~= helper.null then
              local s, e = c.nearest_start.pos, c.straight.end_input
              local pts = mesh:findStraightPath(s[1], s[2], s[3], e[1], e[2], e[3], c.path.polys, { inset = d })
              local msg = check(mesh, is_wall, c.path.polys, pts, d, verts_of)
              n = n + 1
              if helper.length2d(pts) > c.straight.length_2d + 1e-4 then longer = longer + 1 end
              if msg then bad[#bad + 1] = ("case %d: %s"):format(c.case, msg) end
            end
          end
          print(("# %-17s inset %.1f: %d paths checked, %d violations, %d longer than the plain path"):format(
            name, d, n, #bad, longer))
          for i = 1, math.min(#bad, 10) do print("#   " .. bad[i]) end
          assert.are.equal(0, #bad)
        end)
      end
    end)
  end
end)
