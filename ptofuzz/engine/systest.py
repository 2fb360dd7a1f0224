"""``ptofuzz st``: pto-isa's own CPU system tests run on ptofuzz's data.

For each instruction: its system test is built from the user's tree (:mod:`ptofuzz.backends.systest`), ptofuzz's
canonical cpu case folders are written where the test reads them, the test binary runs, and each case gets two
verdicts side by side: pto-isa's own (gtest, its tolerant ``ResultCmp``) and ptofuzz's (``check``: the
simulator's ``output.bin`` bit for bit against the documented golden, and the inputs and golden still the files
ptofuzz wrote). A case that fails says which side is the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from ptofuzz.backends import systest
from ptofuzz.core import platforms
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.engine.check import check_case
from ptofuzz.engine.verdicts import CaseVerdict, failure_summary
from ptofuzz.instructions import registry

PASS, FAIL = "pass", "fail"


@dataclasses.dataclass(frozen=True)
class StCase:
    """One case of a system test run on ptofuzz's data."""

    op: str
    name: str  # Suite.case, the case folder's name
    path: Path
    gtest: str  # pass, fail, or "not run"
    check: CaseVerdict | None
    verdict: str  # pass or fail
    why: str = ""  # for a failure: which side is the reason

    @property
    def reproduce(self) -> str:
        return f"( cd {self.path.parent / 'bin'} && ./{self.op.lower()} --gtest_filter={self.name} ) && " \
               f"ptofuzz check {self.path}"


def covered(tree: Path) -> list[str]:
    """The instructions with a cpu model, canonical cpu cases and a CPU system test in ``tree``."""
    out = []
    for name, inst in registry.all_instructions().items():
        if "cpu" in inst.platforms and inst.support("cpu").profile.canonical and systest.has_test(tree, name):
            out.append(name)
    return out


def check_platform(platform: str) -> None:
    if platforms.canonical(platform) != "cpu":
        raise UsageError(f"--platform {platform}: `ptofuzz st` runs pto-isa's CPU system tests (--platform cpu); "
                         "an NPU test runs on a device: see `ptofuzz run --target` in docs/pto-isa-integration.md")


def run(ops: Sequence[str], tree: Path, cache_root: Path, *, platform: str = "cpu", timeout: float = 600.0,
        cxx: str | None = None, say: Callable[[str], None] | None = None) -> list[StCase]:
    """Run the CPU system tests of ``ops`` (all covered ones when empty) on ptofuzz's canonical cases."""
    from ptofuzz.engine.generate import generate

    check_platform(platform)
    if not (tree / systest.ST / "CMakeLists.txt").is_file():
        raise UsageError(f"{str(tree)!r} has no {systest.ST}/CMakeLists.txt: pass the root of a pto-isa checkout "
                         "(--pto-isa DIR or PTO_ISA_DIR)")
    names = [registry.get(op).name for op in ops] or covered(tree)
    for name in names:
        if not systest.has_test(tree, name):
            raise UsageError(f"{str(tree)!r} has no CPU system test of {name} (tests/cpu/st/testcase/"
                             f"{name.lower()}); ptofuzz st runs: {', '.join(n.lower() for n in covered(tree))}")
    tools = systest.toolchain(cxx)
    folder = systest.build_dir(tree.resolve(), tools, cache_root.resolve())
    cases: list[StCase] = []
    for name in names:
        exe = systest.build(tree.resolve(), name, tools, folder, say)
        written = generate(name, "cpu", folder, force=True)  # where the test reads them: ../<Suite>.<case>/
        outputs = [f for f, _ in registry.get(name).support("cpu").profile.outputs]
        for case in written.cases:
            for f in outputs:  # no answer of an earlier run counts
                (folder / case.name / f).unlink(missing_ok=True)
        results, whole = systest.run_tests(exe, timeout)
        by_name = {r.name: r for r in results}
        cases += [_verdict(name, folder / case.name, by_name.get(case.name), whole, outputs)
                  for case in written.cases]
    return cases


def _verdict(op: str, path: Path, gtest: systest.GtestResult | None, whole: str, outputs: list[str]) -> StCase:
    g = "not run" if gtest is None else PASS if gtest.passed else FAIL
    try:
        chk: CaseVerdict | None = check_case(path, "cpu")
    except CaseFolderError as e:
        return StCase(op, path.name, path, g, None, FAIL, f"ptofuzz cannot read the folder after the run: {e}")
    assert chk is not None
    ours = chk.verdict.value
    missing = [f for f in outputs if not (path / f).is_file()]
    if missing:
        why = whole or f"the test wrote no {missing[0]} (it did not run this case)"
        return StCase(op, path.name, path, g, chk, FAIL, why)
    if ours == PASS and g == PASS:
        return StCase(op, path.name, path, g, chk, PASS)
    if ours == PASS:  # the output is right, pto-isa's own comparison says no
        return StCase(op, path.name, path, g, chk, FAIL, "pto-isa's test fails a correct output.bin: the fault is "
                                                         f"in its comparison ({gtest.message if gtest else whole})")
    differs = chk.message or failure_summary(chk)
    side = "pto-isa's tolerant comparison let it pass" if g == PASS else "pto-isa's test fails it too"
    return StCase(op, path.name, path, g, chk, FAIL, f"the simulator's output differs from the documented golden "
                                                     f"({differs}); {side}")
