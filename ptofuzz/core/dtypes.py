"""Element types: names, spellings, bit layouts.

Every tile is held as an array of unsigned integers of the element width (its *bits*), never as floats, so
that sNaN payloads, NaN signs and -0 survive every step. :func:`view_values` gives the numeric view when a
computation needs it; bfloat16 comes from ``ml_dtypes``, imported only then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ptofuzz.core.errors import UsageError

if TYPE_CHECKING:
    import numpy as np


class DType(NamedTuple):
    """One element type (a NamedTuple: see :class:`ptofuzz.core.case.Tile`).

    Attributes:
        name: ptofuzz's canonical name (numpy/ml_dtypes spelling: ``float32``, ``bfloat16``, ``uint8``).
        kind: ``"float"`` (an IEEE 754-style binary format: the all-ones exponent holds the infinities and NaNs),
            ``"table"`` (a small float whose codes :mod:`ptofuzz.core.minifloat` tables: FP8 E4M3 and HiFloat8,
            whose specials break that layout, and the finite-only FP4 E2M1 and E1M2; ``exp_bits``/``man_bits``
            give their widest fields), ``"int"`` (signed) or ``"uint"``.
        bits: element width in bits. A 4-bit element (FP4, int4) is held in a byte of its own, in the low
            nibble (the high nibble 0); packing two to a byte is a file layout (:mod:`ptofuzz.core.nibbles`).
        spec_name: pto-spec DataType mnemonic (``FP32``, ``S16``, ...).
        spec_code: pto-spec 5-bit DataType code (``asl/arch/data-types/tile-data-types.asl``).
        exp_bits, man_bits: exponent and fraction widths (floats only, else 0).
        spellings: every name accepted on input, lower case.
    """

    name: str
    kind: str
    bits: int
    spec_name: str
    spec_code: int
    exp_bits: int = 0
    man_bits: int = 0
    spellings: tuple[str, ...] = ()

    @property
    def itemsize(self) -> int:
        """Bytes of the carrier one element is held in (1 for the 4-bit types)."""
        return max(self.bits // 8, 1)

    @property
    def bit_mask(self) -> int:
        """All ``bits`` ones: the element's bits within its carrier."""
        return (1 << self.bits) - 1

    @property
    def is_float(self) -> bool:
        return self.kind in ("float", "table")

    @property
    def is_table(self) -> bool:
        """A small float whose codes are read from :mod:`ptofuzz.core.minifloat`'s tables (not IEEE-laid-out)."""
        return self.kind == "table"

    @property
    def bits_dtype(self) -> str:
        """numpy dtype string of the raw carrier (little-endian unsigned)."""
        return f"<u{self.itemsize}"

    # Float format constants, as Python ints on the raw bits.
    @property
    def sign_mask(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def abs_mask(self) -> int:
        """Every bit but the sign."""
        return (1 << (self.bits - 1)) - 1

    @property
    def exp_mask(self) -> int:
        return ((1 << self.exp_bits) - 1) << self.man_bits

    @property
    def man_mask(self) -> int:
        return (1 << self.man_bits) - 1

    @property
    def quiet_bit(self) -> int:
        return 1 << (self.man_bits - 1)

    @property
    def canonical_nan(self) -> int:
        """pto-spec canonical qNaN (FP32 0x7FC00000, FP16 0x7E00, BF16 0x7FC0, E5M2 0x7E; E4M3 0x7F, HiF8 0x80).
        The finite-only FP4 formats have none (TypeError)."""
        if self.name in _NO_NAN:
            raise TypeError(f"{self.name} has no NaN (a finite-only format)")
        return _TABLE_NANS.get(self.name, self.exp_mask | self.quiet_bit)

    @property
    def one(self) -> int:
        """The bits of 1.0 (of 1 for an integer type)."""
        if self.is_table:
            from ptofuzz.core import minifloat

            return minifloat.table(self.name).one
        return ((1 << (self.exp_bits - 1)) - 1) << self.man_bits if self.is_float else 1

    @property
    def int_min(self) -> int:
        return -(1 << (self.bits - 1)) if self.kind == "int" else 0

    @property
    def int_max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.kind == "int" else (1 << self.bits) - 1

    def __str__(self) -> str:
        return self.name


def _d(name: str, kind: str, bits: int, spec_name: str, spec_code: int, *spellings: str,
       exp: int = 0, man: int = 0) -> DType:
    return DType(name, kind, bits, spec_name, spec_code, exp, man, (name, spec_name.lower(), *spellings))


DTYPES: dict[str, DType] = {d.name: d for d in (
    _d("float32", "float", 32, "FP32", 1, "float", "f32", exp=8, man=23),
    _d("float16", "float", 16, "FP16", 4, "half", "f16", exp=5, man=10),
    _d("bfloat16", "float", 16, "BF16", 5, "bf16", exp=8, man=7),
    _d("int8", "int", 8, "S8", 19, "i8"),
    _d("int16", "int", 16, "S16", 18, "i16"),
    _d("int32", "int", 32, "S32", 17, "i32", "int"),
    _d("int64", "int", 64, "S64", 16, "i64"),
    _d("uint8", "uint", 8, "U8", 27, "u8"),
    _d("uint16", "uint", 16, "U16", 26),
    _d("uint32", "uint", 32, "U32", 25),
    _d("uint64", "uint", 64, "U64", 24),
    # the 8-bit floats (pto-spec codes from tile-data-types.asl)
    _d("float8_e4m3", "table", 8, "E4M3", 7, "fp8_e4m3", "e4m3", "f8e4m3", "float8_e4m3_t", "float8_e4m3fn",
       "fp8_e4m3fn", exp=4, man=3),
    _d("float8_e5m2", "float", 8, "E5M2", 8, "fp8_e5m2", "e5m2", "f8e5m2", "float8_e5m2_t", exp=5, man=2),
    _d("hifloat8", "table", 8, "HiF8", 6, "hif8", "h8", "hifloat8_t", exp=4, man=3),
    # the 4-bit types, one lane each (pto-spec's packed E2M1X2, E1M2X2 and S4X2 hold two)
    _d("float4_e2m1", "table", 4, "E2M1X2", 11, "fp4_e2m1", "e2m1", "fp4_e2m1x2", "e2m1x2", "float4_e2m1x2_t",
       "float4_e2m1fn", exp=2, man=1),
    _d("float4_e1m2", "table", 4, "E1M2X2", 12, "fp4_e1m2", "e1m2", "fp4_e1m2x2", "e1m2x2", "float4_e1m2x2_t",
       exp=1, man=2),
    _d("int4", "int", 4, "S4X2", 20, "s4", "i4", "int4b_t", "s4x2"),
)}

_TABLE_NANS = {"float8_e4m3": 0x7F, "hifloat8": 0x80}  # pto-spec's e4m3.asl and hif8.asl canonical NaNs
_NO_NAN = ("float4_e2m1", "float4_e1m2")

_BY_SPELLING: dict[str, DType] = {s: d for d in DTYPES.values() for s in d.spellings}


def get(name: str | DType) -> DType:
    """Look up a dtype by any accepted spelling (``float``, ``fp32``, ``half``, ``bf16``, ``s8``, ``u16`` ...)."""
    found = _BY_SPELLING.get(name)  # type: ignore[arg-type]  # the common case: a canonical name
    if found is not None:
        return found
    if isinstance(name, DType):
        return name
    try:
        return _BY_SPELLING[name.strip().lower()]
    except KeyError:
        raise UsageError(
            f"unknown dtype {name!r}; use one of: {', '.join(DTYPES)}") from None


def value_dtype(dt: DType) -> np.dtype:
    """The numpy dtype whose values the bits encode (ml_dtypes.bfloat16 for bfloat16)."""
    import numpy as np

    if dt.name in _ML_DTYPES:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, _ML_DTYPES[dt.name]))
    if dt.name in ("hifloat8", "float4_e1m2"):
        raise TypeError(f"{dt.name} has no numpy dtype; decode its codes with ptofuzz.core.minifloat")
    return np.dtype(dt.name)


_ML_DTYPES = {"bfloat16": "bfloat16", "float8_e4m3": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
              "float4_e2m1": "float4_e2m1fn", "int4": "int4"}  # the 4-bit ones: one value a byte, low nibble


def view_values(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Reinterpret raw bits as values (no copy, no conversion)."""
    return bits.view(value_dtype(dt))


def format_bits(value: int, dt: DType) -> str:
    """``0x3f800000 (1.0)``: the hex bits and the value they encode."""
    import numpy as np

    width = dt.itemsize * 2
    raw = np.array([value], dtype=dt.bits_dtype)
    if dt.is_table:
        from ptofuzz.core import minifloat

        f = minifloat.table(dt.name)
        code = float(f.value[int(value) & (len(f.value) - 1)])
        shown = "NaN" if np.isnan(code) else "-0.0" if code == 0 and f.neg[int(value) & (len(f.value) - 1)] \
            else repr(code)
    elif dt.is_float:
        v = float(view_values(raw, dt)[0].astype(np.float64)) if not _is_nan(value, dt) else None
        if v is None:
            kind = "sNaN" if not value & dt.quiet_bit else "qNaN"
            shown = f"{'-' if value & dt.sign_mask else ''}{kind}"
        elif v == 0:
            shown = "-0.0" if value & dt.sign_mask else "0.0"
        else:
            shown = repr(v)
    else:
        shown = str(int(view_values(raw, dt)[0]))
    return f"0x{int(value):0{width}x} ({shown})"


def _is_nan(value: int, dt: DType) -> bool:
    return (value & dt.exp_mask) == dt.exp_mask and (value & dt.man_mask) != 0
