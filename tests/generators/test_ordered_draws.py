"""The ordered reductions' draws (generators/ordered.py): every pattern the module declares shows in the drawn
values (cancellation, mixed magnitudes, rounding ties, +-0, NaN and infinities at varying positions, grids exact in
any order, repeat-sized grids), and the reduced lengths reach one term, one repeat, past one and past two."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Tile
from ptofuzz.generators import ordered as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee


def _lines(op: str, dtype: str, lines: int, n: int, draws: int, seed: int) -> np.ndarray:
    """float64 values of ``draws`` x ``lines`` reduced lines of ``n`` terms each (TROWSUM rows, TCOLSUM columns)."""
    dt = dtypes.get(dtype)
    src = Tile(lines, n, lines, n) if op == "TROWSUM" else Tile(n, lines, n, lines)
    case = Case(op, "cpu", dtype, (("dst", Tile(1, 1, 1, 1)), ("src", src)))
    source = seeded(seed, op, dtype)
    out = []
    for _ in range(draws):
        bits = gen.draw(source, case, dt, values.ValueMix())
        v = ieee.to_float64(bits, dt)
        v = np.where(ieee.is_nan(bits, dt), np.nan, v)
        out.append(v if op == "TROWSUM" else v.T)
    return np.concatenate(out)


@pytest.fixture(scope="module", params=[("TROWSUM", "float32"), ("TCOLSUM", "float16"), ("TROWSUM", "bfloat16")])
def drawn(request):
    op, dtype = request.param
    return dtype, _lines(op, dtype, 16, 200, 12, 3)


def _finite(v: np.ndarray) -> np.ndarray:
    return np.isfinite(v).all(axis=-1)


def test_cancellation_a_power_of_two_and_its_negation_around_small_terms(drawn):
    _, v = drawn
    big = np.abs(v[:, 0])
    rest = np.abs(v[:, 1:-1]).max(axis=-1)
    mant, _ = np.frexp(big)
    cancel = _finite(v) & (v[:, 0] == -v[:, -1]) & (big >= 16) & (mant == 0.5) & (rest <= 1) & (rest > 0)
    assert cancel.sum() >= 3
    assert (v[cancel, 0] > 0).all()  # the large value first, its negation last


def test_mixed_magnitudes_spread_over_the_range(drawn):
    _, v = drawn
    live = np.isfinite(v) & (v != 0)
    a = np.abs(np.where(live, v, 1.0))
    spread = np.where(live, a, 0.0).max(axis=-1) / np.where(live, a, np.inf).min(axis=-1)
    nonint = (np.modf(np.where(live, v, 0.0) * 2.0**10)[0] != 0).any(axis=-1)  # values no small grid holds
    assert (_finite(v) & (spread >= 2.0**18) & nonint).sum() >= 3


def test_ties_one_and_half_ulp_steps(drawn):
    dtype, v = drawn
    half_ulp = 2.0 ** -gen.PRECISION[dtype]
    one = (np.abs(v) == 1).sum(axis=-1) == 1
    steps = (np.abs(v) == half_ulp).sum(axis=-1) == v.shape[-1] - 1
    ties = one & steps
    assert ties.sum() >= 3
    assert (v[ties] < 0).any()  # some terms negated


def test_zero_lines_of_both_signs_and_all_negative(drawn):
    _, v = drawn
    zero = (v == 0).all(axis=-1)
    neg = np.signbit(v) & (v == 0)
    assert (zero & neg.all(axis=-1)).sum() >= 1  # only -0: a tree's sum is -0, a fold from +0 gives +0
    assert (zero & neg.any(axis=-1) & ~neg.all(axis=-1)).sum() >= 1  # mixed +0 and -0
    pair = (v[:, 0] == 1.5) & (v[:, -1] == -1.5) & (v[:, 1:-1] == 0).all(axis=-1)
    assert pair.sum() >= 1  # a cancelling pair among zeros: the zero sum of nonzero terms


def test_nans_and_infinities_at_varying_positions(drawn):
    _, v = drawn
    nan_at = np.argwhere(np.isnan(v))[:, 1]
    inf = np.isinf(v)
    assert len(set(nan_at.tolist())) >= 3 and len(set(np.argwhere(inf)[:, 1].tolist())) >= 3
    both = (v == np.inf).any(axis=-1) & (v == -np.inf).any(axis=-1)
    assert both.sum() >= 1  # inf - inf: a NaN in any order


def test_grids_exact_in_any_order(drawn):
    _, v = drawn
    f = np.where(np.isfinite(v), v, 0.5)
    for k in range(-8, 5):
        m = f / 2.0**k
        grid = (m == np.round(m)).all(axis=-1) & (np.abs(m) <= 64).all(axis=-1) & (np.abs(m) > 1).any(axis=-1)
        if grid.any():
            return
    raise AssertionError("no line of small multiples of one power of two")


def test_repeat_grids_carry_a_large_odd_value_at_each_repeat(drawn):
    dtype, v = drawn
    per = 256 // dtypes.get(dtype).itemsize
    p = gen.PRECISION[dtype]
    heads = v[:, ::per]
    head = (heads >= 2.0 ** (p - 1)).all(axis=-1) & (heads <= 2.0 ** (p - 1) + 7).all(axis=-1)
    small = np.delete(v, np.s_[::per], axis=-1)
    rg = head & (np.abs(small) <= 3).all(axis=-1)
    assert rg.sum() >= 1


def test_plain_lines_are_left_as_the_value_mix_drew_them(drawn):
    """About a line in four keeps the value mix's draw: lines that match no pattern (random bits, mostly
    non-integral, no repeated magnitude)."""
    _, v = drawn
    f = np.where(np.isfinite(v), v, 0.0)
    distinct = np.array([len(np.unique(np.abs(row))) for row in f])
    assert (distinct > v.shape[-1] * 0.9).sum() >= v.shape[0] // 8


@pytest.mark.parametrize("op", ["TROWSUM", "TCOLSUM"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int16"])
def test_reduced_lengths_reach_one_term_one_repeat_and_past_two(op, dtype):
    dt = dtypes.get(dtype)
    per = 256 // dt.itemsize
    source = seeded(7, op, dtype)
    # 4,000 regions: two whole repeats come 1 in 4 * per (1 in 512 for 16-bit types), so any seed's stream
    # shows one but with odds below 1e-3
    n = np.array([gen.valid_region(source, op, dt)[1 if op == "TROWSUM" else 0] for _ in range(4000)])
    cap = 1100 if op == "TROWSUM" else 600
    assert (n == 1).any() and ((n > 1) & (n <= per)).any()
    assert ((n > per) & (n % per != 0)).any()  # a partial last repeat
    assert (n == 2 * per).any()  # two whole repeats
    assert (n > 2 * per).any() and n.max() <= cap  # long: several repeat loops
    for k in range(4):  # the four kinds, about a quarter each
        lo, hi = ((1, 1), (2, per - 1), (per + 1, 2 * per), (2 * per + 1, cap))[k]
        share = ((n >= lo) & (n <= hi)).mean()
        assert 0.15 < share < 0.35, (k, share)


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5", "spec"])
def test_random_cases_draw_long_lines_the_evaluation_accepts(platform):
    """A random case's source reaches past two repeats on every platform, and its inputs evaluate."""
    from ptofuzz.core.case import OutcomeKind

    inst = registry.get("TROWSUM")
    source = seeded(9, platform)
    longest = 0
    for _ in range(40):
        case = inst.random_case(source, platform, {"dtype": "float32"})
        out = inst.evaluate(case, inst.draw_inputs(source, case, values.ValueMix()))
        assert out.kind is OutcomeKind.OK, (case, out.reason)
        longest = max(longest, case.tile("src").valid_cols)
    assert longest > 2 * 64


def test_integer_sums_mostly_fit():
    dt = dtypes.get("int16")
    case = Case("TROWSUM", "cpu", "int16", (("dst", Tile(1, 1, 1, 1)), ("src", Tile(8, 64, 8, 64))))
    source = seeded(11, "int")
    fits = 0
    for _ in range(40):
        v = gen.draw(source, case, dt, values.ValueMix()).view(np.int16).astype(np.int64)
        fits += bool((np.abs(v) <= 100).all())
    assert 15 <= fits <= 39  # seven in ten small integers, the rest the value mix's full range
