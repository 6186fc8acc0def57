#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the flocking benchmark
# at 1,000, 10,000 and 100,000 vehicles.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
for n in 1000 10000 100000; do
  ./build/bench/steer-bench "$n"
  echo
done
