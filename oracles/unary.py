"""The elementwise unary instructions (TABS, TNEG, TRELU, TNOT): one oracle per semantics.

Each oracle takes a :class:`~ptofuzz.core.case.Case` (roles ``dst`` and ``src``, each tile at its own physical
shape) and the source bits at its shape (a leading batch axis is allowed), and returns an
:class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape. The iteration domain is
the destination's valid region; element ``(i, j)`` of the source is read at its own row stride. Outside the valid
region nothing is written (undefined).

Sources:
- ``spec``: pto-spec 0.58 ``asl/tile/elementwise-tile-tile/logical/T{ABS,NEG,RELU,NOT}.asl`` with
  ``asl/tile/model/execution/unary.asl``. Integers: TABS and TNEG modulo the element width (|MIN| = MIN, unsigned
  TABS unchanged, unsigned TNEG is 0 - x), TRELU zeroes negative signed values, TNOT complements the width.
  Floats: TABS clears and TNEG flips only the sign bit (NaN payloads kept, no flag); TRELU gives +0 for negative
  values, -inf and both zeros, keeps positive values and +inf, and turns a NaN into the canonical quiet NaN (a
  signaling one raises invalid). Legality: one physical and one valid shape for both tiles, a non-empty valid
  region, legal descriptors; anything else is Fault_TileLegality before any effect.
- ``documented`` (cpu and the NPUs): pto-isa ``docs/isa/T{ABS,NEG,RELU,NOT}.md``, whose only statement is the
  element formula (``|src|``, ``-src``, ``max(src, 0)``, ``~src``) over the destination's valid region. Pinned:
  |x| and -x of a float are the IEEE operations (sign cleared / flipped: |-0| = +0, -(+0) = -0), of an integer
  the value when it fits; ``max(src, 0)`` of a number; ``~src`` always. Left open, so classed: a NaN result is
  some NaN (``nan``); an integer result that does not fit the type (|MIN|, -MIN, -x of an unsigned x > 0) is
  ``undefined``, as integer overflow is for TADD; TRELU of a NaN is ``undefined`` and of -0 some zero (``zero``),
  as ``max`` is for TMAX. The NPUs add their vector units' open subnormal handling: an element is undefined when
  flushing a subnormal source to zero would change its result. A case whose source valid shape differs from
  the destination's breaks the pages' runtime check: "unsupported" (no result is defined).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import NAN, UNDEFINED, ZERO, Case, Outcome
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import elementwise, ieee, integer

OPS = {"TABS": "abs", "TNEG": "neg", "TRELU": "relu", "TNOT": "not"}
FORMULA = {"abs": "|src|", "neg": "-src", "relu": "max(src, 0)", "not": "~src"}
#: the element types pto-spec takes (TileVecArithmeticDataTypeSupported; TNOT: the integers), as far as
#: ptofuzz's other elementwise spec models go (no 64-bit integers)
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
SPEC_DTYPES_NOT = ("int32", "int16", "int8", "uint32", "uint16", "uint8")

ElementResult = tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]  # result bits, classes, status flags


def _classes(shape: tuple[int, ...], **where: np.ndarray) -> np.ndarray:
    """A class array: EXACT, then each named class (``nan``, ``zero``, ``undefined``) where its mask is set."""
    cls = np.zeros(shape, dtype=np.uint8)
    for name, code in (("nan", NAN), ("zero", ZERO), ("undefined", UNDEFINED)):
        if name in where:
            cls[where[name]] = code
    return cls


def _int_result(op: str, x: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """The wrapped integer result of ``op`` and where the mathematical one does not fit the type."""
    v = integer.values(x, dt)
    with np.errstate(over="ignore"):
        if op == "not":
            return ~x, np.zeros(x.shape, bool)
        if op == "relu":
            neg = v < 0
            return np.where(neg, np.zeros_like(x), x), np.zeros(x.shape, bool)
        if op == "neg":
            res = (np.zeros_like(x) - x).astype(x.dtype)
            return res, (v == dt.int_min) if dt.kind == "int" else (x != 0)
        neg = (v < 0) if dt.kind == "int" else np.zeros(x.shape, bool)  # abs
        res = np.where(neg, (np.zeros_like(x) - x).astype(x.dtype), x)
        return res, (v == dt.int_min) if dt.kind == "int" else np.zeros(x.shape, bool)


def _sign_op(op: str, x: np.ndarray, dt: DType) -> np.ndarray:
    mask = np.array(dt.sign_mask, x.dtype)
    out: np.ndarray = x & ~mask if op == "abs" else x ^ mask
    return out


def spec_element(op: str, x: np.ndarray, dt: DType) -> ElementResult:
    """pto-spec's typed operation on every element (all results exact; TRELU's invalid flag per element)."""
    if not dt.is_float:
        res, _ = _int_result(op, x, dt)
        return res, np.zeros(x.shape, np.uint8), {}
    if op in ("abs", "neg"):
        return _sign_op(op, x, dt), np.zeros(x.shape, np.uint8), {}
    nan = ieee.is_nan(x, dt)
    negative = ieee.is_negative(x, dt) | ieee.is_zero(x, dt)  # -x, -inf, -0 and +0 all give +0
    res = np.where(negative, np.zeros_like(x), x)
    res = np.where(nan, np.array(dt.canonical_nan, x.dtype), res)
    return res, np.zeros(x.shape, np.uint8), {ieee.NV: ieee.is_snan(x, dt)}


def documented_element(op: str, x: np.ndarray, dt: DType, *, npu: bool) -> ElementResult:
    """The pages' formula on every element, with what they leave open classed (see the module docstring); the
    placeholder bits under an open class are pto-spec's."""
    if not dt.is_float:
        res, overflow = _int_result(op, x, dt)
        return res, _classes(x.shape, undefined=overflow), {}
    nan = ieee.is_nan(x, dt)
    if op in ("abs", "neg"):
        res = _sign_op(op, x, dt)
        undefined = ieee.is_subnormal(x, dt) if npu else np.zeros(x.shape, bool)
        return res, _classes(x.shape, nan=nan, undefined=undefined), {}
    # relu = max(src, 0): a NaN operand is open, as for TMAX; -0 against +0 is some zero
    res = np.where(ieee.is_negative(x, dt) & ~nan, np.zeros_like(x), x)
    zero = ieee.is_zero(x, dt) & ieee.is_negative(x, dt)
    undefined = nan.copy()
    if npu:  # a positive subnormal flushed to +0 gives +0 instead of itself; a negative one gives +0 either way
        undefined |= ieee.is_subnormal(x, dt) & ~ieee.is_negative(x, dt)
        zero |= ieee.is_subnormal(x, dt) & ieee.is_negative(x, dt)
    return res, _classes(x.shape, zero=zero, undefined=undefined), {}


def spec_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality (trap 5) when the tiles break pto-spec's unary schema (the tile-tile rules, one
    source), else None."""
    return elementwise.spec_legality(case, ("src",))


def _operand(case: Case, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    rows, cols = case.tile("dst").valid
    operand: np.ndarray = inputs["src"][..., :rows, :cols]
    return operand


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = spec_legality(case)
    if fault is not None:
        return fault
    return elementwise.paint(case, inputs, spec_element(OPS[case.op], _operand(case, inputs), get(case.dtype)), True,
                             "src")


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    bad = elementwise.outside_contract(case, ("src",))
    if bad is not None:
        return bad
    return elementwise.paint(case, inputs, documented_element(OPS[case.op], _operand(case, inputs), get(case.dtype),
                                                              npu=False), False, "src")


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    bad = elementwise.outside_contract(case, ("src",))
    if bad is not None:
        return bad
    return elementwise.paint(case, inputs, documented_element(OPS[case.op], _operand(case, inputs), get(case.dtype),
                                                              npu=True), False, "src")
