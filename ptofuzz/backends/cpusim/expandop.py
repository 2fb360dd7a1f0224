"""TROWEXPAND{ADD,SUB,MUL,MAX,MIN} and TCOLEXPAND{ADD,SUB,MUL,MAX,MIN} through the real simulator: cases to harness
requests, replies to outcomes.

The two sources lie as TADD's (:mod:`ptofuzz.backends.cpusim.tpart`: one compiled stride holding every valid region,
each source's own elements copied there, outside its valid region too). The expanded operand is the one the pages
say (:func:`ptofuzz.oracles.expandop.expanded_role`); a one-valid-column one (Mode 1) is a ColMajor tile in the
kernel, its column's elements one after the other from the start of its slice (its own physical rows, as far as the
slice holds them); a 32-byte block a row (Mode 2) a RowMajor tile at the stride. TCOLEXPAND*'s three tiles are
RowMajor at the stride (TColExpandOp.hpp:38-40), src1's scalars its first row. A geometry no documented reading
fits is not run: the row forms' simulator asserts on it (TRowExpandOp.hpp:76-90), and the column forms' reads
src0 and src1 wherever dst's valid region says (TColExpandOp.hpp:49-62), which the pages leave open.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Outcome
from ptofuzz.oracles.expandop import AXIS, expanded_role

ROLES = ("dst", "src0", "src1")
SWAP, COLUMN = 1, 2  # protocol.hpp's kExpandSwap, kExpandColumn


def column(bits: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """A one-column tile's elements (a leading batch axis) one after the other on a rows x cols grid."""
    n = bits.shape[0]
    flat = np.zeros((n, rows * cols), dtype=bits.dtype)
    k = min(rows * cols, bits.shape[-2])
    flat[:, :k] = bits[:, :k, 0]
    return flat.reshape(n, rows, cols)


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    role = expanded_role(case)
    d = case.tile("dst")
    if role is None and 0 not in d.valid:
        return Outcome.unsupported(f"{case.op}: no documented reading of this geometry (docs/isa/{case.op}.md); the "
                                   "simulator asserts on it")
    tiles = [case.tile(r) for r in ROLES]
    req = prepare(sim, case, tiles, inputs["src0"], inputs["src1"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (s0, s1) = req.rows, req.cols, req.arrays
    role = role or "src1"
    col = AXIS[case.op] == "row" and case.tile(role).valid_cols == 1
    grids = {"src0": s0, "src1": s1}
    laid = {r: column(b, rows, cols) if col and r == role else into(b, rows, cols) for r, b in grids.items()}
    alias = (SWAP if role == "src0" else 0) | (COLUMN if col else 0)
    dt = dtypes.get(case.dtype)
    dst, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
                                     req.valid(*(v for t in tiles for v in t.valid)), laid["src0"], laid["src1"],
                                     alias)
    return dst_outcome(case, req, dst, failures)
