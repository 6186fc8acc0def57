#!/usr/bin/env python3
"""Server load benchmark: a 10,000-boid flock, 100 protobuf clients watching at
20 Hz on loopback. Prints the server's tick p50/p99 (its own figures), its CPU use,
the snapshot rate and bytes each client received, and command-to-visible latency:
the time from sending `spawn` to seeing the new vehicle in a snapshot.

usage: bench/server_load.py [--server PATH] [--clients N] [--vehicles N] [--seconds S]
                            [--compact]
Needs the build's steer_pb2 on PYTHONPATH (build/tests/pygen) and tests/server for
steertest; run it via scripts/bench.sh, which sets both. A benchmark: prints, asserts
nothing."""
import argparse
import os
import selectors
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
import steer_pb2  # noqa: E402
import steertest  # noqa: E402


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(HERE, "..", "build", "server", "steer-server"))
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--vehicles", type=int, default=10000)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--compact", action="store_true",
                    help="clients ask for compact snapshots of a 200x50-cell view")
    a = ap.parse_args()
    steertest.SERVER = a.server
    # World sized for ~10 neighbours per boid, as in steer-bench.
    side = int((a.vehicles * 3.14159 * 100 * 100 / 10) ** 0.5)
    srv = steertest.Server("--world", f"{side}x{side}", "--snapshot-rate", "20",
                           "--max-clients", str(a.clients + 10))
    ctl = srv.text()
    ctl.ok(f"spawn flock {a.vehicles} {side / 2} {side / 2} {side * 0.7}")
    sel = selectors.DefaultSelector()
    clients = []
    for _ in range(a.clients):
        s = socket.create_connection(("127.0.0.1", srv.proto_port))
        s.setblocking(False)
        if a.compact:
            m = steer_pb2.ClientMessage()
            m.viewport.x0, m.viewport.y0 = side * 0.4, side * 0.45
            m.viewport.x1, m.viewport.y1 = side * 0.6, side * 0.55
            m.viewport.compact, m.viewport.cols, m.viewport.rows = True, 200, 50
            d = m.SerializeToString()
            s.sendall(steertest.varint(len(d)) + d)
        c = {"sock": s, "buf": b"", "frames": 0, "bytes": 0}
        clients.append(c)
        sel.register(s, selectors.EVENT_READ, c)
    time.sleep(1.0)
    s0 = ctl.ok("stats")
    cpu0, t0 = cpu_seconds(srv.proc.pid), time.time()
    for c in clients:
        c["frames"] = c["bytes"] = 0
    while time.time() - t0 < a.seconds:
        for key, _ in sel.select(timeout=0.1):
            c = key.data
            chunk = c["sock"].recv(1 << 20)
            c["bytes"] += len(chunk)
            frames, c["buf"] = steertest.split_frames(c["buf"] + chunk)
            c["frames"] += len(frames)
    elapsed = time.time() - t0
    cpu = (cpu_seconds(srv.proc.pid) - cpu0) / elapsed
    s1 = ctl.ok("stats")
    rates = [c["frames"] / elapsed for c in clients]
    kbps = [c["bytes"] / elapsed / 1024 for c in clients]
    for c in clients:
        sel.unregister(c["sock"])
        c["sock"].close()

    # Command-to-visible: spawn from one client, wait for it in a watcher's stream.
    watcher = srv.proto()
    lat = []
    for k in range(20):
        watcher.fresh_snapshot()
        t = time.time()
        vid = int(ctl.ok(f"spawn {side / 2 + k} {side / 2}")["id"])
        while vid not in watcher.snapshot().id:
            pass
        lat.append((time.time() - t) * 1000)
    code, _ = srv.stop()

    print(f"workload: {a.vehicles} flocking vehicles (wrap world {side} x {side}), "
          f"{a.clients} {'compact' if a.compact else 'plain'} clients, 20 Hz snapshots, "
          f"60 Hz ticks, {elapsed:.1f} s")
    print(f"server tick: p50 {s1['tick_ms_p50']:.3f} ms, p99 {s1['tick_ms_p99']:.3f} ms; "
          f"ticks dropped {s1['ticks_dropped'] - s0['ticks_dropped']}; "
          f"CPU {cpu * 100:.0f}% of one core")
    print(f"per client: {statistics.mean(rates):.1f} snapshots/s (min {min(rates):.1f}), "
          f"{statistics.mean(kbps):.0f} KiB/s; encodings "
          f"{s1['snapshots_encoded'] - s0['snapshots_encoded']} for "
          f"{sum(c['frames'] for c in clients)} snapshots delivered")
    print(f"command to visible: median {statistics.median(lat):.1f} ms, "
          f"max {max(lat):.1f} ms over {len(lat)} spawns (snapshot period 50 ms)")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
