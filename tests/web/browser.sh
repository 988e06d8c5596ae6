#!/bin/bash
# One headless Chromium for all the browser tests of a ctest run (starting one costs seconds):
# Debian's chromedriver on a free loopback port with one WebDriver session, described in DIR.
#   browser.sh start DIR   starts chromedriver and the session; writes DIR/session ("PORT SESSION")
#   browser.sh stop DIR    ends the session and chromedriver (by its pid file)
# The tests (src/kforge/web/web_test_util.h) use the session while its driver answers, clear its
# cookies and blank its page before each test; a test binary run alone starts a browser of its own.
# Without Chromium or chromedriver this starts nothing and succeeds: the tests then skip, saying why.
set -euo pipefail

die() { echo "browser.sh: $*" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local dir=$1
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    echo "browser.sh: chromium or chromedriver missing: the browser tests skip"
    return 0
  fi
  stop "$dir" 2>/dev/null || true
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  rm -rf "$dir/chromium" "$dir/session"
  local port; port=$(free_port)
  setsid /usr/bin/chromedriver --port="$port" >"$dir/chromedriver.log" 2>&1 </dev/null &
  echo $! >"$dir/chromedriver.pid"
  local up=
  for _ in $(seq 100); do
    if curl -s --max-time 2 "http://127.0.0.1:$port/status" | grep -q '"ready": *true'; then
      up=1
      break
    fi
    sleep 0.1
  done
  [ -n "$up" ] || die "chromedriver did not answer on port $port: $(cat "$dir/chromedriver.log")"
  # The options the tests' own browser takes (web_test_util.h), with a profile in DIR.
  local caps
  caps=$(printf '{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"binary":"/usr/bin/chromium","args":["--headless=new","--no-sandbox","--disable-gpu","--disable-dev-shm-usage","--window-size=1400,1000","--user-data-dir=%s/chromium"]}}}}' "$dir")
  local answer
  answer=$(curl -s --max-time 120 -H 'Content-Type: application/json' -d "$caps" \
    "http://127.0.0.1:$port/session")
  local session
  session=$(printf '%s' "$answer" | python3 -c 'import json, sys; print(json.load(sys.stdin)["value"].get("sessionId", ""))' 2>/dev/null || true)
  [ -n "$session" ] || die "chromedriver did not start a session: $answer"
  echo "$port $session" >"$dir/session.tmp"
  mv "$dir/session.tmp" "$dir/session"
  echo "browser.sh: session $session on port $port"
}

stop() {
  local dir=$1
  if [ -f "$dir/session" ]; then
    read -r port session <"$dir/session"
    curl -s --max-time 20 -X DELETE "http://127.0.0.1:$port/session/$session" >/dev/null || true
    rm -f "$dir/session"
  fi
  if [ -f "$dir/chromedriver.pid" ]; then
    local pid; pid=$(cat "$dir/chromedriver.pid")
    # Its own process group (setsid): chromedriver and any browser it left.
    kill -- "-$pid" 2>/dev/null || true
    rm -f "$dir/chromedriver.pid"
  fi
}

case "${1:-}" in
  start) [ $# -eq 2 ] || die "usage: browser.sh start DIR"; start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: browser.sh stop DIR"; stop "$2" ;;
  *) die "usage: browser.sh start|stop DIR" ;;
esac
