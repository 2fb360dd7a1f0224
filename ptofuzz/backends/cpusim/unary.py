"""TABS, TNEG, TRELU and TNOT through the real simulator: cases to harness requests, replies to outcomes.

The result inside the destination valid region depends only on the source's valid region (both anchored at the
origin, row-major), so both tiles of a request are laid out at one compiled stride (see
:mod:`ptofuzz.backends.cpusim.tpart`); the source's own elements are copied there, outside its valid region too.
Outside the destination valid region the simulator writes nothing: undefined. An in-place case (param
``inplace``) runs with the destination as its source.
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
                                     req.valid(*d.valid, *s.valid, 0, 0), into(a, rows, cols), none,
                                     1 if case.param("inplace") else 0, np.zeros((req.n, rows, cols), a.dtype))
    return dst_outcome(case, req, got, failures)
