"""TPAIRREDUCESUM: hand-worked examples from pto-isa's page, the edge pairs (signed zeros, infinities, NaN payloads,
an odd width's inactive partner, empty regions), the runtime check, and recomputation by plain Python loops."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.generators import pairsum as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import pairsum, registry

OP = "TPAIRREDUCESUM"
PLATFORMS = ("cpu", "a2a3", "a5")
NEG_ZERO, POS_INF, NEG_INF = 0x80000000, 0x7F800000, 0xFF800000
SNAN = 0x7FA00001  # a signalling NaN with a payload


def _f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


def _case(platform: str, dtype: str, dst: Tile, src: Tile) -> Case:
    return Case(OP, platform, dtype, (("dst", dst), ("src", src)))


def _run(platform: str, dtype: str, dst: Tile, src: Tile, bits: np.ndarray):
    out = registry.get(OP).evaluate(_case(platform, dtype, dst, src), {"src": bits})
    assert out.kind is OutcomeKind.OK, out
    return out.outputs["dst"], out.classes["dst"]


# ---- hand-worked examples ----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_page_s_auto_example_sums_adjacent_pairs_into_the_lower_half(platform):
    """docs/isa/TPairReduceSum.md "Auto": a 16x32 float dst and a 16x64 src, both valid 16x32. With src[i, j] =
    j + 100 i (and 9999 past the valid columns, which no result may read) row 0 gives 0+1, 2+3, ..., 30+31 =
    1, 5, ..., 61 in columns 0..15 and 0 in 16..31; row 3 gives 601, 605, ..., 661."""
    src = np.full((16, 64), 9999.0, np.float32)
    src[:, :32] = np.arange(32)[None, :] + 100 * np.arange(16)[:, None]
    got, cls = _run(platform, "float32", Tile(16, 32, 16, 32), Tile(16, 64, 16, 32), src.view(np.uint32))
    values_ = got.view(np.float32)
    assert values_[0, :16].tolist() == [1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61]
    assert values_[3, :16].tolist() == [601, 605, 609, 613, 617, 621, 625, 629, 633, 637, 641, 645, 649, 653,
                                        657, 661]
    assert (got[:, 16:] == 0).all()  # "filled with 0": +0 bits
    assert (cls == EXACT).all()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_odd_width_pairs_its_last_element_with_an_inactive_zero(platform):
    """Valid 2x5 of an 8-column half tile: row [1, 2, 3, 4, 5 | 7, 7, 7] gives [3, 7, 5, 0, 0]: the third pair is
    src[i, 4] + 0 (src[i, 5] is inactive, "treated as 0", never the 7 stored there); row [0.5, 0.25, -1, 1,
    2.5 | ...] gives [0.75, 0, 2.5, 0, 0]; outside the valid region undefined."""
    src = np.full((2, 16), 7.0, np.float16)
    src[0, :5] = [1, 2, 3, 4, 5]
    src[1, :5] = [0.5, 0.25, -1, 1, 2.5]
    got, cls = _run(platform, "float16", Tile(2, 16, 2, 5), Tile(2, 16, 2, 5), src.view(np.uint16))
    assert got.view(np.float16)[:, :5].tolist() == [[3, 7, 5, 0, 0], [0.75, 0, 2.5, 0, 0]]
    assert (cls[:, :5] == EXACT).all() and (cls[:, 5:] == UNDEFINED).all()


def test_integers_on_the_cpu_and_their_overflow_open():
    """int16 [-5, 4, 30000, 2767, 32767, 1, 9]: -1, 32767 (exact), then 32767 + 1 overflows: open (the page has no
    integer rule; the elementwise add leaves overflow undefined), then the odd tail 9 + 0 = 9, then zeros."""
    src = np.array([[-5, 4, 30000, 2767, 32767, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0]], np.int16)
    got, cls = _run("cpu", "int16", Tile(1, 16, 1, 7), Tile(1, 16, 1, 7), src)
    assert got[0, :2].tolist() == [-1, 32767] and got[0, 3] == 9 and got[0, 4:7].tolist() == [0, 0, 0]
    assert cls[0, :7].tolist() == [EXACT, EXACT, UNDEFINED, EXACT, EXACT, EXACT, EXACT]


# ---- special values ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
def test_signed_zeros_infinities_and_nans_pair_as_the_elementwise_add(platform):
    """(+0, -0) -> +0, (-0, -0) -> -0, (-0, +0) -> +0 (round to nearest), (inf, -inf) -> some NaN, (inf, inf) ->
    inf, (sNaN, 1) and (1, sNaN) -> some NaN (never a pinned payload), (-inf, 2) -> -inf."""
    row = [0, NEG_ZERO, NEG_ZERO, NEG_ZERO, NEG_ZERO, 0, POS_INF, NEG_INF, POS_INF, POS_INF, SNAN, _f32(1)[0],
           _f32(1)[0], SNAN, NEG_INF, _f32(2)[0]]
    src = np.array([row], np.uint32)
    got, cls = _run(platform, "float32", Tile(1, 16, 1, 16), Tile(1, 16, 1, 16), src)
    assert got[0, :3].tolist() == [0, NEG_ZERO, 0] and cls[0, :3].tolist() == [EXACT] * 3
    assert cls[0, 3] == NAN and (got[0, 3] & 0x7F800000) == 0x7F800000 and got[0, 3] & 0x7FFFFF
    assert got[0, 4] == POS_INF and cls[0, 4] == EXACT
    assert cls[0, 5:7].tolist() == [NAN, NAN]
    assert got[0, 7] == NEG_INF and cls[0, 7] == EXACT
    assert (got[0, 8:] == 0).all() and (cls[0, 8:] == EXACT).all()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_odd_tail_keeps_its_element_but_the_sign_of_minus_zero_is_open(platform):
    """Three rows of width 3, tail -0, a NaN with a payload, -2.5: the tail pair is x + "0": -0 gives some zero
    (the page does not say which zero the inactive element is), a NaN some NaN, -2.5 exactly -2.5."""
    src = np.zeros((3, 8), np.uint32)
    src[:, 2] = [NEG_ZERO, SNAN, _f32(-2.5)[0]]
    got, cls = _run(platform, "float32", Tile(3, 8, 3, 3), Tile(3, 8, 3, 3), src)
    assert cls[:, 1].tolist() == [ZERO, NAN, EXACT]
    assert got[2, 1] == _f32(-2.5)[0]
    assert (got[:, 2] == 0).all() and (cls[:, 2] == EXACT).all()


def test_the_npus_leave_subnormals_and_overflow_open_the_cpu_not():
    """float32 (min subnormal, min subnormal) is 2 * 2**-149 on the cpu (exact, gradual underflow); on the NPUs
    flushing would change it: undefined. (max, max) overflows: inf on the cpu, open on the NPUs."""
    big = _f32(np.finfo(np.float32).max)[0]
    src = np.array([[1, 1, big, big, 0, 0, 0, 0]], np.uint32)
    got, cls = _run("cpu", "float32", Tile(1, 8, 1, 4), Tile(1, 8, 1, 4), src)
    assert got[0, :2].tolist() == [2, POS_INF] and cls[0, :4].tolist() == [EXACT] * 4
    for platform in ("a2a3", "a5"):
        _, cls = _run(platform, "float32", Tile(1, 8, 1, 4), Tile(1, 8, 1, 4), src)
        assert cls[0, :4].tolist() == [UNDEFINED, UNDEFINED, EXACT, EXACT]


# ---- contracts and empty regions ------------------------------------------------------------------------

@pytest.mark.parametrize("valid", [(0, 8), (4, 0), (0, 0)])
@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_empty_valid_region_writes_nothing(platform, valid):
    got, cls = _run(platform, "float32", Tile(4, 8, *valid), Tile(4, 8, *valid), np.ones((4, 8), np.uint32))
    assert (cls == UNDEFINED).all() and (got == 0).all()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_source_of_another_valid_shape_is_unsupported(platform):
    out = registry.get(OP).evaluate(_case(platform, "float32", Tile(4, 8, 4, 8), Tile(4, 8, 4, 6)),
                                    {"src": np.zeros((4, 8), np.uint32)})
    assert out.kind is OutcomeKind.UNSUPPORTED and "valid shape" in out.reason


def test_the_dtypes_each_platform_takes():
    inst = registry.get(OP)
    assert inst.support("cpu").dtypes == ("float32", "float16", "int32", "int16")
    assert inst.support("a2a3").dtypes == inst.support("a5").dtypes == ("float32", "float16")
    assert set(inst.unmodelled) == {"spec", "kirin9030", "kirinDev0000"}
    out = inst.evaluate(_case("a5", "int32", Tile(1, 8, 1, 8), Tile(1, 8, 1, 8)), {"src": np.zeros((1, 8), np.int32)})
    assert out.kind is OutcomeKind.UNSUPPORTED


# ---- recomputation ------------------------------------------------------------------------------------------

def _loop(dtype: str, d: Tile, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The page's formula element by element in numpy scalars (each addition rounded once in the type)."""
    vt = {"float32": np.float32, "float16": np.float16, "int32": np.int64, "int16": np.int64}[dtype]
    rows, cols = d.valid
    src = bits.view(vt) if dtype.startswith("float") else bits.astype(np.int64)
    want = np.zeros((rows, cols), np.float64)
    known = np.ones((rows, cols), bool)
    info = np.iinfo(dtype) if dtype.startswith("int") else None
    for i in range(rows):
        for k in range((cols + 1) // 2):
            a = src[i, 2 * k]
            b = src[i, 2 * k + 1] if 2 * k + 1 < cols else vt(0)
            with np.errstate(all="ignore"):
                s = a + b
            known[i, k] = info.min <= s <= info.max if info is not None else not np.isnan(s)
            want[i, k] = s
    return want, known


@pytest.mark.parametrize("dtype,platform", [("float32", "cpu"), ("float16", "cpu"), ("int32", "cpu"),
                                            ("int16", "cpu"), ("float32", "a2a3"), ("float16", "a5")])
def test_random_cases_agree_with_a_loop(dtype, platform):
    inst = registry.get(OP)
    for n in range(12):
        source = seeded(11, dtype, platform, str(n))
        case = inst.random_case(source, platform, {"dtype": dtype})
        bits = inst.draw_inputs(source, case, values.ValueMix(0.3))["src"]
        out = inst.evaluate(case, {"src": bits})
        d = case.tile("dst")
        rows, cols = d.valid
        want, known = _loop(dtype, d, bits)
        got = out.outputs["dst"][:rows, :cols]
        cls = out.classes["dst"][:rows, :cols]
        ok = known & (cls == EXACT)
        vt = np.float64 if dtype.startswith("int") else {"float32": np.float32, "float16": np.float16}[dtype]
        mine = got.astype(np.float64) if dtype.startswith("int") else got.view(vt).astype(np.float64)
        assert np.array_equal(mine[ok], want[ok]), (case, n)
        if platform == "cpu":  # the host's arithmetic: every element the loop pins, the oracle pins too
            assert not (known & (cls == UNDEFINED)).any()
        # the signs of exact zeros agree bit for bit
        if not dtype.startswith("int"):
            zero = ok & (want == 0)
            assert np.array_equal(np.signbit(mine[zero]), np.signbit(want[zero]))


# ---- folders ------------------------------------------------------------------------------------------------

def test_gen_folders_check_clean_and_an_npu_odd_golden_is_named(tmp_path):
    """gen's a5 folders pass check; a golden whose odd last pair is 0 (pto-isa's NPU scripts, w_valid // 2) is
    named wrong with the reason."""
    api.generate("tpairreducesum", "a5", tmp_path)
    folders = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert {v.verdict.value for v in api.check(folders, "a5")} == {"pass"}
    odd = tmp_path / "TPAIRREDUCESUMTest.case_float_16x32_16x64_16x31"
    (odd / "ptofuzz.json").unlink()
    golden = np.fromfile(odd / "golden.bin", np.uint32).reshape(16, 32)
    golden[:, 15] = 0  # as the script: 15 whole pairs, the 16th result left 0
    golden.tofile(odd / "golden.bin")
    (verdict,) = api.check([odd], "a5")
    assert verdict.verdict.value == "fail" and "w_valid // 2" in verdict.message
    assert "dst[i, 15] = src[i, 30]" in verdict.message


def test_edge_pairs_are_drawn():
    """generators/pairsum writes every pair kind and odd tails over a few draws."""
    dt = __import__("ptofuzz.core.dtypes", fromlist=["get"]).get("float32")
    case = _case("cpu", "float32", Tile(64, 64, 64, 63), Tile(64, 64, 64, 63))
    bits = gen.draw(seeded(5), case, dt, values.ValueMix(0.0))
    left, right = bits[:, 0:62:2], bits[:, 1:62:2]
    assert ((left == 0) & (right == NEG_ZERO)).any() and ((left == NEG_ZERO) & (right == NEG_ZERO)).any()
    assert ((left == POS_INF) & (right == NEG_INF)).any()
    assert (((left & 0x7F800000) == 0x7F800000) & ((left & 0x7FFFFF) != 0)).any()
    assert (left == (right ^ 0x80000000)).sum() > 5  # cancel
    assert (bits[:, 62] == NEG_ZERO).any()


def test_geometry_classes_and_regions():
    c = _case("a5", "float32", Tile(2, 72, 2, 65), Tile(2, 72, 2, 65))
    assert pairsum.geometry_class(c) == "odd,>repeat,strided"
    assert pairsum.geometry_class(_case("a5", "float16", Tile(2, 16, 2, 16), Tile(2, 16, 2, 16))) == \
        "even,<=repeat,packed"
    assert pairsum.geometry_class(_case("cpu", "float32", Tile(2, 8, 0, 8), Tile(2, 8, 0, 8))) == "empty"
    assert pairsum.geometry_class(_case("cpu", "float32", Tile(2, 8, 0, 0), Tile(2, 8, 0, 0))) == "empty"
    assert pairsum.geometry_class(_case("cpu", "float32", Tile(2, 8, 2, 0), Tile(2, 8, 2, 0))) == "no-cols"
    names, codes = pairsum.regions(_case("cpu", "float32", Tile(2, 8, 1, 5), Tile(2, 8, 1, 5)), "dst")
    assert names == ("pairs", "zeros", "outside")
    assert codes.tolist() == [[0, 0, 0, 1, 1, 2, 2, 2], [2] * 8]
