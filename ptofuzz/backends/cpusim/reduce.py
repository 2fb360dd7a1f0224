"""TROWMAX, TROWMIN, TCOLMAX and TCOLMIN (and the arg reductions: :func:`evaluate_arg`) through the real simulator:
cases to harness requests, replies to outcomes.

The result depends only on the source's valid region (anchored at the origin, row-major), so the source and the
destination are laid out at one compiled stride (see :mod:`ptofuzz.backends.cpusim.tpart`); the source's own
elements are copied there, outside its valid region too, so that a read past the region shows. A row reduction
writes the destination's first column, a column reduction its first row (the model's destination tile is that
column or row); elsewhere the simulator writes nothing: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import into, one_source, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome
from ptofuzz.core.failures import outcome_of


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    return one_source(sim, case, inputs)


INDEX_BYTES = 4  # harness.cpp compiles the arg reductions with uint32 index tiles


def evaluate_arg(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """TROWARGMAX/TROWARGMIN/TCOLARGMAX/TCOLARGMIN through the simulator: each case's output slice holds the value
    tile then the index tile at the request's stride. The index tile is uint32 (int32 indices are the same bits:
    an index is never negative); 16-bit index tiles are not compiled in. The value tile is written by the value +
    index form only (param ``val``): else it is undefined."""
    idx = dtypes.get(case.param("idx") or "int32")
    if idx.itemsize != INDEX_BYTES:
        return Outcome.unsupported(f"cpusim compiles {case.op} with 32-bit index tiles (int32/uint32), not "
                                   f"{idx.name}; TReduceIdx.hpp:50-52 takes those only")
    d, s = case.tile("dst_idx"), case.tile("src")
    val = bool(case.param("val"))
    req = prepare(sim, case, [d, s, case.tile("dst")] if val else [d, s], inputs["src"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (a,) = req.rows, req.cols, req.arrays
    dt = dtypes.get(case.dtype)
    n, cells = req.n, rows * cols
    out = np.zeros((n, cells * (dt.itemsize + INDEX_BYTES)), np.uint8)
    none = np.zeros((n, 0), dtype=a.dtype)
    got, failures = sim.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
                                     req.valid(*d.valid, *s.valid, 0, 0), into(a, rows, cols), none,
                                     1 if val else 0, out)
    split = cells * dt.itemsize
    grids = {"dst": np.ascontiguousarray(got[:, :split]).view(a.dtype).reshape(n, rows, cols),
             "dst_idx": np.ascontiguousarray(got[:, split:]).view(np.uint32).reshape(n, rows, cols)}
    parts = {}
    for role, grid in grids.items():
        t = case.tile(role)
        vr, vc = t.valid
        full = np.zeros((n, *t.shape), dtype=grid.dtype)
        one = np.full(t.shape, UNDEFINED, dtype=np.uint8)
        if role == "dst_idx" or val:
            full[:, :vr, :vc] = grid[:, :vr, :vc]
            one[:vr, :vc] = EXACT
        parts[role] = (full, one)
    return outcome_of(parts, failures, req.batched)
