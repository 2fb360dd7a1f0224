"""Geometries and values for the ordered product reductions (TROWPROD, TCOLPROD): where the order of the
multiplications shows.

A random product of uniform values soon overflows or underflows whatever the order, and one of values near 1
rarely depends on its order in a bit a comparison sees; these draws make it depend (and, for canonical data, make
it determined):

- lengths past a2a3's 32-byte accumulator block (8 float32, 16 half lanes) and a5's 256-byte register (64 float32,
  128 half lanes), partial last blocks, a single factor, and long ones (up to 1100 factors);
- per reduced line (a row for TROWPROD, a column for TCOLPROD) one pattern: ``near-one`` (full mantissas within
  1/16 of 1: every product rounds, the last bits are the order's), ``overflow`` (two huge factors H and two 1/H at
  random positions among near-one ones: the whole product is moderate, but an order that meets H * H first
  overflows to an infinity, one that pairs H with 1/H does not), ``underflow`` (the same with tiny factors: a
  partial product underflows to zero or a subnormal in some orders only), ``inf-zero`` (an infinity with a zero,
  or with a factor that underflows or overflows next to it: ``inf * 0`` is a NaN in any order, ``inf * tiny``
  may be one in some), ``zeros`` (+0/-0 factors: the sign of a zero product is the signs' parity in any order),
  ``special`` (a NaN or an infinity at a random position), ``grid`` (signed powers of two and a few 3s: exact in
  any order, so every platform pins it), and ``plain`` (the value mix's draw).
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core.case import Case
from ptofuzz.core.dtypes import DType
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension
from ptofuzz.oracles import ieee

PATTERNS = ("plain", "near-one", "overflow", "underflow", "inf-zero", "zeros", "special", "grid")
PRECISION = {"float32": 24, "float16": 11, "bfloat16": 8}
#: the largest finite value's exponent (2^E <= max < 2^(E+1)) and the smallest normal's
EXPONENTS = {"float32": (127, -126), "float16": (15, -14), "bfloat16": (127, -126)}


def valid_region(source: Source, op: str, dt: DType) -> tuple[int, int]:
    """A source valid region whose reduced length is 1, within a2a3's block, within a5's register, past it, or
    long (up to 1100 factors)."""
    block, reg = 32 // dt.itemsize, 256 // dt.itemsize
    pick = int(source.integers(0, 4))  # both ends inclusive
    reduced = (1, int(source.integers(2, block)), int(source.integers(block, reg)),
               reg + int(source.integers(1, reg)), int(source.integers(2 * reg + 1, 1100)))[pick]
    other = dimension(source, 16, 1)
    if op == "TROWPROD":
        return other, reduced
    return min(reduced, 600), other


def _line(source: Source, dt: DType, n: int) -> np.ndarray:
    """One reduced line's float64 values (exact in ``dt``) by a random pattern."""
    p = PRECISION[dt.name]
    top, low = EXPONENTS[dt.name]
    kind = PATTERNS[int(source.integers(1, len(PATTERNS) - 1))]
    u = source.random(n) * 2 - 1
    if kind == "near-one":  # full mantissas within 1/16 of 1: every product rounds, each order its own way
        return 1.0 + u * 2.0 ** -4
    if kind in ("overflow", "underflow"):
        v = 1.0 + source.integers(-2, 2, n).astype(np.float64) * 2.0 ** (1 - p)
        e = int(source.integers(top // 2 + 1, top - 1)) * (1 if kind == "overflow" else -1)
        at = np.sort(np.argsort(source.random(n))[:4])  # four distinct positions, in order
        big = np.array([2.0 ** e, 2.0 ** e, 2.0 ** -e, 2.0 ** -e])
        if float(source.random(1)[0]) < 0.5:  # else H, H before 1/H, 1/H: a fold from the start meets H * H
            big = big[np.argsort(source.random(4))]
        v[at] = big[: len(at)]
        return v * np.where(source.random(n) < 0.2, -1.0, 1.0)
    if kind == "inf-zero":
        v = 1.0 + np.round(u * 8) / 8
        v[int(source.integers(0, n - 1))] = source.choice([np.inf, -np.inf])
        v[int(source.integers(0, n - 1))] = source.choice([0.0, -0.0, 2.0 ** (top - 1), 2.0 ** low])
        return v
    if kind == "zeros":
        v = np.where(source.random(n) < 0.5, -1.0, 1.0)
        v[source.random(n) < 0.3] = 0.0
        v[int(source.integers(0, n - 1))] = source.choice([0.0, -0.0])
        return np.where(v == 0, np.where(source.random(n) < 0.5, -0.0, 0.0), v)
    if kind == "special":
        v = 1.0 + np.round(u * 16) / 32
        v[int(source.integers(0, n - 1))] = source.choice([np.nan, np.inf, -np.inf])
        return v
    line: np.ndarray = grid(source, dt, n, 1)[0]
    return line


def grid(source: Source, dt: DType, n: int, lines: int) -> np.ndarray:
    """``lines`` x ``n`` factors whose products are exact in ``dt`` in any order (signed ones, with at most four
    2s, four 1/2s and two 3s per line; integers: +-1 with a few 2s and 3s, unsigned +1): every platform's product
    is then the exact one, pinned."""
    sign = np.where(source.random(lines * n) < 0.5, -1.0, 1.0).reshape(lines, n)
    v = np.ones((lines, n)) * (sign if dt.kind != "uint" else 1.0)
    for value, count in ((2.0, 4), (0.5 if dt.is_float else 2.0, 4), (3.0, 2)):
        where = source.integers(0, n - 1, lines * count).reshape(lines, count)
        np.put_along_axis(v, where, np.take_along_axis(v, where, axis=-1) * value, axis=-1)
    return v


def draw(source: Source, case: Case, dt: DType, mix: values.ValueMix) -> np.ndarray:
    """The source bits over its whole tile: the value mix's draw, and on float types about three lines in four
    replaced by a pattern (see the module docstring); integer lines mostly :func:`grid` products that fit."""
    s = case.tile("src")
    bits = values.draw(source, dt, s.shape, mix)
    vr, vc = s.valid
    lines = vr if case.op == "TROWPROD" else vc
    n = vc if case.op == "TROWPROD" else vr
    if not dt.is_float:
        if float(source.random(1)[0]) < 0.7 and n:  # mostly products that fit (n 0: an empty source)
            small = grid(source, dt, n, lines).astype(np.int64)
            line_bits = small.astype(np.uint64).astype(dt.bits_dtype)
            if case.op == "TROWPROD":
                bits[:lines, :n] = line_bits
            else:
                bits[:n, :lines] = line_bits.T
        return bits
    for i in range(lines):
        if float(source.random(1)[0]) < 0.25 or n == 0:  # n 0: an empty source (an illegal spec case)
            continue
        with np.errstate(all="ignore"):
            line = ieee.from_float64(_line(source, dt, n), dt)
        if case.op == "TROWPROD":
            bits[i, :n] = line
        else:
            bits[:n, i] = line
    return bits
