"""The ``ptofuzz`` command.

``ptofuzz gen OP --platform P [--out DIR] [--seed N] [--force]`` with its output going to a file or a pipe (how a
build runs it in place of pto-isa's ``gen_data.py``) runs here without importing the CLI framework or the
terminal renderer: it parses those few options itself, calls :func:`ptofuzz.engine.generate.generate` and prints
the plain lines :mod:`ptofuzz.report.case_folders` prints off a terminal. Every other command line, and this one on a
terminal (where the report has colours), goes to :mod:`ptofuzz.cli.app`, which also owns ``--help`` and every error
about options. That short run also does without the cyclic garbage collector and the interpreter's teardown
(:func:`_leave`): together some 15 ms of a 120 ms run.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NamedTuple


class _Gen(NamedTuple):
    op: str
    platform: str
    out: str
    seed: int
    force: bool


_VALUED = {"--platform": "platform", "-p": "platform", "--out": "out", "-o": "out", "--seed": "seed"}


def canonical_gen(argv: Sequence[str]) -> _Gen | None:
    """The request when ``argv`` is ``gen`` with only an operation and the options above, else None (the CLI
    then parses it, and says what is wrong with it)."""
    if len(argv) < 2 or argv[0] != "gen":
        return None
    op: str | None = None
    given: dict[str, str] = {}
    force = False
    words = list(argv[1:])
    while words:
        word = words.pop(0)
        name, eq, inline = word.partition("=")
        if word == "--force":
            force = True
        elif name in _VALUED and ((eq and name.startswith("--")) or (not eq and words)):
            key = _VALUED[name]
            if key in given:
                return None
            given[key] = inline if eq else words.pop(0)
        elif not word.startswith("-") and op is None:
            op = word
        else:
            return None
    if op is None or "platform" not in given:
        return None
    seed = given.get("seed", "0")
    if not seed.lstrip("-").isdigit():
        return None
    return _Gen(op, given["platform"], given.get("out", "."), int(seed), force)


def _gen(request: _Gen) -> int:
    from ptofuzz.core.errors import ExitCode, one_line
    from ptofuzz.core.text import printable

    try:
        from ptofuzz.core.text import generated_lines
        from ptofuzz.engine import generate as api

        result = api.generate(request.op, request.platform, request.out, seed=request.seed, force=request.force)
        lines = generated_lines(((c.name, c.outcome, c.files, c.not_exact) for c in result.cases), result.op,
                                result.platform, str(result.out_dir), result.seed)
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - as ptofuzz.cli.app says it: a line and a code
        message, code = one_line(e)
        sys.stderr.write(f"ptofuzz: error: {printable(message)}\n")
        return int(code)
    return int(ExitCode.OK)


def _terminated(signum: int, frame: object) -> None:
    from ptofuzz.core.errors import Terminated

    raise Terminated


def main() -> None:
    import signal

    signal.signal(signal.SIGTERM, _terminated)  # a TERM unwinds like Ctrl-C: cleanups run, then exit 143
    try:
        request = canonical_gen(sys.argv[1:])
        if request is not None and not sys.stdout.isatty():
            import gc

            # a short run that ends in os._exit (see _leave): no cyclic collections (numpy's import alone
            # triggers some 30, about 5 ms); what a canonical list allocates is bounded and freed at exit
            gc.disable()
            code = _gen(request)
            _over()
            _leave(code)
        from ptofuzz.cli.app import main as cli_main

        cli_main()
    finally:
        _over()


def _leave(code: int) -> None:
    """End the process now, with ``code``, skipping the interpreter's teardown.

    Only the canonical ``gen`` does this: by then every folder is written, moved into place and closed, the
    output flushed (:func:`_over`), and nothing is registered to run at exit. The teardown (unloading numpy and
    every other module, a last garbage collection) would cost 8 to 10 ms, near a tenth of the whole run, which
    is what a build that runs ``gen`` for each system test pays in place of ``gen_data.py``'s.
    """
    import os

    os._exit(code)


def _over() -> None:
    """The command is over and has said so: what it wrote is flushed, and a Ctrl-C or TERM from here on is
    ignored (the interpreter's shutdown would otherwise die of it, turning a finished run's exit code into a
    killed one's)."""
    import contextlib
    import signal

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
