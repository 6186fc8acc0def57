"""Soak: several clients send random valid and invalid commands for a while (20 s in
CI; STEER_SOAK_SECONDS=600 for the long run). The world's invariants are checked as
it goes; the server must exit 0 at the end, which under the sanitizer build also
means LeakSanitizer found no leak."""
import json
import math
import os
import random
import socket
import sys
import threading
import time

from steertest import Checks, Server, expect

SECONDS = float(os.environ.get("STEER_SOAK_SECONDS", "20"))
checks = Checks()

WORDS = ["spawn", "obstacle", "remove", "set", "seek", "flee", "arrive", "pursue", "evade",
         "wander", "avoid", "flock", "waypoint", "path", "get", "list", "pause", "resume",
         "step", "world", "rate", "seed", "reset", "scenario", "stats", "save", "load", "help",
         "auth", "frobnicate", ""]
KEYS = ["max_speed", "max_force", "mass", "radius", "sight_distance", "too_close_distance",
        "panic_distance", "decel", "combine", "field_of_view", "group", "wander_range",
        "max_neighbours", "vx", "vy", "bogus"]


def junk_number(rng):
    return rng.choice([str(rng.uniform(-50, 1200)), str(rng.randint(-5, 400)), "nan", "inf",
                       "-inf", "1e309", "0", "-0", "x", "", "1e-320", str(rng.randint(0, 2**40))])


def random_command(rng):
    word = rng.choice(WORDS)
    n = rng.randint(0, 5)
    args = [junk_number(rng) for _ in range(n)]
    if rng.random() < 0.3:
        args.append(f"{rng.choice(KEYS)}={junk_number(rng)}")
    if word == "spawn" and rng.random() < 0.2:
        args = ["flock", str(rng.randint(1, 40))] + args
    if word in ("world",) and rng.random() < 0.7:
        args = [str(rng.randint(50, 3000)), str(rng.randint(50, 3000)),
                rng.choice(["wrap", "bounce", "none"])]
    if word in ("scenario",):
        args = [rng.choice(["flock", "avoid", "path", "pursuit", "seek", "nope"])]
    if word in ("save", "load"):
        args = [rng.choice(["soak", "soak2", "../x", "a/b", ".hidden", "ok-name"])]
    if word == "rate":
        args = [str(rng.choice([30, 60, 120, 0, 5000]))]
    if word == "step":
        args = [str(rng.choice([1, 5, 20, 0, 10**7]))]
    line = " ".join([word] + args)
    if rng.random() < 0.02:
        line = "x" * rng.randint(8000, 9000)  # over the line limit: that client is closed
    return line


def text_client(port, seed, stop, stats):
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            f = s.makefile("rwb")
            while not stop.is_set():
                line = random_command(rng)
                f.write(line.encode() + b"\n")
                f.flush()
                if not line.strip():
                    continue
                reply = f.readline()
                if not reply:
                    break
                r = reply.decode()
                stats["ok" if r.startswith("OK") else "err"] += 1
                if not (r.startswith("OK") or r.startswith("ERR ")) or r.count("\n") != 1:
                    stats["bad"].append(f"{line[:60]!r} -> {r[:80]!r}")
            s.close()
        except (ConnectionError, socket.timeout):
            stats["reconnects"] += 1


def check_world(c):
    lst = c.ok("list")
    ids = [v["id"] for v in lst["vehicles"]]
    expect(len(ids) == len(set(ids)), "duplicate vehicle ids")
    for v in lst["vehicles"][:50]:
        for k in ("x", "y", "vx", "vy"):
            expect(isinstance(v[k], (int, float)) and math.isfinite(v[k]),
                   f"vehicle {v['id']}: {k} = {v[k]}")
        g = c.cmd(f"get {v['id']}")
        if g.startswith("OK"):
            g = json.loads(g[3:])
            if g["kind"] != "vehicle":  # a reset in between gave the id to an obstacle
                continue
            speed = math.hypot(g["vx"], g["vy"])
            expect(speed <= g["max_speed"] * (1 + 1e-9) + 1e-9,
                   f"vehicle {v['id']} at {speed} over max_speed {g['max_speed']}")
    return len(ids)


def test_soak():
    import tempfile
    data = tempfile.mkdtemp(prefix="steer-soak-")
    srv = Server("--scenario", "flock", "--max-vehicles", "3000", data_dir=data)
    stop = threading.Event()
    stats = {"ok": 0, "err": 0, "reconnects": 0, "bad": []}
    threads = [threading.Thread(target=text_client, args=(srv.cmd_port, k, stop, stats))
               for k in range(4)]
    for t in threads:
        t.start()
    watchers = [srv.proto() for _ in range(2)]
    checker = srv.text()
    t0, checks_done, most = time.time(), 0, 0
    try:
        while time.time() - t0 < SECONDS:
            for w in watchers:
                w.snapshot()
            most = max(most, check_world(checker))
            checks_done += 1
            time.sleep(0.5)  # the pace of the checks while the clients run: not a wait
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=15)
        code, err = srv.stop()
    expect(code == 0, f"server exit {code}: {err[-3000:]}")
    expect(not stats["bad"], f"malformed replies: {stats['bad'][:5]}")
    expect(stats["ok"] > 100 and stats["err"] > 100, f"too few commands ran: {stats}")
    print(f"  {SECONDS:.0f} s: {stats['ok']} OK and {stats['err']} ERR replies, "
          f"{stats['reconnects']} reconnects, {checks_done} invariant checks, "
          f"up to {most} vehicles")


if __name__ == "__main__":
    checks.run(test_soak)
    sys.exit(checks.done())
