"""Sort case folders: pto-isa names and sizes, check catching a flipped index byte, sNaNs kept on disk."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT
from ptofuzz.io import casefolder
from ptofuzz.oracles import ieee


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_tsort32_check_fails_on_a_flipped_index_byte(platform, tmp_path, cli):
    assert cli("gen", "tsort32", "--platform", platform, "-o", tmp_path).code == 0
    assert cli("check", tmp_path).code == 0
    case = sorted(tmp_path.iterdir())[-1]
    golden = next(case.glob("golden*.bin"))
    m = json.loads((case / "ptofuzz.json").read_text())
    words = np.fromfile(golden, np.uint32)
    cls = casefolder.classes_from_masks(m["expected"]["classes"].get(golden.name, {}), words.size)
    word = int(np.flatnonzero((cls == EXACT) & (np.arange(words.size) % 2 == 1))[0])  # an index word
    data = bytearray(golden.read_bytes())
    data[4 * word] ^= 0x01
    golden.write_bytes(bytes(data))
    res = cli("check", case)
    assert res.code == 1, res
    assert f"element {word} " in res.out and f"expected 0x{int(words[word]):08x}" in res.out


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_snans_survive_writing_and_reading_back(dtype, tmp_path):
    dt = dtypes.get(dtype)
    explicit = {"dtype": dtype, "shape": (8, 64), "descending": True, "contract": 1 if dtype == "bfloat16" else None}
    api.generate("tsort", "spec", tmp_path, explicit=explicit, special="snan", special_rate=0.3)
    (case,) = tmp_path.iterdir()
    src = np.fromfile(case / "input0.bin", dt.bits_dtype)
    snans = src[ieee.is_snan(src, dt)]
    assert snans.size > 20 and np.all((snans & dt.quiet_bit) == 0) and np.all((snans & dt.man_mask) != 0)
    out = np.fromfile(case / "golden_val.bin", dt.bits_dtype)
    # every sNaN bit pattern of the valid region reappears in the golden, unquieted
    tile = json.loads((case / "ptofuzz.json").read_text())["tiles"]["src"]
    rows, cols = tile["shape"]
    vr, vc = tile["valid"]
    valid_src = src.reshape(rows, cols)[:vr, :vc]
    valid_out = out.reshape(rows, cols)[:vr, :vc]
    assert sorted(valid_src[ieee.is_snan(valid_src, dt)].tolist()) == \
        sorted(valid_out[ieee.is_snan(valid_out, dt)].tolist())
    assert json.loads((case / "ptofuzz.json").read_text())["expected"]["flags"] == ["NV"]


def test_tsort32_half_golden_pad_bytes_are_zero(tmp_path):
    api.generate("tsort32", "a5", tmp_path, explicit={"dtype": "half", "shape": (4, 64)})
    (case,) = tmp_path.iterdir()
    words = np.fromfile(case / "golden_output.bin", np.uint32)
    assert words.size == 4 * 64 * 2 and np.all(words[0::2] >> 16 == 0)


def test_sort_options_only_apply_to_sorts(cli, tmp_path):
    res = cli("gen", "tpartadd", "--platform", "a5", "--sort-width", "4", "-o", tmp_path)
    assert res.code == 2 and "--sort-width does not apply to TPARTADD" in res.err
    res = cli("gen", "tsort", "--platform", "spec", "--special", "snan,bogus", "-o", tmp_path)
    assert res.code == 2 and "'bogus' is no special-value kind" in res.err
    res = cli("gen", "tsort", "--platform", "spec", "--sort-width", "65", "--shape", "2x70", "-o", tmp_path)
    assert res.code == 0  # an illegal width is a legality-fault case, written without a golden
    (case,) = tmp_path.iterdir()
    assert json.loads((case / "ptofuzz.json").read_text())["expected"]["fault"]["trap"] == 5
    assert not (case / "golden_val.bin").exists()


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_random_tsort32_cases_check(platform, tmp_path, cli):
    res = cli("gen", "tsort32", "--platform", platform, "--random", "15", "--special", "sort", "-o", tmp_path)
    assert res.code == 0
    assert cli("check", tmp_path).code == 0


def test_random_tsort_cases_check(tmp_path, cli):
    assert cli("gen", "tsort", "--platform", "spec", "--random", "25", "--special", "sort", "-o", tmp_path).code == 0
    assert cli("check", tmp_path).code == 0


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_tmrgsort_folders_check_and_catch_a_flipped_index_byte(platform, tmp_path, cli):
    assert cli("gen", "tmrgsort", "--platform", platform, "-o", tmp_path).code == 0
    assert cli("check", tmp_path).code == 0
    case = tmp_path / "TMRGSORTTest.case_multi1"
    m = json.loads((case / "ptofuzz.json").read_text())
    assert m["params"] == {"lists": 4}
    data = bytearray((case / "golden.bin").read_bytes())
    data[4 * 7] ^= 0x01  # record 3's index word
    (case / "golden.bin").write_bytes(bytes(data))
    (case / "ptofuzz.json").unlink()  # as a pto-isa-made folder: found by the recomputation alone
    res = cli("check", case, "--platform", platform)
    assert res.code == 1 and "element 7 " in res.out


def test_tmrgsort_exhausted_counts_and_explicit_forms(tmp_path, cli):
    res = cli("gen", "tmrgsort", "--platform", "cpu", "--lists", "3", "--shape", "1x16", "--exhausted", "-o", tmp_path)
    assert res.code == 0, res
    (case,) = tmp_path.iterdir()
    m = json.loads((case / "ptofuzz.json").read_text())
    executed = m["expected"]["executed"]
    assert len(executed) == 4 and executed[3] == 0 and 16 in executed[:3]  # stopped when one list ran out
    assert cli("check", case).code == 0
    res = cli("gen", "tmrgsort", "--platform", "a5", "--lists", "2", "--blocks", "32", "-o", tmp_path / "x")
    assert res.code == 2 and "--lists and --blocks" in res.err


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_random_tmrgsort_cases_check(platform, tmp_path, cli):
    assert cli("gen", "tmrgsort", "--platform", platform, "--random", "20", "--special", "sort", "-o",
               tmp_path).code == 0
    assert cli("check", tmp_path).code == 0


def test_npu_tmrgsort_goldens_are_defined_except_where_the_kernel_writes_nothing(tmp_path):
    result = api.generate("tmrgsort", "a5", tmp_path, special_rate=0.3)
    by_name = {c.name: c for c in result.cases}
    assert by_name["TMRGSORTTest.case_multi1"].not_exact == 0  # NaNs and zeros were redrawn
    assert by_name["TMRGSORTTest.case_single1"].not_exact == 0
    # multi3 keeps 224 of 256 records: the last 32 records (64 words) are never written
    assert by_name["TMRGSORTTest.case_multi3"].not_exact == 64


def test_tsort32_redraw_keeps_specials_where_only_the_geometry_is_undefined(tmp_path):
    """Special values asked for in a 16-bit cpu row of two blocks survive the redraw of undefined elements (NaN
    blocks are undefined; zeros and ties are not)."""
    api.generate("tsort32", "cpu", tmp_path, explicit={"dtype": "half", "shape": (16, 64)}, special="zero,tie",
                 special_rate=0.3)
    (case,) = tmp_path.iterdir()
    src = np.fromfile(case / "input0.bin", np.uint16)
    assert np.count_nonzero((src & 0x7FFF) == 0) > 20


@pytest.mark.parametrize("args,needle", [
    (["--lists", "2", "--shape", "1x0"], "at least one record"),
    (["--blocks", "0"], "--blocks 0"),
    (["--lists", "5"], "--lists 5"),
    (["--lists", "2", "--shape", "3x8"], "one row"),
    (["--random", "2", "--lists", "2"], "drop --lists"),
])
def test_tmrgsort_bad_flags(cli, tmp_path, args, needle):
    res = cli("gen", "tmrgsort", "--platform", "cpu", "-o", tmp_path, *args)
    assert res.code == 2 and needle in res.err and "Traceback" not in res.err


def test_tmrgsort_replay_rebuilds_the_case(tmp_path, cli):
    assert cli("gen", "tmrgsort", "--platform", "cpu", "--lists", "3", "--shape", "1x16", "--exhausted",
               "-o", tmp_path / "a").code == 0
    (case,) = (tmp_path / "a").iterdir()
    replay = json.loads((case / "ptofuzz.json").read_text())["replay"].split()[1:]  # drop "ptofuzz"
    assert cli(*replay, "-o", tmp_path / "b").code == 0
    (again,) = (tmp_path / "b").iterdir()
    assert again.name == case.name
    assert (again / "golden.bin").read_bytes() == (case / "golden.bin").read_bytes()
