"""A damaged record is counted and named, never passed over: replay, triage, ``fuzz --corpus`` and the pytest
plugin each say which file they could not read and end with exit 2 (bad input). A JSON object that gives a key
twice is damage too (which of the two values a reader takes is not defined), not a changed result."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptofuzz.core import reading

FINDINGS = ("fuzz", "tpartmax", "--runs", "3000", "--seed", "1", "--shape", "8x16")


@pytest.fixture
def run(cli, tmp_path) -> Path:
    """A campaign folder with three saved findings."""
    out = tmp_path / "run"
    assert cli(*FINDINGS, "--out", out).code == 0
    assert len(list(out.glob("*/record.json"))) == 3
    return out


def _damage(folder: Path) -> Path:
    victim = min(folder.glob("*/record.json"))
    victim.write_text("junk\n")
    return victim


def test_replay_names_a_record_it_cannot_read_and_exits_2(cli, run):
    victim = _damage(run)
    res = cli("replay", run)
    assert res.code == 2, res
    assert f"ERROR    {victim}: {str(victim)!r} is no readable case record (it is not JSON" in res.out
    assert res.out.count("SAME ") == 2
    assert res.out.strip().splitlines()[-1] == "2 of 3 record(s) unchanged; 1 could not be read"
    other = next(p for p in run.iterdir() if p.is_dir() and p != victim.parent)
    assert cli("replay", other).code == 0  # the damage is its folder's alone


def test_triage_names_a_record_it_cannot_read_and_exits_2(cli, run):
    victim = _damage(run)
    kept = [json.loads(p.read_text())["finding"]["hits"] for p in run.glob("*/record.json") if p != victim]
    res = cli("triage", run, "--json")
    assert res.code == 2, res
    data = json.loads(res.out)
    assert data["skipped"] == [str(victim)]
    # the rest is still triaged: two records (the same three disagreements of one case each), one bucket
    assert len(kept) == 2 and kept[0] > 0 and [b["hits"] for b in data["buckets"]] == [sum(kept)]


def test_a_damaged_corpus_record_stops_fuzz_before_anything_is_written(cli, run, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(run, corpus)
    victim = _damage(corpus)
    out = tmp_path / "o"
    res = cli("fuzz", "tpartmax", "--runs", "100", "--corpus", corpus, "--out", out)
    assert res.code == 2 and res.err.count("\n") == 1 and str(victim) in res.err, res
    assert not out.exists()


def test_the_pytest_plugin_fails_a_record_it_cannot_read(run, tmp_path):
    victim = _damage(run)
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ptofuzz-replay",
                          str(run), "-o", "ptofuzz_replay="], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 1, res.stdout + res.stderr
    failed = [ln for ln in res.stdout.splitlines() if ln.startswith("FAILED ")]
    assert len(failed) == 1 and failed[0].split(" - ")[0].endswith(f"ptofuzz-replay::run/{victim.parent.name}"), \
        res.stdout
    assert "1 failed, 2 passed" in res.stdout


def test_a_key_given_twice_is_damage_not_a_change(cli, run):
    rec = min(run.glob("*/record.json"))
    text = rec.read_text()
    assert text.count('"op": "TPARTMAX",') == 1
    rec.write_text(text.replace('"op": "TPARTMAX",', '"op": "TPARTMAX", "op": "TPARTMIN",'))
    res = cli("replay", rec.parent)
    assert res.code == 2 and "gives the key 'op' twice in one object" in res.out, res
    assert "CHANGED" not in res.out


@pytest.mark.parametrize(("text", "why"), [
    ('{"a": 1, "a": 1}', "gives the key 'a' twice"),  # even the same value twice
    ('{"a": {"b": 1, "b": 2}}', "gives the key 'b' twice"),
    ('[{"c": 1}, {"c": 2}]', None),  # one key in each of two objects is no duplicate
    ('{"a": 1, "A": 2}', None),
])
def test_strict_json_refuses_exactly_the_keys_given_twice_in_one_object(text, why):
    if why is None:
        assert reading.parse_json(text.encode()) == json.loads(text)
    else:
        with pytest.raises(ValueError, match=why):
            reading.parse_json(text.encode())


@pytest.mark.slow
@pytest.mark.parametrize("how", ["check", "plugin"])
def test_a_huge_stray_file_is_refused_by_its_size_before_it_is_read(tmp_path, how):
    """A 3 GiB golden.bin (sparse: no disk) under a 1 GiB address-space limit: refused by its size, in one line,
    exit 2; hashing it first took its whole size in memory (and died of it under the limit)."""
    import resource

    from ptofuzz.engine.generate import generate

    folder = tmp_path / "small"
    generate("tpartmin", "a5", folder, explicit={"dtype": "float32", "dst": (2, 2)})
    golden = next(folder.glob("*/golden.bin"))
    with golden.open("r+b") as f:
        f.truncate(3 << 30)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    argv = [sys.executable, "-m", "ptofuzz", "check", str(folder)] if how == "check" else \
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ptofuzz-check", str(folder), "-o",
         "ptofuzz_replay="]
    res = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, preexec_fn=limit, timeout=120)
    assert res.returncode == (2 if how == "check" else 1), res.stdout + res.stderr
    assert f"is oversized: {3 << 30} bytes, expected 16" in res.stdout
    assert "MemoryError" not in res.stdout + res.stderr


def test_a_file_of_another_size_than_its_manifest_says_is_not_hashed(tmp_path, monkeypatch):
    """The manifest's size decides first: of a folder whose golden.bin has grown, the two inputs are hashed and
    the golden is not (its size alone says it is not the file ptofuzz wrote)."""
    import hashlib

    from ptofuzz.engine.check import check
    from ptofuzz.engine.generate import generate

    generate("tpartmin", "a5", tmp_path, explicit={"dtype": "float32", "dst": (2, 2)})
    (case,) = tmp_path.iterdir()
    (case / "golden.bin").write_bytes(b"\0" * 20)
    hashed: list[int] = []
    real = hashlib.sha256
    monkeypatch.setattr(hashlib, "sha256", lambda *a: hashed.append(1) or real(*a))
    (v,) = check([tmp_path])
    assert v.verdict == "error" and "golden.bin' is oversized: 20 bytes, expected 16" in v.message
    assert len(hashed) == 2


@pytest.mark.parametrize("command", ["replay", "triage", "minimize", "diff", "fuzz"])
def test_a_record_json_that_links_elsewhere_is_refused_unread(cli, run, tmp_path, command):
    """A record folder's record.json that is a symbolic link to a file outside it is never read: no value of
    that file appears in any output, and the command ends with exit 2."""
    outside = tmp_path / "outside.json"
    outside.write_text('{"format": "ptofuzz-record/1", "op": "TOPSECRET-VALUE"}')
    victim = min(run.glob("*/record.json"))
    victim.unlink()
    victim.symlink_to(outside)
    args = {"replay": [run], "triage": [run], "minimize": [victim.parent], "diff": [victim.parent],
            "fuzz": ["tpartmax", "--runs", "10", "--out", run]}[command]
    res = cli(command, *args)
    assert res.code == 2, res
    assert "TOPSECRET" not in res.out + res.err
    assert "it is a symbolic link; a record folder's record.json is a plain file of its own" in res.out + res.err
