"""The coverage-guided engine: atheris (libFuzzer for Python) drives the same generators and oracles.

Each fuzzer input is decoded by :class:`~ptofuzz.generators.fuzzed.FuzzedSource` into a batch of cases of one
geometry (which oracle's input space, geometry, dtype, batch size, then the values) and run through every chosen
oracle at once, as the random engine's batches are; disagreements go to the same
:class:`~ptofuzz.engine.campaign.FindingStore` as the random engine's. ptofuzz's own modules (oracles, generators,
instructions, the comparison) are instrumented, so inputs that reach new branches of the oracles are kept in
the corpus and mutated further.

With a cpusim oracle the simulator runs in the fuzzing process too (native coverage, on by default): a clang build
of the harness instrumented for libFuzzer (``-fsanitize=fuzzer-no-link``), loaded as a shared library once
libFuzzer is up and made global (:func:`expose_libfuzzer`), so that the simulator's branches guide the mutation as
well as the oracles' (``--no-native-coverage``: the out-of-process harness, whose branches libFuzzer never sees).

libFuzzer ends the process when it is done, so :func:`run` starts the fuzzer in a child process (an
executable script it writes, which libFuzzer's ``-fork`` can start again) that writes its summary to a file
as it goes; the parent shows progress and reads the final summary. The standalone targets under ``fuzz/`` use
:func:`target` directly.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ptofuzz.core import processes
from ptofuzz.core.atomic import write_file

# Coverage comes from the semantics under test: the oracles. atheris hooks whole top-level packages, so every
# other ptofuzz module is excluded by name (instrumenting them too halves the executions per second).
INSTRUMENTED = "ptofuzz.oracles"
FLUSH_SECONDS = 0.5
MAX_LEN = 8192  # bytes per fuzzer input: enough for two 16x64 float32 tiles and their geometry
SCRATCH = "ptofuzz-atheris-"  # the scratch folder of a run, in TMPDIR (held locked while the run goes on)


# Subpackages that live in top-level folders (pyproject's package-dir): an editable install does not show them
# under ptofuzz/ on disk, so they are looked up by name.
MAPPED = ("ptofuzz.generators", "ptofuzz.oracles")


def _uninstrumented() -> list[str]:
    """Every ptofuzz module outside :data:`INSTRUMENTED`, by name (found on disk; only ``ptofuzz`` itself is
    imported)."""
    import importlib.util
    import pkgutil

    import ptofuzz

    roots = [(list(ptofuzz.__path__), "ptofuzz.")]
    names = []
    for sub in MAPPED:
        spec = importlib.util.find_spec(sub)
        if spec is not None and spec.submodule_search_locations:
            names.append(sub)
            roots.append((list(spec.submodule_search_locations), sub + "."))
    for path, prefix in roots:
        names += [info.name for info in pkgutil.walk_packages(path, prefix, onerror=lambda _: None)]
    return sorted({n for n in names if not (n == INSTRUMENTED or n.startswith(INSTRUMENTED + "."))})


def _hooks() -> Any:
    """atheris' import hooks for the oracles: branch coverage without comparison (dataflow) tracing. Tracing
    the oracles' comparisons of numpy arrays keeps memory alive in atheris 3.0 (resident memory grew by about
    250 KB per batched input until libFuzzer's 2 GB limit stopped the run; without it 88 MB after 3,000 inputs,
    at the same coverage), and comparing whole arrays gives libFuzzer nothing to learn from anyway."""
    import atheris

    include, exclude = [INSTRUMENTED], _uninstrumented()
    try:
        from atheris.import_hook import HookManager

        return HookManager({INSTRUMENTED.split(".")[0]}, set(exclude), True, trace_dataflow=False)
    except (ImportError, TypeError):  # another atheris: its public hook (with dataflow tracing)
        return atheris.instrument_imports(include=include, exclude=exclude)


def import_instrumented() -> None:
    """Import ptofuzz's oracles with atheris' coverage instrumentation (before anything else imports them)."""
    with _hooks():
        import ptofuzz.instructions.registry as reg

        reg.all_instructions()  # the instruction modules, and through them the oracles


MAX_BATCH_LOG2 = 10  # an input decodes 1, 2, 4, ... up to 1,024 cases of one geometry (and the plan's budget)


class Decoded:
    """One fuzzer input: a batch of ``n`` cases of one geometry, their stacked inputs (no batch axis when
    ``n`` is None: the instruction draws one case at a time), and the signatures they show."""

    def __init__(self, case: Any, inputs: dict[str, Any], n: int | None, hits: Any) -> None:
        self.case, self.inputs, self.n, self.hits = case, inputs, n, hits

    @property
    def cases(self) -> int:
        return 1 if self.n is None else self.n

    @property
    def signatures(self) -> list[Any]:
        return sorted(self.hits.counts)

    def example(self, sig: Any) -> dict[str, Any]:
        """The inputs of the first case of the batch that shows ``sig``."""
        import numpy as np

        if self.n is None:
            return self.inputs
        k = self.hits.first[sig]
        return {r: np.array(v[k]) for r, v in self.inputs.items()}


def run_input(inst: Any, plan: Any, src: Any) -> Decoded | None:
    """One fuzzer input, structure-aware: its first bytes choose the oracle's input space, the geometry and
    dtype (as the random engine's generators do) and the batch size (a power of two up to what the plan's
    element budget allows), the rest fill the batch's elements; the batch then runs through every oracle at
    once, as the random engine's batches do. None when the decoded tiles are above the plan's size limit."""
    from ptofuzz.engine import campaign, differential

    case, most = campaign.draw_case(inst, plan, src)
    if max(t.rows * t.cols for _, t in case.tiles) > plan.max_elements:
        return None
    if inst.draw_batch is None or most <= 1:
        inputs = inst.draw_inputs(src, case, plan.mix)
        outcomes = differential.run_oracles(inst, case, inputs, plan.backends)
        return Decoded(case, inputs, None, differential.compare_batch(inst, case, outcomes, None))
    n = min(most, 1 << int(src.integers(0, MAX_BATCH_LOG2)))
    inputs = inst.draw_batch(src, case, plan.mix, n)
    outcomes = differential.run_oracles(inst, case, inputs, plan.backends)
    return Decoded(case, inputs, n, differential.compare_batch(inst, case, outcomes, n))


LIBFUZZER_CORE = "core_with_libfuzzer"  # atheris' module that holds libFuzzer


def expose_libfuzzer() -> bool:
    """Make the libFuzzer that atheris loaded (privately, as Python loads extension modules) global, so that a
    shared library instrumented with ``-fsanitize=fuzzer-no-link`` and loaded after this registers its coverage
    counters with it rather than with the library's own empty stand-ins. atheris loads libFuzzer when fuzzing
    starts, so this runs on the first input. False when no libFuzzer is loaded (a --rerun without fuzzing)."""
    import ctypes

    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if LIBFUZZER_CORE in line and "/" in line})
    except OSError:
        return False
    for path in paths:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL | os.RTLD_NOLOAD)
    return bool(paths)


def target(plan: Any, store: Any, on_exec: Callable[[int, int], None] | None = None) -> Callable[[bytes], None]:
    """A libFuzzer ``TestOneInput`` for ``plan``: decode a batch of cases, run the oracles, record
    disagreements. ``on_exec(executions, cases)`` after each input."""
    from ptofuzz.generators.fuzzed import FuzzedSource
    from ptofuzz.instructions import registry

    inst = store.inst if store is not None else registry.get(plan.op)
    count, cases = [0], [0]

    def test_one_input(data: bytes) -> None:
        if not count[0]:
            expose_libfuzzer()  # before a native-coverage simulator is loaded (on its first use, below)
        count[0] += 1
        ran = run_input(inst, plan, FuzzedSource.from_bytes(data))
        if ran is not None:
            cases[0] += ran.cases
            if store is not None:
                for sig in ran.signatures:
                    item = f" item {ran.hits.first[sig]}" if ran.n is not None else ""
                    store.add(sig.key, ran.hits.counts[sig], f"exec {count[0]}{item}", ran.case, ran.example(sig))
        if on_exec is not None:
            on_exec(count[0], cases[0])

    return test_one_input


def _child(args: dict[str, Any], argv: list[str]) -> None:
    """The fuzzing process: instrument, build the target, hand over to libFuzzer (which never returns).
    ``argv``: the libFuzzer command line (with ``-fork=N`` libFuzzer starts further processes of this script,
    each writing its own summary into ``summaries``; :func:`run` merges them)."""
    import atheris

    import_instrumented()
    from ptofuzz.engine import campaign
    from ptofuzz.instructions import registry

    plan = pickle.loads(Path(args["plan"]).read_bytes())  # its backends too: the parent built them
    out = Path(args["out"]) if args["out"] else None
    store = campaign.FindingStore(registry.get(plan.op), plan, out, engine="atheris")
    fork = bool(args.get("fork"))
    summary = Path(args["summaries"]) / f"{os.getpid()}.json" if fork else Path(args["summary"])
    start = time.perf_counter()
    last = [start]

    def flush(execs: int, cases: int) -> None:
        stats = campaign.Stats(cases=cases, elapsed=time.perf_counter() - start, signatures=len(store.findings),
                               new=len(store.new), execs=execs)
        data = campaign.summary_json(store, stats)
        write_file(summary, json.dumps(data))
        if not fork:  # forked jobs' hits go into the records once, from the merged summaries (run())
            store.finish(stats)
        last[0] = time.perf_counter()

    runs, seconds = (None, None) if fork else (args["runs"], args["seconds"])  # fork: libFuzzer stops on time
    known = {"new": 0}

    def on_exec(execs: int, cases: int) -> None:
        now = time.perf_counter()
        done = (runs is not None and execs >= runs) or (seconds is not None and now - start >= seconds)
        if done or now - last[0] >= FLUSH_SECONDS or len(store.new) != known["new"]:
            known["new"] = len(store.new)
            flush(execs, cases)
        if done:  # libFuzzer would end the process without a last summary: stop here, after writing it
            sys.stdout.flush()
            os._exit(0)

    atheris.Setup(argv, target(plan, store, on_exec))
    atheris.Fuzz()


def run(plan: Any, *, runs: int | None = None, seconds: float | None = None, out: Path | None = None,
        corpus: Path | None = None, progress: Callable[[Any], None] | None = None,
        jobs: int = 1) -> tuple[dict[str, Any], Any]:
    """Fuzz ``plan`` with atheris in a child process (``jobs`` > 1: libFuzzer's ``-fork=jobs``, which starts
    that many fuzzing processes of an executable script and shares their corpus); return the final summary
    (as ``campaign.json``) and the last statistics."""
    from ptofuzz.core.errors import UsageError
    from ptofuzz.engine import campaign
    from ptofuzz.instructions import registry
    from ptofuzz.io import records

    if plan.draw_version != 2:  # its cases come from libFuzzer's bytes, and past them from the version-2 stream
        raise UsageError(f"--draw-version {plan.draw_version} is the random engine's: the atheris engine decodes "
                         "libFuzzer's inputs with the version-2 stream only; drop --draw-version")
    try:
        import atheris  # noqa: F401
    except ImportError:
        raise UsageError("atheris is not installed for this Python; `pip install atheris` or use "
                         "--engine random") from None
    if runs is None and seconds is None:
        raise UsageError("give --runs N or --time SECONDS")
    if not 1 <= jobs <= 256:
        raise UsageError(f"--jobs {jobs} must be between 1 and 256")
    if jobs > 1 and (seconds is None or runs is not None):
        raise UsageError(f"--jobs {jobs} with --engine atheris runs libFuzzer's -fork for a time: give --time "
                         "SECONDS instead of --runs")
    if corpus is not None:
        if corpus.exists() and not corpus.is_dir():
            raise UsageError(f"--corpus {str(corpus)!r} is a file; atheris keeps its corpus in a folder")
        if corpus.is_dir() and any(records._is_record(p) for p in corpus.glob("*.json")):
            raise UsageError(f"--corpus {str(corpus)!r} holds case records; the atheris corpus is libFuzzer's raw "
                             "inputs: give it a folder of its own (records seed the random engine)")
        corpus.mkdir(parents=True, exist_ok=True)
    if out is not None:  # a damaged --out is refused here, in one line (the fuzzing child would die of it)
        campaign.FindingStore(registry.get(plan.op), plan, out, engine="atheris")
    processes.sweep_unlocked(Path(tempfile.gettempdir()).glob(f"{SCRATCH}*"))  # of runs killed by SIGKILL
    work = Path(tempfile.mkdtemp(prefix=SCRATCH))
    lock = processes.hold(work / processes.LOCK)  # while this run goes on (the kernel drops it if we die)
    try:
        # the child runs in the scratch folder: a source checkout in the current folder must not shadow the
        # installed package (python -m puts the current folder first on sys.path), so every path is absolute
        out = out.resolve() if out is not None else None
        corpus = corpus.resolve() if corpus is not None else None
        artifacts = out if out is not None else work
        artifacts.mkdir(parents=True, exist_ok=True)
        libfuzzer = [str(corpus)] if corpus is not None else []
        # libFuzzer's -seed 0 means "pick one": seed N runs as N+1 (31 bits); crash inputs go to --out, not the cwd
        libfuzzer += [f"-seed={plan.seed % 0x7FFFFFFF + 1}", f"-max_len={MAX_LEN}", "-print_final_stats=1",
                      f"-artifact_prefix={artifacts}{os.sep}"]
        sim: Any = getattr(plan.backends.simulator(), "settings", None)
        if sim is not None and sim.coverage:  # the simulator in process: its hang is libFuzzer's timeout of an input
            libfuzzer.append(f"-timeout={native_timeout(sim.timeout)}")
        if jobs > 1:  # the fork supervisor stops on time; its jobs run until then
            libfuzzer += [f"-fork={jobs}", f"-max_total_time={max(1, round(seconds or 0))}"]
        elif seconds is not None:  # the child stops itself on time; this is only a backstop
            libfuzzer.append(f"-max_total_time={int(seconds) + 60}")
        summary, summaries = work / "summary.json", work / "summaries"
        summaries.mkdir()
        write_file(work / "plan.pickle", pickle.dumps(plan))
        args = {"plan": str(work / "plan.pickle"), "out": str(out) if out else None, "summary": str(summary),
                "summaries": str(summaries), "fork": jobs > 1, "runs": runs, "seconds": seconds}
        write_file(work / "args.json", json.dumps(args))
        script = work / "ptofuzz-atheris"  # an executable script: libFuzzer's -fork runs it again for each job
        script.write_text(f"#!{sys.executable}\nimport json, sys\nfrom ptofuzz.engine.atheris_engine import _child\n"
                          f"_child(json.loads(open({str(work / 'args.json')!r}).read()), sys.argv)\n")
        script.chmod(0o755)
        log_path = work / "libfuzzer.log"
        start = time.perf_counter()

        def current() -> dict[str, Any] | None:
            return _merged(summaries) if jobs > 1 else (json.loads(summary.read_text()) if summary.is_file()
                                                              else None)

        with open(log_path, "wb") as logf:
            # its own process group (libFuzzer's -fork jobs are its children, and go with it) and its own TMPDIR
            # inside the scratch folder (what libFuzzer keeps there goes with the folder, even after a kill)
            (work / "tmp").mkdir()
            proc = subprocess.Popen([str(script), *libfuzzer], stdout=logf, stderr=subprocess.STDOUT, cwd=work,
                                    start_new_session=True, env={**os.environ, "TMPDIR": str(work / "tmp")})
            try:
                while proc.poll() is None:
                    time.sleep(0.25)
                    data = current() if progress is not None else None
                    if progress is not None and data is not None:
                        progress(_stats_of(data, start, seconds))
            except BaseException:  # Ctrl-C or TERM: stop every fuzzing process, keep what they found, tidy up
                processes.kill_group(proc.pid)
                proc.wait()
                data = current()
                if data is not None and out is not None:
                    _write_summary(data, out, jobs, start)
                shutil.rmtree(work, ignore_errors=True)
                raise
            finally:
                processes.kill_group(proc.pid)  # a -fork job that outlived its supervisor
        if proc.returncode != 0:
            (work / processes.KEPT).touch()  # the message points into it: no later run sweeps it away
            raise RuntimeError(_crash_message(proc.returncode, log_path, artifacts, plan))
        data = current()
        if data is None:
            (work / processes.KEPT).touch()
            raise UsageError(f"atheris ended before its first case; see {log_path}")
        data["libfuzzer"] = {**libfuzzer_coverage(log_path.read_text(errors="replace")),
                             "native_coverage": bool(getattr(sim, "coverage", False))}
        if out is not None:
            _write_summary(data, out, jobs, start)
        elif jobs > 1:
            _merge_stats(data, jobs, start)
        shutil.rmtree(work, ignore_errors=True)
        return data, _stats_of(data, start, seconds)
    finally:
        os.close(lock)


def native_timeout(sim_timeout: float) -> int:
    """libFuzzer's ``-timeout`` (seconds an input may take) when the simulator runs in process: ``--sim-timeout``
    is per case and an input is a batch of up to 1,024 of them, so six times it, and at least a minute."""
    return max(60, int(-(-6 * sim_timeout // 1)))


_COV = re.compile(r"\bcov: (\d+) ft: (\d+)")


def libfuzzer_coverage(log: str) -> dict[str, int]:
    """The last coverage libFuzzer reported in ``log`` (its ``cov:`` PCs and ``ft:`` features; 0 when none)."""
    found = _COV.findall(log)
    cov, ft = found[-1] if found else ("0", "0")
    return {"cov": int(cov), "ft": int(ft)}


def _merge_stats(data: dict[str, Any], jobs: int, start: float) -> None:
    """The merged summary of -fork jobs: the run's own elapsed time and rates, and its job count."""
    data["elapsed_s"] = round(time.perf_counter() - start, 3)
    data["cases_per_s"] = round(data["cases"] / data["elapsed_s"], 1) if data["elapsed_s"] else 0.0
    data["execs_per_s"] = round(data["execs"] / data["elapsed_s"], 1) if data["elapsed_s"] else 0.0
    data["jobs"] = jobs


def _write_summary(data: dict[str, Any], out: Path, jobs: int, start: float) -> None:
    """campaign.json in --out (and, for -fork jobs, their hits added to the records once)."""
    from ptofuzz.engine import campaign

    if jobs > 1:
        _merge_stats(data, jobs, start)
        _add_hits(data)
    out.mkdir(parents=True, exist_ok=True)
    write_file(out / campaign.SUMMARY, json.dumps(campaign.relocatable(data), indent=1) + "\n")


def _merged(folder: Path) -> dict[str, Any] | None:
    """The summaries of libFuzzer's forked jobs as one: cases and inputs summed, one entry per signature with
    its hits summed (the first job's record and first-seen kept)."""
    parts = []
    for f in sorted(folder.glob("*.json")):
        try:
            parts.append(json.loads(f.read_text()))
        except (OSError, ValueError):  # a job writing its file right now: the next poll reads it
            continue
    if not parts:
        return None
    data = dict(parts[0])
    sigs: dict[str, dict[str, Any]] = {}
    for part in parts:
        for s in part["signatures"]:
            have = sigs.get(s["signature"])
            if have is None:
                sigs[s["signature"]] = dict(s)
            else:
                have["hits"] += s["hits"]
                have["path"] = have["path"] or s["path"]
                have["replay"] = have["replay"] or s["replay"]
    data["signatures"] = sorted(sigs.values(), key=lambda s: s["signature"])
    data["new"] = sum(1 for s in data["signatures"] if s["new"])
    for key in ("cases", "execs", "skipped"):
        data[key] = sum(int(p.get(key, 0)) for p in parts)
    unsupported: dict[str, int] = {}
    for part in parts:
        for name, n in part.get("unsupported", {}).items():
            unsupported[name] = unsupported.get(name, 0) + int(n)
    data["unsupported"] = dict(sorted(unsupported.items()))
    data["elapsed_s"] = max(float(p.get("elapsed_s", 0.0)) for p in parts)
    return data


def _add_hits(data: dict[str, Any]) -> None:
    """Forked jobs leave their records' hit counts alone: add the merged counts once."""
    from ptofuzz.io import records

    for s in data["signatures"]:
        if s.get("path"):
            rec = Path(s["path"]) / records.RECORD
            if rec.is_file():
                finding = dict(json.loads(rec.read_text()).get("finding", {}))
                finding["hits"] = int(finding.get("hits", 0)) + int(s["hits"])
                records.update_json(rec, {"finding": finding})


def _crash_message(code: int, log: Path, artifacts: Path, plan: Any) -> str:
    """What the fuzzer died of: the Python exception libFuzzer printed, the input it saved, how to rerun it."""
    text = log.read_text(errors="replace") if log.is_file() else ""
    lines = text.splitlines()
    exc = next((ln.strip() for ln in reversed(lines) if re.match(r"\s*[A-Za-z_.]+(Error|Exception)\b", ln)), "")
    crash = next((ln.split("written to ")[-1].strip() for ln in lines if "Test unit written to" in ln), "")
    where = f"; the input is saved as {crash}" if crash else ""
    rerun = f"; reproduce: {plan.command(engine='atheris')} --rerun {crash}" if crash else ""
    native = next((m.group(1) for ln in lines if (m := _NATIVE_DEATH.search(ln))), "")
    if native and not exc:  # no Python exception: the process itself died (the in-process simulator, or Python)
        return (f"the fuzzing process died under atheris (exit {code}, libFuzzer: {native}), in the simulator when "
                f"it runs in process (native coverage){where}; log {log}{rerun}; out of process, cpusim names the "
                "case: add --no-native-coverage")
    return (f"an oracle raised under atheris (exit {code}): {exc or 'see the log'}{where}; log {log}{rerun}")


# libFuzzer's report of a death that is no Python exception: a signal, a timeout, running out of memory
_NATIVE_DEATH = re.compile(r"ERROR: libFuzzer: (deadly signal|timeout after \d+ seconds|out-of-memory[^;]*)")


def _stats_of(data: dict[str, Any], start: float, seconds: float | None) -> Any:
    from ptofuzz.engine import campaign

    elapsed = time.perf_counter() - start
    return campaign.Stats(cases=int(data.get("cases", 0)), elapsed=float(data.get("elapsed_s", elapsed)),
                          signatures=len(data.get("signatures", [])), new=int(data.get("new", 0)),
                          time_left=None if seconds is None else max(0.0, seconds - elapsed),
                          execs=int(data.get("execs", 0)))


def rerun(plan: Any, path: Path) -> None:
    """Run one saved fuzzer input (a libFuzzer crash file) through the target in this process. An input is at
    most :data:`MAX_LEN` bytes (libFuzzer's -max_len here): a larger file is refused by its size, unread."""
    from ptofuzz.core import reading
    from ptofuzz.core.errors import UsageError

    try:
        data = reading.read_bytes(path, MAX_LEN)
    except ValueError as e:
        raise UsageError(f"--rerun {str(path)!r}: {e}; a fuzzer input of this engine is at most {MAX_LEN:,} bytes "
                         "(give a crash file the atheris engine wrote)") from None
    target(plan, None)(data)

