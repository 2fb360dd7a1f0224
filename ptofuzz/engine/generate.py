"""``ptofuzz gen``: plan the cases of a call, realize their inputs and goldens, write their case folders."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ptofuzz.core import case as case_mod
from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.errors import UsageError
from ptofuzz.core.records import record
from ptofuzz.generators import values
from ptofuzz.generators.source import DRAW_VERSION, check_version, seeded
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder

if TYPE_CHECKING:  # the comparison engine and the verdicts are imported by check and diff, not by gen
    pass


class GeneratedCase(NamedTuple):
    """One case folder ``gen`` wrote: its name and place, its case, outcome and file sizes (a NamedTuple: see
    :class:`ptofuzz.core.case.Tile`)."""

    name: str
    out_dir: Path
    case: Case
    outcome: str  # ok / fault
    files: dict[str, int]  # file name -> bytes
    not_exact: int  # golden elements that are not EXACT (nan/zero/undefined)

    @property
    def path(self) -> Path:
        return self.out_dir / self.name


@record(frozen=True)
class GenerateResult:
    """What one ``gen`` call wrote."""

    op: str
    platform: str
    out_dir: Path
    seed: int
    cases: tuple[GeneratedCase, ...]  # every folder written (none when generate was called with keep=False)
    count: int  # folders written
    draw_version: int = DRAW_VERSION  # what the seed drew (ptofuzz.generators.source)


def _replay_command(op: str, platform: str, seed: int, mode: str, draw_version: int = DRAW_VERSION) -> str:
    return f"ptofuzz gen {op.lower()} --platform {platform} --seed {seed}{mode}{draw_flag(draw_version)}"


def draw_flag(draw_version: int) -> str:
    """The flag that asks for ``draw_version`` again (none for the default)."""
    return "" if draw_version == DRAW_VERSION else f" --draw-version {draw_version}"


def draw_version_of(value: int) -> int:
    """A user's ``--draw-version`` checked (UsageError, saying which there are)."""
    try:
        return check_version(value)
    except ValueError:
        raise UsageError(f"--draw-version {value}: this ptofuzz draws version 1 (numpy's PCG64, what seeds drew "
                         "before draw versions were recorded) and 2 (its own stream, the default)") from None


def _explicit_flags(inst: registry.Instruction, case: Case) -> str:
    """The explicit-case flags that describe ``case`` again (the instruction's own, else its source shape)."""
    if inst.replay_flags is not None:
        return f" --dtype {case.dtype}" + inst.replay_flags(case)
    src = case.tile(inst.inputs[0])
    return f" --dtype {case.dtype} --shape {src.valid_rows}x{src.valid_cols}"


def _filter_flags(explicit: Mapping[str, Any]) -> str:
    """The flags of the options that constrain ``--random`` cases (``--dtype half --shape 16x32``), in the
    instruction's option order as given."""
    out = ""
    for k, v in explicit.items():
        if isinstance(v, bool):
            out += f" {'--descending' if v else '--ascending'}" if k == "descending" else f" {_flag(k)}" * v
        elif isinstance(v, tuple):
            out += f" {_flag(k)} {'x'.join(str(x) for x in v)}"
        else:
            out += f" {_flag(k)} {v}"
    return out


def value_flags(special: str | None, special_rate: float, allow_undefined: bool, bundle: bool) -> str:
    """The flags of a ``gen`` call that change its bytes but not its cases (values, undefined elements,
    bundles), as they go into each folder's regenerate command."""
    out = ""
    if special is not None:
        import shlex  # only for --special (a canonical gen's start-up does without it)

        out = f" --special {shlex.quote(special)}"
    if special_rate != values.DEFAULT_SPECIAL_RATE:
        out += f" --special-rate {special_rate!r}"
    return out + (" --allow-undefined" if allow_undefined else "") + (" --bundle" if bundle else "")


def _flag(option: str) -> str:
    """The CLI flag of an explicit-case option."""
    return "--" + {"contract": "bf16-contract"}.get(option, option.replace("_", "-"))


def plan(op: str, platform: str, *, seed: int = 0, random: int | None = None,
         explicit: Mapping[str, Any] | None = None, draw_version: int = DRAW_VERSION) -> list[tuple[str, Case, str]]:
    """The cases a ``gen`` call writes: (folder name, case, replay command), without data (see
    :func:`plan_cases`, which yields them one at a time)."""
    return list(plan_cases(op, platform, seed=seed, random=random, explicit=explicit, draw_version=draw_version))


def plan_cases(op: str, platform: str, *, seed: int = 0, random: int | None = None,
               explicit: Mapping[str, Any] | None = None, draw_version: int = DRAW_VERSION
               ) -> Iterator[tuple[str, Case, str]]:
    """The cases a ``gen`` call writes, one at a time: (folder name, case, replay command), without data.

    Default: the canonical case list of ``platform``'s pto-isa system test (spec: the union of the
    platforms' geometries). ``random=N``: N random cases legal on the platform (``explicit`` may fix
    ``dtype``/``shape``). ``explicit``: the one case the options describe. ``draw_version``: what the seed
    draws (:mod:`ptofuzz.generators.source`).
    """
    draw_version = draw_version_of(draw_version)
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
        src = seeded(seed, inst.name, platform, "random-geometry", version=draw_version)
        replay = _replay_command(inst.name, platform, seed, f" --random {random}" + _filter_flags(explicit),
                                 draw_version)
        for k in range(random):
            case = _check_size(inst.random_case(src, platform, explicit))
            yield prof.name(case, k), case, replay
        return
    if explicit:
        if "dtype" in explicit:
            _check_dtype(inst, platform, explicit["dtype"])
        case = _check_size(inst.explicit_case(platform, explicit))
        yield prof.name(case), case, _replay_command(inst.name, platform, seed, _explicit_flags(inst, case),
                                                     draw_version)
        return
    if not prof.canonical:
        raise UsageError(f"pto-isa has no file-based {inst.name} system test on {platform}; use --random N or "
                         "explicit flags (" + ", ".join(_flag(o) for o in inst.options) + ")")
    for alias, case in prof.canonical:
        yield prof.folder(alias), case, _replay_command(inst.name, platform, seed, "", draw_version)


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
            *, defined: bool = True, draw_version: int = DRAW_VERSION) -> tuple[dict[str, np.ndarray], Outcome]:
    """Draw a case's inputs (seeded by ``seed`` and the folder name) and run its platform oracle.

    With ``defined`` (the default), inputs whose values leave result elements undefined on the platform
    (integer overflow or subnormals on an NPU, a NaN in an NPU sort block, ...) are replaced by plain values,
    so that a golden holds no placeholder where the geometry allows; undefined elements that the geometry
    causes stay, and are listed in the manifest either way.
    """
    return realize_many(inst, [(name, case)], seed, mix, defined=defined, draw_version=draw_version)[0]


def realize_many(inst: registry.Instruction, named: Sequence[tuple[str, Case]], seed: int,
                 mix: values.ValueMix | float, *, defined: bool = True, draw_version: int = DRAW_VERSION
                 ) -> list[tuple[dict[str, np.ndarray], Outcome]]:
    """:func:`realize` for many cases at once: the same inputs and outcomes, case by case (each case draws
    from its own stream), with the oracles' work shared across the batch where the instruction can (see
    ``Instruction.shared``)."""
    if not isinstance(mix, values.ValueMix):
        mix = values.ValueMix(float(mix))
    sources = [seeded(seed, name, version=draw_version) for name, _ in named]
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
             on_case: Callable[[GeneratedCase, int, int], None] | None = None, keep: bool = True,
             draw_version: int = DRAW_VERSION) -> GenerateResult:
    """Write case folders (inputs, golden, ``ptofuzz.json``) for ``op`` on ``platform`` into ``out_dir``.

    Nothing is left written when any folder would clash with an existing one (unless ``force``) or when a
    requested case is unsupported on the platform. ``special`` picks special-value kinds or a profile
    (see :class:`ptofuzz.generators.values.ValueMix`), ``special_rate`` their share; ``allow_undefined``
    keeps inputs that leave golden elements undefined on the platform (see :func:`realize`). ``bundle`` (spec
    TSORT, TMRGSORT, TPART* and the elementwise operations only) adds the case as a PTO bundle: ``bundle.bin``
    (little-endian u32 words), ``bundle.s`` (its assembly, with the tiles and the register it reads) and the
    executor's expected outcome in the manifest.

    Folders are drawn, written and moved into place a batch at a time (a batch holds at most
    :data:`REALIZE_BYTES` of tiles), so memory stays flat however many are asked for and the first appear at
    once; ``on_case(info, done, total)`` is called as each lands. A failure (an unsupported case, a full disk,
    an interrupt) removes the folders this call wrote and puts back those ``force`` replaced. ``keep=False``
    leaves :attr:`GenerateResult.cases` empty (a million of them are a lot of memory). ``draw_version``: what
    the seed draws (:mod:`ptofuzz.generators.source`; 1 reproduces folders written before version 2), recorded
    in every manifest.
    """
    draw_version = draw_version_of(draw_version)
    mix = values.ValueMix.parse(special, special_rate)
    inst = registry.get(op)
    platform = platforms.canonical(platform)
    if bundle and (platforms.get(platform).kind != platforms.SPEC or not inst.bundle):
        with_bundles = ", ".join(n.lower() for n, i in registry.all_instructions().items() if i.bundle)
        raise UsageError(f"--bundle writes pto-spec bundles of {with_bundles}: use --platform spec with one of "
                         f"those (not {inst.name} on {platform})")
    out = Path(out_dir)

    def planned() -> Iterator[tuple[str, Case, str]]:
        return plan_cases(op, platform, seed=seed, random=random, explicit=explicit, draw_version=draw_version)

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
    regenerate = value_flags(special, special_rate, allow_undefined, bundle)
    created = casefolder.prepare_out(out)
    run = casefolder.Run(out)
    kept: list[GeneratedCase] = []
    done = 0
    try:
        for (name, case, replay), (inputs, outcome) in _realized(inst, planned(), seed, mix, not allow_undefined,
                                                                 draw_version):
            if outcome.kind is OutcomeKind.UNSUPPORTED:
                raise UsageError(f"{name}: {outcome.reason}; pick a geometry and dtype {platform} implements")
            content = casefolder.build(inst, case, inputs, outcome, name=name, seed=seed, mix=mix,
                                       replay=replay + regenerate, draw_version=draw_version)
            if bundle:
                _add_bundle(content, case, inputs)
            not_exact = sum(m["count"] for masks in content.manifest["expected"].get("classes", {}).values()
                            for m in masks.values())
            info = GeneratedCase(name, out, case, outcome.kind,
                                 {f: len(b) for f, b in content.files.items()}, not_exact)
            staged = casefolder.stage(out, content, run)
            try:
                casefolder.commit(out, name, staged, force, run)
            except BaseException:
                casefolder.discard([staged])
                raise
            done += 1
            if keep:
                kept.append(info)
            if on_case is not None:
                on_case(info, done, total or done)
    except BaseException:
        casefolder.roll_back(out, run)
        casefolder.unprepare_out(created)
        raise
    casefolder.drop_replaced(out, run)
    return GenerateResult(inst.name, platform, out, seed, tuple(kept), done, draw_version)


REALIZE_BATCH = 256  # cases realized together: enough to share the oracles' fixed costs
REALIZE_BYTES = 4 << 20  # and at most this many bytes of tiles (one case at least), so memory stays bounded


def _realized(inst: registry.Instruction, planned: Iterable[tuple[str, Case, str]], seed: int,
              mix: values.ValueMix, defined: bool, draw_version: int = DRAW_VERSION
              ) -> Iterator[tuple[tuple[str, Case, str], tuple[dict[str, np.ndarray], Outcome]]]:
    """Each planned case with its inputs and outcome, realized a batch (:func:`_chunks`) at a time."""
    for chunk in _chunks(inst, iter(planned)):
        yield from zip(chunk, realize_many(inst, [(n, c) for n, c, _ in chunk], seed, mix, defined=defined,
                                           draw_version=draw_version))


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
    roles = {gb.SRC0: "src"} if case.op in ("TSORT", "TCVT") else \
        dict(zip((gb.SRC0, gb.SRC1, gb.SRC2), ex.CLOSED[case.op].sources)) if case.op in ex.CLOSED else \
        {gb.SRC0: "src0", gb.SRC1: "src1"}
    scalar = ex.CLOSED[case.op].scalar if case.op in ex.CLOSED else None
    header = [f"# {case.op} {case.dtype}: source tiles preloaded: " + ", ".join(
        f"{encoding.tile_name(k)} = {files[roles[k]]} ({t.rows}x{t.cols}, valid {t.valid_rows}x{t.valid_cols})"
        for k, t in sorted(b.tiles.items()))
        + (f"; registers {', '.join(f'{r} = {v}' for r, v in b.gprs.items())}" if b.gprs and not scalar else "")
        + (f"; register a0 = {b.gprs['a0']:#x} ({files[scalar]}, the scalar in its low bits)" if scalar else "")]
    content.files["bundle.bin"] = struct.pack(f"<{len(b.words)}I", *b.words)
    content.files["bundle.s"] = ("\n".join(header + asm.disassemble(b.words)) + "\n").encode()
    content.manifest["bundle"] = {"words": [f"{w:#010x}" for w in b.words], "gprs": b.gprs,
                                  "tiles": {encoding.tile_name(k): {"shape": [t.rows, t.cols],
                                                                    "valid": [t.valid_rows, t.valid_cols]}
                                            for k, t in sorted(b.tiles.items())},
                                  "expected": ex.describe(result)}
