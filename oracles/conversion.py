"""TCVT: ``dst = cast(src)`` over the valid region, in a rounding mode and a saturation mode, on raw bits.

A case's ``dtype`` is the source's; its params: ``to`` (the destination's type), ``rmode`` (``pto::RoundMode``'s
ordinal: 0 CAST_NONE, 1 CAST_RINT, 2 CAST_ROUND, 3 CAST_FLOOR, 4 CAST_CEIL, 5 CAST_TRUNC, 6 CAST_ODD; and, on spec
only, 7: pto-spec's RHB, B.DATR RMode 7, nearest with a tie to the greater neighbour, which pto-isa lacks) and ``sat``
(0 ``SaturationMode::ON``, 1 ``OFF``; absent: the form without a saturation argument). Every value is converted
by :mod:`ptofuzz.oracles.convert` (exact, rounded once); what follows says which results the documents fix and
which they leave open (classed, never filled in).

- ``spec``: pto-spec 0.58.3. ``asl/tile/elementwise-tile-tile/format-conversion/TCVT.asl`` and
  ``asl/tile/model/numeric/formats.asl`` (the tiles: one legal descriptor each, equal shapes and valid regions, a
  non-empty region, else Fault_TileLegality); integer to integer as ``formats.asl`` computes it (saturation on:
  clamp; off: the destination's low bits); every other pair by the rules of ADR 0047 (accepted) and
  ``spec/hardware-conformance-profile.json``, which the executable model leaves to its profile hook: CAST_NONE
  rounds toward zero from a float to an integer and to nearest even otherwise; round once, then saturate; IEEE
  754 gradual underflow; every produced NaN is the destination's canonical NaN. Saturation off (the default): a
  float overflow follows the destination format (IEEE 754), NaN and infinities to an integer give the
  indefinite value (signed: the minimum, unsigned: the maximum). Saturation on: clamp to the destination's range
  (a float: the largest finite), NaN to an integer 0. ADR 0090 (a draft) leaves a finite value past an integer
  destination's range with saturation off open, and an infinity to a float with saturation on: ``undefined``.
- ``documented`` (cpu and the NPUs): pto-isa's ``docs/isa/TCVT.md`` (``dst = cast_rmode(src)``, the pairs each
  target supports) and ``docs/isa/state-and-types/type-system.md`` (NaN and infinities handled per IEEE 754; f32
  to f32 is "round-only": a rounding to an integral value in the mode). The page names no rounding for CAST_NONE
  (an inexact result is ``undefined``; an exact one is the same in every direction) and leaves the default
  saturation of each pair to the target (where saturation on and off differ, ``undefined``). Saturation on clamps
  to the destination's range; a NaN to an integer is ``undefined`` (no page says what it becomes). Saturation
  off: a result past an integer destination's range, and an infinity to an integer, are ``undefined``; a float
  overflow is IEEE 754's. A NaN to a float is some NaN (``nan``). type-system.md says A2/A3 and A5 flush
  denormals by default and says no more: on the NPUs an element whose source or result is subnormal is
  ``undefined``. bfloat16 to float16: TCVT.md converts, type-system.md reinterprets the bits: ``undefined``.

The 8-bit floats (TCVT.md's A5 column: FP32 to FP8_E4M3, FP8_E5M2 and H8, FP16 to H8, and each of them to FP32;
pto-spec: every pair; the formats as pto-spec's ``e4m3.asl``, ``e5m2.asl`` and ``hif8.asl`` define them, see
``ptofuzz/core/minifloat.py``). To FP32 every value is exact. To them, ``dst = cast_rmode(src)`` rounds in the
mode (type-system.md: "Round according to rnd attribute; may overflow to Inf") and the rules above apply, with
these, on both sides (the profile's "floating overflow follows the destination format" finds nothing to follow):

- E4M3 has no infinity: where IEEE 754's overflow (or an infinite source) would give one and saturation is not
  on, the result is open (``undefined``; OCP's non-saturating E4M3 gives the NaN code, which type-system.md's
  "overflow to Inf" cannot mean). Where the direction gives the largest finite value (toward zero, to odd,
  toward the other infinity) it is exact, and saturation on clamps to +-448 as for any float.
- HiFloat8's overflow threshold under the nearest modes: no document places the boundary between its largest
  finite value 32768 and its infinity (E4M3 and E5M2 have a binary grid to extend; HiFloat8's top binade holds one
  fraction bit, and its infinity takes the next grid point's code). A value strictly between 32768 and 49152 (that
  grid point) rounded to nearest (RNE, RNA) without saturation is ``undefined``; 32768 itself, 49152 and beyond,
  and every directed mode (RTZ, RTO: 32768; RTP, RTM: the infinity on their side, else 32768) are IEEE 754's.
- A NaN to HiFloat8 is its one NaN 0x80 (its status says so; the rule "some NaN" holds: 0x80 is the only one),
  to E4M3 a NaN (0x7F/0xFF), to E5M2 a NaN (the spec: the canonical 0x80, 0x7F, 0x7E). HiFloat8 has one zero: a
  negative value rounding to zero is 0x00.

The 4-bit types (one element a byte here, the low nibble; files pack two where a test does, see
``ptofuzz/core/nibbles.py``): FP4 E2M1 and E1M2 (pto-spec's ``E2M1X2`` and ``E1M2X2`` lanes, ``e2m1x2.asl``,
``e1m2x2.asl``, the profile's lane tables: largest 6 and 1.75, finite only, see ``ptofuzz/core/minifloat.py``)
and int4 (``S4X2``'s lane, -8..7; pto-isa's ``int4b_t``). TCVT.md's table has A2A3's FP16 to and from S4 and
A5's BF16 to and from FP4_E1M2X2 and FP4_E2M1X2 (type-system.md: "Float4 E1M2x2", "Float4 E2M1x2"); the cpu
converts float32 to and from all three (its system test does), where ``dst = cast_rmode(src)`` and the rules above
decide. int4 is an integer like any other (saturation on clamps to -8..7; off, a result past it is
``undefined`` on the pages; pto-spec's indefinite lane 0x8 for NaN and infinities). From any 4-bit type every
value is exact. To FP4, rounded once in the mode; FP4 has no infinity: where IEEE 754's overflow (or an infinite
source) would give one and saturation is not on, the result is open (``undefined``), as E4M3's; where the
direction gives the largest finite value it is exact, and saturation on clamps to it (E2M1 6, E1M2 1.75). FP4
has no NaN: a NaN source is ``undefined`` whatever the saturation (the profile's "NaN converts to zero" is said
of saturating integer conversion). pto-spec's E2M1X2 and E1M2X2 declare no subnormals (0.5, 0.25 are ordinary
values), so the NPUs' flush of denormals does not touch them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import COMMIT, EXACT, NAN, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import convert as cv
from ptofuzz.oracles import descriptors, ieee, memo

TO, RMODE, SAT = "to", "rmode", "sat"
SAT_ON, SAT_OFF = 0, 1
RHB_MODE = 7  # rmode 7: pto-spec's RHB (spec only)
#: the element types pto-spec converts that ptofuzz has (every ordered pair of them is a TCVT)
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
               "uint64", "float8_e4m3", "float8_e5m2", "hifloat8", "float4_e2m1", "float4_e1m2", "int4")
#: the finite-only 4-bit floats (pto-spec's E2M1X2 and E1M2X2 lanes): no infinity, no NaN
FP4 = ("float4_e2m1", "float4_e1m2")
#: HiFloat8's largest finite value and the grid point past it (its infinity code's place)
HIF8_MAX, HIF8_BEYOND = 32768.0, 49152.0


def pair(case: Case) -> tuple[DType, DType]:
    return get(case.dtype), get(case.param(TO) or case.dtype)


def direction(case: Case) -> str:
    """The rounding direction of the case's mode (CAST_NONE: pto-spec's default for the pair)."""
    src, dst = pair(case)
    mode = int(case.param(RMODE, 0) or 0)
    if mode == RHB_MODE:
        return cv.RHB
    return cv.default_direction(src, dst) if mode == 0 else cv.MODE_DIRECTION[cv.ROUND_MODES[mode]]


def _integral(bits: np.ndarray, dt: DType, how: str) -> tuple[np.ndarray, np.ndarray]:
    """f32 to f32 on pto-isa ("round-only"): each value rounded to an integral value of the same type."""
    x = cv.decode(bits, dt)
    frac = x.exp < 0
    mag, inexact = cv.shift_round(x.mag, np.maximum(-x.exp, 0), x.neg, how)
    whole = cv.Exact(x.neg, np.where(frac, mag, x.mag), np.where(frac, 0, x.exp), x.kind)
    out, status = cv.to_float(whole, dt, cv.RNE)  # exact: an integral value of at most 24 bits, or the input
    status = np.where(frac & inexact & (status == cv.EXACT_RESULT), cv.INEXACT, status).astype(np.uint8)
    return out, status


def _clamped(out: np.ndarray, status: np.ndarray, x: cv.Exact, dst: DType) -> np.ndarray:
    """Saturation: results past the destination's range (and infinities) clamped to its ends."""
    past = (status == cv.OVERFLOW) | (status == cv.INFINITE)
    if dst.is_float:
        big = np.array(cv.largest_finite(dst), dtype=dst.bits_dtype)
        end = np.where(x.neg, big | np.array(dst.sign_mask, dtype=dst.bits_dtype), big)
    else:
        lo = (dst.int_min & ((1 << dst.bits) - 1))
        end = np.where(x.neg, np.array(lo, dtype=dst.bits_dtype), np.array(dst.int_max, dtype=dst.bits_dtype))
    out_: np.ndarray = np.where(past, end, out).astype(dst.bits_dtype)
    return out_


def _subnormal_involved(bits: np.ndarray, src: DType, out: np.ndarray, dst: DType) -> np.ndarray:
    mask = np.zeros(bits.shape, dtype=bool)
    if src.is_float:
        mask |= ieee.is_subnormal(bits, src)
    if dst.is_float:
        mask |= ieee.is_subnormal(out, dst)
    return mask


def _open_range(x: cv.Exact, out: np.ndarray, status: np.ndarray, dst: DType, how: str) -> np.ndarray:
    """Where the 8-bit floats leave a range result open without saturation (the module docstring): E4M3's
    infinity that is not there, HiFloat8's overflow threshold under the nearest modes."""
    mask = np.zeros(out.shape, dtype=bool)
    if dst.name in FP4:  # where IEEE 754 would give an infinity (the core gives the largest value): open
        gives_inf = {cv.RNE: ~x.neg | x.neg, cv.RNA: ~x.neg | x.neg, cv.RTP: ~x.neg, cv.RTM: x.neg}.get(
            how, np.zeros(out.shape, dtype=bool))
        mask |= (status == cv.INFINITE) | ((status == cv.OVERFLOW) & gives_inf)
    elif dst.name == "float8_e4m3":
        mask |= (status == cv.INFINITE) | ((status == cv.OVERFLOW) & ieee.is_nan(out, dst))
    elif dst.name == "hifloat8" and how in (cv.RNE, cv.RNA, cv.RHB):
        with np.errstate(over="ignore"):
            a = np.ldexp(x.mag.astype(np.float64), np.clip(x.exp, -2000, 2000))
        mask |= (x.kind == cv.FINITE) & (a > HIF8_MAX) & (a < HIF8_BEYOND)
    return mask


_MEMO = memo.Memo("tcvt_shared")
#: the instruction's shared context: the platforms of one case convert its elements once (only the classing differs)
shared_work = _MEMO.scope


def _converted(bits: np.ndarray, src: DType, dst: DType, how: str, integral: bool
               ) -> tuple[cv.Exact, np.ndarray, np.ndarray]:
    """The decoded source, the converted bits and the statuses (inside :func:`shared_work`, once per region of
    memory, pair and direction; the results are read only)."""
    def compute() -> tuple[cv.Exact, np.ndarray, np.ndarray]:
        x = cv.decode(bits, src)
        if integral:
            out, status = _integral(bits, src, how)
        else:
            out, status = cv.to_float(x, dst, how) if dst.is_float else cv.to_integer(x, dst, how)
        return x, out, status

    return _MEMO.get((bits,), (src.name, dst.name, how, integral), compute)


def _fp4_open(x: cv.Exact, status: np.ndarray, sat: int | None, how: str) -> np.ndarray:
    """The elements a conversion to FP4 leaves open on pto-isa (the 4-bit paragraph of the module docstring): a
    NaN source; without saturation on, an infinite source, and an overflow where IEEE 754's direction would give
    an infinity."""
    mask: np.ndarray = status == cv.NAN_SOURCE
    if sat != SAT_ON:
        to_inf = {cv.RNE: True, cv.RNA: True, cv.RTZ: False, cv.RTO: False}.get(how)
        inf_side = (~x.neg if how == cv.RTP else x.neg) if to_inf is None else np.full(x.neg.shape, to_inf)
        mask |= (status == cv.INFINITE) | ((status == cv.OVERFLOW) & inf_side)
    return mask


def _values(case: Case, src_bits: np.ndarray, spec: bool, npu: bool) -> tuple[np.ndarray, np.ndarray]:
    """The destination bits and classes of every source element (the whole tile, valid or not)."""
    src, dst = pair(case)
    mode = int(case.param(RMODE, 0) or 0)
    sat = case.param(SAT)
    how = direction(case)
    x, out, status = _converted(src_bits, src, dst, how, integral=not spec and src == dst and src.is_float)
    cls = np.full(out.shape, EXACT, dtype=np.uint8)
    past = (status == cv.OVERFLOW) | (status == cv.INFINITE)
    nan = status == cv.NAN_SOURCE
    open_range = _open_range(x, out, status, dst, how) if sat != SAT_ON else np.zeros(out.shape, dtype=bool)
    if spec:
        if sat == SAT_ON:
            out = _clamped(out, status, x, dst)
            if dst.is_float:
                cls[status == cv.INFINITE] = UNDEFINED  # ADR 0090: an infinity to a float, saturated, is open
            else:
                out = np.where(nan, np.zeros((), dtype=out.dtype), out).astype(dst.bits_dtype)
        elif not dst.is_float:
            indefinite = dst.int_min & ((1 << dst.bits) - 1) if dst.kind == "int" else (1 << dst.bits) - 1
            invalid = nan | (status == cv.INFINITE)
            out = np.where(invalid, np.array(indefinite, dtype=dst.bits_dtype), out).astype(dst.bits_dtype)
            if src.is_float:
                cls[status == cv.OVERFLOW] = UNDEFINED  # ADR 0090: finite past the range, unsaturated, is open
        if dst.name in FP4:  # no NaN to produce, and "NaN converts to zero" is the integers' rule: open
            cls[nan] = UNDEFINED
        elif dst.is_float:  # the canonical NaN, as the profile produces it (its sign: positive)
            out = np.where(nan, np.array(dst.canonical_nan, dtype=dst.bits_dtype), out).astype(dst.bits_dtype)
        cls[open_range] = UNDEFINED
        return out, cls
    if mode == 0:
        cls[status == cv.INEXACT] = UNDEFINED  # the page names no rounding for CAST_NONE
    if sat == SAT_ON:
        out = _clamped(out, status, x, dst)
        if not dst.is_float:
            cls[nan] = UNDEFINED
    elif sat == SAT_OFF:
        if not dst.is_float:
            cls[past | nan] = UNDEFINED
    else:  # the target's default saturation: where on and off differ, open
        cls[past] = UNDEFINED
        if not dst.is_float:
            cls[nan] = UNDEFINED
    if dst.name in FP4:
        cls[nan] = UNDEFINED  # the format has no NaN, and no page says what one becomes
    elif dst.is_float:
        cls[nan] = np.where(cls[nan] == UNDEFINED, UNDEFINED, NAN)
    cls[open_range] = UNDEFINED
    if dst.is_table and dst.bits == 4:  # FP4: finite only
        cls[_fp4_open(x, status, sat, how)] = UNDEFINED
    if npu:
        cls[_subnormal_involved(src_bits, src, out, dst)] = UNDEFINED
    if src.name == "bfloat16" and dst.name == "float16":
        cls[...] = UNDEFINED  # TCVT.md converts, type-system.md reinterprets the bits
    return out, cls


CHUNK = 1 << 15  # elements converted at a time


def _outcome(case: Case, inputs: Mapping[str, np.ndarray], *, spec: bool, npu: bool) -> Outcome:
    d = case.tile("dst")
    src_bits = np.asarray(inputs["src"])
    rows, cols = d.valid
    lead = src_bits.shape[:-2]
    dst_bits = np.zeros((*lead, *d.shape), dtype=pair(case)[1].bits_dtype)
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    valid = src_bits[..., :rows, :cols]
    # the valid elements only, a batch in cache-sized pieces (the core's uint64 temporaries are many)
    step = max(1, CHUNK // max(rows * cols, 1)) if valid.ndim == 3 else len(valid) + 1
    parts = [slice(at, at + step) for at in range(0, len(valid), step)] if valid.ndim == 3 else [Ellipsis]
    for part in parts:
        out, cls = _values(case, valid[part], spec, npu)
        dst_bits[part][..., :rows, :cols] = out
        classes[part][..., :rows, :cols] = cls
    return Outcome(OutcomeKind.OK, outputs={"dst": dst_bits}, classes={"dst": classes},
                   flags=() if spec else None)


def legality(case: Case) -> Outcome | None:
    """pto-spec's Fault_TileLegality: a tile that is no legal descriptor of its type, tiles of different shapes
    or valid regions, an empty region, a rounding mode other than 0..6, a saturation other than on or off."""
    src, dst = pair(case)
    s, d = case.tile("src"), case.tile("dst")
    why = descriptors.problem(d, dst, max_bytes=descriptors.LOCAL_MAX) or \
        descriptors.problem(s, src, max_bytes=descriptors.LOCAL_MAX)
    if not why and (s.shape != d.shape or s.valid != d.valid):
        why = f"src {s.token()} and dst {d.token()} differ (TCVT takes one shape and valid region)"
    if not why and 0 in d.valid:
        why = "an empty valid region (LB0 must be nonzero)"
    if not why and int(case.param(RMODE, 0) or 0) not in range(8):
        why = f"rounding mode {case.param(RMODE)} (CAST_NONE..CAST_ODD are 0..6, RHB 7)"
    if not why and case.param(SAT) not in (None, SAT_ON, SAT_OFF):
        why = f"saturation {case.param(SAT)} (0 on, 1 off)"
    if why:
        return Outcome.faulted("Fault_TileLegality", 5, f"TCVT: {why}", COMMIT)
    return None


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = legality(case)
    return fault if fault is not None else _outcome(case, inputs, spec=True, npu=False)


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _outcome(case, inputs, spec=False, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _outcome(case, inputs, spec=False, npu=True)
