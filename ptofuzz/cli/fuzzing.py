"""``ptofuzz fuzz``, ``sim build``, ``run``, ``replay`` and ``minimize``: differential fuzzing, the real
simulator, external targets and saved findings.
"""

# No "from __future__ import annotations" here: typer reads every command's annotations when it builds the CLI,
# twice per command; as strings they would be parsed and evaluated each time (about a fifth of `ptofuzz --help`),
# as plain annotations they are built once, at import.
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ptofuzz.backends.base import ASLREF
from ptofuzz.cli.common import (
    AslrefOpt,
    CacheDirOpt,
    DrawVersionOpt,
    JsonOpt,
    JunitRecordsOpt,
    JunitSignaturesOpt,
    PlaceholderOpt,
    PlantOpt,
    PtoIsaOpt,
    SanitizeOpt,
    SarifOpt,
    SimTimeoutOpt,
    SpecAslOpt,
    _aslref_settings,
    _built_first,
    _check_exports,
    _command_line,
    _errors,
    _exit_for,
    _platforms_of,
    _rxc,
    _say,
    _sim_settings,
    app,
)
from ptofuzz.core.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from ptofuzz.backends.cpusim.build import Settings

ASLREF_BATCH = 8  # the aslref oracle's default batch: small, for many geometries (batches share its runs)


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
    draw_version: DrawVersionOpt = 2,
    jobs: Annotated[int, typer.Option(help="Worker processes; random engine: results do not depend on it; atheris: "
                                           "libFuzzer's -fork=N (with --time).")] = 1,
    corpus: Annotated[Path | None, typer.Option(
        help="random: case records replayed first; atheris: the libFuzzer corpus folder (kept across runs).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Save one record folder per signature here "
                                                "(earlier findings there count as seen).")] = None,
    dtype: Annotated[str | None, typer.Option(
        help="Only this element type, or these (a comma list, one drawn a batch: int8,int16,int32).")] = None,
    shape: Annotated[str | None, typer.Option(help="Only this tile shape RxC.")] = None,
    to: Annotated[str | None, typer.Option(help="TCVT: only this destination type.")] = None,
    index_dtype: Annotated[str | None, typer.Option(
        help="TPARTARGMAX/MIN: only this index type (cpusim runs 32-bit ones).")] = None,
    batch: Annotated[int | None, typer.Option(
        help="Cases per batch of one geometry (random engine); default 1024, 8 with the aslref oracle (pto-spec's "
             "ASL runs 64 cases or more in one interpreter run, however many batches: about 3.5 s to load, then "
             "0.1-0.3 s a case of 256 elements).")] = None,
    max_elements: Annotated[int | None, typer.Option(
        help="Largest tile drawn, in elements (default 4096; 256 with the aslref oracle).")] = None,
    illegal_share: Annotated[float | None, typer.Option(
        help="Share of the spec cases drawn to break a legality rule, 0 to 1 (default 0.125; 1: legality "
             "fuzzing, every spec case should fault).")] = None,
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
    aslref: AslrefOpt = None,
    spec_asl: SpecAslOpt = None,
    native_coverage: Annotated[bool | None, typer.Option(
        "--native-coverage/--no-native-coverage",
        help="atheris with a cpusim oracle: run the simulator in this process from a clang build instrumented for "
             "libFuzzer, so that its branches guide the fuzzer (default on; needs clang++).")] = None,
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

    Examples: `ptofuzz fuzz tpartadd --runs 100000 --out findings`, `ptofuzz fuzz tpartmax --oracles spec,cpu,cpusim
    --time 60 --jobs 2`, `ptofuzz fuzz tsort32 --engine atheris --time 300 --corpus corpus/`.
    """
    with _errors():
        from ptofuzz.engine import campaign
        from ptofuzz.report import campaigns, ci

        if engine not in ("random", "atheris"):
            raise UsageError(f"--engine {engine!r} is not random or atheris")
        _check_exports(None, None, junit, sarif)
        names = [o.strip() for o in oracles.split(",") if o.strip()] if oracles is not None else None
        if names is not None and not names:
            raise UsageError(f"--oracles {oracles!r} names no oracle; e.g. --oracles spec,cpu")
        if batch is None:
            batch = ASLREF_BATCH if names is not None and ASLREF in names else 1024
        asl = _aslref_settings(aslref, spec_asl, names or ())
        sim = _sim_settings(pto_isa, cache_dir, sanitize, sim_timeout, sim_plant, sim_placeholder_bf16,
                            ops=_cpusim_ops(op)) if names is not None and _simulated(names) else None
        sim = _with_native_coverage(sim, native_coverage, engine, rerun is not None, sanitize)
        if rerun is not None:
            from ptofuzz.engine import atheris_engine

            plan = campaign.make_plan(op, names, seed=seed, batch=batch, dtype=dtype, shape=_rxc(shape, "--shape"),
                                      index_dtype=index_dtype, to=to, special=special, rate=special_rate, sim=sim,
                                      draw_version=draw_version, max_elements=max_elements, aslref=asl,
                                      illegal_share=illegal_share)
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
                                  index_dtype=index_dtype, to=to, special=special, rate=special_rate,
                                  shard=_shard(shard), sim=sim, target=external, draw_version=draw_version,
                                  max_elements=max_elements, aslref=asl, illegal_share=illegal_share)
        sim_flags = [f for f, v in (("--pto-isa", pto_isa), ("--cache-dir", cache_dir), ("--sanitize", sanitize),
                                    ("--sim-plant", sim_plant), ("--sim-placeholder-bf16", sim_placeholder_bf16),
                                    ("--sim-timeout", sim_timeout != 10.0)) if v]
        if sim_flags and not _simulated(plan.oracles):
            raise UsageError(f"{sim_flags[0]} configures the cpusim oracle; add cpusim to --oracles (e.g. "
                             "--oracles spec,cpu,cpusim) or drop it")
        if sim is not None:
            for built in (sim if o == "cpusim" else sim.with_clang() for o in plan.oracles if _simulated((o,))):
                _built_first(built)  # a first build says what it does (a minute or more) before the campaign starts
        plan.backends.prepare()  # build (or find) the simulator's harness before the clock starts
        if engine == "random":
            with campaigns.progress(enabled=not json_out, every_batch=ASLREF in plan.oracles) as show:
                store, stats = campaign.run_random(plan, runs=runs, seconds=time_s, jobs=jobs, out=out,
                                                   corpus=corpus, progress=show)
            summary = campaign.summary_json(store, stats)
        else:
            from ptofuzz.engine import atheris_engine

            with campaigns.progress(enabled=not json_out) as show:
                summary, _ = atheris_engine.run(plan, runs=runs, seconds=time_s, out=out, corpus=corpus,
                                                progress=show, jobs=jobs)
        ci.export(ci.campaign_entries(summary), f"ptofuzz fuzz {summary['op'].lower()}", summary["command"],
                  junit=junit, sarif=sarif)
        campaigns.campaign(summary, as_json=json_out)
        if summary["new"]:
            raise typer.Exit(int(ExitCode.MISMATCH))


def _with_native_coverage(sim: "Settings | None", wanted: bool | None, engine: str, rerun: bool,
                          sanitize: str | None) -> "Settings | None":
    """The simulator's settings with native coverage on where it applies: the atheris engine (or its --rerun) with
    a cpusim oracle, unless --no-native-coverage (or --sanitize, which needs the harness out of process)."""
    import dataclasses

    guided = engine == "atheris" or rerun
    if wanted and not guided:
        raise UsageError("--native-coverage guides libFuzzer by the simulator's branches: it goes with --engine "
                         "atheris; drop it for the random engine")
    if wanted and sim is None:
        raise UsageError("--native-coverage instruments the simulator: add cpusim to --oracles (e.g. --oracles "
                         "cpu,cpusim)")
    if sim is None or not guided or wanted is False or (wanted is None and sanitize):
        return sim
    return dataclasses.replace(sim, coverage=True)


def _simulated(names: Sequence[str]) -> bool:
    """Whether the oracles include a build of the simulator (``cpusim`` or ``cpusim-clang``)."""
    from ptofuzz.backends.base import SIMULATORS

    return any(n in SIMULATORS for n in names)


def _cpusim_ops(op: str) -> tuple[str, ...]:
    """The instructions a campaign of ``op`` needs in the simulator's build: ``op`` when the harness has it
    (else none, and the campaign names what cpusim runs)."""
    from ptofuzz.backends.cpusim.build import OPS
    from ptofuzz.instructions import registry

    name = registry.get(op).name
    return (name,) if name in OPS else ()


def _shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    i, slash, n = text.partition("/")
    if not slash or not i.strip().isdigit() or not n.strip().isdigit():
        raise UsageError(f"--shard {text!r}: give I/N, e.g. --shard 0/4 (the first of four machines)")
    return int(i), int(n)


sim_app = typer.Typer(help="The real pto-isa CPU simulator (the cpusim oracle): build it ahead of time.",
                      no_args_is_help=True)


@sim_app.command("build")
def sim_build(
    pto_isa: PtoIsaOpt = None,
    cache_dir: CacheDirOpt = None,
    sanitize: SanitizeOpt = None,
    sim_plant: PlantOpt = None,
    op: Annotated[str | None, typer.Option(
        "--op", help="Only these instructions (comma-separated, e.g. tadd,tmax); default every one cpusim runs.")]
        = None,
    native_coverage: Annotated[bool, typer.Option(
        "--native-coverage", help="The atheris engine's in-process build: a shared library instrumented for "
                                  "libFuzzer (clang++).")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Build (or find in the cache) the cpusim harness; print what it holds and which dtypes compile. Each
    instruction is an object of its own, compiled in parallel and cached, so a later build of more instructions
    compiles only the new ones.

    Examples: `ptofuzz sim build --pto-isa ~/pto-isa`, `ptofuzz sim build --op tadd`,
    `ptofuzz sim build --sanitize address,undefined --json`, `ptofuzz sim build --op tmrgsort --native-coverage`.
    """
    with _errors():
        from ptofuzz.backends.cpusim.build import OPS
        from ptofuzz.backends.cpusim.simulator import Simulator
        from ptofuzz.report import case_folders

        ops: tuple[str, ...] = ()
        if op is not None:
            ops = tuple(dict.fromkeys(o.strip().upper() for o in op.split(",") if o.strip()))
            bad = next((o for o in ops if o not in OPS), None) if ops else op
            if bad is not None:
                raise UsageError(f"--op {bad.lower()!r} is not an instruction cpusim runs; choose from: "
                                 f"{', '.join(o.lower() for o in OPS)}")
        settings = _sim_settings(pto_isa, cache_dir, sanitize, plant=sim_plant, ops=ops)
        if native_coverage:
            import dataclasses

            settings = dataclasses.replace(settings, coverage=True)
        sim = Simulator(settings, say=_say)
        build = sim.build()
        target = sim.target()  # this tree's path and commit: a build may be shared with another tree's headers
        case_folders.sim_built(build, target["pto_isa"], target["pto_isa_commit"], as_json=json_out)


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
    a command that reproduces it.

    Example: `ptofuzz run cases/ --target './my_target {case}' --jobs 4 --timeout 60`.
    """
    with _errors():
        from ptofuzz.engine.compare import Verdict
        from ptofuzz.engine.run import run as run_target
        from ptofuzz.report import case_folders

        verdicts = run_target(target, folders, jobs=jobs, timeout=timeout, platform=platform)
        case_folders.target_ran(verdicts, as_json=json_out)
        if any(v.unreadable for v in verdicts):  # bad input, as for check
            raise typer.Exit(int(ExitCode.USAGE))
        if any(v.verdict is not Verdict.PASS for v in verdicts):
            raise typer.Exit(int(ExitCode.MISMATCH))


@app.command()
def replay(
    paths: Annotated[list[Path], typer.Argument(help="Finding folders, corpus .json records, or folders of them.")],
    junit: JunitRecordsOpt = None,
    sarif: SarifOpt = None,
    aslref: AslrefOpt = None,
    spec_asl: SpecAslOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run recorded cases through their oracles again; exit 1 when any outcome or signature changed.

    Examples: `ptofuzz replay findings/`, `ptofuzz replay findings/TPARTADD_float_cpu-vs-spec_..._8c9ffbb3 --json`.
    """
    with _errors():
        from ptofuzz.engine.replay import replay as run
        from ptofuzz.report import campaigns, ci

        _check_exports(None, None, junit, sarif)
        asl = _aslref_settings(aslref, spec_asl, None)
        if aslref is not None or spec_asl is not None:
            asl.paths()  # a wrong path is said once, not per record
        results = run(paths, aslref=asl)
        ci.export(ci.replay_entries(results), "ptofuzz replay", _command_line(), junit=junit, sarif=sarif)
        campaigns.replayed(results, as_json=json_out)
        _exit_for([r.verdict for r in results], "changed")


@app.command()
def minimize(
    case: Annotated[Path, typer.Argument(help="A finding folder (or record .json) to shrink.")],
    signature: Annotated[str | None, typer.Option(help="Keep this signature (default: the finding's).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an earlier minimized copy.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Shrink a disagreement (tile, valid regions, non-zero elements, values) while its signature stays;
    writes the result next to the original as <folder>.min.

    Example: `ptofuzz minimize findings/TPARTMAX_float_cpu-vs-spec_nan-vs-number_op_-_8c9ffbb3`.
    """
    with _errors():
        from ptofuzz.engine.minimize import minimize_path
        from ptofuzz.report import campaigns

        result = minimize_path(case, signature=signature, force=force)
        campaigns.minimized(result, as_json=json_out)
