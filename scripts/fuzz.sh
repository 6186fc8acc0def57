#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang in build-fuzz and runs each for
# SECONDS (default 10) on a scratch copy of its seeds and saved regressions; the
# committed corpus is never modified. Prints each target's executions, and exits
# non-zero when any target crashed, leaked, hung or broke an invariant, naming the
# input that did it. tests/fuzz/README.md has more.
#
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-10}
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]   (seconds per target, default 10)" >&2
  exit 2
fi

./scripts/deps.sh
# clang and its runtimes (libFuzzer, ASan, UBSan), installed as deps.sh installs.
packages=(clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi

targets=(framer client_message text_command savefile utf8 journal web)
# The longest input worth trying: a whole ClientMessage frame (20000 bytes) for the
# message targets, a few 4096-byte lines for the text port, a flock's save file.
declare -A max_len=([framer]=24576 [client_message]=20000 [text_command]=16384
                    [savefile]=40960 [utf8]=4096 [journal]=16384 [web]=65536)
# Words of the grammar or the file format, which random mutation rarely spells.
declare -A dict=([client_message]=tests/fuzz/text.dict [text_command]=tests/fuzz/text.dict
                 [savefile]=tests/fuzz/savefile.dict)

build="build-fuzz"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBUILD_TESTING=ON -DSTEER_FUZZ=ON >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}" >/dev/null

work=$build/fuzz-runs
failed=()
for t in "${targets[@]}"; do
  corpus=$work/$t/corpus
  artifacts=$work/$t/artifacts
  log=$work/$t/log.txt
  rm -rf "${work:?}/$t"
  mkdir -p "$corpus" "$artifacts"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  if [ -d tests/fuzz/regressions/"$t" ]; then
    cp tests/fuzz/regressions/"$t"/* "$corpus"/ 2>/dev/null || true
  fi
  opts=(-max_total_time="$seconds" -max_len="${max_len[$t]}" -timeout=30 -rss_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="$artifacts/")
  if [ -n "${dict[$t]:-}" ]; then
    opts+=(-dict="${dict[$t]}")
  fi
  set +e
  "$build/tests/fuzz/fuzz_$t" "$corpus" "${opts[@]}" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  if [ "$rc" -eq 0 ]; then
    printf 'fuzz_%-15s ok     %10s executions, %6s/s\n' "$t" "${runs:-?}" "${rate:-?}"
    continue
  fi
  failed+=("$t")
  printf 'fuzz_%-15s FAILED (exit %d) after %s executions; the end of %s:\n' "$t" "$rc" \
    "${runs:-?}" "$log"
  grep -v '^#[0-9]' "$log" | tail -n 40 | sed 's/^/    /'
  for a in "$artifacts"/*; do
    [ -e "$a" ] && echo "    failing input: $a   (replay: $build/tests/fuzz/fuzz_$t $a)"
  done
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: every target ran ${seconds}s without a failure"
