"""The pto-isa platform oracles for TPART* (``oracles/tpart.py: cpu, a2a3, a5, a5_int64``).

References (expected values are worked by hand from these), pto-isa 3186c381:
- what the cpu simulator, a2a3 and a5 compute and their geometry checks: ``include/pto/cpu/TPartOp.hpp`` with
  ``TPart{Add,Mul,Max,Min}.hpp``, ``include/pto/npu/a2a3/TPartOp.hpp``, ``include/pto/npu/a5/TPartBinOps.hpp``;
  A5 ``Int64Part``: ``include/pto/npu/a5/Int64Reduce.hpp`` (summed up in docs/reference/oracles.md).
- the dtypes each platform accepts: the ``static_assert``s of those ``TPart*.hpp`` (cpu: ``TPartCheck``).
- npu element classes (UNDEFINED where pto-isa documents nothing: integer overflow, NaN in max/min, fp16
  denormals; ZERO for mixed-sign zeros; NAN for a NaN add result): oracles/tpart.py ``npu_element``, which
  follows the headers' native vector arithmetic and ``docs/isa/TPART*.md``, silent on overflow and NaN.
"""

from __future__ import annotations

import numpy as np
import pytest
from tpart_helpers import case, cropped

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, Tile
from ptofuzz.instructions import registry

# ---------------------------------------------------------------------------------------------------------
# helpers

def fill(dtype, shape, start=1):
    """Distinct nonzero element bits start, start+1, ... row-major at ``shape``."""
    n = int(np.prod(shape))
    return (np.arange(start, start + n, dtype=np.uint64) % (1 << min(dtypes.get(dtype).bits, 63))).astype(
        dtypes.get(dtype).bits_dtype).reshape(shape)


def run(op, platform, dtype, dst, src0, src1, a=None, b=None, shapes=None):
    """Evaluate through the registry; a/b default to distinct nonzero bits at each source's physical shape."""
    c = case(op, platform, dtype, dst, src0, src1, shapes)
    a = fill(dtype, c.tile("src0").shape, 1) if a is None else np.asarray(a, dtype=dtypes.get(dtype).bits_dtype)
    b = fill(dtype, c.tile("src1").shape, 101) if b is None else np.asarray(b, dtype=dtypes.get(dtype).bits_dtype)
    out = registry.get(op).evaluate(c, {"src0": a, "src1": b})
    return (cropped(out, *dst) if platform == "spec" and shapes is None else out), a, b


def one(op, platform, dtype, x, y):
    """op(x, y) on 1x1 tiles: (bits, class)."""
    out, _, _ = run(op, platform, dtype, (1, 1), (1, 1), (1, 1), [[x]], [[y]])
    assert out.kind == "ok", out.reason
    return int(out.outputs["dst"][0, 0]), int(out.classes["dst"][0, 0])


def ok(out):
    assert out.kind == "ok", (out.kind, out.reason)
    return out.outputs["dst"], out.classes["dst"]


F32_ONE, F32_TWO, F32_THREE = 0x3F800000, 0x40000000, 0x40400000
F32_POS_ZERO, F32_NEG_ZERO = 0x00000000, 0x80000000
F32_INF, F32_NEG_INF = 0x7F800000, 0xFF800000
F32_SNAN, F32_QNAN = 0x7F800123, 0xFFC00042  # sNaN with a payload; negative qNaN with a payload
NPU = ("a2a3", "a5")


# ---------------------------------------------------------------------------------------------------------
# cpu simulator (include/pto/cpu/TPartOp.hpp, TPart{Add,Mul,Max,Min}.hpp)


def test_cpu_writes_zero_where_neither_source_is_valid():
    # dst 2x3, src0 1x3 (row 0), src1 2x1 (column 0): (1,1) and (1,2) are covered by neither -> 0.
    out, a, b = run("TPARTADD", "cpu", "int32", (2, 3), (1, 3), (2, 1))
    dst, cls = ok(out)
    assert dst.tolist() == [[a[0, 0] + b[0, 0], a[0, 1], a[0, 2]],
                            [b[1, 0], 0, 0]]
    assert (cls == EXACT).all()  # the zeros are what the simulator writes: exact


def test_cpu_accepts_sources_overhanging_the_destination():
    # No geometry check on cpu: src0 3x4 and src1 1x5 both exceed the 2x3 dst (src1 in columns only).
    out, a, b = run("TPARTMUL", "cpu", "int16", (2, 3), (3, 4), (1, 5))
    dst, cls = ok(out)
    assert dst.tolist() == [[a[0, 0] * b[0, 0], a[0, 1] * b[0, 1], a[0, 2] * b[0, 2]],
                            [a[1, 0], a[1, 1], a[1, 2]]]
    assert (cls == EXACT).all()


def test_cpu_empty_source_is_not_valid_so_the_other_is_copied():
    out, a, b = run("TPARTMAX", "cpu", "uint8", (2, 2), (0, 2), (2, 2), shapes={"src0": (2, 2)})
    dst, cls = ok(out)
    assert dst.tolist() == b.tolist()
    assert (cls == EXACT).all()
    out, a, b = run("TPARTMIN", "cpu", "int8", (2, 2), (2, 2), (2, 0), shapes={"src1": (2, 2)})
    assert ok(out)[0].tolist() == a.tolist()


def test_cpu_both_sources_empty_gives_all_zeros():
    shapes = {"src0": (2, 2), "src1": (2, 2)}
    out, _, _ = run("TPARTADD", "cpu", "float32", (2, 2), (0, 0), (2, 0), shapes=shapes)
    dst, cls = ok(out)
    assert dst.tolist() == [[0, 0], [0, 0]]
    assert (cls == EXACT).all()


def test_cpu_empty_destination_writes_nothing():
    out, _, _ = run("TPARTADD", "cpu", "float32", (0, 2), (2, 2), (2, 2), shapes={"dst": (2, 2)})
    _, cls = ok(out)
    assert (cls == UNDEFINED).all()


@pytest.mark.parametrize(("op", "x", "y", "expected"), [
    # docs/isa/TPARTMAX.md, TPARTMIN.md: max(src0, src1), nothing more: a NaN operand is open, mixed zeros some zero
    ("TPARTMAX", F32_SNAN, F32_ONE, UNDEFINED), ("TPARTMAX", F32_ONE, F32_QNAN, UNDEFINED),
    ("TPARTMIN", F32_QNAN, F32_ONE, UNDEFINED), ("TPARTMIN", F32_ONE, F32_SNAN, UNDEFINED),
    ("TPARTMAX", F32_POS_ZERO, F32_NEG_ZERO, ZERO), ("TPARTMIN", F32_NEG_ZERO, F32_POS_ZERO, ZERO),
])
def test_cpu_max_min_leave_what_the_pages_leave_open(op, x, y, expected):
    assert one(op, "cpu", "float32", x, y)[1] == expected


@pytest.mark.parametrize(("op", "x", "y", "expected"), [
    ("TPARTMAX", F32_ONE, F32_TWO, F32_TWO), ("TPARTMAX", F32_NEG_INF, F32_ONE, F32_ONE),
    ("TPARTMAX", F32_POS_ZERO, F32_POS_ZERO, F32_POS_ZERO), ("TPARTMIN", F32_TWO, F32_ONE, F32_ONE),
    ("TPARTMIN", F32_ONE, F32_NEG_INF, F32_NEG_INF), ("TPARTMIN", F32_NEG_ZERO, F32_NEG_ZERO, F32_NEG_ZERO),
])
def test_cpu_max_min_of_ordered_operands_is_exact(op, x, y, expected):
    assert one(op, "cpu", "float32", x, y) == (expected, EXACT)


def test_cpu_max_min_16_bit_floats_follow_the_page_too():
    """float16 and bfloat16: a NaN operand is open, mixed zeros some zero, ordered operands exact."""
    assert one("TPARTMAX", "cpu", "float16", 0x7C05, 0x3C00)[1] == UNDEFINED
    assert one("TPARTMIN", "cpu", "float16", 0x3C00, 0x7C05)[1] == UNDEFINED
    assert one("TPARTMAX", "cpu", "bfloat16", 0x8000, 0x0000)[1] == ZERO
    assert one("TPARTMIN", "cpu", "float16", 0x3C00, 0x4000) == (0x3C00, EXACT)


def test_cpu_add_nan_results_are_class_nan_others_exact():
    a = [[F32_INF, F32_QNAN, F32_ONE, 0x0]]
    b = [[F32_NEG_INF, F32_ONE, F32_SNAN, 0x0]]
    out, _, _ = run("TPARTADD", "cpu", "float32", (1, 4), (1, 4), (1, 4), a, b)
    dst, cls = ok(out)
    assert cls.tolist() == [[NAN, NAN, NAN, EXACT]]
    assert int(dst[0, 3]) == 0
    assert out.flags is None  # the simulator tracks no status flags


def test_cpu_float_add_mul_are_correctly_rounded():
    # float16 1 + 3*2**-11 -> 1 + 2**-9 (RNE tie to even), bf16 (1+2**-7)*1.5 -> 1.5 + 2**-6 (cpu TPartAdd.hpp
    # and TPartMul.hpp compute in _Float16 / bfloat16_t, rounded once)
    assert one("TPARTADD", "cpu", "float16", 0x3C00, 0x1600) == (0x3C02, EXACT)
    assert one("TPARTMUL", "cpu", "bfloat16", 0x3F81, 0x3FC0) == (0x3FC2, EXACT)
    assert one("TPARTADD", "cpu", "float32", 0x3F800000, 0x33800000) == (0x3F800000, EXACT)


def test_cpu_integers_wrap_and_keep_signed_order():
    assert one("TPARTADD", "cpu", "uint8", 200, 100) == (44, EXACT)
    assert one("TPARTMUL", "cpu", "int16", 300, 300) == (24464, EXACT)
    assert one("TPARTMAX", "cpu", "int8", 0xFF, 1) == (1, EXACT)
    assert one("TPARTMIN", "cpu", "int8", 0xFF, 1) == (0xFF, EXACT)


# ---------------------------------------------------------------------------------------------------------
# a2a3 (include/pto/npu/a2a3/TPartOp.hpp)


@pytest.mark.parametrize("src0,src1", [
    ((4, 8), (4, 8)),  # all equal
    ((4, 8), (2, 8)),  # r < R, c == C (rowLt)
    ((4, 8), (4, 3)),  # r == R, c < C (colLt)
    ((4, 8), (2, 3)),  # smaller in both (colLt)
    ((1, 8), (4, 8)),  # src1 is the dst-sized one
    ((4, 5), (4, 8)),
    ((0, 8), (4, 8)),  # empty source: rowLt with the op skipped -> a copy of big
    ((4, 8), (4, 0)),
])
def test_a2a3_accepts_the_listed_patterns(src0, src1):
    shapes = {r: (4, 8) for r, v in (("src0", src0), ("src1", src1)) if 0 in v}
    out, a, b = run("TPARTADD", "a2a3", "int32", (4, 8), src0, src1, shapes=shapes)
    dst, cls = ok(out)
    expected = np.zeros((4, 8), np.int64)
    for i in range(4):
        for j in range(8):
            in0 = i < src0[0] and j < src0[1]
            in1 = i < src1[0] and j < src1[1]
            expected[i, j] = a[i, j] + b[i, j] if in0 and in1 else (a[i, j] if in0 else b[i, j])
    assert dst.tolist() == expected.tolist()
    assert (cls == EXACT).all()


@pytest.mark.parametrize("src0,src1", [
    ((4, 4), (2, 8)),  # neither source equals the 4x8 dst
    ((3, 8), (3, 8)),
    ((4, 8), (5, 8)),  # one equals dst, the other has more rows
    ((4, 8), (4, 9)),  # ... or more columns
    ((5, 8), (4, 8)),
])
def test_a2a3_reports_other_patterns_unsupported(src0, src1):
    out, _, _ = run("TPARTADD", "a2a3", "float32", (4, 8), src0, src1)
    assert out.kind == "unsupported"
    assert out.outputs == {}


def test_a2a3_empty_destination_returns_early_nothing_exact():
    for dst in ((0, 8), (4, 0)):
        out, _, _ = run("TPARTMUL", "a2a3", "float16", dst, (4, 8), (4, 8), shapes={"dst": (4, 8)})
        _, cls = ok(out)
        assert cls.shape == (4, 8)
        assert not (cls == EXACT).any()


# ---------------------------------------------------------------------------------------------------------
# a5 (include/pto/npu/a5/TPartBinOps.hpp)


def test_a5_accepts_src1_smaller_in_both_dimensions():
    # A5 test case fp32 2x24 / 2x24 / 1x8: op on row 0 cols 0..7, the rest copies src0 (srcBig).
    out, a, b = run("TPARTMAX", "a5", "float32", (2, 24), (2, 24), (1, 8),
                    a=np.full((2, 24), F32_TWO), b=np.full((1, 8), F32_THREE))
    dst, cls = ok(out)
    assert (dst[0, :8] == F32_THREE).all()
    assert (dst[0, 8:] == F32_TWO).all() and (dst[1] == F32_TWO).all()
    assert (cls == EXACT).all()


@pytest.mark.parametrize("src0,src1", [
    ((8, 8), (8, 8)), ((8, 8), (2, 8)), ((8, 3), (8, 8)), ((8, 8), (5, 7)),
    ((0, 8), (8, 8)), ((8, 8), (8, 0)),  # empty sources: TPartCopySrc copies the non-empty one
])
def test_a5_accepts_one_source_equal_to_dst_and_the_max_extent_equal_to_dst(src0, src1):
    shapes = {r: (8, 8) for r, v in (("src0", src0), ("src1", src1)) if 0 in v}
    out, a, b = run("TPARTMIN", "a5", "int16", (8, 8), src0, src1, shapes=shapes)
    dst, cls = ok(out)
    av, bv = a.view(np.int16), b.view(np.int16)
    for i in range(8):
        for j in range(8):
            in0 = i < src0[0] and j < src0[1]
            in1 = i < src1[0] and j < src1[1]
            want = min(av[i, j], bv[i, j]) if in0 and in1 else (av[i, j] if in0 else bv[i, j])
            assert dst.view(np.int16)[i, j] == want
    assert (cls == EXACT).all()


@pytest.mark.parametrize("src0,src1", [
    ((8, 4), (4, 8)),  # max rows/cols reach dst but neither source is dst
    ((6, 8), (6, 8)),
    ((8, 8), (9, 8)),  # a source larger than dst
    ((8, 9), (8, 8)),
])
def test_a5_rejects_other_patterns_as_unsupported(src0, src1):
    out, _, _ = run("TPARTADD", "a5", "float16", (8, 8), src0, src1)
    assert out.kind == "unsupported"


def test_a5_empty_destination_returns_early():
    out, _, _ = run("TPARTADD", "a5", "uint8", (0, 4), (2, 4), (2, 4), shapes={"dst": (2, 4)})
    _, cls = ok(out)
    assert (cls == UNDEFINED).all()


# ---- a5 int64 / uint64: Int64Part (include/pto/npu/a5/Int64Reduce.hpp) ----------------------------------


def test_a5_int64_rows_beyond_the_shorter_source_come_from_the_taller():
    # A5 test int64_4x16_2x16_4x16: rows 0-1 add, rows 2-3 src1.
    out, a, b = run("TPARTADD", "a5", "int64", (4, 16), (2, 16), (4, 16))
    dst, cls = ok(out)
    assert (dst[:2] == a + b[:2]).all()
    assert (dst[2:] == b[2:]).all()
    assert (cls == EXACT).all()


def test_a5_int64_column_tail_comes_from_the_wider_source():
    # A5 test int64_4x16_4x8_4x16: cols 0-7 add, cols 8-15 src1.
    out, a, b = run("TPARTADD", "a5", "int64", (4, 16), (4, 8), (4, 16))
    dst, cls = ok(out)
    assert (dst[:, :8] == a + b[:, :8]).all()
    assert (dst[:, 8:] == b[:, 8:]).all()
    assert (cls == EXACT).all()


def test_a5_int64_bypasses_the_geometry_assert():
    # src0 2x16 (wider, shorter), src1 4x8 (taller, narrower), neither equals dst 4x16:
    # rows 0-1: op on cols 0-7, tail cols 8-15 from src0 (the wider);
    # rows 2-3: src1 (the taller) on its 8 cols; cols 8-15 there are written by no one -> UNDEFINED.
    out, a, b = run("TPARTMAX", "a5", "uint64", (4, 16), (2, 16), (4, 8))
    dst, cls = ok(out)
    assert (dst[:2, :8] == np.maximum(a[:, :8], b[:2])).all()
    assert (dst[:2, 8:] == a[:, 8:]).all()
    assert (dst[2:, :8] == b[2:]).all()
    expected = np.full((4, 16), EXACT)
    expected[2:, 8:] = UNDEFINED
    assert (cls == expected).all()


def test_a5_int64_columns_from_64_on_are_undefined():
    # One 256-byte vector per row and no column loop: 64 int64 columns at most.
    out, a, b = run("TPARTADD", "a5", "int64", (2, 80), (2, 80), (2, 80))
    dst, cls = ok(out)
    assert (dst[:, :64] == a[:, :64] + b[:, :64]).all()
    assert (cls[:, :64] == EXACT).all()
    assert (cls[:, 64:] == UNDEFINED).all()


def test_a5_int64_outside_the_dst_valid_region_is_undefined():
    out, a, b = run("TPARTMIN", "a5", "int64", (2, 4), (2, 4), (2, 4), shapes={"dst": (4, 8)})
    dst, cls = ok(out)
    assert (dst[:2, :4] == np.minimum(a.view(np.int64), b.view(np.int64)).view(np.uint64)).all()
    expected = np.full((4, 8), UNDEFINED)
    expected[:2, :4] = EXACT
    assert (cls == expected).all()


def test_a5_int64_values_wrap_and_order():
    # 64-bit add wraps through the carry chain (exact, unlike <= 32-bit overflow); signed vs unsigned order.
    assert one("TPARTADD", "a5", "int64", 0x7FFFFFFFFFFFFFFF, 1) == (0x8000000000000000, EXACT)
    assert one("TPARTADD", "a5", "uint64", 0xFFFFFFFFFFFFFFFF, 2) == (1, EXACT)
    assert one("TPARTADD", "a5", "int64", 0x00000000FFFFFFFF, 1) == (0x100000000, EXACT)  # carry across halves
    assert one("TPARTMAX", "a5", "int64", 0xFFFFFFFFFFFFFFFF, 1) == (1, EXACT)
    assert one("TPARTMAX", "a5", "uint64", 0xFFFFFFFFFFFFFFFF, 1) == (0xFFFFFFFFFFFFFFFF, EXACT)
    assert one("TPARTMIN", "a5", "int64", 0x8000000000000000, 0x7FFFFFFFFFFFFFFF) == (0x8000000000000000, EXACT)
    # the sign lives in the high word: -2**32 < 1
    assert one("TPARTMIN", "a5", "int64", 0xFFFFFFFF00000000, 1) == (0xFFFFFFFF00000000, EXACT)


# ---------------------------------------------------------------------------------------------------------
# NPU element classes (a2a3 and a5)


@pytest.mark.parametrize("platform", NPU)
def test_npu_integer_overflow_is_undefined(platform):
    assert one("TPARTADD", platform, "int16", 0x7FFF, 1)[1] == UNDEFINED
    assert one("TPARTADD", platform, "int16", 0x8000, 0xFFFF)[1] == UNDEFINED  # -32768 + -1
    assert one("TPARTMUL", platform, "int32", 0x10000, 0x10000)[1] == UNDEFINED
    # in range: exact
    assert one("TPARTADD", platform, "int16", 0x7FFE, 1) == (0x7FFF, EXACT)
    assert one("TPARTADD", platform, "int16", 0xFFFF, 0xFFFF) == (0xFFFE, EXACT)  # -1 + -1 = -2
    assert one("TPARTMUL", platform, "int32", 0xFFFFFFFF, 0x80000001) == (0x7FFFFFFF, EXACT)  # -1*-(2**31-1)


def test_a5_unsigned_overflow_is_undefined():
    assert one("TPARTADD", "a5", "uint8", 200, 100)[1] == UNDEFINED
    assert one("TPARTMUL", "a5", "uint16", 256, 256)[1] == UNDEFINED
    assert one("TPARTADD", "a5", "uint32", 0xFFFFFFFE, 1) == (0xFFFFFFFF, EXACT)
    assert one("TPARTMUL", "a5", "int8", 0x80, 0xFF)[1] == UNDEFINED  # -128 * -1 = 128


@pytest.mark.parametrize("platform", NPU)
@pytest.mark.parametrize("op", ["TPARTMAX", "TPARTMIN"])
def test_npu_max_min_with_a_nan_operand_is_undefined(platform, op):
    assert one(op, platform, "float32", F32_SNAN, F32_ONE)[1] == UNDEFINED
    assert one(op, platform, "float32", F32_ONE, F32_QNAN)[1] == UNDEFINED
    assert one(op, platform, "float16", 0x7E00, 0x7E00)[1] == UNDEFINED


@pytest.mark.parametrize("platform", NPU)
@pytest.mark.parametrize("op", ["TPARTMAX", "TPARTMIN"])
def test_npu_max_min_mixed_sign_zeros_is_any_zero(platform, op):
    for x, y in ((F32_POS_ZERO, F32_NEG_ZERO), (F32_NEG_ZERO, F32_POS_ZERO)):
        bits, cls = one(op, platform, "float32", x, y)
        assert cls == ZERO
        assert bits & 0x7FFFFFFF == 0  # the placeholder is a zero
    # same-sign zeros and ordinary values are exact
    assert one(op, platform, "float32", F32_NEG_ZERO, F32_NEG_ZERO) == (F32_NEG_ZERO, EXACT)
    want = F32_TWO if op == "TPARTMAX" else F32_ONE
    assert one(op, platform, "float32", F32_ONE, F32_TWO) == (want, EXACT)


@pytest.mark.parametrize("platform", NPU)
def test_npu_float16_subnormals_in_add_are_undefined(platform):
    # undefined only where flushing a subnormal operand to zero would change the result ...
    assert one("TPARTADD", platform, "float16", 0x0001, 0x0001)[1] == UNDEFINED  # subnormal + subnormal
    assert one("TPARTADD", platform, "float16", 0x0001, 0x0400)[1] == UNDEFINED  # min normal + 2**-24
    # ... not where the subnormal is lost in rounding anyway: 1 + 2**-24 and 1 - 1023*2**-24 are 1.0
    assert one("TPARTADD", platform, "float16", 0x0001, 0x3C00) == (0x3C00, EXACT)
    assert one("TPARTADD", platform, "float16", 0x3C00, 0x83FF) == (0x3C00, EXACT)
    assert one("TPARTADD", platform, "float16", 0x0401, 0x8400)[1] == UNDEFINED  # normal - normal -> subnormal
    assert one("TPARTMUL", platform, "float16", 0x0400, 0x3800)[1] == UNDEFINED  # min normal * 0.5
    # normal operands with a normal result: exact IEEE RNE (1 + 3*2**-11 -> 1 + 2**-9)
    assert one("TPARTADD", platform, "float16", 0x3C00, 0x1600) == (0x3C02, EXACT)


def test_a5_subnormal_rules_cover_bfloat16_and_float32():
    assert one("TPARTADD", "a5", "bfloat16", 0x0001, 0x0001)[1] == UNDEFINED
    assert one("TPARTADD", "a5", "float32", 0x00000001, 0x00000001)[1] == UNDEFINED
    assert one("TPARTADD", "a5", "float32", 0x00000001, 0x3F800000) == (0x3F800000, EXACT)


@pytest.mark.parametrize("platform", NPU)
def test_npu_float_overflow_and_subnormal_max_min(platform):
    big = 0x7F7FFFFF  # float32 max: max + max overflows (inf or saturation: undocumented)
    assert one("TPARTADD", platform, "float32", big, big)[1] == UNDEFINED
    assert one("TPARTADD", platform, "float32", 0x7F800000, 0x3F800000) == (0x7F800000, EXACT)  # inf + 1
    assert one("TPARTMAX", platform, "float16", 0x0001, 0x3C00) == (0x3C00, EXACT)  # flushing cannot matter
    assert one("TPARTMAX", platform, "float16", 0x0001, 0xBC00)[1] == UNDEFINED  # the subnormal itself wins
    assert one("TPARTMIN", platform, "float16", 0x8001, 0x0000)[1] == UNDEFINED  # -sub, or -0 when flushed
    assert one("TPARTMAX", platform, "float16", 0x0000, 0x8000)[1] == ZERO  # mixed zeros: some zero


@pytest.mark.parametrize("platform, dtype, big", [("a2a3", "float16", 0x7BFF), ("a5", "float16", 0x7BFF),
                                                   ("a5", "bfloat16", 0x7F7F)])
def test_npu_half_and_bf16_overflow_is_undefined(platform, dtype, big):
    # 65504 + 65504 is finite in float32 but rounds to inf in float16: judged on the rounded result
    assert one("TPARTADD", platform, dtype, big, big)[1] == UNDEFINED
    assert one("TPARTMUL", platform, dtype, big, big)[1] == UNDEFINED
    assert one("TPARTADD", platform, dtype, big, big ^ 0x8000) == (0x0000, EXACT)  # max - max = +0


@pytest.mark.parametrize("platform", NPU)
def test_npu_nan_add_result_is_class_nan(platform):
    assert one("TPARTADD", platform, "float32", F32_INF, F32_NEG_INF)[1] == NAN
    assert one("TPARTADD", platform, "float32", F32_QNAN, F32_ONE)[1] == NAN
    assert one("TPARTMUL", platform, "float32", F32_INF, F32_POS_ZERO)[1] == NAN
    assert one("TPARTADD", platform, "float16", 0x7C01, 0x3C00)[1] == NAN  # even a NaN with fp16 rules
    assert one("TPARTADD", platform, "float32", F32_ONE, F32_TWO) == (F32_THREE, EXACT)


def test_npu_copy_of_a_nan_stays_exact():
    # Only the op region gets NPU classes; a NaN that is merely copied (srcBig) is bit exact.
    a = [[F32_ONE, F32_SNAN]]
    out, _, _ = run("TPARTMAX", "a5", "float32", (1, 2), (1, 2), (1, 1), a, [[F32_TWO]])
    dst, cls = ok(out)
    assert dst.tolist() == [[F32_TWO, F32_SNAN]]
    assert cls.tolist() == [[EXACT, EXACT]]


# ---------------------------------------------------------------------------------------------------------
# dtype sets (the static_asserts of each platform's TPart*.hpp; cpu: TPartCheck in TPartOp.hpp)


@pytest.mark.parametrize("op,platform,dtype,kind", [
    ("TPARTADD", "a2a3", "bfloat16", "unsupported"),
    ("TPARTMAX", "a2a3", "int8", "unsupported"),
    ("TPARTADD", "a2a3", "float16", "ok"),
    ("TPARTMUL", "a2a3", "int32", "ok"),
    ("TPARTADD", "cpu", "uint16", "unsupported"),
    ("TPARTADD", "cpu", "uint32", "unsupported"),
    ("TPARTMAX", "cpu", "int64", "unsupported"),
    ("TPARTADD", "cpu", "bfloat16", "ok"),
    ("TPARTMUL", "cpu", "uint8", "ok"),
    ("TPARTMUL", "a5", "int64", "unsupported"),
    ("TPARTMUL", "a5", "uint64", "unsupported"),
    ("TPARTADD", "a5", "int64", "ok"),
    ("TPARTMIN", "a5", "uint64", "ok"),
    ("TPARTMUL", "a5", "bfloat16", "ok"),
    ("TPARTMUL", "a5", "uint8", "ok"),
])
def test_platform_dtype_sets(op, platform, dtype, kind):
    out, _, _ = run(op, platform, dtype, (1, 2), (1, 2), (1, 2))
    assert out.kind == kind, out.reason
    if kind == "unsupported":
        assert out.fault is None and dtype in out.reason


def test_npu_tiny_bfloat16_product_that_underflows_in_float32_is_undefined():
    """The exact product 2**-252 of two bf16 2**-126 is tiny (the spec raises UF); whether the NPU flushes is
    undocumented, so it is UNDEFINED even though float32 arithmetic already gives 0."""
    t = Tile(1, 1, 1, 1)
    c = Case("TPARTMUL", "a5", "bfloat16", (("dst", t), ("src0", t), ("src1", t)))
    mul = registry.get("TPARTMUL")
    tiny = mul.evaluate(c, {"src0": np.array([[0x0080]], np.uint16), "src1": np.array([[0x0080]], np.uint16)})
    assert tiny.classes["dst"][0, 0] == UNDEFINED
    normal = mul.evaluate(c, {"src0": np.array([[0x3F80]], np.uint16), "src1": np.array([[0x4000]], np.uint16)})
    assert normal.classes["dst"][0, 0] == EXACT and normal.outputs["dst"][0, 0] == 0x4000


def test_evaluate_accepts_any_dtype_spelling():
    t = Tile(32, 1, 1, 1)  # 128 B: a legal pto-spec descriptor
    c = Case("TPARTADD", "spec", "fp32", (("dst", t), ("src0", t), ("src1", t)))
    one = np.full((32, 1), 0x3F800000, np.uint32)
    out = registry.get("TPARTADD").evaluate(c, {"src0": one, "src1": one})
    assert out.kind == "ok" and out.outputs["dst"][0, 0] == 0x40000000
