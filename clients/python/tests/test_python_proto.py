"""The installed package's protobuf module matches wire/steer.proto, it speaks the
server's protocol version, and its decoders read frames built by hand from
docs/PROTOCOL.md's layout (and refuse malformed ones, keeping their state)."""
import math
import os
import re
import subprocess
import sys
import tempfile

from harness import Checks, check_installed, expect, raises

check_installed()
import steer  # noqa: E402
from steer import codec, steer_pb2  # noqa: E402
from google.protobuf import descriptor_pb2  # noqa: E402

PROTO_DIR = os.environ["STEER_PROTO_DIR"]


def test_generated_module_matches_proto():
    """steer_pb2.py is committed; it must describe the same messages as the .proto
    (compared as descriptors, so any protoc version can check it)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "steer.desc")
        subprocess.run([os.environ.get("PROTOC", "protoc"), f"--descriptor_set_out={out}",
                        f"-I{PROTO_DIR}", os.path.join(PROTO_DIR, "steer.proto")], check=True)
        with open(out, "rb") as f:
            want = descriptor_pb2.FileDescriptorSet.FromString(f.read()).file[0]
    have = descriptor_pb2.FileDescriptorProto.FromString(steer_pb2.DESCRIPTOR.serialized_pb)

    def strip(fd):  # protoc adds json names to a descriptor set, not to generated code
        for m in fd.message_type:
            for fld in m.field:
                fld.ClearField("json_name")
        return fd

    expect(strip(want) == strip(have),
           "clients/python/steer/steer_pb2.py no longer matches wire/steer.proto: run "
           "clients/python/generate.sh and commit the result")


def test_protocol_version():
    with open(os.path.join(PROTO_DIR, "..", "include", "steer", "wire.h")) as f:
        m = re.search(r"#define STEER_PROTOCOL_VERSION (\d+)", f.read())
    expect(m and int(m.group(1)) == steer.PROTOCOL_VERSION,
           f"the server speaks version {m and m.group(1)}, the client {steer.PROTOCOL_VERSION}")


def test_version():
    """One version for the project: CMakeLists.txt's, which the package repeats."""
    from importlib.metadata import version
    with open(os.path.join(PROTO_DIR, "..", "CMakeLists.txt")) as f:
        m = re.search(r"project\(steer VERSION ([0-9.]+)", f.read())
    expect(m and steer.__version__ == m.group(1) == version("steer"),
           f"CMakeLists.txt {m and m.group(1)}, steer.__version__ {steer.__version__}, "
           f"installed {version('steer')}: clients/python/pyproject.toml and "
           "steer/__init__.py repeat the project's version")


# --- frames built by hand, from the layout in docs/PROTOCOL.md -------------------------

def varint(n):
    out = bytearray()
    while True:
        if n < 0x80:
            out.append(n)
            return bytes(out)
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def zz(d):
    return ((d << 1) ^ (d >> 31)) & 0xFFFFFFFF


def pos(dx, dy):
    a, b, v = zz(dx), zz(dy), 0
    for k in range(32):
        v |= (a >> k & 1) << (2 * k) | (b >> k & 1) << (2 * k + 1)
    return varint(v)


VIEW = (10.0, 20.0, 330.0, 180.0)
COLS, ROWS = 20, 10
QX, QY = (VIEW[2] - VIEW[0]) / (16 * COLS), (VIEW[3] - VIEW[1]) / (16 * ROWS)


def compact(seq, base_seq, count, **blobs):
    m = steer_pb2.CompactSnapshot()
    m.view.x0, m.view.y0, m.view.x1, m.view.y1 = VIEW
    m.cols, m.rows, m.seq, m.base_seq, m.count = COLS, ROWS, seq, base_seq, count
    for k, v in blobs.items():
        setattr(m, k, v)
    return m


def key_frame():
    # ids 5, 7, 17 at quanta (3, 4), (-2, 100), (1000, 0); headings 10, 10, 250;
    # speeds 0, 8, 8 (sparse: one change, the third keeps the second's); groups 0;
    # behaviors 256, 256, 1.
    return compact(1, 0, 3,
                   ids=varint(5) + varint(2) + varint(10),
                   pos=pos(3, 4) + pos(-2, 100) + pos(1000, 0),
                   heading=bytes([0, 10, 0, 240]),
                   speed=bytes([1]) + varint(1) + varint(zz(8)),
                   behaviors=bytes([0]) + varint(zz(256)) + varint(zz(0)) + varint(zz(-255)))


def delta_frame(seq=2, base_seq=1):
    # keep 5, drop 7, add 9 (gap 4 from 5), keep 17 (implicit); 5 moves (+1, -1),
    # 9 is at (50, 60), 17 stays; 17 slows by 3; headings unchanged (9 takes 5's).
    return compact(seq, base_seq, 3,
                   ids=varint(1 << 2 | 0) + varint(1 << 2 | 1) + varint(1 << 2 | 2) + varint(4),
                   pos=pos(1, -1) + pos(50, 60) + pos(0, 0),
                   speed=bytes([1]) + varint(2) + varint(zz(-3)))


def test_compact_key_and_delta():
    d = codec.CompactDecoder()
    f = d.decode(key_frame())
    expect(f.ids == [5, 7, 17], f"key ids {f.ids}")
    expect((f.qx, f.qy) == ([3, -2, 1000], [4, 100, 0]), f"key quanta {f.qx} {f.qy}")
    expect(f.heading == [10, 10, 250] and f.speed == [0, 8, 8], f"{f.heading} {f.speed}")
    expect(f.group == [0, 0, 0] and f.behaviors == [256, 256, 1], f"{f.group} {f.behaviors}")
    vs = codec.compact_vehicles(f)
    expect(abs(vs[0].x - (VIEW[0] + 3 * QX)) < 1e-12 and abs(vs[0].y - (VIEW[1] + 4 * QY)) < 1e-12,
           f"dequantized {vs[0]}")
    expect(vs[1].speed == 2.0 and abs(vs[1].heading - 10 * 2 * math.pi / 256) < 1e-12,
           f"speed and heading {vs[1]}")
    expect(abs(vs[1].vx - 2 * math.cos(10 * 2 * math.pi / 256)) < 1e-12, f"vx {vs[1]}")
    expect(abs(vs[2].heading - (250 - 256) * 2 * math.pi / 256) < 1e-12, f"heading {vs[2]}")

    f = d.decode(delta_frame())
    expect(f.ids == [5, 9, 17], f"delta ids {f.ids}")
    expect((f.qx, f.qy) == ([4, 50, 1000], [3, 60, 0]), f"delta quanta {f.qx} {f.qy}")
    expect(f.heading == [10, 10, 250], f"delta headings {f.heading}")
    expect(f.speed == [0, 0, 5], f"delta speeds {f.speed}")
    expect(f.behaviors == [256, 256, 1], f"delta behaviors {f.behaviors}")


def test_compact_refusals_keep_state():
    d = codec.CompactDecoder()
    d.decode(key_frame())
    held = d.base
    bad = [
        delta_frame(base_seq=7),  # a base this decoder does not hold
        compact(2, 1, 3, ids=varint(1 << 2 | 3)),  # op 3
        compact(2, 1, 4),  # more vehicles than the base and blob hold
        compact(2, 1, 3, ids=varint(1 << 2 | 2) + varint(0)),  # a zero gap
        compact(2, 1, 3, pos=pos(0, 0) * 3 + b"\x00"),  # a trailing byte
        compact(2, 1, 3, pos=pos(0, 0) * 2),  # too few
        compact(2, 1, 3, pos=pos(0, 0) * 3, heading=bytes([2, 1])),  # column mode 2
        compact(2, 1, 3, pos=pos(0, 0) * 3, speed=bytes([1]) + varint(3) + varint(2)),
        compact(2, 1, 3, pos=pos(1 << 29, 0) * 3),  # past the quantized range
    ]
    for m in bad:
        e = raises(steer.ProtocolError, d.decode, m)
        expect(str(e).startswith("malformed compact snapshot"), str(e))
        expect(d.base is held, f"a refused frame changed the state: {e}")
    f = d.decode(delta_frame())
    expect(f.ids == [5, 9, 17], "a good delta after refusals")
    key = key_frame()
    key.ids = varint(5) + varint(2)  # count 3, two ids
    raises(steer.ProtocolError, codec.CompactDecoder().decode, key)


def test_density_cells():
    m = steer_pb2.DensitySnapshot()
    m.view.x0, m.view.y0, m.view.x1, m.view.y1 = 0, 0, 40, 30
    m.cols, m.rows, m.in_view, m.max_count = 4, 3, 4, 3
    m.cells = varint(2) + varint(3) + bytes([64]) + varint(5) + varint(1) + bytes([128])
    fr = codec.density_frame(m, None)
    expect([(c.col, c.row, c.count) for c in fr.cells] == [(2, 0, 3), (0, 2, 1)],
           f"cells {fr.cells}")
    expect(abs(fr.cells[0].heading - math.pi / 2) < 1e-12 and
           abs(abs(fr.cells[1].heading) - math.pi) < 1e-12, f"headings {fr.cells}")
    expect(fr.cell_rect(fr.cells[1]) == (0, 20, 10, 30), f"rect {fr.cell_rect(fr.cells[1])}")
    m.in_view = 5
    raises(steer.ProtocolError, codec.density_frame, m, None)
    m.in_view = 4
    m.cells = varint(12) + varint(4) + bytes([0])  # past the 12 cells
    raises(steer.ProtocolError, codec.density_frame, m, None)


def test_framing():
    """Each message on the protobuf port is its length as a varint, then its bytes
    (tests/server/steertest.py frames with these functions too)."""
    from steer.client import MAX_FRAME, encode_frame, frame_at
    body = b"x" * 300
    buf = encode_frame(body) + encode_frame(b"") + encode_frame(b"yz")
    expect(buf[:3] == b"\xac\x02x", f"{buf[:3]!r}: 300 is not the varint AC 02")
    at, bodies = 0, []
    while (span := frame_at(buf, at)) is not None:
        bodies.append(buf[span[0]:span[1]])
        at = span[1]
    expect(bodies == [body, b"", b"yz"] and at == len(buf), f"{len(bodies)} frames, at {at}")
    # Part of a frame, or of its length: not yet one.
    for part in (b"", b"\xac", b"\xac\x02", encode_frame(body)[:-1]):
        expect(frame_at(part) is None, f"a frame in {part[:8]!r}")
    expect(frame_at(b"\x05" + b"\x80" * 9, 1) is None, "a 9-byte length not yet ended")
    e = raises(steer.ProtocolError, frame_at, b"\x80" * 10)
    expect("malformed frame length" in str(e), str(e))
    e = raises(steer.ProtocolError, frame_at, varint(MAX_FRAME + 1))
    expect(f"a frame of {MAX_FRAME + 1} bytes" in str(e), str(e))


def main():
    c = Checks()
    for t in (test_generated_module_matches_proto, test_protocol_version, test_version,
              test_compact_key_and_delta, test_compact_refusals_keep_state, test_density_cells,
              test_framing):
        c.run(t)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
