"""Shared fixtures: a CLI runner that returns (exit code, stdout, stderr), and the pto-isa case table."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import typer.testing
from typer.testing import CliRunner

from ptofuzz.cli.app import app

DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    """Reports render the same on every terminal: no colour, fixed width."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(autouse=True)
def _malloc_untouched(monkeypatch):
    """``gen --random`` run in this process through the CLI runner leaves this process's malloc as it is (the
    real thresholds are set by a ``gen`` that owns its process; test_gen_streaming checks that in a child)."""
    from ptofuzz.engine import allocator

    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: False)


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def __repr__(self) -> str:
        return f"Result(code={self.code}, out={self.out[-2000:]!r}, err={self.err!r})"


# typer builds the click command from the app on every CliRunner.invoke, which takes longer than most commands
# run: build it once per app
typer.testing._get_command = functools.cache(typer.testing._get_command)


@pytest.fixture
def cli():
    runner = CliRunner()

    def run(*args: str) -> Result:
        r = runner.invoke(app, [str(a) for a in args])
        if r.exception and not isinstance(r.exception, SystemExit):
            raise r.exception
        return Result(r.exit_code, r.stdout, r.stderr)

    return run


@pytest.fixture(scope="session")
def st_cases() -> dict:
    """pto-isa's own case folders per (op/platform): folder name -> {file: bytes} (tests/data, from the
    pto-isa reference at 3186c381)."""
    return json.loads((DATA / "pto-isa-st-cases.json").read_text())["tests"]
