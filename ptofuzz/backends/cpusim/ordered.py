"""TROWSUM and TCOLSUM through the real simulator: cases to harness requests, replies to outcomes.

The sums depend only on the source's valid region (anchored at the origin, row-major), so destination and source
are laid out at one compiled stride (see :mod:`ptofuzz.backends.cpusim.tpart`); the source's own elements are
copied there, outside its valid region too, so that a sum reading past it shows. TROWSUM's sums come back in
column 0 of the destination's valid rows, TCOLSUM's in row 0; outside the destination valid region the simulator
writes nothing: undefined. TCOLSUM's ``binary`` parameter chooses the form: the four-operand one with
``isBinary`` true, else the two-operand one (as a2a3's test calls it); :data:`FORM` says how the harness names
them (protocol.hpp, the request's ``alias``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import one_source
from ptofuzz.core.case import Case, Outcome

#: TCOLSUM's form -> the request's alias (protocol.hpp): two operands, four with isBinary true, four with false
FORM = {"two-operand": 0, "binary": 1, "four-operand": 2}


def form(case: Case) -> int:
    """The harness alias of ``case``'s form (0 for TROWSUM)."""
    if case.op != "TCOLSUM":
        return 0
    return FORM["binary"] if case.param("binary") else FORM["two-operand"]


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    return one_source(sim, case, inputs, form(case))
