"""rewind and goto-tick: the world brought back to an earlier tick of the session and
forward again is byte-identical (its save) to a twin that never went back; a tick
between checkpoints is exact; a change in the past forks history; a tick no longer
kept is refused, naming the oldest one kept; rewinding a running world works too."""
import atexit
import os
import shutil
import sys
import tempfile
import time

from steertest import Checks, Server, expect, wait_for

checks = Checks()

# Checkpoints every 3 ticks at 60 Hz, so that every replay starts from a checkpoint
# and runs a few ticks with commands at their stamps.
EVERY = ["--rewind-every", "0.05"]

# A session: commands at ticks, with steps between them (paused: ticks only by step).
SCRIPT = [
    "spawn flock 60 500 300 120",
    "obstacle 300 300 25",
    ("step", 17),
    "spawn 100 100 max_speed=80",
    "seek 62 800 500",
    "set 3 max_force=40 mass=2",
    ("step", 9),
    "wander 5 on",
    "waypoint 7 100 500",
    "waypoint 7 900 100",
    "wall 200 100 200 400",
    ("step", 23),
    "remove 9",
    "pursue 10 62",
    "goto 12 50 550",
    ("step", 31),
    "flock 20 off",
    "rate 50",
    ("step", 12),
]
SCRIPT_TICKS = sum(op[1] for op in SCRIPT if isinstance(op, tuple))


def stop(srv):
    """Stops srv; a sanitizer's report or a bad exit fails the test."""
    code, log = srv.stop()
    expect(code == 0 and "runtime error" not in log and "Sanitizer" not in log,
           f"exit {code}: {log[-2000:]}")


def data_dir():
    path = tempfile.mkdtemp(prefix="steer-rewind-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def start(*args):
    d = data_dir()
    srv = Server(*EVERY, *args, data_dir=d)
    c = srv.text()
    c.ok("pause")
    c.ok("reset")  # tick 0 whenever the pause landed
    return srv, c, d


def run(c, until=None):
    """Runs SCRIPT up to tick `until` (the world at that tick: before the commands
    stamped there), or all of it."""
    tick = 0
    for op in SCRIPT:
        if isinstance(op, tuple):
            n = op[1] if until is None else min(op[1], until - tick)
            if n > 0:
                tick = c.ok(f"step {n}")["tick"]
        elif until is not None and tick >= until:
            break
        else:
            c.ok(op)
    return tick


def saved(c, d, name):
    c.ok(f"save {name}")
    with open(os.path.join(d, name + ".steer"), "rb") as f:
        return f.read()


def twin_at(until, extra=()):
    """The save of a server that ran the script to `until` and then `extra`."""
    srv, c, d = start()
    try:
        run(c, until)
        for line in extra:
            c.ok(line)
        return saved(c, d, "twin")
    finally:
        stop(srv)


def test_rewind_then_forward_matches_a_twin():
    live = twin_at(None)
    srv, c, d = start()
    try:
        L = run(c)
        expect(L == SCRIPT_TICKS, L)
        got = c.ok("rewind 70")
        expect(got["tick"] == L - 70 and got["live_tick"] == L and got["past"], got)
        st = c.ok("stats")
        expect(st["tick"] == L - 70 and st["live_tick"] == L and st["past"], st)
        got = c.ok("goto-tick live")
        expect(got["tick"] == L and not got["past"], got)
        expect(saved(c, d, "back") == live, "rewound and forward differs from the twin")
        # Forward by stepping (and past the live tick: it goes on live).
        c.ok("rewind 50")
        expect(c.ok("step 30")["tick"] == L - 20, "step in the past")
        expect(c.ok("stats")["past"], "still in the past")
        expect(c.ok("step 20")["tick"] == L, "step to live")
        expect(not c.ok("stats")["past"], "live again")
        expect(saved(c, d, "stepped") == live, "stepped forward differs from the twin")
    finally:
        stop(srv)


def test_goto_a_tick_between_checkpoints_is_exact():
    for T in (26, 41, 50):  # 26: a command tick; 41: between checkpoints
        want = twin_at(T)
        srv, c, d = start()
        try:
            run(c)
            got = c.ok(f"goto-tick {T}")
            expect(got["tick"] == T, got)
            expect(saved(c, d, "at") == want, f"goto-tick {T} differs from the twin")
            # Back further and forward to it again, from the past.
            c.ok(f"goto-tick {T - 20}")
            c.ok(f"goto-tick {T}")
            expect(saved(c, d, "again") == want, f"back and forward to {T} differs")
        finally:
            srv.stop()


def test_a_change_in_the_past_forks_history():
    T = 40
    want = twin_at(T, ["spawn 10 10", "step 5"])
    srv, c, d = start()
    try:
        L = run(c)
        c.ok(f"goto-tick {T}")
        # A command that fails changes nothing: no fork.
        reply = c.cmd("seek 99999 1 1")
        expect(reply.startswith("ERR") and "forked" not in reply, reply)
        st = c.ok("stats")
        expect(st["past"] and st["live_tick"] == L, st)
        got = c.ok("spawn 10 10")
        f = got.get("forked")
        expect(f and f["at_tick"] == T and f["discarded_to"] == L and
               f["kept_as"].startswith("rewound-40-"), got)
        st = c.ok("stats")
        expect(st["live_tick"] == T and not st["past"], st)
        expect(c.ok("step 5")["tick"] == T + 5, "ticks after the fork")
        expect(saved(c, d, "fork") == want, "the forked world differs from its twin")
        reply = c.cmd(f"goto-tick {L}")
        expect(reply.startswith("ERR") and "beyond the live tick" in reply, reply)
        # Reading and pausing in the past do not fork; the others hear of a rewind.
        watcher = srv.proto()
        c.ok("rewind 3")
        note = watcher.read_kind("notice").text
        expect(note.endswith("rewound the world 3 ticks"), note)
        watcher.close()
        for line in ("stats", "list", "pause", "get 1"):
            got = c.ok(line)
            expect(not (got or {}).get("forked"), f"{line} forked")
        expect(c.ok("stats")["past"], "a read ended the past")
    finally:
        stop(srv)


def test_a_tick_no_longer_kept_is_refused():
    # One megabyte holds few checkpoints of a thousand vehicles: old ones go.
    srv, c, d = start("--rewind-memory", "1")
    try:
        c.ok("spawn flock 1000 500 300 200")
        c.ok("step 300")
        st = c.ok("stats")
        oldest = st["oldest_tick"]
        expect(oldest > 0 and st["rewind_bytes"] <= 1024 * 1024, st)
        reply = c.cmd(f"goto-tick {oldest - 1}")
        expect(reply.startswith("ERR") and f"the oldest tick kept is {oldest}" in reply, reply)
        reply = c.cmd("rewind 1000")
        expect(reply.startswith("ERR") and "oldest tick kept" in reply, reply)
        expect(c.ok("stats")["tick"] == 300, "a refused rewind moved the world")
        expect(c.ok(f"goto-tick {oldest}")["tick"] == oldest, "the oldest tick itself")
    finally:
        stop(srv)
    srv, c, d = start("--rewind-memory", "0")
    try:
        c.ok("step 5")
        reply = c.cmd("rewind 2")
        expect(reply.startswith("ERR") and "off" in reply, reply)
    finally:
        stop(srv)


def ticks_pass(c, n):
    """Waits while the running clock makes n ticks (a third of a second at 60 Hz for
    20): the world runs on between what the test does."""
    t0 = c.ok("stats")["tick"]
    wait_for(lambda: c.ok("stats")["tick"] >= t0 + n, f"{n} ticks from tick {t0}")


def test_rewinds_while_the_world_runs():
    srv, c, d = start()
    try:
        c.ok("spawn flock 100 500 300 150")
        c.ok("resume")
        ticks_pass(c, 18)
        c.ok("pause")
        L1 = c.ok("stats")["tick"]
        at1 = saved(c, d, "at1")
        c.ok("resume")
        c.ok("seek 4 900 500")
        c.ok("spawn 50 50")
        ticks_pass(c, 18)
        c.ok("pause")
        L2 = c.ok("stats")["tick"]
        at2 = saved(c, d, "at2")
        c.ok("resume")
        ticks_pass(c, 12)
        got = c.ok(f"goto-tick {L1}")  # the running world stops and goes back
        expect(got["tick"] == L1 and got["past"] and got["live_tick"] > L2, got)
        st = c.ok("stats")
        expect(st["paused"] and st["tick"] == L1, st)
        expect(saved(c, d, "b1") == at1, "the world at the first tick differs")
        got = c.ok(f"goto-tick {L2}")
        expect(saved(c, d, "b2") == at2, "the world at the second tick differs")
        c.ok("resume")  # replays the recorded future, then runs on live
        wait_for(lambda: not c.ok("stats")["past"], "the replay to the live tick")
        st = c.ok("stats")
        expect(not st["past"] and st["tick"] >= got["live_tick"], st)
    finally:
        stop(srv)


def children_of(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return len(f.read().split())
    except OSError:
        return 0


def test_forks_of_history_take_turns():
    """A loop of `rewind 1` and a change on a world whose checkpoint takes a while:
    each change forks history, which needs a checkpoint of its own; they take turns
    (a change waits for the checkpoint before it), so the server never has more than
    one checkpoint child, and every change is answered OK."""
    import threading
    srv, c, d = start()
    c.ok("spawn flock 20000 500 300 300")
    c.ok("step 3")
    most, done = [0], threading.Event()

    def sample():
        while not done.is_set():
            most[0] = max(most[0], children_of(srv.proc.pid))
            time.sleep(0.002)  # the sampling rate, not a wait
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        for _ in range(3):
            c.ok("rewind 1")
            c.ok("spawn 5 5")
    finally:
        done.set()
        th.join(5)
    j = c.ok("stats")["journal"]
    print(f"  at most {most[0]} checkpoint child at once; {j['busy_waits']} changes waited")
    expect(most[0] <= 1, f"{most[0]} checkpoint children at once")
    stop(srv)


for t in (test_forks_of_history_take_turns, test_rewind_then_forward_matches_a_twin, test_goto_a_tick_between_checkpoints_is_exact,
          test_a_change_in_the_past_forks_history, test_a_tick_no_longer_kept_is_refused,
          test_rewinds_while_the_world_runs):
    checks.run(t)
sys.exit(checks.done())
