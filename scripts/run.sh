#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts steer-server with the flock
# scenario on ports 7700 (protobuf), 7701 (commands) and 7702 (the page for browsers)
# when they are free, else on free ones, and opens the terminal client on it. Quitting the client (q) stops that
# server. Extra arguments go to steer-server. The server's log is kept in the
# per-user state directory ($XDG_STATE_HOME/steer, else ~/.local/state/steer).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh

# STEER_BUILD_DIR: another build tree (the tests use theirs); configured only when new.
build="${STEER_BUILD_DIR:-./build}"
if [ ! -x "$build/server/steer-server" ] || [ ! -x "$build/tui/steer-tui" ]; then
  echo "building (the first run takes a few minutes)..."
fi
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# cmake's progress ([ 40%] Building ...) and any error, not minutes of silence; not
# the lines an up-to-date build prints every time.
if ! cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" \
  --target steer-server steer-tui steerctl 2>&1 |
  { grep --line-buffered -v -e 'Built target' -e '^gmake' || true; }; then
  echo "the build failed (above)" >&2
  exit 1
fi

state="${XDG_STATE_HOME:-}"
[[ "$state" == /* ]] || state="$HOME/.local/state"
state="$state/steer"
mkdir -p "$state"
# This run's log is its own (two runs at once must not truncate each other's); at
# exit it is added to steer-server.log, which keeps about the last megabyte.
log="$state/steer-server.$$.log"
all="$state/steer-server.log"
ports="$state/run-ports.$$"
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -f "$ports"
  if [ -f "$log" ]; then
    if [ "$(stat -c %s "$all" 2>/dev/null || echo 0)" -gt 1048576 ]; then
      mv -f "$all" "$all.1"
    fi
    cat "$log" >>"$all" && rm -f "$log"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts the server on $1/$2 (0: a free port); 0 once it listens on both.
start() {
  : >"$ports"
  "$build/server/steer-server" --port "$1" --cmd-port "$2" --scenario flock "${@:3}" \
    >"$ports" 2>"$log" &
  server=$!
  for _ in $(seq 100); do
    grep -q '^listening cmd' "$ports" && return 0
    kill -0 "$server" 2>/dev/null || { wait "$server" 2>/dev/null || true; server=""; return 1; }
    sleep 0.05
  done
  return 1
}

# A second run beside a first: the ports are taken, and the data directory's journal
# is the first server's (one journalled server to a directory), so this one runs on
# free ports without a journal.
failed() { echo "steer-server failed; its log: $all" >&2; cat "$log" >&2; exit 1; }
if ! start 7700 7701 "$@"; then
  extra=()
  if grep -q 'in use by another steer-server' "$log"; then
    echo "another steer-server journals in $state: this one runs without a journal"
    extra=(--no-journal)
  elif grep -q 'cannot listen' "$log"; then
    echo "ports 7700/7701 are taken: using free ones"
  else
    failed
  fi
  start 0 0 --http 0 "${extra[@]}" "$@" || failed
fi
# The page's line follows the command port's, unless it is off or its port taken.
for _ in $(seq 40); do
  grep -q -e '^listening web' "$ports" || grep -q -e 'no page for browsers' "$log" && break
  sleep 0.05
done
proto=$(sed -n 's/^listening proto .*:\([0-9]*\)$/\1/p' "$ports")
cmd=$(sed -n 's/^listening cmd .*:\([0-9]*\)$/\1/p' "$ports")
web=$(sed -n 's/^listening web \(.*\)$/\1/p' "$ports")
rm -f "$ports"
ctl="$build/steerctl/steerctl"
[ "$cmd" = 7701 ] || ctl="$ctl -p $cmd"
echo "steer-server: protobuf port $proto, command port $cmd (try: $ctl help); log $log (added to $all when it stops)"
if [ -n "$web" ]; then
  echo "in a browser: http://$web/"
else
  echo "no page for browsers: port 7702 is taken (give --http 0 for a free one)"
fi

if [ -t 0 ] && [ -t 1 ]; then
  tui=("$build/tui/steer-tui" --port "$proto" --cmd-port "$cmd")
  rc=0
  "${tui[@]}" || rc=$?
  kill -0 "$server" 2>/dev/null || echo "steer-server had stopped; its log: $all" >&2
  exit "$rc"
else
  echo "no terminal here: the server runs until Ctrl-C; connect with $build/tui/steer-tui --port $proto"
  wait "$server" || echo "steer-server stopped; its log: $all" >&2
fi
