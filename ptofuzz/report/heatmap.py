"""A mismatch laid over the tile: the worst error class per cell of a downsampled grid (no rendering here).

Cells never straddle the valid region's border: rows (and columns) inside it and outside it are grouped
separately, so a write outside the valid region is never drawn inside its frame.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ptofuzz.engine.compare import NOT_COMPARED

MAX_ROWS, MAX_COLS = 32, 64


@dataclasses.dataclass(frozen=True)
class HeatMap:
    cells: np.ndarray  # (grid rows, grid cols) int16: -1 nothing compared, 0 all fine, else the worst error code
    row_edges: np.ndarray  # first element row of each cell row (and the tile's row count at the end)
    col_edges: np.ndarray
    shape: tuple[int, int]  # the tile
    valid_cells: tuple[int, int]  # cell rows/cols that lie inside the valid region

    @property
    def block(self) -> tuple[int, int]:
        """The largest number of elements per cell (rows, cols)."""
        return (int(np.diff(self.row_edges).max()) if len(self.row_edges) > 1 else 0,
                int(np.diff(self.col_edges).max()) if len(self.col_edges) > 1 else 0)


def _edges(n: int, valid: int, cells: int) -> tuple[np.ndarray, int]:
    """Cell boundaries over [0, n): the valid part [0, valid) and the rest get cells in proportion (each at
    least one when not empty); returns the edges and how many cells are inside."""
    if n == 0:
        return np.zeros(1, np.int64), 0
    valid = min(valid, n)
    inside = 0 if valid == 0 else max(1, min(valid, round(cells * valid / n)))
    outside = 0 if valid == n else max(1, min(n - valid, cells - inside))
    if valid and outside and inside + outside > cells and inside > 1:
        inside -= 1
    parts = []
    if inside:
        parts.append(np.unique(np.linspace(0, valid, inside + 1).astype(np.int64))[:-1])
    if outside:
        parts.append(np.unique(np.linspace(valid, n, outside + 1).astype(np.int64))[:-1])
    starts = np.concatenate(parts)
    return np.append(starts, n), int(np.count_nonzero(starts < valid))


def heatmap(errors: np.ndarray, valid: tuple[int, int] | None = None, *, max_rows: int = MAX_ROWS,
            max_cols: int = MAX_COLS) -> HeatMap:
    """Downsample per-element error codes (see :mod:`ptofuzz.engine.compare`) to at most ``max_rows x max_cols``
    cells, each showing the most severe code among its elements (vectorised: a 1024x1024 tile takes
    milliseconds)."""
    rows, cols = errors.shape
    vr, vc = valid if valid is not None else (rows, cols)
    redges, vr_cells = _edges(rows, vr, max_rows)
    cedges, vc_cells = _edges(cols, vc, max_cols)
    if rows == 0 or cols == 0:
        return HeatMap(np.full((0, 0), -1, np.int16), redges, cedges, (rows, cols), (0, 0))
    sev = errors.astype(np.int16)
    sev[errors == NOT_COMPARED] = -1
    cells = np.maximum.reduceat(np.maximum.reduceat(sev, redges[:-1], axis=0), cedges[:-1], axis=1)
    return HeatMap(cells, redges, cedges, (rows, cols), (vr_cells, vc_cells))
