"""Saves that cannot go wrong quietly: every state the world reaches can be saved and
loaded again, a save the disk or the file-size limit refuses is an ERR (never a dead
server), a failed autosave at exit shows in the exit status, and temporary files a
killed save left behind are cleaned up at start."""
import os
import resource
import sys
import tempfile

from steertest import Checks, Server, expect

checks = Checks()

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
    data = tempfile.mkdtemp(prefix="steer-fsize-")
    srv = Server(data_dir=data, preexec_fn=limit_file_size)
    try:
        c = srv.text()
        c.ok("spawn flock 1000 500 300 200")
        reply = c.cmd("save big")
        expect(reply.startswith("ERR") and "File too large" in reply, reply)
        expect(c.ok("stats")["vehicles"] == 1000, "the server lost its world")
        expect(os.listdir(data) == [], f"left behind: {os.listdir(data)}")
    finally:
        code, log = srv.stop()
    expect(code == 0, f"exit {code}: {log[-1000:]}")


def test_a_failed_autosave_at_exit_is_a_failed_exit():
    data = tempfile.mkdtemp(prefix="steer-fsize-")
    srv = Server("--autosave", "3600", data_dir=data, preexec_fn=limit_file_size)
    c = srv.text()
    c.ok("spawn flock 1000 500 300 200")
    code, log = srv.stop()
    expect(code != 0, "exit status 0 after the autosave failed")
    expect("autosave" in log and "File too large" in log, log[-1000:])
    expect(not os.path.exists(os.path.join(data, "autosave.steer")), "an autosave was written")


def test_stale_temporary_files_are_removed_at_start():
    data = tempfile.mkdtemp(prefix="steer-stale-")
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


for t in [test_a_drifting_vehicle_saves_and_loads, test_a_save_over_the_file_size_limit_is_an_err,
          test_a_failed_autosave_at_exit_is_a_failed_exit,
          test_stale_temporary_files_are_removed_at_start]:
    checks.run(t)
sys.exit(checks.done())
