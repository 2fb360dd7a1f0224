"""TCMP, TCMPS, TSEL and TSELS through the real simulator: cases to harness requests, replies to outcomes.

The data tiles are laid out as TPART*'s are (:mod:`ptofuzz.backends.cpusim.tpart`: one compiled stride holding
every valid region, each tile's own elements copied there); a mask tile's words lie at the same stride (that many
words a row; the case's own words copied where it has them), and a compare's destination is a tile of
``kCmpRows`` rows at that stride (harness.cpp's ``cmpsel_bytes``). The comparison travels in the request's
``alias`` (pto-isa's CmpMode, + 8 for TCMP's uint32 words), as does TSELS's mask word (0 uint8, 1 uint16,
2 uint32). Outside the destination valid region the simulator's words are undefined.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import dst_outcome, into, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Outcome

CMP_ROWS = 128  # protocol.hpp kCmpRows: the compares' static rows
SCALAR_BYTES = 8
MASK_CODES = {"uint8": 0, "uint16": 1, "uint32": 2}


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    dt = dtypes.get(case.dtype)
    d, s = case.tile("dst"), case.tile("src0")
    if case.op in ("TCMP", "TCMPS"):
        if s.valid_rows > CMP_ROWS:
            return Outcome.unsupported(f"cpusim compiles {case.op} with tiles of {CMP_ROWS} rows")
        second = inputs["src1"] if case.op == "TCMP" else inputs["scalar"]
        req = prepare(sim, case, [d, s], inputs["src0"], second)
        if isinstance(req, Outcome):
            return req
        if case.op == "TCMPS":  # TCmps.hpp packs by the source tile's columns: compile the case's own
            if s.cols not in build.COLS:
                return Outcome.unsupported(f"cpusim compiles TCMPS with source tiles of {build.COLS} columns "
                                           f"(the simulator packs by the tile's width); this one has {s.cols}")
            req = dataclasses.replace(req, cols_index=build.COLS.index(s.cols), cols=s.cols)
        rows, cols, (a, b) = req.rows, req.cols, req.arrays
        n = req.n
        mode = int(case.param("cmp", 0))
        word = dtypes.get(case.param("mask") or "uint8")
        if case.op == "TCMP":
            out = np.zeros((n, CMP_ROWS * cols * 4), np.uint8)
            got, failures = sim.worker().run(build.OPS["TCMP"], build.DTYPES[dt.name][0], req.cols_index, rows,
                                             req.valid(*d.valid, *s.valid, *case.tile("src1").valid),
                                             into(a, rows, cols), into(b, rows, cols),
                                             mode | (8 if word.bits == 32 else 0), out)
        else:
            scalar = np.zeros((n, SCALAR_BYTES), np.uint8)
            scalar[:, :dt.itemsize] = np.ascontiguousarray(b[:, 0, :1]).view(np.uint8)
            out = np.zeros((n, CMP_ROWS * cols), np.uint8)
            got, failures = sim.worker().run(build.OPS["TCMPS"], build.DTYPES[dt.name][0], req.cols_index, rows,
                                             req.valid(*d.valid, *s.valid, 1, 1), into(a, rows, cols), scalar,
                                             mode, out)
        cells = CMP_ROWS * cols
        grid = np.ascontiguousarray(got[:, :cells * word.itemsize]).view(word.bits_dtype).reshape(n, CMP_ROWS, cols)
        return dst_outcome(case, req, grid, failures)
    m = case.tile("mask")
    req = prepare(sim, case, [d, m, s], inputs["src0"], inputs["mask"],
                  inputs["src1"] if case.op == "TSEL" else inputs["scalar"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (a, mask, b) = req.rows, req.cols, req.arrays
    n = req.n
    words = into(mask, rows, cols)
    if case.op == "TSEL":
        both = np.stack([into(a, rows, cols), into(b, rows, cols)], axis=1)
        got, failures = sim.worker().run(build.OPS["TSEL"], build.DTYPES[dt.name][0], req.cols_index, rows,
                                         req.valid(*d.valid, *m.valid, *s.valid), both, words, 0,
                                         np.zeros((n, rows, cols), a.dtype))
        return dst_outcome(case, req, got, failures)
    area = rows * cols * 4
    carrier = np.zeros((n, area + SCALAR_BYTES), np.uint8)
    flat = np.ascontiguousarray(words).reshape(n, -1).view(np.uint8)
    carrier[:, :flat.shape[1]] = flat
    carrier[:, area:area + dt.itemsize] = np.ascontiguousarray(b[:, 0, :1]).view(np.uint8)
    got, failures = sim.worker().run(build.OPS["TSELS"], build.DTYPES[dt.name][0], req.cols_index, rows,
                                     req.valid(*d.valid, *m.valid, *s.valid), into(a, rows, cols), carrier,
                                     MASK_CODES[mask.dtype.name], np.zeros((n, rows, cols), a.dtype))
    return dst_outcome(case, req, got, failures)
