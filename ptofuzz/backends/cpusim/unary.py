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

from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import one_source
from ptofuzz.core.case import Case, Outcome


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    return one_source(sim, case, inputs, 1 if case.param("inplace") else 0)
