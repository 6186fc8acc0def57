#!/usr/bin/env bash
# The 16-core checks of the crowd and ranks work in one run, for a lent machine whose
# time is short (docs/PERFORMANCE.md names what each figure answers):
# - threads: steer-bench's 1,000,000-boid flock, the 200,000 crowd and the 25,000
#   Circle at 1 to 16 threads, each list on one start, with the same-bits column;
# - ranks: steer-cluster-bench's 4,000,000 flock at 1, 2, 4, 8 and 16 ranks (the
#   end state hashed at 1 and 16), 8 ranks x 2 threads, 16 ranks bound to cores, and
#   16,000,000 and 64,000,000 boids over 16 ranks with each rank's peak memory;
# - time in MPI: the 4,000,000 flock over 16 ranks with bench/mpi_calls.c preloaded,
#   at two tick counts, so that the difference is a measured tick's: how much of
#   the exchange is waiting for messages and for the slowest rank.
#
#   bench/device16.sh [--small] [--budget SECONDS] [--out DIR]
#
# On the lent machine: ../shared/device/bundle.sh here, carry .devbundle, and there
# `source .devbundle/setup.sh && bench/device16.sh --out "$OUT"`. --small runs the same
# steps at a hundredth of the sizes and at most 4 ranks, to try the script on a
# 2-core machine in seconds. The MPI time step needs build/bench/libsteer-mpi-calls.so
# (there: copy it into .devbundle/lib after bundle.sh); without it, it is skipped. A step that would start past the budget
# (default 480 s) is skipped and said so, so the run ends inside one 600-second call.
# Every step's whole output is kept in DIR; summary.txt holds the lines that matter.
set -uo pipefail
small=0 budget=480 out=
while [ $# -gt 0 ]; do
	case "$1" in
	--small) small=1 ;;
	--budget) budget=$2 && shift ;;
	--out) out=$2 && shift ;;
	*) echo "usage: bench/device16.sh [--small] [--budget SECONDS] [--out DIR]" >&2 && exit 2 ;;
	esac
	shift
done
top=$(cd "$(dirname "$0")/.." && pwd)
out=${out:-$(mktemp -d /tmp/steer-device16.XXXXXX)}
mkdir -p "$out"
bin() { command -v "$1" 2>/dev/null || echo "$top/build/bench/$1"; }
bench=$(bin steer-bench) cluster=$(bin steer-cluster-bench)
for b in "$bench" "$cluster"; do
	[ -x "$b" ] || { echo "device16: $b is not built (cmake --build build)" >&2 && exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$small" = 1 ]; then
	div=100 threads=1,2 ranks="1 2 4" wide=4
else
	div=1 threads=1,2,4,8,16 ranks="1 2 4 8 16" wide=16
fi
start=$SECONDS
summary="$out/summary.txt"
{
	echo "device16 $(date -u +%FT%TZ) on $(hostname): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
	echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown); sizes divided by $div"
} >"$summary"

# step NAME COMMAND...: runs it into NAME.txt unless the budget is spent; its
# RESULT, MEMORY, scaling and state lines go to the summary.
step() {
	local name=$1
	shift
	local t0=$SECONDS
	if [ $((t0 - start)) -ge "$budget" ]; then
		echo "== $name: skipped (the budget of $budget s is spent)" | tee -a "$summary"
		return
	fi
	"$@" >"$out/$name.txt" 2>&1
	local rc=$?
	{
		echo "== $name ($((SECONDS - t0)) s, exit $rc): $*"
		grep -E '^(RESULT|MEMORY|MPI_TIME|state|circle:)|speedup|^ *[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x' "$out/$name.txt"
	} | tee -a "$summary"
}

n() { echo $(($1 / div)); }
step threads-flock "$bench" "$(n 1000000)" --ticks 10 --threads "$threads"
step threads-crowd "$bench" --crowd "$(n 200000)" --ticks 10 --threads "$threads"
step threads-circle "$bench" --circle "$(n 25000)" --threads "$threads"
for r in $ranks; do
	hash=--no-hash
	[ "$r" = 1 ] || [ "$r" = "$wide" ] && hash=
	step "ranks-$r" mpirun -np "$r" "$cluster" --n "$(n 4000000)" --ticks 20 --warmup 5 $hash
done
step "ranks-$((wide / 2))x2" mpirun -np "$((wide / 2))" "$cluster" --n "$(n 4000000)" --ticks 20 \
	--warmup 5 --threads 2
step "ranks-$wide-bound" mpirun -np "$wide" --bind-to core:overload-allowed --map-by core "$cluster" \
	--n "$(n 4000000)" --ticks 20 --warmup 5 --no-hash
step "ranks-$wide-16M" mpirun -np "$wide" "$cluster" --n "$(n 16000000)" --ticks 5 --warmup 1 --no-hash
step "ranks-$wide-64M" mpirun -np "$wide" "$cluster" --n "$(n 64000000)" --ticks 3 --warmup 1 --no-hash
# mpi_time RANKS: MPI's seconds per measured tick on each rank, from two runs whose
# tick counts differ by 20 (bench/mpi_calls.c's MPI_SECONDS lines).
mpi_time() {
	local shim
	for shim in "$top/build/bench/libsteer-mpi-calls.so" "$top/.devbundle/lib/libsteer-mpi-calls.so" ""; do
		[ -z "$shim" ] || [ -f "$shim" ] && break
	done
	if [ -z "$shim" ]; then
		echo "no libsteer-mpi-calls.so in build/bench or .devbundle/lib"
		return 1
	fi
	local t
	for t in 10 30; do
		echo "-- $t ticks"
		mpirun -np "$1" env LD_PRELOAD="$shim" "$cluster" --n "$(n 4000000)" --ticks $t \
			--warmup 5 --no-hash 2>&1 | grep -E '^(RESULT|MPI_SECONDS)'
	done | awk '
		/^-- / { t = $2 }
		/^RESULT/ { print }
		/^MPI_SECONDS/ {
			split($2, r, "="); for (k = 3; k <= NF; k++) { split($k, f, "="); s[t, r[2], f[1]] = f[2] }
			if (r[2] + 1 > ranks) ranks = r[2] + 1
		}
		END {
			for (q = 0; q < ranks; q++) {
				all = (s[30, q, "all"] - s[10, q, "all"]) / 20 * 1000
				wait = (s[30, q, "Waitall"] - s[10, q, "Waitall"]) / 20 * 1000
				red = (s[30, q, "Allreduce"] - s[10, q, "Allreduce"]) / 20 * 1000
				printf "MPI_TIME rank=%s ms_per_tick=%.2f waitall_ms=%.2f allreduce_ms=%.2f\n", q, all, wait, red
			}
		}'
}
step "mpi-time-$wide" mpi_time "$wide"
states=$(cat "$out"/ranks-*.txt 2>/dev/null | grep -o '^state after [0-9]* ticks: [0-9a-f]*' | sort -u)
if [ "$(echo "$states" | grep -c .)" = 1 ]; then
	echo "== the same world state at every rank count hashed: $states" | tee -a "$summary"
else
	echo "== DIFFERENT world states across rank counts: $states" | tee -a "$summary"
fi
echo "== done in $((SECONDS - start)) s; every step's output is in $out" | tee -a "$summary"
