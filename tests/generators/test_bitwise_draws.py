"""Random bitwise cases and values: shift counts reach the width's edges and negative counts, every operand
(the scalar too) meets the integer extremes, a batch evaluates as its cases one by one, and ``gen`` redraws the
counts that leave golden elements undefined, and only those."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import UNDEFINED
from ptofuzz.engine import generate as generation
from ptofuzz.generators import bitwise as gen_counts
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import bitwise, registry

MIX = values.ValueMix(0.2)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint32", "int64"])
def test_counts_reach_the_width_edges_and_negative_counts(dtype):
    dt = dtypes.get(dtype)
    c = gen_counts.counts(seeded(1, dtype), dt, (4000,), 0.05)
    v = set(np.asarray(c).view(f"<i{dt.itemsize}" if dt.kind == "int" else c.dtype).tolist())
    w = dt.bits
    assert {0, w - 1, w, w + 1} <= v and any(x > 2 * w for x in v)
    assert ({-1, -w} <= v) == (dt.kind == "int") and (min(v) < 0) == (dt.kind == "int")
    ordinary = np.count_nonzero((np.array(sorted(v)) >= 0) & (np.array(sorted(v)) < w))
    assert ordinary == w  # every ordinary count too
    assert not gen_counts.counts(seeded(1), dt, (500,), 0.0).astype(np.uint64).max() >= w  # none special at rate 0


@pytest.mark.parametrize("op", ["TSHL", "TSHLS", "TAND", "TXORS"])
def test_every_operand_meets_the_integer_extremes(op):
    inst = registry.get(op)
    case = bitwise.explicit_case(op, {"spec": bitwise.oracles.SPEC_DTYPES}, "spec", {"dtype": "int16", "dst": (2, 64)})
    drawn = inst.draw_batch(seeded(3, op), case, values.ValueMix(), 300)
    a = set(drawn["src0"].view(np.int16).ravel().tolist())
    assert {-32768, -1, 32767} <= a
    second = set(drawn[bitwise.roles(op)[2]].view(np.int16).ravel().tolist())
    if bitwise.shift(op):
        assert {15, 16, -1} <= second
    else:
        assert {-32768, -1, 32767} <= second


@pytest.mark.parametrize("op", bitwise.NAMES)
@pytest.mark.parametrize("platform", ["spec", "cpu", "a5"])
def test_a_batch_evaluates_as_its_cases_one_by_one(op, platform):
    inst = registry.get(op)
    case = inst.explicit_case(platform, {"dtype": "int8", "dst": (3, 40)})
    drawn = inst.draw_batch(seeded(4, op), case, values.ValueMix(rate=0.3), 48)
    whole = inst.evaluate(case, drawn)
    for k in range(48):
        one = inst.evaluate(case, {r: v[k] for r, v in drawn.items()})
        assert np.array_equal(one.outputs["dst"], whole.outputs["dst"][k])
        assert np.array_equal(one.classes["dst"], whole.classes["dst"][k])


@pytest.mark.parametrize("op", ["TSHL", "TSHRS", "TOR"])
@pytest.mark.parametrize("platform", ["cpu", "a5"])
def test_gen_redraws_the_counts_that_leave_a_golden_open_and_nothing_else(op, platform):
    inst = registry.get(op)
    named = [(n, c) for n, c, _ in generation.plan(op, platform, seed=7, random=30)]
    redrawn = 0
    for name, case in named:
        raw, raw_out = generation.realize(inst, name, case, 7, MIX, defined=False)
        got, out = generation.realize(inst, name, case, 7, MIX)
        rows, cols = case.tile("dst").valid
        assert not (out.classes["dst"][:rows, :cols] == UNDEFINED).any(), name
        assert np.array_equal(raw["src0"], got["src0"])  # values are never touched, only counts
        if not (raw_out.classes["dst"][:rows, :cols] == UNDEFINED).any():
            assert all(np.array_equal(raw[r], got[r]) for r in raw), name
        else:
            redrawn += 1
    assert (redrawn > 2) == bitwise.shift(op)
