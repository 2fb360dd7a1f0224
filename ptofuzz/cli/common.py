"""What every command shares: the typer app, the option types, one-line errors and exit codes, and the
simulator's options turned into its settings. Exit codes: 0 ok, 1 mismatch, 2 usage or bad input, 3 internal
error.
"""

# No "from __future__ import annotations" here: typer reads every command's annotations when it builds the CLI,
# twice per command; as strings they would be parsed and evaluated each time (about a fifth of `ptofuzz --help`),
# as plain annotations they are built once, at import.
import contextlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, overload

import typer

from ptofuzz import __version__
from ptofuzz.core import platforms
from ptofuzz.core.errors import ExitCode, UsageError, one_line

if TYPE_CHECKING:
    from ptofuzz.backends.aslref import AslrefSettings
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
    from ptofuzz.report.terminal import check_export_path

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


# the default is ptofuzz.generators.source.DRAW_VERSION (written out: the CLI imports no numpy to show --help)
DrawVersionOpt = Annotated[int, typer.Option(
    help="What the seed draws: 2, ptofuzz's own stream (the same bytes under any numpy), or 1, numpy's PCG64 as "
         "ptofuzz drew before draw versions were recorded (to reproduce such a seed).")]
PtoIsaOpt = Annotated[Path | None, typer.Option(
    "--pto-isa", help="cpusim: the pto-isa tree to build the CPU simulator from (default: $PTO_ISA_DIR).")]


CacheDirOpt = Annotated[Path | None, typer.Option(
    help="cpusim: build cache folder (default: $XDG_CACHE_HOME/ptofuzz, else ~/.cache/ptofuzz).")]


AslrefOpt = Annotated[Path | None, typer.Option(
    "--aslref", help="aslref: the ASLRef interpreter executable (default: $PTO_ASLREF).")]


SpecAslOpt = Annotated[Path | None, typer.Option(
    "--spec-asl", help="aslref: pto-spec's assembled model, pto-spec.asl (default: $PTO_SPEC_ASL).")]


SanitizeOpt = Annotated[str | None, typer.Option(
    help="cpusim: build the harness with sanitizers: address, undefined or address,undefined.")]


SimTimeoutOpt = Annotated[float, typer.Option(help="cpusim: seconds one batch may take before it is a hang.")]


PlantOpt = Annotated[str | None, typer.Option(hidden=True, help="Test only: plant a bug (oob, hang, deep, or off).")]


PlaceholderOpt = Annotated[bool, typer.Option(
    help="cpusim: run bfloat16 even when the build's bfloat16_t is pto-isa's _Float16 placeholder.")]


def _sim_settings(pto_isa: Path | None, cache_dir: Path | None, sanitize: str | None,
                  timeout: float = 10.0, plant: str | None = None, placeholder_bf16: bool = False,
                  ops: tuple[str, ...] = ()) -> "Settings":
    """The cpusim oracle's settings from its options (one-line errors for bad ones); ``ops``: the instructions
    the command runs (its build compiles only those; default all)."""
    from ptofuzz.backends.cpusim import build

    san = tuple(s.strip() for s in sanitize.split(",") if s.strip()) if sanitize else ()
    build.sanitize_flags(san)  # an unknown sanitizer is named before anything runs
    if not 0 < timeout <= 1e6:
        raise UsageError(f"--sim-timeout {timeout} must be a positive number of seconds, at most 1e6")
    return build.Settings(pto_isa, cache_dir, None, san, plant, timeout, placeholder_bf16, ops)


def _say(text: str) -> None:
    """A progress line on stderr (what a long step is doing), kept out of stdout and its JSON."""
    sys.stderr.write(f"ptofuzz: {text}\n")
    sys.stderr.flush()


def _built_first(settings: "Settings") -> None:
    """Build the simulator now, saying what the build does, when the cache has none (a first build takes a minute
    or more; the backend then finds it in the cache)."""
    from ptofuzz.backends.cpusim import build
    from ptofuzz.backends.cpusim.simulator import Simulator

    if build.lookup(settings) is None:
        Simulator(settings, say=_say).build()


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


def _aslref_settings(aslref: Path | None, spec_asl: Path | None, oracles: Sequence[str] | None
                     ) -> "AslrefSettings":
    """The aslref oracle's settings from ``--aslref`` / ``--spec-asl`` (the environment otherwise); either option
    without the aslref oracle among ``oracles`` is refused (None: the command always may run it)."""
    from ptofuzz.backends.aslref import AslrefSettings
    from ptofuzz.backends.base import ASLREF

    given = [f for f, v in (("--aslref", aslref), ("--spec-asl", spec_asl)) if v is not None]
    if given and oracles is not None and ASLREF not in oracles:
        raise UsageError(f"{given[0]} configures the aslref oracle; add aslref to the oracles (e.g. --oracles "
                         "spec,aslref) or drop it")
    return AslrefSettings(str(aslref) if aslref else None, str(spec_asl) if spec_asl else None)
