"""steer-tui end to end: a real server, the real client inside tmux, keys sent with
send-keys and the screen read with capture-pane."""
import os
import pwd
import re
import signal
import socket
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import steer_pb2
from steertest import PROTOCOL_VERSION, WAIT, Checks, Server, expect, varint, wait_for

TUI = os.environ.get("STEER_TUI", "steer-tui")
SOCK = f"steer-test-{os.getpid()}"
checks = Checks()
tmpdir = tempfile.mkdtemp(prefix="steer-tui-")
exit_file = os.path.join(tmpdir, "exit")


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", SOCK, *args], capture_output=True, text=True,
                          timeout=10, check=check)


def capture(tag, escapes=False):
    """What session tag's pane shows (with its escape sequences when escapes)."""
    return tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", tag).stdout


def screen():
    return capture("tui")


def status_line(text):
    """The status line (the message line below it may mention "connected" too)."""
    for ln in text.splitlines():
        if ln.startswith((" connected", " disconnected", " connecting")):
            return ln
    return ""


def wait_in(tag, pred, what, timeout=WAIT, every=0.1, escapes=False):
    """Session tag's screen once pred(screen) holds; fails with the screen last seen
    when it does not within timeout seconds."""
    seen = [""]

    def shown():
        seen[0] = capture(tag, escapes)
        return pred(seen[0])
    wait_for(shown, lambda: f"{what}; screen:\n{seen[0]}", timeout, every)
    return seen[0]


def wait_screen(pred, what, timeout=WAIT):
    """The main session's screen once pred(screen) holds (see wait_in)."""
    return wait_in("tui", pred, what, timeout)


def wait_settled(tag="tui", settle=0.3):
    """The screen once two captures settle seconds apart are the same: what was on
    its way to the screen (a frame, a reply) has been drawn."""
    last = [None]

    def same():
        now = capture(tag)
        stable, last[0] = now == last[0], now
        return stable
    wait_for(same, lambda: f"the screen to settle; screen:\n{last[0]}", every=settle)
    return last[0]


def exit_code(path):
    """The exit status the pane's shell wrote to path, once it has (None before)."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    return text.strip() if text.endswith("\n") else None


def shown_tick(text):
    """The tick in the status line, or -1."""
    m = re.search(r"\btick (\d+)", status_line(text))
    return int(m.group(1)) if m else -1


def total_vehicles(text):
    ln = status_line(text)
    # "... | vehicles 40/152 in view | ..."
    part = ln.split("| vehicles ", 1)[1] if "| vehicles " in ln else ""
    return int(part.split("/")[1].split()[0]) if "/" in part else -1


def map_rows(text):
    """The map area: every line above the status line."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith((" connected", " disconnected", " connecting")):
            return lines[:i]
    return []


def resize(cols, rows):
    tmux("resize-window", "-t", "tui", "-x", str(cols), "-y", str(rows))


def pane_size():
    out = tmux("display-message", "-p", "-t", "tui", "#{pane_width} #{pane_height}").stdout
    w, h = out.split()
    return int(w), int(h)


def tui_pid():
    out = tmux("list-panes", "-t", "tui", "-F", "#{pane_pid}").stdout.split()
    return int(out[0]) if out else 0


srv = Server("--scenario", "flock")
expected = srv.text().ok("stats")["vehicles"]
env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
# exec: the pane's process is steer-tui itself; its status goes to a file
cmd = f"{TUI} --port {srv.proto_port} --name bob; echo $? > {exit_file}"
subprocess.run(["tmux", "-L", SOCK, "-f", "/dev/null", "new-session", "-d", "-s", "tui",
                "-x", "120", "-y", "40", cmd], env=env, check=True, timeout=10)


def test_shows_the_flock_moving():
    first = wait_screen(lambda t: total_vehicles(t) > 0, "first snapshot")
    expect(total_vehicles(first) == expected, f"status shows {total_vehicles(first)}, "
                                              f"server has {expected}:\n{status_line(first)}")
    arrows = sum(first.count(ch) for ch in "→↗↑↖←↙↓↘")
    expect(arrows > 20, f"only {arrows} vehicle glyphs on screen:\n{first}")
    wait_screen(lambda t: t != first, "the picture to change: nothing moves")


def test_uses_compact_snapshots():
    # steer-tui asks for compact frames at its map size: the server encodes them
    t = srv.text()
    wait_for(lambda: t.ok("stats")["compact_encoded"] > 0,
             "compact snapshots encoded: steer-tui does not use compact snapshots")
    t.close()


def test_command_line_spawns():
    before = total_vehicles(screen())
    tmux("send-keys", "-t", "tui", ":spawn 100 100", "Enter")
    text = wait_screen(lambda t: total_vehicles(t) == before + 1, "the spawned vehicle")
    expect('OK {"id":' in text, f"reply not shown:\n{text}")


def test_command_line_takes_long_lines():
    # The ':' line cut input at 511 bytes: a 40-point polygon became "ERR '515.643'
    # has no Y". It takes what the server takes, and a full line says so.
    import math
    pts = " ".join(f"{850 + 40 * math.cos(k * math.tau / 40):.3f} "
                   f"{450 + 40 * math.sin(k * math.tau / 40):.3f}" for k in range(40))
    line = "polygon " + pts
    expect(len(line) > 600, f"only {len(line)} bytes")
    tmux("send-keys", "-t", "tui", "Escape")  # clears the message line
    wait_screen(lambda t: "OK {" not in t and "ERR" not in t, "the message line cleared")
    tmux("send-keys", "-t", "tui", ":")
    tmux("send-keys", "-t", "tui", "-l", line)
    tmux("send-keys", "-t", "tui", "Enter")
    text = wait_screen(lambda t: re.search(r'OK \{"id":\d+', t) or "ERR" in t,
                       "the polygon's reply")
    m = re.search(r'OK \{"id":(\d+)', text)
    expect(m is not None, f"the polygon was refused:\n{text}")
    if m:
        t = srv.text()
        t.ok(f"remove {m.group(1)}")
        t.close()
    tmux("send-keys", "-t", "tui", ":")
    tmux("send-keys", "-t", "tui", "-l", "x" * 4100)
    text = wait_screen(lambda t: "the line is full: at most 4095 bytes" in t, "the line full")
    tmux("send-keys", "-t", "tui", "C-u", "Escape")


def test_command_line_says_non_ascii_is_not_taken():
    # It dropped the "\u00e9" of "caf\u00e9" unseen, then sent "name caf". The keys
    # after a dropped one clear the hint; the message line still says it.
    tmux("send-keys", "-t", "tui", ":")
    tmux("send-keys", "-t", "tui", "-l", "name b\u00f6\u00dfer")
    try:
        wait_screen(lambda t: "ASCII: a non-ASCII character was not added" in t,
                    "the ASCII hint")
    finally:
        tmux("send-keys", "-t", "tui", "C-u", "Escape")


def longest_run(text, ch):
    best = 0
    for ln in map_rows(text):
        best = max([best] + [len(r) for r in re.findall(f"{re.escape(ch)}+", ln)])
    return best


def test_walls_drawn_as_lines():
    # The flock scenario's world is 1000 x 600 and fitted to 120 columns: a wall
    # across most of it is a long run of line glyphs, a polygon's sides vertical ones.
    t = srv.text()
    wall = t.ok("wall 100 300 900 300.5")["id"]
    box = t.ok("polygon 200 100 400 100 400 250 200 250")["id"]
    text = wait_screen(lambda s: longest_run(s, "━") >= 40 and "┃" in s,
                       "the wall and the polygon")
    expect(sum(ln.count("━") for ln in map_rows(text)) >= 70, f"wall too short:\n{text}")
    t.ok(f"remove {wall}")
    t.ok(f"remove {box}")
    wait_screen(lambda s: "━" not in s and "┃" not in s, "the wall and polygon gone")
    t.close()


def test_space_pauses():
    tmux("send-keys", "-t", "tui", "Space")
    wait_screen(lambda t: "PAUSED" in status_line(t), "PAUSED in the status line")
    a = wait_settled()
    time.sleep(0.6)  # time passing while paused, to show that nothing moves
    b = screen()
    expect(a == b, "the screen changed while paused")
    tmux("send-keys", "-t", "tui", "Space")
    wait_screen(lambda t: "running" in status_line(t), "running again")


def test_shared_session_names():
    # --name is how others see this client; another client's pause shows by name
    t = srv.text()
    names = [c.get("name") for c in t.ok("clients")["clients"]]
    expect("bob" in names, f"steer-tui --name bob not in clients: {names}")
    t.ok("name alice")
    t.ok("pause")
    wait_screen(lambda text: "alice paused" in text, "'alice paused' on the message line")
    t.ok("resume")
    wait_screen(lambda text: "alice resumed" in text, "'alice resumed' on the message line")
    t.close()


def test_help_overlay():
    tmux("send-keys", "-t", "tui", "?")
    wait_screen(lambda t: "steer-tui keys" in t, "the help overlay")
    tmux("send-keys", "-t", "tui", "x")
    wait_screen(lambda t: "steer-tui keys" not in t, "the help overlay to close")


def test_help_whole_at_80x24():
    # every key's text whole in the overlay at 80x24, scrolling to the status line's
    # explanation (defect 3: "set the selected vehicle's target (arriv", "0  fit wor")
    resize(80, 24)
    tmux("send-keys", "-t", "tui", "?")
    text = wait_screen(lambda t: "steer-tui keys" in t, "the help overlay")
    for whole in ["set the selected vehicle's target (goto)",
                  "fit the whole world in the window",
                  "select the vehicle under the pointer; with one selected,"]:
        expect(whole in text, f"'{whole}' not whole:\n{text}")
    # the end: the connection; a few lines back: the status legend's rates
    tmux("send-keys", "-t", "tui", "G")
    text = wait_screen(lambda t: f"snapshots from 127.0.0.1:{srv.proto_port}" in t,
                       "the end of the help")
    expect("the cursor: s, F, o, t and Enter act there" in text,
           f"the map's legend not whole at the help's end:\n{text}")
    # Back a row at a time (the footer's first row falls by one each time) until the
    # rates' line is in view.
    for _ in range(40):
        if "snapshots a second" in text:
            break
        first = int(re.search(r"(\d+)-\d+ of \d+", text).group(1))
        tmux("send-keys", "-t", "tui", "k")
        text = wait_screen(lambda t, f=first: re.search(rf"\b{f - 1}-\d+ of \d+", t),
                           f"the help from row {first - 1}")
    expect("60/20 Hz" in text and "of the 60 asked" in text, f"the rates not whole:\n{text}")
    tmux("send-keys", "-t", "tui", "q")  # closes the help, does not quit
    wait_screen(lambda t: "steer-tui keys" not in t and " connected" in status_line(t),
                "the help to close")
    resize(120, 40)


def test_command_line_editing_and_help():
    # Home, then Ctrl-E, Ctrl-W, Tab completion; :help opens a readable page
    tmux("send-keys", "-t", "tui", ":pa", "Tab")
    wait_screen(lambda t: "path pause" in t, "the candidates for 'pa'")
    tmux("send-keys", "-t", "tui", "u", "Tab")
    wait_screen(lambda t: ":pause" in t.splitlines(), "completion of 'pau'")
    tmux("send-keys", "-t", "tui", "C-u", "sta", "Tab", "Home", "Right", "Delete", "t", "C-e",
         "Enter")
    # ":stats" retyped in the middle; its long reply opens in the pager, one key a line
    text = wait_screen(lambda t: '"tick_ms_p50":' in t, "stats in the pager")
    expect('  "vehicles": ' in text, f"not laid out:\n{text}")
    tmux("send-keys", "-t", "tui", "Escape")
    tmux("send-keys", "-t", "tui", ":help", "Enter")
    text = wait_screen(lambda t: "list the commands, or describe one" in t, "the command help")
    expect("spawn X Y [key=value ...]" in text, text)
    tmux("send-keys", "-t", "tui", "Escape")
    wait_screen(lambda t: "list the commands" not in t, "the command help to close")


def spawn_on_the_command_line(command):
    """Types a spawn on the ':' line and returns the new vehicle's id from its reply
    on the message line: an id the screen did not show before, so that an earlier
    spawn's reply still on the message line is not taken for this one's."""
    def ids(text):
        return set(int(n) for n in re.findall(r'OK \{"id":(\d+)\}', text))
    before = ids(screen())
    tmux("send-keys", "-t", "tui", ":" + command, "Enter")
    text = wait_screen(lambda t: ids(t) - before, f"the reply to '{command}'")
    return max(ids(text) - before)


def test_follow_across_the_wrap_edge():
    # a vehicle near the right edge of the wrapping world, moving right: followed, it
    # crosses to the left edge and the status keeps it (defect 4: "(off view)")
    vid = spawn_on_the_command_line("spawn 985 300 vx=40 vy=0")
    tmux("send-keys", "-t", "tui", f":select {vid}", "Enter")
    wait_screen(lambda t: f"#{vid} " in status_line(t) and "u/s" in status_line(t), "selected")
    tmux("send-keys", "-t", "tui", "c")
    wait_screen(lambda t: "| follow" in status_line(t), "following")
    t = srv.text()
    wait_for(lambda: t.ok(f"get {vid}")["x"] < 500, "the vehicle to wrap")
    # A frame from after the wrap on the screen: its tick or a later one.
    wrapped = t.ok("stats")["tick"]
    ln = wait_screen(lambda t: shown_tick(t) >= wrapped and f"#{vid} " in status_line(t) and
                     "u/s" in status_line(t), f"the followed vehicle after the wrap (tick "
                     f"{wrapped})")
    expect("off view" not in status_line(ln), status_line(ln))
    time.sleep(1.0)  # a second more of following: it is not lost later either
    ln = status_line(screen())
    expect(f"#{vid} " in ln and "u/s" in ln and "| follow" in ln, f"lost it: {ln}")
    t.ok(f"remove {vid}")
    t.close()
    tmux("send-keys", "-t", "tui", "Escape")
    tmux("send-keys", "-t", "tui", "0")
    # the next test reads the status line: not the one from before Escape
    wait_screen(lambda t: "| #" not in status_line(t) and "follow" not in status_line(t),
                "no selection, no follow")


def test_target_key_sends_goto():
    # t (a right click at the cursor) on a selected vehicle plans a route: goto, not
    # arrive, so that a target behind a wall is gone round
    vid = spawn_on_the_command_line("spawn 200 200")
    tmux("send-keys", "-t", "tui", f":select {vid}", "Enter")
    wait_screen(lambda t: f"#{vid} " in status_line(t) and "u/s" in status_line(t), "selected")
    tmux("send-keys", "-t", "tui", "t")
    t = srv.text()
    wait_for(lambda: "goto" in t.ok(f"get {vid}")["behaviors"], f"goto on #{vid}")
    g = t.ok(f"get {vid}")
    expect("goto" in g["behaviors"] and "arrive" not in g["behaviors"], g["behaviors"])
    t.ok(f"remove {vid}")
    t.close()
    tmux("send-keys", "-t", "tui", "Escape")
    wait_screen(lambda t: "| #" not in status_line(t), "no selection")


def test_select_with_keys_and_toggle_wander():
    tmux("send-keys", "-t", "tui", "Tab")
    text = wait_screen(lambda t: "#" in status_line(t) and "u/s" in status_line(t), "a selection")
    tmux("send-keys", "-t", "tui", "w")
    wait_screen(lambda t: "wander" in status_line(t), "wander on the selection")
    expect("flock" in status_line(text), status_line(text))


def selected_id(text):
    ln = status_line(text)
    return int(ln.split("| #", 1)[1].split()[0]) if "| #" in ln else 0


def test_selection_keys():
    # Shift-Tab walks back, f toggles flocking, x and f with nothing selected say so
    tmux("send-keys", "-t", "tui", "Escape")
    wait_screen(lambda t: "| #" not in status_line(t), "no selection")
    tmux("send-keys", "-t", "tui", "x")
    wait_screen(lambda t: "remove: nothing selected" in t, "x with nothing selected")
    tmux("send-keys", "-t", "tui", "f")
    wait_screen(lambda t: "flock: nothing selected" in t, "f with nothing selected")
    tmux("send-keys", "-t", "tui", "Tab")
    first = selected_id(wait_screen(lambda t: selected_id(t) > 0, "Tab"))
    tmux("send-keys", "-t", "tui", "Tab")
    second = selected_id(wait_screen(lambda t: selected_id(t) not in (0, first), "Tab again"))
    expect(second > first, f"Tab went from #{first} to #{second}")
    tmux("send-keys", "-t", "tui", "BTab")
    wait_screen(lambda t: selected_id(t) == first, f"Shift-Tab back to #{first}")
    text = wait_screen(lambda t: "u/s" in status_line(t), "the selection's behaviours")
    had = "flock" in status_line(text).split("u/s", 1)[1]
    tmux("send-keys", "-t", "tui", "f")
    wait_screen(lambda t: "u/s" in status_line(t) and
                ("flock" in status_line(t).split("u/s", 1)[1]) != had, "flocking toggled")
    tmux("send-keys", "-t", "tui", "f")
    wait_screen(lambda t: "u/s" in status_line(t) and
                ("flock" in status_line(t).split("u/s", 1)[1]) == had, "flocking toggled back")
    tmux("send-keys", "-t", "tui", ":select 999999", "Enter")
    wait_screen(lambda t: "select: " in t and "999999" in t, "select of no such vehicle")
    tmux("send-keys", "-t", "tui", "Escape")


def test_keypad_enter_runs_the_command_line():
    # tmux's terminfo has no keypad Enter (kent): its ESC O M came as a lone Esc,
    # which closed the line unsent.
    tmux("send-keys", "-t", "tui", ":")
    tmux("send-keys", "-t", "tui", "-l", "select 999998")
    tmux("send-keys", "-t", "tui", "KPEnter")
    wait_screen(lambda t: "select: " in t and "999998" in t, "the line sent by keypad Enter")
    tmux("send-keys", "-t", "tui", "Escape")


def test_selection_messages_replaced():
    # "flock: nothing selected..." stayed after Shift-Tab selected a vehicle, and
    # "following #5 (c again: off)" after Tab moved the selection
    tmux("send-keys", "-t", "tui", "Escape")
    wait_screen(lambda t: "| #" not in status_line(t), "no selection")
    tmux("send-keys", "-t", "tui", "f")
    wait_screen(lambda t: "flock: nothing selected" in t, "f with nothing selected")
    tmux("send-keys", "-t", "tui", "BTab")
    text = wait_screen(lambda t: selected_id(t) > 0, "Shift-Tab")
    first = selected_id(text)
    text = wait_screen(lambda t: f"selected #{first}" in t, f"'selected #{first}'")
    expect("nothing selected" not in text, f"the old message stayed:\n{text}")
    tmux("send-keys", "-t", "tui", "c")
    wait_screen(lambda t: f"following #{first} (c again: off)" in t, "following")
    tmux("send-keys", "-t", "tui", "Tab")
    text = wait_screen(lambda t: selected_id(t) not in (0, first), "Tab")
    second = selected_id(text)
    text = wait_screen(lambda t: f"following #{second}" in t, f"'following #{second}'")
    expect(f"following #{first}" not in text, f"the old message stayed:\n{text}")
    tmux("send-keys", "-t", "tui", "c", "Escape", "0")
    wait_screen(lambda t: "| #" not in status_line(t) and "follow" not in status_line(t),
                "no selection, no follow")


def test_selection_removed_elsewhere():
    # :select 5, c, then another client removes 5: the status kept "#5 (across the
    # edge) | follow" forever and x gave ERR
    t = srv.text()
    vid = t.ok("spawn 500 300")["id"]
    tmux("send-keys", "-t", "tui", f":select {vid}", "Enter")
    wait_screen(lambda t: selected_id(t) == vid, f"#{vid} selected")
    tmux("send-keys", "-t", "tui", "c")
    wait_screen(lambda t: "| follow" in status_line(t), "following")
    t.ok(f"remove {vid}")
    t.close()
    text = wait_screen(lambda t: f"#{vid} is gone" in t, f"'#{vid} is gone'")
    ln = status_line(text)
    expect("| #" not in ln and "follow" not in ln, f"still selected or following: {ln}")
    tmux("send-keys", "-t", "tui", "x")
    text = wait_screen(lambda t: "remove: nothing selected" in t, "x with nothing selected")
    expect("ERR" not in text, text)
    tmux("send-keys", "-t", "tui", "0")


def test_selection_dropped_when_the_world_is_replaced():
    # #1 selected, then another client ran reset and a wall (id 1 again): the status
    # showed "#1 (off view)" and x removed the wall. Likewise after scenario.
    tmux("send-keys", "-t", "tui", "Escape", "0", ":select 1", "Enter")
    wait_screen(lambda t: selected_id(t) == 1, "#1 selected")
    t = srv.text()
    t.ok("reset")
    wall = t.ok("wall 50 0 50 600")["id"]
    expect(wall == 1, f"the wall is #{wall}, not #1")
    text = wait_screen(lambda t: selected_id(t) == 0, "the selection dropped")
    expect("follow" not in status_line(text), status_line(text))
    tmux("send-keys", "-t", "tui", "x")
    wait_screen(lambda t: "remove: nothing selected" in t, "x with nothing selected")
    got = t.ok(f"get {wall}")
    expect(got.get("kind") == "wall", f"the wall is gone: {got}")
    # After a scenario, from another client: the old vehicle is not acted on.
    t.ok("scenario flock")
    wait_screen(lambda t: total_vehicles(t) > 0, "the flock")
    tmux("send-keys", "-t", "tui", "Tab")
    sel = selected_id(wait_screen(lambda t: selected_id(t) > 0, "Tab"))
    t.ok("scenario avoid")
    wait_screen(lambda t: selected_id(t) == 0, f"#{sel} dropped after the scenario")
    t.ok("scenario flock")
    t.close()
    wait_screen(lambda t: total_vehicles(t) > 0, "the flock back")
    tmux("send-keys", "-t", "tui", "Escape")


def test_stats_panel():
    tmux("send-keys", "-t", "tui", "S")
    text = wait_screen(lambda t: "tick ms p99" in t and "snapshot B/s" in t, "the stats panel")
    text = wait_screen(lambda t: any(ln.startswith(" vehicles") and ln.split()[1].isdigit()
                                     for ln in t.splitlines()), "a first sample")
    expect(" connected" in status_line(text), "the panel hides the status line")
    tmux("send-keys", "-t", "tui", "S")
    wait_screen(lambda t: "tick ms p99" not in t, "the panel to close")


def test_flags():
    r = subprocess.run([TUI, "--version"], capture_output=True, text=True, timeout=5)
    expect(r.returncode == 0 and r.stdout.startswith("steer-tui ") and
           r.stdout.split()[1][0].isdigit(), f"--version: {r.returncode} {r.stdout!r}")
    for bad in (["--bogus"], ["--port"], ["--port", "x"], ["--cmd-port", "70000"]):
        r = subprocess.run([TUI, *bad], capture_output=True, text=True, timeout=5)
        expect(r.returncode == 2 and "steer-tui:" in r.stderr, f"{bad}: {r.returncode} "
                                                                f"{r.stderr!r}")
    r = subprocess.run([TUI, "--bogus"], capture_output=True, text=True, timeout=5)
    expect("unknown option '--bogus'" in r.stderr, r.stderr)
    # --flag=value is read as the other programs read it.
    for bad, want in ((["--port=x"], "--port: 'x' is not a port number"),
                      (["--version=1"], "--version takes no value"),
                      (["--token"], "--token needs a value"),
                      (["stray"], "'stray' is not an option"),
                      (["--host="], "--host: an empty host name"),
                      (["--name", "--port"], "--name needs a value, and '--port' is an option")):
        r = subprocess.run([TUI, *bad], capture_output=True, text=True, timeout=5)
        expect(r.returncode == 2 and want in r.stderr, f"{bad}: {r.returncode} {r.stderr!r}")


def test_density_when_zoomed_out():
    # D cycles auto -> always -> never -> auto; always draws cells at any zoom, and
    # the selected vehicle still comes whole among them (Viewport.pick). The whole
    # world first: ':select 1' before centred the view on wherever #1 was, and a view
    # holding too few of the 6,000 below would never turn to cells (auto).
    tmux("send-keys", "-t", "tui", "0")
    wait_screen(framed(40), "the whole world framed at 120x40")
    tmux("send-keys", "-t", "tui", "Tab")
    wait_screen(lambda t: "u/s" in status_line(t), "a selection")
    # The debug aids draw every vehicle from plain snapshots: D turns them off, or
    # it would show no cells (it said "always" and drew vehicles).
    tmux("send-keys", "-t", "tui", "d")
    wait_screen(lambda t: "debug" in status_line(t), "the debug aids on")
    tmux("send-keys", "-t", "tui", "D")
    text = wait_screen(lambda t: "density:" in status_line(t), "density cells (always)")
    expect("density cells: always; debug aids off" in text, f"mode not shown:\n{text}")
    expect("debug" not in status_line(text), f"status: {status_line(text)}")
    # d and d again: each says where the aids are (the first said "on" after the
    # second had turned them off).
    tmux("send-keys", "-t", "tui", "d")
    wait_screen(lambda t: "debug" in status_line(t) and "come back with d or D" in t,
                "the debug aids on again, the cells waiting")
    tmux("send-keys", "-t", "tui", "d")
    wait_screen(lambda t: "density:" in status_line(t) and "debug aids off" in t,
                "the debug aids off, the cells back")
    text = wait_screen(lambda t: "u/s" in status_line(t), "the selection among the cells")
    expect("off view" not in status_line(text), f"status: {status_line(text)}")
    arrows = sum(text.count(ch) for ch in "→↗↑↖←↙↓↘")
    expect(arrows > 20, f"only {arrows} cells drawn:\n{text}")
    tmux("send-keys", "-t", "tui", "D")
    wait_screen(lambda t: "| vehicles " in status_line(t), "vehicles again (never)")
    tmux("send-keys", "-t", "tui", "D")
    # auto: more vehicles than the ~4,400 cells of the map turns cells on by itself.
    # Paused, so that the 6,000 solid bodies cost no ticks: what is waited for is the
    # snapshots' switch to cells, not a loaded machine's ticks.
    tmux("send-keys", "-t", "tui", ":pause", "Enter")
    tmux("send-keys", "-t", "tui", ":spawn flock 6000 500 300 280", "Enter")
    text = wait_screen(lambda t: "density:" in status_line(t), "density cells (auto)")
    expect("a cell" in status_line(text), f"status: {status_line(text)}")
    tmux("send-keys", "-t", "tui", ":reset", "Enter")
    wait_screen(lambda t: "| vehicles " in status_line(t), "vehicles after the reset")
    tmux("send-keys", "-t", "tui", ":resume", "Enter")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_reconnects_without_spinning():
    global srv
    port = srv.proto_port
    code, err = srv.stop()
    expect(code == 0, err[-1000:])
    text = wait_screen(lambda t: "disconnected, retrying" in t, "the disconnected status")
    # Across the map, not a stale picture of a world that may be gone.
    text = wait_screen(lambda t: f"disconnected from 127.0.0.1:{port}:" in t and "q quits" in t,
                       "the disconnected message across the map")
    expect("\u2502" not in text, f"the old map is still drawn:\n{text}")
    pid = tui_pid()
    c0 = cpu_seconds(pid)
    time.sleep(2.0)  # a rate: the CPU it uses over 2 s
    used = cpu_seconds(pid) - c0
    expect(used < 0.3, f"steer-tui used {used:.2f} s of CPU in 2 s while disconnected")
    srv = Server("--scenario", "seek", "--port", str(port))
    wait_screen(lambda t: total_vehicles(t) == 1, "reconnection")


def test_resize_then_keys():
    # Each size, then keys: the status line must sit on the second-to-last row of the
    # new size, the map must be redrawn to its width, and the client must keep reading
    # keys (the help overlay opens and closes). A client spinning on KEY_RESIZE after
    # the first resize never redraws again.
    for cols, rows in [(119, 40), (100, 30), (20, 8), (140, 45), (80, 24), (120, 40)]:
        resize(cols, rows)
        expect(pane_size() == (cols, rows), f"tmux did not resize to {cols}x{rows}")
        # The status line at the new size first: keys sent with the resize may be read
        # before the client sees SIGWINCH, and a fit at the old size frames nothing.
        wait_screen(lambda t: len(t.splitlines()) >= rows - 1 and
                    t.splitlines()[rows - 2].startswith(" connected"),
                    f"the status line at {cols}x{rows}")
        tmux("send-keys", "-t", "tui", "j")

        def redrawn(t):
            lines = t.splitlines()
            if len(lines) < rows - 1 or not lines[rows - 2].startswith(" connected"):
                return False
            # fitted to the new size, the border's corners sit on the map rows
            return sum(ln.count("+") for ln in lines[: rows - 2]) == 4
        # Fit: the world's border frames the map. tmux keeps the old bottom rows when it
        # shrinks a pane, so the status line above can be the old one, and a fit read
        # before the client sees SIGWINCH frames the old size: press it again until the
        # new size is framed (a client that stopped reading keys never gets there).
        seen, pressed = [""], [0.0]

        def fitted():
            if time.monotonic() - pressed[0] > 1.5:
                tmux("send-keys", "-t", "tui", "0")
                pressed[0] = time.monotonic()
            seen[0] = screen()
            return redrawn(seen[0])
        wait_for(fitted, lambda: f"a redraw at {cols}x{rows}; screen:\n{seen[0]}")
        text = seen[0]
        lines = text.splitlines()
        expect(max(len(ln) for ln in lines) <= cols, f"a line wider than {cols}:\n{text}")
        tmux("send-keys", "-t", "tui", "?")
        wait_screen(lambda t: "steer-tui" in t and "keys" in t, f"help at {cols}x{rows}")
        tmux("send-keys", "-t", "tui", "Escape")
        wait_screen(lambda t: len(t.splitlines()) >= rows - 1 and
                    t.splitlines()[rows - 2].startswith(" connected") and "steer-tui" not in t,
                    f"help closed at {cols}x{rows}")
    pid = tui_pid()
    c0 = cpu_seconds(pid)
    time.sleep(1.0)  # a rate: the CPU it uses over 1 s
    used = cpu_seconds(pid) - c0
    expect(used < 0.5, f"steer-tui used {used:.2f} s of CPU in 1 s after resizing")


def framed(rows):
    """A check that the world's border frames the map of a pane rows high (its four
    corners on the map rows)."""
    def check(t):
        lines = t.splitlines()
        if len(lines) < rows - 1 or not lines[rows - 2].startswith(" connected"):
            return False
        return sum(ln.count("+") for ln in lines[: rows - 2]) == 4
    return check


def test_shrink_refits_the_whole_world():
    # A view fitted to the whole world is fitted again when the terminal shrinks or
    # grows, with no key pressed: the border frames the new map (its four corners on
    # the map rows). A zoomed view keeps its scale instead.
    tmux("send-keys", "-t", "tui", "0")
    wait_screen(framed(40), "the whole world framed at 120x40")
    for cols, rows in [(70, 20), (100, 30), (120, 40)]:
        resize(cols, rows)
        wait_screen(framed(rows), f"the whole world framed again at {cols}x{rows}")
    tmux("send-keys", "-t", "tui", "+", "+", "+")
    wait_screen(lambda t: not framed(40)(t), "a zoomed view")
    resize(100, 30)
    wait_screen(lambda t: len(t.splitlines()) >= 29 and
                t.splitlines()[28].startswith(" connected"), "the status line at 100x30")
    time.sleep(0.5)  # time for a refit that must not come
    expect(not framed(30)(screen()), f"a zoomed view was refitted:\n{screen()}")
    resize(120, 40)
    tmux("send-keys", "-t", "tui", "0")
    wait_screen(framed(40), "the whole world framed at 120x40")


def test_shrink_keeps_the_cursor_on_its_point():
    # Fitted at 120x40 with the cursor at the centre, then shrunk to 40x12: the view
    # was refitted but the cursor clamped to the map's last cell, right of the world's
    # frame, and s spawned at a wrapped point far from the centre
    resize(120, 40)
    tmux("send-keys", "-t", "tui", "Escape", "0")
    # Keys are taken in order: once the help the next key opens shows (and closes
    # again), the fit at 120x40 is done, before the resize.
    tmux("send-keys", "-t", "tui", "?")
    wait_screen(lambda t: "steer-tui keys" in t, "the help overlay")
    tmux("send-keys", "-t", "tui", "Escape")
    wait_screen(lambda t: "steer-tui keys" not in t and framed(40)(t) and
                "| #" not in status_line(t), "the help closed, the world fitted at 120x40")
    resize(40, 12)
    wait_screen(lambda t: len(t.splitlines()) >= 11 and t.splitlines()[10].startswith(" connected"),
                "the status line at 40x12")
    tmux("send-keys", "-t", "tui", "s")
    text = wait_screen(lambda t: selected_id(t) > 0, "the spawned vehicle selected")
    vid = selected_id(text)
    t = srv.text()
    got = t.ok(f"get {vid}")
    t.ok(f"remove {vid}")
    t.close()
    expect(abs(got["x"] - 500) < 100 and abs(got["y"] - 300) < 100,
           f"s spawned at ({got['x']:.0f},{got['y']:.0f}), not near the centre (500,300)")
    tmux("send-keys", "-t", "tui", "Escape")
    resize(120, 40)
    tmux("send-keys", "-t", "tui", "0")


def run_alone(env_extra, tag):
    """steer-tui in a tmux session of its own, with env_extra in its environment (the
    pane's command gets the tmux server's, not this one's); returns the path its exit
    status is written to."""
    out = os.path.join(tmpdir, f"exit-{tag}")
    env = " ".join(f"{k}={v}" for k, v in env_extra.items())
    cmd = f"env {env} {TUI} --port {srv.proto_port}; echo $? > {out}; sleep 30"
    subprocess.run(["tmux", "-L", SOCK, "new-session", "-d", "-s", tag, "-x", "100", "-y", "30",
                    cmd], check=True, timeout=10)
    return out


def colour_codes(text):
    """The SGR colour parameters (30-37, 40-47, 90-97, 100-107, 38/48) in a capture."""
    found = []
    for m in re.finditer(r"\x1b\[([0-9;]*)m", text):
        for p in m.group(1).split(";"):
            if p.isdigit() and (30 <= int(p) <= 38 or 40 <= int(p) <= 48 or
                                90 <= int(p) <= 97 or 100 <= int(p) <= 107):
                found.append(p)
    return found


def test_no_color():
    # the same picture without colour escapes; selection still in inverse
    out = run_alone({"NO_COLOR": "1"}, "nocolor")
    text = wait_in("nocolor", lambda t: "vehicles " in t and
                   any(c in t for c in "→↗↑↖←↙↓↘"), "the map", escapes=True)
    expect(not colour_codes(text), f"colour escapes {colour_codes(text)} with NO_COLOR=1")
    tmux("send-keys", "-t", "nocolor", "Tab")
    wait_in("nocolor", lambda t: "\x1b[7m" in t,
            "inverse (selection, status) without colour", escapes=True)
    tmux("send-keys", "-t", "nocolor", "q")
    # and the main session, with colour, has colour escapes: the check can fail
    main = tmux("capture-pane", "-p", "-e", "-t", "tui").stdout
    expect(colour_codes(main), "no colour escapes with colours on: the check proves nothing")
    tmux("kill-session", "-t", "nocolor", check=False)


def test_dumb_terminal_says_so():
    out = run_alone({"TERM": "dumb"}, "dumb")
    code = wait_for(lambda: exit_code(out), "steer-tui to exit on TERM=dumb (it kept running)")
    text = tmux("capture-pane", "-p", "-t", "dumb").stdout
    expect("cannot draw the map" in text, f"no message:\n{text}")
    expect(code not in ("", "0"), f"exit status {code!r}")
    tmux("kill-session", "-t", "dumb", check=False)


def test_ctrl_c_and_sigterm_after_resize():
    # the hang ignored Ctrl-C and SIGTERM too: each ends the client after resizes
    for tag in ("ctrlc", "sigterm"):
        out = run_alone({}, tag)
        wait_in(tag, lambda t: "vehicles" in t, f"{tag}: snapshots")
        for cols, rows in [(90, 25), (30, 10), (100, 30)]:
            tmux("resize-window", "-t", tag, "-x", str(cols), "-y", str(rows))
            tmux("send-keys", "-t", tag, "j")
        # The client has taken the resizes: its status line at the last size.
        wait_in(tag, lambda t: len(t.splitlines()) >= 29 and
                t.splitlines()[28].startswith(" connected"), f"{tag}: the status line at 100x30")
        if tag == "ctrlc":
            tmux("send-keys", "-t", tag, "C-c")
        else:
            # the pane runs sh -c "env ... steer-tui ...; echo ...": its child is the client
            shell = tmux("list-panes", "-t", tag, "-F", "#{pane_pid}").stdout.split()[0]
            pids = subprocess.run(["pgrep", "-P", shell], capture_output=True,
                                  text=True).stdout.split()
            expect(len(pids) == 1, f"steer-tui's pid not found: {pids}")
            for pid in pids:
                os.kill(int(pid), signal.SIGTERM)
        wait_for(lambda: exit_code(out) is not None, f"steer-tui to exit after {tag}")
        tmux("kill-session", "-t", tag, check=False)


def run_on_port(port, tag):
    tmux("new-session", "-d", "-s", tag, "-x", "120", "-y", "30",
         f"{TUI} --port {port}; sleep 30")


class FakePort:
    """A loopback listener that is not steer-server's protobuf port: reply(data) gives
    what to answer a connection's first bytes with (None: stay silent). Notes when it
    accepted each connection and when it closed it after replying."""

    def __init__(self, reply):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepts = []
        self.closes = []
        self.reply = reply
        self.conns = []
        self.closed = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                # a connection reset before it was taken is no reason to stop
                # listening; only close() is
                if self.closed:
                    return
                time.sleep(0.01)  # not a wait for anything: a pause before accepting again
                continue
            self.accepts.append(time.time())
            self.conns.append(c)
            if self.reply:
                try:
                    c.settimeout(2)
                    c.recv(4096)
                    c.sendall(self.reply)
                    c.close()
                    self.closes.append(time.time())
                except OSError:
                    self.closes.append(None)

    def close(self):
        self.closed = True
        self.sock.close()
        for c in self.conns:
            c.close()


def test_command_port_says_so():
    # pointed at the text port it waited forever for a first snapshot
    run_on_port(srv.cmd_port, "cmdport")
    text = wait_in("cmdport", lambda t: "command port" in t, "the command port message")
    want = (f"127.0.0.1:{srv.cmd_port} is steer-server's command port; steer-tui needs the "
            "protobuf port (--port, 7700 by default)")
    expect(want in text, f"not said:\n{text}")
    # and it stays said while the client retries (a new TCP connection is no reason
    # to say "connected to ...")
    deadline = time.time() + 4
    while time.time() < deadline:
        text = tmux("capture-pane", "-p", "-t", "cmdport").stdout
        expect("is steer-server's command port" in text, f"no longer said:\n{text}")
        time.sleep(0.1)  # sampling the screen for 4 s: it stays said all along
    # the status line names the address once: "(127.0.0.1:N is steer-server's ..."
    text = wait_in("cmdport", lambda t: "disconnected, retrying" in status_line(t),
                   "the retry status")
    ln = status_line(text)
    expect(ln.count(f"127.0.0.1:{srv.cmd_port}") == 1 and "command port" in ln, ln)
    tmux("kill-session", "-t", "cmdport", check=False)


def test_silent_port_says_so():
    fake = FakePort(None)
    run_on_port(fake.port, "silent")
    wait_in("silent", lambda t: f"127.0.0.1:{fake.port} is not a steer-server protobuf port "
            "(no Welcome within 3 s)" in t, "the silent port message")
    tmux("kill-session", "-t", "silent", check=False)
    fake.close()


def test_http_port_backs_off():
    # an HTTP server's answer is not protobuf: it said "malformed ServerMessage" and
    # reconnected every 0.2 s forever; the reconnect delay must grow instead
    body = b"<html><head><title>400 Bad Request</title></head><body>Bad Request</body></html>"
    fake = FakePort(b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    run_on_port(fake.port, "http")
    wait_in("http", lambda t: f"127.0.0.1:{fake.port} is not a steer-server protobuf "
            "port" in t, "the not-steer message")
    # Four connections show three delays, from the close of one to the next connect:
    # 0.25, 0.5, 1 s. A loaded machine (a sanitizer build next to an MPI test) adds its
    # own latency to each, and may take far longer than the backoff to get there.
    wait_for(lambda: len(fake.closes) >= 4,
             lambda: f"four connections answered: {len(fake.accepts)} accepted, "
             f"{len(fake.closes)} answered", every=0.1)
    took = time.time() - fake.accepts[0] if fake.accepts else 0.0
    n = len(fake.accepts)
    delays = [round(a - c, 2) for c, a in zip(fake.closes, fake.accepts[1:]) if c]
    screen_now = tmux("capture-pane", "-p", "-t", "http").stdout
    # The backoff goes on 2, 4, 5, 5 s: at most six connections in the first 10 s,
    # then one every 5 s. A fixed 0.25 s made one every 0.25-1.25 s.
    expect(n <= 6 + int(took // 5), f"{n} connections in {took:.1f} s, delays {delays}:\n"
           f"{screen_now}")
    expect(len(delays) >= 3 and delays[-1] > delays[0] * 2,
           f"the delay does not grow: {n} connections in {took:.1f} s, delays {delays}:\n"
           f"{screen_now}")
    tmux("kill-session", "-t", "http", check=False)
    fake.close()


def test_server_of_another_protocol_says_so():
    # a server of another release greets with its protocol version: the client must
    # not misread its snapshots, and says which versions disagree
    m = steer_pb2.ServerMessage()
    m.welcome.protocol_version = PROTOCOL_VERSION - 1
    m.welcome.width = m.welcome.height = 100
    data = m.SerializeToString()
    fake = FakePort(varint(len(data)) + data)
    run_on_port(fake.port, "oldsrv")
    want = (f"the server speaks protocol version {PROTOCOL_VERSION - 1} and this client "
            f"version {PROTOCOL_VERSION}")
    text = wait_in("oldsrv", lambda t: want in t, "the protocol version message")
    expect("connected to" not in text, f"treated as connected:\n{text}")
    tmux("kill-session", "-t", "oldsrv", check=False)
    fake.close()


def test_name_without_user_is_the_login_name():
    # with $USER unset the client named itself "steer-tui"; the login name is better
    login = pwd.getpwuid(os.getuid()).pw_name
    cmd = f"env -u USER {TUI} --port {srv.proto_port}; sleep 30"
    tmux("new-session", "-d", "-s", "nouser", "-x", "100", "-y", "30", cmd)
    t = srv.text()
    names = []

    def named():
        names[:] = [c.get("name") for c in t.ok("clients")["clients"]]
        return login in names
    # Polled for the name itself: the client connects first, then names itself.
    wait_for(named, lambda: f"a client named {login!r} with $USER unset: {names}")
    t.close()
    tmux("kill-session", "-t", "nouser", check=False)


def in_view(text):
    """N in the status line's "vehicles N/M in view", or -1."""
    m = re.search(r"vehicles (\d+)/\d+ in view", status_line(text))
    return int(m.group(1)) if m else -1


def test_private_server_after_auth():
    # The Welcome before auth says nothing about the world; after :auth the client
    # learns it and fits the whole world on screen.
    priv = Server("--scenario", "flock", "--token", "tui-sekrit-token", "--private")
    try:
        want = priv.text()
        want.ok("auth tui-sekrit-token")
        n = want.ok("stats")["vehicles"]
        run_on_port(priv.proto_port, "private")
        wait_in("private", lambda t: "private" in t, "the private server named")
        tmux("send-keys", "-t", "private", ":auth tui-sekrit-token", "Enter")
        text = wait_in("private", lambda t: total_vehicles(t) == n, "snapshots after auth")
        text = wait_in("private", lambda t: in_view(t) == n, "the whole world in view")
        expect(in_view(text) == n, f"the world is not fitted after auth:\n{text}")
    finally:
        tmux("kill-session", "-t", "private", check=False)
        priv.stop()


def test_q_quits_with_status_0():
    tmux("send-keys", "-t", "tui", "q")
    code = wait_for(lambda: exit_code(exit_file), "steer-tui to exit on q")
    expect(code == "0", f"exit status {code!r}, not 0")


# --- a new user's trial: tokens, world, pager, narrow status, disconnected, load ---


def test_token_flags():
    tok = "tui-flag-token-0123456789"
    priv = Server("--scenario", "flock", "--token", tok)
    tokfile = os.path.join(tmpdir, "token")
    with open(tokfile, "w") as f:
        f.write(tok + "\n")
    try:
        for tag, how in (("tokflag", f"--token {tok}"), ("tokfile", f"--token-file {tokfile}"),
                         ("tokenv", "")):
            env = f"STEER_TOKEN={tok} " if tag == "tokenv" else ""
            tmux("new-session", "-d", "-s", tag, "-x", "120", "-y", "30",
                 f"env {env}{TUI} --port {priv.proto_port} {how}; sleep 30")
            wait_in(tag, lambda t: total_vehicles(t) > 0, f"{tag}: snapshots")
            # A write goes through: the Hello carried the token.
            tmux("send-keys", "-t", tag, ":spawn 10 10", "Enter")
            text = wait_in(tag, lambda t: 'OK {"id":' in t or "ERR" in t, f"{tag}: spawn")
            expect('OK {"id":' in text, f"{tag}: the token was not presented:\n{text}")
            tmux("kill-session", "-t", tag, check=False)
        # A wrong token: said plainly, exit status 2, no hang.
        out = os.path.join(tmpdir, "exit-wrongtok")
        tmux("new-session", "-d", "-s", "wrongtok", "-x", "120", "-y", "30",
             f"{TUI} --port {priv.proto_port} --token not-the-token; echo $? > {out}; sleep 30")
        code = wait_for(lambda: exit_code(out), "steer-tui to exit after a wrong token")
        expect(code == "2", f"exit status {code!r} after a wrong token")
        text = tmux("capture-pane", "-p", "-t", "wrongtok").stdout
        expect(f"127.0.0.1:{priv.proto_port} refused the token" in text and
               "wrong token" in text, f"not said:\n{text}")
        tmux("kill-session", "-t", "wrongtok", check=False)
    finally:
        priv.stop()
    for bad, want in ((["--token"], "--token needs a value"),
                      (["--token", "a", "--token-file", tokfile], "choose one"),
                      (["--token-file", "/nonexistent/tok"], "--token-file /nonexistent/tok"),
                      (["--token", "two words"], "without spaces")):
        r = subprocess.run([TUI, *bad], capture_output=True, text=True, timeout=5)
        expect(r.returncode == 2 and want in r.stderr, f"{bad}: {r.returncode} {r.stderr!r}")


def test_a_full_server_says_so():
    # Over --max-clients the server answers the Hello with its refusal, then closes:
    # the retry says why, not just that the connection closed.
    full = Server("--max-clients", "1")
    held = full.text()
    try:
        held.cmd("stats")
        tmux("new-session", "-d", "-s", "full", "-x", "120", "-y", "30",
             f"{TUI} --port {full.proto_port}; sleep 30")

        def said():
            return "server full (--max-clients 1)" in tmux("capture-pane", "-p", "-t",
                                                           "full").stdout
        wait_for(said, "'server full' on the screen")
        tmux("kill-session", "-t", "full", check=False)
    finally:
        held.close()
        full.stop()


def test_world_alone_on_the_command_line():
    tmux("send-keys", "-t", "tui", "Escape", ":world", "Enter")
    text = wait_screen(lambda t: '"edges":' in t or "ERR" in t, "the world's settings")
    expect('"width":' in text and '"solid":' in text and "usage" not in text, text)
    tmux("send-keys", "-t", "tui", "Escape")


def pager_rows(text):
    """The pager box's title and footer rows: its first and last framed lines."""
    rows = [ln for ln in text.splitlines() if ln.strip().startswith(("+", "│"))]
    return rows


def test_pager_header_and_footer_agree():
    # A long reply opens the pager: the title said "any other key closes", the
    # footer "q closes"; any key but the scroll keys closes it.
    tmux("send-keys", "-t", "tui", "Escape", ":spawn flock 60 500 300 100", "Enter")
    wait_screen(lambda t: "OK {" in t, "60 more vehicles")
    tmux("send-keys", "-t", "tui", "Escape", ":list", "Enter")
    text = wait_screen(lambda t: "closes" in t, "the reply in the pager")
    closes = re.findall(r"(any other key closes|any key closes|q closes)", text)
    expect(closes == ["any other key closes"], f"the pager says {closes}:\n{text}")
    tmux("send-keys", "-t", "tui", "x")
    text = wait_screen(lambda t: "closes" not in t, "x to close the pager")
    # Help that fits: nothing to scroll, so any key closes, j too, as it says.
    tmux("send-keys", "-t", "tui", ":help pause", "Enter")
    text = wait_screen(lambda t: "closes" in t, "the command's help")
    closes = re.findall(r"(any other key closes|any key closes|q closes)", text)
    expect(closes == ["any key closes"], f"the pager says {closes}:\n{text}")
    tmux("send-keys", "-t", "tui", "j")
    wait_screen(lambda t: "closes" not in t, "j to close a pager with nothing to scroll")


STATUS_ITEM = re.compile(r"(connected|tick \d+|vehicles \d+/\d+ in view|\d+/\d+ in view|"
                         r"density: \d+/\d+ in view, up to \d+ a cell|"
                         r"density \d+/\d+, \d+ a cell|running|PAUSED|[\d.]+/[\d.]+ Hz|"
                         r"behind: \d+ of [\d.]+ ticks/s|behind \d+/[\d.]+|"
                         r"#\d+( [\d.]+ u/s [a-z,]+( behaviour)?| \(off view\)|"
                         r" \(across the edge\))?|follow|debug)")


def test_narrow_status_line_keeps_whole_items():
    wait_screen(lambda t: total_vehicles(t) > 0, "a snapshot")
    tmux("send-keys", "-t", "tui", "Escape", "0", "Tab", "d")
    wait_screen(lambda t: "u/s" in status_line(t) and "debug" in status_line(t), "a selection")
    try:
        for cols in (110, 90, 75, 60, 52, 45, 38, 30, 24, 16):
            resize(cols, 30)

            def whole(text):
                ln = status_line(text).rstrip()
                parts = ln[1:].split(" | ")
                return (ln and len(ln) <= cols and
                        all(STATUS_ITEM.fullmatch(p) for p in parts[:-1]) and
                        (STATUS_ITEM.fullmatch(parts[-1]) or parts[-1].endswith("\u2026")))
            # tmux cuts the old line at once; the client's own line follows
            text = wait_screen(whole, f"whole items at {cols} columns")
            if cols >= 30:
                ln = status_line(text)
                expect("#" in ln, f"{cols} cols: the selection went before less: {ln!r}")
    finally:
        resize(120, 40)
        tmux("send-keys", "-t", "tui", "d", "Escape", "0")


def test_disconnected_says_so_across_the_map():
    # never connected: no map, no box of size 0, but the reason across the screen
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run_on_port(port, "nosrv")
    text = wait_in("nosrv", lambda t: "reconnecting in" in t, "the disconnected message")
    rows = text.splitlines()
    line = next((ln for ln in rows if "disconnected from" in ln), "")
    expect(f"disconnected from 127.0.0.1:{port}: connection refused" in line, text)
    expect(rows.index(line) < len(rows) - 3, f"not in the map area:\n{text}")
    expect("q quits" in text, text)
    expect("\u2500" not in text and "+" not in text, f"a map frame is drawn:\n{text}")
    tmux("send-keys", "-t", "nosrv", "q")
    wait_in("nosrv", lambda t: not t.count("reconnecting in"), "q to quit")
    tmux("kill-session", "-t", "nosrv", check=False)


def test_tab_after_load_waits_for_the_new_world():
    # One snapshot a second: Tab right after the reply to load selected a vehicle of
    # the old world's last snapshot (#1), which the loaded world does not have.
    own = Server("--snapshot-rate", "1")
    try:
        t = own.text()
        for _ in range(10):
            t.ok("spawn 500 300")
        for k in range(1, 10):
            t.ok(f"remove {k}")
        t.ok("step 300")
        t.ok("save trial")
        t.ok("reset")
        for _ in range(3):
            t.ok("spawn 200 200")
        t.ok("pause")
        tmux("new-session", "-d", "-s", "load", "-x", "120", "-y", "30",
             f"{TUI} --port {own.proto_port}; sleep 30")
        wait_in("load", lambda t: total_vehicles(t) == 3, "the three vehicles")
        tmux("send-keys", "-t", "load", ":load trial", "Enter")
        wait_in("load", lambda t: any(ln.startswith("OK") for ln in t.splitlines()),
                "the reply to load", every=0.02)
        tmux("send-keys", "-t", "load", "Tab")
        text = wait_in("load", lambda t: total_vehicles(t) == 1, "the loaded world")
        sel = selected_id(text)
        expect(sel in (0, 10), f"Tab selected #{sel}, of the replaced world:\n{text}")
        tmux("send-keys", "-t", "load", "Tab")
        text = wait_in("load", lambda t: selected_id(t) == 10, "#10 selected")
        t.close()
    finally:
        tmux("kill-session", "-t", "load", check=False)
        own.stop()


def test_rewind_keys():
    # [ goes back a second of ticks and the status line says so; ] goes forward until
    # the live tick, where the note goes
    t = srv.text()
    t.ok("pause")
    t.ok("step 150")
    live = t.ok("stats")["tick"]
    wait_screen(lambda x: f"tick {live} " in status_line(x), "the stepped tick")
    tmux("send-keys", "-t", "tui", "[")
    wait_screen(lambda x: f"past: tick {live - 60} of {live}" in status_line(x) or
                f"past {live - 60}/{live}" in status_line(x), "the past note")
    st = t.ok("stats")
    expect(st["past"] and st["tick"] == live - 60 and st["live_tick"] == live, st)
    tmux("send-keys", "-t", "tui", "[")
    wait_screen(lambda x: f"{live - 120}" in status_line(x), "two seconds back")
    tmux("send-keys", "-t", "tui", "]")
    wait_screen(lambda x: f"past: tick {live - 60} of {live}" in status_line(x) or
                f"past {live - 60}/{live}" in status_line(x), "a second forward")
    tmux("send-keys", "-t", "tui", "]")
    wait_screen(lambda x: "past" not in status_line(x) and f"tick {live}" in status_line(x),
                "the live tick, without the note")
    st = t.ok("stats")
    expect(not st["past"] and st["tick"] == live, st)
    tmux("send-keys", "-t", "tui", "]")
    wait_screen(lambda x: "nothing to go forward to" in x, "nothing to go forward to")
    t.ok("resume")
    t.close()


for t in [test_shows_the_flock_moving, test_uses_compact_snapshots, test_command_line_spawns,
          test_command_line_takes_long_lines, test_command_line_says_non_ascii_is_not_taken,
          test_walls_drawn_as_lines,
          test_space_pauses, test_rewind_keys, test_shared_session_names, test_help_overlay, test_help_whole_at_80x24,
          test_command_line_editing_and_help, test_follow_across_the_wrap_edge,
          test_target_key_sends_goto,
          test_select_with_keys_and_toggle_wander, test_selection_keys,
          test_keypad_enter_runs_the_command_line,
          test_selection_messages_replaced, test_selection_removed_elsewhere,
          test_selection_dropped_when_the_world_is_replaced, test_stats_panel,
          test_flags, test_no_color, test_dumb_terminal_says_so,
          test_density_when_zoomed_out, test_reconnects_without_spinning, test_resize_then_keys,
          test_shrink_refits_the_whole_world, test_shrink_keeps_the_cursor_on_its_point,
          test_ctrl_c_and_sigterm_after_resize, test_name_without_user_is_the_login_name,
          test_command_port_says_so, test_silent_port_says_so, test_http_port_backs_off,
          test_server_of_another_protocol_says_so,
          test_private_server_after_auth, test_token_flags, test_a_full_server_says_so,
          test_world_alone_on_the_command_line, test_pager_header_and_footer_agree,
          test_narrow_status_line_keeps_whole_items, test_disconnected_says_so_across_the_map,
          test_tab_after_load_waits_for_the_new_world, test_q_quits_with_status_0]:
    # STEER_TUI_ONLY=name1,name2 runs those (and the last) while working on them.
    only = os.environ.get("STEER_TUI_ONLY")
    if only and t.__name__ not in only.split(",") and t is not test_q_quits_with_status_0:
        continue
    checks.run(t)

tmux("kill-server", check=False)
srv.stop()
shutil.rmtree(tmpdir, ignore_errors=True)
sys.exit(checks.done())
