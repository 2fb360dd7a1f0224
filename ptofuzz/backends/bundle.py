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
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind, Tile

if TYPE_CHECKING:
    from ptofuzz.generators.bundle import BundleCase
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


def spelled(case: Case, inputs: Mapping[str, np.ndarray]) -> BundleCase | str:
    """Spec ``case``'s bundle, or why it has none (decided by rules first, so that a bug while building raises
    instead of passing for "no spelling")."""
    from ptofuzz.generators import bundle as gb

    if case.param("contract"):
        return "the contract header's BF16 TSORT has no bundle spelling"
    spec_case = case.on("spec")
    why = gb.spelling_problem(spec_case)
    return f"no bundle spelling: {why}" if why is not None else gb.bundle_for(spec_case, inputs)


def destinations(case: Case) -> tuple[tuple[str, int, Tile], ...]:
    """(role, tile register, the role's tile) of each output a bundle publishes: TSORT's values and indices (at its
    source's shape), an arg reduction's indices (its one destination, in T), else ``dst``."""
    from ptofuzz.generators import bundle as gb

    tiles = dict(case.tiles)
    roles = ("dst", "idx") if case.op == "TSORT" else ("dst_idx",) if "dst_idx" in tiles else ("dst",)
    return tuple((role, gb.DEST_SLOTS.get(role, 0), tiles["src" if case.op == "TSORT" else role]) for role in roles)


def unwritten(case: Case, lead: tuple[int, ...] = ()) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The outputs of ``case`` no bundle writes (an arg reduction's value tile: it publishes the indices), as
    (outputs, classes): zeros, all undefined; with leading axes ``lead``."""
    tiles = dict(case.tiles)
    if not ("dst_idx" in tiles and "dst" in tiles):
        return {}, {}
    shape = (*lead, *tiles["dst"].shape)
    return ({"dst": np.zeros(shape, dtype=dtypes.get(case.dtype).bits_dtype)},
            {"dst": np.full(shape, UNDEFINED, dtype=np.uint8)})


def _one(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.bundle import encoding
    from ptofuzz.bundle import executor as ex

    b = spelled(case, inputs)
    if isinstance(b, str):
        return Outcome.unsupported(b)
    result = ex.execute(b.words, b.tiles, b.gprs, capacity=1 << 30)  # the direct oracle has no core budget
    if result.fault is not None:
        return Outcome(OutcomeKind.FAULT, fault=result.fault, reason=result.fault.reason)
    block = result.blocks[0]
    if block.kind != "ok":
        return Outcome.unsupported(f"the bundle's block is {block.kind}: {block.reason}")
    outputs, classes = unwritten(case, next((t.data.shape[:-2] for t in block.published.values()), ()))
    for role, slot, t in destinations(case):
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
