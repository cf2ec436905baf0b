-- spec/buildgeom.lua: tiny triangle scenes for the build specs, and the
-- measurements the specs make on built meshes (walkable area, components).
-- Scenes are flat vertex lists {x,y,z, ...} and 1-based triangle index lists,
-- the shapes navmesh.build takes. Walkable faces are wound so that
-- cross(b - a, c - a) points up (Recast's convention).
local geom = {}

local Scene = {}
Scene.__index = Scene

function geom.scene()
  return setmetatable({ vertices = {}, triangles = {}, nv = 0 }, Scene)
end

function Scene:vertex(x, y, z)
  local v = self.vertices
  v[#v + 1], v[#v + 2], v[#v + 3] = x, y, z
  self.nv = self.nv + 1
  return self.nv
end

function Scene:tri(a, b, c)
  local t = self.triangles
  t[#t + 1], t[#t + 2], t[#t + 3] = a, b, c
  return self
end

-- Quad a-b-c-d as two triangles (a, b, c), (a, c, d).
function Scene:quad(a, b, c, d)
  return self:tri(a, b, c):tri(a, c, d)
end

-- Horizontal rectangle facing up at height y.
function Scene:floor(x0, z0, x1, z1, y)
  local a, b = self:vertex(x0, y, z0), self:vertex(x0, y, z1)
  local c, d = self:vertex(x1, y, z1), self:vertex(x1, y, z0)
  return self:quad(a, b, c, d)
end

-- Rectangle from (x0, z0) at height y0 to (x1, z1) rising along +x to y1
-- (a ramp), facing up.
function Scene:ramp_x(x0, z0, x1, z1, y0, y1)
  local a, b = self:vertex(x0, y0, z0), self:vertex(x0, y0, z1)
  local c, d = self:vertex(x1, y1, z1), self:vertex(x1, y1, z0)
  return self:quad(a, b, c, d)
end

-- Closed box with outward faces (its top is walkable).
function Scene:box(x0, y0, z0, x1, y1, z1)
  local v = {}
  for i = 0, 7 do
    v[i] = self:vertex(i % 2 == 0 and x0 or x1, math.floor(i / 2) % 2 == 0 and y0 or y1, math.floor(i / 4) == 0 and z0 or z1)
  end
  -- v index bits: 1 = x1, 2 = y1, 4 = z1
  self:quad(v[2], v[6], v[7], v[3])   -- top (+y)
  self:quad(v[0], v[1], v[5], v[4])   -- bottom (-y)
  self:quad(v[0], v[2], v[3], v[1])   -- -z
  self:quad(v[4], v[5], v[7], v[6])   -- +z
  self:quad(v[0], v[4], v[6], v[2])   -- -x
  self:quad(v[1], v[3], v[7], v[5])   -- +x
  return self
end

-- ---- measurements on a built mesh ----

-- Sum of the polygons' X/Z areas (shoelace), all polygons of the mesh.
function geom.walkable_area(mesh)
  local total = 0
  for _, ref in ipairs(mesh:polyRefs()) do
    local v = mesh:getPolyVerts(ref)
    local n = math.floor(#v / 3)
    if n >= 3 then
      local a = 0
      for i = 0, n - 1 do
        local j = (i + 1) % n
        a = a + v[3 * i + 1] * v[3 * j + 3] - v[3 * j + 1] * v[3 * i + 3]
      end
      total = total + math.abs(a) / 2
    end
  end
  return total
end

-- Reference, position and "over polygon" of the nearest polygon to a point.
function geom.nearest(mesh, x, y, z, hx, hy, hz)
  return mesh:findNearestPoly(x, y, z, hx or 0.5, hy or 1, hz or 0.5)
end

-- Straight path between two points: points, flags, and whether the goal was
-- reached (nil when either point has no polygon near it).
function geom.route(mesh, sx, sy, sz, ex, ey, ez)
  local sref, s1, s2, s3 = mesh:findNearestPoly(sx, sy, sz, 2, 4, 2)
  local eref, e1, e2, e3 = mesh:findNearestPoly(ex, ey, ez, 2, 4, 2)
  if not sref or not eref then return nil end
  local polys, partial = mesh:findPath(sref, eref, s1, s2, s3, e1, e2, e3)
  local pts, flags = mesh:findStraightPath(s1, s2, s3, e1, e2, e3, polys, { maxPoints = 4096 })
  return pts, flags, not partial, polys
end

-- X/Z length of a flat point list.
function geom.length2d(pts)
  local len = 0
  for i = 4, #pts, 3 do
    len = len + math.sqrt((pts[i] - pts[i - 3]) ^ 2 + (pts[i + 2] - pts[i - 1]) ^ 2)
  end
  return len
end

return geom
