"""ptofuzz's ``spec`` model against pto-spec's own ASL (the ``aslref`` oracle) on random cases, and planted
changes in the spec model that the comparison must catch.

The default run draws two small random cases of every instruction with a spec platform (every family) and runs
them all in one interpreter run; the planted changes (a legality rule dropped, integers saturating instead of
wrapping, a NaN winning max) each run a small campaign with and without the change. The full conformance job (500
cases and more per instruction) is ``ci/aslref_conformance.py``, nightly. Skipped when ASLRef and pto-spec.asl
are absent (set PTO_ASLREF and PTO_SPEC_ASL, or keep the snapshot beside the checkout)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ptofuzz.backends import aslref
from ptofuzz.backends.base import ASLREF, Backends
from ptofuzz.backends.model import ModelBackend
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, OutcomeKind
from ptofuzz.engine import campaign, differential
from ptofuzz.instructions import registry
from tests.backends.test_aslref import SETTINGS, needs_model

pytestmark = needs_model

#: disagreements the default draw shows, each explained in docs/reference/aslref.md (signature -> why)
EXPLAINED: dict[str, str] = {}


def _spec_ops() -> list[str]:
    return sorted(n for n, inst in registry.all_instructions().items() if "spec" in inst.platforms and inst.bundle)


def _small_cases(op: str, n: int, seed: int) -> list[tuple[registry.Instruction, object, dict[str, np.ndarray]]]:
    """The first ``n`` batches (one case each) of ``op``'s random spec cases whose tiles hold at most 64 elements
    (the draw gives up redrawing after 64 tries and keeps a larger tile: TCMPS's spec tiles are seldom that small;
    such batches are passed over)."""
    inst = registry.get(op)
    plan = campaign.make_plan(op, ["spec", "bundle"], seed=seed, batch=1, max_elements=64)
    out = []
    for k in range(8 * n):
        case, size = campaign.batch_geometry(inst, plan, k)
        if max(t.rows * t.cols for _, t in case.tiles) > 64:
            continue
        inputs = campaign.batch_inputs(inst, plan, k, case, size, 1)
        _, items = aslref._items(inst, case, inputs)
        out += [(inst, c, i) for c, i in items[:1]]
        if len(out) == n:
            break
    return out


@pytest.fixture(scope="module")
def every_instruction():
    """Two small random cases of every instruction with a spec platform: spec's and aslref's outcomes."""
    assert SETTINGS is not None
    cases = [c for op in _spec_ops() for c in _small_cases(op, 2, seed=7)]
    asl = aslref.evaluate_many([(case, inputs) for _, case, inputs in cases], SETTINGS)
    spec = ModelBackend("spec")
    return [(inst, case, inputs, {"spec": spec.evaluate(inst, case, inputs), ASLREF: a})
            for (inst, case, inputs), a in zip(cases, asl)]


def test_every_instruction_with_a_spec_platform_is_drawn_and_answered(every_instruction):
    ops = {inst.name for inst, *_ in every_instruction}
    assert ops == set(_spec_ops()) and len(ops) >= 60
    kinds = {outs[ASLREF].kind for *_, outs in every_instruction}
    assert kinds == {OutcomeKind.OK, OutcomeKind.FAULT}, kinds  # no crash, nothing unsupported


def test_spec_and_pto_specs_asl_agree_on_every_instruction_but_the_explained(every_instruction):
    shown = {}
    for inst, case, _, outs in every_instruction:
        for sig in differential.compare_batch(inst, case, outs, None).counts:
            shown.setdefault(sig.key, f"{case.dtype} {case.tiles}")
    assert set(shown) == set(EXPLAINED), shown


def test_judged_values_are_compared_bit_for_bit(every_instruction):
    """Where aslref judges the values (integers, max/min, compare, sorts, data movement), its outputs are exact
    elements, equal to spec's; where it does not (float add/mul, float conversions) it says so."""
    judged = unjudged = compared = 0
    for _, case, _, outs in every_instruction:
        a, s = outs[ASLREF], outs["spec"]
        if a.kind is not OutcomeKind.OK or s.kind is not OutcomeKind.OK:
            continue
        if aslref.not_judged(case):
            unjudged += 1
            assert ASLREF in a.extra and all((c == UNDEFINED).all() for c in a.classes.values())
            continue
        judged += 1
        for role, got in a.outputs.items():
            both = (a.classes[role] == EXACT) & (s.classes[role] == EXACT)
            compared += int(both.sum())
            assert np.array_equal(got[both], s.outputs[role][both]), (case, role)
    assert judged >= 60 and unjudged >= 5 and compared >= 1000, (judged, unjudged, compared)


# ---- planted changes -------------------------------------------------------------------------------------------

def _campaign(op: str, dtype: str, special: str | None = None, runs: int = 64, seed: int = 3) -> set[str]:
    """The signatures of a small spec-against-aslref campaign, in this process (so a planted change applies):
    64 geometries of one case each, one interpreter run."""
    assert SETTINGS is not None
    plan = campaign.make_plan(op, ["spec", ASLREF], seed=seed, batch=1, dtype=dtype, special=special, rate=0.3,
                              max_elements=64, aslref=SETTINGS)
    store, stats = campaign.run_random(plan, runs=runs)
    assert stats.cases == runs
    return set(store.findings)


def _plant(monkeypatch, module, name, make):
    monkeypatch.setattr(module, name, make(getattr(module, name)))


@pytest.mark.slow
def test_a_dropped_legality_rule_is_caught(monkeypatch):
    """Planted: spec's elementwise legality forgets that the sources' valid shapes must equal the destination's.
    aslref then faults where spec executes; without the plant the same campaign agrees."""
    from ptofuzz.oracles import elementwise

    before = _campaign("TSUB", "int16")
    assert not {k for k in before if "fault-vs-value" in k}, before

    def make(real):
        def lenient(case, sources=("src0", "src1")):
            if any(case.tile(r).valid != case.tile("dst").valid for r in sources):
                return None
            return real(case, sources)
        return lenient

    _plant(monkeypatch, elementwise, "spec_legality", make)
    after = _campaign("TSUB", "int16")
    assert any(k.startswith("TSUB/int/aslref~spec/fault-vs-value") for k in after), after


@pytest.mark.slow
def test_integers_that_saturate_instead_of_wrapping_are_caught(monkeypatch):
    """Planted: spec's integer add saturates. aslref (pto-spec wraps) disagrees on the values of TADD int8; without
    the plant the same campaign agrees."""
    from ptofuzz.oracles import integer

    assert not _campaign("TADD", "int8")

    def make(real):
        def saturating(op, a, b, dt):
            if op != "add":
                return real(op, a, b, dt)
            wide = integer.values(a, dt).astype(np.int64) + integer.values(b, dt).astype(np.int64)
            info = np.iinfo(dtypes.value_dtype(dt))
            return np.clip(wide, info.min, info.max).astype(dtypes.value_dtype(dt)).view(a.dtype)
        return saturating

    _plant(monkeypatch, integer, "add_mul", make)
    after = _campaign("TADD", "int8")
    assert any(k.startswith("TADD/int/aslref~spec/") and "value" in k for k in after), after


@pytest.mark.slow
def test_a_nan_that_wins_max_is_caught(monkeypatch):
    """Planted: spec's max/min lets a NaN operand win (pto-spec: a NaN loses to a number). aslref disagrees on
    TMAX float16 with quiet NaNs drawn; without the plant the same campaign agrees."""
    from ptofuzz.oracles import ieee

    assert not _campaign("TMAX", "float16", special="qnan")

    def make(real):
        def nan_wins(op, a, b, dt):
            res, cls = real(op, a, b, dt)
            nan = ieee.is_nan(a, dt) | ieee.is_nan(b, dt)
            return np.where(ieee.is_nan(a, dt), a, np.where(nan, b, res)), cls
        return nan_wins

    _plant(monkeypatch, ieee, "spec_max_min", make)
    after = _campaign("TMAX", "float16", special="qnan")
    assert any(k.startswith("TMAX/float/aslref~spec/") for k in after), after


def test_the_campaign_pools_batches_into_runs_of_the_oracles_pool(monkeypatch):
    """With aslref, batches run together until its pool (64 cases) is reached: TROWSUM (one case a batch) in 70
    cases is two interpreter runs, of 64 and 6 cases, not 70; a campaign of models alone pools nothing."""
    runs = []
    real = aslref.run_program

    def counted(source, settings):
        runs.append(len(re.findall(r"^func PtofuzzCase\d+\(\)", source, re.M)))
        return real(source, settings)

    monkeypatch.setattr(aslref, "run_program", counted)
    plan = campaign.make_plan("TROWSUM", ["spec", ASLREF], seed=1, dtype="int32", max_elements=32, aslref=SETTINGS)
    assert plan.backends.pool == 64 and Backends((ModelBackend("spec"),)).pool == 0
    store, stats = campaign.run_random(plan, runs=70)
    assert stats.cases == 70 and stats.batches == 70 and runs == [64, 6], runs
    assert not store.findings
