"""Every instruction's illegal spec cases (what ``fuzz --illegal-share`` draws): each faults in the spec model,
and the reductions draw each rule they declare."""

from __future__ import annotations

import pytest

from ptofuzz.backends.bundle import spelled
from ptofuzz.core.case import OutcomeKind
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

ILLEGAL = sorted(n for n, i in registry.all_instructions().items() if i.illegal_case is not None)
REDUCTIONS = ("TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN", "TROWSUM", "TCOLSUM", "TROWPROD", "TCOLPROD",
              "TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN")


def test_which_spec_instructions_draw_no_illegal_case():
    spec = {n for n, i in registry.all_instructions().items() if "spec" in i.platforms}
    assert spec - set(ILLEGAL) == {"TCVT"}


@pytest.mark.parametrize("op", ILLEGAL)
def test_an_illegal_case_faults_in_the_spec_model(op):
    inst = registry.get(op)
    assert inst.illegal_case is not None
    src = seeded(7, "illegal", op)
    for _ in range(24):
        case = inst.illegal_case(src, {})
        out = inst.evaluate(case, inst.draw_inputs(src, case, values.ValueMix()))
        assert case.platform == "spec" and out.kind is OutcomeKind.FAULT, (case, out.reason)
        assert out.fault is not None and out.fault.name == "Fault_TileLegality", (case, out.fault)


@pytest.mark.parametrize("op", REDUCTIONS)
def test_a_reduction_empties_its_source_and_stays_spelled(op):
    """Each illegal reduction is a legal spec case with its source emptied (no rows, or no columns: both drawn),
    the destination shaped from the source as a bundle derives it, so that the bundle form spells every one and
    pto-spec's ASL model can judge it."""
    inst = registry.get(op)
    assert inst.illegal_case is not None
    dst = "dst_idx" if "ARG" in op else "dst"
    row = op.startswith("TROW")
    seen = set()
    for k in range(40):
        illegal = inst.illegal_case(seeded(k, op), {})
        legal = inst.random_case(seeded(k, op), "spec", {})
        s, d, ls, ld = illegal.tile("src"), illegal.tile(dst), legal.tile("src"), legal.tile(dst)
        inputs = inst.draw_inputs(seeded(k, "in"), legal, values.ValueMix())
        assert inst.evaluate(legal, inputs).kind is OutcomeKind.OK
        assert (s.shape, d.shape) == (ls.shape, ld.shape) and 0 in s.valid
        seen.add("rows" if s.valid_rows == 0 else "cols")
        assert s.valid == ((0, ls.valid_cols) if s.valid_rows == 0 else (ls.valid_rows, 0))
        assert d.valid == ((s.valid_rows, 1) if row else (1, s.valid_cols))
        assert not isinstance(spelled(illegal, inst.draw_inputs(seeded(k, "in"), illegal, values.ValueMix())), str)
    assert seen == {"rows", "cols"}


@pytest.mark.parametrize("op, second", [("TCMP", "src1"), ("TCMPS", None), ("TSEL", "src1"), ("TSELS", "dst")])
def test_a_compare_or_select_breaks_one_rule_and_stays_spelled(op, second):
    """An illegal compare/select is a legal spec case with either its data tiles emptied (the predicate shaped
    from them) or its second data tile's valid region unlike src0's (TCMPS has none: emptied only); the bundle
    form spells every one."""
    from ptofuzz.oracles import cmpsel

    inst = registry.get(op)
    assert inst.illegal_case is not None
    pred = "dst" if op.startswith("TCMP") else "mask"
    seen = set()
    for k in range(60):
        illegal = inst.illegal_case(seeded(k, op), {})
        legal = inst.random_case(seeded(k, op), "spec", {})
        data, ldata = illegal.tile("src0"), legal.tile("src0")
        changed = {r for (r, t), (_, lt) in zip(illegal.tiles, legal.tiles) if t != lt}
        if 0 in data.valid:
            seen.add("empty")
            assert data.shape == ldata.shape and illegal.tile(pred) == cmpsel.spec_predicate(data)
        else:
            seen.add("valid")
            assert changed == {second} and illegal.tile(second).valid != ldata.valid
        assert not isinstance(spelled(illegal, inst.draw_inputs(seeded(k, "in"), illegal, values.ValueMix())), str)
    assert seen == ({"empty", "valid"} if second else {"empty"})
