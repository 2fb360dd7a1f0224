"""pto-isa TMRGSORT platform oracles: merge pre-sorted lists of 8-byte sort records (pto-isa-conventions.md §6).

Record streams
--------------
A sort record is 8 bytes, little-endian: float32 ``[f32 value][u32 index]``; float16 ``[f16 value][2 pad bytes]
[u32 index]``. Every function here takes and returns a record stream as a uint32 *word* array, two words per
record: word 0 holds the value bits (float16: value in the low 16 bits, the pad bytes in the high 16 bits) and
word 1 the index. Whole records are moved, so pad bytes travel with their record. :func:`split_records` and
:func:`join_records` convert to and from (value bits, index) arrays.

Results are :class:`MergeResult`: the dst record stream at its valid width, one class per word (EXACT or
UNDEFINED, see ``ptofuzz.core.case``; the words under UNDEFINED are 0 placeholders) and the executed counts.

Platforms
---------
``cpu`` (pto-isa's CPU simulator, include/pto/cpu/TMrgSort.hpp):
  * Each output record is chosen by scanning the list heads from list 0 up: the first non-empty head is the
    candidate and a later head replaces it only if its value is strictly greater (IEEE ``>``). Hence ties go to
    the lower-numbered list, each list keeps its order, +0 and -0 tie, and a NaN head never replaces a
    candidate nor is replaced: a NaN at the head of the lowest non-empty list is the first candidate and goes
    out at once, while a NaN heading a higher list waits (holding back the records behind it) until every
    lower list is empty.
  * Multi-list: stops when dst's valid record count is written or every list is empty; with ``exhausted`` it
    also stops right after the write that empties any list (an initially empty list stops it after the first
    write). The executed counts (records consumed per list, 4 x uint16, unused lists 0) are always written.
    dst records after the last write are untouched, hence UNDEFINED.
  * Single-list: the group extent comes from *dst's* valid width; each full group of 4 blocks is merged as 4
    lists; a trailing partial group leaves dst untouched. ``block_len`` 0 or not a whole number of records
    writes nothing.

``npu`` (a2a3 and a5: the ``vmrgsort4`` unit; include/pto/npu/{a2a3,a5}/TMrgSort.hpp):
  * A stable merge, ties to the lower list (per pto-isa docs). What it does with NaN, with -0 against +0 and
    with subnormals (possibly compared as zero) is undocumented, so this oracle never guesses:
      - from the first output position at which a NaN reaches the head of any list, everything is UNDEFINED;
      - the run of near-zero records (zeros and subnormals; contiguous under every plausible comparison) is
        UNDEFINED when those records come from two or more lists and are not all the same bit pattern. In
        exhausted mode, if such a run is reached and some list ends inside it, the stop point itself is
        unknown: everything from the run on is UNDEFINED and the executed counts are unknown (None).
  * Unsorted input (numbers, ignoring NaN, not in descending order; +0 == -0) is undefined per the docs
    ("Feeding unsorted data produces undefined output"): every record is UNDEFINED. So is an exhausted-mode
    merge with an empty list (how the unit treats a list that starts exhausted is undocumented).
  * Multi-list: the whole merge goes into ``tmp`` (not capped by dst) and then dst's full width is copied from
    ``tmp``, so dst records past the merged count are stale (UNDEFINED). The executed counts come from the
    VMS4_SR register in exhausted mode only (the full hardware stop point, not capped by dst); otherwise None.
  * Single-list: the group extent (``repeatTimes``) comes from *src's* valid width; ``block_len`` must be a
    multiple of 64 and the group count in [1, 255] (documented constraints), else every record is UNDEFINED.
    Groups beyond dst's valid width are cut off.
  * Assumption: like the CPU, the unit moves whole 8-byte records, float16 pad bytes included.

Vectorisation: when every list is sorted (descending, +0 == -0) and NaN-free, the merge order equals a stable
sort by (value descending, list number, position in list): one ``np.argsort(kind="stable")`` per merge (one
batched argsort for all groups of the single-list form). Lists sorted with their NaNs at the end are merged the
same way with the NaN rules applied to the ranks (:func:`_merge_rows`, over many merges at once, one per row,
whatever their geometries: :func:`tmrgsort_many` merges a generation batch's cases in one call, and
:func:`_merge_many` is its one-geometry case, for the registry oracle's stacked inputs, a leading axis of cases).
On the npu, whose merge stops at the first head that is a NaN or an unknown record (see :func:`topk`), every
merge is vectorised that way; on the cpu only a list that is unsorted, holds a NaN among its numbers or holds an
unknown record falls back to the explicit head-by-head simulation (:func:`_merge_impl`, the reference).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import ieee

RECORD_BYTES = 8
RECORD_DTYPES = ("float32", "float16")  # the value types a sort record holds
MAX_LISTS = 4
NPU_BLOCK_MULTIPLE = 64  # elements
NPU_MAX_REPEAT = 255
TOPK_FIRST_BLOCK = 64  # elements: the topk kernel's first blockLen


@dataclasses.dataclass(frozen=True)
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


# ---------------------------------------------------------------------------------------------------------
# record streams


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


# ---------------------------------------------------------------------------------------------------------
# public oracles


def merge(lists: list[np.ndarray], dt: str | DType, *, dst_records: int, exhausted: bool, platform: str
          ) -> MergeResult:
    """Multi-list TMRGSORT: merge 2..4 descending lists (record streams at their valid widths) into dst.

    ``dst_records`` is dst's valid width in records (valid columns / elements per record).
    """
    d = _dtype(dt)
    plat = _platform(platform)
    if not 2 <= len(lists) <= MAX_LISTS:
        raise ValueError(f"TMRGSORT merges 2..4 lists, not {len(lists)}")
    cap = _count(dst_records, "dst_records")
    srcs = [_Recs.of(lst) for lst in lists]
    out = _merge_one(srcs, d, plat, cap, exhausted)
    return _result(out.recs, out.defined, out.executed)


def single(words: np.ndarray, dt: str | DType, *, block_len: int, dst_records: int, platform: str) -> MergeResult:
    """Single-list TMRGSORT: merge each group of 4 consecutive sorted blocks of ``src`` (``words``).

    ``block_len`` is the instruction's operand, in *tile elements* (64 = 32 float32 or 16 float16 records);
    ``words`` is src at its valid width; ``dst_records`` is dst's valid width in records.
    """
    d = _dtype(dt)
    out = _single_impl(_Recs.of(words), d, _platform(platform), block_len, _count(dst_records, "dst_records"))
    return _result(out.recs, out.defined & out.written, None)


def topk(words: np.ndarray, dt: str | DType, *, cols: int, topk: int, platform: str) -> MergeResult:
    """pto-isa's TMRGSORT "topk" test kernel (tests/{cpu,npu/*}/.../tmrgsort/tmrgsort_kernel.cpp), whole.

    ``cols`` and ``topk`` are the kernel's tile widths in tile elements of ``dt`` (for the float16 cases that is
    twice the ``*_col``/``topk`` numbers of gen_data.py, which count 4-byte words); ``words`` holds at least
    ``cols`` elements of records, pre-sorted in blocks of 64 elements. The kernel:

    1. single-list passes src -> tmp with blockLen 64, 256, 1024, ... while ``4 * blockLen <= cols``, each
       followed by copying the merged full groups back over the front of src;
    2. if ``blockLen < cols`` afterwards: split ``cols`` greedily into chunks of blockLen, blockLen/4, ... down
       to 64 elements (a remainder below 64 is ignored) and fold them left to right with 2-list non-exhausted
       merges (src0 = the first ``min(sum so far, topk)`` elements, src1 = the next chunk capped at ``topk``,
       dst = ``topk`` elements), copying dst's ``topk`` elements back over the front of src after each merge;
       with a single chunk no merge runs at all and dst is never written;
    3. otherwise dst = the first ``topk`` elements of tmp (never written if no pass ran).

    Both platforms' kernels compute the same thing (the npu one aliases dst onto src, harmlessly because the
    merge goes through tmp). Records that the kernel takes from never-written memory are unknown: a merge that
    would compare one is UNDEFINED from there on (this happens when ``topk`` exceeds the sum of the first two
    tail chunks and there are three or more chunks). Returns dst's ``topk`` elements; ``executed`` is None.
    """
    d = _dtype(dt)
    plat = _platform(platform)
    e = RECORD_BYTES // d.itemsize
    for name, v in (("cols", cols), ("topk", topk)):
        if int(v) != v or v <= 0 or v % e:
            raise ValueError(f"{name}={v} must be a positive multiple of {e} elements for {d.name}")
    if cols >= 1 << 16:
        raise ValueError(f"cols={cols} overflows the kernel's uint16 column counters")
    if topk > cols:
        raise ValueError(f"topk={topk} exceeds cols={cols}: the kernel would copy past its src tile")
    n, k = cols // e, topk // e
    given = _Recs.of(words)
    if given.n < n:
        raise ValueError(f"words hold {given.n} records, the kernel reads {n}")
    src = _Recs(given.recs[:n].copy(), np.ones(n, bool))
    tmp = _Recs(np.zeros((n, 2), np.uint32), np.zeros(n, bool))
    dst = _Recs(np.zeros((k, 2), np.uint32), np.zeros(k, bool))

    block = TOPK_FIRST_BLOCK
    while 4 * block <= cols:
        g = cols // (4 * block) * (4 * block) // e  # records in full groups: what is copied back
        if plat == "cpu":  # extent from dst (tmp, valid = cols)
            out = _single_impl(src, d, plat, block, n)
        else:  # extent from src (valid = the full groups)
            out = _single_impl(_Recs(src.recs[:g], src.known[:g]), d, plat, block, g)
        tmp.store(0, out)
        src.copy_from(tmp, g)
        block *= 4

    if block < cols:
        chunks = _greedy_chunks(cols, block)
        done = 0
        for i in range(len(chunks) - 1):
            done += chunks[i]
            a0 = min(done, topk) // e
            a1 = min(chunks[i + 1], topk) // e
            start = done // e
            lists = [src.slice(0, a0), src.slice(start, start + a1)]
            dst.store(0, _merge_one(lists, d, plat, k, False))
            src.copy_from(dst, k)
    else:
        dst.copy_from(tmp, k)
    return _result(dst.recs, dst.known, None)


# ---------------------------------------------------------------------------------------------------------
# internals


@dataclasses.dataclass
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


@dataclasses.dataclass
class _Out:
    """dst after one instruction: records, defined mask, written mask (False: untouched), executed counts."""

    recs: np.ndarray
    defined: np.ndarray
    written: np.ndarray
    executed: tuple[int, int, int, int] | None

    @staticmethod
    def blank(cap: int) -> _Out:
        return _Out(np.zeros((cap, 2), np.uint32), np.zeros(cap, bool), np.zeros(cap, bool), None)


@dataclasses.dataclass
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


def _merge_impl(srcs: list[_Recs], d: DType, plat: str, cap: int, exhausted: bool) -> _Out:
    """One multi-list merge of ``srcs`` into a dst of ``cap`` records."""
    lists = [_List.of(s, d) for s in srcs]
    lens = [s.n for s in srcs]
    allrecs = np.concatenate([s.recs for s in srcs]) if srcs else np.zeros((0, 2), np.uint32)
    out = _Out.blank(cap)
    if plat == "npu":
        out.written[:] = True  # dst's full width is copied from tmp
        if (exhausted and min(lens) == 0) or not all(lst.sorted for lst in lists):
            return out
    if all(lst.clean for lst in lists):
        gidx, defined, executed = _plan_sorted(lists, lens, plat, cap, exhausted)
    else:
        gidx, defined, executed, undetermined = _plan_loop(lists, lens, plat, cap, exhausted)
        if plat == "cpu" and undetermined:
            out.written[:] = True  # the stop point is unknown: treat every position as maybe written
    m = len(gidx)
    out.recs[:m][defined] = allrecs[gidx[defined]]
    out.defined[:m] = defined
    if plat == "cpu":
        out.written[:m] = True
    out.executed = executed
    return out


def _plan_sorted(lists: list[_List], lens: list[int], plat: str, cap: int, exhausted: bool):
    """Vectorised merge of sorted NaN-free lists: (global record index per output position, defined, executed)."""
    total = sum(lens)
    key = np.concatenate([lst.key for lst in lists])
    lid = np.repeat(np.arange(len(lists)), lens)
    order = np.argsort(key, kind="stable")  # concatenation order = (list, position): ties go to the lower list
    rank = np.empty(total, np.int64)
    rank[order] = np.arange(total)
    ends = np.cumsum(lens) - 1  # global index of each list's last record
    if not exhausted:
        stop = total
    elif min(lens) == 0:  # cpu only (npu returned earlier): stops after the first write
        stop = min(1, total)
    else:
        stop = int(rank[ends].min()) + 1
    merged = min(cap, stop)
    gidx = order[:merged]
    defined = np.ones(merged, bool)
    executed: tuple[int, int, int, int] | None
    if plat == "cpu":
        executed = _counts(lid[gidx])
    else:
        executed = _counts(lid[order[:stop]]) if exhausted else None
        tiny = np.concatenate([lst.tiny for lst in lists])
        if _tiny_ambiguous(tiny, lid, np.concatenate([lst.bits for lst in lists])):
            a = int(rank[tiny].min())
            b = a + int(tiny.sum())
            if not exhausted:
                defined[a:b] = False
            elif stop > a:
                ends_tiny = tiny[ends[np.asarray(lens) > 0]]
                if ends_tiny.any():  # some list ends inside the run: the stop point is unknown
                    defined[a:] = False
                    executed = None
                else:
                    defined[a:b] = False
    return gidx, defined, executed


def _plan_loop(lists: list[_List], lens: list[int], plat: str, cap: int, exhausted: bool):
    """Head-by-head simulation (unsorted lists, NaN or unknown records).

    Returns (global record index per output position, defined, executed, undetermined stop).
    """
    nl = len(lists)
    offs = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    total = sum(lens)
    heads = [0] * nl
    picks: list[int] = []
    cut = None  # first output position whose contents depend on undefined behaviour
    amb_tiny = False
    if plat == "npu":
        lid = np.repeat(np.arange(nl), lens)
        ok = ~np.concatenate([lst.nan | lst.unknown for lst in lists])
        tiny = np.concatenate([lst.tiny for lst in lists]) & ok
        amb_tiny = _tiny_ambiguous(tiny, lid, np.concatenate([lst.bits for lst in lists]))
    val = [lst.val.tolist() for lst in lists]
    unk = [lst.unknown.tolist() for lst in lists]
    nan = [lst.nan.tolist() for lst in lists]
    tin = [lst.tiny.tolist() for lst in lists]
    # npu exhausted mode runs to the hardware stop point (not capped by dst) for the executed counts
    limit = total if (plat == "npu" and exhausted) else min(cap, total)
    while len(picks) < limit:
        pick, best = -1, 0.0
        for j in range(nl):
            h = heads[j]
            if h >= lens[j]:
                continue
            if unk[j][h] or (plat == "npu" and nan[j][h]):
                cut = len(picks)
                break
            v = val[j][h]
            if pick < 0 or v > best:  # IEEE: a NaN candidate is never replaced, a NaN never replaces
                pick, best = j, v
        if cut is not None or pick < 0:
            break
        if amb_tiny and tin[pick][heads[pick]]:
            cut = len(picks)
            break
        picks.append(int(offs[pick]) + heads[pick])
        heads[pick] += 1
        if exhausted and any(heads[j] == lens[j] for j in range(nl)):
            break
    undetermined = cut is not None and exhausted
    if cut is None:
        merged = min(len(picks), cap)
    else:  # non-exhausted: the count written is fixed; exhausted: the stop point is unknown
        merged = min(cap, total) if not exhausted else cap
    gidx = np.zeros(merged, np.int64)
    m = min(len(picks), merged)  # picks stop at the cut, so these are the defined positions
    gidx[:m] = picks[:m]
    defined = np.zeros(merged, bool)
    defined[:m] = True
    consumed = None
    if cut is None:
        consumed = heads
    elif plat == "cpu" and not exhausted and total <= cap:
        consumed = lens  # every list is consumed whatever the order
    executed = None
    if consumed is not None and (plat == "cpu" or exhausted):
        executed = tuple(c & 0xFFFF for c in list(consumed) + [0] * (MAX_LISTS - nl))
    return gidx, defined, executed, undetermined


def _single_impl(src: _Recs, d: DType, plat: str, block_len: int, cap: int) -> _Out:
    """Single-list form over ``src`` into a dst of ``cap`` records (``written`` marks the groups' records)."""
    recs, defined, written = _single_many(src.recs[None], src.known[None], d, plat, block_len, cap)
    return _Out(recs[0], defined[0], written[0], None)


def _single_many(recs: np.ndarray, known: np.ndarray, d: DType, plat: str, block_len: int, cap: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The single-list form over ``N`` sources at once (``recs`` (N, n, 2), ``known`` (N, n)): each one's
    (records, defined, written), each of shape (N, cap, ...). The geometry is shared, so the group count is;
    the groups of all sources are merged together (a group's merge depends on its own records only)."""
    single = _Single.of(recs, known, d, plat, block_len, cap)
    if single.groups is not None:
        single.finish(*_merge_groups(*single.groups, d, plat))
    return single.recs, single.defined, single.written


@dataclasses.dataclass
class _Single:
    """The single-list form over ``N`` sources of one geometry: dst (``recs`` (N, cap, 2), ``defined`` and
    ``written`` (N, cap)) as far as the geometry decides it, and the groups of 4 blocks still to merge
    (``groups``: records (G, 4, b, 2) and whether each is known (G, 4, b); None when no group is merged), whose
    merge :meth:`finish` places."""

    recs: np.ndarray
    defined: np.ndarray
    written: np.ndarray
    groups: tuple[np.ndarray, np.ndarray] | None = None

    @staticmethod
    def of(recs: np.ndarray, known: np.ndarray, d: DType, plat: str, block_len: int, cap: int) -> _Single:
        n_src, n = known.shape
        e = RECORD_BYTES // d.itemsize
        out = _Single(np.zeros((n_src, cap, 2), np.uint32), np.zeros((n_src, cap), bool),
                      np.zeros((n_src, cap), bool))
        if int(block_len) != block_len or block_len <= 0:
            if plat == "npu":
                out.written[:] = True  # outside the documented contract: anything may happen
            return out
        if plat == "cpu":
            if block_len % e:
                return out
            b = block_len // e
            groups = cap // (4 * b)
        else:
            b = block_len * d.itemsize // RECORD_BYTES
            groups = n // (4 * b) if b else 0
            if block_len % NPU_BLOCK_MULTIPLE or not 1 <= groups <= NPU_MAX_REPEAT:
                out.written[:] = True
                return out
        if groups == 0:
            return out
        span = 4 * b
        take = min(n, groups * span)  # cpu reads src past its valid width if dst is wider: unknown
        data = np.zeros((n_src, groups * span, 2), np.uint32)
        data_known = np.zeros((n_src, groups * span), bool)
        data[:, :take] = recs[:, :take]
        data_known[:, :take] = known[:, :take]
        out.groups = data.reshape(n_src * groups, 4, b, 2), data_known.reshape(n_src * groups, 4, b)
        return out

    def finish(self, res: np.ndarray, defined: np.ndarray, written: np.ndarray) -> None:
        """Place the groups' merges (:func:`_merge_groups` of :attr:`groups`) into dst."""
        n_src, cap = self.defined.shape
        m = min(cap, res.size // 2 // n_src)
        self.recs[:, :m] = res.reshape(n_src, -1, 2)[:, :m]
        self.defined[:, :m] = defined.reshape(n_src, -1)[:, :m]
        self.written[:, :m] = written.reshape(n_src, -1)[:, :m]


def _merge_groups(grp: np.ndarray, grp_known: np.ndarray, d: DType, plat: str
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group of 4 sorted blocks (``grp`` (G, 4, b, 2), ``grp_known`` (G, 4, b)) merged as 4 lists into
    ``4 * b`` records: (records, defined, written), (G, 4 * b, ...) each."""
    g_all, _, b = grp_known.shape
    span = 4 * b
    bits = grp[..., 0] if d.itemsize == 4 else (grp[..., 0] & 0xFFFF).astype(np.uint16)
    key = _desc_key(bits, d)
    bad = ieee.is_nan(bits, d) | ~grp_known
    clean = ~bad.any(axis=(1, 2)) & np.all(np.diff(key, axis=2) >= 0, axis=(1, 2))

    res = np.zeros((g_all, span, 2), np.uint32)
    defined = np.ones((g_all, span), bool)
    written = np.ones((g_all, span), bool)
    if clean.any():
        c = np.flatnonzero(clean)
        order = np.argsort(key[c].reshape(len(c), span), axis=1, kind="stable")
        res[c] = np.take_along_axis(grp[c].reshape(len(c), span, 2), order[..., None], axis=1)
        if plat == "npu":
            tiny = ieee.is_zero_or_subnormal(bits, d)[c]
            amb = _tiny_ambiguous_groups(tiny, bits[c])
            if amb.any():
                tiny_sorted = np.take_along_axis(tiny.reshape(len(c), span), order, axis=1)
                defined[c] &= ~(tiny_sorted & amb[:, None])
    dirty = np.flatnonzero(~clean)
    if dirty.size:
        merged = _merge_many([grp[dirty, i] for i in range(4)], [grp_known[dirty, i] for i in range(4)], d, plat,
                             span, False)
        res[dirty], defined[dirty], written[dirty] = merged.recs, merged.defined, merged.written
    return res, defined, written


@dataclasses.dataclass
class _Many:
    """:class:`_Out` for ``N`` merges (one a row, of one geometry or of many): records (N, width, 2), defined and
    written (N, width), and each merge's executed counts (N, 4), a row of -1 where there are none."""

    recs: np.ndarray
    defined: np.ndarray
    written: np.ndarray
    executed: np.ndarray

    @staticmethod
    def blank(n: int, width: int) -> _Many:
        return _Many(np.zeros((n, width, 2), np.uint32), np.zeros((n, width), bool), np.zeros((n, width), bool),
                     np.full((n, MAX_LISTS), -1, np.int64))

    def counts(self, k: int) -> tuple[int, int, int, int] | None:
        row = self.executed[k]
        return None if row[0] < 0 else tuple(int(c) for c in row)  # type: ignore[return-value]


def _merge_one(srcs: list[_Recs], d: DType, plat: str, cap: int, exhausted: bool) -> _Out:
    """:func:`_merge_impl`, through :func:`_merge_many` when a list holds a NaN or an unknown record (where
    :func:`_merge_impl` would simulate head by head)."""
    if all(s.known.all() and not ieee.is_nan(_List.value_bits(s.recs, d), d).any() for s in srcs):
        return _merge_impl(srcs, d, plat, cap, exhausted)  # its sorted plan is one argsort: cheaper for one merge
    res = _merge_many([s.recs[None] for s in srcs], [s.known[None] for s in srcs], d, plat, cap, exhausted)
    return _Out(res.recs[0], res.defined[0], res.written[0], res.counts(0))


def _merge_many(lists: list[np.ndarray], known: list[np.ndarray], d: DType, plat: str, cap: int, exhausted: bool
                ) -> _Many:
    """``N`` multi-list merges of the same list lengths at once: ``lists[i]`` holds list ``i`` of every merge,
    (N, len_i, 2) records, ``known[i]`` (N, len_i) whether each is defined. :func:`_merge_rows` with one
    geometry for every row."""
    n_merge = known[0].shape[0] if known else 0
    lens = [k.shape[1] for k in known]
    if not lens:
        res = _Many.blank(n_merge, cap)
        res.written[:] = plat == "npu"
        return res
    rows = _Rows.of_lists(np.concatenate(lists, axis=1), np.concatenate(known, axis=1),
                          np.broadcast_to(np.asarray(lens), (n_merge, len(lens))))
    return _merge_rows(rows, d, plat, np.full(n_merge, cap), np.full(n_merge, exhausted), cap)


@dataclasses.dataclass
class _Rows:
    """Multi-list merges of any geometries, one per row: each row's lists laid end to end from position 0,
    then padding up to the widest row's record count ``T``.

    Attributes:
        recs: (M, T, 2) records (padding zero); known: (M, T) whether each is defined (padding True).
        lid: (M, T) list number of each position, :data:`MAX_LISTS` for padding.
        bounds: (M, MAX_LISTS + 1) start of each list (lists a row does not have are empty, at its end).
        lists: (M,) how many lists each row merges.
    """

    recs: np.ndarray
    known: np.ndarray
    lid: np.ndarray
    bounds: np.ndarray
    lists: np.ndarray

    @staticmethod
    def of_lists(recs: np.ndarray, known: np.ndarray, lens: np.ndarray, lists: np.ndarray | None = None) -> _Rows:
        """Rows from records already laid out (``recs`` (M, T, 2), ``known`` (M, T)) and each row's list lengths
        ``lens`` (M, L), where a row's lists hold ``lens.sum(axis=1)`` <= T positions; ``lists`` (M,): how many
        lists each row merges (default: L each)."""
        m_count, width = known.shape
        full = np.zeros((m_count, MAX_LISTS), np.int64)
        full[:, :lens.shape[1]] = lens
        bounds = np.zeros((m_count, MAX_LISTS + 1), np.int64)
        np.cumsum(full, axis=1, out=bounds[:, 1:])
        pos = np.arange(width)
        lid = (pos[None, None, :] >= bounds[:, 1:, None]).sum(axis=1)  # MAX_LISTS past the last list: padding
        count = np.full(m_count, lens.shape[1]) if lists is None else np.asarray(lists)
        return _Rows(recs, known | (lid == MAX_LISTS), lid, bounds, count)

    @functools.cached_property
    def lens(self) -> np.ndarray:
        """(M, MAX_LISTS) each list's length."""
        return np.diff(self.bounds, axis=1)

    @functools.cached_property
    def live(self) -> np.ndarray:
        """(M, MAX_LISTS) whether each row merges that list."""
        return np.arange(MAX_LISTS)[None, :] < self.lists[:, None]

    @functools.cached_property
    def empty_list(self) -> np.ndarray:
        """(M,) whether a row merges an empty list."""
        return ((self.lens == 0) & self.live).any(axis=1)

    @functools.cached_property
    def pad(self) -> np.ndarray:
        """(M, T) whether each position is padding."""
        return self.lid == MAX_LISTS

    def take(self, rows: np.ndarray) -> _Rows:
        """The rows ``rows`` alone."""
        return _Rows(self.recs[rows], self.known[rows], self.lid[rows], self.bounds[rows], self.lists[rows])


def _merge_rows(rows: _Rows, d: DType, plat: str, cap: np.ndarray, exhausted: np.ndarray, width: int) -> _Many:
    """Multi-list merges of many geometries at once, row ``m`` merging row m's lists into a dst of ``cap[m]``
    records (``exhausted[m]``: exhausted mode); results are ``width`` (>= every cap) records wide. Exactly
    :func:`_merge_impl` merge by merge. Vectorised: on the npu every merge; on the cpu merges whose lists are each
    sorted with any NaNs at their ends (the shape the generators draw), the others run through
    :func:`_merge_impl`.

    cpu: with NaNs only at list ends, the numbers leave in the order of the NaN-free merge (a stable sort by key:
    ties to the lower list), and list ``i``'s NaN tail leaves as soon as every list up to ``i`` has no number
    left (a NaN goes out when its list is the lowest non-empty one), i.e. right after the number of rank
    ``max(last number rank of lists 0..i)``. npu: a merge whose known numbers are not sorted defines nothing;
    otherwise each list is a sorted run of numbers up to its first NaN or unknown record (its tail), the numbers
    leave in the order of the merge of those runs, and the merge is defined up to the first output position at
    which some list's head is in its tail (right after that list's last number before it).
    """
    m_count, total_width = rows.known.shape
    res = _Many.blank(m_count, width)
    todo = np.ones(m_count, bool)
    if plat == "npu":
        res.written[:] = np.arange(width)[None, :] < cap[:, None]  # dst's full width is copied from tmp
        todo &= ~(exhausted & rows.empty_list)
    if m_count == 0:
        return res
    if total_width == 0:  # every list empty: one padding position keeps the gathers below in range
        rows = _Rows(np.zeros((m_count, 1, 2), np.uint32), np.ones((m_count, 1), bool),
                     np.full((m_count, 1), MAX_LISTS), rows.bounds, rows.lists)
        m_count, total_width = rows.known.shape
    bits = rows.recs[..., 0] if d.itemsize == 4 else (rows.recs[..., 0] & 0xFFFF).astype(np.uint16)
    pad = rows.pad
    key = _desc_key(bits, d)
    nan = ieee.is_nan(bits, d) & ~pad
    pos = np.arange(total_width)
    starts = np.take_along_axis(rows.bounds, np.minimum(rows.lid, MAX_LISTS - 1), axis=1)
    if plat == "npu":  # every merge left is vectorised
        todo &= _sorted_numbers(key, ~nan & rows.known & ~pad, starts)  # else nothing is defined (res as it is)
        tail = _stopped(nan | ~rows.known, starts) & ~pad
        fast = todo
    else:
        tail = nan
        follows = (pos[None, :] > starts) & ~pad  # position j > 0 within its list
        prev_num = np.zeros_like(nan)
        prev_num[:, 1:] = ~nan[:, :-1]
        nan_last = np.all(~follows | nan | prev_num, axis=1)  # no number after a NaN
        steps = np.zeros((m_count, total_width), bool)
        steps[:, 1:] = key[:, 1:] >= key[:, :-1]
        fast = todo & nan_last & np.all(~follows | nan | steps, axis=1) & np.all(rows.known, axis=1)
    for k in np.flatnonzero(todo & ~fast):  # cpu: unsorted lists, a NaN before a number, unknown records
        lo_hi = itertools.pairwise(rows.bounds[k, :rows.lists[k] + 1])
        o = _merge_impl([_Recs(rows.recs[k, lo:hi], rows.known[k, lo:hi]) for lo, hi in lo_hi], d, plat,
                        int(cap[k]), bool(exhausted[k]))
        c = int(cap[k])
        res.recs[k, :c], res.defined[k, :c], res.written[k, :c] = o.recs, o.defined, o.written
        if o.executed is not None:
            res.executed[k] = o.executed
    f = np.flatnonzero(fast)
    if f.size:
        _merge_tails(res, f, rows.take(f), key[f], tail[f], bits[f], d, plat, cap[f], exhausted[f])
    return res


def _merge_tails(res: _Many, items: np.ndarray, rows: _Rows, key: np.ndarray, tail: np.ndarray, bits: np.ndarray,
                 d: DType, plat: str, cap: np.ndarray, exhausted: np.ndarray) -> None:
    """:func:`_merge_rows`'s vectorised merges into ``res[items]``: each list a sorted run of numbers, then its
    ``tail`` (cpu: its NaNs; npu: everything from its first NaN or unknown record on, which the unit never
    merges past)."""
    lid, bounds, pad = rows.lid, rows.bounds, rows.pad
    has = rows.lens > 0
    total = bounds[:, -1]
    big = np.iinfo(np.int64).max
    # the merge without the tails: numbers by key (stable: ties to the lower list), then the tails, the padding
    order = np.argsort(np.where(pad, big, np.where(tail, big - 1, key)), axis=1, kind="stable")
    rank = _inverse(order)
    num_rank = np.where(tail | pad, -1, rank)
    last_num = _per_list(num_rank, bounds, -1)  # (M, lists), -1: no number
    ends = np.maximum(bounds[:, 1:] - 1, 0)  # each list's last position (meaningful where ``has``)
    has_tail = np.take_along_axis(tail, ends, axis=1) & has
    tiny = ieee.is_zero_or_subnormal(bits, d) & ~pad
    live = rows.live
    at = np.arange(res.recs.shape[1])[None, :]
    in_cap = at < cap[:, None]
    if plat == "cpu":
        reach = np.maximum.accumulate(last_num, axis=1)  # list i's NaNs leave right after this number rank
        reach_at = np.take_along_axis(reach, np.minimum(lid, MAX_LISTS - 1), axis=1)
        order = np.argsort(np.where(tail, 2 * reach_at + 1, 2 * rank), axis=1, kind="stable")  # padding: last
        rank = _inverse(order)
        last_rank = np.where(live, np.take_along_axis(rank, ends, axis=1), big).min(axis=1)
        stop = np.where(~exhausted, total, np.where(rows.empty_list, np.minimum(1, total), last_rank + 1))
        merged = np.minimum(cap, stop)
        taken = rank < merged[:, None]  # records merged before the stop: consumed
        written = at < merged[:, None]
        _place(res, items, rows.recs, order, written, written)
        res.executed[items] = _per_list(taken.astype(np.int64), bounds, 0, np.add) & 0xFFFF
        return
    # npu: merges without tails follow the sorted plan, the others stop at the first head in a tail
    clean = tail.sum(axis=1) == 0
    amb = _tiny_ambiguous_rows(tiny & rows.known, bounds, bits)  # over whole lists, tails too (never NaN)
    tiny_ok = tiny & ~tail  # the near-zero numbers before the tails: the merge may reach them
    first_tiny = np.where(tiny_ok, rank, big).min(axis=1, initial=big)
    tiny_count = tiny_ok.sum(axis=1)
    last_rank = np.where(live, np.take_along_axis(rank, ends, axis=1), big).min(axis=1)
    stop_sorted = np.where(exhausted, last_rank + 1, total)  # exhausted: no list is empty here
    inf = np.int64(big)
    cut_tail = np.where(has_tail, last_num + 1, inf).min(axis=1)
    cut_tiny = np.where(amb, first_tiny, inf)
    cut = np.minimum(cut_tail, cut_tiny)
    stop_ex = np.where(exhausted, np.where(has_tail | ~live, inf, last_num + 1).min(axis=1), inf)
    limit = np.where(exhausted, total, np.minimum(cap, total))
    cut_hit = (cut < limit) & (cut < stop_ex)
    picks = np.where(cut_hit, cut, np.minimum(limit, stop_ex))
    loop_merged = np.where(cut_hit, np.where(exhausted, cap, np.minimum(cap, total)), np.minimum(picks, cap))
    loop_defined_to = np.minimum(picks, loop_merged)
    # sorted plan (NaN-free): defined up to min(cap, stop), minus the ambiguous near-zero run
    sorted_merged = np.minimum(cap, stop_sorted)
    defined = np.where(clean[:, None], at < sorted_merged[:, None], at < loop_defined_to[:, None])
    run = (at >= first_tiny[:, None]) & (at < (first_tiny + tiny_count)[:, None])
    ends_tiny = (np.take_along_axis(tiny, ends, axis=1) & has).any(axis=1)
    reached = stop_sorted > first_tiny
    # exhausted: a list ends inside a reached run, so the stop point itself is unknown
    whole = exhausted & clean & amb & reached & ends_tiny
    only_run = np.where(exhausted, clean & amb & reached & ~ends_tiny, clean & amb)
    defined &= ~((only_run[:, None] & run) | (whole[:, None] & (at >= first_tiny[:, None]))) & in_cap
    _place(res, items, rows.recs, order, defined, in_cap)
    upto = np.where(clean, stop_sorted, picks)  # the hardware stop point: records consumed
    counts = _per_list((rank < upto[:, None]).astype(np.int64), bounds, 0, np.add)  # consumed: merged before upto
    known = exhausted & np.where(clean, ~whole, ~cut_hit)
    res.executed[items[known]] = counts[known] & 0xFFFF


def _sorted_numbers(key: np.ndarray, numbers: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(M,) whether in each row every list's ``numbers`` (M, T) positions, whatever lies between them, hold
    non-decreasing ``key``s (``starts``: where each position's list starts)."""
    pos = np.arange(numbers.shape[1])
    last = np.maximum.accumulate(np.where(numbers, pos, -1), axis=1)  # the latest number at or before each position
    prev = np.full_like(last, -1)
    prev[:, 1:] = last[:, :-1]
    follows = numbers & (prev >= starts)  # a number with an earlier number in its list
    return np.all(~follows | (key >= np.take_along_axis(key, np.maximum(prev, 0), axis=1)), axis=1)


def _stopped(stopper: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(M, T) whether each position is at or after the first ``stopper`` of its list (``starts``: where each
    position's list starts)."""
    seen = np.cumsum(stopper, axis=1)
    return seen > np.take_along_axis(seen - stopper, starts, axis=1)


def _inverse(order: np.ndarray) -> np.ndarray:
    """Each position's rank in ``order`` (a permutation per row)."""
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(order.shape[1]), order.shape), axis=1)
    return rank


def _per_list(values: np.ndarray, bounds: np.ndarray, fill: int, reduce: np.ufunc = np.maximum) -> np.ndarray:
    """(M, MAX_LISTS): ``reduce`` of each row's ``values`` (M, T) over the positions of each list (``fill`` where a
    list has none); ``bounds`` (M, MAX_LISTS + 1) gives where each list starts (lists lie end to end, padding
    after). One ``reduceat`` over the flattened rows, each row cut at its list bounds (the padding its own
    segment, dropped)."""
    m_count, width = values.shape
    flat = np.append(values.ravel(), values.dtype.type(fill))  # a last row's bound may be M * T
    cuts = (np.arange(m_count)[:, None] * width + bounds).ravel()
    out = reduce.reduceat(flat, cuts).reshape(m_count, MAX_LISTS + 1)[:, :MAX_LISTS]
    out[bounds[:, 1:] == bounds[:, :-1]] = fill  # an empty segment's reduceat is the element at its start
    return out


def _place(res: _Many, items: np.ndarray, recs: np.ndarray, order: np.ndarray, defined: np.ndarray,
           written: np.ndarray) -> None:
    """Merged records (``recs`` in ``order``) into ``res[items]`` where ``defined``."""
    cap = defined.shape[1]
    width = min(cap, order.shape[1])
    out = np.zeros((len(items), cap), np.uint64)  # a record as one 8-byte element: a cheaper gather, same bytes
    out[:, :width] = np.take_along_axis(_as_records(recs), order[:, :width], axis=1)
    res.recs[items] = np.where(defined, out, 0).view(np.uint32).reshape(len(items), cap, 2)
    res.defined[items] = defined
    res.written[items] = written


def _as_records(recs: np.ndarray) -> np.ndarray:
    """Records (..., n, 2) uint32 as (..., n) uint64, each record's two words one element (a view when
    contiguous): for moving whole records, never for reading their values."""
    return np.ascontiguousarray(recs).view(np.uint64)[..., 0]


def _tiny_ambiguous_rows(tiny: np.ndarray, bounds: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """:func:`_tiny_ambiguous` per row of (merges, records) arrays, ``bounds`` where each row's lists start."""
    lists_with = (_per_list(tiny.astype(np.int64), bounds, 0) > 0).sum(axis=1)
    b64 = bits.astype(np.int64)
    lo = np.where(tiny, b64, np.iinfo(np.int64).max).min(axis=1, initial=np.iinfo(np.int64).max)
    hi = np.where(tiny, b64, -1).max(axis=1, initial=-1)
    return (lists_with >= 2) & (hi > lo)


def _tiny_ambiguous(tiny: np.ndarray, lid: np.ndarray, bits: np.ndarray) -> bool:
    """npu: near-zero records from >= 2 lists with >= 2 distinct bit patterns (their order is undocumented)."""
    if not tiny.any():
        return False
    lists, patterns = lid[tiny], bits[tiny]
    return bool((lists != lists[0]).any() and (patterns != patterns[0]).any())


def _tiny_ambiguous_groups(tiny: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """:func:`_tiny_ambiguous` per group for arrays of shape (groups, 4 lists, block)."""
    lists_with = tiny.any(axis=2).sum(axis=1) >= 2
    big = np.iinfo(np.int64).max
    b64 = bits.astype(np.int64)
    lo = np.where(tiny, b64, big).min(axis=(1, 2))
    hi = np.where(tiny, b64, -1).max(axis=(1, 2))
    return lists_with & (hi > lo)


def _desc_key(bits: np.ndarray, d: DType) -> np.ndarray:
    """int64 keys whose ascending order is descending value; +0 and -0 get the same key."""
    key = ieee.order_key(bits, d).astype(np.int64)
    key[ieee.is_zero(bits, d)] = d.sign_mask
    return -key


def _greedy_chunks(cols: int, block: int) -> list[int]:
    """The topk kernel's tail split of ``cols`` elements: block, block/4, ... >= 64, greedily."""
    chunks: list[int] = []
    rest = cols
    size = block
    while size >= TOPK_FIRST_BLOCK:
        count = rest // size
        chunks += [size] * count
        rest -= count * size
        size //= 4
    return chunks


def _counts(list_ids: np.ndarray) -> tuple[int, int, int, int]:
    c = np.bincount(list_ids, minlength=MAX_LISTS)[:MAX_LISTS]
    return tuple(int(x) & 0xFFFF for x in c)  # type: ignore[return-value]


def _result(recs: np.ndarray, defined: np.ndarray, executed) -> MergeResult:
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


# ---------------------------------------------------------------------------------------------------------
# the registry's view: a case and its input tiles


def tmrgsort(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """:func:`tmrgsort_model`; inside ``oracles.sort.shared_work`` the NPU platforms share one outcome, and a
    batch's outcomes come from one :func:`tmrgsort_many` call."""
    from ptofuzz.oracles import sort

    return sort.shared_outcome(case, inputs, model_name(platform), lambda: tmrgsort_model(case, inputs, platform))


def model_name(platform: str) -> str:
    """The TMRGSORT model ``platform`` runs: the NPUs share ``vmrgsort4``."""
    return "vmrgsort4" if _platform(platform) == "npu" else "tmrgsort-cpu"


def tmrgsort_model(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """pto-isa TMRGSORT for a registry case (tiles of uint32 record words): the multi-list form (param
    ``lists`` 2..4, ``exhausted``), the single-list form (``block`` records per block) or the test's topk
    kernel (``topk``). dst words past what the kernel writes are UNDEFINED; executed counts go to ``extra``.

    Inputs may carry a leading axis of ``N`` cases (tiles (N, 1, cols)): one outcome for all, outputs and classes
    stacked, ``extra["executed"]`` then an (N, 4) array of each case's counts (a row of -1 where it has none)."""
    dt = get(case.dtype)
    per = elements_per_record(dt)
    dst = case.tile("dst")
    keep = dst.valid_cols // 2
    lists = case.param("lists", 1)
    stacked = inputs["src0"].ndim == 3
    rows = {r: (v if stacked else v[None]) for r, v in inputs.items()}
    n_cases = rows["src0"].shape[0]
    if case.param("topk"):
        src = case.tile("src0")
        results = [topk(rows["src0"][k, 0, :src.valid_cols], dt, cols=src.valid_cols // 2 * per,
                        topk=keep * per, platform=platform) for k in range(n_cases)]
        words = np.stack([r.words for r in results]) if results else np.zeros((0, 2 * keep), np.uint32)
        word_classes = np.stack([r.classes for r in results]) if results else np.zeros((0, 2 * keep), np.uint8)
        executed = np.array([r.executed if r.executed is not None else (-1,) * MAX_LISTS for r in results],
                            np.int64).reshape(-1, MAX_LISTS)
        return _outcome(case, words, word_classes, executed, stacked)
    d, plat = _dtype(dt), _platform(platform)
    if lists == 1:
        w = _list_words(case, rows, 0).reshape(n_cases, -1, 2)
        recs, defined, written = _single_many(w, np.ones(w.shape[:2], bool), d, plat,
                                              case.param("block", 32) * per, keep)
        return _outcome(case, *_words_of(recs, defined & written), np.full((n_cases, MAX_LISTS), -1, np.int64),
                        stacked)
    if not 2 <= lists <= MAX_LISTS:
        raise ValueError(f"TMRGSORT merges 2..4 lists, not {lists}")
    srcs = [_list_words(case, rows, i).reshape(n_cases, -1, 2) for i in range(lists)]
    if stacked:
        many = _merge_many(srcs, [np.ones(s.shape[:2], bool) for s in srcs], d, plat, keep,
                           bool(case.param("exhausted")))
        return _outcome(case, *_words_of(many.recs, many.defined), many.executed, stacked)
    one = _merge_one([_Recs(s[0], np.ones(len(s[0]), bool)) for s in srcs], d, plat, keep,
                     bool(case.param("exhausted")))
    return _outcome(case, *_words_of(one.recs[None], one.defined[None]),
                    np.array([one.executed or (-1,) * MAX_LISTS], np.int64), stacked)


def tmrgsort_many(items: Sequence[tuple[Case, Mapping[str, np.ndarray]]]) -> list[Outcome]:
    """:func:`tmrgsort_model` of many cases (one case's tiles each), each on its own ``case.platform``: the same
    outcomes, the multi-list merges of a dtype and platform kind from one :func:`_merge_rows` call whatever their
    list lengths, so that a batch of small merges pays numpy's per-call cost once instead of once a case; the
    single-list forms of one geometry from one stacked call; the topk kernel case by case."""
    outcomes: list[Outcome | None] = [None] * len(items)
    groups: dict[tuple[str, str], list[int]] = {}
    singles: dict[tuple[Any, ...], list[int]] = {}  # by geometry (dtype, tiles, params) and platform kind
    for k, (case, inputs) in enumerate(items):
        lists = 0 if case.param("topk") else case.param("lists", 1)
        if lists == 1:  # one geometry's sources stacked
            singles.setdefault((case.dtype, case.tiles, case.params, _platform(case.platform)), []).append(k)
        elif 2 <= lists <= MAX_LISTS:
            groups.setdefault((case.dtype, _platform(case.platform)), []).append(k)
        else:  # the topk kernel, case by case (and what the model refuses, as it refuses it)
            outcomes[k] = tmrgsort_model(case, inputs, case.platform)
    pools: dict[tuple[str, str, tuple[int, ...]], list[tuple[list[int], _Single, np.ndarray, np.ndarray]]] = {}
    for (*_, plat), members in singles.items():
        case = items[members[0]][0]
        w = np.stack([_list_words(case, items[k][1], 0) for k in members]).reshape(len(members), -1, 2)
        d = _dtype(case.dtype)
        single = _Single.of(w, np.ones(w.shape[:2], bool), d, plat, case.param("block", 32) * elements_per_record(d),
                            case.tile("dst").valid_cols // 2)
        if single.groups is None:
            _single_outcomes(outcomes, items, members, single)
        else:  # the groups of every geometry with this block length: one merge
            pools.setdefault((case.dtype, plat, single.groups[0].shape[1:]), []).append(
                (members, single, *single.groups))
    for (dtype, plat, _), pool in pools.items():
        merged = _merge_groups(np.concatenate([g for _, _, g, _ in pool]), np.concatenate([g for *_, g in pool]),
                               _dtype(dtype), plat)
        at = 0
        for members, single, g, _ in pool:
            single.finish(*(part[at:at + len(g)] for part in merged))
            at += len(g)
            _single_outcomes(outcomes, items, members, single)
    for (dtype, plat), members in groups.items():
        cases = [items[k][0] for k in members]
        counts = [c.param("lists") for c in cases]
        lists = [[_list_words(c, items[k][1], i) for i in range(n)] for k, c, n in zip(members, cases, counts)]
        lens = np.zeros((len(members), MAX_LISTS), np.int64)
        for row, words in enumerate(lists):
            lens[row, :len(words)] = [w.size // 2 for w in words]
        flat = np.zeros((len(members), 2 * max(int(lens.sum(axis=1).max()), 1)), np.uint32)
        for row, (words, n) in enumerate(zip(lists, 2 * lens.sum(axis=1))):
            flat[row, :n] = np.concatenate(words)
        caps = np.array([c.tile("dst").valid_cols // 2 for c in cases], np.int64)
        rows = _Rows.of_lists(flat.reshape(len(members), -1, 2), np.ones((len(members), flat.shape[1] // 2), bool),
                              lens, np.array(counts))
        many = _merge_rows(rows, _dtype(dtype), plat, caps, np.array([bool(c.param("exhausted")) for c in cases]),
                           int(caps.max()))
        # past its cap a row's words are 0 and UNDEFINED, as _outcome pads a case's dst
        for k, outcome in zip(members, _outcomes(cases, *_words_of(many.recs, many.defined), many.executed)):
            outcomes[k] = outcome
    from ptofuzz.oracles.sort import filled

    return filled(outcomes)


def _single_outcomes(outcomes: list[Outcome | None], items: Sequence[tuple[Case, Mapping[str, np.ndarray]]],
                     members: list[int], single: _Single) -> None:
    """The outcomes of the single-list cases ``members`` (one geometry, rows of ``single``)."""
    words, classes = _words_of(single.recs, single.defined & single.written)
    none = np.full((len(members), MAX_LISTS), -1, np.int64)
    for k, outcome in zip(members, _outcomes([items[k][0] for k in members], words, classes, none)):
        outcomes[k] = outcome


def _words_of(recs: np.ndarray, defined: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Records (N, n, 2) and their defined mask (N, n) as dst words (N, 2n), 0 where undefined, and their
    classes."""
    words = np.where(defined[..., None], recs, 0).astype(np.uint32).reshape(len(recs), -1)
    return words, np.repeat(np.where(defined, EXACT, UNDEFINED).astype(np.uint8), 2, axis=1)


def _outcomes(cases: Sequence[Case], words: np.ndarray, word_classes: np.ndarray, executed: np.ndarray
              ) -> list[Outcome]:
    """``_outcome(cases[r], words[r:r + 1], word_classes[r:r + 1], executed[r:r + 1], False)`` for each row ``r``,
    their dst tiles rows of one buffer (numpy's per-call cost paid once for the batch)."""
    cols = [c.tile("dst").cols for c in cases]
    width = max(cols, default=0)
    n = min(words.shape[1], width)
    out = np.zeros((len(cases), 1, width), np.uint32)
    classes = np.full((len(cases), 1, width), UNDEFINED, np.uint8)
    out[:, 0, :n] = words[:, :n]
    classes[:, 0, :n] = word_classes[:, :n]
    counted = (executed[:, 0] >= 0).tolist()
    result = []
    for row, c in enumerate(cols):
        outcome = Outcome(OutcomeKind.OK, outputs={"dst": out[row, :, :c]}, classes={"dst": classes[row, :, :c]})
        if counted[row]:
            outcome.extra["executed"] = executed[row].tolist()
        result.append(outcome)
    return result


def _outcome(case: Case, words: np.ndarray, word_classes: np.ndarray, executed: np.ndarray, stacked: bool
             ) -> Outcome:
    """The registry outcome of ``N`` cases' dst words (N, w) and classes, executed counts (N, 4) (-1: none): dst
    tiles stacked, or one case's when not ``stacked``."""
    dst = case.tile("dst")
    n_cases = len(words)
    out = np.zeros((n_cases, 1, dst.cols), np.uint32)
    classes = np.full((n_cases, 1, dst.cols), UNDEFINED, np.uint8)
    n = min(words.shape[1], dst.cols)
    out[:, 0, :n] = words[:, :n]
    classes[:, 0, :n] = word_classes[:, :n]
    if not stacked:
        outcome = Outcome(OutcomeKind.OK, outputs={"dst": out[0]}, classes={"dst": classes[0]})
        if executed[0, 0] >= 0:
            outcome.extra["executed"] = [int(c) for c in executed[0]]
        return outcome
    outcome = Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})
    if (executed >= 0).any():
        outcome.extra["executed"] = executed  # (N, 4); a row of -1: no counts for that case
    return outcome
