"""Saves that cannot go wrong quietly: every state the world reaches can be saved and
loaded again, a save the disk or the file-size limit refuses is an ERR (never a dead
server), a failed autosave at exit shows in the exit status, and temporary files a
killed save left behind are cleaned up at start."""
import atexit
import os
import resource
import shutil
import sys
import tempfile

from steertest import Checks, Server, expect, wait_for

checks = Checks()


def data_dir(prefix):
    """A data directory of its own, removed when the tests end (saves can be big)."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path

# Small enough that a thousand vehicles do not fit, large enough for the log.
FSIZE_LIMIT = 256 * 1024


def limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE_LIMIT, FSIZE_LIMIT))


def test_a_drifting_vehicle_saves_and_loads():
    srv = Server()
    try:
        c = srv.text()
        c.ok("world 1000 600 none")
        c.ok("spawn 999999999999 0 max_speed=1e9 vx=1e9")
        c.ok("step 120")
        c.ok("save drift")
        got = c.ok("load drift")
        expect(got["vehicles"] == 1, got)
    finally:
        srv.stop()


def test_a_save_over_the_file_size_limit_is_an_err():
    data = data_dir("steer-fsize-")
    srv = Server(data_dir=data, preexec_fn=limit_file_size)
    try:
        c = srv.text()
        c.ok("spawn flock 1000 500 300 200")
        reply = c.cmd("save big")
        expect(reply.startswith("ERR") and "File too large" in reply, reply)
        expect(c.ok("stats")["vehicles"] == 1000, "the server lost its world")
        # journal/ and journals/ are the journal's: no save or temporary is left.
        left = [f for f in os.listdir(data) if f not in ("journal", "journals")]
        expect(left == [], f"left behind: {left}")
    finally:
        code, log = srv.stop()
    expect(code == 0, f"exit {code}: {log[-1000:]}")


def test_a_failed_autosave_at_exit_is_a_failed_exit():
    data = data_dir("steer-fsize-")
    srv = Server("--autosave", "3600", data_dir=data, preexec_fn=limit_file_size)
    c = srv.text()
    c.ok("spawn flock 1000 500 300 200")
    code, log = srv.stop()
    expect(code != 0, "exit status 0 after the autosave failed")
    expect("autosave" in log and "File too large" in log, log[-1000:])
    expect(not os.path.exists(os.path.join(data, "autosave.steer")), "an autosave was written")


def test_stale_temporary_files_are_removed_at_start():
    data = data_dir("steer-stale-")
    stale = os.path.join(data, "world.steer.tmp")
    other = os.path.join(data, "notes.txt")
    for path in (stale, other):
        with open(path, "w") as f:
            f.write("half a save")
    srv = Server(data_dir=data)
    try:
        expect(not os.path.exists(stale), "the stale temporary file is still there")
        expect(os.path.exists(other), "a file that is not a save's was removed")
        expect("world.steer.tmp" in srv.log_text(), "the removal was not logged")
    finally:
        srv.stop()


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def alive(pid):
    """Whether pid runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_a_kill_during_a_save_leaves_nothing_at_the_next_start():
    data = data_dir("steer-kill-")
    srv = Server(data_dir=data)
    c = srv.text()
    c.ok("pause")
    c.ok("spawn flock 50000 400 300 300")
    c.send_raw(b"save big\n")
    tmp = os.path.join(data, "big.steer.tmp")
    wait_for(lambda: os.path.exists(tmp) or os.path.exists(tmp[:-4]), "the save begun",
             every=0.001)
    writers = children(srv.proc.pid)  # the save is written by a child process
    srv.proc.kill()
    srv.proc.wait()
    wait_for(lambda: not any(alive(pid) for pid in writers),
             f"the writer {writers} to die with the server")
    left = os.path.exists(tmp)
    again = Server(data_dir=data)
    try:
        expect(not os.path.exists(tmp), "the partial save is still there")
        # The file goes before the line about it is written: wait for the line.
        if left:
            wait_for(lambda: "big.steer.tmp" in again.log_text(), "its removal logged")
    finally:
        again.stop()


def test_loading_a_fifo_is_refused_not_hung():
    # A named pipe where a save should be: opening it for reading would wait for a
    # writer forever, on the thread that loads, and every later save and load (and the
    # server's stop) would wait behind it.
    data = data_dir("steer-fifo-")
    os.mkfifo(os.path.join(data, "pipe.steer"))
    srv = Server(data_dir=data)
    try:
        c = srv.text()
        c.ok("spawn 10 10")
        c.sock.settimeout(10)
        reply = c.cmd("load pipe")
        expect(reply.startswith("ERR") and "not a regular file" in reply, reply)
        expect(c.ok("save after")["bytes"] > 0, "a save after it")
    finally:
        code, log = srv.stop()
    expect(code == 0, f"exit {code}: {log[-1000:]}")


for t in [test_a_drifting_vehicle_saves_and_loads, test_a_save_over_the_file_size_limit_is_an_err,
          test_a_failed_autosave_at_exit_is_a_failed_exit,
          test_stale_temporary_files_are_removed_at_start,
          test_a_kill_during_a_save_leaves_nothing_at_the_next_start,
          test_loading_a_fifo_is_refused_not_hung]:
    checks.run(t)
sys.exit(checks.done())
