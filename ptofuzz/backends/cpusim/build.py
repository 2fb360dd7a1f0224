"""Building ptofuzz's harness against a pto-isa tree: find the pieces, compile what a command needs, cache it.

A build is keyed by (pto-isa tree content hash, harness sources hash, compiler and its version, flags, the
instructions and types it holds) and lives in ``<cache>/cpusim/<key>/`` (``<cache>`` = ``--cache-dir``, else
``$XDG_CACHE_HOME/ptofuzz``, else ``~/.cache/ptofuzz``) with a ``manifest.json`` saying what it holds. It is made
in a private temporary folder and renamed into place, so two processes building at once both end up using one
complete build.

A build links one object per instruction (:mod:`.objects`: compiled in parallel, cached on their own, shared by
every build that holds the instruction), so ``fuzz OP --oracles ...,cpusim`` compiles only OP's kernels, and only
once. The types compiled are those the instruction's cpu model accepts; one that does not compile is left out and
reported as unsupported with the compiler's first error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
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
SOURCES = (HARNESS, HARNESS.with_name("protocol.hpp"), HARNESS.with_name("kernels.hpp"),
           HARNESS.with_name("covstubs.cpp"))
SANITIZERS = ("address", "undefined")
# test-only planted bugs (see harness.cpp), chosen at run time in a PTOFUZZ_PLANTS build ("off": such a build with
# none, so that tests of other things can share it)
PLANTS = ("oob", "hang", "deep", "off")
PLANT_FLAG = "-DPTOFUZZ_PLANTS"
# the native-coverage build: the simulator as a shared library instrumented for libFuzzer (clang only), which the
# atheris engine loads into its own process, so that libFuzzer's counters include the simulator's branches
COVERAGE_FLAGS = ("-fsanitize=fuzzer-no-link", "-fPIC")
LIBRARY = "libharness.so"
STD = "-std=c++20"
# -g1: line tables only (a sanitizer's backtrace keeps its files and lines), a fifth less compile time than -g
BASE_FLAGS = (STD, "-O2", "-g1", "-D__CPU_SIM", "-w")
# pto-isa's cpu/TReduceIdx.hpp has a primary template holding static_assert(false), which compilers before
# P2593 (GCC 12, clang < 17) reject even when nothing instantiates it. Skipping that one header (by defining its
# include guard) is harmless for the instructions the harness runs; a build records whether it was needed.
REDUCEIDX_GUARD = "-DTCOLREDUCEIDX_CPU_HPP"

# (harness op code, mnemonic) and (harness dtype code, ptofuzz dtype, C++ type): must match harness.cpp
OPS = {"TPARTADD": 0, "TPARTMUL": 1, "TPARTMAX": 2, "TPARTMIN": 3, "TSORT32": 4, "TMRGSORT": 5, "TPARTARGMAX": 6,
       "TPARTARGMIN": 7, "TADD": 8, "TSUB": 9, "TMUL": 10, "TMAX": 11, "TMIN": 12, "TABS": 13, "TNEG": 14,
       "TRELU": 15, "TNOT": 16, "TADDS": 17, "TSUBS": 18, "TMULS": 19, "TMAXS": 20, "TMINS": 21, "TLRELU": 22,
       "TAND": 23, "TOR": 24, "TXOR": 25, "TSHL": 26, "TSHR": 27,
       "TANDS": 28, "TORS": 29, "TXORS": 30, "TSHLS": 31, "TSHRS": 32,
       "TCMP": 33, "TCMPS": 34, "TSEL": 35, "TSELS": 36,  # protocol.hpp's CmpSelOp
       "TEXPANDS": 37, "TCI": 38, "TTRI": 39,  # protocol.hpp's GenerationOp
       "TCVT": 40, "TDEQUANT": 41}  # protocol.hpp's ConversionOp (TCVT: one object, a kernel per source type)
OPS = {**OPS, "TQUANT": 42}  # protocol.hpp's QuantOp: INT8_SYM or INT8_ASYM chosen at run time (the alias)
OPS = {**OPS, "TROWEXPAND": 43, "TCOLEXPAND": 44}  # protocol.hpp's ExpandOp
OPS = {**OPS, "TROWEXPANDADD": 60, "TROWEXPANDSUB": 61, "TROWEXPANDMUL": 62, "TROWEXPANDMAX": 63,
       "TROWEXPANDMIN": 64}  # protocol.hpp's ExpandArithOp
OPS = {**OPS, "TCOLEXPANDADD": 65, "TCOLEXPANDSUB": 66, "TCOLEXPANDMUL": 67, "TCOLEXPANDMAX": 68,
       "TCOLEXPANDMIN": 69}  # protocol.hpp's ColExpandArithOp
OPS = {**OPS, "TROWSUM": 48, "TCOLSUM": 49}  # protocol.hpp's SumOp (TCOLSUM: its form in the alias)
OPS = {**OPS, "TROWPROD": 70, "TCOLPROD": 71}  # protocol.hpp's ProdOp
OPS = {**OPS, "TROWMAX": 50, "TROWMIN": 51, "TCOLMAX": 52, "TCOLMIN": 53}  # protocol.hpp's ReduceOp
# protocol.hpp's ArgReduceOp: cpu/TReduceIdx.hpp, which a build skipping it (REDUCEIDX_GUARD: GCC 12) leaves out
OPS = {**OPS, "TROWARGMAX": 54, "TROWARGMIN": 55, "TCOLARGMAX": 56, "TCOLARGMIN": 57}
OPS = {**OPS, "TPAIRREDUCESUM": 72}  # protocol.hpp's PairSumOp (dst: kPairRows static rows a case)
REDUCEIDX_OPS = ("TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN")
REDUCEIDX_SKIPPED = ("pto-isa's cpu/TReduceIdx.hpp, which holds the arg reductions, does not compile with this "
                     "compiler (a static_assert(false) in a primary template, TReduceIdx.hpp:27: accepted from GCC 13 "
                     "and clang 17 on, P2593), so the build skips that header; use clang++ (CXX=clang++, or the "
                     "cpusim-clang oracle)")
#: source types compiled beyond the cpu's for forms the pages put on a device only (TQUANT's MX forms, A5: the
#: simulator simulates them from FP16 and BF16 too)
DEVICE_DTYPES = {"TQUANT": ("float16", "bfloat16")}
# TCVT's compiled (source -> destinations), kernels.hpp's kCvtPairs: the pairs pto-isa's page lists for A2A3 or A5
# among ptofuzz's dtypes, and float32 -> float32
CVT_PAIRS = {"float32": ("float32", "float16", "bfloat16", "int32", "int16", "int64", "uint8", "uint16", "int4",
                         "float4_e2m1", "float4_e1m2"),
             "float16": ("float32", "int32", "int16", "int8", "uint8"),
             "bfloat16": ("float32", "float16", "int32"),
             "int32": ("float32", "float16", "int16", "uint8", "uint16", "int64"),
             "int16": ("float32", "float16", "int32", "uint8", "uint32"),
             "int8": ("float16", "int32", "int16", "float32"),
             "uint8": ("float16", "uint16"),
             "uint32": ("int16", "uint8", "uint16"),
             "int64": ("float32", "int32"),
             # the pairs the cpu's own system test converts (float32 to and from the 4-bit types, and more)
             "uint16": ("float32", "int32"), "int4": ("float32",), "float4_e2m1": ("float32",),
             "float4_e1m2": ("float32",)}
DTYPES = {"float32": (0, "float"), "float16": (1, "half"), "bfloat16": (2, "bfloat16_t"), "int32": (3, "int32_t"),
          "int16": (4, "int16_t"), "int8": (5, "int8_t"), "uint8": (6, "uint8_t"), "uint32": (7, "uint32_t"),
          "uint16": (8, "uint16_t"), "int64": (9, "int64_t"), "uint64": (10, "uint64_t"),
          "int4": (11, "pto::int4b_t"), "float4_e2m1": (12, "float4_e2m1x2_t"), "float4_e1m2": (13, "float4_e1m2x2_t")}
COLS = (32, 64, 128, 256, 512, 1024, 2048, 4096)  # the tile strides compiled in (harness.cpp kCols)
MAX_ROWS = 1 << 16

BF16_PLACEHOLDER = ("this build's bfloat16_t is pto-isa's _Float16 placeholder (the compiler has no C++23 "
                    "std::bfloat16_t), so the simulator would compute half arithmetic on bf16 bits "
                    "(simulator finding cpusim-bf16-placeholder); use a compiler with std::bfloat16_t (GCC 13+)")


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
    ops: tuple[str, ...] = ()  # the instructions to compile (upper case); () = every one the harness has
    coverage: bool = False  # a shared library instrumented for libFuzzer, run in process (clang; no sanitizers)

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
        """The C++ compiler's path (a native-coverage build's: clang++, unless named)."""
        if self.coverage and not self.cxx:
            return find_clang()
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

    def with_clang(self) -> Settings:
        """These settings with clang++ as the compiler (the ``cpusim-clang`` oracle's build)."""
        return dataclasses.replace(self, cxx=find_clang())

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

    @property
    def library(self) -> Path:
        """The native-coverage build's shared library (``manifest["coverage"]``)."""
        return self.folder / LIBRARY

    @property
    def coverage(self) -> bool:
        return bool(self.manifest.get("coverage", False))

    def kernels(self) -> dict[str, tuple[str, ...]]:
        """Instruction -> the dtypes compiled for it."""
        return {op: tuple(d) for op, d in self.manifest["kernels"].items()}

    def unsupported_reason(self, op: str, dtype: str) -> str | None:
        """Why (op, dtype) is not in the harness, or None when it is (see also :data:`BF16_PLACEHOLDER`)."""
        if dtype in self.manifest["kernels"].get(op, ()):
            return None
        why = self.manifest["rejected"].get(op, {}).get(dtype)
        if why is None and op not in self.manifest.get("ops", ()):
            why = f"this build holds no {op}"
        return why or "the cpu model does not accept it, so the harness leaves it out"

    def target(self) -> dict[str, Any]:
        """What was tested, for finding records."""
        m = self.manifest
        return {"oracle": "cpusim", "pto_isa": m["pto_isa"], "pto_isa_commit": m["commit"], "tree_hash": m["tree_hash"],
                "compiler": m["compiler"], "flags": m["flags"], "sanitize": m["sanitize"],
                "native_coverage": bool(m.get("coverage", False))}


def clang_path() -> str | None:
    """clang++ on the PATH, else the newest versioned one (Debian's ``clang++-19``); None when there is none."""
    path = os.environ.get("PATH", "")
    return _clang_on(path, tuple(_stamp(d) for d in path.split(os.pathsep) if d)) or None


def find_clang() -> str:
    """:func:`clang_path`, or a one-line UsageError naming the fix when there is none."""
    found = clang_path()
    if found:
        return found
    raise UsageError("the cpusim-clang oracle needs clang++ (none on the PATH); install it (apt-get install "
                     "clang-19) or use --oracles cpusim")


def _stamp(folder: str) -> int:
    """When ``folder``'s list of names last changed (0: no such folder)."""
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return 0


@functools.lru_cache(maxsize=8)
def _clang_on(path: str, stamps: tuple[int, ...]) -> str:
    """What :func:`find_clang` finds on the search path ``path`` ('' for none), looked up again only when the path
    or one of its folders' list of names (``stamps``) changed: every replayed record asks, and a PATH's folders
    hold thousands of names."""
    found = shutil.which("clang++", path=path)
    if found:
        return found
    versioned = sorted(((int(m.group(1)), p) for d in path.split(os.pathsep) if d
                        for p in _listing(Path(d)) if (m := re.fullmatch(r"clang\+\+-(\d+)", p.name))),
                       reverse=True)
    return next((str(p) for _, p in versioned if os.access(p, os.X_OK)), "")


def _listing(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


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


@dataclasses.dataclass(frozen=True)
class _Identity:
    tree: Path
    cxx: str
    version: str
    digest: str
    sources_digest: str
    san: list[str]
    plant: list[str]
    coverage: list[str]  # COVERAGE_FLAGS, or none
    pairs: tuple[tuple[str, str], ...]  # the (instruction, dtype) pairs this build compiles
    key: str
    final: Path

    @property
    def root(self) -> Path:
        return self.final.parent

    def flags(self, guard: bool) -> list[str]:
        return [*base_flags(self.san), *([REDUCEIDX_GUARD] if guard else []), *self.san, *self.plant, *self.coverage]


def sources_digest() -> str:
    """sha256 of ptofuzz's harness sources (the main program, the protocol, the kernels)."""
    h = hashlib.sha256()
    for path in SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _identity(settings: Settings) -> _Identity:
    tree = settings.tree()
    cxx = settings.compiler()
    version = compiler_version(cxx)
    san = sanitize_flags(settings.sanitize)
    if settings.coverage and san:
        raise UsageError(f"--sanitize {','.join(settings.sanitize)} does not go with native coverage (the simulator "
                         "runs inside the fuzzing Python process, which has no sanitizer runtime); drop --sanitize, "
                         "or pass --no-native-coverage to fuzz the sanitized harness out of process")
    if settings.coverage and "clang" not in version.lower():
        raise UsageError(f"native coverage needs clang++ (libFuzzer's -fsanitize=fuzzer-no-link); {cxx!r} is "
                         f"{version!r}: install clang (apt-get install clang-19) or pass --no-native-coverage")
    if settings.plant is not None and settings.plant not in PLANTS:
        raise UsageError(f"plant {settings.plant!r} is not one of: {', '.join(PLANTS)}")
    pairs = tuple(wanted_pairs(settings.ops))
    digest = tree_hash(tree / "include")
    sources = sources_digest()
    plant = [PLANT_FLAG] if settings.plant else []
    coverage = list(COVERAGE_FLAGS) if settings.coverage else []
    ident = {"tree": digest, "harness": sources, "compiler": [cxx, version],
             "flags": [*base_flags(san), *san, *plant, *coverage], "kernels": sorted(pairs)}
    key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]
    return _Identity(tree, cxx, version, digest, sources, san, plant, coverage, pairs, key,
                     settings.cache_root() / "cpusim" / key)


LOCK = processes.LOCK  # in a build's private folder: locked while the build runs


def sweep_stale_builds(root: Path) -> list[Path]:
    """Remove the private folders of builds, instruction objects and tree probes that are no longer running
    (killed, or their machine gone), see :func:`ptofuzz.core.processes.sweep_unlocked`. Returns what was
    removed."""
    return processes.sweep_unlocked(sorted([*root.glob(".build-*"), *(root / "objects").glob(".build-*")]))


def discard(b: Build) -> None:
    """Remove a cached build (one that failed its self-test), so that the next :func:`get` builds it again."""
    shutil.rmtree(b.folder, ignore_errors=True)


def _cached(final: Path, start: float) -> Build | None:
    """The complete build in ``final``, or None (absent, or damaged: no harness, an unreadable manifest)."""
    manifest_path = final / "manifest.json"
    if not manifest_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or "kernels" not in manifest:
        return None
    if not (final / (LIBRARY if manifest.get("coverage") else "harness")).is_file():
        return None
    return Build(final, manifest, True, time.perf_counter() - start)


def wanted_pairs(ops: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The (instruction, dtype) pairs worth compiling: those the instruction's cpu model accepts (cpusim runs
    cpu cases only), of ``ops`` (default: every instruction the harness has)."""
    from ptofuzz.instructions import registry

    insts = registry.all_instructions()
    for op in ops:
        if op not in OPS:
            raise UsageError(f"{op} is not in the cpusim harness; it runs: {', '.join(o.lower() for o in OPS)}")
    chosen = [op for op in OPS if op in insts and (not ops or op in ops)]
    pairs = [(op, dt) for op in chosen for dt in (*insts[op].platforms["cpu"].dtypes, *DEVICE_DTYPES.get(op, ()))
             if dt in DTYPES]
    return [(op, dt) for op, dt in pairs if op != "TCVT" or dt in CVT_PAIRS]  # TCVT: the sources it compiles


def lookup(settings: Settings) -> Build | None:
    """The cached build for ``settings``, or None (nothing is compiled)."""
    return _cached(_identity(settings).final, time.perf_counter())


def get(settings: Settings, *, jobs: int | None = None, say: Callable[[str], None] | None = None) -> Build:
    """The build for ``settings``: from the cache, or linked now from the instructions' objects (each from the
    cache, else compiled now, in parallel); ``say`` hears what a build that compiles is doing. One build of a
    key at a time: a second process asking for it (another command, a parallel test worker) waits, then takes the
    first one's build instead of compiling the same objects beside it."""
    start = time.perf_counter()
    ident = _identity(settings)
    found = _cached(ident.final, start)
    if found is not None:
        return found
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(processes.exclusive(ident.final, say))
        except OSError as e:
            raise _unwritable(ident.root, e) from None
        found = _cached(ident.final, start)
        return found if found is not None else _build(settings, ident, start, jobs, say)


def _unwritable(root: Path, e: OSError) -> UsageError:
    return UsageError(f"cannot write the build cache {str(root)!r}: {e.strerror}; pass --cache-dir DIR (or set "
                      "XDG_CACHE_HOME) naming a writable folder")


def _build(settings: Settings, ident: _Identity, start: float, jobs: int | None,
           say: Callable[[str], None] | None) -> Build:
    """Compile (or take from the cache) the objects of ``ident`` and link them into its build folder."""
    from ptofuzz.backends.cpusim import objects

    tree, cxx, version, key, final = ident.tree, ident.cxx, ident.version, ident.key, ident.final
    include, root = tree / "include", ident.root
    try:
        sweep_stale_builds(root)
        work = Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=root))
        lock = processes.hold(work / LOCK)  # while this build runs; the kernel drops it if the process dies
    except OSError as e:
        raise _unwritable(root, e) from None
    commands = processes.Commands()  # the compilers: killed at once on an interrupt, and should we die
    tell = say or (lambda _: None)
    try:
        if not ident.pairs:
            raise UsageError("no instruction of the harness is chosen")
        facts = objects.tree_facts(commands, cxx, version, include, ident.digest, list(BASE_FLAGS), REDUCEIDX_GUARD,
                                   root)
        flags = ident.flags(facts["guard"])
        tc = objects.Toolchain(commands, cxx, version, include, tuple(flags),
                               f"{ident.digest}:{ident.sources_digest}:{cxx}:{version}", root)
        wanted: dict[str, tuple[int, list[tuple[str, int, str]]]] = {}
        for op, dt in ident.pairs:
            wanted.setdefault(op, (OPS[op], []))[1].append((dt, DTYPES[dt][0], DTYPES[dt][1]))
        tell(f"building the cpusim harness of {len(wanted)} instruction(s) from {tree} with {version} "
             f"(cached in {root})")
        objs = objects.objects(tc, wanted, jobs or max(1, os.cpu_count() or 1), tell)
        kernels = {op: list(o.kernels) for op, o in objs.items()}
        rejected = {op: o.rejected for op, o in objs.items()}
        if facts["guard"]:  # the arg reductions' header skipped: say so rather than the compiler's error
            rejected.update({op: {dt: REDUCEIDX_SKIPPED for dt in rejected[op]} for op in REDUCEIDX_OPS
                             if op in rejected})
        if not any(kernels.values()):
            why = f": {REDUCEIDX_SKIPPED}" if facts["guard"] and set(wanted) <= set(REDUCEIDX_OPS) else ""
            raise UsageError(f"no instruction of the harness compiles against {tree} with {version}{why}")
        objects.link(tc, list(objs.values()), work, library=LIBRARY if settings.coverage else None)
        manifest = {
            "key": key, "pto_isa": str(tree), "commit": commit_of(tree, ident.digest), "tree_hash": ident.digest,
            "harness_hash": ident.sources_digest, "compiler": f"{cxx} ({version})", "flags": flags,
            "sanitize": list(settings.sanitize), "plants": bool(settings.plant), "reduceidx_skipped": facts["guard"],
            "bfloat16_native": facts["bfloat16_native"], "coverage": settings.coverage, "ops": list(wanted),
            "kernels": kernels,
            "rejected": rejected, "cols": list(COLS),
            "objects": {op: {"key": o.key, "seconds": o.seconds, "cached": o.cached} for op, o in objs.items()},
            "build_seconds": round(time.perf_counter() - start, 2),
        }
        (work / LOCK).unlink(missing_ok=True)
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
    finally:  # (a compile an interrupt cut short ended with its group; the pools kill their own)
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
        os.close(lock)
