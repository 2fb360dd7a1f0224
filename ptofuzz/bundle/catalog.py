"""The accepted 32-bit command forms of pto-spec 0.58.3 that the bundle executor does not execute.

:mod:`ptofuzz.bundle.encoding` models the forms of TEPL bundles (BSTART.TEPL, B.DIM, B.IOR, B.IOT,
B.IOS, B.DATR, BSTOP) with their own field names; every other accepted 32-bit form of the catalog
(PTO-ISA/pto-spec ``spec/catalog/command-forms.json``: 60 accepted 32-bit forms in all) is recorded here as data:
its mask and match, its free fields (bit pieces, sign, the catalog's one-of domain) and its semantic handler.
They decode (a field outside its domain is Fault_IllegalInstruction, as for every form), encode, disassemble as
``NAME field=value, ...`` and assemble back; the executor answers them with a named "unsupported operation".

Names are the catalog's mnemonics, with the branch kind appended where one mnemonic has several forms
(``BSTART.STD.COND``, ``BSTART.FP.RET``; ``B.HINT.TRACE``). Fields are the catalog's names in lower case
(``L/UL`` -> ``l_ul``); fields that the match fixes are left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

START_DATATYPES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28)
PRE_QUANT_MODES = (0, 1, 2, 3, 4, 5, 12, 13, 16, 17, 18, 19, 20, 23, 24, 25, 26, 27, 28, 32, 33, 34, 35, 36, 37,
                   38, 39)


@dataclasses.dataclass(frozen=True)
class CatalogField:
    name: str
    pieces: tuple[tuple[int, int, int], ...]  # (bit in the word, width, bit in the value)
    signed: bool = False
    domain: Collection[int] | None = None  # the values the catalog accepts (None: every value of the width)

    @property
    def width(self) -> int:
        """Bits of the value (pieces may leave low value bits out: FENTRY's ``uimm`` is a multiple of 8)."""
        return max(at + w for _, w, at in self.pieces)

    @property
    def covered(self) -> int:
        """The value bits the pieces hold."""
        return sum(((1 << w) - 1) << at for _, w, at in self.pieces)

    def extract(self, word: int) -> int:
        value = 0
        for lsb, width, at in self.pieces:
            value |= ((word >> lsb) & ((1 << width) - 1)) << at
        if self.signed and value >> (self.width - 1):
            value -= 1 << self.width
        return value

    def insert(self, value: int) -> int:
        low, high = (-(1 << (self.width - 1)), 1 << (self.width - 1)) if self.signed else (0, 1 << self.width)
        if not low <= value < high:
            raise ValueError(f"{self.name}={value} does not fit {self.width} {'signed ' if self.signed else ''}bits")
        raw = value & ((1 << self.width) - 1)
        if raw & ~self.covered:
            raise ValueError(f"{self.name}={value} has bits the encoding cannot hold (mask {self.covered:#x})")
        word = 0
        for lsb, width, at in self.pieces:
            word |= ((raw >> at) & ((1 << width) - 1)) << lsb
        return word

    @property
    def bits(self) -> int:
        return sum(((1 << w) - 1) << lsb for lsb, w, _ in self.pieces)


@dataclasses.dataclass(frozen=True)
class CatalogForm:
    name: str
    handler: str  # the model's semantic handler (what an executor of the form would run)
    mask: int
    match: int
    fields: tuple[CatalogField, ...]

    @property
    def dont_care(self) -> int:
        """Bits neither fixed by the match nor in a field."""
        return 0xFFFFFFFF & ~self.mask & ~sum(f.bits for f in self.fields)

    def values(self, word: int) -> dict[str, int]:
        return {f.name: f.extract(word) for f in self.fields}

    def problem(self, values: Mapping[str, int]) -> str:
        """The first field outside the catalog's domain ("" when none)."""
        for f in self.fields:
            if f.domain is not None and values[f.name] not in f.domain:
                return f"{self.name} {f.name} {values[f.name]} is outside its domain"
        return ""

    def word(self, values: Mapping[str, int]) -> int:
        if set(values) != {f.name for f in self.fields}:
            raise ValueError(f"{self.name} takes the fields {', '.join(f.name for f in self.fields) or '(none)'}")
        word = self.match
        for f in self.fields:
            word |= f.insert(values[f.name])
        return word


def _p(name: str, *pieces: tuple[int, int, int], signed: bool = False,
       domain: Collection[int] | None = None) -> CatalogField:
    return CatalogField(name, pieces, signed, domain)


# the TLSU and CUBE starts with one DataType field (BSTART.TMOV, which also takes DTYPE_NONE 31, is listed alone)
_TYPED_STARTS = (
    ("BSTART.MGATHER", 0x00411181), ("BSTART.MGATHER.CAS", 0x00811181), ("BSTART.MGATHER.MASK", 0x00611181),
    ("BSTART.MSCATTER.MASK", 0x00711181), ("BSTART.MSCATTER", 0x00511181), ("BSTART.TGEMV", 0x01031181),
    ("BSTART.TGEMV.ACC", 0x01231181), ("BSTART.TGEMV.BIAS", 0x01131181), ("BSTART.TGEMVMX", 0x01431181),
    ("BSTART.TGEMVMX.ACC", 0x01631181), ("BSTART.TGEMVMX.BIAS", 0x01531181), ("BSTART.TLOAD", 0x00011181),
    ("BSTART.TMATMUL", 0x00031181), ("BSTART.TMATMUL.ACC", 0x00231181), ("BSTART.TMATMUL.BIAS", 0x00131181),
    ("BSTART.TMATMULMX", 0x00431181), ("BSTART.TMATMULMX.ACC", 0x00631181), ("BSTART.TMATMULMX.BIAS", 0x00531181),
    ("BSTART.GMOV", 0x00D11181), ("BSTART.TPREFETCH", 0x00311181),
    ("BSTART.TSTORE", 0x00111181),
)


def _typed_start(name: str, match: int, domain: Collection[int] = START_DATATYPES) -> CatalogForm:
    return CatalogForm(name, "ExecuteBundleStart", 0x07FFFFFF, match, (_p("datatype", (27, 5, 0), domain=domain),))


# the BSTART forms of one branch kind (bits 14:12, see _branch_start) over a frame kind (bits 11:0)
_BRANCH_STARTS = (
    ("BSTART.FP.RET", 0x00007101), ("BSTART.FP.COND", 0x00003101), ("BSTART.FP.IND", 0x00005101),
    ("BSTART.FP.DIRECT", 0x00002101), ("BSTART.FP.FALL", 0x00001101), ("BSTART.STD.COND", 0x00003001),
    ("BSTART.STD.FALL", 0x00001001), ("BSTART.STD.RET", 0x00007001), ("BSTART.STD.IND", 0x00005001),
    ("BSTART.STD.DIRECT", 0x00002001), ("BSTART.SYS.FALL", 0x00001081),
)


def _branch_start(name: str, match: int) -> CatalogForm:
    """A return or indirect start has no field; the others a signed 17-bit offset, which must be 0 for a
    fall-through."""
    kind = match >> 12 & 7
    if kind in (5, 7):  # IND, RET
        return CatalogForm(name, "ExecuteBundleStart", 0xFFFFFFFF, match, ())
    offset = _p("simm17", (15, 17, 0), signed=True, domain=(0,) if kind == 1 else None)
    return CatalogForm(name, "ExecuteBundleStart", 0x00007FFF, match, (offset,))


FORMS: tuple[CatalogForm, ...] = (
    CatalogForm("B.CATR", "SetBundleControlAttributes", 0xFBF07FFF, 0x00000023,
                (_p("dr", (26, 1, 0)), _p("trap", (19, 1, 0)), _p("far", (18, 1, 0)), _p("atom", (17, 1, 0)),
                 _p("aq", (16, 1, 0)), _p("rl", (15, 1, 0)))),
    CatalogForm("B.HINT", "SetBundleHint", 0x00087FFF, 0x00000033,
                (_p("l_ul", (16, 1, 0)), _p("v", (15, 1, 0)), _p("prefetch_size", (20, 12, 0)),
                 _p("temp", (17, 2, 0)))),
    CatalogForm("B.HINT.TRACE", "SetBundleHint", 0xFFFF7FFF, 0x00001033, (_p("b_e", (15, 1, 0)),)),
    CatalogForm("BSTART.DIRECT", "ExecuteBundleStart", 0x0000007F, 0x00000011,
                (_p("simm25", (7, 25, 0), signed=True),)),
    CatalogForm("BSTART.COND", "ExecuteBundleStart", 0x0000007F, 0x00000021, (_p("simm25", (7, 25, 0), signed=True),)),
    CatalogForm("BSTART.CALL", "ExecuteBundleStart", 0xF83F000F, 0x50160002,
                (_p("simm12", (4, 12, 0), signed=True), _p("uimm5", (22, 5, 0)))),
    CatalogForm("BSTART.ICALL", "ExecuteBundleStart", 0xF83FFFFF, 0x50166001, (_p("uimm5", (22, 5, 0)),)),
    *(_branch_start(name, match) for name, match in _BRANCH_STARTS),
    CatalogForm("FENTRY", "ExecuteFrameEntry", 0x0000707F, 0x00000041,
                (_p("srcbegin", (15, 5, 0), domain=range(2, 24)), _p("srcend", (20, 5, 0), domain=range(2, 24)),
                 _p("uimm", (25, 7, 3), (7, 5, 10)))),
    CatalogForm("FEXIT", "ExecuteFrameExit", 0x0000707F, 0x00001041,
                (_p("dstbegin", (15, 5, 0), domain=range(2, 24)), _p("dstend", (20, 5, 0), domain=range(2, 24)),
                 _p("uimm", (25, 7, 3), (7, 5, 10)))),
    CatalogForm("FRET.RA", "ExecuteFrameReturnAddress", 0x0000707F, 0x00002041,
                (_p("dstbegin", (15, 5, 0), domain=range(2, 24)), _p("dstend", (20, 5, 0), domain=range(2, 24)),
                 _p("uimm", (25, 7, 3), (7, 5, 10)))),
    CatalogForm("FRET.STK", "ExecuteFrameReturnStack", 0x0000707F, 0x00003041,
                (_p("dstbegin", (15, 5, 0), domain=(10,)), _p("dstend", (20, 5, 0), domain=range(2, 24)),
                 _p("uimm", (25, 7, 3), (7, 5, 10)))),
    CatalogForm("MCOPY", "ExecuteMemoryCopy", 0x06007FFF, 0x00000031,
                (_p("regsrc0", (15, 5, 0), domain=range(0, 24)), _p("regsrc1", (20, 5, 0), domain=range(0, 24)),
                 _p("regsrc2", (27, 5, 0), domain=range(0, 24)))),
    CatalogForm("MSET", "ExecuteMemorySet", 0x06007FFF, 0x00001031,
                (_p("regsrc0", (15, 5, 0), domain=range(0, 24)), _p("regsrc1", (20, 5, 0), domain=range(0, 24)),
                 _p("regsrc2", (27, 5, 0), domain=range(0, 24)))),
    CatalogForm("B.FPATR", "SetBundleFixedPointAttributes", 0x00007E7F, 0x00002023,
                (
                 _p("prequantmode", (26, 6, 0), domain=PRE_QUANT_MODES),
                 _p("relumode", (23, 3, 0), domain=range(0, 4)), _p("groupncode", (19, 4, 0), domain=range(0, 10)),
                 _p("rowmaxen", (18, 1, 0), domain=(0, 1)), _p("groupmaxen", (17, 1, 0), domain=(0, 1)),
                 _p("rowmaxinit", (16, 1, 0), domain=(0, 1)), _p("maxabsen", (15, 1, 0), domain=(0, 1)),
                 _p("transa", (7, 1, 0), domain=(0, 1)), _p("transb", (8, 1, 0), domain=(0, 1)))),
    *(_typed_start(name, match) for name, match in _TYPED_STARTS),
    _typed_start("BSTART.TMOV", 0x00211181, (*START_DATATYPES, 31)),
)
BY_NAME: dict[str, CatalogForm] = {f.name: f for f in FORMS}


def match(word: int) -> CatalogForm | None:
    """The catalog form a word matches, if any (no two of these forms overlap)."""
    return next((f for f in FORMS if word & f.mask == f.match), None)
