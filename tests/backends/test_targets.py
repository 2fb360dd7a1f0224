"""`ptofuzz run --target`: an external target's output.bin checked per case (fake targets; no compiler)."""

from __future__ import annotations

import contextlib
import json
import sys
import textwrap
from pathlib import Path

import pytest

from ptofuzz import api
from ptofuzz.core.errors import UsageError
from ptofuzz.engine import run as targets

FAKE = textwrap.dedent("""
    import pathlib, sys, zlib
    case = pathlib.Path(sys.argv[1]); mode = sys.argv[2]
    golden = (case / "golden.bin").read_bytes()
    bad = zlib.crc32(case.name.encode()) % 10 == 0  # one case in ten, decided by its name
    if bad and mode == "exit":
        print("device error 507015", file=sys.stderr); sys.exit(3)
    if bad and mode == "silent":
        sys.exit(0)
    out = bytearray(golden)
    if bad and mode == "wrong":
        out[0] ^= 0x40
    if bad and mode == "short":
        out = out[:3]
    (case / "output.bin").write_bytes(bytes(out))
""")


def _bad(name: str) -> bool:
    import zlib

    return zlib.crc32(name.encode()) % 10 == 0


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> tuple[Path, Path, list[Path]]:
    root = tmp_path_factory.mktemp("targets")
    script = root / "fake_target.py"
    script.write_text(FAKE)
    api.generate("tpartadd", "spec", root / "cases", seed=3, random=40)
    folders = sorted(p for p in (root / "cases").iterdir() if p.is_dir())
    assert len(folders) == 40 and any(_bad(f.name) for f in folders) and not all(_bad(f.name) for f in folders)
    return root, script, folders


def _clean(folders: list[Path]) -> None:
    for f in folders:
        (f / "output.bin").unlink(missing_ok=True)


def test_wrong_output_fails_exactly_those_cases(cases):
    root, script, folders = cases
    _clean(folders)
    verdicts = targets.run(f"{sys.executable} {script} {{case}} wrong", [root / "cases"], jobs=2)
    failed = {v.path.name for v in verdicts if v.verdict != "pass"}
    assert failed == {f.name for f in folders if _bad(f.name)}
    for v in verdicts:
        if v.verdict != "pass":
            assert v.verdict == "fail" and v.check is not None
            assert v.reproduce.startswith(f"( {sys.executable} {script} ")
            assert f"ptofuzz check {v.path}" in v.reproduce
            mismatched = [f for f in v.check.files if f.file == "output.bin" and not f.ok]
            assert mismatched and mismatched[0].comparison.mismatches == 1


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "problem"), [("exit", "target exited with status 3: device error 507015"),
                                               ("silent", "target wrote no output.bin in the case folder"),
                                               ("short", "target wrote a bad output: ")])
def test_target_failures_are_reported_per_case(cases, mode, problem):
    root, script, folders = cases
    _clean(folders)
    verdicts = targets.run(f"{sys.executable} {script} {{case}} {mode}", [root / "cases"])
    bad = {v.path.name: v for v in verdicts if v.verdict != "pass"}
    assert set(bad) == {f.name for f in folders if _bad(f.name)}
    assert {v.problem[:len(problem)] for v in bad.values()} == {problem}
    assert all(v.verdict == "error" and not v.unreadable for v in bad.values())  # the target's failure: exit 1


@pytest.mark.slow
def test_stale_output_from_an_earlier_run_is_not_taken_as_the_answer(cases):
    root, script, folders = cases
    _clean(folders)
    targets.run(f"{sys.executable} {script} {{case}} wrong", [root / "cases"])  # leaves output.bin everywhere
    verdicts = targets.run(f"{sys.executable} {script} {{case}} silent", [root / "cases"])
    assert {v.path.name for v in verdicts if v.problem.startswith("target wrote no output.bin")} == \
        {f.name for f in folders if _bad(f.name)}


@pytest.mark.slow
def test_dir_placeholder_runs_once_per_folder(cases, tmp_path):
    root, script, folders = cases
    _clean(folders)
    log = tmp_path / "calls"
    loop = (f"for c in {{dir}}/*/; do {sys.executable} {script} $c wrong; done; echo x >> {log}")
    verdicts = targets.run(loop, [root / "cases"])
    assert log.read_text().count("x") == 1
    assert {v.path.name for v in verdicts if v.verdict != "pass"} == {f.name for f in folders if _bad(f.name)}


@pytest.mark.slow
def test_cli_run_exit_codes_and_reproduce_lines(cli, cases):
    root, script, folders = cases
    _clean(folders)
    r = cli("run", root / "cases", "--target", f"{sys.executable} {script} {{case}} wrong")
    assert r.code == 1
    bad = [f for f in folders if _bad(f.name)]
    assert r.out.count("reproduce: ") == len(bad)
    assert f"{len(folders) - len(bad)} passed, {len(bad)} failed" in r.out
    recap = r.out.split(f"not passing ({len(bad)}):\n")[1].splitlines()[:len(bad)]  # again, above the summary
    assert sorted(line.split()[1] for line in recap) == sorted(f.name for f in bad)
    _clean(folders)
    ok = cli("run", root / "cases", "--target", "cp {case}/golden.bin {case}/output.bin")
    assert ok.code == 0, ok
    assert ok.out.count("PASS") == len(folders)


def test_bad_templates_are_one_line_errors(cases):
    root, _, _ = cases
    with pytest.raises(UsageError, match=r"bad placeholder 'folder'"):
        targets.run("run {folder}", [root / "cases"])
    with pytest.raises(UsageError, match="--target is empty"):
        targets.run("  ", [root / "cases"])


CPU_FAKE = textwrap.dedent("""
    import pathlib, sys, zlib
    case = pathlib.Path(sys.argv[1])
    golden = bytearray((case / "golden.bin").read_bytes())
    if zlib.crc32(case.name.encode()) % 10 == 0 and golden:
        golden[0] ^= 0x01  # the lowest bit of the first element: 1 ULP (or 1) off
    (case / "output.bin").write_bytes(bytes(golden))
""")


@pytest.mark.slow
def test_fuzz_with_an_external_target(cli, tmp_path):
    """`fuzz --target CMD`: every campaign case is written as a cpu case folder, the command runs on it and its
    output.bin is one more oracle; a target wrong on one folder in ten is a new signature against the model."""
    script = tmp_path / "target.py"
    script.write_text(CPU_FAKE)
    r = cli("fuzz", "tpartadd", "--oracles", "spec,cpu", "--target", f"{sys.executable} {script} {{case}}",
            "--runs", "60", "--batch", "10", "--dtype", "int32", "--seed", "2", "--out", tmp_path / "o", "--json")
    assert r.code == 1, r
    import json

    summary = json.loads(r.out)
    assert summary["cases"] == 60
    assert f"--target '{sys.executable} {script} {{case}}'" in summary["command"]
    new = [s["signature"].split("/") for s in summary["signatures"] if s["new"]]
    assert new and all("target" in pair and kind == "int-value" for _, _, pair, kind, _, _ in new)
    assert any(pair == "cpu~target" for _, _, pair, _, _, _ in new)
    hits = sum(s["hits"] for s in summary["signatures"] if "/cpu~target/" in s["signature"])
    assert 1 <= hits < 60  # only the folders the fake target gets wrong


ARGMAX_TARGET = "cp {case}/golden_val.bin {case}/output_val.bin; cp {case}/golden_idx.bin {case}/output_idx.bin"


def test_a_target_of_a_two_output_instruction_writes_both_files(cli, tmp_path):
    """TPARTARGMAX's test writes output_val.bin and output_idx.bin: both are read, in a campaign (it raised
    KeyError 'dst_idx', exit 3) and in ``run``; one missing is the target's failure, named."""
    r = cli("fuzz", "tpartargmax", "--oracles", "cpu,target", "--target", ARGMAX_TARGET, "--runs", "40")
    assert r.code == 0 and "0 signature(s)" in r.out, r
    wrong_index = ARGMAX_TARGET + "; printf '\\177' | dd of={case}/output_idx.bin bs=1 count=1 conv=notrunc status=none"
    r = cli("fuzz", "tpartargmax", "--oracles", "cpu,target", "--target", wrong_index, "--runs", "40")
    assert r.code == 1 and "/cpu~target/" in r.out and "crash" not in r.out, r  # the first index differs
    r = cli("fuzz", "tpartargmax", "--oracles", "cpu,target", "--target", ARGMAX_TARGET.partition(";")[0],
            "--runs", "10")
    assert r.code == 1 and "target/crash/no-output" in r.out, r
    api.generate("tpartargmax", "a5", tmp_path / "am", seed=1, random=3)
    verdicts = targets.run(ARGMAX_TARGET, [tmp_path / "am"])
    assert [v.verdict for v in verdicts] == ["pass"] * 3, verdicts
    verdicts = targets.run(ARGMAX_TARGET.partition(";")[0], [tmp_path / "am"])
    assert {v.problem for v in verdicts} == {"target wrote no output_idx.bin in the case folder"}


def test_a_crashed_target_is_its_own_finding_and_never_compared_as_a_value(cli):
    """``--target 'exit 1'`` crashes on every case; spec faults on many of them. The crash is the finding; a
    fault set against the crashed target's (absent) value is no ``spec~target/fault-vs-value`` (it was saved as
    a known one beside the crash)."""
    r = cli("fuzz", "tpartadd", "--oracles", "spec,target", "--target", "exit 1", "--runs", "60", "--json")
    assert r.code == 1, r
    sigs = {s["signature"]: s["hits"] for s in json.loads(r.out)["signatures"]}
    assert sigs == {"TPARTADD/int/target/crash/exit/-": 60}, sigs


def test_fuzz_target_needs_the_command(cli):
    r = cli("fuzz", "tpartadd", "--oracles", "spec,target", "--runs", "5")
    assert r.code == 2 and "--oracles target needs --target CMD" in r.err


@pytest.mark.slow
def test_a_timed_out_target_is_killed_with_its_children(cases, tmp_path):
    root, _, folders = cases
    marker = tmp_path / "survivor"
    # the shell starts a child that would write the marker after 3 s; the timeout must take it down too
    cmd = f"(sleep 3; touch {marker}) & wait"
    verdicts = targets.run(cmd, [folders[0]], timeout=0.5)
    assert verdicts[0].problem == "target timed out after 0.5 s"
    import time

    time.sleep(3.5)
    assert not marker.exists()


def test_target_output_that_is_not_utf8_is_no_crash(cases):
    root, _, folders = cases
    verdicts = targets.run("printf '\\377\\376'; exit 4", [folders[0]])
    assert verdicts[0].problem.startswith("target exited with status 4: ")


# ---- process hygiene: output bounded, the command over when it exits, nothing left running -------------------

def _one_case(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    api.generate("tpartmin", "a5", folder, explicit={"dtype": "float32", "dst": (2, 2)})
    return folder


def _ptofuzz(*args: str, cwd: Path, **kw):
    import subprocess

    return subprocess.Popen([sys.executable, "-m", "ptofuzz", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").is_file() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


@pytest.mark.slow
def test_a_target_that_prints_without_end_costs_no_memory(tmp_path):
    """1.5 GB on stdout under a 1 GiB address-space limit: only the output's tail is kept."""
    import resource

    folder = _one_case(tmp_path)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    proc = _ptofuzz("run", str(folder), "--target", "head -c 1500M /dev/zero; cp {case}/golden.bin {case}/output.bin",
                    cwd=tmp_path, preexec_fn=limit)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert "1 passed, 0 failed" in out


def test_a_target_is_done_when_it_exits_and_what_it_left_running_is_killed(tmp_path):
    """A background child still holding the target's output open made a finished target look hung until the
    timeout; now the target is over when its process exits, and the child goes with it."""
    folder = _one_case(tmp_path)
    pidfile = tmp_path / "child.pid"
    proc = _ptofuzz("run", str(folder), "--timeout", "30", "--target",
                    f"sleep 300 & echo $! > {pidfile}; cp {{case}}/golden.bin {{case}}/output.bin", cwd=tmp_path)
    out, err = proc.communicate(timeout=25)
    assert proc.returncode == 0 and "PASS" in out, out + err
    assert not _alive(int(pidfile.read_text()))


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_an_interrupt_or_a_term_stops_the_target_at_once(tmp_path, sig, code):
    import os
    import signal
    import time

    folder = _one_case(tmp_path)
    pidfile = tmp_path / "target.pid"
    proc = _ptofuzz("run", str(folder), "--timeout", "600", "--target", f"echo $$ > {pidfile}; exec sleep 1000",
                    cwd=tmp_path)
    deadline = time.monotonic() + 30
    while not (pidfile.is_file() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    target = int(pidfile.read_text())
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=20)  # at once, not at --timeout
    assert proc.returncode == code, out + err
    assert err.strip() == f"ptofuzz: error: {'interrupted' if code == 130 else 'terminated'}"
    assert not _alive(target)
    with pytest.raises(ProcessLookupError):
        os.killpg(target, 0)  # its whole process group is gone


def _pid_when_written(path: Path) -> int:
    import time

    deadline = time.monotonic() + 20
    while not (path.is_file() and path.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return int(path.read_text())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="orphans are handed to a reaper on Linux only")
def test_what_a_target_detaches_into_sessions_of_its_own_is_killed_when_it_ends(tmp_path):
    """``setsid CMD &`` leaves the target's process group, so killing the group missed it: it outlived ptofuzz.
    Now the target's orphans come back to ptofuzz and are killed by the mark in their environment: one detached
    child and a detached shell's own child (handed over once the shell is killed)."""
    folder = _one_case(tmp_path)
    one, two = tmp_path / "one.pid", tmp_path / "two.pid"
    script = (f"setsid sleep 987 & echo $! > {one}; "
              f"setsid sh -c 'sleep 986 & echo $! > {two}; wait' & "
              f"while [ ! -s {two} ]; do sleep 0.01; done; cp {{case}}/golden.bin {{case}}/output.bin")
    proc = _ptofuzz("run", str(folder), "--timeout", "30", "--target", script, cwd=tmp_path)
    out, err = proc.communicate(timeout=25)
    assert proc.returncode == 0 and "PASS" in out, out + err
    assert not _alive(_pid_when_written(one)) and not _alive(_pid_when_written(two))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="orphans are handed to a reaper on Linux only")
def test_only_the_marked_command_s_orphans_are_killed(tmp_path):
    """A child of ours that the command did not start (a worker, a simulator, another thread's command) is left
    alone, and so is a detached process of another command (another mark)."""
    import os
    import subprocess

    from ptofuzz.core import processes

    assert processes.adopt_orphans()
    mine = subprocess.Popen(["sleep", "60"])
    other = subprocess.Popen(["sleep", "60"], env={**os.environ, processes.MARK: "other"})
    marked = subprocess.Popen(["sleep", "60"], env={**os.environ, processes.MARK: "this"})
    import time

    deadline = time.monotonic() + 10  # until each has exec'd (before, /proc shows this process's environment)
    while len(processes.carrying(processes.MARK, "this") + processes.carrying(processes.MARK, "other")) < 2 \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        assert processes.kill_marked("this") == 1
        assert marked.poll() is not None or not _alive(marked.pid)
        assert mine.poll() is None and other.poll() is None
        assert processes.kill_marked("this") == 0
    finally:
        for p in (mine, other, marked):
            p.kill()
            with contextlib.suppress(ChildProcessError):
                p.wait()


def test_a_failing_target_s_findings_are_the_same_bytes_each_run(cli, tmp_path):
    """The target's message named its temporary folder (a random name), so the same seed saved other bytes."""
    target = "cp {case}/golden.bin {case}/output.bin"  # TPARTARGMAX has no golden.bin: cp fails, naming the path
    for run in ("a", "b"):
        assert cli("fuzz", "tpartargmax", "--oracles", "cpu,target", "--target", target, "--runs", "20",
                   "--out", tmp_path / run).code == 1
    records = {run: {p.relative_to(tmp_path / run): p.read_bytes() for p in (tmp_path / run).rglob("record.json")}
               for run in ("a", "b")}
    assert records["a"] and records["a"] == records["b"]
    assert all(b"{dir}/TPARTARGMAX" in data for data in records["a"].values())


TCI_FROM_FILES = textwrap.dedent("""
    import pathlib, sys
    import numpy as np
    case = pathlib.Path(sys.argv[1])
    start = int(np.fromfile(case / "begin_index.bin", dtype="<i2")[0])
    step = -1 if int(np.fromfile(case / "reverse.bin", dtype="<i2")[0]) else 1
    cols = (case / "golden.bin").stat().st_size // 2
    seq = (start + step * np.arange(cols)) & 0xFFFF
    seq.astype("<u2").tofile(case / "output.bin")
""")


def test_a_target_reads_each_batch_item_s_own_start(cli, tmp_path):
    """TCI batches vary the start per item: each item's a5 case folder carries its own start in begin_index.bin
    (and its golden), so a target that computes the sequence from that file agrees with the model on every case;
    one that ignores it and counts from 0 does not."""
    script = tmp_path / "tci.py"
    script.write_text(TCI_FROM_FILES)
    args = ("fuzz", "tci", "--oracles", "a5,target", "--target-platform", "a5", "--dtype", "int16", "--runs", "12",
            "--batch", "6", "--seed", "4", "--json")
    r = cli(*args, "--target", f"{sys.executable} {script} {{case}}")
    assert r.code == 0 and json.loads(r.out)["signatures"] == [] and json.loads(r.out)["cases"] == 12, r
    zero = TCI_FROM_FILES.replace('start = int(np.fromfile(case / "begin_index.bin", dtype="<i2")[0])', "start = 0")
    script.write_text(zero)
    r = cli(*args, "--target", f"{sys.executable} {script} {{case}}")
    assert r.code == 1 and "a5~target/int-value" in r.out, r
