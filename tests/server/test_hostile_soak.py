"""Hostile soak (opt-in: STEER_LONG_TESTS=1 ./scripts/test.sh). For STEER_SOAK_SECONDS
(120 by default) the attacks of issue 15 run together against one server: watchers
with distinct whole-world views that never read (plain and compact, coming and
going), long `step`s, saves and loads, `list`, junk text and protobuf commands with
bytes that are not UTF-8. Meanwhile a healthy client checks the invariants: the world
keeps ticking, the server's memory stays bounded, the world stays finite, every reply
is valid UTF-8 (protobuf replies parsed by the official library). At the end the
server must exit 0, which under the sanitizer build also means no leak."""
import json
import math
import os
import random
import socket
import statistics
import sys
import threading
import time

import steer_pb2
from steertest import Checks, Server, expect, split_frames, varint

SECONDS = float(os.environ.get("STEER_SOAK_SECONDS", "120"))
SANITIZED = os.environ.get("STEER_SANITIZED", "").upper() in ("1", "ON", "TRUE")
VEHICLES = 2000 if SANITIZED else 20000
# Growth of the server's resident memory allowed over the run (ASan's shadow memory
# and quarantine make the sanitized build's figure larger).
RSS_GROWTH_MIB = 768 if SANITIZED else 256
checks = Checks()


def proto_frame(msg):
    data = msg.SerializeToString()
    return varint(len(data)) + data


def watcher_wave(port, k0, stop, counts):
    """Opens watchers with distinct whole-world views that never read; every few
    seconds closes them and opens a new set."""
    while not stop.is_set():
        socks = []
        for k in range(k0, k0 + 12):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
            except OSError:
                counts["refused"] += 1
                continue
            m = steer_pb2.ClientMessage()
            v = m.viewport
            v.x0, v.y0, v.x1, v.y1 = -10 - k * 0.001, -10, 4010, 4010
            if k % 2:
                v.compact, v.cols, v.rows = True, 4096, 4096
            try:
                s.sendall(proto_frame(m))
            except OSError:
                counts["refused"] += 1
            socks.append(s)
            counts["watchers"] += 1
        stop.wait(4.0)
        for s in socks:
            s.close()


def text_worker(port, stop, counts, bad, script):
    rng = random.Random(len(script))
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=60)
            f = s.makefile("rwb")
            while not stop.is_set():
                line = rng.choice(script)(rng)
                f.write(line + b"\n")
                f.flush()
                reply = f.readline()
                if not reply:
                    break
                try:
                    r = reply.decode("utf-8")
                except UnicodeDecodeError:
                    bad.append(f"not UTF-8: {line[:60]!r} -> {reply[:80]!r}")
                    continue
                if not (r.startswith("OK") or r.startswith("ERR ")):
                    bad.append(f"{line[:60]!r} -> {r[:80]!r}")
                counts["ok" if r.startswith("OK") else "err"] += 1
            s.close()
        except (ConnectionError, socket.timeout):
            counts["reconnects"] += 1


def junk_bytes(rng):
    word = rng.choice([b"get", b"set", b"spawn", b"list", b"name", b"seek", b"frob", b""])
    tail = bytes(rng.randrange(1, 256) for _ in range(rng.randint(0, 40)))
    return (word + b" " + tail).replace(b"\n", b"?")


STEPS = [lambda r: b"step %d" % r.choice([200, 1000, 3000])]
SAVES = [lambda r: b"save hostile", lambda r: b"load hostile", lambda r: b"saves",
         lambda r: b"list"]
JUNK = [junk_bytes,
        lambda r: b"set %d vx=1e308 mass=%d" % (r.randint(1, 50), r.randint(1, 9)),
        lambda r: b"spawn %d %d" % (r.randint(0, 4000), r.randint(0, 4000)),
        lambda r: b"remove %d" % r.randint(1, VEHICLES + 500),
        lambda r: b"obstacle %d %d %s" % (r.randint(0, 4000), r.randint(0, 4000),
                                          r.choice([b"5", b"1e308", b"-1", b"nan"])),
        lambda r: b"auth wrong-token"]


def proto_junk(port, stop, counts, bad):
    rng = random.Random(7)
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=60)
            buf = b""
            rid = 0
            while not stop.is_set():
                m = steer_pb2.ClientMessage()
                rid += 1
                m.command.request_id = rid
                # Not UTF-8 on purpose: a protobuf string the server must not echo raw.
                raw = junk_bytes(rng)
                m.command.line = raw.decode("latin-1")
                s.sendall(proto_frame(m))
                while True:
                    chunk = s.recv(1 << 20)
                    if not chunk:
                        raise ConnectionError("closed")
                    frames, buf = split_frames(buf + chunk)
                    done = False
                    for frame in frames:
                        msg = steer_pb2.ServerMessage()
                        try:
                            msg.ParseFromString(frame)
                        except Exception as e:  # noqa: BLE001 - the defect we look for
                            bad.append(f"unparseable frame after {raw[:40]!r}: {e}")
                            continue
                        if msg.WhichOneof("msg") == "reply" and msg.reply.request_id == rid:
                            counts["proto"] += 1
                            done = True
                    if done:
                        break
            s.close()
        except (ConnectionError, socket.timeout):
            counts["reconnects"] += 1


def test_hostile_soak():
    srv = Server("--world", "4000x4000", "--max-clients", "256",
                 "--idle-timeout", "20")
    stop = threading.Event()
    counts = {"ok": 0, "err": 0, "proto": 0, "reconnects": 0, "watchers": 0, "refused": 0}
    bad = []
    threads = []
    try:
        admin = srv.text()
        admin.ok(f"spawn flock {VEHICLES} 2000 2000 1900")
        admin.ok("save hostile")
        rss0 = srv.rss_kib()
        threads += [threading.Thread(target=watcher_wave, args=(srv.proto_port, 12 * k, stop,
                                                                 counts)) for k in range(4)]
        threads += [threading.Thread(target=text_worker,
                                     args=(srv.cmd_port, stop, counts, bad, s))
                    for s in (STEPS, SAVES, JUNK, JUNK)]
        threads.append(threading.Thread(target=proto_junk,
                                        args=(srv.proto_port, stop, counts, bad)))
        for t in threads:
            t.start()
        rtts, rss_max, t0, last = [], rss0, time.time(), admin.ok("stats")
        stalls = 0
        while time.time() - t0 < SECONDS:
            time.sleep(1.0)  # one check a second while the clients run: not a wait
            a = time.time()
            st = admin.ok("stats")
            rtts.append(time.time() - a)
            rss_max = max(rss_max, srv.rss_kib())
            if st["tick"] == last["tick"] and not st.get("paused"):
                stalls += 1
            last = st
            lst = admin.ok("list 0 1000")  # a page: the whole world is over list's limit
            for v in lst["vehicles"][:200]:
                expect(all(math.isfinite(v[k]) for k in ("x", "y", "vx", "vy")),
                       f"vehicle not finite: {v}")
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        code, err = srv.stop()
    growth = (rss_max - rss0) / 1024
    print(f"  {SECONDS:.0f} s: {counts}; stats RTT p50 {statistics.median(rtts) * 1e3:.1f} "
          f"ms, max {max(rtts) * 1e3:.0f} ms; RSS {rss0 / 1024:.0f} MiB + {growth:.0f} MiB")
    expect(code == 0, f"server exit {code}: {err[-3000:]}")
    expect(not bad, f"bad replies: {bad[:5]}")
    expect(stalls <= 2, f"the world stopped ticking for {stalls} of the 1 s checks")
    expect(growth < RSS_GROWTH_MIB, f"RSS grew {growth:.0f} MiB")
    expect(counts["ok"] > 50 and counts["proto"] > 50, f"too few commands ran: {counts}")


if __name__ == "__main__":
    checks.run(test_hostile_soak)
    sys.exit(checks.done())
