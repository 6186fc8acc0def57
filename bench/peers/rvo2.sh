#!/usr/bin/env bash
# Steer against RVO2 on two scenes, in one run: RVO2's own Circle (bench/circle_layout.h,
# `steer-bench --circle N` against rvo2_circle.cpp, each until every agent is home) and
# Steer's crowd layout (bench/crowd_layout.h, `steer-bench --crowd N` against
# rvo2_crowd.cpp). Rounds interleave the two systems and alternate which goes first;
# the table holds medians over the rounds. One thread each.
#
#   bench/peers/rvo2.sh --rvo2 RVO2_GIT_DIR [--rounds R] [--circle "250 2500 25000"]
#                       [--crowd "10000 100000"] [--ticks T] [--bench PATH]
#
# RVO2_GIT_DIR: a git directory of https://github.com/snape/RVO2 (the search tool's
# `fetch github:snape/RVO2` gives one); it is built at PIN, from its sources, into
# $PEERS_WORK (default /tmp/steer-peers). --bench: the steer-bench to time (default
# build/bench/steer-bench, a Release or RelWithDebInfo build).
set -euo pipefail
PIN=1c25b27258d191e26c2df83ff6e31abc8efbdaed
here=$(cd "$(dirname "$0")" && pwd)
rvo2= rounds=3 circle="250 2500 25000" crowd="10000 100000" ticks=10
bench=build/bench/steer-bench
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; }
while [ $# -gt 0 ]; do
	case $1 in
	--rvo2 | --rounds | --circle | --crowd | --ticks | --bench)
		[ $# -ge 2 ] || { echo "rvo2.sh: $1 needs a value" >&2; exit 2; } ;;
	-h | --help) usage; exit 0 ;;
	*) echo "rvo2.sh: unknown option '$1'" >&2; usage; exit 2 ;;
	esac
	case $1 in
	--rvo2) rvo2=$2 ;;
	--rounds) rounds=$2 ;;
	--circle) circle=$2 ;;
	--crowd) crowd=$2 ;;
	--ticks) ticks=$2 ;;
	--bench) bench=$2 ;;
	esac
	shift 2
done
[ -n "$rvo2" ] || { echo "rvo2.sh: give --rvo2 RVO2_GIT_DIR" >&2; exit 2; }
[ -x "$bench" ] || { echo "rvo2.sh: no steer-bench at $bench: build it first" >&2; exit 2; }
work=${PEERS_WORK:-/tmp/steer-peers}
mkdir -p "$work"
if [ ! -x "$work/rvo2_circle" ] || [ ! -x "$work/rvo2_crowd" ] ||
	[ "$here/rvo2_circle.cpp" -nt "$work/rvo2_circle" ] ||
	[ "$here/rvo2_crowd.cpp" -nt "$work/rvo2_crowd" ]; then
	rm -rf "$work/RVO2"
	git clone -q "$rvo2" "$work/RVO2"
	git -C "$work/RVO2" checkout -q "$PIN"
	flags="-O3 -DNDEBUG -flto -std=c++11 -DRVO_STATIC_DEFINE -I$work/RVO2/src -I$here/.."
	(
		cd "$work"
		for f in Agent KdTree Line Obstacle RVOSimulator Vector2; do
			g++ $flags -c "RVO2/src/$f.cc" -o "rvo2_$f.o"
		done
		for d in rvo2_circle rvo2_crowd; do
			g++ $flags -o "$d" "$here/$d.cpp" rvo2_*.o
		done
	)
fi
out=$work/results-$(date +%Y%m%d-%H%M%S).txt
: >"$out"
run() { # system scene n
	local line
	case $1-$2 in
	steer-circle) line=$("$bench" --circle "$3" | grep '^RESULT') ;;
	rvo2-circle) line=$("$work/rvo2_circle" "$3" | grep '^RESULT') ;;
	steer-crowd) line=$("$bench" --crowd "$3" --ticks "$ticks" | grep '^RESULT') ;;
	rvo2-crowd) line=$("$work/rvo2_crowd" "$3" --ticks "$ticks" | grep '^RESULT') ;;
	esac
	echo "$line" | tee -a "$out" >&2
}
for r in $(seq 1 "$rounds"); do
	order="steer rvo2"
	[ $((r % 2)) -eq 0 ] && order="rvo2 steer"
	for n in $circle; do for s in $order; do run "$s" circle "$n"; done; done
	for n in $crowd; do for s in $order; do run "$s" crowd "$n"; done; done
done
python3 - "$out" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    rows.setdefault((f["system"], int(f["n"])), []).append(f)
def med(system, n, key):
    return st.median(float(f[key]) for f in rows[(system, n)])
print("\nRVO2's Circle, until every agent is home; medians over the rounds")
print("| agents | Steer us per agent-tick (CPU) | RVO2 | RVO2 / Steer | ticks until all home, Steer / RVO2 | not home | overlapping pairs seen (every 4th tick), Steer / RVO2 | deepest, Steer / RVO2 |")
print("|---|---|---|---|---|---|---|---|")
for n in sorted({n for s, n in rows if s == "steer-circle"}):
    s, r = med("steer-circle", n, "cpu_us_agent_tick"), med("rvo2-circle", n, "cpu_us_agent_tick")
    print(f"| {n:,} | {s:.3f} | {r:.3f} | {r / s:.2f}x | {med('steer-circle', n, 'ticks'):,.0f} / {med('rvo2-circle', n, 'ticks'):,.0f} "
          f"| {med('steer-circle', n, 'not_home'):.0f} / {med('rvo2-circle', n, 'not_home'):.0f} "
          f"| {med('steer-circle', n, 'overlap_pairs'):,.0f} / {med('rvo2-circle', n, 'overlap_pairs'):,.0f} "
          f"| {med('steer-circle', n, 'deepest'):.3f} / {med('rvo2-circle', n, 'deepest'):.3f} |")
print("\nThe crowd layout; medians over the rounds")
print("| agents | Steer us per agent-tick (CPU) | RVO2 | RVO2 / Steer |")
print("|---|---|---|---|")
for n in sorted({n for s, n in rows if s == "steer-crowd"}):
    s, r = med("steer-crowd", n, "cpu_ms") * 1e3 / n, med("rvo2-crowd", n, "cpu_ms") * 1e3 / n
    print(f"| {n:,} | {s:.3f} | {r:.3f} | {r / s:.2f}x |")
print(f"\nraw lines: {sys.argv[1]}")
PY
