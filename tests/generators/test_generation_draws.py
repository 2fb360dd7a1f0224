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
