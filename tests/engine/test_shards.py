"""fuzz --shard I/N: N machines with one seed run exactly the cases of one unsharded run; triage merges them."""

from __future__ import annotations

import json

import pytest

from ptofuzz import __version__
from ptofuzz.engine import campaign, triage
from ptofuzz.instructions import registry


def _hits(folder) -> dict[str, int]:
    return {s["signature"]: s["hits"] for s in json.loads((folder / "campaign.json").read_text())["signatures"]}


@pytest.mark.slow
@pytest.mark.parametrize(("op", "runs"), [("tpartmax", 30_000), ("tpartargmin", 20_000), ("tadd", 30_000)])
def test_two_shards_save_the_signatures_and_hits_of_the_unsharded_run(cli, tmp_path, op, runs):
    whole, parts = tmp_path / "whole", [tmp_path / f"shard{i}" for i in range(2)]
    assert cli("fuzz", op, "--runs", runs, "--seed", "3", "--out", whole).code == 0
    for i, part in enumerate(parts):
        assert cli("fuzz", op, "--runs", runs, "--seed", "3", "--shard", f"{i}/2", "--out", part).code == 0
    cases = [json.loads((p / "campaign.json").read_text())["cases"] for p in parts]
    assert sum(cases) == runs and min(cases) > 0  # no overlap, none missing
    merged: dict[str, int] = {}
    for part in parts:
        for key, n in _hits(part).items():
            merged[key] = merged.get(key, 0) + n
    assert merged == _hits(whole) and merged
    # triage over the shard folders: one item per signature, hits summed, the earliest record kept
    items, _ = triage.load(parts)
    assert {i.signature.key: i.hits for i in items} == _hits(whole)
    firsts = {i.signature.key: i.first_seen for i in triage.load([whole])[0]}
    assert {i.signature.key: i.first_seen for i in items} == firsts


def test_a_shard_numbers_its_cases_in_the_whole_run(tmp_path):
    """A finding's `--runs N` command reaches it without the shard: the case number is the whole run's."""
    plan = campaign.make_plan("tpartmax", seed=3, shard=(1, 2))
    store, _ = campaign.run_random(plan, runs=10_000, out=tmp_path)
    inst = registry.get("TPARTMAX")
    for f in store.findings.values():
        _, batch, _, item = f.first.split()
        before = sum(campaign.batch_geometry(inst, plan, k)[1] for k in range(int(batch)))
        assert int(batch) % 2 == 1 and f.case_number == before + int(item) + 1
    summary = json.loads((tmp_path / "campaign.json").read_text())
    assert summary["shard"] == "1/2" and summary["ptofuzz_version"] == __version__ and summary["seed"] == 3
    assert summary["models"] == {"pto-isa": "3186c381", "pto-spec": "0.58.3"}
    assert "--shard 1/2" in summary["command"]


@pytest.mark.parametrize("bad", ["2/2", "1", "a/b", "-1/2"])
def test_a_bad_shard_is_a_one_line_error(cli, bad):
    res = cli("fuzz", "tpartadd", "--runs", "10", "--shard", bad)
    assert res.code == 2 and "--shard" in res.err and len(res.err.strip().splitlines()) == 1, res.err
