"""The ordered products' order models (oracles/product.py): hand-worked products where the order shows (rounding,
overflow to an infinity, underflow to zero), the a5 vintlv tree's shape, the classes the sources leave open, and a
planted reassociation of one pair caught bit-exactly for every platform's order."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, NAN, UNDEFINED, Case, Tile
from ptofuzz.core.dtypes import get
from ptofuzz.instructions import product
from ptofuzz.oracles import ieee
from ptofuzz.oracles import ordered as sums
from ptofuzz.oracles import product as o

F32, F16 = get("float32"), get("float16")
E = 2.0 ** -23  # one ulp of 1.0 in float32


def _bits(values: list[float], dt: str = "float32") -> np.ndarray:
    return ieee.from_float64(np.array(values, dtype=np.float64), get(dt))


def _row(n: int, dt: str = "float32", platform: str = "cpu") -> Case:
    if platform == "spec":  # pto-spec's legal descriptors (its legality is the sum's)
        return Case("TROWPROD", platform, dt, product.spec_tiles("TROWPROD", (1, n), get(dt)))
    return Case("TROWPROD", platform, dt, (("dst", Tile(1, 1, 1, 1)), ("src", Tile(1, n, 1, n))))


def _col(n: int, dt: str = "float32", platform: str = "a2a3") -> Case:
    if platform == "spec":
        return Case("TCOLPROD", platform, dt, product.spec_tiles("TCOLPROD", (n, 1), get(dt)))
    return Case("TCOLPROD", platform, dt, (("dst", Tile(1, 8, 1, 1)), ("src", Tile(n, 8, n, 1))))


def _src(case: Case, values: list[float]) -> np.ndarray:
    """A source holding ``values`` in its one row (TROWPROD) or in the first column of 8."""
    bits = _bits(values, case.dtype)
    src = bits.reshape(1, -1) if case.op == "TROWPROD" else np.zeros((len(values), 8), bits.dtype)
    if case.op == "TCOLPROD":
        src[:, 0] = bits
    return src


def _prod(case: Case, values: list[float], kind: str) -> tuple[float, int]:
    dt = case.dtype
    out = o.evaluate(case, {"src": _src(case, values)}, kind)
    got = out.outputs["dst"][0, 0:1]
    return float(ieee.to_float64(got, get(dt))[0]), int(out.classes["dst"][0, 0])


def test_the_rounding_of_a_fold_and_of_a5_s_pairs():
    # a = 1 + 2988E, b = 1 + 2590E, c = 1 + 2227E (E one ulp of 1): (a * b) * c rounds to 1 + 7807E, a * (b * c)
    # to 1 + 7808E (numpy's float32 multiplications, IEEE, say the same)
    a, b, c = (1.0 + k * E for k in (2988, 2590, 2227))
    f32 = np.float32
    assert (f32(a) * f32(b)) * f32(c) == f32(1.0 + 7807 * E) and f32(a) * (f32(b) * f32(c)) == f32(1.0 + 7808 * E)
    for kind in ("spec", "cpu", "a2a3"):  # folds from one (1 * a is a) or from the first row
        assert _prod(_col(3, platform=kind), [a, b, c], kind) == (1.0 + 7807 * E, EXACT), kind
    assert _prod(_col(3, platform="a5"), [a, b, c], "a5") == (1.0 + 7808 * E, EXACT)
    assert _prod(_row(3, platform="cpu"), [a, b, c], "cpu") == (1.0 + 7807 * E, EXACT)


def test_fold_from_one_and_from_first_agree_on_numbers_and_the_pairs_do_not():
    rnd = sums.rounder(F32)
    v = np.array([[-0.0, 3.0], [2.0 ** 100, 2.0 ** 100], [2.0 ** 100, 2.0 ** -100]])
    # 1 * x is x exactly: the two folds differ only in a NaN's payload (not modelled: NAN class)
    assert np.array_equal(o.fold_from_one(v, rnd), o.fold_from_first(v, rnd), equal_nan=True)
    assert np.signbit(o.fold_from_one(v, rnd)[0])  # -0 * 3 = -0: the sign of a zero product is the signs' parity
    assert o.fold_from_one(v, rnd)[1] == np.inf and o.fold_from_one(v, rnd)[2] == 1.0


def test_overflow_depends_on_the_order():
    # 2^100, 2^100, 2^-100: a fold overflows at the first product (inf * 2^-100 = inf); a5's pairs multiply
    # 2^100 * 2^-100 first: v0 * (v1 * v2) = 2^100
    big, small = 2.0 ** 100, 2.0 ** -100
    assert _prod(_col(3, platform="spec"), [big, big, small], "spec") == (np.inf, EXACT)
    assert _prod(_col(3, platform="a2a3"), [big, big, small], "a2a3") == (np.inf, EXACT)
    assert _prod(_col(3, platform="a5"), [big, big, small], "a5") == (big, EXACT)
    # then a zero: the fold's inf * 0 is a NaN, the pairs' 2^100 * 0 a zero
    assert _prod(_col(4, platform="a2a3"), [big, big, small, 0.0], "a2a3")[1] == NAN
    assert _prod(_col(4, platform="a5"), [big, big, small, 0.0], "a5") == (0.0, EXACT)


def test_underflow_depends_on_the_order():
    # 2^-100, 2^-100, 2^100: the fold's 2^-200 rounds to +0 in float32 (below half the smallest subnormal);
    # the pairs give 2^-100. On the NPUs a product whose exact value is 0 < |p| < 2^-126 that IEEE rounding
    # leaves nonzero is open (a flush of subnormals changes it); one that rounds to zero is zero anyway
    small, big = 2.0 ** -100, 2.0 ** 100
    assert _prod(_col(3, platform="spec"), [small, small, big], "spec") == (0.0, EXACT)
    assert _prod(_col(3, platform="a2a3"), [small, small, big], "a2a3") == (0.0, EXACT)
    assert _prod(_col(3, platform="a5"), [small, small, big], "a5") == (small, EXACT)
    assert _prod(_col(2, platform="a2a3"), [2.0 ** -70, 2.0 ** -60], "a2a3")[1] == UNDEFINED  # 2^-130 subnormal
    assert _prod(_col(2, platform="spec"), [2.0 ** -70, 2.0 ** -60], "spec") == (2.0 ** -130, EXACT)
    assert _prod(_col(2, platform="a5"), [2.0 ** -126 * 1.5, 0.5], "a5")[1] == UNDEFINED  # a subnormal product
    assert _prod(_col(2, platform="a5"), [2.0 ** -130, 4.0], "a5")[1] == UNDEFINED  # a subnormal factor
    assert _prod(_col(2, platform="cpu"), [2.0 ** -130, 4.0], "cpu") == (2.0 ** -128, EXACT)  # the cpu: IEEE


def test_the_a5_tree_multiplies_each_lane_once_in_vintlv_s_pairs():
    rnd = sums.rounder(F32)
    for lane in range(64):  # one factor 2 at each lane of a register of ones: the product is 2
        v = np.ones((1, 64))
        v[0, lane] = 2.0
        assert o.tree_a5(v, rnd, F32)[0] == 2.0
    # the pairs: round 1 multiplies lane m by lane m + 32. A 2^100 in lane 0 and lane 32, 2^-100 in lane 1 and
    # 33: lane 0 becomes 2^200 = inf, lane 2 becomes 2^-200 = 0, and inf * 0 (round 2's lane 0 = d0 * d32,
    # ...) -- they meet in round 6 as lanes 0 and 1 of round 5: a NaN. Lanes 0 and 1 paired first instead give 1
    v = np.ones((1, 64))
    v[0, [0, 32]] = 2.0 ** 100
    v[0, [1, 33]] = 2.0 ** -100
    assert np.isnan(o.tree_a5(v, rnd, F32)[0])
    assert o.fold_from_one(np.array([[2.0 ** 100, 2.0 ** -100] * 2]), rnd)[0] == 1.0
    # two repeats: lane l holds x[l] * x[l + 64] before the tree; lanes past a partial repeat keep their value
    # (vmul merging: zeroed lanes would make the product 0). 2^100 in columns 3 and 4, 2^-100 in 67 and 68: lanes 3
    # and 4 hold 1, the product is 1; a fold from one overflows at column 4 and stays inf
    row = [1.0] * 70
    row[3] = row[4] = 2.0 ** 100
    row[67] = row[68] = 2.0 ** -100
    assert _prod(_row(70, platform="a5"), row, "a5") == (1.0, EXACT)
    assert _prod(_row(70, platform="spec"), row, "spec") == (np.inf, EXACT)


def test_a2a3_row_lanes_then_a_scalar_chain():
    # float32: 8 lanes; 2^100 in columns 0 and 8 share lane 0 (2^200 = inf in the vector), in columns 0 and 1 they
    # meet in the scalar chain (also inf); with 2^-100 in column 2 (lane 2) the chain is (2^100 * 2^100) * ...
    row = [1.0] * 16
    row[0], row[8], row[1] = 2.0 ** 100, 2.0 ** -100, 2.0 ** 100
    # lanes: l0 = 2^100 * 2^-100 = 1, l1 = 2^100: the chain gives 2^100; a fold from one gives inf at column 1
    assert _prod(_row(16, platform="a2a3"), row, "a2a3") == (2.0 ** 100, EXACT)
    assert _prod(_row(16, platform="spec"), row, "spec") == (np.inf, EXACT)
    # half: the lanes in half, the chain in float, one rounding to half: 16 lanes of 2^4 = 2^64 in float -> inf in
    # half only at the end; each lane alone is finite
    h = [16.0] * 16 + [1.0 / 16] * 16  # lane l: 16 * (1/16) = 1: the product is 1 in any case
    assert _prod(_row(32, "float16", "a2a3"), h, "a2a3") == (1.0, EXACT)
    big = [16.0] * 8 + [1.0 / 16] * 8  # lanes 0-7 hold 16, 8-15 hold 1/16: the float chain reaches 2^32, then 1
    assert _prod(_row(16, "float16", "a2a3"), big, "a2a3") == (1.0, EXACT)
    assert _prod(_row(16, "float16", "spec"), big, "spec") == (np.inf, EXACT)  # 16^8 = 2^32 overflows half


def test_integer_products_wrap_in_spec_and_are_open_where_they_do_not_fit():
    case = Case("TROWPROD", "cpu", "int16", (("dst", Tile(1, 1, 1, 1)), ("src", Tile(1, 16, 1, 3))))
    src = np.zeros((1, 16), np.uint16)
    src[0, :3] = np.array([300, 300, -1], np.int16).view(np.uint16)
    cpu = o.evaluate(case, {"src": src}, "cpu")
    spec = o.evaluate(_row(case.tile("src").valid_cols, "int16", "spec"), {"src": src}, "spec")
    assert cpu.classes["dst"][0, 0] == UNDEFINED
    # -90000 modulo 2^16 is 41072, as int16 -24464
    assert int(spec.outputs["dst"][0, 0].view(np.int16)) == -24464 and spec.classes["dst"][0, 0] == EXACT
    # a magnitude of 2^15 is open: with a -1 among the factors some order's partial product is +2^15
    src[0, :3] = np.array([-128, 256, 1], np.int16).view(np.uint16)
    assert o.evaluate(case, {"src": src}, "cpu").classes["dst"][0, 0] == UNDEFINED
    src[0, :3] = np.array([-127, 258, 0], np.int16).view(np.uint16)  # a zero: every partial product fits
    out = o.evaluate(case, {"src": src}, "cpu")
    assert out.outputs["dst"][0, 0] == 0 and out.classes["dst"][0, 0] == EXACT
    src[0, :3] = np.array([-127, 258, 1], np.int16).view(np.uint16)
    out = o.evaluate(case, {"src": src}, "cpu")
    assert int(out.outputs["dst"][0, 0].view(np.int16)) == -32766 and out.classes["dst"][0, 0] == EXACT
    u32 = Case("TCOLPROD", "a5", "uint32", (("dst", Tile(1, 8, 1, 1)), ("src", Tile(2, 8, 2, 1))))
    big = np.zeros((2, 8), np.uint32)
    big[:, 0] = [65536, 65535]
    out = o.evaluate(u32, {"src": big}, "a5")
    assert out.outputs["dst"][0, 0] == 65536 * 65535 and out.classes["dst"][0, 0] == EXACT


def test_nan_is_the_canonical_nan_in_spec_and_any_nan_elsewhere():
    src = np.zeros((1, 8), np.uint32)
    src[0, :2] = [0x3F800000, 0x7FC01234]
    spec = o.evaluate(_row(2, platform="spec"), {"src": src}, "spec")
    assert spec.outputs["dst"][0, 0] == F32.canonical_nan and spec.classes["dst"][0, 0] == EXACT
    for kind in ("cpu", "a2a3", "a5"):
        case = _row(2, platform=kind).replace(tiles=(("dst", Tile(1, 1, 1, 1)), ("src", Tile(1, 8, 1, 2))))
        assert o.evaluate(case, {"src": src}, kind).classes["dst"][0, 0] == NAN, kind


def _reassociate(order: o.Order, first: bool) -> o.Order:
    """The planted change: one pair of factors multiplied first (the last two; the first two for a5's fold, whose
    pairs are its own)."""
    def planted(v: np.ndarray, rnd: o.Rounder) -> np.ndarray:
        if v.shape[-1] < 3:
            return order(v, rnd)
        if first:
            joined = [rnd(v[..., 0] * v[..., 1])[..., None], v[..., 2:]]
        else:
            joined = [v[..., :-2], rnd(v[..., -2] * v[..., -1])[..., None]]
        return order(np.concatenate(joined, axis=-1), rnd)
    return planted


def _tree_adjacent(v: np.ndarray, rnd: o.Rounder, dt: object) -> np.ndarray:
    """a5's tree with its first round pairing neighbouring lanes (2m, 2m + 1) instead of vintlv's (m, m + E/2)."""
    d = o.lane_fold(v, 64, rnd)
    with np.errstate(all="ignore"):
        d = np.concatenate([rnd(d[..., 0::2] * d[..., 1::2]), np.ones(d.shape[:-1] + (32,))], axis=-1)
        while d.shape[-1] > 1:
            d = rnd(d[..., : d.shape[-1] // 2] * d[..., d.shape[-1] // 2:])
    out: np.ndarray = d[..., 0]
    return out


BIG = 2.0 ** 100
ROW64 = [1.0] * 64
ROW64[0] = ROW64[1] = BIG
ROW64[32] = ROW64[33] = 1.0 / BIG
# each: values where the platform's order gives one product and the planted pair another
PLANTED = [
    ("spec", _row(3, platform="spec"), [BIG, BIG, 1.0 / BIG]),
    ("cpu", _row(3), [BIG, BIG, 1.0 / BIG]),
    ("cpu", _col(3, platform="cpu"), [BIG, BIG, 1.0 / BIG]),
    ("a2a3", _col(3), [BIG, BIG, 1.0 / BIG]),
    ("a5", _col(3, platform="a5"), [1.0 / BIG, BIG, BIG]),
    # a2a3's row: the scalar chain over the lanes ((BIG * 1 ...) * BIG) * 1/BIG = inf; planted: BIG
    ("a2a3", _row(8, platform="a2a3"), [BIG, 1.0, 1.0, 1.0, 1.0, 1.0, BIG, 1.0 / BIG]),
    # a5's row: vintlv pairs lanes 0 and 32, 1 and 33 (1 each): 1; neighbouring lanes first: inf * 0 = NaN
    ("a5", _row(64, platform="a5"), ROW64),
]


@pytest.mark.parametrize("kind,case,values", PLANTED)
def test_a_planted_reassociation_is_caught(monkeypatch: pytest.MonkeyPatch, kind: str, case: Case,
                                           values: list[float]) -> None:
    before = _prod(case, values, kind)
    assert before[1] == EXACT
    for name in ("fold_from_one", "fold_from_first", "fold_pairs"):
        monkeypatch.setattr(o, name, _reassociate(getattr(o, name), name == "fold_pairs"))
    monkeypatch.setitem(o.NPU_ORDER, ("TCOLPROD", "a2a3"), o.fold_from_first)
    monkeypatch.setitem(o.NPU_ORDER, ("TCOLPROD", "a5"), o.fold_pairs)
    monkeypatch.setattr(o, "tree_a5", _tree_adjacent)
    after = _prod(case, values, kind)
    assert after != before and not (np.isnan(after[0]) and np.isnan(before[0])), (kind, case.op, before, after)


def test_the_product_bound_by_hand_and_against_other_orders():
    """float32, three factors, golden 1: E = (1 + 2u)((1 + u)^2 - (1 - u)^2) = 4u(1 + 2u) with u = 2^-24; below 1
    the spacing is 2^-24, so E / s = 4(1 + 2u): 5 ULPs. Then random lines: every pair of the models' orders (the
    folds, a5's pairs and tree, a2a3's lanes) lands within the bound stated around the fold's product."""
    from ptofuzz.oracles.orderbound import product_bound

    assert int(product_bound(_bits([1.0]), 3, F32, F32)[0]) == 5
    assert int(product_bound(_bits([1.0]), 1, F32, F32)[0]) == 0  # one factor: no rounding
    # a float accumulator rounded once to half: 2^-22 is under one half spacing (2^-11): 1, and one for the end
    assert int(product_bound(_bits([1.0], "float16"), 3, F32, F16)[0]) == 2
    rng = np.random.default_rng(7)
    for dt in (F32, F16):
        rnd = sums.rounder(dt)
        v = rnd(1.0 + (rng.random((400, 200)) * 2 - 1) / 16)
        fold = o.fold_from_one(v, rnd)
        bits = ieee.from_float64(fold, dt).astype(np.int64)
        bound = product_bound(ieee.from_float64(fold, dt), v.shape[-1], dt, dt).astype(np.int64)
        worst = 0
        for other in (o.fold_pairs(v, rnd), o.tree_a5(v, rnd, dt), o.lanes_a2a3(v, rnd, dt, rnd)):
            assert np.isfinite(other).all() and (other > 0).all()
            dist = np.abs(ieee.from_float64(other, dt).astype(np.int64) - bits)  # positive: ULPs apart
            assert (dist <= bound).all()
            worst = max(worst, int(dist.max()))
        assert worst >= 2  # the orders do differ by several ULPs
        assert (bound <= 4 * 199 + 1).all()


@pytest.mark.parametrize("platform", ["spec", "cpu", "a2a3", "a5"])
@pytest.mark.parametrize("values", [[0.0, np.inf], [np.inf, -0.0, 3.0], [2.0, np.nan]])
def test_a_nan_product_is_written_as_the_one_canonical_pattern(platform, values) -> None:
    """0 x inf and a NaN factor: the canonical quiet NaN's bits on every platform, whatever sign float64
    arithmetic gave it (numpy 1.x: one that varied with the array's alignment)."""
    for case in (_row(len(values), platform=platform), _col(len(values), platform=platform)):
        out = o.evaluate(case, {"src": _src(case, values)}, platform)
        assert int(out.outputs["dst"][0, 0]) == get("float32").canonical_nan, (case.op, platform)
        assert platform == "spec" or int(out.classes["dst"][0, 0]) in (NAN, UNDEFINED)
