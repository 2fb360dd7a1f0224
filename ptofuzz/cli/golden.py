"""``ptofuzz gen`` and ``ptofuzz check``: golden data for pto-isa's system tests, and checking it.
"""

# No "from __future__ import annotations" here: typer reads every command's annotations when it builds the CLI,
# twice per command; as strings they would be parsed and evaluated each time (about a fifth of `ptofuzz --help`),
# as plain annotations they are built once, at import.
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ptofuzz.cli.common import (
    AslrefOpt,
    CacheDirOpt,
    DrawVersionOpt,
    HtmlOpt,
    JsonOpt,
    JunitCasesOpt,
    PlatformOpt,
    PtoIsaOpt,
    SpecAslOpt,
    SvgOpt,
    _aslref_settings,
    _built_first,
    _check_exports,
    _errors,
    _exit_for,
    _rxc,
    _say,
    _sim_settings,
    app,
)
from ptofuzz.core.errors import UsageError

if TYPE_CHECKING:
    from ptofuzz.backends.base import Backend


@app.command()
def gen(
    op: Annotated[str, typer.Argument(help="Instruction, e.g. tpartadd (see `ptofuzz list`).")],
    platform: PlatformOpt,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write case folders into.")] = Path("."),
    seed: Annotated[int, typer.Option(help="Seed; the same seed writes the same bytes.")] = 0,
    draw_version: DrawVersionOpt = 2,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing case folders.")] = False,
    random: Annotated[int | None, typer.Option("--random", help="Write N random legal cases.")] = None,
    dtype: Annotated[str | None, typer.Option(help="Element type (float32, half, bf16, int8, u16, ...).")] = None,
    index_dtype: Annotated[str | None, typer.Option(
        help="TPARTARGMAX/MIN: element type of the index tiles (default uint32).")] = None,
    to: Annotated[str | None, typer.Option(help="TCVT: the destination's element type.")] = None,
    rmode: Annotated[int | None, typer.Option(help="TCVT: pto::RoundMode 0..6 (CAST_NONE, CAST_RINT, CAST_ROUND, "
                                                   "CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD); spec: 7 is "
                                                   "pto-spec's RHB.")] = None,
    sat: Annotated[str | None, typer.Option(help="TCVT: saturation on or off (default: the target's).")] = None,
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
    bundle: Annotated[bool, typer.Option("--bundle", help="spec TSORT/TMRGSORT/TPART*/elementwise: also write the "
                                                          "case as a PTO bundle (bundle.bin, bundle.s, expected "
                                                          "outcome).")] = False,
    json_out: JsonOpt = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="A line per case folder, however many (by "
                                                                   "default beyond 100 only the summary).")] = False,
) -> None:
    """Write case folders (input*.bin, golden.bin, ptofuzz.json) for OP on a platform.

    Without --random or explicit flags: the canonical case list of the platform's pto-isa system test
    (spec: the union of the platforms' geometries, in ptofuzz's full-tile layout). "N golden elements not exact":
    elements the documents leave open (some NaN, either zero, undefined), marked in ptofuzz.json.

    Examples: `ptofuzz gen tpartadd --platform a5`, `ptofuzz gen tpartmax --platform cpu --random 500 --special
    nan -o cases`, `ptofuzz gen tpartmul --platform a2a3 --dtype half --dst 8x16`.
    """
    with _errors():
        from ptofuzz.engine import generate as api
        from ptofuzz.report import case_folders

        explicit = {"dtype": dtype, "index_dtype": index_dtype, "to": to, "rmode": rmode, "sat": sat,
                    "shape": _rxc(shape, "--shape"),
                    "dst": _rxc(dst, "--dst"), "src0": _rxc(src0, "--src0"), "src1": _rxc(src1, "--src1"),
                    "inplace": inplace,
                    "sort_width": sort_width, "descending": descending, "contract": 1 if bf16_contract else None,
                    "lists": lists, "blocks": blocks, "exhausted": True if exhausted else None}
        listed = not json_out and (verbose or (random or 0) <= case_folders.LISTED_FOLDERS)
        if random is not None:  # batches of numpy temporaries: see ptofuzz.engine.allocator
            from ptofuzz.engine import allocator

            allocator.keep_freed_memory()
        with case_folders.generating(listed=listed) as on_case:
            result = api.generate(op, platform, out, seed=seed, force=force, random=random, explicit=explicit,
                                  special_rate=special_rate, special=special, allow_undefined=allow_undefined,
                                  bundle=bundle, on_case=on_case, keep=json_out, draw_version=draw_version)
        case_folders.generated(result, as_json=json_out, listed=True)


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Case folders, or folders that contain case folders.")],
    platform: Annotated[str | None, typer.Option("--platform", "-p",
                                                    help="Layout for folders without ptofuzz.json.")] = None,
    html: HtmlOpt = None,
    svg: SvgOpt = None,
    junit: JunitCasesOpt = None,
    oracle: Annotated[str | None, typer.Option(
        help="Recompute with real code instead of the model: cpusim (the pto-isa CPU simulator, cpu folders; "
             "cpusim-clang: built with clang++) or aslref (pto-spec's own ASL model, spec folders).")] = None,
    pto_isa: PtoIsaOpt = None,
    cache_dir: CacheDirOpt = None,
    aslref: AslrefOpt = None,
    spec_asl: SpecAslOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Recompute goldens from the inputs and compare golden.bin (and output.bin) bit for bit.

    Examples: `ptofuzz check cases/`, `ptofuzz check build/ --platform a5 --junit check.xml`, `ptofuzz check cases/
    --oracle cpusim`, `ptofuzz check spec-cases/ --oracle aslref`.
    """
    with _errors():
        from ptofuzz.backends.base import ASLREF
        from ptofuzz.engine.check import check as run_check
        from ptofuzz.report import case_folders, ci

        _check_exports(html, svg, junit)
        asl = _aslref_settings(aslref, spec_asl, [oracle] if oracle else [])
        backend: Backend | None = None
        if oracle == ASLREF:
            from ptofuzz.backends.aslref import AslrefBackend

            asl.paths()  # where the interpreter and model are, or one line saying what to set
            backend = AslrefBackend(asl)
        elif oracle is not None:
            if oracle not in ("cpusim", "cpusim-clang"):
                raise UsageError(f"--oracle {oracle!r}: check recomputes with the folder's platform model, or with "
                                 "--oracle cpusim (the real simulator, for cpu folders; cpusim-clang: built with "
                                 "clang++) or --oracle aslref (pto-spec's ASL model, for spec folders)")
            from ptofuzz.backends.cpusim.backend import ClangCpusimBackend, CpusimBackend
            from ptofuzz.io import casefolder

            folders = casefolder.discover(list(paths))  # a missing path is said before a first build's minute
            settings = _sim_settings(pto_isa, cache_dir, None, ops=_ops_of(folders, platform))
            sim = CpusimBackend(settings) if oracle == "cpusim" else ClangCpusimBackend(settings.with_clang())
            if sim.settings.ops:  # none: no folder the simulator runs (the check says why of each)
                _built_first(sim.settings)
            backend = sim
        verdicts = run_check(paths, platform, backend)
        if junit is not None:
            ci.checked_junit(junit, verdicts)
        case_folders.checked(verdicts, as_json=json_out, html=html, svg=svg)
        _exit_for([v.verdict for v in verdicts], "fail")


def _ops_of(folders: list[Path], platform: str | None) -> tuple[str, ...]:
    """The instructions of the cpu case folders the simulator can run (its build then compiles only those); a folder
    that does not load is left to the check, which reports it."""
    from ptofuzz.backends.cpusim import build
    from ptofuzz.core import platforms
    from ptofuzz.io import casefolder

    ops = set()
    for folder in folders:
        try:
            case = casefolder.load(folder, platform).case
        except Exception:  # noqa: BLE001 - reported by the check itself, with its reason
            continue
        if platforms.get(case.platform).kind == platforms.CPU:
            ops.add(case.op)
    return tuple(sorted(ops & set(build.OPS)))


@app.command("st")
def st(
    ops: Annotated[list[str] | None, typer.Argument(help="Instructions (default: every one with a system test of "
                                                          "the platform in the tree).")] = None,
    platform: Annotated[str, typer.Option("--platform", "-p", help="cpu, or an NPU (a2a3, a5, kirin9030, kirinX90, "
                                                                   "kirinDev0000: through run_st.py).")] = "cpu",
    runner: Annotated[str | None, typer.Option(
        help="cmake (cpu default: ptofuzz drives pto-isa's CMake), run_cpu (tests/run_cpu.py), run_st (NPU "
             "default: tests/script/run_st.py from an overlay of the tree).")] = None,
    run_mode: Annotated[str | None, typer.Option(help="run_st.py's -r: npu (default) or sim (CANN's simulator).")
                        ] = None,
    stand_in: Annotated[Path | None, typer.Option(
        help="run_st only: run this program in place of the device test binary (run_st.py -w, no build); it runs "
             "in build/bin and finds the cases in ../<Suite>.<case>/.")] = None,
    pto_isa: PtoIsaOpt = None,
    cache_dir: CacheDirOpt = None,
    timeout: Annotated[float, typer.Option(help="Seconds one test binary (or runner) may run.")] = 600.0,
    junit: JunitCasesOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run pto-isa's own system tests on ptofuzz's data: build each test with pto-isa's CMake or its runner
    script (in ptofuzz's cache, never in the tree), with ptofuzz's canonical cases where it reads them, run it, and
    check each output.bin bit for bit; both verdicts side by side, and why a failing case fails. Exit 1 when any
    fails.

    The CPU tests need cmake, GTest and clang >= 15 or g++ >= 13 (apt-get install clang-19 libgtest-dev cmake);
    the NPU tests, CANN (ASCEND_HOME_PATH) and a device, or --stand-in.
    Examples: `ptofuzz st tpartadd --pto-isa ~/pto-isa`, `ptofuzz st --junit st.xml --json`,
    `ptofuzz st tpartadd --runner run_cpu`, `ptofuzz st tpartadd --platform a5` (on an Ascend machine).
    """
    with _errors():
        from ptofuzz.backends.cpusim.build import Settings
        from ptofuzz.engine import systest
        from ptofuzz.report import case_folders, ci

        _check_exports(None, None, junit)
        if not 0 < timeout <= 1e6:
            raise UsageError(f"--timeout {timeout} must be a positive number of seconds, at most 1e6")
        systest.pick_runner(platform, runner, stand_in, run_mode)
        if pto_isa is None and not os.environ.get("PTO_ISA_DIR"):
            raise UsageError("ptofuzz st runs pto-isa's own tests: pass --pto-isa DIR or set PTO_ISA_DIR (the root "
                             "of a pto-isa checkout)")
        settings = Settings(pto_isa, cache_dir)
        cases = systest.run(ops or [], settings.tree(), settings.cache_root(), platform=platform, runner=runner,
                            run_mode=run_mode, stand_in=stand_in, timeout=timeout, say=_say)
        if junit is not None:
            ci.junit_cases(junit, "ptofuzz st", [(c.name, c.why if c.verdict == "fail" else None, c.reproduce)
                                                 for c in cases],
                           skipped={c.name: c.why for c in cases if c.verdict == "skip"})
        case_folders.st_ran(cases, as_json=json_out)
        _exit_for([c.verdict for c in cases], "fail")
