"""Presentation: the only module besides the CLI that knows about rich.

Colour follows the terminal (rich honours NO_COLOR and plain pipes); ``as_json`` prints machine-readable JSON
on stdout instead.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ptofuzz import dtypes
from ptofuzz.api import CaseVerdict, GenerateResult
from ptofuzz.case import CLASS_NAMES


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=1))


def generated(result: GenerateResult, *, as_json: bool = False) -> None:
    if as_json:
        _print_json({
            "op": result.op, "platform": result.platform, "out": str(result.out_dir), "seed": result.seed,
            "cases": [{"name": c.name, "path": str(c.path), "outcome": c.outcome, "files": c.files,
                       "not_exact": c.not_exact} for c in result.cases],
        })
        return
    con = _console()
    for c in result.cases:
        sizes = ", ".join(f"{f} {n}" for f, n in c.files.items())
        extra = "" if c.outcome == "ok" else f" [yellow]({c.outcome}: no golden)[/]"
        undefined = f" [dim]{c.not_exact} golden elements not exact[/]" if c.not_exact else ""
        con.print(f"[green]wrote[/] {escape(c.name)}{extra}  [dim]{escape(sizes)}[/]{undefined}")
    con.print(f"{len(result.cases)} case folder(s) for {result.op} on {result.platform} in "
              f"{escape(str(result.out_dir))} (seed {result.seed})")


def _verdict_json(v: CaseVerdict) -> dict[str, Any]:
    files = []
    for f in v.files:
        d: dict[str, Any] = {"file": f.file, "ok": f.ok}
        if f.problem:
            d["problem"] = f.problem
        if f.comparison is not None:
            d.update(checked=f.comparison.checked, mismatches=f.comparison.mismatches,
                     first=[{"index": e.index, "row": e.row, "col": e.col, "expected": hex(e.expected),
                             "actual": hex(e.actual), "class": CLASS_NAMES[e.cls]} for e in f.comparison.first])
        files.append(d)
    return {"path": str(v.path), "name": v.name, "op": v.op, "platform": v.platform, "dtype": v.dtype,
            "outcome": v.outcome, "verdict": v.verdict, "message": v.message, "files": files,
            "reproduce": v.reproduce}


def checked(verdicts: list[CaseVerdict], *, as_json: bool = False) -> None:
    if as_json:
        _print_json({"cases": [_verdict_json(v) for v in verdicts],
                     "passed": sum(v.verdict == "pass" for v in verdicts),
                     "failed": sum(v.verdict == "fail" for v in verdicts),
                     "errors": sum(v.verdict == "error" for v in verdicts)})
        return
    con = _console()
    for v in verdicts:
        if v.verdict == "error":
            con.print(f"[bold red]ERROR[/] {escape(v.name)}: {escape(v.message)}")
            continue
        files = ", ".join(f"{f.file} {f.comparison.checked} elements" for f in v.files
                          if f.comparison is not None and f.ok)
        if v.verdict == "pass":
            what = files or f"outcome {v.outcome}, no golden expected"
            con.print(f"[green]PASS[/]  {escape(v.name)}  [dim]{escape(what)}[/]")
            continue
        con.print(f"[bold red]FAIL[/]  {escape(v.name)}  [dim]({v.op} {v.platform} {v.dtype})[/]")
        if v.message:
            con.print(f"      {escape(v.message)}")
        for f in v.files:
            if f.ok:
                continue
            if f.problem:
                con.print(f"      {f.file}: {escape(f.problem)}")
                continue
            cmp = f.comparison
            assert cmp is not None
            dt = dtypes.get(f.dtype or v.dtype)
            con.print(f"      {f.file}: {cmp.mismatches} of {cmp.checked} elements differ")
            for e in cmp.first:
                want = dtypes.format_bits(e.expected, dt)
                if CLASS_NAMES[e.cls] != "exact":
                    want = f"any {CLASS_NAMES[e.cls]}"
                con.print(f"        element {e.index} (row {e.row}, col {e.col}): expected {want}, "
                          f"actual {dtypes.format_bits(e.actual, dt)}")
        con.print(f"      reproduce: {escape(v.reproduce)}")
    passed = sum(v.verdict == "pass" for v in verdicts)
    failed = sum(v.verdict == "fail" for v in verdicts)
    errors = len(verdicts) - passed - failed
    con.print(f"{passed} of {len(verdicts)} case(s) pass" + (f"; {failed} fail" if failed else "")
              + (f"; {errors} could not be read" if errors else ""))


def capabilities(rows: list[dict[str, Any]], *, as_json: bool = False) -> None:
    if as_json:
        _print_json(rows)
        return
    from rich import box

    all_dtypes = list(dtypes.DTYPES)
    table = Table(title="instruction x platform x dtype (x = accepted)", box=box.SIMPLE, pad_edge=False)
    table.add_column("op", no_wrap=True)
    table.add_column("platform", no_wrap=True)
    for d in all_dtypes:
        table.add_column(dtypes.DTYPES[d].spec_name.lower(), justify="center", no_wrap=True)
    table.add_column("pto-isa system test", no_wrap=True)
    for r in rows:
        marks = ["x" if d in r["dtypes"] else "-" for d in all_dtypes]
        n = r["canonical_cases"]
        if r["system_test"]:
            test = f"{r['suite']}: {n} cases, {r['layout']}"
        else:
            test = f"none; ptofuzz's own: {n} cases, {r['layout']}" if n else "none with case folders"
        table.add_row(r["op"], r["platform"], *marks, test)
    con = _console()
    con.width = max(con.width, 140)  # never squeeze the matrix; pipes and logs get the full rows
    con.print(table)


# ---- fuzzing ------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def progress(enabled: bool = True) -> Iterator[Callable[[Any], None]]:
    """A live one-line campaign status on stderr (only when stderr is a terminal); yields the update callback."""
    con = Console(stderr=True, highlight=False)
    if not enabled or not con.is_terminal:
        yield lambda stats: None
        return
    from rich.live import Live

    with Live(console=con, transient=True, refresh_per_second=4) as live:
        def update(stats: Any) -> None:
            left = "" if stats.time_left is None else f"  {stats.time_left:,.0f} s left"
            live.update(f"[bold]fuzzing[/]  {stats.cases:,} cases  {stats.rate:,.0f} cases/s  "
                        f"{stats.signatures} signatures ({stats.new} new){left}")
        yield update


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
        status = "[bold red]NEW[/]        " if s["new"] else "[dim]known[/]      " if s["known"] else "seen before"
        con.print(f"  {status} {s['hits']:>9,}  {escape(s['first_seen'][:18]):<18} {escape(s['signature'])}")
    for s in data["signatures"]:
        if s["new"] and s["replay"]:
            con.print(f"[bold red]new[/] {escape(s['signature'])}\n    reproduce: {escape(s['replay'])}")
    con.print(f"{data['cases']:,} cases in {data['elapsed_s']:.1f} s ({data['cases_per_s']:,.0f}/s), "
              f"{len(data['signatures'])} signature(s), {data['new']} new; seed {data['seed']} "
              f"({data['engine']} engine)")
    if data["new"] and not any(s["replay"] for s in data["signatures"]):
        con.print(f"rerun with --out DIR to save the cases; campaign: {escape(data['command'])}")


def replayed(results: list[Any], *, as_json: bool = False) -> None:
    if as_json:
        _print_json({"records": [{"path": str(r.path), "op": r.op, "verdict": r.verdict, "changes": list(r.changes),
                                  "signatures": list(r.signatures)} for r in results],
                     "changed": sum(r.verdict == "changed" for r in results)})
        return
    con = _console()
    for r in results:
        if r.verdict == "same":
            shows = f"shows {len(r.signatures)} signature(s)" if r.signatures else "all oracles agree"
            con.print(f"[green]SAME[/]     {escape(str(r.path))}  [dim]{shows}[/]")
        elif r.verdict == "error":
            con.print(f"[bold red]ERROR[/]    {escape(str(r.path))}: {escape('; '.join(r.changes))}")
        else:
            con.print(f"[bold red]CHANGED[/]  {escape(str(r.path))}")
            for c in r.changes:
                con.print(f"          {escape(c)}")
            con.print(f"          reproduce: {escape(r.reproduce)}")
    changed = sum(r.verdict == "changed" for r in results)
    con.print(f"{len(results) - changed} of {len(results)} record(s) unchanged"
              + (f"; {changed} changed" if changed else ""))


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
