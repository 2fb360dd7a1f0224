"""The bundle executor as a fuzzing oracle (``fuzz --oracles spec,bundle``): a spec case is encoded as a PTO
bundle (:mod:`ptofuzz.generators.bundle`), executed, and its published tiles returned as an Outcome, so that
the differential engine compares the executor (decode, header and commit checks, allocation) with the direct
spec oracle on the same cases. It must agree with ``spec`` everywhere; a case with no bundle spelling (a
destination above 64 KiB, the contract header's BF16 TSORT) is "unsupported". A batch of tile-scalar cases carries
its scalars as batched values of the one GPR that holds them (:func:`ptofuzz.generators.bundle.scalar_register`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from ptofuzz.backends.base import BUNDLE, Plain
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind

if TYPE_CHECKING:
    from ptofuzz.instructions.registry import Instruction


@dataclasses.dataclass(frozen=True)
class BundleBackend(Plain):
    """The bundle executor, on spec cases of the instructions that have a bundle spelling."""

    name: str = BUNDLE
    platform: str = "spec"

    def cannot_answer(self, inst: Instruction) -> str | None:
        if inst.bundle:
            return None
        from ptofuzz.instructions import registry

        with_bundles = ", ".join(n for n, i in registry.all_instructions().items() if i.bundle)
        return f"{inst.name} has no bundle model; --oracles spec,bundle works for {with_bundles}"

    def evaluate(self, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        return evaluate(case, inputs)



def evaluate(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """One case, or a stack of cases of one geometry (a leading batch axis): the bundle is built and executed
    once, its source tiles holding every case's data (the executor runs the data path stacked; nothing else it
    does reads tile contents), so the outcome is each case's own, outputs stacked, flags those any case raises."""
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
        return Outcome(OutcomeKind.FAULT, fault=result.fault, reason=result.fault.reason)
    block = result.blocks[0]
    if block.kind != "ok":
        return Outcome.unsupported(f"the bundle's block is {block.kind}: {block.reason}")
    outputs, classes = {}, {}
    if "ARG" in case.op and case.op in ex.CLOSED:  # the arg reductions publish the indices; no value output
        t = case.tile("dst")
        shape = (*next(iter(block.published.values())).data.shape[:-2], *t.shape)
        outputs["dst"] = np.zeros(shape, dtype=dtypes.get(case.dtype).bits_dtype)
        classes["dst"] = np.full(shape, UNDEFINED, dtype=np.uint8)
    for role in ("dst", "idx") if case.op == "TSORT" else ("dst_idx",) if "dst_idx" in dict(case.tiles) else ("dst",):
        t = case.tile("src" if case.op == "TSORT" else role)
        slot = gb.DEST_SLOTS.get(role, 0)  # an arg reduction's indices: the one destination, in T
        published = block.published.get(slot)
        if published is None:
            return Outcome.unsupported(f"nothing published in {encoding.tile_name(slot)}")
        dt = dtypes.get(published.dtype)  # TSORT's indices uint32, a TCMP's predicate bytes
        lead = published.data.shape[:-2]
        out = np.zeros((*lead, *t.shape), dtype=dt.bits_dtype)
        r, c = min(t.rows, published.rows), min(t.cols, published.cols)
        out[..., :r, :c] = published.data[..., :r, :c]
        cls = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
        given = block.classes.get(slot)  # the oracle's open elements (TCVT)
        if given is not None:
            cls[..., :r, :c] = given[..., :r, :c]
        else:
            cls[..., :published.valid_rows, :published.valid_cols] = EXACT
        outputs[role], classes[role] = out, cls
    return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes, flags=tuple(block.flags))
