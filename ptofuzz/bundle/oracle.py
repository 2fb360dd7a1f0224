"""The bundle executor as a fuzzing oracle (``fuzz --oracles spec,bundle``): a spec case is encoded as a PTO
bundle (:mod:`ptofuzz.generators.bundle`), executed, and its published tiles returned as an Outcome, so that
the differential engine compares the executor (decode, header and commit checks, allocation) with the direct
spec oracle on the same cases. It must agree with ``spec`` everywhere; a case with no bundle spelling (a
destination above 64 KiB, the contract header's BF16 TSORT) is "unsupported"."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz import dtypes
from ptofuzz.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind


def evaluate(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """One case, or a stack of cases (a leading batch axis): every item runs as its own bundle."""
    first = next(iter(inputs.values()))
    if first.ndim == 3:
        items = [_one(case, {r: v[i] for r, v in inputs.items()}) for i in range(first.shape[0])]
        head = items[0]
        if head.kind is not OutcomeKind.OK or any(o.kind != head.kind for o in items):
            return head if all(o.kind == head.kind for o in items) else Outcome.unsupported("mixed outcomes")
        flags = tuple(sorted({f for o in items for f in (o.flags or ())}))
        return Outcome(OutcomeKind.OK, outputs={r: np.stack([o.outputs[r] for o in items]) for r in head.outputs},
                       classes={r: np.stack([o.classes[r] for o in items]) for r in head.classes}, flags=flags)
    return _one(case, inputs)


def _one(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.bundle import encoding
    from ptofuzz.bundle import executor as ex
    from ptofuzz.generators import bundle as gb

    if case.param("contract"):
        return Outcome.unsupported("the contract header's BF16 TSORT has no bundle spelling")
    spec_case = case.on("spec")
    why = gb.spelling_problem(spec_case)  # a rule, so that a bug while building raises instead of "unsupported"
    if why is not None:
        return Outcome.unsupported(f"no bundle spelling: {why}")
    b = gb.bundle_for(spec_case, inputs)
    result = ex.execute(b.words, b.tiles, b.gprs, capacity=1 << 30)  # the direct oracle has no core budget
    if result.fault is not None:
        return Outcome.faulted(result.fault.name, result.fault.trap, result.fault.reason)
    block = result.blocks[0]
    if block.kind != "ok":
        return Outcome.unsupported(f"the bundle's block is {block.kind}: {block.reason}")
    outputs, classes = {}, {}
    for role in ("dst", "idx") if case.op == "TSORT" else ("dst",):
        t = case.tile("src" if case.op == "TSORT" else role)
        published = block.published.get(gb.DEST_SLOTS[role])
        if published is None:
            return Outcome.unsupported(f"nothing published in {encoding.tile_name(gb.DEST_SLOTS[role])}")
        dt = dtypes.get("uint32" if role == "idx" else case.dtype)
        out = np.zeros(t.shape, dtype=dt.bits_dtype)
        r, c = min(t.rows, published.rows), min(t.cols, published.cols)
        out[:r, :c] = published.data[:r, :c]
        cls = np.full(t.shape, UNDEFINED, dtype=np.uint8)
        cls[:published.valid_rows, :published.valid_cols] = EXACT
        outputs[role], classes[role] = out, cls
    return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes, flags=tuple(block.flags))
