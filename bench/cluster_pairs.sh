#!/bin/sh
# One world on one process against the same world over several MPI ranks, run as
# separate jobs interleaved round by round (one rank's plain tick cannot share a
# process with a cluster's), then the medians over rounds of each configuration.
#
#   bench/cluster_pairs.sh [--bench PATH] [--world flock|crowd] [--n N] [--ticks T]
#                          [--warmup W] [--np "2 4"] [--btl "sm tcp"] [--rounds R]
#                          [--out DIR] [-- more steer-cluster-bench arguments]
#
# sm: Open MPI's shared-memory transport (vader, without the single-copy mechanism
# that needs ptrace rights a container may lack, as tests/cluster does); tcp: --mca
# btl self,tcp over the loopback. Every run's full output is kept in DIR.
set -eu

bench=build/bench/steer-cluster-bench
world=flock n=1000000 ticks=20 warmup=5 nps="2 4" btls="sm tcp" rounds=3 out=""
while [ $# -gt 0 ]; do
	case $1 in
	--bench) bench=$2; shift 2 ;;
	--world) world=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--ticks) ticks=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--np) nps=$2; shift 2 ;;
	--btl) btls=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "cluster_pairs.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
extra="$*" # passed on word by word
[ -x "$bench" ] || { echo "cluster_pairs.sh: no $bench (build it, or give --bench)" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/cluster-pairs.XXXXXX)
mkdir -p "$out"

# Open MPI in a container, possibly as root, more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_oob_tcp_if_include=lo

run() { # run NP BTL ROUND
	log="$out/$world-np$1-$2-r$3.txt"
	case $2 in
	sm) env OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
		mpirun --oversubscribe -np "$1" "$bench" --world "$world" --n "$n" \
		--ticks "$ticks" --warmup "$warmup" $extra >"$log" 2>&1 ;;
	tcp) env OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo \
		mpirun --oversubscribe -np "$1" "$bench" --world "$world" --n "$n" \
		--ticks "$ticks" --warmup "$warmup" $extra >"$log" 2>&1 ;;
	esac || { echo "cluster_pairs.sh: failed, see $log" >&2; tail -5 "$log" >&2; exit 1; }
	grep '^RESULT' "$log" | sed "s/^RESULT/RESULT btl=$2/" >>"$out/results.txt"
	echo "round $3: np $1 $2: $(grep -o 'tick_ms=[0-9.]*' "$log")"
}

: >"$out/results.txt"
r=1
while [ "$r" -le "$rounds" ]; do
	run 1 sm "$r"
	for np in $nps; do
		for b in $btls; do
			run "$np" "$b" "$r"
		done
	done
	r=$((r + 1))
done

echo "medians over $rounds rounds ($world, N=$n, $ticks ticks after $warmup; logs in $out):"
python3 - "$out/results.txt" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    key = (int(f["np"]), f["btl"] if f["np"] != "1" else "-")
    rows.setdefault(key, []).append(f)
cols = ["tick_ms", "step_max_ms", "exch_max_ms", "balance", "halo", "bytes_per_tick", "MBps60"]
print("np  btl  " + "  ".join(f"{c:>14}" for c in cols) + "  vs np 1")
base = statistics.median(float(f["tick_ms"]) for f in rows.get((1, "-"), [{"tick_ms": "nan"}]))
for key in sorted(rows):
    med = [statistics.median(float(f[c]) for f in rows[key]) for c in cols]
    print(f"{key[0]:<3} {key[1]:<4} " + "  ".join(f"{m:14.3f}" for m in med) +
          f"  {med[0] / base:6.2f}x")
EOF
