"""TROWMAX, TROWMIN, TCOLMAX and TCOLMIN through the real simulator: cases to harness requests, replies to
outcomes.

The result depends only on the source's valid region (anchored at the origin, row-major), so the source and the
destination are laid out at one compiled stride (see :mod:`ptofuzz.backends.cpusim.tpart`); the source's own
elements are copied there, outside its valid region too, so that a read past the region shows. A row reduction
writes the destination's first column, a column reduction its first row (the model's destination tile is that
column or row); elsewhere the simulator writes nothing: undefined.
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
    d, s = case.tile("dst"), case.tile("src")
    req = prepare(sim, case, [d, s], inputs["src"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (a,) = req.rows, req.cols, req.arrays
    dt = dtypes.get(case.dtype)
    none = np.zeros((req.n, 0), dtype=a.dtype)
    got, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
                                     req.valid(*d.valid, *s.valid, 0, 0), into(a, rows, cols), none, 0,
                                     np.zeros((req.n, rows, cols), a.dtype))
    return dst_outcome(case, req, got, failures)
