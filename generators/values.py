"""Element values for every dtype, as raw bits: the whole range, with special values mixed in.

Floats mix three populations: moderate values (uniform in [-8, 8), like pto-isa's own data), random finite
bit patterns over the whole range (normals and subnormals of every exponent), and special values at
``special_rate``: +-0, +-inf, the canonical qNaN, qNaNs and sNaNs with random sign and payload, the smallest and
largest subnormals and normals, +-1. Integers mix small values, uniform bit patterns over the whole range and
the edge values (0, +-1, min, max, min+1, max-1).
"""

from __future__ import annotations

import numpy as np

from ptofuzz.dtypes import DType
from ptofuzz.generators.source import Source

DEFAULT_SPECIAL_RATE = 0.05


def float_specials(dt: DType) -> np.ndarray:
    """Fixed special bit patterns of a float type (NaNs with random payloads are added by :func:`draw`)."""
    s = dt.sign_mask
    one = ((1 << (dt.exp_bits - 1)) - 1) << dt.man_bits
    fixed = [0, dt.exp_mask, dt.canonical_nan, 1, dt.man_mask, dt.man_mask + 1,
             dt.exp_mask - 1, one]
    return np.array(fixed + [v | s for v in fixed], dtype=dt.bits_dtype)


def int_specials(dt: DType) -> np.ndarray:
    vals = [0, 1, dt.int_max, dt.int_max - 1, dt.int_min, dt.int_min + 1]
    if dt.kind == "int":
        vals.append(-1)
    return np.array([v & ((1 << dt.bits) - 1) for v in vals], dtype=np.uint64).astype(dt.bits_dtype)


def nans(source: Source, dt: DType, n: int, *, signaling: bool) -> np.ndarray:
    """NaNs with random sign and payload; sNaNs have the quiet bit clear and a nonzero payload."""
    payload = source.bits(dt.bits, n) & (dt.quiet_bit - 1)
    if signaling:
        payload = np.where(payload == 0, 1, payload).astype(dt.bits_dtype)
    else:
        payload = payload | dt.quiet_bit
    sign = source.bits(dt.bits, n) & dt.sign_mask
    return (dt.exp_mask | payload | sign).astype(dt.bits_dtype)


def draw(source: Source, dt: DType, shape: tuple[int, ...], special_rate: float = DEFAULT_SPECIAL_RATE) -> np.ndarray:
    """Random element bits of ``dt`` with the given shape."""
    n = int(np.prod(shape))
    pick = source.random(n)
    if dt.is_float:
        moderate = _moderate_floats(source, dt, n)
        wide = source.bits(dt.bits, n)
        all_ones = (wide & dt.exp_mask) == dt.exp_mask
        wide = np.where(all_ones, wide ^ (1 << (dt.bits - 2)), wide)  # clear the top exponent bit: finite
        out = np.where(pick < 0.5 + special_rate / 2, moderate, wide)
        table = float_specials(dt)
        special = table[source.integers(0, len(table) - 1, n)]
        kind = source.random(n)
        special = np.where(kind < 0.25, nans(source, dt, n, signaling=True), special)
        special = np.where((kind >= 0.25) & (kind < 0.35), nans(source, dt, n, signaling=False), special)
    else:
        small = source.integers(-100 if dt.kind == "int" else 0, 100 if dt.kind == "int" else 200, n)
        moderate = (small.astype(np.int64) & ((1 << dt.bits) - 1) if dt.bits < 64 else small.astype(np.int64))
        moderate = moderate.astype(np.uint64).astype(dt.bits_dtype)
        out = np.where(pick < 0.5 + special_rate / 2, moderate, source.bits(dt.bits, n))
        table = int_specials(dt)
        special = table[source.integers(0, len(table) - 1, n)]
    out = np.where(pick < special_rate, special, out)
    return out.astype(dt.bits_dtype).reshape(shape)


def _moderate_floats(source: Source, dt: DType, n: int) -> np.ndarray:
    from ptofuzz.oracles.ieee import from_float64

    return from_float64(source.random(n) * 16.0 - 8.0, dt)
