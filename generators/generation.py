"""Random cases of the generation instructions (TEXPANDS, TCI, TTRI): a destination geometry and the scalar
parameters, legal on each platform.

The destination is drawn as the elementwise family's (:func:`ptofuzz.generators.elementwise.random_case` with the
one role ``dst``: a legal descriptor on spec, whole 32-byte rows elsewhere, empty regions now and then off the
spec). TCI's destination is one row (pto-isa requires ``Rows == 1``; pto-spec one valid row, in a descriptor of
as many physical rows as its capacity needs). The parameters lean on the edges:

- TCI's start: element bits with :data:`PARAM_SPECIAL_RATE` special values (extremes, so that a sequence runs off
  the type's range), or a start a few steps from an end of the range, toward it;
- TTRI's diagonal: mostly within a few rows and columns of the tile (all ones, all zeros and every split in
  between), sometimes pto-spec's bounds (+-65535, +-65536: its fault) and, off the spec, the ends of C++'s
  ``int``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.core.layouts import spec_physical, whole_rows
from ptofuzz.generators import elementwise as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension
from ptofuzz.oracles.generation import DESCENDING, DIAGONAL, SPEC_DIAGONAL, START, UPPER

PARAM_SPECIAL_RATE = 0.3
NEAR_END_RATE = 0.2
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
TCI_MAX_COLS = 512


def _coin(source: Source, p: float = 0.5) -> bool:
    return float(source.random(1)[0]) < p


def start_bits(source: Source, dt: DType) -> int:
    """A TCI start: any element bits, special values often; for integers now and then a few steps from an end
    of the range."""
    if not dt.is_float and _coin(source, NEAR_END_RATE):
        steps = int(source.integers(0, 40))
        v = dt.int_max - steps if _coin(source) else dt.int_min + steps
        return v & ((1 << dt.bits) - 1)
    return int(values.draw(source, dt, (1,), PARAM_SPECIAL_RATE)[0])


def diagonal(source: Source, rows: int, cols: int, *, spec: bool) -> int:
    """A TTRI diagonal: near the tile mostly, pto-spec's bounds sometimes, ``int``'s ends off the spec."""
    roll = float(source.random(1)[0])
    if roll < 0.8:
        return int(source.integers(-rows - 2, cols + 2))
    if roll < 0.9 or spec:
        return int(source.choice((SPEC_DIAGONAL, -SPEC_DIAGONAL) if spec else
                                 (SPEC_DIAGONAL, -SPEC_DIAGONAL, SPEC_DIAGONAL + 1, -SPEC_DIAGONAL - 1)))
    return int(source.choice((INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, INT_MAX - rows, INT_MIN + cols)))


def dst_case(source: Source, op: str, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]
             ) -> Case:
    """The destination geometry alone (as the elementwise family draws it)."""
    return gen.random_case(source, op, platform, dtypes, constraints, ("dst",))


def tci_case(source: Source, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A TCI case: one valid row of 1..:data:`TCI_MAX_COLS` columns (``shape`` fixes the valid region: a spec
    case of other than one row is then pto-spec's fault), a start and a direction."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    block = gen.block(dt)
    rows, cols = constraints.get("shape") or (1, dimension(source, TCI_MAX_COLS, block))
    if platforms.get(platform).kind == platforms.SPEC:
        tile = Tile(*spec_physical(max(rows, 1), cols, dt), rows, cols)
    else:
        r, c = whole_rows(1, cols, dt)
        tile = Tile(r, c + int(source.integers(0, 2)) * block, min(rows, 1), cols)
    params = ((START, start_bits(source, dt)), (DESCENDING, int(_coin(source))))
    return Case("TCI", platform, dt.name, (("dst", tile),), params)


def ttri_case(source: Source, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A TTRI case: the elementwise family's destination, an orientation and a diagonal."""
    c = dst_case(source, "TTRI", platform, dtypes, constraints)
    rows, cols = c.tile("dst").valid
    spec = platforms.get(platform).kind == platforms.SPEC
    return c.replace(params=((UPPER, int(_coin(source))), (DIAGONAL, diagonal(source, rows, cols, spec=spec))))


def spec_breaks(source: Source, case: Case) -> Case:
    """A spec case pto-spec rejects, from a legal one: an empty valid region, and for TCI more than one valid
    row, for TTRI a diagonal past +-65535."""
    d = case.tile("dst")
    rule = source.choice(("empty", "param"))
    if rule == "empty":
        return case.replace(tiles=(("dst", Tile(d.rows, d.cols, 0, d.valid_cols)),) + case.tiles[1:])
    if case.op == "TCI":
        rows = 2 if d.rows >= 2 else 0
        return case.replace(tiles=(("dst", Tile(d.rows, d.cols, rows, d.valid_cols)),) + case.tiles[1:])
    if case.op == "TTRI":
        big = int(source.choice((SPEC_DIAGONAL + 1, -SPEC_DIAGONAL - 1, INT_MAX, INT_MIN)))
        return case.replace(params=tuple((k, big if k == DIAGONAL else v) for k, v in case.params))
    return case.replace(tiles=(("dst", Tile(d.rows, d.cols, d.valid_rows, 0)),) + case.tiles[1:])


def scalars(source: Source, dt: DType, n: int, mix: values.ValueMix) -> np.ndarray:
    """``n`` TEXPANDS scalars as (n, 1, 1) bits, with at least :data:`PARAM_SPECIAL_RATE` special values of the
    mix's element kinds (every kind then meets the operation often)."""
    kinds = tuple(k for k in mix.kinds if k in values.ELEMENT_KINDS)
    rate = max(mix.rate, PARAM_SPECIAL_RATE) if mix.rate and kinds else 0.0
    return values.draw(source, dt, (n, 1, 1), values.ValueMix(rate, kinds))
