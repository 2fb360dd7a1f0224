"""TROWPROD and TCOLPROD through the real simulator: cases to harness requests, replies to outcomes.

Laid out as the sums (:mod:`ptofuzz.backends.cpusim.ordered`): destination and source at one compiled stride, the
source's own elements copied there outside its valid region too (a product reading past it shows); TROWPROD's
products come back in column 0 of the destination's valid rows, TCOLPROD's in row 0; outside the destination's
valid region the simulator writes nothing: undefined. TROWPROD gets a tmp tile of the source's shape (which the
cpu header ignores, ``include/pto/cpu/TRowProd.hpp:33``); TCOLPROD has the two-operand form only.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import one_source
from ptofuzz.core.case import Case, Outcome


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    return one_source(sim, case, inputs)
