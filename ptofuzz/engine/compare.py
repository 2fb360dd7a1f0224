"""The one comparison engine: an actual tile against an expected one, element by element, dtype-aware.

Used by ``check`` (golden and output files against the recomputed outcome), ``diff`` (two raw files, or two
oracles' outputs of a saved fuzz case) and the reports. Per element:

* the expected side may carry a class (EXACT bits, NAN "some NaN", ZERO "some zero", UNDEFINED "not compared");
* a :class:`Mode` says how strict the rest is: bit-exact, within N ULPs, or within rtol/atol (per-dtype
  defaults); whether NaN payloads must match (``nan="payload"``) or any NaN matches any NaN (``nan="any"``);
  whether -0 and +0 differ (``zeros="signed"``) or not;
* every mismatch gets an **error class** (:data:`ERROR_CLASSES`): NaN payload, NaN against a number, signed
  zero, infinity, a ULP band, integer value, a write outside the valid region, a missing (all-zero) row, or a
  reordering (the row holds the same values in another order).

Besides the strict verdict, :func:`result_cmp` gives the verdict of pto-isa's own test comparator ``ResultCmp``
(pto-isa ``tests/common/test_common.h``; docs/fuzzing.md), so a report can say whether pto-isa's test would have
noticed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ptofuzz.core.case import BOUNDED, NAN, UNDEFINED, ZERO, TextEnum
from ptofuzz.core.dtypes import DType
from ptofuzz.core.errors import UsageError
from ptofuzz.oracles import ieee


class Verdict(TextEnum):
    """What checking a case folder (or a target's output) concluded."""

    PASS = "pass"
    FAIL = "fail"  # a genuine mismatch (exit 1)
    ERROR = "error"  # could not be checked: a damaged or foreign folder (exit 2)
    SKIP = "skip"  # the oracle asked for cannot run this case (a dtype the simulator build lacks): not bad input

MAX_REPORTED = 8

# error classes, by code; 0 = no error, then roughly in order of severity for the heat map
ERROR_CLASSES = ("ok", "ulp-1", "ulp-2..16", "signed-zero", "nan-payload", "ordering", "ulp-large", "int-value",
                 "inf", "nan-vs-number", "missing", "outside")
ERR = {name: code for code, name in enumerate(ERROR_CLASSES)}
NOT_COMPARED = 255  # error-code of elements that are not compared (undefined), for the heat map


@dataclasses.dataclass(frozen=True)
class Mode:
    """How strictly values must agree (beyond the expected side's own NAN/ZERO/UNDEFINED classes)."""

    kind: str = "bits"  # bits | ulp | tol
    ulp: int = 0  # kind "ulp": allowed distance
    rtol: float | None = None  # kind "tol": None = the dtype's default
    atol: float | None = None
    nan: str = "payload"  # payload: NaN bits must match; any: any NaN matches any NaN
    zeros: str = "signed"  # signed: -0 != +0; unsigned: they match

    def describe(self) -> str:
        what = {"bits": "bit-exact", "ulp": f"within {self.ulp} ULP", "tol": "within rtol/atol"}[self.kind]
        return f"{what}, NaN {'payload-exact' if self.nan == 'payload' else 'any'}, " \
               f"zeros {'signed' if self.zeros == 'signed' else 'unsigned'}"


def default_tolerances(dt: DType) -> tuple[float, float]:
    """(rtol, atol) defaults: a few ULPs of the type for floats, exact for integers."""
    if not dt.is_float:
        return 0.0, 0.0
    eps = 2.0 ** -dt.man_bits
    return 4 * eps, ieee.min_normal(dt)


@dataclasses.dataclass(frozen=True)
class ElementDiff:
    index: int  # flat element index in the file
    row: int
    col: int
    expected: int  # bits
    actual: int
    cls: int  # expected class
    error: str = ""  # error class
    ulps: int | None = None  # floats: distance in ULPs (None where not finite)
    region: str = ""


@dataclasses.dataclass(frozen=True)
class ResultCmpVerdict:
    """pto-isa ``ResultCmp(exp, act, eps)`` (threshold 0 -> int(N*eps), zeroCountThreshold 1000)."""

    passed: bool
    eps: float
    errors: int  # elements failing its test
    threshold: int
    zero_count: int  # |act| <= 1e-6 where |exp| > 1e-6


@dataclasses.dataclass(frozen=True)
class Comparison:
    checked: int  # elements compared (not undefined)
    mismatches: int
    first: tuple[ElementDiff, ...]
    errors: np.ndarray | None = None  # per-element error code (ERR values, NOT_COMPARED), file shape
    counts: dict[str, int] = dataclasses.field(default_factory=dict)  # error class -> elements
    # over differing elements with two finite values (inf: relative to a zero); None when none has two (every
    # difference is a NaN, an infinity or a write of one against a number)
    max_abs: float | None = 0.0
    max_rel: float | None = 0.0
    max_ulp: int = 0
    specials: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # side -> nan/inf/zero counts
    result_cmp: ResultCmpVerdict | None = None
    mode: Mode = Mode()

    @property
    def ok(self) -> bool:
        return self.mismatches == 0


def _values(bits: np.ndarray, dt: DType) -> np.ndarray:
    if dt.is_float:
        return ieee.to_float64(bits, dt)
    if dt.kind == "int" and dt.bits < 8:  # int4 in a byte's low nibble: its sign is bit 3
        low = (bits & dt.bit_mask).astype(np.int64)
        return np.where(low >> (dt.bits - 1), low - (1 << dt.bits), low).astype(np.float64)
    return bits.view(f"<i{dt.itemsize}").astype(np.float64) if dt.kind == "int" else bits.astype(np.float64)


def compare(expected: np.ndarray, classes: np.ndarray | None, actual: np.ndarray, dt: DType, *,
            mode: Mode = Mode(), valid: tuple[int, int] | None = None, regions: tuple[tuple[str, ...], np.ndarray]
            | None = None, eps: float | None = None, half_as_bits: bool = False, bounds: np.ndarray | None = None
            ) -> Comparison:
    """Compare 2-D bit arrays of the same shape; report the first :data:`MAX_REPORTED` differences.

    ``classes``: the expected side's element classes (None: all EXACT); a BOUNDED element agrees with a finite
    value within ``bounds`` (its ULP bound, the same shape) of it. ``valid``: the valid region; a
    difference outside it is an "outside" error (a write where none belongs). ``regions``: names and a code
    per element, shown for each reported difference. ``eps``: also give pto-isa ``ResultCmp``'s verdict.
    """
    expected, actual = np.asarray(expected), np.asarray(actual)
    if classes is None:
        classes = np.zeros(expected.shape, dtype=np.uint8)
    compared = classes != UNDEFINED
    bad = (expected != actual) & compared
    if dt.is_float:
        nan_e, nan_a = ieee.is_nan(expected, dt), ieee.is_nan(actual, dt)
        zero_e, zero_a = ieee.is_zero(expected, dt), ieee.is_zero(actual, dt)
        loose_nan = (classes == NAN) | (mode.nan == "any")
        loose_zero = (classes == ZERO) | (mode.zeros == "unsigned")
        bad &= ~(loose_nan & nan_e & nan_a) & ~(loose_zero & zero_e & zero_a)
        bad |= compared & (classes == NAN) & ~nan_a
        bad |= compared & (classes == ZERO) & ~zero_a
    else:
        bad |= compared & (classes == ZERO) & (actual != 0)
        bad &= ~((classes == ZERO) & (actual == 0))
    ulps = None
    if dt.is_float and bad.any():
        finite = ~nan_e & ~nan_a & ~ieee.is_inf(expected, dt) & ~ieee.is_inf(actual, dt)
        ulps = np.where(finite, ulp_distance(expected, actual, dt), -1)
        signed_zero = zero_e & zero_a & (expected != actual)  # only the zeros mode forgives these
        if bounds is not None:
            bad &= ~((classes == BOUNDED) & finite & (ulps <= bounds))
        if mode.kind == "ulp":
            bad &= ~(finite & (ulps <= mode.ulp) & ~signed_zero)
    if mode.kind == "tol" and bad.any():
        rtol, atol = default_tolerances(dt)
        rtol = mode.rtol if mode.rtol is not None else rtol
        atol = mode.atol if mode.atol is not None else atol
        with np.errstate(all="ignore"):
            ve, va = _values(expected, dt), _values(actual, dt)
            close = np.abs(va - ve) <= atol + rtol * np.abs(ve)
        close &= np.isfinite(ve) & np.isfinite(va)
        if dt.is_float:
            close &= ~signed_zero
        bad &= ~close
    errors = _error_classes(expected, actual, bad, compared, dt, valid)
    flat = np.flatnonzero(bad)
    cols = expected.shape[-1] if expected.ndim and expected.shape[-1] else 1
    if valid is not None and flat.size:  # the valid region's differences first: writes outside it come after
        r_all, c_all = flat // cols, flat % cols
        outside = (r_all >= valid[0]) | (c_all >= valid[1])
        shown = np.concatenate([flat[~outside], flat[outside]])
    else:
        shown = flat
    first = []
    for i in shown[:MAX_REPORTED]:
        r, c = int(i // cols), int(i % cols)
        region = regions[0][int(regions[1][r, c])] if regions is not None else \
            ("outside" if valid is not None and (r >= valid[0] or c >= valid[1]) else "valid" if valid else "")
        u = int(ulps.flat[i]) if ulps is not None and ulps.flat[i] >= 0 else None
        first.append(ElementDiff(int(i), r, c, int(expected.flat[i]), int(actual.flat[i]), int(classes.flat[i]),
                                 ERROR_CLASSES[int(errors.flat[i])], u, region))
    counts = {ERROR_CLASSES[k]: int(v) for k, v in enumerate(np.bincount(errors[bad], minlength=len(ERROR_CLASSES)))
              if k and v}
    max_abs: float | None = 0.0
    max_rel: float | None = 0.0
    if flat.size:  # over the differing elements whose two values are finite numbers
        with np.errstate(all="ignore"):
            ve, va = _values(expected.flat[flat], dt), _values(actual.flat[flat], dt)
            diff = np.abs(va - ve)
            fin = np.isfinite(diff)
            rel = np.where(diff == 0, 0.0, diff / np.abs(ve))
        if fin.any():
            max_abs = float(diff[fin].max())
            max_rel = float(rel[fin].max())
        else:
            max_abs = max_rel = None
    max_ulp = int(ulps[bad].max()) if ulps is not None and (ulps[bad] >= 0).any() else 0
    specials = {}
    if dt.is_float:
        for side, bits in (("expected", expected), ("actual", actual)):
            specials[side] = {"nan": int(np.count_nonzero(ieee.is_nan(bits, dt) & compared)),
                              "inf": int(np.count_nonzero(ieee.is_inf(bits, dt) & compared)),
                              "zero": int(np.count_nonzero(ieee.is_zero(bits, dt) & compared))}
    # pto-isa compares every element of the file, also those ptofuzz leaves undefined
    verdict = result_cmp(expected, actual, dt, eps, half_as_bits=half_as_bits) if eps is not None else None
    return Comparison(int(np.count_nonzero(compared)), int(flat.size), tuple(first), errors, counts, max_abs,
                      max_rel, max_ulp, specials, verdict, mode)


def ulp_distance(a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """Units in the last place between finite floats, with +0 and -0 one point: for the same sign the
    difference of the magnitudes' bit patterns, for opposite signs their sum (the two smallest subnormals of
    opposite sign are 2 apart, +0 and -0 none). FP8 E4M3 and HiFloat8: the distance of their places in the
    numeric order (HiFloat8's codes are not ordered by magnitude)."""
    if dt.is_table:
        from ptofuzz.core import minifloat

        rank = minifloat.table(dt.name).rank
        out: np.ndarray = np.abs(minifloat.lookup(a, rank) - minifloat.lookup(b, rank))
        return out
    ma = (a & dt.abs_mask).astype(np.int64)
    mb = (b & dt.abs_mask).astype(np.int64)
    same = ((a ^ b) & dt.sign_mask) == 0
    return np.where(same, np.abs(ma - mb), ma + mb)


def element_errors(e: np.ndarray, a: np.ndarray, dt: DType) -> np.ndarray:
    """The error code (:data:`ERR`) of each pair of differing elements on its own: NaN payload, NaN against a
    number, signed zero, infinity, a ULP band, integer value (row-level classes come on top, see
    :func:`_row_classes`). The fuzzing signatures use it too (``ptofuzz.engine.differential``)."""
    if not dt.is_float:
        return np.full(e.shape, ERR["int-value"], dtype=np.uint8)
    ne, na = ieee.is_nan(e, dt), ieee.is_nan(a, dt)
    ie, ia = ieee.is_inf(e, dt), ieee.is_inf(a, dt)
    u = np.where(~ne & ~na & ~ie & ~ia, ulp_distance(e, a, dt), -1)
    return np.select(
        [ne & na, ne | na, ieee.is_zero(e, dt) & ieee.is_zero(a, dt), ie | ia, u == 1, (u >= 2) & (u <= 16)],
        [ERR["nan-payload"], ERR["nan-vs-number"], ERR["signed-zero"], ERR["inf"], ERR["ulp-1"], ERR["ulp-2..16"]],
        default=ERR["ulp-large"]).astype(np.uint8)


def _error_classes(expected: np.ndarray, actual: np.ndarray, bad: np.ndarray, compared: np.ndarray, dt: DType,
                   valid: tuple[int, int] | None) -> np.ndarray:
    """Error code per element (0 where fine, NOT_COMPARED where not compared)."""
    errors = np.where(compared, np.uint8(0), np.uint8(NOT_COMPARED)).astype(np.uint8)
    if not bad.any():
        return errors
    errors[bad] = element_errors(expected[bad], actual[bad], dt)
    if expected.ndim == 2:
        _row_classes(expected, actual, bad, compared, valid, errors)
        if valid is not None:
            outside = np.ones(expected.shape, bool)
            outside[:valid[0], :valid[1]] = False
            errors[bad & outside] = ERR["outside"]
    return errors


def _row_classes(expected: np.ndarray, actual: np.ndarray, bad: np.ndarray, compared: np.ndarray,
                 valid: tuple[int, int] | None, errors: np.ndarray) -> None:
    """Row-level classes, vectorised over the rows with differences (inside the valid region): "missing" when
    the row was left all zero (two elements or more, at least half of them nonzero in the golden), "ordering"
    when it holds the same values in another order."""
    rows = np.flatnonzero(bad.any(axis=1))
    if valid is not None:
        rows = rows[rows < valid[0]]
    if not rows.size:
        return
    cols = valid[1] if valid is not None else expected.shape[1]
    e, a = expected[rows, :cols], actual[rows, :cols]
    m = compared[rows, :cols]
    n = m.sum(axis=1)
    zero = np.zeros((), e.dtype)
    ez, az = np.where(m, e, zero), np.where(m, a, zero)
    missing = (n >= 2) & ~az.any(axis=1) & (2 * np.count_nonzero(ez, axis=1) >= n)
    top = np.array(np.iinfo(e.dtype).max, e.dtype)  # uncompared lanes sort last on both sides, so they cancel
    same = (np.sort(np.where(m, e, top), axis=1) == np.sort(np.where(m, a, top), axis=1)).all(axis=1) & (n > 1)
    for flag, code in ((missing, ERR["missing"]), (same & ~missing, ERR["ordering"])):
        sel = rows[flag]
        if sel.size:
            sub = errors[sel, :cols]
            sub[bad[sel, :cols]] = code
            errors[sel, :cols] = sub


# ---- pto-isa ResultCmp -------------------------------------------------------------------------------------

# pto-isa's per-test tolerances: the eps each system test's ``testcase/<op>/main.cpp`` passes to ResultCmp



def pto_isa_eps(op: str, platform: str) -> float | None:
    """The eps pto-isa's system test of ``op`` on ``platform`` passes to ResultCmp (None: no such test)."""
    from ptofuzz.core import platforms

    try:
        return platforms.get(platform).eps.get(platforms.family_of(op))
    except UsageError:
        return None


def result_cmp(expected: np.ndarray, actual: np.ndarray, dt: DType, eps: float,
               compared: np.ndarray | None = None, *, half_as_bits: bool = False) -> ResultCmpVerdict:
    """pto-isa ``ResultCmp<T>(exp, act, eps)``: each element as float; it fails when ``|e-a| > eps`` and
    ``|(e-a)/e| > eps``, or when exactly one side is NaN; the test passes when at most ``int(N*eps)`` elements
    fail (N = elements compared) and at most 1000 elements are ~0 where the golden is not. So ±inf goldens
    pass against anything finite, -0 equals +0, and integers above 2**24 lose exactness. 64-bit integers
    use ``ResultCmpExact`` (bit equality). ``half_as_bits``: the NPU tests' ``aclFloat16`` is ``uint16_t``,
    so their float16 comparison is of the raw bit patterns as integers."""
    if compared is None:
        compared = np.ones(expected.shape, bool)
    e_bits, a_bits = expected[compared], actual[compared]
    n = int(e_bits.size)
    if not dt.is_float and dt.bits == 64:
        errors = int(np.count_nonzero(e_bits != a_bits))
        return ResultCmpVerdict(errors == 0, 0.0, errors, 0, 0)
    as_values = (lambda b: b.astype(np.float64)) if half_as_bits and dt.name == "float16" else \
        (lambda b: _values(b, dt))
    with np.errstate(all="ignore"):
        e = as_values(e_bits).astype(np.float32).astype(np.float64)
        a = as_values(a_bits).astype(np.float32).astype(np.float64)
        diff = np.abs(e - a)
        rel = np.abs(diff / e)
        fail = ((diff > eps) & (rel > eps)) | (np.isnan(e) != np.isnan(a))
        zero_count = int(np.count_nonzero((np.abs(a) <= 1e-6) & (np.abs(e) > 1e-6)))
    errors = int(np.count_nonzero(fail))
    threshold = int(n * eps)
    return ResultCmpVerdict(errors <= threshold and zero_count <= 1000, eps, errors, threshold, zero_count)
