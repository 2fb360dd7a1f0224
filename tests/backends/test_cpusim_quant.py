"""TQUANT (INT8) through the real pto-isa CPU simulator (include/pto/cpu/TQuant.hpp): hand-worked values showing
that it multiplies by the scale operand (the defect cpusim-tquant-multiplies-scale; TQUANT.md:35 divides), its
clamp where the page leaves the element open, a batch against the model where the two readings coincide, and the
limits of the harness's parameter tiles."""

from __future__ import annotations

import numpy as np
import pytest
from backend_helpers import CPUSIM, simulator

from ptofuzz.backends.cpusim import quant
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.core.signature import dtype_class
from ptofuzz.engine.differential import compare_batch
from ptofuzz.instructions import defects, registry
from ptofuzz.instructions.quant import int8_case, make_case

pytestmark = CPUSIM
TQUANT = registry.get("TQUANT")


@pytest.fixture(scope="module")
def sim():
    yield from simulator("TQUANT")


def f32(rows) -> np.ndarray:
    return np.array(rows, dtype=np.float32).view(np.uint32)


def test_the_simulator_multiplies_by_the_scale_operand(sim):
    """Row 0 (scale 0.5): the page's 1 / 0.5 = 2, the simulator's 1 * 0.5 = 0.5, to even 0; row 1 (scale 4,
    offset 10, uint8): the page's round(6 / 4) + 10 = 12 (1.5 to even 2), the simulator's 6 * 4 + 10 = 34."""
    sym = int8_case("cpusim", "int8", (2, 3), (2, 32))
    src = np.zeros((2, 32), dtype=np.float32)
    src[:, :3] = [[1.0, -3.0, 100.0], [6.0, 2.5, -0.25]]
    inputs = {"src": src.view(np.uint32), "scale": f32([[0.5], [4.0]]), "offset": f32([[0.0], [10.0]])}
    out = quant.evaluate(sim, sym, inputs)
    assert out.outputs["dst"][:, :3].view(np.int8).tolist() == [[0, -2, 50], [24, 10, -1]]
    assert (out.classes["dst"][:, :3] == EXACT).all() and (out.classes["dst"][:, 3:] == UNDEFINED).all()
    page = TQUANT.evaluate(sym.on("cpu"), inputs)
    assert page.outputs["dst"][:, :2].view(np.int8).tolist() == [[2, -6], [2, 1]]  # 2, -6; 1.5 -> 2, 0.625 -> 1
    assert page.classes["dst"][0, 2] == UNDEFINED  # 100 / 0.5 = 200: beyond int8
    asym = int8_case("cpusim", "uint8", (2, 3), (2, 32))
    out = quant.evaluate(sim, asym, inputs)
    assert out.outputs["dst"][1, :3].tolist() == [34, 20, 9]  # 6 * 4 + 10, 2.5 * 4 + 10, -1 + 10
    assert TQUANT.evaluate(asym.on("cpu"), inputs).outputs["dst"][1, :3].tolist() == [12, 11, 10]
    assert defects.BY_NAME["cpusim-tquant-multiplies-scale"].ops == ("TQUANT",)


def test_a_batch_agrees_with_the_model_where_scale_is_its_own_reciprocal(sim):
    """Scales of 1 (or -1) divide and multiply alike, and with sources of sixty-fourths and even offsets rounding
    before or after the offset does too: 16 random cases, every defined element the model's; the simulator clamps
    the rest (an element the page leaves open)."""
    case = int8_case("cpusim", "uint8", (4, 20), (4, 32))
    rng = np.random.default_rng(1)
    inputs = {"src": np.array(rng.integers(-200 * 64, 300 * 64, (16, 4, 32)) / 64, dtype=np.float32).view(np.uint32),
              "scale": f32(rng.choice([1.0, -1.0], (16, 4, 1))),
              "offset": f32(2 * rng.integers(0, 50, (16, 4, 1)).astype(np.float32))}
    out = quant.evaluate(sim, case, inputs)
    model = TQUANT.evaluate(case.on("cpu"), inputs)
    assert not compare_batch(TQUANT, case, {"cpu": model, "cpusim": out}, 16).counts
    assert (model.classes["dst"][:, :, :20] == UNDEFINED).any()  # beyond uint8: open, clamped by the simulator
    assert set(np.unique(out.outputs["dst"][:, :, :20])) >= {0, 255}


def test_other_parameter_tiles_are_unsupported_not_wrong(sim):
    base = int8_case("cpusim", "int8", (2, 10), (2, 32))
    para = Tile(2, 2, 2, 2)
    case = Case("TQUANT", "cpusim", "float32",
                tuple((r, para if r in ("scale", "offset") else t) for r, t in base.tiles), base.params)
    out = quant.evaluate(sim, case, {"src": np.zeros((2, 32), np.uint32), "scale": np.zeros((2, 2), np.uint32),
                                     "offset": np.zeros((2, 2), np.uint32)})
    assert out.kind == "unsupported" and "one valid column" in out.reason


def mx_inputs(src: np.ndarray, dtype: str = "float32") -> dict[str, np.ndarray]:
    import ml_dtypes

    rows = src.shape[-2]
    kind = {"float32": (np.float32, np.uint32), "float16": (np.float16, np.uint16),
            "bfloat16": (ml_dtypes.bfloat16, np.uint16)}[dtype]
    return {"src": src.astype(kind[0]).view(kind[1]), "scale": np.zeros((rows, 1), np.uint32),
            "offset": np.zeros((rows, 1), np.uint32)}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_mxfp8_codes_and_shared_exponents_by_hand(sim, dtype):
    """Row 0, group 0: max |x| = 3 (FP32 exponent 128), s = 128 - 8 = 120, alpha = 2^(127 - 120) = 128: 1 -> 128
    (0x70: 2^7), 3 -> 384 (0x7C: 1.5 * 2^8), -0.5 -> -64 (0xE8); group 1: max 1000 (exponent 136), s = 128,
    alpha 1/2: 448 -> 224 (0x76: 1.75 * 2^7), 1000 -> 500 clipped to 448 (0x7E). Row 1: an infinite maximum,
    s = 255 - 8 = 247, inf clipped to 448. The simulator's and the A5 model's codes and exponents agree there; the
    -0 at row 0 column 1 is the defect cpusim-tquant-mxfp8-negative-zero (0x00 where the page gives 0x80). Every
    value is exact in FP16 too: the same codes from that source (BF16 runs only where the compiler has a real
    bfloat16_t: see cpusim-bf16-placeholder)."""
    case = make_case("cpusim", dtype, "float8_e4m3", (2, 64))
    src = np.zeros((2, 64), np.float32)
    src[0, :4] = [1.0, -0.0, 3.0, -0.5]
    src[0, 32:35] = [448.0, 0.0, 1000.0]
    src[1, 0] = np.inf
    inputs = mx_inputs(src, dtype)
    out = quant.evaluate(sim, case, inputs)
    model = TQUANT.evaluate(case.on("a5"), inputs)
    assert out.outputs["exp"].tolist() == model.outputs["exp"].tolist() == [[120, 128], [247, 0]]
    assert (model.classes["exp"] == np.array([[EXACT, EXACT], [EXACT, UNDEFINED]])).all()  # a zero group: open
    cols = [0, 2, 3, 32, 34]
    assert out.outputs["dst"][0, cols].tolist() == model.outputs["dst"][0, cols].tolist() == [
        0x70, 0x7C, 0xE8, 0x76, 0x7E]
    assert out.outputs["dst"][1, 0] == model.outputs["dst"][1, 0] == 0x7E
    assert out.outputs["dst"][0, 1] == 0x00 and model.outputs["dst"][0, 1] == 0x80
    assert model.classes["dst"][0, 1] == EXACT
    hits = compare_batch(TQUANT, case, {"a5": model, "cpusim": out}, None)
    keys = {s.key for s in hits.counts}
    assert keys == {f"TQUANT/{dtype_class(dtype)}/a5~cpusim/signed-zero/mx/mxfp8"}
    (sig,) = hits.counts
    assert defects.matching(sig) is defects.BY_NAME["cpusim-tquant-mxfp8-negative-zero"]


def test_mxfp8_without_negative_zeros_agrees_with_the_model(sim):
    """16 random MXFP8 cases (OCP), no -0 sources: every element the page pins is the simulator's (codes and
    exponents); the NV form's results are all open (the page gives NV only its name)."""
    rng = np.random.default_rng(3)
    src = (rng.standard_normal((16, 3, 96)) * np.exp2(rng.integers(-20, 20, (16, 3, 1)))).astype(np.float32)
    src[src == 0] = 1.0
    for nv in (False, True):
        case = make_case("cpusim", "float32", "float8_e4m3", (3, 96), nv=nv)
        out = quant.evaluate(sim, case, mx_inputs(src))
        model = TQUANT.evaluate(case.on("a5"), mx_inputs(src))
        assert not compare_batch(TQUANT, case, {"a5": model, "cpusim": out}, 16).counts
        assert (model.classes["exp"] == EXACT).all() != nv


def test_mx_forms_the_harness_does_not_run_are_unsupported(sim):
    for case in (make_case("cpusim", "float32", "float8_e4m3", (16, 64), nz=True),
                 make_case("cpusim", "float32", "float8_e4m3", (64, 64), dn=True)):
        out = quant.evaluate(sim, case, mx_inputs(np.ones(case.tile("src").shape)))
        assert out.kind == "unsupported" and "ND" in out.reason


def test_the_mx_matcher_covers_only_its_own_form():
    from ptofuzz.core.signature import Signature

    mine = defects.BY_NAME["cpusim-tquant-mxfp8-negative-zero"]
    assert mine.matches(Signature("TQUANT", "float", "a5~cpusim", "signed-zero", "mx", "mxfp8"))
    for other in (Signature("TQUANT", "float", "a5~cpusim", "signed-zero", "mx", "mxfp8_nv"),
                  Signature("TQUANT", "float", "a5~cpusim", "int-value", "mx", "mxfp8"),
                  Signature("TQUANT", "float", "a5~cpusim", "signed-zero", "op", "-")):
        assert not mine.matches(other)
    int8 = defects.BY_NAME["cpusim-tquant-multiplies-scale"]
    assert int8.matches(Signature("TQUANT", "float", "a5~cpusim", "int-value", "op", "-"))
    assert not int8.matches(Signature("TQUANT", "float", "a5~cpusim", "int-value", "mx", "mxfp8"))
