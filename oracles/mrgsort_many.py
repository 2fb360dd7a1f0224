"""The vectorised TMRGSORT engine: many merges at once, one per row, whatever their geometries.

When every list is sorted and NaN-free a merge is a stable sort by (value descending, list, position); lists
with NaNs or unknown records at their ends are merged the same way with the NaN rules applied to the ranks.
:func:`_merge_rows` is the engine; :func:`_merge_many` its one-geometry case and :func:`_single_many` the
single-list form. It must equal the reference merge (:mod:`ptofuzz.oracles.mrgsort_ref`) on every row.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ptofuzz.core.dtypes import DType
from ptofuzz.core.records import record
from ptofuzz.oracles import ieee
from ptofuzz.oracles.mrgsort_records import (
    MAX_LISTS,
    NPU_BLOCK_MULTIPLE,
    NPU_MAX_REPEAT,
    RECORD_BYTES,
    _desc_key,
    _Recs,
)
from ptofuzz.oracles.mrgsort_ref import _merge_impl


def _single_many(recs: np.ndarray, known: np.ndarray, d: DType, plat: str, block_len: int, cap: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The single-list form over ``N`` sources at once (``recs`` (N, n, 2), ``known`` (N, n)): each one's
    (records, defined, written), each of shape (N, cap, ...). The geometry is shared, so the group count is;
    the groups of all sources are merged together (a group's merge depends on its own records only)."""
    single = _Single.of(recs, known, d, plat, block_len, cap)
    if single.groups is not None:
        single.finish(*_merge_groups(*single.groups, d, plat))
    return single.recs, single.defined, single.written


@record
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


@record
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


@record
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


def _tiny_ambiguous_groups(tiny: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """:func:`_tiny_ambiguous` per group for arrays of shape (groups, 4 lists, block)."""
    lists_with = tiny.any(axis=2).sum(axis=1) >= 2
    big = np.iinfo(np.int64).max
    b64 = bits.astype(np.int64)
    lo = np.where(tiny, b64, big).min(axis=(1, 2))
    hi = np.where(tiny, b64, -1).max(axis=(1, 2))
    return lists_with & (hi > lo)
