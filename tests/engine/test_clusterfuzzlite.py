"""The ClusterFuzzLite build script, run locally: every fuzz target and its seed corpus zip land in $OUT."""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_build_sh_produces_every_target_and_its_seed_corpus(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "ptofuzz").symlink_to(ROOT)  # the builder image has the checkout at $SRC/ptofuzz
    env = {**os.environ, "SRC": str(src), "OUT": str(out)}
    res = subprocess.run(["bash", str(ROOT / ".clusterfuzzlite" / "build.sh")], env=env, capture_output=True,
                         text=True, timeout=600, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    targets = sorted(p.stem for p in (ROOT / "fuzz").glob("fuzz_*.py"))
    assert targets == ["fuzz_bundle", "fuzz_readers", "fuzz_sort", "fuzz_tpart"]
    for name in targets:
        exe = out / name
        assert exe.is_file() and os.access(exe, os.X_OK), name
        corpus = ROOT / "corpora" / f"{name.removeprefix('fuzz_')}-atheris"
        with zipfile.ZipFile(out / f"{name}_seed_corpus.zip") as z:
            assert sorted(z.namelist()) == sorted(p.name for p in corpus.iterdir()) and z.namelist()
            first = min(corpus.iterdir())
            assert z.read(first.name) == first.read_bytes()
    # a built target runs as libFuzzer runs it: its seed inputs, then a few mutations, no crash
    seeds = tmp_path / "seeds"
    with zipfile.ZipFile(out / "fuzz_tpart_seed_corpus.zip") as z:
        z.extractall(seeds)
    run = subprocess.run([str(out / "fuzz_tpart"), str(seeds), "-runs=200"], capture_output=True, text=True,
                         timeout=300, check=False, env={**os.environ, "PTOFUZZ_ALLOW": ""})
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Done 200 runs" in run.stderr or "INITED" in run.stderr


def test_the_workflows_cover_the_four_modes_with_sarif():
    flows = {p.name: p.read_text() for p in (ROOT / ".github" / "workflows").glob("cflite_*.yml")}
    modes = {name: next(line.split(":", 1)[1].strip() for line in text.splitlines()
                        if line.strip().startswith("mode:")) for name, text in flows.items()}
    assert sorted(modes.values()) == ["batch", "code-change", "coverage", "prune"]
    pr = flows["cflite_pr.yml"]
    assert "fuzz-seconds: 600" in pr and "output-sarif: true" in pr and "security-events: write" in pr
    assert "output-sarif: true" in flows["cflite_batch.yml"] and "language: python" in flows["cflite_batch.yml"]
    assert (ROOT / ".clusterfuzzlite" / "project.yaml").read_text().strip() == "language: python"
    assert "base-builder-python" in (ROOT / ".clusterfuzzlite" / "Dockerfile").read_text()
