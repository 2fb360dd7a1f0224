"""Bit-level comparison of a result file against an expected outcome, class by class.

EXACT elements must match bit for bit, NAN elements must be some NaN, ZERO elements +0 or -0, and UNDEFINED
elements are not compared.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ptofuzz.case import EXACT, NAN, UNDEFINED, ZERO
from ptofuzz.dtypes import DType
from ptofuzz.oracles import ieee

MAX_REPORTED = 8


@dataclasses.dataclass(frozen=True)
class ElementDiff:
    index: int  # flat element index in the file
    row: int
    col: int
    expected: int  # bits
    actual: int
    cls: int  # expected class


@dataclasses.dataclass(frozen=True)
class Comparison:
    checked: int  # elements compared (not undefined)
    mismatches: int
    first: tuple[ElementDiff, ...]

    @property
    def ok(self) -> bool:
        return self.mismatches == 0


def compare(expected: np.ndarray, classes: np.ndarray, actual: np.ndarray, dt: DType) -> Comparison:
    """Compare 2-D bit arrays of the same shape; report the first :data:`MAX_REPORTED` differences."""
    bad = (classes == EXACT) & (expected != actual)
    if dt.is_float:
        bad |= (classes == NAN) & ~ieee.is_nan(actual, dt)
        bad |= (classes == ZERO) & ~ieee.is_zero(actual, dt)
    else:
        bad |= (classes == ZERO) & (actual != 0)
    flat = np.flatnonzero(bad)
    cols = expected.shape[-1] if expected.ndim else 1
    first = tuple(
        ElementDiff(int(i), int(i // cols) if cols else 0, int(i % cols) if cols else 0,
                    int(expected.flat[i]), int(actual.flat[i]), int(classes.flat[i]))
        for i in flat[:MAX_REPORTED])
    return Comparison(int(np.count_nonzero(classes != UNDEFINED)), int(flat.size), first)
