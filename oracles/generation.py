"""The generation instructions (TEXPANDS, TCI, TTRI): one oracle per semantics.

None of them reads a tile. Each oracle takes a :class:`~ptofuzz.core.case.Case` (the role ``dst``; TEXPANDS also
the role ``scalar``, a 1x1 tile of the element type, whose bits may carry a leading batch axis) and its inputs, and
returns an :class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape. What an
operation does not write is undefined. The scalar parameters are case params: TCI's ``start`` (the raw bits of
the first element) and ``descending`` (0 or 1), TTRI's ``upper`` (0 lower, 1 upper) and ``diagonal`` (a signed
integer), and for TEXPANDS on a Mat tile (pto-isa's texpands_mat tests, whose kernels pass an immediate) ``mat``
and ``value`` (the immediate's raw bits) in place of a scalar tile.

Sources:
- ``spec``: pto-spec 0.58. TEXPANDS: ``asl/tile/tile-scalar-and-immediate/initialization/TEXPANDS.asl`` with
  ``ExecuteTileFillScalar`` (``asl/tile/model/execution/elementwise.asl``): every valid element receives the
  scalar's low element-width bits, no conversion; legality (``TileOperandsLegal_ExecuteTileFillScalar``, the
  block's nonzero dimensions): a legal row-major descriptor, a non-empty valid region, the arithmetic element
  types (64-bit integers too). TCI and TTRI: ``asl/tile/irregular-and-complex/initialization/T{CI,TRI}.asl`` with
  ``asl/tile/model/execution/generation.asl``: TCI writes ``start + k`` or ``start - k`` into logical column ``k``
  of its one valid row, modulo the element width (S32, S16, U32, U16; legality ``TileOperandsLegal_TCI``: valid
  rows exactly 1, valid columns at least 1); TTRI writes the typed one (FP32 0x3f800000, FP16 0x3c00, integers
  1) where ``c <= r + diagonal`` (lower) or ``c >= r + diagonal`` (upper), the typed zero elsewhere, with no wrap
  (FP32, FP16, S32, S16, U32, U16; a non-empty valid region; a diagonal outside -65535..65535 is
  Fault_TileLegality). Outside the valid region: Null padding (undefined).
- ``documented`` (cpu and the NPUs): pto-isa ``docs/isa/{TEXPANDS,TCI,TTRI}.md``. TEXPANDS: ``dst = scalar``
  over the valid region of a Vec tile, over the whole tile (Rows x Cols) of a Mat tile; the scalar parameter has
  the element type, so its bits are copied (a NaN's payload, -0). Only where a test carries the scalar in a
  float32 file and the kernel converts it to float16 or bfloat16 is a NaN's payload open (that conversion is no
  document's): ``nan``. TCI: ``dst_k = S + k`` or ``S - k`` over ``dst.GetValidCol()`` columns of row 0 (the page:
  ``GetValidRow()`` is not consulted; ``TileData::Rows == 1`` is required, else unsupported). The page says
  nothing of a result that does not fit the type: ``undefined`` (as integer overflow is for TADD). A2A3 takes
  floating types too: ``S +- k`` is exact where the element type holds it; where it would have to round (the
  page gives no rounding) ``undefined``; a NaN start gives some NaN (``nan``); ``-0 + 0`` some zero (``zero``).
  TTRI: the page's two cases (lower ``1`` where ``j <= i + d``, upper ``0`` where ``j < i + d``, else the other),
  for any ``int`` diagonal, over the valid region; ``1`` and ``0`` of the element type.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import COMMIT, EXACT, NAN, UNDEFINED, ZERO, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import descriptors, ieee

OPS = ("TEXPANDS", "TCI", "TTRI")
#: the element types pto-spec takes: TEXPANDS the arithmetic ones (TileVecArithmeticDataTypeSupported, as far as
#: ptofuzz has them), TCI TileTCIDataTypeSupported, TTRI TileTTRIDataTypeSupported
SPEC_DTYPES = {
    "TEXPANDS": ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8", "int64",
                 "uint64"),
    "TCI": ("int32", "int16", "uint32", "uint16"),
    "TTRI": ("float32", "float16", "int32", "int16", "uint32", "uint16"),
}
START, DESCENDING = "start", "descending"  # TCI: the first element's raw bits; 1 = descending
UPPER, DIAGONAL = "upper", "diagonal"  # TTRI: 1 = upper; the signed diagonal
MAT, VALUE = "mat", "value"  # TEXPANDS on a Mat tile ("tile" or "conv"): the kernel's immediate, raw bits
SPEC_DIAGONAL = 65535  # pto-spec's bound on |diagonal|


def one_bits(dt: DType) -> int:
    """The bits of the element ``1``: pto-spec's TileTTRIOneEncoding, the pages' typed one."""
    return {"float32": 0x3F800000, "float16": 0x3C00, "bfloat16": 0x3F80}.get(dt.name, 1)


def _fault(case: Case, why: str) -> Outcome:
    return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)


def _ok(out: np.ndarray, cls: np.ndarray, spec: bool) -> Outcome:
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": cls}, flags=() if spec else None)


def _blank(case: Case, batch: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """The destination before the operation: zero placeholders, all undefined."""
    shape = batch + case.tile("dst").shape
    return np.zeros(shape, dtype=get(case.dtype).bits_dtype), np.full(shape, UNDEFINED, dtype=np.uint8)


def _descriptor(case: Case) -> str:
    return descriptors.problem(case.tile("dst"), get(case.dtype), max_bytes=descriptors.LOCAL_MAX)


# ---- TEXPANDS ---------------------------------------------------------------------------------------------------

def scalar_bits(case: Case, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The scalar as a (..., 1, 1) array of element bits: the ``scalar`` input, or a Mat case's immediate."""
    if case.param(VALUE) is not None and "scalar" not in dict(case.tiles):
        return np.array([[case.param(VALUE)]], dtype=get(case.dtype).bits_dtype)
    out: np.ndarray = inputs["scalar"][..., :1, :1]
    return out


def fill_region(case: Case) -> tuple[int, int]:
    """The rows and columns TEXPANDS writes: a Vec tile's valid region, a Mat tile's whole shape."""
    d = case.tile("dst")
    return d.shape if case.param(MAT) else d.valid


def _fill(case: Case, inputs: Mapping[str, np.ndarray], *, spec: bool, carried: bool) -> Outcome:
    dt = get(case.dtype)
    s = scalar_bits(case, inputs)
    out, cls = _blank(case, s.shape[:-2])
    rows, cols = fill_region(case)
    out[..., :rows, :cols] = s
    code = np.where(ieee.is_nan(s, dt), np.uint8(NAN), np.uint8(EXACT)) if carried and dt.is_float \
        else np.uint8(EXACT)
    cls[..., :rows, :cols] = code
    return _ok(out, cls, spec)


def texpands_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality when the destination is no legal descriptor or its valid region is empty (pto-spec)."""
    problem = _descriptor(case)
    if problem:
        return _fault(case, f"dst: {problem}")
    if 0 in case.tile("dst").valid:
        return _fault(case, "an empty valid region (LB0 must be nonzero; LB1 defaults to 1)")
    return None


def texpands_spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = texpands_legality(case)
    return fault if fault is not None else _fill(case, inputs, spec=True, carried=False)


def texpands_documented(case: Case, inputs: Mapping[str, np.ndarray], *, carried: bool = False) -> Outcome:
    """``dst = scalar``; ``carried``: the test's file carries a float16/bfloat16 scalar as a float32 (a NaN's
    payload after the kernel's conversion is open)."""
    return _fill(case, inputs, spec=False, carried=carried)


# ---- TCI ----------------------------------------------------------------------------------------------------------

def tci_columns(case: Case) -> int:
    """How many elements TCI writes (row 0): ``dst.GetValidCol()``."""
    return case.tile("dst").valid_cols


def _signed(bits: int, dt: DType) -> int:
    v = bits & ((1 << dt.bits) - 1)
    return v - (1 << dt.bits) if dt.kind == "int" and v >> (dt.bits - 1) else v


def tci_integers(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """The wrapped sequence bits of an integer TCI case and where the exact ``S +- k`` does not fit the type."""
    dt = get(case.dtype)
    start = _signed(int(case.param(START, 0)), dt)
    k = np.arange(tci_columns(case), dtype=np.int64)
    exact = start - k if case.param(DESCENDING) else start + k
    wrapped = (exact & ((1 << dt.bits) - 1)).astype(np.uint64).astype(dt.bits_dtype)
    return wrapped, (exact < dt.int_min) | (exact > dt.int_max)


def tci_floats(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """The bits and classes of a floating TCI case (A2A3): ``S +- k`` where the type holds it exactly."""
    dt = get(case.dtype)
    n = tci_columns(case)
    bits = np.array([int(case.param(START, 0))], dtype=dt.bits_dtype)
    s = float(ieee.to_float64(bits, dt)[0])
    k = np.arange(n, dtype=np.float64)
    if ieee.is_nan(bits, dt)[0]:
        return np.repeat(bits, n), np.full(n, NAN, dtype=np.uint8)
    if ieee.is_inf(bits, dt)[0]:
        return np.repeat(bits, n), np.zeros(n, dtype=np.uint8)
    b = -k if case.param(DESCENDING) else k
    total = s + b
    back = total - s  # two-sum: the float64 sum is exact when its rounding error is zero
    err = (s - (total - back)) + (b - back)
    out = ieee.from_float64(total, dt)
    held = (err == 0) & (ieee.to_float64(out, dt) == total)
    cls = np.where(held, np.uint8(EXACT), np.uint8(UNDEFINED)).astype(np.uint8)
    if n:
        out[0] = bits[0]  # dst_0 = S
        cls[0] = ZERO if ieee.is_zero(bits, dt)[0] and ieee.is_negative(bits, dt)[0] else EXACT  # -0 + 0: a zero
    return out, cls


def tci_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality unless the destination is a legal descriptor with exactly one valid row and at least
    one valid column, and the direction is 0 or 1 (pto-spec ``TileOperandsLegal_TCI``)."""
    problem = _descriptor(case)
    d = case.tile("dst")
    if problem:
        return _fault(case, f"dst: {problem}")
    if d.valid_rows != 1:
        return _fault(case, f"valid rows {d.valid_rows} (TCI writes exactly one row)")
    if d.valid_cols < 1:
        return _fault(case, "an empty valid region (LB0 must be nonzero)")
    if case.param(DESCENDING, 0) not in (0, 1):
        return _fault(case, f"direction {case.param(DESCENDING)} (must be 0 or 1)")
    return None


def tci_spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = tci_legality(case)
    if fault is not None:
        return fault
    out, cls = _blank(case)
    wrapped, _ = tci_integers(case)
    out[0, :len(wrapped)] = wrapped
    cls[0, :len(wrapped)] = EXACT
    return _ok(out, cls, True)


def tci_documented(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    d = case.tile("dst")
    if d.rows != 1:
        return Outcome.unsupported(f"docs/isa/TCI.md: TileData::Rows must be 1 (this tile has {d.rows} rows)")
    out, cls = _blank(case)
    dt = get(case.dtype)
    if dt.is_float:
        bits, codes = tci_floats(case)
    else:
        bits, overflow = tci_integers(case)
        codes = np.where(overflow, np.uint8(UNDEFINED), np.uint8(EXACT)).astype(np.uint8)
    out[0, :len(bits)] = bits
    cls[0, :len(bits)] = codes
    return _ok(out, cls, False)


# ---- TTRI ---------------------------------------------------------------------------------------------------------

def triangle(case: Case) -> np.ndarray:
    """Where the typed one goes over the valid region: ``c <= r + d`` (lower) or ``c >= r + d`` (upper)."""
    vr, vc = case.tile("dst").valid
    boundary = np.arange(vr, dtype=np.int64)[:, None] + int(case.param(DIAGONAL, 0))
    c = np.arange(vc, dtype=np.int64)[None, :]
    out: np.ndarray = c >= boundary if case.param(UPPER) else c <= boundary
    return out


def _ttri(case: Case, spec: bool) -> Outcome:
    dt = get(case.dtype)
    out, cls = _blank(case)
    vr, vc = case.tile("dst").valid
    out[:vr, :vc] = np.where(triangle(case), np.array(one_bits(dt), dtype=dt.bits_dtype),
                             np.zeros((), dtype=dt.bits_dtype))
    cls[:vr, :vc] = EXACT
    return _ok(out, cls, spec)


def ttri_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality unless the destination is a legal descriptor with a non-empty valid region, the
    orientation 0 or 1 and the diagonal within -65535..65535 (pto-spec ``TileOperandsLegal_TTRI``)."""
    problem = _descriptor(case)
    if problem:
        return _fault(case, f"dst: {problem}")
    if 0 in case.tile("dst").valid:
        return _fault(case, "an empty valid region (LB0 must be nonzero)")
    if case.param(UPPER, 0) not in (0, 1):
        return _fault(case, f"orientation {case.param(UPPER)} (must be 0 or 1)")
    if abs(int(case.param(DIAGONAL, 0))) > SPEC_DIAGONAL:
        return _fault(case, f"diagonal {case.param(DIAGONAL)} outside -{SPEC_DIAGONAL}..{SPEC_DIAGONAL}")
    return None


def ttri_spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = ttri_legality(case)
    return fault if fault is not None else _ttri(case, True)


def ttri_documented(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _ttri(case, False)


# ---- per op -----------------------------------------------------------------------------------------------------

def legality(case: Case) -> Outcome | None:
    """pto-spec's fault for ``case``, or None when it is legal (the dtype aside: the registry checks it)."""
    return {"TEXPANDS": texpands_legality, "TCI": tci_legality, "TTRI": ttri_legality}[case.op](case)

