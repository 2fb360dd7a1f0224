"""External targets: run a command per case folder (an NPU system test, another implementation), collect its
``output.bin`` and check it exactly as ``ptofuzz check`` does.

The command is a template: ``{case}`` is the case folder, ``{suite}`` and ``{name}`` the two halves of its
pto-isa name (``TPARTADDTest.case_float_64x64_8x64_64x64``), ``{dir}`` the folder holding case folders; with
``{dir}`` the command runs once per such folder, otherwise once per case. Values are shell-quoted.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import shlex
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from ptofuzz import api, casefolder
from ptofuzz.errors import CaseFolderError, UsageError

FIELDS = ("case", "suite", "name", "dir")
OUTPUT = "output.bin"


@dataclasses.dataclass(frozen=True)
class TargetVerdict:
    """One case after the target ran: the check verdict, or why the target gave nothing to check."""

    path: Path
    command: str  # the target command as run (for this case, or for its folder)
    verdict: str  # pass / fail / error
    check: api.CaseVerdict | None
    problem: str = ""  # the target exited non-zero, timed out or wrote no output.bin
    seconds: float = 0.0

    @property
    def reproduce(self) -> str:
        chk = self.check.reproduce if self.check is not None else f"ptofuzz check {shlex.quote(str(self.path))}"
        return f"{self.command} && {chk}"


def _fill(template: str, **values: str) -> str:
    try:
        return template.format(**{k: shlex.quote(v) for k, v in values.items()})
    except (KeyError, IndexError, ValueError) as e:
        raise UsageError(f"--target {template!r}: bad placeholder {e}; use {{case}}, {{suite}}, {{name}} or "
                         "{dir}") from None


def _run(command: str, cwd: Path, timeout: float) -> tuple[str, float]:
    """'' when the command exited 0, else what went wrong (exit status and its last line of output)."""
    start = time.perf_counter()
    try:
        out = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                             check=False, start_new_session=True)
    except subprocess.TimeoutExpired:
        return f"target timed out after {timeout:g} s", time.perf_counter() - start
    if out.returncode != 0:
        last = (out.stderr.strip() or out.stdout.strip()).splitlines()
        tail = f": {last[-1][:200]}" if last else ""
        return f"target exited with status {out.returncode}{tail}", time.perf_counter() - start
    return "", time.perf_counter() - start


def run(template: str, paths: Sequence[str | Path], *, jobs: int = 1, timeout: float = 600.0,
        platform: str | None = None, cwd: Path | None = None) -> list[TargetVerdict]:
    """Run ``template`` over the case folders under ``paths`` and check what it wrote."""
    if not template.strip():
        raise UsageError("--target is empty; give a command such as 'python3 run.py {case}'")
    if not 1 <= jobs <= 256:
        raise UsageError(f"--jobs {jobs} must be between 1 and 256")
    if not timeout > 0:
        raise UsageError(f"--timeout {timeout} must be a positive number of seconds")
    _fill(template, case="x", suite="x", name="x", dir="x")  # placeholders checked before anything runs
    folders = casefolder.discover([Path(p) for p in paths])
    where = cwd or Path.cwd()
    per_dir = "{dir}" in template
    units: dict[str, list[Path]] = {}
    for folder in folders:
        suite, _, name = folder.name.partition(".")
        cmd = _fill(template, case=str(folder.resolve()), suite=suite, name=name or suite,
                    dir=str(folder.resolve().parent))
        units.setdefault(cmd, []).append(folder)
    before = {f: _mtime(f / OUTPUT) for f in folders}

    def one(cmd: str) -> list[TargetVerdict]:
        problem, seconds = _run(cmd, where, timeout)
        return [_verdict(f, cmd, problem, before[f], platform, seconds) for f in units[cmd]]

    results: dict[Path, TargetVerdict] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=1 if per_dir and len(units) == 1 else jobs) as pool:
        for verdicts in pool.map(one, list(units)):
            results.update((v.path, v) for v in verdicts)
    return [results[f] for f in folders]


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _verdict(folder: Path, cmd: str, problem: str, before: int | None, platform: str | None,
             seconds: float) -> TargetVerdict:
    if problem:
        return TargetVerdict(folder, cmd, "error", None, problem, seconds)
    after = _mtime(folder / OUTPUT)
    if after is None or after == before:
        return TargetVerdict(folder, cmd, "error", None, f"target wrote no {OUTPUT} in the case folder", seconds)
    try:
        verdict = api.check_case(folder, platform)
    except CaseFolderError as e:
        return TargetVerdict(folder, cmd, "error", None, str(e), seconds)
    return TargetVerdict(folder, cmd, verdict.verdict, verdict, "", seconds)

