"""The generation family's random cases and draws: legal on the platform they are drawn for, parameters at the
edges, TEXPANDS's batch evaluated as its cases one by one, spec's illegal cases illegal."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import OutcomeKind
from ptofuzz.generators import generation as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

OPS = ("TEXPANDS", "TCI", "TTRI")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("platform", ("spec", "cpu", "a2a3", "a5"))
def test_random_cases_are_legal_where_drawn(op, platform):
    inst = registry.get(op)
    src = seeded(1, op, platform)
    for _ in range(60):
        case = inst.random_case(src, platform, {})
        out = inst.evaluate(case, inst.draw_inputs(src, case, values.ValueMix()))
        assert out.kind is OutcomeKind.OK, (case, out.reason)


@pytest.mark.parametrize("op", OPS)
def test_spec_illegal_cases_fault(op):
    inst = registry.get(op)
    src = seeded(2, op)
    for _ in range(40):
        case = inst.illegal_case(src, {})
        assert inst.evaluate(case, inst.draw_inputs(src, case, values.ValueMix())).kind is OutcomeKind.FAULT, case


def test_parameters_reach_the_edges():
    src = seeded(4, "edges")
    int16 = dtypes.get("int16")
    starts = {gen.start_bits(src, int16) for _ in range(400)}
    assert 0x7FFF in starts and 0x8000 in starts  # INT16_MAX and INT16_MIN: sequences that leave the range
    diags = [gen.diagonal(src, 8, 16, spec=False) for _ in range(2000)]
    assert max(diags) == gen.INT_MAX and min(diags) == gen.INT_MIN and 65536 in diags
    assert any(-10 <= d <= 18 for d in diags)
    spec = [gen.diagonal(src, 8, 16, spec=True) for _ in range(2000)]
    assert max(abs(d) for d in spec) == 65535


@pytest.mark.parametrize("platform", ("spec", "cpu", "a5"))
def test_texpands_batch_equals_one_by_one(platform):
    inst = registry.get("TEXPANDS")
    src = seeded(5, platform)
    for _ in range(6):
        case = inst.random_case(src, platform, {})
        assert inst.draw_batch is not None
        batch = inst.draw_batch(src, case, values.ValueMix.parse("default", 0.5), 24)
        whole = inst.evaluate(case, batch)
        for i in range(24):
            one = inst.evaluate(case, {"scalar": batch["scalar"][i]})
            assert np.array_equal(whole.outputs["dst"][i], one.outputs["dst"][0] if one.outputs["dst"].ndim == 3
                                  else one.outputs["dst"])
            assert np.array_equal(whole.classes["dst"][i], one.classes["dst"])


def test_int32_scalars_for_a_float32_file_survive_it():
    """cpu's TEXPANDS test reads a float32: drawn int32 scalars are moved where a float32 holds them."""
    inst = registry.get("TEXPANDS")
    case = inst.random_case(seeded(6), "cpu", {"dtype": "int32"})
    s = inst.draw_batch(seeded(7), case, values.ValueMix.parse("default", 0.5), 500)["scalar"].view(np.int32)
    assert (s.astype(np.float32).astype(np.int64) == s).all()
    a5 = inst.random_case(seeded(6), "a5", {"dtype": "int32"})
    s5 = inst.draw_batch(seeded(7), a5, values.ValueMix.parse("default", 0.5), 500)["scalar"].view(np.int32)
    assert not (s5.astype(np.float32).astype(np.int64) == s5).all()  # a5 writes the element: any int32


# ---- TCI and TTRI batches: per-item starts and diagonals ---------------------------------------------------------

def _item(inst, case, batch, i):
    return inst.item(case, {r: v[i] for r, v in batch.items()})


@pytest.mark.parametrize("op", ("TCI", "TTRI"))
@pytest.mark.parametrize("platform", ("spec", "cpu", "a2a3", "a5"))
def test_tci_ttri_batch_equals_its_items_one_by_one(op, platform):
    """A batch varies the start (TCI) or the diagonal (TTRI) per item; its outcome is each item's own, the item
    evaluated alone as the plain case :meth:`item` makes of it (the parameter in the case, no such input)."""
    inst = registry.get(op)
    param = "start" if op == "TCI" else "diagonal"
    assert inst.batch_params == (param,)
    src = seeded(8, op, platform)
    varied = 0
    for _ in range(12):
        case = inst.random_case(src, platform, {})
        batch = inst.draw_batch(src, case, values.ValueMix(), 16)
        assert batch[param].shape == (16, 1, 1)
        varied += len(np.unique(batch[param])) > 1
        whole = inst.evaluate(case, batch)
        for i in range(16):
            item, inputs = _item(inst, case, batch, i)
            assert item.param(param) == int(batch[param][i, 0, 0]) and param not in inputs
            one = inst.evaluate(item, inputs)
            assert one.kind == whole.kind, (item, one.reason, whole.reason)
            if one.kind is OutcomeKind.OK:
                assert np.array_equal(whole.outputs["dst"][i], one.outputs["dst"]), item
                assert np.array_equal(whole.classes["dst"][i], one.classes["dst"]), item
            elif one.kind is OutcomeKind.FAULT:
                assert one.fault.name == whole.fault.name
    assert varied >= 8


def test_tci_a5_parameter_files_follow_each_item():
    """a5's begin_index.bin and reverse.bin (which its main.cpp never reads) hold each item's own start."""
    inst = registry.get("TCI")
    case = inst.random_case(seeded(9), "a5", {"dtype": "int16"})
    batch = inst.draw_batch(seeded(10), case, values.ValueMix(), 8)
    for i in range(8):
        item, inputs = _item(inst, case, batch, i)
        assert np.array_equal(inputs["begin_index"], inst.draw_inputs(seeded(0), item, values.ValueMix())
                              ["begin_index"])


def test_item_case_moves_only_the_named_parameters():
    from ptofuzz.core.case import Case, Tile, item_case, param_values

    case = Case("TTRI", "cpu", "int16", (("dst", Tile(4, 16, 4, 16)),), (("diagonal", 3), ("upper", 1)))
    assert param_values(case, {}, "diagonal").tolist() == [[3]]
    per_item = {"diagonal": np.array([[[-2]], [[7]]])}
    assert param_values(case, per_item, "diagonal").reshape(-1).tolist() == [-2, 7]
    item, rest = item_case(case, {"diagonal": np.array([[7]]), "x": np.zeros((1, 1))}, ("diagonal",))
    assert item.params == (("diagonal", 7), ("upper", 1)) and list(rest) == ["x"]
    same, rest = item_case(case, {"x": np.zeros((1, 1))}, ("diagonal",))
    assert same is case and list(rest) == ["x"]


@pytest.mark.parametrize("dtype", ("int32", "int16", "uint32", "uint16"))
def test_tci_batch_items_keep_the_case_s_wrap_class(dtype):
    """Every item's sequence wraps exactly when the case's does (so one geometry class and one signature for
    the batch), both classes are drawn, and the items differ."""
    inst = registry.get("TCI")
    src = seeded(11, dtype)
    seen = set()
    for _ in range(200):
        case = inst.random_case(src, "cpu", {"dtype": dtype})
        batch = inst.draw_batch(src, case, values.ValueMix(), 32)
        klass = inst.geometry_class(case)
        cols, desc = case.tile("dst").valid_cols, bool(case.param("descending"))
        wraps = gen.tci_wraps(batch["start"].reshape(-1), dtypes.get(dtype), cols, desc)
        assert batch["start"][0, 0, 0] == case.param("start")
        assert wraps.all() or not wraps.any(), case
        seen.add(bool(wraps[0]))
        assert {inst.geometry_class(_item(inst, case, batch, i)[0]) for i in range(32)} == {klass}
        if case.tile("dst").valid_cols >= 3:
            assert len(np.unique(batch["start"])) > 1, case
    assert seen == {True, False}


def test_ttri_batch_items_keep_the_case_s_class_and_regions():
    """A diagonal within pto-spec's bound stays within it, one past it stays past it, and no item brings a row
    to the end of ``int`` (the int-edge region) unless the case does, in which case there is no batch."""
    inst = registry.get("TTRI")
    src = seeded(12)
    seen = set()
    for _ in range(300):
        case = inst.random_case(src, "cpu", {})
        if gen.ttri_batch_limit(case) == 1:
            continue
        batch = inst.draw_batch(src, case, values.ValueMix(), 32)
        klass = inst.geometry_class(case)
        seen.add("far" in klass)
        names, codes = inst.regions(case, "dst")
        for i in range(32):
            item = _item(inst, case, batch, i)[0]
            assert inst.geometry_class(item) == klass, (case, item)
            assert np.array_equal(inst.regions(item, "dst")[1], codes), (case, item)
        assert len(np.unique(batch["diagonal"])) > 1
    assert seen == {True, False}


def test_ttri_batch_limit_both_sides_and_the_campaign_honours_it():
    """A diagonal whose last valid row reaches INT32_MAX is a batch of one, one short of it a batch of the far
    diagonals' kinds; within pto-spec's bound a batch has about one diagonal per row and column."""
    from ptofuzz.core.case import Case, Tile
    from ptofuzz.core.records import replace
    from ptofuzz.engine import campaign

    def at(d):
        return Case("TTRI", "cpu", "float32", (("dst", Tile(4, 16, 4, 16)),), (("diagonal", d), ("upper", 0)))

    edge, short, near = at(gen.INT_MAX - 3), at(gen.INT_MAX - 4), at(2)
    assert inst_regions_edge_rows(edge) == 1 and inst_regions_edge_rows(short) == 0
    assert [gen.ttri_batch_limit(c) for c in (edge, short, near)] == [1, gen.FAR_ITEMS, 4 + 16 + 2]
    inst = registry.get("TTRI")
    plan = campaign.make_plan("ttri", ["cpu", "a5"], seed=1)
    for case, want in ((edge, 1), (short, gen.FAR_ITEMS), (near, 22)):
        fixed = replace(inst, random_case=lambda s, p, c, _case=case: _case)
        assert campaign.draw_case(fixed, plan, seeded(1))[1] == want, case


def inst_regions_edge_rows(case):
    names, codes = registry.get("TTRI").regions(case, "dst")
    return int((codes == names.index("int-edge")).any(axis=1).sum())
