"""ptofuzz/compare.py behaviours the mutation run (tests/README.md) found unpinned: the default rtol/atol of
the ``tol`` mode, the mode line the reports print, the row-level error classes and pto-isa ResultCmp's
64-bit, integer and masked verdicts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, ZERO
from ptofuzz.core.dtypes import get
from ptofuzz.engine.compare import (
    ERROR_CLASSES,
    NOT_COMPARED,
    Mode,
    ResultCmpVerdict,
    compare,
    default_tolerances,
    result_cmp,
)


@pytest.mark.parametrize(("dtype", "rtol", "atol"), [
    # 4 ULPs of 1.0 (2**-fraction bits) and the smallest normal, worked by hand from each format
    ("float32", 4 * 2.0 ** -23, 2.0 ** -126),
    ("float16", 4 * 2.0 ** -10, 2.0 ** -14),
    ("bfloat16", 4 * 2.0 ** -7, 2.0 ** -126),
    ("int32", 0.0, 0.0),
    ("uint8", 0.0, 0.0),
])
def test_default_tolerances_are_four_ulps_of_one_and_the_smallest_normal(dtype, rtol, atol):
    assert default_tolerances(get(dtype)) == (rtol, atol)


def test_tol_mode_accepts_four_ulps_at_one_and_rejects_five():
    f32 = get("float32")
    one = 0x3F800000  # 1.0; one ULP above it is 2**-23
    expected = np.array([[one, one, one]], np.uint32)
    actual = np.array([[one + 4, one + 5, one - 4]], np.uint32)
    c = compare(expected, None, actual, f32, mode=Mode("tol"))
    # allowed: |a - e| <= atol + rtol * |e| = 2**-126 + 2**-21. one + 4 is 4 * 2**-23 = 2**-21 away (passes),
    # one + 5 is 5 * 2**-23 away (fails); below 1.0 the ULP is 2**-24, so one - 4 is 2**-22 away (passes)
    assert c.mismatches == 1 and [d.col for d in c.first] == [1]


def test_tol_mode_is_exact_for_integers():
    i32 = get("int32")
    expected = np.array([[100, -7]], np.int32).view(np.uint32)
    actual = np.array([[101, -7]], np.int32).view(np.uint32)
    c = compare(expected, None, actual, i32, mode=Mode("tol"))
    assert c.mismatches == 1 and c.first[0].col == 0


@pytest.mark.parametrize(("mode", "line"), [
    (Mode(), "bit-exact, NaN payload-exact, zeros signed"),
    (Mode("ulp", ulp=3, nan="any", zeros="unsigned"), "within 3 ULP, NaN any, zeros unsigned"),
    (Mode("tol", zeros="unsigned"), "within rtol/atol, NaN payload-exact, zeros unsigned"),
    (Mode("tol", nan="any"), "within rtol/atol, NaN any, zeros signed"),
])
def test_mode_describe_names_each_setting(mode, line):
    assert mode.describe() == line


# ---- row-level error classes: "missing" (a written row left zero) and "ordering" (same values, other order)


def _row_errors(expected, actual, valid, classes=None):
    i32 = get("int32")
    e = np.array(expected, np.int32).view(np.uint32)
    a = np.array(actual, np.int32).view(np.uint32)
    cls = None if classes is None else np.array(classes, np.uint8)
    c = compare(e, cls, a, i32, valid=valid)
    return [[ERROR_CLASSES[k] if k != NOT_COMPARED else "-" for k in row] for row in c.errors.tolist()]


def test_row_classes_are_judged_row_by_row():
    """Row 0: 2 of 5 golden elements nonzero, left zero: fewer than half, so plain value errors. Row 1: 3 of 5
    nonzero, left zero: missing. Row 2: two values swapped: ordering. Row 3 lies outside the valid region."""
    expected = [[1, 2, 0, 0, 0], [4, 5, 6, 0, 0], [1, 2, 3, 4, 5], [0, 0, 0, 0, 0]]
    actual = [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [2, 1, 3, 4, 5], [0, 0, 0, 0, 9]]
    assert _row_errors(expected, actual, (3, 5)) == [
        ["int-value", "int-value", "ok", "ok", "ok"],
        ["missing", "missing", "missing", "ok", "ok"],
        ["ordering", "ordering", "ok", "ok", "ok"],
        ["ok", "ok", "ok", "ok", "outside"],
    ]


def test_row_classes_of_two_element_rows_in_a_tall_valid_region():
    """Valid 4x2: two-element rows can be missing (rows 0 and 3) or reordered (row 1); rows past the second
    count too (the row limit is the valid rows, not the valid columns)."""
    expected = [[7, 9], [3, 4], [5, 5], [5, 6]]
    actual = [[0, 0], [4, 3], [5, 5], [0, 0]]
    assert _row_errors(expected, actual, (4, 2)) == [
        ["missing", "missing"], ["ordering", "ordering"], ["ok", "ok"], ["missing", "missing"]]


def test_row_classes_ignore_uncompared_lanes():
    """Lane 2 is undefined on the expected side: whatever it holds, row 0 is still missing and row 1 still
    only reordered."""
    expected = [[1, 2, 0], [1, 2, 0]]
    actual = [[0, 0, 5], [2, 1, -7]]
    classes = [[0, 0, 3], [0, 0, 3]]
    assert _row_errors(expected, actual, (2, 3), classes) == [["missing", "missing", "-"],
                                                               ["ordering", "ordering", "-"]]


# ---- pto-isa ResultCmp (tests/common/test_common.h) --------------------------------------------------------


def test_result_cmp_of_64_bit_integers_is_result_cmp_exact():
    """int64 goes through ResultCmpExact: any differing element fails, eps plays no part; 2**60 and 2**60 + 1
    would be equal as floats."""
    i64 = get("int64")
    e = np.array([[1, 2 ** 60]], np.int64).view(np.uint64)
    a = np.array([[1, 2 ** 60 + 1]], np.int64).view(np.uint64)
    assert result_cmp(e, a, i64, 1e-3) == ResultCmpVerdict(False, 0.0, 1, 0, 0)
    assert result_cmp(e, e.copy(), i64, 1e-3) == ResultCmpVerdict(True, 0.0, 0, 0, 0)


def test_result_cmp_of_32_bit_integers_uses_the_tolerance():
    """int32 compares as float: 100 against 101 is 1% off, within eps 0.1 (and 4 elements allow no failure)."""
    i32 = get("int32")
    e = np.array([[100, 7, 7, 7]], np.int32).view(np.uint32)
    a = np.array([[101, 7, 7, 7]], np.int32).view(np.uint32)
    assert result_cmp(e, a, i32, 0.1) == ResultCmpVerdict(True, 0.1, 0, 0, 0)


def test_result_cmp_counts_only_the_compared_elements():
    f32 = get("float32")
    e = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32).view(np.uint32)
    a = np.array([[1.0, 2.0, 3.0, 40.0]], np.float32).view(np.uint32)
    assert result_cmp(e, a, f32, 1e-3) == ResultCmpVerdict(False, 1e-3, 1, 0, 0)
    mask = np.array([[True, True, True, False]])
    assert result_cmp(e, a, f32, 1e-3, mask) == ResultCmpVerdict(True, 1e-3, 0, 0, 0)


# ---- the ulp and tol modes, ZERO classes on integers, values of unsigned and signed integers ----------------


def _f32(*vals):
    return np.array([vals], np.float32).view(np.uint32)


def test_ulp_mode_allows_exactly_the_given_distance():
    one = 0x3F800000
    e = np.array([[one, one, one, 0x00000000, 0x7FC00000]], np.uint32)
    a = np.array([[one + 2, one + 3, one - 2, 0x80000000, 0x3F800000]], np.uint32)
    c = compare(e, None, a, get("float32"), mode=Mode("ulp", ulp=2))
    # +2 and -2 ULP pass; +3 fails; -0 against +0 is a signed-zero error in every mode but zeros="unsigned";
    # NaN against a number is never within any distance
    assert [d.col for d in c.first] == [1, 3, 4]
    assert [d.error for d in c.first] == ["ulp-2..16", "signed-zero", "nan-vs-number"]
    assert compare(e, None, a, get("float32"), mode=Mode("ulp", ulp=3)).mismatches == 2
    assert compare(e, None, a, get("float32"), mode=Mode("ulp", ulp=2, zeros="unsigned")).mismatches == 2


def test_ulp_mode_never_forgives_an_infinity_one_bit_pattern_past_the_largest_float():
    e, a = np.array([[0x7F7FFFFF]], np.uint32), np.array([[0x7F800000]], np.uint32)
    c = compare(e, None, a, get("float32"), mode=Mode("ulp", ulp=16))
    assert c.mismatches == 1 and c.first[0].error == "inf"


def test_tol_mode_takes_explicit_rtol_and_atol():
    e, a = _f32(100.0, 0.0, -0.0), _f32(101.0, 0.5, 0.0)
    f32 = get("float32")
    c = compare(e, None, a, f32, mode=Mode("tol", rtol=0.02, atol=0.0))
    assert [d.col for d in c.first] == [1, 2]  # 1% passes; 0.5 away from 0 fails with atol 0; -0 vs +0 signed
    c = compare(e, None, a, f32, mode=Mode("tol", rtol=0.0, atol=0.5))
    assert [d.col for d in c.first] == [0, 2]  # 1.0 away fails with rtol 0; 0.5 passes (<=); -0 vs +0 signed
    c = compare(e, None, a, f32, mode=Mode("tol", rtol=0.0, atol=0.5, zeros="unsigned"))
    assert [d.col for d in c.first] == [0]


def test_tol_mode_never_matches_an_infinity_or_nan_with_a_number():
    e, a = _f32(np.inf, 3.0, np.nan), _f32(3.4e38, np.inf, 1.0)
    c = compare(e, None, a, get("float32"), mode=Mode("tol", rtol=1.0, atol=1e30))
    assert c.mismatches == 3


def test_tol_mode_is_silent_on_equal_infinities():
    e, a = _f32(np.inf, 1.0), _f32(np.inf, 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compare(e, None, a, get("float32"), mode=Mode("tol"))
    assert [d.col for d in c.first] == [1]


def test_a_zero_class_on_integers_accepts_only_zero():
    i32 = get("int32")
    e = np.array([[5, 5, 7, 1]], np.int32).view(np.uint32)
    a = np.array([[0, 1, 7, 1]], np.int32).view(np.uint32)
    cls = np.array([[ZERO, ZERO, EXACT, ZERO]], np.uint8)
    c = compare(e, cls, a, i32)
    assert [d.col for d in c.first] == [1, 3]  # 1 is no zero, even where the placeholder says 1 too


@pytest.mark.parametrize(("dtype", "e", "a", "diff"), [("uint8", 200, 100, 100.0), ("int8", -1, 1, 2.0),
                                                       ("uint32", 0xFFFFFFFF, 1, 4294967294.0)])
def test_integer_differences_are_measured_on_the_signed_or_unsigned_values(dtype, e, a, diff):
    dt = get(dtype)
    bits = dt.bits_dtype
    ee = np.array([[e]], dtype).view(bits)
    aa = np.array([[a]], dtype).view(bits)
    assert compare(ee, None, aa, dt).max_abs == diff


def test_float16_result_cmp_compares_values_unless_asked_for_bits():
    """+0 against the smallest subnormal: by value 6e-8 apart (within eps); as NPU bit patterns 1 apart with an
    infinite relative error."""
    f16 = get("float16")
    e, a = np.array([[0x0000]], np.uint16), np.array([[0x0001]], np.uint16)
    assert compare(e, None, a, f16, eps=1e-3).result_cmp.passed
    assert not compare(e, None, a, f16, eps=1e-3, half_as_bits=True).result_cmp.passed


def test_result_cmp_edges_are_strict_and_values_go_through_float32():
    f32, i32 = get("float32"), get("int32")
    eps = 2.0 ** -10
    # |e-a| == eps (relative 2 eps) passes, relative == eps (absolute 2 eps) passes: both tests are strict
    e, a = _f32(0.5, 2.0), _f32(0.5 + eps, 2.0 + 2 * eps)
    assert result_cmp(e, a, f32, eps) == ResultCmpVerdict(True, eps, 0, 0, 0)
    # int32 as float: 2**24 + 1 and 2**24 are one float32 value, either way round
    e = np.array([[2 ** 24 + 1, 2 ** 24]], np.int32).view(np.uint32)
    a = np.array([[2 ** 24, 2 ** 24 + 1]], np.int32).view(np.uint32)
    assert result_cmp(e, a, i32, 0.0) == ResultCmpVerdict(True, 0.0, 0, 0, 0)


@pytest.mark.parametrize(("zeros", "passed"), [(1000, True), (1001, False)])
def test_result_cmp_allows_1000_elements_left_near_zero(zeros, passed):
    """eps 1.0 forgives every value error (|1 - 0| is not > 1), so only the near-zero count decides."""
    e = np.ones((1, 1001), np.float32)
    a = np.ones((1, 1001), np.float32)
    a[0, :zeros] = 0.0
    v = result_cmp(e.view(np.uint32), a.view(np.uint32), get("float32"), 1.0)
    assert (v.passed, v.errors, v.zero_count) == (passed, 0, zeros)


def test_result_cmp_is_silent_on_a_zero_golden():
    e, a = _f32(0.0, 1.0), _f32(1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = result_cmp(e, a, get("float32"), 1e-3)
    assert v.errors == 1


# ---- second mutation run ------------------------------------------------------------------------------------

def test_reported_differences_say_valid_or_outside_by_row_and_column():
    """A 2x4 file with valid region 2x2: a difference in column 2 (the first column past ValidCol) is outside,
    one in column 1 is valid; with no valid region given the region is blank."""
    e = np.zeros((2, 4), np.uint32)
    a = e.copy()
    a[0, 1], a[0, 2], a[1, 3] = 1, 2, 3
    dt = get("uint32")
    got = compare(e, None, a, dt, valid=(2, 2))
    assert [(d.row, d.col, d.region) for d in got.first] == [(0, 1, "valid"), (0, 2, "outside"), (1, 3, "outside")]
    assert [d.region for d in compare(e, None, a, dt).first] == ["", "", ""]


def test_the_specials_count_infinities_and_the_comparison_keeps_its_mode():
    dt = get("float32")
    e = np.array([[np.inf, -np.inf, 1.0, np.nan]], np.float32).view(np.uint32)
    a = np.array([[np.inf, 2.0, 0.0, 1.0]], np.float32).view(np.uint32)
    mode = Mode(kind="ulp", ulp=3)
    got = compare(e, None, a, dt, mode=mode)
    assert got.specials == {"expected": {"nan": 1, "inf": 2, "zero": 0}, "actual": {"nan": 0, "inf": 1, "zero": 1}}
    assert got.mode == mode


def test_a_difference_in_the_first_row_past_the_valid_rows_is_outside():
    """Valid region 2x2 of a 4x4 file: row 2 (the first row past ValidRow), column 0, is outside."""
    e = np.zeros((4, 4), np.uint32)
    a = e.copy()
    a[1, 1], a[2, 0] = 1, 2
    got = compare(e, None, a, get("uint32"), valid=(2, 2))
    assert [(d.row, d.col, d.region) for d in got.first] == [(1, 1, "valid"), (2, 0, "outside")]


def test_the_largest_differences_are_measured_without_numpy_warnings():
    """A zero golden against 1.0: the relative error is infinite and numpy's divide warning stays silent."""
    e, a = np.array([[0.0, 2.0]], np.float32).view(np.uint32), np.array([[1.0, 2.0]], np.float32).view(np.uint32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compare(e, None, a, get("float32"))
    assert got.max_abs == 1.0 and got.mismatches == 1


@pytest.mark.parametrize(("ulps", "code"), [(1, "ulp-1"), (2, "ulp-2..16"), (16, "ulp-2..16"), (17, "ulp-large")])
def test_element_errors_bands_end_at_16_ulps(ulps, code):
    from ptofuzz.engine.compare import ERR, element_errors

    one = 0x3F800000
    got = element_errors(np.array([one], np.uint32), np.array([one + ulps], np.uint32), get("float32"))
    assert got.tolist() == [ERR[code]]
