"""Seed corpora replay unchanged and rebuild identically; the fuzzer-bytes Source and the atheris engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.engine import campaign
from ptofuzz.engine.replay import replay
from ptofuzz.generators.fuzzed import BytesProvider, FuzzedSource
from ptofuzz.io import records

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT / "corpora"


# every corpus record replays unchanged: a test item each, through ptofuzz's pytest plugin (pyproject
# `ptofuzz_replay = ["corpora"]`; tests/cli/test_pytest_plugin.py checks the plugin itself)


@pytest.mark.slow
def test_corpora_rebuild_identically(tmp_path):
    res = subprocess.run([sys.executable, str(ROOT / "ci" / "build_corpora.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    built = {p.relative_to(tmp_path): p.read_text() for p in tmp_path.rglob("*.json")}
    checked_in = {p.relative_to(CORPORA): p.read_text() for p in CORPORA.rglob("*.json")}
    assert built.keys() == checked_in.keys()
    assert [k for k in built if built[k] != checked_in[k]] == []


def test_corpus_holds_the_spec_worked_examples():
    rec = records.read(CORPORA / "tpartadd" / "edge" / "spec-overlap-001.json")
    assert rec.inputs["src0"][0, :3].tolist() == [1, 2, 7] and rec.inputs["src1"][0, :2].tolist() == [3, 4]
    (res,) = replay([rec.path])
    assert res.verdict == "same" and res.signatures == ()


def test_replay_reports_a_changed_expectation(tmp_path, cli):
    src = CORPORA / "tpartargmax" / "edge" / "f32-ties-specials-tpartargmax.json"
    data = json.loads(src.read_text())
    assert len(data["signatures"]) > 1
    data["expect"]["a5"]["digest"] = "0" * 16
    data["signatures"] = data["signatures"][:1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    res = cli("replay", bad)
    assert res.code == 1 and "a5: outputs or element classes changed" in res.out and "now also shows" in res.out
    assert f"reproduce: ptofuzz replay {bad}" in res.out
    assert cli("replay", src).code == 0


def test_random_campaign_replays_the_corpus_first():
    plan = campaign.make_plan("tpartmax", seed=1)
    store, stats = campaign.run_random(plan, runs=10, corpus=CORPORA / "tpartmax")
    n = len(list((CORPORA / "tpartmax").rglob("*.json")))
    assert stats.cases == 10 + n
    assert any(f.first.startswith("corpus ") for f in store.findings.values())


def test_bad_replay_paths(cli, tmp_path):
    assert cli("replay", tmp_path / "nope").code == 2
    (tmp_path / "x.json").write_text("{}")
    res = cli("replay", tmp_path)
    assert res.code == 2 and "holds no case records" in res.err


def test_the_checked_in_readers_fuzz_corpus_runs_clean():
    """fuzz/fuzz_readers.py's inputs (corpora/readers-atheris/, from its 5-minute run): through the target each
    is read or refused with a UsageError, nothing else raises; both readers accept some and refuse some."""
    import collections
    import importlib.util

    spec = importlib.util.spec_from_file_location("fuzz_readers", ROOT / "fuzz" / "fuzz_readers.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    inputs = [f.read_bytes() for f in sorted((CORPORA / "readers-atheris").iterdir())]
    run = mod.target()
    for data in inputs:
        run(data)
    read = mod.reader()
    seen = collections.Counter((data[0] % 2 if data else None, read(data)) for data in inputs)
    assert seen[0, "manifest"] and seen[0, "refused"] and seen[1, "record"] and seen[1, "refused"], seen


# ---- the fuzzer-bytes Source ------------------------------------------------------------------------------------

def test_fuzzed_source_is_deterministic_and_in_range():
    data = bytes(range(256)) * 4

    def draws(src):
        return (src.integers(3, 9, 50).tolist(), src.random(5).tolist(), src.bits(16, 7).tolist(),
                src.choice(["a", "b", "c"]), int(src.integers(-5, 5)))

    one, two = draws(FuzzedSource(BytesProvider(data), data)), draws(FuzzedSource(BytesProvider(data), data))
    assert one == two
    ints, floats, _, _, single = one
    assert all(3 <= v <= 9 for v in ints) and all(0 <= f < 1 for f in floats) and -5 <= single <= 5


def test_short_inputs_still_give_varied_values():
    src = FuzzedSource(BytesProvider(b"\x01\x02"), b"\x01\x02")
    bits = src.bits(32, 1000)
    assert len(np.unique(bits)) > 900  # the rest of the stream comes from the input's hash, not zeros
    again = FuzzedSource(BytesProvider(b"\x01\x02"), b"\x01\x02").bits(32, 1000)
    assert np.array_equal(bits, again)


@pytest.mark.slow
@pytest.mark.skipif(sys.version_info < (3, 11), reason="atheris is a dependency on Python >= 3.11 only")
def test_atheris_engine_runs_saves_and_keeps_its_corpus(cli, tmp_path):
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    res = cli("fuzz", "tpartmax", "--engine", "atheris", "--runs", "400", "--seed", "3", "--corpus", corpus,
              "--out", out, "--json")
    assert res.code == 0, res
    data = json.loads(res.out)
    # --runs counts fuzzer inputs; each decodes a batch of 1 to 1,024 cases of one geometry
    assert data["engine"] == "atheris" and data["execs"] == 400 and 400 <= data["cases"] <= 400 * 1024
    assert data["cases"] > 4 * data["execs"]  # batches, not one case per input
    assert data["signatures"] and all(s["known"] for s in data["signatures"])
    assert all((Path(s["path"]) / "record.json").is_file() for s in data["signatures"])
    kept = set(corpus.iterdir())
    assert kept  # libFuzzer added inputs to the corpus folder
    again = cli("fuzz", "tpartmax", "--engine", "atheris", "--runs", "50", "--corpus", corpus, "--json")
    assert again.code == 0 and kept <= set(corpus.iterdir())


def test_atheris_jobs_need_a_time(cli):
    res = cli("fuzz", "tpartadd", "--engine", "atheris", "--runs", "5", "--jobs", "2")
    assert res.code == 2 and "--jobs 2" in res.err and "--time" in res.err


@pytest.mark.slow
def test_atheris_jobs_fork_libfuzzer_and_merge_the_jobs(cli, tmp_path):
    """--jobs 2: libFuzzer's -fork=2 runs the engine's executable script twice over; their summaries merge."""
    out = tmp_path / "out"
    res = cli("fuzz", "tpartmax", "--engine", "atheris", "--time", "4", "--jobs", "2", "--seed", "2", "--out", out,
              "--json")
    assert res.code == 0, res
    data = json.loads(res.out)
    assert data["jobs"] == 2 and data["execs"] > 0 and data["cases"] > data["execs"]
    assert data["signatures"] and all(s["known"] for s in data["signatures"])
    for s in data["signatures"]:  # each saved record carries the merged hits once
        rec = json.loads((Path(s["path"]) / "record.json").read_text())
        assert rec["finding"]["hits"] == s["hits"] > 0
    assert json.loads((out / "campaign.json").read_text())["cases"] == data["cases"]


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_terminated_atheris_campaign_keeps_its_findings_and_leaves_nothing_running(tmp_path, jobs):
    """SIGTERM during --engine atheris (one process, or libFuzzer's -fork jobs): campaign.json is written from
    what the fuzzing processes found, every one of them is gone, and no temporary folder is left (libFuzzer's
    own included)."""
    pytest.importorskip("atheris")
    import os
    import signal
    import subprocess
    import sys
    import time

    tmp, out = tmp_path / "tmp", tmp_path / "o"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "ptofuzz", "fuzz", "tpartmax", "--engine", "atheris", "--time",
                             "120", "--jobs", jobs, "--out", str(out)], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp)})
    deadline = time.monotonic() + 60
    while not any(out.glob("*/record.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2.0)  # past the first summary flush
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err.strip().endswith("ptofuzz: error: terminated"), err
    summary = json.loads((out / "campaign.json").read_text())
    assert summary["cases"] > 0 and summary["signatures"]
    assert not list(tmp.iterdir())
    mine = [p for p in Path("/proc").glob("[0-9]*") if str(tmp).encode() in _environ(p)]
    assert mine == []


def _environ(proc: Path) -> bytes:
    try:
        return (proc / "environ").read_bytes()
    except OSError:
        return b""
