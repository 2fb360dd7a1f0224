"""Reports about fuzzing: the progress line and heartbeat of a campaign, its summary, and what ``replay``,
``minimize`` and ``triage`` found.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rich.console import Console

from ptofuzz.core import platforms
from ptofuzz.engine.replay import ReplayVerdict
from ptofuzz.report.terminal import _console, _export, _exporting_console, _print_json, escape

HEARTBEAT_S = 60.0  # default seconds between heartbeat lines (PTOFUZZ_HEARTBEAT)


def heartbeat_interval() -> float:
    """Seconds between heartbeat lines: ``PTOFUZZ_HEARTBEAT`` or 60."""
    import math

    from ptofuzz.core.errors import UsageError

    raw = os.environ.get("PTOFUZZ_HEARTBEAT")
    if raw is None:
        return HEARTBEAT_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 < value < 1e9:
        raise UsageError(f"PTOFUZZ_HEARTBEAT={raw!r} must be a positive number of seconds (e.g. 60)")
    return value


def _status(stats: Any) -> str:
    left = "" if stats.time_left is None else f"  {stats.time_left:,.0f} s left"
    rate = f"{stats.rate:,.1f}" if stats.rate < 10 else f"{stats.rate:,.0f}"
    return (f"{stats.cases:,} cases  {rate} cases/s  {stats.signatures} signatures "
            f"({stats.new} new){left}")


@contextlib.contextmanager
def progress(enabled: bool = True, every_batch: bool = False) -> Iterator[Callable[[Any], None]]:
    """The campaign status on stderr: a live line on a terminal (when ``enabled``); elsewhere (CI logs) a
    heartbeat line every ``PTOFUZZ_HEARTBEAT`` seconds (default 60), or after every batch with ``every_batch``
    (slow oracles: aslref takes seconds a batch). Yields the update callback."""
    import time

    con = Console(stderr=True, highlight=False)
    if not con.is_terminal:
        every = 1.0 if every_batch else heartbeat_interval()  # a batch's results come together: one line
        last = [time.monotonic()]

        def beat(stats: Any) -> None:
            now = time.monotonic()
            if now - last[0] >= every:
                last[0] = now
                print(f"ptofuzz: fuzzing  {_status(stats)}", file=sys.stderr, flush=True)

        yield beat
        return
    if not enabled:
        yield lambda stats: None
        return
    from rich.live import Live

    with Live(console=con, transient=True, refresh_per_second=4) as live:
        def update(stats: Any) -> None:
            live.update(f"[bold]fuzzing[/]  {escape(_status(stats))}")
        yield update


def _defects(data: dict[str, Any]) -> str:
    n = sum(1 for s in data["signatures"] if s.get("defect"))
    return f", {n} of a known defect" if n else ""


def defect_line(name: str) -> str:
    """A known defect's evidence and the command that shows it (ptofuzz.instructions.defects)."""
    from ptofuzz.instructions import defects

    d = defects.BY_NAME.get(name)
    return f"{d.evidence}; documented: {d.documented}; shows it: {d.reproduce}" if d else "(no longer listed)"


def campaign(data: dict[str, Any], *, as_json: bool = False) -> None:
    """A campaign's summary (``campaign.summary_json``): one row per signature, then the totals."""
    if as_json:
        _print_json(data)
        return
    con = _console()  # one line per signature, never wrapped: logs stay greppable at any width
    con.print(f"[bold]{data['op']}[/]: {', '.join(data['oracles'])}")
    if data["signatures"]:
        con.print(f"  {'status':<11} {'hits':>9}  {'first seen':<18} signature")
    for s in data["signatures"]:
        status = "[bold red]NEW[/]        " if s["new"] else "[dim]known[/]      " if s["known"] else \
            "[bold yellow]defect[/]     " if s.get("defect") else "seen before"
        con.print(f"  {status} {s['hits']:>9,}  {escape(s['first_seen'][:18]):<18} {escape(s['signature'])}")
    for s in data["signatures"]:
        if s["new"] and s["replay"]:
            con.print(f"[bold red]new[/] {escape(s['signature'])}\n    reproduce: {escape(s['replay'])}")
    for name in sorted({s["defect"] for s in data["signatures"] if s.get("defect")}):
        con.print(f"[bold yellow]defect of the code under test[/] {escape(name)}: {escape(defect_line(name))}")
    for name, n in sorted(data.get("unsupported", {}).items()):
        if name not in platforms.names():  # a model declines cases drawn for another platform by design
            con.print(f"[yellow]{n:,} of {data['cases']:,} cases {escape(name)} cannot run: compared by no pair "
                      f"with it[/]")
    if data.get("skipped"):
        con.print(f"[yellow]{data['skipped']:,} cases skipped by a real target after too many crashes or hangs in "
                  "their batch[/]")
    execs = f", {data['execs']:,} fuzzer inputs ({data['execs_per_s']:,.0f}/s)" if "execs" in data else ""
    con.print(f"{data['cases']:,} cases in {data['elapsed_s']:.1f} s ({data['cases_per_s']:,.0f}/s){execs}, "
              f"{len(data['signatures'])} signature(s), {data['new']} new{_defects(data)}; seed {data['seed']}"
              f"{_drawn(data)} ({data['engine']} engine)")
    if data["new"] and not any(s["replay"] for s in data["signatures"]):
        con.print(f"rerun with --out DIR to save the cases; campaign: {escape(data['command'])}")


def _drawn(data: dict[str, Any]) -> str:
    """", draw version N" for a campaign that drew another version than the default (absent: 1)."""
    from ptofuzz.generators.source import DRAW_VERSION, UNVERSIONED

    version = data.get("draw_version", UNVERSIONED)
    return "" if version == DRAW_VERSION else f", draw version {version}"


def replayed(results: list[Any], *, as_json: bool = False) -> None:
    if as_json:
        _print_json({"records": [{"path": str(r.path), "op": r.op, "verdict": r.verdict, "changes": list(r.changes),
                                  "signatures": list(r.signatures), "failures": list(r.failures)} for r in results],
                     "changed": sum(r.verdict is ReplayVerdict.CHANGED for r in results)})
        return
    con = _console()
    for r in results:
        if r.verdict is ReplayVerdict.SAME:
            shows = f"shows {len(r.signatures)} signature(s)" if r.signatures else "all oracles agree"
            con.print(f"[green]SAME[/]     {escape(str(r.path))}  [dim]{shows}[/]")
            for f in r.failures:  # what the crash or hang is, not only that it is still there
                con.print(f"          {escape(f)}")
        elif r.verdict is ReplayVerdict.ERROR:
            con.print(f"[bold red]ERROR[/]    {escape(str(r.path))}: {escape('; '.join(r.changes))}")
        else:
            con.print(f"[bold red]CHANGED[/]  {escape(str(r.path))}")
            for c in r.changes:
                con.print(f"          {escape(c)}")
            con.print(f"          reproduce: {escape(r.reproduce)}")
    changed = sum(r.verdict is ReplayVerdict.CHANGED for r in results)
    errors = sum(r.verdict is ReplayVerdict.ERROR for r in results)
    con.print(f"{len(results) - changed - errors} of {len(results)} record(s) unchanged"
              + (f"; {changed} changed" if changed else "") + (f"; {errors} could not be read" if errors else ""))


def minimized(result: Any, *, as_json: bool = False) -> None:
    data = {"source": str(result.source), "path": str(result.path), "signature": result.signature,
            "tiles_before": result.before, "tiles_after": result.after, "nonzero_before": result.nonzero_before,
            "nonzero_after": result.nonzero_after, "evaluations": result.evaluations}
    if as_json:
        _print_json(data)
        return
    con = _console()
    con.print(f"minimized {escape(str(result.source))} -> {escape(str(result.path))}")
    con.print(f"  signature {escape(result.signature)}")
    con.print(f"  tiles {escape(result.before)} -> {escape(result.after)}; non-zero input elements "
              f"{result.nonzero_before} -> {result.nonzero_after} ({result.evaluations} evaluations)")
    con.print(f"  reproduce: ptofuzz replay {escape(str(result.path))}")


def triaged(buckets: list[Any], fields: tuple[str, ...], *, as_json: bool = False, html: Any = None,
            svg: Any = None, skipped: Sequence[Any] = ()) -> None:
    """``ptofuzz triage``: one block per bucket, largest first (or as sorted)."""
    if as_json:
        _print_json({"key": list(fields), "skipped": [str(p) for p, _ in skipped], "buckets": [
            {"key": dict(b.key), "hits": b.hits, "known": b.known, "first_seen": b.first.first_seen,
             "smallest": str(b.smallest.path), "replay": b.replay,
             "signatures": [{"signature": i.signature.key, "hits": i.hits, "path": str(i.path),
                             "known": i.known} for i in b.items]} for b in buckets]})
    con = _exporting_console(html, svg, quiet=as_json)
    total = sum(len(b.items) for b in buckets)
    con.print(f"{total} disagreement signature(s) in {len(buckets)} bucket(s), key {','.join(fields)}"
              + (f"; {len(skipped)} record(s) could not be read" if skipped else ""))
    for _, why in skipped:
        con.print(f"    unreadable: {escape(why)}")
    for n, b in enumerate(buckets, 1):
        status = "[dim]known[/]" if b.known else "[bold red]NEW[/]"
        con.print(f"[bold][{n}][/] {status}  {escape(b.name)}  hits {b.hits:,}  signatures {len(b.items)}  "
                  f"first seen {escape(b.first.first_seen)}")
        small = b.smallest
        con.print(f"    smallest example: {escape(str(small.path))} ({escape(small.tiles)})")
        con.print(f"    replay: {escape(b.replay)}")
        for i in b.items:
            con.print(f"    {i.hits:>9,}  {escape(i.signature.key)}")
        if b.known:
            con.print(f"    [dim]why: {escape(str(b.items[0].known))}[/]")
    _export(con, html, svg)
