"""Connections to steer-server: Client on the protobuf port (commands and the
snapshot stream), TextClient on the text port (commands only). Both reach the same
command table and give the same replies (docs/PROTOCOL.md)."""
import collections
import json
import math
import os
import select
import socket
import threading
import warnings

from . import codec
from . import steer_pb2 as pb
from .errors import CommandError, ConnectionClosed, Error, ProtocolError, Timeout
from .frames import NO_GEOMETRY, Frame, Geometry, Notice, Polygon, Wall

# The protocol version this client speaks (STEER_PROTOCOL_VERSION, include/steer/wire.h).
PROTOCOL_VERSION = 3
DEFAULT_TIMEOUT = 30.0
# An Invocation carries at most this many arguments; longer commands go as a line.
MAX_CALL_ARGS = 64
# The longest command line the server takes, in bytes (STEER_CMD_MAX_LINE).
MAX_LINE = 8192


def _check_line(line, shown=None):
    """A line the server would refuse (the text port closing the connection) is not
    sent: CommandError says why."""
    n = len(line.encode())
    if n > MAX_LINE:
        raise CommandError(f"the command line is {n} bytes, over the server's {MAX_LINE}; "
                           "nothing was sent", shown or line[:80])
# A frame longer than this is not a frame (the biggest snapshots are tens of MiB).
MAX_FRAME = 1 << 30

# The tag byte that starts a ServerMessage holding each kind: (field << 3) | 2, a
# length-delimited field, for the fields 1 to 7 of its oneof.
_TAG = {(field << 3) | 2: kind for field, kind in enumerate(
    ("welcome", "snapshot", "reply", "compact", "density", "notice", "geometry"), 1)}

_DENSITY = {"auto": pb.DENSITY_AUTO, "always": pb.DENSITY_ALWAYS, "never": pb.DENSITY_NEVER}


def _word(v):
    """One argument as a command word."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)  # the shortest text that reads back to the same double
    if isinstance(v, str):
        if not v or any(c.isspace() or c == "\0" for c in v):
            raise ValueError(f"a command word cannot be empty or hold spaces: {v!r}")
        return v
    raise TypeError(f"a command argument must be a number, a bool or a word, not {v!r}")


def _flatten(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flatten(a)
        else:
            yield a


def _arguments(args, params):
    """Positional arguments (lists and tuples flattened: polygon((0, 0), (10, 0), ...))
    and key=value parameters, in order."""
    out = list(_flatten(args))
    for key, value in params.items():
        out.append(f"{key}={_word(value)}")
    return out


def _line(name, args):
    return " ".join([_word(name)] + [_word(a) for a in args])


def _shown(name, line):
    """The command as errors quote it: never a token."""
    return "auth TOKEN" if name == "auth" else line


def _parse_json(text):
    return json.loads(text) if text else None


class _Commands:
    """Commands as methods: client.spawn(100, 100, max_speed=80) is
    client.call("spawn", 100, 100, max_speed=80). The server's command table (its
    `help`) says which exist; each method's docstring is the server's help for it.
    An underscore in a method name stands for a hyphen in the command's when only
    that one exists."""

    _table = None

    def call(self, name, *args, **params):
        """Runs the command name with args (numbers, words, bools as on/off; lists
        and tuples flattened) and key=value params. Returns the reply's JSON as
        Python objects (None for a bare OK); raises CommandError on ERR."""
        return self._call(name, _arguments(args, params))

    def _commands(self):
        if self._table is None:
            reply = self.call("help")
            table = {}
            for usage in reply.get("commands", []):
                name = usage.split()[0]
                table[name] = (usage, reply.get("about", {}).get(name, ""))
            self._table = table
        return self._table

    def commands(self):
        """The server's commands: {name: (usage, description)}."""
        return dict(self._commands())

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        # The first command by name asks the server for its table (help): a failure
        # to get it (a timeout, a closed connection) is raised from here.
        table = self._commands()
        name = attr if attr in table else attr.replace("_", "-")
        if name not in table:
            raise AttributeError(f"{type(self).__name__!s} has no attribute {attr!r} and "
                                 f"the server no command {attr!r}; call('NAME', ...) "
                                 "sends any command, commands() lists them")
        return self._method(name, table[name])

    def __dir__(self):
        names = set(super().__dir__())
        try:
            names.update(n.replace("-", "_") for n in self._commands())
        except Error:
            pass
        return sorted(names)

    def _method(self, name, entry):
        usage, about = entry

        def command(*args, **params):
            return self.call(name, *args, **params)

        command.__name__ = command.__qualname__ = name.replace("-", "_")
        command.__doc__ = (f"{usage}\n\n{about}\n\nSends the command '{name}' (help('{name}') "
                           "describes it in full); returns its reply's JSON as Python objects "
                           "(None for a bare OK), raises steer.CommandError on ERR.")
        return command

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class TextClient(_Commands):
    """A connection to steer-server's text port (--cmd-port, 7701): one command a
    line, one reply line each. Made by steer.connect_text()."""

    def __init__(self, host="127.0.0.1", port=7701, token=None, timeout=DEFAULT_TIMEOUT,
                 name=None):
        self.host, self.port = host, port
        self.timeout = timeout
        self._closed = None
        self._closed_exc = ConnectionClosed
        self._buf = b""
        self._line_raw = None  # the last line _read_line took, as it came
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except socket.timeout:
            raise Timeout(f"{host}:{port}: no connection within {timeout} s") from None
        except OSError as e:
            raise ConnectionClosed(f"cannot connect to {host}:{port}: {e.strerror or e}") from None
        try:
            if name:
                self.call("name", name)
            _offer_token(self, token)
        except Error:
            self.close()
            raise

    def execute(self, line):
        """Runs one line of the text grammar ("spawn 10 20 max_speed=80"); returns
        the reply's JSON, raises CommandError on ERR."""
        if "\n" in line or "\r" in line:
            raise ValueError("one command a line: the line holds a line break")
        _check_line(line)
        return self._round_trip(line)

    def _call(self, name, args):
        line = _line(name, args)
        _check_line(line, _shown(name, line))
        return self._round_trip(line, _shown(name, line))

    def _round_trip(self, line, shown=None):
        if self._closed:
            raise self._closed_exc(self._closed)
        self._check_unsolicited()
        try:
            self._sock.settimeout(self.timeout)
            self._sock.sendall(line.encode() + b"\n")
            reply = self._read_line()
        except socket.timeout:
            # The reply may still come, and would be read as the next command's:
            # the connection's order is lost, so it is closed.
            self._shut(f"{self.host}:{self.port}: no reply to {line.split()[0]!r} within "
                       f"{self.timeout} s; the connection is closed")
            raise Timeout(self._closed) from None
        except OSError as e:
            self._shut(f"{self.host}:{self.port}: {e.strerror or e}")
            raise ConnectionClosed(self._closed) from None
        if reply.startswith("OK"):
            return _parse_json(reply[3:])
        if reply.startswith("ERR"):
            raise CommandError(reply[4:], shown or line)
        self._wrong_port(reply)

    def _check_unsolicited(self):
        """A line the server sent unasked: it closes an idle connection with one, and
        steer-server's protobuf port sends its Welcome unasked."""
        try:
            readable, _, _ = select.select([self._sock], [], [], 0)
        except (OSError, ValueError):
            return
        if not readable:
            return
        try:
            self._sock.settimeout(0.1)
            line = self._read_line()
        except (socket.timeout, OSError, ConnectionClosed):
            line = None
        if line is not None and not line.startswith(("OK", "ERR")):
            self._wrong_port(line)
        self._shut(f"{self.host}:{self.port} closed the connection" +
                   (f": {line}" if line else ""))
        raise ConnectionClosed(self._closed)

    def _wrong_port(self, line):
        if self._greets_in_protobuf():
            self._shut(f"{self.host}:{self.port} is steer-server's protobuf port: "
                       "steer.connect_text() speaks the text port (--cmd-port, 7701 by default), "
                       "steer.connect() this one")
        elif line.startswith("HTTP/"):
            self._shut(f"{self.host}:{self.port} is a web server (steer-server's --http "
                       "page?): steer.connect_text() speaks the text port (--cmd-port, 7701 "
                       "by default)")
        else:
            self._shut(f"{self.host}:{self.port} answered {line[:40]!r}: not steer-server's "
                       "text port (steer.connect() speaks its protobuf port)")
        self._closed_exc = ProtocolError
        raise ProtocolError(self._closed)

    def _greets_in_protobuf(self):
        """Whether what came is the protobuf port's Welcome frame: its bytes from the
        start of the last line read (a Welcome's first field tag is a newline)."""
        raw = self._buf if self._line_raw is None else self._line_raw + b"\n" + self._buf
        try:
            at = frame_at(raw)
            if at is None:
                return False
            m = pb.ServerMessage()
            _parse(m, raw[at[0]:at[1]])
            return m.WhichOneof("msg") == "welcome"
        except Exception:  # any bytes at all: not a Welcome
            return False

    def _read_line(self):
        self._line_raw = None
        while b"\n" not in self._buf:
            if self._buf and self._buf[:1] not in (b"O", b"E"):
                return self._buf.decode("utf-8", "replace")
            chunk = self._sock.recv(65536)
            if not chunk:
                self._shut(f"{self.host}:{self.port} closed the connection")
                raise ConnectionClosed(self._closed)
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        self._line_raw = line
        return line.rstrip(b"\r").decode("utf-8", "replace")

    def _shut(self, why):
        if not self._closed:
            self._closed = why
        try:
            self._sock.close()
        except OSError:
            pass

    def close(self):
        """Closes the connection (without 'quit': the server sees it go)."""
        self._shut("closed by this client")

    def __repr__(self):
        state = "closed" if self._closed else "open"
        return f"<steer.TextClient {self.host}:{self.port} {state}>"


class Watch:
    """The frames of a Client.watch(), in order: iterate it, or take the frame that
    reflects every command so far with fresh(). Frames the program has not taken
    when backlog more arrive are dropped, oldest first (dropped counts them); a new
    watch() on the same client ends this one."""

    def __init__(self, client, kind, backlog, events):
        self._client = client
        self._kind = kind  # what it asked for: "snapshot" or "compact"
        self._queue = collections.deque()
        self._backlog = max(1, backlog)
        self._events = events
        self._armed = False  # frames are queued from the sync reply on
        self._sync = None
        self._error = None  # the Viewport's refusal
        self._ended = False
        self.dropped = 0

    def _put(self, index, item):
        if len(self._queue) >= self._backlog:
            self._queue.popleft()
            self.dropped += 1
        self._queue.append((index, item))

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def next(self, timeout=None):
        """The next frame (or event); waits up to timeout seconds (default: the
        client's timeout). StopIteration once the watch has ended."""
        c = self._client
        wait = c.timeout if timeout is None else timeout
        with c._cond:
            if not c._cond.wait_for(lambda: self._queue or self._ended or c._closed, wait):
                raise Timeout(f"{c.host}:{c.port}: no frame within {wait} s" +
                              (" (a --private server sends none before the token)"
                               if c.welcome.width == 0 else ""))
            if self._queue:
                return self._queue.popleft()[1]
            if self._ended or c._closed_by_us:
                raise StopIteration
            raise c._closed_exc(c._closed)

    def fresh(self, timeout=None):
        """The first frame that reflects every command this client ran before the
        call (and, through a round trip, every change any client made before it).
        Skips what was queued before."""
        c = self._client
        index = c._round_trip_index(("help", ["quit"]))
        while True:
            with c._cond:
                while self._queue and self._queue[0][0] < index:
                    self._queue.popleft()
            item = self.next(timeout)
            if isinstance(item, Frame):
                return item

    def close(self):
        """Ends this watch; the client goes on receiving (and dropping) frames."""
        c = self._client
        with c._cond:
            self._ended = True
            if c._watch is self:
                c._watch = None
            c._cond.notify_all()


class Client(_Commands):
    """A connection to steer-server's protobuf port (--port, 7700): commands, and the
    stream of snapshots (watch). Made by steer.connect().

    welcome   the server's Welcome message (world size, rates, version)
    geometry  the world's walls and polygons, as last received
    timeout   seconds to wait for a reply or a frame (None: forever)

    A thread reads the connection all the time, so the server never sees this client
    as one that does not read, however long the program waits between commands."""

    def __init__(self, host="127.0.0.1", port=7700, token=None, timeout=DEFAULT_TIMEOUT,
                 name=None):
        self.host, self.port = host, port
        self.timeout = timeout
        self.geometry = NO_GEOMETRY
        self._closed = None
        self._closed_exc = ConnectionClosed
        self._closed_by_us = False
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._buf = bytearray()
        self._next_id = 1
        self._replies = {}  # request id -> (message index, Reply)
        self._waiting = set()
        self._async_error = None  # the last error Reply with no request id
        self._notices = collections.deque(maxlen=1024)
        self._index = 0  # messages read so far
        self._watch = None
        self._decoder = codec.CompactDecoder()
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except socket.timeout:
            raise Timeout(f"{host}:{port}: no connection within {timeout} s") from None
        except OSError as e:
            raise ConnectionClosed(f"cannot connect to {host}:{port}: {e.strerror or e}") from None
        try:
            hello = pb.ClientMessage()
            hello.hello.protocol_version = PROTOCOL_VERSION
            if name:
                hello.hello.client = name
            self._send_data(_hello_data(hello))
            self.welcome = self._read_welcome()
        except BaseException:
            self._sock.close()
            raise
        self._sock.settimeout(None)
        self._reader = threading.Thread(target=self._run, name=f"steer {host}:{port}",
                                        daemon=True)
        self._reader.start()
        try:
            _offer_token(self, token)
        except Error:
            self.close()
            raise

    # --- commands ------------------------------------------------------------------

    def execute(self, line):
        """Runs one line of the text grammar ("spawn 10 20 max_speed=80"); returns
        the reply's JSON, raises CommandError on ERR."""
        _check_line(line)
        m = pb.ClientMessage()
        m.command.line = line
        return self._command(m, line)

    def _call(self, name, args):
        # Numbers travel as doubles: an integer a double cannot hold goes as a word.
        words = [_word(a) if isinstance(a, (bool, str)) or
                 (isinstance(a, int) and abs(a) > 2**53) else a for a in args]
        if len(words) > MAX_CALL_ARGS:
            m = pb.ClientMessage()
            m.command.line = _line(name, args)
            _check_line(m.command.line, _shown(name, m.command.line))
            return self._command(m, _shown(name, m.command.line))
        m = pb.ClientMessage()
        m.command.call.name = name
        for a in words:
            arg = m.command.call.args.add()
            if isinstance(a, str):
                arg.word = a
            elif isinstance(a, (int, float)):
                arg.number = a
            else:
                raise TypeError(f"a command argument must be a number, a bool or a word, "
                                f"not {a!r}")
        return self._command(m, _shown(name, _line(name, args)))

    def _command(self, m, text):
        _, reply = self._request(m, text)
        if not reply.ok:
            raise CommandError(reply.error, text)
        return _parse_json(reply.json)

    def _request(self, m, text, watch=None):
        """Sends a Command and waits for its Reply: (message index, Reply). watch:
        the Watch whose frames start after this reply."""
        with self._cond:
            rid = self._next_id
            self._next_id += 1
            self._waiting.add(rid)
            if watch is not None:
                watch._sync = rid
        m.command.request_id = rid
        try:
            self._send(m)
            with self._cond:
                if not self._cond.wait_for(lambda: rid in self._replies or self._closed,
                                           self.timeout):
                    raise Timeout(f"{self.host}:{self.port}: no reply to "
                                  f"{text.split()[0]!r} within {self.timeout} s (the "
                                  "command may still run; a later reply is ignored)")
                if rid in self._replies:
                    return self._replies.pop(rid)
                raise self._closed_exc(self._closed)
        finally:
            with self._cond:
                self._waiting.discard(rid)
                self._replies.pop(rid, None)

    def _round_trip_index(self, command):
        """Runs a harmless command; the index of its reply in the stream."""
        name, args = command
        m = pb.ClientMessage()
        m.command.call.name = name
        for a in args:
            m.command.call.args.add().word = a
        index, reply = self._request(m, name)
        return index

    def _send(self, m):
        self._send_data(m.SerializeToString())

    def _send_data(self, data):
        with self._send_lock:
            if self._closed:
                raise self._closed_exc(self._closed)
            try:
                self._sock.sendall(encode_frame(data))
            except OSError as e:
                self._fail(f"{self.host}:{self.port}: {e.strerror or e}")
                raise ConnectionClosed(self._closed) from None

    # --- the stream ----------------------------------------------------------------

    def watch(self, view=None, compact=False, cols=1024, rows=1024, density="auto", pick=0,
              events=False, backlog=16):
        """Asks for snapshots of view (x0, y0, x1, y1; None: the whole world) and
        returns a Watch that yields them as steer.Frame, in order.

        compact=True asks for CompactSnapshot: positions quantized to the view's
        size over 16 cols (x) and 16 rows (y), each within half a quantum (see
        Frame.quantum), headings to 256 directions, speeds to 0.25; without a view
        the world's bounds are used. density ("auto", "always", "never") says when a
        compact watch gets DensitySnapshot instead: auto when the view holds more
        vehicles than cols x rows cells. pick names a vehicle density frames carry
        whole. density="always" or a pick without compact raises ValueError: plain
        snapshots carry no cells. events=True also yields steer.Notice and
        steer.Geometry as they come. Raises CommandError when the server refuses the
        request."""
        if density not in _DENSITY:
            raise ValueError(f"density is one of {', '.join(_DENSITY)}, not {density!r}")
        if view is not None and not _four_numbers(view):
            raise ValueError(f"view is four numbers (x0, y0, x1, y1), not {view!r}")
        if not isinstance(pick, int) or pick < 0:
            raise ValueError(f"pick is a vehicle id (an int), or 0 for none, not {pick!r}")
        # Plain snapshots never turn to cells: asked for without compact, they would
        # silently not come.
        if not compact and (density == "always" or pick):
            raise ValueError("density cells and pick come with compact snapshots: "
                             "watch(compact=True, density=..., pick=...)")
        m = pb.ClientMessage()
        v = m.viewport
        if compact and view is None:
            w = self.welcome
            view = (0.0, 0.0, w.width, w.height)
        if view is None:
            v.clear = True
        else:
            v.x0, v.y0, v.x1, v.y1 = (float(c) for c in view)
        if compact:
            v.compact = True
            v.cols, v.rows = cols, rows
            v.density = _DENSITY[density]
            v.pick = pick
        w = Watch(self, "compact" if compact else "snapshot", backlog, events)
        with self._cond:
            if self._watch:
                self._watch._ended = True
            self._watch = w
            self._async_error = None
            self._cond.notify_all()
        self._send(m)
        # The server answers in order: an error about the Viewport comes before the
        # reply to a command sent after it, and every frame after that reply shows
        # the new view.
        cmd = pb.ClientMessage()
        cmd.command.call.name = "help"
        cmd.command.call.args.add().word = "quit"
        self._request(cmd, "watch", w)
        with self._cond:
            error = w._error
        if error:
            w.close()
            raise CommandError(error, "watch")
        return w

    def notices(self):
        """The notices received since the last call, oldest first (at most 1024)."""
        with self._cond:
            out = list(self._notices)
            self._notices.clear()
        return out

    # --- the reader thread -----------------------------------------------------------

    def _read_welcome(self):
        """The first frame, which must be a Welcome."""
        try:
            body = self._read_frame(first=True)
        except EOFError:
            raise ConnectionClosed(f"{self.host}:{self.port} closed the connection before "
                                   "its Welcome") from None
        except socket.timeout:
            raise ProtocolError(f"{self.host}:{self.port} sent no Welcome within "
                                f"{self.timeout} s: is it steer-server's protobuf port "
                                "(--port, 7700 by default)? steer.connect_text() speaks "
                                "the text "
                                "port") from None
        m = pb.ServerMessage()
        try:
            _parse(m, bytes(body))
        except Exception:  # noqa: BLE001 - the protobuf library's DecodeError
            raise ProtocolError(f"{self.host}:{self.port} does not speak steer-server's "
                                "protobuf protocol") from None
        kind = m.WhichOneof("msg")
        if kind == "reply" and not m.reply.ok:
            raise ConnectionClosed(f"{self.host}:{self.port}: {m.reply.error}")
        if kind != "welcome":
            raise ProtocolError(f"{self.host}:{self.port} sent {kind or 'nothing known'} "
                                "before its Welcome")
        if m.welcome.protocol_version != PROTOCOL_VERSION:
            raise ProtocolError(f"{self.host}:{self.port} speaks protocol version "
                                f"{m.welcome.protocol_version}, this client "
                                f"{PROTOCOL_VERSION}")
        return m.welcome

    def _take_frame(self):
        """The body of a whole frame at the start of the buffer, taken out of it; None
        while the buffer holds less."""
        try:
            at = frame_at(self._buf)
        except ProtocolError as e:
            raise ProtocolError(f"{self.host}:{self.port}: {e}") from None
        if at is None:
            return None
        start, end = at
        body = bytes(self._buf[start:end])
        del self._buf[:end]
        return body

    def _read_frame(self, first=False):
        """The next frame's body; EOFError when the connection ends. The first: the text
        port answers the Hello with a line (its bytes hold a newline, which ends a line
        there), told at once rather than as no Welcome after the timeout."""
        buf = self._buf
        while True:
            if first and buf.startswith((b"OK ", b"ERR ")):
                raise ProtocolError(f"{self.host}:{self.port} is steer-server's text port: "
                                    "steer.connect() speaks the protobuf port (--port, "
                                    "7700 by default), steer.connect_text() this one")
            if first and buf.startswith(b"HTTP/"):
                raise ProtocolError(f"{self.host}:{self.port} is a web server (steer-server's "
                                    "--http page?): steer.connect() speaks the protobuf "
                                    "port (--port, 7700 by default)")
            body = self._take_frame()
            if body is not None:
                return body
            chunk = self._sock.recv(1 << 20)
            if not chunk:
                raise EOFError
            buf += chunk

    def _run(self):
        try:
            while True:
                self._dispatch(self._read_frame())
        except EOFError:
            self._fail(f"{self.host}:{self.port} closed the connection")
        except ProtocolError as e:
            self._fail(str(e), ProtocolError)
            try:
                self._sock.close()
            except OSError:
                pass
        except OSError as e:
            self._fail(f"{self.host}:{self.port}: {e.strerror or e}")
        except Exception as e:  # noqa: BLE001 - surfaces in the caller's next wait
            self._fail(f"{self.host}:{self.port}: the client failed reading: {e!r}")

    def _dispatch(self, body):
        kind = _TAG.get(body[0]) if body else None
        watch = self._watch
        # Frames nobody watches are not parsed: a command-only client skips them.
        if kind == "snapshot" and watch is None:
            self._index += 1
            return
        if kind == "density" and watch is None:
            self._index += 1
            return
        m = pb.ServerMessage()
        try:
            _parse(m, body)
        except Exception:  # noqa: BLE001 - the protobuf library's DecodeError
            raise ProtocolError(f"{self.host}:{self.port}: a malformed ServerMessage") from None
        kind = m.WhichOneof("msg")
        item = None
        if kind == "compact":
            # Always decoded, watched or not: the next delta builds on it.
            f = self._decoder.decode(m.compact)
            if watch is not None and watch._kind == "compact":
                item = codec.compact_frame(m.compact, f, self.geometry)
        elif kind == "snapshot":
            item = codec.plain_frame(m.snapshot, self.geometry)
        elif kind == "density":
            item = codec.density_frame(m.density, self.geometry)
        elif kind == "geometry":
            g = _geometry(m.geometry)
            if g is not None:
                self.geometry = g
                if watch is not None and watch._events:
                    item = g
        elif kind == "notice":
            item = Notice(m.notice.text)
            with self._cond:
                self._notices.append(item)
            if watch is None or not watch._events:
                item = None
        elif kind == "welcome":
            self.welcome = m.welcome  # again after 'auth' on a --private server
        with self._cond:
            self._index += 1
            if kind == "reply":
                r = m.reply
                if r.request_id in self._waiting:
                    self._replies[r.request_id] = (self._index, r)
                    if watch is not None and r.request_id == watch._sync:
                        watch._armed = True
                elif not r.ok and r.request_id == 0:
                    # An error about no command: a refused Viewport, or why the
                    # server is about to close the connection. (A reply nobody waits
                    # for any more, after a Timeout, is dropped.)
                    self._async_error = r.error
                    if watch is not None and not watch._armed:
                        watch._error = r.error
            elif item is not None and watch is not None and watch._armed and not watch._ended:
                watch._put(self._index, item)
            self._cond.notify_all()

    def _fail(self, why, exc=ConnectionClosed):
        with self._cond:
            if not self._closed:
                self._closed_exc = exc
                # The server says why it closes in an error Reply just before.
                if self._async_error and not self._closed_by_us:
                    why = f"{why}: {self._async_error}"
                self._closed = why
            self._cond.notify_all()

    def close(self):
        """Closes the connection; the reader thread ends."""
        with self._cond:
            if not self._closed:
                self._closed_by_us = True
                self._closed = "closed by this client"
            self._cond.notify_all()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        if threading.current_thread() is not self._reader:
            self._reader.join(5)

    @property
    def closed(self):
        """None while open, else why it closed."""
        return self._closed

    def __repr__(self):
        state = "closed" if self._closed else "open"
        return f"<steer.Client {self.host}:{self.port} {state}>"


def _four_numbers(view):
    try:
        return len(view) == 4 and all(isinstance(c, (int, float)) for c in view)
    except TypeError:  # no len()
        return False


def _check_host(host):
    if not isinstance(host, str):
        raise TypeError(f"host is a name or an address, a string, not {host!r}; the port "
                        "comes second or as port=")


def _parse(m, data):
    """Parses data into the message m; the protobuf library's DecodeError on bytes it
    cannot read. The RuntimeWarnings it prints about such bytes are not shown: the
    caller says what went wrong."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m.ParseFromString(data)


def _hello_data(m):
    """The Hello m's bytes, never 10 of them: a frame of 10 begins with a newline,
    which the text port (a mistaken port) takes as an empty line and answers nothing,
    where it answers any other line at once. An empty token, which the server reads as
    none, makes such a Hello 12."""
    data = m.SerializeToString()
    if len(data) == 10:
        inner = m.hello.SerializeToString() + b"\x1a\x00"  # field 3 (token), length 0
        data = b"\x0a" + _varint(len(inner)) + inner  # field 1 (hello)
    return data


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# The protobuf port's framing, both ways: each message is its length as a varint,
# then its bytes. (tests/server/steertest.py frames with these too.)


def encode_frame(data):
    """data (a serialized message) as one frame."""
    return _varint(len(data)) + data


def frame_at(buf, pos=0):
    """The frame that starts at buf[pos]: (start, end) of its body in buf, or None
    while buf holds only part of it. Raises ProtocolError on a length over MAX_FRAME
    or one longer than a varint may be."""
    size = shift = 0
    end = len(buf)
    for i in range(pos, min(end, pos + 10)):
        b = buf[i]
        size |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if size > MAX_FRAME:
                raise ProtocolError(f"a frame of {size} bytes")
            start = i + 1
            return (start, start + size) if end - start >= size else None
    if end - pos >= 10:
        raise ProtocolError("a malformed frame length")
    return None


def _geometry(g):
    """A Geometry message as a steer.Geometry; None when malformed (the client then
    keeps the one it has, as steer-tui does)."""
    walls = []
    for w in g.walls:
        if not all(math.isfinite(c) for c in (w.x0, w.y0, w.x1, w.y1)):
            return None
        walls.append(Wall(w.id, w.x0, w.y0, w.x1, w.y1))
    polygons = []
    for p in g.polygons:
        if len(p.x) != len(p.y) or len(p.x) < 3 or not all(
                math.isfinite(c) for c in list(p.x) + list(p.y)):
            return None
        polygons.append(Polygon(p.id, list(zip(p.x, p.y)), p.inside))
    return Geometry(g.version, walls, polygons, g.contain)


def _offer_token(client, token):
    """Sends the token (default $STEER_TOKEN) if there is one. A server that takes
    none lets everyone change the world already: its refusal is no error here, so a
    token set for another server does not stop a connection to this one."""
    token = token if token is not None else os.environ.get("STEER_TOKEN")
    if not token:
        return
    try:
        client.call("auth", token)
    except CommandError as e:
        if "takes no token" not in str(e):
            raise


def connect(host="127.0.0.1", port=7700, token=None, timeout=DEFAULT_TIMEOUT, name=None):
    """Connects to steer-server's protobuf port. token: the server's --token (default
    $STEER_TOKEN), sent as 'auth'; name: how other clients see this connection;
    timeout: seconds to wait for the connection, each reply and each frame (None:
    forever). Raises ConnectionClosed, Timeout, ProtocolError, or CommandError (a
    refused token)."""
    _check_host(host)
    return Client(host, port, token, timeout, name)


def connect_text(host="127.0.0.1", port=7701, token=None, timeout=DEFAULT_TIMEOUT, name=None):
    """Connects to steer-server's text port: commands as on connect(), no snapshots.
    A reply that does not come within timeout closes the connection (the next reply
    read would be that one)."""
    _check_host(host)
    return TextClient(host, port, token, timeout, name)
