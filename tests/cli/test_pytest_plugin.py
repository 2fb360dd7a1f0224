"""The pytest plugin: records and case folders as test items (-k, --junitxml, failures with a reproducer)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ptofuzz import api
from ptofuzz.io import records

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT / "corpora"


@pytest.mark.slow
def test_every_corpus_record_is_an_item_and_replays_unchanged(pytester):
    n = len(records.discover([CORPORA]))
    assert n > 200
    result = pytester.runpytest("--ptofuzz-replay", str(CORPORA), "-p", "no:randomly", "-o", "addopts=", "-q",
                                "--co")
    names = [line for line in result.outlines if line.startswith("ptofuzz-replay::corpora/")]
    assert len(names) == len(set(names)) == n
    ops = {json.loads(p.read_text())["op"] for p in records.discover([CORPORA])}
    assert {"TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN", "TPARTARGMAX", "TPARTARGMIN", "TSORT", "TSORT32",
            "TMRGSORT"} <= ops
    # the default run replays every record as its own item; here one instruction's records run through the plugin
    one = CORPORA / "tpartmax"
    result = pytester.runpytest("--ptofuzz-replay", str(one), "-p", "no:randomly")
    result.assert_outcomes(passed=len(records.discover([one])))


def test_a_changed_record_fails_with_its_reproducer_and_k_and_junitxml_work(pytester, tmp_path):
    recs = tmp_path / "recs"
    shutil.copytree(CORPORA / "tpartmax" / "edge", recs)
    bad = recs / "f32-specials-tpartmax.json"
    data = json.loads(bad.read_text())
    data["expect"]["a5"]["digest"] = "0" * 16
    bad.write_text(json.dumps(data))
    total = len(list(recs.glob("*.json")))
    xml = tmp_path / "j.xml"
    result = pytester.runpytest("--ptofuzz-replay", str(recs), f"--junitxml={xml}", "-p", "no:randomly")
    result.assert_outcomes(passed=total - 1, failed=1)
    result.stdout.fnmatch_lines(["*changed: a5: outputs or element classes changed*",
                                 f"*reproduce: ptofuzz replay {bad}*"])
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite.get("tests") == str(total) and suite.get("failures") == "1"
    only = pytester.runpytest("--ptofuzz-replay", str(recs), "-k", "specials", "-p", "no:randomly")
    only.assert_outcomes(failed=1)


def test_case_folders_are_checked_items(pytester, tmp_path):
    api.generate("tpartargmax", "kirin9030", tmp_path / "g")
    result = pytester.runpytest("--ptofuzz-check", str(tmp_path / "g"), "-p", "no:randomly")
    result.assert_outcomes(passed=5)
    golden = tmp_path / "g" / "TPARTARGMAXTest.case_fp32_2x24_2x24_2x8" / "golden_idx.bin"
    golden.write_bytes(bytes([golden.read_bytes()[0] ^ 1]) + golden.read_bytes()[1:])
    result = pytester.runpytest("--ptofuzz-check", str(tmp_path / "g"), "-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["*golden_idx.bin*", "*reproduce: ptofuzz check*case_fp32_2x24_2x24_2x8*"])


def test_nothing_is_collected_without_an_option(pytester):
    pytester.makepyfile("def test_one():\n    pass\n")
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)


def test_a_bad_path_is_a_usage_error(pytester, tmp_path):
    result = pytester.runpytest("--ptofuzz-replay", str(tmp_path / "nope"), "-p", "no:randomly")
    assert result.ret != 0 and "ptofuzz:" in "\n".join(result.errlines + result.outlines)


def test_a_folder_names_escape_codes_are_never_printed_raw(tmp_path):
    """pytest -v prints each item's name: a case folder named with escape codes shows them as ``\\x1b``."""
    import subprocess
    import sys

    api.generate("tpartmin", "a5", tmp_path / "ev", explicit={"dtype": "float32", "dst": (2, 2)})
    (case,) = (tmp_path / "ev").iterdir()
    case.rename(case.with_name(case.name + "\x1b[31mRED"))
    r = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "--ptofuzz-check",
                        str(tmp_path / "ev"), "-o", "ptofuzz_replay="], cwd=tmp_path, capture_output=True, text=True)
    assert "\x1b" not in r.stdout + r.stderr
    assert f"ptofuzz-check::ev/{case.name}\\x1b[31mRED PASSED" in r.stdout, r.stdout
