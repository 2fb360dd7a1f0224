"""Run mypy over the installed layout of the package: ``ptofuzz`` with ``generators/`` and ``oracles/`` in place as
``ptofuzz.generators`` / ``ptofuzz.oracles``.

setuptools maps those two folders with ``package-dir``; mypy cannot follow such a mapping (nor the import hook of
an editable install), so this script lays the package out as a wheel would, as a tree of symbolic links in a
temporary folder, runs ``mypy`` there with the repository's configuration, and reports paths as they are in the
repository (``oracles/tpart.py``, not ``ptofuzz/oracles/tpart.py``). Exit code: mypy's. Run from anywhere:
``python ci/typecheck.py`` (extra arguments go to mypy).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED = {"generators": "generators", "oracles": "oracles"}  # ptofuzz/<name> -> repository folder


def link_tree(dest: Path) -> Path:
    package = dest / "ptofuzz"
    package.mkdir()
    for entry in (ROOT / "ptofuzz").iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, package / entry.name)
    for name, folder in MAPPED.items():
        os.symlink(ROOT / folder, package / name)
    return package


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="ptofuzz-mypy-") as tmp:
        link_tree(Path(tmp))
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(ROOT / ".mypy_cache"), *argv, "ptofuzz"]
        res = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=False)
    out = res.stdout + res.stderr
    for name, folder in MAPPED.items():
        out = out.replace(f"ptofuzz/{name}/", f"{folder}/")
    sys.stdout.write(out)
    return res.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
