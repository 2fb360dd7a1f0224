"""pytest plugin (entry point ``pytest11``): case folders and case records as pytest test items.

Opt in per run or per project::

    pytest --ptofuzz-replay corpora/ --ptofuzz-replay findings/    # every record, through `ptofuzz replay`
    pytest --ptofuzz-check build/                                   # every case folder, through `ptofuzz check`

    [tool.pytest.ini_options]
    ptofuzz_replay = ["corpora"]
    ptofuzz_check = ["golden/"]

Each record or case folder becomes one item named after its path, so ``-k``, ``--junitxml`` and pytest-xdist
work on them as on any test. A failing item reports what changed (or which files differ) and the command
that reproduces it. Nothing is collected unless an option or ini setting names a path.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ptofuzz", "ptofuzz case folders and records as test items")
    group.addoption("--ptofuzz-replay", action="append", default=[], metavar="PATH",
                    help="Replay every ptofuzz record (finding folder or corpus .json) under PATH as a test item.")
    group.addoption("--ptofuzz-check", action="append", default=[], metavar="PATH",
                    help="Check every ptofuzz / pto-isa case folder under PATH as a test item.")
    group.addoption("--ptofuzz-platform", default=None, metavar="P",
                    help="Layout of case folders without ptofuzz.json (as `ptofuzz check --platform`).")
    parser.addini("ptofuzz_replay", "paths whose ptofuzz records are replayed as test items", type="paths",
                  default=[])
    parser.addini("ptofuzz_check", "paths whose case folders are checked as test items", type="paths", default=[])


class PtofuzzFailure(Exception):
    """What a record or case folder showed, with the command that reproduces it."""


class _Item(pytest.Item):
    """One record (``replay``) or case folder (``check``)."""

    def __init__(self, *, target: Path, kind: str, platform: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.target, self.kind, self.platform = target, kind, platform

    def runtest(self) -> None:
        if self.kind == "replay":
            from ptofuzz.engine.replay import ReplayVerdict, replay

            (res,) = replay([self.target])
            if res.verdict is not ReplayVerdict.SAME:
                raise PtofuzzFailure(f"{res.verdict}: " + "; ".join(res.changes) + f"\nreproduce: {res.reproduce}")
        else:
            from ptofuzz import api
            from ptofuzz.engine.compare import Verdict

            (v,) = api.check([self.target], self.platform)
            if v.verdict is not Verdict.PASS:
                bad = "; ".join(f"{f.file}: {_why(f)}" for f in v.files if not f.ok)
                why = "; ".join(x for x in (v.message, bad) if x)
                flag = f" --platform {self.platform}" if self.platform else ""
                raise PtofuzzFailure(f"{v.verdict}: {why}\nreproduce: ptofuzz check {self.target}{flag}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, PtofuzzFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return f"ptofuzz-{self.kind}", None, f"ptofuzz {self.kind} {self.target}"


def _why(f: Any) -> str:
    if f.problem or f.comparison is None:
        return str(f.problem)
    return f"{f.comparison.mismatches} of {f.comparison.checked} elements differ"


def _roots(config: pytest.Config, option: str, ini: str) -> list[Path]:
    given = [Path(p) for p in config.getoption(option)]
    return given or [Path(p) for p in config.getini(ini)]


def _name(path: Path, root: Path) -> str:
    """The item's name: its path under the root, with control characters shown as ``\\xNN`` (a folder name's
    escape codes must not drive the terminal that shows the test's name)."""
    from ptofuzz.core.text import printable

    rel = path.relative_to(root) if path.is_relative_to(root) else path
    return printable(f"{root.name}/{rel.as_posix()}" if str(rel) != "." else root.name)


def _records(roots: Iterable[Path]) -> list[tuple[Path, Path]]:
    from ptofuzz.io import records

    out: list[tuple[Path, Path]] = []
    for root in roots:
        out.extend((root, path.parent if path.name == records.RECORD else path) for path in records.discover([root]))
    return out


def _case_folders(roots: Iterable[Path]) -> list[tuple[Path, Path]]:
    from ptofuzz.io import casefolder

    return [(root, folder) for root in roots for folder in casefolder.discover([root])]


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselect: they apply to these items as to any other
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    replay_roots = _roots(config, "--ptofuzz-replay", "ptofuzz_replay")
    check_roots = _roots(config, "--ptofuzz-check", "ptofuzz_check")
    if not replay_roots and not check_roots:
        return
    from ptofuzz.core.errors import CaseFolderError, UsageError

    try:
        found = [("replay", r, p) for r, p in _records(replay_roots)] + \
                [("check", r, p) for r, p in _case_folders(check_roots)]
    except (UsageError, CaseFolderError) as e:
        raise pytest.UsageError(f"ptofuzz: {e}") from None
    platform = config.getoption("--ptofuzz-platform")
    for kind, root, path in found:
        name = _name(path, root)
        items.append(_Item.from_parent(session, name=name, nodeid=f"ptofuzz-{kind}::{name}", target=path,
                                       kind=kind, platform=platform))
