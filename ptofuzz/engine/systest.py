"""``ptofuzz st``: pto-isa's own system tests run on ptofuzz's data.

For each instruction: its system test is built from the user's tree, by ptofuzz with pto-isa's CMake
(:mod:`ptofuzz.backends.systest`) or by pto-isa's runner script (:mod:`ptofuzz.backends.runners`); ptofuzz's
canonical case folders are written where the test reads them, the test binary runs, and each case gets two
verdicts side by side: pto-isa's own (gtest, its tolerant ``ResultCmp``) and ptofuzz's (``check``: the
``output.bin`` bit for bit against the documented golden, and the inputs and golden still the files ptofuzz
wrote). A case that fails says which side is the reason.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ptofuzz.backends import runners, systest
from ptofuzz.core import platforms, processes
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.engine.check import check_case
from ptofuzz.engine.verdicts import CaseVerdict, failure_summary
from ptofuzz.instructions import registry

PASS, FAIL, SKIP = "pass", "fail", "skip"


@dataclasses.dataclass(frozen=True)
class StCase:
    """One case of a system test run on ptofuzz's data."""

    op: str
    name: str  # Suite.case, the case folder's name
    path: Path
    gtest: str  # pass, fail, "not run" (the report has no such test) or "no report" (the binary wrote none)
    check: CaseVerdict | None
    verdict: str  # pass, fail, or skip (the test binary defines no such case)
    why: str = ""  # for a failure: which side is the reason; for a skip, why the binary lacks the case
    platform: str = "cpu"
    rerun: str = ""  # the shell command that runs the test of this case again

    @property
    def reproduce(self) -> str:
        return f"{self.rerun} && ptofuzz check {self.path}"


def covered(tree: Path, platform: str = "cpu") -> list[str]:
    """The instructions with a model, canonical cases and a system test in ``tree`` on ``platform``."""
    canon = platforms.canonical(platform)
    out = []
    for name, inst in registry.all_instructions().items():
        if canon in inst.platforms and inst.support(canon).profile.canonical and _has_test(tree, platform, name):
            out.append(name)
    return out


def test_of(name: str, platform: str) -> str:
    """The system test (testcase folder and binary) holding ``name``'s cases on ``platform``: its own, or the one
    its profile names where a test serves several instructions."""
    sup = registry.get(name).platforms.get(platforms.canonical(platform))
    return (sup.profile.test if sup is not None else "") or name.lower()


def _has_test(tree: Path, platform: str, op: str) -> bool:
    if platforms.canonical(platform) == "cpu":
        return systest.has_test(tree, test_of(op, platform))
    return runners.has_npu_test(tree, platform, test_of(op, platform))


def pick_runner(platform: str, runner: str | None, stand_in: Path | None, run_mode: str | None) -> str:
    """The runner for ``platform`` (``cmake`` for cpu, ``run_st`` for an NPU unless named), checked against the
    options given with it; a one-line UsageError otherwise."""
    cpu = platforms.get(platform).kind == platforms.CPU
    if platforms.get(platform).kind == platforms.SPEC:
        raise UsageError("--platform spec: pto-isa has no system tests of the spec; use cpu or an NPU platform")
    chosen = runner or ("cmake" if cpu else "run_st")
    if chosen not in runners.RUNNERS:
        raise UsageError(f"--runner {chosen}: use one of {', '.join(runners.RUNNERS)}")
    if cpu and chosen == "run_st":
        raise UsageError("--runner run_st runs pto-isa's NPU tests: use an NPU --platform (a2a3, a5, kirin9030, "
                         "kirinX90, kirinDev0000, a6), or --runner run_cpu for the CPU tests")
    if not cpu and chosen != "run_st":
        raise UsageError(f"--runner {chosen} runs pto-isa's CPU system tests (--platform cpu); {platform}'s tests run "
                         "through --runner run_st")
    if chosen != "run_st" and (stand_in is not None or run_mode is not None):
        raise UsageError(f"--{'stand-in' if stand_in is not None else 'run-mode'} goes with --runner run_st (an "
                         "NPU platform)")
    if run_mode is not None and run_mode not in runners.RUN_MODES:
        raise UsageError(f"--run-mode {run_mode}: use one of {', '.join(runners.RUN_MODES)} (run_st.py's -r)")
    if stand_in is not None and not (stand_in.is_file() and os.access(stand_in, os.X_OK)):
        raise UsageError(f"--stand-in {str(stand_in)!r} is no executable file; pass a program to run in place of "
                         "the test binary")
    return chosen


def run(ops: Sequence[str], tree: Path, cache_root: Path, *, platform: str = "cpu", runner: str | None = None,
        run_mode: str | None = None, stand_in: Path | None = None, timeout: float = 600.0, cxx: str | None = None,
        say: Callable[[str], None] | None = None) -> list[StCase]:
    """Run the system tests of ``ops`` (all covered ones when empty) on ptofuzz's canonical cases of ``platform``,
    through ``runner`` (see :func:`pick_runner` and :mod:`ptofuzz.backends.runners`)."""
    chosen = pick_runner(platform, runner, stand_in, run_mode)
    root = tree / (systest.ST if chosen != "run_st" else runners.st_folder(platform))
    if not (root / "CMakeLists.txt").is_file():
        raise UsageError(f"{str(tree)!r} has no {root.relative_to(tree)}/CMakeLists.txt: pass the root of a pto-isa "
                         "checkout (--pto-isa DIR or PTO_ISA_DIR)")
    names = [registry.get(op).name for op in ops] or covered(tree, platform)
    for name in names:
        if not _has_test(tree, platform, name):
            raise UsageError(f"{str(tree)!r} has no {platform} system test of {name} ({root.relative_to(tree)}/"
                             f"testcase/{test_of(name, platform)}); ptofuzz st runs: "
                             f"{', '.join(n.lower() for n in covered(tree, platform))}")
    tree, cache_root = tree.resolve(), cache_root.resolve()
    if chosen == "run_st":
        return [c for name in names for c in _via_run_st(name, tree, cache_root, platform, run_mode or "npu",
                                                         stand_in, timeout, say)]
    tools = systest.toolchain(cxx)
    folder = systest.build_dir(tree, tools, cache_root)
    if chosen == "run_cpu":
        return [c for name in names for c in _via_run_cpu(name, tree, tools, folder.with_name(
            f"{folder.name}-run_cpu") / name.lower(), timeout, say)]
    cases: list[StCase] = []
    with processes.exclusive(folder, say):  # one run at a time writes cases into the build and runs its tests
        for name in names:
            exe = systest.build(tree, test_of(name, "cpu"), tools, folder, say)
            written = _write_cases(name, "cpu", folder)
            results, whole = systest.run_tests(exe, timeout)
            cases += _verdicts(name, "cpu", [folder / c for c in written], results, whole, _outputs(name, "cpu"),
                               functools.partial(_rerun_binary, folder / "bin", test_of(name, "cpu")))
    return cases


def _rerun_binary(bin_dir: Path, exe: str, case: str) -> str:
    return f"( cd {bin_dir} && ./{exe} --gtest_filter={case} )"


def _outputs(name: str, platform: str) -> list[str]:
    return [f for f, _ in registry.get(name).support(platforms.canonical(platform)).profile.outputs]


def _write_cases(name: str, platform: str, folder: Path) -> list[str]:
    """Write ``name``'s canonical cases into ``folder`` (where the test reads them); return their names. No
    answer of an earlier run is left to count."""
    from ptofuzz.engine.generate import generate

    written = generate(name, platform, folder, force=True)
    for case in written.cases:
        for f in _outputs(name, platform):
            (folder / case.name / f).unlink(missing_ok=True)
    return [c.name for c in written.cases]


def _via_run_cpu(name: str, tree: Path, tools: systest.Toolchain, folder: Path, timeout: float,
                 say: Callable[[str], None] | None) -> list[StCase]:
    written: list[str] = []
    test = test_of(name, "cpu")
    ran = runners.run_cpu(tree, test, folder, tools, timeout, lambda f: written.extend(_write_cases(name, "cpu", f)),
                          say)
    return _verdicts(name, "cpu", [folder / c for c in written], systest.read_report(ran.report), ran.failure(),
                     _outputs(name, "cpu"), ran.rerun)


def _via_run_st(name: str, tree: Path, cache_root: Path, platform: str, run_mode: str, stand_in: Path | None,
                timeout: float, say: Callable[[str], None] | None) -> list[StCase]:
    from ptofuzz.engine.generate import plan

    argv = [sys.executable, "-m", "ptofuzz", "gen", name.lower(), "--platform", platform, "--out", ".", "--force"]
    test = test_of(name, platform)
    ran = runners.run_st(tree, test, platform, cache_root, argv, run_mode=run_mode, stand_in=stand_in,
                         timeout=timeout, say=say)
    names = [n for n, _, _ in plan(name, platform)]
    return _verdicts(name, platforms.canonical(platform), [ran.cases / n for n in names],
                     systest.read_report(ran.report), ran.failure(), _outputs(name, platform), ran.rerun)


def _verdicts(op: str, platform: str, paths: list[Path], results: list[systest.GtestResult], whole: str,
              outputs: list[str], rerun: Callable[[str], str]) -> list[StCase]:
    """Each case's two verdicts. ``rerun(case)`` is the shell command that runs the test of one case again. A run
    with no gtest report at all (a stand-in that writes none) leaves ptofuzz's verdict alone deciding."""
    by_name = {r.name: r for r in results}
    return [_verdict(op, platform, path, by_name.get(path.name), whole, outputs, bool(results),
                     rerun(path.name)) for path in paths]


def _verdict(op: str, platform: str, path: Path, gtest: systest.GtestResult | None, whole: str,
             outputs: list[str], reported: bool, rerun: str) -> StCase:
    g = (PASS if gtest.passed else FAIL) if gtest is not None else "not run" if reported else "no report"

    def case(verdict: str, chk: CaseVerdict | None, why: str = "") -> StCase:
        return StCase(op, path.name, path, g, chk, verdict, why, platform, rerun)

    if not path.is_dir():
        return case(FAIL, None, whole or "the runner wrote no case folder (its gen_data.py did not run ptofuzz)")
    if g == "not run" and not whole:  # the binary ran and reported its tests: this one is not among them
        bf16 = "_bf16_" in path.name
        return case(SKIP, None, f"the test binary defines no {path.name}" + (
            ": pto-isa compiles its bfloat16 cases only with -DPTO_CPU_SIM_ENABLE_BF16=ON, which needs a compiler "
            "with C++23 std::bfloat16_t (g++ >= 13)" if bf16 else ""))
    try:
        chk: CaseVerdict | None = check_case(path, platform)
    except CaseFolderError as e:
        return case(FAIL, None, f"ptofuzz cannot read the folder after the run: {e}")
    assert chk is not None
    ours = chk.verdict.value
    missing = [f for f in outputs if not (path / f).is_file()]
    if missing:  # nothing to check (the inputs and golden were: a damaged one is named instead)
        why = whole or f"the test wrote no {missing[0]} (it did not run this case)"
        damaged = "" if ours == PASS else f"; and {chk.message or failure_summary(chk)}"
        return case(FAIL, None, why + damaged)
    if ours == PASS and g in (PASS, "no report"):
        return case(PASS, chk)
    if ours == PASS:  # the output is right, pto-isa's own comparison says no
        return case(FAIL, chk, "pto-isa's test fails a correct output: the fault is in its comparison "
                               f"({gtest.message if gtest else whole or 'it reported no verdict for this case'})")
    differs = chk.message or failure_summary(chk)
    side = "pto-isa's tolerant comparison let it pass" if g == PASS else "pto-isa's test fails it too" \
        if g == FAIL else "pto-isa's test gave no verdict"
    who = "the simulator's" if platform == "cpu" else "the device's"
    return case(FAIL, chk, f"{who} output differs from the documented golden ({differs}); {side}")
