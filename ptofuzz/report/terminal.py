"""The terminal itself: a rich console that never wraps, escaping of untrusted text, JSON output, and the HTML
and SVG exports of a report (which refuse to replace a file that is not an earlier report).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape as _markup_escape

from ptofuzz.core.atomic import write_file


def escape(text: str) -> str:
    """Text from outside (names, paths, messages) for the console: rich markup escaped and control characters
    (escape sequences, line breaks) shown as ``\\xNN``, so nothing a folder name holds can drive the terminal."""
    from ptofuzz.core.text import printable

    return _markup_escape(printable(text))


class _Console(Console):
    """A console whose reader went away (``| head``) ends the process like SIGPIPE would (exit 141), not with
    exit 1, which means "mismatch" here."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(141)


def _console() -> Console:
    return _Console(highlight=False, soft_wrap=True)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=1))


def _exporting_console(html: Any, svg: Any, quiet: bool = False) -> Console:
    """The report console. When an HTML or SVG export is asked for it also records what it prints, at a width
    no report line exceeds (exports are never cropped); ``quiet`` (with --json) only records."""
    record = html is not None or svg is not None
    if quiet:
        import io

        return Console(file=io.StringIO(), highlight=False, soft_wrap=True, record=record, width=400,
                       color_system="truecolor")
    con = _Console(highlight=False, soft_wrap=True, record=record)
    if record:
        con.width = max(con.width, 400)
    return con


def _export(con: Console, html: Any, svg: Any) -> None:
    """Write the recorded report as an offline HTML page and/or SVG (atomically)."""
    from pathlib import Path

    renders: tuple[tuple[Any, Callable[[], str]], ...] = (
        (html, lambda: _html(con)), (svg, lambda: _svg(con)))
    for path, render in renders:
        if path is not None:
            write_file(Path(path), render())


HTML_MARK = '<meta name="generator" content="ptofuzz">'  # in every HTML report: what --html may replace
SVG_MARK = "<!-- ptofuzz report -->"  # likewise in every SVG report


def _html(con: Console) -> str:
    """The recorded report as an offline HTML page, marked as ptofuzz's."""
    page = con.export_html(inline_styles=True, clear=False)
    return page.replace("<head>", f"<head>\n{HTML_MARK}", 1)


def _svg(con: Console) -> str:
    """The recorded report as SVG, as wide as its longest line (no cropping)."""
    import re

    text = con.export_text(clear=False)
    width = max([len(line) for line in text.splitlines()] + [20])
    saved = con.width
    con.width = width + 2
    try:
        svg = con.export_svg(title="ptofuzz", clear=False)
    finally:
        con.width = saved
    svg = re.sub(r"@font-face\s*\{[^}]*\}", "", svg)  # offline: the local monospace font, no CDN
    return re.sub(r"(<svg[^>]*>)", lambda m: m.group(1) + SVG_MARK, svg, count=1)


def check_export_path(path: Any, flag: str) -> None:
    """Refuse an export path that cannot be a file (empty, a folder, in a missing folder) before any work."""
    from pathlib import Path

    from ptofuzz.core.errors import UsageError

    if path is None:
        return
    p = Path(path)
    if not str(path) or p.name in ("", ".", "..") or p.is_dir():
        raise UsageError(f"{flag} {str(path)!r} is no file name; give e.g. {flag} report.{flag.strip('-')}")
    if not p.parent.is_dir():
        raise UsageError(f"{flag} {str(path)!r}: folder {str(p.parent)!r} does not exist")
    if p.exists() and not p.is_file():
        raise UsageError(f"{flag} {str(path)!r} is not a regular file; give a file name")
    if flag in _REPORT_MARKS and p.is_file() and p.stat().st_size and not _looks_like_report(p, flag):
        raise UsageError(f"{flag} {str(path)!r} exists and is no {flag.strip('-')} report; ptofuzz overwrites only "
                         "its own reports: choose another path (or remove that file)")


#: what every report of ptofuzz's holds near its start, by flag: only a file holding all of its marks is an earlier
#: report ptofuzz may replace (a page, a log or a golden that merely has the format is refused)
_REPORT_MARKS = {"--junit": (b'<testsuites name="ptofuzz"',), "--sarif": (b'"runs"', b'"name": "ptofuzz"'),
                 "--html": (HTML_MARK.encode(),), "--svg": (SVG_MARK.encode(),)}


def _looks_like_report(path: Any, flag: str) -> bool:
    """Whether an existing file is ptofuzz's own report of ``flag``'s kind (an earlier run's), which may be
    replaced: anything else given by mistake is refused instead of overwritten."""
    with open(path, "rb") as f:
        head = f.read(4096)
    return all(mark in head for mark in _REPORT_MARKS.get(flag, ()))
