#!/usr/bin/env bash
# Every benchmark of the README's performance section, in one run: simulation
# (grid against the all-pairs baseline), snapshots, and the server under 100
# watching clients, hostile watchers, long commands, one world over MPI ranks. Figures only; nothing here can fail a build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
for n in 1000 10000 100000; do ./build/bench/steer-bench "$n"; echo; done
./build/bench/steer-bench 10000 --naive; echo
./build/bench/steer-bench 100000 --ticks 600; echo
./build/bench/steer-bench 100000 --ticks 600 --threads 1,2; echo
./build/bench/steer-bench 100000 --ticks 60 --clustered; echo
./build/bench/steer-bench 1000000 --ticks 10; echo
./build/bench/steer-bench 1000000 --ticks 10 --threads 2; echo
./build/bench/steer-snapshot-bench; echo
PYTHONPATH=build/tests/pygen /usr/bin/python3 bench/server_load.py
echo
PYTHONPATH=build/tests/pygen /usr/bin/python3 bench/server_load.py --compact
echo
PYTHONPATH=build/tests/pygen /usr/bin/python3 bench/hostile_watchers.py --seconds 6 --repeat 3
echo
/usr/bin/python3 bench/stall_probe.py
echo
PYTHONPATH=build/tests/pygen /usr/bin/python3 bench/journal_load.py
echo
# One world over MPI ranks (docs/PERFORMANCE.md, "One world over many ranks").
bench/cluster_pairs.sh --world flock --n 1000000 --ticks 20 --warmup 5 --rounds 2
echo
bench/cluster_pairs.sh --world crowd --n 1000000 --ticks 20 --warmup 5 --rounds 2
