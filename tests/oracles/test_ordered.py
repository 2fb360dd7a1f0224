"""The ordered reductions' order models: hand-worked sums where the order shows, and a planted reassociation of
one pair caught bit-exactly on every platform."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import BOUNDED, EXACT, NAN, UNDEFINED, ZERO, Case, Tile
from ptofuzz.core.dtypes import get
from ptofuzz.instructions.ordered import spec_tiles
from ptofuzz.oracles import ieee
from ptofuzz.oracles import ordered as o

F32 = get("float32")
U = 2.0 ** -24  # half an ulp of 1.0 in float32: 1 + U rounds back to 1 (tie to even), 1 + 2U does not


def _bits(values: list[float], dt: str = "float32") -> np.ndarray:
    return ieee.from_float64(np.array(values, dtype=np.float64), get(dt))


def _row_case(n: int, dt: str = "float32", platform: str = "cpu") -> Case:
    if platform == "spec":  # pto-spec's tiles are legal descriptors (128 B * 2**k): the smallest ones
        return Case("TROWSUM", platform, dt, spec_tiles("TROWSUM", (1, n), get(dt)))
    return Case("TROWSUM", platform, dt, (("dst", Tile(1, 1, 1, 1)), ("src", Tile(1, n, 1, n))))


def _col_case(n: int, binary: int = 0, dt: str = "float32", platform: str = "a2a3") -> Case:
    if platform == "spec":
        return Case("TCOLSUM", platform, dt, spec_tiles("TCOLSUM", (n, 1), get(dt)))
    return Case("TCOLSUM", platform, dt, (("dst", Tile(1, 8, 1, 1)), ("src", Tile(n, 8, n, 1))),
                (("binary", binary),))


def _src(case: Case, values: list[float], dt: str = "float32") -> np.ndarray:
    """A source holding ``values`` in its first row (TROWSUM) or column, the rest of its physical tile zero."""
    bits = _bits(values, dt)
    src = np.zeros(case.tile("src").shape, bits.dtype)
    if case.op == "TROWSUM":
        src[0, :len(values)] = bits
    else:
        src[:len(values), 0] = bits
    return src


def _sum(case: Case, values: list[float], kind: str, dt: str = "float32") -> tuple[float, int]:
    """The one sum of ``values`` (the source's first row or column, the rest of its physical tile zero)."""
    out = o.evaluate(case, {"src": _src(case, values, dt)}, kind)
    return float(ieee.to_float64(out.outputs["dst"][0, 0:1], get(dt))[0]), int(out.classes["dst"][0, 0])


def test_the_folds_by_hand() -> None:
    v = np.array([[1.0, U, U]])
    rnd = o.rounder(F32)
    assert o.fold_from_zero(v, rnd)[0] == 1.0  # (1 + U) + U: each step a tie back to 1
    assert o.fold_from_first(v, rnd)[0] == 1.0
    assert o.fold_pairs(v, rnd)[0] == 1.0 + 2 * U  # 1 + (U + U)
    w = np.array([[U, U, 1.0, U, U]])
    # a2a3: pairs 2U and (1 + U) = 1, the odd last U into the first pair: 3U; 3U + 1 = 1 + 1.5 ulp -> 1 + 4U
    assert o.tree_a2a3(w, rnd)[0] == 1.0 + 4 * U
    # a5: pairs 2U and 1, the odd last U into the last pair: 1 + U = 1; then 2U + 1 = 1 + 2U
    assert o.tree_a5(w, rnd)[0] == 1.0 + 2 * U


def test_zero_start_and_sign() -> None:
    rnd = o.rounder(F32)
    v = np.array([[-0.0, -0.0]])
    assert np.signbit(o.fold_from_first(v, rnd)[0])  # a2a3 copies the first row: -0 stays
    assert not np.signbit(o.fold_from_zero(v, rnd)[0])  # spec and cpu start at +0: +0 + -0 = +0


@pytest.mark.parametrize("kind,expected", [("spec", 1.0), ("cpu", 1.0)])
def test_row_sum_order_spec_cpu(kind: str, expected: float) -> None:
    assert _sum(_row_case(3, platform=kind), [1.0, U, U], kind) == (expected, EXACT)


def test_cpu_half_row_sum_is_widened() -> None:
    # half: 1 + 2^-11 + 2^-11 in half steps is 1; the simulator's float accumulator keeps both (TRowSum.hpp:21)
    h = 2.0 ** -11
    assert _sum(_row_case(3, "float16"), [1.0, h, h], "cpu", "float16") == (1.0 + 2 * h, EXACT)
    assert _sum(_row_case(3, "float16", "spec"), [1.0, h, h], "spec", "float16") == (1.0, EXACT)


def test_a5_row_sum_folds_the_repeats_in_order() -> None:
    # three float32 repeats of 64 whose sums are 2^24, 1, 1: ((0 + 2^24) + 1) + 1 = 2^24 (two ties to even)
    row = [0.0] * 192
    row[0], row[64], row[128] = 2.0 ** 24, 1.0, 1.0
    assert _sum(_row_case(192, platform="a5"), row, "a5") == (2.0 ** 24, EXACT)
    # a2a3 folds lane by lane and ends in one vcadd: the tree is open, the sum bounded: 2^24 (in order) or
    # 2^24 + 2 (the ones added first), one ULP apart, both within the stated bound, which stays small
    assert _sum(_row_case(192, platform="a2a3"), row, "a2a3") == (2.0 ** 24, BOUNDED)
    # 2 * gamma(191) * (2^24 + 2) = 382.00..., in steps of 1 below 2^24: 383 ULPs
    assert _bound(_row_case(192, platform="a2a3"), row, "a2a3") == 383
    # terms exact in any order are pinned on both
    grid = [float(i % 7 - 3) / 8 for i in range(192)]
    total = sum(grid)
    for kind in ("a2a3", "a5"):
        assert _sum(_row_case(192, platform=kind), grid, kind) == (total, ZERO if total == 0 else EXACT)


@pytest.mark.parametrize("kind,binary,expected", [
    ("a2a3", 0, 1.0), ("a5", 0, 1.0 + 2 * U), ("a2a3", 1, 1.0 + 2 * U), ("a5", 1, 1.0 + 2 * U), ("spec", 0, 1.0)])
def test_column_sum_orders(kind: str, binary: int, expected: float) -> None:
    values = [1.0, U, U] if not binary else [U, U, 1.0]
    # a2a3 binary on [U, U, 1]: (U + U) + 1 = 1 + 2U; a5 binary: the odd 1 added to the last pair, 1 + 2U
    assert _sum(_col_case(3, binary, platform=kind), values, kind) == (expected, EXACT)


def _bound(case: Case, values: list[float], kind: str) -> int:
    bits = _bits(values)
    src = bits.reshape(1, -1) if case.op == "TROWSUM" else np.zeros((len(values), 8), bits.dtype)
    if case.op == "TCOLSUM":
        src[:, 0] = bits
    return int(o.evaluate(case, {"src": src}, kind).bounds["dst"][0, 0])


def test_cpu_binary_column_sum_is_bounded_unless_order_free() -> None:
    # the page's binary tree has no stated shape: 1 (in order) or 1 + 2U ((U + U) + 1), one ULP apart
    assert _sum(_col_case(3, 1, platform="cpu"), [1.0, U, U], "cpu") == (1.0, BOUNDED)
    assert 1 <= _bound(_col_case(3, 1, platform="cpu"), [1.0, U, U], "cpu") <= 8
    assert _sum(_col_case(3, 1, platform="cpu"), [1.0, 2.0, 0.5], "cpu") == (3.5, EXACT)
    # an infinity among the terms: no order overflows it away, but no bound is stated either: open
    assert _sum(_col_case(3, 1, platform="cpu"), [1.0, U, np.inf], "cpu") == (np.inf, EXACT)
    assert _sum(_col_case(2, 1, platform="cpu"), [3e38, 3e38], "cpu")[1] in (EXACT, UNDEFINED)


def _reassociate(order: o.Order, first: bool) -> o.Order:
    """The planted change: one pair of terms added first (the last two; the first two for a5's fold, whose
    pairs are its own)."""
    def planted(v: np.ndarray, rnd: o.Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        if v.shape[-1] < 3:
            return order(v, rnd)
        if first:
            joined = [rnd(v[..., 0] + v[..., 1])[..., None], v[..., 2:]]
        else:
            joined = [v[..., :-2], rnd(v[..., -2] + v[..., -1])[..., None]]
        return order(np.concatenate(joined, axis=-1), rnd)
    return planted


@pytest.mark.parametrize("kind,case,values", [
    ("spec", _row_case(3, platform="spec"), [1.0, U, U]),
    ("cpu", _row_case(3), [1.0, U, U]),
    ("cpu", _col_case(3, 0, platform="cpu"), [1.0, U, U]),
    ("a2a3", _col_case(3, 0), [1.0, U, U]),
    ("a5", _col_case(3, 0, platform="a5"), [1.0, U, U]),
    ("a5", _row_case(192, platform="a5"), [2.0 ** 24] + [0.0] * 63 + [1.0] + [0.0] * 63 + [1.0] + [0.0] * 63),
])
def test_a_planted_reassociation_is_caught(monkeypatch: pytest.MonkeyPatch, kind: str, case: Case,
                                           values: list[float]) -> None:
    before = _sum(case, values, kind)
    assert before[1] == EXACT
    for name in ("fold_from_zero", "fold_from_first", "fold_pairs"):
        monkeypatch.setattr(o, name, _reassociate(getattr(o, name), name == "fold_pairs"))
    monkeypatch.setitem(o.NPU_ORDER, ("TCOLSUM", "a2a3"), (o.fold_from_first, o.tree_a2a3))
    monkeypatch.setitem(o.NPU_ORDER, ("TCOLSUM", "a5"), (o.fold_pairs, o.tree_a5))
    after = _sum(case, values, kind)
    assert after[0] != before[0], (kind, case.op, before, after)


def test_order_free() -> None:
    ok, val = o.order_free(np.array([[1.0, U, U], [1.0, 2.0, -3.0], [np.inf, 1.0, 2.0], [np.inf, -np.inf, 0.0]]),
                           F32)
    assert ok.tolist() == [False, True, True, True]
    assert val[1] == 0.0 and val[2] == np.inf and np.isnan(val[3])


@pytest.mark.parametrize("platform", ["spec", "cpu", "a2a3", "a5"])
@pytest.mark.parametrize("values", [[np.inf, -np.inf], [1.0, np.nan, 2.0], [-np.inf, 5.0, np.inf]])
def test_a_nan_sum_is_written_as_the_one_canonical_pattern(platform, values) -> None:
    """Whatever sign float64 arithmetic gives a made or propagated NaN (it varies with numpy's loops, under numpy
    1.x with the array's alignment), the golden holds the canonical quiet NaN: the same seed, the same bytes."""
    for case in (_row_case(len(values), platform=platform), _col_case(len(values), platform=platform)):
        out = o.evaluate(case, {"src": _src(case, values)}, platform)
        assert int(out.outputs["dst"][0, 0]) == get("float32").canonical_nan, (case.op, platform)
        assert int(out.classes["dst"][0, 0]) in (EXACT, NAN, UNDEFINED) if platform == "spec" else \
            int(out.classes["dst"][0, 0]) in (NAN, UNDEFINED)
