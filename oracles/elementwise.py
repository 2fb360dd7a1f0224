"""The elementwise tile-tile arithmetic instructions (TADD, TSUB, TMUL, TMAX, TMIN): one oracle per semantics.

Each oracle takes a :class:`~ptofuzz.core.case.Case` (roles ``dst``, ``src0``, ``src1``, each tile at its own
physical shape) and the source bits at those shapes (a leading batch axis is allowed), and returns an
:class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape. The iteration domain is
the destination's valid region; element ``(i, j)`` of each source is read at its own row stride. Outside the
valid region nothing is written: every such element is undefined (pto-spec's Null padding; pto-isa does not
write them).

Sources:
- ``spec``: pto-spec 0.58 ``asl/tile/elementwise-tile-tile/arithmetic/T{ADD,SUB,MUL,MAX,MIN}.asl`` with
  ``asl/tile/model/execution/elementwise.asl``: integers wrap; floats are IEEE 754 in the element type, round to
  nearest even, the canonical NaN and IEEE status flags; max/min follow the hardware min/max rules (a NaN loses
  to a number, two NaNs give the canonical NaN, max(+0, -0) = +0, min = -0). Legality: the three tiles have one
  physical shape, one valid shape and a legal descriptor; a source must be completely defined. Anything else is
  Fault_TileLegality before any effect.
- ``documented`` (cpu and the NPUs): pto-isa ``docs/isa/T{ADD,SUB,MUL,MAX,MIN}.md``, whose only statement is the
  element formula (``src0 + src1``, ``max(src0, src1)`` ...) over the destination's valid region. What the pages
  leave open is classed, never filled in: a float NaN result is some NaN (``nan``); integer overflow (wrap or
  saturate; signed overflow is undefined behaviour in C++) is ``undefined``; max/min with a NaN operand is
  ``undefined`` and of mixed zeros some zero (``zero``). The NPUs' vector units add what their hardware pages
  leave open too (as for TPART*): float overflow from finite operands, and results that flushing subnormal
  operands to zero, or a tiny result, would change, are ``undefined``. The cpu simulator computes on the host:
  IEEE 754 with gradual underflow. A case whose source valid shape differs from the destination's breaks the
  pages' runtime check: "unsupported" (no result is defined).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import COMMIT, EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import descriptors, ieee, integer, tpart

OPS = {"TADD": "add", "TSUB": "sub", "TMUL": "mul", "TMAX": "max", "TMIN": "min"}
SYMBOL = {"add": "+", "sub": "-", "mul": "*", "max": "max", "min": "min"}
#: the element types pto-spec's arithmetic tile-tile operations take (TileVecArithmeticDataTypeSupported)
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")

ElementResult = tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]  # result bits, classes, status flags


def _negated(bits: np.ndarray, dt: DType) -> np.ndarray:
    """``-x`` of float bits: the sign flipped (a NaN stays a NaN of the same kind)."""
    flipped: np.ndarray = bits ^ np.array(dt.sign_mask, bits.dtype)
    return flipped


def _exact(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, dtype=np.uint8)


def spec_element(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> ElementResult:
    """pto-spec's typed operation on every element (all results exact, IEEE status flags per element): TPART*'s
    (:func:`ptofuzz.oracles.tpart.spec_element`), ``a - b`` as ``a + (-b)`` for floats, wrapped for integers."""
    if op != "sub":
        return tpart.spec_element(op, a, b, dt)
    if dt.is_float:
        return tpart.spec_element("add", a, _negated(b, dt), dt)
    res = integer.add_mul("sub", a, b, dt)
    return res, _exact(res.shape), {}


def documented_element(op: str, a: np.ndarray, b: np.ndarray, dt: DType, *, npu: bool) -> ElementResult:
    """The pages' formula on every element, with what they leave open classed (see the module docstring).
    Floats classify as TPART*'s elementwise operation does, where pto-isa's TPART* pages say the same
    (:func:`ptofuzz.oracles.tpart.cpu_element`, :func:`~ptofuzz.oracles.tpart.npu_element`); integer overflow is
    undefined on every platform and at every width."""
    if dt.is_float:
        if op == "sub":
            op, b = "add", _negated(b, dt)
        return (tpart.npu_element if npu else tpart.cpu_element)(op, a, b, dt)
    if op in ("max", "min"):
        res = integer.max_min(op, a, b, dt)
        return res, _exact(res.shape), {}
    res = integer.add_mul(op, a, b, dt)  # placeholder bits under an undefined class
    undefined = integer.overflows(op, a, b, dt)
    return res, np.where(undefined, np.uint8(UNDEFINED), np.uint8(EXACT)).astype(np.uint8), {}


def _domain(case: Case) -> tuple[int, int]:
    return case.tile("dst").valid


def paint(case: Case, inputs: Mapping[str, np.ndarray], result: ElementResult | None, with_flags: bool,
          source: str = "src0") -> Outcome:
    """The outcome of an elementwise result: ``dst`` at its physical shape, the result over the destination's
    valid region (``source``'s bits give the dtype and any batch axis), undefined elsewhere."""
    d = case.tile("dst")
    rows, cols = d.valid
    a = inputs[source]
    shape = a.shape[:-2] + d.shape
    out = np.zeros(shape, dtype=a.dtype)
    classes = np.full(shape, UNDEFINED, dtype=np.uint8)
    raised: tuple[str, ...] | None = () if with_flags else None
    if result is not None and rows and cols:
        res, cls, flags = result
        out[..., :rows, :cols] = res
        classes[..., :rows, :cols] = cls
        if with_flags:
            raised = tuple(name for name in ieee.FLAG_ORDER if name in flags and bool(np.any(flags[name])))
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes}, flags=raised)


def _operands(case: Case, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = _domain(case)
    return inputs["src0"][..., :rows, :cols], inputs["src1"][..., :rows, :cols]


def spec_legality(case: Case, sources: tuple[str, ...] = ("src0", "src1")) -> Outcome | None:
    """Fault_TileLegality (trap 5) when the tiles break pto-spec's rules for these operations (and the unary
    ones: ``sources`` ``("src",)``), else None."""
    dt = get(case.dtype)
    d = case.tile("dst")
    srcs = [case.tile(r) for r in sources]
    why = ""
    if any(s.shape != d.shape for s in srcs):
        why = "source and destination physical shapes differ"
    elif any(s.valid != d.valid for s in srcs):
        why = "source and destination valid shapes differ"
    elif 0 in d.valid:
        why = "an empty valid region (LB0 must be nonzero; LB1 defaults to 1)"
    else:
        for role in ("dst", *sources):
            problem = descriptors.problem(case.tile(role), dt, max_bytes=descriptors.LOCAL_MAX)
            if problem:
                why = f"{role}: {problem}"
                break
    if not why:
        return None
    return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = spec_legality(case)
    if fault is not None:
        return fault
    a, b = _operands(case, inputs)
    return paint(case, inputs, spec_element(OPS[case.op], a, b, get(case.dtype)), with_flags=True)


def outside_contract(case: Case, sources: tuple[str, ...] = ("src0", "src1")) -> Outcome | None:
    """"unsupported" for a case whose source valid shape differs from the destination's: pto-isa's pages make
    the match a runtime check (``docs/isa/<OP>.md``, "Runtime: ... must match dst"), so the pages define no
    result for it (the simulator asserts it, or reads past the source's valid region); else None."""
    d = case.tile("dst")
    for role in sources:
        if case.tile(role).valid != d.valid:
            return Outcome.unsupported(
                f"{case.op}: docs/isa/{case.op}.md requires {role}'s valid shape to match dst's (a runtime "
                f"check); this case's is {'x'.join(map(str, case.tile(role).valid))} against "
                f"{'x'.join(map(str, d.valid))}")
    return None


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    bad = outside_contract(case)
    if bad is not None:
        return bad
    a, b = _operands(case, inputs)
    return paint(case, inputs, documented_element(OPS[case.op], a, b, get(case.dtype), npu=False),
                 with_flags=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    bad = outside_contract(case)
    if bad is not None:
        return bad
    a, b = _operands(case, inputs)
    return paint(case, inputs, documented_element(OPS[case.op], a, b, get(case.dtype), npu=True),
                 with_flags=False)
