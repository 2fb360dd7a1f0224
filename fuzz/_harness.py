"""Shared setup of the standalone libFuzzer-style targets in this folder (not part of the installed package).

A target decodes each input into one case of its instruction family (through ptofuzz's generators and
:class:`ptofuzz.generators.fuzzed.FuzzedSource`), runs it through every oracle and compares them. It crashes
(so that libFuzzer keeps the input as a reproducer) when an oracle raises, or when two oracles disagree in a way
that is neither a documented platform difference nor listed in ``PTOFUZZ_ALLOW`` (comma-separated signature
substrings); with ``PTOFUZZ_FINDINGS=DIR`` every signature's first case is also saved there as a record folder.
Each signature crashes with its own exception type, message and top frame (:mod:`ptofuzz.engine.crashes`), so
ClusterFuzz-style grouping shows one crash per signature.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence


def build_target(ops: Sequence[str], instructions: Sequence[object] | None = None) -> Callable[[bytes], None]:
    """The ``TestOneInput`` of a target over ``ops`` (``instructions``: stand-ins for the registry's, for tests).
    Each disagreement that is neither documented nor allowed raises its own signature's exception
    (:func:`ptofuzz.engine.crashes.raise_disagreement`), so crash grouping sees one crash per signature."""
    import time
    from pathlib import Path

    from ptofuzz.engine import campaign, crashes, differential
    from ptofuzz.engine.atheris_engine import run_input
    from ptofuzz.generators.fuzzed import FuzzedSource
    from ptofuzz.instructions import registry

    insts = list(instructions) if instructions is not None else [registry.get(op) for op in ops]
    plans = [campaign.make_plan(op, instruction=inst) for op, inst in zip(ops, insts)]  # type: ignore[arg-type]
    out = os.environ.get("PTOFUZZ_FINDINGS")
    stores = [campaign.FindingStore(i, p, Path(out), engine="atheris") if out else None  # type: ignore[arg-type]
              for i, p in zip(insts, plans)]
    allowed = [s for s in os.environ.get("PTOFUZZ_ALLOW", "").split(",") if s]
    execs, last = [0], [time.perf_counter()]

    def flush() -> None:  # hit counts and campaign.json every few seconds (libFuzzer ends the process itself)
        for store in stores:
            if store is not None:
                store.finish(campaign.Stats(cases=execs[0], elapsed=time.perf_counter() - last[0]))

    def test_one_input(data: bytes) -> None:
        execs[0] += 1
        if out and execs[0] % 2000 == 0:
            flush()
        src = FuzzedSource.from_bytes(data)
        k = src.choice(range(len(plans)))
        inst, store = insts[k], stores[k]
        ran = run_input(inst, plans[k], src)
        if ran is None:
            return
        for sig in ran.signatures:
            if store is not None:
                store.add(sig.key, ran.hits.counts[sig], "libFuzzer", ran.case, ran.example(sig))
            known = inst.known_difference(differential.as_platforms(sig, plans[k].backends)) \
                if inst.known_difference else None
            if known is None and not any(a in sig.key for a in allowed):
                if store is not None:
                    flush()
                crashes.raise_disagreement(sig.key, f"{ran.case.dtype} "
                                           + ", ".join(f"{r} {t.token()}" for r, t in ran.case.tiles))

    return test_one_input


def main(ops: Sequence[str]) -> None:
    import atheris

    from ptofuzz.engine.atheris_engine import import_instrumented

    import_instrumented()
    atheris.Setup(sys.argv, build_target(ops))
    atheris.Fuzz()
