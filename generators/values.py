"""Element values for every dtype, as raw bits: the whole range, with special values mixed in.

Floats mix three populations: moderate values (random sign and fraction, magnitude in [2**-5, 8)), random finite
bit patterns over the whole range (normals and subnormals of every exponent), and special values at
``special_rate``: +-0, +-inf, the canonical qNaN, qNaNs and sNaNs with random sign and payload, the smallest and
largest subnormals and normals, +-1 (FP8 E4M3 and HiFloat8, whose specials break the IEEE layout: their own
NaN, infinity, zero and subnormal codes from :mod:`ptofuzz.core.minifloat`; neither has a signaling NaN). Integers
mix small values ([-128, 127] or [0, 255]), uniform bit patterns over the whole range and the edge values
(0, +-1, min, max, min+1, max-1).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import cast

import numpy as np

from ptofuzz.core.dtypes import DType
from ptofuzz.core.errors import UsageError
from ptofuzz.core.records import record
from ptofuzz.generators import stream
from ptofuzz.generators.source import DRAW_VERSION, Source, pool_draws
from ptofuzz.generators.stream import Stream

DEFAULT_SPECIAL_RATE = 0.05


def _nans(raw: np.ndarray, dt: DType, signaling: bool) -> np.ndarray:
    payload = raw & (dt.quiet_bit - 1)
    payload = np.maximum(payload, 1) if signaling else payload | dt.quiet_bit
    return (dt.exp_mask | payload | (raw & dt.sign_mask)).astype(dt.bits_dtype)


POOL_SIZE = 4096
CHUNK = 1 << 15  # elements per step of a batch's element arithmetic (its temporaries stay in the cache)

# Special-value kinds a mix can ask for; integers know only zero and extreme (min, max, +-1, min+1, max-1).
ELEMENT_KINDS = ("snan", "qnan", "zero", "inf", "subnormal", "extreme")
TIE = "tie"  # copies of other elements of the same row: duplicates and ties
ROW_PATTERNS = ("sorted", "reversed", "equal")  # whole rows already sorted, reverse sorted or all equal
KINDS = (*ELEMENT_KINDS, TIE, *ROW_PATTERNS)
PROFILES = {
    "default": ELEMENT_KINDS,
    "none": (),
    "nan": ("snan", "qnan"),
    "sort": KINDS,
}


@record(frozen=True)
class ValueMix:
    """How values are drawn: the share of special values and which kinds (see :data:`KINDS`)."""

    rate: float = DEFAULT_SPECIAL_RATE
    kinds: tuple[str, ...] = ELEMENT_KINDS

    @classmethod
    def parse(cls, special: str | None, rate: float = DEFAULT_SPECIAL_RATE) -> ValueMix:
        """``--special`` text: a profile name (default, none, nan, sort) or a comma list of kinds."""
        if not 0.0 <= rate <= 1.0:
            raise UsageError(f"--special-rate {rate} must be between 0 and 1")
        if special is None:
            return cls(rate)
        words = [w.strip().lower() for w in special.split(",") if w.strip()]
        if len(words) == 1 and words[0] in PROFILES:
            return cls(rate if words[0] != "none" else 0.0, PROFILES[words[0]])
        for w in words:
            if w not in KINDS:
                raise UsageError(f"--special {w!r} is no special-value kind; use a profile "
                                 f"({', '.join(PROFILES)}) or kinds from: {', '.join(KINDS)}")
        if not words:
            raise UsageError("--special is empty; name a profile or kinds, e.g. --special snan,zero,tie")
        return cls(rate, tuple(k for k in KINDS if k in words))

    def describe(self) -> dict[str, object]:
        return {"rate": self.rate, "kinds": list(self.kinds)}


@functools.cache
def _table_sets(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A table float's (map of every code to a finite one: NaNs and infinities to the largest finite value of
    their sign; the codes of magnitude [2**-5, 8), in code order)."""
    from ptofuzz.core import minifloat

    f = minifloat.table(name)
    codes = np.arange(1 << f.bits)
    finite = np.where(f.kind == minifloat.FINITE, codes, f.largest | (codes & f.sign)).astype(np.uint8)
    a = np.abs(f.value)
    moderate = np.flatnonzero((f.kind == minifloat.FINITE) & (a >= 2.0 ** -5) & (a < 8)).astype(np.uint8)
    return finite, moderate


def _table_kind_table(dt: DType, kind: str) -> list[int]:
    from ptofuzz.core import minifloat

    f = minifloat.table(dt.name)
    codes = np.arange(1 << f.bits)
    pick = {"qnan": f.kind == minifloat.NAN, "inf": f.kind == minifloat.INF,
            "zero": (f.kind == minifloat.FINITE) & (f.mag == 0), "subnormal": f.subnormal}.get(kind)
    if pick is not None:
        return [int(c) for c in codes[pick]]
    if kind == "extreme":
        low = int(f.up_codes[np.searchsorted(f.up_values, f.min_normal)])
        return [v | s for v in (f.largest, low, f.one) for s in (0, f.sign)]
    return []


def _kind_table(dt: DType, kind: str) -> list[int]:
    s = dt.sign_mask
    if dt.is_table:
        return _table_kind_table(dt, kind)
    if not dt.is_float:
        return {"zero": [0], "extreme": [v & ((1 << dt.bits) - 1) for v in
                                         (1, dt.int_max, dt.int_max - 1, dt.int_min, dt.int_min + 1,
                                          *((-1,) if dt.kind == "int" else ()))]}.get(kind, [])
    one = ((1 << (dt.exp_bits - 1)) - 1) << dt.man_bits
    table = {
        "qnan": [dt.canonical_nan],
        "zero": [0],
        "inf": [dt.exp_mask],
        "subnormal": [1, dt.man_mask, dt.man_mask >> 1],
        "extreme": [dt.exp_mask - 1, dt.man_mask + 1, one],
    }.get(kind, [])
    return table + [v | s for v in table]


@functools.cache
def special_pool(dt: DType, kinds: tuple[str, ...] = ELEMENT_KINDS, version: int = DRAW_VERSION) -> np.ndarray:
    """A fixed, shuffled pool of special values of the given kinds, built once from a fixed seed (each draw
    version its own: the draws of a version index its pool); sNaNs and qNaNs get random signs and payloads. Draws
    index into it, so a case's specials cost one draw."""
    rng = pool_draws(version, 0x5EC1A1, "special-pool", dt.name, *kinds)
    parts = []
    for kind in kinds:
        if kind not in ELEMENT_KINDS:
            continue
        if dt.is_table:  # every code of the kind (no random payloads: the formats have one NaN code or two)
            table = _kind_table(dt, kind)
            if table:
                parts.append(np.array(table, dtype=np.uint64).astype(dt.bits_dtype))
        elif dt.is_float and kind in ("snan", "qnan"):
            raw = rng.uniform(0, 1 << dt.bits, POOL_SIZE, dtype=np.uint64).astype(dt.bits_dtype)
            nans = _nans(raw, dt, signaling=kind == "snan")
            parts.append(np.concatenate([nans, np.array(_kind_table(dt, kind), dt.bits_dtype)]))
        elif dt.is_float and kind == "subnormal":
            raw = rng.uniform(1, 1 << dt.man_bits, POOL_SIZE, dtype=np.uint64)
            sign = rng.uniform(0, 2, POOL_SIZE, dtype=np.uint64) * np.uint64(dt.sign_mask)
            parts.append(np.concatenate([(raw | sign).astype(dt.bits_dtype), np.array(_kind_table(dt, kind),
                                                                                        dt.bits_dtype)]))
        else:
            table = _kind_table(dt, kind)
            if table:
                parts.append(np.array(table, dtype=np.uint64).astype(dt.bits_dtype))
    if not parts:
        return np.zeros(0, dt.bits_dtype)
    # every kind gets an equal share of the pool, whatever its table size
    pool = np.concatenate([p[rng.uniform(0, len(p), POOL_SIZE // len(parts))] for p in parts])
    pool = pool[rng.permutation(len(pool))]
    pool.setflags(write=False)
    return pool


def specials(source: Source, dt: DType, n: int, kinds: tuple[str, ...] = ELEMENT_KINDS) -> np.ndarray:
    """``n`` special values of the given kinds."""
    pool = special_pool(dt, kinds, source.version)
    return pool[source.integers(0, len(pool) - 1, n)]


def draw(source: Source, dt: DType, shape: tuple[int, ...], mix: ValueMix | float = DEFAULT_SPECIAL_RATE
         ) -> np.ndarray:
    """Random element bits of ``dt`` with the given shape (integer operations on raw bits only)."""
    return draw_many([(source, shape)], dt, mix)[0]


def _version(draws: Sequence[tuple[Source, tuple[int, ...]]]) -> int:
    """The draw version of a batch's sources (one pool serves them all: one version)."""
    version = draws[0][0].version
    if any(s.version != version for s, _ in draws):
        raise ValueError("one batch of draws from sources of different draw versions")
    return version


def draw_many(draws: Sequence[tuple[Source, tuple[int, ...]]], dt: DType, mix: ValueMix | float = DEFAULT_SPECIAL_RATE
              ) -> list[np.ndarray]:
    """:func:`draw` for each (source, shape) in turn, the same bits: each source makes its random draws in
    :func:`draw`'s order (one source may come more than once), and the arithmetic runs once over all of them, so
    that many small draws cost about one."""
    if not isinstance(mix, ValueMix):
        mix = ValueMix(float(mix))
    if not draws:
        return []
    rate = mix.rate
    row_level = draws_rows(mix)
    if row_level and len(draws) > 1:  # these draw again after the elements: one draw at a time keeps the order
        return [draw_many([one], dt, mix)[0] for one in draws]
    pool = special_pool(dt, mix.kinds, _version(draws))
    special = rate > 0 and len(pool) > 0
    threshold = int(rate * 65536)
    sizes = [math.prod(shape) for _, shape in draws]
    if all(type(source) is Stream for source, _ in draws):  # the same draws, their words mixed together
        wides, populations, picks = _stream_bits(draws, sizes, dt, threshold if special else None)
    else:
        wides, populations, picks = [], [], []
        for (source, _), n in zip(draws, sizes):
            # per element: the value bits (a 4-bit type: a byte's low nibble), and 16 bits saying which population
            wides.append(source.bits(dt.bits, n) if dt.bits >= 8 else source.bits(8, n) & np.uint8(dt.bit_mask))
            populations.append(source.bits(16, n))
            if special:
                count = int(np.count_nonzero(populations[-1] < threshold))
                if count:
                    picks.append(source.bits(16, count))
    out = wides[0] if len(wides) == 1 else np.concatenate(wides)  # fresh: the elements replace the bits in place
    population = populations[0] if len(populations) == 1 else np.concatenate(populations)
    for at in range(0, len(out), CHUNK):  # cache-sized pieces: whole-batch temporaries cost more than the work
        piece = slice(at, at + CHUNK)
        out[piece] = _elements(out[piece], population[piece], dt, rate)
    if picks:
        out[np.flatnonzero(population < threshold)] = pool[np.concatenate(picks) % len(pool)]
    ends = np.cumsum(sizes)
    results = [out[end - n:end].reshape(shape) for (_, shape), n, end in zip(draws, sizes, ends)]
    if row_level:
        source, shape = draws[0]
        if len(shape) == 2 and shape[0] * shape[1]:
            if TIE in mix.kinds:
                results[0] = _ties(source, results[0], rate)
            patterns = [p for p in ROW_PATTERNS if p in mix.kinds]
            if patterns:
                results[0] = _row_patterns(source, results[0], dt, patterns, rate)
    return results


def _stream_bits(draws: Sequence[tuple[Source, tuple[int, ...]]], sizes: list[int], dt: DType, threshold: int | None
                 ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """:func:`draw_many`'s raw draws (value bits, population bits, special picks) when every source is a
    version-2 :class:`~ptofuzz.generators.stream.Stream`: the words each source takes are the loop's, computed a
    round at a time with :func:`~ptofuzz.generators.stream.bits_many` (round k: each source's k-th draw; its
    value and population bits, then the picks their populations ask for)."""
    rounds: list[list[int]] = []
    seen: dict[int, int] = {}
    for i, (source, _) in enumerate(draws):
        k = seen.get(id(source), 0)
        seen[id(source)] = k + 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append(i)
    wide = dt.bits if dt.bits >= 8 else 8
    streams = [cast(Stream, source) for source, _ in draws]
    wides: list[np.ndarray] = [np.empty(0)] * len(draws)
    populations: list[np.ndarray] = [np.empty(0)] * len(draws)
    picks: dict[int, np.ndarray] = {}
    for members in rounds:
        got = stream.bits_many([r for i in members for r in ((streams[i], wide, sizes[i]), (streams[i], 16, sizes[i]))])
        for j, i in enumerate(members):
            wides[i] = got[2 * j] if dt.bits >= 8 else got[2 * j] & np.uint8(dt.bit_mask)
            populations[i] = got[2 * j + 1]
        if threshold is not None:
            counts = [(i, int(np.count_nonzero(populations[i] < threshold))) for i in members]
            counts = [(i, c) for i, c in counts if c]
            for (i, _), bits in zip(counts, stream.bits_many([(streams[i], 16, c) for i, c in counts])):
                picks[i] = bits
    return wides, populations, [picks[i] for i in sorted(picks)]


def draw_mixed(draws: Sequence[tuple[Source, DType, tuple[int, ...]]], mix: ValueMix | float = DEFAULT_SPECIAL_RATE
               ) -> list[np.ndarray]:
    """:func:`draw_many` for (source, dtype, shape) draws of several dtypes: one ``draw_many`` per dtype, the
    results in the order of ``draws``. Each source makes its draws in that order, so one source may come more than
    once only with one dtype (the dtypes are drawn one after another)."""
    by_dtype: dict[str, list[int]] = {}
    dtype_of: dict[int, str] = {}
    for j, (source, dt, _) in enumerate(draws):
        if dtype_of.setdefault(id(source), dt.name) != dt.name:
            raise ValueError(f"a source drawn as {dtype_of[id(source)]} and as {dt.name} in one draw_mixed")
        by_dtype.setdefault(dt.name, []).append(j)
    placed: dict[int, np.ndarray] = {}
    for members in by_dtype.values():
        drawn = draw_many([(draws[j][0], draws[j][2]) for j in members], draws[members[0]][1], mix)
        placed.update(zip(members, drawn))
    return [placed[j] for j in range(len(draws))]


def draws_rows(mix: ValueMix) -> bool:
    """Whether ``mix`` has row-level kinds (ties, row patterns), which draw again after a tile's elements."""
    return mix.rate > 0 and (TIE in mix.kinds or any(p in mix.kinds for p in ROW_PATTERNS))


def _elements(wide: np.ndarray, population: np.ndarray, dt: DType, rate: float) -> np.ndarray:
    """The non-special elements from the drawn bits: half moderate, half ``wide`` (population below the
    share)."""
    if dt.is_table:  # wide: any finite code (NaNs and infinities to the largest finite); moderate: [2**-5, 8)
        finite, moderate_codes = _table_sets(dt.name)
        wide = finite[wide.astype(np.intp)].astype(wide.dtype)
        moderate = moderate_codes[wide.astype(np.intp) % len(moderate_codes)].astype(wide.dtype)
    elif dt.is_float:
        # wide: the bits as drawn, an all-ones exponent (inf/NaN) clamped to the largest finite magnitude
        sign = np.array(dt.sign_mask, wide.dtype)
        wide = np.minimum(wide & ~sign, np.array(dt.exp_mask - 1, wide.dtype)) | (wide & sign)
        # moderate: the drawn sign and fraction, magnitude in [2**-5, 8) (3 exponent bits pick the binade)
        bias_plus_2 = np.array(((1 << (dt.exp_bits - 1)) + 1) << dt.man_bits, wide.dtype)
        moderate = (wide & (dt.sign_mask | dt.man_mask)) | (bias_plus_2 - (wide & (7 << dt.man_bits)))
    else:
        low = wide & 0xFF  # [-128, 127] (wrapping) or [0, 255]
        moderate = low - np.array(128, wide.dtype) if dt.kind == "int" else low
    # half the non-special elements moderate, half wide: a branch-free blend (np.where is slow on random masks)
    take = (population < int((0.5 + rate / 2) * 65536)).astype(wide.dtype)
    take *= np.array((1 << dt.bits) - 1, wide.dtype)
    return wide ^ ((wide ^ moderate) & take)


def _ties(source: Source, out: np.ndarray, rate: float) -> np.ndarray:
    """Copy a random element of the same row over ``rate`` of the elements: duplicates and ties."""
    rows, cols = out.shape
    where = np.flatnonzero(source.random(rows * cols) < rate)
    if where.size:
        donor_cols = source.integers(0, cols - 1, where.size)
        flat = out.reshape(-1)
        flat[where] = out[where // cols, donor_cols]
    return out


def _row_patterns(source: Source, out: np.ndarray, dt: DType, patterns: list[str], rate: float) -> np.ndarray:
    """Replace ``rate`` of the rows by a whole-row pattern: ascending, descending (numeric order, NaNs last)
    or all equal to one of its elements."""
    from ptofuzz.oracles.sort import sort_keys

    rows = out.shape[0]
    chosen = source.random(rows) < max(rate, 1 / max(rows, 1)) if rows else np.zeros(0, bool)
    which = source.integers(0, len(patterns) - 1, rows)
    result = out.copy()
    for k, pattern in enumerate(patterns):
        m = chosen & (which == k)
        if not m.any():
            continue
        block = out[m]
        if pattern == "equal":
            result[m] = block[:, :1]
        else:
            keys = sort_keys(block, dt, descending=pattern == "reversed") if dt.is_float else \
                (block.view(f"<i{dt.itemsize}") if dt.kind == "int" else block)
            result[m] = np.take_along_axis(block, np.argsort(keys, axis=1, kind="stable"), axis=1)
    return result


def plain(source: Source, dt: DType, n: int) -> np.ndarray:
    """``n`` unremarkable values: floats of magnitude [2**-5, 8) (no operation of two of them overflows,
    underflows or meets a NaN), integers in [-8, 7] or [0, 15] (no sum or product of two overflows even in
    8 bits). Used to replace inputs where a platform leaves the result undefined."""
    raw = source.bits(32, n)
    if dt.is_table:
        moderate = _table_sets(dt.name)[1]
        return moderate[(raw % len(moderate)).astype(np.intp)].astype(dt.bits_dtype)
    if dt.is_float:
        exponent = (((1 << (dt.exp_bits - 1)) + 1 - ((raw >> 24) & 7)) << dt.man_bits).astype(dt.bits_dtype)
        frac_sign = (raw & (dt.sign_mask | dt.man_mask)).astype(dt.bits_dtype)
        return frac_sign | exponent
    small = (raw & 0xF).astype(np.int64) - (8 if dt.kind == "int" else 0)
    return (small.astype(np.uint64) & np.uint64(dt.bit_mask)).astype(dt.bits_dtype)
