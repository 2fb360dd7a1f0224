"""TMRGSORT's record inputs: lists of 8-byte sort records, sorted in runs as pto-isa's tests and kernels expect,
and the redraw that replaces the values (NaN, zeros, subnormals) that leave an NPU merge undefined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes
from ptofuzz.core.case import UNDEFINED, Case, Outcome
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions.sort_inputs import _structural_many, plain_stream
from ptofuzz.oracles import sort as oracles
from ptofuzz.oracles.sort_memo import filled

if TYPE_CHECKING:
    from ptofuzz.instructions.registry import Redrawn


def _mrg_redraw_many(items: list[tuple[Source, Case, dict[str, np.ndarray], Outcome]]) -> list[Redrawn]:
    """For each pto-isa TMRGSORT case: NaNs, zeros and subnormals in the lists replaced by plain values (each run
    re-sorted), when the merge left records undefined that plain data would define (the NPUs' undocumented NaN
    and near-zero orders). The geometry's masks of a batch are evaluated together; each case draws from its own
    source. pto-spec defines every merged element: its cases are kept, and so are cases whose lists hold none of
    those values (replacing nothing, the redraw would give the same inputs back)."""
    pending = []
    for k, (_, case, _, outcome) in enumerate(items):
        undefined = outcome.classes["dst"] == UNDEFINED
        if not _is_spec_mrg(case) and undefined.any():
            pending.append((k, undefined))
    pending = [p for p, odd in zip(pending, _mrg_has_odd([items[k][1:3] for k, _ in pending])) if odd]
    masks = _structural_many([(items[k][1], items[k][2]) for k, _ in pending], _mrg_structural_key, _mrg_plain)
    redrawn = [k for (k, undefined), structural in zip(pending, masks) if (undefined & ~structural).any()]
    out: list[Redrawn] = [None] * len(items)
    for k, new in zip(redrawn, _mrg_plain_values([items[k][:3] for k in redrawn])):
        out[k] = new, None
    return out


def _mrg_sources(case: Case) -> tuple[str, ...]:
    return tuple(r for r, _ in case.tiles if r != "dst")


def _mrg_odd(values_bits: np.ndarray, dt: dtypes.DType) -> np.ndarray:
    """The NaNs, zeros and subnormals: the values whose merge order the NPUs leave undocumented."""
    from ptofuzz.oracles import ieee

    return ieee.is_nan(values_bits, dt) | ieee.is_zero_or_subnormal(values_bits, dt)


def _mrg_has_odd(items: Sequence[tuple[Case, dict[str, np.ndarray]]]) -> list[bool]:
    """Whether each case's lists hold an odd value (:func:`_mrg_odd`); a dtype's lists looked at together."""
    from ptofuzz.oracles import mrgsort

    out = [False] * len(items)
    by_dtype: dict[str, list[int]] = {}
    for j, (case, _) in enumerate(items):
        by_dtype.setdefault(case.dtype, []).append(j)
    for dtype, members in by_dtype.items():
        rows = [[items[j][1][role][0] for role in _mrg_sources(items[j][0])] for j in members]
        words = np.concatenate([w for row in rows for w in row])  # whole records: value words at even positions
        odd = np.zeros(words.size // 2 + 1, np.int64)
        np.cumsum(_mrg_odd(mrgsort.split_records(words, dtype)[0], dtypes.get(dtype)), out=odd[1:])
        ends = np.cumsum([sum(w.size for w in row) // 2 for row in rows])
        for j, count in zip(members, np.diff(odd[np.concatenate([[0], ends])]).tolist()):
            out[j] = count > 0
    return out


def _mrg_plain_values(items: list[tuple[Source, Case, dict[str, np.ndarray]]]) -> list[dict[str, np.ndarray]]:
    """Each case's ``inputs`` with the lists' odd values (:func:`_mrg_odd`) replaced by plain values drawn from its
    source, each run re-sorted (all the lists' runs in one sort)."""
    from ptofuzz.oracles import mrgsort

    split: dict[str, list[tuple[int, str, np.ndarray, np.ndarray]]] = {}  # by dtype: each list's values, indices
    for j, (_, case, inputs) in enumerate(items):
        dt = dtypes.get(case.dtype)
        for role in _mrg_sources(case):
            vals, idx = mrgsort.split_records(inputs[role][0], dt)  # fresh arrays: changed in place below
            split.setdefault(case.dtype, []).append((j, role, vals.astype(dt.bits_dtype, copy=False), idx))
    lists = []
    for dtype, entries in split.items():
        dt = dtypes.get(dtype)
        odd_all = _mrg_odd(np.concatenate([vals for _, _, vals, _ in entries]), dt)
        sizes = [vals.size for _, _, vals, _ in entries]
        for (j, role, vals, idx), odd in zip(entries, np.split(odd_all, np.cumsum(sizes)[:-1])):
            count = int(np.count_nonzero(odd))
            if count:  # each case's plain values from its own source, list by list
                vals[odd] = values.plain(items[j][0], dt, count)
            lists.append((j, role, items[j][1], vals, idx))
    out = [dict(inputs) for _, _, inputs in items]
    _fill_records(out, lists)
    return out


def _fill_records(out: list[dict[str, np.ndarray]], lists: Sequence[tuple[int, str, Case, np.ndarray, np.ndarray]]
                  ) -> None:
    """``out[j][role]`` = the record row of each list (j, role, case, value bits, indices): :func:`_record_rows`."""
    for (j, role, *_), row in zip(lists, _record_rows([(c, v, i) for _, _, c, v, i in lists])):
        out[j][role] = row


def _record_rows(lists: Sequence[tuple[Case, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """The record row (1, 2k) of each (case, value bits (k,), indices (k,)): the values sorted descending
    (numbers, then NaNs) within each run of the case's run length, joined with the indices, 16-bit pad bytes
    zero. The lists of a dtype are sorted together, each run its own segment of one sort."""
    from ptofuzz.oracles import mrgsort

    out: list[np.ndarray | None] = [None] * len(lists)
    by_dtype: dict[str, list[int]] = {}
    for j, (case, _, _) in enumerate(lists):
        by_dtype.setdefault(case.dtype, []).append(j)
    for dtype, members in by_dtype.items():
        dt = dtypes.get(dtype)
        sizes = np.array([lists[j][1].size for j in members], np.int64)
        runs = np.array([_run_records(lists[j][0], lists[j][1].size) for j in members], np.int64)
        starts = np.cumsum(sizes) - sizes
        # each list one row of runs (a partial last one included), numbered on from list to list
        seg = oracles.batch_block_ids(sizes, np.maximum(sizes, 1), runs)
        vals = np.concatenate([lists[j][1] for j in members]).astype(dt.bits_dtype)
        words = mrgsort.join_records(vals[oracles.segment_order(vals, seg, dt, descending=True)],
                                     np.concatenate([lists[j][2] for j in members]), dt)
        for j, lo, k in zip(members, starts, sizes):
            out[j] = words[None, 2 * lo:2 * (lo + k)]
    return filled(out)


def _run_records(case: Case, n: int) -> int:
    """The records a TMRGSORT list of ``n`` records is sorted in runs of: the whole list of a multi-list merge,
    ``block`` records for the single-list form, 32 for the topk kernel."""
    return max(1, n if case.param("lists", 1) > 1 else (case.param("block") or TOPK_RUN_RECORDS))


def _sorted_runs(vals: np.ndarray, case: Case, dt: Any) -> np.ndarray:
    """``vals`` (..., n) sorted descending (numbers, then NaNs) within each run of the case's run length."""
    n = vals.shape[-1]
    return oracles.group_sort(vals, n, _run_records(case, n), dt, descending=True)[0]


def _mrg_structural_key(case: Case, inputs: dict[str, np.ndarray]) -> tuple[Any, ...]:
    """What a merge's structural mask depends on: the case alone (a record's class follows from the values and
    the geometry; the indices it carries decide none)."""
    return ("mrgsort", case)


def _mrg_plain(items: list[tuple[Case, dict[str, np.ndarray]]]) -> list[dict[str, np.ndarray]]:
    """Plain, distinct, sorted lists of each case's lengths, with the indices the generator gives (0.. over the
    lists in order)."""
    lists = []
    for j, (case, _) in enumerate(items):
        dt = dtypes.get(case.dtype)
        base = 0
        for role in _mrg_sources(case):
            n = case.tile(role).cols // 2
            lists.append((j, role, case, plain_stream(dt, n), np.arange(base, base + n, dtype=np.uint32)))
            base += n
    out: list[dict[str, np.ndarray]] = [{} for _ in items]
    _fill_records(out, lists)
    return out


TOPK_RUN_RECORDS = 32  # pto-isa's topk inputs are pre-sorted in runs of 32 records


def _is_spec_mrg(case: Case) -> bool:
    return case.param("descending") is not None
