"""Dev-only (not in CI): re-check mutation survivors by difference, not by test.

mutmut's run leaves mutants alive that no selected test notices. For each one named on the command line (or read
from ``mutmut results``), this switches the mutant on in mutmut's ``mutants/`` copy (mutmut's own switch, the
``MUTANT_UNDER_TEST`` variable its trampolines read on every call) and evaluates a fixed corpus of cases through
every platform oracle of the instructions the mutated module serves: canonical and random cases of every
platform, inputs drawn with three special-value rates, each case alone, inside a shared batch, and stacked
(``draw_batch``) as fuzzing evaluates them. ``compare.py`` mutants are probed by comparing each platform's
outcome against the others' and against bit-flipped copies. A mutant that changes any output bit, element
class, flag, fault or kind on any case (or raises) is *different*, printed with the first case that shows it;
one that changes nothing is *same on the corpus* (a candidate equivalent, still to be argued in
tests/README.md). Run it from the ``mutants/`` folder after ``mutmut run``::

    cd mutants && python ../ci/mutant_probe.py --from-results > ../probe.txt

``--fresh`` starts a new interpreter per mutant with it switched on from the start, for code that runs while a
module is imported (the NPU select closures of ``oracles/tpartarg.py``), which the in-process switch never reaches.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

OPS = {
    "ptofuzz.oracles.mrgsort": ("TMRGSORT",),
    "ptofuzz.oracles.sort": ("TSORT", "TSORT32"),
    "ptofuzz.oracles.tpart": ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"),
    "ptofuzz.oracles.integer": ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"),
    "ptofuzz.oracles.ieee": ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN", "TSORT", "TSORT32", "TMRGSORT",
                             "TPARTARGMAX"),
    "ptofuzz.oracles.descriptors": ("TSORT", "TPARTADD"),
    "ptofuzz.oracles.tpartarg": ("TPARTARGMAX", "TPARTARGMIN"),
    "ptofuzz.engine.compare": ("TPARTADD", "TPARTMAX", "TSORT32", "TMRGSORT", "TPARTARGMAX"),
    "ptofuzz.core.layouts": (),
}
RANDOM = 60  # random cases per (op, platform, rate)
RATES = (0.0, 0.2, 0.6)
STACK = 8  # cases per stacked batch
SEED = 17
MODES = ({}, {"kind": "ulp", "ulp": 1}, {"kind": "tol"}, {"kind": "tol", "rtol": 0.5, "atol": 0.0},
         {"nan": "any", "zeros": "unsigned"})


def _mutant(name: str | None) -> None:
    if name:
        os.environ["MUTANT_UNDER_TEST"] = name
    else:
        os.environ.pop("MUTANT_UNDER_TEST", None)


def _fingerprint(outcome: Any) -> tuple[Any, ...]:
    parts: list[Any] = [str(outcome.kind), repr(outcome.fault), repr(outcome.flags), outcome.reason]
    parts.extend((role, v.dtype.str, v.shape, v.tobytes()) for role, v in sorted(outcome.outputs.items()))
    parts.extend((role, v.tobytes()) for role, v in sorted(outcome.classes.items()))
    parts.append(repr(sorted((k, repr(v)) for k, v in (outcome.extra or {}).items())))
    return tuple(parts)


Probe = Callable[[], tuple[Any, ...]]


def _corpus(ops: tuple[str, ...]) -> Iterator[tuple[str, Probe]]:
    """(label, probe) pairs; a probe evaluates with whatever mutant is on and returns a fingerprint."""
    from ptofuzz import api
    from ptofuzz.core.errors import UsageError
    from ptofuzz.generators import values
    from ptofuzz.generators.source import seeded
    from ptofuzz.instructions import registry

    _mutant(None)
    for op in ops:
        inst = registry.get(op)
        for platform in inst.platforms:
            try:
                planned = [(n, c) for n, c, _ in api.plan(op, platform)]
            except UsageError:  # no canonical list there (kirinDev0000): random cases only
                planned = []
            for rate in RATES:
                mix = values.ValueMix(rate)
                named = planned + [(n, c) for n, c, _ in api.plan(op, platform, seed=SEED + int(rate * 10),
                                                                  random=RANDOM)]
                sources = [seeded(SEED, n) for n, _ in named]
                batch = [(c, inst.draw_inputs(s, c, mix)) for s, (_, c) in zip(sources, named)]

                def alone(inst: Any = inst, batch: Any = batch) -> tuple[Any, ...]:
                    return tuple(_fingerprint(inst.evaluate(c, i)) for c, i in batch)

                def shared(inst: Any = inst, batch: Any = batch) -> tuple[Any, ...]:
                    with inst.sharing(batch):
                        return tuple(_fingerprint(inst.evaluate(c, i)) for c, i in batch)

                yield f"{op} {platform} rate {rate} alone", alone
                yield f"{op} {platform} rate {rate} shared", shared
                if inst.draw_batch is not None:
                    stacks = [(c, inst.draw_batch(seeded(SEED, f"stack{k}"), c, mix, STACK))
                              for k, (_, c) in enumerate(named[:: max(1, len(named) // 24)])]

                    def stacked(inst: Any = inst, stacks: Any = stacks) -> tuple[Any, ...]:
                        with inst.sharing(stacks):
                            return tuple(_fingerprint(inst.evaluate(c, i)) for c, i in stacks)

                    yield f"{op} {platform} rate {rate} stacked", stacked
                if ops is OPS["ptofuzz.engine.compare"]:
                    yield from _compare_probes(op, platform, batch, inst)


def _compare_probes(op: str, platform: str, batch: list[Any], inst: Any) -> Iterator[tuple[str, Probe]]:
    from ptofuzz.core import dtypes
    from ptofuzz.engine import compare
    from ptofuzz.generators.source import seeded

    outs = []
    for c, i in batch:
        o = inst.evaluate(c, i)
        if o.outputs:
            role = sorted(o.outputs)[0]
            outs.append((c, role, o))
    rng = seeded(SEED, f"flips-{op}-{platform}")
    pairs = []
    for c, role, o in outs:
        exp = o.outputs[role].reshape(o.outputs[role].shape[-2:]) if o.outputs[role].ndim >= 2 else o.outputs[role]
        if exp.ndim != 2:
            continue
        dt = dtypes.get("uint32" if role in ("idx",) or op in ("TSORT32", "TMRGSORT") else c.dtype) \
            if role != "dst" or op not in ("TPARTARGMAX",) else dtypes.get(c.dtype)
        if exp.dtype != dt.bits_dtype:
            dt = next(d for d in (dtypes.get(n) for n in ("uint8", "uint16", "uint32", "uint64"))
                      if d.bits_dtype == exp.dtype)
        act = exp.copy()
        if act.size:
            flips = rng.bits(32, 4) % act.size
            bits = rng.bits(32, 4) % (8 * act.itemsize)
            flat = act.reshape(-1)
            for f, b in zip(flips, bits):
                flat[int(f)] ^= act.dtype.type(1 << int(b))
        cls = o.classes.get(role)
        cls = cls.reshape(exp.shape) if cls is not None and cls.size == exp.size else None
        pairs.append((exp, cls, act, dt, c))

    def run(pairs: Any = pairs) -> tuple[Any, ...]:
        out = []
        for exp, cls, act, dt, c in pairs:
            for k, mode in enumerate(MODES):
                if k == 0:  # every default
                    r = compare.compare(exp, cls, act, dt, eps=1e-3)
                else:
                    r = compare.compare(exp, cls, act, dt, mode=compare.Mode(**mode), valid=c.tiles[0][1].valid,
                                        eps=1e-3, half_as_bits=dt.name == "float16")
                errors = r.errors.tobytes() if r.errors is not None else None
                out.append((repr(r.first), r.checked, r.mismatches, errors, repr(r.counts), r.max_abs, r.max_rel,
                            r.max_ulp, repr(r.specials), repr(r.result_cmp), repr(r.mode)))
        return tuple(out)

    yield f"compare {op} {platform}", run


def _check(name: str, corpus: list[tuple[str, Probe]], baseline: list[Any]) -> str:
    _mutant(name)
    try:
        for (label, probe), base in zip(corpus, baseline):
            try:
                got = probe()
            except Exception as e:  # noqa: BLE001 - a mutant that raises is a different one
                return f"different: raises {type(e).__name__} on {label}"
            if got != base:
                return f"different: {label}"
        return "same on the corpus"
    finally:
        _mutant(None)


def _digests(module: str) -> list[str]:
    import hashlib
    import importlib
    import pickle

    importlib.import_module(module)  # with the mutant still on: what runs at import runs mutated
    return [hashlib.sha256(pickle.dumps(probe())).hexdigest() for _, probe in _corpus(OPS[module])]


def _fresh(name: str, module: str, baseline: list[Any]) -> str:
    """The corpus in a new interpreter started with the mutant on: for functions that run while a module is
    imported (closures built once), which an in-process switch never reaches."""
    import hashlib
    import pickle

    env = dict(os.environ, MUTANT_UNDER_TEST=name)
    run = subprocess.run([sys.executable, os.path.abspath(__file__), "--digests", module], capture_output=True,
                         text=True, env=env, check=False)
    if run.returncode:
        return f"different: raises ({run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode})"
    want = [hashlib.sha256(pickle.dumps(b)).hexdigest() for b in baseline]
    got = run.stdout.split()
    return "same on the corpus" if got == want else "different (fresh interpreter)"


def _results() -> list[str]:
    out = subprocess.run(["mutmut", "results"], capture_output=True, text=True, check=True, cwd="..").stdout
    return [line.split(":")[0].strip() for line in out.splitlines() if line.strip().endswith(": survived")]


def main() -> int:
    sys.path.insert(0, os.getcwd())  # mutmut's mutated copy, not the installed package
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mutants", nargs="*")
    p.add_argument("--from-results", action="store_true", help="every survivor of `mutmut results`")
    p.add_argument("--fresh", action="store_true", help="each mutant in a new interpreter (import-time code)")
    p.add_argument("--digests", metavar="MODULE", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.digests:
        print("\n".join(_digests(args.digests)))
        return 0
    names = args.mutants or (_results() if args.from_results else [])
    by_module: dict[str, list[str]] = {}
    for n in names:
        by_module.setdefault(n.split(".x")[0].rstrip("."), []).append(n)
    for module, group in sorted(by_module.items()):
        ops = OPS.get(module)
        if ops is None or not ops:
            for n in group:
                print(f"{n}: no probe for {module}", flush=True)
            continue
        corpus = list(_corpus(ops))
        baseline = [probe() for _, probe in corpus]
        import importlib

        if not importlib.import_module(module).__file__.startswith(os.getcwd()):
            print(f"{module} is not imported from {os.getcwd()}: run this from mutmut's mutants/ folder")
            return 2
        if baseline != [probe() for _, probe in corpus]:
            print(f"{module}: the corpus is not deterministic; no verdicts", flush=True)
            continue
        for n in group:
            verdict = _fresh(n, module, baseline) if args.fresh else _check(n, corpus, baseline)
            print(f"{n}: {verdict}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
