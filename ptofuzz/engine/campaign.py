"""Fuzz campaigns: draw cases, run every chosen oracle on them, keep one example per disagreement signature.

The random engine works in **batches**: batch ``k`` draws one geometry and dtype from the stream
``(seed, op, "fuzz-geometry", k)`` (from the input space of one of the chosen oracles, so that patterns one
platform accepts and another rejects come up), then the inputs of all its cases at once from
``(seed, op, "fuzz-data", k)`` as stacked arrays, and evaluates each oracle once on the whole stack. A batch's
size depends only on its geometry, so the same seed gives the same cases whatever ``--runs``, ``--time`` or
``--jobs`` say; with ``--jobs N`` batches run in N processes and are merged in batch order, so the first
example of each signature is the same as with one process.

A :class:`FindingStore` keeps the findings: per signature a hit count, where it was first seen, whether it is
a documented platform difference (``known_difference`` of the instruction) and, with ``--out``, a record
folder (:mod:`ptofuzz.io.records`) written as soon as the signature first appears.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.backends import choose
from ptofuzz.backends.base import ASLREF, BUNDLE, SIMULATORS, TARGET, Backends
from ptofuzz.core import platforms, reading
from ptofuzz.core.atomic import write_file
from ptofuzz.core.case import Case, Outcome, OutcomeKind
from ptofuzz.core.errors import UsageError
from ptofuzz.core.signature import Signature
from ptofuzz.engine import differential
from ptofuzz.generators import values
from ptofuzz.generators.source import DRAW_VERSION, Source, seeded
from ptofuzz.instructions import defects

if TYPE_CHECKING:
    from ptofuzz.backends.aslref import AslrefSettings
    from ptofuzz.backends.cpusim.build import Settings
    from ptofuzz.backends.target import TargetBackend
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder, records

CAMPAIGN_FORMAT = "ptofuzz-campaign/1"  # campaign.json (ptofuzz/schemas/campaign.json)
DEFAULT_BATCH = 1024
ELEMENT_BUDGET = 1 << 18  # elements of the largest tile times the batch size, at most
ASLREF_MAX_ELEMENTS = 256  # tiles with aslref: the interpreter takes about 1 ms an element
MAX_ELEMENTS = 4096  # tiles larger than this are redrawn smaller (fuzzing wants many small cases)
ILLEGAL_SHARE = 0.125  # of the spec cases a campaign draws, those that break a legality rule (faults compared too)
SUMMARY = "campaign.json"


@dataclasses.dataclass(frozen=True)
class Plan:
    """What a campaign draws and compares (everything that decides its cases)."""

    op: str
    backends: Backends  # the oracles compared, built once (they pickle into worker processes)
    seed: int = 0
    batch: int = DEFAULT_BATCH
    constraints: tuple[tuple[str, Any], ...] = ()  # dtype / shape for random_case
    special: str | None = None
    rate: float = values.DEFAULT_SPECIAL_RATE
    max_elements: int = MAX_ELEMENTS  # larger tiles are redrawn smaller (see default_max_elements)
    shard: tuple[int, int] | None = None  # (i, N): only batches k with k % N == i (N machines, one big run)
    draw_version: int = DRAW_VERSION  # what the seed draws (ptofuzz.generators.source)
    illegal_share: float = ILLEGAL_SHARE  # of the spec cases drawn, those that break a legality rule

    @property
    def oracles(self) -> tuple[str, ...]:
        return self.backends.names

    @property
    def mix(self) -> values.ValueMix:
        return values.ValueMix.parse(self.special, self.rate)

    def command(self, runs: int | None = None, engine: str = "random") -> str:
        """The ``ptofuzz fuzz`` command line that runs this plan."""
        parts = [f"ptofuzz fuzz {self.op.lower()} --oracles {','.join(self.oracles)} --seed {self.seed}"]
        if engine != "random":
            parts.append(f"--engine {engine}")
        if runs is not None:
            parts.append(f"--runs {runs}")
        if self.shard is not None:
            parts.append(f"--shard {self.shard[0]}/{self.shard[1]}")
        if self.batch != DEFAULT_BATCH:
            parts.append(f"--batch {self.batch}")
        for k, v in self.constraints:
            v = ",".join(v) if k == "dtype" and isinstance(v, tuple) else v
            parts.append(f"--shape {v[0]}x{v[1]}" if k == "shape" else f"--{k.replace('_', '-')} {v}")
        if self.special is not None:
            parts.append(f"--special {self.special}")
        if self.rate != values.DEFAULT_SPECIAL_RATE:
            parts.append(f"--special-rate {self.rate}")
        if self.draw_version != DRAW_VERSION:
            parts.append(f"--draw-version {self.draw_version}")
        shape = dict(self.constraints).get("shape")
        if self.max_elements != default_max_elements(self.oracles, shape):
            parts.append(f"--max-elements {self.max_elements}")
        if self.illegal_share != ILLEGAL_SHARE:
            parts.append(f"--illegal-share {self.illegal_share!r}")
        parts += [b.flags() for b in (self.backends.simulator(), self.backends.get(TARGET), self.backends.get(ASLREF))
                  if b is not None]
        return " ".join(p for p in parts if p)


def make_plan(op: str, oracles: Sequence[str] | None = None, *, seed: int = 0, batch: int = DEFAULT_BATCH,
              dtype: str | None = None, shape: tuple[int, int] | None = None, special: str | None = None,
              rate: float = values.DEFAULT_SPECIAL_RATE, instruction: registry.Instruction | None = None,
              index_dtype: str | None = None, shard: tuple[int, int] | None = None,
              sim: Settings | None = None, target: TargetBackend | None = None, to: str | None = None,
              draw_version: int = DRAW_VERSION, max_elements: int | None = None,
              aslref: AslrefSettings | None = None, illegal_share: float | None = None) -> Plan:
    """Check the request against the registry, build its backends (``sim``: the cpusim oracle's settings;
    ``target``: the external target; ``aslref``: where pto-spec's ASL model is) and return the plan (one-line
    UsageErrors otherwise). ``max_elements``: the largest tile drawn (:func:`default_max_elements`);
    ``illegal_share``: of the spec cases, those drawn to break a legality rule (default :data:`ILLEGAL_SHARE`)."""
    from ptofuzz.core import dtypes
    from ptofuzz.engine.generate import draw_version_of

    draw_version = draw_version_of(draw_version)

    inst = instruction or registry.get(op)
    chosen = tuple(choose.oracle_name(o) for o in oracles) if oracles else \
        platforms.distinct(p for p in registry.PLATFORMS if p in inst.platforms)
    if not oracles and len(chosen) < 2 and inst.bundle:
        chosen = (*chosen, BUNDLE)  # a spec-only instruction (TSORT): its model against its bundle form
    # an unknown oracle, or one without a model of inst: one line
    backends = choose.choose(inst, chosen, sim=sim, target=target, aslref=aslref)
    if len(set(chosen)) != len(chosen):
        raise UsageError(f"--oracles {','.join(chosen)} names an oracle twice")
    if len(chosen) < 2:
        raise UsageError(f"--oracles {','.join(chosen)}: a differential campaign needs two oracles or more; "
                         f"{inst.name} has: {', '.join(choose.available(inst))}")
    if not 1 <= batch <= 1 << 16:
        raise UsageError(f"--batch {batch} must be between 1 and 65536")
    values.ValueMix.parse(special, rate)
    constraints: list[tuple[str, Any]] = []
    if dtype is not None:  # one element type, or a comma list drawn from batch by batch
        names = tuple(dict.fromkeys(dtypes.get(d.strip()).name for d in dtype.split(",") if d.strip()))
        if not names:
            raise UsageError(f"--dtype {dtype!r} names no element type; e.g. --dtype int16 or --dtype int8,int32")
        spaces = {backends.case_space(o) for o in backends.names}  # a simulator runs cpu cases
        for name in names:
            if not any(name in inst.platforms[p].dtypes for p in spaces if p in inst.platforms):
                raise UsageError(f"no chosen oracle runs {inst.name} on {name}; pick a dtype one of "
                                 f"{', '.join(chosen)} accepts")
        constraints.append(("dtype", names[0] if len(names) == 1 else names))
    if index_dtype is not None:
        if "index_dtype" not in inst.random_options:
            raise UsageError(f"--index-dtype sets TPARTARGMAX/MIN's index tiles; {inst.name} has none: drop it")
        constraints.append(("index_dtype", inst.check_choice("index_dtype", index_dtype)))
    if to is not None:
        if "to" not in inst.random_options:
            raise UsageError(f"--to sets TCVT's destination type; {inst.name} has none: drop it")
        constraints.append(("to", dtypes.get(to).name))
    if shape is not None:
        if min(shape) < 1 or shape[0] * shape[1] > 1 << 16:
            raise UsageError(f"--shape {shape[0]}x{shape[1]}: fuzzing takes tiles of 1 to 65536 elements")
        constraints.append(("shape", tuple(shape)))
    if shard is not None and not (shard[1] >= 1 and 0 <= shard[0] < shard[1]):
        raise UsageError(f"--shard {shard[0]}/{shard[1]}: give I/N with 0 <= I < N (e.g. --shard 0/4)")
    if max_elements is not None and not 1 <= max_elements <= 1 << 16:
        raise UsageError(f"--max-elements {max_elements} must be between 1 and 65536 (e.g. 256)")
    if max_elements is not None and shape is not None and shape[0] * shape[1] > max_elements:
        raise UsageError(f"--shape {shape[0]}x{shape[1]} is larger than --max-elements {max_elements}; drop one")
    if illegal_share is not None:
        _check_illegal_share(inst, backends, illegal_share)
    cap = default_max_elements(chosen, shape) if max_elements is None else max_elements
    return Plan(inst.name, backends, seed, batch, tuple(constraints), special, rate, cap, shard, draw_version,
                ILLEGAL_SHARE if illegal_share is None else illegal_share)


def _check_illegal_share(inst: registry.Instruction, backends: Backends, share: float) -> None:
    """One-line UsageErrors for an ``--illegal-share`` that draws nothing it says."""
    if not 0.0 <= share <= 1.0:
        raise UsageError(f"--illegal-share {share} must be between 0 and 1 (e.g. 0.5)")
    if inst.illegal_case is None:
        raise UsageError(f"--illegal-share: ptofuzz draws no illegal {inst.name} cases; drop it")
    if "spec" not in {backends.case_space(o) for o in backends.names}:
        raise UsageError("--illegal-share sets the share of illegal spec cases; add an oracle that runs spec cases "
                         "(e.g. --oracles spec,bundle) or drop it")


def default_max_elements(oracles: Sequence[str], shape: tuple[int, int] | None) -> int:
    """The largest tile a campaign draws unless told: :data:`MAX_ELEMENTS`, :data:`ASLREF_MAX_ELEMENTS` with the
    aslref oracle, at least ``shape``'s."""
    cap = ASLREF_MAX_ELEMENTS if ASLREF in oracles else MAX_ELEMENTS
    return max(cap, shape[0] * shape[1]) if shape else cap


# ---- one batch ------------------------------------------------------------------------------------------------

def batch_geometry(inst: registry.Instruction, plan: Plan, k: int) -> tuple[Case, int]:
    """Batch ``k``'s case (geometry, dtype, params) and its size."""
    src = seeded(plan.seed, inst.name, "fuzz-geometry", str(k), version=plan.draw_version)
    return draw_case(inst, plan, src)


def draw_case(inst: registry.Instruction, plan: Plan, src: Source) -> tuple[Case, int]:
    """A case from one chosen oracle's input space (tiles above ``plan.max_elements`` are redrawn) and the
    batch size its geometry allows."""
    constraints = dict(plan.constraints)
    listed = constraints.get("dtype")  # a tuple: --dtype int8,int32 (one drawn a batch)
    for _ in range(8 if plan.max_elements >= MAX_ELEMENTS else 64):  # small caps need more tries
        platform = plan.backends.case_space(src.choice(plan.oracles))
        if isinstance(listed, tuple):
            sup = inst.platforms.get(platform)
            constraints["dtype"] = src.choice(tuple(d for d in listed if sup and d in sup.dtypes) or listed)
        if platform == "spec" and inst.illegal_case is not None and float(src.random(1)[0]) < plan.illegal_share:
            case = inst.illegal_case(src, constraints)
        else:
            case = inst.random_case(src, platform, constraints)
        largest = max(t.rows * t.cols for _, t in case.tiles)
        if largest <= plan.max_elements:
            break
    most = plan.batch if inst.batch_limit is None else min(plan.batch, inst.batch_limit(case))
    n = max(1, min(most, ELEMENT_BUDGET // max(largest, 1))) if inst.draw_batch else 1
    return case, n


@dataclasses.dataclass
class BatchResult:
    index: int
    size: int  # cases evaluated
    case: Case
    hits: dict[str, tuple[int, int]]  # signature key -> (cases showing it, first item)
    examples: dict[str, dict[str, np.ndarray]]  # signature key -> inputs of its first item
    skipped: int = 0  # cases a real target left unanswered after too many failures in the batch
    start: int = 0  # cases of the whole (unsharded) run before this batch
    unsupported: dict[str, int] = dataclasses.field(default_factory=dict)  # oracle -> cases it could not run


def run_batch(inst: registry.Instruction, plan: Plan, k: int, case: Case, size: int, take: int) -> BatchResult:
    """Evaluate the first ``take`` of batch ``k``'s ``size`` cases (drawn at full size: item data never depend
    on how many are taken)."""
    return run_batches(inst, plan, [(k, case, size, take)])[0]


def run_batches(inst: registry.Instruction, plan: Plan, todo: Sequence[tuple[int, Case, int, int]]
                ) -> list[BatchResult]:
    """:func:`run_batch` of each (k, case, size, take); a pooled backend (aslref) answers all of them at once."""
    drawn = [batch_inputs(inst, plan, *one) for one in todo]
    every = plan.backends.evaluate_all(inst, [(case, inputs) for (_, case, _, _), inputs in zip(todo, drawn)])
    return [_result(inst, k, case, take, inputs, outcomes)
            for (k, case, _, take), inputs, outcomes in zip(todo, drawn, every)]


def batch_inputs(inst: registry.Instruction, plan: Plan, k: int, case: Case, size: int, take: int
                 ) -> dict[str, np.ndarray]:
    """Batch ``k``'s inputs (of ``size`` drawn, the first ``take``): stacked (a leading axis) when the instruction
    draws batches, else the one case's."""
    src = seeded(plan.seed, inst.name, "fuzz-data", str(k), version=plan.draw_version)
    if inst.draw_batch is None:
        return dict(inst.draw_inputs(src, case, plan.mix))
    inputs = inst.draw_batch(src, case, plan.mix, size)
    return {r: v[:take] for r, v in inputs.items()} if take < size else dict(inputs)


def _result(inst: registry.Instruction, k: int, case: Case, take: int, inputs: Mapping[str, np.ndarray],
            outcomes: Mapping[str, Outcome]) -> BatchResult:
    stacked = inst.draw_batch is not None
    hits = differential.compare_batch(inst, case, outcomes, take if stacked else None)

    def item(i: int) -> dict[str, np.ndarray]:
        return {r: np.array(v[i] if stacked else v) for r, v in inputs.items()}

    keys = {s: s.key for s in hits.counts}
    skipped = sum(f.kind == "skipped" for o in outcomes.values() for f in o.extra.get("failures", ()))
    unsupported = {name: take for name, o in outcomes.items() if o.kind is OutcomeKind.UNSUPPORTED}
    return BatchResult(k, take, case, {keys[s]: (c, hits.first[s]) for s, c in hits.counts.items()},
                       {keys[s]: item(hits.first[s]) for s in hits.counts}, skipped, unsupported=unsupported)


class OracleCrash(RuntimeError):
    """An oracle (or generator) raised on a campaign case: a bug in ptofuzz, reported with its batch."""


def _guarded(inst: registry.Instruction, plan: Plan, todo: Sequence[tuple[int, Case, int, int, int]]
             ) -> list[BatchResult]:
    """:func:`run_batches` of (k, case, size, take, cases through k); an oracle's exception names its batch."""
    try:
        results = run_batches(inst, plan, [one[:4] for one in todo])
    except Exception as e:
        k, case, _, _, through = todo[0] if len(todo) == 1 else todo[-1]
        which = f"batch {k}" if len(todo) == 1 else f"batches {todo[0][0]}-{k}"
        raise OracleCrash(f"{which} ({case.dtype}, {', '.join(f'{r} {t.token()}' for r, t in case.tiles)}) "
                          f"raised {type(e).__name__}: {e}; reproduce: {plan.command(runs=through)}") from e
    for res, (_, _, _, take, through) in zip(results, todo):
        res.start = through - take
    return results


def die_with_parent(parent: int) -> None:
    """A worker process's first act: ask the kernel to kill it when its parent dies (Linux's parent-death
    signal), so that a campaign killed by SIGKILL leaves no worker behind, blocked on a queue and holding the
    caller's output open. Elsewhere a worker still ends at its parent's clean exit. A Ctrl-C (a terminal sends it
    to the whole process group) is the parent's to handle: a worker ignores it (it printed a traceback)."""
    import ctypes
    import ctypes.util
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)


def _worker(plan: Plan, todo: Sequence[tuple[int, Case, int, int, int]]) -> list[BatchResult]:
    return _guarded(registry.get(plan.op), plan, todo)


# ---- findings ---------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Finding:
    signature: Signature
    hits: int  # in this campaign
    first: str  # where this campaign first met it: "batch 3 item 17" / an exec number / a corpus path
    known: str | None  # the documented reason, for an intended platform difference
    new: bool  # neither known, nor a known defect, nor saved by an earlier campaign in the same --out
    path: Path | None = None  # its record folder
    case_number: int | None = None  # cases run up to and including the first hit (for a --runs replay)
    flushed: int = 0  # hits already added to the saved record
    defect: str | None = None  # the known defect of the code under test it is an instance of (instructions.defects)


@dataclasses.dataclass
class Stats:
    cases: int = 0
    batches: int = 0
    elapsed: float = 0.0
    signatures: int = 0
    new: int = 0
    time_left: float | None = None
    skipped: int = 0  # cases a real target (cpusim, --target) left unanswered: compared by no pair with it
    unsupported: dict[str, int] = dataclasses.field(default_factory=dict)  # oracle -> cases it could not run
    through: int = 0  # cases of the whole (unsharded) run up to the last batch run here
    execs: int = 0  # atheris: fuzzer inputs executed (each a batch of cases)

    @property
    def rate(self) -> float:
        return self.cases / self.elapsed if self.elapsed > 0 else 0.0


class FindingStore:
    """Signatures met so far, with their first example saved under ``out`` (when given)."""

    def __init__(self, inst: registry.Instruction, plan: Plan, out: Path | None, *, engine: str = "random",
                 force: bool = False) -> None:
        self.inst, self.plan, self.out, self.engine = inst, plan, out, engine
        self.given: Path | None = out
        self.findings: dict[str, Finding] = {}
        self.saved: dict[str, Path] = {}  # signature key -> record.json from this or an earlier campaign
        if out is not None:
            if out.exists() and not out.is_dir():
                raise UsageError(f"--out {str(out)!r} is a file; pass a directory")
            try:
                out.mkdir(parents=True, exist_ok=True)
                probe = out / f".write-test.tmp-{os.getpid()}"  # swept like staging if we die here
                probe.write_text("")
                probe.unlink()
            except OSError as e:
                raise UsageError(f"cannot write into --out {str(out)!r}: {e.strerror}; choose another --out") from None
            self.given = out  # as the user wrote it: the commands printed now use it
            self.out = out = out.resolve()
            casefolder.sweep_stale(out)  # a record folder half-written by a killed campaign (SIGKILL) goes
            try:
                reading.is_regular(out / SUMMARY)
            except ValueError as e:
                raise UsageError(f"--out {str(self.given)!r}: cannot write {SUMMARY} ({e}); remove it or choose "
                                 "another --out") from None
            for folder in sorted(out.iterdir()):
                rec = folder / records.RECORD
                if folder.is_dir() and not folder.is_symlink():  # a hit count a killed run was writing
                    casefolder.sweep_stale(folder)
                # minimized copies carry their original's signature; a broken link named record.json counts
                if folder.name.endswith(".min") or not folder.is_dir() or not os.path.lexists(rec):
                    continue
                try:  # a damaged record is refused: its hits would be added to it, or its folder replaced
                    key = records.finding_key(rec)
                except ValueError as e:
                    raise UsageError(f"--out {str(self.given)!r} holds a damaged finding {str(rec)!r} ({e}); remove "
                                     "that folder or choose another --out") from None
                if key:
                    self.saved[key] = rec

    def add(self, key: str, count: int, first: str, case: Case, inputs: Mapping[str, np.ndarray],
            case_number: int | None = None) -> Finding:
        f = self.findings.get(key)
        if f is None:
            case, inputs = self.inst.item(case, inputs)  # a batch item's own parameters (TCI's start)
            sig = Signature.from_key(key)
            known = differential.known_difference(self.inst, sig, self.plan.backends)
            defect = defects.matching(sig)  # the real code named as itself: a model never matches a defect
            f = Finding(sig, 0, first, known, new=known is None and defect is None and key not in self.saved,
                        case_number=case_number, defect=defect.name if defect else None)
            self.findings[key] = f
            if self.out is not None:
                f.path = self.saved.get(key) or self._save(f, case, inputs)
        f.hits += count
        return f

    def _save(self, f: Finding, case: Case, inputs: Mapping[str, np.ndarray]) -> Path:
        outcomes, sigs = differential.signatures_of(self.inst, case, inputs, self.plan.backends)
        folder = self.out / f.signature.slug  # type: ignore[operator]
        extra: dict[str, Any] = {
            "finding": {"signature": f.signature.key, "hits": 0, "first_seen": f.first, "known": f.known,
                        "seed": self.plan.seed, "draw_version": self.plan.draw_version, "engine": self.engine,
                        **({"defect": f.defect} if f.defect else {})},
            # paths relative to the campaign folder (the record's parent): a moved findings tree stays valid
            "replay": f"ptofuzz replay {folder.name}",
        }
        if self.engine == "random" and f.case_number is not None:
            extra["finding"]["campaign"] = self.plan.command(runs=f.case_number)
        sim = self.plan.backends.simulator()
        if sim is not None:  # what real code was tested: pto-isa commit, compiler, flags
            extra["finding"]["target"] = sim.provenance()
            both = [b for b in (self.plan.backends.get(n) for n in SIMULATORS) if b is not None]
            if len(both) > 1:  # each compiler's build
                extra["finding"]["targets"] = {b.name: b.provenance() for b in both}
        rec = records.Record(case, {r: np.asarray(v) for r, v in inputs.items()}, self.plan.oracles,
                             {o: records.describe(out) for o, out in outcomes.items()},
                             tuple(s.key for s in sigs), extra)
        try:
            path = records.write(rec, self.inst, folder, outcomes=outcomes, force=True)
        except UsageError:
            if not (folder / records.RECORD).is_file():
                raise
            path = folder / records.RECORD  # another fuzzing process (atheris --jobs) saved it just now
        self.saved[f.signature.key] = path
        return path

    def finish(self, stats: Stats) -> None:
        """Add this campaign's hits (since the last call) to each saved record and write ``campaign.json``."""
        if self.out is None:
            return
        for f in self.findings.values():
            if f.path is not None and f.path.is_file() and f.hits > f.flushed:
                data = json.loads(f.path.read_text())
                finding = dict(data.get("finding", {}))
                finding["hits"] = int(finding.get("hits", 0)) + f.hits - f.flushed
                records.update_json(f.path, {"finding": finding})
                f.flushed = f.hits
        self.out.mkdir(parents=True, exist_ok=True)
        write_file(self.out / SUMMARY, json.dumps(relocatable(summary_json(self, stats)), indent=1) + "\n")

    @property
    def new(self) -> list[Finding]:
        return [f for f in self.findings.values() if f.new]


def relocatable(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary as campaign.json stores it: each record folder (and its replay command) relative to the
    campaign folder, so the findings tree can be moved or copied to another machine."""
    out = dict(summary)
    out["signatures"] = [{**s, "path": Path(s["path"]).name if s.get("path") else None,
                          "replay": f"ptofuzz replay {Path(s['path']).name}" if s.get("path") else None}
                         for s in summary["signatures"]]
    return out


def summary_json(store: FindingStore, stats: Stats) -> dict[str, Any]:
    """A campaign's summary for this process: record folders under --out as the user gave it."""
    plan = store.plan
    return {
        "format": CAMPAIGN_FORMAT,
        "op": plan.op, "oracles": list(plan.oracles), "engine": store.engine, "seed": plan.seed,
        "draw_version": plan.draw_version,
        "shard": f"{plan.shard[0]}/{plan.shard[1]}" if plan.shard else None, **provenance(plan),
        "cases": stats.cases, "elapsed_s": round(stats.elapsed, 3), "cases_per_s": round(stats.rate, 1),
        "skipped": stats.skipped,
        "unsupported": dict(sorted(stats.unsupported.items())),
        **({"execs": stats.execs, "execs_per_s": round(stats.execs / stats.elapsed, 1) if stats.elapsed else 0.0}
           if store.engine == "atheris" else {}),
        "signatures": [
            {"signature": f.signature.key, "hits": f.hits, "first_seen": f.first, "new": f.new, "known": f.known,
             "defect": f.defect, "path": str(_shown(store, f.path.parent)) if f.path else None,
             "replay": f"ptofuzz replay {_shown(store, f.path.parent)}" if f.path else None}
            for f in sorted(store.findings.values(), key=lambda f: f.signature)],
        "new": len(store.new),
        "command": plan.command(runs=(stats.through or stats.cases) or None, engine=store.engine),
    }


def _shown(store: FindingStore, folder: Path) -> Path:
    """A record folder under --out as the user wrote --out (relative stays relative)."""
    if store.given is not None and store.out is not None and folder.parent == store.out:
        return store.given / folder.name
    return folder


def provenance(plan: Plan) -> dict[str, Any]:
    """What produced a campaign: ptofuzz's version, the pto-isa / pto-spec versions its models follow and, when
    the real simulator ran, the commit of the pto-isa tree it was built from."""
    from ptofuzz import MODELS, __version__

    trees = {}
    sim = plan.backends.simulator()
    if sim is not None:
        try:
            trees["pto-isa"] = sim.provenance().get("pto_isa_commit")
        except UsageError:  # a stand-in for the simulator (tests): no tree to name
            trees["pto-isa"] = None
    return {"ptofuzz_version": __version__, "models": dict(MODELS), "trees": trees}


# ---- the random engine ----------------------------------------------------------------------------------------

Progress = Callable[[Stats], None]


def run_random(plan: Plan, *, runs: int | None = None, seconds: float | None = None, jobs: int = 1,
               out: Path | None = None, corpus: Path | None = None, progress: Progress | None = None,
               instruction: registry.Instruction | None = None) -> tuple[FindingStore, Stats]:
    """Run the random engine until ``runs`` cases or ``seconds`` have passed (whichever is given; both: the
    first reached). ``corpus``: case records replayed first, as extra cases."""
    if runs is None and seconds is None:
        raise UsageError("give --runs N or --time SECONDS")
    if runs is not None and runs < 1:
        raise UsageError(f"--runs {runs} must be at least 1")
    if seconds is not None and not 0 < seconds < 1e9:  # (NaN fails this too)
        raise UsageError(f"--time {seconds} must be positive")
    if not 1 <= jobs <= 256:
        raise UsageError(f"--jobs {jobs} must be between 1 and 256")
    inst = instruction or registry.get(plan.op)
    if jobs > 1 and instruction is not None and instruction is not registry.get(plan.op):
        raise UsageError("--jobs > 1 runs the registered instructions only")
    # a bad --corpus (or a damaged record in it) is refused before anything is written into --out
    corpus_records = [records.read(p) for p in records.discover([corpus])] if corpus is not None else []
    store = FindingStore(inst, plan, out)
    stats = Stats()
    start = time.perf_counter()
    try:
        if corpus is not None:
            stats.cases += _run_corpus(store, corpus_records)
        _random_batches(inst, plan, runs, seconds, jobs, start, store, stats, progress)
    finally:  # also on Ctrl-C or an oracle exception: saved records get their hits, campaign.json is written
        stats.elapsed = time.perf_counter() - start
        store.finish(stats)
    return store, stats


def _random_batches(inst: registry.Instruction, plan: Plan, runs: int | None, seconds: float | None, jobs: int,
                    start: float, store: FindingStore, stats: Stats, progress: Progress | None) -> None:
    for res in _batches(inst, plan, runs, seconds, jobs, start):
        base = res.start  # numbered in the whole run: `--runs base+item+1` without a shard reaches the case
        for key in sorted(res.hits, key=lambda k: (res.hits[k][1], k)):
            count, item = res.hits[key]
            store.add(key, count, f"batch {res.index} item {item}", res.case, res.examples[key],
                      case_number=base + item + 1)
        stats.cases += res.size
        stats.through = res.start + res.size
        stats.skipped += res.skipped
        for name, n in res.unsupported.items():
            stats.unsupported[name] = stats.unsupported.get(name, 0) + n
        stats.batches += 1
        stats.elapsed = time.perf_counter() - start
        stats.signatures, stats.new = len(store.findings), len(store.new)
        if seconds is not None:
            stats.time_left = max(0.0, seconds - stats.elapsed)
        if progress is not None:
            progress(stats)


def _plan_batches(inst: registry.Instruction, plan: Plan, runs: int | None
                  ) -> Iterator[tuple[int, Case, int, int, int]]:
    """(batch, case, size, cases taken, cases through this batch), in order."""
    planned = 0
    k = 0
    while runs is None or planned < runs:
        case, size = batch_geometry(inst, plan, k)
        take = size if runs is None else min(size, runs - planned)
        planned += take
        if plan.shard is None or k % plan.shard[1] == plan.shard[0]:
            yield k, case, size, take, planned
        k += 1


def _pooled(inst: registry.Instruction, plan: Plan, runs: int | None
            ) -> Iterator[list[tuple[int, Case, int, int, int]]]:
    """The batches of :func:`_plan_batches` in groups run together: one each, or, with a pooled backend (aslref:
    seconds to start), consecutive batches of at least its pool of cases a group."""
    pool = plan.backends.pool
    group: list[tuple[int, Case, int, int, int]] = []
    for one in _plan_batches(inst, plan, runs):
        group.append(one)
        if sum(g[3] for g in group) >= pool:
            yield group
            group = []
    if group:
        yield group


def _batches(inst: registry.Instruction, plan: Plan, runs: int | None, seconds: float | None, jobs: int,
             start: float) -> Iterator[BatchResult]:
    def time_up() -> bool:
        return seconds is not None and time.perf_counter() - start >= seconds

    todo = _pooled(inst, plan, runs)
    if jobs == 1:
        for group in todo:
            if time_up():
                return
            yield from _guarded(inst, plan, group)
        return
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=die_with_parent,
                                                initargs=(os.getpid(),)) as pool:
        window: deque[concurrent.futures.Future[list[BatchResult]]] = deque()
        exhausted = False
        while True:
            while not exhausted and len(window) < 4 * jobs and not time_up():
                nxt = next(todo, None)
                if nxt is None:
                    exhausted = True
                    break
                window.append(pool.submit(_worker, plan, nxt))
            if not window:
                return
            yield from window.popleft().result()
            if time_up():
                exhausted = True


def _run_corpus(store: FindingStore, corpus: Sequence[records.Record]) -> int:
    """Replay the case records of a ``--corpus`` for this instruction as campaign cases; return how many."""
    n = 0
    for rec in corpus:
        if rec.case.op != store.inst.name:
            continue
        _, sigs = differential.signatures_of(store.inst, rec.case, rec.inputs, store.plan.backends)
        for sig in sigs:
            store.add(sig.key, 1, f"corpus {rec.path}", rec.case, rec.inputs)
        n += 1
    return n
