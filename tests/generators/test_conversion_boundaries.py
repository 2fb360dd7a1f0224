"""Conversion inputs (``generators/conversion.py``): each declared kind of boundary value is in the pool of the
pairs it applies to, each value is what its kind says (checked by converting it back with the conversion core
and by hand-worked values), and drawing puts every kind into a tile."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.generators import conversion as gc
from ptofuzz.generators import values
from ptofuzz.generators.stream import Stream
from ptofuzz.oracles import convert as cv
from ptofuzz.oracles import ieee

F32, F16, BF16 = dtypes.get("float32"), dtypes.get("float16"), dtypes.get("bfloat16")


def _kinds(src, dst) -> dict[str, np.ndarray]:
    pool, spans = gc.boundary_pool(src, dst)
    return {kind: pool[a:b] for kind, a, b in spans}


def _values_of(bits, dt) -> np.ndarray:
    if dt.is_float:
        return ieee.to_float64(bits, dt)
    signed = bits.astype(np.int64)
    if dt.kind == "int" and dt.bits < 64:
        signed = np.where(signed >= 1 << (dt.bits - 1), signed - (1 << dt.bits), signed)
    return signed.astype(np.float64)


@pytest.mark.parametrize(("src", "dst"), [("float32", "float16"), ("float32", "bfloat16"), ("float32", "int8"),
                                          ("float16", "int16"), ("float32", "float8_e4m3"),
                                          ("bfloat16", "float4_e2m1"), ("float32", "int4"), ("int64", "float32")])
def test_every_declared_kind_is_in_the_pool(src, dst):
    kinds = _kinds(dtypes.get(src), dtypes.get(dst))
    assert tuple(kinds) == gc.KINDS
    applies = set(gc.KINDS) - ({"overflow"} if (src, dst) == ("int64", "float32") else set())  # cannot overflow
    assert {k for k, v in kinds.items() if len(v)} == applies
    for v in kinds.values():  # both signs of each point
        x = _values_of(v, dtypes.get(src))
        assert (x > 0).any() == (x < 0).any() or dtypes.get(src).kind == "uint"


def test_float32_to_float16_points_are_ties_neighbours_and_edges():
    kinds = _kinds(F32, F16)
    tie = kinds["tie"]
    x = ieee.to_float64(tie, F32)
    down, _ = cv.convert(tie, F32, F16, cv.RTM)
    up, _ = cv.convert(tie, F32, F16, cv.RTP)
    lo, hi = ieee.to_float64(down, F16), ieee.to_float64(up, F16)
    exact_ties = x == (lo + hi) / 2
    assert exact_ties.sum() > 100 and (lo != hi)[exact_ties].all()  # midpoints of two float16 neighbours ...
    # ... and the float32 values one ulp either side of each of them
    tie_bits = set(tie[exact_ties].tolist())
    assert all((b + 1 in set(tie.tolist())) and (b - 1 in set(tie.tolist())) for b in list(tie_bits)[:50])
    over = ieee.to_float64(kinds["overflow"], F32)
    assert {65504.0, 65520.0, 65536.0, -65520.0} <= set(over.tolist())  # the largest, the threshold, beyond
    assert np.nextafter(np.float32(65520), np.float32(0)) in over.astype(np.float32)
    tiny = set(ieee.to_float64(kinds["tiny"], F32).tolist())
    assert {2.0 ** -24, 2.0 ** -25, 2.0 ** -14, -(2.0 ** -24)} <= tiny


def test_float_to_integer_points():
    int8 = _values_of(_kinds(F32, dtypes.get("int8"))["overflow"], F32)
    assert {127.0, 127.5, 128.0, -128.0, -128.5, -129.0} <= set(int8.tolist())
    ties = set(_values_of(_kinds(F32, dtypes.get("int8"))["tie"], F32).tolist())
    assert {0.5, 1.5, 2.5, -0.5, -2.5} <= ties
    i32 = _values_of(_kinds(F32, dtypes.get("int32"))["overflow"], F32)
    assert {2.0 ** 31, -(2.0 ** 31), float(np.nextafter(np.float32(2 ** 31), np.float32(0)))} <= set(i32.tolist())
    s4 = _values_of(_kinds(F32, dtypes.get("int4"))["overflow"], F32)
    assert {7.0, 7.5, 8.0, -8.0, -8.5, -9.0} <= set(s4.tolist())


def test_integer_sources_reach_rounding_and_their_own_edges():
    kinds = _kinds(dtypes.get("int32"), F32)
    x = kinds["tie"].view(np.int32).astype(np.int64)
    big = x[np.abs(x) > 1 << 24]
    assert len(big) > 100  # where float32 rounds an int32
    f, status = cv.convert(kinds["tie"], dtypes.get("int32"), F32, cv.RNE)
    assert (status == cv.INEXACT).sum() > 100
    u64 = _kinds(dtypes.get("uint64"), F32)["source"]
    assert {0, 1, 2 ** 64 - 1, 2 ** 64 - 2} <= set(int(v) for v in u64)
    s16 = _kinds(dtypes.get("int16"), dtypes.get("int8"))
    assert {127, 128, -128, -129} <= set(s16["overflow"].view(np.int16).tolist())


@pytest.mark.parametrize(("src", "dst"), [("float32", "float16"), ("float32", "int32"), ("int4", "float4_e1m2")])
def test_drawing_mixes_every_kind_in_deterministically(src, dst):
    s, d = dtypes.get(src), dtypes.get(dst)
    pool, spans = gc.boundary_pool(s, d)

    def drawn(seed: int) -> np.ndarray:
        source = Stream(seed)
        bits = values.draw(source, s, (64, 64), values.ValueMix(0.05))
        return gc.mix_in(source, bits, s, d)

    a = drawn(5)
    assert np.array_equal(a, drawn(5)) and not np.array_equal(a, drawn(6))
    for kind, lo, hi in spans:
        if hi > lo:
            assert np.isin(a, pool[lo:hi]).any(), kind
    if s.bits >= 16:  # about a quarter from the pool (wide types: a random pattern is rarely in it)
        assert 0.2 < np.isin(a, pool).mean() < 0.3


def test_tcvt_inputs_carry_the_pairs_boundaries():
    from ptofuzz.instructions import conversion

    case = conversion.explicit_case("cpu", {"dtype": "float32", "to": "int16", "shape": (32, 64)})
    src = conversion.draw_inputs(Stream(1), case, values.ValueMix())["src"]
    pool, spans = gc.boundary_pool(F32, dtypes.get("int16"))
    assert np.isin(src, pool).mean() > 0.15
    over = dict((k, pool[a:b]) for k, a, b in spans)["overflow"]
    assert np.isin(src, over).any()
