#!/usr/bin/env python3
"""Loop stalls under load from clients (issue 34's items 5-9): for each scenario, a
server is set up, attackers start, and a healthy client sends `stats` every 20 ms on
its own connection (with the token where the server has one). Prints, per scenario,
the healthy client's round trip p50 / p99 / max, and the tick rate reached as a share
of the nominal rate (from stats' tick count over the attack).

usage: bench/loop_stall.py [--server PATH] [--seconds S] [--vehicles N] [--connections C]
                          [SCENARIO ...]
scenarios:
- list-token: --connections (20) connections without the token pipelining `list 0 10000` on a world of
  --vehicles boids (20,000 by default); the healthy client has the token;
- list-open: the same, no token anywhere;
- goto-walls: 20 goto vehicles in the maze, a wall added and removed every 50 ms;
- goto-maze: a 5120x5120 maze, 20 connections each keeping 5 `goto`s to far points
  under way;
- goto-each: in that maze, 20 vehicles sent to far points one `goto` after another:
  each reply's round trip (how long the loop is held), and how long until each route
  is there (a plan too big for the command goes on in the ticks);
- goto-burst: in that maze, 20 far `goto`s sent at once: how long until every route
  is there, and the tick's p50/p99 meanwhile;
- walls-big: 100 polygons of 4,096 points, a wall added and removed in a loop, one
  whole-world watcher reading;
- spawn-pile: `spawn flock 50000 500 300 1`;
- rewind-fork: 150,000 vehicles, `rewind 1` and `spawn` in a loop.
Default: all.
Needs the build's steer_pb2 on PYTHONPATH (build/tests/pygen); tests/server is found
relative to this file. A benchmark: prints, asserts nothing."""
import argparse
import math
import os
import socket
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
sys.path.insert(0, os.path.join(HERE, "..", "build", "tests", "pygen"))
import steertest  # noqa: E402

TOKEN = "loop-stall-secret"


class Pinger(threading.Thread):
    """stats every 20 ms on its own connection: the round trips."""

    def __init__(self, port, token=None):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.f = self.sock.makefile("rb")
        if token:
            self.sock.sendall(f"auth {token}\n".encode())
            self.f.readline()
        self.rtts = []
        self.stop_flag = False

    def run(self):
        while not self.stop_flag:
            t0 = time.monotonic()
            try:
                self.sock.sendall(b"stats\n")
                self.f.readline()
            except OSError:
                return
            self.rtts.append(time.monotonic() - t0)
            time.sleep(0.02)


def attack(port, lines, n, depth, token, stop):
    """In its own process (the clients must not steal the healthy client's time): n
    connections each keeping `depth` lines unanswered, replies read in big chunks."""
    import selectors
    sel = selectors.DefaultSelector()
    conns = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        if token:
            s.sendall(f"auth {token}\n".encode())
        s.setblocking(False)
        state = {"sock": s, "k": 0, "out": 0}
        conns.append(state)
        sel.register(s, selectors.EVENT_READ, state)
    for st in conns:
        for _ in range(depth):
            st["sock"].sendall(lines(st["k"]).encode() + b"\n")
            st["k"] += 1
    while not stop.is_set():
        for key, _ in sel.select(0.1):
            st = key.data
            try:
                data = st["sock"].recv(1 << 20)
            except BlockingIOError:
                continue
            except OSError:
                sel.unregister(st["sock"])
                continue
            if not data:
                sel.unregister(st["sock"])
                continue
            for _ in range(data.count(b"\n")):
                try:
                    st["sock"].sendall(lines(st["k"]).encode() + b"\n")
                except OSError:
                    break
                st["k"] += 1


class Attackers:
    def __init__(self, port, lines, n=1, depth=4, token=None):
        import multiprocessing
        self.stop = multiprocessing.Event()
        self.proc = multiprocessing.Process(target=attack,
                                            args=(port, lines, n, depth, token, self.stop))

    def start(self):
        self.proc.start()

    def end(self):
        self.stop.set()
        self.proc.join(30)
        if self.proc.is_alive():
            self.proc.kill()


def list_line(k):
    return "list 0 10000"


def rewind_line(k):
    return "rewind 1" if k % 2 == 0 else "spawn 5 5"


GOTO_IDS = []


def goto_point(k):
    """The k-th of points spread over the 5120x5120 maze."""
    return 100 + (k * 1237) % 4900, 100 + (k * 2713) % 4900


def goto_line(k):
    """A goto of one of GOTO_IDS to the k-th point."""
    x, y = goto_point(k)
    return f"goto {GOTO_IDS[k % len(GOTO_IDS)]} {x} {y}"


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def measure(name, srv, admin, attackers, seconds, token=None):
    tick0 = admin.ok("stats")["tick"]
    rate = admin.ok("stats")["tick_rate"]
    pinger = Pinger(srv.cmd_port, token)
    for a in attackers:
        a.start()
    time.sleep(0.5)  # the attack under way
    tick0 = admin.ok("stats")["tick"]
    pinger.start()
    t0 = time.monotonic()
    time.sleep(seconds)
    pinger.stop_flag = True
    elapsed = time.monotonic() - t0
    tick1 = admin.ok("stats")["tick"]
    for a in attackers:
        a.end()
    pinger.join(30)
    hz = (tick1 - tick0) / elapsed
    r = pinger.rtts
    print(f"{name:16s} stats round trip p50 {1000 * pct(r, 0.5):7.1f} ms  p99 "
          f"{1000 * pct(r, 0.99):7.1f} ms  max {1000 * max(r or [0]):7.1f} ms  "
          f"({len(r)} samples)  tick {hz:5.1f} Hz = {100 * hz / rate:5.1f}% of {rate:g}")
    sys.stdout.flush()
    return {"name": name, "p50": pct(r, 0.5), "p99": pct(r, 0.99), "max": max(r or [0]),
            "samples": len(r), "hz": hz, "rate": rate}


def scenario_list(args, token):
    extra = ("--token", TOKEN) if token else ()
    srv = steertest.Server(*extra, "--no-journal", "--max-vehicles", "100000")
    admin = srv.text()
    if token:
        admin.ok(f"auth {TOKEN}")
    admin.ok("reset")
    admin.ok(f"spawn flock {args.vehicles} 500 300 300")
    name = "list-token" if token else "list-open"
    idle = measure(name + " idle", srv, admin, [], args.seconds / 2, TOKEN if token else None)
    atk = [Attackers(srv.cmd_port, list_line, n=args.connections)]
    attacked = measure(name, srv, admin, atk, args.seconds, TOKEN if token else None)
    srv.stop()
    return [idle, attacked]


def scenario_goto(args):
    srv = steertest.Server("--no-journal", "--scenario", "maze")
    admin = srv.text()
    n = admin.ok("stats")["vehicles"]
    for i in range(1, min(n, 20) + 1):
        admin.cmd(f"goto {i} 950 550")
    # A wall added, then removed by its id, every 50 ms.
    stop = threading.Event()

    def churn():
        c = srv.text()
        while not stop.is_set():
            r = c.cmd("wall 480 100 520 500")
            if r.startswith("OK"):
                wid = r.split('"id":')[1].split("}")[0]
                time.sleep(0.025)
                c.cmd(f"remove {wid}")
            time.sleep(0.025)
    th = threading.Thread(target=churn, daemon=True)
    th.start()
    atk = []
    result = measure("goto-walls", srv, admin, atk, args.seconds)
    stop.set()
    th.join(10)
    srv.stop()
    return [result]


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def write_big_scene(path, polygons=100, points=4096):
    """A save of a 5000x5000 world holding polygons wavy rings of points each."""
    lines = ["steer-save 3",
             "world width 0x1.388p+12 height 0x1.388p+12 edges bounce tick_rate 0x1.ep+5 "
             "seed 1 solid on contain off",
             f"meta tick 0 next_id {polygons + 1} rng_state 67b348782f5e4187 "
             "rng_inc 000000000000bddb",
             f"counts vehicles 0 obstacles 0 walls 0 polygons {polygons}"]
    side = math.ceil(math.sqrt(polygons))
    pitch = 5000.0 / side
    for i in range(polygons):
        cx, cy = pitch * (0.5 + i % side), pitch * (0.5 + i // side)
        lines.append(f"polygon {i + 1} inside off points {points}")
        for k in range(points):
            a = 2 * math.pi * k / points
            r = 0.4 * pitch * (1 + 0.1 * math.sin(7 * a))
            lines.append(f"point {(cx + r * math.cos(a)).hex()} {(cy + r * math.sin(a)).hex()}")
    body = ("\n".join(lines) + "\n").encode()
    with open(path, "wb") as f:
        f.write(body + f"end records {polygons} fnv1a64 {fnv1a64(body):016x}\n".encode())


def scenario_goto_maze(args):
    srv = steertest.Server("--no-journal", "--world", "5120x5120", "--scenario", "maze")
    admin = srv.text()
    GOTO_IDS[:] = [admin.ok(f"spawn {60 + k} 60")["id"] for k in range(20)]
    atk = [Attackers(srv.cmd_port, goto_line, n=20, depth=5)]
    result = measure("goto-maze", srv, admin, atk, args.seconds)
    srv.stop()
    return [result]


def scenario_goto_each(args):
    srv = steertest.Server("--no-journal", "--world", "5120x5120", "--scenario", "maze")
    admin = srv.text()
    ids = [admin.ok(f"spawn {60 + k * 0.1} 60")["id"] for k in range(20)]
    rtts, routes, later = [], [], 0
    for k, vid in enumerate(ids):
        x, y = goto_point(k)
        t0 = time.monotonic()
        r = admin.ok(f"goto {vid} {x} {y}")
        rtts.append(time.monotonic() - t0)
        # A plan too big for the command goes on in the ticks: until its route is there.
        later += bool(r.get("planning"))
        while r.get("planning") or r.get("goto", {}).get("planning"):
            time.sleep(0.002)
            r = admin.ok(f"get {vid}")
        routes.append(time.monotonic() - t0)
    print(f"{'goto-each':16s} goto round trip p50 {1000 * pct(rtts, 0.5):7.1f} ms  max "
          f"{1000 * max(rtts):7.1f} ms  ({len(rtts)} gotos; the first learns the cells); "
          f"route there p50 {1000 * pct(routes, 0.5):.1f} ms  max {1000 * max(routes):.1f} ms "
          f"({later} planned in the ticks)")
    sys.stdout.flush()
    srv.stop()


def scenario_goto_burst(args):
    srv = steertest.Server("--no-journal", "--world", "5120x5120", "--scenario", "maze")
    admin = srv.text()
    ids = [admin.ok(f"spawn {60 + k * 0.1} 60")["id"] for k in range(20)]
    # The walkers' own plans done, and the tick history (stats) filled by quiet ticks.
    walkers = [v["id"] for v in admin.ok("list")["vehicles"] if v["id"] not in ids]
    while any(admin.ok(f"get {v}").get("goto", {}).get("planning") for v in walkers):
        time.sleep(0.05)
    time.sleep(2)
    t0 = time.monotonic()
    for k, vid in enumerate(ids):
        x, y = goto_point(k)
        admin.ok(f"goto {vid} {x} {y}")
    while any(admin.ok(f"get {v}").get("goto", {}).get("planning") for v in ids):
        time.sleep(0.01)
    took = time.monotonic() - t0
    st = admin.ok("stats")
    print(f"{'goto-burst':16s} 20 far gotos at once routed in {1000 * took:.0f} ms; tick ms "
          f"p50 {st['tick_ms_p50']:.2f} p99 {st['tick_ms_p99']:.2f} (stats' window)")
    sys.stdout.flush()
    srv.stop()


def scenario_walls_big(args):
    d = tempfile.mkdtemp(prefix="steer-stall-")
    write_big_scene(os.path.join(d, "big.steer"))
    srv = steertest.Server("--no-journal", data_dir=d)
    admin = srv.text()
    admin.ok("load big")
    stop = threading.Event()
    watcher = srv.proto()

    def watch():
        while not stop.is_set():
            try:
                watcher.read()
            except Exception:
                return

    def churn():
        c = srv.text()
        while not stop.is_set():
            r = c.ok("wall 10 10 20 20")
            c.ok(f"remove {r['id']}")
    threads = [threading.Thread(target=watch, daemon=True),
               threading.Thread(target=churn, daemon=True)]
    for th in threads:
        th.start()
    result = measure("walls-big", srv, admin, [], args.seconds)
    stop.set()
    srv.stop()
    return [result]


def scenario_pile(args):
    srv = steertest.Server("--no-journal", "--max-vehicles", "100000")
    admin = srv.text()
    admin.ok("reset")
    admin.ok("spawn flock 50000 500 300 1")
    result = measure("spawn-pile", srv, admin, [], args.seconds)
    srv.stop()
    return [result]


def scenario_rewind(args):
    d = tempfile.mkdtemp(prefix="steer-stall-")
    srv = steertest.Server("--max-vehicles", "200000", data_dir=d)
    admin = srv.text()
    admin.ok("reset")
    admin.ok("spawn flock 150000 500 300 300")
    time.sleep(3)
    atk = [Attackers(srv.cmd_port, rewind_line, depth=1)]
    result = measure("rewind-fork", srv, admin, atk, args.seconds)
    srv.stop()
    return [result]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--vehicles", type=int, default=20000,
                    help="the boids of list-token and list-open")
    ap.add_argument("--connections", type=int, default=20,
                    help="the attackers' connections in list-token and list-open")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    if args.server:
        steertest.SERVER = args.server
    elif os.path.exists(os.path.join(HERE, "..", "build", "server", "steer-server")):
        steertest.SERVER = os.path.join(HERE, "..", "build", "server", "steer-server")
    runs = {"list-token": lambda: scenario_list(args, True),
            "list-open": lambda: scenario_list(args, False),
            "goto-walls": lambda: scenario_goto(args),
            "goto-maze": lambda: scenario_goto_maze(args),
            "goto-each": lambda: scenario_goto_each(args),
            "goto-burst": lambda: scenario_goto_burst(args),
            "walls-big": lambda: scenario_walls_big(args),
            "spawn-pile": lambda: scenario_pile(args),
            "rewind-fork": lambda: scenario_rewind(args)}
    for name in args.scenarios or list(runs):
        runs[name]()


if __name__ == "__main__":
    main()
