"""TPARTADD/MUL/MAX/MIN through the real simulator: cases to harness requests, replies to outcomes.

Results inside the destination valid region depend only on the sources' valid regions (all are anchored at the
origin and row-major), so every tile of a request is laid out at one compiled stride: the smallest of
:data:`~ptofuzz.cpusim.build.COLS` holding every valid region, with as many rows as the tallest region. Each
source tile's own elements are copied there, outside its valid region too, so that a simulator reading where it
must not shows it in the result. Outside the destination valid region the simulator writes nothing: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz import dtypes
from ptofuzz.case import EXACT, UNDEFINED, Case, Outcome
from ptofuzz.cpusim import build, session

ROLES = ("dst", "src0", "src1")
ALIAS = {None: 0, "src0": 1, "src1": 2}


def _into(bits: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros(bits.shape[:-2] + (rows, cols), dtype=bits.dtype)
    r, c = min(rows, bits.shape[-2]), min(cols, bits.shape[-1])
    out[..., :r, :c] = bits[..., :r, :c]
    return out


def evaluate(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The simulator's outcome of ``case`` (inputs with or without a leading batch axis)."""
    b = session.current_build()
    why = b.unsupported_reason(case.op, case.dtype)
    if why is not None:
        return Outcome.unsupported(f"cpusim {case.op} {case.dtype}: {why}")
    if case.dtype == "bfloat16" and not b.manifest["bfloat16_native"] and not session.settings().placeholder_bf16:
        return Outcome.unsupported(f"cpusim {case.op} bfloat16: {build.BF16_PLACEHOLDER}")
    tiles = [case.tile(r) for r in ROLES]
    rows = max(1, max(t.valid_rows for t in tiles))
    width = max(1, max(t.valid_cols for t in tiles))
    if rows > build.MAX_ROWS or width > build.COLS[-1]:
        return Outcome.unsupported(f"cpusim compiles tiles of up to {build.MAX_ROWS} rows and "
                                   f"{build.COLS[-1]} columns")
    ci = next(i for i, c in enumerate(build.COLS) if c >= width)
    cols = build.COLS[ci]
    dt = dtypes.get(case.dtype)
    a, s1 = np.asarray(inputs["src0"]), np.asarray(inputs["src1"])
    batched = a.ndim == 3
    if not batched:
        a, s1 = a[None], s1[None]
    n = a.shape[0]
    valid = np.tile(np.array([v for t in tiles for v in t.valid], dtype=np.int32), (n, 1))
    inplace = case.param("inplace")
    dst, failures = session.worker().run(build.OPS[case.op], build.DTYPES[dt.name][0], ci, rows, valid,
                                         _into(a, rows, cols), _into(s1, rows, cols), ALIAS[inplace])
    d = case.tile("dst")
    vr, vc = d.valid
    out = np.zeros((n, *d.shape), dtype=a.dtype)
    out[:, :vr, :vc] = dst[:, :vr, :vc]
    one = np.full(d.shape, UNDEFINED, dtype=np.uint8)
    one[:vr, :vc] = EXACT
    if not batched:
        if failures:
            f = failures[0]
            return Outcome(f.kind, reason=f.first_line, extra={"cause": f.cause})
        return Outcome("ok", outputs={"dst": out[0]}, classes={"dst": one})
    classes = np.broadcast_to(one, out.shape)
    extra = {}
    if failures:
        classes = classes.copy()
        classes[[f.item for f in failures]] = UNDEFINED
        extra["failures"] = failures
    return Outcome("ok", outputs={"dst": out}, classes={"dst": classes}, extra=extra)
