"""An external target as a backend (oracle ``target``): a command (an NPU system test, another implementation)
run on case folders written in its platform's layout; its ``output.bin`` is the outcome.

The command is a template: ``{case}`` is the case folder, ``{suite}`` and ``{name}`` the two halves of its
pto-isa name (``TPARTADDTest.case_float_64x64_8x64_64x64``), ``{dir}`` the folder holding case folders; with
``{dir}`` the command runs once per such folder, otherwise once per case. Values are shell-quoted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import selectors
import shlex
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.backends.base import TARGET, Plain, no_model
from ptofuzz.core import processes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.generators import values
from ptofuzz.io import casefolder

if TYPE_CHECKING:
    from ptofuzz.instructions.registry import Instruction

FIELDS = ("case", "suite", "name", "dir")
MAX_TIMEOUT = 1e6  # seconds (about 11 days): larger values overflow the clocks they are added to


def fill(template: str, **values: str) -> str:
    try:
        return template.format(**{k: shlex.quote(v) for k, v in values.items()})
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise UsageError(f"--target {template!r}: bad placeholder {e}; use {{case}}, {{suite}}, {{name}} or "
                         "{dir}") from None


OUTPUT_TAIL = 4096  # bytes of a target's output kept to say why it failed (the rest is read and dropped)


def run_command(command: str, cwd: Path, timeout: float, stop: threading.Event | None = None) -> tuple[str, float]:
    """'' when the command exited 0, else what went wrong (exit status and its last line of output).

    The command runs in a process group of its own. Its output is read as it comes and only the last
    :data:`OUTPUT_TAIL` bytes of each stream are kept (a target may print without end: neither memory nor disk
    grows). The command is over when its process exits, not when its output closes: whatever it leaves running in
    its group, holding the output open or not, is killed with it, as is everything on a timeout or an interrupt
    (``stop``: set by another thread, which the interrupt reached, to end the command at once). What it detached
    into a session of its own (``setsid CMD &``) is killed too: orphaned, it is handed to this process (see
    :func:`ptofuzz.core.processes.adopt_orphans`) and known by a mark in its environment. (So a process that runs
    targets reaps orphans from then on: one that outlives its own parent elsewhere in this process's tree ends
    as a zombie child of it, harmless, gone when it exits.)"""
    start = time.perf_counter()
    if stop is not None and stop.is_set():
        return "not run: interrupted", 0.0
    mark = secrets.token_hex(8)  # what it detaches from its group (setsid ... &) is found by this and killed
    processes.adopt_orphans()
    proc = subprocess.Popen(command, shell=True, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, processes.MARK: mark})
    tails = {proc.stdout: b"", proc.stderr: b""}
    try:
        with selectors.DefaultSelector() as sel:
            for pipe in tails:
                assert pipe is not None
                os.set_blocking(pipe.fileno(), False)
                sel.register(pipe, selectors.EVENT_READ)
            deadline = start + timeout
            while proc.poll() is None:
                if stop is not None and stop.is_set():
                    return "interrupted", time.perf_counter() - start
                left = deadline - time.perf_counter()
                if left <= 0:
                    processes.kill_group(proc.pid)
                    proc.wait()
                    return f"target timed out after {timeout:g} s", time.perf_counter() - start
                if not sel.get_map():  # its output is closed: wait for the process itself (select would idle)
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=min(left, 0.05))
                    continue
                for key, _ in sel.select(min(left, 0.5)):
                    _drain(key.fileobj, tails, sel)
            for pipe in list(tails):  # what it wrote just before exiting
                _drain(pipe, tails, sel)
    finally:
        processes.kill_group(proc.pid)  # what it started and left behind (on success, failure, timeout or Ctrl-C)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)  # reaped here: no zombie of it outlives the command
        processes.kill_marked(mark)  # and what it detached into sessions of their own
        for pipe in tails:
            if pipe is not None:
                pipe.close()
    if proc.returncode != 0:
        text = (tails[proc.stderr].strip() or tails[proc.stdout].strip()).decode(errors="replace")
        last = text.splitlines()
        tail = f": {last[-1][:200]}" if last else ""
        return f"target exited with status {proc.returncode}{tail}", time.perf_counter() - start
    return "", time.perf_counter() - start


def _drain(pipe: Any, tails: dict[Any, bytes], sel: selectors.BaseSelector) -> None:
    """Read what ``pipe`` holds now (never waiting), keeping its tail; unregister it at end of file."""
    while True:
        try:
            data = os.read(pipe.fileno(), 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            with contextlib.suppress(KeyError, ValueError):
                sel.unregister(pipe)
            return
        tails[pipe] = (tails[pipe] + data)[-OUTPUT_TAIL:]


# ---- an external target as a campaign oracle (``fuzz --oracles spec,target --target CMD``) ---------------------

@dataclasses.dataclass(frozen=True)
class TargetBackend(Plain):
    """The external target of a campaign: its command, and the platform whose case folders it reads."""

    template: str
    platform: str = "cpu"
    timeout: float = 600.0
    name: str = TARGET

    def __post_init__(self) -> None:
        check_template(self.template)
        if not 0 < self.timeout <= MAX_TIMEOUT:
            raise UsageError(f"--target-timeout {self.timeout} must be a positive number of seconds, at most "
                             f"{MAX_TIMEOUT:g}")

    def cannot_answer(self, inst: Instruction) -> str | None:
        return no_model(inst, self.platform)

    def evaluate(self, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        return _evaluate(self, inst, case, inputs)

    def flags(self) -> str:
        """The ``fuzz`` flags that configure this target again (for reproduce commands)."""
        return (f"--target {shlex.quote(self.template)}"
                + (f" --target-platform {self.platform}" if self.platform != "cpu" else "")
                + (f" --target-timeout {self.timeout:g}" if self.timeout != 600.0 else ""))



def check_template(template: str) -> None:
    """A one-line UsageError for an empty template or an unknown placeholder, before anything runs."""
    if not template.strip():
        raise UsageError("--target is empty; give a command such as 'python3 run.py {case}'")
    fill(template, case="x", suite="x", name="x", dir="x")


def _evaluate(cfg: TargetBackend, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The external target's outcome of ``case`` (inputs with or without a leading batch axis): each case is
    written as a case folder in the target platform's layout (inputs and the platform model's golden), the command
    runs once per case (or once per batch with ``{dir}``), and the output files of that layout (``output.bin``;
    ``output_val.bin`` and ``output_idx.bin`` for two outputs) are read back. Cases the target gave nothing for
    are crash / hang outcomes (for a batch: failures, as for cpusim)."""
    from ptofuzz.core.failures import CRASH, HANG, Failure, outcome_of, stacked

    plat = case.on(cfg.platform)
    prof = inst.support(cfg.platform).profile
    roles = list(inputs)
    arrays, batched = stacked(*(inputs[r] for r in roles))
    n = arrays[0].shape[0] if arrays else 1
    outs = {role: (fname, plat.tile(role), prof.file_shape(plat.tile(role)), inst.dtype_of(plat, role))
            for fname, role in prof.outputs}
    got = {role: np.zeros((n, *tile.shape), dtype=dt.bits_dtype) for role, (_, tile, _, dt) in outs.items()}
    failures = []
    with tempfile.TemporaryDirectory(prefix="ptofuzz-target-") as tmp:
        folders = []
        for k in range(n):
            item, one = inst.item(plat, {r: a[k] for r, a in zip(roles, arrays)})
            expected = inst.evaluate(item, one)
            if expected.kind is not OutcomeKind.OK:
                return Outcome.unsupported(f"target: the {cfg.platform} model gives {expected.kind} for this case")
            name = prof.name(item, k)
            content = casefolder.build(inst, item, one, expected, name=name, seed=0,
                                       mix=values.ValueMix.parse(None, 0.0), replay="")
            folder = Path(tmp) / name
            folder.mkdir()
            for fname, data in content.files.items():
                (folder / fname).write_bytes(data)
            folders.append(folder)
        per_dir = "{dir}" in cfg.template
        commands = ([fill(cfg.template, case=tmp, suite=prof.suite, name=prof.suite, dir=tmp)] if per_dir else
                    [fill(cfg.template, case=str(f), suite=f.name.partition(".")[0], name=f.name.partition(".")[2],
                           dir=tmp) for f in folders])
        problems = [run_command(cmd, Path(tmp), cfg.timeout)[0] for cmd in commands]
        for k, folder in enumerate(folders):
            problem = problems[0] if per_dir else problems[k]
            missing = next((fname for fname, *_ in outs.values() if not (folder / fname).is_file()), None)
            if problem or missing:
                # the temporary folder's random name is no part of what happened: a record says {dir} (the
                # same seed saves the same bytes)
                why = (problem or f"target wrote no {missing}").replace(tmp, "{dir}")
                failures.append(Failure(k, HANG if "timed out" in why else CRASH,
                                        "timeout" if "timed out" in why else "no-output" if not problem else "exit",
                                        why))
                continue
            try:
                bits = {role: casefolder.read_tile_file(folder / fname, dt, fshape, prof.is_packed(dt.name))
                        for role, (fname, _, fshape, dt) in outs.items()}
            except CaseFolderError as e:
                failures.append(Failure(k, CRASH, "bad-output", str(e).replace(tmp, "{dir}")))
                continue
            for role, (_, _, fshape, _) in outs.items():
                got[role][k, :fshape[0], :fshape[1]] = bits[role]
    parts = {}
    for role, (_, tile, fshape, _) in outs.items():
        one_cls = np.full(tile.shape, UNDEFINED, dtype=np.uint8)
        r, c = (min(a, b) for a, b in zip(fshape, tile.valid))
        one_cls[:r, :c] = EXACT
        parts[role] = (got[role], one_cls)
    return outcome_of(parts, failures, batched)
