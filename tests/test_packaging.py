"""Packaging and start-up: the wheel holds every module; the CLI imports no numpy for --help."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ptofuzz import api

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_every_module():
    r = subprocess.run([sys.executable, str(ROOT / "ci" / "check_wheel_contents.py")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "wheel holds all" in r.stdout


def test_help_does_not_import_numpy_or_the_oracles():
    code = ("import sys\nfrom ptofuzz.cli.app import app\n"
            "try:\n    app(['--help'], prog_name='ptofuzz')\nexcept SystemExit:\n    pass\n"
            "bad = [m for m in sys.modules if m == 'numpy' or m.startswith('ptofuzz.oracles')]\n"
            "print('IMPORTED', bad)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "IMPORTED []" in r.stdout, r.stdout + r.stderr
    assert "gen" in r.stdout and "check" in r.stdout


def test_readme_capability_matrix_matches_the_registry():
    text = (ROOT / "README.md").read_text()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| (T[A-Z0-9]+) \| (\w+) \| (.*) \|$", line)
        if m:
            cells = [c.strip() for c in m.group(3).split("|")]
            rows[(m.group(1), m.group(2))] = cells
    order = ["float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
    # the cpusim rows say what this machine's simulator build holds: not part of the README's matrix
    caps = [r for r in api.capabilities() if r["platform"] != "cpusim"]
    assert len(rows) == len(caps)
    for r in caps:
        cells = rows[(r["op"], r["platform"])]
        assert [d for d, c in zip(order, cells) if c == "✓"] == sorted(r["dtypes"], key=order.index)
        assert f"({r['canonical_cases']} cases" in cells[-1] or not r["canonical_cases"]

