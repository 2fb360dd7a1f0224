"""TQUANT's INT8 model: docs/isa/TQUANT.md's q = round(x / scale) + offset, ties to even (type-system.md's default
rounding), hand-worked and against exact rational arithmetic; each open element (the quotient's FP32 rounding
disagreeing with the exact one, a result beyond the destination, a non-integral offset, non-finite quotients,
NPU subnormals) on both sides of its rule; the parameter rows; check naming pto-isa's multiplying goldens."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.instructions import quant, registry
from ptofuzz.oracles import quant as oracle

TQUANT = registry.get("TQUANT")


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, dtype=np.float32).view(np.uint32)


def run(platform: str, to: str, xs: list[float] | np.ndarray, scale: float, offset: float = 0.0):
    xb = f32(*xs) if not isinstance(xs, np.ndarray) else xs
    n = xb.size
    case = quant.int8_case(platform, to, (1, n), (1, 32))
    src = np.zeros((1, 32), dtype=np.uint32)
    src[0, :n] = xb
    out = TQUANT.evaluate(case, {"src": src, "scale": f32(scale).reshape(1, 1), "offset": f32(offset).reshape(1, 1)})
    assert out.kind == "ok" and (out.classes["dst"][0, n:] == UNDEFINED).all()
    return out.outputs["dst"][0, :n], out.classes["dst"][0, :n]


def test_hand_worked_symmetric_values_divide_and_tie_to_even():
    got, cls = run("cpu", "int8", [1.0, -1.25, 0.75, 63.0, -63.75, 0.0], 0.5)  # 2, -2.5, 1.5, 126, -127.5, 0
    assert got.view(np.int8).tolist() == [2, -2, 2, 126, -128, 0] and (cls == EXACT).all()


def test_hand_worked_asymmetric_values_add_the_offset_after_rounding():
    got, cls = run("a5", "uint8", [3.0, 5.0, -20.0, 490.0, 492.0, -22.0], 2.0, 10.0)
    # 1.5 -> 2, 2.5 -> 2, -10, 245; then + 10; 256 and -1 lie beyond uint8
    assert got[:4].tolist() == [12, 12, 0, 255] and cls.tolist() == [EXACT] * 4 + [UNDEFINED] * 2


def test_a_result_beyond_int8_is_open_and_its_neighbour_is_not():
    got, cls = run("cpu", "int8", [127.0, 128.0, -128.0, -129.0, 127.4, -128.4], 1.0)
    assert cls.tolist() == [EXACT, UNDEFINED, EXACT, UNDEFINED, EXACT, EXACT]
    assert got.view(np.int8)[[0, 2, 4, 5]].tolist() == [127, -128, 127, -128]


def test_the_quotient_s_fp32_rounding_deciding_the_integer_is_open():
    """x / s = -27.49999994 exactly (rounds to -27) but -27.5 in FP32 (ties to -28): the page does not say which
    quotient it rounds. x / s exactly -27.5 in both: defined, to even (-28)."""
    x, s = np.array([0xC1D13604], dtype=np.uint32), 0x3F73720E
    sv = float(np.uint32(s).view(np.float32))
    got, cls = run("cpu", "int8", x, sv)
    assert cls.tolist() == [UNDEFINED]
    got, cls = run("cpu", "int8", [-27.5 * 0.5], 0.5)
    assert cls.tolist() == [EXACT] and got.view(np.int8).tolist() == [-28]


def test_non_finite_quotients_and_non_integral_offsets_are_open():
    _, cls = run("cpu", "int8", [1.0, float("inf"), float("nan")], 0.0)
    assert cls.tolist() == [UNDEFINED] * 3
    _, cls = run("cpu", "int8", [1.0, 0.0], float("inf"))  # an infinite scale: no real quotient
    assert cls.tolist() == [UNDEFINED, UNDEFINED]
    _, cls = run("cpu", "int8", [1.0, float("inf")], 3.0e38)  # a finite one: 1 / 3e38 rounds to 0
    assert cls.tolist() == [EXACT, UNDEFINED]
    got, cls = run("cpu", "uint8", [4.0], 2.0, 3.5)
    assert cls.tolist() == [UNDEFINED]
    got, cls = run("cpu", "uint8", [4.0], 2.0, 3.0)
    assert cls.tolist() == [EXACT] and got.tolist() == [5]


def test_subnormals_are_open_on_the_npus_only():
    tiny = float(np.float32(2.0**-140))
    got, cls = run("cpu", "int8", [tiny, 1.0], 2.0**-146)  # 64, and 1 / 2**-146 beyond the range
    assert cls.tolist() == [EXACT, UNDEFINED] and got.view(np.int8)[0] == 64
    _, npu = run("a2a3", "int8", [tiny, 1.0], 0.5)  # a subnormal source; a normal one
    assert npu.tolist() == [UNDEFINED, EXACT]


def test_the_exact_rounding_agrees_with_rational_arithmetic():
    rng = np.random.default_rng(5)
    s = rng.uniform(0.01, 1, 3000).astype(np.float32)
    k = rng.integers(-100, 100, 3000)
    x = ((k + 0.5) * s.astype(np.float64)).astype(np.float32)  # near ties: the hard cases
    x[::3] = rng.uniform(-100, 100, 1000).astype(np.float32)
    got = oracle.rne_quotient(x.astype(np.float64), s.astype(np.float64))
    for xi, si, g in zip(x.tolist(), s.tolist(), got.tolist(), strict=True):
        e = Fraction(xi) / Fraction(si)
        fl = e.__floor__()
        frac = e - fl
        want = fl + 1 if frac > Fraction(1, 2) else fl if frac < Fraction(1, 2) else fl + (fl % 2)
        assert g == want, (xi, si)


def with_parameters(case: Case, para: Tile) -> Case:
    tiles = tuple((r, para if r in ("scale", "offset") else t) for r, t in case.tiles)
    return Case(case.op, case.platform, case.dtype, tiles, case.params)


def test_parameter_rows_one_row_is_the_tile_s_scalar():
    src = np.tile(f32(2.0), (4, 32))
    scale = f32(1.0, 2.0, 0.5, 4.0).reshape(4, 1)
    base = quant.int8_case("cpu", "int8", (4, 1), (4, 32))
    for para, want in ((Tile(4, 1, 4, 1), [2, 1, 4, 0]), (Tile(4, 1, 1, 1), [2, 2, 2, 2])):
        case = with_parameters(base, para)
        out = TQUANT.evaluate(case, {"src": src, "scale": scale, "offset": np.zeros((4, 1), np.uint32)})
        assert out.outputs["dst"][:, 0].tolist() == want
    # two valid rows for four destination rows: rows 2 and 3 read nothing the page defines
    case = with_parameters(base, Tile(4, 1, 2, 1))
    out = TQUANT.evaluate(case, {"src": src, "scale": scale, "offset": np.zeros((4, 1), np.uint32)})
    assert out.classes["dst"][:, 0].tolist() == [EXACT, EXACT, UNDEFINED, UNDEFINED]


def test_explain_names_a_golden_that_multiplies_and_only_that():
    case = quant.int8_case("a2a3", "uint8", (1, 4))
    inputs = {"src": f32(1.0, -1.0, 0.5, 2.0).reshape(1, 4), "scale": f32(64.0).reshape(1, 1),
              "offset": f32(128.0).reshape(1, 1)}
    product = np.array([[192, 64, 160, 255]], dtype=np.uint8)  # 1 * 64 + 128, -64 + 128, 32 + 128, 256 clamped
    assert oracle.multiplied(case, inputs).tolist() == product.tolist()
    assert "TQUANT.md:35" in TQUANT.explain(case, inputs, {"dst": product})
    other = product.copy()
    other[0, 1] = 65
    assert TQUANT.explain(case, inputs, {"dst": other}) == ""
    divided = TQUANT.evaluate(case, inputs).outputs["dst"]
    assert divided.tolist() == [[128, 128, 128, 128]]  # 1 / 64 rounds to 0: the page's reading


@pytest.mark.parametrize("platform", ["a2a3", "kirin9030"])
def test_gen_writes_the_int8_folders_and_check_passes_them(cli, tmp_path, platform):
    assert cli("gen", "tquant", "--platform", platform, "-o", tmp_path / "a").code == 0
    folder = tmp_path / "a" / "TQUANTTEST.case_int8_asym_fp32_32x72_nd"
    assert {p.name: p.stat().st_size for p in folder.glob("*.bin")} == {
        "golden_u8.bin": 2304, "input.bin": 9216, "inv_scale_fp32.bin": 128, "offset_fp32.bin": 128}
    assert cli("check", tmp_path / "a").code == 0


def test_shared_work_gives_each_platform_its_own_outcome_dividing_once(monkeypatch):
    """A stacked INT8 batch in pieces: inside the instruction's shared context the exact quotients are computed
    once per piece for cpu and the NPUs, and every platform's outputs and classes are those it gets alone."""
    from ptofuzz.generators import values
    from ptofuzz.generators.stream import Stream
    from ptofuzz.instructions import registry
    from ptofuzz.oracles import quant as model

    inst = registry.get("TQUANT")
    source = Stream(4)
    case = inst.random_case(source, "cpu", {"to": "uint8", "shape": (16, 32)})
    batch = inst.draw_batch(source, case, values.ValueMix(0.2), 200)
    alone = {p: inst.evaluate(case.on(p), batch) for p in ("cpu", "a2a3", "a5")}
    calls = []
    monkeypatch.setattr(model, "rne_quotient", lambda *a, _r=model.rne_quotient: calls.append(1) or _r(*a))
    with inst.sharing([]):
        together = {p: inst.evaluate(case.on(p), batch) for p in alone}
    for p, out in alone.items():
        assert np.array_equal(out.outputs["dst"], together[p].outputs["dst"]), p
        assert np.array_equal(out.classes["dst"], together[p].classes["dst"]), p
    pieces = -(-200 // max(1, model.CHUNK // (16 * 32)))
    assert pieces > 1 and len(calls) == pieces
