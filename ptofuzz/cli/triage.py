"""``ptofuzz diff`` and ``ptofuzz triage``: what a mismatch is, and one bucket per cause.
"""

# No "from __future__ import annotations" here: typer reads every command's annotations when it builds the CLI,
# twice per command; as strings they would be parsed and evaluated each time (about a fifth of `ptofuzz --help`),
# as plain annotations they are built once, at import.
from pathlib import Path
from typing import Annotated

import typer

from ptofuzz.cli.common import (
    HtmlOpt,
    JsonOpt,
    JunitBucketsOpt,
    JunitComparisonsOpt,
    SarifOpt,
    SvgOpt,
    _check_exports,
    _command_line,
    _errors,
    _rxc,
    app,
)
from ptofuzz.core.errors import ExitCode, UsageError


@app.command()
def diff(
    golden: Annotated[Path, typer.Argument(help="Expected raw file, or a saved fuzz case (record folder).")],
    output: Annotated[Path | None, typer.Argument(help="Actual raw file (not for a record).")] = None,
    dtype: Annotated[str | None, typer.Option(help="Element type of the raw files.")] = None,
    shape: Annotated[str | None, typer.Option(help="Elements in the raw files, RxC.")] = None,
    valid: Annotated[str | None, typer.Option(help="Valid region RxC (differences outside it are writes "
                                                      "where none belong).")] = None,
    mode: Annotated[str, typer.Option(help="bits (exact), ulp (within --ulp N) or tol (--rtol/--atol).")] = "bits",
    ulp: Annotated[int, typer.Option(help="Allowed ULP distance for --mode ulp.")] = 1,
    rtol: Annotated[float | None, typer.Option(help="Relative tolerance for --mode tol.")] = None,
    atol: Annotated[float | None, typer.Option(help="Absolute tolerance for --mode tol.")] = None,
    nan: Annotated[str, typer.Option(help="payload (NaN bits must match) or any (any NaN matches).")] = "payload",
    zeros: Annotated[str, typer.Option(help="signed (-0 != +0) or unsigned.")] = "signed",
    eps: Annotated[float | None, typer.Option(help="Also give pto-isa ResultCmp's verdict at this eps.")] = None,
    oracles: Annotated[str | None, typer.Option(help="For a record: the two oracles to compare (expected "
                                                        "first; default: its signature's pair).")] = None,
    half_as_bits: Annotated[bool, typer.Option("--half-as-bits", help="ResultCmp as the NPU tests run it: float16 "
                                                                      "compared as raw bits (aclFloat16 is "
                                                                      "uint16_t).")] = False,
    html: HtmlOpt = None,
    svg: SvgOpt = None,
    junit: JunitComparisonsOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Compare two raw tile files (or two oracles' outputs of a saved fuzz case): summary, first differences
    and a heat map of the tile. Exit 1 when they differ.

    Examples: `ptofuzz diff golden.bin output.bin --dtype float32 --shape 64x64 --valid 32x32`, `ptofuzz diff
    findings/<finding> --oracles cpu,a5 --html diff.html`.
    """
    with _errors():
        from ptofuzz.engine import diff as api
        from ptofuzz.engine.compare import Mode
        from ptofuzz.report import ci, comparisons

        if mode not in ("bits", "ulp", "tol"):
            raise UsageError(f"--mode {mode!r} is not bits, ulp or tol")
        if nan not in ("payload", "any") or zeros not in ("signed", "unsigned"):
            raise UsageError(f"--nan {nan!r} / --zeros {zeros!r}: use --nan payload|any and --zeros signed|unsigned")
        if ulp < 0 or (eps is not None and not 0 <= eps < 1):
            raise UsageError(f"--ulp {ulp} must be >= 0 and --eps {eps} in [0, 1)")
        for name, value in (("--rtol", rtol), ("--atol", atol)):
            if value is not None and not value >= 0:  # (NaN fails too)
                raise UsageError(f"{name} {value} must be a number >= 0")
        if mode != "tol" and (rtol is not None or atol is not None):
            raise UsageError("--rtol/--atol apply to --mode tol; add --mode tol or drop them")
        _check_exports(html, svg, junit)
        m = Mode(mode, ulp if mode == "ulp" else 0, rtol, atol, nan, zeros)
        if output is None:
            if not golden.exists():
                raise UsageError(f"path {str(golden)!r} does not exist")
            if golden.is_file() and golden.suffix == ".bin":
                raise UsageError(f"{str(golden)!r} is a raw file: give the actual file too (ptofuzz diff GOLDEN "
                                 "OUTPUT --dtype D --shape RxC)")
            if dtype or shape or valid:
                raise UsageError("--dtype/--shape/--valid describe raw files; a record brings its own: drop them")
            pair = [o.strip() for o in oracles.split(",")] if oracles else None
            try:
                results = api.diff_record(golden, pair, mode=m, eps=eps, half_as_bits=half_as_bits)
            except api.OracleFailed as failed:  # a crash or hang finding: what happened is the difference
                comparisons.failed_oracle(failed, as_json=json_out)
                raise typer.Exit(int(ExitCode.MISMATCH)) from None
        else:
            if dtype is None or shape is None:
                raise UsageError("raw files need --dtype and --shape (e.g. --dtype float32 --shape 64x64)")
            results = [api.diff_files(golden, output, dtype, _rxc(shape, "--shape"), valid=_rxc(valid, "--valid"),
                                      mode=m, eps=eps, half_as_bits=half_as_bits)]
        if junit is not None:
            ci.diffs_junit(junit, results)
        comparisons.diffs(results, as_json=json_out, html=html, svg=svg)
        if any(not r.comparison.ok for r in results):
            raise typer.Exit(int(ExitCode.MISMATCH))


@app.command()
def triage(
    paths: Annotated[list[Path], typer.Argument(help="A fuzz campaign's --out folder(s), or record folders.")],
    by: Annotated[str | None, typer.Option(help="Bucket key fields, comma separated (default "
                                                   "op,culprit,kind).")] = None,
    split: Annotated[list[str] | None, typer.Option(help="Add a field to the bucket key (repeatable).")] = None,
    merge: Annotated[list[str] | None, typer.Option(help="Drop a field from the bucket key (repeatable).")] = None,
    sort: Annotated[str, typer.Option(help="hits, first, name or size (of the smallest example).")] = "hits",
    html: HtmlOpt = None,
    svg: SvgOpt = None,
    junit: JunitBucketsOpt = None,
    sarif: SarifOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Group a campaign's saved disagreements into buckets, one per probable cause. Fields: op, culprit (the
    odd oracle out), kind, dtype_class, pair, region, geometry, status. Exit 1 when a bucket holds a new
    (undocumented) disagreement.

    Examples: `ptofuzz triage findings/`, `ptofuzz triage findings/ --by op,kind --split dtype_class --json`.
    """
    with _errors():
        from ptofuzz.engine import triage as tri
        from ptofuzz.report import campaigns, ci

        fields = tri.key_fields([f.strip() for f in by.split(",") if f.strip()] if by else None, split or (),
                                merge or ())
        _check_exports(html, svg, junit, sarif)
        items, skipped = tri.load(paths)
        if not items and not skipped and not any((Path(p) / "campaign.json").is_file() for p in paths):
            raise UsageError(f"{', '.join(repr(str(p)) for p in paths)} holds no fuzz findings and no campaign "
                             "summary; give the --out folder of `ptofuzz fuzz`")
        result = tri.buckets(items, fields, sort)
        ci.export(ci.triage_entries(result), "ptofuzz triage", _command_line(), junit=junit, sarif=sarif)
        campaigns.triaged(result, fields, as_json=json_out, html=html, svg=svg, skipped=skipped)
        if skipped:  # a record it could not read (named in the report) is bad input, whatever else it found
            raise typer.Exit(int(ExitCode.USAGE))
        if any(not b.known for b in result):
            raise typer.Exit(int(ExitCode.MISMATCH))
