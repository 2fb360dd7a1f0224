"""Compiling the harness in pieces: one object per instruction, cached by what it is made of, then one link.

An instruction's object (``kernels.hpp`` and one ``PTOFUZZ_KERNEL`` line per element type) is keyed by the pto-isa
tree's content hash, ptofuzz's harness sources, the compiler and its version, the flags and the element types,
and kept in ``<cache>/cpusim/objects/<key>/`` with a ``result.json`` saying what it holds. A harness of any set
of instructions links the objects it needs with the main program, so a command builds only what it runs, and a
second command that needs more compiles only what is new.

When an instruction does not compile with all its element types, each type is compiled on its own; a type that
still fails is left out and reported with the compiler's first error. The per-tree facts (whether pto-isa's
``TReduceIdx.hpp`` must be skipped, whether ``bfloat16_t`` is native) are probed once per tree and compiler and
kept beside the builds.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ptofuzz.core import processes
from ptofuzz.core.atomic import write_file
from ptofuzz.core.errors import UsageError

HERE = Path(__file__).parent
MAIN = HERE / "harness.cpp"
KERNELS = HERE / "kernels.hpp"
PROTOCOL = HERE / "protocol.hpp"
STUBS = HERE / "covstubs.cpp"  # the native-coverage build's libFuzzer hooks when no fuzzer is loaded


def unit_text(op: str, opcode: int, dtypes: Sequence[tuple[str, int, str]]) -> str:
    """The translation unit of ``op``'s object: ``dtypes`` as (name, harness code, C++ type)."""
    lines = [f"// {op}: ptofuzz's kernels for these element types", '#include "kernels.hpp"']
    lines += [f"PTOFUZZ_KERNEL({opcode}, {op}, {ctype}, {code})" for _, code, ctype in dtypes]
    return "\n".join(lines) + "\n"


@dataclasses.dataclass(frozen=True)
class Toolchain:
    """How to compile against one tree: the compiler, the include folder, the flags and the cache root."""

    commands: processes.Commands
    cxx: str
    version: str
    include: Path
    flags: tuple[str, ...]
    identity: str  # tree hash, sources hash, compiler: what every object key starts from
    root: Path  # <cache>/cpusim

    def compile(self, source: Path, out: Path, *extra: str) -> tuple[bool, str]:
        cmd = [self.cxx, *self.flags, *extra, f"-I{self.include}", f"-I{HERE}", "-c", str(source), "-o", str(out)]
        res = self.commands.run(cmd, env=private_tmp(out.parent))
        if res.returncode == 0:
            return True, ""
        if NO_SPACE in res.stderr:
            raise UsageError(f"building the cpusim harness failed: no space left on the device of "
                             f"{str(self.root)!r}; free some space or pass --cache-dir DIR on another device")
        return False, first_error(res.stderr)


NO_SPACE = "No space left on device"  # strerror(ENOSPC), as the compiler, the assembler and ld report it


def private_tmp(folder: Path) -> dict[str, str]:
    """The environment of a compiler working for a private folder: its temporary files (the assembler's input,
    the linker's) go there too, so that a killed build leaves them where the next build sweeps."""
    return {**os.environ, "TMPDIR": str(folder)}


def first_error(text: str) -> str:
    """The first line of a tool's output that reports an error ("error:" of a compiler, "CMake Error"), from its
    "error:" on; else its last line."""
    for line in text.splitlines():
        if "error" in line.lower():
            line = re.sub(r"^.*?(error:)", r"\1", line.strip())
            return line[:200]
    return (text.strip().splitlines() or ["compiler failed"])[-1][:200]


@dataclasses.dataclass(frozen=True)
class Object:
    """One instruction's compiled kernels: the object files, the types they hold, the types left out and why."""

    op: str
    key: str
    files: tuple[Path, ...]
    kernels: tuple[str, ...]
    rejected: dict[str, str]
    seconds: float
    cached: bool


def object_key(tc: Toolchain, op: str, dtypes: Sequence[str]) -> str:
    blob = json.dumps([tc.identity, list(tc.flags), op, list(dtypes)])
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def _cached_object(folder: Path, op: str, key: str) -> Object | None:
    try:
        data = json.loads((folder / "result.json").read_text())
        files = tuple(folder / name for name in data["files"])
        if not all(f.is_file() for f in files):
            return None
        return Object(op, key, files, tuple(data["kernels"]), dict(data["rejected"]), float(data["seconds"]), True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _compile_object(tc: Toolchain, op: str, opcode: int, dtypes: Sequence[tuple[str, int, str]], key: str,
                    pool: concurrent.futures.Executor) -> Object:
    """``op``'s object, compiled now into a private folder and renamed into the cache."""
    start = time.perf_counter()
    folder = tc.root / "objects" / key
    work = Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=folder.parent))
    lock = processes.hold(work / processes.LOCK)
    try:
        whole = work / f"{op.lower()}.cpp"
        whole.write_text(unit_text(op, opcode, dtypes))
        ok, _ = tc.compile(whole, work / f"{op.lower()}.o")
        files, kernels, rejected = [f"{op.lower()}.o"], [d for d, _, _ in dtypes], {}
        if not ok:  # each type on its own: keep those that compile, say why the others do not
            files, kernels = [], []
            jobs = {}
            for dt in dtypes:
                src = work / f"{op.lower()}-{dt[0]}.cpp"
                src.write_text(unit_text(op, opcode, [dt]))
                jobs[dt[0]] = pool.submit(tc.compile, src, work / f"{op.lower()}-{dt[0]}.o")
            for name, fut in jobs.items():
                ok1, why1 = fut.result()
                if ok1:
                    files.append(f"{op.lower()}-{name}.o")
                    kernels.append(name)
                else:
                    rejected[name] = f"does not compile: {why1}"
        seconds = round(time.perf_counter() - start, 2)
        (work / "result.json").write_text(json.dumps({"op": op, "files": files, "kernels": kernels,
                                                      "rejected": rejected, "seconds": seconds}))
        for scratch in [*work.glob("*.cpp"), work / processes.LOCK]:
            scratch.unlink(missing_ok=True)
        if folder.exists() and _cached_object(folder, op, key) is None:
            shutil.rmtree(folder, ignore_errors=True)
        try:
            work.rename(folder)
        except OSError:  # another process compiled it first: use its object
            other = _cached_object(folder, op, key)
            if other is None:
                raise
            return other
        return Object(op, key, tuple(folder / f for f in files), tuple(kernels), rejected, seconds, False)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
        os.close(lock)


def objects(tc: Toolchain, wanted: dict[str, tuple[int, list[tuple[str, int, str]]]], jobs: int,
            tell: Callable[[str], None]) -> dict[str, Object]:
    """Every instruction's object (op -> (opcode, its types)): from the cache, else compiled now, ``jobs`` at a
    time; ``tell`` hears each one compiled. An interrupt kills the compiles under way."""
    out: dict[str, Object] = {}
    todo = []
    for op, (_, dts) in wanted.items():
        key = object_key(tc, op, [d for d, _, _ in dts])
        found = _cached_object(tc.root / "objects" / key, op, key)
        if found is not None:
            out[op] = found
        else:
            todo.append((op, key))
    if not todo:
        return out
    (tc.root / "objects").mkdir(parents=True, exist_ok=True)
    processes.sweep_unlocked(sorted((tc.root / "objects").glob(".build-*")))
    tell(f"compiling {len(todo)} instruction object(s) of {len(wanted)}, {jobs} at a time: "
         + ", ".join(op for op, _ in todo))
    # a second pool for the per-type retries: a retry waits on its own compiles, never on a slot it holds
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool, \
            concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as retries:
        try:
            futs = {pool.submit(_compile_object, tc, op, wanted[op][0], wanted[op][1], key, retries): op
                    for op, key in todo}
            for n, fut in enumerate(concurrent.futures.as_completed(futs), 1):
                obj = fut.result()
                out[obj.op] = obj
                left = f", {len(obj.rejected)} left out" if obj.rejected else ""
                tell(f"[{n}/{len(todo)}] {obj.op}: {len(obj.kernels)} type(s){left} in {obj.seconds:.1f} s")
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            retries.shutdown(wait=False, cancel_futures=True)
            tc.commands.kill_all()
            raise
    return {op: out[op] for op in wanted}


def link(tc: Toolchain, objs: Sequence[Object], work: Path, library: str | None = None) -> Path:
    """The harness in ``work``: the main program and ``objs`` linked into an executable, or (``library``: the
    native-coverage build) into that shared library, with :data:`STUBS` compiled uninstrumented beside them."""
    main = work / "main.o"
    ok, why = tc.compile(MAIN, main, *(["-DPTOFUZZ_LIBRARY"] if library else []))
    if not ok:
        raise UsageError(f"building the cpusim harness failed: {why}")
    extra: list[str] = []
    if library:
        stubs = work / "covstubs.o"
        plain = tuple(f for f in tc.flags if not f.startswith("-fsanitize="))
        ok, why = dataclasses.replace(tc, flags=plain).compile(STUBS, stubs)
        if not ok:
            raise UsageError(f"building the cpusim harness failed: {why}")
        extra = [str(stubs), "-shared"]
    out = work / (library or "harness")
    cmd = [tc.cxx, *tc.flags, str(main), *(str(f) for o in objs for f in o.files), *extra, "-o", str(out)]
    res = tc.commands.run(cmd, env=private_tmp(work))
    if res.returncode != 0:
        if NO_SPACE in res.stderr:
            raise UsageError(f"building the cpusim harness failed: no space left on the device of "
                             f"{str(tc.root)!r}; free some space or pass --cache-dir DIR on another device")
        raise UsageError(f"building the cpusim harness failed: {first_error(res.stderr)}")
    main.unlink(missing_ok=True)
    return out


_BF16_PROBE = r"""
#include <cstdint>
#include <pto/pto-inst.hpp>
#include <type_traits>
int main() { return std::is_same_v<pto::bfloat16_t, _Float16> ? 1 : 0; }
"""

GUARD_PROBE = '#include "kernels.hpp"\nPTOFUZZ_KERNEL(0, TPARTADD, float, 0)\n'


def tree_facts(commands: processes.Commands, cxx: str, version: str, include: Path, digest: str, base: list[str],
               guard_flag: str, root: Path) -> dict[str, Any]:
    """Whether the tree needs ``guard_flag`` to compile, and whether its ``bfloat16_t`` is native: probed once
    per (tree, compiler, base flags) and kept in ``root``."""
    key = hashlib.sha256(json.dumps([digest, cxx, version, base]).encode()).hexdigest()[:20]
    path = root / f"facts-{key}.json"
    try:
        data = json.loads(path.read_text())
        return {"guard": bool(data["guard"]), "bfloat16_native": bool(data["bfloat16_native"])}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    root.mkdir(parents=True, exist_ok=True)
    # a private folder like a build's (locked while it runs: a killed probe's is swept by the next build)
    with tempfile.TemporaryDirectory(prefix=".build-facts-", dir=root) as tmp:
        work = Path(tmp)
        lock = processes.hold(work / processes.LOCK)
        probe = work / "guard.cpp"
        probe.write_text(GUARD_PROBE)

        def syntax(*extra: str) -> tuple[bool, str]:
            res = commands.run([cxx, *base, *extra, "-fsyntax-only", f"-I{include}", f"-I{HERE}", str(probe)],
                               env=private_tmp(work))
            return res.returncode == 0, first_error(res.stderr) if res.returncode else ""

        guard = False
        if not syntax()[0]:
            ok, why = syntax(guard_flag)
            if not ok:
                raise UsageError(f"the pto-isa headers do not compile with {cxx}: {why}; try a newer compiler "
                                 "(CXX=...)")
            guard = True
        src = work / "bf16.cpp"
        src.write_text(_BF16_PROBE)
        exe = work / "bf16"
        flags = [*base, *([guard_flag] if guard else [])]
        res = commands.run([cxx, *flags, f"-I{include}", str(src), "-o", str(exe)], env=private_tmp(work))
        native = res.returncode == 0 and commands.run([str(exe)], timeout=30).returncode == 0
        os.close(lock)
    write_file(path, json.dumps({"guard": guard, "bfloat16_native": native}))
    return {"guard": guard, "bfloat16_native": native}
