-- spec/hosts/viewer_drive.lua -- drives headless Chromium through
-- chromedriver (W3C WebDriver over HTTP, with curl) against the viewer page
-- the OpenResty example serves, and checks it against the Lua API.
-- Usage (from spec/hosts/viewer_test.sh, at the repository root):
--   lua5.4 spec/hosts/viewer_drive.lua NGINX_PORT DRIVER_PORT PROFILE_DIR
-- Prints TAP lines without the plan (the shell script counts and ends).
package.path = "lua/?.lua;examples/?.lua;spec/?.lua;" .. package.path
package.cpath = "build/5.4/?.so;" .. package.cpath
local cjson = require "cjson"
local navmesh = require "navmesh"
local gridlevel = require "gridlevel"

local web_port, driver_port, profile = tonumber(arg[1]), tonumber(arg[2]), arg[3]
local TMP = "build/viewer-test"
os.execute("mkdir -p " .. TMP)
local n, failed = 0, 0

local function say(ok, what, detail)
  n = n + 1
  if not ok then failed = failed + 1 end
  print(("%sok %d - %s"):format(ok and "" or "not ", n, what))
  if not ok and detail then print("#   " .. tostring(detail):sub(1, 400):gsub("\n", "\n#   ")) end
  io.stdout:flush()
  return ok
end

-- ---- WebDriver over HTTP (curl) ----
local session
local function wd(method, path, body)
  local file = TMP .. "/request.json"
  local f = assert(io.open(file, "wb"))
  f:write(body and cjson.encode(body) or "{}")
  f:close()
  local cmd = ("curl -s -m 120 -X %s -H 'Content-Type: application/json' %s 'http://127.0.0.1:%d%s'"):format(
    method, method == "POST" and ("--data-binary @" .. file) or "", driver_port, path)
  local p = assert(io.popen(cmd))
  local text = p:read("*a")
  p:close()
  local ok, res = pcall(cjson.decode, text)
  if not ok or type(res) ~= "table" then error("webdriver " .. path .. ": bad answer: " .. text:sub(1, 200)) end
  local v = res.value -- a WebDriver error: {error=, message=, stacktrace=}
  if type(v) == "table" and type(v.error) == "string" and type(v.message) == "string" and v.stacktrace ~= nil then
    error("webdriver " .. path .. ": " .. tostring(res.value.error) .. ": " .. tostring(res.value.message):sub(1, 300))
  end
  return res.value
end
local function js(script, ...)
  local args = { ... }
  if #args == 0 then args = { false } end -- cjson writes an empty table as {}, WebDriver wants a list
  return wd("POST", "/session/" .. session .. "/execute/sync", { script = script, args = args })
end
local function wait_for(script, seconds)
  for _ = 1, seconds * 10 do
    local v = js(script)
    if v and v ~= cjson.null then return v end
    os.execute("sleep 0.1")
  end
  return nil
end
local function pointer(actions)
  wd("POST", "/session/" .. session .. "/actions",
     { actions = { { type = "pointer", id = "mouse", parameters = { pointerType = "mouse" }, actions = actions } } })
end
local function screen_of(x, z)
  local p = js("return viewer.worldToScreen(arguments[0], arguments[1])", x, z)
  return math.floor(p[1] + 0.5), math.floor(p[2] + 0.5)
end
local function click(x, z)
  local sx, sy = screen_of(x, z)
  pointer { { type = "pointerMove", duration = 0, x = sx, y = sy, origin = "viewport" },
            { type = "pointerDown", button = 0 }, { type = "pointerUp", button = 0 } }
end
local function screenshot(path)
  local b64 = wd("GET", "/session/" .. session .. "/screenshot")
  local f = assert(io.open(TMP .. "/shot.b64", "wb"))
  f:write(b64)
  f:close()
  return os.execute(("base64 -d %s/shot.b64 > %s"):format(TMP, path))
end

-- ---- the checks ----
local function start_session()
  local args = { "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--user-data-dir=" .. profile, "--window-size=1280,900" }
  local v = wd("POST", "/session", { capabilities = { alwaysMatch = { browserName = "chrome",
    ["goog:chromeOptions"] = { binary = "/usr/bin/chromium", args = args } } } })
  session = v.sessionId
  return session
end

-- The page's numbers "x y z" per line against a flat point list.
local function same_points(text, pts)
  local got = {}
  for num in tostring(text):gmatch("%S+") do got[#got + 1] = tonumber(num) end
  if #got ~= #pts then return false, ("%d numbers shown, %d from Lua"):format(#got, #pts) end
  for i = 1, #pts do
    if not got[i] or math.abs(got[i] - pts[i]) > 0.0005 + 1e-6 then
      return false, ("number %d: page %s, Lua %.6f"):format(i, tostring(got[i]), pts[i])
    end
  end
  return true
end

local function length2d(pts)
  local len = 0
  for i = 4, #pts, 3 do len = len + math.sqrt((pts[i] - pts[i - 3]) ^ 2 + (pts[i + 2] - pts[i - 1]) ^ 2) end
  return len
end

-- The X/Z centre of the polygon nearest to a point: a pixel off it still
-- lands on that polygon.
local function centre(mesh, x, y, z)
  local v, cx, cz = mesh:getPolyVerts((mesh:findNearestPoly(x, y, z))), 0, 0
  for i = 1, #v, 3 do cx, cz = cx + v[i], cz + v[i + 2] end
  return cx / (#v / 3), cz / (#v / 3)
end

local function check_route(mesh)
  local q = gridlevel.queries(4)[2]
  click(centre(mesh, q[1], q[2], q[3]))
  click(centre(mesh, q[4], q[5], q[6]))
  local done = wait_for("return viewer.route.done ? true : null", 15)
  if not say(done ~= nil, "two clicks: the page asks the server for the paths and shows them",
             js("return document.getElementById('route').textContent")) then return end
  local r = js("return viewer.route")
  local s, g = r.start, r.goal
  local shown = js("return ['default','inset','optimal'].map(k => document.getElementById('pts-' + k).textContent)")
  local table_text = js("return document.getElementById('paths').textContent")
  local inset = r.result.insetDistance
  for i, name in ipairs { "default", "inset", "optimal" } do
    local opts = ({ {}, { inset = inset }, { optimal = true } })[i]
    local pts = mesh:path(s[1], s[2], s[3], g[1], g[2], g[3], opts)
    local ok, why = same_points(shown[i], pts or {})
    say(pts and ok, ("%s path: the page shows the %d points mesh:path gives from (%.3f, %.3f, %.3f) to (%.3f, %.3f, %.3f)")
        :format(name, pts and #pts / 3 or 0, s[1], s[2], s[3], g[1], g[2], g[3]), why)
    local len = ("%.3f"):format(length2d(pts or {}))
    say(table_text:find(len, 1, true) ~= nil, name .. " path: its X/Z length " .. len .. " is shown", table_text)
  end
end

local function check_hover(mesh)
  local q = gridlevel.queries(4)[3]
  local sx, sy = screen_of(q[1], q[3])
  pointer { { type = "pointerMove", duration = 0, x = sx, y = sy, origin = "viewport" } }
  local text = js("return document.getElementById('hover').textContent")
  local ref = mesh:findNearestPoly(q[1], q[2], q[3])
  local want = ("ref    %d"):format(ref)
  say(text:find(want, 1, true) and text:find("island " .. mesh:getIsland(ref), 1, true) and
      text:find("area   " .. mesh:getPolyArea(ref), 1, true) and text:find("flags  " .. mesh:getPolyFlags(ref), 1, true),
      "hover shows the polygon's ref, area, flags and island as the Lua API gives them", text)
end

-- The city export loaded into the page, then a scripted pan (60 pointer
-- moves of 16 ms): frames drawn and their times, as the page measured them.
local function check_city()
  local city_file = "../shared/navmeshes/city_tiled.bin"
  if not io.open(city_file, "rb") then
    print("# SKIP city frame times: " .. city_file .. " not found")
    return
  end
  local city = assert(navmesh.load(city_file))
  local text = navmesh.debug.export { mesh = city,
    recording = navmesh.debug.syntheticRecording(city, { agents = 40, frames = 50 }) }
  js("viewer.loadExport(JSON.parse(arguments[0]), 'city_tiled'); return true", text)
  print(("# city export: %d KiB handed to the page"):format(math.floor(#text / 1024)))
  print("# " .. js("return document.getElementById('status').textContent") .. " " .. cjson.encode(js("return viewer.loadTimes")))
  js("viewer.resetStats(); return true")
  local moves = { { type = "pointerMove", duration = 0, x = 300, y = 400, origin = "viewport" }, { type = "pointerDown", button = 0 } }
  for i = 1, 60 do moves[#moves + 1] = { type = "pointerMove", duration = 16, x = 300 + i * 4, y = 400 + i * 2, origin = "viewport" } end
  moves[#moves + 1] = { type = "pointerUp", button = 0 }
  pointer(moves)
  local st = js("return viewer.statsSummary()")
  local d, iv = st.draw, st.interval
  if d ~= cjson.null then
    print(("# city pan: %d frames drawn; draw (JS) mean %.1f ms, p50 %.1f, p95 %.1f, max %.1f"):format(d.n, d.mean, d.p50, d.p95, d.max))
  end
  if iv ~= cjson.null then
    print(("# city pan: time between drawn frames mean %.1f ms, p50 %.1f, p95 %.1f, max %.1f"):format(iv.mean, iv.p50, iv.p95, iv.max))
  end
  say(d ~= cjson.null and d.n >= 10, "city (" .. city:info().polys .. " polygons): the page redraws while a scripted pan drags it",
      cjson.encode(st))
  -- the page's own frame times: it pans and redraws on every animation frame
  st = wd("POST", "/session/" .. session .. "/execute/async", { args = { false },
    script = "const done = arguments[arguments.length - 1]; viewer.benchmarkPan(120, 2).then(done);" })
  iv = st.interval
  if iv ~= cjson.null then
    print(("# city, redrawn every frame for 120 frames: frame time mean %.1f ms, p50 %.1f, p95 %.1f, max %.1f (draw JS mean %.1f ms)"):format(
      iv.mean, iv.p50, iv.p95, iv.max, st.draw.mean))
  end
  say(iv ~= cjson.null and iv.n >= 100, "city: 120 frames of a rAF-driven pan are drawn and timed", cjson.encode(st))
  say(screenshot("build/viewer-city.png"), "screenshot of the city written to build/viewer-city.png")
  city:close()
end

-- A real crowd run (examples/crowd.lua, 40 agents through the doorway)
-- loaded into the page: the replay shows its frames, and "play" advances
-- them with the agents drawn where the recording has them.
local function check_crowd_replay()
  local svg, json = TMP .. "/crowd.svg", TMP .. "/crowd.json"
  local ok = os.execute(("LUA_PATH='lua/?.lua;examples/?.lua;;' LUA_CPATH='build/5.4/?.so;;' lua5.4 examples/crowd.lua %s %s 40 >%s/crowd.log 2>&1")
    :format(svg, json, TMP))
  local f = io.open(json, "rb")
  local text = f and f:read("*a")
  if f then f:close() end
  if not say((ok == true or ok == 0) and text ~= nil, "examples/crowd.lua writes a crowd recording (" .. json .. ")") then return end
  local rec = cjson.decode(text).recording
  js("viewer.loadExport(JSON.parse(arguments[0]), 'crowd'); return true", text)
  local shown = js("return [viewer.replay.on, viewer.data.recording.frames.length, !document.getElementById('replay').hidden]")
  say(shown[1] == true and shown[2] == #rec.frames and shown[3] == true,
      ("the page offers the replay of the recording's %d frames of %d agents"):format(#rec.frames, #rec.frames[1] / 3),
      cjson.encode(shown))
  js("document.getElementById('play').click(); return true")
  -- the frame and its label are read in one script: the replay goes on
  -- between two calls, so separate reads could see different frames
  local seen = wait_for("const f = viewer.replay.frame; return f >= 10 ? " ..
                        "[f, document.getElementById('framelabel').textContent] : null", 20)
  local frame, label = seen and seen[1], seen and seen[2] or "no frame >= 10"
  say(frame ~= nil and label:find(("frame %d/"):format(frame + 1), 1, true) ~= nil,
      ("play advances the replay (%s)"):format(label), label)
  js("document.getElementById('play').click(); return true") -- pause where it is
  local i = js("return viewer.replay.frame")
  local agents = js("return (function(){ const r = viewer.data.recording, f = r.frames[viewer.replay.frame]; " ..
                    "return [f.length / 3, f[0], f[2]]; })()")
  local want = rec.frames[i + 1]
  say(agents[1] == #want / 3 and math.abs(agents[2] - want[1]) < 1e-9 and math.abs(agents[3] - want[3]) < 1e-9,
      ("frame %d holds the recording's %d agents where the crowd had them"):format(i, #want / 3), cjson.encode(agents))
  say(screenshot("build/viewer-crowd.png"), "screenshot of the replay written to build/viewer-crowd.png")
end

local ok, err = pcall(function()
  say(start_session() ~= nil, "chromedriver starts headless Chromium (/usr/bin/chromium)")
  wd("POST", "/session/" .. session .. "/url", { url = ("http://127.0.0.1:%d/"):format(web_port) })
  local status = wait_for("return viewer && viewer.ready ? document.getElementById('status').textContent : null", 20)
  local mesh = assert(gridlevel.build(navmesh))
  local want = ("%d polygons"):format(mesh:info().polys)
  say(status and status:find(want, 1, true), "http://127.0.0.1:" .. web_port .. "/ opens the viewer on the server's own mesh (" .. want .. ")",
      tostring(status))
  check_hover(mesh)
  check_route(mesh)
  say(screenshot("build/viewer-test.png"), "screenshot written to build/viewer-test.png")
  check_crowd_replay()
  check_city()
end)
if not ok then say(false, "the browser session ran to its end", err) end
if session then pcall(wd, "DELETE", "/session/" .. session) end
os.exit(failed == 0 and 0 or 1)
