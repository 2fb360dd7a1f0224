"""Building ptofuzz's harness against a pto-isa tree: find the pieces, probe what compiles, cache the result.

A build is keyed by (pto-isa tree content hash, harness source hash, compiler and its version, flags) and lives
in ``<cache>/cpusim/<key>/`` (``<cache>`` = ``--cache-dir``, else ``$XDG_CACHE_HOME/ptofuzz``, else
``~/.cache/ptofuzz``) with a ``manifest.json`` saying what it holds. It is made in a private temporary folder and
renamed into place, so two processes building at once both end up using one complete build.

Before compiling, every (instruction, element type) pair is probed with ``-fsyntax-only`` (in parallel); a pair
that does not compile is left out of the harness and reported as unsupported with the compiler's first error.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ptofuzz.core import processes
from ptofuzz.core.errors import UsageError

HARNESS = Path(__file__).with_name("harness.cpp")
SANITIZERS = ("address", "undefined")
# test-only planted bugs (see harness.cpp), chosen at run time in a PTOFUZZ_PLANTS build ("off": such a build with
# none, so that tests of other things can share it)
PLANTS = ("oob", "hang", "off")
PLANT_FLAG = "-DPTOFUZZ_PLANTS"
STD = "-std=c++20"
BASE_FLAGS = (STD, "-O2", "-g", "-D__CPU_SIM", "-w")
# pto-isa's cpu/TReduceIdx.hpp has a primary template holding static_assert(false), which compilers before
# P2593 (GCC 12, clang < 17) reject even when nothing instantiates it. Skipping that one header (by defining its
# include guard) is harmless for the instructions the harness runs; a build records whether it was needed.
REDUCEIDX_GUARD = "-DTCOLREDUCEIDX_CPU_HPP"

# (harness op code, mnemonic) and (harness dtype code, ptofuzz dtype, C++ type): must match harness.cpp
OPS = {"TPARTADD": 0, "TPARTMUL": 1, "TPARTMAX": 2, "TPARTMIN": 3, "TSORT32": 4, "TMRGSORT": 5, "TPARTARGMAX": 6,
       "TPARTARGMIN": 7}
DTYPES = {"float32": (0, "float"), "float16": (1, "half"), "bfloat16": (2, "bfloat16_t"), "int32": (3, "int32_t"),
          "int16": (4, "int16_t"), "int8": (5, "int8_t"), "uint8": (6, "uint8_t"), "uint32": (7, "uint32_t"),
          "uint16": (8, "uint16_t"), "int64": (9, "int64_t"), "uint64": (10, "uint64_t")}
COLS = (32, 64, 128, 256, 512, 1024, 2048, 4096)  # the tile strides compiled in (harness.cpp kCols)
MAX_ROWS = 1 << 16

BF16_PLACEHOLDER = ("this build's bfloat16_t is pto-isa's _Float16 placeholder (the compiler has no C++23 "
                    "std::bfloat16_t), so the simulator would compute half arithmetic on bf16 bits "
                    "(simulator finding cpusim-bf16-placeholder); use a compiler with std::bfloat16_t (GCC 13+)")

_BF16_PROBE = r"""
#include <cstdint>
#include <pto/pto-inst.hpp>
#include <type_traits>
int main() { return std::is_same_v<pto::bfloat16_t, _Float16> ? 1 : 0; }
"""


@dataclasses.dataclass(frozen=True)
class Settings:
    """Where the simulator comes from and how to build and run it (CLI flags and environment)."""

    pto_isa: Path | None = None  # None: $PTO_ISA_DIR
    cache_dir: Path | None = None
    cxx: str | None = None  # None: $CXX, else g++, else clang++
    sanitize: tuple[str, ...] = ()
    plant: str | None = None
    timeout: float = 10.0  # seconds per request to the harness
    placeholder_bf16: bool = False  # run bfloat16 even where the headers make it a _Float16 placeholder

    def tree(self) -> Path:
        """The pto-isa tree, checked (a one-line UsageError names what is missing)."""
        raw = self.pto_isa or os.environ.get("PTO_ISA_DIR")
        if not raw:
            raise UsageError("the cpusim oracle needs a pto-isa tree: pass --pto-isa DIR or set PTO_ISA_DIR "
                             "(a pto-isa checkout, or any folder holding its include/)")
        tree = Path(raw).expanduser()
        if not tree.is_dir():
            raise UsageError(f"pto-isa tree {str(tree)!r} is no directory; pass --pto-isa DIR (or PTO_ISA_DIR) "
                             "naming a pto-isa checkout")
        if not (tree / "include" / "pto" / "pto-inst.hpp").is_file():
            raise UsageError(f"{str(tree)!r} is not a pto-isa tree: it has no include/pto/pto-inst.hpp; pass "
                             "--pto-isa DIR (or PTO_ISA_DIR) naming a pto-isa checkout")
        return tree.resolve()

    def compiler(self) -> str:
        """The C++ compiler's path."""
        wanted = [self.cxx] if self.cxx else [os.environ["CXX"]] if os.environ.get("CXX") else ["g++", "clang++"]
        for name in wanted:
            found = shutil.which(name)
            if found:
                return found
        if self.cxx or os.environ.get("CXX"):
            raise UsageError(f"C++ compiler {wanted[0]!r} (from {'--cxx' if self.cxx else 'CXX'}) not found; "
                             "install it or name another")
        raise UsageError("no C++ compiler found (looked for g++ and clang++); install one "
                         "(apt-get install g++) or set CXX")

    def cache_root(self) -> Path:
        if self.cache_dir is not None:
            return Path(self.cache_dir).expanduser()
        xdg = os.environ.get("XDG_CACHE_HOME")
        return (Path(xdg) if xdg else Path.home() / ".cache") / "ptofuzz"


@dataclasses.dataclass(frozen=True)
class Build:
    """A compiled harness and what it holds."""

    folder: Path
    manifest: dict[str, Any]
    cached: bool  # found in the cache rather than built now
    seconds: float  # time to build, or to find it in the cache

    @property
    def executable(self) -> Path:
        return self.folder / "harness"

    def kernels(self) -> dict[str, tuple[str, ...]]:
        """Instruction -> the dtypes compiled for it."""
        return {op: tuple(d) for op, d in self.manifest["kernels"].items()}

    def unsupported_reason(self, op: str, dtype: str) -> str | None:
        """Why (op, dtype) is not in the harness, or None when it is (see also :data:`BF16_PLACEHOLDER`)."""
        if dtype in self.manifest["kernels"].get(op, ()):
            return None
        why = self.manifest["rejected"].get(op, {}).get(dtype)
        if why is None and dtype in self.manifest.get("compiles", {}).get(op, ()):
            why = "compiles, but the cpu model does not accept it, so the harness leaves it out"
        return why or f"{op} {dtype} is not compiled into the harness"

    def target(self) -> dict[str, Any]:
        """What was tested, for finding records."""
        m = self.manifest
        return {"oracle": "cpusim", "pto_isa": m["pto_isa"], "pto_isa_commit": m["commit"], "tree_hash": m["tree_hash"],
                "compiler": m["compiler"], "flags": m["flags"], "sanitize": m["sanitize"]}


def tree_hash(include: Path) -> str:
    """sha256 over every file under ``include`` (relative paths and contents), in path order; each file is read in
    pieces (a stray file of gigabytes costs time, not memory)."""
    h = hashlib.sha256()
    for path in sorted(p for p in include.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(include)).encode() + b"\0")
        with open(path, "rb") as f:
            for piece in iter(lambda: f.read(1 << 20), b""):
                h.update(piece)
        h.update(b"\0")
    return h.hexdigest()


def commit_of(tree: Path, digest: str) -> str:
    """The pto-isa commit: ``git rev-parse HEAD`` of a checkout, a snapshot's COMMIT file, else ``tree:<hash>``."""
    if (tree / ".git").exists():
        try:
            out = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True,
                                 timeout=10, check=False)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    commit_file = tree / "COMMIT"
    if commit_file.is_file():
        text = commit_file.read_text(errors="replace").strip()
        if re.fullmatch(r"[0-9a-f]{7,40}", text):
            return text
    return f"tree:{digest[:16]}"


def compiler_version(cxx: str) -> str:
    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        raise UsageError(f"C++ compiler {cxx!r} does not run ({e}); install g++ or set CXX") from None
    first = (out.stdout or out.stderr).splitlines()
    if out.returncode != 0 or not first:
        raise UsageError(f"C++ compiler {cxx!r} does not answer --version; install g++ or set CXX")
    return first[0].strip()


def sanitize_flags(sanitize: Sequence[str]) -> list[str]:
    for s in sanitize:
        if s not in SANITIZERS:
            raise UsageError(f"--sanitize {s!r} is not one of: {', '.join(SANITIZERS)}")
    if not sanitize:
        return []
    flags = [f"-fsanitize={','.join(sanitize)}", "-fno-omit-frame-pointer"]
    if "undefined" in sanitize:
        flags.append("-fno-sanitize-recover=undefined")  # the first report ends the process: a crash finding
    return flags


def base_flags(san: Sequence[str]) -> list[str]:
    """The optimisation and language flags: sanitizer builds at -O0, a fifth of the compile time of -O1 here
    (17 s against 75 s), with exact report lines."""
    return [f if f != "-O2" or not san else "-O0" for f in BASE_FLAGS]


def _kernel_define(pairs: Sequence[tuple[str, str]]) -> str:
    items = " ".join(f"K({OPS[op]},{op},{DTYPES[dt][1]},{DTYPES[dt][0]})" for op, dt in pairs)
    return f"-DPTOFUZZ_KERNELS={items}"


NO_SPACE = "No space left on device"  # strerror(ENOSPC), as the compiler, the assembler and ld report it


def first_error(text: str) -> str:
    """The first line of a tool's output that reports an error ("error:" of a compiler, "CMake Error"), from its
    "error:" on; else its last line."""
    for line in text.splitlines():
        if "error" in line.lower():
            line = re.sub(r"^.*?(error:)", r"\1", line.strip())
            return line[:200]
    return (text.strip().splitlines() or ["compiler failed"])[-1][:200]


def _probe(commands: processes.Commands, cxx: str, include: Path, extra: list[str],
           pairs: list[tuple[str, str]]) -> tuple[bool, str]:
    cmd = [cxx, *BASE_FLAGS, *extra, "-fsyntax-only", f"-I{include}", _kernel_define(pairs), str(HARNESS)]
    out = commands.run(cmd)
    return out.returncode == 0, first_error(out.stderr) if out.returncode else ""


def _discover(commands: processes.Commands, cxx: str, include: Path, extra: list[str], jobs: int
              ) -> tuple[dict[str, list[str]], dict[str, dict[str, str]]]:
    """Which (op, dtype) pairs compile: one probe per dtype (all ops), then per pair where that fails. An
    interrupt kills the probes under way and drops those not started (it does not wait for them)."""
    kernels: dict[str, list[str]] = {op: [] for op in OPS}
    rejected: dict[str, dict[str, str]] = {op: {} for op in OPS}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        try:
            _probe_all(pool, commands, cxx, include, extra, kernels, rejected)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            commands.kill_all()
            raise
    for op in OPS:
        kernels[op].sort(key=list(DTYPES).index)
    return kernels, rejected


def _probe_all(pool: concurrent.futures.Executor, commands: processes.Commands, cxx: str, include: Path,
               extra: list[str], kernels: dict[str, list[str]], rejected: dict[str, dict[str, str]]) -> None:
    def probe(pairs: list[tuple[str, str]]) -> concurrent.futures.Future[tuple[bool, str]]:
        return pool.submit(_probe, commands, cxx, include, extra, pairs)

    per_dtype = {dt: probe([(op, dt) for op in OPS]) for dt in DTYPES}
    retry = {}
    for dt, fut in per_dtype.items():
        ok, _ = fut.result()
        if ok:
            for op in OPS:
                kernels[op].append(dt)
        else:
            retry.update({(op, dt): probe([(op, dt)]) for op in OPS})
    for (op, dt), fut in retry.items():
        ok, why = fut.result()
        if ok:
            kernels[op].append(dt)
        else:
            rejected[op][dt] = f"does not compile: {why}"


def _needs_guard(commands: processes.Commands, cxx: str, include: Path) -> bool:
    ok, _ = _probe(commands, cxx, include, [], [("TPARTADD", "float32")])
    if ok:
        return False
    ok2, why2 = _probe(commands, cxx, include, [REDUCEIDX_GUARD], [("TPARTADD", "float32")])
    if not ok2:
        raise UsageError(f"the pto-isa headers do not compile with {cxx}: {why2}; try a newer compiler (CXX=...)")
    return True


def _bf16_native(commands: processes.Commands, cxx: str, include: Path, flags: list[str], work: Path) -> bool:
    src = work / "bf16.cpp"
    src.write_text(_BF16_PROBE)
    exe = work / "bf16"
    out = commands.run([cxx, *flags, f"-I{include}", str(src), "-o", str(exe)])
    if out.returncode != 0:
        return False
    return commands.run([str(exe)], timeout=30).returncode == 0


@dataclasses.dataclass(frozen=True)
class _Identity:
    tree: Path
    cxx: str
    version: str
    digest: str
    harness_digest: str
    san: list[str]
    plant: list[str]
    key: str
    final: Path


def _identity(settings: Settings) -> _Identity:
    tree = settings.tree()
    cxx = settings.compiler()
    version = compiler_version(cxx)
    san = sanitize_flags(settings.sanitize)
    if settings.plant is not None and settings.plant not in PLANTS:
        raise UsageError(f"plant {settings.plant!r} is not one of: {', '.join(PLANTS)}")
    digest = tree_hash(tree / "include")
    harness_digest = hashlib.sha256(HARNESS.read_bytes()).hexdigest()
    plant = [PLANT_FLAG] if settings.plant else []
    ident = {"tree": digest, "harness": harness_digest, "compiler": [cxx, version],
             "flags": [*base_flags(san), *san, *plant], "kernels": sorted(wanted_pairs())}
    key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]
    return _Identity(tree, cxx, version, digest, harness_digest, san, plant, key,
                     settings.cache_root() / "cpusim" / key)


LOCK = processes.LOCK  # in a build's private folder: locked while the build runs


def sweep_stale_builds(root: Path) -> list[Path]:
    """Remove the private folders of builds that are no longer running (killed, or their machine gone), see
    :func:`ptofuzz.core.processes.sweep_unlocked`. Returns what was removed."""
    return processes.sweep_unlocked(sorted(root.glob(".build-*")))


def discard(b: Build) -> None:
    """Remove a cached build (one that failed its self-test), so that the next :func:`get` builds it again."""
    shutil.rmtree(b.folder, ignore_errors=True)


def _cached(final: Path, start: float) -> Build | None:
    """The complete build in ``final``, or None (absent, or damaged: no harness, an unreadable manifest)."""
    manifest_path = final / "manifest.json"
    if not (manifest_path.is_file() and (final / "harness").is_file()):
        return None
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or "kernels" not in manifest:
        return None
    return Build(final, manifest, True, time.perf_counter() - start)


def wanted_pairs() -> list[tuple[str, str]]:
    """The (instruction, dtype) pairs worth compiling: those the instruction's cpu model accepts (cpusim runs
    cpu cases only); the probes still report every dtype."""
    from ptofuzz.instructions import registry

    insts = registry.all_instructions()
    return [(op, dt) for op in OPS if op in insts for dt in insts[op].platforms["cpu"].dtypes if dt in DTYPES]


def _probes(commands: processes.Commands, ident: _Identity, include: Path, extra: list[str], jobs: int
            ) -> tuple[dict[str, list[str]], dict[str, dict[str, str]]]:
    """What compiles, from the probe cache of (tree, harness, compiler, base flags), else probed now: sanitizer
    and test variants of one tree share it."""
    key = hashlib.sha256(json.dumps([ident.digest, ident.harness_digest, ident.cxx, ident.version,
                                     [*BASE_FLAGS, *extra]]).encode()).hexdigest()[:20]
    path = ident.final.parent / f"probes-{key}.json"
    try:
        data = json.loads(path.read_text())
        return data["kernels"], data["rejected"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    kernels, rejected = _discover(commands, ident.cxx, include, extra, jobs)
    from ptofuzz.core.atomic import write_file

    write_file(path, json.dumps({"kernels": kernels, "rejected": rejected}))  # what a killed build left goes too
    return kernels, rejected


def lookup(settings: Settings) -> Build | None:
    """The cached build for ``settings``, or None (nothing is compiled)."""
    return _cached(_identity(settings).final, time.perf_counter())


def get(settings: Settings, *, jobs: int | None = None, say: Callable[[str], None] | None = None) -> Build:
    """The build for ``settings``: from the cache, or compiled now (and cached); ``say`` hears what a build
    that compiles is doing (it takes a minute or more)."""
    start = time.perf_counter()
    ident = _identity(settings)
    tree, cxx, version, key, final = ident.tree, ident.cxx, ident.version, ident.key, ident.final
    include, root = tree / "include", final.parent
    found = _cached(final, start)
    if found is not None:
        return found
    try:
        root.mkdir(parents=True, exist_ok=True)
        sweep_stale_builds(root)
        work = Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=root))
        lock = processes.hold(work / LOCK)  # while this build runs; the kernel drops it if the process dies
    except OSError as e:
        raise UsageError(f"cannot write the build cache {str(root)!r}: {e.strerror}; pass --cache-dir DIR "
                         "(or set XDG_CACHE_HOME) naming a writable folder") from None
    commands = processes.Commands()  # the compilers: killed at once on an interrupt, and should we die
    tell = say or (lambda _: None)
    try:
        tell(f"building the cpusim harness from {tree} with {version} (once; cached in {root})")
        guard = _needs_guard(commands, cxx, include)
        extra = [REDUCEIDX_GUARD] if guard else []
        tell("probing which instruction and dtype pairs compile (cached per tree and compiler)")
        compiles, rejected = _probes(commands, ident, include, extra, jobs or max(1, os.cpu_count() or 1))
        wanted = set(wanted_pairs())
        pairs = [(op, dt) for op in OPS for dt in compiles[op] if (op, dt) in wanted]
        kernels = {op: [dt for o, dt in pairs if o == op] for op in OPS}
        if not pairs:
            raise UsageError(f"no instruction of the harness compiles against {tree} with {version}")
        flags = [*base_flags(ident.san), *extra, *ident.san, *ident.plant]
        cmd = [cxx, *flags, f"-I{include}", _kernel_define(pairs), str(HARNESS), "-o", str(work / "harness")]
        tell(f"compiling the harness: {len(pairs)} instruction and dtype pairs")
        out = commands.run(cmd)
        if out.returncode != 0:
            if NO_SPACE in out.stderr:
                raise UsageError(f"building the cpusim harness failed: no space left on the device of {str(root)!r}; "
                                 "free some space or pass --cache-dir DIR on another device")
            raise UsageError(f"building the cpusim harness failed: {first_error(out.stderr)}")
        native = _bf16_native(commands, cxx, include, [*BASE_FLAGS, *extra], work)
        manifest = {
            "key": key, "pto_isa": str(tree), "commit": commit_of(tree, ident.digest), "tree_hash": ident.digest,
            "harness_hash": ident.harness_digest, "compiler": f"{cxx} ({version})", "flags": flags,
            "sanitize": list(settings.sanitize), "plants": bool(settings.plant), "reduceidx_skipped": guard,
            "bfloat16_native": native, "kernels": kernels, "compiles": compiles, "rejected": rejected,
            "cols": list(COLS),
            "build_seconds": round(time.perf_counter() - start, 2),
        }
        for scratch in ("bf16.cpp", "bf16", LOCK):
            (work / scratch).unlink(missing_ok=True)
        (work / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        if final.exists() and _cached(final, start) is None:  # a damaged entry (a harness deleted by hand...)
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(work, final)
        except OSError:  # another process finished first: use its build
            shutil.rmtree(work, ignore_errors=True)
            other = _cached(final, start)
            if other is None:
                raise
            return Build(final, other.manifest, False, time.perf_counter() - start)
        return Build(final, manifest, False, time.perf_counter() - start)
    finally:  # (a compile an interrupt cut short ended with its group; the probes' pool kills its own)
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
        os.close(lock)
