--- navmesh: navigation meshes for Lua (Recast/Detour style).
-- `require "navmesh"` loads the C core (`navmesh.core`) and adds a little
-- pure-Lua sugar. The full API is docs/api.md.
-- @module navmesh
local core = require "navmesh.core"

local navmesh = {}
for k, v in pairs(core) do navmesh[k] = v end

--- Pictures and exports of a mesh (lua/navmesh/debug.lua, docs/debug.md).
navmesh.debug = require "navmesh.debug"

-- ---- query toolbox (Detour's dtNavMeshQuery names) ----
-- Every filter argument is optional and last (the handle's default filter
-- otherwise). Refs must be valid polygon refs; bad arguments raise.

--- Casts a ray along the surface (X/Z) from a point on `ref`.
-- Detour's semantics: `t` is `math.huge` when the end is reached, else the
-- hit parameter along start->end (0..1) with the wall's unit normal; a hit at
-- `t = 0` with a zero normal means the ray could not enter a polygon (start
-- on a boundary, leaving at once).
-- @function NavMesh:raycast
-- @treturn number t
-- @treturn number nx, ny, nz
-- @treturn {int,...} visited polygons

--- Moves from a point on `ref` towards an end point, sliding along walls;
-- never leaves the mesh (Detour's moveAlongSurface: breadth-first over at
-- most 64 polygons within the circle through start and end). `y` is the
-- surface height at the result.
-- @function NavMesh:moveAlongSurface
-- @treturn number x, y, z
-- @treturn {int,...} visited polygons, start first

--- Distance to the nearest wall within `maxRadius` (X/Z), the wall point and
-- the unit normal from it to the centre; only `maxRadius` when no wall is that close.
-- @function NavMesh:findDistanceToWall

--- Restarts this handle's random generator (splitmix64): same seed, same points.
-- @function NavMesh:seed

--- A random point, uniform by X/Z area over the whole mesh (every tile).
-- @function NavMesh:findRandomPoint
-- @treturn int ref
-- @treturn number x, y, z

--- A random point within `radius` of a point, on polygons reachable from `ref`
-- through portals inside the circle; uniform over that part of the disc.
-- @function NavMesh:findRandomPointAroundCircle

--- Polygons reachable from `ref` whose portals touch a circle / a convex
-- shape `{x1,y1,z1, ...}` (either winding), cheapest first: refs, parents
-- (0 for the start) and path costs as parallel arrays.
-- @function NavMesh:findPolysAroundCircle
-- @function NavMesh:findPolysAroundShape

--- Non-overlapping polygons around `ref` within a radius (at most 64): refs, parents.
-- @function NavMesh:findLocalNeighbourhood

--- Refs of the polygons whose bounds overlap the box centre +- half extents.
-- @function NavMesh:queryPolygons

--- A polygon's boundary as flat segments `{ax,ay,az,bx,by,bz, ...}` and the
-- polygon across each one (0 for walls; tile borders split into parts).
-- @function NavMesh:getPolyWallSegments

--- Sliced findPath: `findPathBegin(...)` (findPath's arguments) -> true;
-- `findPathStep(maxIterations)` -> "in_progress" | "done", iterations;
-- `findPathEnd()` -> polys, partial. Same corridors as findPath. A search
-- that uses the node pool in between (findPath, path, findPathBegin,
-- findPolysAroundCircle/Shape, findDistanceToWall,
-- findRandomPointAroundCircle) or a mesh change ends it: step and end then
-- return nil, message, "ERR_STATE". Other queries leave it alone.
-- `findPath(..., filter, { maxIterations = n })` bounds one call: the 4th
-- result `unfinished` is true (with `partial`) when the cap stopped it.
-- @function NavMesh:findPathBegin

--- Filter extras: `navmesh.filter{ areaChangeCost = { [from] = { [to] = cost } },
-- heuristicScale = 0.999 }`. An area change costs `cost` once per step into
-- a polygon of another area (Unreal's addition); areas are 0..63 or "*" for
-- any (most specific pair wins; at most 32 pairs). `filter:areaChangeCost(from,
-- to [, cost])` and `filter:heuristicScale([s])` read and set them.
-- @function Filter:areaChangeCost

-- ---- building from triangles (implemented in C; documented here) ----

--- Builds a navmesh from triangles (the Recast pipeline, as RecastDemo runs it).
-- @function build
-- @tparam table vertices flat `{x,y,z, ...}` list (world units, Y up)
-- @tparam table triangles flat list of 1-based vertex numbers, three per triangle
-- @tparam[opt] table config RecastDemo's settings in camelCase (`cellSize`,
--   `agentRadius`, `tileSize`, `threads`, `partition`, `areas`,
--   `offMeshConnections`, `progress`, ...; see docs/api.md "Building from triangles")
-- @tparam[opt] table opts `{ maxNodes = 2048 }`
-- @return the mesh and a stats table `{ tiles, polys, peakBytes, ms = {...} }`,
--   or `nil, msg, "ERR_EMPTY"` when nothing walkable comes out
-- @raise on unknown config keys, out-of-range values, NaN vertices, bad indices

--- Builds a navmesh from a Wavefront OBJ file (read as RecastDemo reads it).
-- @function buildObj
-- @tparam string path
-- @tparam[opt] table config as for `build`
-- @tparam[opt] table opts as for `build`
-- @return as `build`, with `stats.dropped = { lines, faces, triangles }` (what
--   the reader passed over, see `parseObj`); also `nil, msg, "ERR_IO"`
--   (unreadable file) or `nil, msg, "ERR_DATA"` (malformed: the message names the line)

--- Parses Wavefront OBJ text.
-- @function parseObj
-- @tparam string text
-- @return `vertices, triangles` in the form `build` takes and `dropped =
--   { lines, faces, triangles }`: rows that are no OBJ statement, faces with
--   fewer than 3 indices or that lost triangles (an index out of range, past
--   the 32nd), and the triangles lost; or `nil, msg, "ERR_DATA"`

-- ---- optimal paths (implemented in C; documented here) ----

--- Corridor of polygons from startRef to endRef.
-- @function findPath
-- @tparam integer startRef
-- @tparam integer endRef
-- @tparam number sx,sy,sz start (on startRef)
-- @tparam number ex,ey,ez end (on endRef)
-- @tparam[opt] Filter filter
-- @tparam[opt] table opts `{ optimal = true }`: the corridor of the shortest
--   X/Z path (any-angle search, see docs/optimal-paths.md); `maxIterations = n`;
--   `reachableOnly = true`; `out = t` (write the corridor into t)
-- @return always five values: `polys, partial, outOfNodes, unfinished, fallback`;
--   `unfinished`: maxIterations stopped the search; `fallback` (only with
--   `optimal`): the filter's area costs differ, so this is the A* corridor

--- Nearest polygons, corridor and straight path in one call.
-- @function path
-- @tparam number sx,sy,sz
-- @tparam number ex,ey,ez
-- @tparam[opt] table opts findStraightPath's options, `filter`,
--   `halfExtents = {x,y,z}`, `optimal = true` (the shortest path, heights
--   from the detail mesh)
-- @return `points, partial`, and with `optimal` a third value `fallback`

-- ---- sharing one mesh between Lua states and threads (docs/hosts.md) ----

--- Publishes the mesh under `name` in the process-wide registry; the mesh
-- becomes read-only (addTile, removeTile, setPolyFlags, setPolyArea raise).
-- The data is copied into system memory; polygon references stay valid.
-- @function NavMesh:share
-- @tparam string name 1 to 255 bytes
-- @tparam[opt] table opts `{ replace = true }` publishes a new version over a taken name
-- @return true, or nil, message, "ERR_EXISTS" when another mesh has the name

--- A new handle on the mesh shared as `name`, with its own query state.
-- @function open
-- @tparam string name
-- @tparam[opt] table opts `{ maxNodes = 2048 }`
-- @return handle, or nil, message, "ERR_NOT_FOUND"

--- Drops a name; open handles keep the data until they close.
-- @function unshare
-- @tparam string name
-- @treturn boolean whether the name was shared

--- Bytes held by shared meshes in this process (this module's registry),
-- including old versions that open handles still use.
-- @function sharedBytes
-- @treturn integer

--- Bytes this Lua state's handles hold in its own memory (meshes it loaded
-- or built and did not share, query state, scratch): memory its allocator
-- gave out that `collectgarbage "count"` does not show. The module charges
-- these bytes and the shared meshes its handles use to the collector (see
-- docs/hosts.md, Memory), so dropped handles are collected.
-- @function memory
-- @treturn integer

return navmesh
