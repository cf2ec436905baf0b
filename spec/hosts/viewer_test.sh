#!/usr/bin/env bash
# spec/hosts/viewer_test.sh -- the viewer page (examples/viewer/) in Debian's
# headless Chromium, served by the OpenResty example under a real nginx.
# nginx runs examples/openresty/nginx.conf (port, worker count and, as root,
# the worker user changed; prefix and logs under build/); chromedriver drives
# /usr/bin/chromium (never a downloaded browser) with a fresh profile;
# spec/hosts/viewer_drive.lua opens http://127.0.0.1:PORT/, hovers and
# clicks two points and checks the shown paths against mesh:path in plain
# Lua 5.4, writes build/viewer-test.png, replays a crowd run recorded by
# examples/crowd.lua (build/viewer-crowd.png), then loads the city export and
# reports the page's frame times during a scripted pan. Skips (one "ok #
# SKIP" line) where Chromium or chromedriver is not installed. nginx and
# chromedriver are stopped by their own pids. Output: TAP.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
PREFIX=$ROOT/build/viewer-nginx/
MODDIR=${NGINX_MODDIR:-/usr/lib/nginx/modules}
PROFILE=$ROOT/build/viewer-test/profile
n=0
failed=0
pids=""

tap() { # tap STATUS(0=ok) DESCRIPTION [DETAIL]
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
    failed=$((failed + 1))
    echo "not ok $n - $2"
    [ $# -ge 3 ] && printf '%s\n' "$3" | head -8 | sed 's/^/#   /'
  fi
}

# Ends every process this script started (by pid: TERM, then KILL).
cleanup() {
  local p
  for p in $pids; do kill -TERM "$p" 2>/dev/null; done
  sleep 0.3
  for p in $pids; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  pids=""
}
trap cleanup EXIT

free_port() { echo $((20000 + (RANDOM * 32768 + RANDOM) % 40000)); }

# ---- prerequisites: without a browser, skip ----
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  echo "ok 1 # SKIP viewer browser test: chromium and chromium-driver are not installed (tools/deps.sh installs them as root)"
  echo "1..1"
  exit 0
fi
missing=""
for c in nginx curl lua5.4 base64; do command -v $c >/dev/null || missing="$missing $c"; done
for f in "$MODDIR/ngx_http_lua_module.so" build/jit/navmesh/core.so build/5.4/navmesh/core.so; do
  [ -f "$f" ] || missing="$missing $f"
done
lua5.4 -e 'require "cjson"' 2>/dev/null || missing="$missing lua-cjson"
if [ -n "$missing" ]; then
  tap 1 "prerequisites present" "missing:$missing"
  echo "1..$n"
  exit 1
fi

# ---- nginx with the example's config on a free port ----
rm -rf "$PREFIX" "$PROFILE"
mkdir -p "$PREFIX/conf" "$PREFIX/logs" "$PREFIX/temp" "$PROFILE"
up=1
for attempt in 1 2 3 4 5; do
  port=$(free_port)
  {
    [ "$(id -u)" = 0 ] && echo "user root;"
    sed -e "s/listen 127\.0\.0\.1:8080;/listen 127.0.0.1:$port;/" -e "s/^worker_processes .*/worker_processes 1;/" \
        -e "s#/usr/lib/nginx/modules/#$MODDIR/#" examples/openresty/nginx.conf
  } >"$PREFIX/conf/nginx.conf"
  nginx -p "$PREFIX" -c "$PREFIX/conf/nginx.conf" -e logs/error.log -g "daemon off;" >"$PREFIX/logs/stdout.log" 2>&1 &
  web=$!
  pids="$pids $web"
  for i in $(seq 100); do
    kill -0 "$web" 2>/dev/null || break
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/viewer/")" = 200 ] && { up=0; break; }
    sleep 0.1
  done
  [ $up = 0 ] && break
  grep -q "Address already in use" "$PREFIX"/logs/*.log 2>/dev/null || break
done
tap $up "nginx serves the viewer at http://127.0.0.1:$port/viewer/ (master pid $web)" "$(tail -5 "$PREFIX/logs/error.log" 2>/dev/null)"
if [ $up != 0 ]; then echo "1..$n"; exit 1; fi

# ---- chromedriver ----
dport=$(free_port)
chromedriver --port="$dport" >"$ROOT/build/viewer-test/chromedriver.log" 2>&1 &
driver=$!
pids="$pids $driver"
ready=1
for i in $(seq 100); do
  curl -s "http://127.0.0.1:$dport/status" 2>/dev/null | grep -q '"ready":true' && { ready=0; break; }
  sleep 0.1
done
tap $ready "chromedriver answers on port $dport (pid $driver)" "$(tail -5 "$ROOT/build/viewer-test/chromedriver.log")"

# ---- the page ----
if [ $ready = 0 ]; then
  lua5.4 spec/hosts/viewer_drive.lua "$port" "$dport" "$PROFILE" >"$ROOT/build/viewer-test/drive.log" 2>&1
  rc=$?
  # renumber the driver's TAP lines after ours
  while IFS= read -r line; do
    case $line in
      "ok "*) n=$((n + 1)); echo "ok $n ${line#ok [0-9]* }" ;;
      "not ok "*) n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n ${line#not ok [0-9]* }" ;;
      *) echo "$line" ;;
    esac
  done <"$ROOT/build/viewer-test/drive.log"
  [ $rc = 0 ] || grep -q '^not ok' "$ROOT/build/viewer-test/drive.log" || tap 1 "the driver exited with status $rc"
fi

errs=$(grep -E '\[(alert|crit|emerg|error)\]' "$PREFIX/logs/error.log")
[ -z "$errs" ]
tap $? "nginx error.log has no errors" "$errs"
cleanup
echo "1..$n"
[ "$failed" -eq 0 ]
