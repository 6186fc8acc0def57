#!/usr/bin/env python3
"""Loop stalls during long commands: builds a paused world of N vehicles (default
1,000,000), then saves it and loads it back, and steps a 10,000-boid flock, while
another client sends `stats` every 10 ms. Prints each command's time and the longest
`stats` round trip seen while it ran (the longest the loop was held).

usage: bench/stall_probe.py [--server PATH] [--vehicles N] [--step-boids N]
                            [--step-ticks N] [--ranks R]
--ranks R runs the server over R MPI ranks (mpirun --oversubscribe -np R; as root,
Open MPI needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1), where
`step` is refused, so only save and load are timed.
Needs tests/server for steertest (found relative to this file). A benchmark: prints,
asserts nothing."""
import argparse
import os
import shutil
import socket
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
# steertest imports steer_pb2; the text port needs none of it.
sys.path.insert(0, os.path.join(HERE, "..", "build", "tests", "pygen"))
import steertest  # noqa: E402


class Pinger(threading.Thread):
    """Sends stats every 10 ms on its own connection; records (sent, round trip)."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=600)
        self.samples = []
        self.stop_flag = False

    def run(self):
        f = self.sock.makefile("rb")
        while not self.stop_flag:
            t0 = time.monotonic()
            self.sock.sendall(b"stats\n")
            f.readline()
            self.samples.append((t0, time.monotonic() - t0))
            time.sleep(0.01)

    def longest(self, t0, t1):
        """The longest round trip of a stats sent between t0 and t1 (or in flight)."""
        rtts = [rtt for sent, rtt in self.samples if sent + rtt >= t0 and sent <= t1]
        return max(rtts) if rtts else float("nan")


def timed(c, pinger, line):
    t0 = time.monotonic()
    reply = c.cmd(line)
    t1 = time.monotonic()
    time.sleep(0.05)  # the pinger's sample in flight at t1 lands
    return t1 - t0, pinger.longest(t0, t1), reply


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(HERE, "..", "build", "server", "steer-server"))
    ap.add_argument("--vehicles", type=int, default=1000000)
    ap.add_argument("--step-boids", type=int, default=10000)
    ap.add_argument("--step-ticks", type=int, default=300)
    ap.add_argument("--ranks", type=int, default=1)
    a = ap.parse_args()
    steertest.SERVER = a.server
    steertest.TIMEOUT = 600.0
    data = tempfile.mkdtemp(prefix="steer-stall-")
    launcher = ["mpirun", "--oversubscribe", "-np", str(a.ranks)] if a.ranks > 1 else []
    srv = steertest.Server("--max-vehicles", str(max(a.vehicles, a.step_boids)), data_dir=data,
                           launcher=launcher)
    try:
        c = srv.text()
        c.ok("pause")
        left = a.vehicles
        while left:
            n = min(left, 100000)
            c.ok(f"spawn flock {n} 2000 2000 2000")
            left -= n
        pinger = Pinger(srv.cmd_port)
        pinger.start()
        time.sleep(0.5)
        idle = max(rtt for _, rtt in pinger.samples)
        print(f"server: {a.server}" + (f" over {a.ranks} ranks" if a.ranks > 1 else ""))
        print(f"world: {a.vehicles} vehicles, paused; stats round trip idle: max "
              f"{idle * 1000:.1f} ms")
        for line in ("save stall_probe", "load stall_probe"):
            took, stall, reply = timed(c, pinger, line)
            print(f"{line.split()[0]:5s} {took:7.2f} s   longest stats round trip "
                  f"{stall * 1000:8.1f} ms   {reply[:60]}")
        if a.ranks == 1:
            c.ok("reset")
            c.ok(f"spawn flock {a.step_boids} 400 300 300")
            took, stall, reply = timed(c, pinger, f"step {a.step_ticks}")
            print(f"step  {took:7.2f} s   longest stats round trip {stall * 1000:8.1f} ms   "
                  f"({a.step_ticks} ticks of {a.step_boids} boids) {reply[:40]}")
        pinger.stop_flag = True
        pinger.join(timeout=600)
    finally:
        srv.stop()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
