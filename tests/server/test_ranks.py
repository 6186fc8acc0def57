"""`mpirun -np N steer-server`: one world over N ranks, served by rank 0. Clients see
the same world through it as through one process (snapshots, replies, save bytes);
a save or a journal made at one rank count is loaded, restored or recovered at
another, each rank reading its region of it; a scenario runs as on one process; what
the ranks do not keep (rewind's history) is refused and the server carries on; a rank
that dies ends the job and says which, and so does one that stops answering, past
--rank-timeout."""
import os
import re
import shutil
import signal
import sys
import tempfile
import time

import steer_pb2
from steertest import Checks, Server, cells_of, expect, rank_pid, wait_for

MPIRUN = os.environ.get("STEER_MPIRUN", "mpirun")
checks = Checks()

def mpirun(n):
    return [MPIRUN, "--oversubscribe", "-np", str(n)]


def data_dir(prefix):
    return tempfile.mkdtemp(prefix=prefix)


def run_script(c):
    """A solid world with a bit of everything: two flocks across the wrap seams, a
    wall, circles and a polygon, a seeker and its pursuer, a leader and its
    formation, goto routes. The ids of a few."""
    for line in ("spawn flock 300 500 300 200",
                 "spawn flock 120 80 60 70 group=1", "obstacle 640 300 40 vx=3",
                 "wall 100 520 900 560", "polygon 200 200 260 200 240 260"):
        c.ok(line)
    seeker = c.ok("spawn 50 50 avoid_neighbours=8")["id"]
    c.ok(f"avoid {seeker} on")
    c.ok(f"seek {seeker} 900 500")
    hunter = c.ok("spawn 900 100")["id"]
    c.ok(f"wander {hunter} on")
    c.ok(f"avoid {hunter} on")
    c.ok(f"pursue {hunter} {seeker}")
    leader = c.ok("spawn 500 500")["id"]
    wing = [c.ok(f"spawn {480 - 20 * k} 500")["id"] for k in range(2)]
    c.ok(f"arrive {leader} 100 300")
    for k in range(6):  # routes round the wall and the polygon, across regions
        walker = c.ok(f"spawn {150 + 120 * k} 580")["id"]
        c.ok(f"goto {walker} {900 - 100 * k} 120")
    c.ok(f"formation {leader} wedge 20 {wing[0]} {wing[1]}")
    for k in range(1, 300):  # more routes than a snapshot holds
        c.ok(f"seek {k} {100 + 3 * k} 300")
    for line in ("step 40", "remove 7", "spawn flock 50 950 550 40", "set 3 max_speed=80",
                 "step 25"):
        c.ok(line)
    return seeker, wing[1]


def start_together(*clients):
    """Pauses each server, then steps each to the same tick (their clocks ran on
    from their start until then). In steps of at most 100 ticks: a world over ranks
    under the sanitizers that started seconds after the other may be hundreds of
    ticks behind, more than one reply's timeout steps on a loaded machine."""
    ticks = []
    for c in clients:
        c.ok("pause")
        ticks.append(c.ok("stats")["tick"])
    for c, t in zip(clients, ticks):
        while t < max(ticks):
            n = min(100, max(ticks) - t)
            c.ok(f"step {n}")
            t += n


def save_bytes(srv, c, name):
    c.ok(f"save {name}")
    with open(os.path.join(srv.data_dir, name + ".steer"), "rb") as f:
        return f.read()


def vehicles(snap):
    """A snapshot's header, vehicles in the order sent, obstacles and routes."""
    rows = list(zip(snap.id, snap.x, snap.y, snap.vx, snap.vy, snap.group, snap.behaviors,
                    snap.fx, snap.fy))
    return (snap.header.tick, snap.header.total_vehicles,
            [o.SerializeToString() for o in snap.obstacles],
            rows, [r.SerializeToString() for r in snap.routes])


def geometry_then_snapshot(p):
    """A new client's first Geometry and the first snapshot after it."""
    geometry = None
    while True:
        m = p.read()
        kind = m.WhichOneof("msg")
        if kind == "geometry":
            geometry = m.geometry
        elif kind == "snapshot" and geometry is not None:
            return geometry, m.snapshot


def density_view(p, x0, y0, x1, y1, cols, rows):
    m = steer_pb2.ClientMessage()
    v = m.viewport
    v.x0, v.y0, v.x1, v.y1 = x0, y0, x1, y1
    v.compact, v.cols, v.rows, v.density = True, cols, rows, steer_pb2.DENSITY_ALWAYS
    p.send(m)


def fresh_density(p):
    p.command(line="stats")
    return p.read_kind("density")


def stopped(srv):
    """Stops srv with SIGTERM: to rank 0 under mpirun, which stops the others once
    its autosave is done (mpirun, signalled itself, would kill them all after a
    second and exit 1). The server must exit 0."""
    if srv.proc.args[0] == MPIRUN and srv.proc.poll() is None:
        os.kill(rank_pid(srv.proc.pid, 0), signal.SIGTERM)
        try:
            srv.proc.wait(timeout=30)
        except Exception:
            pass
    code, log = srv.stop()
    expect(code == 0 and log.rstrip().endswith("stopped"), f"exit {code}: {log[-2000:]}")
    return log


def test_clients_see_the_same_world_as_one_process():
    d1, d3 = data_dir("steer-one-"), data_dir("steer-three-")
    one = Server(data_dir=d1)
    three = Server(data_dir=d3, launcher=mpirun(3))
    try:
        c1, c3 = one.text(), three.text()
        start_together(c1, c3)
        seeker, wing = run_script(c1)
        run_script(c3)
        expect(save_bytes(one, c1, "a") == save_bytes(three, c3, "a"),
               "the saves of one process and of 3 ranks differ")
        # Two watchers of the whole world and one of a corner, through rank 0.
        p1, a, b = one.proto(), three.proto(), three.proto()
        want = vehicles(p1.fresh_snapshot())
        expect(len(want[3]) > 400, f"only {len(want[3])} vehicles in view")
        expect(len(want[4]) == 256, f"{len(want[4])} routes: the cap is not reached")
        for p in (a, b):
            expect(vehicles(p.fresh_snapshot()) == want,
                   "a client of the ranks sees another world than one process's")
        # The snapshots name the geometry the client was sent; it is one process's.
        g1, s1 = geometry_then_snapshot(one.proto())
        g3, s3 = geometry_then_snapshot(three.proto())
        expect(s1.header.geometry_version == g1.version and
               s3.header.geometry_version == g3.version,
               f"versions: {g1.version} {s1.header.geometry_version}, "
               f"{g3.version} {s3.header.geometry_version}")
        expect(list(g1.walls) == list(g3.walls) and list(g1.polygons) == list(g3.polygons),
               "another geometry")
        p1.viewport(0, 0, 400, 300)
        b.viewport(0, 0, 400, 300)
        for p in (p1, b):  # frames of the corner, not of the whole world
            wait_for(lambda: len(vehicles(p.fresh_snapshot())[3]) < len(want[3]),
                     "frames of the corner")
        corner = vehicles(p1.fresh_snapshot())
        expect(0 < len(corner[3]) < len(want[3]), f"{len(corner[3])} vehicles in the corner")
        expect(vehicles(b.fresh_snapshot()) == corner, "the corner differs")
        # Zoomed out, drawn as cells: each rank counts its own, none sends vehicles.
        p1.viewport(0, 0, 0, 0, clear=True)
        b.viewport(0, 0, 0, 0, clear=True)
        density_view(p1, 0, 0, 1000, 600, 40, 12)
        density_view(a, 0, 0, 1000, 600, 40, 12)
        for p in (p1, a):  # cells counted, not a first empty frame
            wait_for(lambda: fresh_density(p).in_view > 0, "density frames with counts")
        d1, d3 = fresh_density(p1), fresh_density(a)
        cells1, cells3 = cells_of(d1), cells_of(d3)
        expect(d1.in_view == d3.in_view > 400 and d1.header.total_vehicles ==
               d3.header.total_vehicles, f"{d1.in_view} vs {d3.in_view}")
        expect([c[:3] for c in cells1] == [c[:3] for c in cells3], "the cells' counts differ")
        # Headings are summed per rank: a rounding tie could turn one arrow.
        turned = sum(x[3] != y[3] for x, y in zip(cells1, cells3))
        expect(turned <= 1, f"{turned} cells point elsewhere")
        watching = c3.ok("stats")["proto_clients"]
        b.close()
        wait_for(lambda: c3.ok("stats")["proto_clients"] == watching - 1, "b gone")
        fresh_density(a)
        got = c3.ok("stats")["snapshot_vehicles_gathered"]
        expect(got == 0, f"{got} vehicles gathered for a view drawn as cells")
        # Replies about vehicles and the world are one process's.
        for line in (f"get {seeker}", f"get {wing}", "list", "list 1 40", "list 400 100",
                     "list 700 10000", "list 0 1", "world"):
            expect(c1.cmd(line) == c3.cmd(line), f"'{line}' answers differently")
        s1, s3 = c1.ok("stats"), c3.ok("stats")
        for key in ("tick", "vehicles", "obstacles", "walls", "polygons", "flockers"):
            expect(s1[key] == s3[key], f"stats {key}: {s1[key]} vs {s3[key]}")
        expect(abs(s1["flock_mean_speed"] - s3["flock_mean_speed"]) < 1e-9, "mean speed")
        expect(s3["ranks"] == 3 and len(s3["rank_figures"]) == 3, s3)
        expect(sum(r["vehicles"] for r in s3["rank_figures"]) == s3["vehicles"],
               "the ranks' vehicles do not add up to the world's")
        expect(0 <= s3["slowest_rank"] < 3 and s3["rank_balance"] >= 1.0, s3)
        # Three regions side by side: each trades with one or both of the others.
        expect(all(1 <= r["neighbours"] <= 2 for r in s3["rank_figures"]), s3)
        # Running on: the clock's ticks too.
        t1, t3 = c1.ok("stats")["tick"], c3.ok("stats")["tick"]
        c1.ok("resume")
        c3.ok("resume")
        wait_for(lambda: c1.ok("stats")["tick"] >= t1 + 60 and c3.ok("stats")["tick"] >= t3 + 60,
                 "a second of ticks on both clocks")
        c1.ok("pause")
        c3.ok("pause")
        t1, t3 = c1.ok("stats")["tick"], c3.ok("stats")["tick"]
        t = max(t1, t3) + 5
        c1.ok(f"step {t - t1}")
        c3.ok(f"step {t - t3}")
        expect(save_bytes(one, c1, "b") == save_bytes(three, c3, "b"),
               f"after running to tick {t} the worlds differ")
        for p in (p1, a):
            p.close()
    finally:
        stopped(one)
        stopped(three)
        shutil.rmtree(d1, ignore_errors=True)
        shutil.rmtree(d3, ignore_errors=True)


def scripted_save(d, name, launcher):
    """The script's world, saved as d/NAME.steer by a server started with launcher
    and stopped again."""
    srv = Server(data_dir=d, launcher=launcher)
    try:
        c = srv.text()
        start_together(c)
        run_script(c)
        c.ok(f"save {name}")
    finally:
        stopped(srv)


def test_a_save_loads_at_another_rank_count():
    d = data_dir("steer-saves-")
    scripted_save(d, "shared", mpirun(3))
    got = []
    for launcher in ((), mpirun(2)):
        srv = Server(data_dir=d, launcher=launcher)
        try:
            c = srv.text()
            c.ok("pause")
            loaded = c.ok("load shared")
            expect(loaded["vehicles"] > 400, loaded)
            c.ok("step 30")
            got.append(save_bytes(srv, c, f"after{len(got)}"))
            # The journal's checkpoint of the loaded world (over ranks, written in
            # place) is written.
            wait_for(lambda: not c.ok("stats")["journal"]["checkpoint_running"],
                     "the load's checkpoint", every=0.2)
            expect(not c.ok("stats")["journal"]["failing"], c.ok("stats")["journal"])
            # A corrupted save is refused alike at any rank count, and the world
            # stays.
            with open(os.path.join(d, "shared.steer"), "rb") as f:
                data = bytearray(f.read())
            data[len(data) // 2] ^= 1
            with open(os.path.join(d, "bad.steer"), "wb") as f:
                f.write(data)
            reply = c.cmd("load bad")
            expect(reply.startswith("ERR") and "checksum mismatch: file is corrupted" in reply
                   and "running world is unchanged" in reply, reply)
            expect(save_bytes(srv, c, f"kept{len(got)}") == got[-1],
                   "a refused load changed the world")
        finally:
            stopped(srv)
    expect(got[0] == got[1], "one process and 2 ranks go on differently from one save")
    shutil.rmtree(d, ignore_errors=True)


def test_a_save_is_written_in_place_as_the_world_runs():
    """save over ranks: every rank writes its region's records from its snapshot,
    merged on rank 0 a step at a time while the world ticks on; the file is the world
    at the tick the save began, whole. A file that cannot be made is refused and the
    server carries on."""
    d = data_dir("steer-inplace-")
    srv = Server(data_dir=d, launcher=mpirun(3))
    try:
        c = srv.text()
        c.ok("spawn flock 20000 1000 1000 900")
        before = c.ok("stats")["tick"]
        reply = c.ok("save big")
        after = c.ok("stats")["tick"]
        path = os.path.join(d, "big.steer")
        size = os.path.getsize(path)
        expect(reply["bytes"] == size, f"the reply says {reply}, the file has {size} bytes")
        with open(path, "rb") as f:
            head = f.read(4096).decode()
        tick = int(re.search(r"meta tick (\d+)", head).group(1))
        expect(before <= tick <= after, f"saved at tick {tick}, asked between {before} "
               f"and {after}")
        expect(f"saved 'big' ({size} bytes)" in srv.log_text(), srv.log_text()[-2000:])
        # A file that cannot be made: refused, nothing left behind, and the world and
        # the next save as they were.
        os.mkdir(os.path.join(d, "bad.steer.tmp"))
        bad = c.cmd("save bad")
        expect(bad.startswith("ERR save bad: cannot create") and "nothing was written" in bad,
               bad)
        expect(not os.path.exists(os.path.join(d, "bad.steer")), "a refused save left a file")
        expect(c.ok("stats")["vehicles"] == 20000, "the world changed")
        expect(c.ok("save again")["bytes"] > 0, "the next save")
    finally:
        stopped(srv)
    one = Server(data_dir=d)
    try:
        c = one.text()
        loaded = c.ok("load big")
        expect(loaded["vehicles"] == 20000 and loaded["tick"] == tick, loaded)
    finally:
        stopped(one)
    shutil.rmtree(d, ignore_errors=True)


def test_a_save_restores_in_place_at_start():
    """--restore NAME over ranks: every rank reads the save in pieces and keeps its
    region (the log says so), and the world goes on as one process's restore of it;
    a corrupted save, or one over --max-vehicles, stops the start at any rank count
    with the same words, the file left as it is."""
    d = data_dir("steer-restore-")
    scripted_save(d, "start", ())
    with open(os.path.join(d, "start.steer"), "rb") as f:
        good = f.read()
    bad = bytearray(good)
    bad[len(bad) // 3] ^= 4
    dirs = [data_dir("steer-restore-one-"), data_dir("steer-restore-three-")]
    for dd in dirs:
        for name, data in (("start", good), ("bad", bad)):
            with open(os.path.join(dd, name + ".steer"), "wb") as f:
                f.write(data)
    servers = []
    try:
        for dd, launcher in zip(dirs, ((), mpirun(3))):
            servers.append(Server("--restore", "start", data_dir=dd, launcher=launcher))
        clients = [srv.text() for srv in servers]
        start_together(*clients)
        for c in clients:
            c.ok("step 20")
        got = [save_bytes(srv, c, "after") for srv, c in zip(servers, clients)]
        expect(got[0] == got[1], "3 ranks restored a world that goes on differently")
        # The journal's first checkpoint, of a world read in place, is written.
        wait_for(lambda: not clients[1].ok("stats")["journal"]["checkpoint_running"],
                 "the start's checkpoint", every=0.2)
        expect(not clients[1].ok("stats")["journal"]["failing"],
               clients[1].ok("stats")["journal"])
    finally:
        logs = [stopped(srv) for srv in servers]
    expect("each rank reading its region" in logs[1], logs[1][-2000:])
    for args, why in ((("--restore", "bad"), "checksum mismatch: file is corrupted"),
                      (("--restore", "start", "--max-vehicles", "100"),
                       "vehicles exceed --max-vehicles 100")):
        said = []
        for dd, launcher in zip(dirs, ((), mpirun(2))):
            try:
                Server(*args, data_dir=dd, launcher=launcher).stop()
                expect(False, f"{args} started")
            except RuntimeError as e:
                line = [x for x in str(e).splitlines() if "--restore" in x and " error " in x]
                expect(line and why in line[0] and "the file is left as it is" in line[0],
                       f"{args}: {e}")
                expect(f"{dd}/{args[1]}.steer: " in line[0], f"the path is not named: {e}")
                said.append(line[0].split("--restore", 1)[1].replace(dd, "DIR"))
        expect(said[0] == said[1], f"{args}: one process and 2 ranks say {said}")
    for dd in dirs:
        with open(os.path.join(dd, "bad.steer"), "rb") as f:
            expect(f.read() == bad, "a refused restore changed the file")
        shutil.rmtree(dd, ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)


def test_a_killed_job_recovers_at_another_rank_count():
    d = data_dir("steer-journal-")
    three = Server("--journal-fsync", "always", "--checkpoint", "1", data_dir=d,
                   launcher=mpirun(3))
    c = three.text()
    start_together(c)
    run_script(c)
    # A checkpoint over ranks (written in place, every rank its region's records) is
    # what recovery starts from.
    seg = c.ok("stats")["journal"]["segment"]
    # Something recorded after that reading: a checkpoint may already have taken
    # all the script, and a paused world records nothing more by itself.
    c.ok("step 1")
    wait_for(lambda: c.ok("stats")["journal"]["segment"] != seg, "a checkpoint begun",
             every=0.2)
    wait_for(lambda: not c.ok("stats")["journal"]["checkpoint_running"],
             "the ranks to write it", every=0.2)
    journal = c.ok("stats")["journal"]
    expect(not journal["failing"], journal)
    before = save_bytes(three, c, "before")
    os.remove(os.path.join(d, "before.steer"))
    # The world is paused and nothing was recorded since: the newest checkpoint is
    # the world as it is, the bytes of its save.
    newest = sorted(f for f in os.listdir(os.path.join(d, "journal")) if f.endswith(".steer"))
    with open(os.path.join(d, "journal", newest[-1]), "rb") as f:
        expect(f.read() == before, f"checkpoint {newest[-1]} is not the world's save")
    # Rank 0 dies: the job ends, mpirun says so.
    os.kill(rank_pid(three.proc.pid, 0), signal.SIGKILL)
    code, log = three.stop()
    expect(code != 0, "mpirun exited 0 after its rank 0 was killed")
    got = []
    for launcher in ((), mpirun(2)):
        copy = data_dir("steer-recover-")
        shutil.copytree(d, copy, dirs_exist_ok=True)
        srv = Server("--recover", data_dir=copy, launcher=launcher)
        try:
            c = srv.text()
            stats = c.ok("stats")
            expect(stats["paused"], "the recovered world is not paused")
            got.append(save_bytes(srv, c, "recovered"))
        finally:
            log = stopped(srv)
            shutil.rmtree(copy, ignore_errors=True)
        # The start's line counts the whole world, not rank 0's region of it.
        expect(f"{stats['vehicles']} vehicles, tick {stats['tick']}" in log, log[-3000:])
    expect(got[0] == before, "one process recovered another world")
    expect(got[1] == before, "2 ranks recovered another world")
    shutil.rmtree(d, ignore_errors=True)


def test_what_cannot_be_split_is_refused():
    srv = Server(launcher=mpirun(2))
    try:
        c = srv.text()
        c.ok("spawn flock 100 500 300 100")
        for line, why in (("rewind 5", "MPI ranks"),
                          ("goto-tick 3", "MPI ranks"), ("load nosuch", "nosuch"),
                          ("scenario nope", "no scenario 'nope'")):
            reply = c.cmd(line)
            expect(reply.startswith("ERR") and why in reply, f"{line} -> {reply}")
        expect(c.ok("stats")["vehicles"] == 100, "the world changed")
        expect(c.cmd("spawn 1 2 3").startswith("ERR"), "a bad spawn was taken")
        expect(c.ok("stats")["vehicles"] == 100, "the world changed")
    finally:
        stopped(srv)
    for args, why in ((("--replay", "live"), "one process"),):
        srv = None
        try:
            srv = Server(*args, launcher=mpirun(2))
            expect(False, f"{args} started over ranks")
        except RuntimeError as e:
            expect(why in str(e), f"{args}: {e}")


def test_a_scenario_runs_as_on_one_process():
    d1, d2 = data_dir("steer-one-"), data_dir("steer-two-")
    one = Server("--scenario", "doorway", data_dir=d1)
    two = Server("--scenario", "doorway", data_dir=d2, launcher=mpirun(2))
    try:
        c1, c2 = one.text(), two.text()
        start_together(c1, c2)
        for c in (c1, c2):
            c.ok("step 60")
            c.ok("scenario crossing")
            c.ok("step 90")
        expect(c1.ok("stats")["vehicles"] > 100, "the scenarios hold too few vehicles")
        expect(save_bytes(one, c1, "s") == save_bytes(two, c2, "s"),
               "a scenario ran differently on 2 ranks than on one process")
    finally:
        stopped(one)
        stopped(two)
    shutil.rmtree(d1, ignore_errors=True)
    shutil.rmtree(d2, ignore_errors=True)


def job_ended(srv, seconds, why):
    """Waits for the job to end by itself, with a failure status; its log."""
    try:
        srv.proc.wait(timeout=seconds)
    except Exception:
        expect(False, why)
    code, log = srv.stop()
    expect(code != 0, "mpirun exited 0")
    return log


def test_a_rank_that_dies_ends_the_job():
    srv = Server(launcher=mpirun(3))
    c = srv.text()
    c.ok("spawn flock 200 500 300 150")
    os.kill(rank_pid(srv.proc.pid, 2), signal.SIGKILL)
    log = job_ended(srv, 30, "the job went on after a rank died")
    expect("rank 2" in log and "signal 9" in log, log[-1500:])


def log_says(srv, what, why):
    """Waits for the server's log to say what; fails with why and the log's end."""
    wait_for(lambda: what in srv.log_text(), lambda: f"the log to say {what!r} ({why}): "
             + srv.log_text()[-1500:], every=0.2)


def test_a_stopped_rank_is_named_then_ends_the_job():
    srv = Server("--rank-timeout", "6", launcher=mpirun(3))
    two = None
    try:
        c = srv.text()
        c.ok("spawn flock 200 500 300 150")
        time.sleep(4)  # the ranks beat: a healthy job names nobody (not a wait: time passing)
        expect("sent nothing" not in srv.log_text(), srv.log_text()[-1500:])
        two = rank_pid(srv.proc.pid, 2)
        # Stopped a while, then let go: named, heard again, and the world goes on.
        os.kill(two, signal.SIGSTOP)
        log_says(srv, "rank 0: rank 2 has sent nothing", "a stopped rank 2 named")
        os.kill(two, signal.SIGCONT)
        log_says(srv, "rank 2 is heard again", "rank 2 let go")
        tick = c.ok("stats")["tick"]
        wait_for(lambda: c.ok("stats")["tick"] > tick,
                 "a tick: the world stands still after rank 2 came back")
        # Stopped for good: past --rank-timeout the job ends, saying why.
        os.kill(two, signal.SIGSTOP)
        log = job_ended(srv, 60, "the job went on waiting for a stopped rank")
        expect("rank 2 has sent nothing for 6 s (--rank-timeout 6)" in log and "--recover" in log,
               log[-1500:])
    finally:
        if two is not None:
            try:
                os.kill(two, signal.SIGCONT)
            except ProcessLookupError:
                pass
        if srv.proc.poll() is None:
            srv.stop()


def test_stop_saves_the_whole_world():
    d = data_dir("steer-stop-")
    srv = Server("--autosave", "3600", data_dir=d, launcher=mpirun(3))
    c = srv.text()
    c.ok("spawn flock 500 500 300 250")
    stopped(srv)
    with open(os.path.join(d, "autosave.steer"), "rb") as f:
        saved = f.read()
    one = Server(data_dir=d)
    try:
        c = one.text()
        expect(c.ok("load autosave")["vehicles"] == 500, "the autosave lost vehicles")
    finally:
        stopped(one)
    expect(len(saved) > 0, "empty autosave")
    shutil.rmtree(d, ignore_errors=True)


def test_a_second_signal_stops_a_save():
    """SIGTERM to rank 0 while a save runs: the stop waits for it, and says so; a
    second SIGTERM stops it, its client hears that nothing was written, no file is
    left, and the autosave is still written."""
    d = data_dir("steer-stop-save-")
    srv = Server("--autosave", "3600", "--world", "4000x4000", data_dir=d, launcher=mpirun(3))
    c = srv.text()
    c.ok("pause")
    c.ok("spawn flock 150000 2000 2000 1900")
    rank0 = rank_pid(srv.proc.pid, 0)
    c.send_raw(b"save big\n")
    wait_for(lambda: os.path.exists(os.path.join(d, "big.steer.tmp")), "the save begun",
             every=0.01)
    os.kill(rank0, signal.SIGTERM)
    wait_for(lambda: "waiting for save 'big' to end (SIGTERM again to stop it)"
             in srv.log_text(), "the stop to wait for the save", every=0.01)
    os.kill(rank0, signal.SIGTERM)
    reply = c.line()
    expect(reply == "ERR save big: stopped before it ended (a second signal); nothing was "
           "written", reply)
    log = stopped(srv)
    expect("save 'big' stopped before it ended" in log, log[-2000:])
    expect(not os.path.exists(os.path.join(d, "big.steer")), "a stopped save left a file")
    expect(not os.path.exists(os.path.join(d, "big.steer.tmp")), "a stopped save left its "
           "temporary file")
    expect(os.path.getsize(os.path.join(d, "autosave.steer")) > 0, "no autosave")
    shutil.rmtree(d, ignore_errors=True)


for t in (test_clients_see_the_same_world_as_one_process, test_a_save_loads_at_another_rank_count,
          test_a_save_is_written_in_place_as_the_world_runs, test_a_save_restores_in_place_at_start,
          test_a_killed_job_recovers_at_another_rank_count, test_what_cannot_be_split_is_refused,
          test_a_scenario_runs_as_on_one_process,
          test_a_rank_that_dies_ends_the_job, test_a_stopped_rank_is_named_then_ends_the_job,
          test_stop_saves_the_whole_world, test_a_second_signal_stops_a_save):
    checks.run(t)
sys.exit(checks.done())
