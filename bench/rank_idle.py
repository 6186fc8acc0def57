#!/usr/bin/env python3
"""What the ranks of `mpirun -np N steer-server` cost the machine: a flock of V boids
ticking at 60 Hz, then the same world paused. Prints, per run and as medians, rank
0's tick p50, the ticks run and dropped in --seconds, and each rank's CPU share (% of
one core, from /proc) while ticking and while paused. Given several --server builds,
runs them in turn, round after round (a baseline against the current build).

usage: bench/rank_idle.py [--server PATH]... [--ranks N] [--vehicles V] [--rounds R]
                          [--seconds S]
Needs mpirun allowed to run (as root: OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1). A benchmark: prints, asserts nothing."""
import argparse
import os
import signal
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
sys.path.insert(0, os.path.join(HERE, "..", "build", "tests", "pygen"))
import steertest  # noqa: E402
from steertest import rank_pid  # noqa: E402


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        x = f.read().rsplit(")", 1)[1].split()
    return (int(x[11]) + int(x[12])) / os.sysconf("SC_CLK_TCK")


def shares(pids, seconds):
    before = [cpu_s(p) for p in pids]
    time.sleep(seconds)
    return [round((cpu_s(p) - b) / seconds * 100) for p, b in zip(pids, before)]


def run(a, server):
    steertest.SERVER = server
    srv = steertest.Server("--no-journal",
                           launcher=["mpirun", "--oversubscribe", "-np", str(a.ranks)])
    try:
        c = srv.text()
        c.ok(f"spawn flock {a.vehicles} 500 300 250")
        time.sleep(2)
        pids = [rank_pid(srv.proc.pid, k) for k in range(a.ranks)]
        t0 = c.ok("stats")["tick"]
        ticking = shares(pids, a.seconds)
        st = c.ok("stats")
        c.ok("pause")
        time.sleep(1)
        paused = shares(pids, a.seconds / 2)
    finally:
        if srv.proc.poll() is None:
            os.kill(rank_pid(srv.proc.pid, 0), signal.SIGTERM)
            srv.proc.wait(30)
        srv.stop()
    return {"tick_ms_p50": st["tick_ms_p50"], "ticks": st["tick"] - t0,
            "dropped": st["ticks_dropped"], "cpu_ticking": ticking, "cpu_paused": paused}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", action="append")
    ap.add_argument("--ranks", type=int, default=3)
    ap.add_argument("--vehicles", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8)
    a = ap.parse_args()
    servers = a.server or [os.path.join(HERE, "..", "build", "server", "steer-server")]
    runs = {s: [] for s in servers}
    for r in range(a.rounds):
        for s in servers:
            got = run(a, s)
            runs[s].append(got)
            print(f"round {r + 1} {s}: {got}", flush=True)
    for s, got in runs.items():
        med = {k: statistics.median(x[k] for x in got) for k in ("tick_ms_p50", "ticks")}
        cols = {k: [statistics.median(x[k][i] for x in got) for i in range(a.ranks)]
                for k in ("cpu_ticking", "cpu_paused")}
        print(f"median {s}: {med} {cols}")


if __name__ == "__main__":
    main()
