#!/usr/bin/env python
"""The real simulator's campaign table: for each instruction and cpu dtype, a ``spec,cpu,cpusim`` campaign and a
sanitizer campaign (``cpu,cpusim --sanitize address,undefined``), with every signature classed.

    PTO_ISA_DIR=... python ci/sim_campaigns.py tadd tsub [--runs 20000] [--sanitizer-runs 20000]
        [--sanitizer-cxx clang++-19] [--with-clang] [--markdown F]

Each campaign is a ``ptofuzz fuzz ... --json`` process (the command in the table reproduces it). A signature is
classed as ``documented`` (a documented difference: the text says which), ``defect`` (a named defect of the code
under test, ``ptofuzz list`` shows it) or ``NEW`` (unexplained: a model bug to fix or a simulator finding to
name). Exit status 1 when any signature is NEW, or a campaign failed to run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path


def _campaign(op: str, dtype: str, oracles: str, runs: int, extra: list[str], cxx: str | None
              ) -> tuple[str, dict | None, str]:
    cmd = ["ptofuzz", "fuzz", op, "--oracles", oracles, "--dtype", dtype, "--runs", str(runs), "--seed", "1",
           *extra]
    env = {**os.environ, **({"CXX": cxx} if cxx else {})}
    out = subprocess.run([sys.executable, "-m", "ptofuzz", *cmd[1:], "--json"], capture_output=True, text=True,
                         check=False, env=env)
    line = ("CXX=" + cxx + " " if cxx else "") + " ".join(cmd)
    try:
        return line, json.loads(out.stdout), ""
    except ValueError:
        return line, None, (out.stderr.strip().splitlines() or ["no output"])[-1]


def _bf16_native(op: str, cxx: str | None, sanitize: tuple[str, ...]) -> bool:
    """Whether the cached build of ``op`` the campaign used has a native bfloat16_t (else cpusim ran no bf16
    case)."""
    from ptofuzz.backends.cpusim import build

    found = build.lookup(build.Settings(cxx=cxx, ops=(op,), sanitize=sanitize))
    return bool(found and found.manifest.get("bfloat16_native"))


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
    ap.add_argument("--sanitizer-cxx", default=None, help="the compiler of the sanitizer campaigns (CXX)")
    ap.add_argument("--oracles", default=None,
                    help="the oracles of both campaigns instead of spec,cpu,cpusim and cpu,cpusim (a5,cpusim: a "
                         "form the pages put on A5 only, which the simulator simulates)")
    ap.add_argument("--fuzz-args", default="", help="more options of every campaign (e.g. '--to float8_e4m3')")
    ap.add_argument("--with-clang", action="store_true",
                    help="both campaigns run the clang++ build too (cpusim-clang beside cpusim): four builds, g++ "
                         "and clang, plain and sanitized, and the two builds compared with each other")
    args = ap.parse_args(argv)
    from ptofuzz.backends.cpusim import build
    from ptofuzz.instructions import registry

    clang = ",cpusim-clang" if args.with_clang else ""
    first, second = (args.oracles + clang, args.oracles + clang) if args.oracles else \
        (f"spec,cpu,cpusim{clang}", f"cpu,cpusim{clang}")
    more = args.fuzz_args.split()
    lines = [f"| instruction | dtype | {first} ({args.runs:,} cases) | {second} under ASan+UBSan "
             f"({args.sanitizer_runs:,} cases{', ' + args.sanitizer_cxx if args.sanitizer_cxx else ''}) |",
             "|---|---|---|---|"]
    reasons: dict[str, str] = {}
    bad = 0
    for op in args.ops:
        inst = registry.get(op)
        device = build.DEVICE_DTYPES.get(inst.name, ()) if args.oracles else ()  # a device form's sources
        for dtype in (*inst.platforms["cpu"].dtypes, *device):
            cells = []
            plain = first if "spec" in inst.platforms or args.oracles else second  # pto-spec has no TLRELU
            for oracles, runs, extra, cxx in (
                    (plain, args.runs, more, None),
                    (second, args.sanitizer_runs, ["--sanitize", "address,undefined", *more], args.sanitizer_cxx)):
                cmd, summary, why = _campaign(op.lower(), dtype, oracles, runs, extra, cxx)
                if summary is None:
                    bad += 1
                    cells.append(f"did not run: {why} (`{cmd}`)")
                    continue
                rows = _classes(summary)
                bad += sum(1 for r in rows if r[0] == "NEW")
                for cls, _, _, text in rows:
                    if cls != "NEW" and text:
                        reasons.setdefault(text, f"R{len(reasons) + 1}")
                groups: dict[str, list[str]] = {}
                for cls, sig, hits, text in rows:
                    key = f"{cls} {reasons[text]}" if text in reasons else cls
                    parts = sig.split("/")
                    groups.setdefault(key, []).append(f"`{'/'.join(parts[2:])}` x{hits:,}")
                cell = "; ".join(f"{k}: {', '.join(v)}" for k, v in groups.items()) or "none"
                san = ("address", "undefined") if "--sanitize" in extra else ()
                if dtype == "bfloat16" and not _bf16_native(inst.name, cxx, san):
                    cell = f"cpusim ran none (cpusim-bf16-placeholder); {cell}"
                skipped = summary.get("skipped", 0)
                if skipped:
                    cell += f" ({skipped:,} cases skipped after 8 crashes in their batch)"
                cells.append(cell)
            lines.append(f"| {inst.name} | {dtype} | {cells[0]} | {cells[1]} |")
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
