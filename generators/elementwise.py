"""Random geometries of the elementwise tile-tile instructions, legal on each platform.

One valid region, shared by the destination and both sources (the operations' contract: pto-spec rejects
anything else, pto-isa asserts it). Physical tiles differ by platform:

- spec: the three tiles are one legal descriptor (pto-spec: physical shapes match); now and then a larger legal
  descriptor than the smallest that holds the region.
- cpu: the three tiles share one type (the simulator's TADD takes one tile type for all three), whole 32-byte
  rows.
- the NPUs: each tile its own whole 32-byte rows, a source wider than the destination as in the system tests
  (each file read at its own row stride).

Dimensions lean on the edges (:func:`ptofuzz.generators.tpart.dimension`); an empty region (zero rows or zero
columns) is drawn at :data:`ZERO_RATE` off the spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ptofuzz.core import platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.core.layouts import spec_physical, whole_rows
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension

MAX_ROWS = 64
MAX_COLS = 128
ZERO_RATE = 0.05
ROLES = ("dst", "src0", "src1")


def block(dt: DType) -> int:
    """Elements in a 32-byte block: NPU and simulator tiles hold whole blocks per row."""
    return max(1, 32 // dt.itemsize)


def valid_region(source: Source, dt: DType, *, allow_zero: bool, shape: tuple[int, int] | None = None
                 ) -> tuple[int, int]:
    """A valid region: edges preferred, empty (zero rows or zero columns) at :data:`ZERO_RATE` when allowed."""
    if shape is not None:
        return shape
    rows = dimension(source, MAX_ROWS, 8)
    cols = dimension(source, 64 if dt.bits == 64 else MAX_COLS, block(dt))
    if allow_zero and float(source.random(1)[0]) < ZERO_RATE:
        return (0, cols) if float(source.random(1)[0]) < 0.5 else (rows, 0)
    return rows, cols


def _wider(source: Source, tile: tuple[int, int], dt: DType) -> tuple[int, int]:
    """A tile with the same rows and 0-2 more 32-byte blocks per row (a source read at another stride)."""
    r, c = tile
    return r, c + int(source.integers(0, 3)) * block(dt)


def random_case(source: Source, op: str, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any],
                roles: tuple[str, ...] = ROLES) -> Case:
    """A case legal on ``platform`` (see the module docstring). ``constraints`` may fix ``dtype`` and ``shape``
    (the valid region); ``roles``: the destination, then the sources (a unary instruction has one)."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    kind = platforms.get(platform).kind
    valid = valid_region(source, dt, allow_zero=kind != platforms.SPEC, shape=constraints.get("shape"))
    if kind == platforms.SPEC:
        phys = spec_physical(*valid, dt)
        if float(source.random(1)[0]) < 0.2 and phys[0] * 2 * phys[1] * dt.itemsize <= 64 * 1024:
            phys = (phys[0] * 2, phys[1])  # a legal descriptor with rows to spare
        shapes = [phys] * len(roles)
    elif kind == platforms.CPU:
        phys = _wider(source, whole_rows(*valid, dt), dt)
        shapes = [phys] * len(roles)
    else:
        base = whole_rows(*valid, dt)
        shapes = [_wider(source, base, dt) for _ in roles]
    return Case(op, platform, dt.name, tuple((r, Tile(*s, *valid)) for r, s in zip(roles, shapes)))


ILLEGAL_RULES = ("shape", "valid", "empty")  # which pto-spec rule an illegal spec case breaks


def illegal_spec_case(source: Source, op: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any],
                      roles: tuple[str, ...] = ROLES) -> Case:
    """A spec case pto-spec rejects (Fault_TileLegality before any effect), breaking one rule of
    :data:`ILLEGAL_RULES`: a source's physical shape differs from the destination's, a source's valid shape does,
    or the valid region is empty."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    rows, cols = valid_region(source, dt, allow_zero=False, shape=constraints.get("shape"))
    rule = source.choice(ILLEGAL_RULES)
    phys = spec_physical(rows, cols, dt)
    tiles = {r: Tile(*phys, rows, cols) for r in roles}
    bad = source.choice(roles[1:])
    if rule == "shape":
        tiles[bad] = Tile(phys[0], phys[1] * 2, rows, cols) if phys[0] > 1 else Tile(phys[0] * 2, phys[1], rows,
                                                                                      cols)
    elif rule == "valid":
        tiles[bad] = Tile(*phys, rows, cols - 1) if cols > 1 else Tile(*phys, rows - 1, cols) if rows > 1 else \
            Tile(phys[0], phys[1] * 2, rows, cols)
    else:
        empty = (0, cols) if float(source.random(1)[0]) < 0.5 else (rows, 0)
        tiles = {r: Tile(*phys, *empty) for r in roles}
    return Case(op, "spec", dt.name, tuple((r, tiles[r]) for r in roles))
