"""steer-tui end to end: a real server, the real client inside tmux, keys sent with
send-keys and the screen read with capture-pane."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from steertest import Checks, Server, expect

TUI = os.environ.get("STEER_TUI", "steer-tui")
SOCK = f"steer-test-{os.getpid()}"
checks = Checks()
tmpdir = tempfile.mkdtemp(prefix="steer-tui-")
exit_file = os.path.join(tmpdir, "exit")


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", SOCK, *args], capture_output=True, text=True,
                          timeout=10, check=check)


def screen():
    return tmux("capture-pane", "-p", "-t", "tui").stdout


def status_line(text):
    """The status line (the message line below it may mention "connected" too)."""
    for ln in text.splitlines():
        if ln.startswith((" connected", " disconnected", " connecting")):
            return ln
    return ""


def wait_for(pred, what, timeout=10.0):
    deadline = time.time() + timeout
    text = ""
    while time.time() < deadline:
        text = screen()
        if pred(text):
            return text
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; screen:\n{text}")


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
cmd = f"{TUI} --port {srv.proto_port}; echo $? > {exit_file}"
subprocess.run(["tmux", "-L", SOCK, "-f", "/dev/null", "new-session", "-d", "-s", "tui",
                "-x", "120", "-y", "40", cmd], env=env, check=True, timeout=10)


def test_shows_the_flock_moving():
    first = wait_for(lambda t: total_vehicles(t) > 0, "first snapshot")
    expect(total_vehicles(first) == expected, f"status shows {total_vehicles(first)}, "
                                              f"server has {expected}:\n{status_line(first)}")
    arrows = sum(first.count(ch) for ch in "→↗↑↖←↙↓↘")
    expect(arrows > 20, f"only {arrows} vehicle glyphs on screen:\n{first}")
    time.sleep(0.6)
    second = screen()
    expect(first != second, "two captures 0.6 s apart are identical: nothing moves")


def test_uses_compact_snapshots():
    # steer-tui asks for compact frames at its map size: the server encodes them
    t = srv.text()
    deadline = time.time() + 5
    while t.ok("stats")["compact_encoded"] == 0 and time.time() < deadline:
        time.sleep(0.1)
    stats = t.ok("stats")
    expect(stats["compact_encoded"] > 0, "steer-tui does not use compact snapshots")
    t.close()


def test_command_line_spawns():
    before = total_vehicles(screen())
    tmux("send-keys", "-t", "tui", ":spawn 100 100", "Enter")
    text = wait_for(lambda t: total_vehicles(t) == before + 1, "the spawned vehicle")
    expect('OK {"id":' in text, f"reply not shown:\n{text}")


def test_space_pauses():
    tmux("send-keys", "-t", "tui", "Space")
    wait_for(lambda t: "PAUSED" in status_line(t), "PAUSED in the status line")
    time.sleep(0.3)
    a = screen()
    time.sleep(0.6)
    b = screen()
    expect(a == b, "the screen changed while paused")
    tmux("send-keys", "-t", "tui", "Space")
    wait_for(lambda t: "running" in status_line(t), "running again")


def test_help_overlay():
    tmux("send-keys", "-t", "tui", "?")
    wait_for(lambda t: "steer-tui keys" in t, "the help overlay")
    tmux("send-keys", "-t", "tui", "x")
    wait_for(lambda t: "steer-tui keys" not in t, "the help overlay to close")


def test_select_with_keys_and_toggle_wander():
    tmux("send-keys", "-t", "tui", "Tab")
    text = wait_for(lambda t: "#" in status_line(t) and "u/s" in status_line(t), "a selection")
    tmux("send-keys", "-t", "tui", "w")
    wait_for(lambda t: "wander" in status_line(t), "wander on the selection")
    expect("flock" in status_line(text), status_line(text))


def test_density_when_zoomed_out():
    # D cycles auto -> always -> never -> auto; always draws cells at any zoom, and
    # the selected vehicle still comes whole among them (Viewport.pick)
    tmux("send-keys", "-t", "tui", "Tab")
    wait_for(lambda t: "u/s" in status_line(t), "a selection")
    tmux("send-keys", "-t", "tui", "D")
    text = wait_for(lambda t: "density:" in status_line(t), "density cells (always)")
    expect("density cells: always" in text, f"mode not shown:\n{text}")
    text = wait_for(lambda t: "u/s" in status_line(t), "the selection among the cells")
    expect("off view" not in status_line(text), f"status: {status_line(text)}")
    arrows = sum(text.count(ch) for ch in "→↗↑↖←↙↓↘")
    expect(arrows > 20, f"only {arrows} cells drawn:\n{text}")
    tmux("send-keys", "-t", "tui", "D")
    wait_for(lambda t: "| vehicles " in status_line(t), "vehicles again (never)")
    tmux("send-keys", "-t", "tui", "D")
    # auto: more vehicles than the ~4,400 cells of the map turns cells on by itself
    tmux("send-keys", "-t", "tui", ":spawn flock 6000 500 300 280", "Enter")
    text = wait_for(lambda t: "density:" in status_line(t), "density cells (auto)", 15)
    expect("a cell" in status_line(text), f"status: {status_line(text)}")
    tmux("send-keys", "-t", "tui", ":reset", "Enter")
    wait_for(lambda t: "| vehicles " in status_line(t), "vehicles after the reset")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_reconnects_without_spinning():
    global srv
    port = srv.proto_port
    code, err = srv.stop()
    expect(code == 0, err[-1000:])
    wait_for(lambda t: "disconnected, retrying" in t, "the disconnected status")
    pid = tui_pid()
    c0 = cpu_seconds(pid)
    time.sleep(2.0)
    used = cpu_seconds(pid) - c0
    expect(used < 0.3, f"steer-tui used {used:.2f} s of CPU in 2 s while disconnected")
    srv = Server("--scenario", "seek", "--port", str(port))
    wait_for(lambda t: total_vehicles(t) == 1, "reconnection", 15)


def test_resize_then_keys():
    # Each size, then keys: the status line must sit on the second-to-last row of the
    # new size, the map must be redrawn to its width, and the client must keep reading
    # keys (the help overlay opens and closes). A client spinning on KEY_RESIZE after
    # the first resize never redraws again.
    for cols, rows in [(119, 40), (100, 30), (20, 8), (140, 45), (80, 24), (120, 40)]:
        resize(cols, rows)
        expect(pane_size() == (cols, rows), f"tmux did not resize to {cols}x{rows}")
        tmux("send-keys", "-t", "tui", "j")
        tmux("send-keys", "-t", "tui", "0")  # fit: the world's border frames the map

        def redrawn(t):
            lines = t.splitlines()
            if len(lines) < rows - 1 or not lines[rows - 2].startswith(" connected"):
                return False
            # fitted to the new size, the border's corners sit on the map rows
            return sum(ln.count("+") for ln in lines[: rows - 2]) == 4
        text = wait_for(redrawn, f"a redraw at {cols}x{rows}", 5)
        lines = text.splitlines()
        expect(max(len(ln) for ln in lines) <= cols, f"a line wider than {cols}:\n{text}")
        tmux("send-keys", "-t", "tui", "?")
        wait_for(lambda t: "steer-tui" in t and "keys" in t, f"help at {cols}x{rows}", 5)
        tmux("send-keys", "-t", "tui", "Escape")
        wait_for(lambda t: len(t.splitlines()) >= rows - 1 and
                 t.splitlines()[rows - 2].startswith(" connected") and "steer-tui" not in t,
                 f"help closed at {cols}x{rows}", 5)
    pid = tui_pid()
    c0 = cpu_seconds(pid)
    time.sleep(1.0)
    used = cpu_seconds(pid) - c0
    expect(used < 0.5, f"steer-tui used {used:.2f} s of CPU in 1 s after resizing")


def test_q_quits_with_status_0():
    tmux("send-keys", "-t", "tui", "q")
    deadline = time.time() + 1
    while time.time() < deadline and not os.path.exists(exit_file):
        time.sleep(0.1)
    expect(os.path.exists(exit_file), "steer-tui did not exit on q")
    with open(exit_file) as f:
        expect(f.read().strip() == "0", "exit status not 0")


for t in [test_shows_the_flock_moving, test_uses_compact_snapshots, test_command_line_spawns,
          test_space_pauses, test_help_overlay, test_select_with_keys_and_toggle_wander,
          test_density_when_zoomed_out, test_reconnects_without_spinning, test_resize_then_keys,
          test_q_quits_with_status_0]:
    checks.run(t)

tmux("kill-server", check=False)
srv.stop()
shutil.rmtree(tmpdir, ignore_errors=True)
sys.exit(checks.done())
