"""Helpers for the Python client's tests. The server process, the checks and
wait_for are the end-to-end tests' own (tests/server/steerproc.py: one harness);
here is only what the client's tests add. The tests import the steer package
installed in the virtual environment that runs them; check_installed() makes sure
it is that one and not a source tree (steerproc imports nothing of it)."""
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "server"))
from steerproc import (SERVER, TIMEOUT, Checks, Server, expect, raises,  # noqa: E402,F401
                       wait_for)


def check_installed():
    """Exits when the steer module is not the one installed in $STEER_VENV."""
    import steer
    venv = os.path.realpath(os.environ.get("STEER_VENV", sys.prefix))
    where = os.path.realpath(steer.__file__)
    if not where.startswith(venv + os.sep) or "site-packages" not in where:
        print(f"FAIL steer is imported from {where}, not installed in {venv}")
        sys.exit(1)


def stops_cleanly(server):
    """A check that the server exits 0 on SIGTERM (under the sanitizers, a leak or an
    error report makes it exit otherwise)."""
    def test_server_stops_cleanly():
        rc, log = server.stop()
        expect(rc == 0, f"steer-server exited {rc}: {log[-3000:]}")
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
