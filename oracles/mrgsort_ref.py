"""The reference TMRGSORT merge: one merge simulated head by head, as the platforms' documents describe it
(the rules are in :mod:`ptofuzz.oracles.mrgsort`). Slow and plain; the vectorised engine
(:mod:`ptofuzz.oracles.mrgsort_many`) must agree with it, and falls back to it where it cannot decide.
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core.dtypes import DType
from ptofuzz.oracles.mrgsort_records import MAX_LISTS, _counts, _List, _Out, _Recs, _tiny_ambiguous


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


Executed = tuple[int, int, int, int] | None


def _plan_sorted(lists: list[_List], lens: list[int], plat: str, cap: int, exhausted: bool
                 ) -> tuple[np.ndarray, np.ndarray, Executed]:
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


def _plan_loop(lists: list[_List], lens: list[int], plat: str, cap: int, exhausted: bool
               ) -> tuple[np.ndarray, np.ndarray, Executed, bool]:
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
        c = [n & 0xFFFF for n in list(consumed) + [0] * (MAX_LISTS - nl)]
        executed = (c[0], c[1], c[2], c[3])
    return gidx, defined, executed, undetermined
