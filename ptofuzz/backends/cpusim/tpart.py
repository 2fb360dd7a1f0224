"""TPARTADD/MUL/MAX/MIN and TPARTARGMAX/MIN through the real simulator: cases to harness requests, replies to
outcomes.

Results inside the destination valid region depend only on the sources' valid regions (all are anchored at the
origin and row-major), so every tile of a request is laid out at one compiled stride: the smallest of
:data:`~ptofuzz.backends.cpusim.build.COLS` holding every valid region, with as many rows as the tallest region. Each
source tile's own elements are copied there, outside its valid region too, so that a simulator reading where it
must not shows it in the result. Outside the destination valid region the simulator writes nothing: undefined.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, Tile
from ptofuzz.core.failures import Failure, outcome, outcome_of, stacked

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


@dataclasses.dataclass(frozen=True)
class Request:
    """A batch laid out for the harness: the grid every tile uses and the inputs with a batch axis."""

    rows: int
    cols_index: int
    cols: int
    arrays: list[np.ndarray]
    batched: bool  # the inputs came with a batch axis (the outcome keeps it)

    @property
    def n(self) -> int:
        return self.arrays[0].shape[0]

    def valid(self, *ints: int) -> np.ndarray:
        """The six valid-region ints of every case (the same for the whole batch)."""
        return np.tile(np.array(ints, dtype=np.int32), (self.n, 1))


def prepare(sim: Simulator, case: Case, tiles: list[Tile], *inputs: np.ndarray) -> Request | Outcome:
    """The request for ``case`` (its ``tiles``' valid regions, ``inputs``), or the "unsupported" outcome when
    this build cannot run it or its tiles exceed the compiled strides."""
    gap = sim.unavailable(case)
    if gap is not None:
        return gap
    grid = request_grid(tiles)
    if grid is None:
        return too_big()
    arrays, batched = stacked(*inputs)
    return Request(*grid, arrays, batched)


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    tiles = [case.tile(r) for r in ROLES]
    req = prepare(sim, case, tiles, inputs["src0"], inputs["src1"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (a, s1) = req.rows, req.cols, req.arrays
    dt = dtypes.get(case.dtype)
    dst, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
                                         req.valid(*(v for t in tiles for v in t.valid)), into(a, rows, cols),
                                         into(s1, rows, cols), ALIAS[case.param("inplace")])
    return dst_outcome(case, req, dst, failures)


def one_source(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray], alias: int = 0,
               dst_rows: int | None = None) -> Outcome:
    """The outcome of an instruction of one source tile ``src`` and one destination ``dst`` (the unary ops, the
    reductions, the pair sums): both laid out at one compiled stride, the destination's slice ``dst_rows`` rows
    (default: the request's), ``alias`` the harness's per-instruction word (protocol.hpp)."""
    d, s = case.tile("dst"), case.tile("src")
    req = prepare(sim, case, [d, s], inputs["src"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (a,) = req.rows, req.cols, req.arrays
    dt = dtypes.get(case.dtype)
    none = np.zeros((req.n, 0), dtype=a.dtype)
    got, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
                                     req.valid(*d.valid, *s.valid, 0, 0), into(a, rows, cols), none, alias,
                                     np.zeros((req.n, dst_rows or rows, cols), a.dtype))
    return dst_outcome(case, req, got, failures)


def dst_outcome(case: Case, req: Request, grid: np.ndarray, failures: list[Failure]) -> Outcome:
    """The outcome of a request whose one output is ``dst`` (``grid``: its values on the request grid): what the
    simulator wrote inside the destination valid region, undefined outside it."""
    d = case.tile("dst")
    vr, vc = d.valid
    out = np.zeros((req.n, *d.shape), dtype=grid.dtype)
    out[:, :vr, :vc] = grid[:, :vr, :vc]
    one = np.full(d.shape, UNDEFINED, dtype=np.uint8)
    one[:vr, :vc] = EXACT
    return outcome("dst", out, one, failures, req.batched)


ARG_INDEX_BYTES = 4  # harness.cpp compiles TPARTARG* with uint32 index tiles


def _beside(values: np.ndarray, index: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Per case, a value tile's bytes then its index tile's (both on the request grid), as harness.cpp reads."""
    n = values.shape[0]
    v = np.ascontiguousarray(into(values, rows, cols)).reshape(n, -1).view(np.uint8)
    i = np.ascontiguousarray(into(index, rows, cols)).reshape(n, -1).view(np.uint8)
    return np.concatenate([v, i], axis=1)


def evaluate_arg(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """TPARTARGMAX/MIN through the simulator: value and index tiles side by side in each case's slice. Index
    tiles are copied, never computed with, so int32 and uint32 are the same bits; 16-bit index tiles are not
    compiled in."""
    idx = dtypes.get(case.param("idx") or "uint32")
    if idx.itemsize != ARG_INDEX_BYTES:
        return Outcome.unsupported(f"cpusim compiles {case.op} with 32-bit index tiles (int32/uint32), not "
                                   f"{idx.name}")
    for role in ROLES:
        if case.tile(role).shape != case.tile(f"{role}_idx").shape:
            return Outcome.unsupported(f"cpusim lays {role}_idx out as {role}'s tile; this case's shapes differ")
    tiles = [case.tile(r) for r in ROLES]
    req = prepare(sim, case, tiles, inputs["src0"], inputs["src1"], inputs["src0_idx"], inputs["src1_idx"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (a, b, ai, bi) = req.rows, req.cols, req.arrays
    dt = dtypes.get(case.dtype)
    n, cells = req.n, rows * cols
    out = np.zeros((n, cells * (dt.itemsize + ARG_INDEX_BYTES)), np.uint8)
    got, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
                                         req.valid(*(v for t in tiles for v in t.valid)),
                                         _beside(a, ai, rows, cols), _beside(b, bi, rows, cols), 0, out)
    split = cells * dt.itemsize
    results = {"dst": np.ascontiguousarray(got[:, :split]).view(a.dtype).reshape(n, rows, cols),
               "dst_idx": np.ascontiguousarray(got[:, split:]).view(ai.dtype).reshape(n, rows, cols)}
    parts = {}
    for role, grid in results.items():
        t = case.tile(role)
        vr, vc = t.valid
        full = np.zeros((n, *t.shape), dtype=grid.dtype)
        full[:, :vr, :vc] = grid[:, :vr, :vc]
        one = np.full(t.shape, UNDEFINED, dtype=np.uint8)
        one[:vr, :vc] = EXACT
        parts[role] = (full, one)
    return outcome_of(parts, failures, req.batched)
