"""TMRGSORT's record streams and the state one merge works on.

A sort record is 8 bytes: value bits (a float16 value with its two pad bytes) and a u32 index, carried as two
uint32 words (see :mod:`ptofuzz.oracles.mrgsort` for the platforms' merge rules). Here: the record layout and
its limits, :class:`MergeResult`, the per-list comparison data (:class:`_List`) and the small helpers every
merge engine shares.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import EXACT, UNDEFINED, Case
from ptofuzz.core.dtypes import DType, get
from ptofuzz.core.records import record
from ptofuzz.oracles import ieee

RECORD_BYTES = 8


RECORD_DTYPES = ("float32", "float16")  # the value types a sort record holds


MAX_LISTS = 4


NPU_BLOCK_MULTIPLE = 64  # elements


NPU_MAX_REPEAT = 255


TOPK_FIRST_BLOCK = 64  # elements: the topk kernel's first blockLen


@record(frozen=True)
class MergeResult:
    """One TMRGSORT (or topk kernel) result.

    Attributes:
        words: dst record stream, uint32 of shape ``(2 * dst_records,)``.
        classes: uint8 per word, ``EXACT`` or ``UNDEFINED`` (both words of a record share the class).
        executed: per-list consumed record counts ``(l0, l1, l2, l3)`` as written to ``MrgSortExecutedNumList``,
            or None when the platform does not write them (npu without ``exhausted``, the single-list form, the
            topk kernel) or they cannot be determined (see the npu rules).
    """

    words: np.ndarray
    classes: np.ndarray
    executed: tuple[int, int, int, int] | None


def elements_per_record(dt: str | DType) -> int:
    """Tile elements per 8-byte record: 2 for float32, 4 for float16."""
    return RECORD_BYTES // _dtype(dt).itemsize


def split_records(words: np.ndarray, dt: str | DType) -> tuple[np.ndarray, np.ndarray]:
    """``(value bits, index)`` of a record stream ``words`` (uint32, shape ``(..., 2n)``).

    Value bits are uint32 for float32 and uint16 for float16 (the float16 pad half-word is dropped; it is
    ``words[..., 0::2] >> 16``); the index is uint32. Both have shape ``(..., n)``.
    """
    d = _dtype(dt)
    w = _words(words)
    first = w[..., 0::2]
    values = first.copy() if d.itemsize == 4 else (first & 0xFFFF).astype(np.uint16)
    return values, w[..., 1::2].copy()


def join_records(values: np.ndarray, idx: np.ndarray, dt: str | DType, pad: np.ndarray | int = 0) -> np.ndarray:
    """Record stream (uint32 words, shape ``(..., 2n)``) from value bits and indices of shape ``(..., n)``.

    ``pad`` fills the float16 pad half-word (pto-isa's files write 0); it must be 0 for float32.
    """
    d = _dtype(dt)
    v = np.asarray(values).astype(np.uint32)
    i = np.asarray(idx).astype(np.uint32)
    p = np.asarray(pad).astype(np.uint32)
    first: np.ndarray
    if d.itemsize == 4:
        if np.any(p):
            raise ValueError("float32 records have no pad bytes")
        first = v
    else:
        first = (v & 0xFFFF) | ((p & 0xFFFF) << 16)
    first, i = np.broadcast_arrays(first, i)
    out = np.empty(first.shape[:-1] + (2 * first.shape[-1],), np.uint32)
    out[..., 0::2] = first
    out[..., 1::2] = i
    return out


@record
class _Recs:
    """Records ``(n, 2)`` uint32 plus a per-record ``known`` mask (False: contents never defined)."""

    recs: np.ndarray
    known: np.ndarray

    @staticmethod
    def of(words: np.ndarray) -> _Recs:
        w = _words(words)
        if w.ndim != 1:
            raise ValueError(f"a record stream is one tile row (1-D words), got shape {w.shape}")
        r = w.reshape(-1, 2).copy()
        return _Recs(r, np.ones(len(r), bool))

    @property
    def n(self) -> int:
        return len(self.recs)

    def slice(self, lo: int, hi: int) -> _Recs:
        """Records ``lo:hi``; positions past the end are unknown (reading beyond the buffer)."""
        take = max(0, min(hi, self.n) - lo)
        recs = np.zeros((hi - lo, 2), np.uint32)
        known = np.zeros(hi - lo, bool)
        recs[:take] = self.recs[lo:lo + take]
        known[:take] = self.known[lo:lo + take]
        return _Recs(recs, known)

    def store(self, at: int, out: _Out) -> None:
        """Apply an instruction's dst writes (untouched positions keep their contents)."""
        w = out.written[: self.n - at]
        seg = slice(at, at + len(w))
        self.recs[seg][w] = out.recs[: len(w)][w]
        self.known[seg][w] = out.defined[: len(w)][w]

    def copy_from(self, other: _Recs, count: int) -> None:
        """Plain copy of ``count`` records from the front of ``other`` to the front of self."""
        src = other.slice(0, count)
        m = min(count, self.n)
        self.recs[:m] = src.recs[:m]
        self.known[:m] = src.known[:m]


@record
class _Out:
    """dst after one instruction: records, defined mask, written mask (False: untouched), executed counts."""

    recs: np.ndarray
    defined: np.ndarray
    written: np.ndarray
    executed: tuple[int, int, int, int] | None

    @staticmethod
    def blank(cap: int) -> _Out:
        return _Out(np.zeros((cap, 2), np.uint32), np.zeros(cap, bool), np.zeros(cap, bool), None)


@record
class _List:
    """Per-list comparison data derived once from the record values."""

    key: np.ndarray  # int64, ascending = value descending, +0 and -0 equal (meaningless for NaN/unknown)
    val: np.ndarray  # float64 values for the IEEE comparisons of the simulation loop
    nan: np.ndarray
    unknown: np.ndarray
    tiny: np.ndarray  # zero or subnormal
    bits: np.ndarray  # value bits (for "all the same bit pattern")
    sorted: bool  # descending among the known non-NaN records

    @staticmethod
    def value_bits(recs: np.ndarray, d: DType) -> np.ndarray:
        return recs[..., 0] if d.itemsize == 4 else (recs[..., 0] & 0xFFFF).astype(np.uint16)

    @staticmethod
    def of(r: _Recs, d: DType) -> _List:
        bits = _List.value_bits(r.recs, d)
        key = _desc_key(bits, d)
        nan = ieee.is_nan(bits, d)
        unknown = ~r.known
        num = key[~(nan | unknown)]
        tiny = ieee.is_zero_or_subnormal(bits, d)
        return _List(key, ieee.to_float64(bits, d), nan, unknown, tiny, bits, bool(np.all(np.diff(num) >= 0)))

    @property
    def clean(self) -> bool:
        return self.sorted and not self.nan.any() and not self.unknown.any()


def _tiny_ambiguous(tiny: np.ndarray, lid: np.ndarray, bits: np.ndarray) -> bool:
    """npu: near-zero records from >= 2 lists with >= 2 distinct bit patterns (their order is undocumented)."""
    if not tiny.any():
        return False
    lists, patterns = lid[tiny], bits[tiny]
    return bool((lists != lists[0]).any() and (patterns != patterns[0]).any())


def _desc_key(bits: np.ndarray, d: DType) -> np.ndarray:
    """int64 keys whose ascending order is descending value; +0 and -0 get the same key."""
    key = ieee.order_key(bits, d).astype(np.int64)
    key[ieee.is_zero(bits, d)] = d.sign_mask
    return -key


def _counts(list_ids: np.ndarray) -> tuple[int, int, int, int]:
    c = np.bincount(list_ids, minlength=MAX_LISTS)[:MAX_LISTS]
    return tuple(int(x) & 0xFFFF for x in c)  # type: ignore[return-value]


def _result(recs: np.ndarray, defined: np.ndarray, executed: tuple[int, int, int, int] | None) -> MergeResult:
    words = np.where(defined[:, None], recs, 0).astype(np.uint32).reshape(-1)
    classes = np.repeat(np.where(defined, EXACT, UNDEFINED).astype(np.uint8), 2)
    return MergeResult(words, classes, executed)


def _list_words(case: Case, tiles: Mapping[str, np.ndarray], i: int) -> np.ndarray:
    """The record words of list ``i`` (its valid columns), of one case's tile (1, cols) or stacked ones
    (N, 1, cols)."""
    return _words(tiles[f"src{i}"][..., 0, :case.tile(f"src{i}").valid_cols])


def _words(words: np.ndarray) -> np.ndarray:
    w = np.asarray(words)
    if w.dtype != np.uint32:
        if w.size and (w.dtype.kind not in "ui" or w.min() < 0 or w.max() > 0xFFFFFFFF):
            raise ValueError("record words must be uint32")
        w = w.astype(np.uint32)
    if w.ndim == 0 or w.shape[-1] % 2:
        raise ValueError(f"a record stream has an even number of words, got shape {w.shape}")
    return w


def _dtype(dt: str | DType) -> DType:
    d = get(dt)
    if d.name not in RECORD_DTYPES:
        raise ValueError(f"TMRGSORT records hold float32 or float16 values, not {d.name}")
    return d


def _platform(platform: str) -> str:
    """"cpu" or "npu": which TMRGSORT implementation ``platform`` runs (the platform table says)."""
    if platform in ("cpu", "npu"):  # the two implementations, by name (the public functions accept them)
        return platform
    if platform not in platforms.names():
        named = [p.name for p in platforms.TABLE if p.kind != platforms.SPEC and p.name not in ("cpu", "npu")]
        raise ValueError(f"unknown TMRGSORT platform {platform!r}; use one of: cpu, npu, {', '.join(named)}")
    p = platforms.get(platform)
    if p.kind == platforms.SPEC:
        raise ValueError("pto-spec has no TMRGSORT model; use cpu or an NPU platform")
    return "npu" if p.is_npu else "cpu"


def _count(v: int, name: str) -> int:
    if int(v) != v or v < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
    return int(v)
