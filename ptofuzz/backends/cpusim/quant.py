"""TQUANT (INT8) through the real simulator: cases to harness requests, replies to outcomes.

The float source and the one-byte destination (int8: INT8_SYM, uint8: INT8_ASYM; the request's ``alias`` is its
dtype code) are laid out as TPART*'s tiles are (:mod:`ptofuzz.backends.cpusim.tpart`: one compiled stride holding
the valid region); each case's scale and offset tiles follow in B, each the request's rows x ``PARA_COLS`` floats
(protocol.hpp's kParaCols), column 0 holding the parameter, which the kernel declares as a tile of the case's
parameter valid rows and one valid column. INT8_SYM is called without an offset tile. The roles INT8 does not
write (exponents, scalings, indices) are undefined.

The MX forms (:func:`evaluate_mx`): MXFP8 (E4M3 codes), OCP or NV (the request's ``alias``: protocol.hpp's
kMxfp8Ocp, kMxfp8Nv), ND grouping, from the case's source type. The source is laid out as above (its own elements,
zeros beyond them, so that the simulator's groups of the compiled stride's columns see the page's zero padding
of a partial group); each case's reply holds its codes (rows x stride bytes), then its E8M0 exponents (rows x
:func:`exp_cols` bytes): ``dst`` and ``exp`` are read back inside their valid regions, every other role is
undefined (the scalings and group maxima are the simulator's scratch).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.dequant import parameters
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.failures import outcome_of
from ptofuzz.oracles import mx
from ptofuzz.oracles.quant import INT8, TO, with_unused

MXFP8 = "float8_e4m3"
MXFP8_OCP, MXFP8_NV = 16, 17  # protocol.hpp's kMxfp8Ocp, kMxfp8Nv (the request's alias)


def model_platform(case: Case) -> str | None:
    """The platform whose page classes an MX case's simulator bits: TQUANT.md puts the MX forms on A5 only, and
    the simulator simulates them (None for the INT8 forms: the cpu page's)."""
    return "a5" if str(case.param(TO)) in mx.FORMATS else None


def exp_cols(cols: int) -> int:
    """Exponent bytes a row at a compiled stride (protocol.hpp's kMxExpCols: a group a byte, at least 32)."""
    return max(32, cols // mx.GROUP)


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    to = str(case.param(TO))
    d, p = case.tile("dst"), case.tile("scale")
    if to in mx.FORMATS:
        return evaluate_mx(sim, case, inputs)
    if to not in INT8:
        return Outcome.unsupported(f"cpusim TQUANT runs the INT8 forms (to int8 or uint8), not to {to}")
    if p.valid_cols != 1 or case.tile("offset").valid != p.valid or not 1 <= p.valid_rows <= d.valid_rows:
        return Outcome.unsupported("cpusim TQUANT runs parameter tiles of one valid column and at most the "
                                   "destination's valid rows, one shape for scale and offset")
    req = prepare(sim, case, [d, case.tile("src")], inputs["src"], inputs["scale"], inputs["offset"])
    if isinstance(req, Outcome):
        return req
    rows, cols = req.rows, req.cols
    src, scale, offset = req.arrays
    para = parameters(scale, offset, rows, req.n)
    ints = req.valid(*d.valid, p.valid_rows, 0, 0, 0)
    out = np.zeros((req.n, rows, cols), dtype=np.uint8)
    got, failures = sim.worker().run(build.OPS["TQUANT"], build.DTYPES["float32"][0], req.cols_index, rows, ints,
                                     into(src, rows, cols), para, build.DTYPES[to][0], out)
    result = dst_outcome(case, req, got, failures)
    if result.kind is not OutcomeKind.OK:
        return result
    return with_unused(case, result, (req.n,) if req.batched else ())  # the roles INT8 does not write


def evaluate_mx(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of an MX ``case`` (MXFP8, ND; inputs with or without a leading batch axis)."""
    to = str(case.param(TO))
    if to != MXFP8:
        return Outcome.unsupported(f"cpusim TQUANT runs MXFP8 of the MX forms, not to {to}")
    if case.param("nz") or case.param("dn"):
        return Outcome.unsupported("cpusim TQUANT runs the MX forms' ND layout with groups along rows (not NZ, "
                                   "not DN)")
    d = case.tile("dst")
    req = prepare(sim, case, [d, case.tile("src")], inputs["src"])
    if isinstance(req, Outcome):
        return req
    rows, cols = req.rows, req.cols
    e = exp_cols(cols)
    ints = req.valid(*d.valid, 0, 0, 0, 0)
    out = np.zeros((req.n, rows * (cols + e)), dtype=np.uint8)
    alias = MXFP8_NV if case.param("nv") else MXFP8_OCP
    got, failures = sim.worker().run(build.OPS["TQUANT"], build.DTYPES[case.dtype][0], req.cols_index, rows, ints,
                                     into(req.arrays[0], rows, cols), np.zeros((req.n, 0), dtype=np.uint8), alias,
                                     out)
    codes = got[:, :rows * cols].reshape(req.n, rows, cols)
    exps = got[:, rows * cols:].reshape(req.n, rows, e)
    parts = {}
    for role, grid in (("dst", codes), ("exp", exps)):
        t = case.tile(role)
        vr, vc = t.valid
        vals = np.zeros((req.n, *t.shape), dtype=np.uint8)
        vals[:, :vr, :vc] = grid[:, :vr, :vc]
        one = np.full(t.shape, UNDEFINED, dtype=np.uint8)
        one[:vr, :vc] = EXACT
        parts[role] = (vals, one)
    result = outcome_of(parts, failures, req.batched)
    if result.kind is not OutcomeKind.OK:
        return result
    lead = (req.n,) if req.batched else ()
    for role, dt in mx.ROLE_TYPES.items():  # the roles this form does not write, or the simulator's scratch
        if role not in parts:
            t = case.tile(role)
            result.outputs[role] = np.zeros((*lead, *t.shape), dtype=dt)
            result.classes[role] = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
    t = case.tile("max_dn")
    result.outputs["max_dn"] = np.zeros((*lead, *t.shape), dtype=dtypes.get(case.dtype).bits_dtype)
    result.classes["max_dn"] = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
    return result
