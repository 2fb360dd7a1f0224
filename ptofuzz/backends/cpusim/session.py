"""This process's cpusim configuration, build and worker (made on first use; one worker per process)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from ptofuzz.backends.cpusim import build as build_mod
from ptofuzz.backends.cpusim.worker import Worker
from ptofuzz.core.case import Case, Outcome

_settings = build_mod.Settings()
_build: build_mod.Build | None = None
_worker: tuple[int, Worker] | None = None
_tested: dict[str, str] | None = None  # the configured tree's path and commit, once asked


def configure(settings: build_mod.Settings) -> None:
    """Use ``settings`` from now on (the next use builds or finds the matching harness)."""
    global _settings, _build, _worker, _tested
    _settings = settings
    _build = None
    _tested = None
    if _worker is not None:
        _worker[1].close()
    _worker = None


def configure_like(target: dict[str, Any]) -> None:
    """Settings for replaying a finding made against ``target`` (its record's ``finding.target``): its
    sanitizers and planted bug, and its pto-isa tree when neither ``--pto-isa`` nor ``PTO_ISA_DIR`` names one."""
    plant = target.get("plant") if target.get("plant") in build_mod.PLANTS else None
    tree = _settings.pto_isa
    if tree is None and not os.environ.get("PTO_ISA_DIR") and target.get("pto_isa"):
        tree = Path(str(target["pto_isa"]))
    wanted = dataclasses.replace(_settings, pto_isa=tree, sanitize=tuple(target.get("sanitize", ())), plant=plant,
                                 timeout=float(target.get("timeout", _settings.timeout)),
                                 placeholder_bf16=bool(target.get("placeholder_bf16", False)))
    if wanted != _settings:
        configure(wanted)


def flags() -> str:
    """The ``fuzz`` flags that configure this simulator again (for reproduce commands)."""
    import shlex

    st = _settings
    parts = []
    if st.pto_isa is not None:
        parts.append(f"--pto-isa {shlex.quote(str(st.pto_isa))}")
    if st.cache_dir is not None:
        parts.append(f"--cache-dir {shlex.quote(str(st.cache_dir))}")
    if st.sanitize:
        parts.append(f"--sanitize {','.join(st.sanitize)}")
    if st.plant:
        parts.append(f"--sim-plant {st.plant}")
    if st.timeout != build_mod.Settings.timeout:
        parts.append(f"--sim-timeout {st.timeout:g}")
    if st.placeholder_bf16:
        parts.append("--sim-placeholder-bf16")
    return " ".join(parts)


def settings() -> build_mod.Settings:
    return _settings


def current_build() -> build_mod.Build:
    """The harness build for the configured settings (built now when the cache has none)."""
    global _build
    if _build is None:
        _build = build_mod.get(_settings)
    return _build


def worker() -> Worker:
    """This process's harness worker (a forked campaign process starts its own)."""
    global _worker
    pid = os.getpid()
    if _worker is None or _worker[0] != pid:
        _worker = (pid, Worker(current_build().executable, _settings.timeout, plant=_settings.plant))
    return _worker[1]


def unavailable(case: Case) -> Outcome | None:
    """The "unsupported" outcome when this build cannot run ``case``'s instruction and dtype, else None."""
    b = current_build()
    why = b.unsupported_reason(case.op, case.dtype)
    if why is not None:
        return Outcome.unsupported(f"cpusim {case.op} {case.dtype}: {why}")
    if case.dtype == "bfloat16" and not b.manifest["bfloat16_native"] and not _settings.placeholder_bf16:
        return Outcome.unsupported(f"cpusim {case.op} bfloat16: {build_mod.BF16_PLACEHOLDER}")
    return None


def target() -> dict[str, Any]:
    """What a finding against cpusim was tested on (pto-isa commit, compiler, flags) and how it was run."""
    global _tested
    b = current_build()
    if _tested is None:  # this tree's own path and commit (two trees with the same include/ share one build)
        tree = _settings.tree()
        _tested = {"pto_isa": str(tree), "pto_isa_commit": build_mod.commit_of(tree, b.manifest["tree_hash"])}
    return {**b.target(), **_tested, "timeout": _settings.timeout, "placeholder_bf16": _settings.placeholder_bf16,
            "plant": _settings.plant}
