"""Bitwise case folders read back by ``check`` with no manifest (as pto-isa's own are): a golden element the pages
pin is checked bit for bit, one they leave open (a shift count from the width on) is not, whatever it holds."""

from __future__ import annotations

import json
import shutil

import numpy as np

from ptofuzz import api
from ptofuzz.instructions import bitwise


def _bare(tmp_path, op: str, platform: str, name: str):
    """One of ``gen``'s canonical folders without its manifest, and its arrays (dtype from the folder name)."""
    api.generate(op, platform, tmp_path / "gen")
    folder = tmp_path / name
    shutil.copytree(tmp_path / "gen" / name, folder)
    (folder / "ptofuzz.json").unlink()
    return folder


def _verdicts(folder, platform: str) -> list[tuple[str, str]]:
    return [(v.verdict.value, v.message) for v in api.check([folder], platform)]


def test_a_pinned_shift_element_is_checked_and_an_open_one_is_not(tmp_path):
    """a2a3 TSHL case5 (uint8 32x32, valid-region files): set a count to 9 (>= W: no page defines the element)
    and write numpy's zero fill, or any bits, into the golden there: it passes; a wrong bit where the count is in
    [0, 8) fails."""
    folder = _bare(tmp_path, "tshl", "a2a3", "TSHLTest.case5")
    a = np.fromfile(folder / "input1.bin", np.uint8)
    c = np.fromfile(folder / "input2.bin", np.uint8)
    g = np.fromfile(folder / "golden.bin", np.uint8)
    assert (c < 8).all() and np.array_equal(g, (a << c).astype(np.uint8))  # gen: every count defined
    assert _verdicts(folder, "a2a3")[0][0] == "pass"
    c[0], g[0] = 9, 0
    c.tofile(folder / "input2.bin")
    for fill in (0, 0xA5):
        g[0] = fill
        g.tofile(folder / "golden.bin")
        assert _verdicts(folder, "a2a3")[0][0] == "pass", fill
    g[1] ^= 1
    g.tofile(folder / "golden.bin")
    assert _verdicts(folder, "a2a3")[0][0] == "fail"


def test_a_wrong_scalar_result_fails_and_the_kernel_quirk_case_passes(tmp_path):
    folder = _bare(tmp_path, "txors", "a5", "TXORSTest.case10")
    g = np.fromfile(folder / "golden.bin", np.int32)
    a = np.fromfile(folder / "input1.bin", np.int32)
    s = np.fromfile(folder / "input2.bin", np.int32)
    assert s.size == 1 and g.tolist() == (a ^ s[0]).tolist()
    assert _verdicts(folder, "a5")[0][0] == "pass"
    g[3] ^= 1 << 30
    g.tofile(folder / "golden.bin")
    assert _verdicts(folder, "a5")[0][0] == "fail"
    half = _bare(tmp_path / "h", "tand", "a5", "TANDTest.case10")  # int16 files, TAND's half kernel
    assert _verdicts(half, "a5")[0][0] == "pass"


def test_every_canonical_case_of_a_kirin_test_is_kirin9030_s():
    for op in bitwise.NAMES:
        assert bitwise.canonical(op, "kirinDev0000") == tuple(
            (n, c.replace(platform="kirinDev0000")) for n, c in bitwise.canonical(op, "kirin9030"))


def test_the_manifest_names_what_gen_wrote(tmp_path):
    api.generate("tshls", "a5", tmp_path)
    manifest = json.loads((tmp_path / "TSHLSTest.case_int64_4x16_4x16_4x16" / "ptofuzz.json").read_text())
    assert (manifest["op"], manifest["dtype"]) == ("TSHLS", "int64")
    assert manifest["tiles"]["scalar"] == {"shape": [1, 1], "valid": [1, 1]}
    sizes = {p.name: p.stat().st_size for p in (tmp_path / "TSHLSTest.case_int64_4x16_4x16_4x16").glob("*.bin")}
    assert sizes == {"input1.bin": 512, "input2.bin": 8, "golden.bin": 512}
