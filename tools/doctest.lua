-- tools/doctest.lua -- runs every ```lua block of the documentation, so the
-- docs stay true: README.md, docs/*.md and examples/*/README.md.
--
--   lua5.4 tools/doctest.lua [file.md ...]      (from the repository root)
--
-- Each block runs on its own in a fresh process of every Lua we test the
-- docs with (Lua 5.4 and LuaJIT, each with its module from build/), from the
-- repository root, with LUA_PATH="lua/?.lua;examples/?.lua;;" and LUA_CPATH
-- pointing at that Lua's module: what a reader who ran `make` and pasted the
-- block into a file would see. A block passes when it exits with status 0.
-- Output is TAP: "ok 3 - README.md block 2 (line 42) on lua5.4".
--
-- A block that cannot run alone (it needs an nginx or a Skynet host) is
-- marked by an HTML comment on the line before its fence, which a reader of
-- the rendered page does not see:
--   <!-- doctest: skip (needs nginx) -->
-- and is reported as "ok N - ... # SKIP needs nginx". Keep such blocks few.
-- Written for any Lua from 5.1 on (it runs the others as programs).

local LUAS = { -- interpreter, module directory under build/
  { "lua5.4", "build/5.4" },
  { "luajit", "build/jit" },
}
local TIMEOUT = 120 -- seconds per block (the blocks take well under one)

-- Runs a shell command; returns its exit status and its output.
local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1; echo \"exit=$?\""))
  local out = p:read("*a")
  p:close()
  local status = tonumber(out:match("exit=(%d+)%s*$"))
  return status, (out:gsub("exit=%d+%s*$", ""))
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

local function shell_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- The files to check: the arguments, or every documentation page.
local function doc_files()
  if arg and #arg > 0 then return { (unpack or table.unpack)(arg) } end
  local p = assert(io.popen("ls README.md docs/*.md examples/*/README.md 2>/dev/null"))
  local files = {}
  for f in p:lines() do files[#files + 1] = f end
  p:close()
  return files
end

-- The ```lua blocks of a Markdown file: { line =, code =, skip = reason|nil }.
local function lua_blocks(path)
  local blocks, lines = {}, {}
  for l in io.lines(path) do lines[#lines + 1] = l end
  local i = 1
  while i <= #lines do
    if lines[i]:match("^%s*```lua%s*$") then
      local start, body, skip = i, {}, nil
      local prev = start - 1
      while prev >= 1 and lines[prev]:match("^%s*$") do prev = prev - 1 end
      if prev >= 1 then skip = lines[prev]:match("<!%-%-%s*doctest:%s*skip%s*%((.-)%)%s*%-%->") end
      i = i + 1
      while i <= #lines and not lines[i]:match("^%s*```%s*$") do
        body[#body + 1] = lines[i]
        i = i + 1
      end
      blocks[#blocks + 1] = { line = start, code = table.concat(body, "\n") .. "\n", skip = skip }
    end
    i = i + 1
  end
  return blocks
end

-- Runs one block on one Lua; returns ok, output.
local function run_block(code, lua, moddir)
  local tmp = os.tmpname()
  local f = assert(io.open(tmp, "wb"))
  f:write(code)
  f:close()
  local timeout = run("command -v timeout >/dev/null") == 0 and ("timeout " .. TIMEOUT .. " ") or ""
  local status, out = run(("LUA_PATH='lua/?.lua;examples/?.lua;;' LUA_CPATH='%s/?.so;;' %s%s %s"):format(
    moddir, timeout, lua, shell_quote(tmp)))
  os.remove(tmp)
  return status == 0, out
end

local n, failed = 0, 0
local function report(ok, name, directive)
  n = n + 1
  if not ok then failed = failed + 1 end
  print(("%s %d - %s%s"):format(ok and "ok" or "not ok", n, name, directive or ""))
end

local luas = {}
for _, l in ipairs(LUAS) do
  if run("command -v " .. l[1] .. " >/dev/null") ~= 0 then
    print(("# %s not installed: its runs are skipped"):format(l[1]))
  elseif not exists(l[2] .. "/navmesh/core.so") then
    print(("# %s: no module in %s (run make)"):format(l[1], l[2]))
    luas[#luas + 1] = { l[1], l[2], missing = true }
  else
    luas[#luas + 1] = l
  end
end

local total = 0
for _, path in ipairs(doc_files()) do
  for b, block in ipairs(lua_blocks(path)) do
    total = total + 1
    for _, l in ipairs(luas) do
      local name = ("%s block %d (line %d) on %s"):format(path, b, block.line, l[1])
      if block.skip then
        report(true, name, " # SKIP " .. block.skip)
      elseif l.missing then
        report(false, name .. ": the module is not built")
      else
        local ok, out = run_block(block.code, l[1], l[2])
        report(ok, name)
        if not ok then
          for line in out:gmatch("[^\n]+") do print("#   " .. line) end
        end
      end
    end
  end
end
print(("# %d Lua blocks in the docs, %d runs, %d failed"):format(total, n, failed))
print("1.." .. n)
os.exit(failed == 0 and 0 or 1)
