"""The import layering that ruff enforces (pyproject.toml, oracles/ruff.toml, generators/ruff.toml): planted
imports are checked as if they were files at the named paths, through ruff's own configuration lookup."""

from __future__ import annotations

import subprocess
import sys

import pytest

UPWARD = ["ptofuzz.cli", "ptofuzz.api", "ptofuzz.report", "ptofuzz.heatmap", "ptofuzz.campaign",
          "ptofuzz.differential", "ptofuzz.triage", "ptofuzz.replay", "ptofuzz.minimize", "ptofuzz.registry",
          "ptofuzz.instructions.tpart", "typer", "rich.console"]


def _ruff(path: str, source: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "TID",
                           "--stdin-filename", path, "-"], input=source, capture_output=True, text=True)


# each banned module imported both ways: "import a.b" and "from a import b"
STATEMENTS = [f"import {m}" for m in UPWARD] + \
    [f"from {m.rpartition('.')[0]} import {m.rpartition('.')[2]}" for m in UPWARD if "." in m]


@pytest.mark.parametrize("folder", ["oracles", "generators"])
@pytest.mark.parametrize("statement", STATEMENTS)
def test_an_upward_import_below_the_registry_fails_lint(folder, statement):
    res = _ruff(f"{folder}/planted.py", statement + "\n")
    assert res.returncode == 1 and "TID251" in res.stdout, res.stdout + res.stderr


@pytest.mark.parametrize("folder", ["oracles", "generators"])
def test_what_oracles_and_generators_may_import_passes(folder):
    src = "import numpy as np\n\nfrom ptofuzz import dtypes, platforms\nfrom ptofuzz.case import Case\n"
    res = _ruff(f"{folder}/planted.py", src)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize(("path", "banned"), [("ptofuzz/campaign.py", True), ("ptofuzz/compare.py", True),
                                              ("ptofuzz/report.py", False), ("ptofuzz/cli.py", False)])
def test_rich_and_typer_belong_to_the_presentation_and_cli_only(path, banned):
    res = _ruff(path, "import rich\nimport typer\n")
    assert (res.returncode == 1 and res.stdout.count("TID251") == 2) if banned else res.returncode == 0, res.stdout
