"""README.md's three workflows, run verbatim (each line as written, in an empty folder, with this Python's
ptofuzz on PATH). ``slow``: they run campaigns of hundreds of thousands of cases; the simulator's lines need
PTO_ISA_DIR and skip the block with the reason where it is unset."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- workflow:(\w+) -->\n```sh\n(.*?)```\n<!-- /workflow -->", re.S)
EXPECTED_EXIT = {"ptofuzz diff": 1}  # diff of a saved disagreement shows it and exits 1, as the README says


def workflows() -> dict[str, list[str]]:
    return {name: [ln for ln in body.splitlines() if ln.strip()] for name, body in
            BLOCK.findall((ROOT / "README.md").read_text())}


def test_the_readme_has_the_three_workflows():
    assert list(workflows()) == ["gen", "fuzz", "ci"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gen", "fuzz", "ci"])
def test_a_readme_workflow_runs_verbatim(name, tmp_path):
    lines = workflows()[name]
    if any("cpusim" in ln or "sim build" in ln for ln in lines) and not os.environ.get("PTO_ISA_DIR"):
        pytest.skip("PTO_ISA_DIR is unset: the workflow's simulator lines need a pto-isa tree")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "NO_COLOR": "1"}
    for line in lines:
        argv = shlex.split(line)
        if argv[0] == "python3":  # the README's python3 is the one ptofuzz is installed in
            argv[0] = sys.executable
        want = next((code for prefix, code in EXPECTED_EXIT.items() if line.startswith(prefix)), 0)
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == want, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
