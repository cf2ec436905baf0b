#!/usr/bin/env bash
# spec/hosts/nginx_test.sh -- the OpenResty example under a real nginx.
# Runs examples/openresty/nginx.conf (port, worker count and, as root, the
# worker user changed; prefix, pid, logs and temp paths under build/) with
# Debian's nginx + libnginx-mod-http-lua and the LuaJIT build of the module.
# The mesh is built and shared in init_by_lua, opened per worker in
# init_worker_by_lua, and per worker thread in ngx.run_worker_thread.
# Known paths are queried with curl and compared with the same handler run
# in plain luajit; bad parameters must give 400 with a message while the
# same worker keeps serving. nginx is stopped by its own pid and no process
# of it may survive. Output: TAP.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
PREFIX=$ROOT/build/nginx-test/
MODDIR=${NGINX_MODDIR:-/usr/lib/nginx/modules}
NQUERIES=12
n=0
failed=0
master=""

say() { # say STATUS(0=ok) DESCRIPTION [DETAIL]
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $n - $2"
  else
    failed=$((failed + 1))
    echo "not ok $n - $2"
    [ $# -ge 3 ] && printf '%s\n' "$3" | head -5 | sed 's/^/#   /'
  fi
}

finish() {
  echo "1..$n"
  [ "$failed" -eq 0 ]
  exit $?
}

# Stops the master we started (QUIT, then TERM, then KILL) and waits for it.
stop_nginx() {
  [ -n "$master" ] || return 0
  local i
  kill -QUIT "$master" 2>/dev/null # graceful stop, as `nginx -s quit` does
  for i in $(seq 50); do kill -0 "$master" 2>/dev/null || break; sleep 0.1; done
  kill -TERM "$master" 2>/dev/null && sleep 0.5
  kill -KILL "$master" 2>/dev/null
  wait "$master" 2>/dev/null
  master=""
}
trap stop_nginx EXIT

# ---- prerequisites ----
missing=""
command -v nginx >/dev/null || missing="$missing nginx"
command -v curl >/dev/null || missing="$missing curl"
command -v luajit >/dev/null || missing="$missing luajit"
for m in ndk_http_module.so ngx_http_lua_module.so; do
  [ -f "$MODDIR/$m" ] || missing="$missing $MODDIR/$m"
done
[ -f build/jit/navmesh/core.so ] || missing="$missing build/jit/navmesh/core.so"
if [ -n "$missing" ]; then
  say 1 "prerequisites present" "missing:$missing"
  finish
fi
say 0 "prerequisites: nginx $(nginx -v 2>&1 | sed 's/.*\///'), lua-nginx-module, build/jit module"

# ---- expected answers from plain luajit ----
expect=$(luajit spec/hosts/nginx_expect.lua "$NQUERIES" 2>&1)
say $? "plain luajit computes the expected answers" "$expect"

# ---- start nginx on a free port ----
# Writes the config for port $1 from the example.
write_conf() {
  {
    [ "$(id -u)" = 0 ] && echo "user root;"
    sed -e "s/listen 127\.0\.0\.1:8080;/listen 127.0.0.1:$1;/" \
        -e "s/^worker_processes .*/worker_processes 1;/" \
        -e "s#/usr/lib/nginx/modules/#$MODDIR/#" \
        examples/openresty/nginx.conf
  } >"$PREFIX/conf/nginx.conf"
}

# Starts nginx in the foreground of a background job; 0 once it answers.
start_nginx() {
  local i code
  nginx -p "$PREFIX" -c "$PREFIX/conf/nginx.conf" -e logs/error.log -g "daemon off;" \
    >"$PREFIX/logs/stdout.log" 2>&1 &
  master=$!
  for i in $(seq 100); do
    kill -0 "$master" 2>/dev/null || { wait "$master" 2>/dev/null; master=""; return 1; }
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/path" 2>/dev/null)
    [ "$code" = 400 ] && return 0
    sleep 0.1
  done
  return 1
}

rm -rf "$PREFIX"
mkdir -p "$PREFIX/conf" "$PREFIX/logs" "$PREFIX/temp"
started=1
for attempt in 1 2 3 4 5; do
  port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  write_conf "$port"
  if start_nginx; then started=0; break; fi
  stop_nginx
  grep -q "Address already in use" "$PREFIX/logs/error.log" "$PREFIX/logs/stdout.log" 2>/dev/null || break
done
say $started "nginx starts on 127.0.0.1:$port (master pid ${master:-none}), init_by_lua builds and shares the mesh" \
  "$(tail -5 "$PREFIX/logs/error.log" "$PREFIX/logs/stdout.log" 2>/dev/null)"
[ $started -eq 0 ] || finish
workers=$(ps -o pid= --ppid "$master" | tr -d ' ' | tr '\n' ' ')

# get PATH: sets code, body, wpid (X-Worker-Pid)
get() {
  local out
  out=$(curl -s -D "$PREFIX/headers" -w '\n%{http_code}' "http://127.0.0.1:$port$1")
  code=${out##*$'\n'}
  body=${out%$'\n'*}
  body=${body%$'\n'} # ngx.say's newline
  wpid=$(tr -d '\r' <"$PREFIX/headers" | sed -n 's/^X-Worker-Pid: //p')
}

# ---- known paths, in the worker and in a worker thread ----
first_pid=""
while IFS=$'\t' read -r qs want_code want_body; do
  for loc in path thread-path; do
    get "/$loc?$qs"
    [ "$loc" = path ] && [ -z "$first_pid" ] && first_pid=$wpid
    [ "$code" = "$want_code" ] && [ "$body" = "$want_body" ]
    say $? "/$loc?${qs:0:40}...: $code, same JSON as plain luajit" \
      "got $code ${body:0:200}"$'\n'"want $want_code ${want_body:0:200}"
  done
done <<<"$expect"

# ---- a worker's tile cache (docs/tilecache.md): door shut, open, shut ----
doors=""
for door in shut open shut; do
  doors=${doors:+$doors,}$door
  get "/debug/cache-export?door=$door"
  printf '%s' "$body" >"$PREFIX/cache-export.json"
  same=$(luajit spec/hosts/nginx_expect.lua cache "$doors" "$PREFIX/cache-export.json" 2>&1)
  nobs=$(grep -o '"kind"' <<<"$body" | wc -l)
  [ "$code" = 200 ] && [ "$same" = same ] && [ "$nobs" = "$([ $door = shut ] && echo 2 || echo 1)" ]
  say $? "/debug/cache-export?door=$door: 200, $nobs obstacle(s), the export plain luajit makes" \
    "got $code ${body:0:200}: $same"
done
get "/debug/cache-export?door=ajar"
[ "$code" = 400 ]
say $? "/debug/cache-export?door=ajar: 400" "got $code $body"

# ---- bad parameters: 400 with a message, the same worker keeps serving ----
good=$(head -1 <<<"$expect")
good_qs=${good%%$'\t'*}
good_body=${good##*$'\t'}
bad() { # bad QUERY EXPECTED-MESSAGE
  local loc
  for loc in path thread-path; do
    get "/$loc?$1"
    [ "$code" = 400 ] && [ "$body" = "{\"error\":\"$2\"}" ]
    say $? "/$loc?$1: 400 $2" "got $code $body"
  done
}
bad "sx=1&sy=2" "sz: missing"
bad "sx=abc&sy=0&sz=0&ex=1&ey=0&ez=1" "sx: finite number expected"
bad "sx=1e999&sy=0&sz=0&ex=1&ey=0&ez=1" "sx: finite number expected"
bad "sx=nan&sy=0&sz=0&ex=1&ey=0&ez=1" "sx: finite number expected"
bad "sx=1&sy=0&sz=0&ex=1&ey=0&ez=1&ez=2" "ez: one value expected"
bad "sx&sy=0&sz=0&ex=1&ey=0&ez=1" "sx: one value expected"
get "/path?$good_qs"
[ "$code" = 200 ] && [ "$body" = "$good_body" ] && [ -n "$wpid" ] && [ "$wpid" = "$first_pid" ]
say $? "after the bad requests worker $first_pid still serves the known path" "got $code from worker $wpid: ${body:0:120}"

errs=$(grep -E '\[(alert|crit|emerg)\]|exited on signal|lua entry thread aborted' "$PREFIX/logs/error.log")
[ -z "$errs" ]
say $? "error.log has no alerts, crashes or aborted Lua threads" "$errs"

# ---- stop by pid; nothing may survive ----
pidfile=$(cat "$PREFIX/logs/nginx.pid" 2>/dev/null)
[ "$pidfile" = "$master" ]
say $? "logs/nginx.pid under build/ names the master ($pidfile)"
m=$master
stop_nginx
alive=""
for p in $m $workers; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
[ -z "$alive" ]
say $? "nginx stopped by its pid $m; no master or worker ($workers) survives" "alive:$alive"
finish
