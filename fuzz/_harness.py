"""Shared setup of the standalone libFuzzer-style targets in this folder (not part of the installed package).

A target decodes each input into one case of its instruction family (through ptofuzz's generators and
:class:`ptofuzz.generators.fuzzed.FuzzedSource`), runs it through every oracle and compares them. It crashes
(so that libFuzzer keeps the input as a reproducer) when an oracle raises, or when two oracles disagree in a way
that is neither a documented platform difference nor listed in ``PTOFUZZ_ALLOW`` (comma-separated signature
substrings); with ``PTOFUZZ_FINDINGS=DIR`` every signature's first case is also saved there as a record folder.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def main(ops: Sequence[str]) -> None:
    import atheris

    from ptofuzz.atheris_engine import import_instrumented, run_input

    import_instrumented()
    from pathlib import Path

    from ptofuzz import campaign, differential, registry
    from ptofuzz.generators.fuzzed import FuzzedSource

    plans = [campaign.make_plan(op) for op in ops]
    insts = [registry.get(p.op) for p in plans]
    out = os.environ.get("PTOFUZZ_FINDINGS")
    stores = [campaign.FindingStore(i, p, Path(out), engine="atheris") if out else None
              for i, p in zip(insts, plans)]
    allowed = [s for s in os.environ.get("PTOFUZZ_ALLOW", "").split(",") if s]
    import time

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
        case, inputs, sigs = ran
        for sig in sigs:
            if store is not None:
                store.add(sig.key, 1, "libFuzzer", case, inputs)
            known = inst.known_difference(differential.as_platforms(sig)) if inst.known_difference else None
            if known is None and not any(a in sig.key for a in allowed):
                raise AssertionError(f"oracles disagree: {sig.key} ({case.dtype} "
                                     f"{', '.join(f'{r} {t.token()}' for r, t in case.tiles)})")

    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
