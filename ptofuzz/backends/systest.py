"""pto-isa's own CPU system tests, built from the user's tree with pto-isa's own CMake into a folder ptofuzz owns.

``tests/cpu/st`` of a pto-isa tree is a CMake project whose every instruction is one gtest executable
(``main.cpp`` + ``<op>_kernel.cpp``); a test reads ``../<Suite>.<case>/input*.bin`` relative to its working
directory (``bin/``) and writes ``output.bin`` beside them. It is configured out of the tree (``cmake -S
<tree>/tests/cpu/st -B <cache>/st/<key>``), so the tree is never written, and built per instruction on demand.
Its prerequisites are checked first, each missing one named in one line with the command that installs it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from ptofuzz.backends.cpusim.build import tree_hash
from ptofuzz.backends.cpusim.objects import first_error
from ptofuzz.core import processes
from ptofuzz.core.errors import UsageError

ST = Path("tests") / "cpu" / "st"
CLANG_MIN, GCC_MIN = 15, 13  # pto-isa's cpu/TReduceIdx.hpp needs P2593 (static_assert(false) in a template)
COMPILERS = ("clang++-19", "clang++-18", "clang++-17", "clang++-16", "clang++-15", "clang++", "g++-14", "g++-13",
             "g++")
GTEST_HEADER = Path("gtest") / "gtest.h"
GTEST_DIRS = (Path("/usr/include"), Path("/usr/local/include"), Path("/opt/homebrew/include"))
INSTALL = "apt-get install clang-19 libgtest-dev cmake"


@dataclasses.dataclass(frozen=True)
class Toolchain:
    cmake: str
    cxx: str
    version: str  # the compiler's first --version line


def _version(cxx: str) -> tuple[str, int]:
    """The first line of ``cxx --version`` and its major version (0 when it says none)."""
    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "", 0
    first = (out.strip().splitlines() or [""])[0]
    m = re.search(r"(\d+)\.\d+", first)
    return first, int(m.group(1)) if m else 0


def _good_enough(first_line: str, major: int) -> bool:
    return major >= (CLANG_MIN if "clang" in first_line else GCC_MIN)


def toolchain(cxx: str | None = None, gtest_dirs: Sequence[Path] = GTEST_DIRS) -> Toolchain:
    """cmake, a C++ compiler new enough for pto-isa's headers (``cxx``, else $CXX, else the newest clang or g++
    found) and GTest's headers, or a one-line UsageError naming what is missing and how to install it (pto-isa's
    CMake would fetch googletest from the network instead, which a CI machine may not reach)."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise UsageError(f"pto-isa's CPU system tests need cmake; install it ({INSTALL})")
    if not any((d / GTEST_HEADER).is_file() for d in gtest_dirs):
        raise UsageError(f"pto-isa's CPU system tests need GTest (no gtest/gtest.h in "
                         f"{', '.join(str(d) for d in gtest_dirs)}); install it ({INSTALL})")
    wanted = [cxx] if cxx else [os.environ["CXX"]] if os.environ.get("CXX") else list(COMPILERS)
    seen = []
    for name in wanted:
        path = shutil.which(name)
        if path is None:
            continue
        first, major = _version(path)
        if _good_enough(first, major):
            return Toolchain(cmake, path, first)
        seen.append(f"{name} {major}")
    found = f" (found {', '.join(seen)})" if seen else ""
    raise UsageError(f"pto-isa's CPU system tests need clang >= {CLANG_MIN} or g++ >= {GCC_MIN}{found}; install one "
                     f"({INSTALL}) or set CXX")


def has_test(tree: Path, op: str) -> bool:
    return (tree / ST / "testcase" / op.lower() / "main.cpp").is_file()


def build_dir(tree: Path, tools: Toolchain, cache_root: Path) -> Path:
    """Where the tree's CPU system tests are built with ``tools``: one folder per (tree contents, compiler)."""
    key = hashlib.sha256(json.dumps([tree_hash(tree / "include"), tree_hash(tree / ST), tools.cxx,
                                     tools.version]).encode()).hexdigest()[:20]
    return cache_root / "st" / key


def build(tree: Path, op: str, tools: Toolchain, folder: Path, say: Callable[[str], None] | None = None) -> Path:
    """Configure (once) and build the system test of ``op``; return its executable. Compiler errors are one
    line (the first error), exit 2."""
    tell = say or (lambda _: None)
    commands = processes.Commands()  # each run ends with its group, on an interrupt too
    if not (folder / "CMakeCache.txt").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tell(f"configuring pto-isa's CPU system tests from {tree / ST} with {tools.version}")
        out = commands.run([tools.cmake, "-S", str(tree / ST), "-B", str(folder), "-DCMAKE_BUILD_TYPE=Release",
                            f"-DCMAKE_CXX_COMPILER={tools.cxx}"])
        if out.returncode != 0:
            (folder / "CMakeCache.txt").unlink(missing_ok=True)
            raise UsageError("configuring pto-isa's CPU system tests failed: "
                             f"{first_error(out.stdout + out.stderr)}")
    exe = folder / "bin" / op.lower()
    tell(f"building pto-isa's {op.lower()} system test")
    out = commands.run([tools.cmake, "--build", str(folder), "--target", op.lower(), "-j",
                        str(max(1, os.cpu_count() or 1))])
    if out.returncode != 0 or not exe.is_file():
        raise UsageError(f"building pto-isa's {op.lower()} system test failed: "
                         f"{first_error(out.stdout + out.stderr)}")
    return exe


@dataclasses.dataclass(frozen=True)
class GtestResult:
    name: str  # Suite.case
    passed: bool
    message: str  # the first failure message ('' when it passed)


def run_tests(exe: Path, timeout: float) -> tuple[list[GtestResult], str]:
    """Run a system test binary from its ``bin/`` folder (where it finds ``../<Suite>.<case>/``); each test's
    verdict from gtest's JSON report, and '' or why the run failed as a whole (a crash, a timeout)."""
    report = exe.parent / f".{exe.name}-gtest.json"
    report.unlink(missing_ok=True)
    out = processes.Commands().run([str(exe), f"--gtest_output=json:{report}"], cwd=exe.parent, timeout=timeout)
    results = read_report(report)
    whole = "" if out.returncode in (0, 1) and results else \
        f"the test binary ended with status {out.returncode}: {first_error(out.stderr or out.stdout)}"
    return results, whole


def read_report(report: Path) -> list[GtestResult]:
    """Each test's verdict in a gtest JSON report (none when there is no readable report)."""
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        return []
    results = []
    for suite in data.get("testsuites", []) if isinstance(data, dict) else []:
        for t in suite.get("testsuite", []):
            failures = t.get("failures") or []
            first = failures[0].get("failure", "").splitlines()[0] if failures else ""
            results.append(GtestResult(f"{suite.get('name')}.{t.get('name')}", not failures, first))
    return results
