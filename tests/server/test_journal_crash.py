"""The journal under attack, in the style of SQLite's crash tests.

- Random command streams, with protobuf words of every byte class, over both ports,
  killed with SIGKILL at random points under each fsync mode: the recovered world is
  the world after some prefix of the stream, and under `always` that prefix holds
  every command answered before the kill.
- A full disk (a small tmpfs) and a journal made immutable (chattr +i), each skipped
  where this machine cannot make it:
  under `always` no change is answered OK that recovery then lacks, and the journal
  works again once the disk does; under `everysec` clients get a Notice either way.
- Damage: a flipped byte in the middle of a log is refused, naming the segment and
  byte; --accept-loss starts from what comes before it and keeps the journal. A FIFO
  or a device in place of a segment is refused at once; a segment number past 16
  digits, an empty log and a log bigger than the reader's window all recover.
- A log that grows fast gets checkpoints by its size (--checkpoint-mb)."""
import glob
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import steer_pb2
from steertest import WAIT, Checks, Server, expect, wait_for

SANITIZED = os.environ.get("STEER_SANITIZED", "") in ("1", "ON", "TRUE", "true", "on")

# Bytes a protobuf word may hold that the text port could never send inside a word,
# and some that it could: each either refused at parse or journalled as it ran.
JUNK = ["", " ", "\t", "\r", "\n", "\x0b", "\x0c", "\x1b", "\x7f", "\x01", "\u00e9", "  \t\n"]


class Model:
    """The world a stream of spawn / set / remove commands makes: id -> [x, y, speed]."""

    def __init__(self):
        self.vehicles = {}
        self.next_id = 1

    def apply(self, op):
        kind = op[0]
        if kind == "spawn":
            self.vehicles[self.next_id] = [op[1], op[2], 100.0]
            self.next_id += 1
        elif kind == "set":
            self.vehicles[op[1]][2] = op[2]
        elif kind == "remove":
            del self.vehicles[op[1]]

    def snapshot(self):
        return {k: tuple(v) for k, v in self.vehicles.items()}


def world_of(t):
    """id -> (x, y, max_speed) of the server's world, read through its text port."""
    out = {}
    listing = t.ok("list 0 10000")
    for v in listing["vehicles"]:
        got = t.ok(f"get {v['id']}")
        out[v["id"]] = (v["x"], v["y"], got["max_speed"])
    return out


def random_stream(rng, n):
    """n commands: (op for the model or None when it must be refused, how to send it)."""
    model = Model()
    stream = []
    used = set()
    for _ in range(n):
        ids = sorted(model.vehicles)
        r = rng.random()
        if r < 0.45 or not ids:
            while True:
                x, y = rng.randrange(1, 999), rng.randrange(1, 599)
                if (x, y) not in used:
                    used.add((x, y))
                    break
            op = ("spawn", x, y)
            send = rng.choice([("text", f"spawn {x} {y}"), ("line", f"spawn {x} {y}"),
                               ("call", "spawn", [float(x), float(y)])])
        elif r < 0.8:
            vid, speed = rng.choice(ids), float(rng.randrange(1, 10000)) / 8
            junk = rng.choice(JUNK) if rng.random() < 0.4 else ""
            word = f"max_speed={junk}{speed!r}" if rng.random() < 0.5 else \
                f"max_speed={speed!r}{junk}"
            op = ("set", vid, speed) if junk == "" else None
            send = rng.choice([("call", "set", [float(vid), word])] * 2 +
                              ([("text", f"set {vid} {word}")] if junk == "" else []))
        else:
            vid = rng.choice(ids)
            op = ("remove", vid)
            send = rng.choice([("text", f"remove {vid}"), ("call", "remove", [float(vid)])])
        if op:
            model.apply(op)
        stream.append((op, send))
    return stream


def start_paused(*args, data_dir):
    srv = Server(*args, data_dir=data_dir)
    t = srv.text()
    t.ok("pause")
    t.ok("reset")
    return srv, t


def send_stream(srv, stream, deadline):
    """Sends the stream in order, each after the reply to the one before (so that the
    order over the two ports is the stream's); returns the replies received, in
    order, until the connection dies or the deadline passes."""
    t, p = srv.text(), srv.proto()
    replies = []
    try:
        for op, send in stream:
            if time.time() > deadline:
                break
            if send[0] == "text":
                r = t.cmd(send[1])
                replies.append((r.startswith("OK"), r))
            elif send[0] == "line":
                r = p.command(line=send[1])
                replies.append((r.ok, r.error))
            else:
                r = p.command(name=send[1], args=send[2])
                replies.append((r.ok, r.error))
    except (OSError, EOFError, ConnectionError, AssertionError, ValueError):
        pass
    return replies


def prefixes(stream):
    """The model's world after each prefix of the stream: [after 0, after 1, ...]."""
    model, out = Model(), [{}]
    for op, _ in stream:
        if op:
            model.apply(op)
        out.append(model.snapshot())
    return out


def recover(d, *extra, empty_ok=False):
    """The recovered world; with empty_ok, a journal killed before its first checkpoint
    (refused as such) counts as the empty world."""
    try:
        srv = Server("--recover", "--no-journal", *extra, data_dir=d)
    except RuntimeError as e:
        if empty_ok and "no checkpoint at all" in str(e):
            return {}, str(e)
        raise
    t = srv.text()
    world = world_of(t)
    status, log = srv.stop()
    expect(status == 0, f"recovering server exit {status}: {log}")
    return world, log


def test_random_streams_killed():
    """Every fsync mode, random kill points: a prefix, and under always every answer."""
    seed = int(os.environ.get("STEER_TEST_SEED", "0")) or random.randrange(1 << 30)
    print(f"  seed {seed} (STEER_TEST_SEED={seed} repeats it)")
    rng = random.Random(seed)
    rounds = 2 if SANITIZED else 4
    for mode in ("always", "everysec", "no"):
        for k in range(rounds):
            d = tempfile.mkdtemp(prefix="steer-crash-")
            srv, _ = start_paused("--journal-fsync", mode, "--checkpoint",
                                  rng.choice(["1", "3600"]), data_dir=d)
            stream = random_stream(rng, 120)
            # Every answer must agree with the model: refused words refused.
            killer = threading.Timer(rng.uniform(0.05, 0.6), srv.proc.send_signal,
                                     (signal.SIGKILL,))
            killer.start()
            replies = send_stream(srv, stream, time.time() + 20)
            killer.join()
            srv.proc.wait()
            for (op, send), (ok, text) in zip(stream, replies):
                expect(ok == (op is not None), f"{send} answered {ok}: {text}")
            # Killed before the first checkpoint: nothing can have been answered under
            # always (each reply waits for it), and nothing can be recovered.
            world, log = recover(d, empty_ok=mode != "always" or not replies)
            states = prefixes(stream)
            lo = len(replies) if mode == "always" else 0
            found = [i for i in range(lo, len(stream) + 1) if states[i] == world]
            expect(found, f"{mode} round {k}: {len(replies)} answered; the recovered world "
                          f"({len(world)} vehicles) is no prefix from {lo} on; {log}")
            shutil.rmtree(d, ignore_errors=True)


def test_words_of_every_byte_class():
    """Each byte class inside a protobuf word: refused at parse with the reason, or run
    and recovered exactly; the journal recovers every answered command."""
    d = tempfile.mkdtemp(prefix="steer-words-")
    srv, t = start_paused("--journal-fsync", "always", data_dir=d)
    p = srv.proto()
    t.ok("spawn 10 10")
    for junk in JUNK + ["\x00"]:
        for word in (f"max_speed={junk}5", f"max_speed=5{junk}", junk or "x"):
            r = p.command(name="set", args=[1.0, word])
            plain = junk == "" and word != "x"
            expect(r.ok == plain, f"set 1 {word!r}: {r.ok} {r.error}")
            if not plain and junk != "\x00" and junk != "\u00e9" and junk:
                expect("control" in r.error or "whitespace" in r.error,
                       f"{word!r}: the reason is not said: {r.error}")
            t.ok("stats")  # the server carries on
    # The text port's own control bytes are refused the same way.
    r = t.cmd("set 1 max_speed=\x0b7")
    expect(r.startswith("ERR") and "control" in r, f"text: {r}")
    r = p.command(name="set", args=[1.0, "max_speed=7"])
    expect(r.ok, r.error)
    before = world_of(t)
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    world, log = recover(d)
    expect(world == before, f"recovered {world}, ran {before}; {log}")
    shutil.rmtree(d, ignore_errors=True)


def journal_of(n, *args):
    """A data dir whose live journal holds n spawns (fsync always, one segment), killed."""
    d = tempfile.mkdtemp(prefix="steer-dmg-")
    srv, t = start_paused("--journal-fsync", "always", "--checkpoint", "3600", *args,
                          data_dir=d)
    for i in range(n):
        t.ok(f"spawn {i + 1} {i + 1}")
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    return d


def files_of(d):
    out = {}
    for path in glob.glob(os.path.join(d, "journal", "*")):
        with open(path, "rb") as f:
            out[os.path.basename(path)] = f.read()
    return out


def refused(d, *extra, want=()):
    """--recover must refuse (the server does not start); returns its message."""
    t0 = time.time()
    try:
        srv = Server("--recover", *extra, data_dir=d)
    except RuntimeError as e:
        msg = str(e)
        for w in want:
            expect(w in msg, f"the refusal does not say {w!r}: {msg}")
        expect(time.time() - t0 < 8, f"the refusal took {time.time() - t0:.1f} s")
        return msg
    srv.stop()
    raise AssertionError(f"--recover {extra} started")


def flip(path, where, bits):
    """XORs bits into the byte of path at where(its size); returns the new bytes."""
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[where(len(data))] ^= bits
        f.seek(0)
        f.write(data)
    return data


def test_flipped_byte_refused_then_accepted():
    d = journal_of(200)
    logs = sorted(glob.glob(os.path.join(d, "journal", "*.log")))
    expect(len(logs) == 1, f"logs {logs}")
    data = flip(logs[0], lambda n: n * 3 // 10, 0x20)
    before = files_of(d)
    name = os.path.basename(logs[0])
    refused(d, want=(name, "damaged at byte", "--accept-loss"))
    expect(files_of(d) == before, "a refused recovery changed the journal")
    srv = Server("--recover", "--accept-loss", data_dir=d)
    t = srv.text()
    n = len(t.ok("list 0 1000")["vehicles"])
    expect(0 < n < 200, f"{n} vehicles recovered before the damage")
    # The evidence is kept once the new journal's first checkpoint is durable.
    kept = wait_for(lambda: glob.glob(os.path.join(d, "journals", "recovered-*", name)),
                    lambda: "the damaged journal kept: "
                    f"{os.listdir(os.path.join(d, 'journals'))}")
    status, log = srv.stop()
    with open(kept[0], "rb") as f:
        expect(f.read() == bytes(data), "the kept log is not the damaged one")
    expect("damaged at byte" in log and "WARN" in log.upper(), f"log: {log}")
    shutil.rmtree(d, ignore_errors=True)


def test_changed_last_byte_refused():
    """A byte changed in the log's last record (the mark of the last spawn, which was
    answered OK under fsync always): refused as damage, not dropped as a torn tail;
    with --accept-loss, the spawns before it."""
    d = journal_of(5)
    logs = sorted(glob.glob(os.path.join(d, "journal", "*.log")))
    flip(logs[0], lambda n: n - 1, 0x01)
    before = files_of(d)
    name = os.path.basename(logs[0])
    refused(d, want=(name, "changed after it was written", "--accept-loss"))
    expect(files_of(d) == before, "a refused recovery changed the journal")
    world, log = recover(d, "--accept-loss")
    expect(len(world) == 4, f"{len(world)} vehicles recovered before the changed mark")
    shutil.rmtree(d, ignore_errors=True)


def test_recover_without_a_journal():
    """--recover in a data directory that never held a journal says so, and makes
    nothing there; an empty journal directory is said to hold no segments."""
    d = tempfile.mkdtemp(prefix="steer-none-")
    refused(d, want=("there is no journal in", "start without --recover"))
    expect(os.listdir(d) == [], f"a refused --recover made {os.listdir(d)}")
    os.mkdir(os.path.join(d, "journal"))
    refused(d, want=("holds no journal segments", "start without --recover"))
    shutil.rmtree(d, ignore_errors=True)


def test_strange_files_refused():
    """A FIFO or /dev/zero in place of a log or checkpoint: refused at once."""
    for ext in ("log", "steer"):
        for kind in ("fifo", "zero"):
            d = journal_of(3)
            path = sorted(glob.glob(os.path.join(d, "journal", "*." + ext)))[-1]
            os.unlink(path)
            if kind == "fifo":
                os.mkfifo(path)
            else:
                os.symlink("/dev/zero", path)
            refused(d, want=("not a plain file",))
            shutil.rmtree(d, ignore_errors=True)


def test_odd_segments_recover():
    """A segment numbered 9999999999999999 (the next has 17 digits), and an empty log
    after the last (a full disk's leftover): both recover everything."""
    d = journal_of(5, "--checkpoint", "3600")
    j = os.path.join(d, "journal")
    for path in glob.glob(os.path.join(j, "[0-9]*")):  # the segments, not the lock
        ext = os.path.basename(path).split(".", 1)[1]
        os.rename(path, os.path.join(j, "9999999999999999." + ext))
    srv = Server("--recover", "--journal-fsync", "always", data_dir=d)
    t = srv.text()
    expect(len(t.ok("list 0 100")["vehicles"]) == 5, "the 16-digit segment lost vehicles")
    t.ok("spawn 50 50")
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    expect(glob.glob(os.path.join(j, "10000000000000000.log")), f"{os.listdir(j)}")
    open(os.path.join(j, "10000000000000001.log"), "wb").close()
    world, log = recover(d)
    expect(len(world) == 6, f"{len(world)} vehicles after the 17-digit segment; {log}")
    expect("runtime error" not in log, f"the sanitizer objected: {log}")
    shutil.rmtree(d, ignore_errors=True)


def pump(t, lines):
    """Pipelines lines on a text connection, reading the replies as they come."""
    data = "".join(line + "\n" for line in lines).encode()
    reader_done = []

    def read_all():
        n = 0
        while n < len(lines):
            r = t.line()
            expect(r.startswith("OK"), r)
            n += 1
        reader_done.append(n)

    th = threading.Thread(target=read_all)
    th.start()
    t.sock.sendall(data)
    th.join(120)
    expect(reader_done, "the replies did not all come")


def durable(t):
    """Whether every batch the journal has taken is durable."""
    j = t.ok("stats")["journal"]
    return j["durable_batches"] == j["batches"]


def test_big_log_streams_and_checkpoints_by_size():
    """A log longer than the reader's window (2 MiB) recovers; with --checkpoint-mb 1
    the same stream starts new segments by size."""
    pad = "1." + "0" * 230
    lines = [f"set 1 max_speed={pad}{i % 9 + 1}" for i in range(12000)]
    for mb in ("0", "1"):
        d = tempfile.mkdtemp(prefix="steer-big-")
        srv, t = start_paused("--checkpoint", "3600", "--checkpoint-mb", mb, data_dir=d)
        t.ok("spawn 5 5")
        pump(t, lines)
        want = world_of(t)
        wait_for(lambda: not t.ok("stats")["journal"]["lag_ms"], "the journal's lag gone")
        j = t.ok("stats")["journal"]
        # everysec: written is enough for SIGKILL; let it be written (durable is)
        wait_for(lambda: durable(t), "every batch durable")
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait()
        sizes = [os.path.getsize(p) for p in glob.glob(os.path.join(d, "journal", "*.log"))]
        if mb == "0":
            expect(max(sizes) > 2 * 1024 * 1024, f"logs {sizes}: not past the window")
        else:
            # Segment 1 is the start's; --checkpoint 3600 makes none by time.
            expect(j["segment"] >= 2, f"--checkpoint-mb 1: segment {j['segment']} ({j})")
        world, log = recover(d)
        expect(world == want, f"--checkpoint-mb {mb}: recovered {world}, ran {want}; {log}")
        shutil.rmtree(d, ignore_errors=True)


class Tmpfs:
    """A small tmpfs, for a disk that fills up or turns read-only."""

    def __init__(self, mb):
        self.dir = tempfile.mkdtemp(prefix="steer-tmpfs-")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={mb}m", "tmpfs", self.dir],
                           capture_output=True, text=True)
        self.ok = r.returncode == 0
        self.why = r.stderr.strip()

    def fill(self):
        path = os.path.join(self.dir, "filler")
        with open(path, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        return path

    def close(self):
        subprocess.run(["umount", "-l", self.dir], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def notices(p, seconds, want):
    """Notice texts read from p until one holds want, or seconds pass."""
    seen = []
    p.sock.settimeout(0.2)
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            m = p.read()
        except OSError:
            continue
        if m.WhichOneof("msg") == "notice":
            seen.append(m.notice.text)
            if want in m.notice.text:
                break
    p.sock.settimeout(None)
    return seen


def immutable(d, on):
    """chattr +i (or -i) on the journal's directory and files: writes to them fail even
    for root, as on a disk turned read-only (which cannot be remounted so while the
    server holds a file open for writing)."""
    j = os.path.join(d, "journal")
    paths = [j] + glob.glob(os.path.join(j, "*"))
    r = subprocess.run(["chattr", "+i" if on else "-i"] + paths, capture_output=True,
                       text=True)
    return r.returncode == 0, r.stderr.strip()


def spawned_id(reply):
    return int(reply.split('"id":')[1].split("}")[0])


def disk_trouble(d, mode, make_trouble, end_trouble):
    """Commands while the journal cannot write and after it can again; killed, then
    recovered: every change answered OK is there, and nothing refused."""
    srv, t = start_paused("--journal-fsync", mode, "--checkpoint", "2", data_dir=d)
    p = srv.proto()
    oks, refusals, not_durable = [], [], 0
    oks.append(spawned_id(t.cmd("spawn 1 1")))
    make_trouble()
    failing = False
    # A log's last page may have room for a few kilobytes: on until it fails.
    for i in range(3000):
        if failing and i >= 300:
            break
        r = t.cmd(f"spawn {i % 997 + 2} {i % 593 + 2}")
        if r.startswith("OK"):
            oks.append(spawned_id(r))
        else:
            refusals.append(r)
            not_durable += "ran, but" in r
        if not failing and t.ok("stats")["journal"]["failing"]:
            failing = True
    seen = notices(p, WAIT, "the journal is failing")
    expect(failing, f"{mode}: the journal never said it was failing")
    expect(any("the journal is failing" in s for s in seen), f"{mode}: notices {seen}")
    if mode == "always":
        expect(refusals and all("durable" in r for r in refusals), f"{refusals[:3]}")
    else:
        expect(not refusals, f"everysec refused: {refusals[:3]}")
    end_trouble()
    wait_for(lambda: not t.ok("stats")["journal"]["failing"],
             f"{mode}: the journal to work again (it stayed failing)", every=0.1)
    seen = notices(p, WAIT, "works again")
    expect(any("works again" in s for s in seen), f"{mode}: notices {seen}")
    for i in range(20):
        oks.append(spawned_id(t.cmd(f"spawn {900 + i} 500")))
    if mode == "always":
        srv.proc.send_signal(signal.SIGKILL)
    else:
        srv.stop()
    srv.proc.wait()
    world, log = recover(d)
    missing = [i for i in oks if i not in world]
    expect(not missing, f"{mode}: {len(missing)} of {len(oks)} answered OK were lost; {log}")
    # Refused commands never ran; those that ran without being durable may be there.
    expect(len(world) <= len(oks) + not_durable,
           f"{mode}: {len(world)} recovered, {len(oks)} answered OK, {not_durable} not "
           f"durable")
    shutil.rmtree(d, ignore_errors=True)


def test_full_disk():
    fs = Tmpfs(16)
    if not fs.ok:
        print(f"  skipped: cannot mount a tmpfs ({fs.why})")
        return
    try:
        for mode in ("always", "everysec"):
            filler = []
            d = os.path.join(fs.dir, "data")
            os.makedirs(d, exist_ok=True)
            disk_trouble(d, mode, lambda: filler.append(fs.fill()),
                         lambda: os.unlink(filler[0]))
    finally:
        fs.close()


def test_read_only_journal():
    for mode in ("always", "everysec"):
        d = tempfile.mkdtemp(prefix="steer-ro-")
        os.makedirs(os.path.join(d, "journal"))
        ok, why = immutable(d, True)
        immutable(d, False)
        if not ok:
            print(f"  skipped: chattr +i does not work here ({why})")
            return
        try:
            disk_trouble(d, mode, lambda: immutable(d, True), lambda: immutable(d, False))
        finally:
            immutable(d, False)
            shutil.rmtree(d, ignore_errors=True)


def main():
    c = Checks()
    c.run(test_words_of_every_byte_class)
    c.run(test_random_streams_killed)
    c.run(test_flipped_byte_refused_then_accepted)
    c.run(test_changed_last_byte_refused)
    c.run(test_recover_without_a_journal)
    c.run(test_strange_files_refused)
    c.run(test_odd_segments_recover)
    c.run(test_big_log_streams_and_checkpoints_by_size)
    c.run(test_full_disk)
    c.run(test_read_only_journal)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
