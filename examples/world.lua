--- A small procedural 3-D level made of triangles, for `make demo` and the
-- examples: what navmesh.build takes (flat vertex list, flat 1-based index
-- list). Y is up, lengths are world units.
--
-- The level (40 x 30): a ground floor inside outer walls; a wall with a
-- doorway; two plateaus 3 units high joined by a bridge whose deck passes
-- over the ground floor (you can walk under it); a ramp up to the west
-- plateau and a staircase (0.3 rise, 1.0 run) up to the east one; a few
-- pillars. Walkable faces are wound so that cross(b - a, c - a) points up.
local world = {}

world.WIDTH, world.DEPTH = 40, 30   -- extent along X and Z

-- A triangle soup being built.
local Soup = {}
Soup.__index = Soup

local function soup()
  return setmetatable({ vertices = {}, triangles = {}, n = 0 }, Soup)
end

function Soup:vertex(x, y, z)
  local v = self.vertices
  v[#v + 1], v[#v + 2], v[#v + 3] = x, y, z
  self.n = self.n + 1
  return self.n
end

-- Quad a-b-c-d as the triangles (a, b, c) and (a, c, d).
function Soup:quad(a, b, c, d)
  local t = self.triangles
  for _, i in ipairs { a, b, c, a, c, d } do t[#t + 1] = i end
end

-- Upward-facing rectangle at height y.
function Soup:floor(x0, z0, x1, z1, y)
  self:quad(self:vertex(x0, y, z0), self:vertex(x0, y, z1), self:vertex(x1, y, z1), self:vertex(x1, y, z0))
end

-- Closed box, faces pointing out (its top is walkable).
function Soup:box(x0, y0, z0, x1, y1, z1)
  local v = {}
  for i = 0, 7 do
    local bx, by, bz = i % 2, math.floor(i / 2) % 2, math.floor(i / 4)
    v[i] = self:vertex(bx == 0 and x0 or x1, by == 0 and y0 or y1, bz == 0 and z0 or z1)
  end
  self:quad(v[2], v[6], v[7], v[3])   -- top
  self:quad(v[0], v[1], v[5], v[4])   -- bottom
  self:quad(v[0], v[2], v[3], v[1])   -- -z side
  self:quad(v[4], v[5], v[7], v[6])   -- +z side
  self:quad(v[0], v[4], v[6], v[2])   -- -x side
  self:quad(v[1], v[3], v[7], v[5])   -- +x side
end

-- Ramp over x0..x1, z0..z1 rising along +x from y0 to y1 (walkable top and
-- a vertical end face under the high side).
function Soup:ramp(x0, z0, x1, z1, y0, y1)
  self:quad(self:vertex(x0, y0, z0), self:vertex(x0, y0, z1), self:vertex(x1, y1, z1), self:vertex(x1, y1, z0))
  self:quad(self:vertex(x1, y0, z0), self:vertex(x1, y1, z0), self:vertex(x1, y1, z1), self:vertex(x1, y0, z1))
end

-- Staircase over x0..x1 climbing along -z from z0: n steps of the given rise
-- and run, each a box standing on the ground.
function Soup:stairs(x0, x1, z0, n, rise, run)
  for i = 1, n do
    local zn = z0 - (i - 1) * run
    self:box(x0, 0, zn - run, x1, i * rise, zn)
  end
end

--- The level: vertices, triangles, and named points {x, y, z}: S start and
-- E end of the demo path (ground to east plateau), N and U north and south
-- of the bridge on the ground (a path from one to the other passes under
-- the bridge), O on the bridge deck.
function world.triangles()
  local s = soup()
  local H, T = 3.0, 0.5                -- wall height and thickness
  s:floor(0, 0, 40, 30, 0)             -- ground
  s:box(-T, 0, -T, 40 + T, H, 0)       -- outer walls
  s:box(-T, 0, 30, 40 + T, H, 30 + T)
  s:box(-T, 0, 0, 0, H, 30)
  s:box(40, 0, 0, 40 + T, H, 30)
  s:box(20, 0, 16, 20.5, H, 22)        -- inner wall with a doorway at z 22..25
  s:box(20, 0, 25, 20.5, H, 30)
  s:box(9, 0, 3, 17, 3, 13)            -- west plateau
  s:box(26, 0, 3, 36, 3, 13)           -- east plateau
  s:box(17, 2.6, 7, 26, 3, 10)         -- bridge deck, 2.6 above the ground
  s:ramp(1, 8, 9, 11, 0, 3)            -- ramp up to the west plateau (20.6 degrees)
  s:stairs(30, 33, 23, 10, 0.3, 1.0)   -- staircase up to the east plateau
  s:box(6, 0, 20, 7, H, 21)            -- pillars
  s:box(12, 0, 22, 13, H, 23)
  s:box(30, 0, 26, 31, H, 27)
  return s.vertices, s.triangles, {
    S = { 2, 0, 27 }, E = { 34, 3, 5 }, N = { 21.5, 0, 1.5 }, U = { 21.5, 0, 15 }, O = { 21.5, 3, 8.5 },
  }
end

return world
