"""ptofuzz/compare.py behaviours the mutation run (tests/README.md) found unpinned: the default rtol/atol of
the ``tol`` mode and the mode line the reports print."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.compare import Mode, compare, default_tolerances
from ptofuzz.dtypes import get


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
