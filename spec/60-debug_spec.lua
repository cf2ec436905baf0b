-- Seeing the mesh (navmesh.debug, docs/debug.md): detail triangles cover
-- their polygons, toOBJ re-parsed by our OBJ reader gives the same
-- polygons and triangles, the SVG is well-formed XML (parsed by expat,
-- lua-expat) with one shape per polygon, the JSON export round-trips
-- through lua-cjson and holds the mesh, and the node pool is the last
-- search's tree.
local helper = require "helper"
local navmesh = require "navmesh"
local world = require "world"
local dbg = navmesh.debug

-- Signed X/Z area of a flat polygon {x,y,z, ...}.
local function area2d(v)
  local a = 0
  for i = 1, #v, 3 do
    local j = i + 3 > #v and 1 or i + 3
    a = a + v[i] * v[j + 2] - v[j] * v[i + 2]
  end
  return a / 2
end

-- How far the X/Z area of polygon v may move when its points move by 4
-- float ulps of its largest coordinate (detail points on the edges are
-- rounded floats): perimeter * that distance.
local function area_slack(v)
  local per, big = 0, 1
  for i = 1, #v, 3 do
    local j = i + 3 > #v and 1 or i + 3
    per = per + math.sqrt((v[j] - v[i]) ^ 2 + (v[j + 2] - v[i + 2]) ^ 2)
    big = math.max(big, math.abs(v[i]), math.abs(v[i + 2]))
  end
  return per * big * 4 * 2 ^ -23
end

-- The meshes the specs look at: the demo level (built here, with real
-- detail triangles), and the shared RecastDemo meshes when ../shared is there.
local function meshes()
  local list = {}
  local verts, tris = world.triangles()
  list[#list + 1] = { name = "demo world", mesh = assert(navmesh.build(verts, tris)) }
  if helper.have_shared then
    for _, name in ipairs { "dungeon_tiled", "nav_test_solo", "undulating_tiled" } do
      list[#list + 1] = { name = name, mesh = assert(navmesh.load(helper.shared .. "/navmeshes/" .. name .. ".bin")) }
    end
  end
  return list
end

-- Two 10 x 10 squares 4 apart joined by a one-way and a two-way off-mesh link.
local function linked_mesh()
  return assert(navmesh.fromPolygons {
    vertices = { 0, 0, 0, 10, 0, 0, 10, 0, 10, 0, 0, 10, 14, 1, 0, 24, 1, 0, 24, 1, 10, 14, 1, 10 },
    polygons = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } },
    areas = { 0, 5 },
    offMeshConnections = {
      { start = { 9, 0, 2 }, ["end"] = { 15, 1, 2 }, radius = 0.5, bidirectional = false },
      { start = { 9, 0, 8 }, ["end"] = { 15, 1, 8 }, radius = 0.5 },
    },
  })
end

-- Parses XML with expat (lua-expat); returns the number of elements with
-- class="poly", or raises with expat's message when it is not well-formed.
local function xml_count_polys(text)
  local lxp = require "lxp"
  local n = 0
  local p = lxp.new { StartElement = function(_, _, attrs) if attrs.class == "poly" then n = n + 1 end end }
  local ok, msg, line = p:parse(text)
  if ok then ok, msg, line = p:parse() end
  p:close()
  if not ok then error(("not well-formed XML: %s (line %s)"):format(tostring(msg), tostring(line))) end
  return n
end

local function ground_polys(mesh, region)
  local opts = region and { bmin = { region[1], -1e30, region[2] }, bmax = { region[3], 1e30, region[4] } } or nil
  local n = 0
  for _, k in ipairs(mesh:getDebugScene(opts).polys.nverts) do
    if k >= 3 then n = n + 1 end
  end
  return n
end

describe("debug output", function()
  local list
  setup(function() list = meshes() end)
  teardown(function() for _, m in ipairs(list) do m.mesh:close() end end)

  it("getPolyDetail: the detail triangles of each polygon cover its X/Z area once", function()
    for _, m in ipairs(list) do
      local checked, worst, bad = 0, 0, {}
      for _, ref in ipairs(m.mesh:polyRefs()) do
        local v = m.mesh:getPolyVerts(ref)
        local d = m.mesh:getPolyDetail(ref)
        if #v == 6 then
          assert.are.equal(0, #d) -- off-mesh connection: no surface
        else
          assert.are.equal(0, #d % 9)
          -- same winding as the polygon (no folds, so no overlaps) and the same total
          local a, sum = area2d(v), 0
          for i = 1, #d, 9 do
            local ta = area2d { d[i], d[i + 1], d[i + 2], d[i + 3], d[i + 4], d[i + 5], d[i + 6], d[i + 7], d[i + 8] }
            if ta * a < 0 and math.abs(ta) > area_slack(v) then bad[#bad + 1] = ref .. ": folded triangle" end
            sum = sum + ta
          end
          if math.abs(sum - a) > area_slack(v) then bad[#bad + 1] = ("%d: %.6f of %.6f"):format(ref, sum, a) end
          worst = math.max(worst, math.abs(sum - a) / math.abs(a))
          checked = checked + 1
        end
      end
      print(("# %-17s %d polygons: detail triangle areas sum to the polygon's within %.2g (relative)"):format(
        m.name, checked, worst))
      assert.is_true(checked > 0)
      assert.are.same({}, bad, m.name)
    end
  end)

  it("toOBJ: our OBJ reader gives back every polygon (as its fan) and every detail triangle", function()
    for _, m in ipairs(list) do
      local refs = m.mesh:polyRefs()
      local verts, tris = navmesh.parseObj(m.mesh:toOBJ())
      local t = 1
      for _, ref in ipairs(refs) do
        local v = m.mesh:getPolyVerts(ref)
        for k = 3, #v / 3 do -- the reader's fan (v1, v(k-1), vk)
          for c, pv in ipairs { 1, k - 1, k } do
            local idx = tris[t + c - 1]
            for a = 0, 2 do assert.are.equal(v[(pv - 1) * 3 + a + 1], verts[(idx - 1) * 3 + a + 1]) end
          end
          t = t + 3
        end
      end
      assert.are.equal(#tris + 1, t, m.name)
      verts, tris = navmesh.parseObj(m.mesh:toOBJ { detail = true })
      t = 1
      for _, ref in ipairs(refs) do
        local d = m.mesh:getPolyDetail(ref)
        for i = 1, #d, 3 do
          local idx = tris[t]
          for a = 0, 2 do assert.are.equal(d[i + a], verts[(idx - 1) * 3 + a + 1]) end
          t = t + 1
        end
      end
      assert.are.equal(#tris + 1, t, m.name)
    end
  end)

  it("toOBJ: faces point up and a box keeps the polygons overlapping it", function()
    local mesh = list[1].mesh
    local verts, tris = navmesh.parseObj(mesh:toOBJ())
    for i = 1, #tris, 3 do
      local a, b, c = (tris[i] - 1) * 3, (tris[i + 1] - 1) * 3, (tris[i + 2] - 1) * 3
      local ny = (verts[b + 3] - verts[a + 3]) * (verts[c + 1] - verts[a + 1]) -
                 (verts[b + 1] - verts[a + 1]) * (verts[c + 3] - verts[a + 3])
      assert.is_true(ny >= 0)
    end
    local box = { bmin = { 0, -100, 0 }, bmax = { 8, 100, 8 } }
    local _, btris = navmesh.parseObj(mesh:toOBJ(box))
    local want = 0
    for _, ref in ipairs(mesh:polyRefs()) do
      local v, lo, hi = mesh:getPolyVerts(ref), { math.huge, math.huge }, { -math.huge, -math.huge }
      for i = 1, #v, 3 do
        lo[1], lo[2] = math.min(lo[1], v[i]), math.min(lo[2], v[i + 2])
        hi[1], hi[2] = math.max(hi[1], v[i]), math.max(hi[2], v[i + 2])
      end
      if #v >= 9 and lo[1] <= 8 and hi[1] >= 0 and lo[2] <= 8 and hi[2] >= 0 then want = want + #v / 3 - 2 end
    end
    assert.is_true(want > 0 and want < #tris / 3)
    assert.are.equal(want, #btris / 3)
  end)

  it("svg: well-formed XML with one polygon shape per ground polygon, whole or a region", function()
    if helper.skip_without_module("lxp", "SVG well-formedness checks") then return end
    for _, m in ipairs(list) do
      local svg = dbg.svg { mesh = m.mesh, title = m.name .. " <&>" }
      assert.are.equal(ground_polys(m.mesh), xml_count_polys(svg), m.name)
      local b = m.mesh:info()
      local cx, cz = (b.bmin[1] + b.bmax[1]) / 2, (b.bmin[3] + b.bmax[3]) / 2
      local region = { cx - 5, cz - 5, cx + 5, cz + 5 }
      local part = dbg.svg { mesh = m.mesh, region = region, scale = 30 }
      local n = xml_count_polys(part)
      assert.are.equal(ground_polys(m.mesh, region), n, m.name)
      assert.is_true(n > 0 and n <= ground_polys(m.mesh))
      assert.matches('width="320" height="320"', part, 1, true) -- 10 wu at 30 px + 2 * 10 px margin
    end
  end)

  it("svg: draws links, paths, corridors, obstacles, agents and nodes from plain tables", function()
    if helper.skip_without_module("lxp", "SVG well-formedness checks") then return end
    local mesh = linked_mesh()
    local pts = assert(mesh:path(1, 0, 1, 20, 1, 9))
    local corridor = assert(mesh:findPath(mesh:findNearestPoly(1, 0, 1), mesh:findNearestPoly(20, 1, 9), 1, 0, 1, 20, 1, 9))
    local svg = dbg.svg {
      mesh = mesh, paths = { pts, { name = "second", points = { 1, 0, 1, 2, 0, 2 } } }, corridors = { corridor },
      obstacles = {
        { kind = "cylinder", center = { 5, 0, 5 }, radius = 1, height = 2 },
        { kind = "box", bmin = { 1, 0, 1 }, bmax = { 2, 1, 2 } },
        { kind = "obox", center = { 7, 0, 7 }, halfExtents = { 1, 1, 0.5 }, yaw = 0.5 },
        { kind = "convex", vertices = { 3, 0, 3, 4, 0, 3, 4, 0, 4 }, hmin = 0, hmax = 2 },
      },
      agents = { { x = 2, y = 0, z = 2, vx = 1, vy = 0, vz = 0, radius = 0.5 }, { 3, 0, 3, 0, 0, 1, 0.4 } },
      nodes = mesh:getNodePool(),
    }
    assert.are.equal(2, xml_count_polys(svg))
    local function count(pat) local _, n = svg:gsub(pat, "") return n end
    assert.are.equal(2, count('class="link"'))
    assert.are.equal(1, count('marker%-end="url%(#arrow%)"')) -- the one-way link
    assert.are.equal(2, count('class="path"'))
    assert.are.equal(1, count('class="corridor"'))
    assert.are.equal(4, count('class="obstacle"'))
    assert.are.equal(2, count('class="agent"'))
    assert.is_true(count('<g id="nodes">') == 1 and #corridor >= 2)
    mesh:close()
  end)

  it("getNodePool: the last search's nodes; parents lead from the goal back to the start", function()
    local mesh = list[1].mesh
    local _, _, marks = world.triangles()
    local p, q = marks.S, marks.E
    local s = mesh:findNearestPoly(p[1], p[2], p[3])
    local e = mesh:findNearestPoly(q[1], q[2], q[3])
    local corridor = assert(mesh:findPath(s, e, p[1], p[2], p[3], q[1], q[2], q[3]))
    local nodes = mesh:getNodePool()
    assert.is_true(#nodes.refs >= #corridor)
    assert.are.equal(3 * #nodes.refs, #nodes.points)
    local goal
    for i, r in ipairs(nodes.refs) do if r == e then goal = i end end
    local chain = {}
    while goal and goal > 0 do
      table.insert(chain, 1, nodes.refs[goal])
      goal = nodes.parents[goal]
    end
    assert.are.same(corridor, chain)
    assert.is_true(nodes.closed[1])
  end)

  it("export: round-trips through lua-cjson and holds the mesh, in millimetres", function()
    if helper.skip_without_module("cjson", "JSON export checks") then return end
    local cjson = require "cjson"
    local mesh = linked_mesh()
    local pts = assert(mesh:path(1, 0, 1, 20, 1, 9))
    local args = {
      mesh = mesh, paths = { pts }, corridors = { { refs = mesh:polyRefs(), name = "all" } },
      obstacles = { { kind = "cylinder", center = { 5, 0, 5 }, radius = 1, height = 2 } },
      agents = { { 3, 0, 3, 0.5, 0, 1, 0.4 } }, nodes = mesh:getNodePool(),
      recording = dbg.syntheticRecording(mesh, { agents = 3, frames = 5 }),
    }
    local t = dbg.exportTable(args)
    local text = dbg.export(args)
    assert.are.same(t, cjson.decode(text))
    assert.are.equal("navmesh-debug", t.format)
    local refs = mesh:polyRefs()
    assert.are.same(refs, t.mesh.polys.refs)
    local k = 0
    for i, ref in ipairs(refs) do
      local v = mesh:getPolyVerts(ref)
      assert.are.equal(#v / 3, t.mesh.polys.nverts[i])
      for j = 1, #v do
        k = k + 1
        assert.is_true(math.abs(v[j] - t.mesh.verts[k]) <= 0.0005 + 1e-9)
      end
      assert.are.equal(mesh:getPolyArea(ref), t.mesh.polys.areas[i])
      assert.are.equal(mesh:getIsland(ref), t.mesh.polys.islands[i])
    end
    assert.are.same({ 0, 1 }, t.mesh.links.bidirectional) -- the one-way link, then the two-way one
    assert.are.equal(0.4, t.agents[1].radius)
    assert.are.equal(5, #t.recording.frames)
    assert.are.equal(9, #t.recording.frames[1])
    mesh:close()
  end)

  it("bad arguments raise with a message", function()
    local mesh = linked_mesh()
    assert.has_error(function() dbg.svg { mesh = mesh, zoom = 2 } end, "svg: unknown option 'zoom'")
    assert.has_error(function() dbg.svg { mesh = mesh, scale = 0 } end, "svg: scale must be > 0")
    assert.has_error(function() dbg.svg { mesh = mesh, region = { 0, 0, 1 } } end)
    assert.has_error(function() dbg.export { obstacles = { { kind = "sphere" } } } end)
    assert.has_error(function() dbg.export { paths = { { 1, 2 } } } end)
    assert.has_error(function() dbg.export { agents = { { x = 0 / 0, y = 0, z = 0 } } } end)
    assert.has_error(function() mesh:toOBJ { bmin = { 0, 0, 0 } } end)
    assert.has_error(function() mesh:toOBJ { pretty = true } end)
    assert.has_error(function() mesh:getPolyDetail(12345678) end)
    assert.has_error(function() mesh:getDebugScene { bmin = { 0, 0 / 0, 0 }, bmax = { 1, 1, 1 } } end)
    mesh:close()
    assert.has_error(function() mesh:toOBJ() end)
  end)

  it("big meshes: the city's export and SVG (whole and a 100 m region)", function()
    if helper.skip_without_shared("city debug output") then return end
    if helper.skip_without_module("cjson", "JSON export checks") then return end
    if helper.skip_without_module("lxp", "SVG well-formedness checks") then return end
    local city = assert(navmesh.load(helper.shared .. "/navmeshes/city_tiled.bin"))
    local t0 = os.clock()
    local text = dbg.export { mesh = city }
    local t1 = os.clock()
    local svg = dbg.svg { mesh = city }
    local t2 = os.clock()
    local part = dbg.svg { mesh = city, region = { 450, 450, 550, 550 } }
    local t3 = os.clock()
    print(("# city_tiled: export %.0f ms (%d KiB), svg %.0f ms (%d KiB), 100 m region svg %.1f ms (%d KiB)"):format(
      (t1 - t0) * 1000, math.floor(#text / 1024), (t2 - t1) * 1000, math.floor(#svg / 1024), (t3 - t2) * 1000, math.floor(#part / 1024)))
    assert.are.equal(city:info().polys, #require("cjson").decode(text).mesh.polys.refs)
    assert.are.equal(ground_polys(city, { 450, 450, 550, 550 }), xml_count_polys(part))
    city:close()
  end)
end)
