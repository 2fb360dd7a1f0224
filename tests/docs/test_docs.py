"""The documents: the generated capability matrix is current, relative links resolve, README.md stays a short
guide whose workflow blocks are plain commands (running them is a separate, slower job), and no document cites
notes that are not in the repository."""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
WORKFLOWS = ("gen", "fuzz", "ci")
#: the first words a workflow line may start with besides `ptofuzz`
SHELL_WORDS = ("cd", "mkdir", "export", "pip", "python3", "git")
#: notes that were never part of the repository: documents cite the primary sources instead
ABSENT_NOTES = ("pto-isa-conventions.md", "pto-spec-notes.md")


def documents() -> list[Path]:
    found = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "tests/README.md",
                                      "benchmarks/README.md", "corpora/README.md")]
    found += sorted((ROOT / "docs").rglob("*.md"))
    return found


def _load_matrix_script():
    spec = importlib.util.spec_from_file_location("capability_matrix", ROOT / "ci" / "capability_matrix.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_capability_matrix_is_what_ptofuzz_list_says_now():
    script = _load_matrix_script()
    page = ROOT / "docs" / "reference" / "capabilities.md"
    assert page.read_text(encoding="utf-8") == script.generate(), \
        "docs/reference/capabilities.md is out of date: run python ci/capability_matrix.py --write"


def test_capability_matrix_skips_the_cpusim_rows():
    script = _load_matrix_script()
    rows = [{"op": "TPARTADD", "platform": p, "dtypes": ["float32"], "system_test": p == "cpu", "suite": "S",
             "layout": "full-tile", "canonical_cases": 1, "notes": "a | b"} for p in ("cpu", "cpusim")]
    table = [line for line in script.render(rows).splitlines() if line.startswith("| TPARTADD")]
    assert table == ["| TPARTADD | cpu | float32 | yes | S | full-tile | 1 | a \\| b |"]


# ---- links -------------------------------------------------------------------------------------------------

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]\n]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans (their brackets are not links)."""
    return _INLINE_CODE.sub("", _FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading anchors on its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = text.strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, title in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(title)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def links(path: Path) -> list[str]:
    return [a or b for a, b in _LINK.findall(_prose(path.read_text(encoding="utf-8")))]


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc):
    assert doc.is_file(), f"{doc.relative_to(ROOT)} is missing"
    broken = []
    for target in links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists() or ROOT not in (dest, *dest.parents):
            broken.append(f"{target}: no such file in the repository")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert not broken, f"{doc.relative_to(ROOT)}: " + "; ".join(broken)


def test_slugs_follow_github():
    assert slug("CI reports: JUnit, SARIF, heartbeat") == "ci-reports-junit-sarif-heartbeat"
    assert slug("The real simulator (`cpusim`) and external targets") == \
        "the-real-simulator-cpusim-and-external-targets"
    assert slug("Adding an instruction") == "adding-an-instruction"


# ---- README.md -------------------------------------------------------------------------------------------------

def test_readme_is_at_most_200_lines():
    count = len(README.read_text(encoding="utf-8").splitlines())
    assert count <= 200, f"README.md has {count} lines; move reference material into docs/"


def workflow_blocks() -> dict[str, list[str]]:
    """name -> the command lines of README.md's `<!-- workflow:NAME -->` ... `<!-- /workflow -->` block."""
    text = README.read_text(encoding="utf-8")
    blocks = {}
    for name, body in re.findall(r"<!-- workflow:([a-z]+) -->\n(.*?)<!-- /workflow -->", text, re.S):
        fenced = re.fullmatch(r"\s*```sh\n(.*?)```\s*", body, re.S)
        assert fenced, f"workflow:{name} must hold exactly one ```sh fenced block"
        blocks[name] = [line for line in fenced.group(1).splitlines() if line.strip()]
    return blocks


def test_readme_has_the_three_workflow_blocks_of_plain_commands():
    blocks = workflow_blocks()
    assert sorted(blocks) == sorted(WORKFLOWS)
    for name, lines in blocks.items():
        assert lines, f"workflow:{name} is empty"
        for line in lines:
            first = line.split()[0]
            assert line.startswith("ptofuzz ") or first in SHELL_WORDS, \
                f"workflow:{name}: {line!r} is not a plain command (ptofuzz or {', '.join(SHELL_WORDS)})"


def test_readme_holds_the_install_commands_verbatim():
    text = README.read_text(encoding="utf-8")
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_line = next(line for line in ci_run.splitlines() if "pip install -e '.[test]'" in line)
    assert test_line.strip() in text
    assert "pip install . && ptofuzz gen tpartadd --platform a5" in text


# ---- citations ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_cites_notes_outside_the_repository(doc):
    text = doc.read_text(encoding="utf-8")
    cited = [name for name in ABSENT_NOTES if name in text or name.removesuffix(".md") + " §" in text]
    assert not cited, f"{doc.relative_to(ROOT)} cites {', '.join(cited)}, which is not in the repository"
