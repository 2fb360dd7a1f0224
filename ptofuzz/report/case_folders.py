"""Reports about case folders: what ``gen`` wrote, what ``check`` found, the capability matrix (``list``), a
simulator build (``sim build``) and an external target's run (``run``).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Console
from rich.markup import escape as _markup_escape
from rich.table import Table

from ptofuzz.core import dtypes
from ptofuzz.engine.compare import Verdict
from ptofuzz.engine.generate import GeneratedCase, GenerateResult
from ptofuzz.engine.verdicts import CaseVerdict, failure_summary
from ptofuzz.generators.source import DRAW_VERSION
from ptofuzz.report.campaigns import heartbeat_interval
from ptofuzz.report.comparisons import comparison_json, comparison_lines
from ptofuzz.report.terminal import _console, _export, _exporting_console, _print_json, escape


def generated(result: GenerateResult, *, as_json: bool = False, listed: bool = False) -> None:
    """``gen``'s report: a line per folder (unless :func:`generating` printed them as they landed: ``listed``)
    and the summary, or the JSON document."""
    if as_json:
        _print_json({
            "op": result.op, "platform": result.platform, "out": str(result.out_dir), "seed": result.seed,
            "draw_version": result.draw_version,
            "cases": [{"name": c.name, "path": str(c.path), "outcome": c.outcome, "files": c.files,
                       "not_exact": c.not_exact} for c in result.cases],
        })
        return
    from ptofuzz.core.text import generated_summary

    con = _console()
    if not listed:
        for c in result.cases:
            _generated_line(con, c)
    summary = generated_summary(result.count, result.op, result.platform, str(result.out_dir), result.seed,
                                None if result.draw_version == DRAW_VERSION else result.draw_version)
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
                     "errors": sum(v.verdict is Verdict.ERROR for v in verdicts),
                     "skipped": sum(v.verdict is Verdict.SKIP for v in verdicts)})
    con = _exporting_console(html, svg, quiet=as_json)
    for v in verdicts:
        if v.verdict is Verdict.ERROR:
            con.print(f"[bold red]ERROR[/] {escape(v.name)}: {escape(v.message)}")
            continue
        if v.verdict is Verdict.SKIP:
            con.print(f"[yellow]SKIP[/]  {escape(v.name)}  [dim]{escape(v.message)}[/]")
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
    skipped = sum(v.verdict is Verdict.SKIP for v in verdicts)
    errors = len(verdicts) - passed - failed - skipped
    _recap(con, [(v.verdict.value.upper(), v.name, v.reproduce) for v in verdicts
                 if v.verdict in (Verdict.FAIL, Verdict.ERROR)], len(verdicts))
    oracle = next((v.oracle for v in verdicts if v.verdict is Verdict.SKIP), "")
    con.print(f"{passed} of {len(verdicts)} case(s) pass" + (f"; {failed} fail" if failed else "")
              + (f"; {errors} could not be read" if errors else "")
              + (f"; {skipped} skipped ({oracle} cannot {'run or judge' if oracle == 'aslref' else 'run'} them)"
                 if skipped else ""))
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
    shown = {name for r in rows for name in r.get("defects", ())}
    if shown:
        from ptofuzz.instructions import defects

        con.print("known defects of the code under test (a campaign labels their signatures `defect`):")
        for known in defects.DEFECTS:
            if known.name in shown:
                con.print(f"  [bold yellow]{known.name}[/] ({known.code}; {', '.join(known.ops)}): "
                          f"{escape(known.evidence)}")
                con.print(f"    documented: {escape(known.documented)}")
                con.print(f"    shows it: {escape(known.reproduce)}")


def sim_built(build: Any, tree: str, commit: str, *, as_json: bool = False) -> None:
    """What ``ptofuzz sim build`` built (or found in the cache) for the pto-isa tree ``tree`` at ``commit``: a
    build made from another tree with the same ``include/`` serves it, and is named as such."""
    m = build.manifest
    shared = m["pto_isa"] if m["pto_isa"] != tree else None
    if as_json:
        _print_json({**m, "pto_isa": tree, "commit": commit, "built_from": m["pto_isa"], "folder": str(build.folder),
                     "cached": build.cached, "seconds": round(build.seconds, 2)})
        return
    con = _console()
    how = "found in the cache" if build.cached else "built"
    what = (f"native-coverage library {escape(str(build.library))}" if build.coverage
            else escape(str(build.executable)))
    con.print(f"cpusim harness {how} in {build.seconds:.1f} s: {what}")
    con.print(f"  pto-isa   {escape(tree)} (commit {escape(commit)})")
    if shared:
        con.print(f"  [dim]{'':<9} built from {escape(shared)}, whose include/ is the same (one build serves both)[/]")
    con.print(f"  compiler  {escape(m['compiler'])}")
    con.print(f"  flags     {escape(' '.join(m['flags']))}")
    if m.get("reduceidx_skipped"):
        con.print("  [yellow]note[/]      this compiler rejects cpu/TReduceIdx.hpp (static_assert(false) in a primary "
                  "template, accepted from GCC 13 / clang 17); that header is skipped (not used by the harness)")
    objects = m.get("objects", {})
    for op, dts in m["kernels"].items():
        obj = objects.get(op)
        made = f"  [dim](object {'cached' if obj['cached'] else 'compiled'}, {obj['seconds']:.1f} s)[/]" if obj else ""
        con.print(f"  {op:<9} {', '.join(dts) or '-'}{made}")
        for dt, why in m["rejected"].get(op, {}).items():
            con.print(f"  [dim]{'':<9} {dt}: unsupported, {escape(why)}[/]")
    if not m.get("bfloat16_native"):
        con.print("  [yellow]bfloat16[/]  compiles, but as a placeholder: unsupported unless "
                  "--sim-placeholder-bf16 (simulator finding cpusim-bf16-placeholder)")


RECAP = 20  # names of not-passing cases repeated above the summary line


def _recap(con: Console, bad: list[tuple[str, str, str]], total: int) -> None:
    """The cases that did not pass, again, just above the summary (in a long listing they scrolled away)."""
    if not bad or total <= 1:
        return
    con.print(f"not passing ({len(bad)}):")
    for label, name, reproduce in bad[:RECAP]:
        con.print(f"  [bold red]{label:<5}[/] {escape(name)}  [dim]{escape(reproduce)}[/]")
    if len(bad) > RECAP:
        con.print(f"  ... and {len(bad) - RECAP} more (`--json` lists them all)")


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
    _recap(con, [("FAIL" if v.verdict is Verdict.FAIL else "ERROR", v.path.name, v.reproduce) for v in verdicts
                 if v.verdict is not Verdict.PASS], len(verdicts))
    con.print(f"{len(verdicts) - bad} passed, {bad} failed of {len(verdicts)} case folder(s)")


def st_ran(cases: list[Any], *, as_json: bool = False) -> None:
    """``ptofuzz st``: per case pto-isa's verdict and ptofuzz's, why a failure fails (or a skip was skipped),
    and the totals."""
    failed = [c for c in cases if c.verdict == "fail"]
    skipped = [c for c in cases if c.verdict == "skip"]
    passed = len(cases) - len(failed) - len(skipped)
    if as_json:
        _print_json({"cases": [{"op": c.op, "name": c.name, "path": str(c.path), "gtest": c.gtest,
                                "check": c.check.verdict.value if c.check is not None else None,
                                "verdict": c.verdict, "why": c.why, "reproduce": c.reproduce} for c in cases],
                     "ran": len(cases) - len(skipped), "passed": passed, "failed": len(failed),
                     "skipped": len(skipped)})
        return
    con = _console()
    for c in cases:
        mark = {"pass": "[green]PASS[/]", "skip": "[yellow]SKIP[/]"}.get(c.verdict, "[bold red]FAIL[/]")
        ours = c.check.verdict.value if c.check is not None else "-"
        con.print(f"{mark}  {escape(c.name)}  [dim]pto-isa {c.gtest}, ptofuzz {ours}[/]")
        if c.verdict != "pass":
            con.print(f"      {escape(c.why)}")
        if c.verdict == "fail":
            con.print(f"      reproduce: {escape(c.reproduce)}")
    ops = sorted({c.op for c in cases})
    more = f", {len(skipped)} skipped (not in the test binary)" if skipped else ""
    con.print(f"{len(cases) - len(skipped)} case(s) of {len(ops)} instruction(s) ran on ptofuzz's data: {passed} "
              f"passed, {len(failed)} failed{more}")
