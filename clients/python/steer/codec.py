"""Decoding of CompactSnapshot and DensitySnapshot, the byte layouts docs/PROTOCOL.md
specifies and wire/compact.c and wire/density.c implement in C. This follows the C
decoder check for check: a frame it refuses, this refuses, and a refused frame
leaves the decoder's state as it was. Pure functions of messages: no sockets."""
import math

from .errors import ProtocolError
from .frames import Cell, Frame, Vehicle, plain_vehicles

SUB = 16  # quanta per cell along each axis (STEER_COMPACT_SUB)
SPEED_Q = 0.25  # units per second per speed step (STEER_COMPACT_SPEED_Q)
MAX_Q = 1 << 29  # the largest quantized offset (STEER_COMPACT_MAX_Q)
MAX_CELLS = 4096  # cols and rows (STEER_COMPACT_MAX_CELLS)
MAX_DENSITY_CELLS = 1 << 20  # cols * rows of a density frame (STEER_DENSITY_MAX_CELLS)
MAX_VEHICLES = 10000000  # the most one compact frame may carry
VIEW_COORD_MAX = 1e13  # a view's coordinates (STEER_VIEW_COORD_MAX)
U32 = 0xFFFFFFFF
U64 = 0xFFFFFFFFFFFFFFFF

OP_KEEP, OP_DROP, OP_ADD = 0, 1, 2
COL_DENSE, COL_SPARSE = 0, 1

_STEP = 2 * math.pi / 256
# Unit vector of each of the 256 directions, as the C decoder's tables.
_COS = [math.cos(k * (math.tau / 256)) for k in range(256)]
_SIN = [math.sin(k * (math.tau / 256)) for k in range(256)]
# The direction of heading byte k in radians, -pi..pi.
_ANGLE = [(k - 256 if k > 128 else k) * _STEP for k in range(256)]


class Malformed(Exception):
    """A blob that does not decode; the message says which check failed."""


def varint(b, pos):
    """The varint at b[pos:]: (value, next pos). At most 10 bytes; bits past 64
    are dropped, as the C decoder does."""
    x = shift = 0
    end = len(b)
    for _ in range(10):
        if pos >= end:
            raise Malformed("a varint runs past the end")
        c = b[pos]
        pos += 1
        x |= (c & 0x7F) << shift
        if c < 0x80:
            return x & U64, pos
        shift += 7
    raise Malformed("a varint longer than 10 bytes")


def unzigzag(z):
    """zigzag(d) back to the signed 32-bit d."""
    return (z >> 1) ^ -(z & 1)


def gather(v):
    """Bits 0, 2, 4, ... of v as a 32-bit number (the inverse of interleaving)."""
    v &= 0x5555555555555555
    v = (v | (v >> 1)) & 0x3333333333333333
    v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0F
    v = (v | (v >> 4)) & 0x00FF00FF00FF00FF
    v = (v | (v >> 8)) & 0x0000FFFF0000FFFF
    return (v | (v >> 16)) & U32


# Position changes of up to two varint bytes, the common case, looked up.
_POS = [(unzigzag(gather(v)), unzigzag(gather(v >> 1))) for v in range(1 << 14)]
# Longer ones 16 bits at a time: the even and the odd bits of each 16-bit value.
_EVEN = bytes(gather(v) for v in range(1 << 16))
_ODD = bytes(gather(v >> 1) for v in range(1 << 16))


def _signed32(u):
    return u - (1 << 32) if u & 0x80000000 else u


def view_ok(x0, y0, x1, y1):
    def ok(c):
        return -VIEW_COORD_MAX <= c <= VIEW_COORD_MAX  # false for NaN

    return ok(x0) and ok(y0) and ok(x1) and ok(y1) and x1 > x0 and y1 > y0


class CompactFrame:
    """A decoded compact frame in its quantized form: what a delta is applied to."""

    __slots__ = ("seq", "view", "cols", "rows", "ids", "qx", "qy", "heading", "speed",
                 "group", "behaviors")

    def quantum(self):
        x0, y0, x1, y1 = self.view
        return (x1 - x0) / (self.cols * float(SUB)), (y1 - y0) / (self.rows * float(SUB))


def _decode_ids(blob, base, count):
    """The frame's ids, for each the index of its slot in the base (-1: new), and
    the indices of the new ones. Runs of kept ids are copied whole: the base's ids
    ascend, so only where a run meets what came before needs checking."""
    nb = len(base.ids) if base else 0
    if count > nb + len(blob) or count > MAX_VEHICLES:
        raise Malformed("more vehicles than the ids account for")
    ids, src, added = [], [], []
    prev = n = i = pos = 0
    end = len(blob)

    def keep(length):
        nonlocal prev, n, i
        if n and base.ids[i] <= prev:
            raise Malformed("ids not ascending")
        ids.extend(base.ids[i:i + length])
        src.extend(range(i, i + length))
        i += length
        n += length
        prev = ids[-1]

    while pos < end:
        if base:
            op, pos = varint(blob, pos)
            length, op = op >> 2, op & 3
            if length == 0 or op > OP_ADD:
                raise Malformed("bad id edit")
        else:
            op, length = OP_ADD, 1
        if op != OP_ADD and length > nb - i:
            raise Malformed("id edit past the base's list")
        if op == OP_DROP:
            i += length
            continue
        if length > count - n:
            raise Malformed("more ids than the count")
        if op == OP_KEEP:
            keep(length)
            continue
        for _ in range(length):
            gap, pos = varint(blob, pos)
            if gap == 0 or gap > U32 - prev:
                raise Malformed("bad id gap")
            ident = prev + gap
            if n and ident <= prev:
                raise Malformed("ids not ascending")
            ids.append(ident)
            src.append(-1)
            added.append(n)
            prev = ident
            n += 1
    # The final keep is implicit in a delta.
    if base and nb - i > count - n:
        raise Malformed("more ids than the count")
    if base and i < nb:
        keep(nb - i)
    if n != count:
        raise Malformed("fewer ids than the count")
    return ids, src, added


def _decode_pos(blob, base, src):
    qx, qy = [], []
    pos, end = 0, len(blob)
    table, even, odd = _POS, _EVEN, _ODD
    bqx, bqy = (base.qx, base.qy) if base else ((), ())
    for s in src:
        # One to three bytes inline (a change of up to 10 bits a side), longer ones
        # through varint().
        if pos + 2 < end:
            c0, c1, c2 = blob[pos], blob[pos + 1], blob[pos + 2]
        elif pos < end:
            c0, c1, c2 = blob[pos], blob[pos + 1] if pos + 1 < end else 0x80, 0x80
        else:
            raise Malformed("malformed positions")
        if c0 < 0x80:
            dx, dy = table[c0]
            pos += 1
        elif c1 < 0x80:
            dx, dy = table[(c0 & 0x7F) | c1 << 7]
            pos += 2
        else:
            if c2 < 0x80:
                v = (c0 & 0x7F) | (c1 & 0x7F) << 7 | c2 << 14
                pos += 3
            else:
                try:
                    v, pos = varint(blob, pos)
                except Malformed:
                    raise Malformed("malformed positions") from None
            w0, w1, w2, w3 = v & 0xFFFF, v >> 16 & 0xFFFF, v >> 32 & 0xFFFF, v >> 48
            a = even[w0] | even[w1] << 8 | even[w2] << 16 | even[w3] << 24
            b = odd[w0] | odd[w1] << 8 | odd[w2] << 16 | odd[w3] << 24
            dx, dy = (a >> 1) ^ -(a & 1), (b >> 1) ^ -(b & 1)
        if s >= 0:
            dx += bqx[s]
            dy += bqy[s]
        if not (-MAX_Q <= dx <= MAX_Q and -MAX_Q <= dy <= MAX_Q):
            raise Malformed("malformed positions")
        qx.append(dx)
        qy.append(dy)
    if pos != end:
        raise Malformed("malformed positions")
    return qx, qy


def _column(blob, n, byte):
    """Each vehicle's change from its prior (0: keeps it), as signed numbers for
    varint columns, bytes for byte columns."""
    if not blob:
        return [0] * n  # empty: every value is its prior
    end = len(blob)
    mode, pos = blob[0], 1
    if mode == COL_DENSE and byte:
        if end != n + 1:
            raise Malformed("malformed column")
        return list(blob[1:])
    delta = [0] * n
    try:
        if mode == COL_DENSE:
            for k in range(n):
                c = blob[pos] if pos < end else 0x100
                if c < 0x80:
                    z = c
                    pos += 1
                else:
                    z, pos = varint(blob, pos)
                if z > U32:
                    raise Malformed("malformed column")
                delta[k] = (z >> 1) ^ -(z & 1)
            if pos != end:
                raise Malformed("malformed column")
        elif mode == COL_SPARSE:
            k = 0
            while pos < end:
                skip, pos = varint(blob, pos)
                if skip >= n - k:
                    raise Malformed("malformed column")
                k += skip
                if byte:
                    if pos >= end:
                        raise Malformed("malformed column")
                    delta[k] = blob[pos]
                    pos += 1
                else:
                    z, pos = varint(blob, pos)
                    if z > U32:
                        raise Malformed("malformed column")
                    delta[k] = (z >> 1) ^ -(z & 1)
                k += 1
        else:
            raise Malformed("malformed column")
    except Malformed:
        raise Malformed("malformed column") from None
    return delta


def _apply(delta, base_col, src, added, mask):
    """The column's values: each vehicle's prior plus its change. A kept vehicle's
    prior is its base value; a new one's the value of the vehicle before it in this
    frame (0 for the first), final by then since new ones are done in order."""
    if base_col:
        cur = [(base_col[s] + d) & mask if s >= 0 else 0 for s, d in zip(src, delta)]
    else:
        cur = [0] * len(src)
    for k in added:
        cur[k] = ((cur[k - 1] if k else 0) + delta[k]) & mask
    return cur


class CompactDecoder:
    """One connection's compact stream: the last frame decoded, and each next frame
    decoded against it. A new connection needs a new decoder."""

    def __init__(self):
        self.base = None

    def reset(self):
        self.base = None

    def decode(self, m):
        """Decodes a CompactSnapshot message and makes it the base; returns the
        CompactFrame. Raises ProtocolError, and keeps the state it had, when the
        frame is malformed or is a delta on a frame this decoder does not hold."""
        try:
            f = self._decode(m)
        except Malformed as e:
            raise ProtocolError(f"malformed compact snapshot: {e}") from None
        self.base = f
        return f

    def _decode(self, m):
        if not m.HasField("view"):
            raise Malformed("compact snapshot without a valid view")
        view = (m.view.x0, m.view.y0, m.view.x1, m.view.y1)
        if not view_ok(*view):
            raise Malformed("compact snapshot without a valid view")
        if not (1 <= m.cols <= MAX_CELLS and 1 <= m.rows <= MAX_CELLS):
            raise Malformed("compact snapshot with a precision out of range")
        if m.seq == 0:
            raise Malformed("compact snapshot without a sequence number")
        base = None
        if m.base_seq:
            base = self.base
            if base is None or base.seq != m.base_seq:
                raise Malformed("compact delta against a frame this client does not hold")
            if base.view != view or base.cols != m.cols or base.rows != m.rows:
                raise Malformed("compact delta with a view other than its base's")
        ids, src, added = _decode_ids(m.ids, base, m.count)
        qx, qy = _decode_pos(m.pos, base, src)
        b = base if base else _EMPTY
        n = len(ids)
        f = CompactFrame()
        f.heading = _apply(_column(m.heading, n, True), b.heading, src, added, 0xFF)
        f.speed = _apply(_column(m.speed, n, False), b.speed, src, added, U32)
        f.group = _apply(_column(m.group, n, False), b.group, src, added, U32)
        f.behaviors = _apply(_column(m.behaviors, n, False), b.behaviors, src, added, U32)
        f.seq, f.view, f.cols, f.rows = m.seq, view, m.cols, m.rows
        f.ids, f.qx, f.qy = ids, qx, qy
        return f


_EMPTY = CompactFrame()
_EMPTY.heading = _EMPTY.speed = _EMPTY.group = _EMPTY.behaviors = ()


def compact_vehicles(f):
    """The vehicles of a decoded compact frame, dequantized: positions from the
    quanta, velocity from heading and speed."""
    qx, qy = f.quantum()
    x0, y0 = f.view[0], f.view[1]
    cos, sin, angle = _COS, _SIN, _ANGLE
    new = tuple.__new__
    out = []
    for i, a, b, h, s, g, bh in zip(f.ids, f.qx, f.qy, f.heading, f.speed, f.group,
                                    f.behaviors):
        speed = s * SPEED_Q
        out.append(new(Vehicle, (i, x0 + a * qx, y0 + b * qy, speed * cos[h], speed * sin[h],
                                 angle[h], speed, g, bh)))
    return out


def compact_frame(m, f, geometry):
    """The Frame of a CompactSnapshot message m that decoded to f."""
    # The vehicles are made when the program asks: the reader thread only decodes.
    fr = Frame("compact", m, lambda: compact_vehicles(f), geometry)
    fr.seq, fr.base_seq, fr.cols, fr.rows = m.seq, m.base_seq, m.cols, m.rows
    fr.quantum = f.quantum()
    return fr


def density_cells(m):
    """The cells of a DensitySnapshot message, checked as the C decoder checks them;
    raises ProtocolError on a malformed frame."""
    try:
        return _density_cells(m)
    except Malformed as e:
        raise ProtocolError(f"malformed density snapshot: {e}") from None


def _density_cells(m):
    if not m.HasField("view") or not view_ok(m.view.x0, m.view.y0, m.view.x1, m.view.y1):
        raise Malformed("without a valid view")
    if not (1 <= m.cols <= MAX_CELLS and 1 <= m.rows <= MAX_CELLS and
            m.cols * m.rows <= MAX_DENSITY_CELLS):
        raise Malformed("with a grid out of range")
    blob, cells = m.cells, []
    pos, at, total = 0, 0, 0
    ncells = m.cols * m.rows
    while pos < len(blob):
        try:
            skip, pos = varint(blob, pos)
            count, pos = varint(blob, pos)
        except Malformed:
            raise Malformed("truncated cells") from None
        if pos >= len(blob):
            raise Malformed("truncated cells")
        heading = blob[pos]
        pos += 1
        at += skip
        if count < 1 or count > U32 or at >= MAX_DENSITY_CELLS:
            raise Malformed("density cell out of range")
        if at >= ncells:
            raise Malformed("with a cell outside its grid")
        cells.append(Cell(at % m.cols, at // m.cols, count, _ANGLE[heading]))
        total += count
        at += 1
    if total != m.in_view:
        raise Malformed("whose counts do not add up to in_view")
    if m.HasField("picked"):
        p = m.picked
        if p.id == 0 or not all(math.isfinite(c) for c in (p.x, p.y, p.vx, p.vy)):
            raise Malformed("with a picked vehicle without an id or a finite state")
    return cells


def density_frame(m, geometry):
    """The Frame of a DensitySnapshot message."""
    cells = density_cells(m)
    picked = None
    if m.HasField("picked"):
        p = m.picked
        picked = Vehicle(p.id, p.x, p.y, p.vx, p.vy, math.atan2(p.vy, p.vx),
                         math.hypot(p.vx, p.vy), p.group, p.behaviors)
    fr = Frame("density", m, [picked] if picked else [], geometry)
    fr.cols, fr.rows, fr.cells = m.cols, m.rows, cells
    fr.in_view, fr.max_count, fr.picked = m.in_view, m.max_count, picked
    return fr


def plain_frame(m, geometry):
    """The Frame of a plain Snapshot message."""
    n = len(m.id)
    for col in (m.x, m.y, m.vx, m.vy, m.group, m.behaviors):
        if len(col) != n:
            raise ProtocolError("malformed snapshot: its vehicle arrays differ in length")
    return Frame("snapshot", m, plain_vehicles(m), geometry)
