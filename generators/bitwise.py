"""Shift counts for TSHL, TSHR, TSHLS and TSHRS, as raw bits of the element type.

Most counts are ordinary: uniform in [0, W) for W-bit elements, where every document defines the shift. At the
special share (at least :data:`COUNT_SPECIAL_RATE` whenever the mix draws special values) a count is one of the
edges where the documents part ways (:func:`edges`): W-1, W, W+1, 2W, 32 and 64 (pto-spec masks the count to
log2(W) bits, the pages leave counts from W on open, C++ is undefined from the promoted width on), negative
counts (-1, -W, the minimum) and the largest value; or any bit pattern.
"""

from __future__ import annotations

import functools

import numpy as np

from ptofuzz.core.dtypes import DType
from ptofuzz.generators import values
from ptofuzz.generators.source import Source

COUNT_SPECIAL_RATE = 0.2


@functools.cache
def edges(dt: DType) -> np.ndarray:
    """The edge counts of ``dt`` as its bits (those the type can hold; negatives only when it is signed)."""
    w = dt.bits
    wanted = [w - 1, w, w + 1, 2 * w, 32, 33, 64, dt.int_max]
    if dt.kind == "int":
        wanted += [-1, -w, -(w + 1), dt.int_min]
    held = sorted({v for v in wanted if dt.int_min <= v <= dt.int_max})
    out = np.array([v & ((1 << w) - 1) for v in held], dtype=np.uint64).astype(dt.bits_dtype)
    out.setflags(write=False)
    return out


def counts(source: Source, dt: DType, shape: tuple[int, ...], rate: float) -> np.ndarray:
    """Shift counts of ``dt`` with the given shape: ordinary ones, and at ``rate`` (raised to
    :data:`COUNT_SPECIAL_RATE` when positive) an edge (three in four) or a random bit pattern."""
    n = int(np.prod(shape))
    out = ordinary(source, dt, n)
    if rate > 0 and n:
        rate = max(rate, COUNT_SPECIAL_RATE)
        special = np.flatnonzero(source.bits(16, n) < int(rate * 65536))
        if special.size:
            pool = edges(dt)
            picked = pool[source.integers(0, len(pool) - 1, special.size)]
            wild = source.random(special.size) < 0.25
            picked[wild] = source.bits(dt.bits, int(wild.sum()))
            out[special] = picked
    return out.reshape(shape)


def ordinary(source: Source, dt: DType, n: int) -> np.ndarray:
    """``n`` counts every document defines alike: [0, W) (W is a power of two: the low bits of random bytes)."""
    out: np.ndarray = (source.bits(8, n) & np.uint8(dt.bits - 1)).astype(dt.bits_dtype)
    return out


def operand(source: Source, dt: DType, shape: tuple[int, ...], mix: values.ValueMix, *, shift: bool,
            rate: float | None = None) -> np.ndarray:
    """A second operand: shift counts for a shift, else values of the mix (``rate``: its share instead)."""
    share = mix.rate if rate is None else rate
    if shift:
        return counts(source, dt, shape, share if mix.kinds else 0.0)
    return values.draw(source, dt, shape, values.ValueMix(share, mix.kinds))
