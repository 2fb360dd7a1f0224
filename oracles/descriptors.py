"""pto-spec tile descriptor rules (``DerivedTileRows`` in ``asl/tile/model/shape/rows-columns.asl``,
``TileDescriptorShapeLegal`` in ``asl/tile/model/shape/valid-region.asl``): which physical tile shapes can exist at
all."""

from __future__ import annotations

from ptofuzz.core.case import Tile
from ptofuzz.core.dtypes import DType

CELL = 128  # bytes
LOCAL_MAX = 64 * 1024  # a Local tile: SizeCode <= 10
SHARED_MAX = 256 * 1024  # a Shared tile: SizeCode <= 12
MAX_ROWS = 65535


def problem(tile: Tile, dt: DType, *, max_bytes: int) -> str:
    """Why ``tile`` is no legal descriptor of ``dt`` elements, or "" when it is one: physical columns a
    nonzero power of two, capacity ``rows * cols * size`` = 128 B * 2**k within ``max_bytes``, 1..65535
    rows, and the valid region inside the physical tile."""
    rows, cols = tile.shape
    if cols < 1 or cols & (cols - 1):
        return f"physical columns {cols} are not a power of two"
    nbytes = rows * cols * dt.bits // 8  # a 4-bit type's lanes pack two a byte (pto-spec's TileElementBits)
    if not 1 <= rows <= MAX_ROWS or nbytes < CELL or nbytes & (nbytes - 1) or nbytes > max_bytes:
        return (f"a {rows}x{cols} {dt.name} tile is {nbytes} bytes; a tile is 128 B * 2**k "
                f"up to {max_bytes // 1024} KiB")
    if tile.valid_rows > rows or tile.valid_cols > cols:
        return f"valid region {tile.valid_rows}x{tile.valid_cols} exceeds the tile {rows}x{cols}"
    return ""
