"""gen writes as it goes (folders land batch by batch, memory bounded by bytes of tiles), undoes a failed run
(including what --force replaced), and reports long runs by a summary, a heartbeat or a progress bar."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ptofuzz.core.errors import UsageError
from ptofuzz.engine import generate as generation
from ptofuzz.io import casefolder


def _tree(folder):
    """Every file under ``folder`` (hidden ones too) with its digest."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_folders_land_as_they_are_written(tmp_path):
    seen = []

    def on_case(info, done, total):
        # the folder is in place (not staged) when its callback comes, and the ones before it too
        assert (tmp_path / info.name / "golden.bin").is_file()
        seen.append((info.name, done, total))

    res = generation.generate("tpartadd", "a5", tmp_path, random=150, seed=3, on_case=on_case, keep=False)
    assert [d for _, d, _ in seen] == list(range(1, 151)) and {t for *_, t in seen} == {150}
    assert res.count == 150 and res.cases == ()
    assert sorted(n for n, _, _ in seen) == sorted(p.name for p in tmp_path.iterdir())
    # the same bytes as the same call keeping its cases
    again = generation.generate("tpartadd", "a5", tmp_path / "again", random=150, seed=3)
    assert [c.name for c in again.cases] == [n for n, _, _ in seen]
    for name, _, _ in seen[::37]:
        assert _tree(tmp_path / name) == _tree(tmp_path / "again" / name)


@pytest.mark.parametrize("force", [False, True])
def test_a_failure_after_folders_landed_leaves_the_out_folder_as_it_was(tmp_path, monkeypatch, force):
    old = generation.generate("tpartadd", "a5", tmp_path, random=120, seed=1)  # what a forced run replaces
    (tmp_path / "unrelated.txt").write_text("keep me")
    before = _tree(tmp_path)
    real = casefolder.stage
    calls = {"n": 0}

    def flaky(out_dir, content, run=None):
        calls["n"] += 1
        if calls["n"] == 100:  # past the first batch of 64: some folders are in place already
            raise UsageError("cannot write: No space left on device; free some space")
        return real(out_dir, content, run)

    monkeypatch.setattr(casefolder, "stage", flaky)
    seed = 1 if force else 2  # a forced run over the same names; an unforced one beside them
    with pytest.raises(UsageError, match="No space left"):
        generation.generate("tpartadd", "a5", tmp_path, random=120, seed=seed, force=force)
    assert calls["n"] == 100
    assert _tree(tmp_path) == before  # no new folder, nothing hidden left, replaced folders back
    assert len(old.cases) == 120


def test_an_interrupt_midway_undoes_the_run(tmp_path, monkeypatch):
    def interrupt(info, done, total):
        if done == 70:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generation.generate("tsort32", "a5", tmp_path, random=90, on_case=interrupt)
    assert list(tmp_path.iterdir()) == []


def test_a_clash_with_an_existing_random_folder_is_refused_before_writing(tmp_path):
    generation.generate("tpartadd", "a5", tmp_path, random=5, seed=4)
    (tmp_path / sorted(p.name for p in tmp_path.iterdir())[0]).rename(tmp_path / "keep")
    before = _tree(tmp_path)
    with pytest.raises(UsageError, match="already exists; pass --force"):
        generation.generate("tpartadd", "a5", tmp_path, random=5, seed=4)
    assert _tree(tmp_path) == before


def test_batches_are_cut_by_bytes_of_tiles(monkeypatch):
    inst = generation.registry.get("tpartadd")
    (one,) = generation.plan_cases("tpartadd", "cpu", explicit={"dtype": "float32", "shape": (256, 512)})
    assert [t.shape for _, t in one[1].tiles] == [(256, 512)] * 3
    big = [one] * 5
    small = list(generation.plan_cases("tpartadd", "a5", random=600, explicit={"dtype": "int8", "shape": (8, 16)}))
    # three float32 256x512 tiles are 1.5 MiB: two cases fit the 4 MiB budget, a third does not
    assert generation.REALIZE_BYTES == 4 << 20 and generation.REALIZE_BATCH == 256
    assert [len(c) for c in generation._chunks(inst, iter(big))] == [2, 2, 1]
    assert [len(c) for c in generation._chunks(inst, iter(small))] == [256, 256, 88]  # the case count decides
    monkeypatch.setattr(generation, "REALIZE_BYTES", 1)
    assert [len(c) for c in generation._chunks(inst, iter(big))] == [1] * 5  # one case a batch at least


def test_beyond_100_folders_gen_prints_its_summary_alone(cli, tmp_path):
    res = cli("gen", "tpartadd", "--platform", "a5", "--random", "101", "-o", tmp_path / "a")
    assert res.code == 0 and res.out.splitlines() == [f"101 case folder(s) for TPARTADD on a5 in {tmp_path / 'a'} "
                                                      "(seed 0)"]
    listed = cli("gen", "tpartadd", "--platform", "a5", "--random", "101", "-o", tmp_path / "b", "--verbose")
    lines = listed.out.splitlines()
    assert len(lines) == 102 and all(line.startswith("wrote TPARTADDTest.") for line in lines[:-1])
    assert cli("gen", "tpartadd", "--platform", "a5", "--random", "100", "-o", tmp_path / "c").out.count("wrote") == 100


def test_off_a_terminal_a_long_gen_writes_heartbeat_lines(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PTOFUZZ_HEARTBEAT", "0.000001")
    res = cli("gen", "tpartadd", "--platform", "a5", "--random", "40", "-o", tmp_path)
    beats = [line for line in res.err.splitlines() if line.startswith("ptofuzz: gen ")]
    assert res.code == 0 and len(beats) >= 30
    assert beats[-1].startswith("ptofuzz: gen  40 of 40 case folders  ")
    assert all(" of 40 case folders  " in b and "/s" in b for b in beats)


def test_gen_random_raises_the_malloc_thresholds_and_a_canonical_gen_does_not(cli, tmp_path, monkeypatch):
    from ptofuzz.engine import allocator

    calls = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append(1) or True)
    assert cli("gen", "tpartadd", "--platform", "a5", "--out", tmp_path / "canon").code == 0
    assert calls == []
    assert cli("gen", "tpartadd", "--platform", "a5", "--random", "3", "--out", tmp_path / "rand").code == 0
    assert calls == [1]


def test_keep_freed_memory_sets_glibc_thresholds_and_is_a_no_op_elsewhere():
    import platform
    import subprocess
    import sys

    expected = (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
                and sys.maxsize > 2 ** 32)  # a 32-bit glibc refuses a 16 MiB mmap threshold
    child = ("import sys\n"
             "from ptofuzz.engine import allocator\n"
             "print(allocator.keep_freed_memory())\n"
             "sys.platform = 'darwin'\n"
             "print(allocator.keep_freed_memory())\n")
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(expected), "False"]  # mallopt accepted both settings; elsewhere nothing is tried


def _content(tmp_path):
    generation.generate("tsort32", "a5", tmp_path / "ref", random=1, seed=4)
    (folder,) = (tmp_path / "ref").iterdir()
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.name != casefolder.MANIFEST}
    manifest = json.loads((folder / casefolder.MANIFEST).read_text())
    return folder, casefolder.FolderContent(folder.name, files, manifest)


def test_stage_finishes_files_the_system_writes_a_few_bytes_at_a_time(tmp_path, monkeypatch):
    import os

    folder, content = _content(tmp_path)
    real_write = os.write
    monkeypatch.setattr(casefolder.os, "write", lambda fd, data: real_write(fd, bytes(data[:7])))
    (tmp_path / "out").mkdir()
    staged = casefolder.stage(tmp_path / "out", content)
    monkeypatch.undo()
    assert _tree(Path(staged)) == _tree(folder)  # every file whole, the manifest byte for byte


def test_stage_names_the_file_it_cannot_write_and_leaves_nothing(tmp_path, monkeypatch):
    import errno
    import os

    _, content = _content(tmp_path)
    real_write = os.write
    second = next(iter(list(content.files)[1:]))

    def failing(fd, data):
        if bytes(data) == content.files[second]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(casefolder.os, "write", failing)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(UsageError, match=rf"cannot write .*{second}.*No space left on device; free some space"):
        casefolder.stage(out, content)
    monkeypatch.undo()
    assert list(out.iterdir()) == []
