"""Kill tests, the way storage engines test crash safety: a ``gen --force`` over an earlier run is killed at
moments spread over its run (SIGKILL: no clean-up of its own; SIGTERM and SIGINT: its own roll-back), then any
later ``gen`` into the same --out recovers from the killed run's journal. Afterwards --out holds exactly the old
content or exactly the complete new one, nothing of the user's is gone, and no hidden staging entry, journal or
process is left. The short version runs in the default suite; ``slow`` adds trials."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ptofuzz.io import casefolder

N = 1500  # cases of each run


def _gen(out: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "ptofuzz", "gen", "tpartadd", "--platform", "a5", "--random",
                             str(N), "--out", str(out), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _content(out: Path) -> dict[str, str]:
    """Every visible entry's name and a digest of what it holds (a user file, or a case folder's files)."""
    found = {}
    for entry in sorted(out.iterdir()):
        if entry.name.startswith("."):
            continue
        h = hashlib.sha256()
        for f in sorted(entry.rglob("*")) if entry.is_dir() else [entry]:
            if f.is_file():
                h.update(f.name.encode() + b"\0" + f.read_bytes())
        found[entry.name] = h.hexdigest()
    return found


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, dict[str, str], dict[str, str]]:
    """The old content (an earlier run plus a user's note) and the content after the killed run, had it
    completed (its folders beside or over the old ones)."""
    base = tmp_path_factory.mktemp("kill")
    old, new = base / "old", base / "new"
    assert _gen(old).wait() == 0
    (old / "notes.txt").write_text("mine")
    want_old = _content(old)
    assert _gen(new, "--seed", "1", "--special-rate", "0.3").wait() == 0
    want_new = {**want_old, **_content(new)}  # the new run's folders added to (or over) the old ones
    return old, want_old, want_new


def _under_way(out: Path, before: int) -> None:
    """Wait until the run has moved some folders in (its journal exists and --out has grown)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        names = os.listdir(out)
        if any(n.startswith(".ptofuzz-run-") for n in names) and len(names) > before + 50:
            return
        time.sleep(0.005)
    raise AssertionError("the run never got under way")


def _trial(tmp_path: Path, runs, sig: signal.Signals, delay: float | None) -> str:
    """One kill: after ``delay`` seconds, or (None) as soon as the run has moved folders in."""
    import shutil

    src, want_old, want_new = runs
    out = tmp_path / f"o-{sig.name}-{delay}"
    shutil.copytree(src, out)
    before = len(os.listdir(out))
    proc = _gen(out, "--seed", "1", "--special-rate", "0.3", "--force")
    if delay is None:
        _under_way(out, before)
    else:
        time.sleep(delay)
    os.killpg(proc.pid, sig)
    proc.wait(timeout=120)
    # any later gen into the folder finds the killed run and recovers from its journal
    assert subprocess.run([sys.executable, "-m", "ptofuzz", "gen", "tpartmul", "--platform", "a5", "--random", "1",
                           "--out", str(out)], capture_output=True).returncode == 0
    got = _content(out)
    got.pop(next(n for n in got if n.startswith("TPARTMULTest.")))
    hidden = [p.name for p in out.iterdir() if p.name.startswith(".")]
    assert hidden == [], hidden
    assert got["notes.txt"] == "mine" or got["notes.txt"] == want_old["notes.txt"]
    if got == want_old:
        return "old"
    assert got == want_new, f"{sig.name} after {delay} s: neither the old nor the complete new content"
    return "new"


def test_a_killed_gen_force_leaves_the_old_or_the_complete_new_content(tmp_path, runs):
    """The short version: one SIGKILL while the run is under way (folders of it already in place)."""
    assert _trial(tmp_path, runs, signal.SIGKILL, None) == "old"


# per signal: one as soon as folders are in place, the rest at moments 0.6 s apart from 0.4 s (under way or not:
# each trial holds the invariants either way)
TRIALS = {signal.SIGKILL: 6, signal.SIGTERM: 4, signal.SIGINT: 4}


@pytest.mark.slow
@pytest.mark.nightly  # the default run keeps the one kill above and the step-by-step interrupts below
@pytest.mark.parametrize("sig", list(TRIALS))
def test_many_kills_of_gen_force_at_spread_moments(tmp_path, runs, sig):
    results = [_trial(tmp_path, runs, sig, None)] + \
        [_trial(tmp_path, runs, sig, 0.4 + 0.6 * k) for k in range(TRIALS[sig] - 1)]
    assert results[0] == "old"  # killed under way: rolled back (each trial asserted the invariants)


def test_a_live_runs_staging_is_left_alone_whatever_its_pid_and_a_dead_ones_restored(tmp_path):
    """Liveness is the journal's lock, not a pid: a run from another PID namespace (its pid means nothing here)
    keeps its parked folders while it holds the lock; once the lock is free they are put back."""
    (tmp_path / "CASE").mkdir()
    (tmp_path / "CASE" / "new.bin").write_text("the run's new version")
    (tmp_path / ".CASE.old-r0123456789ab").mkdir()
    (tmp_path / ".CASE.old-r0123456789ab" / "golden.bin").write_text("the user's")
    (tmp_path / ".NEW.tmp-r0123456789ab").mkdir()
    (tmp_path / "MADE").mkdir()  # a folder the run created where there was none
    journal = tmp_path / ".ptofuzz-run-r0123456789ab.journal"
    journal.write_text("replace CASE\ncreate MADE\n")
    fd = os.open(journal, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        casefolder.sweep_stale(tmp_path)
        assert (tmp_path / ".CASE.old-r0123456789ab").is_dir() and (tmp_path / "MADE").is_dir()
    finally:
        os.close(fd)
    casefolder.sweep_stale(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["CASE"]
    assert [p.name for p in (tmp_path / "CASE").iterdir()] == ["golden.bin"]


def test_a_dead_run_that_was_done_is_completed_not_rolled_back(tmp_path):
    (tmp_path / "CASE").mkdir()
    (tmp_path / "CASE" / "golden.bin").write_text("new")
    (tmp_path / ".CASE.old-r0123456789ab").mkdir()
    (tmp_path / ".ptofuzz-run-r0123456789ab.journal").write_text("replace CASE\ndone\n")
    casefolder.sweep_stale(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["CASE"]
    assert (tmp_path / "CASE" / "golden.bin").read_text() == "new"


def test_an_older_ptofuzzs_parked_folder_is_put_back_not_deleted(tmp_path):
    """A ``.NAME.old-PID`` of a dead pid (no journal: an older ptofuzz's) holds what the user had: restored."""
    dead = 2 ** 22 + 12345  # above any pid this system hands out
    (tmp_path / f".CASE.old-{dead}").mkdir()
    (tmp_path / f".CASE.old-{dead}" / "golden.bin").write_text("the user's")
    casefolder.sweep_stale(tmp_path)
    assert (tmp_path / "CASE" / "golden.bin").read_text() == "the user's"


def test_the_next_campaign_sweeps_a_hit_count_a_killed_one_was_writing_into_a_record(tmp_path):
    """A campaign killed while it rewrote a record's ``record.json`` (its hit count) leaves the staged copy
    inside the record folder; the next campaign into the same --out removes it, and a live writer's copy stays."""
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "ptofuzz", "fuzz", "tpartmax", "--runs", "3000", "--seed", "1", "--out", str(out)]
    subprocess.run(argv, check=True, capture_output=True)
    record = min(p for p in out.iterdir() if p.is_dir())
    dead, live = 2 ** 22 + 12345, os.getpid()  # above any pid this system hands out; this test's own
    (record / f".record.json.tmp-{dead}").write_text("{half")
    (record / f".record.json.tmp-{live}").write_text("{half")
    subprocess.run([*argv[:6], "1", *argv[7:]], check=True, capture_output=True)  # one case: this record untouched
    assert sorted(p.name for p in record.iterdir() if p.name.startswith(".")) == [f".record.json.tmp-{live}"]
    json.loads((record / "record.json").read_text())  # the record itself is whole


class _Interrupt(KeyboardInterrupt):
    pass


def _force_run(out: Path) -> None:  # seed 3, 6 cases: the first 4 replace those of _old_run, the last 2 are new
    from ptofuzz.engine import generate

    generate.generate("tpartadd", "a5", out, seed=3, random=6, special_rate=0.5, force=True)


def _old_run(out: Path) -> dict[str, str]:
    from ptofuzz.engine import generate

    generate.generate("tpartadd", "a5", out, seed=3, random=4)
    (out / "notes.txt").write_text("mine")
    return _content(out)


def _interrupted_gen(out: Path, step: int, after: bool, monkeypatch, also: int | None = None) -> int:
    """Run :func:`_force_run` over :func:`_old_run` with its ``step``-th file-system call (and its ``also``-th,
    a second Ctrl-C) raising an interrupt, before or ``after`` doing its work; return how many calls the run
    made (fewer than ``step``: it completed)."""
    _old_run(out)
    calls = [0]
    real = {name: getattr(os, name) for name in ("rename", "mkdir", "write", "unlink", "rmdir")}

    def counted(name):
        def call(*args, **kwargs):
            calls[0] += 1
            hit = calls[0] in (step, also)
            if hit and not after:
                raise _Interrupt
            result = real[name](*args, **kwargs)
            if hit:
                raise _Interrupt
            return result
        return call

    with monkeypatch.context() as m:
        for name in real:
            m.setattr(os, name, counted(name))
        with contextlib.suppress(_Interrupt):
            _force_run(out)
    return calls[0]


@pytest.mark.parametrize("after", [False, True], ids=["before", "after"])
def test_an_interrupt_at_any_file_system_step_of_gen_force_rolls_it_back_or_completes(tmp_path, monkeypatch,
                                                                                      after):
    """Every rename, mkdir, write, unlink and rmdir of a run, interrupted before it acts and just after (say the
    moment a commit has moved a folder in but not yet counted it): the run itself puts everything back, or, once
    its journal says done, completes; either way nothing hidden is left, and it never goes back once done."""
    want_old = _old_run(tmp_path / "old")
    _force_run(tmp_path / "old")
    want_new = _content(tmp_path / "old")
    assert want_new != want_old
    states = []
    step = 1
    while _interrupted_gen(out := tmp_path / f"s{step}", step, after, monkeypatch) >= step:
        hidden = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
        assert hidden == [], (step, after, hidden)
        got = _content(out)
        assert got in (want_old, want_new), f"step {step} ({'after' if after else 'before'} its work)"
        states.append("old" if got == want_old else "new")
        step += 1
    assert step > 30  # every step of stage, commit and the journal for six folders was visited
    done = states.index("new")
    assert states[:done] == ["old"] * done and states[done:] == ["new"] * (len(states) - done), states


@pytest.mark.parametrize("after", [False, True], ids=["before", "after"])
def test_a_second_interrupt_during_the_roll_back_does_not_stop_it_halfway(tmp_path, monkeypatch, after):
    """A second Ctrl-C (or TERM) at any step of the roll-back of a run interrupted while it moved its third folder
    in: the roll-back finishes all the same (it used to stop, leaving the run's folders and parked ones)."""
    want_old = _old_run(tmp_path / "old")
    first = 25  # a file-system call while the third of six folders goes in
    fired = 0
    for extra in range(1, 40):
        out = tmp_path / f"s{extra}"
        calls = _interrupted_gen(out, first, after, monkeypatch, also=first + extra)
        fired += calls >= first + extra
        hidden = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
        assert hidden == [], (extra, hidden)
        assert _content(out) == want_old, f"second interrupt {extra} calls into the roll-back"
    assert fired >= 10  # the second interrupt landed on that many steps of the roll-back
