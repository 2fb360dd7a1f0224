"""External targets: run a command per case folder (an NPU system test, another implementation), collect its
``output.bin`` and check it exactly as ``ptofuzz check`` does.

The command is a template: ``{case}`` is the case folder, ``{suite}`` and ``{name}`` the two halves of its
pto-isa name (``TPARTADDTest.case_float_64x64_8x64_64x64``), ``{dir}`` the folder holding case folders; with
``{dir}`` the command runs once per such folder, otherwise once per case. Values are shell-quoted.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import os
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ptofuzz import api
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.engine import verdicts
from ptofuzz.engine.compare import Verdict
from ptofuzz.generators import values
from ptofuzz.io import casefolder

FIELDS = ("case", "suite", "name", "dir")
MAX_TIMEOUT = 1e6  # seconds (about 11 days): larger values overflow the clocks they are added to
OUTPUT = "output.bin"


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


def _fill(template: str, **values: str) -> str:
    try:
        return template.format(**{k: shlex.quote(v) for k, v in values.items()})
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise UsageError(f"--target {template!r}: bad placeholder {e}; use {{case}}, {{suite}}, {{name}} or "
                         "{dir}") from None


def _run(command: str, cwd: Path, timeout: float) -> tuple[str, float]:
    """'' when the command exited 0, else what went wrong (exit status and its last line of output). A command
    that times out is killed with everything it started (its own process group)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, shell=True, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return f"target timed out after {timeout:g} s", time.perf_counter() - start
    if proc.returncode != 0:
        text = (err.strip() or out.strip()).decode(errors="replace")
        last = text.splitlines()
        tail = f": {last[-1][:200]}" if last else ""
        return f"target exited with status {proc.returncode}{tail}", time.perf_counter() - start
    return "", time.perf_counter() - start


def run(template: str, paths: Sequence[str | Path], *, jobs: int = 1, timeout: float = 600.0,
        platform: str | None = None, cwd: Path | None = None) -> list[TargetVerdict]:
    """Run ``template`` over the case folders under ``paths`` and check what it wrote."""
    if not template.strip():
        raise UsageError("--target is empty; give a command such as 'python3 run.py {case}'")
    if not 1 <= jobs <= 256:
        raise UsageError(f"--jobs {jobs} must be between 1 and 256")
    if not 0 < timeout <= MAX_TIMEOUT:
        raise UsageError(f"--timeout {timeout} must be a positive number of seconds, at most {MAX_TIMEOUT:g}")
    _fill(template, case="x", suite="x", name="x", dir="x")  # placeholders checked before anything runs
    folders = casefolder.discover([Path(p) for p in paths])
    where = cwd or Path.cwd()
    per_dir = "{dir}" in template
    units: dict[str, list[Path]] = {}
    results: dict[Path, TargetVerdict] = {}
    for folder in folders:
        try:  # a folder that cannot be read is not handed to the target (nothing is written into it)
            casefolder.read_inputs(casefolder.load(folder, platform))
        except CaseFolderError as e:
            results[folder] = TargetVerdict(folder, "", Verdict.ERROR, None, str(e), unreadable=True)
            continue
        suite, _, name = folder.name.partition(".")
        cmd = _fill(template, case=str(folder.resolve()), suite=suite, name=name or suite,
                    dir=str(folder.resolve().parent))
        units.setdefault(cmd, []).append(folder)
    before = {f: _mtime(f / OUTPUT) for fs in units.values() for f in fs}

    def one(cmd: str) -> list[TargetVerdict]:
        problem, seconds = _run(cmd, where, timeout)
        return [_verdict(f, cmd, problem, before[f], platform, seconds) for f in units[cmd]]

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
        return TargetVerdict(folder, cmd, Verdict.ERROR, None, problem, seconds)
    after = _mtime(folder / OUTPUT)
    if after is None or after == before:
        return TargetVerdict(folder, cmd, Verdict.ERROR, None, f"target wrote no {OUTPUT} in the case folder", seconds)
    try:
        verdict = api.check_case(folder, platform)
    except CaseFolderError as e:
        return TargetVerdict(folder, cmd, Verdict.ERROR, None, str(e), seconds, unreadable=True)
    return TargetVerdict(folder, cmd, verdict.verdict, verdict, "", seconds)



# ---- an external target as a campaign oracle (``fuzz --oracles spec,target --target CMD``) ---------------------

TARGET = "target"


@dataclasses.dataclass(frozen=True)
class CampaignTarget:
    """The external target of a campaign: its command, and the platform whose case folders it reads."""

    template: str
    platform: str = "cpu"
    timeout: float = 600.0


_campaign_target: CampaignTarget | None = None


def configure(target: CampaignTarget | None) -> None:
    """Use ``target`` as the ``target`` oracle of campaigns in this process (None: none)."""
    global _campaign_target
    if target is not None:
        _fill(target.template, case="x", suite="x", name="x", dir="x")
    _campaign_target = target


def configured() -> CampaignTarget | None:
    return _campaign_target


def flags() -> str:
    """The ``fuzz`` flags that configure the campaign target again (for reproduce commands)."""
    cfg = _campaign_target
    if cfg is None:
        return ""
    return (f" --target {shlex.quote(cfg.template)}" + (f" --target-platform {cfg.platform}" if cfg.platform != "cpu"
                                                        else "")
            + (f" --target-timeout {cfg.timeout:g}" if cfg.timeout != 600.0 else ""))


def evaluate(inst: Any, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The external target's outcome of ``case`` (inputs with or without a leading batch axis): each case is
    written as a case folder in the target platform's layout (inputs and the platform model's golden), the command
    runs once per case (or once per batch with ``{dir}``), and its ``output.bin`` is read back. Cases the target
    gave nothing for are crash / hang outcomes (for a batch: failures, as for cpusim)."""
    from ptofuzz.core.failures import CRASH, HANG, Failure, stacked
    from ptofuzz.core.failures import outcome as batch_outcome

    cfg = _campaign_target
    if cfg is None:
        raise UsageError("--oracles target needs --target CMD (the command that runs one case folder)")
    plat = case.on(cfg.platform)
    prof = inst.support(cfg.platform).profile
    role = inst.outputs[0]
    roles = list(inputs)
    arrays, batched = stacked(*(inputs[r] for r in roles))
    n = arrays[0].shape[0]
    tile = plat.tile(role)
    fshape = prof.file_shape(tile)
    dt = inst.dtype_of(plat, role)
    out = np.zeros((n, *tile.shape), dtype=dt.bits_dtype)
    failures = []
    with tempfile.TemporaryDirectory(prefix="ptofuzz-target-") as tmp:
        folders = []
        for k in range(n):
            one = {r: a[k] for r, a in zip(roles, arrays)}
            expected = inst.evaluate(plat, one)
            if expected.kind is not OutcomeKind.OK:
                return Outcome.unsupported(f"target: the {cfg.platform} model gives {expected.kind} for this case")
            name = prof.name(plat, k)
            content = casefolder.build(inst, plat, one, expected, name=name, seed=0,
                                       mix=values.ValueMix.parse(None, 0.0), replay="")
            folder = Path(tmp) / name
            folder.mkdir()
            for fname, data in content.files.items():
                (folder / fname).write_bytes(data)
            folders.append(folder)
        per_dir = "{dir}" in cfg.template
        commands = ([_fill(cfg.template, case=tmp, suite=prof.suite, name=prof.suite, dir=tmp)] if per_dir else
                    [_fill(cfg.template, case=str(f), suite=f.name.partition(".")[0], name=f.name.partition(".")[2],
                           dir=tmp) for f in folders])
        problems = [_run(cmd, Path(tmp), cfg.timeout)[0] for cmd in commands]
        for k, folder in enumerate(folders):
            problem = problems[0] if per_dir else problems[k]
            path = folder / OUTPUT
            if problem or not path.is_file():
                why = problem or f"target wrote no {OUTPUT}"
                failures.append(Failure(k, HANG if "timed out" in why else CRASH,
                                        "timeout" if "timed out" in why else "no-output" if not problem else "exit",
                                        why))
                continue
            try:
                bits = casefolder.read_tile_file(path, dt, fshape)
            except CaseFolderError as e:
                failures.append(Failure(k, CRASH, "bad-output", str(e)))
                continue
            out[k, :fshape[0], :fshape[1]] = bits
    one_cls = np.full(tile.shape, UNDEFINED, dtype=np.uint8)
    r, c = (min(a, b) for a, b in zip(fshape, tile.valid))
    one_cls[:r, :c] = EXACT
    return batch_outcome(role, out, one_cls, failures, batched)
