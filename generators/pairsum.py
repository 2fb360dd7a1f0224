"""Geometries and values for TPAIRREDUCESUM: where a pair sum's edges show.

Geometry: the valid region as the elementwise family's (edges preferred, empty now and then), its columns even
or odd (an odd width pairs the last element with an inactive 0), often past one 256-byte repeat (64 float32 or
128 half elements: the NPUs' full repeats and their even remainder); each tile of whole 32-byte rows, now and
then wider than its valid region (read at its own stride: the NPUs' strided path) or with rows to spare.

Values: the value mix's draw over the whole source tile (an implementation must not read outside the valid
region), then, at :data:`PAIR_RATE` of the pairs of a float tile, one of :data:`PAIR_KINDS` written over both
elements of the pair: ``zeros`` (``+0 + -0``, ``-0 + -0``, ``-0 + +0``), ``infinities`` (``inf + -inf`` and
``-inf + inf``: the invalid sum, and ``inf + inf``), ``nan`` (a NaN with its payload in either or both places)
and ``cancel`` (``x + -x``: an exact zero of the sign rounding gives). Odd widths get a ``-0`` or a NaN in their
last valid column now and then (the inactive partner's "0").
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core.case import Case
from ptofuzz.core.dtypes import DType
from ptofuzz.generators import values
from ptofuzz.generators.elementwise import MAX_ROWS, ZERO_RATE, block
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension

PAIR_KINDS = ("zeros", "infinities", "nan", "cancel")
PAIR_RATE = 0.08


def _roll(source: Source) -> float:
    return float(source.random(1)[0])


def valid_region(source: Source, dt: DType, *, allow_zero: bool = True) -> tuple[int, int]:
    """Rows as the elementwise family's; columns up to three repeats (one repeat: 256 bytes), edges of a repeat
    and of a block preferred, odd and even alike; empty at the elementwise rate."""
    per = 256 // dt.itemsize
    rows = dimension(source, MAX_ROWS, 8)
    roll = _roll(source)
    if roll < 0.4:
        cols = dimension(source, 2 * block(dt) + 1, block(dt))
    elif roll < 0.7:
        cols = int(source.choice([per - 1, per, per + 1, per + 2, 2 * per - 1, 2 * per, 2 * per + 1]))
    else:
        cols = int(source.integers(1, 3 * per))
    if allow_zero and _roll(source) < ZERO_RATE:
        return (0, cols) if _roll(source) < 0.5 else (rows, 0)
    return rows, cols


def _nan(source: Source, dt: DType, n: int) -> np.ndarray:
    """``n`` NaNs of either sign, quiet or signalling, with random payloads."""
    raw = source.bits(32, n).astype(np.uint64)
    man = raw & np.uint64(dt.man_mask)
    man = np.where(man == 0, np.uint64(1), man)
    sign = np.where((raw >> np.uint64(31)) & np.uint64(1), np.uint64(dt.sign_mask), np.uint64(0))
    out: np.ndarray = (sign | np.uint64(dt.exp_mask) | man).astype(dt.bits_dtype)
    return out


def pair_patterns(source: Source, bits: np.ndarray, dt: DType, rows: int, cols: int) -> np.ndarray:
    """``bits`` (one float tile) with edge pairs written over :data:`PAIR_RATE` of the valid region's pairs."""
    out: np.ndarray = bits.copy()
    whole = cols // 2
    if rows == 0 or cols == 0:
        return out
    pos, neg = dt.exp_mask, dt.exp_mask | dt.sign_mask  # +inf, -inf
    zero, nzero = 0, dt.sign_mask
    if whole:
        chosen = source.random(rows * whole) < PAIR_RATE
        n = int(chosen.sum())
        if n:
            r, k = np.divmod(np.flatnonzero(chosen), whole)
            kinds = source.integers(0, len(PAIR_KINDS) - 1, n)
            which = source.integers(0, 2, n)  # a variant of the kind
            left = out[r, 2 * k].astype(np.uint64)
            right = out[r, 2 * k + 1].astype(np.uint64)
            zl = np.choose(which, [zero, nzero, nzero]).astype(np.uint64)
            zr = np.choose(which, [nzero, nzero, zero]).astype(np.uint64)
            il = np.choose(which, [pos, neg, pos]).astype(np.uint64)
            ir = np.choose(which, [neg, pos, pos]).astype(np.uint64)
            nans = _nan(source, dt, 2 * n).astype(np.uint64)
            nl = np.where(which != 1, nans[:n], left)
            nr = np.where(which != 0, nans[n:], right)
            cr = left ^ np.uint64(dt.sign_mask)
            kind = np.asarray(kinds)
            out[r, 2 * k] = np.select([kind == 0, kind == 1, kind == 2], [zl, il, nl], left).astype(dt.bits_dtype)
            out[r, 2 * k + 1] = np.select([kind == 0, kind == 1, kind == 2], [zr, ir, nr], cr).astype(dt.bits_dtype)
    if cols % 2:
        tail = source.random(rows) < 4 * PAIR_RATE
        if tail.any():
            special = np.where(source.random(rows) < 0.5, np.uint64(nzero), _nan(source, dt, rows).astype(np.uint64))
            out[:rows, cols - 1] = np.where(tail, special, out[:rows, cols - 1].astype(np.uint64)).astype(dt.bits_dtype)
    return out


def draw(source: Source, case: Case, dt: DType, mix: values.ValueMix) -> np.ndarray:
    """The source bits over its whole tile: the value mix's draw, then the pair patterns (floats)."""
    s = case.tile("src")
    bits: np.ndarray = values.draw(source, dt, s.shape, mix)
    if not dt.is_float or not s.rows or not s.cols:
        return bits
    rows, cols = case.tile("dst").valid
    rows, cols = min(rows, s.rows), min(cols, s.cols)
    return pair_patterns(source, bits, dt, rows, cols)
