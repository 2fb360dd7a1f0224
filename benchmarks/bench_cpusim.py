#!/usr/bin/env python
"""The cpusim oracle: harness build times, cached start-up, and campaign throughput with the real simulator.

Needs a pto-isa tree (``--pto-isa DIR`` or ``PTO_ISA_DIR``) and a C++ compiler.

* build, every instruction: ``build.get`` of all instructions the harness runs into an empty cache (a new
  machine), seconds (target: within a few minutes on 2 cores, :data:`BUILD_ALL_TARGET`);
* build, one instruction: ``fuzz OP --oracles ...,cpusim``'s build (``--op``, default ``tadd``) into another
  empty cache; then every instruction into that cache (only the others compile: the incremental cost);
* cached start-up: what cpusim adds to a command whose build is cached: the build lookup (tree hash, manifest)
  plus the harness's start and self-test, in this process, best of 5 (target under :data:`STARTUP_TARGET` s);
  and side by side, new processes running ``fuzz OP --runs 1`` with ``--oracles spec,cpu,cpusim`` and, as
  the anchor, ``--oracles spec,cpu`` (best of 3 each);
* campaign: ``campaign.run_random`` in this process, OP 16x16 float32, oracles spec, cpu and cpusim,
  ``--cases`` cases, best of ``--repeat``; anchor measured alternately: spec and cpu only.

Exit status 1 when a target is missed. Not part of the pytest suite:

    python benchmarks/bench_cpusim.py [--pto-isa DIR] [--op tadd] [--cases 300000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.engine import campaign

BUILD_ALL_TARGET = 180.0  # seconds, every instruction, empty cache, 2 cores
STARTUP_TARGET = 0.5  # seconds cpusim adds to a command whose build is cached
CAMPAIGN_TARGET = 20_000  # cases/s


def _timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _process(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=False, capture_output=True, env=dict(os.environ))
    if out.returncode not in (0, 1):  # 1: the case was a finding, which is no matter here
        raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr.decode(errors='replace').strip()}")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pto-isa", type=Path, default=None)
    ap.add_argument("--op", default="tadd")
    ap.add_argument("--cases", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    op = args.op.upper()
    with tempfile.TemporaryDirectory(prefix="ptofuzz-bench-cache-") as every_cache, \
            tempfile.TemporaryDirectory(prefix="ptofuzz-bench-cache-") as one_cache:
        every = build.Settings(pto_isa=args.pto_isa, cache_dir=Path(every_cache))
        b, built_all = _timed(lambda: build.get(every))
        one = build.Settings(pto_isa=args.pto_isa, cache_dir=Path(one_cache), ops=(op,))
        _, built_one = _timed(lambda: build.get(one))
        _, built_rest = _timed(lambda: build.get(build.Settings(pto_isa=args.pto_isa, cache_dir=Path(one_cache))))

        def start() -> None:
            sim = Simulator(every)
            sim.build()  # lookup and self-test (the harness starts, answers one request)
            sim.close()

        startup = min(_timed(start)[1] for _ in range(5))
        tree = str(every.tree())
        base = [sys.executable, "-m", "ptofuzz", "fuzz", args.op, "--runs", "1", "--json", "--dtype", "float32"]
        sim_flags = ["--pto-isa", tree, "--cache-dir", every_cache]
        with_sim = min(_process([*base, "--oracles", "spec,cpu,cpusim", *sim_flags]) for _ in range(3))
        anchor = min(_process([*base, "--oracles", "spec,cpu"]) for _ in range(3))
        plans = {name: campaign.make_plan(args.op, oracles, seed=args.seed, dtype="float32", shape=(16, 16),
                                          sim=every if "cpusim" in oracles else None)
                 for name, oracles in (("cpusim", ["spec", "cpu", "cpusim"]), ("anchor", ["spec", "cpu"]))}
        for plan in plans.values():
            plan.backends.prepare()
            campaign.run_random(plan, runs=20_000)  # warm-up: imports, harness start, first allocations
        rates = {name: 0.0 for name in plans}
        sigs = 0
        for _ in range(args.repeat):
            for name, plan in plans.items():
                t0 = time.perf_counter()
                store, stats = campaign.run_random(plan, runs=args.cases)
                rates[name] = max(rates[name], stats.cases / (time.perf_counter() - t0))
                if name == "cpusim":
                    sigs = len(store.findings)
    n_ops = len(b.manifest["ops"])
    pairs = sum(map(len, b.manifest["kernels"].values()))
    print(f"cpusim: {b.manifest['compiler']}, pto-isa {b.manifest['commit']} (python {platform.python_version()}, "
          f"{os.cpu_count()} cores)")
    ok_all = built_all <= BUILD_ALL_TARGET
    print(f"{'build, every instruction, empty cache':<46} {built_all:8.1f} s  ({n_ops} instructions, {pairs} "
          f"instruction-type pairs; target <= {BUILD_ALL_TARGET:.0f} s  {'ok' if ok_all else 'MISSED'})")
    print(f"{'build, ' + op + ' only, empty cache':<46} {built_one:8.1f} s")
    print(f"{'  then every instruction (the others compile)':<46} {built_rest:8.1f} s")
    ok_start = startup <= STARTUP_TARGET
    print(f"{'cached start-up (lookup, harness, self-test)':<46} {startup:8.2f} s  (best of 5; target < "
          f"{STARTUP_TARGET} s  {'ok' if ok_start else 'MISSED'})")
    print(f"{'  process: fuzz ' + args.op + ' --runs 1, spec,cpu,cpusim':<46} {with_sim:8.2f} s  (best of 3)")
    print(f"{'  anchor: the same process, spec,cpu':<46} {anchor:8.2f} s  (best of 3)")
    ok = rates["cpusim"] >= CAMPAIGN_TARGET
    print(f"{'campaign spec,cpu,cpusim, 16x16 float32':<46} {rates['cpusim']:8,.0f} cases/s  target >= "
          f"{CAMPAIGN_TARGET:,}  {'ok' if ok else 'MISSED'}  ({args.cases:,} cases, best of {args.repeat}, "
          f"{sigs} signatures)")
    print(f"{'  anchor: the same campaign, spec,cpu only':<46} {rates['anchor']:8,.0f} cases/s")
    return 0 if ok and ok_all and ok_start else 1


if __name__ == "__main__":
    sys.exit(main())
