"""TQUANT (INT8) through the real simulator: cases to harness requests, replies to outcomes.

The float source and the one-byte destination (int8: INT8_SYM, uint8: INT8_ASYM; the request's ``alias`` is its
dtype code) are laid out as TPART*'s tiles are (:mod:`ptofuzz.backends.cpusim.tpart`: one compiled stride holding
the valid region); each case's scale and offset tiles follow in B, each the request's rows x ``PARA_COLS`` floats
(protocol.hpp's kParaCols), column 0 holding the parameter, which the kernel declares as a tile of the case's
parameter valid rows and one valid column. INT8_SYM is called without an offset tile. The roles INT8 does not
write (exponents, scalings, indices) are undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.dequant import PARA_COLS
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core.case import Case, Outcome, OutcomeKind
from ptofuzz.oracles.quant import INT8, TO, with_unused


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    to = str(case.param(TO))
    d, p = case.tile("dst"), case.tile("scale")
    if to not in INT8:
        return Outcome.unsupported(f"cpusim TQUANT runs the INT8 forms (to int8 or uint8), not to {to}")
    if p.valid_cols != 1 or case.tile("offset").valid != p.valid or not 1 <= p.valid_rows <= d.valid_rows:
        return Outcome.unsupported("cpusim TQUANT runs parameter tiles of one valid column and at most the "
                                   "destination's valid rows, one shape for scale and offset")
    req = prepare(sim, case, [d, case.tile("src")], inputs["src"], inputs["scale"], inputs["offset"])
    if isinstance(req, Outcome):
        return req
    rows, cols = req.rows, req.cols
    src, scale, offset = req.arrays
    para = np.concatenate([into(scale, rows, PARA_COLS).reshape(req.n, -1),
                           into(offset, rows, PARA_COLS).reshape(req.n, -1)], axis=1).astype(np.uint32)
    ints = req.valid(*d.valid, p.valid_rows, 0, 0, 0)
    out = np.zeros((req.n, rows, cols), dtype=np.uint8)
    got, failures = sim.worker().run(build.OPS["TQUANT"], build.DTYPES["float32"][0], req.cols_index, rows, ints,
                                     into(src, rows, cols), para, build.DTYPES[to][0], out)
    result = dst_outcome(case, req, got, failures)
    if result.kind is not OutcomeKind.OK:
        return result
    return with_unused(case, result, (req.n,) if req.batched else ())  # the roles INT8 does not write
