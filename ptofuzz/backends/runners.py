"""pto-isa's own runner scripts, ``tests/run_cpu.py`` and ``tests/script/run_st.py``, driven on ptofuzz's data.

Both runners build a system test and run its binary, but first run the test's ``gen_data.py``, which would
replace ptofuzz's inputs and goldens with pto-isa's own. Neither the runners nor the user's tree are edited:

- ``run_cpu.py`` takes ``--build-dir`` and ``--no-gen``: ptofuzz writes its cases into a build folder it owns,
  then the runner configures, builds (pto-isa's CMake, out of the tree) and runs the test there.
- ``run_st.py`` has no such options: it works in ``<its folder>/../npu/<soc>/src/st/build`` and always copies
  and runs ``testcase/<op>/gen_data.py`` there. ptofuzz runs it from an overlay of the tree in its cache: a tree
  of links to the user's files, where only the folders on the way to the test's folder are real, and the test's
  ``gen_data.py`` is ptofuzz's own, which calls ``ptofuzz gen``. The runner's build and run steps are pto-isa's;
  its ``build/`` is in the overlay. On a machine without a device, ``--stand-in EXE`` puts EXE where the test
  binary would be and runs the runner with ``-w`` (no build): the wiring is tested, and EXE answers for the device.

The test binary's per-case verdicts come from gtest's own JSON report (``GTEST_OUTPUT``, which every gtest binary
honours, so the runner needs no option for it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from ptofuzz.backends import systest
from ptofuzz.core import processes
from ptofuzz.core.errors import UsageError

RUN_CPU = Path("tests") / "run_cpu.py"
RUN_ST = Path("tests") / "script" / "run_st.py"
RUNNERS = ("cmake", "run_cpu", "run_st")  # cmake: ptofuzz drives pto-isa's CMake itself (no runner script)
RUN_MODES = ("npu", "sim")
# run_st.py's -v value and the folder under tests/npu it then works in, per platform name (kirinX90 has its own
# device and folder, with the cases of kirin9030)
SOC = {"a2a3": ("a3", "a2a3"), "a5": ("a5", "a5"), "kirin9030": ("kirin9030", "kirin9030"),
       "kirinX90": ("kirinX90", "kirinX90"), "kirinDev0000": ("kirinDev0000", "kirinDev0000"), "a6": ("a6", "a6")}
GEN_DATA = """\
# Written by `ptofuzz st` in its overlay of a pto-isa tree, in place of this test's own gen_data.py (the tree
# itself is not touched): pto-isa's runner copies this file into the test's build folder and runs it there,
# so the test reads ptofuzz's canonical cases of {op} on {platform}.
import subprocess
import sys

sys.exit(subprocess.call({argv!r}))
"""


def st_folder(platform: str) -> Path:
    """Where run_st.py builds and runs the system tests of ``platform`` (relative to the tree)."""
    return Path("tests") / "npu" / SOC[platform][1] / "src" / "st"


def has_npu_test(tree: Path, platform: str, op: str) -> bool:
    return (follow(tree / st_folder(platform) / "testcase" / op.lower()) / "gen_data.py").is_file()


def follow(path: Path) -> Path:
    """``path``, or the folder a git symbolic link stored as a plain file names (a checkout made without symbolic
    links holds the link's text instead, as kirinX90's test folders, links to kirin9030's, are in such trees)."""
    if path.is_file() and not path.is_symlink() and path.stat().st_size < 1024:
        try:
            target = path.parent / path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError, ValueError):
            return path
        if target.is_dir():
            return target.resolve()
    return path


def link_tree(source: Path, keep: tuple[str, ...], into: Path) -> Path:
    """Make ``into`` mirror ``source``: each entry a link to the original, except the folders on the path ``keep``
    (names from ``source`` down), which are real folders holding links in turn. Run again, it refreshes the links
    and leaves whatever else was put in the real folders (a runner's ``build/``). Returns the deepest real folder."""
    into.mkdir(parents=True, exist_ok=True)
    here = {e.name for e in source.iterdir()}
    for old in into.iterdir():  # links of entries gone from the source, or of a folder now kept real
        if old.is_symlink() and (old.name not in here or (keep and old.name == keep[0])):
            old.unlink()
    for name in sorted(here):
        if keep and name == keep[0]:
            continue
        link = into / name
        if link.is_symlink():
            link.unlink()
        if not link.exists():
            link.symlink_to(source / name)
    if not keep:
        return into
    return link_tree(follow(source / keep[0]).resolve(), keep[1:], into / keep[0])


def _overlay_root(tree: Path, platform: str, cache_root: Path) -> Path:
    return cache_root / "run_st" / hashlib.sha256(f"{tree}\0{platform}".encode()).hexdigest()[:16]


def overlay(tree: Path, platform: str, op: str, cache_root: Path, argv: list[str]) -> Path:
    """The overlay of ``tree`` in which run_st.py runs ``op``'s system test on ``platform`` with ptofuzz's
    ``gen_data.py`` (which runs ``argv``); returns its root. One overlay per tree and platform, reused (and
    refreshed) by later runs, so a build the runner made there is kept for ``-w``."""
    root = _overlay_root(tree, platform, cache_root)
    test = (*st_folder(platform).parts, "testcase", op.lower())
    deepest = link_tree(tree, test, root)
    gen = deepest / "gen_data.py"
    gen.unlink()  # the link to pto-isa's own
    gen.write_text(GEN_DATA.format(op=op, platform=platform, argv=argv))
    return root


@dataclasses.dataclass(frozen=True)
class Ran:
    """One runner invocation: where its cases are, the command, and how it ended."""

    cases: Path  # the folder holding the case folders (the test binary runs in its bin/)
    command: list[str]
    cwd: Path
    returncode: int
    output: str  # its stdout and stderr
    report: Path  # gtest's JSON report (absent when the binary wrote none)

    def failure(self) -> str:
        """'' when the runner exited 0, else its status and the last line it printed."""
        if self.returncode == 0:
            return ""
        lines = [ln.strip() for ln in self.output.splitlines() if ln.strip()]
        return f"{Path(self.command[1]).name} ended with status {self.returncode}" + \
            (f": {lines[-1][:300]}" if lines else "")

    def rerun(self, case: str) -> str:
        """The shell command that runs the runner again for one case (its gtest filter, ``-g``)."""
        return f"( cd {shlex.quote(str(self.cwd))} && {shlex.join([*self.command, '-g', case])} )"


def _env(report: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["GTEST_OUTPUT"] = f"json:{report}"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the runner's own imports leave no __pycache__ in the tree
    return env


def _c_compiler(cxx: str) -> str | None:
    name = Path(cxx).name
    for plus, plain in (("clang++", "clang"), ("g++", "gcc")):
        if plus in name:
            return shutil.which(name.replace(plus, plain))
    return None


def run_cpu(tree: Path, op: str, folder: Path, tools: systest.Toolchain, timeout: float,
            write_cases: Callable[[Path], None], say: Callable[[str], None] | None = None) -> Ran:
    """``tests/run_cpu.py --testcase OP --build-dir FOLDER --no-gen``: ptofuzz's cases are written into FOLDER
    first, then the runner configures, builds and runs the test there."""
    if not (tree / RUN_CPU).is_file():
        raise UsageError(f"{str(tree)!r} has no {RUN_CPU}: pass the root of a pto-isa checkout (--pto-isa DIR)")
    cc = _c_compiler(tools.cxx)
    cmd = [sys.executable, str(tree / RUN_CPU), "--testcase", op.lower(), "--build-dir", str(folder), "--no-gen",
           "--no-install", "--cxx", tools.cxx, *(["--cc", cc] if cc else [])]
    with processes.exclusive(folder, say):
        folder.mkdir(parents=True, exist_ok=True)
        write_cases(folder)
        return _invoke(cmd, folder, folder, timeout, say, f"running pto-isa's run_cpu.py for {op.lower()}")


def run_st(tree: Path, op: str, platform: str, cache_root: Path, gen_argv: list[str], *, run_mode: str,
           stand_in: Path | None, timeout: float, say: Callable[[str], None] | None = None) -> Ran:
    """``tests/script/run_st.py -r MODE -v SOC -t OP`` from ptofuzz's overlay of ``tree`` (``-w`` with a stand-in
    for the test binary)."""
    if not (tree / RUN_ST).is_file():
        raise UsageError(f"{str(tree)!r} has no {RUN_ST}: pass the root of a pto-isa checkout (--pto-isa DIR)")
    if not os.environ.get("ASCEND_HOME_PATH"):
        if run_mode == "sim":
            raise UsageError("run_st.py -r sim runs CANN's simulator: set ASCEND_HOME_PATH (source CANN's set_env.sh)")
        if stand_in is None:
            raise UsageError("run_st.py builds pto-isa's NPU tests with the CANN toolkit: set ASCEND_HOME_PATH "
                             "(source CANN's set_env.sh), or pass --stand-in EXE to run EXE in place of the test "
                             "binary")
    with processes.exclusive(_overlay_root(tree, platform, cache_root), say):
        root = overlay(tree, platform, op, cache_root, gen_argv)
        work = root / st_folder(platform)
        if stand_in is not None:
            binary = work / "build" / "bin" / op.lower()
            binary.parent.mkdir(parents=True, exist_ok=True)
            binary.unlink(missing_ok=True)
            binary.symlink_to(stand_in.resolve())
        cmd = [sys.executable, str(root / RUN_ST), "-r", run_mode, "-v", SOC[platform][0], "-t", op.lower(),
               *(["-w"] if stand_in is not None else [])]
        return _invoke(cmd, root, work / "build", timeout, say, f"running pto-isa's run_st.py for {op.lower()} on "
                       f"{platform}" + (f" (stand-in {stand_in})" if stand_in is not None else ""))


def _invoke(cmd: list[str], cwd: Path, cases: Path, timeout: float, say: Callable[[str], None] | None,
            what: str) -> Ran:
    report = cwd / f".gtest-{hashlib.sha256(' '.join(cmd).encode()).hexdigest()[:12]}.json"
    report.unlink(missing_ok=True)
    if say:
        say(what)
    out = processes.Commands().run(cmd, cwd=cwd, timeout=timeout, env=_env(report))
    return Ran(cases, cmd, cwd, out.returncode, (out.stdout or "") + (out.stderr or ""), report)
