"""TCVT's cpu system test (tests/cpu/st/testcase/tcvt): its 31 folders by hand from gen_data.py and main.cpp (the
pair, the tile, the SaturationMode; CAST_RINT throughout), their files (int4 one element a byte, FP4 two a byte,
the even element in the low nibble), and ``check``'s reasons for the goldens its script gets wrong."""

from __future__ import annotations

import json

import numpy as np

from ptofuzz import api
from ptofuzz.core.case import Case, Tile
from ptofuzz.instructions import conversion, registry
from ptofuzz.oracles.conversion import SAT_OFF, SAT_ON

TCVT = registry.get("TCVT")
SIZE = {"float32": 4, "int32": 4, "int16": 2, "uint16": 2, "float16": 2, "int8": 1, "uint8": 1, "int4": 1,
        "float4_e2m1": 0.5, "float4_e1m2": 0.5}


def test_the_31_cases_by_hand():
    cases = dict(conversion.system_test("cpu"))
    assert list(cases) == [f"case{k}" for k in range(1, 32)]
    want = {1: ("float32", "int32", 128, 128, SAT_OFF), 6: ("float32", "int32", 4, 4096, SAT_OFF),
            11: ("int8", "float32", 128, 128, SAT_ON), 17: ("uint16", "float32", 64, 64, SAT_OFF),
            19: ("uint16", "int32", 64, 64, SAT_ON), 20: ("float32", "int4", 64, 64, SAT_OFF),
            23: ("int4", "float32", 64, 64, SAT_ON), 24: ("float32", "float4_e2m1", 64, 64, SAT_OFF),
            30: ("float32", "float4_e1m2", 64, 64, SAT_ON), 31: ("float4_e1m2", "float32", 64, 64, SAT_ON)}
    for k, (src, dst, r, c, sat) in want.items():
        case = cases[f"case{k}"]
        assert (case.dtype, case.param("to"), case.tile("dst"), case.tile("src"), case.param("rmode"),
                case.param("sat")) == (src, dst, Tile(r, c, r, c), Tile(r, c, r, c), 1, sat), k
    assert sum(c.param("sat") == SAT_ON for c in cases.values()) == 14
    prof = TCVT.support("cpu").profile
    assert TCVT.support("cpu").has_system_test and prof.canonical == conversion.system_test("cpu")
    assert prof.name(cases["case7"]) == "TCVTTest.case7"
    assert prof.packs("float4_e2m1") and prof.packs("float4_e1m2") and not prof.packs("int4")
    assert not TCVT.support("a5").profile.packs("float4_e2m1") or "a5" in conversion.COMPLETE


def test_folders_files_and_sizes(tmp_path, st_cases):
    api.generate("tcvt", "cpu", tmp_path)
    got = {d.name: {f.name: f.stat().st_size for f in d.glob("*.bin")} for d in tmp_path.iterdir()}
    assert got == st_cases["tcvt/cpu"]["cases"]  # pto-isa's own folders, file by file
    for name, case in conversion.system_test("cpu"):
        r, c = case.tile("dst").shape
        assert got[f"TCVTTest.{name}"] == {"x1_gm.bin": int(r * c * SIZE[case.dtype]),
                                           "golden.bin": int(r * c * SIZE[case.param("to")])}


def test_fp4_files_are_packed_low_nibble_first_and_int4_a_byte_each(tmp_path):
    api.generate("tcvt", "cpu", tmp_path)
    folder = tmp_path / "TCVTTest.case25"  # E2M1 to float32: x1_gm.bin packed
    packed = np.fromfile(folder / "x1_gm.bin", np.uint8).reshape(64, 32)
    golden = np.fromfile(folder / "golden.bin", np.float32).reshape(64, 64)
    table = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], np.float32)
    assert (golden[:, 0::2] == table[packed & 0xF]).all() and (golden[:, 1::2] == table[packed >> 4]).all()
    manifest = json.loads((folder / "ptofuzz.json").read_text())
    assert [f["bytes"] for f in manifest["files"]] == [2048, 16384]
    ints = np.fromfile(tmp_path / "TCVTTest.case21" / "x1_gm.bin", np.uint8)  # int4: one a byte, the low nibble
    assert ints.size == 4096 and (ints >> 4 == 0).all() and len(np.unique(ints)) == 16
    assert all(v.verdict == "pass" for v in api.check(sorted(tmp_path.iterdir()), "cpu"))
    # a flipped nibble of a packed golden fails: the high one of byte 0 is element 1
    out = tmp_path / "TCVTTest.case26" / "golden.bin"
    data = bytearray(out.read_bytes())
    data[0] ^= 0x10
    out.write_bytes(bytes(data))
    (v,) = api.check([tmp_path / "TCVTTest.case26"], "cpu")
    assert v.verdict == "fail"


def _fp4_case(src, dst, sat):
    tile = Tile(1, 32, 1, 32)
    return Case("TCVT", "cpu", src, (("dst", tile), ("src", tile)), (("to", dst), ("rmode", 1), ("sat", sat)))


def test_explain_names_the_rint_of_the_script_and_nothing_else():
    # FP4 to float32: the script's np.rint of 0.5 is 0.0; a golden with another wrong value is not explained
    src = np.zeros((1, 32), np.uint8)
    src[0, :3] = [0x1, 0x3, 0x2]  # 0.5, 1.5, 1.0
    right = np.zeros((1, 32), np.float32)
    right[0, :3] = [0.5, 1.5, 1.0]
    rinted = right.copy()
    rinted[0, :3] = [0.0, 2.0, 1.0]
    case = _fp4_case("float4_e2m1", "float32", SAT_OFF)
    why = conversion.explain(case, {"src": src}, {"dst": rinted.view(np.uint32)})
    assert "np.rint" in why and "widens exactly" in why and "(2 such elements)" in why
    assert conversion.explain(case, {"src": src}, {"dst": right.view(np.uint32)}) == ""
    other = right.copy()
    other[0, 0] = 0.75
    assert conversion.explain(case, {"src": src}, {"dst": other.view(np.uint32)}) == ""
    # float32 to E1M2 saturated: 3.0 stays 3.0 (inside [-4, 3.5]), rints to 3 = 1.5 * 2**1, whose exponent wraps
    # to 0 in E1M2's one bit: code 0x2 (0.5), where TCVT gives 1.75
    x = np.zeros((1, 32), np.float32)
    x[0, :2] = [3.0, 0.75]
    gold = np.zeros((1, 32), np.uint8)
    gold[0, :2] = [0x2, 0x4]  # rint(0.75) = 1.0: code 4
    case = _fp4_case("float32", "float4_e1m2", SAT_ON)
    why = conversion.explain(case, {"src": x.view(np.uint32)}, {"dst": gold})
    assert "clamped to [-4, 3.5]" in why and "(2 such elements)" in why
    gold[0, 1] = 0x3  # the right code for 0.75: only element 0 is wrong now
    assert "(1 such elements)" in conversion.explain(case, {"src": x.view(np.uint32)}, {"dst": gold})
    assert conversion.explain(case.on("kirin9030") if hasattr(case, "on") else case, {"src": x.view(np.uint32)},
                              {"dst": np.full((1, 32), 7, np.uint8)}) == ""  # 1.75 everywhere is no rint


def test_truncating_encoder_matches_the_scripts_examples():
    """The script's mx_from_double (MXType(double)) by hand: mantissa truncated, exponent wrapped past the
    format (pto-isa's case24/28 goldens: -3.123e38 -> 0x9, 3.088e38 -> 0x1 in E2M1, 3.02e38 -> 0x3 in E1M2),
    4.0 in E1M2 wraps to 1.0 (0x4) and 3.0 to 0.5 (0x2); 0.5 (E2M1's and E1M2's), whose rebiased exponent is 0,
    keeps its (empty) normal fraction: +-0 (0x0, 0x8), not the subnormal codes 0x1 and 0x2."""
    from ptofuzz.core import dtypes

    e2m1, e1m2 = dtypes.get("float4_e2m1"), dtypes.get("float4_e1m2")
    v = np.array([3.0, 5.0, 6.0, -0.5, 0.0, np.float32(-3.123e38), np.float32(3.088e38), 0.25])
    assert conversion._truncating_fp4(v, e2m1).tolist() == [0x5, 0x6, 0x7, 0x8, 0x0, 0x9, 0x1, 0x0]
    v = np.array([4.0, 3.0, 1.75, np.float32(3.02e38), -1.0, 0.25, 0.5])
    assert conversion._truncating_fp4(v, e1m2).tolist() == [0x4, 0x2, 0x7, 0x3, 0xC, 0x1, 0x0]
