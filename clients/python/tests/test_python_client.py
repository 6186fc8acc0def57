"""Commands through the installed steer package against a real steer-server, on both
ports: methods from the command table, call(), replies as Python objects, ERR as
CommandError with the server's message, tokens, timeouts and closed connections."""
import math
import select
import socket
import sys
import time
import warnings

from harness import (Checks, FakeServer, Server, check_installed, expect, raises,
                     stops_cleanly)

check_installed()
import steer  # noqa: E402
from steer import steer_pb2  # noqa: E402

srv = None


def test_commands_as_methods():
    with steer.connect("127.0.0.1", srv.proto_port, name="pytest") as c:
        expect(c.welcome.protocol_version == steer.PROTOCOL_VERSION, f"{c.welcome}")
        expect(c.welcome.width > 0 and c.welcome.height > 0, "world size in the Welcome")
        c.reset()
        expect(c.spawn(100, 120, max_speed=80) == {"id": 1}, "spawn returns its id")
        expect(c.call("spawn", 200, 220, vx=3.5) == {"id": 2}, "call() alike")
        got = c.get(1)
        expect(got["max_speed"] == 80 and got["x"] == 100, f"key=value reached: {got}")
        expect(c.get(2)["vx"] == 3.5, "a float argument")
        expect(c.wander(1, True) is None, "a bare OK is None")
        expect("wander" in c.get(1)["behaviors"], "True is 'on'")
        c.wander(1, False)
        expect("wander" not in c.get(1)["behaviors"], "False is 'off'")
        ids = c.spawn("flock", 5, 300, 300, 40)["ids"]
        expect(len(ids) == 5, f"spawn flock: {ids}")
        # Tuples are flattened; more than an Invocation's 64 arguments go as a line.
        expect("id" in c.polygon((400, 100), (450, 100), (450, 150)), "polygon of tuples")
        ring = [(700 + 60 * math.cos(k * 0.15), 300 + 60 * math.sin(k * 0.15))
                for k in range(40)]
        pid = c.polygon(ring)["id"]
        expect(len(c.get(pid)["points"]) == 40, "a 40-point polygon (80 arguments)")
        # The most points a polygon takes, each coordinate written exactly (17 digits):
        # over 4 KiB of line, on both ports.
        big = [(500 + 100 * math.cos(2 * math.pi * k / 127),
                300 + 100 * math.sin(2 * math.pi * k / 127)) for k in range(127)]
        with steer.connect_text("127.0.0.1", srv.cmd_port) as t:
            for client in (c, t):
                got = client.get(client.polygon(big)["id"])["points"]
                expect([tuple(p) for p in got] == big, f"{client}: the 127 points came back")
            raises(steer.CommandError, t.execute, "spawn " + "1" * 9000)
            expect(t.stats()["vehicles"] >= 0, "a refused long line is not sent")
        raises(steer.CommandError, c.execute, "spawn " + "1" * 9000)
        expect(c.execute("spawn 10 10 group=3")["id"] > 0, "execute() runs a text line")
        lst = c.list()
        expect(lst["tick"] >= 0 and len(lst["vehicles"]) == 8, f"list: {len(lst['vehicles'])}")
        names = c.commands()
        expect("spawn" in names and "usage" not in names, "commands() from help")
        expect("add a vehicle" in c.spawn.__doc__ and names["spawn"][0] in c.spawn.__doc__,
               f"docstring: {c.spawn.__doc__[:80]}")
        expect("spawn" in dir(c), "dir() lists commands")
        e = raises(AttributeError, getattr, c, "no_such_command")
        expect("call(" in str(e), str(e))


def test_errors_carry_the_servers_message():
    c = steer.connect("127.0.0.1", srv.proto_port)
    t = steer.connect_text("127.0.0.1", srv.cmd_port)
    for args in (("remove", 9999), ("spawn", 1), ("set", 1, "max_speed=-3"), ("bogus",)):
        e1 = raises(steer.CommandError, c.call, *args)
        e2 = raises(steer.CommandError, t.call, *args)
        expect(str(e1) == e1.message == str(e2) and e1.message,
               f"{args}: proto {e1.message!r}, text {e2.message!r}")
        expect(not e1.message.startswith("ERR"), f"no ERR prefix: {e1.message!r}")
        expect(e1.command.split()[0] == args[0], f"command: {e1.command}")
        expect(isinstance(e1, steer.Error), "a steer.Error")
    # The connection is still usable after an ERR.
    expect(c.stats()["tick"] >= 0 and t.stats()["tick"] >= 0, "usable after ERR")
    c.close()
    t.close()


def test_text_port():
    with steer.connect_text("127.0.0.1", srv.cmd_port, name="pytext") as t:
        t.reset()
        expect(t.spawn(50, 60) == {"id": 1}, "spawn on the text port")
        expect(t.get(1)["y"] == 60, "get")
        expect(t.execute("world")["width"] > 0, "execute")
        me = [k for k in t.clients()["clients"] if k.get("you")]
        expect(me and me[0]["name"] == "pytext" and me[0]["kind"] == "text", f"{me}")
        raises(ValueError, t.call, "name", "two words")


def test_token():
    s = Server("--token", "sixteen-chars-secret")
    try:
        e = raises(steer.CommandError, steer.connect, "127.0.0.1", s.proto_port,
                   token="wrong-token-given")
        expect("wrong token" in e.message, e.message)
        expect("wrong-token-given" not in e.command, f"the token quoted: {e.command}")
        ro = steer.connect("127.0.0.1", s.proto_port)
        e = raises(steer.CommandError, ro.spawn, 1, 1)
        expect("read-only" in e.message, e.message)
        expect(ro.stats()["tick"] >= 0, "read-only commands run")
        ro.close()
        with steer.connect("127.0.0.1", s.proto_port, token="sixteen-chars-secret") as c:
            expect(c.spawn(1, 1)["id"] == 1, "authorised")
        with steer.connect_text("127.0.0.1", s.cmd_port, token="sixteen-chars-secret") as t:
            expect(t.spawn(2, 2)["id"] == 2, "authorised on the text port")
        raises(steer.CommandError, steer.connect_text, "127.0.0.1", s.cmd_port, token="nope")
    finally:
        s.stop()


def test_a_token_for_another_server():
    """A token (say $STEER_TOKEN, set for another server) offered to a server that
    takes none: the connection is made, and changes the world."""
    with steer.connect("127.0.0.1", srv.proto_port, token="set-for-another") as c:
        expect(c.spawn(3, 3)["id"] > 0, "a change on the protobuf port")
    with steer.connect_text("127.0.0.1", srv.cmd_port, token="set-for-another") as t:
        expect(t.spawn(4, 4)["id"] > 0, "a change on the text port")


def welcome_frame():
    m = steer_pb2.ServerMessage()
    m.welcome.protocol_version = steer.PROTOCOL_VERSION
    m.welcome.width, m.welcome.height = 100, 100
    data = m.SerializeToString()
    return bytes([len(data)]) + data


def test_timeouts():
    # A server that says nothing: no Welcome on the "protobuf" port, no reply on the
    # "text" one, a Welcome and then silence.
    silent = FakeServer()
    e = raises(steer.ProtocolError, steer.connect, "127.0.0.1", silent.port, timeout=0.3)
    expect("Welcome" in str(e), str(e))
    t = steer.connect_text("127.0.0.1", silent.port, timeout=0.3)
    e = raises(steer.Timeout, t.call, "stats")
    expect(isinstance(e, TimeoutError) and "stats" in str(e), str(e))
    # Closed: its replies would be out of order.
    raises(steer.ConnectionClosed, t.call, "stats")
    silent.close()
    mute = FakeServer(welcome_frame())
    c = steer.connect("127.0.0.1", mute.port, timeout=0.3)
    e = raises(steer.Timeout, c.call, "stats")
    expect("stats" in str(e), str(e))
    raises(steer.Timeout, lambda: c.stats())  # the table of commands times out
    raises(steer.Timeout, c.watch)  # a watch waits for a reply too
    c.close()
    mute.close()


def test_wrong_port():
    # The text port is told at once, by its answer to the Hello, not after the
    # timeout.
    e = raises(steer.ProtocolError, steer.connect, "127.0.0.1", srv.cmd_port, timeout=60)
    expect("is steer-server's text port" in str(e), str(e))
    e = raises(steer.ProtocolError, steer.connect, "127.0.0.1", srv.cmd_port, timeout=0.5)
    expect("protobuf port" in str(e), str(e))
    # A four-character name made a Hello of 10 bytes, whose length byte is a newline:
    # the text port saw an empty line and said nothing until the timeout.
    e = raises(steer.ProtocolError, steer.connect, "127.0.0.1", srv.cmd_port, timeout=60,
               name="abcd")
    expect("is steer-server's text port" in str(e), str(e))
    with steer.connect("127.0.0.1", srv.proto_port, name="abcd") as c:
        names = [k.get("name") for k in c.clients()["clients"]]
        expect("abcd" in names, f"clients: {names}")
    t = steer.connect_text("127.0.0.1", srv.proto_port)
    # The Welcome arrived (polled for, not slept on): the next command finds it.
    expect(select.select([t._sock], [], [], 30)[0], "no Welcome within 30 s")
    e = raises(steer.ProtocolError, lambda: t.stats())
    expect("is steer-server's protobuf port" in str(e) and "--cmd-port" in str(e), str(e))
    # The page's port: an HTTP answer, read with no warning from the protobuf library.
    web = Server("--http", "0")
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            e = raises(steer.ProtocolError, steer.connect, "127.0.0.1", web.web_port, timeout=30)
            expect("is a web server" in str(e) and "--port" in str(e), str(e))
            t = steer.connect_text("127.0.0.1", web.web_port, timeout=30)
            e = raises(steer.ProtocolError, lambda: t.stats())
            expect("is a web server" in str(e) and "--cmd-port" in str(e), str(e))
        expect(not seen, f"warnings: {[str(w.message) for w in seen]}")
    finally:
        web.stop()
    # A mistaken argument is named.
    e = raises(TypeError, steer.connect, srv.proto_port)
    expect("the port comes second" in str(e), str(e))
    # Bytes that are no Welcome get the plain answer.
    silent = socket.create_server(("127.0.0.1", 0))
    try:
        t = steer.connect_text("127.0.0.1", silent.getsockname()[1], timeout=5)
        peer, _ = silent.accept()
        peer.sendall(b"<html>\n")
        e = raises(steer.ProtocolError, lambda: t.stats())
        expect("answered '<html>': not steer-server's text port" in str(e), str(e))
        peer.close()
    finally:
        silent.close()


def test_closed_connection():
    s = Server()
    try:
        c = steer.connect("127.0.0.1", s.proto_port)
        t = steer.connect_text("127.0.0.1", s.cmd_port)
        q = steer.connect("127.0.0.1", s.proto_port)
        expect(q.quit() is None, "quit answers OK")
        e = raises(steer.ConnectionClosed, lambda: q.stats())
        expect(isinstance(e, ConnectionError), "a ConnectionError")
        w = c.watch()
        expect(next(w).kind == "snapshot", "watching")
        s.stop()
        e = raises(steer.ConnectionClosed, lambda: c.stats())
        expect("closed" in str(e), str(e))
        raises(steer.ConnectionClosed, lambda: [f for f in w])
        raises(steer.ConnectionClosed, lambda: t.stats())
    finally:
        s.stop()
    e = raises(steer.ConnectionClosed, steer.connect, "127.0.0.1", s.proto_port)
    expect("cannot connect" in str(e), str(e))


def test_never_idle_while_waiting():
    """The reader thread takes the snapshots while the program does something else,
    so a server with a short --idle-timeout keeps the connection."""
    s = Server("--idle-timeout", "1")
    try:
        c = steer.connect("127.0.0.1", s.proto_port)
        c.spawn("flock", 4000, 500, 300, 250)  # snapshots of ~100 KiB fill the buffers
        time.sleep(3)  # the silence under test, not a wait for an event
        expect(c.stats()["vehicles"] == 4000, "still connected after 3 s of silence")
        c.close()
    finally:
        s.stop()


def test_notices():
    a = steer.connect("127.0.0.1", srv.proto_port, name="alice")
    b = steer.connect("127.0.0.1", srv.proto_port, name="bob")
    b.notices()
    a.pause()
    a.resume()
    b.stats()  # a round trip: the notices came before its reply
    texts = [n.text for n in b.notices()]
    expect(texts == ["alice paused", "alice resumed"], f"notices: {texts}")
    expect(a.notices() == [], "no notice of one's own commands")
    a.close()
    b.close()


def main():
    global srv
    srv = Server()
    c = Checks()
    for t in (test_commands_as_methods, test_errors_carry_the_servers_message, test_text_port,
              test_token, test_a_token_for_another_server, test_timeouts, test_wrong_port, test_closed_connection,
              test_never_idle_while_waiting, test_notices):
        c.run(t)
    c.run(stops_cleanly(srv))
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
