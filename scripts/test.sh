#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test twice: an optimised build,
# then a build with AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)

long=OFF; [ "${STEER_LONG_TESTS:-0}" = 1 ] && long=ON  # the opt-in long tests

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEER_LONG_TESTS=$long >/dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs")

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSTEER_SANITIZE=ON -DSTEER_LONG_TESTS=$long >/dev/null
cmake --build build-asan -j "$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs")

# Each fuzz target for a bounded 10 s on its seeds and regressions (clang, libFuzzer).
./scripts/fuzz.sh 10
