--- spec/minibusted.lua -- runs our busted specs on a Lua busted cannot run
-- on. busted itself needs C modules (lfs, term, system) that Debian builds
-- for Lua 5.1 to 5.4 only, so on Lua 5.5 (the standalone `lua` of Skynet's
-- 3rd/lua) this runner stands in for it, for the subset our specs use:
--   describe, it, pending; setup and teardown (once around a block's tests,
--   none when it has none); before_each and after_each (outer ones first /
--   last); assert = luassert, the pure-Lua assertion library busted uses
--   (taken from the system's busted install when it is not on the path).
-- As busted does, each file runs insulated (the globals and package.loaded
-- entries it adds or changes are put back after it), tests run in the
-- order they are declared, and the output is busted's TAP ("ok N - name",
-- "not ok N - name" with "# " detail lines, "# SKIP" for pending, "1..N").
-- Usage: lua minibusted.lua [spec files or directories]  (default: spec)
-- Exits 1 when a test failed.

-- luassert and say are pure Lua: the copies installed for 5.1..5.4 serve.
if not pcall(require, "luassert") then
  for _, v in ipairs { "5.4", "5.3", "5.1" } do
    package.path = package.path .. (";/usr/share/lua/%s/?.lua;/usr/share/lua/%s/?/init.lua"):format(v, v)
  end
end
local luassert = require "luassert"

local count, failed = 0, 0

-- ---- collecting: describe/it build a tree of blocks ----

local function new_block(name, parent)
  return { name = name, parent = parent, items = {}, setup = {}, teardown = {}, before = {}, after = {} }
end

local current -- the block being declared

local function full_name(block, name)
  local parts = { name }
  while block and block.name do
    table.insert(parts, 1, block.name)
    block = block.parent
  end
  return table.concat(parts, " ")
end

local api = {}

function api.describe(name, fn)
  local block, outer = new_block(name, current), current
  table.insert(outer.items, { block = block })
  current = block
  local ok, err = pcall(fn)
  current = outer
  if not ok then table.insert(block.items, 1, { name = "(describe)", error = err }) end
end

function api.it(name, fn)
  table.insert(current.items, { name = name, fn = fn, trace = debug.getinfo(2, "Sl") })
end

function api.pending(name)
  table.insert(current.items, { name = name, pending = true })
end

for _, k in ipairs { "setup", "teardown" } do
  api[k] = function(fn) table.insert(current[k], fn) end
end
api.lazy_setup, api.lazy_teardown = api.setup, api.teardown
api.before_each = function(fn) table.insert(current.before, fn) end
api.after_each = function(fn) table.insert(current.after, fn) end

-- ---- running ----

local function report(ok, name, where, msg)
  count = count + 1
  if ok then
    print(("ok %d - %s"):format(count, name))
  else
    failed = failed + 1
    print(("not ok %d - %s"):format(count, name))
    if where then print("# " .. where) end
    print("# Failure message: " .. tostring(msg):gsub("\n", "\n# "))
  end
end

local function has_tests(block)
  for _, item in ipairs(block.items) do
    if item.fn or item.error or (item.block and has_tests(item.block)) then return true end
  end
  return false
end

-- Calls each function of list (in order, or reversed); the first error.
local function call_all(list, reversed)
  local first, last, step = 1, #list, 1
  if reversed then first, last, step = #list, 1, -1 end
  for i = first, last, step do
    local ok, err = pcall(list[i])
    if not ok then return err end
  end
end

-- The before_each functions of a block and its parents, outermost first.
local function chain(block, key, out)
  out = out or {}
  if block.parent then chain(block.parent, key, out) end
  for _, fn in ipairs(block[key]) do out[#out + 1] = fn end
  return out
end

local function traceback(err)
  return debug.traceback(tostring(err), 2)
end

local function run_test(block, item)
  local name = full_name(block, item.name)
  if item.pending then
    count = count + 1
    print(("ok %d - # SKIP %s"):format(count, name))
    return
  end
  if item.error then return report(false, name, nil, item.error) end
  local where = item.trace.short_src .. " @ " .. item.trace.currentline
  local err = call_all(chain(block, "before"))
  if not err then
    local ok, e = xpcall(item.fn, traceback)
    if not ok then err = e end
  end
  local after_err = call_all(chain(block, "after"), true)
  report(not (err or after_err), name, where, err or after_err)
end

local function run_block(block)
  if not has_tests(block) then
    for _, item in ipairs(block.items) do
      if item.pending then run_test(block, item) end
    end
    return
  end
  local err = call_all(block.setup)
  for _, item in ipairs(block.items) do
    if item.block then
      if err then
        report(false, full_name(item.block, "(setup of the enclosing block)"), nil, err)
      else
        run_block(item.block)
      end
    elseif err and not item.pending then
      report(false, full_name(block, item.name), nil, "setup failed: " .. tostring(err))
    else
      run_test(block, item)
    end
  end
  err = call_all(block.teardown, true)
  if err then report(false, full_name(block, "(teardown)"), nil, err) end
end

-- Runs one spec file insulated: globals and package.loaded restored after.
local function run_file(path)
  local saved_g, saved_loaded = {}, {}
  for k, v in pairs(_G) do saved_g[k] = v end
  for k, v in pairs(package.loaded) do saved_loaded[k] = v end
  for k, v in pairs(api) do _G[k] = v end
  _G.assert = luassert
  local root = new_block(nil, nil)
  current = root
  local chunk, err = loadfile(path)
  if chunk then
    local ok, e = xpcall(chunk, traceback)
    if not ok then err = e end
  end
  if err then
    report(false, path, nil, err)
  else
    run_block(root)
  end
  for k in pairs(_G) do if saved_g[k] == nil then _G[k] = nil end end
  for k, v in pairs(saved_g) do _G[k] = v end
  for k in pairs(package.loaded) do if saved_loaded[k] == nil then package.loaded[k] = nil end end
  for k, v in pairs(saved_loaded) do package.loaded[k] = v end
end

-- The *_spec.lua files of the arguments (directories listed, sorted).
local function spec_files(args)
  local files = {}
  if #args == 0 then args = { "spec" } end
  for _, a in ipairs(args) do
    if a:match("%.lua$") then
      files[#files + 1] = a
    else
      local p = assert(io.popen(('ls "%s"'):format(a)))
      local found = {}
      for name in p:lines() do
        if name:match("_spec%.lua$") then found[#found + 1] = a .. "/" .. name end
      end
      p:close()
      table.sort(found)
      for _, f in ipairs(found) do files[#files + 1] = f end
    end
  end
  return files
end

for _, f in ipairs(spec_files { ... }) do run_file(f) end
print("1.." .. count)
os.exit(failed == 0 and 0 or 1)
