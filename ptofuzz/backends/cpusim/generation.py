"""TEXPANDS, TCI and TTRI through the real simulator: cases to harness requests, replies to outcomes.

The destination is laid out as TPART*'s tiles are (:mod:`ptofuzz.backends.cpusim.tpart`: one compiled stride holding
its valid region). TEXPANDS's scalar travels as the first element of each case's A slice, which the kernel reads
into the element type; TCI's start (its bits) and direction and TTRI's diagonal and orientation travel in the
request's ints beside the valid region, each item's own (a batch may vary TCI's start and TTRI's diagonal).
What the simulator writes outside what the page has the instruction write is not looked at (undefined); TCI
writes row 0 whatever the valid rows say, so its row 0 is read back.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import Request, dst_outcome, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, Tile, param_values
from ptofuzz.core.failures import Failure, outcome
from ptofuzz.oracles.generation import DESCENDING, DIAGONAL, START, UPPER


def _as_int32(bits: np.ndarray) -> np.ndarray:
    """The low 32 bits of each value as a signed int (the request's ints are int32)."""
    out: np.ndarray = (np.asarray(bits, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    return out


def _tci_outcome(case: Case, req: Request, grid: np.ndarray, failures: list[Failure]) -> Outcome:
    d = case.tile("dst")
    vc = d.valid_cols
    out = np.zeros((req.n, *d.shape), dtype=grid.dtype)
    out[:, :1, :vc] = grid[:, :1, :vc]
    one = np.full(d.shape, UNDEFINED, dtype=np.uint8)
    one[:1, :vc] = EXACT
    return outcome("dst", out, one, failures, req.batched)


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (a TEXPANDS scalar with or without a leading batch axis)."""
    d = case.tile("dst")
    dt = dtypes.get(case.dtype)
    if case.op == "TEXPANDS":
        if "scalar" not in dict(case.tiles):
            return Outcome.unsupported("a Mat-tile TEXPANDS case: the harness runs Vec tiles")
        scalar = inputs["scalar"]
    else:  # TCI and TTRI read no data: one case, or a batch of per-item starts or diagonals
        param = inputs.get(START if case.op == "TCI" else DIAGONAL)
        lead = () if param is None else np.shape(param)[:-2]
        scalar = np.zeros((*lead, 1, 1), dtype=dt.bits_dtype)
    grid_tiles = [Tile(d.rows, d.cols, max(d.valid_rows, 1) if case.op == "TCI" else d.valid_rows, d.valid_cols)]
    req = prepare(sim, case, grid_tiles, scalar)
    if isinstance(req, Outcome):
        return req
    rows, cols, (s,) = req.rows, req.cols, req.arrays
    a = np.zeros((req.n, rows, cols), dtype=s.dtype)
    a[:, 0, 0] = s[:, 0, 0]
    ints = req.valid(*d.valid, 0, 1 if case.param(DESCENDING if case.op == "TCI" else UPPER) else 0, 0, 0)
    if case.op != "TEXPANDS":  # the start's bits (TCI) or the diagonal (TTRI), each item's
        values = param_values(case, inputs, START if case.op == "TCI" else DIAGONAL).reshape(-1)
        ints[:, 2] = _as_int32(values)
    got, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows, ints, a,
                                     np.zeros((req.n, 0), dtype=s.dtype))
    if case.op == "TCI":
        return _tci_outcome(case, req, got, failures)
    return dst_outcome(case, req, got, failures)
