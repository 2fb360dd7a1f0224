"""Presentation: the only module besides the CLI that knows about rich.

Colour follows the terminal (rich honours NO_COLOR and plain pipes); ``as_json`` prints machine-readable JSON
on stdout instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape as _markup_escape
from rich.table import Table

from ptofuzz.core import dtypes
from ptofuzz.core.atomic import write_file
from ptofuzz.core.case import CLASS_NAMES
from ptofuzz.engine.compare import Verdict
from ptofuzz.engine.generate import GeneratedCase, GenerateResult
from ptofuzz.engine.replay import ReplayVerdict
from ptofuzz.engine.verdicts import CaseVerdict, failure_summary


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


def generated(result: GenerateResult, *, as_json: bool = False, listed: bool = False) -> None:
    """``gen``'s report: a line per folder (unless :func:`generating` printed them as they landed: ``listed``)
    and the summary, or the JSON document."""
    if as_json:
        _print_json({
            "op": result.op, "platform": result.platform, "out": str(result.out_dir), "seed": result.seed,
            "cases": [{"name": c.name, "path": str(c.path), "outcome": c.outcome, "files": c.files,
                       "not_exact": c.not_exact} for c in result.cases],
        })
        return
    from ptofuzz.core.text import generated_summary

    con = _console()
    if not listed:
        for c in result.cases:
            _generated_line(con, c)
    summary = generated_summary(result.count, result.op, result.platform, str(result.out_dir), result.seed)
    if con.is_terminal:
        con.print(escape(summary))
    else:  # plain text: the same lines the fast path of `ptofuzz gen` prints (ptofuzz.entry)
        sys.stdout.write(summary + "\n")


def _generated_line(con: Console, c: GeneratedCase) -> None:
    from ptofuzz.core.text import generated_line, generated_parts

    if not con.is_terminal:
        sys.stdout.write(generated_line(c.name, c.outcome, c.files, c.not_exact) + "\n")
        return
    name, note, sizes, count = (_markup_escape(part) for part in generated_parts(c.name, c.outcome, c.files,
                                                                                   c.not_exact))
    con.print(f"[green]wrote[/] {name}[yellow]{note}[/]  [dim]{sizes}[/][dim]{count}[/]")


LISTED_FOLDERS = 100  # beyond this many folders gen prints its summary alone (--verbose: every folder's line)


@contextlib.contextmanager
def generating(*, listed: bool) -> Iterator[Callable[[GeneratedCase, int, int], None]]:
    """``gen``'s live report; yields the ``on_case`` callback of :func:`ptofuzz.api.generate`. Each folder's
    line as it lands (when ``listed``); on a terminal, after a second of work, a progress bar on stderr (cases,
    rate, time left); elsewhere (CI logs) a heartbeat line on stderr every ``PTOFUZZ_HEARTBEAT`` seconds."""
    import time

    con = _console()
    err = Console(stderr=True, highlight=False)
    start = time.monotonic()
    every = heartbeat_interval()
    last = [start]
    bar: Any = None
    task: Any = None

    def on_case(info: GeneratedCase, done: int, total: int) -> None:
        nonlocal bar, task
        if listed:
            _generated_line(con, info)
        now = time.monotonic()
        if err.is_terminal:
            if bar is None and now - start >= 1.0:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

                bar = Progress(TextColumn("gen"), BarColumn(), MofNCompleteColumn(),
                               TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), console=err, transient=True)
                bar.start()
                task = bar.add_task("gen", total=total, rate="")
            if bar is not None:
                bar.update(task, completed=done, rate=f"{done / max(now - start, 1e-9):,.0f} folders/s")
        elif now - last[0] >= every:
            last[0] = now
            rate = done / max(now - start, 1e-9)
            left = f", about {(total - done) / rate:,.0f} s left" if rate > 0 and total > done else ""
            print(f"ptofuzz: gen  {done:,} of {total:,} case folders  {rate:,.0f}/s{left}", file=sys.stderr,
                  flush=True)

    try:
        yield on_case
    finally:
        if bar is not None:
            bar.stop()


def _verdict_json(v: CaseVerdict) -> dict[str, Any]:
    files = []
    for f in v.files:
        d: dict[str, Any] = {"file": f.file, "ok": f.ok}
        if f.problem:
            d["problem"] = f.problem
        if f.comparison is not None:
            d.update(dtype=f.dtype, shape=list(f.shape), valid=list(f.valid), **comparison_json(f.comparison))
        files.append(d)
    return {"path": str(v.path), "name": v.name, "op": v.op, "platform": v.platform, "dtype": v.dtype,
            "outcome": v.outcome, "verdict": v.verdict, "message": v.message, "files": files,
            "reproduce": v.reproduce}


def checked(verdicts: list[CaseVerdict], *, as_json: bool = False, html: Any = None, svg: Any = None) -> None:
    if as_json:
        _print_json({"cases": [_verdict_json(v) for v in verdicts],
                     "passed": sum(v.verdict is Verdict.PASS for v in verdicts),
                     "failed": sum(v.verdict is Verdict.FAIL for v in verdicts),
                     "errors": sum(v.verdict is Verdict.ERROR for v in verdicts)})
    con = _exporting_console(html, svg, quiet=as_json)
    for v in verdicts:
        if v.verdict is Verdict.ERROR:
            con.print(f"[bold red]ERROR[/] {escape(v.name)}: {escape(v.message)}")
            continue
        files = ", ".join(f"{f.file} {f.comparison.checked} elements" for f in v.files
                          if f.comparison is not None and f.ok)
        if v.verdict is Verdict.PASS:
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
            comparison_lines(con, cmp, dtypes.get(f.dtype or v.dtype), f.shape, f.valid, f"      {f.file}")
        con.print(f"      reproduce: {escape(v.reproduce)}")
    passed = sum(v.verdict is Verdict.PASS for v in verdicts)
    failed = sum(v.verdict is Verdict.FAIL for v in verdicts)
    errors = len(verdicts) - passed - failed
    con.print(f"{passed} of {len(verdicts)} case(s) pass" + (f"; {failed} fail" if failed else "")
              + (f"; {errors} could not be read" if errors else ""))
    _export(con, html, svg)


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
        if r["platform"] == "cpusim":
            test = f"real simulator: {r['short']}"
        elif r.get("unmodelled"):
            test = f"no model: {r['notes']}"
        elif r["system_test"]:
            test = f"{r['suite']}: {n} cases, {r['layout']}"
        else:
            test = f"none; ptofuzz's own: {n} cases, {r['layout']}" if n else "none with case folders"
        table.add_row(r["op"], r["platform"], *marks, test)
    con = _console()
    con.width = max(con.width, 140)  # never squeeze the matrix; pipes and logs get the full rows
    con.print(table)


# ---- the real simulator and external targets -------------------------------------------------------------------

def sim_built(build: Any, *, as_json: bool = False) -> None:
    """What ``ptofuzz sim build`` built (or found in the cache)."""
    m = build.manifest
    if as_json:
        _print_json({**m, "folder": str(build.folder), "cached": build.cached, "seconds": round(build.seconds, 2)})
        return
    con = _console()
    how = "found in the cache" if build.cached else "built"
    con.print(f"cpusim harness {how} in {build.seconds:.1f} s: {escape(str(build.executable))}")
    con.print(f"  pto-isa   {escape(m['pto_isa'])} (commit {escape(m['commit'])})")
    con.print(f"  compiler  {escape(m['compiler'])}")
    con.print(f"  flags     {escape(' '.join(m['flags']))}")
    if m.get("reduceidx_skipped"):
        con.print("  [yellow]note[/]      this compiler rejects cpu/TReduceIdx.hpp (static_assert(false) in a primary "
                  "template, accepted from GCC 13 / clang 17); that header is skipped (not used by the harness)")
    for op, dts in m["kernels"].items():
        con.print(f"  {op:<9} {', '.join(dts) or '-'}")
        more = [d for d in m.get("compiles", {}).get(op, []) if d not in dts]
        if more:
            con.print(f"  [dim]{'':<9} also compiles (left out: the cpu model does not accept them): "
                      f"{', '.join(more)}[/]")
        for dt, why in m["rejected"].get(op, {}).items():
            con.print(f"  [dim]{'':<9} {dt}: unsupported, {escape(why)}[/]")
    if not m.get("bfloat16_native"):
        con.print("  [yellow]bfloat16[/]  compiles, but as a placeholder: unsupported unless "
                  "--sim-placeholder-bf16 (simulator finding cpusim-bf16-placeholder)")


def target_ran(verdicts: list[Any], *, as_json: bool = False) -> None:
    """Per case: the target's result checked like ``ptofuzz check``, with a reproduce command for failures."""
    if as_json:
        _print_json({"cases": [{"path": str(v.path), "verdict": v.verdict, "command": v.command,
                                "problem": v.problem, "seconds": round(v.seconds, 3), "reproduce": v.reproduce,
                                "check": _verdict_json(v.check) if v.check is not None else None}
                               for v in verdicts],
                     "passed": sum(v.verdict is Verdict.PASS for v in verdicts),
                     "failed": sum(v.verdict is not Verdict.PASS for v in verdicts)})
        return
    con = _console()
    for v in verdicts:
        if v.verdict is Verdict.PASS:
            con.print(f"[green]PASS[/]  {escape(v.path.name)}")
            continue
        label = "FAIL" if v.verdict is Verdict.FAIL else "ERROR"
        why = v.problem or (v.check.message if v.check is not None and v.check.message else
                            failure_summary(v.check) if v.check is not None else "")
        con.print(f"[bold red]{label}[/] {escape(v.path.name)}: {escape(why)}")
        con.print(f"      reproduce: {escape(v.reproduce)}")
    bad = sum(v.verdict is not Verdict.PASS for v in verdicts)
    con.print(f"{len(verdicts) - bad} passed, {bad} failed of {len(verdicts)} case folder(s)")


# ---- fuzzing ------------------------------------------------------------------------------------------------

HEARTBEAT_S = 60.0  # default seconds between heartbeat lines (PTOFUZZ_HEARTBEAT)


def heartbeat_interval() -> float:
    """Seconds between heartbeat lines: ``PTOFUZZ_HEARTBEAT`` or 60."""
    import math
    import os

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
    return (f"{stats.cases:,} cases  {stats.rate:,.0f} cases/s  {stats.signatures} signatures "
            f"({stats.new} new){left}")


@contextlib.contextmanager
def progress(enabled: bool = True) -> Iterator[Callable[[Any], None]]:
    """The campaign status on stderr: a live line on a terminal (when ``enabled``); elsewhere (CI logs) a
    heartbeat line every ``PTOFUZZ_HEARTBEAT`` seconds (default 60). Yields the update callback."""
    import sys
    import time

    con = Console(stderr=True, highlight=False)
    if not con.is_terminal:
        every = heartbeat_interval()
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
    if data.get("skipped"):
        con.print(f"[yellow]{data['skipped']:,} cases skipped by a real target after too many crashes or hangs in "
                  "their batch[/]")
    execs = f", {data['execs']:,} fuzzer inputs ({data['execs_per_s']:,.0f}/s)" if "execs" in data else ""
    con.print(f"{data['cases']:,} cases in {data['elapsed_s']:.1f} s ({data['cases_per_s']:,.0f}/s){execs}, "
              f"{len(data['signatures'])} signature(s), {data['new']} new; seed {data['seed']} "
              f"({data['engine']} engine)")
    if data["new"] and not any(s["replay"] for s in data["signatures"]):
        con.print(f"rerun with --out DIR to save the cases; campaign: {escape(data['command'])}")


def replayed(results: list[Any], *, as_json: bool = False) -> None:
    if as_json:
        _print_json({"records": [{"path": str(r.path), "op": r.op, "verdict": r.verdict, "changes": list(r.changes),
                                  "signatures": list(r.signatures)} for r in results],
                     "changed": sum(r.verdict is ReplayVerdict.CHANGED for r in results)})
        return
    con = _console()
    for r in results:
        if r.verdict is ReplayVerdict.SAME:
            shows = f"shows {len(r.signatures)} signature(s)" if r.signatures else "all oracles agree"
            con.print(f"[green]SAME[/]     {escape(str(r.path))}  [dim]{shows}[/]")
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


# ---- comparisons: summary, first differences, heat map ----------------------------------------------------------

# heat-map glyph and style per error class (the glyph alone carries the class when there is no colour)
GLYPHS = {"ok": (".", "green"), "ulp-1": ("1", "yellow"), "ulp-2..16": ("2", "bold yellow"),
          "signed-zero": ("z", "cyan"), "nan-payload": ("p", "magenta"), "ordering": ("o", "blue"),
          "ulp-large": ("U", "bold red"), "int-value": ("v", "bold red"), "inf": ("i", "bold red"),
          "nan-vs-number": ("n", "bold magenta"), "missing": ("m", "bold white on red"),
          "outside": ("X", "bold black on yellow")}


def _fmt(bits: int, dt: dtypes.DType) -> str:
    return dtypes.format_bits(bits, dt)


def comparison_lines(con: Console, cmp: Any, dt: dtypes.DType, shape: tuple[int, int], valid: tuple[int, int],
                     label: str, reproduce: str | None = None, heat: bool = True) -> None:
    """The report of one comparison: verdict and summary, the first differences, the heat map."""
    from ptofuzz.engine.compare import ERROR_CLASSES
    from ptofuzz.report.heatmap import heatmap

    n = cmp.checked
    name = label.strip()
    con.print(f"{escape(label)}: {dt.name} {shape[0]}x{shape[1]}, valid {valid[0]}x{valid[1]}; "
              f"{cmp.mode.describe()}")
    ind = " " * (len(label) - len(name) + 2)
    if cmp.ok:
        con.print(f"{ind}[green]PASS[/]  {escape(name)}: all {n} compared elements agree")
    else:
        share = 100.0 * cmp.mismatches / n if n else 0.0
        extra = f", max {cmp.max_ulp} ULP" if dt.is_float and cmp.max_ulp else ""
        con.print(f"{ind}[bold red]FAIL[/]  {escape(name)}: {cmp.mismatches} of {n} elements differ ({share:.2f}%); "
                  f"max abs {cmp.max_abs:.6g}, max rel {cmp.max_rel:.6g}{extra}")
        con.print(f"{ind}error classes: " + ", ".join(f"{k} {v}" for k, v in cmp.counts.items()))
    if cmp.specials:
        con.print(ind + "; ".join(f"{side}: {d['nan']} NaN, {d['inf']} inf, {d['zero']} zero"
                                  for side, d in cmp.specials.items()))
    rc = cmp.result_cmp
    if rc is not None:
        what = "PASS" if rc.passed else "FAIL"
        note = " (strict comparison fails, pto-isa's own test would pass)" if rc.passed and not cmp.ok else ""
        con.print(f"{ind}pto-isa ResultCmp (eps {rc.eps:g}): {what}: {rc.errors} elements fail its test, "
                  f"threshold {rc.threshold}, {rc.zero_count} zeroed{note}")
    for e in cmp.first:
        want = _fmt(e.expected, dt) if e.cls == 0 else f"any {CLASS_NAMES[e.cls]}"
        where = "; ".join(x for x in (f"region {e.region}" if e.region else "",
                                      f"{e.ulps} ULP" if e.ulps is not None else "", e.error) if x)
        con.print(f"{ind}element {e.index} (row {e.row}, col {e.col}): expected {escape(want)}, actual "
                  f"{escape(_fmt(e.actual, dt))}" + (f"; {escape(where)}" if where else ""))
    if cmp.mismatches > len(cmp.first):
        con.print(f"{ind}... and {cmp.mismatches - len(cmp.first)} more")
    if heat and cmp.errors is not None and cmp.errors.size and not cmp.ok:
        hm = heatmap(cmp.errors, valid)
        frame = "the frame is the valid region" if hm.valid_cells[0] and hm.valid_cells[1] else \
            "the valid region is empty"
        con.print(f"{ind}heat map: {hm.cells.shape[0]}x{hm.cells.shape[1]} cells of up to {hm.block[0]}x"
                  f"{hm.block[1]} elements, worst class per cell; {frame}")
        _heat_rows(con, hm, ERROR_CLASSES, ind)
        present = [k for k in ERROR_CLASSES if k == "ok" or k in cmp.counts]
        con.print(f"{ind}legend: " + "  ".join(f"[{GLYPHS[k][1]}]{GLYPHS[k][0]}[/] {k}" for k in present)
                  + "  (blank: not compared)")
    if reproduce and not cmp.ok:
        con.print(f"{ind}reproduce: {escape(reproduce)}")


def _heat_rows(con: Console, hm: Any, names: tuple[str, ...], ind: str = "  ") -> None:
    """The grid, one text line per cell row, with a box around the valid region's cells (none if it is
    empty); row labels are the first element row of each cell row."""
    from rich.text import Text

    gr, gc = hm.cells.shape
    vr, vc = (hm.valid_cells if hm.valid_cells[0] and hm.valid_cells[1] else (0, 0))
    width = len(str(int(hm.row_edges[-2]))) if gr else 1
    pad = ind + " " * (width + 1)
    if vr:
        con.print(Text(pad + "┌" + "─" * vc + "┐"))
    for i in range(gr):
        inside = i < vr
        line = Text(f"{ind}{int(hm.row_edges[i]):>{width}} " + ("│" if inside else " " if vr else ""))
        for j in range(gc):
            if vr and j == vc:
                line.append("│" if inside else " ")
            code = int(hm.cells[i, j])
            if code < 0:
                line.append(" ")
                continue
            glyph, style = GLYPHS[names[code]]
            line.append(glyph, style=style if code else ("green" if inside and j < vc else "dim"))
        if vr and vc == gc:
            line.append("│" if inside else " ")
        con.print(line)
        if vr and i == vr - 1:
            con.print(Text(pad + "└" + "─" * vc + "┘"))


def diffs(results: list[Any], *, as_json: bool = False, html: Any = None, svg: Any = None) -> None:
    """``ptofuzz diff``: one report per compared pair of tiles, optionally exported as HTML or SVG."""
    if as_json:
        _print_json([diff_json(r) for r in results])
    con = _exporting_console(html, svg, quiet=as_json)
    for r in results:
        comparison_lines(con, r.comparison, dtypes.get(r.dtype), r.shape, r.valid, r.label,
                         None if r.beside else r.reproduce)
        if r.beside:
            _beside_table(con, r.beside)
            con.print(f"  reproduce: {escape(r.reproduce)}")
    _export(con, html, svg)


def _beside_table(con: Console, rows: tuple[dict[str, str], ...], ind: str = "  ") -> None:
    """Value / index side by side at each differing index element (TPARTARG*): one block per element."""
    con.print(f"{ind}value / index at these elements:")
    width = max(len(k) for row in rows for k in row if k != "element")
    for row in rows:
        con.print(f"{ind}  {escape(row['element'])}")
        for who, both in row.items():
            if who != "element":
                con.print(f"{ind}    {escape(who):<{width}}  {escape(both)}")


def _finite(x: float) -> float | None:
    """JSON has no inf/NaN: those become null."""
    import math

    return x if math.isfinite(x) else None


def comparison_json(cmp: Any) -> dict[str, Any]:
    """The comparison part of every report's JSON (diff, check)."""
    rc = cmp.result_cmp
    return {"ok": cmp.ok, "checked": cmp.checked, "mismatches": cmp.mismatches, "classes": cmp.counts,
            "max_abs": _finite(cmp.max_abs), "max_rel": _finite(cmp.max_rel), "max_ulp": cmp.max_ulp,
            "specials": cmp.specials, "mode": cmp.mode.describe(),
            "result_cmp": None if rc is None else {"passed": rc.passed, "eps": rc.eps, "errors": rc.errors,
                                                   "threshold": rc.threshold, "zero_count": rc.zero_count},
            "first": [{"index": e.index, "row": e.row, "col": e.col, "region": e.region,
                       "expected": hex(e.expected), "actual": hex(e.actual), "expected_class": CLASS_NAMES[e.cls],
                       "ulps": e.ulps, "error": e.error} for e in cmp.first]}


def diff_json(r: Any) -> dict[str, Any]:
    return {"label": r.label, "dtype": r.dtype, "shape": list(r.shape), "valid": list(r.valid),
            **comparison_json(r.comparison), "reproduce": r.reproduce,
            **({"beside": list(r.beside)} if r.beside else {})}


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

    for path, render in ((html, lambda: con.export_html(inline_styles=True, clear=False)),
                         (svg, lambda: _svg(con))):
        if path is not None:
            write_file(Path(path), render())


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
    return re.sub(r"@font-face\s*\{[^}]*\}", "", svg)  # offline: the local monospace font, no CDN


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


_REPORT_MARKS = {"--junit": (b"<testsuites",), "--sarif": (b'"runs"',), "--html": (b"<html", b"<!doctype html"),
                 "--svg": (b"<svg",)}


def _looks_like_report(path: Any, flag: str) -> bool:
    """Whether an existing file is a report of ``flag``'s kind (an earlier run's), which may be replaced: a
    golden or an input given by mistake is refused instead of overwritten."""
    with open(path, "rb") as f:
        head = f.read(4096).lower()
    return any(mark in head for mark in _REPORT_MARKS.get(flag, ()))


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
