"""Kill tests of every long command (``gen --force`` has its own, in test_kill.py): each command is killed with
INT (to its process group, as a terminal's Ctrl-C), TERM or KILL (to its process alone, as ``kill`` or an
out-of-memory killer would) at a random moment of its run, and after the next command the invariants must hold:

- the command ended at once (INT and TERM: its own exit code and a one-line message, no traceback);
- no process it started is left (each trial marks the command's environment; every descendant inherits it);
- nothing of the user's is gone (a ``notes.txt`` beside its output and the inputs it read are unchanged);
- no staging or temporary entry is left (hidden ``.*tmp*``/``.old-``/journal entries, ``.build-*`` folders, the
  atheris engine's scratch folder in TMPDIR);
- what it wrote is whole: case folders all or none, reports absent or complete, records readable by ``replay``.

The moments are drawn from a seeded generator per (command, signal, trial), so a failure names the moment and
reruns the same way. The default run kills each command once; the ``nightly`` test runs each command's ``trials``
per signal (``PTOFUZZ_KILL_TRIALS=N`` asks for N each)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

MARK = "PTOFUZZ_KILL_TRIAL"
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
PROMPT_S = 15.0  # an INT or TERM ends the command within this (it used to wait for compiles or timeouts)


def _ptofuzz(*args: str) -> list[str]:
    return [sys.executable, "-m", "ptofuzz", *args]


def _digest(path: Path) -> dict[str, str]:
    """Every file under ``path`` (hidden ones included) with a digest of its bytes."""
    return {str(f.relative_to(path)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(path.rglob("*")) if f.is_file()}


def _hidden_staging(path: Path) -> list[str]:
    """Staging entries anywhere under ``path``: what a run moves into place, parks or journals while it runs."""
    found = []
    for p in path.rglob(".*"):
        name = p.name
        if (".tmp" in name or ".old-" in name or name.startswith((".ptofuzz-run-", ".build-"))
                or name.endswith(".part")):
            found.append(str(p.relative_to(path)))
    return found


def _marked_processes(mark: str) -> list[str]:
    """Live processes (zombies aside) whose environment holds ``MARK=mark``."""
    from ptofuzz.core import processes

    return processes.carrying(MARK, mark)


# ---- the commands -----------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Command:
    name: str
    argv: Callable[[Path], list[str]]  # run in the trial folder (given)
    span: tuple[float, float]  # kill moments are drawn uniformly from this (seconds after the start)
    check: Callable[[Path, signal.Signals, dict[str, object]], None]  # the next command and its invariants
    reads: str = ""  # the case folders it reads: "small" (40) or "big" (1500), copied into the trial folder
    needs_sim: bool = False
    trials: int = 1  # per signal in the slow test (PTOFUZZ_KILL_TRIALS=N: N for every command; nightly 6)


def _cases(folder: Path, n: int = 40, op: str = "tpartadd") -> None:
    subprocess.run(_ptofuzz("gen", op, "--platform", "a5", "--random", str(n), "--seed", "5", "--out",
                            str(folder / "cases")), check=True, capture_output=True)


def _check_gen(folder: Path, sig: signal.Signals, ref: dict[str, object]) -> None:
    out = folder / "out"
    r = subprocess.run(_ptofuzz("gen", "tpartmul", "--platform", "a5", "--random", "1", "--out", str(out)),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = {k: v for k, v in _digest(out).items() if not k.startswith("TPARTMULTest.")}
    assert got in ({}, ref["gen"]), "neither none nor all of the run's case folders"


def _gen_ref(tmp: Path) -> dict[str, str]:
    subprocess.run(_ptofuzz("gen", "tpartadd", "--platform", "a5", "--random", "3000", "--seed", "1", "--out",
                            str(tmp / "ref")), check=True, capture_output=True)
    return _digest(tmp / "ref")


def _check_campaign(folder: Path, sig: signal.Signals, ref: dict[str, object]) -> None:
    out = folder / "run"
    if not out.exists():
        return
    r = subprocess.run(_ptofuzz("fuzz", "tpartmax", "--runs", "100", "--out", str(out)), capture_output=True,
                       text=True)  # the next campaign into the same --out: it finds what the killed one left
    assert r.returncode in (0, 1), r.stderr
    summary = out / "campaign.json"
    if summary.exists():
        json.loads(summary.read_text())  # whole, whenever it is there
    if any(p.is_dir() for p in out.iterdir()):
        r = subprocess.run(_ptofuzz("replay", str(out)), capture_output=True, text=True)
        assert r.returncode in (0, 1), f"a record the run left is unreadable: {r.stdout[-500:]}{r.stderr}"


def _check_atheris(folder: Path, sig: signal.Signals, ref: dict[str, object]) -> None:
    """The next atheris run sweeps the scratch folder a killed one left in TMPDIR (a SIGKILL leaves it)."""
    r = subprocess.run(_ptofuzz("fuzz", "tpartmax", "--engine", "atheris", "--runs", "20", "--seed", "2"),
                       capture_output=True, text=True, env={**os.environ, "TMPDIR": str(folder / "tmp")})
    assert r.returncode in (0, 1), r.stderr
    _check_campaign(folder, sig, ref)


def _fuzz(*extra: str) -> Callable[[Path], list[str]]:
    return lambda folder: _ptofuzz("fuzz", "tpartmax", "--runs", "100000000", "--time", "4", "--seed", "0",
                                   "--special-rate", "0.2", "--out", str(folder / "run"), *extra)


def _check_reports(folder: Path, sig: signal.Signals, ref: dict[str, object]) -> None:
    assert _digest(folder / "cases") == ref["cases"], "check changed the folders it read"
    for name in ("r.html", "r.xml", "r.svg"):  # whole, whenever there
        path = folder / name
        if path.exists():
            assert _whole(name, path.read_text()), f"{name} is not whole"
    one = min((folder / "cases").iterdir())  # the next check writing the same reports (of one folder: quick)
    r = subprocess.run(_ptofuzz("check", str(one), "--html", str(folder / "r.html"), "--junit", str(folder / "r.xml"),
                                "--svg", str(folder / "r.svg")), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _whole(name: str, text: str) -> bool:
    if name.endswith(".html"):
        return text.rstrip().endswith("</html>")
    return ET.fromstring(text) is not None  # JUnit XML, SVG


def _check_run(folder: Path, sig: signal.Signals, ref: dict[str, object]) -> None:
    got = {k: v for k, v in _digest(folder / "cases").items() if not k.endswith("/output.bin")}
    assert got == ref["cases"], "the inputs or goldens the target read changed"
    for out in (folder / "cases").rglob("output.bin"):
        golden = out.with_name("golden.bin")
        assert out.read_bytes() == golden.read_bytes() or out.stat().st_size < golden.stat().st_size


def _check_sim(folder: Path, sig: signal.Signals, ref: dict[str, object]) -> None:
    from ptofuzz.backends.cpusim import build

    root = folder / "cache" / "cpusim"
    if root.is_dir():
        build.sweep_stale_builds(root)  # what the next build does first (its private folders and the objects')
        for entry in root.iterdir():
            if entry.is_dir() and entry.name != "objects":
                assert (entry / "manifest.json").is_file() and (entry / "harness").is_file(), entry.name
        objects = root / "objects"
        for entry in objects.iterdir() if objects.is_dir() else ():  # every object kept is complete
            assert (entry / "result.json").is_file(), entry.name
            files = json.loads((entry / "result.json").read_text())["files"]
            assert all((entry / name).is_file() for name in files), entry.name


COMMANDS = {c.name: c for c in (
    Command("gen", lambda f: _ptofuzz("gen", "tpartadd", "--platform", "a5", "--random", "3000", "--seed", "1",
                                      "--out", str(f / "out")), (0.3, 1.5), _check_gen),
    Command("fuzz", _fuzz(), (0.3, 4.5), _check_campaign),
    Command("fuzz-jobs2", _fuzz("--jobs", "2"), (0.3, 4.5), _check_campaign),
    Command("fuzz-atheris", lambda f: _ptofuzz("fuzz", "tpartmax", "--engine", "atheris", "--time", "4",
                                               "--seed", "1", "--out", str(f / "run")), (0.5, 5.0),
            _check_atheris),
    Command("check-reports", lambda f: _ptofuzz("check", str(f / "cases"), "--html", str(f / "r.html"),
                                                "--junit", str(f / "r.xml"), "--svg", str(f / "r.svg")),
            (0.3, 3.0), _check_reports, reads="big"),
    Command("run-target", lambda f: _ptofuzz("run", str(f / "cases"), "--jobs", "2", "--target",
                                             "sleep 0.1; cp {case}/golden.bin {case}/output.bin"),
            (0.3, 3.0), _check_run, reads="small"),
    Command("sim-build", lambda f: _ptofuzz("sim", "build", "--cache-dir", str(f / "cache")), (1.0, 20.0),
            _check_sim, needs_sim=True),
)}


@pytest.fixture(scope="module")
def ref(tmp_path_factory) -> dict[str, object]:
    """What uninterrupted runs write, and the inputs the commands read (made once)."""
    tmp = tmp_path_factory.mktemp("ref")
    for n, name in ((40, "small"), (1500, "big")):
        _cases(tmp / name, n)
    return {"gen": _gen_ref(tmp), "tmp": tmp}


def _trial(tmp_path: Path, ref: dict[str, object], cmd: Command, sig: signal.Signals, k: int) -> float:
    """One kill of ``cmd`` with ``sig`` at a moment drawn for trial ``k``; returns that moment."""
    if cmd.needs_sim and not os.environ.get("PTO_ISA_DIR"):
        pytest.skip("sim build needs PTO_ISA_DIR (the pto-isa tree)")
    delay = random.Random(f"{cmd.name}-{sig.name}-{k}").uniform(*cmd.span)
    where = f"{cmd.name} killed by {sig.name} after {delay:.2f} s (trial {k})"
    folder = tmp_path / f"{cmd.name}-{sig.name}-{k}"
    folder.mkdir()
    tmp_dir = folder / "tmp"
    tmp_dir.mkdir()
    if cmd.reads:
        shutil.copytree(ref["tmp"] / cmd.reads / "cases", folder / "cases")  # type: ignore[operator]
    (folder / "notes.txt").write_text("mine")
    local = {**ref, "cases": _digest(folder / "cases")} if (folder / "cases").exists() else dict(ref)
    mark = f"{os.getpid()}-{folder.name}"
    env = {**os.environ, MARK: mark, "TMPDIR": str(tmp_dir)}
    with open(folder / "stdout", "wb") as out, open(folder / "stderr", "wb") as err:
        proc = subprocess.Popen(cmd.argv(folder), cwd=folder, env=env, stdout=out, stderr=err,
                                start_new_session=True)
        time.sleep(delay)
        killed_at = time.monotonic()
        finished = proc.poll() is not None  # before the signal came: nothing to interrupt
        if finished:
            pass
        elif sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        try:
            code = proc.wait(timeout=PROMPT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise AssertionError(f"{where}: still running {PROMPT_S:g} s later") from None
    took = time.monotonic() - killed_at
    stderr = (folder / "stderr").read_text(errors="replace")
    if finished or (code in (0, 1) and took < 1.0 and not stderr.strip()):
        # it was done before the signal came, or as it came (its final moments: what is written is whole, and
        # a signal then is ignored); an interrupt it swallowed would have let it run on to its natural end
        assert code in (0, 1), f"{where}: it failed on its own: {code} {stderr}"
    elif sig == signal.SIGINT:
        assert code == 130 and stderr.strip().endswith("ptofuzz: error: interrupted"), f"{where}: {code} {stderr}"
    elif sig == signal.SIGTERM:
        assert code == 143 and stderr.strip().endswith("ptofuzz: error: terminated"), f"{where}: {code} {stderr}"
    assert "Traceback" not in stderr, f"{where}: {stderr}"
    deadline = time.monotonic() + 10  # a dead parent's workers and compilers go within moments
    while (left := _marked_processes(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"{where}: left running: {left}"
    cmd.check(folder, sig, local)
    assert (folder / "notes.txt").read_text() == "mine", where
    assert not _hidden_staging(folder), f"{where}: {_hidden_staging(folder)}"
    assert list(tmp_dir.iterdir()) == [], f"{where}: left in TMPDIR: {list(tmp_dir.iterdir())}"
    assert took < PROMPT_S
    return delay


@pytest.mark.parametrize("name", [n for n, c in COMMANDS.items() if not c.needs_sim])
def test_each_command_killed_once_leaves_the_invariants(tmp_path, ref, name):
    """The short version: one kill of each command, the signal chosen by the command's name."""
    cmd = COMMANDS[name]
    sig = SIGNALS[sum(name.encode()) % 3]
    _trial(tmp_path, ref, cmd, sig, 0)


@pytest.mark.slow
@pytest.mark.nightly
@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.cpusim] if c.needs_sim else [])
                                  for n, c in COMMANDS.items()])
def test_many_kills_of_each_command_at_random_moments(tmp_path, ref, name, sig):
    cmd = COMMANDS[name]
    trials = int(os.environ.get("PTOFUZZ_KILL_TRIALS", cmd.trials))
    moments = [_trial(tmp_path, ref, cmd, sig, k) for k in range(1, trials + 1)]
    print(f"kills: {name} {sig.name} {len(moments)} at", ", ".join(f"{m:.2f} s" for m in moments))  # -rA shows it
