"""Geometries and values for the ordered reductions (TROWSUM, TCOLSUM): where the order of the additions shows.

A random sum of uniform values rarely depends on its order in the last bit that a comparison sees; these draws
make it depend (and, for the NPUs whose vcadd tree is open, make it determined):

- lengths past each implementation's 256-byte repeat (64 float32, 128 half terms), partial last repeats, a single
  term, and long ones (up to 1100 terms: a2a3's repeat-count and a5's repeat loop both run several times);
- per reduced line (a row for TROWSUM, a column for TCOLSUM) one pattern: ``cancel`` (a large value, small
  ones, its negation: catastrophic cancellation whose result is all rounding history), ``mixed`` (magnitudes
  spread over the type's range), ``ties`` (1 and half-ulp steps: (a + b) + c != a + (b + c) by construction),
  ``zeros`` (+0/-0 only, or -0 with one cancelling pair: the sign of a zero sum), ``special`` (a NaN or an
  infinity at a random position, sometimes both infinities), ``grid`` (small multiples of one power of two:
  exact in any order, so an open hardware tree is pinned), ``repeat-grid`` (each 256-byte repeat exact on its
  own but their sums rounding when added: a5's in-order fold of the repeats' sums decides the last bit), and
  ``plain`` (the value mix's draw).
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core.case import Case
from ptofuzz.core.dtypes import DType
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension
from ptofuzz.oracles import ieee

PATTERNS = ("plain", "cancel", "mixed", "ties", "zeros", "special", "grid", "repeat-grid")
PRECISION = {"float32": 24, "float16": 11, "bfloat16": 8}


def valid_region(source: Source, op: str, dt: DType) -> tuple[int, int]:
    """A source valid region whose reduced length is 1, within one repeat, past one (up to two whole repeats), or
    long (past two repeats, up to 1100 terms), a quarter each."""
    per = 256 // dt.itemsize
    pick = int(source.integers(0, 3))  # both ends inclusive
    reduced = (1, int(source.integers(2, per)), per + int(source.integers(1, per)),
               int(source.integers(2 * per + 1, 1100)))[pick]
    other = dimension(source, 16, 1)
    if op == "TROWSUM":
        return other, min(reduced, 1100)
    return min(reduced, 600), other


def _line(source: Source, dt: DType, n: int) -> np.ndarray:
    """One reduced line's float64 values (exact in ``dt``) by a random pattern."""
    p = PRECISION[dt.name]
    kind = PATTERNS[int(source.integers(1, len(PATTERNS) - 1))]
    u = source.random(n) * 2 - 1
    if kind == "cancel":
        big = 2.0 ** int(source.integers(4, min(p + 6, 14)))
        v = np.round(u * 2.0 ** (p - 3)) / 2.0 ** (p - 3)
        v[0], v[-1] = big, -big if n > 1 else big
        return v
    if kind == "mixed":
        e = source.integers(-12, 12, n).astype(np.float64)
        return u * np.exp2(e)
    if kind == "ties":
        v = np.full(n, 2.0 ** -p)
        v[int(source.integers(0, n - 1))] = 1.0
        return v * np.where(source.random(n) < 0.2, -1.0, 1.0)
    if kind == "zeros":
        v = np.where(source.random(n) < 0.5, -0.0, 0.0) if float(source.random(1)[0]) < 0.5 else np.full(n, -0.0)
        if n > 1 and float(source.random(1)[0]) < 0.3:
            v[0], v[-1] = 1.5, -1.5
        return v
    if kind == "special":
        v = np.array(u)
        v[int(source.integers(0, n - 1))] = source.choice([np.nan, np.inf, -np.inf])
        if float(source.random(1)[0]) < 0.3:
            v[int(source.integers(0, n - 1))] = source.choice([np.inf, -np.inf])
        return v
    if kind == "grid":
        return source.integers(-64, 64, n).astype(np.float64) * 2.0 ** int(source.integers(-8, 4))
    # repeat-grid: each 256-byte repeat sums to about 2^(p-1) exactly; their sum rounds
    per = 256 // dt.itemsize
    v = source.integers(-3, 3, n).astype(np.float64)
    v[::per] = 2.0 ** (p - 1) + 1 + 2 * source.integers(0, 3, len(v[::per]))
    return v


def draw(source: Source, case: Case, dt: DType, mix: values.ValueMix) -> np.ndarray:
    """The source bits over its whole tile: the value mix's draw, and on float types about three lines in four
    replaced by a pattern (see the module docstring)."""
    s = case.tile("src")
    bits = values.draw(source, dt, s.shape, mix)
    if not dt.is_float:
        if float(source.random(1)[0]) < 0.7:  # mostly sums that fit: the wrap and overflow stay the minority
            small = source.integers(-100, 100, s.rows * s.cols).astype(np.int64)
            if dt.kind != "int":
                small = np.abs(small)
            bits = small.astype(np.uint64).astype(dt.bits_dtype).reshape(s.shape)
        return bits
    vr, vc = s.valid
    lines = vr if case.op == "TROWSUM" else vc
    n = vc if case.op == "TROWSUM" else vr
    for i in range(lines):
        if float(source.random(1)[0]) < 0.25 or n == 0:  # n 0: an empty source (an illegal spec case)
            continue
        with np.errstate(all="ignore"):
            line = ieee.from_float64(_line(source, dt, n), dt)
        if case.op == "TROWSUM":
            bits[i, :n] = line
        else:
            bits[:n, i] = line
    return bits
