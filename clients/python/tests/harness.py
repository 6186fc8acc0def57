"""Helpers for the Python client's tests (after tests/server/steertest.py): a real
steer-server on free loopback ports, and checks counted as the C tests count them.
The tests import the steer package installed in the virtual environment that runs
them; check_installed() makes sure it is that one and not a source tree."""
import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

SERVER = os.environ.get("STEER_SERVER", "steer-server")
TIMEOUT = 10.0

_started = []


@atexit.register
def _kill_leftovers():
    for s in _started:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def check_installed():
    """Exits when the steer module is not the one installed in $STEER_VENV."""
    import steer
    venv = os.path.realpath(os.environ.get("STEER_VENV", sys.prefix))
    where = os.path.realpath(steer.__file__)
    if not where.startswith(venv + os.sep) or "site-packages" not in where:
        print(f"FAIL steer is imported from {where}, not installed in {venv}")
        sys.exit(1)


class Server:
    """A steer-server on --port 0 --cmd-port 0 with its own state directory."""

    def __init__(self, *args):
        self.state = tempfile.mkdtemp(prefix="steer-py-")
        env = dict(os.environ, XDG_STATE_HOME=self.state)
        env.pop("STEER_TOKEN", None)
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([SERVER, "--port", "0", "--cmd-port", "0"] + list(args),
                                     stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     env=env)
        _started.append(self)
        self.proto_port = self.cmd_port = None
        deadline = time.time() + TIMEOUT
        while (self.proto_port is None or self.cmd_port is None) and time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            parts = line.split()
            if len(parts) == 3 and parts[0] == "listening":
                port = int(parts[2].rsplit(":", 1)[1])
                if parts[1] == "proto":
                    self.proto_port = port
                else:
                    self.cmd_port = port
        if self.proto_port is None or self.cmd_port is None:
            self.proc.kill()
            raise RuntimeError("server did not start: " + self.log_text())

    def log_text(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.state, ignore_errors=True)
        return self.proc.returncode


def stops_cleanly(server):
    """A check that the server exits 0 on SIGTERM (under the sanitizers, a leak or an
    error report makes it exit otherwise)."""
    def test_server_stops_cleanly():
        rc = server.stop()
        expect(rc == 0, f"steer-server exited {rc}: {server.log_text()[-3000:]}")
    return test_server_stops_cleanly


class FakeServer:
    """A listening socket that accepts and then sends only what it is told to: for
    the timeouts, which a real server answers too fast to show."""

    def __init__(self, greeting=b""):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.greeting = greeting
        self.conns = []
        import threading
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            if self.greeting:
                c.sendall(self.greeting)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

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
