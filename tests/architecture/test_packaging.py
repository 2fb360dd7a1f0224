"""Packaging and start-up: the wheel holds every module; the CLI imports no numpy for --help."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
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
