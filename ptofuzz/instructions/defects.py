"""Defects of the code under test: where pto-isa's code (or pto-spec's executable model) does something other
than its documents say.

Each is named, with its evidence (the header and line in the pinned pto-isa snapshot, 3186c381; for pto-spec's
model, the line of its pto-spec.asl), the documented behaviour it breaks and a command that shows it. A campaign
labels a disagreement of the real code (``cpusim``, pto-isa's CPU simulator compiled from a tree; ``aslref``,
pto-spec's ASL) with the defect whose signature it matches: it is reported as that
defect, never excused as a platform difference, and never folded into a model (a golden that copied it would let
pto-isa's own test pass on wrong output).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ptofuzz.core.signature import Signature

CPUSIM = "cpusim"


@dataclasses.dataclass(frozen=True)
class Defect:
    """One defect of pto-isa's code.

    Attributes:
        name: its stable name (``cpusim-tsort32-16bit-overlap``).
        ops: the instructions it touches.
        code: what code has it (``cpusim``: pto-isa's CPU simulator).
        evidence: the header and line, and what the code does there.
        documented: what pto-isa's documents say instead.
        reproduce: a command that shows it (against a pto-isa tree: PTO_ISA_DIR or --pto-isa).
        matches: whether a campaign's signature (with the real code named as itself) is this defect's.
        between_builds: whether it shows as the simulator's two builds disagreeing (``cpusim~cpusim-clang``:
            undefined behaviour that each compiler resolves its own way); only such a defect matches that pair.
        build: the one build of the simulator that shows it (``cpusim-clang``), or None (either build): a
            signature of the other build is not this defect's, although :func:`matching` shows ``matches`` both
            builds named ``cpusim``.
    """

    name: str
    ops: tuple[str, ...]
    code: str
    evidence: str
    documented: str
    reproduce: str
    matches: Callable[[Signature], bool] = lambda sig: False
    between_builds: bool = False
    build: str | None = None


def _tsort32_overlap(sig: Signature) -> bool:
    """The simulator against any other oracle, on a 16-bit row of more than one block, records moved."""
    return sig.op == "TSORT32" and CPUSIM in sig.oracles() and sig.geometry == "16-bit,cols>32" \
        and sig.kind in ("int-value", "ordering")


def _int32_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in TPARTADD/TPARTMUL's element type."""
    return sig.op in ("TPARTADD", "TPARTMUL") and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "signed-integer-overflow"


OVERFLOWING = ("TADD", "TSUB", "TMUL", "TADDS", "TSUBS", "TMULS", "TLRELU")


def _elementwise_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in the integer arithmetic of an elementwise add, sub or mul (tile-tile
    or tile-scalar) or TLRELU's product."""
    return sig.op in OVERFLOWING and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "signed-integer-overflow"


ROW_EXPAND_OVERFLOWING = ("TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL")


def _row_expand_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in a row-broadcast add, sub or mul."""
    return sig.op in ROW_EXPAND_OVERFLOWING and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "signed-integer-overflow"


COL_EXPAND_OVERFLOWING = ("TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL")


def _col_expand_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in a column-broadcast add, sub or mul."""
    return sig.op in COL_EXPAND_OVERFLOWING and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "signed-integer-overflow"


def _tabs_negative_zero(sig: Signature) -> bool:
    """The simulator against any other oracle: a float TABS element whose zero keeps its sign."""
    return sig.op == "TABS" and CPUSIM in sig.oracles() and sig.dtype_class == "float" \
        and sig.kind == "signed-zero" and sig.region == "op"


def _int_min_negation(sig: Signature) -> bool:
    """UBSan's report of negating the minimum int32 in TABS/TNEG."""
    return sig.op in ("TABS", "TNEG") and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region.startswith("negation-of-")


SHIFTS = ("TSHL", "TSHR", "TSHLS", "TSHRS")


def _shift_count(sig: Signature) -> bool:
    """UBSan's report of a shift whose count is negative or at least the promoted width (``shift exponent ...``)."""
    return sig.op in SHIFTS and sig.pair == CPUSIM and sig.kind == "crash" and sig.region.startswith("shift-exponent")


def _tci_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in TCI's int32 sequence."""
    return sig.op == "TCI" and sig.pair == CPUSIM and sig.kind == "crash" and sig.region == "signed-integer-overflow"


def _ttri_diagonal_overflow(sig: Signature) -> bool:
    """The simulator against any other oracle on TTRI rows whose boundary reaches int's end (wrong values), or
    UBSan's report of that overflow."""
    if sig.op != "TTRI":
        return False
    if sig.pair == CPUSIM:
        return sig.kind == "crash" and sig.region == "signed-integer-overflow"
    return CPUSIM in sig.oracles() and sig.region == "int-edge" and sig.kind not in ("fault-vs-value", "fault-kind")


def _tcmps_row_stride(sig: Signature) -> bool:
    """The simulator against any other oracle: a TCMPS result inside the valid region, on a case whose packed
    rows do not fill the source tile's rows."""
    return sig.op == "TCMPS" and CPUSIM in sig.oracles() and sig.region == "valid" \
        and sig.geometry == "packed<tile" and sig.kind not in ("crash", "hang", "fault-vs-value")


def _tcmps_eq_tolerance(sig: Signature) -> bool:
    """The simulator against any other oracle: a float TCMPS result inside the valid region, where the packing
    cannot be the cause (packed rows fill the tile)."""
    return sig.op == "TCMPS" and CPUSIM in sig.oracles() and sig.region == "valid" and sig.dtype_class == "float" \
        and sig.geometry == "packed=tile" and sig.kind not in ("crash", "hang", "fault-vs-value")


def _tsel_mask_stream(sig: Signature) -> bool:
    """The simulator against any other oracle: a TSEL result inside the valid region of a case whose valid
    columns are no multiple of 8."""
    return sig.op == "TSEL" and CPUSIM in sig.oracles() and sig.region == "valid" and sig.geometry.endswith(",pad") \
        and sig.kind not in ("crash", "hang", "fault-vs-value")


# the compare/select family's defects (appended to DEFECTS below)
CMPSEL_DEFECTS: tuple[Defect, ...] = (
    Defect("cpusim-tcmps-row-stride", ("TCMPS",), CPUSIM,
           "include/pto/cpu/TCmps.hpp:72 and 87-95 (scalar form; 150 and 164-172, tile form): the bits are packed "
           "W/8 bytes a row, W the source tile's static column count, into one byte stream, which is then laid "
           "into dst rows of dst.GetValidCol() bytes; when the valid columns rounded up to bytes are fewer than "
           "the tile's columns, source row i's bytes start at stream offset i*W/8, in dst row "
           "i*W/8/dstValidCol: every dst row after the first holds other rows' bytes (zeros past the valid region "
           "among them)",
           "docs/isa/TCMPS.md: dst(i, j) = src0(i, j) cmpMode scalar for each element of the valid region; its "
           "example gives a 16x16 source a dst of valid 16x2, one row of packed bits per source row, as the cpu "
           "TCMP (TCmp.h) packs",
           "ptofuzz fuzz tcmps --oracles cpu,cpusim --dtype int16 --shape 4x20 --runs 200 --out findings",
           _tcmps_row_stride),
    Defect("cpusim-tcmps-eq-tolerance", ("TCMPS",), CPUSIM,
           "include/pto/cpu/TCmps.hpp:27-33 (CmpCall): EQ is |a - b| < 1e-9 and NE |a - b| > 1e-9 in double, so "
           "two different floats closer than 1e-9 (tiny float32 normals and subnormals) compare equal, and two "
           "equal infinities unequal (inf - inf is a NaN)",
           "docs/isa/TCMPS.md: dst = src0 cmpMode scalar, a comparison of the two values (EQ true only for equal "
           "values)",
           "ptofuzz fuzz tcmps --oracles cpu,cpusim --dtype float32 --shape 8x64 --special subnormal,inf "
           "--special-rate 0.5 --runs 2000 --out findings",
           _tcmps_eq_tolerance),
    Defect("cpusim-tsel-mask-stream", ("TSEL",), CPUSIM,
           "include/pto/cpu/TSel.hpp:29-40: one bit counter runs over the whole valid region; it moves to the next "
           "mask row only after validMaskCol bytes and is not reset at a data row's end, so when the valid "
           "columns are no multiple of 8, row i > 0 reads the bits left over in row i-1's last byte and the "
           "rows' bits shift",
           "docs/isa/TSEL.md: dst(i, j) = mask(i, j) ? src0 : src1 for each element of the valid region; its "
           "example gives a 16x16 tile a mask of valid 16x2, one row of packed bits per data row, as the cpu "
           "TCMP (TCmp.h) writes and TSELS (TSelS.hpp) reads them",
           "ptofuzz fuzz tsel --oracles cpu,cpusim --dtype float32 --shape 4x12 --runs 200 --out findings",
           _tsel_mask_stream),
)

def _tcvt_float_cast(sig: Signature) -> bool:
    """UBSan's report (clang's float-cast-overflow) of a float converted to an integer type that cannot hold it."""
    return sig.op == "TCVT" and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "value-outside-the-range-of-representable"


_FLOATS = ("float32", "float16", "bfloat16")
_FP4 = ("float4_e2m1", "float4_e1m2")


def _tcvt_value(sig: Signature) -> tuple[str, str, bool, str] | None:
    """The simulator against another oracle, a TCVT value disagreement: (source, destination, CAST_ODD,
    saturation form) from the signature's geometry (the pair is part of a TCVT signature); else None."""
    if sig.op != "TCVT" or CPUSIM not in sig.oracles() or sig.kind in ("crash", "hang", "fault-vs-value"):
        return None
    from ptofuzz.instructions.conversion import parse_geometry

    g = parse_geometry(sig.geometry)
    return None if g[0] in _FP4 or g[1] in _FP4 else g  # the FP4 pairs have defects of their own


def _tcvt_float_mode(sig: Signature) -> bool:
    """A float-to-float pair's result a step or more off (or infinite where the mode stops at the largest
    finite), FP32 -> FP32 included ("round-only" region); not a NaN turned number (saturation), not a widening
    (exact in every mode)."""
    g = _tcvt_value(sig)
    if g is None or g[0] not in _FLOATS or g[1] not in _FLOATS or sig.kind == "nan-vs-number":
        return False
    narrowing = g[0] == "float32" or (g[0], g[1]) == ("bfloat16", "float16")
    return narrowing and (sig.region == "round-only" or sig.kind in ("ulp-1", "ulp-2..16", "inf-vs-finite"))


def _tcvt_int_mode(sig: Signature) -> bool:
    """An integer-to-float pair's result off by some ulps, or (to float16, the one destination an integer can
    overflow) infinite where the mode stops at the largest finite value."""
    g = _tcvt_value(sig)
    return g is not None and g[0] not in _FLOATS and g[1] in _FLOATS and (
        sig.kind.startswith("ulp-") or (sig.kind == "inf-vs-finite" and g[1] == "float16"))


def _bounds_held(src: str, dst: str) -> bool:
    """Whether a float source holds an integer destination's minimum and maximum exactly (then clamping to them
    in the source type, cpusim-tcvt-sat-bound's cause, is exact): the conversion core says."""
    import numpy as np

    from ptofuzz.core import dtypes
    from ptofuzz.oracles import convert as cv

    s, d = dtypes.get(src), dtypes.get(dst)
    bounds = np.array([d.int_max & d.bit_mask, d.int_min & d.bit_mask], dtype=np.uint64).astype(d.bits_dtype)
    _, status = cv.convert(bounds, d, s, cv.RNE)
    return bool((status == cv.EXACT_RESULT).all())


def _tcvt_sat_nan(sig: Signature) -> bool:
    """A float source's NaN come back a number with saturation on."""
    g = _tcvt_value(sig)
    return g is not None and g[0] in _FLOATS and g[3] == "sat" and sig.kind == "nan-vs-number"


def _tcvt_sat_bound(sig: Signature) -> bool:
    """A float-to-integer pair with saturation on, an integer value off (the wrong end of the range)."""
    g = _tcvt_value(sig)
    return g is not None and g[0] in _FLOATS and g[1] not in _FLOATS and g[3] == "sat" and not g[2] \
        and sig.kind == "int-value" and not _bounds_held(g[0], g[1])


def _tcvt_sat_widening(sig: Signature) -> bool:
    """A widening float16/bfloat16 -> float32 with saturation on, an infinity come back finite."""
    g = _tcvt_value(sig)
    return g is not None and g[0] in ("float16", "bfloat16") and g[1] == "float32" and g[3] == "sat" \
        and sig.kind in ("inf-vs-finite", "ulp-large")


def _tcvt_cast_odd(sig: Signature) -> bool:
    """CAST_ODD from a float to an integer, an integer value off: unsaturated, or saturated where the source
    holds the destination's bounds (elsewhere the value may be cpusim-tcvt-sat-bound's)."""
    g = _tcvt_value(sig)
    return g is not None and g[2] and g[0] in _FLOATS and g[1] not in _FLOATS and sig.kind == "int-value" \
        and (g[3] != "sat" or _bounds_held(g[0], g[1]))


def _tcvt_fp4(sig: Signature) -> tuple[str, str] | None:
    """The simulator against another oracle on an FP4 pair (source, destination), a value disagreement."""
    if sig.op != "TCVT" or CPUSIM not in sig.oracles() or sig.kind in ("crash", "hang", "fault-vs-value"):
        return None
    from ptofuzz.instructions.conversion import parse_geometry

    src, dst, _, _ = parse_geometry(sig.geometry)
    return (src, dst) if src in _FP4 or dst in _FP4 else None


def _tcvt_fp4_integral(sig: Signature) -> bool:
    """FP4 -> float32, a value off (rounded to an integer), in any form."""
    g = _tcvt_fp4(sig)
    return g is not None and g[0] in _FP4 and g[1] in _FLOATS and sig.kind.startswith("ulp-")


def _tcvt_fp4_encode(sig: Signature) -> bool:
    """float32 -> FP4, a code off, in any form."""
    g = _tcvt_fp4(sig)
    return g is not None and g[0] in _FLOATS and g[1] in _FP4 and sig.kind.startswith("ulp-")


def _tcvt_fp4_shift(sig: Signature) -> bool:
    """UBSan's report of MXType(double)'s shift by 64 or more (the only shift on TCVT's way)."""
    return sig.op == "TCVT" and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "shift-exponent-too-large"


def _tcvt_fp4_zero(sig: Signature) -> bool:
    """An FP4 pair (either way), a zero of the wrong sign."""
    return _tcvt_fp4(sig) is not None and sig.kind == "signed-zero"


# TCVT's defects in the simulator (appended to DEFECTS below), each shown on a minimal case in
# tests/backends/test_cpusim_tcvt.py. A TCVT signature names its pair, CAST_ODD and the saturation form
# (ptofuzz.instructions.conversion.geometry_class), so each defect matches the pairs and forms it lives in; int64
# -> float32's double rounding shows as the same ulp-1 as its ignored mode and has no matcher of its own.
TCVT_REPRODUCE = "ptofuzz fuzz tcvt --oracles cpu,cpusim --dtype {src} --to {to} --runs 5000 --out findings"
TCVT_DEFECTS: tuple[Defect, ...] = (
    Defect("cpusim-tcvt-float-mode-ignored", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:186-187 (convert_value): a float-to-float conversion (f32 -> f16, f32 -> "
           "bf16, bf16 -> f16, f32 -> f32) is a plain static_cast that never looks at the RoundMode: every mode "
           "rounds to nearest even (f32 0x3F800001 in CAST_CEIL -> f16 0x3C00), and f32 -> f32 is the identity "
           "(2.5 in CAST_RINT stays 2.5)",
           "docs/isa/TCVT.md:16-18: dst = cast_rmode(src), 'where rmode is a rounding policy (see "
           "pto::RoundMode)'; docs/isa/state-and-types/type-system.md:96: f32 -> f16/bf16 'Round according to "
           "`rnd` attribute'; TCVT.md:113 lists FP32 -> FP32 as 'round-only' (CAST_CEIL gives f16 0x3C01, "
           "CAST_RINT of 2.5 gives 2.0)",
           TCVT_REPRODUCE.format(src="float32", to="float16"),
           _tcvt_float_mode),
    Defect("cpusim-tcvt-int-mode-ignored", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:184-185 (convert_value): an integer-to-float conversion is "
           "static_cast<D>(double(v)), which rounds to nearest even in every RoundMode (int32 16777219 in "
           "CAST_TRUNC -> f32 16777220, 0x4B800002; int16 2051 in CAST_TRUNC -> f16 2052)",
           "docs/isa/TCVT.md:16-18: dst = cast_rmode(src), 'where rmode is a rounding policy (see "
           "pto::RoundMode)': CAST_TRUNC rounds toward zero (16777218, 0x4B800001; 2050)",
           TCVT_REPRODUCE.format(src="int32", to="float32"),
           _tcvt_int_mode),
    Defect("cpusim-tcvt-s64-double-rounding", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:185: int64 -> f32 goes through double, rounding twice: 2^60 + 2^36 + 1 "
           "becomes the double 2^60 + 2^36, a tie that f32 rounds to even, 2^60 (0x5D800000)",
           "docs/isa/TCVT.md:16-18: dst = cast_rmode(src), one rounding of the source value: in CAST_RINT "
           "2^60 + 2^36 + 1 lies above the midpoint, so 2^60 + 2^37 (0x5D800001)",
           TCVT_REPRODUCE.format(src="int64", to="float32")),
    Defect("cpusim-tcvt-sat-bound", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:200-208 with 148-157: with SaturationMode::ON the source is clamped in double "
           "to the destination's bounds and converted back to the source type, where a bound it cannot hold "
           "rounds up (INT32_MAX -> f32 2^31, INT16_MAX -> f16 32768); the conversion of that bound overflows "
           "(undefined behaviour in C++, -O2 gives the minimum): f32 3e9 and +inf -> int32 give 0x80000000, f32 "
           "1e20 -> int64 0x8000000000000000, f16 40000 -> int16 0x8000",
           "docs/isa/state-and-types/type-system.md:107: f32 -> i32 'on overflow, result is undefined behavior "
           "on A2/A3 and A5 (saturates on CPU simulator)'; include/pto/common/type.hpp:328 'Saturation enabled' "
           "for SaturationMode::ON: saturating gives the maximum, 0x7FFFFFFF, 0x7FFFFFFFFFFFFFFF and 0x7FFF",
           TCVT_REPRODUCE.format(src="float32", to="int32"),
           _tcvt_sat_bound),
    Defect("cpusim-tcvt-sat-nan", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:61-64 and 205: with SaturationMode::ON the clamp std::max(lo, std::min(hi, "
           "NaN)) returns hi, so a NaN becomes the upper bound: f32 NaN -> f16 gives 65504 (0x7BFF), -> int16 "
           "32767",
           "docs/isa/state-and-types/type-system.md:96: f32 -> f16/bf16 'NaN/Inf handled per IEEE 754': a NaN "
           "converts to a NaN (the pages give no integer for a NaN, which the simulator turns into the maximum)",
           TCVT_REPRODUCE.format(src="float32", to="float16"),
           _tcvt_sat_nan),
    Defect("cpusim-tcvt-sat-widening", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:203-205: with SaturationMode::ON the clamp uses the smaller of the source's "
           "and the destination's ranges, so a widening f16 -> f32 conversion is clamped to the f16 range: f16 "
           "+inf -> f32 gives 65504 (0x477FE000), where SaturationMode::OFF gives +inf",
           "docs/isa/state-and-types/type-system.md:95: f16/bf16 -> f32 'Extend to f32; exact representable "
           "values are preserved': +inf (0x7F800000)",
           TCVT_REPRODUCE.format(src="float16", to="float32"),
           _tcvt_sat_widening),
    Defect("cpusim-tcvt-cast-odd", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:84-96 (applyRoundingToIntegral): CAST_ODD to an integer rounds to the "
           "nearest integer and only a tie to the odd one: f32 2.2 -> int32 gives 2, 0.36 gives 0, -5.5e-11 "
           "gives 0",
           "include/pto/common/type.hpp:258 documents CAST_ODD as 'round to odd (Von Neumann rounding)': an "
           "inexact result takes the odd neighbour of its truncation, 3, 1 and -1",
           TCVT_REPRODUCE.format(src="float32", to="int32"),
           _tcvt_cast_odd),
    Defect("cpusim-tcvt-float-cast-ub", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:183 (static_cast<D>(dval)) converts a float-like source to an integer "
           "destination in C++; a NaN, an infinity or a value out of the destination's range (with "
           "SaturationMode::OFF, and with ON at the bound of cpusim-tcvt-sat-bound, 2^31 for int32) is undefined "
           "behaviour (clang's UBSan: '3e+09 is outside the range of representable values of type 'int''; -O2 "
           "on x86 gives the minimum, or the low bits of a 32-bit conversion for 8- and 16-bit types)",
           "docs/isa/state-and-types/type-system.md:107: f32 -> i32 'on overflow, result is undefined behavior "
           "on A2/A3 and A5 (saturates on CPU simulator)'; no result is defined by undefined behaviour",
           "ptofuzz fuzz tcvt --oracles cpu,cpusim --dtype float32 --to int32 --sanitize undefined --runs 2000 "
           "--out findings (with CXX=clang++: g++'s -fsanitize=undefined leaves out float-cast-overflow)",
           _tcvt_float_cast),
    # the FP4 pairs (float32 to and from FP4 E2M1 and E1M2, the cpu's system test's; cpu/MXTypes.hpp's MXType)
    Defect("cpusim-tcvt-fp4-integral", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:176-179 (convert_value): FP4 -> float-like (and float-like -> FP4) goes "
           "through applyRoundingToIntegral, so the value is rounded to an integer in the mode: E2M1 0x1 (0.5) "
           "-> f32 0.0 in CAST_RINT, 0x3 (1.5) -> 2.0 (CAST_RINT) or 1.0 (CAST_TRUNC); E1M2 0x3 (0.75) -> 1.0",
           "docs/isa/TCVT.md:16-18: dst = cast_rmode(src), a conversion: every FP4 value is a float32 (0.5, 1.5, "
           "0.75), as type-system.md:95-97 keeps exact values when widening",
           TCVT_REPRODUCE.format(src="float4_e2m1", to="float32"),
           _tcvt_fp4_integral),
    Defect("cpusim-tcvt-fp4-encode", ("TCVT",), CPUSIM,
           "include/pto/cpu/TCvt.hpp:176-179 rounds a float32 to an integer in the mode first (cpusim-tcvt-fp4-"
           "integral: 0.5 -> 0, 1.5 -> 2; CAST_NONE leaves it as it is, TCvt.hpp:98-99), then "
           "cpu/MXTypes.hpp:28-74 (MXType(double)) encodes it by "
           "truncating the fraction (:56) and cutting the rebiased exponent to its bits (:72), so a value past the "
           "format wraps (SaturationMode::OFF: f32 8.0 -> E2M1 0x0, 3.0 -> E1M2 0x2 (0.5)); with "
           "SaturationMode::ON the "
           "clamp of TCvt.hpp:132-136 (SafeLimits<float4_e1m2x2_t>: -4 and 3.5) is no range of E1M2, whose "
           "largest value is 1.75 (MXTypes.hpp:149-152, bias 1): f32 8.0 -> 3.5 -> 4 -> 0x4 (1.0)",
           "docs/isa/TCVT.md:16-18: dst = cast_rmode(src), one rounding in the mode to the FP4 value (CAST_RINT: "
           "1.5 -> 0x3, 0.75 -> E2M1 0x2); pto-spec's E1M2X2 lane table (largest 1.75): saturation clamps to it, "
           "0x7",
           TCVT_REPRODUCE.format(src="float32", to="float4_e1m2"),
           _tcvt_fp4_encode),
    Defect("cpusim-tcvt-fp4-shift-ub", ("TCVT",), CPUSIM,
           "include/pto/cpu/MXTypes.hpp:61 (MXType(double)): a value below FP4's normal range is shifted into "
           "the subnormals by (1 - outExponent) bits of a uint64_t; for a value below about 2^-62 that is 64 or "
           "more, undefined behaviour (clang's UBSan: 'shift exponent 72 is too large for 64-bit type "
           "uint64_t'). TCvt.hpp:98-99 leaves the value unrounded in CAST_NONE, so f32 1e-30 -> E2M1 in "
           "CAST_NONE gets there (the other modes round it to 0 first: cpusim-tcvt-fp4-integral)",
           "docs/isa/TCVT.md:16-18: dst = cast_rmode(src): 1e-30 to nearest is +0 (0x0); no result is defined "
           "by undefined behaviour",
           "ptofuzz fuzz tcvt --oracles cpu,cpusim --dtype float32 --to float4_e2m1 --sanitize undefined --runs "
           "5000 --out findings (the campaign table's sanitizer runs: CXX=clang++-19)",
           _tcvt_fp4_shift),
    Defect("cpusim-tcvt-fp4-negative-zero", ("TCVT",), CPUSIM,
           "include/pto/cpu/MXTypes.hpp:90-91 (operator double): the FP4 code of -0 (0x8) decodes as `retVal = "
           "-0`, the integer 0, so +0.0; and MXTypes.hpp:30-33 (MXType(double)) encodes a zero of either sign as "
           "0x0: E2M1 0x8 -> f32 0x00000000, f32 -0.0 (or -0.2 in CAST_RINT, rounded to -0) -> E2M1 0x0",
           "docs/isa/TCVT.md:16-18: dst = cast_rmode(src): E2M1 0x8 is -0.0 (pto-spec's lane table: '-0'), "
           "which converts to f32 0x80000000, and f32 -0.0 to 0x8",
           TCVT_REPRODUCE.format(src="float4_e2m1", to="float32"),
           _tcvt_fp4_zero),
)

DEFECTS: tuple[Defect, ...] = (
    Defect("cpusim-tsort32-16bit-overlap", ("TSORT32",), CPUSIM,
           "include/pto/cpu/TSort32.hpp:51: the block at source column j is written from dst element column 2*j "
           "(GetTileElementOffset<TileDataDst>(i, 2 * j)); a record is 8/sizeof(T) elements, 4 for a 16-bit type, "
           "so block b lands at record 16*b: from a row's second 32-wide block on, each block overwrites the "
           "second half of the one before, and the row's last records are never written (right for 32-bit "
           "types, where a record is 2 elements)",
           "docs/isa/TSORT32.md: block b writes dst[b*32*coef ...] with coef 4 for half, i.e. at record 32*b; "
           "every block's 32 records land side by side",
           "ptofuzz fuzz tsort32 --oracles cpu,cpusim --dtype float16 --shape 1x64 --runs 200 --out findings",
           _tsort32_overlap),
    Defect("cpusim-int32-overflow-ub", ("TPARTADD", "TPARTMUL"), CPUSIM,
           "include/pto/cpu/TPartAdd.hpp, TPartMul.hpp: dst = src0 + src1 (*) in the element type; for int32_t an "
           "overflow is signed-integer overflow, undefined behaviour in C++ (UBSan reports it; -O2 happens to wrap)",
           "docs/isa/TPARTADD.md, TPARTMUL.md state no overflow behaviour; no result is defined by undefined "
           "behaviour",
           "ptofuzz fuzz tpartadd --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings",
           _int32_overflow),
    Defect("cpusim-elementwise-signed-overflow-ub", OVERFLOWING, CPUSIM,
           "include/pto/cpu/TAdd.hpp:31 (dst[idx] = src0[idx] + src1[idx]), TSub.hpp:25 and TMul.hpp:25 "
           "(src0.GetElement(r, c) - / * src1.GetElement(r, c)), ElementOp.h:408, 413, 418 (TADDS/TSUBS/TMULS: "
           "src + - * scalar) and ElementOp.h:517 (TLRELU: src * scalar) compute in the element type after C++'s "
           "integer promotions: for int32_t an overflow is signed-integer overflow, and for uint16_t products "
           "both operands are promoted to int, so a product of 2^31 or more (e.g. 65535 * 65535) is too; both are "
           "undefined behaviour (UBSan reports the int32 cases with g++ and clang, the uint16 products with "
           "clang, whose front end does not narrow the multiply; -O2 happens to wrap)",
           "docs/isa/TADD.md, TSUB.md, TMUL.md, TADDS.md, TSUBS.md, TMULS.md and TLRELU.md give the formula for "
           "these types and state no overflow behaviour; no result is defined by undefined behaviour",
           "ptofuzz fuzz tadd --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings; "
           "CXX=clang++ ptofuzz fuzz tmul --oracles cpu,cpusim --dtype uint16 --sanitize undefined --runs 2000 "
           "--out findings",
           _elementwise_overflow),
    Defect("cpusim-rowexpand-signed-overflow-ub", ROW_EXPAND_OVERFLOWING, CPUSIM,
           "include/pto/cpu/TRowExpandOp.hpp:52 applies ElementOpCal, whose ElementOp.h:107 (dst = src0 + src1), :114 "
           "(src0 - src1) and :128 (src0 * src1) compute in the element type after C++'s integer promotions: for "
           "int32_t an overflow is signed-integer overflow, and a uint16_t product of 2^31 or more overflows the int "
           "both operands are promoted to; undefined behaviour (UBSan reports it with g++ and clang; -O2 happens to "
           "wrap)",
           "docs/isa/TROWEXPANDADD.md, TROWEXPANDSUB.md and TROWEXPANDMUL.md give the formula for these types and "
           "state no overflow behaviour; no result is defined by undefined behaviour",
           "ptofuzz fuzz trowexpandadd --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out "
           "findings; ptofuzz fuzz trowexpandmul --oracles cpu,cpusim --dtype uint16 --sanitize undefined --runs "
           "2000 --out findings",
           _row_expand_overflow),
    Defect("cpusim-colexpand-signed-overflow-ub", COL_EXPAND_OVERFLOWING, CPUSIM,
           "include/pto/cpu/TColExpandOp.hpp:61 applies ElementOpCal's three-operand form, whose ElementOp.h:109 "
           "(dst = src0 + src1), :116 (src0 - src1) and :130 (src0 * src1) compute in the element type after C++'s "
           "integer promotions: for int32_t an overflow is signed-integer overflow, and a uint16_t product of 2^31 "
           "or more overflows the int both operands are promoted to; undefined behaviour (UBSan reports the int32 "
           "cases with g++ and clang, the uint16 products with clang, whose front end does not narrow the "
           "multiply; -O2 happens to wrap)",
           "docs/isa/TCOLEXPANDADD.md, TCOLEXPANDSUB.md and TCOLEXPANDMUL.md give the formula for these types and "
           "state no overflow behaviour; no result is defined by undefined behaviour",
           "ptofuzz fuzz tcolexpandadd --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out "
           "findings; CXX=clang++ ptofuzz fuzz tcolexpandmul --oracles cpu,cpusim --dtype uint16 --sanitize "
           "undefined --runs 2000 --out findings",
           _col_expand_overflow),
    Defect("cpusim-tabs-negative-zero", ("TABS",), CPUSIM,
           "include/pto/cpu/TAbs.hpp:25: dst = src < 0 ? -src : src; -0.0 < 0 is false, so |-0| comes back as -0 "
           "(and a NaN keeps its sign bit)",
           "docs/isa/TABS.md: dst = |src|; the absolute value of -0 is +0 (IEEE 754 abs clears the sign bit)",
           "ptofuzz fuzz tabs --oracles cpu,cpusim --dtype float32 --runs 2000 --out findings",
           _tabs_negative_zero),
    Defect("cpusim-int-min-negation-ub", ("TABS", "TNEG"), CPUSIM,
           "include/pto/cpu/TAbs.hpp:25 (-src[idx]) and ElementOp.h:343 (dst = -src) negate the element type: for "
           "int32_t the minimum -2^31 overflows a signed int, undefined behaviour in C++ (UBSan reports it; -O2 "
           "happens to wrap back to -2^31)",
           "docs/isa/TABS.md, TNEG.md give |src| and -src for int32 and state no overflow behaviour; no result is "
           "defined by undefined behaviour",
           "ptofuzz fuzz tneg --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings",
           _int_min_negation),
    Defect("cpusim-shift-count-ub", SHIFTS, CPUSIM,
           "include/pto/cpu/ElementOp.h:216 (TSHL: dst = src0 << src1), :221 (TSHR: src0 >> src1), :535 and :540 "
           "(TSHLS/TSHRS: src << / >> scalar) shift by the count as C++ does, after the integer promotions: a "
           "count that is negative or not below the promoted width (32 for 8- to 32-bit elements) is undefined "
           "behaviour (UBSan: 'shift exponent -1 is negative', 'shift exponent 40 is too large for 32-bit type "
           "int'); a count in [W, 32) of an 8- or 16-bit element is defined and shifts the promoted value",
           "docs/isa/TSHL.md, TSHR.md, TSHLS.md and TSHRS.md give src0 << src1 and src0 >> src1 and state nothing "
           "for counts outside [0, W) (TSHLS/TSHRS: 'Scalar only supports zero and positive values'); no result "
           "is defined by undefined behaviour",
           "ptofuzz fuzz tshl --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings",
           _shift_count),
    Defect("cpusim-tci-signed-overflow-ub", ("TCI",), CPUSIM,
           "include/pto/cpu/TCI.hpp:23 (dst[idx] = start - j) and :25 (start + j) compute in int after the "
           "integer promotions: for int32_t a sequence that runs past INT32_MAX or INT32_MIN is signed-integer "
           "overflow, undefined behaviour in C++ (UBSan reports it; -O2 happens to wrap)",
           "docs/isa/TCI.md gives dst_k = S + k or S - k for int32 and states no overflow behaviour; no result is "
           "defined by undefined behaviour",
           "ptofuzz fuzz tci --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings",
           _tci_overflow),
    Defect("cpusim-ttri-diagonal-overflow", ("TTRI",), CPUSIM,
           "include/pto/cpu/TTRI.hpp:36 (diagonal + r + 1, lower) and :54 (diagonal + r, upper) add the row to the "
           "diagonal in int: for a diagonal near INT32_MAX the sum overflows (undefined behaviour; -O2 wraps it "
           "negative), so a lower row that is all ones comes back all zeros and an upper row that is all zeros "
           "comes back all ones",
           "docs/isa/TTRI.md: lower dst = 1 where j <= i + d, upper 0 where j < i + d, for an int diagonal d; "
           "with d = INT32_MAX every j <= i + d holds",
           "ptofuzz fuzz ttri --oracles cpu,cpusim --dtype float32 --runs 2000 --out findings",
           _ttri_diagonal_overflow),
    Defect("cpusim-bf16-placeholder", ("*",), CPUSIM,
           "include/pto/common/type.hpp: without C++23 std::bfloat16_t (GCC before 13) bfloat16_t is an alias of "
           "_Float16, so a bf16 case compiles and does half arithmetic on bf16 bits",
           "the pages list bfloat16 for the cpu; a bf16 result is bf16 arithmetic",
           "ptofuzz sim build (it names the placeholder); ptofuzz fuzz tpartadd --oracles cpu,cpusim --dtype bf16 "
           "--sim-placeholder-bf16 --runs 2000 --out findings"),
) + CMPSEL_DEFECTS
DEFECTS = DEFECTS + TCVT_DEFECTS


def _tcvt_s64_sat_builds(sig: Signature) -> bool:
    """The simulator's two builds against each other on int64 -> float32 with saturation on (any mode)."""
    if sig.op != "TCVT" or sig.pair != "cpusim~cpusim-clang" or sig.region != "convert" \
            or sig.kind in ("crash", "hang", "fault-vs-value"):
        return False
    from ptofuzz.instructions.conversion import parse_geometry

    src, dst, _, sat = parse_geometry(sig.geometry)
    return (src, dst, sat) == ("int64", "float32", "sat")


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tcvt-s64-sat-bound-by-compiler", ("TCVT",), CPUSIM,
    "include/pto/cpu/TCvt.hpp:203-206 with :149-155: with SaturationMode::ON an int64 source is clamped in double "
    "to min(INT64_MAX, FLT_MAX) as a double, 2^63, and converted back to int64 (static_cast<int64_t>(2^63), "
    "undefined behaviour: 2^63 is past INT64_MAX), so every source from 2^63 - 512 up (which double rounds to "
    "2^63) takes a value the compiler chooses: g++ 12 -O2 gives f32 2^63 (0x5F000000), clang 19 -O2 INT64_MIN, "
    "f32 -2^63 (0xDF000000): the sign of the result depends on the compiler",
    "docs/isa/TCVT.md:16-18: dst = cast_rmode(src): INT64_MAX in CAST_RINT is f32 2^63 (0x5F000000), in "
    "CAST_TRUNC 0x5EFFFFFF; a saturating conversion of a positive value is never negative",
    "ptofuzz fuzz tcvt --oracles cpusim,cpusim-clang --dtype int64 --to float32 --runs 5000 --out findings",
    _tcvt_s64_sat_builds, between_builds=True),)
def _tprod_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in TROWPROD's or TCOLPROD's product."""
    return sig.op in ("TROWPROD", "TCOLPROD") and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "signed-integer-overflow"


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tprod-signed-overflow-ub", ("TROWPROD", "TCOLPROD"), CPUSIM,
    "include/pto/cpu/TRowProd.hpp:21-24 and TColProd.hpp:21-24 multiply an element-type accumulator by each "
    "factor in int arithmetic (int32_t as it is; int16_t and uint16_t promoted to int): an int32 row or column "
    "whose partial product leaves int32's range, or a uint16 one whose partial product times the next factor "
    "passes 2^31 - 1, is signed-integer overflow, undefined behaviour (UBSan reports TRowProd.hpp:23 and "
    "TColProd.hpp:23 with g++ and clang; -O2 happens to wrap). int16_t products fit int and convert back, which "
    "is defined; uint32_t wraps as unsigned",
    "docs/isa/TROWPROD.md and TCOLPROD.md give the product for int32 (and TCOLPROD for uint16) and state no "
    "overflow behaviour; no result is defined by undefined behaviour",
    "ptofuzz fuzz trowprod --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings",
    _tprod_overflow),)
def _tprod_uint16_counts(sig: Signature) -> bool:
    """The simulator against any other oracle on TROWPROD's or TCOLPROD's values, for a source of more than 65535
    valid rows or columns."""
    return sig.op in ("TROWPROD", "TCOLPROD") and CPUSIM in sig.oracles() \
        and sig.geometry in ("rows>65535", "cols>65535") and sig.kind not in ("crash", "hang", "fault-vs-value")


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tprod-uint16-counts", ("TROWPROD", "TCOLPROD"), CPUSIM,
    "include/pto/cpu/TRowProd.hpp:18 and TColProd.hpp:18 declare TRowProd/TColProd(dst, src, uint16_t rows, "
    "uint16_t cols), and TROWPROD_IMPL (TRowProd.hpp:34) and TCOLPROD_IMPL (TColProd.hpp:33) pass the source's "
    "valid rows and columns to them, so they are taken modulo 65536: a TCOLPROD source of 65536 valid rows "
    "multiplies none (every column's product is the start value 1), a TROWPROD source of 65536 valid rows "
    "writes no row",
    "docs/isa/TROWPROD.md / TCOLPROD.md: dst[i,0] = prod over 0 <= j < C of src[i,j] for 0 <= i < R (dst[0,j] = "
    "prod over 0 <= i < R), R and C the source's valid rows and columns, with no bound but the tile's",
    "ptofuzz fuzz tcolprod --oracles cpu,cpusim --shape 65536x1 --dtype int16 --runs 3 --out findings",
    _tprod_uint16_counts),)
BY_NAME = {d.name: d for d in DEFECTS}


CPUSIM_CLANG = "cpusim-clang"  # the same simulator built with clang++: its defects are the simulator's


def as_simulator(sig: Signature) -> Signature:
    """``sig`` with the clang build named ``cpusim``: a defect of the simulator's code shows with either compiler.
    The two builds against each other (``cpusim~cpusim-clang``) stay as they are: bits that change with the
    compiler are a finding of their own, which only a defect naming that pair matches."""
    a, b = sig.oracles()
    if CPUSIM_CLANG not in (a, b) or CPUSIM in (a, b):
        return sig
    names = sorted(CPUSIM if n == CPUSIM_CLANG else n for n in (a, b) if n)
    return dataclasses.replace(sig, pair="~".join(names))


BUILDS = "cpusim~cpusim-clang"  # the simulator's two builds against each other


def matching(sig: Signature) -> Defect | None:
    """The defect a signature is an instance of (either build of the simulator), or None. The two builds against
    each other are matched only by a defect that says it shows so (:attr:`Defect.between_builds`)."""
    between = sig.pair == BUILDS
    named = sig.oracles()
    sig = as_simulator(sig)
    return next((d for d in DEFECTS if d.between_builds == between and (d.build is None or d.build in named)
                 and d.matches(sig)), None)


def of(op: str) -> tuple[Defect, ...]:
    """The defects that touch ``op`` (or every instruction)."""
    return tuple(d for d in DEFECTS if op in d.ops or "*" in d.ops)


def _tquant_multiplies(sig: Signature) -> bool:
    """The simulator against the documented model on TQUANT's values: its multiplication by the scale operand
    (and its offset added before rounding) gives other integers than the page's division."""
    return sig.op == "TQUANT" and CPUSIM in sig.oracles() and sig.kind == "int-value" and sig.region == "op"


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tquant-multiplies-scale", ("TQUANT",), CPUSIM,
    "include/pto/cpu/TQuant.hpp:503 (INT8_SYM: ClampInt8(srcValue * invScale)) and :511 (INT8_ASYM: "
    "ClampUint8(srcValue * invScale + zeroPoint)) multiply the source by the scale tile's value (which :498 names "
    "invScale) and add the offset before rounding (nearbyint, :83 and :89)",
    "docs/isa/TQUANT.md:35 and 90-91: q = round(x / scale) + offset, the offset added to the rounded quotient "
    "(TDEQUANT.md:19 restates it as TDEQUANT's inverse)",
    "ptofuzz fuzz tquant --oracles cpu,cpusim --runs 2000 --out findings",
    _tquant_multiplies),)
BY_NAME = {d.name: d for d in DEFECTS}


def _tquant_nan_cast(sig: Signature) -> bool:
    """UBSan's report (clang's float-cast-overflow) of TQUANT's rounded value converted to int8_t or uint8_t."""
    return sig.op == "TQUANT" and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "value-outside-the-range-of-representable"


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tquant-nan-cast-ub", ("TQUANT",), CPUSIM,
    "include/pto/cpu/TQuant.hpp:84 (static_cast<int8_t>(std::clamp(rounded, -128.0f, 127.0f))) and :90 (the "
    "uint8_t one): std::clamp passes a NaN through (both comparisons are false), so a NaN product (a NaN source "
    "or scale, inf * 0, inf - inf with the offset) reaches a float-to-integer conversion that cannot hold it: "
    "undefined behaviour (clang's UBSan: 'nan is outside the range of representable values of type 'signed "
    "char''; -O2 on x86 gives 0)",
    "docs/isa/TQUANT.md:35 leaves a quotient that is not finite without a value (ptofuzz: undefined), but no "
    "result is defined by undefined behaviour",
    "ptofuzz fuzz tquant --oracles cpu,cpusim --sanitize address,undefined --runs 2000 --out findings (with "
    "CXX=clang++: g++'s -fsanitize=undefined leaves out float-cast-overflow)",
    _tquant_nan_cast),)
BY_NAME = {d.name: d for d in DEFECTS}


def _tquant_mx_negative_zero(sig: Signature) -> bool:
    """The simulator against the A5 model on MXFP8 (OCP) codes, any layout: a negative zero product encoded as
    +0."""
    return sig.op == "TQUANT" and CPUSIM in sig.oracles() and sig.kind == "signed-zero" and sig.region == "mx" \
        and sig.geometry in ("mxfp8", "mxfp8_nz", "mxfp8_dn")


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tquant-mxfp8-negative-zero", ("TQUANT",), CPUSIM,
    "include/pto/cpu/TQuant.hpp:128-146 (EncodeE4M3Fn, the OCP algorithm): the cast searches every E4M3 code in "
    "ascending order for the nearest and keeps the first of equally near even codes (:140), so a -0 product "
    "(a -0 source element) is as near to 0x00 as to 0x80 and becomes +0 (0x00); the NV branch (:119-125) keeps "
    "the sign",
    "docs/isa/TQUANT.md:26 and 30: q = clip(x * alpha) cast to the destination format; -0 is an E4M3 value "
    "(0x80), exact, which no rounding changes",
    "ptofuzz fuzz tquant --oracles a5,cpusim --to float8_e4m3 --runs 2000 --out findings",
    _tquant_mx_negative_zero),)
BY_NAME = {d.name: d for d in DEFECTS}


def _tquant_mxfp4_overfill(sig: Signature) -> bool:
    """AddressSanitizer's report of a heap write out of bounds in TQUANT: a crash's signature names no form, and
    only the MXFP4 forms write past a tile (the INT8 and MXFP8 forms run clean under AddressSanitizer: the
    tests show both)."""
    return sig.op == "TQUANT" and sig.pair == CPUSIM and sig.kind == "crash" and sig.region == "heap-buffer-overflow"


def _tquant_nz_exponent_stride(sig: Signature) -> bool:
    """The simulator against the A5 model on the NZ overload's ZZ exponents (not its codes)."""
    return sig.op == "TQUANT" and CPUSIM in sig.oracles() and sig.kind == "int-value" and sig.region == "mx-exp" \
        and sig.geometry == "mxfp8_nz"


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tquant-mxfp4-overfill", ("TQUANT",), CPUSIM,
    "include/pto/cpu/TQuant.hpp:446-453 (InitMxOutput, called at :535 before every MXFP4 quantization) zero-fills "
    "TileDataOut::Rows * TileDataOut::Cols bytes from dst.data(); a float4_e2m1x2_t tile holds two elements a byte, "
    "Rows * Cols / 2 bytes (pto_tile.hpp:1561 sizes a tile's own buffer so, and GetSizeInBytes at :1670-1677), so "
    "the fill writes as many bytes again past the tile (AddressSanitizer: heap-buffer-overflow, for a 64 x 64 "
    "tile 2,048 bytes past a 2,048-byte buffer), whatever the valid region",
    "docs/isa/TQUANT.md (the MXFP4 table: dst e2m1 two a byte, M x N / 2 bytes) and the tile model: an instruction "
    "writes its destination tile's storage and nothing beyond it",
    "ptofuzz fuzz tquant --oracles a5,cpusim --to float4_e2m1 --sanitize address --runs 200 --out findings",
    _tquant_mxfp4_overfill),
    Defect(
    "cpusim-tquant-nz-exponent-stride", ("TQUANT",), CPUSIM,
    "include/pto/cpu/TQuant.hpp:578-605 (the VecStoreMode::NZ overload): after the ND pass has written group g of "
    "row r at GetTileElementOffset<TileDataExp>(r, g), r * TileDataExp::Cols + g (:480), it reads the exponents "
    "back as the flat offsets 0 .. rows * validCol / 32 (:596-598: GetTileElementOffset(0, i)), as if each row "
    "held validCol / 32 groups; an exponent tile of more columns than the row has groups (any tile of 32-byte "
    "rows under 1024 valid columns, as the a5 test declares it: CEIL(staticCols / 32, 32)) is read at the wrong "
    "stride, and the ZZ tile takes other rows' slots and the tile's padding (16 x 64 float32: rows 1 to 15 of "
    "the ZZ exponents come back 0)",
    "docs/isa/TQUANT.md:150 (and TQUANT_DN.md:148): the ZZ tile is the exponents of the ND groups in [16, 2] "
    "boxes, a permutation: every group's exponent appears once",
    "ptofuzz fuzz tquant --oracles a5,cpusim --to float8_e4m3 --runs 2000 --out findings",
    _tquant_nz_exponent_stride),)
BY_NAME = {d.name: d for d in DEFECTS}


def _tcolsum_binary_ignored(sig: Signature) -> bool:
    """The simulator against any other oracle: the sign of a zero sum of a binary TCOLSUM (the only element a
    tree and a fold from +0 disagree on among the sums the cpu model pins: -0 terms)."""
    return sig.op == "TCOLSUM" and CPUSIM in sig.oracles() and sig.kind == "signed-zero" \
        and sig.geometry.endswith(",binary")


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tcolsum-binary-ignored", ("TCOLSUM",), CPUSIM,
    "include/pto/cpu/TColSum.hpp:60-64: the four-operand TCOLSUM_IMPL(dst, src, tmp, isBinary) ignores tmp and "
    "isBinary and calls the two-operand form, whose loop (:21-28) adds each column's rows in order into an "
    "accumulator started at 0: a sequential fold from +0 whatever isBinary says, so a column of -0 terms sums to "
    "+0",
    "docs/isa/TCOLSUM.md: isBinary true selects binary-tree accumulation using tmp (false: sequential "
    "accumulation); a tree of additions of two or more -0 terms is -0 (the NPUs' trees, a2a3/TColSum.hpp:19-33 "
    "and a5/TColSum.hpp:33-108, add the rows pairwise from the first)",
    "ptofuzz fuzz tcolsum --oracles cpu,cpusim --dtype float32 --runs 3000 --out findings",
    _tcolsum_binary_ignored),)
BY_NAME = {d.name: d for d in DEFECTS}


#: value mismatch kinds a float sum's rounding history gives (compare's element error classes)
ROUNDING = ("ulp-1", "ulp-2..16", "ulp-large", "inf-vs-finite", "nan-vs-number")
_VECTORIZE = (
    "include/pto/cpu/TRowSum.hpp:24-27: the row-major sum loop is preceded by PTO_CPU_VECTORIZE_LOOP, which "
    "include/pto/cpu/parallel.hpp:29-31 makes '#pragma clang loop vectorize(enable) interleave(enable)' under "
    "clang (g++: 'GCC ivdep', :32-34, which reorders no addition). A forced vectorization lets LLVM reassociate the "
    "float reduction (LangRef, llvm.loop.vectorize.enable), so clang 19 -O2 (x86-64) sums a row of 8 or more terms "
    "in 8 partial sums (two 4-lane accumulators, term j into lane j mod 8, lane 0 started at +0), adds the two "
    "vectors lanewise, folds the 4 lanes in order and then adds the last N mod 8 terms in order; g++ 12 keeps the "
    "loop's order. half/bfloat16 rows (summed in a float accumulator) are reordered alike")
_ORDER_DOC = ("docs/isa/TROWSUM.md: dst(i, 0) = the sum of src(i, j) over j, no order given; the cpu model takes the "
              "header's loop order (increasing j from +0, oracles/ordered.py), which the g++ build follows: a "
              "reference whose sums depend on its compiler pins no golden")


def _trowsum_builds(sig: Signature) -> bool:
    """The simulator's two builds against each other on a float TROWSUM sum's value."""
    return sig.op == "TROWSUM" and sig.pair == BUILDS and sig.dtype_class == "float" and sig.kind in ROUNDING


def _trowsum_clang(sig: Signature) -> bool:
    """The clang build (:attr:`Defect.build`) against any other oracle on a float TROWSUM sum's value."""
    return sig.op == "TROWSUM" and CPUSIM in sig.oracles() and sig.dtype_class == "float" and sig.kind in ROUNDING


DEFECTS = (*DEFECTS, Defect(
    "cpusim-trowsum-order-by-compiler", ("TROWSUM",), CPUSIM, _VECTORIZE, _ORDER_DOC,
    "ptofuzz fuzz trowsum --oracles cpusim,cpusim-clang --dtype float32 --runs 2000 --out findings",
    _trowsum_builds, between_builds=True),
    Defect(
    "cpusim-trowsum-clang-reorders", ("TROWSUM",), CPUSIM, _VECTORIZE, _ORDER_DOC,
    "ptofuzz fuzz trowsum --oracles cpu,cpusim-clang --dtype float32 --runs 2000 --out findings",
    _trowsum_clang, build=CPUSIM_CLANG),)
BY_NAME = {d.name: d for d in DEFECTS}


def _trowsum_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in TROWSUM's int32 accumulator."""
    return sig.op == "TROWSUM" and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "signed-integer-overflow"


DEFECTS = (*DEFECTS, Defect(
    "cpusim-trowsum-signed-overflow-ub", ("TROWSUM",), CPUSIM,
    "include/pto/cpu/TRowSum.hpp:21-27: the row's terms are added into a TypeSum accumulator, which "
    "include/pto/cpu/tile_offsets.hpp:25-27 makes int32_t for an int32_t tile; a row whose partial sum leaves int32's "
    "range is signed-integer overflow, undefined behaviour (UBSan reports it with g++ and clang; -O2 happens to "
    "wrap). int16_t rows add in int after the promotions and convert back, which is defined",
    "docs/isa/TROWSUM.md gives the sum for int32 and states no overflow behaviour; no result is defined by "
    "undefined behaviour",
    "ptofuzz fuzz trowsum --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings",
    _trowsum_overflow),)


def _tcolmax_uint16_rows(sig: Signature) -> bool:
    """The simulator against any other oracle on TCOLMAX's values, for a source of more than 65535 valid rows."""
    return sig.op == "TCOLMAX" and CPUSIM in sig.oracles() and sig.geometry == "rows>65535" \
        and sig.kind not in ("crash", "hang", "fault-vs-value")


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tcolmax-uint16-rows", ("TCOLMAX",), CPUSIM,
    "include/pto/cpu/TColMax.hpp:145 declares TColMax(dst, src, uint16_t M, uint16_t N) and TCOLMAX_IMPL (:183-186) "
    "passes the source's unsigned valid rows and columns to it, so they are taken modulo 65536: a source of "
    "65536 valid rows reduces none past row 0 (the loop of :150 does not run: every column's result is its row "
    "0), one of 65536 + k rows only its first k (TColMin.hpp:210 and the row reductions take unsigned counts)",
    "docs/isa/TCOLMAX.md: dst[0,j] = max over 0 <= i < R of src[i,j] with R = src.GetValidRow(), and no bound on R "
    "but the tile's",
    "ptofuzz fuzz tcolmax --oracles cpu,cpusim --shape 65536x1 --dtype int8 --runs 10 --out findings",
    _tcolmax_uint16_rows),)
BY_NAME = {d.name: d for d in DEFECTS}
BY_NAME = {d.name: d for d in DEFECTS}


OUT_OF_BOUNDS = ("SIGSEGV", "SIGBUS", "SEGV", "heap-buffer-overflow", "stack-buffer-overflow",
                 "global-buffer-overflow", "unknown-crash")


def _tpairreducesum_no_cols(sig: Signature) -> bool:
    """The simulator dying of a memory access out of bounds in TPAIRREDUCESUM (a plain or UBSan build's SIGSEGV,
    AddressSanitizer's heap-buffer-overflow). A crash's signature names no geometry; only cases of valid rows and
    no valid column die so (the tests run every other geometry clean under AddressSanitizer)."""
    return sig.op == "TPAIRREDUCESUM" and sig.pair == CPUSIM and sig.kind == "crash" and sig.region in OUT_OF_BOUNDS


def _tpairreducesum_overflow(sig: Signature) -> bool:
    """UBSan's report of a signed overflow in TPAIRREDUCESUM's int32 pair sum."""
    return sig.op == "TPAIRREDUCESUM" and sig.pair == CPUSIM and sig.kind == "crash" \
        and sig.region == "signed-integer-overflow"


DEFECTS = (*DEFECTS, Defect(
    "cpusim-tpairreducesum-zero-cols", ("TPAIRREDUCESUM",), CPUSIM,
    "include/pto/cpu/TPairReduceSum.hpp:28 computes mid = (validCol + 1) / 2 as a size_t; with validCol 0 and a "
    "valid row, the loop bound mid - 1 at :33 wraps to SIZE_MAX, so the loop (:33-36) writes dst and reads src "
    "ever further past both tiles until the process dies (SIGSEGV; AddressSanitizer reports the first access past "
    "the buffer); :37-39 then write dst[r, mid - 1] as well",
    "docs/isa/TPairReduceSum.md:17 and :21: the iteration domain is validRows x validCols and there are "
    "ceil(validCols / 2) results a row: none for validCols 0, so nothing is read or written",
    "ptofuzz fuzz tpairreducesum --oracles cpu,cpusim --dtype float32 --runs 2000 --out findings",
    _tpairreducesum_no_cols),
    Defect(
    "cpusim-tpairreducesum-signed-overflow-ub", ("TPAIRREDUCESUM",), CPUSIM,
    "include/pto/cpu/TPairReduceSum.hpp:34-35 and :37-39 add two int32_t elements in int32_t; a pair whose sum "
    "leaves int32's range is signed-integer overflow, undefined behaviour (UBSan reports it with g++ and clang; "
    "-O2 happens to wrap). int16_t pairs add in int after the promotions and convert back, which is defined",
    "docs/isa/TPairReduceSum.md gives dst = src0[i, 2k] + src0[i, 2k+1] and names float and half only "
    "(Constraints); it states no integer overflow behaviour, and no result is defined by undefined behaviour",
    "ptofuzz fuzz tpairreducesum --oracles cpu,cpusim --dtype int32 --sanitize undefined --runs 2000 --out findings",
    _tpairreducesum_overflow),)
BY_NAME = {d.name: d for d in DEFECTS}


# ---- pto-spec's executable model ------------------------------------------------------------------------------
# pto-spec's ASL (pto-spec.asl, 0.58.3, run by ASLRef as the ``aslref`` oracle) is code too: where it does something
# other than pto-spec's own prose, the disagreement with ptofuzz's spec model (which follows the prose) is a
# defect of that model, reported as such (never folded into ptofuzz's spec model). Line numbers are those of the
# assembled pto-spec.asl of pto-spec 0.58.3; the prose is PTO-ISA/pto-spec's docs at the same commit.

ASLREF = "aslref"
GENERIC_BITWISE = ("TAND", "TOR", "TXOR", "TSHL", "TSHR")


def _aslref_generic_empty(sig: Signature) -> bool:
    """pto-spec's model against another oracle: one of the five generic tile-tile bitwise operations on an empty
    valid region, executed where the other faults."""
    return sig.op in GENERIC_BITWISE and ASLREF in sig.oracles() and sig.kind == "fault-vs-value" \
        and sig.geometry == "empty"


def _aslref_predicate_capacity(sig: Signature) -> bool:
    """pto-spec's model against another oracle: a TCMP / TCMPS case every pto-spec rule allows, faulted."""
    return sig.op in ("TCMP", "TCMPS") and ASLREF in sig.oracles() and sig.kind == "fault-vs-value" \
        and sig.geometry == "spec-legal"


ASLREF_DEFECTS: tuple[Defect, ...] = (
    Defect(
        "aslref-generic-bitwise-no-lb0", GENERIC_BITWISE, ASLREF,
        "pto-spec.asl:74534-74545 (TileOperationUsesClosedBinarySchema) lists TADD, TSUB, TMUL, TDIV, TREM, TMAX "
        "and TMIN only; TAND, TOR, TXOR, TSHL and TSHR fall under no closed schema, so the bundle commit checks no "
        "LB0, a missing or zero LB0 takes the first source's valid columns (BundleDestinationValidRows/Columns, "
        ":77741-77775) and the operation runs on an empty valid region (ExecuteTileBinary, :66003, loops over "
        "nothing); with no valid rows the model stops on assert rows > 0 (ConfigureTileForMask, :30842) instead",
        "pto-spec docs/tile/elementwise-tile-tile/logical/TAND.md:112 (LB0 is required and supplies a nonzero "
        "ValidCol) and :142 (missing or zero dimensions raise Fault_TileLegality before effects); ADR 0080 "
        "(decisions/0080-tile-elementwise-and-irregular-operations.md:358-359, and :391, :452 for TOR, TSHL): the "
        "closed Local binary VEC schema",
        "ptofuzz fuzz tand --oracles spec,aslref --batch 1 --runs 64 --seed 1 --out findings",
        _aslref_generic_empty),
    Defect(
        "aslref-predicate-capacity-per-element", ("TCMP", "TCMPS"), ASLREF,
        "pto-spec.asl:32173-32189 (TileDescriptorConfigured) requires rows * columns <= "
        "TileLogicalElementCapacity(capacity, data_type) of every tile, and a predicate tile's data type is U8 "
        "(:30917): one byte an element; the bundle allocates a predicate destination ceil(Row*Col/8) bytes "
        "(ResolveBundlePredicateDestination, :78008), so every TCMP / TCMPS destination of more than 128 elements "
        "(a 128-byte tile) is refused at the commit (TileLogicalShapeMatch, :70500 and :70519)",
        "pto-spec ADR 0080 (decisions/0080-tile-elementwise-and-irregular-operations.md:702-703): a predicate's "
        "allocated capacity must hold at least ceil(Row*Col/8) bytes; TCMP.md:136 and ADR 0081:416-417 (TCMPS) "
        "alike",
        "ptofuzz fuzz tcmp --oracles spec,aslref --shape 16x16 --dtype float32 --runs 64 --out findings",
        _aslref_predicate_capacity),
    Defect(
        "aslref-tmax-tmin-no-invalid", ("TMAX", "TMIN"), ASLREF,
        "pto-spec.asl:66003 (ExecuteTileBinary) computes each element with TileProfileBinary (:65992-66001), which "
        "drops the flags TileProfileBinaryWithFlags computes (:65963-65968 raise the invalid flag for a signaling "
        "NaN): TMAX / TMIN never raise NV (TMAXS / TMINS do: ExecuteTileScalar records them, :66084)",
        "pto-spec docs/tile/.../TMAX.md:128 and :159, TMIN.md:128 and :159 (a signaling NaN reports the numeric "
        "profile's invalid condition), spec/evidence/numeric-special-value-contract.json:17",
        "ptofuzz gen tmax --platform spec --dtype float32 --shape 8x16 --special snan --special-rate 0.5 -o cases "
        "&& ptofuzz check cases --oracle aslref (the manifest's NV against the model's no flags)"),
)
DEFECTS = (*DEFECTS, *ASLREF_DEFECTS)
BY_NAME = {d.name: d for d in DEFECTS}
