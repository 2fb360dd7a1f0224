"""ptofuzz's spec model against pto-spec's own ASL (the ``aslref`` oracle), instruction by instruction.

    PTO_ASLREF=... PTO_SPEC_ASL=... python ci/aslref_conformance.py [--runs 500] [--seed 1] [--ops tand,tadd]
        [--integer-runs 0] [--illegal-runs 0] [--jobs 2] [--batch 8] [--max-elements 128] [--out DIR] [--json FILE]

For every instruction with a bundle spelling (or those of ``--ops``), one seeded campaign ``ptofuzz fuzz OP
--oracles spec,aslref --runs N`` (small tiles, batches of cases run together) saves its disagreements under
``--out``. Two more passes weigh the paths where the ASL model is exact: ``--integer-runs`` cases on the
instruction's integer element types only (seed + 1; instructions with any), and ``--illegal-runs`` cases that each
break a legality rule (``--illegal-share 1``, seed + 2; instructions ptofuzz draws illegal cases of). The script
prints one line per instruction and pass: cases drawn and compared (the others have no bundle spelling, so
the model cannot run them), signatures, and how many are new (not explained). It exits
1 when any shows a new signature, 0 when all agree. Tiles of at most 128 elements cost about 0.2 s a case and core (see
docs/reference/aslref.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def bundle_ops() -> list[str]:
    from ptofuzz.instructions import registry

    return [n.lower() for n, inst in registry.all_instructions().items() if inst.bundle]


def integer_dtypes(op: str) -> list[str]:
    from ptofuzz.core import dtypes
    from ptofuzz.instructions import registry

    sup = registry.get(op).platforms.get("spec")
    return [d for d in (sup.dtypes if sup else ()) if dtypes.get(d).kind in ("int", "uint")]


def draws_illegal(op: str) -> bool:
    from ptofuzz.instructions import registry

    return registry.get(op).illegal_case is not None


def passes(op: str, args: argparse.Namespace) -> list[tuple[str, int, int, list[str]]]:
    """(name, runs, seed, extra fuzz options) of each pass over ``op``."""
    todo = [("random", args.runs, args.seed, [])] if args.runs else []  # --runs 0: the other passes alone
    ints = integer_dtypes(op) if args.integer_runs else []
    if ints:
        todo.append(("integer", args.integer_runs, args.seed + 1, ["--dtype", ",".join(ints)]))
    if args.illegal_runs and draws_illegal(op):
        todo.append(("illegal", args.illegal_runs, args.seed + 2, ["--illegal-share", "1"]))
    return todo


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=500, help="cases per instruction (0: none)")
    ap.add_argument("--integer-runs", type=int, default=0, help="more cases per instruction, integer types only")
    ap.add_argument("--illegal-runs", type=int, default=0, help="more cases per instruction, each breaking a rule")
    ap.add_argument("--jobs", type=int, default=2, help="processes (each runs its own interpreter)")
    ap.add_argument("--batch", type=int, default=8, help="cases per geometry (64 cases share an interpreter run)")
    ap.add_argument("--max-elements", type=int, default=128, help="largest tile drawn")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", default=None, help="comma-separated instructions (default: all with a bundle spelling)")
    ap.add_argument("--out", type=Path, default=None, help="where the findings go (default: a temporary folder)")
    ap.add_argument("--json", type=Path, default=None, help="also write the per-instruction results here")
    args = ap.parse_args()
    ops = [o.strip().lower() for o in args.ops.split(",")] if args.ops else bundle_ops()
    out = args.out or Path(tempfile.mkdtemp(prefix="ptofuzz-aslref-"))
    rows = []
    for op in ops:
        for kind, runs, seed, extra in passes(op, args):
            folder = out / (op if kind == "random" else f"{op}-{kind}")
            start = time.perf_counter()
            res = subprocess.run([sys.executable, "-m", "ptofuzz", "fuzz", op, "--oracles", "spec,aslref", "--runs",
                                  str(runs), "--seed", str(seed), "--out", str(folder), "--jobs", str(args.jobs),
                                  "--batch", str(args.batch), "--max-elements", str(args.max_elements), *extra],
                                 capture_output=True, text=True, check=False)
            took = time.perf_counter() - start
            name = f"{op} {kind}" if kind != "random" else op
            summary = folder / "campaign.json"
            if not summary.is_file():
                print(f"{name:24s} failed (exit {res.returncode}): {(res.stderr or res.stdout).strip()[-200:]}",
                      flush=True)
                rows.append({"op": op, "pass": kind, "error": (res.stderr or res.stdout).strip()[-200:]})
                continue
            c = json.loads(summary.read_text())
            sigs = c.get("signatures", [])
            new = c.get("new", 0)
            unrun = c.get("unsupported", {}).get("aslref", 0)  # cases the model cannot run (no bundle spelling)
            row = {"op": op, "pass": kind, "cases": c.get("cases"), "compared": (c.get("cases") or 0) - unrun,
                   "signatures": len(sigs), "new": new,
                   "seconds": round(took, 1), "command": c.get("command"),
                   "keys": [f"{s['signature']} ({s['hits']} hits{', new' if s.get('new') else ''}"
                            f"{', defect ' + s['defect'] if s.get('defect') else ''})" for s in sigs]}
            rows.append(row)
            print(f"{name:24s} {row['cases']:6} cases ({row['compared']:6} compared)  "
                  f"{row['signatures']:3} signature(s)  {new:3} new  "
                  f"{took:7.1f} s" + "".join(f"\n    {k}" for k in row["keys"]), flush=True)
            if args.json:  # after every campaign: a job stopped by its time limit keeps what it did
                args.json.write_text(json.dumps(rows, indent=1) + "\n")
    bad = sorted({r["op"] for r in rows if r.get("new") or "error" in r})
    print(f"{len(ops)} instruction(s), {len(rows)} campaign(s), {sum(r.get('cases') or 0 for r in rows)} cases "
          f"({sum(r.get('compared') or 0 for r in rows)} compared); "
          f"{'all agree' if not bad else 'new disagreements: ' + ', '.join(bad)}; findings in {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
