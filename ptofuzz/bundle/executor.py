"""A spec-level executor of PTO bundles for TSORT, TMRGSORT, TPARTADD/MUL/MAX/MIN and the TEPL operations of
:data:`CLOSED` (TADD TSUB TMUL TMAX TMIN, TABS TNEG TRELU TNOT, TADDS TSUBS TMULS TMAXS TMINS, the bitwise TAND TOR
TXOR TSHL TSHR and TANDS TORS TXORS TSHLS TSHRS, TEXPANDS, TCMP, TCMPS, TSEL, TSELS, TCI, TTRI, the reductions TROW/TCOL
SUM MAX MIN ARGMAX ARGMIN and the expansions TROWEXPAND TCOLEXPAND and their ADD SUB MUL MAX MIN forms), after
pto-spec 0.58.3: the block lifecycle (``asl/block/model/commit/validation.asl``), the trap numbers
(``asl/arch/memory-model/fault-precision.asl``) and the operations' bundle schemas
(``asl/block/model/dispatch/sorting-schema.asl``, ``partial-schema.asl``, ``tile-schema.asl``,
``tile-scalar-schema.asl``, ``reduction-schema.asl``, ``expansion-schema.asl``, ``destination-shape.asl``).

It follows the block lifecycle: ``BSTART`` commits any open block and opens a new one; header commands
(B.DIM, B.IOR, B.IOT, B.IOS, B.DATR) only record; ``BSTOP`` or the next ``BSTART`` commits. Checks run where
the model runs them:

* decode (trap 4, Fault_IllegalInstruction): a word no form accepts or a field outside its domain;
* header (trap 5), at the word (``asl/block/model/dispatch/commands.asl``,
  ``asl/block/model/operands/shared-bindings.asl``): a B.IOT or B.IOS with PE mask 0000 is a strict no-op
  before any other check, inside a block or not (inside one it is dropped, its ``<last>`` does not count);
  otherwise a command outside an open block, a second B.IOR or B.DATR, a second write to one LB, a B.IOT after
  the one with ``<last>`` (``<last>`` closes the B.IOT stream only), a Shared ID bound twice or a fifth B.IOS
  are Fault_BundleControl; a binding whose PE mask differs from the earlier bindings' (a B.IOT: the earlier
  B.IOTs'; a B.IOS: every earlier binding's) is Fault_TileLegality;
* commit, in the order of ``asl/block/model/dispatch/tile-execution.asl``: every binding had mask 0 -> the block
  is a no-op; a Shared operand the operation does not consume (no operation the executor runs consumes one) is
  Fault_TileLegality; binding counts and ``<last>`` and B.IOR fields the operation does not use
  (Fault_BundleControl); B.IOR values; B.DATR fields; the operation's schema (types, LBs, source descriptors and
  valid regions: ``sorting-schema.asl``, ``partial-schema.asl``) (Fault_TileLegality); then destination
  allocation (Fault_TileAllocation); then the operation's own legality (Fault_TileLegality), all trap 5.

Every fault says where it was raised (:attr:`ptofuzz.core.case.Fault.point`): ``word N`` for decode and header
faults, ``commit`` for a block's. A faulting block publishes nothing and stops execution. A legal block runs the
spec oracle of its operation (:mod:`ptofuzz.oracles.sort`, :mod:`ptofuzz.oracles.tpart`) on the source tiles and
publishes the new destination tiles and the numeric status flags. The elementwise operations are one table,
:data:`CLOSED`: an entry names the closed schema, the spec oracle and its roles (:func:`_commit_closed` runs
them all; :mod:`ptofuzz.oracles.elementwise`, :mod:`~ptofuzz.oracles.unary`, :mod:`~ptofuzz.oracles.tilescalar`,
:mod:`~ptofuzz.oracles.bitwise` compute the values; TAND..TSHR have no closed schema in pto-spec and run the
generic path, :class:`ClosedTepl`). Per-PE fragments are modelled as one payload
(every enabled PE computes the same); the PE mask decides no-ops, mask consistency and the capacity charged.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.bundle import catalog
from ptofuzz.bundle import encoding as enc
from ptofuzz.core import dtypes
from ptofuzz.core.case import COMMIT, Case, Fault, Outcome, OutcomeKind, Tile, at_word
from ptofuzz.core.layouts import smallest_columns

CORE_CAPACITY = 262144  # TILE_CAPACITY after reset, bytes over all PEs
SPEC_DTYPES = {"FP32": "float32", "FP16": "float16", "BF16": "bfloat16", "S32": "int32", "S16": "int16",
               "S8": "int8", "U32": "uint32", "U16": "uint16", "U8": "uint8", "S64": "int64", "U64": "uint64"}
TPART = ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN")
MAX_SHARED = 4  # Shared (B.IOS) bindings a block holds
Register = int | np.ndarray  # a GPR's value; an array: one value per batched machine state (see execute)

# ---- the closed TEPL schemas (asl/block/model/dispatch/tile-schema.asl, tile-scalar-schema.asl) ----------------

#: BSTART DataTypes of TileVecArithmeticDataTypeSupported (asl/tile/model/legality/dtype-layout.asl)
VEC_ARITHMETIC = frozenset("FP64 FP32 TF32 HF32 FP16 BF16 E4M3 E5M2 S64 S32 S16 S8 U64 U32 U16 U8".split())
#: TileVecScalarIntegerDataTypeSupported: TNOT's (and the bitwise operations') types
VEC_INTEGER = frozenset("S64 S32 S16 S8 U64 U32 U16 U8".split())
#: TileElementBits (asl/tile/model/state/descriptors.asl) of the types ptofuzz has no element model of (a
#: destination of them is still sized; a generic operation sizes it before it checks its type)
UNMODELLED_BITS = {"FP64": 64, "TF32": 32, "HF32": 32, "E4M3": 8, "E5M2": 8,
                   "HiF8": 8, "E3M2": 8, "E2M3": 8, "E8M0": 8, "E2M1X2": 4, "E1M2X2": 4, "HiF4X2": 4, "S4X2": 4,
                   "U4X2": 4}


@dataclasses.dataclass(frozen=True)
class ClosedTepl:
    """How one TEPL operation under a closed schema of pto-spec is bound, checked and computed: one B.IOT with
    ``<last>`` binds its Local sources (in ``sources`` order, the spec oracle's roles) and one destination whose
    shape is LB0 = ValidCol (required), LB1 = ValidRow (default 1), LB2 = Col (default LB0); ``scalar`` (the
    oracle's role, a 1x1 tile) is B.IOR RegSrc0's low element bits; ``schema`` names the check pto-spec runs
    before allocation (``binary``: SelectedBundleClosedBinarySchemaLegal, ``unary``: ...UnarySchemaLegal,
    ``tile-scalar``: ...TileScalarBinarySchemaLegal, which also checks the source against LB0..LB2 and the BSTART
    type); ``oracle``: ``module:function`` of the spec oracle the commit runs (its legality, then its values).

    ``generic``: an operation pto-spec gives no closed schema (TAND TOR TXOR TSHL TSHR: none of the
    ``TileOperationUses*Schema`` predicates of ``tile-schema.asl``, ``tile-scalar-schema.asl`` and
    ``comparison-schema.asl`` names them), so nothing is checked between the B.DATR fields and allocation; the
    bindings need only be complete (the counts and ``<last>``: they may span several B.IOTs, sources taken in
    binding order); the destination is shaped as ``ResolveBundleTileDestinations`` of ``destination-shape.asl``
    does it: each LB when it is 1..65535, else the first bound source's descriptor (LB0: its ValidCol, LB1: its
    ValidRow, LB2: its Col), else 1 (LB2: the resolved ValidCol); the type (``accepts``) and the sources are the
    operation's own legality, after allocation."""

    schema: str
    oracle: str
    sources: tuple[str, ...]
    scalar: str | None = None
    accepts: frozenset[str] = VEC_ARITHMETIC
    #: the B.IOR fields the operation reads, when more than a scalar's RegSrc0 (TCI: start, direction)
    registers: tuple[str, ...] = ()


_BINARY, _UNARY, _SCALAR = "ptofuzz.oracles.elementwise:spec", "ptofuzz.oracles.unary:spec", \
    "ptofuzz.oracles.tilescalar:spec"
_BITWISE = "ptofuzz.oracles.bitwise:spec"
_CMPSEL = "ptofuzz.oracles.cmpsel:spec_tcmp"
_SELECT = "ptofuzz.oracles.cmpsel:spec_tsel"
#: B.DATR CMode (0 EQ, 1 NE, 2 LT, 3 GT, 4 LE, 5 GE: BundleTileInstructionOperands, tile-schema.asl) -> the
#: oracles' ``cmp`` parameter (pto-isa's CmpMode order: EQ NE LT LE GT GE)
CMODE_TO_CMP = {0: 0, 1: 1, 2: 2, 3: 4, 4: 3, 5: 5}
#: every TEPL operation the executor runs through a closed schema (or, for one without, the generic path): one
#: entry each
CLOSED: dict[str, ClosedTepl] = {
    **{op: ClosedTepl("binary", _BINARY, ("src0", "src1")) for op in ("TADD", "TSUB", "TMUL", "TMAX", "TMIN")},
    **{op: ClosedTepl("unary", _UNARY, ("src",)) for op in ("TABS", "TNEG", "TRELU")},
    "TNOT": ClosedTepl("unary", _UNARY, ("src",), accepts=VEC_INTEGER),
    **{op: ClosedTepl("tile-scalar", _SCALAR, ("src0",), "scalar")
       for op in ("TADDS", "TSUBS", "TMULS", "TMAXS", "TMINS")},
    # the bitwise family: no closed schema for the tile-tile five (generic); the tile-scalar five are in
    # TileOperationUsesClosedTileScalarBinarySchema, their types TileBinaryDataTypeSupported's integer ones
    **{op: ClosedTepl("generic", _BITWISE, ("src0", "src1"), accepts=VEC_INTEGER)
       for op in ("TAND", "TOR", "TXOR", "TSHL", "TSHR")},
    **{op: ClosedTepl("tile-scalar", _BITWISE, ("src0",), "scalar", accepts=VEC_INTEGER)
       for op in ("TANDS", "TORS", "TXORS", "TSHLS", "TSHRS")},
    # TEXPANDS: SelectedBundleClosedTEXPANDSSchemaLegal (tile-scalar-schema.asl): the tile-scalar schema's
    # binding and LBs with no source, the arithmetic types; its scalar is B.IOR RegSrc0's low element bits
    "TEXPANDS": ClosedTepl("tile-scalar", "ptofuzz.oracles.generation:texpands_spec", (), "scalar"),
    # TCMP, TCMPS: SelectedBundleClosedTCMPSchemaLegal (comparison-schema.asl), ...TCMPSSchemaLegal
    # (tile-scalar-schema.asl): a packed predicate destination shaped as the first source
    # (ResolveBundlePredicateDestination, destination-shape.asl), the comparison B.DATR's CMode
    "TCMP": ClosedTepl("compare", _CMPSEL, ("src0", "src1")),
    "TCMPS": ClosedTepl("compare", _CMPSEL, ("src0",), "scalar"),
    # TSEL, TSELS: SelectedBundleClosedTSELSchemaLegal (comparison-schema.asl: the predicate and the true source
    # in a first B.IOT, the false source and the destination in a terminal one), ...TSELSSchemaLegal
    # (tile-scalar-schema.asl: the predicate and the true source in one terminal B.IOT, the false value B.IOR
    # RegSrc0's)
    "TSEL": ClosedTepl("select", _SELECT, ("mask", "src0", "src1")),
    "TSELS": ClosedTepl("select", _SELECT, ("mask", "src0"), "scalar"),
    # TCI, TTRI: SelectedBundleClosedGenerationSchemaLegal (generation-schema.asl): a destination-only terminal
    # B.IOT; B.IOR RegSrc0 the start (TCI) or the signed diagonal (TTRI), RegSrc1 the direction or orientation
    "TCI": ClosedTepl("generation", "ptofuzz.oracles.generation:tci_spec", (),
                      accepts=frozenset({"S32", "S16", "U32", "U16"}), registers=("rs0", "rs1")),
    "TTRI": ClosedTepl("generation", "ptofuzz.oracles.generation:ttri_spec", (),
                       accepts=frozenset({"FP32", "FP16", "S32", "S16", "U32", "U16"}), registers=("rs0", "rs1")),
    # the reductions: SelectedBundleClosedReductionSchemaLegal (reduction-schema.asl); the destination shaped and
    # typed from the source (ResolveBundleTileDestinationsForOperation, destination-shape.asl: the source's type, an
    # arg reduction's U32)
    **{op: ClosedTepl("reduction", "ptofuzz.oracles.reduce:spec", ("src",))
       for op in ("TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN")},
    **{op: ClosedTepl("reduction", "ptofuzz.oracles.ordered:spec", ("src",)) for op in ("TROWSUM", "TCOLSUM")},
    **{op: ClosedTepl("reduction", "ptofuzz.oracles.product:spec", ("src",)) for op in ("TROWPROD", "TCOLPROD")},
    **{op: ClosedTepl("reduction", "ptofuzz.oracles.argreduce:spec", ("src",))
       for op in ("TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN")},
    # the expansions: SelectedBundleClosedExpansionSchemaLegal (expansion-schema.asl): the copies bind one source
    # (the broadcast one), the arithmetic expansions the full-shape source, then the broadcast one
    **{op: ClosedTepl("expansion", "ptofuzz.oracles.expand:spec", ("src",)) for op in ("TROWEXPAND", "TCOLEXPAND")},
    **{f"T{axis}EXPAND{w}": ClosedTepl("expansion", "ptofuzz.oracles.expandop:spec", ("src0", "src1"))
       for axis in ("ROW", "COL") for w in ("ADD", "SUB", "MUL", "MAX", "MIN")},
}
#: the arg reductions' index destination: U32 whatever the source (ResolveBundleTileDestinationsForOperation)
INDEX_DTYPE = "uint32"
SUPPORTED = ("TSORT", "TMRGSORT", *TPART, *CLOSED, "TCVT")

# ---- TCVT's closed schema (asl/block/model/dispatch/tcvt-schema.asl) --------------------------------------------

#: the BSTART / B.DATR DataTypes TCVT converts that ptofuzz has an element model of (the 8-bit floats: TCVT only)
TCVT_DTYPES = {**SPEC_DTYPES, "E4M3": "float8_e4m3", "E5M2": "float8_e5m2", "HiF8": "hifloat8"}
#: B.DATR RMode (0 operation default, 1 RNE, 2 RTZ, 3 RTM, 4 RTP, 5 RNA, 6 RTO, 7 RHB) -> the conversion oracle's
#: ``rmode`` (pto::RoundMode's ordinals), the pairing of DecodePublicConversionRoundingSelection
#: (asl/scalar/model/fsu/arithmetic.asl); RHB (ties to the greater candidate), which has no ordinal there, is the
#: oracle's spec-only 7
RMODE_TO_ROUND = {0: 0, 1: 1, 2: 5, 3: 3, 4: 4, 5: 2, 6: 6, 7: 7}
#: HardwareTCVTTypePairSupported (asl/arch/profile/e8m0-conversion.asl): an E8M0 destination takes these only
E8M0_SOURCES = frozenset({"FP16", "BF16", "FP32"})
#: the CUBE conversion codes ND2M32..N82ND: TileDataLayoutSourceLayout has no layout for them (``unreachable``)
CUBE_LAYOUTS = frozenset(range(21, 27))
#: each other B.DATR Layout code's source and destination layouts (TileDataLayoutSourceLayout and
#: ...DestinationLayout, asl/block/model/state/control-state.asl): NORM is ND to ND, XX2YY is XX to YY (ND
#: row-major, DN column-major, ZN and NZ the fractal layouts). ptofuzz's Local tiles are ND.
TCVT_LAYOUTS: dict[int, tuple[str, str]] = {
    code: ("ND", "ND") if name == "NORM" else (name[:2], name[3:])
    for code, name in enc.LAYOUTS.items() if code not in CUBE_LAYOUTS}


@dataclasses.dataclass
class LocalTile:
    """A Local tile register: descriptor and payload bits (row-major, the whole physical tile)."""

    dtype: str
    rows: int
    cols: int
    valid_rows: int
    valid_cols: int
    data: np.ndarray
    capacity: int
    mask: str = "1111"
    #: a predicate tile's logical (rows, cols, valid rows, valid cols): the data tile's it was computed from (its
    #: payload is ptofuzz's Row x Col/8 byte tile); None: numeric storage
    logical: tuple[int, int, int, int] | None = None
    #: a private CUBE tile (pto-spec's TileLocation_Matrix), not an ordinary public one; only TCVT reads it (its
    #: Canonicalize rule: tcvt-schema.asl); what the other operations do with one is not modelled
    private: bool = False

    @property
    def tile(self) -> Tile:
        return Tile(self.rows, self.cols, self.valid_rows, self.valid_cols)

    @classmethod
    def of(cls, dtype: str, rows: int, cols: int, valid: tuple[int, int], values: Sequence[Sequence[int]] = (),
           mask: str = "1111") -> LocalTile:
        dt = dtypes.get(dtype)
        data = np.zeros((rows, cols), dtype=dt.bits_dtype)
        for r, row in enumerate(values):
            data[r, :len(row)] = np.array(row, dtype=np.uint64).astype(dt.bits_dtype)
        return cls(dt.name, rows, cols, valid[0], valid[1], data, rows * cols * dt.itemsize, mask)


@dataclasses.dataclass
class BlockResult:
    op: str
    kind: str  # ok / noop / fault / unsupported
    fault: Fault | None = None
    flags: tuple[str, ...] = ()
    published: dict[int, LocalTile] = dataclasses.field(default_factory=dict)
    reason: str = ""
    #: the published tiles' element classes where the spec oracle leaves some open (TCVT: ADR 0090's open
    #: results); a tile without an entry is exact over its valid region
    classes: dict[int, np.ndarray] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ExecResult:
    blocks: list[BlockResult]
    fault: Fault | None  # the fault that stopped execution (None: all words ran)
    word: int | None  # index of the word that faulted (decode/header time) or committed the faulting block
    tiles: dict[int, LocalTile]  # the tile registers afterwards

    @property
    def outcome(self) -> str:
        """fault, ok, noop (every block a no-op), or empty / open / unsupported when nothing ran to commit."""
        if self.fault is not None:
            return "fault"
        if not self.blocks:
            return "empty"
        for kind in ("open", "unsupported"):
            if any(b.kind == kind for b in self.blocks):
                return kind
        return "noop" if all(b.kind == "noop" for b in self.blocks) else "ok"


class _Fault(Exception):
    def __init__(self, name: str, trap: int, reason: str) -> None:
        super().__init__(reason)
        self.fault = Fault(name, trap, reason)


def _control(reason: str) -> _Fault:
    return _Fault("Fault_BundleControl", 5, reason)


def _legality(reason: str) -> _Fault:
    return _Fault("Fault_TileLegality", 5, reason)


def _allocation(reason: str) -> _Fault:
    return _Fault("Fault_TileAllocation", 5, reason)


@dataclasses.dataclass
class _Binding:
    sources: tuple[int, ...]
    dest: tuple[int, int] | None  # (hand, SizeCode)
    pemode: int
    last: bool


@dataclasses.dataclass
class _Shared:
    tid: int  # the Shared ID
    size: int  # SizeCode (0: a source)
    pemode: int


@dataclasses.dataclass
class _Block:
    op: str
    datatype: int
    lbs: dict[int, int] = dataclasses.field(default_factory=dict)
    ior: Mapping[str, int] | None = None
    datr: Mapping[str, int] | None = None
    bindings: list[_Binding] = dataclasses.field(default_factory=list)  # B.IOT
    shared: list[_Shared] = dataclasses.field(default_factory=list)  # B.IOS
    dropped: int = 0  # bindings with PE mask 0000
    closed: bool = False  # a B.IOT with <last> was bound


def execute(words: Sequence[int], tiles: Mapping[int, LocalTile], gprs: Mapping[str, Register] | None = None,
            *, capacity: int = CORE_CAPACITY) -> ExecResult:
    """Run ``words`` on Local tile registers ``tiles`` (index 0..63) with general registers ``gprs``.

    A tile's payload may carry leading batch axes (``data`` of shape (N, rows, cols)): N machine states that
    differ in tile contents only. Nothing but the operations' data path reads a payload (decode, header and
    commit checks, allocation and the faults they raise depend on the words, registers and descriptors), so one
    run executes all N; destinations get the same leading axes and the flags are those any of the N raises. A GPR
    that only the data path reads (a tile-scalar operation's scalar, B.IOR RegSrc0) may likewise hold an array of
    N values, one per state (TCI's start too); a GPR that a check reads (B.DIM, a sort's flag) must be one
    integer, except TTRI's diagonal, whose N values must all pass its bound or all fail it (one fault)."""
    regs: dict[str, Register] = {name: 0 for name in enc.GPRS}
    regs.update({k: v if isinstance(v, np.ndarray) else int(v) for k, v in (gprs or {}).items()})
    regs["zero"] = 0
    state = dict(tiles)
    blocks: list[BlockResult] = []
    block: _Block | None = None
    for k, word in enumerate(words):
        try:
            cmd = enc.decode(word)
        except enc.DecodeError as e:
            return ExecResult(blocks, Fault(e.fault, e.trap, str(e), at_word(k)), k, state)
        try:
            if cmd.kind in ("BSTART", "BSTOP"):
                if block is not None:
                    result = _commit(block, state, regs, capacity)
                    blocks.append(result)
                    block = None
                    if result.fault is not None:
                        return ExecResult(blocks, result.fault, k, state)
                    state.update(result.published)
                elif cmd.kind == "BSTOP":
                    raise _control("BSTOP with no open block")
                if cmd.kind == "BSTART" and cmd.executed:
                    block = _Block(enc.SELECTORS[cmd["selector"]], cmd["datatype"])
            if not cmd.executed:  # an accepted form outside TSORT/TMRGSORT/TPART* bundles (a start has committed)
                handler = catalog.BY_NAME[cmd.form].handler
                blocks.append(BlockResult(cmd.form, "unsupported",
                                          reason=f"{cmd.form} ({handler}) is an accepted command form the executor "
                                                 "does not execute"))
                return ExecResult(blocks, None, None, state)
            if cmd.kind in ("BSTART", "BSTOP"):
                continue
            if cmd.kind in ("B.IOT", "B.IOS") and cmd["pemode"] == 0:
                if block is not None:  # strict no-op before every other check, in a block or not
                    block.dropped += 1
                continue
            if block is None:
                raise _control(f"{cmd.form} outside an open block header")
            _header(block, cmd, regs)
        except _Fault as f:
            return ExecResult(blocks, f.fault._replace(point=at_word(k)), k, state)
    if block is not None:
        blocks.append(BlockResult(block.op, "open", reason="the last block was never committed (no BSTOP)"))
    return ExecResult(blocks, None, None, state)


def _header(block: _Block, cmd: enc.Command, regs: Mapping[str, Register]) -> None:
    f = cmd.fields
    if cmd.form == "B.DIM":
        if f["lb"] in block.lbs:
            raise _control(f"LB{f['lb']} written twice")
        block.lbs[f["lb"]] = (_word(regs, f["rs"]) + f["imm"]) % 65536
    elif cmd.form == "B.IOR":
        if block.ior is not None:
            raise _control("a second B.IOR")
        block.ior = dict(f)
    elif cmd.form == "B.DATR":
        if block.datr is not None:
            raise _control("a second B.DATR")
        block.datr = dict(f)
    elif cmd.form == "B.IOS":  # a nonzero PE mask (mask 0 never gets here)
        _mask_appends([*block.bindings, *block.shared], f["pemode"])  # the tile and the Shared bindings' masks
        if any(s.tid == f["tid"] for s in block.shared):
            raise _control(f"Shared ID {f['tid']} is bound twice")
        if len(block.shared) == MAX_SHARED:
            raise _control(f"a fifth B.IOS: a block binds at most {MAX_SHARED} Shared operands")
        block.shared.append(_Shared(f["tid"], f["size"], f["pemode"]))
    else:  # B.IOT with a nonzero PE mask
        if block.closed:
            raise _control("a B.IOT after the one marked <last>")
        _mask_appends(block.bindings, f["pemode"])
        sources = tuple(f[k] for k in ("src0", "src1") if k in f)
        dest = (f["dst"], f["size"]) if "dst" in f else None
        block.bindings.append(_Binding(sources, dest, f["pemode"], bool(f["last"])))
        if f["last"]:
            block.closed = True


def _mask_appends(earlier: Sequence[_Binding | _Shared], pemode: int) -> None:
    """A binding's PE mask must be the earlier bindings' (Fault_TileLegality)."""
    masks = {b.pemode for b in earlier}
    if masks and masks != {pemode}:
        raise _legality(f"PE mask {enc.PE_MASKS[pemode]} differs from the earlier bindings' "
                        f"{enc.PE_MASKS[next(iter(masks))]}")


def _commit(block: _Block, tiles: dict[int, LocalTile], regs: Mapping[str, Register], capacity: int) -> BlockResult:
    if not block.bindings and not block.shared and block.dropped:
        return BlockResult(block.op, "noop", reason="every binding had PE mask 0000")
    try:
        if block.shared:  # tile-execution.asl: no TEPL operation consumes them; before the binding counts
            raise _legality(f"{block.op} consumes no Shared (B.IOS) operands; "
                            f"{len(block.shared)} bound and left unconsumed")
        if block.op not in SUPPORTED:
            return BlockResult(block.op, "unsupported", reason=f"the executor models {', '.join(SUPPORTED)} only")
        if block.op == "TSORT":
            return _commit_tsort(block, tiles, regs, capacity)
        if block.op == "TMRGSORT":
            return _commit_tmrgsort(block, tiles, regs, capacity)
        if block.op == "TCVT":
            return _commit_tcvt(block, tiles, capacity)
        if block.op in CLOSED:
            return _commit_closed(block, CLOSED[block.op], tiles, regs, capacity)
        return _commit_tpart(block, tiles, capacity)
    except _Fault as f:
        fault = f.fault._replace(point=COMMIT)
        return BlockResult(block.op, "fault", fault, reason=str(f))


def _counts(block: _Block, sources: int, dests: int) -> tuple[list[int], list[tuple[int, int]]]:
    """Step 1: binding completeness (Fault_BundleControl)."""
    srcs = [s for b in block.bindings for s in b.sources]
    dsts = [b.dest for b in block.bindings if b.dest is not None]
    if len(srcs) != sources or len(dsts) != dests:
        raise _control(f"{block.op} binds {sources} source(s) and {dests} destination(s), not {len(srcs)} and "
                       f"{len(dsts)}")
    if not block.closed:
        raise _control("no binding is marked <last>")
    return srcs, dsts


def _dtype(block: _Block) -> str | None:
    return SPEC_DTYPES.get(enc.DATATYPES.get(block.datatype, ""))


def _source(tiles: Mapping[int, LocalTile], index: int) -> LocalTile:
    t = tiles.get(index)
    if t is None:
        raise _legality(f"source {enc.tile_name(index)} is not allocated (reading undefined elements)")
    return t


def _allocate(tiles: Mapping[int, LocalTile], taken: set[int], hand: int, size_code: int, cols: int, dtype: str,
              valid: tuple[int, int], mask: str, budget_used: int, capacity: int, lead: tuple[int, ...] = ()
              ) -> tuple[int, LocalTile, int]:
    """Step 6: the lowest free slot of the hand, rows from TSize (Fault_TileAllocation). ``lead``: the leading
    batch axes of the payload (see :func:`execute`)."""
    slot, rows, charge = _allocation_shape(tiles, taken, hand, size_code, cols, dtypes.get(dtype).bits, dtype, valid,
                                           mask, budget_used, capacity)
    nbytes = enc.size_bytes(size_code)
    data = np.zeros((*lead, rows, cols), dtype=dtypes.get(dtype).bits_dtype)
    return slot, LocalTile(dtype, rows, cols, valid[0], valid[1], data, nbytes, mask), charge


def _allocation_shape(tiles: Mapping[int, LocalTile], taken: set[int], hand: int, size_code: int, cols: int,
                      bits: int, what: str, valid: tuple[int, int], mask: str, budget_used: int, capacity: int
                      ) -> tuple[int, int, int]:
    """The checks of :func:`_allocate` for elements of ``bits`` bits (``what``: their name): the slot, the rows and
    the capacity charged."""
    slot = next((i for i in range(hand * 16, hand * 16 + 16) if i not in tiles and i not in taken), None)
    if slot is None:
        raise _allocation(f"no free tile in hand {enc.HANDS[hand]}")
    nbytes = enc.size_bytes(size_code)
    if cols < 1 or cols & (cols - 1):
        raise _allocation(f"destination columns {cols} are not a power of two")
    if (nbytes * 8) % (cols * bits):
        raise _allocation(f"{nbytes} B holds no whole rows of {cols} {what} elements")
    rows = nbytes * 8 // (cols * bits)
    if not 1 <= rows <= 65535 or rows < valid[0] or valid[1] > cols:
        raise _allocation(f"{nbytes} B gives {rows} rows of {cols} {what}; the valid region needs {valid[0]}x"
                          f"{valid[1]}")
    charge = mask.count("1") * nbytes
    if budget_used + charge > capacity:
        raise _allocation(f"the core's tile capacity {capacity} B is exhausted")
    return slot, rows, charge


def _used(tiles: Mapping[int, LocalTile]) -> int:
    return sum(t.mask.count("1") * t.capacity for t in tiles.values())


def _commit_tsort(block: _Block, tiles: dict[int, LocalTile], regs: Mapping[str, Register], capacity: int
                  ) -> BlockResult:
    from ptofuzz.oracles import sort as sort_oracle

    (src_index,), dsts = _counts(block, 1, 2)
    flag = _flag(block, regs)
    if block.datr is not None and any(block.datr.values()):  # step 3
        raise _legality("TSORT takes B.DATR only with every field 0")
    if 1 in block.lbs or 2 in block.lbs:  # step 4
        raise _legality("TSORT takes no LB1 or LB2")
    width = block.lbs.get(0, 0) or 32
    if width > 64:
        raise _legality(f"sort_width {width} is above 64")
    src = _source(tiles, src_index)
    dt = _dtype(block)
    if dt not in ("float32", "float16", "bfloat16") or src.dtype != dt:  # the sorting schema, before allocation
        raise _legality(f"TSORT sorts FP32 or FP16 of the BSTART type; BSTART says "
                        f"{enc.DATATYPES.get(block.datatype)}, the source is {src.dtype}")
    case = Case("TSORT", "spec", dt, (("src", src.tile), ("dst", src.tile), ("idx", src.tile)),
                (("sort_width", width), ("descending", flag or None)))
    why = sort_oracle.tsort_legality(case, dtypes.get(dt), width, flag)  # BF16, source descriptor, empty source
    if why:
        raise _legality(why)
    mask = enc.PE_MASKS[block.bindings[0].pemode]
    taken: set[int] = set()
    used = _used(tiles)
    out_tiles = []
    for (hand, size), rdt in zip(dsts, (dt, "uint32")):
        slot, t, charge = _allocate(tiles, taken, hand, size, src.cols, rdt, (src.valid_rows, src.valid_cols),
                                    mask, used, capacity, src.data.shape[:-2])
        taken.add(slot)
        used += charge
        out_tiles.append((slot, t))
    for slot, t in out_tiles:
        if (t.rows, t.cols, t.valid_rows, t.valid_cols) != (src.rows, src.cols, src.valid_rows, src.valid_cols):
            raise _legality(f"destination {enc.tile_name(slot)} is {t.rows}x{t.cols}, the source {src.rows}x"
                            f"{src.cols}: TSORT destinations match the source's shape")
    outcome = _run(sort_oracle.tsort, case, {"src": src.data})
    (vslot, vt), (islot, it) = out_tiles
    vt.data[...] = outcome.outputs["dst"]
    it.data[...] = outcome.outputs["idx"]
    return BlockResult("TSORT", "ok", flags=tuple(outcome.flags or ()), published={vslot: vt, islot: it})


def _flag(block: _Block, regs: Mapping[str, Register]) -> int:
    """The descending flag of a sort: B.IOR RegSrc0's GPR (steps 1-2: the other B.IOR fields must be zero)."""
    ior = block.ior or {}
    if ior.get("rd") or ior.get("rs1") or ior.get("rs2"):
        raise _control(f"{block.op} uses only B.IOR RegSrc0 (RegDst, RegSrc1, RegSrc2 must be zero)")
    flag = _word(regs, ior["rs0"]) if ior else 0
    if flag not in (0, 1):
        raise _legality(f"the descending flag (GPR {enc.GPRS[ior['rs0']]} = {flag}) is neither 0 nor 1")
    return int(flag)


def _commit_tmrgsort(block: _Block, tiles: dict[int, LocalTile], regs: Mapping[str, Register], capacity: int
                     ) -> BlockResult:
    """pto-spec TMRGSORT: two sources, one destination whose shape comes from both (one row of their columns,
    the smallest power-of-two physical width; ``asl/block/model/dispatch/destination-shape.asl``)."""
    from ptofuzz.oracles import sort as sort_oracle

    (s0, s1), ((hand, size),) = _counts(block, 2, 1)
    flag = _flag(block, regs)
    if block.datr is not None and any(block.datr.values()):  # step 3
        raise _legality("TMRGSORT takes B.DATR only with every field 0")
    if block.lbs:  # step 4: the sorting schema
        raise _legality("TMRGSORT takes no LB0, LB1 or LB2 (its destination shape comes from the sources)")
    a, b = _source(tiles, s0), _source(tiles, s1)
    dt = _dtype(block)
    if dt not in sort_oracle.MRG_DTYPES or a.dtype != dt or b.dtype != dt:
        raise _legality(f"TMRGSORT merges FP32 or FP16 of the BSTART type; BSTART says "
                        f"{enc.DATATYPES.get(block.datatype)}, the sources are {a.dtype}, {b.dtype}")
    n = a.valid_cols + b.valid_cols
    if n > 32768:
        raise _legality(f"the merge has {n} columns; at most 32768")
    schema = Case("TMRGSORT", "spec", dt, (("dst", Tile(1, max(n, 1), 1, n)), ("src0", a.tile), ("src1", b.tile)),
                  (("descending", flag),))
    why = sort_oracle.tmrgsort_legality(schema, {"src0": a.data, "src1": b.data}, dtypes.get(dt), flag)
    if why:
        raise _legality(why)
    return _two_sources(block, tiles, capacity, (hand, size), a, b, dt, smallest_columns(n), (1, n),
                        (("descending", flag),), sort_oracle.tmrgsort)


def _commit_tpart(block: _Block, tiles: dict[int, LocalTile], capacity: int) -> BlockResult:
    from ptofuzz.oracles import tpart as tpart_oracle

    (s0, s1), ((hand, size),) = _counts(block, 2, 1)
    if block.ior is not None and any(block.ior.values()):  # steps 1-2
        raise _control(f"{block.op} uses no B.IOR field")
    if block.datr is not None:  # step 3
        raise _legality(f"{block.op} takes no B.DATR, not even an all-zero one")
    if block.ior is not None:  # step 4: the partial schema
        raise _legality(f"{block.op} takes no B.IOR, not even an all-zero one")
    if not block.lbs.get(0):
        raise _legality(f"{block.op} needs LB0 = ValidCol in 1..65535")
    for lb in (1, 2):
        if lb in block.lbs and not block.lbs[lb]:
            raise _legality(f"LB{lb} = 0; it must be 1..65535 when present")
    valid_cols, valid_rows = block.lbs[0], block.lbs.get(1, 1)
    cols = block.lbs.get(2, valid_cols)
    if cols < valid_cols:
        raise _legality(f"Col {cols} (LB2) is below ValidCol {valid_cols} (LB0)")
    a, b = _source(tiles, s0), _source(tiles, s1)
    if (a.valid_rows, a.valid_cols) != (valid_rows, valid_cols) and \
            (b.valid_rows, b.valid_cols) != (valid_rows, valid_cols):
        raise _legality(f"neither source equals the destination's valid region {valid_rows}x{valid_cols}")
    dt = _dtype(block)
    if dt is None or a.dtype != dt or b.dtype != dt:  # the partial schema, before allocation
        raise _legality(f"{block.op} operands must all be the BSTART type {enc.DATATYPES.get(block.datatype)} "
                        f"(sources {a.dtype}, {b.dtype})")
    if dt not in tpart_oracle.SPEC_DTYPES:
        raise _legality(f"{block.op} does not take {enc.DATATYPES.get(block.datatype)}")
    schema = Case(block.op, "spec", dt, (("dst", Tile(valid_rows, cols, valid_rows, valid_cols)), ("src0", a.tile),
                                         ("src1", b.tile)))
    bad = tpart_oracle.spec_legality(schema)  # source regions and descriptors
    if bad is not None:
        assert bad.fault is not None
        raise _legality(bad.fault.reason)
    return _two_sources(block, tiles, capacity, (hand, size), a, b, dt, cols, (valid_rows, valid_cols), (),
                        tpart_oracle.spec)


def _word(regs: Mapping[str, Register], selector: int) -> int:
    """A GPR that a check reads: one integer (batched values are for the data path only, see :func:`execute`)."""
    value = regs[enc.GPRS[selector]]
    if isinstance(value, np.ndarray):
        raise ValueError(f"GPR {enc.GPRS[selector]} holds batched values, but a check reads it")
    return value


def _raw_element(value: Register, dt: dtypes.DType) -> np.ndarray:
    """TileRawElementValue (``asl/tile/model/execution/elementwise.asl``): a GPR's low element bits, as a 1x1
    tile (with the batch axis of batched values)."""
    mask = (1 << dt.bits) - 1
    if isinstance(value, np.ndarray):
        low = value.astype(np.uint64) & np.uint64(mask)
    else:
        low = np.array(value & mask, dtype=np.uint64)
    out: np.ndarray = low.astype(dt.bits_dtype).reshape((*low.shape, 1, 1))
    return out


def _commit_closed(block: _Block, form: ClosedTepl, tiles: dict[int, LocalTile], regs: Mapping[str, Register],
                   capacity: int) -> BlockResult:
    """A TEPL operation of :data:`CLOSED`, in the order of ``tile-execution.asl``: binding completeness and the
    B.IOR fields (Fault_BundleControl); the B.DATR fields (Fault_TileLegality: only PadValue may be nonzero); the
    closed schema (Fault_TileLegality); the destination (Fault_TileAllocation); then the tile operation's own
    legality (the spec oracle's, and one element type for all tiles: Fault_TileLegality) and its values."""
    module, function = form.oracle.split(":")
    oracle = getattr(importlib.import_module(module), function)
    if form.schema == "compare":
        return _commit_compare(block, form, oracle, tiles, regs, capacity)
    if form.schema == "select":
        return _commit_select(block, form, oracle, tiles, regs, capacity)
    if form.schema == "generation":
        return _commit_generation(block, form, oracle, tiles, regs, capacity)
    if form.schema == "reduction":
        return _commit_reduction(block, form, oracle, tiles, capacity)
    if form.schema == "expansion":
        return _commit_expansion(block, form, oracle, tiles, capacity)
    srcs, dsts = _counts(block, len(form.sources), 1)
    ((hand, size),) = dsts
    ior = block.ior or {}
    used = ("rs0",) if form.scalar else ()
    extra = [k for k in ("rd", "rs0", "rs1", "rs2") if ior.get(k) and k not in used]
    if extra:  # BundleOperationScalarBindingSchemaLegal, part of the binding completeness
        uses = "only B.IOR RegSrc0 (its scalar)" if form.scalar else "no B.IOR register"
        raise _control(f"{block.op} uses {uses}; {', '.join(extra)} nonzero")
    if block.datr is not None:  # TileOperationDATRFieldsLegal: the catalog's datr_contract allows PadValue only
        bad = [k for k, v in block.datr.items() if v and k != "pad"]
        if bad:
            raise _legality(f"{block.op} takes only PadValue in B.DATR; {', '.join(bad)} nonzero")
    b = block.bindings[0]
    bstart = enc.DATATYPES[block.datatype]
    if form.schema == "generic":
        valid, cols = _generic_shape(block, tiles, srcs[0])
    else:  # the closed schema: one terminal B.IOT with every source and the destination
        if len(block.bindings) != 1 or b.dest is None or len(b.sources) != len(form.sources) or not b.last:
            raise _legality(f"{block.op} binds its sources and destination in one B.IOT marked <last>; the block "
                            f"has {len(block.bindings)} bindings")
        if not block.lbs.get(0):
            raise _legality(f"{block.op} needs LB0 = ValidCol in 1..65535")
        for lb in (1, 2):
            if lb in block.lbs and not block.lbs[lb]:
                raise _legality(f"LB{lb} = 0; it must be 1..65535 when present")
        valid = (block.lbs.get(1, 1), block.lbs[0])
        cols = block.lbs.get(2, valid[1])
        if bstart not in form.accepts:
            raise _legality(f"{block.op} does not take {bstart}")
    for k in srcs if form.schema == "tile-scalar" else ():  # SelectedBundleTileScalarSourceLegal, before allocation
        from ptofuzz.oracles import descriptors

        src = _source(tiles, k)
        problem = descriptors.problem(src.tile, dtypes.get(src.dtype), max_bytes=descriptors.LOCAL_MAX)
        if src.dtype != SPEC_DTYPES.get(bstart) or problem:
            raise _legality(f"the source {enc.tile_name(k)} must be a legal {bstart} tile (it is "
                            f"{src.dtype}{'; ' + problem if problem else ''})")
        if (src.valid_rows, src.valid_cols, src.cols) != (*valid, cols):
            raise _legality(f"the source {enc.tile_name(k)} (valid {src.valid_rows}x{src.valid_cols}, "
                            f"{src.cols} columns) does not match LB1 x LB0 = {valid[0]}x{valid[1]}, LB2 = {cols}")
    # ResolveBundleEffectiveDataType: a B.DATR's DataType (0, FP64, as it must be here) overrides BSTART's
    effective = enc.DATATYPES[block.datr["datatype"]] if block.datr is not None else bstart
    mask = enc.PE_MASKS[b.pemode]
    scalar = regs[enc.GPRS[ior.get("rs0", 0)]] if form.scalar else 0
    lead = np.broadcast_shapes(*(t.data.shape[:-2] for k in srcs if (t := tiles.get(k)) is not None),
                               np.shape(scalar))
    dt = SPEC_DTYPES.get(effective)
    if dt is None:  # sized like any destination; then no source (all of modelled types) matches its type
        _allocation_shape(tiles, set(), hand, size, cols, UNMODELLED_BITS[effective], effective, valid, mask,
                          _used(tiles), capacity)
        if not form.sources:  # TEXPANDS: pto-spec fills it; ptofuzz has no element model of the type
            return BlockResult(block.op, "unsupported", reason=f"{block.op} of {effective}: ptofuzz has no element "
                                                               "model of the type")
        raise _legality(f"the destination is {effective} (B.DATR's DataType or BSTART's), the sources are not")
    slot, dst, _ = _allocate(tiles, set(), hand, size, cols, dt, valid, mask, _used(tiles), capacity, lead)
    sources = [_source(tiles, k) for k in srcs]  # then the tile operation's legality
    if bstart not in form.accepts:  # a generic operation's type (a closed schema has checked it already)
        raise _legality(f"{block.op} does not take {bstart}")
    if any(s.dtype != dt for s in sources):
        raise _legality(f"the destination is {effective}, the sources {', '.join(s.dtype for s in sources)}: "
                        f"{block.op} takes one element type")
    roles = [(role, s.tile) for role, s in zip(form.sources, sources)]
    inputs = {role: s.data for role, s in zip(form.sources, sources)}
    if form.scalar:
        inputs[form.scalar] = _raw_element(scalar, dtypes.get(dt))
        roles.append((form.scalar, Tile(1, 1, 1, 1)))
    outcome = _run(oracle, Case(block.op, "spec", dt, (("dst", dst.tile), *roles)), inputs)
    dst.data[...] = outcome.outputs["dst"]
    return BlockResult(block.op, "ok", flags=tuple(outcome.flags or ()), published={slot: dst})


def _commit_tcvt(block: _Block, tiles: dict[int, LocalTile], capacity: int) -> BlockResult:
    """TCVT, in the order of ``tile-execution.asl``: binding completeness and B.IOR fields (Fault_BundleControl:
    TCVT reads no register); B.DATR CMode (TileOperationDATRFieldsLegal: TCVT takes every other field); the closed
    schema (``SelectedBundleClosedTCVTSchemaLegal``, Fault_TileLegality: no B.IOR at all, one terminal B.IOT binding
    one source and one destination, LB0 1..65535 and LB1, LB2 nonzero when present, the source a defined numeric
    tile of the BSTART type, the destination type B.DATR's concrete DataType or else BSTART's, an E8M0 destination
    only from FP16, BF16, FP32, Canonicalize 1 exactly for a private CUBE source (:attr:`LocalTile.private`), which
    takes Layout NORM only, an ordinary source in the Layout's source layout (:data:`TCVT_LAYOUTS`; ptofuzz's tiles
    are row-major: NORM, ND2DN, ND2ZN, ND2NZ pass)); the destination (LB0..LB2 in the destination type:
    Fault_TileAllocation); ``TileOperandsLegal_TCVT`` (``asl/tile/model/legality/operand-schema.asl``: the
    destination's Row, Col and valid region those of the source, Fault_TileLegality after allocation); then the
    values, from :func:`ptofuzz.oracles.conversion.spec` with B.DATR's RMode (:data:`RMODE_TO_ROUND`; 0: the
    operation default) and Sat (1: saturation on; no B.DATR: off).

    Legal blocks ptofuzz cannot compute are answered unsupported after every check: a destination type without an
    element model (FP64, E8M0, the 4-bit types, ...), a Layout that makes the destination DN, ZN or NZ (ptofuzz's
    tiles are row-major), and the CUBE conversion Layouts 21..26, for which pto-spec's schema reaches
    ``unreachable``. PadValue is not modelled (as for every operation here: the valid region is written, the rest
    classed open by the bundle oracle)."""
    from ptofuzz.oracles import conversion

    (src_index,), ((hand, size),) = _counts(block, 1, 1)
    if block.ior is not None and any(block.ior.values()):
        raise _control("TCVT uses no B.IOR register")
    datr = block.datr or {}
    if datr.get("cmode"):
        raise _legality("TCVT takes every B.DATR field but CMode; CMode nonzero")
    if block.ior is not None:
        raise _legality("TCVT takes no B.IOR, not even an all-zero one")
    b = block.bindings[0]
    if len(block.bindings) != 1 or b.dest is None or len(b.sources) != 1 or not b.last:
        raise _legality(f"TCVT binds its source and destination in one B.IOT marked <last>; the block has "
                        f"{len(block.bindings)} bindings")
    valid, cols = _closed_dims(block)
    src = _source(tiles, src_index)
    bstart = enc.DATATYPES[block.datatype]
    problem = _descriptor_problem(src)
    if src.logical is not None or src.dtype != TCVT_DTYPES.get(bstart) or problem:
        kind = "a predicate" if src.logical is not None else src.dtype
        raise _legality(f"the source {enc.tile_name(src_index)} must be a legal numeric {bstart} tile (the BSTART "
                        f"type); it is {kind}{'; ' + problem if problem else ''}")
    code = datr.get("datatype", 31)
    effective = enc.DATATYPES[code] if code != 31 else bstart  # DTYPE_NONE (or no B.DATR) inherits BSTART's
    if effective == "E8M0" and bstart not in E8M0_SOURCES:
        raise _legality(f"an E8M0 destination takes FP16, BF16 or FP32 sources, not {bstart}")
    if bool(datr.get("canon")) != src.private:
        raise _legality("Canonicalize is 1 exactly for a private CUBE source; the source is " +
                        ("one" if src.private else "an ordinary Local tile"))
    layout = datr.get("layout", 0)
    if src.private and layout:
        raise _legality(f"a private CUBE source converts with Layout NORM only, not {enc.LAYOUTS[layout]}")
    if layout in CUBE_LAYOUTS:
        return BlockResult("TCVT", "unsupported", reason=f"Layout {enc.LAYOUTS[layout]} (a CUBE conversion): "
                                                         "pto-spec's TCVT schema reaches unreachable for it")
    if TCVT_LAYOUTS[layout][0] != "ND":
        raise _legality(f"Layout {enc.LAYOUTS[layout]} reads a {TCVT_LAYOUTS[layout][0]} source; the source is "
                        "row-major (ND)")
    dt = TCVT_DTYPES.get(effective)
    mask = enc.PE_MASKS[b.pemode]
    bits = dtypes.get(dt).bits if dt is not None else UNMODELLED_BITS[effective]
    _, rows, _ = _allocation_shape(tiles, set(), hand, size, cols, bits, effective, valid, mask, _used(tiles),
                                   capacity)
    if (rows, cols, *valid) != (src.rows, src.cols, src.valid_rows, src.valid_cols):
        raise _legality(f"the destination ({rows}x{cols}, valid {valid[0]}x{valid[1]}) and the source "
                        f"({src.rows}x{src.cols}, valid {src.valid_rows}x{src.valid_cols}) differ "
                        "(TileOperandsLegal_TCVT)")
    rmode = datr.get("rmode", 0)
    why = (f"ptofuzz has no element model of {effective}" if dt is None else
           f"Layout {enc.LAYOUTS[layout]} lays the destination out {TCVT_LAYOUTS[layout][1]}; ptofuzz's tiles are "
           "row-major" if layout else "")
    if why:
        return BlockResult("TCVT", "unsupported", reason=why)
    assert dt is not None
    slot, dst, _ = _allocate(tiles, set(), hand, size, cols, dt, valid, mask, _used(tiles), capacity,
                             src.data.shape[:-2])
    params = ((conversion.TO, dt), (conversion.RMODE, RMODE_TO_ROUND[rmode]),
              (conversion.SAT, conversion.SAT_ON if datr.get("sat") else conversion.SAT_OFF))
    outcome = _run(conversion.spec, Case("TCVT", "spec", src.dtype, (("dst", dst.tile), ("src", src.tile)), params),
                   {"src": src.data})
    dst.data[...] = outcome.outputs["dst"]
    return BlockResult("TCVT", "ok", flags=tuple(outcome.flags or ()), published={slot: dst},
                       classes={slot: outcome.classes["dst"]})


def _descriptor_problem(t: LocalTile) -> str:
    """Why a Local tile is no legal descriptor of its type ("" when it is one)."""
    from ptofuzz.oracles import descriptors

    return descriptors.problem(t.tile, dtypes.get(t.dtype), max_bytes=descriptors.LOCAL_MAX)


def _closed_dims(block: _Block) -> tuple[tuple[int, int], int]:
    """SelectedBundleComparisonDimensionsLegal: LB0 required, each LB 1..65535 when present; the shape they give
    ((LB1 or 1, LB0), LB2 or LB0)."""
    if not block.lbs.get(0):
        raise _legality(f"{block.op} needs LB0 = ValidCol in 1..65535")
    for lb in (1, 2):
        if lb in block.lbs and not block.lbs[lb]:
            raise _legality(f"LB{lb} = 0; it must be 1..65535 when present")
    return (block.lbs.get(1, 1), block.lbs[0]), block.lbs.get(2, block.lbs[0])


def _commit_compare(block: _Block, form: ClosedTepl, oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome],
                    tiles: dict[int, LocalTile], regs: Mapping[str, Register], capacity: int) -> BlockResult:
    """TCMP and TCMPS (``comparison-schema.asl``, ``tile-scalar-schema.asl``): binding completeness and unused
    B.IOR fields (Fault_BundleControl); B.DATR CMode and PadValue only (TileOperationDATRFieldsLegal,
    Fault_TileLegality); the closed schema (TCMP: no B.IOR at all, even an all-zero one; one B.IOT with <last>,
    LB0; the arithmetic types; the sources of the BSTART type matching LB0..LB2, TCMP's two of one shape and type);
    then the predicate destination, shaped as the first source, its packed bytes ((Row*Col + 7) / 8) within TSize
    (Fault_TileAllocation); then the spec oracle. ptofuzz's predicate is a Row x Col/8 byte tile, so a source of
    a Col that is no multiple of 8 is answered unsupported after allocation, as the direct oracle does."""
    srcs, ((hand, size),) = _counts(block, len(form.sources), 1)
    ior = _scalar_fields(block, form)
    datr = block.datr or {}
    bad = [k for k, v in datr.items() if v and k not in ("cmode", "pad")]
    if bad:
        raise _legality(f"{block.op} takes only CMode and PadValue in B.DATR; {', '.join(bad)} nonzero")
    if not form.scalar and block.ior is not None:
        raise _legality("TCMP takes no B.IOR, not even an all-zero one")
    b = block.bindings[0]
    if len(block.bindings) != 1 or b.dest is None or len(b.sources) != len(form.sources) or not b.last:
        raise _legality(f"{block.op} binds its sources and destination in one B.IOT marked <last>; the block has "
                        f"{len(block.bindings)} bindings")
    valid, cols = _closed_dims(block)
    bstart = enc.DATATYPES[block.datatype]
    if bstart not in form.accepts:
        raise _legality(f"{block.op} does not take {bstart}")
    sources = [_numeric_source(tiles, k, bstart) for k in srcs]
    first = sources[0]
    if any(src.tile != first.tile for src in sources):
        raise _legality("TCMP's sources differ in shape (TileShapeAndTypeMatch)")
    if (first.valid_rows, first.valid_cols, first.cols) != (*valid, cols):
        raise _legality(f"the source (valid {first.valid_rows}x{first.valid_cols}, {first.cols} columns) does not "
                        f"match LB1 x LB0 = {valid[0]}x{valid[1]}, LB2 = {cols}")
    # ResolveBundlePredicateDestination: the first source's geometry, packed bits within TSize, then capacity and
    # a free tile of the hand
    nbytes = enc.size_bytes(size)
    if (first.rows * first.cols + 7) // 8 > nbytes:
        raise _allocation(f"{first.rows}x{first.cols} predicate bits take more than TSize {nbytes} B")
    mask = enc.PE_MASKS[b.pemode]
    if _used(tiles) + mask.count("1") * nbytes > capacity:
        raise _allocation(f"the core's tile capacity {capacity} B is exhausted")
    slot = next((i for i in range(hand * 16, hand * 16 + 16) if i not in tiles), None)
    if slot is None:
        raise _allocation(f"no free tile in hand {enc.HANDS[hand]}")
    if first.cols % 8:
        why = f"a {first.cols}-column predicate packs several rows into a byte, which ptofuzz's tiles do not lay out"
        return BlockResult(block.op, "unsupported", reason=why)
    scalar = regs[enc.GPRS[ior.get("rs0", 0)]] if form.scalar else 0
    lead = np.broadcast_shapes(*(s.data.shape[:-2] for s in sources), np.shape(scalar))
    dst = LocalTile("uint8", first.rows, first.cols // 8, first.valid_rows, -(-first.valid_cols // 8),
                    np.zeros((*lead, first.rows, first.cols // 8), dtype=np.uint8), nbytes, mask,
                    (first.rows, first.cols, first.valid_rows, first.valid_cols))
    dt = first.dtype
    roles = [(role, s.tile) for role, s in zip(form.sources, sources)]
    inputs = {role: s.data for role, s in zip(form.sources, sources)}
    if form.scalar:
        inputs[form.scalar] = _raw_element(scalar, dtypes.get(dt))
        roles.append((form.scalar, Tile(1, 1, 1, 1)))
    case = Case(block.op, "spec", dt, (("dst", dst.tile), *roles), (("cmp", CMODE_TO_CMP[datr.get("cmode", 0)]),))
    outcome = _run(oracle, case, inputs)
    dst.data[...] = outcome.outputs["dst"]
    return BlockResult(block.op, "ok", flags=tuple(outcome.flags or ()), published={slot: dst})


def _scalar_fields(block: _Block, form: ClosedTepl) -> Mapping[str, int]:
    """BundleOperationScalarBindingSchemaLegal (Fault_BundleControl): B.IOR fields the operation does not read
    (RegSrc0 only for one with a scalar; none else) must be zero. The B.IOR fields."""
    ior = block.ior or {}
    used = form.registers or (("rs0",) if form.scalar else ())
    extra = [k for k in ("rd", "rs0", "rs1", "rs2") if ior.get(k) and k not in used]
    if extra:
        uses = f"only B.IOR {', '.join(used)}" if used else "no B.IOR register"
        raise _control(f"{block.op} uses {uses}; {', '.join(extra)} nonzero")
    return ior


def _numeric_source(tiles: Mapping[int, LocalTile], k: int, bstart: str) -> LocalTile:
    """A source a closed schema reads as numbers: allocated, numeric storage, a legal descriptor of the BSTART
    type (Fault_TileLegality)."""
    from ptofuzz.oracles import descriptors

    src = _source(tiles, k)
    problem = descriptors.problem(src.tile, dtypes.get(src.dtype), max_bytes=descriptors.LOCAL_MAX)
    if src.logical is not None or src.dtype != SPEC_DTYPES.get(bstart) or problem:
        kind = "a predicate" if src.logical is not None else src.dtype
        raise _legality(f"the source {enc.tile_name(k)} must be a legal numeric {bstart} tile (it is "
                        f"{kind}{'; ' + problem if problem else ''})")
    return src


def _commit_select(block: _Block, form: ClosedTepl, oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome],
                   tiles: dict[int, LocalTile], regs: Mapping[str, Register], capacity: int) -> BlockResult:
    """TSEL and TSELS (``comparison-schema.asl``, ``tile-scalar-schema.asl``): binding completeness and unused
    B.IOR fields (Fault_BundleControl); B.DATR PadValue only (Fault_TileLegality); the closed schema
    (Fault_TileLegality: TSEL no B.IOR at all, a first B.IOT with the predicate and the true source and no
    destination, a terminal one with the false source and the destination; TSELS one terminal B.IOT with the
    predicate, the true source and the destination; LB0; the arithmetic types; the predicate a predicate tile of
    the true source's logical shape; the true (and false) source numeric tiles of the BSTART type, of one shape,
    matching LB0..LB2); then the destination (LB0..LB2, the effective type: Fault_TileAllocation); then the
    select spec oracle (its own legality, then the chosen bits)."""
    srcs, ((hand, size),) = _counts(block, len(form.sources), 1)
    ior = _scalar_fields(block, form)
    if block.datr is not None:
        bad = [k for k, v in block.datr.items() if v and k != "pad"]
        if bad:
            raise _legality(f"{block.op} takes only PadValue in B.DATR; {', '.join(bad)} nonzero")
    if not form.scalar and block.ior is not None:
        raise _legality("TSEL takes no B.IOR, not even an all-zero one")
    shape = [(len(b.sources), b.dest is not None, b.last) for b in block.bindings]
    want = [(2, True, True)] if form.scalar else [(2, False, False), (1, True, True)]
    if shape != want:
        raise _legality(f"{block.op} binds the predicate and the true source "
                        + ("with the destination in one B.IOT marked <last>" if form.scalar else
                           "in a first B.IOT, the false source and the destination in a second marked <last>"))
    valid, cols = _closed_dims(block)
    bstart = enc.DATATYPES[block.datatype]
    if bstart not in form.accepts:
        raise _legality(f"{block.op} does not take {bstart}")
    pred = _source(tiles, srcs[0])
    if pred.logical is None:
        raise _legality(f"the predicate {enc.tile_name(srcs[0])} is no predicate tile (TilePredicateValuesLegal)")
    data = [_numeric_source(tiles, k, bstart) for k in srcs[1:]]
    true = data[0]
    if any(d.tile != true.tile for d in data):
        raise _legality("TSEL's true and false sources differ in shape (TileShapeAndTypeMatch)")
    if pred.logical != (true.rows, true.cols, true.valid_rows, true.valid_cols):
        raise _legality(f"the predicate's logical shape {pred.logical} is not the true source's "
                        f"(TileLogicalShapeMatch)")
    if (true.valid_rows, true.valid_cols, true.cols) != (*valid, cols):
        raise _legality(f"the true source (valid {true.valid_rows}x{true.valid_cols}, {true.cols} columns) does not "
                        f"match LB1 x LB0 = {valid[0]}x{valid[1]}, LB2 = {cols}")
    effective = enc.DATATYPES[block.datr["datatype"]] if block.datr is not None else bstart
    mask = enc.PE_MASKS[block.bindings[-1].pemode]
    scalar = regs[enc.GPRS[ior.get("rs0", 0)]] if form.scalar else 0
    dt = SPEC_DTYPES.get(effective)
    if dt is None:  # sized in its type, then no source (all of modelled types) matches it
        _allocation_shape(tiles, set(), hand, size, cols, UNMODELLED_BITS[effective], effective, valid, mask,
                          _used(tiles), capacity)
        raise _legality(f"the destination is {effective} (B.DATR's DataType), the sources are not")
    lead = np.broadcast_shapes(pred.data.shape[:-2], *(d.data.shape[:-2] for d in data), np.shape(scalar))
    slot, dst, _ = _allocate(tiles, set(), hand, size, cols, dt, valid, mask, _used(tiles), capacity, lead)
    if dt != true.dtype:
        raise _legality(f"the destination is {effective}, the sources {true.dtype}: {block.op} takes one type")
    if true.cols % 8:  # as _commit_compare: ptofuzz's predicate bytes hold whole rows only
        why = f"a {true.cols}-column predicate packs several rows into a byte, which ptofuzz's tiles do not lay out"
        return BlockResult(block.op, "unsupported", reason=why)
    roles = [("mask", pred.tile), *((role, d.tile) for role, d in zip(form.sources[1:], data))]
    inputs = {"mask": pred.data, **{role: d.data for role, d in zip(form.sources[1:], data)}}
    if form.scalar:
        inputs[form.scalar] = _raw_element(scalar, dtypes.get(dt))
        roles.append((form.scalar, Tile(1, 1, 1, 1)))
    outcome = _run(oracle, Case(block.op, "spec", dt, (("dst", dst.tile), *roles)), inputs)
    dst.data[...] = outcome.outputs["dst"]
    return BlockResult(block.op, "ok", flags=tuple(outcome.flags or ()), published={slot: dst})


def _commit_generation(block: _Block, form: ClosedTepl,
                       oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome], tiles: dict[int, LocalTile],
                       regs: Mapping[str, Register], capacity: int) -> BlockResult:
    """TCI and TTRI (``generation-schema.asl``), in the order of ``tile-execution.asl``: binding completeness and
    B.IOR fields other than RegSrc0/RegSrc1 (Fault_BundleControl); the B.IOR values
    (``BundleOperationGPRBindingValuesLegal``: RegSrc1 the flag, exactly 0 or 1; TTRI's RegSrc0 the diagonal,
    SInt within -65535..65535; Fault_TileLegality); B.DATR every field zero (Fault_TileLegality); the schema (one
    terminal destination-only B.IOT, LB0 1..65535, LB2 at least LB0, TCI's LB1 absent or 1, TTRI's 1..65535; the
    operation's types); the destination (LB0..LB2 in the effective type: Fault_TileAllocation); then the spec
    oracle. Without a B.IOR: start / diagonal 0, ascending / lower."""
    _counts(block, 0, 1)
    ior = _scalar_fields(block, form)
    if block.ior is not None:
        flag = _word(regs, ior["rs1"])
        if flag not in (0, 1):
            raise _legality(f"{block.op}'s {'direction' if block.op == 'TCI' else 'orientation'} (RegSrc1 = "
                            f"{flag}) is neither 0 nor 1")
        value = regs[enc.GPRS[ior["rs0"]]]  # batched values: one start or diagonal per machine state
        if block.op == "TTRI":
            _diagonal_check(value)
    else:
        flag, value = 0, 0
    if block.datr is not None and any(block.datr.values()):
        raise _legality(f"{block.op} takes B.DATR only with every field 0")
    b = block.bindings[0]
    if len(block.bindings) != 1 or b.dest is None or b.sources or not b.last:
        raise _legality(f"{block.op} binds one destination in one B.IOT marked <last>")
    lb0, lb1, lb2 = block.lbs.get(0, 0), block.lbs.get(1), block.lbs.get(2)
    if not lb0:
        raise _legality(f"{block.op} needs LB0 = ValidCol in 1..65535")
    if lb2 is not None and lb2 < lb0:
        raise _legality(f"LB2 = {lb2} (Col) is below LB0 = {lb0} (ValidCol)")
    if lb1 is not None and (lb1 != 1 if block.op == "TCI" else lb1 == 0):
        raise _legality(f"LB1 = {lb1}: {'TCI writes one row' if block.op == 'TCI' else 'it must be 1..65535'}")
    bstart = enc.DATATYPES[block.datatype]
    if bstart not in form.accepts:
        raise _legality(f"{block.op} does not take {bstart}")
    valid, cols = (lb1 or 1, lb0), lb2 or lb0
    effective = enc.DATATYPES[block.datr["datatype"]] if block.datr is not None else bstart
    mask = enc.PE_MASKS[b.pemode]
    hand, size = b.dest
    dt = SPEC_DTYPES.get(effective)
    if dt is None:  # a B.DATR's DataType 0: an FP64 destination, sized, then not the operation's type
        _allocation_shape(tiles, set(), hand, size, cols, UNMODELLED_BITS[effective], effective, valid, mask,
                          _used(tiles), capacity)
        raise _legality(f"the destination is {effective} (B.DATR's DataType), which {block.op} does not take")
    from ptofuzz.oracles import generation

    name = generation.START if block.op == "TCI" else generation.DIAGONAL
    width = dtypes.get(dt).bits if block.op == "TCI" else 64
    raw = np.asarray(value, dtype=np.uint64) & np.uint64((1 << width) - 1)
    values = raw.astype(np.int64) if block.op == "TCI" else raw.view(np.int64)  # the start's bits, SInt(diagonal)
    slot, dst, _ = _allocate(tiles, set(), hand, size, cols, dt, valid, mask, _used(tiles), capacity, values.shape)
    flag_param = generation.DESCENDING if block.op == "TCI" else generation.UPPER
    if values.ndim:  # batched: each state's value as the oracle's per-item input, the destination stacked
        case = Case(block.op, "spec", dt, (("dst", dst.tile),), ((flag_param, flag),))
        outcome = _run(oracle, case, {name: values.reshape(-1, 1, 1)})
    else:
        case = Case(block.op, "spec", dt, (("dst", dst.tile),), ((flag_param, flag), (name, int(values))))
        outcome = _run(oracle, case, {})
    dst.data[...] = outcome.outputs["dst"]
    return BlockResult(block.op, "ok", flags=tuple(outcome.flags or ()), published={slot: dst})


def _reduce_expand_header(block: _Block, form: ClosedTepl, sources: int) -> tuple[list[int], tuple[int, int]]:
    """The checks the reductions and expansions share, in the order of ``tile-execution.asl``: binding
    completeness and B.IOR fields (Fault_BundleControl: they read no register); B.DATR PadValue only
    (TileOperationDATRFieldsLegal, Fault_TileLegality); then the closed schema's start (Fault_TileLegality: no
    B.IOR at all, one B.IOT marked <last> binding the sources and the destination, LB0 1..65535 and LB1, LB2
    nonzero when present, the BSTART type one of TileVecArithmeticDataTypeSupported). The sources and the
    destination's hand and SizeCode."""
    srcs, ((hand, size),) = _counts(block, sources, 1)
    _scalar_fields(block, form)
    if block.datr is not None:
        bad = [k for k, v in block.datr.items() if v and k != "pad"]
        if bad:
            raise _legality(f"{block.op} takes only PadValue in B.DATR; {', '.join(bad)} nonzero")
    if block.ior is not None:
        raise _legality(f"{block.op} takes no B.IOR, not even an all-zero one")
    b = block.bindings[0]
    if len(block.bindings) != 1 or b.dest is None or len(b.sources) != sources or not b.last:
        raise _legality(f"{block.op} binds its source{'s' if sources > 1 else ''} and destination in one B.IOT "
                        f"marked <last>; the block has {len(block.bindings)} bindings")
    _closed_dims(block)
    if enc.DATATYPES[block.datatype] not in form.accepts:
        raise _legality(f"{block.op} does not take {enc.DATATYPES[block.datatype]}")
    return srcs, (hand, size)


def _lb_shape(block: _Block) -> tuple[int, int, int]:
    """(ValidRow, ValidCol, Col) the LBs give (LB1 default 1, LB2 default LB0)."""
    return block.lbs.get(1, 1), block.lbs[0], block.lbs.get(2, block.lbs[0])


def _commit_reduction(block: _Block, form: ClosedTepl, oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome],
                      tiles: dict[int, LocalTile], capacity: int) -> BlockResult:
    """TROW/TCOL SUM, PROD, MAX, MIN, ARGMAX, ARGMIN (``SelectedBundleClosedReductionSchemaLegal``,
    ``reduction-schema.asl``): :func:`_reduce_expand_header`; the source a legal numeric tile of the BSTART type
    whose valid region and columns are LB1 x LB0 and LB2; then the destination
    (``ResolveBundleTileDestinationsForOperation``: a row reduction's valid rows x 1 of one column, a column
    reduction's 1 x valid columns of the source's columns; of the source's type, an arg reduction's U32, whatever
    a B.DATR says; its rows from TSize: Fault_TileAllocation); then the spec oracle (its own legality, then the
    values). A B.DATR's PadValue (the elements outside the valid region) is not modelled."""
    (k,), (hand, size) = _reduce_expand_header(block, form, 1)
    bstart = enc.DATATYPES[block.datatype]
    src = _numeric_source(tiles, k, bstart)
    if (src.valid_rows, src.valid_cols, src.cols) != _lb_shape(block):
        lbs = _lb_shape(block)
        raise _legality(f"the source (valid {src.valid_rows}x{src.valid_cols}, {src.cols} columns) does not match "
                        f"LB1 x LB0 = {lbs[0]}x{lbs[1]}, LB2 = {lbs[2]}")
    row = block.op.startswith("TROW")
    arg = "ARG" in block.op
    valid, cols = ((src.valid_rows, 1), 1) if row else ((1, src.valid_cols), src.cols)
    dt = INDEX_DTYPE if arg else src.dtype
    mask = enc.PE_MASKS[block.bindings[0].pemode]
    slot, dst, _ = _allocate(tiles, set(), hand, size, cols, dt, valid, mask, _used(tiles), capacity,
                             src.data.shape[:-2])
    role = "dst_idx" if arg else "dst"
    # the arg oracle's value role (its value + index form, which pto-spec has not) is left unwritten
    extra = (("dst", dst.tile),) if arg else ()
    case = Case(block.op, "spec", src.dtype, ((role, dst.tile), ("src", src.tile), *extra),
                (("idx", INDEX_DTYPE),) if arg else ())
    outcome = _run(oracle, case, {"src": src.data})
    dst.data[...] = outcome.outputs[role]
    return BlockResult(block.op, "ok", flags=tuple(outcome.flags or ()), published={slot: dst})


def _commit_expansion(block: _Block, form: ClosedTepl, oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome],
                      tiles: dict[int, LocalTile], capacity: int) -> BlockResult:
    """TROWEXPAND, TCOLEXPAND and their arithmetic forms (``SelectedBundleClosedExpansionSchemaLegal``,
    ``expansion-schema.asl``): :func:`_reduce_expand_header`; the broadcast source (a copy's only source, else the
    second) a legal numeric tile of the BSTART type shaped as ``SelectedBundleExpansionBroadcastShapeMatches``
    wants (a row expansion's LB1 valid rows by one valid and one physical column, a column expansion's one valid
    row of LB0 valid and LB2 physical columns); an arithmetic expansion's full-shape source (the first) a legal
    numeric tile of the BSTART type matching LB1 x LB0 and LB2; then the destination (LB0..LB2 in the effective
    type, B.DATR's DataType when a B.DATR is present: Fault_TileAllocation); then the spec oracle (its own
    legality, TileOperandsLegal_ExecuteTileExpand: the full-shape source's physical rows the destination's, one
    type for all tiles, Fault_TileLegality; then the values)."""
    copy = len(form.sources) == 1
    srcs, (hand, size) = _reduce_expand_header(block, form, len(form.sources))
    bstart = enc.DATATYPES[block.datatype]
    vr, vc, cols = _lb_shape(block)
    row = block.op.startswith("TROW")
    broadcast = _numeric_source(tiles, srcs[-1], bstart)
    want = (vr, 1, 1) if row else (1, vc, cols)
    if (broadcast.valid_rows, broadcast.valid_cols, broadcast.cols) != want:
        raise _legality(f"the broadcast source (valid {broadcast.valid_rows}x{broadcast.valid_cols}, "
                        f"{broadcast.cols} columns) is not valid {want[0]}x{want[1]} of {want[2]} columns, as "
                        f"LB1 = {vr}, LB0 = {vc}, LB2 = {cols} want of a {'row' if row else 'column'} expansion")
    sources = [broadcast]
    if not copy:
        full = _numeric_source(tiles, srcs[0], bstart)
        if (full.valid_rows, full.valid_cols, full.cols) != (vr, vc, cols):
            raise _legality(f"the full-shape source (valid {full.valid_rows}x{full.valid_cols}, {full.cols} "
                            f"columns) does not match LB1 x LB0 = {vr}x{vc}, LB2 = {cols}")
        sources = [full, broadcast]
    effective = enc.DATATYPES[block.datr["datatype"]] if block.datr is not None else bstart
    mask = enc.PE_MASKS[block.bindings[0].pemode]
    dt = SPEC_DTYPES.get(effective)
    if dt is None:  # a B.DATR's DataType 0: an FP64 destination, sized, then not the sources' type
        _allocation_shape(tiles, set(), hand, size, cols, UNMODELLED_BITS[effective], effective, (vr, vc), mask,
                          _used(tiles), capacity)
        raise _legality(f"the destination is {effective} (B.DATR's DataType), the sources {bstart}: "
                        f"{block.op} takes one type (TileOperandsLegal_ExecuteTileExpand)")
    lead = np.broadcast_shapes(*(s.data.shape[:-2] for s in sources))
    slot, dst, _ = _allocate(tiles, set(), hand, size, cols, dt, (vr, vc), mask, _used(tiles), capacity, lead)
    roles = list(zip(form.sources, sources))
    case = Case(block.op, "spec", dt, (("dst", dst.tile), *((r, s.tile) for r, s in roles)))
    outcome = _run(oracle, case, {r: s.data for r, s in roles})
    dst.data[...] = outcome.outputs["dst"]
    return BlockResult(block.op, "ok", flags=tuple(outcome.flags or ()), published={slot: dst})


def _diagonal_check(value: Register) -> None:
    """``BundleOperationGPRBindingValuesLegal`` of TTRI's RegSrc0: SInt within -65535..65535. Batched values
    (one per machine state) must all pass or all fail: one block has one fault."""
    diagonals = (np.asarray(value, dtype=np.uint64).reshape(-1)).view(np.int64)
    outside = (diagonals < -65535) | (diagonals > 65535)
    if outside.any() and not outside.all():
        raise ValueError("batched TTRI diagonals both inside and outside -65535..65535: one block has one fault")
    if outside.all():
        raise _legality(f"TTRI's diagonal {int(diagonals[0])} is outside -65535..65535")


def _generic_shape(block: _Block, tiles: Mapping[int, LocalTile], first: int) -> tuple[tuple[int, int], int]:
    """The destination's (ValidRow, ValidCol) and Col when no closed schema shapes it
    (``BundleDestinationValidRows`` / ``ValidColumns`` / ``PhysicalColumns`` of ``destination-shape.asl``): an LB
    of 1..65535, else the first bound source's descriptor (``first``; an unallocated one has none), else 1 (Col:
    the resolved ValidCol without a source)."""
    src = tiles.get(first)
    rows = block.lbs.get(1) or (src.valid_rows if src is not None else 1)
    valid_cols = block.lbs.get(0) or (src.valid_cols if src is not None else 1)
    cols = block.lbs.get(2) or (src.cols if src is not None else block.lbs.get(0) or 1)
    return (rows, valid_cols), cols


def _two_sources(block: _Block, tiles: dict[int, LocalTile], capacity: int, binding: tuple[int, int],
                 a: LocalTile, b: LocalTile, dt: str, cols: int, valid: tuple[int, int],
                 params: tuple[tuple[str, Any], ...], oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome]
                 ) -> BlockResult:
    """The end of a two-source, one-destination commit (TMRGSORT, TPART*): allocate the destination (``binding``:
    its hand and size), run ``oracle`` on the case the tiles make, publish the result."""
    hand, size = binding
    lead = np.broadcast_shapes(a.data.shape[:-2], b.data.shape[:-2])
    slot, dst, _ = _allocate(tiles, set(), hand, size, cols, dt, valid, enc.PE_MASKS[block.bindings[0].pemode],
                             _used(tiles), capacity, lead)  # then the destination
    case = Case(block.op, "spec", dt, (("dst", dst.tile), ("src0", a.tile), ("src1", b.tile)), params)
    outcome = _run(oracle, case, {"src0": a.data, "src1": b.data})
    dst.data[...] = outcome.outputs["dst"]
    return BlockResult(block.op, "ok", flags=tuple(outcome.flags or ()), published={slot: dst})


def _run(oracle: Callable[[Case, Mapping[str, np.ndarray]], Outcome], case: Case, inputs: Mapping[str, np.ndarray]
         ) -> Outcome:
    """``oracle``'s outcome of a commit; a fault it reports is the block's fault."""
    outcome = oracle(case, inputs)
    if outcome.kind is not OutcomeKind.OK:
        assert outcome.fault is not None
        raise _Fault(outcome.fault.name, outcome.fault.trap, outcome.fault.reason)
    return outcome


def describe(result: ExecResult) -> dict[str, Any]:
    """JSON-ready summary: outcome, fault (name, trap, reason, word), flags and the published tiles."""
    d: dict[str, Any] = {"outcome": result.outcome}
    if result.fault is not None:
        d["fault"] = {"name": result.fault.name, "trap": result.fault.trap, "reason": result.fault.reason,
                      "point": result.fault.point, "word": result.word}
    d["blocks"] = [{"op": b.op, "kind": b.kind, "flags": list(b.flags),
                    "published": {enc.tile_name(i): {"dtype": t.dtype, "shape": [t.rows, t.cols],
                                                     "valid": [t.valid_rows, t.valid_cols]}
                                  for i, t in sorted(b.published.items())}} for b in result.blocks]
    return d
