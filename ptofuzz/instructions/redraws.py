"""Redrawing the data of a case whose golden leaves valid elements open (the registry's ``redraw`` hook).

pto-isa's own comparison cannot honour a placeholder: where the documents leave a valid destination element open
(a NaN in a max/min, an integer overflow, an NPU's subnormals, a tie for an arg index, a sum whose order is not
pinned), ``gen`` of a system test's canonical cases replaces the inputs that made it open and evaluates the case
again. :func:`where_open` is the loop every family shares; each family passes the rule that writes new inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ptofuzz.core.case import UNDEFINED, Case, Outcome
from ptofuzz.generators.source import Source

#: ``(source, case, inputs, rows, cols) -> new inputs``, the open valid elements at (rows[k], cols[k]); None: the
#: case is left as it is
Fill = Callable[[Source, Case, Mapping[str, np.ndarray], np.ndarray, np.ndarray], "dict[str, np.ndarray] | None"]


def open_cells(case: Case, outcome: Outcome | None, role: str = "dst", *, undefined_only: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of ``role``'s valid elements whose golden is not exact (any class but exact, or
    only the ``undefined`` ones); none when the outcome carries no classes (a fault, or every element exact)."""
    cls = outcome.classes.get(role) if outcome is not None and outcome.classes else None
    if cls is None:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    rows, cols = case.tile(role).valid
    valid = cls[:rows, :cols]
    r, c = np.nonzero(valid == UNDEFINED if undefined_only else valid != 0)
    return r, c


def where_open(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]], fill: Fill, role: str = "dst", *,
               undefined_only: bool = False) -> list[Any]:
    """For each ``(source, case, inputs, outcome)``: None when every valid element of ``role`` is pinned, else
    ``(fill(...), None)`` (new inputs; the case is evaluated again) unless ``fill`` leaves it (None)."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        r, c = open_cells(case, outcome, role, undefined_only=undefined_only)
        new = fill(source, case, inputs, r, c) if len(r) else None
        out.append(None if new is None else (new, None))
    return out
