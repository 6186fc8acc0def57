"""The process side of every end-to-end test, the server's and the Python client's
(clients/python/tests/harness.py): a real steer-server on free loopback ports with a
state directory of its own, killed at exit if a failed test left it running; checks
counted as the C tests count them; and wait_for, the one way a test waits for an
event. It imports nothing of the protocol, so that the client's tests, which must
use the installed package, can use it too."""
import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

SERVER = os.environ.get("STEER_SERVER", "steer-server")
TIMEOUT = 10.0
# How long wait_for() waits for an event: generous, for a loaded two-core machine
# (a sanitizer build beside an MPI test), where a 15 s wait once ran out.
WAIT = 30.0


# Every server started, so that one a failed test left running is killed when the
# test program exits, rather than outliving it.
_started = []


@atexit.register
def _kill_leftovers():
    for s in _started:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


class Server:
    """A steer-server on --port 0 --cmd-port 0; stops in stop(), or at exit if a
    failed test never got there."""

    def __init__(self, *args, data_dir=None, env=None, cwd=None, preexec_fn=None,
                 launcher=()):
        self.data_dir = data_dir
        # Never the real user's state directory: a test's saves stay in its own.
        self.state = None
        if data_dir is None and env is None:
            self.state = tempfile.mkdtemp(prefix="steer-state-")
            env = dict(os.environ, XDG_STATE_HOME=self.state)
            env.pop("STEER_TOKEN", None)  # the user's own: a test says which it wants
        # launcher: what runs the server, e.g. mpirun with its flags.
        cmd = list(launcher) + [SERVER, "--port", "0", "--cmd-port", "0"] + list(args)
        # No page unless the test asks for one: never the user's port 7702.
        if not any(a == "--no-http" or a.startswith("--http") for a in args):
            cmd.append("--no-http")
        if data_dir:
            cmd += ["--data-dir", data_dir]
        # The log goes to a file, not a pipe: an unread pipe fills up and would
        # block the server on its next log line.
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     env=env, cwd=cwd, preexec_fn=preexec_fn)
        _started.append(self)
        self.proto_port = self.cmd_port = self.web_port = None
        want_web = "--no-http" not in cmd
        deadline = time.time() + TIMEOUT
        while ((self.proto_port is None or self.cmd_port is None or
                (want_web and self.web_port is None)) and time.time() < deadline):
            line = self.proc.stdout.readline()
            if not line:
                break
            parts = line.split()
            if len(parts) == 3 and parts[0] == "listening":
                port = int(parts[2].rsplit(":", 1)[1])
                if parts[1] == "proto":
                    self.proto_port = port
                elif parts[1] == "cmd":
                    self.cmd_port = port
                elif parts[1] == "web":
                    self.web_port = port
        if self.proto_port is None or self.cmd_port is None:
            self.proc.kill()
            raise RuntimeError("server did not start: " + self.log_text())


    def log_text(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        """SIGTERM; returns (exit status, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return -999, self.log_text()
        finally:
            if self.state:
                shutil.rmtree(self.state, ignore_errors=True)
        return self.proc.returncode, self.log_text()


def wait_for(predicate, what, timeout=WAIT, every=0.05):
    """Polls predicate() every `every` seconds until it returns something true, and
    returns that. Fails naming what was awaited (what: a string, or a function that
    makes one when the wait fails, e.g. with the state last seen) when timeout
    seconds pass first. Every wait for an event goes through here: a fixed sleep
    stands in for an event only until a slow machine takes longer."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout:g} s waiting for {said}")
        time.sleep(every)


class Checks:
    """Runs test functions, prints a line each and the closing count."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, fn):
        try:
            fn()
        except Exception:  # noqa: BLE001 - a test's failure, reported and counted
            self.failed += 1
            print(f"FAIL {fn.__name__}")
            traceback.print_exc()
        else:
            self.passed += 1
            print(f"ok   {fn.__name__}")
        sys.stdout.flush()

    def done(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def raises(exc, fn, *args, **kw):
    """The exception fn raised, which must be an exc."""
    try:
        fn(*args, **kw)
    except exc as e:
        return e
    raise AssertionError(f"{getattr(fn, '__name__', fn)} did not raise {exc.__name__}")
