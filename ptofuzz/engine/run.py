"""``ptofuzz run``: run an external target (an NPU system test, another implementation) over case folders and
check each ``output.bin`` it writes exactly as ``ptofuzz check`` does."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import shlex
import threading
from collections.abc import Sequence
from pathlib import Path

from ptofuzz.backends.target import FIELDS, MAX_TIMEOUT, check_template, fill, run_command
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.engine import verdicts
from ptofuzz.engine.check import check_case
from ptofuzz.engine.compare import Verdict
from ptofuzz.io import casefolder

__all__ = ["FIELDS", "TargetVerdict", "run"]


@dataclasses.dataclass(frozen=True)
class TargetVerdict:
    """One case after the target ran: the check verdict, or why the target gave nothing to check."""

    path: Path
    command: str  # the target command as run (for this case, or for its folder)
    verdict: Verdict
    check: verdicts.CaseVerdict | None
    problem: str = ""  # the target exited non-zero, timed out or wrote no output.bin
    seconds: float = 0.0
    unreadable: bool = False  # the case folder itself cannot be read (the target was not run on it)

    @property
    def reproduce(self) -> str:
        chk = self.check.reproduce if self.check is not None else f"ptofuzz check {shlex.quote(str(self.path))}"
        if not self.command:  # the folder was not run: checking it shows why
            return chk
        return f"( {self.command} ) && {chk}"


def run(template: str, paths: Sequence[str | Path], *, jobs: int = 1, timeout: float = 600.0,
        platform: str | None = None, cwd: Path | None = None) -> list[TargetVerdict]:
    """Run ``template`` over the case folders under ``paths`` and check what it wrote."""
    if not 1 <= jobs <= 256:
        raise UsageError(f"--jobs {jobs} must be between 1 and 256")
    if not 0 < timeout <= MAX_TIMEOUT:
        raise UsageError(f"--timeout {timeout} must be a positive number of seconds, at most {MAX_TIMEOUT:g}")
    check_template(template)  # placeholders checked before anything runs
    folders = casefolder.discover([Path(p) for p in paths])
    where = cwd or Path.cwd()
    per_dir = "{dir}" in template
    units: dict[str, list[Path]] = {}
    results: dict[Path, TargetVerdict] = {}
    outputs: dict[Path, list[str]] = {}  # the files the target is to write in each folder (output.bin, ...)
    for folder in folders:
        try:  # a folder that cannot be read is not handed to the target (nothing is written into it)
            loaded = casefolder.load(folder, platform)
            casefolder.read_inputs(loaded)
            outputs[folder] = [fname for fname, _ in loaded.profile.outputs]
        except CaseFolderError as e:
            results[folder] = TargetVerdict(folder, "", Verdict.ERROR, None, str(e), unreadable=True)
            continue
        suite, _, name = folder.name.partition(".")
        cmd = fill(template, case=str(folder.resolve()), suite=suite, name=name or suite,
                    dir=str(folder.resolve().parent))
        units.setdefault(cmd, []).append(folder)
    before = {f: [_mtime(f / name) for name in outputs[f]] for fs in units.values() for f in fs}

    stop = threading.Event()  # set on Ctrl-C or TERM: running commands are killed, queued ones never start

    def one(cmd: str) -> list[TargetVerdict]:
        problem, seconds = run_command(cmd, where, timeout, stop)
        return [_verdict(f, cmd, problem, outputs[f], before[f], platform, seconds) for f in units[cmd]]

    with concurrent.futures.ThreadPoolExecutor(max_workers=1 if per_dir and len(units) == 1 else jobs) as pool:
        try:
            for verdicts in pool.map(one, list(units)):
                results.update((v.path, v) for v in verdicts)
        except BaseException:  # the interrupt reaches this thread only: stop the commands the workers run
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return [results[f] for f in folders]


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _verdict(folder: Path, cmd: str, problem: str, names: list[str], before: list[int | None],
             platform: str | None, seconds: float) -> TargetVerdict:
    if problem:
        return TargetVerdict(folder, cmd, Verdict.ERROR, None, problem, seconds)
    for name, was in zip(names, before):
        now = _mtime(folder / name)
        if now is None or now == was:
            return TargetVerdict(folder, cmd, Verdict.ERROR, None, f"target wrote no {name} in the case folder",
                                 seconds)
    try:
        verdict = check_case(folder, platform)
    except CaseFolderError as e:
        bad = _bad_output(folder, platform)
        if bad:  # what the target wrote is the target's failure (exit 1), the folder's own damage is not
            return TargetVerdict(folder, cmd, Verdict.ERROR, None, f"target wrote a bad output: {bad}", seconds)
        return TargetVerdict(folder, cmd, Verdict.ERROR, None, str(e), seconds, unreadable=True)
    return TargetVerdict(folder, cmd, verdict.verdict, verdict, "", seconds)


def _bad_output(folder: Path, platform: str | None) -> str:
    """Why an output file the target wrote in ``folder`` cannot be read ('' when they all can)."""
    try:
        lc = casefolder.load(folder, platform)
        for fname, role in lc.profile.outputs:
            tile = lc.case.tile(role)
            fdt = lc.inst.dtype_of(lc.case, role)
            casefolder.read_tile_file(folder / fname, fdt, lc.profile.file_shape(tile), lc.profile.is_packed(fdt.name))
    except CaseFolderError as e:
        return str(e)
    return ""
