-- tools/gcov-lines.lua -- the executed lines in `gcov -t` output (stdin):
-- one "file:line" per line on stdout, each once, files named from the
-- project root ("src/query/../mesh/x.h" becomes "src/mesh/x.h"). With the
-- argument "all": every executable line, run or not.
-- Used by tools/valgrind-coverage.sh.
local all = arg[1] == "all"
local cur
local seen = {}
for l in io.lines() do
  local src = l:match("^%s*%-:%s*0:Source:(.*)$")
  if src then
    repeat
      local n
      src, n = src:gsub("[^/]+/%.%./", "", 1)
    until n == 0
    cur = src
  else
    local count, ln = l:match("^%s*([%d#=]+)%*?:%s*(%d+):")
    if count and cur and (all or tonumber(count)) then
      local k = cur .. ":" .. ln
      if not seen[k] then
        seen[k] = true
        print(k)
      end
    end
  end
end
