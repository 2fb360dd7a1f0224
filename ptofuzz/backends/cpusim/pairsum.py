"""TPAIRREDUCESUM through the real simulator: cases to harness requests, replies to outcomes.

The pair sums depend only on the source's valid region (anchored at the origin, row-major), so the source is laid
out at one compiled stride (see :mod:`ptofuzz.backends.cpusim.tpart`), its own elements copied there outside its
valid region too, so that a sum reading past it shows. The destination is a tile of ``kPairRows`` static rows at
that stride per case (protocol.hpp): pto-isa's ``cpu/TPairReduceSum.hpp:26-27`` zeroes the whole static tile before
it writes the sums, so a case's slice must hold every static row. Outside the destination valid region the page
defines nothing: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import one_source
from ptofuzz.core.case import Case, Outcome

PAIR_ROWS = 128  # protocol.hpp kPairRows: the destination's static rows


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    d, s = case.tile("dst"), case.tile("src")
    if max(d.valid_rows, s.valid_rows) > PAIR_ROWS:
        return Outcome.unsupported(f"cpusim compiles {case.op}'s destination with {PAIR_ROWS} static rows")
    return one_source(sim, case, inputs, dst_rows=PAIR_ROWS)
