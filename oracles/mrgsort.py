"""pto-isa TMRGSORT platform oracles: merge pre-sorted lists of 8-byte sort records (pto-isa
``docs/isa/TMRGSORT.md``; the headers are named below).

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

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import ieee
from ptofuzz.oracles.mrgsort_many import _merge_groups, _merge_many, _merge_rows, _Rows, _Single, _single_many
from ptofuzz.oracles.mrgsort_records import (
    MAX_LISTS,
    NPU_BLOCK_MULTIPLE,
    NPU_MAX_REPEAT,
    RECORD_BYTES,
    RECORD_DTYPES,
    TOPK_FIRST_BLOCK,
    MergeResult,
    _count,
    _dtype,
    _List,
    _list_words,
    _Out,
    _platform,
    _Recs,
    _result,
    elements_per_record,
    join_records,
    split_records,
)
from ptofuzz.oracles.mrgsort_ref import _merge_impl
from ptofuzz.oracles.sort_memo import filled, shared_outcome

# the record stream's names are TMRGSORT's too
__all__ = ["MAX_LISTS", "NPU_BLOCK_MULTIPLE", "NPU_MAX_REPEAT", "RECORD_BYTES", "RECORD_DTYPES", "TOPK_FIRST_BLOCK",
           "MergeResult", "elements_per_record", "join_records", "merge", "model_name", "single", "split_records",
           "tmrgsort", "tmrgsort_many", "tmrgsort_model", "topk"]


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


def _single_impl(src: _Recs, d: DType, plat: str, block_len: int, cap: int) -> _Out:
    """Single-list form over ``src`` into a dst of ``cap`` records (``written`` marks the groups' records)."""
    recs, defined, written = _single_many(src.recs[None], src.known[None], d, plat, block_len, cap)
    return _Out(recs[0], defined[0], written[0], None)


def _merge_one(srcs: list[_Recs], d: DType, plat: str, cap: int, exhausted: bool) -> _Out:
    """:func:`_merge_impl`, through :func:`_merge_many` when a list holds a NaN or an unknown record (where
    :func:`_merge_impl` would simulate head by head)."""
    if all(s.known.all() and not ieee.is_nan(_List.value_bits(s.recs, d), d).any() for s in srcs):
        return _merge_impl(srcs, d, plat, cap, exhausted)  # its sorted plan is one argsort: cheaper for one merge
    res = _merge_many([s.recs[None] for s in srcs], [s.known[None] for s in srcs], d, plat, cap, exhausted)
    return _Out(res.recs[0], res.defined[0], res.written[0], res.counts(0))


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


def tmrgsort(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """:func:`tmrgsort_model`; inside ``oracles.sort_batch.shared_work`` the NPU platforms share one outcome, and a
    batch's outcomes come from one :func:`tmrgsort_many` call."""
    return shared_outcome(case, inputs, model_name(platform), lambda: tmrgsort_model(case, inputs, platform))


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
