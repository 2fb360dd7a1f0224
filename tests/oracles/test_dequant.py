"""TDEQUANT's model: docs/isa/TDEQUANT.md's formula with its implementation notes' arithmetic (FP32 vsub, then
vmul), hand-worked; the parameter column rule both ways; what the pages leave open on the NPUs and nothing else."""

from __future__ import annotations

import numpy as np

from ptofuzz.core.case import EXACT, NAN, UNDEFINED, Case, Tile
from ptofuzz.instructions import registry
from ptofuzz.instructions.dequant import make_case

TDEQUANT = registry.get("TDEQUANT")


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, dtype=np.float32).view(np.uint32)


def run(platform: str, src: list[int], scale: float, offset: float, dtype: str = "int8"):
    n = len(src)
    case = make_case(platform, dtype, (1, 32), (1, 32), (1, n), (1, 1))
    s = np.zeros((1, 32), dtype=np.int8 if dtype == "int8" else np.int16)
    s[0, :n] = src
    out = TDEQUANT.evaluate(case, {"src": s.view(np.uint8 if dtype == "int8" else np.uint16),
                                   "scale": f32(scale).reshape(1, 1), "offset": f32(offset).reshape(1, 1)})
    assert out.kind == "ok" and (out.classes["dst"][0, n:] == UNDEFINED).all()
    return out.outputs["dst"][0, :n], out.classes["dst"][0, :n]


def test_hand_worked_values():
    got, cls = run("cpu", [-128, 0, 5, 127], 0.5, 3.0)
    assert got.view(np.float32).tolist() == [-65.5, -1.5, 1.0, 62.0] and (cls == EXACT).all()
    got, _ = run("a5", [-32768, 32767], 2.0, -1.0, "int16")
    assert got.view(np.float32).tolist() == [-65534.0, 65536.0]


def test_two_roundings_as_the_implementation_notes_say():
    """src 1, offset 2**-24 * 1.5: the FP32 difference rounds (1 - 1.5 * 2**-24 -> 1 - 2**-24 * 2, to even), then
    times 3 rounds again; one rounding of the exact (1 - 1.5 * 2**-24) * 3 gives another float."""
    off = float(np.float32(1.5 * 2.0**-24))
    got, _ = run("cpu", [1], 3.0, off)
    diff = np.float32(1.0) - np.float32(off)
    assert got.view(np.float32)[0] == np.float32(diff * np.float32(3.0))
    once = np.float32((1.0 - off) * 3.0)  # float64 is exact here, one rounding to float32
    assert got.view(np.float32)[0] != once


def test_nan_is_some_nan_and_subnormals_are_open_on_the_npus_only():
    got, cls = run("cpu", [1, 2], float("nan"), 0.0)
    assert (cls == NAN).all()
    tiny = float(np.float32(2.0**-130))  # a subnormal scale: the products are subnormal
    _, npu = run("a2a3", [1, 0], tiny, 0.0)
    assert npu.tolist() == [UNDEFINED, UNDEFINED]  # the scale itself is subnormal
    got, cpu = run("cpu", [1, 0], tiny, 0.0)
    assert cpu.tolist() == [EXACT, EXACT] and got.view(np.float32)[0] == np.float32(tiny)
    _, normal = run("a5", [1], 0.5, 0.0)
    assert normal.tolist() == [EXACT]


def test_the_parameter_column_rule():
    """paraCol = min(j, max(1, scale.ValidCol) - 1): with one valid column every element reads column 0; with
    three, columns 0, 1, 2, 2, ..."""
    scale = np.tile(f32(1.0, 2.0, 4.0, 8.0), (1, 8))  # 1x32
    offset = np.zeros((1, 32), dtype=np.uint32)
    src = np.ones((1, 32), dtype=np.uint8)
    for para_valid, want in ((1, [1.0] * 5), (3, [1.0, 2.0, 4.0, 4.0, 4.0])):
        ptile = Tile(1, 32, 1, para_valid)
        case = Case("TDEQUANT", "cpu", "int8", (("dst", Tile(1, 32, 1, 5)), ("src", Tile(1, 32, 1, 5)),
                                                 ("scale", ptile), ("offset", ptile)))
        out = TDEQUANT.evaluate(case, {"src": src, "scale": scale, "offset": offset})
        assert out.outputs["dst"][0, :5].view(np.float32).tolist() == want


def test_gen_writes_pto_isa_s_layouts(cli, tmp_path):
    assert cli("gen", "tdequant", "--platform", "a2a3", "-o", tmp_path / "a").code == 0
    case3 = tmp_path / "a" / "TDEQUANTTest.case3"
    assert {p.name: p.stat().st_size for p in case3.glob("*.bin")} == {
        "golden.bin": 16384, "srcInput.bin": 2048, "scaleInput.bin": 6144, "offsetInput.bin": 6144}
    assert cli("check", tmp_path / "a").code == 0
    assert cli("fuzz", "tdequant", "--runs", "2000", "--seed", "1").code == 0
