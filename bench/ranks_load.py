#!/usr/bin/env python3
"""A save read or written over MPI ranks: each rank's peak resident memory and the
time it takes, for one server build or two interleaved (--baseline, the order
alternating each round). The save is a flock of V boids made first by one process of
--server in a W x W world. --start says how it is read, or that it is written:
- load (the default): `load` in a running world, paused; also the longest wait for
  `help` on another connection meanwhile (how long the load holds rank 0's loop);
- restore: `mpirun steer-server --restore`, timed to the first reply;
- recover: `mpirun steer-server --recover` from a journal whose checkpoint is the
  save, with a few commands and ticks after it (made once by one process, killed),
  timed to the first reply;
- save: restored at start (--restore), then `save` of it, the world running; rank 0's
  and its forked children's resident memory sampled every 20 ms during the save
  (their largest sum: a save's child builds and writes the whole world), its reply's
  time, and the longest wait for `help` meanwhile (--paused: the world paused).
The journal is on unless --no-journal; the peaks are read once its checkpoint of the
world read is written.

usage: bench/ranks_load.py [--server PATH] [--baseline PATH] [--ranks N] [--vehicles V]
                           [--rounds R] [--no-journal]
                           [--start load|restore|recover|save] [--paused]
mpirun must be allowed to run (as root: OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1). A benchmark: prints, asserts nothing."""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time

WORLD = 30000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Text:
    """The text port: a line out, a line back."""

    def __init__(self, port, wait=120):
        end = time.time() + wait
        while True:
            try:
                self.s = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.time() > end:
                    raise
                time.sleep(0.1)
        self.f = self.s.makefile("rb")

    def cmd(self, line):
        self.s.sendall((line + "\n").encode())
        reply = self.f.readline().decode().strip()
        if not reply.startswith("OK"):
            raise SystemExit(f"{line}: {reply}")
        return reply


def server_args(server, data, port, cport, journal):
    return [server, "--data-dir", data, "--port", str(port), "--cmd-port", str(cport),
            "--no-http", "--world", f"{WORLD}x{WORLD}"] + ([] if journal else ["--no-journal"])


def make_save(a, data):
    port, cport = free_port(), free_port()
    p = subprocess.Popen(server_args(a.server, data, port, cport, False),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        c = Text(cport)
        c.cmd("pause")
        c.cmd(f"spawn flock {a.vehicles} {WORLD // 2} {WORLD // 2} {WORLD // 2}")
        c.cmd("save big")
    finally:
        p.terminate()
        p.wait()
    return os.path.getsize(os.path.join(data, "big.steer"))


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def parent_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def ranks_of(server):
    """The pids of the job's ranks, by rank (Open MPI tells each its rank), leaving
    out a save's or checkpoint's forked child, which has its rank's name and
    environment."""
    found, children = {}, set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read().split(b"\0")[0].decode() != server:
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
        except OSError:
            continue
        rank = env.get(b"OMPI_COMM_WORLD_RANK")
        if rank is not None:
            found.setdefault(int(rank), []).append(int(pid))
    every = {p for pids in found.values() for p in pids}
    ranks = {}
    for r, pids in found.items():
        for p in pids:
            try:
                if parent_of(p) not in every:
                    ranks[r] = p
            except OSError:
                pass
    return [ranks[r] for r in sorted(ranks)]


def children_of(pid):
    kids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if parent_of(int(p)) == pid:
                    kids.append(int(p))
            except OSError:
                pass
    return kids


def rss_with_children(pid):
    """pid's resident memory and its children's, MiB."""
    total = 0.0
    for p in [pid] + children_of(pid):
        try:
            total += status(p, "VmRSS")
        except OSError:
            pass
    return total


def make_journal(a, data):
    """A journal in data/journal whose newest checkpoint is the save, then a few
    commands and ticks: one process loads it and is killed once they are durable."""
    port, cport = free_port(), free_port()
    p = subprocess.Popen(server_args(a.server, data, port, cport, True) +
                         ["--journal-fsync", "always", "--checkpoint", "3600"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        c = Text(cport)
        c.cmd("pause")
        c.cmd("load big")
        while '"checkpoint_running":true' in c.cmd("stats"):
            time.sleep(0.5)
        c.cmd(f"spawn flock 100 {WORLD // 3} {WORLD // 3} 500")
        c.cmd("step 5")
    finally:
        p.kill()
        p.wait()


def settle(c):
    """Waits for the journal's checkpoint under way (the start's, or the loaded
    world's), so that the peaks count it."""
    while '"checkpoint_running":true' in c.cmd("stats"):
        time.sleep(0.2)


def read_once(a, server, data):
    for d in ("journal", "journals"):
        if a.start != "recover":
            shutil.rmtree(os.path.join(data, d), ignore_errors=True)
    if a.start == "recover":
        shutil.rmtree(os.path.join(data, "journal"), ignore_errors=True)
        shutil.copytree(os.path.join(data, "kept"), os.path.join(data, "journal"))
    port, cport = free_port(), free_port()
    extra = {"load": [], "restore": ["--restore", "big"], "recover": ["--recover"],
             "save": ["--restore", "big"]}[a.start]
    t0 = time.time()
    p = subprocess.Popen(["mpirun", "--oversubscribe", "-np", str(a.ranks)] +
                         server_args(server, data, port, cport, not a.no_journal) + extra,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        c = Text(cport, wait=600)
        c.cmd("pause")
        started = time.time() - t0
        pids = ranks_of(server)
        if len(pids) != a.ranks:
            raise SystemExit(f"found {len(pids)} ranks of {server}, not {a.ranks}")
        if a.start in ("restore", "recover"):
            settle(c)
            return {"peak": [status(x, "VmHWM") for x in pids], "took": started, "wait": 0}
        if a.start == "save":
            if not a.paused:
                c.cmd("resume")
            settle(c)  # the start's checkpoint, so that the save is alone
        ping, worst, stop = Text(cport), [0.0], threading.Event()
        most = [0.0]

        def pinger():
            while not stop.is_set():
                t = time.time()
                ping.cmd("help")
                worst[0] = max(worst[0], time.time() - t)
                time.sleep(0.05)

        def sampler():
            while not stop.is_set():
                most[0] = max(most[0], rss_with_children(pids[0]))
                time.sleep(0.02)

        th = [threading.Thread(target=pinger)] + \
            ([threading.Thread(target=sampler)] if a.start == "save" else [])
        for t in th:
            t.start()
        t0 = time.time()
        c.cmd("save out" if a.start == "save" else "load big")
        took = time.time() - t0
        stop.set()
        for t in th:
            t.join()
        settle(c)
        peak = [status(x, "VmHWM") for x in pids]
        if a.start == "save":
            peak[0] = most[0]
        return {"peak": peak, "took": took, "wait": worst[0]}
    finally:
        p.terminate()
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default="build/server/steer-server")
    ap.add_argument("--baseline")
    ap.add_argument("--ranks", type=int, default=3)
    ap.add_argument("--vehicles", type=int, default=400000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-journal", action="store_true")
    ap.add_argument("--start", choices=("load", "restore", "recover", "save"),
                    default="load")
    ap.add_argument("--paused", action="store_true", help="save: the world paused")
    a = ap.parse_args()
    a.server = os.path.abspath(a.server)
    builds = [a.server] + ([os.path.abspath(a.baseline)] if a.baseline else [])
    data = tempfile.mkdtemp(prefix="steer-ranks-load-")
    try:
        size = make_save(a, data)
        if a.start == "recover":
            make_journal(a, data)
            os.rename(os.path.join(data, "journal"), os.path.join(data, "kept"))
        print(f"save: {a.vehicles} boids, {size} bytes; {a.ranks} ranks, journal "
              f"{'off' if a.no_journal else 'on'}; "
              + ("restored, then saved" if a.start == "save" else f"read by {a.start}"))
        runs = {b: [] for b in builds}
        what = "reply" if a.start in ("load", "save") else "first reply after"
        for r in range(a.rounds):
            for b in builds if r % 2 == 0 else builds[::-1]:
                got = read_once(a, b, data)
                runs[b].append(got)
                print(f"round {r + 1} {b}: peak RSS MiB by rank "
                      + " / ".join(f"{x:.0f}" for x in got["peak"])
                      + f"; {what} {got['took']:.2f} s"
                      + (f"; longest wait for help {got['wait']:.2f} s"
                         if a.start in ("load", "save") else ""), flush=True)
        for b in builds:
            rs = runs[b]
            peaks = [statistics.median(r["peak"][k] for r in rs) for k in range(a.ranks)]
            print(f"medians {b}: peak RSS MiB by rank "
                  + " / ".join(f"{x:.0f}" for x in peaks)
                  + f"; {what} {statistics.median(r['took'] for r in rs):.2f} s"
                  + (f"; longest wait for help {statistics.median(r['wait'] for r in rs):.2f} s"
                     if a.start in ("load", "save") else ""))
    finally:
        shutil.rmtree(data, ignore_errors=True)


main()
