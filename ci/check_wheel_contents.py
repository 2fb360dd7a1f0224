"""Build the wheel and check it holds every module of the source tree (and its package data: the cpusim
harness, the JSON schemas).

``generators/`` and ``oracles/`` are mapped to ``ptofuzz.generators`` / ``ptofuzz.oracles`` with setuptools
``package-dir``; a subpackage missing from ``[tool.setuptools] packages`` still imports in an editable install but
is silently left out of the wheel. Run from the repository root: ``python ci/check_wheel_contents.py``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPING = {"ptofuzz": "ptofuzz", "generators": "ptofuzz/generators", "oracles": "ptofuzz/oracles"}


def source_modules() -> set[str]:
    out = set()
    for src, dest in MAPPING.items():
        files = [*(ROOT / src).rglob("*.py"), *(ROOT / src).rglob("*.cpp"), *(ROOT / src / "schemas").glob("*.json")]
        for f in files:
            out.add(f"{dest}/{f.relative_to(ROOT / src).as_posix()}")
    return out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", tmp, str(ROOT)]
        try:  # offline and fast when the environment already has setuptools
            subprocess.run([*cmd, "--no-build-isolation"], check=True, capture_output=True)
        except subprocess.CalledProcessError:
            subprocess.run(cmd, check=True)
        (wheel,) = Path(tmp).glob("ptofuzz-*.whl")
        with zipfile.ZipFile(wheel) as z:
            in_wheel = {n for n in z.namelist() if n.endswith((".py", ".cpp", ".json"))}
    missing = sorted(source_modules() - in_wheel)
    if missing:
        print("wheel is missing modules (list the subpackage in [tool.setuptools] packages):", *missing, sep="\n  ")
        return 1
    print(f"wheel holds all {len(in_wheel)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
