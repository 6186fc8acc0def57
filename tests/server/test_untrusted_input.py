"""What a client sends cannot corrupt what the server sends or logs: every
protobuf string the server sends parses with the official protobuf library (valid
UTF-8), echoed input is cut on character boundaries and escaped, a client's text
cannot forge a log line, and a NUL byte in a text line is refused."""
import re
import sys

import steer_pb2
from steertest import PROTOCOL_VERSION, Checks, Server, expect, varint

checks = Checks()
srv = Server("--scenario", "seek")


def pb_len(field, data):
    return varint(field << 3 | 2) + varint(len(data)) + data


def raw_command(line_bytes, rid):
    """A ClientMessage { command { request_id, line } } with any bytes as the line:
    the Python library refuses to build one that is not UTF-8."""
    cmd = varint(1 << 3) + varint(rid) + pb_len(2, line_bytes)
    msg = pb_len(2, cmd)
    return varint(len(msg)) + msg


def raw_call(name_bytes, word_bytes, rid):
    arg = pb_len(2, word_bytes)
    call = pb_len(1, name_bytes) + pb_len(2, arg)
    cmd = varint(1 << 3) + varint(rid) + pb_len(3, call)
    msg = pb_len(2, cmd)
    return varint(len(msg)) + msg


def reply_to(p, rid):
    """The Reply for rid, parsed by the official library (which refuses a string
    field that is not valid UTF-8)."""
    while True:
        m = p.read()
        if m.WhichOneof("msg") == "reply" and m.reply.request_id == rid:
            return m.reply


BAD_LINES = [
    b"a" * 38 + "\u00e9".encode(),            # cut inside the e-acute before
    b"a" * 39 + "\u20ac".encode(),             # a three-byte character at the cut
    b"\xff\xfe bogus",                         # not UTF-8 at all
    b"spawn 1 2 max_speed=\xc3",               # a character cut short
    b"spawn 1 2 \xed\xa0\x80=1",               # a surrogate
    b"get \xc0\xaf",                           # an overlong '/'
    b"x\xc2\x9b31mRED",                        # a C1 control (CSI)
    "spawn 1 2 m\u00e4x_speed=1".encode() + b"\xe2\x82" * 120,  # past the 256-byte error
]


def test_proto_replies_are_valid_utf8():
    p = srv.proto()
    for k, line in enumerate(BAD_LINES):
        rid = 100 + k
        p.send_raw(raw_command(line, rid))
        r = reply_to(p, rid)  # raises DecodeError on invalid UTF-8
        expect(not r.ok and r.error, f"{line!r}: {r}")
        expect(all(ord(ch) >= 0x20 and not 0x7f <= ord(ch) < 0xa0 for ch in r.error),
               f"a control character in {r.error!r}")
    p.send_raw(raw_call(b"\xff\xfe", b"x", 200))
    expect(not reply_to(p, 200).ok, "a call with a bad name")
    p.send_raw(raw_call(b"spawn", b"1\xff", 201))
    expect(not reply_to(p, 201).ok, "a call with a bad word")
    # A whole character of the line is shown, not the first half of it.
    p.send_raw(raw_command(b"a" * 37 + "\u00e9".encode(), 300))
    err = reply_to(p, 300).error
    expect("a" * 37 + "\u00e9" in err, err)
    p.close()


def test_text_replies_are_valid_utf8():
    t = srv.text()
    for line in BAD_LINES:
        t.send_raw(line + b"\n")
        r = t.line()  # strict UTF-8 decode: raises on a bad byte
        expect(r.startswith("ERR "), f"{line!r}: {r!r}")
        expect(all(ord(ch) >= 0x20 and not 0x7f <= ord(ch) < 0xa0 for ch in r),
               f"a control character in {r!r}")
    t.send_raw(b"\xff\xfe\n")
    expect("\\xff\\xfe" in t.line(), "bad bytes are shown escaped")
    t.close()


def test_client_text_cannot_forge_a_log_line():
    forged = "2099-01-01T00:00:00.000Z error FORGED"
    p = srv.proto(hello=False)
    m = steer_pb2.ClientMessage()
    m.hello.protocol_version = PROTOCOL_VERSION
    m.hello.client = "x'\n" + forged
    p.send(m)
    p.command(line="stats")  # the hello has been handled
    p.close()
    log = srv.log_text()
    for line in log.splitlines():
        expect(not line.startswith("2099"), f"a forged log line: {line!r}")
    expect("\\x0a" + forged in log, "the client's name is logged, escaped")


def test_nul_in_a_text_line_is_refused():
    t = srv.text()
    for line in [b"list\0garbage", b"\0", b"stats\0", b"\0stats"]:
        t.send_raw(line + b"\n")
        r = t.line()
        expect(r.startswith("ERR ") and "NUL" in r, f"{line!r} -> {r[:80]!r}")
    expect(t.cmd("stats").startswith("OK "), "the connection goes on")
    t.close()


def test_nul_in_a_protobuf_string_is_refused():
    # nanopb stops a string at its first NUL: the Command would run cut short.
    p = srv.proto()
    p.send_raw(raw_command(b"list\0garbage", 55))
    r = reply_to(p, 55)
    expect(not r.ok and "NUL" in r.error, f"Command.line: {r}")
    p.send_raw(raw_call(b"get\0x", b"1", 56))
    r = reply_to(p, 56)
    expect(not r.ok and "NUL" in r.error, f"Invocation.name: {r}")
    p.send_raw(raw_call(b"get", b"1\0x", 57))
    r = reply_to(p, 57)
    expect(not r.ok and "NUL" in r.error, f"Arg.word: {r}")
    expect(p.command(line="stats").ok, "the connection goes on")
    p.close()


def until_reply(p, rid):
    """Every message up to and including the Reply to rid, in order."""
    got = []
    while True:
        m = p.read()
        got.append(m)
        if m.WhichOneof("msg") == "reply" and m.reply.request_id == rid:
            return got


def test_private_welcome_says_nothing_about_the_world():
    s = Server("--world", "1234x567", "--edges", "bounce", "--tick-rate", "50", "--token",
               "sekrit-sekrit-sekrit", "--private")
    try:
        p = s.proto(hello=False)
        w = p.welcome
        expect(w.protocol_version == PROTOCOL_VERSION and w.max_frame > 0 and w.server, w)
        expect(w.width == 0 and w.height == 0 and w.edges == 0 and w.tick_rate == 0
               and w.snapshot_rate == 0, f"the world before auth: {w}")
        m = steer_pb2.ClientMessage()
        m.command.request_id = 7
        m.command.line = "auth sekrit-sekrit-sekrit"
        p.send(m)
        got = until_reply(p, 7)
        expect(got[-1].reply.ok, got[-1])
        kinds = [x.WhichOneof("msg") for x in got]
        expect(kinds.count("welcome") == 1, f"one full Welcome before the reply: {kinds}")
        w = got[kinds.index("welcome")].welcome
        expect(w.width == 1234 and w.height == 567 and w.edges == steer_pb2.BOUNCE
               and w.tick_rate == 50 and w.snapshot_rate > 0, f"after auth: {w}")
        p.close()
        # The token in Hello: the full Welcome follows it.
        q = s.proto(hello=False)
        expect(q.welcome.width == 0, q.welcome)
        m = steer_pb2.ClientMessage()
        m.hello.protocol_version = PROTOCOL_VERSION
        m.hello.client = "test"
        m.hello.token = "sekrit-sekrit-sekrit"
        q.send(m)
        expect(q.read_kind("welcome").width == 1234, "no full Welcome after a Hello token")
        q.close()
    finally:
        code, err = s.stop()
    expect(code == 0, err[-2000:])


TOKEN = "a-token-long-enough-1"


def replies(t, n):
    return [t.line() for _ in range(n)]


def test_repeated_wrong_tokens_are_refused():
    # Ten guesses in one write are read in one go: no clock decides the outcome.
    s = Server("--token", TOKEN)
    try:
        t = s.text()
        t.send_raw(b"".join(b"auth guess-%d\n" % k for k in range(10)) +
                   f"auth {TOKEN}\n".encode())
        got = replies(t, 11)
        for k, r in enumerate(got[:3]):
            expect(r.startswith("ERR wrong token"), f"guess {k}: {r}")
        for k, r in enumerate(got[3:]):
            expect(r.startswith("ERR too many wrong tokens") and " s" in r,
                   f"guess {k + 3} was checked: {r}")
        expect(t.cmd("spawn 1 1").startswith("ERR"), "the right token got in while refused")
        t.close()
    finally:
        code, err = s.stop()
    expect(code == 0, err[-2000:])
    # Every wrong token is logged; refusals once per backoff, so as not to flood.
    checked = [ln for ln in err.splitlines() if " warn " in ln and "wrong token (" in ln]
    expect(len(checked) == 3, f"{len(checked)} wrong tokens logged: {checked}")
    refused = [ln for ln in err.splitlines() if " warn " in ln and "auth refused" in ln]
    expect(len(refused) == 1, f"refusals logged: {refused}")


def test_wrong_tokens_count_per_address():
    s = Server("--token", TOKEN)
    try:
        a = s.text()
        a.send_raw(b"auth w1\nauth w2\nauth w3\n")
        for r in replies(a, 3):
            expect(r.startswith("ERR wrong token"), r)
        # Another connection from the same address is no fresh start: it is refused
        # while the backoff lasts, and checked as the address's fourth failure after.
        b = s.text()
        r = b.cmd("auth w4")
        expect(r.startswith("ERR too many wrong tokens") or
               (r.startswith("ERR wrong token") and "4 in a row" in r), r)
        a.close()
        b.close()
    finally:
        code, err = s.stop()
    expect(code == 0, err[-2000:])


def started_and_stopped(*args):
    """The log of a server that has started (answered a command) and stopped."""
    s = Server(*args)
    s.text().ok("help")  # its signal handlers are in place once it answers
    code, err = s.stop()
    expect(code == 0, err[-2000:])
    return err


def test_short_token_warns_at_start():
    err = started_and_stopped("--token", "short")
    expect(re.search(r" warn .*token.* 5 characters", err), f"no warning: {err}")
    err = started_and_stopped("--token", "x" * 16)
    expect(" warn " not in err, f"a warning for 16 characters: {err}")


for t in [test_proto_replies_are_valid_utf8, test_text_replies_are_valid_utf8,
          test_client_text_cannot_forge_a_log_line, test_nul_in_a_text_line_is_refused,
          test_nul_in_a_protobuf_string_is_refused,
          test_private_welcome_says_nothing_about_the_world,
          test_repeated_wrong_tokens_are_refused, test_wrong_tokens_count_per_address,
          test_short_token_warns_at_start]:
    checks.run(t)
code, err = srv.stop()
expect(code == 0, err[-2000:])
sys.exit(checks.done())
