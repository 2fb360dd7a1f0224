"""Generation realizes cases in batches (shared element operations, batched redraws): a batch must give every
case exactly the inputs and outcome it gets alone, and a shared evaluation exactly what the plain oracle says."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from ptofuzz.core.case import UNDEFINED, Case, Outcome, Tile
from ptofuzz.engine import generate as generation
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

TPART = ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN")
MIX = values.ValueMix(0.2)  # many special values: many undefined elements to redraw on the NPUs


def _same(a: Outcome, b: Outcome) -> None:
    assert (a.kind, a.flags, a.reason) == (b.kind, b.flags, b.reason)
    assert a.outputs.keys() == b.outputs.keys()
    for role in a.outputs:
        np.testing.assert_array_equal(a.outputs[role], b.outputs[role])
        np.testing.assert_array_equal(a.classes[role], b.classes[role])


def _planned(op: str, platform: str, n: int, seed: int) -> list[tuple[str, object]]:
    return [(name, case) for name, case, _ in generation.plan(op, platform, seed=seed, random=n)]


@pytest.mark.parametrize("op", TPART)
@pytest.mark.parametrize("platform", registry.get("TPARTADD").platforms)  # the TPART* ops' platforms
def test_a_batch_realizes_each_case_as_it_is_realized_alone(op, platform):
    inst = registry.get(op)
    named = _planned(op, platform, 40, seed=11)
    together = generation.realize_many(inst, named, 11, MIX)
    redrawn = 0
    for (name, case), (inputs, outcome) in zip(named, together):
        alone_inputs, alone = generation.realize(inst, name, case, 11, MIX)
        assert inputs.keys() == alone_inputs.keys()
        for role in inputs:
            np.testing.assert_array_equal(inputs[role], alone_inputs[role], err_msg=f"{name} {role}")
        _same(outcome, alone)
        raw_inputs, _ = generation.realize(inst, name, case, 11, MIX, defined=False)
        redrawn += any(not np.array_equal(raw_inputs[r], inputs[r]) for r in inputs)
    if platform in ("a2a3", "a5") and op in ("TPARTADD", "TPARTMUL"):
        assert redrawn > 10  # the batch did redraw data (overflow, subnormals), so the comparison meant something


@pytest.mark.parametrize("op", TPART)
@pytest.mark.parametrize("platform", registry.get("TPARTADD").platforms)  # the TPART* ops' platforms
def test_a_shared_batch_evaluates_like_the_plain_oracle(op, platform):
    inst = registry.get(op)
    named = _planned(op, platform, 40, seed=12)
    raw = generation.realize_many(inst, named, 12, MIX, defined=False)
    batch = [(case, inputs) for (_, case), (inputs, _) in zip(named, raw)]
    with inst.shared(batch):
        shared = [inst.evaluate(case, inputs) for case, inputs in batch]
    for (case, inputs), outcome in zip(batch, shared):
        _same(outcome, inst.support(platform).oracle(case, inputs))


def test_redraw_leaves_only_geometry_undefined_elements_on_an_npu_add():
    """a5 TPARTADD with a source equal to dst: every undefined element comes from the data, so after the
    batched redraw none is left, while the raw draw had many."""
    inst = registry.get("TPARTADD")
    named = [(n, c) for n, c in _planned("TPARTADD", "a5", 30, seed=13) if c.dtype != "int64"
             and c.dtype != "uint64"]
    raw = generation.realize_many(inst, named, 13, MIX, defined=False)
    done = generation.realize_many(inst, named, 13, MIX)
    assert sum(int(np.count_nonzero(o.classes["dst"] == UNDEFINED)) for _, o in raw if o.kind == "ok") > 50
    assert sum(int(np.count_nonzero(o.classes["dst"] == UNDEFINED)) for _, o in done if o.kind == "ok") == 0


def _count_undefined(outcome: Outcome) -> int:
    return sum(int(np.count_nonzero(c == UNDEFINED)) for c in outcome.classes.values())


def _one_case_pipeline(inst, name, case, seed, mix):
    """Generation of one case written out step by step, without batches: draw from the case's own stream,
    evaluate with the plain oracle, then up to REDRAW_ROUNDS redraws, each kept only when it leaves fewer
    undefined elements, stopping at the first that does not (or that has nothing to offer)."""
    source = seeded(seed, name)
    inputs = inst.draw_inputs(source, case, mix)
    outcome = inst.evaluate(case, inputs)
    rounds = 0
    while outcome.kind == "ok" and rounds < generation.REDRAW_ROUNDS:
        proposal = inst.redraw([(source, case, inputs, outcome)])[0]
        if proposal is None:
            break
        new_inputs, patched = proposal
        new = patched if patched is not None else inst.evaluate(case, new_inputs)
        if _count_undefined(new) >= _count_undefined(outcome):
            break
        inputs, outcome, rounds = new_inputs, new, rounds + 1
    return inputs, outcome, rounds


@pytest.mark.parametrize("op,platform,special", [
    ("TPARTADD", "a5", None), ("TPARTMUL", "a2a3", None), ("TSORT32", "a5", "sort"), ("TSORT32", "cpu", "sort"),
    ("TMRGSORT", "a5", "nan"), ("TMRGSORT", "a2a3", "default"),
])
def test_generation_batches_match_the_one_case_pipeline(op, platform, special):
    """The generation path (batches of generation.REALIZE_BATCH, batched redraw rounds) gives every case the inputs
    and outcome of the one-case pipeline, over more cases than one batch holds."""
    inst = registry.get(op)
    mix = values.ValueMix.parse(special, 0.2)
    planned = generation.plan(op, platform, seed=21, random=generation.REALIZE_BATCH + 6)
    rounds = []
    for (name, case, _), (inputs, outcome) in generation._realized(inst, planned, 21, mix, True):
        want_inputs, want, n = _one_case_pipeline(inst, name, case, 21, mix)
        rounds.append(n)
        for role in want_inputs:
            np.testing.assert_array_equal(inputs[role], want_inputs[role], err_msg=f"{name} {role}")
        _same(outcome, want)
    assert sum(rounds) >= 3, rounds  # redraws happened, so the rounds' logic was exercised


@pytest.mark.parametrize("op", ("TSORT32", "TMRGSORT"))
@pytest.mark.parametrize("platform", ("cpu", "a2a3", "a5"))
def test_remembered_structural_masks_change_no_redraw(op, platform):
    """The sorts' redraw remembers, per geometry, which records plain data leaves undefined: the remembered mask
    must be the one a fresh evaluation gives, so a long run redraws exactly as a cold one."""
    from ptofuzz.instructions import sort_inputs as sort_inst

    inst = registry.get(op)
    named = _planned(op, platform, 120, seed=4)
    sort_inst._STRUCTURAL.clear()
    # the second run hits
    warm = generation.realize_many(inst, named, 4, MIX) + generation.realize_many(inst, named, 4, MIX)
    assert sort_inst._STRUCTURAL, "the redraw of special values should have asked for structural masks"
    for k, (name, case) in enumerate(named):
        sort_inst._STRUCTURAL.clear()
        cold_inputs, cold = generation.realize(inst, name, case, 4, MIX)
        for inputs, outcome in (warm[k], warm[k + len(named)]):
            assert inputs.keys() == cold_inputs.keys()
            for role in inputs:
                np.testing.assert_array_equal(inputs[role], cold_inputs[role])
            _same(outcome, cold)


@pytest.mark.parametrize("op", sorted(n for n, i in registry.all_instructions().items() if i.draw_many))
@pytest.mark.parametrize("special", ["default", "nan", "tie,equal"])
def test_draw_many_is_draw_inputs_case_by_case(op, special):
    """An instruction's batched drawing gives each case, on every platform, the inputs draw_inputs gives it
    alone from its own source (dtypes mixed in one batch)."""
    inst = registry.get(op)
    mix = values.ValueMix.parse(special, 0.2)
    compared = 0
    for platform in inst.platforms:
        geo = seeded(2, op, platform)
        cases = [inst.random_case(geo, platform, {}) for _ in range(12)]
        batched = inst.draw_each([(seeded(2, platform, str(k)), c) for k, c in enumerate(cases)], mix)
        for k, (case, got) in enumerate(zip(cases, batched)):
            alone = inst.draw_inputs(seeded(2, platform, str(k)), case, mix)
            assert got.keys() == alone.keys(), case
            for role in alone:
                assert got[role].dtype == alone[role].dtype and got[role].shape == alone[role].shape
                np.testing.assert_array_equal(got[role], alone[role], err_msg=f"{case} {role}")
                compared += 1
    assert compared >= 12


def test_a_case_keys_dictionaries_by_value_and_its_remembered_hash_stays_in_its_process():
    """A case hashes once (it keys every batch's dictionaries); a pickled case (fuzzing's worker processes) does
    not carry that hash along, since another process salts string hashes differently."""
    tiles = (("dst", Tile(1, 64, 1, 32)), ("src0", Tile(1, 64, 1, 64)))
    a = Case("TMRGSORT", "a5", "float32", tiles, (("lists", 1), ("block", 8)))
    b = Case("TMRGSORT", "a5", "float32", tiles, (("block", 8), ("lists", 1)))
    assert a == b and hash(a) == hash(b) == hash(("TMRGSORT", "a5", "float32", tiles, (("block", 8), ("lists", 1))))
    assert {a: 1}.get(a.on("a2a3")) is None and {a: 1}[a.on("a2a3").on("a5")] == 1
    blob = pickle.dumps(a)
    assert "_hash" not in vars(pickle.loads(blob)) and pickle.loads(blob) == a
    child = ("import pickle, sys\n"
             "from ptofuzz.core.case import Case, Tile\n"
             "tiles = (('dst', Tile(1, 64, 1, 32)), ('src0', Tile(1, 64, 1, 64)))\n"
             "here = {Case('TMRGSORT', 'a5', 'float32', tiles, (('lists', 1), ('block', 8))): 'found'}\n"
             "print(here.get(pickle.loads(sys.stdin.buffer.read())))")
    for salt in ("1", "2"):
        res = subprocess.run([sys.executable, "-c", child], input=blob, capture_output=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": salt})
        assert res.stdout.decode().strip() == "found"
