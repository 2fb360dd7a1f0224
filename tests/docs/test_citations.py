"""No Python file cites notes that are not in the repository: docstrings and comments name the primary source
(a pto-isa header, instruction page or system test, a pto-spec ASL file or catalog) or a page of docs/ instead."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("ptofuzz", "generators", "oracles", "tests", "ci", "fuzz", "benchmarks")
#: how a citation of the absent notes reads: either file's name, or a section of "the conventions"
ABSENT = ("pto-isa-conventions", "pto-spec-notes", "conventions §")
#: the guards themselves, which must name what they forbid: this file, and the documents' check in test_docs.py
EXEMPT = {Path(__file__).resolve(), (ROOT / "tests" / "docs" / "test_docs.py").resolve()}


def python_files() -> list[Path]:
    found = []
    for folder in FOLDERS:
        found += sorted(p for p in (ROOT / folder).rglob("*.py") if p.resolve() not in EXEMPT)
    return found


def test_the_scan_sees_the_repository():
    names = {p.relative_to(ROOT).as_posix() for p in python_files()}
    assert {"ptofuzz/engine/compare.py", "oracles/tpart.py", "tests/oracles/test_oracle_spec.py"} <= names


def test_no_python_file_cites_notes_outside_the_repository():
    hits = []
    for path in python_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(word in line for word in ABSENT):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "cites notes that are not in the repository (cite the primary source instead):\n" + \
        "\n".join(hits)
