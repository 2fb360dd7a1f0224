"""One configured simulator: its settings, its harness build and the worker process that runs it.

A :class:`Simulator` is made by the cpusim backend in the process that uses it (a forked worker makes its own:
a harness process is never shared across processes); it builds or finds the harness on first use.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ptofuzz.backends.cpusim import build as build_mod
from ptofuzz.backends.cpusim.inprocess import Library
from ptofuzz.backends.cpusim.worker import HarnessError, Worker
from ptofuzz.core.case import Case, Outcome
from ptofuzz.core.errors import UsageError

SELF_TEST_TIMEOUT = 30.0  # seconds the self-test's one request may take (a sanitized build starts slowly)


def flags(settings: build_mod.Settings) -> str:
    """The ``fuzz`` flags that configure a simulator with ``settings`` again (for reproduce commands)."""
    st = settings
    parts = []
    if st.pto_isa is not None:
        parts.append(f"--pto-isa {shlex.quote(str(st.pto_isa))}")
    if st.cache_dir is not None:
        parts.append(f"--cache-dir {shlex.quote(str(st.cache_dir))}")
    if st.sanitize:
        parts.append(f"--sanitize {','.join(st.sanitize)}")
    if st.plant:
        parts.append(f"--sim-plant {st.plant}")
    if st.coverage:
        parts.append("--native-coverage")
    if st.timeout != build_mod.Settings.timeout:
        parts.append(f"--sim-timeout {st.timeout:g}")
    if st.placeholder_bf16:
        parts.append("--sim-placeholder-bf16")
    return " ".join(parts)


def like(settings: build_mod.Settings, target: dict[str, Any]) -> build_mod.Settings:
    """``settings`` for replaying a finding made against ``target`` (its record's ``finding.target``): its
    sanitizers and planted bug, and its pto-isa tree when neither ``--pto-isa`` nor ``PTO_ISA_DIR`` names one. A
    finding of the native-coverage build replays out of process, built with clang as that build was."""
    plant = target.get("plant") if target.get("plant") in build_mod.PLANTS else None
    tree = settings.pto_isa
    if tree is None and not os.environ.get("PTO_ISA_DIR") and target.get("pto_isa"):
        tree = Path(str(target["pto_isa"]))
    return dataclasses.replace(settings, pto_isa=tree, sanitize=tuple(target.get("sanitize", ())), plant=plant,
                               timeout=float(target.get("timeout", settings.timeout)),
                               placeholder_bf16=bool(target.get("placeholder_bf16", False)), coverage=False,
                               cxx=build_mod.find_clang() if target.get("native_coverage") else settings.cxx)


class Simulator:
    """The harness build for ``settings`` and this process's worker running it (both made on first use)."""

    def __init__(self, settings: build_mod.Settings, say: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.say = say  # hears what a first build is doing (``sim build`` prints it on stderr)
        self._build: build_mod.Build | None = None
        self._worker: Worker | Library | None = None
        self._tested: dict[str, str] | None = None  # the tree's path and commit, once asked

    def build(self) -> build_mod.Build:
        """The harness build (built now when the cache has none), once it has passed its self-test: a cached
        build that fails it (damaged by hand, truncated, not executable) is built again; a build that still fails
        it is a broken build (a one-line error), never a finding against the simulator."""
        if self._build is None:
            b = build_mod.get(self.settings, say=self.say)
            why = self_test(b, self.settings)
            if why and b.cached:
                build_mod.discard(b)
                b = build_mod.get(self.settings, say=self.say)
                why = self_test(b, self.settings)
            if why:
                raise UsageError(f"the cpusim harness {str(b.executable)!r} fails its self-test ({why}); remove "
                                 f"{str(b.folder)!r} and run `ptofuzz sim build` again")
            self._build = b
        return self._build

    def worker(self) -> Worker | Library:
        """What runs requests: the harness process, or (a native-coverage build) the library in this process."""
        if self._worker is None:
            b = self.build()
            self._worker = (Library(b.library, plant=self.settings.plant) if b.coverage
                            else Worker(b.executable, self.settings.timeout, plant=self.settings.plant))
        return self._worker

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def unavailable(self, case: Case) -> Outcome | None:
        """The "unsupported" outcome when this build cannot run ``case``'s instruction and dtype, else None."""
        b = self.build()
        why = b.unsupported_reason(case.op, case.dtype)
        if why is not None:
            return Outcome.unsupported(f"cpusim {case.op} {case.dtype}: {why}")
        if case.dtype == "bfloat16" and not b.manifest["bfloat16_native"] and not self.settings.placeholder_bf16:
            return Outcome.unsupported(f"cpusim {case.op} bfloat16: {build_mod.BF16_PLACEHOLDER}")
        return None

    def target(self) -> dict[str, Any]:
        """What a finding against cpusim was tested on (pto-isa commit, compiler, flags) and how it was run."""
        b = self.build()
        if self._tested is None:  # this tree's own path and commit (two trees with the same include/ share a build)
            tree = self.settings.tree()
            self._tested = {"pto_isa": str(tree), "pto_isa_commit": build_mod.commit_of(tree, b.manifest["tree_hash"])}
        st = self.settings
        return {**b.target(), **self._tested, "timeout": st.timeout, "placeholder_bf16": st.placeholder_bf16,
                "plant": st.plant}


def self_test(b: build_mod.Build, settings: build_mod.Settings) -> str:
    """'' when the harness answers one known request right (TPARTADD or TADD of 1x32 bytes, which add bytes
    alike), else what went wrong. A native-coverage build's library is tried in a child process: loading it here,
    before the fuzzer's hooks are made global, would tie its counters to the empty stand-ins for good."""
    kernels = b.manifest["kernels"]
    op, dtype = next(((o, d) for o in ("TPARTADD", "TADD") for d in ("uint8", "int8") if d in kernels.get(o, ())),
                     (None, None))
    if op is None or dtype is None:  # nothing this test can ask (a harness of other instructions only)
        return ""
    if b.coverage:
        return _library_self_test(b.library, op, dtype, max(settings.timeout, SELF_TEST_TIMEOUT))
    try:
        worker = Worker(b.executable, max(settings.timeout, SELF_TEST_TIMEOUT), max_failures=1)
        try:
            return known_case(worker, op, dtype)
        finally:
            worker.close()
    except (OSError, HarnessError, ValueError) as e:
        return f"it cannot be run: {e}"


def known_case(runner: Worker | Library, op: str, dtype: str) -> str:
    """'' when ``runner`` adds two 1x32 byte tiles right with ``op``, else what went wrong."""
    a = np.arange(1, 33, dtype=np.uint8).reshape(1, 1, 32)
    c = (a + 99).astype(np.uint8)
    valid = np.array([[1, 32, 1, 32, 1, 32]], dtype=np.int32)
    got, failures = runner.run(build_mod.OPS[op], build_mod.DTYPES[dtype][0], 0, 1, valid, a, c)
    if failures:
        return f"{failures[0].kind} on a known case: {failures[0].first_line}"
    if not np.array_equal(got, (a + c).astype(np.uint8)):
        return "a known case came back wrong"
    return ""


def _library_self_test(path: Path, op: str, dtype: str, timeout: float) -> str:
    import subprocess
    import sys

    code = ("import sys\nfrom ptofuzz.backends.cpusim.inprocess import Library\n"
            "from ptofuzz.backends.cpusim.simulator import known_case\n"
            "print(known_case(Library(sys.argv[1]), sys.argv[2], sys.argv[3]) or 'ok')\n")
    try:
        res = subprocess.run([sys.executable, "-c", code, str(path), op, dtype], capture_output=True, text=True,
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"no answer within {timeout:g} s"
    except OSError as e:
        return f"it cannot be run: {e}"
    said = (res.stdout.strip().splitlines() or [""])[-1]
    if res.returncode == 0 and said == "ok":
        return ""
    return said if res.returncode == 0 else f"it cannot be loaded: {(res.stderr.strip().splitlines() or ['?'])[-1]}"
