#!/usr/bin/env python
"""Peak memory and time to the first folder of long ``ptofuzz gen`` runs.

Two workloads, each a fresh ``ptofuzz gen`` process writing into an empty folder:

* ``many``: ``gen tpartadd --platform a5 --random N --shape 16x16`` (default N = 1,000,000): memory must stay
  flat in N (target: peak under 200 MB) and the first case folder must appear within 1 s of the start;
* ``big``: ``gen tpartadd --platform a5 --random 64 --shape 2048x2048 --dtype float32``: memory bounded by bytes
  of tiles, not by a case count (target: peak under 1 GB).

Peak memory is the child's maximum resident set (``getrusage``); the first folder is the first entry of the
output folder that is not a hidden staging folder, polled every 5 ms. The folders are removed afterwards. Exit
status 1 when a target is missed.

    python benchmarks/bench_gen_memory.py [--cases 1000000] [--only many|big] [--tmpdir DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MB = 1 << 20


def ptofuzz_cmd() -> list[str]:
    script = Path(sys.executable).with_name("ptofuzz")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ptofuzz"]


def run(args: list[str], out: Path) -> tuple[float, float | None, float]:
    """(peak RSS in MB, seconds to the first folder, total seconds) of one gen run."""
    start = time.perf_counter()
    proc = subprocess.Popen([*ptofuzz_cmd(), "gen", *args, "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    first = None
    while proc.poll() is None:
        if first is None and out.is_dir():
            with os.scandir(out) as it:
                if any(not e.name.startswith(".") for e in it):
                    first = time.perf_counter() - start
        time.sleep(0.005)
    total = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"gen {' '.join(args)} failed (exit {proc.returncode}): {err.strip()[-300:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # kB on Linux
    return peak, first, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--only", choices=("many", "big"))
    ap.add_argument("--tmpdir", default=None)
    args = ap.parse_args()
    workloads = {
        "many": (["tpartadd", "--platform", "a5", "--random", str(args.cases), "--shape", "16x16"], 200, 1.0),
        "big": (["tpartadd", "--platform", "a5", "--random", "64", "--shape", "2048x2048", "--dtype", "float32"],
                1024, None),
    }
    failed = False
    for name, (gen_args, mb_target, first_target) in workloads.items():
        if args.only and name != args.only:
            continue
        scratch = Path(tempfile.mkdtemp(prefix="ptofuzz-gen-mem-", dir=args.tmpdir))
        try:
            # each workload in its own child so that RUSAGE_CHILDREN's maximum is this workload's
            res = subprocess.run([sys.executable, __file__, "--child", str(scratch / "out"), *gen_args],
                                 capture_output=True, text=True, check=False)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if res.returncode != 0:
            raise SystemExit(res.stderr.strip()[-400:])
        peak, first, total = (float(x) if x != "None" else None for x in res.stdout.split())
        assert peak is not None and total is not None
        ok = peak < mb_target and (first_target is None or (first is not None and first < first_target))
        failed |= not ok
        shown = f"{first:.2f} s" if first is not None else "-"
        print(f"{name:5s} gen {' '.join(gen_args)}: peak {peak:,.0f} MB (target < {mb_target}), first folder "
              f"{shown}{f' (target < {first_target} s)' if first_target else ''}, total {total:,.1f} s"
              f"  {'ok' if ok else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        peak, first, total = run(sys.argv[3:], Path(sys.argv[2]))
        print(peak, first, total)
        raise SystemExit(0)
    raise SystemExit(main())
