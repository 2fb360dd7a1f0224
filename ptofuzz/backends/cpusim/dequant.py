"""TDEQUANT through the real simulator: cases to harness requests, replies to outcomes.

The source and the float destination are laid out as TPART*'s tiles are (:mod:`ptofuzz.backends.cpusim.tpart`:
one compiled stride holding the valid region); each case's scale and offset tiles follow in B, each the request's
rows x ``PARA_COLS`` floats (protocol.hpp's kParaCols) holding the parameter tiles' valid region, which the
kernel declares as its parameter tiles' valid region (rows: the destination's). A parameter tile of more valid
columns is unsupported.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Outcome

PARA_COLS = 8  # protocol.hpp's kParaCols


def parameters(scale: np.ndarray, offset: np.ndarray, rows: int, n: int) -> np.ndarray:
    """The harness's B buffer for ``n`` cases: each case's scale tile, then its offset tile, each ``rows`` x
    :data:`PARA_COLS` float bits (protocol.hpp's kParaCols)."""
    return np.concatenate([into(scale, rows, PARA_COLS).reshape(n, -1),
                           into(offset, rows, PARA_COLS).reshape(n, -1)], axis=1).astype(np.uint32)


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    d, p = case.tile("dst"), case.tile("scale")
    if p.valid_cols > PARA_COLS or case.tile("offset").valid != p.valid or p.valid_rows != d.valid_rows:
        return Outcome.unsupported(f"cpusim TDEQUANT runs parameter tiles of the destination's valid rows and up to "
                                   f"{PARA_COLS} valid columns, one shape for scale and offset")
    req = prepare(sim, case, [d, case.tile("src")], inputs["src"], inputs["scale"], inputs["offset"])
    if isinstance(req, Outcome):
        return req
    rows, cols = req.rows, req.cols
    src, scale, offset = req.arrays
    para = parameters(scale, offset, rows, req.n)
    ints = req.valid(*d.valid, p.valid_cols, 0, 0, 0)
    out = np.zeros((req.n, rows, cols), dtype=np.uint32)
    got, failures = sim.worker().run(build.OPS["TDEQUANT"], build.DTYPES[dtypes.get(case.dtype).name][0],
                                     req.cols_index, rows, ints, into(src, rows, cols), para, 0, out)
    return dst_outcome(case, req, got, failures)
