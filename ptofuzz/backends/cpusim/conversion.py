"""TCVT through the real simulator: cases to harness requests, replies to outcomes.

A case converts its source tile (``case.dtype``) into a destination of the type its param ``to`` names, with the
RoundMode ordinal ``rmode`` (0 CAST_NONE ... 6 CAST_ODD) and the saturation ``sat`` (0 SaturationMode::ON, 1 OFF,
absent: the overload without one). The harness compiles one kernel per source type with every destination of
:data:`~ptofuzz.backends.cpusim.build.CVT_PAIRS` chosen at run time (the request's ``alias``); the mode and the
saturation travel in each item's ints beside the valid regions, so a batch may vary them per item. FP4 tiles hold
two elements a byte (:data:`PACKED`: packed on the way in, unpacked on the way out). Both tiles are
laid out at one compiled stride (see :mod:`ptofuzz.backends.cpusim.tpart`); outside the destination valid region
the simulator writes nothing: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core import dtypes, nibbles
from ptofuzz.core.case import Case, Outcome, param_values

MODES = 7  # pto::RoundMode CAST_NONE .. CAST_ODD
NO_SAT = 2  # the harness's code for the overload without a SaturationMode


def _unrunnable(sim: Simulator, case: Case, to: str) -> Outcome | None:
    """Why this build cannot convert ``case``'s source to ``to``, else None."""
    if to not in build.DTYPES or to not in build.CVT_PAIRS.get(case.dtype, ()):
        return Outcome.unsupported(f"cpusim TCVT {case.dtype} -> {to}: the harness compiles no such pair (it "
                                   "compiles the pairs pto-isa's page lists for A2A3 or A5)")
    b = sim.build()
    if to == "bfloat16" and not b.manifest["bfloat16_native"] and not sim.settings.placeholder_bf16:
        return Outcome.unsupported(f"cpusim TCVT to bfloat16: {build.BF16_PLACEHOLDER}")
    return None


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    to = str(case.param("to"))
    d, s = case.tile("dst"), case.tile("src")
    req = prepare(sim, case, [d, s], inputs["src"])
    if isinstance(req, Outcome):
        return req
    gap = _unrunnable(sim, case, to)
    if gap is not None:
        return gap
    modes = param_values(case, inputs, "rmode").reshape(-1)
    sats = param_values(case, inputs, "sat", NO_SAT).reshape(-1)
    if ((modes < 0) | (modes >= MODES)).any() or ((sats < 0) | (sats > NO_SAT)).any():
        return Outcome.unsupported("cpusim TCVT runs RoundMode 0..6 and SaturationMode ON (0), OFF (1) or none")
    rows, cols, (a,) = req.rows, req.cols, req.arrays
    ints = req.valid(*d.valid, *s.valid, 0, 0)
    ints[:, 4] = modes
    ints[:, 5] = sats
    dst = dtypes.get(to)
    out = np.zeros((req.n, rows, cols), dtype=dst.bits_dtype)
    src = into(a, rows, cols)
    if case.dtype in PACKED:
        src = _packed(src)
    got, failures = sim.worker().run(build.OPS["TCVT"], build.DTYPES[dtypes.get(case.dtype).name][0], req.cols_index,
                                     rows, ints, src, np.zeros((req.n, 0), dtype=a.dtype),
                                     build.DTYPES[dst.name][0], out)
    if to in PACKED:
        got = _unpacked(got)
    return dst_outcome(case, req, got, failures)


#: the types whose simulator tiles hold two elements a byte (pto-isa's float4_e2m1x2_t and float4_e1m2x2_t: element
#: ``o`` of a tile, o = row * stride + column, is the low (o even) or high nibble of byte o / 2; cpu/MXTypes.hpp's
#: GetProperDataPart); int4b_t is a byte an element
PACKED = ("float4_e2m1", "float4_e1m2")


def _packed(grid: np.ndarray) -> np.ndarray:
    """Each item's rows x cols codes packed into the first half of its slot (the rest 0), as the tile reads them."""
    n = grid.shape[0]
    flat = np.zeros((n, grid[0].size), dtype=np.uint8)
    flat[:, :grid[0].size // 2] = nibbles.pack(grid.reshape(n, -1))
    return flat.reshape(grid.shape)


def _unpacked(grid: np.ndarray) -> np.ndarray:
    """The codes the simulator packed into the first half of each item's slot, one a byte on the grid."""
    n = grid.shape[0]
    codes: np.ndarray = nibbles.unpack(grid.reshape(n, -1)[:, :grid[0].size // 2])
    return codes.reshape(grid.shape)
