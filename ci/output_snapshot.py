"""Hash every byte ptofuzz writes for a fixed set of commands, so a refactor can show its output is unchanged.

    python ci/output_snapshot.py OUT.txt [--random 40] [--jobs 2]

Through the installed `ptofuzz` command only (no import of the package's modules, whose layout is what a
refactor changes): for every instruction x platform of `ptofuzz list --json`, the canonical cases, seeded random
cases (plain, special-heavy, undefined kept, float16 where the platform has it) and, on spec, the bundle forms;
then a fixed-seed campaign per instruction (every model oracle, and the bundle executor where it runs). Each
written file becomes one line `sha256  relative/path`; a campaign.json loses only its timings. Two runs of two
trees are then compared with `diff`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TIMINGS = ("elapsed_s", "cases_per_s")


def _run(args: list[str], out: Path) -> None:
    """Run one command into ``out``; a refusal (exit 2, say no bundle form) or an internal error (exit 3) is
    output too: its message, as ``exit-N.txt``."""
    done = subprocess.run(["ptofuzz", *args, "--out", str(out)], capture_output=True, text=True, check=False)
    if done.returncode in (2, 3):
        out.mkdir(parents=True, exist_ok=True)
        (out / f"exit-{done.returncode}.txt").write_text(done.stderr.replace(str(out), "OUT"))
    elif done.returncode not in (0, 1):  # fuzz exits 1 on a new signature: that is output too
        raise SystemExit(f"ptofuzz {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")


def _commands(matrix: list[dict], random: int) -> list[tuple[str, list[str]]]:
    jobs: list[tuple[str, list[str]]] = []
    ops = sorted({row["op"] for row in matrix})
    for row in matrix:
        if row["platform"] == "cpusim":  # the real simulator is no platform of gen
            continue
        op, platform = row["op"].lower(), row["platform"]
        base = f"gen/{op}/{platform}"
        jobs.append((f"{base}/canonical", ["gen", op, "--platform", platform]))
        jobs.append((f"{base}/random", ["gen", op, "--platform", platform, "--random", str(random), "--seed", "7"]))
        jobs.append((f"{base}/special", ["gen", op, "--platform", platform, "--random", str(random // 2),
                                         "--seed", "3", "--special-rate", "0.5"]))
        jobs.append((f"{base}/undefined", ["gen", op, "--platform", platform, "--random", str(random // 2),
                                           "--seed", "5", "--allow-undefined", "--special-rate", "0.3"]))
        if "float16" in row["dtypes"]:
            jobs.append((f"{base}/half", ["gen", op, "--platform", platform, "--random", str(random // 2),
                                          "--seed", "11", "--dtype", "float16"]))
        if platform == "spec":
            jobs.append((f"{base}/bundle", ["gen", op, "--platform", platform, "--bundle"]))
            jobs.append((f"{base}/bundle-random", ["gen", op, "--platform", platform, "--bundle",
                                                   "--random", str(random // 2), "--seed", "13"]))
    sim = os.environ.get("PTO_ISA_DIR")
    simulated = {row["op"] for row in matrix if row["platform"] == "cpusim"}
    for op in ops:
        low = op.lower()
        jobs.append((f"fuzz/{low}", ["fuzz", low, "--runs", "20000", "--seed", "1"]))
        jobs.append((f"fuzz/{low}-special", ["fuzz", low, "--runs", "20000", "--seed", "2", "--special-rate", "0.4"]))
        jobs.append((f"fuzz/{low}-jobs2", ["fuzz", low, "--runs", "20000", "--seed", "1", "--jobs", "2"]))
        cpu_models = [row for row in matrix if row["op"] == op and row["platform"] == "cpu"]
        if cpu_models:  # an external target: a command that copies the cpu golden (it agrees with cpu)
            jobs.append((f"fuzz/{low}-target", ["fuzz", low, "--oracles", "cpu", "--runs", "40", "--batch", "8",
                                                "--seed", "3", "--target", "cp {case}/golden.bin {case}/output.bin"]))
        if sim and op in simulated:  # the real simulator (PTO_ISA_DIR): its findings and their provenance
            other = "spec" if any(r["op"] == op and r["platform"] == "spec" for r in matrix) else "a5"
            jobs.append((f"fuzz/{low}-cpusim", ["fuzz", low, "--oracles", f"{other},cpu,cpusim", "--runs", "5000",
                                                "--seed", "4", "--special-rate", "0.3"]))
    return jobs


def _digest(root: Path) -> list[str]:
    lines = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "campaign.json":
            doc = json.loads(data)
            for key in TIMINGS:
                doc.pop(key, None)
            data = json.dumps(doc, sort_keys=True).encode()
        lines.append(f"{hashlib.sha256(data).hexdigest()}  {path.relative_to(root)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--random", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ns = parser.parse_args()
    listing = subprocess.run(["ptofuzz", "list", "--json"], capture_output=True, text=True, check=True)
    matrix = json.loads(listing.stdout)
    with tempfile.TemporaryDirectory(prefix="ptofuzz-snapshot-") as tmp:
        root = Path(tmp)
        jobs = _commands(matrix, ns.random)

        def one(job: tuple[str, list[str]]) -> None:
            name, args = job
            _run(args, root / name)

        with ThreadPoolExecutor(ns.jobs) as pool:
            list(pool.map(one, jobs))
        lines = _digest(root)
    ns.out.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} files from {len(jobs)} commands -> {ns.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
