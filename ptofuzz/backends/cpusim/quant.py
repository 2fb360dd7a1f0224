"""TQUANT (INT8) through the real simulator: cases to harness requests, replies to outcomes.

The float source and the one-byte destination (int8: INT8_SYM, uint8: INT8_ASYM; the request's ``alias`` is its
dtype code) are laid out as TPART*'s tiles are (:mod:`ptofuzz.backends.cpusim.tpart`: one compiled stride holding
the valid region); each case's scale and offset tiles follow in B, each the request's rows x ``PARA_COLS`` floats
(protocol.hpp's kParaCols), column 0 holding the parameter, which the kernel declares as a tile of the case's
parameter valid rows and one valid column. INT8_SYM is called without an offset tile. The roles INT8 does not
write (exponents, scalings, indices) are undefined.

The MX forms (:func:`evaluate_mx`): MXFP8 (E4M3 codes) and MXFP4 (E2M1 codes, two a byte; from float16 and
bfloat16, as TQUANT.md:116 documents it), OCP or NV, groups along rows (ND) or, for ``dn`` cases, along columns
(the ``grp_axis`` 0 overload, TQUANT_DN.md), and for ``nz`` cases (MXFP8, OCP) the NZ overload
(``VecStoreMode::NZ``), which reorders the exponents ZZ; its codes stay ND, and are laid out here as the test's
TMOV ND -> NZ lays them. The request's ``alias`` is protocol.hpp's kMxBase with the form's bits. The source is
laid out as above (its own elements, zeros beyond them, so that the simulator's groups of the compiled stride's
columns see the page's zero padding of a partial group); the kernel's tiles hold ``MX_ROWS`` static rows (each
case's valid rows at most that). Each case's reply holds ``MX_PARTS`` regions of rows x stride bytes: the codes,
the exponents (ND: rows x :func:`exp_cols`; DN: ceil(rows / 32) x stride) and the ZZ exponents (NZ): ``dst``,
``packed`` (MXFP4), ``exp`` (ND, NZ) or ``exp_dn`` (DN) are read back inside their valid regions, every other role
is undefined (the scalings and group maxima are the simulator's scratch; the CPU writes no interleaved
exponents).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.dequant import parameters
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core import dtypes, nibbles
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.failures import outcome_of
from ptofuzz.oracles import mx
from ptofuzz.oracles.quant import INT8, TO, with_unused

MXFP8, MXFP4 = "float8_e4m3", "float4_e2m1"
MX_BASE, MX_NV, MX_FP4, MX_DN, MX_NZ = 16, 1, 2, 4, 8  # protocol.hpp's kMxBase and the form's bits (the alias)
MX_ROWS, MX_PARTS = 64, 3  # protocol.hpp's kMxRows, kMxParts


def model_platform(case: Case) -> str | None:
    """The platform whose page classes an MX case's simulator bits: TQUANT.md puts the MX forms on A5 only, and
    the simulator simulates them (None for the INT8 forms: the cpu page's)."""
    return "a5" if str(case.param(TO)) in mx.FORMATS else None


def exp_cols(cols: int) -> int:
    """ND exponent bytes a row at a compiled stride (the kernel's exponent tile: a group a byte, at least 32)."""
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


def alias_of(case: Case) -> int:
    """The request's alias of an MX case: protocol.hpp's kMxBase and its form's bits."""
    return (MX_BASE | (MX_NV if case.param("nv") else 0) | (MX_FP4 if str(case.param(TO)) == MXFP4 else 0)
            | (MX_DN if case.param("dn") else 0) | (MX_NZ if case.param("nz") else 0))


def evaluate_mx(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of an MX ``case`` (inputs with or without a leading batch axis)."""
    to, nz, dn = str(case.param(TO)), bool(case.param("nz")), bool(case.param("dn"))
    if to == MXFP4 and case.dtype == "float32":
        return Outcome.unsupported("cpusim TQUANT runs MXFP4 from float16 and bfloat16 (TQUANT.md:116: no page "
                                   "documents it from float32)")
    if nz and (to != MXFP8 or case.param("nv")):
        return Outcome.unsupported("cpusim TQUANT runs the NZ overload (VecStoreMode::NZ) for MXFP8 with the OCP "
                                   "algorithm only: it is TQuant.hpp's one NZ form")
    d = case.tile("dst")
    if d.valid_rows > MX_ROWS:
        return Outcome.unsupported(f"cpusim TQUANT's MX tiles hold {MX_ROWS} static rows (protocol.hpp's kMxRows); "
                                   f"this case has {d.valid_rows} valid rows")
    req = prepare(sim, case, [d, case.tile("src")], inputs["src"])
    if isinstance(req, Outcome):
        return req
    rows, cols = req.rows, req.cols
    if nz and cols < 64:
        return Outcome.unsupported("cpusim TQUANT's NZ overload reorders whole pairs of groups: a stride of at "
                                   "least 64 columns")
    ints = req.valid(*d.valid, 0, 0, 0, 0)
    out = np.zeros((req.n, MX_PARTS * rows * cols), dtype=np.uint8)
    got, failures = sim.worker().run(build.OPS["TQUANT"], build.DTYPES[case.dtype][0], req.cols_index, rows, ints,
                                     into(req.arrays[0], rows, cols), np.zeros((req.n, 0), dtype=np.uint8),
                                     alias_of(case), out)
    part = rows * cols
    if to == MXFP4:
        packed = got[:, :part // 2].reshape(req.n, rows, cols // 2)
        codes = nibbles.unpack(packed)
    else:
        packed, codes = None, got[:, :part].reshape(req.n, rows, cols)
    grids: dict[str, np.ndarray] = {}
    if dn:
        hat = -(-rows // mx.GROUP)
        grids["exp_dn"] = got[:, part:part + hat * cols].reshape(req.n, hat, cols)
        grids["dst"] = codes
    elif nz:  # the codes as the test's TMOV ND -> NZ lays them out; the exponents the overload's ZZ tile
        g = cols // mx.GROUP
        grids["exp"] = got[:, 2 * part:2 * part + rows * g].reshape(req.n, rows, g)
        grids["dst"] = codes.reshape(req.n, rows, g, mx.GROUP).swapaxes(-3, -2).reshape(req.n, rows, cols)
    else:
        e = exp_cols(cols)
        grids["exp"] = got[:, part:part + rows * e].reshape(req.n, rows, e)
        grids["dst"] = codes
    if packed is not None:
        grids["packed"] = packed
    parts = {}
    for role, grid in grids.items():
        t = case.tile(role)
        r, c = t.valid
        vals = np.zeros((req.n, *t.shape), dtype=np.uint8)
        vals[:, :r, :c] = grid[:, :r, :c]
        one = np.full(t.shape, UNDEFINED, dtype=np.uint8)
        one[:r, :c] = EXACT
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
