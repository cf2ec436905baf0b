--- navmesh: navigation meshes for Lua (Recast/Detour style).
-- `require "navmesh"` loads the C core (`navmesh.core`) and adds a little
-- pure-Lua sugar. See README.md for the full API.
-- @module navmesh
local core = require "navmesh.core"

local navmesh = {}
for k, v in pairs(core) do navmesh[k] = v end

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
