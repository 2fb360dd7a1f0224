"""The ULP bound between two evaluation orders of a sum: it holds for every order of real sums (every
permutation of small rows, and random reassociations of long ones), and it is not loose by more than the
binade slack it states."""

from __future__ import annotations

import itertools

import numpy as np

from ptofuzz.core import dtypes
from ptofuzz.engine.compare import ulp_distance
from ptofuzz.oracles.orderbound import order_bound

F32, F16 = dtypes.get("float32"), dtypes.get("float16")


def _bits32(v: float) -> np.ndarray:
    return np.array([v], dtype=np.float32).view(np.uint32)


def _fold(values, order) -> np.float32:
    acc = np.float32(0)
    for i in order:
        acc = np.float32(acc + np.float32(values[i]))
    return acc


def test_every_order_of_a_row_of_mixed_magnitudes_is_within_the_bound():
    values = np.array([1e8, 3.25, 5.0, 1.0e-3, 7.5, -2.0], dtype=np.float32)
    sums = {float(_fold(values, p)) for p in itertools.permutations(range(values.size))}
    assert len(sums) >= 2  # the order matters here
    golden = _bits32(float(_fold(values, range(values.size))))
    bound = int(order_bound(golden, np.abs(values.astype(np.float64)).sum(), values.size, F32, F32)[0])
    for s in sums:
        assert ulp_distance(golden, _bits32(s), F32)[0] <= bound
    assert bound <= 8  # 2 * gamma(5) * 1e8 is about 60, in steps of 8 at 1e8


def test_a_cancelling_row_near_zero_states_no_useful_bound():
    values = np.array([1e8, 3.25, -1e8, 7.5], dtype=np.float32)  # 0, 8, 10.75 or 3.25 by order
    golden = _bits32(float(_fold(values, range(values.size))))
    bound = order_bound(golden, np.abs(values.astype(np.float64)).sum(), values.size, F32, F32)[0]
    assert int(bound) == 2**32 - 1  # the spread reaches past zero: every subnormal lies within


def test_long_rows_in_random_orders_stay_within_and_the_bound_is_not_vacuous():
    rng = np.random.default_rng(5)
    for _ in range(20):
        values = (rng.standard_normal(300) * np.exp2(rng.integers(-8, 8, 300))).astype(np.float32)
        golden = _bits32(float(_fold(values, range(300))))
        bound = int(order_bound(golden, np.abs(values.astype(np.float64)).sum(), 300, F32, F32)[0])
        for _ in range(10):
            other = _bits32(float(_fold(values, rng.permutation(300))))
            assert ulp_distance(golden, other, F32)[0] <= bound
        assert bound < 1 << 20  # a finite statement, far from "anything"


def test_a_wider_accumulator_adds_the_final_rounding():
    golden = np.array([0x3C00], dtype=np.uint16)  # f16 1.0
    same = order_bound(golden, np.array([1.0]), 1, F16, F16)  # one term: no addition, no spread
    wide = order_bound(golden, np.array([1.0]), 1, F32, F16)
    assert int(same[0]) == 0 and int(wide[0]) == 1


def test_a_sum_near_zero_is_bounded_in_subnormal_steps():
    golden = _bits32(0.0)
    bound = int(order_bound(golden, np.array([2.0]), 3, F32, F32)[0])
    # 2 * gamma(2) * 2 = about 4.8e-7, in steps of 2^-149: about 3.4e38, past uint32: the largest bound
    assert bound == 2**32 - 1
