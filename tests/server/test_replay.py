"""--replay and `steerctl journal`: a recorded session played back by a server, and
exported as the commands that recreate it, both ending in the same bytes as the
session they recorded. Loopback only; every wait is bounded."""
import os
import subprocess
import sys
import tempfile
import time

from steertest import STEERCTL, TIMEOUT, Checks, Server, expect, wait_for

checks = Checks()

# A session paused and moved by step, so that it is the same every run. (A load
# would start a new history: the live journal keeps only what follows it.)
SESSION = [
    "pause",
    "spawn 100 100 vx=10 max_speed=40",
    "spawn flock 40 500 300 120",
    "step 7",
    "obstacle 300 300 20",
    "wall 600 100 600 400",
    "set 1 max_speed=25 wander_weight=0.5",
    "wander 2 on",
    "step 13",
    "seek 1 800 200",
    "goto 3 900 500",
    "step 20",
    "remove 5",
    "spawn 50 50",
    "step 9",
    "polygon 700 450 760 450 730 500",
    "flee 4 100 100",
    "rate 50",
    "step 31",
    # Both start the world again from tick 0: what follows counts from there.
    "reset",
    "spawn flock 20 500 300 100",
    "step 17",
    "scenario flock",
    "pause",
    "step 11",
]


def record(data):
    """Runs SESSION on a journalled server; the save of its end, and its tick."""
    srv = Server("--scenario", "flock", "--journal-fsync", "always", data_dir=data)
    try:
        c = srv.text()
        for line in SESSION:
            c.ok(line)
        end = c.ok("stats")["tick"]
        c.ok("save recorded")
    finally:
        code, err = srv.stop()
    expect(code == 0, err[-2000:])
    with open(os.path.join(data, "recorded.steer"), "rb") as f:
        return f.read(), end


def wait_paused(c, what):
    def paused():
        s = c.ok("stats")
        return s if s["paused"] else None
    return wait_for(paused, f"{what}: paused", 60)


def test_replay_ends_in_the_recorded_bytes():
    data = tempfile.mkdtemp(prefix="steer-replay-")
    recorded, end = record(data)
    started = time.time()
    srv = Server("--replay", "live", "--speed", "20", data_dir=data)
    try:
        c = srv.text()
        s = wait_paused(c, "the replay")
        elapsed = time.time() - started
        expect(s["tick"] == end, f"the replay paused at tick {s['tick']}, the session ended at {end}")
        expect(s["replay"]["state"] == "ended" and s["replay"]["commands_applied"] > 10,
               f"replay stats: {s['replay']}")
        # The recorded `rate` re-arms the clock mid-tick, owing nothing. A loaded machine
        # may honestly drop ticks, but never more than could fall due in the time it
        # ran (60 Hz at most, times --speed); a negative debt reported 5.5e11.
        due = elapsed * 60 * 20
        expect(s["ticks_dropped"] <= due,
               f"{s['ticks_dropped']} ticks dropped in a replay, more than the {due:.0f} due")
        c.ok("save replayed")
        with open(os.path.join(data, "replayed.steer"), "rb") as f:
            expect(f.read() == recorded, "the replay's world differs from the recorded one")
        # Read-only: watching commands work, changes are refused with the way out.
        reply = c.cmd("spawn 5 5")
        expect(reply.startswith("ERR read-only") and "--writable" in reply, reply)
        c.ok("step 3")
        expect(c.ok("stats")["vehicles"] == s["vehicles"], "a refused spawn changed the world")
    finally:
        code, err = srv.stop()
    expect(code == 0, err[-2000:])
    print(f"  replayed {len(SESSION)} commands over {end} ticks: the same {len(recorded)} bytes")


def test_until_pauses_and_resume_plays_on():
    data = tempfile.mkdtemp(prefix="steer-replay-")
    recorded, end = record(data)
    # A live server's save under way in the same directory is not the replay's to clean.
    with open(os.path.join(data, "busy.steer.tmp"), "w") as f:
        f.write("a save being written")
    srv = Server("--replay", "live", "--until", "10", "--speed", "20", data_dir=data)
    expect(os.path.exists(os.path.join(data, "busy.steer.tmp")),
           "the replay removed another server's save under way")
    try:
        c = srv.text()
        s = wait_paused(c, "--until 10")
        expect(s["tick"] == 10 and s["replay"]["state"] == "playing", f"{s['tick']} {s['replay']}")
        c.ok("resume")
        s = wait_paused(c, "the rest of the replay")
        c.ok("save replayed")
        with open(os.path.join(data, "replayed.steer"), "rb") as f:
            expect(f.read() == recorded, "paused at --until and resumed, the replay differs")
    finally:
        code, err = srv.stop()
    expect(code == 0, err[-2000:])


def test_writable_replay_goes_live_at_the_first_change():
    data = tempfile.mkdtemp(prefix="steer-replay-")
    record(data)
    srv = Server("--replay", "live", "--until", "10", "--writable", data_dir=data)
    try:
        c = srv.text()
        wait_paused(c, "--until 10")
        n = c.ok("stats")["vehicles"]
        c.ok("spawn 5 5")
        s = c.ok("stats")
        expect(s["replay"]["state"] == "live" and s["vehicles"] == n + 1, f"{s['replay']}")
        c.ok("step 60")  # nothing recorded is applied any more
        expect(c.ok("stats")["vehicles"] == n + 1, "the recording went on after the change")
    finally:
        code, err = srv.stop()
    expect(code == 0, err[-2000:])


def test_exported_script_recreates_the_session():
    data = tempfile.mkdtemp(prefix="steer-replay-")
    recorded, end = record(data)
    out = subprocess.run([STEERCTL, "--data-dir", data, "journal", "live"], capture_output=True,
                         text=True, timeout=TIMEOUT)
    expect(out.returncode == 0, out.stderr)
    script = out.stdout
    expect(script.count("load journal-live-1") == 1, "the start's world is not loaded once")
    again = subprocess.run([STEERCTL, "--data-dir", data, "journal", "live"], capture_output=True,
                           text=True, timeout=TIMEOUT)
    expect(again.stdout == script and "reused" in again.stderr, "a second export differs")
    # A save of that name holding another world is not overwritten: an older script
    # still loads what it wrote.
    with open(os.path.join(data, "journal-live-1.steer"), "rb+") as f:
        other = f.read().replace(b"meta tick ", b"meta tick 9", 1)
        f.seek(0)
        f.write(other)
    third = subprocess.run([STEERCTL, "--data-dir", data, "journal", "live"], capture_output=True,
                           text=True, timeout=TIMEOUT)
    expect("load journal-live-2" in third.stdout and "wrote" in third.stderr, third.stderr)
    script = third.stdout
    expect("spawn 100 100 vx=10 max_speed=40" in script and "step " in script, script[:500])
    # A server on the same data directory, without a journal of its own (it would set
    # the recorded one aside), runs the script.
    srv = Server("--no-journal", data_dir=data)
    try:
        run = subprocess.run([STEERCTL, "-p", str(srv.cmd_port)], input=script,
                             capture_output=True, text=True, timeout=120)
        expect(run.returncode == 0, run.stdout[-1000:] + run.stderr[-1000:])
        c = srv.text()
        expect(c.ok("stats")["tick"] == end, "the script ends at another tick")
        c.ok("save scripted")
        with open(os.path.join(data, "scripted.steer"), "rb") as f:
            expect(f.read() == recorded, "the exported script's world differs from the recorded one")
    finally:
        code, err = srv.stop()
    expect(code == 0, err[-2000:])
    print(f"  exported {script.count(chr(10))} lines that recreate the session byte for byte")


def test_bad_replays_are_refused():
    data = tempfile.mkdtemp(prefix="steer-replay-")
    bad = [
        (["--replay", "nosuch"], "nosuch"),
        (["--until", "5"], "go with --replay"),
        (["--replay", "live", "--until", "1.5"], "not a whole tick"),
        (["--replay", "live", "--scenario", "flock"], "leave out"),
        (["--replay", "a b"], "is not a journal"),
    ]
    for args, says in bad:
        from steertest import SERVER
        p = subprocess.run([SERVER, "--port", "0", "--cmd-port", "0", "--data-dir", data] + args,
                           capture_output=True, text=True, timeout=TIMEOUT)
        expect(p.returncode != 0 and says in p.stderr, f"{args}: {p.returncode} {p.stderr[-300:]}")
    out = subprocess.run([STEERCTL, "--data-dir", data, "journal", "nosuch"], capture_output=True,
                         text=True, timeout=TIMEOUT)
    expect(out.returncode == 1 and "nosuch" in out.stderr, out.stderr)
    out = subprocess.run([STEERCTL, "journal"], capture_output=True, text=True, timeout=TIMEOUT)
    expect(out.returncode == 2 and "usage" in out.stderr, out.stderr)


def test_a_fork_is_journalled_and_its_future_kept():
    # A change made after a rewind forks history: the journal starts again from the
    # world before the change (so --recover after a kill gives the forked world), and
    # keeps the discarded future as a named journal that replays to the world the
    # rewind left.
    data = tempfile.mkdtemp(prefix="steer-fork-")
    srv = Server("--scenario", "flock", "--journal-fsync", "always", data_dir=data)
    try:
        c = srv.text()
        for line in ["pause", "spawn 100 100 vx=10", "step 30", "spawn 200 200 vx=-5",
                     "step 30"]:
            c.ok(line)
        live = c.ok("stats")["tick"]
        c.ok("save before")
        c.ok("rewind 20")
        forked = c.ok("spawn 300 300")["forked"]
        expect(forked["at_tick"] == live - 20 and forked["discarded_to"] == live, f"{forked}")
        c.ok("step 10")
        c.ok("save forked")
        kept = os.path.join(data, "journals", forked["kept_as"])
        wait_for(lambda: os.path.isdir(kept), f"the discarded future kept as {kept}")
    finally:
        srv.proc.kill()  # no clean stop: what survives is what the journal holds
        srv.proc.wait()
    rec = Server("--recover", "--no-journal", data_dir=data)
    try:
        c = rec.text()
        c.ok("save recovered")
    finally:
        code, err = rec.stop()
    expect(code == 0, err[-2000:])
    read = lambda n: open(os.path.join(data, n + ".steer"), "rb").read()
    expect(read("recovered") == read("forked"), "--recover after a fork gives another world")
    rp = Server("--replay", forked["kept_as"], "--speed", "20", data_dir=data)
    try:
        c = rp.text()
        s = wait_paused(c, "the kept future")
        expect(s["tick"] == live, f"the kept future ends at tick {s['tick']}, not {live}")
        c.ok("save future")
    finally:
        code, err = rp.stop()
    expect(code == 0, err[-2000:])
    expect(read("future") == read("before"), "the kept future replays to another world")
    print(f"  forked at tick {live - 20}; recovered the fork, replayed the future to {live}")


def test_resume_in_the_past_then_recover():
    # Resuming a rewound world replays to the live tick and runs on; the journal
    # records the resume at the live tick (it never saw the past), so --recover after
    # a kill gives the world exactly. Twice on one directory, forks keep two journals.
    data = tempfile.mkdtemp(prefix="steer-past-")
    kept = []
    for run in range(2):
        srv = Server("--scenario", "flock", "--journal-fsync", "always", data_dir=data)
        try:
            c = srv.text()
            for line in ["pause", "spawn 100 100 vx=10", "step 60"]:
                c.ok(line)
            c.ok("rewind 20")
            c.ok("resume")
            wait_for(lambda: not c.ok("stats")["past"], "the replay to the live tick")
            c.ok("pause")
            c.ok("save live")
            c.ok("goto-tick 30")  # the same tick both runs: the same name, at first
            kept.append(c.ok("spawn 5 5")["forked"]["kept_as"])
            c.ok("save forked")
            # The fork's checkpoint on the disk: the discarded future is kept after it.
            wait_for(lambda: os.path.isdir(os.path.join(data, "journals", kept[-1])) and
                     not c.ok("stats")["journal"]["checkpoint_running"],
                     "the fork's checkpoint on the disk")
        finally:
            srv.proc.kill()
            srv.proc.wait()
        rec = Server("--recover", "--no-journal", data_dir=data)
        try:
            rec.text().ok("save recovered")
        finally:
            code, err = rec.stop()
        expect(code == 0, err[-2000:])
        read = lambda n: open(os.path.join(data, n + ".steer"), "rb").read()
        expect(read("recovered") == read("forked"), f"run {run}: --recover gives another world")
    expect(kept[0] != kept[1] and all(os.path.isdir(os.path.join(data, "journals", k))
                                      for k in kept), f"kept journals {kept}")


for t in [test_replay_ends_in_the_recorded_bytes, test_until_pauses_and_resume_plays_on,
          test_writable_replay_goes_live_at_the_first_change,
          test_exported_script_recreates_the_session, test_bad_replays_are_refused,
          test_a_fork_is_journalled_and_its_future_kept, test_resume_in_the_past_then_recover]:
    checks.run(t)
sys.exit(checks.done())
