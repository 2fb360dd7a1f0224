"""gen writes what check accepts; one changed byte anywhere is caught; the same seed gives the same bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core.case import EXACT
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder

WITH_FILES = [(op, p) for op in ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN") for p in registry.PLATFORMS
              if p in registry.get(op).platforms and registry.get(op).support(p).profile.canonical]


def _digest(folder: Path) -> dict[str, str]:
    return {str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(folder.rglob("*")) if f.is_file()}


@pytest.mark.parametrize("op,platform", WITH_FILES)
def test_check_passes_on_everything_gen_wrote(op, platform, tmp_path, cli):
    gen = cli("gen", op.lower(), "--platform", platform, "-o", tmp_path)
    assert gen.code == 0, gen
    res = cli("check", tmp_path)
    assert res.code == 0, res
    n = len(list(tmp_path.iterdir()))
    assert f"{n} of {n} case(s) pass" in res.out


@pytest.mark.parametrize("platform", ["spec", "cpu", "a2a3", "a5"])
def test_check_passes_on_random_cases(platform, tmp_path, cli):
    assert cli("gen", "tpartmin", "--platform", platform, "--random", "25", "-o", tmp_path, "--seed", "5").code == 0
    res = cli("check", tmp_path)
    assert res.code == 0, res


def _first_exact_index(case_dir: Path, fname: str) -> int:
    """Flat index of an element the manifest expects bit-exactly (not nan/zero/undefined)."""
    m = json.loads((case_dir / "ptofuzz.json").read_text())
    classes = casefolder.classes_from_masks(m["expected"]["classes"].get(fname, {}), 4096)
    return int(np.flatnonzero(classes == EXACT)[0])


@pytest.mark.parametrize("target", ["golden.bin", "output.bin"])
def test_one_changed_byte_fails_naming_case_element_and_bits(target, tmp_path, cli):
    assert cli("gen", "tpartadd", "--platform", "a5", "-o", tmp_path).code == 0
    case = tmp_path / "TPARTADDTest.case_float_64x64_8x64_64x64"
    golden = case / "golden.bin"
    if target == "output.bin":
        (case / "output.bin").write_bytes(golden.read_bytes())
        assert cli("check", case).code == 0  # a correct device output passes
    idx = _first_exact_index(case, "golden.bin")
    data = bytearray((case / target).read_bytes())
    before = int.from_bytes(data[4 * idx:4 * idx + 4], "little")
    data[4 * idx] ^= 0x01
    (case / target).write_bytes(bytes(data))
    res = cli("check", tmp_path)
    assert res.code == 1, res
    assert "FAIL  TPARTADDTest.case_float_64x64_8x64_64x64" in res.out
    assert f"{target}: 1 of 4096 elements differ" in res.out
    assert f"element {idx} (row {idx // 64}, col {idx % 64}): expected 0x{before:08x}" in res.out
    assert f"actual 0x{before ^ 1:08x}" in res.out
    assert f"reproduce: ptofuzz check {case}" in res.out
    assert "11 of 12 case(s) pass; 1 fail" in res.out


def test_changed_int8_byte_in_cpu_golden(tmp_path, cli):
    assert cli("gen", "tpartmax", "--platform", "cpu", "-o", tmp_path).code == 0
    golden = tmp_path / "TPARTMAX_Test.case_int8_64x64_src1_32x32" / "golden.bin"
    data = bytearray(golden.read_bytes())
    data[100] = (data[100] + 1) % 256
    golden.write_bytes(bytes(data))
    res = cli("check", golden.parent)
    assert res.code == 1 and "element 100 (row 1, col 36)" in res.out


def test_same_seed_same_bytes_other_seed_other_data(tmp_path, cli):
    for d, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        assert cli("gen", "tpartmul", "--platform", "a5", "-o", tmp_path / d, "--seed", seed).code == 0
    a, b, c = (_digest(tmp_path / d) for d in "abc")
    assert a == b
    inputs = [k for k in a if k.endswith("input1.bin")]
    assert inputs and all(a[k] != c[k] for k in inputs)


def test_random_cases_are_deterministic_and_order_independent(tmp_path):
    api.generate("tpartadd", "cpu", tmp_path / "x", random=10, seed=3)
    api.generate("tpartadd", "cpu", tmp_path / "y", random=10, seed=3)
    assert _digest(tmp_path / "x") == _digest(tmp_path / "y")
    # a case's data depends on the seed and its folder name only, not on what was generated before it
    one = api.plan("tpartadd", "cpu", seed=3, random=10)[4]
    inputs, _ = api.realize(registry.get("tpartadd"), one[0], one[1], 3, 0.05)
    assert (tmp_path / "x" / one[0] / "input1.bin").read_bytes() == inputs["src0"].tobytes()


def test_pto_isa_folder_without_manifest_is_read_from_its_name(tmp_path, cli):
    assert cli("gen", "tpartmax", "--platform", "a2a3", "-o", tmp_path).code == 0
    for m in tmp_path.glob("*/ptofuzz.json"):
        m.unlink()
    res = cli("check", tmp_path)
    assert res.code == 2 and "pass --platform" in res.out + res.err
    res = cli("check", tmp_path, "--platform", "a2a3")
    assert res.code == 0, res
    assert "PASS  TPARTMAXTest.testEmpty3" in res.out


def test_pto_isa_style_golden_with_inf_times_zero_nan_is_caught(tmp_path, cli):
    """a2a3's own gen_data golden computes max as src0*(src0>src1) + src1*(src0<=src1): NaN when the losing
    operand is infinite. Such a golden must fail check."""
    assert cli("gen", "tpartmax", "--platform", "a2a3", "-o", tmp_path, "--dtype", "float32",
               "--dst", "1x4", "--src0", "1x4", "--src1", "1x4").code == 0
    case = next(tmp_path.iterdir())
    s0 = np.array([1.0, -np.inf, 2.0, 3.0], np.float32)
    s1 = np.array([0.5, 1.0, np.inf, 3.0], np.float32)
    s0.tofile(case / "input0.bin")
    s1.tofile(case / "input1.bin")
    (case / "ptofuzz.json").unlink()
    with np.errstate(invalid="ignore"):
        pto_isa = s0 * (s0 > s1) + s1 * (s0 <= s1)  # [1, nan, inf, 3]
    pto_isa.astype(np.float32).tofile(case / "golden.bin")
    nan_bits = int(pto_isa.view(np.uint32)[1])
    res = cli("check", case, "--platform", "a2a3")
    assert res.code == 1 and f"element 1 (row 0, col 1): expected 0x3f800000 (1.0), actual 0x{nan_bits:08x}" in res.out


def test_spec_fault_case_has_no_golden_and_checks(tmp_path, cli):
    res = cli("gen", "tpartadd", "--platform", "spec", "-o", tmp_path, "--dst", "4x4", "--src0", "2x4",
              "--src1", "4x2", "--dtype", "int16")
    assert res.code == 0, res
    case = next(tmp_path.iterdir())
    m = json.loads((case / "ptofuzz.json").read_text())
    assert m["expected"]["outcome"] == "fault"
    assert m["expected"]["fault"]["name"] == "Fault_TileLegality" and m["expected"]["fault"]["trap"] == 5
    assert not (case / "golden.bin").exists()
    assert cli("check", case).code == 0
    (case / "golden.bin").write_bytes(b"\0" * 32)
    res = cli("check", case)
    assert res.code == 1 and "present, but the case's outcome is fault" in res.out


def test_manifest_describes_the_case(tmp_path):
    api.generate("tpartmax", "a5", tmp_path, explicit={"dtype": "u16", "dst": (3, 5), "src1": (2, 5)}, seed=11)
    (case,) = tmp_path.iterdir()
    assert case.name == "TPARTMAXTest.case_u16_3x5_3x5_2x5"
    m = json.loads((case / "ptofuzz.json").read_text())
    assert (m["op"], m["platform"], m["dtype"], m["seed"]) == ("TPARTMAX", "a5", "uint16", 11)
    assert m["tiles"]["src1"] == {"shape": [2, 5], "valid": [2, 5]}
    assert m["layout"] == "compact-valid" and m["expected"]["outcome"] == "ok"
    by_name = {f["name"]: f for f in m["files"]}
    assert set(by_name) == {"input1.bin", "input2.bin", "golden.bin"}
    for f in by_name.values():
        data = (case / f["name"]).read_bytes()
        assert f["bytes"] == len(data) == np.prod(f["shape"]) * 2
        assert f["sha256"] == hashlib.sha256(data).hexdigest()
    assert by_name["input2.bin"]["role"] == "src1" and by_name["golden.bin"]["kind"] == "golden"
    assert m["replay"].startswith("ptofuzz gen tpartmax --platform a5 --seed 11")


def test_inplace_and_zero_size_are_case_parameters(tmp_path, cli):
    res = cli("gen", "tpartadd", "--platform", "cpu", "-o", tmp_path, "--dtype", "int32", "--shape", "8x8",
              "--dst", "8x8", "--src1", "0x8", "--inplace", "src0")
    assert res.code == 0, res
    (case,) = tmp_path.iterdir()
    assert case.name == "TPARTADD_Test.case_int32_8x8_8x8_0x8of8x8_inplace_src0"
    m = json.loads((case / "ptofuzz.json").read_text())
    assert m["params"] == {"inplace": "src0"}
    # src1 is empty, so the destination (which is src0) keeps src0's values
    assert (case / "golden.bin").read_bytes() == (case / "input1.bin").read_bytes()
    assert cli("check", case).code == 0


def test_manifest_class_bitmaps_match_the_oracle(tmp_path):
    """The manifest's nan/zero/undefined bitmaps decode to exactly the oracle's per-element classes."""
    result = api.generate("tpartmax", "a5", tmp_path, random=12, seed=4, special_rate=0.3, allow_undefined=True)
    seen = set()
    for gc in result.cases:
        m = json.loads((gc.path / "ptofuzz.json").read_text())
        inputs, outcome = api.realize(registry.get("tpartmax"), gc.name, gc.case, 4, 0.3, defined=False)
        expected = outcome.classes["dst"][:gc.case.tile("dst").valid_rows, :gc.case.tile("dst").valid_cols]
        masks = m["expected"]["classes"].get("golden.bin", {})
        decoded = casefolder.classes_from_masks(masks, expected.size)
        assert np.array_equal(decoded, expected.ravel())
        assert all(v["count"] == int(np.count_nonzero(decoded == code))
                   for code, name in ((1, "nan"), (2, "zero"), (3, "undefined")) for k, v in masks.items() if k == name)
        seen.update(masks)
    assert "undefined" in seen


@pytest.mark.parametrize("op", ["tpartadd", "tpartmul", "tpartmax"])
def test_npu_goldens_are_fully_defined_by_default(op, tmp_path):
    """Canonical a5 goldens hold no placeholder: inputs that would overflow, flush or meet a NaN in max/min
    are redrawn; --allow-undefined keeps them (and the manifest lists them)."""
    strict = api.generate(op, "a5", tmp_path / "strict", special_rate=0.3)
    for c in strict.cases:
        m = json.loads((c.path / "ptofuzz.json").read_text())
        assert "undefined" not in m["expected"]["classes"].get("golden.bin", {}), c.name
    loose = api.generate(op, "a5", tmp_path / "loose", special_rate=0.3, allow_undefined=True)
    assert any("undefined" in json.loads((c.path / "ptofuzz.json").read_text())["expected"]["classes"].get(
        "golden.bin", {}) for c in loose.cases)


@pytest.mark.parametrize("args", [
    ("tpartadd", "--platform", "a5", "--random", "5", "--dtype", "half", "--shape", "16x32"),
    ("tpartadd", "--platform", "a5", "--random", "4", "--special", "snan,qnan", "--special-rate", "0.3"),
    ("tpartargmax", "--platform", "cpu", "--random", "3", "--index-dtype", "int32", "--dtype", "float32"),
    ("tsort", "--platform", "spec", "--random", "3", "--sort-width", "8", "--descending", "--bundle"),
    ("tpartmin", "--platform", "a2a3", "--random", "3", "--allow-undefined", "--special-rate", "0.5"),
    ("tpartmul", "--platform", "cpu", "--dtype", "int16", "--dst", "3x5", "--special", "zero"),
], ids=["filters", "values", "index-dtype", "tsort-bundle", "undefined", "explicit"])
def test_the_regenerate_command_in_each_folder_writes_the_same_bytes(args, tmp_path, cli):
    """A folder's ``replay`` command is the whole request: the filters of --random (--dtype, --shape, ...) and
    the options that change values (--special, --special-rate, --allow-undefined, --bundle). It dropped them,
    and wrote other cases."""
    import shlex

    assert cli("gen", *args, "--seed", "7", "-o", tmp_path / "a").code == 0
    first = sorted(p for p in (tmp_path / "a").iterdir())[0]
    command = json.loads((first / "ptofuzz.json").read_text())["replay"]
    argv = shlex.split(command)
    assert argv[:2] == ["ptofuzz", "gen"]
    r = cli(*argv[1:], "-o", tmp_path / "b")
    assert r.code == 0, (command, r)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b"), command


def test_a_long_check_names_what_did_not_pass_just_above_its_summary(tmp_path, cli):
    """2,000 folders and one FAIL at line 1,234 ended "1999 of 2000 case(s) pass; 1 fail" without naming it."""
    assert cli("gen", "tpartadd", "--platform", "a5", "--random", "60", "-o", tmp_path).code == 0
    folders = sorted(p for p in tmp_path.iterdir())
    bad, unreadable = folders[33], folders[40]
    data = bytearray((bad / "golden.bin").read_bytes())
    data[0] ^= 1
    (bad / "golden.bin").write_bytes(bytes(data))
    (unreadable / "ptofuzz.json").write_text("{")
    r = cli("check", tmp_path)
    assert r.code == 2
    tail = r.out.strip().splitlines()[-4:]
    assert tail[0] == "not passing (2):"
    assert tail[1].split()[:2] == ["FAIL", bad.name] and tail[1].endswith(f"ptofuzz check {bad}")
    assert tail[2].split()[:2] == ["ERROR", unreadable.name]
    assert tail[3] == "58 of 60 case(s) pass; 1 fail; 1 could not be read"
    assert "not passing" not in cli("check", folders[0]).out  # one folder: its own lines say it all
