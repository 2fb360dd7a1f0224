"""TADDS, TSUBS, TMULS, TMAXS, TMINS and TLRELU through the real simulator: cases to harness requests, replies to
outcomes.

The source is laid out as TPART*'s are (:mod:`ptofuzz.backends.cpusim.tpart`: one compiled stride holding every
valid region, the source's own elements copied there); the scalar travels as the first element of a second
tile-sized buffer, which the kernel reads into the element type and passes as the instruction's scalar operand.
Outside the destination valid region the simulator writes nothing: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Outcome


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    d, s = case.tile("dst"), case.tile("src0")
    req = prepare(sim, case, [d, s], inputs["src0"], inputs["scalar"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (a, scalar) = req.rows, req.cols, req.arrays
    dt = dtypes.get(case.dtype)
    carrier = np.zeros((req.n, rows, cols), dtype=a.dtype)
    carrier[:, 0, 0] = scalar[:, 0, 0]
    got, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
                                     req.valid(*d.valid, *s.valid, 1, 1), into(a, rows, cols), carrier)
    return dst_outcome(case, req, got, failures)
