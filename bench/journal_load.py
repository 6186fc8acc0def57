#!/usr/bin/env python3
"""Journal benchmark: a busy scripted session (a flock of N boids running at 60 Hz,
one client sending a mix of world-changing commands at R a second), run by two
servers in interleaved pairs, one with the journal (--journal-fsync everysec) and
one with --no-journal. Prints, per pair and as medians: the journal's log bytes per
minute (stats journal.bytes), the server's CPU seconds per tick (the loop, the tick's
threads and the journal's writer, from /proc), and the tick's own p50 (stats).

usage: bench/journal_load.py [--server PATH] [--vehicles N] [--rate R] [--seconds S]
                             [--pairs P]
Needs the build's steer_pb2 on PYTHONPATH (build/tests/pygen) and tests/server for
steertest; run it via scripts/bench.sh, which sets both. A benchmark: prints, asserts
nothing."""
import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
import steertest  # noqa: E402


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def commands(rng, n):
    """A mix of what users send: steering, parameters, spawns and removals, obstacles."""
    i = rng.randrange(1, n + 1)
    x, y = rng.uniform(0, 1000), rng.uniform(0, 600)
    return rng.choice([
        f"seek {i} {x:.1f} {y:.1f}",
        f"arrive {i} {x:.1f} {y:.1f}",
        f"set {i} max_speed={rng.uniform(2, 6):.2f}",
        f"wander {i} on",
        f"spawn {x:.1f} {y:.1f} max_speed=3",
        f"obstacle {x:.1f} {y:.1f} 10",
        f"waypoint {i} {x:.1f} {y:.1f}",
    ])


def run(server, journal, vehicles, rate, seconds, seed):
    d = tempfile.mkdtemp(prefix="steer-jbench-")
    args = ["--journal-fsync", "everysec"] if journal else ["--no-journal"]
    srv = steertest.Server(*args, data_dir=d)
    t = srv.text()
    t.ok(f"spawn flock {vehicles} 500 300 250")
    time.sleep(1.0)  # the first checkpoint and the flock settle
    rng = random.Random(seed)
    s0 = t.ok("stats")
    c0 = cpu_seconds(srv.proc.pid)
    j0 = s0.get("journal", {}).get("bytes", 0)
    l0 = s0.get("journal", {}).get("loop_cpu_ms", 0)
    t0 = time.time()
    sent = 0
    while time.time() - t0 < seconds:
        t.ok(commands(rng, vehicles))
        sent += 1
        next_at = t0 + sent / rate
        time.sleep(max(0.0, next_at - time.time()))
    s1 = t.ok("stats")
    c1 = cpu_seconds(srv.proc.pid)
    el = time.time() - t0
    j1 = s1.get("journal", {}).get("bytes", 0)
    l1 = s1.get("journal", {}).get("loop_cpu_ms", 0)
    ticks = s1["tick"] - s0["tick"]
    srv.stop()
    shutil.rmtree(d, ignore_errors=True)
    return {
        "bytes_per_min": (j1 - j0) * 60.0 / el,
        "cpu_per_tick_ms": (c1 - c0) * 1000.0 / max(1, ticks),
        "tick_p50_ms": s1["tick_ms_p50"],
        # The loop thread's CPU time in the journal (records, batches, checkpoint forks)
        # per tick: what the journal adds to the loop's work each tick.
        "journal_loop_ms_per_tick": (l1 - l0) / max(1, ticks),
        "commands": sent,
        "ticks": ticks,
    }


def latency(server, mode, n):
    """Median and p99 time from sending a command that changes the world to its reply,
    with --journal-fsync mode (always holds the reply until the record is synced)."""
    d = tempfile.mkdtemp(prefix="steer-jbench-")
    srv = steertest.Server("--journal-fsync", mode, data_dir=d)
    t = srv.text()
    t.ok("spawn 100 100")
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        t.ok(f"seek 1 {i % 1000} 300")
        times.append((time.perf_counter() - t0) * 1000.0)
    srv.stop()
    shutil.rmtree(d, ignore_errors=True)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(HERE, "..", "build", "server", "steer-server"))
    ap.add_argument("--vehicles", type=int, default=2000)
    ap.add_argument("--rate", type=float, default=20, help="commands a second")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--latency", action="store_true",
                    help="only the reply latency of a command, per --journal-fsync mode")
    a = ap.parse_args()
    steertest.SERVER = a.server
    if a.latency:
        res = {"always": [], "everysec": [], "no": []}
        for p in range(a.pairs):
            for mode in (["always", "everysec", "no"] if p % 2 == 0 else ["no", "everysec", "always"]):
                res[mode].append(latency(a.server, mode, 300))
        for mode, r in res.items():
            print(f"--journal-fsync {mode}: reply to a command median "
                  f"{statistics.median(x[0] for x in r):.3f} ms, p99 "
                  f"{statistics.median(x[1] for x in r):.3f} ms (medians of {len(r)} runs)")
        return
    on, off = [], []
    for p in range(a.pairs):
        # Alternate which goes first, so that a drift in the machine's load falls on
        # both sides.
        order = [True, False] if p % 2 == 0 else [False, True]
        for journal in order:
            r = run(a.server, journal, a.vehicles, a.rate, a.seconds, seed=p)
            (on if journal else off).append(r)
            print(f"pair {p} journal {'on ' if journal else 'off'}: "
                  f"{r['bytes_per_min'] / 1024:.1f} KiB/min, cpu/tick {r['cpu_per_tick_ms']:.3f} ms, "
                  f"tick p50 {r['tick_p50_ms']:.3f} ms, journal on the loop "
                  f"{r['journal_loop_ms_per_tick'] * 1000:.2f} us/tick, {r['commands']} commands, "
                  f"{r['ticks']} ticks", flush=True)
    med = statistics.median
    ratio = [x["cpu_per_tick_ms"] / y["cpu_per_tick_ms"] for x, y in zip(on, off)]
    tratio = [x["tick_p50_ms"] / y["tick_p50_ms"] for x, y in zip(on, off)]
    print(f"median journal bytes/min: {med(x['bytes_per_min'] for x in on) / 1024:.1f} KiB "
          f"({a.vehicles} boids at 60 Hz, {a.rate:g} commands/s)")
    print(f"median cpu/tick on {med(x['cpu_per_tick_ms'] for x in on):.3f} ms, "
          f"off {med(x['cpu_per_tick_ms'] for x in off):.3f} ms, "
          f"median pair ratio on/off {med(ratio):.4f}")
    print(f"median tick p50 on/off ratio {med(tratio):.4f}")
    share = [x["journal_loop_ms_per_tick"] / x["tick_p50_ms"] for x in on]
    print(f"median journal time on the loop: "
          f"{med(x['journal_loop_ms_per_tick'] for x in on) * 1000:.2f} us/tick, "
          f"{med(share) * 100:.3f}% of the tick's p50")


if __name__ == "__main__":
    main()
