"""ptofuzz's spec model against pto-spec's own ASL (the ``aslref`` oracle), instruction by instruction.

    PTO_ASLREF=... PTO_SPEC_ASL=... python ci/aslref_conformance.py [--runs 500] [--seed 1] [--ops tand,tadd]
        [--jobs 2] [--batch 64] [--max-elements 128] [--out DIR] [--json FILE]

For every instruction with a bundle spelling (or those of ``--ops``), one seeded campaign ``ptofuzz fuzz OP
--oracles spec,aslref --runs N`` (small tiles, batches of cases run together) saves its disagreements under
``--out``. The script prints one line per
instruction: cases compared, signatures, and how many are new (not explained). It exits 1 when any instruction shows
a new signature, 0 when all agree. Tiles of at most 128 elements cost about 0.2 s a case and core (see
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=500, help="cases per instruction")
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
        folder = out / op
        start = time.perf_counter()
        res = subprocess.run([sys.executable, "-m", "ptofuzz", "fuzz", op, "--oracles", "spec,aslref", "--runs",
                              str(args.runs), "--seed", str(args.seed), "--out", str(folder), "--jobs",
                              str(args.jobs), "--batch", str(args.batch), "--max-elements", str(args.max_elements)],
                             capture_output=True, text=True, check=False)
        took = time.perf_counter() - start
        summary = folder / "campaign.json"
        if not summary.is_file():
            print(f"{op:16s} failed (exit {res.returncode}): {(res.stderr or res.stdout).strip()[-200:]}", flush=True)
            rows.append({"op": op, "error": (res.stderr or res.stdout).strip()[-200:]})
            continue
        c = json.loads(summary.read_text())
        sigs = c.get("signatures", [])
        new = c.get("new", 0)
        row = {"op": op, "cases": c.get("cases"), "signatures": len(sigs), "new": new, "seconds": round(took, 1),
               "keys": [f"{s['signature']} ({s['hits']} hits{', new' if s.get('new') else ''}"
                        f"{', defect ' + s['defect'] if s.get('defect') else ''})" for s in sigs]}
        rows.append(row)
        print(f"{op:16s} {row['cases']:6} cases  {row['signatures']:3} signature(s)  {new:3} new  {took:7.1f} s"
              + "".join(f"\n    {k}" for k in row["keys"]), flush=True)
        if args.json:  # after every instruction: a job stopped by its time limit keeps what it did
            args.json.write_text(json.dumps(rows, indent=1) + "\n")
    bad = [r["op"] for r in rows if r.get("new") or "error" in r]
    print(f"{len(rows)} instruction(s), {sum(r.get('cases') or 0 for r in rows)} cases; "
          f"{'all agree' if not bad else 'new disagreements: ' + ', '.join(bad)}; findings in {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
