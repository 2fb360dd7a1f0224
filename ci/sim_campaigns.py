#!/usr/bin/env python
"""The real simulator's campaign table: for each instruction and cpu dtype, a ``spec,cpu,cpusim`` campaign and a
sanitizer campaign (``cpu,cpusim --sanitize address,undefined``), with every signature classed.

    PTO_ISA_DIR=... python ci/sim_campaigns.py tadd tsub [--runs 20000] [--sanitizer-runs 20000] [--markdown F]

Each campaign is a ``ptofuzz fuzz ... --json`` process (the command in the table reproduces it). A signature is
classed as ``documented`` (a documented difference: the text says which), ``defect`` (a named defect of the code
under test, ``ptofuzz list`` shows it) or ``NEW`` (unexplained: a model bug to fix or a simulator finding to
name). Exit status 1 when any signature is NEW, or a campaign failed to run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path


def _campaign(op: str, dtype: str, oracles: str, runs: int, extra: list[str]) -> tuple[str, dict | None, str]:
    cmd = ["ptofuzz", "fuzz", op, "--oracles", oracles, "--dtype", dtype, "--runs", str(runs), "--seed", "1",
           *extra]
    out = subprocess.run([sys.executable, "-m", "ptofuzz", *cmd[1:], "--json"], capture_output=True, text=True,
                         check=False)
    line = " ".join(cmd)
    try:
        return line, json.loads(out.stdout), ""
    except ValueError:
        return line, None, (out.stderr.strip().splitlines() or ["no output"])[-1]


def _classes(summary: dict) -> list[tuple[str, str, int, str]]:
    rows = []
    for s in summary.get("signatures", []):
        if s.get("defect"):
            rows.append(("defect", s["signature"], s["hits"], str(s["defect"])))
        elif s.get("known"):
            rows.append(("documented", s["signature"], s["hits"], s["known"]))
        else:
            rows.append(("NEW", s["signature"], s["hits"], ""))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--runs", type=int, default=20_000)
    ap.add_argument("--sanitizer-runs", type=int, default=20_000)
    ap.add_argument("--markdown", type=Path, default=None)
    args = ap.parse_args(argv)
    from ptofuzz.instructions import registry

    lines = ["| instruction | dtype | campaign | cases | signatures (class: signature, hits) |",
             "|---|---|---|---|---|"]
    reasons: dict[str, str] = {}
    bad = 0
    for op in args.ops:
        inst = registry.get(op)
        for dtype in inst.platforms["cpu"].dtypes:
            for label, oracles, runs, extra in (
                    ("spec,cpu,cpusim", "spec,cpu,cpusim", args.runs, []),
                    ("sanitizer", "cpu,cpusim", args.sanitizer_runs, ["--sanitize", "address,undefined"])):
                cmd, summary, why = _campaign(op.lower(), dtype, oracles, runs, extra)
                if summary is None:
                    bad += 1
                    lines.append(f"| {inst.name} | {dtype} | {label} | - | did not run: {why} (`{cmd}`) |")
                    continue
                rows = _classes(summary)
                bad += sum(1 for r in rows if r[0] == "NEW")
                for cls, _, _, text in rows:
                    if cls != "NEW" and text:
                        reasons.setdefault(text, f"R{len(reasons) + 1}")
                shown = "; ".join(f"{cls}{' ' + reasons[text] if text in reasons else ''}: `{sig}` x{hits}"
                                  for cls, sig, hits, text in rows) or "none"
                skipped = summary.get("skipped", 0)
                cases = f"{summary['cases']:,}" + (f" ({skipped:,} skipped)" if skipped else "")
                lines.append(f"| {inst.name} | {dtype} | {label} | {cases} | {shown} |")
                print(lines[-1], flush=True)
    lines.append("")
    lines += [f"- {key}: {text}" for text, key in reasons.items()]
    text = "\n".join(lines) + "\n"
    if args.markdown is not None:
        args.markdown.write_text(text)
    else:
        print(text)
    print(f"{bad} unexplained signature(s) or failed campaign(s)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
