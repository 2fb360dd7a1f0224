"""Random tile-scalar cases and values (TADDS .. TLRELU): legal on their platform, reaching every declared edge
(empty regions by rows and by columns, sources read at another stride), every special-value kind on the tile and
on the scalar, scalars a float32 file can carry where the platform's test carries them so, and batches that
evaluate as their items one by one."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import Tile
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.instructions import tilescalar as ts
from ptofuzz.oracles import carrier, ieee

OPS = ts.NAMES
F32 = dtypes.get("float32")


def _cases(op: str, platform: str, n: int, **constraints):
    inst = registry.get(op)
    src = seeded(29, op, platform)
    return inst, [inst.random_case(src, platform, constraints) for _ in range(n)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("platform", ["spec", "cpu", "a2a3", "a5", "kirin9030", "kirinDev0000"])
def test_random_cases_are_legal_on_their_platform(op, platform):
    """Supported dtypes, a 1x1 scalar, dst and src0 sharing the valid region: every case evaluates (spec: never
    a fault, pto-spec's descriptor rules hold); TLRELU has no spec model."""
    inst = registry.get(op)
    if platform not in inst.platforms:
        assert platform == "spec" and op == "TLRELU"
        return
    _, cases = _cases(op, platform, 120)
    sup = inst.support(platform)
    for case in cases:
        assert case.dtype in sup.dtypes and case.tile("scalar") == Tile(1, 1, 1, 1)
        assert case.tile("dst").valid == case.tile("src0").valid
        inputs = inst.draw_inputs(seeded(1, str(case)), case, values.ValueMix())
        assert inst.evaluate(case, inputs).kind == "ok", case


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5", "kirin9030"])
def test_random_geometries_reach_the_edges(platform):
    """Zero rows, zero columns, 1x1, a partly filled destination and (NPUs) a source wider than dst."""
    _, cases = _cases("TADDS", platform, 800)
    valids = [c.tile("dst").valid for c in cases]
    assert any(v[0] == 0 and v[1] > 0 for v in valids), "zero rows"
    assert any(v[1] == 0 and v[0] > 0 for v in valids), "zero columns"
    assert (1, 1) in valids
    assert any(c.tile("dst").valid != c.tile("dst").shape for c in cases), "a partly filled destination"
    if platform != "cpu":
        assert any(c.tile("src0").cols > c.tile("dst").cols for c in cases), "a source read at another stride"
    spec_cases = _cases("TADDS", "spec", 300)[1]
    assert all(0 not in c.tile("dst").valid for c in spec_cases)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_every_special_kind_reaches_the_scalar_and_the_tile(dtype):
    """A fuzzing batch of 400 cases: among the scalars (and among the tile's elements) each kind of the default
    mix: sNaN and qNaN with payloads beyond the canonical one, both zeros, both infinities, subnormals, and the
    extremes (largest finite, smallest normal)."""
    dt = dtypes.get(dtype)
    inst = registry.get("TMAXS")
    case = ts.explicit_case("TMAXS", "spec", {"dtype": dtype, "dst": (4, 64)})
    drawn = inst.draw_batch(seeded(5, dtype), case, values.ValueMix(), 400)
    for role in ("scalar", "src0"):
        bits = drawn[role].ravel()
        nan = ieee.is_nan(bits, dt)
        assert (nan & ieee.is_snan(bits, dt)).any() and (nan & ~ieee.is_snan(bits, dt)).any(), role
        assert (nan & (bits != dt.canonical_nan) & ~ieee.is_snan(bits, dt)).any(), role  # a quiet payload
        assert {0, dt.sign_mask} <= set(bits.tolist()), role
        assert {dt.exp_mask, dt.exp_mask | dt.sign_mask} <= set(bits.tolist()), role
        assert ieee.is_subnormal(bits, dt).any() and (bits == dt.exp_mask - 1).any(), role
    assert (ieee.is_nan(drawn["scalar"], dt) | ieee.is_inf(drawn["scalar"], dt)).mean() > 0.05


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint32"])
def test_integer_extremes_reach_the_scalar(dtype):
    dt = dtypes.get(dtype)
    case = ts.explicit_case("TADDS", "spec", {"dtype": dtype, "dst": (4, 64)})
    scalars = set(registry.get("TADDS").draw_batch(seeded(6), case, values.ValueMix(), 400)["scalar"].ravel().tolist())
    for v in (0, 1, dt.int_max, dt.int_min):
        assert v & ((1 << dt.bits) - 1) in scalars, v


def test_scalars_drawn_for_a_float32_carried_test_survive_its_file():
    """a5's TADDS carries the scalar as a float32: every int32/uint32 scalar drawn for it is one float32 holds
    (INT32_MAX becomes 2**31 - 128); a5's TMAXS carries the element, so its scalars keep every bit, and so do
    spec's; a5's 64-bit TADDS cases carry the element too."""
    for op, platform, carried in (("TADDS", "a5", True), ("TSUBS", "kirin9030", True), ("TMAXS", "a5", False),
                                  ("TADDS", "spec", False)):
        inst = registry.get(op)
        for dtype in ("int32", "uint32"):
            dt = dtypes.get(dtype)
            case = ts.explicit_case(op, platform, {"dtype": dtype, "dst": (1, 8)})
            scalars = inst.draw_batch(seeded(8, op, dtype), case, values.ValueMix(rate=0.5), 2000)["scalar"]
            one = [inst.draw_inputs(seeded(k, op), case, values.ValueMix(rate=0.5))["scalar"] for k in range(200)]
            for s in (scalars, np.concatenate(one)):
                fits = carrier.representable(s, dt, F32)
                assert fits.all() if carried else not fits.all(), (op, platform, dtype)
    case = ts.explicit_case("TADDS", "a5", {"dtype": "int64", "dst": (1, 8)})
    s = registry.get("TADDS").draw_batch(seeded(9), case, values.ValueMix(rate=0.5), 500)["scalar"]
    assert (s.view(np.int64) > 1 << 40).any()


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("platform", ["spec", "cpu", "a5"])
def test_a_batch_evaluates_as_its_cases_one_by_one(op, platform):
    inst = registry.get(op)
    if platform not in inst.platforms:
        return
    dtype = "float16" if op == "TLRELU" else "int16"
    for dt in (dtype, "float32"):
        case = ts.explicit_case(op, platform, {"dtype": dt, "dst": (3, 40)})
        drawn = inst.draw_batch(seeded(4, op, dt), case, values.ValueMix(rate=0.3), 64)
        whole = inst.evaluate(case, drawn)
        for k in range(64):
            one = inst.evaluate(case, {r: v[k] for r, v in drawn.items()})
            assert np.array_equal(one.outputs["dst"], whole.outputs["dst"][k])
            assert np.array_equal(one.classes["dst"], whole.classes["dst"][k])
