"""TCVT's system-test folders: kirin9030's and kirinDev0000's lists (exposed), a2a3's (built, without the int4
cases, not exposed) and a5's (built, without the FP4 cases, not exposed), their names, parameters, golden files
and sizes, hand-checked against pto-isa's gen_data.py and main.cpp."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core.case import EXACT, Tile
from ptofuzz.instructions import conversion, registry
from ptofuzz.io.casefolder import classes_from_masks
from ptofuzz.oracles.conversion import SAT_OFF, SAT_ON

TCVT = registry.get("TCVT")
ITEM = {"float32": 4, "float16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
        "int64": 8, "bfloat16": 2, "float8_e4m3": 1, "float8_e5m2": 1, "hifloat8": 1}
SHAPES = ("1x128", "2x64", "4x32", "2x128", "4x128_4x65", "4x256_4x200", "1x256_1x129")


def _named(platform: str) -> dict[str, object]:
    return dict(conversion.system_test(platform))


def test_kirin9030_names_and_params_by_hand():
    cases = _named("kirin9030")
    assert len(cases) == 23 * 7 + 6
    c = cases["case_fp16_uint8_4x128_4x65"]  # gen_data.py: tcvtParams(fp16, uint8, 4, 128, CAST_RINT, 4, 65)
    assert (c.dtype, c.param("to"), c.tile("dst"), c.tile("src")) == ("float16", "uint8", Tile(4, 128, 4, 65),
                                                                       Tile(4, 128, 4, 65))
    assert (c.param("rmode"), c.param("sat")) == (1, None)  # TCVT(dst, src, CAST_RINT): the default overload
    c = cases["case_uint32_int16_4x32"]
    assert (c.dtype, c.param("to"), c.tile("dst")) == ("uint32", "int16", Tile(4, 32, 4, 32))
    c = cases["saturation_int32_int16_1x32"]  # main.cpp compares the SaturationMode::OFF output
    assert (c.dtype, c.param("to"), c.tile("dst"), c.param("rmode"), c.param("sat")) == \
        ("int32", "int16", Tile(1, 32, 1, 32), 1, SAT_OFF)
    prof = TCVT.support("kirin9030").profile
    assert prof.goldens(c) == (("golden_truncated.bin", "dst"),)
    assert prof.goldens(cases["case_fp32_fp32_2x64"]) == (("golden.bin", "dst"),)
    assert prof.name(cases["case_fp32_fp32_2x64"]) == "TCVTTest.case_fp32_fp32_2x64"
    assert prof.parse("TCVTTest.saturation_int64_int32_1x32") == cases["saturation_int64_int32_1x32"]
    assert TCVT.support("kirin9030").has_system_test and prof.canonical == conversion.system_test("kirin9030")


def test_golden_files_follow_the_saturation_both_sides():
    tile = Tile(1, 32, 1, 32)
    for platform, off in (("kirin9030", ("golden_truncated.bin",)), ("a5", ("golden_truncated.bin",)),
                          ("a2a3", ("golden.bin", "golden_truncated.bin")), ("cpu", ("golden.bin",))):
        prof = TCVT.support(platform).profile
        for sat, want in ((SAT_OFF, off), (SAT_ON, ("golden.bin",)), (None, ("golden.bin",))):
            case = conversion._case(platform, "float16", "int8", (1, 32), (1, 32), 1, sat)
            assert case.tile("dst") == tile and tuple(f for f, _ in prof.goldens(case)) == want, (platform, sat)


def test_a2a3_list_is_built_but_not_exposed_without_int4():
    cases = _named("a2a3")
    assert len(cases) == 227 - len(conversion.A2A3_WITHOUT_TYPE) == 215
    assert not set(conversion.A2A3_WITHOUT_TYPE) & set(cases)
    assert "case_fp16_s4_8x128" in conversion.A2A3_WITHOUT_TYPE and "case_s4_fp16_1x64" in conversion.A2A3_WITHOUT_TYPE
    assert TCVT.support("a2a3").profile.canonical == () and not TCVT.support("a2a3").has_system_test
    c = cases["nonsattorch_fp16_int8_2x32_2x16"]  # TCVT(dst, src, tmp, CAST_TRUNC, SaturationMode::OFF)
    assert (c.dtype, c.param("to"), c.tile("dst"), c.param("rmode"), c.param("sat")) == \
        ("float16", "int8", Tile(2, 32, 2, 16), 5, SAT_OFF)
    assert (cases["case_int64_int32_8x64"].param("rmode"), cases["case_int64_int32_8x64"].param("sat")) == (1, None)


@pytest.fixture
def a2a3_exposed(monkeypatch):
    """TCVT with a2a3's list exposed, as it will be once int4 is in."""
    monkeypatch.setattr(conversion, "COMPLETE", ("kirin9030", "a2a3"))
    monkeypatch.setitem(registry._REGISTRY, "TCVT", conversion.instructions()[0])


def test_a2a3_folders_files_and_sizes(a2a3_exposed, tmp_path):
    api.generate("tcvt", "a2a3", tmp_path)
    got = {d.name: {f.name: f.stat().st_size for f in d.glob("*.bin")} for d in tmp_path.iterdir()}
    assert len(got) == 215
    # from pto-isa's own folders: whole tiles; saturation_/nonsattorch_ write golden_truncated.bin beside golden.bin
    assert got["TCVTTest.nonsattorch_fp32_int16_4x128_4x65"] == {"x1_gm.bin": 2048, "golden.bin": 1024,
                                                                 "golden_truncated.bin": 1024}
    assert got["TCVTTest.saturation_int64_int32_1x32"] == {"x1_gm.bin": 256, "golden.bin": 128,
                                                           "golden_truncated.bin": 128}
    assert got["TCVTTest.case_fp32_int64_2x32_2x16"] == {"x1_gm.bin": 256, "golden.bin": 512}
    for name, case in _named("a2a3").items():  # every folder: whole tiles of each type
        r, c = case.tile("dst").shape
        want = {"x1_gm.bin": r * c * ITEM[case.dtype], "golden.bin": r * c * ITEM[case.param("to")]}
        if not name.startswith("case_"):
            want["golden_truncated.bin"] = want["golden.bin"]
        assert got[f"TCVTTest.{name}"] == want, name


def test_a_flipped_golden_truncated_byte_fails_the_saturation_folder(tmp_path):
    api.generate("tcvt", "kirin9030", tmp_path)
    folder = tmp_path / "TCVTTest.saturation_fp16_int8_1x32"
    manifest = json.loads((folder / "ptofuzz.json").read_text())
    (folder / "ptofuzz.json").unlink()
    assert api.check([folder], "kirin9030")[0].verdict == "pass"
    path = folder / "golden_truncated.bin"
    good = path.read_bytes()
    classes = classes_from_masks(manifest["expected"].get("classes", {}).get("golden_truncated.bin", {}), 32)
    exact = np.flatnonzero(classes == EXACT)
    assert len(exact) and len(exact) < 32  # the specials (inf, NaN, out of range) are open with saturation off
    at = int(exact[0])
    path.write_bytes(good[:at] + bytes([good[at] ^ 1]) + good[at + 1:])
    (v,) = api.check([folder], "kirin9030")
    assert v.verdict == "fail" and [f.file for f in v.files if not f.ok] == ["golden_truncated.bin"]
    path.unlink()
    (v,) = api.check([folder], "kirin9030")
    assert v.verdict == "fail" and "missing" in str([f for f in v.files if not f.ok])


# ---- kirinDev0000 -----------------------------------------------------------------------------------------------

def test_a_pair_s_words_split_where_both_sides_are_types():
    assert conversion.split_pair("fp32_fp16") == ("float32", "float16")
    assert conversion.split_pair("fp32_fp8_e4m3") == ("float32", "float8_e4m3")
    assert conversion.split_pair("fp8_e5m2_fp32") == ("float8_e5m2", "float32")
    assert conversion.split_pair("fp16_h8") == ("float16", "hifloat8")
    assert conversion.split_pair("uint32_int16") == ("uint32", "int16")
    for pair in ("bf16_fp4_e1m2x2", "fp4_e2m1x2_bf16", "fp16_s4", "fp32"):  # no type ptofuzz has, or one side only
        with pytest.raises(ValueError):
            conversion.split_pair(pair)


def test_kirin_dev_names_and_params_by_hand():
    cases = _named("kirinDev0000")
    assert len(cases) == 34 * 7 + 5  # gen_data.py: 34 pairs x 7 shapes, 5 saturation folders (no int64)
    assert not any("int64" in n for n in cases)
    c = cases["case_fp16_h8_4x128_4x65"]  # tcvt_kernel.cpp: fp16 to hifloat8 with CAST_ROUND, the rest CAST_RINT
    assert (c.dtype, c.param("to"), c.tile("dst"), c.param("rmode"), c.param("sat")) == \
        ("float16", "hifloat8", Tile(4, 128, 4, 65), 2, None)
    assert cases["case_fp32_h8_1x128"].param("rmode") == cases["case_h8_fp32_1x128"].param("rmode") == 1
    c = cases["case_fp32_fp8_e4m3_2x64"]
    assert (c.dtype, c.param("to"), c.tile("src")) == ("float32", "float8_e4m3", Tile(2, 64, 2, 64))
    c = cases["case_bf16_int32_1x256_1x129"]  # a real bfloat16 on kirinDev0000 (its bf16_wrapper)
    assert (c.dtype, c.param("to"), c.tile("dst"), c.param("named")) == ("bfloat16", "int32", Tile(1, 256, 1, 129),
                                                                         None)
    c = cases["saturation_int32_int16_1x32"]
    assert (c.dtype, c.param("to"), c.param("sat")) == ("int32", "int16", SAT_OFF)
    prof = TCVT.support("kirinDev0000").profile
    assert prof.goldens(c) == (("golden_truncated.bin", "dst"),)
    assert TCVT.support("kirinDev0000").has_system_test and prof.canonical == conversion.system_test("kirinDev0000")
    assert prof.parse("TCVTTest.case_fp8_e5m2_fp32_4x32") == cases["case_fp8_e5m2_fp32_4x32"]


def _h8(value: float) -> float:
    from ptofuzz.oracles import convert as cv

    x = cv.decode(np.asarray(value), registry.dtypes.get("hifloat8"))
    return float(np.ldexp(float(x.mag), int(x.exp))) * (-1 if bool(x.neg) else 1)


def test_fp16_to_h8_rounds_ties_away_as_its_kernel_asks_and_rint_to_even():
    """HiFloat8 holds 1.0, 1.125 and 1.25 (three fraction bits in [1, 2)): 1.0625 is a tie; CAST_ROUND (the
    kirinDev0000 kernel's mode for fp16 to h8) takes 1.125, CAST_RINT the even 1.0; 1.1875 goes to 1.25 in both."""
    case = _named("kirinDev0000")["case_fp16_h8_4x32"]
    src = np.zeros((4, 32), np.float16)
    src[0, :3] = (1.0625, 1.1875, -1.0625)
    got = TCVT.evaluate(case, {"src": src.view(np.uint16)})
    assert [_h8(v) for v in got.outputs["dst"][0, :3]] == [1.125, 1.25, -1.125]
    assert (got.classes["dst"][0, :3] == EXACT).all()
    rint = TCVT.evaluate(case.replace(params=(("to", "hifloat8"), ("rmode", 1))), {"src": src.view(np.uint16)})
    assert [_h8(v) for v in rint.outputs["dst"][0, :3]] == [1.0, 1.25, -1.0]


def test_kirin_dev_folder_sizes_by_hand(tmp_path):
    api.generate("tcvt", "kirinDev0000", tmp_path)
    got = {d.name: {f.name: f.stat().st_size for f in d.glob("*.bin")} for d in tmp_path.iterdir()}
    assert len(got) == 243
    # pto-isa's own folders (the catalogue): 8-bit floats one byte, bfloat16 two
    assert got["TCVTTest.case_fp32_h8_4x256_4x200"] == {"x1_gm.bin": 4096, "golden.bin": 1024}
    assert got["TCVTTest.case_bf16_fp32_1x256_1x129"] == {"x1_gm.bin": 512, "golden.bin": 1024}
    assert got["TCVTTest.saturation_fp16_uint8_1x32"] == {"x1_gm.bin": 64, "golden_truncated.bin": 32}


# ---- a5 -----------------------------------------------------------------------------------------------------------

def test_a5_list_is_built_without_fp4_and_not_exposed():
    cases = _named("a5")
    assert len(cases) == 300 - len(conversion.A5_WITHOUT_TYPE) == 272
    assert len(conversion.A5_WITHOUT_TYPE) == 4 * 7 and not set(conversion.A5_WITHOUT_TYPE) & set(cases)
    assert {"case_bf16_fp4_e2m1x2_4x128_4x65", "case_fp4_e1m2x2_bf16_1x256_1x129"} <= set(conversion.A5_WITHOUT_TYPE)
    assert not any("fp4" in n for n in cases) and "FP4" in conversion.A5_WITHOUT_TYPE_REASON
    assert TCVT.support("a5").profile.canonical == () and not TCVT.support("a5").has_system_test
    c = cases["saturation_int64_int32_1x32"]  # a5 has int64 to int32 (kirinDev0000 has not)
    assert (c.dtype, c.param("to"), c.param("sat")) == ("int64", "int32", SAT_OFF)
    c = cases["case_int32_int64_4x256_4x200"]
    assert (c.dtype, c.param("to"), c.tile("dst"), c.param("rmode")) == ("int32", "int64", Tile(4, 256, 4, 200), 1)
    assert cases["case_fp16_h8_2x64"].param("rmode") == 2 and cases["case_fp32_h8_2x64"].param("rmode") == 1


def test_a5_bf16_pairs_are_the_float16_its_test_runs():
    """gen_data.py's ``bfloat16 = np.float16`` and main.cpp's aclFloat16: fp32_bf16, bf16_fp32 and bf16_int32
    convert float16 (one case each, told apart from fp32_fp16 by the name's word); bf16_fp16 (never run) stays
    the page's bfloat16 to float16, all of it open."""
    cases = _named("a5")
    for name, pair in (("case_fp32_bf16_2x64", ("float32", "float16")), ("case_bf16_fp32_2x64", ("float16", "float32")),
                       ("case_bf16_int32_2x64", ("float16", "int32"))):
        assert (cases[name].dtype, cases[name].param("to"), cases[name].param("named")) == (*pair, "bf16")
    assert cases["case_fp32_fp16_2x64"].param("named") is None
    assert cases["case_fp32_bf16_2x64"] != cases["case_fp32_fp16_2x64"]
    assert cases["case_fp32_bf16_2x64"].replace(params=(("to", "float16"), ("rmode", 1))) == \
        cases["case_fp32_fp16_2x64"]
    src = np.zeros((2, 64), np.uint16)
    src[0, 0] = 0x5240  # float16 50.0 (as bfloat16 bits 0x5240 would be about 2.06e11)
    got = TCVT.evaluate(cases["case_bf16_int32_2x64"], {"src": src})
    assert int(got.outputs["dst"][0, 0]) == 50 and got.classes["dst"][0, 0] == EXACT
    c = cases["case_bf16_fp16_2x64"]
    assert (c.dtype, c.param("to"), c.param("named")) == ("bfloat16", "float16", None)
    assert (TCVT.evaluate(c, {"src": src}).classes["dst"] != EXACT).all()


@pytest.fixture
def a5_exposed(monkeypatch):
    """TCVT with a5's list exposed, as it will be once the 4-bit floats are in."""
    monkeypatch.setattr(conversion, "COMPLETE", ("kirin9030", "kirinDev0000", "a5"))
    monkeypatch.setitem(registry._REGISTRY, "TCVT", conversion.instructions()[0])


def test_a5_folders_files_sizes_and_names(a5_exposed, tmp_path):
    api.generate("tcvt", "a5", tmp_path)
    got = {d.name: {f.name: f.stat().st_size for f in d.glob("*.bin")} for d in tmp_path.iterdir()}
    assert len(got) == 272
    # from pto-isa's own folders
    assert got["TCVTTest.case_fp32_bf16_4x128_4x65"] == {"x1_gm.bin": 2048, "golden.bin": 1024}
    assert got["TCVTTest.case_int64_fp32_1x256_1x129"] == {"x1_gm.bin": 2048, "golden.bin": 1024}
    assert got["TCVTTest.saturation_int64_int32_1x32"] == {"x1_gm.bin": 256, "golden_truncated.bin": 128}
    prof = registry.get("TCVT").support("a5").profile  # the exposed one
    assert len(prof.canonical) == 272
    for name, case in _named("a5").items():  # every folder: whole tiles of each type; names parse back
        r, c = case.tile("dst").shape
        want = {"x1_gm.bin": r * c * ITEM[case.dtype],
                "golden.bin" if name.startswith("case_") else "golden_truncated.bin": r * c * ITEM[case.param("to")]}
        assert got[f"TCVTTest.{name}"] == want, name
        assert prof.name(case) == f"TCVTTest.{name}" and prof.parse(f"TCVTTest.{name}") == case


def _run_gen_data(platform: str, out: Path) -> list[Path]:
    """pto-isa's own ``gen_data.py`` of ``platform``'s TCVT test, run as its runners run it; its folders."""
    tree = Path(PTO_ISA)
    out.mkdir()
    shutil.copy(tree / "tests" / "npu" / platform / "src" / "st" / "testcase" / "tcvt" / "gen_data.py", out)
    env = {**os.environ, "PYTHONPATH": str(tree / "tests" / "cpu" / "st"), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "gen_data.py"], cwd=out, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (out / "gen_data.py").unlink()
    return sorted(d for d in out.iterdir() if d.is_dir())


PTO_ISA = os.environ.get("PTO_ISA_DIR", "")


@pytest.mark.slow
def test_a5_s_own_folders_pass_check_but_fp4(a5_exposed, tmp_path):
    """a5's gen_data.py writes its 300 folders: the 28 FP4 ones are those ptofuzz leaves out, each of the others
    is a listed case and passes check (its "bf16" goldens are float16's, as the test runs them)."""
    if not PTO_ISA or not (Path(PTO_ISA) / "tests").is_dir():
        pytest.skip("needs PTO_ISA_DIR (a pto-isa tree with its tests/)")
    folders = _run_gen_data("a5", tmp_path / "a5")
    hidden = {f"TCVTTest.{n}" for n in conversion.A5_WITHOUT_TYPE}
    listed = [d for d in folders if d.name not in hidden]
    assert len(folders) == 300 and len(listed) == 272
    assert sorted(d.name for d in listed) == sorted(f"TCVTTest.{n}" for n in _named("a5"))
    verdicts = api.check(listed, "a5")
    assert len(verdicts) == 272
    assert {v.name: (v.verdict.value, v.message) for v in verdicts if v.verdict.value != "pass"} == {}
