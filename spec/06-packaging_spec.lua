-- The rockspec builds what the Makefile builds: every C file of the core and
-- the binding is listed, and the module names are the ones we require; its
-- source is one a published rock can have, and `luarocks lint` accepts it.
-- The one rockspec of the checkout, run in a table of its own: that table
-- and the file name.
local function load_rockspec()
  local files, spec = {}, {}
  local p = io.popen("ls navmesh-*.rockspec")
  for f in p:lines() do files[#files + 1] = f end
  p:close()
  assert.are.equal(1, #files)
  local chunk = assert(loadfile(files[1], "t", spec) or loadfile(files[1]))
  if setfenv then setfenv(chunk, spec) end
  chunk()
  return spec, files[1]
end

describe("rockspec", function()
  local spec
  setup(function() spec = load_rockspec() end)

  it("uses the builtin backend with the navmesh and navmesh.core modules", function()
    assert.are.equal("builtin", spec.build.type)
    assert.are.equal("lua/navmesh.lua", spec.build.modules["navmesh"])
    assert.is_table(spec.build.modules["navmesh.core"].sources)
  end)

  it("lists every C source file", function()
    local listed = {}
    for _, f in ipairs(spec.build.modules["navmesh.core"].sources) do listed[f] = true end
    local p = io.popen("ls src/*/*.c")
    local missing = {}
    for f in p:lines() do
      if not listed[f] then missing[#missing + 1] = f end
    end
    p:close()
    assert.are.same({}, missing)
  end)
end)

describe("rockspec source", function()
  local spec, file
  setup(function() spec, file = load_rockspec() end)

  it("is fetchable by others: a remote git URL with the release tag, or a versioned archive", function()
    local url, version = spec.source.url, spec.version:match("^(.-)%-%d+$")
    assert.is_string(url)
    assert.is_nil(url:find("file:", 1, true), "source.url points at a local directory: " .. url)
    assert.is_truthy(url:find("^git%+https://") or url:find("^https://"), "not a remote URL: " .. url)
    if url:find("^git%+") then
      assert.are.equal("v" .. version, spec.source.tag)
    else
      assert.is_truthy(url:find(version, 1, true), "the archive URL names no version: " .. url)
    end
    assert.are.equal(("navmesh-%s.rockspec"):format(spec.version), file)
  end)

  it("passes luarocks lint", function()
    local found = os.execute("command -v luarocks >/dev/null 2>&1")
    if found ~= true and found ~= 0 then -- (5.1 returns 0, later Luas true)
      return print("# SKIP luarocks lint: luarocks is not installed")
    end
    local p = io.popen("luarocks lint " .. file .. " 2>&1; echo \"rc=$?\"")
    local out = p:read("*a")
    p:close()
    assert.is_truthy(out:find("rc=0", 1, true), out)
  end)
end)
