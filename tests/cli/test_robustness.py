"""Review findings: sizes, partial failures, --force over files and links, tampered folders, mixed parents."""

from __future__ import annotations

import json
import os

import pytest

from ptofuzz import api
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder


@pytest.mark.parametrize("args,needle", [
    (["--dst", "70000x70000"], "4,194,304 elements"),
    (["--dst", "99999999999999999999x1"], "elements"),
    (["--random", "0"], "between 1 and"),
])
def test_huge_or_silly_sizes_are_usage_errors(cli, tmp_path, args, needle):
    res = cli("gen", "tpartadd", "--platform", "a5", "-o", tmp_path, *args)
    assert res.code == 2 and needle in res.err and "Traceback" not in res.err
    assert list(tmp_path.iterdir()) == []


def test_a_failure_midway_leaves_no_output(tmp_path, monkeypatch):
    real = casefolder.stage
    calls = {"n": 0}

    def flaky(out_dir, content, run=None):
        calls["n"] += 1
        if calls["n"] == 4:
            raise UsageError(f"cannot write {content.name!r}: No space left on device; free some space")
        return real(out_dir, content, run)

    monkeypatch.setattr(casefolder, "stage", flaky)
    with pytest.raises(UsageError, match="No space left"):
        api.generate("tpartmax", "a2a3", tmp_path)
    assert list(tmp_path.iterdir()) == []  # neither finished folders nor hidden temporaries


def test_io_error_names_the_file(cli, tmp_path):
    blocker = tmp_path / "out"
    blocker.write_text("not a directory")
    res = cli("gen", "tpartadd", "--platform", "a5", "-o", blocker / "sub")
    assert res.code == 2 and str(blocker) in res.err and "choose another --out" in res.err


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_force_never_replaces_a_file_or_a_link_named_like_a_case(tmp_path, kind):
    """A user's file or link that has a case folder's name is no case folder of ptofuzz's: --force refuses it,
    leaves it (and what a link points to) as it was, and leaves nothing else written."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    name = "TPARTMAXTest.test1"
    if kind == "file":
        (tmp_path / name).write_text("x")
    else:
        os.symlink(target, tmp_path / name)
    with pytest.raises(UsageError, match="already exists"):
        api.generate("tpartmax", "a2a3", tmp_path)
    with pytest.raises(UsageError, match=f"is a {'file' if kind == 'file' else 'link'}, not a case folder"):
        api.generate("tpartmax", "a2a3", tmp_path, force=True)
    assert (tmp_path / name).is_symlink() if kind == "symlink" else (tmp_path / name).read_text() == "x"
    assert (target / "keep.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "elsewhere"])


def test_force_replaces_only_what_ptofuzz_or_gen_data_wrote(tmp_path):
    """A case folder holding a user's file is refused whole (nothing replaced, nothing of this run left); one of
    ptofuzz's files, a test's output.bin, or a gen_data.py folder of the case's own files is replaced."""
    api.generate("tpartmin", "a5", tmp_path, explicit={"dtype": "float32", "dst": (2, 2)})
    (case,) = tmp_path.iterdir()
    before = {p.name: p.read_bytes() for p in case.iterdir()}
    (case / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match=r"holds 'notes\.txt', which no case folder holds"):
        api.generate("tpartmin", "a5", tmp_path, explicit={"dtype": "float32", "dst": (2, 2)}, seed=1, force=True)
    assert {p.name: p.read_bytes() for p in case.iterdir()} == {**before, "notes.txt": b"mine"}
    assert [p.name for p in tmp_path.iterdir()] == [case.name]  # nothing hidden left either
    (case / "notes.txt").unlink()
    (case / "output.bin").write_bytes(before["golden.bin"])  # what pto-isa's test wrote there
    api.generate("tpartmin", "a5", tmp_path, explicit={"dtype": "float32", "dst": (2, 2)}, seed=1, force=True)
    assert sorted(p.name for p in case.iterdir()) == sorted(before)
    (case / "ptofuzz.json").unlink()  # as gen_data.py leaves a folder: the case's own files only
    api.generate("tpartmin", "a5", tmp_path, explicit={"dtype": "float32", "dst": (2, 2)}, seed=2, force=True)
    assert sorted(p.name for p in case.iterdir()) == sorted(before)


def test_a_dangling_link_named_like_a_case_is_refused_before_anything_is_written(tmp_path):
    os.symlink(tmp_path / "gone", tmp_path / "TPARTMAXTest.test4")
    with pytest.raises(UsageError, match=r"TPARTMAXTest.test4.*already exists"):
        api.generate("tpartmax", "a2a3", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["TPARTMAXTest.test4"]


def test_check_notices_edits_the_recomputation_cannot_see(cli, tmp_path):
    """A byte changed at an element whose value is free (a NaN payload, an undefined placeholder) still
    fails: the file is not the one ptofuzz wrote."""
    api.generate("tpartadd", "a5", tmp_path, special_rate=0.5, allow_undefined=True)
    case = tmp_path / "TPARTADDTest.case_half_8x48_8x16_8x48"
    m = json.loads((case / "ptofuzz.json").read_text())
    masks = m["expected"]["classes"]["golden.bin"]
    loose = casefolder.classes_from_masks(masks, 8 * 48)
    i = int(next(k for k in range(loose.size) if loose[k] != 0))
    data = bytearray((case / "golden.bin").read_bytes())
    data[2 * i] ^= 0x01
    (case / "golden.bin").write_bytes(bytes(data))
    res = cli("check", case)
    assert res.code == 1 and "golden.bin is not the file ptofuzz wrote" in res.out


def test_check_keeps_going_over_bad_and_foreign_folders(cli, tmp_path):
    api.generate("tpartmin", "a5", tmp_path, explicit={"dst": (2, 2)})
    foreign = tmp_path / "TPARTADDTest.case_float_8x8_8x8_8x8"  # no manifest, no --platform
    foreign.mkdir()
    (foreign / "input1.bin").write_bytes(b"\0" * 256)
    broken = tmp_path / "TPARTMINTest.broken"
    broken.mkdir()
    (broken / "ptofuzz.json").write_text(json.dumps({"op": "TPARTFOO", "platform": "a5", "dtype": "float32",
                                                     "tiles": {}}))
    (tmp_path / ".TPARTMINTest.case_x.tmp-1").mkdir()  # a leftover temporary: not a case
    res = cli("check", tmp_path)
    assert res.code == 2
    assert "PASS  TPARTMINTest.case_fp32_2x2_2x2_2x2" in res.out
    assert "ERROR TPARTADDTest.case_float_8x8_8x8_8x8" in res.out and "pass --platform" in res.out
    assert "ERROR TPARTMINTest.broken" in res.out and "unknown instruction 'TPARTFOO'" in res.out
    assert ".tmp-" not in res.out


def test_manifest_with_impossible_tiles_is_a_folder_error(tmp_path):
    api.generate("tpartmin", "a5", tmp_path, explicit={"dst": (2, 2)})
    (case,) = tmp_path.iterdir()
    m = json.loads((case / "ptofuzz.json").read_text())
    m["tiles"]["src0"]["valid"] = [9, 9]
    (case / "ptofuzz.json").write_text(json.dumps(m))
    with pytest.raises(CaseFolderError, match="does not fit its tile"):
        casefolder.load(case, None)
    del m["tiles"]["src1"]
    (case / "ptofuzz.json").write_text(json.dumps(m))
    with pytest.raises(CaseFolderError, match="no src1 tile"):
        casefolder.load(case, None)


@pytest.mark.parametrize("name", ["TPARTADDTest.case_fp32_8x8_8x8_8x8",  # a5 MAX/MIN spelling on TPARTADD
                                  "TPARTADDTest.case_float_8x8_4x4_8x8_inplace_src0",  # src0 is not dst's tile
                                  "TPARTADDTest.case_float_8x8_8x8_8x8_inplace_dst"])
def test_names_parse_strictly(name):
    with pytest.raises(CaseFolderError):
        registry.get("TPARTADD").support("a5").profile.parse(name)


def test_minimize_force_replaces_only_an_earlier_minimized_record(cli, tmp_path):
    out = tmp_path / "run"
    assert cli("fuzz", "tpartargmax", "--runs", "3000", "--seed", "0", "--shape", "8x16", "--out", out).code == 0
    finding = out / "TPARTARGMAX_float_a5-vs-cpu_index_op_-_b2689ef6"
    small = finding.with_name(finding.name + ".min")
    assert cli("minimize", finding).code == 0
    (small / "notes.txt").write_text("mine")
    res = cli("minimize", finding, "--force")
    assert res.code == 2 and "holds 'notes.txt', which no record folder holds" in res.err, res
    assert (small / "notes.txt").read_text() == "mine" and (small / "record.json").is_file()
    (small / "notes.txt").unlink()
    assert cli("minimize", finding, "--force").code == 0  # its own earlier result is replaced


def test_a_failed_gen_leaves_no_out_folder_it_created(tmp_path):
    """Interrupted after its first case, gen rolls back what it wrote and removes the --out folders it created
    (here three levels of them), but never one that was there before."""
    out = tmp_path / "a" / "b" / "c"

    def interrupt(*_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        api.generate("tpartadd", "a5", out, on_case=interrupt)
    assert not (tmp_path / "a").exists()
    (tmp_path / "keep").mkdir()
    with pytest.raises(KeyboardInterrupt):
        api.generate("tpartadd", "a5", tmp_path / "keep", on_case=interrupt)
    assert (tmp_path / "keep").is_dir() and not any((tmp_path / "keep").iterdir())


def test_check_with_the_simulator_builds_only_the_instructions_of_its_cpu_folders(cli, tmp_path):
    """`check --oracle cpusim` compiles the simulator objects of the cpu folders it checks, not every instruction's:
    an NPU folder (the check refuses it) and a folder that does not load (the check reports it) add none."""
    from ptofuzz.cli.golden import _ops_of

    for op, platform in (("tadd", "cpu"), ("tabs", "cpu"), ("tpartadd", "a5")):
        assert cli("gen", op, "--platform", platform, "--random", "2", "--seed", "1",
                   "--out", tmp_path / "cases").code == 0
    broken = tmp_path / "cases" / "broken"
    broken.mkdir()
    (broken / "input1.bin").write_bytes(b"\0" * 4)
    folders = casefolder.discover([tmp_path / "cases"])
    assert len(folders) == 7
    assert _ops_of(folders, None) == ("TABS", "TADD")
    assert _ops_of([f for f in folders if "TPARTADD" in f.name or f == broken], None) == ()
