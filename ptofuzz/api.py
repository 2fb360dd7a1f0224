"""The library API the CLI is a thin layer over: :func:`generate`, :func:`check`, :func:`capabilities`."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import case as case_mod
from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder

if TYPE_CHECKING:  # the comparison engine and the verdicts are imported by check and diff, not by gen
    from ptofuzz.engine.compare import Mode
    from ptofuzz.engine.verdicts import CaseVerdict, DiffResult


@dataclasses.dataclass(frozen=True)
class GeneratedCase:
    """One case folder ``gen`` wrote: its name and place, its case, outcome and file sizes."""

    name: str
    out_dir: Path
    case: Case
    outcome: str  # ok / fault
    files: dict[str, int]  # file name -> bytes
    not_exact: int  # golden elements that are not EXACT (nan/zero/undefined)

    @property
    def path(self) -> Path:
        return self.out_dir / self.name


@dataclasses.dataclass(frozen=True)
class GenerateResult:
    """What one ``gen`` call wrote."""

    op: str
    platform: str
    out_dir: Path
    seed: int
    cases: tuple[GeneratedCase, ...]  # every folder written (none when generate was called with keep=False)
    count: int  # folders written


def _replay_command(op: str, platform: str, seed: int, mode: str) -> str:
    return f"ptofuzz gen {op.lower()} --platform {platform} --seed {seed}{mode}"


def _explicit_flags(inst: registry.Instruction, case: Case) -> str:
    """The explicit-case flags that describe ``case`` again (the instruction's own, else its source shape)."""
    if inst.replay_flags is not None:
        return f" --dtype {case.dtype}" + inst.replay_flags(case)
    src = case.tile(inst.inputs[0])
    return f" --dtype {case.dtype} --shape {src.valid_rows}x{src.valid_cols}"


def _flag(option: str) -> str:
    """The CLI flag of an explicit-case option."""
    return "--" + {"contract": "bf16-contract"}.get(option, option.replace("_", "-"))


def plan(op: str, platform: str, *, seed: int = 0, random: int | None = None,
         explicit: Mapping[str, Any] | None = None) -> list[tuple[str, Case, str]]:
    """The cases a ``gen`` call writes: (folder name, case, replay command), without data (see
    :func:`plan_cases`, which yields them one at a time)."""
    return list(plan_cases(op, platform, seed=seed, random=random, explicit=explicit))


def plan_cases(op: str, platform: str, *, seed: int = 0, random: int | None = None,
               explicit: Mapping[str, Any] | None = None) -> Iterator[tuple[str, Case, str]]:
    """The cases a ``gen`` call writes, one at a time: (folder name, case, replay command), without data.

    Default: the canonical case list of ``platform``'s pto-isa system test (spec: the union of the
    platforms' geometries). ``random=N``: N random cases legal on the platform (``explicit`` may fix
    ``dtype``/``shape``). ``explicit``: the one case the options describe.
    """
    inst = registry.get(op)
    platform = platforms.canonical(platform)  # kirinX90 -> kirin9030
    sup = inst.support(platform)
    prof = sup.profile
    explicit = {k: v for k, v in (explicit or {}).items() if v is not None}
    alien = sorted(set(explicit) - set(inst.options))
    if alien:
        raise UsageError(f"{_flag(alien[0])} does not apply to {inst.name}; its options are: "
                         + ", ".join(_flag(o) for o in inst.options))
    if random is not None:
        if not 1 <= random <= MAX_RANDOM:
            raise UsageError(f"--random {random} must be between 1 and {MAX_RANDOM}")
        unknown = sorted(set(explicit) - set(inst.random_options))
        if unknown:
            raise UsageError(f"--random draws these itself; drop {_flag(unknown[0])} or drop --random")
        if "dtype" in explicit:
            _check_dtype(inst, platform, explicit["dtype"])
        if "index_dtype" in explicit:
            inst.check_choice("index_dtype", explicit["index_dtype"])
        src = seeded(seed, inst.name, platform, "random-geometry")
        replay = _replay_command(inst.name, platform, seed, f" --random {random}")
        for k in range(random):
            case = _check_size(inst.random_case(src, platform, explicit))
            yield prof.name(case, k), case, replay
        return
    if explicit:
        if "dtype" in explicit:
            _check_dtype(inst, platform, explicit["dtype"])
        case = _check_size(inst.explicit_case(platform, explicit))
        yield prof.name(case), case, _replay_command(inst.name, platform, seed, _explicit_flags(inst, case))
        return
    if not prof.canonical:
        raise UsageError(f"pto-isa has no file-based {inst.name} system test on {platform}; use --random N or "
                         "explicit flags (" + ", ".join(_flag(o) for o in inst.options) + ")")
    for alias, case in prof.canonical:
        yield f"{prof.suite}.{alias}", case, _replay_command(inst.name, platform, seed, "")


MAX_RANDOM = 1_000_000
MAX_TILE_ELEMENTS = case_mod.MAX_TILE_ELEMENTS


def _check_size(case: Case) -> Case:
    for role, t in case.tiles:
        if min(t.rows, t.cols, t.valid_rows, t.valid_cols) < 0:
            raise UsageError(f"{role} tile {t.rows}x{t.cols} (valid {t.valid_rows}x{t.valid_cols}) has a negative size")
        if t.rows * t.cols > MAX_TILE_ELEMENTS:
            raise UsageError(f"{role} tile {t.rows}x{t.cols} has {t.rows * t.cols:,} elements; ptofuzz handles "
                             f"tiles up to {MAX_TILE_ELEMENTS:,} elements: use smaller --shape/regions")
    return case


def _check_dtype(inst: registry.Instruction, platform: str, name: str) -> None:
    dt = dtypes.get(name)
    sup = inst.support(platform)
    if dt.name not in sup.dtypes:
        raise UsageError(f"{inst.name} on {platform} does not support dtype {dt.name}; use one of: "
                         f"{', '.join(sup.dtypes)}")


REDRAW_ROUNDS = 3


def _undefined(outcome: Outcome) -> int:
    return sum(int(np.count_nonzero(c == UNDEFINED)) for c in outcome.classes.values())


def realize(inst: registry.Instruction, name: str, case: Case, seed: int, mix: values.ValueMix | float,
            *, defined: bool = True) -> tuple[dict[str, np.ndarray], Outcome]:
    """Draw a case's inputs (seeded by ``seed`` and the folder name) and run its platform oracle.

    With ``defined`` (the default), inputs whose values leave result elements undefined on the platform
    (integer overflow or subnormals on an NPU, a NaN in an NPU sort block, ...) are replaced by plain values,
    so that a golden holds no placeholder where the geometry allows; undefined elements that the geometry
    causes stay, and are listed in the manifest either way.
    """
    return realize_many(inst, [(name, case)], seed, mix, defined=defined)[0]


def realize_many(inst: registry.Instruction, named: Sequence[tuple[str, Case]], seed: int,
                 mix: values.ValueMix | float, *, defined: bool = True
                 ) -> list[tuple[dict[str, np.ndarray], Outcome]]:
    """:func:`realize` for many cases at once: the same inputs and outcomes, case by case (each case draws
    from its own stream), with the oracles' work shared across the batch where the instruction can (see
    ``Instruction.shared``)."""
    if not isinstance(mix, values.ValueMix):
        mix = values.ValueMix(float(mix))
    sources = [seeded(seed, name) for name, _ in named]
    drawn = inst.draw_each([(source, case) for source, (_, case) in zip(sources, named)], mix)
    batch = [(case, inputs) for (_, case), inputs in zip(named, drawn)]
    with inst.sharing(batch):
        outcomes = [inst.evaluate(case, inputs) for case, inputs in batch]
    inputs = list(drawn)
    if defined and inst.redraw is not None:
        _redraw(inst, sources, [case for case, _ in batch], inputs, outcomes)
    return list(zip(inputs, outcomes))


def _redraw(inst: registry.Instruction, sources: Sequence[Any], cases: Sequence[Case],
            inputs: list[dict[str, np.ndarray]], outcomes: list[Outcome]) -> None:
    """Up to :data:`REDRAW_ROUNDS` rounds of ``inst.redraw`` over the cases whose outcomes hold undefined
    elements, in place; a round's new data is kept only where it leaves fewer undefined elements."""
    assert inst.redraw is not None
    undefined = [_undefined(o) if o.kind is OutcomeKind.OK else 0 for o in outcomes]
    active = [k for k, n in enumerate(undefined) if n]
    for _ in range(REDRAW_ROUNDS):
        if not active:
            break
        proposals = inst.redraw([(sources[k], cases[k], inputs[k], outcomes[k]) for k in active])
        evaluate = [(k, p[0]) for k, p in zip(active, proposals) if p is not None and p[1] is None]
        with inst.sharing([(cases[k], new) for k, new in evaluate]):
            evaluated = {k: inst.evaluate(cases[k], new) for k, new in evaluate}
        still = []
        for k, p in zip(active, proposals):
            if p is None:
                continue
            new_outcome = p[1] if p[1] is not None else evaluated[k]
            now = _undefined(new_outcome)
            if now < undefined[k]:  # else no better: keep the original data
                inputs[k], outcomes[k], undefined[k] = p[0], new_outcome, now
                if now:
                    still.append(k)
        active = still


def generate(op: str, platform: str, out_dir: str | Path = ".", *, seed: int = 0, force: bool = False,
             random: int | None = None, explicit: Mapping[str, Any] | None = None,
             special_rate: float = values.DEFAULT_SPECIAL_RATE, special: str | None = None,
             allow_undefined: bool = False, bundle: bool = False,
             on_case: Callable[[GeneratedCase, int, int], None] | None = None, keep: bool = True) -> GenerateResult:
    """Write case folders (inputs, golden, ``ptofuzz.json``) for ``op`` on ``platform`` into ``out_dir``.

    Nothing is left written when any folder would clash with an existing one (unless ``force``) or when a
    requested case is unsupported on the platform. ``special`` picks special-value kinds or a profile
    (see :class:`ptofuzz.generators.values.ValueMix`), ``special_rate`` their share; ``allow_undefined``
    keeps inputs that leave golden elements undefined on the platform (see :func:`realize`). ``bundle`` (spec
    TSORT, TMRGSORT and TPART* only) adds the case as a PTO bundle: ``bundle.bin`` (little-endian u32 words),
    ``bundle.s`` (its assembly, with the tiles it reads) and the executor's expected outcome in the manifest.

    Folders are drawn, written and moved into place a batch at a time (a batch holds at most
    :data:`REALIZE_BYTES` of tiles), so memory stays flat however many are asked for and the first appear at
    once; ``on_case(info, done, total)`` is called as each lands. A failure (an unsupported case, a full disk,
    an interrupt) removes the folders this call wrote and puts back those ``force`` replaced. ``keep=False``
    leaves :attr:`GenerateResult.cases` empty (a million of them are a lot of memory).
    """
    mix = values.ValueMix.parse(special, special_rate)
    inst = registry.get(op)
    platform = platforms.canonical(platform)
    if bundle and (platforms.get(platform).kind != platforms.SPEC or inst.bundle is None):
        with_bundles = ", ".join(n.lower() for n, i in registry.all_instructions().items() if i.bundle)
        raise UsageError(f"--bundle writes pto-spec bundles of {with_bundles}: use --platform spec with one of "
                         f"those (not {inst.name} on {platform})")
    out = Path(out_dir)

    def planned() -> Iterator[tuple[str, Case, str]]:
        return plan_cases(op, platform, seed=seed, random=random, explicit=explicit)

    total = random if random is not None else None
    if random is None:  # a canonical list or one explicit case: small, checked whole (names may repeat)
        listed = list(planned())
        total = len(listed)
        casefolder.check_writable(out, [n for n, _, _ in listed], force)
    else:  # random names are numbered, so unique: only a clash with what --out holds is possible
        first = next(iter(planned()))  # the request's own errors, before anything is written
        casefolder.check_writable(out, [first[0]], force)
        if not force and casefolder.holds_suite(out, first[0].partition(".")[0]):
            casefolder.check_writable(out, [n for n, _, _ in planned()], force)
    casefolder.prepare_out(out)
    kept: list[GeneratedCase] = []
    done = 0
    try:
        for (name, case, replay), (inputs, outcome) in _realized(inst, planned(), seed, mix, not allow_undefined):
            if outcome.kind is OutcomeKind.UNSUPPORTED:
                raise UsageError(f"{name}: {outcome.reason}; pick a geometry and dtype {platform} implements")
            content = casefolder.build(inst, case, inputs, outcome, name=name, seed=seed, mix=mix,
                                       replay=replay)
            if bundle:
                _add_bundle(content, case, inputs)
            not_exact = sum(m["count"] for masks in content.manifest["expected"].get("classes", {}).values()
                            for m in masks.values())
            info = GeneratedCase(name, out, case, outcome.kind,
                                 {f: len(b) for f, b in content.files.items()}, not_exact)
            staged = casefolder.stage(out, content)
            try:
                casefolder.commit(out, name, staged, force, keep_old=True)
            except BaseException:
                casefolder.discard([staged])
                raise
            done += 1
            if keep:
                kept.append(info)
            if on_case is not None:
                on_case(info, done, total or done)
    except BaseException:
        casefolder.roll_back(out, (n for n, _, _ in itertools.islice(planned(), done)))
        raise
    casefolder.drop_replaced(out)
    return GenerateResult(inst.name, platform, out, seed, tuple(kept), done)


REALIZE_BATCH = 256  # cases realized together: enough to share the oracles' fixed costs
REALIZE_BYTES = 4 << 20  # and at most this many bytes of tiles (one case at least), so memory stays bounded


def _realized(inst: registry.Instruction, planned: Iterable[tuple[str, Case, str]], seed: int,
              mix: values.ValueMix, defined: bool
              ) -> Iterator[tuple[tuple[str, Case, str], tuple[dict[str, np.ndarray], Outcome]]]:
    """Each planned case with its inputs and outcome, realized a batch (:func:`_chunks`) at a time."""
    for chunk in _chunks(inst, iter(planned)):
        yield from zip(chunk, realize_many(inst, [(n, c) for n, c, _ in chunk], seed, mix, defined=defined))


def _chunks(inst: registry.Instruction, planned: Iterator[tuple[str, Case, str]]
            ) -> Iterator[list[tuple[str, Case, str]]]:
    """The planned cases in batches of :data:`REALIZE_BATCH`, cut sooner at :data:`REALIZE_BYTES` of tiles."""
    chunk: list[tuple[str, Case, str]] = []
    size = 0
    for item in planned:
        case = item[1]
        nbytes = sum(t.rows * t.cols * inst.dtype_of(case, role).itemsize for role, t in case.tiles)
        if chunk and (len(chunk) == REALIZE_BATCH or size + nbytes > REALIZE_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(item)
        size += nbytes
    if chunk:
        yield chunk


def _add_bundle(content: casefolder.FolderContent, case: Case, inputs: Mapping[str, np.ndarray]) -> None:
    import struct

    from ptofuzz.bundle import asm, encoding
    from ptofuzz.bundle import executor as ex
    from ptofuzz.generators import bundle as gb

    why = gb.spelling_problem(case)  # a rule, so that a bug while building raises instead of "no bundle"
    if why is not None:
        content.manifest["bundle"] = {"none": f"no bundle spelling: {why}"}
        return
    b = gb.bundle_for(case, inputs)
    result = ex.execute(b.words, b.tiles, b.gprs)
    files = {role: fname for fname, role in registry.get(case.op).support("spec").profile.inputs}
    roles = {gb.SRC0: "src"} if case.op == "TSORT" else {gb.SRC0: "src0", gb.SRC1: "src1"}
    header = [f"# {case.op} {case.dtype}: source tiles preloaded: " + ", ".join(
        f"{encoding.tile_name(k)} = {files[roles[k]]} ({t.rows}x{t.cols}, valid {t.valid_rows}x{t.valid_cols})"
        for k, t in sorted(b.tiles.items()))
        + (f"; registers {', '.join(f'{r} = {v}' for r, v in b.gprs.items())}" if b.gprs else "")]
    content.files["bundle.bin"] = struct.pack(f"<{len(b.words)}I", *b.words)
    content.files["bundle.s"] = ("\n".join(header + asm.disassemble(b.words)) + "\n").encode()
    content.manifest["bundle"] = {"words": [f"{w:#010x}" for w in b.words], "gprs": b.gprs,
                                  "tiles": {encoding.tile_name(k): {"shape": [t.rows, t.cols],
                                                                    "valid": [t.valid_rows, t.valid_cols]}
                                            for k, t in sorted(b.tiles.items())},
                                  "expected": ex.describe(result)}


# ---- check ------------------------------------------------------------------------------------------------

def check(paths: Sequence[str | Path], platform: str | None = None, oracle: str | None = None
          ) -> list[CaseVerdict]:
    """Recompute each case folder's golden from its inputs and compare golden.bin (and output.bin if there).

    ``oracle="cpusim"`` recomputes cpu case folders with the real pto-isa CPU simulator instead of the model.
    Errors that concern one folder (wrong file size, unparseable name) give that folder the verdict
    ``error``; errors in the request itself (missing path) raise UsageError.
    """
    from ptofuzz.engine.compare import Verdict
    from ptofuzz.engine.verdicts import CaseVerdict

    if platform is not None:
        platform = platforms.canonical(platform)
    if oracle not in (None, registry.CPUSIM):
        raise UsageError(f"--oracle {oracle!r}: check recomputes with the folder's platform model, or with "
                         f"--oracle {registry.CPUSIM} (the real simulator, for cpu folders)")
    verdicts = []
    for path in casefolder.discover([Path(p) for p in paths]):
        try:
            verdicts.append(_check_one(path, platform, oracle))
        except CaseFolderError as e:
            verdicts.append(CaseVerdict(path, path.name, "?", platform or "?", "?", "?", Verdict.ERROR, message=str(e),
                                        oracle=oracle or ""))
    return verdicts


def check_case(path: Path, platform: str | None = None) -> CaseVerdict:
    """One case folder's verdict (CaseFolderError when it cannot be read)."""
    return _check_one(path, platform, None)


def _loosened(real: Outcome, model: Outcome) -> Outcome:
    """The real simulator's bits, free wherever the model (which wrote the golden) leaves an element free ("some
    NaN", "some zero", undefined): a golden only promises its defined elements."""
    if real.kind is not OutcomeKind.OK or model.kind is not OutcomeKind.OK:
        return real
    classes = {role: np.where(model.classes[role] != EXACT, model.classes[role], real.classes[role])
               for role in real.classes}
    return dataclasses.replace(real, classes=classes)


def _check_one(path: Path, platform: str | None, oracle: str | None) -> CaseVerdict:
    from ptofuzz.engine.compare import Verdict, compare, pto_isa_eps
    from ptofuzz.engine.verdicts import CaseVerdict, FileVerdict

    lc = casefolder.load(path, platform)
    case, prof = lc.case, lc.profile
    dt = dtypes.get(case.dtype)
    if oracle is not None:
        if platforms.get(case.platform).kind != platforms.CPU or lc.inst.cpusim is None:
            raise CaseFolderError(f"--oracle {oracle} recomputes cpu case folders of "
                                  f"{', '.join(n for n, i in registry.all_instructions().items() if i.cpusim)}; "
                                  f"this folder is {case.op} on {case.platform}")
        inputs = casefolder.read_inputs(lc)
        outcome = lc.inst.evaluate(case.on(oracle), inputs)
        if outcome.kind is OutcomeKind.UNSUPPORTED:
            raise CaseFolderError(f"{oracle} cannot run this case: {outcome.reason}")
        outcome = _loosened(outcome, lc.inst.evaluate(case, inputs))
    else:
        outcome = lc.inst.evaluate(case, casefolder.read_inputs(lc))
    base: dict[str, Any] = dict(path=path, name=path.name, op=case.op, platform=case.platform, dtype=dt.name,
                                outcome=outcome.kind, oracle=oracle or "")
    messages = []
    for entry in (lc.manifest or {}).get("files", []):
        fpath = path / entry.get("name", "")
        if casefolder.present(fpath) and hashlib.sha256(fpath.read_bytes()).hexdigest() != entry.get("sha256"):
            messages.append(f"{entry['name']} is not the file ptofuzz wrote (sha256 differs from ptofuzz.json)")
    expected = (lc.manifest or {}).get("expected", {})
    if expected and expected.get("outcome") != outcome.kind:
        messages.append(f"manifest expects outcome {expected.get('outcome')!r}, recomputed {outcome.kind!r}"
                        + (f" ({outcome.reason})" if outcome.reason else ""))
    if expected.get("executed") is not None and outcome.extra.get("executed") != expected["executed"]:
        messages.append(f"manifest executed counts {expected['executed']} differ from recomputed "
                        f"{outcome.extra.get('executed')}")
    if outcome.kind is OutcomeKind.OK and expected.get("flags") is not None and outcome.flags is not None \
            and list(outcome.flags) != list(expected["flags"]):
        messages.append(f"manifest flags {expected['flags']} differ from recomputed {list(outcome.flags)}")
    files = []
    for fname, role in (*prof.golden, *prof.outputs):
        fpath = path / fname
        is_golden = (fname, role) in prof.golden
        if outcome.kind is not OutcomeKind.OK:
            if casefolder.present(fpath):
                files.append(FileVerdict(fname, None, f"present, but the case's outcome is {outcome.kind}: "
                                                      f"{outcome.reason}"))
            continue
        tile = case.tile(role)
        shape = prof.file_shape(tile)
        if not casefolder.present(fpath):
            if is_golden and shape[0] * shape[1] > 0:
                files.append(FileVerdict(fname, None, "missing"))
            continue
        fdt = lc.inst.dtype_of(case, role)
        actual = casefolder.read_tile_file(fpath, fdt, shape)
        r, c = shape
        regions = None
        if lc.inst.regions is not None and role in lc.inst.outputs:
            names, codes = lc.inst.regions(case, role)
            regions = (names, codes[:r, :c])
        eps = pto_isa_eps(case.op, case.platform)
        cmp = compare(outcome.outputs[role][:r, :c], outcome.classes[role][:r, :c], actual, fdt,
                      valid=(min(tile.valid_rows, r), min(tile.valid_cols, c)), regions=regions, eps=eps,
                      half_as_bits=platforms.get(case.platform).half_as_bits)
        files.append(FileVerdict(fname, cmp, dtype=fdt.name, shape=(r, c),
                                 valid=(min(tile.valid_rows, r), min(tile.valid_cols, c))))
        listed = expected.get("classes")
        if is_golden and isinstance(listed, dict) and \
                listed.get(fname, {}) != casefolder.class_masks(outcome.classes[role][:r, :c]):
            messages.append(f"ptofuzz.json lists other non-exact elements of {fname} than recomputed; regenerate "
                            "the folder (ptofuzz gen ... --force)")
    verdict = Verdict.PASS if not messages and all(f.ok for f in files) else Verdict.FAIL
    return CaseVerdict(**base, verdict=verdict, files=tuple(files), message="; ".join(messages))


# ---- diff ---------------------------------------------------------------------------------------------------

def diff_files(golden: str | Path, output: str | Path, dtype: str, shape: tuple[int, int], *,
               valid: tuple[int, int] | None = None, mode: Mode | None = None, eps: float | None = None,
               half_as_bits: bool = False) -> DiffResult:
    """Compare two raw little-endian files of ``shape`` elements of ``dtype``."""
    import shlex

    from ptofuzz.engine.compare import Mode, compare
    from ptofuzz.engine.verdicts import DiffResult

    mode = mode or Mode()
    for f in (golden, output):
        if not Path(f).is_file():
            raise UsageError(f"{str(f)!r} is no file")
    dt = dtypes.get(dtype)
    r, c = shape
    if r < 0 or c < 0 or r * c > MAX_TILE_ELEMENTS:
        raise UsageError(f"--shape {r}x{c} is no tile ptofuzz handles (up to {MAX_TILE_ELEMENTS:,} elements)")
    v = valid or shape
    if v[0] > r or v[1] > c:
        raise UsageError(f"--valid {v[0]}x{v[1]} is larger than --shape {r}x{c}")
    try:
        exp = casefolder.read_tile_file(Path(golden), dt, shape)
        act = casefolder.read_tile_file(Path(output), dt, shape)
    except CaseFolderError as e:
        raise UsageError(str(e)) from None
    cmp = compare(exp, None, act, dt, mode=mode, valid=v, eps=eps, half_as_bits=half_as_bits)
    flags = _mode_flags(mode, eps, half_as_bits) + (f" --valid {v[0]}x{v[1]}" if valid else "")
    return DiffResult(f"{golden} vs {output}", dt.name, shape, v, cmp,
                      f"ptofuzz diff {shlex.quote(str(golden))} {shlex.quote(str(output))} --dtype {dt.name} "
                      f"--shape {r}x{c}{flags}")


def _mode_flags(mode: Mode, eps: float | None = None, half_as_bits: bool = False) -> str:
    out = "" if mode.kind == "bits" else f" --mode {mode.kind}"
    out += f" --eps {eps:g}" if eps is not None else ""
    out += " --half-as-bits" if half_as_bits else ""
    out += f" --ulp {mode.ulp}" if mode.kind == "ulp" else ""
    out += f" --rtol {mode.rtol:g}" if mode.rtol is not None else ""
    out += f" --atol {mode.atol:g}" if mode.atol is not None else ""
    out += " --nan any" if mode.nan == "any" else ""
    out += " --zeros unsigned" if mode.zeros == "unsigned" else ""
    return out


def diff_record(path: str | Path, oracles: Sequence[str] | None = None, *, mode: Mode | None = None,
                eps: float | None = None, half_as_bits: bool = False) -> list[DiffResult]:
    """Compare two oracles' outputs of a saved case record (a fuzz finding): by default the pair of its
    signature, the first oracle's output taken as the expected side."""
    import shlex

    from ptofuzz.engine import differential
    from ptofuzz.engine.compare import Mode, compare
    from ptofuzz.engine.verdicts import DiffResult
    from ptofuzz.io import records

    mode = mode or Mode()

    found = records.discover([Path(path)])
    if len(found) != 1:
        raise UsageError(f"{str(path)!r} holds {len(found)} records; name one finding folder or record file")
    rec = records.read(found[0])
    inst = registry.get(rec.case.op)
    if oracles:
        pair = list(oracles)
    else:
        key = (rec.extra.get("finding") or {}).get("signature") or (rec.signatures[0] if rec.signatures else "")
        try:
            pair = list(differential.Signature.from_key(str(key)).oracles()) if key else list(rec.oracles[:2])
        except ValueError as e:
            raise UsageError(f"{str(path)!r}: {e}; pass --oracles A,B") from None
    if len(pair) != 2 or any(o not in inst.platforms for o in pair):
        raise UsageError(f"--oracles {','.join(pair)}: name two of {', '.join(rec.oracles)}")
    outcomes = differential.run_oracles(inst, rec.case, rec.inputs, pair)
    a, b = (outcomes[o] for o in pair)
    for o, out in zip(pair, (a, b)):
        if out.kind is not OutcomeKind.OK:
            raise UsageError(f"{o} gives no values for this case ({out.kind}: {out.reason}); its disagreement is "
                             "the outcome itself")
    results = []
    for role in inst.outputs:
        tile = rec.case.tile(role)
        regions = inst.regions(rec.case, role) if inst.regions is not None else None
        dt = inst.dtype_of(rec.case, role)
        # elements either oracle leaves undefined are not compared
        classes = np.where(b.classes[role] == UNDEFINED, np.uint8(UNDEFINED), a.classes[role]).astype(np.uint8)
        cmp = compare(a.outputs[role], classes, b.outputs[role], dt, mode=mode, valid=tile.valid, regions=regions,
                      eps=eps, half_as_bits=half_as_bits)
        beside = tuple(_element_row(inst, rec.case, rec.inputs, {o: outcomes[o] for o in pair}, e.row, e.col)
                       for e in cmp.first) if role in inst.index_roles else ()
        results.append(DiffResult(f"{pair[0]} (expected) vs {pair[1]}: {role}", dt.name, tile.shape, tile.valid, cmp,
                                  f"ptofuzz diff {shlex.quote(str(path))} --oracles {pair[0]},{pair[1]}"
                                  f"{_mode_flags(mode, eps, half_as_bits)}", beside))
    return results


def _element_row(inst: registry.Instruction, case: Case, inputs: Mapping[str, np.ndarray],
                 outcomes: Mapping[str, Outcome], r: int, c: int) -> dict[str, str]:
    """One element, value and index side by side (an index role is named ``<value role>_idx``): each source's
    (``-`` outside its valid region), then each oracle's result. Which source a differing index came from,
    next to the values that decided it."""
    def shown(bits: np.ndarray, role: str, inside: bool = True) -> str:
        return dtypes.format_bits(int(bits[r, c]), inst.dtype_of(case, role)) if inside else "-"

    row = {"element": f"row {r}, col {c}"}
    for role in inst.inputs:
        if f"{role}_idx" in inst.inputs:
            t = case.tile(role)
            inside = r < min(t.valid_rows, t.rows) and c < min(t.valid_cols, t.cols)
            row[role] = f"{shown(inputs[role], role, inside)} / {shown(inputs[role + '_idx'], role + '_idx', inside)}"
    for role in inst.outputs:
        if f"{role}_idx" in inst.outputs:
            for o, out in outcomes.items():
                row[f"{o} {role}"] = (f"{shown(out.outputs[role], role)} / "
                                      f"{shown(out.outputs[role + '_idx'], role + '_idx')}")
    return row


# ---- capabilities ---------------------------------------------------------------------------------------------

def capabilities() -> list[dict[str, Any]]:
    """The instruction x platform x dtype matrix, one record per (instruction, platform)."""
    rows = []
    sim = _cached_sim() if any(i.cpusim for i in registry.all_instructions().values()) else None
    for inst in registry.all_instructions().values():
        for plat in registry.PLATFORMS:
            sup = inst.platforms.get(plat)
            if sup is None:
                if plat in inst.unmodelled:
                    rows.append({"op": inst.name, "platform": plat, "dtypes": [], "system_test": False, "suite": "",
                                 "layout": "", "canonical_cases": 0, "notes": inst.unmodelled[plat], "source": "",
                                 "unmodelled": True})
                continue
            rows.append({"op": inst.name, "platform": plat, "dtypes": list(sup.dtypes),
                         "system_test": sup.has_system_test, "suite": sup.profile.suite,
                         "layout": sup.profile.layout, "canonical_cases": len(sup.profile.canonical),
                         "notes": sup.notes, "source": sup.profile.note})
        if inst.cpusim is not None:
            rows.append(_cpusim_row(inst, sim))
    return rows


def _cached_sim() -> Any:
    """The cached cpusim build (never built here), None when there is none, or the UsageError saying why not."""
    from ptofuzz.backends.cpusim import build, session

    try:
        return build.lookup(session.settings())
    except UsageError as e:
        return e


def _cpusim_row(inst: registry.Instruction, found: Any) -> dict[str, Any]:
    """The real simulator's row: what a cached build holds (``ptofuzz sim build`` builds)."""
    from ptofuzz.backends.cpusim import build

    row: dict[str, Any] = {"op": inst.name, "platform": registry.CPUSIM, "dtypes": [], "system_test": False,
                           "suite": "", "layout": "", "canonical_cases": 0, "source": "ptofuzz/cpusim/harness.cpp"}
    if isinstance(found, UsageError):
        row["notes"] = f"not available: {found}"
        row["short"] = "needs PTO_ISA_DIR" if "needs a pto-isa tree" in str(found) else \
            "unavailable: ptofuzz sim build says why"
        return row
    if found is None:
        row["notes"] = row["short"] = "not built: ptofuzz sim build"
        return row
    cpu = inst.platforms["cpu"].dtypes
    m = found.manifest
    row["dtypes"] = [d for d in m["kernels"].get(inst.name, []) if d in cpu
                     and (d != "bfloat16" or m["bfloat16_native"])]
    unsupported = {d: why for d, why in m["rejected"].get(inst.name, {}).items()}
    if not m["bfloat16_native"]:
        unsupported["bfloat16"] = build.BF16_PLACEHOLDER
    row["unsupported"] = unsupported
    row["notes"] = f"pto-isa {m['commit']}, {m['compiler']}"
    row["short"] = f"pto-isa {m['commit'][:12]}, {m['compiler'].split(' (')[0].rsplit('/', 1)[-1]}"
    return row
