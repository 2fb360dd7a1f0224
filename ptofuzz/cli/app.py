"""The ``ptofuzz`` command line: a thin typer layer over :mod:`ptofuzz.api`.

Each command parses its options, makes one API call and hands the result to :mod:`ptofuzz.report.console`. numpy,
the oracles and rich are imported inside the commands so that ``ptofuzz --help`` stays fast. Exit codes: 0 ok,
1 mismatch, 2 usage or bad input, 3 internal error.
"""

# No "from __future__ import annotations" here: typer reads every command's annotations when it builds the CLI,
# twice per command; as strings they would be parsed and evaluated each time (about a fifth of `ptofuzz --help`),
# as plain annotations they are built once, at import.
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, overload

import typer

from ptofuzz import __version__
from ptofuzz.core import platforms
from ptofuzz.core.errors import ExitCode, UsageError, one_line

if TYPE_CHECKING:
    from ptofuzz.backends.cpusim.build import Settings

app = typer.Typer(
    name="ptofuzz",
    help="Golden data and differential fuzzing for PTO tile instructions (pto-isa, pto-spec).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

PlatformOpt = Annotated[str, typer.Option("--platform", "-p", help=f"{', '.join(platforms.names())}.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of text.")]
HtmlOpt = Annotated[Path | None, typer.Option(help="Also write the report as an HTML page.")]
SvgOpt = Annotated[Path | None, typer.Option(help="Also write the report as an SVG image.")]


_JUNIT = "Also write a JUnit XML file (one test per {})."
JunitCasesOpt = Annotated[Path | None, typer.Option(help=_JUNIT.format("case folder"))]
JunitComparisonsOpt = Annotated[Path | None, typer.Option(help=_JUNIT.format("comparison"))]
JunitBucketsOpt = Annotated[Path | None, typer.Option(help=_JUNIT.format("bucket"))]
JunitSignaturesOpt = Annotated[Path | None, typer.Option(
    help=_JUNIT.format("signature; known differences skipped with their reason"))]
JunitRecordsOpt = Annotated[Path | None, typer.Option(
    help=_JUNIT.format("record; known differences skipped with their reason"))]
SarifOpt = Annotated[Path | None, typer.Option(
    help="Also write a SARIF 2.1.0 log (GitHub code scanning): a result per disagreement, ruleId = its kind.")]


def _command_line() -> str:
    """This invocation, as the SARIF log's command line."""
    import shlex

    return "ptofuzz " + shlex.join(sys.argv[1:])


def _check_exports(html: Path | None, svg: Path | None, junit: Path | None, sarif: Path | None = None) -> None:
    """Refuse unusable export paths before any work."""
    from ptofuzz.report.console import check_export_path

    for path, flag in ((html, "--html"), (svg, "--svg"), (junit, "--junit"), (sarif, "--sarif")):
        check_export_path(path, flag)


def _exit_for(verdicts: list[str], mismatch: str) -> None:
    """Exit 2 when any verdict is "error", 1 when any is ``mismatch``; otherwise return (exit 0)."""
    if "error" in verdicts:
        raise typer.Exit(int(ExitCode.USAGE))
    if mismatch in verdicts:
        raise typer.Exit(int(ExitCode.MISMATCH))


def _die(message: str, code: ExitCode) -> NoReturn:
    from ptofuzz.core.text import printable

    typer.echo(f"ptofuzz: error: {printable(message)}", err=True)
    raise typer.Exit(int(code))


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Library errors become one line on stderr and an exit code, never a traceback."""
    try:
        yield
    except typer.Exit:
        raise
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - the one place errors become a line and a code
        _die(*one_line(e))


PtoIsaOpt = Annotated[Path | None, typer.Option(
    "--pto-isa", help="cpusim: the pto-isa tree to build the CPU simulator from (default: $PTO_ISA_DIR).")]
CacheDirOpt = Annotated[Path | None, typer.Option(
    help="cpusim: build cache folder (default: $XDG_CACHE_HOME/ptofuzz, else ~/.cache/ptofuzz).")]
SanitizeOpt = Annotated[str | None, typer.Option(
    help="cpusim: build the harness with sanitizers: address, undefined or address,undefined.")]
SimTimeoutOpt = Annotated[float, typer.Option(help="cpusim: seconds one batch may take before it is a hang.")]
PlantOpt = Annotated[str | None, typer.Option(hidden=True, help="Test only: plant a bug (oob, hang, or off).")]
PlaceholderOpt = Annotated[bool, typer.Option(
    help="cpusim: run bfloat16 even when the build's bfloat16_t is pto-isa's _Float16 placeholder.")]


def _sim_settings(pto_isa: Path | None, cache_dir: Path | None, sanitize: str | None,
                  timeout: float = 10.0, plant: str | None = None, placeholder_bf16: bool = False) -> "Settings":
    """The cpusim oracle's settings from its options (one-line errors for bad ones)."""
    from ptofuzz.backends.cpusim import build

    san = tuple(s.strip() for s in sanitize.split(",") if s.strip()) if sanitize else ()
    build.sanitize_flags(san)  # an unknown sanitizer is named before anything runs
    if not 0 < timeout <= 1e6:
        raise UsageError(f"--sim-timeout {timeout} must be a positive number of seconds, at most 1e6")
    return build.Settings(pto_isa, cache_dir, None, san, plant, timeout, placeholder_bf16)


def _platforms_of(op: str) -> list[str]:
    from ptofuzz.instructions import registry

    return list(registry.get(op).platforms)


@overload
def _rxc(value: str, flag: str) -> tuple[int, int]: ...
@overload
def _rxc(value: None, flag: str) -> None: ...
@overload
def _rxc(value: str | None, flag: str) -> tuple[int, int] | None: ...
def _rxc(value: str | None, flag: str) -> tuple[int, int] | None:
    if value is None:
        return None
    from ptofuzz.core.case import parse_rxc

    return parse_rxc(value, flag)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ptofuzz {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Golden data and differential fuzzing for PTO tile instructions (pto-isa, pto-spec)."""


@app.command()
def gen(
    op: Annotated[str, typer.Argument(help="Instruction, e.g. tpartadd (see `ptofuzz list`).")],
    platform: PlatformOpt,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write case folders into.")] = Path("."),
    seed: Annotated[int, typer.Option(help="Seed; the same seed writes the same bytes.")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing case folders.")] = False,
    random: Annotated[int | None, typer.Option("--random", help="Write N random legal cases.")] = None,
    dtype: Annotated[str | None, typer.Option(help="Element type (float32, half, bf16, int8, u16, ...).")] = None,
    index_dtype: Annotated[str | None, typer.Option(
        help="TPARTARGMAX/MIN: element type of the index tiles (default uint32).")] = None,
    shape: Annotated[str | None, typer.Option(help="Tile shape RxC.")] = None,
    dst: Annotated[str | None, typer.Option(help="Destination valid region RxC.")] = None,
    src0: Annotated[str | None, typer.Option(help="src0 valid region RxC.")] = None,
    src1: Annotated[str | None, typer.Option(help="src1 valid region RxC.")] = None,
    inplace: Annotated[str | None, typer.Option(help="Destination is this source tile: src0 or src1.")] = None,
    sort_width: Annotated[int | None, typer.Option(help="TSORT group width (1..64; 0 = 32).")] = None,
    descending: Annotated[bool | None, typer.Option("--descending/--ascending",
                                                       help="TSORT direction.")] = None,
    lists: Annotated[int | None, typer.Option(help="TMRGSORT: merge this many lists (2..4).")] = None,
    blocks: Annotated[int | None, typer.Option(help="TMRGSORT single-list form: records per block.")] = None,
    exhausted: Annotated[bool, typer.Option("--exhausted", help="TMRGSORT: stop when a list runs out.")] = False,
    bf16_contract: Annotated[bool, typer.Option("--bf16-contract", help="TSORT: accept BF16 as pto-spec's "
                                                "contract header does (its executable model rejects it).")] = False,
    special: Annotated[str | None, typer.Option(
        help="Special-value kinds (snan,qnan,zero,inf,subnormal,extreme,tie,sorted,reversed,equal) or a profile "
             "(default, none, nan, sort).")] = None,
    special_rate: Annotated[float, typer.Option(help="Share of special values (NaN, inf, 0, subnormal, ...).")] = 0.05,
    allow_undefined: Annotated[bool, typer.Option(
        "--allow-undefined", help="Keep inputs that leave golden elements undefined on the platform (by default "
                                  "they are redrawn, so goldens hold no placeholders).")] = False,
    bundle: Annotated[bool, typer.Option("--bundle", help="spec TSORT/TPART*: also write the case as a PTO bundle "
                                                          "(bundle.bin, bundle.s, expected outcome).")] = False,
    json_out: JsonOpt = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="A line per case folder, however many (by "
                                                                   "default beyond 100 only the summary).")] = False,
) -> None:
    """Write case folders (input*.bin, golden.bin, ptofuzz.json) for OP on a platform.

    Without --random or explicit flags: the canonical case list of the platform's pto-isa system test
    (spec: the union of the platforms' geometries, in ptofuzz's full-tile layout).
    """
    with _errors():
        from ptofuzz.engine import generate as api
        from ptofuzz.report import console as report

        explicit = {"dtype": dtype, "index_dtype": index_dtype, "shape": _rxc(shape, "--shape"),
                    "dst": _rxc(dst, "--dst"), "src0": _rxc(src0, "--src0"), "src1": _rxc(src1, "--src1"),
                    "inplace": inplace,
                    "sort_width": sort_width, "descending": descending, "contract": 1 if bf16_contract else None,
                    "lists": lists, "blocks": blocks, "exhausted": True if exhausted else None}
        listed = not json_out and (verbose or (random or 0) <= report.LISTED_FOLDERS)
        if random is not None:  # batches of numpy temporaries: see ptofuzz.engine.allocator
            from ptofuzz.engine import allocator

            allocator.keep_freed_memory()
        with report.generating(listed=listed) as on_case:
            result = api.generate(op, platform, out, seed=seed, force=force, random=random, explicit=explicit,
                                  special_rate=special_rate, special=special, allow_undefined=allow_undefined,
                                  bundle=bundle, on_case=on_case, keep=json_out)
        report.generated(result, as_json=json_out, listed=True)


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Case folders, or folders that contain case folders.")],
    platform: Annotated[str | None, typer.Option("--platform", "-p",
                                                    help="Layout for folders without ptofuzz.json.")] = None,
    html: HtmlOpt = None,
    svg: SvgOpt = None,
    junit: JunitCasesOpt = None,
    oracle: Annotated[str | None, typer.Option(
        help="cpusim: recompute cpu case folders with the real pto-isa CPU simulator instead of the model.")] = None,
    pto_isa: PtoIsaOpt = None,
    cache_dir: CacheDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Recompute goldens from the inputs and compare golden.bin (and output.bin) bit for bit."""
    with _errors():
        from ptofuzz.engine.check import check as run_check
        from ptofuzz.report import ci
        from ptofuzz.report import console as report

        _check_exports(html, svg, junit)
        backend = None
        if oracle is not None:
            if oracle != "cpusim":
                raise UsageError(f"--oracle {oracle!r}: check recomputes with the folder's platform model, or with "
                                 "--oracle cpusim (the real simulator, for cpu folders)")
            from ptofuzz.backends.cpusim.backend import CpusimBackend

            backend = CpusimBackend(_sim_settings(pto_isa, cache_dir, None))
        verdicts = run_check(paths, platform, backend)
        if junit is not None:
            ci.checked_junit(junit, verdicts)
        report.checked(verdicts, as_json=json_out, html=html, svg=svg)
        _exit_for([v.verdict for v in verdicts], "fail")


@app.command()
def fuzz(
    op: Annotated[str, typer.Argument(help="Instruction, e.g. tpartadd (see `ptofuzz list`).")],
    oracles: Annotated[str | None, typer.Option(
        help="Comma list of oracles to compare (default: every platform with a model of OP; 'bundle' runs "
             "spec cases through the bundle executor: --oracles spec,bundle).")] = None,
    engine: Annotated[str, typer.Option(help="random (seeded, batched) or atheris (coverage-guided).")] = "random",
    time_s: Annotated[float | None, typer.Option("--time", help="Stop after this many seconds.")] = None,
    runs: Annotated[int | None, typer.Option(help="Stop after this many cases (atheris: executions).")] = None,
    seed: Annotated[int, typer.Option(help="Seed; the same seed draws the same cases.")] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes; random engine: results do not depend on it; atheris: "
                                           "libFuzzer's -fork=N (with --time).")] = 1,
    corpus: Annotated[Path | None, typer.Option(
        help="random: case records replayed first; atheris: the libFuzzer corpus folder (kept across runs).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Save one record folder per signature here "
                                                "(earlier findings there count as seen).")] = None,
    dtype: Annotated[str | None, typer.Option(help="Only this element type.")] = None,
    shape: Annotated[str | None, typer.Option(help="Only this tile shape RxC.")] = None,
    index_dtype: Annotated[str | None, typer.Option(
        help="TPARTARGMAX/MIN: only this index type (cpusim runs 32-bit ones).")] = None,
    batch: Annotated[int, typer.Option(help="Cases per batch of one geometry (random engine).")] = 1024,
    shard: Annotated[str | None, typer.Option(
        help="I/N: run only every N-th batch from batch I (random engine); N machines with the same seed and "
             "--runs together run exactly the cases of one unsharded run.")] = None,
    special: Annotated[str | None, typer.Option(help="Special-value kinds or profile (as for gen).")] = None,
    special_rate: Annotated[float, typer.Option(help="Share of special values.")] = 0.05,
    rerun: Annotated[Path | None, typer.Option(help="atheris: run this one saved fuzzer input (a crash file) "
                                                       "in this process and report its exception.")] = None,
    pto_isa: PtoIsaOpt = None,
    cache_dir: CacheDirOpt = None,
    sanitize: SanitizeOpt = None,
    sim_timeout: SimTimeoutOpt = 10.0,
    sim_plant: PlantOpt = None,
    sim_placeholder_bf16: PlaceholderOpt = False,
    target: Annotated[str | None, typer.Option(
        help="An external target as oracle 'target' (--oracles spec,target): a command template run on each case "
             "folder ({case}, {suite}, {name}) or once per batch of folders ({dir}); it writes output.bin.")] = None,
    target_platform: Annotated[str, typer.Option(help="Whose case folders the target reads (and whose cases "
                                                      "are drawn for it).")] = "cpu",
    target_timeout: Annotated[float, typer.Option(help="Seconds one target command may take.")] = 600.0,
    junit: JunitSignaturesOpt = None,
    sarif: SarifOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Differential fuzzing: run random cases through several oracles and save each kind of disagreement once.

    Exit 1 when a new signature turned up (neither a documented platform difference nor one saved in --out
    before), 0 otherwise.
    """
    with _errors():
        from ptofuzz.engine import campaign
        from ptofuzz.report import ci
        from ptofuzz.report import console as report

        if engine not in ("random", "atheris"):
            raise UsageError(f"--engine {engine!r} is not random or atheris")
        _check_exports(None, None, junit, sarif)
        names = [o.strip() for o in oracles.split(",") if o.strip()] if oracles is not None else None
        if names is not None and not names:
            raise UsageError(f"--oracles {oracles!r} names no oracle; e.g. --oracles spec,cpu")
        sim = _sim_settings(pto_isa, cache_dir, sanitize, sim_timeout, sim_plant, sim_placeholder_bf16) \
            if names is not None and "cpusim" in names else None
        if rerun is not None:
            from ptofuzz.engine import atheris_engine

            plan = campaign.make_plan(op, names, seed=seed, batch=batch, dtype=dtype, shape=_rxc(shape, "--shape"),
                                      index_dtype=index_dtype, special=special, rate=special_rate, sim=sim)
            if not rerun.is_file():
                raise UsageError(f"--rerun {str(rerun)!r} is no file")
            atheris_engine.rerun(plan, rerun)
            typer.echo(f"{rerun}: no exception")
            return
        if time_s is None and runs is None:
            raise UsageError("give --time SECONDS or --runs N (e.g. --time 60)")
        external = None
        if target is not None:
            from ptofuzz.backends.target import TargetBackend

            external = TargetBackend(target, target_platform, target_timeout)
            if names is None:  # the target joins the default oracles
                names = _platforms_of(op)
            if "target" not in names:
                names.append("target")
        if time_s is not None and not (time_s > 0 and time_s < 1e9):
            raise UsageError(f"--time {time_s} must be a positive number of seconds")
        if shard is not None and engine != "random":
            raise UsageError("--shard splits the random engine's batches; libFuzzer (--engine atheris) shares its "
                             "corpus instead: drop --shard")
        plan = campaign.make_plan(op, names, seed=seed, batch=batch, dtype=dtype, shape=_rxc(shape, "--shape"),
                                  index_dtype=index_dtype, special=special, rate=special_rate,
                                  shard=_shard(shard), sim=sim, target=external)
        sim_flags = [f for f, v in (("--pto-isa", pto_isa), ("--cache-dir", cache_dir), ("--sanitize", sanitize),
                                    ("--sim-plant", sim_plant), ("--sim-placeholder-bf16", sim_placeholder_bf16),
                                    ("--sim-timeout", sim_timeout != 10.0)) if v]
        if sim_flags and "cpusim" not in plan.oracles:
            raise UsageError(f"{sim_flags[0]} configures the cpusim oracle; add cpusim to --oracles (e.g. "
                             "--oracles spec,cpu,cpusim) or drop it")
        plan.backends.prepare()  # build (or find) the simulator's harness before the clock starts
        if engine == "random":
            with report.progress(enabled=not json_out) as show:
                store, stats = campaign.run_random(plan, runs=runs, seconds=time_s, jobs=jobs, out=out,
                                                   corpus=corpus, progress=show)
            summary = campaign.summary_json(store, stats)
        else:
            from ptofuzz.engine import atheris_engine

            with report.progress(enabled=not json_out) as show:
                summary, _ = atheris_engine.run(plan, runs=runs, seconds=time_s, out=out, corpus=corpus,
                                                progress=show, jobs=jobs)
        ci.export(ci.campaign_entries(summary), f"ptofuzz fuzz {summary['op'].lower()}", summary["command"],
                  junit=junit, sarif=sarif)
        report.campaign(summary, as_json=json_out)
        if summary["new"]:
            raise typer.Exit(int(ExitCode.MISMATCH))


def _shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    i, slash, n = text.partition("/")
    if not slash or not i.strip().isdigit() or not n.strip().isdigit():
        raise UsageError(f"--shard {text!r}: give I/N, e.g. --shard 0/4 (the first of four machines)")
    return int(i), int(n)


sim_app = typer.Typer(help="The real pto-isa CPU simulator (the cpusim oracle): build it ahead of time.",
                      no_args_is_help=True)
app.add_typer(sim_app, name="sim")


@sim_app.command("build")
def sim_build(
    pto_isa: PtoIsaOpt = None,
    cache_dir: CacheDirOpt = None,
    sanitize: SanitizeOpt = None,
    sim_plant: PlantOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Build (or find in the cache) the cpusim harness; print what it holds and which dtypes compile."""
    with _errors():
        from ptofuzz.backends.cpusim.simulator import Simulator
        from ptofuzz.report import console as report

        sim = Simulator(_sim_settings(pto_isa, cache_dir, sanitize, plant=sim_plant))
        report.sim_built(sim.build(), as_json=json_out)


@app.command()
def run(
    folders: Annotated[list[Path], typer.Argument(help="Case folders, or folders that contain case folders.")],
    target: Annotated[str, typer.Option(help="Command template run per case: {case} (the folder), {suite}, "
                                             "{name}; or once per folder of cases: {dir}.")],
    jobs: Annotated[int, typer.Option(help="Commands run at once.")] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds one command may take.")] = 600.0,
    platform: Annotated[str | None, typer.Option("--platform", "-p",
                                                    help="Layout for folders without ptofuzz.json.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Run an external target (an NPU system test, another implementation) on case folders and check each
    output.bin it writes exactly as `ptofuzz check` does. Exit 1 when a case fails or the target failed on it
    (exited non-zero, timed out, wrote no output.bin), 2 when a case folder cannot be read; each such case prints
    a command that reproduces it."""
    with _errors():
        from ptofuzz.engine.compare import Verdict
        from ptofuzz.engine.run import run as run_target
        from ptofuzz.report import console as report

        verdicts = run_target(target, folders, jobs=jobs, timeout=timeout, platform=platform)
        report.target_ran(verdicts, as_json=json_out)
        if any(v.unreadable for v in verdicts):  # bad input, as for check
            raise typer.Exit(int(ExitCode.USAGE))
        if any(v.verdict is not Verdict.PASS for v in verdicts):
            raise typer.Exit(int(ExitCode.MISMATCH))


@app.command()
def replay(
    paths: Annotated[list[Path], typer.Argument(help="Finding folders, corpus .json records, or folders of them.")],
    junit: JunitRecordsOpt = None,
    sarif: SarifOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run recorded cases through their oracles again; exit 1 when any outcome or signature changed."""
    with _errors():
        from ptofuzz.engine.replay import replay as run
        from ptofuzz.report import ci
        from ptofuzz.report import console as report

        _check_exports(None, None, junit, sarif)
        results = run(paths)
        ci.export(ci.replay_entries(results), "ptofuzz replay", _command_line(), junit=junit, sarif=sarif)
        report.replayed(results, as_json=json_out)
        _exit_for([r.verdict for r in results], "changed")


@app.command()
def minimize(
    case: Annotated[Path, typer.Argument(help="A finding folder (or record .json) to shrink.")],
    signature: Annotated[str | None, typer.Option(help="Keep this signature (default: the finding's).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an earlier minimized copy.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Shrink a disagreement (tile, valid regions, non-zero elements, values) while its signature stays;
    writes the result next to the original as <folder>.min."""
    with _errors():
        from ptofuzz.engine.minimize import minimize_path
        from ptofuzz.report import console as report

        result = minimize_path(case, signature=signature, force=force)
        report.minimized(result, as_json=json_out)


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
    and a heat map of the tile. Exit 1 when they differ."""
    with _errors():
        from ptofuzz.engine import diff as api
        from ptofuzz.engine.compare import Mode
        from ptofuzz.report import ci
        from ptofuzz.report import console as report

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
            results = api.diff_record(golden, pair, mode=m, eps=eps, half_as_bits=half_as_bits)
        else:
            if dtype is None or shape is None:
                raise UsageError("raw files need --dtype and --shape (e.g. --dtype float32 --shape 64x64)")
            results = [api.diff_files(golden, output, dtype, _rxc(shape, "--shape"), valid=_rxc(valid, "--valid"),
                                      mode=m, eps=eps, half_as_bits=half_as_bits)]
        if junit is not None:
            ci.diffs_junit(junit, results)
        report.diffs(results, as_json=json_out, html=html, svg=svg)
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
    (undocumented) disagreement."""
    with _errors():
        from ptofuzz.engine import triage as tri
        from ptofuzz.report import ci
        from ptofuzz.report import console as report

        fields = tri.key_fields([f.strip() for f in by.split(",") if f.strip()] if by else None, split or (),
                                merge or ())
        _check_exports(html, svg, junit, sarif)
        items, skipped = tri.load(paths)
        if not items and not skipped and not any((Path(p) / "campaign.json").is_file() for p in paths):
            raise UsageError(f"{', '.join(repr(str(p)) for p in paths)} holds no fuzz findings and no campaign "
                             "summary; give the --out folder of `ptofuzz fuzz`")
        result = tri.buckets(items, fields, sort)
        ci.export(ci.triage_entries(result), "ptofuzz triage", _command_line(), junit=junit, sarif=sarif)
        report.triaged(result, fields, as_json=json_out, html=html, svg=svg, skipped=skipped)
        if any(not b.known for b in result):
            raise typer.Exit(int(ExitCode.MISMATCH))
        if skipped and not items:  # every record unreadable (said in the report): nothing was triaged
            raise typer.Exit(int(ExitCode.USAGE))


@app.command("asm")
def asm_(
    source: Annotated[Path, typer.Argument(help="Assembly text (.s), one command per line or ';'.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the words here (little-endian u32).")]
    = None,
    hex_out: Annotated[bool, typer.Option("--hex", help="Print the words as hex, one per line.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --out file.")] = False,
) -> None:
    """Assemble bundle commands (BSTART.SFU TSORT, FP32; B.DIM LB0=16; ...; BSTOP) into 32-bit words."""
    with _errors():
        import struct

        from ptofuzz.bundle.asm import AsmError, assemble

        if out is None and not hex_out:
            raise UsageError("give -o FILE.bin or --hex")
        if out is not None:
            from ptofuzz.report.console import check_export_path

            check_export_path(out, "-o")
        try:
            text = _bounded(source, MAX_ASM_BYTES, "an assembly source").decode()
        except UnicodeDecodeError as e:
            raise UsageError(f"cannot read {str(source)!r}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        try:
            words = assemble(text, str(source))
        except AsmError as e:
            raise UsageError(f"{e}") from None
        if out is not None:
            if out.exists() and not force:
                raise UsageError(f"{str(out)!r} already exists; pass --force to overwrite")
            from ptofuzz.core.atomic import write_file

            write_file(out, struct.pack(f"<{len(words)}I", *words))
        if hex_out:
            for w in words:
                typer.echo(f"{w:#010x}")


@app.command()
def disasm(
    source: Annotated[Path | None, typer.Argument(help="Little-endian u32 words (.bin).")] = None,
    hex_words: Annotated[list[str] | None, typer.Option("--hex", help="A word in hex (repeatable) instead of a "
                                                                          "file.")] = None,
    hex_out: Annotated[bool, typer.Option("--show-hex", help="Prefix each line with its word.")] = False,
) -> None:
    """Disassemble bundle command words; an illegal word shows as `.word 0x... # illegal: <reason>`."""
    with _errors():
        from ptofuzz.bundle.asm import disassemble

        if (source is None) == (not hex_words):
            raise UsageError("give a .bin file or --hex WORD (not both)")
        if hex_words:
            words = []
            for h in hex_words:
                try:
                    w = int(h, 16)
                except ValueError:
                    raise UsageError(f"--hex {h!r} is not a hex word (e.g. 0x0EC19181)") from None
                if not 0 <= w <= 0xFFFFFFFF:
                    raise UsageError(f"--hex {h!r} does not fit 32 bits")
                words.append(w)
        else:
            assert source is not None
            data = _bounded(source, MAX_BUNDLE_BYTES, "a bundle")
            if len(data) % 4:
                raise UsageError(f"{str(source)!r} holds {len(data)} bytes, not a whole number of 32-bit words")
            import struct

            words = list(struct.unpack(f"<{len(data) // 4}I", data))
        for start in range(0, len(words), 1 << 14):  # a write per chunk: an echo per line costs more than decoding
            chunk = words[start:start + (1 << 14)]
            lines = disassemble(chunk)
            if hex_out:
                lines = [f"{w:#010x}  {line}" for w, line in zip(chunk, lines)]
            typer.echo("\n".join(lines))


MAX_ASM_BYTES = 4 << 20  # an assembly source (a bundle of 1M commands is far beyond any real one)
MAX_BUNDLE_BYTES = 4 << 20  # 1,048,576 command words


def _bounded(path: Path, limit: int, what: str) -> bytes:
    """A file's bytes, reading at most ``limit`` (so /dev/zero, a huge or sparse file costs no memory; a FIFO,
    which would wait for a writer, is refused)."""
    from ptofuzz.core import reading

    try:
        return reading.read_bytes(path, limit, devices=True)
    except ValueError as e:
        raise UsageError(f"cannot read {str(path)!r} as {what}: {e}; give the right file") from None


@app.command("list")
def list_(json_out: JsonOpt = False) -> None:
    """Print the instruction x platform x dtype capability matrix."""
    with _errors():
        from ptofuzz.engine.capabilities import capabilities
        from ptofuzz.report import console as report

        report.capabilities(capabilities(), as_json=json_out)


def main() -> None:
    app(prog_name="ptofuzz")


if __name__ == "__main__":  # pragma: no cover
    main()
