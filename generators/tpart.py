"""Random TPART* geometries legal on each platform, and the two sources' bits over their whole tiles (which the
elementwise families draw the same way).

Dimensions are biased toward edges the way Hypothesis biases integer bounds: 1, the full extent, one less,
vector-alignment boundaries (32-byte blocks of the element type, +-1), with zero rows or columns and in-place
destinations mixed in at small rates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.generators import values
from ptofuzz.generators.source import Source

MAX_ROWS = 64
MAX_COLS = 128
ZERO_RATE = 0.05
INPLACE_RATE = 0.15


def dimension(source: Source, upper: int, align: int) -> int:
    """A dimension in [1, upper], edges preferred."""
    if upper <= 1:
        return max(upper, 1)
    edges = [1, upper, upper - 1, 2] + [m + d for m in (align, 2 * align) for d in (-1, 0, 1) if 1 <= m + d <= upper]
    if float(source.random(1)[0]) < 0.5:
        return int(source.choice(edges))
    return int(source.integers(1, upper))


def inner(source: Source, outer: tuple[int, int], align: int, *, allow_zero: bool) -> tuple[int, int]:
    """A region inside ``outer``: often the whole, often one full side, sometimes empty."""
    R, C = outer
    roll = float(source.random(1)[0])
    if allow_zero and roll < ZERO_RATE:
        return (0, C) if float(source.random(1)[0]) < 0.5 else (R, 0)
    if roll < 0.3:
        return R, C
    if roll < 0.5:
        return dimension(source, R, 8), C
    if roll < 0.7:
        return R, dimension(source, C, align)
    return dimension(source, R, 8), dimension(source, C, align)


def random_case(source: Source, op: str, platform: str, dtypes: tuple[str, ...],
                physical: Callable[[int, int, DType], tuple[int, int]] | None, compact: bool,
                constraints: Mapping[str, Any]) -> Case:
    """A case legal on ``platform``: the spec's coverage rule, a2a3's and a5's "one source is dst, the other
    fits" rule, or anything at all for the cpu simulator (overhanging and empty sources included).

    ``constraints`` may fix ``dtype`` and ``shape`` (the dst tile; its valid region for compact layouts).
    """
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    align = max(1, 32 // dt.itemsize)
    if constraints.get("shape"):
        R, C = constraints["shape"]
    else:
        R = dimension(source, MAX_ROWS, 8)
        C = dimension(source, 64 if dt.bits == 64 else MAX_COLS, align)
    inplace = None
    kind = platforms.get(platform).kind
    if kind == platforms.CPU:
        dv = inner(source, (R, C), align, allow_zero=True) if not compact else (R, C)
        s0 = inner(source, (R, C), align, allow_zero=True)
        s1 = inner(source, (R, C), align, allow_zero=True)
        if float(source.random(1)[0]) < INPLACE_RATE:
            inplace = source.choice(("src0", "src1"))
            s0, s1 = (dv, s1) if inplace == "src0" else (s0, dv)
        tiles = [Tile(R, C, *dv), Tile(R, C, *s0), Tile(R, C, *s1)]
        return _case(op, platform, dt, tiles, inplace)
    dv = (R, C)
    small = inner(source, dv, align, allow_zero=kind != platforms.SPEC)  # pto-spec faults on an empty source
    big_role = source.choice(("src0", "src1"))
    s0, s1 = (dv, small) if big_role == "src0" else (small, dv)
    if float(source.random(1)[0]) < INPLACE_RATE:
        inplace = big_role
    valids = [dv, s0, s1]
    if compact:
        tiles = [Tile(r, c, r, c) for r, c in valids]
    else:
        assert physical is not None
        tiles = [Tile(*physical(r, c, dt), r, c) for r, c in valids]
        if inplace:
            tiles[1 if inplace == "src0" else 2] = tiles[0]
    return _case(op, platform, dt, tiles, inplace)


def _case(op: str, platform: str, dt: DType, tiles: list[Tile], inplace: str | None) -> Case:
    params = (("inplace", inplace),) if inplace else ()
    return Case(op, platform, dt.name, tuple(zip(("dst", "src0", "src1"), tiles)), params)


ILLEGAL_RULES = ("cover", "exceed", "empty")  # the partial schema rules an illegal spec case breaks


def illegal_spec_case(source: Source, op: str, dtypes: tuple[str, ...],
                      physical: Callable[[int, int, DType], tuple[int, int]], constraints: Mapping[str, Any]) -> Case:
    """A spec case the partial schema rejects (Fault_TileLegality at commit), breaking one rule of
    :data:`ILLEGAL_RULES`: neither source covers the destination, a source exceeds it, or a source is empty. The
    other source covers the destination; every tile is the smallest legal descriptor (``physical``) holding its
    valid region."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    R, C = constraints.get("shape") or (dimension(source, MAX_ROWS, 8), dimension(source, MAX_COLS, 8))
    rule = source.choice(ILLEGAL_RULES)
    if rule == "cover" and R * C == 1:
        rule = "exceed"
    if rule == "cover":  # both sources one row or column short
        s0 = s1 = (R, C - 1) if C > 1 else (R - 1, C)
    else:
        bad = ((R, C + 1) if C < MAX_COLS else (R + 1, C)) if rule == "exceed" else \
            source.choice(((0, C), (R, 0)))
        s0, s1 = (bad, (R, C)) if source.choice(("src0", "src1")) == "src0" else ((R, C), bad)
    tiles = [Tile(*physical(r, c, dt), r, c) for r, c in ((R, C), s0, s1)]
    return _case(op, "spec", dt, tiles, None)


# ---- inputs: both sources over their whole tiles ------------------------------------------------------------

def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """Source bits over each whole physical tile (outside the valid region too: implementations must not
    read there). An in-place destination starts as its source, so nothing extra is drawn."""
    return draw_many([(source, case)], mix)[0]


def draw_many(items: Sequence[tuple[Source, Case]], mix: values.ValueMix) -> list[dict[str, np.ndarray]]:
    """:func:`draw_inputs` of many cases, each from its own source: both tiles of a case in one draw, the draws of
    a dtype's cases in one ``values.draw_many`` (``values.draw_mixed``; row-level kinds: tile by tile, case by
    case)."""
    if values.draws_rows(mix):  # row-level kinds: tile by tile
        return [{role: values.draw(source, get(case.dtype), case.tile(role).shape, mix)
                 for role in ("src0", "src1")} for source, case in items]
    shapes = [(case.tile("src0").shape, case.tile("src1").shape) for _, case in items]
    drawn = values.draw_mixed([(source, get(case.dtype), (r0 * c0 + r1 * c1,))
                               for (source, case), ((r0, c0), (r1, c1)) in zip(items, shapes)], mix)
    return [{"src0": both[:r0 * c0].reshape(r0, c0), "src1": both[r0 * c0:].reshape(r1, c1)}
            for ((r0, c0), (r1, c1)), both in zip(shapes, drawn)]


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' source bits at once, stacked on a leading axis (element-level special values only)."""
    dt = get(case.dtype)
    (r0, c0), (r1, c1) = case.tile("src0").shape, case.tile("src1").shape
    k0 = r0 * c0
    both = values.draw(source, dt, (n * (k0 + r1 * c1),), mix).reshape(n, -1)
    return {"src0": both[:, :k0].reshape(n, r0, c0), "src1": both[:, k0:].reshape(n, r1, c1)}
