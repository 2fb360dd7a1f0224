"""TCVT through the real pto-isa CPU simulator: hand-worked conversions in every mode, and the simulator's defects
(each shown as the simulator's value beside the documented one).

Modes are pto::RoundMode ordinals: 0 CAST_NONE, 1 CAST_RINT, 2 CAST_ROUND, 3 CAST_FLOOR, 4 CAST_CEIL, 5 CAST_TRUNC,
6 CAST_ODD; ``sat`` 0 = SaturationMode::ON, 1 = OFF, None = the overload without one.
"""

from __future__ import annotations

import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from backend_helpers import needs_sim, simulator

from ptofuzz.backends.cpusim import build, conversion, worker
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, OutcomeKind, Tile
from ptofuzz.core.signature import Signature
from ptofuzz.instructions import defects

NONE, RINT, ROUND, FLOOR, CEIL, TRUNC, ODD = range(7)
ON, OFF = 0, 1
VALUE_TYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32,
               "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
               "int64": np.int64, "uint64": np.uint64}


@pytest.fixture(scope="module")
def sim():
    yield from simulator("TCVT")


def _case(src: str, to: str, n: int, rmode: int, sat: int | None, rows: int = 1, cols: int = 32) -> Case:
    tile = Tile(rows, cols, 1, n)
    params = (("to", to), ("rmode", rmode)) + ((("sat", sat),) if sat is not None else ())
    return Case("TCVT", "cpu", src, (("dst", tile), ("src", tile)), params)


def _bits(src: str, values) -> np.ndarray:
    """A 1 x 32 source tile holding ``values`` (numbers, or raw bits given as a uint array) then zeros."""
    dt = dtypes.get(src)
    arr = np.asarray(values)
    raw = arr.astype(dt.bits_dtype) if arr.dtype.kind == "u" and dt.is_float else \
        np.asarray(values, dtype=VALUE_TYPES[src]).view(dt.bits_dtype)
    out = np.zeros((1, 32), dtype=dt.bits_dtype)
    out[0, :raw.size] = raw
    return out


def _run(sim, src: str, to: str, values, rmode: int = RINT, sat: int | None = None) -> np.ndarray:
    """The destination bits the simulator writes for ``values``."""
    n = np.asarray(values).size
    out = conversion.evaluate(sim, _case(src, to, n, rmode, sat), {"src": _bits(src, values)})
    assert out.kind is OutcomeKind.OK, out.reason
    return out.outputs["dst"][0, :n]


def _values(sim, src: str, to: str, values, rmode: int = RINT, sat: int | None = None) -> list:
    return _run(sim, src, to, values, rmode, sat).view(VALUE_TYPES[to]).tolist()


# ---- hand-worked values ------------------------------------------------------------------------------------------

FLOAT_TO_INT = [2.5, -2.5, 2.2, 2.7, -0.5]
EXPECTED_INT = {  # what each mode makes of FLOAT_TO_INT (CAST_NONE: C++ truncation)
    NONE: [2, -2, 2, 2, 0], RINT: [2, -2, 2, 3, 0], ROUND: [3, -3, 2, 3, -1], FLOOR: [2, -3, 2, 2, -1],
    CEIL: [3, -2, 3, 3, 0], TRUNC: [2, -2, 2, 2, 0],
}


@needs_sim
@pytest.mark.parametrize("rmode", sorted(EXPECTED_INT))
@pytest.mark.parametrize("src", ["float32", "float16"])
def test_float_to_int32_in_every_mode(sim, src, rmode):
    for sat in (ON, OFF, None):
        assert _values(sim, src, "int32", FLOAT_TO_INT, rmode, sat) == EXPECTED_INT[rmode]


@needs_sim
def test_defect_cast_odd_to_an_integer_is_nearest_with_ties_to_odd(sim):
    """cpusim-tcvt-cast-odd: ties go to the odd neighbour (2.5 -> 3, -2.5 -> -3, -0.5 -> -1), the rest to the
    nearest; round to odd (type.hpp's 'Von Neumann rounding') gives 2.2 -> 3, 0.36 -> 1, -5.5e-11 -> -1."""
    assert _values(sim, "float32", "int32", [*FLOAT_TO_INT, 0.36, -5.5e-11], ODD, ON) == [3, -3, 2, 3, -1, 0, 0]
    assert _values(sim, "float16", "int8", [2.2, -1.919], ODD, ON) == [2, -2]  # round to odd: 3, -1


@needs_sim
def test_f32_to_f16_rounds_to_nearest_even(sim):
    # 1 + 2^-11 lies halfway between 0x3C00 and 0x3C01: even 0x3C00; 1 + 3 * 2^-11 between 0x3C01 and 0x3C02: 0x3C02
    got = _run(sim, "float32", "float16", np.array([0x3F801000, 0x3F803000, 0x3F801001, 0x477FF000], np.uint32))
    assert got.tolist() == [0x3C00, 0x3C02, 0x3C01, 0x7C00]  # 65520 is the tie at the top: to +inf


@needs_sim
def test_integer_narrowing_wraps_with_sat_off_and_clamps_with_sat_on(sim):
    values = [70000, -70000, 32767, -32768]
    assert _values(sim, "int32", "int16", values, sat=OFF) == [4464, -4464, 32767, -32768]
    assert _values(sim, "int32", "int16", values, sat=ON) == [32767, -32768, 32767, -32768]
    assert _values(sim, "int32", "int16", values, sat=None) == [4464, -4464, 32767, -32768]  # cpu default: OFF
    assert _values(sim, "int32", "uint8", [300, -1, 255], sat=OFF) == [44, 255, 255]
    assert _values(sim, "int32", "uint8", [300, -1, 255], sat=ON) == [255, 0, 255]
    assert _values(sim, "uint32", "int16", [40000, 7], sat=ON) == [32767, 7]


@needs_sim
def test_widening_is_exact_whatever_the_mode(sim):
    for rmode in range(7):
        assert _values(sim, "int8", "int32", [-128, 127, -1], rmode) == [-128, 127, -1]
        assert _values(sim, "uint8", "uint16", [255, 0], rmode) == [255, 0]
        assert _values(sim, "int16", "uint32", [-1, 5], rmode, OFF) == [0xFFFFFFFF, 5]
        assert _values(sim, "float16", "float32", [0.1, -65504.0], rmode) == [float(np.float16(0.1)), -65504.0]
        assert _values(sim, "int32", "int64", [-(2**31)], rmode) == [-(2**31)]


@needs_sim
def test_int_to_float_rounds_to_nearest_even(sim):
    # 16777219 = 2^24 + 3 lies halfway between 2^24 + 2 and 2^24 + 4: even 2^24 + 4
    assert _values(sim, "int32", "float32", [16777219, 16777217, -7]) == [16777220.0, 16777216.0, -7.0]
    assert _values(sim, "int32", "float16", [65519, 65520, 2049]) == [65504.0, float("inf"), 2048.0]


@needs_sim
def test_outcome_shape_batch_and_classes(sim):
    """A batch of two items with their own modes: dst bits of the destination type at dst's physical shape,
    exact inside the valid region, undefined outside."""
    case = Case("TCVT", "cpu", "float32", (("dst", Tile(3, 40, 2, 3)), ("src", Tile(3, 40, 2, 3))),
                (("to", "int16"), ("rmode", RINT), ("sat", ON)))
    src = np.zeros((2, 3, 40), np.float32)
    src[:, :2, :3] = [[1.5, 2.5, -1.5], [40000.0, -1e9, 0.25]]
    src[:, 2, :] = 9.0  # outside the valid region: never converted
    modes = np.array([RINT, ROUND]).reshape(2, 1, 1)
    out = conversion.evaluate(sim, case, {"src": src.view(np.uint32), "rmode": modes})
    assert out.kind is OutcomeKind.OK
    dst = out.outputs["dst"]
    assert dst.dtype == np.dtype("<u2") and dst.shape == (2, 3, 40)
    assert dst.view(np.int16)[:, :2, :3].tolist() == [[[2, 2, -2], [32767, -32768, 0]],
                                                     [[2, 3, -2], [32767, -32768, 0]]]
    cls = out.classes["dst"]
    assert (cls[:, :2, :3] == EXACT).all() and (cls[:, 2, :] == UNDEFINED).all() and (cls[:, :, 3:] == UNDEFINED).all()


@needs_sim
def test_every_compiled_pair_runs_and_others_are_unsupported(sim):
    one4 = {"int4": 0x1, "float4_e2m1": 0x2, "float4_e1m2": 0x4}  # the 4-bit types' codes of 1
    for src, dsts in build.CVT_PAIRS.items():
        for to in dsts:
            case = _case(src, to, 1, RINT, ON)
            bits = np.array([[one4[src]] + [0] * 31], np.uint8) if src in one4 else _bits(src, [1])
            out = conversion.evaluate(sim, case, {"src": bits})
            if "bfloat16" in (src, to) and not sim.build().manifest["bfloat16_native"]:
                assert out.kind is OutcomeKind.UNSUPPORTED and "cpusim-bf16-placeholder" in out.reason
                continue
            assert out.kind is OutcomeKind.OK, (src, to, out.reason)
            got = out.outputs["dst"][0, :1]
            assert (got.tolist() == [one4[to]]) if to in one4 else (got.view(VALUE_TYPES[to]).tolist() == [1]), \
                (src, to)
    for src, to in [("float16", "float4_e2m1"), ("int64", "int16")]:
        out = conversion.evaluate(sim, _case(src, to, 1, RINT, ON), {"src": _bits(src, [1])})
        assert out.kind is OutcomeKind.UNSUPPORTED and "no such pair" in out.reason
    out = conversion.evaluate(sim, _case("uint64", "float32", 1, RINT, ON), {"src": _bits("uint64", [1])})
    assert out.kind is OutcomeKind.UNSUPPORTED and "cpusim TCVT uint64" in out.reason  # no kernel of that source
    out = conversion.evaluate(sim, _case("float32", "int32", 1, 7, ON), {"src": _bits("float32", [1])})
    assert out.kind is OutcomeKind.UNSUPPORTED and "RoundMode 0..6" in out.reason


# ---- the simulator's defects: its value beside the documented one ------------------------------------------------

@needs_sim
@pytest.mark.parametrize("rmode, documented", [(CEIL, 0x3C01), (ROUND, 0x3C01), (TRUNC, 0x3C00), (FLOOR, 0x3C00)])
def test_defect_f32_to_f16_ignores_the_mode(sim, rmode, documented):
    """cpusim-tcvt-float-mode-ignored: a plain static_cast (cpu/TCvt.hpp:186-187) rounds to nearest even."""
    got = _run(sim, "float32", "float16", np.array([0x3F801000, 0x3F800001, 0x3F803000], np.uint32), rmode, ON)
    rne = [0x3C00, 0x3C00, 0x3C02]
    assert got.tolist() == rne
    step = {CEIL: [0x3C01, 0x3C01, 0x3C02], ROUND: [0x3C01, 0x3C00, 0x3C02], TRUNC: [0x3C00, 0x3C00, 0x3C01],
            FLOOR: [0x3C00, 0x3C00, 0x3C01]}[rmode]
    assert step[0] == documented and step != rne  # what the mode makes of the same inputs


@needs_sim
def test_defect_f32_to_f32_does_not_round(sim):
    """cpusim-tcvt-float-mode-ignored: f32 -> f32 is an identity, where A2A3's page row says "round-only"."""
    assert _values(sim, "float32", "float32", [2.5, -1.75], RINT) == [2.5, -1.75]  # documented: 2.0, -2.0


@needs_sim
def test_defect_int_to_float_ignores_the_mode(sim):
    """cpusim-tcvt-int-mode-ignored: 2^24 + 3 in CAST_TRUNC/CAST_FLOOR gives 2^24 + 4 (documented 2^24 + 2)."""
    for rmode in (TRUNC, FLOOR):
        assert _run(sim, "int32", "float32", [16777219], rmode).tolist() == [0x4B800002]  # documented 0x4B800001
    assert _values(sim, "int16", "float16", [2051], TRUNC) == [2052.0]  # documented 2050


@needs_sim
def test_defect_int64_to_float32_rounds_twice(sim):
    """cpusim-tcvt-s64-double-rounding: 2^60 + 2^36 + 1 (just above the midpoint) goes through double first."""
    got = _run(sim, "int64", "float32", [2**60 + 2**36 + 1], RINT)
    assert got.tolist() == [0x5D800000]  # documented (round to nearest): 0x5D800001 = 2^60 + 2^37
    assert _run(sim, "int64", "float32", [2**60 + 2**36 + 2**30], RINT).tolist() == [0x5D800001]  # exact in double


@needs_sim
def test_defect_sat_on_gives_the_wrong_end_of_the_range(sim):
    """cpusim-tcvt-sat-bound: the clamp bound (INT32_MAX) rounds up in the source type, and its conversion
    overflows to the minimum."""
    assert _run(sim, "float32", "int32", [3e9, float("inf"), -3e9], RINT, ON).tolist() == \
        [0x80000000, 0x80000000, 0x80000000]  # documented (saturation): 0x7FFFFFFF, 0x7FFFFFFF, 0x80000000
    assert _run(sim, "float32", "int64", [1e20], RINT, ON).tolist() == [0x8000000000000000]  # doc 0x7FFF...F
    assert _run(sim, "float16", "int16", [40000.0], RINT, ON).tolist() == [0x8000]  # documented 0x7FFF
    assert _values(sim, "float32", "int16", [40000.0, -40000.0], RINT, ON) == [32767, -32768]  # exact bound: right


@needs_sim
def test_defect_nan_with_sat_on_becomes_the_upper_bound(sim):
    """cpusim-tcvt-sat-nan: NaN passes the clamp as its upper bound."""
    nan = np.array([0x7FC00000], np.uint32)
    assert _values(sim, "float32", "int16", nan, RINT, ON) == [32767]  # spec's saturation: NaN -> 0
    assert _run(sim, "float32", "float16", nan, RINT, ON).tolist() == [0x7BFF]  # a NaN (0x7E00) documented


@needs_sim
def test_defect_sat_on_clamps_a_widening_conversion_to_the_source_range(sim):
    """cpusim-tcvt-sat-widening: f16 +inf -> f32 with sat ON gives 65504, a widening conversion is exact."""
    assert _run(sim, "float16", "float32", np.array([0x7C00], np.uint16), RINT, ON).tolist() == [0x477FE000]
    assert _run(sim, "float16", "float32", np.array([0x7C00], np.uint16), RINT, OFF).tolist() == [0x7F800000]


def test_the_pair_table_is_kernels_hpp_s():
    """build.CVT_PAIRS and kernels.hpp's kCvtPairs name the same pairs."""
    text = (Path(build.__file__).with_name("kernels.hpp")).read_text()
    table = text.split("kCvtPairs[] = {", 1)[1].split("};", 1)[0]
    codes = {v[0]: k for k, v in build.DTYPES.items()}
    rows = [line.split("//")[0] for line in table.strip().splitlines()]
    assert len(rows) == len(build.DTYPES)
    got = {}
    for code, row in enumerate(rows):
        dsts = sorted(codes[int(b)] for b in re.findall(r"1u << (\d+)", row))
        if dsts:
            got[codes[code]] = dsts
    assert got == {k: sorted(v) for k, v in build.CVT_PAIRS.items()}



def test_ubsans_float_cast_report_is_one_cause_whatever_the_value():
    causes = {worker.crash_cause(f"TCvt.hpp:183:31: runtime error: {v} is outside the range of representable values "
                                 f"of type '{t}'\n", 1)[0] for v, t in [("3e+09", "int"), ("nan", "short"),
                                                                       ("-inf", "long")]}
    assert causes == {"value-outside-the-range-of-representable"}
    sig = Signature.from_key("TCVT/float/cpusim/crash/value-outside-the-range-of-representable/-")
    assert defects.matching(sig).name == "cpusim-tcvt-float-cast-ub"
    other = Signature.from_key("TCVT/float/cpusim/crash/signed-integer-overflow/-")
    assert defects.matching(other) is None


def test_the_harness_compiles_the_cpu_pairs_of_the_instruction():
    from ptofuzz.instructions import conversion as instruction

    assert {s: sorted(d) for s, d in build.CVT_PAIRS.items()} == \
        {s: sorted(d) for s, d in instruction.PAIRS["cpu"].items()}


@pytest.mark.parametrize(("key", "name"), [
    # each defect in its pairs and forms (a TCVT signature's geometry: pair, CAST_ODD, saturation form) ...
    ("TCVT/float/cpu~cpusim/ulp-1/convert/float32>float16", "cpusim-tcvt-float-mode-ignored"),
    ("TCVT/float/cpu~cpusim/inf-vs-finite/convert/float32>float16,dflt", "cpusim-tcvt-float-mode-ignored"),
    ("TCVT/float/cpu~cpusim/ulp-large/round-only/float32>float32", "cpusim-tcvt-float-mode-ignored"),
    ("TCVT/float/cpu~cpusim/nan-vs-number/convert/float32>float16,sat", "cpusim-tcvt-sat-nan"),
    ("TCVT/float/cpu~cpusim/nan-vs-number/round-only/float32>float32,sat", "cpusim-tcvt-sat-nan"),
    ("TCVT/int/cpu~cpusim/ulp-1/convert/int32>float32", "cpusim-tcvt-int-mode-ignored"),
    ("TCVT/int64/cpu~cpusim/ulp-1/convert/int64>float32,dflt", "cpusim-tcvt-int-mode-ignored"),
    ("TCVT/int/cpu~cpusim/inf-vs-finite/convert/int32>float16", "cpusim-tcvt-int-mode-ignored"),  # past 65504
    ("TCVT/float/cpu~cpusim/int-value/convert/float16>uint8,odd,sat", "cpusim-tcvt-cast-odd"),  # 0, 255 held
    ("TCVT/float/cpu~cpusim/int-value/convert/float32>int32,sat", "cpusim-tcvt-sat-bound"),
    ("TCVT/float/cpu~cpusim/int-value/convert/float32>int32,odd", "cpusim-tcvt-cast-odd"),
    ("TCVT/float/cpu~cpusim/ulp-large/convert/float16>float32,sat", "cpusim-tcvt-sat-widening"),
    # ... and not in their neighbours
    ("TCVT/float/cpu~cpusim/ulp-1/convert/float16>float32", None),  # a widening is exact in every mode
    ("TCVT/float/cpu~cpusim/nan-vs-number/convert/float32>float16", None),  # saturation off: no clamp
    ("TCVT/float/cpu~cpusim/int-value/convert/float32>int32", None),  # neither saturated nor CAST_ODD
    ("TCVT/float/cpu~cpusim/int-value/convert/float32>int32,odd,sat", None),  # both: the signature cannot say
    ("TCVT/float/cpu~cpusim/ulp-large/convert/float16>float32", None),  # unsaturated widening
    ("TCVT/int/cpu~cpusim/ulp-1/convert/int32>int16", None),  # integer to integer
    ("TCVT/float/cpu~spec/ulp-1/convert/float32>float16", None),  # not the simulator
    ("TCVT/int/cpu~cpusim/int-value/convert/int32>int16,sat", None),
    ("TCVT/int/cpu~cpusim/inf-vs-finite/convert/int32>float32", None),  # no integer overflows float32
    ("TCVT/float/cpu~cpusim/int-value/convert/float32>int16,sat", None),  # f32 holds -32768, 32767: no bound
    ("TCVT/float/cpu~cpusim/int-value/convert/float16>int16,odd,sat", None),  # f16 does not hold 32767
])
def test_the_tcvt_defects_match_the_campaigns_signatures(key, name):
    found = defects.matching(Signature.from_key(key))
    assert (found.name if found else None) == name
