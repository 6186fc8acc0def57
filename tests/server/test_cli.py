"""The command-line tools as a user runs them: steer-server's and steerctl's flags,
steerctl's modes (one command, standard input, --watch, --json, --raw, the
interactive prompt through a pty) against a real server, and scripts/run.sh."""
import json
import os
import pty
import re
import select
import signal
import socket
import subprocess
import tempfile
import termios
import threading
import time

from steertest import SERVER, STEERCTL, WAIT, Checks, Server, expect, tcp_queues, wait_for

checks = Checks()
srv = Server("--scenario", "flock")
PORT = str(srv.cmd_port)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ctl(*args, stdin="", env=None):
    return subprocess.run([STEERCTL, *args], input=stdin, capture_output=True, text=True,
                          timeout=30, env=env)


def fake_server():
    """A listening socket on a free loopback port that a test answers by hand (or
    not at all); returns it and its port."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)
    lsock.settimeout(10)
    return lsock, lsock.getsockname()[1]


# --- flags -------------------------------------------------------------------------


def test_version_flags():
    for prog in [SERVER, STEERCTL]:
        r = subprocess.run([prog, "--version"], capture_output=True, text=True, timeout=10)
        expect(r.returncode == 0, f"{prog} --version: {r.returncode} {r.stderr}")
        expect(re.fullmatch(r"steer(-server|ctl) \d+\.\d+\.\d+\n", r.stdout), r.stdout)
    # One version for every binary.
    versions = {subprocess.run([p, "--version"], capture_output=True, text=True)
                .stdout.split()[1] for p in [SERVER, STEERCTL]}
    expect(len(versions) == 1, versions)


def test_unknown_options_are_named():
    for prog, name in [(SERVER, "steer-server"), (STEERCTL, "steerctl")]:
        r = subprocess.run([prog, "--bogus"], capture_output=True, text=True, timeout=10)
        expect(r.returncode == 2, f"{name} --bogus exit {r.returncode}")
        expect(f"unknown option '--bogus'" in r.stderr and "--help" in r.stderr, r.stderr)
        expect("needs a value" not in r.stderr, r.stderr)
    r = subprocess.run([SERVER, "--port"], capture_output=True, text=True, timeout=10)
    expect(r.returncode == 2 and "--port needs a value" in r.stderr, r.stderr)
    # A bad --world gets one message, whatever part of it is wrong.
    for bad in ["10x", "10x0", "x5", "10x5y", "1e10x5", "10"]:
        r = subprocess.run([SERVER, "--world", bad], capture_output=True, text=True, timeout=10)
        expect(r.returncode == 2 and r.stderr.count("steer-server:") == 1
               and f"--world: '{bad}' is not WxH" in r.stderr, f"{bad}: {r.stderr}")
    # A data directory that is empty, or a file, is refused before anything is made.
    with tempfile.NamedTemporaryFile() as f:
        for bad, why in (("", "--data-dir: an empty path"),
                         (f.name, f"--data-dir {f.name} is not a directory")):
            r = subprocess.run([SERVER, "--data-dir", bad, "--port", "0", "--cmd-port", "0",
                                "--no-http"], capture_output=True, text=True, timeout=10)
            expect(r.returncode == 2 and why in r.stderr, f"{bad!r}: {r.returncode} {r.stderr}")
    # Every option --help names that takes a value is known, and asks for it.
    out = subprocess.run([SERVER, "--help"], capture_output=True, text=True).stdout
    takes = re.findall(r"^  (--[a-z-]+) [A-Z]", out, re.M)
    expect(len(takes) >= 19, takes)
    for opt in takes:
        r = subprocess.run([SERVER, opt], capture_output=True, text=True, timeout=10)
        expect(r.returncode == 2 and f"{opt} needs a value (see --help)" in r.stderr,
               f"{opt}: {r.returncode} {r.stderr}")
    # getopt_long's refusals, worded alike by every program.
    for prog, name in [(SERVER, "steer-server"), (STEERCTL, "steerctl")]:
        for bad, want in ((["--json=1" if prog == STEERCTL else "--verbose=1"], "takes no value"),
                          (["--token"], "--token needs a value"),
                          (["--to", "x"], "'--to' is ambiguous: --token --token-file"),
                          (["-x"], "unknown option '-x'"),
                          (["--token", "--version"], "--token needs a value, and '--version' is "
                           "an option (give --token=--version if it is the value)")):
            r = subprocess.run([prog, *bad], capture_output=True, text=True, timeout=10)
            expect(r.returncode == 2 and f"{name}: " in r.stderr and want in r.stderr,
                   f"{name} {bad}: {r.returncode} {r.stderr!r}")
    # A whole number is digits: no exponent, hex, space or sign, which strtod takes.
    for flag, bad in (("--port", "7.7e3"), ("--port", "0x10"), ("--seed", " -1"),
                      ("--max-clients", "+5")):
        r = subprocess.run([SERVER, flag, bad], capture_output=True, text=True, timeout=10)
        expect(r.returncode == 2 and f"{flag}: '{bad}' is not a whole number" in r.stderr,
               f"{flag} {bad!r}: {r.stderr}")
    r = subprocess.run([SERVER, "--bind=foo"], capture_output=True, text=True, timeout=10)
    expect(r.returncode == 2 and "--bind: 'foo' is not an IPv4 or IPv6 address" in r.stderr,
           r.stderr)
    r = ctl("--host=", "stats")
    expect(r.returncode == 2 and "--host: an empty host name" in r.stderr, r.stderr)
    r = subprocess.run([SERVER, "--port", "0", "stray"], capture_output=True, text=True,
                       timeout=10)
    expect(r.returncode == 2 and "'stray' is not an option" in r.stderr, r.stderr)
    for bad in [["-p"], ["--port=abc"], ["-p", "0"], ["--watch", "0", "stats"],
                ["--count", "3", "stats"], ["--watch", "1"], ["--json", "--raw", "stats"],
                ["--name", "", "stats"], ["-p", PORT, "stats\nreset"]]:
        r = ctl(*bad)
        expect(r.returncode == 2 and "steerctl:" in r.stderr, f"{bad}: {r.returncode} {r.stderr}")


# --- steerctl against a real server ------------------------------------------------


def test_server_flags_spelt_with_equals():
    # --flag=value as well as --flag value, as getopt_long reads them: the world made
    # is the one asked for.
    s = Server("--no-journal", "--world=800x500", "--edges=bounce", "--seed=7",
               "--scenario=seek", "--max-vehicles=50")
    try:
        r = ctl("-p", str(s.cmd_port), "world")
        w = json.loads(r.stdout[3:])
        expect((w["width"], w["height"], w["edges"], w["seed"], w["max_vehicles"]) ==
               (800, 500, "bounce", 7, 50), r.stdout)
    finally:
        s.stop()


def test_ipv6_addresses_are_bracketed():
    # [::1]:7701, as URLs write it: "::1:7701" reads as an address without a port.
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        print("skip: no IPv6 loopback here")
        return
    s = Server("--no-journal", "--bind", "::1", "--http", "0")
    try:
        wait_for(lambda: "http://" in s.log_text(), "the page's address in the log")
        log = s.log_text()
        for what, port in (("cmd", s.cmd_port), ("web", s.web_port)):
            expect(f"listening {what} [::1]:{port}" in log, log)
        expect(f"http://[::1]:{s.web_port}/" in log, log)
        r = ctl("-h", "::1", "-p", str(s.cmd_port), "clients")
        expect(r.returncode == 0 and "[::1]:" in r.stdout, r)
        with socket.socket(socket.AF_INET6) as free:
            free.bind(("::1", 0))
            closed = free.getsockname()[1]
        r = ctl("-h", "::1", "-p", str(closed), "stats")
        expect(r.returncode == 2 and f"cannot connect to [::1]:{closed}:" in r.stderr, r)
    finally:
        s.stop()


def test_port_and_host_spellings():
    for args in [["-p", PORT], [f"-p{PORT}"], ["--port", PORT], [f"--port={PORT}"],
                 ["-h", "127.0.0.1", "-p", PORT], ["--host=127.0.0.1", f"--port={PORT}"],
                 ["--host", "localhost", "--port", PORT]]:
        r = ctl(*args, "stats")
        expect(r.returncode == 0 and r.stdout.startswith("OK {"), f"{args}: {r}")


def test_protobuf_port_is_recognised():
    r = ctl("-p", str(srv.proto_port), "stats")
    expect(r.returncode == 2, f"exit {r.returncode}")
    expect(r.stdout == "", f"printed {r.stdout!r}")
    # What it found, and no fixed port number: this server's command port is not 7701.
    expect("protobuf stream" in r.stderr and "not its text command port" in r.stderr and
           "listening cmd" in r.stderr, r.stderr)
    expect("7701" not in r.stderr, f"a port this server does not use: {r.stderr}")
    # The same from standard input and under --watch.
    r = ctl("-p", str(srv.proto_port), stdin="stats\n")
    expect(r.returncode == 2 and "protobuf stream" in r.stderr, r)


def test_default_protobuf_port_names_the_command_port_only_when_it_answers():
    # 7700 is the default protobuf port, but the command port is 7701 only when the
    # server was started so: steerctl names it only when it answers there.
    if not (port_free(7700) and port_free(7701)):
        print("skipped: 7700 or 7701 is in use")
        return
    other = Server("--port", "7700")  # the command port: a free one, not 7701
    try:
        r = ctl("-p", "7700", "stats")
        expect(r.returncode == 2 and "protobuf stream" in r.stderr and
               "7701" not in r.stderr and "listening cmd" in r.stderr, r.stderr)
    finally:
        other.stop()
    usual = Server("--port", "7700", "--cmd-port", "7701")
    try:
        r = ctl("-p", "7700", "stats")
        expect(r.returncode == 2 and "--port 7701" in r.stderr, r.stderr)
    finally:
        usual.stop()


def test_full_servers_protobuf_port_is_recognised_too():
    """A full server's protobuf port answers with a Reply, not a Welcome."""
    full = Server("--max-clients", "1")
    hold = full.text()
    hold.ok("stats")
    r = ctl("-p", str(full.proto_port), "stats")
    expect(r.returncode == 2 and "protobuf stream" in r.stderr, r)
    # Turned away before any command ran: no connection (2), the server's words said.
    r = ctl("-p", str(full.cmd_port), "stats")
    expect(r.returncode == 2 and r.stdout == "" and "ERR server full" in r.stderr, r)
    hold.close()
    full.stop()


def test_not_steer_at_all():
    # A server that speaks something else first.
    lsock, port = fake_server()
    proc = subprocess.Popen([STEERCTL, "-p", str(port), "stats"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    conn, _ = lsock.accept()
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
    out, err = proc.communicate(timeout=10)
    conn.close()
    lsock.close()
    expect(proc.returncode == 2 and out == "", (proc.returncode, out))
    expect("does not speak steer's text protocol" in err and "HTTP/1.1" in err, err)


def test_world_alone_reports_the_settings():
    r = ctl("-p", PORT, "world")
    expect(r.returncode == 0 and r.stdout.startswith("OK {"), f"{r.returncode} {r.stdout!r} "
                                                              f"{r.stderr!r}")
    got = json.loads(r.stdout[3:])
    want = srv.text().ok("stats")
    for k in ("width", "height", "edges", "solid", "contain", "tick_rate", "seed"):
        expect(got.get(k) == want[k], f"{k}: {got.get(k)!r}, stats says {want[k]!r}")
    expect(abs(got["dt"] * got["tick_rate"] - 1) < 1e-12, got)
    r = ctl("-p", PORT, "--json", "world")
    expect(r.returncode == 0 and json.loads(r.stdout)["width"] == got["width"], r.stdout)


def test_token_flags():
    tok = "cli-token-0123456789"
    own = Server("--token", tok)
    try:
        port = str(own.cmd_port)
        r = ctl("-p", port, "pause")
        expect(r.returncode == 1 and "read-only" in r.stdout, f"without: {r}")
        # A read-only connection may still ask what the world is.
        r = ctl("-p", port, "world")
        expect(r.returncode == 0 and '"edges"' in r.stdout, f"world read-only: {r}")
        r = ctl("-p", port, "--token", tok, "pause")
        expect(r.returncode == 0 and r.stdout == "OK\n", f"--token: {r}")
        r = ctl("-p", port, f"--token={tok}", "resume")
        expect(r.returncode == 0, f"--token=: {r}")
        with tempfile.NamedTemporaryFile("w", suffix=".token") as f:
            f.write(tok + "\n")
            f.flush()
            r = ctl("-p", port, "--token-file", f.name, "pause")
            expect(r.returncode == 0 and r.stdout == "OK\n", f"--token-file: {r}")
        env = dict(os.environ, STEER_TOKEN=tok)
        r = ctl("-p", port, "resume", env=env)
        expect(r.returncode == 0 and r.stdout == "OK\n", f"STEER_TOKEN: {r}")
        r = ctl("-p", port, stdin="pause\nresume\n", env=env)
        expect(r.returncode == 0, f"STEER_TOKEN, standard input: {r}")
        # A flag wins over the environment: a wrong one is refused, whatever is set.
        r = ctl("-p", port, "--token", "not-the-token", "stats", env=env)
        expect(r.returncode == 2 and r.stdout == "" and "refused the token" in r.stderr and
               "wrong token" in r.stderr, f"wrong token: {r}")
        r = ctl("-p", port, "--token-file", "/nonexistent/token", "stats")
        expect(r.returncode == 2 and "--token-file /nonexistent/token" in r.stderr
               and "see --help" not in r.stderr, r)
        r = ctl("-p", port, "--token", "two words", "stats")
        expect(r.returncode == 2 and "without spaces" in r.stderr, r)
        r = ctl("-p", port, "--token", tok, "--token-file", "/dev/null", "stats")
        expect(r.returncode == 2 and "choose one" in r.stderr, r)
    finally:
        own.stop()
    # A full server turns steerctl away before its token is read: that is said as
    # it is, not as a refused token.
    full = Server("--token", tok, "--max-clients", "1")
    held = full.text()
    try:
        held.cmd("stats")
        r = ctl("-p", str(full.cmd_port), "--token", tok, "stats")
        expect(r.returncode == 2 and "server full" in r.stderr and
               "refused the token" not in r.stderr, f"full: {r}")
        # Without a token too: no command ran, so it is no connection (2), not a
        # failed command (1), one command or many.
        for args, stdin in ((["stats"], ""), ([], "stats\nstats\n")):
            r = ctl("-p", str(full.cmd_port), *args, stdin=stdin)
            expect(r.returncode == 2 and "server full" in r.stderr and "failed" not in r.stderr,
                   f"full, {args or 'standard input'}: {r}")
    finally:
        held.close()
        full.stop()
    r = subprocess.run([SERVER, "--token", tok, "--token-file", "/dev/null"],
                       capture_output=True, text=True, timeout=10)
    expect(r.returncode == 2 and "give one --token or --token-file" in r.stderr, r.stderr)
    # A server without a token has nothing to unlock: STEER_TOKEN set for another
    # server does not stop steerctl.
    r = ctl("-p", PORT, "stats", env=dict(os.environ, STEER_TOKEN=tok))
    expect(r.returncode == 0 and r.stdout.startswith("OK {"), f"tokenless server: {r}")


def test_batch_exit_status_counts_failures():
    r = ctl("-p", PORT, stdin="stats\n# a comment\n\nbogus\nget 99999\nlist\n")
    expect(r.returncode == 1, f"exit {r.returncode}")
    lines = r.stdout.splitlines()
    expect(len(lines) == 4, [x[:80] for x in lines])  # the comment and blank line send nothing
    expect(lines[1].startswith("ERR unknown command") and lines[2].startswith("ERR "),
           [x[:80] for x in lines])
    expect("2 of 4 commands failed" in r.stderr, r.stderr)
    r = ctl("-p", PORT, stdin="stats\nlist")  # the last line without its newline
    expect(r.returncode == 0 and r.stderr == "" and len(r.stdout.splitlines()) == 2, r)


def test_one_command_exit_status():
    expect(ctl("-p", PORT, "get", "99999").returncode == 1, "ERR exits 1")
    expect(ctl("-p", "1", "stats").returncode == 2, "no server exits 2")


def test_blank_command_is_refused_at_once():
    # the server answers no blank line: steerctl says so rather than wait for a reply
    for blank in [[""], [" "], ["", "\t"]]:
        t0 = time.monotonic()
        r = ctl("-p", PORT, *blank)
        expect(r.returncode == 2 and "the COMMAND is blank" in r.stderr, (blank, r))
        expect(time.monotonic() - t0 < 5, f"{blank}: took {time.monotonic() - t0:.1f} s")


def test_json_mode():
    r = ctl("-p", PORT, "--json", "stats")
    expect(r.returncode == 0, r)
    stats = json.loads(r.stdout)  # the bare JSON: no "OK " in front
    expect(stats["vehicles"] > 0, stats)
    r = ctl("-p", PORT, "--json", "get", "99999")
    expect(r.returncode == 1 and r.stdout == "" and r.stderr.startswith("ERR "), r)
    r = ctl("-p", PORT, "--json", "resume")  # a plain OK prints nothing
    expect(r.returncode == 0 and r.stdout == "", r)
    r = ctl("-p", PORT, "--json", stdin="stats\nbogus\nsaves\n")
    outs = [json.loads(line) for line in r.stdout.splitlines()]
    expect(len(outs) == 2 and "tick" in outs[0] and "saves" in outs[1], outs)
    expect(r.returncode == 1 and "1 of 3 commands failed" in r.stderr, r)


def test_raw_mode_is_the_server_s_lines():
    r = ctl("-p", PORT, "--raw", "help")
    expect(r.returncode == 0 and r.stdout.startswith('OK {"commands":['), r.stdout[:80])
    expect(r.stdout.count("\n") == 1, "one line")


def test_help_is_a_table():
    r = ctl("-p", PORT, "help")
    expect(r.returncode == 0, r)
    lines = r.stdout.splitlines()
    expect(not r.stdout.startswith("OK"), r.stdout[:40])
    # "  pause    stop the clock": usage, then the description in one column.
    rows = {line.split()[0]: line for line in lines if line.startswith("  ") and line[2] != " "}
    for name in ["pause", "stats", "saves", "clients", "name", "quit"]:
        expect(name in rows, f"help lacks {name}: {lines}")
    expect(re.match(r"  pause +stop the clock$", rows["pause"]), rows["pause"])
    col = rows["pause"].index("stop the clock")
    expect(rows["stats"].index("tick, counts") == col, "descriptions line up")
    expect(any(line.startswith("scenarios:") and "flock" in line for line in lines), lines)
    r = ctl("-p", PORT, "help", "set")
    expect(r.stdout.startswith("usage: set ID key=value"), r.stdout[:60])
    expect(re.search(r"^  max_speed +top speed", r.stdout, re.M), r.stdout)


def test_help_from_another_version_comes_as_sent():
    # steerctl lays help out from its own command table; a server with other commands
    # (older or newer) gets its reply shown as it came, not steerctl's list.
    lsock, port = fake_server()
    proc = subprocess.Popen([STEERCTL, "-p", str(port), "help"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    conn, _ = lsock.accept()
    conn.settimeout(10)
    got = b""
    while not got.endswith(b"\n"):
        got += conn.recv(4096)
    reply = 'OK {"commands":["teleport ID X Y"],"about":{"teleport":"move at once"},"scenarios":[]}'
    conn.sendall(reply.encode() + b"\n")
    out, err = proc.communicate(timeout=10)
    conn.close()
    lsock.close()
    expect(got == b"help\n", got)
    expect(proc.returncode == 0 and out == reply + "\n", (proc.returncode, out))
    expect("commands are not steerctl's" in err, err)


def test_watch_repeats_and_count_stops():
    t0 = time.time()
    r = ctl("-p", PORT, "--watch", "0.2", "--count", "3", "--json", "stats")
    expect(r.returncode == 0, r)
    ticks = [json.loads(line)["tick"] for line in r.stdout.splitlines()]
    expect(len(ticks) == 3, ticks)
    expect(ticks[0] < ticks[1] < ticks[2], f"the world moves between replies: {ticks}")
    expect(time.time() - t0 >= 0.4, "waits between replies")
    # Until Ctrl-C without --count.
    p = subprocess.Popen([STEERCTL, "-p", PORT, "--watch", "0.1", "stats"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got = [b""]

    def replies():
        if select.select([p.stdout], [], [], 0)[0]:
            got[0] += os.read(p.stdout.fileno(), 65536)
        return got[0].count(b"OK {") >= 2
    # steerctl writes each reply as it comes (ctl_print_reply flushes)
    wait_for(replies, lambda: f"two replies from steerctl --watch: {got[0]!r}")
    p.send_signal(signal.SIGINT)
    rest, _ = p.communicate(timeout=10)
    out = got[0].decode() + rest
    expect(p.returncode == 0 and out.count("OK {") >= 2, (p.returncode, out))


def test_name_flag_names_the_connection():
    r = ctl("-p", PORT, "--name", "carol", "--json", "clients")
    me = [c for c in json.loads(r.stdout)["clients"] if c.get("you")]
    expect(len(me) == 1 and me[0]["name"] == "carol" and me[0]["kind"] == "text", me)
    r = ctl("-p", PORT, "--name", "x" * 65, "stats")
    expect(r.returncode == 2, r)
    # The name the server would refuse is refused before connecting (port 1: nothing
    # there), with the control byte shown as a dot.
    r = ctl("-p", "1", "--name", "bob\x1b[2J", "stats")
    expect(r.returncode == 2 and "--name: 'bob.[2J' is not 1-64 printable" in r.stderr
           and "\x1b" not in r.stderr and "cannot connect" not in r.stderr, r)


# --- the interactive prompt ---------------------------------------------------------


class Pty:
    """steerctl on a pseudo-terminal, as a person at a keyboard runs it."""

    def __init__(self, *args, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(STEERCTL, [STEERCTL, *args], env)
        self.out = b""

    def read_until(self, what, timeout=WAIT, after=0):
        """Reads until `what` appears at or past offset `after` of the output."""
        deadline = time.time() + timeout
        while what.encode() not in self.out[after:]:
            r, _, _ = select.select([self.fd], [], [], max(0, deadline - time.time()))
            if not r:
                raise AssertionError(f"no {what!r} in {self.out[-400:]!r}")
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                raise AssertionError(f"closed before {what!r}: {self.out[-400:]!r}")
            self.out += chunk
        return self.out

    def type(self, keys):
        os.write(self.fd, keys.encode())

    def type_at_prompt(self, keys, timeout=WAIT):
        """Types once the line editor has the terminal in its own (non-canonical) mode.
        The prompt shows a moment before: a Ctrl-D typed then is taken by the kernel's
        canonical line discipline as an end of file that no read is waiting for, and
        lost, as it would be for a person typing ahead."""
        wait_for(lambda: not termios.tcgetattr(self.fd)[3] & termios.ICANON,
                 "the line editor to take the terminal", timeout, every=0.01)
        self.type(keys)

    def wait(self, timeout=WAIT):
        exited = []

        def done():
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                exited.append(os.waitstatus_to_exitcode(status))
                return True
            try:  # keep draining so it never blocks writing (the select paces the poll)
                if select.select([self.fd], [], [], 0.05)[0]:
                    self.out += os.read(self.fd, 65536)
            except OSError:
                pass
            return False
        try:
            wait_for(done, "the prompt to exit", timeout, every=0)
        except AssertionError:
            os.kill(self.pid, signal.SIGKILL)
            raise
        os.close(self.fd)
        return exited[0]


def test_interactive_prompt_history_and_completion():
    state = tempfile.mkdtemp(prefix="steer-state-")
    env = dict(os.environ, XDG_STATE_HOME=state, TERM="xterm")
    p = Pty("-p", PORT, env=env)
    prompt = f"steer 127.0.0.1:{PORT}> "
    p.read_until(prompt)
    p.type("sta\t")  # Tab completes the command name: "sta" alone is unknown
    p.read_until("ts ")
    p.type("\n")
    p.read_until('OK {"tick":')
    p.type("set 1 max_sp\t")  # and the keys of set
    p.read_until("eed=")
    p.type("60\n")
    p.read_until("\nOK")
    # The values of an enum key, and a command's fixed words: the rules steer-tui's
    # command line follows (cmd/complete.c).
    n = len(p.out)
    p.type("set 1 combine=prio\t")
    p.read_until("rity ", after=n)
    p.type("\n")
    p.read_until("\nOK", after=n)
    n = len(p.out)
    p.type("flock 1 of\t")
    p.read_until("f ", after=n + len("flock 1 of"))
    p.type("\n")
    p.read_until("\nOK", after=n)
    p.type("help\n")
    p.read_until("stop the clock")  # the table, not a line of JSON
    p.type("bogus\n")
    p.read_until("ERR unknown command 'bogus'")
    p.type("auth sekrit-token\n")  # a token typed in is not kept
    p.read_until("ERR this server takes no token")
    p.type("quit\n")
    expect(p.wait() == 0, "quit leaves with 0")
    hist = open(os.path.join(state, "steer", "steerctl_history")).read()
    expect("stats" in hist and "bogus" in hist, hist)
    expect("sekrit" not in hist, f"the token went into the history file: {hist}")
    mode = os.stat(os.path.join(state, "steer", "steerctl_history")).st_mode & 0o777
    expect(mode == 0o600, f"history file mode {oct(mode)}")
    # A new session recalls the last one's commands: Up Up is "help".
    p = Pty("-p", PORT, env=env)
    p.read_until(prompt)
    n = len(p.out)
    p.type("\x1b[A\x1b[A\x1b[A\n")
    p.read_until("stop the clock", after=n)  # history recalled
    p.read_until(prompt, after=p.out.index(b"stop the clock", n))
    p.type_at_prompt("\x04")  # Ctrl-D
    expect(p.wait() == 0, "Ctrl-D leaves with 0")


def test_interactive_prompt_sends_non_ascii_whole():
    """A typed 'café' reaches the server whole and is refused with its reason: the line
    editor in the C locale would drop the 'é' and rename the connection 'caf'."""
    env = dict(os.environ, TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    p = Pty("-p", PORT, env=env)
    p.read_until(f"steer 127.0.0.1:{PORT}> ")
    p.type_at_prompt("name caf\u00e9\n")
    p.read_until("ERR NAME: use 1-64 printable ASCII characters")
    p.type("quit\n")
    expect(p.wait() == 0, "quit leaves with 0")


def test_interactive_shows_unasked_lines_as_text():
    # What a server sends between commands goes to the terminal with its control
    # bytes as dots: a hostile server cannot retitle or clear the terminal.
    lsock, port = fake_server()
    env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(prefix="steer-state-"),
               TERM="xterm")
    p = Pty("-p", str(port), env=env)
    conn, _ = lsock.accept()
    conn.settimeout(10)
    lines = []

    def answer():  # "OK" to every command, as a server would
        got = b""
        try:
            while chunk := conn.recv(4096):
                got += chunk
                while b"\n" in got:
                    line, got = got.split(b"\n", 1)
                    lines.append(line)
                    conn.sendall(b"OK\n")
        except OSError:
            pass

    server = threading.Thread(target=answer, daemon=True)
    server.start()
    p.read_until(f"steer 127.0.0.1:{port}> ")
    conn.sendall(b"ERR idle \x1b]0;owned\x07\x1b[31mred\r\n")
    # In steerctl's socket before it sends the next command, which is when it looks.
    wait_for(lambda: tcp_queues(conn)[0] == 0, "the unasked line to reach steerctl")
    p.type("stats\n")
    out = p.read_until("the server said: ERR idle .]0;owned..[31mred\r\n")
    p.type("quit\n")
    expect(p.wait() == 0, "quit leaves with 0")
    conn.close()
    lsock.close()
    server.join(10)
    expect(lines[-1:] == [b"stats"], lines)
    expect(b"owned\x07" not in out and b"\x1b[31m" not in out, out[-300:])


def test_interactive_on_the_protobuf_port_says_so():
    env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(prefix="steer-state-"))
    p = Pty("-p", str(srv.proto_port), env=env)
    p.read_until("protobuf stream")
    expect(p.wait() == 2, "exit 2")


# --- run.sh -------------------------------------------------------------------------


def port_free(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def run_sh(state, tmp=None):
    """Starts scripts/run.sh without a terminal (temporary files in tmp); returns it
    and its output up to the line naming the ports."""
    build = os.path.dirname(os.path.dirname(os.path.abspath(SERVER)))
    env = dict(os.environ, XDG_STATE_HOME=state, STEER_BUILD_DIR=build,
               TMPDIR=tmp or tempfile.mkdtemp(prefix="steer-tmp-"))
    p = subprocess.Popen([os.path.join(REPO, "scripts", "run.sh")], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env, start_new_session=True)
    out = ""
    deadline = time.time() + 240
    while "command port" not in out and time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        out += line
    m = re.search(r"proto(?:buf)? port (\d+), command port (\d+)", out)
    expect(m, f"run.sh said: {out}")
    return p, int(m.group(1)), int(m.group(2)), out


def stop_run_sh(p):
    os.killpg(p.pid, signal.SIGTERM)
    p.communicate(timeout=30)


def test_run_sh_ports_and_cleanup():
    state = tempfile.mkdtemp(prefix="steer-state-")
    tmp = tempfile.mkdtemp(prefix="steer-tmp-")  # its TMPDIR: what it leaves shows here
    usual = port_free(7700) and port_free(7701)
    p, proto, cmd, out = run_sh(state, tmp)
    try:
        if usual:
            expect((proto, cmd) == (7700, 7701), f"the usual ports when free: {out}")
        r = ctl("-p", str(cmd), "stats")
        expect(r.returncode == 0, f"the command port it named answers: {r}")
    finally:
        stop_run_sh(p)
    expect(os.path.exists(os.path.join(state, "steer", "steer-server.log")), "log in state")
    expect(not [f for f in os.listdir(os.path.join(state, "steer")) if "ports" in f],
           "no leftover ports file")
    expect(os.listdir(tmp) == [], f"left in TMPDIR: {os.listdir(tmp)}")
    expect(ctl("-p", str(cmd), "stats").returncode == 2, "the server stopped with run.sh")


def test_run_sh_falls_back_when_the_ports_are_taken():
    # Hold 7701 (or find it held already): run.sh must still start, elsewhere.
    hold = socket.socket()
    hold.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        hold.bind(("127.0.0.1", 7701))
        hold.listen(1)
    except OSError:
        pass  # taken by something else: the same situation
    try:
        p, proto, cmd, out = run_sh(tempfile.mkdtemp(prefix="steer-state-"))
        try:
            expect(cmd != 7701 and "taken" in out, out)
            expect(ctl("-p", str(cmd), "stats").returncode == 0, "it answers")
        finally:
            stop_run_sh(p)
    finally:
        hold.close()


def test_two_run_sh_keep_both_logs():
    # Both used to write steer-server.log with 2>, so the second wiped the first's.
    state = tempfile.mkdtemp(prefix="steer-state-")
    a = run_sh(state)
    b = run_sh(state)
    stop_run_sh(b[0])
    stop_run_sh(a[0])
    d = os.path.join(state, "steer")
    with open(os.path.join(d, "steer-server.log")) as f:
        text = f.read()
    for p, proto, cmd, out in (a, b):
        expect(f"listening cmd 127.0.0.1:{cmd}" in text, f"run on {cmd} not in the log:\n{text}")
    left = [f for f in os.listdir(d) if f.startswith("steer-server.") and f != "steer-server.log"]
    expect(not left, f"per-run logs left: {left}")


def test_silent_peer_times_out():
    # A peer that accepts and never answers used to hold steerctl forever.
    lst, port = fake_server()
    try:
        t0 = time.time()
        r = ctl("-p", str(port), "--timeout", "1", "stats")
        expect(r.returncode == 2 and "no reply within 1 s" in r.stderr, r)
        expect(time.time() - t0 < 10, "took too long")
    finally:
        lst.close()
    r = ctl("-h")
    expect(r.returncode == 2 and "-h is --host" in r.stderr, r)
    r = ctl("--timeout", "x", "stats")
    expect(r.returncode == 2 and "--timeout" in r.stderr, r)


def test_giving_up_on_a_step_stops_it():
    # steerctl giving up on a reply must not leave the server stepping on: it resets
    # the connection (an orderly close reads as the end of its sending side only).
    own = Server("--scenario", "flock", "--idle-timeout", "0")
    try:
        port = str(own.cmd_port)
        b = own.text()
        b.ok("spawn flock 5000 400 300 150")  # a step of 100000 ticks takes minutes
        b.ok("pause")
        # A fraction of a second, as --watch takes.
        r = ctl("-p", port, "--timeout", "0.5", "step 100000")
        expect(r.returncode == 2 and "no reply within 0.5 s" in r.stderr
               and "the server stops a step" in r.stderr, r)
        wait_for(lambda: b.ok("stats")["clients"] == 1, "the step's connection to close")
        t1 = b.ok("stats")["tick"]
        t2 = b.ok("stats")["tick"]
        expect(b.ok("stats")["clients"] == 1, "the step's connection is still open")
        expect(t1 == t2, f"the step went on after steerctl gave up: {t1} -> {t2}")
    finally:
        own.stop()


for t in [test_version_flags, test_unknown_options_are_named,
          test_blank_command_is_refused_at_once, test_server_flags_spelt_with_equals,
          test_port_and_host_spellings,
          test_protobuf_port_is_recognised,
          test_default_protobuf_port_names_the_command_port_only_when_it_answers,
          test_full_servers_protobuf_port_is_recognised_too,
          test_not_steer_at_all, test_world_alone_reports_the_settings, test_token_flags,
          test_batch_exit_status_counts_failures, test_one_command_exit_status,
          test_json_mode, test_raw_mode_is_the_server_s_lines, test_help_is_a_table,
          test_help_from_another_version_comes_as_sent,
          test_watch_repeats_and_count_stops, test_name_flag_names_the_connection,
          test_interactive_prompt_history_and_completion,
          test_interactive_prompt_sends_non_ascii_whole,
          test_interactive_shows_unasked_lines_as_text,
          test_interactive_on_the_protobuf_port_says_so, test_run_sh_ports_and_cleanup,
          test_run_sh_falls_back_when_the_ports_are_taken, test_two_run_sh_keep_both_logs,
          test_silent_peer_times_out, test_giving_up_on_a_step_stops_it]:
    checks.run(t)


def test_server_stops_cleanly():
    code, err = srv.stop()
    expect(code == 0, f"exit status {code}; stderr tail: {err[-3000:]}")


checks.run(test_server_stops_cleanly)
raise SystemExit(checks.done())
