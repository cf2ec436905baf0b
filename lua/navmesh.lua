--- navmesh: navigation meshes for Lua (Recast/Detour style).
-- `require "navmesh"` loads the C core (`navmesh.core`) and adds a little
-- pure-Lua sugar. See README.md for the full API.
-- @module navmesh
local core = require "navmesh.core"

local navmesh = {}
for k, v in pairs(core) do navmesh[k] = v end

-- ---- building from triangles (implemented in C; documented here) ----

--- Builds a navmesh from triangles (the Recast pipeline, as RecastDemo runs it).
-- @function build
-- @tparam table vertices flat `{x,y,z, ...}` list (world units, Y up)
-- @tparam table triangles flat list of 1-based vertex numbers, three per triangle
-- @tparam[opt] table config RecastDemo's settings in camelCase (`cellSize`,
--   `agentRadius`, `tileSize`, `threads`, `partition`, `areas`,
--   `offMeshConnections`, `progress`, ...; see README "Building from triangles")
-- @tparam[opt] table opts `{ maxNodes = 2048 }`
-- @return the mesh and a stats table `{ tiles, polys, peakBytes, ms = {...} }`,
--   or `nil, msg, "ERR_EMPTY"` when nothing walkable comes out
-- @raise on unknown config keys, out-of-range values, NaN vertices, bad indices

--- Builds a navmesh from a Wavefront OBJ file (read as RecastDemo reads it).
-- @function buildObj
-- @tparam string path
-- @tparam[opt] table config as for `build`
-- @tparam[opt] table opts as for `build`
-- @return as `build`; also `nil, msg, "ERR_IO"` (unreadable file) or
--   `nil, msg, "ERR_DATA"` (malformed: the message names the line)

--- Parses Wavefront OBJ text.
-- @function parseObj
-- @tparam string text
-- @return `vertices, triangles` in the form `build` takes, or `nil, msg, "ERR_DATA"`

-- ---- optimal paths (implemented in C; documented here) ----

--- Corridor of polygons from startRef to endRef.
-- @function findPath
-- @tparam integer startRef
-- @tparam integer endRef
-- @tparam number sx,sy,sz start (on startRef)
-- @tparam number ex,ey,ez end (on endRef)
-- @tparam[opt] Filter filter
-- @tparam[opt] table opts `{ optimal = true }`: the corridor of the shortest
--   X/Z path (any-angle search, see README "Truly shortest paths")
-- @return `polys, partial, outOfNodes`, and with `optimal` a fourth value
--   `fallback` (true: the filter's area costs differ, so this is the A* corridor)

--- Nearest polygons, corridor and straight path in one call.
-- @function path
-- @tparam number sx,sy,sz
-- @tparam number ex,ey,ez
-- @tparam[opt] table opts findStraightPath's options, `filter`,
--   `halfExtents = {x,y,z}`, `optimal = true` (the shortest path, heights
--   from the detail mesh)
-- @return `points, partial`, and with `optimal` a third value `fallback`

-- ---- sharing one mesh between Lua states and threads (README: Hosts and compatibility) ----

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

--- Bytes held by shared meshes in this process (this module's registry).
-- @function sharedBytes
-- @treturn integer

return navmesh
