-- The rockspec builds what the Makefile builds: every C file of the core and
-- the binding is listed, and the module names are the ones we require.
describe("rockspec", function()
  local spec = {}
  setup(function()
    local files = {}
    local p = io.popen("ls navmesh-*.rockspec")
    for f in p:lines() do files[#files + 1] = f end
    p:close()
    assert.are.equal(1, #files)
    local chunk = assert(loadfile(files[1], "t", spec) or loadfile(files[1]))
    if setfenv then setfenv(chunk, spec) end
    chunk()
  end)

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
