-- Shared meshes that change (no ../shared needed): a tile cache shared by
-- name publishes every update that changed tiles as a new version, an
-- opened handle moves to it with refresh(); a shared mesh is changed
-- through a draft (mesh:edit(), draft:share(name, {replace = true})), which
-- publishes the next version at a cost in the changed tiles, not a copy.
-- Threads querying while one publishes: spec/c/threads/test_cache_threads.c.
package.path = "examples/?.lua;" .. package.path
local helper = require "helper"
local navmesh = require "navmesh"
local level = require "level"

local V, T, MARKS = level.triangles(nil, 2)
local S, E = MARKS.S, MARKS.E
local DOOR = { kind = "box", bmin = { 29.6, -0.5, 9.5 }, bmax = { 30.4, 2.5, 12.5 } } -- as examples/obstacles.lua

local names = 0
local function fresh_name()
  names = names + 1
  return ("spec72-%d"):format(names)
end

local function route(mesh)
  return assert(mesh:path(S[1], S[2], S[3], E[1], E[2], E[3]))
end

local function settle()
  collectgarbage()
  collectgarbage()
end

describe("cache:share", function()
  local name, base
  before_each(function()
    name = fresh_name()
    settle()
    base = navmesh.sharedBytes()
  end)
  after_each(function() navmesh.unshare(name) end)

  it("publishes each update as a version; refresh moves an opened handle to it", function()
    local cache, mesh = assert(navmesh.buildCache(V, T))
    local before = route(mesh)
    assert.is_true(cache:share(name))
    assert.are.equal(1, cache:info().version)
    assert.are.equal(name, cache:info().shared)
    assert.is_true(mesh:info().readOnly) -- the cache's handle reads the published version
    local h = assert(navmesh.open(name))
    assert.are.same(before, route(h))
    assert.is_false(h:refresh()) -- nothing newer
    local id = assert(cache:addObstacle(DOOR))
    assert.are.same({ true, 1 }, { cache:update() })
    assert.are.equal(2, cache:info().version)
    local after = route(mesh)
    assert.are_not.same(before, after)
    assert.are.same(before, route(h)) -- h keeps the version it has
    assert.is_true(h:refresh())
    assert.are.same(after, route(h))
    assert.is_false(h:refresh())
    local h2 = assert(navmesh.open(name)) -- opens the latest
    assert.are.same(after, route(h2))
    assert.has_error(function() h2:edit() end, -- the cache is its only writer
      "NavMesh:edit: this navmesh is published by a TileCache: change it with obstacles")
    -- an update with nothing to do publishes nothing
    assert.are.same({ true, 0 }, { cache:update() })
    assert.are.equal(2, cache:info().version)
    assert.is_true(cache:removeObstacle(id))
    cache:update()
    assert.are.equal(3, cache:info().version)
    assert.is_true(h:refresh())
    assert.are.same(helper.tile_shapes(mesh), helper.tile_shapes(h))
    assert.are.same(before, route(h))
    h:close()
    h2:close()
    cache:close()
    mesh:close()
  end)

  it("shares once per cache; names held by others are refused", function()
    local cache, mesh = assert(navmesh.buildCache(V, T))
    local other = assert(navmesh.buildCache(V, T))
    assert.is_true(cache:share(name))
    assert.is_true(cache:share(name)) -- again: nothing to do
    local ok, msg, code = cache:share(name .. "-b")
    assert.is_nil(ok)
    assert.are.equal("ERR_EXISTS", code)
    assert.are.equal(("share: this cache is shared as '%s' already (unshare that name first)"):format(name), msg)
    ok, msg, code = other:share(name)
    assert.is_nil(ok)
    assert.are.equal("ERR_EXISTS", code)
    assert.are.equal(("share: a navmesh is already shared as '%s'"):format(name), msg)
    -- once unshared, updates stop publishing under the name; the cache can share again
    assert.is_true(navmesh.unshare(name))
    cache:addObstacle(DOOR)
    cache:update()
    assert.is_nil(cache:info().shared)
    assert.are.equal("ERR_NOT_FOUND", select(3, navmesh.open(name)))
    assert.is_true(cache:share(name .. "-b"))
    assert.are.same(route(mesh), route(assert(navmesh.open(name .. "-b"))))
    navmesh.unshare(name .. "-b")
    other:close()
    cache:close()
  end)

  it("copies only what changed: a version costs a few tiles, the whole mesh stays shared", function()
    local cache, mesh = assert(navmesh.buildCache(V, T, { tileSize = 24 }))
    assert.is_true(cache:share(name))
    local one = navmesh.sharedBytes() - base -- version 1: a copy of everything
    local h = assert(navmesh.open(name))
    cache:addObstacle(DOOR)
    local _, rebuilt = cache:update()
    local two = navmesh.sharedBytes() - base -- h holds version 1, the cache and the name version 2
    -- a version is its slot table (112 bytes per slot of maxTiles) and hash
    -- plus the tiles it changed (the rebuilt one and neighbours whose links change)
    local data = mesh:info().dataBytes
    local fixed = one - data
    print(("# %d tiles: version 1 takes %d bytes (%d of tiles, %d of slot table and hash); version 2 " ..
           "(%d tile rebuilt) adds %d bytes"):format(mesh:info().tiles, one, data, fixed, rebuilt, two - one))
    assert.is_true(two - one - fixed < data / 4)
    assert.is_true(h:refresh()) -- version 1 goes: only its own tiles are freed
    assert.is_true(navmesh.sharedBytes() - base < two)
    h:close()
    cache:close()
    mesh:close()
    navmesh.unshare(name)
    settle()
    assert.are.equal(base, navmesh.sharedBytes())
  end)

  it("frees every version once the cache, its handle and the name are gone", function()
    local cache, mesh = assert(navmesh.buildCache(V, T))
    assert.is_true(cache:share(name))
    local h = assert(navmesh.open(name))
    for i = 1, 5 do
      local id = cache:addObstacle(DOOR)
      cache:update()
      if i % 2 == 0 then h:refresh() end
      cache:removeObstacle(id)
      cache:update()
    end
    cache = nil -- luacheck: ignore
    mesh = nil -- luacheck: ignore
    settle()
    assert.is_true(h:refresh()) -- to the last version, held by the name
    assert.is_true(navmesh.unshare(name))
    h:close()
    settle()
    assert.are.equal(base, navmesh.sharedBytes())
  end)
end)

describe("mesh:edit: drafts of a shared mesh", function()
  local name
  before_each(function() name = fresh_name() end)
  after_each(function() navmesh.unshare(name) end)

  local function tiled()
    return assert(navmesh.build(V, T, { tileSize = 32 }))
  end

  it("publishes a changed tile as the next version; opened handles refresh to it", function()
    local m = tiled()
    assert.is_true(m:share(name))
    local reader = assert(navmesh.open(name))
    local t = m:tiles()[3]
    local d = assert(m:edit())
    assert.is_false(d:info().readOnly)
    local bytes = assert(d:removeTile(t.x, t.y, t.layer))
    assert.is_nil(d:getTile(t.x, t.y, t.layer))
    assert.is_truthy(m:getTile(t.x, t.y, t.layer)) -- the shared version is unchanged
    local ok, msg, code = navmesh.open(name):edit() -- one draft at a time
    assert.is_nil(ok)
    assert.are.equal("ERR_STATE", code)
    assert.are.equal("edit: a draft of this navmesh is open already (share or close it first)", msg)
    local ok2, _, code2 = d:share(name) -- the name is taken: replace it
    assert.is_nil(ok2)
    assert.are.equal("ERR_EXISTS", code2)
    assert.is_true(d:share(name, { replace = true }))
    assert.is_true(d:info().readOnly)
    assert.is_true(reader:refresh())
    assert.is_nil(reader:getTile(t.x, t.y, t.layer))
    -- the next draft puts the tile back at its old reference
    local d2 = assert(reader:edit())
    assert.are.equal(t.ref, d2:addTile(bytes, { ref = t.ref }))
    assert.is_true(d2:share(name, { replace = true }))
    assert.is_true(reader:refresh())
    assert.are.same(helper.tile_shapes(m), helper.tile_shapes(reader))
    -- m still reads version 1: it is stale
    local ok3, msg3, code3 = m:edit()
    assert.is_nil(ok3)
    assert.are.equal("ERR_STALE", code3)
    assert.are.equal("edit: a newer version of this navmesh is shared: refresh() first", msg3)
    assert.is_true(m:refresh())
    assert.is_truthy(m:edit())
  end)

  it("drops a draft closed without sharing", function()
    local m = tiled()
    assert.is_true(m:share(name))
    local d = assert(m:edit())
    d:setPolyFlags(d:polyRefs()[1], 4)
    d:close()
    d = assert(m:edit()) -- no draft open any more
    assert.are.equal(1, d:getPolyFlags(d:polyRefs()[1]))
    d = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    assert.is_truthy(m:edit())
  end)

  it("raises for meshes that are no shared versions", function()
    local m = tiled()
    assert.has_error(function() m:edit() end,
      "NavMesh:edit: not a shared navmesh (edit() drafts the next version of a shared one; this one can be changed directly)")
    assert.is_false(m:refresh())
  end)
end)
