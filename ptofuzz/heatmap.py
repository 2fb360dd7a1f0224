"""A mismatch laid over the tile: the worst error class per cell of a downsampled grid (no rendering here)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ptofuzz.compare import NOT_COMPARED

MAX_ROWS, MAX_COLS = 32, 64


@dataclasses.dataclass(frozen=True)
class HeatMap:
    cells: np.ndarray  # (grid rows, grid cols) int16: -1 nothing compared, 0 all fine, else the worst error code
    block: tuple[int, int]  # elements per cell (rows, cols)
    shape: tuple[int, int]  # the tile
    valid_cells: tuple[int, int]  # grid rows/cols that hold valid-region elements

    def cell_of(self, row: int, col: int) -> tuple[int, int]:
        return row // self.block[0], col // self.block[1]


def heatmap(errors: np.ndarray, valid: tuple[int, int] | None = None, *, max_rows: int = MAX_ROWS,
            max_cols: int = MAX_COLS) -> HeatMap:
    """Downsample per-element error codes (see :mod:`ptofuzz.compare`) to at most ``max_rows x max_cols``
    cells, each showing the most severe code among its elements (vectorised: a 1024x1024 tile takes
    milliseconds)."""
    rows, cols = errors.shape
    br, bc = max(1, math.ceil(rows / max_rows)), max(1, math.ceil(cols / max_cols))
    gr, gc = max(1, math.ceil(rows / br)), max(1, math.ceil(cols / bc))
    sev = errors.astype(np.int16)
    sev[errors == NOT_COMPARED] = -1
    padded = np.full((gr * br, gc * bc), -1, dtype=np.int16)
    padded[:rows, :cols] = sev
    cells = padded.reshape(gr, br, gc, bc).max(axis=(1, 3)) if rows and cols else np.full((0, 0), -1, np.int16)
    vr, vc = valid if valid is not None else (rows, cols)
    return HeatMap(cells, (br, bc), (rows, cols), (math.ceil(vr / br), math.ceil(vc / bc)))
