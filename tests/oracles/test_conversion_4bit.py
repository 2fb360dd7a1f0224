"""TCVT's models on the 4-bit types (FP4 E2M1, FP4 E1M2, int4): the cpu's pairs (float32 to and from each) and
pto-spec's rules for its E2M1X2, E1M2X2 and S4X2 lanes, hand-worked from the lane tables (E2M1: 0, 0.5, 1, 1.5,
2, 3, 4, 6; E1M2: 0, 0.25, ..., 1.75), both sides of every open result."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.instructions import conversion, registry

TCVT = registry.get("TCVT")
NAN, INF = float("nan"), float("inf")
ON, OFF = 0, 1


def f32(*xs: float) -> np.ndarray:
    return np.array([xs], dtype=np.float32).view(np.uint32)


def u8(*codes: int) -> np.ndarray:
    return np.array([codes], dtype=np.uint8)


def run(platform, src, dst, bits, rmode=1, sat=None):
    n = bits.shape[1]
    tile = Tile(1, 256, 1, n)  # pto-spec: 256 four-bit lanes are 128 bytes, a legal descriptor
    case = Case("TCVT", platform, src, (("dst", tile), ("src", tile)), (("to", dst), ("rmode", rmode), ("sat", sat)))
    padded = np.zeros((1, 256), dtype=bits.dtype)
    padded[:, :n] = bits
    out = TCVT.evaluate(case, {"src": padded})
    assert out.kind == "ok", out.reason
    return out.outputs["dst"][0, :n].tolist(), out.classes["dst"][0, :n].tolist()


@pytest.mark.parametrize("platform", ["cpu", "spec"])
def test_fp4_and_int4_widen_to_float32_exactly(platform):
    e2m1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    e2m1 = e2m1 + [-v for v in e2m1]
    bits, cls = run(platform, "float4_e2m1", "float32", u8(*range(16)), 1, ON)
    assert bits == f32(*e2m1)[0].tolist() and cls == [EXACT] * 16  # 0x8 is -0.0: its sign bit kept
    e1m2 = [k / 4 for k in range(8)]
    for rmode in (1, 5, 6):  # the mode never matters: every value is a float32
        bits, cls = run(platform, "float4_e1m2", "float32", u8(*range(16)), rmode, OFF)
        assert bits == f32(*e1m2, *[-v for v in e1m2])[0].tolist() and cls == [EXACT] * 16
    bits, cls = run(platform, "int4", "float32", u8(*range(16)))
    assert bits == f32(*range(8), *range(-8, 0))[0].tolist() and cls == [EXACT] * 16
    assert run(platform, "int4", "float32", u8(0xF7, 0x18))[0] == f32(7.0, -8.0)[0].tolist()  # the low nibble only


def test_float32_to_e2m1_rounds_once_in_the_mode():
    vals = f32(0.25, 0.75, 1.25, 2.5, 5.0, -2.6, 1e-30)
    assert run("cpu", "float32", "float4_e2m1", vals, 1, OFF)[0] == [0x0, 0x2, 0x2, 0x4, 0x6, 0xD, 0x0]  # ties even
    assert run("cpu", "float32", "float4_e2m1", vals, 2, OFF)[0] == [0x1, 0x2, 0x3, 0x5, 0x7, 0xD, 0x0]  # away
    assert run("cpu", "float32", "float4_e2m1", vals, 5, OFF)[0] == [0x0, 0x1, 0x2, 0x4, 0x6, 0xC, 0x0]  # to zero
    assert run("cpu", "float32", "float4_e2m1", vals, 4, OFF)[0] == [0x1, 0x2, 0x3, 0x5, 0x7, 0xC, 0x1]  # up
    assert run("cpu", "float32", "float4_e2m1", vals, 6, OFF)[0] == [0x1, 0x1, 0x3, 0x5, 0x7, 0xD, 0x1]  # to odd


def test_e1m2_has_largest_1_75_and_its_overflow_is_open_unless_saturated_or_directed_down():
    vals = f32(1.875, 1.8, 3.5, -9.0, 1.7)
    bits, cls = run("cpu", "float32", "float4_e1m2", vals, 1, OFF)  # 1.875 ties up past 1.75: overflow
    assert bits == [0x7, 0x7, 0x7, 0xF, 0x7] and cls == [UNDEFINED, EXACT, UNDEFINED, UNDEFINED, EXACT]
    assert run("cpu", "float32", "float4_e1m2", vals, 1, ON) == ([0x7, 0x7, 0x7, 0xF, 0x7], [EXACT] * 5)
    assert run("cpu", "float32", "float4_e1m2", vals, 1, None)[1] == [UNDEFINED, EXACT, UNDEFINED, UNDEFINED, EXACT]
    # toward zero the largest finite value is IEEE 754's answer; toward -inf too for positives, not for negatives
    assert run("cpu", "float32", "float4_e1m2", vals, 5, OFF) == ([0x7, 0x7, 0x7, 0xF, 0x6], [EXACT] * 5)
    assert run("cpu", "float32", "float4_e1m2", vals, 3, OFF)[1] == [EXACT, EXACT, EXACT, UNDEFINED, EXACT]
    assert run("spec", "float32", "float4_e1m2", vals, 1, OFF)[1] == [UNDEFINED, EXACT, UNDEFINED, UNDEFINED, EXACT]
    assert run("spec", "float32", "float4_e1m2", vals, 1, ON) == ([0x7, 0x7, 0x7, 0xF, 0x7], [EXACT] * 5)


@pytest.mark.parametrize("platform", ["cpu", "spec"])
def test_fp4_has_no_nan_or_infinity(platform):
    for sat in (ON, OFF, None):
        bits, cls = run(platform, "float32", "float4_e2m1", f32(NAN, INF, -INF, 6.0), 1, sat)
        assert cls[0] == UNDEFINED and cls[3] == EXACT and bits[3] == 0x7
        # an infinity: open unless saturated (the pages clamp it); pto-spec leaves a saturated infinity open too
        assert cls[1:3] == ([EXACT, EXACT] if sat == ON and platform == "cpu" else [UNDEFINED, UNDEFINED])
        if sat == ON:
            assert bits[1:3] == [0x7, 0xF]


def test_float32_to_int4_rounds_and_saturates_as_any_integer():
    vals = f32(2.5, -8.4, 7.6, -9.0, NAN, INF)
    assert run("cpu", "float32", "int4", vals, 1, ON) == ([0x2, 0x8, 0x7, 0x8, 0x0, 0x7],
                                                          [EXACT, EXACT, EXACT, EXACT, UNDEFINED, EXACT])
    bits, cls = run("cpu", "float32", "int4", vals, 1, OFF)
    assert bits[:2] == [0x2, 0x8] and cls == [EXACT, EXACT] + [UNDEFINED] * 4
    assert run("cpu", "float32", "int4", vals, 2, OFF)[0][:2] == [0x3, 0x8]  # ties away: 2.5 -> 3
    assert run("cpu", "float32", "int4", vals, 3, OFF)[0][:2] == [0x2, 0x7] and \
        run("cpu", "float32", "int4", vals, 3, OFF)[1][1] == UNDEFINED  # floor(-8.4) = -9: past the range
    # pto-spec: the lane's indefinite value 0x8 for NaN and infinities unsaturated, NaN 0 saturated
    assert run("spec", "float32", "int4", vals, 1, OFF) == ([0x2, 0x8, 0x8, 0x7, 0x8, 0x8],
                                                            [EXACT, EXACT, UNDEFINED, UNDEFINED, EXACT, EXACT])
    assert run("spec", "float32", "int4", vals, 1, ON) == ([0x2, 0x8, 0x7, 0x8, 0x0, 0x7], [EXACT] * 6)


def test_spec_integer_to_int4_wraps_or_clamps():
    vals = np.array([[9, -9, 7, -8, 100]], dtype=np.int32).view(np.uint32)
    assert run("spec", "int32", "int4", vals, 1, OFF) == ([0x9, 0x7, 0x7, 0x8, 0x4], [EXACT] * 5)  # the low 4 bits
    assert run("spec", "int32", "int4", vals, 1, ON) == ([0x7, 0x8, 0x7, 0x8, 0x7], [EXACT] * 5)
    assert run("spec", "int4", "uint8", u8(0xF, 0x7), 1, ON)[0] == [0, 7]  # -1 clamps to 0
    assert run("spec", "int4", "uint8", u8(0xF, 0x7), 1, OFF)[0] == [0xFF, 7]  # sign-extended, then the low bits


def test_cpu_pairs_are_its_tests_and_no_more():
    cpu = conversion.PAIRS["cpu"]
    for fmt in ("int4", "float4_e2m1", "float4_e1m2"):
        assert fmt in cpu["float32"] and cpu[fmt] == ("float32",)
    assert {"uint8", "uint16"} <= set(cpu["float32"]) and cpu["uint16"] == ("float32", "int32")
    assert "float32" in cpu["int8"]
    assert "float4_e2m1" not in conversion.PAIRS["kirin9030"].get("float32", ())
    assert "int4" in conversion.PAIRS["spec"]["float4_e1m2"]  # pto-spec: every pair of its types
    out = TCVT.evaluate(Case("TCVT", "cpu", "float16", (("dst", Tile(1, 32, 1, 32)), ("src", Tile(1, 32, 1, 32))),
                             (("to", "float4_e2m1"), ("rmode", 1))), {"src": np.zeros((1, 32), np.uint16)})
    assert out.kind == "unsupported"


def test_spec_descriptors_count_a_4_bit_lane_as_half_a_byte():
    """pto-spec's TileElementBits: 1 x 128 int4 lanes are 64 bytes, no legal descriptor (128 B * 2**k); 1 x 256
    are 128 bytes; an int8 1 x 128 tile is 128 bytes."""
    def fault(src, dst, cols):
        tile = Tile(1, cols, 1, 4)
        case = Case("TCVT", "spec", src, (("dst", tile), ("src", tile)), (("to", dst), ("rmode", 1)))
        return TCVT.evaluate(case, {"src": np.zeros((1, cols), np.uint8)}).kind == "fault"
    assert fault("int4", "int8", 128) and not fault("int4", "int8", 256) and not fault("int8", "uint8", 128)
    assert fault("float4_e1m2", "int4", 128) and not fault("float4_e1m2", "int4", 256)
