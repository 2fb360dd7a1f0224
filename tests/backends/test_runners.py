"""`ptofuzz st` through pto-isa's own runner scripts: run_st.py from an overlay of the tree (a stand-in for the
device binary here), run_cpu.py with ptofuzz's build folder; ptofuzz's data stays in place and the tree unwritten."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from backend_helpers import st_toolchain_or_skip

from ptofuzz.backends import runners
from ptofuzz.engine import systest as st
from ptofuzz.engine.generate import generate

PTO_ISA = os.environ.get("PTO_ISA_DIR", "")
needs_tree = pytest.mark.skipif(not (PTO_ISA and (Path(PTO_ISA) / runners.RUN_ST).is_file()),
                                reason="needs PTO_ISA_DIR: a pto-isa tree with tests/script/run_st.py")

# A stand-in for a device's test binary: like pto-isa's, it runs in build/bin and finds each case in
# ../<Suite>.<case>/; it answers each case with its golden (the outputs named as the platform's test names them),
# but flips the lowest bit of the first output element of the case named in $STANDIN_WRONG, and writes a gtest
# JSON report to $GTEST_OUTPUT where every case passes (a tolerant comparison would pass one flipped bit).
STAND_IN = """\
import json, os, sys
from pathlib import Path
from ptofuzz.instructions import registry
from ptofuzz.core import platforms
suites = {}
for manifest in sorted(Path("..").glob("*/ptofuzz.json")):
    case, m = manifest.parent, json.loads(manifest.read_text())
    outputs = registry.get(m["op"]).support(platforms.canonical(m["platform"])).profile.outputs
    goldens = {f["role"]: f["name"] for f in m["files"] if f["kind"] == "golden"}
    for name, role in outputs:
        data = bytearray((case / goldens[role]).read_bytes())
        if case.name == os.environ.get("STANDIN_WRONG") and data and name == outputs[0][0]:
            data[0] ^= 1
        (case / name).write_bytes(bytes(data))
    suite, _, test = case.name.partition(".")
    suites.setdefault(suite, []).append({"name": test})
report = os.environ.get("GTEST_OUTPUT", "")
if report.startswith("json:"):
    Path(report[5:]).write_text(json.dumps({"testsuites": [{"name": s, "testsuite": t} for s, t in suites.items()]}))
"""


def _stand_in(folder: Path) -> Path:
    path = folder / "device-test"
    path.write_text(f"#!{sys.executable}\n{STAND_IN}")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _fingerprint(tree: Path) -> dict[str, tuple[int, int]]:
    """Every path under the tree's tests/ and include/ with its size and modification time."""
    return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for top in ("tests", "include") for p in (tree / top).rglob("*")}


def _manifest_hashes_hold(folder: Path) -> list[str]:
    """Every input and golden of the case folder under ``folder`` whose sha256 is still the one its manifest
    records; fails on any other."""
    held = []
    for manifest in folder.glob("*/ptofuzz.json"):
        for f in json.loads(manifest.read_text())["files"]:
            data = (manifest.parent / f["name"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == f["sha256"], f"{manifest.parent.name}/{f['name']} changed"
            held.append(f"{manifest.parent.name}/{f['name']}")
    return held


# ---- the overlay: links to the tree, real folders only on the way to the test ---------------------------------

def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    for rel in ("include/pto/pto-inst.hpp", "tests/common/test_common.h", "tests/script/run_st.py",
                "tests/npu/a5/src/st/CMakeLists.txt", "tests/npu/a5/src/st/testcase/CMakeLists.txt",
                "tests/npu/a5/src/st/testcase/tpartadd/main.cpp", "tests/npu/a5/src/st/testcase/tpartadd/gen_data.py",
                "tests/npu/a5/src/st/testcase/tadd/gen_data.py",
                "tests/npu/kirin9030/src/st/testcase/tmrgsort/gen_data.py"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(rel)
    (tree / "tests/npu/kirinX90/src/st/testcase").mkdir(parents=True)  # a git link, checked out as a plain file
    (tree / "tests/npu/kirinX90/src/st/testcase/tmrgsort").write_text("../../../../kirin9030/src/st/testcase/tmrgsort")
    return tree


def test_the_overlay_links_every_entry_and_makes_real_only_the_folders_on_the_way(tmp_path):
    tree = _tree(tmp_path)
    before = _fingerprint(tree)
    root = runners.overlay(tree, "a5", "TPARTADD", tmp_path / "cache", ["ptofuzz", "gen"])
    test = root / "tests/npu/a5/src/st/testcase/tpartadd"
    for real in (root, root / "tests", root / "tests/npu", root / "tests/npu/a5/src/st/testcase", test):
        assert real.is_dir() and not real.is_symlink()
    for link, target in (("include", "include"), ("tests/common", "tests/common"), ("tests/script", "tests/script"),
                         ("tests/npu/a2a3", None), ("tests/npu/a5/src/st/CMakeLists.txt", None),
                         ("tests/npu/a5/src/st/testcase/tadd", None),
                         ("tests/npu/a5/src/st/testcase/tpartadd/main.cpp", None)):
        assert (root / link).is_symlink() or link == "tests/npu/a2a3", link
        if (root / link).is_symlink():
            assert (root / link).resolve() == (tree / (target or link)).resolve()
    assert not (root / "tests/npu/a2a3").exists()  # the tree has none: nothing invented
    gen = test / "gen_data.py"
    assert not gen.is_symlink() and "['ptofuzz', 'gen']" in gen.read_text()
    assert (tree / "tests/npu/a5/src/st/testcase/tpartadd/gen_data.py").read_text().endswith("gen_data.py")
    assert _fingerprint(tree) == before


def test_the_overlay_is_refreshed_and_keeps_the_runner_s_build(tmp_path):
    tree = _tree(tmp_path)
    root = runners.overlay(tree, "a5", "TPARTADD", tmp_path / "cache", ["a"])
    build = root / "tests/npu/a5/src/st/build"
    (build / "bin").mkdir(parents=True)
    (build / "bin" / "tpartadd").write_text("built")
    (tree / "tests/npu/a5/src/st/testcase/tadd/gen_data.py").unlink()
    (tree / "tests/npu/a5/src/st/testcase/tadd").rmdir()  # gone from the tree: its link goes
    (tree / "tests/npu/a5/src/st/testcase/tsub").mkdir()  # new in the tree: linked
    again = runners.overlay(tree, "a5", "TPARTADD", tmp_path / "cache", ["b"])
    assert again == root and (build / "bin" / "tpartadd").read_text() == "built"
    testcase = root / "tests/npu/a5/src/st/testcase"
    assert not (testcase / "tadd").is_symlink() and not (testcase / "tadd").exists()
    assert (testcase / "tsub").is_symlink()
    assert "['b']" in (testcase / "tpartadd" / "gen_data.py").read_text()
    other = runners.overlay(tree, "kirin9030", "TMRGSORT", tmp_path / "cache", ["c"])  # one overlay per platform
    assert other != root and "['b']" in (testcase / "tpartadd" / "gen_data.py").read_text()


def test_a_git_link_stored_as_a_file_is_followed_and_other_small_files_are_not(tmp_path):
    tree = _tree(tmp_path)
    placeholder = tree / "tests/npu/kirinX90/src/st/testcase/tmrgsort"
    assert runners.follow(placeholder) == (tree / "tests/npu/kirin9030/src/st/testcase/tmrgsort").resolve()
    assert runners.has_npu_test(tree, "kirinX90", "TMRGSORT")
    plain = tree / "tests/npu/a5/src/st/testcase/tadd/gen_data.py"  # text that names no folder
    assert runners.follow(plain) == plain
    root = runners.overlay(tree, "kirinX90", "TMRGSORT", tmp_path / "cache", ["x"])
    deep = root / "tests/npu/kirinX90/src/st/testcase/tmrgsort"
    assert deep.is_dir() and not deep.is_symlink() and "['x']" in (deep / "gen_data.py").read_text()


# ---- choosing a runner: one line naming the option and the fix -----------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["--platform", "a5", "--runner", "run_cpu"], "--runner run_cpu runs pto-isa's CPU system tests (--platform cpu); "
                                                  "a5's tests run through --runner run_st"),
    (["--runner", "run_st"], "--runner run_st runs pto-isa's NPU tests: use an NPU --platform (a2a3, a5, kirin9030, "
                             "kirinX90, kirinDev0000, a6), or --runner run_cpu for the CPU tests"),
    (["--runner", "make"], "--runner make: use one of cmake, run_cpu, run_st"),
    (["--runner", "run_cpu", "--stand-in", "x"], "--stand-in goes with --runner run_st (an NPU platform)"),
    (["--run-mode", "sim"], "--run-mode goes with --runner run_st (an NPU platform)"),
    (["--platform", "a5", "--run-mode", "hw"], "--run-mode hw: use one of npu, sim (run_st.py's -r)"),
    (["--platform", "a5", "--stand-in", "no-such-program"], "--stand-in 'no-such-program' is no executable file; pass "
                                                            "a program to run in place of the test binary"),
    (["--platform", "spec"], "--platform spec: pto-isa has no system tests of the spec; use cpu or an NPU platform"),
])
def test_a_runner_that_does_not_fit_is_one_line(cli, args, message, tmp_path):
    r = cli("st", "tpartadd", *args, "--cache-dir", tmp_path / "cache")
    assert r.code == 2 and r.err == f"ptofuzz: error: {message}\n", r
    assert not (tmp_path / "cache").exists()


def test_run_st_without_cann_or_a_stand_in_is_one_line(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    tree = _tree(tmp_path)
    r = cli("st", "tpartadd", "--platform", "a5", "--pto-isa", tree, "--cache-dir", tmp_path / "cache")
    assert r.code == 2 and r.err == ("ptofuzz: error: run_st.py builds pto-isa's NPU tests with the CANN toolkit: set "
                                     "ASCEND_HOME_PATH (source CANN's set_env.sh), or pass --stand-in EXE to run EXE "
                                     "in place of the test binary\n")
    r = cli("st", "tpartadd", "--platform", "a5", "--pto-isa", tree, "--run-mode", "sim", "--stand-in",
            _stand_in(tmp_path), "--cache-dir", tmp_path / "cache")
    assert r.code == 2 and "run_st.py -r sim runs CANN's simulator: set ASCEND_HOME_PATH" in r.err
    assert not (tmp_path / "cache").exists()


# ---- run_st.py end to end on the pinned snapshot, with a stand-in for the device ------------------------------

@needs_tree
def test_run_st_runs_on_ptofuzz_s_data_leaves_it_in_place_and_never_writes_the_tree(cli, tmp_path, monkeypatch):
    """run_st.py (pto-isa's, unmodified, from the overlay) copies and runs the overlay's gen_data.py, which calls
    ptofuzz gen, then runs the test binary (the stand-in, with -w); every a5 case passes on both sides, the case
    folders are byte for byte what ptofuzz gen writes, their sha256 still the manifest's, the tree unwritten."""
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    tree = Path(PTO_ISA)
    before = _fingerprint(tree)
    r = cli("st", "tpartadd", "tpartargmax", "--platform", "a5", "--stand-in", _stand_in(tmp_path), "--cache-dir",
            tmp_path / "cache", "--json")
    assert r.code == 0, r
    report = json.loads(r.out)
    assert report["ran"] == report["passed"] == 12 + 15 and report["failed"] == 0
    assert all(c["gtest"] == "pass" and c["check"] == "pass" for c in report["cases"])
    build = Path(report["cases"][0]["path"]).parent
    assert build.is_relative_to(tmp_path / "cache" / "run_st") and build.name == "build"
    assert len(_manifest_hashes_hold(build)) == 12 * 3 + 15 * 6
    fresh = generate("tpartadd", "a5", tmp_path / "fresh")
    for case in fresh.cases:
        for f in ("input1.bin", "input2.bin", "golden.bin"):
            assert (build / case.name / f).read_bytes() == (tmp_path / "fresh" / case.name / f).read_bytes()
    assert "-r npu -v a5 -t tpartadd -w -g TPARTADDTest." in report["cases"][0]["reproduce"]
    assert _fingerprint(tree) == before


@needs_tree
def test_run_st_names_the_one_wrong_device_output_and_what_pto_isa_said(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    wrong = "TPARTADDTest.case_float_64x64_8x64_64x64"
    monkeypatch.setenv("STANDIN_WRONG", wrong)
    r = cli("st", "tpartadd", "--platform", "a5", "--stand-in", _stand_in(tmp_path), "--cache-dir", tmp_path / "cache",
            "--json")
    assert r.code == 1, r
    cases = {c["name"]: c for c in json.loads(r.out)["cases"]}
    assert [n for n, c in cases.items() if c["verdict"] == "fail"] == [wrong]
    bad = cases[wrong]
    assert (bad["gtest"], bad["check"]) == ("pass", "fail")
    assert bad["why"].startswith("the device's output differs from the documented golden (output.bin: 1 of ")
    assert bad["why"].endswith("pto-isa's tolerant comparison let it pass")


@needs_tree
def test_a_stand_in_without_a_gtest_report_leaves_ptofuzz_s_check_deciding(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    quiet = tmp_path / "quiet"
    quiet.write_text(f"#!/bin/sh\nunset GTEST_OUTPUT\nexec {_stand_in(tmp_path)}\n")
    quiet.chmod(0o755)
    r = cli("st", "tmrgsort", "--platform", "kirinX90", "--stand-in", quiet, "--cache-dir", tmp_path / "cache",
            "--json")
    assert r.code == 0, r
    cases = json.loads(r.out)["cases"]
    assert cases and all(c["gtest"] == "no report" and c["check"] == "pass" for c in cases)
    assert "-v kirinX90 -t tmrgsort -w" in cases[0]["reproduce"]  # kirinX90's own device, kirin9030's cases


@needs_tree
def test_a_runner_that_fails_before_the_cases_exist_fails_each_case_with_its_reason(tmp_path, monkeypatch):
    """With CANN claimed but absent, run_st.py's build fails: no case folder, each case says what ended the run."""
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "no-cann"))
    cases = st.run(["TPARTMUL"], Path(PTO_ISA), tmp_path / "cache", platform="a5", timeout=300)
    assert len(cases) == 9 and all(c.verdict == "fail" and c.check is None for c in cases)
    assert all(c.why.startswith("run_st.py ended with status 1: run failed: ") for c in cases), cases[0].why


# ---- run_cpu.py end to end: its build, ptofuzz's data ----------------------------------------------------------

@pytest.mark.cpusim
def test_run_cpu_builds_and_runs_pto_isa_s_test_on_ptofuzz_s_data(cli, tmp_path):
    st_toolchain_or_skip()
    tree = Path(PTO_ISA)
    before = _fingerprint(tree)
    r = cli("st", "tpartmax", "--runner", "run_cpu", "--cache-dir", tmp_path / "cache", "--json")
    assert r.code == 0, r
    report = json.loads(r.out)
    assert report["ran"] == report["passed"] == 3
    assert all(c["gtest"] == "pass" and c["check"] == "pass" for c in report["cases"])
    build = Path(report["cases"][0]["path"]).parent
    assert build.is_relative_to(tmp_path / "cache" / "st") and (build / "bin" / "tpartmax").is_file()
    assert "CMakeCache.txt" in os.listdir(build)  # run_cpu.py configured and built it there
    assert len(_manifest_hashes_hold(build)) == 3 * 3
    assert "run_cpu.py --testcase tpartmax --build-dir" in report["cases"][0]["reproduce"]
    assert _fingerprint(tree) == before
