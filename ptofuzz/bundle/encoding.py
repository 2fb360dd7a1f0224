"""The 32-bit command words of PTO bundles (pto-spec 0.58.3: the forms of ``spec/catalog/command-forms.json``, the
TEPL selectors of ``spec/catalog/tile-operations.json``, the DataType codes of
``asl/arch/data-types/tile-data-types.asl``, PEMode in ``asl/block/model/schema/profile-encoding.asl``): fields,
tables, :func:`encode` and :func:`decode`.

A decoded word is a :class:`Command`: its form name and a dict of field values. :func:`encode` and
:func:`decode` are exact inverses on every legal word; :func:`decode` raises :class:`DecodeError` (trap 4,
Fault_IllegalInstruction, at decode time) with the reason for an unknown word or a field outside its domain.
Bits a form neither masks nor names (8:7 of the source-only B.IOT forms) are "don't care": the model ignores
them, so they are kept in ``Command.dont_care`` to make the round trip exact. Every other accepted 32-bit form
of the 0.58.3 catalog (control-flow and TLSU/CUBE starts, B.CATR, B.FPATR, B.HINT, FENTRY, MCOPY, ...) decodes
and encodes through :mod:`ptofuzz.bundle.catalog`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ptofuzz.bundle import catalog

# ---- tables ---------------------------------------------------------------------------------------------------

DATATYPES = {0: "FP64", 1: "FP32", 2: "TF32", 3: "HF32", 4: "FP16", 5: "BF16", 6: "HiF8", 7: "E4M3", 8: "E5M2",
             9: "E3M2", 10: "E2M3", 11: "E2M1X2", 12: "E1M2X2", 13: "E8M0", 14: "HiF4X2", 16: "S64", 17: "S32",
             18: "S16", 19: "S8", 20: "S4X2", 24: "U64", 25: "U32", 26: "U16", 27: "U8", 28: "U4X2",
             31: "NONE"}
DATATYPE_CODES = {v.upper(): k for k, v in DATATYPES.items()}
BSTART_DATATYPES = frozenset(k for k in DATATYPES if k != 31)  # 31 (DTYPE_NONE): B.DATR and TMOV only

GPRS = ("zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "s0", "s1", "s2", "s3", "s4", "s5",
        "s6", "s7", "s8", "x0", "x1", "x2", "x3")  # selector 0..23; 24..31 reserved
GPR_CODES = {name: k for k, name in enumerate(GPRS)}

PE_MASKS = ("0000", "1000", "0100", "0010", "0001", "1100", "1110", "1111")  # by PEMode 0..7, PE0 first
PEMODE_OF_MASK = {m: k for k, m in enumerate(PE_MASKS)}

HANDS = ("T", "U", "M", "N")  # DstTile 0..3; a 6-bit SrcTile is hand*16 + number-1

CMODES = ("EQ", "NE", "LT", "GT", "LE", "GE")  # 6, 7 reserved
PADS = ("Zero", "Max", "Min", "Null")
RMODES = ("DEFAULT", "RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
LAYOUTS = {0: "NORM", 1: "ND2DN", 3: "ND2ZN", 4: "ND2NZ", 6: "DN2ND", 8: "DN2ZN", 9: "DN2NZ", 17: "ZN2ND",
           18: "ZN2DN", 20: "ZN2NZ", 21: "ND2M32", 22: "ND2M16", 23: "ND2N8", 24: "M322ND", 25: "M162ND",
           26: "N82ND", 27: "NZ2ND", 28: "NZ2DN", 30: "NZ2ZN"}
LAYOUT_CODES = {v: k for k, v in LAYOUTS.items()}

# The 87 accepted BSTART.TEPL selectors (Mode*32 + Function) and whether the operation runs on the SFU: 31 VEC and
# 56 SFU operations, as pto-spec's catalog (spec/catalog/tile-operations.json) and its tests have them; pto-spec's
# README still says 35 VEC / 52 SFU, which is stale (docs/reference/bundles.md)
_VEC = ("TADD TSUB TMUL TAND TOR TXOR TSHL TSHR TMAX TMIN TCMP TABS TNOT TNEG TRELU TSEL TCVT TFMA "
        "TADDS TSUBS TMULS TANDS TORS TXORS TSHLS TSHRS TMAXS TMINS TCMPS TSELS TEXPANDS").split()
SELECTORS: dict[int, str] = {
    0x00: "TADD", 0x01: "TSUB", 0x02: "TMUL", 0x03: "TDIV", 0x04: "TREM", 0x06: "TAND", 0x07: "TOR", 0x08: "TXOR",
    0x09: "TSHL", 0x0A: "TSHR", 0x0B: "TMAX", 0x0C: "TMIN", 0x0D: "TCMP", 0x0F: "TABS", 0x10: "TNOT",
    0x11: "TNEG", 0x12: "TEXP", 0x13: "TLOG", 0x14: "TRECIP", 0x15: "TSQRT", 0x16: "TRSQRT", 0x17: "TRELU",
    0x1A: "TSEL", 0x1B: "TCVT", 0x1C: "TFMA",
    0x20: "TADDS", 0x21: "TSUBS", 0x22: "TMULS", 0x23: "TDIVS", 0x24: "TREMS", 0x26: "TANDS", 0x27: "TORS",
    0x28: "TXORS", 0x29: "TSHLS", 0x2A: "TSHRS", 0x2B: "TMAXS", 0x2C: "TMINS", 0x2D: "TCMPS", 0x3A: "TSELS",
    0x3B: "TEXPANDS",
    **{0x40 + k: f"TROW{n}" for k, n in enumerate(
        "SUM MAX MIN PROD EXPAND EXPANDADD EXPANDSUB EXPANDMUL EXPANDDIV EXPANDMAX EXPANDMIN EXPANDEXPDIF "
        "ARGMAX ARGMIN".split())},
    **{0x50 + k: f"TCOL{n}" for k, n in enumerate(
        "SUM MAX MIN PROD EXPAND EXPANDADD EXPANDSUB EXPANDMUL EXPANDDIV EXPANDMAX EXPANDMIN EXPANDEXPDIF "
        "ARGMAX ARGMIN".split())},
    0x60: "TCONCAT", 0x62: "TEXTRACT", 0x63: "TINSERT", 0x64: "TIMG2COL", 0x65: "TFILLPAD", 0x66: "TCI",
    0x67: "TTRI", 0x68: "THISTOGRAM", 0x6A: "TQUANT", 0x6B: "TDEQUANT", 0x6C: "TSORT", 0x6D: "TMRGSORT",
    0x6E: "TTRANS", 0x6F: "TGATHER", 0x70: "TSCATTER", 0x71: "TPARTADD", 0x72: "TPARTMUL", 0x73: "TPARTMAX",
    0x74: "TPARTMIN",
}
SELECTOR_OF = {op: sel for sel, op in SELECTORS.items()}
ENGINE = {op: "VEC" if op in _VEC else "SFU" for op in SELECTORS.values()}
assert len(SELECTORS) == 87

BSTOP_WORD = 0x00000001


class DecodeError(ValueError):
    """A word no form accepts, or a field outside its domain: Fault_IllegalInstruction (trap 4)."""

    fault = "Fault_IllegalInstruction"
    trap = 4


# ---- forms ----------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    width: int


@dataclasses.dataclass(frozen=True)
class Form:
    name: str
    mask: int
    match: int
    fields: tuple[Field, ...]
    dont_care: int = 0  # bits neither masked nor in a field


def _f(name: str, lsb: int, width: int) -> Field:
    return Field(name, lsb, width)


FORMS: tuple[Form, ...] = (
    Form("BSTOP", 0xFFFFFFFF, 0x00000001, ()),
    Form("BSTART.TEPL", 0x000FFFFF, 0x00019181, (_f("datatype", 27, 5), _f("mode", 25, 2), _f("function", 20, 5))),
    Form("B.DIM", 0x0000607F, 0x00000043, (_f("lb", 12, 1), _f("rs", 15, 5), _f("imm_hi", 7, 5), _f("imm_lo", 20, 12))),
    Form("B.DIM", 0x0000707F, 0x00002043, (_f("rs", 15, 5), _f("imm_hi", 7, 5), _f("imm_lo", 20, 12))),
    Form("B.IOR", 0x0600707F, 0x00000013, (_f("rd", 7, 5), _f("rs0", 15, 5), _f("rs1", 20, 5), _f("rs2", 27, 5))),
    Form("B.IOS", 0xF00871FF, 0x00001013, (_f("tid", 20, 8), _f("size", 15, 4), _f("pemode", 9, 3))),
    Form("B.IOT.SS", 0x0007F07F, 0x00004013, (_f("src1", 26, 6), _f("src0", 20, 6), _f("last", 19, 1),
                                              _f("pemode", 9, 3)), dont_care=0x180),
    Form("B.IOT.SSD", 0x0000707F, 0x00004013, (_f("src1", 26, 6), _f("src0", 20, 6), _f("last", 19, 1),
                                               _f("size", 15, 4), _f("pemode", 9, 3), _f("dst", 7, 2))),
    Form("B.IOT.S", 0xFC07F07F, 0x00005013, (_f("src0", 20, 6), _f("last", 19, 1), _f("pemode", 9, 3)),
         dont_care=0x180),
    Form("B.IOT.SD", 0xFC00707F, 0x00005013, (_f("src0", 20, 6), _f("last", 19, 1), _f("size", 15, 4),
                                              _f("pemode", 9, 3), _f("dst", 7, 2))),
    Form("B.IOT.D", 0xFFF0707F, 0x00006013, (_f("last", 19, 1), _f("size", 15, 4), _f("pemode", 9, 3),
                                             _f("dst", 7, 2))),
    Form("B.DATR", 0x000C707F, 0x00001023, (_f("cmode", 29, 3), _f("pad", 27, 2), _f("sat", 26, 1),
                                            _f("canon", 25, 1), _f("datatype", 20, 5), _f("rmode", 15, 3),
                                            _f("layout", 7, 5))),
)

# (the source-only B.IOT forms, SizeCode 0, come before the forms with a destination: first match wins)
RESERVED = ((0xF9FFFFFF, 0x00001181, "BSTART.MPAR"), (0xF9FFFFFF, 0x00009181, "BSTART.MSEQ"),
            (0xF9FFFFFF, 0x00021181, "BSTART.VPAR"), (0xF9FFFFFF, 0x00029181, "BSTART.VSEQ"))


@dataclasses.dataclass(frozen=True)
class Command:
    """One decoded command word: the form and its field values (``dont_care``: ignored bits as found)."""

    form: str
    fields: Mapping[str, int]
    dont_care: int = 0

    def __getitem__(self, name: str) -> int:
        return self.fields[name]

    @property
    def executed(self) -> bool:
        """Whether the executor runs this form (the forms of TEPL bundles: TSORT, TPART*, the elementwise
        operations); every other accepted form decodes and is an "unsupported operation"
        (:mod:`ptofuzz.bundle.catalog`)."""
        return self.form not in catalog.BY_NAME

    @property
    def kind(self) -> str:
        """BSTART / BSTOP / B.DIM / B.IOR / B.IOS / B.IOT / B.DATR."""
        if self.form.startswith("BSTART"):
            return "BSTART"
        return "B.IOT" if self.form.startswith("B.IOT") else self.form


def _form(name: str) -> Form:
    return next(f for f in FORMS if f.name == name)


def _lb_form(lb: int) -> tuple[Form, dict[str, int]]:
    return (FORMS[2], {"lb": lb}) if lb in (0, 1) else (FORMS[3], {})


def encode(cmd: Command) -> int:
    """The word of a command (fields checked against their domains: encoding an illegal field raises)."""
    other = catalog.BY_NAME.get(cmd.form)
    if other is not None:
        problem = other.problem(cmd.fields)
        if problem:
            raise DecodeError(problem)
        if cmd.dont_care:
            raise ValueError(f"{cmd.form} has no don't-care bits")
        return other.word(cmd.fields)
    _check(cmd.form, dict(cmd.fields))
    if cmd.form == "B.DIM":
        lb = cmd["lb"]
        form, fixed = _lb_form(lb)
        imm = cmd["imm"]
        values = {"rs": cmd["rs"], "imm_hi": imm >> 12, "imm_lo": imm & 0xFFF, **fixed}
    elif cmd.form == "BSTART.TEPL":
        form = _form(cmd.form)
        values = {"datatype": cmd["datatype"], "mode": cmd["selector"] >> 5, "function": cmd["selector"] & 31}
    else:
        form = _form(cmd.form)
        values = dict(cmd.fields)
    word = form.match
    for f in form.fields:
        v = values[f.name]
        if not 0 <= v < (1 << f.width):
            raise ValueError(f"{cmd.form} field {f.name}={v} does not fit {f.width} bits")
        word |= v << f.lsb
    if cmd.dont_care & ~form.dont_care:
        raise ValueError(f"{cmd.form} has no don't-care bits at {cmd.dont_care & ~form.dont_care:#x}")
    return word | cmd.dont_care


def decode(word: int) -> Command:
    """The command a 32-bit word encodes; :class:`DecodeError` (with the reason) when it encodes none."""
    if not 0 <= word <= 0xFFFFFFFF:
        raise DecodeError(f"{word:#x} is not a 32-bit word")
    for mask, match, name in RESERVED:
        if word & mask == match:
            raise DecodeError(f"{word:#010x} is {name}, a reserved extension encoding")
    for form in FORMS:
        if word & form.mask != form.match:
            continue
        values = {f.name: (word >> f.lsb) & ((1 << f.width) - 1) for f in form.fields}
        if form.name == "B.DIM":
            fields = {"lb": values.get("lb", 2), "rs": values["rs"], "imm": values["imm_hi"] << 12 | values["imm_lo"]}
        elif form.name == "BSTART.TEPL":
            fields = {"datatype": values["datatype"], "selector": values["mode"] << 5 | values["function"]}
        else:
            fields = values
        _check(form.name, fields, word)
        return Command(form.name, fields, word & form.dont_care)
    other = catalog.match(word)
    if other is not None:
        values = other.values(word)
        problem = other.problem(values)
        if problem:
            raise DecodeError(f"{word:#010x}: {problem}")
        return Command(other.name, values)
    raise DecodeError(_unknown(word))


def _unknown(word: int) -> str:
    op, f3 = word & 0x7F, (word >> 12) & 7
    if op == 0x01:
        return f"{word:#010x}: opcode 0x01 funct3 {f3} matches no BSTART form"
    if op == 0x13:
        if f3 in (2, 3, 7):
            return f"{word:#010x}: opcode 0x13 funct3 {f3} is unassigned"
        if f3 == 0:
            return f"{word:#010x}: B.IOR with bits 26:25 set (they must be 0)"
        if f3 == 1:
            return f"{word:#010x}: B.IOS with reserved bits set (31:28, 19 and 8:7 must be 0)"
        if f3 == 5:
            return f"{word:#010x}: one-source B.IOT with bits 31:26 set (a second source needs funct3 4)"
        if f3 == 6:
            return f"{word:#010x}: destination-only B.IOT with bits 31:20 set"
    if op == 0x23:
        return f"{word:#010x}: opcode 0x23 funct3 {f3}: " + ("B.DATR with bits 19:18 set (they must be 0)"
                                                              if f3 == 1 else "B.CATR/B.FPATR with reserved bits set"
                                                              if f3 in (0, 2) else "unassigned")
    if op == 0x43:
        return f"{word:#010x}: B.DIM funct3 {f3} names no loop bound (0, 1, 2 = LB0, LB1, LB2)"
    return f"{word:#010x}: opcode {op:#04x} funct3 {f3} matches no bundle command form"


def _check(form: str, fields: Mapping[str, int], word: int | None = None) -> None:
    """Field-domain constraints (decode-time illegality, trap 4)."""
    w = f"{word:#010x}: " if word is not None else ""
    if form == "BSTART.TEPL":
        dt, sel = fields["datatype"], fields["selector"]
        if dt not in BSTART_DATATYPES:
            what = "DTYPE_NONE (only B.DATR and BSTART.TMOV take it)" if dt == 31 else "reserved"
            raise DecodeError(f"{w}BSTART DataType {dt} is {what}")
        if sel not in SELECTORS:
            raise DecodeError(f"{w}BSTART.TEPL selector {sel:#04x} (Mode {sel >> 5}, Function {sel & 31}) is a "
                              "reserved hole")
    elif form == "B.DIM":
        if fields["lb"] not in (0, 1, 2):
            raise DecodeError(f"{w}B.DIM names LB{fields['lb']}; there are LB0, LB1, LB2")
        _gpr(fields["rs"], "B.DIM RegSrc", w)
        if not 0 <= fields["imm"] < 1 << 17:
            raise DecodeError(f"{w}B.DIM immediate {fields['imm']} does not fit 17 bits")
    elif form == "B.IOR":
        for k in ("rd", "rs0", "rs1", "rs2"):
            _gpr(fields[k], f"B.IOR {k}", w)
    elif form == "B.IOS":
        if fields["size"] > 12:
            raise DecodeError(f"{w}B.IOS SizeCode {fields['size']} is reserved (0..12)")
    elif form in ("B.IOT.SSD", "B.IOT.SD", "B.IOT.D"):
        if not 1 <= fields["size"] <= 10:
            raise DecodeError(f"{w}B.IOT SizeCode {fields['size']} is reserved (a Local destination takes 1..10)")
    elif form == "B.DATR":
        if fields["cmode"] > 5:
            raise DecodeError(f"{w}B.DATR CMode {fields['cmode']} is reserved (0..5)")
        if fields["datatype"] not in DATATYPES:
            raise DecodeError(f"{w}B.DATR DataType {fields['datatype']} is reserved")
        if fields["layout"] not in LAYOUTS:
            raise DecodeError(f"{w}B.DATR Layout {fields['layout']} is unassigned")


def _gpr(code: int, what: str, w: str) -> None:
    if not 0 <= code < len(GPRS):
        raise DecodeError(f"{w}{what} selector {code} is reserved (0..23: {', '.join(GPRS[:3])}, ..., x3)")


def size_bytes(size_code: int) -> int:
    """SizeCode 1..12 -> 128 B * 2**(code-1)."""
    return 128 << (size_code - 1)


def tile_name(index: int) -> str:
    """A 6-bit Local tile index as hand and number: 32 -> M#1."""
    return f"{HANDS[index // 16]}#{index % 16 + 1}"
