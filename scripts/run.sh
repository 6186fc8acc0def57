#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts steer-server with the flock
# scenario on free loopback ports, and opens the terminal client on it. Quitting the
# client (q) stops that server. Extra arguments go to steer-server.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null

log=$(mktemp -t steer-server.XXXXXX.log)
ports=$(mktemp -t steer-ports.XXXXXX)
./build/server/steer-server --port 0 --cmd-port 0 --scenario flock "$@" >"$ports" 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -f "$ports"' EXIT

for _ in $(seq 50); do
  grep -q '^listening cmd' "$ports" && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
proto=$(sed -n 's/^listening proto .*:\([0-9]*\)$/\1/p' "$ports")
cmd=$(sed -n 's/^listening cmd .*:\([0-9]*\)$/\1/p' "$ports")
echo "steer-server: proto port $proto, command port $cmd (try: ./build/server/steerctl --port $cmd help); log $log"

if [ -t 0 ] && [ -t 1 ]; then
  ./build/client-tui/steer-tui --port "$proto"
else
  echo "no terminal here: the server runs until Ctrl-C; connect with ./build/client-tui/steer-tui --port $proto"
  wait "$server"
fi
