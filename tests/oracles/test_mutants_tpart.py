"""oracles/tpart.py and oracles/integer.py behaviours the mutation run (tests/README.md) found unpinned: the
NPU integer overflow boundary, a5's Int64Part coverage rules outside the sources and the destination,
repatching an NPU outcome, and IEEE add/mul staying silent on the special cases it computes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from tpart_helpers import case as tcase

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.core.dtypes import get
from ptofuzz.oracles import ieee, tpart

E, U = EXACT, UNDEFINED


@pytest.mark.parametrize(("dtype", "a", "b", "classes"), [
    # int8: -100 + -28 = -128 fits exactly; -100 + -29 = -129 does not; 100 + 27 = 127 fits, 100 + 28 does not
    ("int8", [-100, -100, 100, 100], [-28, -29, 27, 28], [E, U, E, U]),
    # uint8: 0 + 0 = 0 and 200 + 55 = 255 fit, 200 + 56 = 256 does not
    ("uint8", [0, 200, 200, 1], [0, 55, 56, 254], [E, E, U, E]),
])
def test_npu_integer_add_is_undefined_exactly_where_it_overflows(dtype, a, b, classes):
    c = tcase("TPARTADD", "a2a3", dtype, (1, 4), (1, 4), (1, 4))
    inputs = {"src0": np.array([a], dtype).view(f"u{np.dtype(dtype).itemsize}"),
              "src1": np.array([b], dtype).view(f"u{np.dtype(dtype).itemsize}")}
    out = tpart.a2a3(c, inputs)
    assert out.classes["dst"].tolist() == [classes]
    wrapped = (np.array(a, np.int64) + np.array(b, np.int64)).astype(dtype)  # the placeholder: the wrapped sum
    assert out.outputs["dst"].view(dtype).tolist() == [wrapped.tolist()]


def _int64_case(dst: Tile, src0: Tile, src1: Tile, op="TPARTADD") -> Case:
    return Case(op, "a5", "int64", (("dst", dst), ("src0", src0), ("src1", src1)), ())


def _int64_inputs(c: Case):
    return {"src0": (1 + np.arange(np.prod(c.tile("src0").shape), dtype=np.uint64)).reshape(c.tile("src0").shape),
            "src1": (1000 + np.arange(np.prod(c.tile("src1").shape), dtype=np.uint64)).reshape(c.tile("src1").shape)}


def test_a5_int64_leaves_everything_outside_the_dst_valid_region_undefined():
    """Sources valid 4x16 under a dst valid only 2x8 (tile 4x16): just the 2x8 corner is written."""
    c = _int64_case(Tile(4, 16, 2, 8), Tile(4, 16, 4, 16), Tile(4, 16, 4, 16))
    out = tpart.a5(c, _int64_inputs(c))
    expected = np.full((4, 16), U)
    expected[:2, :8] = E
    assert out.classes["dst"].tolist() == expected.tolist()
    assert out.classes["dst"].dtype == np.uint8
    s = _int64_inputs(c)
    assert out.outputs["dst"][:2, :8].tolist() == (s["src0"] + s["src1"])[:2, :8].tolist()


def test_a5_int64_rows_and_columns_no_source_covers_are_undefined():
    """dst valid 4x16; src0 valid 2x8, src1 valid 3x4 (tiles 4x16): rows 0-1 take the op on columns 0-3 and
    src0 (the wider) on 4-7; row 2 takes src1 (the taller) on columns 0-3; the rest no source covers."""
    c = _int64_case(Tile(4, 16, 4, 16), Tile(4, 16, 2, 8), Tile(4, 16, 3, 4))
    s = _int64_inputs(c)
    out = tpart.a5(c, s)
    cls = out.classes["dst"]
    expected = np.full((4, 16), U)
    expected[:2, :8] = E
    expected[2, :4] = E
    assert cls.tolist() == expected.tolist()
    o = out.outputs["dst"]
    assert o[:2, :4].tolist() == (s["src0"] + s["src1"])[:2, :4].tolist()
    assert o[:2, 4:8].tolist() == s["src0"][:2, 4:8].tolist()
    assert o[2, :4].tolist() == s["src1"][2, :4].tolist()


def test_repatch_recomputes_the_patched_elements():
    """a2a3 float32: 3e38 * 10 overflows (undefined); patched to 2 * 3 it is 6, exactly."""
    c = tcase("TPARTMUL", "a2a3", "float32", (1, 3), (1, 3), (1, 3))
    f = np.float32
    old = {"src0": np.array([[3e38, 2, 5]], f).view(np.uint32), "src1": np.array([[10, 4, 1]], f).view(np.uint32)}
    before = tpart.a2a3(c, old)
    assert before.classes["dst"].tolist() == [[U, E, E]]
    new = {r: v.copy() for r, v in old.items()}
    new["src0"][0, 0], new["src1"][0, 0] = np.array([2, 3], f).view(np.uint32)
    (after,) = tpart.repatch([(c, new, before, np.array([0]), np.array([0]))])
    assert after.kind == "ok"
    assert after.outputs["dst"].view(f).tolist() == [[6, 8, 5]]
    assert after.classes["dst"].tolist() == [[E, E, E]]
    assert before.classes["dst"].tolist() == [[U, E, E]]  # the original outcome is left alone


def test_ieee_add_mul_is_silent_on_overflow_and_invalid_operations():
    """The oracle computes inf - inf, 0 * inf and overflows on purpose: it must not warn (a warning filter set to
    "error" would turn each into a crash)."""
    f32 = get("float32")
    inf, big = 0x7F800000, 0x7F7FFFFF
    a = np.array([inf, 0, big], np.uint32)
    b = np.array([0xFF800000, inf, big], np.uint32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        added, flags = ieee.add_mul("add", a, b, f32)
        multiplied, _ = ieee.add_mul("mul", a, b, f32)
    assert added.tolist() == [f32.canonical_nan, inf, inf]  # inf - inf = NaN; 0 + inf; max + max overflows
    assert multiplied.tolist() == [0xFF800000, f32.canonical_nan, inf]  # inf * -inf = -inf; 0 * inf = NaN; overflow
    assert flags["NV"].tolist() == [True, False, False] and flags["OF"].tolist() == [False, False, True]


def test_a2a3_with_an_empty_destination_writes_nothing_and_tracks_no_flags():
    c = tcase("TPARTADD", "a2a3", "float32", (0, 4), (2, 4), (2, 4), shapes={"dst": (2, 4)})
    z = np.zeros((2, 4), np.uint32)
    out = tpart.a2a3(c, {"src0": z, "src1": z})
    assert out.kind == "ok" and out.flags is None
    assert (out.classes["dst"] == U).all()


def test_npu_float_mul_edges_of_the_tiny_rule():
    """a2a3 float32 mul: a zero factor gives an exact (signed) zero; exactly the smallest normal is no tiny
    result; 2**-149 * 0.25 is tiny before rounding (undefined) although it rounds to 0 with or without
    flushing; 1.5 * 2 is plain."""
    f = np.float32
    a = np.array([[0.0, -0.0, 2.0 ** -125, 2.0 ** -149, 1.5]], f).view(np.uint32)
    b = np.array([[3.0, 3.0, 0.5, 0.25, 2.0]], f).view(np.uint32)
    c = tcase("TPARTMUL", "a2a3", "float32", (1, 5), (1, 5), (1, 5))
    out = tpart.a2a3(c, {"src0": a, "src1": b})
    assert out.classes["dst"].tolist() == [[E, E, E, U, E]]
    assert out.outputs["dst"][0, [0, 1, 2, 4]].tolist() == [0x00000000, 0x80000000, 0x00800000, 0x40400000]
    assert out.flags is None


def test_a2a3_refusal_names_the_regions():
    c = tcase("TPARTADD", "a2a3", "float32", (4, 6), (3, 6), (4, 2))
    out = tpart.a2a3(c, {})
    assert out.kind == "unsupported"
    assert out.reason == "a2a3 asserts one source equals dst 4x6 and the other fits inside it (src0 3x6, src1 4x2)"


def test_npu_float_add_of_zero_and_the_smallest_normal_is_exact():
    """0 + 2**-126 is exactly the smallest normal: no tiny result (the zero operand only makes it suspect)."""
    c = tcase("TPARTADD", "a2a3", "float32", (1, 2), (1, 2), (1, 2))
    a = np.array([[0.0, -0.0]], np.float32).view(np.uint32)
    b = np.array([[2.0 ** -126, -(2.0 ** -126)]], np.float32).view(np.uint32)
    out = tpart.a2a3(c, {"src0": a, "src1": b})
    assert out.classes["dst"].tolist() == [[E, E]]
    assert out.outputs["dst"].tolist() == [[0x00800000, 0x80800000]]


# ---- second mutation run ------------------------------------------------------------------------------------

def _f32(*xs):
    return np.array([xs], np.float32).view(np.uint32)


def test_npu_integer_max_and_min_never_overflow():
    """Only add/mul can overflow: max/min of int32 extremes are exact on the NPUs."""
    dt = get("int32")
    a = np.array([[2**31 - 1, -2**31]], np.int32).view(np.uint32)
    b = np.array([[1, -1]], np.int32).view(np.uint32)
    for op in ("max", "min"):
        _, cls, _ = tpart.npu_element(op, a, b, dt)
        assert cls.tolist() == [[E, E]]
    _, cls, _ = tpart.npu_element("add", a, b, dt)
    assert cls.tolist() == [[U, U]]


def test_npu_add_is_undefined_where_flushing_a_subnormal_operand_changes_it_on_either_side():
    """min_normal + the smallest subnormal is the next float up, a normal number; with the subnormal flushed to
    zero it is min_normal: undefined (subnormal handling is undocumented), whichever operand is subnormal."""
    dt = get("float32")
    tiny, smallest = ieee.min_normal(dt), np.float32(1e-45)
    for a, b in ((tiny, smallest), (smallest, tiny)):
        res, cls, _ = tpart.npu_element("add", _f32(a), _f32(b), dt)
        assert res.tolist() == [[0x00800001]]
        assert cls.tolist() == [[U]]
    _, cls, _ = tpart.npu_element("add", _f32(1.0), _f32(2.0), dt)
    assert cls.tolist() == [[E]]


def test_npu_add_overflowing_to_minus_infinity_is_undefined():
    """-3e38 + -3e38 overflows from finite operands (inf or saturation: undocumented), as +3e38 + 3e38 does."""
    dt = get("float32")
    for x, inf in ((-3e38, 0xFF800000), (3e38, 0x7F800000)):
        res, cls, _ = tpart.npu_element("add", _f32(x), _f32(x), dt)
        assert res.tolist() == [[inf]]  # the placeholder is the IEEE result
        assert cls.tolist() == [[U]]


@pytest.mark.parametrize(("s0", "s1", "reason"), [
    ((0, 4), (2, 4), "src0 valid region 0x4 is empty"),
    ((2, 4), (2, 0), "src1 valid region 2x0 is empty"),
])
def test_spec_names_the_empty_source(s0, s1, reason):
    c = tcase("TPARTADD", "spec", "float32", (2, 4), s0, s1)
    out = tpart.spec(c, {"src0": np.zeros(c.tile("src0").shape, np.uint32),
                         "src1": np.zeros(c.tile("src1").shape, np.uint32)})
    assert (out.fault.name, out.fault.trap, out.fault.reason) == ("Fault_TileLegality", 5, reason)


@pytest.mark.parametrize("platform", ["spec", "cpu", "a2a3", "a5"])
@pytest.mark.parametrize("valid", [(0, 0), (2, 3)])
def test_classes_are_uint8_and_the_npus_report_no_flags(platform, valid):
    """Element classes are the uint8 codes of ptofuzz.core.case (as the manifests store them); the NPU models raise no
    status flags, for an empty destination too."""
    c = Case("TPARTADD", platform, "float32", (("dst", Tile(2, 8, *valid)), ("src0", Tile(2, 8, *valid)),
                                               ("src1", Tile(2, 8, *valid))))
    out = getattr(tpart, platform)(c, {"src0": np.zeros((2, 8), np.uint32), "src1": np.zeros((2, 8), np.uint32)})
    if out.fault is None:
        assert out.classes["dst"].dtype == np.uint8
    if platform in ("a2a3", "a5"):
        assert out.flags is None


def test_is_subnormal_is_exactly_the_nonzero_numbers_below_the_smallest_normal():
    for name in ("float32", "float16", "bfloat16"):
        dt = get(name)
        bits = np.array([0, 1, dt.man_mask - 1, dt.man_mask, dt.man_mask + 1, dt.sign_mask | 1, dt.sign_mask],
                        dt.bits_dtype)
        assert ieee.is_subnormal(bits, dt).tolist() == [False, True, True, True, False, True, False]


# ---- messages, flags and shared work (second mutation run, argued survivors) ----------------------------------


@pytest.mark.parametrize(("platform", "dst", "src0", "src1", "fault", "reason"), [
    ("spec", (0, 8), (2, 8), (2, 8), "Fault_TileLegality", "destination valid region 0x8 is empty"),
    ("spec", (2, 8), (4, 8), (2, 8), "Fault_TileLegality", "src0 valid region 4x8 exceeds the destination 2x8"),
    ("spec", (4, 8), (2, 8), (4, 4), "Fault_TileLegality",
     "neither source covers the destination 4x8 (src0 2x8, src1 4x4)"),
    ("spec", (4, 8), (2, 8), (2, 4), "Fault_TileLegality",
     "neither source covers the destination 4x8 (src0 2x8, src1 2x4)"),
    ("a5", (4, 8), (2, 8), (2, 8), None,
     "a5 asserts (src0==dst || src1==dst) && max(rows)==R && max(cols)==C for dst 4x8 (src0 2x8, src1 2x8)"),
    ("a2a3", (4, 8), (2, 8), (2, 4), None,
     "a2a3 asserts one source equals dst 4x8 and the other fits inside it (src0 2x8, src1 2x4)"),
])
def test_geometry_refusals_name_the_regions_they_refuse(platform, dst, src0, src1, fault, reason):
    """The reason lands in the manifest and in gen's error line, so it must name the regions as given."""
    c = tcase("TPARTADD", platform, "float32", dst, src0, src1,
              shapes={"dst": (8, 8), "src0": (8, 8), "src1": (8, 8)})
    inputs = {r: np.zeros(c.tile(r).shape, np.uint32) for r in ("src0", "src1")}
    out = getattr(tpart, platform)(c, inputs)
    assert out.reason == reason
    if fault:
        assert out.kind == "fault" and (out.fault.name, out.fault.trap, out.fault.reason) == (fault, 5, reason)
    else:
        assert out.kind == "unsupported" and out.fault is None


@pytest.mark.parametrize("platform", ["a2a3", "a5"])
def test_an_npu_with_an_empty_destination_tracks_no_flags(platform):
    """dst valid 0x8 returns early on the NPUs: nothing written, and no flag model (None, not an empty tuple)."""
    c = tcase("TPARTADD", platform, "float32", (0, 8), (2, 8), (2, 8), shapes={"dst": (2, 8)})
    out = getattr(tpart, platform)(c, {r: np.ones(c.tile(r).shape, np.uint32) for r in ("src0", "src1")})
    assert out.kind == "ok" and out.flags is None
    assert (out.classes["dst"] == U).all()


@pytest.mark.parametrize("shared", ["src0", "src1"])
def test_shared_work_tells_apart_inputs_that_share_one_source_array(shared):
    """Two cases in one shared_work context whose inputs share one source array but not the other: each must get
    the sum of its own sources."""
    c = tcase("TPARTADD", "a5", "float32", (2, 8), (2, 8), (2, 8))
    same = np.full((2, 8), 1.0, np.float32).view(np.uint32)
    first = {shared: same, ("src1" if shared == "src0" else "src0"): np.full((2, 8), 2.0, np.float32).view(np.uint32)}
    second = {shared: same, ("src1" if shared == "src0" else "src0"): np.full((2, 8), 5.0, np.float32).view(np.uint32)}
    with tpart.shared_work():
        a = tpart.a5(c, first)
        b = tpart.a5(c, second)
    assert a.outputs["dst"].view(np.float32).tolist() == [[3.0] * 8] * 2
    assert b.outputs["dst"].view(np.float32).tolist() == [[6.0] * 8] * 2


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_the_fast_add_mul_and_the_widening_are_silent_too(dtype):
    """The cpu/NPU element path (add_mul_fast) overflows and makes NaNs on purpose, and widening a signalling NaN
    to float64 is a cast numpy may warn about: none of it may warn."""
    dt = get(dtype)
    big = {"float32": 0x7F7FFFFF, "float16": 0x7BFF, "bfloat16": 0x7F7F}[dtype]
    inf = dt.exp_mask
    snan = dt.exp_mask | 1
    a = np.array([big, inf, snan], dt.bits_dtype)
    b = np.array([big, inf | dt.sign_mask, 0], dt.bits_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        added, _, nan = ieee.add_mul_fast("add", a, b, dt)
        multiplied, _, _ = ieee.add_mul_fast("mul", a, b, dt)
        wide = ieee.to_float64(a, dt)
    assert added.tolist() == [inf, dt.canonical_nan, dt.canonical_nan] and nan.tolist() == [False, True, True]
    assert multiplied.tolist() == [inf, inf | dt.sign_mask, dt.canonical_nan]
    assert np.isnan(wide[2]) and wide[1] == np.inf


@pytest.mark.parametrize(("bad_role", "fault"), [("dst", "Fault_TileAllocation"), ("src0", "Fault_TileLegality"),
                                                 ("src1", "Fault_TileLegality")])
def test_spec_refuses_an_illegal_descriptor_by_role(bad_role, fault):
    """A tile with 24 physical columns is no pto-spec descriptor: the destination fails allocation, a source is a
    legality fault; both trap 5 and name the role."""
    shapes = {"dst": (8, 32), "src0": (8, 32), "src1": (8, 32)}
    shapes[bad_role] = (8, 24)
    c = tcase("TPARTADD", "spec", "float32", (8, 16), (8, 16), (8, 16), shapes=shapes)
    out = tpart.spec(c, {r: np.zeros(c.tile(r).shape, np.uint32) for r in ("src0", "src1")})
    role = "destination" if bad_role == "dst" else bad_role
    reason = f"{role}: physical columns 24 are not a power of two"
    assert out.kind == "fault" and (out.fault.name, out.fault.trap, out.fault.reason) == (fault, 5, reason)


@pytest.mark.parametrize("src0_valid", [(1, 8), (2, 4)])
def test_shared_work_tells_apart_cases_of_other_overlaps_on_the_same_arrays(src0_valid):
    """One source array pair, two cases in one shared_work context: the full 2x8 overlap, then a src0 valid region
    of 1x8 or 2x4. The second case adds only over its own overlap and copies src1 elsewhere."""
    a = np.full((2, 8), 1.0, np.float32).view(np.uint32)
    b = np.full((2, 8), 2.0, np.float32).view(np.uint32)
    full = tcase("TPARTADD", "a5", "float32", (2, 8), (2, 8), (2, 8))
    part = tcase("TPARTADD", "a5", "float32", (2, 8), src0_valid, (2, 8), shapes={"src0": (2, 8)})
    with tpart.shared_work():
        tpart.a5(full, {"src0": a, "src1": b})
        out = tpart.a5(part, {"src0": a, "src1": b})
    want = np.full((2, 8), 2.0, np.float32)
    want[:src0_valid[0], :src0_valid[1]] = 3.0
    assert out.outputs["dst"].view(np.float32).tolist() == want.tolist()
    assert (out.classes["dst"] == E).all()
