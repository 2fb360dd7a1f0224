"""Comparisons as a person reads them: the summary of one compared tile, its first differences with their bits,
values and ULPs, the heat map of where they lie, and ``ptofuzz diff``'s report.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from ptofuzz.core import dtypes
from ptofuzz.core.case import BOUNDED, CLASS_NAMES
from ptofuzz.report.terminal import _console, _export, _exporting_console, _print_json, escape

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
        size = ("no two finite values differ" if cmp.max_abs is None or cmp.max_rel is None else
                f"max abs {cmp.max_abs:.6g}, max rel {cmp.max_rel:.6g}")
        con.print(f"{ind}[bold red]FAIL[/]  {escape(name)}: {cmp.mismatches} of {n} elements differ ({share:.2f}%); "
                  f"{size}{extra}")
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
        want = _fmt(e.expected, dt) if e.cls == 0 else f"{_fmt(e.expected, dt)} within its ULP bound" \
            if e.cls == BOUNDED else f"any {CLASS_NAMES[e.cls]}"
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


def _finite(x: float | None) -> float | None:
    """JSON has no inf/NaN: those become null."""
    import math

    return x if x is not None and math.isfinite(x) else None


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


def failed_oracle(failed: Any, *, as_json: bool = False) -> None:
    """``ptofuzz diff`` of a crash or hang finding: the oracle that failed, how, and its first report line."""
    if as_json:
        _print_json({"oracle": failed.oracle, "outcome": failed.kind, "reason": failed.reason,
                     "reproduce": failed.reproduce})
        return
    con = _console()
    con.print(f"[bold red]{escape(failed.oracle)} {failed.kind}[/] on this case (no values to compare)")
    con.print(f"  {escape(failed.reason)}")
    con.print(f"  reproduce: {escape(failed.reproduce)}")
