-- spec/optimal_check.lua: an independent brute-force shortest-path oracle
-- for the optimal path mode (spec/40-*), and the generated test levels.
--
-- The walkable area is read back from a mesh through the public API only:
-- polygon outlines (getPolyVerts) and links with their portals
-- (getPortalPoints, the part of the edge that may be crossed from that
-- side). A segment u->v is "visible" when walking it from u's polygon,
-- crossing only through portals of linked polygons, reaches v in v's
-- polygon: polygons are clipped against the segment (closed, with a small
-- tolerance, so grazing a wall or passing a corner counts), so floors above
-- each other never see each other. Shortest paths bend only at wall
-- corners: polygon vertices next to a wall and ends of partial portals next
-- to a wall. A* over the visibility graph of those corners (plus start and
-- goal) gives the exact X/Z shortest path. Candidates outside the ellipse
-- |s c| + |c g| <= bound are skipped: with bound = the length under test,
-- any shorter path would only use corners inside it.
local check = {}

local sqrt, abs, floor, huge = math.sqrt, math.abs, math.floor, math.huge

-- ---- deterministic random numbers (Park-Miller, exact in doubles) ----
function check.rng(seed)
  local x = seed % 2147483646 + 1
  return function()
    x = (x * 16807) % 2147483647
    return (x - 1) / 2147483646
  end
end

-- ---- reading a mesh back ----

-- Signed X/Z area of an outline (xs, zs).
local function area(xs, zs, n)
  local a = 0
  for i = 1, n do
    local j = i % n + 1
    a = a + xs[i] * zs[j] - xs[j] * zs[i]
  end
  return a / 2
end

-- Convex hull of P's outline (hx, hz, hn; same winding): polygons are convex
-- in voxel space, but rounding to float can dent them by a hair at
-- nearly straight corners; clipping against the hull ignores such dents.
function check.hull(P)
  local keep = {}
  for i = 1, P.n do keep[i] = true end
  local changed = true
  while changed do
    changed = false
    local idx = {}
    for i = 1, P.n do if keep[i] then idx[#idx + 1] = i end end
    local m = #idx
    for k = 1, m do
      local a, b, c = idx[(k - 2) % m + 1], idx[k], idx[k % m + 1]
      local cr = (P.x[b] - P.x[a]) * (P.z[c] - P.z[b]) - (P.z[b] - P.z[a]) * (P.x[c] - P.x[b])
      if m > 3 and cr * P.sign < 0 then keep[b] = false changed = true break end
    end
  end
  P.hx, P.hz = {}, {}
  for i = 1, P.n do
    if keep[i] then P.hx[#P.hx + 1], P.hz[#P.hz + 1] = P.x[i], P.z[i] end
  end
  P.hn = #P.hx
end

-- Distance from (px, pz) to segment a-b and the parameter of the nearest point.
local function seg_dist(px, pz, ax, az, bx, bz)
  local dx, dz = bx - ax, bz - az
  local d = dx * dx + dz * dz
  local t = 0
  if d > 0 then t = ((px - ax) * dx + (pz - az) * dz) / d end
  if t < 0 then t = 0 elseif t > 1 then t = 1 end
  local x, z = ax + t * dx - px, az + t * dz - pz
  return sqrt(x * x + z * z), t
end

-- The world: polygons with outline, linked neighbours and portals, and the
-- wall corners. usable(ref) says which polygons the filter lets us enter.
function check.extract(mesh, usable)
  usable = usable or function() return true end
  local W = { polys = {}, index = {}, nodes = {}, mesh = mesh }
  local scale = 1
  for _, ref in ipairs(mesh:polyRefs()) do
    local v = mesh:getPolyVerts(ref)
    local n = floor(#v / 3)
    if n >= 3 and usable(ref) then
      local P = { ref = ref, n = n, x = {}, z = {}, y = {}, links = {} }
      local minx, minz, maxx, maxz = huge, huge, -huge, -huge
      for i = 1, n do
        local x, y, z = v[3 * i - 2], v[3 * i - 1], v[3 * i]
        P.x[i], P.y[i], P.z[i] = x, y, z
        if x < minx then minx = x end
        if x > maxx then maxx = x end
        if z < minz then minz = z end
        if z > maxz then maxz = z end
        scale = math.max(scale, abs(x), abs(z))
      end
      P.sign = area(P.x, P.z, n) > 0 and 1 or -1
      check.hull(P)
      P.bb = { minx, minz, maxx, maxz }
      W.polys[#W.polys + 1] = P
      W.index[ref] = #W.polys
    end
  end
  W.eps = 2e-7 * (1 + scale)
  check.link(W)
  check.corners(W)
  return W
end

-- Links: polygons whose boxes touch are asked for a portal (grid buckets).
function check.link(W)
  local cell, grid = 8, {}
  local function key(i, j) return i * 1000003 + j end
  for pi, P in ipairs(W.polys) do
    local b = P.bb
    for i = floor(b[1] / cell), floor(b[3] / cell) do
      for j = floor(b[2] / cell), floor(b[4] / cell) do
        local k = key(i, j)
        local list = grid[k]
        if not list then list = {} grid[k] = list end
        list[#list + 1] = pi
      end
    end
  end
  local seen = {}
  local np = #W.polys
  for _, list in pairs(grid) do
    for a = 1, #list do
      for b = 1, #list do
        local i, j = list[a], list[b]
        local k = i * (np + 1) + j
        if i ~= j and not seen[k] then
          seen[k] = true
          local P, Q = W.polys[i], W.polys[j]
          local pb, qb = P.bb, Q.bb
          if pb[1] <= qb[3] + 0.01 and qb[1] <= pb[3] + 0.01 and pb[2] <= qb[4] + 0.01 and qb[2] <= pb[4] + 0.01 then
            local lx, _, lz, rx, _, rz = W.mesh:getPortalPoints(P.ref, Q.ref)
            if lx then P.links[#P.links + 1] = { to = j, ax = lx, az = lz, bx = rx, bz = rz } end
          end
        end
      end
    end
  end
end

-- Edge of P that a portal lies on (both ends within tolerance), or nil.
local function portal_edge(P, L, tol)
  for e = 1, P.n do
    local f = e % P.n + 1
    if seg_dist(L.ax, L.az, P.x[e], P.z[e], P.x[f], P.z[f]) <= tol and
       seg_dist(L.bx, L.bz, P.x[e], P.z[e], P.x[f], P.z[f]) <= tol then
      return e
    end
  end
end

-- Wall corners: vertices with a wall next to them on one of their two
-- edges, and ends of portals inside an edge that a wall continues.
function check.corners(W)
  local tol = 1e-4 + W.eps * 10
  for pi, P in ipairs(W.polys) do
    local ends = {} -- per edge: portal end points
    for _, L in ipairs(P.links) do
      local e = portal_edge(P, L, tol)
      if e then
        ends[e] = ends[e] or {}
        local list = ends[e]
        list[#list + 1] = { L.ax, L.az }
        list[#list + 1] = { L.bx, L.bz }
      end
    end
    local function count_at(e, x, z)
      local c = 0
      for _, p in ipairs(ends[e] or {}) do
        if abs(p[1] - x) <= tol and abs(p[2] - z) <= tol then c = c + 1 end
      end
      return c
    end
    for k = 1, P.n do
      local prev = (k - 2) % P.n + 1
      if count_at(k, P.x[k], P.z[k]) == 0 or count_at(prev, P.x[k], P.z[k]) == 0 then
        W.nodes[#W.nodes + 1] = { x = P.x[k], z = P.z[k], poly = pi }
      end
    end
    for e, list in pairs(ends) do
      local f = e % P.n + 1
      for _, p in ipairs(list) do
        local at_vertex = (abs(p[1] - P.x[e]) <= tol and abs(p[2] - P.z[e]) <= tol) or
                          (abs(p[1] - P.x[f]) <= tol and abs(p[2] - P.z[f]) <= tol)
        if not at_vertex and count_at(e, p[1], p[2]) == 1 then
          W.nodes[#W.nodes + 1] = { x = p[1], z = p[2], poly = pi }
        end
      end
    end
  end
end

-- ---- visibility ----

-- Parameter range [lo, hi] of u + t*d (t in [0, 1]) inside polygon P (its
-- hull) grown by eps; nil when the segment misses it.
local function clip(P, ux, uz, dx, dz, eps)
  local lo, hi = 0, 1
  local xs, zs, n, s = P.hx, P.hz, P.hn, P.sign
  for i = 1, n do
    local j = i % n + 1
    local ex, ez = xs[j] - xs[i], zs[j] - zs[i]
    local len = sqrt(ex * ex + ez * ez)
    if len > 0 then
      -- inside: s * cross(e, p - a) >= -eps * len
      local f0 = s * (ex * (uz - zs[i]) - ez * (ux - xs[i])) + eps * len
      local f1 = s * (ex * dz - ez * dx)
      if f1 == 0 then
        if f0 < 0 then return nil end
      else
        local t = -f0 / f1
        if f1 > 0 then
          if t > lo then lo = t end
        elseif t < hi then
          hi = t
        end
        if lo > hi then return nil end
      end
    end
  end
  return lo, hi
end

-- Parameter on u + t*d where it crosses the portal L, or nil.
local function cross(L, ux, uz, dx, dz, eps, tin, thi)
  local px, pz = L.bx - L.ax, L.bz - L.az
  local den = dx * pz - dz * px
  local wx, wz = L.ax - ux, L.az - uz
  local plen = sqrt(px * px + pz * pz)
  local dlen = sqrt(dx * dx + dz * dz)
  if abs(den) <= 1e-12 * (plen * dlen + 1e-300) then
    -- parallel: crossing only along a collinear overlap
    if abs(wx * dz - wz * dx) > eps * dlen then return nil end
    local t1 = (wx * dx + wz * dz) / (dlen * dlen)
    local t2 = ((L.bx - ux) * dx + (L.bz - uz) * dz) / (dlen * dlen)
    if t1 > t2 then t1, t2 = t2, t1 end
    local t = math.max(t1, tin)
    if t > t2 or t > thi then return nil end
    return t
  end
  local t = (wx * pz - wz * px) / den
  local s = (wx * dz - wz * dx) / den
  local es = eps / (plen > 0 and plen or 1)
  if s < -es or s > 1 + es then return nil end
  return t
end

-- 1 when segment (ux,uz) in polygon a -> (vx,vz) in polygon b stays on the
-- walkable area (walking through linked polygons only).
function check.visible(W, ux, uz, a, vx, vz, b)
  local dx, dz = vx - ux, vz - uz
  local d = sqrt(dx * dx + dz * dz)
  local eps = W.eps
  local et = d > 0 and eps / d or 1
  local polys = W.polys
  local lo, hi = clip(polys[a], ux, uz, dx, dz, eps)
  if not lo or lo > et then return false end
  local best, stack = { [a] = 0 }, { a }
  local his = { [a] = hi }
  while #stack > 0 do
    local pi = stack[#stack]
    stack[#stack] = nil
    local P, tin, phi = polys[pi], best[pi], his[pi]
    if pi == b and phi >= 1 - et then return true end
    for _, L in ipairs(P.links) do
      local t = cross(L, ux, uz, dx, dz, eps, tin, phi)
      if t and t >= tin - et and t <= phi + et then
        local j = L.to
        if not best[j] or t < best[j] - et then
          local qlo, qhi = clip(polys[j], ux, uz, dx, dz, eps)
          if qlo and t >= qlo - et and t <= qhi + et then
            best[j], his[j] = t, qhi
            stack[#stack + 1] = j
          end
        end
      end
    end
  end
  return false
end

-- ---- shortest paths ----

-- Length of the shortest X/Z path from (sx,sz) in polygon index S to
-- (gx,gz) in polygon index G, if there is one not longer than bound
-- (math.huge: no limit); else math.huge. Only paths within the bound are
-- explored, which keeps this fast when the bound is the length under test.
function check.shortest(W, sx, sz, S, gx, gz, G, bound)
  local function dist(ax, az, bx, bz) return sqrt((ax - bx) ^ 2 + (az - bz) ^ 2) end
  if check.visible(W, sx, sz, S, gx, gz, G) then return dist(sx, sz, gx, gz) end
  local cand = {}
  for i, c in ipairs(W.nodes) do
    if dist(sx, sz, c.x, c.z) + dist(c.x, c.z, gx, gz) <= bound then cand[#cand + 1] = i end
  end
  W.memo = W.memo or {}
  local memo, nn = W.memo, #W.nodes + 1
  local g, closed = {}, {}
  for _, i in ipairs(cand) do
    local c = W.nodes[i]
    if check.visible(W, sx, sz, S, c.x, c.z, c.poly) then g[i] = dist(sx, sz, c.x, c.z) end
  end
  local best, found = bound, false
  while true do
    local u, fu = nil, huge
    for _, i in ipairs(cand) do
      if g[i] and not closed[i] then
        local c = W.nodes[i]
        local f = g[i] + dist(c.x, c.z, gx, gz)
        if f < fu then u, fu = i, f end
      end
    end
    if not u or fu > best then return found and best or huge end
    closed[u] = true
    local cu = W.nodes[u]
    if g[u] + dist(cu.x, cu.z, gx, gz) <= best and check.visible(W, cu.x, cu.z, cu.poly, gx, gz, G) then
      best, found = g[u] + dist(cu.x, cu.z, gx, gz), true
    end
    for _, i in ipairs(cand) do
      if not closed[i] then
        local c = W.nodes[i]
        local ng = g[u] + dist(cu.x, cu.z, c.x, c.z)
        if (not g[i] or ng < g[i]) and ng + dist(c.x, c.z, gx, gz) <= best then
          local k = u * nn + i
          local vis = memo[k]
          if vis == nil then
            vis = check.visible(W, cu.x, cu.z, cu.poly, c.x, c.z, c.poly)
            memo[k] = vis
          end
          if vis then g[i] = ng end
        end
      end
    end
  end
end

-- 1 when polygon index b can be reached from a through links.
function check.connected(W, a, b)
  local seen, stack = { [a] = true }, { a }
  while #stack > 0 do
    local pi = stack[#stack]
    stack[#stack] = nil
    if pi == b then return true end
    for _, L in ipairs(W.polys[pi].links) do
      if not seen[L.to] then
        seen[L.to] = true
        stack[#stack + 1] = L.to
      end
    end
  end
  return false
end

-- A random point inside polygon index pi (area-uniform over its fan).
function check.point_in(W, pi, rnd)
  local P = W.polys[pi]
  local tot, areas = 0, {}
  for j = 2, P.n - 1 do
    local a = abs((P.x[j] - P.x[1]) * (P.z[j + 1] - P.z[1]) - (P.x[j + 1] - P.x[1]) * (P.z[j] - P.z[1])) / 2
    areas[j] = a
    tot = tot + a
  end
  local r, j = rnd() * tot, 2
  while j < P.n - 1 and r > areas[j] do r = r - areas[j] j = j + 1 end
  local r1, r2 = rnd(), rnd()
  if r1 + r2 > 1 then r1, r2 = 1 - r1, 1 - r2 end
  local function at(c)
    return c[1] + r1 * (c[j] - c[1]) + r2 * (c[j + 1] - c[1])
  end
  -- snapped by the library: float32 coordinates (what the C side uses) on
  -- the polygon, with the height of its surface
  return W.mesh:closestPointOnPoly(P.ref, at(P.x), at(P.y), at(P.z))
end

-- ---- generated levels ----

-- A level from ASCII layers. layers = { { map = {...}, height = function(i, j) } }:
-- in each map '.' is floor, anything else is not; cell (i, j) (1-based
-- column, row) is a square [i-1, i] x [j-1, j] in X/Z times `cell`. Corner
-- heights come from height(x, z) of the layer; corners with the same X, Z
-- and height are shared, which links cells (also between layers: that is
-- how a ramp joins two floors). jitter > 0 moves every corner by up to that
-- much in X and Z (keeping cells convex); tris = true splits cells in two.
function check.level(layers, opts)
  opts = opts or {}
  local cell, jitter = opts.cell or 1, opts.jitter or 0
  local rnd = check.rng(opts.seed or 7)
  local verts, polys, index, off = {}, {}, {}, {}
  local function jit(i, j)
    local k = i * 4099 + j
    if not off[k] then off[k] = { (rnd() * 2 - 1) * jitter, (rnd() * 2 - 1) * jitter } end
    return off[k]
  end
  local function vertex(i, j, h)
    local y = h((i) * cell, (j) * cell)
    local key = ("%d,%d,%.4f"):format(i, j, y)
    local v = index[key]
    if not v then
      local o = jit(i, j)
      verts[#verts + 1] = i * cell + o[1]
      verts[#verts + 1] = y
      verts[#verts + 1] = j * cell + o[2]
      v = #verts / 3
      index[key] = v
    end
    return v
  end
  for _, layer in ipairs(layers) do
    local h = layer.height or function() return 0 end
    for j, row in ipairs(layer.map) do
      for i = 1, #row do
        if row:sub(i, i) == "." then
          local a, b = vertex(i - 1, j - 1, h), vertex(i - 1, j, h)
          local c, d = vertex(i, j, h), vertex(i, j - 1, h)
          if opts.tris then
            if rnd() < 0.5 then
              polys[#polys + 1] = { a, b, c }
              polys[#polys + 1] = { a, c, d }
            else
              polys[#polys + 1] = { a, b, d }
              polys[#polys + 1] = { b, c, d }
            end
          else
            polys[#polys + 1] = { a, b, c, d }
          end
        end
      end
    end
  end
  return verts, polys
end

-- The generated levels of the spec: name -> { verts, polys, flags } for
-- navmesh.fromPolygons. "filtered" marks some cells with flags 2 (a filter
-- excluding 2 makes them obstacles).
function check.levels()
  local L = {}
  L.rooms = { check.level({ { map = {
    "########################################",
    "#..........#################...........#",
    "#..........#################...........#",
    "#..........#################...........#",
    "#...##.....##########........###.......#",
    "#...##...................###...........#",
    "#..........##########....###...........#",
    "#..........###########.................#",
    "#######.##################....######.###",
    "#######.##################....######.###",
    "#.............####............#........#",
    "#....#####....####.....##.....#..###...#",
    "#....#####.............##.....#..#.#...#",
    "#.............####............#..###...#",
    "########################################" } } }) }
  local pillars = {
    "##########################",
    "#........................#",
    "#..#.....##......#.......#",
    "#........##...#......#...#",
    "#....#..........##.......#",
    "#...............##...#...#",
    "#..##.....#..............#",
    "#..##..........#.....##..#",
    "#.......#..........#.....#",
    "#...#.......##...........#",
    "#...........##.....#.....#",
    "##########################" }
  L.pillars = { check.level({ { map = pillars } }, { jitter = 0.3, seed = 3 }) }
  L.gaps = { check.level({ { map = {
    "##################",
    "#.......#........#",
    "#.......#........#",
    "#................#",
    "#.......#........#",
    "####.########.####",
    "#.......#........#",
    "#.#.....#...#....#",
    "#..#.........#...#",
    "#...#.....#...#..#",
    "#....#....#....#.#",
    "#.....#...#......#",
    "##################" } } }) }
  L.triangles = { check.level({ { map = pillars } }, { jitter = 0.25, tris = true, seed = 5 }) }
  do -- two floors: ground (x 0..12, z 0..10), a ramp (x 12..18, z 0..2)
    -- rising to a balcony at height 3 that reaches back over the ground
    -- floor (x 4..20, z 4..8); the balcony joins the ramp at x = 18
    local ground = {}
    for j = 1, 10 do ground[j] = ("."):rep(12) end
    local ramp = { ("*"):rep(12) .. ("."):rep(6), ("*"):rep(12) .. ("."):rep(6) }
    local balcony = {}
    for j = 1, 8 do balcony[j] = (j <= 4) and (("*"):rep(18) .. "..") or (("*"):rep(4) .. ("."):rep(16)) end
    L.floors = { check.level({
      { map = ground, height = function() return 0 end },
      { map = ramp, height = function(x) return 3 * (x - 12) / 6 end },
      { map = balcony, height = function() return 3 end } }) }
  end
  local verts, polys = check.level({ { map = pillars } }, { jitter = 0.2, seed = 9 })
  local flags, rnd = {}, check.rng(11)
  for i = 1, #polys do flags[i] = rnd() < 0.12 and 2 or 1 end
  L.filtered = { verts, polys, flags }
  return L
end

return check
