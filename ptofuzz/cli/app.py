"""The ``ptofuzz`` command line: a thin typer layer over the engine.

Each command parses its options, makes one engine call and hands the result to :mod:`ptofuzz.report`; the
commands live in the modules named for their workflow (imported here in the order ``--help`` lists them).
numpy, the oracles and rich are imported inside the commands so that ``ptofuzz --help`` stays fast.
"""

# No "from __future__ import annotations" here: typer reads every command's annotations when it builds the CLI,
# twice per command; as strings they would be parsed and evaluated each time (about a fifth of `ptofuzz --help`),
# as plain annotations they are built once, at import.
import sys
from typing import Annotated, Optional

import typer

# isort: off
# each import registers its commands on the app: this order is the order `ptofuzz --help` lists them in
from ptofuzz.cli.common import JsonOpt, _errors, app
from ptofuzz.cli import golden  # noqa: F401 - gen, check
from ptofuzz.cli import fuzzing  # fuzz, sim build, run, replay, minimize
from ptofuzz.cli import triage  # noqa: F401 - diff, triage
from ptofuzz.cli import bundles  # noqa: F401 - asm, disasm
# isort: on

app.add_typer(fuzzing.sim_app, name="sim")


@app.command("list")
def list_(
    ops: Annotated[Optional[list[str]], typer.Argument(help="Only these instructions (default: all).")] = None,
    platform: Annotated[Optional[str], typer.Option("--platform", "-p", help="Only this platform (or cpusim).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Print the instruction x platform x dtype capability matrix.

    Examples: `ptofuzz list`, `ptofuzz list tpartadd tsort32`, `ptofuzz list --platform a5 --json`.
    """
    with _errors():
        from ptofuzz.core import platforms
        from ptofuzz.core.errors import UsageError
        from ptofuzz.engine.capabilities import capabilities
        from ptofuzz.instructions import registry
        from ptofuzz.report import case_folders

        names = {registry.get(op).name for op in ops or ()}  # an unknown name: one line naming the known ones
        plat = None
        if platform is not None:
            plat = "cpusim" if platform == "cpusim" else platforms.canonical(platform)
        rows = [r for r in capabilities()
                if (not names or r["op"] in names) and (plat is None or r["platform"] == plat)]
        if not rows:
            raise UsageError(f"no instruction of {', '.join(sorted(names)) or 'ptofuzz'} runs on {plat}; "
                             "see `ptofuzz list`")
        case_folders.capabilities(rows, as_json=json_out)


def main() -> None:
    """Run the command line; an option the parser refuses is one line (``ptofuzz: error: ...``, naming the bad
    option and where the help is), exit 2, like every other bad input."""
    from ptofuzz.core.text import printable

    try:
        code = app(prog_name="ptofuzz", standalone_mode=False)
    except Exception as e:  # only the parser's errors (and an interrupt while it runs) become a line here
        if type(e).__name__ == "Abort":  # an interrupt outside any command's own handling (while parsing)
            sys.stderr.write("ptofuzz: error: interrupted\n")
            raise SystemExit(130) from None
        # the parser's UsageError (click's, or the copy newer typers vendor): matched by what it has, not its module
        if not (hasattr(e, "format_message") and getattr(e, "exit_code", None) == 2):
            raise
        if type(e).__name__ == "NoArgsIsHelpError":  # a bare `ptofuzz` or `ptofuzz sim`: the help, as before
            e.show()  # type: ignore[attr-defined]
            raise SystemExit(2) from None
        ctx = getattr(e, "ctx", None)
        where = ctx.command_path if ctx is not None else "ptofuzz"
        message = " ".join(e.format_message().split()).rstrip(".")
        sys.stderr.write(f"ptofuzz: error: {printable(message)}; see '{where} --help'\n")
        raise SystemExit(2) from None
    raise SystemExit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
