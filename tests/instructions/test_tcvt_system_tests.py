"""TCVT's system-test folders: kirin9030's list (exposed) and a2a3's (built, without the int4 cases, not exposed),
their names, parameters, golden files and sizes, hand-checked against pto-isa's gen_data.py and main.cpp."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core.case import EXACT, Tile
from ptofuzz.instructions import conversion, registry
from ptofuzz.io.casefolder import classes_from_masks
from ptofuzz.oracles.conversion import SAT_OFF, SAT_ON

TCVT = registry.get("TCVT")
ITEM = {"float32": 4, "float16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
        "int64": 8}


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
