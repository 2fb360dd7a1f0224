"""pto-spec's own executable model as an oracle: ``aslref``.

ASLRef (the ASL reference interpreter) runs pto-spec's assembled model (``pto-spec.asl``) on spec cases, so that
ptofuzz's ``spec`` model is judged by the ASL it was written from. A batch of cases becomes one ASL ``main()``,
run once: each case is its PTO bundle (:func:`ptofuzz.generators.bundle.bundle_for`) fed word by word to the
model's command decoder (``ExecuteCommandInstruction``) on source tiles and registers set up as the bundle expects,
so that decode, header and commit checks, allocation, legality, values and status flags are all the model's. The
output lines say, per case, the fault (name, trap, word) or the flags and each destination tile (descriptor and
every element's raw bits, ``-`` where the model leaves it undefined).

What the model is not an oracle for: pto-spec's reference profile computes floating-point add, subtract and
multiply, and floating-point conversions, on the raw encodings (placeholders; their IEEE contract is a separate
profile). Those values are "not judged by aslref": their elements come back free (UNDEFINED) and the outcome says
so in ``extra``; legality and faults of those cases are still judged. Everything else is compared bit for bit.

Where the interpreter and the model are: ``AslrefSettings`` (``PTO_ASLREF`` and ``PTO_SPEC_ASL`` when not given);
none by default. A run costs about 3.5 s to load the model, then 0.2 to 0.4 s a case of up to 256 elements a
tile (64x64: about 3 s: the interpreter's arrays are lists), so the backend is *pooled*: a campaign hands it the
cases of several batches at once (``AslrefSettings.pool``), of small tiles (campaign.ASLREF_MAX_ELEMENTS).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.backends.base import ASLREF, Plain
from ptofuzz.core import dtypes
from ptofuzz.core.case import COMMIT, EXACT, UNDEFINED, Case, Fault, Outcome, OutcomeKind, at_word
from ptofuzz.core.errors import UsageError

if TYPE_CHECKING:
    from ptofuzz.generators.bundle import BundleCase
    from ptofuzz.instructions.registry import Instruction

INTERPRETER_ENV = "PTO_ASLREF"  # the aslref executable
MODEL_ENV = "PTO_SPEC_ASL"  # pto-spec's assembled model, pto-spec.asl

#: operations whose floating-point values pto-spec's reference profile leaves as placeholders
FLOAT_PLACEHOLDERS = frozenset({
    "TADD", "TSUB", "TMUL", "TADDS", "TSUBS", "TMULS", "TLRELU", "TPARTADD", "TPARTMUL",
    "TROWSUM", "TCOLSUM", "TROWPROD", "TCOLPROD", "TPAIRREDUCESUM",
    "TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL", "TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL",
})
FLAG_NAMES = ("NV", "DZ", "OF", "UF", "NX")  # NumericStatusFlags() bit 0 upwards (CORE_STATE[36:32])
PRINTED = (0, 16)  # the tile registers a bundle publishes its destinations in (backends.bundle.destinations)


def not_judged(case: Case) -> str | None:
    """Why aslref does not judge ``case``'s values (legality and faults it still judges), or None."""
    dt = dtypes.get(case.dtype)
    if case.op in FLOAT_PLACEHOLDERS and dt.is_float:
        return f"pto-spec's reference profile computes {dt.name} {case.op} on raw encodings (a placeholder)"
    if case.op == "TCVT" and (dt.is_float or dtypes.get(case.param("to") or case.dtype).is_float):
        return "pto-spec's reference profile leaves floating-point conversions as placeholders"
    return None


@dataclasses.dataclass(frozen=True)
class AslrefSettings:
    """Where the interpreter and the model are (``None``: from ``PTO_ASLREF`` / ``PTO_SPEC_ASL``), and how long
    one run may take."""

    interpreter: str | None = None
    model: str | None = None
    timeout: float = 3600.0
    pool: int = 64  # cases a campaign hands over in one run, at least (the model loads in about 3.5 s)

    def paths(self) -> tuple[Path, Path]:
        """The interpreter and the model, checked (a one-line UsageError naming the fix)."""
        interp = self.interpreter or os.environ.get(INTERPRETER_ENV)
        model = self.model or os.environ.get(MODEL_ENV)
        if not interp or not model:
            raise UsageError(f"the aslref oracle needs ASLRef and pto-spec's model: set {INTERPRETER_ENV} to the "
                             f"aslref executable and {MODEL_ENV} to pto-spec.asl (or give --aslref and --spec-asl)")
        for path, what, given in ((Path(interp), "aslref executable",
                                   f"--aslref {interp}" if self.interpreter else f"{INTERPRETER_ENV}={interp}"),
                                  (Path(model), "pto-spec model",
                                   f"--spec-asl {model}" if self.model else f"{MODEL_ENV}={model}")):
            if not path.is_file():
                raise UsageError(f"{given}: no {what} there; point it at the file")
        return Path(interp), Path(model)


# ASL run before the cases: the state a case needs (the model's full ResetProfileState costs ~17 s and sets
# nothing these cases read beyond what is set here), a reset between cases, and the printers
PRELUDE = """
func PtofuzzInit()
begin
    _SystemRegisters.tile_capacity = Zeros{PTO_XLEN} + PTO_MODEL_MAX_TILE_CAPACITY_BYTES;
    _SystemRegisters.version = Zeros{PTO_XLEN} + 1;
    _CurrentACR = 0;
    ResetBundleControlState();
    ClearFault();
end;

func PtofuzzCaseReset()
begin
    _PC = Zeros{PTO_XLEN};
    _BPC = Zeros{PTO_XLEN};
    _SystemRegisters.core_state = Zeros{PTO_XLEN};
end;

func PtofuzzRelease(t: TileIndex)
begin
    if _Tiles[[t]].allocated then ReleaseTile(t); end;
end;

func PtofuzzPrintTile(t: TileIndex)
begin
    let tile = _Tiles[[t]];
    println "D ", t, " ", tile.rows, " ", tile.columns, " ", tile.valid_rows, " ", tile.valid_columns, " ",
        tile.storage_kind;
    if tile.storage_kind == TileStorage_Predicate then
        print "P";
        for b = 0 to ((tile.rows * tile.columns + 7) DIVRM 8) - 1 do
            print " ", UInt(ReadTilePredicateByte(t, b as integer {0..2047}));
        end;
        println "";
    else
        for r = 0 to tile.rows - 1 do
            print "R";
            for c = 0 to tile.columns - 1 do
                let rr = r as integer {0..65535};
                let cc = c as integer {0..65535};
                if TileElementDefined(t, rr, cc) then print " ", UInt(ReadTileElement(t, rr, cc));
                else print " -"; end;
            end;
            println "";
        end;
    end;
end;

func PtofuzzFault(k: integer)
begin
    println "F ", k, " ", _LastFault, " ", UInt(_ACRTrapNumber[[CurrentACR()]]);
    ResetBundleControlState();  // a fault leaves a block open (a committed bundle closes its own)
    ClearFault();
    _CurrentACR = 0;
end;
"""


def _carrier(value: int, dt: dtypes.DType) -> str:
    """An element's raw bits as the model carries them: a signed integer sign-extended to 64 bits."""
    v = int(value) & ((1 << dt.bits) - 1)
    if dt.kind == "int" and v >> (dt.bits - 1):
        v -= 1 << dt.bits
    return f"Zeros{{64}} + 0x{v & (2**64 - 1):x}"


def case_source(name: str, b: BundleCase) -> str:
    """One case as an ASL function: its tiles and registers set up, its words executed, its result printed, then
    the tiles and registers it used released and cleared (cheaper than clearing all 64 tiles and every PE's
    registers before each case: reading a tile's descriptor copies its storage)."""
    from ptofuzz.bundle import encoding

    lines = [f"func {name}()", "begin", "    PtofuzzCaseReset();"]
    for slot, lt in sorted(b.tiles.items()):
        data = np.asarray(lt.data)
        if lt.logical is not None:  # a predicate source: the data tile's logical shape, one bit an element
            rows, cols, vr, vc = lt.logical
            # pto-spec's model wants a byte an element of a predicate (defect aslref-predicate-capacity-per-
            # element); its prose, ceil(Row*Col/8) bytes at least: a capacity of both keeps the source legal
            cap = max(128, 1 << (rows * cols - 1).bit_length())
            lines.append(f"    ConfigurePredicateTileForMask({slot}, {cap}, {rows}, {cols}, {vr}, {vc}, '{lt.mask}');")
            bits = np.unpackbits(data[:vr].astype(np.uint8), axis=1, bitorder="little")[:, :vc]
            lines += [f"    WriteTilePredicateBit({slot}, {r}, {c}, {'TRUE' if bits[r, c] else 'FALSE'});"
                      for r in range(vr) for c in range(vc)]
            continue
        dt = dtypes.get(lt.dtype)
        lines.append(f"    ConfigureTileForMask({slot}, {lt.rows * lt.cols * dt.bits // 8}, {lt.rows}, {lt.cols}, "
                     f"{lt.valid_rows}, {lt.valid_cols}, TileDataType_{dt.spec_name}, TileLayout_RowMajor, "
                     f"TileLocation_Any, '{lt.mask}');")
        lines += [f"    WriteTileElement({slot}, {r}, {c}, {_carrier(data[r, c], dt)});"
                  for r in range(lt.rows) for c in range(lt.cols)]
    codes = [c for c in (encoding.GPR_CODES[reg] for reg in b.gprs) if c]
    for reg, value in b.gprs.items():
        code = encoding.GPR_CODES[reg]
        if code:  # every PE reads its own copy
            lines += [f"    WritePEGPR({pe}, {code}, Zeros{{64}} + 0x{int(value) & (2**64 - 1):x});" for pe in range(4)]
    lines.append(f"    {name}Body();")
    lines += [f"    PtofuzzRelease({t});" for t in sorted({*b.tiles, *PRINTED})]
    lines += [f"    WritePEGPR({pe}, {code}, Zeros{{64}});" for code in codes for pe in range(4)]
    lines.append("end;")
    body = [f"func {name}Body()", "begin"]
    for k, w in enumerate(b.words):
        body += [f"    if ExecuteCommandInstruction(Zeros{{64}} + 0x{w:08x}, 32) != CommandExecution_Executed then",
                 f"        PtofuzzFault({k});", "        return;", "    end;"]
    body += ['    println "OK ", UInt(NumericStatusFlags());',
             *(f"    if _Tiles[[{t}]].allocated then PtofuzzPrintTile({t}); end;" for t in PRINTED), "end;"]
    return "\n".join(body + [""] + lines)


def program(bundles: Sequence[BundleCase]) -> str:
    """The whole ASL source: the prelude, one function a case, and ``main()`` running them in order."""
    body = ["func main() => integer", "begin", "    PtofuzzInit();"]
    for k in range(len(bundles)):
        body += [f'    println "C {k}";', f"    PtofuzzCase{k}();"]
    body += ['    println "END";', "    return 0;", "end;"]
    return "\n\n".join([PRELUDE, *(case_source(f"PtofuzzCase{k}", b) for k, b in enumerate(bundles)),
                        "\n".join(body)]) + "\n"


@dataclasses.dataclass
class PrintedTile:
    """One destination as the model printed it: its descriptor, then its elements (None: undefined) or, for a
    predicate tile, its bytes (one bit an element, row-major)."""

    rows: int
    cols: int
    valid_rows: int
    valid_cols: int
    predicate: bool
    elements: list[list[int | None]] = dataclasses.field(default_factory=list)
    packed: list[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Printed:
    """What the model printed for one case."""

    fault: tuple[int, str, int] | None = None  # (word index, fault name, trap)
    flags: int | None = None
    tiles: dict[int, PrintedTile] = dataclasses.field(default_factory=dict)  # by tile register
    done: bool = False


def parse(text: str) -> dict[int, Printed]:
    """The cases' printed results by index (a case that did not finish is absent or not ``done``)."""
    out: dict[int, Printed] = {}
    cur: Printed | None = None
    slot = -1
    for line in text.splitlines():
        head, _, rest = line.partition(" ")
        if head == "C":
            if cur is not None:
                cur.done = True
            cur = out.setdefault(int(rest), Printed())
        elif cur is None:
            continue
        elif head == "F":
            k, name, trap = rest.split()
            cur.fault = (int(k), name, int(trap))
        elif head == "OK":
            cur.flags = int(rest)
        elif head == "D":
            f = rest.split()
            slot = int(f[0])
            cur.tiles[slot] = PrintedTile(int(f[1]), int(f[2]), int(f[3]), int(f[4]), f[5] == "TileStorage_Predicate")
        elif head == "R":
            cur.tiles[slot].elements.append([None if x == "-" else int(x) for x in rest.split()])
        elif head == "P":
            cur.tiles[slot].packed = [int(x) for x in rest.split()]
        elif line == "END" and cur is not None:
            cur.done = True
    return out


def run_program(source: str, settings: AslrefSettings) -> tuple[str, str]:
    """Run ``source`` through the model: its stdout (a crash ends it early: the caller sees which case) and why it
    stopped early ('' when it did not: the model's assertion and its line otherwise)."""
    import resource
    import subprocess

    interp, model = settings.paths()

    def unlimited_stack() -> None:  # the interpreter recurses deeply on the model
        resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    with tempfile.TemporaryDirectory(prefix="ptofuzz-aslref-") as tmp:
        main = Path(tmp) / "main.asl"
        main.write_text(source)
        try:
            res = subprocess.run([str(interp), str(model), str(main)], capture_output=True, text=True,
                                 timeout=settings.timeout, preexec_fn=unlimited_stack, check=False)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            return out, f"no answer within {settings.timeout:g} s"
    if res.returncode != 0 and "C 0" not in res.stdout:  # the program itself is wrong: a bug here
        raise RuntimeError(f"aslref refused the program (exit {res.returncode}): "
                           f"{res.stderr.strip().splitlines()[-1:] or ['no message']}")
    if res.returncode == 0:
        return res.stdout, ""
    where = [ln.strip() for ln in res.stderr.splitlines() if ln.startswith("File ") and "pto-spec" in ln][-1:]
    error = [ln.strip() for ln in res.stderr.splitlines() if "error" in ln.lower()][-1:] or ["exit " +
                                                                                          str(res.returncode)]
    return res.stdout, " ".join(error + [w.split("/")[-1] for w in where])


def unreachable(case: Case) -> str:
    """Why pto-spec's state cannot hold ``case``'s sources ('' when it can): no command makes a tile of no valid
    rows, and the five generic bitwise operations (defect aslref-generic-bitwise-no-lb0) take their destination's
    shape from such a source, on which the model stops (assert rows > 0) rather than fault."""
    from ptofuzz.instructions.defects import GENERIC_BITWISE

    if case.op in GENERIC_BITWISE and any(t.valid_rows == 0 for r, t in case.tiles if r != "dst"):
        return "no pto-spec command makes a source of no valid rows (the model asserts on one)"
    return ""


def _fault(words: list[int], k: int, name: str, trap: int) -> Fault:
    """The model's fault as ptofuzz names its point: raised by a BSTART or BSTOP that commits an open block (and no
    decode fault of that word), it is the commit's; else it is the word's."""
    from ptofuzz.bundle import encoding

    open_block = False
    for w in words[:k]:
        kind = encoding.decode(w).kind
        if kind in ("BSTART", "BSTOP"):
            open_block = kind == "BSTART"
    commit = False
    if open_block and name != "Fault_IllegalInstruction":
        try:
            commit = encoding.decode(words[k]).kind in ("BSTART", "BSTOP")
        except encoding.DecodeError:
            commit = False
    return Fault(name, trap, f"pto-spec's model: {name}", COMMIT if commit else at_word(k))


def outcome(case: Case, b: BundleCase, printed: Printed | None) -> Outcome:
    """The Outcome of one case from what the model printed (roles and shapes as the bundle oracle gives them)."""
    from ptofuzz.backends.bundle import destinations, unwritten
    from ptofuzz.instructions import registry

    if printed is None or not printed.done:
        return Outcome(OutcomeKind.CRASH, reason="aslref stopped before this case finished (an assert in the model)")
    if printed.fault is not None:
        f = _fault(b.words, *printed.fault)
        return Outcome(OutcomeKind.FAULT, fault=f, reason=f.reason)
    if not printed.tiles:
        return Outcome(OutcomeKind.OK, reason="noop", flags=_flags(printed.flags))
    why = not_judged(case)
    inst = registry.get(case.op)
    outputs, classes = unwritten(case)
    for role, slot, t in destinations(case):
        got = printed.tiles.get(slot)
        if got is None:
            return Outcome.unsupported(f"the model published no {role}")
        rows, cols, vr, vc = got.rows, got.cols, got.valid_rows, got.valid_cols
        shape = case.tile(role).shape if got.predicate else t.shape
        dt = inst.dtype_of(case, role)
        out = np.zeros(shape, dtype=np.uint8 if got.predicate else dt.bits_dtype)
        cls = np.full(shape, UNDEFINED, dtype=np.uint8)
        r, c = min(rows, shape[0]), min(cols, shape[1])
        if got.predicate:  # the model's predicate: one bit an element in row-major order; ptofuzz's: Col/8 bytes a row
            flat = np.unpackbits(np.asarray(got.packed, dtype=np.uint8), bitorder="little")[:rows * cols]
            packed = np.packbits(flat.reshape(rows, cols)[:, :shape[1] * 8], axis=1, bitorder="little")
            out[:r, :packed.shape[1]] = packed[:r]
            cls[:vr, :-(-vc // 8)] = EXACT
        else:
            mask = (1 << dt.bits) - 1  # the carrier of a signed element is sign-extended
            grid = [row[:c] for row in got.elements[:r]]
            known = np.array([[v is not None for v in row] for row in grid], dtype=np.bool_).reshape(r, c)
            out[:r, :c] = np.array([[(v or 0) & mask for v in row] for row in grid], dtype=np.uint64).reshape(r, c)
            cls[:r, :c] = np.where(known, EXACT, UNDEFINED)
        if why is not None:
            cls[:] = UNDEFINED
        outputs[role], classes[role] = out, cls
    extra = {ASLREF: f"values not judged by aslref: {why}"} if why is not None else {}
    return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes, flags=None if why else _flags(printed.flags),
                   extra=extra)


def _flags(bits: int | None) -> tuple[str, ...] | None:
    if bits is None:
        return None
    return tuple(n for k, n in enumerate(FLAG_NAMES) if bits >> k & 1)


def evaluate_many(items: Sequence[tuple[Case, Mapping[str, np.ndarray]]], settings: AslrefSettings) -> list[Outcome]:
    """Each (spec case, inputs) through the model, in one run (again from the case after a crash)."""
    from ptofuzz.backends.bundle import spelled

    outs: list[Outcome | None] = [None] * len(items)
    bundles: list[tuple[int, BundleCase]] = []
    for k, (case, inputs) in enumerate(items):
        b = unreachable(case) or spelled(case, inputs)
        if isinstance(b, str):
            outs[k] = Outcome.unsupported(b)
        else:
            bundles.append((k, b))
    while bundles:
        text, stopped = run_program(program([b for _, b in bundles]), settings)
        printed = parse(text)
        rest: list[tuple[int, BundleCase]] = []
        for j, (k, b) in enumerate(bundles):
            p = printed.get(j)
            if p is not None and p.done:
                outs[k] = outcome(items[k][0], b, p)
            else:  # the case it died on: the rest run again in a new process
                outs[k] = Outcome(OutcomeKind.CRASH, reason=f"pto-spec's model stopped on this case: {stopped}")
                rest = bundles[j + 1:]
                break
        bundles = rest
    return [o if o is not None else Outcome(OutcomeKind.CRASH, reason="aslref gave no result") for o in outs]


def _items(inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]
           ) -> tuple[int | None, list[tuple[Case, dict[str, np.ndarray]]]]:
    """A stacked batch (a leading axis on the tile inputs and on a batch parameter's values, shape (n, 1, 1): TCI's
    start) as its plain items; (None, [the case]) when plain."""
    tiles = {role for role, _ in case.tiles}
    n = next((np.shape(a)[0] for r, a in inputs.items() if (r in tiles or r in inst.batch_params) and np.ndim(a) == 3),
             None)
    if n is None:
        return None, [(case, dict(inputs))]
    return n, [inst.item(case, {r: np.asarray(a)[k] for r, a in inputs.items()}) for k in range(n)]


def _stack(outs: Iterable[Outcome]) -> Outcome:
    """One outcome for a stacked batch of one geometry: its items' outputs stacked, flags of any item."""
    outs = list(outs)
    bad = next((o for o in outs if o.kind is not OutcomeKind.OK), None)
    if bad is not None:
        return bad
    flags = None if any(o.flags is None for o in outs) else tuple(
        n for n in FLAG_NAMES if any(n in (o.flags or ()) for o in outs))
    return Outcome(OutcomeKind.OK, outputs={r: np.stack([o.outputs[r] for o in outs]) for r in outs[0].outputs},
                   classes={r: np.stack([o.classes[r] for o in outs]) for r in outs[0].classes}, flags=flags,
                   extra=outs[0].extra)


@dataclasses.dataclass(frozen=True)
class AslrefBackend(Plain):
    """pto-spec's executable model, on spec cases of the instructions that have a bundle spelling."""

    settings: AslrefSettings = dataclasses.field(default_factory=AslrefSettings)
    name: str = ASLREF
    platform: str = "spec"

    def cannot_answer(self, inst: Instruction) -> str | None:
        if not inst.bundle:
            return f"{inst.name} has no bundle spelling, which is how the aslref oracle runs a case"
        try:
            self.settings.paths()
        except UsageError as e:
            return str(e)
        return None

    def evaluate(self, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        return self.evaluate_all(inst, [(case, inputs)])[0]

    def evaluate_all(self, inst: Instruction, items: Sequence[tuple[Case, Mapping[str, np.ndarray]]]
                     ) -> list[Outcome]:
        """Each (case, inputs) (stacked batches too) in one interpreter run: the model loads once."""
        split = [_items(inst, case, inputs) for case, inputs in items]
        outs = iter(evaluate_many([one for _, ones in split for one in ones], self.settings))
        return [next(outs) if n is None else _stack([next(outs) for _ in range(n)]) for n, _ in split]

    @property
    def pool(self) -> int:
        return self.settings.pool

    def flags(self) -> str:
        """``--aslref`` / ``--spec-asl`` when given (not from the environment)."""
        import shlex

        return " ".join(f"{flag} {shlex.quote(v)}" for flag, v in (("--aslref", self.settings.interpreter),
                                                                    ("--spec-asl", self.settings.model)) if v)

    def provenance(self) -> dict[str, Any]:
        interp, model = self.settings.paths()
        return {"aslref": str(interp), "model": str(model)}


