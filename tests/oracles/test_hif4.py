"""TQUANT to HiFloat4 (a6, docs/isa/TQUANT_HIF4.md): the group maxima |x| per 4 and per 8 hand-worked (signed
zeros, infinities, subnormals, NaNs on both sides of their rules) and against an independent float64
recomputation; every other file open; the a6 folders' files at the test's sizes; check passing pto-isa's own a6
folder and failing a wrong maximum, not a changed open byte."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core.case import EXACT, UNDEFINED
from ptofuzz.instructions import quant, registry
from ptofuzz.oracles import hif4

TQUANT = registry.get("TQUANT")
OPEN = ("ea", "eb", "ec", "exp_cube", "packed", "scale4")


def bf16(*xs: float) -> np.ndarray:
    return np.array(xs, dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)


def run(src: np.ndarray):
    rows, cols = src.shape
    out = TQUANT.evaluate(quant.hif4_case((rows, cols)), {"src": src, "scale": np.zeros((rows, 1), np.uint32),
                                                           "offset": np.zeros((rows, 1), np.uint32)})
    assert out.kind == "ok"
    return out


def test_hand_worked_maxima_of_the_magnitudes():
    """Groups of 4: [1, -3, 2, 0.5] -> 3; [-0, -0, +0, -0] -> +0 (abs clears the sign); [-inf, 1, 2, 3] -> +inf;
    [1e-40 (subnormal), 2, -0.25, 0] -> 2 (a subnormal that is not the maximum changes nothing); the rest 0.5."""
    xs = [1.0, -3.0, 2.0, 0.5, -0.0, -0.0, 0.0, -0.0, -np.inf, 1.0, 2.0, 3.0, 1e-40, 2.0, -0.25, 0.0] + [0.5] * 48
    out = run(bf16(*xs).reshape(1, 64))
    m4, c4 = out.outputs["max4"][0], out.classes["max4"][0]
    assert m4[:4].tolist() == [0x4040, 0x0000, 0x7F80, 0x4000] and (m4[4:] == 0x3F00).all()
    assert (c4 == EXACT).all()
    m8, c8 = out.outputs["max8"][0], out.classes["max8"][0]
    assert m8[:2].tolist() == [0x4040, 0x7F80] and (m8[2:] == 0x3F00).all() and (c8 == EXACT).all()
    assert out.outputs["max4"].shape == (1, 16) and out.outputs["max8"].shape == (1, 8)


def test_a_nan_opens_its_groups_only():
    xs = np.full(64, 0x3F80, dtype=np.uint16)  # 1.0
    xs[5] = 0xFFC1  # a negative quiet NaN with a payload: group 1 of 4, group 0 of 8
    xs[9] = 0x4100  # 8.0: group 2 of 4, group 1 of 8
    xs[63] = 0x7F81  # a signaling NaN: the last group of 4 and of 8
    out = run(xs.reshape(1, 64))
    assert out.classes["max4"][0].tolist() == [EXACT, UNDEFINED] + [EXACT] * 13 + [UNDEFINED]
    assert out.classes["max8"][0].tolist() == [UNDEFINED] + [EXACT] * 6 + [UNDEFINED]
    assert out.outputs["max4"][0, [0, 2, 3]].tolist() == [0x3F80, 0x4100, 0x3F80]
    assert out.outputs["max8"][0, 1:3].tolist() == [0x4100, 0x3F80]


def test_a_subnormal_maximum_is_open_a_zero_one_is_not():
    """FTZ may make a subnormal maximum +0 (type-system.md); a group of zeros is +0 either way."""
    xs = np.zeros(64, dtype=np.uint16)
    xs[1] = 0x8001  # -(smallest subnormal): group 0's maximum
    xs[4] = 0x0080  # the smallest normal: group 1's
    xs[8] = 0x007F  # the largest subnormal, beside a normal 2**-125 in the same group of 8
    xs[13] = 0x0100
    out = run(xs.reshape(1, 64))
    assert out.classes["max4"][0, :4].tolist() == [UNDEFINED, EXACT, UNDEFINED, EXACT]
    assert out.outputs["max4"][0, [1, 3]].tolist() == [0x0080, 0x0100] and (out.classes["max4"][0, 4:] == EXACT).all()
    assert out.classes["max8"][0, :2].tolist() == [EXACT, EXACT]  # 0x0080 and 0x0100 are the 8-group maxima
    assert out.outputs["max8"][0, :2].tolist() == [0x0080, 0x0100] and (out.outputs["max8"][0, 2:] == 0).all()


def test_maxima_against_float64_over_rows_of_many_blocks():
    """Random finite normal BF16 values (and zeros of both signs), 3 x 192: each row's groups of 4 and 8, in
    source order, are the float64 maxima of the magnitudes, rounded to BF16 without change."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 192)) * np.exp2(rng.integers(-60, 60, (3, 192)))).astype(ml_dtypes.bfloat16)
    x[0, :7] = [0.0, -0.0, -0.0, 0.0, -0.0, 0.0, 0.0]
    out = run(x.view(np.uint16))
    mag = np.abs(x.astype(np.float64))
    for k, role in ((4, "max4"), (8, "max8")):
        want = mag.reshape(3, 192 // k, k).max(axis=-1).astype(ml_dtypes.bfloat16).view(np.uint16)
        assert np.array_equal(out.outputs[role], want) and (out.classes[role] == EXACT).all()
    assert out.outputs["max4"][0, 0] == 0 and out.outputs["max8"][0, 0] != 0x8000


def test_every_other_file_is_open_and_sized_as_the_test_s():
    out = run(bf16(*([1.5] * 128)).reshape(2, 64))
    shapes = {role: out.outputs[role].shape for role in OPEN}
    assert shapes == {"ea": (2, 2), "eb": (2, 1), "ec": (2, 2), "exp_cube": (2, 4), "packed": (2, 32),
                      "scale4": (2, 32)}
    assert all((out.classes[role] == UNDEFINED).all() for role in (*OPEN, "dst", "exp", "scaling"))


def test_only_a6_quantizes_to_hifloat4_and_a6_only_to_it():
    case = quant.hif4_case((1, 64))
    src = bf16(*([1.0] * 64)).reshape(1, 64)
    zeros = np.zeros((1, 1), np.uint32)
    assert TQUANT.evaluate(case.replace(params=(("to", "int8"),)), {"src": src, "scale": zeros,
                                                                   "offset": zeros}).kind == "unsupported"
    a5 = quant.make_case("a5", "bfloat16", hif4.HIF4, (1, 64))
    assert TQUANT.evaluate(a5, {"src": src, "scale": zeros, "offset": zeros}).kind == "unsupported"
    assert TQUANT.evaluate(case, {"src": src, "scale": zeros, "offset": zeros}).kind == "ok"
    ragged = quant.hif4_case((1, 32), (1, 64))
    assert TQUANT.evaluate(ragged, {"src": src, "scale": zeros, "offset": zeros}).kind == "unsupported"


def test_gen_writes_the_ten_folders_and_check_fails_a_wrong_maximum_only(tmp_path, st_cases):
    api.generate("tquant", "a6", tmp_path)
    sizes = {d.name: {f.name: f.stat().st_size for f in d.iterdir() if f.suffix == ".bin"}
             for d in tmp_path.iterdir()}
    assert sizes == st_cases["tquant/a6"]["cases"]
    folder = tmp_path / "TQUANT_HIF4_A6_TEST.case_bf16_16x64_hif4_nd"
    expected = json.loads((folder / "ptofuzz.json").read_text())["expected"]
    assert set(expected["open"]) == {"max4", "max8", *OPEN}  # why, by role, citing the page's sections
    assert "1.3" in expected["open"]["ea"] and "2.3" in expected["open"]["exp_cube"]
    assert {f: set(c) for f, c in expected["classes"].items()}["golden_ea.bin"] == {"undefined"}
    (folder / "ptofuzz.json").unlink()  # the elements decide, not the sha256
    assert api.check([folder], "a6")[0].verdict == "pass"
    for fname, flip_at, verdict in (("golden_ea.bin", 0, "pass"), ("golden_fp4.bin", 7, "pass"),
                                    ("golden_max4.bin", 2 * 9, "fail"), ("golden_max8.bin", 2 * 3, "fail")):
        path = folder / fname
        good = path.read_bytes()
        path.write_bytes(good[:flip_at] + bytes([good[flip_at] ^ 1]) + good[flip_at + 1:])
        (v,) = api.check([folder], "a6")
        assert v.verdict == verdict and [f.file for f in v.files if not f.ok] == ([fname] if verdict == "fail" else [])
        path.write_bytes(good)


def test_pto_isa_s_own_smallest_a6_folder_passes_check(tmp_path):
    """pto-isa's gen_data.py, case 7 only (16x64, written where it runs): its maxima are the page's; every
    other file is open. The whole test's ten folders: tests/instructions/test_pto_isa_folders.py (slow)."""
    tree = os.environ.get("PTO_ISA_DIR", "")
    script = Path(tree) / "tests/npu/a6/src/st/testcase/tquant/gen_data.py"
    if not script.is_file():
        pytest.skip("needs PTO_ISA_DIR (a pto-isa tree with its tests/)")
    folder = tmp_path / "TQUANT_HIF4_A6_TEST.case_bf16_16x64_hif4_nd"
    folder.mkdir()
    shutil.copy(script, folder / "gen_data.py")
    done = subprocess.run([sys.executable, "gen_data.py", "--case", "7"], cwd=folder, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    (folder / "gen_data.py").unlink()
    (v,) = api.check([folder], "a6")
    assert v.verdict == "pass" and v.message == ""
    files = {f.file: f for f in v.files}
    assert files["golden_max4.bin"].comparison.checked == 256 and files["golden_max8.bin"].comparison.checked == 128
    assert all(files[f].comparison.checked == 0 for f in ("golden_ea.bin", "golden_eb.bin", "golden_ec.bin",
                                                   "golden_exp_dst.bin", "golden_fp4.bin", "golden_scale.bin"))
