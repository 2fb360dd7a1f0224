#!/usr/bin/env python
"""The cpusim oracle: harness build time, cached start-up time, and campaign throughput with the real simulator.

Needs a pto-isa tree (``--pto-isa DIR`` or ``PTO_ISA_DIR``) and a C++ compiler.

* build: ``ptofuzz sim build`` into a fresh, empty cache folder (a new machine), seconds;
* cached start-up: a new ``ptofuzz`` process running ``fuzz tpartadd --oracles spec,cpu,cpusim --runs 1`` against
  that cache (interpreter start, imports, cache lookup with the tree hash, harness start, one case), seconds;
* campaign: ``campaign.run_random`` in this process, TPARTADD float32 16x16, oracles spec, cpu and cpusim on
  every case, ``--cases`` cases (default 300,000), best of ``--repeat`` (default 3); target >= 20,000 cases/s.
  Anchor, measured alternately in the same run: the same campaign with spec and cpu only (what the simulator
  adds is the difference).

Exit status 1 when the target is missed. Not part of the pytest suite:

    python benchmarks/bench_cpusim.py [--pto-isa DIR] [--cases 300000] [--repeat 3]
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

from ptofuzz.backends.cpusim import build, session
from ptofuzz.engine import campaign

TARGET = 20_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pto-isa", type=Path, default=None)
    ap.add_argument("--cases", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ptofuzz-bench-cache-") as cache:
        settings = build.Settings(pto_isa=args.pto_isa, cache_dir=Path(cache))
        t0 = time.perf_counter()
        b = build.get(settings)
        built = time.perf_counter() - t0
        tree = str(settings.tree())
        cmd = [sys.executable, "-m", "ptofuzz", "fuzz", "tpartadd", "--oracles", "spec,cpu,cpusim", "--runs", "1",
               "--pto-isa", tree, "--cache-dir", cache, "--json"]
        starts = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ))
            starts.append(time.perf_counter() - t0)
        session.configure(settings)
        plans = {name: campaign.make_plan("tpartadd", oracles, seed=args.seed, dtype="float32", shape=(16, 16))
                 for name, oracles in (("cpusim", ["spec", "cpu", "cpusim"]), ("anchor", ["spec", "cpu"]))}
        for plan in plans.values():
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
        session.configure(build.Settings())
        best = rates["cpusim"]
    print(f"cpusim: {b.manifest['compiler']}, pto-isa {b.manifest['commit']} (python {platform.python_version()}, "
          f"{os.cpu_count()} cores)")
    print(f"{'harness build (empty cache)':<44} {built:8.1f} s")
    print(f"{'cached start-up (fuzz --runs 1, new process)':<44} {min(starts):8.2f} s  (best of 3)")
    ok = best >= TARGET
    print(f"{'campaign spec,cpu,cpusim, 16x16 float32':<44} {best:8,.0f} cases/s  target >= {TARGET:,}  "
          f"{'ok' if ok else 'MISSED'}  ({args.cases:,} cases, best of {args.repeat}, {sigs} signatures)")
    print(f"{'anchor: the same campaign, spec,cpu only':<44} {rates['anchor']:8,.0f} cases/s  (cpusim costs "
          f"{1e6 / best - 1e6 / rates['anchor']:.1f} us a case)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
