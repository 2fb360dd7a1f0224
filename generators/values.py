"""Element values for every dtype, as raw bits: the whole range, with special values mixed in.

Floats mix three populations: moderate values (random sign and fraction, magnitude in [2**-5, 8)), random finite
bit patterns over the whole range (normals and subnormals of every exponent), and special values at
``special_rate``: +-0, +-inf, the canonical qNaN, qNaNs and sNaNs with random sign and payload, the smallest and
largest subnormals and normals, +-1. Integers mix small values ([-128, 127] or [0, 255]), uniform bit patterns over the whole range and
the edge values (0, +-1, min, max, min+1, max-1).
"""

from __future__ import annotations

import functools

import numpy as np

from ptofuzz.dtypes import DType
from ptofuzz.generators.source import Source

DEFAULT_SPECIAL_RATE = 0.05
SNAN_SHARE, QNAN_SHARE = 0.25, 0.10  # of the special values: sNaNs and payload qNaNs


@functools.cache
def float_specials(dt: DType) -> np.ndarray:
    """Fixed special bit patterns of a float type (NaNs with random payloads are added by :func:`draw`):
    +-0, +-inf, +-canonical qNaN, smallest and largest subnormal, smallest normal, largest finite, +-1."""
    s = dt.sign_mask
    one = ((1 << (dt.exp_bits - 1)) - 1) << dt.man_bits
    fixed = [0, dt.exp_mask, dt.canonical_nan, 1, dt.man_mask, dt.man_mask + 1, dt.exp_mask - 1, one]
    return np.array(fixed + [v | s for v in fixed], dtype=dt.bits_dtype)


@functools.cache
def int_specials(dt: DType) -> np.ndarray:
    vals = [0, 1, dt.int_max, dt.int_max - 1, dt.int_min, dt.int_min + 1]
    if dt.kind == "int":
        vals.append(-1)
    return np.array([v & ((1 << dt.bits) - 1) for v in vals], dtype=np.uint64).astype(dt.bits_dtype)


def _nans(raw: np.ndarray, dt: DType, signaling: bool) -> np.ndarray:
    payload = raw & (dt.quiet_bit - 1)
    payload = np.maximum(payload, 1) if signaling else payload | dt.quiet_bit
    return (dt.exp_mask | payload | (raw & dt.sign_mask)).astype(dt.bits_dtype)


POOL_SIZE = 4096


@functools.cache
def special_pool(dt: DType) -> np.ndarray:
    """A fixed, shuffled pool of special values for ``dt``, built once from a fixed seed: for floats a
    quarter sNaNs and a tenth qNaNs with random signs and payloads, the rest the fixed table; for integers
    the edge values. Draws pick from it, so a case's specials cost one index draw."""
    table = float_specials(dt) if dt.is_float else int_specials(dt)
    rng = np.random.default_rng(0x5EC1A1)
    pool = table[rng.integers(0, len(table), POOL_SIZE)]
    if dt.is_float:
        raw = rng.integers(0, 1 << dt.bits, POOL_SIZE, dtype=np.uint64).astype(dt.bits_dtype)
        u = rng.random(POOL_SIZE)
        pool = np.where(u < SNAN_SHARE + QNAN_SHARE, _nans(raw, dt, signaling=False), pool)
        pool = np.where(u < SNAN_SHARE, _nans(raw, dt, signaling=True), pool)
    pool.setflags(write=False)
    return pool


def specials(source: Source, dt: DType, n: int) -> np.ndarray:
    """``n`` special values: table entries, sNaNs and payload qNaNs (floats) or edge values (integers)."""
    return special_pool(dt)[source.integers(0, POOL_SIZE - 1, n)]


def draw(source: Source, dt: DType, shape: tuple[int, ...], special_rate: float = DEFAULT_SPECIAL_RATE) -> np.ndarray:
    """Random element bits of ``dt`` with the given shape (integer operations on raw bits only)."""
    n = 1
    for d in shape:
        n *= d
    sel = source.bits(32, n)  # low half: which population; high half: the moderate value
    population = sel & 0xFFFF
    pick = ((sel >> 16) & 0xFF).astype(dt.bits_dtype)
    wide = source.bits(dt.bits, n)
    if dt.is_float:
        all_ones = (wide & dt.exp_mask) == dt.exp_mask
        wide = np.where(all_ones, wide ^ (1 << (dt.bits - 2)), wide)  # clear the top exponent bit: finite
        # moderate: random sign and fraction, magnitude in [2**-5, 8)
        exponent = ((1 << (dt.exp_bits - 1)) + 1 - (pick & 7)) << dt.man_bits
        moderate = (wide & (dt.sign_mask | dt.man_mask)) | exponent
    else:
        moderate = pick - 128 if dt.kind == "int" else pick  # [-128, 127] (wrapping) or [0, 255]
    out = np.where(population < int((0.5 + special_rate / 2) * 65536), moderate, wide)
    where = np.flatnonzero(population < int(special_rate * 65536))
    if where.size:
        out[where] = specials(source, dt, where.size)
    return out.reshape(shape)
