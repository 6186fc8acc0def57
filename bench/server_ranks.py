#!/usr/bin/env python3
"""steer-server on one process against `mpirun -np N steer-server`, interleaved: a
flock of V boids (solid off) in a world W x H, one compact client watching the
whole world as the TUI does (drawn as density cells), the world ticking at --rate
for --seconds. Prints, per run and as medians over rounds, the server's tick p50
and snapshot encoding p50 (its own stats), the ticks it ran and dropped, and over
ranks the slowest rank's step, the slowest exchange, the halo, the balance and the
vehicles the last snapshot tick gathered on rank 0.

usage: bench/server_ranks.py [--server PATH] [--ranks N] [--vehicles V] [--rounds R]
                             [--seconds S] [--rate HZ]
Needs the build's steer_pb2 on PYTHONPATH (build/tests/pygen) and mpirun allowed to
run (as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1). A
benchmark: prints, asserts nothing."""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
import steer_pb2  # noqa: E402
import steertest  # noqa: E402


def run(a, launcher):
    srv = steertest.Server("--world", "6000x4000", "--max-vehicles", str(a.vehicles + 10),
                           "--no-journal", "--tick-rate", str(a.rate), launcher=launcher)
    try:
        c = srv.text()
        c.ok("world solid off")
        c.ok(f"spawn flock {a.vehicles} 3000 2000 1900")
        p = srv.proto()
        m = steer_pb2.ClientMessage()
        v = m.viewport
        v.x0, v.y0, v.x1, v.y1 = 0, 0, 6000, 4000
        v.compact, v.cols, v.rows, v.density = True, 160, 48, steer_pb2.DENSITY_AUTO
        p.send(m)
        t0 = c.ok("stats")["tick"]
        time.sleep(a.seconds)
        st = c.ok("stats")
        p.close()
    finally:
        srv.stop()
    out = {"tick_ms_p50": st["tick_ms_p50"], "encode_ms_p50": st["snapshot_encode_ms_p50"],
           "ticks": st["tick"] - t0, "dropped": st["ticks_dropped"]}
    if "ranks" in st:
        figs = st["rank_figures"]
        out.update(slowest_step_ms=max(r["tick_ms"] for r in figs),
                   slowest_exchange_ms=max(r["exchange_ms"] for r in figs),
                   halo=sum(r["halo"] for r in figs), balance=st["rank_balance"],
                   gathered=st["snapshot_vehicles_gathered"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(HERE, "..", "build", "server", "steer-server"))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--vehicles", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--rate", type=float, default=20)
    a = ap.parse_args()
    steertest.SERVER = a.server
    mpirun = ["mpirun", "--oversubscribe", "-np", str(a.ranks)]
    runs = {"one process": [], f"{a.ranks} ranks": []}
    for r in range(a.rounds):
        for name, launcher in zip(runs, ((), mpirun)):
            got = run(a, launcher)
            runs[name].append(got)
            print(f"round {r + 1} {name}: " +
                  ", ".join(f"{k} {v:.4g}" for k, v in got.items()), flush=True)
    for name, got in runs.items():
        med = {k: statistics.median(x[k] for x in got) for k in got[0]}
        print(f"median {name}: " + ", ".join(f"{k} {v:.4g}" for k, v in med.items()))


if __name__ == "__main__":
    main()
