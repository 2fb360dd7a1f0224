"""TMRGSORT through the real simulator: the multi-list form (2-4 lists, ``exhausted``) and the single-list
form (blocks of ``block`` records), on cpu cases. The topk test kernel is a composition of several TMRGSORT
calls in pto-isa's test, not one instruction: unsupported here.

Record words go to the harness as the tile's elements (two float16 elements, or one float32, per word); the
destination words come back with the four executed counts (``extra["executed"]``, as the cpu model gives them
for ``exhausted`` merges). The destination valid region is what the simulator may write; past it is undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import stride_index, too_big
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.failures import outcome, stacked

LISTS = ("src0", "src1", "src2", "src3")


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    gap = sim.unavailable(case)
    if gap is not None:
        return gap
    if case.param("topk"):
        return Outcome.unsupported("cpusim runs one TMRGSORT; the topk kernel of pto-isa's test composes several")
    dt = dtypes.get(case.dtype)
    per_word = 4 // dt.itemsize  # tile elements in one uint32 record word
    lists = case.param("lists", 1)
    dst = case.tile("dst")
    roles = LISTS[:lists]
    valid_elems = [dst.valid_cols * per_word] + [case.tile(r).valid_cols * per_word for r in roles]
    ci = stride_index(1, max(1, *valid_elems))
    if ci is None:
        return too_big()
    cols = build.COLS[ci]
    arrays, batched = stacked(*(inputs[r] for r in roles))
    n = arrays[0].shape[0]
    bits = np.dtype(dt.bits_dtype)
    a = np.zeros((n, 4, cols), dtype=bits)
    for i, words in enumerate(arrays):
        elems = np.ascontiguousarray(words[:, 0, :], dtype=np.uint32).view(bits)[:, :cols]
        a[:, i, :elems.shape[1]] = elems
    block = case.param("block", 32) * 8 // dt.itemsize if lists == 1 else 0
    padded = valid_elems + [0] * (5 - len(valid_elems))
    valid = np.tile(np.array([*padded, block], dtype=np.int32), (n, 1))
    mode = lists + (8 if case.param("exhausted") else 0)
    raw = np.zeros((n, cols * dt.itemsize + 8), dtype=np.uint8)
    raw, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], ci, 4, valid, a,
                                         np.zeros((n, 0), np.uint8), mode, out=raw)
    words = raw[:, :cols * dt.itemsize].copy().view(np.uint32)
    out = np.zeros((n, 1, dst.cols), dtype=np.uint32)
    k = min(dst.cols, words.shape[1])
    out[:, 0, :k] = words[:, :k]
    counts = raw[:, cols * dt.itemsize:].copy().view(np.uint16)
    one = np.full((n, *dst.shape), UNDEFINED, dtype=np.uint8)  # per case: what TMrgSort.hpp wrote
    if lists > 1:  # one record per executed (consumed) record
        written = np.minimum(2 * counts.astype(np.int64).sum(axis=1), dst.valid_cols)
    else:  # whole groups of four blocks only
        group = 4 * block * dt.itemsize // 4  # words
        written = np.full(n, (valid_elems[0] * dt.itemsize // 4) // group * group if group else 0)
    one[np.arange(dst.cols)[None, None, :] < written[:, None, None]] = EXACT
    result = outcome("dst", out, one, failures, batched)
    if lists > 1 and result.kind is OutcomeKind.OK:  # the multi-list form always writes its executed counts
        result.extra["executed"] = counts[0].tolist() if not batched else counts.tolist()
    return result
