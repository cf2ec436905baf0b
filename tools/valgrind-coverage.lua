-- tools/valgrind-coverage.lua DIR -- compares the C lines the valgrind set
-- of make test reached (DIR/valgrind.txt) with those the whole Lua suite
-- reached (DIR/suite/*.txt, one file per spec) and those the complete
-- valgrind run (make valgrind) reached (DIR/full.txt), out of every
-- executable line (DIR/all.txt); files hold "file:line" per line
-- (tools/gcov-lines.lua). Prints the totals, each spec's lines and the
-- lines only it reaches, and every line the set misses with its source
-- text. Exits 1 when the set misses a line the complete run reaches, or
-- one of the whole suite that the complete run does not miss either.
local dir = assert(arg[1], "usage: valgrind-coverage.lua DIR")

local function read_set(path)
  local set, n = {}, 0
  for l in io.lines(path) do
    if not set[l] then set[l], n = true, n + 1 end
  end
  return set, n
end

local function list_specs()
  local p = assert(io.popen("ls " .. dir .. "/suite"))
  local specs = {}
  for f in p:lines() do
    if f:find("%.txt$") then specs[#specs + 1] = f:gsub("%.txt$", "") end
  end
  p:close()
  return specs
end

-- The source text of file:line (cached per file).
local sources = {}
local function source_line(key)
  local file, ln = key:match("^(.*):(%d+)$")
  if not sources[file] then
    sources[file] = {}
    local f = io.open(file)
    if f then
      for l in f:lines() do sources[file][#sources[file] + 1] = l end
      f:close()
    end
  end
  return sources[file][tonumber(ln)] or ""
end

local specs, per, suite, nsuite = list_specs(), {}, {}, 0
for _, s in ipairs(specs) do
  per[s] = read_set(dir .. "/suite/" .. s .. ".txt")
  for k in pairs(per[s]) do
    if not suite[k] then suite[k], nsuite = true, nsuite + 1 end
  end
end
local _, nall = read_set(dir .. "/all.txt")
local vg, nvg = read_set(dir .. "/valgrind.txt")
local full, nfull = read_set(dir .. "/full.txt")

print(("executable lines of C (core and binding): %d"):format(nall))
print(("reached by the whole Lua suite:            %d (%.1f%%)"):format(nsuite, 100 * nsuite / nall))
print(("reached by the complete valgrind run:      %d (%.1f%%)"):format(nfull, 100 * nfull / nall))
print(("reached by the valgrind set of make test:  %d (%.1f%%)"):format(nvg, 100 * nvg / nall))
print("per spec (alone, full size): lines reached, lines no other spec reaches")
for _, s in ipairs(specs) do
  local n, only = 0, 0
  for k in pairs(per[s]) do
    n = n + 1
    local elsewhere = false
    for _, t in ipairs(specs) do
      if t ~= s and per[t][k] then elsewhere = true break end
    end
    if not elsewhere then only = only + 1 end
  end
  print(("  %-32s %6d %6d"):format(s, n, only))
end
local missed = {}
for k in pairs(suite) do
  if not vg[k] then missed[#missed + 1] = k end
end
table.sort(missed, function(a, b)
  local fa, la = a:match("^(.*):(%d+)$")
  local fb, lb = b:match("^(.*):(%d+)$")
  if fa ~= fb then return fa < fb end
  return tonumber(la) < tonumber(lb)
end)
local worse = 0
for _, k in ipairs(missed) do
  local who = {}
  for _, s in ipairs(specs) do if per[s][k] then who[#who + 1] = s:match("^(%d+)") end end
  -- (the worker pool's waits depend on thread timing: not held against the set)
  if full[k] and not k:find("^src/bake/pool%.c:") then worse = worse + 1 end
  print(("  missed %-36s [%s]%s %s"):format(k, table.concat(who, ","), full[k] and "" or " (complete run too)",
    source_line(k):gsub("^%s+", "")))
end
local gained = 0
for k in pairs(vg) do if not full[k] then gained = gained + 1 end end
print(("the valgrind set misses %d of the %d lines the whole suite reaches (%d of them reached by the complete run,"
  .. " thread-timing lines of src/bake/pool.c aside);"):format(#missed, nsuite, worse))
print(("it reaches %d lines the complete run does not"):format(gained))
os.exit(worse == 0 and 0 or 1)
