"""TSORT32 through the real simulator: ``TSORT32(dst, src, idx)`` on cpu cases.

``src`` and ``idx`` go to the harness at one compiled stride (as for TPART*); the simulator writes 8-byte
records into a destination of 8 bytes per source element a row, which come back as the case's ``dst`` words
(two uint32 per record). What TSORT32.hpp writes (:func:`written_words` of each valid row) is exact; the rest
of the destination is undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.backends.cpusim.tpart import into, prepare
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome
from ptofuzz.core.failures import outcome


def evaluate(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    src, idx, dst = case.tile("src"), case.tile("idx"), case.tile("dst")
    req = prepare(sim, case, [src, idx], inputs["src"], inputs["idx"])
    if isinstance(req, Outcome):
        return req
    rows, cols, (s, x) = req.rows, req.cols, req.arrays
    dt = dtypes.get(case.dtype)
    per_word = 4 // dt.itemsize  # destination elements of T in one uint32 word
    words = np.zeros((req.n, rows, 2 * cols), dtype=np.uint32)
    words, failures = sim.worker().run(
        build.OPS[case.op], build.DTYPES[dt.name][0], req.cols_index, rows,
        req.valid(dst.valid_rows, dst.valid_cols * per_word, *src.valid, *idx.valid), into(s, rows, cols),
        into(x.astype(np.uint32), rows, cols), out=words)
    out = into(words, dst.rows, dst.cols)
    one = np.full(dst.shape, UNDEFINED, dtype=np.uint8)
    one[:src.valid_rows, :written_words(src.valid, idx.valid, per_word)] = EXACT
    return outcome("dst", out, one, failures, req.batched)


def written_words(src: tuple[int, int], idx: tuple[int, int], per_word: int) -> int:
    """Record words TSORT32.hpp writes in each valid row: none when idx's valid region differs from src's or
    either is empty; else up to the end of the last block's records, which starts at word 2 * j / per_word for
    the block at column j (so 16-bit blocks overlap: block b at record 16 * b)."""
    vr, vc = src
    if vr == 0 or vc == 0 or idx != src:
        return 0
    return max(2 * j // per_word + 2 * min(32, vc - j) for j in range(0, vc, 32))
