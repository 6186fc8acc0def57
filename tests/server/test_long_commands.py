"""Commands that take long never hold the loop: a step of many ticks runs as ticks
of the loop while every other client is served, and SIGTERM stops it at once; a save
is written by a forked child and a load decoded off the loop, each answered when
done; list on a world too big for one reply pages. Ordering, not wall-clock time, is
what is checked: the other client's reply arrives while the long one is pending."""
import atexit
import json
import os
import select
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time

import steer_pb2
from steertest import TIMEOUT, Checks, Server, expect, wait_for

checks = Checks()


def data_dir(prefix):
    """A data directory of its own, removed when the tests end (saves can be big)."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path

# A step long enough that it is certainly still running while another client asks a
# few things (minutes of ticks on this world), yet cheap per tick.
LONG_STEP = 100000


def pending(client):
    """True when nothing has arrived for client (no reply yet)."""
    if b"\n" in client.buf:
        return False
    readable, _, _ = select.select([client.sock], [], [], 0)
    return not readable


def busy_world(c, n=300):
    # Thousands in a disc of 150 cannot all fit as solid bodies: the correction pass
    # would spend its whole budget every tick, and these tests are about clients.
    c.ok("world solid off")
    c.ok(f"spawn flock {n} 400 300 150")


def test_a_long_step_does_not_block_other_clients():
    srv = Server("--scenario", "flock")
    try:
        a, b = srv.text(), srv.text()
        busy_world(a)
        a.ok("pause")
        start = b.ok("stats")["tick"]
        a.send_raw(f"step {LONG_STEP}\n".encode())
        ticks = []
        for _ in range(5):
            ticks.append(b.ok("stats")["tick"])
            expect(pending(a), "the step answered before the other client's stats")
        # The step runs between the other client's commands.
        while b.ok("stats")["tick"] == start:
            pass
        expect(pending(a), "the step answered early")
        expect(ticks == sorted(ticks), f"ticks went back: {ticks}")
    finally:
        code, log = srv.stop()
    expect(code == 0, f"exit {code}")


def test_sigterm_stops_a_long_step_at_once():
    srv = Server("--scenario", "flock")
    a, b = srv.text(), srv.text()
    busy_world(a)
    a.ok("pause")
    start = b.ok("stats")["tick"]
    a.send_raw(f"step {LONG_STEP}\n".encode())
    while b.ok("stats")["tick"] == start:
        pass
    code, log = srv.stop()
    expect(code == 0, f"exit {code}: {log[-1500:]}")
    reply = a.line()
    expect(reply.startswith("ERR") and f"of {LONG_STEP} ticks" in reply, reply)


def test_commands_after_a_step_keep_their_order():
    srv = Server("--scenario", "flock")
    try:
        a = srv.text()
        a.ok("pause")
        t0 = a.ok("stats")["tick"]
        a.send_raw(b"step 40\nstats\nstep 2\nget 1\n")
        first = a.line()
        expect(first.startswith("OK "), first)
        expect(json.loads(first[3:])["tick"] == t0 + 40, first)
        stats = json.loads(a.line()[3:])
        expect(stats["tick"] == t0 + 40, f"stats ran before the step ended: {stats['tick']}")
        expect(json.loads(a.line()[3:])["tick"] == t0 + 42, "second step")
        expect(json.loads(a.line()[3:])["id"] == 1, "get after the steps")
        # The same over protobuf: each reply in the order asked.
        p = srv.proto()
        m = steer_pb2.ClientMessage()
        for rid, line in enumerate(["step 10", "stats"], start=100):
            m.command.request_id = rid
            m.command.line = line
            p.send(m)
        r1, r2 = p.read_kind("reply"), p.read_kind("reply")
        expect((r1.request_id, r2.request_id) == (100, 101), "proto replies out of order")
        expect(json.loads(r2.json)["tick"] == t0 + 52, r2.json)
    finally:
        srv.stop()


def test_steps_from_two_clients_both_finish():
    srv = Server("--scenario", "flock")
    try:
        a, b = srv.text(), srv.text()
        a.ok("pause")
        t0 = a.ok("stats")["tick"]
        a.send_raw(b"step 300\n")
        b.send_raw(b"step 200\n")
        ta, tb = json.loads(a.line()[3:])["tick"], json.loads(b.line()[3:])["tick"]
        expect(max(ta, tb) == t0 + 500, f"{t0} -> {ta}, {tb}")
        expect(min(ta, tb) >= t0 + 200, f"{t0} -> {ta}, {tb}")
    finally:
        srv.stop()


def test_a_client_that_stops_sending_still_gets_its_reply():
    srv = Server("--scenario", "flock")
    try:
        a = srv.text()
        a.send_raw(b"step 30\nstats\n")
        a.sock.shutdown(socket.SHUT_WR)  # as echo 'step 30' | nc does
        expect(a.line().startswith("OK {\"tick\""), "no reply to the step")
        expect(a.line().startswith("OK {"), "no reply to what followed it")
        expect(a.closed(), "the connection stayed open")
    finally:
        srv.stop()


def test_a_client_that_leaves_mid_step_stops_it():
    srv = Server("--scenario", "flock")
    try:
        a, b = srv.text(), srv.text()
        busy_world(a)
        a.ok("pause")
        a.send_raw(f"step {LONG_STEP}\n".encode())
        start = b.ok("stats")["tick"]
        while b.ok("stats")["tick"] == start:
            pass
        # Gone at once (a reset, not an orderly end of its sending side).
        a.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        a.close()
        # Once the server has seen the close, the tick stands still (paused).
        while b.ok("stats")["clients"] != 1:
            pass
        t1 = b.ok("stats")["tick"]
        t2 = b.ok("stats")["tick"]
        expect(t1 == t2, f"the step went on without its client: {t1} -> {t2}")
    finally:
        srv.stop()


def test_a_replaced_world_ends_the_steps_under_way():
    # A step asked of one world must not tick on in the world another client put in
    # its place: reset, scenario and load each end it with an error saying so.
    data = data_dir("steer-replaced-")
    srv = Server("--scenario", "flock", data_dir=data)
    try:
        a, b = srv.text(), srv.text()
        a.ok("pause")
        b.ok("save before")
        for replace, word in [("reset", "reset the world"),
                              ("scenario flock", "loaded the scenario flock"),
                              ("load before", "loaded 'before'")]:
            busy_world(a)
            a.ok("pause")
            start = b.ok("stats")["tick"]
            a.send_raw(f"step {LONG_STEP}\n".encode())
            while b.ok("stats")["tick"] == start:
                pass
            expect(pending(a), "the step answered early")
            b.ok(replace)
            reply = a.line()
            expect(reply.startswith("ERR step: stopped after") and f"of {LONG_STEP} ticks" in reply
                   and word in reply, f"{replace}: {reply}")
            t1 = b.ok("stats")["tick"]
            t2 = b.ok("stats")["tick"]
            expect(t1 == t2 and t1 < 1000, f"{replace}: the step went on: {t1} -> {t2}")
            # The client that stepped carries on as before.
            expect(a.ok("stats")["tick"] == t2, f"{replace}: stats after")
    finally:
        code, log = srv.stop()
    expect(code == 0, f"exit {code}: {log[-1500:]}")


def test_a_client_that_closes_mid_step_is_let_go():
    # An ordinary close (steerctl giving up on a reply, nc on Ctrl-C) reads, to the
    # server, as the end of the client's sending side: it must not keep the
    # connection and its step running to the end.
    srv = Server("--scenario", "flock", "--idle-timeout", "1")
    try:
        a, b = srv.text(), srv.text()
        busy_world(a, 5000)  # the step outlasts the wait below many times over
        a.ok("pause")
        a.send_raw(f"step {LONG_STEP}\n".encode())
        start = b.ok("stats")["tick"]
        wait_for(lambda: b.ok("stats")["tick"] != start, "the step under way", every=0)
        a.close()
        wait_for(lambda: b.ok("stats")["clients"] == 1, "the closed client let go")
        t1 = b.ok("stats")["tick"]
        t2 = b.ok("stats")["tick"]
        expect(b.ok("stats")["clients"] == 1, "the closed client kept its slot")
        expect(t1 == t2, f"the step went on without its client: {t1} -> {t2}")
    finally:
        code, log = srv.stop()
    expect("during its command (--idle-timeout): keep it open for the reply" in log,
           log[-1500:])


def big_world(c):
    c.ok("pause")
    c.ok("spawn flock 50000 400 300 300")


def test_other_clients_are_served_while_a_save_is_written():
    data = data_dir("steer-bgsave-")
    srv = Server(data_dir=data)
    try:
        a, b = srv.text(), srv.text()
        big_world(a)
        a.send_raw(b"save big\n")
        b.ok("stats")
        expect(pending(a), "the save answered before the other client's stats")
        reply = a.line()
        expect(reply.startswith("OK ") and json.loads(reply[3:])["bytes"] > 0, reply)
        saves = b.ok("saves")["saves"]
        expect([s["name"] for s in saves] == ["big"] and saves[0]["vehicles"] == 50000, saves)
        # Two at once: the second waits for the first.
        a.send_raw(b"save one\n")
        b.send_raw(b"save two\n")
        expect(a.line().startswith("OK ") and b.line().startswith("OK "), "two saves")
        a.send_raw(b"load big\n")
        b.ok("stats")
        expect(pending(a), "the load answered before the other client's stats")
        got = json.loads(a.line()[3:])
        expect(got["vehicles"] == 50000, got)
        expect(b.ok("stats")["vehicles"] == 50000, "the loaded world is not the one run")
    finally:
        code, log = srv.stop()
    expect(code == 0, f"exit {code}")


def test_a_load_whose_client_left_is_announced():
    # The load still replaces the world: the others must hear of it, as of any load.
    data = data_dir("steer-bgload-")
    srv = Server("--idle-timeout", "1", data_dir=data)
    try:
        a, b, c = srv.text(), srv.text(), srv.text()
        a.ok("spawn flock 7 400 300 50")
        a.ok("save big")
        a.ok("reset")
        watcher = srv.proto()
        # A save that waits until the test reads its temporary file (a FIFO): the
        # load queued behind it starts only after its client has left.
        gate = os.path.join(data, "gate.steer.tmp")
        os.mkfifo(gate)
        b.send_raw(b"save gate\n")
        c.ok("stats")
        a.send_raw(b"load big\n")
        a.sock.shutdown(socket.SHUT_WR)  # let go a second later (--idle-timeout)
        wait_for(lambda: c.ok("stats")["clients"] == 3,
                 "the client that asked for the load let go (it stayed)")
        with open(gate, "rb") as f:
            f.read()
        expect(b.line().startswith("ERR save gate"), "the gate")
        deadline = time.time() + TIMEOUT
        text = None
        while text is None and time.time() < deadline:
            m = watcher.read()
            if m.WhichOneof("msg") == "notice":
                text = m.notice.text
        expect(text is not None and "loaded 'big'" in text, f"no notice of the load: {text}")
        expect(c.ok("stats")["vehicles"] == 7, "the load was not swapped in")
    finally:
        code, log = srv.stop()
    expect(code == 0, f"exit {code}")
    expect("loaded 'big'" in log, log[-1500:])


def test_sigterm_during_a_save_waits_for_it():
    data = data_dir("steer-bgsave-")
    srv = Server(data_dir=data)
    a = srv.text()
    big_world(a)
    a.send_raw(b"save big\n")
    tmp = os.path.join(data, "big.steer.tmp")
    wait_for(lambda: os.path.exists(tmp) or os.path.exists(tmp[:-4]), "the save begun",
             every=0.001)
    code, log = srv.stop()
    reply = a.line()
    expect(reply.startswith("OK "), reply)
    expect(code == 0, f"exit {code}: {log[-1500:]}")
    saves = sorted(f for f in os.listdir(data) if f not in ("journal", "journals"))
    expect(saves == ["big.steer"], saves)  # journal/ and journals/ are the journal's


def test_a_second_sigterm_stops_a_save_that_hangs():
    # A stop waits for a running save; one that never ends (a stuck disk, here a
    # FIFO as its temporary file) must not make the server unstoppable but by -9.
    data = data_dir("steer-stuck-save-")
    srv = Server(data_dir=data)
    a, b = srv.text(), srv.text()
    os.mkfifo(os.path.join(data, "gate.steer.tmp"))
    a.send_raw(b"save gate\n")
    b.ok("stats")
    srv.proc.send_signal(signal.SIGTERM)
    wait_for(lambda: "again to stop it" in srv.log_text(), "the stop to wait for the save",
             every=0.01)
    code, log = srv.stop()  # the second SIGTERM
    expect(code == 0, f"exit {code}: {log[-1500:]}")
    reply = a.line()
    expect(reply.startswith("ERR save gate:"), reply)


def test_a_failed_background_save_is_an_err():
    srv = Server(data_dir="/proc/steer-no-such-dir")
    try:
        c = srv.text()
        reply = c.cmd("save x")
        expect(reply.startswith("ERR save x: data directory"), reply)
        reply = c.cmd("load x")
        expect(reply.startswith("ERR load x: cannot open"), reply)
        expect(c.ok("stats")["vehicles"] == 0, "the server is not answering")
    finally:
        srv.stop()


def test_list_on_a_big_world_pages():
    srv = Server()
    try:
        c = srv.text()
        c.ok("pause")
        c.ok("spawn flock 10001 400 300 300")
        c.ok("obstacle 10 10 5")
        reply = c.cmd("list")
        expect(reply.startswith("ERR list: 10001 vehicles, 1 obstacles, 0 walls and 0 polygons, more than the 10000")
               and "list FROM_ID COUNT" in reply and "get ID" in reply, reply)
        first = c.ok("list 0 10000")
        expect(len(first["vehicles"]) == 10000 and first["obstacles"] == [], "first page")
        expect(first["next"] == 10001 and first["total_vehicles"] == 10001, first["next"])
        last = c.ok(f"list {first['next']} 10000")
        expect(len(last["vehicles"]) == 1 and len(last["obstacles"]) == 1, "last page")
        expect(last["next"] is None, last["next"])
        ids = [v["id"] for v in first["vehicles"] + last["vehicles"]]
        expect(ids == list(range(1, 10002)), "pages overlap or miss vehicles")
        expect(last["obstacles"][0]["id"] == 10002, last["obstacles"])
        expect(c.cmd("list 0 10001").startswith("ERR COUNT"), "a page over the limit")
        c.ok("reset")
        expect(c.ok("list") == {"tick": 0, "vehicles": [], "obstacles": [], "walls": [],
                                  "polygons": []}, "small list")
    finally:
        srv.stop()


def test_pages_taken_between_ticks_list_every_id_once():
    """The world re-sorts its vehicles by position as it runs: pages follow ids, so
    following next across ticks lists each vehicle and obstacle exactly once."""
    srv = Server()
    try:
        c = srv.text()
        c.ok("pause")
        c.ok("spawn flock 300 400 300 200")
        c.ok("obstacle 10 10 5")
        c.ok("remove 50")
        ids, ticks, start = [], set(), 0
        while start is not None:
            page = c.ok(f"list {start} 40")
            ticks.add(page["tick"])
            ids += [item["id"] for item in page["vehicles"] + page["obstacles"]]
            start = page["next"]
            c.ok("step 1")
        expect(len(ticks) > 5, ticks)
        expect(sorted(ids) == [i for i in range(1, 302) if i != 50], ids)
    finally:
        srv.stop()


for t in [test_a_long_step_does_not_block_other_clients, test_sigterm_stops_a_long_step_at_once,
          test_commands_after_a_step_keep_their_order, test_steps_from_two_clients_both_finish,
          test_a_client_that_stops_sending_still_gets_its_reply,
          test_a_client_that_leaves_mid_step_stops_it,
          test_a_client_that_closes_mid_step_is_let_go,
          test_a_replaced_world_ends_the_steps_under_way,
          test_other_clients_are_served_while_a_save_is_written,
          test_a_load_whose_client_left_is_announced, test_sigterm_during_a_save_waits_for_it, test_a_second_sigterm_stops_a_save_that_hangs,
          test_a_failed_background_save_is_an_err, test_list_on_a_big_world_pages,
          test_pages_taken_between_ticks_list_every_id_once]:
    checks.run(t)
sys.exit(checks.done())
