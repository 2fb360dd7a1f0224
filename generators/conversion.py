"""Conversion inputs: the source values where a conversion's result turns, per (source, destination) pair.

Random bit patterns almost never land on a rounding tie or an integer range's edge, and those are where the
rounding modes, the saturation forms and the implementations part ways. For a pair, :func:`boundary_pool`
builds once the destination's turning points as exact values, then each as the source type holds it: the
value itself where the source can hold it exactly, and its two source neighbours (the largest source value
below it and the smallest above, rounded toward minus and plus infinity by the conversion core) either way. The
points, by :data:`KINDS`:

- ``tie``: the midpoint of two neighbouring destination values (a float destination: around random values of
  every binade, both parities of the lower neighbour; an integer destination: ``k + 1/2``), and its neighbours
  one source ulp either side;
- ``exact``: destination values themselves, one source ulp either side (the odd and even neighbours);
- ``overflow``: the destination's largest finite value, the midpoint past it (where rounding to nearest
  overflows) and the next grid point; an integer destination's minimum and maximum, one past each, and halves
  beyond;
- ``tiny``: the destination's smallest subnormal, half of it, its smallest normal (float destinations);
  ``-1/2`` and ``1/2`` round to zero with a sign (integer destinations);
- ``source``: the source's own edges where they are no destination's: its largest finite value and smallest
  subnormal (float sources), its minimum and maximum (integer sources).

A value the source cannot reach at all (past its range) is left out; both signs of each point are in the pool.
:func:`mix_in` replaces a share of drawn elements by pool entries; the rest of a tile stays
:func:`ptofuzz.generators.values.draw`'s (NaN payloads, sNaNs, infinities, zeros, subnormals of the source).
"""

from __future__ import annotations

import functools

import numpy as np

from ptofuzz.core import minifloat
from ptofuzz.core.dtypes import DType
from ptofuzz.generators.source import DRAW_VERSION, PoolDraws, Source, pool_draws
from ptofuzz.oracles import convert as cv
from ptofuzz.oracles import ieee

KINDS = ("tie", "exact", "overflow", "tiny", "source")
BOUNDARY_SHARE = 0.25  # of a tile's elements, whatever the special-value mix
_SAMPLES = 64  # random destination values per binade sample (float destinations too wide to list)


def _exact(v: np.ndarray) -> cv.Exact:
    """Finite float64 values as the conversion core's exact values."""
    m, e = np.frexp(np.abs(v))
    mag = np.ldexp(m, 53).astype(np.uint64)
    exp = (e - 53).astype(np.int64)
    return cv.Exact(np.signbit(v), mag, exp, np.zeros(v.shape, dtype=np.uint8))


def _in_source(v: np.ndarray, src: DType) -> np.ndarray:
    """Each value as ``src`` holds it: rounded down and up (both equal where exact); past ``src``'s range
    dropped. Source bits, uint64."""
    x = _exact(v)
    parts = []
    for direction in (cv.RTM, cv.RTP):
        if src.is_float:
            bits, status = cv.to_float(x, src, direction)
        else:
            bits, status = cv.to_integer(x, src, direction)
        parts.append(bits.astype(np.uint64)[status != cv.OVERFLOW])
    return np.concatenate(parts)


def _neighbours(bits: np.ndarray, src: DType) -> np.ndarray:
    """The source values one step below and above each (uint64 bits of ``src``; an 8- or 4-bit table float has
    none here: its every code is drawn anyway)."""
    if src.is_table:
        return np.zeros(0, dtype=np.uint64)
    if src.is_float:
        mag = bits & np.uint64(src.abs_mask)
        up = bits[mag < np.uint64(cv.largest_finite(src))] + np.uint64(1)  # a larger magnitude, same sign
        down = bits[mag > 0] - np.uint64(1)
        return np.concatenate([up, down])
    value = bits.astype(np.int64)  # two's complement bits to a value, then one step either way, in range
    if src.kind == "int" and src.bits < 64:
        value = np.where(value >= 1 << (src.bits - 1), value - (1 << src.bits), value)
    elif src.bits == 64:
        value = bits.view(np.int64) if src.kind == "int" else value
    steps = np.concatenate([value[value < src.int_max] + 1, value[value > src.int_min] - 1])
    return steps.astype(np.uint64) & np.uint64(src.bit_mask) if src.bits < 64 else steps.astype(np.uint64)


def _float_points(src: DType, dst: DType, rng: PoolDraws) -> dict[str, np.ndarray]:
    """A float destination's turning points (positive), as exact float64 values: from an integer source, only
    where the destination rounds an integer of the source's range."""
    p = dst.man_bits
    if not src.is_float and src.bits > p + 1:  # integers of more bits than dst holds: magnitudes 2**(p+1) up
        e = rng.uniform(p + 1, src.bits, 4 * _SAMPLES)
        frac = rng.uniform(0, 1 << p, 4 * _SAMPLES)
        vals = np.unique(np.ldexp(((1 << p) + frac).astype(np.float64), e - p))
    elif dst.bits <= 16:  # every positive finite value, listed
        vals = ieee.to_float64(np.arange(1 << dst.bits, dtype=np.uint64).astype(dst.bits_dtype), dst)
        vals = np.unique(vals[np.isfinite(vals) & (vals > 0)])
        if len(vals) > 4 * _SAMPLES:
            vals = np.sort(rng.sample(vals, 4 * _SAMPLES))
    else:  # float32: random values of every binade
        bias = (1 << (dst.exp_bits - 1)) - 1
        e = rng.uniform(1 - bias - p, bias + 1, 4 * _SAMPLES)
        frac = rng.uniform(0, 1 << p, 4 * _SAMPLES)
        vals = np.unique(np.ldexp(((1 << p) + frac).astype(np.float64), e - p))
    largest = float(ieee.to_float64(np.array([cv.largest_finite(dst)], dtype=dst.bits_dtype), dst)[0])
    beyond = _beyond(dst)
    tiny, min_normal = _tiny(dst)
    return {"tie": (vals + _next_up(vals, dst)) / 2, "exact": vals,
            "overflow": np.array([largest, (largest + beyond) / 2, beyond]),
            "tiny": np.array([tiny, tiny / 2, min_normal])}


def _next_up(vals: np.ndarray, dt: DType) -> np.ndarray:
    """The next larger value of ``dt`` after each of its (positive, finite) values; past the largest, the top
    binade's next grid point."""
    if dt.is_table:
        ups = minifloat.table(dt.name).up_values
        i = np.searchsorted(ups, vals) + 1
        return np.where(i < len(ups), ups[np.minimum(i, len(ups) - 1)], _beyond(dt))
    bits, _ = cv.to_float(_exact(vals), dt, cv.RTZ)  # exact: vals are dt's own values
    nxt = (bits.astype(np.uint64) + np.uint64(1)).astype(dt.bits_dtype)
    out: np.ndarray = np.where(nxt == dt.exp_mask, _beyond(dt), ieee.to_float64(nxt, dt))
    return out


def _beyond(dt: DType) -> float:
    """The top binade's next grid point past the largest finite value (IEEE: 2**(emax+1); the tables' own)."""
    if dt.is_table:
        return minifloat.table(dt.name).beyond
    return 2.0 ** ((1 << (dt.exp_bits - 1)) - 1 + 1)


def _tiny(dt: DType) -> tuple[float, float]:
    """(smallest positive value, smallest normal) of a float type."""
    if dt.is_table:
        f = minifloat.table(dt.name)
        return float(f.up_values[1]), f.min_normal
    bias = (1 << (dt.exp_bits - 1)) - 1
    return 2.0 ** (1 - bias - dt.man_bits), 2.0 ** (1 - bias)


def _int_points(dst: DType, rng: PoolDraws) -> dict[str, np.ndarray]:
    """An integer destination's turning points (both signs come later; the negative edges are given here)."""
    lo, hi = float(dst.int_min), float(dst.int_max)
    k = rng.uniform(0, 1 << min(dst.bits - 1, 52), _SAMPLES).astype(np.float64)
    small = np.arange(0, 8, dtype=np.float64)
    return {"tie": np.concatenate([small + 0.5, k + 0.5, [hi - 0.5, hi + 0.5]]),
            "exact": np.concatenate([small, k]),
            "overflow": np.array([hi, hi + 1, hi + 0.5, hi + 2, lo, lo - 1, lo - 0.5, lo + 0.5, 2 * hi + 2]),
            "tiny": np.array([0.5, 0.25, 0.75])}


@functools.cache
def boundary_pool(src: DType, dst: DType, version: int = DRAW_VERSION
                  ) -> tuple[np.ndarray, tuple[tuple[str, int, int], ...]]:
    """The pair's boundary values as ``src`` bits (read-only), and where each kind lies in it:
    ``(kind, start, stop)``. Built once from a fixed seed, each draw version its own (its draws index it)."""
    rng = pool_draws(version, 0xC0417, "boundary-pool", src.name, dst.name)  # a fixed pool: draws pick from it
    points = _float_points(src, dst, rng) if dst.is_float else _int_points(dst, rng)
    if src.is_float:
        big = float(ieee.to_float64(np.array([cv.largest_finite(src)], dtype=src.bits_dtype), src)[0])
        points["source"] = np.array([big, _tiny(src)[0]])
    parts, spans, at = [], [], 0
    for kind in KINDS:
        if kind == "source" and not src.is_float:  # the integer's own edges, as bits (2**64 - 1 is no float64)
            edges = {src.int_max, src.int_min, src.int_max - 1, src.int_min + 1, 1, -1 if src.kind == "int" else 0}
            held = np.array(sorted(v & src.bit_mask for v in edges), dtype=np.uint64)
        else:
            v = points.get(kind, np.zeros(0))
            v = v[np.isfinite(v)]
            held = _in_source(np.concatenate([v, -v]), src)
            held = np.unique(np.concatenate([held, _neighbours(held, src)]))
        parts.append(held)
        spans.append((kind, at, at + len(held)))
        at += len(held)
    pool = np.concatenate(parts).astype(src.bits_dtype)
    pool.setflags(write=False)
    return pool, tuple(spans)


def mix_in(source: Source, bits: np.ndarray, src: DType, dst: DType, share: float = BOUNDARY_SHARE) -> np.ndarray:
    """``bits`` (drawn elements of ``src``) with about ``share`` of them replaced by boundary values of the pair,
    each kind equally likely: two 16-bit draws per element (which, and which value)."""
    pool, spans = boundary_pool(src, dst, source.version)
    spans = tuple(s for s in spans if s[2] > s[1])
    flat = bits.reshape(-1)
    n = flat.size
    if not n or not spans:
        return bits
    which = source.bits(16, n)
    pick = source.bits(16, n)
    chosen = np.flatnonzero(which < int(share * 65536))
    if chosen.size:
        kind = (which[chosen].astype(np.int64) * len(spans)) // max(int(share * 65536), 1)
        starts = np.array([s[1] for s in spans])[kind]
        sizes = np.array([s[2] - s[1] for s in spans])[kind]
        flat[chosen] = pool[starts + pick[chosen].astype(np.int64) % sizes]
    return bits
