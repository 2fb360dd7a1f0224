"""Differential comparison: run one case (or a batch of cases of one geometry) through several oracles and
describe every disagreement by a :class:`Signature`.

Two outcomes are compared only where both oracles say something: "unsupported" on either side is never a
disagreement; a fault against a value is; two faults disagree when their trap numbers differ, or, for two pto-spec
models that say where a fault is raised, when the fault or that point differs; two values are compared
element by element on the elements both oracles define (EXACT bits, "some NaN", "some zero"). Each mismatching
element gets a mismatch class (NaN encoding, NaN vs number, signed zero, inf, a ULP band, integer value,
ordering) and the region of the tile it lies in; a case yields one signature per (oracle pair, mismatch class,
region) it shows.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.base import CPUSIM, CPUSIM_CLANG, SPEC_MODELS, TARGET, Backends
from ptofuzz.core.case import BOUNDED, NAN, UNDEFINED, ZERO, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType
from ptofuzz.core.signature import (
    FAILURE_KINDS,
    FAULT_KIND,
    FAULT_POINT,
    FAULT_VS_VALUE,
    INDEX,
    OP_REGION,
    ORDERING,
    SIGNATURE_KIND,
    Signature,
    dtype_class,
    pair_name,
)
from ptofuzz.engine.compare import ERROR_CLASSES, element_errors, ulp_distance
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee


def as_platforms(sig: Signature, backends: Backends) -> Signature:
    """``sig`` with each real target named by the platform whose code it runs (cpusim: cpu; an external target:
    its ``--target-platform``), so that the documented differences of that platform apply to it; unchanged when
    that would name one platform twice (cpu against cpusim is the model against the code it models)."""
    a, b = sig.oracles()
    if not b or not {CPUSIM, CPUSIM_CLANG, TARGET} & {a, b}:  # the bundle executor is compared as itself
        return sig
    named = {CPUSIM: "cpu", CPUSIM_CLANG: "cpu",
             TARGET: backends.case_space(TARGET) if backends.get(TARGET) else TARGET}
    ma, mb = named.get(a, a), named.get(b, b)
    return sig if ma == mb else dataclasses.replace(sig, pair=pair_name(ma, mb))


def known_difference(inst: registry.Instruction, sig: Signature, backends: Backends) -> str | None:
    """The documented difference that explains ``sig`` (see :func:`as_platforms`), or None. Two pto-spec models
    (``spec``, the bundle executor, pto-spec's own ASL through ``aslref``) have none between them: a platform's
    documented difference with pto-spec never excuses them disagreeing with each other."""
    a, b = sig.oracles()
    if inst.known_difference is None or {a, b} <= SPEC_MODELS:
        return None
    return inst.known_difference(as_platforms(sig, backends))


def run_oracles(inst: registry.Instruction, case: Case, inputs: Mapping[str, np.ndarray],
                backends: Backends) -> dict[str, Outcome]:
    """Each backend's outcome of the same tiles and inputs (``case`` re-targeted to each)."""
    return backends.evaluate(inst, case, inputs)


@dataclasses.dataclass
class Hits:
    """Per signature: how many of the batch's cases show it and the first (lowest index) that does."""

    counts: dict[Signature, int] = dataclasses.field(default_factory=dict)
    first: dict[Signature, int] = dataclasses.field(default_factory=dict)

    def add(self, sig: Signature, items: np.ndarray) -> None:
        if items.size:
            self.counts[sig] = self.counts.get(sig, 0) + int(items.size)
            self.first[sig] = min(self.first.get(sig, 1 << 62), int(items.min()))


def compare_batch(inst: registry.Instruction, case: Case, outcomes: Mapping[str, Outcome], size: int | None
                  ) -> Hits:
    """Signatures shown by a batch of ``size`` cases (outputs with a leading batch axis) or by one case
    (``size`` None, outputs without it)."""
    hits = Hits()
    n = 1 if size is None else size
    every = np.arange(n)
    dclass = dtype_class(case.dtype)
    geometry: list[str] = []  # computed on the first hit only: most cases show none

    def sig(pair: str, kind: str, region: str) -> Signature:
        if kind in (FAULT_VS_VALUE, FAULT_KIND, FAULT_POINT) and inst.fault_class is not None:
            return Signature(case.op, dclass, pair, kind, region, inst.fault_class(case))
        if not geometry:
            geometry.append(inst.geometry_class(case) if inst.geometry_class else "-")
        # an instruction's first region is its elementwise operation: the geometry is no part of the cause
        where = "-" if inst.regions is not None and region == OP_REGION else geometry[0]
        return Signature(case.op, dclass, pair, kind, region, where)

    failed: dict[str, np.ndarray] = {}  # per oracle, the batch items it gave no outcome for (crashed, hung)
    for o, out in outcomes.items():  # a real target that crashed or hung: a finding of that oracle alone
        if out.kind in FAILURE_KINDS:
            hits.add(Signature(case.op, dclass, o, out.kind, str(out.extra.get("cause", "-")), "-"), every)
        for f in out.extra.get("failures", ()):
            if f.kind in FAILURE_KINDS:
                hits.add(Signature(case.op, dclass, o, f.kind, f.cause, "-"), np.array([f.item]))
        if out.extra.get("failures"):
            failed[o] = np.array([f.item for f in out.extra["failures"]], dtype=np.int64)
    defined: dict[tuple[str, str], np.ndarray] = {}  # (oracle, role) -> elements it defines
    for a, b in itertools.combinations(sorted(outcomes), 2):
        oa, ob = outcomes[a], outcomes[b]
        if {"unsupported", *FAILURE_KINDS} & {oa.kind, ob.kind}:
            continue
        if oa.kind is OutcomeKind.FAULT or ob.kind is OutcomeKind.FAULT:
            if oa.kind != ob.kind:  # the items an oracle crashed or hung on have no value to set against a fault
                gone = [failed[o] for o in (a, b) if o in failed]
                hits.add(sig(pair_name(a, b), FAULT_VS_VALUE, "-"),
                         np.setdiff1d(every, np.concatenate(gone)) if gone else every)
            elif oa.fault and ob.fault and oa.fault.trap != ob.fault.trap:
                hits.add(sig(pair_name(a, b), FAULT_KIND, "-"), every)
            elif oa.fault and ob.fault and oa.fault.point and ob.fault.point and \
                    (oa.fault.name, oa.fault.point) != (ob.fault.name, ob.fault.point):
                # architecturally only the trap number shows (TileLegality, TileAllocation and BundleControl
                # are all trap 5, pto-spec asl/arch/memory-model/fault-precision.asl), but two pto-spec models
                # (the direct spec oracle, the bundle executor) both say which fault, and where: they must agree
                # on both
                hits.add(sig(pair_name(a, b), FAULT_POINT, "-"), every)
            continue
        for role in inst.outputs:
            x, y = oa.outputs[role], ob.outputs[role]
            differ = x != y
            if not differ.any():
                continue
            for o, out in ((a, oa), (b, ob)):
                if (o, role) not in defined:
                    defined[o, role] = out.classes[role] != UNDEFINED
            bad = differ & defined[a, role] & defined[b, role]
            for kind, region, items in _value_mismatches(inst, case, role, oa, ob, bad, size):
                hits.add(sig(pair_name(a, b), kind, region), items)
    return hits


def _value_mismatches(inst: registry.Instruction, case: Case, role: str, oa: Outcome, ob: Outcome,
                      bad: np.ndarray, size: int | None) -> list[tuple[str, str, np.ndarray]]:
    """(mismatch class, region, batch items showing it) for one output role of two value outcomes, given the
    elements both define whose bits differ (``bad``)."""
    x, y = oa.outputs[role], ob.outputs[role]
    kx, ky = oa.classes[role], ob.classes[role]
    if size is None:
        x, y, kx, ky, bad = x[None], y[None], kx[None], ky[None], bad[None]
    where = np.nonzero(bad)
    if not where[0].size:
        return []
    xs, ys, kxs, kys = x[where], y[where], kx[where], ky[where]
    dt = inst.dtype_of(case, role)
    # "some zero" / "some NaN" on either side matches any zero / NaN on the other
    zx, zy = (ieee.is_zero(xs, dt), ieee.is_zero(ys, dt)) if dt.is_float else (xs == 0, ys == 0)
    agree = ((kxs == ZERO) | (kys == ZERO)) & zx & zy
    if dt.is_float:
        agree |= ((kxs == NAN) | (kys == NAN)) & ieee.is_nan(xs, dt) & ieee.is_nan(ys, dt)
        agree |= _within_bounds(role, oa, ob, where, xs, ys, kxs, kys, dt, size)
    where = tuple(w[~agree] for w in where)
    if not where[0].size:
        return []
    xs, ys = xs[~agree], ys[~agree]
    codes = element_errors(xs, ys, dt).astype(np.int64)
    items = where[0]
    if inst.permutes and _same_values(x, y, kx, ky, np.unique(items)):
        perm_items = np.unique(items)
        return [(ORDERING, "-", perm_items)]
    region_names, region_codes = _regions(inst, case, role, where[1:])
    if role in inst.index_roles:
        return [(INDEX, region_names[int(r)], np.unique(items[region_codes == r])) for r in np.unique(region_codes)]
    out = []
    combined = codes * 64 + region_codes
    for value in np.unique(combined):
        sel = combined == value
        kind = ERROR_CLASSES[int(value) // 64]
        out.append((SIGNATURE_KIND.get(kind, kind), region_names[int(value) % 64], np.unique(items[sel])))
    return out


def _within_bounds(role: str, oa: Outcome, ob: Outcome, where: tuple[np.ndarray, ...], xs: np.ndarray,
                   ys: np.ndarray, kxs: np.ndarray, kys: np.ndarray, dt: DType, size: int | None) -> np.ndarray:
    """Which differing elements agree because a side's class is BOUNDED and the two finite values lie within its
    ULP bound (the larger, when both sides state one)."""
    bounded: np.ndarray = (kxs == BOUNDED) | (kys == BOUNDED)
    if not bounded.any():
        return bounded
    limit = np.zeros(xs.shape, dtype=np.int64)
    for out, k in ((oa, kxs), (ob, kys)):
        b = out.bounds.get(role)
        if b is not None:
            b = b if size is not None else b[None]
            limit = np.maximum(limit, np.where(k == BOUNDED, b[where], 0))
    finite = ~ieee.is_nan(xs, dt) & ~ieee.is_nan(ys, dt) & ~ieee.is_inf(xs, dt) & ~ieee.is_inf(ys, dt)
    within: np.ndarray = bounded & finite & (ulp_distance(xs, ys, dt) <= limit)
    return within


def _same_values(x: np.ndarray, y: np.ndarray, kx: np.ndarray, ky: np.ndarray, items: np.ndarray) -> bool:
    """Whether, for every listed item, both outputs hold the same multiset of defined elements (a reordering)."""
    for i in items:
        dx = np.sort(x[i][(kx[i] != UNDEFINED) & (ky[i] != UNDEFINED)])
        dy = np.sort(y[i][(kx[i] != UNDEFINED) & (ky[i] != UNDEFINED)])
        if not np.array_equal(dx, dy):
            return False
    return True


def _regions(inst: registry.Instruction, case: Case, role: str, index: tuple[np.ndarray, ...]
             ) -> tuple[tuple[str, ...], np.ndarray]:
    if inst.regions is None:
        return ("-",), np.zeros(index[0].size, dtype=np.int64)
    names, codes = inst.regions(case, role)
    return names, codes[index].astype(np.int64)


def signatures_of(inst: registry.Instruction, case: Case, inputs: Mapping[str, np.ndarray],
                  backends: Backends) -> tuple[dict[str, Outcome], list[Signature]]:
    """One case (no batch axis): every backend's outcome and the signatures they show, sorted."""
    outcomes = run_oracles(inst, case, inputs, backends)
    return outcomes, sorted(compare_batch(inst, case, outcomes, None).counts)
