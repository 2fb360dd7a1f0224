"""The one registry of instructions.

Each instruction module under ``ptofuzz/instructions/`` exposes ``instructions(names) -> list[Instruction]``;
:data:`MODULES` lists them explicitly with the mnemonics each builds (nothing registers itself on import), so that
looking one instruction up imports and builds only its own module's part. An :class:`Instruction` brings its
semantics (an oracle per platform), platform capabilities, generators and file layouts.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import COMMIT, Case, Outcome, item_case
from ptofuzz.core.errors import UsageError
from ptofuzz.core.records import field, record

if TYPE_CHECKING:
    import numpy as np

    from ptofuzz.core.layouts import Profile
    from ptofuzz.core.signature import Signature
    from ptofuzz.generators.source import Source
    from ptofuzz.generators.values import ValueMix

    Inputs = dict[str, np.ndarray]
    #: one case's new inputs and (when patched cheaply) their outcome, or None when nothing could be improved
    Redrawn = tuple[Inputs, Outcome | None] | None

PLATFORMS = platforms.names()  # the platform table (ptofuzz/platforms.py) decides
#: instruction module -> the mnemonics its ``instructions()`` builds, in its order (a test holds the two equal)
MODULES: dict[str, tuple[str, ...]] = {
    "ptofuzz.instructions.tpart": ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN", "TPARTARGMAX", "TPARTARGMIN"),
    "ptofuzz.instructions.tsort": ("TSORT",),
    "ptofuzz.instructions.tsort32": ("TSORT32",),
    "ptofuzz.instructions.tmrgsort": ("TMRGSORT",),
    "ptofuzz.instructions.elementwise": ("TADD", "TSUB", "TMUL", "TMAX", "TMIN"),
    "ptofuzz.instructions.tilescalar": ("TADDS", "TSUBS", "TMULS", "TMAXS", "TMINS", "TLRELU"),
    "ptofuzz.instructions.unary": ("TABS", "TNEG", "TRELU", "TNOT"),
    "ptofuzz.instructions.bitwise": ("TAND", "TOR", "TXOR", "TSHL", "TSHR", "TANDS", "TORS", "TXORS", "TSHLS",
                                     "TSHRS"),
    "ptofuzz.instructions.generation": ("TEXPANDS", "TCI", "TTRI"),
    "ptofuzz.instructions.cmpsel": ("TCMP", "TCMPS", "TSEL", "TSELS"),
    "ptofuzz.instructions.conversion": ("TCVT",),
    "ptofuzz.instructions.dequant": ("TDEQUANT",),
    "ptofuzz.instructions.quant": ("TQUANT",),
    "ptofuzz.instructions.expand": ("TROWEXPAND", "TCOLEXPAND"),
    "ptofuzz.instructions.reduce": ("TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN"),
    "ptofuzz.instructions.expandop": ("TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDMAX",
                                      "TROWEXPANDMIN", "TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL",
                                      "TCOLEXPANDMAX", "TCOLEXPANDMIN"),
    "ptofuzz.instructions.ordered": ("TROWSUM", "TCOLSUM"),
    "ptofuzz.instructions.product": ("TROWPROD", "TCOLPROD"),
    "ptofuzz.instructions.argreduce": ("TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN"),
    "ptofuzz.instructions.pairsum": ("TPAIRREDUCESUM",),
}


@record(frozen=True, eq=False)  # one per (instruction, platform): compared by identity
class PlatformSupport:
    """What one platform implements of an instruction.

    Attributes:
        dtypes: element types it accepts.
        oracle: ``(case, inputs) -> Outcome``, pure.
        profile: how its system test (or ptofuzz's own layout) names and lays out case folders.
        bad_dtype: outcome for another dtype: ``"fault"`` (spec: Fault_TileLegality) or ``"unsupported"``.
        has_system_test: whether pto-isa has a file-based system test (so a canonical case list).
        notes: caveats worth showing in ``ptofuzz list``.
        role_dtypes: element types of roles on this platform, where they differ from the instruction's
            (pto-spec TMRGSORT merges value tiles where pto-isa's merges 8-byte records).
    """

    dtypes: tuple[str, ...]
    oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome]
    profile: Profile
    bad_dtype: str = "unsupported"
    has_system_test: bool = True
    notes: str = ""
    role_dtypes: Mapping[str, str] | None = None


@record(frozen=True, eq=False)  # the registry holds one of each: compared by identity
class Instruction:
    """One instruction: its name, roles, per-platform support and generators.

    Attributes:
        name: ISA mnemonic, verbatim (``TPARTADD``).
        family: pto-isa docs family (``irregular-and-complex``).
        summary: one line for ``ptofuzz list``.
        inputs, outputs: tile roles read and written.
        platforms: platform name -> support.
        random_case: ``(source, platform, constraints) -> Case`` drawing a case legal on that platform.
        explicit_case: ``(platform, options) -> Case`` building the one case the CLI flags describe.
        draw_inputs: ``(source, case, value_mix) -> {role: bits}`` at each input tile's physical shape.
        draw_many: ``([(source, case), ...], value_mix) -> [{role: bits}, ...]``: ``draw_inputs`` of many cases
            at once, each from its own source, the same inputs; for instructions whose drawing does numpy work
            after the random draws that a batch can share (None: case by case).
        role_dtypes: roles whose element type is fixed rather than the case's (an index tile is uint32);
            8-byte sort records are carried as pairs of uint32 words.
        role_dtype_params: roles whose element type is a case parameter (TPARTARG*'s index tiles: ``idx``),
            with the type used when the case does not set it.
        index_roles: output roles that hold indices (TPARTARG*'s ``dst_idx``): a mismatch there is its own
            class (``index``), whatever the values. An index role is named ``<value role>_idx``.
        unmodelled: platforms deliberately without a model, with the reason (``ptofuzz list`` shows them).
        options: the explicit-case options (CLI flags) the instruction understands.
        random_options: those that may also constrain ``--random`` cases.
        option_choices: the values an option may take on some platform (TPARTARG*'s ``index_dtype``), checked
            before any case is drawn.
        replay_flags: the explicit flags (after ``--dtype``) that rebuild a case, when the generic ones do not.
        redraw: ``[(source, case, inputs, outcome), ...] -> [(inputs, outcome or None) | None, ...]``: for each
            case, new inputs with plain values where the data (not the geometry) made result elements undefined,
            and their outcome when the instruction can patch it cheaply (None: evaluate again); None when
            nothing can be improved. Many cases come at once so that their work can be shared.

    For differential fuzzing (all optional):
        draw_batch: ``(source, case, value_mix, n) -> {role: bits}`` with a leading axis of ``n`` cases; when
            set, every oracle of the instruction accepts such stacked inputs (one outcome for the batch).
        batch_params: integer case parameters that ``draw_batch`` varies per item (TCI's start, TTRI's diagonal):
            each comes as an input named after it, one value per item (:func:`ptofuzz.core.case.param_values`),
            drawn so that every item keeps the batch case's ``geometry_class`` and ``regions``;
            :meth:`item` folds one item's values back into its case (a saved finding is a plain case).
        batch_limit: ``case -> int``, how many items of ``case`` ``draw_batch`` can make different in what they
            test (TTRI: about as many diagonals as the tile has rows and columns; 1: no batch); None: no limit.
        geometry_class: ``case -> str``, a coarse name of the case's geometry for fuzz signatures.
        fault_class: ``case -> str``, the geometry field of a fault-against-value signature (which rule the
            geometry breaks), coarser than ``geometry_class`` so that one rule is one signature.
        regions: ``(case, role) -> (names, codes)``: a region code per element of an output tile, so that a
            mismatch says where it lies (overlap, copied from one source, outside the valid region, ...).
        permutes: outputs are reorderings of the inputs (sorts): same elements in another order is "ordering".
        known_difference: ``signature -> reason | None``: the documented, intended differences between two
            platforms; a campaign still saves them, once each, but they do not count as new findings.
        bundle: whether its spec cases have a PTO bundle spelling (the ``bundle`` backend runs them through the
            bundle executor; it must agree with ``spec``).
        shared: ``(batch=()) -> context manager`` under which the oracles may share intermediate results while
            one case is evaluated on several platforms, or many cases (``batch``: the (case, inputs) pairs about
            to be evaluated) are evaluated in a row; inputs unchanged inside it.
        illegal_case: ``(source, constraints) -> Case``: a spec case that breaks one of the operation's legality
            rules, so that the two pto-spec models (``spec``, ``bundle``) are compared on the faults they raise
            too; a campaign draws one in :data:`ptofuzz.engine.campaign.ILLEGAL_SHARE` of its spec cases.
        shrink: ``(case, inputs) -> iterable of (smaller case, its inputs)`` for ``ptofuzz minimize`` (None: the
            generic deletion of rows and columns, :func:`ptofuzz.engine.minimize.shrink_candidates`).
        explain: ``(case, inputs, files) -> reason``: for ``check``, when a folder's golden differs from the
            recomputed one, what is known to be wrong with it ('' when nothing is); ``files`` holds each golden
            role's bits as read.
    """

    name: str
    family: str
    summary: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    platforms: Mapping[str, PlatformSupport]
    random_case: Callable[[Source, str, Mapping[str, Any]], Case]
    explicit_case: Callable[[str, Mapping[str, Any]], Case]
    draw_inputs: Callable[[Source, Case, ValueMix], Inputs]
    draw_many: Callable[[Sequence[tuple[Source, Case]], ValueMix], list[Inputs]] | None = None
    role_dtypes: Mapping[str, str] = field(default_factory=dict)
    role_dtype_params: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    index_roles: tuple[str, ...] = ()
    unmodelled: Mapping[str, str] = field(default_factory=dict)
    options: tuple[str, ...] = ("dtype", "shape")
    random_options: tuple[str, ...] = ("dtype", "shape")
    option_choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    redraw: Callable[[list[tuple[Source, Case, Inputs, Outcome]]], list[Redrawn]] | None = None
    replay_flags: Callable[[Case], str] | None = None
    draw_batch: Callable[[Source, Case, ValueMix, int], Inputs] | None = None
    batch_params: tuple[str, ...] = ()
    batch_limit: Callable[[Case], int] | None = None
    geometry_class: Callable[[Case], str] | None = None
    fault_class: Callable[[Case], str] | None = None
    regions: Callable[[Case, str], tuple[tuple[str, ...], np.ndarray]] | None = None
    permutes: bool = False
    known_difference: Callable[[Signature], str | None] | None = None
    shrink: Callable[[Case, Inputs], Iterable[tuple[Case, Inputs]]] | None = None
    illegal_case: Callable[[Source, Mapping[str, Any]], Case] | None = None
    shared: Callable[[Sequence[tuple[Case, Mapping[str, np.ndarray]]]], AbstractContextManager[None]] | None = None
    bundle: bool = False
    explain: Callable[[Case, Mapping[str, np.ndarray], Mapping[str, np.ndarray]], str] | None = None

    def check_choice(self, option: str, value: str) -> str:
        """``value`` of ``option`` as this instruction names it (dtype spellings resolved), or a one-line
        UsageError listing the choices."""
        choices = self.option_choices.get(option)
        name = dtypes.get(value).name if option.endswith("dtype") else value
        if choices is not None and name not in choices:
            raise UsageError(f"--{option.replace('_', '-')} {value}: {self.name} takes one of {', '.join(choices)}")
        return name

    def item(self, case: Case, inputs: Mapping[str, np.ndarray]) -> tuple[Case, dict[str, np.ndarray]]:
        """One item of a batch (inputs without the batch axis) as a plain case and its tile inputs."""
        return item_case(case, inputs, self.batch_params)

    def dtype_of(self, case: Case, role: str) -> dtypes.DType:
        """Element type of a role's tile (and file) in ``case``."""
        if role in self.role_dtype_params:
            param, default = self.role_dtype_params[role]
            return dtypes.get(case.param(param) or default)
        sup = self.platforms.get(case.platform)
        if sup is not None and sup.role_dtypes is not None:
            return dtypes.get(sup.role_dtypes.get(role, case.dtype))
        return dtypes.get(self.role_dtypes.get(role, case.dtype))

    def support(self, platform: str) -> PlatformSupport:
        platform = platforms.canonical(platform)  # an unknown name: one-line error listing the platforms
        try:
            return self.platforms[platform]
        except KeyError:
            raise UsageError(
                f"{self.name} has no {platform} model; it has: {', '.join(self.platforms)}") from None

    def evaluate(self, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        """Run the case's platform model, after the platform's dtype check."""
        sup = self.support(case.platform)
        dt = dtypes.get(case.dtype)
        if dt.name not in sup.dtypes:
            why = f"{self.name} on {case.platform} does not accept {dt.name} (accepts: {', '.join(sup.dtypes)})"
            if sup.bad_dtype == "fault":
                return Outcome.faulted("Fault_TileLegality", 5, why, COMMIT)
            return Outcome.unsupported(why)
        return sup.oracle(case, inputs)

    def draw_each(self, items: Sequence[tuple[Source, Case]], mix: ValueMix) -> list[Inputs]:
        """Each (source, case)'s inputs, as ``draw_inputs`` draws them (through ``draw_many`` when set)."""
        if self.draw_many is not None:
            return self.draw_many(items, mix)
        return [self.draw_inputs(source, case, mix) for source, case in items]

    def sharing(self, batch: Sequence[tuple[Case, Mapping[str, np.ndarray]]] = ()) -> AbstractContextManager[None]:
        """The instruction's :attr:`shared` context for ``batch`` (a no-op context when it has none)."""
        return self.shared(batch) if self.shared is not None else contextlib.nullcontext()


_REGISTRY: dict[str, Instruction] = {}  # mnemonic -> instruction, filled as instructions are looked up


def _load(module: str, names: Sequence[str]) -> None:
    missing = [n for n in names if n not in _REGISTRY]
    if missing:
        for inst in importlib.import_module(module).instructions(missing):
            if inst.name in _REGISTRY:
                raise RuntimeError(f"instruction {inst.name} registered twice")
            _REGISTRY[inst.name] = inst


def all_instructions() -> dict[str, Instruction]:
    """Every registered instruction by name, in :data:`MODULES` order, loading the instruction modules on first
    use."""
    for mod, names in MODULES.items():
        _load(mod, names)
    return {n: _REGISTRY[n] for names in MODULES.values() for n in names}


def get(name: str) -> Instruction:
    """Look up an instruction by mnemonic, case-insensitively (building only that one on first use)."""
    key = name.strip().upper()
    if key not in _REGISTRY:
        module = next((m for m, names in MODULES.items() if key in names), None)
        if module is None:
            names = [n.lower() for names in MODULES.values() for n in names]
            raise UsageError(f"unknown instruction {name!r}; use one of: {', '.join(names)}")
        _load(module, (key,))
    return _REGISTRY[key]
