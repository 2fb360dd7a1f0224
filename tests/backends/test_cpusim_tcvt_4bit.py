"""TCVT's 4-bit pairs through the real pto-isa CPU simulator (float32 to and from int4, FP4 E2M1 and E1M2, the cpu
system test's pairs): the FP4 tiles packed two codes a byte, hand-worked values, and the simulator's FP4 defects
(each shown as the simulator's value beside the documented one), their matchers on their own pairs only."""

from __future__ import annotations

import numpy as np
import pytest
from backend_helpers import needs_sim, simulator

from ptofuzz.backends.cpusim import conversion
from ptofuzz.core.case import Case, OutcomeKind, Tile
from ptofuzz.core.signature import Signature
from ptofuzz.instructions import defects

RINT, ROUND, TRUNC, ODD = 1, 2, 5, 6
ON, OFF = 0, 1
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
E1M2 = [k / 4 for k in range(8)]



@pytest.fixture(scope="module")
def sim():
    yield from simulator("TCVT")


def _run(sim, src: str, to: str, bits: np.ndarray, rmode: int = RINT, sat: int | None = None, cols: int = 64):
    """The destination bits (a code a byte for the 4-bit types) of a 1 x n valid region in a 2 x cols tile (a
    second row: the packing of each item's slot is by the stride, not the valid width)."""
    n = bits.size
    tile = Tile(2, cols, 2, n)
    params = (("to", to), ("rmode", rmode)) + ((("sat", sat),) if sat is not None else ())
    grid = np.zeros((2, cols), dtype=bits.dtype)
    grid[0, :n] = bits
    grid[1, :n] = bits[::-1]
    out = conversion.evaluate(sim, Case("TCVT", "cpu", src, (("dst", tile), ("src", tile)), params), {"src": grid})
    assert out.kind is OutcomeKind.OK, out.reason
    dst = out.outputs["dst"]
    assert (dst[1, :n] == dst[0, :n][::-1]).all()  # the second row: the same conversions, reversed
    return dst[0, :n]


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, dtype=np.float32).view(np.uint32)


def values(bits: np.ndarray) -> list[float]:
    return bits.astype(np.uint32).view(np.float32).tolist()


@needs_sim
def test_int4_to_float32_is_exact_and_float32_to_int4_rounds_in_the_mode(sim):
    codes = np.arange(16, dtype=np.uint8)
    assert values(_run(sim, "int4", "float32", codes)) == [*range(8), *range(-8, 0)]
    x = f32(2.5, -2.5, 2.7, 6.6, -7.9)
    assert _run(sim, "float32", "int4", x, RINT, ON).tolist() == [2, 0xE, 3, 7, 8]
    assert _run(sim, "float32", "int4", x, ROUND, ON).tolist() == [3, 0xD, 3, 7, 8]
    assert _run(sim, "float32", "int4", x, TRUNC, OFF).tolist() == [2, 0xE, 2, 6, 9]


@needs_sim
def test_fp4_codes_the_simulator_gets_right(sim):
    """Integral FP4 values widen right (E2M1 1, 2, 3, 4, 6), and integral float32 values in range encode right:
    the packing of the tiles is ptofuzz's (element 2i in the low nibble) both ways."""
    got = values(_run(sim, "float4_e2m1", "float32", np.array([2, 4, 5, 6, 7, 0xA, 0xF], np.uint8)))
    assert got == [1.0, 2.0, 3.0, 4.0, 6.0, -1.0, -6.0]
    assert _run(sim, "float32", "float4_e2m1", f32(1, 2, 3, 4, 6, -3), RINT, OFF).tolist() == [2, 4, 5, 6, 7, 0xD]
    assert _run(sim, "float32", "float4_e1m2", f32(1.0, -1.0), RINT, OFF).tolist() == [4, 0xC]


@needs_sim
def test_defect_fp4_integral(sim):
    """cpusim-tcvt-fp4-integral: FP4 to float32 rounds to an integer in the mode; the documented conversion is
    exact (E2M1 0.5 and 1.5, E1M2 0.25 .. 1.75)."""
    e2m1 = values(_run(sim, "float4_e2m1", "float32", np.arange(8, dtype=np.uint8)))
    assert e2m1 == [0.0, 0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 6.0] != E2M1
    assert values(_run(sim, "float4_e2m1", "float32", np.array([3], np.uint8), TRUNC)) == [1.0]
    e1m2 = values(_run(sim, "float4_e1m2", "float32", np.arange(8, dtype=np.uint8), TRUNC, ON))
    assert e1m2 == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0] != E1M2


@needs_sim
def test_defect_fp4_encode(sim):
    """cpusim-tcvt-fp4-encode: float32 to FP4 is rounded to an integer, then truncated with the exponent wrapped
    (SaturationMode::OFF: 8.0 -> E2M1 0x0, 3.0 -> E1M2 0x2); saturated, E1M2 is clamped to [-4, 3.5], past its
    largest 1.75 (8.0 -> 3.5 -> 4 -> 0x4); one rounding to FP4 gives 1.5 -> E2M1 0x3, 0.75 -> 0x2, E1M2 0x7."""
    assert _run(sim, "float32", "float4_e2m1", f32(1.5, 0.75, 0.5), RINT, ON).tolist() == [4, 2, 0]  # not 3, 2, 1
    assert _run(sim, "float32", "float4_e2m1", f32(8.0, 12.0), RINT, OFF).tolist() == [0, 1]  # exponent wrapped
    assert _run(sim, "float32", "float4_e2m1", f32(8.0, -100.0), RINT, ON).tolist() == [7, 0xF]  # E2M1 clamps right
    assert _run(sim, "float32", "float4_e1m2", f32(3.0, 1.75), RINT, OFF).tolist() == [2, 0]  # 1.75 -> 2 -> 0x0
    assert _run(sim, "float32", "float4_e1m2", f32(8.0, 3.0, -9.0), RINT, ON).tolist() == [4, 2, 0xC]  # not 7, 7, 0xF


@needs_sim
def test_defect_fp4_negative_zero(sim):
    """cpusim-tcvt-fp4-negative-zero: the code 0x8 (-0) widens to +0.0, and -0.0 encodes as 0x0; -0.5 in E1M2
    (0xA) rounds to -0.0 and keeps its sign (so the decoding of 0x8 alone loses it)."""
    assert _run(sim, "float4_e2m1", "float32", np.array([8, 0xA], np.uint8)).tolist() == [0x00000000, 0xBF800000]
    assert _run(sim, "float4_e1m2", "float32", np.array([8, 0xA], np.uint8)).tolist() == [0x00000000, 0x80000000]
    assert _run(sim, "float32", "float4_e2m1", f32(-0.0, -0.2, 0.0), RINT, OFF).tolist() == [0, 0, 0]  # 0x8, 0x8, 0


@pytest.mark.parametrize(("key", "name"), [
    ("TCVT/float/cpu~cpusim/ulp-large/convert/float4_e2m1>float32,sat", "cpusim-tcvt-fp4-integral"),
    ("TCVT/float/cpusim~spec/ulp-large/convert/float4_e1m2>float32,dflt", "cpusim-tcvt-fp4-integral"),
    ("TCVT/float/cpu~cpusim/ulp-1/convert/float32>float4_e2m1,odd,dflt", "cpusim-tcvt-fp4-encode"),
    ("TCVT/float/cpusim~spec/ulp-2..16/convert/float32>float4_e1m2,sat", "cpusim-tcvt-fp4-encode"),
    ("TCVT/float/cpu~cpusim/signed-zero/convert/float32>float4_e1m2", "cpusim-tcvt-fp4-negative-zero"),
    ("TCVT/float/cpu~cpusim/signed-zero/convert/float4_e2m1>float32,dflt", "cpusim-tcvt-fp4-negative-zero"),
    ("TCVT/float/cpu~cpusim/int-value/convert/float32>int4,odd,sat", "cpusim-tcvt-cast-odd"),
    ("TCVT/float/cpu~cpusim/int-value/convert/float32>int4,odd", "cpusim-tcvt-cast-odd"),
])
def test_each_fp4_defect_matches_its_pairs(key, name):
    sig = Signature.from_key(key)
    assert defects.matching(sig).name == name


@pytest.mark.parametrize("key", [
    "TCVT/float/cpu~spec/ulp-large/convert/float4_e2m1>float32,sat",  # two models: no simulator involved
    "TCVT/float/cpu~cpusim/signed-zero/convert/float32>float16",  # not an FP4 pair
    "TCVT/float/cpu~cpusim/nan-vs-number/convert/float32>float4_e2m1,sat",  # not a kind these defects give
    "TCVT/float/cpu~cpusim/int-value/convert/float32>int32,odd,sat",  # saturated odd: the sat bound's, not int4's
    "TCVT/int/cpu~cpusim/ulp-1/convert/int4>float32",  # int4 widens exactly: no defect excuses it
])
def test_the_fp4_defects_excuse_nothing_next_to_them(key):
    sig = Signature.from_key(key)
    assert defects.matching(sig) is None or defects.matching(sig).name not in (
        "cpusim-tcvt-fp4-integral", "cpusim-tcvt-fp4-encode", "cpusim-tcvt-fp4-negative-zero", "cpusim-tcvt-cast-odd")


def test_ubsans_shift_report_is_mxtype_s_defect_and_no_other_crash_is():
    sig = Signature.from_key("TCVT/float/cpusim/crash/shift-exponent-too-large/-")
    assert defects.matching(sig).name == "cpusim-tcvt-fp4-shift-ub"
    assert "MXTypes.hpp:61" in defects.BY_NAME["cpusim-tcvt-fp4-shift-ub"].evidence
    for other in ("TCVT/float/cpusim/crash/signed-integer-overflow/-",
                  "TADD/int/cpusim/crash/shift-exponent-too-large/-"):
        assert defects.matching(Signature.from_key(other)) is None or \
            defects.matching(Signature.from_key(other)).name != "cpusim-tcvt-fp4-shift-ub"
