"""The ordered products' draws (generators/product.py): the patterns whose product depends on the order show in the
drawn values (near-one factors, an overflowing or underflowing partial product whose whole product is moderate,
an infinity with a zero, +-0, NaN and infinities at varying positions, grids exact in any order), the reduced
lengths reach one factor, a2a3's block, a5's register, past it and long, and canonical data pins every valid
element (the redraw)."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import UNDEFINED, Case, Tile
from ptofuzz.generators import product as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee
from ptofuzz.oracles import ordered as sums
from ptofuzz.oracles import product as o


def _lines(op: str, dtype: str, lines: int, n: int, draws: int, seed: int) -> np.ndarray:
    dt = dtypes.get(dtype)
    src = Tile(lines, n, lines, n) if op == "TROWPROD" else Tile(n, lines, n, lines)
    case = Case(op, "cpu", dtype, (("dst", Tile(1, 1, 1, 1)), ("src", src)))
    source = seeded(seed, op, dtype)
    out = []
    for _ in range(draws):
        bits = gen.draw(source, case, dt, values.ValueMix())
        v = np.where(ieee.is_nan(bits, dt), np.nan, ieee.to_float64(bits, dt))
        out.append(v if op == "TROWPROD" else v.T)
    return np.concatenate(out)


@pytest.fixture(scope="module", params=[("TROWPROD", "float32"), ("TCOLPROD", "float16"), ("TROWPROD", "bfloat16")])
def drawn(request):
    op, dtype = request.param
    return dtypes.get(dtype), _lines(op, dtype, 16, 150, 10, 5)


def test_the_order_changes_many_drawn_products(drawn):
    """A fold from one and a5's lanes and vintlv tree give other bits (a rounding, an overflow, an underflow, a
    NaN) on a good share of the lines; so do a fold and a5's pairwise column fold."""
    dt, v = drawn
    rnd = sums.rounder(dt)
    with np.errstate(all="ignore"):
        a, b, c = o.fold_from_one(v, rnd), o.tree_a5(v, rnd, dt), o.fold_pairs(v, rnd)

    def differ(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return ~((x == y) | (np.isnan(x) & np.isnan(y)))

    assert differ(a, b).mean() > 0.15 and differ(a, c).mean() > 0.05, (differ(a, b).mean(), differ(a, c).mean())
    assert (np.isinf(a) != np.isinf(b)).sum() >= 3  # one order overflows where the other does not
    assert ((a == 0) != (b == 0)).sum() >= 3  # one order underflows to zero where the other does not


def test_overflowing_and_underflowing_lines_hold_a_factor_and_its_reciprocal(drawn):
    """A factor whose square overflows (underflows) and its reciprocal in one line: a partial product overflows
    (underflows) in some orders and not in others."""
    dt, v = drawn
    top = {"float32": 128, "float16": 16, "bfloat16": 128}[dt.name]
    finite = np.isfinite(v).all(axis=-1) & (v != 0).all(axis=-1)
    logs = np.log2(np.abs(np.where(finite[:, None], v, 1.0)))
    paired = finite & (logs.max(axis=-1) > top / 2) & (logs.min(axis=-1) < -top / 2)
    assert paired.sum() >= 6


def test_special_values_at_varying_positions(drawn):
    _, v = drawn
    nan_at = {int(i) for i in np.argwhere(np.isnan(v))[:, 1]}
    inf_rows = np.isinf(v).any(axis=-1)
    zero_inf = inf_rows & (v == 0).any(axis=-1)
    assert len(nan_at) >= 3 and zero_inf.sum() >= 2
    assert (np.signbit(v) & (v == 0)).any() and (~np.signbit(v) & (v == 0)).any()


def test_grids_are_exact_in_any_order():
    dt = dtypes.get("float16")
    g = gen.grid(seeded(1, "grid"), dt, 300, 40)
    rnd = sums.rounder(dt)
    exact = np.prod(g, axis=-1)
    for order in (o.fold_from_one, o.fold_from_first, o.fold_pairs):
        assert np.array_equal(order(g, rnd), exact)
    assert np.array_equal(o.tree_a5(g, rnd, dt), exact) and np.array_equal(o.lanes_a2a3(g, rnd, dt), exact)
    assert (np.abs(g) != 1).any(axis=-1).all()  # not all ones


def test_the_lengths_reach_every_implementation_limit():
    dt = dtypes.get("float32")
    source = seeded(2, "lengths")
    lengths = {gen.valid_region(source, "TROWPROD", dt)[1] for _ in range(400)}
    assert 1 in lengths and any(1 < n <= 8 for n in lengths) and any(8 < n <= 64 for n in lengths)
    assert any(64 < n <= 128 for n in lengths) and any(n > 128 for n in lengths) and max(lengths) > 600


@pytest.mark.parametrize("op", ["TROWPROD", "TCOLPROD"])
@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_canonical_data_pins_every_valid_element(op, platform):
    """gen redraws the lines the data left open (integer products that do not fit, NPU subnormals) with grid
    factors: no valid element of a system test's folder is then undefined (a NaN stays a NaN class, as the sums'
    do); on the NPUs the raw draw leaves some open."""
    from ptofuzz.engine.generate import realize

    inst = registry.get(op)
    opened = 0
    for name, case in inst.support(platform).profile.canonical:
        _, raw = realize(inst, name, case, 0, 0.05, defined=False)
        _, outcome = realize(inst, name, case, 0, 0.05)
        d = case.tile("dst")
        valid = (slice(0, d.valid_rows), slice(0, d.valid_cols))
        assert (outcome.classes["dst"][valid] != UNDEFINED).all(), name
        opened += int((raw.classes["dst"][valid] == UNDEFINED).any())
    if platform != "cpu":  # the cpu's canonical cases are floats, which it never leaves open (IEEE throughout)
        assert opened
