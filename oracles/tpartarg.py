"""TPARTARGMAX / TPARTARGMIN: one oracle per implementation.

A case has value roles ``dst``, ``src0``, ``src1`` (the case's dtype) and index roles ``dst_idx``, ``src0_idx``,
``src1_idx`` (the dtype in the case's ``idx`` param). Where both sources are valid, one source is *selected*
per element and its value and index are copied together; where one is valid, its value and index are copied;
the rest is the platform's. Inputs are bits at the physical tile shapes; a leading batch axis is allowed.

pto-spec has no model of these ops (they are among the deleted names of its ``spec/catalog/tile-operations.json``),
so these models are the reference. Sources, pto-isa 3186c381:

* cpu ``include/pto/cpu/TPartArgMax.hpp`` line 21 (``src0Val > src1Val``), ``TPartArgMin.hpp`` line 21
  (``src0Val < src1Val``), ``TPartArgCommon.hpp`` lines 38-44 (the true branch takes src0, else src1) and
  ``TPartOp.hpp`` lines 52-73 (``TPartInstr2``: one source valid copies it, neither writes value 0 and index 0).
  So ties and every NaN comparison take src1.
* a2a3 ``include/pto/npu/a2a3/TPartArgOp.hpp``: ``vcmp_ge`` (line 225, MAX) / ``vcmp_le`` (line 251, MIN), then
  ``vsel(dst, src0, src1)`` (lines 68-76): ties take src0. ``checkTiles`` (lines 207-219) returns without writing
  unless the index valid regions equal the value ones, dst is non-empty and dst = max(src0, src1) per dimension;
  a "crossed" pair reaches ``PTO_ASSERT(false)`` (line 147).
* a5 ``include/pto/npu/a5/TPartArgMax.hpp`` line 22 (``vcmp_gt(src1, src0)``), ``TPartArgMin.hpp`` line 22
  (``vcmp_lt``), ``TPartArgBinOps.hpp`` line 122 (``vsel(src1, src0)``): src1 only when strictly better, ties
  take src0. ``TPartArgCheck`` (lines 218-233) asserts dst = one source and dst = max(src0, src1); an empty
  source is a TMOV of the other (lines 252-257). kirin9030/kirinX90/kirinDev0000 run these headers.

NPU vector compares of a NaN, and of subnormals (which the vector unit may flush to zero), are not documented:
such an element's value and index are undefined, as for the NPU TPARTMAX/MIN models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import ieee, integer

OPS = {"TPARTARGMAX": "max", "TPARTARGMIN": "min"}
VALUE_ROLES = ("dst", "src0", "src1")
INDEX_ROLE = {"dst": "dst_idx", "src0": "src0_idx", "src1": "src1_idx"}
INPUTS = ("src0", "src1", "src0_idx", "src1_idx")
OUTPUTS = ("dst", "dst_idx")

# per implementation: the (value dtype -> index dtypes) pairs the headers accept
NPU_PAIRS = {"float32": ("int32", "uint32"), "float16": ("int16", "uint16", "int32", "uint32")}
CPU_INDEX = ("int16", "uint16", "int32", "uint32")  # the cpu checks only the value type (TPartCheck)
INDEX_DTYPES = CPU_INDEX  # every index type some platform takes (the NPU pairs are among them)

# (take src1?, undefined?) for each element of the aligned operands
Select = Callable[[str, np.ndarray, np.ndarray, DType], tuple[np.ndarray, np.ndarray]]


def _numbers(bits: np.ndarray, dt: DType) -> np.ndarray:
    return ieee.to_float64(bits, dt) if dt.is_float else integer.values(bits, dt)


def cpu_select(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """C++ ``src0 > src1`` (MAX) / ``src0 < src1`` (MIN) keeps src0; otherwise src1: ties, -0 vs +0 and every
    comparison with a NaN take src1. Always defined."""
    va, vb = _numbers(a, dt), _numbers(b, dt)
    keep0 = va > vb if op == "max" else va < vb
    return ~keep0, np.zeros(keep0.shape, dtype=bool)


def _flush(bits: np.ndarray, dt: DType) -> np.ndarray:
    return np.where(ieee.is_subnormal(bits, dt), bits & np.array(dt.sign_mask, bits.dtype), bits)


def _npu(take1: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Select:
    def select(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
        va, vb = _numbers(a, dt), _numbers(b, dt)
        pick = take1(va, vb) if op == "max" else take1(vb, va)
        if not dt.is_float:
            return pick, np.zeros(pick.shape, dtype=bool)
        undefined = ieee.is_nan(a, dt) | ieee.is_nan(b, dt)
        sub = ieee.is_subnormal(a, dt) | ieee.is_subnormal(b, dt)
        if sub.any():  # a flushing compare would choose otherwise
            fa, fb = _numbers(_flush(a[sub], dt), dt), _numbers(_flush(b[sub], dt), dt)
            flushed = take1(fa, fb) if op == "max" else take1(fb, fa)
            undefined[sub] |= flushed != pick[sub]
        return pick, undefined
    return select


# a2a3: mask = src0 >= src1 (MAX; MIN: src0 <= src1) selects src0, so src1 wins only when strictly better.
# a5: mask = src1 > src0 (MAX; MIN: src1 < src0) selects src1. The same choice on numbers; they differ only
# on NaN, which both leave undefined.
a2a3_select = _npu(lambda x, y: ~(x >= y))  # x = src0, y = src1 for MAX (swapped for MIN)
a5_select = _npu(lambda x, y: y > x)

SELECTS: dict[str, Select] = {"cpu": cpu_select, "a2a3": a2a3_select, "a5": a5_select}


def index_dtype(case: Case) -> DType:
    return get(case.param("idx") or "uint32")


def _paint(case: Case, inputs: Mapping[str, np.ndarray], select: Select, *, neither_zero: bool) -> Outcome:
    """The partial kernel over the destination valid region, value and index together (origin-anchored
    rectangles: neither, then src1's region, then src0's, then the overlap)."""
    dt = get(case.dtype)
    d = case.tile("dst")
    R, C = d.valid
    t0, t1 = case.tile("src0"), case.tile("src1")
    r0, c0 = min(t0.valid_rows, R), min(t0.valid_cols, C)
    r1, c1 = min(t1.valid_rows, R), min(t1.valid_cols, C)
    rb, cb = min(r0, r1), min(c0, c1)
    lead = inputs["src0"].shape[:-2]
    outs, classes = {}, {}
    for role in OUTPUTS:
        tile = case.tile(role)
        src = ("src0", "src1") if role == "dst" else ("src0_idx", "src1_idx")
        a, b = inputs[src[0]], inputs[src[1]]
        out = np.zeros(lead + tile.shape, dtype=a.dtype)
        cls = np.full(lead + tile.shape, UNDEFINED, dtype=np.uint8)
        if neither_zero:
            cls[..., :R, :C] = EXACT
        out[..., :r1, :c1] = b[..., :r1, :c1]
        cls[..., :r1, :c1] = EXACT
        out[..., :r0, :c0] = a[..., :r0, :c0]
        cls[..., :r0, :c0] = EXACT
        outs[role], classes[role] = out, cls
    if rb and cb:
        take1, undefined = select(OPS[case.op], inputs["src0"][..., :rb, :cb], inputs["src1"][..., :rb, :cb], dt)
        code = np.where(undefined, np.uint8(UNDEFINED), np.uint8(EXACT))
        for role, (s0, s1) in (("dst", ("src0", "src1")), ("dst_idx", ("src0_idx", "src1_idx"))):
            outs[role][..., :rb, :cb] = np.where(take1, inputs[s1][..., :rb, :cb], inputs[s0][..., :rb, :cb])
            classes[role][..., :rb, :cb] = code
    return Outcome(OutcomeKind.OK, outputs=outs, classes=classes)


def _shape_problem(case: Case) -> str | None:
    """A case whose index tiles do not match their value tiles' valid regions, or do not fit."""
    for role in VALUE_ROLES:
        v, i = case.tile(role), case.tile(INDEX_ROLE[role])
        if v.valid != i.valid:
            return (f"{INDEX_ROLE[role]} valid region {i.valid_rows}x{i.valid_cols} differs from {role}'s "
                    f"{v.valid_rows}x{v.valid_cols}")
    return None


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """pto-isa cpu simulator: any geometry, ties and NaN take src1, neither source valid writes 0 and 0.

    ``TPartInstr2`` addresses every index tile with its value tile's offsets (TPartOp.hpp lines 54-58), so an
    index tile whose physical shape differs from its value tile's is read and written at other places: such
    cases are not modelled (unsupported). Index valid regions are not read at all.
    """
    for role in VALUE_ROLES:
        if case.tile(role).shape != case.tile(INDEX_ROLE[role]).shape:
            v, i = case.tile(role), case.tile(INDEX_ROLE[role])
            return Outcome.unsupported(
                f"cpu addresses {INDEX_ROLE[role]} ({i.rows}x{i.cols}) with {role}'s offsets ({v.rows}x{v.cols}); "
                "give index tiles their value tiles' shapes")
    return _paint(case, inputs, cpu_select, neither_zero=True)


def _npu_geometry(case: Case, platform: str) -> str | None:
    """Why the NPU kernels refuse a geometry (a2a3 checkTiles / crossed assert, a5 TPartArgCheck), or None."""
    problem = _shape_problem(case)
    if problem:
        return f"{platform} requires index valid regions equal to the value ones: {problem}"
    d, s0, s1 = case.tile("dst").valid, case.tile("src0").valid, case.tile("src1").valid
    if 0 in d:
        return None  # a5 returns early; a2a3's checkTiles returns: nothing to write either way
    if (max(s0[0], s1[0]), max(s0[1], s1[1])) != d or (s0 != d and s1 != d):
        return (f"{platform} requires dst = max(src0, src1) and one source = dst (dst {d[0]}x{d[1]}, src0 "
                f"{s0[0]}x{s0[1]}, src1 {s1[0]}x{s1[1]})")
    return None


def _pair_problem(case: Case, pairs: Mapping[str, tuple[str, ...]]) -> str | None:
    idx = index_dtype(case).name
    if idx not in pairs.get(case.dtype, ()):
        accepted = "; ".join(v + " with " + ", ".join(i) for v, i in pairs.items())
        return f"{case.op} on {case.platform} does not pair {case.dtype} values with {idx} indices ({accepted})"
    return None


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """a2a3 / a5 (and the kirin platforms, which run a5's headers): the geometry check, then the select."""
    impl = platforms.get(case.platform).implementation
    bad = _pair_problem(case, NPU_PAIRS) or _npu_geometry(case, case.platform)
    if bad:
        return Outcome.unsupported(bad)
    return _paint(case, inputs, SELECTS[impl], neither_zero=False)


def cpu_checked(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    if index_dtype(case).name not in CPU_INDEX:
        return Outcome.unsupported(f"ptofuzz's cpu model takes index tiles of {', '.join(CPU_INDEX)}")
    return cpu(case, inputs)


ORACLES = {"cpu": cpu_checked, "a2a3": npu, "a5": npu}  # by implementation (platforms.Platform)


def oracle_of(platform: str) -> Callable[[Case, Mapping[str, np.ndarray]], Outcome]:
    return ORACLES[platforms.get(platform).implementation]
