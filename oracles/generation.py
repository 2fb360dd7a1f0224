"""The generation instructions (TEXPANDS, TCI, TTRI): one oracle per semantics.

None of them reads a tile. Each oracle takes a :class:`~ptofuzz.core.case.Case` (the role ``dst``; TEXPANDS also
the role ``scalar``, a 1x1 tile of the element type, whose bits may carry a leading batch axis) and its inputs, and
returns an :class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape. What an
operation does not write is undefined. The scalar parameters are case params: TCI's ``start`` (the raw bits of
the first element) and ``descending`` (0 or 1), TTRI's ``upper`` (0 lower, 1 upper) and ``diagonal`` (a signed
integer), and for TEXPANDS on a Mat tile (pto-isa's texpands_mat tests, whose kernels pass an immediate) ``mat``
and ``value`` (the immediate's raw bits) in place of a scalar tile. A batch may carry TCI's start and TTRI's
diagonal per item instead, as inputs of those names (:func:`~ptofuzz.core.case.param_values`); the outcome then
has their batch axis.

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

from ptofuzz.core.case import COMMIT, EXACT, NAN, UNDEFINED, ZERO, Case, Outcome, OutcomeKind, param_values
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


def _lead(inputs: Mapping[str, np.ndarray] | None, name: str) -> tuple[int, ...]:
    """The batch axes of a batch that varies parameter ``name`` per item (none when the case fixes it)."""
    given = None if inputs is None else inputs.get(name)
    return () if given is None else tuple(np.shape(given)[:-2])


def _starts(case: Case, inputs: Mapping[str, np.ndarray] | None) -> np.ndarray:
    """TCI's start bits, one per item (shape (n, 1)) or the case's (shape (1,)), masked to the element width."""
    dt = get(case.dtype)
    out: np.ndarray = param_values(case, inputs or {}, START)[..., 0] & ((1 << dt.bits) - 1)
    return out


def tci_integers(case: Case, inputs: Mapping[str, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The wrapped sequence bits of an integer TCI case and where the exact ``S +- k`` does not fit the type:
    shape (columns,), or (n, columns) for a batch whose inputs carry ``start`` per item."""
    dt = get(case.dtype)
    start = _starts(case, inputs)
    if dt.kind == "int":
        start = np.where(start >> (dt.bits - 1) == 1, start - (1 << dt.bits), start)
    k = np.arange(tci_columns(case), dtype=np.int64)
    exact = start - k if case.param(DESCENDING) else start + k
    wrapped = (exact & ((1 << dt.bits) - 1)).astype(np.uint64).astype(dt.bits_dtype)
    return wrapped, (exact < dt.int_min) | (exact > dt.int_max)


def tci_floats(case: Case, inputs: Mapping[str, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The bits and classes of a floating TCI case (A2A3): ``S +- k`` where the type holds it exactly; shapes
    as :func:`tci_integers`."""
    dt = get(case.dtype)
    n = tci_columns(case)
    bits = _starts(case, inputs).astype(dt.bits_dtype)
    s = ieee.to_float64(bits, dt)
    b = -np.arange(n, dtype=np.float64) if case.param(DESCENDING) else np.arange(n, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        total = s + b
        back = total - s  # two-sum: the float64 sum is exact when its rounding error is zero
        err = (s - (total - back)) + (b - back)
        out = ieee.from_float64(total, dt)
        held = (err == 0) & (ieee.to_float64(out, dt) == total)
    cls = np.where(held, np.uint8(EXACT), np.uint8(UNDEFINED)).astype(np.uint8)
    if n:
        first = bits[..., 0]
        out[..., 0] = first  # dst_0 = S
        cls[..., 0] = np.where(ieee.is_zero(first, dt) & ieee.is_negative(first, dt), np.uint8(ZERO),
                               np.uint8(EXACT))  # -0 + 0: a zero
    nan, inf = ieee.is_nan(bits, dt), ieee.is_inf(bits, dt)
    out = np.where(nan | inf, bits, out).astype(dt.bits_dtype)  # a NaN or an infinity stays itself
    cls = np.where(nan, np.uint8(NAN), np.where(inf, np.uint8(EXACT), cls)).astype(np.uint8)
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
    out, cls = _blank(case, _lead(inputs, START))
    wrapped, _ = tci_integers(case, inputs)
    out[..., 0, :wrapped.shape[-1]] = wrapped
    cls[..., 0, :wrapped.shape[-1]] = EXACT
    return _ok(out, cls, True)


def tci_documented(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    d = case.tile("dst")
    if d.rows != 1:
        return Outcome.unsupported(f"docs/isa/TCI.md: TileData::Rows must be 1 (this tile has {d.rows} rows)")
    out, cls = _blank(case, _lead(inputs, START))
    dt = get(case.dtype)
    if dt.is_float:
        bits, codes = tci_floats(case, inputs)
    else:
        bits, overflow = tci_integers(case, inputs)
        codes = np.where(overflow, np.uint8(UNDEFINED), np.uint8(EXACT)).astype(np.uint8)
    out[..., 0, :bits.shape[-1]] = bits
    cls[..., 0, :bits.shape[-1]] = codes
    return _ok(out, cls, False)


# ---- TTRI ---------------------------------------------------------------------------------------------------------

def triangle(case: Case, inputs: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
    """Where the typed one goes over the valid region: ``c <= r + d`` (lower) or ``c >= r + d`` (upper); shape
    (valid rows, valid columns), or (n, ...) for a batch whose inputs carry ``diagonal`` per item."""
    vr, vc = case.tile("dst").valid
    boundary = np.arange(vr, dtype=np.int64)[:, None] + param_values(case, inputs or {}, DIAGONAL)
    c = np.arange(vc, dtype=np.int64)[None, :]
    out: np.ndarray = c >= boundary if case.param(UPPER) else c <= boundary
    return out


def _ttri(case: Case, inputs: Mapping[str, np.ndarray], spec: bool) -> Outcome:
    dt = get(case.dtype)
    out, cls = _blank(case, _lead(inputs, DIAGONAL))
    vr, vc = case.tile("dst").valid
    out[..., :vr, :vc] = np.where(triangle(case, inputs), np.array(one_bits(dt), dtype=dt.bits_dtype),
                                  np.zeros((), dtype=dt.bits_dtype))
    cls[..., :vr, :vc] = EXACT
    return _ok(out, cls, spec)


def ttri_legality(case: Case, inputs: Mapping[str, np.ndarray] | None = None) -> Outcome | None:
    """Fault_TileLegality unless the destination is a legal descriptor with a non-empty valid region, the
    orientation 0 or 1 and the diagonal within -65535..65535 (pto-spec ``TileOperandsLegal_TTRI``). A batch's
    diagonals (per item) are all inside that bound or all outside it."""
    problem = _descriptor(case)
    if problem:
        return _fault(case, f"dst: {problem}")
    if 0 in case.tile("dst").valid:
        return _fault(case, "an empty valid region (LB0 must be nonzero)")
    if case.param(UPPER, 0) not in (0, 1):
        return _fault(case, f"orientation {case.param(UPPER)} (must be 0 or 1)")
    diagonals = param_values(case, inputs or {}, DIAGONAL).reshape(-1)
    outside = (diagonals < -SPEC_DIAGONAL) | (diagonals > SPEC_DIAGONAL)
    if outside.all():
        return _fault(case, f"diagonal {int(diagonals[0])} outside -{SPEC_DIAGONAL}..{SPEC_DIAGONAL}")
    if outside.any():
        raise ValueError("a batch of TTRI diagonals both inside and outside pto-spec's bound: one outcome cannot "
                         "fault for some items only")
    return None


def ttri_spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = ttri_legality(case, inputs)
    return fault if fault is not None else _ttri(case, inputs, True)


def ttri_documented(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _ttri(case, inputs, False)


# ---- per op -----------------------------------------------------------------------------------------------------

def legality(case: Case) -> Outcome | None:
    """pto-spec's fault for ``case``, or None when it is legal (the dtype aside: the registry checks it)."""
    return {"TEXPANDS": texpands_legality, "TCI": tci_legality, "TTRI": ttri_legality}[case.op](case)

