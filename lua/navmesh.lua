--- navmesh: navigation meshes for Lua (Recast/Detour style).
-- `require "navmesh"` loads the C core (`navmesh.core`) and adds a little
-- pure-Lua sugar. See README.md for the full API.
-- @module navmesh
local core = require "navmesh.core"

local navmesh = {}
for k, v in pairs(core) do navmesh[k] = v end

return navmesh
