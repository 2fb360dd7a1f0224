"""TPARTADD/MUL/MAX/MIN through the real simulator: cases to harness requests, replies to outcomes.

Results inside the destination valid region depend only on the sources' valid regions (all are anchored at the
origin and row-major), so every tile of a request is laid out at one compiled stride: the smallest of
:data:`~ptofuzz.cpusim.build.COLS` holding every valid region, with as many rows as the tallest region. Each
source tile's own elements are copied there, outside its valid region too, so that a simulator reading where it
must not shows it in the result. Outside the destination valid region the simulator writes nothing: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz import dtypes
from ptofuzz.case import EXACT, UNDEFINED, Case, Outcome, Tile
from ptofuzz.cpusim import build, session
from ptofuzz.failures import outcome, stacked

ROLES = ("dst", "src0", "src1")
ALIAS = {None: 0, "src0": 1, "src1": 2}


def into(bits: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """A tile's bits (with a leading batch axis) on a rows x cols grid: its own elements where it has them."""
    out = np.zeros(bits.shape[:-2] + (rows, cols), dtype=bits.dtype)
    r, c = min(rows, bits.shape[-2]), min(cols, bits.shape[-1])
    out[..., :r, :c] = bits[..., :r, :c]
    return out


def stride_index(rows: int, width: int) -> int | None:
    """The compiled stride (index into COLS) for tiles of ``rows`` x ``width``, None when none fits."""
    if rows > build.MAX_ROWS or width > build.COLS[-1]:
        return None
    return next(i for i, c in enumerate(build.COLS) if c >= width)


def request_grid(tiles: list[Tile]) -> tuple[int, int, int] | None:
    """(rows, stride index, columns) of a request holding every valid region of ``tiles``; None: too big."""
    rows = max(1, max(t.valid_rows for t in tiles))
    ci = stride_index(rows, max(1, max(t.valid_cols for t in tiles)))
    return None if ci is None else (rows, ci, build.COLS[ci])


def too_big() -> Outcome:
    return Outcome.unsupported(f"cpusim compiles tiles of up to {build.MAX_ROWS} rows and {build.COLS[-1]} columns")


def evaluate(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    gap = session.unavailable(case)
    if gap is not None:
        return gap
    tiles = [case.tile(r) for r in ROLES]
    grid = request_grid(tiles)
    if grid is None:
        return too_big()
    rows, ci, cols = grid
    dt = dtypes.get(case.dtype)
    (a, s1), batched = stacked(inputs["src0"], inputs["src1"])
    n = a.shape[0]
    valid = np.tile(np.array([v for t in tiles for v in t.valid], dtype=np.int32), (n, 1))
    inplace = case.param("inplace")
    dst, failures = session.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], ci, rows, valid,
                                         into(a, rows, cols), into(s1, rows, cols), ALIAS[inplace])
    d = case.tile("dst")
    vr, vc = d.valid
    out = np.zeros((n, *d.shape), dtype=a.dtype)
    out[:, :vr, :vc] = dst[:, :vr, :vc]
    one = np.full(d.shape, UNDEFINED, dtype=np.uint8)
    one[:vr, :vc] = EXACT
    return outcome("dst", out, one, failures, batched)
